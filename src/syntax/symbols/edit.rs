//! Edits of one symbol's span: `replace`, `insert_before`, `insert_after`, `delete`, with the
//! whitespace rules.
//!
//! - **Re-indent.** The text is re-indented to the symbol's own indentation (an insert takes its
//!   anchor's). Three ways of sending it give the same result: already at the target indentation;
//!   all at column 0 (the first line's indentation is taken off every line and the target's put
//!   on); the first line at column 0 and the rest at the absolute indentation it would have in the
//!   file (then only the first line moves). The text is read the third way when its first line is
//!   shallower than the target, no later line is, and, in Python, after a first line that opens a
//!   block (`def f():`) the next lines are deeper than the target. In a tab-indented file, text
//!   indented with spaces gets tabs, one per level of its own indentation unit; in a file indented
//!   with spaces, tabs in the text's indentation become the file's unit of spaces.
//! - **Lines.** Leading and trailing blank lines of the text are dropped (a final newline adds no
//!   blank line); the text always starts and ends on a line of its own, also at the end of a file
//!   without a final newline (which keeps lacking one); new lines take the file's line terminator.
//! - **Blank separators.** An insert is separated from its anchor by the blank lines the file
//!   already uses between the anchor and its neighbour (Python: 2 around top-level `def`/`class`,
//!   1 inside a class; other languages 1 and JSON 0 when there is no neighbour). `delete` removes
//!   the symbol and one adjoining run of blank lines: the following one, or the preceding one when
//!   the symbol is the last of its block (before `}`, a dedent or the end of the file). An insert
//!   followed by the delete of what it inserted restores the file byte for byte.
//! - **JSON.** Commas follow: a key inserted after the last one puts a comma on its anchor, the
//!   delete of the last key takes the comma of the one before.
//! - Go: inside a `type ( ... )` / `const ( ... )` group a leading `type` / `const` keyword of the
//!   text is dropped (no `type type`).
//! - A replace whose text starts with the comment block just above the span (one the span does not
//!   own: a blank line parts it from the symbol) does not write that block a second time.

use super::{Outline, Symbol};
use crate::edit::text::{dominant_terminator, split_lines, LineTable};

/// What to do at a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Replace,
    InsertBefore,
    InsertAfter,
    Delete,
}

impl Action {
    pub fn parse(s: &str) -> Option<Action> {
        Some(match s {
            "replace" => Action::Replace,
            "insert_before" => Action::InsertBefore,
            "insert_after" => Action::InsertAfter,
            "delete" => Action::Delete,
            _ => return None,
        })
    }
}

/// The edited text and the changed byte span `(old_start, old_end, new_start, new_end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    /// The span replaced: the symbol's lines (and separator) out, the new lines in.
    pub change: (usize, usize, usize, usize),
    /// The same change without the bytes the old and new text share at its ends (what the syntax
    /// gate re-parses and the diff shows).
    pub narrow: (usize, usize, usize, usize),
}

const TAB: usize = 4;

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn width(ws: &str) -> usize {
    ws.chars().map(|c| if c == '\t' { TAB } else { 1 }).sum()
}

/// `line` without up to `w` columns of leading whitespace.
fn strip_width(line: &str, w: usize) -> &str {
    let mut taken = 0;
    for (i, c) in line.char_indices() {
        if taken >= w || !(c == ' ' || c == '\t') {
            return &line[i..];
        }
        taken += if c == '\t' { TAB } else { 1 };
    }
    ""
}

fn is_blank(l: &str) -> bool {
    l.trim().is_empty()
}

/// Whether the file indents with tabs (more tab-indented lines than space-indented ones).
fn uses_tabs(src: &str) -> bool {
    if memchr::memchr(b'\t', src.as_bytes()).is_none() {
        return false;
    }
    let (mut tabs, mut spaces) = (0, 0);
    for l in src.lines().take(2000) {
        match l.as_bytes().first() {
            Some(b'\t') => tabs += 1,
            Some(b' ') if !is_blank(l) => spaces += 1,
            _ => {}
        }
    }
    tabs > spaces
}

