// merge_snippet over MCP (the SDK client against the real server over stdio, structuredContent checked
// against the advertised outputSchema) and `surepatch merge` as a subprocess: a merge, a refusal with
// the file unchanged, undo, and usage errors.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, populate, stdio, tempDir } from './mcp-helpers.mjs'

const T = { timeout: 60_000 }
const PY = 'import os\n\n\ndef one():\n    return 1\n\n\ndef two():\n    return 2\n'

test('MCP merge_snippet: lands, says where; refusals name the chunk; the file is unchanged on refusal', T, async (t) => {
  const root = populate(tempDir(t), { 'm.py': PY })
  const s = await stdio(t, { args: ['--root', root] })
  const tool = s.tools.find((x) => x.name === 'merge_snippet')
  assert.ok(tool, 'merge_snippet is listed')
  assert.match(tool.description, /existing code/)
  assert.match(tool.description, /unchanged line copied exactly above and below/)
  const r = await s.call('merge_snippet', { file_path: 'm.py', snippet: '# ... existing code ...\ndef two():\n    x = 2\n    return 2\n' })
  const sc = r.structuredContent
  assert.equal(sc.ok, true, JSON.stringify(sc))
  assert.deepEqual(sc.chunks, [{ chunk: 0, snippet_start_line: 2, snippet_end_line: 4, start_line: 8, end_line: 10 }])
  assert.match(r.content[0].text, /^m\.py: changed \+1 −0/)
  const merged = PY.replace('    return 2\n', '    x = 2\n    return 2\n')
  assert.equal(readFileSync(join(root, 'm.py'), 'utf8'), merged)
  const bad = await s.call('merge_snippet', { file_path: 'm.py', snippet: '# ...\n    return 3\n# ...\n' })
  assert.equal(bad.isError, true)
  assert.equal(bad.structuredContent.code, 'SNIPPET_UNANCHORED')
  assert.equal(bad.structuredContent.chunk_index, 0)
  assert.equal(readFileSync(join(root, 'm.py'), 'utf8'), merged)
  const u = await s.call('undo_edit', { edit_id: sc.edit_id })
  assert.equal(u.structuredContent.ok, true, JSON.stringify(u.structuredContent))
  assert.equal(readFileSync(join(root, 'm.py'), 'utf8'), PY)
})

function cli(args, input, state) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, SUREPATCH_WORKSPACE_ROOT: '', XDG_STATE_HOME: state },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

test('surepatch merge FILE < snippet: merges, prints the chunk landing and edit_id; refuses with exit 1; undo', T, (t) => {
  const root = populate(tempDir(t), { 'm.py': PY })
  const state = tempDir(t, 'surepatch-state-')
  const ok = cli(['merge', 'm.py', '--root', root], '# ...\ndef one():\n    return 11\n\n\ndef two():\n# ...\n', state)
  assert.equal(ok.code, 0, ok.stderr)
  assert.match(ok.stdout, /^update m\.py \+1 -1\nchunk 0 \(snippet lines 2-6\) -> lines 4-8\nedit_id (\S+) /)
  assert.equal(readFileSync(join(root, 'm.py'), 'utf8'), PY.replace('return 1\n', 'return 11\n'))
  const id = /edit_id (\S+)/.exec(ok.stdout)[1]
  const refused = cli(['merge', 'm.py', '--root', root], 'def two():\n    return 3\n# ...\n', state)
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^SNIPPET_UNANCHORED: chunk 0 /)
  assert.equal(readFileSync(join(root, 'm.py'), 'utf8'), PY.replace('return 1\n', 'return 11\n'))
  const dry = cli(['merge', 'm.py', '--root', root, '--dry-run', '--json'], '# ...\ndef two():\n    x = 0\n    return 2\n', state)
  assert.equal(dry.code, 0, dry.stderr)
  assert.equal(JSON.parse(dry.stdout).written, false)
  const undo = cli(['undo', id, '--root', root], '', state)
  assert.equal(undo.code, 0, undo.stderr)
  assert.equal(readFileSync(join(root, 'm.py'), 'utf8'), PY)
  const usage = cli(['merge', '--root', root], '', state)
  assert.equal(usage.code, 2)
  assert.match(usage.stderr, /^surepatch merge: merge needs FILE/)
})
