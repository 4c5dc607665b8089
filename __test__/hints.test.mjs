// Issue #27 §3: every message and hint names only arguments and tools of the surface that answered.
// The MCP tools through the real server over stdio (SDK client), the command line as a subprocess, and
// the command line's table over the engine's own hints for the repeats a single process sees.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { BIN, populate, stdio, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')
const vocabulary = require('../tools/vocabulary.cjs')

const FILES = { 'x.py': 'a = 1\na = 1\n', 'y.py': 'def f():\n    return 1\n', 'z.py': 'z = 1\n' }
const PLACEHOLDER = '    # ... existing code ...\n    return 2'

// Every property name of a JSON schema, nested ones (edit items, line ops) included.
function props(schema, into = new Set()) {
  if (!schema || typeof schema !== 'object') return into
  for (const [k, v] of Object.entries(schema.properties || {})) {
    into.add(k)
    props(v, into)
  }
  for (const k of ['items', 'anyOf', 'oneOf', 'allOf']) {
    const v = schema[k]
    if (Array.isArray(v)) v.forEach((s) => props(s, into))
    else props(v, into)
  }
  return into
}

// What an MCP tool's failure may name: its own arguments, tool names, and the arguments of a tool it names.
function checkMcp(tools, name, r) {
  const byName = new Map(tools.map((t) => [t.name, t]))
  const text = `${r.message}\n${r.hint}`
  const allowed = props(byName.get(name).inputSchema)
  for (const t of tools) if (new RegExp(`\\b${t.name}\\b`).test(text)) props(t.inputSchema, allowed).add(t.name)
  for (const [w] of text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) assert.ok(allowed.has(w), `${name} ${r.code}: names ${w}, which ${name} does not take: ${text}`)
  for (const [, w] of text.matchAll(/\b([a-z_]+): (?:true|false|"[^"]*")/g)) assert.ok(allowed.has(w), `${name} ${r.code}: sets ${w}: ${text}`)
  assert.doesNotMatch(text, /\bvalidate\b/, `${name} ${r.code}: the model cannot set validate`)
  assert.doesNotMatch(text, /\b(applyEdits|editLines|writeFile|viewFile|patchFile|applyPatch|undoEdit|moveFile)\b/, `${name} ${r.code}: a library name`)
}

test('MCP: each failing tool names only its own arguments and the tools of the server', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), FILES)
  const c = await stdio(t, { args: ['--root', root, '--validate', 'enforce'] })
  const fail = async (name, args, code) => {
    const r = (await c.call(name, args)).structuredContent
    assert.equal(r.ok, false, JSON.stringify(r))
    assert.equal(r.code, code, JSON.stringify(r))
    checkMcp(c.tools, name, r)
    return r
  }
  // patch_file's ambiguity names search_block (it takes no old and no expected_replacements of its own).
  const amb = await fail('patch_file', { file_path: 'x.py', search_block: 'a = 1', replace_block: 'a = 2' }, 'SEARCH_BLOCK_AMBIGUOUS')
  assert.match(amb.hint, /neighbouring lines to search_block until it is unique \(to replace every occurrence, use edit_file with expected_replacements\)/)
  // Text search failing again and again: each rung of the ladder.
  for (let i = 0; i < 3; i++) await fail('patch_file', { file_path: 'x.py', search_block: `a = 3\nb = ${i}`, replace_block: 'q' }, 'SEARCH_BLOCK_NOT_FOUND')
  const syn = await fail('patch_file', { file_path: 'y.py', search_block: '    return 1', replace_block: '    return (1' }, 'SYNTAX_ERROR_INTRODUCED')
  assert.match(syn.message, /Fix the edit so the file still parses \(errors the file already had elsewhere are not counted\)\.$/)
  const ph = await fail('patch_file', { file_path: 'y.py', search_block: '    return 1', replace_block: PLACEHOLDER }, 'ELIDED_CONTENT')
  assert.match(ph.message, /^replace_block replaces code .* out of both search_block and replace_block\.$/)
  await fail('edit_file', { file_path: 'x.py', edits: [{ old: 'a = 1', new: 'a = 2' }] }, 'SEARCH_BLOCK_AMBIGUOUS')
  await fail('edit_file', { file_path: 'x.py', edits: [{ old: 'a = 1', new: 'a = 2', expected_replacements: 3 }] }, 'MATCH_COUNT_MISMATCH')
  await fail('edit_file', { file_path: 'y.py', edits: [{ old: '    return 1', new: PLACEHOLDER }] }, 'ELIDED_CONTENT')
  const eph = await fail('apply_patch', { patch: '*** Begin Patch\n*** Update File: y.py\n@@\n-    return 1\n+' + PLACEHOLDER.replace('\n', '\n+') + '\n*** End Patch\n' }, 'ELIDED_CONTENT')
  assert.match(eph.message, /out of both the SEARCH and the REPLACE text \(or the hunk\)\.$/)
  await fail('apply_patch', { patch: '*** Begin Patch\n*** Update File: x.py\n@@\n-a = 1\n+b\n*** End Patch\n' }, 'SEARCH_BLOCK_AMBIGUOUS')
  const exists = await fail('apply_patch', { patch: '*** Begin Patch\n*** Add File: x.py\n+q\n*** End Patch\n' }, 'FILE_EXISTS')
  assert.match(exists.message, /pass overwrite: true/)
  await fail('apply_patch', { patch: '*** Begin Patch\n*** Update File: y.py\n@@\n-    return 1\n+    return (1\n*** End Patch\n' }, 'SYNTAX_ERROR_INTRODUCED')
  await fail('move_file', { from_path: 'y.py', to_path: 'x.py' }, 'FILE_EXISTS')
  await fail('view_file', { file_path: 'nope.py' }, 'FILE_NOT_FOUND')
  await fail('undo_edit', { file_path: 'z.py' }, 'EDIT_NOT_FOUND')
  for (const [f, text] of Object.entries(FILES)) assert.equal(readFileSync(join(root, f), 'utf8'), text, f)
})