/// A space-indented file's indentation unit: its smallest indentation (2 to 8), else 4.
fn space_unit(src: &str) -> usize {
    src.lines()
        .take(2000)
        .filter(|l| !is_blank(l))
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .filter(|&w| (2..=8).contains(&w))
        .min()
        .unwrap_or(TAB)
}

/// `text` with the tabs of each line's indentation written as `unit` spaces (for a file indented
/// with spaces: a tab in the new text's indentation would mix the two).
fn expand_leading_tabs(text: &str, unit: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in split_lines(text).into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let indent = indent_of(line);
        for c in indent.chars() {
            match c {
                '\t' => out.push_str(&" ".repeat(unit)),
                c => out.push(c),
            }
        }
        out.push_str(&line[indent.len()..]);
    }
    out
}

/// The text's lines, re-indented to `target` (see the module doc).
fn reindent(text: &str, target: &str, python: bool, tabs: bool) -> Vec<String> {
    let mut lines: Vec<&str> = split_lines(text);
    while lines.last().is_some_and(|l| is_blank(l)) {
        lines.pop();
    }
    while lines.first().is_some_and(|l| is_blank(l)) {
        lines.remove(0);
    }
    let Some(head) = lines.first().copied() else {
        return Vec::new();
    };
    let h = width(indent_of(head));
    let t = width(target);
    let rest: Vec<usize> = lines[1..]
        .iter()
        .filter(|l| !is_blank(l))
        .map(|l| width(indent_of(l)))
        .collect();
    let m = rest.iter().copied().min();
    let opens_block = {
        let code = head.split('#').next().unwrap_or(head).trim_end();
        code.ends_with(':')
    };
    let absolute = match m {
        Some(m) if h < t && m >= t => !python || !opens_block || m > t,
        _ => false,
    };
    // The text's own indentation unit (for tabs): its smallest positive relative indentation.
    let unit = lines
        .iter()
        .filter(|l| !is_blank(l))
        .map(|l| width(indent_of(l)).saturating_sub(h))
        .filter(|&w| w > 0)
        .min()
        .unwrap_or(TAB);
    let spaced = !text.contains('\t');
    if !absolute && h == t && !(tabs && spaced) {
        // Already at the target: nothing moves (lines of a multi-line string included).
        return lines.iter().map(|l| l.to_string()).collect();
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if is_blank(l) {
                return String::new();
            }
            if absolute {
                return if i == 0 {
                    format!("{target}{}", l.trim_start_matches([' ', '\t']))
                } else {
                    l.to_string()
                };
            }
            let own = width(indent_of(l));
            let body = strip_width(l, h);
            if tabs && spaced && own > h {
                let rel = own - h;
                let body = l.trim_start_matches([' ', '\t']);
                return format!(
                    "{target}{}{}{body}",
                    "\t".repeat(rel / unit),
                    " ".repeat(rel % unit)
                );
            }
            format!("{target}{body}")
        })
        .collect()
}

/// Where a symbol sits among its neighbours.
struct Around {
    /// 0-based index of the span's first and last line.
    first: usize,
    last: usize,
    /// The nearest non-blank line above the span, and whether it opens the block (or there is none).
    prev: Option<usize>,
    prev_is_sibling: bool,
    /// The nearest non-blank line below the span, and whether it is a sibling (not a closer, a dedent
    /// or the end of the file).
    next: Option<usize>,
    next_is_sibling: bool,
}

