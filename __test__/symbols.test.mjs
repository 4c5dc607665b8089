// listSymbols / editSymbol through the library: the outline, every failure code with the file left
// byte for byte as it was, undo, insert-then-delete identity, CRLF and BOM files, and name_path on
// patchFile / applyEdits.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { sp, workspace } from './helpers.mjs'

const T = { timeout: 30_000 }

const PY = [
  'import os',
  '',
  '',
  '# A tiny cache.',
  'class Cache:',
  '    def get(self, key):',
  '        return self.data.get(key)',
  '',
  '    @property',
  '    def size(self):',
  '        return len(self.data)',
  '',
  '    @size.setter',
  '    def size(self, v):',
  '        raise AttributeError',
  '',
  '',
  'def run():',
  '    return Cache()',
  '',
].join('\n')

test('listSymbols: the outline, nested, with whole spans and a compact text form', T, async (t) => {
  const ws = workspace(t)
  ws.write('c.py', PY)
  const r = await sp.listSymbols('c.py', ws.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.language, 'python')
  assert.equal(r.symbol_count, 5)
  assert.deepEqual(r.symbols.map((s) => [s.name_path, s.kind, s.start_line, s.end_line]), [
    ['Cache', 'class', 4, 15],
    ['run', 'function', 18, 19],
  ])
  assert.deepEqual(r.symbols[0].children.map((s) => [s.name_path, s.start_line, s.end_line]), [
    ['Cache/get', 6, 7],
    ['Cache/size[0]', 9, 11],
    ['Cache/size[1]', 13, 15],
  ])
  assert.equal(r.outline, 'Cache (class, 4-15)\n  Cache/get (method, 6-7)\n  Cache/size[0] (method, 9-11)\n  Cache/size[1] (method, 13-15)\nrun (function, 18-19)\n')
  const v = await sp.viewFile('c.py', ws.opts())
  assert.equal(r.file_hash, v.file_hash)
})

test('every failure names its code and leaves the file byte for byte', T, async (t) => {
  const ws = workspace(t)
  ws.write('c.py', PY)
  ws.write('notes.txt', 'hello\n')
  const before = ws.read('c.py')
  const o = ws.opts()
  const cases = [
    [{ file_path: 'c.py', name_path: 'nope', action: 'delete' }, 'SYMBOL_NOT_FOUND'],
    [{ file_path: 'c.py', name_path: 'size', action: 'delete' }, 'SYMBOL_AMBIGUOUS'],
    [{ file_path: 'c.py', name_path: 'size[2]', action: 'delete' }, 'SYMBOL_NOT_FOUND'],
    [{ file_path: 'c.py', name_path: '/get', action: 'delete' }, 'SYMBOL_NOT_FOUND'],
    [{ file_path: 'c.py', name_path: 'run', action: 'replace' }, 'INVALID_INPUT'],
    [{ file_path: 'c.py', name_path: 'run', action: 'delete', text: 'x' }, 'INVALID_INPUT'],
    [{ file_path: 'c.py', name_path: 'run', action: 'rename', text: 'x' }, 'INVALID_INPUT'],
    [{ file_path: 'c.py', name_path: 'run', action: 'replace', text: 'def run():\n    return Cache()\n' }, 'NO_CHANGES'],
    [{ file_path: 'c.py', name_path: 'run', action: 'replace', text: 'def run(:\n    return 1\n' }, 'SYNTAX_ERROR_INTRODUCED', { validate: 'enforce' }],
    [{ file_path: 'c.py', name_path: 'run', action: 'delete' }, 'STALE_FILE', { base_hash: 'deadbeef' }],
    [{ file_path: 'missing.py', name_path: 'run', action: 'delete' }, 'FILE_NOT_FOUND'],
  ]
  for (const [input, code, extra] of cases) {
    const r = await sp.editSymbol(input, { ...o, ...extra })
    assert.equal(r.ok, false, JSON.stringify(input))
    assert.equal(r.code, code, `${JSON.stringify(input)}: ${JSON.stringify(r)}`)
    assert.deepEqual(ws.read('c.py'), before, JSON.stringify(input))
  }
  const u = await sp.editSymbol({ file_path: 'notes.txt', name_path: 'x', action: 'delete' }, o)
  assert.equal(u.code, 'UNSUPPORTED_LANGUAGE')
  assert.equal(ws.text('notes.txt'), 'hello\n')
  assert.equal((await sp.listSymbols('notes.txt', o)).code, 'UNSUPPORTED_LANGUAGE')
  assert.equal(sp.ErrorCode.SYMBOL_NOT_FOUND, 'SYMBOL_NOT_FOUND')
  assert.ok(sp.errorCodes().some((c) => c.code === 'SYMBOL_AMBIGUOUS'))
})

