// Issue 25, through the real API: applying twice is not applying (ALREADY_APPLIED), no edit path
// writes an elision placeholder over code (ELIDED_CONTENT), and the liberties that are unambiguous
// land: SEARCH/REPLACE markers of any length, applyEdits in turn, an empty old on an empty or
// missing file. Every refusal leaves every byte on disk as it was.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const { patchFile, applyEdits, previewEdits, applyBlocks, applyPatch, applyUnifiedDiff, editLines, viewFile, undoEdit, ErrorCode } = sp
const T = { timeout: 30_000 }

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

const PY = 'import os\n\ndef f(x):\n    a = x + 1\n    return a\n\ndef g():\n    return 2\n'
const AFTER = 'import os\n\ndef f(x):\n    a = x + 1\n    b = a * 2\n    return a\n\ndef g():\n    return 2\n'

test('a retried insertion is ALREADY_APPLIED in every format, never written twice', T, async (t) => {
  const calls = {
    patchFile: (w) => patchFile({ file_path: 'm.py', search_block: '    a = x + 1\n', replace_block: '    a = x + 1\n    b = a * 2\n' }, w.opts()),
    applyEdits: (w) => applyEdits('m.py', [{ old: '    a = x + 1', new: '    a = x + 1\n    b = a * 2' }], w.opts()),
    applyBlocks: (w) => applyBlocks('m.py\n<<<<<<< SEARCH\n    a = x + 1\n=======\n    a = x + 1\n    b = a * 2\n>>>>>>> REPLACE\n', w.opts()),
    applyPatch: (w) => applyPatch('*** Begin Patch\n*** Update File: m.py\n@@ def f(x):\n     a = x + 1\n+    b = a * 2\n*** End Patch\n', w.opts()),
    applyUnifiedDiff: (w) => applyUnifiedDiff('--- a/m.py\n+++ b/m.py\n@@ -4,1 +4,2 @@\n     a = x + 1\n+    b = a * 2\n', w.opts()),
  }
  for (const [name, call] of Object.entries(calls)) {
    const w = workspace(t)
    w.write('m.py', PY)
    const first = await call(w)
    assert.equal(first.ok, true, `${name}: ${JSON.stringify(first)}`)
    assert.equal(w.text('m.py'), AFTER, name)
    const again = await refused(w, () => call(w), ErrorCode.ALREADY_APPLIED)
    assert.deepEqual(again.already_applied, [0], name)
    assert.deepEqual(again.pending, [], name)
    assert.equal(again.next_action, 'reread', name)
    assert.match(again.message, /already applied/, name)
    assert.equal(w.text('m.py'), AFTER, name)
  }
})

test('a partly applied patch is refused whole and says which hunks are pending', T, async (t) => {
  const w = workspace(t)
  w.write('m.py', PY.replace('import os\n', 'import os\nimport sys\n'))
  const patch = '*** Begin Patch\n*** Update File: m.py\n@@\n import os\n+import sys\n@@ def g():\n-    return 2\n+    return 3\n*** End Patch\n'
  const r = await refused(w, () => applyPatch(patch, w.opts()), ErrorCode.ALREADY_APPLIED)
  assert.deepEqual(r.already_applied, [0])
  assert.deepEqual(r.pending, [1])
  assert.equal(r.op_index, 0)
  // A multi-file patch retried after it landed: every operation is there.
  w.write('b.txt', 'three\n')
  const two = '*** Begin Patch\n*** Update File: b.txt\n@@\n-three\n+THREE\n*** Add File: c.txt\n+new\n*** End Patch\n'
  assert.equal((await applyPatch(two, w.opts())).ok, true)
  const again = await refused(w, () => applyPatch(two, w.opts()), ErrorCode.ALREADY_APPLIED)
  assert.deepEqual(again.pending_ops, [])
  w.write('b.txt', 'three\n')
  const half = await refused(w, () => applyPatch(two, w.opts()), ErrorCode.ALREADY_APPLIED)
  assert.equal(half.op_index, 1)
  assert.deepEqual(half.pending_ops, [0])
})

test('a replacement retried is ALREADY_APPLIED; one whose text is nowhere stays SEARCH_BLOCK_NOT_FOUND', T, async (t) => {
  const w = workspace(t)
  w.write('c.py', 'retries = 2\ntimeout = 5\n')
  const edit = () => patchFile({ file_path: 'c.py', search_block: 'retries = 2', replace_block: 'retries = 3' }, w.opts())
  assert.equal((await edit()).ok, true)
  const r = await refused(w, edit, ErrorCode.ALREADY_APPLIED)
  assert.match(r.message, /no longer in the file/)
  w.write('c.py', 'retries = 7\n')
  await refused(w, edit, ErrorCode.SEARCH_BLOCK_NOT_FOUND)
})

