//! The arguments of every operation, as Rust types: the positional parameters of each library
//! function (`<Op>Args`, one field per parameter, in order) and its options objects.
//!
//! These types are the readers: [`super::read::read_args`] reads an operation's argument array into
//! its `<Op>Args` (spellings, `null`, unknown keys, types and messages decided by the declaration),
//! and the op table hands the handler in [`crate::api`] that one typed value. `tests/inputs.rs`
//! proves the keys the reader knows are exactly the properties the generated schemas declare. `schemas/<op>.args.json` and `types/options.d.ts` are generated from them
//! (see [`super::args_schema`]). Doc comments become descriptions.
//!
//! Spellings: every snake_case property is also accepted in camelCase (`workspace_root` and
//! `workspaceRoot`); the generated schemas and types declare both (see [`super::expand_aliases`]).
//! Other spellings of one key are listed with `#[schemars(extend("x-aliases" = [...]))]` and declared
//! the same way. Where a required key has other spellings, the schema requires one of them
//! (`allOf: [{anyOf: [{required: [a]}, {required: [b]}]}]`; the types: `{a: T} | {b: T}`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;

use super::receipts::Encoding;

// ---- spellings ----------------------------------------------------------------------------------

// Every spelling of a key that has more than its snake_case and camelCase ones, declared once: the
// field's `x-aliases` (so the schemas, the types and the MCP tools' alias table, `aliases` in
// schemas/ops.json, list them) and the options reader's key list are both this array. The first
// item is the native spelling. The other names are those other tools taught models: Claude Code
// (Edit, MultiEdit, Read), the MCP reference filesystem server (edit_file, read_text_file), Gemini
// CLI (replace) and Codex (apply_patch).

/// An edit's old text: `old`, Claude Code's `old_string`, the filesystem server's `oldText`.
pub const OLD: &[&str] = &["old", "old_string", "oldString", "search", "oldText"];
/// An edit's new text: `new`, Claude Code's `new_string`, the filesystem server's `newText`.
pub const NEW: &[&str] = &["new", "new_string", "newString", "replace", "newText"];
/// `patchFile`'s search text: also Claude Code's (and Gemini CLI's) `old_string`.
pub const SEARCH_BLOCK: &[&str] = &["search_block", "searchBlock", "old_string", "oldString"];
/// `patchFile`'s replacement: also Claude Code's (and Gemini CLI's) `new_string`.
pub const REPLACE_BLOCK: &[&str] = &["replace_block", "replaceBlock", "new_string", "newString"];
/// A file path that other tools call `path` (the filesystem server's edit_file and read_text_file).
pub const FILE_PATH_OR_PATH: &[&str] = &["file_path", "filePath", "path"];
/// A view's first line: also Claude Code Read's `offset` (1-based).
pub const START_LINE: &[&str] = &["start_line", "startLine", "offset"];
/// A view's line cap: also Claude Code Read's `limit` and the filesystem server's `head`.
pub const MAX_LINES: &[&str] = &["max_lines", "maxLines", "limit", "head"];
/// The apply_patch text: also Codex's `input`.
pub const PATCH: &[&str] = &["patch", "input"];

// ---- shared options -----------------------------------------------------------------------------

/// Options every reading and finding call takes: where the workspace is, and how long a lock wait
/// may last.
#[derive(JsonSchema, Deserialize, Default, Clone)]
#[schemars(deny_unknown_fields)]
pub struct WorkspaceOption {
    /// Directory every path must stay inside (default: `process.cwd()`).
    pub workspace_root: Option<String>,
    /// Longest wait, in milliseconds, for a lock another surepatch call holds on a file or directory
    /// (default 10000); past it the call fails with `LOCK_TIMEOUT` and nothing is written.
    pub lock_timeout_ms: Option<u64>,
}

/// Where the undo journal is also kept on disk (at most one of the two).
#[derive(JsonSchema, Deserialize, Default, Clone)]
pub struct JournalOptions {
    /// A directory inside the workspace that also keeps the undo journal on disk (so `undoEdit` works
    /// after a restart). The in-memory journal is always kept.
    pub journal_dir: Option<String>,
    /// An absolute directory chosen by the host (not sandboxed, created if missing) that keeps the undo
    /// journal on disk, inside or outside the workspace; one per workspace root. Not with `journal_dir`.
    pub host_journal_dir: Option<String>,
}

