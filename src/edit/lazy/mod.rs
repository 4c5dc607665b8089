//! Lazy snippets: the new version of a region with elision markers (`// ... existing code ...`) for
//! what stays, merged into the file deterministically, or refused. Pure: strings in, string out.
//!
//! - [`markers`]: which lines are markers (the grammar);
//! - [`anchor`]: locating runs of unchanged lines with the matcher's tolerance tiers;
//! - [`merge`]: placing the chunks and rebuilding the file;
//! - [`hints`]: what an ambiguity refusal says to add (the line that tells each candidate apart).
//!
//! The rules and their safety argument are in `docs/formats.md` ("Lazy snippets").

pub mod anchor;
pub mod hints;
pub mod markers;
pub mod merge;

pub use merge::{Landing, Merged, Plan, Removed};

use crate::edit::matcher::Tolerance;
use crate::edit::text::split_lines;
use crate::error::{Code, Result};

/// Merges `snippet` into `file`: [`Plan::Rewrite`] for a marker-free whole file, else the merged
/// text, or the refusal; a `SNIPPET_AMBIGUOUS` refusal names, for each candidate, the file line
/// that tells it apart ([`hints`]).
pub fn merge(file: &str, snippet: &str, tol: Tolerance) -> Result<Plan> {
    let mut snip = split_lines(snippet);
    if snip.len() > 1 && snip.last() == Some(&"") {
        snip.pop();
    }
    match merge::merge_lines(file, &snip, tol) {
        Err(f) if f.code == Code::SnippetAmbiguous => Err(hints::tell_apart(f, file, &snip, tol)),
        r => r.map(|(plan, _)| plan),
    }
}

#[cfg(test)]
mod tests;
