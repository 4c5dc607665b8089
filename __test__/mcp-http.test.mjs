// The MCP server over Streamable HTTP (--http), on 127.0.0.1 only: the SDK client with the bearer token,
// requests without it or with a wrong one (401, nothing written), the DNS-rebinding check (403), and
// sessions isolated (read-before-edit state per client). Every wait is bounded.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, INIT, TOKEN, httpClient, populate, post, startHttpServer, stderrMatches, tempDir } from './mcp-helpers.mjs'

test('--http: the SDK client with the bearer token lists the tools and edits a file', async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\ntwo\n' })
  const s = await startHttpServer(t, { root })
  assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
  const c = await httpClient(t, s.url, TOKEN)
  const r = await c.call('patch_file', { file_path: 'a.txt', search_block: 'two', replace_block: 'TWO' })
  assert.equal(r.structuredContent.ok, true, r.content[0].text)
  assert.match(r.content[0].text, /^a\.txt: changed \+1 −1/)
  assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'one\nTWO\n')
  assert.equal(s.stdout(), '', 'nothing on stdout in HTTP mode')
  assert.ok(!s.stderr().includes(TOKEN), 'a token from the environment is never printed')
})

test('--http: no token, a wrong token, or a foreign Host header is refused; nothing is written', async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await startHttpServer(t, { root })
  const none = await post(s.url, { body: INIT })
  assert.equal(none.status, 401)
  assert.match(none.headers['www-authenticate'], /^Bearer/)
  assert.match(JSON.parse(none.body).error.message, /Unauthorized/)
  const wrong = await post(s.url, { headers: { authorization: 'Bearer not-the-token' }, body: INIT })
  assert.equal(wrong.status, 401)
  assert.match(JSON.parse(wrong.body).error.message, /wrong bearer token/)
  // The SDK client too: connecting fails.
  await assert.rejects(httpClient(t, s.url, 'wrong-token-0000000000000'), /401|Unauthorized/)
  await assert.rejects(httpClient(t, s.url, undefined), /401|Unauthorized/)
  // A tools/call without the token never reaches the engine.
  const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'a.txt', content: 'pwned\n' } } })
  assert.equal((await post(s.url, { headers: { 'mcp-session-id': 'x' }, body: call })).status, 401)
  // DNS rebinding: a Host header that names another site is refused even with the token.
  const rebound = await post(s.url, { headers: { authorization: `Bearer ${TOKEN}`, host: 'evil.example:80' }, body: INIT })
  assert.equal(rebound.status, 403)
  assert.match(JSON.parse(rebound.body).error.message, /Invalid Host/)
  // With the token and a loopback Host, initialize is answered.
  const ok = await post(s.url, { headers: { authorization: `Bearer ${TOKEN}` }, body: INIT })
  assert.equal(ok.status, 200)
  assert.ok(ok.headers['mcp-session-id'])
  assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'one\n')
})

test('--http without SUREPATCH_HTTP_TOKEN: a token is generated and printed once on stderr', async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await startHttpServer(t, { root, env: {} })
  const m = /HTTP bearer token \(shown once[^)]*\): (\S+)/.exec(s.stderr())
  assert.ok(m, s.stderr())
  assert.equal(s.stderr().split(m[1]).length, 2, 'printed once')
  const c = await httpClient(t, s.url, m[1])
  assert.equal((await c.call('view_file', { file_path: 'a.txt' })).structuredContent.content, 'one\n')
})

test('--http sessions are isolated: read-before-edit state is per client', async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await startHttpServer(t, { root, args: ['--require-read'] })
  const a = await httpClient(t, s.url, TOKEN)
  const b = await httpClient(t, s.url, TOKEN)
  assert.equal((await a.call('view_file', { file_path: 'a.txt' })).structuredContent.ok, true)
  // B has not viewed the file: refused, nothing written.
  const refused = await b.call('patch_file', { file_path: 'a.txt', search_block: 'one', replace_block: 'uno' })
  assert.equal(refused.structuredContent.code, 'STALE_FILE')
  assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'one\n')
  // A has: its edit lands.
  const done = await a.call('patch_file', { file_path: 'a.txt', search_block: 'one', replace_block: 'uno' })
  assert.equal(done.structuredContent.ok, true, done.content[0].text)
  assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'uno\n')
  await stderrMatches(s.stderr, /HTTP session \S+ started \(2 open\)/)
})

