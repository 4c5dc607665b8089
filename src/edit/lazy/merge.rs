//! The merge: a snippet's chunks placed by their runs of unchanged lines, and the file rebuilt.
//! The rules and why they are safe are in `docs/formats.md` ("Lazy snippets").

use serde::Serialize;

use super::anchor::{is_weak, ladder, FileLines};
use super::markers::{marker, Marker};
use crate::edit::matcher::candidates::{self, Candidate};
use crate::edit::matcher::normalize::{columns, indent_of, render_indent};
use crate::edit::matcher::{Haystack, Tier, Tolerance};
use crate::error::{Code, Failure, Result};

/// Where one chunk of the snippet landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Landing {
    /// 0-based index of the chunk in the snippet.
    pub chunk: usize,
    /// 1-based first and last line of the chunk in the snippet.
    pub snippet_start_line: usize,
    pub snippet_end_line: usize,
    /// 1-based first and last line the chunk occupies in the new file.
    pub start_line: usize,
    pub end_line: usize,
}

/// A range of the old file's lines the merge removed (replaced by new lines, or deleted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removed {
    /// 1-based, inclusive, in the file before the merge.
    pub start_line: usize,
    pub end_line: usize,
    /// `"shown"`: between two unchanged lines the snippet shows with no marker between them;
    /// `"removal_marker"`: where a removal comment (`// ... removed code ...`) stands.
    pub by: &'static str,
}

/// A merged snippet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub landings: Vec<Landing>,
    pub removed: Vec<Removed>,
    /// The loosest tolerance tier any run was found at.
    pub tier: Tier,
}

/// What a snippet is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Chunks and markers, merged.
    Merged(Merged),
    /// No marker, and the snippet is the whole new file: a rewrite.
    Rewrite,
}

/// A run of snippet lines placed on file lines: chunk lines `c0..c0+len` on file lines `f0..`.
#[derive(Debug, Clone, Copy)]
struct Run {
    c0: usize,
    len: usize,
    f0: usize,
    tier: Tier,
}

impl Run {
    fn c_end(&self) -> usize {
        self.c0 + self.len
    }
    fn f_end(&self) -> usize {
        self.f0 + self.len
    }
}

/// A run found by its strong lines, before its place is settled.
pub(super) struct Found {
    pub(super) c0: usize,
    pub(super) len: usize,
    tier: Tier,
    pub(super) places: Vec<usize>,
}

/// A chunk: snippet lines between markers, blank edge lines set aside.
pub(super) struct Chunk<'s> {
    /// Snippet line indices (0-based) of `lines`.
    pub(super) at: Vec<usize>,
    pub(super) lines: Vec<&'s str>,
    /// Blank lines set aside above and below (written only next to new lines).
    blank_above: usize,
    blank_below: usize,
    /// The marker above, if any (merged when several stand together).
    before: Option<Marker>,
}

fn combine(a: Option<Marker>, b: Marker) -> Marker {
    match (a, b) {
        (None, b) => b,
        (Some(Marker::Remove), Marker::Remove) => Marker::Remove,
        (Some(Marker::Keep(mut x)), Marker::Keep(y)) => {
            x.extend(y);
            Marker::Keep(x)
        }
        // A removal beside a keep: keep (nothing is deleted that a marker says stays).
        (Some(Marker::Keep(x)), Marker::Remove) | (Some(Marker::Remove), Marker::Keep(x)) => {
            Marker::Keep(x)
        }
    }
}

pub(super) fn is_blank(l: &str) -> bool {
    l.trim().is_empty()
}

pub(super) struct Parsed<'s> {
    pub(super) chunks: Vec<Chunk<'s>>,
    trailing: Option<Marker>,
}

pub(super) fn parse<'s>(snip: &[&'s str]) -> Option<Parsed<'s>> {
    let marks: Vec<Option<Marker>> = snip.iter().map(|l| marker(l)).collect();
    if marks.iter().all(Option::is_none) {
        return None;
    }
    let mut out: Vec<Chunk<'s>> = Vec::new();
    let mut pending: Option<Marker> = None;
    let mut cur: Vec<usize> = Vec::new();
    let mut cur_before: Option<Marker> = None;
    let flush = |cur: &mut Vec<usize>,
                 before: Option<Marker>,
                 out: &mut Vec<Chunk<'s>>|
     -> Option<Marker> {
        // Returns the marker to carry on when the group was only blank lines.
        let idx = std::mem::take(cur);
        let first = idx.iter().position(|&i| !is_blank(snip[i]));
        let last = idx.iter().rposition(|&i| !is_blank(snip[i]));
        match (first, last) {
            (Some(f), Some(l)) => {
                out.push(Chunk {
                    at: idx[f..=l].to_vec(),
                    lines: idx[f..=l].iter().map(|&i| snip[i]).collect(),
                    blank_above: f,
                    blank_below: idx.len() - 1 - l,
                    before,
                });
                None
            }
            _ => before,
        }
    };
    for (i, m) in marks.into_iter().enumerate() {
        match m {
            Some(m) => {
                if !cur.is_empty() {
                    if let Some(carry) = flush(&mut cur, cur_before.take(), &mut out) {
                        pending = Some(combine(pending, carry));
                    }
                }
                pending = Some(combine(pending.take(), m));
            }
            None => {
                if cur.is_empty() {
                    cur_before = pending.take();
                }
                cur.push(i);
            }
        }
    }
    let mut trailing = pending;
    if !cur.is_empty() {
        if let Some(carry) = flush(&mut cur, cur_before.take(), &mut out) {
            trailing = Some(match trailing {
                Some(t) => combine(Some(carry), t),
                None => carry,
            });
        }
    }
    Some(Parsed {
        chunks: out,
        trailing,
    })
}

