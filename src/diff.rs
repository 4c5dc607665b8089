//! Unified diffs of a change, computed only around the changed spans so a one-line edit in a 100 MB
//! file costs a few lines of work.
//!
//! ```
//! let before = "a\nb\nc\n";
//! let after = "a\nB\nc\n";
//! let d = surepatch::diff::unified("f.txt", before, after, &[(2, 4, 2, 4)]);
//! assert!(d.contains("-b\n+B\n"));
//! assert!(d.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n"));
//! ```

use std::fmt::Write;

use memchr::{memchr2, memrchr2};

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
    let b = before.as_bytes();
    // Whole-line regions with context, merged when they touch.
    let mut regions: Vec<(usize, usize, usize, usize)> = Vec::new();
    for &(os, oe, ns, ne) in changes {
        let os2 = back_lines(b, line_start(b, os), CONTEXT);
        let ns2 = ns - (os - os2);
        let last = if oe > os { oe - 1 } else { oe };
        let oe_line = if last >= b.len() {
            b.len()
        } else {
            line_end(b, last)
        };
        let oe2 = forward_lines(b, oe_line, CONTEXT);
        let ne2 = ne + (oe2 - oe);
        match regions.last_mut() {
            Some(r) if os2 <= r.1 => {
                r.1 = r.1.max(oe2);
                r.3 = r.3.max(ne2);
            }
            _ => regions.push((os2, oe2, ns2, ne2)),
        }
    }
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for (os, oe, ns, ne) in regions {
        let old_first = crate::text::line_number_at(before, os);
        let new_first = crate::text::line_number_at(after, ns);
        let diff = similar::TextDiff::from_lines(&before[os..oe], &after[ns..ne]);
        for group in diff.grouped_ops(CONTEXT) {
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
                for change in diff.iter_changes(op) {
                    let sign = match change.tag() {
                        similar::ChangeTag::Equal => ' ',
                        similar::ChangeTag::Delete => '-',
                        similar::ChangeTag::Insert => '+',
                    };
                    let v = change.value();
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
    fn mid_line_insertions_diff_whole_lines() {
        let d = unified("p", "abc\n", "aXbc\n", &[(1, 1, 1, 2)]);
        assert_eq!(d, "--- a/p\n+++ b/p\n@@ -1 +1 @@\n-abc\n+aXbc\n");
    }
}
