//! Applying line-oriented hunks (`apply_patch` chunks, unified-diff hunks) to a decoded text. Pure:
//! no I/O.
//!
//! Every hunk is located in the *original* text, with the matcher's tolerance tiers and its
//! uniqueness rule (0 or 2+ places is a refusal, never "first match wins"):
//!
//! - **Lines, not substrings.** A hunk's body is whole lines: its `old` side (context and `-` lines)
//!   must start at the start of a line of the file. The text is searched with one extra line in front
//!   (the file's own terminator) and the needle starts with a line break, so a body can not match
//!   the tail of a longer line.
//! - **Scopes narrow, content decides.** `@@ scope` lines are found first, in order, each one at or
//!   below the previous one: the first whole line that matches it (whitespace-tolerant tiers), else
//!   the one line that contains it (`@@ def f` names `def f(x):`). A scope that names no line there
//!   (prose such as `@@ fix the retry loop`, or text several lines contain) is ignored
//!   ([`Dialect::AnchorIgnored`]); one that occurs several times narrows from its first occurrence
//!   ([`Dialect::AnchorRepeated`]), and the scope below it is sought first inside the blocks its
//!   lines open (a chain names nested lines). The body is then searched from the last scope line itself (a
//!   scope may name the line the chunk changes) and must be unique there; when it occurs nowhere
//!   below the scopes, it is searched without them and must be unique in the whole file (the scope
//!   is then ignored). So a scope can only choose among several places the content matches, never
//!   make content that matches nowhere (or twice, without a scope that tells them apart) land.
//! - **Two readings.** A body whose context lines lost their ` ` prefix carries a second reading
//!   ([`Hunk::alt_lines`]); it is tried only when the first matches nowhere.
//! - **Order.** Hunks of one file must not overlap. A body is searched below the previous hunk; one
//!   found only above it (a patch out of file order) is placed there when it is unique and clear of
//!   every hunk placed so far, else refused with `OVERLAPPING_EDITS`. The order chooses no place: a
//!   body found below the previous hunk that also stands above it (at or below its scope line,
//!   clear of the other hunks) is ambiguous, since a patch written in reverse reads the same —
//!   unless the hunk's line numbers (a unified diff's) point at the place the order chose and at
//!   no other: two pieces of evidence that agree. One
//!   found below the previous hunk only at a tolerance tier, while it matches as well or better
//!   above it (below its scope line), is refused as ambiguous: the order of the hunks may choose
//!   between places, never prefer a looser match (a twin differing in what a view does not show)
//!   to the exact bytes.
//! - **End of file.** `*** End of File` (and the unified-diff `\ No newline at end of file` markers)
//!   restrict the body to a match that ends at the end of the file.
//! - **Pure insertions** (a hunk with only `+` lines) go right after the last anchor line; without an
//!   anchor, at the end of the file (`*** End of File`, or an `apply_patch` chunk with no context, as
//!   Codex does), or, for a unified diff, at the start (`@@ -0,0 +1,n @@`) or end of the file as its
//!   line numbers say; a context-free unified-diff insertion anywhere else is refused, since nothing
//!   could confirm the place.
//! - **Bytes kept.** The matcher rebuilds the replacement from the hunk's `new` side while keeping the
//!   file's own bytes for the lines `new` repeats from `old`, so context lines keep the file's
//!   indentation, typography and line terminators; only `-`/`+` lines change. Inserted lines use the
//!   file's dominant terminator.
//! - **Final newline.** A file without a final line break keeps lacking one, unless a unified diff
//!   says otherwise (`\ No newline at end of file` on its old side only adds one; on its new side it
//!   removes one).
//! - **Line numbers** of unified diffs are hints only: they never choose between two places. An
//!   ambiguous body is refused even when the hint points at one of them; the hint is shown.
//!
//! Failures carry the shapes of [`crate::edit::apply::apply_edits`] (`match_count`, `candidates`,
//! `match_lines`, `matches`, `tier`, `hint`) plus `hunk_index` and `hunk_line` (the hunk's line in the
//! patch text).
//!
//! ```
//! use surepatch::edit::{apply_hunks::apply_hunks, formats::parse_patch, ir::{Change, FileOp}, matcher::Tolerance};
//! let ops = parse_patch("*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n").unwrap();
//! let FileOp::Update { change: Change::Hunks(h), .. } = &ops[0] else { unreachable!() };
//! let out = apply_hunks("def g():\n    return 1\ndef f():\n    return 1\n", h, Tolerance::Safe).unwrap();
//! assert_eq!(out.text, "def g():\n    return 1\ndef f():\n    return 2\n");
//! assert_eq!(out.matches[0].start_line, 4);
//! ```

use std::collections::HashMap;

use serde::Serialize;

use crate::edit::ir::{note, Dialect, Hunk};
use crate::edit::matcher::{self, candidates, Haystack, Miss, Tier, Tolerance};
use crate::edit::text;
use crate::error::{Code, Failure};

/// Where one hunk landed, in lines of the original file. For a pure insertion both lines are the
/// line the new lines were inserted after (0: at the start of the file).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HunkMatch {
    pub hunk_index: usize,
    pub start_line: usize,
    pub end_line: usize,
    pub tier: &'static str,
}

/// The result of applying every hunk of one file.
#[derive(Debug, Clone)]
pub struct AppliedHunks {
    pub text: String,
    /// One entry per hunk, in order.
    pub matches: Vec<HunkMatch>,
    /// `(old_start, old_end, new_start, new_end)` byte spans, sorted and disjoint (for diffs).
    pub changes: Vec<(usize, usize, usize, usize)>,
    /// The loosest tier any hunk (or anchor) needed.
    pub tier: Tier,
    /// Liberties taken with `@@` scopes (sorted, each once).
    pub dialect: Vec<Dialect>,
}

/// The original text with one terminator line in front (and one at the end when the text lacks a
/// final line break), so that every line, the first and the last included, is surrounded by
/// terminators.
struct Padded<'a> {
    text: &'a str,
    padded: String,
    /// Length of the leading pad.
    p: usize,
    /// Whether a terminator was appended (the text lacks a final line break).
    tail: bool,
    term: &'static str,
}

impl<'a> Padded<'a> {
    fn new(text: &'a str) -> Self {
        let term = text::dominant_terminator(text);
        let tail = !text.is_empty() && !text.ends_with('\n') && !text.ends_with('\r');
        let mut padded = String::with_capacity(text.len() + 4);
        padded.push_str(term);
        padded.push_str(text);
        if tail {
            padded.push_str(term);
        }
        Padded {
            text,
            padded,
            p: term.len(),
            tail,
            term,
        }
    }
}

/// Hunks of one file from which the one-pass index is built (see [`ExactIndex`]).
const MIN_INDEXED_HUNKS: usize = 32;

/// Where each needle a patch will search for occurs exactly in the padded text: every hunk body
/// (`"\n" + lines + "\n"`, both readings) and every `@@` scope, found in one pass over the file
/// ([`matcher::exact_occurrences`]) instead of one pass per hunk. Starts are sorted; overlapping
/// occurrences count, as they do for the matcher's exact tier. Left empty when the pass gives up
/// (nested needles occurring far more often than the file has bytes): every hunk then searches on
/// its own, as below [`MIN_INDEXED_HUNKS`].
struct ExactIndex {
    starts: HashMap<String, Vec<usize>>,
}

impl ExactIndex {
    fn new(padded: &str, hunks: &[Hunk]) -> Self {
        let mut needles: Vec<String> = Vec::new();
        for hk in hunks {
            for a in &hk.anchors {
                needles.push(format!("\n{a}\n"));
            }
            needles.push(needle_of(&hk.old_lines()));
            if let Some(alt) = &hk.alt_lines {
                let alt = Hunk {
                    lines: alt.clone(),
                    ..Hunk::default()
                };
                needles.push(needle_of(&alt.old_lines()));
            }
        }
        needles.retain(|n| n.len() > 2 || n == "\n\n");
        needles.sort();
        needles.dedup();
        // A few hunks search the file quickly one by one; the one-pass index pays off from a few
        // dozen.
        if hunks.len() < MIN_INDEXED_HUNKS {
            return ExactIndex {
                starts: HashMap::new(),
            };
        }
        let starts = match matcher::exact_occurrences(padded, &needles) {
            Some(found) => needles.into_iter().zip(found).collect(),
            None => HashMap::new(),
        };
        ExactIndex { starts }
    }

    /// The exact occurrences of `needle` (sorted starts), when it was indexed.
    fn get(&self, needle: &str) -> Option<&[usize]> {
        self.starts.get(needle).map(Vec::as_slice)
    }
}

