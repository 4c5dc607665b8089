// mergeSnippet through the library: the receipt, every error code with the file's bytes unchanged,
// undo byte for byte, CRLF / BOM / tabs kept, dry runs, a marker-free rewrite, and writeFile's
// ELIDED_CONTENT pointing to mergeSnippet.
import test from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { sp, workspace } from './helpers.mjs'

const { mergeSnippet, undoEdit, writeFile, viewFile, ErrorCode, errorCodes } = sp
const T = { timeout: 20_000 }

const JS = "import a from 'a'\n\nfunction one() {\n  const x = 1\n  return x\n}\n\nfunction two() {\n  const y = 2\n  return y\n}\n"

test('a merge: the receipt says where each chunk landed and what was removed', T, async (t) => {
  const w = workspace(t)
  w.write('a.js', JS)
  const snippet = '// ... existing code ...\nfunction two() {\n  const y = 20\n  return y\n// ... existing code ...\n'
  const r = await mergeSnippet({ file_path: 'a.js', snippet }, w.opts())
  assert.equal(r.ok, true, r.message)
  assert.deepEqual(Object.keys(r), ['ok', 'file_path', 'mode', 'chunks', 'removed_ranges', 'first_changed_line', 'tier', 'dialect', 'before_chars', 'after_chars', 'before_bytes', 'after_bytes', 'diff', 'written', 'file_hash', 'edit_id', 'undo_available'])
  assert.equal(r.mode, 'merge')
  assert.deepEqual(r.chunks, [{ chunk: 0, snippet_start_line: 2, snippet_end_line: 4, start_line: 8, end_line: 10 }])
  assert.deepEqual(r.removed_ranges, [{ start_line: 9, end_line: 9, by: 'shown' }])
  assert.equal(r.first_changed_line, 9)
  assert.equal(r.tier, 'exact')
  assert.match(r.diff, /\n-  const y = 2\n\+  const y = 20\n/)
  assert.equal(w.text('a.js'), JS.replace('const y = 2\n', 'const y = 20\n'))
  assert.deepEqual(w.files(), ['a.js'], 'no temp or lock files left')
  // camelCase spelling, dry run: the same receipt, nothing written.
  const d = await mergeSnippet({ filePath: 'a.js', snippet: snippet.replace('20', '21') }, { workspaceRoot: w.root, dryRun: true })
  assert.equal(d.ok, true)
  assert.equal(d.written, false)
  assert.equal(d.edit_id, null)
  assert.equal(w.text('a.js'), JS.replace('const y = 2\n', 'const y = 20\n'))
})

test('undo restores the file byte for byte; CRLF, BOM and tabs are kept', T, async (t) => {
  const w = workspace(t)
  const original = Buffer.from('\ufeffint f() {\r\n\tint a = 1;  \r\n\treturn a;\r\n}\r\n\r\nint g() {\r\n\treturn 2;\r\n}\r\n')
  w.write('m.c', original)
  const snippet = '// ...\nint f() {\n    int a = 1;\n    int b = 2;\n    return a;\n// ...\n'
  const r = await mergeSnippet({ file_path: 'm.c', snippet }, w.opts())
  assert.equal(r.ok, true, r.message)
  assert.equal(r.tier, 'indentation')
  assert.deepEqual(
    w.read('m.c'),
    Buffer.from('\ufeffint f() {\r\n\tint a = 1;  \r\n\tint b = 2;\r\n\treturn a;\r\n}\r\n\r\nint g() {\r\n\treturn 2;\r\n}\r\n'),
  )
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.ok, true, u.message)
  assert.deepEqual(w.read('m.c'), original)
})

test('a snippet without markers is a rewrite, with the file line terminator', T, async (t) => {
  const w = workspace(t)
  w.write('r.txt', 'one\r\ntwo\r\n')
  const r = await mergeSnippet({ file_path: 'r.txt', snippet: 'one\nthree\n' }, w.opts())
  assert.equal(r.ok, true, r.message)
  assert.equal(r.mode, 'rewrite')
  assert.deepEqual(r.chunks, [])
  assert.equal(w.text('r.txt'), 'one\r\nthree\r\n')
})

