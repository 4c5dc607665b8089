// Packaging: `npm pack` the package and the local platform package (the built addon is not in the main
// tarball by design; releases ship it as npm/<platform>), install both into a temp project the way a
// user would, and check that `npx surepatch` answers tools/list there and edits a file.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { REPO, populate, tempDir } from './mcp-helpers.mjs'

const PLATFORM = 'linux-x64-gnu'
const ADDON = `surepatch.${PLATFORM}.node`
const skip =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? `the test installs the ${PLATFORM} platform package; this is ${process.platform}-${process.arch}`
    : !existsSync(join(REPO, ADDON))
      ? `${ADDON} is not built: run \`npm run build\` first`
      : false

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

function pack(dir, dest) {
  const [info] = JSON.parse(npm(['pack', '--json', '--pack-destination', dest], dir))
  return { tarball: join(dest, info.filename), files: info.files.map((f) => f.path) }
}

test('npm pack + install: npx surepatch answers tools/list in a fresh project', { skip, timeout: 600_000 }, async (t) => {
  const tmp = tempDir(t, 'surepatch-pack-')
  const main = pack(REPO, tmp)
  for (const f of ['index.js', 'index.d.ts', 'binding.js', 'bin/surepatch.mjs', 'tools/table.cjs', 'mcp/server.mjs', 'cli/main.mjs', 'cli/args.mjs', 'cli/serve.mjs', 'bin/apply_patch.mjs', 'mcp/http.mjs', 'tools/summary.cjs', 'tools/vocabulary.cjs', 'record.cjs', 'schemas/patch_file.input.json', 'schemas/patch_file.output.json', 'package.json']) {
    assert.ok(main.files.includes(f), `tarball has ${f}`)
  }
  assert.deepEqual(main.files.filter((f) => f.endsWith('.node') || f.startsWith('__test__/') || f.startsWith('src/')), [])

  // The platform package, in a temp copy, with the addon built here.
  const platformDir = join(tmp, 'platform')
  cpSync(join(REPO, 'npm', PLATFORM), platformDir, { recursive: true })
  copyFileSync(join(REPO, ADDON), join(platformDir, ADDON))
  const platform = pack(platformDir, tmp)
  assert.deepEqual(platform.files.sort(), ['README.md', ADDON, 'package.json'].sort())

  const project = join(tmp, 'project')
  populate(project, { 'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }) })
  npm(['install', '--no-audit', '--no-fund', platform.tarball, main.tarball], project)
  assert.ok(existsSync(join(project, 'node_modules', 'surepatch', 'mcp', 'server.mjs')))
  assert.ok(existsSync(join(project, 'node_modules', `surepatch-${PLATFORM}`, ADDON)))

  const root = populate(tempDir(t), { 'hello.txt': 'hello world\n' })
  const transport = new StdioClientTransport({
    command: 'npx',
    // Every tool (the default listing is the `default` profile), to compare with toolDefinitions below.
    args: ['surepatch', '--root', root, '--tools', 'all'],
    cwd: project,
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'packaging-test', version: '0.0.0' })
  await client.connect(transport).catch((e) => assert.fail(`${e.message}; server stderr:\n${stderr}`))
  t.after(() => client.close())
  assert.equal(client.getServerVersion().name, 'surepatch')
  const { tools } = await client.listTools()
  const names = tools.map((x) => x.name)
  assert.ok(names.includes('patch_file') && names.includes('edit_file'), names.join(', '))
  const res = await client.callTool({ name: 'patch_file', arguments: { file_path: 'hello.txt', search_block: 'world', replace_block: 'there' } })
  assert.equal(res.structuredContent.ok, true)
  assert.equal(readFileSync(join(root, 'hello.txt'), 'utf8'), 'hello there\n')

  // The installed package's CommonJS door exposes the same definitions as the server started with
  // every tool (--tools all).
  const script = join(project, 'defs.js')
  writeFileSync(script, "process.stdout.write(JSON.stringify(require('surepatch').toolDefinitions.anthropic.map((d) => d.name)))")
  const defs = JSON.parse(execFileSync(process.execPath, [script], { cwd: project, encoding: 'utf8' }))
  assert.deepEqual(defs, names)
})
