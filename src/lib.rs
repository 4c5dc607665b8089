//! surepatch: deterministic, verifiable file edits for LLM coding agents.
//!
//! Layers, each depending only on those above it in this list:
//! - [`error`]: stable failure codes;
//! - [`ir`]: what an edit is;
//! - [`formats`]: parsers from model output to the IR (no I/O);
//! - [`codec`]: bytes ↔ text (UTF-8, BOMs, UTF-16), binary detection;
//! - [`matcher`] and [`apply`]: locating and applying edits on strings (pure); [`already`]: an edit
//!   whose result is already in the text is refused, never applied twice; [`apply_hunks`]:
//!   patch and diff hunks on a string; [`line_edit`]: line-anchored edits (anchor checks, splicing);
//!   [`line_changes`]: what a rewrite changes, line by line; [`placeholder`]: elision placeholders;
//!   [`diff`]: unified diffs of a change; [`text`] and [`hash`]: line tables, file hashes, line tags;
//! - [`syntax`]: the syntax gate: does an edit introduce a syntax error? (tree-sitter, no I/O);
//! - [`workspace`] and [`fsio`]: the sandbox, locks and atomic writes; [`txn`]: multi-file commits;
//!   [`journal`]: the undo journal of committed writes; [`trace`]: which files the current call touched;
//! - [`contract`]: the typed success receipts and failure of every entry point, and the JSON Schemas
//!   generated from them (`schemas/`, and through them the TypeScript result types);
//! - [`api`]: the entry points, taking and returning JSON values (what the Node binding calls).
//!
//! The Node binding (`binding`, feature `node`) is a thin door onto [`api`].

pub mod already;
pub mod api;
pub mod apply;
pub mod apply_hunks;
pub mod codec;
pub mod contract;
pub mod diff;
pub mod error;
pub mod formats;
pub mod fsio;
pub mod hash;
pub mod ir;
pub mod journal;
pub mod lazy;
pub mod line_changes;
pub mod line_edit;
pub mod matcher;
pub mod placeholder;
pub mod syntax;
pub mod text;
pub mod trace;
pub mod txn;
pub mod workspace;

#[cfg(feature = "node")]
mod binding;
