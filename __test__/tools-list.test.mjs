// Issue #27 §5: the default tools/list costs at most 2,500 tokens (o200k_base), tools are chosen with
// --tools (names and the profiles minimal, default, all; on `surepatch` and `surepatch mcp`), output
// schemas are opt-in (--output-schemas), and the text of read_many_files, search_files and
// list_directory results carries file content as raw text, never escaped JSON. Through an SDK client
// over stdio, and the command line as a subprocess.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { BIN, RECORD_ENV, populate, tempDir } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const tools = require('../tools/table.cjs')
const { PROFILES } = require('../tools/profiles.cjs')

const BUDGET = 2500

// The real server over stdio with exactly `args` (no test defaults).
async function connect(t, args) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env: { ...getDefaultEnvironment(), ...RECORD_ENV }, stderr: 'pipe' })
  const client = new Client({ name: 'tools-list-test', version: '0.0.0' })
  await client.connect(transport)
  t.after(() => client.close())
  const { tools: listed } = await client.listTools()
  return { client, listed }
}

const tokens = (listed) => encode(JSON.stringify({ tools: listed })).length

test('the default tools/list: the default profile, no output schemas, at most 2,500 tokens', { timeout: 30_000 }, async (t) => {
  const root = tempDir(t)
  const { listed } = await connect(t, ['--root', root])
  const inOrder = (names) => tools.ALL_TOOLS.filter((n) => names.includes(n))
  assert.deepEqual(listed.map((x) => x.name), inOrder(PROFILES.default))
  for (const x of listed) {
    assert.equal(x.outputSchema, undefined, x.name)
    assert.ok(x.description.length > 100, x.name)
    assert.equal(x.inputSchema.type, 'object', x.name)
  }
  const n = tokens(listed)
  assert.ok(n <= BUDGET, `the default tools/list is ${n} tokens`)
  // The same count without a client: what mcpTools gives for the profile.
  assert.equal(tokens(tools.mcpTools(require('../index.js'), { tools: PROFILES.default, outputSchemas: false })), n)
})

test('--tools: profiles and names, on `surepatch` and `surepatch mcp`; unlisted tools cannot be called', { timeout: 60_000 }, async (t) => {
  const root = populate(tempDir(t), { 'a.txt': 'a\n' })
  const minimal = await connect(t, ['mcp', '--root', root, '--tools', 'minimal'])
  assert.deepEqual(minimal.listed.map((x) => x.name), tools.ALL_TOOLS.filter((n) => PROFILES.minimal.includes(n)))
  assert.ok(tokens(minimal.listed) < tokens((await connect(t, ['--root', root])).listed))
  const two = await connect(t, ['--root', root, '--tools', 'search_files,view_file'])
  assert.deepEqual(two.listed.map((x) => x.name), ['view_file', 'search_files'])
  await assert.rejects(two.client.callTool({ name: 'write_file', arguments: { file_path: 'b.txt', content: 'b\n' } }), /Unknown tool: write_file/)
  const mixed = await connect(t, ['--root', root, '--tools', 'minimal,move_file'])
  assert.deepEqual(mixed.listed.map((x) => x.name), tools.ALL_TOOLS.filter((n) => [...PROFILES.minimal, 'move_file'].includes(n)))
  const all = await connect(t, ['--root', root, '--tools', 'all', '--output-schemas'])
  assert.deepEqual(all.listed.map((x) => x.name), tools.ALL_TOOLS)
  for (const x of all.listed) assert.equal(x.outputSchema.type, 'object', x.name)
  // A bad list is a usage error before anything starts.
  for (const args of [['--tools', 'nope'], ['mcp', '--tools', 'view_file,'], ['--tools', ',']]) {
    const r = spawnSync(process.execPath, [BIN, ...args, '--root', root], { encoding: 'utf8', timeout: 20_000, input: '' })
    if (args.includes('nope')) assert.match(r.stderr, /unknown tool or profile "nope"; profiles are minimal, default, all/)
    if (args[1] === ',') assert.match(r.stderr, /selects no tool/)
    // (an empty item is skipped: "view_file," serves view_file, and says which hinted tools it leaves out)
    if (args.includes('view_file,')) assert.match(r.stderr, /serving 1 tools .*\n[^]*leaves out|leaves out edit_file, edit_lines, write_file/)
    assert.equal(r.status, args.includes('view_file,') ? 0 : 2, `${args.join(' ')}: ${r.stderr}`)
  }
})

test('read_many_files, search_files and list_directory: the text carries file content raw, not escaped JSON', { timeout: 30_000 }, async (t) => {
  const src = 'const s = "tab\\there";\nfoo("x")\nbar()\n'
  const root = populate(tempDir(t), { 'a.js': src, 'sub/b.txt': 'b\n' })
  const { client } = await connect(t, ['--root', root, '--tools', 'all'])
  const text = async (name, args) => {
    const r = await client.callTool({ name, arguments: args })
    assert.equal(r.structuredContent.ok, true, JSON.stringify(r.structuredContent))
    assert.throws(() => JSON.parse(r.content[0].text), SyntaxError)
    return r.content[0].text
  }
  const many = await text('read_many_files', { files: ['a.js', 'missing.js'] })
  assert.ok(many.includes(src), many)
  assert.match(many, /^missing\.js: FILE_NOT_FOUND: /m)
  assert.doesNotMatch(many, /\\"|\\n/)
  const found = await text('search_files', { query: 'foo', context_lines: 1 })
  assert.equal(found, '1 matching line(s)\na.js:\n1- const s = "tab\\there";\n2: foo("x")\n3- bar()\n')
  const listing = await text('list_directory', { depth: 2 })
  assert.match(listing, /^a\.js \(\d+ bytes\)$/m)
  assert.match(listing, /^sub\/$/m)
  assert.match(listing, /^sub\/b\.txt \(2 bytes\)$/m)
})
