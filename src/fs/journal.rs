//! The undo journal: what every successful write replaced, so that [`undo`] can put it back.
//!
//! Each committed transaction becomes one [`Entry`] named by an `edit_id`: for every file it touched,
//! the real path, the workspace-relative display path, what the file held before the write
//! ([`Before`]; `None` when the write created the file) and the hash the write left (`None` when it
//! deleted the file).
//!
//! - **In memory** (always): one process-wide journal, bounded to [`MAX_ENTRIES`] entries and
//!   [`MAX_BYTES`] bytes of saved content; the oldest entries are evicted first. An updated file's
//!   previous content is kept as the stretches the write replaced ([`Before::Splice`]) when they are
//!   at most half of it, so an edit of a few lines costs a few lines, however large the file; else,
//!   and for a deleted file, as a whole (moved, not copied). An entry
//!   larger than the byte cap by itself is not kept at all: its receipt says `undo_available: false`.
//! - **On disk** (optional, [`DiskJournal`]): a directory inside the workspace, resolved through the
//!   sandbox, holding one sub-directory per entry (`<edit_id>/entry.json` plus `<n>.bin`, the saved
//!   bytes of file `n`, whole). The same caps apply to it, counted in whole files; it lets an undo
//!   survive a process restart.
//!
//! An undo is itself not journaled: it cannot be undone (there is no redo). A successful undo removes
//! its entry, so the same `edit_id` cannot be undone twice. Undoing by file path picks the newest entry
//! that touched that file; calling it again steps further back, as long as each older entry left the
//! file in the state it is in now.
//!
//! ```
//! use surepatch::fs::{journal, txn::{Action, Txn}, workspace::{Resolve, Workspace}};
//! let d = tempfile::tempdir().unwrap();
//! std::fs::write(d.path().join("a.txt"), "one\n").unwrap();
//! let ws = Workspace::new(d.path()).unwrap();
//! let mut t = Txn::open(&ws, &[("a.txt".into(), Resolve::Existing)], 1 << 20).unwrap();
//! t.files[0].action = Action::Write(b"two\n".to_vec());
//! let done = t.commit().unwrap();
//! let id = journal::record(&done).unwrap();
//! let undone = journal::undo(&ws, journal::Target::Id(&id), None, 1 << 20).unwrap();
//! assert_eq!(undone.files[0].action, "restored");
//! assert_eq!(std::fs::read_to_string(d.path().join("a.txt")).unwrap(), "one\n");
//! ```

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;
use serde_json::{json, Value};

use crate::edit::hash::file_hash;
use crate::error::{Code, Failure, Result};
use crate::fs::fsio::{self, Kept};
use crate::fs::ids::{is_edit_id, new_edit_id};
use crate::fs::txn::{Action, Committed, Txn};
use crate::fs::workspace::{Resolve, Workspace};

/// Most entries kept (in memory, and in a journal directory).
pub const MAX_ENTRIES: usize = 200;
/// Most bytes of saved file content kept (in memory, and in a journal directory).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// What one edit did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub real: PathBuf,
    pub display: String,
    /// What the file held before the edit; `None` when the edit created the file.
    pub before: Option<Before>,
    /// The mode, owner and group before the edit (`None` when the edit created the file, or for an
    /// entry written before they were kept): an undo gives them back.
    pub before_kept: Option<Kept>,
    /// The hash the edit left; `None` when the edit deleted the file.
    pub after_hash: Option<String>,
}

/// What a file held before an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// The whole previous content.
    Whole(Vec<u8>),
    /// The previous content as a splice of the content the edit left (`(start, end, bytes)`, sorted
    /// and disjoint, as [`Action::Splice`]): valid only on exactly that content, which the undo checks
    /// by its hash first.
    Splice(Vec<(usize, usize, Vec<u8>)>),
}

impl Before {
    /// Bytes it keeps (a splice also counts 16 per stretch).
    pub fn size(&self) -> usize {
        match self {
            Before::Whole(b) => b.len(),
            Before::Splice(spans) => spans.iter().map(|(_, _, b)| b.len() + 16).sum(),
        }
    }

    /// The action that puts it back over `now` (the bytes the edit left); `None` when a splice does
    /// not fit `now`.
    fn restore(&self, now: Option<&[u8]>) -> Option<Action> {
        match self {
            Before::Whole(b) => Some(Action::Write(b.clone())),
            Before::Splice(spans) => {
                let len = now?.len();
                let mut pos = 0;
                for (s, e, _) in spans {
                    if *s < pos || e < s || *e > len {
                        return None;
                    }
                    pos = *e;
                }
                Some(Action::Splice(spans.clone()))
            }
        }
    }
}

/// One journaled edit (one transaction, one or more files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub edit_id: String,
    pub files: Vec<FileRecord>,
}

impl Entry {
    /// Bytes of saved content.
    pub fn size(&self) -> usize {
        self.files
            .iter()
            .map(|f| f.before.as_ref().map_or(0, Before::size))
            .sum()
    }

    /// Builds an entry from a commit, taking the `before` bytes out of `done` (no copy; kept whole).
    /// `None` when a changed file's previous bytes are unknown (a caller took them), so it could not
    /// be undone.
    pub fn from_committed(done: &mut [Committed]) -> Option<Entry> {
        if done.is_empty()
            || done
                .iter()
                .any(|c| c.kind != "create" && c.before.is_none())
        {
            return None;
        }
        let files = done
            .iter_mut()
            .map(|c| FileRecord {
                real: c.real.clone(),
                display: c.display.clone(),
                before: c.before.take().map(Before::Whole),
                before_kept: c.before_kept.clone(),
                after_hash: c.file_hash.clone(),
            })
            .collect();
        Some(Entry {
            edit_id: new_edit_id(),
            files,
        })
    }
}

/// A bounded journal: the oldest entries go first when either cap is exceeded.
#[derive(Debug)]
pub struct Journal {
    entries: VecDeque<Entry>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    /// The entries also written to a journal directory (id → directory): one of them missing from
    /// its directory later was undone (or pruned) by another process sharing it.
    on_disk: std::collections::HashMap<String, PathBuf>,
}

impl Journal {
    pub fn new(max_entries: usize, max_bytes: usize) -> Journal {
        Journal {
            entries: VecDeque::new(),
            bytes: 0,
            max_entries,
            max_bytes,
            on_disk: Default::default(),
        }
    }

