// Type definitions for surepatch. The function declarations and option types are written by hand and
// checked by `tsc` in `npm test` (__test__/types); the result types (every `…Success`, `…Result`,
// `Failure` and what they hold) are generated into types/receipts.d.ts from the JSON Schemas that the
// Rust receipt types generate (`npm run schemas`; see docs/development.md).
//
// Every function that touches files is asynchronous: it runs on Node's libuv thread pool and never
// blocks the event loop. It resolves to a result object and never rejects for a user error.

import type {
  ApplyBlocksResult,
  ApplyEditsResult,
  ApplyPatchResult,
  CreateDirectoryResult,
  DeleteFileResult,
  EditLinesResult,
  Encoding,
  Failure,
  FindFilesResult,
  HunkFileReceipt,
  ListDirectoryResult,
  MoveFileResult,
  ParseBlocksResult,
  ParsePathBlocksResult,
  PatchFileResult,
  PermissionScopeSuccess,
  ReadManyFilesResult,
  SearchFilesResult,
  Stats,
  TouchedFile,
  UndoEditResult,
  ViewFileResult,
  WriteFileResult,
} from './types/receipts'
export * from './types/receipts'

/** The fields every file of a multi-file receipt has (see `HunkFileReceipt`, `BlockFileReceipt`). */
export type FileReceiptBase = Omit<HunkFileReceipt, 'hunks_applied' | 'matches'>

/** A multi-file failure: `Failure` declares its fields (`op_index`, `hunk_index`, `line`, …). */
export type PatchFailure = Failure

/** A parse failure of the synchronous parsers (`line`: where the problem was seen). */
export type ParseFailure = Failure

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

/** Replace the one occurrence of `search_block` in a file (async, off the event loop). */
export declare function patchFile(input: PatchFileInput, options?: EditOptions): Promise<PatchFileResult>

/** Apply a batch of edits to one file, all or nothing, in one atomic write (async). */
export declare function applyEdits(filePath: string, edits: Edit[], options?: EditOptions): Promise<ApplyEditsResult>

/** `applyEdits` as a dry run: the full receipt, nothing written (async). */
export declare function previewEdits(filePath: string, edits: Edit[], options?: EditOptions): Promise<ApplyEditsResult>

/** Every failure code with one sentence on what to do about it (synchronous; touches no files). */
export declare function errorCodes(): Array<{ code: ErrorCode; remedy: string }>

/**
 * Every path an edit set touches and the narrowest covering glob (async; resolves paths through the
 * sandbox, reads and writes nothing). `input`: a list of paths, an apply_patch text, SEARCH/REPLACE path
 * blocks, or a unified diff.
 */
export declare function permissionScope(
  input: string[] | string,
  options?: Pick<EditOptions, 'workspace_root' | 'workspaceRoot'>,
): Promise<PermissionScopeSuccess | Failure>

/**
 * The files a call of engine operation `op` (snake_case: "apply_patch", "patch_file", "write_file", …)
 * with argument list `args` would touch, from the engine's own parsers and sandbox. Writes nothing.
 */
export declare function touchedFiles(op: string, args: unknown[]): Promise<{ ok: true; targets: TouchedFile[] } | Failure>

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

/** A line anchor from a hashline view: `"12:ab3f"` (the line number, a colon, the line's tag). */
export type LineAnchor = `${number}:${string}`

/** New lines, as an array (one line per item, no line breaks) or as text split on line breaks. */
export type NewLines = { lines: string[]; text?: never } | { text: string; lines?: never }

/** One line-anchored op; `end` is inclusive and defaults to `start`. */
export type LineOp =
  | ({ op: 'replace'; start: LineAnchor; end?: LineAnchor } & NewLines)
  | { op: 'delete'; start: LineAnchor; end?: LineAnchor; lines?: never; text?: never }
  | ({ op: 'insert_before' | 'insert_after'; start: LineAnchor; end?: never } & NewLines)

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

export interface CreateFileOptions extends WriteFileOptions {
  /** Replace an existing file (a rewrite: encoding kept, placeholders checked) instead of FILE_EXISTS. */
  overwrite?: boolean
}

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

export interface MoveFileOptions extends EditOptions {
  /** Replace an existing file at `toPath` (default false: FILE_EXISTS). */
  overwrite?: boolean
}

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
