//! The arguments of every operation, as Rust types: the positional parameters of each library
//! function (`<Op>Args`, one field per parameter, in order) and its options objects.
//!
//! These types are declarations only: the handlers in [`crate::api`] read their arguments with the
//! options reader (`api::args::Obj`), and `tests/inputs.rs` runs that reader to prove it knows exactly
//! the keys declared here. `schemas/<op>.args.json` and `types/options.d.ts` are generated from them
//! (see [`super::args_schema`]). Doc comments become descriptions.
//!
//! Spellings: every snake_case property is also accepted in camelCase (`workspace_root` and
//! `workspaceRoot`); the generated schemas and types declare both (see [`super::expand_aliases`]).
//! Other spellings of one key are listed with `#[schemars(extend("x-aliases" = [...]))]` and declared
//! the same way. Where two spellings exist, neither is required by the schema (the reader requires one).

#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use super::receipts::Encoding;

// ---- shared options -----------------------------------------------------------------------------

/// Options every reading and finding call takes: where the workspace is, and how long a lock wait
/// may last.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceOption {
    /// Directory every path must stay inside (default: `process.cwd()`).
    pub workspace_root: Option<String>,
    /// Longest wait, in milliseconds, for a lock another surepatch call holds on a file or directory
    /// (default 10000); past it the call fails with `LOCK_TIMEOUT` and nothing is written.
    pub lock_timeout_ms: Option<u64>,
}

/// Where the undo journal is also kept on disk (at most one of the two).
#[derive(JsonSchema)]
pub struct JournalOptions {
    /// A directory inside the workspace that also keeps the undo journal on disk (so `undoEdit` works
    /// after a restart). The in-memory journal is always kept.
    pub journal_dir: Option<String>,
    /// An absolute directory chosen by the host (not sandboxed, created if missing) that keeps the undo
    /// journal on disk, inside or outside the workspace; one per workspace root. Not with `journal_dir`.
    pub host_journal_dir: Option<String>,
}

/// `"safe"` (default) tolerates transcription noise when the match stays unique; `"exact"` does not.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tolerance {
    Exact,
    Safe,
}

/// The syntax gate (tree-sitter; JavaScript, TypeScript/TSX, Python, Rust, Go, JSON, C, C++, Java by
/// extension). `"off"` (default): no check, no `syntax` in the receipt. `"report"`: the edit lands and
/// the receipt carries `syntax`. `"enforce"`: an edit that introduces a syntax error is refused with
/// `SYNTAX_ERROR_INTRODUCED` and nothing is written. Errors the file already had are not counted;
/// dry runs are checked too. No effect on `deleteFile`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ValidateMode {
    Off,
    Report,
    Enforce,
}

/// The options every writing call shares (`base_hash` aside: the multi-file calls take
/// `base_hashes` instead).
#[derive(JsonSchema)]
pub struct WriteOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Compute everything, write nothing (`written: false`).
    pub dry_run: Option<bool>,
    pub tolerance: Option<Tolerance>,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
    #[serde(flatten)]
    pub journal: JournalOptions,
    pub validate: Option<ValidateMode>,
}

/// Options shared by every single-file edit (`patchFile`, `applyEdits`, `editLines`, `deleteFile`, …).
/// Each key is accepted in snake_case or camelCase; giving both spellings with different values is
/// refused with `INVALID_INPUT`. Unknown keys are refused.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditOptions {
    #[serde(flatten)]
    pub write: WriteOptions,
    /// The `file_hash` the edit was written against; a different current hash gives `STALE_FILE`.
    pub base_hash: Option<String>,
}

// ---- per-op options -----------------------------------------------------------------------------

/// Options of the multi-file entry points (`applyPatch`, `applyBlocks`, `applyUnifiedDiff`). Each key is
/// accepted in snake_case or camelCase; unknown keys are refused with `INVALID_INPUT`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchOptions {
    #[serde(flatten)]
    pub write: WriteOptions,
    /// Let `Add File` (or a new-file diff, or an empty SEARCH block) replace an existing file, and a move
    /// replace its target. Without it both are refused with `FILE_EXISTS`. A replaced file keeps its
    /// encoding and dominant line terminator.
    pub overwrite: Option<bool>,
    /// `{path as written in the input: file_hash}`; a file whose current hash differs gives `STALE_FILE`.
    pub base_hashes: Option<BTreeMap<String, String>>,
}

/// `applyBlocks` options: apply every block to `file_path`, ignoring path lines in the text.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlocksOptions {
    #[serde(flatten)]
    pub patch: PatchOptions,
    /// Apply every block to this file, ignoring path lines in the text.
    pub file_path: Option<String>,
}

