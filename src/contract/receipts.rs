//! The success receipt of every operation, and the failure every operation may return, as Rust types.
//!
//! The handlers in [`crate::api`] build these structs and serialize them; `schemas/<op>.output.json`
//! and the TypeScript result types in `types/receipts.d.ts` are generated from them (see
//! [`super`]). Doc comments become the schemas' `description`s. Field order is the JSON order.
//!
//! Some fields hold engine values ([`SyntaxReport`], [`MatchInfo`], …) that serialize themselves; their
//! schema comes from a mirror type here (`#[schemars(with = …)]`), so the engine modules stay free of
//! schema code. `__test__/contract.test.mjs` checks real results against the generated schemas.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::borrow::Cow;

use crate::edit::apply::MatchInfo;
use crate::fs::journal::UndoneFile;
use crate::syntax::SyntaxReport;

// ---- markers ------------------------------------------------------------------------------------

/// `true`: the `ok` of every success.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct True;

impl Serialize for True {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }
}

impl JsonSchema for True {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "True".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": true })
    }
}

/// `false`: the `ok` of every failure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct False;

impl Serialize for False {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(false)
    }
}

impl JsonSchema for False {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "False".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": false })
    }
}

/// A success receipt as the JSON object `call` returns.
pub fn to_value<T: Serialize>(receipt: &T) -> Value {
    // Receipts hold plain data (strings, numbers, vectors): serializing cannot fail.
    serde_json::to_value(receipt).unwrap_or(Value::Null)
}

// ---- shared pieces ------------------------------------------------------------------------------

/// Which tolerance located a match.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum Tier {
    Exact,
    LineEndings,
    TrailingWhitespace,
    Typography,
    Indentation,
    InlineWhitespace,
    LinePrefix,
    BlankEdges,
}

/// A liberty the engine took with the input's syntax; the edit still had to match exactly one place
/// by content.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum Dialect {
    AddPrefixMissing,
    AnchorIgnored,
    AnchorRepeated,
    BlocksInTurn,
    ContextPrefixMissing,
    EditsInTurn,
    HeaderVariant,
    HunkCounts,
    HunksReordered,
    MarkerVariant,
    NoBeginMarker,
    NoEndMarker,
    PathDecorated,
    PathFallback,
    ProseAround,
    SectionsMerged,
    Unescaped,
    UnifiedHeader,
}

/// A file's encoding as surepatch reads and writes it.
#[derive(JsonSchema, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)]
pub enum Encoding {
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "utf-8-bom")]
    Utf8Bom,
    #[serde(rename = "utf-16le")]
    Utf16Le,
    #[serde(rename = "utf-16be")]
    Utf16Be,
}

/// A text's line terminator convention.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum LineEnding {
    Lf,
    Crlf,
    Cr,
    Mixed,
    None,
}

/// One syntax error an edit introduced, positioned in the text after the edit.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct SyntaxErrorInfo {
    /// 1-based line.
    line: usize,
    /// 1-based column, in characters (Unicode scalar values).
    column: usize,
    /// The line's text (trailing whitespace removed, at most 160 characters).
    snippet: String,
    /// `"error"`: text the grammar could not fit; `"missing"`: a token the parser had to invent.
    kind: SyntaxErrorKind,
    /// For `"missing"`: the expected token, e.g. `")"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    expected: Option<String>,
}

/// See [`SyntaxErrorInfo::kind`].
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum SyntaxErrorKind {
    Error,
    Missing,
}

/// The syntax gate's report (with `validate: "report" | "enforce"`): either the file was checked
/// (`ok` false when the edit introduced errors; `new_errors` lists at most 10), or it was skipped
/// (`language: null` for an unknown extension; `"too_large"` above 2 MiB; `"timeout"`).
#[derive(JsonSchema)]
#[schemars(rename = "SyntaxReport")]
#[serde(untagged)]
#[allow(dead_code)]
pub enum SyntaxReportSchema {
    /// The file was checked.
    Checked {
        /// The grammar used.
        language: String,
        /// False when the edit introduced syntax errors.
        ok: bool,
        /// The errors the edit introduced, in file order (at most 10).
        new_errors: Vec<SyntaxErrorInfo>,
    },
    /// The file was not checked.
    Skipped {
        /// The grammar, or `null` for an unknown extension.
        language: Option<String>,
        /// Why the file was not checked.
        skipped: SkipReason,
    },
}

/// Why the syntax gate did not check a file.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum SkipReason {
    UnknownLanguage,
    TooLarge,
    Timeout,
}

/// Where one edit landed.
#[derive(JsonSchema)]
#[schemars(rename = "MatchInfo")]
#[allow(dead_code)]
pub struct MatchInfoSchema {
    /// The edit (0-based, in the order given).
    edit_index: usize,
    /// 1-based first line of the match in the original file.
    start_line: usize,
    /// 1-based last line of the match in the original file.
    end_line: usize,
    tier: Tier,
    /// Every tolerance used, when more than one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tolerances: Vec<Tier>,
}