// The command line has no tools and no `name: value` arguments: flags and commands only.
const NOT_CLI = /\b(view_file|patch_file|edit_file|edit_lines|write_file|undo_edit|move_file|start_line|end_line|expected_replacements)\b|\b[a-z_]+: (true|false|"[^"]*")|\bto old\b|\bold and new\b/

function cli(args, { root, input = '' }) {
  const r = spawnSync(process.execPath, [BIN, ...args, '--root', root], {
    input,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, SUREPATCH_WORKSPACE_ROOT: '', XDG_STATE_HOME: join(root, '..', `${root.split('/').pop()}-state`) },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

test('CLI: each refusal names flags and commands of the command line', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t, 'surepatch-hints-'), FILES)
  const cases = [
    [['apply'], '*** Begin Patch\n*** Add File: x.py\n+q\n*** End Patch\n', /^FILE_EXISTS: .*pass --overwrite to replace it/],
    [['apply'], 'x.py\n<<<<<<< SEARCH\na = 1\n=======\nb\n>>>>>>> REPLACE\n', /hint: Add unchanged neighbouring lines to the SEARCH text \(or the hunk's context\) until it is unique\.\n/],
    [['apply', '--validate', 'enforce'], 'y.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return (1\n>>>>>>> REPLACE\n', /if the break is intended, pass --validate report\./],
    [['apply'], 'y.py\n<<<<<<< SEARCH\n    return 1\n=======\n' + PLACEHOLDER + '\n>>>>>>> REPLACE\n', /out of both the SEARCH and the REPLACE text \(or the hunk\)\./],
    [['apply'], '*** Begin Patch\n*** Update File: x.py\n@@\n-zzz\n+b\n*** End Patch\n', /hint: Re-read the file \(surepatch view x\.py\) and copy the text to replace exactly\./],
    [['apply'], 'x.py\n<<<<<<< SEARCH\na = 3\nb = 4\n=======\nq\n>>>>>>> REPLACE\n', /\(surepatch view x\.py --numbered --range 1:5\)/],
    [['view', 'nope.py'], '', /^FILE_NOT_FOUND: /],
    [['undo', 'z.py'], '', /^EDIT_NOT_FOUND: /],
  ]
  for (const [args, input, want] of cases) {
    const r = cli(args, { root, input })
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, want)
    // The message (up to the fields) and the hint; the fields after them are the result's own names.
    const words = `${r.stderr.split('\nnext_action:')[0]}\n${(/^hint: .*$/m.exec(r.stderr) || [''])[0]}`
    assert.doesNotMatch(words, NOT_CLI, r.stderr)
  }
  for (const [f, text] of Object.entries(FILES)) assert.equal(readFileSync(join(root, f), 'utf8'), text, f)
})

