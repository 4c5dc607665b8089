//! One normalized pass shared by every line tier, so a needle that occurs nowhere is ruled out once
//! instead of once per tier.
//!
//! Each line tier folds everything the tiers before it fold (see [`super::normalize`]): two lines equal
//! at any line tier are equal at [`TOP`], the loosest. The line-based search of a needle of three or
//! more lines finds its middle lines (all but the first and the last) as whole, consecutive file lines
//! first, and only then checks the edges; so when the middle lines do not occur one after another at
//! [`TOP`], no line tier can find the needle, and the ladder skips them all. The check compares the
//! hashes of [`TOP`]'s normalized lines, which the `inline_whitespace` tier reuses, so a miss
//! normalizes each file line once, not once per tier. A hash collision only means the tiers run as
//! before: the check answers "may occur", never a false "does not".
//!
//! On ASCII text no pass over the lines is made. There the line tiers' normalization only trims,
//! strips and collapses spaces and tabs (typography folds and NFC change nothing ASCII), so each
//! word of a middle line at [`TOP`] (a run of characters other than spaces and tabs) is, byte for
//! byte, in any file line that equals it at a line tier: a word the text does not hold at all rules
//! the needle out with one `memmem` scan. The [`WORDS_CHECKED`] longest words are checked, so the
//! work stays a few scans of the text whatever the needle, and a needle a tier then finds costs no
//! pass more than before. On other text, the hash check costs such a needle one pass more (unless
//! `inline_whitespace` finds it) and saves a miss three.
//!
//! Owns: that check. May not: decide a match or a refusal (the ladder in `mod.rs` does).

use rustc_hash::FxHashMap;

use super::normalize::norm;
use super::{line_hash, search, Haystack, Tier};

/// The loosest line tier: equality at any line tier implies equality here.
pub(super) const TOP: Tier = Tier::InlineWhitespace;

/// Words of the middle lines looked for in an ASCII text, longest first.
const WORDS_CHECKED: usize = 3;

/// Whether one of the [`WORDS_CHECKED`] longest words of the middle lines at [`TOP`] is nowhere in
/// the text, when the text is ASCII (see the module documentation); `false` otherwise.
fn a_word_is_missing(h: &Haystack, middle: &[&str]) -> bool {
    if !h.text.is_ascii() {
        return false;
    }
    let lines: Vec<_> = middle.iter().map(|p| norm(p, TOP)).collect();
    let mut words: Vec<&str> = lines
        .iter()
        .flat_map(|n| n.text.split([' ', '\t']))
        .filter(|w| !w.is_empty())
        .collect();
    words.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    words.dedup();
    let text = h.text.as_bytes();
    words.iter().take(WORDS_CHECKED).any(|w| {
        let at = memchr::memmem::find(text, w.as_bytes());
        search::tick(at.map_or(text.len(), |i| i + w.len()));
        at.is_none()
    })
}

/// Whether the middle lines of `parts` (`old` split on line breaks: all but the first and the last
/// part) may occur as consecutive lines of the file at some line tier. `false` only when they occur
/// nowhere at [`TOP`] (on ASCII text: a word of theirs is not in the text; on other text: their
/// hashes are not among the file lines'), so nowhere at any line tier. Needles of fewer than three parts have no middle:
/// always `true`.
pub(super) fn middle_may_occur(h: &Haystack, parts: &[&str]) -> bool {
    if parts.len() < 3 {
        return true;
    }
    let middle = &parts[1..parts.len() - 1];
    if h.text.is_ascii() {
        // The words decide: a pass over the lines here would be one more for a needle the tiers
        // then find (each builds its own line hashes).
        return !a_word_is_missing(h, middle);
    }
    let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
    let pattern: Vec<u32> = middle
        .iter()
        .map(|p| {
            let next = ids.len() as u32;
            *ids.entry(line_hash(&norm(p, TOP).text)).or_insert(next)
        })
        .collect();
    let hashes = h.line_hashes(TOP);
    let mut found = false;
    search::find_sequence(
        &pattern,
        hashes.len(),
        |x| ids.get(&hashes[x]).copied(),
        |_| found = true,
    );
    found
}

