// Command-line parsing for every surepatch command, on node:util parseArgs (strict).
//
// A command declares its options as parseArgs does, plus `value` (the placeholder shown in the help),
// `help`, and `multiple` for repeatable flags. parse() refuses, with a UsageError (exit 2, one line):
// an unknown flag, a missing value, a single-valued flag given twice, too many positionals.
import { parseArgs } from 'node:util'

export class UsageError extends Error {}

/**
 * @param {string[]} argv
 * @param {{options: Record<string, {type: 'string' | 'boolean', short?: string, multiple?: boolean}>, positionals?: number}} spec
 * @returns {{values: Record<string, any>, positionals: string[]}}
 */
export function parse(argv, spec) {
  const options = {}
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = { type: o.type }
    if (o.short) options[name].short = o.short
    if (o.multiple) options[name].multiple = true
  }
  let out
  try {
    out = parseArgs({ args: argv, options, strict: true, allowPositionals: true, tokens: true })
  } catch (e) {
    // parseArgs messages are one line already ("Unknown option '--x'. ..."); keep the first sentence or two.
    throw new UsageError(String(e && e.message ? e.message : e).split('\n')[0].replace(/\. To specify .*$/, ''))
  }
  const seen = new Map()
  for (const t of out.tokens) {
    if (t.kind !== 'option') continue
    if (!spec.options[t.name].multiple && seen.has(t.name)) {
      throw new UsageError(`--${t.name} is given twice (${seen.get(t.name)} and ${t.rawName}${t.value !== undefined ? ` ${t.value}` : ''}); give it once`)
    }
    seen.set(t.name, t.rawName + (t.value !== undefined ? ` ${t.value}` : ''))
    if (spec.options[t.name].type === 'string' && t.value === '') throw new UsageError(`--${t.name} needs a non-empty value`)
  }
  const max = spec.positionals ?? 0
  if (out.positionals.length > max) {
    throw new UsageError(
      max === 0
        ? `unexpected argument ${JSON.stringify(out.positionals[0])}`
        : `too many arguments: ${out.positionals.slice(max).map((p) => JSON.stringify(p)).join(' ')}`,
    )
  }
  return { values: out.values, positionals: out.positionals }
}

/** The options block of a help text. */
export function optionsHelp(options) {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.value ? ` ${o.value}` : ''}`
    return `  ${flag.padEnd(28)} ${o.help}`
  })
  return rows.join('\n')
}

/** `choice(value, allowed, flag)`: the value, or a UsageError naming the allowed ones. */
export function choice(value, allowed, flag) {
  if (value === undefined) return undefined
  if (!allowed.includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`)
  }
  return value
}
