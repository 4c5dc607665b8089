// Type definitions for surepatch. Everything a library function takes and returns is generated from
// the Rust declarations (`npm run schemas`; see docs/development.md): the `…Args` tuples and every
// option type into types/options.d.ts, every `…Result`, `…Success` and `Failure` into
// types/receipts.d.ts, through the JSON Schemas under schemas/. The declarations below only name
// them, one per entry of schemas/ops.json; a test (__test__/exports.test.mjs) checks each against that
// table, and `tsc` (__test__/types) checks that real calls type-check.
//
// Every function that touches files is asynchronous: it runs on a thread of the addon's own (not on
// libuv's thread pool) and never blocks the event loop. It resolves to a result object and never
// rejects for a user error.

import type {
  ApplyBlocksResult,
  ApplyEditsResult,
  ApplyPatchResult,
  CodesSuccess,
  CreateCheckpointResult,
  CreateDirectoryResult,
  ListCheckpointsResult,
  RestoreCheckpointResult,
  DeleteFileResult,
  EditLinesResult,
  EditSymbolResult,
  ListSymbolsResult,
  Failure,
  FindFilesResult,
  HunkFileReceipt,
  ListDirectoryResult,
  MergeSnippetResult,
  MoveFileResult,
  ParseBlocksResult,
  ParsePathBlocksResult,
  PatchFileResult,
  PermissionScopeResult,
  ReadManyFilesResult,
  SearchFilesResult,
  SetEventLogResult,
  StatsResult,
  TouchedFilesResult,
  UndoEditResult,
  ViewFileResult,
  WriteFileResult,
} from './types/receipts'
import type {
  ApplyBlocksArgs,
  ApplyEditsArgs,
  ApplyPatchArgs,
  ApplyUnifiedDiffArgs,
  CreateCheckpointArgs,
  CreateDirectoryArgs,
  CreateFileArgs,
  ListCheckpointsArgs,
  RestoreCheckpointArgs,
  DeleteFileArgs,
  EditLinesArgs,
  EditSymbolArgs,
  ListSymbolsArgs,
  ErrorCodesArgs,
  FindFilesArgs,
  GetStatsArgs,
  ListDirectoryArgs,
  MergeSnippetArgs,
  MoveFileArgs,
  ParseBlocksArgs,
  ParsePathBlocksArgs,
  PatchFileArgs,
  PermissionScopeArgs,
  PreviewEditsArgs,
  ReadManyFilesArgs,
  SearchFilesArgs,
  SetEventLogArgs,
  TouchedFilesArgs,
  UndoEditArgs,
  ValidateMode,
  ViewFileArgs,
  WriteFileArgs,
} from './types/options'
export * from './types/receipts'
export * from './types/options'
export type { ToolName, ToolArgs, ToolResults } from './types/tools'
import type { ToolName, ToolResults } from './types/tools'

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
  readonly ALREADY_APPLIED: 'ALREADY_APPLIED'
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
  readonly SNIPPET_UNANCHORED: 'SNIPPET_UNANCHORED'
  readonly SNIPPET_AMBIGUOUS: 'SNIPPET_AMBIGUOUS'
  readonly SNIPPET_OUT_OF_ORDER: 'SNIPPET_OUT_OF_ORDER'
  readonly SNIPPET_KEEP_MISSING: 'SNIPPET_KEEP_MISSING'
  readonly SYMBOL_NOT_FOUND: 'SYMBOL_NOT_FOUND'
  readonly SYMBOL_AMBIGUOUS: 'SYMBOL_AMBIGUOUS'
  readonly UNSUPPORTED_LANGUAGE: 'UNSUPPORTED_LANGUAGE'
  readonly INTERNAL_ERROR: 'INTERNAL_ERROR'
}

/** The union of every failure code. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/** Replace the one occurrence of `search_block` in a file (async, off the event loop). */
export declare function patchFile(...args: PatchFileArgs): Promise<PatchFileResult>

/**
 * Merge a lazy snippet (changed regions plus `// ... existing code ...` markers) into one file; refused
 * with a SNIPPET_* code, the chunk and candidate regions when any chunk has no single place (async).
 */
export declare function mergeSnippet(...args: MergeSnippetArgs): Promise<MergeSnippetResult>

/** Apply a batch of edits to one file, all or nothing, in one atomic write (async). */
export declare function applyEdits(...args: ApplyEditsArgs): Promise<ApplyEditsResult>

/** `applyEdits` as a dry run: the full receipt, nothing written (async). */
export declare function previewEdits(...args: PreviewEditsArgs): Promise<ApplyEditsResult>

/** Every failure code with one sentence on what to do about it (synchronous; touches no files). */
export declare function errorCodes(...args: ErrorCodesArgs): CodesSuccess['codes']

