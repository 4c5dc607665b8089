// surepatch benchmarks (P1–P5 of the performance issue). `npm run bench` builds the addon, then runs
// this file, which writes bench/results.json and bench/RESULTS.md and prints the Markdown table.
//
//   node --expose-gc bench/run.mjs [--quick] [--only=P1,P3] [--cargo-bench] [--no-cargo]
//
//   --quick        small sizes and few runs (a smoke test; numbers are not meaningful)
//   --only=...     run only the listed parts (P1, P2, P3, P3-throughput, P3-lag, P4, P5, P6)
//   --cargo-bench  also run the whole criterion suite (`cargo bench --bench engine`, slow) and
//                  include its estimates
//   --no-cargo     never run cargo (P5 falls back to whatever criterion results already exist)
//   --out=DIR      write results.json and RESULTS.md to DIR instead of bench/
//
// Method: every measurement is repeated; medians and p90 are reported. Implementations are measured
// round-robin (run 1 of each, then run 2 of each, ...) so that a change in machine load hits them
// alike, and every ratio compares medians measured in this same run. Each implementation edits its own
// copy of the file; odd runs undo the previous run's edit, so every run does the same amount of work.
// Generated data lives in os.tmpdir() and is removed at the end.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { jsEdit, nodeFloor } from './js-baseline.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
const require = createRequire(import.meta.url)
const lib = require('../index.js')

const argv = process.argv.slice(2)
const QUICK = argv.includes('--quick')
const CARGO_BENCH = argv.includes('--cargo-bench')
const NO_CARGO = argv.includes('--no-cargo')
const OUT = (argv.find((a) => a.startsWith('--out=')) || '').slice(6) || null
const ONLY = (argv.find((a) => a.startsWith('--only=')) || '').slice(7).split(',').filter(Boolean)
const want = (p) => ONLY.length === 0 || ONLY.includes(p)
const MiB = 1 << 20
const started = Date.now()

