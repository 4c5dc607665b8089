// The command line: surepatch apply / view / undo, the apply_patch binary, usage errors (exit 2, one
// line) in every mode including the server, and `npm start` writing nothing but protocol on stdout.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync, spawn } from 'node:child_process'
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { BIN, REPO, populate, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')
const APPLY_PATCH = join(REPO, 'bin', 'apply_patch.mjs')

// Runs a binary; `state` is the XDG state home (the on-disk journal lives under it).
function run(bin, args, { input, cwd, state, env = {} } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input: input ?? '',
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, SUREPATCH_WORKSPACE_ROOT: '', XDG_STATE_HOME: state || '/nonexistent-state', ...env },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}
const sp = (args, o) => run(BIN, args, o)

function setup(t, files = { 'a.txt': 'one\ntwo\nthree\n' }) {
  const root = populate(tempDir(t, 'surepatch-cli-'), files)
  const state = tempDir(t, 'surepatch-state-')
  return { root, state, text: (p) => readFileSync(join(root, p), 'utf8') }
}

const ENVELOPE = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n'
const UNIFIED = '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n'
const BLOCKS = 'a.txt\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n'

test('apply: each format (told by the content) applies, prints each file with +/- counts and the edit_id', async (t) => {
  for (const [format, patch] of [['apply_patch', ENVELOPE], ['unified', UNIFIED], ['blocks', BLOCKS]]) {
    const s = setup(t)
    const r = sp(['apply', '--root', s.root], { input: patch, state: s.state })
    assert.equal(r.code, 0, `${format}: ${r.stderr}`)
    assert.match(r.stdout, /^update a\.txt \+1 -1\nedit_id (\S+) \(surepatch undo \S+ --root .* reverts it\)\n$/, format)
    assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n', format)
    // --format named explicitly gives the same.
    const s2 = setup(t)
    const r2 = sp(['apply', '--root', s2.root, '--format', format], { input: patch, state: s2.state })
    assert.equal(r2.code, 0, `${format}: ${r2.stderr}`)
    assert.equal(s2.text('a.txt'), 'one\nTWO\nthree\n')
  }
})

test('apply FILE, --dry-run (the diff, nothing written) and --json (the receipt)', async (t) => {
  const s = setup(t)
  const file = join(s.state, 'p.patch')
  writeFileSync(file, ENVELOPE)
  const dry = sp(['apply', '--root', s.root, '--dry-run', file], { state: s.state })
  assert.equal(dry.code, 0, dry.stderr)
  assert.equal(dry.stdout, 'update a.txt +1 -1\ndry run: nothing was written.\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n')
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')

  const json = sp(['apply', '--root', s.root, '--json', file], { state: s.state })
  assert.equal(json.code, 0, json.stderr)
  const receipt = JSON.parse(json.stdout)
  assert.equal(receipt.ok, true)
  assert.equal(receipt.written, true)
  assert.equal(receipt.files[0].file_path, 'a.txt')
  assert.match(receipt.edit_id, /^e[0-9a-f]+$/)
  assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n')
})

test('apply refused: exit 1, the code and message on stderr (or in --json), bytes unchanged', async (t) => {
  const s = setup(t, { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'x\nx\n' })
  const cases = [
    ['*** Begin Patch\n*** Update File: a.txt\n@@\n-zwei\n+TWO\n*** End Patch\n', 'SEARCH_BLOCK_NOT_FOUND'],
    ['*** Begin Patch\n*** Update File: b.txt\n@@\n-x\n+y\n*** End Patch\n', 'SEARCH_BLOCK_AMBIGUOUS'],
    ['*** Begin Patch\n*** Update File: ../out.txt\n@@\n-x\n+y\n*** End Patch\n', 'PATH_OUTSIDE_WORKSPACE'],
    ['*** Begin Patch\n*** Update File: missing.txt\n@@\n-x\n+y\n*** End Patch\n', 'FILE_NOT_FOUND'],
    ['*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n', 'PARSE_ERROR'],
    ['just some prose, no patch at all\n', 'PARSE_ERROR'],
    // All or nothing: the first file would apply, the second cannot.
    ['*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** Update File: b.txt\n@@\n-nope\n+y\n*** End Patch\n', 'SEARCH_BLOCK_NOT_FOUND'],
  ]
  for (const [patch, code] of cases) {
    const r = sp(['apply', '--root', s.root], { input: patch, state: s.state })
    assert.equal(r.code, 1, patch)
    assert.equal(r.stdout, '')
    assert.ok(r.stderr.startsWith(`${code}: `), `${code}: ${r.stderr}`)
    const j = sp(['apply', '--root', s.root, '--json'], { input: patch, state: s.state })
    assert.equal(j.code, 1)
    assert.equal(JSON.parse(j.stdout).code, code)
    assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
    assert.equal(s.text('b.txt'), 'x\nx\n')
  }
  // The journal directory may exist (it is opened before anything is written) but holds no entry.
  const base = join(s.state, 'surepatch', 'journal')
  for (const j of existsSync(base) ? readdirSync(base) : []) assert.deepEqual(readdirSync(join(base, j)), [], 'a refused patch journals nothing')
})

