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
//! Owns: that check. May not: decide a match or a refusal (the ladder in `mod.rs` does).

use rustc_hash::FxHashMap;

use super::normalize::norm;
use super::{line_hash, search, Haystack, Tier};

/// The loosest line tier: equality at any line tier implies equality here.
pub(super) const TOP: Tier = Tier::InlineWhitespace;

/// Whether the middle lines of `parts` (`old` split on line breaks: all but the first and the last
/// part) may occur as consecutive lines of the file at some line tier. `false` only when they occur
/// nowhere at [`TOP`], so nowhere at any line tier. Needles of fewer than three parts have no middle:
/// always `true`.
pub(super) fn middle_may_occur(h: &Haystack, parts: &[&str]) -> bool {
    if parts.len() < 3 {
        return true;
    }
    let middle = &parts[1..parts.len() - 1];
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
        let text: String = (0..n)
            .map(|i| format!("    result_{} = transform(item_{i}, options)\n", i % 997))
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
    fn middle_lines_found_at_any_tier_may_occur() {
        let file = "a\r\n\tb  \u{201C}q\u{201D}  \r\n  c\u{00A0} d\r\ne\r\n";
        let h = Haystack::new(file);
        for needle in [
            "a\n\tb  \u{201C}q\u{201D}  \n  c\u{00A0} d\ne",
            "a\n\tb  \"q\"\n  c  d\ne",
            "a\nb \"q\"\nc d\ne",
            "x\nb \"q\"\nc d\ny",
        ] {
            let parts = crate::text::split_lines(needle);
            assert!(middle_may_occur(&h, &parts), "{needle:?}");
        }
        for needle in ["a\nb \"q\"\ne\nx", "a\nc d\nb \"q\"\ne", "a\nb 'q'\nc d\ne"] {
            let parts = crate::text::split_lines(needle);
            assert!(!middle_may_occur(&h, &parts), "{needle:?}");
        }
        // Fewer than three lines: nothing to rule out.
        assert!(middle_may_occur(&h, &["zzz", "yyy"]));
    }
}
