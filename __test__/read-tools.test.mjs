// The reading and finding tools: listDirectory, findFiles, searchFiles, readManyFiles, moveFile,
// createDirectory, and viewFile's default caps. Every error path asserts its code and that no byte on
// disk changed.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sp } from './helpers.mjs'

const { listDirectory, findFiles, searchFiles, readManyFiles, moveFile, createDirectory, viewFile, undoEdit } = sp

// base/root is the workspace (not a git repository); base/outside must never be listed or changed.
function tree(t) {
  const base = mkdtempSync(join(tmpdir(), 'surepatch-read-'))
  t.after(() => rmSync(base, { recursive: true, force: true }))
  const root = join(base, 'root')
  const files = {
    '.gitignore': 'build/\n*.log\n',
    'README.md': '# Title\nhello world\n',
    'src/a.rs': 'fn main() {\n    let x = 1;\n    println!("hello");\n}\n',
    'src/b.ts': 'const Hello = 2\nexport default Hello\n',
    'src/deep/c.rs': 'pub fn hello() {}\n',
    'src/.gitignore': 'gen.rs\n',
    'src/gen.rs': 'hello generated\n',
    'build/out.txt': 'hello built\n',
    'debug.log': 'hello log\n',
    '.hidden/h.txt': 'hello hidden\n',
    '.git/config': 'hello git\n',
    'bin.dat': Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0, 1, 2]),
    'utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('say hello\n', 'utf16le')]),
  }
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true })
    writeFileSync(join(root, p), data)
  }
  mkdirSync(join(base, 'outside'))
  writeFileSync(join(base, 'outside', 'secret.txt'), 'hello secret\n')
  symlinkSync('../outside', join(root, 'link_out'))
  symlinkSync('../outside/secret.txt', join(root, 'secret_link.txt'))
  const snapshot = () => {
    const out = {}
    const walk = (d) => {
      for (const n of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, n.name)
        if (n.isSymbolicLink()) out[p] = 'link'
        else if (n.isDirectory()) walk(p)
        else out[p] = readFileSync(p).toString('base64')
      }
    }
    walk(base)
    return out
  }
  return { base, root, opts: (o = {}) => ({ workspace_root: root, ...o }), snapshot }
}

test('listDirectory: entries with type and size, gitignore-aware, symlinks not followed', async (t) => {
  const w = tree(t)
  const r = await listDirectory('.', w.opts())
  assert.equal(r.ok, true)
  assert.equal(r.path, '.')
  assert.equal(r.truncated, false)
  const byPath = Object.fromEntries(r.entries.map((e) => [e.path, e]))
  assert.deepEqual(Object.keys(byPath).sort(), ['.gitignore', '.hidden', 'README.md', 'bin.dat', 'link_out', 'secret_link.txt', 'src', 'utf16.txt'])
  assert.deepEqual(byPath['README.md'], { path: 'README.md', type: 'file', size: 20 })
  assert.equal(byPath.src.type, 'directory')
  assert.equal(byPath.link_out.type, 'symlink')
  assert.equal(byPath['secret_link.txt'].type, 'symlink')

  const deep = await listDirectory('src', w.opts({ depth: 3 }))
  assert.deepEqual(deep.entries.map((e) => e.path), ['src/.gitignore', 'src/a.rs', 'src/b.ts', 'src/deep', 'src/deep/c.rs'])

  const all = await listDirectory(undefined, w.opts({ include_ignored: true }))
  const names = all.entries.map((e) => e.path)
  for (const n of ['build', 'debug.log']) assert.ok(names.includes(n), n)
  assert.ok(!names.includes('.git'), '.git is never listed')

  const capped = await listDirectory('.', w.opts({ max_entries: 2 }))
  assert.equal(capped.entries.length, 2)
  assert.equal(capped.truncated, true)
  assert.match(capped.hint, /max_entries/)
})

test('listDirectory: a .gitignore above the listed directory still applies, whether or not in git', async (t) => {
  const w = tree(t)
  mkdirSync(join(w.root, 'src', 'build'))
  writeFileSync(join(w.root, 'src', 'build', 'x.txt'), 'x\n')
  writeFileSync(join(w.root, 'src', 'trace.log'), 'x\n')
  const r = await listDirectory('src', w.opts())
  const names = r.entries.map((e) => e.path)
  assert.ok(!names.includes('src/build'))
  assert.ok(!names.includes('src/trace.log'))
  assert.ok(names.includes('src/a.rs'))
})

