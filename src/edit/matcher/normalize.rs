//! Per-line normalizations behind the line tiers, with maps back to the original offsets.
//!
//! Each tier folds everything the tiers before it fold, and one more kind of transcription noise:
//!
//! | tier | a line is compared as |
//! |---|---|
//! | `exact`, `line_endings` | it is |
//! | `trailing_whitespace` | without trailing whitespace |
//! | `typography` | also with curly quotes, dashes, the minus sign and Unicode spaces folded to ASCII, in NFC |
//! | `indentation` | also without its leading spaces and tabs |
//! | `inline_whitespace` | also with every run of spaces and tabs inside it written as one space |
//!
//! Normalization never touches identifiers, digits or other punctuation, and never removes whitespace
//! between two characters (`a=b` and `a = b` stay different). NFC is applied per *composition segment*: a
//! segment starts at a character that is a starter no composition reaches back across (combining class 0
//! and NFC quick-check `Yes`), so a decomposed letter, a run of conjoining Hangul jamo, or a singleton such
//! as U+212B ANGSTROM SIGN folds whole; a line that mixes NFC and NFD text normalizes to one form, and
//! every segment maps back to its exact original bytes.

use std::borrow::Cow;
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

use super::Tier;

/// Folds one typographic character to its ASCII twin, or returns it unchanged.
pub fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{FF07}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        _ => c,
    }
}

/// A normalized line and the way back to the original's byte offsets (and forth).
pub struct NormLine<'a> {
    pub text: Cow<'a, str>,
    /// Bytes removed from the front of the normalized line (its leading indentation at the indentation
    /// tiers). Counted in normalized bytes when there is a map, in original bytes otherwise (the same
    /// thing then).
    lead: usize,
    /// For lines the fold rewrote: `(normalized_start, original_start)` of each segment (a composition
    /// segment, or a whole run of spaces and tabs at the inline-whitespace tier), in the unstripped
    /// normalized line, plus a final `(normalized_len, original_len)` sentinel.
    map: Option<Vec<(usize, usize)>>,
}

impl NormLine<'_> {
    /// Maps a byte offset in the normalized text to the original line. An offset inside a folded
    /// segment maps to the end of that segment.
    pub fn to_orig(&self, n: usize) -> usize {
        match &self.map {
            None => self.lead + n,
            Some(map) => {
                let n = n + self.lead;
                match map.binary_search_by_key(&n, |&(ns, _)| ns) {
                    Ok(i) => map[i].1,
                    Err(i) => map.get(i).map_or(map.last().unwrap().1, |e| e.1),
                }
            }
        }
    }

    /// Maps a byte offset of the original line to the normalized text, clamped to it. An offset inside
    /// a folded segment maps to the end of that segment.
    pub fn from_orig(&self, o: usize) -> usize {
        let len = self.text.len();
        match &self.map {
            None => o.saturating_sub(self.lead).min(len),
            Some(map) => {
                let n = match map.binary_search_by_key(&o, |&(_, os)| os) {
                    // Several segments can start at one original offset only when some are empty;
                    // take the last.
                    Ok(mut i) => {
                        while i + 1 < map.len() && map[i + 1].1 == o {
                            i += 1;
                        }
                        map[i].0
                    }
                    Err(i) => map.get(i).map_or(map.last().unwrap().0, |e| e.0),
                };
                n.saturating_sub(self.lead).min(len)
            }
        }
    }
}

fn is_indent(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Whether a composition segment may start at `c`: no NFC composition reaches back across it. A
/// character that folds to a space or a tab always starts one: U+2000 and U+2001 are not in NFC (they
/// decompose to U+2002 and U+2003), but nothing composes with them, and inside the previous
/// character's segment they escaped the collapsing of whitespace runs (`x\u{2000} y` folded to
/// `x  y`, so it matched neither `x y` nor `x  y`).
fn starts_segment(c: char) -> bool {
    c.is_ascii()
        || is_indent(fold_char(c))
        || (canonical_combining_class(c) == 0
            && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes)
}

/// Folds a line segment by segment: typography to ASCII, NFC, and (with `collapse`) each run of
/// spaces and tabs to one space. Returns the folded line and its segment map.
fn fold_line(line: &str, collapse: bool) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(line.len());
    let mut map = Vec::new();
    let mut chars = line.char_indices().peekable();
    let mut in_run = false;
    while let Some((start, c)) = chars.next() {
        let mut end = start + c.len_utf8();
        while let Some(&(i, d)) = chars.peek() {
            if starts_segment(d) {
                break;
            }
            end = i + d.len_utf8();
            chars.next();
        }
        let seg = &line[start..end];
        let blank = seg.chars().all(|c| is_indent(fold_char(c)));
        if collapse && blank {
            if !in_run {
                map.push((out.len(), start));
                out.push(' ');
                in_run = true;
            }
            continue;
        }
        in_run = false;
        map.push((out.len(), start));
        if seg.is_ascii() {
            out.push_str(seg);
        } else {
            out.extend(seg.nfc().map(fold_char));
        }
    }
    map.push((out.len(), line.len()));
    (out, map)
}

/// Whether an ASCII line has whitespace inside it that the inline-whitespace fold would change.
fn has_inline_runs(line: &str) -> bool {
    let b = line.trim_end().trim_start_matches(is_indent).as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'\t' || (c == b' ' && b.get(i + 1).is_some_and(|&d| d == b' ' || d == b'\t'))
    })
}