/// `applyUnifiedDiff` options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnifiedDiffOptions {
    #[serde(flatten)]
    pub patch: PatchOptions,
    /// The file the diff is for, used when its hunks come with no `---`/`+++` headers, or when no name
    /// in the headers (nor another spelling: `a/x` → `x`, `x.orig` → `x`) names an existing file.
    /// Without it such a diff is refused (`PARSE_ERROR`, or `FILE_NOT_FOUND`).
    pub file_path: Option<String>,
}

/// `"plain"` (default); `"numbered"` prefixes `%6d\t` like `cat -n`; `"hashline"` prefixes `N:tag|`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ViewFormat {
    Plain,
    Numbered,
    Hashline,
}

/// Options of viewFile (snake_case or camelCase).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewFileOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    pub format: Option<ViewFormat>,
    /// 1-based first line (default 1).
    pub start_line: Option<u64>,
    /// 1-based last line, inclusive (default: the last line; larger values are clamped).
    pub end_line: Option<u64>,
    /// Cap on `content` in UTF-8 bytes (default 262144): only whole lines fit, then `truncated: true`.
    pub max_bytes: Option<u64>,
    /// Cap on the lines shown (default 2000 when `end_line` is not given).
    pub max_lines: Option<u64>,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
}

/// `"keep"` (default): convert line breaks to the existing file's terminator when it uses one
/// throughout; `"as_is"`: write them as given; or force one.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineEndingOption {
    Keep,
    AsIs,
    Lf,
    Crlf,
    Cr,
}

/// Options of writeFile (and createFile).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileOptions {
    #[serde(flatten)]
    pub edit: EditOptions,
    /// Write content that holds elision placeholders such as `// ... existing code ...` anyway.
    pub allow_placeholders: Option<bool>,
    /// Encoding to write (default: the existing file's, or UTF-8 for a new file).
    pub encoding: Option<Encoding>,
    pub line_ending: Option<LineEndingOption>,
    /// Refuse a rewrite of an existing file whose `changed_lines` is larger, with `REWRITE_TOO_BROAD`
    /// (nothing written). Not applied when a file is created.
    pub max_changed_lines: Option<u64>,
}

/// Options of createFile.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateFileOptions {
    #[serde(flatten)]
    pub write: WriteFileOptions,
    /// Replace an existing file (a rewrite: encoding kept, placeholders checked) instead of FILE_EXISTS.
    pub overwrite: Option<bool>,
}

/// Options of undoEdit.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoEditOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Also look in (and remove from) this on-disk journal (`journal_dir`), or that one
    /// (`host_journal_dir`).
    #[serde(flatten)]
    pub journal: JournalOptions,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
    /// Reach only these edits (by id or by path): any other is `EDIT_NOT_FOUND`, as if it were not
    /// journaled. For hosts serving several clients from one process (the MCP server gives each
    /// HTTP session its own edits' ids), so one client cannot revert another's edit.
    pub only_edit_ids: Option<Vec<String>>,
}

/// Options of listDirectory.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Levels to list (1..20, default 1: the directory's own entries).
    pub depth: Option<u64>,
    /// List files `.gitignore` excludes too (default false). `.git` is never listed.
    pub include_ignored: Option<bool>,
    /// At most this many entries (default 1000, up to 100000).
    pub max_entries: Option<u64>,
}

/// Options of findFiles.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindFilesOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Directory to search (default: the root).
    pub path: Option<String>,
    /// At most this many paths (default 1000, up to 100000).
    pub max_results: Option<u64>,
    /// Include files `.gitignore` excludes (default false).
    pub include_ignored: Option<bool>,
    /// Include hidden files and directories (default false).
    pub include_hidden: Option<bool>,
}

/// Options of searchFiles.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// `query` is a Rust regex (default false: literal text).
    pub regex: Option<bool>,
    /// Directory to search (default: the root).
    pub path: Option<String>,
    /// Only files matching this glob (without `/`: by file name at any depth).
    pub glob: Option<String>,
    /// Default true.
    pub case_sensitive: Option<bool>,
    /// Lines before and after each match (0..20, default 0).
    pub context_lines: Option<u64>,
    /// At most this many matching lines (default 200, up to 100000).
    pub max_results: Option<u64>,
    /// Include files `.gitignore` excludes (default false).
    pub include_ignored: Option<bool>,
    /// Include hidden files and directories (default false).
    pub include_hidden: Option<bool>,
    /// Files larger than this many bytes are not searched (counted in `files_too_large`; default
    /// 256 MiB).
    pub max_file_bytes: Option<u64>,
}

