//! Applying twice is not applying: an edit or hunk whose result is already in the file (a call retried
//! after a timeout, a patch sent again) is refused with `ALREADY_APPLIED`, and never applied a second
//! time. Pure: no I/O.
//!
//! The danger is an edit whose `new` side holds its `old` side: an insertion (`old = "a"`,
//! `new = "a\nb"`), or a hunk whose context sits on one side of its `+` lines. After it landed, its
//! `old` side is still found, once, inside the text it wrote, and a second application would write
//! the added lines twice. The rules, each decided by content alone:
//!
//! - **Found inside its own result.** An edit whose `new` holds its `old` (trimmed), where `new` is
//!   found (at the tolerance tiers) as many times as `old` matched and every place `old` matched lies
//!   inside one of those occurrences: already applied ([`edit_reapplied`]). For a hunk, likewise when
//!   its `old` side (context and `-` lines) is a run of lines of its `new` side (context and `+`
//!   lines): its `new` side, located as a hunk of context lines under the same `@@` scopes, occurs
//!   exactly once, and the place the hunk matched lies inside it; a pure insertion (only `+` lines)
//!   is already applied when its lines (one at least not blank) stand right before or right after
//!   the point it would insert at ([`check_hunks`]).
//! - **Not found, its result found.** When a batch is refused because an `old` side is found
//!   nowhere, each edit (or hunk) is classified: already applied (as above, or its `old` side is
//!   nowhere and its `new` side, with a non-blank line, is found exactly once), pending (it applies
//!   alone), or neither. If none is neither and one at least is already applied, the refusal becomes
//!   `ALREADY_APPLIED`, listing both ([`classify_edits`], [`classify_hunks`]); otherwise the original
//!   refusal stands.
//!
//! A partly applied batch is refused whole (nothing written), with `already_applied` and `pending`
//! (0-based indices of its edits or hunks). A refusal here can only turn a write into a refusal,
//! never make anything land: the cost of a wrong guess is an edit that must be rephrased (e.g. one
//! that really means to insert a second copy of the lines right next to the first).

use crate::edit::apply_hunks::apply_hunks;
use crate::edit::formats::unescape_once;
use crate::edit::ir::{Edit, Hunk, HunkLine};
use crate::edit::matcher::{locate, Haystack, Match, Miss, Tier, Tolerance};
use crate::edit::text::LineTable;
use crate::error::{Code, Failure};

/// At most this many edits or hunks of a refused batch are classified (each is a search of the
/// file); a larger batch keeps its original refusal.
const MAX_CLASSIFIED: usize = 256;

/// Whether every non-blank line of `new` that is no line of `old` occurs in `text` (trimmed, or
/// after a view's line-number prefix): a cheap necessary condition for `new` to be found in `text`,
/// checked before any tolerant search. A line with non-ASCII characters passes (the tolerance tiers
/// fold typography, and a first application folds "smartened" quotes back to the file's).
fn added_lines_present(text: &str, old: &str, new: &str) -> bool {
    let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
    new.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !old_lines.contains(l))
        .all(|l| {
            !l.is_ascii()
                || text.contains(l)
                || without_view_prefix(l).is_some_and(|c| c.is_empty() || text.contains(c))
        })
}

/// Whether `new` has a non-blank line (trimmed) that no line of `old` is: what identifies an edit's
/// result once its `old` is gone.
fn has_own_line<'a>(
    old: impl Iterator<Item = &'a str>,
    new: impl Iterator<Item = &'a str>,
) -> bool {
    let old: Vec<&str> = old.map(str::trim).collect();
    new.map(str::trim)
        .any(|l| !l.is_empty() && !old.contains(&l))
}

/// A line after a view's line-number prefix (`12\t`, `12: `, `12:ab3f|`, `12 | `), loosely: only
/// used to let a line through [`added_lines_present`].
fn without_view_prefix(l: &str) -> Option<&str> {
    let d = l.bytes().take_while(u8::is_ascii_digit).count();
    if d == 0 {
        return None;
    }
    let rest = &l[d..];
    ["\t", "\u{2192}", "|", ": "].iter().find_map(|sep| {
        rest.find(sep)
            .filter(|&i| i <= 17)
            .map(|i| rest[i + sep.len()..].trim())
    })
}

/// Whether an edit whose `old` matched at `found` is being applied a second time: `new` holds `old`
/// (trimmed, and is more than it: more text, or more lines), and `new` is found in the text, with as
/// many lines, around every place `old` matched: the lines where it stands around the first one.
pub fn edit_reapplied(
    h: &Haystack,
    old: &str,
    new: &str,
    found: &[Match],
    tol: Tolerance,
) -> Option<(usize, usize)> {
    let core = old.trim();
    // A change of whitespace within the same lines (a re-indentation) adds nothing to find twice.
    let breaks = |t: &str| t.matches('\n').count();
    let same_lines = new.trim() == core && breaks(new) == breaks(old);
    // An `old` of blank lines only is held as it is.
    let holds = match core.is_empty() {
        true => new.contains(old),
        false => new.contains(core),
    };
    if new.trim().is_empty() || same_lines || !holds || !added_lines_present(h.text, old, new) {
        return None;
    }
    let mut at = Vec::with_capacity(found.len());
    for m in found {
        at.push(new_around(h, m, old, new, tol)?);
    }
    at.first().copied()
}

/// [`edit_reapplied`] for the edit as it would be written: the file's text where `old` matched at a
/// tolerance tier, and the replacement built for it (a view's line-number prefixes stripped, the
/// file's indentation and line endings kept). An insertion whose `old` carries a view prefix holds
/// its `old` only once both are read this way.
pub fn reapplied_as_written(
    h: &Haystack,
    found: &[Match],
    tol: Tolerance,
) -> Option<(usize, usize)> {
    let [m] = found else {
        return None;
    };
    if m.tier == Tier::Exact {
        return None;
    }
    let at = Match {
        tier: Tier::Exact,
        ..m.clone()
    };
    edit_reapplied(h, &h.text[m.start..m.end], &m.replacement, &[at], tol)
}