    /// Keeps `e`, evicting the oldest entries as needed. Returns false (and keeps nothing) when `e`
    /// alone is above the byte cap.
    pub fn push(&mut self, e: Entry) -> bool {
        let size = e.size();
        if size > self.max_bytes || self.max_entries == 0 {
            return false;
        }
        while self.entries.len() >= self.max_entries || self.bytes + size > self.max_bytes {
            match self.entries.pop_front() {
                Some(old) => {
                    self.bytes -= old.size();
                    // Still in its journal directory, if it has one: a checkpoint finds it there.
                    if self.on_disk.remove(&old.edit_id).is_none() {
                        note_gap(old.edit_id.clone());
                    }
                }
                None => break,
            }
        }
        self.bytes += size;
        self.entries.push_back(e);
        true
    }

    pub fn get(&self, edit_id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.edit_id == edit_id)
    }

    /// The newest entry that touched `real`.
    pub fn latest_for(&self, real: &Path) -> Option<&Entry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.files.iter().any(|f| f.real == real))
    }

    pub fn remove(&mut self, edit_id: &str) -> Option<Entry> {
        let i = self.entries.iter().position(|e| e.edit_id == edit_id)?;
        let e = self.entries.remove(i)?;
        self.bytes -= e.size();
        self.on_disk.remove(edit_id);
        Some(e)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Bytes of saved content held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

fn global() -> std::sync::MutexGuard<'static, Journal> {
    static J: OnceLock<Mutex<Journal>> = OnceLock::new();
    let m = J.get_or_init(|| Mutex::new(Journal::new(MAX_ENTRIES, MAX_BYTES)));
    // A panic while holding the lock cannot leave the journal half-updated in a harmful way.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Journals a commit in memory, copying the `before` bytes. Returns the `edit_id`, or `None` when
/// the edit cannot be kept (above the byte cap, or a file's previous bytes are unknown).
pub fn record(done: &[Committed]) -> Option<String> {
    let size: usize = done
        .iter()
        .filter_map(|c| c.before.as_ref())
        .map(Vec::len)
        .sum();
    if size > MAX_BYTES {
        return None;
    }
    let mut copy = done.to_vec();
    record_taking(&mut copy, None).edit_id
}

/// What [`record_taking`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    /// `None` when nothing was kept (`undo_available: false`).
    pub edit_id: Option<String>,
    /// Set when the journal directory could not be written (the in-memory entry is still kept).
    pub warning: Option<String>,
}

/// Journals a commit, taking the `before` bytes out of `done` (no copy); also writes it to `disk`
/// when given, with whole files. In memory, each update keeps only the stretches it replaced
/// ([`Committed::reverse`]). Never fails: the edit is already on disk, so a journal problem is only
/// reported.
pub fn record_taking(done: &mut [Committed], disk: Option<&DiskJournal>) -> Recorded {
    let reverse: Vec<_> = done.iter_mut().map(|c| c.reverse.take()).collect();
    let Some(mut entry) = Entry::from_committed(done) else {
        note_gap(new_edit_id());
        return Recorded::default();
    };
    let whole = entry.size();
    let warning = disk.and_then(|d| {
        if whole > MAX_BYTES {
            return Some(format!(
                "the edit was written, but its {whole} bytes of previous content are above the journal directory's cap of {MAX_BYTES}; it can be undone only from this process"
            ));
        }
        d.write(&entry).err().map(|f| {
            format!(
                "the edit was written, but the journal directory could not be updated ({}); it can be undone only from this process",
                f.message
            )
        })
    });
    for (f, r) in entry.files.iter_mut().zip(reverse) {
        let Some(Before::Whole(b)) = &f.before else {
            continue;
        };
        // The stretches when they are at most half the file (else it is kept whole, not copied).
        let Some(r) = r.filter(|r| 2 * r.iter().map(|(_, _, x)| x.len()).sum::<usize>() <= b.len())
        else {
            continue;
        };
        let spans = r
            .into_iter()
            .map(|(s, e, x)| (s, e, b[x].to_vec()))
            .collect();
        f.before = Some(Before::Splice(spans));
    }
    let on_disk = disk.is_some() && warning.is_none();
    if entry.size() > MAX_BYTES {
        if !on_disk {
            note_gap(entry.edit_id.clone());
        }
        return Recorded::default();
    }
    let id = entry.edit_id.clone();
    let mut j = global();
    let kept = j.push(entry);
    if !kept && !on_disk {
        note_gap(id.clone());
    }
    if kept && warning.is_none() {
        if let Some(d) = disk {
            j.on_disk.insert(id.clone(), d.dir.clone());
        }
    }
    drop(j);
    Recorded {
        edit_id: kept.then_some(id),
        warning,
    }
}

/// The entry named `edit_id`, from memory or `disk`.
fn find_by_id(edit_id: &str, disk: Option<&DiskJournal>) -> Option<Entry> {
    if let Some(d) = disk {
        drop_undone_elsewhere(d);
    }
    if let Some(e) = global().get(edit_id) {
        return Some(e.clone());
    }
    disk.and_then(|d| d.load(edit_id))
}

/// Forgets the entries this process wrote to `disk` that are no longer there: another process
/// sharing the directory undid them (or pruned them), so undoing them here would restore a state
/// that was already walked back.
fn drop_undone_elsewhere(disk: &DiskJournal) {
    let Ok(sb) = disk.sandbox() else { return };
    let present: std::collections::HashSet<String> = disk.ids(&sb).into_iter().collect();
    let mut j = global();
    let gone: Vec<String> = j
        .on_disk
        .iter()
        .filter(|(id, dir)| **dir == disk.dir && !present.contains(*id))
        .map(|(id, _)| id.clone())
        .collect();
    for id in gone {
        j.remove(&id);
    }
}

/// The entry to undo for `real`, from memory or `disk`: the newest one that left the file as it is
/// now (`now`: its hash, `None` when absent), so that undoing by path walks back through the writes
/// in the order they happened, even when several processes share the journal directory (their ids
/// are ordered by clock and a per-process counter, which cannot order writes made in one
/// millisecond by two processes). With none such, the newest that touched it (undo then reports
/// `STALE_FILE`).
fn find_latest(
    real: &Path,
    now: Option<&str>,
    disk: Option<&DiskJournal>,
    scope: Scope<'_>,
) -> Option<Entry> {
    if let Some(d) = disk {
        drop_undone_elsewhere(d);
    }
    let mut candidates: Vec<(String, bool)> = global()
        .entries
        .iter()
        .filter_map(|e| {
            let f = e.files.iter().find(|f| f.real == real)?;
            Some((e.edit_id.clone(), f.after_hash.as_deref() == now))
        })
        .collect();
    if let Some(d) = disk {
        candidates.extend(d.candidates(real, now));
    }
    candidates.retain(|(id, _)| scope.reaches(id));
    let best = candidates
        .iter()
        .filter(|c| c.1)
        .map(|c| &c.0)
        .max()
        .or_else(|| candidates.iter().map(|c| &c.0).max())?
        .clone();
    find_by_id(&best, disk)
}

