// The declarative tool table: guarded tools appear when their library function exists, arguments reach
// the library with the server's workspace root, results (successes and failures shaped like the
// contracts) pass the advertised outputSchema, read-before-edit bookkeeping, and the generated views
// (toolDefinitions, schemas/*.json) agree with the MCP schemas.
//
// The in-process server here is the same createServer the binary uses, given a library object in which
// the functions of other issues are recording doubles with contract-shaped results. The real patchFile
// and applyEdits are kept, so read-before-edit runs against the engine's own base_hash check.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { REPO, inProcess, populate, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')
const tools = require('../tools/table.cjs')
const { summarize } = require('../tools/summary.cjs')

const HASH = 'a1b2c3d4e5f60718'

// The engine's hash of a file as it is now: a dry run pinned to an impossible base_hash answers
// STALE_FILE with current_hash, and nothing is written.
async function engineHash(root, p) {
  const r = await sp.patchFile({ file_path: p, search_block: 'x', replace_block: 'y' }, { workspace_root: root, base_hash: 'z', dry_run: true })
  assert.equal(r.code, 'STALE_FILE')
  return r.current_hash
}

// A library with every tool: the real engine functions plus recording doubles for the rest.
function library(root) {
  const calls = []
  const record = (name, result) => (...args) => {
    calls.push([name, ...args])
    return Promise.resolve(typeof result === 'function' ? result(...args) : result)
  }
  const lib = {
    ErrorCode: sp.ErrorCode,
    patchFile: sp.patchFile,
    mergeSnippet: sp.mergeSnippet,
    applyEdits: sp.applyEdits,
    touchedFiles: sp.touchedFiles,
    listDirectory: sp.listDirectory,
    findFiles: sp.findFiles,
    searchFiles: sp.searchFiles,
    readManyFiles: sp.readManyFiles,
    moveFile: sp.moveFile,
    createDirectory: sp.createDirectory,
    createCheckpoint: sp.createCheckpoint,
    restoreCheckpoint: sp.restoreCheckpoint,
    listCheckpoints: sp.listCheckpoints,
    listSymbols: sp.listSymbols,
    editSymbol: sp.editSymbol,
    viewFile: record('viewFile', async (p) => {
      let content
      try {
        content = readFileSync(join(root, p), 'utf8')
      } catch {
        return { ok: false, code: 'FILE_NOT_FOUND', message: `${p} does not exist.`, file_path: p }
      }
      const lines = content.split('\n').length - 1
      return { ok: true, file_path: p, content, start_line: 1, end_line: lines, total_lines: lines, file_hash: await engineHash(root, p), encoding: 'utf-8', line_ending: 'lf', truncated: false }
    }),
    editLines: record('editLines', (p) => ({ ok: true, file_path: p, diff: '', written: true, file_hash: HASH, edit_id: 'e1' })),
    createFile: record('createFile', (p, content) => {
      writeFileSync(join(root, p), content)
      return { ok: true, file_path: p, written: true, file_hash: HASH, edit_id: 'e2' }
    }),
    deleteFile: record('deleteFile', (p) => ({ ok: true, file_path: p, edit_id: 'e3' })),
    undoEdit: record('undoEdit', () => ({ ok: false, code: 'EDIT_NOT_FOUND', message: 'no such edit; edit ids come from edit results.' })),
    applyPatch: record('applyPatch', () => ({ ok: true, files: [{ file_path: 'p.txt', file_hash: HASH, diff: '' }], written: true })),
  }
  return { lib, calls }
}