/// The refusal of chunk `k`, with its snippet lines and up to three candidate regions.
fn refuse(code: Code, k: &Chunk, index: usize, why: String, cands: Vec<Candidate>) -> Failure {
    let (s, e) = (k.at[0] + 1, k.at[k.at.len() - 1] + 1);
    let places: Vec<String> = cands
        .iter()
        .map(|c| match c.start_line == c.end_line {
            true => format!("line {}", c.start_line),
            false => format!("lines {}-{}", c.start_line, c.end_line),
        })
        .collect();
    let at = match places.is_empty() {
        true => String::new(),
        false => format!(" Candidate region(s) of the file: {}.", places.join(", ")),
    };
    Failure::new(
        code,
        format!(
            "chunk {index} of the snippet (snippet lines {s}-{e}) {why}; nothing was written.{at}"
        ),
    )
    .with("chunk_index", index)
    .with(
        "chunk_lines",
        serde_json::json!({"start_line": s, "end_line": e}),
    )
    .with("candidates", cands)
}

fn region(h: &Haystack, f0: usize, len: usize) -> Candidate {
    Candidate {
        start_line: f0 + 1,
        end_line: f0 + len.max(1),
        similarity: 1.0,
        snippet: candidates::snippet(h, f0, f0 + len.max(1)),
        differences: Vec::new(),
    }
}

/// Runs of a chunk seeded by its strong lines (lines that are not [`is_weak`] and occur in the file):
/// each extended forward over every line that still matches some place, then placed on the ladder.
pub(super) fn strong_runs(fl: &FileLines, lines: &[&str], tiers: &[Tier]) -> Vec<Found> {
    let loose = *tiers.last().expect("a ladder has a tier");
    let mut out = Vec::new();
    let mut i = 0;
    let mut prev_end = 0;
    while i < lines.len() {
        if is_weak(lines[i]) || !fl.occurs(lines[i], tiers) {
            i += 1;
            continue;
        }
        let len = fl
            .places_of(lines[i], loose)
            .into_iter()
            .map(|p| fl.match_len(lines, i, p, loose))
            .max()
            .unwrap_or(1)
            .max(1);
        // Counted where the loosest tier folds the most: a twin that differs only in indentation
        // or whitespace is a second place (the model may have meant either).
        let mut places = fl.run_places(&lines[i..i + len], loose, 0..fl.len());
        // A seed found at several places takes in the weak lines just above it where they match
        // above its places (a `}` or `"""` line makes `if x:` unique as a whole).
        let mut c0 = i;
        while places.len() > 1 && c0 > prev_end && is_weak(lines[c0 - 1]) {
            let above: Vec<usize> = places
                .iter()
                .filter(|&&p| p > 0 && fl.eq(lines[c0 - 1], p - 1, loose))
                .map(|&p| p - 1)
                .collect();
            if above.is_empty() {
                break;
            }
            places = above;
            c0 -= 1;
        }
        let len = len + (i - c0);
        let tier = match places.as_slice() {
            [p] => tier_at(fl, &lines[c0..c0 + len], *p, tiers),
            _ => loose,
        };
        prev_end = c0 + len;
        out.push(Found {
            c0,
            len,
            tier,
            places,
        });
        // On from the run's end: the weak lines it took in above its seed are not counted twice.
        i = prev_end;
    }
    out
}

/// The tier at which `lines` match the file at `f0` (the strictest of the ladder).
fn tier_at(fl: &FileLines, lines: &[&str], f0: usize, tiers: &[Tier]) -> Tier {
    tiers
        .iter()
        .copied()
        .find(|&t| !fl.run_places(lines, t, f0..f0 + lines.len()).is_empty())
        .unwrap_or(*tiers.last().expect("a ladder has a tier"))
}

pub(super) struct Ctx<'a, 'f> {
    pub(super) fl: &'a FileLines<'f>,
    pub(super) h: &'a Haystack<'f>,
    pub(super) tiers: &'a [Tier],
    pub(super) loose: Tier,
}