/// A retry of a substitution whose `old` still matches a near-twin of the place it was applied to:
/// `old` matched once, and only at a tolerance tier, while `new`, as sent, already stands exactly
/// elsewhere in the file (neither inside the match nor holding it). After a first
/// application the exact place holds `new`, and `old` is found only where a twin that differs in
/// whitespace, line endings, typography or indentation still holds it; a second application would
/// change the twin too. The exact presence of the result plus a tier-only match of `old` is the
/// evidence: refused as already applied (the lines where the result stands). A deletion counts only
/// when what it keeps is a block of at least two non-blank lines that `old` does not hold in one
/// piece (lines taken out of its middle): that block standing exactly elsewhere, beside a twin that
/// still holds the deleted lines and matches only at a tolerance tier, is the first application's
/// result; a deletion that keeps less leaves nothing that tells a result from any other copy.
pub fn retried_at_a_twin(
    h: &Haystack,
    old: &str,
    new: &str,
    found: &[Match],
) -> Option<(usize, usize)> {
    substituted_at_a_twin(h, old, new, found)
        .or_else(|| lines_retried_at_a_twin(h, old, new, found))
}

/// [`retried_at_a_twin`] for an edit whose `old` matched whole lines: its `new` stands elsewhere as
/// the result of a first application, read line by line ([`liberties::closer_elsewhere`]: with
/// strictly fewer liberties than `old` needed where it matched, or, when the edit copies lines it
/// keeps beside those it changes, as a view shows what it would make of its match). The same
/// conditions on what it writes as [`retried_at_a_twin`]'s.
fn lines_retried_at_a_twin(
    h: &Haystack,
    old: &str,
    new: &str,
    found: &[Match],
) -> Option<(usize, usize)> {
    let [m] = found else {
        return None;
    };
    let lt = h.lines();
    // Matched exactly, the model's text is the file's there (a match widened to its line's
    // indentation, for a `new` written at the file's columns, included).
    if m.tier == Tier::Exact || lt.is_empty() || m.end <= m.start || m.replacement.trim().is_empty()
    {
        return None;
    }
    let (first, last) = (lt.index_of(m.start), lt.index_of(m.end - 1));
    let (o, n) = (lines_of(old), lines_of(new));
    let kept_block =
        n.iter().filter(|l| !l.trim().is_empty()).count() >= 2 && !old.contains(new.trim());
    let own = (has_own_line(old.lines(), new.lines()) || kept_block)
        && !h.text[m.start..m.end].contains(m.replacement.trim());
    // Lines deleted from one end, keeping three lines with words at least (as for hunks): only a
    // place that reads as the kept lines with strictly fewer liberties is the first application.
    let worded = n
        .iter()
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .count();
    let edge = worded >= 3 && n.len() < o.len() && (o.starts_with(&n) || o.ends_with(&n));
    if !(own || edge) {
        return None;
    }
    let at = (first + 1, last + 1);
    let needed = liberties::at_match(&o, &h.text[m.start..m.end])?;
    if !own {
        return liberties::strictly_closer_elsewhere(h.text, lt, &n, needed, at);
    }
    let trimmed: Vec<&str> = o.iter().map(|l| l.trim()).collect();
    let kept = n
        .iter()
        .any(|l| !l.trim().is_empty() && trimmed.contains(&l.trim()));
    liberties::closer_elsewhere(h.text, lt, &n, needed, at, kept)
}

/// An insertion (`new` is its `old`, line for line but for whitespace, with lines added before or
/// after) whose added lines already stand right beside the lines `at` (1-based) where `old` matched,
/// such that taking them out gives a text which the edit, applied again (`rerun`), turns back into
/// `text` byte for byte: the file already reads as the edit's result, and this is a second
/// application. It catches the retry a search of `new` misses, where the first application wrote
/// `new` in a frame of its own (its copied lines at the file's indentation, its added lines at the
/// columns the model wrote them) and the retried `old` now matches partly inside that result. The
/// evidence is the exact reproduction, not a likeness. The 1-based lines of the added lines.
pub fn rewrites_itself(
    text: &str,
    e: &Edit,
    at: (usize, usize),
    rerun: impl Fn(&str) -> Option<String>,
) -> Option<(usize, usize)> {
    let trim = |l: &&str| l.trim().to_string();
    let o: Vec<String> = lines_of(&e.old).iter().map(trim).collect();
    let n: Vec<String> = lines_of(&e.new).iter().map(trim).collect();
    if n.len() <= o.len() || o.iter().all(|l| l.is_empty()) {
        return None;
    }
    let k = n.len() - o.len();
    let added = if n[..o.len()] == o[..] {
        &n[o.len()..]
    } else if n[k..] == o[..] {
        &n[..k]
    } else {
        return None;
    };
    if added.iter().all(|l| l.is_empty()) {
        return None;
    }
    let tl: Vec<&str> = text.split_inclusive('\n').collect();
    let reach = k + o.len();
    let lo = at.0.saturating_sub(1 + reach);
    let hi = (at.1 + reach).min(tl.len());
    (lo..(hi + 1).saturating_sub(k))
        .filter(|&s| tl[s..s + k].iter().map(trim).eq(added.iter().cloned()))
        .take(4)
        .find(|&s| {
            let without: String = tl[..s].concat() + &tl[s + k..].concat();
            rerun(&without).as_deref() == Some(text)
        })
        .map(|s| (s + 1, s + k))
}

