// R1: concurrent edits to one file never lose an update. Every call is either applied or cleanly
// refused (a stable code, file untouched by that call), and the final file holds every applied edit.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { sp, workspace } from './helpers.mjs'

const run = promisify(execFile)
const WORKER = fileURLToPath(new URL('./fixtures/safety-counter-worker.mjs', import.meta.url))
// ALREADY_APPLIED: another writer made the same edit first, so the file already reads as its result.
const CLEAN_REFUSALS = new Set(['SEARCH_BLOCK_NOT_FOUND', 'STALE_FILE', 'ALREADY_APPLIED'])

test('one process: 100 parallel edits to one file, 100/100 applied, 0 lost', async (t) => {
  const w = workspace(t)
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i}: pending\n`)
  w.write('shared.txt', lines.join(''))
  const results = await Promise.all(
    lines.map((_, i) => sp.patchFile({ file_path: 'shared.txt', search_block: `line ${i}: pending`, replace_block: `line ${i}: done` }, w.opts())),
  )
  const applied = results.filter((r) => r.ok).length
  assert.equal(applied, 100, JSON.stringify(results.filter((r) => !r.ok).slice(0, 3)))
  assert.equal(w.text('shared.txt'), lines.map((l) => l.replace('pending', 'done')).join(''))
  assert.deepEqual(w.files(), ['shared.txt'], 'no temp or lock files left')
  t.diagnostic('100 parallel edits: 100/100 applied, 0 lost')
})

test('one process: 100 parallel racing increments; applied ones all count, the rest are refused cleanly', async (t) => {
  const w = workspace(t)
  w.write('counter.txt', 'head\ncount = 0\ntail\n')
  // Every call reads the same value, so exactly one can apply; all 100 race for the lock.
  const racing = await Promise.all(
    Array.from({ length: 100 }, () => sp.patchFile({ file_path: 'counter.txt', search_block: 'count = 0\n', replace_block: 'count = 1\n' }, w.opts())),
  )
  assert.equal(racing.filter((r) => r.ok).length, 1)
  // The other 99 meet the file the winner left, which already reads as their (identical) edit's result.
  for (const r of racing.filter((r) => !r.ok)) assert.equal(r.code, 'ALREADY_APPLIED')
  assert.equal(w.text('counter.txt'), 'head\ncount = 1\ntail\n')

  // 100 tasks that each retry until their increment lands: the counter ends at exactly 101.
  let refused = 0
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      for (;;) {
        const cur = Number(/count = (\d+)/.exec(w.text('counter.txt'))[1])
        const r = await sp.patchFile({ file_path: 'counter.txt', search_block: `count = ${cur}\n`, replace_block: `count = ${cur + 1}\n` }, w.opts())
        if (r.ok) return
        assert.ok(CLEAN_REFUSALS.has(r.code), r.code)
        refused++
      }
    }),
  )
  assert.equal(w.text('counter.txt'), 'head\ncount = 101\ntail\n')
  assert.deepEqual(w.files(), ['counter.txt'])
  t.diagnostic(`100 retrying increments: 100/100 applied, ${refused} clean refusals on the way, 0 lost`)
})

test('4 processes × 50 edits to one file: 200/200 applied, 0 lost', async (t) => {
  const w = workspace(t)
  const WORKERS = 4
  const N = 50
  let body = 'count = 0\n'
  for (let k = 0; k < WORKERS; k++) for (let i = 0; i < N; i++) body += `w${k} line ${i}: pending\n`
  w.write('shared.txt', body)
  const outs = await Promise.all(
    Array.from({ length: WORKERS }, (_, k) => run(process.execPath, [WORKER, w.root, 'shared.txt', String(k), String(N)], { timeout: 120_000 })),
  )
  const reports = outs.map((o) => JSON.parse(o.stdout))
  const text = w.text('shared.txt')
  let refusals = 0
  for (const r of reports) {
    assert.equal(r.applied, N, `worker ${r.worker} increments`)
    assert.equal(r.ownApplied, N, `worker ${r.worker} own lines: ${JSON.stringify(r.ownRefused)}`)
    for (const [code, n] of Object.entries(r.refusals)) {
      assert.ok(CLEAN_REFUSALS.has(code), code)
      refusals += n
    }
  }
  // Increments: every applied one is in the file. Own lines: every one is done.
  assert.match(text, new RegExp(`^count = ${WORKERS * N}$`, 'm'))
  assert.doesNotMatch(text, /pending/)
  assert.equal(text.split('\n').length, 1 + WORKERS * N + 1)
  assert.deepEqual(w.files(), ['shared.txt'], 'no temp or lock files left')
  t.diagnostic(`4 processes × 50 increments: ${WORKERS * N}/${WORKERS * N} applied, ${refusals} clean refusals retried, 0 lost; 4 × 50 parallel line edits: 200/200 applied`)
})
