// A panic inside the engine becomes INTERNAL_ERROR, and neither that message nor stderr ever carries
// the data the panic was about (a slicing panic quotes the whole string it sliced: file content).
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { REPO } from './mcp-helpers.mjs'
import { sp } from './helpers.mjs'

const SECRET = 'é SECRET-FILE-CONTENT-7f3a\nline two of the secret'

test('a panic answers INTERNAL_ERROR without the payload, on stderr too; the next call works', () => {
  const script = `
const sp = require(${JSON.stringify(join(REPO, 'index.js'))})
;(async () => {
  const a = await sp._callAsync('__test_panic', ['text'], [${JSON.stringify(SECRET)}])
  const s = sp._callSync('__test_panic', ['text'], [${JSON.stringify(SECRET)}])
  const after = sp.errorCodes().length > 0
  process.stdout.write(JSON.stringify({ a, s, after }))
})()`
  const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, SUREPATCH_TEST_HOOKS: '1' }, encoding: 'utf8', timeout: 30_000 })
  assert.equal(r.status, 0, r.stderr)
  const { a, s, after } = JSON.parse(r.stdout)
  for (const x of [a, s]) {
    assert.equal(x.code, 'INTERNAL_ERROR', JSON.stringify(x))
    assert.match(x.message, /^internal error in surepatch \(panic at src\/api\/panics\.rs:\d+: (end )?byte index 1 is not a char boundary; it is inside '…' \(bytes 0\.\.2\) of `…`\); nothing was written/)
    assert.ok(!JSON.stringify(x).includes('SECRET') && !JSON.stringify(x).includes('é'), JSON.stringify(x))
  }
  assert.equal(after, true, 'the engine keeps answering after a panic')
  const lines = r.stderr.split('\n').filter(Boolean)
  assert.equal(lines.length, 2, r.stderr)
  for (const l of lines) assert.match(l, /^surepatch: internal error \(panic at src\/api\/panics\.rs:\d+\): (end )?byte index 1 is not a char boundary/)
  assert.ok(!r.stderr.includes('SECRET') && !r.stderr.includes('é'), r.stderr)
})

test('the panic test hook answers nothing unless SUREPATCH_TEST_HOOKS=1', async () => {
  if (process.env.SUREPATCH_TEST_HOOKS === '1') return
  const r = await sp._callAsync('__test_panic', ['text'], [SECRET])
  assert.equal(r.code, 'INVALID_INPUT')
})