/// Fields every write receipt carries.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct JournalFields {
    /// Pass to `undoEdit`; `null` when nothing was journaled (dry run, or saved content above the 64 MiB journal cap).
    pub edit_id: Option<String>,
    /// Whether `undoEdit(edit_id)` can restore every file this write touched.
    pub undo_available: bool,
    /// Set when the write succeeded but `journal_dir` could not be updated (or the previous files total
    /// more than its 64 MiB cap): the edit can then be undone from this process only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub journal_warning: Option<String>,
}

impl JournalFields {
    pub fn of(r: &crate::fs::journal::Recorded) -> Self {
        JournalFields {
            edit_id: r.edit_id.clone(),
            undo_available: r.edit_id.is_some(),
            journal_warning: r.warning.clone(),
        }
    }
}

/// Changed lines of a whole-file write, 1-based in the new file. `end_line === start_line - 1` marks
/// lines that were only removed, just before `start_line`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedRange {
    pub start_line: usize,
    pub end_line: usize,
}

/// How a whole-file write changed the lines (also carried by `REWRITE_TOO_BROAD`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LineChangeFields {
    /// Lines of the new content the old one did not have.
    pub lines_added: usize,
    /// Lines of the old content that are gone.
    pub lines_removed: usize,
    /// Per block of adjacent changed lines the larger of removed and added, summed (what
    /// `max_changed_lines` limits).
    pub changed_lines: usize,
    /// At most 20; `changed_ranges_truncated` says whether more changed.
    pub changed_ranges: Vec<ChangedRange>,
    pub changed_ranges_truncated: bool,
}

// ---- single-file edits --------------------------------------------------------------------------

/// `patchFile`: one search/replace.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PatchFileSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// Occurrences replaced: 1, or the count with `expected_replacements` / `replace_all`.
    pub replacements: usize,
    /// Set when an empty `search_block` created the missing file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub created: Option<bool>,
    /// 1-based first line of the match.
    pub line_number: usize,
    #[schemars(with = "Tier")]
    pub tier: &'static str,
    /// Liberties taken with the input (`unescaped`); empty for textbook input.
    #[schemars(with = "Vec<Dialect>")]
    pub dialect: Vec<&'static str>,
    /// Length of the text before, in UTF-16 code units (as JavaScript counts).
    pub before_chars: usize,
    /// Length of the text after, in UTF-16 code units.
    pub after_chars: usize,
    /// Size on disk before, BOM included.
    pub before_bytes: usize,
    /// Size on disk after, BOM included.
    pub after_bytes: usize,
    /// Unified diff of the change.
    pub diff: String,
    /// False for a dry run.
    pub written: bool,
    /// Hash of the file as written (pass as `base_hash` to chain edits without re-reading).
    pub file_hash: String,
    /// With `validate: "report" | "enforce"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// `mergeSnippet`: a lazy snippet merged into one file (an edit receipt, plus where each chunk
/// landed and which old lines went).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MergeSnippetSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// `"merge"`: chunks placed between markers; `"rewrite"`: a snippet without markers that is the
    /// whole new file.
    #[schemars(with = "MergeMode")]
    pub mode: &'static str,
    /// Where each chunk of the snippet landed, in snippet order (empty for a rewrite).
    #[schemars(with = "Vec<ChunkLanding>")]
    pub chunks: Vec<crate::edit::lazy::Landing>,
    /// Every range of old lines the merge removed (replaced by new lines, or deleted), in file order.
    #[schemars(with = "Vec<RemovedRange>")]
    pub removed_ranges: Vec<crate::edit::lazy::Removed>,
    /// 1-based first changed line of the new file.
    pub first_changed_line: usize,
    /// The loosest tier any unchanged line needed.
    #[schemars(with = "Tier")]
    pub tier: &'static str,
    /// Liberties taken with the input; empty for a merge.
    #[schemars(with = "Vec<Dialect>")]
    pub dialect: Vec<&'static str>,
    /// Length of the text before, in UTF-16 code units (as JavaScript counts).
    pub before_chars: usize,
    /// Length of the text after, in UTF-16 code units.
    pub after_chars: usize,
    /// Size on disk before, BOM included.
    pub before_bytes: usize,
    /// Size on disk after, BOM included.
    pub after_bytes: usize,
    /// Unified diff of the change.
    pub diff: String,
    /// False for a dry run.
    pub written: bool,
    /// Hash of the file as written (pass as `base_hash` to chain edits without re-reading).
    pub file_hash: String,
    /// With `validate: "report" | "enforce"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// How `mergeSnippet` read the snippet.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum MergeMode {
    Merge,
    Rewrite,
}