test("CLI table over the engine's own hints for repeated failures: no tool of the MCP server named", { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), FILES)
  const hints = []
  for (let i = 0; i < 4; i++) {
    const r = await sp.patchFile({ file_path: 'x.py', search_block: `a = 3\nb = ${i}`, replace_block: 'q' }, { workspace_root: root })
    assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
    hints.push(vocabulary.speak(r, vocabulary.CLI))
  }
  const big = populate(tempDir(t), { 'big.py': Array.from({ length: 500 }, (_, i) => `v${i} = ${i}\n`).join('') })
  for (let i = 0; i < 4; i++) hints.push(vocabulary.speak(await sp.patchFile({ file_path: 'big.py', search_block: `v1 = 9\nw = ${i}`, replace_block: 'q' }, { workspace_root: big }), vocabulary.CLI))
  const seen = new Set(hints.map((r) => r.next_action))
  assert.deepEqual([...seen].sort(), ['reread', 'rewrite_file', 'use_line_edit'])
  for (const r of hints) assert.doesNotMatch(`${r.message}\n${r.hint}`, NOT_CLI, r.hint)
  assert.ok(hints.some((r) => /send it as "\*\*\* Add File" with its complete content and --overwrite/.test(r.hint)))
  assert.ok(hints.some((r) => /surepatch view big\.py --numbered\) and send a patch/.test(r.hint)))
})

// The library names its functions (viewFile, editLines, writeFile), never the MCP tools, and each
// function's own arguments: patchFile takes search_block / replace_block, the patch formats a SEARCH text
// or a hunk.
const TOOL_NAMES = /\b(view_file|patch_file|edit_file|edit_lines|write_file|undo_edit|move_file|delete_file)\b/

test('library: failures name functions and the arguments of the function that answered', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), FILES)
  const o = { workspace_root: root }
  const seen = []
  const fail = async (name, promise, code) => {
    const r = await promise
    assert.equal(r.code, code, `${name}: ${JSON.stringify(r)}`)
    assert.doesNotMatch(`${r.message}\n${r.hint}`, TOOL_NAMES, `${name}: ${r.message} / ${r.hint}`)
    seen.push(r)
    return r
  }
  const amb = await fail('patchFile', sp.patchFile({ file_path: 'x.py', search_block: 'a = 1', replace_block: 'a = 2' }, o), 'SEARCH_BLOCK_AMBIGUOUS')
  assert.equal(amb.hint, 'Add unchanged neighbouring lines to search_block until it is unique, or set replace_all: true to replace every occurrence.')
  for (let i = 0; i < 3; i++) await fail('patchFile', sp.patchFile({ file_path: 'x.py', search_block: `a = 3\nb = ${i}`, replace_block: 'q' }, o), 'SEARCH_BLOCK_NOT_FOUND')
  assert.match(seen[1].hint, /\(viewFile with start_line \d+ and end_line \d+\)/)
  assert.match(seen[2].hint, /edit the lines with editLines using their N:tag anchors/)
  assert.match(seen[3].hint, /rewrite it whole with writeFile/)
  const ph = await fail('patchFile', sp.patchFile({ file_path: 'y.py', search_block: '    return 1', replace_block: PLACEHOLDER }, o), 'ELIDED_CONTENT')
  assert.match(ph.message, /^replace_block replaces code .* out of both search_block and replace_block\.$/)
  // applyEdits takes old / new / expected_replacements: its words are the engine's.
  const ae = await fail('applyEdits', sp.applyEdits('x.py', [{ old: 'a = 1', new: 'a = 2' }], o), 'SEARCH_BLOCK_AMBIGUOUS')
  assert.match(ae.hint, /neighbouring lines to old until it is unique, or set expected_replacements/)
  const blocks = await fail('applyBlocks', sp.applyBlocks('x.py\n<<<<<<< SEARCH\na = 1\n=======\nb\n>>>>>>> REPLACE\n', o), 'SEARCH_BLOCK_AMBIGUOUS')
  assert.doesNotMatch(blocks.hint, /\bold\b|expected_replacements/)
  await fail('applyPatch', sp.applyPatch('*** Begin Patch\n*** Update File: x.py\n@@\n-zzz\n+b\n*** End Patch\n', o), 'SEARCH_BLOCK_NOT_FOUND')
  const stale = await fail('patchFile', sp.patchFile({ file_path: 'z.py', search_block: 'z = 1', replace_block: 'z = 2' }, { ...o, base_hash: '0000000000000000' }), 'STALE_FILE')
  assert.match(stale.hint, /re-read it \(viewFile\)/)
  for (const [f, text] of Object.entries(FILES)) assert.equal(readFileSync(join(root, f), 'utf8'), text, f)
})