test('apply_patch binary: heredoc on stdin, or the patch as its argument; same exit codes', async (t) => {
  const s = setup(t)
  const r = run(APPLY_PATCH, [], { input: `<<'EOF'\n${ENVELOPE}EOF\n`, cwd: s.root, state: s.state })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /^update a\.txt \+1 -1\nedit_id \S+/)
  assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n')
  const arg = run(APPLY_PATCH, ['*** Begin Patch\n*** Update File: a.txt\n@@\n-TWO\n+2\n*** End Patch\n'], { cwd: s.root, state: s.state })
  assert.equal(arg.code, 0, arg.stderr)
  assert.equal(s.text('a.txt'), 'one\n2\nthree\n')
  // A unified diff is not an apply_patch envelope: refused, nothing written.
  const bad = run(APPLY_PATCH, [], { input: UNIFIED, cwd: s.root, state: s.state })
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^PARSE_ERROR: /)
  assert.equal(s.text('a.txt'), 'one\n2\nthree\n')
  const usage = run(APPLY_PATCH, ['--bogus'], { cwd: s.root, state: s.state })
  assert.equal(usage.code, 2)
  assert.equal(usage.stderr, "apply_patch: Unknown option '--bogus' (see apply_patch --help)\n")
})

test('undo from a later process, with the journal outside the workspace; STALE_FILE and EDIT_NOT_FOUND refused', async (t) => {
  const s = setup(t)
  const applied = sp(['apply', '--root', s.root], { input: ENVELOPE, state: s.state })
  assert.equal(applied.code, 0, applied.stderr)
  const id = /edit_id (\S+)/.exec(applied.stdout)[1]
  // The journal is under $XDG_STATE_HOME/surepatch/journal/<root>-<hash>/, not in the workspace.
  const journals = readdirSync(join(s.state, 'surepatch', 'journal'))
  assert.equal(journals.length, 1)
  assert.ok(existsSync(join(s.state, 'surepatch', 'journal', journals[0], id, 'entry.json')))
  assert.deepEqual(readdirSync(s.root), ['a.txt'])

  // Changed since: refused, nothing written.
  writeFileSync(join(s.root, 'a.txt'), 'one\nTWO\nthree\nmore\n')
  const stale = sp(['undo', id, '--root', s.root], { state: s.state })
  assert.equal(stale.code, 1)
  assert.match(stale.stderr, /^STALE_FILE: /)
  assert.equal(s.text('a.txt'), 'one\nTWO\nthree\nmore\n')
  writeFileSync(join(s.root, 'a.txt'), 'one\nTWO\nthree\n')

  const undone = sp(['undo', id, '--root', s.root], { state: s.state })
  assert.equal(undone.code, 0, undone.stderr)
  assert.match(undone.stdout, /^undid \S+:\na\.txt: restored, file_hash [0-9a-f]{16}\n$/)
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
  const again = sp(['undo', id, '--root', s.root, '--json'], { state: s.state })
  assert.equal(again.code, 1)
  assert.equal(JSON.parse(again.stdout).code, 'EDIT_NOT_FOUND')

  // --journal-dir: another place, found only there.
  const dir = tempDir(t, 'surepatch-journal-')
  const a2 = sp(['apply', '--root', s.root, '--journal-dir', dir], { input: ENVELOPE, state: s.state })
  const id2 = /edit_id (\S+)/.exec(a2.stdout)[1]
  assert.equal(sp(['undo', id2, '--root', s.root], { state: s.state }).code, 1)
  assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n')
  assert.equal(sp(['undo', id2, '--root', s.root, '--journal-dir', dir], { state: s.state }).code, 0)
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
})

