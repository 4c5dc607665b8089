// R2: a process killed (SIGKILL) at any moment while writing leaves the target wholly old or wholly
// new, never torn; the temp file it may orphan is named recognisably and swept once older than 10
// minutes, by the next write in that directory (a process lists a directory for leftovers at most once
// per 10 minutes).
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { utimesSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { sp, workspace } from './helpers.mjs'

const WRITER = fileURLToPath(new URL('./fixtures/safety-crash-writer.mjs', import.meta.url))
const BODY = Buffer.from(Array.from({ length: 120_000 }, (_, i) => `body line ${String(i).padStart(6, '0')} ${'x'.repeat(52)}\n`).join(''))
const content = (k) => Buffer.concat([Buffer.from(`gen ${k}\n`), BODY, Buffer.from(`end ${k}\n`)])
const TEMP = /^\.big\.txt\.surepatch-[1-9]\d{0,9}-[0-9a-f]{16}\.tmp$/

function genOf(buf) {
  const m = /^gen (\d+)\n/.exec(buf.subarray(0, 32).toString('latin1'))
  return m ? Number(m[1]) : -1
}

async function killDuringWrites(w, delayMs) {
  const child = spawn(process.execPath, [WRITER, w.root, 'big.txt'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve)
    child.once('exit', (code) => reject(new Error(`writer exited early (${code}): ${err}`)))
  })
  await sleep(delayMs)
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal)))
  child.kill('SIGKILL')
  assert.equal(await exited, 'SIGKILL', err)
}

test('SIGKILL in a loop while writing an 8 MB file: never torn; orphaned temps swept when stale', async (t) => {
  const w = workspace(t)
  w.write('big.txt', content(0))
  const KILLS = 24
  let lastGen = 0
  let orphaned = 0
  for (let i = 0; i < KILLS || (orphaned === 0 && i < 60); i++) {
    await killDuringWrites(w, 40 + ((i * 37) % 260))
    const now = w.read('big.txt')
    const k = genOf(now)
    assert.ok(k >= lastGen, `generation went back from ${lastGen} to ${k}`)
    assert.ok(now.equals(content(k)), `kill ${i}: big.txt is not wholly generation ${k} (${now.length} bytes)`)
    lastGen = k
    orphaned = w.files().filter((f) => TEMP.test(f)).length
  }
  assert.ok(lastGen > 0, 'the writer made progress')
  const orphans = w.files().filter((f) => TEMP.test(f))
  t.diagnostic(`${KILLS}+ kills, ${lastGen} generations written, 0 torn files, ${orphans.length} orphaned temp file(s) left by kills`)
  assert.deepEqual(w.files().filter((f) => f !== 'big.txt' && !TEMP.test(f)), [], 'nothing but the target and our temps')

  // A young orphan (another writer may still be using it) is kept; a stale one, for any target, is
  // swept by the next write in the directory (the first this process makes there); look-alikes are
  // never touched: only the exact shape of our names (16 lowercase hex digits) is ours, so a user's
  // `.notes.surepatch-2024-01.tmp` stays.
  const young = '.big.txt.surepatch-1-00000000000000ff.tmp'
  const decoys = [
    '.big.txt.surepatch-x1-00000000000000ff.tmp', '.big.txt.surepatch-1-zz.tmp', 'big.txt.surepatch-1-00000000000000ff.tmp',
    '.other.txt.surepatch-1.tmp', '.notes.surepatch-2024-01.tmp', '.big.txt.surepatch-99999-abcdef.tmp',
    '.big.txt.surepatch-1-00000000000000FF.tmp',
  ]
  const staleSynthetic = ['.big.txt.surepatch-99999-00000000deadbeef.tmp', '.other.txt.surepatch-1-00000000000000ff.tmp']
  for (const f of [young, ...staleSynthetic, ...decoys]) writeFileSync(w.path(f), 'leftover')
  const old = new Date(Date.now() - 11 * 60 * 1000)
  for (const f of [...orphans, ...staleSynthetic, ...decoys]) utimesSync(w.path(f), old, old)

  const k = genOf(w.read('big.txt'))
  const r = await sp.applyEdits('big.txt', [[`gen ${k}\n`, `gen ${k + 1}\n`], [`end ${k}\n`, `end ${k + 1}\n`]], w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.ok(w.read('big.txt').equals(content(k + 1)))
  assert.deepEqual(w.files(), ['big.txt', young, ...decoys].sort(), 'stale temps swept, the young one and look-alikes kept')
})
