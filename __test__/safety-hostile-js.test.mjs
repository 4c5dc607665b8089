// R5: hostile JavaScript input through the napi door. Every call resolves to a clean
// `{ok:false, code}` or a correct result; Node never crashes or throws; memory stays bounded.
import test from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import vm from 'node:vm'
import { sp, workspace } from './helpers.mjs'

const { patchFile, applyEdits, previewEdits } = sp
const MB = 1024 * 1024
// A full collection before each memory reading, so RSS reflects what is still held.
v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')
const settledRss = () => {
  gc()
  return process.memoryUsage().rss
}

// Calls `fn` and requires a Promise that resolves (never a throw, never a rejection).
async function settle(fn) {
  let p
  try {
    p = fn()
  } catch (e) {
    assert.fail(`threw synchronously: ${e && e.message}`)
  }
  assert.ok(p && typeof p.then === 'function', 'returns a Promise')
  return p.then(
    (r) => r,
    (e) => assert.fail(`rejected: ${e && e.message}`),
  )
}

test('wrong types and exotic values: INVALID_INPUT, file untouched', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\n')
  const ok = { file_path: 'a.txt', search_block: 'alpha', replace_block: 'beta' }
  const cyclic = {}
  cyclic.self = cyclic
  const throwing = { get file_path() { throw new Error('getter boom') } }
  const hostileProxy = new Proxy({}, { ownKeys() { throw new Error('proxy boom') }, get() { throw new Error('proxy boom') } })
  const inputs = [
    () => patchFile(),
    () => patchFile(null),
    () => patchFile(42),
    () => patchFile('a.txt'),
    () => patchFile([]),
    () => patchFile(() => 1),
    () => patchFile(Symbol('x')),
    () => patchFile({ ...ok, file_path: 1 }),
    () => patchFile({ ...ok, file_path: null }),
    () => patchFile({ ...ok, search_block: ['alpha'] }),
    () => patchFile({ ...ok, replace_block: { toString: () => 'beta' } }),
    () => patchFile({ ...ok, replace_block: 10n }),
    () => patchFile({ ...ok, extra: true }),
    () => patchFile(ok, 'not options'),
    () => patchFile(ok, [w.root]),
    () => patchFile(ok, { workspace_root: 7 }),
    () => patchFile(ok, { workspace_root: w.root, dry_run: 'yes' }),
    () => patchFile(ok, { workspace_root: w.root, max_file_bytes: -1 }),
    () => patchFile(ok, { workspace_root: w.root, max_file_bytes: 1.5 }),
    () => patchFile(ok, { workspace_root: w.root, max_file_bytes: Number.MAX_VALUE }),
    () => patchFile(ok, { workspace_root: w.root, tolerance: 'loose' }),
    () => patchFile(ok, { workspace_root: w.root, cyclic }),
    () => patchFile({ ...ok, cyclic }, w.opts()),
    () => patchFile(throwing, w.opts()),
    () => patchFile(hostileProxy, w.opts()),
    () => patchFile(ok, hostileProxy),
    () => patchFile({ ...ok, replace_block: { toJSON: () => '\uD800' } }, w.opts()),
    () => applyEdits(),
    () => applyEdits(7, [['alpha', 'beta']], w.opts()),
    () => applyEdits('a.txt', 'alpha', w.opts()),
    () => applyEdits('a.txt', [['alpha']], w.opts()),
    () => applyEdits('a.txt', [['alpha', 'beta', 'gamma']], w.opts()),
    () => applyEdits('a.txt', [[1, 2]], w.opts()),
    () => applyEdits('a.txt', [{ old: 'alpha' }], w.opts()),
    () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', expected_replacements: -1 }], w.opts()),
    () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', expected_replacements: 1e300 }], w.opts()),
    () => applyEdits('a.txt', [null], w.opts()),
    () => applyEdits('a.txt', [], w.opts()),
    () => applyEdits('a.txt', new Array(3), w.opts()),
    () => previewEdits('a.txt', [JSON.parse('{"old":"alpha","new":"beta","__proto__":{"polluted":1}}')], w.opts()),
  ]
  const codes = {}
  for (const [i, fn] of inputs.entries()) {
    const r = await settle(fn)
    assert.equal(r.ok, false, `input ${i}: ${JSON.stringify(r)}`)
    assert.equal(r.code, 'INVALID_INPUT', `input ${i}: ${JSON.stringify(r)}`)
    assert.equal(typeof r.message, 'string')
    codes[r.code] = (codes[r.code] || 0) + 1
    assert.equal(w.text('a.txt'), 'alpha\n', `input ${i} changed the file`)
  }
  // Inherited (prototype) properties are not arguments: only own keys are read.
  const inherited = await settle(() => previewEdits('a.txt', [{ old: 'alpha', new: 'beta', __proto__: { polluted: 1 } }], w.opts()))
  assert.equal(inherited.ok, true)
  assert.equal(inherited.written, false)
  assert.equal(w.text('a.txt'), 'alpha\n')
  assert.deepEqual(w.files(), ['a.txt'])
  t.diagnostic(`${inputs.length} hostile argument shapes: all refused cleanly ${JSON.stringify(codes)}`)
})

