//! Searches whose work is linear in the sizes of the file and the needle, whatever their shape.
//!
//! - [`Occurrences`]: every occurrence of a byte string, overlapping ones included. `memmem` finds the
//!   first occurrence of a run; the next overlapping ones are found by the needle's period (`aaa` in a
//!   line of a million `a`: one byte per occurrence, not the needle's length).
//! - [`find_sequence`]: every place a sequence of line ids occurs in the file's line ids (Knuth–Morris–
//!   Pratt: a needle of 500 identical lines in a file of 100,000 identical lines is one pass).
//!
//! Under `cfg(test)` both count their steps in [`work`], so tests can assert the work stays linear.

use memchr::memmem;
use rustc_hash::FxHashMap;

#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Adds `n` steps to the test-only work counter.
#[inline]
pub(crate) fn tick(n: usize) {
    #[cfg(test)]
    WORK.with(|w| w.set(w.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}

/// Steps counted on this thread since the last call (tests only).
#[cfg(test)]
pub(crate) fn work() -> u64 {
    WORK.with(|w| w.replace(0))
}

/// Knuth–Morris–Pratt failure table: `fail[i]` is the length of the longest proper border of
/// `pattern[..i]` (one entry per prefix length, `0..=len`).
fn failure<T: PartialEq>(pattern: &[T]) -> Vec<usize> {
    let mut fail = vec![0; pattern.len() + 1];
    let mut b = 0;
    for i in 1..pattern.len() {
        while b > 0 && pattern[i] != pattern[b] {
            b = fail[b];
        }
        if pattern[i] == pattern[b] {
            b += 1;
        }
        fail[i + 1] = b;
    }
    tick(pattern.len());
    fail
}

/// Every occurrence of one needle, overlapping ones included, in linear time.
pub struct Occurrences<'n> {
    needle: &'n [u8],
    finder: memmem::Finder<'n>,
    /// Smallest period of the needle, computed on the first occurrence.
    period: std::sync::OnceLock<usize>,
}

impl<'n> Occurrences<'n> {
    pub fn new(needle: &'n [u8]) -> Self {
        Occurrences {
            needle,
            finder: memmem::Finder::new(needle),
            period: std::sync::OnceLock::new(),
        }
    }

    fn period(&self) -> usize {
        *self.period.get_or_init(|| {
            let m = self.needle.len();
            m - failure(self.needle)[m]
        })
    }

    /// Calls `f` with the start of every occurrence that starts in `starts` and ends by `hay.len()`, in
    /// order; stops early when `f` returns `false`.
    ///
    /// Two occurrences less than the needle's length apart are a period apart, so after an occurrence
    /// at `a` the next one is either `a + p` (`p` the smallest period; only its last `p` bytes need a
    /// look) or, when that fails, at least `m - p` bytes on: `memmem` resumes there, so every byte is
    /// looked at a bounded number of times.
    pub fn each(
        &self,
        hay: &[u8],
        starts: std::ops::Range<usize>,
        mut f: impl FnMut(usize) -> bool,
    ) {
        let m = self.needle.len();
        if m == 0 || hay.len() < m || starts.start >= starts.end {
            return;
        }
        let last_start = (hay.len() - m).min(starts.end.saturating_sub(1));
        let mut pos = starts.start;
        while pos <= last_start {
            let window_end = (last_start + m).min(hay.len());
            let Some(i) = self.finder.find(&hay[pos..window_end]) else {
                tick(window_end - pos);
                return;
            };
            let mut at = pos + i;
            tick(i + m);
            if !f(at) {
                return;
            }
            let p = self.period();
            while p < m && at + p <= last_start {
                let tail = &hay[at + m..at + m + p];
                tick(p);
                if tail != &self.needle[m - p..] {
                    break;
                }
                at += p;
                if !f(at) {
                    return;
                }
            }
            // No occurrence starts in (at, at + p): it would make a shorter period. Past a failed
            // extension, the next one is further than `m - p` from `at` (see above); resuming at
            // `at + 1` is correct and costs `memmem` at most `m` bytes once per run.
            pos = at + 1;
        }
    }
}

/// Every position where `pattern` occurs in the sequence `at(0), at(1), .., at(len - 1)`, in order,
/// each element read once. `None` never matches.
pub fn find_sequence(
    pattern: &[u32],
    len: usize,
    mut at: impl FnMut(usize) -> Option<u32>,
    mut f: impl FnMut(usize),
) {
    let m = pattern.len();
    if m == 0 || len < m {
        return;
    }
    let fail = failure(pattern);
    let mut q = 0;
    for i in 0..len {
        tick(1);
        let Some(c) = at(i) else {
            q = 0;
            continue;
        };
        while q > 0 && pattern[q] != c {
            tick(1);
            q = fail[q];
        }
        if pattern[q] == c {
            q += 1;
        }
        if q == m {
            f(i + 1 - m);
            q = fail[q];
        }
    }
}

/// How far [`bounded_distance`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distance {
    /// The number of insertions and deletions of a shortest edit script.
    Exact(usize),
    /// Out of steps: an estimate of how many elements the two keep in common, from the path that got
    /// furthest (its share of common elements so far, carried over the whole).
    Estimate(usize),
}

