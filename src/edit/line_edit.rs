//! Line-anchored edits (`editLines`), pure: no I/O. A view in the hashline format shows each line as
//! `N:tag|text` ([`push_line`]); an op names lines by those anchors. [`check_anchors`] refuses the
//! whole batch (`STALE_ANCHOR`) when an anchor no longer names the line it was taken from, and
//! [`splice`] applies every op in one pass over the original numbering (`OVERLAPPING_EDITS` when two
//! ops touch the same line or insert at one place). Reading ops from JSON is the API's part
//! (`api::lines`).

use serde_json::{json, Value};

use crate::edit::endings::{breaks_for, detect_line_ending, LineEnding};
use crate::edit::hash::line_tag;
use crate::edit::text::LineTable;
use crate::error::{Code, Failure, Result};

/// Lines of context shown around a stale anchor.
const FRESH_CONTEXT: usize = 2;

/// How a view prefixes its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Plain,
    Numbered,
    Hashline,
}

/// Appends line `n` (1-based) with its prefix, without a terminator.
pub fn push_line(out: &mut String, format: Format, n: usize, content: &str) {
    use std::fmt::Write;
    match format {
        Format::Plain => {}
        Format::Numbered => {
            let _ = write!(out, "{n:6}\t");
        }
        Format::Hashline => {
            let _ = write!(out, "{n}:{}|", line_tag(content));
        }
    }
    out.push_str(content);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Replace,
    InsertBefore,
    InsertAfter,
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub line: usize,
    pub tag: String,
}

#[derive(Debug)]
pub struct LineOp {
    pub kind: Kind,
    pub start: Anchor,
    pub end: Option<Anchor>,
    pub lines: Vec<String>,
}

pub fn op_name(k: Kind) -> &'static str {
    match k {
        Kind::Replace => "replace",
        Kind::InsertBefore => "insert_before",
        Kind::InsertAfter => "insert_after",
        Kind::Delete => "delete",
    }
}

