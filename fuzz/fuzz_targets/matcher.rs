#![no_main]
//! The matcher and the applier on a random file and edit.
//!
//! Input: 4 control bytes, then `file \0 old \0 new` (lossy UTF-8). With control bit 0 set, `old` is
//! instead cut from the file (at two positions given by control bytes 1 and 2), optionally degraded
//! the way models degrade it (CRLF → LF, trailing whitespace dropped, indentation dropped), so the
//! tolerance tiers are reached often.
//!
//! Invariants, exactly what the matcher promises:
//! - no panic;
//! - `locate` returns exactly `expected` matches, in bounds, on char boundaries, sorted, disjoint;
//! - exact tier, no needle transform: the span is `old` and the replacement is `new` with its line
//!   breaks rewritten to the region's (or file's) terminator, nothing else:
//!   `split_lines(replacement) == split_lines(new)`; or, when `old` was found right after its line's
//!   indentation and `new` starts with an indentation as wide, the span is that indentation + `old` and
//!   the replacement that indentation + `new` without its own first-line indentation;
//! - any tier without the view-prefix transform: every non-blank line of `new` that is not a line of
//!   `old` (so the diff inserts it) appears in the replacement: apart from its leading indentation,
//!   verbatim at the line-endings tier, up to trailing whitespace at the trailing-whitespace tier, equal
//!   after the indentation tier's normalization (or the inline-whitespace tier's, when that tier
//!   matched) above it;
//! - `apply_edits` succeeds iff `locate` did (or, for an `old` with literal `\n` escapes and no line
//!   break that `locate` finds nowhere, `locate` of the unescaped `old` and `new` did) and changed
//!   something; its output is the input with exactly the located spans replaced by their
//!   replacements; outside the reported `changes`, the bytes are those of the input.
use libfuzzer_sys::fuzz_target;
use surepatch::edit::apply::{apply_edits, joins_a_line, splits_its_line};
use surepatch::edit::formats::unescape_once;
use surepatch::edit::ir::Edit;
use surepatch::edit::matcher::normalize::norm;
use surepatch::edit::matcher::{locate, Haystack, Miss, Tier, Tolerance};
use surepatch::edit::text::split_lines;
use surepatch::error::Code;