/// Whether an edit that matched the bytes `span` of `text`, to be replaced by `replacement` (its
/// `new` in the file's frame), already stands there as its own result: `replacement` occurs across
/// an edge of the match (overlapping it, neither inside it nor the match itself), and putting the
/// matched text back in its place gives a text the edit turns into this one (`rerun`). A first
/// application that replaced `P X` by `X Q` leaves `P X Q` where the text had `P P X`, and the
/// retry still finds `P X` once, inside its own result (ground truth seed 29 cases 581515 and
/// 136613). Only for a `new` with a line of its own: a deletion's result is in every text it
/// applies to. The 1-based lines of the occurrence.
///
/// The result may stand moved as a whole: a first application that matched through indentation
/// drift wrote `new` some columns deeper (or shallower) than the model did, and the retried `old`,
/// as sent, now matches a line of that result and the lines below it (ground truth seed 42 case
/// 23163). So `replacement` (and `new` as sent) is also sought with one indentation added to (or
/// taken from) each of its non-blank lines, starting a line, and put back as the matched text (or
/// `old`) moved the same way. Either way the evidence is the rerun: the edit, applied to the text put back, writes
/// this text byte for byte.
pub fn stands_across(
    text: &str,
    span: (usize, usize),
    (old, new): (&str, &str),
    replacement: &str,
    rerun: impl Fn(&str) -> Option<String>,
) -> Option<(usize, usize)> {
    let (s, e) = span;
    let matched = &text[s..e];
    if replacement.trim().is_empty() || !has_own_line(matched.lines(), replacement.lines()) {
        return None;
    }
    let lo = s.saturating_sub(replacement.len() * 2);
    let hi = (e + replacement.len() * 2).min(text.len());
    let window = text.get(lo..hi)?;
    let across = |(ns, ne): &(usize, usize)| ns < &e && &s < ne && !(s <= *ns && *ne <= e);
    let lines_at = |(ns, ne): (usize, usize)| {
        let lt = LineTable::new(text);
        (lt.line_of(ns), lt.line_of(ne.saturating_sub(1).max(ns)))
    };
    let puts_back = |(ns, ne): (usize, usize), with: &str| {
        let before = format!("{}{}{}", &text[..ns], with, &text[ne..]);
        rerun(&before).as_deref() == Some(text)
    };
    let found = window
        .match_indices(replacement)
        .map(|(i, _)| (lo + i, lo + i + replacement.len()))
        .filter(across)
        .take(4)
        .find(|&sp| puts_back(sp, matched));
    if let Some(sp) = found {
        return Some(lines_at(sp));
    }
    // Moved as a whole. The first application wrote `new` in the frame of the place it matched
    // then (its kept lines' trailing whitespace included), so `new` as sent is sought too, and
    // `old` put back beside the matched text: both in the file's line breaks.
    let term = match replacement.contains("\r\n") {
        true => "\r\n",
        false => "\n",
    };
    let framed = |t: &str| crate::edit::text::convert_terminators(t, term).into_owned();
    let (old, new) = (framed(old), framed(new));
    let at_line_start = |i: usize| i == 0 || text.as_bytes()[i - 1] == b'\n';
    let mut results = vec![replacement];
    if new != replacement {
        results.push(new.as_str());
    }
    results.into_iter().find_map(|result| {
        shifts(window, result).into_iter().find_map(|shift| {
            let moved = shifted(result, &shift)?;
            let backs: Vec<String> = [matched, old.as_str()]
                .iter()
                .filter_map(|t| shifted(t, &shift))
                .collect();
            window
                .match_indices(moved.as_str())
                .map(|(i, _)| (lo + i, lo + i + moved.len()))
                .filter(|&(ns, _)| at_line_start(ns))
                .filter(across)
                .take(4)
                .find(|&sp| backs.iter().any(|b| puts_back(sp, b)))
                .map(lines_at)
        })
    })
}

/// One indentation shift: a prefix added to each non-blank line, or taken from each.
#[derive(PartialEq)]
enum Shift {
    Add(String),
    Take(String),
}

/// The indentation shifts that would put `block`'s first non-blank line at the columns of a line of
/// `window` holding the same text, in the order the window shows them (at most four; none for a
/// line at the same columns).
fn shifts(window: &str, block: &str) -> Vec<Shift> {
    let Some((oi, text)) = block
        .lines()
        .map(indent_and_text)
        .find(|(_, t)| !t.is_empty())
    else {
        return Vec::new();
    };
    let mut out: Vec<Shift> = Vec::new();
    for (fi, _) in window
        .lines()
        .map(indent_and_text)
        .filter(|&(_, t)| t == text)
    {
        let shift = if let Some(p) = fi.strip_suffix(oi).filter(|p| !p.is_empty()) {
            Shift::Add(p.to_string())
        } else if let Some(p) = oi.strip_suffix(fi).filter(|p| !p.is_empty()) {
            Shift::Take(p.to_string())
        } else {
            continue;
        };
        if !out.contains(&shift) {
            out.push(shift);
            if out.len() == 4 {
                break;
            }
        }
    }
    out
}

/// A line's indentation and its text (trailing whitespace left out).
fn indent_and_text(l: &str) -> (&str, &str) {
    let t = l.trim_start_matches([' ', '\t']);
    (&l[..l.len() - t.len()], t.trim_end())
}

/// `block` with `shift` applied to each of its non-blank lines (line breaks kept); `None` when a
/// line lacks the prefix to take.
fn shifted(block: &str, shift: &Shift) -> Option<String> {
    block
        .split_inclusive('\n')
        .map(|l| match shift {
            _ if l.trim().is_empty() => Some(l.to_string()),
            Shift::Add(p) => Some(format!("{p}{l}")),
            Shift::Take(p) => l.strip_prefix(p.as_str()).map(str::to_string),
        })
        .collect()
}

/// `t`'s lines, split on `\n`, without the empty part after a final one.
fn lines_of(t: &str) -> Vec<&str> {
    t.strip_suffix('\n').unwrap_or(t).split('\n').collect()
}

/// [`retried_at_a_twin`]'s first reading: `new` as sent, byte for byte, elsewhere.
fn substituted_at_a_twin(
    h: &Haystack,
    old: &str,
    new: &str,
    found: &[Match],
) -> Option<(usize, usize)> {
    let [m] = found else {
        return None;
    };
    // What it writes must be its own: a change that only removes (new held by old) leaves nothing
    // that tells a result from any other copy of the lines it keeps, unless what it keeps is a block
    // of lines `old` never held in one piece (lines deleted from its middle).
    let kept_block =
        new.lines().filter(|l| !l.trim().is_empty()).count() >= 2 && !old.contains(new.trim());
    let own = (has_own_line(old.lines(), new.lines()) || kept_block)
        && !h.text[m.start..m.end].contains(m.replacement.trim());
    // An exact match that ends (or starts) inside a word (`rm -f x.o` inside `rm -f x.o8`) is as
    // weak as a tolerance tier: the place the model meant would hold `old` as a whole word.
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let (before, after) = (&h.text[..m.start], &h.text[m.end..]);
    let split = (word(before.chars().next_back()) && word(old.chars().next()))
        || (word(old.chars().next_back()) && word(after.chars().next()));
    if (m.tier == Tier::Exact && !split) || m.replacement.trim().is_empty() || !own {
        return None;
    }
    // Another place: neither inside the match nor holding it (twins may overlap when `old` spans
    // more than one of them).
    let clear =
        |&(s, e): &(usize, usize)| !((m.start <= s && e <= m.end) || (s <= m.start && m.end <= e));
    // `new` as sent: the first application matched exactly and wrote it as it is; a result that
    // stands only in the file's own spelling (the replacement built for this match) is no evidence,
    // since an edit may well make a line like one the file already has.
    let (_, spans) = crate::edit::matcher::find_exact_all(h.text, new);
    spans
        .iter()
        .find(|sp| clear(sp))
        .map(|&(s, e)| (h.line_of(s), h.end_line_of(s, e)))
}

