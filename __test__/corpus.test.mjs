// Correctness guard on the shared development corpus (not a timing test): scored by the corpus's own
// scorer through bench/corpus-adapter.mjs, i.e. through the real Node API and real files.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const here = dirname(fileURLToPath(import.meta.url))
const corpus = join(here, '..', '..', 'shared', 'corpus')
const cases = join(corpus, 'robust-dev.jsonl')

test('dev corpus: zero false applies, >= 95% of apply cases, >= 90% top-1 candidates', { skip: !existsSync(cases) && 'shared corpus not present' }, () => {
  const out = execFileSync('python3', [join(corpus, 'score.py'), cases, '--adapter', `node ${join(here, '..', 'bench', 'corpus-adapter.mjs')}`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  const last = out.trim().split('\n').pop()
  const m = /correct (\d+)\/(\d+)\s+false_apply (\d+)\s+missed (\d+)\s+reject_ok (\d+)\s+top1 ([\d.]+)%/.exec(last)
  assert.ok(m, `unexpected scorer output: ${last}`)
  const [, , , falseApply, missed] = m.map(Number)
  const top1 = Number(m[6])
  assert.equal(falseApply, 0, `false applies:\n${out}`)
  const applyCases = [...out.matchAll(/^(\S+)\s+(\d+)\s+(\d+)\s+(\d+) \|/gm)].filter((r) => r[1] === 'all').map((r) => Number(r[3]))[0]
  assert.ok(applyCases > 0)
  assert.ok((applyCases - missed) / applyCases >= 0.95, `apply cases correct: ${applyCases - missed}/${applyCases}`)
  assert.ok(top1 >= 90, `top1 ${top1}%`)
})

const dialects = join(corpus, 'dialects-dev.jsonl')

test('dialect corpus: zero false applies, >= 98% of apply cases', { skip: !existsSync(dialects) && 'shared corpus not present' }, () => {
  const out = execFileSync('python3', [join(corpus, 'score.py'), dialects, '--adapter', `node ${join(here, '..', 'bench', 'dialects-adapter.mjs')}`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  const last = out.trim().split('\n').pop()
  const m = /correct (\d+)\/(\d+)\s+false_apply (\d+)\s+missed (\d+)/.exec(last)
  assert.ok(m, `unexpected scorer output: ${last}`)
  const [, , , falseApply, missed] = m.map(Number)
  assert.equal(falseApply, 0, `false applies:\n${out}`)
  const applyCases = [...out.matchAll(/^(\S+)\s+(\d+)\s+(\d+)\s+(\d+) \|/gm)].filter((r) => r[1] === 'all').map((r) => Number(r[3]))[0]
  assert.ok(applyCases > 0)
  assert.ok((applyCases - missed) / applyCases >= 0.98, `apply cases correct: ${applyCases - missed}/${applyCases}`)
})