/// `"\n" + lines + "\n"`: a body as the exact tier searches it in the padded text.
fn needle_of(lines: &[&str]) -> String {
    let mut s = String::from("\n");
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A located region in original-text offsets.
#[derive(Debug)]
struct Region {
    start: usize,
    end: usize,
    replacement: String,
    tier: Tier,
}

/// Why a line search failed; lines are 1-based lines of the original text.
enum LineMiss {
    NotFound,
    Many {
        tier: Tier,
        count: usize,
        lines: Vec<(usize, usize)>,
    },
    Uneven {
        lines: (usize, usize),
        why: matcher::IndentMiss,
    },
}

#[derive(Clone, Copy, Default)]
struct LineOpts {
    /// The match must end at the end of the file.
    eof_only: bool,
    old_no_eol: bool,
    new_no_eol: bool,
}

impl LineOpts {
    /// A hunk's: at the file's end when it says so or a side lacks a final line break.
    fn of(hk: &Hunk) -> Self {
        LineOpts {
            eof_only: hk.at_eof || hk.old_no_eol || hk.new_no_eol,
            old_no_eol: hk.old_no_eol,
            new_no_eol: hk.new_no_eol,
        }
    }
}

fn is_line_start(b: &[u8], i: usize) -> bool {
    i == 0 || b[i - 1] == b'\n' || (b[i - 1] == b'\r' && b.get(i) != Some(&b'\n'))
}

/// 1-based original lines of a padded span.
fn orig_lines(hp: &Haystack, s: usize, e: usize) -> (usize, usize) {
    let b = hp.text.as_bytes();
    let start = if is_line_start(b, s) {
        hp.line_of(s).saturating_sub(1)
    } else {
        hp.line_of(s)
    };
    let end = hp.end_line_of(s, e).saturating_sub(1);
    (start.max(1), end.max(start.max(1)))
}

fn strip_final_terminator(s: &mut String) {
    if s.ends_with("\r\n") {
        s.truncate(s.len() - 2);
    } else if s.ends_with('\n') || s.ends_with('\r') {
        s.truncate(s.len() - 1);
    }
}

/// Maps a matcher match in padded coordinates to a region of the original text, or `None` when it
/// does not start at a line start.
fn map_match(pd: &Padded, m: matcher::Match, o: LineOpts) -> Option<Region> {
    let b = pd.padded.as_bytes();
    let (s, e) = (m.start, m.end);
    let mut rep = m.replacement;
    // Where the terminator before the region starts (padded offsets), when the match began on it.
    let mut prev_term = None;
    // Anchored: the match begins on the terminator that precedes its first line (the needle starts
    // with a line break), possibly after that line's whitespace (indentation tier).
    let lead_end = memchr::memchr2(b'\n', b'\r', &b[s..e]).map(|rel| {
        let t_at = s + rel;
        let tl = if b[t_at] == b'\r' && b.get(t_at + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        (t_at, t_at + tl)
    });
    let mut start = match lead_end {
        Some((t_at, fl))
            if pd.padded[s..t_at].trim().is_empty() && rep.starts_with(&pd.padded[s..fl]) =>
        {
            rep.drain(..fl - s);
            prev_term = Some(t_at);
            fl - pd.p
        }
        // A form of the needle without its leading break (blank-edge trimming): whole lines only.
        _ if is_line_start(b, s) && s >= pd.p => s - pd.p,
        _ => return None,
    };
    let end = if e >= b.len() {
        let want_eol = if o.new_no_eol {
            false
        } else if o.old_no_eol {
            true
        } else {
            !pd.tail
        };
        if !want_eol {
            if !rep.is_empty() {
                strip_final_terminator(&mut rep);
            } else if let Some(t) = prev_term.filter(|&t| t >= pd.p) {
                // Deleting the last lines of a file without a final break: the break before them goes.
                start = t - pd.p;
            }
        }
        pd.text.len()
    } else {
        e - pd.p
    };
    if end < start {
        return None;
    }
    Some(Region {
        start,
        end,
        replacement: rep,
        tier: m.tier,
    })
}

/// Locates whole lines `old` (replaced by `new`) at or below original offset `lo`.
#[allow(clippy::too_many_arguments)]
fn locate_lines(
    pd: &Padded,
    hp: &Haystack,
    ix: &ExactIndex,
    old: &[&str],
    new: &[&str],
    o: LineOpts,
    tol: Tolerance,
    lo: usize,
    kept: Option<&[Option<usize>]>,
) -> Result<Region, LineMiss> {
    let old_s = needle_of(old);
    let new_s = needle_of(new);
    let lines = hp.lines();
    // The search starts on the line whose terminator precedes offset `lo`.
    let at = (lo + pd.p).clamp(1, pd.padded.len());
    let mut lo_p = lines.start(lines.index_of(at - 1));
    if o.eof_only {
        let n = lines.len();
        if n < old.len() + 1 {
            return Err(LineMiss::NotFound);
        }
        lo_p = lo_p.max(lines.start(n - old.len() - 1));
    }
    let mut within = lo_p..pd.padded.len();
    if let Some(starts) = ix.get(&old_s) {
        // The exact tier decides whenever it finds anything: count from the index, and hand the
        // matcher only the one span it has to rebuild.
        let first = starts.partition_point(|&s| s < lo_p);
        let hits: Vec<(usize, usize)> = starts[first..]
            .iter()
            .map(|&s| (s, s + old_s.len()))
            .filter(|&(_, e)| !o.eof_only || e == pd.padded.len())
            .collect();
        match hits.len() {
            0 => {}
            1 if tol == Tolerance::Safe => {
                // Twins that differ only in what a view does not show are counted as the matcher
                // would over the whole range.
                let range = lo_p..pd.padded.len();
                match matcher::invisible_twins(hp, &old_s, Tier::Exact, 1, 1, range) {
                    Some(_) => {}
                    None => within = hits[0].0..hits[0].1,
                }
            }
            1 => within = hits[0].0..hits[0].1,
            count => {
                return Err(LineMiss::Many {
                    tier: Tier::Exact,
                    count,
                    lines: hits
                        .iter()
                        .take(matcher::MAX_LISTED)
                        .map(|&(s, e)| orig_lines(hp, s, e))
                        .collect(),
                })
            }
        }
    }
    let found = match kept {
        Some(k) => {
            // The needles open with the line break before their first line: an empty line each.
            let k: Vec<Option<usize>> = std::iter::once(Some(0))
                .chain(k.iter().map(|j| j.map(|j| j + 1)))
                .collect();
            matcher::locate_hunk_in(hp, &old_s, &new_s, &k, tol, within)
        }
        None => matcher::locate_in(hp, &old_s, &new_s, 1, tol, within),
    };
    match found {
        Ok(mut ms) => {
            let m = ms.remove(0);
            if o.eof_only && m.end != pd.padded.len() {
                return Err(LineMiss::NotFound);
            }
            // A form of the needle without its leading break can start on the line that ends at
            // `lo`, inside the previous region: that is no match below `lo`.
            map_match(pd, m, o)
                .filter(|r| r.start >= lo)
                .ok_or(LineMiss::NotFound)
        }
        Err(Miss::Count {
            tier, count, spans, ..
        }) => Err(LineMiss::Many {
            tier,
            count,
            lines: spans.iter().map(|&(s, e)| orig_lines(hp, s, e)).collect(),
        }),
        Err(Miss::Overlapping { tier, spans }) => Err(LineMiss::Many {
            tier,
            count: spans.len(),
            lines: spans.iter().map(|&(s, e)| orig_lines(hp, s, e)).collect(),
        }),
        Err(Miss::InconsistentIndent { span, why }) => Err(LineMiss::Uneven {
            lines: orig_lines(hp, span.0, span.1),
            why,
        }),
        Err(Miss::NotFound { .. }) | Err(Miss::EmptyOld) => Err(LineMiss::NotFound),
    }
}

/// An anchor line found in the file.
struct AnchorHit {
    /// 1-based line.
    line: usize,
    /// Original offset of the line's start.
    start: usize,
    /// Original offset just past the line (its terminator included).
    end: usize,
    tier: Tier,
    /// The line occurs more than once at or below where it was searched (this is the first).
    repeated: bool,
    /// Every line it names (1-based, at most [`matcher::MAX_LISTED`]), for a refusal.
    lines: Vec<usize>,
}

/// Finds an `@@` scope line at or below original offset `lo`. The lines it names are the whole lines
/// equal to it apart from indentation, line ending, trailing whitespace and typography (scopes are
/// written without the line's indentation: `@@ try {` names `  try {` as well as `try {`), else apart
/// from inline whitespace too, else the lines that contain it (`@@ def f` names `def f(x):`). The
/// first of them is the anchor, `repeated` when there are several. `None` when it names no line
/// there: the scope is prose, or names text that is not there (or only above `lo`).
fn find_anchor(
    pd: &Padded,
    hp: &Haystack,
    ix: &ExactIndex,
    h: &Haystack,
    anchor: &str,
    lo: usize,
    tol: Tolerance,
) -> Option<AnchorHit> {
    let lines = h.lines();
    let hit = |all: Vec<usize>, tier: Tier| {
        let line = all[0];
        AnchorHit {
            line,
            start: lines.start(line - 1),
            end: lines.end(line - 1),
            tier,
            repeated: all.len() > 1,
            lines: all.into_iter().take(matcher::MAX_LISTED).collect(),
        }
    };
    if tol == Tolerance::Exact {
        let one = [anchor];
        return match locate_lines(pd, hp, ix, &one, &one, LineOpts::default(), tol, lo, None) {
            Ok(r) => Some(hit(vec![h.line_of(r.start)], r.tier)),
            Err(LineMiss::Many { tier, lines, .. }) => {
                Some(hit(lines.iter().map(|l| l.0).collect(), tier))
            }
            Err(_) => None,
        };
    }
    for ladder in [Tier::Indentation, Tier::InlineWhitespace] {
        let found = matcher::whole_lines_at(h, anchor, ladder, lo);
        if let Some(&first) = found.first() {
            // The tier of the first line itself, for the receipt.
            let (s, e) = (lines.start(first), lines.content_end(first));
            let tier = match matcher::locate_in(h, anchor, anchor, 1, tol, s..e) {
                Ok(ms) => ms[0].tier,
                Err(_) => ladder,
            };
            return Some(hit(found.iter().map(|i| i + 1).collect(), tier));
        }
    }
    // Else the lines that contain it (`@@ def f` names `def f(x):`); the first of several.
    let needle = anchor.trim();
    if needle.is_empty() {
        return None;
    }
    match matcher::locate_in(h, needle, needle, 1, tol, lo..h.text.len()) {
        Ok(ms) => Some(hit(vec![lines.index_of(ms[0].start) + 1], ms[0].tier)),
        Err(Miss::Count { tier, spans, .. }) | Err(Miss::Overlapping { tier, spans }) => {
            let mut all: Vec<usize> = spans.iter().map(|s| lines.index_of(s.0) + 1).collect();
            all.sort_unstable();
            all.dedup();
            (!all.is_empty()).then(|| hit(all, tier))
        }
        Err(_) => None,
    }
}

/// The first line `anchor` names inside the block one of `lines` (1-based, in order) opens: how a
/// scope below a scope that names several lines is read. `@@ func load` naming two functions, then
/// `@@ if timeout > 90 {`, names the `if` inside one of them, not the first such line below the
/// first of them, which may stand in another function between the two (ground truth seed 50 case
/// 319018: that reading let a body found once, in that other function, land under a chain naming
/// its twin). `None` when no block holds it (the chain is then read line after line, as before).
fn nested_anchor(
    pd: &Padded,
    hp: &Haystack,
    ix: &ExactIndex,
    h: &Haystack,
    anchor: &str,
    lines: &[usize],
    tol: Tolerance,
) -> Option<AnchorHit> {
    lines.iter().find_map(|&l| {
        let (from, to) = block_of(h, l)?;
        find_anchor(pd, hp, ix, h, anchor, from, tol).filter(|hit| hit.start < to)
    })
}

/// The bytes of the block the 1-based line `line` opens, by indentation: the lines after it up to
/// the first line with text no deeper than it (a line that closes it, `}`, `)`, `]` or `end`,
/// included). `None` when it opens none.
fn block_of(h: &Haystack, line: usize) -> Option<(usize, usize)> {
    let lt = h.lines();
    let depth = |i: usize| {
        let c = lt.content(i, h.text);
        c.len() - c.trim_start_matches([' ', '\t']).len()
    };
    let d = depth(line.checked_sub(1)?);
    let mut i = line;
    while i < lt.len() {
        let c = lt.content(i, h.text).trim();
        if !c.is_empty() && depth(i) <= d {
            if c.starts_with(['}', ')', ']']) || c == "end" {
                i += 1;
            }
            break;
        }
        i += 1;
    }
    (i > line).then(|| (lt.start(line), lt.end(i - 1)))
}

/// Applies `hunks` (of one file) to `text`, all or nothing.
pub fn apply_hunks(text: &str, hunks: &[Hunk], tol: Tolerance) -> Result<AppliedHunks, Failure> {
    apply_hunks_in(text, hunks, tol, matcher::Layout::Free)
}

/// [`apply_hunks`] on a text whose indentation reads as `layout` says (the file's kind).
pub fn apply_hunks_in(
    text: &str,
    hunks: &[Hunk],
    tol: Tolerance,
    layout: matcher::Layout,
) -> Result<AppliedHunks, Failure> {
    let pd = Padded::new(text);
    let hp = Haystack::new(&pd.padded).with_layout(layout);
    let ix = ExactIndex::new(&pd.padded, hunks);
    let h = Haystack::new(text).with_layout(layout);
    let n_lines = h.lines().len();
    let mut regions: Vec<Region> = Vec::with_capacity(hunks.len());
    let mut matches = Vec::with_capacity(hunks.len());
    let mut prev_end = 0usize;
    let mut loosest = Tier::Exact;
    let mut dialect = Vec::new();
    // Hunks searched below the previous one although their scope reaches higher: (hunk, the
    // scope's reach, where it landed). The patch's order placed them.
    let mut by_order: Vec<(usize, usize, usize)> = Vec::new();
    let mut any_reordered = false;
    for (i, hk) in hunks.iter().enumerate() {
        let at = format!("hunks[{i}] (patch line {}): ", hk.source_line);
        let tag = |f: Failure| f.with("hunk_index", i).with("hunk_line", hk.source_line);
        // Scopes narrow the search; one that names no line below the previous one is ignored.
        let mut lo = 0;
        let mut tier = Tier::Exact;
        // Placed above the previous hunk (the patch is out of file order).
        let mut reordered = false;
        let mut last_anchor: Option<AnchorHit> = None;
        let old = hk.old_lines();
        let new = hk.new_lines();
        for a in &hk.anchors {
            // After a scope that names several lines, the next one is sought inside the blocks
            // they open first: a chain of scopes names nested lines.
            let nested = last_anchor
                .as_ref()
                .filter(|p| p.repeated)
                .and_then(|p| nested_anchor(&pd, &hp, &ix, &h, a, &p.lines, tol));
            match nested.or_else(|| find_anchor(&pd, &hp, &ix, &h, a, lo, tol)) {
                // A hunk that only adds lines is placed by its scopes alone: each must name exactly
                // one line.
                Some(hit) if hit.repeated && old.is_empty() => {
                    let listed: Vec<(usize, usize)> = hit.lines.iter().map(|&l| (l, l)).collect();
                    return Err(tag(ambiguous(
                        &at,
                        &format!("the @@ scope {a:?}, which places this hunk of added lines,"),
                        hit.tier,
                        hit.lines.len(),
                        &listed,
                        hk.line_hint,
                    )
                    .with("hint", "Add an unchanged line above or below the insertion as context, or an @@ line that names exactly one line.")));
                }
                Some(hit) => {
                    if hit.repeated {
                        note(&mut dialect, Dialect::AnchorRepeated);
                    }
                    lo = hit.end;
                    tier = tier.max(hit.tier);
                    last_anchor = Some(hit);
                }
                None if old.is_empty() => {
                    let f = not_found(
                        &h,
                        a,
                        &at,
                        &format!("the @@ scope {a:?}, which places this hunk of added lines,"),
                    );
                    return Err(tag(f.with("hint", "A hunk that only adds lines goes right after its @@ scope line: name an existing line exactly, or add unchanged lines around the insertion as context.")));
                }
                None => note(&mut dialect, Dialect::AnchorIgnored),
            }
        }
        let o = LineOpts::of(hk);
        let (region, lines) = if old.is_empty() {
            let point = if let Some(a) = &last_anchor {
                a.end
            } else if hk.at_eof {
                text.len()
            } else if let Some(hint) = hk.line_hint {
                if hint <= 1 {
                    0
                } else if hint == n_lines + 1 {
                    text.len()
                } else {
                    return Err(tag(Failure::new(
                        Code::InvalidInput,
                        format!("{at}this hunk only adds lines and has no context, so nothing confirms where line {hint} is; it can only insert at the start or the end of the file. Regenerate the diff with context lines (diff -U3)."),
                    )
                    .with("line_hint", hint)));
                }
            } else {
                text.len()
            };
            if point < prev_end {
                return Err(tag(Failure::new(
                    Code::OverlappingEdits,
                    format!("{at}the insertion point after line {} is above or inside the previous hunk, which ends at line {}; hunks must be in file order and must not overlap.", h.line_of(point.saturating_sub(1)), h.line_of(prev_end.saturating_sub(1))),
                )));
            }
            let mut ins = String::new();
            if point == text.len() && pd.tail {
                for l in &new {
                    ins.push_str(pd.term);
                    ins.push_str(l);
                }
            } else {
                for l in &new {
                    ins.push_str(l);
                    ins.push_str(pd.term);
                }
                if hk.new_no_eol && point == text.len() {
                    strip_final_terminator(&mut ins);
                }
            }
            let after = if point == 0 { 0 } else { h.line_of(point - 1) };
            (
                Region {
                    start: point,
                    end: point,
                    replacement: ins,
                    tier,
                },
                (after, after),
            )
        } else {
            // The body may start on the scope line itself (`@@` naming the line it changes), or
            // above it when the scope line is one of the body's own lines (`@@ run(1)` over a body
            // whose second line is `    run(1)`): as many lines above as that line's place in the
            // body, so that a copy of the body holding the scope line still counts (two copies are
            // still ambiguous, not the second one chosen).
            let scope_lo = last_anchor.as_ref().map_or(0, |a| {
                let named = text[a.start..a.end].trim();
                match old
                    .iter()
                    .rposition(|l| !named.is_empty() && l.trim() == named)
                {
                    Some(j) if j > 0 => h.lines().start((a.line - 1).saturating_sub(j)),
                    _ => a.start,
                }
            });
            let body_lo = scope_lo.max(prev_end);
            let below = match &last_anchor {
                Some(a) => format!(" below the @@ scope line at line {}", a.line),
                None => String::new(),
            };
            let eof = if o.eof_only {
                " at the end of the file"
            } else {
                ""
            };
            let what = format!("the hunk's context and removed lines{below}{eof}");
            // A scope that names a line is a constraint: the body is searched at or below it only.
            let kept = hk.kept_lines();
            let locate = |old: &[&str], new: &[&str], kept: &[Option<usize>]| {
                locate_lines(&pd, &hp, &ix, old, new, o, tol, body_lo, Some(kept))
            };
            let many_failure = |tier, count, lines: &[(usize, usize)]| {
                ambiguous(&at, &what, tier, count, lines, hk.line_hint)
            };
            let mut found = locate(&old, &new, &kept);
            let mut other_reading = false;
            // Not after a frame nothing decides: the body was found as it reads, and the other
            // reading is only another guess at its columns.
            let undecided = matches!(
                found,
                Err(LineMiss::Uneven {
                    why: matcher::IndentMiss::FrameUndecided { .. },
                    ..
                })
            );
            if let (Err(LineMiss::NotFound | LineMiss::Uneven { .. }), Some(alt), false) =
                (&found, &hk.alt_lines, undecided)
            {
                // The other reading of a body whose context lines lost their prefix.
                let alt = Hunk {
                    lines: alt.clone(),
                    ..Hunk::default()
                };
                let again = locate(&alt.old_lines(), &alt.new_lines(), &alt.kept_lines());
                if !matches!(again, Err(LineMiss::NotFound)) {
                    other_reading = true;
                    if again.is_ok() {
                        note(&mut dialect, Dialect::ContextPrefixMissing);
                    }
                    found = again;
                }
            }
            match found {
                Ok(mut r) => {
                    // Below the previous hunk only at a tolerance tier: the order of the hunks may
                    // not prefer it to a place above the previous hunk the body matches as well
                    // or better (a twin that differs in what a view does not show, or the exact
                    // bytes): the content does not say which, so refuse.
                    // Another place the body is found at (or several), beside `r`: the refusal
                    // naming them all.
                    let elsewhere = |tol: Tolerance, lo: usize| -> Option<Failure> {
                        match locate_lines(&pd, &hp, &ix, &old, &new, o, tol, lo, Some(&kept)) {
                            Err(LineMiss::Many { tier, count, lines }) => {
                                Some(many_failure(tier, count, &lines))
                            }
                            Ok(r2) if r2.start != r.start => {
                                let both = [
                                    (h.line_of(r2.start), h.end_line_of(r2.start, r2.end)),
                                    (h.line_of(r.start), h.end_line_of(r.start, r.end)),
                                ];
                                Some(many_failure(r.tier, 2, &both))
                            }
                            _ => None,
                        }
                    };
                    if r.tier > Tier::Exact && body_lo > scope_lo && !other_reading {
                        if let Some(f) = elsewhere(tol, scope_lo) {
                            return Err(tag(f));
                        }
                    }
                    // Found below the scope line only by forgiving a difference a view shows
                    // (indentation, inline spacing, a prefix) while the body stands as sent
                    // elsewhere, outside the scope's reach: the scope and the content point at two
                    // places, and neither is more evidence than the other. A difference a view
                    // does not show (trailing whitespace, a line ending) is no evidence: there the
                    // scope decides.
                    if r.tier >= Tier::Indentation && last_anchor.is_some() && !other_reading {
                        if let Some(f) = elsewhere(Tolerance::Exact, 0) {
                            return Err(tag(f));
                        }
                    }
                    r.tier = r.tier.max(tier);
                    let lines = (h.line_of(r.start), h.end_line_of(r.start, r.end));
                    if let Some(f) = hint_points_at_a_twin(&h, hk.line_hint, &old, lines) {
                        return Err(tag(f));
                    }
                    if body_lo > scope_lo && !other_reading {
                        by_order.push((i, scope_lo, r.start));
                    }
                    (r, lines)
                }
                Err(LineMiss::NotFound) => {
                    // Above the previous hunk (a patch out of file order), still at or below the
                    // scope line when there is one.
                    let above = match body_lo > scope_lo {
                        true => {
                            locate_lines(&pd, &hp, &ix, &old, &new, o, tol, scope_lo, Some(&kept))
                        }
                        false => Err(LineMiss::NotFound),
                    };
                    let above = match above {
                        Ok(r) => Some(r),
                        // Nowhere below the previous hunk, several times above it.
                        Err(LineMiss::Many { tier, count, lines }) => {
                            return Err(tag(many_failure(tier, count, &lines)))
                        }
                        Err(_) => None,
                    };
                    match above {
                        // Above the previous hunk, unique in the whole file, and clear of every
                        // hunk placed so far: a patch written out of file order.
                        Some(mut r)
                            if regions
                                .iter()
                                .all(|g| !(r.start < g.end && g.start < r.end)) =>
                        {
                            reordered = true;
                            r.tier = r.tier.max(tier);
                            let lines = (h.line_of(r.start), h.end_line_of(r.start, r.end));
                            (r, lines)
                        }
                        Some(r) => {
                            let (s, e) = (h.line_of(r.start), h.end_line_of(r.start, r.end));
                            return Err(tag(Failure::new(
                                Code::OverlappingEdits,
                                format!("{at}{what} match lines {s}-{e}, which overlap an earlier hunk; hunks must not overlap. Merge the two hunks."),
                            )
                            .with("match_lines", [s])));
                        }
                        None => {
                            let mut needle = old.join("\n");
                            needle.push('\n');
                            let mut f = not_found(&h, &needle, &at, &what);
                            if let Some(l) = hk.line_hint {
                                f = f.with("line_hint", l);
                            }
                            if let Some(a) = &last_anchor {
                                f = scope_disagrees(f, &pd, &hp, &ix, &h, (&old, &new), o, tol, a);
                            }
                            return Err(tag(f));
                        }
                    }
                }
                Err(LineMiss::Many { tier, count, lines }) => {
                    return Err(tag(many_failure(tier, count, &lines)))
                }
                Err(LineMiss::Uneven {
                    lines: (sl, el),
                    why,
                }) => {
                    // A body that puts an elision placeholder over the code it stands for: the
                    // placeholder is the cause to name, not the columns (as for edits).
                    let lines = h.lines();
                    let (s, e) = (lines.start(sl - 1), lines.content_end(el - 1));
                    let new_text = new.join("\n");
                    let elided = crate::edit::placeholder::elided_in_change(text, s, e, &new_text);
                    if !elided.is_empty() {
                        let found: Vec<(usize, &str)> =
                            elided.iter().map(|&(j, l)| (sl + j, l)).collect();
                        let who = format!("hunks[{i}] (patch line {})", hk.source_line);
                        return Err(tag(crate::edit::placeholder::elided_failure(&found, &who)));
                    }
                    let (difference, message) =
                        matcher::words::indent_miss_words(why, sl, el, "the hunk");
                    let c = candidates::Candidate {
                        start_line: sl,
                        end_line: el,
                        similarity: 1.0,
                        snippet: candidates::snippet(&h, sl - 1, el),
                        differences: vec![difference.into()],
                    };
                    return Err(tag(Failure::new(
                        Code::SearchBlockNotFound,
                        format!("{at}{message}"),
                    )
                    .with("match_count", 0)
                    .with("candidates", [c])
                    .with(
                        "hint",
                        format!("Re-read lines {sl}-{el} and copy their indentation exactly."),
                    )));
                }
            }
        };
        if region.start < prev_end && !reordered {
            return Err(tag(Failure::new(
                Code::OverlappingEdits,
                format!("{at}this hunk lands on lines {}-{}, inside the previous hunk, which ends at line {}; hunks must be in file order and must not overlap. Merge the two hunks.", lines.0, lines.1, h.line_of(prev_end.saturating_sub(1))),
            )));
        }
        if reordered {
            any_reordered = true;
            note(&mut dialect, Dialect::HunksReordered);
        } else {
            prev_end = region.end;
        }
        loosest = loosest.max(region.tier);
        matches.push(HunkMatch {
            hunk_index: i,
            start_line: lines.0,
            end_line: lines.1,
            tier: region.tier.as_str(),
        });
        regions.push(region);
    }
    // The order of a patch's hunks chooses no place (models write hunks out of file order, and a
    // patch reversed reads the same as one in order): a hunk the order placed below the previous
    // one while its body also stands between its scope line and that hunk, clear of every other
    // hunk, is ambiguous (ground truth seed 31 case 827464: the second of two reversed chunks
    // landed in a later copy of the function it meant).
    for &(i, scope_lo, start) in &by_order {
        let hk = &hunks[i];
        let at = format!("hunks[{i}] (patch line {}): ", hk.source_line);
        let o = LineOpts::of(hk);
        let (old, new, kept) = (hk.old_lines(), hk.new_lines(), hk.kept_lines());
        let found = locate_lines(&pd, &hp, &ix, &old, &new, o, tol, scope_lo, Some(&kept));
        let what = match any_reordered {
            true => "the hunk's context and removed lines (the patch is out of file order, so its order places nothing)",
            false => "the hunk's context and removed lines (above the previous hunk too: the order of the hunks chooses no place)",
        };
        let placed: Vec<(usize, usize)> = regions
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, g)| (h.line_of(g.start), h.end_line_of(g.start, g.end)))
            .collect();
        let r = &regions[i];
        let own = (h.line_of(r.start), h.end_line_of(r.start, r.end));
        // Another place: clear of every other hunk, and not the chosen one (found again from the
        // scope line, it may start a line apart: a blank edge line taken or not).
        let other_place = |&(s, e): &(usize, usize)| {
            let overlaps = |(a, b): (usize, usize)| s <= b && a <= e;
            !placed.iter().copied().chain([own]).any(overlaps)
        };
        let chosen = own.0;
        // The order, confirmed by the hunk's line numbers (near the place it chose and no other),
        // places it: two pieces of evidence that agree. Either alone does not.
        let near = |l: usize| hk.line_hint.is_some_and(|x| x.abs_diff(l) <= HINT_REACH);
        let confirmed =
            |others: &[usize]| !any_reordered && near(chosen) && !others.iter().any(|&l| near(l));
        let f = match found {
            Err(LineMiss::Many { tier, count, lines }) => {
                let listed_all = lines.len() == count;
                let others: Vec<usize> = lines
                    .iter()
                    .filter(|l| other_place(l))
                    .map(|l| l.0)
                    .collect();
                if listed_all && (others.is_empty() || confirmed(&others)) {
                    continue;
                }
                ambiguous(&at, what, tier, count, &lines, hk.line_hint)
            }
            Ok(r2) if r2.start != start => {
                let other = (h.line_of(r2.start), h.end_line_of(r2.start, r2.end));
                if !other_place(&other) || confirmed(&[other.0]) {
                    continue;
                }
                let both = [other, own];
                ambiguous(&at, what, r2.tier, 2, &both, hk.line_hint)
            }
            _ => continue,
        };
        return Err(f.with("hunk_index", i).with("hunk_line", hk.source_line));
    }
    // A batch-mate's old side shows the model smartens: what every match adds is folded too (an
    // exact match, or one found through a needle transform such as `blank_edges`, folds nothing
    // itself).
    let olds = hunks.iter().flat_map(|hk| hk.old_lines());
    if tol != Tolerance::Exact && matcher::smartened::evident(text, olds) {
        for r in regions.iter_mut() {
            if let Some(f) = matcher::smartened::fold(&r.replacement, text) {
                r.replacement = f;
            }
        }
    }
    // Hunks placed out of file order go where they belong (a stable sort keeps the patch's order
    // of insertions at one point).
    regions.sort_by_key(|r| r.start);
    let grown: usize = regions.iter().map(|r| r.replacement.len()).sum();
    let mut out = String::with_capacity(text.len() + grown);
    let mut changes = Vec::with_capacity(regions.len());
    let mut pos = 0;
    for r in &regions {
        out.push_str(&text[pos..r.start]);
        let ns = out.len();
        out.push_str(&r.replacement);
        if text[r.start..r.end] != r.replacement {
            changes.push((r.start, r.end, ns, out.len()));
        }
        pos = r.end;
    }
    out.push_str(&text[pos..]);
    Ok(AppliedHunks {
        text: out,
        matches,
        changes,
        tier: loosest,
        dialect,
    })
}

