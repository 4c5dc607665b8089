// One edit in a fresh process, for the peak-RSS measurement (P4). Run by bench/run.mjs, usually under
// `/usr/bin/time -v`. Prints one JSON line: the child's maxRSS (bytes) from process.resourceUsage(),
// and its RSS right before the edit (after loading the addon and reading the edit's arguments).
//
//   node bench/rss-child.mjs surepatch|js|node-floor|mcp <root> <file> <search_file> <replace_file>
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const [impl, root, file, searchFile, replaceFile] = process.argv.slice(2)
const search = searchFile ? readFileSync(searchFile, 'utf8') : ''
const replace = replaceFile ? readFileSync(replaceFile, 'utf8') : ''
let run
if (impl === 'surepatch') {
  const lib = createRequire(import.meta.url)('../index.js')
  run = async () => {
    const r = await lib.patchFile({ filePath: file, searchBlock: search, replaceBlock: replace }, { workspaceRoot: root })
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`)
  }
} else if (impl === 'js') {
  const { jsEdit } = await import('./js-baseline.mjs')
  run = async () => {
    const r = await jsEdit(file, search, replace)
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`)
  }
} else if (impl === 'mcp') {
  const m = await import('../node_modules/@modelcontextprotocol/server-filesystem/dist/lib.js')
  run = () => m.applyFileEdits(file, [{ oldText: search, newText: replace }], false)
} else if (impl === 'node-floor') {
  const { nodeFloor } = await import('./js-baseline.mjs')
  run = () => nodeFloor(file)
} else {
  throw new Error(`unknown impl ${impl}`)
}
const before = process.memoryUsage().rss
const t = performance.now()
await run()
const ms = performance.now() - t
// resourceUsage().maxRSS is in kilobytes.
console.log(JSON.stringify({ impl, rss_before: before, max_rss: process.resourceUsage().maxRSS * 1024, ms }))