/// Where one chunk of a lazy snippet landed.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct ChunkLanding {
    /// 0-based index of the chunk in the snippet.
    chunk: usize,
    /// 1-based first line of the chunk in the snippet.
    snippet_start_line: usize,
    /// 1-based last line of the chunk in the snippet.
    snippet_end_line: usize,
    /// 1-based first line the chunk occupies in the new file.
    start_line: usize,
    /// 1-based last line the chunk occupies in the new file.
    end_line: usize,
}

/// Old lines a merge removed.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct RemovedRange {
    /// 1-based first removed line, in the file before the merge.
    start_line: usize,
    /// 1-based last removed line (inclusive), in the file before the merge.
    end_line: usize,
    /// `shown`: between two unchanged lines the snippet shows with no marker between them;
    /// `removal_marker`: where a removal comment (`// ... removed code ...`) stands.
    by: RemovedBy,
}

/// Why lines were removed.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum RemovedBy {
    Shown,
    RemovalMarker,
}

/// `applyEdits` / `previewEdits`: a batch of replacements in one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApplyEditsSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// How many edits were applied.
    pub edits_applied: usize,
    /// Set when an empty `old` created the missing file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub created: Option<bool>,
    /// 1-based first changed line.
    pub first_changed_line: usize,
    /// The loosest tier any edit needed.
    #[schemars(with = "Tier")]
    pub tier: &'static str,
    /// Where each edit landed, in file order.
    #[schemars(with = "Vec<MatchInfoSchema>")]
    pub matches: Vec<MatchInfo>,
    /// Liberties taken with the input (`unescaped`); empty for textbook input.
    #[schemars(with = "Vec<Dialect>")]
    pub dialect: Vec<&'static str>,
    /// Length of the text before, in UTF-16 code units (as JavaScript counts).
    pub before_chars: usize,
    /// Length of the text after, in UTF-16 code units.
    pub after_chars: usize,
    /// Size on disk before, BOM included.
    pub before_bytes: usize,
    /// Size on disk after, BOM included.
    pub after_bytes: usize,
    /// Unified diff of the change.
    pub diff: String,
    /// False for a dry run.
    pub written: bool,
    /// Hash of the file as written (pass as `base_hash` to chain edits without re-reading).
    pub file_hash: String,
    /// With `validate: "report" | "enforce"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// `editLines`: line-anchored edits.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EditLinesSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// How many ops were applied.
    pub ops_applied: usize,
    /// 1-based first changed line.
    pub first_changed_line: usize,
    /// Lines added by the ops.
    pub lines_added: usize,
    /// Lines removed by the ops.
    pub lines_removed: usize,
    /// Length of the text before, in UTF-16 code units (as JavaScript counts).
    pub before_chars: usize,
    /// Length of the text after, in UTF-16 code units.
    pub after_chars: usize,
    /// Size on disk before, BOM included.
    pub before_bytes: usize,
    /// Size on disk after, BOM included.
    pub after_bytes: usize,
    /// Unified diff of the change.
    pub diff: String,
    /// False for a dry run.
    pub written: bool,
    /// Hash of the file as written (pass as `base_hash` to chain edits without re-reading).
    pub file_hash: String,
    /// With `validate: "report" | "enforce"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// `writeFile` / `createFile`: a whole-file write.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WriteFileSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// True when the file did not exist before.
    pub created: bool,
    #[schemars(with = "Encoding")]
    pub encoding: &'static str,
    #[schemars(with = "LineEnding")]
    pub line_ending: &'static str,
    /// Size on disk before (0 for a new file), BOM included.
    pub before_bytes: usize,
    /// Size on disk after, BOM included.
    pub after_bytes: usize,
    #[serde(flatten)]
    pub lines: LineChangeFields,
    /// Unified diff of the change.
    pub diff: String,
    /// False for a dry run.
    pub written: bool,
    /// Hash of the file as written (pass as `base_hash` to chain edits without re-reading).
    pub file_hash: String,
    /// With `validate: "report" | "enforce"` (a new file is checked against an empty one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// `deleteFile`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeleteFileSuccess {
    pub ok: True,
    /// Workspace-relative path of the deleted file.
    pub file_path: String,
    pub deleted: True,
    /// Size on disk before, BOM included.
    pub before_bytes: usize,
    /// False for a dry run.
    pub written: bool,
    /// Always `null`: the file is gone.
    pub file_hash: (),
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// `moveFile`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MoveFileSuccess {
    pub ok: True,
    /// Workspace-relative path the file had.
    pub file_path: String,
    /// Workspace-relative path it has now.
    pub moved_to: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Hash of its bytes (unchanged by the move).
    pub file_hash: String,
    /// Whether a file at `toPath` was replaced.
    pub replaced: bool,
    /// False for a dry run.
    pub written: bool,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// What an undo did to one file.
#[derive(JsonSchema)]
#[schemars(rename = "UndoneFile")]
#[allow(dead_code)]
pub struct UndoneFileSchema {
    /// Workspace-relative path.
    file_path: String,
    action: UndoAction,
    /// Hash of the file now (`null` when deleted).
    file_hash: Option<String>,
}

