//! Applying a batch of edits to a text: every `old` is located in the original text, the matches must
//! not overlap, and the result is built in one pass. Pure: no I/O.
//!
//! ```
//! use surepatch::edit::{apply::apply_edits, ir::Edit, matcher::Tolerance};
//! let out = apply_edits("a = 1\nb = 2\n", &[Edit::new("a = 1", "a = 10"), Edit::new("b = 2", "b = 20")], Tolerance::Safe).unwrap();
//! assert_eq!(out.text, "a = 10\nb = 20\n");
//! assert_eq!(out.matches.len(), 2);
//! ```

use std::collections::HashMap;

use serde::Serialize;

use crate::edit::formats::unescape_once;
use crate::edit::ir::{Dialect, Edit};
use crate::edit::matcher::smartened;
use crate::edit::matcher::{
    candidates, invisible_twins, locate, locate_in, whole_line_twins, Haystack, Layout, Miss, Tier,
    Tolerance, MAX_LISTED,
};
use crate::error::{Code, Failure};

/// Where one edit landed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MatchInfo {
    pub edit_index: usize,
    pub start_line: usize,
    pub end_line: usize,
    pub tier: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerances: Vec<&'static str>,
}

/// The result of a batch.
#[derive(Debug, Clone)]
pub struct Applied {
    pub text: String,
    /// One entry per replaced region, in file order.
    pub matches: Vec<MatchInfo>,
    /// `(old_start, old_end, new_start, new_end)` byte spans, sorted and disjoint.
    pub changes: Vec<(usize, usize, usize, usize)>,
    /// 1-based first line whose content differs.
    pub first_changed_line: usize,
    /// The loosest tier any edit needed.
    pub tier: Tier,
    /// Line numbers of the original text counted so far (hand it to [`crate::edit::diff::unified_with`]).
    pub lines: crate::edit::text::LineCounter,
    /// Liberties taken with the input (`unescaped`: an edit's `old` was unescaped once).
    pub dialect: Vec<Dialect>,
}

/// A batch located and checked, the new text not yet built: see [`plan_edits`].
#[derive(Debug, Clone)]
pub struct Planned {
    /// The replacement of each change, in file order.
    pub replacements: Vec<String>,
    /// One entry per replaced region, in file order.
    pub matches: Vec<MatchInfo>,
    /// `(old_start, old_end, new_start, new_end)` byte spans, sorted and disjoint.
    pub changes: Vec<(usize, usize, usize, usize)>,
    /// 1-based first line whose content differs.
    pub first_changed_line: usize,
    /// The loosest tier any edit needed.
    pub tier: Tier,
    /// Line numbers of the original text counted so far (hand it to [`crate::edit::diff::unified_with`]).
    pub lines: crate::edit::text::LineCounter,
    /// Liberties taken with the input (`unescaped`: an edit's `old` was unescaped once).
    pub dialect: Vec<Dialect>,
}

struct Span {
    edit: usize,
    start: usize,
    end: usize,
    replacement: String,
    tier: Tier,
    tolerances: Vec<Tier>,
}

const MAX_EDITS: usize = 10_000;

/// Edits of one call from which [`ExactIndex`] is built: a few search the text quickly one by one.
const MIN_INDEXED_EDITS: usize = 32;

/// Where each edit's `old` occurs exactly, found for all edits in one pass over the text
/// ([`crate::edit::matcher::exact_occurrences`]) instead of one pass per edit (10,000 edits of a 3.5 MB
/// file took 3 s). Empty below [`MIN_INDEXED_EDITS`] edits, or when the pass gave up (nested `old`s
/// occurring far more often than the text has bytes): each edit then searches on its own.
struct ExactIndex<'e> {
    starts: HashMap<&'e str, Vec<usize>>,
}

impl<'e> ExactIndex<'e> {
    fn new(text: &str, edits: &'e [Edit]) -> Self {
        let mut olds: Vec<&str> = edits
            .iter()
            .map(|e| e.old.as_str())
            .filter(|o| !o.is_empty())
            .collect();
        olds.sort_unstable();
        olds.dedup();
        let starts = match edits.len() >= MIN_INDEXED_EDITS {
            true => crate::edit::matcher::exact_occurrences(text, &olds)
                .map(|found| olds.into_iter().zip(found).collect())
                .unwrap_or_default(),
            false => HashMap::new(),
        };
        ExactIndex { starts }
    }

    /// The start of `old`'s one exact occurrence, when it was indexed and occurs exactly once.
    fn once(&self, old: &str) -> Option<usize> {
        match self.starts.get(old).map(Vec::as_slice) {
            Some(&[at]) => Some(at),
            _ => None,
        }
    }
}

/// Applies `edits` to `text` all or nothing.
pub fn apply_edits(text: &str, edits: &[Edit], tol: Tolerance) -> Result<Applied, Failure> {
    apply_edits_in(text, edits, tol, Layout::Free)
}

/// [`apply_edits`] on a text whose indentation reads as `layout` says (the file's kind).
pub fn apply_edits_in(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    layout: Layout,
) -> Result<Applied, Failure> {
    plan_edits_in(text, edits, tol, layout).map(|p| p.into_applied(text))
}

/// Locates every edit and checks the batch (all or nothing) without building the new text: a caller
/// that writes the result can send the unchanged parts of the original straight to disk.
pub fn plan_edits(text: &str, edits: &[Edit], tol: Tolerance) -> Result<Planned, Failure> {
    plan_edits_in(text, edits, tol, Layout::Free)
}

