// The surepatch command line: the MCP server (default), and apply / view / undo through the same engine.
//
//   surepatch [mcp] [--root DIR] [--require-read] [--validate MODE] [--http [HOST:]PORT] ...
//   surepatch apply [--root DIR] [--format auto|apply_patch|unified|blocks] [--overwrite] [--dry-run] [--json] [FILE]
//   surepatch view FILE [--root DIR] [--numbered | --hashline] [--range A:B] [--json]
//   surepatch merge FILE [--root DIR] [--dry-run] [--json] [--validate MODE] < SNIPPET
//   surepatch undo EDIT_ID|PATH [--root DIR] [--json]
//   surepatch log [--root DIR] [--limit N] [--json]
//   surepatch help [COMMAND]
//   apply_patch [FILE | PATCH]          (= surepatch apply --format apply_patch)
//
// Exit codes: 0 done; 1 refused by the engine (nothing written; the reason on stderr); 2 usage error
// (unknown flag, a single-valued flag twice, a bad value: one line on stderr, in every mode).
//
// The command line's undo journal lives on disk outside the workspace, one per root:
// $XDG_STATE_HOME/surepatch/journal/<root name>-<hash of its real path>/ (default state home
// ~/.local/state; %LOCALAPPDATA% on Windows), or under --journal-dir DIR instead of the state home, so
// `surepatch undo` works from a later process.
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { basename, isAbsolute, join, resolve } from 'node:path'
import { choice, optionsHelp, parse, UsageError } from './args.mjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')

const ROOT = { type: 'string', value: 'DIR', help: 'workspace root every path must stay inside (default: $SUREPATCH_WORKSPACE_ROOT, else the current directory); relative paths resolve against it' }
const HELP = { type: 'boolean', short: 'h', help: 'print this help and exit' }
const VERSION = { type: 'boolean', help: 'print the version and exit' }
const JOURNAL = { type: 'string', value: 'DIR', help: 'keep the undo journal under DIR instead of the state directory ($XDG_STATE_HOME/surepatch/journal)' }
const JSON_OUT = { type: 'boolean', help: 'print the engine\'s result object as JSON' }
const VALIDATE = { type: 'string', value: 'MODE', help: 'syntax gate: "report" (default: results carry syntax), "enforce" (refuse edits that introduce a syntax error) or "off"' }

