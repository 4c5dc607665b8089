// Issue #16 item 6: two processes sharing a journal_dir; undo by path walks back through the writes
// in the order they happened, whichever process undoes.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { sp, workspace } from './helpers.mjs'

const WORKER = fileURLToPath(new URL('./fixtures/safety-journal-worker.mjs', import.meta.url))

test('two processes edit one file with a shared journal_dir, then undo by path in turns: every step back, in order', async (t) => {
  const ws = workspace(t)
  ws.write('shared.txt', 'a-0\nb-0\n')
  const N = 12
  const o = ws.opts({ journal_dir: '.journal' })
  const child = spawn(process.execPath, [WORKER, ws.root, 'b', String(N)], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.after(() => child.kill())
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  // Both processes edit at once.
  for (let i = 0; i < N; i++) {
    const r = await sp.patchFile({ file_path: 'shared.txt', search_block: `a-${i}\n`, replace_block: `a-${i + 1}\n` }, o)
    assert.equal(r.ok, true, JSON.stringify(r))
  }
  assert.equal((await lines.next()).value, `edited ${N}`)
  assert.equal(ws.text('shared.txt'), `a-${N}\nb-${N}\n`)
  // Undo in turns: this process, the other, this one... each process holds in memory entries the
  // other may already have undone.
  const seen = new Set([ws.text('shared.txt')])
  for (let k = 0; k < 2 * N; k++) {
    let r
    if (k % 2 === 0) r = await sp.undoEdit({ file_path: 'shared.txt' }, o)
    else {
      child.stdin.write('undo\n')
      r = JSON.parse((await lines.next()).value)
    }
    assert.equal(r.ok, true, `undo ${k + 1} (${k % 2 ? 'other process' : 'this process'}): ${JSON.stringify(r)}`)
    const now = ws.text('shared.txt')
    assert.ok(!seen.has(now), `undo ${k + 1} went back to a state already seen: ${JSON.stringify(now)}`)
    seen.add(now)
  }
  assert.equal(ws.text('shared.txt'), 'a-0\nb-0\n')
  for (const r of [await sp.undoEdit({ file_path: 'shared.txt' }, o), (child.stdin.write('undo\n'), JSON.parse((await lines.next()).value))]) {
    assert.equal(r.code, 'EDIT_NOT_FOUND', JSON.stringify(r))
  }
  assert.equal(ws.text('shared.txt'), 'a-0\nb-0\n')
  child.stdin.end()
})