/// [`plan_edits`] on a text whose indentation reads as `layout` says (the file's kind).
pub fn plan_edits_in(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    layout: Layout,
) -> Result<Planned, Failure> {
    if edits.is_empty() {
        return Err(Failure::new(
            Code::InvalidInput,
            "edits is empty: send at least one {old, new} edit.",
        ));
    }
    if edits.len() > MAX_EDITS {
        return Err(Failure::new(
            Code::InvalidInput,
            format!(
                "{} edits in one call; at most {MAX_EDITS} are accepted.",
                edits.len()
            ),
        ));
    }
    let h = Haystack::new(text).with_layout(layout);
    let index = ExactIndex::new(text, edits);
    let mut spans: Vec<Span> = Vec::new();
    let mut dialect = Vec::new();
    // Edits whose result is already there, and the lines where it stands.
    let mut reapplied: Vec<(usize, (usize, usize))> = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        if e.old.is_empty() {
            return Err(Failure::new(
                Code::InvalidInput,
                format!("edits[{i}].old is empty: it must hold the exact text to replace (to create a file, use createFile)."),
            )
            .with("edit_index", i));
        }
        if e.old == e.new {
            return Err(Failure::new(
                Code::NoChanges,
                format!("edits[{i}]: old and new are identical; nothing to change."),
            )
            .with("edit_index", i));
        }
        let expected = e.expected_replacements.unwrap_or(1);
        if expected == 0 {
            return Err(Failure::new(
                Code::InvalidInput,
                format!("edits[{i}].expected_replacements must be at least 1."),
            )
            .with("edit_index", i));
        }
        // The exact tier decides whenever it finds anything: an `old` the index found once is
        // located in its own span.
        let found = match index.once(&e.old).filter(|_| expected == 1) {
            Some(at) => match invisible_twins(&h, &e.old, Tier::Exact, 1, 1, 0..text.len())
                .or_else(|| {
                    whole_line_twins(
                        &h,
                        &e.old,
                        &[(at, at + e.old.len())],
                        Tier::Exact,
                        1,
                        0..text.len(),
                    )
                })
                .or_else(|| {
                    crate::edit::matcher::eof_ambiguity(
                        &h,
                        &e.old,
                        Tier::Exact,
                        &[(at, at + e.old.len())],
                    )
                })
                .filter(|_| tol != Tolerance::Exact)
            {
                Some(twins) => Err(twins),
                None => locate_in(&h, &e.old, &e.new, 1, tol, at..at + e.old.len()),
            },
            None => locate(&h, &e.old, &e.new, expected, tol),
        };
        let mut unescaped = None;
        let found = match found {
            Err(Miss::NotFound { .. })
                if tol == Tolerance::Safe
                    && !e.old.contains(['\n', '\r'])
                    && !e.new.contains(['\n', '\r'])
                    && e.old.contains("\\n")
                    && !crate::edit::formats::unescape::escapes_disagree(&e.old, &e.new)
                    && !crate::edit::formats::unescape::curly_escape_unsure(&e.new)
                    && !crate::edit::formats::unescape::new_escaping_unsure(&e.old, &e.new) =>
            {
                // `old` and `new` escaped once too often (literal `\n`, no real line break on either
                // side): the escaped form matched nowhere, so the unescaped one may, when it is
                // unique. A side with a real line break was not escaped as a whole, so its `\n` and
                // `\t` are the program's own escapes (a string literal's `"\n"`) and stay as written.
                // Each side escaped as a whole (`\"`, `\\`, `\t` outside quoted literals) or only
                // its line breaks (a program's own `"\n"` left as it is); both as a whole when that
                // `old` matches nowhere.
                // A side whose literals do not pair on their lines (a backquote closing a raw
                // string opened above the edit) shows nothing of its escaping: it is read as the
                // other side is, when that one is escaped as a whole (both one line, from one
                // encoder).
                use crate::edit::formats::unescape::{
                    escaped_as_a_whole, line_breaks_unescaped, literals_pair,
                };
                let (wo, wn) = (escaped_as_a_whole(&e.old), escaped_as_a_whole(&e.new));
                let side = |s: &str, whole: bool| match whole {
                    true => unescape_once(s),
                    false => line_breaks_unescaped(s),
                };
                let (mut old, mut new) = (
                    side(&e.old, wo || (wn && !literals_pair(&e.old))),
                    side(&e.new, wn || (wo && !literals_pair(&e.new))),
                );
                let mut again = locate(&h, &old, &new, expected, tol);
                if matches!(again, Err(Miss::NotFound { .. })) && unescape_once(&e.old) != old {
                    (old, new) = (unescape_once(&e.old), unescape_once(&e.new));
                    again = locate(&h, &old, &new, expected, tol);
                }
                if again.is_ok() {
                    crate::edit::ir::note(&mut dialect, Dialect::Unescaped);
                }
                unescaped = Some((old, new));
                again
            }
            other => other,
        }
        .map_err(|m| match m {
            // A region found but for its indentation, and a `new` that puts an elision placeholder
            // over its code: the placeholder is the refusal's cause to name, not the columns.
            Miss::InconsistentIndent { span: (s, end), .. } => {
                let elided = crate::edit::placeholder::elided_in_change(text, s, end, &e.new);
                match elided.is_empty() {
                    true => miss_failure(&h, m, i, edits.len()),
                    false => elided_failure(&h, s, &elided, Some(("edits", i))),
                }
            }
            m => miss_failure(&h, m, i, edits.len()),
        })?;
        let (old, new) = unescaped
            .as_ref()
            .map_or((e.old.as_str(), e.new.as_str()), |(o, n)| {
                (o.as_str(), n.as_str())
            });
        if found.iter().all(|m| text[m.start..m.end] == m.replacement) {
            let m = &found[0];
            return Err(Failure::new(
                Code::NoChanges,
                format!(
                    "edits[{i}]: the replacement equals the file's text at line {} (it differs from old only in noise the {} tier ignores); nothing to change.",
                    h.line_of(m.start),
                    m.tier.as_str()
                ),
            )
            .with("edit_index", i));
        }
        // Applying twice is not applying: `old` found inside the text `new` already wrote there.
        if let Some(at) = crate::edit::already::edit_reapplied(&h, old, new, &found, tol)
            .or_else(|| crate::edit::already::reapplied_as_written(&h, &found, tol))
            .or_else(|| crate::edit::already::retried_at_a_twin(&h, old, new, &found))
            .or_else(|| crate::edit::already::blank_line_gone(&h, &found, unescaped.is_some()))
        {
            reapplied.push((i, at));
            continue;
        }
        // An `old` read as ending (starting) a line it does not: lines added after (before) it
        // would split the line, its rest landing after (before) them (G21).
        if let Some(m) = found.iter().find(|m| splits_its_line(text, m, old, new)) {
            // The line split: the one `old` ends in when `new` adds lines after it.
            let after = new
                .strip_prefix(old)
                .is_some_and(|r| r.starts_with(['\n', '\r']));
            let line = h.line_of(if after { m.end } else { m.start });
            return Err(Failure::new(
                Code::SearchBlockNotFound,
                format!(
                    "edits[{i}].old is found only inside line {line}, which holds more text: the lines new adds would split that line or follow a line the edit did not copy whole. Copy the whole line into old (and new)."
                ),
            )
            .with("edit_index", i)
            .with("match_lines", [line]));
        }
        // An `old` that opens (ends) with a line break reads it as a line of its own: where the line
        // it ends (opens) holds text, a `new` without that break would join its first (last) line
        // onto that line.
        if let Some(m) = found.iter().find(|m| joins_a_line(text, m)) {
            let line = h.line_of(m.start);
            return Err(Failure::new(
                Code::SearchBlockNotFound,
                format!(
                    "edits[{i}].old opens (or ends) with a line break, which the file has only at the edge of a line with text (line {line}); new lacks that break, so writing it would join a line of new onto that line. Copy the whole lines into old and new."
                ),
            )
            .with("edit_index", i)
            .with("match_lines", [line]));
        }
        // No edit writes an elision placeholder over the code it stands for.
        for m in &found {
            let elided =
                crate::edit::placeholder::elided_in_change(text, m.start, m.end, &m.replacement);
            if !elided.is_empty() {
                return Err(elided_failure(&h, m.start, &elided, Some(("edits", i))));
            }
        }
        for m in found {
            spans.push(Span {
                edit: i,
                start: m.start,
                end: m.end,
                replacement: m.replacement,
                tier: m.tier,
                tolerances: m.tolerances,
            });
        }
    }
    if !reapplied.is_empty() {
        return Err(crate::edit::already::reapplied_edits(
            edits.len(),
            &reapplied,
        ));
    }
    // A batch-mate's old shows the model smartens: the text every match adds is folded too (an
    // exact match, or one found through a needle transform such as `blank_edges`, folds nothing
    // itself).
    if tol != Tolerance::Exact && smartened::evident(text, edits.iter().map(|e| e.old.as_str())) {
        for s in spans.iter_mut() {
            if let Some(f) = smartened::fold(&s.replacement, text) {
                s.replacement = f;
            }
        }
    }
    spans.sort_by_key(|s| (s.start, s.end));
    // Whole lines deleted at the end of a file without a final line break take the break before
    // them (see `matcher::lines_deleted_at_eof`); when that break ends the previous edit's
    // replacement, the replacement loses it instead.
    for i in 1..spans.len() {
        let (a, b) = spans.split_at_mut(i);
        let (a, b) = (&mut a[i - 1], &mut b[0]);
        let shared = &text[b.start.min(a.end)..a.end];
        if b.replacement.is_empty()
            && b.end == text.len()
            && b.start < a.end
            && matches!(shared, "\n" | "\r\n" | "\r")
            && a.replacement.ends_with(shared)
        {
            a.replacement.truncate(a.replacement.len() - shared.len());
            b.start = a.end;
        }
    }
    for w in spans.windows(2) {
        if w[1].start < w[0].end {
            let (a, b) = (w[0].edit.min(w[1].edit), w[0].edit.max(w[1].edit));
            let what = if a == b {
                format!("edits[{a}] matches overlapping regions")
            } else {
                format!("edits[{a}] and edits[{b}] overlap")
            };
            return Err(Failure::new(
                Code::OverlappingEdits,
                format!(
                    "{what} at lines {}-{}: merge them into one edit, or make them touch disjoint text. Every edit is matched against the original file, not against the result of earlier edits.",
                    h.line_of(w[1].start),
                    h.end_line_of(w[0].start, w[0].end)
                ),
            )
            .with("edit_indices", [a, b]));
        }
    }

    let mut delta = 0isize;
    let mut changes = Vec::with_capacity(spans.len());
    let mut matches = Vec::with_capacity(spans.len());
    let mut first_changed = None;
    for s in &spans {
        let ns = (s.start as isize + delta) as usize;
        changes.push((s.start, s.end, ns, ns + s.replacement.len()));
        delta += s.replacement.len() as isize - (s.end - s.start) as isize;
        if first_changed.is_none() {
            let common = common_prefix(&text[s.start..s.end], &s.replacement);
            first_changed = Some(h.line_of(s.start + common));
        }
        matches.push(MatchInfo {
            edit_index: s.edit,
            start_line: h.line_of(s.start),
            end_line: h.end_line_of(s.start, s.end),
            tier: s.tier.as_str(),
            tolerances: if s.tolerances.len() > 1 {
                s.tolerances.iter().map(|t| t.as_str()).collect()
            } else {
                Vec::new()
            },
        });
    }
    let tier = spans.iter().map(|s| s.tier).max().unwrap_or(Tier::Exact);
    Ok(Planned {
        replacements: spans.into_iter().map(|s| s.replacement).collect(),
        matches,
        changes,
        first_changed_line: first_changed.unwrap_or(1),
        tier,
        lines: h.into_counter(),
        dialect,
    })
}

