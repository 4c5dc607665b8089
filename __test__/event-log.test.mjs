// The event log never blocks and never names something other than a regular file: setEventLog refuses
// a FIFO, directory or device; SUREPATCH_LOG naming one (or a FIFO swapped in later) leaves every call
// working, and the failure is reported once on stderr.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO } from './mcp-helpers.mjs'
import { sp, workspace } from './helpers.mjs'

const mkfifo = (p) => execFileSync('mkfifo', [p])
const unix = process.platform !== 'win32'

test('setEventLog refuses a FIFO, a directory and a device with INVALID_INPUT; calls keep working', { skip: !unix && 'Windows: no FIFOs (mkfifo) and no /dev/null in the file system' }, async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\n')
  mkfifo(w.path('fifo'))
  mkdirSync(w.path('dir'))
  for (const p of [w.path('fifo'), w.path('dir'), '/dev/null']) {
    const r = sp.setEventLog(p)
    assert.equal(r.code, 'INVALID_INPUT', p)
    assert.match(r.message, /is not a regular file/)
  }
  // The refused log was not installed: a call completes, and the file is edited as asked.
  const r = await sp.patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: 'beta' }, w.opts())
  assert.equal(r.ok, true, r.message)
  assert.equal(w.text('a.txt'), 'beta\n')
  // A regular file is accepted, and gets one line per call.
  assert.deepEqual(sp.setEventLog(w.path('log.jsonl')), { ok: true })
  await sp.viewFile('a.txt', w.opts())
  sp.setEventLog(null)
  assert.equal(readFileSync(w.path('log.jsonl'), 'utf8').trim().split('\n').length, 1)
})

// Runs `script` (ESM, with `sp` and `root` defined) in a child process with `env`, bounded in time.
function child(root, script, env) {
  const code = `import { createRequire } from 'node:module'\nconst sp = createRequire(${JSON.stringify(join(REPO, 'x.js'))})('./index.js')\nconst root = ${JSON.stringify(root)}\n${script}`
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 })
}

const CALLS = `
const out = []
for (let i = 0; i < 3; i++) {
  const r = await sp.applyEdits('a.txt', [{ old: 'n' + i, new: 'n' + (i + 1) }], { workspace_root: root })
  out.push(r.ok ? 'ok' : r.code)
}
process.stdout.write(JSON.stringify(out))
`

test('SUREPATCH_LOG naming a FIFO: calls neither hang nor fail, one stderr report', { skip: !unix && 'Windows: no FIFOs (mkfifo) and no /dev/null in the file system' }, (t) => {
  const w = workspace(t)
  w.write('a.txt', 'n0\n')
  mkfifo(w.path('fifo'))
  const r = child(w.root, CALLS, { SUREPATCH_LOG: w.path('fifo') })
  assert.equal(r.error, undefined, `the child hung or failed: ${r.error}`)
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout), ['ok', 'ok', 'ok'])
  assert.equal(w.text('a.txt'), 'n3\n')
  const reports = r.stderr.split('\n').filter((l) => l.includes('event log'))
  assert.equal(reports.length, 1, r.stderr)
  assert.match(reports[0], /^surepatch: event log ".*fifo": (cannot be opened|is not a regular file)/)
})

test('a FIFO swapped in for the log file after setEventLog: calls neither hang nor fail', { skip: !unix && 'Windows: no FIFOs (mkfifo) and no /dev/null in the file system' }, (t) => {
  const w = workspace(t)
  w.write('a.txt', 'n0\n')
  const log = w.path('log.jsonl')
  writeFileSync(log, '')
  const script = `
const { rmSync } = await import('node:fs')
const { execFileSync } = await import('node:child_process')
if (sp.setEventLog(${JSON.stringify(log)}).ok !== true) throw new Error('setEventLog refused a regular file')
rmSync(${JSON.stringify(log)})
execFileSync('mkfifo', [${JSON.stringify(log)}])
${CALLS}`
  const r = child(w.root, script, {})
  assert.equal(r.error, undefined, `the child hung or failed: ${r.error}`)
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout), ['ok', 'ok', 'ok'])
  assert.equal(w.text('a.txt'), 'n3\n')
  assert.equal(r.stderr.split('\n').filter((l) => l.includes('event log')).length, 1, r.stderr)
  rmSync(log)
})
