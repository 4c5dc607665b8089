//! The replacement of a line-tier match: what the model changed is the model's text, everything else
//! keeps the file's bytes.
//!
//! `old` and `new` are paired line by line: a patch hunk's as its marks pair them (each context line
//! with itself, the lines between two context lines diffed), else a diff of their lines compared
//! without leading and trailing whitespace; inside a run of replaced lines, by position when the counts agree (unless the pairing
//! by similarity scores more: the lines moved), else each new line with its most similar old line
//! (character-bigram Dice, at least 0.5, monotone; a line with one word changed scores by its share
//! of kept words, and one with a word added after its old line's words scores 0.5, so short lines
//! pair too).
//!
//! - A line of `new` identical to its `old` line is the file's line, byte for byte.
//! - A changed line keeps the file's bytes wherever the model left its old line alone: a character diff
//!   of old line → new line (past their common prefix and suffix, bounded per line and per edit)
//!   decides which stretches the model wrote, and every other stretch is copied from the file's line
//!   through the tier's normalization map, so the file's inline whitespace, quotes, dashes, NBSP and
//!   NFC/NFD form survive. A run of inline whitespace is settled whole: the file's run where the model
//!   kept its old run as it was and the words on both sides of it (or the line has one word changed),
//!   else the model's spacing. An added line with one word changed from the one line the match
//!   deletes settles its runs against that line (inline-whitespace tier only). Its trailing
//!   whitespace is the file's unless the model changed it. The result
//!   must equal the model's line under the tier's normalization, else the model's line is written as
//!   sent. A blank old line carries nothing: what replaces it is written like an added line.
//! - Indentation: a line whose indentation the model did not change keeps the file's leading whitespace
//!   (tabs and alignment spaces as they are). At the indentation tiers, where `old` drifted from the file
//!   by a uniform delta, each run of changed lines is read either in the model's frame (shifted by the
//!   delta) or as already at the file's columns, whichever fits the non-blank file lines around the run
//!   better: after an opening line (`:`, `{`, `(`, `[`) the run's first line should sit one level deeper
//!   (lines inserted before the first line of its body, none opening a block: at that line's column),
//!   else at its neighbour's column or dedented; the line after the run likewise (a YAML list
//!   item's own lines continue at its text's column: `  - name: x` then `    size: 1`). On a tie, the lines
//!   paired with old lines decide when they all sit at their file lines' columns and no added line
//!   encloses them; otherwise the model's frame. One frame per match: a frame the neighbours of one
//!   run decide is every run's; else runs whose paired lines tell the two frames are refused
//!   (`FramesDisagree`), and a run whose lines tell nothing takes the frame the others' paired lines
//!   tell. So `new` written at the file's columns is not shifted
//!   twice, and a block the model re-indents on purpose still is. A line that closes a bracket right
//!   after an opening line sits at the opener's column (an empty block). A run whose every line
//!   carries the leading text `old` drifted by, when that text indents with a character the region
//!   does not (a tab before a space-indented file's lines, spaces before a tab-indented one's; the
//!   region is the file's around the match, or the indented file lines next to the run when they
//!   agree: a YAML raw string in a tab-indented Go file indents with spaces), is in the model's
//!   frame: at the file's columns its width would be a guess. A run read at the file's
//!   columns is written there whole: a line the model left at its old line's indentation is at its
//!   written columns too (one line moved and its neighbour not is neither reading). Where indentation is syntax (a
//!   Python, YAML or Makefile by its path, a heredoc or raw string by the file's content: `layout.rs`)
//!   a frame is a line's block, taken only when the evidence decides it and agrees: the neighbours of
//!   every run and its paired lines name one frame (paired lines at their file columns beside copies
//!   at old's read at the file's columns when the neighbours say so, unless `old` sits deeper than
//!   the file: lines of `new` repeating it there then rule the file's frame out), else the match is refused —
//!   `FramesDisagree` when they contradict each other, `FrameUndecided` (naming a line and its column
//!   in each reading) when nothing decides and the readings write different columns. A run whose own
//!   lines tell both frames (a line standing for replaced lines of two depths, paired lines pointing
//!   both ways, lines at the file's columns under an added line enclosing them) is placed by its
//!   neighbours alone; where a block may be empty (YAML, Makefiles) an opening line whose whole body
//!   the run rewrites places nothing when the readings put the run in its body and beside it. A line as wide as its own file line
//!   takes that line's leading whitespace, else that of an equally wide neighbour (the line written
//!   before it, the file lines the run rewrites, the file lines around it), else tabs for the levels and
//!   spaces for the rest (in a tab-indented region) or spaces. Tab-indented regions are measured with a
//!   tab of 8, then 4.
//! - Lines the model added are its text, re-indented as above; typographic characters the model
//!   "smartened" and NFD text are folded back to the file's forms.
//!
//! [`absorb_indent`] handles the case before any tier: `old` found right after its line's indentation
//! with `new` written at that line's columns replaces the whole line.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;

use unicode_normalization::{is_nfc, UnicodeNormalization};

use super::normalize::{self, columns, indent_of, is_blank, norm, render_indent};
use super::{file_terminator, layout, Haystack, IndentMiss, Layout, Tier};
use crate::edit::myers::{diff_through, marked_pairs, offset};
use crate::edit::text;

/// Longest line part (in characters, after the common prefix and suffix) diffed character by
/// character; a longer changed middle is taken as the model's text whole.
const MAX_CHAR_DIFF: usize = 2_000;
/// Character-diff work allowed for one replacement (the sum over changed lines of the product of
/// their changed middles' lengths); past it, changed middles are taken whole.
const CHAR_DIFF_BUDGET: usize = 8_000_000;
/// Most line pairs scored when pairing a run of replaced lines.
const MAX_PAIR_SCORES: usize = 1_600;
/// Lines looked at above or below a run for its neighbours.
const NEIGHBOUR_REACH: usize = 50;

