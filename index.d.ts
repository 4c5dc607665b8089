// Type definitions for surepatch. Hand-written and checked by `tsc` in `npm test` (__test__/types).
//
// Every function that touches files is asynchronous: it runs on Node's libuv thread pool and never
// blocks the event loop. It resolves to a result object and never rejects for a user error.

/** Every failure code. The string values are stable API. */
export declare const ErrorCode: {
  readonly INVALID_INPUT: 'INVALID_INPUT'
  readonly PATH_OUTSIDE_WORKSPACE: 'PATH_OUTSIDE_WORKSPACE'
  readonly TARGET_IS_DIRECTORY: 'TARGET_IS_DIRECTORY'
  readonly FILE_NOT_FOUND: 'FILE_NOT_FOUND'
  readonly FILE_EXISTS: 'FILE_EXISTS'
  readonly PERMISSION_DENIED: 'PERMISSION_DENIED'
  readonly BINARY_FILE_REJECTED: 'BINARY_FILE_REJECTED'
  readonly ENCODING_UNSUPPORTED: 'ENCODING_UNSUPPORTED'
  readonly FILE_TOO_LARGE: 'FILE_TOO_LARGE'
  readonly SEARCH_BLOCK_NOT_FOUND: 'SEARCH_BLOCK_NOT_FOUND'
  readonly SEARCH_BLOCK_AMBIGUOUS: 'SEARCH_BLOCK_AMBIGUOUS'
  readonly MATCH_COUNT_MISMATCH: 'MATCH_COUNT_MISMATCH'
  readonly OVERLAPPING_EDITS: 'OVERLAPPING_EDITS'
  readonly NO_CHANGES: 'NO_CHANGES'
  readonly PARSE_ERROR: 'PARSE_ERROR'
  readonly STALE_FILE: 'STALE_FILE'
  readonly STALE_ANCHOR: 'STALE_ANCHOR'
  readonly ELIDED_CONTENT: 'ELIDED_CONTENT'
  readonly EDIT_NOT_FOUND: 'EDIT_NOT_FOUND'
  readonly FILE_READ_ERROR: 'FILE_READ_ERROR'
  readonly FILE_WRITE_ERROR: 'FILE_WRITE_ERROR'
  readonly INTERNAL_ERROR: 'INTERNAL_ERROR'
}

/** The union of every failure code. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/** Which tolerance located a match. */
export type Tier =
  | 'exact'
  | 'line_endings'
  | 'trailing_whitespace'
  | 'typography'
  | 'indentation'
  | 'line_prefix'
  | 'blank_edges'

/**
 * Options shared by every edit entry point. Each key is accepted in snake_case or camelCase; giving
 * both spellings with different values is refused with `INVALID_INPUT`. Unknown keys are refused.
 */
export interface EditOptions {
  /** Directory every path must stay inside (default: `process.cwd()`). */
  workspace_root?: string
  workspaceRoot?: string
  /** Compute everything, write nothing (`written: false`). */
  dry_run?: boolean
  dryRun?: boolean
  /** `"safe"` (default) tolerates transcription noise when the match stays unique; `"exact"` does not. */
  tolerance?: 'exact' | 'safe'
  /** Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB). */
  max_file_bytes?: number
  maxFileBytes?: number
  /** The `file_hash` the edit was written against; a different current hash gives `STALE_FILE`. */
  base_hash?: string
  baseHash?: string
}

export interface PatchFileInput {
  file_path?: string
  filePath?: string
  /** Text that must occur exactly once in the file (after the tolerance tiers, if any). */
  search_block?: string
  searchBlock?: string
  /** Inserted literally in place of the match ("" deletes it). */
  replace_block?: string
  replaceBlock?: string
}

/** A candidate region offered when the search text was not found. */
export interface Candidate {
  start_line: number
  end_line: number
  /** 0..1 */
  similarity: number
  /** The region, each line as `N\ttext`. */
  snippet: string
  /** What differs, e.g. `line 14: file has "retries = 3", edit has "retries = 2"`. */
  differences: string[]
}

