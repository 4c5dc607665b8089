// R6: every file encoding and line-ending mix is either refused untouched or edited byte-exactly:
// the bytes outside the edited region never change, and nothing is normalized behind the caller's back.
import test from 'node:test'
import assert from 'node:assert/strict'
import { sp, workspace } from './helpers.mjs'

const B = (...parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))))
const u16le = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')])
const u16be = (s) => {
  const le = Buffer.from(s, 'utf16le')
  return Buffer.concat([Buffer.from([0xfe, 0xff]), le.swap16()])
}

test('refused untouched: invalid UTF-8, binary, bad UTF-16', async (t) => {
  const w = workspace(t)
  const cases = [
    ['latin1.txt', B('caf', [0xe9], '\n'), 'ENCODING_UNSUPPORTED', 3],
    ['overlong.txt', B('a', [0xc0, 0xaf], 'b\n'), 'ENCODING_UNSUPPORTED', 1],
    ['cesu.txt', B('a', [0xed, 0xa0, 0x80], '\n'), 'ENCODING_UNSUPPORTED', 1],
    ['truncated.txt', B('ok ', [0xf0, 0x9f, 0x98]), 'ENCODING_UNSUPPORTED', 3],
    ['bom-bad.txt', B([0xef, 0xbb, 0xbf], 'ok', [0xff], '\n'), 'ENCODING_UNSUPPORTED', 5],
    ['nul.txt', B('ok\0ok\n'), 'BINARY_FILE_REJECTED', 2],
    ['bom-nul.txt', B([0xef, 0xbb, 0xbf], 'ok\0\n'), 'BINARY_FILE_REJECTED', 5],
    ['odd16.txt', Buffer.concat([u16le('ok\n'), Buffer.from([0x41])]), 'ENCODING_UNSUPPORTED', undefined],
    ['odd16be.txt', Buffer.concat([u16be('ok\n'), Buffer.from([0x00])]), 'ENCODING_UNSUPPORTED', undefined],
    ['lone16.txt', Buffer.concat([u16le('ok'), Buffer.from([0x00, 0xd8]), u16le('x').subarray(2)]), 'ENCODING_UNSUPPORTED', 6],
  ]
  for (const [name, bytes, code, offset] of cases) {
    w.write(name, bytes)
    const r = await sp.applyEdits(name, [['ok', 'KO']], w.opts())
    assert.equal(r.code, code, `${name}: ${JSON.stringify(r)}`)
    if (offset !== undefined) assert.equal(r.byte_offset, offset, name)
    assert.ok(w.read(name).equals(bytes), `${name} changed`)
  }
  assert.equal(w.files().length, cases.length, 'no temp files left')
  t.diagnostic(`${cases.length} malformed files: all refused, 0 bytes changed`)
})

test('edited byte-exactly: CR-only, mixed endings, BOM+CRLF, UTF-16, no final newline', async (t) => {
  const w = workspace(t)
  const cases = [
    // [name, before, edits, after]
    ['cr.txt', B('a\rb\rc\r'), [['b', 'B']], B('a\rB\rc\r')],
    ['cr-multi.txt', B('a\rb\rc\r'), [['a\nb\n', 'a\nX\nY\n']], B('a\rX\rY\rc\r')],
    ['mixed.txt', B('l1\r\nl2\nl3\r\n'), [['l2', 'L2']], B('l1\r\nL2\nl3\r\n')],
    ['mixed-insert.txt', B('l1\r\nl2\nl3\r\n'), [['l2\n', 'l2\nnew\n']], B('l1\r\nl2\nnew\nl3\r\n')],
    ['lone-cr.txt', B('a\rb\nc\n'), [['c', 'C']], B('a\rb\nC\n')],
    ['bom-crlf.txt', B([0xef, 0xbb, 0xbf], 'a\r\nb\r\n'), [['b', 'c\nd']], B([0xef, 0xbb, 0xbf], 'a\r\nc\r\nd\r\n')],
    ['bom-crlf-lf-old.txt', B([0xef, 0xbb, 0xbf], 'x = 1\r\ny = 2\r\n'), [['x = 1\ny = 2\n', 'x = 1\ny = 3\n']], B([0xef, 0xbb, 0xbf], 'x = 1\r\ny = 3\r\n')],
    ['u16le.txt', u16le('h\u00e9llo\r\nw\u00f6rld 😀\r\n'), [['w\u00f6rld', 'WORLD']], u16le('h\u00e9llo\r\nWORLD 😀\r\n')],
    ['u16be.txt', u16be('one\ntwo\n'), [['two', 'zwei']], u16be('one\nzwei\n')],
    ['u16-nul.txt', u16le('a\0b\n'), [['b', 'c']], u16le('a\0c\n')],
    ['no-eol.txt', B('x\ny'), [['y', 'z']], B('x\nz')],
    ['no-eol-model-adds.txt', B('x\ny'), [['x\ny\n', 'x\nz\n']], B('x\nz')],
    ['no-eol-crlf.txt', B('x\r\ny'), [['x\ny', 'x\ny\nw']], B('x\r\ny\r\nw')],
    ['empty-last.txt', B('a\n\n'), [['a', 'b']], B('b\n\n')],
    ['nfd.txt', B('cafe\u0301\n'), [['cafe\u0301', 'tea']], B('tea\n')],
  ]
  for (const [name, before, edits, after] of cases) {
    w.write(name, before)
    const r = await sp.applyEdits(name, edits, w.opts())
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    const got = w.read(name)
    assert.ok(got.equals(after), `${name}: got ${JSON.stringify(got.toString('latin1'))}, want ${JSON.stringify(after.toString('latin1'))}`)
    assert.equal(r.after_bytes, after.length, name)
  }
  assert.equal(w.files().length, cases.length, 'no temp files left')
  t.diagnostic(`${cases.length} encoding / line-ending cases: all byte-exact`)
})

test('a refusal on any encoding leaves the bytes alone', async (t) => {
  const w = workspace(t)
  const files = {
    'cr.txt': B('a\rb\r'),
    'bom.txt': B([0xef, 0xbb, 0xbf], 'a\r\nb\r\n'),
    'u16.txt': u16le('a\r\nb\r\n'),
    'noeol.txt': B('a\nb'),
  }
  for (const [name, bytes] of Object.entries(files)) {
    w.write(name, bytes)
    for (const [edits, code] of [
      [[['zzz', 'y']], 'SEARCH_BLOCK_NOT_FOUND'],
      [[['a', 'x'], ['missing', 'y']], 'SEARCH_BLOCK_NOT_FOUND'],
      [[['a', 'a']], 'NO_CHANGES'],
    ]) {
      const r = await sp.applyEdits(name, edits, w.opts())
      assert.equal(r.code, code, `${name}: ${JSON.stringify(r)}`)
      assert.ok(w.read(name).equals(bytes), `${name} changed by a refusal`)
    }
  }
})
