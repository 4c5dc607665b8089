// Issue #16 item 7: a multi-file transaction is atomic across a crash. A child applies 3-file patches
// (3 updates and an add or a delete) in a loop and is SIGKILLed at a random instant, at least 100
// times; after each kill the next calls (three viewFile at once) recover the interrupted transaction, and the
// files must then all be at one generation: never half-applied, never torn, no temp or record left.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sp, workspace } from './helpers.mjs'

const WORKER = fileURLToPath(new URL('./fixtures/safety-txn-crash-worker.mjs', import.meta.url))
const KILLS = Number(process.env.SUREPATCH_KILLS || 100)
const FILLER = ('x'.repeat(99) + '\n').repeat(3000)

const body = (k) => `gen ${k}\n${FILLER}`
const genOf = (text) => Number(/^gen (\d+)\n/.exec(text)?.[1] ?? NaN)

test(`SIGKILL during multi-file commits, ${KILLS} times: after recovery never half-applied, never torn, no litter`, async (t) => {
  const ws = workspace(t)
  for (const f of ['a.txt', 'b.txt', 'c.txt']) ws.write(f, body(0))
  let halfBefore = 0
  let lastGen = 0
  let inFlight = 0
  for (let kill = 0; kill < KILLS; kill++) {
    const child = spawn(process.execPath, [WORKER, ws.root], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise((resolve) => child.stdout.once('data', resolve))
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60))
    child.kill('SIGKILL')
    await new Promise((resolve) => child.once('exit', resolve))
    // Before recovery: what the kill left.
    const gens = ['a.txt', 'b.txt', 'c.txt'].map((f) => genOf(readFileSync(ws.path(f), 'latin1')))
    if (new Set(gens).size > 1) halfBefore++
    if (existsSync(ws.path('.surepatch-txn'))) inFlight++
    // The next calls recover: three at once, one per file; each must see the recovered state.
    const views = await Promise.all(['a.txt', 'b.txt', 'c.txt'].map((f) => sp.viewFile(f, ws.opts({ start_line: 1, end_line: 1 }))))
    for (const v of views) assert.equal(v.ok, true, JSON.stringify(v))
    assert.equal(new Set(views.map((v) => v.content)).size, 1, `kill ${kill}: the views disagree: ${views.map((v) => v.content)}`)
    const texts = ['a.txt', 'b.txt', 'c.txt'].map((f) => readFileSync(ws.path(f), 'latin1'))
    const k = genOf(texts[0])
    for (const text of texts) assert.equal(text, body(k), `kill ${kill}: torn or half-applied (gens ${texts.map(genOf)})`)
    assert.ok(k >= lastGen, `kill ${kill}: went back from ${lastGen} to ${k}`)
    lastGen = k
    assert.equal(existsSync(ws.path('extra.txt')), k % 2 === 1, `kill ${kill}: extra.txt does not match gen ${k}`)
    if (k % 2 === 1) assert.equal(ws.text('extra.txt'), `extra ${k}\n`)
    const names = readdirSync(ws.root).sort()
    assert.deepEqual(names, k % 2 ? ['a.txt', 'b.txt', 'c.txt', 'extra.txt'] : ['a.txt', 'b.txt', 'c.txt'], `kill ${kill}: litter`)
  }
  t.diagnostic(
    `${KILLS} kills, ${lastGen} generations committed; ${inFlight} kills left a transaction record, ${halfBefore} left files half-applied before recovery; after recovery: 0 half-applied, 0 torn, no litter`,
  )
})

test('6 multi-file commits at once, 25 rounds: all applied, no record or temp file left', async (t) => {
  const ws = workspace(t)
  const W = 6
  const rounds = 25
  for (let w = 0; w < W; w++) for (const f of ['x', 'y']) ws.write(`${f}${w}.txt`, 'n 0\n')
  const one = (w, k) =>
    sp.applyPatch(`*** Begin Patch\n*** Update File: x${w}.txt\n@@\n-n ${k}\n+n ${k + 1}\n*** Update File: y${w}.txt\n@@\n-n ${k}\n+n ${k + 1}\n*** End Patch\n`, ws.opts())
  for (let k = 0; k < rounds; k++) {
    for (const r of await Promise.all(Array.from({ length: W }, (_, w) => one(w, k)))) assert.equal(r.ok, true, JSON.stringify(r))
  }
  for (let w = 0; w < W; w++) for (const f of ['x', 'y']) assert.equal(ws.text(`${f}${w}.txt`), `n ${rounds}\n`)
  assert.ok(!existsSync(ws.path('.surepatch-txn')), 'no record directory left')
  assert.equal(readdirSync(ws.root).length, 2 * W, 'no temp file left')
})
