//! Line terminators of a text: which convention it uses ([`detect_line_ending`]) and how many of
//! each kind it holds ([`count_line_endings`]), in one pass with `memchr`; and, in a text with mixed
//! endings, which break each line of a replacement takes ([`breaks_for`]). Pure; the codec
//! ([`crate::fs::codec`]) re-exports these for the readers and writers of files.

/// The line terminator convention of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// Only `\n`.
    Lf,
    /// Only `\r\n`.
    Crlf,
    /// Only a lone `\r` (classic Mac).
    Cr,
    /// More than one kind. `dominant` is the most frequent terminator (`"\n"`, `"\r\n"` or `"\r"`);
    /// ties go to `\n`, then `\r\n`, then `\r`.
    Mixed { dominant: &'static str },
    /// No line terminator at all (empty or single-line text).
    None,
}

impl LineEnding {
    /// The stable string form: `"lf"`, `"crlf"`, `"cr"`, `"mixed"` or `"none"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "lf",
            LineEnding::Crlf => "crlf",
            LineEnding::Cr => "cr",
            LineEnding::Mixed { .. } => "mixed",
            LineEnding::None => "none",
        }
    }

    /// The terminator to use for new lines: `"\n"` for `Lf` and `None`, `"\r\n"` for `Crlf`, `"\r"`
    /// for `Cr`, and the most frequent one for `Mixed`.
    pub fn terminator(self) -> &'static str {
        match self {
            LineEnding::Lf | LineEnding::None => "\n",
            LineEnding::Crlf => "\r\n",
            LineEnding::Cr => "\r",
            LineEnding::Mixed { dominant } => dominant,
        }
    }
}

/// How many terminators of each kind a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineCounts {
    /// `\n` not preceded by `\r`.
    pub lf: usize,
    /// `\r\n`.
    pub crlf: usize,
    /// `\r` not followed by `\n`.
    pub cr: usize,
}

impl LineCounts {
    /// The convention these counts describe.
    pub fn ending(self) -> LineEnding {
        let kinds = (self.lf > 0) as u8 + (self.crlf > 0) as u8 + (self.cr > 0) as u8;
        match kinds {
            0 => LineEnding::None,
            1 if self.lf > 0 => LineEnding::Lf,
            1 if self.crlf > 0 => LineEnding::Crlf,
            1 => LineEnding::Cr,
            _ => {
                let dominant = if self.lf >= self.crlf && self.lf >= self.cr {
                    "\n"
                } else if self.crlf >= self.cr {
                    "\r\n"
                } else {
                    "\r"
                };
                LineEnding::Mixed { dominant }
            }
        }
    }
}

/// Counts the line terminators of `text` in one `memchr` pass.
pub fn count_line_endings(text: &str) -> LineCounts {
    let b = text.as_bytes();
    let mut c = LineCounts::default();
    for i in memchr::memchr2_iter(b'\r', b'\n', b) {
        if b[i] == b'\r' {
            if b.get(i + 1) == Some(&b'\n') {
                c.crlf += 1;
            } else {
                c.cr += 1;
            }
        } else if i == 0 || b[i - 1] != b'\r' {
            c.lf += 1;
        }
    }
    c
}

/// The line terminator convention of `text` (see [`LineEnding`]).
pub fn detect_line_ending(text: &str) -> LineEnding {
    count_line_endings(text).ending()
}

/// Line breaks for the lines of `new` that replace the lines `old` (each its content and its own
/// break), in a text with mixed line endings: bytes a view does not show, so the model could not
/// have meant to change them. The lines are paired by a line diff of their contents:
///
/// - a line `new` keeps as it is keeps its own break;
/// - a changed line (in a run of replaced lines) takes the break of the line it replaces, by
///   position; a run's lines past its last replaced line take that line's, and its last line the
///   last replaced line's (the break a literal replacement of the run leaves);
/// - a line added (no line replaced at its place) takes its neighbours' break: the line above it
///   and the line below it (`above` / `below` beyond the ends of `old`: the file's lines around the
///   span) when they agree or only one exists, else `fallback` (the file's dominant break); a run of
///   added lines that repeats the lines right above or below it takes their breaks, line by line
///   (which copy is the added one is then no guess that changes the bytes); an added line whose
///   neighbours disagree and that repeats lines the edit deletes, all with one of the two breaks,
///   takes theirs (the line moved: the diff's choice of which copy it keeps is no reason to change
///   a break).
pub fn breaks_for<'a>(
    old: &[(&str, &'a str)],
    new: &[&str],
    above: Option<&'a str>,
    below: Option<&'a str>,
    fallback: &'a str,
) -> Vec<&'a str> {
    breaks_for_sent(old, new, &[], None, above, below, fallback)
}