test('listDirectory errors: codes, nothing changed', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  const cases = [
    ['missing', {}, 'FILE_NOT_FOUND'],
    ['README.md', {}, 'INVALID_INPUT'],
    ['../outside', {}, 'PATH_OUTSIDE_WORKSPACE'],
    ['link_out', {}, 'PATH_OUTSIDE_WORKSPACE'],
    [join(w.base, 'outside'), {}, 'PATH_OUTSIDE_WORKSPACE'],
    ['.', { depth: 0 }, 'INVALID_INPUT'],
    ['.', { max_entries: 0 }, 'INVALID_INPUT'],
    ['.', { bogus: 1 }, 'INVALID_INPUT'],
    [3, {}, 'INVALID_INPUT'],
  ]
  for (const [p, o, code] of cases) {
    const r = await listDirectory(p, w.opts(o))
    assert.equal(r.ok, false, JSON.stringify(p))
    assert.equal(r.code, code, `${JSON.stringify(p)}: ${r.message}`)
    assert.equal(typeof r.message, 'string')
  }
  const badRoot = await listDirectory('.', { workspace_root: join(w.base, 'nope') })
  assert.equal(badRoot.code, 'INVALID_INPUT')
  assert.deepEqual(w.snapshot(), before)
})

test('findFiles: glob by name or by relative path, gitignore and hidden rules', async (t) => {
  const w = tree(t)
  const rs = await findFiles('*.rs', w.opts())
  assert.equal(rs.ok, true)
  assert.deepEqual(rs.files, ['src/a.rs', 'src/deep/c.rs'])
  assert.equal(rs.truncated, false)
  const withIgnored = await findFiles('*.rs', w.opts({ include_ignored: true }))
  assert.deepEqual(withIgnored.files, ['src/a.rs', 'src/deep/c.rs', 'src/gen.rs'])
  const rel = await findFiles('src/*.rs', w.opts())
  assert.deepEqual(rel.files, ['src/a.rs'])
  const star2 = await findFiles('**/*.rs', w.opts({ path: 'src' }))
  assert.deepEqual(star2.files, ['src/a.rs', 'src/deep/c.rs'])
  const txt = await findFiles('*.txt', w.opts())
  assert.deepEqual(txt.files, ['secret_link.txt', 'utf16.txt'])
  const hidden = await findFiles('*.txt', w.opts({ include_hidden: true }))
  assert.deepEqual(hidden.files, ['.hidden/h.txt', 'secret_link.txt', 'utf16.txt'])
  const none = await findFiles('*.zig', w.opts())
  assert.deepEqual(none.files, [])
  const capped = await findFiles('*', w.opts({ max_results: 1 }))
  assert.equal(capped.files.length, 1)
  assert.equal(capped.truncated, true)
  assert.match(capped.hint, /max_results/)
})

test('findFiles errors: codes, nothing changed', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  const cases = [
    ['', {}, 'INVALID_INPUT'],
    ['a[', {}, 'INVALID_INPUT'],
    ['*.rs', { path: 'nope' }, 'FILE_NOT_FOUND'],
    ['*.rs', { path: '../outside' }, 'PATH_OUTSIDE_WORKSPACE'],
    ['*', { path: 'link_out' }, 'PATH_OUTSIDE_WORKSPACE'],
    ['*.rs', { path: 'README.md' }, 'INVALID_INPUT'],
    ['*.rs', { max_results: 0 }, 'INVALID_INPUT'],
    [null, {}, 'INVALID_INPUT'],
  ]
  for (const [p, o, code] of cases) {
    const r = await findFiles(p, w.opts(o))
    assert.equal(r.ok, false, JSON.stringify([p, o]))
    assert.equal(r.code, code, `${JSON.stringify([p, o])}: ${r.message}`)
  }
  assert.deepEqual(w.snapshot(), before)
})

