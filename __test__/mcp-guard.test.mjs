// Read-before-edit (--require-read) under attack: every spelling of a path the engine accepts names
// the same file for the guard as for the write, because the guard asks the engine (touchedFiles) which
// files a call touches. Each refused bypass leaves the bytes on disk unchanged.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, symlinkSync, writeFileSync, mkdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { populate, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')
const tools = require('../tools/table.cjs')

// real/x.txt, real/sub/ and link -> real/sub: `link/../x.txt` is real/x.txt for the kernel (the link
// is followed before `..`), and x.txt (missing) for a textual resolution.
function setup(t, lib = sp) {
  const root = populate(tempDir(t, 'surepatch-guard-'), { 'real/x.txt': 'x\n', 'p.txt': 'p\n', 'q.txt': 'q\n' })
  mkdirSync(join(root, 'real', 'sub'))
  symlinkSync(join(root, 'real', 'sub'), join(root, 'link'))
  const runner = tools.createToolRunner(lib, { workspaceRoot: root, requireRead: true })
  const bytes = (p) => readFileSync(join(root, p))
  return { root, runner, call: runner.call, bytes, text: (p) => bytes(p).toString('utf8') }
}

const unread = (display) => ({
  ok: false,
  code: 'STALE_FILE',
  message: `${display} has not been viewed in this session; nothing was written. Call view_file on it first, then retry the edit.`,
  file_path: display,
  hint: 'read-before-edit is on: call view_file, then edit.',
})

const envelope = (body) => `*** Begin Patch\n${body}*** End Patch\n`

test('a symlinked directory followed by .. names the real file: every tool refuses it unviewed', async (t) => {
  const s = setup(t)
  const before = s.bytes('real/x.txt')
  const attempts = [
    ['patch_file', { file_path: 'link/../x.txt', search_block: 'x', replace_block: 'y' }],
    ['edit_file', { file_path: 'link/../x.txt', edits: [{ old: 'x', new: 'y' }] }],
    ['edit_lines', { file_path: 'link/../x.txt', ops: [{ op: 'delete', start: '1:00' }] }],
    ['write_file', { file_path: 'link/../x.txt', content: 'y\n' }],
    ['delete_file', { file_path: 'link/../x.txt' }],
    ['apply_patch', { patch: envelope('*** Update File: link/../x.txt\n@@\n-x\n+y\n') }],
    ['apply_patch', { patch: envelope('*** Delete File: link/../x.txt\n') }],
    ['apply_patch', { patch: envelope('*** Add File: link/../x.txt\n+y\n'), overwrite: true }],
  ]
  for (const [name, args] of attempts) {
    assert.deepEqual(await s.call(name, args), unread('real/x.txt'), `${name} ${JSON.stringify(args)}`)
    assert.deepEqual(s.bytes('real/x.txt'), before, name)
  }
  // Viewed through one spelling, edited through another: the same file.
  assert.equal((await s.call('view_file', { file_path: 'link/../x.txt' })).ok, true)
  const r = await s.call('patch_file', { file_path: 'real/x.txt', search_block: 'x', replace_block: 'y' })
  assert.equal(r.ok, true, r.message)
  assert.equal(s.text('real/x.txt'), 'y\n')
})

test('apply_patch headers the engine accepts (leading space, NBSP after the path, CRLF, decorated paths, no End Patch) are guarded', async (t) => {
  const s = setup(t)
  for (const patch of [
    envelope(' *** Update File: p.txt\n@@\n-p\n+P\n'),
    envelope('*** Update File: p.txt\u00a0\n@@\n-p\n+P\n'),
    envelope('*** Update File:   ./p.txt\t\n@@\n-p\n+P\n'),
    envelope('*** Update File: p.txt\r\n@@\r\n-p\r\n+P\r\n'),
    envelope('*** Update File: `p.txt`\n@@\n-p\n+P\n'),
    envelope('*** Update File: **./p.txt**\n@@\n-p\n+P\n'),
    '*** Begin Patch\n*** Update File: p.txt\n@@\n-p\n+P\n',
    envelope('*** Update File: q.txt\n*** Move to: p.txt\n@@\n-q\n+Q\n'),
  ]) {
    // The engine applies each of these (dry run, no guard) ...
    const dry = await sp.applyPatch(patch, { workspace_root: s.root, dry_run: true, overwrite: true })
    assert.equal(dry.ok, true, `${JSON.stringify(patch)}: ${dry.message}`)
    // ... and the guard refuses it until the file was viewed.
    const r = await s.call('apply_patch', { patch, overwrite: true })
    assert.equal(r.code, 'STALE_FILE', JSON.stringify(patch))
    assert.match(r.file_path, /^[pq]\.txt$/)
    assert.equal(s.text('p.txt'), 'p\n')
    assert.equal(s.text('q.txt'), 'q\n')
  }
  // A move onto an existing file needs that file viewed too, and unchanged since.
  await s.call('view_file', { file_path: 'q.txt' })
  const move = envelope('*** Update File: q.txt\n*** Move to: p.txt\n@@\n-q\n+Q\n')
  assert.deepEqual(await s.call('apply_patch', { patch: move, overwrite: true }), unread('p.txt'))
  await s.call('view_file', { file_path: 'p.txt' })
  writeFileSync(join(s.root, 'p.txt'), 'p2\n')
  const changed = await s.call('apply_patch', { patch: move, overwrite: true })
  assert.equal(changed.code, 'STALE_FILE')
  assert.equal(changed.file_path, 'p.txt')
  assert.equal(s.text('p.txt'), 'p2\n')
  assert.equal(s.text('q.txt'), 'q\n')
  await s.call('view_file', { file_path: 'p.txt' })
  const moved = await s.call('apply_patch', { patch: move, overwrite: true })
  assert.equal(moved.ok, true, moved.message)
  assert.equal(s.text('p.txt'), 'Q\n')
  assert.equal(existsSync(join(s.root, 'q.txt')), false)
  // The result's names are remembered: the moved file can be edited again without a view.
  const again = await s.call('apply_patch', { patch: envelope('*** Update File: p.txt\n@@\n-Q\n+R\n') })
  assert.equal(again.ok, true, again.message)
  assert.equal(s.text('p.txt'), 'R\n')
})