// ---------------------------------------------------------------------------------------------------
// Helpers

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]
  return { runs: s.length, median: median(s), p90: q(0.9), min: s[0], max: s[s.length - 1] }
}
function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const r2 = (x) => (x == null || Number.isNaN(x) ? null : Math.round(x * 100) / 100)
const r3 = (x) => (x == null || Number.isNaN(x) ? null : Math.round(x * 1000) / 1000)
const gc = () => globalThis.gc && globalThis.gc()
// After a forced gc(), V8 keeps marking and sweeping on its helper threads for a few milliseconds; on
// a 2-core machine those threads compete with the edit that is timed next (with the libuv thread the
// addon runs on, most of all). Timed runs start after this pause, so they measure the edit, not the
// tail of the bench's own collection.
// Before that pause, `sync` writes out the dirty pages every implementation left (the MCP server's
// writes are not fsynced): else the next implementation's fsync would pay for writing them (ext4
// commits them with its journal), whichever implementation comes next in the round.
const settle = () => {
  spawnSync('sync', [], { stdio: 'ignore' })
  return new Promise((resolve) => setTimeout(resolve, 5))
}
function log(...a) {
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${a.join(' ')}\n`)
}
function sh(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts }).trim()
  } catch (e) {
    return null
  }
}

/** Code-like text of about `bytes` bytes, every line unique (the same generator as benches/engine.rs). */
function code(bytes) {
  const parts = []
  let len = 0
  for (let i = 0; len < bytes; i++) {
    let l
    switch (i % 8) {
      case 0: l = `fn handler_${i}(req: &Request) -> Result<Response> {\n`; break
      case 1: l = `    let value_${i} = compute(${i}, "item-${i}")?;\n`; break
      case 2: l = `    if value_${i - 1} > LIMIT_${i} {\n`; break
      case 3: l = `        log::warn!("over limit at ${i}: {}", value_${i - 2});\n`; break
      case 4: l = '    }\n'; break
      case 5: l = `    let out_${i} = render(&value_${i - 4}, ${i});\n`; break
      case 6: l = `    Ok(Response::new(out_${i - 1}))\n`; break
      default: l = '}\n'
    }
    parts.push(l)
    len += l.length
  }
  return parts.join('')
}

/** The 3-line block starting at the first `let value_` line at or after the middle of `text`. */
function middleBlock(text) {
  const at = text.indexOf('    let value_', text.length >> 1)
  let end = at
  for (let k = 0; k < 3; k++) end = text.indexOf('\n', end) + 1
  return text.slice(at, end)
}

const tmpRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'surepatch-bench-')))
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }))
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => process.exit(130))
}
function workdir(name) {
  const d = path.join(tmpRoot, name)
  fs.mkdirSync(d, { recursive: true })
  return d
}

// ---------------------------------------------------------------------------------------------------
// The Rust driver (examples/bench_driver.rs): the Rust I/O floor and the engine without Node.

const driver = path.join(repo, 'target', 'release', 'examples', 'bench_driver')
function buildDriver() {
  if (NO_CARGO && fs.existsSync(driver)) return
  log('cargo build --release --example bench_driver')
  const r = spawnSync('cargo', ['build', '--release', '--example', 'bench_driver'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
  if (r.status !== 0) throw new Error('building examples/bench_driver failed')
}
function drive(...args) {
  const out = execFileSync(driver, args.map(String), { encoding: 'utf8', maxBuffer: 1 << 26 })
  return JSON.parse(out)
}

// ---------------------------------------------------------------------------------------------------
// The MCP reference server's edit function, if it can be imported.

async function loadMcp() {
  const info = { package: '@modelcontextprotocol/server-filesystem' }
  let pkgJson
  try {
    pkgJson = require.resolve('@modelcontextprotocol/server-filesystem/package.json')
  } catch (e) {
    try {
      // The package may not export ./package.json; find it on disk instead.
      pkgJson = path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'package.json')
      if (!fs.existsSync(pkgJson)) throw e
    } catch {
      info.available = false
      info.reason = 'not installed (it is a devDependency: run npm install)'
      return info
    }
  }
  const pkg = JSON.parse(fs.readFileSync(pkgJson, 'utf8'))
  info.version = pkg.version
  const dir = path.dirname(pkgJson)
  const libFile = path.join(dir, 'dist', 'lib.js')
  if (!fs.existsSync(libFile)) {
    info.available = false
    info.reason = `version ${pkg.version} has no dist/lib.js; its edit logic is not exported as a function`
    return info
  }
  // Import by file URL: the package declares no "exports", and its "main"/"bin" is the server
  // itself (which starts listening on stdio when imported), so the library module is loaded directly.
  try {
    const m = await import(pathToFileURL(libFile).href)
    if (typeof m.applyFileEdits !== 'function') {
      info.available = false
      info.reason = `dist/lib.js of version ${pkg.version} exports no applyFileEdits (exports: ${Object.keys(m).join(', ')})`
      return info
    }
    if (typeof m.setAllowedDirectories === 'function') m.setAllowedDirectories([tmpRoot])
    info.available = true
    info.imported = 'applyFileEdits(filePath, [{oldText, newText}], dryRun) from dist/lib.js'
    info.fn = m.applyFileEdits
    return info
  } catch (e) {
    info.available = false
    info.reason = `importing dist/lib.js failed: ${e.message}`
    return info
  }
}

// ---------------------------------------------------------------------------------------------------
// Machine

function machine() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8')
  const model = (cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model
  const flags = (cpuinfo.match(/^flags\s*:\s*(.*)$/m) || [])[1] || ''
  const osRelease = fs.existsSync('/etc/os-release') ? fs.readFileSync('/etc/os-release', 'utf8') : ''
  const pretty = (osRelease.match(/^PRETTY_NAME="?(.*?)"?$/m) || [])[1] || os.type()
  const df = sh('df', ['-T', os.tmpdir()])
  const fstype = df ? df.split('\n')[1]?.split(/\s+/)[1] : null
  return {
    cpu: model,
    simd: ['sse4_2', 'avx2', 'avx512f'].filter((f) => flags.split(' ').includes(f)),
    cores: os.cpus().length,
    ram_gib: r2(os.totalmem() / 2 ** 30),
    os: `${pretty}, Linux ${os.release()}`,
    node: process.version,
    rustc: sh('rustc', ['--version']),
    tmpdir: os.tmpdir(),
    tmpdir_fs: fstype,
    uv_threadpool_size: Number(process.env.UV_THREADPOOL_SIZE) || 4,
    loadavg_start: os.loadavg().map(r2),
    note: 'virtual machine shared with other jobs; no hardware performance counters',
  }
}

// ---------------------------------------------------------------------------------------------------
// P1: one exact edit in the middle of 1 KB, 1 MB and 100 MB files.

async function p1(mcp) {
  const sizes = QUICK
    ? [['1KB', 1024, 5], ['1MB', MiB, 5], ['10MB', 10 * MiB, 3]]
    : [['1KB', 1024, 31], ['1MB', MiB, 31], ['100MB', 100 * MiB, 7]]
  const out = []
  for (const [label, size, runs] of sizes) {
    log(`P1 ${label}: generating`)
    const dir = workdir(`p1-${label}`)
    const text = code(size)
    const A = middleBlock(text)
    const B = A.replace('compute(', 'compute_checked(')
    const aFile = path.join(dir, 'search.txt')
    const bFile = path.join(dir, 'replace.txt')
    fs.writeFileSync(aFile, A)
    fs.writeFileSync(bFile, B)
    const impls = [
      { id: 'surepatch', name: 'surepatch patchFile (Node API)' },
      { id: 'engine_rust', name: 'surepatch engine, Rust api::call (no Node)' },
      { id: 'floor_rust', name: 'I/O floor, Rust' },
      { id: 'floor_node', name: 'I/O floor, Node' },
      { id: 'js_baseline', name: 'plain-JS baseline' },
    ]
    // The MCP server diffs the whole file (about 20 s and 2 GB at 100 MB): at most 3 runs there.
    if (mcp.available) impls.push({ id: 'mcp', name: `MCP server-filesystem applyFileEdits ${mcp.version}`, maxRuns: size > 10 * MiB ? 3 : runs })
    for (const im of impls) {
      im.file = path.join(dir, `${im.id}.rs`)
      fs.writeFileSync(im.file, text)
      im.n = 0
      im.times = []
    }
    const one = async (im) => {
      const [s, r] = im.n % 2 === 0 ? [A, B] : [B, A]
      const [sf, rf] = im.n % 2 === 0 ? [aFile, bFile] : [bFile, aFile]
      im.n++
      let t, res
      switch (im.id) {
        case 'surepatch':
          t = performance.now()
          res = await lib.patchFile({ filePath: im.file, searchBlock: s, replaceBlock: r }, { workspaceRoot: dir })
          t = performance.now() - t
          if (!res.ok) throw new Error(`surepatch failed: ${res.code} ${res.message}`)
          return t
        case 'engine_rust':
          return drive('edit', dir, im.file, sf, rf, 1).times_ms[0]
        case 'floor_rust':
          return drive('floor', im.file, 1).times_ms[0]
        case 'floor_node':
          t = performance.now()
          await nodeFloor(im.file)
          return performance.now() - t
        case 'js_baseline':
          t = performance.now()
          res = await jsEdit(im.file, s, r)
          t = performance.now() - t
          if (!res.ok) throw new Error(`js baseline failed: ${res.code}`)
          return t
        case 'mcp':
          t = performance.now()
          await mcp.fn(im.file, [{ oldText: s, newText: r }], false)
          return performance.now() - t
      }
    }
    // One warm-up run each (page cache, JIT), then the measured runs round-robin.
    for (const im of impls) {
      gc()
      await settle()
      await one(im)
    }
    for (let k = 0; k < runs; k++) {
      // Each round starts one implementation later, so that none always follows the same one.
      for (const im of impls.map((_, j) => impls[(j + k) % impls.length])) {
        if (im.maxRuns != null && im.times.length >= im.maxRuns) continue
        gc()
        await settle()
        im.times.push(await one(im))
      }
      log(`P1 ${label}: run ${k + 1}/${runs}`)
    }
    // Every copy must hold the same text at the end (each did the same number of toggles).
    const states = [text, text.replace(A, B)]
    for (const im of impls) {
      if (fs.readFileSync(im.file, 'utf8') !== states[im.n % 2]) throw new Error(`${im.id} left unexpected content`)
    }
    const row = { size: label, bytes: Buffer.byteLength(text), runs, impls: {} }
    for (const im of impls) row.impls[im.id] = { name: im.name, ...mapStats(stats(im.times)), times_ms: im.times.map(r3) }
    const m = (id) => row.impls[id]?.median_ms
    row.ratios = {
      surepatch_vs_floor_rust: r2(m('surepatch') / m('floor_rust')),
      surepatch_vs_floor_node: r2(m('surepatch') / m('floor_node')),
      engine_rust_vs_floor_rust: r2(m('engine_rust') / m('floor_rust')),
      surepatch_minus_engine_rust_ms: r3(m('surepatch') - m('engine_rust')),
      js_baseline_vs_surepatch: r2(m('js_baseline') / m('surepatch')),
      mcp_vs_surepatch: mcp.available ? r2(m('mcp') / m('surepatch')) : null,
    }
    out.push(row)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return out
}
function mapStats(s) {
  return { runs: s.runs, median_ms: r3(s.median), p90_ms: r3(s.p90), min_ms: r3(s.min), max_ms: r3(s.max) }
}

// ---------------------------------------------------------------------------------------------------
// P2: search blocks that miss, with the candidate search.

function missCases() {
  const lines = code(8 * MiB).split(/(?<=\n)/).slice(0, QUICK ? 20_000 : 100_000).join('')
  const at = lines.indexOf('fn handler_', lines.length >> 1)
  const block = lines.slice(at).split(/(?<=\n)/).slice(0, 7).join('')
  const typo = block.replace('compute(', 'compte(')
  const short = block.split(/(?<=\n)/).slice(1, 3).join('').replace('compute(', 'compte(')
  let rep = ''
  const parts = []
  for (let i = 0; i < 20_000; i++) parts.push(`    return None\n    x_${i} = y_${i} + 1\n    z_${i} = x_${i} * 2\n`)
  rep = parts.join('')
  const repNeedle = '    return None\n    x_10000 = y_10000 + 2\n    z_10000 = x_10000 * 2\n'
  const one = []
  let len = 0
  for (let i = 0; len < MiB; i++) {
    const s = `var a${i}=f(${i},"s${i}");`
    one.push(s)
    len += s.length
  }
  // Nothing shared: 20 lines of words that occur nowhere in a 1,000-line file of other words, so no line
  // and no trigram votes and every window is a candidate (deterministic pseudo-random words).
  let seed = 7
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const word = () => Array.from({ length: 3 + Math.floor(rnd() * 7) }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join('')
  const wordLine = () => Array.from({ length: 6 }, word).join(' ')
  const unshared = Array.from({ length: 1000 }, wordLine).join('\n') + '\n'
  const unsharedNeedle = Array.from({ length: 20 }, () => 'q' + wordLine()).join('\n') + '\n'
  const expectLine = lines.slice(0, at).split('\n').length
  // The worst shapes for the line search and the candidates (issue #16 §5): each ≤ 200 ms through Node.
  // Only the 100,000-line file is cut to 20,000 lines by --quick.
  const fileLines = lines.split(/(?<=\n)/)
  const mid = fileLines.length >> 1
  // One token changed in the first line at or after `i` that has one of these tokens.
  const stale = (block, i) => {
    block = block.slice()
    const re = /compute\(|render\(|value_|\}/
    while (!re.test(block[i])) i++
    block[i] = block[i].replace(re, 'XX')
    return block.join('')
  }
  const block20k = []
  for (let i = mid, len = 0; len < 20_000; i++) {
    block20k.push(fileLines[i])
    len += fileLines[i].length
  }
  const same = '    x = 1\n'.repeat(100_000)
  const shortLines = Array.from({ length: 100_000 }, (_, i) => `t${i % 5000}\n`).join('')
  const scrambled = Array.from({ length: 5000 }, (_, j) => `t${(j * 7919) % 5000}\n`).join('')
  const periodic = 'a'.repeat(MiB)
  const hostile = [
    { id: 'hostile_block_20KB', name: `hostile: 20 KB block (${block20k.length} lines) from the middle, one token changed`, text: lines, needle: stale(block20k, block20k.length - 3), expectLine: mid + 1 },
    { id: 'hostile_lines_500', name: 'hostile: 500-line block from the middle, one token changed', text: lines, needle: stale(fileLines.slice(mid, mid + 500), 250), expectLine: mid + 1 },
    { id: 'hostile_identical_x500', name: 'hostile: 100,000 identical indented lines, 500 of them unindented (ambiguous ×99,501)', text: same, needle: 'x = 1\n'.repeat(500), code: 'SEARCH_BLOCK_AMBIGUOUS', expectLine: null },
    { id: 'hostile_identical_x500_exact', name: 'hostile: 100,000 identical lines, 500 of them exactly (ambiguous ×99,501)', text: same, needle: '    x = 1\n'.repeat(500), code: 'SEARCH_BLOCK_AMBIGUOUS', expectLine: null, js: false },
    { id: 'hostile_identical_last_missing', name: 'hostile: 100,000 identical lines, 499 of them + one that is not there', text: same, needle: 'x = 1\n'.repeat(499) + 'x = 2\n', expectLine: 1 },
    { id: 'hostile_short_lines_scrambled', name: 'hostile: 5,000-line needle of short lines that all occur, in no order (100,000 lines)', text: shortLines, needle: scrambled, expectLine: null },
    { id: 'hostile_1MB_periodic', name: 'hostile: 1 MB line of `a`, needle 20,000 `a` (ambiguous ×1,028,577)', text: periodic, needle: 'a'.repeat(20_000), code: 'SEARCH_BLOCK_AMBIGUOUS', expectLine: null, js: false },
    { id: 'hostile_1MB_periodic_miss', name: 'hostile: 1 MB line of `a`, needle 20,000 `a` + `b`', text: periodic, needle: 'a'.repeat(20_000) + 'b', expectLine: 1, js: false },
  ].map((c) => ({ goal_ms: 200, ...c }))
  return [
    { id: '100k_lines_block', name: '100,000 lines, 7-line block with one typo', text: lines, needle: typo, expectLine, goal_ms: 30 },
    { id: '100k_lines_short', name: '100,000 lines, 2-line block with one typo (trigram votes)', text: lines, needle: short, expectLine: expectLine + 1 },
    { id: 'first_line_x20000', name: 'first line occurs 20,000 times (60,000 lines)', text: rep, needle: repNeedle, expectLine: 30_001 },
    { id: 'nothing_shared_1000', name: '20-line block sharing no line with a 1,000-line file (every window a candidate)', text: unshared, needle: unsharedNeedle, expectLine: null },
    { id: '1MB_single_line', name: '1 MB single-line file (minified)', text: one.join(''), needle: 'var a5000=f(5000,"s5001");', expectLine: 1 },
    ...hostile,
  ]
}

async function p2() {
  const runs = QUICK ? 5 : 15
  const out = []
  for (const c of missCases()) {
    log(`P2 ${c.id}`)
    const dir = workdir(`p2-${c.id}`)
    const file = path.join(dir, 'f.txt')
    const jsFile = path.join(dir, 'js.txt')
    const needleFile = path.join(dir, 'needle.txt')
    fs.writeFileSync(file, c.text)
    fs.writeFileSync(jsFile, c.text)
    fs.writeFileSync(needleFile, c.needle)
    fs.writeFileSync(needleFile + '.new', 'replacement\n')
    const sp = []
    const js = []
    let last
    const code = c.code || 'SEARCH_BLOCK_NOT_FOUND'
    const run = async () => {
      let t = performance.now()
      last = await lib.patchFile({ filePath: file, searchBlock: c.needle, replaceBlock: 'replacement\n' }, { workspaceRoot: dir })
      t = performance.now() - t
      if (last.ok || last.code !== code) throw new Error(`expected ${code}, got ${JSON.stringify(last).slice(0, 300)}`)
      // The JS baseline's overlapping indexOf loop is quadratic on periodic needles: not run there.
      if (c.js === false) return [t, null]
      let u = performance.now()
      const r = await jsEdit(jsFile, c.needle, 'replacement\n')
      u = performance.now() - u
      if (r.ok) throw new Error('js baseline found the needle')
      return [t, u]
    }
    await run()
    for (let k = 0; k < runs; k++) {
      gc()
      const [t, u] = await run()
      sp.push(t)
      if (u != null) js.push(u)
    }
    // The pure engine (in memory, no I/O, no JSON) and the engine through api::call with I/O, in Rust.
    const eng = drive('apply', file, needleFile, needleFile + '.new', runs)
    const api = drive('miss', dir, file, needleFile, runs, code)
    const cands = last.candidates || []
    out.push({
      case: c.id,
      name: c.name,
      bytes: Buffer.byteLength(c.text),
      lines: c.text.split('\n').length - (c.text.endsWith('\n') ? 1 : 0),
      needle_lines: c.needle.split('\n').filter((l, i, a) => i < a.length - 1 || l).length,
      surepatch: mapStats(stats(sp)),
      engine_rust_api: mapStats(stats(api.times_ms)),
      engine_pure: mapStats(stats(eng.times_ms)),
      js_baseline_no_candidates: js.length ? mapStats(stats(js)) : { runs: 0, median_ms: null },
      code,
      goal_ms: c.goal_ms ?? null,
      pass: c.goal_ms ? stats(sp).median <= c.goal_ms : null,
      candidates: cands.length,
      nearest: cands[0] ? { start_line: cands[0].start_line, end_line: cands[0].end_line, similarity: cands[0].similarity } : null,
      nearest_is_the_edited_region: c.expectLine == null ? null : cands[0] ? cands[0].start_line === c.expectLine : false,
    })
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return out
}

// ---------------------------------------------------------------------------------------------------
// P6: rewrites whose line diff is as large as the file (the receipt's diff, the rewrite summary and
// the pairing of old and new lines at a tolerance tier are bounded by work; a plain Myers diff of these
// took 62 s, 30 s and 3.3 s).

function rewriteCases(n) {
  const lines = Array.from({ length: n }, (_, i) => `line ${i}`)
  const text = lines.join('\n') + '\n'
  const reversed = lines.slice().reverse().join('\n') + '\n'
  const alternate = lines.map((l, i) => (i % 2 ? `${l}x` : l)).join('\n') + '\n'
  return [
    { id: 'write_reversed', name: 'writeFile: every line, in reverse order', text, call: (f, o) => lib.writeFile(f, reversed, o), want: reversed },
    { id: 'write_alternate', name: 'writeFile: every other line changed', text, call: (f, o) => lib.writeFile(f, alternate, o), want: alternate },
    { id: 'patch_whole_alternate', name: 'patchFile: the whole file as the search block, every other line changed', text, call: (f, o) => lib.patchFile({ filePath: f, searchBlock: text, replaceBlock: alternate }, o), want: alternate },
    // Every line of `old` has a trailing space the file lacks: the trailing-whitespace tier, where
    // changed lines are paired with old ones to keep the file's bytes.
    { id: 'tier_reversed', name: 'applyEdits at the trailing-whitespace tier: every line, in reverse order', text, call: (f, o) => lib.applyEdits(f, [{ old: lines.join(' \n') + ' \n', new: reversed }], o), want: reversed },
  ]
}

// The goal is the growth, not a time: four times the lines should cost about four times as long
// (a quadratic diff would cost sixteen times); 6 leaves room for a noisy machine.
async function p6() {
  const runs = QUICK ? 3 : 7
  const [small, large] = [25_000, 100_000]
  const maxGrowth = 6
  const time = async (c) => {
    const dir = workdir(`p6-${c.id}`)
    const file = path.join(dir, 'f.txt')
    const times = []
    for (let k = 0; k <= runs; k++) {
      fs.writeFileSync(file, c.text)
      gc()
      let t = performance.now()
      const r = await c.call(file, { workspaceRoot: dir })
      t = performance.now() - t
      if (!r.ok) throw new Error(`P6 ${c.id}: ${JSON.stringify(r).slice(0, 300)}`)
      if (fs.readFileSync(file, 'utf8') !== c.want) throw new Error(`P6 ${c.id}: wrong text on disk`)
      if (k > 0) times.push(t)
    }
    fs.rmSync(dir, { recursive: true, force: true })
    return stats(times)
  }
  const smallCases = rewriteCases(small)
  const out = []
  for (const [i, c] of rewriteCases(large).entries()) {
    log(`P6 ${c.id}`)
    const s = await time(smallCases[i])
    const l = await time(c)
    const growth = r2(l.median / s.median)
    out.push({ case: c.id, name: c.name, lines: [small, large], bytes: Buffer.byteLength(c.text), small: mapStats(s), large: mapStats(l), growth, max_growth: maxGrowth, pass: growth <= maxGrowth })
  }
  return out
}

// ---------------------------------------------------------------------------------------------------
// P3: concurrency and event-loop lag.

async function p3throughput() {
  const nFiles = 100
  const perFile = 10
  const runs = QUICK ? 2 : 5
  const dir = workdir('p3')
  const files = Array.from({ length: nFiles }, (_, f) => path.join(dir, `file_${f}.rs`))
  const body = (f) => {
    let s = ''
    for (let j = 0; j < perFile; j++) s += `// section ${j}\nconst MARK_${f}_${j}: u32 = 0;\n` + code(300).replace(/handler_/g, `h${f}_${j}_`)
    return s
  }
  const originals = files.map((_, f) => body(f))
  const edits = []
  for (let j = 0; j < perFile; j++) {
    for (let f = 0; f < nFiles; f++) edits.push({ file: files[f], old: `const MARK_${f}_${j}: u32 = 0;`, new: `const MARK_${f}_${j}: u32 = 1;` })
  }
  const reset = () => files.forEach((p, f) => fs.writeFileSync(p, originals[f]))
  const applied = () => files.reduce((n, p) => n + (fs.readFileSync(p, 'utf8').match(/: u32 = 1;/g) || []).length, 0)
  const sp = (e) => lib.patchFile({ filePath: e.file, searchBlock: e.old, replaceBlock: e.new }, { workspaceRoot: dir })
  const js = (e) => jsEdit(e.file, e.old, e.new)
  const modes = {
    surepatch_parallel: async () => (await Promise.all(edits.map(sp))).filter((r) => r.ok).length,
    surepatch_sequential: async () => {
      let ok = 0
      for (const e of edits) ok += (await sp(e)).ok ? 1 : 0
      return ok
    },
    js_baseline_parallel: async () => (await Promise.all(edits.map(js))).filter((r) => r.ok).length,
    js_baseline_sequential: async () => {
      let ok = 0
      for (const e of edits) ok += (await js(e)).ok ? 1 : 0
      return ok
    },
  }
  const res = {}
  for (const k of Object.keys(modes)) res[k] = { times: [], reported_ok: [], on_disk: [] }
  reset()
  await modes.surepatch_parallel() // warm-up
  for (let r = 0; r < runs; r++) {
    for (const [k, fn] of Object.entries(modes)) {
      reset()
      gc()
      const t = performance.now()
      const ok = await fn()
      res[k].times.push(performance.now() - t)
      res[k].reported_ok.push(ok)
      res[k].on_disk.push(applied())
    }
    log(`P3 throughput: run ${r + 1}/${runs}`)
  }
  const out = { files: nFiles, edits: edits.length, runs, modes: {} }
  for (const [k, v] of Object.entries(res)) {
    const s = stats(v.times)
    out.modes[k] = {
      ...mapStats(s),
      edits_per_s: r2(edits.length / (s.median / 1000)),
      reported_ok_min: Math.min(...v.reported_ok),
      applied_on_disk_min: Math.min(...v.on_disk),
      lost_updates_max: Math.max(...v.reported_ok.map((ok, i) => ok - v.on_disk[i])),
    }
  }
  out.parallel_speedup = r2(out.modes.surepatch_sequential.median_ms / out.modes.surepatch_parallel.median_ms)
  out.js_parallel_speedup = r2(out.modes.js_baseline_sequential.median_ms / out.modes.js_baseline_parallel.median_ms)
  fs.rmSync(dir, { recursive: true, force: true })
  return out
}

/** Samples setInterval(1 ms) drift while `work()` runs; returns the drifts in ms. */
async function lagDuring(work) {
  const drifts = []
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    drifts.push(Math.max(0, now - last - 1))
    last = now
  }, 1)
  await new Promise((r) => setTimeout(r, 20))
  drifts.length = 0
  last = performance.now()
  const t = performance.now()
  await work()
  const ms = performance.now() - t
  clearInterval(timer)
  return { drifts, ms }
}