test('lone surrogates anywhere are refused with INVALID_INPUT; U+FFFD is never written', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\n')
  const lone = ['\uD800', '\uDFFF', 'x\uDBFFy', '\uDC00\uD800', 'ok\uD83D']
  for (const s of lone) {
    for (const fn of [
      () => patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: s }, w.opts()),
      () => patchFile({ file_path: 'a.txt', search_block: 'alpha' + s, replace_block: 'b' }, w.opts()),
      () => patchFile({ file_path: 'a.txt' + s, search_block: 'alpha', replace_block: 'b' }, w.opts()),
      () => patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: 'b' }, { workspace_root: w.root + s }),
      () => applyEdits('a.txt', [['alpha', s]], w.opts()),
      () => applyEdits('a.txt', [{ old: 'alpha', new: s }], w.opts()),
      () => applyEdits('a.txt', [['x', 'y'], ['alpha', ['nested', s]]], w.opts()),
    ]) {
      const r = await settle(fn)
      assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(r))
      assert.match(r.message, /surrogate|Unicode/)
    }
  }
  assert.equal(w.text('a.txt'), 'alpha\n')
  assert.ok(!w.read('a.txt').includes(Buffer.from('\uFFFD')))
  // A well-formed pair is fine.
  const r = await patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: '\uD83D\uDE00' }, w.opts())
  assert.equal(r.ok, true)
  assert.equal(w.text('a.txt'), '😀\n')
})

test('100 MB strings: a clean answer each time, memory bounded across repeats', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'small file\nmarker\n')
  const huge = 'y'.repeat(100 * MB)
  const rss = []
  // A 100 MB search block: not found (and no runaway candidate search). The first call warms the
  // allocator's per-thread arenas (a pool thread's first 100 MB copy is kept for reuse), so growth is
  // measured between the second call and the fourth: a leak grows by the block every call.
  for (let i = 0; i < 4; i++) {
    const r = await patchFile({ file_path: 'a.txt', search_block: huge, replace_block: 'x' }, w.opts())
    assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
    assert.ok(JSON.stringify(r).length < 64 * 1024, 'the refusal does not echo the 100 MB block')
    rss.push(settledRss())
  }
  assert.equal(w.text('a.txt'), 'small file\nmarker\n')
  // A 100 MB replacement: applied, byte-exact.
  const r = await patchFile({ file_path: 'a.txt', search_block: 'marker', replace_block: huge }, w.opts())
  assert.equal(r.ok, true, r.message)
  assert.equal(r.after_bytes, 'small file\n\n'.length + 100 * MB)
  const after = w.read('a.txt')
  assert.equal(after.length, r.after_bytes)
  assert.equal(after.subarray(0, 11).toString(), 'small file\n')
  assert.equal(after.subarray(-2).toString(), 'y\n')
  // A 100 MB file path is refused, not looked up.
  const p = await patchFile({ file_path: huge, search_block: 'a', replace_block: 'b' }, w.opts())
  assert.equal(p.ok, false)
  rss.push(settledRss())
  const growth = (rss[3] - rss[1]) / MB
  t.diagnostic(`rss after each 100 MB call: ${rss.map((x) => Math.round(x / MB)).join(', ')} MB; growth between repeats ${Math.round(growth)} MB`)
  assert.ok(growth < 150, `memory grew ${growth} MB across identical calls`)
})

test('100,000 edits in one call are refused; 10,000 (the limit) apply correctly', async (t) => {
  const w = workspace(t)
  const lines = Array.from({ length: 10_000 }, (_, i) => `row ${String(i).padStart(5, '0')} old\n`)
  w.write('rows.txt', lines.join(''))
  const many = Array.from({ length: 100_000 }, (_, i) => [`row ${i} old`, `row ${i} new`])
  const r = await applyEdits('rows.txt', many, w.opts())
  assert.equal(r.code, 'INVALID_INPUT')
  assert.match(r.message, /100000 edits/)
  assert.equal(w.text('rows.txt'), lines.join(''))
  const edits = lines.map((l) => [l.trimEnd(), l.trimEnd().replace('old', 'new')])
  const ok = await applyEdits('rows.txt', edits, w.opts())
  assert.equal(ok.ok, true, ok.message)
  assert.equal(ok.edits_applied, 10_000)
  assert.equal(w.text('rows.txt'), lines.map((l) => l.replace('old', 'new')).join(''))
})

