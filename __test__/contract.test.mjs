// The contract is one source: the Rust op table and receipt types (src/api/mod.rs TABLE,
// src/contract) generate schemas/<op>.output.json, schemas/<op>.args.json and schemas/ops.json, and
// from those types/receipts.d.ts and types/options.d.ts. Here: the generated types are current, index.js exports exactly the table's
// functions, every MCP tool names an op of the table and its advertised output agrees with the op's
// generated schema, and real results pass their op's schema.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { receiptTypes, optionTypes } from '../scripts/gen-receipt-types.mjs'
import { toolTypes } from '../scripts/gen-tool-types.mjs'
import { tempDir, populate, REPO } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')
const tools = require('../tools/table.cjs')
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import Ajv2020Module from 'ajv/dist/2020.js'
const Ajv2020 = Ajv2020Module.default || Ajv2020Module
const table = tools.opTable()
const schemaOf = (op) => JSON.parse(readFileSync(join(REPO, 'schemas', `${op}.output.json`), 'utf8'))

test('types/receipts.d.ts and types/options.d.ts are what `npm run schemas` generates from the schemas', () => {
  assert.equal(readFileSync(join(REPO, 'types', 'receipts.d.ts'), 'utf8'), receiptTypes(), 'run `npm run schemas`')
  assert.equal(readFileSync(join(REPO, 'types', 'options.d.ts'), 'utf8'), optionTypes(), 'run `npm run schemas`')
  // ToolName, ToolArgs and ToolResults from the tool table (#27 §4).
  assert.equal(readFileSync(join(REPO, 'types', 'tools.d.ts'), 'utf8'), toolTypes(), 'run `npm run schemas`')
  const names = /export type ToolName =\n((?:  \| '\w+'\n)+)/.exec(toolTypes())[1].match(/'\w+'/g).map((n) => n.slice(1, -1))
  assert.deepEqual(names, tools.ALL_TOOLS)
})

test('patchFile({}) and an edit without its new text are refused by the argument schemas (one spelling of each required key)', () => {
  const ajv = new Ajv2020({ strict: true, strictTuples: false, allowUnionTypes: true })
  const patch = ajv.compile(JSON.parse(readFileSync(join(REPO, 'schemas', 'patch_file.args.json'), 'utf8')))
  assert.equal(patch([{}]), false)
  assert.equal(patch([{ file_path: 'a', search_block: 'x' }]), false)
  assert.equal(patch([{ filePath: 'a', old_string: 'x', new_string: 'y', replace_all: true }]), true)
  const edits = ajv.compile(JSON.parse(readFileSync(join(REPO, 'schemas', 'apply_edits.args.json'), 'utf8')))
  assert.equal(edits(['a', [{ old: 'x' }]]), false)
  assert.equal(edits(['a', [{ oldText: 'x', newText: '' }]]), true)
})

