// A small ESM consumer, type-checked by `tsc -p __test__/types` in `npm test`. It imports the package by
// name (resolved through the repository's own package.json via a self-reference).
import { viewFile, editLines, createFile, writeFile, deleteFile, undoEdit } from 'surepatch'
import type { ViewFileResult, Encoding, LineOp, EditLinesResult, UndoEditResult, WriteFileResult, DeleteFileResult } from 'surepatch'
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

async function drift(): Promise<void> {
  const v: ViewFileResult = await viewFile('a.txt', { format: 'hashline', startLine: 2, max_bytes: 100 })
  if (!v.ok) return
  const enc: Encoding = v.encoding
  const ops: LineOp[] = [
    { op: 'replace', start: '12:ab3f', end: '14:0c1d', lines: ['x'] },
    { op: 'insert_after', start: '3:ffff', text: 'y\n' },
    { op: 'delete', start: '5:1234' },
  ]
  const e: EditLinesResult = await editLines('a.txt', ops, { base_hash: v.file_hash })
  if (e.ok) {
    const id: string | null = e.edit_id
    if (id !== null) {
      const u: UndoEditResult = await undoEdit(id, { journalDir: '.journal' })
      if (u.ok) console.log(u.files[0].action)
    }
  } else if (e.code === ErrorCode.STALE_ANCHOR) {
    console.log(e.fresh, e.stale?.[0]?.actual_tag)
  }
  // @ts-expect-error: a bare line number is not an anchor
  await editLines('a.txt', [{ op: 'delete', start: 5 }])
  // @ts-expect-error: delete takes no lines
  await editLines('a.txt', [{ op: 'delete', start: '5:1234', lines: ['x'] }])
  // @ts-expect-error: inserts take no end
  await editLines('a.txt', [{ op: 'insert_before', start: '5:1234', end: '6:1234', lines: ['x'] }])
  const c: WriteFileResult = await createFile('n.txt', 'hi\n', { overwrite: true, encoding: 'utf-16le' })
  const w: WriteFileResult = await writeFile('n.txt', 'hi\n', { allowPlaceholders: true, lineEnding: 'crlf' })
  const d: DeleteFileResult = await deleteFile('n.txt')
  if (d.ok) console.log(d.edit_id, d.undo_available)
  await undoEdit({ file_path: 'n.txt' })
  // @ts-expect-error: writeFile has no overwrite
  await writeFile('n.txt', 'x', { overwrite: true })
  console.log(enc, c.ok, w.ok)
}

void main()
void drift()

// Agent tool definitions and the runner.
import { toolDefinitions, createToolRunner } from 'surepatch'
import type { ToolRunner } from 'surepatch'
const firstOpenAi: string = toolDefinitions.openai[0].function.name
const firstAnthropic: string = toolDefinitions.anthropic[0].name
const vercelPatch = toolDefinitions.vercel['patch_file']
const runner: ToolRunner = createToolRunner({ workspaceRoot: '.', requireRead: true })
void runner.call('patch_file', { file_path: 'a.txt', search_block: 'x', replace_block: 'y' }).then((r) => (r.ok ? r : r.code))
console.log(firstOpenAi, firstAnthropic, vercelPatch?.inputSchema, runner.tools)