test('searchFiles: literal search with line numbers; binary, ignored, hidden, .git and symlinks skipped', async (t) => {
  const w = tree(t)
  const r = await searchFiles('hello', w.opts())
  assert.equal(r.ok, true)
  assert.equal(r.truncated, false)
  const files = r.results.map((f) => f.file_path)
  assert.deepEqual(files, ['README.md', 'src/a.rs', 'src/deep/c.rs', 'utf16.txt'])
  assert.deepEqual(r.results[0].matches, [{ line_number: 2, text: 'hello world' }])
  assert.deepEqual(r.results[1].matches, [{ line_number: 3, text: '    println!("hello");' }])
  assert.deepEqual(r.results[3].matches, [{ line_number: 1, text: 'say hello' }])
  assert.equal(r.match_count, 4)
  assert.equal(r.files_with_matches, 4)

  const ci = await searchFiles('hello', w.opts({ case_sensitive: false, path: 'src' }))
  assert.deepEqual(ci.results.map((f) => f.file_path), ['src/a.rs', 'src/b.ts', 'src/deep/c.rs'])
  assert.equal(ci.results[1].matches.length, 2)

  const lit = await searchFiles('println!(', w.opts())
  assert.equal(lit.match_count, 1, 'literal by default: regex metacharacters are plain text')
  const re = await searchFiles('fn \\w+\\(', w.opts({ regex: true }))
  assert.deepEqual(re.results.map((f) => f.file_path), ['src/a.rs', 'src/deep/c.rs'])

  const one = await searchFiles('hello', w.opts({ path: 'src/a.rs' }))
  assert.equal(one.path, 'src/a.rs')
  assert.deepEqual(one.results, [{ file_path: 'src/a.rs', matches: [{ line_number: 3, text: '    println!("hello");' }] }])
  assert.equal(one.files_searched, 1)
  const oneBin = await searchFiles('hello', w.opts({ path: 'bin.dat' }))
  assert.deepEqual(oneBin.results, [], 'a binary file named alone is still skipped')

  const glob = await searchFiles('hello', w.opts({ glob: '*.md' }))
  assert.deepEqual(glob.results.map((f) => f.file_path), ['README.md'])

  const all = await searchFiles('hello', w.opts({ include_ignored: true, include_hidden: true }))
  const allFiles = all.results.map((f) => f.file_path)
  for (const f of ['build/out.txt', 'debug.log', 'src/gen.rs', '.hidden/h.txt']) assert.ok(allFiles.includes(f), f)
  for (const f of ['.git/config', 'bin.dat', 'secret_link.txt', 'link_out/secret.txt']) assert.ok(!allFiles.includes(f), f)
})

test('searchFiles: context lines, caps and long lines are stated', async (t) => {
  const w = tree(t)
  const c = await searchFiles('let x', w.opts({ context_lines: 1 }))
  assert.deepEqual(c.results[0].matches, [{ line_number: 2, text: '    let x = 1;', before: ['fn main() {'], after: ['    println!("hello");'] }])

  writeFileSync(join(w.root, 'many.txt'), 'needle\n'.repeat(50))
  const capped = await searchFiles('needle', w.opts({ max_results: 10 }))
  assert.equal(capped.match_count, 10)
  assert.equal(capped.truncated, true)
  assert.match(capped.hint, /max_results/)

  writeFileSync(join(w.root, 'long.txt'), 'x'.repeat(2000) + 'needle2\n')
  const long = await searchFiles('needle2', w.opts())
  assert.equal(long.long_lines_cut, true)
  assert.ok(long.results[0].matches[0].text.endsWith('…'))
  assert.ok(Buffer.byteLength(long.results[0].matches[0].text) <= 504)
})

test('searchFiles errors: codes, nothing changed', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  const cases = [
    ['', {}, 'INVALID_INPUT'],
    ['(', { regex: true }, 'INVALID_INPUT'],
    ['a\\nb', { regex: true }, 'INVALID_INPUT'],
    ['x', { context_lines: 21 }, 'INVALID_INPUT'],
    ['x', { max_results: 0 }, 'INVALID_INPUT'],
    ['x', { glob: 'a[' }, 'INVALID_INPUT'],
    ['x', { path: 'nope' }, 'FILE_NOT_FOUND'],
    ['x', { path: '../outside' }, 'PATH_OUTSIDE_WORKSPACE'],
    ['x', { path: 'link_out' }, 'PATH_OUTSIDE_WORKSPACE'],
    ['x', { path: 'secret_link.txt' }, 'PATH_OUTSIDE_WORKSPACE'],
    ['x', { path: 'nope.txt' }, 'FILE_NOT_FOUND'],
    ['x', { regex: 'yes' }, 'INVALID_INPUT'],
  ]
  for (const [q, o, code] of cases) {
    const r = await searchFiles(q, w.opts(o))
    assert.equal(r.ok, false, JSON.stringify([q, o]))
    assert.equal(r.code, code, `${JSON.stringify([q, o])}: ${r.message}`)
  }
  assert.deepEqual(w.snapshot(), before)
})