async function p3lag() {
  const size = QUICK ? 10 * MiB : 100 * MiB
  const runs = QUICK ? 3 : 7
  const dir = workdir('p3lag')
  const text = code(size)
  const A = middleBlock(text)
  const B = A.replace('compute(', 'compute_checked(')
  const spFile = path.join(dir, 'sp.rs')
  const jsFile = path.join(dir, 'js.rs')
  fs.writeFileSync(spFile, text)
  fs.writeFileSync(jsFile, text)
  const floorFile = path.join(dir, 'floor.rs')
  fs.writeFileSync(floorFile, text)
  const res = { idle: [], surepatch: [], floor_node: [], js_baseline: [] }
  let n = 0
  for (let r = 0; r < runs; r++) {
    const [s, t] = n++ % 2 === 0 ? [A, B] : [B, A]
    gc()
    res.idle.push(await lagDuring(() => new Promise((ok) => setTimeout(ok, 200))))
    gc()
    res.surepatch.push(
      await lagDuring(async () => {
        const x = await lib.patchFile({ filePath: spFile, searchBlock: s, replaceBlock: t }, { workspaceRoot: dir })
        if (!x.ok) throw new Error(x.code)
      }),
    )
    gc()
    res.floor_node.push(await lagDuring(() => nodeFloor(floorFile)))
    gc()
    res.js_baseline.push(await lagDuring(() => jsEdit(jsFile, s, t)))
    log(`P3 lag: run ${r + 1}/${runs}`)
  }
  const out = { bytes: Buffer.byteLength(text), runs, interval_ms: 1, goal_max_lag_ms: 5 }
  for (const [k, v] of Object.entries(res)) {
    const maxes = v.map((x) => Math.max(0, ...x.drifts))
    const p90s = v.map((x) => stats(x.drifts.length ? x.drifts : [0]).p90)
    out[k] = {
      max_lag_ms_median: r3(median(maxes)),
      max_lag_ms_worst: r3(Math.max(...maxes)),
      p90_lag_ms_median: r3(median(p90s)),
      samples_median: median(v.map((x) => x.drifts.length)),
      edit_ms_median: r3(median(v.map((x) => x.ms))),
    }
  }
  out.pass = out.surepatch.max_lag_ms_median < 5
  fs.rmSync(dir, { recursive: true, force: true })
  return out
}