const COMMANDS = {
  mcp: {
    usage: 'surepatch [mcp] [options]',
    about: 'Starts the surepatch MCP server: on stdio (stdout carries only the protocol; logs go to stderr), or over Streamable HTTP with --http.\nWithout --root (nor $SUREPATCH_WORKSPACE_ROOT), a client that declares roots is served its roots; else the current directory.',
    positionals: 0,
    options: {
      root: ROOT,
      'require-read': { type: 'boolean', help: 'refuse edits to files not viewed in this session, or changed since (STALE_FILE)' },
      validate: { ...VALIDATE, help: `${VALIDATE.help} (default: $SUREPATCH_VALIDATE, else report)` },
      tools: { type: 'string', value: 'LIST', help: 'the tools to list: a comma list of tool names and profiles: minimal (view_file, edit_file, edit_lines, write_file), default (minimal + apply_patch, search_files, list_directory, undo_edit), all (every tool); default: default' },
      'output-schemas': { type: 'boolean', help: 'give each tool its outputSchema in tools/list (off by default: it doubles the listing; results are the same)' },
      http: { type: 'string', value: '[HOST:]PORT', help: 'serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST default 127.0.0.1; every request needs "Authorization: Bearer $SUREPATCH_HTTP_TOKEN", or the token printed on stderr at start)' },
      'allow-host': { type: 'string', multiple: true, value: 'NAME', help: 'with --http: a further hostname the Host header may name (DNS-rebinding protection; repeatable)' },
      'allow-origin': { type: 'string', multiple: true, value: 'ORIGIN', help: 'with --http: a further Origin (scheme://host[:port]) a browser request may come from; others get 403 (repeatable; the server\'s own origins and requests without Origin are allowed)' },
      'max-sessions': { type: 'string', value: 'N', help: 'with --http: most sessions open at once (default 64; 1 to 100000); a new one closes the session idle longest' },
      'max-message-bytes': { type: 'string', value: 'N', help: 'largest JSON-RPC message read, in bytes (default 402653184 = 384 MiB: a 256 MiB file sent whole, JSON-escaped)' },
      'session-idle': { type: 'string', value: 'SECONDS', help: 'with --http: end a session after this many seconds without a request (default 1800; 1 to 604800)' },
      version: VERSION,
      help: HELP,
    },
  },
  apply: {
    usage: 'surepatch apply [options] [FILE]',
    about: 'Reads a patch from FILE (or stdin) and applies it, all or nothing, through the same engine as the MCP tools.\nExit 0: applied (each file with its +/- line counts, and the edit_id for `surepatch undo`); 1: refused, nothing written (the reason on stderr); 2: usage error.',
    positionals: 1,
    options: {
      root: ROOT,
      format: { type: 'string', value: 'FORMAT', help: 'auto (default: told by the content), apply_patch ("*** Begin Patch"), unified (---/+++/@@ diff) or blocks (SEARCH/REPLACE)' },
      'file-path': { type: 'string', value: 'PATH', help: 'unified or blocks: the file the edit is for, when the text names none' },
      overwrite: { type: 'boolean', help: 'let a file the patch adds (Add File, a new-file diff, an empty SEARCH) replace an existing one, and a move replace its target (else FILE_EXISTS)' },
      'dry-run': { type: 'boolean', help: 'check and show the diff; write nothing' },
      json: JSON_OUT,
      validate: VALIDATE,
      'journal-dir': JOURNAL,
      version: VERSION,
      help: HELP,
    },
  },
  merge: {
    usage: 'surepatch merge FILE [options] < SNIPPET',
    about:
      'Reads a lazy snippet on stdin (the changed regions as they should read, with "// ... existing code ..." marker lines, in FILE\'s comment syntax, for the code left out) and merges it into FILE, or refuses when any chunk has not exactly one place.\n' +
      'Exit 0: merged (the file with its +/- line counts, where each chunk landed, and the edit_id for `surepatch undo`); 1: refused, nothing written (the chunk, the reason and candidate regions on stderr); 2: usage error.',
    positionals: 1,
    options: {
      root: ROOT,
      'dry-run': { type: 'boolean', help: 'check and show the diff; write nothing' },
      json: JSON_OUT,
      validate: VALIDATE,
      'journal-dir': JOURNAL,
      version: VERSION,
      help: HELP,
    },
  },
  view: {
    usage: 'surepatch view FILE [options]',
    about: 'Prints a text file of the workspace (or lines A to B), plain or with LINE:HASH anchors.',
    positionals: 1,
    options: {
      root: ROOT,
      numbered: { type: 'boolean', help: 'prefix each line with its line number (like cat -n)' },
      hashline: { type: 'boolean', help: 'prefix each line with its LINE:HASH anchor' },
      range: { type: 'string', value: 'A:B', help: 'only lines A to B (1-based, inclusive; A: or :B leave one end open)' },
      json: JSON_OUT,
      version: VERSION,
      help: HELP,
    },
  },
  undo: {
    usage: 'surepatch undo EDIT_ID|PATH [options]',
    about:
      'Reverts an edit made by `surepatch apply` (from any earlier process), if every file it touched is still as it left it.\n' +
      'EDIT_ID is printed by `surepatch apply` and listed by `surepatch log`; a PATH (any argument that is not an edit id) reverts the newest edit of that file, and again the one before.\n' +
      'CHECKPOINT_ID (from `surepatch checkpoint`, listed by `surepatch log`) puts back every file written since that checkpoint, all or nothing.',
    positionals: 1,
    options: {
      root: ROOT,
      force: { type: 'boolean', help: 'with a CHECKPOINT_ID: restore files changed since by something else too (that change is lost)' },
      json: JSON_OUT,
      'journal-dir': JOURNAL,
      version: VERSION,
      help: HELP,
    },
  },
  checkpoint: {
    usage: 'surepatch checkpoint [LABEL] [options]',
    about: 'Marks the workspace now, in the undo journal: `surepatch undo CHECKPOINT_ID` later puts back every file `surepatch apply` wrote since. Prints the checkpoint id.',
    positionals: 1,
    options: { root: ROOT, json: JSON_OUT, 'journal-dir': JOURNAL, version: VERSION, help: HELP },
  },
  log: {
    usage: 'surepatch log [options]',
    about: 'Lists the edits `surepatch undo` can revert in this root, newest first: edit_id, time, files; then the checkpoints (checkpoint_id, label, edits since).',
    positionals: 0,
    options: {
      root: ROOT,
      limit: { type: 'string', value: 'N', help: 'at most N edits (default 20; 1 to 200)' },
      json: { type: 'boolean', help: 'print {ok, edits: [{edit_id, time, files}], checkpoints: [{checkpoint_id, label, edits_since}]} as JSON' },
      'journal-dir': JOURNAL,
      version: VERSION,
      help: HELP,
    },
  },
  help: {
    usage: 'surepatch help [COMMAND]',
    about: 'Prints the help of COMMAND (mcp, apply, merge, view, undo, checkpoint, log), or of surepatch.',
    positionals: 1,
    options: { help: HELP },
  },
}