test('no edit path writes an elision placeholder over code', T, async (t) => {
  const body = 'def f(x):\n    a = x + 1\n    b = a * 2\n    return b\n'
  const lazy = 'def f(x):\n    # ... existing code ...\n    return b + 1\n'
  const calls = [
    (w) => patchFile({ file_path: 'm.py', search_block: body, replace_block: lazy }, w.opts()),
    (w) => applyEdits('m.py', [[body, lazy]], w.opts()),
    (w) => applyBlocks(`m.py\n<<<<<<< SEARCH\n${body}=======\n${lazy}>>>>>>> REPLACE\n`, w.opts()),
    (w) => applyPatch('*** Begin Patch\n*** Update File: m.py\n@@ def f(x):\n-    a = x + 1\n-    b = a * 2\n+    # ... existing code ...\n     return b\n*** End Patch\n', w.opts()),
    (w) => applyUnifiedDiff('--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,3 @@\n def f(x):\n-    a = x + 1\n-    b = a * 2\n+    # rest of the code unchanged\n     return b\n', w.opts()),
  ]
  for (const call of calls) {
    const w = workspace(t)
    w.write('m.py', body)
    const r = await refused(w, () => call(w), ErrorCode.ELIDED_CONTENT)
    assert.equal(r.placeholder_lines.length, 1, JSON.stringify(r))
    assert.equal(r.placeholder_lines[0].line, 2)
  }
  const w = workspace(t)
  w.write('m.py', body)
  const v = await viewFile('m.py', w.opts({ format: 'hashline' }))
  const anchor = (n) => v.content.split('\n')[n - 1].split('|')[0]
  await refused(w, () => editLines('m.py', [{ op: 'replace', start: anchor(2), end: anchor(3), lines: ['    # ... existing code ...'] }], w.opts()), ErrorCode.ELIDED_CONTENT)
  // Inserting such a line drops nothing: it lands.
  const ins = await editLines('m.py', [{ op: 'insert_after', start: anchor(1), lines: ['    # ...'] }], w.opts())
  assert.equal(ins.ok, true, JSON.stringify(ins))
})

