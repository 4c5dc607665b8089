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
  readonly LOCK_TIMEOUT: 'LOCK_TIMEOUT'
  readonly SYNTAX_ERROR_INTRODUCED: 'SYNTAX_ERROR_INTRODUCED'
  readonly REWRITE_TOO_BROAD: 'REWRITE_TOO_BROAD'
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
  | 'inline_whitespace'
  | 'line_prefix'
  | 'blank_edges'

/**
 * A liberty the engine took with the input's syntax; the edit still had to match exactly one place by
 * content. Listed in the `dialect` array of a receipt (empty for textbook input).
 * - `unescaped`: the text (or an edit's `old`) came on one line with literal `\n` escapes;
 * - `no_end_marker`: `*** End Patch` was missing;
 * - `add_prefix_missing`: `*** Add File:` lines without their `+` (all of them, or blank ones);
 * - `unified_header`: an `@@ -l,c +l,c @@` header inside an `apply_patch` envelope (a line hint);
 * - `context_prefix_missing`: context lines without their leading space;
 * - `anchor_ignored` / `anchor_repeated`: an `@@` scope that is no line of the file, or occurs
 *   several times; the content decided;
 * - `hunk_counts`: a unified hunk header without numbers, or counts the body contradicts;
 * - `header_variant`: `---a/x`, `x.orig`, `x (original)` or names of no file in a diff's headers;
 * - `path_decorated`: a path with backticks, quotes, `./`, `a/`, bold or a trailing `:`;
 * - `path_fallback`: the text named no usable file; the caller's `file_path` was used;
 * - `prose_around`: prose before `*** Begin Patch` or after `*** End Patch`, passed over;
 * - `marker_variant`: SEARCH/REPLACE markers of another length or spelling.
 */
export type Dialect =
  | 'add_prefix_missing'
  | 'anchor_ignored'
  | 'anchor_repeated'
  | 'context_prefix_missing'
  | 'header_variant'
  | 'hunk_counts'
  | 'marker_variant'
  | 'no_end_marker'
  | 'path_decorated'
  | 'path_fallback'
  | 'prose_around'
  | 'unescaped'
  | 'unified_header'

/**
 * Options shared by every edit entry point. Each key is accepted in snake_case or camelCase; giving
 * both spellings with different values is refused with `INVALID_INPUT`. Unknown keys are refused.
 */
export interface EditOptions {
  /** Directory every path must stay inside (default: `process.cwd()`). */
  workspace_root?: string
  workspaceRoot?: string
  /**
   * Longest wait, in milliseconds, for a lock another surepatch call holds on a file or directory
   * (default 10000); past it the call fails with `LOCK_TIMEOUT` and nothing is written.
   */
  lock_timeout_ms?: number
  lockTimeoutMs?: number
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
  /**
   * A directory inside the workspace that also keeps the undo journal on disk (so `undoEdit` works
   * after a restart). The in-memory journal is always kept.
   */
  journal_dir?: string
  journalDir?: string
  /**
   * An absolute directory chosen by the host (not sandboxed, created if missing) that keeps the undo
   * journal on disk, inside or outside the workspace; one per workspace root. Not with `journal_dir`.
   */
  host_journal_dir?: string
  hostJournalDir?: string
  /**
   * The syntax gate (tree-sitter; JavaScript, TypeScript/TSX, Python, Rust, Go, JSON, C, C++, Java by
   * extension). `"off"` (default): no check, no `syntax` in the receipt. `"report"`: the edit lands and
   * the receipt carries `syntax`. `"enforce"`: an edit that introduces a syntax error is refused with
   * `SYNTAX_ERROR_INTRODUCED` and nothing is written. Errors the file already had are not counted;
   * dry runs are checked too. No effect on `deleteFile`.
   */
  validate?: ValidateMode
}

/** See `EditOptions.validate`. */
export type ValidateMode = 'off' | 'report' | 'enforce'

/** One syntax error an edit introduced, positioned in the text after the edit. */
export interface SyntaxErrorInfo {
  /** 1-based line. */
  line: number
  /** 1-based column, in characters (Unicode scalar values). */
  column: number
  /** The line's text (trailing whitespace removed, at most 160 characters). */
  snippet: string
  /** `"error"`: text the grammar could not fit; `"missing"`: a token the parser had to invent. */
  kind: 'error' | 'missing'
  /** For `"missing"`: the expected token, e.g. `")"`. */
  expected?: string
}

