import test from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, mkdirSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const { patchFile, ErrorCode, errorCodes } = sp

test('success receipt has every documented field', async (t) => {
  const w = workspace(t)
  w.write('a.py', 'x = 1\ny = 2\n')
  const r = await patchFile({ file_path: 'a.py', search_block: 'y = 2', replace_block: 'y = 30' }, w.opts())
  assert.deepEqual(Object.keys(r), ['ok', 'file_path', 'replacements', 'line_number', 'tier', 'dialect', 'before_chars', 'after_chars', 'before_bytes', 'after_bytes', 'diff', 'written', 'file_hash', 'edit_id', 'undo_available'])
  assert.equal(r.ok, true)
  assert.equal(r.file_path, 'a.py')
  assert.equal(r.replacements, 1)
  assert.equal(r.line_number, 2)
  assert.equal(r.tier, 'exact')
  assert.deepEqual(r.dialect, [])
  assert.equal(r.before_chars, 12)
  assert.equal(r.after_chars, 13)
  assert.equal(r.before_bytes, 12)
  assert.equal(r.after_bytes, 13)
  assert.equal(r.written, true)
  assert.match(r.diff, /^--- a\/a\.py\n\+\+\+ b\/a\.py\n@@ -1,2 \+1,2 @@\n x = 1\n-y = 2\n\+y = 30\n$/)
  assert.match(r.file_hash, /^[0-9a-f]{16}$/)
  assert.equal(w.text('a.py'), 'x = 1\ny = 30\n')
  assert.deepEqual(w.files(), ['a.py'], 'no temp or lock files left')
})

test('camelCase spellings, dry run, and chars counted in UTF-16 units', async (t) => {
  const w = workspace(t)
  w.write('e.txt', 'emoji 😀 here\n')
  const r = await patchFile({ filePath: 'e.txt', searchBlock: 'here', replaceBlock: 'there' }, { workspaceRoot: w.root, dryRun: true })
  assert.equal(r.ok, true)
  assert.equal(r.written, false)
  assert.equal(r.before_chars, 'emoji 😀 here\n'.length)
  assert.equal(r.after_chars, 'emoji 😀 there\n'.length)
  assert.equal(r.before_bytes, Buffer.byteLength('emoji 😀 here\n'))
  assert.equal(w.text('e.txt'), 'emoji 😀 here\n')
})

test('both spellings: equal values are fine, different values are refused', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'one\n')
  const same = await patchFile({ file_path: 'a.txt', filePath: 'a.txt', search_block: 'one', replace_block: 'two' }, w.opts())
  assert.equal(same.ok, true)
  const diff = await patchFile({ file_path: 'a.txt', filePath: 'b.txt', search_block: 'two', replace_block: 'x' }, w.opts())
  assert.equal(diff.code, 'INVALID_INPUT')
  assert.equal(w.text('a.txt'), 'two\n')
})

