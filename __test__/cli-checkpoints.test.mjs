// Issue #27 §6 on the command line (a subprocess): `surepatch checkpoint` marks the workspace, `surepatch
// log` lists the checkpoints with the edits, `surepatch undo CHECKPOINT_ID` puts back every file applied
// since, from another process (the journal is on disk); a file changed since is refused (exit 1,
// STALE_FILE, nothing written) unless --force.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, populate, tempDir } from './mcp-helpers.mjs'

function cli(root, state, args, input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args, '--root', root], {
    input,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, SUREPATCH_WORKSPACE_ROOT: '', XDG_STATE_HOME: state },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const read = (root, f) => (existsSync(join(root, f)) ? readFileSync(join(root, f), 'utf8') : null)
const patch = (body) => `*** Begin Patch\n${body}\n*** End Patch\n`

test('surepatch checkpoint, log, and undo CHECKPOINT_ID', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.py': 'a = 1\n', 'b.py': 'b = 1\n' })
  const state = tempDir(t, 'surepatch-state-')
  const made = cli(root, state, ['checkpoint', 'before the refactor'])
  assert.equal(made.code, 0, made.stderr)
  const id = made.stdout.trim().split(/\s+/)[0]
  assert.match(id, /^c[0-9a-f]{22}$/)
  for (const p of [patch('*** Update File: a.py\n@@\n-a = 1\n+a = 2'), patch('*** Add File: n.py\n+n = 1'), patch('*** Delete File: b.py')]) {
    const r = cli(root, state, ['apply'], p)
    assert.equal(r.code, 0, r.stderr)
  }
  const log = cli(root, state, ['log', '--json'])
  assert.equal(log.code, 0, log.stderr)
  const listed = JSON.parse(log.stdout)
  assert.equal(listed.edits.length, 3)
  assert.deepEqual(listed.checkpoints.map((c) => [c.checkpoint_id, c.label, c.edits_since]), [[id, 'before the refactor', 3]])
  assert.match(cli(root, state, ['log']).stdout, new RegExp(`^${id}  checkpoint "before the refactor"  3 edit\\(s\\) since$`, 'm'))
  // --force is for a checkpoint only.
  assert.equal(cli(root, state, ['undo', 'a.py', '--force']).code, 2)
  // A file changed since by hand: refused, nothing written.
  writeFileSync(join(root, 'n.py'), 'n = 1\nby_hand = 1\n')
  const stale = cli(root, state, ['undo', id])
  assert.equal(stale.code, 1)
  assert.match(stale.stderr, /^STALE_FILE: n\.py changed since surepatch last wrote it/)
  assert.deepEqual([read(root, 'a.py'), read(root, 'b.py'), read(root, 'n.py')], ['a = 2\n', null, 'n = 1\nby_hand = 1\n'])
  const forced = cli(root, state, ['undo', id, '--force', '--json'])
  assert.equal(forced.code, 0, forced.stderr)
  assert.equal(JSON.parse(forced.stdout).edits_reverted.length, 3)
  assert.deepEqual([read(root, 'a.py'), read(root, 'b.py'), read(root, 'n.py')], ['a = 1\n', 'b = 1\n', null])
  // Unknown checkpoint: exit 1, EDIT_NOT_FOUND.
  const unknown = cli(root, state, ['undo', 'c0192f3a4b5c6000001a1b2'])
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /^EDIT_NOT_FOUND: /)
})
