//! The receipts of the symbol operations (`listSymbols`, `editSymbol`; see
//! [`crate::syntax::symbols`]), as [`super::receipts`] declares the others; their arguments are in
//! [`super::inputs`].

use schemars::JsonSchema;
use serde::Serialize;

use super::receipts::*;
use crate::syntax::SyntaxReport;

// ---- symbols (listSymbols, editSymbol) ------------------------------------------------------------

/// One symbol of an outline, with its children (the symbols declared inside it).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutlineSymbol {
    /// Its canonical name path: `Class/method`, with `[i]` when several symbols share the path.
    /// Sent back verbatim to editSymbol, it names exactly this symbol.
    pub name_path: String,
    #[schemars(with = "SymbolKind")]
    pub kind: &'static str,
    /// 1-based first line of the symbol's whole span (comments above and decorators included): the
    /// lines editSymbol replaces.
    pub start_line: usize,
    /// 1-based last line of the span.
    pub end_line: usize,
    pub children: Vec<OutlineSymbol>,
}

/// `listSymbols`: a file's outline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListSymbolsSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// The grammar used (`javascript`, `typescript`, `tsx`, `python`, `rust`, `go`, `json`, `c`,
    /// `cpp`, `java`).
    pub language: &'static str,
    /// The top-level symbols, each with its children.
    pub symbols: Vec<OutlineSymbol>,
    /// How many symbols there are at all levels.
    pub symbol_count: usize,
    /// The compact form: one line per symbol, `name_path (kind, lines)`, indented two spaces per level.
    pub outline: String,
    /// How many lines the file has.
    pub total_lines: usize,
    /// Hash of the file's bytes: pass as `base_hash` to a later edit.
    pub file_hash: String,
}

/// `editSymbol`: one symbol replaced, deleted, or code inserted next to it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EditSymbolSuccess {
    pub ok: True,
    /// Workspace-relative path of the file.
    pub file_path: String,
    /// The canonical name path of the symbol the call addressed (before the edit).
    pub name_path: String,
    #[schemars(with = "SymbolKind")]
    pub kind: &'static str,
    /// `replace`, `insert_before`, `insert_after` or `delete`.
    pub action: &'static str,
    /// 1-based lines of the new or replaced text in the new file (for a delete: the line where the
    /// symbol was, `end_line = start_line - 1`).
    pub start_line: usize,
    pub end_line: usize,
    /// For replace: parts of the old symbol its new text leaves out, now gone (`the comment above
    /// it`, a decorator or attribute line, a modifier such as `export` or `pub`); empty otherwise.
    pub dropped: Vec<String>,
    /// Set when `dropped` is not empty: says what was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
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
    /// The syntax gate's report: it runs on every symbol edit (`validate: "enforce"` refuses an edit
    /// that introduces a parse error; otherwise it is reported here).
    #[schemars(with = "SyntaxReportSchema")]
    pub syntax: SyntaxReport,
    #[serde(flatten)]
    pub journal: JournalFields,
}