/// Normalizes one line (no terminator) for `tier`. Tiers up to line endings compare lines as they are.
pub fn norm(line: &str, tier: Tier) -> NormLine<'_> {
    match tier {
        Tier::Exact | Tier::LineEndings => NormLine {
            text: Cow::Borrowed(line),
            lead: 0,
            map: None,
        },
        Tier::TrailingWhitespace => NormLine {
            text: Cow::Borrowed(line.trim_end()),
            lead: 0,
            map: None,
        },
        Tier::Typography | Tier::Indentation | Tier::InlineWhitespace => {
            let strip = tier >= Tier::Indentation;
            let collapse = tier == Tier::InlineWhitespace;
            if line.is_ascii() && !(collapse && has_inline_runs(line)) {
                let t = line.trim_end();
                let s = if strip {
                    t.trim_start_matches(is_indent)
                } else {
                    t
                };
                return NormLine {
                    text: Cow::Borrowed(s),
                    lead: t.len() - s.len(),
                    map: None,
                };
            }
            let (folded, map) = fold_line(line, collapse);
            let t = folded.trim_end();
            let s = if strip {
                t.trim_start_matches(is_indent)
            } else {
                t
            };
            let lead = t.len() - s.len();
            let text = s.to_string();
            NormLine {
                text: Cow::Owned(text),
                lead,
                map: Some(map),
            }
        }
        Tier::LinePrefix | Tier::BlankEdges => {
            unreachable!("needle transforms, not line normalizations")
        }
    }
}

/// The leading indentation of a line.
pub fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches(is_indent).len()]
}

/// Width of an indentation in columns, a tab advancing to the next multiple of `tab`.
pub fn columns(indent: &str, tab: usize) -> usize {
    indent.chars().fold(0, |col, c| {
        if c == '\t' {
            (col / tab + 1) * tab
        } else {
            col + 1
        }
    })
}

/// Renders `cols` columns of indentation with tabs (`tab` wide) or spaces.
pub fn render_indent(cols: usize, tabs: bool, tab: usize) -> String {
    if tabs {
        let mut s = "\t".repeat(cols / tab);
        s.push_str(&" ".repeat(cols % tab));
        s
    } else {
        " ".repeat(cols)
    }
}

/// Whether a line is empty or only whitespace.
pub fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// `nfc` of a whole string (used on needles).
pub fn nfc(s: &str) -> String {
    s.nfc().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typography_folds_and_maps_back() {
        let line = "  say(\u{201C}hi\u{201D})\u{00A0} ";
        let n = norm(line, Tier::Typography);
        assert_eq!(n.text, "  say(\"hi\")");
        // the closing paren in normalized text is at 10; in the original after two 3-byte quotes
        let close = n.text.find(')').unwrap();
        assert_eq!(&line[n.to_orig(close)..n.to_orig(close) + 1], ")");
        assert_eq!(n.to_orig(n.text.len()), line.find(')').unwrap() + 1);
    }

    #[test]
    fn nfd_folds_to_nfc() {
        let nfd = "cafe\u{0301} = 1";
        let n = norm(nfd, Tier::Typography);
        assert_eq!(n.text, "caf\u{e9} = 1");
        assert_eq!(n.to_orig(n.text.len()), nfd.len());
    }

    #[test]
    fn indentation_strips_and_maps() {
        let n = norm("\t\tx = 1  ", Tier::Indentation);
        assert_eq!(n.text, "x = 1");
        assert_eq!(n.to_orig(0), 2);
        let n = norm("    \u{2018}a\u{2019}", Tier::Indentation);
        assert_eq!(n.text, "'a'");
        assert_eq!(n.to_orig(0), 4);
        assert_eq!(n.to_orig(3), "    \u{2018}a\u{2019}".len());
    }

    #[test]
    fn columns_and_render() {
        assert_eq!(columns("\t  ", 4), 6);
        assert_eq!(columns("  \t", 4), 4);
        assert_eq!(render_indent(6, true, 4), "\t  ");
        assert_eq!(render_indent(3, false, 4), "   ");
    }

    #[test]
    fn inline_whitespace_collapses_runs_and_maps_both_ways() {
        let line = "\tx  =\t f(a,\u{00A0} b)  ";
        let n = norm(line, Tier::InlineWhitespace);
        assert_eq!(n.text, "x = f(a, b)");
        assert_eq!(n.to_orig(0), 1);
        // `=` and `f` in the original.
        assert_eq!(n.to_orig(2), line.find('=').unwrap());
        assert_eq!(n.to_orig(4), line.find('f').unwrap());
        assert_eq!(n.to_orig(n.text.len()), line.find(')').unwrap() + 1);
        assert_eq!(n.from_orig(line.find('f').unwrap()), 4);
        // At a run's start: the collapsed space; inside it: the end of the run.
        assert_eq!(n.from_orig(line.find('=').unwrap() + 1), 3);
        assert_eq!(n.from_orig(line.find('=').unwrap() + 2), 4);
        // A line without runs keeps the fast path, and `a=b` is not `a = b`.
        assert_eq!(norm("    a = b", Tier::InlineWhitespace).text, "a = b");
        assert_eq!(norm("a=b", Tier::InlineWhitespace).text, "a=b");
    }

    #[test]
    fn composition_segments_fold_whole_and_map_exactly() {
        // Conjoining jamo (all combining class 0) compose; U+212B is a singleton.
        let line = "\u{1100}\u{1161}\u{11A8}=\u{212B}";
        let n = norm(line, Tier::Typography);
        assert_eq!(n.text, "\u{AC01}=\u{C5}");
        assert_eq!(
            n.to_orig("\u{AC01}".len()),
            "\u{1100}\u{1161}\u{11A8}".len()
        );
        assert_eq!(
            n.from_orig("\u{1100}\u{1161}\u{11A8}".len()),
            "\u{AC01}".len()
        );
        assert_eq!(n.to_orig(n.text.len()), line.len());
    }
}