// ---------------------------------------------------------------------------------------------------
// P4: peak RSS of a child process doing one 100 MB edit.

function p4() {
  const size = QUICK ? 10 * MiB : 100 * MiB
  const runs = 3
  const dir = workdir('p4')
  const text = code(size)
  const bytes = Buffer.byteLength(text)
  const A = middleBlock(text)
  const B = A.replace('compute(', 'compute_checked(')
  const aFile = path.join(dir, 'search.txt')
  const bFile = path.join(dir, 'replace.txt')
  fs.writeFileSync(aFile, A)
  fs.writeFileSync(bFile, B)
  const timeV = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null
  const impls = ['surepatch', 'js', 'node-floor', 'engine-rust']
  if (R.mcp.available) impls.push('mcp')
  const res = {}
  for (const im of impls) {
    const file = path.join(dir, `${im}.rs`)
    fs.writeFileSync(file, text)
    res[im] = { time_v: [], child: [], before: [] }
    for (let r = 0; r < (im === 'mcp' ? 1 : runs); r++) {
      const [sf, rf] = r % 2 === 0 ? [aFile, bFile] : [bFile, aFile]
      const cmd =
        im === 'engine-rust'
          ? [driver, 'edit', dir, file, sf, rf, '1']
          : [process.execPath, path.join(here, 'rss-child.mjs'), im, dir, file, sf, rf]
      const full = timeV ? [timeV, '-v', ...cmd] : cmd
      const p = spawnSync(full[0], full.slice(1), { encoding: 'utf8', maxBuffer: 1 << 26 })
      if (p.status !== 0) throw new Error(`P4 ${im} failed: ${p.stderr}`)
      const m = p.stderr.match(/Maximum resident set size \(kbytes\): (\d+)/)
      if (m) res[im].time_v.push(Number(m[1]) * 1024)
      if (im !== 'engine-rust') {
        const j = JSON.parse(p.stdout.trim().split('\n').pop())
        res[im].child.push(j.max_rss)
        res[im].before.push(j.rss_before)
      }
    }
    log(`P4 ${im}`)
  }
  const out = { bytes, runs, runs_note: R.mcp.available ? 'mcp: 1 run' : undefined, tool: timeV ? '/usr/bin/time -v (Maximum resident set size)' : 'process.resourceUsage().maxRSS', goal_ratio: 3, impls: {} }
  for (const [k, v] of Object.entries(res)) {
    const peak = v.time_v.length ? median(v.time_v) : median(v.child)
    out.impls[k] = {
      peak_rss_mib: r2(peak / MiB),
      peak_rss_x_file: r2(peak / bytes),
      rss_before_edit_mib: v.before.length ? r2(median(v.before) / MiB) : null,
      peak_minus_before_x_file: v.before.length ? r2((peak - median(v.before)) / bytes) : null,
    }
  }
  out.pass = out.impls.surepatch.peak_rss_x_file <= 3
  fs.rmSync(dir, { recursive: true, force: true })
  return out
}