// The syntax gate and guarded rewrites.
import { patchFile as gatedPatch, writeFile as guardedWrite, applyPatch as gatedApply } from 'surepatch'
import type { SyntaxReport, ValidateMode, ChangedRange } from 'surepatch'
async function gate() {
  const mode: ValidateMode = 'enforce'
  const p = await gatedPatch({ file_path: 'a.js', search_block: 'a', replace_block: 'b' }, { validate: mode })
  if (p.ok) {
    const s: SyntaxReport | undefined = p.syntax
    if (s && !s.skipped) console.log(s.ok, s.new_errors[0]?.line, s.new_errors[0]?.column, s.new_errors[0]?.snippet)
    else if (s) console.log(s.language, s.skipped)
  } else if (p.code === 'SYNTAX_ERROR_INTRODUCED') {
    console.log(p.syntax)
  }
  const w = await guardedWrite('a.js', 'x\n', { maxChangedLines: 5, validate: 'report' })
  if (w.ok) {
    const r: ChangedRange[] = w.changed_ranges
    console.log(w.lines_added, w.lines_removed, w.changed_lines, r, w.changed_ranges_truncated, w.syntax)
  } else if (w.code === 'REWRITE_TOO_BROAD') {
    console.log(w.changed_lines, w.max_changed_lines)
  }
  const a = await gatedApply('*** Begin Patch\n*** End Patch\n', { validate: 'off' })
  if (a.ok) console.log(a.files[0]?.syntax)
  // @ts-expect-error: not a mode
  await gatedPatch({ file_path: 'a.js', search_block: 'a', replace_block: 'b' }, { validate: 'strict' })
  console.log(createToolRunner({ validate: 'enforce' }).validate)
}
void gate()

import { listDirectory, findFiles, searchFiles, readManyFiles, moveFile, createDirectory } from 'surepatch'
import type { DirectoryEntry, SearchMatch, ReadManyItem, MoveFileResult } from 'surepatch'

async function browse(): Promise<void> {
  const l = await listDirectory('src', { depth: 2, include_ignored: true, maxEntries: 50 })
  if (l.ok) {
    const e: DirectoryEntry | undefined = l.entries[0]
    console.log(e?.type, e?.size, l.truncated, l.hint)
  }
  const f = await findFiles('**/*.ts', { path: 'src', includeHidden: true })
  if (f.ok) console.log(f.files.length, f.truncated)
  const s = await searchFiles('TODO', { regex: false, glob: '*.ts', case_sensitive: false, context_lines: 2, max_results: 10 })
  if (s.ok) {
    const m: SearchMatch | undefined = s.results[0]?.matches[0]
    console.log(m?.line_number, m?.text, m?.before, s.match_count, s.files_unreadable)
  }
  const items: ReadManyItem[] = ['a.txt', { file_path: 'b.txt', start_line: 1, end_line: 5 }]
  const rm = await readManyFiles(items, { format: 'numbered' })
  if (rm.ok) for (const x of rm.files) console.log(x.ok ? x.file_hash : x.code)
  const mv: MoveFileResult = await moveFile('a.txt', 'b/a.txt', { overwrite: true, dry_run: true })
  if (mv.ok) console.log(mv.moved_to, mv.edit_id)
  const d = await createDirectory('x/y')
  if (d.ok) console.log(d.created)
  // @ts-expect-error: depth is a number
  await listDirectory('.', { depth: 'deep' })
}
void browse()

// The argument and option types are generated from the Rust declarations (types/options.d.ts).
import { permissionScope, getStats } from 'surepatch'
import type { PatchFileInput, WorkspaceOption, ApplyEditsArgs, UndoTarget, EditOptions } from 'surepatch'
export async function generatedInputs(): Promise<void> {
  // The patch_file tool's arguments pass straight through as patchFile's input.
  const input: PatchFileInput = { file_path: 'a.txt', search_block: 'x', replace_block: 'y', base_hash: 'h', dry_run: true, tolerance: 'exact' }
  await patchFile(input)
  const ws: WorkspaceOption = { workspaceRoot: '/w', lock_timeout_ms: 500 }
  await createDirectory('d', ws)
  await permissionScope(['a.txt'], ws)
  getStats({ reset: true })
  const args: ApplyEditsArgs = ['a.txt', [{ old: 'x', new: 'y' }], { dryRun: true }]
  await applyEdits(args[0], args[1], args[2] ?? undefined)
  const t: UndoTarget = { editId: 'e1' }
  await undoEdit(t)
  // @ts-expect-error: a misspelt option does not compile
  const o: EditOptions = { workspace_rot: '/w' }
  void o
  // @ts-expect-error: an undo target names one of edit_id and file_path
  const both: UndoTarget = { edit_id: 'e', file_path: 'a' }
  void both
}
