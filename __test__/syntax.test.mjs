// The syntax gate (option validate) through every edit entry point, guarded rewrites
// (max_changed_lines / REWRITE_TOO_BROAD), and the MCP server's --validate. This file runs in its own
// process, so the statistics checked here only see its own calls.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { sp, workspace } from './helpers.mjs'
import { BIN, populate, stdio, tempDir } from './mcp-helpers.mjs'

const JS = 'function f() {\n  return 1;\n}\n'

// One clean file per language, an edit that breaks it, and an edit that keeps it clean.
const LANGUAGES = [
  { language: 'javascript', path: 'a.js', text: JS, breaking: ['return 1;', 'return (1;'], clean: ['return 1;', 'return 2;'] },
  { language: 'typescript', path: 'a.ts', text: 'const x: number = 1;\n', breaking: ['= 1;', '= (1;'], clean: ['= 1;', '= 2;'] },
  { language: 'python', path: 'a.py', text: 'def f():\n    return 1\n', breaking: ['return 1', 'return (1'], clean: ['return 1', 'return 2'] },
  { language: 'json', path: 'a.json', text: '{"a": 1}\n', breaking: ['"a": 1', '"a": 1,,'], clean: ['"a": 1', '"a": 2'] },
  { language: 'rust', path: 'a.rs', text: 'fn f() -> u8 {\n    1\n}\n', breaking: ['    1\n', '    (1\n'], clean: ['    1\n', '    2\n'] },
  { language: 'go', path: 'a.go', text: 'package a\n\nfunc f() int {\n\treturn 1\n}\n', breaking: ['return 1', 'return (1'], clean: ['return 1', 'return 2'] },
]

const patch = (w, path, [search, replace], validate, extra = {}) =>
  sp.patchFile({ file_path: path, search_block: search, replace_block: replace }, w.opts(validate ? { validate, ...extra } : extra))

for (const L of LANGUAGES) {
  test(`patchFile, ${L.language}: enforce refuses a breaking edit (bytes unchanged), report lands it with syntax.ok false`, async (t) => {
    const w = workspace(t)
    w.write(L.path, L.text)
    const refused = await patch(w, L.path, L.breaking, 'enforce')
    assert.equal(refused.ok, false)
    assert.equal(refused.code, 'SYNTAX_ERROR_INTRODUCED')
    assert.equal(refused.file_path, L.path)
    assert.equal(refused.syntax.language, L.language)
    assert.equal(refused.syntax.ok, false)
    assert.ok(refused.syntax.new_errors.length >= 1 && refused.syntax.new_errors.length <= 10)
    const first = refused.syntax.new_errors[0]
    assert.ok(first.line >= 1 && first.column >= 1 && typeof first.snippet === 'string')
    assert.match(refused.message, new RegExp(`line ${first.line}, column ${first.column}`))
    assert.equal(refused.next_action, 'fix_input')
    assert.equal(w.text(L.path), L.text)

    const landed = await patch(w, L.path, L.breaking, 'report')
    assert.equal(landed.ok, true)
    assert.equal(landed.written, true)
    assert.equal(landed.syntax.language, L.language)
    assert.equal(landed.syntax.ok, false)
    assert.deepEqual(landed.syntax.new_errors, refused.syntax.new_errors)
    assert.equal(w.text(L.path), L.text.replace(L.breaking[0], L.breaking[1]))
  })

  test(`patchFile, ${L.language}: a file already broken elsewhere still takes a clean edit under enforce`, async (t) => {
    const w = workspace(t)
    // The broken text is the result of the breaking edit; a clean edit elsewhere goes through.
    const broken = L.text.replace(L.breaking[0], L.breaking[1])
    const extra = { javascript: '\nconst ok = 2;\n', typescript: '\nconst ok = 2;\n', python: '\nok = 2\n', json: null, rust: '\nconst OK: u8 = 2;\n', go: '\nvar ok = 2\n' }[L.language]
    if (extra === null) {
      // JSON holds one value: edit a second key next to the broken one instead.
      w.write(L.path, '{"a": 1,,\n "b": 2}\n')
      const r = await patch(w, L.path, ['"b": 2', '"b": 3'], 'enforce')
      assert.equal(r.ok, true, JSON.stringify(r))
      assert.equal(r.syntax.ok, true)
      assert.equal(w.text(L.path), '{"a": 1,,\n "b": 3}\n')
      return
    }
    w.write(L.path, broken + extra)
    const [from, to] = { javascript: ['= 2', '= 3'], typescript: ['= 2', '= 3'], python: ['= 2', '= 3'], rust: ['= 2', '= 3'], go: ['= 2', '= 3'] }[L.language]
    const r = await patch(w, L.path, [from, to], 'enforce')
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.syntax.ok, true)
    assert.equal(w.text(L.path), broken + extra.replace(from, to))
  })
}

