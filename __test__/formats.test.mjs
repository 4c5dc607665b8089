import test from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const { applyPatch, applyBlocks, applyUnifiedDiff, parseBlocks, parsePathBlocks, ErrorCode } = sp

const P = (...lines) => `*** Begin Patch\n${lines.map((l) => l + '\n').join('')}*** End Patch\n`
const B = (search, replace) => `<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`

// Every file under the workspace (recursively) with its bytes in hex.
function snapshot(root, dir = root, out = {}) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) snapshot(root, p, out)
    else out[p.slice(root.length + 1)] = readFileSync(p).toString('hex')
  }
  return out
}

// Runs `fn`, asserts the failure code (and details), and that no file changed.
async function refused(w, fn, code, details = {}) {
  const before = snapshot(w.root)
  const r = await fn()
  assert.equal(r.ok, false, JSON.stringify(r))
  assert.equal(r.code, code, r.message)
  for (const [k, v] of Object.entries(details)) assert.deepEqual(r[k], v, k)
  const after = snapshot(w.root)
  assert.deepEqual(after, before, 'nothing written')
  return r
}

test('applyPatch: update, add, delete and move in one transaction, with a full receipt', async (t) => {
  const w = workspace(t)
  w.write('a.py', 'def f():\r\n    return 1\r\n')
  w.write('gone.txt', 'bye\n')
  w.write('old.txt', 'moving\n')
  const r = await applyPatch(
    P(
      '*** Update File: a.py',
      '@@ def f():',
      '-    return 1',
      '+    return 2',
      '*** Add File: new.txt',
      '+hello',
      '*** Delete File: gone.txt',
      '*** Update File: old.txt',
      '*** Move to: moved.txt',
    ),
    w.opts(),
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.written, true)
  assert.deepEqual(r.files.map((f) => [f.file_path, f.op]), [['a.py', 'update'], ['new.txt', 'add'], ['gone.txt', 'delete'], ['old.txt', 'move']])
  const a = r.files[0]
  assert.deepEqual(Object.keys(a), ['file_path', 'op', 'hunks_applied', 'matches', 'diff', 'before_bytes', 'after_bytes', 'file_hash'])
  assert.deepEqual(a.matches, [{ hunk_index: 0, start_line: 2, end_line: 2, tier: 'line_endings' }])
  assert.equal(a.hunks_applied, 1)
  assert.match(a.diff, /-    return 1\r?\n\+    return 2/)
  assert.match(a.file_hash, /^[0-9a-f]{16}$/)
  assert.equal(r.files[2].file_hash, null)
  assert.equal(r.files[3].moved_to, 'moved.txt')
  assert.equal(w.text('a.py'), 'def f():\r\n    return 2\r\n', 'CRLF kept')
  assert.equal(w.text('new.txt'), 'hello\n')
  assert.equal(w.text('moved.txt'), 'moving\n')
  assert.deepEqual(w.files(), ['a.py', 'moved.txt', 'new.txt'])
})

test('applyPatch: dry run writes nothing but returns the receipt', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'x\n')
  const r = await applyPatch(P('*** Update File: a.txt', '-x', '+y'), w.opts({ dryRun: true }))
  assert.equal(r.ok, true)
  assert.equal(r.written, false)
  assert.equal(r.files[0].after_bytes, 2)
  assert.equal(w.text('a.txt'), 'x\n')
})

