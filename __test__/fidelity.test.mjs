// Content fidelity through the public door: the inline_whitespace tier, no double indentation, tabs with
// alignment spaces, and the file's bytes kept on changed lines where the model changed nothing.
import test from 'node:test'
import assert from 'node:assert/strict'
import { sp, workspace } from './helpers.mjs'

const { applyPatch, applyBlocks, applyUnifiedDiff, applyEdits, ErrorCode } = sp

const P = (...lines) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n')
const B = (search, replace) => `<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`

test('inline_whitespace: unique match applies, keeps the file bytes; the tier is in the receipt', async (t) => {
  const w = workspace(t)
  const file = "const a  =  1;\nconst b = f(x,\ty);\nconst c = 3;\n"
  w.write('a.js', file)
  const r = await applyPatch(P('*** Update File: a.js', '@@', ' const a = 1;', '-const b = f(x, y);', '+const b = f(x, z);'), w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.files[0].matches[0].tier, 'inline_whitespace')
  assert.equal(w.text('a.js'), "const a  =  1;\nconst b = f(x,\tz);\nconst c = 3;\n")

  const e = await applyEdits('a.js', [{ old: 'const c  = 3;', new: 'const c = 4;' }], w.opts())
  assert.equal(e.ok, true, JSON.stringify(e))
  assert.equal(e.tier, 'inline_whitespace')
})

test('inline_whitespace: two regions at that tier refuse, and nothing is written', async (t) => {
  const w = workspace(t)
  const file = 'x  = 1\ny\nx =  1\ny\n'
  w.write('a.txt', file)
  const r = await applyBlocks(B('x = 1\ny\n', 'z\n'), w.opts({ file_path: 'a.txt' }))
  assert.equal(r.ok, false)
  assert.equal(r.code, ErrorCode.SEARCH_BLOCK_AMBIGUOUS, JSON.stringify(r))
  assert.equal(r.tier, 'inline_whitespace')
  assert.deepEqual(r.match_lines, [1, 3])
  assert.equal(w.text('a.txt'), file)
})

test('new already at the file columns is indented once, in every format', async (t) => {
  const w = workspace(t)
  const file = 'def f():\n    if x:\n        y = 1\n    return y\n'
  const want = 'def f():\n    if x:\n        y = 1\n        z = 2\n    return y\n'
  w.write('a.py', file)
  const ap = await applyPatch(P('*** Update File: a.py', '@@', ' if x:', '     y = 1', '+        z = 2', ' return y'), w.opts())
  assert.equal(ap.ok, true, JSON.stringify(ap))
  assert.equal(w.text('a.py'), want)

  w.write('a.py', file)
  const ud = await applyUnifiedDiff('--- a/a.py\n+++ b/a.py\n@@ -2,3 +2,4 @@\n if x:\n     y = 1\n+        z = 2\n return y\n', w.opts())
  assert.equal(ud.ok, true, JSON.stringify(ud))
  assert.equal(w.text('a.py'), want)

  w.write('a.py', file)
  const sr = await applyBlocks(B('if x:\n    y = 1\n', '    if x:\n        y = 1\n        z = 2\n'), w.opts({ file_path: 'a.py' }))
  assert.equal(sr.ok, true, JSON.stringify(sr))
  assert.equal(w.text('a.py'), want)
})

test('tabs with alignment spaces survive an edit written with spaces', async (t) => {
  const w = workspace(t)
  w.write('a.c', 'int g(void)\n{\n\t\tcall(a,\n\t\t     b);\n}\n')
  const r = await applyBlocks(B('                call(a,\n                     b);\n', '                call(a,\n                     b,\n                     c);\n'), w.opts({ file_path: 'a.c' }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(w.text('a.c'), 'int g(void)\n{\n\t\tcall(a,\n\t\t     b,\n\t\t     c);\n}\n')
})

test('a changed line keeps the trailing whitespace and typography the model left alone', async (t) => {
  const w = workspace(t)
  w.write('a.js', '// it\u2019s done \u2014 ok  \nrun()\n')
  const r = await applyPatch(P('*** Update File: a.js', "-// it's done - ok", "+// it's all done - ok", ' run()'), w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(w.text('a.js'), '// it\u2019s all done \u2014 ok  \nrun()\n')
})

test('writeFile: a change that starts or ends inside a multibyte character lands, with its diff', async (t) => {
  // 中 (E4 B8 AD) → 丫 (E4 B8 AB) share two bytes; ā (C4 81) → Ł (C5 81) share the last one. The diff's
  // span used to end inside the character (INTERNAL_ERROR; found by the api_call fuzz target).
  const w = workspace(t)
  w.write('zh.md', '# 标题\n中文 ā\n')
  for (const [content, lines] of [
    ['# 标题\n丫文 ā\n', '-中文 ā\n+丫文 ā\n'],
    ['# 标题\n丫文 Ł\n', '-丫文 ā\n+丫文 Ł\n'],
  ]) {
    const r = await sp.writeFile('zh.md', content, w.opts())
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(w.text('zh.md'), content)
    assert.ok(r.diff.endsWith(`@@ -1,2 +1,2 @@\n # 标题\n${lines}`), r.diff)
  }
})
