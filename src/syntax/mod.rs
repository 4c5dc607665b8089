//! The syntax gate: does an edit *introduce* a syntax error?
//!
//! [`check`] parses the text before and after an edit with a tree-sitter grammar chosen by the file's
//! extension ([`language_for`]) and reports the ERROR and MISSING nodes of the result that the original
//! did not already have at the same place. A file that was broken elsewhere can still be edited, and an
//! edit that repairs an error is simply `ok`.
//!
//! "At the same place": each error of the new tree is mapped back to the old text through the change
//! spans (a position inside a changed span maps to the whole old span, a position after it shifts by the
//! size delta). It is *pre-existing* when its mapped range touches an error of the old tree and every
//! change it covers was itself made on a line the old tree already reported broken. The second half
//! catches an error that grows from an old one to swallow a fresh mistake elsewhere. Whether tree-sitter
//! calls a defect ERROR or MISSING can flip when nearby text changes, so the kind is not compared.
//!
//! An edit that unbalances a bracket is often reported far away, at the end of the file: that position
//! maps to the old end of file, where a clean original had no error, so it counts as new; [`message`]
//! then names the edited lines too.
//!
//! Speed: a full parse runs at a few MB/s (about 70 ms of CPU for a 10,000-line, 285 KB JavaScript
//! file), far above what a gate on every edit may cost, so the engine keeps the trees it parsed in a
//! small process-wide cache keyed by language and content hash. An edit of a text whose tree is cached
//! re-parses only what changed (tree-sitter's incremental parse, about 1–2 ms), and every check leaves
//! the tree of its result there, so a run of edits on one file pays for one full parse; [`warm`] lets
//! the caller pay it when a file is read. Without a cached tree a check costs one full parse (of the
//! result; the original is then re-parsed incrementally from it, and only when the result has errors).
//! The cache changes only speed: no I/O, and the same inputs give the same report.
//!
//! Caps: files above [`MAX_BYTES`] (before or after) are skipped as `"too_large"`; parsing that takes
//! longer than [`PARSE_BUDGET`] in all is abandoned and skipped as `"timeout"` (tree-sitter is linear in
//! practice, so this only guards against pathological input or a starved machine). At most [`MAX_REPORTED`] new errors are
//! listed. Languages are compiled in by cargo features (`syntax-javascript`, …, umbrella `syntax`, all
//! on by default); without a grammar's feature its extensions are an unknown language.

// Without any grammar compiled in, the comparison code is unused (every extension is unknown).
#![cfg_attr(not(grammar), allow(dead_code))]

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::time::Duration;

use crate::edit::text::LineTable;

#[cfg(grammar)]
mod engine;

#[cfg(grammar)]
pub mod symbols;

#[cfg(all(test, feature = "syntax"))]
mod tests;

/// Holds in every feature set: a grammar left out makes its extensions unknown.
#[cfg(test)]
#[test]
fn extensions_follow_the_features() {
    let table = [
        ("a.js", "javascript", cfg!(feature = "syntax-javascript")),
        ("a.ts", "typescript", cfg!(feature = "syntax-typescript")),
        ("a.tsx", "tsx", cfg!(feature = "syntax-typescript")),
        ("a.py", "python", cfg!(feature = "syntax-python")),
        ("a.rs", "rust", cfg!(feature = "syntax-rust")),
        ("a.go", "go", cfg!(feature = "syntax-go")),
        ("a.json", "json", cfg!(feature = "syntax-json")),
        ("a.c", "c", cfg!(feature = "syntax-c")),
        ("a.cpp", "cpp", cfg!(feature = "syntax-cpp")),
        ("a.java", "java", cfg!(feature = "syntax-java")),
    ];
    for (path, language, on) in table {
        assert_eq!(language_for(path), on.then_some(language), "{path}");
        let r = check(path, "", "(", &[]);
        if on {
            assert_eq!(r.skipped, None, "{path}");
            assert!(!r.ok, "{path}");
        } else {
            assert_eq!(r.skipped, Some(SKIPPED_UNKNOWN_LANGUAGE), "{path}");
            assert!(r.ok);
        }
    }
}