/// An edit whose matched text is its replacement plus one line break at an edge (`"\nX"` → `"X"`,
/// `"X\n"` → `"X"`) deletes a blank line: the break it removes and the one beside it. Where that
/// break has a line with content on its other side (or ends the file), no blank line is left: the
/// result already stands (a retry), and writing it would join two lines or drop the file's final
/// line break. Only for a match found through a reading (a tolerance tier, or `read`: the edit was
/// unescaped): matched byte for byte as sent, the bytes decide (`"x\n"` → `"x"` at the end of a file
/// removes its final line break, as asked) — but for a break between two lines that both show text:
/// removing it joins them (`import os` + `class A:` → `import osclass A:`), which no edit means by
/// a text that shows only one of the two lines. That is the blank line's deletion sent again (a
/// retry), at every tier. The 1-based lines of the match.
pub fn blank_line_gone(h: &Haystack, found: &[Match], read: bool) -> Option<(usize, usize)> {
    let is_break = |s: &str| matches!(s, "\n" | "\r\n" | "\r");
    let breaks = ['\n', '\r'];
    // The line before `at` (the text from its start) and the line from `at` on show text.
    let shows = |line: &str| !line.trim().is_empty();
    let line_before = |at: usize| &h.text[h.text[..at].rfind(breaks).map_or(0, |i| i + 1)..at];
    let line_from =
        |at: usize| &h.text[at..h.text[at..].find(breaks).map_or(h.text.len(), |i| at + i)];
    found.iter().find_map(|m| {
        let (t, r) = (&h.text[m.start..m.end], m.replacement.as_str());
        if r.trim().is_empty() {
            return None;
        }
        // The break removed, with the trailing whitespace of the line it ends (a blank first line
        // of `old` matched the tail `\t` of `}\t`: ground truth seed 31 case 535968).
        let lone_break = |s: &str| is_break(s.trim_start_matches([' ', '\t']));
        let lead = t.strip_suffix(r).is_some_and(lone_break) && !r.starts_with(breaks);
        let trail = t.strip_prefix(r).is_some_and(lone_break) && !r.ends_with(breaks);
        let gone = match m.tier == Tier::Exact && !read {
            // Matched as sent: only a join of two lines that show text.
            true => {
                let brk = t.len().saturating_sub(r.len());
                (lead && shows(line_before(m.start)) && shows(line_from(m.start + brk)))
                    || (trail && shows(line_before(m.end - brk)) && shows(line_from(m.end)))
            }
            false => {
                (lead && m.start > 0 && !h.text[..m.start].ends_with(breaks))
                    || (trail && !h.text[m.end..].starts_with(breaks))
            }
        };
        gone.then(|| (h.line_of(m.start), h.end_line_of(m.start, m.end)))
    })
}

/// Where `new` stands (at the tolerance tiers, with as many lines as `new`: a tier that forgives
/// blank lines at the edges would otherwise find it where only `old` stands, when what `new` adds is
/// blank lines) around the match `m` of `old`: 1-based lines. Searched in the lines around `m` only
/// (as many as `new` has, on each side), since an occurrence that holds `m` lies there: one search
/// costs the size of the edit, not of the file.
///
/// What `new` adds before `old` may be only a line break (`old = "x"`, `new = "\nx"`): then the
/// break the file has before `x` is the previous line's own, and `new` stands there before it was
/// ever applied. Such an occurrence counts only when it starts the file or the byte before it is a
/// line break too (a blank line was inserted); likewise a break added after an `old` that ends inside its line counts only
/// when a line break follows the occurrence.
fn new_around(
    h: &Haystack,
    m: &Match,
    old: &str,
    new: &str,
    tol: Tolerance,
) -> Option<(usize, usize)> {
    let lt = h.lines();
    if lt.is_empty() {
        return None;
    }
    // At the tier that forgives blank lines at the edges, `old` matched without the blank lines it
    // has there; `new` stands without as many of its own (what it adds inside still counts).
    let lines = new.lines().count();
    let fewest = lines - blank_edges_forgiven(m, old, new);
    let reach = lines + 2;
    let (first, last) = (
        lt.index_of(m.start),
        lt.index_of(m.end.max(m.start + 1) - 1),
    );
    let lo = lt.start(first.saturating_sub(reach));
    let hi = lt.end((last + reach).min(lt.len() - 1));
    let sub = &h.text[lo..hi];
    let sh = Haystack::new(sub);
    let spans: Vec<(usize, usize)> = match locate(&sh, new, new, 1, tol) {
        Ok(ms) => ms.iter().map(|x| (x.start, x.end)).collect(),
        Err(Miss::Count { spans, .. }) | Err(Miss::Overlapping { spans, .. }) => spans,
        Err(_) => return None,
    };
    let (before, after) = merged_breaks(old, new);
    let brk = |b: Option<&u8>| matches!(b, Some(b'\n' | b'\r'));
    let bytes = h.text.as_bytes();
    spans
        .into_iter()
        .map(|(s, e)| (lo + s, lo + e))
        .find(|&(s, e)| {
            s <= m.start
                && m.end <= e
                && (fewest..=lines).contains(&h.text[s..e].lines().count())
                && (!before || s == 0 || brk(bytes.get(s - 1)))
                && (!after || brk(bytes.get(e)))
        })
        .map(|(s, e)| (h.line_of(s), h.end_line_of(s, e)))
}

/// How many blank lines at the edges of `new` a match of `old` at [`Tier::BlankEdges`] did without:
/// at each edge, as many as `old` has there and `new` has too.
fn blank_edges_forgiven(m: &Match, old: &str, new: &str) -> usize {
    if m.tier != Tier::BlankEdges {
        return 0;
    }
    let blank = |l: &&&str| l.trim().is_empty();
    let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let lead = o.iter().take_while(blank).count();
    let trail = o.iter().rev().take_while(blank).count();
    let n_lead = n.iter().take_while(blank).count().min(lead);
    let n_trail = n.iter().rev().take_while(blank).count().min(trail);
    (n_lead + n_trail).min(n.len().saturating_sub(1))
}

/// Whether what `new` adds around `old` (`new = before + old + after`) merges with the line breaks
/// of `old`'s own line: `before` is only whitespace ending in a line break while `old` starts
/// inside a line, or `after` is only whitespace starting with a line break while `old` ends inside
/// its line.
fn merged_breaks(old: &str, new: &str) -> (bool, bool) {
    let Some(k) = new.find(old) else {
        return (false, false);
    };
    let (pre, post) = (&new[..k], &new[k + old.len()..]);
    let is_break = |c: char| c == '\n' || c == '\r';
    let before = !pre.is_empty()
        && pre.trim().is_empty()
        && pre.ends_with(is_break)
        && !old.starts_with(is_break);
    let after = !post.is_empty()
        && post.trim().is_empty()
        && post.starts_with(is_break)
        && !old.ends_with(is_break);
    (before, after)
}

