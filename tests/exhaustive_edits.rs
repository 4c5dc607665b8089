//! Small-scope exhaustive check of the applier: every file of up to three characters over an alphabet
//! of the characters the tolerance tiers care about (spaces, tabs, NBSP, the ideographic space, smart
//! and plain quotes, LF, CR) and of characters that share UTF-8 bytes, against every `old` of one or
//! two characters and a few `new`s. For each case:
//! - no panic;
//! - an applied edit's change spans lie on character boundaries and everything outside them is the
//!   file's text, byte for byte; its diff renders;
//! - an `old` found exactly once (and not overlapping itself) lands exactly there, as
//!   a replacement of that place would (unless `new` brings line breaks into a file with CR ones: those are
//!   converted; and a multi-line `old` that ends before its last line's trailing whitespace, with `new`
//!   not ending in that line, takes the whitespace with it (so does an `old` ending with a line break
//!   before a whitespace-only line, replaced by a `new` that does not end with one), as one that starts with a line break after
//!   a whitespace-only line does with that line's, and one begun after its line's indentation and
//!   running past the line's end, replaced by a `new` opening with an empty line, with that
//!   indentation: it matches whole lines), or is refused as `NO_CHANGES`, or as `ALREADY_APPLIED` when
//!   `old` is `new` and one line break at an edge and that break stands between two lines that show
//!   text (the deletion of a blank line sent again: removing the break would join the two lines), or
//!   as ambiguous at the trailing-whitespace tier
//!   (an `old` with a line break) or the typography tier (a non-ASCII `old`), or as ambiguous with the
//!   file's end when `old` ends with a line break the file's last line lacks: another place differs
//!   from it only in bytes a view does not show;
//! - an `old` found twice or more, overlaps included, is refused.
//!
//! `SUREPATCH_EXHAUSTIVE=4` raises the file length to four characters (about 1.7 million cases per
//! alphabet; run it with `--release`).

use surepatch::edit::apply::apply_edits;
use surepatch::edit::ir::Edit;
use surepatch::edit::matcher::Tolerance;
use surepatch::error::Code;

fn texts(alphabet: &[&str], max: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..max {
        last = last
            .iter()
            .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
            .collect();
        out.extend(last.iter().cloned());
    }
    out
}