/// `"safe"` (default) tolerates transcription noise when the match stays unique; `"exact"` does not.
#[derive(JsonSchema, Deserialize)]
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
#[derive(JsonSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidateMode {
    Off,
    Report,
    Enforce,
}

/// The options every writing call shares (`base_hash` aside: the multi-file calls take
/// `base_hashes` instead).
#[derive(JsonSchema, Deserialize, Default)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct EditOptions {
    #[serde(flatten)]
    pub write: WriteOptions,
    /// The `file_hash` the edit was written against; a different current hash gives `STALE_FILE`.
    pub base_hash: Option<String>,
}

// ---- per-op options -----------------------------------------------------------------------------

/// Options of the multi-file entry points (`applyPatch`, `applyBlocks`, `applyUnifiedDiff`). Each key is
/// accepted in snake_case or camelCase; unknown keys are refused with `INVALID_INPUT`.
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct BlocksOptions {
    #[serde(flatten)]
    pub patch: PatchOptions,
    /// Apply every block to this file, ignoring path lines in the text.
    pub file_path: Option<String>,
}

/// `applyUnifiedDiff` options.
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct UnifiedDiffOptions {
    #[serde(flatten)]
    pub patch: PatchOptions,
    /// The file the diff is for, used when its hunks come with no `---`/`+++` headers, or when no name
    /// in the headers (nor another spelling: `a/x` → `x`, `x.orig` → `x`) names an existing file.
    /// Without it such a diff is refused (`PARSE_ERROR`, or `FILE_NOT_FOUND`).
    pub file_path: Option<String>,
}

/// `"plain"` (default); `"numbered"` prefixes `%6d\t` like `cat -n`; `"hashline"` prefixes `N:tag|`.
#[derive(JsonSchema, Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum ViewFormat {
    Plain,
    Numbered,
    Hashline,
}

/// Options of viewFile (snake_case or camelCase).
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct ViewFileOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    pub format: Option<ViewFormat>,
    /// 1-based first line (default 1).
    #[schemars(extend("x-aliases" = START_LINE))]
    pub start_line: Option<u64>,
    /// 1-based last line, inclusive (default: the last line; larger values are clamped).
    pub end_line: Option<u64>,
    /// Cap on `content` in UTF-8 bytes (default 262144): only whole lines fit, then `truncated: true`.
    pub max_bytes: Option<u64>,
    /// Cap on the lines shown (default 2000 when `end_line` is not given).
    #[schemars(extend("x-aliases" = MAX_LINES))]
    pub max_lines: Option<u64>,
    /// Show only the last this many lines (at least 1; not with `start_line`, `end_line` or
    /// `max_lines`).
    pub tail: Option<u64>,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
}

/// `"keep"` (default): convert line breaks to the existing file's terminator when it uses one
/// throughout; `"as_is"`: write them as given; or force one.
#[derive(JsonSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineEndingOption {
    Keep,
    AsIs,
    Lf,
    Crlf,
    Cr,
}

/// Options of writeFile (and createFile).
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct CreateFileOptions {
    #[serde(flatten)]
    pub write: WriteFileOptions,
    /// Replace an existing file (a rewrite: encoding kept, placeholders checked) instead of FILE_EXISTS.
    pub overwrite: Option<bool>,
}

/// Options of undoEdit.
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
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
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct MoveFileOptions {
    #[serde(flatten)]
    pub edit: EditOptions,
    /// Replace an existing file at `to_path` (default false: FILE_EXISTS).
    pub overwrite: Option<bool>,
}

/// Options of getStats.
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct StatsOptions {
    /// Reset the counters after reading them.
    pub reset: Option<bool>,
}

// ---- argument values ----------------------------------------------------------------------------

