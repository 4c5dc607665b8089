// Adapter between ../shared/corpus/score.py and the Node API: one case per stdin line, one verdict per
// stdout line. Each case is written to a real file in a temp workspace and edited with applyEdits, so
// the whole path (sandbox, codec, matcher, atomic write) is what gets scored.
//
//   python3 ../shared/corpus/score.py ../shared/corpus/robust-dev.jsonl --adapter "node bench/corpus-adapter.mjs"
import { createInterface } from 'node:readline'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { createRequire } from 'node:module'

const { applyEdits } = createRequire(import.meta.url)('../index.js')
const root = mkdtempSync(join(tmpdir(), 'surepatch-corpus-'))
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
let n = 0
for await (const line of rl) {
  if (!line.trim()) continue
  const c = JSON.parse(line)
  const dir = join(root, String(n++))
  mkdirSync(dir)
  const name = basename(c.path || 'file.txt')
  writeFileSync(join(dir, name), c.file)
  const r = await applyEdits(name, [{ old: c.edit.old, new: c.edit.new }], { workspace_root: dir })
  let out
  if (r.ok) {
    out = { id: c.id, outcome: 'apply', result: readFileSync(join(dir, name), 'utf8') }
  } else {
    const cands = r.candidates ? r.candidates.map((x) => x.start_line) : r.match_lines || []
    out = { id: c.id, outcome: 'reject', code: r.code, candidates: cands }
  }
  rmSync(dir, { recursive: true, force: true })
  process.stdout.write(JSON.stringify(out) + '\n')
}
rmSync(root, { recursive: true, force: true })
