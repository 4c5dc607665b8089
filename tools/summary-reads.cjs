'use strict'
// The text a model reads for the results of the reading tools that return many files or lines
// (read_many_files, search_files, list_directory): file content as raw text, never escaped JSON.
// structuredContent keeps the result object. Used by tools/summary.cjs.

const withNewline = (s) => (s.endsWith('\n') ? s : `${s}\n`)

/** read_many_files: each file as view_file shows it (`view(item)`), a failed one as `path: CODE: message`. */
function readManyText(r, view) {
  let out = ''
  for (const f of Array.isArray(r.files) ? r.files : []) {
    if (!f || typeof f !== 'object') continue
    if (f.ok === false) out += `${f.file_path || '?'}: ${f.code}: ${f.message}\n`
    else out += view(f)
  }
  const failed = typeof r.failed === 'number' && r.failed > 0 ? `; ${r.failed} failed` : ''
  return `${(r.files || []).length} file(s)${failed}\n${out}`
}

/** search_files: per file, grep style: `N: text` for a match, `N- text` for a context line. */
function searchText(r) {
  let out = ''
  for (const f of Array.isArray(r.results) ? r.results : []) {
    if (!f || typeof f.file_path !== 'string') continue
    out += `${f.file_path}:\n`
    for (const m of Array.isArray(f.matches) ? f.matches : []) {
      const before = Array.isArray(m.before) ? m.before : []
      before.forEach((l, i) => (out += `${m.line_number - before.length + i}- ${l}\n`))
      out += `${m.line_number}: ${m.text}\n`
      ;(Array.isArray(m.after) ? m.after : []).forEach((l, i) => (out += `${m.line_number + 1 + i}- ${l}\n`))
    }
  }
  const more = r.truncated ? ' (truncated: narrow the search with path or glob)' : ''
  return `${r.match_count} matching line(s)${more}\n${out}`
}

/** list_directory: one entry per line, directories with a trailing `/`, files with their size. */
function listText(r) {
  let out = `${r.path}: ${(r.entries || []).length} entries${r.truncated ? ' (truncated: more remain)' : ''}\n`
  for (const e of Array.isArray(r.entries) ? r.entries : []) {
    if (!e || typeof e.path !== 'string') continue
    if (e.type === 'directory') out += `${e.path}/\n`
    else if (e.type === 'file') out += `${e.path}${typeof e.size === 'number' ? ` (${e.size} bytes)` : ''}\n`
    else out += `${e.path} (${e.type})\n`
  }
  return out
}

/** The text of `name`'s successful result `r`, or null for a tool this module does not cover. */
function readsText(name, r, view) {
  if (name === 'read_many_files' && Array.isArray(r.files)) return readManyText(r, view)
  if (name === 'search_files' && Array.isArray(r.results)) return searchText(r)
  if (name === 'list_directory' && Array.isArray(r.entries)) return listText(r)
  return null
}

module.exports = { readsText, withNewline }
