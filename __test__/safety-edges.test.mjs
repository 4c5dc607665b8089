// Issue #16 item 6: edges of the file system layer — long names, UTF-32 files, `a.txt/.`, and the
// words of a refused delete.
import test from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, readdirSync } from 'node:fs'
import { sp, workspace } from './helpers.mjs'

test('names of 200 to 255 bytes: created, edited, rewritten, deleted and undone; no temp left', async (t) => {
  const ws = workspace(t)
  for (const name of ['n'.repeat(200), 'n'.repeat(220), 'x'.repeat(251) + '.txt', 'é'.repeat(127)]) {
    assert.ok(Buffer.byteLength(name) <= 255)
    let r = await sp.createFile(name, 'one\n', ws.opts())
    assert.equal(r.ok, true, `${Buffer.byteLength(name)} bytes: ${JSON.stringify(r)}`)
    r = await sp.patchFile({ file_path: name, search_block: 'one', replace_block: 'two' }, ws.opts())
    assert.equal(r.ok, true, JSON.stringify(r))
    r = await sp.writeFile(name, 'three\n', ws.opts())
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(ws.text(name), 'three\n')
    r = await sp.deleteFile(name, ws.opts())
    assert.equal(r.ok, true, JSON.stringify(r))
    r = await sp.undoEdit(r.edit_id, ws.opts())
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(ws.text(name), 'three\n')
    assert.deepEqual(readdirSync(ws.root), [name], 'no temp file left')
    assert.equal((await sp.deleteFile(name, ws.opts())).ok, true)
  }
  // 256 bytes is above the limit of the file system: a clean refusal, nothing created.
  for (const p of ['n'.repeat(256), `${'n'.repeat(300)}/a.txt`]) {
    const r = await sp.createFile(p, 'x\n', ws.opts())
    assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(r))
  }
  assert.deepEqual(readdirSync(ws.root), [])
})

test('UTF-32 files (with a BOM) are refused with ENCODING_UNSUPPORTED, bytes unchanged', async (t) => {
  const ws = workspace(t)
  const le = Buffer.from([0xff, 0xfe, 0, 0, 0x68, 0, 0, 0, 0x69, 0, 0, 0, 0x0a, 0, 0, 0])
  const be = Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x68, 0, 0, 0, 0x69, 0, 0, 0, 0x0a])
  for (const [name, bytes, enc] of [['le.txt', le, 'utf-32le'], ['be.txt', be, 'utf-32be']]) {
    ws.write(name, bytes)
    for (const call of [
      () => sp.viewFile(name, ws.opts()),
      () => sp.patchFile({ file_path: name, search_block: 'hi', replace_block: 'HI' }, ws.opts()),
      () => sp.applyEdits(name, [['hi', 'HI']], ws.opts()),
      () => sp.writeFile(name, 'HI\n', ws.opts()),
      () => sp.applyPatch(`*** Begin Patch\n*** Update File: ${name}\n@@\n-hi\n+HI\n*** End Patch\n`, ws.opts()),
    ]) {
      const r = await call()
      assert.equal(r.code, 'ENCODING_UNSUPPORTED', JSON.stringify(r))
      assert.equal(r.encoding, enc)
      assert.deepEqual(ws.read(name), bytes)
    }
  }
  // UTF-16 LE is still read and edited.
  ws.write('u16.txt', Buffer.from('\ufeffhi\n', 'utf16le'))
  const r = await sp.patchFile({ file_path: 'u16.txt', search_block: 'hi', replace_block: 'HI' }, ws.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(ws.read('u16.txt'), Buffer.from('\ufeffHI\n', 'utf16le'))
})

test("'a.txt/.' names a directory: refused with INVALID_INPUT like 'a.txt/', bytes unchanged", async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'one\n')
  for (const p of ['a.txt/.', 'a.txt/', './a.txt/.']) {
    for (const call of [
      () => sp.viewFile(p, ws.opts()),
      () => sp.patchFile({ file_path: p, search_block: 'one', replace_block: 'two' }, ws.opts()),
      () => sp.writeFile(p, 'two\n', ws.opts()),
      () => sp.deleteFile(p, ws.opts()),
      () => sp.createFile(p, 'two\n', ws.opts({ overwrite: true })),
    ]) {
      const r = await call()
      assert.equal(r.code, 'INVALID_INPUT', `${p}: ${JSON.stringify(r)}`)
      assert.equal(ws.text('a.txt'), 'one\n')
    }
  }
  const r = await sp.createFile('new.txt/.', 'x\n', ws.opts())
  assert.equal(r.code, 'TARGET_IS_DIRECTORY', JSON.stringify(r))
  assert.deepEqual(ws.files(), ['a.txt'])
})

// On Windows chmod 0o444 sets the read-only attribute, which the engine refuses to delete the same way.
test('a refused delete says it was not deleted, never "writing … failed"', async (t) => {
  const ws = workspace(t)
  ws.write('ro.txt', 'keep\n')
  chmodSync(ws.path('ro.txt'), 0o444)
  const r = await sp.deleteFile('ro.txt', ws.opts())
  assert.equal(r.code, 'PERMISSION_DENIED', JSON.stringify(r))
  assert.doesNotMatch(r.message, /writing/)
  assert.match(r.message, /not changed/)
  assert.equal(ws.text('ro.txt'), 'keep\n')
})