fn degrade(s: &str, how: u8) -> String {
    match how & 3 {
        1 => s.replace("\r\n", "\n"),
        2 => s
            .split('\n')
            .map(|l| l.trim_end_matches([' ', '\t']))
            .collect::<Vec<_>>()
            .join("\n"),
        3 => s
            .split('\n')
            .map(|l| l.trim_start_matches([' ', '\t']))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => s.to_string(),
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (ctl, rest) = data.split_at(4);
    let rest = String::from_utf8_lossy(rest);
    let mut parts = rest.splitn(3, '\0');
    let file = parts.next().unwrap_or("").to_string();
    let mut old = parts.next().unwrap_or("").to_string();
    let new = parts.next().unwrap_or("").to_string();
    if ctl[0] & 1 == 1 && !file.is_empty() {
        let a = floor_boundary(&file, ctl[1] as usize * file.len() / 255);
        let b = floor_boundary(&file, ctl[2] as usize * file.len() / 255);
        let (a, b) = (a.min(b), a.max(b));
        old = degrade(&file[a..b], ctl[0] >> 1);
    }
    let expected = match ctl[3] & 7 {
        6 => 2,
        7 => 3,
        _ => 1,
    };
    let tol = if ctl[3] & 8 == 0 {
        Tolerance::Safe
    } else {
        Tolerance::Exact
    };

    let h = Haystack::new(&file);
    let located = locate(&h, &old, &new, expected, tol);
    if let Ok(ms) = &located {
        assert_eq!(ms.len(), expected);
        let mut prev_end = 0;
        for m in ms {
            assert!(m.start <= m.end && m.end <= file.len());
            assert!(file.is_char_boundary(m.start) && file.is_char_boundary(m.end));
            assert!(m.start >= prev_end, "overlapping matches");
            prev_end = m.end;
            if tol == Tolerance::Exact {
                assert_eq!(m.tier, Tier::Exact);
            }
            let rep_lines = split_lines(&m.replacement);
            if m.tolerances.is_empty() {
                assert_eq!(m.tier, Tier::Exact);
                let span = &file[m.start..m.end];
                if span == old {
                    assert_eq!(
                        rep_lines,
                        split_lines(&new),
                        "exact replacement is new modulo line breaks"
                    );
                } else if span
                    .find(old.as_str())
                    .map(|i| (&span[..i], &span[i + old.len()..]))
                    .is_some_and(|(pre, post)| {
                        (!post.is_empty() || old.starts_with(['\n', '\r']) && !pre.is_empty())
                            && pre.trim().is_empty()
                            && post.trim().is_empty()
                            && !pre.contains(['\n', '\r'])
                            && !post.contains(['\n', '\r'])
                    })
                {
                    // A multi-line match takes the trailing whitespace of its last line (and of a
                    // whitespace-only line it starts after) with it: the lines are `new`'s but for
                    // their trailing whitespace.
                    let trimmed = |v: Vec<&str>| -> Vec<String> {
                        v.into_iter().map(|l| l.trim_end().to_string()).collect()
                    };
                    assert_eq!(
                        trimmed(rep_lines),
                        trimmed(split_lines(&new)),
                        "a match that takes a line's trailing whitespace writes new's lines"
                    );
                } else {
                    // The line's indentation absorbed: `new` was written at the file's columns.
                    let pre = &span[..span.len() - old.len()];
                    assert!(span.ends_with(old.as_str()), "an exact match ends with old");
                    assert!(!pre.is_empty() && pre.chars().all(|c| c == ' ' || c == '\t'));
                    let first_new = new.split(['\n', '\r']).next().unwrap_or("");
                    if first_new.is_empty() && old.contains(['\n', '\r']) {
                        // A line emptied or deleted takes its indentation with it.
                        assert_eq!(
                            rep_lines,
                            split_lines(&new),
                            "a line emptied or deleted is replaced by new as it is"
                        );
                    } else {
                        let ind = new.len() - new.trim_start_matches([' ', '\t']).len();
                        assert!(ind > 0, "absorbed only for an indented new");
                        assert_eq!(
                            rep_lines,
                            split_lines(&format!("{pre}{}", &new[ind..])),
                            "absorbed replacement is new at the line's own indentation"
                        );
                    }
                }
            } else if !m.tolerances.contains(&Tier::LinePrefix) {
                let old_lines = split_lines(&old);
                let line_tier = m
                    .tolerances
                    .iter()
                    .copied()
                    .filter(|t| *t != Tier::BlankEdges)
                    .max()
                    .unwrap_or(Tier::Exact);
                for l in split_lines(&new) {
                    if l.trim().is_empty() || old_lines.contains(&l) {
                        continue;
                    }
                    // A line's indentation may be the file's (the first line of `old` found after its
                    // line's indentation, `new` written at that line's columns).
                    let body = |s: &str| s.trim_start_matches([' ', '\t']).to_string();
                    let found = if line_tier < Tier::TrailingWhitespace {
                        rep_lines.iter().any(|r| body(r) == body(l))
                    } else if line_tier < Tier::Typography {
                        rep_lines
                            .iter()
                            .any(|r| body(r).trim_end() == body(l).trim_end())
                    } else {
                        let t = line_tier.max(Tier::Indentation);
                        let want = norm(l, t).text.into_owned();
                        rep_lines.iter().any(|r| norm(r, t).text == want)
                    };
                    assert!(
                        found,
                        "line {l:?} of new missing from replacement {:?} (tolerances {:?})",
                        m.replacement, m.tolerances
                    );
                }
            }
        }
    }

    let edit = Edit {
        old: old.clone(),
        new: new.clone(),
        expected_replacements: (expected != 1).then_some(expected),
    };
    let applied = apply_edits(&file, &[edit], tol);
    // The applier's one fallback: an `old` escaped once too often (literal `\n`, no real line break)
    // that matches nowhere is unescaped once, with `new`, and located again (safe tolerance only).
    let relocated;
    let effective = match &located {
        Err(Miss::NotFound { .. })
            if tol == Tolerance::Safe && !old.contains('\n') && old.contains("\\n") =>
        {
            relocated = locate(
                &h,
                &unescape_once(&old),
                &unescape_once(&new),
                expected,
                tol,
            );
            &relocated
        }
        _ => &located,
    };
    match (effective, &applied) {
        (Ok(ms), Ok(a)) => {
            let mut spliced = String::new();
            let mut at = 0;
            for m in ms {
                spliced.push_str(&file[at..m.start]);
                spliced.push_str(&m.replacement);
                at = m.end;
            }
            spliced.push_str(&file[at..]);
            assert_eq!(
                a.text, spliced,
                "applier output differs from the located splice"
            );
            let (mut po, mut pn) = (0usize, 0usize);
            for &(os, oe, ns, ne) in &a.changes {
                assert!(po <= os && os <= oe && pn <= ns && ns <= ne);
                assert_eq!(
                    file.as_bytes()[po..os],
                    a.text.as_bytes()[pn..ns],
                    "bytes changed outside `changes`"
                );
                po = oe;
                pn = ne;
            }
            assert_eq!(
                file.as_bytes()[po..],
                a.text.as_bytes()[pn..],
                "tail changed outside `changes`"
            );
        }
        (Ok(ms), Err(f)) => {
            // Refused although located: only when nothing would change (or old == new), when a
            // one-line `old` found inside a longer line would split it (G21, FINDINGS.md), or when a
            // line break at `old`'s edge would join a line of `new` onto a line with text.
            let unchanged = old == new || ms.iter().all(|m| file[m.start..m.end] == m.replacement);
            let splits = f.code == Code::SearchBlockNotFound
                && ms
                    .iter()
                    .any(|m| splits_its_line(&file, m, &old, &new) || joins_a_line(&file, m));
            assert!(
                unchanged || splits,
                "located but refused with {:?}: {}",
                f.code,
                f.message
            );
        }
        (Err(_), Ok(_)) => panic!("applied although locate refused"),
        (Err(_), Err(_)) => {}
    }
});
