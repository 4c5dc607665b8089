// Receipt fields that only uncommon paths produce, each checked for its meaning (the results check,
// scripts/check-results.mjs, also needs every field a schema declares to appear in some result).
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { require, sp, workspace } from './helpers.mjs'

// The journal write failing for real: the worker runs under a file-size limit (RLIMIT_FSIZE, 1 KiB) that
// each edited file fits in but no journal entry does (it keeps the 2 KB the file held before, or, for a
// creation, names a path over 1 KB), so that write fails with EFBIG after the edit has landed. (A journal
// directory that can never work, such as a name over 255 bytes, is refused before anything is written.)
// Node ignores SIGXFSZ, so the process lives on. The in-memory undo it leaves is tested in Rust
// (api::commit, by the write-fault hook); here, the receipt's claim that no other process can undo it.
const WORKER = fileURLToPath(new URL('./fixtures/journal-efbig-worker.mjs', import.meta.url))
const recorder = process.env.SUREPATCH_RECORD_RESULTS ? require('../record.cjs') : null

test('journal_warning: every write op says when the journal directory could not be updated', async (t) => {
  // RLIMIT_FSIZE through bash's `ulimit -f`, and a path over 1 KB (macOS allows 1,024 bytes): Linux.
  if (process.platform !== 'linux') return t.skip(`${process.platform}: the worker needs bash's ulimit -f and paths over 1,024 bytes`)
  const ws = workspace(t)
  const big = 2000
  const before = `one\n${'p'.repeat(big)}\n`
  const ops = ['patch_file', 'apply_edits', 'apply_patch', 'apply_unified_diff', 'apply_blocks', 'create_file', 'write_file', 'delete_file', 'move_file', 'merge_snippet', 'edit_lines', 'edit_symbol']
  for (const op of ops) {
    mkdirSync(ws.path(`${op}/jd`), { recursive: true })
    ws.write(`${op}/a.txt`, before)
  }
  ws.write('edit_symbol/a.py', `def f():\n    return "${'p'.repeat(big)}"\n`)
  const env = Object.assign({}, process.env)
  delete env.SUREPATCH_RECORD_RESULTS // this process records the worker's results
  const r = spawnSync('bash', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, WORKER, ws.root, String(big)], { env, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
  assert.deepEqual(lines.map((l) => l.op), ops)
  for (const { op, result } of lines) {
    if (recorder) recorder.record('op', op, result)
    assert.equal(result.ok, true, `${op}: ${JSON.stringify(result)}`)
    assert.match(result.journal_warning, /the edit was written, but the journal directory could not be updated \(.+\); it can be undone only from this process/, op)
    assert.equal(result.undo_available, true, op)
    const w = (p) => ws.path(`${op}/${p}`)
    // The edit landed; the journal directory holds no partial entry.
    if (op === 'delete_file') assert.equal(existsSync(w('a.txt')), false, op)
    else if (op === 'move_file') assert.equal(readFileSync(w('b.txt'), 'utf8'), before, op)
    else if (op === 'create_file') assert.equal(readFileSync(w(result.file_path), 'utf8'), 'x\n', op)
    else if (op === 'edit_symbol') assert.equal(readFileSync(w('a.py'), 'utf8'), 'def f():\n    return 1\n', op)
    else assert.equal(readFileSync(w('a.txt'), 'utf8'), 'ONE\n', op)
    assert.deepEqual(readdirSync(w('jd')), [], op)
    // As the warning says: another process finds nothing to undo, and changes nothing.
    const u = await sp.undoEdit(result.edit_id, { workspace_root: ws.path(op), journal_dir: 'jd' })
    assert.equal(u.code, 'EDIT_NOT_FOUND', `${op}: ${JSON.stringify(u)}`)
    if (op === 'edit_symbol') assert.equal(readFileSync(w('a.py'), 'utf8'), 'def f():\n    return 1\n', op)
    else if (op !== 'delete_file' && op !== 'move_file' && op !== 'create_file') assert.equal(readFileSync(w('a.txt'), 'utf8'), 'ONE\n', op)
  }
})

test('matches[].tolerances lists every liberty when one match needed more than one', async (t) => {
  const ws = workspace(t)
  ws.write('a.py', 'def f():\n    x = \u201ca\u201d\n    return x\n')
  // Copied from a `cat -n` view (line_prefix) and with straight quotes (typography).
  const r = await sp.applyEdits('a.py', [['     2\t    x = "a"\n     3\t    return x', '    return "b"']], ws.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.matches[0].tolerances, ['typography', 'line_prefix'])
  assert.equal(r.matches[0].tier, 'line_prefix')
  assert.equal(ws.text('a.py'), 'def f():\n    return "b"\n')
  // One liberty: no list (tier says it).
  const one = await sp.applyEdits('a.py', [['return "b"', 'return "c"']], ws.opts({ dry_run: true }))
  assert.equal(one.matches[0].tolerances, undefined)
})

test('readManyFiles: hint when the call\'s content budget is spent', async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'aaaaaaaaa\n'.repeat(10))
  ws.write('b.txt', 'bbbbbbbbb\n'.repeat(10))
  const r = await sp.readManyFiles(['a.txt', 'b.txt'], ws.opts({ max_bytes: 50 }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.match(r.hint, /budget of this call was spent/)
  assert.equal(r.files[0].truncated, true)
  const all = await sp.readManyFiles(['a.txt', 'b.txt'], ws.opts())
  assert.equal(all.hint, undefined)
})