/// `"restored"` previous bytes; `"recreated"` a deleted file; `"deleted"` a created file.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum UndoAction {
    Restored,
    Recreated,
    Deleted,
}

/// `undoEdit`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UndoEditSuccess {
    pub ok: True,
    /// The edit that was undone.
    pub edit_id: String,
    /// Every file of that edit, as it is now.
    #[schemars(with = "Vec<UndoneFileSchema>")]
    pub files: Vec<UndoneFile>,
}

// ---- multi-file edits ---------------------------------------------------------------------------

/// What a multi-file operation did to one file.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum FileOpKind {
    Add,
    Update,
    Delete,
    Move,
}

/// Where one hunk landed, in lines of the original file.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct HunkMatch {
    /// The hunk (0-based, in the file's operation).
    hunk_index: usize,
    /// For a hunk of only `+` lines: both are the line it was inserted after (0: the start of the file).
    start_line: usize,
    end_line: usize,
    tier: Tier,
}

/// One file of an `applyPatch` / `applyUnifiedDiff` receipt.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HunkFileReceipt {
    /// Workspace-relative path the operation named (the source, for a move).
    pub file_path: String,
    #[schemars(with = "FileOpKind")]
    pub op: &'static str,
    /// For `op: "move"`: the new workspace-relative path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub moved_to: Option<String>,
    /// 0 for add, delete and pure moves.
    pub hunks_applied: usize,
    #[schemars(with = "Vec<HunkMatch>")]
    pub matches: Vec<crate::edit::apply_hunks::HunkMatch>,
    /// Unified diff of the content change ("" for a pure move).
    pub diff: String,
    /// Size on disk before (0 for a created file), BOM included.
    pub before_bytes: usize,
    /// Size on disk after (0 for a deleted file), BOM included.
    pub after_bytes: usize,
    /// Hash of the bytes written (at `moved_to` for a move); `null` for a delete.
    pub file_hash: Option<String>,
    /// With `validate: "report" | "enforce"`, for added and changed files (not deletes or pure moves).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
}

/// One file of an `applyBlocks` receipt.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BlockFileReceipt {
    /// Workspace-relative path the operation named.
    pub file_path: String,
    #[schemars(with = "FileOpKind")]
    pub op: &'static str,
    /// How many blocks were applied to this file.
    pub edits_applied: usize,
    #[schemars(with = "Vec<MatchInfoSchema>")]
    pub matches: Vec<MatchInfo>,
    /// Unified diff of the content change.
    pub diff: String,
    /// Size on disk before (0 for a created file), BOM included.
    pub before_bytes: usize,
    /// Size on disk after (0 for a deleted file), BOM included.
    pub after_bytes: usize,
    /// Hash of the bytes written; `null` for a delete.
    pub file_hash: Option<String>,
    /// With `validate: "report" | "enforce"`, for added and changed files.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: Option<SyntaxReport>,
}

/// `applyPatch` / `applyUnifiedDiff`: one transaction over every file of the patch.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApplyPatchSuccess {
    pub ok: True,
    /// One entry per operation, in input order.
    pub files: Vec<HunkFileReceipt>,
    /// False for a dry run.
    pub written: bool,
    /// Liberties taken with the patch's syntax (sorted, each once); empty for textbook input.
    #[schemars(with = "Vec<Dialect>")]
    pub dialect: Vec<&'static str>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

/// `applyBlocks`: SEARCH/REPLACE blocks over one or more files, one transaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApplyBlocksSuccess {
    pub ok: True,
    /// One entry per file operation, in input order.
    pub files: Vec<BlockFileReceipt>,
    /// False for a dry run.
    pub written: bool,
    /// Liberties taken with the blocks' syntax (sorted, each once); empty for textbook input.
    #[schemars(with = "Vec<Dialect>")]
    pub dialect: Vec<&'static str>,
    #[serde(flatten)]
    pub journal: JournalFields,
}

// ---- the failure --------------------------------------------------------------------------------

/// The fallback ladder's advice after a failure.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum NextAction {
    FixInput,
    Reread,
    WidenContext,
    UseLineEdit,
    RewriteFile,
    Retry,
}

/// A candidate region offered when the search text was not found.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct Candidate {
    start_line: usize,
    end_line: usize,
    /// 0..1
    similarity: f64,
    /// The region, each line as `N\ttext`.
    snippet: String,
    /// What differs, e.g. `line 14: file has "retries = 3", edit has "retries = 2"`.
    differences: Vec<String>,
}

/// A place that matched.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct LineSpan {
    start_line: usize,
    end_line: usize,
}

/// A file that changed after the edit `undoEdit` was asked to undo.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct StaleFile {
    file_path: String,
    expected_hash: Option<String>,
    current_hash: Option<String>,
}