test('the argument schemas compile (Ajv, draft 2020-12, strict) and tell real arguments from wrong ones', () => {
  // strictTuples off: trailing optional parameters make minItems shorter than prefixItems on purpose.
  const ajv = new Ajv2020({ strict: true, strictTuples: false, allowUnionTypes: true })
  const check = Object.fromEntries(table.map((o) => [o.op, ajv.compile(JSON.parse(readFileSync(join(REPO, 'schemas', o.args), 'utf8')))]))
  const good = {
    patch_file: [[{ file_path: 'a', search_block: 'x', replace_block: 'y', base_hash: 'h', dry_run: true, tolerance: 'exact' }, { workspaceRoot: '/w', validate: 'report' }]],
    apply_edits: [['a', [{ old: 'x', new: 'y' }, ['p', 'q'], { oldString: 'x', newString: 'y', expectedReplacements: 2 }]]],
    edit_lines: [['a', [{ op: 'replace', start: '1:ab', end: '2:cd', lines: ['x'] }, { op: 'delete', start: '3:ef' }, { op: 'insert_after', start: '4:aa', text: 'y\n' }]]],
    undo_edit: [['a.txt'], [{ edit_id: 'e1' }, null], [{ filePath: 'a.txt' }, { journal_dir: '.j' }]],
    read_many_files: [[['a', { file_path: 'b', start_line: 1 }, { path: 'c', endLine: 2 }], { format: 'numbered' }]],
    list_directory: [[], [null, { depth: 2, includeIgnored: true }]],
    write_file: [['a', 'x', { encoding: 'utf-16le', line_ending: 'crlf', max_changed_lines: 3 }]],
    codes: [[]],
    set_event_log: [[null], ['/tmp/log']],
    touched_files: [['apply_patch', ['text', {}]]],
  }
  const bad = {
    patch_file: [[{ file_path: 'a', search_block: 'x', replace_block: 'y' }, { bogus: 1 }], [{ file_path: 'a', search_block: 'x', replace_block: 'y', tolerance: 'loose' }]],
    apply_edits: [['a'], ['a', [['p']]], ['a', [{ old: 'x', new: 'y', extra: 1 }]], ['a', [], {}, 'extra']],
    edit_lines: [['a', [{ op: 'delete', start: '1:ab', lines: ['x'] }]], ['a', [{ op: 'insert_before', start: '1:ab', end: '2:cd', text: '' }]], ['a', [{ op: 'replace', start: '1:ab', lines: ['x'], text: 'y' }]]],
    undo_edit: [[], [{ edit_id: 'e', file_path: 'a' }]],
    write_file: [['a', 'x', { encoding: 'latin-1' }], ['a', 'x', { max_changed_lines: -1 }]],
    codes: [[1]],
  }
  for (const [op, calls] of Object.entries(good)) for (const a of calls) assert.equal(check[op](a), true, `${op} ${JSON.stringify(a)}: ${ajv.errorsText(check[op].errors)}`)
  for (const [op, calls] of Object.entries(bad)) for (const a of calls) assert.equal(check[op](a), false, `${op} ${JSON.stringify(a)} passed`)
})

test('index.js exports exactly the op table functions, besides ErrorCode, toolDefinitions and createToolRunner', () => {
  const expected = [...table.map((o) => o.js), 'ErrorCode', 'toolDefinitions', 'createToolRunner'].sort()
  assert.deepEqual(Object.keys(sp).sort(), expected)
  for (const o of table) assert.equal(typeof sp[o.js], 'function', o.js)
  assert.equal(new Set(table.map((o) => o.op)).size, table.length)
})

test('every MCP tool calls an op of the table through its function, and its output agrees with the op schema', () => {
  for (const t of tools.TOOLS) {
    const op = table.find((o) => o.op === t.op)
    assert.ok(op, `${t.name}: op ${t.op} is not in the op table`)
    assert.equal(t.lib, op.js, t.name)
    const s = schemaOf(t.op)
    const success = s.$defs[s.oneOf[0].$ref.replace('#/$defs/', '')]
    for (const [k, p] of Object.entries(t.success.properties)) {
      assert.ok(k in success.properties, `${t.name}: ${k} is not a field of ${t.op}'s receipt`)
      const want = success.properties[k]
      if (p.const !== undefined) assert.equal(p.const, 1, `${t.name}.${k}`)
      if (p.enum && want.$ref) assert.deepEqual(p.enum, s.$defs[want.$ref.replace('#/$defs/', '')].enum, `${t.name}.${k}`)
    }
    for (const k of t.success.required) assert.ok(success.required.includes(k), `${t.name}: ${k} required by the tool, optional in ${t.op}`)
  }
})

