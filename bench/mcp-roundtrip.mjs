// Benchmark (not a test): the patch_file round trip over stdio, as an MCP client sees it. The official
// SDK Client spawns `bin/surepatch.mjs`, then makes N tools/call requests on a small file, alternating
// two edits so every call writes. Prints one JSON object: median, p95 and friends, in milliseconds; also
// the same call as a dry run and both straight through the library, to separate the protocol's cost from
// the durable write's (two fsyncs, which dominate on a busy disk).
//
//   npm run bench:mcp                 (1,000 calls after 100 warm-up calls)
//   node bench/mcp-roundtrip.mjs 5000 (another count)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'

const require = createRequire(import.meta.url)
const repo = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const calls = Number(process.argv[2] || 1000)
const warmup = 100

const root = mkdtempSync(join(tmpdir(), 'surepatch-bench-'))
const lines = Array.from({ length: 40 }, (_, i) => `    line_${i} = compute(${i})  # some typical source text`)
lines[20] = '    retries = 1'
writeFileSync(join(root, 'small.py'), `def main():\n${lines.join('\n')}\n`)

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(repo, 'bin', 'surepatch.mjs'), '--root', root],
  env: getDefaultEnvironment(),
  stderr: 'ignore',
})
const client = new Client({ name: 'surepatch-bench', version: '0.0.0' })
await client.connect(transport)
await client.listTools() // the client validates every structuredContent against outputSchema, as a real one would

const edit = (i) =>
  i % 2 === 0
    ? { file_path: 'small.py', search_block: '    retries = 1', replace_block: '    retries = 2' }
    : { file_path: 'small.py', search_block: '    retries = 2', replace_block: '    retries = 1' }

// Times `n` calls of `call(i)` after a warm-up, in milliseconds, sorted.
async function measure(n, call) {
  const times = []
  for (let i = 0; i < warmup + n; i++) {
    const t0 = process.hrtime.bigint()
    const r = await call(i)
    const t1 = process.hrtime.bigint()
    if (!r || r.ok !== true) throw new Error(`call ${i} failed: ${JSON.stringify(r)}`)
    if (i >= warmup) times.push(Number(t1 - t0) / 1e6)
  }
  return times.sort((a, b) => a - b)
}

const mcp = (args) => client.callTool({ name: 'patch_file', arguments: args }).then((res) => res.structuredContent)
const lib = require('../index.js')
const direct = (args) => lib.patchFile({ file_path: args.file_path, search_block: args.search_block, replace_block: args.replace_block }, { workspace_root: root, dry_run: args.dry_run })

// The round trip that writes (atomic write: temp file, fsync, rename, directory fsync), the same call
// as a dry run (everything but the write), and both straight through the library, so the MCP layer's
// own cost is the difference.
const times = await measure(calls, (i) => mcp(edit(i)))
const dryTimes = await measure(calls, () => mcp({ ...edit(0), dry_run: true }))
const libTimes = await measure(calls, (i) => direct(edit(i)))
const libDryTimes = await measure(calls, () => direct({ ...edit(0), dry_run: true }))
await client.close()
const final = readFileSync(join(root, 'small.py'), 'utf8')
rmSync(root, { recursive: true, force: true })

const round = (x) => Math.round(x * 1000) / 1000
const at = (q, t = times) => round(t[Math.min(t.length - 1, Math.floor(q * t.length))])
process.stdout.write(
  JSON.stringify(
    {
      bench: 'mcp patch_file round trip over stdio',
      calls,
      file_bytes: Buffer.byteLength(final),
      median_ms: at(0.5),
      p95_ms: at(0.95),
      p99_ms: at(0.99),
      min_ms: round(times[0]),
      max_ms: round(times[times.length - 1]),
      mean_ms: round(times.reduce((a, b) => a + b, 0) / times.length),
      target_median_ms: 1,
      dry_run: { median_ms: at(0.5, dryTimes), p95_ms: at(0.95, dryTimes) },
      library_only: { median_ms: at(0.5, libTimes), p95_ms: at(0.95, libTimes) },
      library_only_dry_run: { median_ms: at(0.5, libDryTimes), p95_ms: at(0.95, libDryTimes) },
      load_average_1m: round(loadavg()[0]),
      node: process.version,
      sdk: JSON.parse(readFileSync(join(repo, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')).version,
    },
    null,
    2,
  ) + '\n',
)
