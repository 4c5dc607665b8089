// Benchmark (not a test): what one edit costs a model in output tokens, format by format.
//
// The subject is a real source file that ships in node_modules (express's lib/response.js, its first
// 1,000 lines). Two changes are defined on it by rule (see `pickLines` and `editLine`): a small one (one
// line edited, near the middle) and a five-place one (five one-line edits spread over the file). Each
// change is written the way a model would emit it in every format: the raw text of a full rewrite, a
// unified diff, SEARCH/REPLACE blocks and an apply_patch envelope; the JSON arguments of the patch_file,
// edit_file and edit_lines tool calls. Every payload is first applied with surepatch to a fresh copy of
// the file and must give the expected file byte for byte, so every number is for a payload that works;
// any failure exits non-zero. Tokens: o200k_base (gpt-tokenizer). Prints a Markdown table and writes
// bench/TOKENS.md and bench/tokens.json.
//
//   npm run tokens               (needs the addon built: npm run build)
//   node bench/tokens.mjs --show (also print every payload)
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'

const require = createRequire(import.meta.url)
const here = fileURLToPath(new URL('.', import.meta.url))
const sp = require('../index.js')
const SHOW = process.argv.includes('--show') // also print every payload

// ---------------------------------------------------------------------------------------------------
// The subject file.
const SUBJECT_PKG = 'express'
const SUBJECT_FILE = 'lib/response.js'
const LINES = 1000
const pkgJson = require(`${SUBJECT_PKG}/package.json`)
const srcPath = join(dirname(require.resolve(`${SUBJECT_PKG}/package.json`)), SUBJECT_FILE)
const allLines = readFileSync(srcPath, 'utf8').split('\n')
if (allLines[allLines.length - 1] === '') allLines.pop()
if (allLines.length < LINES) fail(`${srcPath} has ${allLines.length} lines, fewer than ${LINES}`)
if (allLines.some((l) => l.includes('\r'))) fail(`${srcPath} has CR line endings; the benchmark expects LF`)
const original = allLines.slice(0, LINES)
const originalText = original.join('\n') + '\n'
const subject = `${SUBJECT_PKG}@${pkgJson.version} ${SUBJECT_FILE}`
const subjectNote = `${subject} (first ${fmt(LINES)} of ${fmt(allLines.length)} lines, ${fmt(originalText.length)} characters)`
const FILE = SUBJECT_FILE // the path the payloads name, relative to the temp workspace root

// ---------------------------------------------------------------------------------------------------
// The changes, by rule. A target line is snapped forward to the first code line (not blank, not a
// comment line) at least 16 characters long once trimmed; the edit gives the first word of 4+ letters
// that is not a keyword the suffix "2" (a one-identifier rename, mid-line, like most small fixes).
const KEYWORDS = new Set(
  'else return function this typeof true false null undefined throw break case switch while const void delete instanceof continue default catch finally require module exports'.split(
    ' ',
  ),
)

function isCode(line) {
  const t = line.trim()
  return t.length >= 16 && !t.startsWith('//') && !t.startsWith('*') && !t.startsWith('/*')
}

function editLine(line) {
  const re = /[A-Za-z_$][\w$]*/g
  let m
  while ((m = re.exec(line))) {
    const w = m[0]
    if (w.length >= 4 && /^[A-Za-z]+$/.test(w) && !KEYWORDS.has(w)) {
      return line.slice(0, m.index) + w + '2' + line.slice(m.index + w.length)
    }
  }
  return null
}

function pickLines(targets) {
  return targets.map((t) => {
    for (let i = t - 1; i < original.length; i++) {
      if (isCode(original[i]) && editLine(original[i]) !== null) return i
    }
    return fail(`no editable line at or after line ${t}`)
  })
}

const SCENARIOS = [
  { key: 'small', title: 'one line', targets: [500] },
  { key: 'five', title: 'five places', targets: [100, 300, 500, 700, 900] },
].map((s) => {
  const idx = pickLines(s.targets) // 0-based
  const after = original.slice()
  for (const i of idx) after[i] = editLine(original[i])
  return { ...s, idx, after, expected: after.join('\n') + '\n' }
})

// ---------------------------------------------------------------------------------------------------
// Helpers.
function fmt(n) {
  return n.toLocaleString('en-US')
}

function fail(msg) {
  console.error(`tokens: ${msg}`)
  process.exit(1)
}

// Every `tier` reported anywhere in a result object.
function tiersOf(r) {
  if (Array.isArray(r)) return r.flatMap(tiersOf)
  if (!r || typeof r !== 'object') return []
  return Object.entries(r).flatMap(([k, v]) => (k === 'tier' ? [v] : tiersOf(v)))
}

function countOf(hay, needle) {
  let n = 0
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + 1)) n++
  return n
}