// ---------------------------------------------------------------------------------------------------
// P5: parse throughput.

function parseInputs(n) {
  let sr = ''
  let ap = '*** Begin Patch\n'
  const files = new Map()
  for (let i = 0; i < n; i++) {
    const f = Math.floor(i / 10)
    sr += `src/module_${f}.rs\n\`\`\`rust\n<<<<<<< SEARCH\n    let value_${i} = compute(${i});\n    if value_${i} > LIMIT {\n        return Err(Error::Over(${i}));\n    }\n=======\n    let value_${i} = compute_checked(${i})?;\n    if value_${i} > LIMIT {\n        return Err(Error::Over(${i}));\n    }\n>>>>>>> REPLACE\n\`\`\`\n\n`
    if (i % 10 === 0) ap += `*** Update File: src/module_${f}.rs\n`
    ap += `@@ fn handler_${i}()\n     let value_${i} = compute(${i});\n-    if value_${i} > LIMIT {\n+    if value_${i} >= LIMIT {\n         return Err(Error::Over(${i}));\n     }\n`
    files.set(
      `src/module_${f}.rs`,
      (files.get(`src/module_${f}.rs`) || '') + `fn handler_${i}() {\n    let value_${i} = compute(${i});\n    if value_${i} > LIMIT {\n        return Err(Error::Over(${i}));\n    }\n}\n`,
    )
  }
  ap += '*** End Patch\n'
  return { sr, ap, files }
}