#[cfg(test)]
mod tests {
    use super::super::LINE_TIERS;
    use super::*;

    /// Lines that differ in every way a tier folds: line endings aside (lines carry none here),
    /// trailing whitespace, typography (quotes, dashes, Unicode spaces, NFC/NFD, composition segments),
    /// indentation and inline whitespace, each alone and mixed.
    const LINES: &[&str] = &[
        "",
        " ",
        "\t",
        "x",
        "x ",
        "x\t",
        " x",
        "\tx",
        "x  y",
        "x y",
        "x\ty",
        "x \ty",
        "x\u{00A0}y",
        "x\u{00A0}\u{00A0}y",
        "x\u{2000}y",
        "x\u{2000} y",
        "x\u{3000}y",
        "\u{3000}x",
        "\u{00A0}x",
        "x\u{00A0}",
        "x \u{0301}y",
        "x  \u{0301}y",
        "x\u{0301}",
        "\u{e9}",
        "e\u{0301}",
        "  e\u{0301} = 1 ",
        "\u{e9} = 1",
        "\u{212B}",
        "\u{C5}",
        "\u{1100}\u{1161}\u{11A8}",
        "\u{AC01}",
        "say(\u{201C}hi\u{201D})",
        "say(\"hi\")",
        "say( \"hi\" )",
        "a \u{2013} b",
        "a - b",
        "a  -  b",
        "\u{2212}1",
        "-1",
        "x\u{0085}",
        "x\u{2028}",
        "x \u{2028}",
        "\u{feff}x",
        "x\r",
    ];