/// The `patch_file` tool's arguments, which `patchFile` takes as its `input`: the edit, and the
/// settings a model may send with it (each must agree with the same setting in `options` when both
/// are given). `file_path`, `search_block` and `replace_block` are required, in any of their
/// spellings.
#[derive(JsonSchema, Deserialize)]
#[schemars(deny_unknown_fields)]
pub struct PatchFileInput {
    /// The file to edit (required).
    pub file_path: String,
    /// Text that must occur exactly once in the file (after the tolerance tiers, if any; required),
    /// or `expected_replacements` times, or with `replace_all` any number of times.
    #[schemars(extend("x-aliases" = SEARCH_BLOCK))]
    pub search_block: String,
    /// Inserted literally in place of the match ("" deletes it; required).
    #[schemars(extend("x-aliases" = REPLACE_BLOCK))]
    pub replace_block: String,
    /// Replace exactly this many occurrences; any other count is refused (`MATCH_COUNT_MISMATCH`).
    pub expected_replacements: Option<u64>,
    /// Replace every occurrence, however many (at least one). Not with `expected_replacements`.
    pub replace_all: Option<bool>,
    /// The `file_hash` the edit was written against; a different current hash gives `STALE_FILE`.
    pub base_hash: Option<String>,
    /// Compute everything, write nothing (`written: false`).
    pub dry_run: Option<bool>,
    pub tolerance: Option<Tolerance>,
}

/// The `merge_snippet` tool's arguments, which `mergeSnippet` takes as its `input`: the file and the
/// lazy snippet (both required, in either spelling).
#[derive(JsonSchema, Deserialize)]
#[schemars(deny_unknown_fields)]
pub struct MergeSnippetInput {
    /// The file to merge into.
    pub file_path: String,
    /// The changed regions as they should read, each with an unchanged line above and below, and an
    /// elision marker (`// ... existing code ...` in the file's comment syntax) wherever code is left
    /// out. Without any marker it must be the whole new file.
    pub snippet: String,
}

/// One edit of `applyEdits` as an object: the old text (required, in any of its spellings), the new
/// text (required, in any of its spellings), and optionally how many occurrences it must replace.
#[derive(JsonSchema, Deserialize)]
#[schemars(deny_unknown_fields)]
pub struct EditSpec {
    /// The text to replace.
    #[schemars(extend("x-aliases" = OLD))]
    pub old: String,
    /// The text to put in its place ("" deletes it).
    #[schemars(extend("x-aliases" = NEW, "x-required" = "\"\" deletes the old text"))]
    pub new: String,
    /// Replace exactly this many occurrences; any other count is refused.
    pub expected_replacements: Option<u64>,
    /// Replace every occurrence, however many (at least one). Not with `expected_replacements`.
    pub replace_all: Option<bool>,
}

/// An edit as an object, or as an `[old, new]` pair.
#[derive(JsonSchema, Deserialize)]
#[serde(untagged)]
pub enum Edit {
    Spec(EditSpec),
    Pair([String; 2]),
}

/// A line anchor from a hashline view: `"12:ab3f"` (the line number, a colon, the line's tag).
/// Read as any string or number (`x-read`), so that a bare line number gets the anchor's own message
/// (the handler's: the tag proves the line is the one the model read).
#[derive(Deserialize)]
pub struct LineAnchor(pub Value);

impl JsonSchema for LineAnchor {
    fn schema_name() -> Cow<'static, str> {
        "LineAnchor".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A line anchor from a hashline view: `\"12:ab3f\"` (the line number, a colon, the line's tag).",
            "x-read": {"type": ["string", "number"]}
        })
    }
}

/// One line-anchored op of `editLines`; `end` is inclusive and defaults to `start`. New lines are
/// given as `lines` (one line per item, no line breaks) or as `text` (split on line breaks), never
/// both.
#[derive(Deserialize)]
pub struct LineOp {
    pub op: String,
    pub start: LineAnchor,
    pub end: Option<LineAnchor>,
    pub lines: Option<Vec<String>>,
    pub text: Option<String>,
}

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
        // What the reader reads by (super::read): one object, so that a wrong op or a missing key
        // gets its own message; the handler then checks which keys go with which op.
        let read = serde_json::json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ["replace", "delete", "insert_before", "insert_after"]},
                "start": anchor,
                "end": anchor,
                "lines": lines,
                "text": text,
            },
            "required": ["op", "start"],
        });
        Schema::try_from(serde_json::json!({
            "description": "One line-anchored op of `editLines`; `end` is inclusive and defaults to `start`. New lines are given as `lines` (one line per item, no line breaks) or as `text` (split on line breaks), never both.",
            "x-read": read,
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
#[serde(untagged)]
#[schemars(deny_unknown_fields)]
#[schemars(extend("x-read" = {
    "type": "object",
    "properties": {"edit_id": {"type": "string"}, "file_path": {"type": "string"}}
}))]
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

