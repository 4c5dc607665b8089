// MCP roots: the real server over stdio, driven by the SDK Client declaring the roots capability.
// Without --root (nor SUREPATCH_WORKSPACE_ROOT) the server serves the client's roots; with --root, client
// roots outside it are ignored; with neither roots nor --root, the current directory.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { BIN, RECORD_ENV, populate, tempDir } from './mcp-helpers.mjs'

// A client with `roots` (directories; null: no roots capability), on the real binary.
async function connect(t, { roots, args = [], cwd, env = {} }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    cwd,
    env: { ...getDefaultEnvironment(), ...RECORD_ENV, SUREPATCH_WORKSPACE_ROOT: '', ...env },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'roots-test', version: '0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {})
  const state = { roots: roots || [], asked: 0 }
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      state.asked++
      return { roots: state.roots.map((d, i) => ({ uri: pathToFileURL(d).href, name: `root ${i}` })) }
    })
  }
  await client.connect(transport)
  t.after(() => client.close())
  await client.listTools()
  return {
    client,
    state,
    stderr: () => stderr,
    call: (name, args) => client.callTool({ name, arguments: args }),
    setRoots: async (dirs) => {
      state.roots = dirs
      await client.sendRootsListChanged()
    },
  }
}

// stderr arrives on its own pipe, possibly after the answer that followed the log line: wait for it (bounded).
async function stderrMatches(stderr, re, ms = 10_000) {
  const until = Date.now() + ms
  while (!re.test(stderr()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  assert.match(stderr(), re)
}

const patch = (file_path, from, to) => ({ file_path, search_block: from, replace_block: to })

test('no --root: the client roots are served; paths outside them are refused, nothing written', async (t) => {
  const a = populate(tempDir(t), { 'a.txt': 'alpha\n' })
  const b = populate(tempDir(t), { 'b.txt': 'beta\n' })
  const cwd = populate(tempDir(t), { 'c.txt': 'cwd\n' })
  const c = await connect(t, { roots: [a, b], cwd })

  // Relative paths resolve against the first root.
  const rel = await c.call('patch_file', patch('a.txt', 'alpha', 'ALPHA'))
  assert.equal(rel.structuredContent.ok, true, rel.content[0].text)
  assert.equal(readFileSync(join(a, 'a.txt'), 'utf8'), 'ALPHA\n')
  // An absolute path inside the second root.
  const abs = await c.call('patch_file', patch(join(b, 'b.txt'), 'beta', 'BETA'))
  assert.equal(abs.structuredContent.ok, true, abs.content[0].text)
  assert.equal(readFileSync(join(b, 'b.txt'), 'utf8'), 'BETA\n')
  // A patch naming a file of the second root by absolute path.
  const env = `*** Begin Patch\n*** Update File: ${join(b, 'b.txt')}\n@@\n-BETA\n+beta2\n*** End Patch\n`
  const p = await c.call('apply_patch', { patch: env })
  assert.equal(p.structuredContent.ok, true, p.content[0].text)
  assert.equal(readFileSync(join(b, 'b.txt'), 'utf8'), 'beta2\n')

  // The current directory is not a root: refused, bytes unchanged.
  for (const args of [patch(join(cwd, 'c.txt'), 'cwd', 'x'), patch('../' + join(cwd, 'c.txt').split('/').pop(), 'cwd', 'x')]) {
    const r = await c.call('patch_file', args)
    assert.equal(r.isError, true)
    assert.equal(r.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE', JSON.stringify(args))
  }
  const relOut = await c.call('view_file', { file_path: 'b.txt' }) // relative: against the first root only
  assert.equal(relOut.structuredContent.code, 'FILE_NOT_FOUND')
  assert.equal(readFileSync(join(cwd, 'c.txt'), 'utf8'), 'cwd\n')
  await stderrMatches(c.stderr, /serving the client's roots/)
})

test('notifications/roots/list_changed re-reads the roots', async (t) => {
  const a = populate(tempDir(t), { 'f.txt': 'in a\n' })
  const b = populate(tempDir(t), { 'f.txt': 'in b\n' })
  const c = await connect(t, { roots: [a], cwd: tempDir(t) })
  assert.equal((await c.call('view_file', { file_path: 'f.txt' })).structuredContent.content, 'in a\n')
  await c.setRoots([b])
  assert.equal((await c.call('view_file', { file_path: 'f.txt' })).structuredContent.content, 'in b\n')
  const gone = await c.call('patch_file', patch(join(a, 'f.txt'), 'in a', 'x'))
  assert.equal(gone.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(readFileSync(join(a, 'f.txt'), 'utf8'), 'in a\n')
  assert.ok(c.state.asked >= 2)

  // No roots at all: every call is refused with a message that says how to fix it.
  await c.setRoots([])
  const none = await c.call('view_file', { file_path: 'f.txt' })
  assert.equal(none.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.match(none.structuredContent.message, /declares no roots/)
})

test('--root: client roots inside it narrow what is served; roots outside it are ignored', async (t) => {
  const fixed = populate(tempDir(t), { 'top.txt': 'top\n', 'sub/in.txt': 'in\n' })
  const outside = populate(tempDir(t), { 'o.txt': 'o\n' })
  // A root outside --root only: ignored, --root is served.
  const c1 = await connect(t, { roots: [outside], args: ['--root', fixed], cwd: tempDir(t) })
  assert.equal((await c1.call('view_file', { file_path: 'top.txt' })).structuredContent.ok, true)
  const o = await c1.call('patch_file', patch(join(outside, 'o.txt'), 'o', 'x'))
  assert.equal(o.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(readFileSync(join(outside, 'o.txt'), 'utf8'), 'o\n')
  await stderrMatches(c1.stderr, /ignoring client root .*outside --root/)

  // A root inside --root: served (relative paths against it); the rest of --root is not.
  const c2 = await connect(t, { roots: [join(fixed, 'sub'), outside], args: ['--root', fixed], cwd: tempDir(t) })
  assert.equal((await c2.call('view_file', { file_path: 'in.txt' })).structuredContent.content, 'in\n')
  const top = await c2.call('patch_file', patch(join(fixed, 'top.txt'), 'top', 'x'))
  assert.equal(top.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(readFileSync(join(fixed, 'top.txt'), 'utf8'), 'top\n')
})

test('neither --root nor client roots: the current directory, as before', async (t) => {
  const cwd = populate(tempDir(t), { 'here.txt': 'here\n' })
  const c = await connect(t, { roots: null, cwd })
  const r = await c.call('patch_file', patch('here.txt', 'here', 'there'))
  assert.equal(r.structuredContent.ok, true)
  assert.equal(readFileSync(join(cwd, 'here.txt'), 'utf8'), 'there\n')
})

// Issue #27 §1: `/` and the home directory are never served implicitly. Started there without --root
// (nor SUREPATCH_WORKSPACE_ROOT) by a client that declares no roots, every file tool is refused with
// PATH_OUTSIDE_WORKSPACE and a message that says how to pass --root or roots; nothing is read or written.
const NO_ROOT = /no workspace root: the server was started in .* without --root.*--root \/path\/to\/project.*SUREPATCH_WORKSPACE_ROOT.*add a root/

test('started in / without --root and without client roots: every file tool refused, nothing read', { timeout: 30_000 }, async (t) => {
  const c = await connect(t, { roots: null, cwd: '/' })
  const r = await c.call('view_file', { file_path: 'etc/hostname' })
  assert.equal(r.isError, true)
  assert.equal(r.structuredContent.ok, false)
  assert.equal(r.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.match(r.structuredContent.message, /filesystem root \//)
  assert.match(r.structuredContent.message, NO_ROOT)
  assert.equal(r.structuredContent.content, undefined)
  const list = await c.call('list_directory', { path: 'etc' })
  assert.equal(list.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.match(list.structuredContent.message, NO_ROOT)
  await stderrMatches(c.stderr, /warning: no workspace root/)
})

test('started in the home directory without --root: refused, the file on disk unchanged, nothing created', { timeout: 30_000 }, async (t) => {
  const home = populate(tempDir(t), { 'notes.txt': 'keep\n' })
  const c = await connect(t, { roots: null, cwd: home, env: { HOME: home } })
  const p = await c.call('patch_file', patch('notes.txt', 'keep', 'lost'))
  assert.equal(p.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.match(p.structuredContent.message, /home directory/)
  assert.match(p.structuredContent.message, NO_ROOT)
  const w = await c.call('write_file', { file_path: 'new.txt', content: 'x\n' })
  assert.equal(w.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(readFileSync(join(home, 'notes.txt'), 'utf8'), 'keep\n')
  assert.equal(existsSync(join(home, 'new.txt')), false)
  // A client that declares an empty list of roots gets the same refusal, saying why.
  const c2 = await connect(t, { roots: [], cwd: home, env: { HOME: home } })
  const v = await c2.call('view_file', { file_path: 'notes.txt' })
  assert.equal(v.structuredContent.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.match(v.structuredContent.message, NO_ROOT)
})

test('started in the home directory: client roots are served as usual', { timeout: 30_000 }, async (t) => {
  const home = tempDir(t)
  const proj = populate(tempDir(t), { 'a.txt': 'a\n' })
  const c = await connect(t, { roots: [proj], cwd: home, env: { HOME: home } })
  const r = await c.call('patch_file', patch('a.txt', 'a', 'b'))
  assert.equal(r.structuredContent.ok, true, JSON.stringify(r.structuredContent))
  assert.equal(readFileSync(join(proj, 'a.txt'), 'utf8'), 'b\n')
})

test('started in / or the home directory: --root, SUREPATCH_WORKSPACE_ROOT and an explicit --root / are served', { timeout: 30_000 }, async (t) => {
  const home = populate(tempDir(t), { 'h.txt': 'h\n' })
  const proj = populate(tempDir(t), { 'p.txt': 'p\n' })
  const c1 = await connect(t, { roots: null, cwd: '/', args: ['--root', proj] })
  assert.equal((await c1.call('patch_file', patch('p.txt', 'p', 'q'))).structuredContent.ok, true)
  assert.equal(readFileSync(join(proj, 'p.txt'), 'utf8'), 'q\n')
  const c2 = await connect(t, { roots: null, cwd: home, env: { HOME: home, SUREPATCH_WORKSPACE_ROOT: home } })
  assert.equal((await c2.call('patch_file', patch('h.txt', 'h', 'i'))).structuredContent.ok, true)
  assert.equal(readFileSync(join(home, 'h.txt'), 'utf8'), 'i\n')
  const c3 = await connect(t, { roots: null, cwd: '/', args: ['--root', '/'] })
  const v = await c3.call('view_file', { file_path: join(proj, 'p.txt').slice(1) })
  assert.equal(v.structuredContent.ok, true, JSON.stringify(v.structuredContent))
  assert.match(v.structuredContent.content, /q/)
})
