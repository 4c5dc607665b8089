// Issue #27 §2: the argument names models were trained on, through the library and the real MCP server
// (SDK client over stdio): Claude Code's Edit / MultiEdit / Read, Codex's apply_patch {input}, the MCP
// reference filesystem server's edit_file / read_text_file, Gemini CLI's replace. Conflicting spellings
// are INVALID_INPUT with nothing written; a missing edit text names the item and the accepted names.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { populate, stdio, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')

const X = 'a = 1\nb = 1\na = 1\n'
const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('')

test('library: the other tools\' argument names on patchFile, applyEdits and viewFile', { timeout: 30_000 }, async (t) => {
  const root = populate(tempDir(t), { 'x.py': X, 't.txt': TEN })
  const o = { workspaceRoot: root }
  const read = () => readFileSync(join(root, 'x.py'), 'utf8')
  let r = await sp.patchFile({ file_path: 'x.py', old_string: 'a = 1', new_string: 'a = 2', replace_all: true }, o)
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.replacements, 2)
  assert.equal(read(), 'a = 2\nb = 1\na = 2\n')
  r = await sp.applyEdits('x.py', [{ oldText: 'b = 1', newText: 'b = 2' }, { old_string: 'a = 2', new_string: 'a = 3', replace_all: true }], o)
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(), 'a = 3\nb = 2\na = 3\n')
  r = await sp.viewFile('t.txt', { ...o, offset: 9, limit: 5 })
  assert.equal(r.content, 'line 9\nline 10\n')
  assert.equal((await sp.viewFile('t.txt', { ...o, tail: 1 })).content, 'line 10\n')
  // Refusals: INVALID_INPUT, the file unchanged.
  const before = read()
  for (const [call, words] of [
    [() => sp.patchFile({ file_path: 'x.py', search_block: 'b = 2', old_string: 'a = 3', replace_block: 'q' }, o), /both search_block and old_string/],
    [() => sp.applyEdits('x.py', [{ oldText: 'b = 2' }], o), /^edits\[0\]\.new is required \(a string; .*\); accepted names: new, new_string, newString, replace, newText\.$/],
    [() => sp.applyEdits('x.py', [{ old: 'b = 2', new: 'x' }, { newText: 'x' }], o), /^edits\[1\]\.old is required \(a string\); accepted names: old, old_string, oldString, search, oldText\.$/],
    [() => sp.viewFile('t.txt', { ...o, head: 2, tail: 2 }), /tail/],
  ]) {
    const f = await call()
    assert.equal(f.code, 'INVALID_INPUT', JSON.stringify(f))
    assert.match(f.message, words)
  }
  assert.equal(read(), before)
})

test('MCP: the other tools\' argument names on the native tools, over stdio', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'x.py': X, 't.txt': TEN })
  const c = await stdio(t, { args: ['--root', root] })
  const call = async (name, args) => (await c.call(name, args)).structuredContent
  const read = (f = 'x.py') => readFileSync(join(root, f), 'utf8')
  // Claude Code Edit {file_path, old_string, new_string, replace_all} → patch_file
  let r = await call('patch_file', { file_path: 'x.py', old_string: 'a = 1', new_string: 'a = 2', replace_all: true })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(), 'a = 2\nb = 1\na = 2\n')
  // Gemini CLI replace {file_path, old_string, new_string, expected_replacements} → patch_file
  r = await call('patch_file', { file_path: 'x.py', old_string: 'a = 2', new_string: 'a = 3', expected_replacements: 2 })
  assert.equal(r.ok, true, JSON.stringify(r))
  // Claude Code MultiEdit {file_path, edits: [{old_string, new_string, replace_all}]} → edit_file
  r = await call('edit_file', { file_path: 'x.py', edits: [{ old_string: 'a = 3', new_string: 'a = 4', replace_all: true }, { old_string: 'b = 1', new_string: 'b = 4' }] })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(), 'a = 4\nb = 4\na = 4\n')
  // Filesystem server edit_file {path, edits: [{oldText, newText}], dryRun} → edit_file
  r = await call('edit_file', { path: 'x.py', edits: [{ oldText: 'b = 4', newText: 'b = 5' }], dryRun: true })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.written, false)
  assert.match(r.diff, /\+b = 5/)
  // Filesystem server read_text_file {path, head, tail} and Claude Code Read {file_path, offset, limit} → view_file
  assert.equal((await call('view_file', { path: 't.txt', head: 2 })).content, 'line 1\nline 2\n')
  assert.equal((await call('view_file', { path: 't.txt', tail: 2 })).content, 'line 9\nline 10\n')
  assert.equal((await call('view_file', { file_path: 't.txt', offset: 4, limit: 1 })).content, 'line 4\n')
  // Codex apply_patch {input}
  r = await call('apply_patch', { input: '*** Begin Patch\n*** Update File: x.py\n@@\n-b = 4\n+b = 6\n*** End Patch\n' })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(), 'a = 4\nb = 6\na = 4\n')
  // Refusals: INVALID_INPUT, nothing written.
  const before = read()
  for (const [name, args, words] of [
    ['patch_file', { file_path: 'x.py', old_string: 'b = 6', search_block: 'a = 4', new_string: 'q' }, /both .*(old_string|search_block).* with different values/],
    ['apply_patch', { input: '*** Begin Patch\n*** End Patch\n', patch: 'other' }, /both .* with different values/],
    ['edit_file', { path: 'x.py', edits: [{ oldText: 'b = 6', newText: 'q' }, { oldText: 'a = 4' }] }, /^edits\[1\]\.new is required \(a string; .*\); accepted names: new, new_string, newString, replace, newText\.$/],
    ['edit_file', { path: 'x.py', file_path: 'y.py', edits: [{ old: 'b', new: 'c' }] }, /both .* with different values/],
    ['patch_file', { file_path: 'x.py', old_string: 'a = 4', new_string: 'q', replace_all: true, expected_replacements: 2 }, /not both/],
    ['view_file', { path: 't.txt', head: 1, tail: 1 }, /tail/],
  ]) {
    const f = await call(name, args)
    assert.equal(f.code, 'INVALID_INPUT', `${name} ${JSON.stringify(args)}: ${JSON.stringify(f)}`)
    assert.match(f.message, words, JSON.stringify(f))
  }
  assert.equal(read(), before)
  // The advertised schemas keep one spelling each.
  const patch = c.tools.find((x) => x.name === 'patch_file')
  assert.ok(!('old_string' in patch.inputSchema.properties))
})
