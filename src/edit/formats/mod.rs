//! Parsers from model output to the [`crate::edit::ir`] types. Pure functions: no I/O, no file system, no
//! matching against file contents.
//!
//! | format | entry point | produces |
//! |---|---|---|
//! | SEARCH/REPLACE blocks | [`parse_blocks`], [`parse_path_blocks`] | [`Edit`](crate::edit::ir::Edit)s |
//! | OpenAI Codex `apply_patch` envelopes | [`parse_patch`] | [`FileOp`](crate::edit::ir::FileOp)s with hunks |
//! | unified diffs (plain and git) | [`parse_unified_diff`] | [`FileOp`](crate::edit::ir::FileOp)s with hunks |
//!
//! Each module's documentation is the full grammar of its format. Conventions shared by all three:
//!
//! - **Lines.** Input is split on LF. A CR right before the LF belongs to the terminator, so CRLF input
//!   parses exactly like LF input and every string in the IR uses LF (or no terminator at all, for
//!   hunk lines). A last line without a terminator is still a line; a lone CR is not a terminator.
//!   One UTF-8 byte-order mark at the very start of the input is ignored.
//! - **Errors.** A [`ParseError`](crate::edit::ir::ParseError) carries the 1-based line of the *original*
//!   input (wrappers such as heredocs or fences are stripped without renumbering) and a message that
//!   says what was found and what was expected. An error about the end of the input names the last
//!   line (line 1 for empty input). Parsing stops at the first error.
//! - **Cost.** Parsing is linear in the input. Lines are borrowed from the input; only the strings the
//!   IR holds are allocated.

use crate::edit::ir::{Change, FileOp, Hunk, HunkLine, ParseError, Parsed};

pub mod apply_patch;
pub mod search_replace;
pub mod unescape;
pub mod unified_diff;

pub use apply_patch::{parse_patch, parse_patch_dialect};
pub use search_replace::{
    parse_blocks, parse_blocks_dialect, parse_path_blocks, parse_path_blocks_dialect,
};
pub use unified_diff::{parse_unified_diff, parse_unified_diff_dialect};

/// Splits `text` into lines as described in the module documentation. Line `n` (1-based) of the
/// input is element `n - 1`.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// The text to parse when a model escaped it once too often: when the line holding the first
/// `marker` and everything after it hold no real line break but do hold literal `\n` escapes, that
/// stretch is unescaped once (`\n`, `\r`, `\t`, `\"`, `\'`, `\\`; any other backslash is kept) and
/// the result returned. `None` when the text is to be parsed as it is.
pub(crate) fn unescape_one_line(text: &str, marker: &str) -> Option<(String, usize)> {
    let body = text.trim_end();
    let at = body.find(marker)?;
    let from = body[..at].rfind('\n').map_or(0, |i| i + 1);
    let tail = &body[from..];
    if tail.contains('\n') || !tail.contains("\\n") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&body[..from]);
    out.push_str(&unescape_once(tail));
    out.push('\n');
    // Every line of the unescaped stretch comes from this one line of the input.
    let line = body[..from].matches('\n').count() + 1;
    Some((out, line))
}

/// Line numbers of a parse over an unescaped text, as lines of the input: every line past the
/// escaped one is that line (`at`, see [`unescape_one_line`]).
pub(crate) fn input_lines(
    mut r: Result<Parsed, ParseError>,
    at: Option<usize>,
) -> Result<Parsed, ParseError> {
    let Some(at) = at else { return r };
    match &mut r {
        Err(e) => e.line = e.line.min(at),
        Ok(p) => {
            for op in &mut p.ops {
                if let FileOp::Update {
                    change: Change::Hunks(hunks),
                    ..
                } = op
                {
                    for h in hunks {
                        h.source_line = h.source_line.min(at);
                    }
                }
            }
        }
    }
    r
}

/// `s` with one level of escapes removed: `\n`, `\r`, `\t`, `\"`, `\'` and `\\` become the characters
/// they stand for; any other backslash is kept.
pub fn unescape_once(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some(q @ ('"' | '\'' | '\\')) => out.push(q),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A path as a model wrote it, cleaned: surrounding whitespace, one pair of backticks, quotes or
/// `**` removed, and a leading `./` dropped. Returns the path, its other spellings to try when it
/// names no file (`a/x` and `b/x` → `x`), and whether anything was removed.
pub fn clean_path(raw: &str) -> (String, Vec<String>, bool) {
    let mut p = raw.trim();
    let mut decorated = false;
    for (open, close) in [("**", "**"), ("`", "`"), ("\"", "\""), ("'", "'")] {
        if p.len() > open.len() + close.len() && p.starts_with(open) && p.ends_with(close) {
            p = p[open.len()..p.len() - close.len()].trim();
            decorated = true;
        }
    }
    while let Some(rest) = p.strip_prefix("./") {
        if rest.is_empty() {
            break;
        }
        p = rest;
        decorated = true;
    }
    let mut alternatives = Vec::new();
    for prefix in ["a/", "b/"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            if !rest.is_empty() {
                alternatives.push(rest.to_string());
            }
        }
    }
    (p.to_string(), alternatives, decorated)
}

