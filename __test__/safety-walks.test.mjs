// Issue #26 §1 and §4: the walks over hostile repository content (ignore files that are FIFOs or
// links to /dev/zero, `.git` named as a path, huge files and lines), moveFile of a symlink, and the
// stale-temp sweep beside a user's look-alike file.
//
// A call that blocks on a FIFO keeps a thread of the pool for good, and one that reads /dev/zero
// allocates until the process dies; so the hostile calls run in a child process, killed after
// CHILD_LIMIT_MS (and by itself past RSS_LIMIT_MB), and the test fails instead of hanging.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sp, workspace } from './helpers.mjs'

const INDEX = fileURLToPath(new URL('../index.js', import.meta.url))
const CHILD_LIMIT_MS = 5000
const RSS_LIMIT_MB = 1000

const unix = process.platform !== 'win32'
const hasMkfifo = unix && spawnSync('mkfifo', ['--version']).error === undefined
const skipFifo = hasMkfifo ? false : `${process.platform}: FIFOs (mkfifo) do not exist here`
const skipLinks = unix ? false : 'win32: no /dev/zero, and symlinks need a privilege'

function mkfifo(path) {
  const r = spawnSync('mkfifo', [path])
  assert.equal(r.status, 0, String(r.stderr))
}

function write(ws, rel, data) {
  mkdirSync(join(ws.root, rel, '..'), { recursive: true })
  writeFileSync(ws.path(rel), data)
}

// Runs `body` (the text of an async function of `sp` and `root` returning a JSON-able value) in a
// child process. Resolves to {ok: true, value, rssGrowthMb, ms} or {ok: false, why}: killed after
// CHILD_LIMIT_MS, or stopped by itself when its RSS passes RSS_LIMIT_MB.
function inChild(root, body) {
  const code = `
    const sp = require(${JSON.stringify(INDEX)})
    const root = ${JSON.stringify(root)}
    const mb = () => process.memoryUsage().rss / 2 ** 20
    const before = mb()
    setInterval(() => { if (mb() > ${RSS_LIMIT_MB}) { console.log(JSON.stringify({ why: 'rss above ${RSS_LIMIT_MB} MB' })); process.exit(3) } }, 20).unref()
    const t0 = Date.now()
    ;(async (sp, root) => { ${body} })(sp, root).then((value) => {
      console.log(JSON.stringify({ value, ms: Date.now() - t0, rssGrowthMb: Math.round(mb() - before) }))
      process.exit(0)
    })
  `
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      const last = out.trim().split('\n').pop() || '{}'
      const parsed = JSON.parse(last)
      if (status === 0) resolve({ ok: true, ...parsed })
      else resolve({ ok: false, why: parsed.why || `killed (${signal}) after ${CHILD_LIMIT_MS} ms without an answer` })
    })
  })
}

// Three walks, each four times at once (libuv's pool has four threads): each call's time and result.
const WALKS = `
  const timed = async (f) => { const t = Date.now(); const r = await f(); return { ms: Date.now() - t, r } }
  const calls = []
  for (let i = 0; i < 4; i++) {
    calls.push(timed(() => sp.listDirectory('.', { workspace_root: root, depth: 5 })))
    calls.push(timed(() => sp.findFiles('*.txt', { workspace_root: root })))
    calls.push(timed(() => sp.searchFiles('needle', { workspace_root: root })))
  }
  return Promise.all(calls)
`

function checkWalks(t, label, res, skipped) {
  assert.equal(res.ok, true, `${label}: ${res.why}`)
  const times = res.value.map((c) => c.ms)
  for (const { r } of res.value) {
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.deepEqual(r.skipped_ignore_files, skipped)
  }
  const max = Math.max(...times)
  assert.ok(max < 1000, `${label}: the slowest of 12 calls took ${max} ms`)
  t.diagnostic(`${label}: 12 calls (3 walks × 4 at once) answered, slowest ${max} ms; RSS +${res.rssGrowthMb} MB; skipped ${JSON.stringify(skipped)}`)
  return res.value
}