/// The anchors of chunk `k` placed at or after file line `lo` (`hi`: the next chunk's first strong
/// place, the bound of a weak edge line's search).
#[allow(clippy::too_many_arguments)]
fn place_chunk(
    cx: &Ctx,
    k: &Chunk,
    index: usize,
    found: &[Found],
    lo: usize,
    hi: usize,
    pin_start: Option<usize>,
    pin_end: Option<usize>,
) -> Result<Vec<Run>> {
    let fl = cx.fl;
    let lines = &k.lines;
    let m = lines.len();
    let occurs_strong = |l: &str| !is_weak(l) && fl.occurs(l, cx.tiers);
    let mut anchors: Vec<Run> = Vec::new();
    // A chunk with no marker above claims the file's first line.
    let mut first_c = 0;
    if let Some(s0) = pin_start {
        let i = (0..m).find(|&i| cx.tiers.iter().any(|&t| fl.eq(lines[i], s0, t)));
        let Some(i) = i.filter(|&i| !lines[..i].iter().any(|l| occurs_strong(l))) else {
            return Err(refuse(
                Code::SnippetUnanchored,
                k,
                index,
                format!("has no marker above it, so it must begin at the file's first line (line {}), but it does not: merging it would delete the lines above it without showing them. Put a marker such as `// ... existing code ...` above the chunk", s0 + 1),
                found.iter().filter(|f| f.places.len() == 1).take(3).map(|f| region(cx.h, f.places[0], f.len)).collect(),
            ));
        };
        let len = fl.match_len(lines, i, s0, cx.loose);
        if lines[i..i + len].iter().all(|l| is_weak(l)) {
            return Err(refuse(
                Code::SnippetUnanchored,
                k,
                index,
                "has no marker above it and its first unchanged lines are only brackets or blank lines, which cannot show that it starts at the top of the file".to_string(),
                Vec::new(),
            ));
        }
        let tier = tier_at(fl, &lines[i..i + len], s0, cx.tiers);
        anchors.push(Run {
            c0: i,
            len,
            f0: s0,
            tier,
        });
        first_c = i + len;
    }
    let mut pinned_end: Option<Run> = None;
    let mut last_c = m;
    if let Some(e0) = pin_end {
        let j = (first_c..m)
            .rev()
            .find(|&j| cx.tiers.iter().any(|&t| fl.eq(lines[j], e0 - 1, t)));
        let Some(j) = j.filter(|&j| !lines[j + 1..].iter().any(|l| occurs_strong(l))) else {
            return Err(refuse(
                Code::SnippetUnanchored,
                k,
                index,
                format!("has no marker below it, so it must end at the file's last line (line {e0}), but it does not: merging it would delete the lines below it without showing them. Put a marker such as `// ... existing code ...` below the chunk"),
                found.iter().filter(|f| f.places.len() == 1).take(3).map(|f| region(cx.h, f.places[0], f.len)).collect(),
            ));
        };
        // Not back into a run placed above it.
        let (cb, fb) = found
            .iter()
            .filter(|f| f.places.len() == 1 && f.c0 + f.len <= j && f.c0 >= first_c)
            .map(|f| (f.c0 + f.len, f.places[0] + f.len))
            .max()
            .unwrap_or((first_c, lo));
        let mut g = 0;
        while j >= g
            && j - g >= cb
            && e0 > g
            && e0 - 1 - g >= fb.max(lo)
            && fl.eq(lines[j - g], e0 - 1 - g, cx.loose)
        {
            g += 1;
        }
        let c0 = j + 1 - g;
        // Only brackets: they stand for the file's end only when they close the block of an
        // unchanged line above them whose block ends exactly there.
        let cols = |l: &str| columns(indent_of(l), 4);
        let closes_end = || {
            let ind = cols(lines[c0]);
            let Some(o) = (0..c0)
                .rev()
                .find(|&i| !is_blank(lines[i]) && cols(lines[i]) <= ind)
            else {
                return false;
            };
            let Some(f) = found
                .iter()
                .find(|f| f.places.len() == 1 && f.c0 <= o && o < f.c0 + f.len)
            else {
                return false;
            };
            let fo = f.places[0] + (o - f.c0);
            let fi = cols(fl.line(fo));
            // Indented under that line as the file's bracket is under its file line: a bracket
            // deeper than the line it would close (under a template string's line at column 0)
            // closes some block in between, not that one.
            let (sd, fd) = (
                ind as isize - cols(lines[o]) as isize,
                cols(fl.line(e0 - g)) as isize - fi as isize,
            );
            sd == fd
                && (fo + 1..e0).find(|&x| !is_blank(fl.line(x)) && cols(fl.line(x)) <= fi)
                    == Some(e0 - g)
        };
        // Or nothing but blank lines stands between the run placed above and them (a pure
        // insertion before the file's last bracket: nothing is deleted).
        let adjacent = || fb >= lo && (fb..e0 - g).all(|i| is_blank(fl.line(i)));
        // Or the chunk's lines between a run placed above and them are as many as the file's
        // lines there and read like them, line for line (equal, or alike as in
        // [`STALE_LIKENESS`]): the snippet shows the file's last lines changed. Ending mid-file
        // instead, the file would go on past lines that the chunk's do not mirror.
        let run_above = found
            .iter()
            .filter(|f| f.places.len() == 1 && f.c0 + f.len <= c0 && f.c0 >= first_c)
            .map(|f| (f.c0 + f.len, f.places[0] + f.len))
            .max()
            .or(anchors.first().map(|a| (a.c_end(), a.f_end())));
        let changed_tail = || {
            let Some((cr, fr)) = run_above.filter(|&(_, fr)| fr >= lo && fr <= e0 - g) else {
                return false;
            };
            let new: Vec<&str> = lines[cr..c0]
                .iter()
                .copied()
                .filter(|l| !is_blank(l))
                .collect();
            let old: Vec<usize> = (fr..e0 - g).filter(|&i| !is_blank(fl.line(i))).collect();
            !new.is_empty()
                && new.len() == old.len()
                && new
                    .iter()
                    .zip(&old)
                    .all(|(a, &f)| fl.eq(a, f, cx.loose) || reads_like(a, fl.line(f)))
        };
        if lines[c0..=j].iter().all(|l| is_weak(l))
            && !closes_end()
            && !adjacent()
            && !changed_tail()
        {
            return Err(refuse(
                Code::SnippetUnanchored,
                k,
                index,
                "has no marker below it and its last unchanged lines are only brackets or blank lines, which cannot show that it ends at the bottom of the file".to_string(),
                found.iter().filter(|f| f.places.len() == 1).take(3).map(|f| region(cx.h, f.places[0], f.len)).collect(),
            ));
        }
        let f0 = e0 - g;
        pinned_end = Some(Run {
            c0,
            len: g,
            f0,
            tier: tier_at(fl, &lines[c0..=j], f0, cx.tiers),
        });
        last_c = c0;
    }
    // Strong runs between the pinned ones.
    let inner: Vec<&Found> = found
        .iter()
        .filter(|f| f.c0 >= first_c && f.c0 + f.len <= last_c)
        .collect();
    let unique: Vec<usize> = (0..inner.len())
        .filter(|&x| inner[x].places.len() == 1)
        .collect();
    let (first_u, last_u) = (unique.first().copied(), unique.last().copied());
    let first_place = first_u
        .map(|u| inner[u].places[0])
        .or(pinned_end.map(|r| r.f0));
    let last_end = last_u
        .map(|u| inner[u].places[0] + inner[u].len)
        .or(anchors.first().map(Run::f_end));
    for (x, f) in inner.iter().enumerate() {
        if f.places.len() == 1 {
            anchors.push(Run {
                c0: f.c0,
                len: f.len,
                f0: f.places[0],
                tier: f.tier,
            });
            continue;
        }
        // Between two placed runs of the chunk, a run found several times decides nothing: the file
        // between those runs is replaced by the chunk's lines between them either way.
        let before_first = first_u.is_none_or(|u| x < u) && pin_start.is_none();
        let after_last = last_u.is_none_or(|u| x > u) && pin_end.is_none();
        let inside = !before_first && !after_last;
        if inside {
            continue;
        }
        // An edge run of a chunk that has a run found once: only the places on its side of that run
        // (and of the neighbouring chunks) are in order, and it takes the nearest of them (a farther
        // one would delete, between the two runs, a copy of the very lines the chunk shows as
        // unchanged) when the lines between the two runs stay inside the block of the lower run
        // (none indented less than its first line). Otherwise it could be the tail of a new block
        // (a new method ending in `return this; }` like the one below it): refused.
        let window = match before_first {
            true => first_place.map(|fp| lo..fp),
            false => last_end.map(|le| le..hi.max(le)),
        };
        if let Some(w) = window {
            let inw: Vec<usize> = f
                .places
                .iter()
                .copied()
                .filter(|&p| p >= w.start && p + f.len <= w.end)
                .collect();
            // (place, span between the runs, chunk line where the lower run starts)
            let nearest = match before_first {
                true => inw
                    .last()
                    .map(|&p| (p, p + f.len, w.end, first_u.map_or(f.c0, |u| inner[u].c0))),
                false => inw.first().map(|&p| (p, w.start, p, f.c0)),
            };
            let cols = |i: usize| columns(indent_of(fl.line(i)), 4);
            let in_block = |(from, mut to, mut c): (usize, usize, usize)| {
                // The lower run begins with the bracket lines (`else:`, `}`) just above it.
                while c > 0
                    && to > from
                    && is_weak(lines[c - 1])
                    && fl.eq(lines[c - 1], to - 1, cx.loose)
                {
                    c -= 1;
                    to -= 1;
                }
                let Some(base) = (to..fl.len()).find(|&i| !is_blank(fl.line(i))) else {
                    return true;
                };
                (from..to).all(|i| is_blank(fl.line(i)) || cols(i) >= cols(base))
            };
            if let Some((p, ..)) = nearest.filter(|&(_, a, b, c)| in_block((a, b, c))) {
                let tier = tier_at(fl, &lines[f.c0..f.c0 + f.len], p, cx.tiers);
                anchors.push(Run {
                    c0: f.c0,
                    len: f.len,
                    f0: p,
                    tier,
                });
                continue;
            }
        }
        // The places in order (below the chunk before, above the next chunk's place) first: the
        // others cannot be meant.
        let (fits, rest): (Vec<usize>, Vec<usize>) =
            f.places.iter().partition(|&&p| p >= lo && p + f.len <= hi);
        let cands: Vec<Candidate> = fits
            .into_iter()
            .chain(rest)
            .take(3)
            .map(|p| region(cx.h, p, f.len))
            .collect();
        return Err(refuse(
            Code::SnippetAmbiguous,
            k,
            index,
            format!(
                "{} with unchanged lines (snippet lines {}-{}) found at {} places of the file at the {} tier, so where it goes is not known",
                if before_first { "starts" } else { "ends" },
                k.at[f.c0] + 1,
                k.at[f.c0 + f.len - 1] + 1,
                f.places.len(),
                f.tier.as_str(),
            ),
            cands,
        ));
    }
    anchors.extend(pinned_end);
    anchors.sort_by_key(|a| a.c0);
    if anchors.is_empty() {
        let text = lines.join("\n");
        return Err(refuse(
            Code::SnippetUnanchored,
            k,
            index,
            "has no unchanged line of the file to place it by (each chunk needs an unchanged line above and below its new lines, copied exactly)".to_string(),
            candidates::nearest(cx.h, &text, 3),
        ));
    }
    // In order: within the chunk, and after the chunk before it.
    let mut floor = lo;
    for (x, a) in anchors.iter().enumerate() {
        if a.f0 < floor || (x > 0 && a.c0 < anchors[x - 1].c_end()) {
            let mut cands = vec![region(cx.h, a.f0, a.len)];
            if x > 0 {
                let b = anchors[x - 1];
                cands.push(region(cx.h, b.f0, b.len));
            }
            let what = match x {
                0 => "lies above the chunk before it (chunks must come in file order)".to_string(),
                _ => "has unchanged lines in another order than the file's".to_string(),
            };
            return Err(refuse(
                Code::SnippetOutOfOrder,
                k,
                index,
                format!(
                    "{what}: snippet lines {}-{} are file lines {}-{}",
                    k.at[a.c0] + 1,
                    k.at[a.c_end() - 1] + 1,
                    a.f0 + 1,
                    a.f_end()
                ),
                cands,
            ));
        }
        floor = a.f_end();
    }
    // Unchanged lines just above a placed run (brackets, blank lines) belong to it.
    for x in 0..anchors.len() {
        let (c_floor, f_floor) = match x {
            0 => (0, lo),
            _ => (anchors[x - 1].c_end(), anchors[x - 1].f_end()),
        };
        let a = &mut anchors[x];
        while a.c0 > c_floor && a.f0 > f_floor && fl.eq(lines[a.c0 - 1], a.f0 - 1, cx.loose) {
            a.c0 -= 1;
            a.f0 -= 1;
            a.len += 1;
        }
    }
    // Weak edge lines (`}`, `"""`) not next to a placed run.
    if pin_start.is_none() {
        let a = anchors[0];
        if a.c0 > 0 && is_weak(lines[0]) {
            // Anchors only if it is the only such line between the neighbouring anchors.
            let places = fl.run_places(&lines[..1], cx.loose, lo..a.f0);
            if places.len() > 1 {
                return Err(refuse(
                    Code::SnippetAmbiguous,
                    k,
                    index,
                    format!("begins with `{}`, which occurs {} times between the previous anchor and the chunk's first unchanged line, so where the chunk begins is not known. Start the chunk with a line that occurs once", lines[0].trim(), places.len()),
                    places.iter().take(3).map(|&p| region(cx.h, p, 1)).collect(),
                ));
            }
            if let Some(&p) = places.first() {
                let len = fl.match_len(lines, 0, p, cx.loose).min(a.c0).min(a.f0 - p);
                let tier = tier_at(fl, &lines[..len], p, cx.tiers);
                anchors.insert(
                    0,
                    Run {
                        c0: 0,
                        len,
                        f0: p,
                        tier,
                    },
                );
            }
        }
    }
    if pin_end.is_none() {
        let a = anchors[anchors.len() - 1];
        let c = m - 1;
        if a.c_end() < m && is_weak(lines[c]) {
            if let Some(j) = closing_place(cx, k, index, &anchors, c, hi)? {
                let tier = tier_at(fl, &lines[c..], j, cx.tiers);
                anchors.push(Run {
                    c0: c,
                    len: 1,
                    f0: j,
                    tier,
                });
            }
        }
    }
    stale_edges(
        cx,
        k,
        index,
        &anchors,
        pin_start.is_some(),
        pin_end.is_some(),
    )?;
    Ok(anchors)
}

