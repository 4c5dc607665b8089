//! Which liberties a model's lines need to read as lines of the file, one by one: the evidence that
//! tells a retry at a near-twin from an edit that only makes a place like another.
//!
//! A retry of an edit whose first application landed at place B finds its old side only at a twin A
//! of B, and reads it there through the transcription noise the model's text has (N) and the
//! bytes in which the twin differs (D); its new side stands at B read through N alone. An edit
//! that makes A like an existing B reads its old side at A through N, and its new side at B through
//! N and whatever B's own spelling adds. So a new side that stands elsewhere read with *strictly
//! fewer* liberties than the old side needed where it matched is closer to the model's text than
//! the place it matched: that place is the twin, and the edit is already applied. Equal liberties
//! tell nothing (`robust-dev` tabs_spaces-007: an edit written with spaces makes a line like one
//! the file writes with tabs, and both sides read through the same indentation liberty).
//!
//! Line endings never count (a view shows none: which of two twins holds the CRLF line decides
//! nothing). Unicode normalization, which no view shows either, decides only beside a liberty a
//! view shows that already tells the places apart. An edit that copies context beside what it changes is judged more strictly: its whole
//! result standing elsewhere as a view shows it is already applied (see [`closer_elsewhere`]).

use unicode_normalization::UnicodeNormalization;

use crate::edit::matcher::normalize::fold_char;
use crate::edit::text::LineTable;

/// A line break other than the model's (CRLF for LF, or the reverse).
const EOL: u8 = 32;
/// Trailing whitespace.
const TRAILING: u8 = 1;
/// Curly quotes, dashes, Unicode spaces.
const TYPOGRAPHY: u8 = 2;
/// Leading spaces and tabs.
const INDENT: u8 = 4;
/// Runs of spaces and tabs inside a line.
const INLINE: u8 = 8;
/// Blank lines at the edges, left out.
pub const BLANK_EDGES: u8 = 16;
/// Unicode normalization (a composed `é` for a decomposed one): bytes no view shows.
const NORM: u8 = 64;

/// The liberties a view of the file shows.
const SHOWN: u8 = TYPOGRAPHY | INDENT | INLINE | BLANK_EDGES;

const LINE: [u8; 5] = [TRAILING, TYPOGRAPHY, INDENT, INLINE, NORM];

fn normal(line: &str, with: u8) -> String {
    let mut s: String = line.trim_end_matches('\r').to_string();
    if with & NORM != 0 && !s.is_ascii() {
        s = s.nfc().collect();
    }
    if with & TYPOGRAPHY != 0 && !s.is_ascii() {
        s = s.chars().map(fold_char).collect();
    }
    if with & INLINE != 0 {
        let lead = s.len() - s.trim_start_matches([' ', '\t']).len();
        let mut out = s[..lead].to_string();
        let mut run = false;
        for c in s[lead..].chars() {
            let blank = c == ' ' || c == '\t';
            if !(blank && run) {
                out.push(if blank { ' ' } else { c });
            }
            run = blank;
        }
        s = out;
    }
    if with & TRAILING != 0 {
        s.truncate(s.trim_end().len());
    }
    if with & INDENT != 0 {
        s = s.trim_start_matches([' ', '\t']).to_string();
    }
    s
}

/// The liberties a model's line (a CR at its end: sent with a CRLF break) needs to read as a
/// file's line (`cr`: its break is CRLF), `None` when it reads as another line.
fn line_liberties(model: &str, file: &str, cr: bool) -> Option<u8> {
    let (m, f) = (model.trim_end_matches('\r'), file.trim_end_matches('\r'));
    let eol = match (model.len() != m.len()) != cr {
        true => EOL,
        false => 0,
    };
    if m == f {
        return Some(eol);
    }
    let all = LINE.iter().fold(0, |a, b| a | b);
    if normal(m, all) != normal(f, all) {
        return None;
    }
    // A liberty is needed when the lines differ with every other one taken.
    Some(
        LINE.iter()
            .filter(|&&l| normal(m, all & !l) != normal(f, all & !l))
            .fold(eol, |a, b| a | b),
    )
}