fn around(src: &str, lt: &LineTable, sym: &Symbol) -> Around {
    let first = lt.index_of(sym.start);
    let last = lt.index_of(sym.end.saturating_sub(1).max(sym.start));
    let own = width(indent_of(lt.content(first, src)));
    let mut prev = None;
    for i in (0..first).rev() {
        if !is_blank(lt.content(i, src)) {
            prev = Some(i);
            break;
        }
    }
    let mut next = None;
    for i in last + 1..lt.len() {
        if !is_blank(lt.content(i, src)) {
            next = Some(i);
            break;
        }
    }
    let prev_is_sibling = prev.is_some_and(|p| {
        let l = lt.content(p, src);
        let code = l.trim_end();
        width(indent_of(l)) >= own
            && !(code.ends_with('{')
                || code.ends_with('(')
                || code.ends_with('[')
                || code.ends_with(':'))
    });
    let next_is_sibling = next.is_some_and(|n| {
        let l = lt.content(n, src);
        let code = l.trim_start();
        width(indent_of(l)) >= own && !code.starts_with(['}', ')', ']'])
    });
    Around {
        first,
        last,
        prev,
        prev_is_sibling,
        next,
        next_is_sibling,
    }
}

/// Blank lines between the lines `a` and `b` (`a < b`).
fn blanks_between(a: usize, b: usize) -> usize {
    b.saturating_sub(a + 1)
}

fn is_def(kind: &str) -> bool {
    matches!(kind, "class" | "function" | "method")
}

/// The blank lines to put between an inserted block and its anchor.
fn gap(language: &str, sym: &Symbol, block: &[String], at: &Around, after: bool) -> usize {
    if language == "python" {
        let code = block
            .iter()
            .find(|l| !l.trim_start().starts_with('#'))
            .map(|l| l.trim_start())
            .unwrap_or_default();
        let def = code.starts_with("def ")
            || code.starts_with("async def ")
            || code.starts_with("class ")
            || code.starts_with('@');
        if def || is_def(sym.kind) {
            return if sym.parent.is_none() { 2 } else { 1 };
        }
    }
    let before = at
        .prev
        .filter(|_| at.prev_is_sibling)
        .map(|p| blanks_between(p, at.first));
    let below = at
        .next
        .filter(|_| at.next_is_sibling)
        .map(|n| blanks_between(at.last, n));
    let seen = if after {
        below.or(before)
    } else {
        before.or(below)
    };
    seen.unwrap_or(if language == "json" { 0 } else { 1 })
}

/// The comment lines of the block just above line `first` when one blank run parts them from it
/// (comments the symbol's span does not own), top to bottom; empty when there are none.
fn detached_comment_above<'s>(src: &'s str, lt: &LineTable, first: usize) -> Vec<&'s str> {
    let mut i = first;
    let mut blanks = 0;
    while i > 0 && is_blank(lt.content(i - 1, src)) {
        i -= 1;
        blanks += 1;
    }
    if blanks == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    while i > 0 {
        let l = lt.content(i - 1, src);
        let t = l.trim_start();
        let comment = t.starts_with("//")
            || t.starts_with("/*")
            || t.starts_with('*')
            || (t.starts_with('#') && !t.starts_with("#["));
        if !comment {
            break;
        }
        out.push(l);
        i -= 1;
    }
    // Only a block that starts its own line run (not the tail of code above it).
    if i > 0 && !is_blank(lt.content(i - 1, src)) {
        return Vec::new();
    }
    out.reverse();
    out
}

/// Whether line `i` (content) ends with a comma, ignoring trailing whitespace.
fn ends_with_comma(lt: &LineTable, src: &str, i: usize) -> bool {
    lt.content(i, src).trim_end().ends_with(',')
}