/// Options of readManyFiles.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadManyFilesOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    pub format: Option<ViewFormat>,
    /// Content bytes for all files together (default and most 1048576).
    pub max_bytes: Option<u64>,
    /// Refuse files larger than this many bytes (each file's own failure; default 256 MiB).
    pub max_file_bytes: Option<u64>,
}

/// Options of moveFile.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveFileOptions {
    #[serde(flatten)]
    pub edit: EditOptions,
    /// Replace an existing file at `to_path` (default false: FILE_EXISTS).
    pub overwrite: Option<bool>,
}

/// Options of getStats.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatsOptions {
    /// Reset the counters after reading them.
    pub reset: Option<bool>,
}

// ---- argument values ----------------------------------------------------------------------------

/// The `patch_file` tool's arguments, which `patchFile` takes as its `input`: the edit, and the
/// settings a model may send with it (each must agree with the same setting in `options` when both
/// are given). `file_path`, `search_block` and `replace_block` are required, in either spelling.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchFileInput {
    /// The file to edit (required).
    pub file_path: Option<String>,
    /// Text that must occur exactly once in the file (after the tolerance tiers, if any; required).
    pub search_block: Option<String>,
    /// Inserted literally in place of the match ("" deletes it; required).
    pub replace_block: Option<String>,
    /// The `file_hash` the edit was written against; a different current hash gives `STALE_FILE`.
    pub base_hash: Option<String>,
    /// Compute everything, write nothing (`written: false`).
    pub dry_run: Option<bool>,
    pub tolerance: Option<Tolerance>,
}

/// One edit of `applyEdits` as an object: the old text (required, in any of its spellings), the new
/// text (required, in any of its spellings), and optionally how many occurrences it must replace.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditSpec {
    /// The text to replace.
    #[schemars(extend("x-aliases" = ["old_string", "oldString", "search"]))]
    pub old: Option<String>,
    /// The text to put in its place ("" deletes it).
    #[schemars(extend("x-aliases" = ["new_string", "newString", "replace"]))]
    pub new: Option<String>,
    /// Replace exactly this many occurrences; any other count is refused.
    pub expected_replacements: Option<u64>,
}

/// An edit as an object, or as an `[old, new]` pair.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum Edit {
    Spec(EditSpec),
    Pair([String; 2]),
}

/// A line anchor from a hashline view: `"12:ab3f"` (the line number, a colon, the line's tag).
pub struct LineAnchor;

impl JsonSchema for LineAnchor {
    fn schema_name() -> Cow<'static, str> {
        "LineAnchor".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A line anchor from a hashline view: `\"12:ab3f\"` (the line number, a colon, the line's tag)."
        })
    }
}

/// One line-anchored op of `editLines`; `end` is inclusive and defaults to `start`. New lines are
/// given as `lines` (one line per item, no line breaks) or as `text` (split on line breaks), never
/// both.
pub struct LineOp;

impl JsonSchema for LineOp {
    fn schema_name() -> Cow<'static, str> {
        "LineOp".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let anchor = g.subschema_for::<LineAnchor>().to_value();
        let lines = serde_json::json!({"type": "array", "items": {"type": "string"}, "description": "The new lines, one per item, without line breaks."});
        let text = serde_json::json!({"type": "string", "description": "The new lines as text, split on line breaks."});
        let op = |kinds: &[&str]| -> Value {
            match kinds {
                [one] => serde_json::json!({ "const": one }),
                _ => serde_json::json!({ "type": "string", "enum": kinds }),
            }
        };
        let variant = |kinds: &[&str], end: bool, new: Option<(&str, &Value)>| -> Value {
            let mut props = serde_json::Map::new();
            props.insert("op".into(), op(kinds));
            props.insert("start".into(), anchor.clone());
            if end {
                props.insert("end".into(), anchor.clone());
            }
            let mut required = vec!["op", "start"];
            if let Some((k, s)) = new {
                props.insert(k.into(), s.clone());
                required.push(k);
            }
            serde_json::json!({
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": false,
            })
        };
        let insert = ["insert_before", "insert_after"];
        Schema::try_from(serde_json::json!({
            "description": "One line-anchored op of `editLines`; `end` is inclusive and defaults to `start`. New lines are given as `lines` (one line per item, no line breaks) or as `text` (split on line breaks), never both.",
            "oneOf": [
                variant(&["replace"], true, Some(("lines", &lines))),
                variant(&["replace"], true, Some(("text", &text))),
                variant(&["delete"], true, None),
                variant(&insert, false, Some(("lines", &lines))),
                variant(&insert, false, Some(("text", &text))),
            ]
        }))
        .expect("an object schema")
    }
}