// The help of the apply_patch binary (its own name, its own arguments).
const APPLY_PATCH_HELP =
  "Usage: apply_patch [options] [FILE | PATCH]\n\n" +
  "Applies a patch in the apply_patch format (\"*** Begin Patch\" ... \"*** End Patch\"), all or nothing, to the files under the\n" +
  "workspace root: read from FILE, from stdin (apply_patch <<'EOF' ... EOF), or given as the one argument PATCH.\n" +
  '`apply_patch --format unified|blocks|auto` reads another format instead. Same as `surepatch apply --format apply_patch`.\n' +
  'Exit 0: applied (each file with its +/- line counts, and the edit_id for `surepatch undo`); 1: refused, nothing written\n' +
  '(the reason on stderr); 2: usage error.\n'


function helpText(name, program = 'surepatch') {
  const c = COMMANDS[name]
  if (program === 'apply_patch' && name === 'apply') {
    const { 'file-path': _f, ...options } = c.options
    return `${APPLY_PATCH_HELP}\nOptions:\n${optionsHelp(options)}\n`
  }
  let text = `Usage: ${c.usage}\n\n${c.about}\n\nOptions:\n${optionsHelp(c.options)}\n`
  if (name === 'mcp') {
    text +=
      '\nCommands:\n' +
      '  surepatch [mcp]          the MCP server (this)\n' +
      '  surepatch apply [FILE]   apply a patch (apply_patch, unified diff or SEARCH/REPLACE blocks)\n' +
      '  surepatch merge FILE     merge a lazy snippet (stdin) with "// ... existing code ..." markers into FILE\n' +
      '  surepatch view FILE      print a file, or lines of it\n' +
      '  surepatch undo EDIT_ID   revert an applied patch (or PATH: the newest edit of that file)\n' +
      '  surepatch checkpoint     mark the workspace now (undo CHECKPOINT_ID goes back to it)\n' +
      '  surepatch log            list the edits and checkpoints undo can revert\n' +
      '  surepatch help [COMMAND] this help, or a command\'s\n' +
      'Run `surepatch COMMAND --help` (or `surepatch help COMMAND`) for each.\n'
  }
  return text
}