/// An anchor whose line changed (`actual_tag` null: the line no longer exists).
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct StaleAnchor {
    line: usize,
    expected_tag: String,
    actual_tag: Option<String>,
}

/// A chunk's lines in a lazy snippet (1-based, inclusive).
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct SnippetLines {
    start_line: usize,
    end_line: usize,
}

/// For one candidate region of a SNIPPET_AMBIGUOUS refusal: the file line to copy next to the chunk
/// so that the chunk lands on that region.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct DistinguishingLine {
    /// The candidate region's first line (as in `candidates`).
    candidate_start_line: usize,
    /// The file line that tells this candidate apart from the others (1-based), and its text.
    line: usize,
    text: String,
    /// Where the copied lines go: above the chunk's first line or below its last.
    side: HintSide,
    /// The file lines to copy: `line` and any lines between it and the chunk (usually just `line`,
    /// or it with blank lines).
    copy_lines: SnippetLines,
}

/// Above or below the chunk.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum HintSide {
    Above,
    Below,
}

/// A line that holds an elision placeholder.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct PlaceholderLine {
    line: usize,
    text: String,
}

/// A refused or failed call: nothing was written. `code` says what kind of failure, `message` what to
/// do next; the other fields are details that depend on the code. Every field a failure may carry is
/// declared here (no other field appears).
#[derive(JsonSchema)]
#[schemars(rename = "Failure")]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct FailureSchema {
    ok: False,
    /// The stable failure code (see `ErrorCode` / `errorCodes()`), e.g. `"STALE_FILE"`.
    code: crate::error::Code,
    /// What went wrong and what to do next, written for a model to act on.
    message: String,
    /// Workspace-relative path, when the path was resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    file_path: Option<String>,
    /// The failing `edits[i]` in a batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    edit_index: Option<usize>,
    /// For SEARCH_BLOCK_AMBIGUOUS / MATCH_COUNT_MISMATCH: how many places matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    match_count: Option<usize>,
    /// 1-based start line of every occurrence (capped at 100; see `truncated`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<usize>")]
    match_lines: Option<Vec<usize>>,
    /// Every occurrence's lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<LineSpan>")]
    matches: Option<Vec<LineSpan>>,
    /// Whether a list was cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    expected_replacements: Option<usize>,
    /// The fallback ladder: what to do next.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "NextAction")]
    next_action: Option<NextAction>,
    /// How many times this same call failed since its file was last viewed or changed, this one
    /// included: the same op on the same file with this code (without a file: the same arguments).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    attempt: Option<usize>,
    /// Set when this exact request already failed on this file: do not resend it unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    repeated: Option<usize>,
    /// For SEARCH_BLOCK_NOT_FOUND: how many lines the file has.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    file_lines: Option<usize>,
    /// The tier at which the ambiguity was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Tier")]
    tier: Option<Tier>,
    /// For SEARCH_BLOCK_NOT_FOUND and the SNIPPET_* refusals: up to 3 nearest regions, best first. For
    /// SYMBOL_NOT_FOUND / SYMBOL_AMBIGUOUS: the symbols meant, each with a `name_path` that names
    /// exactly it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<AnyCandidate>")]
    candidates: Option<Vec<Candidate>>,
    /// One concrete next step.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    hint: Option<String>,
    /// For OVERLAPPING_EDITS: the two edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "[usize; 2]")]
    edit_indices: Option<[usize; 2]>,
    /// For STALE_FILE: the hash the edit was written against.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    base_hash: Option<String>,
    /// For STALE_FILE: the file's hash now (`null` when the file is absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    current_hash: Option<Option<String>>,
    /// For STALE_FILE from undoEdit: every file that changed after the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<StaleFile>")]
    stale_files: Option<Vec<StaleFile>>,
    /// For STALE_ANCHOR: each anchor whose line changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<StaleAnchor>")]
    stale: Option<Vec<StaleAnchor>>,
    /// For STALE_ANCHOR: the current `N:tag|text` lines within 2 lines of each stale anchor.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    fresh: Option<String>,
    /// How many lines the file has.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    total_lines: Option<usize>,
    /// For the SNIPPET_* refusals of mergeSnippet: the 0-based index of the chunk refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    chunk_index: Option<usize>,
    /// For the SNIPPET_* refusals: the chunk's first and last line in the snippet (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SnippetLines")]
    chunk_lines: Option<SnippetLines>,
    /// For SNIPPET_AMBIGUOUS: for each candidate region, the nearest file line next to the chunk
    /// that tells it apart from the others (checked: copied as named, the chunk lands there).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<DistinguishingLine>")]
    distinguishing_lines: Option<Vec<DistinguishingLine>>,
    /// For ELIDED_CONTENT: the lines that hold a placeholder.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<PlaceholderLine>")]
    placeholder_lines: Option<Vec<PlaceholderLine>>,
    /// For ALREADY_APPLIED: the edits (`edits[i]`, SEARCH/REPLACE blocks) or hunks (0-based, of the
    /// failing operation) whose result is already in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<usize>")]
    already_applied: Option<Vec<usize>>,
    /// For ALREADY_APPLIED: the edits or hunks of that operation that are not applied yet (empty when
    /// the whole operation is already there). Re-read the file and send only these.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<usize>")]
    pending: Option<Vec<usize>>,
    /// For ALREADY_APPLIED in a multi-file patch: the other operations (0-based) that are not applied
    /// yet (empty when the whole patch is already there).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<usize>")]
    pending_ops: Option<Vec<usize>>,
    /// For EDIT_NOT_FOUND / undo failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    edit_id: Option<String>,
    /// For restoreCheckpoint failures: the checkpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    checkpoint_id: Option<String>,
    /// For SYNTAX_ERROR_INTRODUCED: the gate's report (the message shows the first new error in context).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SyntaxReportSchema")]
    syntax: Option<SyntaxReportSchema>,
    /// For REWRITE_TOO_BROAD: the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    max_changed_lines: Option<u64>,
    /// For REWRITE_TOO_BROAD: what the rewrite would have changed (as in a write receipt).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    changed_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    lines_added: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    lines_removed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<ChangedRange>")]
    changed_ranges: Option<Vec<ChangedRange>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    changed_ranges_truncated: Option<bool>,
    /// The path as the caller wrote it (path errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    path: Option<String>,
    /// What the path resolved to (TARGET_IS_DIRECTORY; a symlink moveFile refused; a path in `.git`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    resolved: Option<String>,
    /// For ENCODING_UNSUPPORTED / BINARY_FILE_REJECTED: where the offending byte is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    byte_offset: Option<u64>,
    /// For ENCODING_UNSUPPORTED: the encoding that was asked for or found.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    encoding: Option<String>,
    /// For FILE_TOO_LARGE: the file's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    size: Option<u64>,
    /// For FILE_TOO_LARGE: the limit in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    limit: Option<u64>,
    /// For an invalid workspace root.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    root: Option<String>,
    /// Why a path was refused (e.g. `"symlink"`: a link swapped in after resolution, or a link
    /// moveFile does not move; `"git_dir"`: a path in a `.git` directory, never listed or searched).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    reason: Option<String>,
    /// For LOCK_TIMEOUT: the wait that ran out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    lock_timeout_ms: Option<u64>,
    /// For moveFile: the destination, workspace-relative.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    to_path: Option<String>,
    /// Multi-file operations: the failing operation (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    op_index: Option<usize>,
    /// Multi-file operations: what the failing operation does.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "FileOpKind")]
    op: Option<FileOpKind>,
    /// Multi-file operations: the failing hunk (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    hunk_index: Option<usize>,
    /// Multi-file operations: the failing hunk's line in the patch text.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    hunk_line: Option<usize>,
    /// PARSE_ERROR: the 1-based input line where the problem was seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    line: Option<usize>,
    /// A unified diff's line number (shown, never used to choose a place).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    line_hint: Option<usize>,
    /// A move target that exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    moved_to: Option<String>,
    /// The files restored after a failed write.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    rolled_back: Option<Vec<String>>,
}