impl Planned {
    /// The plan of a batch already applied (in turn): its changes, with their replacements cut from
    /// the new text.
    pub fn from_applied(a: Applied) -> Planned {
        Planned {
            replacements: a
                .changes
                .iter()
                .map(|&(_, _, ns, ne)| a.text[ns..ne].to_string())
                .collect(),
            matches: a.matches,
            changes: a.changes,
            first_changed_line: a.first_changed_line,
            tier: a.tier,
            lines: a.lines,
            dialect: a.dialect,
        }
    }

    /// Length in bytes of the text after the edits.
    pub fn after_len(&self, text: &str) -> usize {
        self.changes
            .iter()
            .fold(text.len(), |n, &(os, oe, ns, ne)| n + (ne - ns) - (oe - os))
    }

    /// `(old_start, old_end, replacement)` for each change, in file order.
    pub fn spans(&self) -> impl Iterator<Item = (usize, usize, &str)> {
        self.changes
            .iter()
            .zip(&self.replacements)
            .map(|(&(os, oe, _, _), r)| (os, oe, r.as_str()))
    }

    /// The text after the edits, built in one pass.
    pub fn render(&self, text: &str) -> String {
        let mut out = String::with_capacity(self.after_len(text));
        for p in crate::edit::text::spliced(text, 0..text.len(), self.spans()) {
            out.push_str(p);
        }
        out
    }

    /// [`Applied`]: the plan with the new text built.
    pub fn into_applied(self, text: &str) -> Applied {
        Applied {
            text: self.render(text),
            matches: self.matches,
            changes: self.changes,
            first_changed_line: self.first_changed_line,
            tier: self.tier,
            lines: self.lines,
            dialect: self.dialect,
        }
    }
}

/// Turns [`apply_edits_in_turn`] may take: a chain of blocks each editing what the one before wrote
/// is a few blocks long; more turns would cost a pass over the text each.
const MAX_TURNS: usize = 8;

/// A batch of edits, located and checked ([`plan_edits`]); when that fails because an `old` is found
/// nowhere, the batch read in turn ([`apply_edits_in_turn`], noted as `turn`); and when that fails
/// too, the refusal, or `ALREADY_APPLIED` when the edits' results are already in the text
/// ([`crate::edit::already::classify_edits`]).
pub fn plan_batch(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
) -> Result<Planned, Failure> {
    plan_batch_in(text, edits, tol, turn, Layout::Free)
}

/// [`plan_batch`] on a text whose indentation reads as `layout` says (the file's kind).
pub fn plan_batch_in(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
    layout: Layout,
) -> Result<Planned, Failure> {
    match plan_edits_in(text, edits, tol, layout) {
        Err(f) if f.code == Code::SearchBlockNotFound => {
            if edits.len() > 1 {
                match edits_in_turn(text, edits, tol, turn, layout) {
                    Ok(a) => return Ok(Planned::from_applied(a)),
                    Err(Some(g)) => return Err(g),
                    Err(None) => {}
                }
            }
            let at = f
                .detail("edit_index")
                .and_then(|v| v.as_u64())
                .map(|i| i as usize);
            Err(crate::edit::already::classify_edits(text, edits, at, tol).unwrap_or(f))
        }
        Ok(p) => match read_twice(edits) {
            Some(f) => Err(f),
            None => {
                // An insertion whose result already stands where it matched, in a frame no search
                // of its `new` shows: it would write its added lines a second time.
                let rerun = |e: &Edit, t: &str| {
                    plan_edits_in(t, std::slice::from_ref(e), tol, layout)
                        .ok()
                        .map(|q| q.render(t))
                };
                // Likewise a replacement whose result already stands across its match (a region
                // the first application rewrote and `old` still spans the edge of).
                let reapplied: Vec<(usize, (usize, usize))> = p
                    .matches
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| {
                        p.matches
                            .iter()
                            .filter(|o| o.edit_index == m.edit_index)
                            .count()
                            == 1
                    })
                    .filter_map(|(k, m)| {
                        let e = &edits[m.edit_index];
                        let (s, end, _, _) = p.changes[k];
                        crate::edit::already::rewrites_itself(
                            text,
                            e,
                            (m.start_line, m.end_line),
                            |t| rerun(e, t),
                        )
                        .or_else(|| {
                            crate::edit::already::stands_across(
                                text,
                                (s, end),
                                (&e.old, &e.new),
                                &p.replacements[k],
                                |t| rerun(e, t),
                            )
                        })
                        .map(|at| (m.edit_index, at))
                    })
                    .collect();
                match reapplied.is_empty() {
                    true => Ok(p),
                    false => Err(crate::edit::already::reapplied_edits(
                        edits.len(),
                        &reapplied,
                    )),
                }
            }
        },
        other => other,
    }
}

/// A batch the two readings of a list of edits disagree on: a later edit's `old` also occurs in an
/// earlier edit's `new`. Against the file as it is (the batch reading) it matches where it matched;
/// applied in order (as Claude Code's MultiEdit and Aider read a list) it meets the earlier edit's
/// text too and matches twice. Which one the model meant is not in the edits, so the batch is refused
/// as ambiguous, naming both edits.
fn read_twice(edits: &[Edit]) -> Option<Failure> {
    edits.iter().enumerate().skip(1).find_map(|(j, later)| {
        let old = later.old.as_str();
        if old.trim().is_empty() {
            return None;
        }
        let i = edits[..j].iter().position(|e| e.new.contains(old))?;
        Some(
            Failure::new(
                Code::SearchBlockAmbiguous,
                format!(
                    "edits[{j}].old occurs in the file and also in edits[{i}].new: applied to the file as it is, it matches once; applied in order, after edits[{i}], it matches twice. Refusing to guess which one is meant."
                ),
            )
            .with("edit_index", j)
            .with("edit_indices", [i, j])
            .with(
                "hint",
                format!("Add unchanged neighbouring lines to edits[{j}].old so it matches only the place you mean, or fold it into edits[{i}]."),
            ),
        )
    })
}

/// [`plan_batch`] with the new text built.
pub fn apply_batch(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
) -> Result<Applied, Failure> {
    apply_batch_in(text, edits, tol, turn, Layout::Free)
}

/// [`apply_batch`] on a text whose indentation reads as `layout` says (the file's kind).
pub fn apply_batch_in(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
    layout: Layout,
) -> Result<Applied, Failure> {
    plan_batch_in(text, edits, tol, turn, layout).map(|p| p.into_applied(text))
}

/// Edits (or SEARCH/REPLACE blocks) applied in turn (as Aider applies blocks, and as Claude Code's
/// MultiEdit defines a list of edits), for a batch [`apply_edits`] refuses because an edit's `old`
/// occurs only in an earlier edit's output. The edits before the first one not found are applied
/// together to the text, then the rest to the result, and so on: each edit still matches exactly one
/// place in the text it meets (its `matches` entry gives lines of that text), and the work is a
/// batch pass per turn, at most [`MAX_TURNS`]. `changes` are the changed lines of the whole; `turn`
/// is the dialect noted (`blocks_in_turn`, `edits_in_turn`). `Err(None)` when a turn fails otherwise,
/// makes no progress, or the turns run out (the caller reports the first refusal);
/// `Err(Some(ALREADY_APPLIED))` when the text already reads as this reading's result
/// ([`crate::edit::already::repeats_itself`]).
pub fn apply_edits_in_turn(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
) -> Result<Applied, Option<Failure>> {
    edits_in_turn(text, edits, tol, turn, Layout::Free)
}

