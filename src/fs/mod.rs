//! The file-system layer: every byte surepatch reads or writes goes through here.
//!
//! It owns the workspace sandbox and path resolution ([`workspace`]), bytes ↔ text ([`codec`]), the
//! sandboxed handle, locks, atomic writes and the temp sweep ([`fsio`]), multi-file commits
//! ([`txn`]), the undo journal ([`journal`]), edit ids ([`ids`]) and which files the current call
//! touched ([`trace`]). It may use [`crate::error`] and [`crate::edit`] (hashes, line tables); it
//! never reads JSON arguments or builds receipts, which belong to [`crate::api`] and
//! [`crate::contract`].

pub mod checkpoint;
pub mod codec;
pub mod fsio;
pub mod ids;
pub mod journal;
pub mod trace;
pub mod txn;
pub mod workspace;