const out = (s) => process.stdout.write(s)
// A failure's message and hint in the command line's words (--overwrite, surepatch view; tools/vocabulary.cjs).
const cliWords = (r) => {
  const v = require('../tools/vocabulary.cjs')
  return v.speak(r, v.CLI)
}
const err = (s) => process.stderr.write(s)

function workspaceRoot(values) {
  const root = resolve(values.root || process.env.SUREPATCH_WORKSPACE_ROOT || process.cwd())
  let isDir = false
  try {
    isDir = statSync(root).isDirectory()
  } catch {}
  if (!isDir) throw new UsageError(`workspace root ${root} is not a directory`)
  return root
}

// The state directory's surepatch/ and surepatch/journal/ (default ~/.local/state).
function stateJournalBase() {
  const xdg = process.env.XDG_STATE_HOME
  const state =
    xdg && isAbsolute(xdg)
      ? xdg
      : process.platform === 'win32' && process.env.LOCALAPPDATA
        ? process.env.LOCALAPPDATA
        : join(homedir(), '.local', 'state')
  return [join(state, 'surepatch'), join(state, 'surepatch', 'journal')]
}

/**
 * The journals hold files' previous content, so they are private (owner only): the engine makes each
 * journal directory 0700 and its files 0600, narrows a journal directory made before that, and
 * makes missing parents 0700. This narrows the two state directories above the per-root journals
 * (which name the roots) when an older version made them 0755: only when they are this user's
 * directories (not symlinks), and never a --journal-dir, which the user chose.
 */
function narrowStateDirs(override) {
  if (override || process.platform === 'win32' || typeof process.getuid !== 'function') return
  for (const dir of stateJournalBase()) {
    try {
      const st = lstatSync(dir)
      if (st.isDirectory() && st.uid === process.getuid() && st.mode & 0o077) chmodSync(dir, st.mode & 0o700)
    } catch {}
  }
}

/** The on-disk undo journal of `root` (see the module comment). */
export function journalDir(root, override) {
  const base = override ? resolve(override) : stateJournalBase()[1]
  let real = root
  try {
    real = realpathSync(root)
  } catch {}
  const id = createHash('sha256').update(real).digest('hex').slice(0, 16)
  return join(base, `${basename(real) || 'root'}-${id}`)
}

// What `auto` picks for a patch text.
export function detectFormat(text) {
  if (/^[ \t]*\*\*\*[ \t]*Begin Patch/m.test(text)) return 'apply_patch'
  if (/^[ \t]*(<{3,9}|-{3,9})[ \t]*SEARCH\b/m.test(text)) return 'blocks'
  if (/^(diff --git |--- |\+\+\+ |@@)/m.test(text)) return 'unified'
  return null
}

// The offset of the first byte of `bytes` that does not start (or continue) a well-formed UTF-8
// sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF), or -1. Only called once the
// native decoder has refused the bytes, to say where.
export function firstInvalidUtf8(bytes) {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]
    if (b < 0x80) {
      i++
      continue
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0
    if (need === 0) return i
    const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80
    const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf
    if (i + 1 >= bytes.length || bytes[i + 1] < lo || bytes[i + 1] > hi) return i
    for (let k = 2; k <= need; k++) if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i
    i += need + 1
  }
  return -1
}

// A patch's bytes as text. Bytes that are not UTF-8 are refused (exit 2), never replaced by U+FFFD:
// a Latin-1 "é" in an added line would otherwise be written as "\uFFFD", silently. A BOM is kept
// as the text's first character, as before.
export function decodePatch(bytes, what) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    const at = firstInvalidUtf8(bytes)
    let line = 1
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++
    const byte = bytes[at] === undefined ? '' : `byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} `
    throw new UsageError(
      `${what} is not UTF-8: ${byte}at offset ${at} (line ${line}) is not part of a valid UTF-8 character; nothing was written. Convert the patch to UTF-8 (e.g. iconv -f latin1 -t utf-8)`,
    )
  }
}

