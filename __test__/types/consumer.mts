// A small ESM consumer, type-checked by `tsc -p __test__/types` in `npm test`. It imports the package by
// name (resolved through the repository's own package.json via a self-reference).
import { patchFile, applyEdits, previewEdits, ErrorCode, errorCodes, applyPatch, applyBlocks, applyUnifiedDiff, parseBlocks, parsePathBlocks } from 'surepatch'
import type { PatchFileResult, ApplyEditsResult, Failure, Tier, Edit, ApplyPatchResult, ApplyBlocksResult, ParseBlocksResult, ParsePathBlocksResult } from 'surepatch'

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
  const ap: ApplyPatchResult = await applyPatch('*** Begin Patch\n*** End Patch\n', { overwrite: true, baseHashes: { 'a.txt': 'x' } })
  if (ap.ok) {
    const f = ap.files[0]
    const kind: 'add' | 'update' | 'delete' | 'move' = f.op
    console.log(kind, f.moved_to, f.hunks_applied, f.matches[0]?.hunk_index, f.file_hash ?? 'deleted')
  } else {
    console.log(ap.op_index, ap.hunk_index, ap.hunk_line, ap.line)
  }
  const ab: ApplyBlocksResult = await applyBlocks('x', { filePath: 'a.txt', dryRun: true })
  if (ab.ok) console.log(ab.files[0].edits_applied, ab.files[0].matches[0]?.edit_index)
  const ud: ApplyPatchResult = await applyUnifiedDiff('--- a\n+++ a\n')
  console.log(ud.ok)
  const pb: ParseBlocksResult = parseBlocks('x')
  if (pb.ok) console.log(pb.edits[0].old, pb.edits[0].new)
  else console.log(pb.line)
  const pp: ParsePathBlocksResult = parsePathBlocks('x')
  if (pp.ok) console.log(Object.keys(pp.files))
  // @ts-expect-error: overwrite is a boolean
  await applyPatch('x', { overwrite: 'yes' })
}

void main()