test('view: plain, --hashline, --range; a missing file exits 1 with its code', async (t) => {
  const s = setup(t)
  assert.deepEqual(sp(['view', 'a.txt', '--root', s.root]), { code: 0, stdout: 'one\ntwo\nthree\n', stderr: '' })
  const h = sp(['view', 'a.txt', '--root', s.root, '--hashline', '--range', '2:3'])
  assert.equal(h.code, 0)
  assert.match(h.stdout, /^2:[0-9a-z]+\|two\n3:[0-9a-z]+\|three\n$/)
  assert.equal(sp(['view', 'a.txt', '--root', s.root, '--range', '2']).stdout, 'two\n')
  assert.equal(sp(['view', 'a.txt', '--root', s.root, '--range', '2:']).stdout, 'two\nthree\n')
  const missing = sp(['view', 'nope.txt', '--root', s.root])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^FILE_NOT_FOUND: /)
  const outside = sp(['view', '../x', '--root', s.root, '--json'])
  assert.equal(outside.code, 1)
  assert.equal(JSON.parse(outside.stdout).code, 'PATH_OUTSIDE_WORKSPACE')
})

test('usage errors exit 2 with one line, in every mode (the server included), and write nothing', async (t) => {
  const s = setup(t)
  const cases = [
    [[], '--bogus', "surepatch: Unknown option '--bogus' (see surepatch --help)\n"],
    [['--root', s.root, '--root', s.root], null, /^surepatch: --root is given twice/],
    [['--validate', 'loose'], null, /^surepatch: --validate .* must be one of off, report, enforce; got "loose"/],
    [['--http', 'nope'], null, /^surepatch: --http takes \[HOST:\]PORT/],
    [['--http', '70000'], null, /^surepatch: --http takes/],
    [['--root', join(s.root, 'a.txt')], null, /^surepatch: workspace root .* is not a directory/],
    [['mcp', 'extra'], null, /^surepatch: unexpected argument "extra"/],
    [['frobnicate'], null, /^surepatch: unknown command "frobnicate"/],
    [['apply', '--format', 'git'], null, /^surepatch apply: --format must be one of auto, apply_patch, unified, blocks; got "git"/],
    [['apply', '--dry-run', '--dry-run'], null, /^surepatch apply: --dry-run is given twice/],
    [['apply', '--root'], null, /^surepatch apply: Option '--root <value>' argument missing/],
    [['apply', join(s.root, 'no-such.patch')], null, /^surepatch apply: cannot read the patch file .*ENOENT/],
    [['apply', '--format', 'apply_patch', '--file-path', 'a.txt'], null, /^surepatch apply: --file-path is for --format unified or blocks/],
    [['view'], null, /^surepatch view: view needs FILE/],
    [['view', 'a.txt', '--range', '3:1'], null, /^surepatch view: --range takes A:B/],
    [['view', 'a.txt', 'b.txt'], null, /^surepatch view: too many arguments: "b.txt"/],
    [['undo'], null, /^surepatch undo: undo needs EDIT_ID/],
    [['undo', 'x', '--hashline'], null, /^surepatch undo: Unknown option '--hashline'/],
  ]
  for (const [args, extra, expected] of cases) {
    const argv = extra ? [...args, extra] : args
    const r = sp(argv, { input: ENVELOPE, cwd: s.root, state: s.state })
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`)
    assert.equal(r.stdout, '', argv.join(' '))
    assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`)
    if (typeof expected === 'string') assert.equal(r.stderr, expected)
    else assert.match(r.stderr, expected)
  }
  const short = sp(['--http', '0'], { env: { SUREPATCH_HTTP_TOKEN: 'short' }, state: s.state })
  assert.equal(short.code, 2)
  assert.equal(short.stderr, 'surepatch: SUREPATCH_HTTP_TOKEN must be at least 16 characters (see surepatch --help)\n')
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
})

