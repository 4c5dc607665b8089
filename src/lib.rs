//! surepatch: deterministic, verifiable file edits for LLM coding agents.
//!
//! Four layers, each depending only on the ones listed before it (the import picture has no arrow
//! pointing up and no circle; `docs/development.md` draws it):
//! - [`error`]: stable failure codes and the failure value every layer returns;
//! - [`edit`]: what an edit is and how it lands on a string: the IR, the parsers of the edit
//!   formats, the matcher and its tolerance ladder, the appliers, diffs and line tables. Pure: no I/O;
//! - [`syntax`]: the tree-sitter syntax gate (pure, on strings);
//! - [`fs`]: the file system: the workspace sandbox, codecs, locks, atomic writes, transactions and
//!   the undo journal. Knows nothing of JSON arguments or receipts;
//! - [`contract`]: the typed success receipts, failure and arguments of every entry point, and the
//!   JSON Schemas generated from them;
//! - [`api`]: the entry points, taking and returning JSON values (what the Node binding calls).
//!
//! The Node binding (`binding`, feature `node`) is a thin door onto [`api`].

pub mod api;
pub mod contract;
pub mod edit;
pub mod error;
pub mod fs;
pub mod syntax;

#[cfg(feature = "node")]
mod binding;