/// Lines around a line hint searched for a region like the hunk's.
const HINT_REACH: usize = 3;
/// How alike a region at the line numbers must be to the hunk to count as the place it was written
/// against.
const TWIN_LIKENESS: f64 = 0.9;

/// Every piece of evidence must agree: a hunk whose content landed at `found` (1-based lines) while
/// its line numbers point at another region that resembles it (a near-twin, at least
/// [`TWIN_LIKENESS`] alike with at least half its lines the hunk's own, within [`HINT_REACH`] lines of the hint, not overlapping the match; the
/// match itself further than that from the hint) may
/// have been written against that region: refused as ambiguous. Line numbers that point at nothing
/// like the hunk are wrong numbers, and are ignored as before.
fn hint_points_at_a_twin(
    h: &Haystack,
    hint: Option<usize>,
    old: &[&str],
    found: (usize, usize),
) -> Option<Failure> {
    let hint = hint?;
    if found.0.abs_diff(hint) <= HINT_REACH {
        // The numbers agree with the match.
        return None;
    }
    let n = old.len();
    let total = h.lines().len();
    if n == 0 || total < n || old.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let body: String = old.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n");
    let lines = h.lines();
    let mut best: Option<(usize, f64)> = None;
    for start in hint.saturating_sub(HINT_REACH).max(1)..=(hint + HINT_REACH).min(total + 1 - n) {
        let end = start + n - 1;
        if start <= found.1 && found.0 <= end {
            continue;
        }
        let rows: Vec<&str> = (start - 1..end)
            .map(|i| lines.content(i, h.text).trim())
            .collect();
        // A twin shares most of its lines with the hunk as they are (`line 1` is not a twin of
        // `line 11`, however alike the characters).
        let same = old
            .iter()
            .zip(&rows)
            .filter(|(o, r)| !o.trim().is_empty() && o.trim() == **r)
            .count();
        let solid = old.iter().filter(|o| !o.trim().is_empty()).count();
        if 2 * same < solid {
            continue;
        }
        let like = candidates::likeness(&body, &rows.join("\n"), TWIN_LIKENESS);
        if like >= TWIN_LIKENESS && best.is_none_or(|(_, b)| like > b) {
            best = Some((start, like));
        }
    }
    let (at, like) = best?;
    Some(
        Failure::new(
            Code::SearchBlockAmbiguous,
            format!(
                "the hunk's content is at lines {}-{}, but its line numbers point at lines {}-{}, which read almost the same (likeness {like:.2}): the patch may have been written against those lines. Refusing to guess.",
                found.0,
                found.1,
                at,
                at + n - 1
            ),
        )
        .with("match_count", 2)
        .with("match_lines", [found.0, at])
        .with("line_hint", hint)
        .with("hint", "Re-read both regions and send the hunk with context lines that only the intended one has (or correct the @@ line numbers)."),
    )
}