/// How alike a new line next to a marker may be to the file line right beside where it would go
/// before it reads as that line, copied wrong, rather than as new code.
const STALE_LIKENESS: f64 = 0.9;

/// Whether new line `a` reads like file line `b`, copied with a change: not only brackets, at least
/// 6 characters, and of likeness at least [`STALE_LIKENESS`] (trimmed).
fn reads_like(a: &str, b: &str) -> bool {
    let (x, y) = (a.trim(), b.trim());
    !is_weak(a)
        && x.chars().count() >= 6
        && crate::edit::matcher::candidates::likeness(x, y, STALE_LIKENESS) >= STALE_LIKENESS
}

/// A chunk whose edge beside a marker is new text (lines inserted right below its last run, or right
/// above its first) is refused when those lines read, line for line, like the file lines they would
/// be inserted beside (equal, or alike with at least one alike) (`return 11` where the file has `return 1`): that is a changed
/// or mistyped unchanged line without the unchanged line that would place the change, and inserting
/// it would keep the old line and add a near copy.
fn stale_edges(
    cx: &Ctx,
    k: &Chunk,
    index: usize,
    anchors: &[Run],
    pinned_start: bool,
    pinned_end: bool,
) -> Result<()> {
    let fl = cx.fl;
    let lines = &k.lines;
    let alike = |c: usize, f: usize| reads_like(lines[c], fl.line(f));
    // Every new line of that edge, in order away from the run, against the file's lines there: a
    // block that reads like the file's own lines beside it, line for line, is those lines changed.
    let copies = |new: &[usize], file: &[usize]| {
        new.len() <= file.len()
            && new
                .iter()
                .zip(file)
                .all(|(&c, &f)| lines[c].trim() == fl.line(f).trim() || alike(c, f))
            && new.iter().zip(file).any(|(&c, &f)| alike(c, f))
    };
    let nonblank_file = |it: &mut dyn Iterator<Item = usize>, k: usize| -> Vec<usize> {
        it.filter(|&i| !is_blank(fl.line(i))).take(k).collect()
    };
    let mut hit = None;
    if let (false, Some(a)) = (pinned_end, anchors.last()) {
        let new: Vec<usize> = (a.c_end()..lines.len())
            .filter(|&c| !is_blank(lines[c]))
            .collect();
        let file = nonblank_file(&mut (a.f_end()..fl.len()), new.len());
        if !new.is_empty() && copies(&new, &file) {
            hit = Some((new[0], file[0], "below"));
        }
    }
    if let (false, Some(a), None) = (pinned_start, anchors.first(), hit) {
        let new: Vec<usize> = (0..a.c0).rev().filter(|&c| !is_blank(lines[c])).collect();
        let file = nonblank_file(&mut (0..a.f0).rev(), new.len());
        if !new.is_empty() && copies(&new, &file) {
            hit = Some((new[0], file[0], "above"));
        }
    }
    match hit {
        None => Ok(()),
        Some((c, f, side)) => Err(refuse(
            Code::SnippetUnanchored,
            k,
            index,
            format!(
                "has new line `{}` (snippet line {}) right {side} its unchanged lines, which reads almost like file line {} (`{}`) that stands there: to change that line, show the unchanged line {side} it too (with a marker only beyond it); as it stands the snippet would insert a near copy and keep the old line",
                lines[c].trim(),
                k.at[c] + 1,
                f + 1,
                fl.line(f).trim()
            ),
            vec![region(cx.h, f, 1)],
        )),
    }
}