/**
 * Every path an edit set touches and the narrowest covering glob (async; resolves paths through the
 * sandbox, reads and writes nothing). `input`: a list of paths, an apply_patch text, SEARCH/REPLACE path
 * blocks, or a unified diff.
 */
export declare function permissionScope(...args: PermissionScopeArgs): Promise<PermissionScopeResult>

/**
 * The files a call of engine operation `op` (snake_case: "apply_patch", "patch_file", "write_file", …)
 * with argument list `args` would touch, from the engine's own parsers and sandbox. Writes nothing.
 */
export declare function touchedFiles(...args: TouchedFilesArgs): Promise<TouchedFilesResult>

/** Counters since start, or since the last `{reset: true}` (synchronous). */
export declare function getStats(...args: GetStatsArgs): StatsResult

/**
 * Append one JSON line per call — `{ts, op, path, ok, code?, tier?, ms, lines_changed, attempt?}`, never file
 * content — to `path`; `null` turns the log off. `SUREPATCH_LOG=<file>` sets it at start (synchronous).
 */
export declare function setEventLog(...args: SetEventLogArgs): SetEventLogResult
/** New lines, as an array (one line per item, no line breaks) or as text split on line breaks. */
export type NewLines = { lines: string[]; text?: never } | { text: string; lines?: never }

/** Read a file or a line range (async). */
export declare function viewFile(...args: ViewFileArgs): Promise<ViewFileResult>

/** A directory's entries, `.gitignore`-aware (async). */
export declare function listDirectory(...args: ListDirectoryArgs): Promise<ListDirectoryResult>

/** Files matching a glob, `.gitignore`-aware, in tree order (async). */
export declare function findFiles(...args: FindFilesArgs): Promise<FindFilesResult>

/** Search file contents, literal or regex, with line numbers and context; binary files skipped (async). */
export declare function searchFiles(...args: SearchFilesArgs): Promise<SearchFilesResult>

/** Several files or ranges in one call, each with its `file_hash` or its own failure (async). */
export declare function readManyFiles(...args: ReadManyFilesArgs): Promise<ReadManyFilesResult>

/** Rename a file inside the workspace: locked, atomic, undoable (async). */
export declare function moveFile(...args: MoveFileArgs): Promise<MoveFileResult>

/** Create a directory and its missing parents (async). */
export declare function createDirectory(...args: CreateDirectoryArgs): Promise<CreateDirectoryResult>
/**
 * A checkpoint of the workspace now (with `journal_dir`, also kept on disk: it survives a restart with
 * the journal). Pass its `checkpoint_id` to `restoreCheckpoint` (async).
 */
export declare function createCheckpoint(...args: CreateCheckpointArgs): Promise<CreateCheckpointResult>
/**
 * Every file surepatch wrote since the checkpoint, put back as one transaction: contents, files
 * created since deleted, deleted ones recreated, moves reversed. A file changed since by anything
 * else: STALE_FILE naming it, nothing restored, unless `force` (async).
 */
export declare function restoreCheckpoint(...args: RestoreCheckpointArgs): Promise<RestoreCheckpointResult>
/** The workspace's checkpoints, oldest first, each with how many edits were made since (async). */
export declare function listCheckpoints(...args: ListCheckpointsArgs): Promise<ListCheckpointsResult>

/** Line-anchored edits; every anchor is checked against the file first (async). */
export declare function editLines(...args: EditLinesArgs): Promise<EditLinesResult>

/** A source file's outline: every symbol with its name path, kind and whole span, and a compact text form (async). */
export declare function listSymbols(...args: ListSymbolsArgs): Promise<ListSymbolsResult>

/** Replace, delete, or insert next to one symbol named by its name path; re-indented, undoable (async). */
export declare function editSymbol(...args: EditSymbolArgs): Promise<EditSymbolResult>

/** Create a file, with its parent directories; FILE_EXISTS unless `overwrite` (async). */
export declare function createFile(...args: CreateFileArgs): Promise<WriteFileResult>

/** Rewrite an existing file whole (async). */
export declare function writeFile(...args: WriteFileArgs): Promise<WriteFileResult>

/** Delete a file; undoable (async). */
export declare function deleteFile(...args: DeleteFileArgs): Promise<DeleteFileResult>

/**
 * Undo a journaled write if every file it touched is still as it left it (else STALE_FILE, nothing
 * written). An undo is not itself journaled (async).
 */
export declare function undoEdit(...args: UndoEditArgs): Promise<UndoEditResult>
/** A JSON Schema type name. */
export type JsonSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null'

/**
 * A JSON Schema, as the tools' schemas use it (plain draft-07/2020-12 compatible objects): the keywords
 * they use, typed so that it fits JSON Schema 7 types (`JSONSchema7`, which the AI SDK's `jsonSchema()`
 * takes) and the Anthropic SDK's `Tool.InputSchema`.
 */
