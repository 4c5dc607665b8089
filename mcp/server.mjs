// The surepatch MCP server: every tool in mcp/tools.cjs whose library function exists, served with the
// low-level SDK `Server` so that tools/call hands the raw arguments to the engine, and bad arguments
// come back as the engine's structured INVALID_INPUT result instead of an SDK validation error.
//
// Each tools/call answers with structuredContent equal to the engine's result object, the same object
// as JSON text in `content` (for clients that ignore structuredContent), and isError when ok is false.
import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode as RpcError, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'

const require = createRequire(import.meta.url)
const lib = require('../index.js')
const tools = require('./tools.cjs')
const pkg = require('../package.json')

export const INSTRUCTIONS =
  'surepatch edits files inside one workspace root. Paths are relative to it. Every result is {ok: true, ...} or ' +
  '{ok: false, code, message, ...}; on ok: false nothing was written and message says what to do next. ' +
  'Successful edits return file_hash: pass it as base_hash to your next edit of that file to chain edits safely.'

/**
 * Builds an MCP server (not yet connected).
 * @param {{root?: string, requireRead?: boolean, validate?: 'off' | 'report' | 'enforce', log?: (line: string) => void, library?: object}} config
 *   `validate` is the syntax gate mode of every editing tool (default "report").
 *   `library` replaces the surepatch library (tests use it to exercise guarded tools).
 */
export function createServer(config = {}) {
  const library = config.library || lib
  const log = config.log || ((line) => process.stderr.write(`surepatch: ${line}\n`))
  const runner = tools.createToolRunner(library, { workspaceRoot: config.root, requireRead: config.requireRead, validate: config.validate })
  const list = tools.mcpTools(library)
  const names = new Set(list.map((t) => t.name))
  const instructions = config.requireRead
    ? `${INSTRUCTIONS} Read-before-edit is on: view_file a file before editing it, or the edit is refused with STALE_FILE.`
    : INSTRUCTIONS

  const server = new Server({ name: pkg.name, version: pkg.version }, { capabilities: { tools: {} }, instructions })

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: list }))

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params
    if (!names.has(name)) {
      throw new McpError(RpcError.InvalidParams, `Unknown tool: ${name}. Available tools: ${[...names].join(', ')}`)
    }
    const result = await runner.call(name, args)
    if (result.ok === false && result.code === 'INTERNAL_ERROR') log(`${name}: ${result.message}`)
    return {
      content: [{ type: 'text', text: JSON.stringify(result) }],
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
  return { server, tools: list, runner }
}