/// The file line a chunk's last line `c` (weak: `}`, `end`, `"""`) stands on, or `None` when it is
/// new text. It closes the block of the nearest line above it in the chunk that is indented no
/// deeper: when that line is new, so is the closer; when it is an unchanged line, the closer is the
/// first file line below the chunk's last run that is indented no deeper than that line's file line,
/// and it must be equal to it. Without such a line above it, it anchors only if it is the only such
/// line between its neighbouring anchors.
fn closing_place(
    cx: &Ctx,
    k: &Chunk,
    index: usize,
    anchors: &[Run],
    c: usize,
    hi: usize,
) -> Result<Option<usize>> {
    let fl = cx.fl;
    let lines = &k.lines;
    let a = anchors[anchors.len() - 1];
    let cols = |l: &str| columns(indent_of(l), 4);
    let ind = cols(lines[c]);
    let opener = (0..c)
        .rev()
        .find(|&i| !is_blank(lines[i]) && cols(lines[i]) <= ind);
    let ambiguous = |places: Vec<usize>, why: String| {
        Err(refuse(
            Code::SnippetAmbiguous,
            k,
            index,
            why,
            places.iter().take(3).map(|&p| region(cx.h, p, 1)).collect(),
        ))
    };
    let hi = hi.min(fl.len()).max(a.f_end());
    match opener {
        Some(o) => {
            let Some(r) = anchors.iter().find(|r| r.c0 <= o && o < r.c_end()) else {
                return Ok(None);
            };
            let fo = r.f0 + (o - r.c0);
            let fi = cols(fl.line(fo));
            let j = (a.f_end().max(fo + 1)..hi)
                .find(|&j| !is_blank(fl.line(j)) && cols(fl.line(j)) <= fi);
            // Indented under that line as the file's line is under its file line (else it closes
            // some block in between: a template string's line at column 0 is no opener).
            let under = |j: usize| {
                ind as isize - cols(lines[o]) as isize == cols(fl.line(j)) as isize - fi as isize
            };
            match j {
                Some(j) if under(j) && cx.tiers.iter().any(|&t| fl.eq(lines[c], j, t)) => {
                    Ok(Some(j))
                }
                _ => {
                    let places = fl.run_places(&lines[c..], cx.loose, a.f_end()..hi);
                    ambiguous(places, format!("ends with `{}`, which closes the block of snippet line {}, but the file's block there does not end with it, so where the chunk ends is not known. End the chunk with the unchanged line that follows the block", lines[c].trim(), k.at[o] + 1))
                }
            }
        }
        None => {
            let places = fl.run_places(&lines[c..], cx.loose, a.f_end()..hi);
            match places.len() {
                0 => Ok(None),
                1 => Ok(Some(places[0])),
                n => ambiguous(places, format!("ends with `{}`, which occurs {n} times between the chunk's last unchanged line and the next anchor, so where the chunk ends is not known. End the chunk with a line that occurs once", lines[c].trim())),
            }
        }
    }
}

