// Issue #16 item 1: the sandbox under races, for every operation that touches the file system.
// A child process swaps root/sw back and forth between a real directory and a symlink to a directory
// outside the root while the calls run; whatever each call answers, nothing outside may change: no
// file edited, deleted, created, and no directory created. Each test runs for a fixed time.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { sp } from './helpers.mjs'

const run = promisify(execFile)
const SWAPPER = fileURLToPath(new URL('./fixtures/safety-swapper.mjs', import.meta.url))
const SECRET = 'secret\n'
const MS = Number(process.env.SUREPATCH_RACE_MS || 1500)
const VICTIMS = 40

function layout(t) {
  const base = mkdtempSync(join(tmpdir(), 'surepatch-race-'))
  t.after(() => rmSync(base, { recursive: true, force: true }))
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  mkdirSync(join(root, 'sw'), { recursive: true })
  mkdirSync(outside)
  writeFileSync(join(root, 'sw', 'f.txt'), SECRET)
  // Everything outside: f.txt (the swapped directory's file) and victims named like files the
  // calls create inside (so a followed unlink, rename or undo would hit them).
  const names = ['f.txt']
  for (let i = 0; i < VICTIMS; i++) names.push(`c-${i}.txt`, `m-${i}.txt`)
  for (const n of names) writeFileSync(join(outside, n), SECRET)
  const expected = [...names].sort()
  const untouched = () => {
    assert.deepEqual(readdirSync(outside).sort(), expected, 'a file or directory was created or removed outside')
    for (const n of names) assert.equal(readFileSync(join(outside, n), 'utf8'), SECRET, `outside/${n} changed`)
  }
  return { root, outside, untouched }
}

// Runs `op(i)` in 4 concurrent loops while root/sw is swapped; returns the outcome counts.
async function race(t, label, op) {
  const { root, outside, untouched } = layout(t)
  const swapper = run(process.execPath, [SWAPPER, root, 'sw', outside, String(MS + 300), 'dir'])
  const outcomes = {}
  let calls = 0
  const deadline = Date.now() + MS
  await Promise.all(
    Array.from({ length: 4 }, async (_, w) => {
      let i = w
      while (Date.now() < deadline) {
        const r = await op(root, i % VICTIMS)
        i += 4
        calls++
        const key = r.ok ? 'ok' : r.reason ? `${r.code}/${r.reason}` : r.code
        outcomes[key] = (outcomes[key] || 0) + 1
        if (!r.ok) assert.notEqual(r.code, 'INTERNAL_ERROR', r.message)
        if (!r.ok && process.env.SUREPATCH_DEBUG && r.code === 'FILE_READ_ERROR' && !r.reason) console.error(key, r.message)
        untouched()
      }
    }),
  )
  const swaps = Number((await swapper).stdout)
  untouched()
  t.diagnostic(`${label}: ${calls} calls during ${swaps} swaps, 0 effects outside; ${JSON.stringify(outcomes)}`)
  return outcomes
}

// The swapper renames a directory and a symlink over each other while the calls under test hold them
// open; Windows refuses to rename an open directory, so the race cannot be staged there. The sandbox's
// static refusals (symlinks out, `..`, absolute paths) run on every platform in safety-sandbox.test.mjs.
const skip = process.platform === 'win32' && 'Windows: an open directory cannot be renamed, so the swap this race needs cannot happen'
const o = (root, extra = {}) => ({ workspace_root: root, ...extra })

test('deleteFile under a swapped parent: nothing outside deleted', { skip }, async (t) => {
  await race(t, 'deleteFile', async (root) => {
    const r = await sp.deleteFile('sw/f.txt', o(root))
    return r
  })
})

test('applyPatch Move to under a swapped parent: no source outside removed, no target outside', { skip }, async (t) => {
  await race(t, 'applyPatch move', (root, i) =>
    sp.applyPatch(`*** Begin Patch\n*** Update File: sw/f.txt\n*** Move to: sw/m-${i}.txt\n@@\n-secret\n+moved\n*** End Patch\n`, o(root)),
  )
})

