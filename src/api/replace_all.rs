//! `replace_all` (Claude Code's Edit and MultiEdit): an edit that replaces every occurrence of its old
//! text, however many there are (at least one). The engine's own count check does the work: the edit
//! is tried as a unique replacement, and when the file holds its old text `n > 1` times (which the
//! engine reports as `SEARCH_BLOCK_AMBIGUOUS` with `match_count: n`, nothing written) it is tried again
//! as `expected_replacements: n`. Each try is a whole transaction of its own, so a file changed in
//! between is found by the second try's own count (`MATCH_COUNT_MISMATCH`), never written blindly.

use serde_json::Value;

use super::args::bad;
use super::edit::{edit_file, Outcome};
use super::options::EditOptions;
use crate::edit::ir::Edit;
use crate::error::{Code, Failure, Result};

/// `expected_replacements` and `replace_all` of one edit, read together: both given is refused.
pub fn count_of(
    name: &str,
    expected: Option<u64>,
    all: Option<bool>,
) -> Result<(Option<usize>, bool)> {
    match (expected, all) {
        (Some(_), Some(true)) => Err(bad(format!(
            "{name}: give expected_replacements or replace_all, not both (replace_all replaces every occurrence, however many)."
        ))),
        (e, a) => Ok((e.map(|n| n as usize), a == Some(true))),
    }
}

/// [`edit_file`], where each edit whose `all` is true replaces every occurrence of its old text.
pub fn edit_file_all(
    path: &str,
    mut edits: Vec<Edit>,
    all: &[bool],
    opts: &EditOptions,
    names: (&str, &str),
) -> Result<(Vec<Edit>, Outcome)> {
    // Each retry fixes the count of one edit: at most one try per edit, plus the last.
    for _ in 0..=edits.len() {
        match edit_file(path, &edits, opts, names) {
            Ok(out) => return Ok((edits, out)),
            Err(f) if f.code == Code::SearchBlockAmbiguous => {
                let at = f.details.get("edit_index").and_then(Value::as_u64);
                let n = f.details.get("match_count").and_then(Value::as_u64);
                match (at, n) {
                    (Some(i), Some(n))
                        if n > 1
                            && all.get(i as usize) == Some(&true)
                            && edits[i as usize].expected_replacements.is_none() =>
                    {
                        edits[i as usize].expected_replacements = Some(n as usize);
                    }
                    _ => return Err(f),
                }
            }
            Err(f) => return Err(f),
        }
    }
    Err(Failure::new(
        Code::InternalError,
        "replace_all: the occurrences could not be counted; nothing was written.",
    ))
}