/// What to undo, named explicitly.
#[derive(JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum UndoTargetObject {
    /// The edit with this id.
    Id {
        /// An `edit_id` from a receipt.
        edit_id: String,
    },
    /// The newest journaled edit of this file.
    Path {
        /// A file path.
        file_path: String,
    },
}

/// What to undo: an `edit_id` from a receipt, or a file path (the newest journaled edit of it); or
/// either named explicitly.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum UndoTarget {
    IdOrPath(String),
    Named(UndoTargetObject),
}

/// A file to read whole, or a line range of it.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ReadManyItem {
    Path(String),
    Range(ReadManyRange),
}

/// A file of `readManyFiles` and the line range to read.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadManyRange {
    /// The file (required, in any of its spellings).
    #[schemars(extend("x-aliases" = ["path"]))]
    pub file_path: Option<String>,
    /// 1-based first line (default 1).
    pub start_line: Option<u64>,
    /// 1-based last line, inclusive (default: the last line).
    pub end_line: Option<u64>,
}

/// What `permissionScope` reads paths from: a list of paths, or an apply_patch text, SEARCH/REPLACE
/// path blocks or a unified diff.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ScopeInput {
    Paths(Vec<String>),
    Text(String),
}

// ---- the positional arguments of each op --------------------------------------------------------

/// `patchFile(input, options?)`.
#[derive(JsonSchema)]
pub struct PatchFileArgs {
    /// The edit: the `patch_file` tool's arguments.
    pub input: PatchFileInput,
    pub options: Option<ScopedEditOptions>,
}

/// `applyEdits(file_path, edits, options?)` (and `previewEdits`).
#[derive(JsonSchema)]
pub struct ApplyEditsArgs {
    /// The file to edit.
    pub file_path: String,
    /// The edits, applied all or none (at most 10000).
    pub edits: Vec<Edit>,
    pub options: Option<ScopedEditOptions>,
}

/// No arguments.
#[derive(JsonSchema)]
pub struct NoArgs {}

/// `getStats(options?)`.
#[derive(JsonSchema)]
pub struct GetStatsArgs {
    pub options: Option<StatsOptions>,
}

/// `setEventLog(path)`.
#[derive(JsonSchema)]
pub struct SetEventLogArgs {
    /// The log file; `null` (or nothing) turns the log off.
    pub path: Option<String>,
}

/// `permissionScope(input, options?)`.
#[derive(JsonSchema)]
pub struct PermissionScopeArgs {
    pub input: ScopeInput,
    pub options: Option<WorkspaceOption>,
}

/// `viewFile(file_path, options?)`.
#[derive(JsonSchema)]
pub struct ViewFileArgs {
    /// The file to read.
    pub file_path: String,
    pub options: Option<ViewFileOptions>,
}

/// `editLines(file_path, ops, options?)`.
#[derive(JsonSchema)]
pub struct EditLinesArgs {
    /// The file to edit.
    pub file_path: String,
    /// The line-anchored ops, applied all or none.
    pub ops: Vec<LineOp>,
    pub options: Option<EditOptions>,
}

/// `createFile(file_path, content, options?)`.
#[derive(JsonSchema)]
pub struct CreateFileArgs {
    /// The file to create.
    pub file_path: String,
    /// Its complete text.
    pub content: String,
    pub options: Option<CreateFileOptions>,
}

/// `writeFile(file_path, content, options?)`.
#[derive(JsonSchema)]
pub struct WriteFileArgs {
    /// The file to rewrite.
    pub file_path: String,
    /// Its complete new text.
    pub content: String,
    pub options: Option<WriteFileOptions>,
}

/// `deleteFile(file_path, options?)`.
#[derive(JsonSchema)]
pub struct DeleteFileArgs {
    /// The file to delete.
    pub file_path: String,
    pub options: Option<EditOptions>,
}

/// `undoEdit(target, options?)`.
#[derive(JsonSchema)]
pub struct UndoEditArgs {
    pub target: UndoTarget,
    pub options: Option<UndoEditOptions>,
}

/// `applyPatch(patch, options?)`.
#[derive(JsonSchema)]
pub struct ApplyPatchArgs {
    /// The apply_patch envelope.
    pub patch: String,
    pub options: Option<PatchOptions>,
}

