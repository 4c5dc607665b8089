//! The edit IR: what every input format (plain edits, SEARCH/REPLACE blocks, `apply_patch` envelopes,
//! unified diffs) is compiled into before anything is matched or written.
//!
//! ```
//! use surepatch::edit::ir::{Edit, FileOp, Change};
//! let op = FileOp::Update {
//!     path: "src/app.py".into(),
//!     move_to: None,
//!     change: Change::Edits(vec![Edit::new("retries = 2", "retries = 3")]),
//! };
//! assert_eq!(op.path(), "src/app.py");
//! ```

/// Replace `old` with `new`. `old` is matched against the original text of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub old: String,
    pub new: String,
    /// When set, exactly this many occurrences of `old` are replaced; any other count is refused.
    pub expected_replacements: Option<usize>,
}

impl Edit {
    pub fn new(old: impl Into<String>, new: impl Into<String>) -> Self {
        Edit {
            old: old.into(),
            new: new.into(),
            expected_replacements: None,
        }
    }
}

/// One line of a hunk body. The text excludes the line terminator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// ` ` line: must match the file; the file's own bytes are kept.
    Context(String),
    /// `-` line: must match the file; removed.
    Remove(String),
    /// `+` line: inserted.
    Add(String),
}

/// A line-oriented change (an `apply_patch` chunk or a unified-diff hunk).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// Scope lines from `@@ <text>` headers, outermost first. Each must be found, in order, above the
    /// hunk body; the body is then searched below the last one.
    pub anchors: Vec<String>,
    pub lines: Vec<HunkLine>,
    /// `*** End of File`: the body must match at the end of the file.
    pub at_eof: bool,
    /// 1-based old-file line where the hunk claims to start (unified diffs). A hint only.
    pub line_hint: Option<usize>,
    /// 1-based line of the hunk header in the patch text, for error messages.
    pub source_line: usize,
    /// Unified diff `\ No newline at end of file` after the old side / the new side.
    pub old_no_eol: bool,
    pub new_no_eol: bool,
    /// When some context lines came without their ` ` prefix, the lines read the other way: each
    /// context line written with a leading space kept whole (that space was the file's, not a
    /// prefix). Tried only when `lines` matches nowhere.
    pub alt_lines: Option<Vec<HunkLine>>,
}

impl Hunk {
    /// The lines the file must contain (context and removed), in order.
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Remove(s) => Some(s.as_str()),
                HunkLine::Add(_) => None,
            })
            .collect()
    }

    /// For each line of [`Hunk::new_lines`], the index in [`Hunk::old_lines`] of the line it is a
    /// context copy of; `None` for an added line.
    pub fn kept_lines(&self) -> Vec<Option<usize>> {
        let mut j = 0;
        let mut out = Vec::with_capacity(self.lines.len());
        for l in &self.lines {
            match l {
                HunkLine::Context(_) => {
                    out.push(Some(j));
                    j += 1;
                }
                HunkLine::Remove(_) => j += 1,
                HunkLine::Add(_) => out.push(None),
            }
        }
        out
    }

    /// The lines the region holds afterwards (context and added), in order.
    pub fn new_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Add(s) => Some(s.as_str()),
                HunkLine::Remove(_) => None,
            })
            .collect()
    }
}

/// How an existing file changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Edits(Vec<Edit>),
    Hunks(Vec<Hunk>),
}

/// One operation on one file. Paths are as the caller wrote them (workspace-relative or absolute);
/// the workspace layer resolves and checks them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create a file with this content (LF line endings; the writer applies none of its own).
    Add { path: String, content: String },
    Delete {
        path: String,
        /// The content the patch shows being deleted (the `-` lines of a unified diff to
        /// `/dev/null`, LF-joined), checked against the file before it is deleted; `None` when the
        /// patch shows none (`*** Delete File`, a git `deleted file mode` header alone).
        expect: Option<String>,
    },
    Update {
        path: String,
        move_to: Option<String>,
        change: Change,
    },
}

impl FileOp {
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. }
            | FileOp::Delete { path, .. }
            | FileOp::Update { path, .. } => path,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            FileOp::Add { .. } => "add",
            FileOp::Delete { .. } => "delete",
            FileOp::Update {
                move_to: Some(_), ..
            } => "move",
            FileOp::Update { .. } => "update",
        }
    }
}

