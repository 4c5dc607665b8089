'use strict'
// Which tools the MCP server lists (`--tools`): a comma list of tool names and profiles.
//
// - `minimal`: the edit loop and the tools its hints send a model to (view_file, edit_file,
//   edit_lines, write_file).
// - `default`: minimal, plus a multi-file patch (apply_patch), search and listing, and undo: what a
//   coding agent needs in a session, within 2,500 tokens (o200k) of tools/list (__test__/tools-list.test.mjs).
// - `all`: every tool of tools/table.cjs.
//
// A failure's hint may name view_file, edit_lines, write_file or edit_file (the fallback ladder): a
// selection without them still works, and the server says on stderr which of them it leaves out.

const PROFILES = {
  minimal: ['view_file', 'edit_file', 'edit_lines', 'write_file'],
  default: ['view_file', 'patch_file', 'edit_file', 'edit_lines', 'write_file', 'apply_patch', 'search_files', 'list_directory', 'undo_edit'],
  all: null,
}

/** The tools hints may send a model to. */
const HINTED = ['view_file', 'edit_file', 'edit_lines', 'write_file']

/**
 * The tool names `spec` selects ("default" when undefined), in the order of `all` (every declared
 * tool name). Throws an Error naming the unknown entry.
 */
function selectTools(spec, all) {
  const parts = Array.isArray(spec) ? spec : String(spec === undefined ? 'default' : spec).split(',')
  const chosen = new Set()
  for (const raw of parts) {
    const p = String(raw).trim()
    if (p === '') continue
    if (Object.prototype.hasOwnProperty.call(PROFILES, p)) {
      for (const n of PROFILES[p] || all) chosen.add(n)
    } else if (all.includes(p)) {
      chosen.add(p)
    } else {
      throw new Error(`--tools: unknown tool or profile ${JSON.stringify(p)}; profiles are ${Object.keys(PROFILES).join(', ')}, tools are ${all.join(', ')}`)
    }
  }
  if (chosen.size === 0) throw new Error('--tools selects no tool')
  return all.filter((n) => chosen.has(n))
}

module.exports = { PROFILES, HINTED, selectTools }
