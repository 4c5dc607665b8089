//! Nearest regions for a needle that matched nowhere, so a model can repair its edit in one step.
//!
//! One pass over the file: every line is reduced to a whitespace-folded, typography-folded key; lines
//! whose key also occurs in the needle vote for the window start that would align them (rare lines
//! weigh more than common ones like `}`); short needles also vote by shared identifiers. The few
//! best-voted windows are then scored by a character-level similarity and the best three
//! non-overlapping ones are returned, with what differs line by line.
//!
//! Every diff here is bounded by work, not time (`DIFF_STEPS`): up to the bound it is the exact
//! Myers diff, past it a deterministic estimate, so a 5,000-line needle costs milliseconds and equal
//! inputs give equal candidates whatever the machine's load.

use std::hash::Hasher;

use rustc_hash::{FxHashMap as HashMap, FxHasher};

use serde::Serialize;

use super::normalize::{is_blank, norm};
use super::search::{bounded_distance, Distance};
use super::{Haystack, Tier};
use crate::edit::text::split_lines;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Candidate {
    pub start_line: usize,
    pub end_line: usize,
    /// 0..1, character-level similarity between the needle and the region, whitespace folded.
    pub similarity: f64,
    /// The region with its line numbers (`N\ttext`), capped.
    pub snippet: String,
    /// What differs, line by line (capped).
    pub differences: Vec<String>,
}

const MAX_VOTES_PER_KEY: usize = 8;
const WINDOWS_SCORED: usize = 12;
/// Below this many line comparisons, a needle that shares nothing with the file is compared with
/// every window.
const SCAN_ALL_LINES: usize = 20_000;
const SNIPPET_LINES: usize = 40;
const SNIPPET_LINE_CHARS: usize = 240;

/// Key of a line: typography folded, trimmed, inner whitespace runs folded to one space.
fn key(line: &str) -> Option<(u64, usize)> {
    let n = norm(line, Tier::Indentation);
    if n.text.is_empty() {
        return None;
    }
    let mut h = FxHasher::default();
    for word in n.text.split_ascii_whitespace() {
        h.write(word.as_bytes());
        h.write_u8(0xff);
    }
    Some((h.finish(), n.text.len()))
}

fn folded(line: &str) -> String {
    let n = norm(line, Tier::Indentation);
    n.text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A set of byte trigrams as a 2^24-bit table: one shift and one load per lookup.
struct TrigramSet(Vec<u64>);

impl TrigramSet {
    fn new(used: bool) -> Self {
        TrigramSet(if used { vec![0; 1 << 18] } else { Vec::new() })
    }

    fn index(w: &[u8]) -> usize {
        (w[0] as usize) << 16 | (w[1] as usize) << 8 | w[2] as usize
    }

    fn insert(&mut self, w: &[u8]) {
        let i = Self::index(w);
        self.0[i >> 6] |= 1 << (i & 63);
    }

    fn has(&self, w: &[u8]) -> bool {
        let i = Self::index(w);
        self.0[i >> 6] & (1 << (i & 63)) != 0
    }
}

/// The `width`-byte stretch of `line` holding the most trigrams of `set` (windows step by half a width).
fn densest_window<'l>(line: &'l str, width: usize, set: &TrigramSet) -> &'l str {
    let b = line.as_bytes();
    let width = width.max(16).min(b.len());
    let step = (width / 2).max(1);
    let mut best = (0usize, 0usize);
    let mut start = 0;
    while start + width <= b.len() {
        let hits = b[start..start + width]
            .windows(3)
            .filter(|w| set.has(w))
            .count();
        if hits > best.1 {
            best = (start, hits);
        }
        start += step;
    }
    let (mut s, mut e) = (best.0, (best.0 + width).min(b.len()));
    while !line.is_char_boundary(s) {
        s -= 1;
    }
    while !line.is_char_boundary(e) {
        e += 1;
    }
    &line[s..e]
}

