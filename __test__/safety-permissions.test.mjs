// Issue #16 item 4: replacing a file by rename must not bypass the file's own permission, and a
// replacement keeps the file's mode, owner and group.
//
// The rule: an existing file is changed (edited, rewritten, moved or deleted) only if it is not
// read-only (some write bit set) and the kernel grants this process write access to it
// (faccessat(W_OK, AT_EACCESS)). Root passes the kernel test for every file, as it could open any file
// for writing, so root is refused only for read-only files (0444 and the like).
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sp, workspace } from './helpers.mjs'

const WORKER = fileURLToPath(new URL('./fixtures/safety-perm-worker.mjs', import.meta.url))
const isRoot = process.getuid?.() === 0
const NOBODY = 65534
const canDrop = isRoot && spawnSync('setpriv', ['--version']).status === 0
// The worker runs as nobody, so nobody must be able to read it and the package it loads (a checkout
// inside a 0700 directory, as `mktemp -d` makes, is not).
const LIB = fileURLToPath(new URL('../index.js', import.meta.url))
const readableByNobody =
  canDrop &&
  [WORKER, LIB].every(
    (f) => spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'test', '-r', f]).status === 0,
  )
const dropSkip = process.platform === 'win32'
  ? 'Windows: no uid to drop to'
  : !canDrop
    ? `${process.platform}: needs root and setpriv(1) (Linux util-linux) to run a worker as nobody`
    : !readableByNobody
      ? `${process.platform}: the checkout is not readable by uid ${NOBODY} (it lies inside a directory only its owner may enter), so a worker cannot run as nobody`
      : false

const mode = (p) => statSync(p).mode & 0o7777
// Windows has no mode bits, only the read-only attribute: chmod sets it when the owner's write bit is
// clear, and Node reports a read-only file as 0o444 and any other as 0o666.
const win = process.platform === 'win32'

test('a read-only file (0444; the read-only attribute on Windows) is refused with PERMISSION_DENIED by every writing entry point, even for root', async (t) => {
  const ws = workspace(t)
  ws.write('ro.txt', 'keep me\n')
  chmodSync(ws.path('ro.txt'), 0o444)
  const view = await sp.viewFile('ro.txt', ws.opts({ format: 'hashline' }))
  const anchor = view.content.split('|')[0]
  const calls = {
    patchFile: () => sp.patchFile({ file_path: 'ro.txt', search_block: 'keep', replace_block: 'lose' }, ws.opts()),
    applyEdits: () => sp.applyEdits('ro.txt', [['keep', 'lose']], ws.opts()),
    editLines: () => sp.editLines('ro.txt', [{ op: 'replace', start: anchor, lines: ['lose'] }], ws.opts()),
    writeFile: () => sp.writeFile('ro.txt', 'lose\n', ws.opts()),
    createFile: () => sp.createFile('ro.txt', 'lose\n', ws.opts({ overwrite: true })),
    deleteFile: () => sp.deleteFile('ro.txt', ws.opts()),
    applyPatch: () => sp.applyPatch('*** Begin Patch\n*** Update File: ro.txt\n@@\n-keep me\n+lose\n*** End Patch\n', ws.opts()),
    move: () => sp.applyPatch('*** Begin Patch\n*** Update File: ro.txt\n*** Move to: moved.txt\n*** End Patch\n', ws.opts()),
    applyUnifiedDiff: () => sp.applyUnifiedDiff('--- a/ro.txt\n+++ b/ro.txt\n@@ -1 +1 @@\n-keep me\n+lose\n', ws.opts()),
  }
  for (const [name, call] of Object.entries(calls)) {
    const r = await call()
    assert.equal(r.code, 'PERMISSION_DENIED', `${name}: ${JSON.stringify(r)}`)
    assert.equal(ws.text('ro.txt'), 'keep me\n', name)
    assert.equal(mode(ws.path('ro.txt')), 0o444, name)
    assert.deepEqual(ws.files(), ['ro.txt'], name)
  }
  // A multi-file patch touching it writes nothing at all.
  ws.write('w.txt', 'free\n')
  const r = await sp.applyPatch('*** Begin Patch\n*** Update File: w.txt\n@@\n-free\n+changed\n*** Update File: ro.txt\n@@\n-keep me\n+lose\n*** End Patch\n', ws.opts())
  assert.equal(r.code, 'PERMISSION_DENIED', JSON.stringify(r))
  assert.equal(ws.text('w.txt'), 'free\n')
  // Dry runs only read: allowed.
  const dry = await sp.patchFile({ file_path: 'ro.txt', search_block: 'keep', replace_block: 'lose' }, ws.opts({ dry_run: true }))
  assert.equal(dry.ok, true, JSON.stringify(dry))
  // Made writable, the edit goes through and keeps the new mode.
  chmodSync(ws.path('ro.txt'), 0o640)
  const ok = await sp.patchFile({ file_path: 'ro.txt', search_block: 'keep', replace_block: 'lose' }, ws.opts())
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(mode(ws.path('ro.txt')), win ? 0o666 : 0o640)
})