/// [`apply_edits_in_turn`] on a text whose indentation reads as `layout` says.
fn edits_in_turn(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
    layout: Layout,
) -> Result<Applied, Option<Failure>> {
    let a = in_turn(text, edits, tol, turn, layout).ok_or(None)?;
    let rerun = |t0: &str| match apply_edits_in(t0, edits, tol, layout) {
        Ok(b) => Some(b.text),
        Err(_) => in_turn(t0, edits, tol, turn, layout).map(|b| b.text),
    };
    if crate::edit::already::repeats_itself(text, &a.text, rerun) {
        return Err(Some(Failure::new(
            Code::AlreadyApplied,
            "these edits only apply in turn (a later edit's old is found only in an earlier edit's new), and what they would write repeats lines the file already has right there: the file already reads as their result (a retried call?). Nothing was written; re-read the file to confirm.",
        )
        .with("already_applied", (0..edits.len()).collect::<Vec<_>>())
        .with("pending", Vec::<usize>::new())));
    }
    Ok(a)
}

fn in_turn(
    text: &str,
    edits: &[Edit],
    tol: Tolerance,
    turn: Dialect,
    layout: Layout,
) -> Option<Applied> {
    let mut cur = text.to_string();
    let (mut matches, mut tier, mut dialect) = (Vec::new(), Tier::Exact, Vec::new());
    let mut from = 0;
    for _ in 0..MAX_TURNS {
        // The rest applies as one batch, or the edits before the first one not found do.
        let (a, upto) = match apply_edits_in(&cur, &edits[from..], tol, layout) {
            Ok(a) => (a, edits.len()),
            Err(f) if f.code == Code::SearchBlockNotFound => {
                let at = f.detail("edit_index")?.as_u64()? as usize;
                let upto = (at > 0).then_some(from + at)?;
                (
                    apply_edits_in(&cur, &edits[from..upto], tol, layout).ok()?,
                    upto,
                )
            }
            Err(_) => return None,
        };
        matches.extend(a.matches.into_iter().map(|m| MatchInfo {
            edit_index: from + m.edit_index,
            ..m
        }));
        tier = tier.max(a.tier);
        for d in a.dialect {
            crate::edit::ir::note(&mut dialect, d);
        }
        cur = a.text;
        from = upto;
        if from == edits.len() {
            crate::edit::ir::note(&mut dialect, turn);
            let changes = crate::edit::line_changes::line_changes(text, &cur).spans;
            let first_changed_line = changes
                .first()
                .map_or(1, |c| 1 + crate::edit::text::line_breaks(text, 0, c.0));
            return Some(Applied {
                text: cur,
                matches,
                changes,
                first_changed_line,
                tier,
                lines: crate::edit::text::LineCounter::new(),
                dialect,
            });
        }
    }
    None
}