fn check(file: &str, old: &str, new: &str) -> bool {
    let res = apply_edits(file, &[Edit::new(old, new)], Tolerance::Safe);
    let case = format!("file {file:?}, old {old:?}, new {new:?}");
    if let Ok(a) = &res {
        let (mut pos, mut npos) = (0, 0);
        for &(os, oe, ns, ne) in &a.changes {
            assert!(
                file.is_char_boundary(os)
                    && file.is_char_boundary(oe)
                    && a.text.is_char_boundary(ns)
                    && a.text.is_char_boundary(ne),
                "{case}: span off a character boundary"
            );
            assert_eq!(&file[pos..os], &a.text[npos..ns], "{case}: outside a span");
            (pos, npos) = (oe, ne);
        }
        assert_eq!(&file[pos..], &a.text[npos..], "{case}: after the last span");
        let _ = surepatch::edit::diff::unified("p", file, &a.text, &a.changes);
    }
    // A multi-line `old` that splits a word at either end is no match (it matches whole lines
    // unless it plainly starts or ends inside one).
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let splits = |i: usize| {
        let e = i + old.len();
        (word(file[..i].chars().next_back()) && word(old.chars().next()))
            || (word(old.chars().next_back()) && word(file[e..].chars().next()))
    };
    let multi = old.trim_end_matches(['\n', '\r']).contains(['\n', '\r']);
    let places: Vec<usize> = (0..file.len())
        .filter(|&i| file.is_char_boundary(i) && file[i..].starts_with(old))
        .filter(|&i| !(multi && splits(i)))
        // Nor does a match start or end between a CR and its LF.
        .filter(|&i| {
            let b = file.as_bytes();
            let inside = |x: usize| x > 0 && x < b.len() && b[x - 1] == b'\r' && b[x] == b'\n';
            !inside(i) && !inside(i + old.len())
        })
        .collect();
    let starts = places.len();
    if starts == 1 {
        match &res {
            Err(f) if f.code == Code::NoChanges => {}
            // What the model could not see cannot decide: another place that differs only in line
            // endings or trailing whitespace (a line break in `old`), or in NFC/NFD (a non-ASCII
            // `old`), makes a unique exact match ambiguous.
            Err(f) if f.code == Code::SearchBlockAmbiguous => {
                let tier = f.detail("tier").and_then(|t| t.as_str()).unwrap_or("");
                let count = f
                    .detail("match_count")
                    .and_then(|c| c.as_u64())
                    .unwrap_or(0);
                let unseen = match tier {
                    "trailing_whitespace" => {
                        old.contains(['\n', '\r']) || old.ends_with([' ', '\t'])
                    }
                    "typography" => !old.is_ascii(),
                    // The file's last line without the final break `old` ends with: a view
                    // shows it alike.
                    "blank_edges" => {
                        let core = old.trim_end_matches(['\n', '\r']);
                        old.ends_with(['\n', '\r'])
                            && !file.ends_with(['\n', '\r'])
                            && file.ends_with(core)
                    }
                    _ => false,
                };
                assert!(
                    unseen && count >= 2,
                    "{case}: a unique exact match was refused: {f:?}"
                );
            }
            // An `old` that is `new` and one line break at an edge deletes a blank line; where the
            // break stands between two lines that both show text there is none (a retry of that
            // deletion): removing it would join the two lines, which a text showing one of them
            // does not ask for.
            Err(f) if f.code == Code::AlreadyApplied => {
                let at = places[0];
                let e = at + old.len();
                let brk = |t: &str| matches!(t, "\n" | "\r\n" | "\r");
                let lead = old.strip_suffix(new).is_some_and(brk)
                    && shows(line_before(file, at))
                    && shows(line_from(file, e - new.len()));
                let trail = old.strip_prefix(new).is_some_and(brk)
                    && shows(line_before(file, at + new.len()))
                    && shows(line_from(file, e));
                assert!(
                    shows(new) && (lead || trail),
                    "{case}: a unique exact match was refused: {f:?}"
                );
            }
            // An `old` with text that opens (ends) with a line break reads that break as a line of
            // its own: where the line it ends (opens) shows text and `new` lacks the break, writing
            // `new` would join its first (last) line onto that line.
            Err(f) if f.code == Code::SearchBlockNotFound => {
                let at = places[0];
                let e = at + old.len();
                let lead = old.starts_with(['\n', '\r'])
                    && !new.starts_with(['\n', '\r'])
                    && shows(line_before(file, at));
                let trail = old.ends_with(['\n', '\r'])
                    && !new.ends_with(['\n', '\r'])
                    && shows(line_from(file, e));
                assert!(
                    shows(old) && shows(new) && (lead || trail),
                    "{case}: a unique exact match was refused: {f:?}"
                );
            }
            Err(f) => panic!("{case}: a unique exact match was refused: {f:?}"),
            Ok(a) if !(new.contains('\n') && file.contains('\r')) => {
                let at = places[0];
                let e = at + old.len();
                let want = format!("{}{new}{}", &file[..at], &file[e..]);
                // A multi-line `old` matches whole lines: when it ends before its last line's
                // trailing whitespace and `new` does not end with that line, the whitespace (which
                // a view does not show) goes with the line instead of landing on `new`'s last one;
                // the same for an `old` that starts with a line break after a whitespace-only line
                // whose line `new` does not start with.
                let eol = file[e..].find(['\n', '\r']).map_or(file.len(), |i| e + i);
                let bol = file[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
                let last = |t: &str| t.rsplit(['\n', '\r']).next().unwrap_or("").to_string();
                let first = |t: &str| t.split(['\n', '\r']).next().unwrap_or("").to_string();
                // So does an `old` that ends with a line break before a whitespace-only line, when
                // `new` does not end with one: the whitespace would be glued to `new`'s last line.
                let brk = |t: &str| t.ends_with(['\n', '\r']);
                let tail = (multi || (brk(old) && !brk(new)))
                    && eol > e
                    && file[e..eol].trim().is_empty()
                    && last(new) != last(old);
                let head = multi
                    && old.starts_with(['\n', '\r'])
                    && bol < at
                    && file[bol..at].trim().is_empty()
                    && first(new) != first(old);
                // `old` begun after its line's indentation, running over the line's text and past
                // its end, replaced by a `new` that starts with an empty line (or is empty): the
                // line's indentation goes with it (left, it would indent the next line).
                let indent = bol < at
                    && file[bol..at].chars().all(|c| c == ' ' || c == '\t')
                    && old.contains(['\n', '\r'])
                    && !first(old).trim().is_empty()
                    && first(new).is_empty();
                let mut ok = vec![want.clone()];
                if indent {
                    ok.push(format!("{}{new}{}", &file[..bol], &file[e..]));
                }
                for (h, t) in [(true, false), (false, true), (true, true)] {
                    if (!h || head) && (!t || tail) {
                        let (a, z) = (if h { bol } else { at }, if t { eol } else { e });
                        ok.push(format!("{}{new}{}", &file[..a], &file[z..]));
                    }
                }
                // In a file with mixed line endings every line keeps (or takes) its own break from
                // the file, not the break a literal replacement leaves there (G7; the rule is
                // tested in `edit::endings`): only the lines must agree there.
                let lines = |t: &str| t.replace("\r\n", "\n").replace('\r', "\n");
                let rest = file.replace("\r\n", "");
                let kinds = [
                    file.contains("\r\n"),
                    rest.contains('\n'),
                    rest.contains('\r'),
                ];
                let mixed = kinds.iter().filter(|&&k| k).count() > 1;
                assert!(
                    ok.contains(&a.text)
                        || (mixed && ok.iter().any(|w| lines(w) == lines(&a.text))),
                    "{case}: got {:?}, want one of {ok:?}",
                    a.text
                );
            }
            Ok(_) => {}
        }
    }
    if starts >= 2 {
        assert!(
            res.is_err(),
            "{case}: applied although it matches {starts} times"
        );
    }
    res.is_ok()
}

fn every_edit(alphabet: &[&str]) -> (usize, usize) {
    let max = match std::env::var("SUREPATCH_EXHAUSTIVE").as_deref() {
        Ok("4") => 4,
        _ => 3,
    };
    let files = texts(alphabet, max);
    let olds: Vec<String> = texts(alphabet, 2).into_iter().skip(1).collect();
    let (mut cases, mut applied) = (0, 0);
    for file in &files {
        for old in &olds {
            for new in ["", "X", "\n", "\u{201c}", " "] {
                cases += 1;
                applied += usize::from(check(file, old, new));
            }
        }
    }
    (cases, applied)
}

#[test]
fn every_small_edit_over_whitespace_quotes_and_line_breaks() {
    let (cases, applied) = every_edit(&["a", " ", "\n", "\t", "\u{201c}", "\"", "\u{a0}", "\r"]);
    assert!(cases >= 585 * 72 * 5, "{cases}");
    // Most cases find nothing; the point is the invariants above, but a run that applies nothing
    // checks nothing.
    assert!(applied > cases / 5, "{applied} of {cases}");
}

#[test]
fn every_small_edit_over_characters_sharing_bytes() {
    let (cases, applied) = every_edit(&["中", "丫", " ", "\n", "\u{3000}", "½", "\t"]);
    assert!(cases >= 400 * 56 * 5, "{cases}");
    assert!(applied > cases / 10, "{applied} of {cases}");
}

/// Whether a text shows anything in a view (not only whitespace).
fn shows(t: &str) -> bool {
    !t.trim().is_empty()
}

/// The part of `x`'s line in `file` before byte `x`.
fn line_before(file: &str, x: usize) -> &str {
    &file[file[..x].rfind(['\n', '\r']).map_or(0, |i| i + 1)..x]
}

/// The part of `x`'s line in `file` from byte `x` on.
fn line_from(file: &str, x: usize) -> &str {
    &file[x..file[x..].find(['\n', '\r']).map_or(file.len(), |i| x + i)]
}
