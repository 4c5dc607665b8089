#!/usr/bin/env node
// surepatch: a stdio MCP server for deterministic file edits. stdout carries only the protocol; logs go
// to stderr. Run `surepatch --help` for the options.
import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { parseArgs, usage } from '../mcp/cli.mjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')

function fail(message) {
  process.stderr.write(`surepatch: ${message}\n${usage()}`)
  process.exit(2)
}

let options
try {
  options = parseArgs(process.argv.slice(2))
} catch (e) {
  fail(e.message)
}
if (options.help) {
  process.stdout.write(usage())
  process.exit(0)
}
if (options.version) {
  process.stdout.write(`${pkg.version}\n`)
  process.exit(0)
}

const root = resolve(options.root || process.env.SUREPATCH_WORKSPACE_ROOT || process.cwd())
let isDir = false
try {
  isDir = statSync(root).isDirectory()
} catch {}
if (!isDir) fail(`workspace root ${root} is not a directory`)

const validate = options.validate || process.env.SUREPATCH_VALIDATE || 'report'
if (!['off', 'report', 'enforce'].includes(validate)) {
  fail(`--validate (or SUREPATCH_VALIDATE) must be off, report or enforce; got ${JSON.stringify(validate)}`)
}

const log = (line) => process.stderr.write(`surepatch: ${line}\n`)
// The client went away: nothing left to answer.
process.stdout.on('error', (e) => {
  if (e && e.code === 'EPIPE') process.exit(0)
  log(`stdout: ${e && e.message ? e.message : e}`)
  process.exit(1)
})
const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
const { createServer } = await import('../mcp/server.mjs')
const { server, tools } = createServer({ root, requireRead: Boolean(options.requireRead), validate, log })
await server.connect(new StdioServerTransport())
log(`${pkg.version} serving ${tools.length} tools for ${root}${options.requireRead ? ' (read-before-edit)' : ''}, syntax gate ${validate}`)
