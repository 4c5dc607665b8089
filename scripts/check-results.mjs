// Checks the results recorded during the node tests against the output schemas in schemas/ (issue 17 §1:
// every result, success or failure, through its op's output schema; every declared property seen).
//
//   node scripts/check-results.mjs [--require-op-schemas] [--schemas=<dir>] <dir>
//
// <dir> holds the results-*.jsonl files record.cjs writes when SUREPATCH_RECORD_RESULTS=<dir> (see
// scripts/test-node.mjs, which `npm test` runs). Each line is {op, result} (a library call, recorded by
// index.js) or {tool, result} (a tool call of the MCP server or of createToolRunner).
//
// - Every result of a library op is validated against schemas/<op>.output.json, every tool result against
//   schemas/<tool>.output.json. Any invalid result fails the check.
// - An op without a schema of its own is listed as a gap. While REQUIRE_OP_SCHEMAS is false that is
//   reported, not failed; once every op has its schema, set it to true (or pass --require-op-schemas)
//   and a missing one fails. A tool without its schema always fails.
// - Property coverage: every property a schema declares (under properties, at any depth: nested
//   objects, array items, oneOf / anyOf / allOf branches, $ref'd definitions) must appear in at least
//   one recorded result that the schema describes there (for a oneOf / anyOf branch: a result valid
//   against that branch). Unseen properties fail, except those in ALLOWED_UNSEEN below. A definition
//   under $defs / definitions that several schema files declare identically (a shared failure or write
//   receipt) counts once: a property of it is seen when any of those files' results carries it.
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const Ajv = require('ajv').default
const Ajv2019 = require('ajv/dist/2019').default
const Ajv2020 = require('ajv/dist/2020').default

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const SCHEMAS = (process.argv.find((a) => a.startsWith('--schemas=')) || '').slice('--schemas='.length) || join(ROOT, 'schemas')

// - Arguments: every call the engine accepted (ok: true) is recorded with the argument array it was
//   sent, which must fit schemas/<op>.args.json.

// Set to true once every library op has schemas/<op>.output.json (issue 17 §5): an op without one then fails.
const REQUIRE_OP_SCHEMAS = true

// Declared properties that no test result carries, each with the reason it cannot (or need not) be seen.
// Keys: "<schema file>: <path>", as the check prints them. Keep this short: prefer a test that
// produces the property.
const ALLOWED_UNSEEN = {}

// Results that do not match their schema because the schema is wrong, each until its schema is fixed:
// `at` (a JSON pointer into the schema file) is widened to also accept `accept`. A result valid only
// thanks to such an entry is counted as a known mismatch, not an error; an entry no result needs fails
// the check (so it is removed once the schema is fixed).
const KNOWN_MISMATCHES = []

// Engine ops that are test hooks, not library ops (SUREPATCH_TEST_HOOKS): recorded, never checked.
const TEST_OPS = new Set(['__test_panic'])

// ---- records ------------------------------------------------------------------------------------------

function readRecords(dir) {
  const records = []
  let truncated = 0
  const bad = []
  for (const f of readdirSync(dir).filter((n) => /^results-.*\.jsonl$/.test(n)).sort()) {
    const lines = readFileSync(join(dir, f), 'utf8').split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    lines.forEach((line, i) => {
      try {
        records.push(JSON.parse(line))
      } catch {
        // A process killed mid-write (the crash tests) leaves its last line cut short.
        if (i === lines.length - 1) truncated++
        else bad.push(`${f}:${i + 1}`)
      }
    })
  }
  return { records, truncated, bad }
}

// The engine's op names, from its own refusal of an unknown op ("known: [...]").
function engineOps() {
  try {
    const r = JSON.parse(require('../binding.js').callSync('\u0000', '[]'))
    const m = /known: (\[.*\])/.exec(r.message)
    return m ? JSON.parse(m[1]) : null
  } catch {
    return null
  }
}

// ---- schemas --------------------------------------------------------------------------------------------