/// Files larger than this (before or after the edit, in UTF-8 bytes) are not parsed: the report is
/// `{language, skipped: "too_large"}` and the edit proceeds. 2 MiB is about seven times a 10,000-line
/// source file; a full parse of that much code costs about half a second of CPU (JavaScript, the
/// slowest grammar measured), the most a gate that runs on every edit should spend. Larger files are
/// almost always generated code or data.
pub const MAX_BYTES: usize = 2 * 1024 * 1024;

/// Wall-clock budget for all parsing done by one [`check`]; beyond it the check is skipped as
/// `"timeout"` and the edit proceeds.
pub const PARSE_BUDGET: Duration = Duration::from_secs(2);

/// At most this many new errors are listed in a report (`ok` stays false if there were more).
pub const MAX_REPORTED: usize = 10;

/// Why a file was not checked.
pub const SKIPPED_UNKNOWN_LANGUAGE: &str = "unknown_language";
pub const SKIPPED_TOO_LARGE: &str = "too_large";
pub const SKIPPED_TIMEOUT: &str = "timeout";

/// The result of [`check`].
///
/// Serializes as `{language, ok, new_errors}` when the file was checked, or `{language, skipped}`
/// when it was not (`language` is `null` for an unknown extension, and names the language for
/// `"too_large"` and `"timeout"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxReport {
    /// The grammar used (see [`language_for`]), `None` for an unknown extension.
    pub language: Option<&'static str>,
    /// True when the edit introduced no syntax error (always true when skipped).
    pub ok: bool,
    /// The new errors, in file order, at most [`MAX_REPORTED`].
    pub new_errors: Vec<SyntaxError>,
    /// Set when the file was not checked: `"unknown_language"`, `"too_large"` or `"timeout"`.
    pub skipped: Option<&'static str>,
}

/// One error the edit introduced, positioned in the text *after* the edit. An ERROR node that covers
/// a change is shown at the first character the edit changed inside it (tree-sitter often starts the
/// node lines earlier, at the enclosing block); other errors at their start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters (Unicode scalar values) from the start of the line.
    pub column: usize,
    /// The line's text (trailing whitespace removed, cut to 160 characters).
    pub snippet: String,
    /// `"error"` (text the grammar could not fit) or `"missing"` (a token the parser had to invent).
    pub kind: &'static str,
    /// For `"missing"`: the token or node kind that was expected, e.g. `")"` or `"identifier"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

impl SyntaxReport {
    fn skipped(language: Option<&'static str>, why: &'static str) -> Self {
        SyntaxReport {
            language,
            ok: true,
            new_errors: Vec::new(),
            skipped: Some(why),
        }
    }
}

impl Serialize for SyntaxReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("language", &self.language)?;
        match self.skipped {
            Some(why) => m.serialize_entry("skipped", why)?,
            None => {
                m.serialize_entry("ok", &self.ok)?;
                m.serialize_entry("new_errors", &self.new_errors)?;
            }
        }
        m.end()
    }
}

/// Extensions (lower-case, without the dot) of each language, in the order they are looked up.
/// `.h` goes to C++: its grammar also parses C, while C++ headers read as C would refuse good edits.
const LANGUAGES: &[(&str, &[&str])] = &[
    ("javascript", &["js", "mjs", "cjs", "jsx"]),
    ("typescript", &["ts", "mts", "cts"]),
    ("tsx", &["tsx"]),
    ("python", &["py", "pyi", "pyw"]),
    ("rust", &["rs"]),
    ("go", &["go"]),
    ("json", &["json"]),
    ("c", &["c"]),
    (
        "cpp",
        &[
            "cc", "cpp", "cxx", "c++", "h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tpp",
        ],
    ),
    ("java", &["java"]),
];