test('validate off (the library default) adds no syntax key; an invalid mode is INVALID_INPUT', async (t) => {
  const w = workspace(t)
  w.write('a.js', JS)
  const r = await patch(w, 'a.js', ['return 1;', 'return (1;'])
  assert.equal(r.ok, true)
  assert.equal('syntax' in r, false)
  const off = await patch(w, 'a.js', ['return (1;', 'return ((1;'], 'off')
  assert.equal(off.ok, true)
  assert.equal('syntax' in off, false)
  const bad = await patch(w, 'a.js', ['return ((1;', 'return 1;'], 'strict')
  assert.equal(bad.code, 'INVALID_INPUT')
  assert.match(bad.message, /validate/)
  assert.equal(w.text('a.js'), 'function f() {\n  return ((1;\n}\n')
})

test('an unknown extension is skipped and the edit proceeds, even under enforce', async (t) => {
  const w = workspace(t)
  w.write('notes.txt', 'f(\n')
  const r = await patch(w, 'notes.txt', ['f(', 'g(('], 'enforce')
  assert.equal(r.ok, true)
  assert.deepEqual(r.syntax, { language: null, skipped: 'unknown_language' })
  assert.equal(w.text('notes.txt'), 'g((\n')
})

test('a file above the size cap is skipped as too_large', async (t) => {
  const w = workspace(t)
  const big = 'let a = 1;\n'.repeat(220_000) + 'let z = 2;\n'
  assert.ok(big.length > 2 * 1024 * 1024)
  w.write('big.js', big)
  const r = await patch(w, 'big.js', ['let z = 2;', 'let z = (;'], 'enforce')
  assert.equal(r.ok, true)
  assert.deepEqual(r.syntax, { language: 'javascript', skipped: 'too_large' })
})

test('applyEdits and previewEdits: enforce refuses (a dry run too), report tells, nothing written by a preview', async (t) => {
  const w = workspace(t)
  w.write('a.js', JS)
  const edits = [{ old: 'return 1;', new: 'return {1;' }]
  for (const fn of [sp.applyEdits, sp.previewEdits]) {
    const r = await fn('a.js', edits, w.opts({ validate: 'enforce' }))
    assert.equal(r.code, 'SYNTAX_ERROR_INTRODUCED')
    assert.equal(w.text('a.js'), JS)
  }
  const preview = await sp.previewEdits('a.js', edits, w.opts({ validate: 'report' }))
  assert.equal(preview.ok, true)
  assert.equal(preview.written, false)
  assert.equal(preview.syntax.ok, false)
  assert.equal(w.text('a.js'), JS)
  const clean = await sp.applyEdits('a.js', [['return 1;', 'return 2;']], w.opts({ validate: 'enforce' }))
  assert.deepEqual(clean.syntax, { language: 'javascript', ok: true, new_errors: [] })
  assert.equal(w.text('a.js'), JS.replace('1', '2'))
})

