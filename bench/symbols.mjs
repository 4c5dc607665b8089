// listSymbols and editSymbol speed (issue #29).
//
//   node --expose-gc bench/symbols.mjs [--runs=N] [--lib=DIR]
//
// S1  listSymbols on a 5,000-line TypeScript file (217 classes of 4 documented methods) and a
//     5,000-line Python file (263 classes of 4 methods), cold and warm. Cold: every run outlines a file the process has not parsed (a
//     comment on line 1 differs), so the call pays a full tree-sitter parse — what a first
//     listSymbols of a file costs. Warm: the same file again — what a real caller pays after an edit
//     or an earlier listSymbols of it (the parse cache keeps the tree of every file it parsed and of
//     every edit's result). Goal: ≤ 5 ms (median). Also viewFile of the .ts file before and after the
//     process used symbols (after, a view queues a background parse of the file), and listSymbols
//     right after and 100 ms after a viewFile of a file the process has not parsed.
// S2  editSymbol replace of one 5-line method in the middle of the TypeScript file against patchFile
//     of the same region (search_block = the method's old text), interleaved, each run toggling the
//     method between two bodies so every call writes. patchFile runs with validate "report" (the gate
//     editSymbol always runs) and with the default "off"; then the same calls as dry runs (no write,
//     no fsync). Goal: editSymbol ≤ 1.5× patchFile.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const arg = (name, dflt) => (process.argv.find((a) => a.startsWith(`--${name}=`)) || `--${name}=${dflt}`).split('=')[1]
const RUNS = Number(arg('runs', 31))
const sp = require(path.resolve(arg('lib', path.join(path.dirname(new URL(import.meta.url).pathname), '..')), 'index.js'))
const gc = () => globalThis.gc && globalThis.gc()
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6
// CPU time of the whole process (every thread: the addon runs calls on its own), in ms: steadier than
// wall time on a shared machine.
const cpu = (c0) => {
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}

// Whole classes only (a cut class would leave the file with a parse error, which makes every
// syntax check of it costlier), then comment lines up to exactly 5,000 lines.
function tsFile(tag) {
  const out = [`// ${tag}`]
  for (let c = 0; out.length + 23 <= 5000; c++) {
    out.push(`export class Service${c} {`)
    for (let m = 0; m < 4; m++) {
      out.push(`  /** Method ${m}. */`, `  method${m}(x: number): number {`, `    const y = x * ${m + 1};`, `    return y + ${c};`, '  }')
    }
    out.push('}', '')
  }
  while (out.length < 5000) out.push('// end')
  return out.join('\n') + '\n'
}

function pyFile(tag) {
  const out = [`# ${tag}`]
  for (let c = 0; out.length + 19 <= 5000; c++) {
    out.push('', '', `class Service${c}:`)
    for (let m = 0; m < 4; m++) out.push(`    def method${m}(self, x):`, `        y = x * ${m + 1}`, `        return y + ${c}`, '')
  }
  while (out.length < 5000) out.push('# end')
  return out.join('\n') + '\n'
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'surepatch-symbols-'))
const o = { workspace_root: root }
const rows = []
const sleep = (n) => new Promise((r) => setTimeout(r, n))

// One timed call: [wall ms, CPU ms, result].
async function timed(f) {
  gc()
  const t0 = process.hrtime.bigint()
  const c0 = process.cpuUsage()
  const r = await f()
  const c = cpu(c0)
  return [ms(t0), c, r]
}

// viewFile of a fresh file before this process used symbols or the gate: views parse nothing.
async function views(tag) {
  const wall = []
  const cpus = []
  for (let i = 0; i < RUNS; i++) {
    const name = `view-${tag}${i}.ts`
    fs.writeFileSync(path.join(root, name), tsFile(`${tag} ${i} ${Math.random()}`))
    const [w, c, r] = await timed(() => sp.viewFile(name, o))
    if (!r.ok) throw new Error(JSON.stringify(r))
    wall.push(w)
    cpus.push(c)
    await sleep(50)
  }
  return [median(wall), median(cpus)]
}
rows.push(['S1 viewFile, 5,000-line .ts, before any symbol call or gate (parses nothing)', ...(await views('before'))])

for (const [ext, make] of [['ts', tsFile], ['py', pyFile]]) {
  const cold = []
  const warm = []
  const coldCpu = []
  const warmCpu = []
  let count = 0
  for (let i = 0; i < RUNS; i++) {
    const name = `cold${i}.${ext}`
    fs.writeFileSync(path.join(root, name), make(`run ${i} ${Math.random()}`))
    gc()
    let t0 = process.hrtime.bigint()
    let c0 = process.cpuUsage()
    const r = await sp.listSymbols(name, o)
    coldCpu.push(cpu(c0))
    cold.push(ms(t0))
    if (!r.ok) throw new Error(JSON.stringify(r))
    count = r.symbol_count
    gc()
    t0 = process.hrtime.bigint()
    c0 = process.cpuUsage()
    await sp.listSymbols(name, o)
    warmCpu.push(cpu(c0))
    warm.push(ms(t0))
  }
  rows.push([`S1 listSymbols, 5,000-line .${ext} (${count} symbols), cold`, median(cold), median(coldCpu)])
  rows.push([`S1 listSymbols, 5,000-line .${ext}, warm`, median(warm), median(warmCpu)])
}

