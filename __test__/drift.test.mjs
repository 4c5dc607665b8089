// Drift control, line-anchored edits, whole-file operations and undo, through the public door.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sp, workspace } from './helpers.mjs'

const { viewFile, editLines, createFile, writeFile, deleteFile, undoEdit, applyEdits, patchFile } = sp

// The anchor of line `n` as the last hashline view showed it.
function anchors(view) {
  const out = {}
  for (const l of view.content.split('\n')) {
    const m = /^(\d+):([0-9a-f]{4})\|/.exec(l)
    if (m) out[m[1]] = `${m[1]}:${m[2]}`
  }
  return out
}

test('viewFile: formats, range, byte cap, CRLF shown with \\n, hash of the bytes', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\r\nbeta\r\ngamma')
  const plain = await viewFile('a.txt', w.opts())
  assert.deepEqual(Object.keys(plain), ['ok', 'file_path', 'content', 'start_line', 'end_line', 'total_lines', 'file_hash', 'encoding', 'line_ending', 'truncated'])
  assert.equal(plain.content, 'alpha\nbeta\ngamma')
  assert.equal(plain.total_lines, 3)
  assert.equal(plain.line_ending, 'crlf')
  assert.equal(plain.encoding, 'utf-8')
  assert.equal(plain.truncated, false)
  assert.match(plain.file_hash, /^[0-9a-f]{16}$/)

  const hl = await viewFile('a.txt', w.opts({ format: 'hashline', startLine: 2, endLine: 2 }))
  assert.match(hl.content, /^2:[0-9a-f]{4}\|beta\n$/)
  assert.equal(hl.file_hash, plain.file_hash)
  const num = await viewFile('a.txt', w.opts({ format: 'numbered' }))
  assert.equal(num.content, '     1\talpha\n     2\tbeta\n     3\tgamma')
  const capped = await viewFile('a.txt', w.opts({ max_bytes: 11 }))
  assert.deepEqual([capped.content, capped.end_line, capped.truncated], ['alpha\nbeta\n', 2, true])

  // The tag is 4 hex digits of BLAKE3 — here checked only for stability across views and edits.
  w.write('b.txt', 'same\nsame\n')
  const b = await viewFile('b.txt', w.opts({ format: 'hashline' }))
  const [l1, l2] = b.content.split('\n')
  assert.equal(l1.slice(2, 6), l2.slice(2, 6), 'equal lines have equal tags')
})

test('viewFile errors leave nothing behind', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'a\nb\n')
  w.write('bin.dat', Buffer.from([1, 0, 2]))
  w.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]))
  mkdirSync(w.path('dir'))
  const cases = [
    ['a.txt', { start_line: 9 }, 'INVALID_INPUT'],
    ['a.txt', { start_line: 2, end_line: 1 }, 'INVALID_INPUT'],
    ['a.txt', { format: 'xml' }, 'INVALID_INPUT'],
    ['a.txt', { unknown: true }, 'INVALID_INPUT'],
    ['a.txt', { max_file_bytes: 1 }, 'FILE_TOO_LARGE'],
    ['nope.txt', {}, 'FILE_NOT_FOUND'],
    ['../x.txt', {}, 'PATH_OUTSIDE_WORKSPACE'],
    ['dir', {}, 'TARGET_IS_DIRECTORY'],
    ['bin.dat', {}, 'BINARY_FILE_REJECTED'],
    ['latin1.txt', {}, 'ENCODING_UNSUPPORTED'],
  ]
  for (const [p, o, code] of cases) {
    const r = await viewFile(p, w.opts(o))
    assert.equal(r.code, code, `${p} ${JSON.stringify(o)} -> ${JSON.stringify(r)}`)
  }
  assert.deepEqual(w.files(), ['a.txt', 'bin.dat', 'dir', 'latin1.txt'])
})