// Whether the raw command line of this process holds an argument that is not UTF-8 (Linux: Node
// decodes argv with U+FFFD for such bytes, so a patch given as an argument is checked here).
function argvHasInvalidUtf8() {
  let raw
  try {
    raw = readFileSync('/proc/self/cmdline')
  } catch {
    return false // not Linux: nothing to compare with
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(raw)
    return false
  } catch {
    return true
  }
}

// Standard input to its end, whatever it is (pipe, file, socket, FIFO), through the stream API: a
// pipe whose writer starts late is waited for (a synchronous read of fd 0 fails with EAGAIN once
// Node has made it non-blocking).
async function readStdin() {
  const chunks = []
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : c)
  return Buffer.concat(chunks)
}

async function readPatch(arg, { inline }) {
  if (arg !== undefined && arg !== '-') {
    // apply_patch 'PATCH' (the patch as the argument, as Codex sends it) reads the text itself.
    if (inline && (arg.includes('\n') || /^\s*\*\*\*\s*Begin Patch/.test(arg))) {
      if (arg.includes('\uFFFD') && argvHasInvalidUtf8()) {
        throw new UsageError('the patch argument is not UTF-8 (it holds a byte that is not part of a valid UTF-8 character); nothing was written. Convert the patch to UTF-8, or pass it on stdin')
      }
      return arg
    }
    let bytes
    try {
      bytes = readFileSync(arg)
    } catch (e) {
      throw new UsageError(`cannot read the patch file ${arg}: ${e.code || e.message}`)
    }
    return decodePatch(bytes, `the patch file ${arg}`)
  }
  // A terminal is refused rather than waited on: a harness that runs the command under a pseudo-
  // terminal without input would wait forever.
  if (process.stdin.isTTY) throw new UsageError('no patch: give FILE, or pipe the patch on stdin')
  return decodePatch(await readStdin(), 'the patch on stdin')
}

// "path: update +3 −1" for each file of a receipt.
function fileLines(r, diffCounts) {
  const files = Array.isArray(r.files) ? r.files : [r]
  return files
    .map((f) => {
      const { added, removed } = diffCounts(f.diff)
      const path = typeof f.moved_to === 'string' && f.moved_to !== f.file_path ? `${f.file_path} -> ${f.moved_to}` : f.file_path
      return `${f.op || 'update'} ${path} +${added} -${removed}\n`
    })
    .join('')
}

