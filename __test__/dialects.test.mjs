// Dialects: the spellings models really write are read, every liberty is listed in the receipt's
// `dialect` array and counted by getStats, and an edit still lands only where its content matches
// exactly one place. Each refusal leaves every byte on disk as it was.
import test from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const { applyPatch, applyBlocks, applyUnifiedDiff, patchFile, applyEdits, getStats, ErrorCode } = sp

function snapshot(root, dir = root, out = {}) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) snapshot(root, p, out)
    else out[p.slice(root.length + 1)] = readFileSync(p).toString('hex')
  }
  return out
}

async function refused(w, fn, code) {
  const before = snapshot(w.root)
  const r = await fn()
  assert.equal(r.ok, false, JSON.stringify(r))
  assert.equal(r.code, code, r.message)
  assert.deepEqual(snapshot(w.root), before, 'nothing written')
  return r
}

const PY = 'class A:\n    def __init__(self):\n        self.x = 1\n\nclass B:\n    def __init__(self):\n        self.y = 2\n'

test('apply_patch: prose, repeated and self scopes, unified headers, no End Patch, unprefixed context', async (t) => {
  const w = workspace(t)
  const cases = [
    [['@@ fix the y default', '-        self.y = 2', '+        self.y = 3'], ['anchor_ignored']],
    [['@@ def __init__(self):', '-        self.y = 2', '+        self.y = 3'], ['anchor_repeated']],
    [['@@ class B:', '-class B:', '+class B(A):'], []],
    [['@@ -7,1 +7,1 @@', '-        self.y = 2', '+        self.y = 3'], ['unified_header']],
    [['@@', 'class B:', '    def __init__(self):', '-        self.y = 2', '+        self.y = 3'], ['context_prefix_missing']],
  ]
  for (const [body, dialect] of cases) {
    w.write('m.py', PY)
    const patch = `*** Begin Patch\n*** Update File: m.py\n${body.join('\n')}\n*** End Patch\n`
    const r = await applyPatch(patch, w.opts())
    assert.equal(r.ok, true, `${body[0]}: ${JSON.stringify(r)}`)
    assert.deepEqual(r.dialect, dialect, body[0])
  }
  w.write('m.py', PY)
  const r = await applyPatch('*** Begin Patch\n*** Update File: `m.py`\n@@\n-        self.y = 2\n+        self.y = 3\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dialect, ['no_end_marker', 'path_decorated'])
  assert.equal(w.text('m.py'), PY.replace('self.y = 2', 'self.y = 3'))
  // No `*** Begin Patch`: the text starts with the operation.
  w.write('m.py', PY)
  const nb = await applyPatch('*** Update File: m.py\n@@\n-        self.y = 2\n+        self.y = 3\n*** End Patch\n', w.opts())
  assert.equal(nb.ok, true, JSON.stringify(nb))
  assert.deepEqual(nb.dialect, ['no_begin_marker'])
  assert.equal(w.text('m.py'), PY.replace('self.y = 2', 'self.y = 3'))
})

test('apply_patch: a scope never picks between two equal bodies it does not tell apart', async (t) => {
  const w = workspace(t)
  w.write('m.py', 'class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n')
  for (const scope of ['@@ def f(self):', '@@ return one', '@@']) {
    const r = await refused(w, () => applyPatch(`*** Begin Patch\n*** Update File: m.py\n${scope}\n-        return 1\n+        return 2\n*** End Patch\n`, w.opts()), ErrorCode.SEARCH_BLOCK_AMBIGUOUS)
    assert.deepEqual(r.match_lines, [3, 7], scope)
  }
  // A stacked scope that does tell them apart lands on B's.
  const r = await applyPatch('*** Begin Patch\n*** Update File: m.py\n@@ class B:\n@@ def f(self):\n-        return 1\n+        return 2\n*** End Patch\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.files[0].matches[0].start_line, 7)
  // The same chunk twice in one file overlaps (no panic, nothing written).
  w.write('n.txt', 'a\nb\nc\n')
  await refused(w, () => applyPatch('*** Begin Patch\n*** Update File: n.txt\n@@\n-b\n+B\n@@\n-b\n+B\n*** End Patch\n', w.opts()), ErrorCode.OVERLAPPING_EDITS)
})

test('escaped text: a whole patch, or an old, sent with literal \\n is unescaped once', async (t) => {
  const w = workspace(t)
  w.write('a.js', 'const a = 1\nconst b = 2\n')
  const escaped = '*** Begin Patch\\n*** Update File: a.js\\n@@\\n const a = 1\\n-const b = 2\\n+const b = 3\\n*** End Patch'
  const r = await applyPatch(escaped, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dialect, ['unescaped'])
  assert.equal(w.text('a.js'), 'const a = 1\nconst b = 3\n')
  const p = await patchFile({ file_path: 'a.js', search_block: 'const a = 1\\nconst b = 3', replace_block: 'const a = 10\\nconst b = 3' }, w.opts())
  assert.equal(p.ok, true, JSON.stringify(p))
  assert.deepEqual(p.dialect, ['unescaped'])
  assert.equal(w.text('a.js'), 'const a = 10\nconst b = 3\n')
  // A literal \n in the file is matched as written, before any unescaping.
  w.write('s.js', 'const s = "x\\ny"\n')
  const q = await applyEdits('s.js', [{ old: '"x\\ny"', new: '"z"' }], w.opts())
  assert.equal(q.ok, true, JSON.stringify(q))
  assert.deepEqual(q.dialect, [])
  assert.equal(w.text('s.js'), 'const s = "z"\n')
})

test('unified diffs: no numbers, wrong counts, odd names, no headers with file_path', async (t) => {
  const w = workspace(t)
  mkdirSync(w.path('src'))
  const file = 'one\ntwo\nthree\nfour\n'
  const hunk = '@@ -9,7 +9,9 @@\n one\n-two\n+TWO\n three\n'
  for (const [head, opts, dialect] of [
    ['--- a/src/x.txt\n+++ b/src/x.txt\n', {}, ['hunk_counts']],
    ['---a/src/x.txt\n+++b/src/x.txt\n', {}, ['header_variant', 'hunk_counts']],
    ['--- src/x.txt.orig\n+++ src/x.txt\n', {}, ['hunk_counts']],
    ['--- a/x.txt.orig\n+++ b/x.txt\n', { file_path: 'src/x.txt' }, ['hunk_counts', 'path_fallback']],
    ['--- x.txt (original)\n+++ x.txt (modified)\n', { file_path: 'src/x.txt' }, ['hunk_counts', 'path_fallback']],
    ['--- old/src/x.txt\n+++ new/src/x.txt\n', {}, ['header_variant', 'hunk_counts']],
    ['--- original\n+++ modified\n', { file_path: 'src/x.txt' }, ['hunk_counts', 'path_fallback']],
    ['', { file_path: 'src/x.txt' }, ['hunk_counts', 'path_fallback']],
  ]) {
    w.write('src/x.txt', file)
    const r = await applyUnifiedDiff(head + hunk, w.opts(opts))
    assert.equal(r.ok, true, `${head}: ${JSON.stringify(r)}`)
    assert.deepEqual(r.dialect, dialect, head)
    assert.equal(w.text('src/x.txt'), 'one\nTWO\nthree\nfour\n')
  }
  w.write('src/x.txt', file)
  // Headerless hunks need file_path; names of no file without it are FILE_NOT_FOUND.
  const r = await refused(w, () => applyUnifiedDiff(hunk, w.opts()), ErrorCode.PARSE_ERROR)
  assert.match(r.message, /file_path/)
  await refused(w, () => applyUnifiedDiff('--- original\n+++ modified\n' + hunk, w.opts()), ErrorCode.FILE_NOT_FOUND)
  // Line numbers never choose between two places.
  w.write('src/y.txt', 'k\nv\nk\nv\n')
  await refused(w, () => applyUnifiedDiff('--- a/src/y.txt\n+++ b/src/y.txt\n@@ -3,2 +3,2 @@\n k\n-v\n+V\n', w.opts()), ErrorCode.SEARCH_BLOCK_AMBIGUOUS)
})

test('SEARCH/REPLACE: marker variants, prose between blocks, fence paths, empty SEARCH rules, truncation', async (t) => {
  const w = workspace(t)
  w.write('a.py', 'x = 1\ny = 2\n')
  let r = await applyBlocks('```python:a.py\n<<<< SEARCH>\nx = 1\n====\nx = 10\n>>>> REPLACE\n```\n\nAnd then:\n\n------- SEARCH\ny = 2\n=======\ny = 20\n+++++++ REPLACE\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dialect, ['path_decorated', 'marker_variant'].sort())
  assert.equal(w.text('a.py'), 'x = 10\ny = 20\n')
  // A file with a git conflict stays editable: its divider is inside the conflict region.
  const conflict = '<<<<<<< HEAD\na\n=======\nb\n>>>>>>> feature\n'
  w.write('c.txt', conflict)
  r = await applyBlocks(`c.txt\n<<<<<<< SEARCH\n${conflict}=======\na\n>>>>>>> REPLACE\n`, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(w.text('c.txt'), 'a\n')
  // Empty SEARCH: a missing file is created; an empty or blank file is filled; a non-empty one is refused.
  r = await applyBlocks('new.py\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(w.text('new.py'), 'print(1)\n')
  w.write('blank.py', ' \n\n')
  r = await applyBlocks('blank.py\n<<<<<<< SEARCH\n=======\nprint(2)\n>>>>>>> REPLACE\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(w.text('blank.py'), 'print(2)\n')
  const f = await refused(w, () => applyBlocks('a.py\n<<<<<<< SEARCH\n=======\nz = 3\n>>>>>>> REPLACE\n', w.opts()), ErrorCode.FILE_EXISTS)
  assert.match(f.message, /unique existing line|editLines/)
  // A reply cut off before its last REPLACE marker applies nothing, not even the complete first block.
  const cut = await refused(w, () => applyBlocks('a.py\n<<<<<<< SEARCH\nx = 10\n=======\nx = 11\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ny = 20\n=======\ny = ', w.opts()), ErrorCode.PARSE_ERROR)
  assert.match(cut.message, /block 2 .*cut off/)
})

test('SEARCH/REPLACE: a block that edits what an earlier block wrote applies the blocks in turn', async (t) => {
  const w = workspace(t)
  w.write('e.txt', 'a = 1\nb = 2\nc = 3\n')
  const blocks = 'e.txt\n<<<<<<< SEARCH\nb = 2\n=======\nb = 20\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nb = 20\nc = 3\n=======\nb = 20\nc = 30\n>>>>>>> REPLACE\n'
  const r = await applyBlocks(blocks, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dialect, ['blocks_in_turn'])
  assert.equal(w.text('e.txt'), 'a = 1\nb = 20\nc = 30\n')
  assert.match(r.files[0].diff, /-b = 2\n-c = 3\n\+b = 20\n\+c = 30\n/)
  // Still exactly one place each: a second block whose SEARCH occurs twice by then is refused with
  // the first refusal (not found in the file), and nothing is written.
  w.write('e.txt', 'p\nq\n')
  await refused(w, () => applyBlocks('e.txt\n<<<<<<< SEARCH\np\n=======\nz\nz\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nz\n=======\ny\n>>>>>>> REPLACE\n', w.opts()), ErrorCode.SEARCH_BLOCK_NOT_FOUND)
  assert.equal(w.text('e.txt'), 'p\nq\n')
})

test('getStats counts the liberties taken by successful calls', async (t) => {
  const w = workspace(t)
  getStats({ reset: true })
  w.write('a.txt', 'a\nb\n')
  const r = await applyPatch('*** Begin Patch\n*** Update File: a.txt\n@@ prose\n-b\n+c\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  const s = getStats()
  assert.equal(s.successes_by_dialect.anchor_ignored, 1)
  assert.equal(s.successes_by_dialect.no_end_marker, 1)
})
