// Issue #26 §3: the MCP server over Streamable HTTP, attacked. Undo is per session (and gated like an
// edit under --require-read), a foreign Origin is refused (the MCP specification requires it), and the
// number of sessions is capped (the idlest is evicted; 503 when every one is in a request). Real HTTP
// requests and the SDK client against `surepatch --http 127.0.0.1:0`; every wait is bounded.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { sp } from './helpers.mjs'
import { BIN, INIT, TOKEN, httpClient, populate, post, startHttpServer, stderrMatches, tempDir } from './mcp-helpers.mjs'

const auth = { authorization: `Bearer ${TOKEN}` }
const text = (root, p) => readFileSync(join(root, p), 'utf8')
const sc = (r) => r.structuredContent

test('--http: undo is per session; B can revert none of A\'s edits, by path or by id, and stays gated', { timeout: 60_000 }, async (t) => {
  for (const args of [['--require-read'], []]) {
    const root = populate(tempDir(t), { 'x.txt': 'one\n' })
    const s = await startHttpServer(t, { root, args })
    const a = await httpClient(t, s.url, TOKEN)
    const b = await httpClient(t, s.url, TOKEN)
    assert.equal(sc(await a.call('view_file', { file_path: 'x.txt' })).ok, true)
    const edit = sc(await a.call('patch_file', { file_path: 'x.txt', search_block: 'one', replace_block: 'uno' }))
    assert.equal(edit.ok, true, JSON.stringify(edit))
    for (const target of [{ file_path: 'x.txt' }, { file_path: './x.txt' }, { edit_id: edit.edit_id }]) {
      const r = sc(await b.call('undo_edit', target))
      assert.equal(r.code, 'EDIT_NOT_FOUND', `${args} ${JSON.stringify(target)}: ${JSON.stringify(r)}`)
      assert.equal(text(root, 'x.txt'), 'uno\n')
    }
    if (args.length) {
      // The refused undo did not make the file "seen" by B: its blind edit is still refused.
      const blind = sc(await b.call('patch_file', { file_path: 'x.txt', search_block: 'uno', replace_block: 'dos' }))
      assert.equal(blind.code, 'STALE_FILE', JSON.stringify(blind))
      assert.equal(text(root, 'x.txt'), 'uno\n')
    }
    // A undoes its own edit, by path.
    const undone = sc(await a.call('undo_edit', { file_path: 'x.txt' }))
    assert.equal(undone.ok, true, JSON.stringify(undone))
    assert.equal(undone.edit_id, edit.edit_id)
    assert.equal(text(root, 'x.txt'), 'one\n')
  }
})