async function apply(values, positionals, { inline, format: given }) {
  const format = choice(values.format, ['auto', 'apply_patch', 'unified', 'blocks'], '--format') || given || 'auto'
  const validate = choice(values.validate, ['off', 'report', 'enforce'], '--validate') || 'report'
  const root = workspaceRoot(values)
  if (values['file-path'] !== undefined && format === 'apply_patch') throw new UsageError('--file-path is for --format unified or blocks (an apply_patch envelope names its files)')
  const text = await readPatch(positionals[0], { inline })
  const sp = require('../index.js')
  const { summarize, diffCounts } = require('../tools/summary.cjs')
  const kind = format === 'auto' ? detectFormat(text) : format
  let r
  if (text.replace(/^\uFEFF/, '').trim() === '') {
    // Said before any format is guessed: "no format" would send the caller looking for the wrong fault.
    const arg = positionals[0]
    const from = arg === undefined || arg === '-' ? 'on stdin' : inline && arg.includes('\n') ? 'given as the argument' : `in ${arg}`
    r = { ok: false, code: 'PARSE_ERROR', message: `the patch ${from} is empty${text.length ? ' (only white space)' : ''}; nothing was written. Send the patch text.` }
  } else if (!kind) {
    r = {
      ok: false,
      code: 'PARSE_ERROR',
      message: 'the patch is in no format surepatch can tell: expected "*** Begin Patch" (apply_patch), "<<<<<<< SEARCH" blocks, or a unified diff (---/+++/@@); nothing was written. Name it with --format.',
    }
  } else {
    const opts = { workspace_root: root, dry_run: Boolean(values['dry-run']), validate }
    if (!values['dry-run']) {
      opts.host_journal_dir = journalDir(root, values['journal-dir'])
      narrowStateDirs(values['journal-dir'])
    }
    if (values['file-path'] !== undefined) opts.file_path = values['file-path']
    if (values.overwrite) opts.overwrite = true
    r = kind === 'apply_patch' ? await sp.applyPatch(text, opts) : kind === 'unified' ? await sp.applyUnifiedDiff(text, opts) : await sp.applyBlocks(text, opts)
  }
  r = cliWords(r)
  if (values.json) out(`${JSON.stringify(r, null, 2)}\n`)
  if (r.ok !== true) {
    if (!values.json) err(summarize('apply_patch', r))
    return 1
  }
  if (!values.json) {
    out(fileLines(r, diffCounts))
    if (values['dry-run']) {
      out('dry run: nothing was written.\n')
      for (const f of Array.isArray(r.files) ? r.files : [r]) if (typeof f.diff === 'string') out(f.diff.endsWith('\n') ? f.diff : `${f.diff}\n`)
    } else if (typeof r.edit_id === 'string') {
      out(`edit_id ${r.edit_id} (surepatch undo ${r.edit_id}${values.root ? ` --root ${JSON.stringify(root)}` : ''} reverts it)\n`)
    }
    if (typeof r.journal_warning === 'string') err(`surepatch: warning: ${r.journal_warning}\n`)
    const syntax = summarize('apply_patch', r).split('\n').filter((l) => l.startsWith('syntax:') || l.startsWith('  line '))
    if (syntax.length) err(`${syntax.join('\n')}\n`)
  }
  return 0
}

async function merge(values, positionals) {
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('merge needs FILE (the snippet comes on stdin)')
  const validate = choice(values.validate, ['off', 'report', 'enforce'], '--validate') || 'report'
  const root = workspaceRoot(values)
  if (process.stdin.isTTY) throw new UsageError('no snippet: pipe it on stdin')
  const snippet = decodePatch(await readStdin(), 'the snippet on stdin')
  const sp = require('../index.js')
  const { summarize, diffCounts } = require('../tools/summary.cjs')
  const opts = { workspace_root: root, dry_run: Boolean(values['dry-run']), validate }
  if (!values['dry-run']) {
    opts.host_journal_dir = journalDir(root, values['journal-dir'])
    narrowStateDirs(values['journal-dir'])
  }
  const r = cliWords(await sp.mergeSnippet({ file_path: positionals[0], snippet }, opts))
  if (values.json) out(`${JSON.stringify(r, null, 2)}\n`)
  if (r.ok !== true) {
    if (!values.json) err(summarize('merge_snippet', r))
    return 1
  }
  if (!values.json) {
    out(fileLines(r, diffCounts))
    for (const c of r.chunks || []) out(`chunk ${c.chunk} (snippet lines ${c.snippet_start_line}-${c.snippet_end_line}) -> lines ${c.start_line}-${c.end_line}\n`)
    if (values['dry-run']) {
      out('dry run: nothing was written.\n')
      out(r.diff.endsWith('\n') ? r.diff : `${r.diff}\n`)
    } else if (typeof r.edit_id === 'string') {
      out(`edit_id ${r.edit_id} (surepatch undo ${r.edit_id}${values.root ? ` --root ${JSON.stringify(root)}` : ''} reverts it)\n`)
    }
    if (typeof r.journal_warning === 'string') err(`surepatch: warning: ${r.journal_warning}\n`)
  }
  return 0
}

function parseRange(value) {
  if (value === undefined) return {}
  const m = /^(\d*)(?::(\d*))?$/.exec(value)
  const a = m && m[1] ? Number(m[1]) : undefined
  const b = m ? (m[2] === undefined ? a : m[2] ? Number(m[2]) : undefined) : undefined
  if (!m || (a === undefined && b === undefined) || a === 0 || b === 0 || (a !== undefined && b !== undefined && b < a)) {
    throw new UsageError(`--range takes A:B (1-based lines, A <= B; A: or :B leave one end open); got ${JSON.stringify(value)}`)
  }
  return { start_line: a, end_line: b }
}