/// What one edit or hunk is, against the file as it is.
enum State {
    /// Its result is in the file: 1-based lines where it stands, and whether its `old` side is still
    /// found (inside that result).
    Applied((usize, usize), bool),
    /// It applies.
    Pending,
    /// Neither: the original refusal stands.
    Missing,
}

/// `missing`: the batch already found this edit's `old` nowhere (the refusal being classified), so
/// it is not searched again (on a large file a miss costs the whole tolerance ladder).
fn edit_state(h: &Haystack, e: &Edit, tol: Tolerance, missing: bool) -> State {
    if e.old.is_empty() {
        return State::Missing;
    }
    let expected = e.expected_replacements.unwrap_or(1);
    let not_found = || {
        Err(Miss::NotFound {
            needle: String::new(),
        })
    };
    let mut pair = (e.old.clone(), e.new.clone());
    let mut found = match missing {
        true => not_found(),
        false => locate(h, &pair.0, &pair.1, expected, tol),
    };
    if matches!(found, Err(Miss::NotFound { .. }))
        && tol == Tolerance::Safe
        && !e.old.contains('\n')
        && e.old.contains("\\n")
    {
        // As the batch reads it: an `old` escaped once too often.
        pair = (unescape_once(&e.old), unescape_once(&e.new));
        found = match missing {
            true => not_found(),
            false => locate(h, &pair.0, &pair.1, expected, tol),
        };
    }
    let (old, new) = (&pair.0, &pair.1);
    match found {
        Ok(found) => {
            if let Some(at) = edit_reapplied(h, old, new, &found, tol) {
                State::Applied(at, true)
            } else {
                State::Pending
            }
        }
        Err(Miss::NotFound { .. }) => {
            // Only a `new` with a line of its own (one `old` does not have) can be recognised: a
            // deletion's `new` is part of its `old`, and finding it says nothing (a stale deletion
            // would read as applied).
            if new.trim().is_empty()
                || !has_own_line(old.lines(), new.lines())
                || !added_lines_present(h.text, "", new)
            {
                return State::Missing;
            }
            let lines = new.lines().count();
            match locate(h, new, new, expected, tol) {
                // Every occurrence as many lines as `new` (not a blank-edge trimmed form of it).
                Ok(n)
                    if n.iter()
                        .all(|n| h.text[n.start..n.end].lines().count() == lines) =>
                {
                    State::Applied(
                        (h.line_of(n[0].start), h.end_line_of(n[0].start, n[0].end)),
                        false,
                    )
                }
                _ => State::Missing,
            }
        }
        Err(_) => State::Missing,
    }
}

/// After a batch of edits was refused with `SEARCH_BLOCK_NOT_FOUND`: `ALREADY_APPLIED` when every
/// edit is either already applied or applies, and one at least is already applied; `None` otherwise
/// (the original refusal stands). `first` is the index the refusal named, classified first.
pub fn classify_edits(
    text: &str,
    edits: &[Edit],
    first: Option<usize>,
    tol: Tolerance,
) -> Option<Failure> {
    if edits.len() > MAX_CLASSIFIED {
        return None;
    }
    let h = Haystack::new(text);
    let order = first
        .filter(|&f| f < edits.len())
        .into_iter()
        .chain((0..edits.len()).filter(|&i| Some(i) != first));
    let mut states: Vec<Option<State>> = (0..edits.len()).map(|_| None).collect();
    for i in order {
        match edit_state(&h, &edits[i], tol, Some(i) == first) {
            State::Missing => return None,
            s => states[i] = Some(s),
        }
    }
    let states: Vec<State> = states.into_iter().flatten().collect();
    let one = edits.len() == 1;
    failure("edits", &states, |i| match one {
        true => "the edit".to_string(),
        false => format!("edits[{i}]"),
    })
}

/// `editLines` insertions retried: an `insert_after` (`insert_before`) whose lines, one at least not
/// blank, already stand right after (before) its anchor line is already applied (an insertion's
/// anchor line does not change, so its anchor stays valid and a retry would insert the lines
/// again). Likewise a `replace` that keeps its range's lines and adds lines after (before) them,
/// when its whole result already stands there ([`replace_grown_at`]). `ALREADY_APPLIED` listing
/// them, and the other ops as pending; `None` when none is.
pub fn reapplied_line_ops(
    lt: &LineTable,
    text: &str,
    ops: &[crate::edit::line_edit::LineOp],
) -> Option<Failure> {
    use crate::edit::line_edit::Kind;
    let same = |at: usize, lines: &[String]| {
        lines
            .iter()
            .enumerate()
            .all(|(x, l)| at + x < lt.len() && lt.content(at + x, text).trim_end() == l.trim_end())
    };
    let states: Vec<State> = ops
        .iter()
        .map(|op| {
            let n = op.lines.len();
            let solid = op.lines.iter().any(|l| !l.trim().is_empty());
            let s = op.start.line;
            let at = match op.kind {
                Kind::InsertAfter if solid => Some(s),
                Kind::InsertBefore if solid && s > n => Some(s - 1 - n),
                Kind::Replace => replace_grown_at(lt, op, &same),
                _ => None,
            };
            match at.filter(|&at| same(at, &op.lines)) {
                Some(at) => State::Applied((at + 1, at + n), true),
                None => State::Pending,
            }
        })
        .collect();
    failure("ops", &states, |i| match ops.len() {
        1 => "the op".to_string(),
        _ => format!("ops[{i}]"),
    })
}

/// An op's first and last line (1-based), the number of lines it writes and of lines in its range.
fn op_range(op: &crate::edit::line_edit::LineOp) -> Option<(usize, usize, usize, usize)> {
    let (s, e) = (
        op.start.line,
        op.end.as_ref().map_or(op.start.line, |a| a.line),
    );
    Some((s, e, op.lines.len(), (e + 1).checked_sub(s)?))
}

/// A `replace` whose lines are its range's lines plus lines added after (before) them, one at least
/// not blank, that already stand right after (before) the range: an insertion written as a
/// replacement, retried (its range is unchanged, so its anchors stay valid). The 0-based line where
/// its lines stand.
fn replace_grown_at(
    lt: &LineTable,
    op: &crate::edit::line_edit::LineOp,
    same: &impl Fn(usize, &[String]) -> bool,
) -> Option<usize> {
    let (s, e, n, r) = op_range(op)?;
    if s == 0 || r == 0 || n <= r || e > lt.len() {
        return None;
    }
    let solid = |ls: &[String]| ls.iter().any(|l| !l.trim().is_empty());
    let k = n - r;
    if solid(&op.lines[r..]) && same(s - 1, &op.lines) {
        return Some(s - 1);
    }
    if s > k && solid(&op.lines[..k]) && same(s - 1 - k, &op.lines) {
        return Some(s - 1 - k);
    }
    None
}

