//! Checkpoints (issue #27 §6): a named point in the undo journal, and the restore of every file
//! surepatch wrote since, as one transaction.
//!
//! A checkpoint id has the form of an edit id with `c` for `e` (`c` + 12 hex digits of milliseconds,
//! the process's sequence number, salt): it sorts among the edit ids by creation time, so "the edits
//! since the checkpoint" are the journal entries whose id sorts after it ([`journal::entries_after`]:
//! this process's memory, and the journal directory when one is given). A checkpoint is kept in memory
//! (the last [`MAX_CHECKPOINTS`]) and, with a journal directory, as `<id>.checkpoint.json` in it, so
//! it survives a restart with the journal.
//!
//! [`restore`] walks each file's journaled edits since the checkpoint back, newest first, from the
//! file's bytes now: each edit must have left the file as it is at that step (its hash), else the file
//! was changed by something else and the restore is refused with `STALE_FILE` naming it (nothing
//! written), unless `force`, which walks on through whole saved contents. The files are then written
//! back (contents, owner and mode), files created since are deleted and files deleted since recreated
//! (a move is both) in one [`Txn`]; the reverted edits leave the journal. A restore is not journaled.
//! When an edit since the checkpoint could not be journaled (above the byte cap, or evicted), the
//! restore is refused with `EDIT_NOT_FOUND`: it could not put everything back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{json, Value};

use crate::edit::hash::file_hash;
use crate::error::{Code, Failure, Result};
use crate::fs::journal::{self, Before, DiskJournal, Entry, FileRecord};
use crate::fs::txn::{Action, Txn};
use crate::fs::workspace::{Resolve, Workspace};

/// Most checkpoints kept in memory (the oldest go first).
pub const MAX_CHECKPOINTS: usize = 100;
const SUFFIX: &str = ".checkpoint.json";
const FORMAT: &str = "surepatch-checkpoint/1";

/// One checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub checkpoint_id: String,
    pub label: Option<String>,
    /// The workspace root it was made in (a restore elsewhere does not find it).
    pub root: PathBuf,
}

static KEPT: Mutex<Vec<Checkpoint>> = Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<Checkpoint>> {
    KEPT.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether `s` has the form of a checkpoint id.
pub fn is_checkpoint_id(s: &str) -> bool {
    s.len() == 23 && s.starts_with('c') && crate::fs::ids::is_edit_id(&format!("e{}", &s[1..]))
}

/// Makes a checkpoint of workspace `ws` now (and writes it to `disk`, when given).
pub fn create(
    ws: &Workspace,
    label: Option<&str>,
    disk: Option<&DiskJournal>,
) -> Result<Checkpoint> {
    let id = format!("c{}", &crate::fs::ids::new_edit_id()[1..]);
    let cp = Checkpoint {
        checkpoint_id: id,
        label: label.map(str::to_string),
        root: ws.root().to_path_buf(),
    };
    if let Some(d) = disk {
        let note = json!({"format": FORMAT, "checkpoint_id": cp.checkpoint_id, "label": cp.label});
        d.write_note(
            &format!("{}{SUFFIX}", cp.checkpoint_id),
            note.to_string().as_bytes(),
        )?;
    }
    let mut k = kept();
    if k.len() >= MAX_CHECKPOINTS {
        k.remove(0);
    }
    k.push(cp.clone());
    Ok(cp)
}

/// The checkpoints of `ws`, oldest first: this process's, and those in `disk`.
pub fn list(ws: &Workspace, disk: Option<&DiskJournal>) -> Vec<Checkpoint> {
    let mut out: Vec<Checkpoint> = kept()
        .iter()
        .filter(|c| c.root == ws.root())
        .cloned()
        .collect();
    for (name, bytes) in disk.map(|d| d.read_notes(SUFFIX)).unwrap_or_default() {
        let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let id = v["checkpoint_id"].as_str().unwrap_or_default();
        if v["format"] != FORMAT
            || !is_checkpoint_id(id)
            || name != format!("{id}{SUFFIX}")
            || out.iter().any(|c| c.checkpoint_id == id)
        {
            continue;
        }
        out.push(Checkpoint {
            checkpoint_id: id.to_string(),
            label: v["label"].as_str().map(str::to_string),
            root: ws.root().to_path_buf(),
        });
    }
    out.sort_by(|a, b| a.checkpoint_id.cmp(&b.checkpoint_id));
    out
}

/// The journaled edits since checkpoint `id` that touched `ws` (oldest first).
pub fn edits_since(ws: &Workspace, id: &str, disk: Option<&DiskJournal>) -> Vec<Entry> {
    journal::entries_after(id, disk)
        .into_iter()
        .filter(|e| e.files.iter().any(|f| ws.contains(&f.real)))
        .collect()
}

/// What a restore did to one file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RestoredFile {
    pub file_path: String,
    /// `"restored"` (its content at the checkpoint written back), `"deleted"` (created since),
    /// `"recreated"` (deleted since) or `"unchanged"` (its edits since cancel out).
    pub action: &'static str,
    /// Hash of the file now (`null` when deleted).
    pub file_hash: Option<String>,
}