/**
 * The syntax gate's report (with `validate: "report" | "enforce"`): either the file was checked
 * (`ok` false when the edit introduced errors; `new_errors` lists at most 10), or it was skipped
 * (`language: null` for an unknown extension; `"too_large"` above 2 MiB; `"timeout"`).
 */
export type SyntaxReport =
  | { language: string; ok: boolean; new_errors: SyntaxErrorInfo[]; skipped?: never }
  | { language: string | null; skipped: 'unknown_language' | 'too_large' | 'timeout'; ok?: never; new_errors?: never }

/** Fields every successful write receipt carries. */
export interface JournalFields {
  /** Pass to `undoEdit`; `null` when nothing was journaled (dry run, or above the 64 MiB journal cap). */
  edit_id: string | null
  undo_available: boolean
  /** Set when the write succeeded but `journal_dir` could not be updated. */
  journal_warning?: string
}

/** A file's encoding as surepatch reads and writes it. */
export type Encoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be'

/** A text's line terminator convention. */
export type LineEnding = 'lf' | 'crlf' | 'cr' | 'mixed' | 'none'

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
  /** The fallback ladder: what to do next, and how many times in a row this file failed with this code. */
  next_action?: 'fix_input' | 'reread' | 'widen_context' | 'use_line_edit' | 'rewrite_file' | 'retry'
  attempt?: number
  /** Set when this exact request already failed on this file: do not resend it unchanged. */
  repeated?: number
  /** For SEARCH_BLOCK_NOT_FOUND: how many lines the file has. */
  file_lines?: number
  /** The tier at which the ambiguity was found. */
  tier?: Tier
  /** For SEARCH_BLOCK_NOT_FOUND: up to 3 nearest regions, best first. */
  candidates?: Candidate[]
  /** One concrete next step. */
  hint?: string
  /** For OVERLAPPING_EDITS: the two edits. */
  edit_indices?: [number, number]
  /** For STALE_FILE (`current_hash` is null when the file is absent). */
  base_hash?: string
  current_hash?: string | null
  /** For STALE_FILE from undoEdit: every file that changed after the edit. */
  stale_files?: Array<{ file_path: string; expected_hash: string | null; current_hash: string | null }>
  /** For STALE_ANCHOR: each anchor whose line changed (`actual_tag` null: the line no longer exists). */
  stale?: Array<{ line: number; expected_tag: string; actual_tag: string | null }>
  /** For STALE_ANCHOR: the current `N:tag|text` lines within 2 lines of each stale anchor. */
  fresh?: string
  total_lines?: number
  /** For ELIDED_CONTENT. */
  placeholder_lines?: Array<{ line: number; text: string }>
  /** For EDIT_NOT_FOUND / undo failures. */
  edit_id?: string
  /** For SYNTAX_ERROR_INTRODUCED: the gate's report (the message shows the first new error in context). */
  syntax?: SyntaxReport
  /** For REWRITE_TOO_BROAD: the limit, and what the rewrite would have changed (as in WriteFileSuccess). */
  max_changed_lines?: number
  changed_lines?: number
  lines_added?: number
  lines_removed?: number
  changed_ranges?: ChangedRange[]
  changed_ranges_truncated?: boolean
  /** The path as the caller wrote it (path errors), and what it resolved to (TARGET_IS_DIRECTORY). */
  path?: string
  resolved?: string
  /** For ENCODING_UNSUPPORTED / BINARY_FILE_REJECTED: where the offending byte is. */
  byte_offset?: number
  /** For FILE_TOO_LARGE: the file's size and the limit, in bytes. */
  size?: number
  limit?: number
  /** For an invalid workspace root. */
  root?: string
  /** Why a path was refused (e.g. `"symlink"`: a link swapped in after resolution). */
  reason?: string
}