/// `ELIDED_CONTENT` for placeholder lines `elided` (indices into the replacement's lines) of a
/// replacement of the text at `start`; `who`: the batch's kind and the edit's index.
fn elided_failure(
    h: &Haystack,
    start: usize,
    elided: &[(usize, &str)],
    who: Option<(&str, usize)>,
) -> Failure {
    let first = h.line_of(start);
    let lines: Vec<(usize, &str)> = elided.iter().map(|&(j, l)| (first + j, l)).collect();
    let (name, f) = match who {
        Some((kind, i)) => (format!("{kind}[{i}]"), Some(i)),
        None => ("the edit".to_string(), None),
    };
    let out = crate::edit::placeholder::elided_failure(&lines, &name);
    match f {
        Some(i) => out.with("edit_index", i),
        None => out,
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut n = n.min(a.len());
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

#[derive(Serialize)]
struct Region {
    start_line: usize,
    end_line: usize,
}

fn regions(h: &Haystack, spans: &[(usize, usize)]) -> Vec<Region> {
    spans
        .iter()
        .map(|&(s, e)| Region {
            start_line: h.line_of(s),
            end_line: h.end_line_of(s, e),
        })
        .collect()
}

/// Whether an `old`, matched at `m` with text left on its line beside it (after or before it),
/// has a `new` that is `old` and a line break and more (more, a line break, and `old`): the model
/// read `old` as a line and adds lines after (before) it. With text on the side where lines are
/// added, the rest of the line would land on the far side of them (`\nretries:` matched in front
/// of `retries: 1`, new adding a line after it); with text on the other side, the lines follow a
/// line the model did not copy whole (`name: x` found at the end of `  - name: x`). Either way `ok`
/// inside `echo "ok\n"` is a line the model did not see, not one it chose.
pub fn splits_its_line(text: &str, m: &crate::edit::matcher::Match, old: &str, new: &str) -> bool {
    if old.trim().is_empty() {
        return false;
    }
    let line_start = text[..m.start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line_end = text[m.end..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| m.end + i);
    let (before, after) = (&text[line_start..m.start], &text[m.end..line_end]);
    let brk = |s: &str| s.starts_with(['\n', '\r']);
    // A match ending (starting) with a line break (its own, or one a mixed file's span took on)
    // ends (starts) at a line's edge.
    let region = &text[m.start..m.end];
    // Lines added after `old` (before it): its rest starts with a line break, or `old` ends with
    // one (starts with one) and more follows (precedes) it.
    let ends_brk = |s: &str| s.ends_with(['\n', '\r']);
    let grows_after = new
        .strip_prefix(old)
        .is_some_and(|r| brk(r) || (ends_brk(old) && !r.trim().is_empty()));
    let grows_before = new
        .strip_suffix(old)
        .is_some_and(|p| ends_brk(p) || (brk(old) && !p.trim().is_empty()));
    // The line `old` stands for must be a whole line of the file (its indentation aside): text on
    // either side makes it part of a longer line, which the lines added beside it would either
    // split or follow unseen (`name: x` + a line, found at the end of `  - name: x`; seed 30 cases
    // 23507 and 816620, stale edits landing after another line).
    // (A match that ends or starts with a line break has no text beyond that edge on its line.)
    let text_after = !ends_brk(region) && !after.trim().is_empty();
    let text_before = !brk(region) && !before.trim().is_empty();
    (grows_after || grows_before) && (text_after || text_before)
}

/// Whether the match `m` opens with a line break that ends a line holding text (or ends with one
/// that a line holding text follows), and its replacement, not empty, lacks a break there: the
/// model read that break as a blank line of its own, and the replacement's first (last) line would
/// be joined onto the line beside it (`}\nint f() {` by `\nint f() {` → `int f() {\n...` writes
/// `}int f() {`).
pub fn joins_a_line(text: &str, m: &crate::edit::matcher::Match) -> bool {
    let (region, new) = (&text[m.start..m.end], m.replacement.as_str());
    let brk = |s: &str| s.starts_with(['\n', '\r']);
    let ends_brk = |s: &str| s.ends_with(['\n', '\r']);
    // An `old` of line breaks alone names the breaks themselves.
    if new.trim().is_empty() || region.trim().is_empty() {
        return false;
    }
    let before = &text[text[..m.start].rfind(['\n', '\r']).map_or(0, |i| i + 1)..m.start];
    let after = &text[m.end
        ..text[m.end..]
            .find(['\n', '\r'])
            .map_or(text.len(), |i| m.end + i)];
    (brk(region) && !brk(new) && !before.trim().is_empty())
        || (ends_brk(region) && !ends_brk(new) && !after.trim().is_empty())
}

fn miss_failure(h: &Haystack, miss: Miss, i: usize, n_edits: usize) -> Failure {
    let at = if n_edits > 1 {
        format!("edits[{i}]: ")
    } else {
        String::new()
    };
    match miss {
        Miss::EmptyOld => {
            Failure::new(Code::InvalidInput, format!("{at}old is empty.")).with("edit_index", i)
        }
        Miss::NotFound { needle } => {
            let cands = candidates::nearest(h, &needle, 3);
            let (message, hint) = match cands.first() {
                Some(c) => {
                    let what = c
                        .differences
                        .first()
                        .map(|d| format!(" Differs: {d}."))
                        .unwrap_or_default();
                    (
                        format!(
                            "{at}the search text was not found, exactly or with whitespace/typography tolerance. Nearest: lines {}-{} (similarity {:.2}).{what}",
                            c.start_line, c.end_line, c.similarity
                        ),
                        format!(
                            "Re-read lines {}-{} and copy the text exactly as it is now; do not elide lines with '...'.",
                            c.start_line, c.end_line
                        ),
                    )
                }
                None => (
                    format!(
                        "{at}the search text was not found, and nothing in the file resembles it."
                    ),
                    "Check that this is the right file, and re-read it before editing.".to_string(),
                ),
            };
            Failure::new(Code::SearchBlockNotFound, message)
                .with("edit_index", i)
                .with("match_count", 0)
                .with("candidates", cands)
                .with("hint", hint)
                .with("file_lines", h.lines().len())
        }
        Miss::Count {
            tier,
            count,
            spans,
            expected,
        } => {
            let listed = regions(h, &spans);
            let lines: Vec<usize> = listed.iter().map(|r| r.start_line).collect();
            let (shown, more, via) =
                crate::edit::matcher::words::describe_places(&lines, count, tier);
            let (code, message, hint) = if count > expected && expected == 1 {
                (
                    Code::SearchBlockAmbiguous,
                    format!("{at}the search text occurs {count} times{via}, at lines {shown}{more}; refusing to guess."),
                    "Add unchanged neighbouring lines to old until it is unique, or set expected_replacements to replace every occurrence.".to_string(),
                )
            } else {
                (
                    Code::MatchCountMismatch,
                    format!("{at}expected {expected} occurrences but found {count}{via}, at lines {shown}{more}."),
                    format!("Set expected_replacements to {count}, or change old so it matches exactly {expected} places."),
                )
            };

            Failure::new(code, message)
                .with("edit_index", i)
                .with("match_count", count)
                .with("expected_replacements", expected)
                .with("match_lines", &lines)
                .with("matches", &listed)
                .with("truncated", count > MAX_LISTED)
                .with("tier", tier.as_str())
                .with("hint", hint)
        }
        Miss::Overlapping { tier, spans } => {
            let listed = regions(h, &spans);
            let lines: Vec<usize> = listed.iter().map(|r| r.start_line).collect();
            Failure::new(
                Code::SearchBlockAmbiguous,
                format!("{at}the search text occurs at overlapping places (lines {lines:?}); they cannot all be replaced."),
            )
            .with("edit_index", i)
            .with("match_count", spans.len())
            .with("match_lines", &lines)
            .with("matches", &listed)
            .with("tier", tier.as_str())
            .with("hint", "Make old longer so its occurrences do not overlap.")
        }
        Miss::InconsistentIndent { span, why } => {
            let (s, e) = span;
            let (sl, el) = (h.line_of(s), h.end_line_of(s, e));
            let (difference, message) =
                crate::edit::matcher::words::indent_miss_words(why, sl, el, "new");
            let c = candidates::Candidate {
                start_line: sl,
                end_line: el,
                similarity: 1.0,
                snippet: candidates::snippet(h, sl - 1, el),
                differences: vec![difference.into()],
            };
            Failure::new(Code::SearchBlockNotFound, format!("{at}{message}"))
                .with("edit_index", i)
                .with("match_count", 0)
                .with("candidates", [c])
                .with(
                    "hint",
                    format!("Re-read lines {sl}-{el} and copy their indentation exactly."),
                )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(r: Result<Applied, Failure>) -> Code {
        r.expect_err("should fail").code
    }

    #[test]
    fn blocks_in_turn_each_match_the_text_the_ones_before_left() {
        let text = "a = 1\nb = 2\nc = 3\n";
        // The second SEARCH holds the first one's REPLACE: not in the original text.
        let edits = [
            Edit::new("b = 2\n", "b = 20\n"),
            Edit::new("b = 20\nc = 3\n", "b = 20\nc = 30\n"),
        ];
        assert_eq!(
            codes(apply_edits(text, &edits, Tolerance::Safe)),
            Code::SearchBlockNotFound
        );
        let a = apply_edits_in_turn(text, &edits, Tolerance::Safe, Dialect::BlocksInTurn).unwrap();
        assert_eq!(a.text, "a = 1\nb = 20\nc = 30\n");
        assert_eq!(a.dialect, vec![Dialect::BlocksInTurn]);
        assert_eq!(a.changes, vec![(6, 18, 6, 20)]);
        assert_eq!(a.first_changed_line, 2);
        assert_eq!(
            a.matches.iter().map(|m| m.edit_index).collect::<Vec<_>>(),
            [0, 1]
        );
        // Each block must still match exactly one place in the text it meets.
        let twice = [Edit::new("p\n", "z\nz\n"), Edit::new("z\n", "y\n")];
        assert!(
            apply_edits_in_turn("p\nq\n", &twice, Tolerance::Safe, Dialect::BlocksInTurn)
                .unwrap_err()
                .is_none()
        );
        // Turns take blocks in groups: the blocks before the first one not found go together.
        let chain: Vec<Edit> = (0..5)
            .map(|i| Edit::new(format!("v{i}\n"), format!("v{}\n", i + 1)))
            .collect();
        let a =
            apply_edits_in_turn("v0\nw\n", &chain, Tolerance::Safe, Dialect::BlocksInTurn).unwrap();
        assert_eq!(a.text, "v5\nw\n");
        // A chain longer than the turns allow is refused (each turn is a pass over the text).
        let long: Vec<Edit> = (0..=MAX_TURNS)
            .map(|i| Edit::new(format!("v{i}\n"), format!("v{}\n", i + 1)))
            .collect();
        assert!(
            apply_edits_in_turn("v0\nw\n", &long, Tolerance::Safe, Dialect::BlocksInTurn)
                .unwrap_err()
                .is_none()
        );
    }

    #[test]
    fn many_edits_take_work_linear_in_the_text() {
        // 2,000 edits of a 20,000-line text: one pass finds every `old` (each edit searched the
        // whole text before).
        let text: String = (0..20_000)
            .map(|i| format!("let v{i} = {};\n", i * 3))
            .collect();
        let edits: Vec<Edit> = (0..2_000)
            .map(|k| {
                let i = k * 10;
                Edit::new(
                    format!("let v{i} = {};\n", i * 3),
                    format!("let v{i} = changed;\n"),
                )
            })
            .collect();
        crate::edit::matcher::search_work();
        let out = apply_edits(&text, &edits, Tolerance::Safe).unwrap();
        let work = crate::edit::matcher::search_work();
        assert_eq!(out.matches.len(), 2_000);
        assert!(out.text.contains("let v19990 = changed;\n"));
        assert!(
            work < 2 * text.len() as u64,
            "work {work} for {} bytes",
            text.len()
        );
    }

    #[test]
    fn nested_olds_cannot_make_the_index_pass_quadratic() {
        // `a`, `aa`, `aaa`, ... on 20,000 `a`: every position starts an occurrence of each. The pass
        // gives up at its budget, and the first edit, searched on its own, is ambiguous.
        let text = "a".repeat(20_000);
        let edits: Vec<Edit> = (1..=300).map(|k| Edit::new("a".repeat(k), "b")).collect();
        crate::edit::matcher::search_work();
        let f = plan_edits(&text, &edits, Tolerance::Safe).err().unwrap();
        let work = crate::edit::matcher::search_work();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        assert_eq!(f.detail("edit_index"), Some(&0.into()));
        let budget = crate::edit::matcher::exact_occurrences_budget(text.len(), 300) as u64;
        assert!(work <= budget + 4 * text.len() as u64, "work {work}");
    }

    #[test]
    fn a_batch_locates_each_edit_where_it_alone_would_land() {
        // With the index (32 edits and more) and without (one at a time), the same places, tiers
        // and refusals, over texts with repeated, overlapping and whitespace-drifted lines.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let words = [
            "x = 1", "  x = 1", "y", "yy", "return y", "", "z  =  2", "a", "aa",
        ];
        for _ in 0..300 {
            let lines: Vec<&str> = (0..60).map(|_| words[rnd(words.len())]).collect();
            let text = lines.join("\n") + "\n";
            let edits: Vec<Edit> = (0..40)
                .map(|_| {
                    let at = rnd(lines.len() - 2);
                    let old = lines[at..at + 1 + rnd(2)].join("\n");
                    let old = if rnd(4) == 0 {
                        old.replace("  ", " ")
                    } else {
                        old
                    };
                    Edit::new(old, format!("E{}", rnd(1000)))
                })
                .collect();
            let batch = plan_edits(&text, &edits, Tolerance::Safe);
            let mut alone = Vec::new();
            let mut first_refusal = None;
            for (i, e) in edits.iter().enumerate() {
                match plan_edits(&text, std::slice::from_ref(e), Tolerance::Safe) {
                    Ok(p) => alone.extend(
                        p.changes
                            .iter()
                            .zip(&p.matches)
                            .map(|(c, m)| (c.0, c.1, m.tier)),
                    ),
                    Err(f) if first_refusal.is_none() => first_refusal = Some((i, f.code)),
                    Err(_) => {}
                }
            }
            match (batch, first_refusal) {
                (Err(f), Some((i, code))) => {
                    assert_eq!(
                        (f.code, f.detail("edit_index")),
                        (code, Some(&i.into())),
                        "{text:?}"
                    );
                }
                (Ok(p), None) => {
                    alone.sort();
                    let mut got: Vec<_> = p
                        .changes
                        .iter()
                        .zip(&p.matches)
                        .map(|(c, m)| (c.0, c.1, m.tier))
                        .collect();
                    got.sort();
                    assert_eq!(got, alone, "{text:?}");
                }
                // Every edit lands alone but two overlap: the batch refuses that.
                (Err(f), None) => assert_eq!(f.code, Code::OverlappingEdits, "{text:?}"),
                (Ok(_), Some(r)) => {
                    panic!("the batch applied, but edit {r:?} alone was refused: {text:?}")
                }
            }
        }
    }

    #[test]
    fn an_old_escaped_once_too_often_is_unescaped_when_unique() {
        let text = "def f():\n    return 1\n";
        let e = Edit::new("def f():\\n    return 1", "def f():\\n    return 2");
        let a = apply_edits(text, &[e], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "def f():\n    return 2\n");
        assert_eq!(a.dialect, vec![Dialect::Unescaped]);
        // The escaped form comes first: a file holding the literal `\n` is edited as written.
        let text = "s = \"a\\nb\"\ns = 'a\nb'\n";
        let a = apply_edits(text, &[Edit::new("\"a\\nb\"", "\"c\"")], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "s = \"c\"\ns = 'a\nb'\n");
        assert!(a.dialect.is_empty());
        // A `new` with real line breaks was not escaped as a whole: its `\\n` is a string literal's
        // own escape. Unescaping it split the literal across two lines (a syntax error written).
        let text = "def f():\n    print(\"a\")\n    return 1\n";
        let e = Edit::new(
            "def f():\\n    print(\"a\")",
            "def f():\n    print(\"a\\n\")",
        );
        let f = apply_edits(text, &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        // The same edit sent with real line breaks on both sides lands, the escape kept.
        let e = Edit::new(
            "def f():\n    print(\"a\")",
            "def f():\n    print(\"a\\n\")",
        );
        let a = apply_edits(text, &[e], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "def f():\n    print(\"a\\n\")\n    return 1\n");
        // Under exact tolerance nothing is unescaped.
        let e = Edit::new("def f():\\n    return 1", "x");
        assert_eq!(
            codes(apply_edits(
                "def f():\n    return 1\n",
                &[e],
                Tolerance::Exact
            )),
            Code::SearchBlockNotFound
        );
    }

    #[test]
    fn a_twin_in_unseen_bytes_is_ambiguous_in_a_large_batch_too() {
        // From 32 edits the batch searches through a one-pass index; a twin that differs only in
        // trailing whitespace must still make the edit ambiguous there.
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&format!("v{i} = {i}\n"));
        }
        text.push_str("a()\nb()\n--\na() \nb()\n");
        let mut edits: Vec<Edit> = (0..39)
            .map(|i| Edit::new(format!("v{i} = {i}\n"), format!("v{i} = x\n")))
            .collect();
        edits.push(Edit::new("a()\nb()\n", "a()\nc()\n"));
        let f = apply_edits(&text, &edits, Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("edit_index"), Some(&39.into()));
        assert_eq!(f.detail("match_count"), Some(&2.into()));
    }

    #[test]
    fn batch_matches_against_the_original() {
        let out = apply_edits(
            "x\ny\n",
            &[Edit::new("x", "y"), Edit::new("y\n", "z\n")],
            Tolerance::Safe,
        )
        .unwrap();
        assert_eq!(out.text, "y\nz\n");
        assert_eq!(out.first_changed_line, 1);
        assert_eq!(out.matches[1].start_line, 2);
    }

    #[test]
    fn a_later_old_that_an_earlier_new_also_holds_is_ambiguous() {
        // Ground truth seed 25 case 156147 (YAML, shrunk): edits[0] adds a `size:` key under `web`,
        // edits[1] renames `    size:`, found once in the file (inside `      size: hello` of `api`).
        // In order it would meet `web`'s new key too; against the file it edits `api`'s. Refused.
        let text = "web:\n    image: a\napi:\n      size: hello\n";
        let edits = [
            Edit::new("    image: a", "    image: b\n    size:\n      - ok"),
            Edit::new("    size:", "    size3:"),
        ];
        for turn in [Dialect::EditsInTurn, Dialect::BlocksInTurn] {
            let f = apply_batch(text, &edits, Tolerance::Safe, turn).unwrap_err();
            assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
            assert_eq!(
                f.detail("edit_indices").unwrap(),
                &serde_json::json!([0, 1])
            );
        }
        // Either edit alone, or the two in the other order (the earlier old is not in the later new),
        // still lands.
        assert!(apply_batch(text, &edits[..1], Tolerance::Safe, Dialect::EditsInTurn).is_ok());
        assert!(apply_batch(text, &edits[1..], Tolerance::Safe, Dialect::EditsInTurn).is_ok());
        let swapped = [edits[1].clone(), edits[0].clone()];
        assert!(apply_batch(text, &swapped, Tolerance::Safe, Dialect::EditsInTurn).is_ok());
    }

    #[test]
    fn overlap_names_both_edits() {
        let f = apply_edits(
            "abcdef",
            &[Edit::new("abc", "1"), Edit::new("cde", "2")],
            Tolerance::Safe,
        )
        .unwrap_err();
        assert_eq!(f.code, Code::OverlappingEdits);
        assert_eq!(
            f.detail("edit_indices").unwrap(),
            &serde_json::json!([0, 1])
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(
            codes(apply_edits("a", &[], Tolerance::Safe)),
            Code::InvalidInput
        );
        assert_eq!(
            codes(apply_edits("a", &[Edit::new("", "b")], Tolerance::Safe)),
            Code::InvalidInput
        );
        assert_eq!(
            codes(apply_edits("a", &[Edit::new("a", "a")], Tolerance::Safe)),
            Code::NoChanges
        );
        assert_eq!(
            codes(apply_edits(
                "a  \n",
                &[Edit::new("a\n", "a  \n")],
                Tolerance::Safe
            )),
            Code::NoChanges
        );
        assert_eq!(
            codes(apply_edits(
                "a\na\n",
                &[Edit::new("a", "b")],
                Tolerance::Safe
            )),
            Code::SearchBlockAmbiguous
        );
        let mut e = Edit::new("a", "b");
        e.expected_replacements = Some(3);
        let f = apply_edits("a\na\n", &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::MatchCountMismatch);
        assert_eq!(f.detail("match_lines").unwrap(), &serde_json::json!([1, 2]));
    }

    /// G21, whatever stands on the other side of the match: `ok` inside `echo "ok\n"` with a line
    /// added after it would write half a string literal; a `new` that writes on the same line still
    /// lands.
    #[test]
    fn lines_added_beside_a_match_inside_a_line_are_refused() {
        let text = "f() {\n    echo \"ok\\n\"\n}\n";
        for (old, new) in [("ok", "ok\necho 1"), ("ok", "echo 1\nok")] {
            let f = apply_edits(text, &[Edit::new(old, new)], Tolerance::Safe).unwrap_err();
            assert_eq!(f.code, Code::SearchBlockNotFound, "{new:?}");
            assert_eq!(f.detail("match_lines").unwrap(), &serde_json::json!([2]));
        }
        let same_line = apply_edits(text, &[Edit::new("ok", "done")], Tolerance::Safe).unwrap();
        assert_eq!(same_line.text, "f() {\n    echo \"done\\n\"\n}\n");
        // An `old` of several lines whose last is the start of a longer line: the same split.
        let yaml = "items:\n  - a\nretries: 1\n";
        let e = Edit::new("\nretries:", "\nretries:\n  x: 1");
        let f = apply_edits(yaml, &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        assert_eq!(f.detail("match_lines").unwrap(), &serde_json::json!([3]));
        // Ending with its own line break, it ends at a line's edge: a line added there splits none.
        let e = Edit::new("  - a\n", "  - a\n  - b\n");
        let a = apply_edits(yaml, &[e], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "items:\n  - a\n  - b\nretries: 1\n");
        // So does a match whose span a mixed-ending file extended over its last line's break.
        let mixed = "cron:\n  image: x\r\n  ports: 1\n";
        let e = Edit::new("cron:\n  image: x", "cron:\n  image: x\n  size: 2");
        let a = apply_edits(mixed, &[e], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "cron:\n  image: x\r\n  size: 2\n  ports: 1\n");
    }

    /// An `old` that opens with a line break read as a blank line of its own: where the break ends
    /// a line with text, a `new` without it would join its first line onto that line (a retry of
    /// an edit that deleted the blank line). Refused with the line named; where a blank line holds
    /// the break, or `new` keeps it, or `old` is line breaks alone, it lands.
    #[test]
    fn a_line_break_at_old_s_edge_never_joins_two_lines() {
        let text = "}\r\nint load(int total) {\r\n    return item;\r\n";
        let e = Edit::new(
            "\r\nint load(int total) {",
            "int load(int total) {\r\n    return x;",
        );
        let f = apply_edits(text, std::slice::from_ref(&e), Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        assert_eq!(f.detail("match_lines").unwrap(), &serde_json::json!([1]));
        // The same at the far edge: `old` ends with the break before a line with text.
        let f = apply_edits("a\nb\n", &[Edit::new("a\n", "a\nc")], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        // After a blank line the break is that line's: the blank line goes, nothing is joined.
        let blank = "}\r\n\r\nint load(int total) {\r\n";
        let a = apply_edits(blank, std::slice::from_ref(&e), Tolerance::Safe).unwrap();
        assert_eq!(a.text, "}\r\nint load(int total) {\r\n    return x;\r\n");
        // A `new` keeping the break, or an `old` of line breaks alone, says what it joins.
        let kept = Edit::new("\nb", "\nc");
        assert_eq!(
            apply_edits("a\nb\n", &[kept], Tolerance::Safe)
                .unwrap()
                .text,
            "a\nc\n"
        );
        let breaks = Edit::new("\n", " ");
        assert_eq!(
            apply_edits("a\nb", &[breaks], Tolerance::Safe)
                .unwrap()
                .text,
            "a b"
        );
    }

    /// An insertion written in two frames (its copied lines at the file's indentation, its added
    /// line at the columns the model wrote) and retried: `old` matches again, partly inside that
    /// result, where no search of `new` finds it. Taking the added line out gives a text the edit
    /// turns back into this one: `ALREADY_APPLIED`, nothing written. The same edit on the text
    /// before lands once.
    #[test]
    fn an_insertion_whose_result_rewrites_itself_is_already_applied() {
        let e = Edit::new(
            "    println!(\"e\");\n}",
            "    println!(\"e\");\n}\n    println!(\"e\");",
        );
        let before = "impl A {\n    fn f() {\n        println!(\"e\");\n    }\n}\n";
        let once = apply_batch(
            before,
            std::slice::from_ref(&e),
            Tolerance::Safe,
            Dialect::EditsInTurn,
        )
        .unwrap();
        assert_eq!(
            once.text,
            "impl A {\n    fn f() {\n        println!(\"e\");\n    }\n    println!(\"e\");\n}\n"
        );
        let f = apply_batch(&once.text, &[e], Tolerance::Safe, Dialect::EditsInTurn).unwrap_err();
        assert_eq!(f.code, Code::AlreadyApplied);
    }

    /// One edit as a batch read in turn, at the safe tolerance.
    fn batch(text: &str, e: &Edit) -> Result<Applied, Failure> {
        apply_batch(
            text,
            std::slice::from_ref(e),
            Tolerance::Safe,
            Dialect::EditsInTurn,
        )
    }

    /// G2 (ground truth seed 29 cases 581515 and 136613, shrunk): a replacement whose `new` begins
    /// with the end of its `old` (`P X` → `X Q`), retried: `old` is found once more, across the
    /// edge of the text the first application wrote. Putting the matched text back in place of that
    /// result gives a text the edit turns into this one: `ALREADY_APPLIED`, nothing written. The
    /// first sending lands; so does the same edit where its result does not stand.
    #[test]
    fn a_replacement_retried_across_the_edge_of_its_result_is_already_applied() {
        let e = Edit::new("        return name;\n    }", "    }\n    return item;");
        let before = "fn b() {\n    if x {\n        return name;\n        return name;\n    }\n}\n";
        let once = batch(before, &e).unwrap();
        assert_eq!(
            once.text,
            "fn b() {\n    if x {\n        return name;\n    }\n    return item;\n}\n"
        );
        let f = batch(&once.text, &e).unwrap_err();
        assert_eq!(f.code, Code::AlreadyApplied, "{f:?}");
        assert_eq!(f.detail("already_applied"), Some(&serde_json::json!([0])));
        // Its `old` ending inside a line (a Go raw string's closing backquote given a suffix).
        let e = Edit::new("  - hello\n`", "` result");
        let before = "s := `\nitems:\n  - hello\n  - hello\n`\n}\n";
        let once = batch(before, &e).unwrap();
        assert_eq!(once.text, "s := `\nitems:\n  - hello\n` result\n}\n");
        let f = batch(&once.text, &e).unwrap_err();
        assert_eq!(f.code, Code::AlreadyApplied, "{f:?}");
        // The same edits where their results do not stand: they land.
        let text = "fn b() {\n        return name;\n    }\n    return other;\n}\n";
        let e = Edit::new("        return name;\n    }", "    }\n    return item;");
        let a = batch(text, &e).unwrap();
        assert_eq!(
            a.text,
            "fn b() {\n    }\n    return item;\n    return other;\n}\n"
        );
        let text = "s := `\nitems:\n  - hello\n` other\n}\n";
        let a = batch(text, &Edit::new("  - hello\n`", "` result")).unwrap();
        assert_eq!(a.text, "s := `\nitems:\n` result other\n}\n");
    }

    /// G2 (ground truth seed 42 case 23163, shrunk): the first sending matched four columns deeper
    /// than the model wrote (indentation drift) and wrote `new` there, moved four columns right. Its
    /// last line (`return item;`, now at eight columns less four) reads as `old`'s first line, and
    /// `old`, as sent, is found once more: across the edge of that result, a trailing space aside.
    /// Putting `old`, moved the same way, back in place of the moved result gives a text the edit
    /// turns into this one byte for byte: `ALREADY_APPLIED`. The same file with one byte of the
    /// moved result changed is edited, as a first sending is.
    #[test]
    fn a_replacement_retried_across_its_result_moved_by_indentation_is_already_applied() {
        let e = Edit::new(
            "    return item;\n}\n",
            "    return idx;\n}\nreturn item;\n",
        );
        let first = "int f(int y) {\n    if (item > 60) {\n        return item;\n    }\n}  \n\nint g() {\n    return 1;\n}\n";
        let once = batch(first, &e).unwrap();
        assert_eq!(
            once.text,
            "int f(int y) {\n    if (item > 60) {\n        return idx;\n    }\n    return item;\n}  \n\nint g() {\n    return 1;\n}\n"
        );
        assert_eq!(once.matches[0].tier, Tier::Indentation.as_str());
        let f = batch(&once.text, &e).unwrap_err();
        assert_eq!(f.code, Code::AlreadyApplied, "{f:?}");
        assert!(f.message.contains("lines 3-5"), "{}", f.message);
        // One byte of the moved result differs: no reproduction, the edit lands where it matches.
        let near = once.text.replace("return idx;", "return idy;");
        let a = batch(&near, &e).unwrap();
        assert_eq!(
            a.text,
            "int f(int y) {\n    if (item > 60) {\n        return idy;\n    }\n    return idx;\n}  \nreturn item;\n\nint g() {\n    return 1;\n}\n"
        );
        // Moved left: `new` written four columns deeper than the file's block it replaced.
        let e = Edit::new(
            "            return item;\n        }\n",
            "            return idx;\n        }\n        return item;\n",
        );
        let first = "    if (x) {\n        return item;\n    }\n}\n";
        let once = batch(first, &e).unwrap();
        assert_eq!(
            once.text,
            "    if (x) {\n        return idx;\n    }\n    return item;\n}\n"
        );
        let f = batch(&once.text, &e).unwrap_err();
        assert_eq!(f.code, Code::AlreadyApplied, "{f:?}");
    }

    /// An indented first line begins a line: with its indentation forgiven it is no match for the
    /// end of a longer line (`    café` is not the `café` of `  - café`).
    #[test]
    fn an_indented_first_line_matches_only_a_whole_line() {
        let text = "items:\n  - café\nEOF\n    fi\n";
        let e = Edit::new("    café\n", "    café\n    rm -f x\n");
        let f = apply_edits(text, &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        // The whole line, at another indentation, still matches.
        let e = Edit::new("    - café\n  EOF", "    - café\n    - x\n  EOF");
        let a = apply_edits(text, &[e], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "items:\n  - café\n  - x\nEOF\n    fi\n");
    }

    /// A view shows whole lines: view-numbered text is matched line for line, never ending inside a
    /// longer line; and its numbers never choose between places: the content found exactly where
    /// they do not point, and at a looser reading where they do, is two places.
    #[test]
    fn numbered_text_matches_whole_lines_and_numbers_never_choose() {
        let text = "a() {\n    rm -f x\n    rm -f y # z\n}\n";
        let e = Edit::new(
            "1\ta() {\n2\t    rm -f x\n3\t    rm -f y",
            "1\ta() {\n2\t    rm -f x",
        );
        let f = apply_edits(text, &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        // `a`, `b` and a line break stand exactly at lines 1-2; the numbers name line 5, where the
        // form without the final break is found at the end of the file (a trailing space forgiven).
        let text = "a\nb\n\nc\na \nb";
        let e = Edit::new("5: a\n6: b\n7: ", "5: a\n6: B\n7: ");
        let f = apply_edits(text, &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        // Numbered as where it stands exactly: the end of the file is still a second place (ground
        // truth seed 34 case 246896: the numbers named one of two identical functions).
        let e = Edit::new("1: a\n2: b\n3: ", "1: a\n2: B\n3: ");
        let f = apply_edits(text, std::slice::from_ref(&e), Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        // With the file's end visibly other, it lands where it stands.
        let text = "a\nb\n\nc\na \nd";
        let a = apply_edits(text, &[e], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "a\nB\n\nc\na \nd");
    }

    /// What a view does not show decides nothing at the file's end either: a block found exactly in
    /// the middle, and as the file's last lines without the final line break and with a trailing
    /// space (or in NFD), is found twice. And the form without the final break ends a line and
    /// starts no word inside one (`2\tb\n` is not the end of `12\tb`).
    #[test]
    fn the_file_s_end_is_a_twin_through_invisible_bytes_and_whole_words() {
        let e = Edit::new("x();\n}\n", "y();\n}\n");
        for text in [
            "f {\nx();\n}\ng {\nx(); \n}",
            "f {\nx();\n}\ng {\nx();\r\n}",
        ] {
            let f = apply_edits(text, std::slice::from_ref(&e), Tolerance::Safe).unwrap_err();
            assert_eq!(f.code, Code::SearchBlockAmbiguous, "{text:?}");
        }
        let e = Edit::new("s = \"caf\u{e9}\";\n}\n", "s = 1;\n}\n");
        let text = "f {\ns = \"caf\u{e9}\";\n}\ng {\ns = \"cafe\u{301}\";\n}";
        let f = apply_edits(text, &[e], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        let text = "1\ta\r\n2\tb\r\n12\tb";
        let a = apply_edits(text, &[Edit::new("2\tb\n", "2\tc\n")], Tolerance::Safe).unwrap();
        assert_eq!(a.text, "1\ta\r\n2\tc\r\n12\tb");
    }

    /// G21: a one-line `old` found only as the start (end) of a longer line, with `new` adding lines
    /// after (before) it, would split that line: refused, the file unchanged; an `old` that is the
    /// whole line, or a `new` that writes on the same line, still lands.
    #[test]
    fn lines_added_after_a_line_old_does_not_hold_whole_are_refused() {
        let text = "services:\n  cron:\n      résumé: config\n";
        for (old, new) in [
            ("résumé:", "résumé:\n  TIMEOUT: 54"),
            ("config", "  TIMEOUT: 54\nconfig"),
        ] {
            let f = apply_edits(text, &[Edit::new(old, new)], Tolerance::Safe).unwrap_err();
            assert_eq!(f.code, Code::SearchBlockNotFound, "{old:?}");
            assert_eq!(f.detail("match_lines").unwrap(), &serde_json::json!([3]));
        }
        let whole = apply_edits(
            text,
            &[Edit::new(
                "      résumé: config",
                "      résumé: config\n      x: 1",
            )],
            Tolerance::Safe,
        )
        .unwrap();
        assert_eq!(
            whole.text,
            "services:\n  cron:\n      résumé: config\n      x: 1\n"
        );
        let inline =
            apply_edits(text, &[Edit::new("résumé:", "resume:")], Tolerance::Safe).unwrap();
        assert_eq!(inline.text, "services:\n  cron:\n      resume: config\n");
        // Text on the other side too (seed 30 cases 23507 and 816620: a stale `name: résumé` line
        // found at the end of `  - name: résumé`, a line added after it): the lines would follow
        // a line the model did not copy whole.
        let text = "name: retry\nitems:\n  - name: résumé\nx = 1  # a\n";
        for (old, new) in [
            ("name: résumé", "name: résumé\nretries: hello"),
            ("name: résumé\n", "name: résumé\nretries: hello\n"),
            ("x = 1", "y = 0\nx = 1"),
        ] {
            let f = apply_edits(text, &[Edit::new(old, new)], Tolerance::Safe).unwrap_err();
            assert_eq!(f.code, Code::SearchBlockNotFound, "{old:?}");
        }
        // The whole line, indentation aside, still lands.
        let e = Edit::new("  - name: résumé", "  - name: résumé\n  - name: b");
        let a = apply_edits(text, &[e], Tolerance::Safe).unwrap();
        assert!(
            a.text.contains("  - name: résumé\n  - name: b\nx = 1"),
            "{}",
            a.text
        );
    }

    #[test]
    fn not_found_carries_candidates() {
        let f = apply_edits(
            "def f():\n    retries = 3\n    return retries\n",
            &[Edit::new("    retries = 2\n    return retries\n", "x")],
            Tolerance::Safe,
        )
        .unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
        let c = &f.detail("candidates").unwrap()[0];
        assert_eq!(c["start_line"], 2);
        assert!(c["differences"][0]
            .as_str()
            .unwrap()
            .contains("retries = 3"));
        assert!(f.message.contains("lines 2-3"));
    }

    #[test]
    fn a_line_tier_ambiguity_lists_the_first_hundred_and_counts_all() {
        // 1,000 indented lines, an unindented needle of two: 999 regions at the indentation tier.
        let text = "    x = 1\n".repeat(1000);
        let f = apply_edits(
            &text,
            &[Edit::new("x = 1\nx = 1\n", "y\n")],
            Tolerance::Safe,
        )
        .unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        assert_eq!(f.detail("match_count").unwrap(), &serde_json::json!(999));
        assert_eq!(f.detail("truncated").unwrap(), &serde_json::json!(true));
        assert_eq!(f.detail("tier").unwrap(), &serde_json::json!("indentation"));
        let lines = f.detail("match_lines").unwrap().as_array().unwrap();
        assert_eq!(lines.len(), crate::edit::matcher::MAX_LISTED);
        assert_eq!((&lines[0], &lines[99]), (&1.into(), &100.into()));
    }

    #[test]
    fn expected_replacements_replace_all() {
        let mut e = Edit::new("foo", "bar");
        e.expected_replacements = Some(2);
        let out = apply_edits("foo(); foo();", &[e], Tolerance::Safe).unwrap();
        assert_eq!(out.text, "bar(); bar();");
        assert_eq!(out.matches.len(), 2);
    }
}