export type JsonSchema = {
  type?: JsonSchemaType | JsonSchemaType[]
  title?: string
  description?: string
  properties?: { [name: string]: JsonSchema }
  required?: string[]
  additionalProperties?: boolean
  items?: JsonSchema
  anyOf?: JsonSchema[]
  enum?: Array<string | number | boolean | null>
  const?: string | number | boolean | null
  minimum?: number
  minItems?: number
  maxItems?: number
}

/** A tool's input schema: an object schema. */
export type ObjectSchema = JsonSchema & { type: 'object'; properties: { [name: string]: JsonSchema } }

/**
 * Ready-made tool definitions for harnesses that do not speak MCP, generated from the same source as the
 * MCP server's schemas and `schemas/*.json`. Only tools available in this build are listed.
 */
export declare const toolDefinitions: {
  /** OpenAI function tools (Chat Completions `tools`). */
  openai: Array<{ type: 'function'; function: { name: ToolName; description: string; parameters: ObjectSchema } }>
  /**
   * Chat Completions tools with `strict: true`: every property listed in `required` (optional ones
   * nullable; a tool runner reads `null` as absent), `additionalProperties: false` at every level, and
   * no keyword strict mode refuses (lengths, patterns, bounds, defaults).
   */
  openaiStrict: Array<{ type: 'function'; function: { name: ToolName; description: string; parameters: ObjectSchema; strict: true } }>
  /** The Responses API's flat function tools, with the same strict schemas. */
  openaiResponses: Array<{ type: 'function'; name: ToolName; description: string; parameters: ObjectSchema; strict: true }>
  /** Anthropic Messages API `tools` (each fits `Anthropic.Tool` of `@anthropic-ai/sdk`). */
  anthropic: Array<{ name: ToolName; description: string; input_schema: ObjectSchema }>
  /**
   * Vercel AI SDK 5 and later, by tool name: `tool({ description: d.description, inputSchema:
   * jsonSchema(d.inputSchema) })` (`tool` and `jsonSchema` from `ai`).
   */
  vercel: { [N in ToolName]?: { description: string; inputSchema: ObjectSchema } }
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
  /**
   * `undo_edit` reaches only the edits this runner's own calls made (its last 256): another runner's
   * edit is `EDIT_NOT_FOUND`, by id or by path. For hosts that serve several agents from one process
   * (the MCP server's HTTP sessions); default false (any edit in the process's journal).
   */
  isolateUndo?: boolean
  isolate_undo?: boolean
}

/** Calls the agent tools by name with a model's arguments, as the MCP server does. */
export interface ToolRunner {
  readonly root: string
  readonly requireRead: boolean
  readonly isolateUndo: boolean
  readonly validate: ValidateMode
  /** The tools available in this build. */
  readonly tools: ToolName[]
  /**
   * Resolves to the engine's result object (`INVALID_INPUT` for bad arguments or an unknown tool); never
   * rejects. `args`: the model's arguments as it sent them (an object, or a JSON string); a tool's own
   * type is `ToolArgs[name]`. The result is typed per tool name (`ToolResults`).
   */
  call<N extends ToolName>(name: N, args?: unknown): Promise<ToolResults[N]>
  call<S extends string>(name: S extends ToolName ? never : S, args?: unknown): Promise<{ ok: true; [key: string]: unknown } | Failure>
}

/** A tool runner bound to one workspace root (one runner = one session for `requireRead`). */
export declare function createToolRunner(options?: ToolRunnerOptions): ToolRunner
/**
 * Apply an `apply_patch` envelope (Add / Delete / Update / Move to, `@@` scopes, `*** End of File`;
 * heredoc and markdown-fence wrappers accepted) as one transaction: every file or none (async).
 */
export declare function applyPatch(...args: ApplyPatchArgs): Promise<ApplyPatchResult>

/**
 * Parse and apply SEARCH/REPLACE blocks, each under the path line written before it (or all to
 * `options.file_path`), as one transaction (async). An empty SEARCH section creates the file.
 */
export declare function applyBlocks(...args: ApplyBlocksArgs): Promise<ApplyBlocksResult>

/**
 * Apply a unified diff (plain or git; renames, new and deleted files) as one transaction (async).
 * Hunk headers without numbers and wrong counts are read (counts come from the body; line numbers
 * are hints that never choose between places).
 */
export declare function applyUnifiedDiff(...args: ApplyUnifiedDiffArgs): Promise<ApplyPatchResult>

/** Parse SEARCH/REPLACE blocks into edits, ignoring path lines (synchronous; touches no files). */
export declare function parseBlocks(...args: ParseBlocksArgs): ParseBlocksResult

/** Parse SEARCH/REPLACE blocks into `{path: edits}`, in order of first appearance (synchronous). */
export declare function parsePathBlocks(...args: ParsePathBlocksArgs): ParsePathBlocksResult
