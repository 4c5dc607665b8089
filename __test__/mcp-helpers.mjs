// Helpers for the MCP tests: an SDK Client connected to the real server over stdio, or to an in-process
// server over the SDK's in-memory transport (for a library with extra functions).
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
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
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
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
  const { server } = createServer({ log: () => {}, ...config })
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