fn is_indent(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A line without leading spaces/tabs and trailing whitespace: what the line diff compares.
fn key(line: &str) -> &str {
    line.trim_start_matches(is_indent).trim_end()
}

/// `line` split into (content, trailing whitespace).
fn split_trailing(line: &str) -> (&str, &str) {
    let c = line.trim_end();
    (c, &line[c.len()..])
}

/// Whether a line opens a block or bracket (the next line is expected one level deeper). A comment
/// ending with `:` (`// Steps:`, `# Returns:`) opens nothing: the lines after it stay at its column.
/// A shell line ending with the keyword `then` or `do` after a command (`if [ -f x ]; then`,
/// `for f in *; do`) opens its body.
fn opens(line: &str) -> bool {
    let t = line.trim();
    const COMMENTS: [&str; 8] = ["//", "#", "--", "/*", "*", ";", "%", "\""];
    if t.ends_with(':') {
        return !COMMENTS.iter().any(|c| t.starts_with(c));
    }
    let keyword = ["then", "do"].iter().any(|k| {
        t.strip_suffix(k)
            .is_some_and(|head| head.trim_end().ends_with(';') && !t.starts_with('#'))
    });
    keyword || t.ends_with(['{', '(', '['])
}

/// Whether a line starts by closing a bracket (`}`, `)`, `]`): right after an opening line it ends
/// the block that line began, at that line's column.
fn closes(line: &str) -> bool {
    line.trim_start().starts_with(['}', ')', ']'])
}

/// Whether leading text the model put before every line is indentation of a character the region
/// does not indent with: a tab where the region indents with spaces, a space before the tabs of a
/// region indented with tabs.
fn foreign(prefix: &str, tabs: bool) -> bool {
    if tabs {
        prefix.contains(' ')
    } else {
        prefix.contains('\t')
    }
}

/// Whether a Makefile line is a rule (`build: main.o`, `%.o: %.c`): at column 0, a `:` that is no
/// assignment (`:=`, `::=`) with no `=` before it.
/// The column of a list item's text (`  - name: x`: 4), where the item's next lines continue.
fn item_text(line: &str, tab: usize) -> Option<isize> {
    let ind = indent_of(line);
    let rest = line[ind.len()..].strip_prefix('-')?;
    let gap = rest.len() - rest.trim_start_matches(' ').len();
    (gap > 0 && !rest.trim().is_empty()).then(|| (columns(ind, tab) + 1 + gap) as isize)
}

fn makefile_rule(line: &str) -> bool {
    if line.starts_with([' ', '\t', '#']) {
        return false;
    }
    let Some(at) = line.find(':') else {
        return false;
    };
    let (head, rest) = (&line[..at], &line[at + 1..]);
    !head.trim().is_empty() && !head.contains('=') && !rest.starts_with([':', '='])
}

/// The columns of the lines that enclose the line after `above` (each shallower than every line
/// between it and that line), the deepest first: the levels a line there may dedent to.
fn enclosing_columns(above: &str, tab: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut least = usize::MAX;
    for l in above.lines().rev().take(NEIGHBOUR_REACH * 20) {
        if is_blank(l) {
            continue;
        }
        let c = columns(indent_of(l), tab);
        if c < least {
            out.push(c);
            least = c;
            if c == 0 {
                break;
            }
        }
    }
    out
}

/// What [`absorb_indent`] widens a match to: `(start, old, new, moved)`.
pub(super) type Absorbed = (usize, String, String, bool);

/// When a match starts after its line's indentation (`old` copied without it) and `new`'s first line
/// carries an indentation as wide as that line's, the model wrote `new` at the file's columns: the
/// match is widened to the line start, and `old` and `new` get the file's indentation in place of
/// their own first-line indentation.
///
/// When instead a one-line `old` and the first line of a longer `new` share their indentation
/// (none, or less than the line's), the model wrote the first line that much shallower than the
/// file, and its later lines either the same way (relative to the first: they are moved right by
/// the indentation `old` lacked) or at the file's columns (left as they are). The later lines decide:
/// - none indented deeper than the first line: they can only be meant relative to it (at column 0
///   under an indented line they would leave its block): moved;
/// - left as they are, they would not be well-formed: the first line opens a block (`:`, `{`, `(`,
///   `[`) and the next line would not sit deeper than it, or a line would dedent to a column that
///   no line enclosing the match has: only the moved reading is; moved;
/// - else both readings are well-formed and put the later lines at different depths (a Makefile
///   recipe line followed by a new `clean:` rule and its `\trm` recipe reads as a rule at the
///   file's columns and as two recipe lines moved): refused ([`IndentMiss::MoveAmbiguous`]).
///
/// A move is a re-indentation, reported as the indentation tolerance, so only when `moves` (not
/// under `tolerance: "exact"`).
///
/// A one-line `old` that covers its line's text from after the indentation to the end, replaced by
/// a `new` whose first line is indented at a width other than the line's, reads both at the file's
/// columns (its own indentation) and like `old` (moved right by the indentation `old` lacked):
/// refused ([`IndentMiss::FrameUndecided`]) when moves are allowed (issue #25 G12: in a YAML file the
/// substring replacement wrote `    size: ready` under `  ` where the model meant column 4).
pub(super) fn absorb_indent(
    text: &str,
    start: usize,
    old: &str,
    new: &str,
    moves: bool,
) -> Result<Option<Absorbed>, IndentMiss> {
    let ls = memchr::memrchr2(b'\n', b'\r', &text.as_bytes()[..start]).map_or(0, |p| p + 1);
    let prefix = &text[ls..start];
    if prefix.is_empty() || !prefix.chars().all(is_indent) {
        return Ok(None);
    }
    let first = new.split(['\n', '\r']).next().unwrap_or("");
    let ind = indent_of(first);
    let one_line_old = !old.trim_end_matches(['\n', '\r']).contains(['\n', '\r']);
    let later: Vec<&str> = new
        .trim_end_matches(['\n', '\r'])
        .split(['\n', '\r'])
        .skip(1)
        .filter(|l| !is_blank(l))
        .collect();
    if moves && one_line_old && !later.is_empty() && ind == indent_of(old) && !is_blank(first) {
        const TAB: usize = 4;
        let c0 = columns(ind, TAB);
        let relative_only = later.iter().all(|l| columns(indent_of(l), TAB) <= c0);
        let here = columns(prefix, TAB) + c0;
        let outer = enclosing_columns(&text[..ls], TAB);
        let at_file_ill_formed = (opens(first) && columns(indent_of(later[0]), TAB) <= here)
            || later.iter().any(|l| {
                let c = columns(indent_of(l), TAB);
                c < here && !outer.contains(&c)
            });
        if !relative_only && !at_file_ill_formed {
            return Err(IndentMiss::MoveAmbiguous);
        }
        return Ok(Some((
            ls,
            format!("{prefix}{old}"),
            indent_lines(new, prefix),
            true,
        )));
    }
    // `old` runs from after its line's indentation over the line's text and past its end, and `new`
    // starts with an empty line: the line becomes that empty line, so its indentation goes with
    // `old` (left, it would stay as a whitespace-only line, or indent the line after it when `new`
    // is empty). An `old` that starts with a line break leaves the line's text alone: not taken.
    let old_first = old.split(['\n', '\r']).next().unwrap_or("");
    if first.is_empty() && old.contains(['\n', '\r']) && !is_blank(old_first) {
        // The lines of `new` with text, when every one sits at column 0 like `old`'s first line as
        // sent, are in the frame that copy was written in: they take the indentation it left out
        // (a recipe line moved below a blank line keeps its tab). Indented ones are left as sent.
        // Not when `old` has text on a later line: that line matched as sent, at the file's
        // columns, so `new` is in the file's frame (ground truth seed 38 case 479005: `}` then
        // `impl Delta {` at column 0, the `}` matched after a method's indentation, and `new`'s
        // `impl Delta {` went four columns right).
        let mut texts = new.split(['\n', '\r']).filter(|l| !is_blank(l)).peekable();
        let relative = texts.peek().is_some() && texts.all(|l| indent_of(l).is_empty());
        let later_text = old.split(['\n', '\r']).skip(1).any(|l| !is_blank(l));
        if moves && relative && !later_text {
            return Ok(Some((
                ls,
                format!("{prefix}{old}"),
                indent_lines(new, prefix),
                true,
            )));
        }
        return Ok(Some((ls, format!("{prefix}{old}"), new.to_string(), false)));
    }
    if old.starts_with(is_indent) || ind.is_empty() || is_blank(first) {
        return Ok(None);
    }
    if ![4, 8]
        .iter()
        .any(|&t| columns(ind, t) == columns(prefix, t))
    {
        // A one-line `old` that runs from after its line's indentation to the line's end, and a
        // `new` indented at another width: read at the file's columns, `new` stands at its own
        // indentation; read like `old` (copied at column 0 for the line's indentation), it moves
        // right by that indentation. Nothing sent tells which, and where indentation is syntax the
        // two are different blocks: refused, naming both columns.
        let rest = &text[start..];
        let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let whole = old.trim_end_matches(['\n', '\r']).trim_end() == rest[..line_end].trim_end();
        if moves && one_line_old && whole {
            const TAB: usize = 4;
            return Err(IndentMiss::FrameUndecided {
                line: 1,
                shifted: columns(prefix, TAB) + columns(ind, TAB),
                written: columns(ind, TAB),
                place: "a match begun after its line's indentation",
            });
        }
        return Ok(None);
    }
    // `new`'s first line stands at the line's indentation (the file's columns), and a later line
    // repeats `old` as sent, at column 0: that line is the one `old` names, kept, and sits at its
    // indentation too (left at column 0 it would move out of its block). Another later line reads
    // in either frame: refused.
    let old_text = old.trim_end_matches(['\n', '\r']).trim_end();
    let copies_old = |l: &str| l.trim_end() == old_text;
    if moves && one_line_old && later.iter().any(|l| copies_old(l)) {
        let other = crate::edit::text::split_lines(new)
            .into_iter()
            .enumerate()
            .skip(1)
            .find(|(_, l)| !is_blank(l) && !copies_old(l));
        if let Some((at, l)) = other {
            const TAB: usize = 4;
            let written = columns(indent_of(l), TAB);
            return Err(IndentMiss::FrameUndecided {
                line: at + 1,
                shifted: columns(prefix, TAB) + written,
                written,
                place: "a match begun after its line's indentation",
            });
        }
        let (head, tail) = new.split_at(new.find(['\n', '\r']).unwrap_or(new.len()));
        return Ok(Some((
            ls,
            format!("{prefix}{old}"),
            format!(
                "{prefix}{}{}",
                &head[ind.len()..],
                indent_lines(tail, prefix)
            ),
            true,
        )));
    }
    Ok(Some((
        ls,
        format!("{prefix}{old}"),
        format!("{prefix}{}", &new[ind.len()..]),
        false,
    )))
}

/// `text` with `prefix` before each of its lines that holds more than whitespace.
fn indent_lines(text: &str, prefix: &str) -> String {
    let mut shifted = String::with_capacity(text.len() + 8 * prefix.len());
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).map_or(rest.len(), |i| {
            i + if rest[i..].starts_with("\r\n") { 2 } else { 1 }
        });
        let line = &rest[..end];
        if !is_blank(line) {
            shifted.push_str(prefix);
        }
        shifted.push_str(line);
        rest = &rest[end..];
    }
    shifted
}

/// Builds the replacement for a line-tier match. `Err` when the match needs re-indenting and its
/// drift is not uniform, or the two readings of a run's columns disagree (see [`Frame::Conflict`]).
///
/// The lines of `new` are paired with those of `old` by a line diff; where two alignments are as
/// good as each other ([`better_alignment`]) at a tier that re-indents (`indentation` and looser),
/// both are written, and when they give different bytes
/// (which of two equal `}` lines keeps its file line's indentation, a line's trailing whitespace or
/// break) the edit is refused ([`IndentMiss::PairingUndecided`]): nothing the model sent tells
/// which line it kept. When the other pairing is refused (its frames disagree), so is the edit.
pub(super) fn rebuild(
    h: &Haystack,
    start: usize,
    end: usize,
    old: &[&str],
    new: &[&str],
    tier: Tier,
    kept: Option<&[Option<usize>]>,
) -> Result<String, IndentMiss> {
    let align = Align {
        other: false,
        tied: Cell::new(false),
    };
    let first = rebuild_aligned(h, (start, end), old, new, tier, kept, &align)?;
    // Only where the rebuild re-indents: below, a tie moves only bytes no view shows, and the rules
    // for those (a moved line keeps its break, trailing whitespace stays on its line) settle it.
    if !align.tied.get() || tier < Tier::Indentation {
        return Ok(first);
    }
    let other = Align {
        other: true,
        tied: Cell::new(false),
    };
    match rebuild_aligned(h, (start, end), old, new, tier, kept, &other) {
        Ok(second) if second != first => {
            let line = first
                .split_inclusive('\n')
                .zip(second.split_inclusive('\n'))
                .take_while(|(a, b)| a == b)
                .count()
                + 1;
            Err(IndentMiss::PairingUndecided { line })
        }
        Ok(_) => Ok(first),
        // The other pairing, as good, is refused (its frames disagree): so is the edit.
        Err(why) => Err(why),
    }
}