test('every declared tool is served once its library function exists', async (t) => {
  const root = tempDir(t)
  const { lib } = library(root)
  const s = await inProcess(t, { root, library: lib })
  assert.deepEqual(s.tools.map((x) => x.name), tools.ALL_TOOLS)
  assert.deepEqual(tools.ALL_TOOLS, [
    'view_file', 'patch_file', 'merge_snippet', 'edit_file', 'apply_patch', 'edit_lines', 'list_symbols', 'edit_symbol', 'write_file', 'delete_file', 'undo_edit',
    'list_directory', 'find_files', 'search_files', 'read_many_files', 'move_file', 'create_directory',
    'create_checkpoint', 'restore_checkpoint', 'list_checkpoints',
  ])
  const view = s.tools.find((x) => x.name === 'view_file')
  assert.deepEqual(view.annotations, { title: 'View file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
  const readOnly = ['view_file', 'list_symbols', 'list_directory', 'find_files', 'search_files', 'read_many_files', 'list_checkpoints']
  for (const x of s.tools) {
    assert.equal(x.annotations.readOnlyHint, readOnly.includes(x.name), x.name)
    // Creating a directory adds and never replaces anything.
    // (a checkpoint only marks the journal)
    assert.equal(x.annotations.destructiveHint, !readOnly.includes(x.name) && x.name !== 'create_directory' && x.name !== 'create_checkpoint', x.name)
  }
  // Without the functions, only the tools the library has.
  const bare = await inProcess(t, { root, library: { ErrorCode: sp.ErrorCode, patchFile: sp.patchFile } })
  assert.deepEqual(bare.tools.map((x) => x.name), ['patch_file'])
})

test('arguments reach the library with the server root; contract-shaped results pass outputSchema', async (t) => {
  const root = populate(tempDir(t), { 'v.txt': 'v\n' })
  const { lib, calls } = library(root)
  const s = await inProcess(t, { root, library: lib })
  const cases = [
    ['view_file', { file_path: 'v.txt', format: 'hashline', start_line: 1, end_line: 1, max_bytes: 100 }, ['viewFile', 'v.txt', { workspace_root: root, format: 'hashline', start_line: 1, end_line: 1, max_bytes: 100 }]],
    ['edit_lines', { file_path: 'v.txt', ops: [{ op: 'delete', start: '1:ab' }], dry_run: true }, ['editLines', 'v.txt', [{ op: 'delete', start: '1:ab' }], { workspace_root: root, base_hash: undefined, dry_run: true, validate: 'report' }]],
    ['write_file', { file_path: 'w.txt', content: 'w\n', allow_placeholders: false }, ['createFile', 'w.txt', 'w\n', { workspace_root: root, overwrite: true, base_hash: undefined, allow_placeholders: false, max_changed_lines: undefined, validate: 'report' }]],
    ['delete_file', { file_path: 'w.txt', base_hash: HASH }, ['deleteFile', 'w.txt', { workspace_root: root, base_hash: HASH }]],
    ['undo_edit', { edit_id: 'e2' }, ['undoEdit', 'e2', { workspace_root: root }]],
    ['undo_edit', { file_path: 'w.txt' }, ['undoEdit', 'w.txt', { workspace_root: root }]],
    ['apply_patch', { patch: '*** Begin Patch\n*** End Patch\n', overwrite: true }, ['applyPatch', '*** Begin Patch\n*** End Patch\n', { workspace_root: root, dry_run: undefined, overwrite: true, validate: 'report' }]],
  ]
  for (const [name, args, call] of cases) {
    calls.length = 0
    const res = await s.call(name, args) // the client validates structuredContent against outputSchema
    assert.deepEqual(calls, [call], name)
    assert.equal(res.isError, res.structuredContent.ok === false)
    assert.deepEqual(res.content, [{ type: 'text', text: summarize(name, res.structuredContent) }])
  }
  const undo = await s.call('undo_edit', { edit_id: 'e9' })
  assert.deepEqual(undo.structuredContent, { ok: false, code: 'EDIT_NOT_FOUND', message: 'no such edit; edit ids come from edit results.' })
  assert.equal(undo.isError, true)
  calls.length = 0
  for (const args of [{}, { edit_id: 'e1', file_path: 'w.txt' }]) {
    const bad = await s.call('undo_edit', args)
    assert.deepEqual(bad.structuredContent, { ok: false, code: 'INVALID_INPUT', message: 'undo_edit needs exactly one of edit_id or file_path. (nothing was written)' })
  }
  assert.deepEqual(calls, [], 'refused before the library')
})

test('the server\'s validate mode reaches every editing tool and never view_file or delete_file', async (t) => {
  const root = populate(tempDir(t), { 'v.txt': 'v\n' })
  const { lib, calls } = library(root)
  const seen = []
  const spy = (name, fn) => (...args) => {
    seen.push([name, args[args.length - 1].validate])
    return fn(...args)
  }
  const s = await inProcess(t, { root, library: { ...lib, patchFile: spy('patchFile', sp.patchFile), applyEdits: spy('applyEdits', sp.applyEdits) }, validate: 'enforce' })
  await s.call('patch_file', { file_path: 'v.txt', search_block: 'v', replace_block: 'w', dry_run: true })
  await s.call('edit_file', { file_path: 'v.txt', edits: [{ old: 'v', new: 'w' }], dry_run: true })
  await s.call('edit_lines', { file_path: 'v.txt', ops: [{ op: 'delete', start: '1:ab' }] })
  await s.call('write_file', { file_path: 'w.txt', content: 'w\n' })
  await s.call('apply_patch', { patch: '*** Begin Patch\n*** End Patch\n' })
  await s.call('view_file', { file_path: 'v.txt' })
  await s.call('delete_file', { file_path: 'w.txt' })
  assert.deepEqual(seen, [['patchFile', 'enforce'], ['applyEdits', 'enforce']])
  assert.deepEqual(
    calls.map((c) => [c[0], c[c.length - 1].validate]),
    [['editLines', 'enforce'], ['createFile', 'enforce'], ['applyPatch', 'enforce'], ['viewFile', undefined], ['deleteFile', undefined]],
  )
  for (const t of tools.TOOLS) assert.equal('validate' in t.input.properties, false, `${t.name} must not let the model choose the mode`)
  assert.equal(sp.createToolRunner({ workspaceRoot: root }).validate, 'report')
  assert.throws(() => sp.createToolRunner({ workspaceRoot: root, validate: 'strict' }), /validate must be one of off, report, enforce/)
})

test('outputSchema accepts every success shape and every failure code, and rejects malformed results (the code is a string; the list is not repeated per tool)', () => {
  const v = new AjvJsonSchemaValidator()
  for (const def of tools.TOOLS) {
    const check = v.getValidator(tools.outputSchemaOf(def, sp))
    for (const code of Object.keys(sp.ErrorCode)) {
      assert.equal(check({ ok: false, code, message: 'm', file_path: 'a', candidates: [] }).valid, true, `${def.name} ${code}`)
    }
    // The codes are not enumerated in each tool's schema (tools/list would repeat the list 8+ times):
    // a code must be a string.
    assert.equal(check({ ok: false, code: 3, message: 'm' }).valid, false)
    assert.equal(check({ ok: false, message: 'm' }).valid, false)
    assert.equal(check({ ok: true }).valid, def.success.required.length === 0, def.name)
    assert.equal(check({ code: 'INVALID_INPUT', message: 'm' }).valid, false)
  }
})

test('read-before-edit: view, edit, chain; unviewed, changed or mismatched files refused, nothing written', async (t) => {
  const root = populate(tempDir(t), { 'r.txt': 'one\ntwo\n', 'p.txt': 'p\n' })
  const { lib, calls } = library(root)
  const s = await inProcess(t, { root, library: lib, requireRead: true })
  const text = () => readFileSync(join(root, 'r.txt'), 'utf8')
  const edit = (from, to, extra) => s.call('patch_file', { file_path: 'r.txt', search_block: from, replace_block: to, ...extra })

  assert.deepEqual((await edit('one', 'uno')).structuredContent, {
    ok: false,
    code: 'STALE_FILE',
    message: 'r.txt has not been viewed in this session; nothing was written. Call view_file on it first, then retry the edit.',
    file_path: 'r.txt',
    hint: 'read-before-edit is on: call view_file, then edit.',
  })
  assert.equal(text(), 'one\ntwo\n')

  const view = await s.call('view_file', { file_path: 'r.txt' })
  const seen = view.structuredContent.file_hash
  const wrong = await edit('one', 'uno', { base_hash: 'ffffffffffffffff' })
  assert.deepEqual(wrong.structuredContent, {
    ok: false,
    code: 'STALE_FILE',
    message: `base_hash ffffffffffffffff for r.txt is not the hash this session last saw (${seen}); nothing was written. View the file again and rebuild the edit.`,
    file_path: 'r.txt',
    base_hash: 'ffffffffffffffff',
    current_hash: seen,
    hint: 'call view_file, then retry with the new file_hash.',
  })
  assert.equal((await edit('one', 'uno', { base_hash: seen.toUpperCase() })).structuredContent.ok, true)
  assert.equal((await edit('two', 'dos')).structuredContent.ok, true, 'the edit result counts as seen')
  assert.equal(text(), 'uno\ndos\n')

  // Changed behind the server's back: the engine refuses against the hash the server saw.
  writeFileSync(join(root, 'r.txt'), 'changed\n')
  const now = await engineHash(root, 'r.txt')
  const stale = await s.call('edit_file', { file_path: 'r.txt', edits: [{ old: 'changed', new: 'x' }] })
  assert.equal(stale.structuredContent.code, 'STALE_FILE')
  assert.equal(stale.structuredContent.current_hash, now)
  assert.equal(text(), 'changed\n')
  // A dry run does not count as seeing the new content; a view does.
  await s.call('view_file', { file_path: 'r.txt' })
  assert.equal((await s.call('edit_file', { file_path: 'r.txt', edits: [{ old: 'changed', new: 'x' }], dry_run: true })).structuredContent.written, false)
  assert.equal((await s.call('edit_file', { file_path: 'r.txt', edits: [{ old: 'changed', new: 'x' }] })).structuredContent.ok, true)
  assert.equal(text(), 'x\n')

  // Same file through another spelling of its path.
  assert.equal((await s.call('patch_file', { file_path: './r.txt', search_block: 'x', replace_block: 'y' })).structuredContent.ok, true)

  // New files need no view; existing ones do, for every editing tool.
  calls.length = 0
  assert.equal((await s.call('write_file', { file_path: 'fresh.txt', content: 'f\n' })).structuredContent.ok, true)
  for (const [name, args] of [
    ['write_file', { file_path: 'p.txt', content: 'q\n' }],
    ['delete_file', { file_path: 'p.txt' }],
    ['edit_lines', { file_path: 'p.txt', ops: [{ op: 'delete', start: '1:aa' }] }],
    ['apply_patch', { patch: '*** Begin Patch\n*** Update File: p.txt\n@@\n-p\n+q\n*** End Patch\n' }],
  ]) {
    const r = await s.call(name, args)
    assert.equal(r.structuredContent.code, 'STALE_FILE', name)
    assert.equal(r.structuredContent.file_path, 'p.txt', name)
  }
  assert.deepEqual(calls.map((c) => c[0]), ['createFile'], 'refusals never reach the library')
  assert.equal(readFileSync(join(root, 'p.txt'), 'utf8'), 'p\n')

  // After a view: the hash seen is passed on as base_hash, and apply_patch checks the file as it is now.
  await s.call('view_file', { file_path: 'p.txt' })
  const pHash = await engineHash(root, 'p.txt')
  calls.length = 0
  await s.call('delete_file', { file_path: 'p.txt' })
  assert.deepEqual(calls[0], ['deleteFile', 'p.txt', { workspace_root: root, base_hash: pHash }])
  const patch = '*** Begin Patch\n*** Update File: p.txt\n@@\n-p\n+q\n*** End Patch\n'
  assert.equal((await s.call('apply_patch', { patch })).structuredContent.code, 'STALE_FILE', 'deleting forgot p.txt')
  await s.call('view_file', { file_path: 'p.txt' })
  assert.equal((await s.call('apply_patch', { patch })).structuredContent.ok, true)
  writeFileSync(join(root, 'p.txt'), 'p2\n')
  const changed = await s.call('apply_patch', { patch })
  assert.equal(changed.structuredContent.code, 'STALE_FILE')
  assert.equal(changed.structuredContent.current_hash, await engineHash(root, 'p.txt'))
})

test('toolDefinitions: OpenAI, Anthropic and Vercel shapes from the same schemas as MCP', () => {
  const defs = sp.toolDefinitions
  const available = tools.availableTools(sp)
  assert.deepEqual(Object.keys(defs), ['openai', 'openaiStrict', 'openaiResponses', 'anthropic', 'vercel'])
  assert.deepEqual(defs.openai, available.map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: tools.inputSchemaOf(d) } })))
  assert.deepEqual(defs.anthropic, available.map((d) => ({ name: d.name, description: d.description, input_schema: tools.inputSchemaOf(d) })))
  assert.deepEqual(Object.keys(defs.vercel), available.map((d) => d.name))
  for (const d of available) assert.deepEqual(defs.vercel[d.name], { description: d.description, inputSchema: tools.inputSchemaOf(d) })
  // Every definition is the checked-in schema file.
  for (const d of defs.anthropic) {
    assert.deepEqual(d.input_schema, JSON.parse(readFileSync(join(REPO, 'schemas', `${d.name}.input.json`), 'utf8')))
  }
  // Definitions are copies: changing one does not change the server's.
  defs.openai[0].function.parameters.properties.file_path.type = 'number'
  assert.equal(tools.inputSchemaOf(tools.TOOLS[1]).properties.file_path.type, 'string')
})

