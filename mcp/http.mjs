// The MCP server over Streamable HTTP (the SDK's StreamableHTTPServerTransport) at /mcp, for a workspace
// that a harness on another machine (or outside a container) must reach.
//
// - Every request needs `Authorization: Bearer <token>` (401 otherwise, before the body is read); the
//   token is compared in constant time.
// - DNS-rebinding protection: the SDK's Host header validation (port-agnostic hostnames), always on:
//   loopback names, plus the bound host, plus (bound to every interface) this machine's hostname and
//   interface addresses, plus `allowHosts`.
// - Sessions are isolated: each initialize request gets its own MCP server and tool runner (so the
//   read-before-edit ledger and the client's roots are per client), until the client ends it (DELETE)
//   or the connection's transport closes.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import { once } from 'node:events'
import { hostname, networkInterfaces } from 'node:os'
import express from 'express'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]']
const WILDCARD = ['0.0.0.0', '::', '[::]']

const rpcError = (code, message) => ({ jsonrpc: '2.0', error: { code, message }, id: null })

/** The hostnames the Host header may name, for a server bound to `host`. */
export function allowedHostnames(host, extra = []) {
  const names = new Set(LOOPBACK)
  const bracket = (h) => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h)
  if (WILDCARD.includes(host)) {
    names.add(hostname())
    for (const list of Object.values(networkInterfaces())) for (const i of list || []) names.add(bracket(i.address))
  } else {
    names.add(bracket(host))
  }
  for (const h of extra) names.add(bracket(h))
  return [...names]
}

/**
 * Parses `--http [HOST:]PORT`: `{host, port}` (host 127.0.0.1 unless given), or throws with the reason.
 */
export function parseListen(value) {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value)
  if (!m || Number(m[2]) > 65535) throw new Error(`--http takes [HOST:]PORT (PORT 0-65535, an IPv6 host in brackets); got ${JSON.stringify(value)}`)
  let host = m[1] || '127.0.0.1'
  if (host.startsWith('[')) host = host.slice(1, -1)
  return { host, port: Number(m[2]) }
}

/**
 * Starts the HTTP server. `makeServer()` returns a fresh `{server}` (mcp/server.mjs createServer) for
 * each session. A session without a request for `sessionIdleMs` (default 30 minutes) is closed (its
 * id then gets 404, as after a restart), so clients that vanish without a DELETE do not keep a server
 * and its read-before-edit state alive forever.
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>, sessions: Map<string, object>}>}
 */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000

export async function startHttp({ host, port, token, allowHosts = [], makeServer, log, maxMessageBytes, sessionIdleMs = DEFAULT_SESSION_IDLE_MS }) {
  if (typeof token !== 'string' || token.length < 16) throw new Error('the HTTP token must be a string of at least 16 characters')
  const digest = (s) => createHash('sha256').update(s).digest()
  const expected = digest(token)
  const sessions = new Map()

  const app = express()
  app.disable('x-powered-by')
  app.use(hostHeaderValidation(allowedHostnames(host, allowHosts)))
  app.use((req, res, next) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization || '')
    if (m && timingSafeEqual(digest(m[1]), expected)) return next()
    res.set('WWW-Authenticate', 'Bearer realm="surepatch"')
    res.status(401).json(rpcError(-32001, m ? 'Unauthorized: wrong bearer token' : 'Unauthorized: send "Authorization: Bearer <token>" (the token surepatch printed at start, or $SUREPATCH_HTTP_TOKEN)'))
  })
  app.use('/mcp', express.json({ limit: maxMessageBytes, type: () => true }))

  app.all('/mcp', async (req, res) => {
    try {
      const id = req.headers['mcp-session-id']
      if (typeof id === 'string') {
        const s = sessions.get(id)
        if (!s) return res.status(404).json(rpcError(-32001, `Session not found: ${id} (it ended, was idle too long, or the server restarted); initialize a new one`))
        s.last = Date.now()
        return await s.transport.handleRequest(req, res, req.body)
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return res.status(400).json(rpcError(-32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request'))
      }
      const { server } = makeServer()
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, { transport, server, last: Date.now() })
          log(`HTTP session ${sid} started (${sessions.size} open)`)
        },
      })
      transport.onclose = () => {
        const sid = transport.sessionId
        if (sid && sessions.delete(sid)) log(`HTTP session ${sid} ended${transport.idle ? ` after ${Math.round(sessionIdleMs / 1000)} s idle` : ''} (${sessions.size} open)`)
      }
      await server.connect(transport)
      await transport.handleRequest(req, res, req.body)
    } catch (e) {
      log(`HTTP request failed: ${e && e.stack ? e.stack : e}`)
      if (!res.headersSent) res.status(500).json(rpcError(-32603, 'Internal error'))
    }
  })
  app.use((req, res) => res.status(404).json(rpcError(-32601, `Not found: ${req.path}; the MCP endpoint is /mcp`)))
  // Body parser errors (bad JSON, too large) as JSON-RPC errors.
  app.use((err, _req, res, _next) => {
    const status = err && err.status ? err.status : 500
    const message =
      err && err.type === 'entity.too.large'
        ? `request of ${err.length} bytes is above this server's limit of ${maxMessageBytes} bytes (surepatch --max-message-bytes); nothing was written`
        : err && err.type === 'entity.parse.failed'
          ? 'Parse error: the body is not JSON'
          : 'Internal error'
    res.status(status).json(rpcError(status === 413 ? -32600 : status === 400 ? -32700 : -32603, message))
  })

  // Idle sessions are swept a few times per idle period (at most every minute); the timer does not
  // keep the process alive. A session busy with a long call is not idle: its request started it.
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const s of sessions.values()) {
      if (now - s.last > sessionIdleMs) {
        s.transport.idle = true
        s.transport.close().catch(() => {})
      }
    }
  }, Math.max(50, Math.min(60_000, Math.floor(sessionIdleMs / 4))))
  sweep.unref()

  const http = app.listen(port, host)
  await once(http, 'listening')
  const actual = http.address().port
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${actual}/mcp`,
    port: actual,
    sessions,
    close: async () => {
      clearInterval(sweep)
      for (const s of sessions.values()) await s.transport.close().catch(() => {})
      http.closeAllConnections?.()
      await new Promise((r) => http.close(() => r()))
    },
  }
}