// ---- reading and finding ------------------------------------------------------------------------

/// `viewFile`: a file or a line range of it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ViewFileSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// The lines shown, each followed by "\n" whatever the file's terminator (see `line_ending`); the
    /// file's last line has none when the file does not end with one.
    pub content: String,
    /// 1-based first line shown.
    pub start_line: usize,
    /// Last line included (`start_line - 1` when none fit in `max_bytes`).
    pub end_line: usize,
    /// How many lines the file has.
    pub total_lines: usize,
    /// Hash of the whole file's bytes: pass as `base_hash` to later edits.
    pub file_hash: String,
    #[schemars(with = "Encoding")]
    pub encoding: &'static str,
    #[schemars(with = "LineEnding")]
    pub line_ending: &'static str,
    /// Whether a cap cut the view (then `next_start_line` continues it).
    pub truncated: bool,
    /// When truncated: the `start_line` that continues the view.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub next_start_line: Option<usize>,
    /// Set when the line at `start_line` alone is longer than `max_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub hint: Option<String>,
}

/// What a directory entry is (a symlink is not followed).
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum EntryType {
    File,
    Directory,
    Symlink,
    Other,
}

/// One entry of `listDirectory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DirectoryEntry {
    /// Workspace-relative.
    pub path: String,
    #[serde(rename = "type")]
    #[schemars(with = "EntryType")]
    pub kind: &'static str,
    /// Bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub size: Option<u64>,
}

/// Why an ignore file was not read: `"symlink"` (a link, wherever it points), `"not_regular_file"`
/// (a FIFO, socket, device or directory), `"too_large"` (above 1 MiB), `"unreadable"`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum IgnoreFileSkip {
    Symlink,
    NotRegularFile,
    TooLarge,
    Unreadable,
}

