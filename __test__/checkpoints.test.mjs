// Issue #27 §6: checkpoints through the library (each refusal with its code and the files unchanged),
// across a restart (two processes sharing a journal_dir), and through the MCP server (SDK client).
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { REPO, populate, stdio, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')

const read = (root, f) => (existsSync(join(root, f)) ? readFileSync(join(root, f), 'utf8') : null)

test('library: create, restore, list; every refusal leaves the files as they are', { timeout: 30_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.py': 'a = 1\n', 'b.py': 'b = 1\n' })
  const o = { workspace_root: root }
  const cp = await sp.createCheckpoint({ ...o, label: 'start' })
  assert.equal(cp.ok, true, JSON.stringify(cp))
  assert.match(cp.checkpoint_id, /^c[0-9a-f]{22}$/)
  assert.equal((await sp.patchFile({ file_path: 'a.py', old_string: 'a = 1', new_string: 'a = 2' }, o)).ok, true)
  assert.equal((await sp.createFile('n.py', 'n = 1\n', o)).ok, true)
  assert.equal((await sp.moveFile('b.py', 'c.py', o)).ok, true)
  const list = await sp.listCheckpoints(o)
  assert.deepEqual(list.checkpoints.map((c) => [c.checkpoint_id, c.label, c.edits_since]), [[cp.checkpoint_id, 'start', 3]])
  // Refusals: the code, and nothing written.
  const now = () => ['a.py', 'b.py', 'c.py', 'n.py'].map((f) => read(root, f))
  const before = now()
  for (const [id, opts, code] of [
    ['not-an-id', o, 'INVALID_INPUT'],
    [cp.checkpoint_id, { ...o, bogus: true }, 'INVALID_INPUT'],
    ['c0192f3a4b5c6000001a1b2', o, 'EDIT_NOT_FOUND'],
  ]) {
    const r = await sp.restoreCheckpoint(id, opts)
    assert.equal(r.code, code, JSON.stringify(r))
  }
  writeFileSync(join(root, 'n.py'), 'n = 1\nchanged = True\n')
  const stale = await sp.restoreCheckpoint(cp.checkpoint_id, o)
  assert.equal(stale.code, 'STALE_FILE', JSON.stringify(stale))
  assert.equal(stale.file_path, 'n.py')
  assert.deepEqual(stale.stale_files.map((f) => f.file_path), ['n.py'])
  assert.match(stale.message, /^n\.py changed since surepatch last wrote it .*nothing was restored/)
  assert.deepEqual(now(), [before[0], before[1], before[2], 'n = 1\nchanged = True\n'])
  // force: the created file goes (its change with it), the rest comes back.
  const r = await sp.restoreCheckpoint(cp.checkpoint_id, { ...o, force: true })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(now(), ['a = 1\n', 'b = 1\n', null, null])
  assert.equal((await sp.listCheckpoints(o)).checkpoints[0].edits_since, 0)
})

test('a checkpoint survives a restart with the journal on disk (two processes)', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.py': 'a = 1\n' })
  const run = (code) => {
    const r = spawnSync(process.execPath, ['-e', `const sp = require(${JSON.stringify(join(REPO, 'index.js'))}); const o = {workspace_root: ${JSON.stringify(root)}, journal_dir: '.surepatch'}; (async () => { ${code} })().catch((e) => { console.error(e); process.exit(1) })`], { encoding: 'utf8', timeout: 30_000 })
    assert.equal(r.status, 0, r.stderr)
    return JSON.parse(r.stdout)
  }
  const first = run(`const cp = await sp.createCheckpoint({ ...o, label: 'before' }); const e = await sp.patchFile({ file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 2' }, o); const c = await sp.createFile('new.py', 'x\\n', o); console.log(JSON.stringify({ cp, e, c }))`)
  assert.equal(first.cp.ok && first.e.ok && first.c.ok, true, JSON.stringify(first))
  assert.equal(read(root, 'a.py'), 'a = 2\n')
  // Another process: the checkpoint and the edits since come from the journal directory.
  const second = run(`const list = await sp.listCheckpoints(o); const r = await sp.restoreCheckpoint(${JSON.stringify(first.cp.checkpoint_id)}, o); console.log(JSON.stringify({ list, r }))`)
  assert.deepEqual(second.list.checkpoints.map((c) => [c.checkpoint_id, c.label, c.edits_since]), [[first.cp.checkpoint_id, 'before', 2]])
  assert.equal(second.r.ok, true, JSON.stringify(second.r))
  assert.deepEqual(second.r.edits_reverted, [first.e.edit_id, first.c.edit_id])
  assert.equal(read(root, 'a.py'), 'a = 1\n')
  assert.equal(read(root, 'new.py'), null)
})

test('MCP: create_checkpoint, list_checkpoints and restore_checkpoint over stdio', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.py': 'a = 1\n' })
  const c = await stdio(t, { args: ['--root', root, '--tools', 'default,create_checkpoint,restore_checkpoint,list_checkpoints'] })
  assert.ok(c.tools.some((x) => x.name === 'restore_checkpoint'))
  const call = async (name, args) => (await c.call(name, args)).structuredContent
  const cp = await call('create_checkpoint', { label: 'try' })
  assert.equal(cp.ok, true, JSON.stringify(cp))
  assert.equal((await call('patch_file', { file_path: 'a.py', old_string: 'a = 1', new_string: 'a = 9' })).ok, true)
  assert.equal((await call('write_file', { file_path: 'b.py', content: 'b = 1\n' })).ok, true)
  const list = await call('list_checkpoints', {})
  assert.deepEqual(list.checkpoints.map((x) => x.edits_since), [2])
  const bad = await call('restore_checkpoint', { checkpoint_id: 'c0192f3a4b5c6000001a1b2' })
  assert.equal(bad.code, 'EDIT_NOT_FOUND')
  assert.equal(read(root, 'a.py'), 'a = 9\n')
  const r = await c.call('restore_checkpoint', { checkpoint_id: cp.checkpoint_id })
  assert.equal(r.structuredContent.ok, true, JSON.stringify(r.structuredContent))
  assert.equal(read(root, 'a.py'), 'a = 1\n')
  assert.equal(read(root, 'b.py'), null)
  assert.doesNotThrow(() => r.content[0].text)
})

test('isolated runners (the HTTP sessions): a restore reverts only the runner\'s own edits', { timeout: 30_000 }, async (t) => {
  const tools = require('../tools/table.cjs')
  const root = populate(tempDir(t), { 'a.py': 'a = 1\n', 'b.py': 'b = 1\n' })
  const one = tools.createToolRunner(sp, { workspaceRoot: root, isolateUndo: true })
  const two = tools.createToolRunner(sp, { workspaceRoot: root, isolateUndo: true })
  const cp = await one.call('create_checkpoint', {})
  assert.equal((await one.call('patch_file', { file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 2' })).ok, true)
  assert.equal((await two.call('patch_file', { file_path: 'b.py', search_block: 'b = 1', replace_block: 'b = 2' })).ok, true)
  const r = await one.call('restore_checkpoint', { checkpoint_id: cp.checkpoint_id })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.edits_reverted.length, 1)
  assert.deepEqual([read(root, 'a.py'), read(root, 'b.py')], ['a = 1\n', 'b = 2\n'])
})
