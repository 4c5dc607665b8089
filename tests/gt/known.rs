//! Known classes of wrong writes (FINDINGS.md), by rendering. While the engine still writes them,
//! `tests/ground_truth.rs` skips them (and `examples/ground_truth.rs --new-only` does not fail on them); any
//! wrong write outside these entries fails. **Remove an entry when its class is fixed.**
//!
//! Each entry: `reading` is `format noise adversarial` (`*` for any part; `prefix_*` for any
//! prefix kind); every tag in `tags` must be on the case (its traits such as `mixed_eol` or
//! `numeric_lines`, its rendering choices such as `escaped_old`, or a `tier:…` / `dialect:…` label
//! of the receipt; `!tag`: must not be); `shape` is how the write departs from the right result
//! (`wrote` where a refusal was right; `lone_cr`, `eol`, `typography`, `whitespace`, `content`; `*`:
//! any).

use super::run::Known;

const fn k(
    reading: &'static str,
    tags: &'static [&'static str],
    shape: &'static str,
    class: &'static str,
) -> Known {
    Known {
        reading,
        tags,
        shape,
        class,
    }
}

#[rustfmt::skip]
pub const KNOWN_CLASSES: &[Known] = &[
    k("* * elided", &[], "wrote", "G1 elision placeholder written over real code"),
    k("* * retry", &[], "wrote", "G2 a retry is applied a second time"),
    k("apply_patch * scope_at_twin", &[], "wrote", "G3 an @@ scope naming a real line is ignored"),
    k("apply_patch * *", &["pure_insert"], "content", "G4 a scope that names several lines (or none) decides where an edit lands"),
    k("apply_patch * *", &["scope_repeated"], "content", "G4 a scope that names several lines (or none) decides where an edit lands"),
    k("* * *", &["dialect:unescaped"], "content", "G5 unescaping splits a program's own \\n / \\t"),
    k("* * *", &["numeric_lines", "tier:line_prefix"], "*", "G6 content starting with numbers read as a view's numbering"),
    k("* * *", &["mixed_eol"], "eol", "G7 a kept line's line ending rewritten in a mixed-ending file"),
    k("* * *", &[], "lone_cr", "G8 a match starts or ends between the CR and LF of a CRLF"),
    k("* * *", &["tier:blank_edges"], "content", "G9 blank_edges drops or duplicates a blank line that is in the file"),
    k("* smart_quotes *", &[], "typography", "G10 smartened quotes written into the file"),
    k("* * *", &["view_ambiguous"], "content", "G13 an exact match wins over a twin a view can not tell apart"),
    k("* * *", &["old_inside_lines"], "*", "G16 a multi-line old matches text that starts or ends inside a line"),
    k("* prefix_* *", &[], "eol", "G15 the line_prefix tier's rebuild: line endings and whitespace-only lines"),
    k("* prefix_* *", &[], "whitespace", "G15 the line_prefix tier's rebuild: line endings and whitespace-only lines"),
    k("* trailing_ws *", &[], "whitespace", "G11 trailing whitespace moved to or from another line"),
    k("* smart_quotes *", &[], "whitespace", "G11 trailing whitespace moved to or from another line"),
    k("* inline_ws *", &[], "whitespace", "G14 inline_whitespace rebuild: tabs become spaces, runs transplanted"),
    k("* indent_* *", &[], "whitespace", "G12 indentation frames and re-indentation"),
    k("* tabs_spaces *", &[], "whitespace", "G12 indentation frames and re-indentation"),
    k("apply_blocks * *", &["no_final_newline", "search_at_eof"], "content", "G17 a final newline the file lacks is forgiven last: a looser match elsewhere wins"),
    k("* * stale", &["shown:substring", "tier:trailing_whitespace"], "wrote", "G18 trailing whitespace of a substring old forgiven inside a line"),
    k("apply_blocks * *", &["lang:makefile", "fenced"], "content", "G19 a block under a bare file name and a fence goes to the previous block's file"),
    k("apply_unified_diff * stale", &["delete_file"], "wrote", "G20 a deletion whose shown content is stale deletes the file"),
];
