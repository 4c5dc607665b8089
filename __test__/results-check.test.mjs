// The result recording of `npm test` (record.cjs, SUREPATCH_RECORD_RESULTS) and its checker
// (scripts/check-results.mjs): what is recorded, that nothing is loaded when the variable is unset,
// and that the checker fails on a result its schema rejects and on a declared property never seen.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO } from './mcp-helpers.mjs'

function temp(t) {
  const dir = mkdtempSync(join(tmpdir(), 'surepatch-records-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function node(args, { env = {}, cwd = REPO } = {}) {
  const base = Object.assign({}, process.env)
  delete base.SUREPATCH_RECORD_RESULTS
  return spawnSync(process.execPath, args, { cwd, env: Object.assign(base, env), encoding: 'utf8', timeout: 60_000 })
}

function records(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
    .map((l) => JSON.parse(l))
}

const SCRIPT = `
const sp = require('./index.js')
;(async () => {
  const root = process.argv[1]
  await sp.createFile('a.txt', 'one\\n', { workspace_root: root })
  await sp.patchFile({ file_path: 'a.txt', search_block: 'nowhere', replace_block: 'x' }, { workspace_root: root })
  sp.parseBlocks(42)
  await sp.createToolRunner({ workspaceRoot: root }).call('view_file', { file_path: 'a.txt' })
  console.log(JSON.stringify(Object.keys(require.cache).filter((k) => k.endsWith('record.cjs')).length))
})()
`

test('recording: every result (failures included) and tool result as a JSON line; nothing loaded when unset', (t) => {
  const dir = temp(t)
  const ws = temp(t)
  const on = node(['-e', SCRIPT, ws], { env: { SUREPATCH_RECORD_RESULTS: dir } })
  assert.equal(on.status, 0, on.stderr)
  assert.equal(on.stdout.trim(), '1')
  const got = records(dir)
  assert.deepEqual(
    got.map((r) => [r.op || `tool ${r.tool}`, r.result.ok, r.result.code]),
    [
      ['create_file', true, undefined],
      ['patch_file', false, 'SEARCH_BLOCK_NOT_FOUND'],
      ['parse_blocks', false, 'INVALID_INPUT'],
      ['view_file', true, undefined],
      ['tool view_file', true, undefined],
    ],
  )
  assert.equal(got[4].result.content, 'one\n')

  const off = node(['-e', SCRIPT, temp(t)])
  assert.equal(off.status, 0, off.stderr)
  assert.equal(off.stdout.trim(), '0', 'record.cjs is not loaded without SUREPATCH_RECORD_RESULTS')
})

test('checker: a result its schema rejects fails, naming the op and the field; so does a property never seen', (t) => {
  const dir = temp(t)
  const lines = [
    { op: 'create_directory', result: { ok: true, path: 'd', created: 'yes' } },
    { tool: 'create_directory', result: { ok: false, code: 'FILE_EXISTS', message: 'm' } },
  ]
  writeFileSync(join(dir, 'results-1-0.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n{"op": "cut sho')
  const r = node([join('scripts', 'check-results.mjs'), dir])
  assert.equal(r.status, 1, r.stdout + r.stderr)
  assert.match(r.stdout, /op {3}create_directory +1 {2}1 INVALID/)
  assert.match(r.stdout, /1 cut-off last line/)
  assert.match(r.stderr, /op create_directory: 1 result\(s\) do not match create_directory\.output\.json: \/created must be boolean/)
  assert.match(r.stderr, /never seen in a test result: patch_file\.output\.json: \$defs\.PatchFileSuccess\.replacements/)
  assert.match(r.stderr, /tool patch_file: no result recorded/)
  assert.doesNotMatch(r.stderr, /never seen in a test result: create_directory\.output\.json: oneOf\[1\]\.code/)
})

test('checker: no records at all is a failure, not a pass', (t) => {
  const r = node([join('scripts', 'check-results.mjs'), temp(t)])
  assert.equal(r.status, 1)
  assert.match(r.stderr, /no results recorded/)
})

test('checker: generated schemas ($defs, $ref, 2020-12); a definition shared by files is covered once', (t) => {
  const schemas = temp(t)
  const dir = temp(t)
  const failure = { type: 'object', properties: { ok: { const: false }, code: { type: 'string' }, message: { type: 'string' }, candidates: { type: 'array', items: { $ref: '#/$defs/Candidate' } } }, required: ['ok', 'code', 'message'] }
  const defs = { Failure: failure, Candidate: { type: 'object', properties: { line: { type: 'integer' }, score: { type: 'number' } } } }
  const schema = (success) => ({ $schema: 'https://json-schema.org/draft/2020-12/schema', oneOf: [success, { $ref: '#/$defs/Failure' }], $defs: defs })
  const receipt = { type: 'object', properties: { ok: { const: true }, file_path: { type: 'string' }, lines: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' }, tag: { type: ['string', 'null'] } } } } }, required: ['ok'] }
  writeFileSync(join(schemas, 'view_file.output.json'), JSON.stringify(schema(receipt)))
  writeFileSync(join(schemas, 'find_files.output.json'), JSON.stringify(schema({ type: 'object', properties: { ok: { const: true }, files: { type: 'array' } }, required: ['ok'] })))
  const lines = [
    { op: 'view_file', result: { ok: true, file_path: 'a', lines: [{ n: 1 }] } },
    { op: 'view_file', result: { ok: false, code: 'X', message: 'm', candidates: [{ line: 3 }] } },
    { op: 'find_files', result: { ok: false, code: 'X', message: 'm', candidates: 'not an array' } },
  ]
  writeFileSync(join(dir, 'results-1-0.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const r = node([join('scripts', 'check-results.mjs'), `--schemas=${schemas}`, dir])
  assert.equal(r.status, 1)
  assert.match(r.stderr, /op find_files: 1 result\(s\) do not match find_files\.output\.json: .*\/candidates must be array/)
  assert.match(r.stderr, /never seen in a test result: view_file\.output\.json: oneOf\[0\]\.lines\[\]\.tag\n/)
  // Failure and Candidate are declared by both files, seen through view_file's results only.
  assert.match(r.stderr, /never seen in a test result: find_files\.output\.json: \$defs\.Candidate\.score \(the same definition in 2 files\)/)
  assert.doesNotMatch(r.stderr, /\$defs\.Candidate\.line|\$defs\.Failure\.(code|candidates)/)
  assert.match(r.stderr, /never seen in a test result: find_files\.output\.json: oneOf\[0\]\.files\n/)
  assert.match(r.stdout, /apply_edits \(no schemas\/apply_edits\.output\.json\)/)
  const strict = node([join('scripts', 'check-results.mjs'), '--require-op-schemas', `--schemas=${schemas}`, dir])
  assert.match(strict.stderr, /library op\(s\) without a checked schema/)
})

test('checker: the arguments of an accepted call must fit schemas/<op>.args.json', (t) => {
  const dir = temp(t)
  const lines = [
    { op: 'view_file', args: ['a.txt', { workspace_root: '/w', format: 'plain' }], result: { ok: true } },
    { op: 'view_file', args: ['a.txt', { workspace_root: '/w', format: 'fancy' }], result: { ok: true } },
  ]
  writeFileSync(join(dir, 'results-1-0.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const r = node([join('scripts', 'check-results.mjs'), dir])
  assert.equal(r.status, 1)
  assert.match(r.stdout, /args view_file +2 {2}1 INVALID/)
  assert.match(r.stderr, /args view_file: 1 accepted call\(s\) whose arguments do not match view_file\.args\.json: \/1\/format must be equal to one of the allowed values/)
})