impl<'de> Deserialize<'de> for UndoTargetObject {
    /// Read as one object (its `x-read`), so that naming both or neither gets its own message.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Either {
            edit_id: Option<String>,
            file_path: Option<String>,
        }
        match Either::deserialize(d)? {
            Either {
                edit_id: Some(edit_id),
                file_path: None,
            } => Ok(UndoTargetObject::Id { edit_id }),
            Either {
                edit_id: None,
                file_path: Some(file_path),
            } => Ok(UndoTargetObject::Path { file_path }),
            _ => Err(serde::de::Error::custom(
                "target: give exactly one of edit_id and file_path.",
            )),
        }
    }
}

/// What to undo: an `edit_id` from a receipt, or a file path (the newest journaled edit of it); or
/// either named explicitly.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum UndoTarget {
    IdOrPath(String),
    Named(UndoTargetObject),
}

impl<'de> Deserialize<'de> for UndoTarget {
    /// A string, or the object's own refusal (an untagged enum would hide it).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(UndoTarget::IdOrPath(s)),
            other => UndoTargetObject::deserialize(other)
                .map(UndoTarget::Named)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// A file to read whole, or a line range of it.
#[derive(JsonSchema, Deserialize)]
#[serde(untagged)]
pub enum ReadManyItem {
    Path(String),
    Range(ReadManyRange),
}

/// A file of `readManyFiles` and the line range to read.
#[derive(JsonSchema, Deserialize)]
#[schemars(deny_unknown_fields)]
pub struct ReadManyRange {
    /// The file (required, in any of its spellings).
    #[schemars(extend("x-aliases" = FILE_PATH_OR_PATH))]
    pub file_path: String,
    /// 1-based first line (default 1).
    pub start_line: Option<u64>,
    /// 1-based last line, inclusive (default: the last line).
    pub end_line: Option<u64>,
}

/// What `permissionScope` reads paths from: a list of paths, or an apply_patch text, SEARCH/REPLACE
/// path blocks or a unified diff.
#[derive(JsonSchema, Deserialize)]
#[serde(untagged)]
pub enum ScopeInput {
    Paths(Vec<String>),
    Text(String),
}

// ---- the positional arguments of each op --------------------------------------------------------

/// `patchFile(input, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct PatchFileArgs {
    /// The edit: the `patch_file` tool's arguments.
    pub input: PatchFileInput,
    pub options: Option<ScopedEditOptions>,
}

/// `mergeSnippet(input, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct MergeSnippetArgs {
    /// The merge: the `merge_snippet` tool's arguments.
    pub input: MergeSnippetInput,
    pub options: Option<EditOptions>,
}

/// `applyEdits(file_path, edits, options?)` (and `previewEdits`).
#[derive(JsonSchema, Deserialize)]
pub struct ApplyEditsArgs {
    /// The file to edit.
    #[schemars(extend("x-aliases" = FILE_PATH_OR_PATH))]
    pub file_path: String,
    /// The edits, applied all or none (at most 10000).
    pub edits: Vec<Edit>,
    pub options: Option<ScopedEditOptions>,
}

/// No arguments.
#[derive(JsonSchema, Deserialize)]
pub struct NoArgs {}

/// `getStats(options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct GetStatsArgs {
    pub options: Option<StatsOptions>,
}

/// `setEventLog(path)`.
#[derive(JsonSchema, Deserialize)]
pub struct SetEventLogArgs {
    /// The log file; `null` (or nothing) turns the log off.
    pub path: Option<String>,
}

/// `permissionScope(input, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct PermissionScopeArgs {
    pub input: ScopeInput,
    pub options: Option<WorkspaceOption>,
}

/// `viewFile(file_path, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ViewFileArgs {
    /// The file to read.
    #[schemars(extend("x-aliases" = FILE_PATH_OR_PATH))]
    pub file_path: String,
    pub options: Option<ViewFileOptions>,
}

/// `editLines(file_path, ops, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct EditLinesArgs {
    /// The file to edit.
    pub file_path: String,
    /// The line-anchored ops, applied all or none.
    pub ops: Vec<LineOp>,
    pub options: Option<EditOptions>,
}

/// `createFile(file_path, content, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct CreateFileArgs {
    /// The file to create.
    pub file_path: String,
    /// Its complete text.
    pub content: String,
    pub options: Option<CreateFileOptions>,
}

/// `writeFile(file_path, content, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct WriteFileArgs {
    /// The file to rewrite.
    pub file_path: String,
    /// Its complete new text.
    pub content: String,
    pub options: Option<WriteFileOptions>,
}

