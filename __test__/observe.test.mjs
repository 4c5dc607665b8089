// The fallback ladder, statistics and the event log, seen from Node. This file runs in its own process,
// so the process-wide counters only see the calls made here.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, existsSync } from 'node:fs'
import { sp, workspace } from './helpers.mjs'

const { patchFile, applyEdits, getStats, setEventLog, permissionScope } = sp

test('stats match the calls made, and reset', async (t) => {
  getStats({ reset: true })
  const w = workspace(t)
  w.write('s.txt', 'a\nb\nc\n')
  const log = w.path('events.jsonl')
  assert.deepEqual(setEventLog(log), { ok: true })
  const r1 = await patchFile({ file_path: 's.txt', search_block: 'zzz', replace_block: 'y' }, w.opts())
  assert.equal(r1.code, 'SEARCH_BLOCK_NOT_FOUND')
  const r2 = await patchFile({ file_path: 's.txt', search_block: 'b', replace_block: 'B' }, w.opts())
  assert.equal(r2.ok, true)
  const r3 = await applyEdits('s.txt', [['a\n', 'A\nA2\n'], ['c', 'C']], w.opts())
  assert.equal(r3.ok, true)
  const s = getStats()
  assert.equal(s.ok, true)
  assert.deepEqual({ ...s.ops.patch_file, p50_ms: 0, p95_ms: 0, max_ms: 0 }, { calls: 2, ok: 1, failed: 1, p50_ms: 0, p95_ms: 0, max_ms: 0 })
  assert.equal(s.ops.apply_edits.calls, 1)
  assert.ok(s.ops.patch_file.max_ms >= s.ops.patch_file.p50_ms)
  assert.deepEqual(s.failures_by_code, { SEARCH_BLOCK_NOT_FOUND: 1 })
  assert.deepEqual(s.successes_by_tier, { exact: 2 })
  assert.equal(s.retries_per_success, 0.5, 'one failure before the first success, none before the second')
  assert.equal(s.changed_lines_histogram['2-5'], 2)
  setEventLog(null)
  const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(lines.length, 3)
  assert.deepEqual(Object.keys(lines[0]).sort(), ['attempt', 'code', 'lines_changed', 'ms', 'ok', 'op', 'path', 'ts'])
  assert.deepEqual([lines[0].op, lines[0].path, lines[0].ok, lines[0].code, lines[0].attempt], ['patch_file', 's.txt', false, 'SEARCH_BLOCK_NOT_FOUND', 1])
  assert.deepEqual([lines[1].ok, lines[1].tier, lines[1].lines_changed], [true, 'exact', 2])
  assert.ok(!JSON.stringify(lines).includes('zzz'), 'the log never holds file content or edit text')
  const z = getStats({ reset: true })
  assert.equal(z.ops.patch_file.calls, 2)
  assert.deepEqual(getStats().ops, {})
  assert.equal(getStats({ reset: 'yes' }).code, 'INVALID_INPUT')
  assert.equal(setEventLog(5).code, 'INVALID_INPUT')
  assert.ok(!existsSync(w.path('nolog.jsonl')))
})

test('the ladder: three identical failures escalate and are flagged as repeats', async (t) => {
  const w = workspace(t)
  w.write('l.py', 'def f():\n    retries = 3\n    return retries\n')
  const bad = { file_path: 'l.py', search_block: '    retries = 2\n    return retries\n', replace_block: 'x' }
  const seen = []
  for (let i = 0; i < 3; i++) seen.push(await patchFile(bad, w.opts()))
  assert.deepEqual(seen.map((r) => [r.attempt, r.next_action, r.repeated]), [[1, 'reread', undefined], [2, 'use_line_edit', 1], [3, 'rewrite_file', 2]])
  assert.match(seen[0].hint, /lines 2-3/)
  assert.match(seen[2].message, /do not resend it unchanged/)
  assert.ok(getStats().stuck_loops_detected >= 2)
  // Viewing the file resets its ladder.
  assert.equal((await sp.viewFile('l.py', w.opts())).ok, true)
  const after = await patchFile(bad, w.opts())
  assert.deepEqual([after.attempt, after.next_action, after.repeated], [1, 'reread', undefined])
})

test('permissionScope lists paths and the common directory glob', async (t) => {
  const w = workspace(t)
  const r = await permissionScope(['src/ab.ts', 'src/abc/x.ts'], w.opts())
  assert.deepEqual(r, { ok: true, glob: 'src/**', paths: ['src/ab.ts', 'src/abc/x.ts'] })
  assert.equal((await permissionScope(['src/a.ts', 'lib/b.ts'], w.opts())).glob, '**')
  assert.equal((await permissionScope(['/etc/passwd'], w.opts())).code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal((await permissionScope(42, w.opts())).code, 'INVALID_INPUT')
  assert.deepEqual(w.files(), [])
})
