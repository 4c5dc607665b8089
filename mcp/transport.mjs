// The stdio transport of the MCP server: newline-delimited JSON-RPC on stdin/stdout, like the SDK's
// StdioServerTransport, with a message size limit that matches the files surepatch edits.
//
// The SDK's transport holds at most 10 MB of unread input and, past it, closes itself: the server then
// exits without a word (an 11 MB write_file did that), and it copies its whole buffer on every chunk
// (quadratic in the message size). This one:
// - accepts messages up to `maxMessageBytes` (DEFAULT_MAX_MESSAGE_BYTES, 384 MiB: a 256 MiB file, the
//   engine's default max_file_bytes, as a JSON string with up to 50% escaping overhead, plus the rest
//   of the request), collecting each in chunks and joining them once;
// - answers a longer message, without keeping it, with a JSON-RPC error (-32600) naming its size and
//   the limit, to the request id found at its start or end (null if none), and keeps serving;
// - answers a line that is not JSON-RPC with a parse error (-32700, id null), and keeps serving.
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'

export const DEFAULT_MAX_MESSAGE_BYTES = 384 * 1024 * 1024
// V8 cannot hold a string much longer than 2^29 - 24 characters: a longer line could not be decoded.
export const MAX_MESSAGE_BYTES_LIMIT = 512 * 1024 * 1024 - 1024 * 1024

// How much of an oversized message is kept to find its id.
const EDGE = 4096
const ID = '(-?\\d+|"(?:[^"\\\\]|\\\\.)*")'
const ID_AT_END = new RegExp(`"id"\\s*:\\s*${ID}\\s*\\}\\s*$`)
const ID_AT_START = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}`)

function findId(head, tail) {
  const m = ID_AT_END.exec(tail.toString('utf8')) || ID_AT_START.exec(head.toString('utf8'))
  if (!m) return null
  try {
    return JSON.parse(m[1])
  } catch {
    return null
  }
}

export class LineTransport {
  /**
   * @param {{stdin?: NodeJS.ReadableStream, stdout?: NodeJS.WritableStream, maxMessageBytes?: number, log?: (line: string) => void}} options
   */
  constructor(options = {}) {
    this._stdin = options.stdin || process.stdin
    this._stdout = options.stdout || process.stdout
    this.maxMessageBytes = options.maxMessageBytes || DEFAULT_MAX_MESSAGE_BYTES
    this._log = options.log || (() => {})
    this._reset()
    this._ondata = (chunk) => this._data(chunk)
    this._onerror = (e) => this.onerror?.(e)
  }

  _reset() {
    this._parts = []
    this._size = 0
    this._oversize = false
    this._head = null
    this._tail = null
  }

  async start() {
    if (this._started) throw new Error('LineTransport already started')
    this._started = true
    this._stdin.on('data', this._ondata)
    this._stdin.on('error', this._onerror)
  }

  _data(chunk) {
    if (typeof chunk === 'string') chunk = Buffer.from(chunk, 'utf8')
    let from = 0
    while (from <= chunk.length) {
      const nl = chunk.indexOf(10, from)
      const end = nl === -1 ? chunk.length : nl
      if (end > from) this._take(chunk.subarray(from, end))
      if (nl === -1) break
      this._line()
      from = nl + 1
    }
  }

  _take(piece) {
    this._size += piece.length
    if (this._oversize) {
      this._tail = Buffer.concat([this._tail, piece]).subarray(-EDGE)
      return
    }
    this._parts.push(piece)
    if (this._size > this.maxMessageBytes) {
      // Keep only the edges, to find the id.
      const all = Buffer.concat(this._parts)
      this._head = Buffer.from(all.subarray(0, EDGE))
      this._tail = Buffer.from(all.subarray(-EDGE))
      this._parts = []
      this._oversize = true
    }
  }

  _line() {
    const size = this._size
    if (this._oversize) {
      const id = findId(this._head, this._tail)
      this._reset()
      const message = `request of ${size} bytes is above this server's limit of ${this.maxMessageBytes} bytes per message (surepatch --max-message-bytes); it was not read and nothing was written. Send smaller requests: edit the file in parts (edit_file, edit_lines, apply_patch) instead of sending it whole.`
      this._log(`refused a message of ${size} bytes (limit ${this.maxMessageBytes}, id ${JSON.stringify(id)})`)
      this._error(id, -32600, message, { received_bytes: size, max_message_bytes: this.maxMessageBytes })
      return
    }
    const buf = this._parts.length === 1 ? this._parts[0] : Buffer.concat(this._parts, size)
    this._reset()
    let text = buf.toString('utf8')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (text.trim() === '') return
    let message
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text))
    } catch (e) {
      this._log(`refused a line that is not a JSON-RPC message (${size} bytes): ${e && e.message ? e.message.split('\n')[0] : e}`)
      this._error(null, -32700, 'the line is not a JSON-RPC 2.0 message (one JSON object per line); it was ignored and nothing was written.')
      return
    }
    this.onmessage?.(message)
  }

  _error(id, code, message, data) {
    const error = data ? { code, message, data } : { code, message }
    this.send({ jsonrpc: '2.0', id, error }).catch((e) => this.onerror?.(e))
  }

  send(message) {
    let line
    try {
      line = JSON.stringify(message) + '\n'
    } catch (e) {
      // An answer too large for one JavaScript string (V8 holds about 512 MiB): say so to the request
      // instead of leaving it unanswered.
      const why = e && e.message ? e.message : String(e)
      this._log(`could not serialize the answer to id ${JSON.stringify(message && message.id)}: ${why}`)
      if (!message || message.id === undefined || message.error) return Promise.reject(e)
      line =
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: -32603,
            message: `the answer to this request is too large to send as one message (${why}). The request itself may have completed: view the file to see its state before retrying.`,
          },
        }) + '\n'
    }
    return new Promise((resolve) => {
      if (this._stdout.write(line)) resolve()
      else this._stdout.once('drain', resolve)
    })
  }

  async close() {
    this._stdin.off('data', this._ondata)
    this._stdin.off('error', this._onerror)
    if (this._stdin.listenerCount('data') === 0 && typeof this._stdin.pause === 'function') this._stdin.pause()
    this._reset()
    this.onclose?.()
  }
}