fn rebuild_aligned(
    h: &Haystack,
    (start, end): (usize, usize),
    old: &[&str],
    new: &[&str],
    tier: Tier,
    kept: Option<&[Option<usize>]>,
    align: &Align,
) -> Result<String, IndentMiss> {
    let text = h.text;
    let lines = h.lines();
    let i = lines.index_of(start);
    let k = old.len() - 1;
    let seg = |j: usize| -> &str {
        if k == 0 {
            &text[start..end]
        } else if j == 0 {
            &text[start..lines.content_end(i)]
        } else if j == k {
            &text[lines.start(i + k)..end]
        } else {
            lines.content(i + j, text)
        }
    };
    let aligned = start == lines.start(i);
    let term = text::first_terminator(&text[start..end]).unwrap_or_else(|| file_terminator(h));
    let full_old = |j: usize| (j > 0 || aligned) && !(j == k && old[j].is_empty());
    let full_new = |jn: usize| (jn > 0 || aligned) && !(jn == new.len() - 1 && new[jn].is_empty());

    let reindent = if tier >= Tier::Indentation {
        Some(drift(h, i, old, &seg, &full_old).ok_or(IndentMiss::Uneven)?)
    } else {
        None
    };
    let tmap = reindent.and_then(|_| textual_drift(h, i, old, &seg, &full_old));

    let fix = Fixer::new(&text[start..end], old, tier);
    let budget = Cell::new(CHAR_DIFF_BUDGET);

    // Pair the lines of new with lines of old.
    let ko: Vec<&str> = old.iter().map(|l| key(l)).collect();
    let kn: Vec<&str> = new.iter().map(|l| key(l)).collect();
    let mut partner: Vec<Option<usize>> = vec![None; new.len()];
    // The first line of a replacing run that pairs with no old line: the old line it stands for (the
    // first the run replaces) and the number of lines the run replaces, for the frame's tie-break
    // only.
    let mut stands_for: Vec<Option<(usize, usize)>> = vec![None; new.len()];
    // The old line before which each new line sits (its op's first old line).
    let mut at_old = vec![0usize; new.len()];
    // For each line of a run that replaces a different number of lines: the lines it replaces.
    let mut uneven_run: Vec<Option<(usize, usize)>> = vec![None; new.len()];
    // For each line of a replacing run: the lines the run replaces.
    let mut replacing: Vec<Option<(usize, usize)>> = vec![None; new.len()];
    let ops = kept
        .and_then(|k| marked_ops(k, old, new, &ko, &kn, align))
        .unwrap_or_else(|| line_ops(old, new, &ko, &kn, align));
    for op in ops {
        use similar::DiffOp::*;
        match op {
            Equal {
                old_index,
                new_index,
                len,
            } => {
                for x in 0..len {
                    partner[new_index + x] = Some(old_index + x);
                    at_old[new_index + x] = old_index + x;
                }
            }
            Delete { .. } => {}
            Insert {
                old_index,
                new_index,
                new_len,
            } => {
                for x in 0..new_len {
                    at_old[new_index + x] = old_index;
                }
            }
            Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for x in 0..new_len {
                    at_old[new_index + x] = old_index;
                    replacing[new_index + x] = Some((old_index, old_len));
                    if old_len != new_len {
                        uneven_run[new_index + x] = Some((old_index, old_len));
                    }
                }
                let pairs = pair_lines(
                    &ko[old_index..old_index + old_len],
                    &kn[new_index..new_index + new_len],
                );
                if pairs.first().is_none_or(|&(a, b)| a > 0 || b > 0) {
                    stands_for[new_index] = Some((old_index, old_len));
                }
                for (a, b) in pairs {
                    partner[new_index + b] = Some(old_index + a);
                }
            }
        }
    }
    let unchanged = |jn: usize| partner[jn].is_some_and(|j| new[jn] == old[j]);
    let mut paired = vec![false; old.len()];
    for j in partner.iter().flatten() {
        paired[*j] = true;
    }
    // Old lines paired with a new line that is that line edited (alike, or one word changed or
    // added), not by position alone.
    let paired_alike = |j: usize| {
        (0..new.len()).any(|x| {
            partner[x] == Some(j)
                && (resembles(ko[j], kn[x])
                    || one_word_changed(ko[j], kn[x])
                    || one_word_added(ko[j], kn[x]))
        })
    };
    // Lines of `new` that repeat a whole line of `old` as it is (at old's columns): `new` is written
    // in the model's own frame there, whatever its changed lines do.
    let repeats_old = (0..new.len()).any(|jn| {
        unchanged(jn) && full_new(jn) && !is_blank(new[jn]) && partner[jn].is_some_and(full_old)
    });

    // A new line standing for the lines its run replaces (the first, and those no other new line
    // pairs with) whose columns tell both frames: at one such line's old columns and at another's
    // file columns (`- item` and `env:` replaced by one key), it is either line's successor.
    // The same for a line paired with an old line it does not resemble (a pairing by position only,
    // `naïve:` for `- "8089:80"` while `env:` is replaced too), or with one it changes while its run
    // replaces more lines than it writes (`error:` for `worker:` while `image:` and `ports:` go
    // too: ground truth seed 42 case 925662): every line the run replaces counts.
    let torn = |x: usize| -> bool {
        let Some(r) = reindent else {
            return false;
        };
        let (first, len, all) = match (stands_for[x], partner[x], replacing[x]) {
            (Some((first, len)), None, _) => (first, len, false),
            (_, Some(j), Some((first, len)))
                if len > 1
                    && (!resembles(ko[j], kn[x])
                        || ko[j] != kn[x]
                            && (0..new.len())
                                .filter(|&y| replacing[y] == Some((first, len)))
                                .count()
                                < len) =>
            {
                (first, len, true)
            }
            _ => return false,
        };
        let cols = |l: &str| columns(indent_of(l), r.tab);
        let nc = cols(new[x]);
        let (mut at_old, mut at_file) = (false, false);
        let candidates = (first..first + len).filter(|&j| all || j == first || !paired[j]);
        for j in candidates.filter(|&j| full_old(j) && !is_blank(old[j])) {
            let (oc, fc) = (cols(old[j]), cols(seg(j)));
            at_old |= nc == oc && nc != fc;
            at_file |= nc == fc && nc != oc;
        }
        at_old && at_file
    };
    let mut pieces: Vec<Cow<str>> = Vec::with_capacity(new.len());
    // The line break after each piece: a file line kept or changed keeps its own (a file with mixed
    // line endings keeps them); a line written anew takes the span's.
    let mut breaks: Vec<Option<&str>> = Vec::with_capacity(new.len());
    let own_break = |j: usize| -> Option<&str> {
        let l = i + j;
        (l < lines.len())
            .then(|| &text[lines.content_end(l)..lines.end(l)])
            .filter(|t| !t.is_empty())
    };
    // The runs of changed lines [a, b), each with the file lines around it and the frame it reads in
    // (and what tells its frame).
    let mut runs: Vec<(usize, usize, Run, Evidence)> = Vec::new();
    // Where `- ` starts a list item whose lines continue at its text's column: a YAML file, or a
    // block embedded in a file (a heredoc, a raw string), only looked for under a drift.
    let yaml_items = h.layout == Layout::Significant(layout::YAML)
        || (h.layout == Layout::Free
            && reindent.is_some_and(|r| r.delta != 0)
            && layout::embedded_at(h, i).is_some());
    let mut jn = 0;
    while jn < new.len() {
        if unchanged(jn) {
            jn += 1;
            continue;
        }
        // A run of changed lines [a, b).
        let a = jn;
        let mut b = a;
        while b < new.len() && !unchanged(b) {
            b += 1;
        }
        // The file lines around the run.
        let prev = {
            let j = at_old[a];
            let from = if j > 0 {
                Some(i + j - 1)
            } else {
                i.checked_sub(1)
            };
            from.and_then(|f| nonblank_line(h, f, false))
        };
        let next = {
            let from = if b < new.len() {
                i + partner[b].unwrap()
            } else if old[k].is_empty() {
                i + k
            } else {
                i + k + 1
            };
            nonblank_line(h, from, true)
        };
        // The file lines the run rewrites.
        let end_old = if b < new.len() {
            partner[b].unwrap()
        } else {
            old.len()
        };
        // Their indentation by width (the first line of each width), for the lines written anew.
        let mut replaced = HashMap::new();
        if let Some(r) = reindent {
            for j in (at_old[a]..end_old).filter(|&j| full_old(j)) {
                let l = lines.content(i + j, text);
                if !is_blank(l) {
                    let ind = indent_of(l);
                    replaced.entry(columns(ind, r.tab)).or_insert(ind);
                }
            }
        }
        let ctx = Run {
            prev,
            next,
            replaced,
            reindent,
            textual: tmap.as_ref().map(|(a, b)| (a.as_str(), b.as_str())),
            at_file: false,
            make: h.layout == Layout::Significant(layout::MAKEFILE),
            empty_ok: matches!(
                h.layout,
                Layout::Significant(place) if place == layout::MAKEFILE || place == layout::YAML
            ),
            items: yaml_items,
        };
        // A line standing for the lines its run replaces (the first, and those no other new line
        // pairs with) tells a frame by whichever of them it sits at, old's columns or the file's
        // (`fin:` written at the file's column of the `cron:` it replaces, not of the first line:
        // seed 33 case 346220); at both, `torn` says so.
        let pair_of = |x: usize| -> Option<(&str, &str)> {
            let usable = |j: &usize| full_old(*j) && !is_blank(old[*j]);
            if let Some(j) = partner[x] {
                return Some(j).filter(usable).map(|j| (old[j], seg(j)));
            }
            let (first, len) = stands_for[x]?;
            let tab = reindent.map_or(4, |r| r.tab);
            let nc = columns(indent_of(new[x]), tab);
            let cols = |l: &str| columns(indent_of(l), tab);
            (first..first + len)
                .filter(|j| (*j == first || !paired[*j]) && usable(j))
                .find(|&j| nc == cols(old[j]) || nc == cols(seg(j)))
                .or(Some(first).filter(usable))
                .map(|j| (old[j], seg(j)))
        };
        let ev = ctx.frame(new, (a, b), &full_new, (&pair_of, &torn), repeats_old);
        runs.push((a, b, ctx, ev));
        jn = b;
    }
    // One frame per match: a run the neighbouring lines place in one frame places every run whose
    // own evidence is only a tie-break, a conflicting one included (`new` is written in one frame,
    // not a different one per run); runs placed in different frames by their neighbours are
    // refused.
    let decided: Vec<Frame> = runs.iter().filter_map(|r| r.3.neighbours).collect();
    let mut one = match decided.first() {
        Some(&f) if decided.iter().all(|&g| g == f) => Some(f),
        Some(_) => return Err(IndentMiss::FramesDisagree),
        None => None,
    };
    // Where indentation is syntax (the file's kind, or a block embedded in it), a frame is a line's
    // block: taken only when every piece of evidence of every run agrees on it. Neighbours and
    // paired lines that disagree are refused; with no evidence at all, the readings are refused
    // when they write a line at different columns (issue #25 §1: no block membership by a guess).
    let strict = reindent
        .filter(|r| r.delta != 0)
        .and_then(|_| match h.layout {
            Layout::Significant(place) => Some(place),
            Layout::Free => (i..=i + k).find_map(|l| layout::embedded_at(h, l)),
        });
    if let Some(place) = strict {
        // Changed lines at their file lines' columns beside copies at old's (`Conflict`) read at
        // the file's columns when the neighbouring lines place them there too.
        let r = reindent.expect("a drift");
        // Lines of `new` repeating old's at old's columns where `old` sits deeper than the file:
        // a copy loses indentation (a view trimmed, a patch's dedented context, a selection from a
        // line's first character), and its added lines may then be at the file's columns; a copy
        // that gained indentation is at no file's columns, so `new`, repeating old there, is in the
        // model's frame. Evidence that places a run at the file's columns instead disagrees with
        // it: refused (ground truth seed 30 case 819951: a line added below a one-line `old`
        // shifted two columns right was written as sent, two columns off).
        let copied_deeper = repeats_old && r.delta < 0;
        let all: Vec<Frame> = runs
            .iter()
            .flat_map(|r| [r.3.neighbours, r.3.pairs])
            .flatten()
            .map(|f| match f {
                Frame::Conflict if one.is_some() && !copied_deeper => Frame::File,
                f => f,
            })
            .collect();
        // It only vetoes: with no other evidence, the readings are weighed as below (a copy
        // deeper than the file may be a view's artefact, the added lines written at the file's
        // columns).
        if copied_deeper && all.contains(&Frame::File) {
            return Err(IndentMiss::FramesDisagree);
        }
        // A line torn between two replaced lines of different depths: its columns tell nothing,
        // and unless the neighbouring lines decide the frame, its block is a guess.
        if let Some(miss) = runs
            .iter()
            .filter(|run| run.3.torn && one.is_none())
            .find_map(|&(a, b, _, _)| {
                readings_differ(new, a, b, &full_new, (&partner, &torn), old, r, place)
            })
        {
            return Err(miss);
        }
        match all.first() {
            Some(&f) if f != Frame::Conflict && all.iter().all(|&g| g == f) => one = Some(f),
            Some(_) => return Err(IndentMiss::FramesDisagree),
            None => {
                if let Some(miss) = runs.iter().find_map(|&(a, b, _, _)| {
                    readings_differ(new, a, b, &full_new, (&partner, &|_| false), old, r, place)
                }) {
                    return Err(miss);
                }
            }
        }
    }
    // One frame per match, told by paired lines: runs whose paired lines sit at old's columns in
    // one and at the file's in another are refused (`new` is not written in two frames); when
    // they agree, a run whose lines tell nothing is written in their frame too.
    if one.is_none() {
        let told: Vec<Frame> = runs.iter().filter_map(|r| r.3.pairs).collect();
        if told.windows(2).any(|w| w[0] != w[1]) {
            return Err(IndentMiss::FramesDisagree);
        }
        // A conflict alone is refused below, run by run.
        one = told.first().copied().filter(|&f| f != Frame::Conflict);
    }
    let mut jn = 0;
    let mut runs = runs.into_iter();
    while jn < new.len() {
        if unchanged(jn) {
            pieces.push(seg(partner[jn].unwrap()).into());
            breaks.push(own_break(partner[jn].unwrap()));
            jn += 1;
            continue;
        }
        let (a, b, mut ctx, ev) = runs.next().expect("a run per changed stretch");
        let frame = one.unwrap_or(ev.pairs.unwrap_or(Frame::Model));
        let file_frame = match frame {
            Frame::Model => false,
            Frame::File => true,
            Frame::Conflict => return Err(IndentMiss::FramesDisagree),
        };
        ctx.at_file = file_frame;
        for jn in a..b {
            let n = new[jn];
            let full = full_new(jn);
            let shift = match reindent {
                Some(r) if !file_frame => r.delta,
                _ => 0,
            };
            let tm = tmap
                .as_ref()
                .filter(|_| !file_frame)
                .map(|(a, b)| (a.as_str(), b.as_str()));
            // A blank old line carries nothing to keep: what replaces it is written like an added line.
            let piece = match partner[jn].filter(|&j| !is_blank(old[j]) && !is_blank(seg(j))) {
                Some(j) => {
                    let render = |j: usize| {
                        let (f, o, full) = (seg(j), old[j], full && full_old(j));
                        // In a run that replaces another number of lines, a line paired by
                        // likeness alone may as well be one the model added (G14).
                        let guessed = tier == Tier::InlineWhitespace
                            && uneven_run[jn].is_some()
                            && !one_word_changed(ko[j], kn[jn]);
                        let line = Line {
                            o,
                            f,
                            n,
                            full,
                            guessed,
                        };
                        render_pair(line, tier, (shift, tm), &ctx, &pieces, &fix, &budget)
                    };
                    let written = render(j);
                    // One line written for several whose spacing differs, each of them it with
                    // one word changed: which line's inline whitespace it keeps is a guess.
                    if tier == Tier::InlineWhitespace {
                        let (first, len) = uneven_run[jn].unwrap_or((j, 0));
                        let other = (first..first + len).find(|&j2| {
                            j2 != j
                                && full_old(j2)
                                && !is_blank(old[j2])
                                && one_word_changed(ko[j2], kn[jn])
                                && render(j2) != written
                        });
                        if other.is_some() {
                            return Err(IndentMiss::SpacingUndecided { line: jn + 1 });
                        }
                    }
                    written
                }
                None => {
                    // An added line with one word changed from exactly one line the match deletes
                    // is that line edited (a diff that kept an equal line between them): its
                    // inline runs are settled against that line's (G14).
                    // A line paired by position only with one it does not resemble (an equal
                    // count of lines replaced) is as good as unpaired (seed 33 case 155327).
                    let mut donors = (0..old.len()).filter(|&j| {
                        tier == Tier::InlineWhitespace
                            && !paired_alike(j)
                            && full_old(j)
                            && !is_blank(old[j])
                            && one_word_changed(ko[j], kn[jn])
                    });
                    let donor = match (donors.next(), donors.next()) {
                        (Some(j), None) => Some((ko[j], key(seg(j)))),
                        _ => None,
                    };
                    let runs = (donor, tier, &budget);
                    let written = render_added(n, full, (shift, tm), &ctx, &pieces, &fix, runs);
                    // Two lines of the run each one word changed from the same old line, one of
                    // them paired with it: which one edits that line (and keeps its inline
                    // whitespace) is a guess when the other would be written otherwise for it
                    // (ground truth seed 29 case 230936).
                    if tier == Tier::InlineWhitespace && uneven_run[jn].is_some() && donor.is_none()
                    {
                        let rival = (0..old.len()).find(|&j| {
                            paired[j]
                                && full_old(j)
                                && !is_blank(old[j])
                                && one_word_changed(ko[j], kn[jn])
                                && (0..new.len()).any(|x| {
                                    x != jn
                                        && partner[x] == Some(j)
                                        && new[x] != old[j]
                                        && one_word_changed(ko[j], kn[x])
                                })
                                && render_added(
                                    n,
                                    full,
                                    (shift, tm),
                                    &ctx,
                                    &pieces,
                                    &fix,
                                    (Some((ko[j], key(seg(j)))), tier, &budget),
                                ) != written
                        });
                        if rival.is_some() {
                            return Err(IndentMiss::SpacingUndecided { line: jn + 1 });
                        }
                    }
                    written
                }
            };
            pieces.push(piece.into());
            breaks.push(partner[jn].and_then(own_break));
        }
        jn = b;
    }
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len() + 2).sum());
    for (x, p) in pieces.iter().enumerate() {
        if x > 0 {
            out.push_str(breaks[x - 1].unwrap_or(term));
        }
        out.push_str(p);
    }
    Ok(out)
}