/// The `ALREADY_APPLIED` refusal of a batch of `n` edits of which those in `reapplied` (index, lines
/// where its result stands) were found inside their own result; the others apply.
pub fn reapplied_edits(n: usize, reapplied: &[(usize, (usize, usize))]) -> Failure {
    let states: Vec<State> = (0..n)
        .map(|i| match reapplied.iter().find(|r| r.0 == i) {
            Some(&(_, at)) => State::Applied(at, true),
            None => State::Pending,
        })
        .collect();
    let one = n == 1;
    failure("edits", &states, |i| match one {
        true => "the edit".to_string(),
        false => format!("edits[{i}]"),
    })
    .unwrap_or_else(|| {
        Failure::new(
            Code::InternalError,
            "already-applied edits were not reported",
        )
    })
}

/// Whether `after`, what a reading of a batch makes of `text`, is that batch applied a second time:
/// `after` only inserts runs of lines, each a copy of the lines right above or right below it in
/// `text`, and the same reading (`rerun`) applied to `text` without those copies gives `text` exactly.
/// Used for the in-turn reading, where a retried batch can match again in the text its own first
/// application wrote, and no single edit shows it.
pub fn repeats_itself(text: &str, after: &str, rerun: impl Fn(&str) -> Option<String>) -> bool {
    let tl: Vec<&str> = text.split_inclusive('\n').collect();
    let al: Vec<&str> = after.split_inclusive('\n').collect();
    // A step budget, not a clock: the same text gives the same diff under any load.
    let ops = crate::edit::matcher::bounded_diff(&tl, &al, &mut {
        crate::edit::matcher::LINE_DIFF_STEPS
    });
    let mut copies: Vec<std::ops::Range<usize>> = Vec::new();
    for op in ops {
        match op {
            similar::DiffOp::Equal { .. } => {}
            similar::DiffOp::Insert {
                old_index: p,
                new_index,
                new_len,
            } => {
                let b = &al[new_index..new_index + new_len];
                if p >= new_len && &tl[p - new_len..p] == b {
                    copies.push(p - new_len..p);
                } else if p + new_len <= tl.len() && &tl[p..p + new_len] == b {
                    copies.push(p..p + new_len);
                } else {
                    return false;
                }
            }
            _ => return false,
        }
    }
    if copies.is_empty() || copies.windows(2).any(|w| w[1].start < w[0].end) {
        return false;
    }
    let before: String = tl
        .iter()
        .enumerate()
        .filter(|(i, _)| !copies.iter().any(|c| c.contains(i)))
        .map(|(_, l)| *l)
        .collect();
    rerun(&before).as_deref() == Some(text)
}

/// The lines of a hunk's `old` side form one run of lines of its `new` side (an insertion, or a pure
/// insertion): the shape that can match again inside its own result.
fn grows(hk: &Hunk) -> bool {
    let (old, new) = (hk.old_lines(), hk.new_lines());
    if old.len() >= new.len() || !new.iter().any(|l| !l.trim().is_empty()) {
        return false;
    }
    old.is_empty() || new.windows(old.len()).any(|w| w == old.as_slice())
}

/// The hunk's `new` side as a hunk of context lines under the same scopes, located as hunks are: the
/// 1-based lines where it stands, when it stands exactly once.
fn new_side_at(text: &str, hk: &Hunk, tol: Tolerance) -> Option<(usize, usize)> {
    let new: Vec<&str> = hk.new_lines();
    if new.is_empty() {
        return None;
    }
    let old_lines = hk.old_lines().join("\n");
    if !added_lines_present(text, &old_lines, &new.join("\n")) {
        return None;
    }
    let probe = Hunk {
        anchors: hk.anchors.clone(),
        lines: new
            .iter()
            .map(|l| HunkLine::Context(l.to_string()))
            .collect(),
        at_eof: hk.at_eof || hk.old_no_eol || hk.new_no_eol,
        line_hint: None,
        source_line: hk.source_line,
        old_no_eol: hk.new_no_eol,
        new_no_eol: hk.new_no_eol,
        alt_lines: None,
    };
    let a = apply_hunks(text, std::slice::from_ref(&probe), tol).ok()?;
    let m = a.matches.first()?;
    // As many lines as the new side (not a blank-edge trimmed form of it).
    (m.end_line + 1 - m.start_line == new.len()).then_some((m.start_line, m.end_line))
}

/// Whether a hunk that matched at lines `at` (for a pure insertion: `(after, after)`, the line the
/// lines go after) stands already applied there: see the module doc. `lt` is `text`'s line table.
fn hunk_applied_at(
    text: &str,
    lt: &LineTable,
    hk: &Hunk,
    at: (usize, usize),
    tol: Tolerance,
) -> Option<(usize, usize)> {
    readings(hk).into_iter().find_map(|hk| {
        let new = hk.new_lines();
        if !grows(&hk) {
            // Its old side a run of its new side only through the liberties it was read with (a
            // context line repeated by an added line written in the other frame).
            let old = hk.old_lines();
            let solid = new.iter().any(|l| !l.trim().is_empty());
            return match !old.is_empty() && old.len() < new.len() && solid {
                true => new_side_read_around(text, lt, &hk, at),
                false => None,
            };
        }
        if hk.old_lines().is_empty() {
            // A pure insertion: its lines right above or right below the point it inserts at.
            return adjacent(text, lt, &new, at.0);
        }
        new_side_around(text, lt, &hk, at, tol)
            .filter(|&(s, e)| s <= at.0 && at.1 <= e)
            .or_else(|| new_side_read_around(text, lt, &hk, at))
    })
}

/// Where the hunk's new side stands around lines `at` read line by line through the liberties its
/// old side needed there ([`liberties::reads_as`]): for a hunk whose added lines were written in
/// another indentation frame than its context (the file's columns beside a shifted context), which
/// no tier reads as one block.
fn new_side_read_around(
    text: &str,
    lt: &LineTable,
    hk: &Hunk,
    at: (usize, usize),
) -> Option<(usize, usize)> {
    let (old, new) = (hk.old_lines(), hk.new_lines());
    let region = &text[lt.start(at.0.checked_sub(1)?)..lt.end(at.1.checked_sub(1)?)];
    let needed = liberties::at_match(&old, region)?;
    // The old side's lines among the new side's, but for the liberties the old side needed (a line
    // of context copied beside an added line written in the other frame).
    let run_at = |k: usize| (0..old.len()).all(|j| liberties::alike(new[k + j], old[j], needed));
    (0..=new.len() - old.len())
        .filter(|&k| run_at(k))
        .find_map(|k| {
            let s = at.0.checked_sub(k).filter(|&s| s >= 1)?;
            liberties::reads_as(text, lt, &new, s, needed).then_some((s, s + new.len() - 1))
        })
}