/// [`breaks_for`] knowing the break the model sent after each line of `new` (`sent[i]`, `""` for
/// none): an added line whose neighbours disagree takes the one of their two breaks it was sent
/// with, and `fallback` only when it was sent with neither (a view shows neither, so the model's
/// own bytes are the only evidence left, and an exact match writes them as sent). `kept` pairs
/// lines the edit itself marks as kept (a patch hunk's context lines: `kept[i]`, the old line new
/// line `i` is): the lines are paired through them, not by a diff of their contents, so a line
/// the edit adds is never taken for an equal line it keeps (an added `}` above the kept `}` of a
/// line deleted with it).
pub fn breaks_for_sent<'a>(
    old: &[(&str, &'a str)],
    new: &[&str],
    sent: &[&str],
    kept: Option<&[Option<usize>]>,
    above: Option<&'a str>,
    below: Option<&'a str>,
    fallback: &'a str,
) -> Vec<&'a str> {
    let keys: Vec<&str> = old.iter().map(|l| l.0).collect();
    let ops = paired_diff(&keys, new, kept);
    // The old lines the diff keeps; the others the edit deletes (or replaces).
    let mut kept_old = vec![false; old.len()];
    for op in &ops {
        if let similar::DiffOp::Equal { old_index, len, .. } = *op {
            kept_old[old_index..old_index + len].fill(true);
        }
    }
    // The break of the lines the edit deletes that read as `line`, when they agree: an added line
    // that repeats a deleted one is that line moved (which of the two the diff keeps is its guess).
    let moved = |line: &str| {
        let mut breaks = (0..old.len())
            .filter(|&j| !kept_old[j] && old[j].0 == line)
            .map(|j| old[j].1);
        let first = breaks.next()?;
        breaks.all(|b| b == first).then_some(first)
    };
    let neighbours = |at: usize, line: usize| {
        let up = at.checked_sub(1).map_or(above, |j| Some(old[j].1));
        let down = old.get(at).map_or(below, |l| Some(l.1));
        match (up, down) {
            (Some(u), Some(d)) if u == d => u,
            (Some(u), Some(d)) => match (moved(new[line]), sent.get(line)) {
                (Some(b), _) if b == u || b == d => b,
                (_, Some(&b)) if b == u => u,
                (_, Some(&b)) if b == d => d,
                _ => fallback,
            },
            (None, None) => fallback,
            (Some(one), None) | (None, Some(one)) => one,
        }
    };
    let mut out = vec![fallback; new.len()];
    for op in ops {
        match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for x in 0..len {
                    out[new_index + x] = old[old_index + x].1;
                }
            }
            similar::DiffOp::Delete { .. } => {}
            similar::DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => {
                let run = &new[new_index..new_index + new_len];
                // A copy of the lines right above (below) it: which copy is the added one is the
                // diff's guess, so each line takes the break of the line it copies, and the result is
                // the same either way.
                let copies = |from: usize| {
                    (from + new_len <= old.len() && (0..new_len).all(|k| old[from + k].0 == run[k]))
                        .then_some(from)
                };
                let copied = old_index
                    .checked_sub(new_len)
                    .and_then(copies)
                    .or_else(|| copies(old_index));
                for k in 0..new_len {
                    out[new_index + k] = match copied {
                        Some(from) => old[from + k].1,
                        None => neighbours(old_index, new_index + k),
                    };
                }
            }
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                // By position, and the run's last line with the last line it replaces (whose break
                // is the one a literal replacement of the run leaves).
                for x in 0..new_len {
                    let j = match x + 1 == new_len {
                        true => old_len - 1,
                        false => x.min(old_len - 1),
                    };
                    out[new_index + x] = old[old_index + j].1;
                }
                // Lines that end the run repeating the kept lines right below it (or start it
                // repeating those right above): which copy is the kept one is the diff's guess,
                // so each takes the break of the line it copies, as an added run does.
                let run = &new[new_index..new_index + new_len];
                let below = &old[old_index + old_len..];
                let tail = (1..=new_len.min(below.len()))
                    .rev()
                    .find(|&n| {
                        run[new_len - n..]
                            .iter()
                            .copied()
                            .eq(below[..n].iter().map(|l| l.0))
                    })
                    .unwrap_or(0);
                for k in 0..tail {
                    out[new_index + new_len - tail + k] = below[k].1;
                }
                let above = &old[..old_index];
                let head = (1..=(new_len - tail).min(above.len()))
                    .rev()
                    .find(|&n| {
                        run[..n]
                            .iter()
                            .copied()
                            .eq(above[above.len() - n..].iter().map(|l| l.0))
                    })
                    .unwrap_or(0);
                for k in 0..head {
                    out[new_index + k] = above[above.len() - head + k].1;
                }
            }
        }
    }
    out
}