function criterionEstimates(sinceMs) {
  const base = path.join(repo, 'target', 'criterion')
  const out = {}
  if (!fs.existsSync(base)) return out
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === 'report') continue
      const sub = path.join(d, e.name)
      const est = path.join(sub, 'new', 'estimates.json')
      if (fs.existsSync(est)) {
        const j = JSON.parse(fs.readFileSync(est, 'utf8'))
        const bj = path.join(sub, 'new', 'benchmark.json')
        const b = fs.existsSync(bj) ? JSON.parse(fs.readFileSync(bj, 'utf8')) : {}
        const bytes = b.throughput?.Bytes ?? b.throughput?.BytesDecimal ?? null
        const medNs = j.median.point_estimate
        out[b.full_id || `${rel}${e.name}`] = {
          median_ms: r3(medNs / 1e6),
          median_ci_ms: [r3(j.median.confidence_interval.lower_bound / 1e6), r3(j.median.confidence_interval.upper_bound / 1e6)],
          bytes,
          mb_per_s: bytes ? r2(bytes / MiB / (medNs / 1e9)) : null,
          measured_in_this_run: fs.statSync(est).mtimeMs >= sinceMs,
        }
      } else {
        walk(sub, `${rel}${e.name}/`)
      }
    }
  }
  walk(base, '')
  return out
}

