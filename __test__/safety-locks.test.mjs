// Issue #16 item 2: locks never deadlock and never wait without bound. Lock holders outside the
// process are `flock(1)` (util-linux), which takes the same advisory lock surepatch takes.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const hasFlock = process.platform === 'linux' && spawnSync('flock', ['--version']).status === 0
const skip = hasFlock ? false : `${process.platform}: needs flock(1) from util-linux (Linux only) to hold a lock from another process`

// Holds an exclusive flock on `path` (a file or directory) until the returned function is called. The
// shell opens the path, locks it and execs sleep: the lock dies with that one process.
async function holdLock(t, path) {
  const child = spawn('sh', ['-c', 'exec 9<"$1"; flock -x 9; echo locked; exec sleep 60', 'holder', path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const release = () => child.kill('SIGKILL')
  t.after(release)
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve)
    child.once('exit', () => reject(new Error('the lock holder exited early')))
  })
  return release
}

test('T1 = {Add d/a, Update d/b} and T2 = {Update d/b, Add d/c} in parallel never deadlock', async (t) => {
  const ws = workspace(t)
  mkdirSync(ws.path('d'))
  // 4 calls at once (libuv's pool size), 2 shaped like T1 and 2 like T2, each editing its own line of
  // d/b.txt; the file is large so that reading it under its lock widens the window.
  const filler = 'z'.repeat(99) + '\n'
  ws.write('d/b.txt', '0-0\n1-0\n2-0\n3-0\n' + filler.repeat(40000))
  const rounds = 40
  const started = Date.now()
  const codes = {}
  for (let n = 0; n < rounds; n++) {
    const calls = [0, 1, 2, 3].map((k) => {
      const add = `*** Add File: d/${k % 2 ? 'c' : 'a'}-${k}-${n}.txt\n+new\n`
      const update = `*** Update File: d/b.txt\n@@\n-${k}-${n}\n+${k}-${n + 1}\n`
      const body = k % 2 ? update + add : add + update
      return sp.applyPatch(`*** Begin Patch\n${body}*** End Patch\n`, ws.opts({ lock_timeout_ms: 5000 }))
    })
    for (const r of await Promise.all(calls)) {
      codes[r.ok ? 'ok' : r.code] = (codes[r.ok ? 'ok' : r.code] || 0) + 1
      assert.equal(r.ok, true, JSON.stringify(r))
    }
  }
  assert.ok(ws.text('d/b.txt').startsWith(`0-${rounds}\n1-${rounds}\n2-${rounds}\n3-${rounds}\n`))
  for (let n = 0; n < rounds; n++) {
    for (const k of [0, 1, 2, 3]) assert.equal(readFileSync(ws.path(`d/${k % 2 ? 'c' : 'a'}-${k}-${n}.txt`), 'utf8'), 'new\n')
  }
  t.diagnostic(`${rounds} rounds of 2 × T1 ∥ 2 × T2 in ${Date.now() - started} ms: ${JSON.stringify(codes)}`)
})

test('a file locked by another process: LOCK_TIMEOUT after lock_timeout_ms, retryable, bytes unchanged', { skip }, async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'one\n')
  const view = await sp.viewFile('a.txt', ws.opts({ format: 'hashline' }))
  assert.equal(view.ok, true, JSON.stringify(view))
  const anchor = view.content.split('\n')[0].split('|')[0]
  const release = await holdLock(t, ws.path('a.txt'))
  const started = Date.now()
  const r = await sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, ws.opts({ lock_timeout_ms: 300 }))
  const waited = Date.now() - started
  assert.equal(r.ok, false)
  assert.equal(r.code, 'LOCK_TIMEOUT', JSON.stringify(r))
  assert.equal(r.next_action, 'retry')
  assert.equal(r.lock_timeout_ms, 300)
  assert.ok(waited >= 290 && waited < 5000, `waited ${waited} ms`)
  assert.equal(ws.text('a.txt'), 'one\n')
  assert.deepEqual(ws.files(), ['a.txt'])
  // camelCase spelling, and every writing entry point honours it.
  for (const call of [
    () => sp.writeFile('a.txt', 'x\n', ws.opts({ lockTimeoutMs: 50 })),
    () => sp.deleteFile('a.txt', ws.opts({ lock_timeout_ms: 50 })),
    () => sp.editLines('a.txt', [{ op: 'replace', start: anchor, lines: ['x'] }], ws.opts({ lock_timeout_ms: 50 })),
    () => sp.applyEdits('a.txt', [['one', 'x']], ws.opts({ lock_timeout_ms: 50 })),
    () => sp.applyPatch('*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n', ws.opts({ lock_timeout_ms: 50 })),
    () => sp.viewFile('a.txt', ws.opts({ lock_timeout_ms: 50 })),
  ]) {
    const r = await call()
    assert.equal(r.code, 'LOCK_TIMEOUT', JSON.stringify(r))
    assert.equal(ws.text('a.txt'), 'one\n')
  }
  const bad = await sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, ws.opts({ lock_timeout_ms: -1 }))
  assert.equal(bad.code, 'INVALID_INPUT')
  release()
  const ok = await sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, ws.opts({ lock_timeout_ms: 5000 }))
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(ws.text('a.txt'), 'two\n')
})