export interface Failure {
  ok: false
  code: ErrorCode
  /** What went wrong and what to do next, written for a model to act on. */
  message: string
  /** Workspace-relative path, when the path was resolved. */
  file_path?: string
  /** The failing `edits[i]` in a batch. */
  edit_index?: number
  /** For SEARCH_BLOCK_AMBIGUOUS / MATCH_COUNT_MISMATCH: how many places matched. */
  match_count?: number
  /** 1-based start line of every occurrence (capped at 100; see `truncated`). */
  match_lines?: number[]
  matches?: Array<{ start_line: number; end_line: number }>
  truncated?: boolean
  expected_replacements?: number
  /** The tier at which the ambiguity was found. */
  tier?: Tier
  /** For SEARCH_BLOCK_NOT_FOUND: up to 3 nearest regions, best first. */
  candidates?: Candidate[]
  /** One concrete next step. */
  hint?: string
  /** For OVERLAPPING_EDITS: the two edits. */
  edit_indices?: [number, number]
  /** For STALE_FILE. */
  base_hash?: string
  current_hash?: string
  [detail: string]: unknown
}

export interface PatchFileSuccess {
  ok: true
  file_path: string
  /** Always 1 for patchFile. */
  replacements: number
  /** 1-based first line of the match. */
  line_number: number
  tier: Tier
  /** Length of the text before/after, in UTF-16 code units (as JavaScript counts). */
  before_chars: number
  after_chars: number
  /** Size on disk before/after, BOM included. */
  before_bytes: number
  after_bytes: number
  /** Unified diff of the change. */
  diff: string
  /** False for a dry run. */
  written: boolean
  /** Hash of the file as written (pass as `base_hash` to chain edits without re-reading). */
  file_hash: string
}

export type PatchFileResult = PatchFileSuccess | Failure

export interface EditSpec {
  old?: string
  old_string?: string
  oldString?: string
  search?: string
  new?: string
  new_string?: string
  newString?: string
  replace?: string
  /** Replace exactly this many occurrences; any other count is refused. */
  expected_replacements?: number
  expectedReplacements?: number
}

/** An edit as an object, or as an `[old, new]` pair. */
export type Edit = EditSpec | [string, string]

export interface MatchInfo {
  edit_index: number
  start_line: number
  end_line: number
  tier: Tier
  /** Every tolerance used, when more than one. */
  tolerances?: Tier[]
}

export interface ApplyEditsSuccess {
  ok: true
  file_path: string
  edits_applied: number
  first_changed_line: number
  /** The loosest tier any edit needed. */
  tier: Tier
  matches: MatchInfo[]
  before_chars: number
  after_chars: number
  before_bytes: number
  after_bytes: number
  diff: string
  written: boolean
  file_hash: string
}

export type ApplyEditsResult = ApplyEditsSuccess | Failure

/**
 * Options of the multi-file entry points (`applyPatch`, `applyBlocks`, `applyUnifiedDiff`). Each key is
 * accepted in snake_case or camelCase; unknown keys are refused with `INVALID_INPUT`.
 */
export interface PatchOptions {
  /** Directory every path must stay inside (default: `process.cwd()`). */
  workspace_root?: string
  workspaceRoot?: string
  /** Verify and compute everything, write nothing (`written: false`). */
  dry_run?: boolean
  dryRun?: boolean
  /** `"safe"` (default) tolerates transcription noise when the match stays unique; `"exact"` does not. */
  tolerance?: 'exact' | 'safe'
  /** Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB). */
  max_file_bytes?: number
  maxFileBytes?: number
  /**
   * Let `Add File` (or a new-file diff, or an empty SEARCH block) replace an existing file, and a move
   * replace its target. Without it both are refused with `FILE_EXISTS`. A replaced file keeps its
   * encoding and dominant line terminator.
   */
  overwrite?: boolean
  /** `{path as written in the input: file_hash}`; a file whose current hash differs gives `STALE_FILE`. */
  base_hashes?: Record<string, string>
  baseHashes?: Record<string, string>
}

/** `applyBlocks` options: apply every block to `file_path`, ignoring path lines in the text. */
export interface BlocksOptions extends PatchOptions {
  file_path?: string
  filePath?: string
}

/** Where one hunk landed, in lines of the original file. */
export interface HunkMatch {
  hunk_index: number
  /** For a hunk of only `+` lines: both are the line it was inserted after (0: the start of the file). */
  start_line: number
  end_line: number
  tier: Tier
}

export type FileOpKind = 'add' | 'update' | 'delete' | 'move'