/// An ignore file (`.gitignore`, `.ignore`, `.git/info/exclude`) a walk did not read: its rules were
/// not applied, so files it would exclude are listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SkippedIgnoreFile {
    /// Workspace-relative.
    pub path: String,
    #[schemars(with = "IgnoreFileSkip")]
    pub reason: &'static str,
}

/// `listDirectory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListDirectorySuccess {
    pub ok: True,
    /// The directory listed, workspace-relative.
    pub path: String,
    /// In tree order.
    pub entries: Vec<DirectoryEntry>,
    /// Whether `max_entries` cut the list.
    pub truncated: bool,
    /// When truncated: how to see more.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub hint: Option<String>,
    /// Ignore files not read (a symlink, FIFO, device, or above 1 MiB), whose rules were therefore
    /// not applied; absent when every ignore file met was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<SkippedIgnoreFile>")]
    pub skipped_ignore_files: Option<Vec<SkippedIgnoreFile>>,
}

/// `findFiles`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FindFilesSuccess {
    pub ok: True,
    /// The directory searched, workspace-relative.
    pub path: String,
    /// The glob, as given.
    pub pattern: String,
    /// Workspace-relative paths, in tree order.
    pub files: Vec<String>,
    /// Whether `max_results` cut the list.
    pub truncated: bool,
    /// When truncated: how to see more.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub hint: Option<String>,
    /// Ignore files not read (a symlink, FIFO, device, or above 1 MiB), whose rules were therefore
    /// not applied; absent when every ignore file met was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<SkippedIgnoreFile>")]
    pub skipped_ignore_files: Option<Vec<SkippedIgnoreFile>>,
}

/// One matching line of `searchFiles`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchMatch {
    /// 1-based.
    pub line_number: u64,
    /// The line without its terminator (cut at 500 bytes, ending with '…').
    pub text: String,
    /// With `context_lines` only: the lines before.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub before: Option<Vec<String>>,
    /// With `context_lines` only: the lines after.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub after: Option<Vec<String>>,
}

/// The matches of one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchFileResult {
    /// Workspace-relative.
    pub file_path: String,
    pub matches: Vec<SearchMatch>,
}

/// `searchFiles`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchFilesSuccess {
    pub ok: True,
    /// The directory searched, workspace-relative.
    pub path: String,
    /// Files with matches, in path order.
    pub results: Vec<SearchFileResult>,
    /// Matching lines in all.
    pub match_count: usize,
    pub files_with_matches: usize,
    pub files_searched: usize,
    /// Whether `max_results` stopped the search.
    pub truncated: bool,
    /// When truncated: how to see more.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub hint: Option<String>,
    /// Files that could not be opened or read (skipped); absent when 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub files_unreadable: Option<usize>,
    /// Set when a line longer than 500 bytes was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "True")]
    pub long_lines_cut: Option<True>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub long_lines_hint: Option<String>,
    /// Files not searched because they are larger than `max_file_bytes`; absent when 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub files_too_large: Option<usize>,
    /// Files whose search stopped at a line longer than the line cap (4 MiB; matches before it are
    /// shown); absent when 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub files_with_overlong_lines: Option<usize>,
    /// With `files_too_large` or `files_with_overlong_lines`: what was left out and how to see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub skipped_hint: Option<String>,
    /// Ignore files not read (a symlink, FIFO, device, or above 1 MiB), whose rules were therefore
    /// not applied; absent when every ignore file met was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<SkippedIgnoreFile>")]
    pub skipped_ignore_files: Option<Vec<SkippedIgnoreFile>>,
}

/// One file of `readManyFiles`: its view, or its own failure (with its `file_path`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ReadManyEntry {
    Read(ViewFileSuccess),
    // A failure object, as every operation returns it.
    Failed(#[schemars(with = "Box<FailureSchema>")] Value),
}

/// `readManyFiles`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadManyFilesSuccess {
    pub ok: True,
    /// One entry per requested file, in order.
    pub files: Vec<ReadManyEntry>,
    /// How many entries are failures.
    pub failed: usize,
    /// Set when the content budget of the call was spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub hint: Option<String>,
}

/// `createDirectory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CreateDirectorySuccess {
    pub ok: True,
    /// Workspace-relative.
    pub path: String,
    /// False when the directory already existed.
    pub created: bool,
}

// ---- parsers, scopes, the library's own state ---------------------------------------------------

/// A SEARCH/REPLACE block as an edit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BlockEdit {
    pub old: String,
    pub new: String,
}

/// `parseBlocks`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ParseBlocksSuccess {
    pub ok: True,
    pub edits: Vec<BlockEdit>,
}

/// `parsePathBlocks`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ParsePathBlocksSuccess {
    pub ok: True,
    /// `{path: edits}`, in order of first appearance.
    pub files: indexmap_like::OrderedMap<Vec<BlockEdit>>,
}