/// The anchors that no longer name the line they were taken from, as a `STALE_ANCHOR` failure.
pub fn check_anchors(ops: &[LineOp], text: &str, lt: &LineTable) -> Result<()> {
    let mut stale: Vec<(usize, &str, Option<String>)> = Vec::new();
    for op in ops {
        for a in std::iter::once(&op.start).chain(op.end.as_ref()) {
            let actual = (a.line <= lt.len()).then(|| line_tag(lt.content(a.line - 1, text)));
            if actual.as_deref() != Some(a.tag.as_str())
                && !stale.iter().any(|s| s.0 == a.line && s.1 == a.tag)
            {
                stale.push((a.line, &a.tag, actual));
            }
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    stale.sort_by_key(|s| s.0);
    // Fresh lines around each stale anchor, windows merged.
    let mut shown: Vec<(usize, usize)> = Vec::new();
    for s in &stale {
        // A line past the end shows the file's last lines.
        let at = s.0.min(lt.len());
        let lo = at.saturating_sub(FRESH_CONTEXT).max(1);
        let hi = (s.0 + FRESH_CONTEXT).min(lt.len());
        if lo > hi {
            continue;
        }
        match shown.last_mut() {
            Some(w) if lo <= w.1 + 1 => w.1 = w.1.max(hi),
            _ => shown.push((lo, hi)),
        }
    }
    let mut fresh = String::new();
    for (i, &(lo, hi)) in shown.iter().enumerate() {
        if i > 0 {
            fresh.push_str("...\n");
        }
        for n in lo..=hi {
            push_line(&mut fresh, Format::Hashline, n, lt.content(n - 1, text));
            fresh.push('\n');
        }
    }
    let list: Vec<Value> = stale
        .iter()
        .map(|(line, expected, actual)| {
            json!({"line": line, "expected_tag": expected, "actual_tag": actual})
        })
        .collect();
    let lines: Vec<String> = stale.iter().map(|s| s.0.to_string()).collect();
    Err(Failure::new(
        Code::StaleAnchor,
        format!(
            "line(s) {} changed since you read them (the file now has {} lines); nothing was written. Use the fresh anchors below (check the lines still say what you expect), or re-read the file with format \"hashline\".",
            lines.join(", "),
            lt.len()
        ),
    )
    .with("stale", list)
    .with("fresh", fresh)
    .with("total_lines", lt.len()))
}

/// One op as a splice of original lines `[from, to)` (0-based) by `lines`.
struct Splice<'a> {
    op: usize,
    from: usize,
    to: usize,
    lines: &'a [String],
}

pub struct Spliced {
    pub text: String,
    pub changes: Vec<(usize, usize, usize, usize)>,
    pub added: usize,
    pub removed: usize,
}

fn trailing_terminator(s: &str) -> usize {
    if s.ends_with("\r\n") {
        2
    } else if s.ends_with(['\n', '\r']) {
        1
    } else {
        0
    }
}

/// Applies every splice to `text` in one pass (they refer to the original lines).
pub fn splice(text: &str, lt: &LineTable, ops: &[LineOp]) -> Result<Spliced> {
    let mut splices: Vec<Splice> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let s = op.start.line;
            let e = op.end.as_ref().map_or(s, |a| a.line);
            let (from, to) = match op.kind {
                Kind::Replace | Kind::Delete => (s - 1, e),
                Kind::InsertBefore => (s - 1, s - 1),
                Kind::InsertAfter => (s, s),
            };
            Splice {
                op: i,
                from,
                to,
                lines: &op.lines,
            }
        })
        .collect();
    splices.sort_by_key(|s| (s.from, s.to, s.op));
    // Overlaps: a line touched twice, or two insertions at one place (their order would be a guess).
    let mut reach: Option<&Splice> = None;
    for s in &splices {
        if let Some(r) = reach {
            let same_point = r.from == r.to && s.from == s.to && r.from == s.from;
            if s.from < r.to || same_point {
                let (a, b) = (r.op.min(s.op), r.op.max(s.op));
                return Err(Failure::new(
                    Code::OverlappingEdits,
                    format!("ops[{a}] and ops[{b}] touch the same lines (or insert at the same place); merge them into one op."),
                )
                .with("edit_indices", [a, b]));
            }
        }
        if reach.is_none_or(|r| s.to >= r.to) {
            reach = Some(s);
        }
    }

    let ending = detect_line_ending(text);
    let term = ending.terminator();
    let mixed = matches!(ending, LineEnding::Mixed { .. });
    let total = lt.len();
    let last_unterminated = total > 0 && !lt.has_terminator(total - 1);
    let added_bytes: usize = splices
        .iter()
        .flat_map(|s| s.lines.iter())
        .map(|l| l.len() + term.len())
        .sum();
    let mut out = String::with_capacity(text.len() + added_bytes);
    let mut changes: Vec<(usize, usize, usize, usize)> = Vec::new();
    let (mut pos, mut added, mut removed) = (0usize, 0usize, 0usize);
    for s in &splices {
        let (old_start, old_end) = (lt.start(s.from), lt.start(s.to));
        out.push_str(&text[pos..old_start]);
        let mut change = (old_start, old_end, out.len(), 0);
        let at_eof = s.to == total && last_unterminated;
        if at_eof && s.lines.is_empty() && s.from < s.to && s.from > 0 {
            // Deleting the unterminated last line(s): the line before becomes last and loses its
            // terminator, so the file still does not end with one.
            let t = trailing_terminator(&out);
            out.truncate(out.len() - t);
            change.0 -= t;
            change.2 -= t;
        }
        // In a file with mixed line endings each line keeps its own break, a changed one takes the
        // break of the line it replaces, an added one its neighbours' ([`breaks_for`]).
        let breaks = match mixed && !(at_eof && s.from == s.to) {
            true => {
                let brk = |j: usize| {
                    (j < total)
                        .then(|| lt.terminator(j, text))
                        .filter(|b| !b.is_empty())
                };
                let old: Vec<(&str, &str)> = (s.from..s.to)
                    .map(|j| (lt.content(j, text), brk(j).unwrap_or(term)))
                    .collect();
                let new: Vec<&str> = s.lines.iter().map(String::as_str).collect();
                let above = s.from.checked_sub(1).and_then(brk);
                breaks_for(&old, &new, above, brk(s.to), term)
            }
            false => vec![term; s.lines.len()],
        };
        if at_eof && s.from == s.to {
            for l in s.lines.iter() {
                out.push_str(term);
                out.push_str(l);
            }
        } else if at_eof {
            for (x, l) in s.lines.iter().enumerate() {
                if x > 0 {
                    out.push_str(breaks[x - 1]);
                }
                out.push_str(l);
            }
        } else {
            for (l, b) in s.lines.iter().zip(&breaks) {
                out.push_str(l);
                out.push_str(b);
            }
        }
        change.3 = out.len();
        // Spans that touch or overlap (after the adjustment above) are merged for the diff.
        match changes.last_mut() {
            Some(c) if change.0 <= c.1 => {
                // Before both spans the texts agree; shrinking that common prefix keeps it common.
                let new0 = c.2.min(change.2);
                c.0 -= c.2 - new0;
                c.2 = new0;
                c.1 = change.1;
                c.3 = change.3;
            }
            _ => changes.push(change),
        }
        pos = old_end;
        added += s.lines.len();
        removed += s.to - s.from;
    }
    out.push_str(&text[pos..]);
    Ok(Spliced {
        text: out,
        changes,
        added,
        removed,
    })
}