/// Re-indents one new line by `delta` columns, in the file's style (`tabs`).
fn reindent(line: &str, delta: isize, tabs: Option<bool>) -> String {
    if line.trim().is_empty() {
        return String::new();
    }
    let ind = indent_of(line);
    let cols = columns(ind, 4) as isize;
    let tabs = tabs.unwrap_or(ind.contains('\t'));
    if delta == 0 && (ind.contains('\t') == tabs || ind.is_empty()) {
        return line.to_string();
    }
    let new = (cols + delta).max(0) as usize;
    format!("{}{}", render_indent(new, tabs, 4), &line[ind.len()..])
}

/// The drift (file columns minus snippet columns) and tab style (`None` when that line has no
/// indentation) at the anchored line nearest to chunk line `c` (above it first).
fn drift(fl: &FileLines, lines: &[&str], anchors: &[Run], c: usize) -> (isize, Option<bool>) {
    let pair = |a: &Run, k: usize| -> Option<(isize, Option<bool>)> {
        let s = lines[a.c0 + k];
        let f = fl.line(a.f0 + k);
        if s.trim().is_empty() || f.trim().is_empty() {
            return None;
        }
        let fi = indent_of(f);
        let d = columns(fi, 4) as isize - columns(indent_of(s), 4) as isize;
        Some((d, (!fi.is_empty()).then(|| fi.starts_with('\t'))))
    };
    let above = anchors
        .iter()
        .filter(|a| a.c_end() <= c)
        .rev()
        .find_map(|a| (0..a.len).rev().find_map(|k| pair(a, k)));
    let below = || {
        anchors
            .iter()
            .filter(|a| a.c0 >= c)
            .find_map(|a| (0..a.len).find_map(|k| pair(a, k)))
    };
    above.or_else(below).unwrap_or((0, None))
}