test('a placeholder that is content lands: in a string, a code fence, or already in old', T, async (t) => {
  const w = workspace(t)
  w.write('t.py', 'TEMPLATE = """\ndef main():\n    run()\n"""\n')
  const r = await applyEdits('t.py', [['def main():\n    run()\n', 'def main():\n    # ... existing code ...\n']], w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(w.text('t.py'), 'TEMPLATE = """\ndef main():\n    # ... existing code ...\n"""\n')
  w.write('README.md', '# Usage\n\n```js\nimport x from \'x\'\nx.run()\nx.stop()\n```\n')
  const d = await applyUnifiedDiff('--- a/README.md\n+++ b/README.md\n@@ -4,3 +4,3 @@\n import x from \'x\'\n-x.run()\n+// ... existing code ...\n x.stop()\n', w.opts())
  assert.equal(d.ok, true, JSON.stringify(d))
  w.write('k.py', 'def f():\n    # ... existing code ...\n    return 1\n')
  const k = await patchFile({ file_path: 'k.py', search_block: '    # ... existing code ...\n    return 1\n', replace_block: '    # ... existing code ...\n    return 2\n' }, w.opts())
  assert.equal(k.ok, true, JSON.stringify(k))
})

test('SEARCH/REPLACE markers of 10 and more characters are read; a file\'s = lines and conflicts stay content', T, async (t) => {
  const w = workspace(t)
  w.write('a.py', 'x = 1\ny = 2\n')
  const r = await applyBlocks('a.py\n<<<<<<<<<<< SEARCH\ny = 2\n==========\ny = 3\n>>>>>>>>>>> REPLACE\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dialect, ['marker_variant'])
  assert.equal(w.text('a.py'), 'x = 1\ny = 3\n')
  // A file holding a git conflict and a long underline: both inside the SEARCH text, both content.
  const doc = 'Title\n==========\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n'
  w.write('doc.txt', doc)
  const c = await applyBlocks('doc.txt\n<<<<<<< SEARCH\nTitle\n==========\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n=======\nTitle\n==========\ntheirs\n>>>>>>> REPLACE\n', w.opts())
  assert.equal(c.ok, true, JSON.stringify(c))
  assert.equal(w.text('doc.txt'), 'Title\n==========\ntheirs\n')
  // Under a marker of the usual length a long = run is the file's: with no other divider the block
  // is malformed (PARSE_ERROR), never split at the underline.
  w.write('doc.txt', doc)
  await refused(w, () => applyBlocks('doc.txt\n<<<<<<< SEARCH\nTitle\n==========\nours\n>>>>>>> REPLACE\n', w.opts()), ErrorCode.PARSE_ERROR)
  // Two long dividers under a long marker: where SEARCH ends is unclear.
  await refused(w, () => applyBlocks('doc.txt\n<<<<<<<<<<< SEARCH\nTitle\n==========\n==========\nT\n>>>>>>>>>>> REPLACE\n', w.opts()), ErrorCode.PARSE_ERROR)
})

test('applyEdits applies a list in turn when a later old is only in an earlier new', T, async (t) => {
  const w = workspace(t)
  const text = 'def load(path):\n    return open(path).read()\n'
  w.write('io.py', text)
  const edits = [
    { old: 'def load(path):\n', new: 'def load(path, encoding):\n' },
    { old: 'def load(path, encoding):\n    return open(path).read()\n', new: 'def load(path, encoding):\n    return open(path, encoding=encoding).read()\n' },
  ]
  const r = await applyEdits('io.py', edits, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dialect, ['edits_in_turn'])
  assert.equal(w.text('io.py'), 'def load(path, encoding):\n    return open(path, encoding=encoding).read()\n')
  // Retried: the first old is gone and the second edit's new stands: already applied.
  await refused(w, () => applyEdits('io.py', edits, w.opts()), ErrorCode.ALREADY_APPLIED)
  // Each edit must still match exactly one place in the text it meets.
  w.write('e.txt', 'p\nq\n')
  await refused(w, () => applyEdits('e.txt', [['p\n', 'z\nz\n'], ['z\n', 'y\n']], w.opts()), ErrorCode.SEARCH_BLOCK_NOT_FOUND)
  // An insertion read in turn, retried: refused, not written twice.
  w.write('i.txt', 'a\n')
  const ins = [['a\n', 'a\nb\n'], ['b\n', 'c\n']]
  assert.equal((await applyEdits('i.txt', ins, w.opts())).ok, true)
  assert.equal(w.text('i.txt'), 'a\nc\n')
  await refused(w, () => applyEdits('i.txt', ins, w.opts()), ErrorCode.ALREADY_APPLIED)
})

test('a later old that an earlier new also holds is ambiguous: the batch and the in-order readings disagree', T, async (t) => {
  const w = workspace(t)
  w.write('v.yml', 'web:\n    image: a\napi:\n      size: hello\n')
  const edits = [
    { old: '    image: a', new: '    image: b\n    size:\n      - ok' },
    { old: '    size:', new: '    size3:' },
  ]
  const r = await refused(w, () => applyEdits('v.yml', edits, w.opts()), ErrorCode.SEARCH_BLOCK_AMBIGUOUS)
  assert.deepEqual(r.edit_indices, [0, 1])
  // The other order reads one way only, and lands.
  w.write('o.yml', 'web:\n    image: a\napi:\n      size: hello\n')
  assert.equal((await applyEdits('o.yml', [edits[1], edits[0]], w.opts())).ok, true)
  assert.equal(w.text('o.yml'), 'web:\n    image: b\n    size:\n      - ok\napi:\n      size3: hello\n')
  // As SEARCH/REPLACE blocks, the second SEARCH is a whole line (`    size:` and its line break), found
  // nowhere in the file: only the in-order reading finds it, once, and it lands there.
  const b = await applyBlocks('v.yml\n<<<<<<< SEARCH\n    image: a\n=======\n    image: b\n    size:\n      - ok\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n    size:\n=======\n    size3:\n>>>>>>> REPLACE\n', w.opts())
  assert.equal(b.ok, true, JSON.stringify(b))
  assert.deepEqual(b.dialect, ['blocks_in_turn'])
  assert.equal(w.text('v.yml'), 'web:\n    image: b\n    size3:\n      - ok\napi:\n      size: hello\n')
})

test('an empty old creates a missing file or fills an empty one, and is refused on content', T, async (t) => {
  const w = workspace(t)
  mkdirSync(w.path('src'))
  const r = await patchFile({ file_path: 'src/new.py', search_block: '', replace_block: 'x = 1\n' }, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.created, true)
  assert.equal(w.text('src/new.py'), 'x = 1\n')
  await refused(w, () => patchFile({ file_path: 'src/new.py', search_block: '', replace_block: 'x = 1\n' }, w.opts()), ErrorCode.ALREADY_APPLIED)
  const c = await refused(w, () => applyEdits('src/new.py', [{ old: '', new: 'y = 2\n' }], w.opts()), ErrorCode.INVALID_INPUT)
  assert.match(c.message, /one prepends, another appends/)
  // applyEdits creates too; previewEdits says it would, and creates nothing.
  const pre = await previewEdits('made.txt', [{ old: '', new: 'm\n' }], w.opts())
  assert.equal(pre.ok, true, JSON.stringify(pre))
  assert.equal(pre.created, true)
  assert.equal(pre.written, false)
  assert.equal(existsSync(w.path('made.txt')), false)
  const made = await applyEdits('made.txt', [{ old: '', new: 'm\n' }], w.opts())
  assert.equal(made.created, true, JSON.stringify(made))
  assert.equal(w.text('made.txt'), 'm\n')
  w.write('empty.txt', '')
  const f = await applyEdits('empty.txt', [{ old: '', new: 'filled\n' }], w.opts())
  assert.equal(f.ok, true, JSON.stringify(f))
  assert.equal(f.created, undefined)
  assert.equal(w.text('empty.txt'), 'filled\n')
  // Undo of a creation deletes the file.
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.ok, true, JSON.stringify(u))
  assert.equal(existsSync(w.path('src/new.py')), false)
  // A base_hash for a file that is not there: STALE_FILE, nothing created.
  await refused(w, () => patchFile({ file_path: 'gone.txt', search_block: '', replace_block: 'g\n' }, w.opts({ base_hash: '0123456789abcdef' })), ErrorCode.STALE_FILE)
  assert.equal(existsSync(w.path('gone.txt')), false)
})