// After symbol calls, a view hands the file to a background parse (the view does not wait): what a
// caller pays for listSymbols of a file it viewed, at once and after 100 ms (a model's turn takes
// longer than that).
{
  rows.push(['S1 viewFile, 5,000-line .ts, after symbol calls (queues a background parse)', ...(await views('after'))])
  for (const pause of [0, 100]) {
    const wall = []
    const cpus = []
    for (let i = 0; i < RUNS; i++) {
      const name = `viewed${pause}-${i}.ts`
      fs.writeFileSync(path.join(root, name), tsFile(`viewed ${i} ${Math.random()}`))
      const v = await sp.viewFile(name, o)
      if (!v.ok) throw new Error(JSON.stringify(v))
      if (pause) await sleep(pause)
      const [w, c, r] = await timed(() => sp.listSymbols(name, o))
      if (!r.ok) throw new Error(JSON.stringify(r))
      wall.push(w)
      cpus.push(c)
      await sleep(50)
    }
    rows.push([`S1 listSymbols, 5,000-line .ts, ${pause ? `${pause} ms after` : 'right after'} a viewFile of it`, median(wall), median(cpus)])
  }
}

{
  const text = tsFile('edit')
  fs.writeFileSync(path.join(root, 'e.ts'), text)
  const bodies = ['    return y + 125;', '    return y - 125;']
  const method = (b) => `  /** Method 2. */\n  method2(x: number): number {\n    const y = x * 3;\n${b}\n  }`
  const times = { edit: [], patchReport: [], patchOff: [] }
  const cpus = { edit: [], patchReport: [], patchOff: [] }
  let state = 0
  for (let i = 0; i < RUNS; i++) {
    for (const kind of ['edit', 'patchReport', 'patchOff']) {
      const from = method(bodies[state])
      const to = method(bodies[1 - state])
      gc()
      const t0 = process.hrtime.bigint()
      const c0 = process.cpuUsage()
      const r = kind === 'edit'
        ? await sp.editSymbol({ file_path: 'e.ts', name_path: 'Service125/method2', action: 'replace', text: to }, o)
        : await sp.patchFile({ file_path: 'e.ts', search_block: from, replace_block: to }, { ...o, validate: kind === 'patchReport' ? 'report' : 'off' })
      cpus[kind].push(cpu(c0))
      times[kind].push(ms(t0))
      if (!r.ok) throw new Error(`${kind}: ${JSON.stringify(r)}`)
      state = 1 - state
    }
  }
  const [e, pr, po] = ['edit', 'patchReport', 'patchOff'].map((k) => median(times[k]))
  const [ec, prc, poc] = ['edit', 'patchReport', 'patchOff'].map((k) => median(cpus[k]))
  rows.push(['S2 editSymbol replace, 5-line method of a 5,000-line .ts', e, ec])
  rows.push(['S2 patchFile same region, validate "report"', pr, prc])
  rows.push(['S2 patchFile same region, validate "off"', po, poc])
  rows.push(['S2 ratio editSymbol / patchFile (report)', e / pr, ec / prc, 'x'])
  rows.push(['S2 ratio editSymbol / patchFile (off)', e / po, ec / poc, 'x'])

  // The same calls as dry runs: no write, no fsync (the engine's own work only).
  const dry = { edit: [], patchReport: [], patchOff: [] }
  const dryCpu = { edit: [], patchReport: [], patchOff: [] }
  for (let i = 0; i < RUNS; i++) {
    for (const kind of ['edit', 'patchReport', 'patchOff']) {
      const from = method(bodies[state])
      const to = method(bodies[1 - state])
      const opts = { ...o, dry_run: true, validate: kind === 'patchOff' ? 'off' : 'report' }
      const [w, c, r] = await timed(() => kind === 'edit'
        ? sp.editSymbol({ file_path: 'e.ts', name_path: 'Service125/method2', action: 'replace', text: to }, opts)
        : sp.patchFile({ file_path: 'e.ts', search_block: from, replace_block: to }, opts))
      if (!r.ok) throw new Error(`${kind}: ${JSON.stringify(r)}`)
      dry[kind].push(w)
      dryCpu[kind].push(c)
    }
  }
  const [de, dpr, dpo] = ['edit', 'patchReport', 'patchOff'].map((k) => median(dry[k]))
  const [dec, dprc, dpoc] = ['edit', 'patchReport', 'patchOff'].map((k) => median(dryCpu[k]))
  rows.push(['S2 editSymbol replace, dry run', de, dec])
  rows.push(['S2 patchFile same region, validate "report", dry run', dpr, dprc])
  rows.push(['S2 patchFile same region, validate "off", dry run', dpo, dpoc])
  rows.push(['S2 ratio editSymbol / patchFile (report), dry run', de / dpr, dec / dprc, 'x'])
  rows.push(['S2 ratio editSymbol / patchFile (off), dry run', de / dpo, dec / dpoc, 'x'])
}

fs.rmSync(root, { recursive: true, force: true })
console.log(`| measure (median of ${RUNS}) | wall | CPU |\n|---|---|---|`)
for (const [what, v, c, unit] of rows) console.log(`| ${what} | ${v.toFixed(2)}${unit || ' ms'} | ${c.toFixed(2)}${unit || ' ms'} |`)
