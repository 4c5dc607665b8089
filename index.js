'use strict'
// surepatch: deterministic, verifiable file edits for LLM coding agents.
//
// This file is the public door. It checks what JSON cannot carry faithfully (lone surrogates, BigInt,
// cycles), hands the arguments to the Rust engine as JSON, and parses the engine's answer. Every call
// that touches files returns a Promise that resolves to `{ok: true, ...}` or `{ok: false, code, ...}`;
// it never rejects for a user error.

const native = require('./binding.js')

// Test hook: with SUREPATCH_RECORD_RESULTS=<dir> set when this file loads, every result the engine
// returns through callAsync / callSync below is also appended to a file in <dir> (record.cjs), which
// `npm test` checks against schemas/. Read once: unset, nothing is loaded and results go straight back.
const recorder = process.env.SUREPATCH_RECORD_RESULTS ? require('./record.cjs') : null

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
  ALREADY_APPLIED: 'ALREADY_APPLIED',
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

// Arguments cross into the engine as JSON. Before anything is serialized, the arguments are copied
// once into plain data (strings, finite numbers, booleans, null, arrays, plain objects), reading each
// property exactly once, so that what is checked is what is sent (a getter or Proxy cannot answer one
// thing to the check and another to JSON.stringify). The copy refuses, with INVALID_INPUT:
// - strings that are not well-formed UTF-16 (a lone surrogate, which must never be written as U+FFFD);
// - numbers JSON cannot carry (NaN, ±Infinity: JSON.stringify would turn them into null, i.e. absent);
// - BigInt, binary data (Buffer, typed arrays, ArrayBuffer), cycles, nesting deeper than MAX_DEPTH;
// - arrays whose length is above MAX_ARRAY_LENGTH, checked before any element is read (a Proxy
//   claiming 10⁹ elements, or `new Array(2 ** 32 - 1)`, is refused at once instead of iterated), and
//   arrays with holes (JSON would send null for each).
// Like JSON.stringify: toJSON is honoured, String/Number/Boolean objects are unwrapped, undefined,
// functions and symbols are left out of objects (null in arrays); only own enumerable keys count.
const MAX_DEPTH = 64
const MAX_ARRAY_LENGTH = 1 << 24
const hasWellFormed = typeof ''.isWellFormed === 'function'
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

// Argument objects whose keys are the tool's own argument names: messages name those keys bare
// (`search_block`, not `input.search_block`), as a model knows them.
const ROOTS = new Set(['input', 'options'])

class Refusal {
  constructor(message) {
    this.message = message
  }
}

function plain(value, where, key, depth, stack) {
  // Binary data is not text (and a Buffer's toJSON would first copy it into an array of numbers).
  if (value !== null && typeof value === 'object' && (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)) {
    throw new Refusal(`${where} is binary data (${Object.prototype.toString.call(value).slice(8, -1)}); send text as a string (nothing was written).`)
  }
  if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.toJSON === 'function') {
    value = value.toJSON(key)
  }
  if (value instanceof String || value instanceof Number || value instanceof Boolean) value = value.valueOf()
  switch (typeof value) {
    case 'string':
      if (hasWellFormed ? !value.isWellFormed() : LONE.test(value)) {
        throw new Refusal(`${where} contains a lone UTF-16 surrogate; send well-formed text (nothing was written).`)
      }
      return value
    case 'number':
      if (!Number.isFinite(value)) {
        throw new Refusal(`${where} is ${value}, which JSON cannot carry; send a finite number (nothing was written).`)
      }
      return value
    case 'boolean':
      return value
    case 'undefined':
      // As JSON.stringify: left out of objects, null in arrays and as an argument.
      return undefined
    case 'bigint':
      throw new Refusal(`${where} is a BigInt, which JSON cannot carry; send a number (nothing was written).`)
    case 'function':
    case 'symbol':
      return undefined
  }
  if (value === null) return null
  if (depth >= MAX_DEPTH) throw new Refusal(`${where} is nested deeper than ${MAX_DEPTH} levels (nothing was written).`)
  if (stack.includes(value)) throw new Refusal(`${where} refers back to itself (a circular structure cannot be sent; nothing was written).`)
  stack.push(value)
  let out
  if (Array.isArray(value)) {
    const n = value.length
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_ARRAY_LENGTH) {
      throw new Refusal(
        Number.isSafeInteger(n) && n > MAX_ARRAY_LENGTH
          ? `${where} claims ${n} elements, above the limit of ${MAX_ARRAY_LENGTH} (nothing was written).`
          : `${where} claims a length of ${String(n)}, which no array has (nothing was written).`,
      )
    }
    out = new Array(n)
    for (let i = 0; i < n; i++) {
      if (!(i in value)) throw new Refusal(`${where} has a hole at index ${i} (a sparse array); send every element (nothing was written).`)
      const v = plain(value[i], `${where}[${i}]`, String(i), depth + 1, stack)
      out[i] = v === undefined ? null : v
    }
  } else {
    out = Object.create(null) // so that an own "__proto__" key stays a key
    for (const k of Object.keys(value)) {
      const v = plain(value[k], ROOTS.has(where) ? k : `${where}.${k}`, k, depth + 1, stack)
      if (v !== undefined) out[k] = v
    }
  }
  stack.pop()
  return out
}