async function view(values, positionals) {
  if (positionals.length !== 1) throw new UsageError('view needs FILE')
  if (values.numbered && values.hashline) throw new UsageError('--numbered and --hashline are two line prefixes; give one')
  const range = parseRange(values.range)
  const root = workspaceRoot(values)
  const sp = require('../index.js')
  const r = cliWords(await sp.viewFile(positionals[0], { workspace_root: root, format: values.hashline ? 'hashline' : values.numbered ? 'numbered' : 'plain', ...range }))
  if (values.json) out(`${JSON.stringify(r, null, 2)}\n`)
  if (r.ok !== true) {
    if (!values.json) err(require('../tools/summary.cjs').summarize('view_file', r))
    return 1
  }
  if (!values.json) out(r.content)
  return 0
}

async function undo(values, positionals) {
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('undo needs EDIT_ID (printed by surepatch apply, listed by surepatch log) or a file PATH')
  const root = workspaceRoot(values)
  const sp = require('../index.js')
  const { summarize } = require('../tools/summary.cjs')
  narrowStateDirs(values['journal-dir'])
  const journal = { workspace_root: root, host_journal_dir: journalDir(root, values['journal-dir']) }
  const isCheckpoint = /^c[0-9a-f]{22}$/.test(positionals[0])
  if (values.force && !isCheckpoint) throw new UsageError('--force is for a CHECKPOINT_ID')
  const r = isCheckpoint
    ? cliWords(await sp.restoreCheckpoint(positionals[0], { ...journal, force: values.force }))
    : cliWords(await sp.undoEdit(positionals[0], journal))
  if (values.json) out(`${JSON.stringify(r, null, 2)}\n`)
  else (r.ok === true ? out : err)(summarize(isCheckpoint ? 'restore_checkpoint' : 'undo_edit', r))
  return r.ok === true ? 0 : 1
}

async function checkpoint(values, positionals) {
  const root = workspaceRoot(values)
  const sp = require('../index.js')
  narrowStateDirs(values['journal-dir'])
  const r = cliWords(await sp.createCheckpoint({ workspace_root: root, host_journal_dir: journalDir(root, values['journal-dir']), label: positionals[0] }))
  if (values.json) out(`${JSON.stringify(r, null, 2)}\n`)
  else if (r.ok === true) out(`${r.checkpoint_id}${r.label ? `  ${r.label}` : ''}\n`)
  else err(require('../tools/summary.cjs').summarize('create_checkpoint', r))
  return r.ok === true ? 0 : 1
}

/**
 * The entries of the on-disk journal of `root`, newest first: `{edit_id, time, files}` (time: when the
 * entry was written, ISO 8601). Reads each entry's manifest (`<edit_id>/entry.json`, written last, so
 * an entry without one is incomplete and skipped, as the engine skips it).
 */
export function journalEntries(dir) {
  let names
  try {
    names = readdirSync(dir)
  } catch (e) {
    if (e.code === 'ENOENT') return []
    throw e
  }
  const list = []
  for (const name of names) {
    const at = join(dir, name, 'entry.json')
    let manifest, st
    try {
      st = statSync(at)
      manifest = JSON.parse(readFileSync(at, 'utf8'))
    } catch {
      continue
    }
    if (!manifest || manifest.edit_id !== name || !Array.isArray(manifest.files)) continue
    list.push({ edit_id: name, time: st.mtime.toISOString(), ms: st.mtimeMs, files: manifest.files.map((f) => String(f.path)) })
  }
  list.sort((a, b) => b.ms - a.ms || (a.edit_id < b.edit_id ? 1 : -1))
  return list.map(({ ms: _ms, ...e }) => e)
}