test('readManyFiles: files and ranges with hashes; one failure does not fail the others', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  const r = await readManyFiles(
    ['README.md', { file_path: 'src/a.rs', start_line: 2, end_line: 3 }, 'missing.txt', 'bin.dat', '../outside/secret.txt', 'src', 'utf16.txt'],
    w.opts({ format: 'numbered' }),
  )
  assert.equal(r.ok, true)
  assert.equal(r.failed, 4)
  const [readme, range, missing, bin, outside, dir, utf16] = r.files
  assert.equal(readme.ok, true)
  assert.equal(readme.content, '     1\t# Title\n     2\thello world\n')
  assert.equal(readme.file_hash, (await viewFile('README.md', w.opts())).file_hash)
  assert.equal(range.content, '     2\t    let x = 1;\n     3\t    println!("hello");\n')
  assert.equal(range.start_line, 2)
  assert.equal(range.end_line, 3)
  assert.deepEqual([missing.code, missing.file_path], ['FILE_NOT_FOUND', 'missing.txt'])
  assert.equal(bin.code, 'BINARY_FILE_REJECTED')
  assert.equal(outside.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(dir.code, 'TARGET_IS_DIRECTORY')
  assert.equal(utf16.encoding, 'utf-16le')
  assert.equal(utf16.content, '     1\tsay hello\n')
  assert.deepEqual(w.snapshot(), before)
})

test('readManyFiles: the byte budget is shared and stated', async (t) => {
  const w = tree(t)
  const r = await readManyFiles(['README.md', 'src/a.rs'], w.opts({ max_bytes: 35 }))
  assert.equal(r.files[0].truncated, false)
  assert.equal(r.files[1].truncated, true)
  assert.equal(r.files[1].next_start_line, 2)
  assert.equal(r.files[1].content, 'fn main() {\n')
})

test('readManyFiles errors: codes', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  for (const [arg, o] of [
    [[], {}],
    ['README.md', {}],
    [[3], {}],
    [[{ start_line: 1 }], {}],
    [[{ file_path: 'README.md', bogus: 1 }], {}],
    [Array(101).fill('README.md'), {}],
    [['README.md'], { format: 'fancy' }],
  ]) {
    const r = await readManyFiles(arg, w.opts(o))
    assert.equal(r.ok, false, JSON.stringify(arg).slice(0, 80))
    assert.equal(r.code, 'INVALID_INPUT')
  }
  assert.deepEqual(w.snapshot(), before)
})

test('viewFile: default caps of 2000 lines and 256 KiB, with next_start_line', async (t) => {
  const w = tree(t)
  const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
  writeFileSync(join(w.root, 'big.txt'), lines)
  const v = await viewFile('big.txt', w.opts())
  assert.equal(v.end_line, 2000)
  assert.equal(v.truncated, true)
  assert.equal(v.next_start_line, 2001)
  assert.equal(v.total_lines, 2500)
  const rest = await viewFile('big.txt', w.opts({ start_line: v.next_start_line }))
  assert.equal(rest.end_line, 2500)
  assert.equal(rest.truncated, false)
  assert.equal(rest.next_start_line, undefined)
  assert.equal(v.content + rest.content, lines)
  const explicit = await viewFile('big.txt', w.opts({ start_line: 1, end_line: 2500 }))
  assert.equal(explicit.truncated, false, 'an explicit end_line is not cut by the line cap')
  const few = await viewFile('big.txt', w.opts({ max_lines: 10 }))
  assert.equal(few.end_line, 10)
  assert.equal(few.next_start_line, 11)

  writeFileSync(join(w.root, 'wide.txt'), ('y'.repeat(1023) + '\n').repeat(300))
  const wide = await viewFile('wide.txt', w.opts())
  assert.equal(wide.end_line, 256)
  assert.equal(wide.truncated, true)
  assert.equal(wide.next_start_line, 257)
  writeFileSync(join(w.root, 'one.txt'), 'z'.repeat(300 * 1024))
  const one = await viewFile('one.txt', w.opts())
  assert.equal(one.content, '')
  assert.equal(one.next_start_line, 1)
  assert.match(one.hint, /max_bytes/)
  const bad = await viewFile('big.txt', w.opts({ max_lines: 0 }))
  assert.equal(bad.code, 'INVALID_INPUT')
})

