//! What a rewrite changes, line by line: the summaries a whole-file write reports (`lines_added`,
//! `lines_removed`, `changed_lines`, `changed_ranges`) and guards with `max_changed_lines`. Pure: no I/O.

use crate::edit::matcher::{bounded_diff, LINE_DIFF_STEPS};
use crate::edit::text::LineTable;

/// `(old_start, old_end, new_start, new_end)` of the one span where `a` and `b` differ.
pub fn differing_span(a: &str, b: &str) -> (usize, usize, usize, usize) {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // Identical bytes up to `pre` make it a character boundary of both texts or of neither (the same
    // lead byte expects the same continuation), so backing off to one of `a`'s is enough; the same
    // holds for the suffix.
    let mut pre = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    while !a.is_char_boundary(pre) {
        pre -= 1;
    }
    let max_suf = x.len().min(y.len()) - pre;
    let mut suf = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take(max_suf)
        .take_while(|(p, q)| p == q)
        .count();
    while !a.is_char_boundary(x.len() - suf) {
        suf -= 1;
    }
    (pre, x.len() - suf, pre, y.len() - suf)
}

/// At most this many `changed_ranges` are listed in a receipt or a `REWRITE_TOO_BROAD` failure.
pub const MAX_CHANGED_RANGES: usize = 20;

/// What a rewrite changes, line by line.
#[derive(Debug, Default, PartialEq)]
pub struct LineChanges {
    /// `(old_start, old_end, new_start, new_end)` byte spans of the changed lines, sorted, disjoint.
    pub spans: Vec<(usize, usize, usize, usize)>,
    pub added: usize,
    pub removed: usize,
    /// Per block of adjacent changed lines, the larger of removed and added, summed.
    pub changed: usize,
    /// 1-based line ranges in the new text; lines only removed are `(n, n - 1)`: just before line n.
    pub ranges: Vec<(usize, usize)>,
}

/// A line diff of `old` → `new`: common leading and trailing lines are skipped, the rest goes to
/// [`bounded_diff`] (past its budget the diff is coarser, never wrong).
pub fn line_changes(old: &str, new: &str) -> LineChanges {
    use similar::DiffTag;
    let (ot, nt) = (LineTable::new(old), LineTable::new(new));
    let (on, nn) = (ot.len(), nt.len());
    let o_line = |i: usize| &old[ot.start(i)..ot.end(i)];
    let n_line = |i: usize| &new[nt.start(i)..nt.end(i)];
    let mut pre = 0;
    while pre < on && pre < nn && o_line(pre) == n_line(pre) {
        pre += 1;
    }
    let mut suf = 0;
    while suf < on - pre && suf < nn - pre && o_line(on - 1 - suf) == n_line(nn - 1 - suf) {
        suf += 1;
    }
    let a: Vec<&str> = (pre..on - suf).map(o_line).collect();
    let b: Vec<&str> = (pre..nn - suf).map(n_line).collect();
    let ops = bounded_diff(&a, &b, &mut { LINE_DIFF_STEPS });
    // Blocks of adjacent changed lines, in line indexes: (old_start, old_end, new_start, new_end).
    let mut blocks: Vec<(usize, usize, usize, usize)> = Vec::new();
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        let (os, oe, ns, ne) = (pre + o.start, pre + o.end, pre + n.start, pre + n.end);
        match blocks.last_mut() {
            Some(last) if last.1 == os && last.3 == ns => {
                last.1 = oe;
                last.3 = ne;
            }
            _ => blocks.push((os, oe, ns, ne)),
        }
    }
    let mut out = LineChanges::default();
    for (os, oe, ns, ne) in blocks {
        out.spans
            .push((ot.start(os), ot.start(oe), nt.start(ns), nt.start(ne)));
        out.removed += oe - os;
        out.added += ne - ns;
        out.changed += (oe - os).max(ne - ns);
        out.ranges.push((ns + 1, ne));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_changes_count_blocks() {
        let lc = line_changes("a\rb\rc\r", "a\rB\rc\r");
        assert_eq!((lc.added, lc.removed, lc.changed), (1, 1, 1));
        assert_eq!(lc.ranges, vec![(2, 2)]);
        assert_eq!(lc.spans, vec![(2, 4, 2, 4)]);
        // Lines removed at the end: an empty range after the last line.
        let lc = line_changes("a\nb\nc\n", "a\n");
        assert_eq!((lc.added, lc.removed, lc.changed), (0, 2, 2));
        assert_eq!(lc.ranges, vec![(2, 1)]);
        // Replacing 1 line by 3 counts 3; an unrelated insertion elsewhere counts on its own.
        let lc = line_changes("a\nb\nc\nd\n", "a\nx\ny\nz\nc\nd\nnew\n");
        assert_eq!((lc.added, lc.removed, lc.changed), (4, 1, 4));
        assert_eq!(lc.ranges, vec![(2, 4), (7, 7)]);
        assert_eq!(line_changes("same\n", "same\n"), LineChanges::default());
        assert_eq!(line_changes("", "x").ranges, vec![(1, 1)]);
        // A missing final newline is a changed line.
        assert_eq!(line_changes("a\nb", "a\nb\n").ranges, vec![(2, 2)]);
    }

    #[test]
    fn differing_span_is_tight() {
        assert_eq!(differing_span("abc", "abc"), (3, 3, 3, 3));
        assert_eq!(differing_span("aXc", "aYYc"), (1, 2, 1, 3));
        assert_eq!(differing_span("aa", "aaa"), (2, 2, 2, 3));
        assert_eq!(differing_span("", "new"), (0, 0, 0, 3));
    }

    #[test]
    fn differing_span_ends_on_character_boundaries() {
        // '½' is C2 BD and '¼' is C2 BC: the texts share a byte that is half a character.
        assert_eq!(differing_span("a½b", "a¼b"), (1, 3, 1, 3));
        // 'ā' is C4 81 and 'Ł' is C5 81: a shared last byte is half a character too.
        assert_eq!(differing_span("xāy", "xŁy"), (1, 3, 1, 3));
        assert_eq!(differing_span("€", "₤"), (0, 3, 0, 3));
        for (a, b) in [("a½b", "a¼b"), ("xāy", "xŁy"), ("€", "₤"), ("½½", "½¼½")] {
            let (os, oe, ns, ne) = differing_span(a, b);
            assert!(
                a.is_char_boundary(os) && a.is_char_boundary(oe),
                "{a:?} {b:?}"
            );
            assert!(
                b.is_char_boundary(ns) && b.is_char_boundary(ne),
                "{a:?} {b:?}"
            );
        }
    }
}