/// When the two frames of the run of new lines `[a, b)` write one of its lines at different columns:
/// the refusal naming that line and both readings (`place`: where indentation is syntax). A line
/// paired with an old line whose indentation the model left alone keeps its file line's in either
/// frame — unless it is `torn`, standing for replaced lines of different depths: then its partner
/// is only one of the lines it may succeed, and its columns may be the other's file columns (ground
/// truth seed 50 case 436894: `return result` written at the file's column of the `for` it
/// replaces, and at the copied column of that loop's `return count`, which it resembles; kept at
/// `return count`'s file columns it moved into the `if` above).
#[allow(clippy::too_many_arguments)]
fn readings_differ(
    new: &[&str],
    a: usize,
    b: usize,
    full_new: &dyn Fn(usize) -> bool,
    (partner, torn): (&[Option<usize>], &dyn Fn(usize) -> bool),
    old: &[&str],
    r: Drift,
    place: &'static str,
) -> Option<IndentMiss> {
    (a..b).find_map(|x| {
        let n = new[x];
        if !full_new(x) || is_blank(n) {
            return None;
        }
        if !torn(x)
            && partner[x].is_some_and(|j| !is_blank(old[j]) && indent_of(old[j]) == indent_of(n))
        {
            return None;
        }
        let written = columns(indent_of(n), r.tab);
        let shifted = (written as isize + r.delta).max(0) as usize;
        (shifted != written).then_some(IndentMiss::FrameUndecided {
            line: x + 1,
            shifted,
            written,
            place,
        })
    })
}

/// The line ops a patch hunk marks: each context line of `new` (`kept[jn]`, the line of `old` it
/// copies) equal to that line, the removed and added lines between two context lines diffed as
/// [`line_ops`] diffs (a line removed and added back unchanged pairs with itself). `None` when
/// the marks do not fit `old` and `new` as the match has them (a needle form that trimmed or
/// rewrote lines): they are then diffed whole.
fn marked_ops(
    kept: &[Option<usize>],
    old: &[&str],
    new: &[&str],
    ko: &[&str],
    kn: &[&str],
    align: &Align,
) -> Option<Vec<similar::DiffOp>> {
    use similar::DiffOp::*;
    let (lo, ln) = (old.len(), new.len());
    // Both sides of a hunk end with a line break: their empty last segments are the span's end.
    let span_end = lo > 1 && ln > 1 && old[lo - 1].is_empty() && new[ln - 1].is_empty();
    let (lo, ln) = match span_end && kept.len() + 1 == ln {
        true => (lo - 1, ln - 1),
        false => (lo, ln),
    };
    if kept.len() != ln {
        return None;
    }
    let pairs = marked_pairs(kept, &old[..lo], &new[..ln])?;
    let mut ops = diff_through(&pairs, (lo, ln), |o, n| {
        line_ops_of(&old[o.clone()], &new[n.clone()], &ko[o], &kn[n], align)
    });
    if (lo, ln) != (old.len(), new.len()) {
        ops.push(Equal {
            old_index: lo,
            new_index: ln,
            len: 1,
        });
    }
    Some(ops)
}

/// The line diff of `old` → `new`: lines equal as the model wrote them (but for trailing whitespace)
/// first, then, between those, lines equal but for their indentation (`ko`, `kn`). Both sides are in
/// the model's frame, so a line it kept at its columns pairs with itself and not with a line of
/// another depth that reads the same (`}` closing an inner block beside the `}` of the outer one).
///
/// When both end with a line break, their empty last segments are the span's end, not a line: they
/// pair with each other, never a blank line of `old` with the end of `new` (the blank line's
/// whitespace would be glued to the line after the span).
fn line_ops(
    old: &[&str],
    new: &[&str],
    ko: &[&str],
    kn: &[&str],
    align: &Align,
) -> Vec<similar::DiffOp> {
    let (lo, ln) = (old.len(), new.len());
    if lo > 1 && ln > 1 && old[lo - 1].is_empty() && new[ln - 1].is_empty() {
        let mut out = line_ops_of(
            &old[..lo - 1],
            &new[..ln - 1],
            &ko[..lo - 1],
            &kn[..ln - 1],
            align,
        );
        out.push(similar::DiffOp::Equal {
            old_index: lo - 1,
            new_index: ln - 1,
            len: 1,
        });
        return out;
    }
    line_ops_of(old, new, ko, kn, align)
}

fn line_ops_of(
    old: &[&str],
    new: &[&str],
    ko: &[&str],
    kn: &[&str],
    align: &Align,
) -> Vec<similar::DiffOp> {
    use similar::DiffOp::*;
    let mut budget = super::search::LINE_DIFF_STEPS;
    let wo: Vec<&str> = old.iter().map(|l| l.trim_end()).collect();
    let wn: Vec<&str> = new.iter().map(|l| l.trim_end()).collect();
    let mut out = Vec::new();
    let top = super::search::bounded_diff(&wo, &wn, &mut budget);
    let top = better_alignment(&wo, &wn, (ko, kn), top, &mut budget, align);
    for op in top {
        let (or, nr) = (op.old_range(), op.new_range());
        if matches!(op, Equal { .. }) || or.is_empty() || nr.is_empty() {
            out.push(op);
            continue;
        }
        for sub in super::search::bounded_diff(&ko[or.clone()], &kn[nr.clone()], &mut budget) {
            let (o, n) = (or.start, nr.start);
            out.push(offset(sub, o, n));
        }
    }
    out
}