test('a directory locked by another process: creating a file in it times out, nothing created', { skip }, async (t) => {
  const ws = workspace(t)
  mkdirSync(ws.path('d'))
  await holdLock(t, ws.path('d'))
  for (const p of ['d/new.txt', 'd/deeper/new.txt']) {
    const r = await sp.createFile(p, 'x\n', ws.opts({ lock_timeout_ms: 100 }))
    assert.equal(r.code, 'LOCK_TIMEOUT', JSON.stringify(r))
  }
  assert.ok(!existsSync(ws.path('d/new.txt')))
  assert.ok(!existsSync(ws.path('d/deeper')))
})

test('lock waits are bounded, so fs calls of the process are stalled at most lock_timeout_ms', { skip }, async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'one\n')
  writeFileSync(ws.path('other.txt'), 'other\n')
  await holdLock(t, ws.path('a.txt'))
  const limit = 1000
  // 4 blocked calls: as many as libuv's default pool has threads.
  const blocked = Array.from({ length: 4 }, () =>
    sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, ws.opts({ lock_timeout_ms: limit })),
  )
  await new Promise((r) => setTimeout(r, 50))
  const started = Date.now()
  assert.equal(await readFile(ws.path('other.txt'), 'utf8'), 'other\n')
  const stall = Date.now() - started
  const results = await Promise.all(blocked)
  for (const r of results) assert.equal(r.code, 'LOCK_TIMEOUT')
  assert.ok(stall < limit + 2000, `fs.readFile stalled ${stall} ms`)
  assert.equal(ws.text('a.txt'), 'one\n')
  t.diagnostic(`4 calls waiting on a held lock (lock_timeout_ms ${limit}): fs.readFile took ${stall} ms`)
})

test('lock waits happen off the thread pool: fs calls of the process are not stalled while calls wait', { skip }, async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'one\n')
  writeFileSync(ws.path('other.txt'), 'other\n')
  await holdLock(t, ws.path('a.txt'))
  // 8 calls waiting (twice libuv's default pool) with the default 10 s bound, while fs reads run.
  const blocked = Array.from({ length: 8 }, () =>
    sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, ws.opts({ lock_timeout_ms: 2500 })),
  )
  await new Promise((r) => setTimeout(r, 100))
  const stalls = []
  for (let i = 0; i < 10; i++) {
    const started = Date.now()
    assert.equal(await readFile(ws.path('other.txt'), 'utf8'), 'other\n')
    stalls.push(Date.now() - started)
  }
  const results = await Promise.all(blocked)
  for (const r of results) {
    assert.equal(r.code, 'LOCK_TIMEOUT')
    assert.match(r.message, /gave up after 2500 ms/)
  }
  assert.equal(ws.text('a.txt'), 'one\n')
  const worst = Math.max(...stalls)
  assert.ok(worst < 1000, `fs.readFile stalled ${worst} ms`)
  t.diagnostic(`8 calls waiting on a held lock: 10 fs.readFile calls, worst ${worst} ms, median ${stalls.sort((a, b) => a - b)[5]} ms`)
})