test('createToolRunner: undo_edit under requireRead is gated like an edit; isolateUndo reaches only the runner\'s own edits', { timeout: 30_000 }, async (t) => {
  const root = populate(tempDir(t), { 'x.txt': 'one\n', 'y.txt': 'why\n' })
  const a = sp.createToolRunner({ workspaceRoot: root, requireRead: true })
  const b = sp.createToolRunner({ workspaceRoot: root, requireRead: true })
  assert.equal((await a.call('view_file', { file_path: 'x.txt' })).ok, true)
  const edit = await a.call('patch_file', { file_path: 'x.txt', search_block: 'one', replace_block: 'uno' })
  assert.equal(edit.ok, true, JSON.stringify(edit))
  // B shares the process's journal but has not seen x.txt: refused like an edit, nothing written.
  for (const target of [{ file_path: 'x.txt' }, { edit_id: edit.edit_id }]) {
    const r = await b.call('undo_edit', target)
    assert.equal(r.code, 'STALE_FILE', JSON.stringify(r))
    assert.match(r.message, /x\.txt has not been viewed in this session/)
    assert.equal(text(root, 'x.txt'), 'uno\n')
  }
  // Seen, but changed since by someone else: refused (by the gate, before the engine).
  assert.equal((await b.call('view_file', { file_path: 'x.txt' })).ok, true)
  populate(root, { 'x.txt': 'uno!\n' })
  const changed = await b.call('undo_edit', { edit_id: edit.edit_id })
  assert.equal(changed.code, 'STALE_FILE', JSON.stringify(changed))
  assert.match(changed.message, /changed since it was viewed/)
  assert.equal(text(root, 'x.txt'), 'uno!\n')
  populate(root, { 'x.txt': 'uno\n' })
  assert.equal((await b.call('view_file', { file_path: 'x.txt' })).ok, true)
  // Viewed as it is: B may undo (the runners are not isolated).
  const ok = await b.call('undo_edit', { file_path: 'x.txt' })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(text(root, 'x.txt'), 'one\n')
  // No such edit: the engine's own refusal, through the gate.
  assert.equal((await b.call('undo_edit', { file_path: 'y.txt' })).code, 'EDIT_NOT_FOUND')

  // isolateUndo: another runner's edit is EDIT_NOT_FOUND; its own are undone, by path and by id.
  const c = sp.createToolRunner({ workspaceRoot: root, isolateUndo: true })
  const d = sp.createToolRunner({ workspaceRoot: root, isolate_undo: true })
  assert.deepEqual([a.isolateUndo, c.isolateUndo, d.isolateUndo], [false, true, true])
  const e1 = await c.call('patch_file', { file_path: 'y.txt', search_block: 'why', replace_block: 'y1' })
  const e2 = await d.call('patch_file', { file_path: 'y.txt', search_block: 'y1', replace_block: 'y2' })
  assert.equal(e2.ok, true)
  assert.equal((await c.call('undo_edit', { edit_id: e2.edit_id })).code, 'EDIT_NOT_FOUND')
  // By path, C reaches only its own edit, which y.txt no longer holds: STALE_FILE, nothing written.
  const stale = await c.call('undo_edit', { file_path: 'y.txt' })
  assert.equal(stale.code, 'STALE_FILE', JSON.stringify(stale))
  assert.equal(stale.edit_id, e1.edit_id)
  assert.equal(text(root, 'y.txt'), 'y2\n')
  assert.equal((await d.call('undo_edit', { file_path: 'y.txt' })).ok, true)
  assert.equal((await c.call('undo_edit', { edit_id: e1.edit_id })).ok, true)
  assert.equal(text(root, 'y.txt'), 'why\n')
  assert.equal((await c.call('undo_edit', { edit_id: e1.edit_id })).code, 'EDIT_NOT_FOUND', 'undone once')
})

test('--http: a foreign Origin is refused with 403 (nothing done); none, or the server\'s own, is allowed; --allow-origin adds one', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  // Without flags: what a browser page elsewhere sends is refused.
  const plain = await startHttpServer(t, { root })
  for (const origin of ['http://evil.example', 'null']) {
    const r = await post(plain.url, { headers: { ...auth, origin }, body: INIT })
    assert.equal(r.status, 403, `${origin}: ${r.status} ${r.body}`)
    assert.equal(r.headers['mcp-session-id'], undefined, origin)
  }
  const s = await startHttpServer(t, { root, args: ['--allow-origin', 'https://App.Example'] })
  const port = new URL(s.url).port
  const init = (origin) => post(s.url, { headers: { ...auth, ...(origin === undefined ? {} : { origin }) }, body: INIT })
  for (const origin of ['http://evil.example', 'null', `http://localhost:${Number(port) + 1}`, `https://127.0.0.1:${port}`, `http://127.0.0.1.evil.example:${port}`, 'https://app.example:8443', 'file:///etc/passwd', `http://127.0.0.1:${port}/mcp`, '']) {
    const r = await init(origin)
    assert.equal(r.status, 403, `${origin}: ${r.status} ${r.body}`)
    const body = JSON.parse(r.body)
    assert.equal(body.jsonrpc, '2.0')
    assert.equal(body.error.code, -32000)
    assert.match(body.error.message, /^Forbidden: Origin .* is not allowed/)
    assert.equal(r.headers['mcp-session-id'], undefined, origin)
  }
  for (const origin of [undefined, `http://127.0.0.1:${port}`, `http://localhost:${port}`, `HTTP://LOCALHOST:${port}`, `http://[::1]:${port}`, 'https://app.example']) {
    const r = await init(origin)
    assert.equal(r.status, 200, `${origin}: ${r.body}`)
    assert.ok(r.headers['mcp-session-id'])
  }
  // A call in an open session from a foreign page is refused too, before the engine.
  const sid = (await init(undefined)).headers['mcp-session-id']
  const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'a.txt', content: 'pwned\n' } } })
  const foreign = await post(s.url, { headers: { ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18', origin: 'http://evil.example' }, body: call })
  assert.equal(foreign.status, 403)
  assert.equal(text(root, 'a.txt'), 'one\n')
  // The SDK client sending a foreign Origin cannot connect.
  const c = new Client({ name: 'origin-test', version: '0' })
  t.after(() => c.close())
  const evil = new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { ...auth, origin: 'http://evil.example' } } })
  await assert.rejects(c.connect(evil), /403|Forbidden/)
  await stderrMatches(s.stderr, /HTTP session \S+ started \(7 open\)/)
  assert.doesNotMatch(s.stderr(), /\(8 open\)/, 'no refused request opened a session')

  // Bad values, or without --http: usage errors.
  for (const args of [['--http', '127.0.0.1:0', '--allow-origin', 'evil.example'], ['--http', '127.0.0.1:0', '--allow-origin', 'http://a.example/path'], ['--allow-origin', 'http://a.example']]) {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, SUREPATCH_HTTP_TOKEN: TOKEN }, encoding: 'utf8', timeout: 20_000 })
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /--allow-origin/)
  }
})