export interface FileReceiptBase {
  /** Workspace-relative path the operation named (the source, for a move). */
  file_path: string
  op: FileOpKind
  /** For `op: "move"`: the new workspace-relative path. */
  moved_to?: string
  /** Unified diff of the content change ("" for a pure move). */
  diff: string
  /** Size on disk before/after (0 for a created / deleted file), BOM included. */
  before_bytes: number
  after_bytes: number
  /** Hash of the bytes written (at `moved_to` for a move); `null` for a delete. */
  file_hash: string | null
}

/** One file of an `applyPatch` / `applyUnifiedDiff` receipt. */
export interface HunkFileReceipt extends FileReceiptBase {
  /** 0 for add, delete and pure moves. */
  hunks_applied: number
  matches: HunkMatch[]
}

/** One file of an `applyBlocks` receipt. */
export interface BlockFileReceipt extends FileReceiptBase {
  edits_applied: number
  matches: MatchInfo[]
}

export interface ApplyPatchSuccess {
  ok: true
  /** One entry per operation, in input order. */
  files: HunkFileReceipt[]
  /** False for a dry run. */
  written: boolean
}

export interface ApplyBlocksSuccess {
  ok: true
  files: BlockFileReceipt[]
  written: boolean
}

/**
 * A multi-file failure: nothing was written. `op_index` (0-based), `op` and `file_path` name the
 * failing operation; `hunk_index` (0-based) and `hunk_line` (its line in the patch text) the failing
 * hunk; `anchor` a `@@` scope line that was not found or not unique; `line` the input line of a
 * `PARSE_ERROR`; `line_hint` a unified diff's line number (shown, never used to choose a place);
 * `moved_to` a move target that exists; `rolled_back` the files restored after a failed write.
 */
export interface PatchFailure extends Failure {
  op_index?: number
  op?: FileOpKind
  hunk_index?: number
  hunk_line?: number
  anchor?: string
  line?: number
  line_hint?: number
  moved_to?: string
  rolled_back?: string[]
}

export type ApplyPatchResult = ApplyPatchSuccess | PatchFailure
export type ApplyBlocksResult = ApplyBlocksSuccess | PatchFailure

/** A parse failure of the synchronous parsers: `code` is `PARSE_ERROR` (or `INVALID_INPUT`). */
export interface ParseFailure extends Failure {
  /** 1-based line of the input where the problem was seen. */
  line?: number
}

/** A SEARCH/REPLACE block as an edit. */
export interface BlockEdit {
  old: string
  new: string
}

export type ParseBlocksResult = { ok: true; edits: BlockEdit[] } | ParseFailure
export type ParsePathBlocksResult = { ok: true; files: Record<string, BlockEdit[]> } | ParseFailure

/** Replace the one occurrence of `search_block` in a file (async, off the event loop). */
export declare function patchFile(input: PatchFileInput, options?: EditOptions): Promise<PatchFileResult>

/** Apply a batch of edits to one file, all or nothing, in one atomic write (async). */
export declare function applyEdits(filePath: string, edits: Edit[], options?: EditOptions): Promise<ApplyEditsResult>

/** `applyEdits` as a dry run: the full receipt, nothing written (async). */
export declare function previewEdits(filePath: string, edits: Edit[], options?: EditOptions): Promise<ApplyEditsResult>

/** Every failure code with one sentence on what to do about it (synchronous; touches no files). */
export declare function errorCodes(): Array<{ code: ErrorCode; remedy: string }>

/**
 * Apply an `apply_patch` envelope (Add / Delete / Update / Move to, `@@` scopes, `*** End of File`;
 * heredoc and markdown-fence wrappers accepted) as one transaction: every file or none (async).
 */
export declare function applyPatch(patchText: string, options?: PatchOptions): Promise<ApplyPatchResult>

/**
 * Parse and apply SEARCH/REPLACE blocks, each under the path line written before it (or all to
 * `options.file_path`), as one transaction (async). An empty SEARCH section creates the file.
 */
export declare function applyBlocks(text: string, options?: BlocksOptions): Promise<ApplyBlocksResult>

/** Apply a unified diff (plain or git; renames, new and deleted files) as one transaction (async). */
export declare function applyUnifiedDiff(diffText: string, options?: PatchOptions): Promise<ApplyPatchResult>

/** Parse SEARCH/REPLACE blocks into edits, ignoring path lines (synchronous; touches no files). */
export declare function parseBlocks(text: string): ParseBlocksResult

/** Parse SEARCH/REPLACE blocks into `{path: edits}`, in order of first appearance (synchronous). */
export declare function parsePathBlocks(text: string): ParsePathBlocksResult