/// Removes an entry everywhere (after a successful undo).
fn forget(edit_id: &str, disk: Option<&DiskJournal>) {
    global().remove(edit_id);
    if let Some(d) = disk {
        d.remove(edit_id);
    }
}

/// Drops an entry from this process's memory only (tests: an undo from the disk journal alone, as
/// another process would make it).
#[cfg(test)]
pub(crate) fn forget_in_memory(edit_id: &str) {
    global().remove(edit_id);
}

// ---- for checkpoints (src/checkpoint.rs) -----------------------------------------------------

/// Every journaled entry created after `after` (an id of the edit-id form, compared without its first
/// letter: ids sort by creation time), from `disk` (whole files) and from this process's memory (the
/// entries `disk` does not hold), oldest first, each once.
pub(crate) fn entries_after(after: &str, disk: Option<&DiskJournal>) -> Vec<Entry> {
    if let Some(d) = disk {
        drop_undone_elsewhere(d);
    }
    let later = |id: &str| id.get(1..) > after.get(1..);
    let mut out: Vec<Entry> = Vec::new();
    if let Some(d) = disk {
        if let Ok(sb) = d.sandbox() {
            for id in d.ids(&sb) {
                if later(&id) {
                    if let Some(e) = d.load_in(&sb, &id) {
                        out.push(e);
                    }
                }
            }
        }
    }
    let mem: Vec<Entry> = global()
        .entries
        .iter()
        .filter(|e| later(&e.edit_id) && !out.iter().any(|o| o.edit_id == e.edit_id))
        .cloned()
        .collect();
    out.extend(mem);
    out.sort_by(|a, b| a.edit_id[1..].cmp(&b.edit_id[1..]));
    out
}

/// The newest write this process could not journal (above the byte cap, or evicted from memory), as
/// an id of its time: a checkpoint older than it cannot restore everything written since.
static GAP: Mutex<Option<String>> = Mutex::new(None);

pub(crate) fn note_gap(id: String) {
    let mut g = GAP.lock().unwrap_or_else(|p| p.into_inner());
    if g.as_deref().map(|x| &x[1..]) < Some(&id[1..]) {
        *g = Some(id);
    }
}

pub(crate) fn last_gap() -> Option<String> {
    GAP.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The action that puts `before` back over `now` (the bytes its edit left), if it fits.
pub(crate) fn restore_action(before: &Before, now: Option<&[u8]>) -> Option<Action> {
    before.restore(now)
}

/// Drops a reverted entry from memory and from `disk`.
pub(crate) fn forget_entry(edit_id: &str, disk: Option<&DiskJournal>) {
    forget(edit_id, disk)
}

impl DiskJournal {
    /// Writes `name` (a plain file name) in the journal directory, privately.
    pub(crate) fn write_note(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let sb = self.sandbox()?;
        sb.create_private_dirs_made(&self.dir)?;
        sb.write(&self.dir.join(name), &[bytes], fsio::Put::Private)
    }

    /// The files of the journal directory whose names end with `suffix`: `(name, bytes)`, by name.
    pub(crate) fn read_notes(&self, suffix: &str) -> Vec<(String, Vec<u8>)> {
        let Ok(sb) = self.sandbox() else {
            return Vec::new();
        };
        let mut out: Vec<(String, Vec<u8>)> = sb
            .list_dir(&self.dir)
            .into_iter()
            .filter(|(_, is_dir)| !*is_dir)
            .filter_map(|(n, _)| n.into_string().ok())
            .filter(|n| n.ends_with(suffix))
            .filter_map(|n| sb.read_regular(&self.dir.join(&n)).map(|b| (n, b)))
            .collect();
        out.sort();
        out
    }
}

/// Which journaled edits an undo may reach.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// Every edit in the journal (this process's memory, and the journal directory given).
    All,
    /// Only these edit ids (an MCP session's own edits): any other is `EDIT_NOT_FOUND`, as if absent.
    Only(&'a [String]),
}

impl Scope<'_> {
    fn reaches(&self, edit_id: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Only(ids) => ids.iter().any(|i| i == edit_id),
        }
    }
}

