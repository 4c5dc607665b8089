'use strict'
// The text a model reads for a tool result: a compact, human-readable summary, never the escaped JSON
// of the whole result (structuredContent carries that).
//
// - A failure: "CODE: message", then what helps the next attempt (next_action, hint, match lines, each
//   candidate with its differences and snippet, fresh anchors, ...), every multi-line string as raw text.
// - An edit: one line per file (path, what happened, +added −removed, file_hash, edit_id), the syntax
//   report when it found new errors, then the diff as raw text.
// - view_file: one header line (path, lines, total, file_hash), then the content as raw text.
// - read_many_files, search_files, list_directory: file content as raw text (tools/summary-reads.cjs).
// - Anything else (any tool added later): each field on its own line; multi-line strings raw; arrays
//   of objects one compact JSON line per item.
//
// Also used by the command line (cli/) for its human output. CommonJS, like table.cjs.

/** Lines added and removed in a unified diff (headers excluded). */
function diffCounts(diff) {
  let added = 0
  let removed = 0
  if (typeof diff !== 'string') return { added, removed }
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) continue
    if (line.startsWith('+')) added++
    else if (line.startsWith('-')) removed++
  }
  return { added, removed }
}

const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x)
const withNewline = (s) => (s.endsWith('\n') ? s : `${s}\n`)

function scalar(v) {
  if (typeof v === 'string') return v
  return JSON.stringify(v)
}

// One field as text.
function field(key, v) {
  if (v === undefined) return ''
  if (typeof v === 'string' && v.includes('\n')) return `${key}:\n${withNewline(v)}`
  if (Array.isArray(v)) {
    if (v.length === 0) return `${key}: []\n`
    if (v.every((x) => !isObj(x) && !Array.isArray(x))) return `${key}: ${v.map(scalar).join(', ')}\n`
    return `${key}:\n${v.map((x) => `- ${JSON.stringify(x)}\n`).join('')}`
  }
  if (isObj(v)) return `${key}: ${JSON.stringify(v)}\n`
  return `${key}: ${scalar(v)}\n`
}

function rest(r, shown) {
  let out = ''
  for (const k of Object.keys(r)) if (!shown.has(k)) out += field(k, r[k])
  return out
}

function syntaxLine(s) {
  if (!isObj(s)) return ''
  if (s.ok === false && Array.isArray(s.new_errors)) {
    const errs = s.new_errors.map((e) => `  line ${e.line}:${e.column} ${e.kind === 'missing' ? `missing ${e.expected || 'token'}` : 'syntax error'}: ${e.snippet}`)
    return `syntax: the edit introduced ${s.new_errors.length} syntax error(s) (${s.language}); fix them with another edit:\n${errs.join('\n')}\n`
  }
  return ''
}

function failureText(r) {
  let out = `${r.code}: ${r.message}\n`
  const shown = new Set(['ok', 'code', 'message', 'candidates', 'syntax', 'fresh'])
  for (const k of ['next_action', 'hint', 'file_path', 'edit_index', 'match_lines']) {
    if (r[k] !== undefined) {
      out += field(k, r[k])
      shown.add(k)
    }
  }
  if (Array.isArray(r.candidates)) {
    for (const c of r.candidates) {
      if (!isObj(c)) continue
      const sim = typeof c.similarity === 'number' ? ` (similarity ${c.similarity.toFixed(2)})` : ''
      out += `candidate lines ${c.start_line}-${c.end_line}${sim}:\n`
      for (const d of Array.isArray(c.differences) ? c.differences : []) out += `  ${d}\n`
      if (typeof c.snippet === 'string') out += withNewline(c.snippet)
    }
  }
  if (typeof r.fresh === 'string') out += `fresh anchors:\n${withNewline(r.fresh)}`
  out += syntaxLine(r.syntax)
  return out + rest(r, shown)
}

// One file of an edit: "path: edited +a −b, file_hash h".
function fileLine(f, written) {
  const { added, removed } =
    typeof f.diff === 'string' ? diffCounts(f.diff) : { added: f.lines_added, removed: f.lines_removed }
  const path = typeof f.moved_to === 'string' && f.moved_to !== f.file_path ? `${f.file_path} → ${f.moved_to}` : f.file_path
  const what = f.op || f.action || (f.deleted === true ? 'deleted' : f.created === true ? 'created' : written === false ? 'would change' : 'changed')
  const counts = typeof added === 'number' && typeof removed === 'number' ? ` +${added} −${removed}` : ''
  const hash = typeof f.file_hash === 'string' ? `, file_hash ${f.file_hash}` : ''
  return `${path}: ${what}${counts}${hash}\n`
}

function journalLine(r) {
  if (r.written === false) return 'dry run: nothing was written.\n'
  let out = ''
  if (typeof r.edit_id === 'string') out += `edit_id ${r.edit_id} (undo_edit reverts it)\n`
  if (typeof r.journal_warning === 'string') out += `journal_warning: ${r.journal_warning}\n`
  return out
}

function viewText(r) {
  const more = r.truncated ? `; truncated: continue from start_line ${r.end_line + 1}` : ''
  const head = `${r.file_path}: lines ${r.start_line}-${r.end_line} of ${r.total_lines}, file_hash ${r.file_hash} (${r.encoding}, ${r.line_ending})${more}\n`
  return head + (typeof r.content === 'string' ? withNewline(r.content) : '')
}

function undoText(r) {
  let out = `undid ${r.edit_id}:\n`
  for (const f of Array.isArray(r.files) ? r.files : []) {
    out += `${f.file_path}: ${f.action}${typeof f.file_hash === 'string' ? `, file_hash ${f.file_hash}` : ''}\n`
  }
  return out
}

function editText(r) {
  let out = ''
  if (Array.isArray(r.files)) {
    for (const f of r.files) if (isObj(f)) out += fileLine(f, r.written)
  } else {
    out += fileLine(r, r.written)
  }
  out += journalLine(r)
  if (Array.isArray(r.files)) for (const f of r.files) if (isObj(f)) out += syntaxLine(f.syntax)
  out += syntaxLine(r.syntax)
  // The numbers a model may act on (line_number, changed ranges of a rewrite); the bookkeeping stays
  // in structuredContent.
  for (const k of ['line_number', 'first_changed_line', 'changed_ranges']) {
    if (r[k] !== undefined) out += field(k, r[k])
  }
  if (Array.isArray(r.files)) {
    for (const f of r.files) if (isObj(f) && typeof f.diff === 'string') out += withNewline(f.diff)
  } else if (typeof r.diff === 'string') {
    out += withNewline(r.diff)
  }
  return out
}

/** The summary text of a tool result (see the module comment). */
function summarize(name, r) {
  if (!isObj(r)) return String(r)
  if (r.ok === false) return failureText(r)
  if (name === 'view_file' && typeof r.content === 'string') return viewText(r)
  if (name === 'undo_edit') return undoText(r)
  const reads = require('./summary-reads.cjs').readsText(name, r, viewText)
  if (reads !== null) return reads
  if (name === 'list_symbols' && typeof r.outline === 'string') {
    return `${r.file_path} (${r.language}): ${r.symbol_count} symbols, file_hash ${r.file_hash}\n${r.outline}`
  }
  if (name === 'edit_symbol' && typeof r.warning === 'string') return `warning: ${r.warning}\n${editText(r)}`
  const isEdit = typeof r.diff === 'string' || 'written' in r || 'edit_id' in r
  if (isEdit && (typeof r.file_path === 'string' || Array.isArray(r.files))) return editText(r)
  return rest(r, new Set(['ok'])) || 'ok\n'
}

module.exports = { summarize, diffCounts }
