// A/B: the same workloads through two builds of the package, interleaved in one run (A, B, A, B, ...),
// so machine load hits both alike. Medians and the B/A ratio of medians.
//
//   node --expose-gc bench/ab.mjs <dir A> <dir B> [--runs=N] [--only=P1,P2,P5]
//
// Each dir is a package root with its addon built (`npm run build`), e.g. a `git worktree` of the
// commit before a change (A) and the working tree (B). Workloads:
//   P1  one exact edit in the middle of a 1 KiB, a 1 MiB and a 100 MiB file (patchFile, written to disk)
//   P2  a 7-line block that misses on a 100,000-line file (candidates computed)
//   P2h a 7-line exact edit on the same 100,000-line file (written to disk); with P2, the miss ÷ hit
//       ratio of each build is printed
//   P5  applyPatch dry run of a 2,000-chunk envelope over 200 files (parse + locate + apply)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { execFileSync, spawnSync } from 'node:child_process'

const require = createRequire(import.meta.url)
const [dirA, dirB] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
if (!dirA || !dirB) {
  console.error('usage: node --expose-gc bench/ab.mjs <dir A> <dir B> [--runs=N]')
  process.exit(2)
}
const RUNS = Number((process.argv.find((a) => a.startsWith('--runs=')) || '--runs=15').slice(7))
const ONLY = (process.argv.find((a) => a.startsWith('--only=')) || '').slice(7).split(',').filter(Boolean)
const want = (p) => ONLY.length === 0 || ONLY.includes(p)
const libs = { A: require(path.resolve(dirA, 'index.js')), B: require(path.resolve(dirB, 'index.js')) }
const gc = () => globalThis.gc && globalThis.gc()
// Let V8's helper threads finish the collection gc() started before the timed call (see run.mjs).
// `sync` first: the other build's dirty pages are written out before this one's fsync (see run.mjs).
const settle = () => {
  spawnSync('sync', [], { stdio: 'ignore' })
  return new Promise((resolve) => setTimeout(resolve, 5))
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'surepatch-ab-'))
const rows = []
// [label, A ratio, B ratio] of two rows of the same build, printed under the table.
const ratios = []

// The Rust I/O floor (examples/bench_driver.rs `floor`), timed on its own copy in the same rounds
// when dir B has the driver built (`cargo build --release --example bench_driver`): P1 rows then
// also give A and B as multiples of the floor.
const driver = path.resolve(dirB, 'target', 'release', 'examples', 'bench_driver')
const hasDriver = fs.existsSync(driver)