// Issue #27 §3, the whole matrix: every failure code a test can produce, on every surface that can
// produce it: the library (each function), each MCP tool (createToolRunner: the server's own runner
// and vocabulary) and the command line's table. Each message, hint and next_action names only the
// arguments of the function or tool that answered (any accepted spelling), the fields of its result
// (what to read), and the functions or tools of its own surface. LOCK_TIMEOUT, FILE_READ_ERROR,
// FILE_WRITE_ERROR and INTERNAL_ERROR need fault injection and are not produced here.
const tools = require('../tools/table.cjs')
const LIB_NAMES = /\b(applyEdits|editLines|writeFile|viewFile|patchFile|applyPatch|undoEdit|moveFile|deleteFile|createFile|readManyFiles|searchFiles|listDirectory|findFiles|applyBlocks|applyUnifiedDiff|previewEdits|createDirectory|createCheckpoint|restoreCheckpoint|listCheckpoints|mergeSnippet|listSymbols|editSymbol)\b/
const NEXT_ACTIONS = new Set(['reread', 'use_line_edit', 'rewrite_file', 'widen_context', 'fix_input', 'retry'])

// Every property name declared anywhere in a JSON schema ($defs, prefixItems and all).
function deepProps(v, into = new Set()) {
  if (Array.isArray(v)) v.forEach((x) => deepProps(x, into))
  else if (v && typeof v === 'object') {
    if (v.properties && typeof v.properties === 'object') Object.keys(v.properties).forEach((k) => into.add(k))
    // Values the caller can give (an op's kinds, a format's names).
    for (const e of [...(Array.isArray(v.enum) ? v.enum : []), v.const]) if (typeof e === 'string') into.add(e)
    Object.values(v).forEach((x) => deepProps(x, into))
  }
  return into
}
function argsSchemaProps(op) {
  const entry = tools.opTable().find((o) => o.op === op)
  const out = deepProps(JSON.parse(readFileSync(join(REPO_DIR, 'schemas', entry.args), 'utf8')))
  for (const [k, list] of Object.entries(entry.aliases || {})) [k, ...list].forEach((x) => out.add(x))
  for (const item of JSON.parse(readFileSync(join(REPO_DIR, 'schemas', entry.args), 'utf8')).prefixItems || []) out.add(item.title)
  return out
}
function resultProps(op) {
  return deepProps(JSON.parse(readFileSync(join(REPO_DIR, 'schemas', `${op}.output.json`), 'utf8')))
}
const REPO_DIR = join(BIN, '..', '..')
// Every argument name an MCP tool takes: its schema's (nested ones included), in any accepted spelling.
function toolArgs_(tool) {
  const out = deepProps(tool.input)
  for (const k of Object.keys(tools.argumentNames(tool))) out.add(k)
  for (const [k, list] of Object.entries(tools.opTable().find((o) => o.op === tool.op).aliases || {})) if (out.has(k)) list.forEach((x) => out.add(x))
  return out
}

// The name of a patch format, on every surface.
const FORMATS = new Set(['apply_patch'])

