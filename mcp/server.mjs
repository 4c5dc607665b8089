// The surepatch MCP server: every tool in tools/table.cjs whose library function exists, served with the
// low-level SDK `Server` so that tools/call hands the raw arguments to the engine, and bad arguments
// come back as the engine's structured INVALID_INPUT result instead of an SDK validation error.
//
// Each tools/call answers with structuredContent equal to the engine's result object (a failure's message
// and hint in the tool's words: tools/vocabulary.cjs), a compact
// human-readable summary of it as the text content (tools/summary.cjs: the diff, or the message and
// candidates; never the escaped JSON of the whole result), and isError when ok is false.
//
// Roots: without a fixed root (`root` unset: no --root, no SUREPATCH_WORKSPACE_ROOT), a client that
// declares the roots capability is asked for roots/list before the first tool call, and again after
// notifications/roots/list_changed; the tools then serve those roots (a path must fall inside one of
// them; relative paths resolve against the first). With a fixed root, client roots inside it narrow
// what is served and the others are ignored. Otherwise the server serves `defaultRoot` (the current
// directory), unless that is `/` or the home directory: never served implicitly, every tool call is then
// refused (PATH_OUTSIDE_WORKSPACE, saying how to pass --root or roots) until the client declares roots.
import { realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode as RpcError,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'

const require = createRequire(import.meta.url)
const lib = require('../index.js')
const tools = require('../tools/table.cjs')
const { HINTED, selectTools } = require('../tools/profiles.cjs')
const { summarize } = require('../tools/summary.cjs')
const pkg = require('../package.json')
// Test hook (record.cjs): the real library's tool results are recorded for the schema check of `npm test`.
const recorder = process.env.SUREPATCH_RECORD_RESULTS ? require('../record.cjs') : null

// How long a tool call waits for the client's answer to roots/list before going on with the roots it has.
const ROOTS_TIMEOUT_MS = 10_000

export const INSTRUCTIONS =
  'surepatch edits files inside the workspace root(s). Paths are relative to the (first) root. Every result is {ok: true, ...} or ' +
  '{ok: false, code, message, ...}; on ok: false nothing was written and message says what to do next. ' +
  'Successful edits return file_hash: pass it as base_hash to your next edit of that file to chain edits safely.'

const real = (p) => {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p)
  }
}

/**
 * Why `dir`, a default root nobody chose, must not be served (it is `/` or the home directory), or null.
 * An explicit root (--root, SUREPATCH_WORKSPACE_ROOT) or a client root is served whatever it is.
 */
export function implicitRootRefusal(dir) {
  const d = real(dir)
  const home = homedir() ? real(homedir()) : null
  const what = d === resolve('/') ? 'the filesystem root /' : d === home ? `the home directory ${d}` : null
  if (!what) return null
  return (
    `no workspace root: the server was started in ${what} without --root, and the client declares no roots, ` +
    'so it serves nothing rather than the whole disk. Start the server with --root /path/to/project ' +
    '(or set SUREPATCH_WORKSPACE_ROOT), or add a root (a workspace folder) in the client.'
  )
}

// A client root (file:// URI) as a real directory path, or null.
function rootDir(uri) {
  try {
    const p = realpathSync(fileURLToPath(uri))
    return statSync(p).isDirectory() ? p : null
  } catch {
    return null
  }
}

/**
 * Builds an MCP server (not yet connected).
 * @param {{root?: string, defaultRoot?: string, foreignRoots?: 'refuse' | 'default', requireRead?: boolean, isolateUndo?: boolean, validate?: 'off' | 'report' | 'enforce', log?: (line: string) => void, library?: object}} config
 *   `root` is a fixed workspace root (--root); without it the client's roots are served, or
 *   `defaultRoot` (default: the current directory) when the client declares none. `foreignRoots`:
 *   when the client declares roots of which none is a directory here, "refuse" (default: every call
 *   is refused) or "default" (serve the default root; the HTTP server's choice, whose clients are
 *   usually on another machine).
 *   `validate` is the syntax gate mode of every editing tool (default "report").
 *   `isolateUndo`: undo_edit reaches only this server's own edits (the HTTP server sets it for each
 *   session; on stdio the process serves one client, whose edits are the whole journal).
 *   `library` replaces the surepatch library (tests use it to exercise guarded tools).
 *   `tools`: which tools to list and serve, a comma list (or array) of tool names and profiles
 *   (tools/profiles.cjs: minimal, default, all; default "default"); an unknown name throws.
 *   `outputSchemas`: true gives each tool its outputSchema in tools/list (default false).
 */
