// The MCP server over Streamable HTTP (the SDK's StreamableHTTPServerTransport) at /mcp, for a workspace
// that a harness on another machine (or outside a container) must reach.
//
// - Every request needs `Authorization: Bearer <token>` (401 otherwise, before the body is read); the
//   token is compared in constant time.
// - DNS-rebinding protection: the SDK's Host header validation (port-agnostic hostnames), always on:
//   loopback names, plus the bound host, plus (bound to every interface) this machine's hostname and
//   interface addresses, plus `allowHosts`.
// - Origin validation (the MCP Streamable HTTP specification requires it): a request with an Origin
//   header is refused with 403 unless the Origin is this server's own (http://NAME:PORT for each name
//   the Host header may name) or one of `allowOrigins`. Browsers send Origin; other clients need not.
// - Sessions are isolated: each initialize request gets its own MCP server and tool runner (so the
//   read-before-edit ledger, the client's roots and the edits undo_edit can reach are per client),
//   until the client ends it (DELETE), it is idle too long, or it is evicted to make room: at most
//   `maxSessions` are open; a new one then closes the session idle longest (not one in a request),
//   or is refused with 503 when every session is in a request.
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
 * An Origin header value as `scheme://host[:port]` (lower case, default port left out), or null for
 * anything that is not an http(s) origin (`null`, a path, garbage).
 */
export function normalizeOrigin(value) {
  if (typeof value !== 'string') return null
  let u
  try {
    u = new URL(value)
  } catch {
    return null
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  // An origin is a scheme, a host and a port: nothing else.
  if (u.pathname !== '/' || u.search || u.hash || u.username || u.password) return null
  return u.origin
}

/** The origins a browser page served by this server itself would send: http://NAME:PORT for each allowed host name. */
export function ownOrigins(host, port, allowHosts = []) {
  return allowedHostnames(host, allowHosts).map((name) => normalizeOrigin(`http://${name}:${port}`)).filter(Boolean)
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
/** Sessions open at once, by default (`--max-sessions`). */
export const DEFAULT_MAX_SESSIONS = 64

export async function startHttp({
  host,
  port,
  token,
  allowHosts = [],
  allowOrigins = [],
  makeServer,
  log,
  maxMessageBytes,
  sessionIdleMs = DEFAULT_SESSION_IDLE_MS,
  maxSessions = DEFAULT_MAX_SESSIONS,
}) {
  if (typeof token !== 'string' || token.length < 16) throw new Error('the HTTP token must be a string of at least 16 characters')
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) throw new Error('maxSessions must be a whole number of at least 1')
  const extraOrigins = allowOrigins.map((o) => {
    const n = normalizeOrigin(o)
    if (!n) throw new Error(`not an origin (scheme://host[:port]): ${JSON.stringify(o)}`)
    return n
  })
  const digest = (s) => createHash('sha256').update(s).digest()
  const expected = digest(token)
  // id -> {transport, server, last: time of the last request, busy: requests in progress}
  const sessions = new Map()
  // initialize requests whose session is not in `sessions` yet (they count against the cap).
  let opening = 0
  let origins = null // set once the port is known

  const app = express()
  app.disable('x-powered-by')
  app.use(hostHeaderValidation(allowedHostnames(host, allowHosts)))
  app.use((req, res, next) => {
    const origin = req.headers.origin
    if (origin === undefined) return next()
    const n = normalizeOrigin(origin)
    if (n && origins.has(n)) return next()
    res.status(403).json(rpcError(-32000, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed (only this server's own origins, and those given with --allow-origin, may call it); nothing was done`))
  })
  app.use((req, res, next) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization || '')
    if (m && timingSafeEqual(digest(m[1]), expected)) return next()
    res.set('WWW-Authenticate', 'Bearer realm="surepatch"')
    res.status(401).json(rpcError(-32001, m ? 'Unauthorized: wrong bearer token' : 'Unauthorized: send "Authorization: Bearer <token>" (the token surepatch printed at start, or $SUREPATCH_HTTP_TOKEN)'))
  })
  app.use('/mcp', express.json({ limit: maxMessageBytes, type: () => true }))

  // Closes the session idle longest that is not in a request; false when every one is.
  function evictIdlest() {
    let idlest = null
    for (const s of sessions.values()) if (s.busy === 0 && (!idlest || s.last < idlest.last)) idlest = s
    if (!idlest) return false
    idlest.transport.evicted = true
    // Out of the map at once (its transport's onclose logs it): the new session takes its place.
    sessions.delete(idlest.transport.sessionId)
    idlest.transport.close().catch(() => {})
    log(`HTTP session ${idlest.transport.sessionId} closed to make room: ${maxSessions} sessions are open (--max-sessions); it was idle ${Math.round((Date.now() - idlest.last) / 1000)} s`)
    return true
  }

  app.all('/mcp', async (req, res) => {
    try {
      const id = req.headers['mcp-session-id']
      if (typeof id === 'string') {
        const s = sessions.get(id)
        if (!s) return res.status(404).json(rpcError(-32001, `Session not found: ${id} (it ended, was idle too long, was closed to make room for a newer session, or the server restarted); initialize a new one`))
        s.last = Date.now()
        // In a request until its response is done (a standalone GET stream does not count: it
        // only listens, and must not keep an abandoned session from being evicted).
        const counts = req.method !== 'GET'
        if (counts) {
          s.busy++
          res.once('close', () => {
            s.busy--
            s.last = Date.now()
          })
        }
        return await s.transport.handleRequest(req, res, req.body)
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return res.status(400).json(rpcError(-32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request'))
      }
      while (sessions.size + opening >= maxSessions) {
        if (!evictIdlest()) {
          res.set('Retry-After', '5')
          return res.status(503).json(rpcError(-32000, `Service Unavailable: ${maxSessions} sessions are open (--max-sessions) and every one is in a request; nothing was done. Retry shortly, or end unused sessions with DELETE.`))
        }
      }
      opening++
      let counted = true
      const settle = () => {
        if (counted) opening--
        counted = false
      }
      try {
        const { server } = makeServer()
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            settle()
            sessions.set(sid, { transport, server, last: Date.now(), busy: 0 })
            log(`HTTP session ${sid} started (${sessions.size} open)`)
          },
        })
        transport.onclose = () => {
          const sid = transport.sessionId
          const open = sessions.delete(sid)
          if (sid && (open || transport.evicted)) {
            const why = transport.idle ? ` after ${Math.round(sessionIdleMs / 1000)} s idle` : transport.evicted ? ' (evicted)' : ''
            log(`HTTP session ${sid} ended${why} (${sessions.size} open)`)
          }
        }
        await server.connect(transport)
        await transport.handleRequest(req, res, req.body)
      } finally {
        settle()
      }
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
      if (s.busy === 0 && now - s.last > sessionIdleMs) {
        s.transport.idle = true
        s.transport.close().catch(() => {})
      }
    }
  }, Math.max(50, Math.min(60_000, Math.floor(sessionIdleMs / 4))))
  sweep.unref()

  const http = app.listen(port, host)
  await once(http, 'listening')
  const actual = http.address().port
  origins = new Set([...ownOrigins(host, actual, allowHosts), ...extraOrigins])
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