test('editLines: enforce refuses a breaking op, report lands it', async (t) => {
  const w = workspace(t)
  w.write('a.py', 'def f():\n    return 1\n')
  const view = await sp.viewFile('a.py', w.opts({ format: 'hashline' }))
  const anchor = view.content.split('\n')[1].split('|')[0]
  const ops = [{ op: 'replace', start: anchor, lines: ['    return (1'] }]
  const refused = await sp.editLines('a.py', ops, w.opts({ validate: 'enforce' }))
  assert.equal(refused.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(refused.syntax.language, 'python')
  assert.equal(w.text('a.py'), 'def f():\n    return 1\n')
  const landed = await sp.editLines('a.py', ops, w.opts({ validate: 'report' }))
  assert.equal(landed.ok, true)
  assert.equal(landed.syntax.ok, false)
  assert.equal(w.text('a.py'), 'def f():\n    return (1\n')
})

test('createFile and writeFile: new content is checked (a new file against an empty one)', async (t) => {
  const w = workspace(t)
  const created = await sp.createFile('c.json', '{"a": }\n', w.opts({ validate: 'enforce' }))
  assert.equal(created.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(existsSync(w.path('c.json')), false)
  const ok = await sp.createFile('c.json', '{"a": 1}\n', w.opts({ validate: 'enforce' }))
  assert.equal(ok.ok, true)
  assert.deepEqual(ok.syntax, { language: 'json', ok: true, new_errors: [] })
  const rewrite = await sp.writeFile('c.json', '{"a": [1}\n', w.opts({ validate: 'enforce' }))
  assert.equal(rewrite.code, 'SYNTAX_ERROR_INTRODUCED')
  const over = await sp.createFile('c.json', '{"a": [1}\n', w.opts({ validate: 'enforce', overwrite: true }))
  assert.equal(over.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(w.text('c.json'), '{"a": 1}\n')
  const reported = await sp.writeFile('c.json', '{"a": [1}\n', w.opts({ validate: 'report' }))
  assert.equal(reported.ok, true)
  assert.equal(reported.syntax.ok, false)
  assert.equal(w.text('c.json'), '{"a": [1}\n')
})

test('applyPatch: one file with a new error rolls the whole patch back; report carries syntax per file', async (t) => {
  const w = workspace(t)
  w.write('a.js', JS)
  w.write('b.py', 'x = 1\n')
  const text =
    '*** Begin Patch\n*** Update File: a.js\n@@\n-  return 1;\n+  return 2;\n' +
    '*** Update File: b.py\n@@\n-x = 1\n+x = (1\n' +
    '*** Add File: c.go\n+package c\n*** End Patch\n'
  const refused = await sp.applyPatch(text, w.opts({ validate: 'enforce' }))
  assert.equal(refused.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(refused.op_index, 1)
  assert.equal(refused.file_path, 'b.py')
  assert.equal(refused.syntax.language, 'python')
  assert.equal(w.text('a.js'), JS)
  assert.equal(w.text('b.py'), 'x = 1\n')
  assert.equal(existsSync(w.path('c.go')), false)
  const dry = await sp.applyPatch(text, w.opts({ validate: 'report', dry_run: true }))
  assert.deepEqual(dry.files.map((f) => f.syntax.ok), [true, false, true])
  assert.equal(w.text('b.py'), 'x = 1\n')
  const landed = await sp.applyPatch(text, w.opts({ validate: 'report' }))
  assert.equal(landed.ok, true)
  assert.deepEqual(landed.files.map((f) => [f.file_path, f.syntax.language, f.syntax.ok]), [
    ['a.js', 'javascript', true],
    ['b.py', 'python', false],
    ['c.go', 'go', true],
  ])
  assert.equal(w.text('b.py'), 'x = (1\n')
})

test('applyBlocks and applyUnifiedDiff go through the gate too', async (t) => {
  const w = workspace(t)
  w.write('a.js', JS)
  const blocks = 'a.js\n<<<<<<< SEARCH\n  return 1;\n=======\n  return {1;\n>>>>>>> REPLACE\n'
  const b = await sp.applyBlocks(blocks, w.opts({ validate: 'enforce' }))
  assert.equal(b.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(w.text('a.js'), JS)
  const diff = '--- a/a.js\n+++ b/a.js\n@@ -1,3 +1,3 @@\n function f() {\n-  return 1;\n+  return [1;\n }\n'
  const d = await sp.applyUnifiedDiff(diff, w.opts({ validate: 'enforce' }))
  assert.equal(d.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(w.text('a.js'), JS)
  const r = await sp.applyUnifiedDiff(diff, w.opts({ validate: 'report' }))
  assert.equal(r.ok, true)
  assert.equal(r.files[0].syntax.ok, false)
  assert.equal(w.text('a.js'), JS.replace('return 1;', 'return [1;'))
})

test('getStats counts SYNTAX_ERROR_INTRODUCED refusals as syntax_refusals', async (t) => {
  getStats0()
  const w = workspace(t)
  w.write('a.js', JS)
  await patch(w, 'a.js', ['return 1;', 'return (1;'], 'enforce')
  await sp.applyEdits('a.js', [['return 1;', 'return [1;']], w.opts({ validate: 'enforce' }))
  await patch(w, 'a.js', ['return 1;', 'return (1;'], 'report') // lands: not a refusal
  const s = sp.getStats()
  assert.equal(s.syntax_refusals, 2)
  assert.equal(s.failures_by_code.SYNTAX_ERROR_INTRODUCED, 2)
})

function getStats0() {
  sp.getStats({ reset: true })
}

test('viewFile still answers the same once the gate is in use (it warms the parse cache in the background)', async (t) => {
  const w = workspace(t)
  w.write('v.js', JS)
  w.write('v.txt', 'plain\n')
  await patch(w, 'v.js', ['return 1;', 'return 2;'], 'report')
  const js = await sp.viewFile('v.js', w.opts())
  assert.equal(js.content, JS.replace('1', '2'))
  const txt = await sp.viewFile('v.txt', w.opts())
  assert.equal(txt.content, 'plain\n')
  const next = await patch(w, 'v.js', ['return 2;', 'return (2;'], 'enforce')
  assert.equal(next.code, 'SYNTAX_ERROR_INTRODUCED')
})

// ---- guarded rewrites --------------------------------------------------------------------------------

const numbered = (n, f = (i) => `line ${i}`) => Array.from({ length: n }, (_, k) => `${f(k + 1)}\n`).join('')

test('writeFile receipts report lines_added, lines_removed and changed_ranges', async (t) => {
  const w = workspace(t)
  const before = numbered(10)
  w.write('a.txt', before)
  const after = before.replace('line 3\n', 'line three\n').replace('line 7\n', '').replace('line 9\n', 'line 9\nextra a\nextra b\n')
  const r = await sp.writeFile('a.txt', after, w.opts())
  assert.equal(r.ok, true)
  assert.equal(r.lines_added, 3)
  assert.equal(r.lines_removed, 2)
  assert.equal(r.changed_lines, 4)
  assert.deepEqual(r.changed_ranges, [
    { start_line: 3, end_line: 3 },
    { start_line: 7, end_line: 6 },
    { start_line: 9, end_line: 10 },
  ])
  assert.equal(r.changed_ranges_truncated, false)
  assert.equal('syntax' in r, false)
})

test('max_changed_lines: a broader rewrite is REWRITE_TOO_BROAD with a summary, file unchanged', async (t) => {
  const w = workspace(t)
  const before = numbered(50)
  w.write('a.txt', before)
  const after = numbered(50, (i) => (i % 2 === 0 ? `LINE ${i}` : `line ${i}`))
  const calls = [
    () => sp.writeFile('a.txt', after, w.opts({ max_changed_lines: 10 })),
    () => sp.writeFile('a.txt', after, w.opts({ maxChangedLines: 24 })),
    () => sp.createFile('a.txt', after, w.opts({ overwrite: true, max_changed_lines: 10 })),
  ]
  for (const call of calls) {
    const r = await call()
    assert.equal(r.ok, false)
    assert.equal(r.code, 'REWRITE_TOO_BROAD')
    assert.equal(r.file_path, 'a.txt')
    assert.equal(r.changed_lines, 25)
    assert.equal(r.lines_added, 25)
    assert.equal(r.lines_removed, 25)
    assert.equal(r.changed_ranges.length, 20)
    assert.equal(r.changed_ranges_truncated, true)
    assert.deepEqual(r.changed_ranges[0], { start_line: 2, end_line: 2 })
    assert.match(r.message, /changes 25 line\(s\) \(25 added, 25 removed, in 25 place\(s\): line 2, line 4, line 6, line 8, line 10 and 20 more\)/)
    assert.equal(r.next_action, 'use_line_edit')
    assert.deepEqual(w.read('a.txt'), Buffer.from(before))
  }
  const ok = await sp.writeFile('a.txt', after, w.opts({ max_changed_lines: 25 }))
  assert.equal(ok.ok, true)
  assert.equal(w.text('a.txt'), after)
  // Creating a new file is never too broad.
  const fresh = await sp.createFile('b.txt', after, w.opts({ max_changed_lines: 0 }))
  assert.equal(fresh.ok, true)
  assert.equal(fresh.lines_added, 50)
  assert.equal(sp.ErrorCode.REWRITE_TOO_BROAD, 'REWRITE_TOO_BROAD')
  assert.ok(sp.errorCodes().some((c) => c.code === 'REWRITE_TOO_BROAD' && /max_changed_lines/.test(c.remedy)))
})

// ---- the MCP server ----------------------------------------------------------------------------------

async function serve(t, files, args = [], env = {}) {
  const root = populate(tempDir(t), files)
  const c = await stdio(t, { args: ['--root', root, ...args], env })
  return { ...c, root, text: (p) => readFileSync(join(root, p), 'utf8') }
}

test('MCP: the server reports syntax by default', async (t) => {
  const s = await serve(t, { 'a.js': JS })
  const r = await s.call('patch_file', { file_path: 'a.js', search_block: 'return 1;', replace_block: 'return (1;' })
  assert.equal(r.isError, false)
  assert.equal(r.structuredContent.syntax.language, 'javascript')
  assert.equal(r.structuredContent.syntax.ok, false)
  assert.equal(s.text('a.js'), JS.replace('return 1;', 'return (1;'))
  const w = await s.call('write_file', { file_path: 'a.js', content: JS })
  assert.equal(w.structuredContent.syntax.ok, true)
  assert.equal(w.structuredContent.lines_added, 1)
  assert.match(s.stderr(), /syntax gate report/)
  // The model cannot choose the mode.
  const bad = await s.call('patch_file', { file_path: 'a.js', search_block: 'return 1;', replace_block: 'x', validate: 'off' })
  assert.equal(bad.structuredContent.code, 'INVALID_INPUT')
})

test('MCP: --validate enforce (or SUREPATCH_VALIDATE) refuses a breaking edit; write_file takes max_changed_lines', async (t) => {
  for (const [args, env] of [[['--validate', 'enforce'], {}], [[], { SUREPATCH_VALIDATE: 'enforce' }]]) {
    const s = await serve(t, { 'a.js': JS, 'b.py': 'x = 1\n' }, args, env)
    const r = await s.call('edit_file', { file_path: 'a.js', edits: [{ old: 'return 1;', new: 'return (1;' }] })
    assert.equal(r.isError, true)
    assert.equal(r.structuredContent.code, 'SYNTAX_ERROR_INTRODUCED')
    assert.equal(r.structuredContent.syntax.ok, false)
    assert.equal(s.text('a.js'), JS)
    const p = await s.call('apply_patch', {
      patch: '*** Begin Patch\n*** Update File: a.js\n@@\n-  return 1;\n+  return 2;\n*** Update File: b.py\n@@\n-x = 1\n+x = (1\n*** End Patch\n',
    })
    assert.equal(p.structuredContent.code, 'SYNTAX_ERROR_INTRODUCED')
    assert.equal(s.text('a.js'), JS)
    assert.equal(s.text('b.py'), 'x = 1\n')
  }
  const off = await serve(t, { 'a.js': JS }, ['--validate=off'], { SUREPATCH_VALIDATE: 'enforce' })
  const r = await off.call('patch_file', { file_path: 'a.js', search_block: 'return 1;', replace_block: 'return (1;' })
  assert.equal(r.structuredContent.ok, true)
  assert.equal('syntax' in r.structuredContent, false)
  const broad = await off.call('write_file', { file_path: 'a.js', content: 'a\nb\nc\n', max_changed_lines: 1 })
  assert.equal(broad.structuredContent.code, 'REWRITE_TOO_BROAD')
  assert.equal(off.text('a.js'), JS.replace('return 1;', 'return (1;'))
})

test('MCP: a bad --validate value exits with status 2', () => {
  for (const [args, env] of [[['--validate', 'strict']], [[], { SUREPATCH_VALIDATE: 'nope' }]]) {
    const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env } })
    assert.equal(r.status, 2)
    assert.match(r.stderr, /validate/)
  }
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' })
  assert.match(help.stdout, /--validate MODE/)
})