test('ignore files that are FIFOs (sub/.gitignore, .git/info/exclude) do not block the walks', { skip: skipFifo }, async (t) => {
  const ws = workspace(t)
  write(ws, 'sub/a.txt', 'needle\n')
  write(ws, 'b.txt', 'needle\n')
  mkdirSync(ws.path('.git/info'), { recursive: true })
  mkfifo(ws.path('sub/.gitignore'))
  mkfifo(ws.path('.git/info/exclude'))
  // Data files that are a FIFO and a link to a device are never opened by a search either.
  mkfifo(ws.path('sub/pipe.txt'))
  symlinkSync('/dev/zero', ws.path('zero.txt'))
  const res = await inChild(ws.root, WALKS)
  const calls = checkWalks(t, 'FIFOs', res, [
    { path: '.git/info/exclude', reason: 'not_regular_file' },
    { path: 'sub/.gitignore', reason: 'not_regular_file' },
  ])
  const find = calls[1].r
  assert.deepEqual(find.files, ['b.txt', 'sub/a.txt', 'sub/pipe.txt', 'zero.txt'])
  const search = calls[2].r
  assert.deepEqual(search.results.map((f) => f.file_path), ['b.txt', 'sub/a.txt'])
  assert.equal(search.files_searched, 2)
  // Named as the path to search: refused, not opened.
  const named = await inChild(ws.root, `
    return [await sp.searchFiles('x', { workspace_root: root, path: 'sub/pipe.txt' }),
            await sp.searchFiles('x', { workspace_root: root, path: 'zero.txt' })]
  `)
  assert.equal(named.ok, true, named.why)
  assert.deepEqual(named.value.map((r) => r.code), ['INVALID_INPUT', 'PATH_OUTSIDE_WORKSPACE'])
})

test('ignore files that are links to /dev/zero, or above 1 MiB, are skipped: answered at once, memory flat', { skip: skipLinks }, async (t) => {
  const ws = workspace(t)
  write(ws, 'sub/a.txt', 'needle\n')
  write(ws, 'big/c.txt', 'needle\n')
  write(ws, 'big/.gitignore', 'c.txt\n' + '#'.repeat(1 << 20))
  write(ws, 'ok/.gitignore', 'hidden.txt\n')
  write(ws, 'ok/hidden.txt', 'needle\n')
  mkdirSync(ws.path('.git/info'), { recursive: true })
  symlinkSync('/dev/zero', ws.path('sub/.ignore'))
  symlinkSync('/dev/zero', ws.path('.git/info/exclude'))
  const res = await inChild(ws.root, WALKS)
  const calls = checkWalks(t, '/dev/zero links and a 1 MiB + 7 B file', res, [
    { path: '.git/info/exclude', reason: 'symlink' },
    { path: 'big/.gitignore', reason: 'too_large' },
    { path: 'sub/.ignore', reason: 'symlink' },
  ])
  assert.ok(res.rssGrowthMb < 100, `RSS grew by ${res.rssGrowthMb} MB`)
  // The regular ignore file still applies; the rules of the skipped ones do not.
  assert.deepEqual(calls[1].r.files, ['big/c.txt', 'sub/a.txt'])
})

test('.git is never listed or searched: named as a path, below it, or through a symlink', async (t) => {
  const ws = workspace(t)
  write(ws, '.git/config', '[remote] token = secret\n')
  write(ws, '.git/info/exclude', '')
  write(ws, 'a.txt', 'secret\n')
  const paths = ['.git', '.git/', '.git/info', '.git/config']
  if (unix) {
    symlinkSync('.git', ws.path('gitlink'))
    paths.push('gitlink', 'gitlink/config')
  }
  let n = 0
  for (const p of paths) {
    for (const r of [
      await sp.listDirectory(p, ws.opts()),
      await sp.findFiles('*', ws.opts({ path: p, include_hidden: true })),
      await sp.searchFiles('secret', ws.opts({ path: p, include_hidden: true })),
    ]) {
      assert.equal(r.ok, false, `${p}: ${JSON.stringify(r)}`)
      assert.equal(r.code, 'INVALID_INPUT')
      assert.equal(r.reason, 'git_dir')
      assert.match(r.message, /never listed or searched/)
      n++
    }
  }
  const all = await sp.searchFiles('secret', ws.opts({ include_hidden: true, include_ignored: true }))
  assert.deepEqual(all.results.map((f) => f.file_path), ['a.txt'])
  t.diagnostic(`${n} calls naming .git (${paths.length} paths × 3 walks): all INVALID_INPUT, reason git_dir`)
})