// The smallest window of whole lines around line `i` whose text (as `render` writes it) occurs exactly
// once in `text`: grow one line below, then one above, alternately (clipped at the file's ends).
function uniqueWindow(lines, text, i, render) {
  let a = i
  let b = i
  for (let turn = 0; ; turn++) {
    if (countOf(text, render(lines.slice(a, b + 1))) === 1) return [a, b]
    if (a === 0 && b === lines.length - 1) return fail(`line ${i + 1} has no unique window`)
    if ((turn % 2 === 0 && b < lines.length - 1) || a === 0) b++
    else a--
  }
}

// Hunks of 1:1 line replacements with `ctx` lines of context, merged when their windows touch.
function hunks(before, changed, ctx) {
  const out = []
  for (const i of [...changed].sort((x, y) => x - y)) {
    const a = Math.max(0, i - ctx)
    const b = Math.min(before.length - 1, i + ctx)
    const last = out[out.length - 1]
    if (last && a <= last.b + 1) {
      last.b = b
      last.changed.push(i)
    } else out.push({ a, b, changed: [i] })
  }
  return out
}

function hunkBody(h, before, after) {
  const rows = []
  for (let k = h.a; k <= h.b; k++) {
    if (h.changed.includes(k)) rows.push(`-${before[k]}`, `+${after[k]}`)
    else rows.push(` ${before[k]}`)
  }
  return rows
}

// ---------------------------------------------------------------------------------------------------
// The formats: each builds payloads from a scenario and applies them in a workspace root.
const FORMATS = [
  {
    key: 'rewrite',
    name: 'Full rewrite (raw file text)',
    build: (s) => [s.expected],
    apply: (root, [content]) => sp.writeFile(FILE, content, { workspace_root: root }),
  },
  {
    key: 'unified_diff',
    name: 'Unified diff (3 lines of context)',
    build: (s) => {
      const rows = [`--- a/${FILE}`, `+++ b/${FILE}`]
      for (const h of hunks(original, s.idx, 3)) {
        const n = h.b - h.a + 1
        rows.push(`@@ -${h.a + 1},${n} +${h.a + 1},${n} @@`, ...hunkBody(h, original, s.after))
      }
      return [rows.join('\n') + '\n']
    },
    apply: (root, [text]) => sp.applyUnifiedDiff(text, { workspace_root: root }),
  },
  {
    key: 'patch_file',
    name: '`patch_file` arguments (JSON, one call per place)',
    build: (s) => {
      // Sequential calls: each search text is the smallest unique one in the file as that call sees it.
      const cur = original.slice()
      return s.idx.map((i) => {
        const [a, b] = uniqueWindow(cur, cur.join('\n') + '\n', i, (ls) => ls.join('\n'))
        const search_block = cur.slice(a, b + 1).join('\n')
        cur[i] = s.after[i]
        const replace_block = cur.slice(a, b + 1).join('\n')
        return JSON.stringify({ file_path: FILE, search_block, replace_block })
      })
    },
    apply: async (root, payloads) => {
      const runner = sp.createToolRunner({ workspaceRoot: root })
      let r
      for (const p of payloads) {
        r = await runner.call('patch_file', JSON.parse(p))
        if (!r.ok) return r
      }
      return r
    },
  },
  {
    key: 'edit_file',
    name: '`edit_file` arguments (JSON, one call)',
    build: (s) => {
      const edits = s.idx.map((i) => {
        const [a, b] = uniqueWindow(original, originalText, i, (ls) => ls.join('\n'))
        return { old: original.slice(a, b + 1).join('\n'), new: s.after.slice(a, b + 1).join('\n') }
      })
      return [JSON.stringify({ file_path: FILE, edits })]
    },
    apply: (root, [p]) => sp.createToolRunner({ workspaceRoot: root }).call('edit_file', JSON.parse(p)),
  },
  {
    key: 'search_replace',
    name: 'SEARCH/REPLACE blocks (path line once)',
    build: (s) => {
      // A block body is whole lines, each ending in a newline: uniqueness is judged on that text.
      const rows = [FILE]
      for (const i of s.idx) {
        const [a, b] = uniqueWindow(original, originalText, i, (ls) => ls.join('\n') + '\n')
        rows.push('<<<<<<< SEARCH', ...original.slice(a, b + 1), '=======', ...s.after.slice(a, b + 1), '>>>>>>> REPLACE')
      }
      return [rows.join('\n') + '\n']
    },
    apply: (root, [text]) => sp.applyBlocks(text, { workspace_root: root }),
  },
  {
    key: 'apply_patch',
    name: '`apply_patch` envelope (3 lines of context)',
    build: (s) => {
      const rows = ['*** Begin Patch', `*** Update File: ${FILE}`]
      for (const h of hunks(original, s.idx, 3)) rows.push('@@', ...hunkBody(h, original, s.after))
      rows.push('*** End Patch')
      return [rows.join('\n') + '\n']
    },
    apply: (root, [text]) => sp.applyPatch(text, { workspace_root: root }),
  },
  {
    key: 'edit_lines',
    name: '`edit_lines` arguments (JSON, hashline anchors)',
    // Anchors come from a hashline view of the original file (what the model read before editing).
    build: (s, view) => {
      const ops = s.idx.map((i) => ({ op: 'replace', start: view[i], lines: [s.after[i]] }))
      return [JSON.stringify({ file_path: FILE, ops })]
    },
    apply: (root, [p]) => sp.createToolRunner({ workspaceRoot: root }).call('edit_lines', JSON.parse(p)),
  },
]