/// `permissionScope`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PermissionScopeSuccess {
    pub ok: True,
    /// The longest common directory (by path components) followed by `/**`, or `**`.
    pub glob: String,
    /// Every path touched, workspace-relative, sorted.
    pub paths: Vec<String>,
}

/// The part a file plays in a call.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum TouchedRole {
    File,
    Source,
    MoveTarget,
}

/// One file a call would touch, as the engine parses and resolves it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TouchedFile {
    /// The path as written in the input (the key of `base_hashes` for the multi-file operations).
    pub path: String,
    /// Workspace-relative path of the real file (symlinks resolved): what results report as file_path.
    pub display: String,
    pub exists: bool,
    #[schemars(with = "TouchedRole")]
    pub role: &'static str,
    /// For patches, diffs and blocks: the 0-based operation.
    pub op_index: Option<usize>,
    /// Hash of the file on disk now (null when missing or unreadable within max_file_bytes).
    pub file_hash: Option<String>,
}

/// `touchedFiles`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TouchedFilesSuccess {
    pub ok: True,
    pub targets: Vec<TouchedFile>,
}

/// A failure code and what to do about it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeInfo {
    /// The stable code, e.g. `"STALE_FILE"`.
    #[schemars(with = "crate::error::Code")]
    pub code: &'static str,
    /// One sentence: what the caller should do about it.
    pub remedy: &'static str,
}

/// `errorCodes`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodesSuccess {
    pub ok: True,
    /// Every failure code, in declaration order.
    pub codes: Vec<CodeInfo>,
}

/// `setEventLog`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SetEventLogSuccess {
    pub ok: True,
}

/// Counters of one entry point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OpStats {
    pub calls: u64,
    pub ok: u64,
    pub failed: u64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

/// `getStats`: counters since start, or since the last `{reset: true}`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Stats {
    pub ok: True,
    /// Epoch milliseconds when counting started.
    pub since_ms: u64,
    /// Per entry point (`patch_file`, `apply_edits`, …).
    pub ops: std::collections::BTreeMap<String, OpStats>,
    /// Failures by code.
    pub failures_by_code: std::collections::BTreeMap<String, u64>,
    /// Successes by tier.
    pub successes_by_tier: std::collections::BTreeMap<String, u64>,
    /// Successful calls that needed each dialect liberty.
    pub successes_by_dialect: std::collections::BTreeMap<String, u64>,
    /// Failures on a file before its next successful change, averaged over successes.
    pub retries_per_success: f64,
    /// Successful calls by lines added + removed: "0", "1", "2-5", "6-20", "21-100", "101+".
    #[schemars(with = "std::collections::BTreeMap<String, u64>")]
    pub changed_lines_histogram: indexmap_like::OrderedMap<u64>,
    pub transactions_rolled_back: u64,
    pub undos: u64,
    pub syntax_refusals: u64,
    pub stuck_loops_detected: u64,
}

/// A JSON object with string keys in insertion order.
pub mod indexmap_like {
    use schemars::{JsonSchema, Schema, SchemaGenerator};
    use serde::Serialize;
    use std::borrow::Cow;

    /// `{key: T}` in insertion order.
    #[derive(Debug, Clone, Default)]
    pub struct OrderedMap<T>(pub Vec<(String, T)>);

    impl<T: Serialize> Serialize for OrderedMap<T> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }

    impl<T: JsonSchema> JsonSchema for OrderedMap<T> {
        fn inline_schema() -> bool {
            true
        }
        fn schema_name() -> Cow<'static, str> {
            format!("Map_of_{}", T::schema_name()).into()
        }
        fn json_schema(g: &mut SchemaGenerator) -> Schema {
            <std::collections::BTreeMap<String, T>>::json_schema(g)
        }
    }
}

/// Every failure code, inline in the failure's schema (`ErrorCode` in index.d.ts).
impl JsonSchema for crate::error::Code {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let codes: Vec<&str> = crate::error::Code::ALL.iter().map(|c| c.as_str()).collect();
        json_schema!({ "type": "string", "enum": codes })
    }
}

// ---- candidates of a failure that names symbols -------------------------------------------------

/// What kind of symbol.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum SymbolKind {
    Class,
    Struct,
    Enum,
    Interface,
    Trait,
    Impl,
    Type,
    Namespace,
    Function,
    Method,
    Constant,
    Key,
}

/// A symbol offered with `SYMBOL_NOT_FOUND` / `SYMBOL_AMBIGUOUS`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SymbolCandidate {
    /// Sent back verbatim, names exactly this symbol.
    pub name_path: String,
    #[schemars(with = "SymbolKind")]
    pub kind: &'static str,
    pub start_line: usize,
    pub end_line: usize,
}

/// A candidate of a failure: a region like the search text, or a symbol.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum AnyCandidate {
    Region(Candidate),
    Symbol(SymbolCandidate),
}