test('-h/--help and --version in each command', async () => {
  for (const cmd of [[], ['mcp'], ['apply'], ['view'], ['undo'], ['log']]) {
    const h = sp([...cmd, '-h'])
    assert.equal(h.code, 0)
    assert.match(h.stdout, /^Usage: surepatch /)
    assert.equal(sp([...cmd, '--help']).stdout, h.stdout)
    assert.deepEqual(sp([...cmd, '--version']), { code: 0, stdout: `${pkg.version}\n`, stderr: '' })
  }
  assert.match(sp(['--help']).stdout, /--http \[HOST:\]PORT/)
  assert.match(sp(['apply', '--help']).stdout, /--format FORMAT/)
})

// Issue #27 §7: the command line and the package.
const ADD_A = '*** Begin Patch\n*** Add File: a.txt\n+fresh\n*** End Patch\n'

test('apply --overwrite: an Add File of an existing file replaces it; without it FILE_EXISTS, exit 1, bytes unchanged', { timeout: 60_000 }, async (t) => {
  const s = setup(t)
  const refused = sp(['apply', '--root', s.root], { input: ADD_A, state: s.state })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^FILE_EXISTS: /)
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
  const r = sp(['apply', '--root', s.root, '--overwrite'], { input: ADD_A, state: s.state })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /^add a\.txt \+1 -3\nedit_id /)
  assert.equal(s.text('a.txt'), 'fresh\n')
  // apply_patch takes it too.
  const s2 = setup(t)
  const a = run(APPLY_PATCH, ['--overwrite'], { input: ADD_A, cwd: s2.root, state: s2.state })
  assert.equal(a.code, 0, a.stderr)
  assert.equal(s2.text('a.txt'), 'fresh\n')
})

test('surepatch help [COMMAND]; apply_patch --help describes apply_patch', { timeout: 60_000 }, async () => {
  const h = sp(['help'])
  assert.equal(h.code, 0)
  assert.equal(h.stdout, sp(['--help']).stdout)
  assert.match(h.stdout, /surepatch log /)
  assert.match(h.stdout, /surepatch help \[COMMAND\]/)
  for (const c of ['apply', 'view', 'undo', 'log', 'mcp']) {
    const r = sp(['help', c])
    assert.equal(r.code, 0, c)
    assert.equal(r.stdout, sp([c, '--help']).stdout, c)
  }
  const bad = sp(['help', 'nope'])
  assert.equal(bad.code, 2)
  assert.equal(bad.stdout, '')
  assert.match(bad.stderr, /^surepatch help: no command "nope"; the commands are mcp, apply, merge, view, undo, checkpoint, log, help/)
  const ap = run(APPLY_PATCH, ['--help'])
  assert.equal(ap.code, 0)
  assert.match(ap.stdout, /^Usage: apply_patch \[options\] \[FILE \| PATCH\]\n/)
  assert.match(ap.stdout, /\*\*\* Begin Patch/)
  assert.match(ap.stdout, /--overwrite/)
  assert.doesNotMatch(ap.stdout, /surepatch apply \[options\]|--file-path/)
})