// ---------------------------------------------------------------------------------------------------
// Run.
const base = mkdtempSync(join(tmpdir(), 'surepatch-tokens-'))
let runs = 0
function freshRoot() {
  const root = join(base, String(runs++))
  mkdirSync(join(root, dirname(FILE)), { recursive: true })
  writeFileSync(join(root, FILE), originalText)
  return root
}

const results = []
try {
  // The hashline anchors of every line, as `N:tag`.
  const viewRoot = freshRoot()
  const v = await sp.viewFile(FILE, { workspace_root: viewRoot, format: 'hashline' })
  if (!v.ok) fail(`viewFile: ${v.code}: ${v.message}`)
  const view = v.content.split('\n').slice(0, LINES).map((l) => l.slice(0, l.indexOf('|')))
  if (view.length !== LINES || view.some((a) => !/^\d+:\S+$/.test(a))) fail('unexpected hashline view')

  for (const f of FORMATS) {
    const row = { key: f.key, format: f.name }
    for (const s of SCENARIOS) {
      const payloads = f.build(s, view)
      if (SHOW) console.log(`===== ${f.key} / ${s.key}\n${payloads.join('\n')}`)
      const root = freshRoot()
      const r = await f.apply(root, payloads)
      if (!r || r.ok !== true) fail(`${f.key} / ${s.key}: ${r && r.code}: ${r && r.message}\n${payloads.join('\n')}`)
      const got = readFileSync(join(root, FILE))
      if (!got.equals(Buffer.from(s.expected, 'utf8'))) fail(`${f.key} / ${s.key}: the file differs from the expected one`)
      // A payload that only landed through a tolerance tier would not be the payload we meant to count.
      const loose = tiersOf(r).filter((t) => t !== 'exact')
      if (loose.length) fail(`${f.key} / ${s.key}: matched at tier ${loose.join(', ')}, not exact`)
      row[s.key] = {
        calls: payloads.length,
        tokens: payloads.reduce((n, p) => n + encode(p).length, 0),
        chars: payloads.reduce((n, p) => n + p.length, 0),
      }
    }
    results.push(row)
  }
} finally {
  rmSync(base, { recursive: true, force: true })
}

// ---------------------------------------------------------------------------------------------------
// Report.
const changeNote = (s) => s.idx.map((i) => i + 1).join(', ')
const table = [
  '| Format | 1 line: tokens | 1 line: chars | 5 places: tokens | 5 places: chars |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...results.map(
    (r) => `| ${r.format} | ${fmt(r.small.tokens)} | ${fmt(r.small.chars)} | ${fmt(r.five.tokens)} | ${fmt(r.five.chars)} |`,
  ),
].join('\n')

const md = `# Output tokens per edit format

Generated by \`npm run tokens\` (bench/tokens.mjs). File: ${subjectNote}. Tokenizer: o200k_base
(gpt-tokenizer ${require('gpt-tokenizer/package.json').version}). The one-line change edits line ${changeNote(SCENARIOS[0])}; the
five-place change edits lines ${changeNote(SCENARIOS[1])}; each edit renames one identifier. Every payload was applied
with surepatch to a fresh copy of the file and gave the expected file byte for byte, matching exactly (no
tolerance tier).

${table}

Counted: the raw text for the rewrite, the diff, the SEARCH/REPLACE blocks (no markdown fences) and the
envelope; the compact JSON arguments for the tool calls. \`patch_file\` takes one call per place, so its
five-place numbers are five calls summed (the per-call framing of a tool call is not counted anywhere).
Search texts are the smallest unique run of whole lines (grown one line below, then one above, until it
occurs once); the diff and the envelope carry 3 lines of context; \`edit_lines\` anchors come from a
hashline view of the file that the model has already read.
`

const json = {
  subject,
  subject_lines: LINES,
  subject_total_lines: allLines.length,
  subject_chars: originalText.length,
  tokenizer: 'o200k_base',
  tokenizer_package: `gpt-tokenizer@${require('gpt-tokenizer/package.json').version}`,
  changes: Object.fromEntries(SCENARIOS.map((s) => [s.key, { lines: s.idx.map((i) => i + 1) }])),
  formats: results,
}

console.log(md)
writeFileSync(join(here, 'TOKENS.md'), md)
writeFileSync(join(here, 'tokens.json'), JSON.stringify(json, null, 2) + '\n')