export interface PatchFileSuccess extends JournalFields {
  ok: true
  file_path: string
  /** Always 1 for patchFile. */
  replacements: number
  /** 1-based first line of the match. */
  line_number: number
  /** Liberties taken with the input (`unescaped`); empty for textbook input. */
  dialect: Dialect[]
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
  /** With `validate: "report" | "enforce"`. */
  syntax?: SyntaxReport
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

export interface ApplyEditsSuccess extends JournalFields {
  ok: true
  file_path: string
  edits_applied: number
  first_changed_line: number
  /** The loosest tier any edit needed. */
  tier: Tier
  /** Liberties taken with the input (`unescaped`); empty for textbook input. */
  dialect: Dialect[]
  matches: MatchInfo[]
  before_chars: number
  after_chars: number
  before_bytes: number
  after_bytes: number
  diff: string
  written: boolean
  file_hash: string
  /** With `validate: "report" | "enforce"`. */
  syntax?: SyntaxReport
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
  /**
   * Longest wait, in milliseconds, for a lock another surepatch call holds on a file or directory
   * (default 10000); past it the call fails with `LOCK_TIMEOUT` and nothing is written.
   */
  lock_timeout_ms?: number
  lockTimeoutMs?: number
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
  /**
   * The syntax gate (see `EditOptions.validate`), run on every file the input adds or changes before
   * anything is written: under `"enforce"` one file's new error refuses the whole call (nothing is
   * written; `op_index` names the file).
   */
  validate?: ValidateMode
  /** Keep the undo journal on disk too: a directory inside the workspace (see `EditOptions.journal_dir`). */
  journal_dir?: string
  journalDir?: string
  /** Or an absolute directory chosen by the host (see `EditOptions.host_journal_dir`). */
  host_journal_dir?: string
  hostJournalDir?: string
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
  /** With `validate: "report" | "enforce"`, for added and changed files (not deletes or pure moves). */
  syntax?: SyntaxReport
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

export interface ApplyPatchSuccess extends JournalFields {
  ok: true
  /** One entry per operation, in input order. */
  files: HunkFileReceipt[]
  /** False for a dry run. */
  written: boolean
  /** Liberties taken with the patch's syntax (sorted, each once); empty for textbook input. */
  dialect: Dialect[]
}

export interface ApplyBlocksSuccess extends JournalFields {
  ok: true
  files: BlockFileReceipt[]
  written: boolean
  /** Liberties taken with the blocks' syntax (sorted, each once); empty for textbook input. */
  dialect: Dialect[]
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

export interface PermissionScopeSuccess {
  ok: true
  /** The longest common directory (by path components) followed by `/**`, or `**`. */
  glob: string
  /** Every path touched, workspace-relative, sorted. */
  paths: string[]
}

/**
 * Every path an edit set touches and the narrowest covering glob (async; resolves paths through the
 * sandbox, reads and writes nothing). `input`: a list of paths, an apply_patch text, SEARCH/REPLACE path
 * blocks, or a unified diff.
 */
export declare function permissionScope(
  input: string[] | string,
  options?: Pick<EditOptions, 'workspace_root' | 'workspaceRoot'>,
): Promise<PermissionScopeSuccess | Failure>

/** One file a call would touch, as the engine parses and resolves it (see `touchedFiles`). */
export interface TouchedFile {
  /** The path as written in the input (the key of `base_hashes` for the multi-file operations). */
  path: string
  /** Workspace-relative path of the real file (symlinks resolved): what results report as file_path. */
  display: string
  exists: boolean
  /** Hash of the file on disk now (null when missing or unreadable within max_file_bytes). */
  file_hash: string | null
  role: 'file' | 'source' | 'move_target'
  /** For patches, diffs and blocks: the 0-based operation. */
  op_index: number | null
}

/**
 * The files a call of engine operation `op` (snake_case: "apply_patch", "patch_file", "write_file", …)
 * with argument list `args` would touch, from the engine's own parsers and sandbox. Writes nothing.
 */
export declare function touchedFiles(op: string, args: unknown[]): Promise<{ ok: true; targets: TouchedFile[] } | Failure>

export interface OpStats {
  calls: number
  ok: number
  failed: number
  p50_ms: number
  p95_ms: number
  max_ms: number
}

export interface Stats {
  ok: true
  /** Epoch milliseconds when counting started. */
  since_ms: number
  /** Per entry point (`patch_file`, `apply_edits`, …). */
  ops: Record<string, OpStats>
  failures_by_code: Partial<Record<ErrorCode, number>>
  successes_by_tier: Partial<Record<Tier, number>>
  /** Successful calls that needed each dialect liberty. */
  successes_by_dialect: Partial<Record<Dialect, number>>
  /** Failures on a file before its next successful change, averaged over successes. */
  retries_per_success: number
  /** Successful calls by lines added + removed: "0", "1", "2-5", "6-20", "21-100", "101+". */
  changed_lines_histogram: Record<string, number>
  transactions_rolled_back: number
  undos: number
  syntax_refusals: number
  stuck_loops_detected: number
}

/** Counters since start, or since the last `{reset: true}` (synchronous). */
export declare function getStats(options?: { reset?: boolean }): Stats | Failure

/**
 * Append one JSON line per call — `{ts, op, path, ok, code?, tier?, ms, lines_changed, attempt?}`, never file
 * content — to `path`; `null` turns the log off. `SUREPATCH_LOG=<file>` sets it at start (synchronous).
 */
export declare function setEventLog(path: string | null): { ok: true } | Failure
/** Options of viewFile (snake_case or camelCase). */
export interface ViewFileOptions {
  workspace_root?: string
  workspaceRoot?: string
  /**
   * Longest wait, in milliseconds, for a lock another surepatch call holds on a file or directory
   * (default 10000); past it the call fails with `LOCK_TIMEOUT` and nothing is written.
   */
  lock_timeout_ms?: number
  lockTimeoutMs?: number
  /** `"plain"` (default); `"numbered"` prefixes `%6d\t` like `cat -n`; `"hashline"` prefixes `N:tag|`. */
  format?: 'plain' | 'numbered' | 'hashline'
  /** 1-based first line (default 1). */
  start_line?: number
  startLine?: number
  /** 1-based last line, inclusive (default: the last line; larger values are clamped). */
  end_line?: number
  endLine?: number
  /** Cap on `content` in UTF-8 bytes (default 262144): only whole lines fit, then `truncated: true`. */
  max_bytes?: number
  maxBytes?: number
  /** Cap on the lines shown (default 2000 when `end_line` is not given). */
  max_lines?: number
  maxLines?: number
  max_file_bytes?: number
  maxFileBytes?: number
}

export interface ViewFileSuccess {
  ok: true
  file_path: string
  /**
   * The lines shown, each followed by "\n" whatever the file's terminator (see `line_ending`); the
   * file's last line has none when the file does not end with one.
   */
  content: string
  start_line: number
  /** Last line included (`start_line - 1` when none fit in `max_bytes`). */
  end_line: number
  total_lines: number
  /** Hash of the whole file's bytes: pass as `base_hash` to later edits. */
  file_hash: string
  encoding: Encoding
  line_ending: LineEnding
  /** Whether a cap cut the view (then `next_start_line` continues it). */
  truncated: boolean
  next_start_line?: number
  /** Set when the line at `start_line` alone is longer than `max_bytes`. */
  hint?: string
}

export type ViewFileResult = ViewFileSuccess | Failure

/** A line anchor from a hashline view: `"12:ab3f"` (the line number, a colon, the line's tag). */
export type LineAnchor = `${number}:${string}`

/** New lines, as an array (one line per item, no line breaks) or as text split on line breaks. */
export type NewLines = { lines: string[]; text?: never } | { text: string; lines?: never }

/** One line-anchored op; `end` is inclusive and defaults to `start`. */
export type LineOp =
  | ({ op: 'replace'; start: LineAnchor; end?: LineAnchor } & NewLines)
  | { op: 'delete'; start: LineAnchor; end?: LineAnchor; lines?: never; text?: never }
  | ({ op: 'insert_before' | 'insert_after'; start: LineAnchor; end?: never } & NewLines)

export interface EditLinesSuccess extends JournalFields {
  ok: true
  file_path: string
  ops_applied: number
  first_changed_line: number
  lines_added: number
  lines_removed: number
  before_chars: number
  after_chars: number
  before_bytes: number
  after_bytes: number
  diff: string
  written: boolean
  file_hash: string
  /** With `validate: "report" | "enforce"`. */
  syntax?: SyntaxReport
}

export type EditLinesResult = EditLinesSuccess | Failure

/** Options of writeFile (and createFile). */
export interface WriteFileOptions extends EditOptions {
  /** Write content that holds elision placeholders such as `// ... existing code ...` anyway. */
  allow_placeholders?: boolean
  allowPlaceholders?: boolean
  /** Encoding to write (default: the existing file's, or UTF-8 for a new file). */
  encoding?: Encoding
  /**
   * `"keep"` (default): convert line breaks to the existing file's terminator when it uses one
   * throughout; `"as_is"`: write them as given; or force one.
   */
  line_ending?: 'keep' | 'as_is' | 'lf' | 'crlf' | 'cr'
  lineEnding?: 'keep' | 'as_is' | 'lf' | 'crlf' | 'cr'
  /**
   * Refuse a rewrite of an existing file whose `changed_lines` is larger, with `REWRITE_TOO_BROAD`
   * (nothing written). Not applied when a file is created.
   */
  max_changed_lines?: number
  maxChangedLines?: number
}

/**
 * Changed lines of a whole-file write, 1-based in the new file. `end_line === start_line - 1` marks
 * lines that were only removed, just before `start_line`.
 */
export interface ChangedRange {
  start_line: number
  end_line: number
}

export interface CreateFileOptions extends WriteFileOptions {
  /** Replace an existing file (a rewrite: encoding kept, placeholders checked) instead of FILE_EXISTS. */
  overwrite?: boolean
}

export interface WriteFileSuccess extends JournalFields {
  ok: true
  file_path: string
  /** True when the file did not exist before. */
  created: boolean
  encoding: Encoding
  line_ending: LineEnding
  before_bytes: number
  after_bytes: number
  /** Lines of the new content the old one did not have, and lines of the old content that are gone. */
  lines_added: number
  lines_removed: number
  /** Per block of adjacent changed lines the larger of removed and added, summed (what `max_changed_lines` limits). */
  changed_lines: number
  /** At most 20; `changed_ranges_truncated` says whether more changed. */
  changed_ranges: ChangedRange[]
  changed_ranges_truncated: boolean
  diff: string
  written: boolean
  file_hash: string
  /** With `validate: "report" | "enforce"` (a new file is checked against an empty one). */
  syntax?: SyntaxReport
}

export type WriteFileResult = WriteFileSuccess | Failure

export interface DeleteFileSuccess extends JournalFields {
  ok: true
  file_path: string
  deleted: true
  before_bytes: number
  written: boolean
  file_hash: null
}

export type DeleteFileResult = DeleteFileSuccess | Failure

export interface UndoEditOptions {
  workspace_root?: string
  workspaceRoot?: string
  /**
   * Longest wait, in milliseconds, for a lock another surepatch call holds on a file or directory
   * (default 10000); past it the call fails with `LOCK_TIMEOUT` and nothing is written.
   */
  lock_timeout_ms?: number
  lockTimeoutMs?: number
  /** Also look in (and remove from) this on-disk journal. */
  journal_dir?: string
  journalDir?: string
  /** Or this one (see `EditOptions.host_journal_dir`). */
  host_journal_dir?: string
  hostJournalDir?: string
  max_file_bytes?: number
  maxFileBytes?: number
}

/** What to undo: an `edit_id` from a receipt, or a file path (the newest journaled edit of it). */
export type UndoTarget = string | { edit_id: string } | { editId: string } | { file_path: string } | { filePath: string }

export interface UndoneFile {
  file_path: string
  /** `"restored"` previous bytes; `"recreated"` a deleted file; `"deleted"` a created file. */
  action: 'restored' | 'recreated' | 'deleted'
  /** Hash of the file now (`null` when deleted). */
  file_hash: string | null
}

export interface UndoEditSuccess {
  ok: true
  edit_id: string
  files: UndoneFile[]
}

export type UndoEditResult = UndoEditSuccess | Failure

/** Read a file or a line range (async). */
export declare function viewFile(filePath: string, options?: ViewFileOptions): Promise<ViewFileResult>

/** Options every reading and finding tool takes. */
export interface WorkspaceOption {
  workspace_root?: string
  workspaceRoot?: string
}

export interface ListDirectoryOptions extends WorkspaceOption {
  /** Levels to list (1..20, default 1: the directory's own entries). */
  depth?: number
  /** List files `.gitignore` excludes too (default false). `.git` is never listed. */
  include_ignored?: boolean
  includeIgnored?: boolean
  /** At most this many entries (default 1000, up to 100000). */
  max_entries?: number
  maxEntries?: number
}

export interface DirectoryEntry {
  /** Workspace-relative. */
  path: string
  /** A symlink is not followed. */
  type: 'file' | 'directory' | 'symlink' | 'other'
  /** Bytes (files only). */
  size?: number
}

export type ListDirectoryResult =
  | { ok: true; path: string; entries: DirectoryEntry[]; truncated: boolean; hint?: string }
  | Failure

export interface FindFilesOptions extends WorkspaceOption {
  /** Directory to search (default: the root). */
  path?: string
  /** At most this many paths (default 1000, up to 100000). */
  max_results?: number
  maxResults?: number
  include_ignored?: boolean
  includeIgnored?: boolean
  /** Include hidden files and directories (default false). */
  include_hidden?: boolean
  includeHidden?: boolean
}

export type FindFilesResult =
  | { ok: true; path: string; pattern: string; files: string[]; truncated: boolean; hint?: string }
  | Failure

export interface SearchFilesOptions extends WorkspaceOption {
  /** `query` is a Rust regex (default false: literal text). */
  regex?: boolean
  /** Directory to search (default: the root). */
  path?: string
  /** Only files matching this glob (without `/`: by file name at any depth). */
  glob?: string
  /** Default true. */
  case_sensitive?: boolean
  caseSensitive?: boolean
  /** Lines before and after each match (0..20, default 0). */
  context_lines?: number
  contextLines?: number
  /** At most this many matching lines (default 200, up to 100000). */
  max_results?: number
  maxResults?: number
  include_ignored?: boolean
  includeIgnored?: boolean
  include_hidden?: boolean
  includeHidden?: boolean
}

export interface SearchMatch {
  line_number: number
  /** The line without its terminator (cut at 500 bytes, ending with '…'). */
  text: string
  /** With `context_lines` only. */
  before?: string[]
  after?: string[]
}

export type SearchFilesResult =
  | {
      ok: true
      path: string
      results: { file_path: string; matches: SearchMatch[] }[]
      match_count: number
      files_with_matches: number
      files_searched: number
      /** Files that could not be opened or read (skipped); absent when 0. */
      files_unreadable?: number
      truncated: boolean
      hint?: string
      long_lines_cut?: true
      long_lines_hint?: string
    }
  | Failure

/** A file to read whole, or a line range of it. */
export type ReadManyItem = string | { file_path: string; start_line?: number; end_line?: number }

export interface ReadManyFilesOptions extends WorkspaceOption {
  format?: 'plain' | 'numbered' | 'hashline'
  /** Content bytes for all files together (default and most 1048576). */
  max_bytes?: number
  maxBytes?: number
  max_file_bytes?: number
  maxFileBytes?: number
}

export type ReadManyFilesResult =
  | { ok: true; files: (ViewFileSuccess | (Failure & { file_path: string }))[]; failed: number; hint?: string }
  | Failure

export interface MoveFileOptions extends EditOptions {
  /** Replace an existing file at `toPath` (default false: FILE_EXISTS). */
  overwrite?: boolean
}

export type MoveFileResult =
  | {
      ok: true
      file_path: string
      moved_to: string
      bytes: number
      file_hash: string
      /** Whether a file at `toPath` was replaced. */
      replaced: boolean
      written: boolean
      edit_id: string | null
      undo_available: boolean
      journal_warning?: string
    }
  | Failure

export type CreateDirectoryResult = { ok: true; path: string; created: boolean } | Failure

/** A directory's entries, `.gitignore`-aware (async). */
export declare function listDirectory(path?: string | null, options?: ListDirectoryOptions): Promise<ListDirectoryResult>

/** Files matching a glob, `.gitignore`-aware, in tree order (async). */
export declare function findFiles(pattern: string, options?: FindFilesOptions): Promise<FindFilesResult>

/** Search file contents, literal or regex, with line numbers and context; binary files skipped (async). */
export declare function searchFiles(query: string, options?: SearchFilesOptions): Promise<SearchFilesResult>

/** Several files or ranges in one call, each with its `file_hash` or its own failure (async). */
export declare function readManyFiles(files: ReadManyItem[], options?: ReadManyFilesOptions): Promise<ReadManyFilesResult>

/** Rename a file inside the workspace: locked, atomic, undoable (async). */
export declare function moveFile(fromPath: string, toPath: string, options?: MoveFileOptions): Promise<MoveFileResult>

/** Create a directory and its missing parents (async). */
export declare function createDirectory(path: string, options?: WorkspaceOption): Promise<CreateDirectoryResult>

/** Line-anchored edits; every anchor is checked against the file first (async). */
export declare function editLines(filePath: string, ops: LineOp[], options?: EditOptions): Promise<EditLinesResult>

/** Create a file, with its parent directories; FILE_EXISTS unless `overwrite` (async). */
export declare function createFile(filePath: string, content: string, options?: CreateFileOptions): Promise<WriteFileResult>

/** Rewrite an existing file whole (async). */
export declare function writeFile(filePath: string, content: string, options?: WriteFileOptions): Promise<WriteFileResult>

/** Delete a file; undoable (async). */
export declare function deleteFile(filePath: string, options?: EditOptions): Promise<DeleteFileResult>

/**
 * Undo a journaled write if every file it touched is still as it left it (else STALE_FILE, nothing
 * written). An undo is not itself journaled (async).
 */
export declare function undoEdit(editIdOrPath: UndoTarget, options?: UndoEditOptions): Promise<UndoEditResult>
/** A JSON Schema object (the tools' input schemas are plain draft-07/2020-12 compatible objects). */
export type JsonSchema = { [keyword: string]: unknown }

/** The agent tool names (each appears once its library function is in the build). */
export type ToolName =
  | 'view_file'
  | 'patch_file'
  | 'edit_file'
  | 'apply_patch'
  | 'edit_lines'
  | 'write_file'
  | 'delete_file'
  | 'undo_edit'

/**
 * Ready-made tool definitions for harnesses that do not speak MCP, generated from the same source as the
 * MCP server's schemas and `schemas/*.json`. Only tools available in this build are listed.
 */
export declare const toolDefinitions: {
  /** OpenAI function tools (Chat Completions `tools`). */
  openai: Array<{ type: 'function'; function: { name: ToolName; description: string; parameters: JsonSchema } }>
  /**
   * Chat Completions tools with `strict: true`: every property listed in `required` (optional ones
   * nullable; a tool runner reads `null` as absent), `additionalProperties: false` at every level, and
   * no keyword strict mode refuses (lengths, patterns, bounds, defaults).
   */
  openaiStrict: Array<{ type: 'function'; function: { name: ToolName; description: string; parameters: JsonSchema; strict: true } }>
  /** The Responses API's flat function tools, with the same strict schemas. */
  openaiResponses: Array<{ type: 'function'; name: ToolName; description: string; parameters: JsonSchema; strict: true }>
  /** Anthropic Messages API `tools`. */
  anthropic: Array<{ name: ToolName; description: string; input_schema: JsonSchema }>
  /** Vercel AI SDK: wrap `parameters` with `jsonSchema()` (as `inputSchema` in AI SDK 5). */
  vercel: { [name: string]: { description: string; parameters: JsonSchema } }
}

export interface ToolRunnerOptions {
  /** Directory every path must stay inside (default: `process.cwd()`). Tool calls cannot change it. */
  workspaceRoot?: string
  workspace_root?: string
  /** Refuse edits to files not viewed through this runner, or changed since, with STALE_FILE. */
  requireRead?: boolean
  require_read?: boolean
  /** The syntax gate mode passed to every editing tool (default `"report"`); tool calls cannot change it. */
  validate?: ValidateMode
}

/** Calls the agent tools by name with a model's arguments, as the MCP server does. */
export interface ToolRunner {
  readonly root: string
  readonly requireRead: boolean
  readonly validate: ValidateMode
  /** The tools available in this build. */
  readonly tools: ToolName[]
  /** Resolves to the engine's result object (`INVALID_INPUT` for bad arguments or an unknown tool); never rejects. */
  call(name: string, args: unknown): Promise<{ ok: true; [key: string]: unknown } | Failure>
}

/** A tool runner bound to one workspace root (one runner = one session for `requireRead`). */
export declare function createToolRunner(options?: ToolRunnerOptions): ToolRunner
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

/** `applyUnifiedDiff` options. */
export interface UnifiedDiffOptions extends PatchOptions {
  /**
   * The file the diff is for, used when its hunks come with no `---`/`+++` headers, or when no name
   * in the headers (nor another spelling: `a/x` → `x`, `x.orig` → `x`) names an existing file.
   * Without it such a diff is refused (`PARSE_ERROR`, or `FILE_NOT_FOUND`).
   */
  file_path?: string
  filePath?: string
}

/**
 * Apply a unified diff (plain or git; renames, new and deleted files) as one transaction (async).
 * Hunk headers without numbers and wrong counts are read (counts come from the body; line numbers
 * are hints that never choose between places).
 */
export declare function applyUnifiedDiff(diffText: string, options?: UnifiedDiffOptions): Promise<ApplyPatchResult>

/** Parse SEARCH/REPLACE blocks into edits, ignoring path lines (synchronous; touches no files). */
export declare function parseBlocks(text: string): ParseBlocksResult

/** Parse SEARCH/REPLACE blocks into `{path: edits}`, in order of first appearance (synchronous). */
export declare function parsePathBlocks(text: string): ParsePathBlocksResult
