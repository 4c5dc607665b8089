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

pub use merge::{merge, Landing, Merged, Plan, Removed};

#[cfg(test)]
mod tests;
