'use strict'
// What a failure's `message` and `hint` name, per surface. The engine writes them once, naming the
// MCP tools (view_file, edit_lines, write_file) and the library's argument names (old, new,
// expected_replacements, overwrite: true, validate); a caller can only act on the names of the surface
// that answered it. Each surface rewrites the engine's words through one table here:
//
// - `LIBRARY`: the library's functions (index.js applies it to every result): function names instead
//   of tool names (viewFile, editLines), and per op the arguments it takes (patchFile: search_block).
//   The other surfaces read the library's results, so their tables start from these words.
// - `MCP`: every MCP tool (and createToolRunner / toolDefinitions, the same tools without MCP), with
//   per-tool rows first (patch_file takes search_block / replace_block, not old / new; apply_patch
//   takes a patch, whose SEARCH text or hunk context is what to widen).
// - `CLI`: `surepatch apply` / `view` / `undo` and `apply_patch` (flags and commands, no tools).
//
// A row is [RegExp (global), replacement string or function (match, ...groups, ctx)]; `ctx` is the
// failure itself (for its file_path). Only `message` and `hint` are rewritten; codes and every other
// field are the engine's.

// The library's function names, as MCP tools.
const LIBRARY_TO_TOOL = {
  applyEdits: 'edit_file',
  editLines: 'edit_lines',
  writeFile: 'write_file',
  viewFile: 'view_file',
  patchFile: 'patch_file',
  mergeSnippet: 'merge_snippet',
  applyPatch: 'apply_patch',
  undoEdit: 'undo_edit',
  moveFile: 'move_file',
  deleteFile: 'delete_file',
  createCheckpoint: 'create_checkpoint',
  restoreCheckpoint: 'restore_checkpoint',
  listCheckpoints: 'list_checkpoints',
  listSymbols: 'list_symbols',
  editSymbol: 'edit_symbol',
}
const libraryNames = new RegExp(`\\b(${Object.keys(LIBRARY_TO_TOOL).join('|')})\\b`, 'g')

// The syntax gate's clause for a caller who sets `validate`: under MCP and the CLI the caller is not the
// one who sets it that way.
const GATE_CLAUSE = /; if the break is intended, the caller can switch the gate to validate: "report"\./g

// Text that names `old` / `new` / `expected_replacements` of an edit, for surfaces that take a SEARCH
// text (or a hunk) instead.
const searchTextRows = (search, both, every) => [
  [/neighbouring lines to old until it is unique, or set expected_replacements to replace every occurrence\./g, `neighbouring lines to ${search} until it is unique${every}.`],
  [/\bout of both old and new\b/g, `out of ${both}`],
  [/\bchange old so\b/g, `change ${search} so`],
]
// A SEARCH/REPLACE block or an apply_patch / unified hunk.
const PATCH_ROWS = searchTextRows("the SEARCH text (or the hunk's context)", 'both the SEARCH and the REPLACE text (or the hunk)', '')

// The MCP tools, as library functions (`apply_patch` is left alone: it is also the format's name).
const TOOL_TO_LIBRARY = {
  view_file: 'viewFile',
  edit_lines: 'editLines',
  write_file: 'writeFile',
  edit_file: 'applyEdits',
  patch_file: 'patchFile',
  merge_snippet: 'mergeSnippet',
  undo_edit: 'undoEdit',
  move_file: 'moveFile',
  delete_file: 'deleteFile',
  create_checkpoint: 'createCheckpoint',
  restore_checkpoint: 'restoreCheckpoint',
  list_checkpoints: 'listCheckpoints',
}
const toolNames = new RegExp(`\\b(${Object.keys(TOOL_TO_LIBRARY).join('|')})\\b`, 'g')

const LIBRARY_COMMON = [[toolNames, (m) => TOOL_TO_LIBRARY[m]]]
const LIBRARY_OPS = {
  patch_file: [
    // patchFile itself takes replace_all (the MCP tool takes it too, but does not advertise it).
    ...searchTextRows('search_block', 'both search_block and replace_block', ', or set replace_all: true to replace every occurrence'),
    [/(^|: )edits\[0\] /g, '$1replace_block '],
  ],
  apply_blocks: PATCH_ROWS,
  apply_patch: PATCH_ROWS,
  apply_unified_diff: PATCH_ROWS,
}