/// A body not found below its scope line: when the content occurs above it, the refusal says where,
/// so the model can correct or drop the `@@` line rather than re-read the file.
#[allow(clippy::too_many_arguments)]
fn scope_disagrees(
    f: Failure,
    pd: &Padded,
    hp: &Haystack,
    ix: &ExactIndex,
    h: &Haystack,
    (old, new): (&[&str], &[&str]),
    o: LineOpts,
    tol: Tolerance,
    scope: &AnchorHit,
) -> Failure {
    let place = match locate_lines(pd, hp, ix, old, new, o, tol, 0, None) {
        Ok(r) => format!("at line {}", h.line_of(r.start)),
        Err(LineMiss::Many { lines, .. }) => {
            let l: Vec<String> = lines.iter().map(|l| l.0.to_string()).collect();
            format!("at lines {}", l.join(", "))
        }
        _ => return f,
    };
    let message = format!(
        "{} The content occurs {place}, above the @@ scope line at line {}: the scope and the content disagree, so nothing was applied.",
        f.message, scope.line
    );
    Failure {
        message,
        ..f
    }
    .with("hint", format!("Correct the @@ line to name the function or class that encloses the change (or drop it), or re-read the region the @@ line names ({}).", scope.line))
}

fn not_found(h: &Haystack, needle: &str, at: &str, what: &str) -> Failure {
    let were = if what.starts_with("the @@") {
        "was"
    } else {
        "were"
    };
    let cands = candidates::nearest(h, needle, 3);
    let (message, hint) = match cands.first() {
        Some(c) => {
            let differs = c
                .differences
                .first()
                .map(|d| format!(" Differs: {d}."))
                .unwrap_or_default();
            (
                format!(
                    "{at}{what} {were} not found, exactly or with whitespace/typography tolerance. Nearest: lines {}-{} (similarity {:.2}).{differs}",
                    c.start_line, c.end_line, c.similarity
                ),
                format!(
                    "Re-read lines {}-{} and copy the context and removed lines exactly as they are now.",
                    c.start_line, c.end_line
                ),
            )
        }
        None => (
            format!("{at}{what} {were} not found, and nothing in the file resembles it."),
            "Check that this is the right file, and re-read it before patching.".to_string(),
        ),
    };
    Failure::new(Code::SearchBlockNotFound, message)
        .with("match_count", 0)
        .with("candidates", cands)
        .with("hint", hint)
}