/// A text's lines with their breaks (`""` for a last line without one; no empty part after a final
/// break).
fn with_breaks(s: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', rest.as_bytes()) {
        let n = match rest.as_bytes()[i..] {
            [b'\r', b'\n', ..] => 2,
            _ => 1,
        };
        out.push((&rest[..i], &rest[i..i + n]));
        rest = &rest[i + n..];
    }
    if !rest.is_empty() {
        out.push((rest, ""));
    }
    out
}

/// The line break that starts `s`, if any.
fn leading_break(s: &str) -> Option<&str> {
    match s.as_bytes() {
        [b'\r', b'\n', ..] => Some(&s[..2]),
        [b'\n' | b'\r', ..] => Some(&s[..1]),
        _ => None,
    }
}

/// The line diff of `old` → `new` through the pairs `kept` marks (`kept[i]`: the old line new
/// line `i` keeps), each an equal line and the lines between two of them diffed; a plain diff when
/// there are none or they do not hold (out of order, out of range, or not equal lines).
fn paired_diff(old: &[&str], new: &[&str], kept: Option<&[Option<usize>]>) -> Vec<similar::DiffOp> {
    use crate::edit::myers::{diff_through, diff_within, marked_pairs};
    // A bound on the work, not a clock: the same text gives the same diff under any load.
    const WORK: usize = 10_000_000;
    let pairs = kept
        .and_then(|k| marked_pairs(k, old, new))
        .unwrap_or_default();
    diff_through(&pairs, (old.len(), new.len()), |o, n| {
        diff_within(&old[o], &new[n], WORK)
    })
}

/// The line break that ends `s`, if any.
fn trailing_break(s: &str) -> Option<&str> {
    if s.ends_with("\r\n") {
        Some(&s[s.len() - 2..])
    } else if s.ends_with(['\n', '\r']) {
        Some(&s[s.len() - 1..])
    } else {
        None
    }
}