/// What [`restore`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub checkpoint_id: String,
    pub files: Vec<RestoredFile>,
    /// The journaled edits reverted (they left the journal), oldest first.
    pub edits_reverted: Vec<String>,
    pub written: bool,
}

/// How [`restore`] runs.
#[derive(Debug, Clone, Copy)]
pub struct How<'a> {
    /// Walk on over changes made by something else, through whole saved contents.
    pub force: bool,
    /// Compute everything, write nothing.
    pub dry_run: bool,
    /// The largest file read.
    pub max_bytes: u64,
    /// Revert only these edits (an MCP session's own); any other edit since is a change by
    /// something else.
    pub only: Option<&'a [String]>,
}

/// The bytes `action` leaves over `now`.
fn apply(action: &Action, now: Option<&[u8]>) -> Option<Vec<u8>> {
    action.parts(now).map(|parts| parts.concat())
}

/// Restores every file surepatch wrote in `ws` since checkpoint `id` (see the module comment).
pub fn restore(
    ws: &Workspace,
    id: &str,
    disk: Option<&DiskJournal>,
    how: How<'_>,
) -> Result<Restored> {
    let How {
        force,
        dry_run,
        max_bytes,
        only,
    } = how;
    if !is_checkpoint_id(id) {
        return Err(Failure::new(
            Code::InvalidInput,
            format!("{id:?} is not a checkpoint id (they look like c0192f3a4b5c6000001a1b2, from createCheckpoint)."),
        ));
    }
    if !list(ws, disk).iter().any(|c| c.checkpoint_id == id) {
        return Err(Failure::new(
            Code::EditNotFound,
            format!("no checkpoint {id} of this workspace: checkpoints live in the process that made them, and with a journal_dir in it (pass the same one)."),
        )
        .with("checkpoint_id", id));
    }
    if journal::last_gap().is_some_and(|g| g[1..] > id[1..]) {
        return Err(Failure::new(
            Code::EditNotFound,
            format!("an edit made since checkpoint {id} could not be kept in the undo journal (too large, or evicted: the journal keeps the last {} edits), so the checkpoint cannot be restored; nothing was written.", journal::MAX_ENTRIES),
        )
        .with("checkpoint_id", id));
    }
    let entries: Vec<Entry> = edits_since(ws, id, disk)
        .into_iter()
        .filter(|e| only.is_none_or(|ids| ids.contains(&e.edit_id)))
        .collect();
    // Each file's records, oldest first.
    let mut by_file: BTreeMap<PathBuf, Vec<&FileRecord>> = BTreeMap::new();
    for e in &entries {
        for f in &e.files {
            if !ws.contains(&f.real) {
                return Err(Failure::new(
                    Code::PathOutsideWorkspace,
                    format!("edit {} since checkpoint {id} touched {}, outside the workspace root {}; restore it with that workspace_root.", e.edit_id, f.real.display(), ws.root().display()),
                )
                .with("checkpoint_id", id));
            }
            by_file.entry(f.real.clone()).or_default().push(f);
        }
    }
    let paths: Vec<(String, Resolve)> = by_file
        .keys()
        .map(|p| (p.to_string_lossy().into_owned(), Resolve::MayCreate))
        .collect();
    let mut txn = Txn::open(ws, &paths, max_bytes)?;
    let mut stale = Vec::new();
    let mut plan = Vec::new();
    for ((real, records), (user_path, _)) in by_file.iter().zip(&paths) {
        let i = txn
            .index_of(user_path)
            .expect("every path of the transaction has an entry");
        let now = txn.files[i].bytes.clone();
        let display = records[0].display.clone();
        let mut state = now.clone();
        let mut fits_all = true;
        let mut lost = false;
        for r in records.iter().rev() {
            let fits =
                txn.files[i].real == *real && state.as_deref().map(file_hash) == r.after_hash;
            fits_all &= fits;
            if !fits && !force {
                break;
            }
            state = match &r.before {
                None => None,
                Some(b) => match journal::restore_action(b, state.as_deref()) {
                    // A splice fits only the content its edit left; a whole content fits anything.
                    Some(a) if fits || matches!(b, Before::Whole(_)) => apply(&a, state.as_deref()),
                    _ => {
                        lost = true;
                        break;
                    }
                },
            };
            if !fits_all && !force {
                break;
            }
        }
        if (!fits_all && !force) || lost {
            stale.push(json!({
                "lost": lost,
                "file_path": display,
                "expected_hash": records[records.len() - 1].after_hash,
                "current_hash": now.as_deref().map(file_hash),
            }));
            continue;
        }
        let action = match (&now, &state) {
            (a, b) if a == b => Action::Keep,
            (_, None) => Action::Delete,
            (_, Some(b)) => Action::Write(b.clone()),
        };
        let what = match (&now, &state) {
            (a, b) if a == b => "unchanged",
            (_, None) => "deleted",
            (None, Some(_)) => "recreated",
            (Some(_), Some(_)) => "restored",
        };
        let kept = records[0].before_kept.clone().filter(|_| state.is_some());
        plan.push((
            i,
            action,
            kept,
            display,
            what,
            state.as_deref().map(file_hash),
        ));
    }
    if !stale.is_empty() {
        let first = &stale[0];
        let then = if first["lost"] == true {
            " Its content at the checkpoint was kept only as the stretches an edit replaced, which fit only the file as that edit left it, so even force cannot rebuild it (with journal_dir, whole contents are kept)."
        } else {
            " Look at it first, or restore with force to overwrite that change."
        };
        let first_path = first["file_path"].clone();
        let current = first["current_hash"].clone();
        let message = format!(
            "{} changed since surepatch last wrote it (it left hash {}, now {}); nothing was restored.{then}",
            first["file_path"].as_str().unwrap_or_default(),
            first["expected_hash"].as_str().unwrap_or("absent"),
            first["current_hash"].as_str().unwrap_or("absent"),
        );
        for s in &mut stale {
            if let Some(m) = s.as_object_mut() {
                m.remove("lost");
            }
        }
        return Err(Failure::new(Code::StaleFile, message)
            .with("checkpoint_id", id)
            .with("file_path", &first_path)
            .with("current_hash", &current)
            .with("stale_files", &stale));
    }
    let files: Vec<RestoredFile> = plan
        .iter()
        .map(|(_, _, _, display, what, hash)| RestoredFile {
            file_path: display.clone(),
            action: what,
            file_hash: hash.clone(),
        })
        .collect();
    let edits_reverted: Vec<String> = entries.iter().map(|e| e.edit_id.clone()).collect();
    if dry_run {
        return Ok(Restored {
            checkpoint_id: id.to_string(),
            files,
            edits_reverted,
            written: false,
        });
    }
    for (i, action, kept, ..) in plan {
        txn.files[i].action = action;
        if let Some(k) = kept {
            txn.keep_as(i, k);
        }
    }
    txn.commit()?;
    for e in &edits_reverted {
        journal::forget_entry(e, disk);
    }
    Ok(Restored {
        checkpoint_id: id.to_string(),
        files,
        edits_reverted,
        written: true,
    })
}
