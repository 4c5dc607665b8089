'use strict'
// The one source of truth for surepatch's agent tools.
//
// Every tool is one declarative entry in TOOLS: its name, the library function it needs, a description
// that teaches a model the contract and how to recover, the input JSON Schema, the success shape of
// its result, MCP annotations, how the arguments map onto the library call, and what it does to files
// (for --require-read). Everything else is generated from these entries:
//   - the MCP server's tools/list and tools/call (mcp/server.mjs),
//   - `toolDefinitions` in index.js (OpenAI, Anthropic and Vercel AI SDK shapes),
//   - schemas/<tool>.input.json and schemas/<tool>.output.json (`npm run schemas`).
//
// This module is CommonJS so that index.js (CommonJS) and the ESM server can both load it. It never
// requires index.js itself: every function takes the library object as an argument.
//
// Schemas use only keywords that mean the same in JSON Schema draft-07 and 2020-12 (the SDK's client
// validates with Ajv's draft-07 default; MCP documents 2020-12), and carry no `$schema` key.

const path = require('node:path')
const vocabulary = require('./vocabulary.cjs')

// The failure codes, from the library's ErrorCode (so a new code shows up in the schemas by itself).
function errorCodesOf(lib) {
  return Object.keys((lib && lib.ErrorCode) || {})
}

// ---- schema building blocks ------------------------------------------------------------------------

const str = (description) => ({ type: 'string', description })
const bool = (description) => ({ type: 'boolean', description })
const int = (description, minimum = 0) => ({ type: 'integer', minimum, description })

const FILE_PATH = str('Path relative to the workspace root.')
const BASE_HASH = str('The file_hash of your last view or edit of this file: if it changed since, nothing is written (STALE_FILE).')
const DRY_RUN = bool('true: return the result and diff, write nothing.')
const TOLERANCE = {
  type: 'string',
  enum: ['safe', 'exact'],
  description: '"exact": no tolerance of whitespace and typography noise.',
}
const TIER = {
  type: 'string',
  enum: ['exact', 'line_endings', 'trailing_whitespace', 'typography', 'indentation', 'inline_whitespace', 'line_prefix', 'blank_edges'],
}
const HASH = { type: 'string', description: 'Hash of the file content now on disk; pass it as base_hash to chain edits.' }
const HASH_OR_GONE = { type: ['string', 'null'], description: 'Hash of the file content now on disk (null: the operation deleted it); pass it as base_hash to chain edits.' }
// Liberties the engine took with the input's syntax (the content still matched exactly one place).
const DIALECT = {
  type: 'array',
  description: 'Liberties taken with the input\'s syntax (e.g. an @@ line that is no line of the file); empty for textbook input.',
  items: {
    type: 'string',
    enum: ['add_prefix_missing', 'anchor_ignored', 'anchor_repeated', 'blocks_in_turn', 'context_prefix_missing', 'edits_in_turn', 'header_variant', 'hunk_counts', 'hunks_reordered', 'marker_variant', 'no_begin_marker', 'no_end_marker', 'path_decorated', 'path_fallback', 'prose_around', 'sections_merged', 'unescaped', 'unified_header'],
  },
}
const EDIT_ID = { type: ['string', 'null'], description: 'Identifies this write for undo_edit (null for a dry run, or when the journal could not keep it).' }

// The syntax gate's report, in the success shape of every editing tool (the server's --validate mode
// decides whether it appears: "report" and "enforce" add it, "off" leaves it out). Its fields are named
// in the description rather than spelled out as a nested schema: it recurs in most tools, and tools/list
// is read by a model on every session.
const SYNTAX = {
  type: 'object',
  description:
    'Syntax check of the edited file: ok false = the edit introduced new_errors [{line, column, snippet, kind, expected}] (errors already there are not counted); skipped says why it was not checked.',
  properties: { language: { type: ['string', 'null'] }, ok: { type: 'boolean' }, new_errors: { type: 'array' } },
  required: ['language'],
}
// Appended to the description of every editing tool.
const SYNTAX_NOTE = ' syntax.ok false in the result: the edit introduced a syntax error; fix it with another edit.'

function object(properties, required, description) {
  const s = { type: 'object' }
  if (description) s.description = description
  s.properties = properties
  if (required && required.length) s.required = required
  s.additionalProperties = false
  return s
}

// The receipt fields shared by patch_file and edit_file.
const RECEIPT = {
  file_path: str('Workspace-relative path of the file.'),
  before_chars: int('Length before, in UTF-16 code units.'),
  after_chars: int('Length after, in UTF-16 code units.'),
  before_bytes: int('Size on disk before, BOM included.'),
  after_bytes: int('Size on disk after, BOM included.'),
  diff: str('Unified diff of the change.'),
  written: bool('false for a dry run.'),
  file_hash: HASH,
  edit_id: EDIT_ID,
  syntax: SYNTAX,
}

// The failure every tool can return: a stable code, a message that says what to do next, and details
// that depend on the code (candidates, match_lines, edit_index, current_hash, hint, ...). The codes are
// not enumerated here: the list would repeat in every tool of tools/list (ErrorCode in the library, and
// the README, list them).
const FAILURE = {
  type: 'object',
  properties: {
    ok: { const: false },
    code: { type: 'string', description: 'Stable error code, e.g. STALE_FILE.' },
    message: { type: 'string', description: 'What went wrong; nothing was written. Says what to do next.' },
  },
  required: ['ok', 'code', 'message'],
}

// A result is `{ok: true, ...success}` or `{ok: false, code, message, ...}`. Failures validate too:
// the SDK's Client checks structuredContent against outputSchema even when isError is set.
function outputSchema(success) {
  return {
    type: 'object',
    properties: { ok: { type: 'boolean' } },
    required: ['ok'],
    oneOf: [
      {
        type: 'object',
        properties: Object.assign({ ok: { const: true } }, success.properties),
        required: ['ok'].concat(success.required),
      },
      FAILURE,
    ],
  }
}

// ---- the tools -------------------------------------------------------------------------------------

// The keys of `o` whose value is given: arguments a tool takes without advertising them reach the
// library only when the model sent them.
const given = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