test('every error code, the file bytes unchanged', T, async (t) => {
  const w = workspace(t)
  const original = Buffer.from(JS)
  w.write('a.js', original)
  w.write('b.py', 'def f():\n    return 1\n\n\ndef g():\n    return 2\n')
  w.write('dup.js', 'a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n}\n')
  mkdirSync(w.path('dir'))
  w.write('bin.dat', Buffer.from([0x61, 0x00, 0x62]))
  w.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  const hash = (await viewFile('a.js', w.opts())).file_hash
  const cases = [
    ['SNIPPET_UNANCHORED', 'a.js', '// ...\n  const w = 4\n// ...\n'],
    ['SNIPPET_UNANCHORED', 'a.js', 'function two() {\n  const y = 20\n  return y\n}\n// ...\n'],
    ['SNIPPET_UNANCHORED', 'a.js', 'function two() {\n  const y = 20\n  return y\n}\n'],
    ['SNIPPET_AMBIGUOUS', 'dup.js', '// ...\nif (x) {\n  go()\n  more()\n// ...\n'],
    ['SNIPPET_OUT_OF_ORDER', 'a.js', '// ...\nfunction two() {\n  const y = 20\n  return y\n// ...\nfunction one() {\n  const x = 10\n  return x\n// ...\n'],
    ['SNIPPET_UNANCHORED', 'a.js', '// ...\nfunction two() {\n  const y = 20\n// ...\n'],
    ['SNIPPET_KEEP_MISSING', 'a.js', '// ...\nfunction one() {\n  const x = 10\n  return x\n// ... keep nothingHere ...\nfunction two() {\n// ...\n'],
    ['NO_CHANGES', 'a.js', '// ...\nfunction two() {\n  const y = 2\n// ...\n'],
    ['INVALID_INPUT', 'a.js', '// ... existing code ...\n'],
    ['INVALID_INPUT', 'a.js', undefined],
    ['FILE_NOT_FOUND', 'missing.js', '// ...\nx\n// ...\n'],
    ['TARGET_IS_DIRECTORY', 'dir', '// ...\nx\n// ...\n'],
    ['PATH_OUTSIDE_WORKSPACE', '../a.js', '// ...\nx\n// ...\n'],
    ['BINARY_FILE_REJECTED', 'bin.dat', '// ...\nx\n// ...\n'],
    ['ENCODING_UNSUPPORTED', 'latin1.txt', '// ...\nx\n// ...\n'],
  ]
  for (const [code, file, snippet] of cases) {
    const before = file.startsWith('..') || file === 'dir' || file.startsWith('missing') ? null : w.read(file)
    const r = await mergeSnippet({ file_path: file, snippet }, w.opts())
    if (before) assert.deepEqual(w.read(file), before, `${code}: ${file} unchanged`)
    assert.equal(r.ok, false, `${code}: ${JSON.stringify(r)}`)
    assert.equal(r.code, code, `${code} for ${JSON.stringify(snippet)}: ${r.message}`)
    assert.equal(ErrorCode[code], code)
    assert.deepEqual(w.read('a.js'), original, code)
    if (code.startsWith('SNIPPET_')) {
      assert.equal(typeof r.chunk_index, 'number', code)
      assert.equal(typeof r.chunk_lines.start_line, 'number', code)
      assert.ok(Array.isArray(r.candidates), code)
    }
  }
  const stale = await mergeSnippet({ file_path: 'a.js', snippet: '// ...\nfunction two() {\n  const y = 20\n// ...\n' }, w.opts({ base_hash: hash.replace(/^./, (c) => (c === '0' ? '1' : '0')) }))
  assert.equal(stale.code, 'STALE_FILE')
  assert.deepEqual(w.read('a.js'), original)
  const py = '# ...\ndef g():\n    x = (\n    return 2\n'
  const broken = await mergeSnippet({ file_path: 'b.py', snippet: py }, w.opts({ validate: 'enforce' }))
  assert.equal(broken.code, 'SYNTAX_ERROR_INTRODUCED')
  assert.equal(w.text('b.py'), 'def f():\n    return 1\n\n\ndef g():\n    return 2\n')
  // Every SNIPPET_* code has a remedy.
  const remedies = new Map(errorCodes().map((c) => [c.code, c.remedy]))
  for (const c of ['SNIPPET_UNANCHORED', 'SNIPPET_AMBIGUOUS', 'SNIPPET_OUT_OF_ORDER', 'SNIPPET_KEEP_MISSING']) assert.ok(remedies.get(c), c)
})

test('an ambiguous chunk names both places; one more unchanged line makes it land', T, async (t) => {
  const w = workspace(t)
  const file = 'a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n}\nc()\n'
  w.write('d.js', file)
  const r = await mergeSnippet({ file_path: 'd.js', snippet: '// ...\nif (x) {\n  go()\n  more()\n}\n// ...\n' }, w.opts())
  assert.equal(r.code, 'SNIPPET_AMBIGUOUS')
  assert.deepEqual(r.candidates.map((c) => c.start_line), [2, 6])
  assert.equal(r.next_action, 'widen_context')
  assert.equal(w.text('d.js'), file)
  const ok = await mergeSnippet({ file_path: 'd.js', snippet: '// ...\nb()\nif (x) {\n  go()\n  more()\n}\n// ...\n' }, w.opts())
  assert.equal(ok.ok, true, ok.message)
  assert.equal(w.text('d.js'), 'a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n  more()\n}\nc()\n')
})