async function measure(name, setup, run, floorFile) {
  const kinds = floorFile && hasDriver ? ['A', 'B', 'floor'] : ['A', 'B']
  const times = { A: [], B: [], floor: [] }
  const state = {}
  for (const k of ['A', 'B']) state[k] = setup(k)
  const floor = floorFile && hasDriver ? floorFile() : null
  for (let i = 0; i < RUNS; i++) {
    // A, B, floor in even rounds and B, A, floor in odd ones: the one that runs right after the
    // other's fsync is not always the same build (measured on ext4: the second of the pair was
    // 0.5-1.5 ms slower at 1 KiB whichever build it was).
    for (const k of i % 2 ? [kinds[1], kinds[0], ...kinds.slice(2)] : kinds) {
      gc()
      await settle()
      if (k === 'floor') {
        times.floor.push(JSON.parse(execFileSync(driver, ['floor', floor, '1'], { encoding: 'utf8' })).times_ms[0])
        continue
      }
      const t0 = process.hrtime.bigint()
      const r = await run(libs[k], state[k], i)
      times[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
      if (r && r.ok === false && !name.startsWith('P2')) throw new Error(`${name} ${k}: ${r.code} ${r.message}`)
    }
  }
  const a = median(times.A)
  const b = median(times.B)
  const f = times.floor.length ? median(times.floor) : null
  rows.push({ name, runs: RUNS, A_ms: a, B_ms: b, ratio: b / a, floor_ms: f })
  console.error(`${name}: A ${a.toFixed(2)} ms, B ${b.toFixed(2)} ms, B/A ${(b / a).toFixed(3)}${f == null ? '' : `, Rust floor ${f.toFixed(2)} ms`}`)
}

function lines(n, f) {
  const out = []
  for (let i = 0; i < n; i++) out.push(f(i))
  return out.join('\n') + '\n'
}

// P1
for (const [label, bytes] of want('P1') ? [['1 KiB', 1 << 10], ['1 MiB', 1 << 20], ['100 MiB', 100 << 20]] : []) {
  const line = 'const value_%d = compute(alpha, beta, gamma) + offset;\n'
  const n = Math.ceil(bytes / line.length)
  const mid = n >> 1
  const text = lines(n, (i) => line.replace('%d', i).trimEnd())
  await measure(
    `P1 exact edit, ${label}`,
    (k) => {
      const root = fs.mkdtempSync(path.join(tmp, `p1${k}-`))
      fs.writeFileSync(path.join(root, 'big.js'), text)
      return { root }
    },
    (lib, s, i) => {
      const a = `value_${mid} = compute(`
      const b = `value_${mid} = recompute(`
      return lib.patchFile({ file_path: 'big.js', search_block: i % 2 ? b : a, replace_block: i % 2 ? a : b }, { workspace_root: s.root })
    },
    () => {
      const file = path.join(fs.mkdtempSync(path.join(tmp, 'p1floor-')), 'big.js')
      fs.writeFileSync(file, text)
      return file
    },
  )
}

// P2
if (want('P2')) {
  const text = lines(100_000, (i) => `    result_${i % 997} = transform(item_${i}, options)`)
  const block = ['def missing_function(arg):', '    total = 0', '    for x in arg:', '        total += x * 2', '    if total > 10:', '        return total', '    return None'].join('\n')
  await measure(
    'P2 7-line miss, 100,000 lines',
    (k) => {
      const root = fs.mkdtempSync(path.join(tmp, `p2${k}-`))
      fs.writeFileSync(path.join(root, 'f.py'), text)
      return { root }
    },
    (lib, s) => lib.patchFile({ file_path: 'f.py', search_block: block, replace_block: 'x' }, { workspace_root: s.root }),
  )
  // The same file, a block it holds (lines 50,000-50,006), changed back and forth.
  const hit = text.split('\n').slice(50_000, 50_007).join('\n')
  const changed = hit.replace('options', 'opts')
  await measure(
    'P2h 7-line exact hit, same file',
    (k) => {
      const root = fs.mkdtempSync(path.join(tmp, `p2h${k}-`))
      fs.writeFileSync(path.join(root, 'f.py'), text)
      return { root }
    },
    (lib, s, i) =>
      lib.patchFile(
        { file_path: 'f.py', search_block: i % 2 ? changed : hit, replace_block: i % 2 ? hit : changed },
        { workspace_root: s.root },
      ),
  )
  const [miss, exact] = rows.slice(-2)
  console.error(`P2 miss ÷ P2h exact hit: A ${(miss.A_ms / exact.A_ms).toFixed(2)}, B ${(miss.B_ms / exact.B_ms).toFixed(2)}`)
  ratios.push(['P2 miss ÷ P2h exact hit', miss.A_ms / exact.A_ms, miss.B_ms / exact.B_ms])
}

// P5
if (want('P5')) {
  const files = 200
  const chunks = 10
  let patch = '*** Begin Patch\n'
  const texts = []
  for (let f = 0; f < files; f++) {
    texts.push(lines(chunks * 20, (i) => `line ${i} of file ${f}: value = ${i * 7}`))
    patch += `*** Update File: src/f${f}.txt\n`
    for (let c = 0; c < chunks; c++) {
      const i = c * 20 + 10
      patch += `@@\n line ${i - 1} of file ${f}: value = ${(i - 1) * 7}\n-line ${i} of file ${f}: value = ${i * 7}\n+line ${i} of file ${f}: value = ${i * 7 + 1}\n line ${i + 1} of file ${f}: value = ${(i + 1) * 7}\n`
    }
  }
  patch += '*** End Patch\n'
  await measure(
    `P5 applyPatch dry run, ${files * chunks} chunks (${(patch.length / 1024).toFixed(0)} KiB)`,
    (k) => {
      const root = fs.mkdtempSync(path.join(tmp, `p5${k}-`))
      fs.mkdirSync(path.join(root, 'src'))
      texts.forEach((t, f) => fs.writeFileSync(path.join(root, 'src', `f${f}.txt`), t))
      return { root }
    },
    (lib, s) => lib.applyPatch(patch, { workspace_root: s.root, dry_run: true }),
  )
}

fs.rmSync(tmp, { recursive: true, force: true })
const floors = rows.some((r) => r.floor_ms != null)
console.log(`| workload | runs | A median ms | B median ms | B/A |${floors ? ' Rust floor ms | A ÷ floor | B ÷ floor |' : ''}`)
console.log(`|---|---|---|---|---|${floors ? '---|---|---|' : ''}`)
for (const r of rows) {
  const f = r.floor_ms
  const tail = floors ? (f == null ? ' – | – | – |' : ` ${f.toFixed(2)} | ${(r.A_ms / f).toFixed(2)} | ${(r.B_ms / f).toFixed(2)} |`) : ''
  console.log(`| ${r.name} | ${r.runs} | ${r.A_ms.toFixed(2)} | ${r.B_ms.toFixed(2)} | ${r.ratio.toFixed(3)} |${tail}`)
}
for (const [label, a, b] of ratios) console.log(`\n${label}: A ${a.toFixed(2)}, B ${b.toFixed(2)}`)