function check(surface, who, r, allowed, forbidden) {
  assert.equal(r.ok, false)
  allowed = new Set([...allowed, ...FORMATS])
  const text = `${r.message}\n${r.hint || ''}`
  if (r.next_action !== undefined) assert.ok(NEXT_ACTIONS.has(r.next_action), `${surface} ${who} ${r.code}: next_action ${r.next_action}`)
  for (const [w] of text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) assert.ok(allowed.has(w), `${surface} ${who} ${r.code}: names ${w}: ${text}`)
  for (const [, w] of text.matchAll(/\b([a-z_]+): (?:true|false|"[^"]*")/g)) assert.ok(allowed.has(w), `${surface} ${who} ${r.code}: sets ${w}: ${text}`)
  assert.doesNotMatch(text, forbidden, `${surface} ${who} ${r.code}: ${text}`)
}

test('every failure code x every surface: messages, hints and next_action name only that surface', { timeout: 120_000 }, async (t) => {
  const big = Array.from({ length: 500 }, (_, i) => `v${i} = ${i}\n`).join('')
  const files = { ...FILES, 'big.py': big, 'ro.txt': 'r\n', 'dir/k.txt': 'k\n' }
  const root = populate(tempDir(t, 'surepatch-matrix-'), files)
  writeFileSync(join(root, 'bin.dat'), Buffer.from([0x61, 0, 0x62, 0, 0x0a]))
  writeFileSync(join(root, 'lat.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  chmodSync(join(root, 'ro.txt'), 0o444)
  const o = { workspace_root: root, validate: 'enforce' }
  const ro = { workspace_root: root }
  const y = (await sp.viewFile('y.py', { workspace_root: root, format: 'hashline' })).content.split('\n')[0].split('|')[0]
  const stale = y.replace(/:.*/, ':zzzz')
  const addX = '*** Begin Patch\n*** Add File: x.py\n+q\n*** End Patch\n'
  const patchOf = (body) => `*** Begin Patch\n*** Update File: ${body}\n*** End Patch\n`
  // [code, op, library arguments, MCP tool, tool arguments]; a null side is not reachable there.
  const cases = [
    ['INVALID_INPUT', 'patch_file', [{ file_path: 'x.py' }, o], 'patch_file', { file_path: 'x.py' }],
    ['INVALID_INPUT', 'apply_edits', ['x.py', [{ oldText: 'a' }], o], 'edit_file', { file_path: 'x.py', edits: [{ oldText: 'a' }] }],
    ['INVALID_INPUT', 'view_file', ['x.py', { workspace_root: root, head: 1, tail: 1 }], 'view_file', { file_path: 'x.py', head: 1, tail: 1 }],
    ['INVALID_INPUT', 'edit_lines', ['x.py', [{ op: 'nope', start: y }], o], 'edit_lines', { file_path: 'x.py', ops: [{ op: 'nope', start: y }] }],
    ['INVALID_INPUT', 'undo_edit', [{ edit_id: 'a', file_path: 'b' }, ro], 'undo_edit', {}],
    ['PATH_OUTSIDE_WORKSPACE', 'view_file', ['../out.txt', ro], 'view_file', { file_path: '../out.txt' }],
    ['PATH_OUTSIDE_WORKSPACE', 'apply_patch', [patchOf('../out.txt\n@@\n-a\n+b'), o], 'apply_patch', { patch: patchOf('../out.txt\n@@\n-a\n+b') }],
    ['TARGET_IS_DIRECTORY', 'view_file', ['dir', ro], 'view_file', { file_path: 'dir' }],
    ['TARGET_IS_DIRECTORY', 'delete_file', ['dir', o], 'delete_file', { file_path: 'dir' }],
    ['FILE_NOT_FOUND', 'patch_file', [{ file_path: 'nope.py', search_block: 'a', replace_block: 'b' }, o], 'patch_file', { file_path: 'nope.py', search_block: 'a', replace_block: 'b' }],
    ['FILE_NOT_FOUND', 'move_file', ['nope.py', 'n2.py', o], 'move_file', { from_path: 'nope.py', to_path: 'n2.py' }],
    ['FILE_EXISTS', 'move_file', ['y.py', 'x.py', o], 'move_file', { from_path: 'y.py', to_path: 'x.py' }],
    ['FILE_EXISTS', 'apply_patch', [addX, o], 'apply_patch', { patch: addX }],
    ['FILE_EXISTS', 'create_file', ['x.py', 'q\n', o], null, null],
    ['PERMISSION_DENIED', 'patch_file', [{ file_path: 'ro.txt', search_block: 'r', replace_block: 's' }, o], 'patch_file', { file_path: 'ro.txt', search_block: 'r', replace_block: 's' }],
    ['BINARY_FILE_REJECTED', 'view_file', ['bin.dat', ro], 'view_file', { file_path: 'bin.dat' }],
    ['ENCODING_UNSUPPORTED', 'view_file', ['lat.txt', ro], 'view_file', { file_path: 'lat.txt' }],
    ['FILE_TOO_LARGE', 'view_file', ['x.py', { workspace_root: root, max_file_bytes: 1 }], null, null],
    ['SEARCH_BLOCK_AMBIGUOUS', 'patch_file', [{ file_path: 'x.py', search_block: 'a = 1', replace_block: 'b' }, o], 'patch_file', { file_path: 'x.py', search_block: 'a = 1', replace_block: 'b' }],
    ['SEARCH_BLOCK_AMBIGUOUS', 'apply_edits', ['x.py', [{ old: 'a = 1', new: 'b' }], o], 'edit_file', { file_path: 'x.py', edits: [{ old: 'a = 1', new: 'b' }] }],
    ['SEARCH_BLOCK_AMBIGUOUS', 'apply_patch', [patchOf('x.py\n@@\n-a = 1\n+b'), o], 'apply_patch', { patch: patchOf('x.py\n@@\n-a = 1\n+b') }],
    ['SEARCH_BLOCK_AMBIGUOUS', 'apply_blocks', ['x.py\n<<<<<<< SEARCH\na = 1\n=======\nb\n>>>>>>> REPLACE\n', o], null, null],
    ['MATCH_COUNT_MISMATCH', 'apply_edits', ['x.py', [{ old: 'a = 1', new: 'b', expected_replacements: 3 }], o], 'edit_file', { file_path: 'x.py', edits: [{ old: 'a = 1', new: 'b', expected_replacements: 3 }] }],
    ['MATCH_COUNT_MISMATCH', 'patch_file', [{ file_path: 'x.py', old_string: 'a = 1', new_string: 'b', expected_replacements: 3 }, o], 'patch_file', { file_path: 'x.py', old_string: 'a = 1', new_string: 'b', expected_replacements: 3 }],
    ['OVERLAPPING_EDITS', 'apply_edits', ['y.py', [{ old: 'def f():\n    return', new: 'q' }, { old: 'return 1', new: 'r' }], o], 'edit_file', { file_path: 'y.py', edits: [{ old: 'def f():\n    return', new: 'q' }, { old: 'return 1', new: 'r' }] }],
    ['NO_CHANGES', 'apply_edits', ['z.py', [{ old: 'z = 1', new: 'z = 1' }], o], 'edit_file', { file_path: 'z.py', edits: [{ old: 'z = 1', new: 'z = 1' }] }],
    ['ALREADY_APPLIED', 'patch_file', [{ file_path: 'y.py', search_block: '    return 0', replace_block: '    return 1' }, o], 'patch_file', { file_path: 'y.py', search_block: '    return 0', replace_block: '    return 1' }],
    ['PARSE_ERROR', 'apply_patch', ['*** Begin Patch\n*** Frobnicate: x.py\n*** End Patch\n', o], 'apply_patch', { patch: '*** Begin Patch\n*** Frobnicate: x.py\n*** End Patch\n' }],
    ['STALE_FILE', 'patch_file', [{ file_path: 'z.py', search_block: 'z = 1', replace_block: 'z = 2' }, { ...o, base_hash: '0000000000000000' }], 'patch_file', { file_path: 'z.py', search_block: 'z = 1', replace_block: 'z = 2', base_hash: '0000000000000000' }],
    ['STALE_ANCHOR', 'edit_lines', ['y.py', [{ op: 'delete', start: stale }], o], 'edit_lines', { file_path: 'y.py', ops: [{ op: 'delete', start: stale }] }],
    ['ELIDED_CONTENT', 'write_file', ['y.py', 'def f():\n' + PLACEHOLDER + '\n', o], 'write_file', { file_path: 'y.py', content: 'def f():\n' + PLACEHOLDER + '\n' }],
    ['EDIT_NOT_FOUND', 'undo_edit', ['e-nope', ro], 'undo_edit', { edit_id: 'e-nope' }],
    ['SYNTAX_ERROR_INTRODUCED', 'patch_file', [{ file_path: 'y.py', search_block: '    return 1', replace_block: '    return (1' }, o], 'patch_file', { file_path: 'y.py', search_block: '    return 1', replace_block: '    return (1' }],
    ['REWRITE_TOO_BROAD', 'write_file', ['big.py', big.replace(/= /g, '=  '), { ...o, max_changed_lines: 1 }], 'write_file', { file_path: 'big.py', content: big.replace(/= /g, '=  '), max_changed_lines: 1 }],
  ]
  // Lazy snippets: each refusal of mergeSnippet / merge_snippet.
  const JS = "import a from 'a'\n\nfunction one() {\n  const x = 1\n  return x\n}\n\nfunction two() {\n  const y = 2\n  return y\n}\n"
  writeFileSync(join(root, 'a.js'), JS)
  writeFileSync(join(root, 'dup.js'), 'a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n}\n')
  for (const [code, file, snippet] of [
    ['SNIPPET_UNANCHORED', 'a.js', '// ...\n  const w = 4\n// ...\n'],
    ['SNIPPET_AMBIGUOUS', 'dup.js', '// ...\nif (x) {\n  go()\n  more()\n// ...\n'],
    ['SNIPPET_OUT_OF_ORDER', 'a.js', '// ...\nfunction two() {\n  const y = 20\n  return y\n// ...\nfunction one() {\n  const x = 10\n  return x\n// ...\n'],
    ['SNIPPET_KEEP_MISSING', 'a.js', '// ...\nfunction one() {\n  const x = 10\n  return x\n// ... keep nothingHere ...\nfunction two() {\n// ...\n'],
  ]) cases.push([code, 'merge_snippet', [{ file_path: file, snippet }, o], 'merge_snippet', { file_path: file, snippet }])
  // Symbols: a name path that names nothing or two symbols, a file without a grammar.
  writeFileSync(join(root, 'amb.py'), 'class A:\n    def run(self):\n        pass\n\n\nclass B:\n    def run(self):\n        pass\n')
  cases.push(
    ['SYMBOL_NOT_FOUND', 'edit_symbol', [{ file_path: 'y.py', name_path: 'nope', action: 'delete' }, o], 'edit_symbol', { file_path: 'y.py', name_path: 'nope', action: 'delete' }],
    ['SYMBOL_AMBIGUOUS', 'edit_symbol', [{ file_path: 'amb.py', name_path: 'run', action: 'delete' }, o], 'edit_symbol', { file_path: 'amb.py', name_path: 'run', action: 'delete' }],
    ['UNSUPPORTED_LANGUAGE', 'list_symbols', ['dir/k.txt', ro], 'list_symbols', { file_path: 'dir/k.txt' }],
  )
  // Checkpoints (the CLI restores them with undo CHECKPOINT_ID).
  const cp = (await sp.createCheckpoint(ro)).checkpoint_id
  cases.push(
    ['INVALID_INPUT', 'restore_checkpoint', ['not-a-checkpoint', ro], 'restore_checkpoint', { checkpoint_id: 'not-a-checkpoint' }],
    ['EDIT_NOT_FOUND', 'restore_checkpoint', ['c0192f3a4b5c6000001a1b2', ro], 'restore_checkpoint', { checkpoint_id: 'c0192f3a4b5c6000001a1b2' }],
  )
  assert.equal((await sp.createFile('made.py', 'm = 1\n', ro)).ok, true)
  writeFileSync(join(root, 'made.py'), 'm = 2\n')
  cases.push(['STALE_FILE', 'restore_checkpoint', [cp, ro], 'restore_checkpoint', { checkpoint_id: cp }])
  // Text search failing again and again (each rung of the ladder), on a small and on a large file.
  for (const f of ['x.py', 'big.py']) {
    for (let i = 0; i < 3; i++) {
      cases.push(['SEARCH_BLOCK_NOT_FOUND', 'patch_file', [{ file_path: f, search_block: 'zz = 1\nyy', replace_block: 'b' }, o], 'patch_file', { file_path: f, search_block: 'zz = 2\nyy', replace_block: 'b' }])
      cases.push(['SEARCH_BLOCK_NOT_FOUND', 'apply_edits', [f, [{ old: 'zz = 3\nyy', new: 'b' }], o], 'edit_file', { file_path: f, edits: [{ old: 'zz = 4\nyy', new: 'b' }] }])
      cases.push(['SEARCH_BLOCK_NOT_FOUND', 'apply_patch', [patchOf(`${f}\n@@\n-zz = 5\n+b`), o], 'apply_patch', { patch: patchOf(`${f}\n@@\n-zz = 6\n+b`) }])
    }
  }
  const runner = tools.createToolRunner(sp, { workspaceRoot: root, validate: 'enforce' })
  const toolByName = new Map(tools.TOOLS.map((x) => [x.name, x]))
  const cliOps = new Set(['apply_patch', 'apply_blocks', 'apply_unified_diff', 'view_file', 'undo_edit', 'restore_checkpoint'])
  const seen = { library: new Set(), mcp: new Set(), cli: new Set() }
  const rungs = { library: new Set(), mcp: new Set(), cli: new Set() }
  for (const [code, op, libArgs, toolName, toolArgs] of cases) {
    const fn = tools.opTable().find((x) => x.op === op).js
    // The library, in its own words.
    const lr = await sp[fn](...libArgs)
    assert.equal(lr.code, code, `${fn}: ${JSON.stringify(lr)}`)
    const libAllowed = new Set([...argsSchemaProps(op), ...resultProps(op)])
    check('library', fn, lr, libAllowed, TOOL_NAMES)
    seen.library.add(code)
    if (code === 'SEARCH_BLOCK_NOT_FOUND') rungs.library.add(lr.next_action)
    // The command line reads the library's results of the ops it runs.
    // (surepatch apply takes any patch text; view and undo a path or an id, and no other option)
    const plain = typeof libArgs[0] === 'string' && Object.keys(libArgs[1] || {}).every((k) => k === 'workspace_root' || k === 'validate')
    if (cliOps.has(op) && (op.startsWith('apply_') || plain)) {
      const cr = vocabulary.speak(lr, vocabulary.CLI)
      check('cli', op, cr, resultProps(op), new RegExp(`${NOT_CLI.source}|${LIB_NAMES.source}|journal_dir`))
      seen.cli.add(code)
      if (code === 'SEARCH_BLOCK_NOT_FOUND') rungs.cli.add(cr.next_action)
    }
  }
  // The MCP tools next (one process keeps one ladder per file: a view starts each file's again).
  for (const f of ['x.py', 'y.py', 'z.py', 'big.py']) assert.equal((await sp.viewFile(f, ro)).ok, true)
  for (const [code, , , toolName, toolArgs] of cases) {
    if (!toolName) continue
    const mr = await runner.call(toolName, toolArgs)
    assert.equal(mr.code, code, `${toolName}: ${JSON.stringify(mr)}`)
    const tool = toolByName.get(toolName)
    const allowed = new Set([...toolArgs_(tool), ...props(tool.success), ...resultProps(tool.op)])
    const text = `${mr.message}\n${mr.hint || ''}`
    for (const other of tools.TOOLS) if (new RegExp(`\\b${other.name}\\b`).test(text)) [other.name, ...toolArgs_(other)].forEach((w) => allowed.add(w))
    check('mcp', toolName, mr, allowed, LIB_NAMES)
    assert.doesNotMatch(text, /\bvalidate\b/, `${toolName} ${code}: the model cannot set validate`)
    seen.mcp.add(code)
    if (code === 'SEARCH_BLOCK_NOT_FOUND') rungs.mcp.add(mr.next_action)
  }
  // (a patch's failure carries no file_lines, so its third rung is use_line_edit again)
  const ladder = { library: ['reread', 'rewrite_file', 'use_line_edit'], mcp: ['reread', 'rewrite_file', 'use_line_edit'], cli: ['reread', 'use_line_edit'] }
  for (const [surface, got] of Object.entries(rungs)) assert.deepEqual([...got].sort(), ladder[surface], surface)
  const all = Object.keys(sp.ErrorCode)
  const unproduced = ['LOCK_TIMEOUT', 'FILE_READ_ERROR', 'FILE_WRITE_ERROR', 'INTERNAL_ERROR']
  assert.deepEqual(all.filter((c) => !seen.library.has(c)).sort(), unproduced.sort(), 'library')
  assert.deepEqual(all.filter((c) => !seen.mcp.has(c)).sort(), [...unproduced, 'FILE_TOO_LARGE'].sort(), 'mcp')
  for (const f of ['x.py', 'y.py', 'z.py']) assert.equal(readFileSync(join(root, f), 'utf8'), FILES[f], f)
  assert.equal(readFileSync(join(root, 'big.py'), 'utf8'), big)
})