test('applyPatch: every error class refuses with its code and writes nothing', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'one\ntwo\none\ntwo\n')
  w.write('b.txt', 'b\n')
  mkdirSync(w.path('dir'))
  w.write('dir/x.txt', 'x\n')
  const run = (patch, opts = {}) => () => applyPatch(patch, w.opts(opts))
  await refused(w, run('*** Begin Patch\n*** Update File: a.txt\n'), ErrorCode.PARSE_ERROR, { line: 2 })
  await refused(w, run(P('*** Add File: b.txt', '+x')), ErrorCode.FILE_EXISTS, { op_index: 0, file_path: 'b.txt' })
  await refused(w, run(P('*** Delete File: nope.txt')), ErrorCode.FILE_NOT_FOUND, { op_index: 0 })
  await refused(w, run(P('*** Delete File: dir')), ErrorCode.TARGET_IS_DIRECTORY, { op_index: 0 })
  await refused(w, run(P('*** Update File: a.txt', '*** Move to: b.txt')), ErrorCode.FILE_EXISTS, { moved_to: 'b.txt' })
  await refused(w, run(P('*** Update File: a.txt', ' one', '-two', '+2')), ErrorCode.SEARCH_BLOCK_AMBIGUOUS, { match_lines: [1, 3], hunk_index: 0, hunk_line: 3 })
  const nf = await refused(w, run(P('*** Update File: b.txt', '-c', '+d')), ErrorCode.SEARCH_BLOCK_NOT_FOUND, { op_index: 0, hunk_index: 0 })
  assert.ok(Array.isArray(nf.candidates))
  // A scope that names no line is ignored; the content still has to match.
  await refused(w, run(P('*** Update File: b.txt', '@@ nowhere', '-zz', '+c')), ErrorCode.SEARCH_BLOCK_NOT_FOUND, { hunk_index: 0 })
  await refused(w, run(P('*** Update File: b.txt', '-b', '+b')), ErrorCode.NO_CHANGES)
  await refused(w, run(P('*** Add File: ../out.txt', '+x')), ErrorCode.PATH_OUTSIDE_WORKSPACE)
  await refused(w, run(P('*** Update File: b.txt', '-b', '+c'), { baseHashes: { 'b.txt': 'ffffffffffffffff' } }), ErrorCode.STALE_FILE)
  await refused(w, run(P('*** Update File: b.txt', '-b', '+c'), { bogus: 1 }), ErrorCode.INVALID_INPUT)
  await refused(w, () => applyPatch(42, w.opts()), ErrorCode.INVALID_INPUT)
  // The first operation is fine, the second fails: nothing is written.
  await refused(w, run(P('*** Update File: b.txt', '-b', '+B', '*** Update File: a.txt', '-zzz', '+y')), ErrorCode.SEARCH_BLOCK_NOT_FOUND, { op_index: 1, file_path: 'a.txt' })
  // Hunks out of order.
  await refused(w, run(P('*** Update File: a.txt', '@@', ' one', ' two', '-one', '+1', '@@', '-one', '+ONE', ' two', ' one')), ErrorCode.OVERLAPPING_EDITS)
})

test('applyBlocks: paths from the text, or file_path; errors', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\nbeta\n')
  w.write('b.txt', '\ufeffone\r\n')
  const r = await applyBlocks(`a.txt\n${B('beta\n', 'BETA\n')}\nb.txt\n${B('one\n', 'uno\n')}\nc/new.txt\n${B('', 'created\n')}`, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.files.map((f) => [f.file_path, f.op, f.edits_applied]), [['a.txt', 'update', 1], ['b.txt', 'update', 1], ['c/new.txt', 'add', 0]])
  assert.equal(r.files[0].matches[0].edit_index, 0)
  assert.equal(w.text('a.txt'), 'alpha\nBETA\n')
  assert.deepEqual([...w.read('b.txt')], [...Buffer.from('\ufeffuno\r\n')], 'BOM and CRLF kept')
  assert.equal(w.text('c/new.txt'), 'created\n')

  const one = await applyBlocks(`prose\n${B('alpha\n', 'ALPHA\n')}`, w.opts({ filePath: 'a.txt' }))
  assert.equal(one.ok, true, JSON.stringify(one))
  assert.equal(w.text('a.txt'), 'ALPHA\nBETA\n')

  const run = (text, opts = {}) => () => applyBlocks(text, w.opts(opts))
  await refused(w, run('no blocks here\n'), ErrorCode.PARSE_ERROR, { line: 1 })
  await refused(w, run(B('x\n', 'y\n')), ErrorCode.PARSE_ERROR, { line: 1 })
  await refused(w, run(`a.txt\n${B('nothing\n', 'y\n')}`), ErrorCode.SEARCH_BLOCK_NOT_FOUND, { op_index: 0, edit_index: 0 })
  await refused(w, run(`a.txt\n${B('A\n', 'x\n')}`), ErrorCode.SEARCH_BLOCK_AMBIGUOUS, { match_count: 2 })
  await refused(w, run(`a.txt\n${B('ALPHA\nBETA\n', 'x\n')}${B('BETA\n', 'y\n')}`), ErrorCode.OVERLAPPING_EDITS)
  await refused(w, run(`missing.txt\n${B('x\n', 'y\n')}`), ErrorCode.FILE_NOT_FOUND)
  await refused(w, run(`a.txt\n${B('', 'y\n')}`), ErrorCode.FILE_EXISTS)
  await refused(w, run(`a.txt\n${B('BETA\n', 'BETA\n')}`), ErrorCode.NO_CHANGES)
  await refused(w, run(`a.txt\n${B('BETA\n', 'b\n')}\nb.txt\n${B('zzz\n', 'y\n')}`), ErrorCode.SEARCH_BLOCK_NOT_FOUND, { op_index: 1, file_path: 'b.txt' })
})