test('editLines: view, edit by anchors, receipt; CRLF and missing final newline kept', async (t) => {
  const w = workspace(t)
  w.write('f.py', 'def f():\r\n    return 1\r\n\r\nprint(f())')
  const v = await viewFile('f.py', w.opts({ format: 'hashline' }))
  const a = anchors(v)
  const r = await editLines('f.py', [
    { op: 'replace', start: a[2], lines: ['    x = 1', '    return x'] },
    { op: 'insert_after', start: a[4], text: 'print("done")\n' },
    { op: 'delete', start: a[3] },
  ], w.opts({ base_hash: v.file_hash }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(Object.keys(r), ['ok', 'file_path', 'ops_applied', 'first_changed_line', 'lines_added', 'lines_removed', 'before_chars', 'after_chars', 'before_bytes', 'after_bytes', 'diff', 'written', 'file_hash', 'edit_id', 'undo_available'])
  const after = 'def f():\r\n    x = 1\r\n    return x\r\nprint(f())\r\nprint("done")'
  assert.equal(w.text('f.py'), after)
  assert.equal(r.first_changed_line, 2)
  assert.deepEqual([r.lines_added, r.lines_removed, r.ops_applied], [3, 2, 3])
  assert.match(r.diff, /-    return 1\n/)
  assert.match(r.diff, /\+    x = 1\n\+    return x\n/)
  assert.equal(r.file_hash, (await viewFile('f.py', w.opts())).file_hash)
  assert.match(r.edit_id, /^e[0-9a-f]{22}$/)
  assert.equal(r.undo_available, true)
  assert.deepEqual(w.files(), ['f.py'], 'no temp or lock files left')
})

test('editLines: every refusal leaves the file byte-identical', async (t) => {
  const w = workspace(t)
  const original = Buffer.from('one\ntwo\nthree\nfour\n')
  w.write('f.txt', original)
  const v = await viewFile('f.txt', w.opts({ format: 'hashline' }))
  const a = anchors(v)
  const cases = [
    [[{ op: 'delete', start: '2' }], 'INVALID_INPUT'],
    [[{ op: 'delete', start: 2 }], 'INVALID_INPUT'],
    [[{ op: 'replace', start: a[2] }], 'INVALID_INPUT'],
    [[{ op: 'insert_before', start: a[2], end: a[3], lines: ['x'] }], 'INVALID_INPUT'],
    [[{ op: 'delete', start: a[3], end: a[2] }], 'INVALID_INPUT'],
    [[{ op: 'replace', start: a[2], lines: ['a\nb'] }], 'INVALID_INPUT'],
    [[], 'INVALID_INPUT'],
    [[{ op: 'replace', start: '2:0000', lines: ['x'] }], 'STALE_ANCHOR'],
    [[{ op: 'delete', start: '9:abcd' }], 'STALE_ANCHOR'],
    [[{ op: 'delete', start: a[1], end: a[3] }, { op: 'insert_after', start: a[2], lines: ['x'] }], 'OVERLAPPING_EDITS'],
    [[{ op: 'insert_after', start: a[1], lines: ['x'] }, { op: 'insert_before', start: a[2], lines: ['y'] }], 'OVERLAPPING_EDITS'],
    [[{ op: 'replace', start: a[2], text: 'two' }], 'NO_CHANGES'],
  ]
  for (const [ops, code] of cases) {
    const r = await editLines('f.txt', ops, w.opts())
    assert.equal(r.code, code, `${JSON.stringify(ops)} -> ${JSON.stringify(r)}`)
    assert.ok(r.message.length > 10)
    assert.deepEqual(w.read('f.txt'), original)
  }
  const stale = await editLines('f.txt', [{ op: 'delete', start: a[1] }], w.opts({ baseHash: '0000000000000000' }))
  assert.equal(stale.code, 'STALE_FILE')
  assert.equal(stale.current_hash, v.file_hash)
  assert.match(stale.message, /re-read/i)
  assert.deepEqual(w.read('f.txt'), original)
  const missing = await editLines('gone.txt', [{ op: 'delete', start: a[1] }], w.opts())
  assert.equal(missing.code, 'FILE_NOT_FOUND')
})

test('stale anchors: another writer changes two lines between view and edit', async (t) => {
  const w = workspace(t)
  const lines = Array.from({ length: 12 }, (_, i) => `row ${i + 1}`)
  w.write('data.txt', lines.join('\n') + '\n')
  const v = await viewFile('data.txt', w.opts({ format: 'hashline' }))
  const a = anchors(v)

  // Meanwhile, someone else edits rows 5 and 9.
  const theirs = [...lines]
  theirs[4] = 'row five (theirs)'
  theirs[8] = 'row nine (theirs)'
  const changed = Buffer.from(theirs.join('\n') + '\n')
  w.write('data.txt', changed)

  const r = await editLines('data.txt', [
    { op: 'replace', start: a[5], lines: ['mine'] },
    { op: 'delete', start: a[9] },
    { op: 'insert_after', start: a[1], lines: ['unaffected but refused too'] },
  ], w.opts())
  assert.equal(r.ok, false)
  assert.equal(r.code, 'STALE_ANCHOR')
  assert.deepEqual(w.read('data.txt'), changed, 'nothing written')
  assert.deepEqual(r.stale.map((s) => s.line), [5, 9])
  assert.equal(r.stale[0].expected_tag, a[5].split(':')[1])
  assert.notEqual(r.stale[0].actual_tag, r.stale[0].expected_tag)
  // Fresh lines: 3..7 and 7..11 merge into 3..11, each as N:tag|text.
  const fresh = r.fresh.trimEnd().split('\n')
  assert.deepEqual(fresh.map((l) => Number(l.split(':')[0])), [3, 4, 5, 6, 7, 8, 9, 10, 11])
  assert.ok(fresh[2].endsWith('|row five (theirs)'))
  assert.equal(fresh[2].split('|')[0], `5:${r.stale[0].actual_tag}`)
  // The fresh anchor works; the matcher's prefix tier also strips these pasted tags.
  const fixed = await editLines('data.txt', [{ op: 'replace', start: fresh[2].split('|')[0], lines: ['mine'] }], w.opts())
  assert.equal(fixed.ok, true, JSON.stringify(fixed))
  const pasted = await applyEdits('data.txt', [{ old: fresh[6], new: 'row nine (mine)' }], w.opts())
  assert.equal(pasted.ok, true, JSON.stringify(pasted))
  assert.equal(pasted.tier, 'line_prefix')
  assert.match(w.text('data.txt'), /\nmine\n.*\nrow nine \(mine\)\n/s)
})

test('createFile / writeFile / deleteFile and their codes', async (t) => {
  const w = workspace(t)
  const c = await createFile('src/lib/new.ts', 'export const a = 1\n', w.opts())
  assert.equal(c.ok, true, JSON.stringify(c))
  assert.deepEqual([c.created, c.encoding, c.line_ending, c.before_bytes], [true, 'utf-8', 'lf', 0])
  assert.equal(w.text('src/lib/new.ts'), 'export const a = 1\n')
  const exists = await createFile('src/lib/new.ts', 'other', w.opts())
  assert.equal(exists.code, 'FILE_EXISTS')
  assert.equal(exists.current_hash, c.file_hash)
  assert.equal(w.text('src/lib/new.ts'), 'export const a = 1\n')
  assert.equal((await createFile('../x.txt', 'x', w.opts())).code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal((await createFile('y.txt', 'x', w.opts({ base_hash: '0123456789abcdef' }))).code, 'STALE_FILE')
  assert.equal(existsSync(w.path('y.txt')), false)
  const over = await createFile('src/lib/new.ts', 'export const a = 2\n', w.opts({ overwrite: true, base_hash: c.file_hash }))
  assert.equal(over.ok, true, JSON.stringify(over))
  assert.equal(over.created, false)

  // writeFile keeps a UTF-16 BOM file's encoding and CRLF.
  const utf16 = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')])
  w.write('w.txt', utf16('un\r\ndeux\r\n'))
  const r = await writeFile('w.txt', 'un\ndeux\ntrois\n', w.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(w.read('w.txt'), utf16('un\r\ndeux\r\ntrois\r\n'))
  assert.deepEqual([r.encoding, r.line_ending], ['utf-16le', 'crlf'])
  assert.match(r.diff, /\+trois\n/)

  const before = w.read('w.txt')
  const cases = [
    ['w.txt', 'un\r\ndeux\r\ntrois\r\n', {}, 'NO_CHANGES'],
    ['w.txt', 'x\n', { base_hash: 'ffffffffffffffff' }, 'STALE_FILE'],
    ['w.txt', 'un\n// ... existing code ...\n', {}, 'ELIDED_CONTENT'],
    ['w.txt', 'un\n<!-- ... -->\n', {}, 'ELIDED_CONTENT'],
    ['w.txt', '# rest of the file unchanged\n', {}, 'ELIDED_CONTENT'],
    ['w.txt', 'x\n', { overwrite: true }, 'INVALID_INPUT'],
    ['none.txt', 'x\n', {}, 'FILE_NOT_FOUND'],
  ]
  for (const [p, content, o, code] of cases) {
    const res = await writeFile(p, content, w.opts(o))
    assert.equal(res.code, code, `${JSON.stringify([content, o])} -> ${JSON.stringify(res)}`)
    assert.deepEqual(w.read('w.txt'), before)
  }
  const el = await writeFile('w.txt', 'a\n  // ... existing code ...\nb\n', w.opts())
  assert.deepEqual(el.placeholder_lines, [{ line: 2, text: '  // ... existing code ...' }])
  const allowed = await writeFile('w.txt', 'a\n// ...\n', w.opts({ allow_placeholders: true }))
  assert.equal(allowed.ok, true)

  // Legitimate text that merely looks similar is written.
  const py = 'class P:\n    def f(self): ...\n    def g(self):\n        ...\n\nNOTE = "the existing code stays"\n# rest of the file handles IO\n'
  w.write('p.py', 'old\n')
  const ok = await writeFile('p.py', py, w.opts())
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(w.text('p.py'), py)

  const d0 = await deleteFile('p.py', w.opts({ base_hash: c.file_hash }))
  assert.equal(d0.code, 'STALE_FILE')
  assert.equal(w.text('p.py'), py)
  const d = await deleteFile('p.py', w.opts({ base_hash: ok.file_hash }))
  assert.equal(d.ok, true, JSON.stringify(d))
  assert.deepEqual([d.deleted, d.file_hash, d.undo_available], [true, null, true])
  assert.equal(existsSync(w.path('p.py')), false)
  assert.equal((await deleteFile('p.py', w.opts())).code, 'FILE_NOT_FOUND')
})

test('undo: round trips, newest first by path, refused after a later change', async (t) => {
  const w = workspace(t)
  w.write('a.js', 'let a = 1\nlet b = 2\n')
  const e1 = await patchFile({ file_path: 'a.js', search_block: 'let a = 1', replace_block: 'let a = 10' }, w.opts())
  const e2 = await applyEdits('a.js', [['let b = 2', 'let b = 20']], w.opts())
  assert.ok(e1.edit_id && e2.edit_id && e1.edit_id !== e2.edit_id)

  // e1 is not the newest: the file no longer has the hash e1 left.
  const refused = await undoEdit(e1.edit_id, w.opts())
  assert.equal(refused.code, 'STALE_FILE')
  assert.equal(refused.current_hash, e2.file_hash)
  assert.equal(w.text('a.js'), 'let a = 10\nlet b = 20\n')

  const u2 = await undoEdit('a.js', w.opts())
  assert.equal(u2.ok, true, JSON.stringify(u2))
  assert.equal(u2.edit_id, e2.edit_id)
  assert.deepEqual(u2.files, [{ file_path: 'a.js', action: 'restored', file_hash: e1.file_hash }])
  const u1 = await undoEdit({ edit_id: e1.edit_id }, w.opts())
  assert.equal(u1.ok, true, JSON.stringify(u1))
  assert.equal(w.text('a.js'), 'let a = 1\nlet b = 2\n')
  assert.equal((await undoEdit(e1.edit_id, w.opts())).code, 'EDIT_NOT_FOUND', 'an edit is undone once')
  assert.equal((await undoEdit('a.js', w.opts())).code, 'EDIT_NOT_FOUND')

  // Someone else writes after our edit: the undo is refused and their bytes stay.
  const e3 = await writeFile('a.js', 'let c = 3\n', w.opts())
  w.write('a.js', 'their change\n')
  const late = await undoEdit(e3.edit_id, w.opts())
  assert.equal(late.code, 'STALE_FILE')
  assert.equal(w.text('a.js'), 'their change\n')

  // Create and delete undo too.
  const c = await createFile('n/e/w.txt', 'new\n', w.opts())
  assert.equal((await undoEdit(c.edit_id, w.opts())).files[0].action, 'deleted')
  assert.equal(existsSync(w.path('n/e/w.txt')), false)
  const d = await deleteFile('a.js', w.opts())
  assert.equal((await undoEdit(d.edit_id, w.opts())).files[0].action, 'recreated')
  assert.equal(w.text('a.js'), 'their change\n')
  // Edit lines, then undo by path.
  const v = await viewFile('a.js', w.opts({ format: 'hashline' }))
  const el = await editLines('a.js', [{ op: 'insert_before', start: anchors(v)[1], lines: ['// top'] }], w.opts())
  assert.equal(el.ok, true)
  assert.equal((await undoEdit('a.js', w.opts())).edit_id, el.edit_id)
  assert.equal(w.text('a.js'), 'their change\n')
  assert.equal((await undoEdit(42, w.opts())).code, 'INVALID_INPUT')
})

function fileHash(bytes) {
  // Not BLAKE3 (node has none built in): only used to detect that journal files exist, see below.
  return createHash('sha256').update(bytes).digest('hex')
}

test('journal_dir: entries on disk; a multi-file entry undoes as one', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'A1\n')
  const r = await writeFile('a.txt', 'A2\n', w.opts({ journal_dir: '.journal' }))
  assert.equal(r.ok, true, JSON.stringify(r))
  const entryDir = join('.journal', r.edit_id)
  assert.ok(existsSync(w.path(join(entryDir, 'entry.json'))))
  assert.equal(fileHash(w.read(join(entryDir, '0.bin'))), fileHash(Buffer.from('A1\n')))
  assert.equal((await writeFile('a.txt', 'x', w.opts({ journal_dir: '../j' }))).code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(w.text('a.txt'), 'A2\n')

  // A two-file entry, as a multi-file transaction leaves it: b.txt was updated, c.txt created.
  // The saved bytes and hashes come from real single-file writes of this test.
  w.write('b.txt', 'B1\n')
  const b = await writeFile('b.txt', 'B2\n', w.opts({ journal_dir: '.journal' }))
  const c = await createFile('c.txt', 'C\n', w.opts({ journal_dir: '.journal' }))
  const id = 'e' + 'f'.repeat(22) // sorts after every real id: the newest entry
  mkdirSync(w.path(join('.journal', id)))
  writeFileSync(w.path(join('.journal', id, '0.bin')), w.read(join('.journal', b.edit_id, '0.bin')))
  const bManifest = JSON.parse(w.text(join('.journal', b.edit_id, 'entry.json')))
  const cManifest = JSON.parse(w.text(join('.journal', c.edit_id, 'entry.json')))
  const manifest = { format: 'surepatch-journal/1', edit_id: id, files: [bManifest.files[0], cManifest.files[0]] }
  writeFileSync(w.path(join('.journal', id, 'entry.json')), JSON.stringify(manifest))

  // A later change to one file blocks the whole entry.
  w.write('c.txt', 'C changed\n')
  const blocked = await undoEdit(id, w.opts({ journal_dir: '.journal' }))
  assert.equal(blocked.code, 'STALE_FILE', JSON.stringify(blocked))
  assert.deepEqual(blocked.stale_files.map((f) => f.file_path), ['c.txt'])
  assert.equal(w.text('b.txt'), 'B2\n')
  w.write('c.txt', 'C\n')
  // Without journal_dir the entry is unknown to this process.
  assert.equal((await undoEdit(id, w.opts())).code, 'EDIT_NOT_FOUND')
  const u = await undoEdit('c.txt', w.opts({ journal_dir: '.journal' }))
  assert.equal(u.ok, true, JSON.stringify(u))
  assert.equal(u.edit_id, id)
  assert.deepEqual(u.files.map((f) => [f.file_path, f.action]).sort(), [['b.txt', 'restored'], ['c.txt', 'deleted']])
  assert.equal(w.text('b.txt'), 'B1\n')
  assert.equal(existsSync(w.path('c.txt')), false)
  assert.equal(existsSync(w.path(join('.journal', id))), false, 'the entry is removed')

  // And the first write undoes from the journal directory.
  const ua = await undoEdit(r.edit_id, w.opts({ journal_dir: '.journal' }))
  assert.equal(ua.ok, true, JSON.stringify(ua))
  assert.equal(w.text('a.txt'), 'A1\n')
})