// Each entry:
//   name, lib (the library function it needs), title, description, input (JSON Schema),
//   success ({properties, required}: the ok:true shape), annotations,
//   op: the engine operation (the library function `lib` calls it),
//   args(args, root, validate): the library call's argument list, from args normalized to snake_case,
//   touches: 'file' (args.file_path) | 'patch' (paths inside args.patch) | 'move' (a file replaced by
//   move_file with overwrite) | 'undo' | null (read-only, or writes no existing file's content).
// Which files a call touches is never worked out here: read-before-edit asks the engine (touchedFiles).
const TOOLS = [
  {
    name: 'view_file',
    lib: 'viewFile',
    title: 'View file',
    description:
      'Read a text file. format "numbered" prefixes line numbers, "hashline" LINE:HASH anchors for edit_lines. start_line/end_line (1-based, inclusive) read a slice; ' +
      'at most 2000 lines and 256 KiB per view: truncated: true means call again from next_start_line. ' +
      'Pass the result\'s file_hash as base_hash to your next edit of the file.',
    input: object(
      {
        file_path: FILE_PATH,
        format: { type: 'string', enum: ['plain', 'numbered', 'hashline'], description: 'How lines are shown.' },
        start_line: int('First line to return (1-based).', 1),
        end_line: int('Last line to return (inclusive).', 1),
        max_bytes: int('Return at most this many bytes of content (default 262144).', 1),
      },
      ['file_path'],
    ),
    success: {
      properties: {
        file_path: str('Workspace-relative path of the file.'),
        content: str('The requested lines, formatted as asked.'),
        start_line: { type: 'integer' },
        end_line: { type: 'integer' },
        total_lines: { type: 'integer' },
        file_hash: HASH,
        encoding: str('Encoding of the file on disk (kept on write).'),
        line_ending: str('Line ending style of the file (kept on write).'),
        truncated: bool('true when a cap cut the answer short.'),
        next_start_line: int('When truncated: the start_line that continues the view.', 1),
      },
      required: ['file_path', 'content', 'start_line', 'end_line', 'total_lines', 'file_hash', 'encoding', 'line_ending', 'truncated'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'view_file',
    // Taken but not advertised (Claude Code Read's limit, read_text_file's head and tail).
    accepts: ['max_lines', 'tail'],
    args: (a, root) => [
      a.file_path,
      {
        workspace_root: root,
        format: a.format,
        start_line: a.start_line,
        end_line: a.end_line,
        max_bytes: a.max_bytes,
        ...given({ max_lines: a.max_lines, tail: a.tail }),
      },
    ],
    touches: null,
  },
  {
    name: 'patch_file',
    lib: 'patchFile',
    title: 'Patch file (search/replace)',
    description:
      'Replace the one occurrence of search_block in a file with replace_block ("" deletes it). Copy search_block verbatim from the file, with enough lines to be unique. ' +
      'A failure\'s candidates show the nearest text, match_lines every match; ALREADY_APPLIED: nothing to do. Success returns the diff and file_hash.' +
      SYNTAX_NOTE,
    input: object(
      {
        file_path: FILE_PATH,
        search_block: str('Exact text that occurs once in the file.'),
        replace_block: str('Text to put in its place, inserted literally.'),
        base_hash: BASE_HASH,
        dry_run: DRY_RUN,
        tolerance: TOLERANCE,
      },
      ['file_path', 'search_block', 'replace_block'],
    ),
    success: {
      properties: Object.assign(
        {
          replacements: int('Occurrences replaced (1 unless replace_all or expected_replacements).', 1),
          line_number: int('1-based first line of the match.', 1),
          tier: TIER,
          dialect: DIALECT,
        },
        RECEIPT,
      ),
      required: ['file_path', 'replacements', 'line_number', 'tier', 'before_chars', 'after_chars', 'before_bytes', 'after_bytes', 'diff', 'written', 'file_hash'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'patch_file',
    // Taken but not advertised (Claude Code Edit's replace_all, Gemini CLI replace's count).
    accepts: ['expected_replacements', 'replace_all'],
    args: (a, root, validate) => [
      {
        file_path: a.file_path,
        search_block: a.search_block,
        replace_block: a.replace_block,
        ...given({ expected_replacements: a.expected_replacements, replace_all: a.replace_all }),
      },
      { workspace_root: root, base_hash: a.base_hash, dry_run: a.dry_run, tolerance: a.tolerance, validate },
    ],
    touches: 'file',
  },
  {
    name: 'merge_snippet',
    lib: 'mergeSnippet',
    title: 'Merge snippet',
    description:
      'Send the changed parts of a file as they should read, unchanged code left out: each left-out stretch is one marker line, a comment in the file\'s syntax such as "// ... existing code ..." or "# ...". ' +
      'Each changed region needs an unchanged line copied exactly above and below it; regions go in file order; with no marker at the top (bottom) the snippet must start (end) with the file\'s first (last) line. ' +
      'Lines between two shown unchanged lines are deleted. Nothing is written unless each region has exactly one place; a SNIPPET_* refusal names the chunk and candidate regions, and SNIPPET_AMBIGUOUS the file line to copy next to the chunk to place it at each (distinguishing_lines).' +
      SYNTAX_NOTE,
    input: object(
      {
        file_path: FILE_PATH,
        snippet: str('The changed regions and marker lines.'),
        base_hash: BASE_HASH,
        dry_run: DRY_RUN,
      },
      ['file_path', 'snippet'],
    ),
    success: {
      properties: {
        file_path: str('Workspace-relative path.'),
        diff: str('Unified diff.'),
        written: bool('false for a dry run.'),
        file_hash: HASH,
        edit_id: EDIT_ID,
        chunks: { type: 'array', description: 'Where each chunk landed.' },
        removed_ranges: { type: 'array', description: 'Old lines removed.' },
      },
      required: ['file_path', 'diff', 'written', 'file_hash'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'merge_snippet',
    args: (a, root, validate) => [
      { file_path: a.file_path, snippet: a.snippet },
      { workspace_root: root, base_hash: a.base_hash, dry_run: a.dry_run, validate },
    ],
    touches: 'file',
  },
  {
    name: 'edit_file',
    lib: 'applyEdits',
    title: 'Edit file (batch of replacements)',
    description:
      'Replace text in one file: each edit replaces the one place its old occurs (or expected_replacements places) with new; all edits in one atomic write, or none. ' +
      'Copy old verbatim from the file, with enough lines to be unique; edits must not overlap. ' +
      'A failure\'s edit_index names the edit, candidates the nearest text. Success returns the diff and file_hash.' +
      SYNTAX_NOTE,
    input: object(
      {
        file_path: FILE_PATH,
        edits: {
          type: 'array',
          minItems: 1,
          description: 'Replacements, matched against the file as it was before this call.',
          items: object(
            {
              old: str('Exact text to replace.'),
              new: str('Replacement text.'),
              expected_replacements: int('Replace exactly this many occurrences (default 1).', 1),
              replace_all: bool('Replace every occurrence.'),
            },
            ['old', 'new'],
          ),
        },
        base_hash: BASE_HASH,
        dry_run: DRY_RUN,
        tolerance: TOLERANCE,
      },
      ['file_path', 'edits'],
    ),
    success: {
      properties: Object.assign(
        {
          edits_applied: int('How many edits were applied.', 1),
          first_changed_line: int('1-based first changed line.', 1),
          tier: TIER,
          matches: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                edit_index: { type: 'integer' },
                start_line: { type: 'integer' },
                end_line: { type: 'integer' },
                tier: TIER,
              },
              required: ['edit_index', 'start_line', 'end_line', 'tier'],
            },
          },
        },
        RECEIPT,
      ),
      required: ['file_path', 'edits_applied', 'first_changed_line', 'tier', 'matches', 'before_chars', 'after_chars', 'before_bytes', 'after_bytes', 'diff', 'written', 'file_hash'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'apply_edits',
    args: (a, root, validate) => [
      a.file_path,
      a.edits,
      {
        workspace_root: root,
        base_hash: a.base_hash,
        dry_run: a.dry_run,
        tolerance: a.tolerance,
        validate,
      },
    ],
    touches: 'file',
  },
  {
    name: 'apply_patch',
    lib: 'applyPatch',
    title: 'Apply multi-file patch',
    description:
      'Apply a patch to one or more files, all or nothing: "*** Begin Patch", then per file "*** Update File: path" ' +
      '(optional "*** Move to: new_path"; hunks from "@@" of " context", "-old" and "+new" lines), "*** Add File: path" (lines "+text") ' +
      'or "*** Delete File: path", then "*** End Patch". overwrite: true lets Add File replace a file. ' +
      'On failure nothing is written and the message names the file and hunk to fix; resend the whole patch.' +
      SYNTAX_NOTE.replace('in the result', 'in a file entry'),
    input: object(
      {
        patch: str('The patch text.'),
        dry_run: DRY_RUN,
        overwrite: bool('Allow "*** Add File" to replace a file that exists.'),
      },
      ['patch'],
    ),
    success: {
      properties: {
        files: {
          type: 'array',
          description: 'One entry per file touched (path, what happened, diff, file_hash).',
          items: { type: 'object', properties: { file_path: { type: 'string' }, file_hash: HASH_OR_GONE, diff: { type: 'string' }, syntax: SYNTAX } },
        },
        written: bool('false for a dry run.'),
        edit_id: EDIT_ID,
        undo_available: bool('Whether undo_edit can restore every file this patch touched.'),
        dialect: DIALECT,
      },
      required: ['files', 'written'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'apply_patch',
    // base_hashes is never a model argument (the schema has none): read-before-edit sets it to the
    // hashes this session saw, keyed by each path as the engine's parser read it.
    args: (a, root, validate) => [
      a.patch,
      Object.assign(
        { workspace_root: root, dry_run: a.dry_run, overwrite: a.overwrite, validate },
        a.base_hashes === undefined ? {} : { base_hashes: a.base_hashes },
      ),
    ],
    touches: 'patch',
  },
  {
    name: 'edit_lines',
    lib: 'editLines',
    title: 'Edit lines by anchor',
    description:
      'Edit lines by the anchors of view_file format "hashline" ("12:ab3f": line 12, hash ab3f), all ops in one atomic write against the file as viewed: ' +
      '"replace" start..end (end defaults to start) with lines, "insert_before" / "insert_after" start, "delete" start..end. New text as lines (one string per line) or text. ' +
      'STALE_ANCHOR (nothing written): view the file again.' +
      SYNTAX_NOTE,
    input: object(
      {
        file_path: FILE_PATH,
        ops: {
          type: 'array',
          minItems: 1,
          items: object(
            {
              op: { type: 'string', enum: ['replace', 'insert_before', 'insert_after', 'delete'] },
              start: str('Anchor of the first line.'),
              end: str('Anchor of the last line.'),
              lines: { type: 'array', items: { type: 'string' } },
              text: { type: 'string' },
            },
            ['op', 'start'],
          ),
        },
        base_hash: BASE_HASH,
        dry_run: DRY_RUN,
      },
      ['file_path', 'ops'],
    ),
    success: {
      properties: {
        file_path: str('Workspace-relative path of the file.'),
        diff: str('Unified diff of the change.'),
        written: bool('false for a dry run.'),
        file_hash: HASH,
        edit_id: EDIT_ID,
        syntax: SYNTAX,
      },
      required: ['file_path'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'edit_lines',
    args: (a, root, validate) => [a.file_path, a.ops, { workspace_root: root, base_hash: a.base_hash, dry_run: a.dry_run, validate }],
    touches: 'file',
  },
  {
    name: 'list_symbols',
    lib: 'listSymbols',
    title: 'List symbols',
    description:
      'Outline a source file (JS/TS, Python, Rust, Go, JSON, C/C++, Java): per symbol its name_path (for edit_symbol), kind and lines.',
    input: object({ file_path: FILE_PATH }, ['file_path']),
    success: {
      properties: { file_path: { type: 'string' }, outline: { type: 'string' }, file_hash: { type: 'string' } },
      required: ['file_path', 'outline'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'list_symbols',
    args: (a, root) => [a.file_path, { workspace_root: root }],
    touches: null,
  },
  {
    name: 'edit_symbol',
    lib: 'editSymbol',
    title: 'Edit symbol',
    description:
      'Replace, delete, or insert code before/after a symbol named by its name_path from list_symbols ("Class/method"). ' +
      'replace takes the whole symbol, comment and decorators included (what text omits is removed: see dropped). ' +
      'On SYMBOL_AMBIGUOUS / SYMBOL_NOT_FOUND resend a candidate name_path.',
    input: object(
      {
        file_path: FILE_PATH,
        name_path: { type: 'string' },
        action: { type: 'string', enum: ['replace', 'insert_before', 'insert_after', 'delete'] },
        text: str('Not for delete.'),
        base_hash: str('file_hash last seen (STALE_FILE if changed).'),
      },
      ['file_path', 'name_path', 'action'],
    ),
    success: {
      properties: { file_path: { type: 'string' }, dropped: { type: 'array' }, diff: { type: 'string' }, file_hash: { type: 'string' }, edit_id: { type: ['string', 'null'] } },
      required: ['file_path'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'edit_symbol',
    args: (a, root, validate) => [
      { file_path: a.file_path, name_path: a.name_path, action: a.action, text: a.text },
      { workspace_root: root, base_hash: a.base_hash, validate },
    ],
    touches: 'file',
  },
  {
    name: 'write_file',
    lib: 'createFile',
    title: 'Write whole file',
    description:
      'Create a file, or replace its whole content, with content: the complete text, never "... rest unchanged ..." placeholders (refused unless allow_placeholders). ' +
      'To change part of a file, prefer edit_file. Encoding and line endings are kept. max_changed_lines refuses a rewrite that changes more lines (nothing written).' +
      SYNTAX_NOTE,
    input: object(
      {
        file_path: FILE_PATH,
        content: str('The complete new content of the file.'),
        base_hash: BASE_HASH,
        allow_placeholders: bool('Write content that looks elided anyway.'),
        max_changed_lines: int('Refuse a rewrite changing more lines.'),
      },
      ['file_path', 'content'],
    ),
    success: {
      properties: {
        file_path: str('Workspace-relative path of the file.'),
        written: bool('Whether the file was written.'),
        file_hash: HASH,
        edit_id: EDIT_ID,
        lines_added: int('Lines in the new content that the old one did not have.'),
        lines_removed: int('Lines of the old content that are gone.'),
        changed_lines: int('Changed lines: per block of adjacent changes the larger of removed and added (what max_changed_lines limits).'),
        changed_ranges: {
          type: 'array',
          description: 'Changed line ranges of the new content (at most 20); end_line = start_line - 1 marks lines removed just before start_line.',
          items: {
            type: 'object',
            properties: { start_line: int('First line (1-based).', 1), end_line: int('Last line (inclusive).') },
            required: ['start_line', 'end_line'],
          },
        },
        changed_ranges_truncated: bool('true when more ranges changed than are listed.'),
        syntax: SYNTAX,
      },
      required: ['file_path'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // Create or replace: createFile with overwrite is a whole rewrite of an existing file (encoding and line
    // endings kept, placeholders checked, base_hash and max_changed_lines honoured) and a creation otherwise.
    op: 'create_file',
    args: (a, root, validate) => [
      a.file_path,
      a.content,
      {
        workspace_root: root,
        // Read-before-edit found no file here: create only, so one that appears meanwhile is refused.
        overwrite: a.create_only !== true,
        base_hash: a.base_hash,
        allow_placeholders: a.allow_placeholders,
        max_changed_lines: a.max_changed_lines,
        validate,
      },
    ],
    touches: 'file',
  },
  {
    name: 'delete_file',
    lib: 'deleteFile',
    title: 'Delete file',
    description:
      'Delete one file in the workspace (not a directory). Pass base_hash so a file that changed since you read it is refused with STALE_FILE. ' +
      'The deletion can be reverted with undo_edit and the returned edit_id.',
    input: object({ file_path: FILE_PATH, base_hash: BASE_HASH }, ['file_path']),
    success: {
      properties: {
        file_path: str('Workspace-relative path of the deleted file.'),
        edit_id: EDIT_ID,
      },
      required: ['file_path'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    op: 'delete_file',
    args: (a, root) => [a.file_path, { workspace_root: root, base_hash: a.base_hash }],
    touches: 'file',
  },
  {
    name: 'undo_edit',
    lib: 'undoEdit',
    title: 'Undo edit',
    description:
      'Revert a write of these tools: edit_id (from its result) or file_path (its latest edit), not both. ' +
      'STALE_FILE: the file changed after that edit, so undoing would lose work.',
    input: object(
      {
        edit_id: str('The edit to revert.'),
        file_path: str('Revert the latest edit of this file.'),
      },
      [],
    ),
    success: {
      properties: {
        edit_id: str('The edit that was undone.'),
        files: {
          type: 'array',
          description: 'Each file the undo touched.',
          items: {
            type: 'object',
            properties: {
              file_path: str('Workspace-relative path.'),
              action: { type: 'string', enum: ['restored', 'recreated', 'deleted'], description: 'What the undo did to the file.' },
              file_hash: { type: ['string', 'null'], description: 'Hash of the file now (null when deleted).' },
            },
            required: ['file_path', 'action'],
          },
        },
      },
      required: ['edit_id', 'files'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'undo_edit',
    args: (a, root) => [a.edit_id !== undefined ? a.edit_id : a.file_path, { workspace_root: root }],
    check: (a) =>
      (a.edit_id === undefined) === (a.file_path === undefined)
        ? 'undo_edit needs exactly one of edit_id or file_path.'
        : null,
    touches: 'undo',
  },
  {
    name: 'list_directory',
    lib: 'listDirectory',
    title: 'List directory',
    description:
      'List a directory: each entry\'s path, type and size, depth levels deep (default 1). .gitignore\'d files are left out unless include_ignored. ' +
      'At most max_entries (default 1000); truncated: true says more remain.',
    input: object(
      {
        path: str('Directory (default: the root).'),
        depth: int('Levels, 1 to 20.', 1),
        include_ignored: { type: 'boolean' },
        max_entries: { type: 'integer', minimum: 1 },
      },
      [],
    ),
    success: {
      properties: {
        path: str('The directory listed.'),
        entries: {
          type: 'array',
          items: object({ path: { type: 'string' }, type: { type: 'string' }, size: { type: 'integer' } }, ['path', 'type']),
        },
        truncated: bool('true when max_entries cut the listing.'),
      },
      required: ['path', 'entries', 'truncated'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'list_directory',
    args: (a, root) => [a.path, { workspace_root: root, depth: a.depth, include_ignored: a.include_ignored, max_entries: a.max_entries }],
    touches: null,
  },
  {
    name: 'find_files',
    lib: 'findFiles',
    title: 'Find files',
    description:
      'Find files by glob. A pattern without "/" matches file names at any depth ("*.ts"); one with "/" matches the path relative to path ("src/**/*.test.js"; * stays within a directory, ** crosses them). ' +
      'Files .gitignore excludes and hidden files are skipped unless include_ignored / include_hidden. Returns workspace-relative paths sorted, at most max_results (default 1000; truncated: true says more matched).',
    input: object(
      {
        pattern: str('Glob, e.g. "*.rs" or "src/**/*.ts".'),
        path: str('Directory to search (default: the workspace root).'),
        max_results: int('At most this many paths (default 1000).', 1),
        include_ignored: bool('Also files .gitignore excludes.'),
        include_hidden: bool('Also hidden files and directories (names starting with ".").'),
      },
      ['pattern'],
    ),
    success: {
      properties: {
        files: { type: 'array', items: { type: 'string' }, description: 'Matching paths, workspace-relative.' },
        truncated: bool('true when max_results cut the list.'),
      },
      required: ['files', 'truncated'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'find_files',
    args: (a, root) => [
      a.pattern,
      { workspace_root: root, path: a.path, max_results: a.max_results, include_ignored: a.include_ignored, include_hidden: a.include_hidden },
    ],
    touches: null,
  },
  {
    name: 'search_files',
    lib: 'searchFiles',
    title: 'Search files',
    description:
      'Search file contents for query (literal; a Rust regex with regex: true, within one line): matching lines by file, with line numbers and context_lines. ' +
      'Skips binary, hidden and .gitignore\'d files unless include_hidden / include_ignored. At most max_results lines (default 200; truncated: true: narrow with path or glob).',
    input: object(
      {
        query: { type: 'string' },
        regex: { type: 'boolean' },
        path: str('Directory (default: the root).'),
        glob: str('Only files matching it: "*.py" by name, "src/**/*.ts" by path.'),
        case_sensitive: bool('Default true.'),
        context_lines: int('0 to 20.'),
        max_results: { type: 'integer', minimum: 1 },
        include_ignored: { type: 'boolean' },
        include_hidden: { type: 'boolean' },
      },
      ['query'],
    ),
    success: {
      properties: {
        results: {
          type: 'array',
          items: object(
            {
              file_path: { type: 'string' },
              matches: {
                type: 'array',
                items: object(
                  {
                    line_number: { type: 'integer' },
                    text: { type: 'string' },
                    before: { type: 'array', items: { type: 'string' } },
                    after: { type: 'array', items: { type: 'string' } },
                  },
                  ['line_number', 'text'],
                ),
              },
            },
            ['file_path', 'matches'],
          ),
        },
        match_count: { type: 'integer' },
        truncated: bool('true when max_results stopped the search.'),
      },
      required: ['results', 'match_count', 'truncated'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'search_files',
    args: (a, root) => [
      a.query,
      {
        workspace_root: root,
        regex: a.regex,
        path: a.path,
        glob: a.glob,
        case_sensitive: a.case_sensitive,
        context_lines: a.context_lines,
        max_results: a.max_results,
        include_ignored: a.include_ignored,
        include_hidden: a.include_hidden,
      },
    ],
    touches: null,
  },
  {
    name: 'read_many_files',
    lib: 'readManyFiles',
    title: 'Read many files',
    description:
      'Read several files, or line ranges of them, in one call: each item is read as view_file reads it (content, file_hash, truncated and next_start_line) ' +
      'or carries its own ok: false, code and message; one failure does not fail the others. At most 100 items and 1 MiB of content per call.',
    input: object(
      {
        files: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          description: 'Paths, or {file_path, start_line, end_line} for a range.',
          items: {
            anyOf: [
              { type: 'string' },
              object({ file_path: FILE_PATH, start_line: int('First line (1-based).', 1), end_line: int('Last line (inclusive).', 1) }, ['file_path']),
            ],
          },
        },
        format: { type: 'string', enum: ['plain', 'numbered', 'hashline'], description: 'How lines are shown.' },
      },
      ['files'],
    ),
    success: {
      properties: {
        files: { type: 'array', items: { type: 'object' }, description: 'One view_file result per item, in order.' },
        failed: int('How many items failed.'),
      },
      required: ['files', 'failed'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'read_many_files',
    args: (a, root) => [a.files, { workspace_root: root, format: a.format }],
    touches: null,
  },
  {
    name: 'move_file',
    lib: 'moveFile',
    title: 'Move file',
    description:
      'Rename or move one file inside the workspace (bytes unchanged; missing directories of to_path are created). ' +
      'FILE_EXISTS when to_path exists, unless overwrite: true. Revert with undo_edit and the returned edit_id.',
    input: object(
      {
        from_path: str('The file to move, relative to the workspace root.'),
        to_path: str('Its new path.'),
        overwrite: bool('Replace a file already at to_path.'),
        base_hash: BASE_HASH,
      },
      ['from_path', 'to_path'],
    ),
    success: {
      properties: {
        file_path: str('The old path.'),
        moved_to: str('The new path.'),
        file_hash: HASH,
        replaced: bool('true when a file at to_path was replaced.'),
        edit_id: EDIT_ID,
      },
      required: ['file_path', 'moved_to', 'file_hash'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'move_file',
    args: (a, root) => [a.from_path, a.to_path, { workspace_root: root, overwrite: a.overwrite, base_hash: a.base_hash }],
    touches: 'move',
  },
  {
    name: 'create_directory',
    lib: 'createDirectory',
    title: 'Create directory',
    description: 'Create a directory (and its missing parents) in the workspace. An existing directory is not an error (created: false).',
    input: object({ path: str('Directory to create, relative to the workspace root.') }, ['path']),
    success: {
      properties: { path: str('Workspace-relative path.'), created: bool('false when it already existed.') },
      required: ['path', 'created'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'create_directory',
    args: (a, root) => [a.path, { workspace_root: root }],
    touches: null,
  },
  {
    name: 'create_checkpoint',
    lib: 'createCheckpoint',
    title: 'Create checkpoint',
    description:
      'Mark the workspace as it is now, before a risky series of edits: restore_checkpoint with the returned checkpoint_id later puts back every file these tools wrote since, in one step.',
    input: object({ label: str('A name for it (shown by list_checkpoints).') }, []),
    success: {
      properties: { checkpoint_id: str('Pass it to restore_checkpoint.'), label: { type: 'string' } },
      required: ['checkpoint_id'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    op: 'create_checkpoint',
    args: (a, root) => [{ workspace_root: root, label: a.label }],
    touches: null,
  },
  {
    name: 'restore_checkpoint',
    lib: 'restoreCheckpoint',
    title: 'Restore checkpoint',
    description:
      'Put back every file these tools wrote since create_checkpoint, all or nothing: contents restored, files created since deleted, deleted or moved ones back. ' +
      'A file changed since by anything else is refused with STALE_FILE naming it (nothing restored); force: true overwrites that change.',
    input: object(
      {
        checkpoint_id: str('From create_checkpoint.'),
        force: bool('Restore files changed since by something else too.'),
        dry_run: DRY_RUN,
      },
      ['checkpoint_id'],
    ),
    success: {
      properties: {
        checkpoint_id: { type: 'string' },
        files: {
          type: 'array',
          items: { type: 'object', properties: { file_path: { type: 'string' }, action: { type: 'string' }, file_hash: { type: ['string', 'null'] } } },
        },
        edits_reverted: { type: 'array', items: { type: 'string' } },
        written: bool('false for a dry run.'),
      },
      required: ['checkpoint_id', 'files', 'edits_reverted', 'written'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    op: 'restore_checkpoint',
    args: (a, root) => [a.checkpoint_id, { workspace_root: root, force: a.force, dry_run: a.dry_run }],
    touches: null,
  },
  {
    name: 'list_checkpoints',
    lib: 'listCheckpoints',
    title: 'List checkpoints',
    description: 'The checkpoints of this workspace, oldest first: checkpoint_id, label, and how many edits were made since each (what restore_checkpoint would revert).',
    input: object({}, []),
    success: {
      properties: {
        checkpoints: {
          type: 'array',
          items: { type: 'object', properties: { checkpoint_id: { type: 'string' }, label: { type: 'string' }, edits_since: { type: 'integer' } } },
        },
      },
      required: ['checkpoints'],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    op: 'list_checkpoints',
    args: (a, root) => [{ workspace_root: root }],
    touches: null,
  },
]

// ---- generated views -------------------------------------------------------------------------------

// Fresh copies, so a caller mutating a definition cannot change another's.
const clone = (x) => JSON.parse(JSON.stringify(x))

function inputSchemaOf(tool) {
  return clone(tool.input)
}

// `lib` is unused since the failure codes left the schemas; kept so callers need not change.
function outputSchemaOf(tool, _lib) {
  return clone(outputSchema(tool.success))
}

/** Every declared tool, whether or not its library function exists in this build. */
const ALL_TOOLS = TOOLS.map((t) => t.name)

/** The tools whose library function exists in `lib`. */
function availableTools(lib) {
  return TOOLS.filter((t) => typeof lib[t.lib] === 'function')
}

/**
 * The MCP `Tool` objects for tools/list. `options.tools`: the names to list (default: every available
 * tool; see tools/profiles.cjs); `options.outputSchemas`: false leaves out each tool's outputSchema
 * (the server's default: they double the listing, and structuredContent is the same either way).
 */
function mcpTools(lib, options) {
  const o = options || {}
  const only = o.tools ? new Set(o.tools) : null
  return availableTools(lib)
    .filter((t) => !only || only.has(t.name))
    .map((t) => {
      const tool = { name: t.name, title: t.title, description: t.description, inputSchema: inputSchemaOf(t) }
      if (o.outputSchemas !== false) tool.outputSchema = outputSchemaOf(t, lib)
      tool.annotations = Object.assign({ title: t.title }, t.annotations)
      return tool
    })
}

/** Ready-made definitions for harnesses that do not speak MCP. */
// Keywords OpenAI's strict mode (Structured Outputs) refuses, or may refuse, in a function's schema.
const STRICT_DROPPED = [
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'multipleOf', 'minItems', 'maxItems', 'uniqueItems', 'default', 'examples', 'minProperties', 'maxProperties',
  'patternProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contains', '$schema',
]

// A schema as strict mode wants it: every object lists all its properties in `required` with
// `additionalProperties: false`, an optional property becomes nullable instead (the runner reads null
// as absent), `const` becomes a one-value `enum`, `oneOf` becomes `anyOf`, and the keywords strict mode
// refuses are dropped.
function strictSchema(schema, optional = false) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const out = {}
  for (const [k, v] of Object.entries(schema)) {
    if (STRICT_DROPPED.includes(k)) continue
    if (k === 'properties') {
      const req = new Set(schema.required || [])
      out.properties = {}
      for (const [name, sub] of Object.entries(v)) out.properties[name] = strictSchema(sub, !req.has(name))
    } else if (k === 'items') out.items = strictSchema(v)
    else if (k === 'anyOf' || k === 'oneOf') out.anyOf = v.map((x) => strictSchema(x))
    else if (k === 'const') out.enum = [v]
    else if (k !== 'required' && k !== 'additionalProperties') out[k] = v
  }
  if (out.type === 'object' || out.properties) {
    out.properties = out.properties || {}
    out.required = Object.keys(out.properties)
    out.additionalProperties = false
  }
  if (optional) {
    if (Array.isArray(out.type)) {
      if (!out.type.includes('null')) out.type = [...out.type, 'null']
    } else if (typeof out.type === 'string') {
      if (out.type !== 'null') out.type = [out.type, 'null']
    } else if (out.anyOf) {
      if (!out.anyOf.some((x) => x.type === 'null')) out.anyOf = [...out.anyOf, { type: 'null' }]
    } else {
      return { anyOf: [out, { type: 'null' }] }
    }
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  }
  return out
}

function toolDefinitions(lib) {
  const tools = availableTools(lib)
  const vercel = {}
  // AI SDK 5 and later: `tool({description, inputSchema: jsonSchema(d.inputSchema)})`.
  for (const t of tools) vercel[t.name] = { description: t.description, inputSchema: inputSchemaOf(t) }
  return {
    openai: tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: inputSchemaOf(t) } })),
    // Chat Completions tools with strict: true (Structured Outputs).
    openaiStrict: tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: strictSchema(inputSchemaOf(t)), strict: true },
    })),
    // The Responses API's flat function tool shape, strict.
    openaiResponses: tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: strictSchema(inputSchemaOf(t)), strict: true })),
    anthropic: tools.map((t) => ({ name: t.name, description: t.description, input_schema: inputSchemaOf(t) })),
    vercel,
  }
}

/**
 * The engine's op table, generated from the Rust op table with every op's output schema
 * (schemas/ops.json, `npm run schemas`).
 */
function opTable() {
  return require('../schemas/ops.json').ops
}

/**
 * `{file: text}` for schemas/ written from this module: `<tool>.input.json` for every declared tool,
 * and `<tool>.output.json` for a tool whose name is no engine op (edit_file). Where a tool is named
 * after its op, `<name>.output.json` is the op's schema generated from the Rust receipt type (the
 * tool's result is exactly that receipt); tools/list carries the compact `success` shape below,
 * which __test__/contract.test.mjs proves agrees with it.
 */
function schemaFiles(lib) {
  const ops = new Set(opTable().map((o) => o.op))
  const out = {}
  for (const t of TOOLS) {
    out[`${t.name}.input.json`] = JSON.stringify(inputSchemaOf(t), null, 2) + '\n'
    if (!ops.has(t.name)) out[`${t.name}.output.json`] = JSON.stringify(outputSchemaOf(t, lib), null, 2) + '\n'
  }
  return out
}

// ---- calling a tool --------------------------------------------------------------------------------

const NO_CLIENT_ROOTS = 'the client declares no roots, so no file can be reached. Add a root (a workspace folder) in the client, or start the server with --root.'

function failure(code, message, extra) {
  return Object.assign({ ok: false, code, message }, extra)
}

const camel = (s) => s.replace(/_([a-z])/g, (_m, c) => c.toUpperCase())
const ROOT_KEYS = new Set(['workspace_root', 'workspaceRoot', 'root'])

// The op's other spellings of its arguments (`aliases` in schemas/ops.json, from the x-aliases of
// src/contract/inputs.rs): `{native: [aliases]}`.
function opAliases(op) {
  const entry = opTable().find((o) => o.op === op)
  return (entry && entry.aliases) || {}
}

/**
 * Every argument name tool `tool` (an entry of TOOLS, or its name) takes, as `{spelling: native}`: its
 * schema's properties and the ones it takes without advertising them (`accepts`), each in snake_case
 * and camelCase, and the other spellings the engine declares for them (Claude Code's old_string,
 * the filesystem server's path, Codex's input, ...).
 */
function argumentNames(tool) {
  if (typeof tool === 'string') tool = TOOLS.find((t) => t.name === tool)
  const names = [...Object.keys(tool.input.properties), ...(tool.accepts || [])]
  const aliases = opAliases(tool.op)
  const out = {}
  for (const n of names) {
    out[n] = n
    out[camel(n)] = n
    for (const a of aliases[n] || []) {
      if (!(a in out)) out[a] = n
      if (!(camel(a) in out)) out[camel(a)] = n
    }
  }
  return out
}

// Model arguments → snake_case keys of the tool's schema. Unknown keys are refused (listing the known
// ones), the workspace root in particular; null means absent; both spellings must agree.
function normalize(tool, args) {
  if (args === undefined || args === null) args = {}
  // OpenAI hands a tool call's arguments over as a JSON string.
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args)
    } catch (e) {
      return { error: failure('INVALID_INPUT', `${tool.name}: the arguments are not valid JSON (${e.message}); send a JSON object.`) }
    }
    if (args === null) args = {}
  }
  if (typeof args !== 'object' || Array.isArray(args)) {
    return { error: failure('INVALID_INPUT', `${tool.name}: arguments must be a JSON object.`) }
  }
  const names = Object.keys(tool.input.properties)
  const alias = new Map(Object.entries(argumentNames(tool)))
  const out = {}
  const from = {}
  for (const key of Object.keys(args)) {
    if (ROOT_KEYS.has(key)) {
      return {
        error: failure(
          'INVALID_INPUT',
          `${tool.name}: ${key} cannot be set by a tool call; the workspace root is fixed by the server. Give file paths relative to it (nothing was written).`,
        ),
      }
    }
    const name = alias.get(key)
    if (!name) {
      return {
        error: failure('INVALID_INPUT', `${tool.name}: unknown argument ${JSON.stringify(key)}; known arguments are ${JSON.stringify(names)} (nothing was written).`),
      }
    }
    const value = args[key]
    if (value === null || value === undefined) continue
    if (name in out && JSON.stringify(out[name]) !== JSON.stringify(value)) {
      return {
        error: failure('INVALID_INPUT', `${tool.name}: both ${from[name]} and ${key} are given with different values; send one spelling (nothing was written).`),
      }
    }
    out[name] = value
    from[name] = key
  }
  return { args: out }
}

// --require-read bookkeeping: the file_hash last seen by this runner for each file, keyed by the
// engine's name for it (`display`: the workspace-relative path of the real file, symlinks resolved),
// the same string every result reports as file_path. No path is resolved or parsed here.
class ReadLedger {
  constructor() {
    this.hashes = new Map()
  }

  get(display) {
    return this.hashes.get(display)
  }

  set(display, hash) {
    if (typeof display === 'string' && typeof hash === 'string') this.hashes.set(display, hash)
  }

  forget(display) {
    if (typeof display === 'string') this.hashes.delete(display)
  }
}

function unread(filePath) {
  return failure(
    'STALE_FILE',
    `${filePath} has not been viewed in this session; nothing was written. Call view_file on it first, then retry the edit.`,
    { file_path: filePath, hint: 'read-before-edit is on: call view_file, then edit.' },
  )
}

function mismatch(filePath, given, seen) {
  return failure(
    'STALE_FILE',
    `base_hash ${given} for ${filePath} is not the hash this session last saw (${seen}); nothing was written. View the file again and rebuild the edit.`,
    { file_path: filePath, base_hash: given, current_hash: seen, hint: 'call view_file, then retry with the new file_hash.' },
  )
}

function changed(filePath, seen, now) {
  return failure(
    'STALE_FILE',
    `${filePath} changed since it was viewed (seen ${seen}, now ${now}); nothing was written. View the file again and rebuild the patch.`,
    { file_path: filePath, base_hash: seen, current_hash: now, hint: 'call view_file, then resend the patch.' },
  )
}

const sameHash = (a, b) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase()

/** The syntax gate modes, and the one tools use unless the host says otherwise. */
const VALIDATE_MODES = ['off', 'report', 'enforce']
const DEFAULT_VALIDATE = 'report'

/** How many of its own edit ids an isolated runner remembers (the journal keeps 200 edits per process). */
const OWN_EDITS = 256

/**
 * A tool runner bound to one workspace root: `call(name, args)` resolves to the engine's result object.
 * With `requireRead`, edits to existing files the runner has not seen through view_file (or through a
 * previous edit's result) are refused with STALE_FILE, and edits are pinned to the hash it saw; so is
 * undo_edit, for the files the edit it would revert touched. With `isolateUndo`, undo_edit reaches
 * only the edits this runner's own calls made (the engine's `only_edit_ids`): another runner's edit
 * is EDIT_NOT_FOUND, by id or by path (the MCP server's HTTP sessions). `validate` ("off" | "report"
 * | "enforce", default "report") is the syntax gate mode passed to every editing tool; the model
 * cannot set it.
 */
function createToolRunner(lib, options) {
  const opts = options || {}
  const root = path.resolve(opts.workspaceRoot || opts.workspace_root || process.cwd())
  // The roots served (the MCP client's roots, see setRoots): a path must fall inside one of them;
  // relative paths resolve against the first. Empty: every call is refused.
  let roots = [root]
  // Why no root is served (the refusal's message) when `roots` is empty.
  let unserved = NO_CLIENT_ROOTS
  const requireRead = Boolean(opts.requireRead || opts.require_read)
  const validate = opts.validate === undefined ? DEFAULT_VALIDATE : opts.validate
  if (!VALIDATE_MODES.includes(validate)) {
    throw new TypeError(`validate must be one of ${VALIDATE_MODES.join(', ')}; got ${JSON.stringify(validate)}`)
  }
  const tools = new Map(availableTools(lib).map((t) => [t.name, t]))
  const ledger = new ReadLedger()
  const isolateUndo = Boolean(opts.isolateUndo || opts.isolate_undo)
  // The edit ids this runner's calls produced, oldest first (isolateUndo).
  const own = new Set()

  // The engine's arguments of a call; an isolated undo_edit reaches only this runner's edits.
  function engineArgs(tool, a, root) {
    const list = tool.args(a, root, validate)
    if (isolateUndo && (tool.name === 'undo_edit' || tool.name === 'restore_checkpoint')) list[1] = Object.assign({}, list[1], { only_edit_ids: [...own] })
    return list
  }

  function remember(tool, r) {
    if (isolateUndo && r && r.ok === true && tool.name === 'restore_checkpoint' && r.written !== false && Array.isArray(r.edits_reverted)) {
      for (const id of r.edits_reverted) own.delete(id)
      return
    }
    if (!isolateUndo || !r || r.ok !== true || typeof r.edit_id !== 'string') return
    if (tool.name === 'undo_edit') return own.delete(r.edit_id)
    own.add(r.edit_id)
    if (own.size > OWN_EDITS) own.delete(own.values().next().value)
  }

  // Before an edit, in read-before-edit mode: null to go ahead (args may gain base_hash or
  // base_hashes), or a failure. The files come from the engine (touchedFiles): the same parsers and
  // sandbox resolution as the write, so no spelling of a path names another file here than there.
  async function guard(tool, a, root) {
    if (!['file', 'patch', 'move', 'undo'].includes(tool.touches)) return null
    if (typeof lib.touchedFiles !== 'function') {
      return failure('INTERNAL_ERROR', `${tool.name}: read-before-edit needs the library's touchedFiles, which this build lacks; nothing was written.`)
    }
    const t = await lib.touchedFiles(tool.op, engineArgs(tool, a, root))
    if (!t || t.ok !== true || !Array.isArray(t.targets)) {
      return t && t.ok === false ? t : failure('INTERNAL_ERROR', `${tool.name}: touchedFiles returned no target list; nothing was written. Please report this.`)
    }
    for (const x of t.targets) {
      if (x && x.role === 'file' && !x.exists && tool.name === 'write_file') a.create_only = true
      if (!x || !x.exists) continue // a new file needs no view; a missing one is the engine's to report
      // A move keeps its file's content: only a file it replaces (overwrite) must have been seen.
      if (tool.touches === 'move' && (x.role !== 'move_target' || !a.overwrite)) continue
      const seen = ledger.get(key(root, x.display))
      if (seen === undefined) return unread(x.display)
      // An undo overwrites (or deletes) each existing file its edit touched: the session must have
      // seen each as it is now (the engine then checks it is as the edit left it).
      if (tool.touches === 'move' || tool.touches === 'undo') {
        if (!sameHash(x.file_hash, seen)) return changed(x.display, seen, typeof x.file_hash === 'string' ? x.file_hash : 'unknown')
        continue
      }
      if (x.role === 'file') {
        // Single-file tools: the engine checks base_hash under the file lock.
        if (a.base_hash === undefined) a.base_hash = seen
        else if (!sameHash(a.base_hash, seen)) return mismatch(x.display, a.base_hash, seen)
        continue
      }
      // Patches: compare now, and pin each changed file to the hash seen (checked again by the
      // engine under the lock; a move target is checked here only).
      if (!sameHash(x.file_hash, seen)) return changed(x.display, seen, typeof x.file_hash === 'string' ? x.file_hash : 'unknown')
      if (x.role === 'source') {
        if (!a.base_hashes) a.base_hashes = {}
        a.base_hashes[x.path] = seen
      }
    }
    return null
  }

  // After a call: remember what this session now knows about each file (by the names results give).
  function record(tool, a, r, root) {
    if (!r || r.ok !== true) return
    const k = (display) => (typeof display === 'string' ? key(root, display) : display)
    if (tool.name === 'view_file') return ledger.set(k(r.file_path), r.file_hash)
    if (tool.name === 'read_many_files') {
      for (const f of Array.isArray(r.files) ? r.files : []) if (f && f.ok === true) ledger.set(k(f.file_path), f.file_hash)
      return
    }
    if (tool.name === 'move_file') {
      // The file keeps its bytes: what was seen of it is still known, under its new name.
      if (r.written === false) return
      const seen = ledger.get(k(r.file_path))
      ledger.forget(k(r.file_path))
      ledger.forget(k(r.moved_to))
      if (sameHash(seen, r.file_hash)) ledger.set(k(r.moved_to), r.file_hash)
      return
    }
    const files = Array.isArray(r.files) ? r.files : []
    if (tool.name === 'undo_edit') {
      for (const f of files) {
        if (!f || typeof f.file_path !== 'string') continue
        if (f.action !== 'deleted' && typeof f.file_hash === 'string') ledger.set(k(f.file_path), f.file_hash)
        else ledger.forget(k(f.file_path))
      }
      return
    }
    if (r.written === false) return
    if (tool.name === 'delete_file') return ledger.forget(k(r.file_path))
    if (tool.touches === 'patch') {
      for (const f of files) {
        if (!f || typeof f.file_path !== 'string') continue
        const at = typeof f.moved_to === 'string' ? f.moved_to : f.file_path
        if (at !== f.file_path) ledger.forget(k(f.file_path))
        if (typeof f.file_hash === 'string') ledger.set(k(at), f.file_hash)
        else ledger.forget(k(at))
      }
      return
    }
    if (typeof r.file_path === 'string') {
      if (typeof r.file_hash === 'string') ledger.set(k(r.file_path), r.file_hash)
      else ledger.forget(k(r.file_path))
    }
  }

  // Every result in the words of tool `name` (tools/vocabulary.cjs): a hint names only what it takes.
  async function call(name, rawArgs) {
    return vocabulary.speak(await callTool(name, rawArgs), vocabulary.mcpRows(name))
  }

  async function callTool(name, rawArgs) {
    const tool = tools.get(name)
    if (!tool) {
      return failure('INVALID_INPUT', `unknown tool ${JSON.stringify(name)}; available tools are ${JSON.stringify([...tools.keys()])}.`)
    }
    const { args, error } = normalize(tool, rawArgs)
    if (error) return error
    const bad = tool.check && tool.check(args)
    if (bad) return failure('INVALID_INPUT', `${bad} (nothing was written)`)
    if (roots.length === 0) {
      return failure('PATH_OUTSIDE_WORKSPACE', `${name}: ${unserved} Nothing was read or written.`)
    }
    try {
      // A tool whose path argument (file_path, path or from_path) is absolute runs in the root that
      // holds it; anything else runs in the
      // first root, then (a patch, an undo by edit_id) in the next ones while a root refuses its paths
      // with PATH_OUTSIDE_WORKSPACE (refused before anything is written).
      const primary = [args.file_path, args.path, args.from_path].find((p) => typeof p === 'string')
      const absolute = primary !== undefined && path.isAbsolute(primary)
      const order = absolute
        ? [roots.find((r) => inside(r, primary)) || roots[0]]
        : tool.touches === 'patch' || tool.touches === 'undo'
          ? roots
          : [roots[0]]
      let r
      for (const at of order) {
        const a = Object.assign({}, args)
        if (requireRead) {
          const refused = await guard(tool, a, at)
          if (refused) {
            r = refused
            if (refused.code === 'PATH_OUTSIDE_WORKSPACE') continue
            return refused
          }
        }
        r = await lib[tool.lib](...engineArgs(tool, a, at))
        if (!r || typeof r !== 'object' || Array.isArray(r) || typeof r.ok !== 'boolean') {
          return failure('INTERNAL_ERROR', `${name}: the engine returned no result object. Please report this.`)
        }
        if (requireRead) record(tool, a, r, at)
        remember(tool, r)
        if (!(r.ok === false && r.code === 'PATH_OUTSIDE_WORKSPACE')) break
      }
      return r
    } catch (e) {
      return failure('INTERNAL_ERROR', `${name} failed unexpectedly: ${e && e.message ? e.message : e}. Please report this.`)
    }
  }

  /**
   * Serve these roots (absolute directories) from now on; the first resolves relative paths. An empty
   * list refuses every call (PATH_OUTSIDE_WORKSPACE) with `why` as the message (default: the client
   * declares no roots).
   */
  function setRoots(list, why) {
    if (!Array.isArray(list) || list.some((r) => typeof r !== 'string' || !path.isAbsolute(r))) {
      throw new TypeError('setRoots takes an array of absolute directory paths')
    }
    roots = list.map((r) => path.resolve(r))
    unserved = typeof why === 'string' && why ? why : NO_CLIENT_ROOTS
  }

  return {
    get root() {
      return roots[0]
    },
    get roots() {
      return roots.slice()
    },
    setRoots,
    requireRead,
    isolateUndo,
    validate,
    tools: [...tools.keys()],
    call,
  }
}

// Whether `p` (absolute) is `dir` or under it, lexically (the engine's sandbox resolves symlinks).
function inside(dir, p) {
  const rel = path.relative(dir, path.resolve(p))
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

// The ledger's key for a file: its root and its name in that root's results.
const key = (root, display) => `${root}\0${display}`

module.exports = {
  inside,
  argumentNames,
  TOOLS,
  ALL_TOOLS,
  errorCodesOf,
  availableTools,
  mcpTools,
  toolDefinitions,
  schemaFiles,
  opTable,
  inputSchemaOf,
  outputSchemaOf,
  createToolRunner,
  VALIDATE_MODES,
  DEFAULT_VALIDATE,
}