/// Reads a unified-diff range after `@@ `: `-l[,c] +l[,c] @@ rest` (the closing `@@` may be
/// missing). Returns the old-side line number and what follows the closing `@@`.
pub(crate) fn unified_range(text: &str) -> Option<(usize, &str)> {
    let rest = text.strip_prefix('-')?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits == 0 {
        return None;
    }
    let line: usize = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    let rest = match rest.strip_prefix(',') {
        Some(r) => r.trim_start_matches(|c: char| c.is_ascii_digit()),
        None => rest,
    };
    let rest = rest.trim_start().strip_prefix('+')?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',');
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("@@").unwrap_or(rest);
    Some((line, rest))
}

/// The other reading of a hunk body in which some context lines came without their ` ` prefix:
/// the context lines at `spaced` (read from a ` ` prefix) keep that space as part of their text.
/// `None` when no line reads differently.
pub(crate) fn alt_reading(lines: &[HunkLine], spaced: &[usize]) -> Option<Vec<HunkLine>> {
    if spaced.is_empty() {
        return None;
    }
    let mut alt = lines.to_vec();
    for &i in spaced {
        if let Some(HunkLine::Context(t)) = alt.get_mut(i) {
            t.insert(0, ' ');
        }
    }
    Some(alt)
}

/// Whether the hunks of a later section for a file may have been written against the text an earlier
/// section's hunks produce: a context or removed line of `later` is a line `earlier` adds (lines
/// without a letter or digit, such as `}` or blank ones, do not count). Such sections are two steps,
/// not one operation, and are not merged (read as one, the later hunk could land on another copy).
pub(crate) fn builds_on(earlier: &[Hunk], later: &[Hunk]) -> bool {
    let telling = |l: &str| l.chars().any(char::is_alphanumeric);
    let added: std::collections::HashSet<&str> = earlier
        .iter()
        .flat_map(|h| &h.lines)
        .filter_map(|l| match l {
            HunkLine::Add(t) if telling(t) => Some(t.trim()),
            _ => None,
        })
        .collect();
    later
        .iter()
        .flat_map(|h| h.old_lines())
        .any(|l| added.contains(l.trim()))
}

/// A line as shown inside an error message: backquoted, cut to 60 characters.
pub(crate) fn shown(line: &str) -> String {
    const MAX: usize = 60;
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}…`", &line[..cut]),
        None => format!("`{line}`"),
    }
}

/// Lines joined with LF, each one terminated (so the result is empty or ends with LF).
pub(crate) fn join_lines(lines: &[&str]) -> String {
    let len: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut out = String::with_capacity(len);
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Helpers shared by the parsers' unit tests.
#[cfg(test)]
pub(crate) mod test_util {
    use crate::edit::ir::{Change, FileOp, Hunk, HunkLine};

    pub fn hunks(op: &FileOp) -> &[Hunk] {
        match op {
            FileOp::Update {
                change: Change::Hunks(h),
                ..
            } => h,
            other => panic!("not an update with hunks: {other:?}"),
        }
    }

    pub fn ctx(s: &str) -> HunkLine {
        HunkLine::Context(s.into())
    }

    pub fn rm(s: &str) -> HunkLine {
        HunkLine::Remove(s.into())
    }

    pub fn add(s: &str) -> HunkLine {
        HunkLine::Add(s.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_lines_handles_terminators() {
        assert!(split_lines("").is_empty());
        assert_eq!(split_lines("\n"), vec![""]);
        assert_eq!(split_lines("a"), vec!["a"]);
        assert_eq!(split_lines("a\nb\n"), vec!["a", "b"]);
        assert_eq!(split_lines("a\r\nb\r\n\r\n"), vec!["a", "b", ""]);
        assert_eq!(split_lines("a\rb"), vec!["a\rb"]);
        assert_eq!(split_lines("\u{feff}a\nb"), vec!["a", "b"]);
        assert_eq!(split_lines("a\n\nb"), vec!["a", "", "b"]);
    }

    #[test]
    fn shown_truncates_on_char_boundary() {
        assert_eq!(shown("abc"), "`abc`");
        let long = "é".repeat(100);
        let s = shown(&long);
        assert!(s.ends_with("…`"));
        assert_eq!(s.chars().filter(|c| *c == 'é').count(), 60);
    }

    #[test]
    fn join_lines_terminates_each_line() {
        assert_eq!(join_lines(&[]), "");
        assert_eq!(join_lines(&[""]), "\n");
        assert_eq!(join_lines(&["a", "b"]), "a\nb\n");
    }
}
