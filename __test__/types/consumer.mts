// A small ESM consumer, type-checked by `tsc -p __test__/types` in `npm test`. It imports the package by
// name (resolved through the repository's own package.json via a self-reference).
import { patchFile, applyEdits, previewEdits, ErrorCode, errorCodes } from 'surepatch'
import type { PatchFileResult, ApplyEditsResult, Failure, Tier, Edit } from 'surepatch'

async function main(): Promise<void> {
  const r: PatchFileResult = await patchFile({ file_path: 'a.txt', search_block: 'x', replace_block: 'y' }, { workspaceRoot: '.' })
  if (r.ok) {
    const line: number = r.line_number
    const tier: Tier = r.tier
    const hash: string = r.file_hash
    console.log(line, tier, hash, r.diff)
  } else {
    const f: Failure = r
    if (f.code === ErrorCode.SEARCH_BLOCK_NOT_FOUND) {
      console.log(f.candidates?.[0]?.start_line)
    }
    // @ts-expect-error: not a code
    const bogus: typeof f.code = 'NOT_A_CODE'
    console.log(bogus)
  }
  const edits: Edit[] = [{ old: 'a', new: 'b' }, ['c', 'd'], { old_string: 'e', new_string: 'f', expected_replacements: 2 }]
  const b: ApplyEditsResult = await applyEdits('a.txt', edits, { tolerance: 'exact', dry_run: true })
  if (b.ok) console.log(b.matches[0].tier, b.first_changed_line)
  const p: ApplyEditsResult = await previewEdits('a.txt', edits)
  console.log(p.ok, errorCodes()[0].remedy)
  // @ts-expect-error: tolerance is "exact" | "safe"
  await applyEdits('a.txt', edits, { tolerance: 'fuzzy' })
}

void main()

// Agent tool definitions and the runner.
import { toolDefinitions, createToolRunner } from 'surepatch'
import type { ToolRunner } from 'surepatch'
const firstOpenAi: string = toolDefinitions.openai[0].function.name
const firstAnthropic: string = toolDefinitions.anthropic[0].name
const vercelPatch = toolDefinitions.vercel['patch_file']
const runner: ToolRunner = createToolRunner({ workspaceRoot: '.', requireRead: true })
void runner.call('patch_file', { file_path: 'a.txt', search_block: 'x', replace_block: 'y' }).then((r) => (r.ok ? r : r.code))
console.log(firstOpenAi, firstAnthropic, vercelPatch?.parameters, runner.tools)
