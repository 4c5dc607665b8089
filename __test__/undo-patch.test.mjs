// Every write is undoable: applyPatch, applyBlocks and applyUnifiedDiff return edit_id and
// undo_available like every other write, and undoEdit restores every file of the transaction
// (creations deleted, deletions restored, moves reversed), by edit_id or by any path it touched.
import test from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const { applyPatch, applyBlocks, applyUnifiedDiff, undoEdit, patchFile } = sp

function snapshot(root, dir = root, out = {}) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) snapshot(root, p, out)
    else out[p.slice(root.length + 1)] = readFileSync(p, 'utf8')
  }
  return out
}

function seed(w) {
  mkdirSync(w.path('src'))
  w.write('src/a.py', 'a = 1\nb = 2\n')
  w.write('src/gone.txt', 'bye\n')
  w.write('src/old.txt', 'moving\n')
  return snapshot(w.root)
}

const PATCH = `*** Begin Patch
*** Update File: src/a.py
@@
-b = 2
+b = 3
*** Add File: src/new.txt
+hello
*** Delete File: src/gone.txt
*** Update File: src/old.txt
*** Move to: src/moved.txt
@@
-moving
+moved
*** End Patch
`

test('applyPatch: one edit_id undoes the whole transaction', async (t) => {
  const w = workspace(t)
  const before = seed(w)
  const r = await applyPatch(PATCH, w.opts())
  assert.equal(r.ok, true, r.message)
  assert.equal(r.undo_available, true)
  assert.match(r.edit_id, /\S/)
  assert.deepEqual(snapshot(w.root), { 'src/a.py': 'a = 1\nb = 3\n', 'src/new.txt': 'hello\n', 'src/moved.txt': 'moved\n' })
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.ok, true, u.message)
  assert.deepEqual(snapshot(w.root), before)
  // Undone once: the same id is gone.
  const again = await undoEdit(r.edit_id, w.opts())
  assert.equal(again.code, 'EDIT_NOT_FOUND')
  assert.deepEqual(snapshot(w.root), before)
})

test('undoEdit(path) undoes the last edit that touched the path: the whole transaction', async (t) => {
  const w = workspace(t)
  const before = seed(w)
  const r = await applyPatch(PATCH, w.opts())
  assert.equal(r.ok, true, r.message)
  const u = await undoEdit('src/new.txt', w.opts())
  assert.equal(u.ok, true, u.message)
  assert.deepEqual(snapshot(w.root), before)
})

test('a file changed after the patch makes its undo STALE_FILE, and nothing is restored', async (t) => {
  const w = workspace(t)
  seed(w)
  const r = await applyPatch(PATCH, w.opts())
  assert.equal(r.ok, true, r.message)
  const p = await patchFile({ file_path: 'src/a.py', search_block: 'b = 3', replace_block: 'b = 4' }, w.opts())
  assert.equal(p.ok, true, p.message)
  const now = snapshot(w.root)
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.code, 'STALE_FILE')
  assert.deepEqual(snapshot(w.root), now)
})

test('applyBlocks and applyUnifiedDiff are undoable too; a dry run records nothing', async (t) => {
  const w = workspace(t)
  const before = seed(w)
  const b = await applyBlocks('src/a.py\n<<<<<<< SEARCH\na = 1\n=======\na = 10\n>>>>>>> REPLACE\n', w.opts())
  assert.equal(b.ok, true, b.message)
  assert.equal(b.undo_available, true)
  const d = await applyUnifiedDiff('--- a/src/old.txt\n+++ b/src/old.txt\n@@ -1 +1 @@\n-moving\n+still\n', w.opts())
  assert.equal(d.ok, true, d.message)
  assert.equal(d.undo_available, true)
  assert.equal((await undoEdit(d.edit_id, w.opts())).ok, true)
  assert.equal((await undoEdit(b.edit_id, w.opts())).ok, true)
  assert.deepEqual(snapshot(w.root), before)
  const dry = await applyPatch(PATCH, w.opts({ dry_run: true }))
  assert.equal(dry.ok, true, dry.message)
  assert.equal(dry.edit_id, null)
  assert.equal(dry.undo_available, false)
})

// The in-memory journal keeps the stretch an edit replaced, not the file: an edit of a file above the
// journal's 64 MiB cap is undoable (it was not), and a journal directory, which keeps whole files, says
// in journal_warning that this edit is undoable from this process only.
test('an edit of a file above the 64 MiB journal cap is undoable from memory', async (t) => {
  const w = workspace(t)
  const line = 'x'.repeat(63) + '\n'
  const body = Buffer.from(line.repeat((64 << 20) / 64 + 16))
  const big = Buffer.concat([body, Buffer.from('the one line to change\n'), body])
  w.write('big.txt', big)
  const r = await patchFile({ filePath: 'big.txt', searchBlock: 'the one line to change\n', replaceBlock: 'changed\n' }, w.opts())
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300))
  assert.equal(r.undo_available, true)
  assert.equal(r.journal_warning, undefined)
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.ok, true, JSON.stringify(u))
  assert.ok(w.read('big.txt').equals(big), 'every byte restored')

  mkdirSync(w.path('jd'))
  const d = await patchFile({ filePath: 'big.txt', searchBlock: 'the one line to change\n', replaceBlock: 'changed\n' }, w.opts({ journal_dir: 'jd' }))
  assert.equal(d.ok, true)
  assert.equal(d.undo_available, true)
  assert.match(d.journal_warning, /above the journal directory's cap/)
  assert.deepEqual(readdirSync(w.path('jd')), [], 'nothing written to the journal directory')
  const v = await undoEdit('big.txt', w.opts({ journal_dir: 'jd' }))
  assert.equal(v.ok, true, JSON.stringify(v))
  assert.ok(w.read('big.txt').equals(big))
})