/// The line diff `ops` of `wo` → `wn`, or the other alignment of as many equal lines when its runs
/// of changed lines pair better by position: a diff that keeps one of two lines it could keep
/// (`fi` moved below inserted lines, or `rm -f y.tmp9` kept in place) pairs the other with an
/// unrelated line, and a line's invisible bytes (its trailing whitespace, its break) go with the
/// pairing (seed 28, 674399: `rm -f y.tmp9 ` lost its space to `rm -f result.tmp`). The other
/// alignments are the two extreme ones ([`lcs_extremes`]); one is taken when more of its changed
/// lines resemble the line they replace ([`resembles`], on `ko` / `kn`), and when two that keep
/// different lines score the same, `align.tied` is set and `align.other` picks the second.
fn better_alignment(
    wo: &[&str],
    wn: &[&str],
    (ko, kn): (&[&str], &[&str]),
    ops: Vec<similar::DiffOp>,
    budget: &mut usize,
    align: &Align,
) -> Vec<similar::DiffOp> {
    use crate::edit::myers::diff_through;
    use similar::DiffOp::Equal;
    let (lo, ln) = (wo.len(), wn.len());
    if lo < 2 || ln < 2 {
        return ops;
    }
    let equal = |ops: &[similar::DiffOp]| -> usize {
        ops.iter()
            .map(|op| match *op {
                Equal { len, .. } => len,
                _ => 0,
            })
            .sum()
    };
    // Runs of changed lines paired by position: how many resemble the line they replace.
    let score = |ops: &[similar::DiffOp]| -> usize {
        let mut total = 0;
        let mut run: Option<(usize, usize, usize, usize)> = None;
        let mut close = |run: &mut Option<(usize, usize, usize, usize)>| {
            if let Some((o, ol, n, nl)) = run.take() {
                total += (0..ol.min(nl))
                    .filter(|&x| resembles(ko[o + x], kn[n + x]))
                    .count();
            }
        };
        for op in ops {
            if matches!(op, Equal { .. }) {
                close(&mut run);
                continue;
            }
            let (or, nr) = (op.old_range(), op.new_range());
            run = Some(match run {
                Some((o, ol, n, nl)) => (o, ol + or.len(), n, nl + nr.len()),
                None => (or.start, or.len(), nr.start, nr.len()),
            });
        }
        close(&mut run);
        total
    };
    let kept = |ops: &[similar::DiffOp]| -> Vec<(usize, usize)> {
        ops.iter()
            .flat_map(|op| match *op {
                Equal {
                    old_index,
                    new_index,
                    len,
                } => (0..len).map(|x| (old_index + x, new_index + x)).collect(),
                _ => Vec::new(),
            })
            .collect()
    };
    let Some([early, late]) = lcs_extremes(wo, wn) else {
        return ops;
    };
    let mut gap = |o: std::ops::Range<usize>, n: std::ops::Range<usize>| {
        super::search::bounded_diff(&wo[o], &wn[n], budget)
    };
    let early = diff_through(&early, (lo, ln), &mut gap);
    let late = diff_through(&late, (lo, ln), &mut gap);
    let n_equal = equal(&ops);
    let mut best: Vec<Vec<similar::DiffOp>> = Vec::new();
    let mut top = 0;
    for cand in [ops.clone(), early, late] {
        if equal(&cand) != n_equal {
            continue;
        }
        let sc = score(&cand);
        if sc > top || best.is_empty() {
            top = sc;
            best.clear();
        }
        if sc == top && !best.iter().any(|b| kept(b) == kept(&cand)) {
            best.push(cand);
        }
    }
    if best.is_empty() {
        return ops;
    }
    if best.len() > 1 {
        // As good as each other: the caller writes both and compares.
        align.tied.set(true);
        if align.other {
            return best.swap_remove(1);
        }
    }
    best.swap_remove(0)
}

/// The two extreme longest common subsequences of `a` and `b` as (old, new) index pairs: the one
/// that pairs each line as early as it can (deleting old lines before adding new ones) and the one
/// that pairs each as late; `None` past a size bound (the diff's own alignment stands).
fn lcs_extremes<'a>(a: &[&'a str], b: &[&'a str]) -> Option<[Vec<(usize, usize)>; 2]> {
    const MAX_CELLS: usize = 40_000;
    let (n, m) = (a.len(), b.len());
    if (n + 1).saturating_mul(m + 1) > MAX_CELLS {
        return None;
    }
    let early = earliest_lcs(a, b);
    // The latest pairing is the earliest one of the two texts read backwards.
    let backwards = |x: &[&'a str]| x.iter().rev().copied().collect::<Vec<_>>();
    let mut late = earliest_lcs(&backwards(a), &backwards(b));
    for p in &mut late {
        *p = (n - 1 - p.0, m - 1 - p.1);
    }
    late.reverse();
    Some([early, late])
}

/// A longest common subsequence of `a` and `b` that pairs each line as early as it can, taking
/// the next line of `a` out before the next of `b` when both keep the length.
fn earliest_lcs(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    // suf[i * w + j]: the LCS length of a[i..] and b[j..].
    let mut suf = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            suf[i * w + j] = if a[i] == b[j] {
                suf[(i + 1) * w + j + 1] + 1
            } else {
                suf[(i + 1) * w + j].max(suf[i * w + j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] && suf[i * w + j] == suf[(i + 1) * w + j + 1] + 1 {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if suf[(i + 1) * w + j] >= suf[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Which of two equally good line alignments [`better_alignment`] takes, and whether there was a
/// tie to take.
struct Align {
    /// Take the other alignment on a tie.
    other: bool,
    /// Some diff met a tie.
    tied: Cell<bool>,
}

/// How `old` drifted from the file at the indentation tiers: `None` when not uniformly.
#[derive(Clone, Copy)]
struct Drift {
    /// Columns of a tab.
    tab: usize,
    /// File columns minus the model's, per line.
    delta: isize,
    /// Whether the region indents with tabs.
    tabs: bool,
    /// Columns of one indentation level.
    unit: usize,
}

/// The indentation of each (file line, `old` line) pair that starts at a line start and holds text.
fn indent_pairs<'t, 'o>(
    h: &Haystack<'t>,
    i: usize,
    old: &[&'o str],
    seg: &dyn Fn(usize) -> &'t str,
    full_old: &dyn Fn(usize) -> bool,
) -> Vec<(&'t str, &'o str)> {
    let lines = h.lines();
    let k = old.len() - 1;
    let mut pairs = Vec::new();
    for (j, part) in old.iter().enumerate() {
        if full_old(j) && !is_blank(part) {
            let file_line = if k == 0 {
                seg(0)
            } else {
                lines.content(i + j, h.text)
            };
            pairs.push((indent_of(file_line), indent_of(part)));
        }
    }
    pairs
}

fn drift<'t>(
    h: &Haystack<'t>,
    i: usize,
    old: &[&str],
    seg: &dyn Fn(usize) -> &'t str,
    full_old: &dyn Fn(usize) -> bool,
) -> Option<Drift> {
    let pairs = indent_pairs(h, i, old, seg, full_old);
    let tabs = if pairs.iter().any(|(f, _)| f.contains('\t')) {
        true
    } else if pairs.iter().any(|(f, _)| f.contains(' ')) {
        false
    } else {
        neighbourhood_uses_tabs(h, i)
    };
    let unit = indent_unit(h, i);
    let uniform = |tab: usize| -> Option<isize> {
        let mut deltas = pairs
            .iter()
            .map(|(f, o)| columns(f, tab) as isize - columns(o, tab) as isize);
        let d = deltas.next().unwrap_or(0);
        deltas.all(|x| x == d).then_some(d)
    };
    // A model that wrote tabs for spaces (or the reverse) meant one tab per indentation unit: prefer
    // the width that makes the drift vanish, then the file's own unit. A region indented with tabs is
    // measured at the common display widths first (the unit of the space-indented lines around it says
    // nothing about its tabs; at a narrow width, alignment spaces after tabs would look deeper than
    // they are).
    // Tabs the model wrote in a region indented with spaces are one level each when the drift is
    // not zero: a wider tab that happens to give a uniform drift is two guesses at once (the width
    // and the shift), and fits the lines after another edit as well as before it.
    let converted = !tabs && pairs.iter().any(|(_, o)| o.contains('\t'));
    // Spaces the model wrote for a tab-indented region's tabs likewise: one tab is the model's own
    // unit of spaces (the widths its lines step by), and a drift that is uniform only at another
    // width is two guesses at once (ground truth seed 29 case 738940: a deletion retried, read with
    // a tab of 2, deleted a closing brace four columns left of the one the model wrote).
    let spaced: Vec<usize> = pairs
        .iter()
        .filter(|(_, o)| !o.is_empty())
        .map(|(_, o)| o.len())
        .collect();
    let spaces_for_tabs = tabs
        && pairs.len() >= 2
        && pairs.iter().all(|(_, o)| !o.contains('\t'))
        && !spaced.is_empty();
    let model_unit = [spaced.iter().fold(0, |g, &w| gcd(g, w))];
    let (zero, shifted) = if spaces_for_tabs {
        ([8, 4, unit, 2], &model_unit[..])
    } else if tabs {
        ([8, 4, unit, 2], &[8, 4, unit, 2][..])
    } else if converted {
        ([unit, 2, 4, 8], &[unit][..])
    } else {
        ([unit, 2, 4, 8], &[unit, 4, 8, 2][..])
    };
    let found = zero
        .iter()
        .find_map(|&t| (uniform(t) == Some(0)).then_some((t, 0)))
        .or_else(|| shifted.iter().find_map(|&t| uniform(t).map(|d| (t, d))));
    let (tab, delta) = found?;
    Some(Drift {
        tab,
        delta,
        tabs,
        unit: if tabs { tab } else { unit },
    })
}

fn gcd(a: usize, b: usize) -> usize {
    match b {
        0 => a,
        _ => gcd(b, a % b),
    }
}

/// The drift as text, when it is one: `(a, b)` such that every file line of the match reads `a + x`
/// where the model's `old` line reads `b + x` (the model added or dropped the same leading string on
/// every line: four spaces before a tab, a level it left out; or wrote one string for another: two
/// spaces for two tabs). See [`textual_indent`] for when a line the model writes as `b + y` stands in
/// the file as `a + y`.
fn textual_drift<'t>(
    h: &Haystack<'t>,
    i: usize,
    old: &[&str],
    seg: &dyn Fn(usize) -> &'t str,
    full_old: &dyn Fn(usize) -> bool,
) -> Option<(String, String)> {
    let pairs = indent_pairs(h, i, old, seg, full_old);
    let &(f0, o0) = pairs.first()?;
    let common = f0
        .bytes()
        .rev()
        .zip(o0.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&f0[..f0.len() - common], &o0[..o0.len() - common]);
    pairs
        .iter()
        .all(|(f, o)| {
            f.strip_prefix(a)
                .zip(o.strip_prefix(b))
                .is_some_and(|(x, y)| x == y)
        })
        .then(|| (a.to_string(), b.to_string()))
}

/// The indentation `ni` the model wrote, through the textual drift `tm`, when the drift decides it
/// byte for byte: `a + y` for `b + y`. Always when the model added or dropped a leading string (tabs
/// stay tabs, spaces stay spaces, whatever their columns); when it wrote one string for another (tabs
/// for spaces is a matter of columns, which the caller measures), only for a `y` made of tabs in a
/// region indented with tabs: the model's own tabs after its drifted text are levels of the file's
/// kind, which columns would misread (`  \t` under `  ` for `\t\t` is three tabs, not a tab stop
/// six columns on).
fn textual_indent(tm: Option<(&str, &str)>, ni: &str, tabs: bool) -> Option<String> {
    let (a, b) = tm?;
    let rest = ni.strip_prefix(b)?;
    let whole = a.is_empty() || b.is_empty();
    let own_tabs = tabs && !rest.is_empty() && rest.bytes().all(|c| c == b'\t');
    (whole || own_tabs).then(|| format!("{a}{rest}"))
}

/// The first non-blank line at or above (`down == false`) / at or below `from`, near it.
fn nonblank_line<'t>(h: &Haystack<'t>, from: usize, down: bool) -> Option<&'t str> {
    let lines = h.lines();
    for step in 0..NEIGHBOUR_REACH {
        let j = if down {
            from + step
        } else {
            from.checked_sub(step)?
        };
        if j >= lines.len() {
            return None;
        }
        let l = lines.content(j, h.text);
        if !is_blank(l) {
            return Some(l);
        }
    }
    None
}

/// A run of changed lines and the file lines around it.
struct Run<'t> {
    prev: Option<&'t str>,
    next: Option<&'t str>,
    /// Indentation of the file lines the run rewrites, by width.
    replaced: HashMap<usize, &'t str>,
    reindent: Option<Drift>,
    /// The drift as text (`textual_drift`): the file's leading text and the model's for it.
    textual: Option<(&'t str, &'t str)>,
    /// The run is written at the file's columns (its frame, once decided).
    at_file: bool,
    /// The file is a Makefile: a rule line opens its recipe.
    make: bool,
    /// The file's language lets a block be empty (a YAML key with no value, a rule with no recipe).
    empty_ok: bool,
    /// A line starting with `- ` is a list item whose own lines continue at its text's column
    /// (YAML, or a block embedded in the file).
    items: bool,
}

/// What tells a run's frame: the file lines around it (`None`: both frames fit them alike), and its
/// lines paired with old lines (`None`: none sits at either frame's columns; `Conflict`: they sit at
/// their file lines' columns while `new` repeats old's lines at old's columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Evidence {
    neighbours: Option<Frame>,
    pairs: Option<Frame>,
    /// The run's own lines tell both frames (a line stands for replaced lines of two depths, or its
    /// paired lines point both ways): only its neighbours can decide its block.
    torn: bool,
}

/// A new line's old line (paired, or the one it stands for) and that line's file text.
type PairOf<'f, 's> = &'f dyn Fn(usize) -> Option<(&'s str, &'s str)>;

/// Which columns a run of changed lines is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// The frame of the model's `old`: shifted by the drift.
    Model,
    /// Already the file's columns: written as they are.
    File,
    /// The evidence disagrees: `new` repeats lines of `old` at old's columns, and the run's changed
    /// lines sit at their file lines' columns; the two readings put them at different depths (in or
    /// out of a block), so neither is taken.
    Conflict,
}

