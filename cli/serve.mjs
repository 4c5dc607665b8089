// `surepatch [mcp]`: the MCP server, on stdio (stdout carries only the protocol; logs go to stderr) or
// over Streamable HTTP (--http). Every value is checked before anything starts (UsageError: exit 2).
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { constants as osConstants } from 'node:os'
import { resolve } from 'node:path'
import { statSync } from 'node:fs'
import { UsageError } from './args.mjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')

export async function serve(values) {
  // Explicit root (flag or environment) fixes the root; otherwise the client's roots, else the cwd.
  const given = values.root || process.env.SUREPATCH_WORKSPACE_ROOT
  const root = given ? resolve(given) : undefined
  const shown = root || process.cwd()
  let isDir = false
  try {
    isDir = statSync(shown).isDirectory()
  } catch {}
  if (!isDir) throw new UsageError(`workspace root ${shown} is not a directory`)

  const validate = values.validate || process.env.SUREPATCH_VALIDATE || 'report'
  if (!['off', 'report', 'enforce'].includes(validate)) {
    throw new UsageError(`--validate (or SUREPATCH_VALIDATE) must be one of off, report, enforce; got ${JSON.stringify(validate)}`)
  }
  const { selectTools } = require('../tools/profiles.cjs')
  try {
    selectTools(values.tools, require('../tools/table.cjs').ALL_TOOLS)
  } catch (e) {
    throw new UsageError(e.message)
  }
  const { DEFAULT_MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES_LIMIT, LineTransport } = await import('../mcp/transport.mjs')
  let maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES
  const m = values['max-message-bytes']
  if (m !== undefined) {
    maxMessageBytes = Number(m)
    if (!/^[0-9]+$/.test(m) || maxMessageBytes < 1024 || maxMessageBytes > MAX_MESSAGE_BYTES_LIMIT) {
      throw new UsageError(`--max-message-bytes must be a whole number from 1024 to ${MAX_MESSAGE_BYTES_LIMIT}; got ${JSON.stringify(m)}`)
    }
  }
  let sessionIdleMs
  const idle = values['session-idle']
  if (idle !== undefined) {
    if (!/^[0-9]+$/.test(idle) || Number(idle) < 1 || Number(idle) > 604800) {
      throw new UsageError(`--session-idle must be a whole number of seconds from 1 to 604800; got ${JSON.stringify(idle)}`)
    }
    if (values.http === undefined) throw new UsageError('--session-idle is for --http')
    sessionIdleMs = Number(idle) * 1000
  }
  let maxSessions
  const ms = values['max-sessions']
  if (ms !== undefined) {
    if (!/^[0-9]+$/.test(ms) || Number(ms) < 1 || Number(ms) > 100000) {
      throw new UsageError(`--max-sessions must be a whole number from 1 to 100000; got ${JSON.stringify(ms)}`)
    }
    maxSessions = Number(ms)
  }
  let listen = null
  if (values.http !== undefined) {
    const { normalizeOrigin, parseListen } = await import('../mcp/http.mjs')
    try {
      listen = parseListen(values.http)
    } catch (e) {
      throw new UsageError(e.message)
    }
    for (const o of values['allow-origin'] || []) {
      if (!normalizeOrigin(o)) throw new UsageError(`--allow-origin takes an origin, scheme://host[:port] (http or https, no path); got ${JSON.stringify(o)}`)
    }
  } else {
    for (const flag of ['allow-host', 'allow-origin', 'max-sessions']) if (values[flag] !== undefined) throw new UsageError(`--${flag} is for --http`)
  }
  const token = process.env.SUREPATCH_HTTP_TOKEN || undefined
  if (listen && token !== undefined && token.length < 16) throw new UsageError('SUREPATCH_HTTP_TOKEN must be at least 16 characters')

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
  const { createServer, implicitRootRefusal } = await import('../mcp/server.mjs')
  const config = { root, requireRead: Boolean(values['require-read']), validate, log, tools: values.tools, outputSchemas: Boolean(values['output-schemas']) }
  // `/` and the home directory are never served unless named (--root or SUREPATCH_WORKSPACE_ROOT).
  const refusal = root ? null : implicitRootRefusal(shown)
  if (refusal) log(`warning: ${refusal}`)
  const fallback = refusal ? 'else nothing' : `else ${shown}`
  const what = `${root ? `for ${root}` : `for the client's roots (${fallback})`}${values['require-read'] ? ' (read-before-edit)' : ''}, syntax gate ${validate}`

  if (listen) {
    const { startHttp } = await import('../mcp/http.mjs')
    const secret = token || randomBytes(24).toString('base64url')
    const h = await startHttp({
      ...listen,
      token: secret,
      allowHosts: values['allow-host'] || [],
      allowOrigins: values['allow-origin'] || [],
      maxMessageBytes,
      sessionIdleMs,
      maxSessions,
      log,
      makeServer: () => createServer({ ...config, foreignRoots: 'default', isolateUndo: true }),
    })
    if (!token) log(`HTTP bearer token (shown once; set SUREPATCH_HTTP_TOKEN to choose it): ${secret}`)
    log(`${pkg.version} serving ${createServer({ ...config, log: () => {} }).tools.length} tools over HTTP at ${h.url} ${what}`)
    return 0
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
  const { server, tools } = createServer(config)
  server.onerror = (e) => log(`protocol error: ${e && e.message ? e.message : e}`)
  await server.connect(new LineTransport({ maxMessageBytes, log }))
  log(`${pkg.version} serving ${tools.length} tools ${what}`)
  return 0
}