/// Applies `action` at symbol `target` of `outline` (an outline of `src`). `text` is the new symbol
/// (replace) or the new code (inserts); ignored by delete. Errors are messages for `INVALID_INPUT`.
pub fn apply(
    src: &str,
    outline: &Outline,
    target: usize,
    action: Action,
    text: &str,
) -> Result<Edited, String> {
    let sym = &outline.symbols[target];
    if sym.shares_line {
        return Err(format!(
            "{} shares a line with other code, so it cannot be edited as whole lines; edit it with patchFile or applyEdits and name_path: \"{}\" (which narrows the search to this symbol).",
            sym.name_path, sym.name_path
        ));
    }
    let language = outline.language;
    let eol = dominant_terminator(src);
    let lt = LineTable::new(src);
    let at = around(src, &lt, sym);
    let target_indent = indent_of(lt.content(at.first, src)).to_string();
    let terminated = lt.has_terminator(at.last);
    let json = language == "json";
    let mut block = Vec::new();
    if action != Action::Delete {
        let tabs = uses_tabs(src);
        let expanded;
        let text = match !tabs
            && split_lines(text)
                .iter()
                .any(|l| indent_of(l).contains('\t'))
        {
            true => {
                expanded = expand_leading_tabs(text, space_unit(src));
                expanded.as_str()
            }
            false => text,
        };
        block = reindent(text, &target_indent, language == "python", tabs);
        if let (Some(kw), Some(first)) = (sym.group, block.first_mut()) {
            let body = first.trim_start();
            if let Some(rest) = body.strip_prefix(kw).filter(|r| r.starts_with([' ', '\t'])) {
                *first = format!("{target_indent}{}", rest.trim_start());
            }
        }
        if block.is_empty() {
            return Err(match action {
                Action::Replace => "text is empty: replace takes the whole new symbol (to remove the symbol, use action \"delete\").".to_string(),
                _ => "text is empty: nothing to insert.".to_string(),
            });
        }
    }
    let join = |block: &[String]| block.join(eol);
    let set_comma = |block: &mut Vec<String>, comma: bool| {
        if let Some(last) = block.last_mut() {
            let t = last.trim_end().trim_end_matches(',').to_string();
            *last = if comma { format!("{t},") } else { t };
        }
    };
    // (old_start, old_end, replacement)
    let (os, oe, new): (usize, usize, String) = match action {
        Action::Replace => {
            // Nothing twice: a comment block the span does not own (a blank line parts it from the
            // symbol) that the new text repeats at its start is not written again.
            let above = detached_comment_above(src, &lt, at.first);
            if !above.is_empty()
                && block.len() > above.len()
                && block.iter().zip(&above).all(|(b, a)| b.trim() == a.trim())
            {
                block.drain(..above.len());
                while block.first().is_some_and(|l| is_blank(l)) {
                    block.remove(0);
                }
            }
            if json {
                let comma = ends_with_comma(&lt, src, at.last);
                set_comma(&mut block, comma);
            }
            let mut new = join(&block);
            if terminated {
                new.push_str(eol);
            }
            (sym.start, sym.end, new)
        }
        Action::Delete => match (at.next.filter(|_| at.next_is_sibling), at.prev) {
            (Some(n), _) => (sym.start, lt.start(n), String::new()),
            (None, None) => (sym.start, sym.end, String::new()),
            (None, Some(p))
                if json
                    && at.prev_is_sibling
                    && !ends_with_comma(&lt, src, at.last)
                    && ends_with_comma(&lt, src, p) =>
            {
                // The last key: the comma of the key before goes too.
                let comma = lt.start(p) + lt.content(p, src).trim_end().len() - 1;
                let mut keep = src[comma + 1..lt.content_end(p)].to_string();
                if terminated {
                    keep.push_str(lt.terminator(p, src));
                }
                (comma, sym.end, keep)
            }
            (None, Some(p)) if terminated => (lt.end(p), sym.end, String::new()),
            (None, Some(p)) => (lt.content_end(p), sym.end, String::new()),
        },
        Action::InsertBefore => {
            let g = gap(language, sym, &block, &at, false);
            if json {
                set_comma(&mut block, true);
            }
            let mut new = join(&block);
            new.push_str(eol);
            new.push_str(&eol.repeat(g));
            (sym.start, sym.start, new)
        }
        Action::InsertAfter => {
            let g = gap(language, sym, &block, &at, true);
            match at.next.filter(|_| at.next_is_sibling) {
                Some(n) => {
                    if json {
                        set_comma(&mut block, true);
                    }
                    let mut new = join(&block);
                    new.push_str(eol);
                    new.push_str(&eol.repeat(g));
                    let p = lt.start(n);
                    (p, p, new)
                }
                None => {
                    if json {
                        set_comma(&mut block, false);
                        if !ends_with_comma(&lt, src, at.last) {
                            // The anchor was the last key: it gets a comma.
                            let line_end =
                                lt.start(at.last) + lt.content(at.last, src).trim_end().len();
                            let mut new = String::from(",");
                            new.push_str(&src[line_end..sym.end]);
                            if !terminated {
                                new.push_str(eol);
                            }
                            new.push_str(&eol.repeat(g));
                            new.push_str(&join(&block));
                            if terminated {
                                new.push_str(eol);
                            }
                            return Ok(splice(src, line_end, sym.end, &new));
                        }
                    }
                    let mut new = String::new();
                    if !terminated {
                        new.push_str(eol);
                    }
                    new.push_str(&eol.repeat(g));
                    new.push_str(&join(&block));
                    if terminated {
                        new.push_str(eol);
                    }
                    (sym.end, sym.end, new)
                }
            }
        }
    };
    Ok(splice(src, os, oe, &new))
}

