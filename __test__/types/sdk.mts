// Issue #27 §4: a strict TypeScript consumer of the tool surface against the installed SDKs, without
// casts: `toolDefinitions.anthropic` is `Anthropic.Tool[]`, `toolDefinitions.vercel` feeds AI SDK 5's
// `tool({inputSchema: jsonSchema(...)})`, `ToolName` lists every tool, `createToolRunner().call()` is
// typed per tool name, and the library's required arguments are required.
import type Anthropic from '@anthropic-ai/sdk'
import { jsonSchema, tool } from 'ai'
import type { Tool as AiTool } from 'ai'
import { createToolRunner, patchFile, applyEdits, toolDefinitions } from 'surepatch'
import type { PatchFileResult, ToolArgs, ToolName, ViewFileResult } from 'surepatch'

export async function consumer(): Promise<void> {
  const forClaude: Anthropic.Tool[] = toolDefinitions.anthropic
  const params: Anthropic.MessageCreateParams = { model: 'claude-x', max_tokens: 1, messages: [], tools: toolDefinitions.anthropic }
  console.log(forClaude.length, params.tools?.length)

  const aiTools: { [name: string]: AiTool } = {}
  for (const [name, d] of Object.entries(toolDefinitions.vercel)) {
    if (d) aiTools[name] = tool({ description: d.description, inputSchema: jsonSchema(d.inputSchema) })
  }
  const patch = toolDefinitions.vercel.patch_file
  if (patch) console.log(tool({ description: patch.description, inputSchema: jsonSchema(patch.inputSchema) }))

  // Every tool of the table, and nothing else.
  const names: ToolName[] = ['view_file', 'patch_file', 'edit_file', 'apply_patch', 'edit_lines', 'write_file', 'delete_file', 'undo_edit', 'list_directory', 'find_files', 'search_files', 'read_many_files', 'move_file', 'create_directory']
  // @ts-expect-error: not a tool
  const notATool: ToolName = 'edit'
  console.log(names, notATool, toolDefinitions.openai.map((t) => t.function.name satisfies ToolName))

  // call() is typed per tool name.
  const runner = createToolRunner({ workspaceRoot: '.' })
  const viewed: ViewFileResult = await runner.call('view_file', { file_path: 'a.txt' })
  if (viewed.ok) console.log(viewed.content, viewed.file_hash)
  const patched: PatchFileResult = await runner.call('patch_file', '{"file_path": "a.txt", "old_string": "a", "new_string": "b"}')
  if (patched.ok) console.log(patched.replacements)
  // @ts-expect-error: view_file answers a ViewFileResult
  const wrong: PatchFileResult = await runner.call('view_file', {})
  const other = await runner.call('some_future_tool', {})
  console.log(wrong, other.ok)
  const args: ToolArgs['patch_file'] = { file_path: 'a.txt', search_block: 'a', replace_block: 'b' }
  // @ts-expect-error: search_block is required
  const missing: ToolArgs['patch_file'] = { file_path: 'a.txt', replace_block: 'b' }
  console.log(args, missing)

  // Required arguments are required, in any of their spellings.
  // @ts-expect-error: file_path, search_block and replace_block are required
  await patchFile({})
  // @ts-expect-error: replace_block (or new_string) is missing
  await patchFile({ file_path: 'a.txt', search_block: 'a' })
  await patchFile({ filePath: 'a.txt', old_string: 'a', new_string: 'b', replace_all: true })
  await applyEdits('a.txt', [{ oldText: 'a', newText: 'b' }, { old: 'c', new: 'd', replace_all: true }])
  // @ts-expect-error: an edit needs its new text
  await applyEdits('a.txt', [{ old: 'a' }])
}
