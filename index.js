'use strict'
// surepatch: deterministic, verifiable file edits for LLM coding agents.
//
// This file is the public door. It checks what JSON cannot carry faithfully (lone surrogates, BigInt,
// cycles), hands the arguments to the Rust engine as JSON, and parses the engine's answer. Every call
// that touches files returns a Promise that resolves to `{ok: true, ...}` or `{ok: false, code, ...}`;
// it never rejects for a user error.

const native = require('./binding.js')

/** Every failure code, as a constant object (`ErrorCode.SEARCH_BLOCK_NOT_FOUND === 'SEARCH_BLOCK_NOT_FOUND'`). */
const ErrorCode = Object.freeze({
  INVALID_INPUT: 'INVALID_INPUT',
  PATH_OUTSIDE_WORKSPACE: 'PATH_OUTSIDE_WORKSPACE',
  TARGET_IS_DIRECTORY: 'TARGET_IS_DIRECTORY',
  FILE_NOT_FOUND: 'FILE_NOT_FOUND',
  FILE_EXISTS: 'FILE_EXISTS',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  BINARY_FILE_REJECTED: 'BINARY_FILE_REJECTED',
  ENCODING_UNSUPPORTED: 'ENCODING_UNSUPPORTED',
  FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  SEARCH_BLOCK_NOT_FOUND: 'SEARCH_BLOCK_NOT_FOUND',
  SEARCH_BLOCK_AMBIGUOUS: 'SEARCH_BLOCK_AMBIGUOUS',
  MATCH_COUNT_MISMATCH: 'MATCH_COUNT_MISMATCH',
  OVERLAPPING_EDITS: 'OVERLAPPING_EDITS',
  NO_CHANGES: 'NO_CHANGES',
  PARSE_ERROR: 'PARSE_ERROR',
  STALE_FILE: 'STALE_FILE',
  STALE_ANCHOR: 'STALE_ANCHOR',
  ELIDED_CONTENT: 'ELIDED_CONTENT',
  EDIT_NOT_FOUND: 'EDIT_NOT_FOUND',
  FILE_READ_ERROR: 'FILE_READ_ERROR',
  FILE_WRITE_ERROR: 'FILE_WRITE_ERROR',
  LOCK_TIMEOUT: 'LOCK_TIMEOUT',
  SYNTAX_ERROR_INTRODUCED: 'SYNTAX_ERROR_INTRODUCED',
  REWRITE_TOO_BROAD: 'REWRITE_TOO_BROAD',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
})

function failure(code, message, extra) {
  return Object.assign({ ok: false, code, message }, extra)
}

// Finds the first string that is not well-formed UTF-16 (a lone surrogate), which JSON would carry
// as an escape the engine cannot decode, and which must never be written as U+FFFD.
const hasWellFormed = typeof ''.isWellFormed === 'function'
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
function illFormed(value, where, depth) {
  if (typeof value === 'string') {
    const ok = hasWellFormed ? value.isWellFormed() : !LONE.test(value)
    return ok ? null : where
  }
  if (depth > 64 || value === null || typeof value !== 'object') return null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = illFormed(value[i], `${where}[${i}]`, depth + 1)
      if (bad) return bad
    }
    return null
  }
  for (const key of Object.keys(value)) {
    const bad = illFormed(value[key], `${where}.${key}`, depth + 1)
    if (bad) return bad
  }
  return null
}

function encode(names, args) {
  try {
    for (let i = 0; i < args.length; i++) {
      const bad = illFormed(args[i], names[i] || `argument ${i + 1}`, 0)
      if (bad) {
        return { error: failure('INVALID_INPUT', `${bad} contains a lone UTF-16 surrogate; send well-formed text (nothing was written).`) }
      }
    }
  } catch (e) {
    // A getter or Proxy trap that throws: refuse, never throw at the caller.
    return { error: failure('INVALID_INPUT', `arguments cannot be read: ${e && e.message ? e.message : e}`) }
  }
  try {
    return { payload: JSON.stringify(args, (_k, v) => (v === undefined ? null : v)) }
  } catch (e) {
    return { error: failure('INVALID_INPUT', `arguments cannot be serialized: ${e && e.message ? e.message : e}`) }
  }
}

function decode(text) {
  try {
    return JSON.parse(text)
  } catch (e) {
    return failure('INTERNAL_ERROR', `the engine returned malformed JSON: ${e.message}`)
  }
}

function callAsync(op, names, args) {
  const { payload, error } = encode(names, args)
  if (error) return Promise.resolve(error)
  let pending
  try {
    pending = native.call(op, payload)
  } catch (e) {
    return Promise.resolve(failure('INTERNAL_ERROR', `native call failed: ${e && e.message ? e.message : e}`))
  }
  return pending.then(decode, (e) => failure('INTERNAL_ERROR', `native call failed: ${e && e.message ? e.message : e}`))
}

function callSync(op, names, args) {
  const { payload, error } = encode(names, args)
  if (error) return error
  try {
    return decode(native.callSync(op, payload))
  } catch (e) {
    return failure('INTERNAL_ERROR', `native call failed: ${e && e.message ? e.message : e}`)
  }
}

