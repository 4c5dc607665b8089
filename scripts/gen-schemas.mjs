// Writes schemas/<tool>.input.json (and the output schema of a tool named after no op) from tools/table.cjs, the same source as
// the MCP server's tools/list and index.js `toolDefinitions`. Run `npm run schemas` after changing a tool;
// __test__/mcp-wiring.test.mjs fails while the checked-in files differ from what this writes.
//
//   node scripts/gen-schemas.mjs           write the files (and delete stale ones)
//   node scripts/gen-schemas.mjs --check   exit 1 if they differ
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const dir = join(root, 'schemas')
const files = require('../tools/table.cjs').schemaFiles(require('../index.js'))
const check = process.argv.includes('--check')

mkdirSync(dir, { recursive: true })
const present = readdirSync(dir).filter((f) => f.endsWith('.json'))
const problems = []
for (const [name, text] of Object.entries(files)) {
  let old = null
  try {
    old = readFileSync(join(dir, name), 'utf8')
  } catch {}
  if (old === text) continue
  if (check) problems.push(`${old === null ? 'missing' : 'differs'}: schemas/${name}`)
  else writeFileSync(join(dir, name), text)
}
// The files src/contract generates (`cargo run --example contract`, run first by `npm run schemas`).
const table = JSON.parse(readFileSync(join(dir, 'ops.json'), 'utf8'))
const fromRust = new Set(['ops.json', ...table.ops.flatMap((o) => [o.output, o.args])])
for (const name of present.filter((f) => !(f in files) && !fromRust.has(f))) {
  if (check) problems.push(`stale: schemas/${name}`)
  else rmSync(join(dir, name))
}
if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\nRun \`npm run schemas\` and commit the result.\n`)
  process.exit(1)
}
process.stdout.write(`${check ? 'checked' : 'wrote'} ${Object.keys(files).length} schema files in schemas/\n`)