test('a replacement keeps the mode, owner and group of the file (root may set them)', { skip: !isRoot && (win ? 'Windows: no owner, group or mode bits to keep' : `${process.platform}: needs root to give a file away (not root here)`) }, async (t) => {
  const ws = workspace(t)
  ws.write('theirs.txt', 'root\n')
  chownSync(ws.path('theirs.txt'), NOBODY, NOBODY)
  chmodSync(ws.path('theirs.txt'), 0o664)
  const r = await sp.patchFile({ file_path: 'theirs.txt', search_block: 'root', replace_block: 'edited' }, ws.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  const st = statSync(ws.path('theirs.txt'))
  assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [NOBODY, NOBODY, 0o664])
  assert.equal(ws.text('theirs.txt'), 'edited\n')
})

test("another user's file without write permission for us: PERMISSION_DENIED, owner and bytes unchanged", { skip: dropSkip }, async (t) => {
  const ws = workspace(t)
  // A directory the worker may write in (so a rename would succeed), holding root's 0644 file.
  chmodSync(ws.root, 0o777)
  const asNobody = (op, path) =>
    JSON.parse(
      execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, WORKER, ws.root, op, path], {
        encoding: 'utf8',
      }),
    )
  for (const op of ['patch', 'write', 'create', 'delete', 'move']) {
    ws.write('roots.txt', 'root\n')
    chmodSync(ws.path('roots.txt'), 0o644)
    const r = asNobody(op, 'roots.txt')
    assert.equal(r.code, 'PERMISSION_DENIED', `${op}: ${JSON.stringify(r)}`)
    const st = statSync(ws.path('roots.txt'))
    assert.deepEqual([st.uid, st.mode & 0o7777], [0, 0o644], op)
    assert.equal(ws.text('roots.txt'), 'root\n', op)
    assert.ok(!existsSync(ws.path('moved.txt')))
    assert.deepEqual(ws.files(), ['roots.txt'], op)
  }
  // Group-writable for the worker's group: allowed, and the file stays root's (no chown for nobody:
  // the new inode is the worker's; the group is kept where the worker may set it).
  ws.write('shared.txt', 'root\n')
  chownSync(ws.path('shared.txt'), 0, NOBODY)
  chmodSync(ws.path('shared.txt'), 0o664)
  const ok = JSON.parse(
    execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, `--groups=${NOBODY}`, process.execPath, WORKER, ws.root, 'patch', 'shared.txt'], { encoding: 'utf8' }),
  )
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(ws.text('shared.txt'), 'PWNED\n')
  const st = statSync(ws.path('shared.txt'))
  assert.deepEqual([st.gid, st.mode & 0o7777], [NOBODY, 0o664])
})