/** The rows of library op `op` (snake_case, as in the op table): its own first, then every op's. */
function libraryRows(op) {
  return [...(LIBRARY_OPS[op] || []), ...LIBRARY_COMMON]
}

const MCP_COMMON = [
  [GATE_CLAUSE, '.'],
  [libraryNames, (m) => LIBRARY_TO_TOOL[m]],
]

const MCP_TOOLS = {
  patch_file: [
    ...searchTextRows('search_block', 'both search_block and replace_block', ' (to replace every occurrence, use edit_file with expected_replacements)'),
    // The library's patchFile wording (the tool takes replace_all without advertising it).
    [/, or set replace_all: true to replace every occurrence\./g, ' (to replace every occurrence, use edit_file with expected_replacements).'],
    [/(^|: )edits\[0\] /g, '$1replace_block '],
  ],
  apply_patch: PATCH_ROWS,
  // The server keeps its checkpoints in memory: no journal directory to name.
  restore_checkpoint: [[/, and with a journal_dir in it \(pass the same one\)/g, ' (this server\'s, since it started)']],
}

const fileOf = (ctx) => (ctx && typeof ctx.file_path === 'string' && ctx.file_path && !/\s/.test(ctx.file_path) ? ctx.file_path : 'FILE')

const CLI = [
  [GATE_CLAUSE, '; if the break is intended, pass --validate report.'],
  [/\bpass overwrite: true\b/g, 'pass --overwrite'],
  [/\bfrom (?:createCheckpoint|create_checkpoint)\)/g, 'from surepatch checkpoint)'],
  [/\brestore with force\b/g, 'run undo again with --force'],
  [/\bwith a journal_dir in it \(pass the same one\)/g, 'in the journal of this root (the same --journal-dir)'],
  [/\((?:view_file|viewFile) with start_line (\d+) and end_line (\d+)\)/g, (_m, a, b, ctx) => `(surepatch view ${fileOf(ctx)} --numbered --range ${a}:${b})`],
  [/\((?:view_file|viewFile)\)/g, (_m, ctx) => `(surepatch view ${fileOf(ctx)})`],
  [
    /view the file with format "hashline" and edit the lines with (?:edit_lines|editLines) using their N:tag anchors\./g,
    (_m, ctx) => `view the file (surepatch view ${fileOf(ctx)} --numbered) and send a patch whose lines are copied from it exactly.`,
  ],
  [
    /View the file with format "hashline" and edit with (?:edit_lines|editLines) using the N:tag anchors; the file is too large to rewrite whole\./g,
    (_m, ctx) => `View the file (surepatch view ${fileOf(ctx)} --numbered) and send a patch whose lines are copied from it exactly; the file is too large to rewrite whole.`,
  ],
  [/rewrite it whole with (?:write_file|writeFile) \(send the complete content\)/g, 'rewrite it whole: send it as "*** Add File" with its complete content and --overwrite'],
  ...PATCH_ROWS,
]

function rewrite(text, rows, ctx) {
  let s = text
  for (const [re, to] of rows) {
    re.lastIndex = 0
    s = typeof to === 'function' ? s.replace(re, (...a) => to(...a.slice(0, a.findIndex((x) => typeof x === 'number')), ctx)) : s.replace(re, to)
  }
  return s
}

/** A failure with its message and hint in `rows`' words (a new object); anything else as it is. */
function speak(result, rows) {
  if (!result || result.ok !== false) return result
  const out = Object.assign({}, result)
  for (const k of ['message', 'hint']) if (typeof out[k] === 'string') out[k] = rewrite(out[k], rows, result)
  return out
}

/** The rows of MCP tool `name`: its own first, then those of every tool. */
function mcpRows(name) {
  return [...(MCP_TOOLS[name] || []), ...MCP_COMMON]
}

module.exports = { speak, mcpRows, libraryRows, CLI, MCP_TOOLS, MCP_COMMON, LIBRARY_OPS, LIBRARY_TO_TOOL, TOOL_TO_LIBRARY }