async function log(values) {
  let limit = 20
  if (values.limit !== undefined) {
    limit = Number(values.limit)
    if (!/^[0-9]+$/.test(values.limit) || limit < 1 || limit > 200) throw new UsageError(`--limit must be a whole number from 1 to 200; got ${JSON.stringify(values.limit)}`)
  }
  const root = workspaceRoot(values)
  const dir = journalDir(root, values['journal-dir'])
  const edits = journalEntries(dir).slice(0, limit)
  // The checkpoints `undo` accepts (read from the same journal directory, if it exists).
  let checkpoints = []
  if (existsSync(dir)) {
    const r = await require('../index.js').listCheckpoints({ workspace_root: root, host_journal_dir: dir })
    if (r.ok !== true) {
      err(require('../tools/summary.cjs').summarize('list_checkpoints', cliWords(r)))
      return 1
    }
    checkpoints = r.checkpoints
  }
  if (values.json) {
    out(`${JSON.stringify({ ok: true, edits, checkpoints }, null, 2)}\n`)
    return 0
  }
  if (edits.length === 0) out('no edits to undo in this root.\n')
  for (const e of edits) out(`${e.edit_id}  ${e.time}  ${e.files.join(', ')}\n`)
  for (const c of checkpoints) out(`${c.checkpoint_id}  checkpoint${c.label ? ` ${JSON.stringify(c.label)}` : ''}  ${c.edits_since} edit(s) since\n`)
  return 0
}

/**
 * Runs the command line. Resolves to the exit code for apply / view / undo / help; for the server it
 * resolves once the server runs (the process then lives until the client goes away).
 * @param {string[]} argv  arguments after the program name
 * @param {{program?: string, inline?: boolean, format?: string}} how  `program` names the binary in
 *   messages and help; `inline` (the apply_patch binary) reads a patch given as the argument itself;
 *   `format` is apply's format when --format is not given (apply_patch's: apply_patch).
 */
export async function main(argv, how = {}) {
  const program = how.program || 'surepatch'
  let name = 'mcp'
  let rest = argv
  if (argv.length && !argv[0].startsWith('-')) {
    if (!Object.hasOwn(COMMANDS, argv[0])) {
      err(`${program}: unknown command ${JSON.stringify(argv[0])}; the commands are ${Object.keys(COMMANDS).join(', ')} (see ${program} --help)\n`)
      return 2
    }
    name = argv[0]
    rest = argv.slice(1)
  }
  const command = COMMANDS[name]
  const where = program === 'surepatch' && name !== 'mcp' ? `surepatch ${name}` : program
  try {
    const { values, positionals } = parse(rest, command)
    if (values.help) {
      out(helpText(name, program))
      return 0
    }
    if (name === 'help') {
      const topic = positionals[0] ?? 'mcp'
      if (!Object.hasOwn(COMMANDS, topic)) throw new UsageError(`no command ${JSON.stringify(topic)}; the commands are ${Object.keys(COMMANDS).join(', ')}`)
      out(helpText(topic))
      return 0
    }
    if (values.version) {
      out(`${pkg.version}\n`)
      return 0
    }
    if (name === 'apply') return await apply(values, positionals, how)
    if (name === 'merge') return await merge(values, positionals)
    if (name === 'view') return await view(values, positionals)
    if (name === 'undo') return await undo(values, positionals)
    if (name === 'log') return await log(values)
    if (name === 'checkpoint') return await checkpoint(values, positionals)
    const { serve } = await import('./serve.mjs')
    return await serve(values)
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${where}: ${e.message} (see ${where} --help)\n`)
      return 2
    }
    if (e && e.code === 'SUREPATCH_NATIVE_BINARY_MISSING') {
      // index.js could not load the engine: which package to install, for which platform. Nothing ran.
      err(`${where}: ${e.message.replace(/^surepatch: /, '')}\n`)
      return 1
    }
    throw e
  }
}

export { COMMANDS, helpText, UsageError }