test('moveFile: renames bytes exactly, creates parents, undo puts it back', async (t) => {
  const w = tree(t)
  const src = readFileSync(join(w.root, 'utf16.txt'))
  const r = await moveFile('utf16.txt', 'new/dir/u.txt', w.opts())
  assert.equal(r.ok, true, r.message)
  assert.equal(r.file_path, 'utf16.txt')
  assert.equal(r.moved_to, 'new/dir/u.txt')
  assert.equal(r.replaced, false)
  assert.equal(r.written, true)
  assert.equal(r.undo_available, true)
  assert.ok(!existsSync(join(w.root, 'utf16.txt')))
  assert.deepEqual(readFileSync(join(w.root, 'new/dir/u.txt')), src)
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.ok, true, u.message)
  assert.deepEqual(readFileSync(join(w.root, 'utf16.txt')), src)
  assert.ok(!existsSync(join(w.root, 'new/dir/u.txt')))

  // A rename: the same inode, so the mode (and any hard link) is kept.
  const script = join(w.root, 'run.sh')
  writeFileSync(script, '#!/bin/sh\necho hi\n', { mode: 0o755 })
  const ino = statSync(script).ino
  const sh = await moveFile('run.sh', 'bin/run.sh', w.opts())
  assert.equal(sh.ok, true, sh.message)
  const moved = statSync(join(w.root, 'bin/run.sh'))
  // Windows has no mode bits (Node reports a writable file as 0o666); the rename keeps what there is.
  assert.equal(moved.mode & 0o777, process.platform === 'win32' ? 0o666 : 0o755)
  assert.equal(moved.ino, ino)

  const bin = readFileSync(join(w.root, 'bin.dat'))
  const b = await moveFile('bin.dat', 'bin2.dat', w.opts())
  assert.equal(b.ok, true, 'binary files move too')
  assert.deepEqual(readFileSync(join(w.root, 'bin2.dat')), bin)

  const dry = await moveFile('README.md', 'R.md', w.opts({ dry_run: true }))
  assert.equal(dry.written, false)
  assert.ok(existsSync(join(w.root, 'README.md')))
  assert.ok(!existsSync(join(w.root, 'R.md')))
})

test('moveFile onto an existing file: FILE_EXISTS unless overwrite; undo restores both', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  const refused = await moveFile('src/b.ts', 'README.md', w.opts())
  assert.equal(refused.code, 'FILE_EXISTS')
  assert.deepEqual(w.snapshot(), before)
  const readme = readFileSync(join(w.root, 'README.md'))
  const bts = readFileSync(join(w.root, 'src/b.ts'))
  const r = await moveFile('src/b.ts', 'README.md', w.opts({ overwrite: true }))
  assert.equal(r.ok, true)
  assert.equal(r.replaced, true)
  assert.deepEqual(readFileSync(join(w.root, 'README.md')), bts)
  assert.ok(!existsSync(join(w.root, 'src/b.ts')))
  const u = await undoEdit(r.edit_id, w.opts())
  assert.equal(u.ok, true, u.message)
  assert.deepEqual(readFileSync(join(w.root, 'README.md')), readme)
  assert.deepEqual(readFileSync(join(w.root, 'src/b.ts')), bts)
})

test('moveFile errors: codes, nothing changed', async (t) => {
  const w = tree(t)
  const before = w.snapshot()
  const cases = [
    ['missing.txt', 'x.txt', {}, 'FILE_NOT_FOUND'],
    ['README.md', '../outside/x.txt', {}, 'PATH_OUTSIDE_WORKSPACE'],
    ['README.md', 'link_out/x.txt', {}, 'PATH_OUTSIDE_WORKSPACE'],
    ['secret_link.txt', 'x.txt', {}, 'PATH_OUTSIDE_WORKSPACE'],
    ['README.md', 'src', {}, 'TARGET_IS_DIRECTORY'],
    ['README.md', 'newdir/', {}, 'TARGET_IS_DIRECTORY'],
    ['src', 'src2', {}, 'TARGET_IS_DIRECTORY'],
    ['README.md', 'README.md', {}, 'INVALID_INPUT'],
    ['README.md', './README.md', { overwrite: true }, 'INVALID_INPUT'],
    ['README.md', 'R.md', { base_hash: '0'.repeat(64) }, 'STALE_FILE'],
    ['README.md', 'R.md', { max_file_bytes: 4 }, 'FILE_TOO_LARGE'],
    ['README.md', 'R.md', { overwrite: 'yes' }, 'INVALID_INPUT'],
    ['README.md', null, {}, 'INVALID_INPUT'],
  ]
  for (const [from, to, o, code] of cases) {
    const r = await moveFile(from, to, w.opts(o))
    assert.equal(r.ok, false, JSON.stringify([from, to, o]))
    assert.equal(r.code, code, `${JSON.stringify([from, to, o])}: ${r.message}`)
  }
  assert.deepEqual(w.snapshot(), before)
})

