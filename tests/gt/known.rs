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
];