/// Whether the grammar for `language` is compiled in.
// With every feature on, each arm is `true` and clippy would fold the match into `matches!`.
#[allow(clippy::match_like_matches_macro)]
fn compiled_in(language: &str) -> bool {
    match language {
        "javascript" => cfg!(feature = "syntax-javascript"),
        "typescript" | "tsx" => cfg!(feature = "syntax-typescript"),
        "python" => cfg!(feature = "syntax-python"),
        "rust" => cfg!(feature = "syntax-rust"),
        "go" => cfg!(feature = "syntax-go"),
        "json" => cfg!(feature = "syntax-json"),
        "c" => cfg!(feature = "syntax-c"),
        "cpp" => cfg!(feature = "syntax-cpp"),
        "java" => cfg!(feature = "syntax-java"),
        _ => false,
    }
}

/// The language the gate uses for `path`, by extension (case-insensitive), or `None` when the
/// extension is unknown or its grammar's cargo feature is off.
///
/// Names: `javascript` (`.js .mjs .cjs .jsx`), `typescript` (`.ts .mts .cts`), `tsx`, `python`
/// (`.py .pyi .pyw`), `rust`, `go`, `json`, `c` (`.c`), `cpp` (`.cc .cpp .cxx .c++ .h .hh .hpp .hxx
/// .h++ .inl .ipp .tpp`), `java`.
pub fn language_for(path: &str) -> Option<&'static str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        // A dotfile such as `.json` has no extension.
        return None;
    }
    let ext = ext.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|(_, exts)| exts.contains(&ext.as_str()))
        .map(|(name, _)| *name)
        .filter(|name| compiled_in(name))
}

/// Every language name compiled into this build.
pub fn languages() -> Vec<&'static str> {
    LANGUAGES
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| compiled_in(name))
        .collect()
}

/// Checks whether replacing `before` by `after` introduces a syntax error in `path`'s language.
///
/// `changes` are `(old_start, old_end, new_start, new_end)` byte spans, sorted and disjoint, as
/// produced by [`crate::edit::apply::Applied`]'s `changes`. An empty or inconsistent list is replaced by the
/// single span between the texts' common prefix and suffix, so callers without spans can pass `&[]`.
pub fn check(
    path: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> SyntaxReport {
    check_with(path, before, after, changes, Strategy::default())
}

/// The language [`check`] would parse `path` as, or the report of a check that would not parse at all
/// (unknown language, or a text above [`MAX_BYTES`]), decided from the path and the two sizes alone.
/// Lets a caller skip building the new text of a large file just to have the gate decline it.
pub fn gate_language(
    path: &str,
    before_len: usize,
    after_len: usize,
) -> Result<&'static str, SyntaxReport> {
    let Some(language) = language_for(path) else {
        return Err(SyntaxReport::skipped(None, SKIPPED_UNKNOWN_LANGUAGE));
    };
    if before_len.max(after_len) > MAX_BYTES {
        return Err(SyntaxReport::skipped(Some(language), SKIPPED_TOO_LARGE));
    }
    Ok(language)
}

/// How [`check_with`] parses; every strategy gives the same report on the same input (up to rare
/// differences in tree-sitter's error recovery between full and incremental parses). Public for the
/// benchmark and the tests.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Re-parse incrementally from the cached tree of `before` when there is one, else as
    /// [`Strategy::AfterFirst`]; keep the trees parsed for the next check.
    #[default]
    Cached,
    /// Parse `after` fully; only if it has errors, re-parse `before` incrementally from that tree.
    /// One full parse for a clean result, one full plus one incremental otherwise.
    AfterFirst,
    /// Parse `before` fully, then `after` incrementally from the old tree.
    BeforeFirst,
    /// Parse both texts from scratch.
    Full,
}

/// Parses `text` as `path`'s language and keeps the tree, so that checking the next edit of exactly
/// this text re-parses incrementally. Returns whether a tree is now cached (false for an unknown
/// language, a text above [`MAX_BYTES`] or a parse past [`PARSE_BUDGET`]). Optional: [`check`] is
/// correct without it, only slower on the first edit of a file.
pub fn warm(path: &str, text: &str) -> bool {
    match language_for(path) {
        Some(language) if text.len() <= MAX_BYTES => warm_language(language, text),
        _ => false,
    }
}