/// Where the hunk's `new` side stands around lines `at` (where its `old` side matched): for each
/// place of the `old` side's lines within the `new` side's, the lines of the file that the `new`
/// side would cover there, matched against it as a hunk of context lines (the tolerance tiers, on
/// exactly those lines; to the end of the file for a hunk bound to it). Its scopes already chose
/// `at`, so one check costs the size of the hunk, not of the file.
fn new_side_around(
    text: &str,
    lt: &LineTable,
    hk: &Hunk,
    at: (usize, usize),
    tol: Tolerance,
) -> Option<(usize, usize)> {
    let (old, new) = (hk.old_lines(), hk.new_lines());
    let n = lt.len();
    let eof = hk.at_eof || hk.old_no_eol || hk.new_no_eol;
    let probe = Hunk {
        lines: new
            .iter()
            .map(|l| HunkLine::Context(l.to_string()))
            .collect(),
        at_eof: eof,
        line_hint: None,
        source_line: hk.source_line,
        old_no_eol: hk.new_no_eol,
        new_no_eol: hk.new_no_eol,
        alt_lines: None,
        anchors: Vec::new(),
    };
    (0..=new.len() - old.len())
        .filter(|&k| new[k..k + old.len()] == old[..])
        .find_map(|k| {
            // 1-based first and last line the new side would cover.
            let s = at.0.checked_sub(k).filter(|&s| s >= 1)?;
            let e = s + new.len() - 1;
            if e > n || (eof && e != n) {
                return None;
            }
            let window = &text[lt.start(s - 1)..lt.end(e - 1)];
            let a = apply_hunks(window, std::slice::from_ref(&probe), tol).ok()?;
            let m = a.matches.first()?;
            (m.start_line == 1 && m.end_line == new.len()).then_some((s, e))
        })
}

/// Where `lines` (compared without edge whitespace) stand right above or right below the point after
/// 1-based line `after` of `text`: the 1-based lines, when they do.
fn adjacent(text: &str, lt: &LineTable, lines: &[&str], after: usize) -> Option<(usize, usize)> {
    let n = lt.len();
    let k = lines.len();
    let same = |from: usize| (0..k).all(|i| lt.content(from + i, text).trim() == lines[i].trim());
    if k == 0 || after > n {
        return None;
    }
    if after >= k && same(after - k) {
        return Some((after - k + 1, after));
    }
    if after + k <= n && same(after) {
        return Some((after + 1, after + k));
    }
    None
}

/// The hunk as written, and its other reading when its context lines lost their prefix
/// ([`Hunk::alt_lines`]); then each as the `blank_edges` tier reads it, without the blank context
/// lines at its edges (a hunk that inserts between a line and a blank one matches its own result
/// there: the blank line is trimmed, and what is left is a line its `+` lines now follow).
fn readings(hk: &Hunk) -> Vec<Hunk> {
    let mut out = vec![hk.clone()];
    if let Some(alt) = &hk.alt_lines {
        out.push(Hunk {
            lines: alt.clone(),
            alt_lines: None,
            ..hk.clone()
        });
    }
    let trimmed: Vec<Hunk> = out.iter().filter_map(without_blank_edges).collect();
    out.extend(trimmed);
    out
}

/// The hunk without the blank context and `-` lines at its edges (as the `blank_edges` tier matches
/// it: a blank `-` line it found no blank line for deletes nothing), when it has some and keeps a
/// context or `-` line.
fn without_blank_edges(hk: &Hunk) -> Option<Hunk> {
    let blank = |l: &HunkLine| matches!(l, HunkLine::Context(t) | HunkLine::Remove(t) if t.trim().is_empty());
    let lead = hk.lines.iter().take_while(|l| blank(l)).count();
    let trail = hk.lines[lead..]
        .iter()
        .rev()
        .take_while(|l| blank(l))
        .count();
    let lines = &hk.lines[lead..hk.lines.len() - trail];
    let keeps_old = lines.iter().any(|l| !matches!(l, HunkLine::Add(_)));
    (lead + trail > 0 && keeps_old).then(|| Hunk {
        lines: lines.to_vec(),
        alt_lines: None,
        ..hk.clone()
    })
}

/// A hunk retried at a near-twin of the place it was applied to ([`retried_at_a_twin`] for hunks):
/// its new side (context and `+` lines) stands elsewhere read with strictly fewer liberties than
/// its old side (context and `-` lines) needed at the lines `at` where it matched
/// ([`liberties::closer_elsewhere`]): after a first application that place holds the new side, and
/// the old side is found only where a twin that differs in whitespace, typography or indentation
/// still holds it. The new side must be the hunk's own: a line no line of its old side is, or (a
/// deletion) a block of two non-blank lines at least that is no run of the old side's lines (lines
/// taken out of its middle), or of three lines with words at least that are its first or last
/// lines (lines taken from one end). The 1-based lines where it stands.
fn hunk_retried_at_a_twin(
    text: &str,
    lt: &LineTable,
    hk: &Hunk,
    at: (usize, usize),
    tier: &str,
) -> Option<(usize, usize)> {
    if tier == Tier::Exact.as_str() {
        return None;
    }
    // Only the readings that read the match with the fewest liberties: the one the matcher took (a
    // hunk matched exactly is not judged by its other reading's indentation).
    let region = &text[lt.start(at.0.checked_sub(1)?)..lt.end(at.1.checked_sub(1)?)];
    let read: Vec<(Hunk, u8)> = readings(hk)
        .into_iter()
        .filter_map(|r| {
            let needed = liberties::at_match(&r.old_lines(), region)?;
            Some((r, needed))
        })
        .collect();
    let fewest = read.iter().map(|(_, n)| n.count_ones()).min()?;
    read.into_iter()
        .filter(|(_, n)| n.count_ones() == fewest)
        .find_map(|(hk, needed)| {
            let (old, new) = (hk.old_lines(), hk.new_lines());
            let solid = new.iter().filter(|l| !l.trim().is_empty()).count();
            // Lines deleted from one end keep a block of context too, when it is long enough to be
            // the first application's result rather than a run of lines two places share.
            let run = solid >= 2 && old.windows(new.len()).any(|w| w == new.as_slice());
            // Three lines with words: closing braces and the like are lines every block shares.
            let worded = new
                .iter()
                .filter(|l| l.chars().any(char::is_alphanumeric))
                .count();
            let edge = run && worded >= 3 && (old.starts_with(&new) || old.ends_with(&new));
            let kept_block = solid >= 2 && !run;
            let own = has_own_line(old.iter().copied(), new.iter().copied()) || kept_block;
            if old.is_empty() || old == new || !(own || edge) {
                return None;
            }
            if !own {
                // Only lines taken from one end: strictly fewer liberties decide.
                return liberties::strictly_closer_elsewhere(text, lt, &new, needed, at);
            }
            // Context: a line the hunk keeps, not blank.
            let kept = hk
                .lines
                .iter()
                .any(|l| matches!(l, HunkLine::Context(t) if !t.trim().is_empty()));
            liberties::closer_elsewhere(text, lt, &new, needed, at, kept)
        })
}

