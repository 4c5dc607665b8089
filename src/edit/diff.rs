//! Unified diffs of a change, computed only around the changed spans so a one-line edit in a 100 MB
//! file costs a few lines of work.
//!
//! ```
//! let before = "a\nb\nc\n";
//! let after = "a\nB\nc\n";
//! let d = surepatch::edit::diff::unified("f.txt", before, after, &[(2, 4, 2, 4)]);
//! assert!(d.contains("-b\n+B\n"));
//! assert!(d.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n"));
//! ```

use std::fmt::Write;

use memchr::{memchr2, memrchr2};
use similar::{DiffTag, DiffableStr};

use crate::edit::matcher::{bounded_diff, LINE_DIFF_STEPS};
use crate::edit::text::{self, LineCounter};

const CONTEXT: usize = 3;

/// Offset of the start of the line holding `pos`.
fn line_start(t: &[u8], pos: usize) -> usize {
    match memrchr2(b'\n', b'\r', &t[..pos]) {
        // A CR directly followed by LF is one break: the LF ends it.
        Some(i) if t[i] == b'\r' && t.get(i + 1) == Some(&b'\n') && i + 1 < pos => i + 2,
        Some(i) if t[i] == b'\r' && t.get(i + 1) == Some(&b'\n') => line_start(t, i),
        Some(i) => i + 1,
        None => 0,
    }
}

/// Offset just past the terminator of the line holding `pos` (or the text end).
fn line_end(t: &[u8], pos: usize) -> usize {
    match memchr2(b'\n', b'\r', &t[pos..]) {
        Some(i) => {
            let at = pos + i;
            if t[at] == b'\r' && t.get(at + 1) == Some(&b'\n') {
                at + 2
            } else {
                at + 1
            }
        }
        None => t.len(),
    }
}

fn back_lines(t: &[u8], mut start: usize, n: usize) -> usize {
    for _ in 0..n {
        if start == 0 {
            break;
        }
        start = line_start(t, start - 1);
    }
    start
}

fn forward_lines(t: &[u8], mut end: usize, n: usize) -> usize {
    for _ in 0..n {
        if end >= t.len() {
            break;
        }
        end = line_end(t, end);
    }
    end
}