test('the op schemas compile (Ajv, as the MCP SDK uses it) and real results pass them', async (t) => {
  const v = new AjvJsonSchemaValidator()
  const check = Object.fromEntries(table.map((o) => [o.op, v.getValidator(schemaOf(o.op))]))
  const root = populate(tempDir(t), { 'a.txt': 'one\ntwo\n', 'b.py': 'x = 1\n' })
  const o = { workspaceRoot: root }
  const pass = (op, r) => {
    const res = check[op](r)
    assert.equal(res.valid, true, `${op}: ${JSON.stringify(r)}\n${res.errorMessage}`)
  }
  pass('view_file', await sp.viewFile('a.txt', o))
  pass('patch_file', await sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'uno' }, { ...o, validate: 'report' }))
  pass('patch_file', await sp.patchFile({ file_path: 'a.txt', search_block: 'zzz', replace_block: 'y' }, o))
  pass('apply_edits', await sp.applyEdits('b.py', [{ old: 'x = 1', new: 'x = (' }], { ...o, validate: 'report', dry_run: true }))
  pass('apply_patch', await sp.applyPatch('*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch\n', o))
  pass('apply_blocks', await sp.applyBlocks('c.txt\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n', o))
  pass('write_file', await sp.writeFile('c.txt', 'e\n', o))
  const del = await sp.deleteFile('c.txt', o)
  pass('delete_file', del)
  pass('undo_edit', await sp.undoEdit(del.edit_id, o))
  pass('list_directory', await sp.listDirectory('.', o))
  pass('search_files', await sp.searchFiles('two', { ...o, context_lines: 1 }))
  pass('read_many_files', await sp.readManyFiles(['a.txt', 'missing.txt'], o))
  pass('codes', { ok: true, codes: sp.errorCodes() })
  pass('get_stats', sp.getStats())
  pass('parse_path_blocks', sp.parsePathBlocks('a.txt\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'))
  assert.equal(check.patch_file({ ok: false, code: 'NOT_A_CODE', message: 'm' }).valid, false)
  assert.equal(check.patch_file({ ok: false, code: 'STALE_FILE', message: 'm', bogus_field: 1 }).valid, false)
})

// Issue #27 §2: each other spelling is declared once (x-aliases in src/contract/inputs.rs); the op
// table's `aliases`, the argument schemas, and the MCP tools' argument names all come from it.
test('every declared alias is in the argument schema and is taken by the MCP tools named after its op', () => {
  const declared = (s, into = new Map()) => {
    if (!s || typeof s !== 'object') return into
    for (const [k, v] of Object.entries(s.properties || {})) {
      const m = /^Another spelling of `(\w+)`\.$/.exec(v.description || '')
      if (m) into.set(k, m[1])
    }
    for (const v of Object.values(s)) if (v && typeof v === 'object') declared(v, into)
    return into
  }
  let n = 0
  for (const o of table) {
    const schema = JSON.parse(readFileSync(join(REPO, 'schemas', o.args), 'utf8'))
    const spelled = declared(schema)
    const positional = new Set((schema.prefixItems || []).map((p) => p.title))
    for (const [native, list] of Object.entries(o.aliases || {})) {
      for (const a of list) {
        n++
        // A positional parameter has no key to spell in the library: its aliases are for the tools.
        if (!positional.has(native)) assert.equal(spelled.get(a), native, `${o.op}: ${a} is not declared as a spelling of ${native}`)
      }
    }
    for (const t of tools.TOOLS.filter((t) => t.op === o.op)) {
      const names = tools.argumentNames(t)
      for (const [native, list] of Object.entries(o.aliases || {})) {
        if (!(native in names)) continue
        for (const a of list) assert.equal(names[a], native, `${t.name}: ${a} is not taken as ${native}`)
      }
    }
  }
  assert.ok(n >= 20, `only ${n} aliases declared`)
  // The names of issue #27 §2, on the native tools.
  const want = {
    patch_file: { old_string: 'search_block', new_string: 'replace_block', replace_all: 'replace_all', expected_replacements: 'expected_replacements', file_path: 'file_path' },
    edit_file: { path: 'file_path', dryRun: 'dry_run', edits: 'edits' },
    view_file: { path: 'file_path', offset: 'start_line', limit: 'max_lines', head: 'max_lines', tail: 'tail' },
    apply_patch: { input: 'patch' },
  }
  for (const [tool, map] of Object.entries(want)) for (const [a, native] of Object.entries(map)) assert.equal(tools.argumentNames(tool)[a], native, `${tool}.${a}`)
})