/// `applyBlocks(text, options?)`.
#[derive(JsonSchema)]
pub struct ApplyBlocksArgs {
    /// SEARCH/REPLACE blocks, each under its path line.
    pub text: String,
    pub options: Option<BlocksOptions>,
}

/// `applyUnifiedDiff(diff, options?)`.
#[derive(JsonSchema)]
pub struct ApplyUnifiedDiffArgs {
    /// The unified diff (plain or git).
    pub diff: String,
    pub options: Option<UnifiedDiffOptions>,
}

/// `parseBlocks(text)` and `parsePathBlocks(text)`.
#[derive(JsonSchema)]
pub struct ParseBlocksArgs {
    /// SEARCH/REPLACE blocks.
    pub text: String,
}

/// `touchedFiles(op, args)`.
#[derive(JsonSchema)]
pub struct TouchedFilesArgs {
    /// The engine operation (snake_case: `"apply_patch"`, `"patch_file"`, …).
    pub op: String,
    /// Its argument list, as it would be called.
    pub args: Vec<Value>,
}

/// `listDirectory(path?, options?)`.
#[derive(JsonSchema)]
pub struct ListDirectoryArgs {
    /// The directory (default: the root).
    pub path: Option<String>,
    pub options: Option<ListDirectoryOptions>,
}

/// `findFiles(pattern, options?)`.
#[derive(JsonSchema)]
pub struct FindFilesArgs {
    /// The glob to match.
    pub pattern: String,
    pub options: Option<FindFilesOptions>,
}

/// `searchFiles(query, options?)`.
#[derive(JsonSchema)]
pub struct SearchFilesArgs {
    /// The text (or with `regex: true`, the pattern) to look for.
    pub query: String,
    pub options: Option<SearchFilesOptions>,
}

/// `readManyFiles(files, options?)`.
#[derive(JsonSchema)]
pub struct ReadManyFilesArgs {
    /// The files (at least one).
    pub files: Vec<ReadManyItem>,
    pub options: Option<ReadManyFilesOptions>,
}

/// `moveFile(from_path, to_path, options?)`.
#[derive(JsonSchema)]
pub struct MoveFileArgs {
    /// The file to move.
    pub from_path: String,
    /// Its new path.
    pub to_path: String,
    pub options: Option<MoveFileOptions>,
}

/// `createDirectory(path, options?)`.
#[derive(JsonSchema)]
pub struct CreateDirectoryArgs {
    /// The directory to create, with its missing parents.
    pub path: String,
    pub options: Option<WorkspaceOption>,
}

// ---- symbols (listSymbols, editSymbol; src/api/symbols.rs) ---------------------------------------

/// Options of listSymbols.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSymbolsOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
}

/// `listSymbols(file_path, options?)`.
#[derive(JsonSchema)]
pub struct ListSymbolsArgs {
    /// The file to outline.
    pub file_path: String,
    pub options: Option<ListSymbolsOptions>,
}

/// What `editSymbol` does at the symbol.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolAction {
    /// Replace the symbol's whole span (comment above, decorators, `export` included) with `text`.
    Replace,
    /// Insert `text` before the symbol's span, at its indentation.
    InsertBefore,
    /// Insert `text` after the symbol's span, at its indentation.
    InsertAfter,
    /// Delete the symbol's span and one adjoining run of blank lines.
    Delete,
}

/// The `edit_symbol` tool's arguments, which `editSymbol` takes as its `input`. `file_path`,
/// `name_path` and `action` are required; `text` is required except for `delete`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditSymbolInput {
    /// The file to edit.
    pub file_path: Option<String>,
    /// The symbol: `Class/method` (`.` and `::` are accepted too, a leading `/` is absolute, a unique
    /// suffix matches, `name[i]` picks the i-th of same-named symbols in file order).
    pub name_path: Option<String>,
    pub action: Option<SymbolAction>,
    /// The whole new symbol (replace) or the new code (inserts); re-indented to the target.
    pub text: Option<String>,
}

/// `editSymbol(input, options?)`.
#[derive(JsonSchema)]
pub struct EditSymbolArgs {
    pub input: EditSymbolInput,
    pub options: Option<EditOptions>,
}

/// Options of patchFile and applyEdits: the single-file edit options, and `name_path`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopedEditOptions {
    #[serde(flatten)]
    pub edit: EditOptions,
    /// Search only inside this symbol's span (see listSymbols), so a short `old` that is unique there
    /// is enough. Files without a grammar give `UNSUPPORTED_LANGUAGE`.
    pub name_path: Option<String>,
}