test('applyUnifiedDiff: git diff with rename and new file; errors', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'x\ny\nz\n')
  w.write('r.txt', 'r\n')
  const diff =
    'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -10,3 +10,3 @@\n x\n-y\n+Y\n z\n' +
    'diff --git a/r.txt b/s.txt\nsimilarity index 100%\nrename from r.txt\nrename to s.txt\n' +
    'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n'
  const r = await applyUnifiedDiff(diff, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.files.map((f) => f.op), ['update', 'move', 'add'])
  assert.equal(r.files[0].matches[0].start_line, 1, 'the line number was only a hint')
  assert.equal(w.text('a.txt'), 'x\nY\nz\n')
  assert.equal(w.text('s.txt'), 'r\n')
  assert.equal(w.text('n.txt'), 'new\n')
  assert.deepEqual(w.files(), ['a.txt', 'n.txt', 's.txt'])

  w.write('d.txt', 'k\nv\nk\nv\n')
  const run = (text) => () => applyUnifiedDiff(text, w.opts())
  await refused(w, run('not a diff\n'), ErrorCode.PARSE_ERROR, { line: 1 })
  await refused(w, run('--- a/d.txt\n+++ b/d.txt\n@@ -3,2 +3,2 @@\n k\n-v\n+V\n'), ErrorCode.SEARCH_BLOCK_AMBIGUOUS, { line_hint: 3, match_lines: [1, 3] })
  await refused(w, run('--- a/d.txt\n+++ b/d.txt\n@@ -1,2 +1,2 @@\n q\n-v\n+V\n'), ErrorCode.SEARCH_BLOCK_NOT_FOUND, { hunk_line: 3 })
  await refused(w, run('--- /dev/null\n+++ b/d.txt\n@@ -0,0 +1 @@\n+x\n'), ErrorCode.FILE_EXISTS)
  await refused(w, run('--- a/none.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n'), ErrorCode.FILE_NOT_FOUND)
  await refused(w, run('--- a/d.txt\n+++ b/d.txt\n@@ -2,0 +3 @@\n+x\n'), ErrorCode.INVALID_INPUT)
  await refused(w, run('diff --git a/d.txt b/d.txt\nold mode 100644\nnew mode 100755\n'), ErrorCode.NO_CHANGES)
})

test('parseBlocks and parsePathBlocks are synchronous and pure', () => {
  const text = `a.py\n${B('x\n', 'y\n')}\nb.py\n${B('p\n', '')}`
  assert.deepEqual(parseBlocks(text), { ok: true, edits: [{ old: 'x\n', new: 'y\n' }, { old: 'p\n', new: '' }] })
  assert.deepEqual(parsePathBlocks(text), { ok: true, files: { 'a.py': [{ old: 'x\n', new: 'y\n' }], 'b.py': [{ old: 'p\n', new: '' }] } })
  const bad = parseBlocks('<<<<<<< SEARCH\nx\n')
  assert.equal(bad.ok, false)
  assert.equal(bad.code, ErrorCode.PARSE_ERROR)
  assert.equal(bad.line, 1)
  const noPath = parsePathBlocks(B('x\n', 'y\n'))
  assert.equal(noPath.code, ErrorCode.PARSE_ERROR)
  assert.equal(noPath.line, 1)
  assert.equal(parseBlocks(7).code, ErrorCode.INVALID_INPUT)
  assert.equal(parsePathBlocks('\ud800').code, ErrorCode.INVALID_INPUT, 'lone surrogate refused')
})
