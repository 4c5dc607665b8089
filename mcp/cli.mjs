// Command-line options of bin/surepatch.mjs.

// One entry per flag: `value` flags take the next argument (or `--flag=value`), the others are switches.
// To add a flag, add an entry here and read `options[key]` in bin/surepatch.mjs.
export const FLAGS = [
  { flag: '--root', key: 'root', value: 'DIR', help: 'workspace root every path must stay inside (default: $SUREPATCH_WORKSPACE_ROOT, else the current directory)' },
  { flag: '--validate', key: 'validate', value: 'MODE', help: 'syntax gate for every edit: "report" (default: results carry syntax), "enforce" (refuse edits that introduce a syntax error) or "off" (default: $SUREPATCH_VALIDATE, else report)' },
  { flag: '--max-message-bytes', key: 'maxMessageBytes', value: 'N', help: 'largest JSON-RPC message read from stdin, in bytes (default 402653184 = 384 MiB: a 256 MiB file sent whole, JSON-escaped); a longer one is answered with an error and skipped' },
  { flag: '--require-read', key: 'requireRead', help: 'refuse edits to files not viewed in this session, or changed since (STALE_FILE)' },
  { flag: '--version', key: 'version', help: 'print the version and exit' },
  { flag: '--help', key: 'help', help: 'print this help and exit' },
]

export function usage() {
  const rows = FLAGS.map((f) => `  ${(f.value ? `${f.flag} ${f.value}` : f.flag).padEnd(20)} ${f.help}`)
  return `Usage: surepatch [options]\n\nStarts the surepatch MCP server on stdio.\n\nOptions:\n${rows.join('\n')}\n`
}

export function parseArgs(argv) {
  const options = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = eq === -1 ? arg : arg.slice(0, eq)
    const spec = FLAGS.find((f) => f.flag === name)
    if (!spec) throw new Error(`unknown option ${JSON.stringify(arg)}`)
    if (spec.value) {
      const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i]
      if (value === undefined || value === '') throw new Error(`${spec.flag} needs a value (${spec.value})`)
      options[spec.key] = value
    } else {
      if (eq !== -1) throw new Error(`${spec.flag} takes no value`)
      options[spec.key] = true
    }
  }
  return options
}