const engines = new Map()
function ajvFor(schema) {
  const draft = String(schema.$schema || '')
  const Kind = draft.includes('2020-12') ? Ajv2020 : draft.includes('2019-09') ? Ajv2019 : Ajv
  if (!engines.has(Kind)) {
    // Formats are annotations here (schema generators emit non-standard ones such as "uint").
    engines.set(Kind, new Kind({ strict: false, allErrors: true, validateFormats: false }))
  }
  return engines.get(Kind)
}

const loaded = new Map()
function loadSchema(file) {
  if (loaded.has(file)) return loaded.get(file)
  let entry = null
  const full = join(SCHEMAS, file)
  if (existsSync(full)) {
    const schema = JSON.parse(readFileSync(full, 'utf8'))
    const ajv = ajvFor(schema)
    const id = `surepatch:${file}`
    ajv.addSchema(schema, id)
    entry = { file, schema, ajv, id, validate: ajv.getSchema(id) }
    entry.declared = declaredProperties(entry)
    // The schema widened by its KNOWN_MISMATCHES (same pointers): what oneOf / anyOf branches are judged by.
    const known = KNOWN_MISMATCHES.filter((k) => k.file === file)
    if (known.length) {
      const widened = JSON.parse(JSON.stringify(schema))
      for (const k of known) {
        const segs = k.at.split('/').slice(1).map(unescape)
        const last = segs.pop()
        const parent = segs.reduce((node, seg) => (node == null ? node : node[seg]), widened)
        if (!parent || !parent[last]) throw new Error(`KNOWN_MISMATCHES: ${file} has nothing at ${k.at}`)
        parent[last] = { anyOf: [parent[last], k.accept] }
        k.used = 0
      }
      entry.id = `surepatch-widened:${file}`
      ajv.addSchema(widened, entry.id)
      entry.known = ajv.getSchema(entry.id)
    }
  }
  loaded.set(file, entry)
  return entry
}

const unescape = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~')
const escape = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')

function at(schema, pointer) {
  let s = schema
  for (const seg of pointer.split('/').slice(1)) s = s == null ? undefined : s[unescape(seg)]
  return s
}

// A local $ref ("#/$defs/X", "#/definitions/X") as a JSON pointer.
function refPointer(ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#')) throw new Error(`only local $ref is supported, got ${ref}`)
  return ref.slice(1)
}

// A schema location, readable: "oneOf[0].files[].file_path", "$defs.Receipt.edit_id".
function label(pointer, prop) {
  let out = ''
  const segs = pointer.split('/').slice(1).map(unescape)
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]
    if (s === 'properties') out += `.${segs[++i]}`
    else if (s === 'items' || s === 'additionalItems') out += '[]'
    else if (s === 'prefixItems') out += `[${segs[++i]}]`
    else if (s === 'additionalProperties') out += '.*'
    else if (s === 'oneOf' || s === 'anyOf' || s === 'allOf') out += `${out ? '.' : ''}${s}[${segs[++i]}]`
    else if (s === '$defs' || s === 'definitions') out += `${s}.${segs[++i]}`
    else out += `/${s}`
  }
  out += `.${prop}`
  return out.replace(/^\./, '')
}

const SUBSCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf', 'prefixItems']
const SUBSCHEMAS = ['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains']

// The coverage key and printed name of property `prop` of the object schema at `pointer` in `entry`'s
// schema: per file, except inside a $defs / definitions entry, which files declaring it identically share.
function coverage(entry, pointer, prop) {
  const m = /^\/(\$defs|definitions)\/([^/]+)/.exec(pointer)
  if (!m) return { key: `${entry.file}\u0000${pointer}\u0000${prop}`, name: `${entry.file}: ${label(pointer, prop)}` }
  const digest = createHash('sha256').update(JSON.stringify(at(entry.schema, m[0]))).digest('hex').slice(0, 16)
  return { key: `${m[0]}\u0000${digest}\u0000${pointer.slice(m[0].length)}\u0000${prop}`, name: `${entry.file}: ${label(pointer, prop)}` }
}

// Every property seen, by coverage key.
const SEEN = new Set()

