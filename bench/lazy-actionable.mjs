// Are mergeSnippet's ambiguity refusals actionable? For every case of a lazy corpus that is refused
// with SNIPPET_AMBIGUOUS, add ONE context line to the refused chunk — the nearest non-blank file line
// above the region the chunk was meant for (meta.chunks[i].file_lines), or, in a second measure, the
// one below — and merge again. It counts as landed when the merge succeeds and the chunk lands on its
// intended region (within 2 lines). The third measure follows the refusal's own hint: the candidate
// region that overlaps the intended one, and the file lines its `distinguishing_lines` entry names
// (`copy_lines`, `side`) copied next to the chunk.
//
//   node bench/lazy-actionable.mjs [../shared/corpus/lazy-dev.jsonl]
import { readFileSync, mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const here = dirname(fileURLToPath(import.meta.url))
const { mergeSnippet } = createRequire(import.meta.url)('../index.js')
const corpus = process.argv[2] || join(here, '..', '..', 'shared', 'corpus', 'lazy-dev.jsonl')
const cases = readFileSync(corpus, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
const root = mkdtempSync(join(tmpdir(), 'surepatch-actionable-'))

async function merge(c, snippet) {
  const dir = mkdtempSync(join(root, 'c-'))
  mkdirSync(join(dir, dirname(c.path)), { recursive: true })
  writeFileSync(join(dir, c.path), c.file)
  const r = await mergeSnippet({ file_path: c.path, snippet }, { workspace_root: dir, dry_run: true })
  rmSync(dir, { recursive: true, force: true })
  return r
}

/** The snippet with file lines `line..to` (1-based) inserted before (`at` 'above') or after the chunk. */
function withLine(c, r, line, at, to = line) {
  const snip = c.snippet.split('\n')
  const text = c.file.split('\n').slice(line - 1, to)
  const i = at === 'above' ? r.chunk_lines.start_line - 1 : r.chunk_lines.end_line
  snip.splice(i, 0, ...text)
  return snip.join('\n')
}

function nonBlank(c, from, step) {
  const lines = c.file.split('\n')
  for (let l = from; l >= 1 && l <= lines.length; l += step) if (lines[l - 1].trim()) return l
  return null
}

let refused = 0
const landed = { above: 0, below: 0, either: 0, hint: 0, hinted: 0, oneLine: 0 }
for (const c of cases) {
  const r = await merge(c, c.snippet)
  if (r.ok || r.code !== 'SNIPPET_AMBIGUOUS') continue
  const chunk = (c.meta.chunks || [])[r.chunk_index]
  if (!chunk) continue
  refused++
  const [first, last] = chunk.file_lines
  let any = false
  for (const [at, line] of [['above', nonBlank(c, first - 1, -1)], ['below', nonBlank(c, last + 1, 1)]]) {
    if (!line) continue
    const again = await merge(c, withLine(c, r, line, at))
    const land = again.ok && again.chunks && again.chunks[r.chunk_index]
    const near = land && Math.abs(land.start_line - (at === 'above' ? line : first)) <= 2
    if (near) {
      landed[at]++
      any = true
    }
  }
  if (any) landed.either++
  // Following the hint: the line the refusal names for the intended candidate.
  const cand = (r.candidates || []).find((x) => x.start_line <= last && x.end_line >= first)
  const d = cand && (r.distinguishing_lines || []).find((x) => x.candidate_start_line === cand.start_line)
  if (d) {
    landed.hinted++
    const { start_line: from, end_line: to } = d.copy_lines
    if (!c.file.split('\n').slice(from - 1, to).some((l, k) => from + k !== d.line && l.trim())) landed.oneLine++
    const again = await merge(c, withLine(c, r, from, d.side, to))
    const land = again.ok && again.chunks && again.chunks[r.chunk_index]
    if (land && Math.abs(land.start_line - (d.side === 'above' ? from : first)) <= 2) landed.hint++
  }
}
rmSync(root, { recursive: true, force: true })
const pct = (n) => (refused ? ((100 * n) / refused).toFixed(1) : '0.0')
console.log(`SNIPPET_AMBIGUOUS refusals: ${refused}`)
console.log(`one line added above: ${landed.above}/${refused} land (${pct(landed.above)}%)`)
console.log(`one line added below: ${landed.below}/${refused} land (${pct(landed.below)}%)`)
console.log(`either: ${landed.either}/${refused} (${pct(landed.either)}%)`)
console.log(
  `following the hint: ${landed.hint}/${refused} land (${pct(landed.hint)}%); a hint named for the intended candidate in ${landed.hinted}, one non-blank line in ${landed.oneLine}`,
)