test('createDirectory: creates parents, idempotent, refuses files and escapes', async (t) => {
  const w = tree(t)
  const r = await createDirectory('a/b/c', w.opts())
  assert.deepEqual(r, { ok: true, path: 'a/b/c', created: true })
  assert.ok(statSync(join(w.root, 'a/b/c')).isDirectory())
  const again = await createDirectory('a/b/c/', w.opts())
  assert.deepEqual(again, { ok: true, path: 'a/b/c', created: false })
  const before = w.snapshot()
  for (const [p, code] of [
    ['README.md', 'FILE_EXISTS'],
    ['README.md/x', 'INVALID_INPUT'],
    ['../outside/new', 'PATH_OUTSIDE_WORKSPACE'],
    ['link_out/new', 'PATH_OUTSIDE_WORKSPACE'],
    ['', 'INVALID_INPUT'],
    ['/', 'INVALID_INPUT'],
  ]) {
    const r2 = await createDirectory(p, w.opts())
    assert.equal(r2.ok, false, p)
    assert.equal(r2.code, code, `${p}: ${r2.message}`)
  }
  assert.deepEqual(w.snapshot(), before)
  assert.ok(!existsSync(join(w.base, 'outside', 'new')))
})

test('tool runner: the new tools through MCP argument names; read-before-edit counts read_many_files and follows move_file', async (t) => {
  const w = tree(t)
  const runner = sp.createToolRunner({ workspaceRoot: w.root, requireRead: true })
  for (const name of ['list_directory', 'find_files', 'search_files', 'read_many_files', 'move_file', 'create_directory']) {
    assert.ok(runner.tools.includes(name), name)
  }
  const l = await runner.call('list_directory', { path: 'src', depth: 2 })
  assert.deepEqual(l.entries.map((e) => e.path), ['src/.gitignore', 'src/a.rs', 'src/b.ts', 'src/deep', 'src/deep/c.rs'])
  const f = await runner.call('find_files', { pattern: '*.rs', include_ignored: true })
  assert.deepEqual(f.files, ['src/a.rs', 'src/deep/c.rs', 'src/gen.rs'])
  const s = await runner.call('search_files', { query: 'HELLO', case_sensitive: false, glob: '*.ts', context_lines: 0 })
  assert.equal(s.match_count, 2)
  const badRoot = await runner.call('search_files', { query: 'x', workspace_root: '/' })
  assert.equal(badRoot.code, 'INVALID_INPUT')

  // Not read yet: refused.
  const before = readFileSync(join(w.root, 'src/a.rs'))
  const unread = await runner.call('patch_file', { file_path: 'src/a.rs', search_block: 'let x = 1;', replace_block: 'let x = 2;' })
  assert.equal(unread.code, 'STALE_FILE')
  assert.deepEqual(readFileSync(join(w.root, 'src/a.rs')), before)
  // Read through read_many_files: allowed.
  const m = await runner.call('read_many_files', { files: ['src/a.rs', { file_path: 'README.md', start_line: 1, end_line: 1 }, 'nope.txt'] })
  assert.equal(m.failed, 1)
  const p = await runner.call('patch_file', { file_path: 'src/a.rs', search_block: 'let x = 1;', replace_block: 'let x = 2;' })
  assert.equal(p.ok, true, p.message)
  // Moved after being read: the new name is known, the old one is not.
  const mv = await runner.call('move_file', { from_path: 'src/a.rs', to_path: 'src/main.rs' })
  assert.equal(mv.ok, true, mv.message)
  const p2 = await runner.call('patch_file', { file_path: 'src/main.rs', search_block: 'let x = 2;', replace_block: 'let x = 3;' })
  assert.equal(p2.ok, true, p2.message)
  const d = await runner.call('create_directory', { path: 'docs/api' })
  assert.deepEqual(d, { ok: true, path: 'docs/api', created: true })
  const exists = await runner.call('move_file', { from_path: 'src/main.rs', to_path: 'README.md' })
  assert.equal(exists.code, 'FILE_EXISTS')
  // Replacing a file is refused until that file was seen (README.md was read above only as a range,
  // which counts); src/b.ts was never read.
  const snap = w.snapshot()
  const unseen = await runner.call('move_file', { from_path: 'src/main.rs', to_path: 'src/b.ts', overwrite: true })
  assert.equal(unseen.code, 'STALE_FILE')
  assert.deepEqual(w.snapshot(), snap)
  writeFileSync(join(w.root, 'README.md'), 'changed meanwhile\n')
  const snap2 = w.snapshot()
  const stale = await runner.call('move_file', { from_path: 'src/main.rs', to_path: 'README.md', overwrite: true })
  assert.equal(stale.code, 'STALE_FILE')
  assert.deepEqual(w.snapshot(), snap2)
  await runner.call('view_file', { file_path: 'README.md' })
  const over = await runner.call('move_file', { from_path: 'src/main.rs', to_path: 'README.md', overwrite: true })
  assert.equal(over.ok, true, over.message)
  assert.equal(over.replaced, true)
})