test('an ambiguity refusal names, per candidate, the file line that places the chunk there; following it lands', T, async (t) => {
  const w = workspace(t)
  const file = 'a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n}\nc()\n'
  w.write('d.js', file)
  const snippet = '// ...\nif (x) {\n  go()\n  more()\n}\n// ...\n'
  const r = await mergeSnippet({ file_path: 'd.js', snippet }, w.opts())
  assert.equal(r.code, 'SNIPPET_AMBIGUOUS')
  assert.equal(w.text('d.js'), file)
  assert.deepEqual(r.distinguishing_lines, [
    { candidate_start_line: 2, line: 1, text: 'a()', side: 'above', copy_lines: { start_line: 1, end_line: 1 } },
    { candidate_start_line: 6, line: 5, text: 'b()', side: 'above', copy_lines: { start_line: 5, end_line: 5 } },
  ])
  const sentence = 'To place it, for the one at line 2, copy file line 1 `a()` above the chunk; for the one at line 6, copy file line 5 `b()` above the chunk (distinguishing_lines).'
  assert.ok(r.message.endsWith(' ' + sentence), r.message)
  assert.equal(r.hint, sentence)
  assert.equal(r.next_action, 'widen_context')
  // Following the hint for the first candidate lands there.
  const ok = await mergeSnippet({ file_path: 'd.js', snippet: '// ...\na()\nif (x) {\n  go()\n  more()\n}\n// ...\n' }, w.opts())
  assert.equal(ok.ok, true, ok.message)
  assert.equal(w.text('d.js'), 'a()\nif (x) {\n  go()\n  more()\n}\nb()\nif (x) {\n  go()\n}\nc()\n')
  // Where no line near the chunk (3 non-blank lines either side) tells the places apart, the refusal
  // says so and names none.
  const twice = 'a1()\na2()\na3()\na4()\ngo()\nb1()\nb2()\nb3()\nb4()\n'.repeat(2)
  w.write('e.js', twice)
  const none = await mergeSnippet({ file_path: 'e.js', snippet: '// ...\ngo()\nmore()\n// ...\n' }, w.opts())
  assert.equal(none.code, 'SNIPPET_AMBIGUOUS', none.message)
  assert.equal(w.text('e.js'), twice)
  assert.deepEqual(none.distinguishing_lines, [])
  assert.match(none.message, /No file line next to the chunk \(up to 3 non-blank lines above or below it\) places it on one candidate by itself/)
  assert.equal(none.hint, none.message.slice(none.message.indexOf('No file line')))
})

test("a change of the file's last lines ending in its last bracket lands; lines at the end deleted with one side shown are refused", T, async (t) => {
  const w = workspace(t)
  const file = 'function main() {\n  try {\n    run()\n  } catch (e) {\n    log(e)\n    return 2\n  }\n  return 0\n}\n'
  w.write('m.js', file)
  const ok = await mergeSnippet({ file_path: 'm.js', snippet: '// ... existing code ...\n  } catch (e) {\n    log(e)\n    return 2\n  }\n  return 10\n}\n' }, w.opts())
  assert.equal(ok.ok, true, ok.message)
  assert.equal(w.text('m.js'), file.replace('return 0', 'return 10'))
  // The snippet stops before the file's last lines with no marker: deleting them would show one side only.
  const before = w.text('m.js')
  const r = await mergeSnippet({ file_path: 'm.js', snippet: '// ... existing code ...\n    log(e)\n    return 3\n  }\n' }, w.opts())
  assert.equal(r.code, 'SNIPPET_UNANCHORED', r.message)
  assert.equal(w.text('m.js'), before)
})

test("writeFile's ELIDED_CONTENT points to mergeSnippet", T, async (t) => {
  const w = workspace(t)
  w.write('a.js', JS)
  const r = await writeFile('a.js', '// ... existing code ...\nfunction two() {\n  const y = 20\n', w.opts())
  assert.equal(r.code, 'ELIDED_CONTENT')
  assert.match(r.message, /mergeSnippet/)
  assert.match(r.hint, /mergeSnippet/)
  assert.equal(w.text('a.js'), JS)
})
