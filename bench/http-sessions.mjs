// The memory of `surepatch --http` under clients that initialize sessions and never end them (no
// DELETE): starts the server on 127.0.0.1, sends N initialize requests one after another, and prints
// the server's resident set size (VmRSS, Linux) before and after, and how many sessions are open.
//
//   node bench/http-sessions.mjs [N=2000] [extra server flags, e.g. --max-sessions 64]
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'surepatch.mjs')
const TOKEN = 'bench-token-0123456789abcdef'
const n = Number(process.argv[2] || 2000)
const flags = process.argv.slice(3)
const root = mkdtempSync(join(tmpdir(), 'surepatch-http-bench-'))

const child = spawn(process.execPath, [BIN, '--http', '127.0.0.1:0', '--root', root, ...flags], {
  env: { ...process.env, SUREPATCH_HTTP_TOKEN: TOKEN },
  stdio: ['ignore', 'ignore', 'pipe'],
})
let stderr = ''
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${stderr}`)), 20_000)
  child.stderr.on('data', (d) => {
    stderr += d
    const m = /over HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)
    if (m) {
      clearTimeout(timer)
      resolve(m[1])
    }
  })
})
const rssMb = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
  return Math.round(Number(m[1]) / 1024)
}
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } })
const init = () =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('error', reject)
    req.end(INIT)
  })

await new Promise((r) => setTimeout(r, 500))
const before = rssMb()
const started = Date.now()
const statuses = {}
const steps = []
for (let i = 0; i < n; i++) {
  const s = await init()
  statuses[s] = (statuses[s] || 0) + 1
  if ((i + 1) % 1000 === 0) steps.push(rssMb())
}
const ms = Date.now() - started
await new Promise((r) => setTimeout(r, 1000))
const after = rssMb()
const open = [...stderr.matchAll(/\((\d+) open\)/g)].map((m) => Number(m[1]))
console.log(`RSS every 1,000: ${steps.join(', ')} MB`)
console.log(`${n} initializes (${JSON.stringify(statuses)}) in ${ms} ms: RSS ${before} MB before, ${after} MB after (+${after - before} MB); at most ${Math.max(0, ...open)} sessions open, ${open.at(-1) ?? 0} at the end${flags.length ? ` (${flags.join(' ')})` : ''}`)
child.kill('SIGTERM')
rmSync(root, { recursive: true, force: true })
