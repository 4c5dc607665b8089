// mergeSnippet speed through Node: median for a 500-line file (one chunk... and 3), p99 for a
// 2,000-line file with 10 chunks, and the median across sizes to show it grows linearly.
// Goals (issue #28): <= 5 ms median at 500 lines, <= 20 ms p99 at 2,000 lines and 10 chunks.
//
//   npm run build && node bench/lazy.mjs [--runs N]
//
// The file is synthetic JavaScript: functions of 8 lines with unique names and bodies that share many
// lines (`}`, `return out`, blank lines), so anchoring meets repeated lines as in real code. Each
// snippet changes one line in each of `chunks` functions spread over the file, with two unchanged
// lines above and below and `// ... existing code ...` between. Calls are dry runs (everything but the
// write: read, hash check, merge, diff, receipt), so every run merges the same snippet into the same
// file; one real write is timed too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const { mergeSnippet } = createRequire(import.meta.url)('../index.js')
const argv = process.argv.slice(2)
const runs = Number(argv[argv.indexOf('--runs') + 1]) || 300

function file(lines) {
  const out = ["'use strict'", '']
  for (let f = 0; out.length < lines; f++) {
    out.push(`function step${f}(input) {`, '  const out = []', `  for (const x of input) out.push(x * ${f + 1})`, '  if (!out.length) {', '    return null', '  }', '  return out', '}', '')
  }
  return out.slice(0, lines).join('\n') + '\n'
}

function snippet(text, chunks) {
  const lines = text.split('\n')
  const heads = []
  lines.forEach((l, i) => l.startsWith('function step') && i + 8 < lines.length && heads.push(i))
  const out = ['// ... existing code ...']
  for (let k = 0; k < chunks; k++) {
    const h = heads[Math.floor(((k + 0.5) * heads.length) / chunks)]
    out.push(lines[h], lines[h + 1], lines[h + 2].replace('out.push(x *', 'out.push(x +'), lines[h + 3], lines[h + 4], '// ... existing code ...')
  }
  return out.join('\n') + '\n'
}

const root = mkdtempSync(join(tmpdir(), 'surepatch-lazy-bench-'))
async function measure(lines, chunks, n = runs) {
  const text = file(lines)
  writeFileSync(join(root, 'f.js'), text)
  const snip = snippet(text, chunks)
  const opts = { workspace_root: root, dry_run: true }
  const first = await mergeSnippet({ file_path: 'f.js', snippet: snip }, opts)
  if (!first.ok || first.chunks.length !== chunks) throw new Error(`bench snippet did not merge: ${first.code} ${first.message}`)
  for (let i = 0; i < 20; i++) await mergeSnippet({ file_path: 'f.js', snippet: snip }, opts)
  const ms = []
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint()
    await mergeSnippet({ file_path: 'f.js', snippet: snip }, opts)
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  ms.sort((a, b) => a - b)
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]
  return { lines, chunks, median: q(0.5), p99: q(0.99) }
}

const show = (r) => `${String(r.lines).padStart(6)} lines ${String(r.chunks).padStart(2)} chunks: median ${r.median.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`
const a = await measure(500, 3)
const b = await measure(2000, 10)
console.log(show(a), a.median <= 5 ? '(goal <= 5 ms median: met)' : '(goal <= 5 ms median: MISSED)')
console.log(show(b), b.p99 <= 20 ? '(goal <= 20 ms p99: met)' : '(goal <= 20 ms p99: MISSED)')
console.log('linear in size (10 chunks):')
let prev
for (const lines of [1000, 2000, 4000, 8000, 16000]) {
  const r = await measure(lines, 10, Math.max(30, Math.floor(runs / 4)))
  console.log(show(r) + (prev ? `  x${(r.median / prev.median).toFixed(2)} for x2 lines` : ''))
  prev = r
}
// A refusal: the same 10 chunks and an 11th whose lines occur in every function, so the merge is
// refused with SNIPPET_AMBIGUOUS and looks for each candidate's distinguishing line (trial merges).
{
  const text = file(2000)
  writeFileSync(join(root, 'f.js'), text)
  const snip = snippet(text, 10) + '  if (!out.length) {\n    return null\n    // none\n  }\n// ... existing code ...\n'
  const opts = { workspace_root: root, dry_run: true }
  const r = await mergeSnippet({ file_path: 'f.js', snippet: snip }, opts)
  if (r.code !== 'SNIPPET_AMBIGUOUS' || !r.distinguishing_lines.length) throw new Error(`bench refusal: ${r.code} ${r.message}`)
  const ms = []
  for (let i = 0; i < Math.max(30, Math.floor(runs / 4)); i++) {
    const t0 = process.hrtime.bigint()
    await mergeSnippet({ file_path: 'f.js', snippet: snip }, opts)
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  ms.sort((a, b) => a - b)
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]
  console.log(`SNIPPET_AMBIGUOUS with ${r.distinguishing_lines.length} distinguishing lines, 2,000 lines, 11 chunks: median ${q(0.5).toFixed(2)} ms, p99 ${q(0.99).toFixed(2)} ms`)
}
// One real write (journal and atomic write included).
writeFileSync(join(root, 'f.js'), file(2000))
const t0 = process.hrtime.bigint()
const w = await mergeSnippet({ file_path: 'f.js', snippet: snippet(file(2000), 10) }, { workspace_root: root })
console.log(`one real write, 2,000 lines, 10 chunks: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(2)} ms (ok: ${w.ok})`)
rmSync(root, { recursive: true, force: true })
