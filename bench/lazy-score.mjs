// Scores a lazy-snippet corpus (../shared/corpus/lazy-dev.jsonl; its README says how) through an
// adapter command: each case's {id, path, file, snippet} goes to the adapter's stdin, one JSON line per
// case, and its answers are judged against the case's expectation.
//
//   node bench/lazy-score.mjs ../shared/corpus/lazy-dev.jsonl [--adapter "node bench/lazy-adapter.mjs"] [--show N]
//
// Verdicts: ok_apply (wrote `result`; trailing whitespace aside), false_apply (any other write, or a
// write where a refusal was expected: the worst), missed (an apply case refused), reject_ok.
import { readFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const here = dirname(fileURLToPath(import.meta.url))
const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv.splice(i, 2)[1] : dflt
}
const adapter = opt('--adapter', `node ${join(here, 'lazy-adapter.mjs')}`)
const show = Number(opt('--show', '0'))
const corpus = argv[0] || join(here, '..', '..', 'shared', 'corpus', 'lazy-dev.jsonl')
const cases = readFileSync(corpus, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
const input = cases.map(({ id, path, file, snippet }) => JSON.stringify({ id, path, file, snippet })).join('\n') + '\n'
const run = spawnSync('sh', ['-c', adapter], { input, maxBuffer: 1 << 30, encoding: 'utf8' })
if (run.status !== 0) {
  process.stderr.write(run.stderr)
  process.exit(1)
}
const answers = new Map(run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).map((a) => [a.id, a]))
const trail = (s) => s.split('\n').map((l) => l.replace(/[ \t\r]+$/, '')).join('\n')
const byCat = new Map()
const total = { ok_apply: 0, false_apply: 0, missed: 0, reject_ok: 0 }
let shown = 0
for (const c of cases) {
  const a = answers.get(c.id) || { outcome: 'reject', code: 'NO_ANSWER' }
  let v
  if (a.outcome === 'apply') {
    v = c.expect === 'apply' && a.ok !== false && trail(a.result) === trail(c.result) && !(a.extra || []).length ? 'ok_apply' : 'false_apply'
  } else {
    v = c.expect === 'apply' ? 'missed' : a.code ? 'reject_ok' : 'false_apply'
  }
  total[v]++
  const s = byCat.get(c.category) || { ok_apply: 0, false_apply: 0, missed: 0, reject_ok: 0 }
  s[v]++
  byCat.set(c.category, s)
  if ((v === 'false_apply' || v === 'missed') && shown < show) {
    shown++
    console.log(`--- ${c.id} ${v} ${a.code || ''}`)
  }
}
for (const [cat, s] of [...byCat].sort()) {
  console.log(`${cat.padEnd(22)} ok_apply ${s.ok_apply}  false_apply ${s.false_apply}  missed ${s.missed}  reject_ok ${s.reject_ok}`)
}
const applies = cases.filter((c) => c.expect === 'apply').length
const rejects = cases.length - applies
console.log(
  `correct ${total.ok_apply + total.reject_ok}/${cases.length}  merged ${total.ok_apply}/${applies} (${((100 * total.ok_apply) / applies).toFixed(1)}%)  false_apply ${total.false_apply}  missed ${total.missed}  reject_ok ${total.reject_ok}/${rejects}`,
)