/** Replace the one occurrence of `search_block` in a file. */
function patchFile(input, options) {
  return callAsync('patch_file', ['input', 'options'], [input, options])
}

/** Apply a batch of `{old, new}` edits to one file, all or nothing. */
function applyEdits(filePath, edits, options) {
  return callAsync('apply_edits', ['filePath', 'edits', 'options'], [filePath, edits, options])
}

/** `applyEdits` as a dry run: the full receipt, nothing written. */
function previewEdits(filePath, edits, options) {
  return callAsync('preview_edits', ['filePath', 'edits', 'options'], [filePath, edits, options])
}

/**
 * Every path an edit set touches (a list of paths, an apply_patch text, SEARCH/REPLACE path blocks or a
 * unified diff), relative to the workspace root, and the narrowest covering glob. Reads and writes nothing.
 */
function permissionScope(input, options) {
  return callAsync('permission_scope', ['input', 'options'], [input, options])
}

/** Counters since start (or since the last `{reset: true}`). Synchronous. */
function getStats(options) {
  return callSync('get_stats', ['options'], [options])
}

/** Appends one JSON line per call to `path` (never file content); `null` turns the log off. Synchronous. */
function setEventLog(path) {
  return callSync('set_event_log', ['path'], [path === undefined ? null : path])
}

/** Read a file (or a line range): plain, `cat -n` numbered, or hashline (`N:tag|text`) for editLines. */
function viewFile(filePath, options) {
  return callAsync('view_file', ['filePath', 'options'], [filePath, options])
}

/** Line-anchored edits (`{op, start: "12:tag", end?, lines?|text?}`), all anchors checked first. */
function editLines(filePath, ops, options) {
  return callAsync('edit_lines', ['filePath', 'ops', 'options'], [filePath, ops, options])
}

/** Create a file (refused with FILE_EXISTS unless `overwrite`); parent directories are created. */
function createFile(filePath, content, options) {
  return callAsync('create_file', ['filePath', 'content', 'options'], [filePath, content, options])
}

/** Rewrite an existing file whole, keeping its encoding and line endings. */
function writeFile(filePath, content, options) {
  return callAsync('write_file', ['filePath', 'content', 'options'], [filePath, content, options])
}

/** Delete a file (undoable). */
function deleteFile(filePath, options) {
  return callAsync('delete_file', ['filePath', 'options'], [filePath, options])
}

/** Undo a journaled edit by its `edit_id`, or the newest journaled edit of a file path. */
function undoEdit(editIdOrPath, options) {
  return callAsync('undo_edit', ['editIdOrPath', 'options'], [editIdOrPath, options])
}

/** Apply an `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`) to the workspace, all files or none. */
function applyPatch(patchText, options) {
  return callAsync('apply_patch', ['patchText', 'options'], [patchText, options])
}

/** Apply SEARCH/REPLACE blocks (each under its file path, or all to `options.file_path`), all files or none. */
function applyBlocks(text, options) {
  return callAsync('apply_blocks', ['text', 'options'], [text, options])
}

/** Apply a unified diff (plain or git), all files or none; line numbers are hints only. */
function applyUnifiedDiff(diffText, options) {
  return callAsync('apply_unified_diff', ['diffText', 'options'], [diffText, options])
}

/** Parse SEARCH/REPLACE blocks into `{old, new}` edits, ignoring paths (synchronous; touches no files). */
function parseBlocks(text) {
  return callSync('parse_blocks', ['text'], [text])
}

/** Parse SEARCH/REPLACE blocks with the file path written before each (synchronous; touches no files). */
function parsePathBlocks(text) {
  return callSync('parse_path_blocks', ['text'], [text])
}

/** Every failure code with one sentence on what to do about it (synchronous; touches no files). */
function errorCodes() {
  return callSync('codes', [], []).codes
}

module.exports = {
  ErrorCode,
  patchFile,
  applyEdits,
  previewEdits,
  viewFile,
  editLines,
  createFile,
  writeFile,
  deleteFile,
  undoEdit,
  applyPatch,
  applyBlocks,
  applyUnifiedDiff,
  parseBlocks,
  parsePathBlocks,
  errorCodes,
  permissionScope,
  getStats,
  setEventLog,
  // Internal, for the MCP server and tests: run any engine operation by name.
  _callAsync: callAsync,
  _callSync: callSync,
}

// Agent tools: ready-made definitions for harnesses that do not speak MCP, and a runner that calls
// them with the workspace root fixed by the host. Both come from mcp/tools.cjs, the same source as the
// MCP server's schemas and schemas/*.json. A getter, so tools whose functions are added to
// module.exports later in this file are included.
const agentTools = require('./mcp/tools.cjs')
let definitions
Object.defineProperty(module.exports, 'toolDefinitions', {
  enumerable: true,
  get: () => definitions || (definitions = agentTools.toolDefinitions(module.exports)),
})
module.exports.createToolRunner = (options) => agentTools.createToolRunner(module.exports, options)