/// A malformed patch: what is wrong, and the 1-based line of the input where it was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A liberty a parser or an applier took with the textbook grammar of a format: the input was read
/// anyway, and the edit still had to match its file by content alone. Receipts list them as
/// `dialect: [...]` (string forms below, in alphabetical order), so a harness can see which
/// spellings its model uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dialect {
    /// `*** Add File:` content whose lines (some or all) came without their `+`.
    AddPrefixMissing,
    /// An `@@` scope line that is not a line of the file (or not above the content), ignored because
    /// the content alone was unique.
    AnchorIgnored,
    /// An `@@` scope line that occurs several times in the file; the content decided.
    AnchorRepeated,
    /// SEARCH/REPLACE blocks applied in turn, each to the text the blocks before it left: a block's
    /// SEARCH was found only in an earlier block's output.
    BlocksInTurn,
    /// A chunk body line with no ` `/`-`/`+` prefix, read as context.
    ContextPrefixMissing,
    /// `applyEdits` edits applied in turn, each to the text the edits before it left: an edit's `old`
    /// was found only in an earlier edit's `new` (a list of edits as Claude Code's MultiEdit defines it).
    EditsInTurn,
    /// A file header written without its space (`---a/x`), or whose names are another spelling of
    /// the file (`x.orig`, `x (original)`, `old/x`).
    HeaderVariant,
    /// A unified-diff hunk header without line numbers (`@@`, `@@ ... @@`), or counts that disagree
    /// with the body: the counts were recomputed from the body.
    HunkCounts,
    /// A hunk found above the previous one (the patch was not in file order), placed where it
    /// belongs: its content was unique in the whole file and clear of every other hunk.
    HunksReordered,
    /// A SEARCH/REPLACE marker of another length or spelling (`<<< SEARCH`, `------- SEARCH`,
    /// `+++++++ REPLACE`, `<<<<<<< SEARCH>`).
    MarkerVariant,
    /// `*** Begin Patch` was missing: the text started with an operation (`*** Update File:`, …).
    NoBeginMarker,
    /// `*** End Patch` was missing at the end of the text.
    NoEndMarker,
    /// A path written with decoration: `a/`/`b/` prefixes, `./`, backticks, quotes, bold, a `:`.
    PathDecorated,
    /// The file was not named usably by the text; the caller's `file_path` was used.
    PathFallback,
    /// Prose before `*** Begin Patch` or after `*** End Patch`, passed over.
    ProseAround,
    /// A file changed by two sections (`*** Update File:` twice, or two `---`/`+++` sections): their
    /// chunks were read as one operation's, in order.
    SectionsMerged,
    /// The whole patch (or an edit's `old`) came on one line with literal `\n` escapes, and was
    /// unescaped once.
    Unescaped,
    /// An `@@ -l,c +l,c @@` unified-diff header inside an `apply_patch` envelope, read as a chunk
    /// header with a line hint.
    UnifiedHeader,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Unescaped => "unescaped",
            Dialect::NoBeginMarker => "no_begin_marker",
            Dialect::NoEndMarker => "no_end_marker",
            Dialect::UnifiedHeader => "unified_header",
            Dialect::ContextPrefixMissing => "context_prefix_missing",
            Dialect::AddPrefixMissing => "add_prefix_missing",
            Dialect::AnchorIgnored => "anchor_ignored",
            Dialect::BlocksInTurn => "blocks_in_turn",
            Dialect::EditsInTurn => "edits_in_turn",
            Dialect::AnchorRepeated => "anchor_repeated",
            Dialect::HunkCounts => "hunk_counts",
            Dialect::HunksReordered => "hunks_reordered",
            Dialect::HeaderVariant => "header_variant",
            Dialect::PathDecorated => "path_decorated",
            Dialect::PathFallback => "path_fallback",
            Dialect::ProseAround => "prose_around",
            Dialect::SectionsMerged => "sections_merged",
            Dialect::MarkerVariant => "marker_variant",
        }
    }
}

/// What a parser read: the operations, the liberties it took (sorted, each once), and for each
/// operation the other spellings its path may stand for (tried in order when the path as written
/// names no file; `a/x` → `x`, `x.orig` → `x`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub ops: Vec<FileOp>,
    pub dialect: Vec<Dialect>,
    pub alternatives: Vec<Vec<String>>,
}

impl Parsed {
    /// Records a liberty (kept sorted and unique).
    pub fn note(&mut self, d: Dialect) {
        note(&mut self.dialect, d);
    }
}

/// Adds `d` to a sorted list of liberties, once.
pub fn note(dialect: &mut Vec<Dialect>, d: Dialect) {
    if let Err(at) = dialect.binary_search(&d) {
        dialect.insert(at, d);
    }
}

/// The string forms of `dialect`, for receipts.
pub fn dialect_names(dialect: &[Dialect]) -> Vec<&'static str> {
    dialect.iter().map(|d| d.as_str()).collect()
}