test('surepatch log lists the edits undo accepts, newest first; undo takes a listed id', { timeout: 60_000 }, async (t) => {
  const s = setup(t, { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' })
  const empty = sp(['log', '--root', s.root], { state: s.state })
  assert.deepEqual(empty, { code: 0, stdout: 'no edits to undo in this root.\n', stderr: '' })
  const first = sp(['apply', '--root', s.root], { input: ENVELOPE, state: s.state })
  assert.equal(first.code, 0, first.stderr)
  await new Promise((r) => setTimeout(r, 20))
  const both = '*** Begin Patch\n*** Update File: a.txt\n@@\n-TWO\n+2\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n'
  const second = sp(['apply', '--root', s.root], { input: both, state: s.state })
  assert.equal(second.code, 0, second.stderr)
  const id1 = /edit_id (\S+)/.exec(first.stdout)[1]
  const id2 = /edit_id (\S+)/.exec(second.stdout)[1]
  const log = sp(['log', '--root', s.root], { state: s.state })
  assert.equal(log.code, 0, log.stderr)
  const lines = log.stdout.trimEnd().split('\n')
  assert.equal(lines.length, 2)
  assert.match(lines[0], new RegExp(`^${id2}  \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z  a\\.txt, b\\.txt$`))
  assert.match(lines[1], new RegExp(`^${id1}  \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z  a\\.txt$`))
  const json = JSON.parse(sp(['log', '--root', s.root, '--json', '--limit', '1'], { state: s.state }).stdout)
  assert.deepEqual(Object.keys(json), ['ok', 'edits', 'checkpoints'])
  assert.equal(json.edits.length, 1)
  assert.equal(json.edits[0].edit_id, id2)
  assert.deepEqual(json.edits[0].files, ['a.txt', 'b.txt'])
  assert.ok(!Number.isNaN(Date.parse(json.edits[0].time)))
  // The listed id is what undo takes; once undone it leaves the list.
  const u = sp(['undo', id2, '--root', s.root], { state: s.state })
  assert.equal(u.code, 0, u.stderr)
  assert.equal(s.text('b.txt'), 'b\n')
  assert.match(sp(['log', '--root', s.root], { state: s.state }).stdout, new RegExp(`^${id1}  \\S+  a\\.txt\\n$`))
  const bad = sp(['log', '--root', s.root, '--limit', '0'], { state: s.state })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^surepatch log: --limit must be a whole number from 1 to 200; got "0"/)
})

test('undo PATH reverts the newest edit of that file, then the one before', { timeout: 60_000 }, async (t) => {
  const s = setup(t)
  assert.equal(sp(['apply', '--root', s.root], { input: ENVELOPE, state: s.state }).code, 0)
  const second = '*** Begin Patch\n*** Update File: a.txt\n@@\n-TWO\n+2\n*** End Patch\n'
  assert.equal(sp(['apply', '--root', s.root], { input: second, state: s.state }).code, 0)
  const u1 = sp(['undo', 'a.txt', '--root', s.root], { state: s.state })
  assert.equal(u1.code, 0, u1.stderr)
  assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n')
  assert.equal(sp(['undo', 'a.txt', '--root', s.root], { state: s.state }).code, 0)
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
  const none = sp(['undo', 'a.txt', '--root', s.root], { state: s.state })
  assert.equal(none.code, 1)
  assert.match(none.stderr, /^EDIT_NOT_FOUND: /)
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
  assert.match(sp(['undo', '--help']).stdout, /^Usage: surepatch undo EDIT_ID\|PATH /)
})

test('view --numbered prefixes line numbers; with --hashline it is a usage error', { timeout: 60_000 }, async (t) => {
  const s = setup(t)
  const r = sp(['view', 'a.txt', '--root', s.root, '--numbered', '--range', '2:3'])
  assert.deepEqual(r, { code: 0, stdout: '     2\ttwo\n     3\tthree\n', stderr: '' })
  const both = sp(['view', 'a.txt', '--root', s.root, '--numbered', '--hashline'])
  assert.equal(both.code, 2)
  assert.match(both.stderr, /^surepatch view: --numbered and --hashline are two line prefixes; give one/)
})

test('apply_patch --format unified reads a unified diff (the flag is not "given twice")', { timeout: 60_000 }, async (t) => {
  const s = setup(t)
  const r = run(APPLY_PATCH, ['--format', 'unified'], { input: UNIFIED, cwd: s.root, state: s.state })
  assert.equal(r.code, 0, r.stderr)
  assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n')
  const twice = run(APPLY_PATCH, ['--format', 'unified', '--format', 'blocks'], { input: UNIFIED, cwd: s.root, state: s.state })
  assert.equal(twice.code, 2)
  assert.match(twice.stderr, /^apply_patch: --format is given twice \(--format unified and --format blocks\)/)
})

test('an empty patch says "empty": PARSE_ERROR, exit 1, nothing written', { timeout: 60_000 }, async (t) => {
  const s = setup(t)
  for (const [bin, args, input, re] of [
    [BIN, ['apply', '--root', s.root], '', /^PARSE_ERROR: the patch on stdin is empty; nothing was written/],
    [BIN, ['apply', '--root', s.root], ' \n\n', /^PARSE_ERROR: the patch on stdin is empty \(only white space\); nothing was written/],
    [APPLY_PATCH, ['--root', s.root], '', /^PARSE_ERROR: the patch on stdin is empty; nothing was written/],
    [APPLY_PATCH, ['--root', s.root, '\n'], '', /^PARSE_ERROR: the patch given as the argument is empty/],
  ]) {
    const r = run(bin, args, { input, state: s.state })
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, re)
    assert.equal(r.stdout, '')
  }
  const file = join(s.state, 'empty.patch')
  writeFileSync(file, '')
  const f = sp(['apply', '--root', s.root, file, '--json'], { state: s.state })
  assert.equal(f.code, 1)
  const j = JSON.parse(f.stdout)
  assert.equal(j.code, 'PARSE_ERROR')
  assert.match(j.message, /the patch in .*empty\.patch is empty/)
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
})