impl Run<'_> {
    /// [`opens`], and in a Makefile a rule line (`target: prerequisites` at column 0), which its
    /// tab-indented recipe follows.
    fn opens(&self, line: &str) -> bool {
        opens(line) || (self.make && makefile_rule(line))
    }

    /// Whether `prefix` is foreign to the file lines around the run: the indented ones among them
    /// all indent with the character `prefix` does not. The region's character (`Drift::tabs`) is
    /// the whole neighbourhood's when the match's own file lines are not indented; a block embedded
    /// in the file (a YAML raw string in a tab-indented Go file) indents with its own character,
    /// which its lines around the run tell.
    fn local_foreign(&self, prefix: &str) -> bool {
        let mut indented = [self.prev, self.next]
            .into_iter()
            .flatten()
            .map(indent_of)
            .filter(|i| !i.is_empty())
            .peekable();
        indented.peek().is_some() && indented.all(|i| foreign(prefix, i.starts_with('\t')))
    }

    /// Whether the run of new lines `[a, b)` is already at the file's columns rather than in the
    /// frame of the model's `old` (which the drift shifts). The neighbouring file lines decide first
    /// (after an opening line the run sits one level deeper, or at the column of the body's first
    /// line when inserted before it; else at its neighbour's column or dedented). On a tie, the run's lines paired with old lines tell when they all sit at their file
    /// lines' columns (not old's) and no added line above them encloses them: the file's frame, unless other
    /// lines of `new` repeat old's lines at old's columns (`repeats_old`), which put `new` in the
    /// model's frame: then the readings conflict and the edit is refused. Else the model's frame.
    fn frame<'s>(
        &self,
        new: &[&str],
        (a, b): (usize, usize),
        full: &dyn Fn(usize) -> bool,
        (pairs, torn): (PairOf<'_, 's>, &dyn Fn(usize) -> bool),
        repeats_old: bool,
    ) -> Evidence {
        let none = Evidence {
            neighbours: None,
            pairs: None,
            torn: false,
        };
        let Some(r) = self.reindent else {
            return none;
        };
        if r.delta == 0 {
            return none;
        }
        let body: Vec<usize> = (a..b).filter(|&x| full(x) && !is_blank(new[x])).collect();
        let (Some(&first), Some(&last)) = (body.first(), body.last()) else {
            return none;
        };
        let cols = |l: &str| columns(indent_of(l), r.tab) as isize;
        let u = r.unit as isize;
        // A run of lines inserted between an opening line and the first line of its body, none of
        // them opening a block, is that line's sibling: the body's column is the line's.
        let flat = self.replaced.is_empty() && !body.iter().any(|&x| self.opens(new[x]));
        let body_col = match (self.prev, self.next) {
            (Some(p), Some(nx)) if self.opens(p) && flat && cols(nx) > cols(p) => cols(nx),
            (Some(p), _) => cols(p) + u,
            (None, _) => 0,
        };
        // Inserted between an opening line and the first line of its body, one level deeper is
        // also that line's column: a block embedded in the file (YAML in a shell heredoc) keeps its
        // own unit, which the file's around it (`Drift::unit`) may not be. A frame that fits either
        // fits (seed 27, 453150: read with the script's unit alone, the heredoc's lines went one
        // level too deep).
        let body_line = match (self.prev, self.next) {
            (Some(p), Some(nx))
                if self.replaced.is_empty() && self.opens(p) && cols(nx) > cols(p) =>
            {
                cols(nx)
            }
            _ => body_col,
        };
        // Where a block may be empty, an opening line whose whole body the run rewrites (the
        // lines it replaces start deeper than it, and end its body: the line after the run is not
        // deeper, or a line it replaces is not) may end with no body: when one reading puts the
        // run's first line in its body and the other beside it, the run is its body or its
        // sibling, and the opening line says nothing of which.
        let emptied = self.empty_ok
            && self.prev.is_some_and(|p| {
                let deeper = |shift: isize| cols(new[first]) + shift > cols(p);
                let ends_body = self.next.is_none_or(|nx| cols(nx) <= cols(p))
                    || self.replaced.keys().any(|&w| w as isize <= cols(p));
                self.opens(p)
                    && deeper(0) != deeper(r.delta)
                    && self.replaced.keys().any(|&w| w as isize > cols(p))
                    && ends_body
            });
        // A line that starts by closing a bracket right after an opening line ends the block that
        // line began, empty: it sits at the opener's column.
        let cost = |shift: isize| -> isize {
            let f = cols(new[first]) + shift;
            let l = cols(new[last]) + shift;
            let before = match self.prev {
                Some(_) if emptied => 0,
                // After an opening line, one level deeper (a closing line: at its column).
                Some(p) if self.opens(p) && closes(new[first]) => (f - cols(p)).abs(),
                Some(p) if self.opens(p) => (f - body_col).abs().min((f - body_line).abs()),
                // A list item's own next line at its text's column.
                Some(p) if self.items && item_text(p, r.tab) == Some(f) => 0,
                // Else at its column or dedented.
                Some(p) => (f - cols(p)).max(0),
                None => 0,
            };
            // A Makefile rule opens its recipe only at column 0: where the frame puts it.
            let opens_last = self.opens(new[last])
                || (self.make && l == 0 && makefile_rule(new[last].trim_start()));
            let after = match self.next {
                // After an opening line, one level deeper (a closing line: at its column); else at
                // its column or dedented.
                Some(nx) if opens_last && closes(nx) => (cols(nx) - l).abs(),
                Some(nx) if opens_last => (cols(nx) - l - u).abs(),
                Some(nx)
                    if self.items
                        && item_text(new[last], r.tab).is_some_and(|c| c + shift == cols(nx)) =>
                {
                    0
                }
                Some(nx) => (cols(nx) - l).max(0),
                None => 0,
            };
            before + after
        };
        let (file, model) = (cost(0), cost(r.delta));
        let neighbours = match file.cmp(&model) {
            std::cmp::Ordering::Less => Some(Frame::File),
            std::cmp::Ordering::Greater => Some(Frame::Model),
            std::cmp::Ordering::Equal => None,
        };
        // Lines indented with a character the region does not indent with (a tab in a file indented
        // with spaces, spaces before the tabs of a tab-indented one) are not written at the file's
        // columns (their width there is a guess): when `old` drifted by that same leading text and
        // every line of the run carries it, the run is in the model's frame, byte for byte.
        if let Some((_, b)) = self
            .textual
            .filter(|(a, b)| a.is_empty() && (foreign(b, r.tabs) || self.local_foreign(b)))
        {
            if body.iter().all(|&x| new[x].starts_with(b)) {
                return Evidence {
                    neighbours: Some(Frame::Model),
                    pairs: Some(Frame::Model),
                    torn: false,
                };
            }
        }
        // The lines paired with old lines tell, when they all sit at their file lines' columns (not
        // at their old lines') and no added line encloses them (`if c:` above lines re-indented into
        // it reads as the model's own frame); lines at their old lines' columns tell the model's.
        let (mut at_file, mut at_old, mut least) = (0, 0, isize::MAX);
        for &x in &body {
            if let Some((o, f)) = pairs(x) {
                let (nc, oc, fc) = (cols(new[x]), cols(o), cols(f));
                at_file += usize::from(nc == fc && nc != oc);
                at_old += usize::from(nc == oc && nc != fc);
                least = least.min(nc);
            }
        }
        // An added line encloses paired lines written below it at deeper columns; one shallower
        // than them but after them all closes nothing of theirs.
        let last_paired = body.iter().rev().find(|&&x| pairs(x).is_some());
        let encloses = body.iter().any(|&x| {
            pairs(x).is_none() && cols(new[x]) < least && last_paired.is_some_and(|&p| x < p)
        });
        let pairs = match at_file > 0 && at_old == 0 && !encloses {
            true if repeats_old => Some(Frame::Conflict),
            true => Some(Frame::File),
            // No line paired with an old line sits at either frame's columns: no evidence.
            false if at_file + at_old == 0 => None,
            false => Some(Frame::Model),
        };
        // The run's own lines point both ways: some at their file lines' columns and some at
        // their old lines', or at the file's columns below an added line that encloses them (a
        // block the model wrapped them in, or a key above lines already at the file's columns).
        let torn = body.iter().any(|&x| torn(x)) || (at_file > 0 && (at_old > 0 || encloses));
        Evidence {
            neighbours,
            pairs,
            torn,
        }
    }

    /// The leading whitespace for a line of `cols` columns: `own` (its file line's) when as wide,
    /// else an equally wide neighbour's (the line written before it, the file lines the run rewrites,
    /// the file lines around the run), else tabs for the levels and spaces for the rest (in a
    /// tab-indented region) or spaces.
    fn indent_for(&self, cols: usize, own: Option<&str>, written: &[Cow<str>]) -> String {
        let r = self.reindent.expect("re-indenting needs a drift");
        let width = |s: &str| columns(indent_of(s), r.tab);
        let last_written = written.iter().rev().find(|l| !is_blank(l)).map(|l| &**l);
        if let Some(c) = own.filter(|c| !is_blank(c) && width(c) == cols) {
            return indent_of(c).to_string();
        }
        // Tabs or spaces as the line above it in the result has them (the line written before it,
        // else the file line above the run): a block embedded in the file (a YAML raw string or a
        // heredoc in a tab-indented file, a Markdown code block) keeps its own indentation
        // characters, which the region's may not be (YAML forbids tabs). A neighbour as wide but
        // indented with the other character is passed over.
        let local_tabs = last_written
            .or(self.prev)
            .map(indent_of)
            .filter(|i| !i.is_empty())
            .map(|i| i.starts_with('\t'));
        let fits = |ind: &str| match local_tabs {
            Some(true) => ind.is_empty() || ind.starts_with('\t'),
            Some(false) => !ind.contains('\t'),
            None => true,
        };
        if let Some(c) = last_written.filter(|c| width(c) == cols && fits(indent_of(c))) {
            return indent_of(c).to_string();
        }
        if let Some(ind) = self.replaced.get(&cols).filter(|i| fits(i)) {
            return ind.to_string();
        }
        for c in [self.next, self.prev].into_iter().flatten() {
            if width(c) == cols && fits(indent_of(c)) {
                return indent_of(c).to_string();
            }
        }
        render_indent(cols, local_tabs.unwrap_or(r.tabs), r.tab)
    }
}