test('every user-facing error code, file bytes unchanged', async (t) => {
  const w = workspace(t)
  const original = Buffer.from('alpha\nbeta\nalpha\n')
  w.write('f.txt', original)
  mkdirSync(w.path('dir'))
  w.write('bin.dat', Buffer.from([0x61, 0x00, 0x62]))
  w.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  const cases = [
    [{ file_path: 'f.txt', search_block: 'gamma', replace_block: 'x' }, 'SEARCH_BLOCK_NOT_FOUND'],
    [{ file_path: 'f.txt', search_block: 'alpha', replace_block: 'x' }, 'SEARCH_BLOCK_AMBIGUOUS'],
    [{ file_path: 'f.txt', search_block: 'beta', replace_block: 'beta' }, 'NO_CHANGES'],
    [{ file_path: 'f.txt', search_block: '', replace_block: 'x' }, 'INVALID_INPUT'],
    [{ file_path: '../outside.txt', search_block: 'a', replace_block: 'x' }, 'PATH_OUTSIDE_WORKSPACE'],
    [{ file_path: '/etc/passwd', search_block: 'root', replace_block: 'x' }, 'PATH_OUTSIDE_WORKSPACE'],
    [{ file_path: 'missing.txt', search_block: 'a', replace_block: 'x' }, 'FILE_NOT_FOUND'],
    [{ file_path: 'dir', search_block: 'a', replace_block: 'x' }, 'TARGET_IS_DIRECTORY'],
    [{ file_path: 'bin.dat', search_block: 'a', replace_block: 'x' }, 'BINARY_FILE_REJECTED'],
    [{ file_path: 'latin1.txt', search_block: 'caf', replace_block: 'x' }, 'ENCODING_UNSUPPORTED'],
  ]
  for (const [input, code] of cases) {
    const r = await patchFile(input, w.opts())
    assert.equal(r.ok, false, JSON.stringify(input))
    assert.equal(r.code, code, `${JSON.stringify(input)} -> ${JSON.stringify(r)}`)
    assert.equal(typeof r.message, 'string')
    assert.ok(r.message.length > 10)
  }
  assert.deepEqual(w.read('f.txt'), original)
  assert.deepEqual(w.read('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  const amb = await patchFile({ file_path: 'f.txt', search_block: 'alpha', replace_block: 'x' }, w.opts())
  assert.equal(amb.match_count, 2)
  assert.deepEqual(amb.match_lines, [1, 3])
  const nf = await patchFile({ file_path: 'f.txt', search_block: 'betta\n', replace_block: 'x' }, w.opts())
  assert.equal(nf.candidates[0].start_line, 2)
})

test('FILE_TOO_LARGE and PERMISSION_DENIED leave the file alone', async (t) => {
  const w = workspace(t)
  w.write('big.txt', 'x'.repeat(1000))
  const r = await patchFile({ file_path: 'big.txt', search_block: 'x', replace_block: 'y' }, w.opts({ max_file_bytes: 100 }))
  assert.equal(r.code, 'FILE_TOO_LARGE')
  assert.equal(w.text('big.txt'), 'x'.repeat(1000))
  // Mode 000 on every platform: unix refuses the read (or, for root, the write: no write bit set);
  // on Windows chmod sets the read-only attribute, which the engine refuses to replace.
  w.write('ro.txt', 'a\n')
  chmodSync(w.path('ro.txt'), 0o000)
  const p = await patchFile({ file_path: 'ro.txt', search_block: 'a', replace_block: 'b' }, w.opts())
  assert.equal(p.code, 'PERMISSION_DENIED', JSON.stringify(p))
  chmodSync(w.path('ro.txt'), 0o644)
  assert.equal(w.text('ro.txt'), 'a\n')
})

test('wrong JavaScript types give INVALID_INPUT, never a throw', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'a\n')
  const bad = [
    [undefined, undefined],
    [null, undefined],
    [42, undefined],
    ['a.txt', undefined],
    [{ file_path: 42, search_block: 'a', replace_block: 'b' }, w.opts()],
    [{ file_path: 'a.txt', search_block: ['a'], replace_block: 'b' }, w.opts()],
    [{ file_path: 'a.txt', search_block: 'a' }, w.opts()],
    [{ file_path: 'a.txt', search_block: 'a', replace_block: 'b' }, 'not-an-object'],
    [{ file_path: 'a.txt', search_block: 'a', replace_block: 'b' }, { workspace_root: 5 }],
    [{ file_path: 'a.txt', search_block: 'a', replace_block: 'b' }, { workspace_root: w.root, dry_run: 'yes' }],
    [{ file_path: 'a.txt', search_block: 'a', replace_block: 10n }, w.opts()],
    [{ file_path: 'a.txt', search_block: '\uD800', replace_block: 'b' }, w.opts()],
    [{ file_path: 'a.txt', search_block: 'a', replace_block: 'b\uDC00' }, w.opts()],
    [{ file_path: 'a\u0000.txt', search_block: 'a', replace_block: 'b' }, w.opts()],
  ]
  for (const [input, options] of bad) {
    const p = patchFile(input, options)
    assert.ok(p instanceof Promise)
    const r = await p
    assert.equal(r.ok, false)
    assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(r))
  }
  const cyclic = { file_path: 'a.txt', search_block: 'a', replace_block: 'b' }
  cyclic.self = cyclic
  assert.equal((await patchFile(cyclic, w.opts())).code, 'INVALID_INPUT')
  assert.equal(w.text('a.txt'), 'a\n')
})