/// The replacement of `text[start..end]` by `new` (matched byte for byte) in a text with mixed line
/// endings, with the breaks [`breaks_for`] gives `new`'s lines against the span's (`new`'s own
/// breaks are the model's, which a view does not show). When the span ends where its last line's
/// content ends (or right before an empty line, whose content is `old`'s last, empty part) and
/// `new`'s last line (with no break of its own) takes another break than the one that follows the
/// span, the span takes that break too: the new end and the replacement. So a line `new` keeps
/// keeps its own break, also when it is `new`'s last and the lines after it are deleted. `None`
/// when the text's endings are not mixed (every line then takes the one terminator).
pub fn mixed_replacement(
    text: &str,
    start: usize,
    end: usize,
    new: &str,
    kept: Option<&[Option<usize>]>,
) -> Option<(usize, String)> {
    let ending = detect_line_ending(text);
    let LineEnding::Mixed { dominant } = ending else {
        return None;
    };
    let span = &text[start..end];
    // The break that ends the span's last line when the span stops right before it.
    // When the span ends with a break and the next line is empty, that empty line is the span's
    // last place (`old` ends with a line break: its last part is that line's content): its break.
    let after = match span.is_empty() {
        true => None,
        false => leading_break(&text[end..]),
    };
    let mut old = with_breaks(span);
    if span.is_empty() || trailing_break(span).is_some() {
        // The empty part after the span's last break (or the empty span) is still a place.
        old.push(("", after.unwrap_or("")));
    } else if let (Some(a), Some(last)) = (after, old.last_mut()) {
        last.1 = a;
    }
    let parts = crate::edit::text::split_lines(new);
    let sent: Vec<&str> = with_breaks(new).into_iter().map(|l| l.1).collect();
    let above = trailing_break(&text[..start]);
    let below = after.and_then(|a| {
        let rest = &text[end + a.len()..];
        memchr::memchr2(b'\n', b'\r', rest.as_bytes()).and_then(|i| leading_break(&rest[i..]))
    });
    let breaks = breaks_for_sent(&old, &parts, &sent, kept, above, below, dominant);
    let mut out = String::with_capacity(new.len() + parts.len());
    let last = parts.len() - 1;
    let mut new_end = end;
    for (x, (p, b)) in parts.iter().zip(&breaks).enumerate() {
        out.push_str(p);
        if x < last {
            out.push_str(if b.is_empty() { dominant } else { b });
        } else if let Some(a) = after.filter(|a| !b.is_empty() && b != a) {
            out.push_str(b);
            new_end = end + a.len();
        }
    }
    Some((new_end, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_lines_keep_their_break_changed_ones_take_the_replaced_ones() {
        let old = [("a", "\n"), ("b", "\r\n"), ("c", "\n")];
        // b kept, c changed, d added after it (neighbours: c's \n above, `below` \n).
        let got = breaks_for(&old, &["a", "b", "C", "d"], None, Some("\n"), "\r\n");
        assert_eq!(got, ["\n", "\r\n", "\n", "\n"]);
        // A changed line takes the break of the line it replaces, by position.
        let got = breaks_for(&old, &["a", "B", "c"], None, None, "\n");
        assert_eq!(got, ["\n", "\r\n", "\n"]);
        // Two lines become one: it takes the last one's break, as a literal replacement does.
        let got = breaks_for(&old, &["a", "X"], None, None, "\r\n");
        assert_eq!(got, ["\n", "\n"]);
    }

    /// `rm` (LF) and a blank line (CRLF) swapped in a mixed Makefile: the diff keeps `rm` and adds
    /// the blank line above it, between a CRLF line and `rm`'s LF; the blank line is the one the
    /// edit deletes below, moved, and keeps its CRLF (seed 26, 982584: it took the LF the exact
    /// tier had converted the model's bytes to). The rule never picks a break neither neighbour
    /// has, and a line deleted with two different breaks decides nothing.
    #[test]
    fn an_added_line_repeating_a_deleted_one_keeps_its_break() {
        // The model sent LF breaks; the line above the span ends in CRLF, none is below it.
        fn breaks<'a>(old: &[(&str, &'a str)]) -> Vec<&'a str> {
            let new = ["", "\trm", "y:"];
            breaks_for_sent(
                old,
                &new,
                &["\n", "\n", ""],
                None,
                Some("\r\n"),
                None,
                "\r\n",
            )
        }
        let old = [("\trm", "\n"), ("", "\r\n"), ("clean:", "\r\n")];
        assert_eq!(breaks(&old), ["\r\n", "\n", "\r\n"]);
        // Deleted twice with two breaks: the model's bytes decide, as before.
        let old = [("\trm", "\n"), ("", "\r\n"), ("", "\n"), ("clean:", "\r\n")];
        assert_eq!(breaks(&old)[0], "\n");
        // The deleted twin's break is neither neighbour's: not taken.
        let old = [("\trm", "\n"), ("", "\r"), ("clean:", "\r\n")];
        assert_eq!(breaks(&old)[0], "\n");
    }

    #[test]
    fn an_added_line_takes_its_neighbours_break_or_the_fallback() {
        let old = [("a", "\r\n"), ("b", "\n")];
        // Between a (\r\n) and b (\n): the neighbours disagree.
        assert_eq!(
            breaks_for(&old, &["a", "x", "b"], None, None, "\r\n"),
            ["\r\n", "\r\n", "\n"]
        );
        assert_eq!(
            breaks_for(&old, &["a", "x", "b"], None, None, "\n")[1],
            "\n"
        );
        // At the top: the line above the span and a's break agree.
        assert_eq!(
            breaks_for(&old, &["x", "a", "b"], Some("\r\n"), None, "\n")[0],
            "\r\n"
        );
        // A copy of the line above: which one is the added copy does not change the bytes.
        assert_eq!(
            breaks_for(&old, &["a", "b", "b"], None, Some("\r\n"), "\r\n"),
            ["\r\n", "\n", "\n"]
        );
        // Nothing replaced at all: the neighbours outside the span.
        assert_eq!(breaks_for(&[], &["x"], Some("\r\n"), None, "\n"), ["\r\n"]);
        assert_eq!(breaks_for(&[], &["x"], None, None, "\r"), ["\r"]);
    }

    #[test]
    fn a_deleted_line_takes_its_break_with_it() {
        // `cron:` (\r\n) kept, the line after it (\n) deleted: cron keeps \r\n.
        let old = [("  cron:", "\r\n"), ("    image: app", "\n")];
        assert_eq!(breaks_for(&old, &["  cron:"], None, None, "\n"), ["\r\n"]);
    }

    #[test]
    fn an_exact_match_keeps_each_lines_break() {
        // The YAML case of the ground-truth fuzzer: `old` stops before the deleted line's \n, `new`
        // keeps `cron:`, whose break is \r\n: the span takes the \n, and cron keeps its \r\n.
        let text = "a:\r\n  cron:\r\n    image: x\nb:\r\n";
        let start = text.find("  cron").unwrap();
        let end = text.find("\nb:").unwrap();
        let (e, r) = mixed_replacement(text, start, end, "  cron:", None).unwrap();
        assert_eq!(
            (&text[start..e], r.as_str()),
            ("  cron:\r\n    image: x\n", "  cron:\r\n")
        );
        // The model's breaks are not the file's: `b` keeps its \r\n, the changed line takes the
        // \n of the line it replaces, an added one its neighbours'.
        let text = "a\nb\r\nc\nd\n";
        let (e, r) = mixed_replacement(text, 0, 5, "a\nb\nC", None).unwrap();
        assert_eq!((e, r.as_str()), (5, "a\nb\r\nC"));
        let (e, r) = mixed_replacement(text, 0, 5, "a\nb\nX\nc", None).unwrap();
        assert_eq!((e, r.as_str()), (5, "a\nb\r\nX\nc"));
        // Not mixed: nothing to decide.
        assert_eq!(mixed_replacement("a\r\nb\r\n", 0, 1, "x\ny", None), None);
        // A substring inside a line: `new`'s line breaks take the neighbours' (here the dominant).
        let text = "ab\r\nc\nd\n";
        let (e, r) = mixed_replacement(text, 4, 5, "x\ny", None).unwrap();
        assert_eq!((e, r.as_str()), (5, "x\ny"));
    }

    #[test]
    fn an_added_line_between_disagreeing_neighbours_keeps_the_one_of_their_breaks_it_was_sent_with()
    {
        // `new` added after `l2` (\n) and before `l3` (\r\n): the model's own break decides.
        let text = "l1\r\nl2\nl3\r\n";
        let (s, e) = (4, 7);
        assert_eq!(
            mixed_replacement(text, s, e, "l2\nnew\n", None).unwrap().1,
            "l2\nnew\n"
        );
        assert_eq!(
            mixed_replacement(text, s, e, "l2\nnew\r\n", None)
                .unwrap()
                .1,
            "l2\nnew\r\n"
        );
        // Sent with neither (a lone CR): the dominant break.
        assert_eq!(
            mixed_replacement(text, s, e, "l2\nnew\r", None).unwrap().1,
            "l2\nnew\r\n"
        );
        // Neighbours that agree decide whatever was sent.
        let text = "l1\r\nl2\r\nl3\r\nx\n";
        assert_eq!(
            mixed_replacement(text, 4, 8, "l2\r\nnew\n", None)
                .unwrap()
                .1,
            "l2\r\nnew\r\n"
        );
    }

    /// Found by the ground-truth fuzzer (issue #25 G7, seed 25 case 869692): a hunk deletes `x` (LF)
    /// and `}` (CRLF), adds `} y`, keeps a blank line and adds a block ending in `}`. Re-diffed by
    /// content, the added `}` was taken for the kept one and the lines before it took the deleted
    /// line's LF; paired as the hunk's marks pair them, the added lines take their neighbours' CRLF.
    #[test]
    fn lines_pair_as_the_edits_marks_pair_them() {
        let text = "a\r\nx\n}\r\n\r\nb\r\n";
        let new = "a\n} y\n\nif {\n}\nb\n";
        // new line → old line it keeps: `a` 0, the blank line 3, `b` 4.
        let kept = [Some(0), None, Some(3), None, None, Some(4)];
        let (_, r) = mixed_replacement(text, 0, text.len(), new, Some(&kept)).unwrap();
        assert_eq!(r, "a\r\n} y\r\n\r\nif {\r\n}\r\nb\r\n");
        // Marks that do not hold (not the same line) are not used: the plain diff decides.
        let wrong = [Some(1), None, None, None, None, None];
        let plain = mixed_replacement(text, 0, text.len(), new, None).unwrap();
        assert_eq!(
            mixed_replacement(text, 0, text.len(), new, Some(&wrong)).unwrap(),
            plain
        );
    }

    /// Found by the ground-truth fuzzer (issue #25 G7, seed 25 case 577342): a replaced run that ends
    /// with a copy of the kept line right below it: which copy the diff calls kept is its guess, so
    /// the copy takes that line's break, and the result is the same either way.
    #[test]
    fn a_run_ending_with_a_copy_of_the_kept_line_below_takes_its_break() {
        let text = "x\r\ny\nz\n";
        let (_, r) = mixed_replacement(text, 0, 5, "x2\ny\ny\n", None).unwrap();
        assert_eq!(r, "x2\r\ny\ny\n");
        // And at the run's start, a copy of the kept line above.
        let text = "y\nx\r\nz\n";
        let (_, r) = mixed_replacement(text, 0, 5, "y\ny\nx2\n", None).unwrap();
        assert_eq!(r, "y\ny\nx2\r\n");
    }

    /// A line `new` keeps keeps its own break when it is `new`'s last and the lines after it are
    /// deleted: the break after the span (an empty line's, when the span ends with a break) goes
    /// with the deleted lines.
    #[test]
    fn a_kept_last_line_keeps_its_own_break_when_the_lines_after_it_go() {
        let text = "test:\r\n\techo\n\trm x\r\n\r\nz:\r\n";
        let end = "test:\r\n\techo\n\trm x\r\n".len();
        let (new_end, rep) = mixed_replacement(text, 0, end, "test:\n\techo", None).unwrap();
        assert_eq!((new_end, rep.as_str()), (end + 2, "test:\r\n\techo\n"));
        // Lines deleted after a kept empty line: it keeps its LF, not the last one's CRLF.
        let text = "package m\n\nfunc a() {\n\tx()\r\n";
        let start = "package m\n".len();
        let end = text.len() - 2;
        let (new_end, rep) = mixed_replacement(text, start, end, "", None).unwrap();
        assert_eq!(
            format!("{}{rep}{}", &text[..start], &text[new_end..]),
            "package m\n\n"
        );
    }
}