/// One piece of the new file: old lines kept, or new lines.
enum Piece {
    Old(usize, usize),
    New(Vec<String>),
}

/// Merges the snippet's lines (see [`super::merge`]) into `file`; also returns the old file lines
/// each chunk spans (first run's first line, last run's end). A `SNIPPET_AMBIGUOUS` refusal carries
/// `chunk_index` and `candidates`, from which [`super::hints`] names the lines that tell them apart.
pub(super) fn merge_lines(
    file: &str,
    snip: &[&str],
    tol: Tolerance,
) -> Result<(Plan, Vec<(usize, usize)>)> {
    let fl = FileLines::new(file);
    let tiers = ladder(tol);
    let Some(parsed) = parse(snip) else {
        return whole(&fl, snip, tiers).map(|_| (Plan::Rewrite, Vec::new()));
    };
    let h = Haystack::new(file);
    let cx = Ctx {
        fl: &fl,
        h: &h,
        tiers,
        loose: *tiers.last().expect("a ladder has a tier"),
    };
    let n = fl.len();
    if parsed.chunks.is_empty() {
        return Err(Failure::new(
            Code::InvalidInput,
            "the snippet holds only markers (`// ... existing code ...`) and no code: nothing to merge.",
        ));
    }
    let s0 = (0..n).find(|&i| !is_blank(fl.line(i))).unwrap_or(0);
    let e0 = (0..n)
        .rev()
        .find(|&i| !is_blank(fl.line(i)))
        .map_or(n, |i| i + 1);
    let found: Vec<Vec<Found>> = parsed
        .chunks
        .iter()
        .map(|k| strong_runs(&fl, &k.lines, tiers))
        .collect();
    let last = parsed.chunks.len() - 1;
    let mut placed: Vec<Vec<Run>> = Vec::new();
    let mut lo = 0;
    for (x, k) in parsed.chunks.iter().enumerate() {
        if n == 0 {
            return Err(refuse(
                Code::SnippetUnanchored,
                k,
                x,
                "cannot be placed: the file is empty (send the whole file instead)".to_string(),
                Vec::new(),
            ));
        }
        // The next chunk's first run found once, for the search of a weak last line.
        let hi = found[x + 1..]
            .iter()
            .flat_map(|f| f.iter())
            .filter(|f| f.places.len() == 1 && f.places[0] >= lo)
            .map(|f| f.places[0])
            .next()
            .unwrap_or(n);
        let pin_start = (x == 0 && k.before.is_none()).then_some(s0);
        let pin_end = (x == last && parsed.trailing.is_none()).then_some(e0);
        let runs = place_chunk(&cx, k, x, &found[x], lo, hi, pin_start, pin_end)?;
        lo = runs.last().map_or(lo, Run::f_end);
        placed.push(runs);
    }
    // Build the pieces: gaps (markers) and chunks.
    let mut pieces: Vec<Piece> = Vec::new();
    let mut removed: Vec<Removed> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new(); // piece index range of each chunk
    let mut prev_end = 0;
    let mut tier = Tier::Exact;
    for (x, k) in parsed.chunks.iter().enumerate() {
        let runs = &placed[x];
        let start = runs[0].f0;
        // The gap above the chunk.
        let gap_marker = match (&k.before, x) {
            (Some(m), _) => Some(m.clone()),
            (None, 0) => None,
            (None, _) => unreachable!("chunks after the first follow a marker"),
        };
        gap(
            &cx,
            k,
            x,
            gap_marker.as_ref(),
            prev_end,
            start,
            &mut pieces,
            &mut removed,
        )?;
        let p0 = pieces.len();
        let lines = &k.lines;
        let new = |from: usize, to: usize, pieces: &mut Vec<Piece>| {
            if from < to {
                let v: Vec<String> = (from..to)
                    .map(|c| {
                        let (d, tabs) = drift(&fl, lines, runs, c);
                        reindent(lines[c], d, tabs)
                    })
                    .collect();
                pieces.push(Piece::New(v));
            }
        };
        // New lines above the first run, with the blank lines set aside above them.
        if runs[0].c0 > 0 {
            pieces.push(Piece::New(vec![String::new(); k.blank_above]));
        }
        new(0, runs[0].c0, &mut pieces);
        for (r, a) in runs.iter().enumerate() {
            tier = tier.max(a.tier);
            pieces.push(Piece::Old(a.f0, a.f_end()));
            if let Some(b) = runs.get(r + 1) {
                if b.f0 > a.f_end() {
                    removed.push(Removed {
                        start_line: a.f_end() + 1,
                        end_line: b.f0,
                        by: "shown",
                    });
                }
                new(a.c_end(), b.c0, &mut pieces);
            }
        }
        let z = runs[runs.len() - 1];
        new(z.c_end(), lines.len(), &mut pieces);
        if z.c_end() < lines.len() {
            pieces.push(Piece::New(vec![String::new(); k.blank_below]));
        }
        spans.push((p0, pieces.len()));
        prev_end = z.f_end();
    }
    let k = &parsed.chunks[last];
    gap(
        &cx,
        k,
        last,
        parsed.trailing.as_ref(),
        prev_end,
        n,
        &mut pieces,
        &mut removed,
    )?;
    let (text, landings) = render(&fl, &pieces, &spans, &parsed.chunks);
    let at = placed
        .iter()
        .map(|r| (r[0].f0, r[r.len() - 1].f_end()))
        .collect();
    Ok((
        Plan::Merged(Merged {
            text,
            landings,
            removed,
            tier,
        }),
        at,
    ))
}

