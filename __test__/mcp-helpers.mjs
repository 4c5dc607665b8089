// Helpers for the MCP tests: an SDK Client connected to the real server over stdio, or to an in-process
// server over the SDK's in-memory transport (for a library with extra functions).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { createServer } from '../mcp/server.mjs'

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(REPO, 'bin', 'surepatch.mjs')

// The result recording of `npm test` (record.cjs), passed on to servers started with the SDK's default
// environment (which keeps only a few variables).
export const RECORD_ENV = process.env.SUREPATCH_RECORD_RESULTS ? { SUREPATCH_RECORD_RESULTS: process.env.SUREPATCH_RECORD_RESULTS } : {}

export function tempDir(t, prefix = 'surepatch-mcp-') {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Writes `files` ({relative path: content}) under `root`. */
export function populate(root, files) {
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true })
    writeFileSync(join(root, p), data)
  }
  return root
}

async function finish(t, client) {
  t.after(() => client.close())
  // listTools also primes the client's outputSchema validators, so every callTool below checks
  // structuredContent against the advertised outputSchema.
  const { tools } = await client.listTools()
  // Each result remembers its tool's name (non-enumerable: deepEqual ignores it), for the summary check.
  const call = async (name, args) => Object.defineProperty(await client.callTool({ name, arguments: args }), 'tool', { value: name })
  return { client, tools, call }
}

/**
 * The real server over stdio. `args` are extra command-line arguments; `env` extra environment;
 * `maxBufferSize` the client's limit on one answer (the SDK's default is 10 MB).
 */
export async function stdio(t, { args = [], env = {}, cwd, maxBufferSize } = {}) {
  // Every tool, with its output schema (so the client checks each result against it), unless the
  // test chooses its tools (the server's default is the `default` profile without output schemas).
  const every = args.includes('--tools') ? [] : ['--tools', 'all', '--output-schemas']
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args, ...every],
    env: { ...getDefaultEnvironment(), ...RECORD_ENV, ...env },
    cwd,
    stderr: 'pipe',
    maxBufferSize,
  })
  let stderr = ''
  transport.stderr.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'surepatch-test', version: '0.0.0' })
  await client.connect(transport)
  const c = await finish(t, client)
  c.stderr = () => stderr
  return c
}

/** An in-process server (same createServer as the binary) over the in-memory transport. */
export async function inProcess(t, config) {
  const { server } = createServer({ log: () => {}, tools: 'all', outputSchemas: true, ...config })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(a)
  const client = new Client({ name: 'surepatch-test', version: '0.0.0' })
  await client.connect(b)
  t.after(() => server.close())
  return finish(t, client)
}

/** Drops fields that differ between two runs of the same call (edit ids). */
export function stable(r) {
  const { edit_id: _e, ...rest } = r
  return rest
}

// stderr arrives on its own pipe, possibly after the answer that followed the log line: wait for it (bounded).
export async function stderrMatches(stderr, re, ms = 10_000) {
  const until = Date.now() + ms
  while (!re.test(stderr()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  assert.match(stderr(), re)
}

export const TOKEN = 'test-token-0123456789abcdef'

// HTTP (--http) tests. Starts `surepatch --http 127.0.0.1:0` and waits (at most 20 s) for the URL on stderr.
export async function startHttpServer(t, { root, cwd, args = [], env = { SUREPATCH_HTTP_TOKEN: TOKEN } }) {
  const every = args.includes('--tools') ? [] : ['--tools', 'all', '--output-schemas']
  const child = spawn(process.execPath, [BIN, '--http', '127.0.0.1:0', ...(root ? ['--root', root] : []), ...args, ...every], {
    cwd,
    env: { ...process.env, SUREPATCH_HTTP_TOKEN: '', SUREPATCH_WORKSPACE_ROOT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.after(() => child.kill('SIGTERM'))
  let stderr = ''
  let stdout = ''
  child.stdout.on('data', (d) => (stdout += d))
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s; stderr:\n${stderr}`)), 20_000)
    child.stderr.on('data', (d) => {
      stderr += d
      const m = /over HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code}; stderr:\n${stderr}`)))
  })
  return { url, child, stderr: () => stderr, stdout: () => stdout }
}

export async function httpClient(t, url, token, roots) {
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` }
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  const c = new Client({ name: 'http-test', version: '0' }, roots ? { capabilities: { roots: {} } } : {})
  if (roots) c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((d) => ({ uri: pathToFileURL(d).href })) }))
  await c.connect(transport)
  t.after(() => c.close())
  await c.listTools()
  return { client: c, call: (name, args) => c.callTool({ name, arguments: args }) }
}

// One raw POST; resolves to {status, headers, body}.
export function post(url, { headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, timeout: 10_000 }, (res) => {
      let data = ''
      res.on('data', (d) => (data += d))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }))
    })
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.end(body)
  })
}

export const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