test('CRLF file with an LF search block: matched, written back CRLF, byte-exact elsewhere', async (t) => {
  const w = workspace(t)
  w.write('c.txt', 'one\r\ntwo\r\nthree\r\n')
  const r = await patchFile({ file_path: 'c.txt', search_block: 'one\ntwo\n', replace_block: 'one\n2\n2.5\n' }, w.opts())
  assert.equal(r.ok, true)
  assert.equal(r.tier, 'line_endings')
  assert.equal(w.text('c.txt'), 'one\r\n2\r\n2.5\r\nthree\r\n')
  // Mixed and CR-only endings outside the match stay exactly as they were.
  w.write('m.txt', 'a\rb\r\nc\nd')
  const m = await patchFile({ file_path: 'm.txt', search_block: 'c', replace_block: 'C' }, w.opts())
  assert.equal(m.ok, true)
  assert.deepEqual(w.read('m.txt'), Buffer.from('a\rb\r\nC\nd'))
})

test('BOM and UTF-16 files round-trip byte-exactly', async (t) => {
  const w = workspace(t)
  w.write('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x = 1\r\ny = 2\r\n')]))
  assert.equal((await patchFile({ file_path: 'bom.txt', search_block: 'y = 2', replace_block: 'y = 3' }, w.opts())).ok, true)
  assert.deepEqual(w.read('bom.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x = 1\r\ny = 3\r\n')]))
  const le = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')])
  w.write('u16.txt', le('héllo\nwörld\n'))
  const r = await patchFile({ file_path: 'u16.txt', search_block: 'wörld', replace_block: 'wereld' }, w.opts())
  assert.equal(r.ok, true)
  assert.deepEqual(w.read('u16.txt'), le('héllo\nwereld\n'))
  const be = (s) => { const b = Buffer.from(s, 'utf16le'); b.swap16(); return Buffer.concat([Buffer.from([0xfe, 0xff]), b]) }
  w.write('u16be.txt', be('a\nb\n'))
  assert.equal((await patchFile({ file_path: 'u16be.txt', search_block: 'b', replace_block: 'c' }, w.opts())).ok, true)
  assert.deepEqual(w.read('u16be.txt'), be('a\nc\n'))
})

test('permission bits are kept', async (t) => {
  const w = workspace(t)
  w.write('run.sh', '#!/bin/sh\necho hi\n')
  chmodSync(w.path('run.sh'), 0o754)
  // Windows has no mode bits, only the read-only attribute: Node reports a writable file as 0o666.
  const want = process.platform === 'win32' ? 0o666 : 0o754
  assert.equal(statSync(w.path('run.sh')).mode & 0o777, want)
  assert.equal((await patchFile({ file_path: 'run.sh', search_block: 'hi', replace_block: 'bye' }, w.opts())).ok, true)
  assert.equal(statSync(w.path('run.sh')).mode & 0o777, want)
})

test('sandbox: symlinks inside are followed and kept, escapes are refused', async (t) => {
  const w = workspace(t)
  const outside = workspace(t)
  outside.write('secret.txt', 'secret\n')
  w.write('real.txt', 'inside\n')
  symlinkSync('real.txt', w.path('link.txt'))
  symlinkSync(outside.path('secret.txt'), w.path('out-link.txt'))
  symlinkSync(outside.root, w.path('out-dir'))
  symlinkSync(join(w.root, 'nowhere.txt'), w.path('dangling.txt'))
  mkdirSync(w.path('..foo'))
  w.write('..foo/ok.txt', 'fine\n')
  const ok = await patchFile({ file_path: 'link.txt', search_block: 'inside', replace_block: 'edited' }, w.opts())
  assert.equal(ok.ok, true)
  assert.equal(w.text('real.txt'), 'edited\n')
  assert.ok(statSync(w.path('link.txt')).isFile())
  const dotdot = await patchFile({ file_path: '..foo/ok.txt', search_block: 'fine', replace_block: 'finer' }, w.opts())
  assert.equal(dotdot.ok, true)
  const sibling = `${w.root}-evil`
  const cases = [
    ['out-link.txt', 'PATH_OUTSIDE_WORKSPACE'],
    ['out-dir/secret.txt', 'PATH_OUTSIDE_WORKSPACE'],
    ['dangling.txt', 'FILE_NOT_FOUND'],
    [join(sibling, 'x.txt'), 'PATH_OUTSIDE_WORKSPACE'],
    [join(tmpdir(), 'x.txt'), 'PATH_OUTSIDE_WORKSPACE'],
    ['..foo/../../x.txt', 'PATH_OUTSIDE_WORKSPACE'],
    // A backslash is a separator on Windows (there `a\\b.txt` is b.txt in a missing directory a);
    // elsewhere it is refused, as no model means it as part of a name.
    ['a\\b.txt', process.platform === 'win32' ? 'FILE_NOT_FOUND' : 'INVALID_INPUT'],
  ]
  for (const [p, code] of cases) {
    const r = await patchFile({ file_path: p, search_block: 'secret', replace_block: 'pwned' }, w.opts())
    assert.equal(r.code, code, `${p}: ${JSON.stringify(r)}`)
  }
  assert.equal(outside.text('secret.txt'), 'secret\n')
})