// Every (object schema location, property name) reachable from the root, following local $refs.
function declaredProperties(entry) {
  const root = entry.schema
  const out = new Map() // coverage key -> printed name
  const visited = new Set()
  const walk = (schema, pointer) => {
    if (!schema || typeof schema !== 'object' || visited.has(pointer)) return
    visited.add(pointer)
    if (schema.$ref) walk(at(root, refPointer(schema.$ref)), refPointer(schema.$ref))
    if (schema.properties) {
      for (const [k, sub] of Object.entries(schema.properties)) {
        const c = coverage(entry, pointer, k)
        out.set(c.key, c.name)
        walk(sub, `${pointer}/properties/${escape(k)}`)
      }
    }
    for (const key of SUBSCHEMA_LISTS) if (Array.isArray(schema[key])) schema[key].forEach((s, i) => walk(s, `${pointer}/${key}/${i}`))
    for (const key of SUBSCHEMAS) {
      if (Array.isArray(schema[key])) schema[key].forEach((s, i) => walk(s, `${pointer}/${key}/${i}`))
      else walk(schema[key], `${pointer}/${key}`)
    }
  }
  walk(root, '')
  return out
}

// Marks in SEEN every declared property that `value` carries where the schema describes it.
function markSeen(entry, schema, pointer, value) {
  if (!schema || typeof schema !== 'object') return
  if (schema.$ref) {
    const p = refPointer(schema.$ref)
    markSeen(entry, at(entry.schema, p), p, value)
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value)
  if (isObject) {
    const props = schema.properties || {}
    for (const [k, v] of Object.entries(value)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        SEEN.add(coverage(entry, pointer, k).key)
        markSeen(entry, props[k], `${pointer}/properties/${escape(k)}`, v)
      } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        markSeen(entry, schema.additionalProperties, `${pointer}/additionalProperties`, v)
      }
    }
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : null
    value.forEach((v, i) => {
      if (prefix && i < prefix.length) markSeen(entry, prefix[i], `${pointer}/${schema.prefixItems ? 'prefixItems' : 'items'}/${i}`, v)
      else if (schema.items && !Array.isArray(schema.items)) markSeen(entry, schema.items, `${pointer}/items`, v)
      else if (prefix && schema.additionalItems && typeof schema.additionalItems === 'object') markSeen(entry, schema.additionalItems, `${pointer}/additionalItems`, v)
    })
  }
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((s, i) => markSeen(entry, s, `${pointer}/allOf/${i}`, value))
  for (const key of ['oneOf', 'anyOf']) {
    if (!Array.isArray(schema[key])) continue
    schema[key].forEach((s, i) => {
      const p = `${pointer}/${key}/${i}`
      if (entry.ajv.getSchema(`${entry.id}#${p}`)(value)) markSeen(entry, s, p, value)
    })
  }
  if (schema.if && typeof schema.if === 'object') {
    const branch = entry.ajv.getSchema(`${entry.id}#${pointer}/if`)(value) ? 'then' : 'else'
    markSeen(entry, schema.if, `${pointer}/if`, value)
    markSeen(entry, schema[branch], `${pointer}/${branch}`, value)
  }
}

// ---- the check ------------------------------------------------------------------------------------------

