'use strict'
// Result recording, a test hook (docs/development.md, "Results against their schemas"). Loaded only when
// SUREPATCH_RECORD_RESULTS names a directory: index.js then records every result the engine returns
// ({op, result}), and the tool runners of index.js and the MCP server every tool result ({tool, result},
// the MCP structuredContent). Each process (and worker thread) appends one JSON line per result to its
// own file, results-<pid>-<thread>.jsonl; scripts/check-results.mjs validates them against schemas/.
// Recording never changes a result or throws: a line that cannot be written is dropped.
const fs = require('node:fs')
const path = require('node:path')
const { threadId } = require('node:worker_threads')

// Taken at load, so a test that replaces JSON.stringify or fs functions does not change what is written.
const stringify = JSON.stringify
const append = fs.appendFileSync
// Long strings (a diff or content of megabytes, a hostile 100 MB path echoed in a message) are cut to
// their first MAX_STRING code units: the check needs each value's type and shape, not every byte.
const MAX_STRING = 8192
const cut = (_key, value) => (typeof value === 'string' && value.length > MAX_STRING ? value.slice(0, MAX_STRING) : value)
const file = path.join(process.env.SUREPATCH_RECORD_RESULTS || '.', `results-${process.pid}-${threadId}.jsonl`)

/**
 * Records `result` under `kind` ("op" or "tool") and `name`; returns `result`. For an op call the engine
 * accepted (`ok: true`), `payload()` gives the JSON argument array it was sent, recorded as `args`, so
 * the check can hold it against schemas/<op>.args.json (arguments the engine refused are not: tests
 * send malformed ones on purpose).
 */
function record(kind, name, result, payload) {
  try {
    const line = { [kind]: name, result }
    const sent = payload && result && result.ok === true ? payload() : undefined
    if (typeof sent === 'string') line.args = JSON.parse(sent)
    append(file, stringify(line, cut) + '\n')
  } catch {}
  return result
}

/** `record` for a promise of a result. */
function recordAsync(kind, name, pending, payload) {
  return pending.then((result) => record(kind, name, result, payload))
}

/** A tool runner whose call(name, args) records each result. */
function recordRunner(runner) {
  const call = runner.call
  runner.call = (name, args) => recordAsync('tool', name, call(name, args))
  return runner
}

module.exports = { record, recordAsync, recordRunner }