test('100 concurrent patchFile calls on different lines of one file all land', async (t) => {
  const w = workspace(t)
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i} = old`)
  w.write('many.txt', lines.join('\n') + '\n')
  const results = await Promise.all(
    lines.map((l, i) => patchFile({ file_path: 'many.txt', search_block: `line ${i} = old`, replace_block: `line ${i} = new` }, w.opts())),
  )
  assert.deepEqual(results.filter((r) => !r.ok), [])
  assert.equal(w.text('many.txt'), lines.map((l) => l.replace('old', 'new')).join('\n') + '\n')
  assert.deepEqual(w.files(), ['many.txt'], 'no temp or lock files left')
})

test('ErrorCode matches the engine, and each code has a remedy', () => {
  const engine = errorCodes()
  assert.deepEqual(engine.map((c) => c.code).sort(), Object.values(ErrorCode).sort())
  for (const c of engine) assert.ok(c.remedy.length > 10)
  assert.ok(Object.isFrozen(ErrorCode))
})

test('the default workspace root is the process cwd', async (t) => {
  const w = workspace(t)
  w.write('cwd.txt', 'a\n')
  const prev = process.cwd()
  process.chdir(w.root)
  t.after(() => process.chdir(prev))
  const r = await patchFile({ file_path: 'cwd.txt', search_block: 'a', replace_block: 'b' })
  assert.equal(r.ok, true)
  assert.equal(w.text('cwd.txt'), 'b\n')
})

test('the tool arguments pass straight through: base_hash, dry_run and tolerance in input, bare names in messages', async (t) => {
  const w = workspace(t)
  w.write('a.py', 'x = 1\n')
  const { patchFile } = sp
  const v = await patchFile({ file_path: 'a.py', search_block: 'x = 1', replace_block: 'x = 2', dry_run: true }, w.opts())
  assert.equal(v.ok, true, v.message)
  assert.equal(v.written, false)
  assert.equal(w.text('a.py'), 'x = 1\n')
  const stale = await patchFile({ file_path: 'a.py', search_block: 'x = 1', replace_block: 'x = 2', base_hash: 'ffffffffffffffff' }, w.opts())
  assert.equal(stale.code, 'STALE_FILE')
  const exact = await patchFile({ file_path: 'a.py', search_block: 'x = 1 ', replace_block: 'x = 2', tolerance: 'exact' }, w.opts())
  assert.equal(exact.code, 'SEARCH_BLOCK_NOT_FOUND')
  const clash = await patchFile({ file_path: 'a.py', search_block: 'x = 1', replace_block: 'x = 2', dry_run: true }, w.opts({ dry_run: false }))
  assert.equal(clash.code, 'INVALID_INPUT')
  assert.match(clash.message, /^dry_run is given both/)
  const same = await patchFile({ file_path: 'a.py', search_block: 'x = 1', replace_block: 'x = 2', dry_run: true }, w.opts({ dry_run: true }))
  assert.equal(same.ok, true, same.message)
  assert.equal(w.text('a.py'), 'x = 1\n', 'nothing written by any of these')
  for (const [input, re] of [
    [{ file_path: 'a.py', search_block: 1, replace_block: 'y' }, /^search_block must be a string/],
    [{ file_path: 'a.py', replace_block: 'y' }, /^search_block is required/],
    [{ file_path: 'a.py', search_block: 'x', replace_block: 'y', nope: 1 }, /^unknown argument\(s\) \["nope"\]/],
  ]) {
    const r = await patchFile(input, w.opts())
    assert.equal(r.code, 'INVALID_INPUT')
    assert.match(r.message, re)
    assert.doesNotMatch(r.message, /input\.|options\.|argument \d/)
  }
})