test('searchFiles honours max_file_bytes and caps a line at 4 MiB', async (t) => {
  const ws = workspace(t)
  write(ws, 'small.txt', 'needle\n')
  write(ws, 'big.txt', 'needle\n' + 'y'.repeat(5000))
  // A 6 MiB line, with a match before it and one after.
  write(ws, 'long.txt', 'needle\n' + 'x'.repeat(6 * 2 ** 20) + '\nneedle\n')
  const r = await sp.searchFiles('needle', ws.opts({ max_file_bytes: 4000 }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.results.map((f) => f.file_path), ['small.txt'])
  assert.equal(r.files_too_large, 2)
  assert.equal(r.files_searched, 1)
  assert.match(r.skipped_hint, /2 file\(s\) larger than max_file_bytes \(4000 bytes\)/)
  const r2 = await sp.searchFiles('needle', ws.opts())
  assert.deepEqual(r2.results.map((f) => [f.file_path, f.matches.map((m) => m.line_number)]), [
    ['big.txt', [1]], ['long.txt', [1]], ['small.txt', [1]],
  ])
  assert.equal(r2.files_with_overlong_lines, 1)
  assert.equal(r2.files_too_large, undefined)
  assert.equal(r2.files_unreadable, undefined)
  assert.match(r2.skipped_hint, /line longer than 4194304 bytes/)
  const one = await sp.searchFiles('needle', ws.opts({ path: 'big.txt', max_file_bytes: 100 }))
  assert.deepEqual([one.files_searched, one.files_too_large], [0, 1])
  t.diagnostic('max_file_bytes 4000: 2 of 3 files not searched (files_too_large: 2); a 6 MiB line stops its file (files_with_overlong_lines: 1), the match before it kept')
})

test('moveFile of a symlink refuses: the link, its target and the new path are left as they were', { skip: skipLinks }, async (t) => {
  const ws = workspace(t)
  write(ws, 'real.txt', 'real\n')
  symlinkSync('real.txt', ws.path('link.txt'))
  for (const to of ['moved.txt', 'sub/moved.txt']) {
    const r = await sp.moveFile('link.txt', to, ws.opts())
    assert.equal(r.ok, false, JSON.stringify(r))
    assert.equal(r.code, 'INVALID_INPUT')
    assert.equal(r.reason, 'symlink')
    assert.equal(r.file_path, 'link.txt')
    assert.equal(r.resolved, 'real.txt')
    assert.equal(ws.text('real.txt'), 'real\n')
    assert.ok(lstatSync(ws.path('link.txt')).isSymbolicLink())
    assert.equal(readlinkSync(ws.path('link.txt')), 'real.txt')
    assert.equal(existsSync(ws.path('moved.txt')) || existsSync(ws.path('sub')), false)
  }
  // The file itself moves, and the receipt names it.
  const ok = await sp.moveFile('real.txt', 'moved.txt', ws.opts())
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.deepEqual([ok.file_path, ok.moved_to], ['real.txt', 'moved.txt'])
})

test("the stale-temp sweep leaves a user's look-alike file and removes only its own leftovers", async (t) => {
  const ws = workspace(t)
  write(ws, 'a.txt', 'one\n')
  const mine = '.notes.surepatch-2024-01.tmp'
  const orphan = '.a.txt.surepatch-12345-00000000deadbeef.tmp'
  write(ws, mine, 'my notes\n')
  write(ws, orphan, 'leftover')
  const old = new Date(Date.now() - 11 * 60 * 1000)
  for (const f of [mine, orphan]) utimesSync(ws.path(f), old, old)
  const r = await sp.patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, ws.opts())
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(ws.text(mine), 'my notes\n')
  assert.equal(existsSync(ws.path(orphan)), false, 'the stale leftover of the engine is swept')
  assert.deepEqual(ws.files(), [mine, 'a.txt'])
})
