// The node step of `npm test`: runs `node --test __test__/` with every result recorded
// (SUREPATCH_RECORD_RESULTS, see record.cjs), then checks the records against schemas/
// (scripts/check-results.mjs). The records go to .test-results/ (gitignored), emptied first and kept
// afterwards, so `node scripts/check-results.mjs .test-results` can be run again on its own.
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const dir = join(root, '.test-results')
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })

const run = (args, env) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env })
  if (r.error) throw r.error
  return r.status === null ? 1 : r.status
}
const env = Object.assign({}, process.env)
delete env.SUREPATCH_RECORD_RESULTS
const tests = run(['--test', '__test__/'], Object.assign({}, env, { SUREPATCH_RECORD_RESULTS: dir }))
if (tests !== 0) process.exit(tests)
process.exit(run([join('scripts', 'check-results.mjs'), dir], env))
