// Receipt fields that only uncommon paths produce, each checked for its meaning (the results check,
// scripts/check-results.mjs, also needs every field a schema declares to appear in some result).
import test from 'node:test'
import assert from 'node:assert/strict'
import { sp, workspace } from './helpers.mjs'

// A journal directory whose entry cannot be written: the name of its last part is longer than any
// file system allows, so the write lands and the receipt says the journal missed it.
const UNWRITABLE_JOURNAL = `jd/${'j'.repeat(300)}`

test('journal_warning: every write op says when the journal directory could not be updated', async (t) => {
  const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n'
  const diff = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n'
  const blocks = 'a.txt\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n'
  const calls = {
    patchFile: (o) => sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'ONE' }, o),
    applyEdits: (o) => sp.applyEdits('a.txt', [['one', 'ONE']], o),
    applyPatch: (o) => sp.applyPatch(patch, o),
    applyUnifiedDiff: (o) => sp.applyUnifiedDiff(diff, o),
    applyBlocks: (o) => sp.applyBlocks(blocks, o),
    createFile: (o) => sp.createFile('new.txt', 'x\n', o),
    writeFile: (o) => sp.writeFile('a.txt', 'ONE\n', o),
    deleteFile: (o) => sp.deleteFile('a.txt', o),
    moveFile: (o) => sp.moveFile('a.txt', 'b.txt', o),
    editLines: async (o) => {
      const v = await sp.viewFile('a.txt', { ...o, format: 'hashline', journal_dir: undefined })
      const anchor = v.content.split('|')[0]
      return sp.editLines('a.txt', [{ op: 'replace', start: anchor, lines: ['ONE'] }], o)
    },
  }
  for (const [name, call] of Object.entries(calls)) {
    const ws = workspace(t)
    ws.write('a.txt', 'one\n')
    const r = await call(ws.opts({ journal_dir: UNWRITABLE_JOURNAL }))
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    assert.equal(r.written ?? true, true, name)
    assert.match(r.journal_warning, /journal directory could not be updated/, name)
    // The write itself landed, and this process can still undo it.
    assert.equal(r.undo_available, true, name)
    const u = await sp.undoEdit(r.edit_id, ws.opts())
    assert.equal(u.ok, true, `${name} undo: ${JSON.stringify(u)}`)
    assert.equal(ws.text('a.txt'), 'one\n', name)
  }
})

test('matches[].tolerances lists every liberty when one match needed more than one', async (t) => {
  const ws = workspace(t)
  ws.write('a.py', 'def f():\n    x = \u201ca\u201d\n    return x\n')
  // Copied from a `cat -n` view (line_prefix) and with straight quotes (typography).
  const r = await sp.applyEdits('a.py', [['     2\t    x = "a"\n     3\t    return x', '    return "b"']], ws.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.matches[0].tolerances, ['typography', 'line_prefix'])
  assert.equal(r.matches[0].tier, 'line_prefix')
  assert.equal(ws.text('a.py'), 'def f():\n    return "b"\n')
  // One liberty: no list (tier says it).
  const one = await sp.applyEdits('a.py', [['return "b"', 'return "c"']], ws.opts({ dry_run: true }))
  assert.equal(one.matches[0].tolerances, undefined)
})

test('readManyFiles: hint when the call\'s content budget is spent', async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'aaaaaaaaa\n'.repeat(10))
  ws.write('b.txt', 'bbbbbbbbb\n'.repeat(10))
  const r = await sp.readManyFiles(['a.txt', 'b.txt'], ws.opts({ max_bytes: 50 }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.match(r.hint, /budget of this call was spent/)
  assert.equal(r.files[0].truncated, true)
  const all = await sp.readManyFiles(['a.txt', 'b.txt'], ws.opts())
  assert.equal(all.hint, undefined)
})
