#!/usr/bin/env node
// surepatch: a stdio MCP server for deterministic file edits. stdout carries only the protocol; logs go
// to stderr. Run `surepatch --help` for the options.
import { statSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
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

const { DEFAULT_MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES_LIMIT, LineTransport } = await import('../mcp/transport.mjs')
let maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES
if (options.maxMessageBytes !== undefined) {
  maxMessageBytes = Number(options.maxMessageBytes)
  if (!/^[0-9]+$/.test(options.maxMessageBytes) || maxMessageBytes < 1024 || maxMessageBytes > MAX_MESSAGE_BYTES_LIMIT) {
    fail(`--max-message-bytes must be a whole number from 1024 to ${MAX_MESSAGE_BYTES_LIMIT}; got ${JSON.stringify(options.maxMessageBytes)}`)
  }
}

// Every exit says why on stderr (stdout carries only the protocol).
const log = (line) => process.stderr.write(`surepatch: ${line}\n`)
let exitReason = null
const exitWith = (code, reason) => {
  exitReason = reason
  process.exit(code)
}
process.on('exit', (code) => log(`exiting with code ${code}: ${exitReason || 'nothing left to do'}`))
process.on('uncaughtException', (e) => {
  log(`uncaught exception: ${e && e.stack ? e.stack : e}`)
  exitWith(1, 'uncaught exception')
})
process.on('unhandledRejection', (e) => {
  log(`unhandled rejection: ${e && e.stack ? e.stack : e}`)
  exitWith(1, 'unhandled rejection')
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => exitWith(128 + osConstants.signals[signal], `received ${signal}`))
}
process.stdin.on('end', () => {
  exitReason = 'stdin ended (the client closed the connection)'
  log(`${exitReason}; exiting once pending calls are answered`)
})
process.stdout.on('error', (e) => {
  // The client went away: nothing left to answer.
  if (e && e.code === 'EPIPE') exitWith(0, 'stdout closed by the client (EPIPE)')
  log(`stdout: ${e && e.message ? e.message : e}`)
  exitWith(1, 'stdout error')
})
const { createServer } = await import('../mcp/server.mjs')
const { server, tools } = createServer({ root, requireRead: Boolean(options.requireRead), validate, log })
server.onerror = (e) => log(`protocol error: ${e && e.message ? e.message : e}`)
await server.connect(new LineTransport({ maxMessageBytes, log }))
log(`${pkg.version} serving ${tools.length} tools for ${root}${options.requireRead ? ' (read-before-edit)' : ''}, syntax gate ${validate}`)