function main() {
  const args = process.argv.slice(2)
  const dir = args.find((a) => !a.startsWith('--'))
  const requireOpSchemas = REQUIRE_OP_SCHEMAS || args.includes('--require-op-schemas')
  if (!dir) {
    process.stderr.write('usage: node scripts/check-results.mjs [--require-op-schemas] [--schemas=<dir>] <records dir>\n')
    process.exit(2)
  }
  const { records, truncated, bad } = readRecords(dir)
  const problems = []
  if (bad.length) problems.push(`unreadable record lines: ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`)
  if (records.length === 0) problems.push(`no results recorded in ${dir}: was SUREPATCH_RECORD_RESULTS set for the tests?`)

  const { TOOLS } = require('../tools/table.cjs')
  const toolOp = new Map(TOOLS.map((t) => [t.name, t.op]))
  const ops = engineOps()
  // Without the engine's list (its message changed?), the ops are those recorded: said, not failed.
  const known = new Set(ops || records.filter((r) => typeof r.op === 'string' && !TEST_OPS.has(r.op)).map((r) => r.op))
  if (!ops) process.stdout.write('note: the engine op list could not be read; the op gaps below cover recorded ops only\n')

  // The schema file of each record, or why there is none.
  function schemaOf(kind, name) {
    if (kind === 'tool') {
      if (!toolOp.has(name)) return { gap: `not a tool of tools/table.cjs` }
      return loadSchema(`${name}.output.json`) ? { entry: loadSchema(`${name}.output.json`) } : { gap: `no schemas/${name}.output.json` }
    }
    // schemas/<op>.output.json: generated from the op's receipt type (src/contract) for every op; a
    // tool named like an op (write_file, which calls op create_file) shares that file, so its receipt
    // must be the op's receipt too (checked by the tool records).
    const entry = loadSchema(`${name}.output.json`)
    return entry ? { entry } : { gap: `no schemas/${name}.output.json` }
  }

  const groups = new Map() // "kind name" -> {kind, name, count, invalid, entry, gap, examples}
  for (const rec of records) {
    const kind = 'op' in rec ? 'op' : 'tool' in rec ? 'tool' : null
    const name = kind && rec[kind]
    if (!kind || typeof name !== 'string') {
      problems.push(`a record is neither {op, result} nor {tool, result}: ${JSON.stringify(rec).slice(0, 200)}`)
      continue
    }
    if (kind === 'op' && TEST_OPS.has(name)) continue
    const key = `${kind} ${name}`
    if (!groups.has(key)) groups.set(key, Object.assign({ kind, name, count: 0, invalid: 0, errors: new Map() }, schemaOf(kind, name)))
    const g = groups.get(key)
    g.count++
    if (!g.entry) continue
    if (g.entry.validate(rec.result)) {
      markSeen(g.entry, g.entry.schema, '', rec.result)
    } else if (g.entry.known && g.entry.known(rec.result)) {
      g.known = (g.known || 0) + 1
      for (const k of KNOWN_MISMATCHES) if (k.file === g.entry.file) k.used++
      markSeen(g.entry, g.entry.schema, '', rec.result)
    } else {
      g.invalid++
      const sig = g.entry.validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')
      if (!g.errors.has(sig)) g.errors.set(sig, { count: 0, example: rec.result })
      g.errors.get(sig).count++
    }
  }

  // The arguments of every call the engine accepted, against schemas/<op>.args.json (generated from the
  // op's argument types, src/contract/inputs.rs): a schema that refuses what the engine takes is wrong.
  const argGroups = new Map() // op -> {count, invalid, errors}
  for (const rec of records) {
    if (typeof rec.op !== 'string' || !('args' in rec) || TEST_OPS.has(rec.op)) continue
    if (!argGroups.has(rec.op)) argGroups.set(rec.op, { count: 0, invalid: 0, errors: new Map(), entry: loadSchema(`${rec.op}.args.json`) })
    const g = argGroups.get(rec.op)
    g.count++
    if (!g.entry) continue
    if (!g.entry.validate(rec.args)) {
      g.invalid++
      const sig = g.entry.validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')
      if (!g.errors.has(sig)) g.errors.set(sig, { count: 0, example: rec.args })
      g.errors.get(sig).count++
    }
  }

  // Report: records and validation per op / tool.
  const lines = []
  const sorted = [...groups.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))
  lines.push('results recorded by the node tests, checked against schemas/:')
  for (const g of sorted) {
    const status = g.entry
      ? `${g.invalid ? `${g.invalid} INVALID` : 'all valid'}${g.known ? ` (${g.known} only with KNOWN_MISMATCHES)` : ''}`
      : `not checked: ${g.gap}`
    lines.push(`  ${g.kind.padEnd(4)} ${g.name.padEnd(20)} ${String(g.count).padStart(6)}  ${status}`)
    for (const [sig, { count, example }] of g.errors) {
      problems.push(`${g.kind} ${g.name}: ${count} result(s) do not match ${g.entry.file}: ${sig}\n      e.g. ${JSON.stringify(example).slice(0, 400)}`)
    }
  }
  if (truncated) lines.push(`  (${truncated} cut-off last line(s) of killed processes skipped)`)
  lines.push('arguments of the calls the engine accepted, checked against schemas/<op>.args.json:')
  for (const [op, g] of [...argGroups].sort((a, b) => a[0].localeCompare(b[0]))) {
    lines.push(`  args ${op.padEnd(20)} ${String(g.count).padStart(6)}  ${!g.entry ? `not checked: no schemas/${op}.args.json` : g.invalid ? `${g.invalid} INVALID` : 'all valid'}`)
    if (!g.entry && requireOpSchemas) problems.push(`args ${op}: no schemas/${op}.args.json`)
    for (const [sig, { count, example }] of g.errors) {
      problems.push(`args ${op}: ${count} accepted call(s) whose arguments do not match ${op}.args.json: ${sig}\n      e.g. ${JSON.stringify(example).slice(0, 400)}`)
    }
  }

  // Gaps: ops (of the engine) and tools with no checked result.
  const opGaps = []
  for (const op of [...known].sort()) {
    const g = groups.get(`op ${op}`)
    const { gap } = g || schemaOf('op', op)
    if (gap) opGaps.push(`${op} (${gap})`)
    else if (!g) opGaps.push(`${op} (no result recorded)`)
  }
  for (const g of sorted) if (g.kind === 'op' && !known.has(g.name) && ops) problems.push(`op ${g.name}: recorded, but the engine lists no such op`)
  if (opGaps.length) {
    lines.push(`library ops whose results are not checked (${opGaps.length} of ${known.size}):`)
    for (const gap of opGaps) lines.push(`  ${gap}`)
    if (requireOpSchemas) problems.push(`${opGaps.length} library op(s) without a checked schema (see the list above)`)
  }
  for (const t of TOOLS) {
    const g = groups.get(`tool ${t.name}`)
    if (!g) problems.push(`tool ${t.name}: no result recorded`)
    else if (g.gap) problems.push(`tool ${g.name}: ${g.gap}`)
  }

  // Property coverage.
  const declared = new Map() // coverage key -> the names it has in each file declaring it
  // Result schemas only: an argument schema declares every spelling of every option, which tests need
  // not all send (its check is that every argument the engine accepted fits it, above).
  for (const entry of [...loaded.values()].filter((e) => e && !e.file.endsWith('.args.json')).sort((a, b) => a.file.localeCompare(b.file))) {
    for (const [key, name] of entry.declared) declared.set(key, (declared.get(key) || []).concat(name))
  }
  let seen = 0
  const unseen = []
  for (const [key, names] of declared) {
    if (SEEN.has(key)) seen++
    else unseen.push({ names, shown: names.length > 1 ? `${names[0]} (the same definition in ${names.length} files)` : names[0] })
  }
  const isAllowed = (u) => u.names.some((n) => n in ALLOWED_UNSEEN)
  const allowed = unseen.filter(isAllowed)
  const missing = unseen.filter((u) => !isAllowed(u))
  lines.push(`property coverage: ${seen} of ${declared.size} declared property paths seen in ${[...loaded.values()].filter(Boolean).length} schema file(s); ${allowed.length} unseen and allowed`)
  for (const u of missing) problems.push(`never seen in a test result: ${u.shown}`)
  for (const k of KNOWN_MISMATCHES) {
    if (!k.used) problems.push(`KNOWN_MISMATCHES entry no longer needed (no result needs it, or no such schema): ${k.file} ${k.at}`)
    else lines.push(`known mismatch: ${k.file} ${k.at} also accepts ${JSON.stringify(k.accept)} (needed by ${k.used} result(s))`)
  }
  for (const a of Object.keys(ALLOWED_UNSEEN)) if (!unseen.some((u) => u.names.includes(a))) problems.push(`ALLOWED_UNSEEN entry no longer needed (seen, or not declared): ${a}`)

  process.stdout.write(`${lines.join('\n')}\n`)
  if (problems.length) {
    process.stderr.write(`\ncheck-results: ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}\n`)
    process.exit(1)
  }
  process.stdout.write(`check-results: ${records.length} results, ${[...groups.values()].filter((g) => g.entry).reduce((n, g) => n + g.count, 0)} checked, all valid\n`)
}

main()