/// A unified diff of `before` → `after`. `changes` lists `(old_start, old_end, new_start, new_end)` byte
/// spans, sorted and disjoint; everything outside them is identical in both texts.
pub fn unified(
    path: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> String {
    unified_with(path, before, after, changes, &mut LineCounter::new())
}

/// [`unified`], with a line counter over `before` that the caller may already have advanced (line numbers
/// are then not counted twice).
pub fn unified_with(
    path: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
    lines: &mut LineCounter,
) -> String {
    let spans: Vec<(usize, usize, &str)> = changes
        .iter()
        .map(|&(os, oe, ns, ne)| (os, oe, &after[ns..ne]))
        .collect();
    unified_spans(path, before, &spans, lines)
}

/// [`unified_with`] for a change given as `(old_start, old_end, replacement)` spans of `before`, sorted
/// and disjoint, so the text after the change need not exist in one piece: only the regions shown are
/// built.
pub fn unified_spans(
    path: &str,
    before: &str,
    spans: &[(usize, usize, &str)],
    lines: &mut LineCounter,
) -> String {
    let b = before.as_bytes();
    // Whole-line regions with context, merged when they touch: old start, old end, the spans inside
    // (a range of `spans`), and the line delta of the spans before the region.
    struct Region {
        os: usize,
        oe: usize,
        first: usize,
        last: usize,
        line_delta: isize,
    }
    let mut regions: Vec<Region> = Vec::new();
    let mut line_delta = 0isize;
    for (k, &(os, oe, new)) in spans.iter().enumerate() {
        let os2 = back_lines(b, line_start(b, os), CONTEXT);
        let last = if oe > os { oe - 1 } else { oe };
        let oe_line = if last >= b.len() {
            b.len()
        } else {
            line_end(b, last)
        };
        let oe2 = forward_lines(b, oe_line, CONTEXT);
        match regions.last_mut() {
            Some(r) if os2 <= r.oe => {
                r.oe = r.oe.max(oe2);
                r.last = k;
            }
            _ => regions.push(Region {
                os: os2,
                oe: oe2,
                first: k,
                last: k,
                line_delta,
            }),
        }
        // A CR that ends the replacement and meets the LF after the span is one break, ending outside.
        let joined = new.ends_with('\r') && b.get(oe) == Some(&b'\n');
        let added = text::line_breaks(new, 0, new.len()) - usize::from(joined);
        line_delta += added as isize - text::line_breaks(before, os, oe) as isize;
    }
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    // One budget for the whole diff, so many large regions cannot multiply it.
    let mut budget = LINE_DIFF_STEPS;
    for r in regions {
        let (os, oe) = (r.os, r.oe);
        let old_first = lines.line_of(before, os);
        let new_first = (old_first as isize + r.line_delta) as usize;
        let after = text::spliced(before, os..oe, spans[r.first..=r.last].iter().copied()).concat();
        // Lines with their terminators (LF, CR LF or a lone CR), as `similar` splits text.
        let (ol, nl) = (before[os..oe].tokenize_lines(), after.tokenize_lines());
        let ops = bounded_diff(&ol, &nl, &mut budget);
        for group in similar::group_diff_ops(ops, CONTEXT) {
            let (first, last) = (&group[0], &group[group.len() - 1]);
            let o = first.old_range().start..last.old_range().end;
            let n = first.new_range().start..last.new_range().end;
            let _ = writeln!(
                out,
                "@@ -{} +{} @@",
                range(old_first + o.start, o.len()),
                range(new_first + n.start, n.len())
            );
            for op in &group {
                let (tag, o, n) = op.as_tag_tuple();
                let (old, new) = (&ol[o], &nl[n]);
                let shown: [(&[&str], char); 2] = match tag {
                    DiffTag::Equal => [(old, ' '), (&[], ' ')],
                    DiffTag::Delete => [(old, '-'), (&[], ' ')],
                    DiffTag::Insert => [(new, '+'), (&[], ' ')],
                    DiffTag::Replace => [(old, '-'), (new, '+')],
                };
                for (lines, sign) in shown {
                    for v in lines {
                        let line = v.trim_end_matches(['\n', '\r']);
                        out.push(sign);
                        out.push_str(line);
                        out.push('\n');
                        if line.len() == v.len() {
                            out.push_str("\\ No newline at end of file\n");
                        }
                    }
                }
            }
        }
    }
    out
}

fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{},0", start - 1),
        1 => format!("{start}"),
        _ => format!("{start},{len}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_ending_in_cr_before_an_lf_is_one_break() {
        // "a\r\n" + "b\n": replacing "a" with "x\r\ny\r" leaves "x\r\ny\r\nb\n" (2 → 3 lines).
        let before = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let after = "x\r\ny\r\nb\nc\nd\ne\nf\ng\nh\n";
        let changes = [(0, 1, 0, 5)];
        let whole = unified("p", before, after, &changes);
        let spans = unified_spans("p", before, &[(0, 1, "x\r\ny\r")], &mut LineCounter::new());
        assert_eq!(whole, spans);
        assert!(
            whole.contains("@@ -1,4 +1,5 @@\n-a\n+x\n+y\n b\n"),
            "{whole}"
        );
        // A later region's new line numbers count the CR LF once.
        let long: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let s = long.find("l15").unwrap();
        let spans = [(0, 2, "x\r\ny\r"), (s, s + 3, "X")];
        let d = unified_spans("p", &long, &spans, &mut LineCounter::new());
        assert!(d.contains("@@ -12,7 +13,7 @@"), "{d}");
    }

    #[test]
    fn diff_of_a_middle_edit_has_context() {
        let before: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let after = before.replace("l10\n", "X\n");
        let s = before.find("l10").unwrap();
        let d = unified("p", &before, &after, &[(s, s + 4, s, s + 2)]);
        assert_eq!(
            d,
            "--- a/p\n+++ b/p\n@@ -7,7 +7,7 @@\n l7\n l8\n l9\n-l10\n+X\n l11\n l12\n l13\n"
        );
    }

    #[test]
    fn diff_marks_missing_final_newline_and_crlf() {
        let d = unified("p", "a\r\nb", "a\r\nc", &[(3, 4, 3, 4)]);
        assert_eq!(d, "--- a/p\n+++ b/p\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
    }

    #[test]
    fn an_earlier_change_that_changes_length_shifts_later_regions() {
        let before = "one\r\ntwo\r\nthree\r\n";
        let after = "1\r\n2\r\nthree\r\n";
        let d = unified("p", before, after, &[(0, 3, 0, 1), (5, 8, 3, 4)]);
        assert_eq!(
            d,
            "--- a/p\n+++ b/p\n@@ -1,3 +1,3 @@\n-one\n-two\n+1\n+2\n three\n"
        );
        let many: String = (1..=30).map(|i| format!("l{i}\n")).collect();
        let after = many
            .replacen("l2\n", "a\nb\nc\n", 1)
            .replacen("l25\n", "X\n", 1);
        let s1 = many.find("l2\n").unwrap();
        let s2 = many.find("l25\n").unwrap();
        let d = unified(
            "p",
            &many,
            &after,
            &[(s1, s1 + 3, s1, s1 + 6), (s2, s2 + 4, s2 + 3, s2 + 5)],
        );
        assert!(
            d.contains("@@ -22,7 +24,7 @@\n l22\n l23\n l24\n-l25\n+X\n"),
            "{d}"
        );
    }

    #[test]
    fn mid_line_insertions_diff_whole_lines() {
        let d = unified("p", "abc\n", "aXbc\n", &[(1, 1, 1, 2)]);
        assert_eq!(d, "--- a/p\n+++ b/p\n@@ -1 +1 @@\n-abc\n+aXbc\n");
    }

    /// A file rewritten wholesale (its lines reversed: a shortest edit script of every line) costs
    /// bounded work (a plain Myers diff took 62 s through writeFile on 100,000 lines): past the
    /// budget the region is one replacement, still a diff that applies.
    #[test]
    fn a_wholesale_rewrite_is_diffed_in_bounded_work() {
        use crate::edit::formats::unified_diff::parse_unified_diff;
        use crate::edit::ir::{Change, FileOp};
        use crate::edit::line_changes::{differing_span, line_changes};
        use crate::edit::matcher::{search_work, Tolerance, LINE_DIFF_STEPS};
        let lines: Vec<String> = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let before = lines.concat();
        let after: String = lines.iter().rev().map(String::as_str).collect();
        search_work();
        let d = unified("p", &before, &after, &[differing_span(&before, &after)]);
        assert!(search_work() <= 2 * LINE_DIFF_STEPS as u64);
        let ops = parse_unified_diff(&d).unwrap();
        let [FileOp::Update {
            change: Change::Hunks(hunks),
            ..
        }] = ops.as_slice()
        else {
            panic!("{ops:?}")
        };
        let got = crate::edit::apply_hunks::apply_hunks(&before, hunks, Tolerance::Exact).unwrap();
        assert_eq!(got.text, after);
        let lc = line_changes(&before, &after);
        assert!(search_work() <= 2 * LINE_DIFF_STEPS as u64);
        assert_eq!((lc.added, lc.removed, lc.changed), (20_000, 20_000, 20_000));
    }

    /// Every pair of short texts over characters that share bytes, and LF breaks (the diff shows a lone
    /// CR as a line break: it is for reading, not byte-exact for CR files): the diff of the
    /// rewrite, parsed back and applied exactly to the old text, gives the new text.
    #[test]
    fn every_short_rewrite_round_trips_through_its_diff() {
        use crate::edit::formats::unified_diff::parse_unified_diff;
        use crate::edit::ir::{Change, FileOp};
        use crate::edit::line_changes::differing_span;
        use crate::edit::matcher::Tolerance;
        let alphabet = ["a", "½", "¼", "中", "丫", "\n"];
        let mut texts = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..3 {
            last = last
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(last.iter().cloned());
        }
        let mut checked = 0;
        for before in &texts {
            for after in &texts {
                if before == after {
                    continue;
                }
                let d = unified("p", before, after, &[differing_span(before, after)]);
                let ops = parse_unified_diff(&d)
                    .unwrap_or_else(|e| panic!("{before:?} -> {after:?}: {e:?}\n{d}"));
                let [FileOp::Update {
                    change: Change::Hunks(hunks),
                    ..
                }] = ops.as_slice()
                else {
                    panic!("{before:?} -> {after:?}: {ops:?}\n{d}");
                };
                let got = crate::edit::apply_hunks::apply_hunks(before, hunks, Tolerance::Exact)
                    .unwrap_or_else(|e| panic!("{before:?} -> {after:?}: {e:?}\n{d}"));
                assert_eq!(&got.text, after, "{before:?} -> {after:?}\n{d}");
                checked += 1;
            }
        }
        assert_eq!(checked, 259 * 258);
    }
}