test('huge or hostile containers are refused by a length check before any element is read', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\n')
  let reads = 0
  const claiming = (n) =>
    new Proxy([], {
      get(target, key) {
        if (key === 'length') return n
        if (typeof key !== 'string' || !/^\d+$/.test(key)) return target[key]
        reads++
        return { old: 'alpha', new: 'beta' }
      },
      has() {
        reads++
        return true
      },
    })
  const sparse = new Array(2 ** 32 - 1)
  const cases = [
    ['Proxy claiming 10^9 edits', () => applyEdits('a.txt', claiming(1e9), w.opts())],
    ['Proxy claiming 2^53 edits', () => applyEdits('a.txt', claiming(2 ** 53), w.opts())],
    ['Proxy claiming a fractional length', () => applyEdits('a.txt', claiming(2.5), w.opts())],
    ['sparse array of length 2^32-1', () => applyEdits('a.txt', sparse, w.opts())],
    ['sparse array nested in an edit', () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', extra: sparse }], w.opts())],
    ['sparse array in options', () => patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: 'b' }, { ...w.opts(), x: sparse })],
    ['toJSON answering a sparse array', () => applyEdits('a.txt', { toJSON: () => sparse }, w.opts())],
    ['array with one hole', () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta' }, , { old: 'x', new: 'y' }], w.opts())],
    ['a 64 MB Buffer as replace text', () => patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: Buffer.alloc(64 * MB) }, w.opts())],
    ['a typed array as edits', () => applyEdits('a.txt', new Uint8Array(2 ** 30), w.opts())],
    ['nesting 100 deep', () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', deep: Array.from({ length: 100 }).reduce((a) => [a], []) }], w.opts())],
  ]
  for (const [name, fn] of cases) {
    const started = process.hrtime.bigint()
    const r = await settle(fn)
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    assert.equal(r.code, 'INVALID_INPUT', `${name}: ${JSON.stringify(r)}`)
    assert.equal(w.text('a.txt'), 'alpha\n', name)
    t.diagnostic(`${name}: refused in ${ms.toFixed(2)} ms: ${r.message}`)
  }
  assert.equal(reads, 0, 'no element of an over-long array was read')
  const big = await settle(() => applyEdits('a.txt', claiming(1e9), w.opts()))
  assert.match(big.message, /edits claims 1000000000 elements, above the limit of 16777216/)
  const hole = await settle(() => applyEdits('a.txt', [{ old: 'alpha', new: 'beta' }, , { old: 'x', new: 'y' }], w.opts()))
  assert.match(hole.message, /edits has a hole at index 1/)
})

test('expected_replacements NaN, ±Infinity, negative, fractional or 0: INVALID_INPUT, file untouched', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\nalpha\n')
  for (const n of [NaN, Infinity, -Infinity, -1, 1.5, 0, -0.5, Number.MIN_VALUE]) {
    for (const fn of [
      () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', expected_replacements: n }], w.opts()),
      () => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', expectedReplacements: n }], w.opts()),
      () => previewEdits('a.txt', [{ old: 'alpha', new: 'beta', expected_replacements: n }], w.opts()),
    ]) {
      const r = await settle(fn)
      assert.equal(r.code, 'INVALID_INPUT', `${n}: ${JSON.stringify(r)}`)
      assert.match(r.message, /expected_?[rR]eplacements/)
      assert.equal(w.text('a.txt'), 'alpha\nalpha\n', String(n))
    }
  }
  // Any other number JSON cannot carry is refused too, wherever it is.
  const r = await settle(() => patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: 'b' }, w.opts({ max_file_bytes: NaN })))
  assert.equal(r.code, 'INVALID_INPUT')
  assert.match(r.message, /^max_file_bytes is NaN/)
  // The valid count still applies.
  const ok = await settle(() => applyEdits('a.txt', [{ old: 'alpha', new: 'beta', expected_replacements: 2 }], w.opts()))
  assert.equal(ok.ok, true, ok.message)
  assert.equal(w.text('a.txt'), 'beta\nbeta\n')
})

test('each argument property is read once: what is checked is what is sent', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'alpha\n')
  let reads = 0
  const input = {
    search_block: 'alpha',
    replace_block: 'beta',
    get file_path() {
      reads++
      // A second read would answer a lone surrogate, which the check would never have seen.
      return reads === 1 ? 'a.txt' : 'a.txt\uD800'
    },
  }
  const r = await settle(() => patchFile(input, w.opts()))
  assert.equal(r.ok, true, r.message)
  assert.equal(reads, 1)
  assert.equal(w.text('a.txt'), 'beta\n')
})

test('a key whose value is undefined is left out, as JSON.stringify does (a spread of optional settings)', async (t) => {
  const ws = workspace(t)
  ws.write('a.txt', 'one\n')
  // view_file knows no journal_dir: present with a value it is refused, undefined it is absent.
  const v = await sp.viewFile('a.txt', { ...ws.opts(), journal_dir: undefined, format: undefined })
  assert.equal(v.ok, true, JSON.stringify(v))
  assert.equal(v.content, 'one\n')
  const bad = await sp.viewFile('a.txt', { ...ws.opts(), journal_dir: 'j' })
  assert.equal(bad.code, 'INVALID_INPUT')
  // In an array, undefined is null (as JSON.stringify), which an edit pair refuses by name.
  const e = await sp.applyEdits('a.txt', [['one', undefined]], ws.opts())
  assert.equal(e.code, 'INVALID_INPUT', JSON.stringify(e))
  assert.equal(ws.text('a.txt'), 'one\n')
})