/// Empties the tree cache (for benchmarks and tests).
#[doc(hidden)]
pub fn clear_cache() {
    #[cfg(grammar)]
    engine::clear_cache();
}

#[cfg(grammar)]
fn warm_language(language: &'static str, text: &str) -> bool {
    engine::warm(language, text, std::time::Instant::now() + PARSE_BUDGET)
}

#[cfg(not(grammar))]
fn warm_language(_language: &'static str, _text: &str) -> bool {
    false
}

#[doc(hidden)]
pub fn check_with(
    path: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
    strategy: Strategy,
) -> SyntaxReport {
    let language = match gate_language(path, before.len(), after.len()) {
        Ok(language) => language,
        Err(skipped) => return skipped,
    };
    let changes = normalize_changes(before, after, changes);
    let deadline = std::time::Instant::now() + PARSE_BUDGET;
    run(language, before, after, &changes, strategy, deadline)
}

#[cfg(grammar)]
fn run(
    language: &'static str,
    before: &str,
    after: &str,
    changes: &[Change],
    strategy: Strategy,
    deadline: std::time::Instant,
) -> SyntaxReport {
    match engine::new_errors(language, before, after, changes, strategy, deadline) {
        Some(errors) if errors.is_empty() => SyntaxReport {
            language: Some(language),
            ok: true,
            new_errors: Vec::new(),
            skipped: None,
        },
        Some(errors) => {
            let table = LineTable::new(after);
            let new_errors: Vec<SyntaxError> = errors
                .iter()
                .take(MAX_REPORTED)
                .map(|e| describe(after, &table, shown_at(e, before, after, changes), e))
                .collect();
            SyntaxReport {
                language: Some(language),
                ok: errors.is_empty(),
                new_errors,
                skipped: None,
            }
        }
        None => SyntaxReport::skipped(Some(language), SKIPPED_TIMEOUT),
    }
}

#[cfg(not(grammar))]
fn run(
    _language: &'static str,
    _before: &str,
    _after: &str,
    _changes: &[Change],
    _strategy: Strategy,
    _deadline: std::time::Instant,
) -> SyntaxReport {
    // language_for returns None when no grammar is compiled in, so this is never reached.
    SyntaxReport::skipped(None, SKIPPED_UNKNOWN_LANGUAGE)
}

/// A change span: `old` in the text before, `new` in the text after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    old_start: usize,
    old_end: usize,
    new_start: usize,
    new_end: usize,
}

/// An error node found by the engine, in bytes of the text after the edit.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RawError {
    start: usize,
    end: usize,
    missing: bool,
    /// The expected kind, for a MISSING node.
    expected: Option<String>,
}

