// searchFiles against ripgrep on one tree, interleaved, medians of N runs (after one warm-up each).
// Usage: node bench/search-vs-rg.mjs <dir> [runs]   (needs `rg` on PATH and a release build)
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

const sp = createRequire(import.meta.url)('../index.js')
const dir = process.argv[2]
const runs = Number(process.argv[3] || 7)
if (!dir) throw new Error('usage: node bench/search-vs-rg.mjs <dir> [runs]')

const queries = [
  { name: 'rare literal', query: 'XyzzyNeverThere', regex: false },
  { name: 'regex', query: 'fn [a-z_]+_with_[a-z_]+\\(', regex: true },
  { name: 'common literal', query: 'unsafe impl', regex: false },
]
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

async function ours(q) {
  const t = process.hrtime.bigint()
  const r = await sp.searchFiles(q.query, { workspace_root: dir, regex: q.regex, max_results: 100000 })
  if (!r.ok) throw new Error(r.message)
  return [Number(process.hrtime.bigint() - t) / 1e6, r.match_count, r.files_searched]
}

function rg(q) {
  const t = process.hrtime.bigint()
  let out = ''
  try {
    out = execFileSync('rg', ['-n', q.regex ? '-e' : '-F', q.query, '.'], { cwd: dir, maxBuffer: 1 << 30, encoding: 'utf8' })
  } catch (e) {
    if (e.status !== 1) throw e // 1: no match
  }
  return [Number(process.hrtime.bigint() - t) / 1e6, out ? out.split('\n').length - 1 : 0]
}

for (const q of queries) {
  await ours(q)
  rg(q)
  const a = []
  const b = []
  let counts
  for (let i = 0; i < runs; i++) {
    const o = await ours(q)
    const g = rg(q)
    a.push(o[0])
    b.push(g[0])
    counts = `matches ours ${o[1]} rg ${g[1]}, files searched ${o[2]}`
  }
  const ma = median(a)
  const mb = median(b)
  console.log(`${q.name.padEnd(15)} searchFiles ${ma.toFixed(1)} ms  rg ${mb.toFixed(1)} ms  ratio ${(ma / mb).toFixed(2)}  (${counts})`)
}