test('candidates sent back verbatim name exactly one symbol each', T, async (t) => {
  const ws = workspace(t)
  ws.write('c.py', PY)
  const o = ws.opts()
  for (const name_path of ['size', 'nope', 'Cache/siz']) {
    const r = await sp.editSymbol({ file_path: 'c.py', name_path, action: 'delete' }, { ...o, dry_run: true })
    assert.ok(r.candidates.length >= 1, JSON.stringify(r))
    const seen = new Set()
    for (const c of r.candidates) {
      const again = await sp.editSymbol({ file_path: 'c.py', name_path: c.name_path, action: 'delete' }, { ...o, dry_run: true })
      assert.equal(again.ok, true, JSON.stringify(again))
      assert.equal(again.name_path, c.name_path)
      assert.equal(again.kind, c.kind)
      seen.add(c.name_path)
    }
    assert.equal(seen.size, r.candidates.length)
  }
})

test('replace: re-indented, what the text leaves out is reported, undo restores byte for byte', T, async (t) => {
  const ws = workspace(t)
  ws.write('c.py', PY)
  const before = ws.read('c.py')
  const o = ws.opts()
  // Sent at column 0: re-indented into the class. The decorator is left out: reported.
  const r = await sp.editSymbol({ file_path: 'c.py', name_path: 'Cache/size[0]', action: 'replace', text: 'def size(self):\n    return 0\n' }, o)
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.dropped, ['@property'])
  assert.match(r.warning, /@property/)
  assert.equal(r.syntax.ok, true)
  assert.match(ws.text('c.py'), /\n\n    def size\(self\):\n        return 0\n\n    @size\.setter/)
  const u = await sp.undoEdit(r.edit_id, o)
  assert.equal(u.ok, true, JSON.stringify(u))
  assert.deepEqual(ws.read('c.py'), before)
  // A dry run writes nothing and has no edit_id.
  const d = await sp.editSymbol({ file_path: 'c.py', name_path: 'run', action: 'delete' }, { ...o, dry_run: true })
  assert.equal(d.written, false)
  assert.equal(d.edit_id, null)
  assert.deepEqual(ws.read('c.py'), before)
})