/// What to undo.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// An `edit_id` from a receipt.
    Id(&'a str),
    /// The newest journaled edit that touched this file.
    Path(&'a str),
}

/// What an undo did to one file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct UndoneFile {
    pub file_path: String,
    /// `"restored"` (previous bytes written back), `"recreated"` (the edit had deleted the file) or
    /// `"deleted"` (the edit had created the file).
    pub action: &'static str,
    /// Hash of the file now (`null` when deleted).
    pub file_hash: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Undone {
    pub edit_id: String,
    pub files: Vec<UndoneFile>,
}

/// Undoes one journaled edit, all files or none, through a [`Txn`] (locks, atomic writes, rollback).
///
/// Every file must still be exactly as the edit left it (same hash; still absent if the edit deleted
/// it), else `STALE_FILE` and nothing is written. Unknown or evicted id, or no journaled edit of the
/// file → `EDIT_NOT_FOUND`. A file of the entry outside `ws` → `PATH_OUTSIDE_WORKSPACE`.
pub fn undo(
    ws: &Workspace,
    target: Target<'_>,
    disk: Option<&DiskJournal>,
    max_bytes: u64,
) -> Result<Undone> {
    undo_in(ws, target, disk, max_bytes, Scope::All)
}

/// The journaled edit `target` names among those `scope` reaches, as [`undo`] would pick it; writes
/// nothing. Unknown, evicted, out of scope, or no such edit of the file → `EDIT_NOT_FOUND`; an edit
/// that touched a file outside `ws` → `PATH_OUTSIDE_WORKSPACE`.
pub fn find(
    ws: &Workspace,
    target: Target<'_>,
    disk: Option<&DiskJournal>,
    scope: Scope<'_>,
) -> Result<Entry> {
    let entry = find_entry(ws, target, disk, scope)?;
    for f in &entry.files {
        if !ws.contains(&f.real) {
            return Err(Failure::new(
                Code::PathOutsideWorkspace,
                format!(
                    "edit {} touched {}, outside the workspace root {}; undo it with that workspace_root.",
                    entry.edit_id,
                    f.real.display(),
                    ws.root().display()
                ),
            )
            .with("edit_id", &entry.edit_id));
        }
    }
    Ok(entry)
}

fn find_entry(
    ws: &Workspace,
    target: Target<'_>,
    disk: Option<&DiskJournal>,
    scope: Scope<'_>,
) -> Result<Entry> {
    match target {
        Target::Id(id) => scope
            .reaches(id)
            .then(|| find_by_id(id, disk))
            .flatten()
            .ok_or_else(|| {
                Failure::new(
                    Code::EditNotFound,
                    format!("no journaled edit has the id {id:?}: it was already undone, evicted from the journal (it keeps the last {MAX_ENTRIES} edits, {} MiB), or made by another process or session; re-read the file and edit it directly.", MAX_BYTES >> 20),
                )
                .with("edit_id", id)
            }),
        Target::Path(p) => {
            let r = ws.resolve(p, Resolve::MayCreate)?;
            let now = fsio::Sandbox::open(ws.root())
                .ok()
                .and_then(|sb| sb.read_regular(&r.real))
                .map(|b| file_hash(&b));
            find_latest(&r.real, now.as_deref(), disk, scope).ok_or_else(|| {
                Failure::new(
                    Code::EditNotFound,
                    format!("the undo journal holds no edit of {}; re-read the file and edit it directly.", r.display),
                )
                .with("file_path", &r.display)
            })
        }
    }
}

/// [`undo`] of an edit `scope` reaches: another edit is `EDIT_NOT_FOUND`, exactly as an unknown one.
pub fn undo_in(
    ws: &Workspace,
    target: Target<'_>,
    disk: Option<&DiskJournal>,
    max_bytes: u64,
    scope: Scope<'_>,
) -> Result<Undone> {
    let entry = find(ws, target, disk, scope)?;
    let paths: Vec<(String, Resolve)> = entry
        .files
        .iter()
        .map(|f| (f.real.to_string_lossy().into_owned(), Resolve::MayCreate))
        .collect();
    let mut txn = Txn::open(ws, &paths, max_bytes)?;
    let mut stale = Vec::new();
    let mut plan = Vec::with_capacity(entry.files.len());
    for (f, (user_path, _)) in entry.files.iter().zip(&paths) {
        let i = txn
            .index_of(user_path)
            .expect("every path of the transaction has an entry");
        let tf = &txn.files[i];
        let now = tf.bytes.as_deref().map(file_hash);
        // What puts the file back (a whole file is cloned once, here): a splice must fit it.
        let action = match &f.before {
            Some(b) => b.restore(tf.bytes.as_deref()),
            None => Some(Action::Delete),
        };
        if tf.real != f.real || now != f.after_hash || action.is_none() {
            stale.push(json!({
                "file_path": f.display,
                "expected_hash": f.after_hash,
                "current_hash": now,
            }));
        }
        plan.push((i, action.unwrap_or(Action::Keep)));
    }
    if !stale.is_empty() {
        let first = &stale[0];
        let mut fail = Failure::new(
            Code::StaleFile,
            format!(
                "{} changed after edit {} (the edit left hash {}, now {}); nothing was restored. Re-read the file and edit it directly.",
                first["file_path"].as_str().unwrap_or_default(),
                entry.edit_id,
                hash_or_absent(&first["expected_hash"]),
                hash_or_absent(&first["current_hash"]),
            ),
        )
        .with("edit_id", &entry.edit_id)
        .with("file_path", &first["file_path"])
        .with("current_hash", &first["current_hash"]);
        fail = fail.with("stale_files", &stale);
        return Err(fail);
    }
    for (f, (i, action)) in entry.files.iter().zip(plan) {
        txn.files[i].action = action;
        if let (Some(_), Some(kept)) = (&f.before, &f.before_kept) {
            txn.keep_as(i, kept.clone());
        }
    }
    let done = txn.commit()?;
    forget(&entry.edit_id, disk);
    let files = entry
        .files
        .iter()
        .map(|f| {
            let c = done.iter().find(|c| c.real == f.real);
            UndoneFile {
                file_path: f.display.clone(),
                action: match (&f.before, &f.after_hash) {
                    (None, _) => "deleted",
                    (Some(_), None) => "recreated",
                    (Some(_), Some(_)) => "restored",
                },
                file_hash: c.and_then(|c| c.file_hash.clone()),
            }
        })
        .collect();
    Ok(Undone {
        edit_id: entry.edit_id,
        files,
    })
}

fn hash_or_absent(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| "absent".into())
}

// ---------------------------------------------------------------------------------------------
// On disk

const ENTRY_FILE: &str = "entry.json";
const FORMAT: &str = "surepatch-journal/1";

/// A journal directory: inside the workspace ([`DiskJournal::open`]), or anywhere the host chooses
/// ([`DiskJournal::open_host`]).
#[derive(Debug, Clone)]
pub struct DiskJournal {
    root: PathBuf,
    dir: PathBuf,
    /// Every access to the journal directory goes through a sandbox rooted here (the workspace root,
    /// or the host's directory).
    within: PathBuf,
}

impl DiskJournal {
    /// Resolves `dir` (workspace-relative or absolute, inside the root) through the sandbox. The
    /// directory need not exist yet; it is created at the first write.
    pub fn open(ws: &Workspace, dir: &str) -> Result<DiskJournal> {
        if dir.is_empty() {
            return Err(Failure::new(
                Code::InvalidInput,
                "options.journal_dir is empty; name a directory inside the workspace.",
            ));
        }
        let probe = format!("{}/{ENTRY_FILE}", dir.trim_end_matches('/'));
        let r = ws.resolve(&probe, Resolve::MayCreate).map_err(|f| {
            let msg = format!("options.journal_dir {dir:?} cannot be used: {}", f.message);
            Failure { message: msg, ..f }
        })?;
        let parent = r.real.parent().map(Path::to_path_buf).ok_or_else(|| {
            Failure::new(
                Code::InvalidInput,
                format!("options.journal_dir {dir:?} is not a directory"),
            )
        })?;
        // Its entries (`<dir>/<edit id>/entry.json`) must stay nameable by their path.
        let longest = parent.as_os_str().len() + 1 + 23 + 1 + ENTRY_FILE.len();
        if longest > crate::fs::workspace::PATH_MAX_BYTES {
            return Err(Failure::new(
                Code::InvalidInput,
                format!(
                    "options.journal_dir {dir:?} is too deep: its entries would be {longest}-byte \
                     paths, more than the system allows ({})",
                    crate::fs::workspace::PATH_MAX_BYTES
                ),
            )
            .with("path", dir));
        }
        Ok(DiskJournal {
            root: ws.root().to_path_buf(),
            within: ws.root().to_path_buf(),
            dir: parent,
        })
    }

