// Issue #27 §3: every message and hint names only arguments and tools of the surface that answered.
// The MCP tools through the real server over stdio (SDK client), the command line as a subprocess, and
// the command line's table over the engine's own hints for the repeats a single process sees.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
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
  assert.equal(amb.hint, 'Add unchanged neighbouring lines to search_block until it is unique (to replace every occurrence, use applyEdits with expected_replacements).')
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