test('insert then delete restores the file byte for byte (CRLF, BOM, no final newline)', T, async (t) => {
  const ws = workspace(t)
  const o = ws.opts()
  const files = {
    'a.py': PY,
    'b.ts': '\uFEFFexport class A {\r\n  a(): number {\r\n    return 1;\r\n  }\r\n\r\n  b(): number {\r\n    return 2;\r\n  }\r\n}\r\n',
    'c.rs': 'fn a() {}\n\nfn b() {}',
    'd.go': 'package p\n\nfunc A() {\n\treturn\n}\n',
  }
  const inserts = {
    'a.py': [['Cache/get', 'def put(self, k, v):\n    self.data[k] = v\n', 'Cache/put'], ['run', 'def main():\n    run()\n', 'main']],
    'b.ts': [['A/a', 'c(): number {\n  return 3;\n}\n', 'A/c'], ['A/b', 'c(): number {\n  return 3;\n}', 'A/c']],
    'c.rs': [['b', 'fn c() {}\n', 'c'], ['a', 'fn c() {}', 'c']],
    'd.go': [['A', 'func B() {\n    return\n}\n', 'B']],
  }
  for (const [file, text] of Object.entries(files)) {
    ws.write(file, text)
    const before = ws.read(file)
    for (const [anchor, code, added] of inserts[file]) {
      for (const action of ['insert_before', 'insert_after']) {
        const r = await sp.editSymbol({ file_path: file, name_path: anchor, action, text: code }, o)
        assert.equal(r.ok, true, `${file} ${action} ${anchor}: ${JSON.stringify(r)}`)
        assert.equal(r.syntax.ok, true, `${file}: ${JSON.stringify(r.syntax)}`)
        const now = ws.read(file)
        if (file === 'b.ts') {
          assert.deepEqual([...now.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'BOM kept')
          assert.ok(!/[^\r]\n/.test(now.toString('utf8')), 'CRLF only')
        }
        if (file === 'd.go') assert.match(now.toString(), /func B\(\) \{\n\treturn\n\}/, 'tabs')
        const d = await sp.editSymbol({ file_path: file, name_path: added, action: 'delete' }, o)
        assert.equal(d.ok, true, JSON.stringify(d))
        assert.deepEqual(ws.read(file), before, `${file} ${action} ${anchor}`)
      }
    }
  }
})

test('patchFile / applyEdits with name_path search only inside that symbol', T, async (t) => {
  const ws = workspace(t)
  ws.write('c.py', PY)
  const o = ws.opts()
  const before = ws.read('c.py')
  // "return" occurs in every method: ambiguous in the file, unique inside Cache/get.
  const amb = await sp.patchFile({ file_path: 'c.py', search_block: '        return', replace_block: '        return None or' }, o)
  assert.equal(amb.code, 'SEARCH_BLOCK_AMBIGUOUS')
  const r = await sp.patchFile({ file_path: 'c.py', search_block: '        return', replace_block: '        return None or' }, { ...o, name_path: 'Cache/get' })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.line_number, 7)
  assert.match(ws.text('c.py'), /return None or self\.data\.get\(key\)/)
  assert.equal((await sp.undoEdit(r.edit_id, o)).ok, true)
  assert.deepEqual(ws.read('c.py'), before)
  // Text outside the symbol is not found there.
  const miss = await sp.applyEdits('c.py', [{ old: 'import os', new: 'import sys' }], { ...o, name_path: 'run' })
  assert.equal(miss.code, 'SEARCH_BLOCK_NOT_FOUND')
  const none = await sp.applyEdits('c.py', [{ old: 'x', new: 'y' }], { ...o, name_path: 'nope' })
  assert.equal(none.code, 'SYMBOL_NOT_FOUND')
  assert.deepEqual(ws.read('c.py'), before)
  const ok = await sp.applyEdits('c.py', [{ old: 'Cache()', new: 'Cache(1)' }], { ...o, name_path: 'run' })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(ok.matches[0].start_line, 19)
})

test('fixtures: every symbol listed resolves through editSymbol to its own lines', { timeout: 60_000 }, async (t) => {
  const ws = workspace(t)
  const o = ws.opts()
  const dir = new URL('../tests/fixtures/symbols/', import.meta.url)
  for (const name of ['service.py', 'store.ts', 'lib.rs', 'server.go', 'main.c', 'Account.java']) {
    ws.write(name, readFileSync(new URL(name, dir)))
    const list = await sp.listSymbols(name, o)
    assert.equal(list.ok, true, JSON.stringify(list))
    const all = []
    const walk = (s) => { all.push(s); s.children.forEach(walk) }
    list.symbols.forEach(walk)
    assert.equal(all.length, list.symbol_count)
    for (const s of all) {
      const r = await sp.editSymbol({ file_path: name, name_path: s.name_path, action: 'delete' }, { ...o, dry_run: true })
      assert.equal(r.ok, true, `${name} ${s.name_path}: ${JSON.stringify(r)}`)
      assert.equal(r.name_path, s.name_path)
      assert.equal(r.kind, s.kind)
    }
  }
})