    /// A journal directory chosen by the host, not by a model: an absolute path, inside or outside the
    /// workspace (a command line keeps its journal in the user's state directory), created if missing.
    /// Not sandboxed: never pass a path that came from a tool call. Use one directory per workspace
    /// root: entries name files by their workspace-relative path.
    pub fn open_host(ws: &Workspace, dir: &str) -> Result<DiskJournal> {
        let bad = |why: String| Failure::new(Code::InvalidInput, why).with("path", dir);
        if !Path::new(dir).is_absolute() {
            return Err(bad(format!(
                "host_journal_dir {dir:?} must be an absolute path."
            )));
        }
        // Missing directories on the way are made private too (owner only): they exist to hold it.
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, fsio::PRIVATE_DIR_MODE);
        builder
            .create(dir)
            .map_err(|e| bad(format!("host_journal_dir {dir:?} cannot be created: {e}")))?;
        let real = std::fs::canonicalize(dir)
            .map_err(|e| bad(format!("host_journal_dir {dir:?} cannot be used: {e}")))?;
        if !real.is_dir() {
            return Err(bad(format!("host_journal_dir {dir:?} is not a directory")));
        }
        Ok(DiskJournal {
            root: ws.root().to_path_buf(),
            within: real.clone(),
            dir: real,
        })
    }

    /// The directory's real path.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sandbox every access to the journal directory goes through.
    fn sandbox(&self) -> Result<fsio::Sandbox> {
        fsio::Sandbox::open(&self.within)
    }

    /// Writes the entry `e`. A failure leaves nothing: the files it wrote are removed, then the
    /// directories it made (the entry's, and those of the journal directory it created), each only
    /// while empty.
    ///
    /// The journal holds files' previous content, so it is private: the directories it makes are
    /// 0o700, its files 0o600 (from their creation), and a journal directory of this user that
    /// others may enter (made before journals were private) is first narrowed to 0o700, which also
    /// closes the entries already in it.
    fn write(&self, e: &Entry) -> Result<()> {
        let sb = self.sandbox()?;
        let at = self.dir.join(&e.edit_id);
        let made = sb.create_private_dirs_made(&at)?;
        if let Err(f) = sb.make_private(&self.dir) {
            sb.remove_made_dirs(&made);
            return Err(f);
        }
        let mut written: Vec<PathBuf> = Vec::new();
        let r = self.write_files(&sb, e, &at, &mut written);
        if r.is_err() {
            for f in &written {
                let _ = sb.remove_file(f);
            }
            sb.remove_made_dirs(&made);
        }
        r
    }

    fn write_files(
        &self,
        sb: &fsio::Sandbox,
        e: &Entry,
        at: &Path,
        written: &mut Vec<PathBuf>,
    ) -> Result<()> {
        let mut files = Vec::new();
        for (n, f) in e.files.iter().enumerate() {
            let before = match &f.before {
                Some(Before::Splice(_)) => {
                    return Err(Failure::new(
                        Code::InternalError,
                        "a journal entry is written to its directory with whole files",
                    ))
                }
                Some(Before::Whole(b)) => {
                    let name = format!("{n}.bin");
                    sb.write(&at.join(&name), &[b], fsio::Put::Private)?;
                    written.push(at.join(&name));
                    Some((name, file_hash(b)))
                }
                None => None,
            };
            files.push(json!({
                "path": f.display,
                "before": before.as_ref().map(|b| &b.0),
                "before_hash": before.as_ref().map(|b| &b.1),
                "before_kept": f.before_kept.as_ref().map(Kept::to_json),
                "after_hash": f.after_hash,
            }));
        }
        let manifest = json!({"format": FORMAT, "edit_id": e.edit_id, "files": files});
        // The manifest last: an entry without one is incomplete and ignored.
        let manifest = manifest.to_string();
        sb.write(
            &at.join(ENTRY_FILE),
            &[manifest.as_bytes()],
            fsio::Put::Private,
        )?;
        self.prune(sb);
        Ok(())
    }

    /// Entry directory names, oldest first.
    fn ids(&self, sb: &fsio::Sandbox) -> Vec<String> {
        let mut ids: Vec<String> = sb
            .list_dir(&self.dir)
            .into_iter()
            .filter(|(_, is_dir)| *is_dir)
            .filter_map(|(n, _)| n.into_string().ok())
            .filter(|n| is_edit_id(n))
            .collect();
        ids.sort();
        ids
    }

    /// Loads an entry; `None` when absent, incomplete or damaged.
    fn load(&self, edit_id: &str) -> Option<Entry> {
        self.load_in(&self.sandbox().ok()?, edit_id)
    }

    fn load_in(&self, sb: &fsio::Sandbox, edit_id: &str) -> Option<Entry> {
        if !is_edit_id(edit_id) {
            return None;
        }
        let at = self.dir.join(edit_id);
        let manifest: Value =
            serde_json::from_slice(&sb.read_regular(&at.join(ENTRY_FILE))?).ok()?;
        if manifest["format"] != FORMAT || manifest["edit_id"] != edit_id {
            return None;
        }
        let mut files = Vec::new();
        for f in manifest["files"].as_array()? {
            let display = f["path"].as_str()?;
            let before = match f["before"].as_str() {
                Some(name) => {
                    if name.contains('/') || name.contains('\\') || name.starts_with('.') {
                        return None;
                    }
                    let b = sb.read_regular(&at.join(name))?;
                    if f["before_hash"].as_str() != Some(file_hash(&b).as_str()) {
                        return None;
                    }
                    Some(Before::Whole(b))
                }
                None => None,
            };
            let after_hash = match &f["after_hash"] {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                _ => return None,
            };
            files.push(FileRecord {
                real: self.root.join(display),
                display: display.to_string(),
                before,
                // Absent from entries written before it was kept: the undo then keeps the file's.
                before_kept: Kept::from_json(&f["before_kept"]),
                after_hash,
            });
        }
        Some(Entry {
            edit_id: edit_id.to_string(),
            files,
        })
    }

    /// The entries whose manifest names `real`: `(edit_id, whether it left the hash now)` (`now`:
    /// `None` when the file is absent). Reads manifests only.
    fn candidates(&self, real: &Path, now: Option<&str>) -> Vec<(String, bool)> {
        let Ok(sb) = self.sandbox() else {
            return Vec::new();
        };
        self.ids(&sb)
            .into_iter()
            .filter_map(|id| {
                let m: Value =
                    serde_json::from_slice(&sb.read_regular(&self.dir.join(&id).join(ENTRY_FILE))?)
                        .ok()?;
                let f = m["files"]
                    .as_array()?
                    .iter()
                    .find(|f| f["path"].as_str().map(|p| self.root.join(p)) == Some(real.into()))?;
                let hit = f["after_hash"].as_str() == now;
                Some((id, hit))
            })
            .collect()
    }

    /// The newest complete entry that touched `real`.
    #[cfg(test)]
    fn latest_for(&self, real: &Path) -> Option<Entry> {
        let sb = self.sandbox().ok()?;
        self.ids(&sb).iter().rev().find_map(|id| {
            // Read only the manifest first; load the saved bytes of the matching entry alone.
            let m: Value =
                serde_json::from_slice(&sb.read_regular(&self.dir.join(id).join(ENTRY_FILE))?)
                    .ok()?;
            let hit = m["files"]
                .as_array()?
                .iter()
                .any(|f| f["path"].as_str().map(|p| self.root.join(p)) == Some(real.into()));
            if hit {
                self.load_in(&sb, id)
            } else {
                None
            }
        })
    }

    fn remove(&self, edit_id: &str) {
        if let Ok(sb) = self.sandbox() {
            self.remove_in(&sb, edit_id);
        }
    }

    fn remove_in(&self, sb: &fsio::Sandbox, edit_id: &str) {
        if is_edit_id(edit_id) {
            sb.remove_dir_all(&self.dir.join(edit_id));
        }
    }

    /// Keeps at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] of saved bytes, dropping the oldest.
    fn prune(&self, sb: &fsio::Sandbox) {
        let ids = self.ids(sb);
        let sizes: Vec<u64> = ids
            .iter()
            .map(|id| {
                sb.file_sizes(&self.dir.join(id))
                    .into_iter()
                    .filter(|(n, _)| n.to_string_lossy().ends_with(".bin"))
                    .map(|(_, len)| len)
                    .sum()
            })
            .collect();
        let mut count = ids.len();
        let mut total: u64 = sizes.iter().sum();
        for (id, size) in ids.iter().zip(&sizes) {
            if count <= MAX_ENTRIES && total <= MAX_BYTES as u64 {
                break;
            }
            self.remove_in(sb, id);
            count -= 1;
            total -= size;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn entry(size: usize) -> Entry {
        Entry {
            edit_id: new_edit_id(),
            files: vec![FileRecord {
                real: PathBuf::from("/x"),
                display: "x".into(),
                before: Some(Before::Whole(vec![b'a'; size])),
                before_kept: None,
                after_hash: Some("h".into()),
            }],
        }
    }

    #[test]
    fn bounded_by_count_and_bytes_oldest_first() {
        let mut j = Journal::new(3, 100);
        let ids: Vec<String> = (0..4)
            .map(|_| {
                let e = entry(10);
                let id = e.edit_id.clone();
                assert!(j.push(e));
                id
            })
            .collect();
        assert_eq!(j.len(), 3);
        assert!(j.get(&ids[0]).is_none(), "oldest evicted by count");
        assert_eq!(j.bytes(), 30);
        assert!(j.push(entry(80)));
        assert_eq!(j.len(), 3, "one entry evicted to fit 80 bytes");
        assert_eq!(j.bytes(), 100);
        assert!(j.push(entry(95)));
        assert_eq!(j.len(), 1, "byte cap evicts the older ones");
        assert_eq!(j.bytes(), 95);
        assert!(!j.push(entry(101)), "an entry above the cap is not kept");
        assert_eq!(j.len(), 1);
        let last = j.latest_for(Path::new("/x")).unwrap().edit_id.clone();
        assert!(j.remove(&last).is_some());
        assert!(j.is_empty());
        assert_eq!(j.bytes(), 0);
    }

    #[test]
    fn ids_are_unique_sortable_and_recognised() {
        let a = new_edit_id();
        let b = new_edit_id();
        assert_ne!(a, b);
        assert!(is_edit_id(&a), "{a}");
        assert!(a < b || a[..13] != b[..13]);
        assert!(!is_edit_id("a.txt"));
        assert!(!is_edit_id(&a.to_uppercase()));
    }

    #[test]
    fn an_update_with_unknown_before_bytes_is_not_kept() {
        let mut done = vec![Committed {
            display: "a".into(),
            real: "/a".into(),
            kind: "update",
            before: None,
            before_kept: None,
            file_hash: Some("h".into()),
            after_bytes: 1,
            reverse: None,
        }];
        assert_eq!(record_taking(&mut done, None), Recorded::default());
    }

    /// A file of `size` bytes with one line changed in its middle, committed through a [`Txn`]: the
    /// workspace, the bytes before, and the commit.
    fn edit_in_the_middle(size: usize) -> (tempfile::TempDir, Vec<u8>, Vec<Committed>) {
        let d = tempfile::tempdir().unwrap();
        let before: Vec<u8> = (0..size).map(|i| b"abcdefgh\n"[i % 9]).collect();
        fs::write(d.path().join("big.txt"), &before).unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let mut t = Txn::open(&ws, &[("big.txt".into(), Resolve::Existing)], 1 << 30).unwrap();
        let mid = size / 2 / 9 * 9;
        t.files[0].action = Action::Splice(vec![(mid, mid + 8, b"CHANGED, longer".to_vec())]);
        let done = t.commit().unwrap();
        (d, before, done)
    }

    /// A rewrite of most of a file keeps the previous file whole (moved, not copied into a stretch).
    #[test]
    fn a_rewrite_of_most_of_a_file_keeps_it_whole() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let mut t = Txn::open(&ws, &[("a.txt".into(), Resolve::Existing)], 1 << 20).unwrap();
        t.files[0].action = Action::Write(b"one\nTWO, THREE AND MORE\n".to_vec());
        let mut done = t.commit().unwrap();
        let id = record_taking(&mut done, None).edit_id.unwrap();
        assert_eq!(
            global().get(&id).unwrap().files[0].before,
            Some(Before::Whole(b"one\ntwo\nthree\n".to_vec()))
        );
        undo(&ws, Target::Id(&id), None, 1 << 20).unwrap();
        assert_eq!(
            fs::read(d.path().join("a.txt")).unwrap(),
            b"one\ntwo\nthree\n"
        );
    }

    /// An update of a large file costs the in-memory journal the stretch it replaced, not the file;
    /// the undo puts the whole file back, and refuses a file changed since (the stretch would land on
    /// other bytes).
    #[test]
    fn an_update_keeps_only_the_replaced_stretch_in_memory() {
        let (d, before, mut done) = edit_in_the_middle(2 << 20);
        let ws = Workspace::new(d.path()).unwrap();
        let id = record_taking(&mut done, None).edit_id.unwrap();
        let kept = global().get(&id).cloned().unwrap();
        let mid = (2 << 20) / 2 / 9 * 9;
        assert_eq!(
            kept.files[0].before,
            Some(Before::Splice(vec![(mid, mid + 15, b"abcdefgh".to_vec())]))
        );
        assert!(kept.size() < 100, "{}", kept.size());
        // A change elsewhere in the file: stale, nothing written.
        let path = d.path().join("big.txt");
        let mut now = fs::read(&path).unwrap();
        now[0] = b'X';
        fs::write(&path, &now).unwrap();
        let f = undo(&ws, Target::Id(&id), None, 1 << 30).unwrap_err();
        assert_eq!(f.code, Code::StaleFile);
        assert_eq!(fs::read(&path).unwrap(), now);
        now[0] = b'a';
        fs::write(&path, &now).unwrap();
        let u = undo(&ws, Target::Id(&id), None, 1 << 30).unwrap();
        assert_eq!(u.files[0].action, "restored");
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    /// With a journal directory, the directory keeps the whole previous file (an undo from another
    /// process reads it from there) while memory keeps the stretch.
    #[test]
    fn a_journal_directory_keeps_whole_files() {
        let (d, before, mut done) = edit_in_the_middle(100_000);
        let ws = Workspace::new(d.path()).unwrap();
        let dj = DiskJournal::open(&ws, ".journal").unwrap();
        let r = record_taking(&mut done, Some(&dj));
        assert_eq!(r.warning, None);
        let id = r.edit_id.unwrap();
        assert_eq!(fs::read(dj.dir().join(&id).join("0.bin")).unwrap(), before);
        assert!(matches!(
            global().get(&id).unwrap().files[0].before,
            Some(Before::Splice(_))
        ));
        let loaded = dj.load(&id).unwrap();
        assert_eq!(loaded.files[0].before, Some(Before::Whole(before.clone())));
        // Forgotten in memory (as in a new process): undone from the directory.
        global().remove(&id);
        undo(&ws, Target::Id(&id), Some(&dj), 1 << 30).unwrap();
        assert_eq!(fs::read(d.path().join("big.txt")).unwrap(), before);
        assert!(!dj.dir().join(&id).exists());
    }

    /// A file above the journal's byte cap: too large for a journal directory (a warning, nothing
    /// written there), but its edit is kept in memory and undone.
    #[test]
    fn an_edit_of_a_file_above_the_cap_is_undoable_from_memory() {
        let (d, before, mut done) = edit_in_the_middle(MAX_BYTES + 10);
        let ws = Workspace::new(d.path()).unwrap();
        let dj = DiskJournal::open(&ws, ".journal").unwrap();
        let r = record_taking(&mut done, Some(&dj));
        let warning = r.warning.unwrap();
        assert!(
            warning.contains("above the journal directory's cap"),
            "{warning}"
        );
        assert!(!dj.dir().exists() || fs::read_dir(dj.dir()).unwrap().count() == 0);
        let id = r.edit_id.unwrap();
        undo(&ws, Target::Id(&id), Some(&dj), 1 << 30).unwrap();
        assert!(fs::read(d.path().join("big.txt")).unwrap() == before);
    }

    #[test]
    fn disk_journal_round_trip_prune_and_damage() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let dj = DiskJournal::open(&ws, ".journal").unwrap();
        let real = ws.root().join("f.txt");
        let e = Entry {
            edit_id: new_edit_id(),
            files: vec![
                FileRecord {
                    real: real.clone(),
                    display: "f.txt".into(),
                    before: Some(Before::Whole(b"old\n".to_vec())),
                    before_kept: None,
                    after_hash: Some(file_hash(b"new\n")),
                },
                FileRecord {
                    real: ws.root().join("n.txt"),
                    display: "n.txt".into(),
                    before: None,
                    before_kept: None,
                    after_hash: Some(file_hash(b"x")),
                },
            ],
        };
        dj.write(&e).unwrap();
        assert_eq!(dj.load(&e.edit_id).unwrap(), e);
        assert_eq!(dj.latest_for(&real).unwrap(), e);
        assert!(dj.latest_for(&ws.root().join("other")).is_none());
        // Damaged saved bytes: the entry is not used.
        fs::write(dj.dir().join(&e.edit_id).join("0.bin"), b"tampered").unwrap();
        assert!(dj.load(&e.edit_id).is_none());
        dj.remove(&e.edit_id);
        assert!(!dj.dir().join(&e.edit_id).exists());
        // Outside the workspace: refused.
        let f = DiskJournal::open(&ws, "../elsewhere").unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
        // A file in the way.
        fs::write(d.path().join("plain"), "x").unwrap();
        assert_eq!(
            DiskJournal::open(&ws, "plain").unwrap_err().code,
            Code::InvalidInput
        );
    }

    /// Regression (fuzz finding 5): an entry that fails midway (here its manifest, after its saved
    /// bytes were written) leaves nothing: not the bytes, not the entry's directory, not the journal
    /// directories it made; a journal directory that existed stays.
    #[test]
    fn failed_entry_write_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        fs::create_dir(d.path().join("kept")).unwrap();
        for dir in ["kept", "new/journal"] {
            let dj = DiskJournal::open(&ws, dir).unwrap();
            let e = Entry {
                edit_id: new_edit_id(),
                files: vec![FileRecord {
                    real: ws.root().join("f.txt"),
                    display: "f.txt".into(),
                    before: Some(Before::Whole(b"old\n".to_vec())),
                    before_kept: None,
                    after_hash: Some(file_hash(b"new\n")),
                }],
            };
            let entry = Path::new(&e.edit_id).join(ENTRY_FILE);
            let f = crate::fs::fsio::with_write_fault(entry.to_string_lossy(), || {
                dj.write(&e).unwrap_err()
            });
            assert_eq!(f.code, Code::FileWriteError, "{f:?}");
            let names: Vec<_> = fs::read_dir(d.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, vec![std::ffi::OsString::from("kept")], "{dir}");
            assert_eq!(fs::read_dir(d.path().join("kept")).unwrap().count(), 0);
        }
    }

    #[test]
    fn undo_from_the_disk_journal_alone() {
        // As after a restart: the entry is on disk, not in this process's memory.
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        fs::write(d.path().join("f.txt"), "new\n").unwrap();
        let dj = DiskJournal::open(&ws, "j").unwrap();
        let e = Entry {
            edit_id: new_edit_id(),
            files: vec![FileRecord {
                real: ws.root().join("f.txt"),
                display: "f.txt".into(),
                before: Some(Before::Whole(b"old\n".to_vec())),
                before_kept: None,
                after_hash: Some(file_hash(b"new\n")),
            }],
        };
        dj.write(&e).unwrap();
        assert!(global().get(&e.edit_id).is_none());
        let f = undo(&ws, Target::Id(&e.edit_id), None, 1 << 20).unwrap_err();
        assert_eq!(f.code, Code::EditNotFound);
        let u = undo(&ws, Target::Path("f.txt"), Some(&dj), 1 << 20).unwrap();
        assert_eq!(u.edit_id, e.edit_id);
        assert_eq!(fs::read(d.path().join("f.txt")).unwrap(), b"old\n");
        assert!(dj.load(&e.edit_id).is_none(), "removed after the undo");
    }

    #[test]
    fn disk_journal_prunes_to_the_entry_cap() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let dj = DiskJournal::open(&ws, "j").unwrap();
        // Plant MAX_ENTRIES complete-looking entries with old ids, then write one more.
        for i in 0..MAX_ENTRIES {
            let id = format!("e{:012x}{:06x}0000", 1, i);
            fs::create_dir_all(dj.dir().join(id)).unwrap();
        }
        let e = entry(3);
        let e = Entry {
            files: vec![FileRecord {
                real: ws.root().join("x"),
                display: "x".into(),
                ..e.files[0].clone()
            }],
            ..e
        };
        dj.write(&e).unwrap();
        let ids = dj.ids(&dj.sandbox().unwrap());
        assert_eq!(ids.len(), MAX_ENTRIES);
        assert_eq!(ids.last(), Some(&e.edit_id));
        assert!(!ids.contains(&format!("e{:012x}{:06x}0000", 1, 0)));
    }

    /// Regression (issue #16, item 6): ids from two processes cannot order writes made in one
    /// millisecond (the counter is per process), so undo by path got stuck on `STALE_FILE`. Two
    /// entries whose ids sort against the order of the writes: undo follows the file's state.
    #[test]
    fn undo_by_path_follows_the_writes_not_the_ids() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let dj = DiskJournal::open(&ws, "j").unwrap();
        let real = ws.root().join("f.txt");
        fs::write(&real, "v2\n").unwrap();
        let rec = |id: &str, before: &[u8], after: &[u8]| Entry {
            edit_id: id.to_string(),
            files: vec![FileRecord {
                real: real.clone(),
                display: "f.txt".into(),
                before: Some(Before::Whole(before.to_vec())),
                before_kept: None,
                after_hash: Some(file_hash(after)),
            }],
        };
        // v0 → v1 by "process Q" (counter 5), then v1 → v2 by "process P" (counter 0), same ms.
        let first = rec("e000000000001000005aaaa", b"v0\n", b"v1\n");
        let second = rec("e000000000001000000bbbb", b"v1\n", b"v2\n");
        dj.write(&first).unwrap();
        dj.write(&second).unwrap();
        let u = undo(&ws, Target::Path("f.txt"), Some(&dj), 1 << 20).unwrap();
        assert_eq!(u.edit_id, second.edit_id);
        assert_eq!(fs::read(&real).unwrap(), b"v1\n");
        let u = undo(&ws, Target::Path("f.txt"), Some(&dj), 1 << 20).unwrap();
        assert_eq!(u.edit_id, first.edit_id);
        assert_eq!(fs::read(&real).unwrap(), b"v0\n");
        let f = undo(&ws, Target::Path("f.txt"), Some(&dj), 1 << 20).unwrap_err();
        assert_eq!(f.code, Code::EditNotFound);
        assert_eq!(fs::read(&real).unwrap(), b"v0\n");
    }

    /// Issue #26 §2: the journal holds files' previous content, so it is private whatever the
    /// umask: its files 0o600, the directories it makes 0o700 (a host journal's missing parents
    /// too), and a journal directory of this user that others could enter is narrowed to 0o700.
    #[cfg(unix)]
    #[test]
    fn a_journal_directory_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        let secret = |real: PathBuf| Entry {
            edit_id: new_edit_id(),
            files: vec![FileRecord {
                real,
                display: "secret.env".into(),
                before: Some(Before::Whole(b"TOKEN=hunter2\n".to_vec())),
                before_kept: None,
                after_hash: Some(file_hash(b"TOKEN=x\n")),
            }],
        };
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        // (The test process's umask, 0o022 usually, would leave 0o644 files and 0o755 directories.)
        let check = |dj: &DiskJournal, made: &[&Path]| {
            let e = secret(ws.root().join("secret.env"));
            dj.write(&e).unwrap();
            let at = dj.dir().join(&e.edit_id);
            for p in made.iter().copied().chain([dj.dir(), at.as_path()]) {
                assert_eq!(mode(p), 0o700, "{}", p.display());
            }
            for f in ["0.bin", ENTRY_FILE] {
                assert_eq!(mode(&at.join(f)), 0o600, "{f}");
            }
            assert_eq!(dj.load(&e.edit_id).unwrap(), e);
        };
        // A journal directory inside the workspace, made with its parent by the first write.
        let dj = DiskJournal::open(&ws, "state/journal").unwrap();
        check(&dj, &[&d.path().join("state")]);
        // A host journal directory, made with its missing parents when opened.
        let host = tempfile::tempdir().unwrap();
        let dir = host.path().join("surepatch/journal/root-0123");
        let dj = DiskJournal::open_host(&ws, dir.to_str().unwrap()).unwrap();
        let parents = [
            host.path().join("surepatch"),
            host.path().join("surepatch/journal"),
        ];
        check(&dj, &[&parents[0], &parents[1]]);
        // One made open before (0o755, its entries 0o644): narrowed at the next write.
        let open = host.path().join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).unwrap();
        let dj = DiskJournal::open_host(&ws, open.to_str().unwrap()).unwrap();
        assert_eq!(mode(&open), 0o755, "opening alone changes nothing");
        check(&dj, &[]);
    }
}