/// A changed line `n` of `new` paired with its `old` line `o` and the file's line `f`; `full` when all
/// three start at a line start.
struct Line<'a> {
    o: &'a str,
    f: &'a str,
    n: &'a str,
    full: bool,
    /// The pairing is a guess (one of a run replacing another number of lines, by likeness alone):
    /// the line's inline whitespace is the model's, none of the old line's runs carried over.
    guessed: bool,
}

/// A changed line of `new` paired with a line of `old`.
fn render_pair(
    Line {
        o,
        f,
        n,
        full,
        guessed,
    }: Line,
    tier: Tier,
    (shift, tm): (isize, Option<(&str, &str)>),
    ctx: &Run,
    written: &[Cow<str>],
    fix: &Fixer,
    budget: &Cell<usize>,
) -> String {
    if is_blank(n) {
        return if ctx.reindent.is_some() && full {
            String::new()
        } else {
            fix.fix(n).into_owned()
        };
    }
    let (oi, fi, ni) = if full {
        (indent_of(o), indent_of(f), indent_of(n))
    } else {
        ("", "", "")
    };
    let (oc, ot) = split_trailing(&o[oi.len()..]);
    let (fc, ft) = split_trailing(&f[fi.len()..]);
    let (nc, nt) = split_trailing(&n[ni.len()..]);
    // Read at the file's columns, a line keeps its written columns even where they are its old
    // line's: the frame is the whole run's, so a line the model left at old's indentation moves
    // with its neighbours (kept at its file line's, it would stay while they move).
    let at_file = ctx.at_file && full && ni == oi && ctx.reindent.is_some_and(|r| r.delta != 0);
    let mut out = if at_file {
        let r = ctx.reindent.expect("a drift");
        ctx.indent_for(columns(ni, r.tab), Some(f), written)
    } else if !full || ni == oi {
        // The model left the indentation alone (or the line starts mid-line).
        fi.to_string()
    } else {
        match (
            ctx.reindent,
            ctx.reindent.and_then(|r| textual_indent(tm, ni, r.tabs)),
        ) {
            (Some(_), Some(t)) => t,
            (Some(r), None) => {
                let cols = (columns(ni, r.tab) as isize + shift).max(0) as usize;
                ctx.indent_for(cols, Some(f), written)
            }
            (None, _) => ni.to_string(),
        }
    };
    let kept = match guessed {
        true => None,
        false => transplant(oc, fc, nc, tier, fix, budget),
    };
    match kept {
        Some(c) => out.push_str(&c),
        None => out.push_str(&fix.fix(nc)),
    }
    out.push_str(if nt == ot { ft } else { nt });
    out
}

/// A line the model added.
fn render_added(
    n: &str,
    full: bool,
    (shift, tm): (isize, Option<(&str, &str)>),
    ctx: &Run,
    written: &[Cow<str>],
    fix: &Fixer,
    (donor, tier, budget): (Option<(&str, &str)>, Tier, &Cell<usize>),
) -> String {
    // The content, its inline runs settled against the line it edits when there is one.
    let content = |body: &str| -> String {
        let (nc, nt) = split_trailing(body);
        donor
            .and_then(|(oc, fc)| transplant(oc, fc, nc, tier, fix, budget))
            .map(|c| c + nt)
            .unwrap_or_else(|| fix.fix(body).into_owned())
    };
    match ctx.reindent {
        Some(r) if full => {
            if is_blank(n) {
                return String::new();
            }
            let ind = indent_of(n);
            let mut s = match textual_indent(tm, ind, r.tabs) {
                Some(t) => t,
                None => {
                    let cols = (columns(ind, r.tab) as isize + shift).max(0) as usize;
                    ctx.indent_for(cols, None, written)
                }
            };
            s.push_str(&content(&n[ind.len()..]));
            s
        }
        _ => fix.fix(n).into_owned(),
    }
}

/// The model's changed content `nc` with every stretch it kept from its old content `oc` copied from
/// the file's content `fc` (which equals `oc` under the tier's normalization). `None` when the
/// contents do not correspond or the result would not be the model's text under normalization.
fn transplant(
    oc: &str,
    fc: &str,
    nc: &str,
    tier: Tier,
    fix: &Fixer,
    budget: &Cell<usize>,
) -> Option<String> {
    // The normalization below drops a leading run of spaces that only fold to spaces (NBSP, U+2000
    // to U+200A, the ideographic space U+3000 that indents Japanese paragraphs, ...), so a stretch
    // kept from the file cannot carry them: they are settled first, as the indentation is. The
    // file's run where the model kept its old one, else the model's.
    let (ol, fl, nl) = (spaces_lead(oc), spaces_lead(fc), spaces_lead(nc));
    if ol + fl + nl > 0 {
        let mut out = if oc[..ol] == nc[..nl] {
            fc[..fl].to_string()
        } else {
            nc[..nl].to_string()
        };
        out.push_str(&transplant(
            &oc[ol..],
            &fc[fl..],
            &nc[nl..],
            tier,
            fix,
            budget,
        )?);
        return Some(out);
    }
    let t = tier.max(Tier::Indentation);
    let on = norm(oc, t);
    let fnorm = norm(fc, t);
    if on.text != fnorm.text {
        return None;
    }
    if oc == nc {
        return Some(fc.to_string());
    }
    let mut out = String::with_capacity(nc.len() + 8);
    let copy = |out: &mut String, a: usize, b: usize| {
        let fa = fnorm.to_orig(on.from_orig(a));
        let fb = fnorm.to_orig(on.from_orig(b));
        if fb > fa {
            out.push_str(&fc[fa..fb]);
        }
    };
    let stretches = char_diff(oc, nc, budget);
    // Runs of inline whitespace are settled whole (issue #25 G14): a run of `new` that is its old
    // line's run kept as it was takes the file's run (the alignment the model's copy collapsed)
    // when the words on both sides of it are kept, or when the line is its old line with one word
    // changed (`x = 39` -> `y = 39` over `x       = 39` keeps the column of `=`). Any other run is
    // the model's spacing: a run it wrote wider or narrower than its old one, or a space a
    // rewritten line happens to share with the line it replaces (`CC = gcc` -> `rm -f x`).
    let nruns = ws_runs(nc);
    let oruns = ws_runs(oc);
    let one_word = one_word_changed(oc, nc);
    let file_run = |r: &std::ops::Range<usize>| -> Option<std::ops::Range<usize>> {
        let (_, o, n) = stretches
            .iter()
            .find(|(k, _, n)| *k == Stretch::Kept && n.start <= r.start && r.end <= n.end)?;
        let ro = o.start + (r.start - n.start)..o.start + (r.end - n.start);
        if !oruns.contains(&ro) {
            return None;
        }
        let both = word_before(oc, ro.start) == word_before(nc, r.start)
            && word_after(oc, ro.end) == word_after(nc, r.end);
        (both || one_word).then_some(ro)
    };
    for (kind, o, n) in &stretches {
        let mut p = n.start;
        while p < n.end {
            if let Some(r) = nruns.iter().find(|r| r.contains(&p)) {
                if p == r.start {
                    match file_run(r) {
                        Some(ro) => copy(&mut out, ro.start, ro.end),
                        None => out.push_str(&nc[r.clone()]),
                    }
                }
                p = r.end.min(n.end);
                continue;
            }
            let q = nruns
                .iter()
                .map(|r| r.start)
                .find(|&s| s > p)
                .unwrap_or(n.end)
                .min(n.end);
            match kind {
                Stretch::Kept => copy(&mut out, o.start + (p - n.start), o.start + (q - n.start)),
                Stretch::Written => out.push_str(&fix.fix(&nc[p..q])),
            }
            p = q;
        }
    }
    if norm(&out, t).text == norm(nc, t).text {
        return Some(out);
    }
    // A kept stretch that ends inside a character the normalization composes (a combining accent
    // after `e`, where the model wrote `7` between them) copies the file's bytes across the edit.
    // The runs of inline whitespace alone are then settled as above, the rest is the model's text.
    let mut out = String::with_capacity(nc.len() + 8);
    let mut p = 0;
    for r in &nruns {
        out.push_str(&fix.fix(&nc[p..r.start]));
        match file_run(r) {
            Some(ro) => copy(&mut out, ro.start, ro.end),
            None => out.push_str(&nc[r.clone()]),
        }
        p = r.end;
    }
    out.push_str(&fix.fix(&nc[p..]));
    (norm(&out, t).text == norm(nc, t).text).then_some(out)
}

/// The maximal runs of spaces and tabs inside `s`, as byte ranges.
fn ws_runs(s: &str) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (x, c) in s.char_indices() {
        if is_indent(c) {
            match out.last_mut() {
                Some(r) if r.end == x => r.end = x + 1,
                _ => out.push(x..x + 1),
            }
        }
    }
    out
}

/// The word (text between spaces and tabs) that ends at byte `at` of `s`.
fn word_before(s: &str, at: usize) -> &str {
    let head = &s[..at];
    &head[head.rfind(is_indent).map_or(0, |x| x + 1)..]
}

/// The word that starts at byte `at` of `s`.
fn word_after(s: &str, at: usize) -> &str {
    let tail = &s[at..];
    &tail[..tail.find(is_indent).unwrap_or(tail.len())]
}

/// Whether `b` is `a` with exactly one of its words (split at spaces and tabs) changed: the same
/// line edited, not a line written anew.
fn one_word_changed(a: &str, b: &str) -> bool {
    let wa: Vec<&str> = a.split(is_indent).filter(|w| !w.is_empty()).collect();
    let wb: Vec<&str> = b.split(is_indent).filter(|w| !w.is_empty()).collect();
    wa.len() == wb.len() && wa.len() >= 2 && wa.iter().zip(&wb).filter(|(x, y)| x != y).count() == 1
}