test('createToolRunner: the same tools without MCP, root fixed by the host', async (t) => {
  const root = populate(tempDir(t), { 'h.txt': 'h\n' })
  const runner = sp.createToolRunner({ workspaceRoot: root })
  assert.equal(runner.root, root)
  const r = await runner.call('patch_file', { file_path: 'h.txt', search_block: 'h', replace_block: 'i' })
  assert.equal(r.ok, true)
  assert.equal(readFileSync(join(root, 'h.txt'), 'utf8'), 'i\n')
  assert.deepEqual(await runner.call('nope', {}), {
    ok: false,
    code: 'INVALID_INPUT',
    message: `unknown tool "nope"; available tools are ${JSON.stringify(runner.tools)}.`,
  })
  assert.equal((await runner.call('patch_file', 'text')).code, 'INVALID_INPUT')
  assert.equal((await runner.call('patch_file', [1])).code, 'INVALID_INPUT')
})

test('a library that throws or answers nonsense gives INTERNAL_ERROR, never a protocol error', async (t) => {
  const root = tempDir(t)
  const lib = { ErrorCode: sp.ErrorCode, patchFile: () => Promise.reject(new Error('boom')), applyEdits: () => Promise.resolve('nonsense') }
  const s = await inProcess(t, { root, library: lib })
  const thrown = await s.call('patch_file', { file_path: 'a', search_block: 'a', replace_block: 'b' })
  assert.deepEqual(thrown.structuredContent, { ok: false, code: 'INTERNAL_ERROR', message: 'patch_file failed unexpectedly: boom. Please report this.' })
  const nonsense = await s.call('edit_file', { file_path: 'a', edits: [] })
  assert.deepEqual(nonsense.structuredContent, { ok: false, code: 'INTERNAL_ERROR', message: 'edit_file: the engine returned no result object. Please report this.' })
})

test('schemas/*.json are exactly what `npm run schemas` generates', () => {
  const expected = tools.schemaFiles(sp)
  // Besides these, schemas/ holds the files src/contract generates from the Rust types (checked by
  // tests/contract.rs): ops.json and every op's output and argument schemas.
  const fromRust = ['ops.json', ...tools.opTable().flatMap((o) => [o.output, o.args])]
  const present = readdirSync(join(REPO, 'schemas')).filter((f) => f.endsWith('.json')).sort()
  assert.deepEqual(present, [...new Set([...Object.keys(expected), ...fromRust])].sort(), 'run `npm run schemas` and commit the result')
  for (const [name, text] of Object.entries(expected)) {
    assert.equal(readFileSync(join(REPO, 'schemas', name), 'utf8'), text, `schemas/${name} is out of date: run \`npm run schemas\``)
  }
})
