//! The one write pipeline. Every op that writes files — `patchFile`, `applyEdits`, `editLines`,
//! `applyPatch`, `applyBlocks`, `applyUnifiedDiff`, `createFile`, `writeFile`, `deleteFile`,
//! `moveFile` — goes through it, in this order:
//!
//! 1. [`Writer::open`]: the on-disk journal directory, if the options name one, is resolved (nothing
//!    is created), so a bad one refuses the call before any file is read, dry runs included; then one
//!    [`Txn`] over every path the op touches: locks taken in one total order, bytes read, limits
//!    checked.
//! 2. The op plans: it reads each file's bytes from [`Writer::txn`] and sets each file's [`Action`]
//!    (nothing is written yet; any refusal here leaves every file as it was).
//! 3. [`Writer::commit`]: a dry run writes nothing and records nothing. Otherwise the transaction
//!    commits (all files or none, crash-atomic: see [`crate::fs::txn`]) and one undo-journal entry records
//!    what it replaced ([`crate::fs::journal`]): one `edit_id` for the whole call, whatever the number of
//!    files.
//! 4. The receipt carries [`Written::recorded`] as `edit_id`, `undo_available` and, when the journal
//!    directory could not be written, `journal_warning`.

use super::options::JournalAt;
use crate::error::Result;
use crate::fs::journal::{self, DiskJournal, Recorded};
use crate::fs::txn::{Action, Committed, Txn};
use crate::fs::workspace::{Resolve, Workspace};

/// A write in progress: the transaction (locks held) and where its journal entry goes.
pub struct Writer {
    pub txn: Txn,
    disk: Option<DiskJournal>,
    dry_run: bool,
}

/// What a commit did.
#[derive(Default)]
pub struct Written {
    /// One entry per file of the transaction that changed (empty for a dry run).
    pub committed: Vec<Committed>,
    /// The journal entry (empty for a dry run, or when the journal could not keep it).
    pub recorded: Recorded,
}

impl Writer {
    /// Step 1: resolves the journal directory, then opens the transaction over `paths`.
    pub fn open(
        ws: &Workspace,
        journal: &JournalAt,
        paths: &[(String, Resolve)],
        max_file_bytes: u64,
        dry_run: bool,
    ) -> Result<Writer> {
        let disk = journal.open(ws)?;
        let txn = Txn::open(ws, paths, max_file_bytes)?;
        Ok(Writer { txn, disk, dry_run })
    }

    /// Sets the action of file `i` of the transaction.
    pub fn set(&mut self, i: usize, action: Action) {
        self.txn.files[i].action = action;
    }

    /// Step 3: commits the planned actions (a dry run: nothing) and journals them.
    pub fn commit(self) -> Result<Written> {
        self.commit_with(Txn::commit)
    }

