// Type definitions for surepatch. The function declarations are written by hand and checked by `tsc`
// in `npm test` (__test__/types); the result types (every `…Success`, `…Result`, `Failure` and what
// they hold) are generated into types/receipts.d.ts, and the argument and option types (every
// `…Options`, `PatchFileInput`, `Edit`, `LineOp`, `UndoTarget`, `ReadManyItem`, the `…Args` tuples)
// into types/options.d.ts, from the JSON Schemas that the Rust types generate (`npm run schemas`;
// see docs/development.md).
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
import type {
  BlocksOptions,
  CreateFileOptions,
  Edit,
  EditOptions,
  FindFilesOptions,
  LineOp,
  ListDirectoryOptions,
  MoveFileOptions,
  PatchFileInput,
  PatchOptions,
  ReadManyFilesOptions,
  ReadManyItem,
  ScopeInput,
  SearchFilesOptions,
  StatsOptions,
  UndoEditOptions,
  UndoTarget,
  UnifiedDiffOptions,
  ValidateMode,
  ViewFileOptions,
  WorkspaceOption,
  WriteFileOptions,
} from './types/options'
export * from './types/receipts'
export * from './types/options'

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
export declare function permissionScope(input: ScopeInput, options?: WorkspaceOption): Promise<PermissionScopeSuccess | Failure>

/**
 * The files a call of engine operation `op` (snake_case: "apply_patch", "patch_file", "write_file", …)
 * with argument list `args` would touch, from the engine's own parsers and sandbox. Writes nothing.
 */
export declare function touchedFiles(op: string, args: unknown[]): Promise<{ ok: true; targets: TouchedFile[] } | Failure>

/** Counters since start, or since the last `{reset: true}` (synchronous). */
export declare function getStats(options?: StatsOptions): Stats | Failure

/**
 * Append one JSON line per call — `{ts, op, path, ok, code?, tier?, ms, lines_changed, attempt?}`, never file
 * content — to `path`; `null` turns the log off. `SUREPATCH_LOG=<file>` sets it at start (synchronous).
 */
export declare function setEventLog(path: string | null): { ok: true } | Failure
/** New lines, as an array (one line per item, no line breaks) or as text split on line breaks. */
export type NewLines = { lines: string[]; text?: never } | { text: string; lines?: never }

/** Read a file or a line range (async). */
export declare function viewFile(filePath: string, options?: ViewFileOptions): Promise<ViewFileResult>

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
