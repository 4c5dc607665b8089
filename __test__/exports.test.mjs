// Every export runs: imported by name from the package under ESM (through package.json `exports`, by
// the package's own name), and required under CommonJS; the two lists agree, internals stay hidden,
// and schemas are importable as `surepatch/schemas/<name>.json`.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import * as esm from 'surepatch'
import { patchFile, errorCodes, toolDefinitions, createToolRunner, ErrorCode, parseBlocks } from 'surepatch'

const require = createRequire(import.meta.url)
const cjs = require('surepatch')
const here = dirname(fileURLToPath(import.meta.url))

test('ESM and CommonJS export the same names, and no internals', () => {
  const named = Object.keys(esm).filter((k) => k !== 'default').sort()
  assert.deepEqual(named, Object.keys(cjs).sort())
  for (const k of named) assert.equal(esm[k], cjs[k], k)
  for (const hidden of ['_callAsync', '_callSync']) {
    assert.equal(hidden in esm, false, hidden)
    assert.equal(Object.keys(cjs).includes(hidden), false, hidden)
  }
})

test('index.d.ts declares exactly the values the package exports', () => {
  const dts = readFileSync(join(here, '..', 'index.d.ts'), 'utf8')
  const declared = [...dts.matchAll(/^export declare (?:function|const) (\w+)/gm)].map((m) => m[1])
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(cjs).sort())
  for (const k of declared) {
    const kind = dts.includes(`export declare function ${k}(`) ? 'function' : 'object'
    assert.equal(typeof cjs[k], kind, k)
  }
})

test('every library function is declared with its generated argument tuple and result type, as the op table says', () => {
  const dts = readFileSync(join(here, '..', 'index.d.ts'), 'utf8')
  const schemas = join(here, '..', 'schemas')
  const title = (f) => JSON.parse(readFileSync(join(schemas, f), 'utf8')).title
  const { ops } = JSON.parse(readFileSync(join(schemas, 'ops.json'), 'utf8'))
  assert.equal(ops.length, 31)
  for (const o of ops) {
    const out = title(o.output)
    // errorCodes() hands back the list itself (the shim unwraps `codes`).
    const ret = o.js === 'errorCodes' ? "CodesSuccess['codes']" : o.sync ? out : `Promise<${out}>`
    const line = `export declare function ${o.js}(...args: ${title(o.args)}): ${ret}`
    assert.ok(dts.split('\n').includes(line), `index.d.ts lacks: ${line}`)
    assert.equal(typeof cjs[o.js], 'function', o.js)
  }
  // Every other declared function is not an engine op, and there is only one.
  const others = [...dts.matchAll(/^export declare function (\w+)/gm)].map((m) => m[1]).filter((n) => !ops.some((o) => o.js === n))
  assert.deepEqual(others, ['createToolRunner'])
})

test('named ESM imports run', async () => {
  assert.equal(typeof patchFile, 'function')
  const r = await patchFile({ file_path: 'nope.txt', search_block: 'a', replace_block: 'b' }, { workspace_root: here })
  assert.equal(r.code, ErrorCode.FILE_NOT_FOUND)
  assert.ok(errorCodes().some((c) => c.code === 'INTERNAL_ERROR'))
  assert.ok(Array.isArray(toolDefinitions.openai) && toolDefinitions.openai.length > 0)
  assert.equal(typeof createToolRunner({ workspaceRoot: here }).call, 'function')
  assert.deepEqual(parseBlocks('<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n').edits, [{ old: 'a\n', new: 'b\n' }])
})

test('every schema file is importable by its package path', () => {
  const files = readdirSync(join(here, '..', 'schemas')).filter((f) => f.endsWith('.json'))
  assert.ok(files.length > 0)
  for (const f of files) {
    const s = require(`surepatch/schemas/${f}`)
    assert.equal(typeof s, 'object', f)
  }
})

test('requiring the library loads no MCP SDK module (only the server does)', async () => {
  const { execFileSync } = await import('node:child_process')
  const out = execFileSync(process.execPath, ['-e', `
    require(${JSON.stringify(join(here, '..', 'index.js'))}).toolDefinitions
    const sdk = Object.keys(require.cache).filter((p) => p.includes('@modelcontextprotocol'))
    process.stdout.write(JSON.stringify(sdk))
  `], { encoding: 'utf8' })
  assert.deepEqual(JSON.parse(out), [])
})