/// Uses `changes` when they are consistent with the two texts, else the single span between their
/// common prefix and suffix (none when the texts are equal).
fn normalize_changes(
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> Vec<Change> {
    if !changes.is_empty() && consistent(before, after, changes) {
        return changes
            .iter()
            .map(|&(old_start, old_end, new_start, new_end)| Change {
                old_start,
                old_end,
                new_start,
                new_end,
            })
            .collect();
    }
    if before == after {
        return Vec::new();
    }
    let (b, a) = (before.as_bytes(), after.as_bytes());
    let mut prefix = b.iter().zip(a).take_while(|(x, y)| x == y).count();
    while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = b.len().min(a.len()) - prefix;
    let mut suffix = b
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !before.is_char_boundary(b.len() - suffix) || !after.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    vec![Change {
        old_start: prefix,
        old_end: b.len() - suffix,
        new_start: prefix,
        new_end: a.len() - suffix,
    }]
}

/// Sorted, disjoint, in bounds, and the unchanged text between spans is the same on both sides.
fn consistent(before: &str, after: &str, changes: &[(usize, usize, usize, usize)]) -> bool {
    let (mut old_pos, mut new_pos) = (0, 0);
    for &(os, oe, ns, ne) in changes {
        if os < old_pos || oe < os || ne < ns || ns < new_pos || oe > before.len() {
            return false;
        }
        if ne > after.len() || ns - new_pos != os - old_pos {
            return false;
        }
        if before.get(old_pos..os).is_none() || before.get(os..oe).is_none() {
            return false;
        }
        if after.get(new_pos..ns).is_none() || after.get(ns..ne).is_none() {
            return false;
        }
        if before.as_bytes()[old_pos..os] != after.as_bytes()[new_pos..ns] {
            return false;
        }
        old_pos = oe;
        new_pos = ne;
    }
    before.len() - old_pos == after.len() - new_pos
        && before.as_bytes()[old_pos..] == after.as_bytes()[new_pos..]
}

/// Maps a byte range of the text after the edit to the range of the text before it that it came from.
/// A position strictly inside a changed span maps to the whole old span; positions outside shift by
/// the size delta of the changes before them.
fn map_to_old(changes: &[Change], start: usize, end: usize) -> (usize, usize) {
    (map_pos(changes, start).0, map_pos(changes, end).1)
}

fn map_pos(changes: &[Change], pos: usize) -> (usize, usize) {
    let mut delta: isize = 0; // old position = new position + delta, between changes
    for c in changes {
        if pos < c.new_start {
            break;
        }
        if pos <= c.new_end {
            return if pos == c.new_start && pos == c.new_end {
                (c.old_start, c.old_end)
            } else if pos == c.new_start {
                (c.old_start, c.old_start)
            } else if pos == c.new_end {
                (c.old_end, c.old_end)
            } else {
                (c.old_start, c.old_end)
            };
        }
        delta = c.old_end as isize - c.new_end as isize;
    }
    let p = (pos as isize + delta) as usize;
    (p, p)
}

/// The errors of `new` (text after) that `old` (text before) did not have at the same place.
fn introduced(
    before: &str,
    changes: &[Change],
    old: &[RawError],
    new: Vec<RawError>,
) -> Vec<RawError> {
    if old.is_empty() {
        return new;
    }
    // Old errors widened to whole lines: a change made on a line already reported broken is an edit
    // of the broken region, not a fresh mistake.
    let lines = LineTable::new(before);
    let widened: Vec<(usize, usize)> = old
        .iter()
        .map(|e| {
            if lines.is_empty() {
                return (0, before.len());
            }
            let first = lines.index_of(e.start);
            let last = lines.index_of(e.end);
            (lines.start(first), lines.end(last))
        })
        .collect();
    let touches = |a: (usize, usize), b: (usize, usize)| a.0 <= b.1 && b.0 <= a.1;
    new.into_iter()
        .filter(|e| {
            let mapped = map_to_old(changes, e.start, e.end);
            let near_old = old.iter().any(|o| touches(mapped, (o.start, o.end)));
            if !near_old {
                return true;
            }
            let covered_changes_were_broken = changes
                .iter()
                .filter(|c| touches((e.start, e.end), (c.new_start, c.new_end)))
                .all(|c| {
                    widened
                        .iter()
                        .any(|&w| touches((c.old_start, c.old_end), w))
                });
            !covered_changes_were_broken
        })
        .collect()
}

const SNIPPET_CHARS: usize = 160;

/// Where to show an error. tree-sitter often starts an ERROR node at the enclosing block or statement,
/// lines above the actual mistake; when the node covers a change, the first character the edit
/// actually changed is a much better pointer. MISSING nodes are exact and shown where they are.
fn shown_at(e: &RawError, before: &str, after: &str, changes: &[Change]) -> usize {
    if e.missing {
        return e.start;
    }
    changes
        .iter()
        .find(|c| c.new_start <= e.end && e.start <= c.new_end)
        .map(|c| {
            let old = &before.as_bytes()[c.old_start..c.old_end];
            let new = &after.as_bytes()[c.new_start..c.new_end];
            let mut first = c.new_start + old.iter().zip(new).take_while(|(a, b)| a == b).count();
            while !after.is_char_boundary(first) {
                first -= 1;
            }
            first.clamp(e.start, e.end)
        })
        .unwrap_or(e.start)
}

fn describe(after: &str, table: &LineTable, at: usize, e: &RawError) -> SyntaxError {
    let (line, column, snippet) = if table.is_empty() {
        (1, 1, String::new())
    } else {
        let i = table.index_of(at);
        let start = table.start(i);
        let content = table.content(i, after);
        let column = after[start..at.max(start).min(table.content_end(i))]
            .chars()
            .count()
            + 1;
        (i + 1, column, cut(content.trim_end(), SNIPPET_CHARS))
    };
    SyntaxError {
        line,
        column,
        snippet,
        kind: if e.missing { "missing" } else { "error" },
        expected: e.expected.clone(),
    }
}

fn cut(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A few numbered lines of `text` around 1-based `line`, the line marked with `>` and a caret under
/// 1-based character `column`:
///
/// ```text
///    3 |   x = 1
/// >  4 |   y = (2,
///      |         ^
///    5 |   z = 3
/// ```
pub fn context(text: &str, line: usize, column: usize, radius: usize) -> String {
    let table = LineTable::new(text);
    if table.is_empty() {
        return format!("> {line:>3} | \n      | ^\n");
    }
    let target = line.clamp(1, table.len());
    let first = target.saturating_sub(radius).max(1);
    let last = (target + radius).min(table.len());
    let width = last.to_string().len().max(3);
    let mut out = String::new();
    for n in first..=last {
        let content = cut(table.content(n - 1, text).trim_end(), SNIPPET_CHARS);
        let mark = if n == target { '>' } else { ' ' };
        out.push_str(&format!("{mark} {n:>width$} | {content}\n"));
        if n == target {
            // Keep tabs so the caret lines up with the text above it.
            let pad: String = content
                .chars()
                .take(column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let short = column.saturating_sub(1).saturating_sub(pad.chars().count());
            out.push_str(&format!("  {:width$} | {pad}{}^\n", "", " ".repeat(short)));
        }
    }
    out
}

/// The message for a refused edit (`SYNTAX_ERROR_INTRODUCED`): the first new error in context, the
/// edited lines when the parser noticed the problem elsewhere, and what to do. Takes the same texts
/// and spans as [`check`]; `None` when `report` has no new error.
pub fn message(
    path: &str,
    report: &SyntaxReport,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> Option<String> {
    let first = report.new_errors.first()?;
    let changes = normalize_changes(before, after, changes);
    let language = report.language.unwrap_or("unknown");
    let what = match (first.kind, &first.expected) {
        ("missing", Some(expected)) => format!("missing \"{expected}\""),
        ("missing", None) => "a missing token".to_string(),
        _ => "text the grammar cannot parse".to_string(),
    };
    let more = match report.new_errors.len() {
        1 => String::new(),
        n if n >= MAX_REPORTED => format!(" (and at least {} more)", n - 1),
        n => format!(" (and {} more)", n - 1),
    };
    let mut msg = format!(
        "The edit would introduce a syntax error in {path} ({language}): {what} at line {}, column {}{more}. Nothing was written.\n{}",
        first.line,
        first.column,
        context(after, first.line, first.column, 2)
    );
    let table = LineTable::new(after);
    if !table.is_empty() {
        let spans: Vec<(usize, usize)> = changes
            .iter()
            .map(
                |&Change {
                     new_start: ns,
                     new_end: ne,
                     ..
                 }| {
                    let a = table.line_of(ns.min(after.len()));
                    let b = table.line_of(ne.saturating_sub(1).max(ns).min(after.len()));
                    (a, b)
                },
            )
            .collect();
        let inside = spans.iter().any(|&(a, b)| (a..=b).contains(&first.line));
        if !spans.is_empty() && !inside {
            let list: Vec<String> = spans
                .iter()
                .map(|&(a, b)| {
                    if a == b {
                        a.to_string()
                    } else {
                        format!("{a}-{b}")
                    }
                })
                .collect();
            msg.push_str(&format!(
                "The edit changed line(s) {}; the parser only noticed the problem here, which usually means the edit left a bracket, quote or block unbalanced.\n",
                list.join(", ")
            ));
        }
    }
    msg.push_str("Fix the edit so the file still parses (errors the file already had elsewhere are not counted); if the break is intended, the caller can switch the gate to validate: \"report\".");
    Some(msg)
}