/// Edit distance (insertions + deletions) of `a` and `b` by Myers' greedy algorithm, giving up after
/// about `budget` steps (diagonals visited plus elements compared), so its cost is bounded by work,
/// not time: the same inputs always give the same answer. Exact whenever the distance is small; past
/// the budget, an estimate of the common elements ([`Distance::Estimate`]).
pub fn bounded_distance<T: PartialEq>(a: &[T], b: &[T], budget: usize) -> Distance {
    bounded_distance_steps(a, b, budget).0
}

/// [`bounded_distance`], and the steps it took (at most a round past `budget`).
pub fn bounded_distance_steps<T: PartialEq>(a: &[T], b: &[T], budget: usize) -> (Distance, usize) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    let (n, m) = (a.len() as isize, b.len() as isize);
    tick(pre + suf);
    if n == 0 || m == 0 {
        return (Distance::Exact((n + m) as usize), pre + suf);
    }
    let max = n + m;
    let off = max + 1;
    let mut v = vec![0isize; 2 * max as usize + 3];
    let mut steps = 0usize;
    for d in 0..=max {
        // The furthest point reached in this round: (x + y, d).
        let mut furthest = 0isize;
        let mut k = -d;
        while k <= d {
            let i = (k + off) as usize;
            let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) {
                v[i + 1]
            } else {
                v[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
                steps += 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                tick(steps);
                return (Distance::Exact(d as usize), pre + suf + steps);
            }
            if x <= n && y <= m && y >= 0 {
                furthest = furthest.max(x + y);
            }
            steps += 1;
            k += 2;
        }
        if steps > budget {
            tick(steps);
            // On the path to the furthest point, (x + y - d) / 2 elements were common: its share of
            // the x + y elements passed, applied to the rest.
            let share = if furthest > 0 {
                (furthest - d).max(0) as f64 / furthest as f64
            } else {
                0.0
            };
            let rest = ((share * (n + m) as f64 / 2.0) as usize).min(n.min(m) as usize);
            return (Distance::Estimate(pre + suf + rest), pre + suf + steps);
        }
    }
    unreachable!("the distance is at most n + m")
}

/// Steps (diagonals visited plus lines compared, as [`bounded_distance_steps`] counts them) the line
/// diffs of one rewrite, receipt diff or rebuilt region may take in all before they settle for coarser ones. A shortest edit script of
/// `d` changed lines among `n` costs about `n + d²` steps: this is a few thousand scattered changes in
/// any file, tens of milliseconds; a file rewritten wholesale (its lines reversed, or every line
/// changed) costs no more.
pub const LINE_DIFF_STEPS: usize = 10_000_000;

/// `a` and `b` with every element replaced by a number, equal elements by equal numbers: sequences
/// that compare as numbers.
pub(crate) fn intern_pair<'t, T: Eq + std::hash::Hash>(
    a: &'t [T],
    b: &'t [T],
) -> (Vec<u32>, Vec<u32>) {
    let mut ids: FxHashMap<&'t T, u32> = FxHashMap::default();
    let mut intern = |items: &'t [T]| -> Vec<u32> {
        items
            .iter()
            .map(|l| {
                let n = ids.len() as u32;
                *ids.entry(l).or_insert(n)
            })
            .collect()
    };
    let ia = intern(a);
    (ia, intern(b))
}