/// The file lines `from..to` a marker (or a snippet edge, `m` = `None`) stands for: kept, checked
/// for the names of a `keep` marker, or removed.
#[allow(clippy::too_many_arguments)]
fn gap(
    cx: &Ctx,
    k: &Chunk,
    index: usize,
    m: Option<&Marker>,
    from: usize,
    to: usize,
    pieces: &mut Vec<Piece>,
    removed: &mut Vec<Removed>,
) -> Result<()> {
    match m {
        Some(Marker::Remove) => {
            if to > from {
                removed.push(Removed {
                    start_line: from + 1,
                    end_line: to,
                    by: "removal_marker",
                });
            }
        }
        Some(Marker::Keep(names)) => {
            let span: Vec<&str> = (from..to).map(|i| cx.fl.line(i)).collect();
            if let Some(miss) = names
                .iter()
                .find(|n| !span.iter().any(|l| l.contains(n.as_str())))
            {
                return Err(refuse(
                    Code::SnippetKeepMissing,
                    k,
                    index,
                    format!("is placed so that the marker `keep {miss}` next to it would stand for file lines {}-{}, which do not hold `{miss}`", from + 1, to),
                    vec![region(cx.h, from, to.saturating_sub(from))],
                ));
            }
            pieces.push(Piece::Old(from, to));
        }
        None => pieces.push(Piece::Old(from, to)),
    }
    Ok(())
}

/// The new text from the pieces: old lines with their own bytes, new lines with the file's
/// dominant terminator; the last line ends with a terminator when the file's did.
fn render(
    fl: &FileLines,
    pieces: &[Piece],
    spans: &[(usize, usize)],
    chunks: &[Chunk],
) -> (String, Vec<Landing>) {
    let term = crate::edit::text::dominant_terminator(fl.text);
    let n = fl.len();
    let ends_open = n > 0 && !fl.table.has_terminator(n - 1);
    let mut out = String::with_capacity(fl.text.len() + 256);
    let mut line = 0usize; // lines written so far
    let mut open = false; // the last line written lacks its terminator
    let mut first_line_of_piece = Vec::with_capacity(pieces.len() + 1);
    for p in pieces {
        first_line_of_piece.push(line);
        match p {
            Piece::Old(a, b) => {
                for i in *a..*b {
                    if open {
                        out.push_str(term);
                    }
                    out.push_str(fl.line(i));
                    let t = fl.table.terminator(i, fl.text);
                    out.push_str(t);
                    open = t.is_empty();
                    line += 1;
                }
            }
            Piece::New(v) => {
                for l in v {
                    if open {
                        out.push_str(term);
                    }
                    out.push_str(l);
                    out.push_str(term);
                    open = false;
                    line += 1;
                }
            }
        }
    }
    first_line_of_piece.push(line);
    if ends_open && !open && out.ends_with(term) {
        out.truncate(out.len() - term.len());
    }
    let landings = spans
        .iter()
        .zip(chunks)
        .enumerate()
        .map(|(x, (&(a, b), k))| Landing {
            chunk: x,
            snippet_start_line: k.at[0] + 1,
            snippet_end_line: k.at[k.at.len() - 1] + 1,
            start_line: first_line_of_piece[a] + 1,
            end_line: first_line_of_piece[b],
        })
        .collect();
    (out, landings)
}

/// A snippet without markers: the whole new file, unless it is a fragment of the file (its first
/// line occurs in the file below the file's first line, or its last line above the file's last).
fn whole(fl: &FileLines, snip: &[&str], tiers: &[Tier]) -> Result<()> {
    let first = snip.iter().position(|l| !is_blank(l));
    let last = snip.iter().rposition(|l| !is_blank(l));
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(());
    };
    let n = fl.len();
    let s0 = (0..n).find(|&i| !is_blank(fl.line(i)));
    let e0 = (0..n).rev().find(|&i| !is_blank(fl.line(i)));
    let (Some(s0), Some(e0)) = (s0, e0) else {
        return Ok(());
    };
    let at = |l: &str| -> Vec<usize> {
        tiers
            .iter()
            .map(|&t| fl.places_of(l, t))
            .find(|p| !p.is_empty())
            .unwrap_or_default()
    };
    let head = at(snip[first]);
    let tail = at(snip[last]);
    let head_inside = !head.is_empty() && !head.contains(&s0);
    let tail_inside = !tail.is_empty() && !tail.contains(&e0);
    if head_inside || tail_inside {
        let h = Haystack::new(fl.text);
        let text = snip[first..=last].join("\n");
        let (where_, line) = match head_inside {
            true => ("begins", head[0] + 1),
            false => ("ends", tail[0] + 1),
        };
        let k = Chunk {
            at: (first..=last).collect(),
            lines: Vec::new(),
            blank_above: 0,
            blank_below: 0,
            before: None,
        };
        return Err(refuse(
            Code::SnippetUnanchored,
            &k,
            0,
            format!("has no marker and is not the whole file: it {where_} with a line the file has in its middle (line {line}), so writing it would delete the rest of the file. Mark what is left out with `// ... existing code ...` lines (in the file's comment syntax) above and below the changed lines"),
            candidates::nearest(&h, &text, 3),
        ));
    }
    Ok(())
}