fn splice(src: &str, os: usize, oe: usize, new: &str) -> Edited {
    let mut text = String::with_capacity(src.len() - (oe - os) + new.len());
    text.push_str(&src[..os]);
    text.push_str(new);
    text.push_str(&src[oe..]);
    let old = &src[os..oe];
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let room = a.len().min(b.len()) - p;
    let mut q = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - q) || !new.is_char_boundary(b.len() - q) {
        q -= 1;
    }
    Edited {
        text,
        change: (os, oe, os, os + new.len()),
        narrow: (os + p, oe - q, os + p, os + new.len() - q),
    }
}

/// What a `replace` text leaves out of the symbol it replaces: the comment above it, each
/// decorator / attribute / annotation line, and leading modifiers (`export`, `pub`, `static`, ...).
pub fn dropped_parts(old: &str, new: &str) -> Vec<String> {
    fn is_comment(l: &str) -> bool {
        l.starts_with("//")
            || l.starts_with("/*")
            || l.starts_with('*')
            || (l.starts_with('#') && !l.starts_with("#["))
    }
    fn is_attribute(l: &str) -> bool {
        l.starts_with('@') || l.starts_with("#[")
    }
    let new_lines: Vec<&str> = new.lines().map(str::trim).collect();
    let mut out = Vec::new();
    let mut comment = false;
    let mut head = "";
    for l in old.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if is_comment(l) {
            comment |= !new_lines.contains(&l);
        } else if is_attribute(l) {
            if !new_lines.contains(&l) {
                out.push(l.to_string());
            }
        } else {
            head = l;
            break;
        }
    }
    if comment {
        out.insert(0, "the comment above it".to_string());
    }
    let new_head: Vec<&str> = new_lines
        .iter()
        .find(|l| !l.is_empty() && !is_comment(l) && !is_attribute(l))
        .map(|l| l.split_whitespace().take(6).collect())
        .unwrap_or_default();
    const MODIFIERS: &[&str] = &[
        "export",
        "default",
        "declare",
        "pub",
        "pub(crate)",
        "pub(super)",
        "static",
        "public",
        "protected",
        "async",
        "unsafe",
        "inline",
        "virtual",
        "final",
        "abstract",
        "const",
    ];
    for w in head.split_whitespace().take(6) {
        if !MODIFIERS.contains(&w) {
            break;
        }
        if !new_head.contains(&w) {
            out.push(w.to_string());
        }
    }
    out
}