/// After every hunk of one file landed at `matches` (one per hunk, in hunk order): `ALREADY_APPLIED`
/// when one at least is a second application of itself (see the module doc).
pub fn check_hunks(
    text: &str,
    hunks: &[Hunk],
    matches: &[crate::edit::apply_hunks::HunkMatch],
    tol: Tolerance,
) -> Result<(), Failure> {
    let mut states = Vec::with_capacity(hunks.len());
    let mut any = false;
    let lt = LineTable::new(text);
    for (hk, m) in hunks.iter().zip(matches) {
        let at = (m.start_line, m.end_line);
        match hunk_applied_at(text, &lt, hk, at, tol)
            .or_else(|| hunk_retried_at_a_twin(text, &lt, hk, at, m.tier))
        {
            Some(at) => {
                any = true;
                states.push(State::Applied(at, true));
            }
            None => states.push(State::Pending),
        }
    }
    if !any {
        return Ok(());
    }
    Err(hunk_failure(hunks, &states).unwrap_or_else(|| {
        Failure::new(
            Code::InternalError,
            "already-applied hunks were not reported",
        )
    }))
}

/// [`failure`] for hunks, with the first applied hunk's line in the patch text.
fn hunk_failure(hunks: &[Hunk], states: &[State]) -> Option<Failure> {
    let one = hunks.len() == 1;
    let f = failure("hunks", states, |i| match one {
        true => format!("the hunk (patch line {})", hunks[i].source_line),
        false => format!("hunks[{i}] (patch line {})", hunks[i].source_line),
    })?;
    let line = f
        .detail("hunk_index")
        .and_then(|v| v.as_u64())
        .and_then(|i| hunks.get(i as usize))
        .map(|h| h.source_line);
    Some(match line {
        Some(l) => f.with("hunk_line", l),
        None => f,
    })
}

fn hunk_state(text: &str, lt: &LineTable, hk: &Hunk, tol: Tolerance) -> State {
    match apply_hunks(text, std::slice::from_ref(hk), tol) {
        Ok(a) => {
            let Some(m) = a.matches.first() else {
                return State::Missing;
            };
            let at = (m.start_line, m.end_line);
            match hunk_applied_at(text, lt, hk, at, tol)
                .or_else(|| hunk_retried_at_a_twin(text, lt, hk, at, m.tier))
            {
                Some(at) => State::Applied(at, true),
                None => State::Pending,
            }
        }
        Err(f) if f.code == Code::SearchBlockNotFound => {
            let (old, new) = (hk.old_lines(), hk.new_lines());
            if old == new || !has_own_line(old.iter().copied(), new.iter().copied()) {
                return State::Missing;
            }
            match readings(hk).iter().find_map(|r| new_side_at(text, r, tol)) {
                Some(at) => State::Applied(at, false),
                None => State::Missing,
            }
        }
        Err(_) => State::Missing,
    }
}

/// After the hunks of one file were refused (not found, ambiguous or overlapping): `ALREADY_APPLIED`
/// when every hunk is either already applied or applies alone, and one at least is already applied;
/// `None` otherwise. `first` is the hunk the refusal named, classified first.
pub fn classify_hunks(
    text: &str,
    hunks: &[Hunk],
    first: Option<usize>,
    tol: Tolerance,
) -> Option<Failure> {
    if hunks.len() > MAX_CLASSIFIED {
        return None;
    }
    let order = first
        .filter(|&f| f < hunks.len())
        .into_iter()
        .chain((0..hunks.len()).filter(|&i| Some(i) != first));
    let mut states: Vec<Option<State>> = (0..hunks.len()).map(|_| None).collect();
    let lt = LineTable::new(text);
    for i in order {
        match hunk_state(text, &lt, &hunks[i], tol) {
            State::Missing => return None,
            s => states[i] = Some(s),
        }
    }
    let states: Vec<State> = states.into_iter().flatten().collect();
    hunk_failure(hunks, &states)
}

/// The `ALREADY_APPLIED` failure for a batch whose items are `states` (none `Missing`), or `None`
/// when none is applied.
fn failure(kind: &str, states: &[State], name: impl Fn(usize) -> String) -> Option<Failure> {
    let mut applied = Vec::new();
    let mut pending = Vec::new();
    let mut told = Vec::new();
    for (i, s) in states.iter().enumerate() {
        match s {
            State::Applied((a, b), still) => {
                applied.push(i);
                let how = if *still {
                    "where its old text matches: applying it again would change those lines a second time"
                } else {
                    "and its old text is no longer in the file"
                };
                told.push(format!(
                    "{} is already applied (its new text stands at lines {a}-{b}, {how})",
                    name(i)
                ));
            }
            State::Pending => pending.push(i),
            State::Missing => return None,
        }
    }
    let first = *applied.first()?;
    let message = if pending.is_empty() {
        format!(
            "{}. Nothing was written, and nothing is left to do: the file already reads as the result (a retried call?). Re-read the file to confirm.",
            told.join("; ")
        )
    } else {
        let names: Vec<String> = pending.iter().map(|&i| name(i)).collect();
        format!(
            "{}; {} not applied yet. Nothing was written: re-read the file and send only the {kind} not yet applied (pending).",
            told.join("; "),
            names.join(", ")
        )
    };
    let index_key = if kind == "hunks" {
        "hunk_index"
    } else {
        "edit_index"
    };
    Some(
        Failure::new(Code::AlreadyApplied, message)
            .with(index_key, first)
            .with("already_applied", &applied)
            .with("pending", &pending),
    )
}

mod liberties;

#[cfg(test)]
mod tests;