test('every new call runs off the event loop: a setImmediate queued before it runs before it resolves', async (t) => {
  const w = tree(t)
  const calls = [
    () => listDirectory('.', w.opts({ depth: 5 })),
    () => findFiles('*', w.opts()),
    () => searchFiles('hello', w.opts()),
    () => readManyFiles(['README.md', 'src/a.rs'], w.opts()),
    () => createDirectory('made', w.opts()),
    () => moveFile('README.md', 'R2.md', w.opts()),
  ]
  for (const call of calls) {
    let ticked = false
    setImmediate(() => {
      ticked = true
    })
    const p = call()
    assert.ok(p instanceof Promise)
    const r = await p
    assert.equal(r.ok, true, r.message)
    assert.equal(ticked, true, call.toString())
  }
})

test('a symlinked directory inside the root is listed and searched as its target', async (t) => {
  const w = tree(t)
  symlinkSync('src/deep', join(w.root, 'deeplink'))
  const l = await listDirectory('deeplink', w.opts())
  assert.equal(l.path, 'src/deep')
  assert.deepEqual(l.entries, [{ path: 'src/deep/c.rs', type: 'file', size: 18 }])
  const s = await searchFiles('hello', w.opts({ path: 'deeplink' }))
  assert.deepEqual(s.results.map((r) => r.file_path), ['src/deep/c.rs'])
})

test('concurrent moves of one file: exactly one lands, the bytes survive once', async (t) => {
  const w = tree(t)
  const bytes = readFileSync(join(w.root, 'README.md'))
  const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => moveFile('README.md', `moved/${i}.md`, w.opts())))
  const ok = rs.filter((r) => r.ok)
  assert.equal(ok.length, 1, JSON.stringify(rs.map((r) => r.code)))
  for (const r of rs.filter((x) => !x.ok)) assert.ok(['FILE_NOT_FOUND', 'STALE_FILE'].includes(r.code), r.code)
  assert.deepEqual(readdirSync(join(w.root, 'moved')), [ok[0].moved_to.slice('moved/'.length)])
  assert.deepEqual(readFileSync(join(w.root, ok[0].moved_to)), bytes)
  assert.ok(!existsSync(join(w.root, 'README.md')))
})

test('a move and an edit of one file at once: the edit is never lost and the old name never comes back', async (t) => {
  for (let round = 0; round < 10; round++) {
    const w = tree(t)
    const [m, p] = await Promise.all([
      moveFile('README.md', 'docs/README.md', w.opts()),
      sp.patchFile({ file_path: 'README.md', search_block: 'hello world', replace_block: 'hello there' }, w.opts()),
    ])
    assert.equal(m.ok, true, m.message)
    assert.ok(!existsSync(join(w.root, 'README.md')), 'the old name stays gone')
    const now = readFileSync(join(w.root, 'docs/README.md'), 'utf8')
    if (p.ok) assert.equal(now, '# Title\nhello there\n')
    else {
      assert.equal(p.code, 'FILE_NOT_FOUND')
      assert.equal(now, '# Title\nhello world\n')
    }
  }
})