#[derive(Serialize)]
struct Lines {
    start_line: usize,
    end_line: usize,
}

fn ambiguous(
    at: &str,
    what: &str,
    tier: Tier,
    count: usize,
    lines: &[(usize, usize)],
    line_hint: Option<usize>,
) -> Failure {
    let starts: Vec<usize> = lines.iter().map(|l| l.0).collect();
    let (shown, more, via) = matcher::words::describe_places(&starts, count, tier);
    let hinted = match line_hint {
        Some(l) => format!(" The diff says line {l}, but line numbers are hints only and never choose between places."),
        None => String::new(),
    };
    let listed: Vec<Lines> = lines
        .iter()
        .map(|&(s, e)| Lines {
            start_line: s,
            end_line: e,
        })
        .collect();
    let occur = if what.starts_with("the @@") {
        "occurs"
    } else {
        "occur"
    };
    let mut f = Failure::new(
        Code::SearchBlockAmbiguous,
        format!("{at}{what} {occur} {count} times{via}, at lines {shown}{more}; refusing to guess.{hinted}"),
    )
    .with("match_count", count)
    .with("match_lines", &starts)
    .with("matches", &listed)
    .with("truncated", count > matcher::MAX_LISTED)
    .with("tier", tier.as_str())
    .with("hint", "Add unchanged neighbouring lines as context, or an @@ line naming the enclosing function or class, until the hunk is unique.");
    if let Some(l) = line_hint {
        f = f.with("line_hint", l);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::ir::HunkLine::{Add, Context, Remove};

    fn hunk(lines: Vec<crate::edit::ir::HunkLine>) -> Hunk {
        Hunk {
            lines,
            source_line: 1,
            ..Hunk::default()
        }
    }

    fn ctx(s: &str) -> crate::edit::ir::HunkLine {
        Context(s.into())
    }

    #[test]
    fn context_lines_keep_the_files_bytes() {
        // CRLF, curly quotes and tabs in the file; the hunk has LF, straight quotes and spaces.
        let text = "a = “x”\r\n\tif y:\r\n\t\tpass\r\n";
        let h = hunk(vec![
            ctx("a = \"x\""),
            ctx("    if y:"),
            Remove("        pass".into()),
            Add("        return".into()),
        ]);
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(out.text, "a = “x”\r\n\tif y:\r\n\t\treturn\r\n");
        assert_eq!(out.matches[0].start_line, 1);
        assert_eq!(out.matches[0].end_line, 3);
    }

    /// Issue #25 (seed 25 cases 39087, 159548): a hunk is rebuilt with its lines paired as its
    /// marks pair them. Re-diffed, an added line that repeats the context line after it paired
    /// with the file's line there, so the file's trailing whitespace went to the added line (Go),
    /// or an added line at the file's columns paired with a deeper context line and the block
    /// came out reordered and re-indented (JS, `indent_abs`).
    #[test]
    fn a_hunk_pairs_its_lines_as_its_marks_do() {
        let text = "func update(v int) int {\n\treturn retries\n\treturn x  \n\tx = 0\n}\n";
        let h = hunk(vec![
            ctx("func update(v int) int {"),
            Remove("\treturn retries".into()),
            Add("\treturn x".into()),
            ctx("\treturn x"),
            ctx("\tx = 0"),
        ]);
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "func update(v int) int {\n\treturn x\n\treturn x  \n\tx = 0\n}\n"
        );
        let text = "class A {\n  save(x) {\n    log(x);\n    return count;\n    if (size > 24) {\n      return count;\n    }\n  }\n}\n";
        let h = hunk(vec![
            ctx("save(x) {"),
            ctx("  log(x);"),
            ctx("  return count;"),
            Remove("  if (size > 24) {".into()),
            Add("    return count;".into()),
            Add("    if (big > 24) {".into()),
            ctx("    return count;"),
            ctx("  }"),
        ]);
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "class A {\n  save(x) {\n    log(x);\n    return count;\n    return count;\n    if (big > 24) {\n      return count;\n    }\n  }\n}\n"
        );
    }

    /// Issue #25 (seed 25 case 176092): a body found below its `@@` scope only apart from its
    /// indentation, while it stands exactly as sent outside the scope's block: the scope and the
    /// content name two places, refused as ambiguous (it edited the scope's indented twin).
    #[test]
    fn a_scope_over_a_loose_twin_of_an_exact_body_is_ambiguous() {
        let text = "load(idx) {\n  if (v) {\n    x();\n  }\n  y();\n}\nclass Store {\n  load(idx) {\n    if (v) {\n      x();\n    }\n    y();\n  }\n}\n";
        let body = vec![
            ctx("load(idx) {"),
            ctx("  if (v) {"),
            ctx("    x();"),
            Remove("  }".into()),
            ctx("  y();"),
        ];
        let h = Hunk {
            anchors: vec!["class Store {".into(), "load(idx) {".into()],
            ..hunk(body.clone())
        };
        let f = apply_hunks(text, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, crate::error::Code::SearchBlockAmbiguous, "{f:?}");
        // Without the scope the exact copy is the one place.
        let out = apply_hunks(text, &[hunk(body)], Tolerance::Safe).unwrap();
        assert!(out
            .text
            .starts_with("load(idx) {\n  if (v) {\n    x();\n  y();\n}\n"));
        // A difference no view shows (trailing whitespace) is no evidence against the scope: the
        // copy below it is the one the scope names.
        let text = "load(idx) {\n  y();\n}\nclass Store {\nload(idx) {\n  y(); \n}\n}\n";
        let h = Hunk {
            anchors: vec!["class Store {".into()],
            ..hunk(vec![
                ctx("load(idx) {"),
                Remove("  y();".into()),
                Add("  z();".into()),
                ctx("}"),
            ])
        };
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        let kept = "load(idx) {\n  y();\n}\nclass Store {\nload(idx) {\n  z();";
        assert!(out.text.starts_with(kept), "{}", out.text);
    }

    #[test]
    fn many_hunks_take_work_linear_in_the_file() {
        // 2,000 hunks over a 20,000-line file: one pass finds every body, and the matcher only
        // rebuilds each hunk's own span (before, each hunk searched the rest of the file).
        let text: String = (0..20_000)
            .map(|i| format!("line {i} = {}\n", i * 7))
            .collect();
        let hunks: Vec<Hunk> = (0..2_000)
            .map(|k| {
                let i = k * 10 + 5;
                hunk(vec![
                    ctx(&format!("line {} = {}", i - 1, (i - 1) * 7)),
                    Remove(format!("line {i} = {}", i * 7)),
                    Add(format!("line {i} = changed")),
                ])
            })
            .collect();
        crate::edit::matcher::search_work();
        let out = apply_hunks(&text, &hunks, Tolerance::Safe).unwrap();
        let work = crate::edit::matcher::search_work();
        assert_eq!(out.matches.len(), 2_000);
        assert!(out.text.contains("line 19995 = changed\n"));
        assert!(
            work < 4 * text.len() as u64,
            "work {work} for {} bytes",
            text.len()
        );
    }

    #[test]
    fn nested_needles_cannot_make_the_index_pass_quadratic() {
        // Hunks of 1, 2, 3, ... blank context lines on a file of blank lines: every position starts
        // an occurrence of every body, 20,000 x 300 in all (a 2,000-hunk patch of this shape took
        // 22 s). The pass gives up at its budget; the hunks are then searched one by one, and the
        // first is ambiguous.
        let text = "\n".repeat(20_000);
        let hunks: Vec<Hunk> = (1..=300)
            .map(|k| {
                let mut lines: Vec<_> = (0..k).map(|_| ctx("")).collect();
                lines.push(Remove(String::new()));
                lines.push(Add(format!("x{k}")));
                hunk(lines)
            })
            .collect();
        crate::edit::matcher::search_work();
        let f = apply_hunks(&text, &hunks, Tolerance::Safe).unwrap_err();
        let work = crate::edit::matcher::search_work();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        assert_eq!(f.detail("hunk_index"), Some(&0.into()));
        let budget = crate::edit::matcher::exact_occurrences_budget(text.len() + 1, 300) as u64;
        assert!(
            work <= budget + 8 * text.len() as u64,
            "work {work}, budget {budget}"
        );
    }

    #[test]
    fn hunks_out_of_file_order_go_where_they_belong() {
        let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let change = |n: usize, to: &str| {
            hunk(vec![
                ctx(&format!("line {}", n - 1)),
                Remove(format!("line {n}")),
                Add(to.into()),
            ])
        };
        let out = apply_hunks(
            &text,
            &[change(18, "L18"), change(3, "L3"), change(10, "L10")],
            Tolerance::Safe,
        )
        .unwrap();
        assert_eq!(
            out.text,
            text.replace("line 18\n", "L18\n")
                .replace("line 3\n", "L3\n")
                .replace("line 10\n", "L10\n")
        );
        assert_eq!(out.dialect, vec![Dialect::HunksReordered]);
        let starts: Vec<usize> = out.matches.iter().map(|m| m.start_line).collect();
        assert_eq!(starts, [17, 2, 9]);
        assert!(out.changes.windows(2).all(|w| w[0].1 <= w[1].0));
        // In order: no liberty reported.
        let out = apply_hunks(
            &text,
            &[change(3, "L3"), change(18, "L18")],
            Tolerance::Safe,
        )
        .unwrap();
        assert!(out.dialect.is_empty());
        // Above the previous hunk but overlapping one placed already: refused.
        let f = apply_hunks(
            &text,
            &[change(18, "L18"), change(18, "other")],
            Tolerance::Safe,
        )
        .unwrap_err();
        assert_eq!(f.code, Code::OverlappingEdits);
        // Above, but occurring twice there: ambiguous, not placed.
        let twice = format!("line 2\nline 3\n{text}");
        let f = apply_hunks(
            &twice,
            &[change(20, "L20"), change(3, "L3")],
            Tolerance::Safe,
        )
        .unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        assert_eq!(f.detail("hunk_index"), Some(&1.into()));
    }

    #[test]
    fn the_same_chunk_twice_overlaps() {
        let h = hunk(vec![Remove("b".into()), Add("B".into())]);
        let f = apply_hunks("a\nb\nc\n", &[h.clone(), h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::OverlappingEdits);
        assert_eq!(f.detail("hunk_index"), Some(&1.into()));
        // Also when the blank-edge form of the body is what matches.
        let h = hunk(vec![ctx(""), Remove("b".into()), Add("B".into())]);
        let f = apply_hunks("a\n\nb\nc\n", &[h.clone(), h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::OverlappingEdits);
    }

    #[test]
    fn indented_context_lines_that_lost_their_prefix_are_read_with_it() {
        // Every context line starts with spaces, and the model dropped the ` ` prefix: nothing
        // shows it but context one column shallower than the `-`/`+` lines. Both formats.
        let text = "fn a() {\n    let x = 1;\n    let y = 2;\n    call(x, y);\n}\n";
        let body = "    let x = 1;\n-    let y = 2;\n+    let y = 20;\n    call(x, y);\n";
        let patch = format!("*** Begin Patch\n*** Update File: a.rs\n@@\n{body}*** End Patch\n");
        let diff = format!("--- a/a.rs\n+++ b/a.rs\n@@ -2,3 +2,3 @@\n{body}");
        for ops in [
            crate::edit::formats::apply_patch::parse_patch(&patch).unwrap(),
            crate::edit::formats::unified_diff::parse_unified_diff(&diff).unwrap(),
        ] {
            let crate::edit::ir::FileOp::Update {
                change: crate::edit::ir::Change::Hunks(hunks),
                ..
            } = &ops[0]
            else {
                panic!("{ops:?}")
            };
            let out = apply_hunks(text, hunks, Tolerance::Safe).unwrap();
            assert_eq!(out.text, text.replace("y = 2;", "y = 20;"));
            assert!(out.dialect.contains(&Dialect::ContextPrefixMissing));
        }
    }

    #[test]
    fn a_scope_that_is_a_line_inside_the_body_does_not_choose_between_copies() {
        // The body occurs at lines 2-4 and 6-8; `@@ run(1)` names its second line, whose first
        // occurrence is inside the first copy. Searching below that line saw only the second copy
        // and wrote there; the body is ambiguous and is refused.
        let text =
            "x = 0\nif ok:\n    run(1)\n    stop()\ny = 1\nif ok:\n    run(1)\n    stop()\nz = 2\n";
        let body = || {
            vec![
                ctx("if ok:"),
                Remove("    run(1)".into()),
                Add("    run(2)".into()),
                ctx("    stop()"),
            ]
        };
        let mut h = hunk(body());
        h.anchors = vec!["run(1)".into()];
        let f = apply_hunks(text, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        // Once the body is unique below the scope line's place, it lands: here the scope names the
        // second copy's line (the first copy's `run(1)` differs).
        let text2 = text.replacen("    run(1)", "    run(0)", 1);
        let mut h = hunk(body());
        h.anchors = vec!["run(1)".into()];
        let out = apply_hunks(&text2, &[h], Tolerance::Safe).unwrap();
        assert_eq!(out.matches[0].start_line, 6);
        assert!(out
            .text
            .ends_with("if ok:\n    run(2)\n    stop()\nz = 2\n"));
        // A scope line that is the body's first line narrows as before.
        let mut h = hunk(body());
        h.anchors = vec!["if ok:".into()];
        let f = apply_hunks(text, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
    }

    #[test]
    fn scopes_narrow_and_prose_scopes_are_ignored() {
        let text = "def f():\n    x = 1\ndef g():\n    x = 1\n    y = 2\n";
        let with = |anchors: &[&str], lines| {
            let mut h = hunk(lines);
            h.anchors = anchors.iter().map(|a| a.to_string()).collect();
            apply_hunks(text, &[h], Tolerance::Safe)
        };
        // Prose scope, unique content: applied, the scope ignored.
        let out = with(
            &["fix the y"],
            vec![Remove("    y = 2".into()), Add("    y = 3".into())],
        )
        .unwrap();
        assert_eq!(out.dialect, vec![Dialect::AnchorIgnored]);
        assert!(out.text.ends_with("    y = 3\n"));
        // The scope picks one of two content matches.
        let out = with(
            &["def g():"],
            vec![Remove("    x = 1".into()), Add("    x = 9".into())],
        )
        .unwrap();
        assert_eq!(out.matches[0].start_line, 4);
        assert!(out.dialect.is_empty());
        // A scope that is the changed line itself.
        let out = with(
            &["def g():"],
            vec![Remove("def g():".into()), Add("def h():".into())],
        )
        .unwrap();
        assert_eq!(out.matches[0].start_line, 3);
        // A prose scope and content that occurs twice: refused, never guessed.
        let f = with(
            &["the x"],
            vec![Remove("    x = 1".into()), Add("    x = 9".into())],
        )
        .unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        // A repeated scope that does not single one out: refused.
        let text2 = "def f():\n    x = 1\ndef f():\n    x = 1\n";
        let mut h = hunk(vec![Remove("    x = 1".into()), Add("    x = 9".into())]);
        h.anchors = vec!["def f():".into()];
        let f = apply_hunks(text2, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
    }

    #[test]
    fn a_scope_that_names_a_line_is_a_constraint() {
        // The body occurs once, in gamma, below the line the scope names (beta): it lands.
        let text = "def alpha(x):\n    return x\n\ndef beta(x):\n    b = 2\n\ndef gamma(x):\n    c = 3\n    log(c)\n";
        let with = |anchors: &[&str], lines| {
            let mut h = hunk(lines);
            h.anchors = anchors.iter().map(|a| a.to_string()).collect();
            apply_hunks(text, &[h], Tolerance::Safe)
        };
        let body = || {
            vec![
                ctx("    c = 3"),
                Remove("    log(c)".into()),
                Add("    log(c, x)".into()),
            ]
        };
        let out = with(&["def beta(x):"], body()).unwrap();
        assert_eq!(out.matches[0].start_line, 8);
        // The content occurs only above the scope line (gamma names the last function, the body is in
        // beta): refused, and the refusal says where the content is and which line the scope named.
        let body = || vec![Remove("    b = 2".into()), Add("    b = 3".into())];
        let f = with(&["def gamma(x):"], body()).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound, "{f:?}");
        assert!(
            f.message
                .contains("at line 5, above the @@ scope line at line 7"),
            "{}",
            f.message
        );
        // A scope named by the start of a line (`def gamma`) constrains the same way.
        assert_eq!(
            with(&["def gamma"], body()).unwrap_err().code,
            Code::SearchBlockNotFound
        );
        // A scope several lines contain (`def ` heads every function) constrains from the first.
        let out = with(&["def "], body()).unwrap();
        assert_eq!(out.matches[0].start_line, 5);
        // Prose (naming no line) is ignored, and said so.
        let out = with(&["make b bigger"], body()).unwrap();
        assert_eq!(out.dialect, vec![Dialect::AnchorIgnored]);
    }

    #[test]
    fn a_scope_names_every_line_equal_to_it_apart_from_indentation() {
        // `@@ try {` names the indented `  try {` at line 2 as well as `try {` at line 7: the body
        // below the first is below the scope (the exact line alone, 7, would refuse it).
        let text = "function f() {\n  try {\n    a()\n  } catch (e) {}\n}\nfunction g() { return 1 }\ntry {\n  g()\n} finally {}\n";
        let mut h = hunk(vec![
            Remove("function g() { return 1 }".into()),
            Add("function g() { return 2 }".into()),
        ]);
        h.anchors = vec!["try {".into()];
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(out.matches[0].start_line, 6);
        assert!(out.dialect.contains(&Dialect::AnchorRepeated));
    }

    /// Ground truth seed 50 case 319018, shrunk: `@@ func load` names two functions and
    /// `@@ if t {` the `if` of the second. Read line after line from the first `load`, the `if`
    /// of the function between them (`parse`, the only place the body matches) was the scope, and
    /// the body, holding that line, landed there. A chain names nested lines: the `if` is the one
    /// inside a `load`, and the body, found only above it, is refused. The same chain over a body
    /// inside the second `load` lands there; a chain whose inner scope no `load` holds is read
    /// line after line, as before.
    #[test]
    fn a_scope_below_a_repeated_scope_names_a_line_inside_one_of_its_blocks() {
        let text = "func load() {\n\tx = 1\n}\n\nfunc parse() {\n\tn = 2\n\tif t {\n\t\tp(n)\n\t}\n}\n\nfunc load() {\n\tn = 2\n\tif t {\n\t\tp(n) \n\t}\n}\n";
        let body = |first: &str| {
            vec![
                Context(first.into()),
                Context("\tn = 2".into()),
                Add("\tm = 3".into()),
                Context("\tif t {".into()),
            ]
        };
        let mut h = hunk(body("func parse() {"));
        h.anchors = vec!["func load() {".into(), "if t {".into()];
        let f = apply_hunks(text, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound, "{f}");
        assert!(
            f.message.contains("above the @@ scope line at line 14"),
            "{}",
            f.message
        );
        let mut h = hunk(body("func load() {"));
        h.anchors = vec!["func load() {".into(), "if t {".into()];
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(out.matches[0].start_line, 12);
        assert!(
            out.text
                .ends_with("func load() {\n\tn = 2\n\tm = 3\n\tif t {\n\t\tp(n) \n\t}\n}\n"),
            "{}",
            out.text
        );
        // No `load` holds the inner scope: read line after line from the first `load`.
        let mut h = hunk(body("func parse() {"));
        h.anchors = vec!["func load() {".into(), "if t {".into()];
        let text = text.replace("\tif t {\n\t\tp(n) \n", "\tif u {\n\t\tp(n) \n");
        let out = apply_hunks(&text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(out.matches[0].start_line, 5);
    }

    /// Ground truth seed 50 case 436894, shrunk: a loop and its body, copied four columns left,
    /// replaced by one line written at the file's column of the loop (absolute columns) and at the
    /// copied column of the body line it resembles. Kept at that body line's file columns it moved
    /// into the `if` above. Standing for both replaced lines, its columns tell nothing, and in
    /// Python the two readings put it in different blocks: refused. The same hunk lands in a brace
    /// language, and a body line replaced alone (one for one) still lands at its file columns.
    #[test]
    fn a_line_standing_for_lines_of_two_depths_is_refused_where_indentation_is_syntax() {
        let text = "class D:\n    def beta(self):\n        size = 87\n        if retries > 94:\n            limit = 80\n        for total in range(61):\n            return count\n\n    def gamma(self):\n        pass\n";
        let patch = |body: &str| {
            crate::edit::formats::apply_patch::parse_patch(&format!(
                "*** Begin Patch\n*** Update File: a.py\n@@\n     if retries > 94:\n         limit = 80\n{body} \n def gamma(self):\n*** End Patch\n"
            ))
            .unwrap()
        };
        use crate::edit::ir::{Change, FileOp};
        let hunks = |ops: Vec<FileOp>| match ops.into_iter().next() {
            Some(FileOp::Update {
                change: Change::Hunks(h),
                ..
            }) => h,
            _ => panic!("not an update"),
        };
        let torn = hunks(patch(
            "-    for total in range(61):\n-        return count\n+        return result\n",
        ));
        let py = matcher::Layout::of_path("a.py");
        let f = apply_hunks_in(text, &torn, Tolerance::Safe, py).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound, "{f}");
        assert!(
            f.message.contains("goes to column 12") && f.message.contains("stays at column 8"),
            "{}",
            f.message
        );
        let rs = matcher::Layout::of_path("a.rs");
        assert!(apply_hunks_in(text, &torn, Tolerance::Safe, rs).is_ok());
        let one = hunks(patch(
            "     for total in range(61):\n-        return count\n+        return result\n",
        ));
        let out = apply_hunks_in(text, &one, Tolerance::Safe, py).unwrap();
        assert!(
            out.text
                .contains("        for total in range(61):\n            return result\n"),
            "{}",
            out.text
        );
    }

    #[test]
    fn a_pure_insertion_is_placed_by_a_scope_naming_exactly_one_line() {
        let text = "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n";
        let ins = |anchors: &[&str]| {
            let mut h = hunk(vec![Add("        print(1)".into())]);
            h.anchors = anchors.iter().map(|a| a.to_string()).collect();
            apply_hunks(text, &[h], Tolerance::Safe)
        };
        // A repeated scope line: it went to the first copy.
        let f = ins(&["def run(self):"]).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("match_lines"), Some(&serde_json::json!([2, 6])));
        // Narrowed by an enclosing scope to one line: it lands there.
        let out = ins(&["class B:", "def run(self):"]).unwrap();
        assert!(out
            .text
            .ends_with("    def run(self):\n        print(1)\n        pass\n"));
        assert_eq!(out.matches[0].start_line, 6);
        // Contained in two lines (and so once ignored, then written at the end of the file): refused.
        let text2 =
            "def setup():\n    pass\n\ndef setup_db():\n    pass\n\ndef other():\n    x = 1\n";
        let mut h = hunk(vec![Add("    log()".into())]);
        h.anchors = vec!["def setup".into()];
        let f = apply_hunks(text2, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        // A scope naming no line cannot place anything (it went to the end of the file).
        let mut h = hunk(vec![Add("    log()".into())]);
        h.anchors = vec!["add logging to setup".into()];
        let f = apply_hunks(text2, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound, "{f:?}");
        // No scope and no context: the documented end-of-file rule.
        let h = hunk(vec![Add("# end".into())]);
        let out = apply_hunks(text2, &[h], Tolerance::Safe).unwrap();
        assert!(out.text.ends_with("    x = 1\n# end\n"));
    }

    #[test]
    fn a_hunk_out_of_order_keeps_its_scope() {
        // Two hunks, the second above the first. Its scope names `def g`, which is below its content:
        // the reordering search stays below the scope line, so the refusal stands.
        let text = "def f():\n    x = 1\n\ndef g():\n    y = 2\n\ndef h():\n    z = 3\n";
        let a = hunk(vec![Remove("    z = 3".into()), Add("    z = 4".into())]);
        let mut b = hunk(vec![Remove("    x = 1".into()), Add("    x = 5".into())]);
        b.anchors = vec!["def g():".into()];
        let f = apply_hunks(text, &[a.clone(), b], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound, "{f:?}");
        // With a scope that agrees it is reordered, and said so.
        let mut b = hunk(vec![Remove("    x = 1".into()), Add("    x = 5".into())]);
        b.anchors = vec!["def f():".into()];
        let out = apply_hunks(text, &[a, b], Tolerance::Safe).unwrap();
        assert!(out.dialect.contains(&Dialect::HunksReordered));
        assert!(out.text.contains("    x = 5\n") && out.text.contains("    z = 4\n"));
    }

    /// Found by the ground-truth fuzzer (issue #25, seed 25 case 900162): three hunks, the last
    /// above the first. The second's body stands twice, under `worker:` (its scope) and under
    /// `api:`; searched below the first hunk it found only the copy under `api:`. Once the patch
    /// shows it is out of file order, its order places nothing: the hunk is ambiguous.
    #[test]
    fn the_order_of_the_hunks_places_no_hunk() {
        let text = "top: 1\nworker:\n  port: 80\n  env: a\nlimit: 2\ncron:\n  x: 1\napi:\n  port: 80\n  env: a\n";
        let a = hunk(vec![
            Remove("limit: 2".into()),
            Add("limit: 3".into()),
            ctx("cron:"),
        ]);
        let mut b = hunk(vec![ctx("  port: 80"), Remove("  env: a".into())]);
        b.anchors = vec!["worker".into()];
        let c = hunk(vec![Remove("top: 1".into()), Add("top: 2".into())]);
        let f = apply_hunks(text, &[a.clone(), b.clone(), c], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert!(f.message.contains("out of file order"), "{}", f.message);
        // In file order the order places nothing either (ground truth seed 31 case 827464): a
        // patch written in reverse reads the same, so the copy under `worker:` is as likely.
        let f = apply_hunks(text, &[a.clone(), b.clone()], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("match_lines"), Some(&serde_json::json!([3, 9])));
        assert!(
            f.message.contains("order of the hunks chooses no place"),
            "{}",
            f.message
        );
        // Line numbers alone choose nothing, but beside the order they confirm it: pointing at the
        // copy the order chose (line 9), it lands there; pointing at the other, refused.
        let mut b9 = b.clone();
        b9.line_hint = Some(9);
        let out = apply_hunks(text, &[a.clone(), b9], Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "top: 1\nworker:\n  port: 80\n  env: a\nlimit: 3\ncron:\n  x: 1\napi:\n  port: 80\n"
        );
        let mut b3 = b.clone();
        b3.line_hint = Some(3);
        let f = apply_hunks(text, &[a.clone(), b3], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        // A copy above that an earlier hunk rewrites is no place for it: the one below lands.
        let c = hunk(vec![
            ctx("worker:"),
            ctx("  port: 80"),
            Remove("  env: a".into()),
            Add("  env: b".into()),
        ]);
        let d = hunk(vec![ctx("  port: 80"), Remove("  env: a".into())]);
        let out = apply_hunks(text, &[c, d], Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "top: 1\nworker:\n  port: 80\n  env: b\nlimit: 2\ncron:\n  x: 1\napi:\n  port: 80\n"
        );
    }

    #[test]
    fn the_hunk_order_never_prefers_a_looser_match_below_to_the_exact_one_above() {
        // Found by the ground-truth fuzzer (issue #25): the second hunk's body is exactly above the
        // first hunk, and below it only in a twin with a trailing space. The order of the hunks
        // (here reversed by the model) chose the twin.
        let text = "if a; then\n    rm x\nfi\nz()\nk()\nif a; then \n    rm x\nfi\n";
        let first = hunk(vec![ctx("z()"), Remove("k()".into())]);
        let second = hunk(vec![
            ctx("if a; then"),
            Add("    rm y".into()),
            ctx("    rm x"),
        ]);
        let f = apply_hunks(text, &[first.clone(), second.clone()], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("hunk_index"), Some(&1.into()));
        // In file order it is refused as well: the twins differ only in what a view does not show.
        let out = apply_hunks(text, &[second, first], Tolerance::Safe).unwrap_err();
        assert_eq!(out.code, Code::SearchBlockAmbiguous, "{out:?}");
        // A twin below that matches only re-indented, the exact body above: refused, naming both.
        let text = "def f():\n    x = 1\nz()\nk()\nx = 1\n";
        let first = hunk(vec![ctx("z()"), Remove("k()".into())]);
        let second = hunk(vec![ctx("    x = 1"), Add("    y = 2".into())]);
        let f = apply_hunks(text, &[first.clone(), second], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("match_lines"), Some(&serde_json::json!([2, 5])));
        // A body found below the previous hunk exactly still lands there.
        let second = hunk(vec![ctx("x = 1"), Add("y = 2".into())]);
        let out = apply_hunks(text, &[first, second], Tolerance::Safe).unwrap();
        assert!(out.text.ends_with("x = 1\ny = 2\n"), "{}", out.text);
    }

    #[test]
    fn a_twin_in_unseen_bytes_is_ambiguous_for_hunks() {
        let twins = "a()\nb()\n--\na() \nb()\n";
        let h = hunk(vec![ctx("a()"), Remove("b()".into()), Add("c()".into())]);
        let f = apply_hunks(twins, std::slice::from_ref(&h), Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        // Through the one-pass index (32 hunks and more) as well.
        let mut text = String::new();
        let mut hunks = Vec::new();
        for i in 0..40 {
            text.push_str(&format!("v{i}\n"));
            hunks.push(hunk(vec![Remove(format!("v{i}")), Add(format!("w{i}"))]));
        }
        text.push_str(twins);
        hunks.push(h);
        let f = apply_hunks(&text, &hunks, Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("hunk_index"), Some(&40.into()));
    }

    #[test]
    fn line_numbers_pointing_at_a_near_twin_are_refused() {
        // Two near-identical functions; the hunk's content is the second's, its line numbers the
        // first's: written against the first (stale), or meant for it. Refused.
        let text = "def load(path):\n    with open(path) as f:\n        return f.read()\n\ndef save(path):\n    with open(path, 'w') as f:\n        return f.read()\n";
        let body = || {
            vec![
                ctx("    with open(path, 'w') as f:"),
                Remove("        return f.read()".into()),
                Add("        return f.write(data)".into()),
            ]
        };
        let mut h = hunk(body());
        h.line_hint = Some(2);
        let f = apply_hunks(text, &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous, "{f:?}");
        assert_eq!(f.detail("match_lines"), Some(&serde_json::json!([6, 2])));
        // Numbers pointing at the match (or near it), or at nothing like it: applied.
        for hint in [6, 5, 100] {
            let mut h = hunk(body());
            h.line_hint = Some(hint);
            let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
            assert_eq!(out.matches[0].start_line, 6, "{hint}");
        }
    }

    #[test]
    fn a_line_hint_never_breaks_a_tie() {
        let mut h = hunk(vec![ctx("x"), Remove("y".into()), Add("z".into())]);
        h.line_hint = Some(3);
        let f = apply_hunks("x\ny\nx\ny\n", &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockAmbiguous);
        assert_eq!(f.detail("line_hint"), Some(&3.into()));
        assert_eq!(f.detail("match_lines"), Some(&serde_json::json!([1, 3])));
        assert_eq!(f.detail("hunk_index"), Some(&0.into()));
    }

    #[test]
    fn insertion_goes_right_after_the_anchor() {
        let mut h = hunk(vec![Add("    # note".into())]);
        h.anchors = vec!["def f():".into()];
        let text = "def f():\n    pass\ndef g():\n    pass\n";
        let out = apply_hunks(text, &[h], Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "def f():\n    # note\n    pass\ndef g():\n    pass\n"
        );
        assert_eq!((out.matches[0].start_line, out.matches[0].end_line), (1, 1));
    }

    #[test]
    fn bodies_match_whole_lines_only() {
        let h = hunk(vec![Remove("x = 1".into()), Add("x = 2".into())]);
        // `x = 1` also ends the first line, but only the second line is `x = 1` as a whole.
        let out =
            apply_hunks("yx = 1\nx = 1\n", std::slice::from_ref(&h), Tolerance::Safe).unwrap();
        assert_eq!(out.text, "yx = 1\nx = 2\n");
        let f = apply_hunks("yx = 1\n", &[h], Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, Code::SearchBlockNotFound);
    }

    #[test]
    fn an_ambiguous_first_hunk_is_refused() {
        let a = hunk(vec![ctx("k"), Remove("v".into()), Add("1".into())]);
        let b = hunk(vec![ctx("k"), Remove("v".into()), Add("2".into())]);
        let out = apply_hunks("k\nv\nk\nv\n", &[a, b], Tolerance::Safe);
        // The first hunk alone is ambiguous: refused, never "first match wins".
        assert_eq!(out.unwrap_err().code, Code::SearchBlockAmbiguous);
    }

    #[test]
    fn empty_and_tiny_files() {
        let h = hunk(vec![Add("first".into())]);
        assert_eq!(
            apply_hunks("", std::slice::from_ref(&h), Tolerance::Safe)
                .unwrap()
                .text,
            "first\n"
        );
        assert_eq!(
            apply_hunks("a", &[h], Tolerance::Safe).unwrap().text,
            "a\nfirst"
        );
        let h = hunk(vec![Remove("a".into())]);
        assert_eq!(
            apply_hunks("a\n", std::slice::from_ref(&h), Tolerance::Safe)
                .unwrap()
                .text,
            ""
        );
        assert_eq!(apply_hunks("a", &[h], Tolerance::Safe).unwrap().text, "");
    }
}