/// The diff of `a` → `b` (Myers, as the `similar` crate computes it) while a shortest edit script
/// costs at most `budget` steps, which it then takes from `budget`; past that, one replacement of
/// everything between the elements the two share at the start and at the end: still a correct diff,
/// only coarser, in linear work. Bounded by work, not time, so the same inputs always give the same
/// diff. Elements are interned first, so lines compare as numbers.
pub fn bounded_diff<'t, T: Eq + std::hash::Hash>(
    a: &'t [T],
    b: &'t [T],
    budget: &mut usize,
) -> Vec<similar::DiffOp> {
    use similar::DiffOp::{Equal, Replace};
    let (ia, ib) = intern_pair(a, b);
    let (distance, steps) = bounded_distance_steps(&ia, &ib, *budget);
    *budget = budget.saturating_sub(steps);
    if let Distance::Exact(_) = distance {
        return crate::edit::myers::diff(&ia, &ib);
    }
    let pre = ia.iter().zip(&ib).take_while(|(x, y)| x == y).count();
    let suf = ia[pre..]
        .iter()
        .rev()
        .zip(ib[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut ops = Vec::with_capacity(3);
    if pre > 0 {
        ops.push(Equal {
            old_index: 0,
            new_index: 0,
            len: pre,
        });
    }
    ops.push(Replace {
        old_index: pre,
        old_len: ia.len() - pre - suf,
        new_index: pre,
        new_len: ib.len() - pre - suf,
    });
    if suf > 0 {
        ops.push(Equal {
            old_index: ia.len() - suf,
            new_index: ib.len() - suf,
            len: suf,
        });
    }
    ops
}

/// Occurrences [`exact_occurrences`] records before it gives up: a few per byte of the text and per
/// needle, far more than the edits or hunks a model writes produce (each occurs about once).
pub fn exact_occurrences_budget(text_len: usize, needles: usize) -> usize {
    4 * text_len + 64 * needles
}

/// Every exact occurrence (overlapping ones too, as the exact tier counts them) of every needle in
/// `text`, as sorted start offsets per needle, found in one Aho-Corasick pass instead of one pass per
/// needle. `None` once the occurrences pass [`exact_occurrences_budget`]: nested needles can occur
/// far more often than the text has bytes (needles of 1, 2, 3, ... blank lines on a file of blank
/// lines: each position starts one of each), and the caller then searches needle by needle. The
/// contiguous NFA builds in time linear in the needles (a DFA's tables cost more than a small file's
/// whole search).
pub fn exact_occurrences<S: AsRef<[u8]>>(text: &str, needles: &[S]) -> Option<Vec<Vec<usize>>> {
    use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
    let ac = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(needles)
        .ok()?;
    let budget = exact_occurrences_budget(text.len(), needles.len());
    let mut found: Vec<Vec<usize>> = vec![Vec::new(); needles.len()];
    for (n, m) in ac.find_overlapping_iter(text).enumerate() {
        if n == budget {
            tick(n);
            return None;
        }
        found[m.pattern().as_usize()].push(m.start());
    }
    tick(found.iter().map(Vec::len).sum());
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(hay: &[u8], needle: &[u8]) -> Vec<usize> {
        (0..=hay.len().saturating_sub(needle.len()))
            .filter(|&i| hay.len() >= needle.len() && &hay[i..i + needle.len()] == needle)
            .collect()
    }

    fn all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        Occurrences::new(needle).each(hay, 0..hay.len(), |a| {
            out.push(a);
            true
        });
        out
    }

    #[test]
    fn occurrences_match_a_naive_scan() {
        let hays: [&[u8]; 6] = [
            b"aaaaaaaaaa",
            b"abaababaabaababaababa",
            b"abcabcabdabcabcabc",
            b"aabaabaabaaab",
            b"xyz",
            b"",
        ];
        let needles: [&[u8]; 8] = [
            b"a", b"aa", b"aaa", b"aba", b"abaab", b"abcabc", b"aab", b"z",
        ];
        for h in hays {
            for n in needles {
                assert_eq!(all(h, n), naive(h, n), "{:?} in {:?}", n, h);
            }
        }
        // A start range counts occurrences by where they start.
        let mut out = Vec::new();
        Occurrences::new(b"aa").each(b"aaaaaa", 2..4, |a| {
            out.push(a);
            true
        });
        assert_eq!(out, [2, 3]);
    }

    #[test]
    fn periodic_needle_in_periodic_text_is_linear() {
        let hay = vec![b'a'; 200_000];
        let needle = vec![b'a'; 5_000];
        work();
        let mut count = 0;
        Occurrences::new(&needle).each(&hay, 0..hay.len(), |_| {
            count += 1;
            true
        });
        assert_eq!(count, 195_001);
        let w = work();
        assert!(w < 4 * 205_000, "work {w}");
    }

    #[test]
    fn bounded_diff_is_similars_diff_within_its_budget_and_a_correct_coarse_one_past_it() {
        // Within the budget: exactly the `similar` crate's Myers diff (its indices walked, see
        // `edit::myers`), and the budget is charged.
        let words = [
            "", "a", "ab", "ba", "abc", "cab", "aabbcc", "abcabc", "cbacba", "xyz",
        ];
        for a in words {
            for b in words {
                let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let mut budget = 1000;
                let ops = bounded_diff(&a, &b, &mut budget);
                let want = crate::edit::myers::diff(&a, &b);
                assert_eq!(ops, want, "{a:?} {b:?}");
                assert!(budget <= 1000);
            }
        }
        // Past it (a reversed sequence): one replacement between the shared ends, budget spent.
        let a: Vec<u32> = (0..10_000).collect();
        let mut b: Vec<u32> = a.iter().rev().copied().collect();
        b[0] = 0;
        b[9_999] = 9_999;
        work();
        let mut budget = 50_000;
        let ops = bounded_diff(&a, &b, &mut budget);
        assert_eq!(budget, 0);
        assert!(work() < 2 * 50_000 + 20_000);
        assert_eq!(
            ops,
            vec![
                similar::DiffOp::Equal {
                    old_index: 0,
                    new_index: 0,
                    len: 1
                },
                similar::DiffOp::Replace {
                    old_index: 1,
                    old_len: 9_998,
                    new_index: 1,
                    new_len: 9_998
                },
                similar::DiffOp::Equal {
                    old_index: 9_999,
                    new_index: 9_999,
                    len: 1
                },
            ]
        );
        // An empty budget still gives a correct diff.
        let ops = bounded_diff(&a, &a[..5_000], &mut 0);
        assert_eq!(
            ops,
            vec![
                similar::DiffOp::Equal {
                    old_index: 0,
                    new_index: 0,
                    len: 5_000
                },
                similar::DiffOp::Delete {
                    old_index: 5_000,
                    old_len: 5_000,
                    new_index: 5_000
                }
            ]
        );
    }

    #[test]
    fn bounded_distance_is_exact_within_its_budget() {
        let d = |a: &str, b: &str, budget| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            bounded_distance(&a, &b, budget)
        };
        assert_eq!(d("abcd", "bcde", 1000), Distance::Exact(2));
        assert_eq!(d("", "abc", 0), Distance::Exact(3));
        assert_eq!(d("same", "same", 0), Distance::Exact(0));
        assert_eq!(d("kitten", "sitting", 1000), Distance::Exact(5));
        // Agrees with the `similar` crate's minimal diff on every pair of a small alphabet.
        let words = [
            "", "a", "ab", "ba", "abc", "cab", "aabbcc", "abcabc", "cbacba", "xyz",
        ];
        for a in words {
            for b in words {
                let diff = similar::TextDiff::from_chars(a, b);
                let same: usize = diff
                    .ops()
                    .iter()
                    .map(|op| match *op {
                        similar::DiffOp::Equal { len, .. } => len,
                        _ => 0,
                    })
                    .sum();
                let (n, m) = (a.chars().count(), b.chars().count());
                assert_eq!(d(a, b, 1000), Distance::Exact(n + m - 2 * same), "{a} {b}");
            }
        }
        // Two unrelated long sequences run out of steps and share nothing; two that share every other
        // element run out of steps too and share about half.
        let a: Vec<u32> = (0..5000).collect();
        let b: Vec<u32> = (0..5000).map(|x| x * 7 % 5003 + 10_000).collect();
        work();
        assert_eq!(bounded_distance(&a, &b, 100_000), Distance::Estimate(0));
        assert!(work() < 200_000);
        let c: Vec<u32> = (0..5000)
            .map(|x| if x % 2 == 0 { x } else { x + 10_000 })
            .collect();
        match bounded_distance(&a, &c, 1000) {
            Distance::Estimate(same) => assert!((2000..=3000).contains(&same), "{same}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sequence_search_finds_overlapping_runs() {
        let text = [1, 1, 1, 2, 1, 1, 1, 1];
        let mut out = Vec::new();
        find_sequence(&[1, 1], text.len(), |i| Some(text[i]), |p| out.push(p));
        assert_eq!(out, [0, 1, 4, 5, 6]);
        let mut out = Vec::new();
        find_sequence(
            &[1, 1],
            text.len(),
            |i| (i != 5).then_some(text[i]),
            |p| out.push(p),
        );
        assert_eq!(out, [0, 1, 6]);
    }
}