/// `deleteFile(file_path, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct DeleteFileArgs {
    /// The file to delete.
    pub file_path: String,
    pub options: Option<EditOptions>,
}

/// `undoEdit(target, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct UndoEditArgs {
    pub target: UndoTarget,
    pub options: Option<UndoEditOptions>,
}

/// `applyPatch(patch, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ApplyPatchArgs {
    /// The apply_patch envelope.
    #[schemars(extend("x-aliases" = PATCH))]
    pub patch: String,
    pub options: Option<PatchOptions>,
}

/// `applyBlocks(text, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ApplyBlocksArgs {
    /// SEARCH/REPLACE blocks, each under its path line.
    pub text: String,
    pub options: Option<BlocksOptions>,
}

/// `applyUnifiedDiff(diff, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ApplyUnifiedDiffArgs {
    /// The unified diff (plain or git).
    pub diff: String,
    pub options: Option<UnifiedDiffOptions>,
}

/// `parseBlocks(text)` and `parsePathBlocks(text)`.
#[derive(JsonSchema, Deserialize)]
pub struct ParseBlocksArgs {
    /// SEARCH/REPLACE blocks.
    pub text: String,
}

/// `touchedFiles(op, args)`.
#[derive(JsonSchema, Deserialize)]
pub struct TouchedFilesArgs {
    /// The engine operation (snake_case: `"apply_patch"`, `"patch_file"`, …).
    pub op: String,
    /// Its argument list, as it would be called.
    pub args: Vec<Value>,
}

/// `listDirectory(path?, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ListDirectoryArgs {
    /// The directory (default: the root).
    pub path: Option<String>,
    pub options: Option<ListDirectoryOptions>,
}

/// `findFiles(pattern, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct FindFilesArgs {
    /// The glob to match.
    pub pattern: String,
    pub options: Option<FindFilesOptions>,
}

/// `searchFiles(query, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct SearchFilesArgs {
    /// The text (or with `regex: true`, the pattern) to look for.
    pub query: String,
    pub options: Option<SearchFilesOptions>,
}

/// `readManyFiles(files, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ReadManyFilesArgs {
    /// The files (at least one).
    pub files: Vec<ReadManyItem>,
    pub options: Option<ReadManyFilesOptions>,
}

/// `moveFile(from_path, to_path, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct MoveFileArgs {
    /// The file to move.
    pub from_path: String,
    /// Its new path.
    pub to_path: String,
    pub options: Option<MoveFileOptions>,
}

/// `createDirectory(path, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct CreateDirectoryArgs {
    /// The directory to create, with its missing parents.
    pub path: String,
    pub options: Option<WorkspaceOption>,
}

// ---- symbols (listSymbols, editSymbol; src/api/symbols.rs) ---------------------------------------

/// Options of listSymbols.
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct ListSymbolsOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
}

/// `listSymbols(file_path, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct ListSymbolsArgs {
    /// The file to outline.
    pub file_path: String,
    pub options: Option<ListSymbolsOptions>,
}

/// What `editSymbol` does at the symbol.
#[derive(JsonSchema, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
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
#[derive(JsonSchema, Deserialize)]
#[schemars(deny_unknown_fields)]
pub struct EditSymbolInput {
    /// The file to edit.
    pub file_path: String,
    /// The symbol: `Class/method` (`.` and `::` are accepted too, a leading `/` is absolute, a unique
    /// suffix matches, `name[i]` picks the i-th of same-named symbols in file order).
    pub name_path: String,
    pub action: SymbolAction,
    /// The whole new symbol (replace) or the new code (inserts); re-indented to the target.
    pub text: Option<String>,
}

/// `editSymbol(input, options?)`.
#[derive(JsonSchema, Deserialize)]
pub struct EditSymbolArgs {
    pub input: EditSymbolInput,
    pub options: Option<EditOptions>,
}

/// Options of patchFile and applyEdits: the single-file edit options, and `name_path`.
#[derive(JsonSchema, Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct ScopedEditOptions {
    #[serde(flatten)]
    pub edit: EditOptions,
    /// Search only inside this symbol's span (see listSymbols), so a short `old` that is unique there
    /// is enough. Files without a grammar give `UNSUPPORTED_LANGUAGE`.
    pub name_path: Option<String>,
}
