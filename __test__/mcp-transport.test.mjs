// The MCP server survives any message: large requests up to --max-message-bytes are served, longer ones
// and non-JSON lines are answered with a JSON-RPC error and skipped, and every exit says why on stderr.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, populate, stdio, tempDir } from './mcp-helpers.mjs'
import { DEFAULT_MAX_MESSAGE_BYTES } from '../mcp/transport.mjs'

const MB = 1024 * 1024

test('an 11 MB write_file is served (the SDK transport died at 10 MB), byte-exact', async (t) => {
  const root = tempDir(t)
  // The answer carries the diff (the whole new file) twice: let the client read it.
  const c = await stdio(t, { args: ['--root', root], maxBufferSize: 64 * MB })
  const content = 'line of text\n'.repeat(Math.ceil((11 * MB) / 13))
  const r = await c.call('write_file', { file_path: 'big.txt', content })
  assert.equal(r.structuredContent.ok, true, r.structuredContent.message)
  assert.ok(readFileSync(join(root, 'big.txt')).equals(Buffer.from(content)))
  const view = await c.call('view_file', { file_path: 'big.txt', start_line: 1, end_line: 1 })
  assert.equal(view.structuredContent.content, 'line of text\n')
  assert.ok(DEFAULT_MAX_MESSAGE_BYTES >= 256 * MB * 1.5, 'a 256 MiB file fits, JSON-escaped')
})

test('a message above --max-message-bytes gets a clear error to its id; the server keeps serving', async (t) => {
  const root = populate(tempDir(t), { 'keep.txt': 'keep\n' })
  const c = await stdio(t, { args: ['--root', root, '--max-message-bytes', String(MB)] })
  await assert.rejects(c.call('write_file', { file_path: 'keep.txt', content: 'x'.repeat(2 * MB) }), (e) => {
    assert.equal(e.code, -32600)
    assert.match(e.message, /request of \d+ bytes is above this server's limit of 1048576 bytes per message \(surepatch --max-message-bytes\); it was not read and nothing was written/)
    return true
  })
  assert.equal(readFileSync(join(root, 'keep.txt'), 'utf8'), 'keep\n')
  // Just below the limit: served.
  const ok = await c.call('write_file', { file_path: 'keep.txt', content: 'y'.repeat(MB - 4096) })
  assert.equal(ok.structuredContent.ok, true, ok.structuredContent.message)
  assert.match(c.stderr(), /refused a message of \d+ bytes \(limit 1048576, id \d+\)/)
})

// The server as a child process with raw stdin/stdout, for what the SDK client never sends.
function raw(t, args) {
  const p = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  p.stdout.on('data', (d) => (out += d))
  p.stderr.on('data', (d) => (err += d))
  const exited = new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal })))
  t.after(() => p.kill('SIGKILL'))
  const until = async (pred, what) => {
    const end = Date.now() + 20_000
    while (!pred()) {
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}; stdout: ${out}; stderr: ${err}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return { p, exited, out: () => out, err: () => err, until }
}

const request = (id, method, params = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n'
const INIT = request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } })

test('a line that is not JSON-RPC gets a parse error; the next request is served', async (t) => {
  const root = tempDir(t)
  const s = raw(t, ['--root', root])
  s.p.stdin.write('this is not json\n')
  s.p.stdin.write('{"jsonrpc":"2.0","id":')
  s.p.stdin.write('7,"method":42}\n')
  s.p.stdin.write(INIT)
  await s.until(() => s.out().includes('"id":1'), 'the initialize answer')
  const lines = s.out().trim().split('\n').map((l) => JSON.parse(l))
  assert.deepEqual(lines[0], { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the line is not a JSON-RPC 2.0 message (one JSON object per line); it was ignored and nothing was written.' } })
  assert.equal(lines[1].error.code, -32700)
  assert.equal(lines[2].id, 1)
  assert.ok(lines[2].result.serverInfo)
  s.p.stdin.end()
  assert.deepEqual(await s.exited, { code: 0, signal: null })
  assert.match(s.err(), /surepatch: stdin ended \(the client closed the connection\)/)
  assert.match(s.err(), /surepatch: exiting with code 0: stdin ended/)
})

test('an oversized message split across many chunks, then a normal one: error to its id, then served', async (t) => {
  const root = tempDir(t)
  const s = raw(t, ['--root', root, '--max-message-bytes', '2048'])
  s.p.stdin.write(INIT)
  const big = JSON.stringify({ method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'x.txt', content: 'z'.repeat(100_000) } }, jsonrpc: '2.0', id: 'big-1' }) + '\n'
  for (let i = 0; i < big.length; i += 777) s.p.stdin.write(big.slice(i, i + 777))
  s.p.stdin.write(request(3, 'ping'))
  await s.until(() => s.out().includes('"id":3'), 'the ping answer')
  const lines = s.out().trim().split('\n').map((l) => JSON.parse(l))
  const refused = lines.find((l) => l.id === 'big-1')
  assert.equal(refused.error.code, -32600)
  assert.deepEqual(refused.error.data, { received_bytes: big.length - 1, max_message_bytes: 2048 })
  assert.deepEqual(lines.find((l) => l.id === 3).result, {})
  assert.equal(existsSync(join(root, 'x.txt')), false)
})

test('signals and uncaught errors are logged with the reason before exiting', async (t) => {
  const root = tempDir(t)
  const s = raw(t, ['--root', root])
  await s.until(() => /serving \d+ tools/.test(s.err()), 'the start line')
  s.p.kill('SIGTERM')
  if (process.platform === 'win32') {
    // Windows has no signal a process can catch: kill() terminates it at once, so there is no log line
    // and Node reports the signal it was asked to send.
    assert.deepEqual(await s.exited, { code: null, signal: 'SIGTERM' })
    assert.doesNotMatch(s.err(), /exiting with code/)
  } else {
    assert.deepEqual(await s.exited, { code: 143, signal: null })
    assert.match(s.err(), /surepatch: exiting with code 143: received SIGTERM/)
  }
  const bad = raw(t, ['--root', root, '--max-message-bytes', '12'])
  assert.equal((await bad.exited).code, 2)
  assert.match(bad.err(), /--max-message-bytes must be a whole number from 1024/)
})