    #[test]
    fn lines_equal_at_any_line_tier_are_equal_at_the_top_one() {
        for a in LINES {
            for b in LINES {
                for t in LINE_TIERS {
                    if norm(a, t).text == norm(b, t).text {
                        assert_eq!(
                            norm(a, TOP).text,
                            norm(b, TOP).text,
                            "{a:?} and {b:?} are equal at {t:?} but not at {TOP:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_miss_normalizes_each_file_line_once_not_once_per_tier() {
        use super::super::{locate, search_work, Miss, Tolerance};
        let n = 20_000;
        // Not ASCII (one curly quote), so the file's lines are normalized: once.
        let text: String = (0..n)
            .map(|i| {
                format!(
                    "    result_{} = transform(item_{i}, \u{2018}options\u{2019})\n",
                    i % 997
                )
            })
            .collect();
        let old = "def missing(arg):\n    total = 0\n    for x in arg:\n        total += x * 2\n    return total";
        let h = Haystack::new(&text);
        search_work();
        let r = locate(&h, old, "x", 1, Tolerance::Safe);
        let work = search_work() as usize;
        assert!(matches!(r, Err(Miss::NotFound { .. })), "{r:?}");
        // The exact search reads the text once (a step per byte); the line tiers then cost one
        // normalized pass over the lines and one sequence search over their hashes (a step per line
        // each), where every tier used to pay both (4 passes of each on ASCII text).
        let lines = work - text.len();
        assert!(
            lines <= 2 * n + 100,
            "{lines} steps past the exact search for {n} lines"
        );
    }

    #[test]
    fn on_ascii_text_a_missing_word_rules_a_miss_out_without_normalizing_a_line() {
        use super::super::{locate, search_work, Miss, Tolerance};
        let n = 20_000;
        let text: String = (0..n)
            .map(|i| format!("    result_{} = transform(item_{i}, options)\n", i % 997))
            .collect();
        let old = "def missing(arg):\n    total = 0\n    for x in arg:\n        total += x * 2\n    return total";
        let h = Haystack::new(&text);
        search_work();
        let r = locate(&h, old, "x", 1, Tolerance::Safe);
        let work = search_work() as usize;
        assert!(matches!(r, Err(Miss::NotFound { .. })), "{r:?}");
        assert!(
            h.hashes.borrow().is_empty(),
            "no tier's line hashes were computed"
        );
        // The exact search and at most one scan per word checked.
        assert!(
            work <= (1 + WORDS_CHECKED) * text.len(),
            "{work} steps for {} bytes",
            text.len()
        );
    }

    #[test]
    fn on_ascii_text_a_needle_found_at_a_tier_costs_no_extra_pass() {
        use super::super::{locate, Tolerance};
        let text: String = (0..2_000)
            .map(|i| format!("    result_{} = transform(item_{i}, options)\n", i % 997))
            .collect();
        let old = "result_3 = transform(item_1000, options)\nresult_4 = transform(item_1001, options)\nresult_5 = transform(item_1002, options)";
        let h = Haystack::new(&text);
        let m = locate(&h, old, old, 1, Tolerance::Safe).unwrap();
        assert_eq!(m[0].tier, Tier::Indentation);
        let built: Vec<Tier> = h.hashes.borrow().iter().map(|(t, _)| *t).collect();
        assert!(!built.contains(&TOP), "{built:?}");
    }

    #[test]
    fn a_word_rules_a_needle_out_only_when_no_tier_could_find_it() {
        use super::super::{locate, Miss, Tolerance};
        // Each needle is found at a line tier: its words, spaced and indented otherwise and with a
        // CRLF file and trailing whitespace, are all in the ASCII text.
        let file = "a\r\n\tb  =\t\"q\"  \r\n  c d\r\ne\r\n";
        for old in [
            "a\n\tb  =\t\"q\"\n  c d\ne",
            "a\nb = \"q\"\nc   d\ne",
            "a\n  b\t= \u{201C}q\u{201D}\n\tc d  \ne",
        ] {
            let h = Haystack::new(file);
            let parts = crate::edit::text::split_lines(old);
            assert!(
                !a_word_is_missing(&h, &parts[1..parts.len() - 1]),
                "{old:?}"
            );
            let r = locate(&h, old, old, 1, Tolerance::Safe);
            // Found (a match, or a refusal of the place found), not missed.
            assert!(!matches!(r, Err(Miss::NotFound { .. })), "{old:?} {r:?}");
        }
        // A word the text lacks (`bb`, `'q'`), and a text that is not ASCII (never ruled out by words).
        for old in ["a\nbb = \"q\"\nc d\ne", "a\nb = 'q'\nc d\ne"] {
            let h = Haystack::new(file);
            let parts = crate::edit::text::split_lines(old);
            assert!(a_word_is_missing(&h, &parts[1..parts.len() - 1]), "{old:?}");
            let r = locate(&h, old, old, 1, Tolerance::Safe);
            assert!(matches!(r, Err(Miss::NotFound { .. })), "{old:?} {r:?}");
        }
        let h = Haystack::new("a\nb \u{e9}\nc\n");
        assert!(!a_word_is_missing(&h, &["zz"]));
    }

    #[test]
    fn middle_lines_found_at_any_tier_may_occur() {
        let file = "a\r\n\tb  \u{201C}q\u{201D}  \r\n  c\u{00A0} d\r\ne\r\n";
        let h = Haystack::new(file);
        for needle in [
            "a\n\tb  \u{201C}q\u{201D}  \n  c\u{00A0} d\ne",
            "a\n\tb  \"q\"\n  c  d\ne",
            "a\nb \"q\"\nc d\ne",
            "x\nb \"q\"\nc d\ny",
        ] {
            let parts = crate::edit::text::split_lines(needle);
            assert!(middle_may_occur(&h, &parts), "{needle:?}");
        }
        for needle in ["a\nb \"q\"\ne\nx", "a\nc d\nb \"q\"\ne", "a\nb 'q'\nc d\ne"] {
            let parts = crate::edit::text::split_lines(needle);
            assert!(!middle_may_occur(&h, &parts), "{needle:?}");
        }
        // Fewer than three lines: nothing to rule out.
        assert!(middle_may_occur(&h, &["zzz", "yyy"]));
    }
}