async function p5() {
  const n = QUICK ? 2000 : 40_000
  const { sr, ap, files } = parseInputs(n)
  const runs = QUICK ? 3 : 7
  const out = { blocks: n, search_replace_bytes: Buffer.byteLength(sr), apply_patch_bytes: Buffer.byteLength(ap), node: {}, notes: [] }
  const measure = async (fn) => {
    await fn()
    const ts = []
    for (let k = 0; k < runs; k++) {
      gc()
      const t = performance.now()
      await fn()
      ts.push(performance.now() - t)
    }
    return stats(ts)
  }
  if (typeof lib.parsePathBlocks === 'function') {
    let first
    const s = await measure(async () => {
      first = await lib.parsePathBlocks(sr)
    })
    out.node.parsePathBlocks = { ...mapStats(s), mb_per_s: r2(out.search_replace_bytes / MiB / (s.median / 1000)), result_ok: first?.ok ?? null }
  } else {
    out.notes.push('index.js has no parsePathBlocks yet: the Rust parser is measured by cargo bench (parse/parse_path_blocks).')
  }
  if (typeof lib.applyPatch === 'function') {
    // applyPatch parses and applies: give it a workspace holding the files the patch updates, dry run.
    const dir = workdir('p5')
    for (const [rel, body] of files) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
      fs.writeFileSync(path.join(dir, rel), body)
    }
    let first
    try {
      const s = await measure(async () => {
        first = await lib.applyPatch(ap, { workspaceRoot: dir, dryRun: true })
      })
      out.node.applyPatch = {
        ...mapStats(s),
        mb_per_s: r2(out.apply_patch_bytes / MiB / (s.median / 1000)),
        result_ok: first?.ok ?? null,
        result_code: first?.ok ? null : first?.code,
        what: 'parse + locate + apply in memory, dry run (no writes)',
      }
    } catch (e) {
      out.notes.push(`applyPatch threw: ${e.message}`)
    }
    fs.rmSync(dir, { recursive: true, force: true })
  } else {
    out.notes.push('index.js has no applyPatch yet: the Rust parser is measured by cargo bench (parse/parse_patch).')
  }
  if (!out.node.parsePathBlocks || !out.node.applyPatch) {
    const since = Date.now()
    if (!NO_CARGO && !CARGO_BENCH) {
      log('P5: cargo bench --bench engine -- parse')
      const r = spawnSync('cargo', ['bench', '--bench', 'engine', '--', 'parse'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
      if (r.status !== 0) out.notes.push('cargo bench failed')
    }
    const est = criterionEstimates(CARGO_BENCH ? started : since)
    out.rust = Object.fromEntries(Object.entries(est).filter(([k]) => k.startsWith('parse/')))
  }
  return out
}

// ---------------------------------------------------------------------------------------------------
// Report

function fmt(x, unit = '') {
  if (x == null) return '–'
  if (typeof x === 'number') return `${x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x)}${unit}`
  return String(x)
}
const pf = (b) => (b == null ? '–' : b ? '**pass**' : '**FAIL**')

function markdown(R) {
  const L = []
  const M = R.machine
  L.push(`# surepatch benchmark results`)
  L.push('')
  L.push(`Generated by \`npm run bench\` on ${R.date}${R.quick ? ' (**--quick: smoke-test sizes, not meaningful**)' : ''}.`)
  L.push('')
  L.push(`Machine: ${M.cpu} (${M.simd.join(', ')}), ${M.cores} cores, ${M.ram_gib} GiB RAM; ${M.os}; node ${M.node}; ${M.rustc}; temp files on ${M.tmpdir_fs} (${M.tmpdir}); libuv pool ${M.uv_threadpool_size}; load average ${M.loadavg_start.join('/')} at start, ${R.loadavg_end.join('/')} at end (${M.note}).`)
  L.push('')
  L.push('Medians of repeated runs (p90 in parentheses), all in milliseconds; implementations measured round-robin in the same run; every ratio is between medians of this run.')
  if (R.P1) {
    L.push('')
    L.push('## P1 — one exact edit in the middle of a file, end to end')
    L.push('')
    const ids = Object.keys(R.P1[0].impls)
    L.push(`| size | runs | ${ids.map((i) => R.P1[0].impls[i].name).join(' | ')} |`)
    L.push(`|---|---|${ids.map(() => '---').join('|')}|`)
    for (const row of R.P1) {
      L.push(`| ${row.size} | ${row.runs} | ${ids.map((i) => `${fmt(row.impls[i]?.median_ms)} (${fmt(row.impls[i]?.p90_ms)})`).join(' | ')} |`)
    }
    L.push('')
    L.push('| size | surepatch ÷ Rust floor | surepatch ÷ Node floor | engine (Rust, no Node) ÷ Rust floor | JS baseline ÷ surepatch | MCP ÷ surepatch | goal ≤ 1.3× floor (100 MB) | goal ≥ 3× faster than JS |')
    L.push('|---|---|---|---|---|---|---|---|')
    for (const row of R.P1) {
      const x = row.ratios
      const big = /100MB/.test(row.size)
      L.push(`| ${row.size} | ${fmt(x.surepatch_vs_floor_rust)}× | ${fmt(x.surepatch_vs_floor_node)}× | ${fmt(x.engine_rust_vs_floor_rust)}× | ${fmt(x.js_baseline_vs_surepatch)}× | ${fmt(x.mcp_vs_surepatch)}× | ${big ? `${pf(row.pass_floor_rust)} vs Rust floor, ${pf(row.pass_floor_node)} vs Node floor` : '–'} | ${pf(row.pass_js)} |`)
    }
    const door = R.P1.filter((row) => row.door_goal)
    if (door.length) {
      L.push('')
      L.push("The door's own cost (issue 17 §7): what the Node API adds to the engine, and the goals, from the medians above.")
      L.push('')
      L.push('| size | surepatch (Node API) | engine (Rust api::call) | Rust floor | surepatch − engine | surepatch ÷ Rust floor | goal |')
      L.push('|---|---|---|---|---|---|---|')
      for (const row of door) {
        const m = (id) => row.impls[id]?.median_ms
        L.push(`| ${row.size} | ${fmt(m('surepatch'))} | ${fmt(m('engine_rust'))} | ${fmt(m('floor_rust'))} | ${fmt(row.ratios.surepatch_minus_engine_rust_ms)} ms | ${fmt(row.ratios.surepatch_vs_floor_rust)}× | ${row.door_goal}: ${pf(row.pass_door)} |`)
      }
    }
    L.push('')
    L.push(`MCP reference server: ${R.mcp.available ? `included (${R.mcp.package} ${R.mcp.version}, ${R.mcp.imported})` : `not included — ${R.mcp.reason}`}.${R.mcp.caveat ? ' ' + R.mcp.caveat : ''}`)
  }
  if (R.P2) {
    L.push('')
    L.push('## P2 — a search block that misses (SEARCH_BLOCK_NOT_FOUND with candidates)')
    L.push('')
    L.push('| case | lines | bytes | surepatch (Node API) | engine via Rust api::call | pure engine (in memory) | JS baseline (no candidates) | goal | nearest candidate is the edited region |')
    L.push('|---|---|---|---|---|---|---|---|---|')
    for (const c of R.P2) {
      L.push(`| ${c.name} | ${c.lines} | ${c.bytes} | ${fmt(c.surepatch.median_ms)} (${fmt(c.surepatch.p90_ms)}) | ${fmt(c.engine_rust_api.median_ms)} (${fmt(c.engine_rust_api.p90_ms)}) | ${fmt(c.engine_pure.median_ms)} (${fmt(c.engine_pure.p90_ms)}) | ${fmt(c.js_baseline_no_candidates.median_ms)} | ${c.goal_ms ? `≤ ${c.goal_ms} ms: ${pf(c.pass)}` : '–'} | ${c.nearest_is_the_edited_region == null ? 'n/a (no edited region)' : c.nearest_is_the_edited_region ? 'yes' : 'no'} (${c.candidates} candidates) |`)
    }
  }
  if (R.P6) {
    L.push('')
    L.push('## P6 — rewrites whose line diff is the whole file (work-bounded diffs)')
    L.push('')
    L.push('| case | 25,000 lines | 100,000 lines (1.09 MB) | growth ×4 lines | goal |')
    L.push('|---|---|---|---|---|')
    for (const c of R.P6) {
      L.push(`| ${c.name} | ${fmt(c.small.median_ms)} (${fmt(c.small.p90_ms)}) | ${fmt(c.large.median_ms)} (${fmt(c.large.p90_ms)}) | ${fmt(c.growth)}× | ≤ ${c.max_growth}× (linear 4×, quadratic 16×): ${pf(c.pass)} |`)
    }
  }
  if (R.P3) {
    L.push('')
    L.push('## P3 — concurrency and event-loop lag')
    if (R.P3.throughput) {
      const T = R.P3.throughput
      L.push('')
      L.push(`${T.edits} edits over ${T.files} files (10 per file), ${T.runs} runs:`)
      L.push('')
      L.push('| mode | median ms (p90) | edits/s | edits reported ok | edits on disk | lost updates |')
      L.push('|---|---|---|---|---|---|')
      for (const [k, v] of Object.entries(T.modes)) {
        L.push(`| ${k} | ${fmt(v.median_ms)} (${fmt(v.p90_ms)}) | ${fmt(v.edits_per_s)} | ${v.reported_ok_min} | ${v.applied_on_disk_min} | ${v.lost_updates_max} |`)
      }
      L.push('')
      L.push(`surepatch Promise.all vs one at a time: ${fmt(T.parallel_speedup)}× throughput (JS baseline: ${fmt(T.js_parallel_speedup)}×).`)
    }
    if (R.P3.lag) {
      const G = R.P3.lag
      L.push('')
      L.push(`Event-loop lag (setInterval 1 ms drift) during one edit of a ${fmt(G.bytes / MiB)} MiB file, ${G.runs} runs:`)
      L.push('')
      L.push('| while | max lag, median of runs | max lag, worst run | p90 lag | edit ms | goal < 5 ms |')
      L.push('|---|---|---|---|---|---|')
      for (const k of ['idle', 'surepatch', 'floor_node', 'js_baseline']) {
        const v = G[k]
        L.push(`| ${k} | ${fmt(v.max_lag_ms_median)} | ${fmt(v.max_lag_ms_worst)} | ${fmt(v.p90_lag_ms_median)} | ${fmt(v.edit_ms_median)} | ${k === 'surepatch' ? pf(G.pass) : '–'} |`)
      }
    }
  }
  if (R.P4) {
    const P = R.P4
    L.push('')
    L.push(`## P4 — peak RSS of a process doing one edit of a ${fmt(P.bytes / MiB)} MiB file (${P.tool}, median of ${P.runs})`)
    L.push('')
    L.push('| process | peak RSS MiB | × file size | RSS before the edit MiB | (peak − before) × file | goal ≤ 3× |')
    L.push('|---|---|---|---|---|---|')
    for (const [k, v] of Object.entries(P.impls)) {
      L.push(`| ${k} | ${fmt(v.peak_rss_mib)} | ${fmt(v.peak_rss_x_file)} | ${fmt(v.rss_before_edit_mib)} | ${fmt(v.peak_minus_before_x_file)} | ${k === 'surepatch' ? pf(P.pass) : '–'} |`)
    }
  }
  if (R.P5) {
    const P = R.P5
    L.push('')
    L.push(`## P5 — parse throughput (${P.blocks} blocks; SEARCH/REPLACE input ${fmt(P.search_replace_bytes / MiB)} MiB, apply_patch input ${fmt(P.apply_patch_bytes / MiB)} MiB)`)
    L.push('')
    L.push('| parser | median ms | MB/s (MiB/s) | where measured |')
    L.push('|---|---|---|---|')
    for (const [k, v] of Object.entries(P.node)) L.push(`| ${k} | ${fmt(v.median_ms)} | ${fmt(v.mb_per_s)} | Node API${v.what ? `, ${v.what}` : ''} |`)
    for (const [k, v] of Object.entries(P.rust || {})) L.push(`| ${k} | ${fmt(v.median_ms)} | ${fmt(v.mb_per_s)} | cargo bench (criterion)${v.measured_in_this_run ? '' : ', **from an earlier run**'} |`)
    for (const n of P.notes) L.push(`\n${n}`)
  }
  if (R.cargo_bench) {
    L.push('')
    L.push('## cargo bench --bench engine (criterion medians)')
    L.push('')
    L.push('| benchmark | median ms | 95% CI ms | MiB/s | this run |')
    L.push('|---|---|---|---|---|')
    for (const [k, v] of Object.entries(R.cargo_bench)) L.push(`| ${k} | ${fmt(v.median_ms)} | ${v.median_ci_ms.map((x) => fmt(x)).join('–')} | ${fmt(v.mb_per_s)} | ${v.measured_in_this_run ? 'yes' : 'no'} |`)
  }
  L.push('')
  return L.join('\n')
}

// ---------------------------------------------------------------------------------------------------

const R = { date: new Date().toISOString(), quick: QUICK, machine: machine() }
log(`tmp ${tmpRoot}`)
buildDriver()
R.mcp = await loadMcp()
if (want('P1')) {
  R.P1 = await p1(R.mcp)
  for (const row of R.P1) {
    row.pass_js = row.ratios.js_baseline_vs_surepatch >= 3
    // The door's own cost (issue 17 §7): at 1 KB at most 0.3 ms over the engine alone, at 1 MB at most
    // 1.3× the Rust I/O floor, both through the Node API.
    if (row.size === '1KB') {
      row.door_goal = '≤ 0.3 ms over the engine'
      row.pass_door = row.ratios.surepatch_minus_engine_rust_ms <= 0.3
    } else if (row.size === '1MB') {
      row.door_goal = '≤ 1.3× the Rust floor'
      row.pass_door = row.ratios.surepatch_vs_floor_rust <= 1.3
    }
    if (/100MB/.test(row.size)) {
      row.pass_floor_rust = row.ratios.surepatch_vs_floor_rust <= 1.3
      row.pass_floor_node = row.ratios.surepatch_vs_floor_node <= 1.3
    }
  }
  if (R.mcp.available) {
    R.mcp.caveat = 'Its contract differs: it replaces the first occurrence without checking that the text is unique, normalizes line endings, computes a diff of the whole file, and writes temp + rename without fsync.'
  }
}
if (want('P2')) R.P2 = await p2()
if (want('P3') || want('P3-throughput') || want('P3-lag')) {
  R.P3 = {}
  if (want('P3') || want('P3-throughput')) R.P3.throughput = await p3throughput()
  if (want('P3') || want('P3-lag')) R.P3.lag = await p3lag()
}
if (want('P4')) R.P4 = p4()
if (want('P6')) R.P6 = await p6()
if (CARGO_BENCH && !NO_CARGO) {
  log('cargo bench --bench engine (full suite)')
  const r = spawnSync('cargo', ['bench', '--bench', 'engine'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
  if (r.status !== 0) log('cargo bench failed')
}
if (want('P5')) R.P5 = await p5()
R.cargo_bench = criterionEstimates(started)
if (Object.keys(R.cargo_bench).length === 0) delete R.cargo_bench
R.loadavg_end = os.loadavg().map(r2)
delete R.mcp.fn
const md = markdown(R)
const outDir = OUT || here
fs.mkdirSync(outDir, { recursive: true })
fs.writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(R, null, 2) + '\n')
fs.writeFileSync(path.join(outDir, 'RESULTS.md'), md)
process.stdout.write(md + '\n')
log(`wrote ${path.join(outDir, 'results.json')} and RESULTS.md`)
