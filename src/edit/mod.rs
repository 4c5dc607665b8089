//! The edit layer: what an edit is and how it lands on a string, with no I/O.
//!
//! It owns the edit IR ([`ir`]), the parsers that turn model output into it ([`formats`]), locating
//! text under the tolerance ladder ([`matcher`]), applying a batch of edits ([`apply`]), patch and
//! diff hunks ([`apply_hunks`]) and line-anchored edits ([`line_edit`]) to a string, telling an edit
//! already applied from one to apply ([`already`]), elision placeholders ([`placeholder`]), unified
//! diffs of a change ([`diff`]), rewrite summaries ([`line_changes`]), line tables ([`text`]) and
//! content hashes and line tags ([`hash`]). It may use [`crate::error`] only: never the file system,
//! JSON arguments or receipts, so every reading here is testable on strings alone.

pub mod already;
pub mod apply;
pub mod apply_hunks;
pub mod diff;
pub mod endings;
pub mod formats;
pub mod hash;
pub mod ir;
pub mod lazy;
pub mod line_changes;
pub mod line_edit;
pub mod matcher;
pub mod myers;
pub mod placeholder;
pub mod text;
