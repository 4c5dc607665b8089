// Adapter between ../shared/corpus/score.py and the Node API for the patch-dialect corpus: each case's file
// is written at its path under a fresh workspace root, the patch text goes through the format's own entry
// point (applyPatch, applyUnifiedDiff, applyBlocks) with the case's path beside it as `file_path`, and the
// verdict is read from the disk. A write to any file other than the case's path is reported as an apply of
// garbage, so the scorer counts it as a false apply.
//
//   python3 ../shared/corpus/score.py ../shared/corpus/dialects-dev.jsonl --adapter "node bench/dialects-adapter.mjs"
//
// With SUREPATCH_BLOCKS_NO_FILE_PATH=1, SEARCH/REPLACE texts are applied without `file_path`, so the
// path lines in the text name the file (the parser's path rules are then part of what is scored).
import { createInterface } from 'node:readline'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { createRequire } from 'node:module'

const { applyPatch, applyUnifiedDiff, applyBlocks } = createRequire(import.meta.url)('../index.js')
const root = mkdtempSync(join(tmpdir(), 'surepatch-dialects-'))

function listFiles(dir, base = dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) listFiles(p, base, out)
    else out.push(relative(base, p))
  }
  return out
}

async function call(c, dir) {
  const opts = { workspace_root: dir }
  switch (c.edit.format) {
    case 'apply_patch':
      return applyPatch(c.edit.patch, opts)
    case 'unified_diff':
      return applyUnifiedDiff(c.edit.patch, { ...opts, file_path: c.path })
    case 'search_replace':
      if (process.env.SUREPATCH_BLOCKS_NO_FILE_PATH === '1') return applyBlocks(c.edit.patch, opts)
      return applyBlocks(c.edit.patch, { ...opts, file_path: c.path })
    default:
      throw new Error(`unknown format ${c.edit.format}`)
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
let n = 0
for await (const line of rl) {
  if (!line.trim()) continue
  const c = JSON.parse(line)
  const dir = join(root, String(n++))
  const target = join(dir, c.path)
  mkdirSync(dirname(target), { recursive: true })
  if (c.file !== null) writeFileSync(target, c.file)
  const r = await call(c, dir)
  const stray = listFiles(dir).filter((p) => p !== c.path)
  let out
  if (stray.length > 0) {
    out = { id: c.id, outcome: 'apply', result: `<wrote other files: ${stray.join(', ')}>` }
  } else if (r.ok || (existsSync(target) && readFileSync(target, 'utf8') !== c.file)) {
    out = { id: c.id, outcome: 'apply', result: existsSync(target) ? readFileSync(target, 'utf8') : '<deleted>' }
  } else {
    const cands = r.candidates ? r.candidates.map((x) => x.start_line) : r.match_lines || []
    out = { id: c.id, outcome: 'reject', code: r.code, candidates: cands, message: r.message }
  }
  rmSync(dir, { recursive: true, force: true })
  process.stdout.write(JSON.stringify(out) + '\n')
}
rmSync(root, { recursive: true, force: true })