test('createFile of a deep path under a swapped parent: no directory created outside', { skip }, async (t) => {
  await race(t, 'createFile deep', (root, i) => sp.createFile(`sw/n/x/y/new-${i}.txt`, 'new\n', o(root, { overwrite: true })))
})

test('writeFile and patchFile under a swapped parent: nothing outside written', { skip }, async (t) => {
  await race(t, 'writeFile/patchFile', (root, i) =>
    i % 2
      ? sp.writeFile('sw/f.txt', 'PWNED\n', o(root))
      : sp.patchFile({ file_path: 'sw/f.txt', search_block: 'secret', replace_block: 'PWNED' }, o(root)),
  )
})

test('undo of a creation under a swapped parent: nothing outside deleted', { skip }, async (t) => {
  await race(t, 'create+undo', async (root, i) => {
    const c = await sp.createFile(`sw/c-${i}.txt`, 'mine\n', o(root))
    if (!c.ok) return c
    return sp.undoEdit(c.edit_id, o(root))
  })
})

test('a journal directory under a swapped parent: nothing written outside', { skip }, async (t) => {
  await race(t, 'journal_dir', async (root, i) => {
    writeFileSync(join(root, `j-${i}.txt`), `v${Date.now()}\n`)
    return sp.writeFile(`j-${i}.txt`, `w${i}\n`, o(root, { journal_dir: 'sw/journal' }))
  })
})

test('the root itself stays usable: no directory of ours left outside after all of the above', { skip }, async (t) => {
  const { root, outside, untouched } = layout(t)
  const r = await sp.createFile('sw/n/x/y/new.txt', 'new\n', o(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.ok(existsSync(join(root, 'sw/n/x/y/new.txt')))
  untouched()
  assert.ok(!existsSync(join(outside, 'n')))
})

// Reads are held to the same rule: a parent swapped for a link to outside while a read runs must not
// make it show what is outside (a file only there: its name, its content, its matches).
test('reads under a swapped parent: nothing outside is listed, found, searched or shown', { skip }, async (t) => {
  const { root, outside } = layout(t)
  const MARK = 'ONLY-OUTSIDE-7f3a'
  writeFileSync(join(outside, 'only-outside.txt'), `${MARK}\n`)
  const swapper = run(process.execPath, [SWAPPER, root, 'sw', outside, String(MS + 300), 'dir'])
  const leaks = []
  const counts = {}
  let calls = 0
  const reads = [
    ['searchFiles', () => sp.searchFiles(MARK, o(root))],
    ['searchFiles sw', () => sp.searchFiles(MARK, o(root, { path: 'sw' }))],
    ['findFiles', () => sp.findFiles('**/only-outside*', o(root))],
    ['listDirectory', () => sp.listDirectory('sw', o(root))],
    ['listDirectory deep', () => sp.listDirectory('.', o(root, { depth: 3 }))],
    ['viewFile', () => sp.viewFile('sw/only-outside.txt', o(root))],
    ['readManyFiles', () => sp.readManyFiles(['sw/only-outside.txt', 'sw/f.txt'], o(root))],
  ]
  const deadline = Date.now() + MS
  await Promise.all(
    reads.map(async ([name, read]) => {
      while (Date.now() < deadline) {
        const r = await read()
        calls++
        const key = `${name}:${r.ok ? 'ok' : r.code}`
        counts[key] = (counts[key] || 0) + 1
        if (!r.ok) assert.notEqual(r.code, 'INTERNAL_ERROR', r.message)
        // The content anywhere, or the name as an entry of a listing or a found file.
        const named = [...(r.entries || []).map((e) => e.path), ...(r.files || []).filter((f) => typeof f === 'string')]
        if (JSON.stringify(r).includes(MARK) || named.some((p) => p.endsWith('only-outside.txt'))) {
          leaks.push(`${name}: ${JSON.stringify(r).slice(0, 300)}`)
        }
      }
    }),
  )
  const swaps = Number((await swapper).stdout)
  t.diagnostic(`reads: ${calls} calls during ${swaps} swaps; ${JSON.stringify(counts)}`)
  assert.deepEqual(leaks.slice(0, 5), [], `${leaks.length} read(s) showed what is outside the root`)
})