function encode(names, args) {
  let data
  try {
    data = args.map((a, i) => {
      const v = plain(a, names[i] || `argument ${i + 1}`, String(i), 0, [])
      return v === undefined ? null : v
    })
  } catch (e) {
    if (e instanceof Refusal) return { error: failure('INVALID_INPUT', e.message) }
    // A getter, toJSON or Proxy trap that throws: refuse, never throw at the caller.
    return { error: failure('INVALID_INPUT', `arguments cannot be read: ${e && e.message ? e.message : e}`) }
  }
  try {
    return { payload: JSON.stringify(data) }
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

// Every call runs on a thread of the addon's own (src/binding.rs), never on libuv's pool: a call that
// waits for a file lock another program holds (up to `lock_timeout_ms`, default 10 s) keeps only its
// own thread, and the host's fs calls, DNS lookups and zlib jobs go on. The event loop only encodes the
// arguments and decodes the answer.
function callAsync(op, names, args) {
  if (!recorder) return engineAsync(op, names, args)
  // The payload as sent (the arguments are read once: a getter must not see a second read).
  let sent
  return recorder.recordAsync('op', op, engineAsync(op, names, args, (p) => (sent = p)), () => sent)
}

function engineAsync(op, names, args, seen) {
  const { payload, error } = encode(names, args)
  if (error) return Promise.resolve(error)
  if (seen) seen(payload)
  let pending
  try {
    pending = native.call(op, payload)
  } catch (e) {
    return Promise.resolve(failure('INTERNAL_ERROR', `native call failed: ${e && e.message ? e.message : e}`))
  }
  return pending.then(decode, (e) => failure('INTERNAL_ERROR', `native call failed: ${e && e.message ? e.message : e}`))
}

function callSync(op, names, args) {
  if (!recorder) return engineSync(op, names, args)
  let sent
  return recorder.record('op', op, engineSync(op, names, args, (p) => (sent = p)), () => sent)
}

function engineSync(op, names, args, seen) {
  const { payload, error } = encode(names, args)
  if (error) return error
  if (seen) seen(payload)
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
  return callAsync('apply_edits', ['file_path', 'edits', 'options'], [filePath, edits, options])
}

/** `applyEdits` as a dry run: the full receipt, nothing written. */
function previewEdits(filePath, edits, options) {
  return callAsync('preview_edits', ['file_path', 'edits', 'options'], [filePath, edits, options])
}

/**
 * Every path an edit set touches (a list of paths, an apply_patch text, SEARCH/REPLACE path blocks or a
 * unified diff), relative to the workspace root, and the narrowest covering glob. Reads and writes nothing.
 */
function permissionScope(input, options) {
  return callAsync('permission_scope', ['input', 'options'], [input, options])
}

/**
 * The files a call of engine operation `op` (e.g. "apply_patch") with argument list `args` would touch,
 * as the engine parses and resolves them: `{ok, targets: [{path, display, exists, file_hash, role,
 * op_index}]}`. Writes nothing. Read-before-edit in the tool runner keys on these.
 */
function touchedFiles(op, args) {
  return callAsync('touched_files', ['op', 'args'], [op, args])
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
  return callAsync('view_file', ['file_path', 'options'], [filePath, options])
}

/** A directory's entries (`{path, type, size}`), `.gitignore`-aware; `depth` levels deep (default 1). */
function listDirectory(path, options) {
  return callAsync('list_directory', ['path', 'options'], [path, options])
}

/** Files whose name (or, with a `/` in the pattern, relative path) matches a glob; `.gitignore`-aware. */
function findFiles(pattern, options) {
  return callAsync('find_files', ['pattern', 'options'], [pattern, options])
}

/** Literal (or `regex: true`) search over the workspace: matching lines with line numbers and context. */
function searchFiles(query, options) {
  return callAsync('search_files', ['query', 'options'], [query, options])
}

/** Several files or line ranges (`path | {file_path, start_line, end_line}`) in one call; one failure does not fail the others. */
function readManyFiles(files, options) {
  return callAsync('read_many_files', ['files', 'options'], [files, options])
}

/** Rename a file inside the workspace: locked, atomic, undoable; FILE_EXISTS onto a file unless `overwrite`. */
function moveFile(fromPath, toPath, options) {
  return callAsync('move_file', ['fromPath', 'toPath', 'options'], [fromPath, toPath, options])
}

/** Create a directory and its missing parents (`created: false` when it already exists). */
function createDirectory(path, options) {
  return callAsync('create_directory', ['path', 'options'], [path, options])
}

/** Line-anchored edits (`{op, start: "12:tag", end?, lines?|text?}`), all anchors checked first. */
function editLines(filePath, ops, options) {
  return callAsync('edit_lines', ['file_path', 'ops', 'options'], [filePath, ops, options])
}

/** Create a file (refused with FILE_EXISTS unless `overwrite`); parent directories are created. */
function createFile(filePath, content, options) {
  return callAsync('create_file', ['file_path', 'content', 'options'], [filePath, content, options])
}

/** Rewrite an existing file whole, keeping its encoding and line endings. */
function writeFile(filePath, content, options) {
  return callAsync('write_file', ['file_path', 'content', 'options'], [filePath, content, options])
}

/** Delete a file (undoable). */
function deleteFile(filePath, options) {
  return callAsync('delete_file', ['file_path', 'options'], [filePath, options])
}

/** Undo a journaled edit by its `edit_id`, or the newest journaled edit of a file path. */
function undoEdit(editIdOrPath, options) {
  return callAsync('undo_edit', ['edit_id', 'options'], [editIdOrPath, options])
}

/** Apply an `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`) to the workspace, all files or none. */
function applyPatch(patchText, options) {
  return callAsync('apply_patch', ['patch', 'options'], [patchText, options])
}

/** Apply SEARCH/REPLACE blocks (each under its file path, or all to `options.file_path`), all files or none. */
function applyBlocks(text, options) {
  return callAsync('apply_blocks', ['text', 'options'], [text, options])
}

/** Apply a unified diff (plain or git), all files or none; line numbers are hints only. */
function applyUnifiedDiff(diffText, options) {
  return callAsync('apply_unified_diff', ['diff', 'options'], [diffText, options])
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
  listDirectory,
  findFiles,
  searchFiles,
  readManyFiles,
  moveFile,
  createDirectory,
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
  touchedFiles,
  getStats,
  setEventLog,
}
// Internal, for tests: run any engine operation by name. Not enumerable, not typed, not exported
// under ESM: no part of the public surface.
Object.defineProperty(module.exports, '_callAsync', { value: callAsync, enumerable: false })
Object.defineProperty(module.exports, '_callSync', { value: callSync, enumerable: false })

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
module.exports.createToolRunner = (options) => {
  const runner = agentTools.createToolRunner(module.exports, options)
  return recorder ? recorder.recordRunner(runner) : runner
}
