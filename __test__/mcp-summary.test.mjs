// What a model reads: a tool result's text is a compact summary (the diff, or the message, candidates
// and next action), never the escaped JSON of the whole result; structuredContent keeps the object.
// tools/list stays within 40 KB as compact JSON.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { inProcess, populate, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const sp = require('../index.js')
const tools = require('../tools/table.cjs')

const notJson = (text) => assert.throws(() => JSON.parse(text), SyntaxError, 'the text must not be the JSON result')

test('tools/list is at most 40 KB as compact JSON with every tool, and no output schema enumerates the error codes', async (t) => {
  // Output schemas are opt-in (--output-schemas): the listing a client gets without it, with every
  // tool (--tools all), stays within the budget; the default profile is far below it (its token
  // count is checked in tools-list.test.mjs).
  const all = await inProcess(t, { root: tempDir(t), outputSchemas: false })
  const size = Buffer.byteLength(JSON.stringify({ tools: all.tools }))
  assert.ok(size <= 40 * 1024, `tools/list is ${size} bytes`)
  const s = await inProcess(t, { root: tempDir(t) })
  for (const tool of s.tools) {
    assert.ok(!JSON.stringify(tool.outputSchema).includes('"SEARCH_BLOCK_AMBIGUOUS"'), tool.name)
    assert.ok(tool.description.length > 100, tool.name)
  }
})

test('an edit: the text is the file line, edit_id and the diff as raw text', async (t) => {
  const root = populate(tempDir(t), { 'a.py': 'x = 1\ny = 2\n' })
  const s = await inProcess(t, { root })
  const r = await s.call('patch_file', { file_path: 'a.py', search_block: 'y = 2', replace_block: 'y = 3' })
  const sc = r.structuredContent
  assert.equal(sc.ok, true)
  const text = r.content[0].text
  notJson(text)
  assert.equal(
    text,
    `a.py: changed +1 −1, file_hash ${sc.file_hash}\nedit_id ${sc.edit_id} (undo_edit reverts it)\nline_number: 2\n` +
      '--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n',
  )
  assert.ok(text.length < JSON.stringify(sc).length)

  const dry = await s.call('apply_patch', { patch: '*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = (\n*** End Patch\n', dry_run: true })
  const dt = dry.content[0].text
  assert.match(dt, /^a\.py: update \+1 −1, file_hash [0-9a-f]{16}\ndry run: nothing was written\.\n/)
  assert.match(dt, /syntax: the edit introduced 1 syntax error\(s\) \(python\)/)
  assert.match(dt, /\n-x = 1\n\+x = \(\n/)
  assert.equal(readFileSync(join(root, 'a.py'), 'utf8'), 'x = 1\ny = 3\n')
})

test('a failure: code and message, next action, hint and each candidate with its snippet; bytes unchanged', async (t) => {
  const root = populate(tempDir(t), { 'f.txt': 'alpha\nbeta\nalpha\n' })
  const s = await inProcess(t, { root })
  const nf = await s.call('patch_file', { file_path: 'f.txt', search_block: 'betta', replace_block: 'x' })
  assert.equal(nf.isError, true)
  const text = nf.content[0].text
  notJson(text)
  const sc = nf.structuredContent
  assert.equal(sc.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.ok(text.startsWith(`SEARCH_BLOCK_NOT_FOUND: ${sc.message}\nnext_action: ${sc.next_action}\nhint: ${sc.hint}\n`), text)
  const c = sc.candidates[0]
  assert.ok(text.includes(`candidate lines ${c.start_line}-${c.end_line} (similarity ${c.similarity.toFixed(2)}):\n  ${c.differences[0]}\n${c.snippet}\n`), text)

  const amb = await s.call('patch_file', { file_path: 'f.txt', search_block: 'alpha', replace_block: 'x' })
  assert.equal(amb.structuredContent.code, 'SEARCH_BLOCK_AMBIGUOUS')
  assert.match(amb.content[0].text, /^SEARCH_BLOCK_AMBIGUOUS: .*\n(.*\n)*match_lines: 1, 3\n/)
  assert.equal(readFileSync(join(root, 'f.txt'), 'utf8'), 'alpha\nbeta\nalpha\n')
})

test('view_file: one header line, then the content as is', async (t) => {
  const root = populate(tempDir(t), { 'v.txt': 'one\n"two"\n' })
  const s = await inProcess(t, { root })
  const r = await s.call('view_file', { file_path: 'v.txt' })
  const sc = r.structuredContent
  assert.equal(r.content[0].text, `v.txt: lines 1-2 of 2, file_hash ${sc.file_hash} (utf-8, lf)\none\n"two"\n`)
  const cut = await s.call('view_file', { file_path: 'v.txt', start_line: 1, end_line: 1 })
  assert.match(cut.content[0].text, /^v\.txt: lines 1-1 of 2,/)
})

test('write_file, delete_file and undo_edit: what happened to each file', async (t) => {
  const root = populate(tempDir(t), { 'old.txt': 'a\nb\n' })
  const s = await inProcess(t, { root })
  const w = await s.call('write_file', { file_path: 'old.txt', content: 'a\nB\nc\n' })
  assert.match(w.content[0].text, /^old\.txt: changed \+2 −1, file_hash [0-9a-f]{16}\nedit_id \S+ \(undo_edit reverts it\)\n/)
  const d = await s.call('delete_file', { file_path: 'old.txt' })
  assert.match(d.content[0].text, /^old\.txt: deleted, file_hash|^old\.txt: deleted\n/)
  const u = await s.call('undo_edit', { edit_id: d.structuredContent.edit_id })
  assert.equal(u.content[0].text, `undid ${d.structuredContent.edit_id}:\nold.txt: recreated, file_hash ${u.structuredContent.files[0].file_hash}\n`)
  assert.equal(readFileSync(join(root, 'old.txt'), 'utf8'), 'a\nB\nc\n')
})

test('a result of a tool the summary does not know: every field readable, multi-line strings raw', () => {
  const { summarize } = require('../tools/summary.cjs')
  const text = summarize('a_future_tool', { ok: true, path: 'src', entries: [{ name: 'a.js', type: 'file' }], note: 'x\ny' })
  assert.equal(text, 'path: src\nentries:\n- {"name":"a.js","type":"file"}\nnote:\nx\ny\n')
  assert.ok(tools && sp)
})

test('apply_patch results carry an edit_id: undo_edit reverts the whole patch', async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'one\n' })
  const s = await inProcess(t, { root })
  const p = await s.call('apply_patch', { patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** Add File: b.txt\n+new\n*** End Patch\n' })
  assert.equal(p.structuredContent.ok, true, p.content[0].text)
  const id = p.structuredContent.edit_id
  assert.match(id, /^e[0-9a-f]+$/)
  assert.match(p.content[0].text, new RegExp(`^a\\.txt: update \\+1 −1, file_hash [0-9a-f]{16}\\nb\\.txt: add \\+1 −0, file_hash [0-9a-f]{16}\\nedit_id ${id} \\(undo_edit reverts it\\)\\n`))
  const u = await s.call('undo_edit', { edit_id: id })
  assert.equal(u.structuredContent.ok, true, u.content[0].text)
  assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'one\n')
  assert.deepEqual(u.structuredContent.files.map((f) => [f.file_path, f.action]), [['a.txt', 'restored'], ['b.txt', 'deleted']])
  const again = await s.call('undo_edit', { edit_id: id })
  assert.equal(again.structuredContent.code, 'EDIT_NOT_FOUND')
  assert.match(again.content[0].text, /^EDIT_NOT_FOUND: /)
})