/// The liberties `lines` need to read as the file's lines from 0-based line `from` on, one for one.
fn run_liberties(text: &str, lt: &LineTable, lines: &[&str], from: usize) -> Option<u8> {
    if lines.is_empty() || from + lines.len() > lt.len() {
        return None;
    }
    lines.iter().enumerate().try_fold(0, |a, (j, l)| {
        let i = from + j;
        let cr = lt.terminator(i, text).starts_with('\r');
        Some(a | line_liberties(l, lt.content(i, text), cr)?)
    })
}

/// The liberties `lines` need to read as the lines of `region` (its first and last may be parts
/// of lines: where a match starts or ends inside one), one for one.
fn region_liberties(lines: &[&str], region: &[&str]) -> Option<u8> {
    if lines.is_empty() || lines.len() != region.len() {
        return None;
    }
    lines.iter().zip(region).try_fold(0, |a, (l, f)| {
        let t = f.trim_end_matches('\r');
        Some(a | line_liberties(l, t, t.len() != f.len())?)
    })
}

/// `lines` without their blank lines at the edges, when they have some (and something is left).
fn without_blank_edges<'a>(lines: &'a [&'a str]) -> Option<&'a [&'a str]> {
    let blank = |l: &&&str| l.trim().is_empty();
    let lead = lines.iter().take_while(blank).count();
    let trail = lines[lead..].iter().rev().take_while(blank).count();
    (lead + trail > 0 && lead + trail < lines.len()).then(|| &lines[lead..lines.len() - trail])
}

/// The liberties the old side's `lines` need to read as `region`, the text it matched (its lines
/// split at `\n`, a final line break left out), without blank edge lines ([`BLANK_EDGES`]) when
/// only so they are as many: those of one edge, or of both (the tier trims the fewest that find a
/// place, so a match may keep a blank line at one edge and not at the other).
pub fn at_match(lines: &[&str], region: &str) -> Option<u8> {
    let region = region.strip_suffix('\n').unwrap_or(region);
    let region: Vec<&str> = region.split('\n').collect();
    if lines.len() == region.len() {
        return region_liberties(lines, &region);
    }
    let blank = |l: &&&str| l.trim().is_empty();
    let lead = lines.iter().take_while(blank).count();
    let trail = lines[lead..].iter().rev().take_while(blank).count();
    let cut = lines.len().checked_sub(region.len())?;
    (0..=lead.min(cut))
        .filter(|&l| cut - l <= trail)
        .find_map(|l| region_liberties(&lines[l..lines.len() - (cut - l)], &region))
        .map(|n| n | BLANK_EDGES)
}

/// Whether two of the model's lines are one line but for the liberties in `allowed` (and line
/// endings): a context line copied in one indentation frame and the same line written in another.
pub fn alike(a: &str, b: &str, allowed: u8) -> bool {
    let (a, b) = (a.trim_end_matches('\r'), b.trim_end_matches('\r'));
    line_liberties(a, b, false).is_some_and(|l| l & !(typographic(allowed) | EOL) == 0)
}

/// `allowed`, read as the matcher's Unicode tier reads text: typography and normalization
/// together, when either is in it.
fn typographic(allowed: u8) -> u8 {
    match allowed & (TYPOGRAPHY | NORM) {
        0 => allowed,
        _ => allowed | TYPOGRAPHY | NORM,
    }
}

/// Whether `lines` read as the file's lines from 1-based line `from` on with no liberty but those
/// in `allowed` (and line endings): the same reading the old side was read through.
pub fn reads_as(text: &str, lt: &LineTable, lines: &[&str], from: usize, allowed: u8) -> bool {
    from >= 1
        && run_liberties(text, lt, lines, from - 1)
            .is_some_and(|l| l & !(typographic(allowed) | EOL) == 0)
}

/// Where the new side's `lines` stand elsewhere (neither inside the lines `at` of the match nor
/// holding them) as the result of a first application: the 1-based lines of the first such place.
/// `old` is what the old side needed where it matched ([`at_match`]). A place counts when
///
/// - the new side reads there with strictly fewer liberties than `old` (line endings aside, and
///   indentation when the edit copies no context: a model that copied `old` without its
///   indentation may write `new` at the file's columns): it is closer to the model's text than the
///   place the old side matched; or so with normalization left aside, when what `old` needs more
///   is a liberty a view shows; or
/// - `kept` (the edit copies lines it keeps beside the lines it changes, its context) and the new
///   side reads there as sent, but for bytes a view does not show (line endings, trailing
///   whitespace, the normal form) and the typography the old side too was read through (quotes the model
///   smartened): the whole result, context included, already stands at a place a view shows as what
///   the edit would make of its match. Applying it would leave two such places, and no view tells
///   which one the edit made: a first application that meant to make a second copy widens its
///   context. Indentation is no such liberty: the same lines at another depth are another block
///   (code repeated at two nesting levels), and an edit may well make one like the other.
///
/// Without its blank edge lines when the old side too was read so.
pub fn closer_elsewhere(
    text: &str,
    lt: &LineTable,
    lines: &[&str],
    old: u8,
    at: (usize, usize),
    kept: bool,
) -> Option<(usize, usize)> {
    elsewhere(text, lt, lines, old, at, kept, kept)
}

/// [`closer_elsewhere`] for an edit that copies context, by the first reading only: strictly fewer
/// liberties. For a deletion of a block's first or last lines, whose new side is a run of lines
/// its old side already holds: the same lines standing elsewhere as a view shows them are lines
/// two places share (a twin block), not a result — unless the old side needed its indentation
/// forgiven where it matched (a liberty a view shows): then the lines as sent, standing elsewhere
/// but for bytes no view shows, are the model's text, and the place it matched is a twin it was not
/// written against (ground truth seed 27 case 200226: a Python method's last line deleted at the
/// end of the file, retried, matched a nested copy eight columns deeper).
pub fn strictly_closer_elsewhere(
    text: &str,
    lt: &LineTable,
    lines: &[&str],
    old: u8,
    at: (usize, usize),
) -> Option<(usize, usize)> {
    elsewhere(text, lt, lines, old, at, true, old & INDENT != 0)
}

fn elsewhere(
    text: &str,
    lt: &LineTable,
    lines: &[&str],
    old: u8,
    at: (usize, usize),
    kept: bool,
    as_shown: bool,
) -> Option<(usize, usize)> {
    // Without context, the indentation of `new` is no evidence: a model that copied `old` without
    // its indentation may write `new` at the file's columns (the absolute-columns reading).
    let unseen = match kept {
        true => EOL,
        false => EOL | INDENT,
    };
    let seen = old & !unseen;
    if seen == 0 {
        return None;
    }
    let mut forms: Vec<(&[&str], u8)> = vec![(lines, 0)];
    if old & BLANK_EDGES != 0 {
        if let Some(inner) = without_blank_edges(lines) {
            forms.push((inner, BLANK_EDGES));
        }
    }
    // A place holding the match counts when it has more lines (an insertion between the lines the
    // old side copies, retried at a near-twin of a copied line that the first application wrote).
    let clear = |(s, e): (usize, usize)| {
        !((at.0 <= s && e <= at.1) || (s <= at.0 && at.1 <= e && e - s <= at.1 - at.0))
    };
    let fewer = |a: u8, b: u8| a & !b == 0 && a != b;
    let counts = |l: u8| {
        // `new` needing indentation still counts against it.
        let l_seen = l & !EOL;
        fewer(l_seen, seen)
            // Or so with normalization left aside, which no view shows (a model cannot have meant
            // one normal form over the other), when what the old side needs more is a liberty a
            // view shows (ground truth seed 43 case 979690: a retried hunk, its result standing
            // where its numbers point but for a context line in the other normal form, its old
            // side found only four columns shallower). Against trailing whitespace alone, which
            // no view shows either, it tells nothing (seed 43 case 625269: lines deleted at the
            // top of a block, its kept lines standing at a twin in the other normal form).
            || (fewer(l_seen & !NORM, seen & !NORM) && seen & !l_seen & SHOWN != 0)
            || (as_shown && l & !(EOL | TRAILING | NORM | (old & TYPOGRAPHY)) == 0)
    };
    forms.into_iter().find_map(|(form, extra)| {
        let k = form.len();
        // Cheap first test: the first line read with every liberty.
        let all = LINE.iter().fold(0, |a, b| a | b);
        let first = normal(form.first()?, all);
        (0..(lt.len() + 1).saturating_sub(k))
            .filter(|&i| normal(lt.content(i, text), all) == first)
            .filter(|&i| clear((i + 1, i + k)))
            .find(|&i| run_liberties(text, lt, form, i).is_some_and(|l| counts(l | extra)))
            .map(|i| (i + 1, i + k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_needs_only_the_liberties_it_differs_by() {
        assert_eq!(line_liberties("  x = 1", "  x = 1", false), Some(0));
        assert_eq!(line_liberties("  x = 1\r", "  x = 1", true), Some(0));
        assert_eq!(line_liberties("  x = 1", "  x = 1", true), Some(EOL));
        assert_eq!(
            line_liberties("  x = 1", "  x = 1 \t", false),
            Some(TRAILING)
        );
        assert_eq!(line_liberties("x = 1", "    x = 1", false), Some(INDENT));
        assert_eq!(
            line_liberties("s = \u{201c}a\u{201d}", "\ts = \"a\" ", false),
            Some(TYPOGRAPHY | INDENT | TRAILING)
        );
        assert_eq!(line_liberties("x = 1", "x     = 1", false), Some(INLINE));
        // A composed `é` for a decomposed one is normalization, not typography.
        assert_eq!(
            line_liberties("p(\"caf\u{e9}\")", "p(\"cafe\u{301}\")", false),
            Some(NORM)
        );
        assert_eq!(
            line_liberties("p(\u{201c}caf\u{e9}\u{201d})", "p(\"cafe\u{301}\")", false),
            Some(TYPOGRAPHY | NORM)
        );
        assert_eq!(line_liberties("x = 1", "x = 2", false), None);
        assert_eq!(line_liberties("x = 1", "x=1", false), None);
    }

    #[test]
    fn a_new_side_counts_only_where_it_reads_with_strictly_fewer_liberties() {
        // Old side read at lines 4-5 through an indentation liberty; its new side stands exactly
        // at lines 1-2 (a retry at an indented twin) ...
        let text = "a()\nb()\n\n    a()\n    c()\n";
        let lt = LineTable::new(text);
        let old = at_match(&["a()", "c()"], "    a()\n    c()\n").unwrap();
        assert_eq!(old, INDENT);
        assert_eq!(
            closer_elsewhere(text, &lt, &["a()", "b()"], old, (4, 5), true),
            Some((1, 2))
        );
        // ... but not where it needs the same liberty (an edit making a line like another).
        let text = "    a()\n    b()\n\n    a()\n    c()\n";
        let lt = LineTable::new(text);
        assert_eq!(
            closer_elsewhere(text, &lt, &["a()", "b()"], old, (4, 5), true),
            None
        );
        // Without context, the indentation of `new` is no evidence (written at the file's columns).
        let text = "a()\nb()\n\n    a()\n    c()\n";
        let lt = LineTable::new(text);
        assert_eq!(
            closer_elsewhere(text, &lt, &["a()", "b()"], old, (4, 5), false),
            None
        );
        // ... while a `new` that needs indentation where it stands still counts against it (ground
        // truth seed 25 case 41613: old read through trailing whitespace, a like line at another
        // depth).
        let text = "    return y;\n      return offset; \n";
        let lt = LineTable::new(text);
        let old = at_match(&["      return offset;"], "      return offset; ").unwrap();
        assert_eq!(old, TRAILING);
        assert_eq!(
            closer_elsewhere(text, &lt, &["      return y;"], old, (2, 2), false),
            None
        );
        let text = "a()\nb()\n\n    a()\n    c()\n";
        let lt = LineTable::new(text);
        // Nothing is closer than an exact match.
        assert_eq!(
            closer_elsewhere(text, &lt, &["a()", "b()"], 0, (4, 5), true),
            None
        );
    }

    /// Normalization, which no view shows, decides only when a liberty a view shows already tells
    /// the places apart (ground truth seed 43 case 979690): a result standing but for a context
    /// line in the other normal form is closer than an old side read through indentation; against
    /// an old side read through trailing whitespace or normalization alone, the same result is no
    /// evidence (625269), and a result needing indentation too is none either.
    #[test]
    fn normalization_decides_only_beside_liberties_a_view_shows() {
        let (nfc, nfd) = ("    p(\"caf\u{e9}\")", "    p(\"cafe\u{301}\")");
        let new = [nfc, "    q()"];
        let text = format!("{nfd}\n    q()\n\n{}\n  r()\n", nfc.trim_start());
        let lt = LineTable::new(&text);
        let old = at_match(&[nfc, "    r()"], &format!("{}\n  r()\n", nfc.trim_start())).unwrap();
        assert_eq!(old, INDENT);
        assert_eq!(
            closer_elsewhere(&text, &lt, &new, old, (4, 5), true),
            Some((1, 2))
        );
        assert_eq!(
            closer_elsewhere(&text, &lt, &new, old, (4, 5), false),
            None,
            "without context, indentation is no evidence"
        );
        // Old read through trailing whitespace alone, which no view shows either: no evidence.
        let text = format!("{nfd}\n    q()\n\n{nfc}\n    r() \n");
        let lt = LineTable::new(&text);
        let old = at_match(&[nfc, "    r()"], &format!("{nfc}\n    r() \n")).unwrap();
        assert_eq!(old, TRAILING);
        assert_eq!(
            strictly_closer_elsewhere(&text, &lt, &new, old, (4, 5)),
            None
        );
        // Old read through normalization alone: equal liberties on what a view shows.
        let text = format!("{nfd}\n    q()\n\n{nfd}\n    r()\n");
        let lt = LineTable::new(&text);
        let old = at_match(&[nfc, "    r()"], &format!("{nfd}\n    r()\n")).unwrap();
        assert_eq!(old, NORM);
        assert_eq!(closer_elsewhere(&text, &lt, &new, old, (4, 5), false), None);
        // A result that needs indentation besides normalization, against an indented old side.
        let text = format!("  {nfd}\n      q()\n\n{}\n  r()\n", nfc.trim_start());
        let lt = LineTable::new(&text);
        let old = at_match(&[nfc, "    r()"], &format!("{}\n  r()\n", nfc.trim_start())).unwrap();
        assert_eq!(closer_elsewhere(&text, &lt, &new, old, (4, 5), true), None);
    }

    /// The blank_edges tier trims the fewest blank lines that find a place: a match may keep the
    /// blank line at one edge and not the other, and is read so.
    #[test]
    fn a_match_may_keep_one_blank_edge() {
        let lines = ["", "  a()", "  b()", ""];
        assert_eq!(at_match(&lines, "a()\nb()\n\n"), Some(INDENT | BLANK_EDGES));
        assert_eq!(at_match(&lines, "\na()\nb()\n"), Some(INDENT | BLANK_EDGES));
        assert_eq!(at_match(&lines, "a()\nb()\n"), Some(INDENT | BLANK_EDGES));
        assert_eq!(at_match(&lines, "a()\nc()\n\n"), None);
    }

    #[test]
    fn blank_edges_count_on_both_sides() {
        let text = "a()\nb()\nx\n\na()\nc()\n";
        let lt = LineTable::new(text);
        let old = at_match(&["", "a()", "c()"], "a()\nc()\n").unwrap();
        assert_eq!(old, BLANK_EDGES);
        // The new side needs the same liberty: no evidence.
        assert_eq!(
            closer_elsewhere(text, &lt, &["", "a()", "b()"], old, (5, 6), true),
            None
        );
        let text = "a()\nb()\nx\n\n  a()\n  c()\n";
        let lt = LineTable::new(text);
        let old = at_match(&["", "a()", "c()"], "  a()\n  c()\n").unwrap();
        assert_eq!(old, BLANK_EDGES | INDENT);
        assert_eq!(
            closer_elsewhere(text, &lt, &["", "a()", "b()"], old, (5, 6), true),
            Some((1, 2))
        );
    }
}
