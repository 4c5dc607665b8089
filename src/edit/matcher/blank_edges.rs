//! The `blank_edges` tier trims as few of `old`'s blank edge lines as it can. A model that adds
//! blank lines around its `old` (and, in the same place, around its `new`) may also copy blank
//! lines the file really has there; trimming all of them left a blank line the edit removes in the
//! file (or added one). So the forms tried trim the fewest blank lines first, `new` losing as many
//! at each edge as `old` did (at most as many as it has): a blank line the file holds next to the
//! match stays part of it.

use super::normalize::is_blank;
use crate::edit::text::split_lines;

/// At most this many trailing blank lines are tried one by one (more: all or none).
const MAX_EACH: usize = 3;

/// The (leading, trailing) counts of blank lines to trim from `old`, fewest first: every leading
/// one, and fewer than every trailing one (the all-trimmed form is tried after these).
pub(super) fn partial_trims(old: &str) -> Vec<(usize, usize)> {
    let mut o = split_lines(old);
    if o.len() > 1 && o.last() == Some(&"") {
        o.pop();
    }
    let lead = o.iter().take_while(|l| is_blank(l)).count();
    if lead == o.len() {
        return Vec::new();
    }
    let trail = o.iter().rev().take_while(|l| is_blank(l)).count();
    // Leading blank lines kept (fewer than all trimmed) are the file's blank lines: such a form
    // matches only at a line start (a text that starts with a line break otherwise starts inside a
    // line, at the previous line's break). Past MAX_EACH, all are trimmed.
    let leads: Vec<usize> = match lead {
        0 => vec![0],
        l if l > MAX_EACH => vec![l],
        l => (0..=l).collect(),
    };
    // The all-trimmed form (every leading and trailing one) is tried after these.
    let cap = trail.min(MAX_EACH);
    let mut out: Vec<(usize, usize)> = leads
        .iter()
        .flat_map(|&a| (0..=cap).map(move |b| (a, b)))
        .filter(|&(a, b)| a + b > 0 && (a < lead || b < cap))
        .collect();
    // The fewest blank lines trimmed first.
    out.sort_by_key(|&(a, b)| (a + b, a));
    out
}

/// `old` without `a` leading and `b` trailing blank lines, and `new` without as many (at most the
/// blank lines it has at that edge); the final line break of each kept.
pub(super) fn trimmed(old: &str, new: &str, a: usize, b: usize) -> (String, String) {
    let cut = |s: &str, a: usize, b: usize| -> String {
        let mut l = split_lines(s);
        let brk = l.len() > 1 && l.last() == Some(&"");
        if brk {
            l.pop();
        }
        let a = a.min(l.iter().take_while(|x| is_blank(x)).count());
        let b = b.min(l.iter().rev().take_while(|x| is_blank(x)).count());
        let kept: &[&str] = if a + b <= l.len() {
            &l[a..l.len() - b]
        } else {
            &[]
        };
        let mut t = kept.join("\n");
        if brk && !kept.is_empty() {
            t.push('\n');
        }
        t
    };
    (cut(old, a, b), cut(new, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_blank_lines_are_trimmed_first() {
        // Leading ones kept are tried too (matched at a line start), fewest trimmed first.
        assert_eq!(
            partial_trims("\nA\nB\n\n\n"),
            vec![(0, 1), (1, 0), (0, 2), (1, 1)]
        );
        assert_eq!(partial_trims("A\n\n"), vec![]);
        assert_eq!(
            trimmed("\nA\nB\n\n\n", "\nA\n\n", 1, 1),
            ("A\nB\n\n".to_string(), "A\n".to_string())
        );
        assert!(partial_trims("A\n").is_empty());
    }

    /// Found by the ground-truth fuzzer (issue #25, class G9): the model added a blank line around
    /// its SEARCH and REPLACE, and its SEARCH also copied the blank line the file has after the
    /// lines it deletes; trimming every blank edge line left that blank line in the file.
    #[test]
    fn a_blank_line_the_file_holds_next_to_the_match_stays_part_of_it() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        let text = "CFLAGS = -O2\nDEST = /usr\n\nbuild:\n";
        let es = [Edit::new(
            "\nCFLAGS = -O2\nDEST = /usr\n\n\n",
            "\nCFLAGS = -O2\n\n",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(out.text, "CFLAGS = -O2\nbuild:\n");
        // Only the model's blank lines: trimmed as before.
        let es = [Edit::new("\nDEST = /usr\n\n", "\nDEST = /opt\n\n")];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(out.text, "CFLAGS = -O2\nDEST = /opt\n\nbuild:\n");
    }

    /// Found by the ground-truth fuzzer (issue #25, class G9): a SEARCH that starts with a blank
    /// line the file holds (the model added a blank line at its end only) and a REPLACE without it:
    /// trimming every leading blank line kept the blank line the edit deletes. A kept leading blank
    /// line is the file's and matches only at a line start, never at the previous line's break.
    #[test]
    fn a_leading_blank_line_the_file_holds_is_part_of_the_match() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        let text = "'use strict';\n\nclass Alpha {\n  beta() {}\n}\n";
        let es = [Edit::new("\nclass Alpha {\n\n", "result Alpha {\n\n")];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(out.text, "'use strict';\nresult Alpha {\n  beta() {}\n}\n");
        // No blank line in the file there: the leading line break is not read as the previous
        // line's (which would join `'use strict';` and `result`); all blank edges trimmed.
        let text = "'use strict';\nclass Alpha {\n  beta() {}\n}\n";
        let es = [Edit::new("\nclass Alpha {\n\n", "result Alpha {\n\n")];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(out.text, "'use strict';\nresult Alpha {\n  beta() {}\n}\n");
    }
}