test('a missing native binary: the error names the platform package and the platform, exit 1', { timeout: 60_000 }, async (t) => {
  // A copy of the package without the .node file (nor a platform package to find).
  const pkgDir = tempDir(t, 'surepatch-nobinary-')
  for (const f of ['index.js', 'binding.js', 'record.cjs', 'package.json']) cpSync(join(REPO, f), join(pkgDir, f))
  for (const d of ['bin', 'cli', 'mcp']) cpSync(join(REPO, d), join(pkgDir, d), { recursive: true })
  const s = setup(t)
  const target = process.platform === 'linux' ? `linux-${process.arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}` : process.platform === 'win32' ? `win32-${process.arch}-msvc` : `${process.platform}-${process.arch}`
  const want = new RegExp(`the native binary for this platform \\(${target}: ${process.platform} ${process.arch}, .*the package surepatch-${target}\\.`)
  for (const [bin, args, input] of [
    [join(pkgDir, 'bin', 'surepatch.mjs'), ['view', 'a.txt', '--root', s.root], ''],
    [join(pkgDir, 'bin', 'apply_patch.mjs'), ['--root', s.root], ENVELOPE],
  ]) {
    const r = run(bin, args, { input, state: s.state })
    assert.equal(r.code, 1, r.stderr)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, want)
    assert.doesNotMatch(r.stderr, /npm has a bug|\n\s+at /)
    assert.equal(r.stderr.trimEnd().split('\n').length, 1)
  }
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
  // The library itself throws the same error, with a code to test for.
  const lib = spawnSync(process.execPath, ['-e', `try { require(${JSON.stringify(join(pkgDir, 'index.js'))}) } catch (e) { console.log(e.code) }`], { encoding: 'utf8', timeout: 30_000 })
  assert.equal(lib.stdout, 'SUREPATCH_NATIVE_BINARY_MISSING\n')
})

// `npm start` builds the addon first, so it needs cargo (the release workflow's test jobs, Alpine
// included, test a prebuilt addon without one). On Windows npm is npm.cmd, which only a shell runs.
const noCargo = spawnSync('cargo', ['--version']).status !== 0 && `${process.platform}: npm start builds the addon and no cargo is on PATH here`
test('npm start writes nothing but protocol on stdout', { timeout: 180_000, skip: noCargo }, async () => {
  const child = spawn('npm', ['start'], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'], shell: process.platform === 'win32' })
  let stdout = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } }) + '\n')
  const answered = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 170_000)
    child.stdout.on('data', () => {
      if (stdout.includes('\n')) {
        clearTimeout(timer)
        resolve(true)
      }
    })
  })
  child.stdin.end()
  await new Promise((r) => child.on('close', r))
  assert.ok(answered, 'no answer from npm start')
  const lines = stdout.split('\n').filter(Boolean)
  assert.ok(lines.length >= 1)
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', `not protocol: ${line}`)
})
