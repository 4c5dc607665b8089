// Issue #26 §2: the command line under hostile or unlucky conditions. Its undo journal is private
// (it holds files' previous content), standard input is read to its end whatever it is and however
// late its writer starts, a patch that is not UTF-8 is refused (never written with U+FFFD), and an
// empty EDIT_ID is a usage error. Every run is a subprocess bounded in time.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, lstatSync, openSync, closeSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, REPO, populate, tempDir } from './mcp-helpers.mjs'

const APPLY_PATCH = join(REPO, 'bin', 'apply_patch.mjs')
const posix = process.platform !== 'win32'
const ENVELOPE = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n'

function env(state) {
  return { ...process.env, SUREPATCH_WORKSPACE_ROOT: '', XDG_STATE_HOME: state }
}

function setup(t, files = { 'a.txt': 'one\ntwo\nthree\n' }) {
  const root = populate(tempDir(t, 'surepatch-cli-'), files)
  const state = tempDir(t, 'surepatch-state-')
  return { root, state, bytes: (p) => readFileSync(join(root, p)), text: (p) => readFileSync(join(root, p), 'utf8') }
}

// Runs `node bin args` with `stdin` ('pipe' to write `input` after `delayMs`, or an fd), at most 20 s.
function run(bin, args, { state, stdin = 'pipe', input, delayMs = 0, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: env(state), stdio: [stdin, 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no exit within 20 s; stderr:\n${stderr}`))
    }, 20_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      // Let the pipes drain.
      setImmediate(() => resolve({ code, stdout, stderr }))
    })
    if (stdin === 'pipe') {
      setTimeout(() => child.stdin.end(input), delayMs)
    }
  })
}

// A shell pipeline (sh -c), at most 20 s.
function sh(script, { state, cwd }) {
  const r = spawnSync('sh', ['-c', script], { cwd, env: { ...env(state), NODE: process.execPath, BIN, APPLY_PATCH }, encoding: 'utf8', timeout: 20_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const modeOf = (p) => lstatSync(p).mode & 0o777

// Every directory and file under `dir` (itself included), with its mode.
function modes(dir) {
  const out = [[dir, modeOf(dir), true]]
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...modes(p))
    else out.push([p, modeOf(p), false])
  }
  return out
}

test('the undo journal is private: files 0600, directories 0700, an older open journal is narrowed', { skip: !posix && 'win32: no mode bits', timeout: 60_000 }, async (t) => {
  const s = setup(t, { 'secret.env': 'TOKEN=hunter2\nOTHER=1\n' })
  chmodSync(join(s.root, 'secret.env'), 0o600)
  const patch = '*** Begin Patch\n*** Update File: secret.env\n@@\n-TOKEN=hunter2\n+TOKEN=rotated\n*** End Patch\n'
  const r = await run(BIN, ['apply', '--root', s.root], { state: s.state, input: patch })
  assert.equal(r.code, 0, r.stderr)
  assert.equal(s.text('secret.env'), 'TOKEN=rotated\nOTHER=1\n')
  const top = join(s.state, 'surepatch')
  const all = modes(top)
  // surepatch/, journal/, <root>-<hash>/, <edit_id>/, and the entry's two files.
  assert.equal(all.filter(([, , d]) => d).length, 4, JSON.stringify(all))
  for (const [p, mode, isDir] of all) assert.equal(mode, isDir ? 0o700 : 0o600, `${p}: ${mode.toString(8)}`)
  const saved = all.filter(([p]) => p.endsWith('.bin'))
  assert.equal(saved.length, 1)
  assert.equal(readFileSync(saved[0][0], 'utf8'), 'TOKEN=hunter2\nOTHER=1\n', 'the journal does hold the secret')

  // A state directory an older version left open (0755 directories, 0644 files): the next apply
  // narrows the state directories and the journal directory; the older entry is still undoable.
  const s2 = setup(t)
  const first = await run(BIN, ['apply', '--root', s2.root], { state: s2.state, input: ENVELOPE })
  assert.equal(first.code, 0, first.stderr)
  for (const [p, , isDir] of modes(join(s2.state, 'surepatch'))) chmodSync(p, isDir ? 0o755 : 0o644)
  const oldId = /edit_id (\S+)/.exec(first.stdout)[1]
  const second = await run(BIN, ['apply', '--root', s2.root], { state: s2.state, input: ENVELOPE.replace('-two\n+TWO', '-three\n+THREE').replace(' one\n', ' TWO\n') })
  assert.equal(second.code, 0, second.stderr)
  const journal = join(s2.state, 'surepatch', 'journal')
  const perRoot = join(journal, readdirSync(journal)[0])
  for (const d of [join(s2.state, 'surepatch'), journal, perRoot]) assert.equal(modeOf(d), 0o700, d)
  const newId = /edit_id (\S+)/.exec(second.stdout)[1]
  for (const f of readdirSync(join(perRoot, newId))) assert.equal(modeOf(join(perRoot, newId, f)), 0o600, f)
  assert.equal((await run(BIN, ['undo', newId, '--root', s2.root], { state: s2.state })).code, 0)
  const undone = await run(BIN, ['undo', oldId, '--root', s2.root], { state: s2.state })
  assert.equal(undone.code, 0, undone.stderr)
  assert.equal(s2.text('a.txt'), 'one\ntwo\nthree\n')

  // --journal-dir DIR: the journal inside is private; DIR's own parent is the user's and is left alone.
  const s3 = setup(t)
  const mine = tempDir(t, 'surepatch-jd-')
  chmodSync(mine, 0o755)
  const third = await run(BIN, ['apply', '--root', s3.root, '--journal-dir', join(mine, 'j')], { state: s3.state, input: ENVELOPE })
  assert.equal(third.code, 0, third.stderr)
  assert.equal(modeOf(mine), 0o755)
  for (const [p, mode, isDir] of modes(join(mine, 'j'))) assert.equal(mode, isDir ? 0o700 : 0o600, p)
})

test('a late stdin pipe: (sleep 0.3; cat p) | apply_patch and | surepatch apply apply it, exit 0', { skip: !posix && 'win32: no sh', timeout: 60_000 }, async (t) => {
  for (const bin of ['"$APPLY_PATCH"', '"$BIN" apply']) {
    const s = setup(t)
    writeFileSync(join(s.state, 'p.txt'), ENVELOPE)
    const r = sh(`(sleep 0.3; cat "${join(s.state, 'p.txt')}") | "$NODE" ${bin} --root "${s.root}"`, { state: s.state })
    assert.equal(r.code, 0, `${bin}: ${r.stderr}`)
    assert.doesNotMatch(r.stderr, /EAGAIN|at .*\.mjs/, 'no stack trace')
    assert.match(r.stdout, /^update a\.txt \+1 -1\nedit_id /)
    assert.equal(s.text('a.txt'), 'one\nTWO\nthree\n')
  }
})

test('stdin of every kind is read to its end: a socket written late and in pieces, a file, /dev/null', { timeout: 60_000 }, async (t) => {
  // Node's 'pipe' stdio is a socket pair: the patch arrives after 300 ms, in two pieces.
  const s1 = setup(t)
  const late = await new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [APPLY_PATCH, '--root', s1.root], { env: env(s1.state), stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    c.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => (c.kill('SIGKILL'), reject(new Error('no exit within 20 s'))), 20_000)
    setTimeout(() => c.stdin.write(ENVELOPE.slice(0, 30)), 300)
    setTimeout(() => c.stdin.end(ENVELOPE.slice(30)), 600)
    c.on('exit', (code) => (clearTimeout(timer), resolve({ code, stderr })))
  })
  assert.equal(late.code, 0, late.stderr)
  assert.equal(s1.text('a.txt'), 'one\nTWO\nthree\n')

  // A regular file as stdin.
  const s2 = setup(t)
  const file = join(s2.state, 'p.txt')
  writeFileSync(file, ENVELOPE)
  const fd = openSync(file, 'r')
  t.after(() => closeSync(fd))
  const fromFile = await run(BIN, ['apply', '--root', s2.root], { state: s2.state, stdin: fd })
  assert.equal(fromFile.code, 0, fromFile.stderr)
  assert.equal(s2.text('a.txt'), 'one\nTWO\nthree\n')

  // Nothing on stdin: refused by the engine (no format), exit 1, nothing written.
  const s3 = setup(t)
  const empty = await run(BIN, ['apply', '--root', s3.root], { state: s3.state, stdin: 'ignore' })
  assert.equal(empty.code, 1, empty.stderr)
  assert.match(empty.stderr, /^PARSE_ERROR: /)
  assert.equal(s3.text('a.txt'), 'one\ntwo\nthree\n')
})

test('a patch that is not UTF-8 is refused (exit 2, offset and line named), on stdin, as FILE, as the argument', { timeout: 60_000 }, async (t) => {
  // "é" in Latin-1 (0xE9) on an added line: line 6, byte offset 56.
  const head = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+caf'
  const latin1 = Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from('\n three\n*** End Patch\n')])
  assert.equal(Buffer.byteLength(head), 56)
  const want = /not UTF-8: byte 0xE9 at offset 56 \(line 6\).*nothing was written/

  const s = setup(t)
  const onStdin = await run(BIN, ['apply', '--root', s.root], { state: s.state, input: latin1 })
  assert.equal(onStdin.code, 2, onStdin.stderr)
  assert.match(onStdin.stderr, want)
  assert.equal(onStdin.stderr.trimEnd().split('\n').length, 1, 'one line')
  const viaApplyPatch = await run(APPLY_PATCH, ['--root', s.root], { state: s.state, input: latin1 })
  assert.equal(viaApplyPatch.code, 2, viaApplyPatch.stderr)
  assert.match(viaApplyPatch.stderr, want)

  const file = join(s.state, 'latin1.patch')
  writeFileSync(file, latin1)
  const asFile = await run(BIN, ['apply', '--root', s.root, file], { state: s.state, stdin: 'ignore' })
  assert.equal(asFile.code, 2, asFile.stderr)
  assert.match(asFile.stderr, new RegExp(`the patch file .*latin1\\.patch is ${want.source}`))

  // Bytes that no shell quoting changes: the patch as apply_patch's one argument.
  if (posix) {
    writeFileSync(join(s.state, 'arg.patch'), latin1)
    const asArg = sh(`"$NODE" "$APPLY_PATCH" --root "${s.root}" "$(cat "${join(s.state, 'arg.patch')}")"`, { state: s.state })
    assert.equal(asArg.code, 2, asArg.stderr)
    assert.match(asArg.stderr, /the patch argument is not UTF-8/)
  }
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
  assert.deepEqual(readdirSync(s.root), ['a.txt'])

  // Truncated and overlong sequences, a lone surrogate's encoding, a BOM: the offset of each.
  const { decodePatch, firstInvalidUtf8 } = await import('../cli/main.mjs')
  for (const [bytes, at] of [
    [[0x61, 0xc3], 1],
    [[0x61, 0xc0, 0x80], 1],
    [[0xe2, 0x82, 0x61], 0],
    [[0x61, 0x62, 0xed, 0xa0, 0x80], 2],
    [[0xf4, 0x90, 0x80, 0x80], 0],
    [[0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff], 9],
  ]) {
    assert.equal(firstInvalidUtf8(Buffer.from(bytes)), at, JSON.stringify(bytes))
    assert.throws(() => decodePatch(Buffer.from(bytes), 'x'), new RegExp(`at offset ${at} `))
  }
  assert.equal(decodePatch(Buffer.from('\uFEFFé€😀\n'), 'x'), '\uFEFFé€😀\n', 'valid UTF-8 and a BOM are kept')

  // Valid UTF-8 (an "é" of two bytes, a real U+FFFD) is still applied byte for byte.
  const s2 = setup(t)
  const utf8 = `${head}é \uFFFD\n three\n*** End Patch\n`
  const ok = await run(BIN, ['apply', '--root', s2.root], { state: s2.state, input: utf8 })
  assert.equal(ok.code, 0, ok.stderr)
  assert.deepEqual(s2.bytes('a.txt'), Buffer.from('one\ncafé \uFFFD\nthree\n'))
})

test('surepatch undo with an empty EDIT_ID is a usage error: exit 2, one line', { timeout: 30_000 }, async (t) => {
  const s = setup(t)
  for (const args of [['undo', ''], ['undo', '', '--json']]) {
    const r = await run(BIN, [...args, '--root', s.root], { state: s.state, stdin: 'ignore' })
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, /^surepatch undo: undo needs EDIT_ID .*\(see surepatch undo --help\)\n$/)
    assert.equal(r.stdout, '')
  }
  assert.equal(s.text('a.txt'), 'one\ntwo\nthree\n')
})