/// Whether `b` is `a`'s words followed by one word more: the same line edited, not a line written
/// anew.
fn one_word_added(a: &str, b: &str) -> bool {
    let wa: Vec<&str> = a.split(is_indent).filter(|w| !w.is_empty()).collect();
    let wb: Vec<&str> = b.split(is_indent).filter(|w| !w.is_empty()).collect();
    !wa.is_empty() && wb.len() == wa.len() + 1 && wb.starts_with(&wa)
}

/// Length of the leading run of characters that fold to a space or a tab (what the indentation
/// tiers' normalization strips; `indent_of` takes only spaces and tabs).
fn spaces_lead(s: &str) -> usize {
    s.len()
        - s.trim_start_matches(|c| is_indent(normalize::fold_char(c)))
            .len()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stretch {
    /// The same in old and new.
    Kept,
    /// Written by the model (old's stretch, possibly empty, replaced by new's).
    Written,
}

/// A character diff of `a` → `b` as byte ranges: kept stretches and written ones, in order. The
/// changed middle (past the common prefix and suffix) is diffed while `budget` lasts.
fn char_diff(
    a: &str,
    b: &str,
    budget: &Cell<usize>,
) -> Vec<(Stretch, std::ops::Range<usize>, std::ops::Range<usize>)> {
    // Common prefix and suffix at character boundaries.
    let pre: usize = a
        .chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    let suf: usize = a[pre..]
        .chars()
        .rev()
        .zip(b[pre..].chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut out = Vec::new();
    if pre > 0 {
        out.push((Stretch::Kept, 0..pre, 0..pre));
    }
    let ac: Vec<(usize, char)> = am.char_indices().collect();
    let bc: Vec<(usize, char)> = bm.char_indices().collect();
    let work = ac.len() * bc.len();
    if ac.len() <= MAX_CHAR_DIFF && bc.len() <= MAX_CHAR_DIFF && work > 0 && work <= budget.get() {
        budget.set(budget.get() - work);
        let av: Vec<char> = ac.iter().map(|x| x.1).collect();
        let bv: Vec<char> = bc.iter().map(|x| x.1).collect();
        let ao = |x: usize| pre + ac.get(x).map_or(am.len(), |c| c.0);
        let bo = |x: usize| pre + bc.get(x).map_or(bm.len(), |c| c.0);
        let mut pending: Option<(usize, usize, usize, usize)> = None;
        let flush = |out: &mut Vec<_>, p: &mut Option<(usize, usize, usize, usize)>| {
            if let Some((a0, a1, b0, b1)) = p.take() {
                out.push((Stretch::Written, a0..a1, b0..b1));
            }
        };
        for op in crate::edit::myers::diff(&av, &bv) {
            let (or, nr) = (op.old_range(), op.new_range());
            let (ra, rb) = (ao(or.start)..ao(or.end), bo(nr.start)..bo(nr.end));
            if matches!(op, similar::DiffOp::Equal { .. }) {
                flush(&mut out, &mut pending);
                out.push((Stretch::Kept, ra, rb));
            } else {
                pending = Some(match pending {
                    Some((a0, _, b0, _)) => (a0, ra.end, b0, rb.end),
                    None => (ra.start, ra.end, rb.start, rb.end),
                });
            }
        }
        flush(&mut out, &mut pending);
    } else if !am.is_empty() || !bm.is_empty() {
        out.push((Stretch::Written, pre..a.len() - suf, pre..b.len() - suf));
    }
    if suf > 0 {
        out.push((
            Stretch::Kept,
            a.len() - suf..a.len(),
            b.len() - suf..b.len(),
        ));
    }
    out
}

/// Whether a new line reads as its old line edited: one word changed, or half its character
/// bigrams shared (the pairing's own threshold).
fn resembles(ko: &str, kn: &str) -> bool {
    one_word_changed(ko, kn) || dice(&bigrams(ko), &bigrams(kn), ko == kn) >= 0.5
}

/// A line's character bigrams (of its first 400 characters), sorted.
fn bigrams(s: &str) -> Vec<(char, char)> {
    let c: Vec<char> = s.chars().take(400).collect();
    let mut g: Vec<(char, char)> = c.windows(2).map(|w| (w[0], w[1])).collect();
    g.sort_unstable();
    g
}

/// Dice coefficient of two lines' sorted bigrams (`same`: the lines are equal, for lines too short
/// to have any).
fn dice(a: &[(char, char)], b: &[(char, char)], same: bool) -> f32 {
    if a.is_empty() || b.is_empty() {
        return if same { 1.0 } else { 0.0 };
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f32 / (a.len() + b.len()) as f32
}

/// Pairs the lines of a run of replaced old lines `ko` with the new lines `kn` that replace them: by
/// position when the counts agree, else the monotone pairing of most total similarity (pairs at least
/// half similar).
fn pair_lines(ko: &[&str], kn: &[&str]) -> Vec<(usize, usize)> {
    let (m, n) = (ko.len(), kn.len());
    let by_position = || (0..m).map(|x| (x, x)).collect::<Vec<_>>();
    if m == 0 || n == 0 || m * n > MAX_PAIR_SCORES {
        return if m == n { by_position() } else { Vec::new() };
    }
    let go: Vec<_> = ko.iter().map(|s| bigrams(s)).collect();
    let gn: Vec<_> = kn.iter().map(|s| bigrams(s)).collect();
    // Dice coefficient of character bigrams.
    let sim = |x: usize, y: usize| -> f32 { dice(&go[x], &gn[y], ko[x] == kn[y]) };
    // best[x][y]: most similarity pairing ko[..x] with kn[..y].
    let mut best = vec![vec![0f32; n + 1]; m + 1];
    // A line with one word changed is its old line edited, however short (`CC = gcc` ->
    // `CC = cc` shares few bigrams): it scores by the share of words kept.
    let score: Vec<Vec<f32>> = (0..m)
        .map(|x| {
            (0..n)
                .map(|y| {
                    let s = sim(x, y);
                    match one_word_changed(ko[x], kn[y]) {
                        true => {
                            let w = ko[x].split(is_indent).filter(|w| !w.is_empty()).count();
                            s.max(1.0 - 0.5 / w as f32)
                        }
                        // A line with one word added after its words is its old line edited too
                        // (a raw string's closing "`" given a suffix: no bigram to share).
                        false if one_word_added(ko[x], kn[y]) => s.max(0.5),
                        false => s,
                    }
                })
                .collect()
        })
        .collect();
    for x in 1..=m {
        for y in 1..=n {
            let mut v = best[x - 1][y].max(best[x][y - 1]);
            let s = score[x - 1][y - 1];
            if s >= 0.5 {
                v = v.max(best[x - 1][y - 1] + s);
            }
            best[x][y] = v;
        }
    }
    let mut out = Vec::new();
    let (mut x, mut y) = (m, n);
    while x > 0 && y > 0 {
        let s = score[x - 1][y - 1];
        if s >= 0.5 && best[x][y] == best[x - 1][y - 1] + s {
            out.push((x - 1, y - 1));
            x -= 1;
            y -= 1;
        } else if best[x][y] == best[x - 1][y] {
            x -= 1;
        } else {
            y -= 1;
        }
    }
    out.reverse();
    // Equal counts pair by position unless the lines plainly moved: the similarity pairing scores
    // more than the positional one (a run that deletes its first line and adds one at its end).
    if m == n {
        let positional: f32 = (0..m).map(|x| score[x][x]).filter(|&s| s >= 0.5).sum();
        if best[m][n] <= positional {
            return by_position();
        }
    }
    out
}

/// Folds, in text the model wrote, the typographic characters its `old` used where the file region
/// has none of them (a model that "smartened" quotes writes them into `new` too), and composes NFD
/// text to NFC when the file region is NFC and the model's `old` was not.
pub(super) struct Fixer {
    smartens: bool,
    compose: bool,
    region: String,
}

impl Fixer {
    pub(super) fn new(region: &str, old: &[&str], tier: Tier) -> Self {
        let mut smartens = false;
        let mut compose = false;
        if tier >= Tier::Typography {
            smartens = old
                .iter()
                .flat_map(|p| p.chars())
                .any(|c| !c.is_ascii() && normalize::fold_char(c) != c && !region.contains(c));
            compose = is_nfc(region) && old.iter().any(|p| !is_nfc(p));
        }
        Fixer {
            smartens,
            compose,
            region: if smartens {
                region.to_string()
            } else {
                String::new()
            },
        }
    }

    pub(super) fn fix<'x>(&self, line: &'x str) -> Cow<'x, str> {
        if line.is_ascii() || (!self.smartens && !self.compose) {
            return Cow::Borrowed(line);
        }
        let folded = line.chars().map(|c| {
            if self.smartens && !self.region.contains(c) {
                normalize::fold_char(c)
            } else {
                c
            }
        });
        if self.compose {
            Cow::Owned(folded.collect::<String>().nfc().collect())
        } else {
            Cow::Owned(folded.collect())
        }
    }
}

/// The indentation unit of the lines around `i`: the most common step between the indentation of
/// neighbouring lines, in columns (4 when nothing is indented).
fn indent_unit(h: &Haystack, i: usize) -> usize {
    let lines = h.lines();
    let lo = i.saturating_sub(100);
    let hi = (i + 100).min(lines.len());
    let mut counts = [0usize; 9];
    let mut prev: Option<usize> = None;
    for j in lo..hi {
        let l = lines.content(j, h.text);
        if is_blank(l) {
            continue;
        }
        let ind = indent_of(l);
        if ind.contains('\t') {
            prev = None;
            continue;
        }
        let c = ind.len();
        if let Some(p) = prev {
            let step = c.abs_diff(p);
            if (1..=8).contains(&step) {
                counts[step] += 1;
            }
        }
        prev = Some(c);
    }
    let best = (1..=8).max_by_key(|&s| (counts[s], s == 4)).unwrap_or(4);
    if counts[best] == 0 {
        4
    } else {
        best
    }
}

/// Whether the lines around `i` indent with tabs.
fn neighbourhood_uses_tabs(h: &Haystack, i: usize) -> bool {
    let lines = h.lines();
    let lo = i.saturating_sub(50);
    let hi = (i + 50).min(lines.len());
    let (mut tabs, mut spaces) = (0, 0);
    for j in lo..hi {
        match lines.content(j, h.text).as_bytes().first() {
            Some(b'\t') => tabs += 1,
            Some(b' ') => spaces += 1,
            _ => {}
        }
    }
    tabs > spaces
}

#[cfg(test)]
mod frame_tests {
    use super::*;

    #[test]
    fn lines_that_open_a_block() {
        for l in [
            "if a:",
            "f(",
            "    if [ -f x ]; then",
            "for f in *; do",
            "x = {",
        ] {
            assert!(opens(l), "{l}");
        }
        for l in ["# Returns:", "echo done", "then", "# a; then", "undo"] {
            assert!(!opens(l), "{l}");
        }
        for l in ["build: main.o", "%.o: %.c", ".PHONY: all"] {
            assert!(makefile_rule(l), "{l}");
        }
        for l in [
            "\tgcc -o app main.o",
            "CC := gcc",
            "X = a:b",
            "# all: x",
            "  a: b",
        ] {
            assert!(!makefile_rule(l), "{l}");
        }
    }
}