export function createServer(config = {}) {
  const library = config.library || lib
  const log = config.log || ((line) => process.stderr.write(`surepatch: ${line}\n`))
  const fixed = config.root ? resolve(config.root) : null
  const base = fixed || resolve(config.defaultRoot || process.cwd())
  const runner = tools.createToolRunner(library, { workspaceRoot: base, requireRead: config.requireRead, isolateUndo: config.isolateUndo, validate: config.validate })
  // `/` or the home directory as the default root (nobody chose it): serve nothing until the client
  // declares roots.
  const refusal = fixed ? null : implicitRootRefusal(base)
  if (refusal) runner.setRoots([], refusal)
  const selected = selectTools(config.tools, tools.ALL_TOOLS)
  const list = tools.mcpTools(library, { tools: selected, outputSchemas: Boolean(config.outputSchemas) })
  const unhinted = HINTED.filter((n) => !selected.includes(n))
  if (unhinted.length) log(`note: --tools leaves out ${unhinted.join(', ')}, which failure hints may name`)
  const names = new Set(list.map((t) => t.name))
  const instructions = config.requireRead
    ? `${INSTRUCTIONS} Read-before-edit is on: view_file a file before editing it, or the edit is refused with STALE_FILE.`
    : INSTRUCTIONS

  const server = new Server({ name: pkg.name, version: pkg.version }, { capabilities: { tools: {} }, instructions })

  // The client's roots, read before the first tool call and again before the next call after each
  // notifications/roots/list_changed. Read on demand, with the tool call as the related request: over
  // Streamable HTTP the roots/list request then travels on that call's response stream (a request sent
  // at initialization could find no stream open yet, and be lost).
  let version = 0
  let readVersion = -1
  let reading = null
  async function readRoots(extra) {
    let answer
    try {
      answer = await server.listRoots(undefined, { relatedRequestId: extra && extra.requestId, timeout: ROOTS_TIMEOUT_MS })
    } catch (e) {
      log(`roots/list failed (${e && e.message ? e.message : e}); serving ${runner.roots.join(', ') || 'no root'}`)
      return
    }
    const declared = (answer.roots || []).map((r) => ({ uri: r.uri, dir: rootDir(r.uri) }))
    for (const r of declared) if (!r.dir) log(`ignoring client root ${r.uri}: not a directory on this machine`)
    let dirs = declared.map((r) => r.dir).filter(Boolean)
    if (fixed) {
      let realFixed = fixed
      try {
        realFixed = realpathSync(fixed)
      } catch {}
      for (const d of dirs) if (!tools.inside(realFixed, d)) log(`ignoring client root ${d}: outside --root ${fixed}`)
      dirs = dirs.filter((d) => tools.inside(realFixed, d))
      if (dirs.length === 0) dirs = [fixed]
    }
    if (dirs.length === 0 && declared.length > 0 && config.foreignRoots === 'default' && !refusal) {
      // Over HTTP the client's roots name its own machine: none exists here, so serve the default.
      log(`none of the client's roots is a directory on this machine; serving ${base}`)
      dirs = [base]
    }
    dirs = [...new Set(dirs)]
    const why =
      declared.length === 0
        ? refusal
        : `none of the client's roots (${declared.map((r) => r.uri).join(', ')}) is a directory ${fixed ? `inside --root ${fixed}` : 'on this machine'}, so no file can be reached. Add a root (a workspace folder) that exists here in the client, or start the server with --root.`
    runner.setRoots(dirs, why)
    log(dirs.length ? `serving the client's roots: ${dirs.join(', ')}` : 'the client declares no usable roots: every tool call is refused until it adds one')
  }
  async function ensureRoots(extra) {
    if (!server.getClientCapabilities()?.roots) return
    while (readVersion !== version) {
      if (!reading) {
        const v = version
        reading = readRoots(extra).finally(() => {
          readVersion = v
          reading = null
        })
      }
      await reading
    }
  }
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    version++
  })

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: list }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    if (!names.has(name)) {
      throw new McpError(RpcError.InvalidParams, `Unknown tool: ${name}. Available tools: ${[...names].join(', ')}`)
    }
    await ensureRoots(extra)
    const result = await runner.call(name, args)
    if (result.ok === false && result.code === 'INTERNAL_ERROR') log(`${name}: ${result.message}`)
    if (recorder && library === lib) recorder.record('tool', name, result)
    return {
      content: [{ type: 'text', text: summarize(name, result) }],
      structuredContent: result,
      isError: result.ok === false,
    }
  })

  if (config.requireRead && typeof library.touchedFiles !== 'function') {
    log('warning: --require-read is on but this library has no touchedFiles, so every edit is refused (INTERNAL_ERROR).')
  }
  if (config.requireRead && !names.has('view_file')) {
    log('warning: --require-read is on but this build has no view_file tool, so existing files cannot be edited.')
  }
  return { server, tools: list, runner, refusal }
}
