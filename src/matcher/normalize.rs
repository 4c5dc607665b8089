//! Per-line normalizations behind the tolerance tiers, with a map back to the original offsets.
//!
//! Each tier folds more transcription noise than the one before it:
//! trailing whitespace → typography (quotes, dashes, Unicode spaces, NFC) → leading indentation.
//! Normalization never touches identifiers, digits or other punctuation.

use std::borrow::Cow;
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::UnicodeNormalization;

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

/// A normalized line and the way back to the original's byte offsets.
pub struct NormLine<'a> {
    pub text: Cow<'a, str>,
    /// Bytes of the original removed from the front (leading indentation at the indentation tier).
    lead: usize,
    /// For lines the typography fold rewrote: `(normalized_start, original_start)` of each cluster,
    /// plus a final `(normalized_len_before_trim, original_len)` sentinel.
    map: Option<Vec<(usize, usize)>>,
}

impl NormLine<'_> {
    /// Maps a byte offset in the normalized text to the original line. An offset inside a folded
    /// cluster maps to the end of that cluster.
    pub fn to_orig(&self, n: usize) -> usize {
        match &self.map {
            None => self.lead + n,
            Some(map) => {
                let n = n + self.lead_norm();
                match map.binary_search_by_key(&n, |&(ns, _)| ns) {
                    Ok(i) => map[i].1,
                    Err(i) => map.get(i).map_or(map.last().unwrap().1, |e| e.1),
                }
            }
        }
    }

    fn lead_norm(&self) -> usize {
        // With a map, `lead` counts normalized bytes (the fold runs before the indentation strip).
        self.lead
    }
}

fn is_indent(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn fold_line(line: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(line.len());
    let mut map = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let mut end = start + c.len_utf8();
        while let Some(&(i, d)) = chars.peek() {
            if canonical_combining_class(d) == 0 {
                break;
            }
            end = i + d.len_utf8();
            chars.next();
        }
        map.push((out.len(), start));
        let cluster = &line[start..end];
        if cluster.is_ascii() {
            out.push_str(cluster);
        } else {
            out.extend(cluster.nfc().map(fold_char));
        }
    }
    map.push((out.len(), line.len()));
    (out, map)
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
        Tier::Typography | Tier::Indentation => {
            let strip = tier == Tier::Indentation;
            if line.is_ascii() {
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
            let (folded, map) = fold_line(line);
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
}