test('--http without --root: client roots that exist here are served; roots of another machine fall back to the cwd', async (t) => {
  const cwd = populate(tempDir(t), { 'f.txt': 'cwd\n' })
  const other = populate(tempDir(t), { 'f.txt': 'other\n' })
  const s = await startHttpServer(t, { cwd })
  const local = await httpClient(t, s.url, TOKEN, [other])
  assert.equal((await local.call('view_file', { file_path: 'f.txt' })).structuredContent.content, 'other\n')
  const refused = await local.call('patch_file', { file_path: join(cwd, 'f.txt'), search_block: 'cwd', replace_block: 'x' })
  assert.equal(refused.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(readFileSync(join(cwd, 'f.txt'), 'utf8'), 'cwd\n')
  const remote = await httpClient(t, s.url, TOKEN, ['/nonexistent/home/me/project'])
  assert.equal((await remote.call('view_file', { file_path: 'f.txt' })).structuredContent.content, 'cwd\n')
  await stderrMatches(s.stderr, /none of the client's roots is a directory on this machine/)
})

test('--http --session-idle: a session without requests is closed, its id then gets 404; a busy one stays', async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await startHttpServer(t, { root, args: ['--session-idle', '1'] })
  const auth = { authorization: `Bearer ${TOKEN}` }
  const open = async () => {
    const r = await post(s.url, { headers: auth, body: INIT })
    assert.equal(r.status, 200)
    return r.headers['mcp-session-id']
  }
  const list = (id) => post(s.url, { headers: { ...auth, 'mcp-session-id': id }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })
  const idle = await open()
  const busy = await open()
  // `busy` sends a request every 300 ms for 1.8 s; `idle` sends none.
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 300))
    assert.equal((await list(busy)).status, 200)
  }
  const gone = await list(idle)
  assert.equal(gone.status, 404)
  assert.match(JSON.parse(gone.body).error.message, /Session not found: .*idle too long/)
  assert.equal((await list(busy)).status, 200)
  await stderrMatches(s.stderr, /HTTP session \S+ ended after 1 s idle/)
})

test('--session-idle: out of range, or without --http, is a usage error (exit 2)', async () => {
  const { spawnSync } = await import('node:child_process')
  for (const args of [['--http', '127.0.0.1:0', '--session-idle', '0'], ['--http', '127.0.0.1:0', '--session-idle', '1.5'], ['--session-idle', '60']]) {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, SUREPATCH_HTTP_TOKEN: TOKEN }, encoding: 'utf8', timeout: 20_000 })
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /--session-idle/)
  }
})

// Issue #27 §1 over HTTP: started in the home directory without --root, a client without roots, or one
// whose roots are all missing on this machine, is not served the home directory: refused, nothing read.
test('--http started in the home directory without --root: clients without usable roots are refused', { timeout: 60_000 }, async (t) => {
  const home = populate(tempDir(t), { 'secret.txt': 'keep\n' })
  const h = await startHttpServer(t, { cwd: home, env: { SUREPATCH_HTTP_TOKEN: TOKEN, HOME: home } })
  assert.match(h.stderr(), /warning: no workspace root: the server was started in the home directory/)
  for (const roots of [undefined, ['/nonexistent-surepatch-root']]) {
    const c = await httpClient(t, h.url, TOKEN, roots)
    const r = await c.call('view_file', { file_path: 'secret.txt' })
    assert.equal(r.isError, true)
    assert.equal(r.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
    assert.equal(r.structuredContent.content, undefined)
    assert.match(r.structuredContent.message, roots ? /none of the client's roots \(file:\/\/\/nonexistent-surepatch-root\) is a directory on this machine.*--root/ : /no workspace root: .*--root/)
    const w = await c.call('write_file', { file_path: 'secret.txt', content: 'gone\n' })
    assert.equal(w.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  }
  assert.equal(readFileSync(join(home, 'secret.txt'), 'utf8'), 'keep\n')
})