/// Distinct byte trigrams of a line's trimmed text, each with an index.
fn trigrams(s: &str) -> HashMap<[u8; 3], usize> {
    let mut out = HashMap::default();
    for w in s.trim().as_bytes().windows(3) {
        let n = out.len();
        out.entry([w[0], w[1], w[2]]).or_insert(n);
    }
    out
}

/// Up to `max` regions nearest to `needle`, best first.
pub fn nearest(h: &Haystack, needle: &str, max: usize) -> Vec<Candidate> {
    let mut old = split_lines(needle);
    if old.len() > 1 && old.last() == Some(&"") {
        old.pop();
    }
    let lines = h.lines();
    let n = lines.len();
    if n == 0 || old.iter().all(|l| is_blank(l)) {
        return Vec::new();
    }
    let k = old.len();

    // Line-key votes.
    let mut wanted: HashMap<u64, Vec<usize>> = HashMap::default();
    for (j, l) in old.iter().enumerate() {
        if let Some((kh, _)) = key(l) {
            let v = wanted.entry(kh).or_default();
            if v.len() < MAX_VOTES_PER_KEY {
                v.push(j);
            }
        }
    }
    let mut hits: Vec<(usize, u64, usize)> = Vec::new();
    let mut freq: HashMap<u64, usize> = HashMap::default();
    // Short needles also vote by shared character trigrams, which survive typos and stale tokens.
    let short = k <= 3;
    let needle_tris: Vec<HashMap<[u8; 3], usize>> = if short {
        old.iter().map(|l| trigrams(l)).collect()
    } else {
        Vec::new()
    };
    let mut tri_bits = TrigramSet::new(short);
    for t in &needle_tris {
        for k in t.keys() {
            tri_bits.insert(k);
        }
    }
    let mut stamp: Vec<Vec<usize>> = needle_tris
        .iter()
        .map(|t| vec![usize::MAX; t.len()])
        .collect();
    let mut token_votes: Vec<(usize, usize, f64)> = Vec::new();
    for i in 0..n {
        let content = lines.content(i, h.text);
        if let Some((kh, len)) = key(content) {
            if wanted.contains_key(&kh) {
                *freq.entry(kh).or_default() += 1;
                hits.push((i, kh, len));
            }
        }
        if short {
            let bytes = content.as_bytes();
            if !bytes.windows(3).any(|w| tri_bits.has(w)) {
                continue;
            }
            for (j, tris) in needle_tris.iter().enumerate() {
                if tris.len() < 2 || bytes.len() < 3 {
                    continue;
                }
                let mut seen = 0usize;
                for w in bytes.windows(3) {
                    if !tri_bits.has(w) {
                        continue;
                    }
                    if let Some(&ix) = tris.get(&[w[0], w[1], w[2]]) {
                        if stamp[j][ix] != i {
                            stamp[j][ix] = i;
                            seen += 1;
                        }
                    }
                }
                let share = seen as f64 / tris.len() as f64;
                if share >= 0.4 {
                    token_votes.push((i, j, share));
                }
            }
        }
    }
    let mut votes: HashMap<isize, f64> = HashMap::default();
    for (i, kh, len) in hits {
        let weight = (len.min(60) as f64).sqrt() / (freq[&kh] as f64).sqrt();
        for &j in &wanted[&kh] {
            *votes.entry(i as isize - j as isize).or_default() += weight;
        }
    }
    for (i, j, share) in token_votes {
        *votes.entry(i as isize - j as isize).or_default() += share * 0.5;
    }
    // Nothing shared at all: in a small file, every window is worth a look.
    if votes.is_empty() && n * k <= SCAN_ALL_LINES {
        for i in 0..n {
            votes.insert(i as isize, 0.0);
        }
    }
    let mut starts: Vec<(isize, f64)> = votes.into_iter().collect();
    let by_votes = |a: &(isize, f64), b: &(isize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if starts.len() > WINDOWS_SCORED && starts.iter().any(|s| s.1 > 0.0) {
        starts.select_nth_unstable_by(WINDOWS_SCORED, by_votes);
        starts.truncate(WINDOWS_SCORED);
    }
    starts.sort_by(by_votes);
    // Similarities already computed, by region: an unvoted window aligns no line, so its region is the
    // window itself and is not compared twice.
    let mut known: HashMap<(usize, usize), f64> = HashMap::default();
    if starts.iter().all(|s| s.1 == 0.0) {
        // Unvoted small file: rank every window by the trigrams it shares with the needle (linear in
        // the window), then the best few by similarity (a character diff: too costly for every window).
        let needle: String = old.iter().map(|l| folded(l)).collect::<Vec<_>>().join("\n");
        let wanted = trigrams(&needle);
        let window = |st: usize| -> String {
            (st..(st + k).min(n))
                .map(|i| folded(lines.content(i, h.text)))
                .collect::<Vec<_>>()
                .join("\n")
        };
        for s in starts.iter_mut() {
            s.1 = dice(&wanted, &trigrams(&window(s.0 as usize)));
        }
        let by_score = |a: &(isize, f64), b: &(isize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        starts.sort_by(by_score);
        starts.truncate(WINDOWS_SCORED);
        for s in starts.iter_mut() {
            let st = s.0 as usize;
            s.1 = similarity(&needle, &window(st));
            known.insert((st, (st + k).min(n)), s.1);
        }
        starts.sort_by(by_score);
    }
    starts.truncate(WINDOWS_SCORED);

    let needle_lines: Vec<String> = old.iter().map(|l| folded(l)).collect();
    let needle_folded = needle_lines.join("\n");
    let weight = |l: &str| {
        if l.is_empty() {
            0.0
        } else {
            (l.len().min(60) as f64).sqrt()
        }
    };
    let total_weight: f64 = needle_lines
        .iter()
        .map(|l| weight(l))
        .sum::<f64>()
        .max(1e-9);
    // Each voted start is widened by a margin and aligned line by line with the needle, so a region
    // with a line missing from the needle, or a middle the needle elided, is found whole: the region
    // runs from where the needle's first line aligns to where its last line does.
    let margin = (k + 5).min(200);
    let mut scored: Vec<(usize, usize, f64)> = Vec::new();
    let mut ranked: Vec<(usize, usize, f64, f64)> = Vec::new();
    for (s, _) in starts {
        let s = s.clamp(0, n.saturating_sub(1) as isize) as usize;
        let lo = s.saturating_sub(margin);
        let hi = (s + k + margin).min(n);
        let window: Vec<String> = (lo..hi).map(|i| folded(lines.content(i, h.text))).collect();
        let ops = line_ops(&needle_lines, &window, s - lo);
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for op in ops {
            if let similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = op
            {
                for d in 0..len {
                    if !needle_lines[old_index + d].is_empty() {
                        pairs.push((old_index + d, lo + new_index + d));
                    }
                }
            }
        }
        // Myers pairs a line that repeats (a `return None` or `}` in every block) with its first copy in
        // the window, which can stretch the region over the neighbouring block. Pull each edge pair to
        // the place its neighbour implies when the same line is there too.
        if pairs.len() > 1 {
            let same = |j: usize, i: usize| window[i - lo] == needle_lines[j];
            let ((j0, i0), (j1, i1)) = (pairs[0], pairs[1]);
            if let Some(at) = i1
                .checked_sub(j1 - j0)
                .filter(|&at| at > i0 && same(j0, at))
            {
                pairs[0].1 = at;
            }
            let m = pairs.len();
            let ((ja, ia), (jb, ib)) = (pairs[m - 2], pairs[m - 1]);
            let at = ia + (jb - ja);
            if at < ib && same(jb, at) {
                pairs[m - 1].1 = at;
            }
        }
        // An edge line aligned far from its neighbour although the needle has them adjacent (a `}` that
        // also occurs a few lines earlier) is a stray match: drop it. Gaps where the needle itself has
        // unmatched lines between the two (an elided middle) are real.
        let stray = |a: (usize, usize), b: (usize, usize)| b.0 - a.0 == 1 && b.1 - a.1 > 2;
        while pairs.len() > 1 && stray(pairs[0], pairs[1]) {
            pairs.remove(0);
        }
        while pairs.len() > 1 && stray(pairs[pairs.len() - 2], pairs[pairs.len() - 1]) {
            pairs.pop();
        }
        let (rs, re, coverage) = match (pairs.first(), pairs.last()) {
            (Some(&(j0, i0)), Some(&(j1, i1))) => {
                let rs = i0.saturating_sub(j0);
                let re = (i1 + (k - 1 - j1) + 1).min(n);
                let got: f64 = pairs.iter().map(|&(j, _)| weight(&needle_lines[j])).sum();
                (rs, re.max(rs + 1), got / total_weight)
            }
            _ => (s, (s + k).min(n), 0.0),
        };
        if ranked.iter().any(|&(a, _, _, _)| a == rs) {
            continue;
        }
        let mut shown_whole = true;
        let mut region: String = (rs..re)
            .map(|i| folded(lines.content(i, h.text)))
            .collect::<Vec<_>>()
            .join("\n");
        if re - rs == 1 && short && region.len() > 4 * needle_folded.len() + 200 {
            // One very long line (minified code, a 1 MB single-line file): compare the needle with the
            // stretch of the line that shares the most trigrams with it, not with the line's start.
            region = densest_window(&region, needle_folded.len() * 2, &tri_bits).to_string();
            shown_whole = false;
        }
        let sim = match known.get(&(rs, re)) {
            Some(&sim) if shown_whole => sim,
            _ => similarity_above(&needle_folded, &region, MIN_SIMILARITY),
        };
        ranked.push((rs, re, sim, 0.5 * sim + 0.5 * coverage));
    }
    ranked.sort_by(|a, b| b.3.total_cmp(&a.3).then(a.0.cmp(&b.0)));
    scored.extend(ranked.into_iter().map(|(s, e, sim, _)| (s, e, sim)));

    let mut out: Vec<Candidate> = Vec::new();
    for (s, e, sim) in scored {
        if out.len() >= max {
            break;
        }
        if sim < MIN_SIMILARITY {
            continue;
        }
        let overlaps = out.iter().any(|c| s < c.end_line && c.start_line <= e);
        if overlaps {
            continue;
        }
        out.push(Candidate {
            start_line: s + 1,
            end_line: e,
            similarity: (sim * 1000.0).round() / 1000.0,
            snippet: snippet(h, s, e),
            differences: differences(h, s, e, &old),
        });
    }
    out
}

/// Regions less similar than this are not listed.
const MIN_SIMILARITY: f64 = 0.2;

/// Dice coefficient of two trigram sets ([`trigrams`]): 2·|A ∩ B| / (|A| + |B|).
fn dice(a: &HashMap<[u8; 3], usize>, b: &HashMap<[u8; 3], usize>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let shared = small.keys().filter(|t| large.contains_key(*t)).count();
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

/// [`similarity`], or a number below `floor` without computing the diff when even a perfect alignment
/// could not reach `floor`: the ratio is at most 2·min(|a|, |b|) / (|a| + |b|) characters.
fn similarity_above(a: &str, b: &str, floor: f64) -> f64 {
    let (ca, cb) = (cap(a, CAP).chars().count(), cap(b, CAP).chars().count());
    if ca + cb > 0 {
        let bound = 2.0 * ca.min(cb) as f64 / (ca + cb) as f64;
        if bound < floor {
            return bound;
        }
    }
    similarity(a, b)
}

/// How alike two regions are (0 to 1, the share of characters a shortest edit script keeps), or a
/// number below `floor` when they cannot reach it.
pub fn likeness(a: &str, b: &str, floor: f64) -> f64 {
    similarity_above(a, b, floor)
}

/// Bytes of each side [`similarity`] compares.
const CAP: usize = 8000;

/// Steps (diagonals visited plus characters or lines compared) a shortest edit script may cost before
/// [`similarity`] and [`line_ops`] settle for an estimate: the work is bounded, not the time, so the
/// same inputs always rank the same way.
const DIFF_STEPS: usize = 300_000;

/// Characters two texts share in a shortest edit script, over the characters of both (the ratio of the
/// `similar` crate's character diff). When the script would cost more than [`DIFF_STEPS`], the share
/// of the path that got furthest (an estimate, deterministic).
fn similarity(a: &str, b: &str) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (a, b) = (cap(a, CAP), cap(b, CAP));
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let total = a.len() + b.len();
    let same = match bounded_distance(&a, &b, DIFF_STEPS) {
        Distance::Exact(d) => (total - d) / 2,
        Distance::Estimate(same) => same,
    };
    (2.0 * same as f32 / total as f32) as f64
}

/// A line diff of `a` against `b` (Myers, as the `similar` crate computes it) when a shortest edit
/// script costs at most [`DIFF_STEPS`]; past that, `a` laid on `b` from line `diagonal` on, line for
/// line (the voted alignment), so two long unrelated blocks cost linear work.
fn line_ops<'l>(a: &'l [String], b: &'l [String], diagonal: usize) -> Vec<similar::DiffOp> {
    use similar::DiffOp::*;
    let (ia, ib) = super::search::intern_pair(a, b);
    if let Distance::Exact(_) = bounded_distance(&ia, &ib, DIFF_STEPS) {
        return crate::edit::myers::diff(&ia, &ib);
    }
    let diagonal = diagonal.min(b.len());
    let mut ops = Vec::new();
    if diagonal > 0 {
        ops.push(Insert {
            old_index: 0,
            new_index: 0,
            new_len: diagonal,
        });
    }
    let laid = a.len().min(b.len() - diagonal);
    let mut j = 0;
    while j < laid {
        let same = ia[j] == ib[diagonal + j];
        let run = (j..laid)
            .take_while(|&x| (ia[x] == ib[diagonal + x]) == same)
            .count();
        ops.push(if same {
            Equal {
                old_index: j,
                new_index: diagonal + j,
                len: run,
            }
        } else {
            Replace {
                old_index: j,
                old_len: run,
                new_index: diagonal + j,
                new_len: run,
            }
        });
        j += run;
    }
    if laid < a.len() {
        ops.push(Delete {
            old_index: laid,
            old_len: a.len() - laid,
            new_index: diagonal + laid,
        });
    }
    if diagonal + laid < b.len() {
        ops.push(Insert {
            old_index: a.len(),
            new_index: diagonal + laid,
            new_len: b.len() - diagonal - laid,
        });
    }
    ops
}

fn cap(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut i = n;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

fn clip(s: &str) -> String {
    if s.chars().count() <= SNIPPET_LINE_CHARS {
        return s.to_string();
    }
    let mut t: String = s.chars().take(SNIPPET_LINE_CHARS).collect();
    t.push('…');
    t
}

/// Lines `[s, e)` (0-based) as `N\ttext`, capped.
pub fn snippet(h: &Haystack, s: usize, e: usize) -> String {
    let lines = h.lines();
    let e = e.min(lines.len()).min(s + SNIPPET_LINES);
    (s..e)
        .map(|i| format!("{}\t{}", i + 1, clip(lines.content(i, h.text))))
        .collect::<Vec<_>>()
        .join("\n")
}

fn differences(h: &Haystack, s: usize, e: usize, old: &[&str]) -> Vec<String> {
    let lines = h.lines();
    let file: Vec<String> = (s..e).map(|i| folded(lines.content(i, h.text))).collect();
    let mine: Vec<String> = old.iter().map(|l| folded(l)).collect();
    let ops = line_ops(&mine, &file, 0);
    let mut out = Vec::new();
    for op in ops {
        use similar::DiffOp::*;
        match op {
            Equal { .. } => continue,
            Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for d in 0..old_len.max(new_len) {
                    let fl = (d < new_len).then(|| s + new_index + d);
                    let ol = (d < old_len).then(|| old[old_index + d]);
                    out.push(match (fl, ol) {
                        (Some(f), Some(o)) => format!(
                            "line {}: file has {:?}, edit has {:?}",
                            f + 1,
                            clip(lines.content(f, h.text).trim()),
                            clip(o.trim())
                        ),
                        (Some(f), None) => {
                            format!(
                                "line {}: file has {:?}, missing from the edit",
                                f + 1,
                                clip(lines.content(f, h.text).trim())
                            )
                        }
                        (None, Some(o)) => {
                            format!("edit has {:?}, not in the file here", clip(o.trim()))
                        }
                        (None, None) => continue,
                    });
                }
            }
            Delete {
                old_index, old_len, ..
            } => {
                for o in &old[old_index..old_index + old_len] {
                    out.push(format!(
                        "edit has {:?}, not in the file here",
                        clip(o.trim())
                    ));
                }
            }
            Insert {
                new_index, new_len, ..
            } => {
                for f in s + new_index..s + new_index + new_len {
                    out.push(format!(
                        "line {}: file has {:?}, missing from the edit",
                        f + 1,
                        clip(lines.content(f, h.text).trim())
                    ));
                }
            }
        }
        if out.len() >= 3 {
            out.truncate(3);
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_the_character_diff_ratio_when_affordable() {
        for (a, b) in [
            ("abcd", "bcde"),
            ("let retries = 3;", "let retries = 9999;"),
            ("fn f() {\n    x\n}", "fn g() {\n    y\n}"),
            ("caf\u{e9} \u{201C}x\u{201D}", "cafe 'x'"),
            ("", "abc"),
        ] {
            let want = similar::TextDiff::from_chars(a, b).ratio() as f64;
            assert_eq!(similarity(a, b), want, "{a:?} {b:?}");
        }
    }

    #[test]
    fn similarity_past_the_budget_is_an_estimate_that_never_varies() {
        // Two 8,000-character texts sharing every other line: too costly to diff exactly, so the
        // answer is the estimate, the same on every call, near the true share.
        let a: String = (0..400).map(|i| format!("line {i:05} same\n")).collect();
        let b: String = (0..400)
            .map(|i| {
                if i % 2 == 0 {
                    format!("line {i:05} same\n")
                } else {
                    format!("other {:05} gone\n", i * 7)
                }
            })
            .collect();
        let first = similarity(&a, &b);
        assert!((0.5..0.95).contains(&first), "{first}");
        for _ in 0..3 {
            assert_eq!(similarity(&a, &b), first);
        }
    }

    #[test]
    fn line_ops_past_the_budget_lay_the_needle_on_its_voted_line() {
        let a: Vec<String> = (0..3000).map(|i| format!("n{i}")).collect();
        let mut b: Vec<String> = (0..3000).map(|i| format!("w{i}")).collect();
        // The needle's lines 0..3000 sit at window lines 100.., every third one equal.
        b.splice(0..0, (0..100).map(|i| format!("pad{i}")));
        for j in (0..3000).step_by(3) {
            b[100 + j] = a[j].clone();
        }
        let ops = line_ops(&a, &b, 100);
        let equal: Vec<(usize, usize)> = ops
            .iter()
            .filter_map(|op| match *op {
                similar::DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => Some((old_index, new_index - old_index + len - 1)),
                _ => None,
            })
            .collect();
        assert_eq!(equal.len(), 1000);
        assert!(equal.iter().all(|&(j, d)| j % 3 == 0 && d == 100));
    }
}
