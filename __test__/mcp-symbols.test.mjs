// The list_symbols and edit_symbol tools over stdio, driven by the official SDK Client (which checks
// every structuredContent against the tool's outputSchema): the outline, an edit by name path, a
// refusal with candidates that resolve verbatim, and the file left as it was on a failure.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { populate, stdio, tempDir } from './mcp-helpers.mjs'

const SRC = 'export class Cache {\n  get(k: string) {\n    return k;\n  }\n\n  set(k: string) {}\n}\n\nexport class Store {\n  get() {}\n}\n'

test('list_symbols and edit_symbol over MCP', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'c.ts': SRC, 'n.txt': 'x\n' })
  const c = await stdio(t, { args: ['--root', root] })
  const names = c.tools.map((x) => x.name)
  assert.ok(names.includes('list_symbols') && names.includes('edit_symbol'), names.join(','))

  const list = await c.call('list_symbols', { file_path: 'c.ts' })
  assert.equal(list.isError, false)
  assert.equal(list.structuredContent.outline, 'Cache (class, 1-7)\n  Cache/get (method, 2-4)\n  Cache/set (method, 6)\nStore (class, 9-11)\n  Store/get (method, 10)\n')
  assert.match(list.content[0].text, /^c\.ts \(typescript\): 5 symbols/)

  // "get" names two methods: refused with candidates, the file untouched; each candidate resolves.
  const amb = await c.call('edit_symbol', { file_path: 'c.ts', name_path: 'get', action: 'delete' })
  assert.equal(amb.isError, true)
  assert.equal(amb.structuredContent.code, 'SYMBOL_AMBIGUOUS')
  assert.deepEqual(amb.structuredContent.candidates.map((x) => x.name_path), ['Cache/get', 'Store/get'])
  assert.equal(readFileSync(join(root, 'c.ts'), 'utf8'), SRC)
  // The candidate resolves: replacing it with its own text is NO_CHANGES (not a name failure).
  const same = await c.call('edit_symbol', { file_path: 'c.ts', name_path: amb.structuredContent.candidates[1].name_path, action: 'replace', text: 'get() {}' })
  assert.equal(same.structuredContent.code, 'NO_CHANGES')
  assert.match(same.structuredContent.message, /Store\/get/)

  const r = await c.call('edit_symbol', { file_path: 'c.ts', name_path: 'Cache/get', action: 'replace', text: 'get(k: string) {\n  return k.trim();\n}' })
  assert.equal(r.isError, false, JSON.stringify(r.structuredContent))
  assert.equal(readFileSync(join(root, 'c.ts'), 'utf8'), SRC.replace('return k;', 'return k.trim();'))
  const undo = await c.call('undo_edit', { edit_id: r.structuredContent.edit_id })
  assert.equal(undo.isError, false)
  assert.equal(readFileSync(join(root, 'c.ts'), 'utf8'), SRC)

  const u = await c.call('list_symbols', { file_path: 'n.txt' })
  assert.equal(u.structuredContent.code, 'UNSUPPORTED_LANGUAGE')
  const nf = await c.call('edit_symbol', { file_path: 'c.ts', name_path: 'Cache/nope', action: 'delete' })
  assert.equal(nf.structuredContent.code, 'SYMBOL_NOT_FOUND')
  assert.match(nf.structuredContent.message, /list_symbols/, 'the message names the MCP tool')
  assert.equal(readFileSync(join(root, 'c.ts'), 'utf8'), SRC)
})