test('refusals of the engine itself come back with its code, nothing written', async (t) => {
  const s = setup(t)
  const outside = await s.call('apply_patch', { patch: envelope('*** Add File: ../evil.txt\n+x\n') })
  assert.equal(outside.code, 'PATH_OUTSIDE_WORKSPACE')
  const bad = await s.call('apply_patch', { patch: '*** Begin Patch\n*** Bogus\n' })
  assert.equal(bad.code, 'PARSE_ERROR')
  const far = await s.call('write_file', { file_path: '/etc/passwd-surepatch', content: 'x' })
  assert.equal(far.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(existsSync(join(s.root, '..', 'evil.txt')), false)
  // A new file needs no view.
  assert.equal((await s.call('apply_patch', { patch: envelope('*** Add File: link/new.txt\n+n\n') })).ok, true)
  assert.equal(s.text('real/sub/new.txt'), 'n\n')
})

test('undo_edit refreshes what the session knows: view, patch, undo, patch', async (t) => {
  const s = setup(t)
  await s.call('view_file', { file_path: 'p.txt' })
  const first = await s.call('patch_file', { file_path: 'p.txt', search_block: 'p', replace_block: 'one' })
  assert.equal(first.ok, true, first.message)
  const undo = await s.call('undo_edit', { edit_id: first.edit_id })
  assert.equal(undo.ok, true, undo.message)
  assert.equal(s.text('p.txt'), 'p\n')
  const second = await s.call('apply_patch', { patch: envelope('*** Update File: p.txt\n@@\n-p\n+two\n') })
  assert.equal(second.ok, true, second.message)
  assert.equal(s.text('p.txt'), 'two\n')
  // Same with single-file tools, and an undo that deletes a file the session created.
  const edit = await s.call('patch_file', { file_path: 'p.txt', search_block: 'two', replace_block: 'three' })
  assert.equal((await s.call('undo_edit', { edit_id: edit.edit_id })).ok, true)
  assert.equal((await s.call('edit_file', { file_path: 'p.txt', edits: [{ old: 'two', new: 'four' }] })).ok, true)
  assert.equal(s.text('p.txt'), 'four\n')
  const made = await s.call('write_file', { file_path: 'made.txt', content: 'm\n' })
  assert.equal((await s.call('undo_edit', { edit_id: made.edit_id })).ok, true)
  writeFileSync(join(s.root, 'made.txt'), 'someone else\n')
  assert.deepEqual(await s.call('patch_file', { file_path: 'made.txt', search_block: 'someone', replace_block: 'x' }), unread('made.txt'))
  assert.equal(s.text('made.txt'), 'someone else\n')
})

test('a patch is pinned to the hashes seen: a change between the guard and the write is refused by the engine', async (t) => {
  let sneak = null
  const lib = Object.assign({}, sp, {
    applyPatch: (text, options) => {
      if (sneak) sneak()
      return sp.applyPatch(text, options)
    },
  })
  const s = setup(t, lib)
  await s.call('view_file', { file_path: 'p.txt' })
  sneak = () => writeFileSync(join(s.root, 'p.txt'), 'p\nsneaked\n')
  const r = await s.call('apply_patch', { patch: envelope('*** Update File: p.txt\n@@\n-p\n+P\n') })
  assert.equal(r.code, 'STALE_FILE')
  assert.equal(s.text('p.txt'), 'p\nsneaked\n')
})

test('write_file of a file that did not exist at the check creates only: one that appears meanwhile is refused', async (t) => {
  let sneak = null
  const lib = Object.assign({}, sp, {
    createFile: (...args) => {
      if (sneak) sneak()
      return sp.createFile(...args)
    },
  })
  const s = setup(t, lib)
  sneak = () => writeFileSync(join(s.root, 'new.txt'), 'theirs\n')
  const r = await s.call('write_file', { file_path: 'new.txt', content: 'mine\n' })
  assert.equal(r.code, 'FILE_EXISTS')
  assert.equal(s.text('new.txt'), 'theirs\n')
  sneak = null
  const fresh = await s.call('write_file', { file_path: 'fresh.txt', content: 'f\n' })
  assert.equal(fresh.ok, true, fresh.message)
  assert.equal(s.text('fresh.txt'), 'f\n')
})