    /// [`Writer::commit`] with the caller's way of committing the transaction (`moveFile` renames
    /// while holding the locks, and falls back to `Txn::commit` across file systems).
    pub fn commit_with(
        self,
        commit: impl FnOnce(Txn) -> Result<Vec<Committed>>,
    ) -> Result<Written> {
        if self.dry_run {
            return Ok(Written::default());
        }
        let mut committed = commit(self.txn)?;
        let recorded = journal::record_taking(&mut committed, self.disk.as_ref());
        Ok(Written {
            committed,
            recorded,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{run, Ws};
    use serde_json::{json, Value};

    /// Every writing op, as `(op, args)` with `opts` as its options.
    fn writes(opts: &Value) -> Vec<(&'static str, Value)> {
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n";
        let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n";
        let blocks = "a.txt\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n";
        vec![
            (
                "patch_file",
                json!([{"file_path": "a.txt", "search_block": "one", "replace_block": "ONE"}, opts]),
            ),
            ("apply_edits", json!(["a.txt", [["one", "ONE"]], opts])),
            ("create_file", json!(["new.txt", "x\n", opts])),
            ("write_file", json!(["a.txt", "ONE\n", opts])),
            ("delete_file", json!(["a.txt", opts])),
            ("move_file", json!(["a.txt", "b.txt", opts])),
            ("apply_patch", json!([patch, opts])),
            ("apply_unified_diff", json!([diff, opts])),
            ("apply_blocks", json!([blocks, opts])),
        ]
    }

    /// The journal directory is resolved in step 1 for every writing op, dry runs included, so a
    /// preview refuses exactly what the real call would refuse, and nothing is written either way.
    #[test]
    fn a_bad_journal_dir_refuses_every_write_the_same_way_dry_or_not() {
        for dry_run in [false, true] {
            let ws = Ws::with(&[("a.txt", "one\n")]);
            let opts = ws.opts(json!({"journal_dir": "../outside", "dry_run": dry_run}));
            for (op, args) in writes(&opts) {
                let r = run(op, args);
                assert_eq!(r["ok"], false, "{op} dry_run={dry_run}: {r}");
                assert_eq!(
                    r["code"], "PATH_OUTSIDE_WORKSPACE",
                    "{op} dry_run={dry_run}: {r}"
                );
                assert_eq!(ws.read_string("a.txt"), "one\n", "{op}");
                assert!(!ws.exists("new.txt") && !ws.exists("b.txt"), "{op}");
            }
        }
    }

    /// When the journal directory cannot take the entry (the write of anything below it fails, by the
    /// test hook), the edit has landed: the receipt says so in `journal_warning`, the entry is kept in
    /// memory (`undo_available`, and the undo works from this process), and the journal directory is
    /// left without a partial entry.
    #[test]
    fn a_journal_that_cannot_be_written_is_a_warning_and_the_undo_stays_in_memory() {
        for (op, args) in writes(&json!(null)) {
            let ws = Ws::with(&[("a.txt", "one\n")]);
            std::fs::create_dir(ws.path().join("jd")).unwrap();
            let mut args = args;
            let last = args.as_array().unwrap().len() - 1;
            args[last] = ws.opts(json!({"journal_dir": "jd"}));
            // Everything below the journal directory (the path joined with "" ends in a separator).
            let below = ws.path().join("jd").join("");
            let r = crate::fs::fsio::with_write_fault(below.to_string_lossy(), || run(op, args));
            assert_eq!(r["ok"], true, "{op}: {r}");
            let warning = r["journal_warning"].as_str().unwrap_or_default();
            assert!(
                warning.contains("journal directory could not be updated")
                    && warning.contains("injected fault"),
                "{op}: {r}"
            );
            assert_eq!(r["undo_available"], true, "{op}: {r}");
            assert_eq!(
                std::fs::read_dir(ws.path().join("jd")).unwrap().count(),
                0,
                "{op}: no partial entry"
            );
            let id = r["edit_id"].as_str().unwrap();
            let u = run(
                "undo_edit",
                json!([id, ws.opts(json!({"journal_dir": "jd"}))]),
            );
            assert_eq!(u["ok"], true, "{op} undo: {u}");
            assert_eq!(ws.read_string("a.txt"), "one\n", "{op}");
            assert!(!ws.exists("new.txt") && !ws.exists("b.txt"), "{op}");
        }
    }

    /// Every writing op returns the journal fields; a dry run records nothing.
    #[test]
    fn every_write_is_journaled_once_and_a_dry_run_never() {
        for (i, dry_run) in [false, true].into_iter().enumerate() {
            for (op, args) in writes(&json!(null)) {
                let ws = Ws::with(&[("a.txt", "one\n")]);
                let mut args = args;
                let last = args.as_array().unwrap().len() - 1;
                args[last] = ws.opts(json!({"dry_run": dry_run}));
                let r = run(op, args);
                assert_eq!(r["ok"], true, "{op}: {r}");
                assert_eq!(r["undo_available"], !dry_run, "{op} #{i}: {r}");
                assert_eq!(r["edit_id"].is_string(), !dry_run, "{op} #{i}: {r}");
                if dry_run {
                    assert_eq!(ws.read_string("a.txt"), "one\n", "{op}");
                }
            }
        }
    }
}