test('--http --max-sessions: the idlest session is evicted (its id then gets 404), the busy ones are kept', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await startHttpServer(t, { root, args: ['--max-sessions', '3'] })
  const open = async () => {
    const r = await post(s.url, { headers: auth, body: INIT })
    assert.equal(r.status, 200, r.body)
    return r.headers['mcp-session-id']
  }
  const list = (id) => post(s.url, { headers: { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })
  const ids = [await open(), await open(), await open()]
  await new Promise((r) => setTimeout(r, 20))
  // ids[0] is used again: ids[1] is now the idlest.
  assert.equal((await list(ids[0])).status, 200)
  const fourth = await open()
  const gone = await list(ids[1])
  assert.equal(gone.status, 404)
  assert.match(JSON.parse(gone.body).error.message, /^Session not found: .*closed to make room for a newer session/)
  for (const id of [ids[0], ids[2], fourth]) assert.equal((await list(id)).status, 200, id)
  await stderrMatches(s.stderr, new RegExp(`HTTP session ${ids[1]} closed to make room: 3 sessions are open \\(--max-sessions\\)`))
  // 50 more initializes without DELETE: never more than 3 open.
  for (let i = 0; i < 50; i++) await open()
  await stderrMatches(s.stderr, /\(3 open\)\n(?![\s\S]*\([4-9]\d* open\))/)
  assert.doesNotMatch(s.stderr(), /\((?:[4-9]|\d\d+) open\)/)

  for (const args of [['--http', '127.0.0.1:0', '--max-sessions', '0'], ['--http', '127.0.0.1:0', '--max-sessions', 'many'], ['--max-sessions', '4']]) {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, SUREPATCH_HTTP_TOKEN: TOKEN }, encoding: 'utf8', timeout: 20_000 })
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /--max-sessions/)
  }
})

const hasFlock = process.platform === 'linux' && spawnSync('flock', ['--version']).status === 0
test('--http --max-sessions: when every session is in a request, a new one gets 503 and nothing is evicted (nor swept as idle)', { skip: !hasFlock && `${process.platform}: needs flock(1) to keep a call waiting`, timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await startHttpServer(t, { root, args: ['--max-sessions', '1', '--session-idle', '1'] })
  const a = await httpClient(t, s.url, TOKEN)
  // Another program holds a.txt's lock: A's edit waits for it.
  const holder = spawn('sh', ['-c', 'exec 9<"$1"; flock -x 9; echo locked; exec sleep 60', 'holder', join(root, 'a.txt')], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => holder.kill('SIGKILL'))
  await new Promise((resolve) => holder.stdout.once('data', resolve))
  const waiting = a.call('patch_file', { file_path: 'a.txt', search_block: 'one', replace_block: 'uno' })
  await new Promise((r) => setTimeout(r, 300))
  const refused = await post(s.url, { headers: auth, body: INIT })
  assert.equal(refused.status, 503, refused.body)
  assert.equal(refused.headers['retry-after'], '5')
  assert.match(JSON.parse(refused.body).error.message, /1 sessions are open \(--max-sessions\) and every one is in a request/)
  // Longer than --session-idle: a session in a request is not idle.
  await new Promise((r) => setTimeout(r, 1700))
  holder.kill('SIGKILL')
  const done = sc(await waiting)
  assert.equal(done.ok, true, JSON.stringify(done))
  assert.equal(text(root, 'a.txt'), 'uno\n')
  // Idle now: the next session takes its place.
  assert.equal((await post(s.url, { headers: auth, body: INIT })).status, 200)
  await assert.rejects(a.call('view_file', { file_path: 'a.txt' }), /404|Session not found/)
})
