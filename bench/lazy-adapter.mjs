// Adapter between a lazy-snippet corpus scorer and the Node API: one case per stdin line
// ({id, path, file, snippet}), one verdict per stdout line. Each case is written to a real file in a
// fresh temporary workspace and merged with mergeSnippet, so the whole path (sandbox, codec, merge,
// atomic write) is what gets scored; the verdict is read from disk.
//
//   node bench/lazy-score.mjs ../shared/corpus/lazy-dev.jsonl             (spawns this adapter)
//   node bench/lazy-adapter.mjs < cases.jsonl                              (by hand)
//
// Answer: {"id","outcome":"apply","result":<file text>} when the file changed, else
// {"id","outcome":"reject","code","candidates":[1-based start lines]} (a success that wrote nothing
// is answered as an apply of the unchanged text, which a scorer counts against it).
import { createInterface } from 'node:readline'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { createRequire } from 'node:module'

const { mergeSnippet } = createRequire(import.meta.url)('../index.js')

/** Merges one case in its own workspace under `root`; returns the answer line's object. */
export async function answer(c, root) {
  const dir = mkdtempSync(join(root, 'case-'))
  const rel = c.path || basename('file.txt')
  mkdirSync(join(dir, dirname(rel)), { recursive: true })
  writeFileSync(join(dir, rel), c.file)
  const r = await mergeSnippet({ file_path: rel, snippet: c.snippet }, { workspace_root: dir })
  const now = readFileSync(join(dir, rel), 'utf8')
  // Anything else written beside the file is a write the scorer must see.
  const extra = readdirSync(dir, { recursive: true }).filter((p) => p !== rel && p !== dirname(rel) && !rel.startsWith(p + '/'))
  rmSync(dir, { recursive: true, force: true })
  if (r.ok || now !== c.file || extra.length) {
    return { id: c.id, outcome: 'apply', result: now, ok: r.ok, extra }
  }
  const cands = (r.candidates || []).map((x) => x.start_line)
  return { id: c.id, outcome: 'reject', code: r.code, candidates: cands, chunk_index: r.chunk_index }
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  const root = mkdtempSync(join(tmpdir(), 'surepatch-lazy-'))
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of rl) {
    if (!line.trim()) continue
    process.stdout.write(JSON.stringify(await answer(JSON.parse(line), root)) + '\n')
  }
  rmSync(root, { recursive: true, force: true })
}
