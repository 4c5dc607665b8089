//! Transactions over one or more files: every file is resolved and locked first, read, handed to the
//! caller to compute new contents, then written all at once; if a write fails midway, the files
//! already written are restored.
//!
//! # Locks
//!
//! A transaction locks each existing file it names, and for each file it may create, the deepest
//! directory above it that exists (so that two creators of one name are serialized). Every lock is
//! taken in one total order, the order of the locked paths (a directory sorts before everything
//! below it), so two transactions never wait for each other in a cycle, whatever they name. Each
//! wait is bounded by the call's deadline ([`fsio::Deadline`], option `lock_timeout_ms`), after
//! which the call ends with `LOCK_TIMEOUT` and nothing written.
//!
//! Every read, write, rename and unlink goes through a [`Sandbox`] on the workspace root, never
//! following a symlink below it (see [`crate::fs::fsio`]).
//!
//! ```no_run
//! use surepatch::fs::{txn::{Txn, Action}, workspace::{Workspace, Resolve}};
//! let ws = Workspace::new(std::path::Path::new(".")).unwrap();
//! let mut t = Txn::open(&ws, &[("a.txt".into(), Resolve::Existing)], 1 << 20).unwrap();
//! let old = t.files[0].bytes.clone().unwrap();
//! t.files[0].action = Action::Write([old, b"more\n".to_vec()].concat());
//! let done = t.commit().unwrap();
//! assert_eq!(done[0].display, "a.txt");
//! ```

use std::path::{Path, PathBuf};

use crate::edit::hash::file_hash_parts;
use crate::error::{Code, Failure, Result};
use crate::fs::fsio::{self, Deadline, DirLock, Kept, LockedFile, Put, Sandbox};
use crate::fs::workspace::{Resolve, Resolved, Workspace};

/// What happens to a file at commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Keep,
    Write(Vec<u8>),
    /// The file's bytes as read at open with byte ranges replaced: `(start, end, replacement)`, sorted
    /// and disjoint. Written piece by piece from the buffer read at open, so a small edit of a large
    /// file never builds a second copy of it.
    Splice(Vec<(usize, usize, Vec<u8>)>),
    Delete,
}

impl Action {
    /// The new contents as consecutive pieces, for a write or a splice of `base` (the bytes read at
    /// open); `None` for `Keep` and `Delete`, and for a splice with no bytes read.
    pub fn parts<'a>(&'a self, base: Option<&'a [u8]>) -> Option<Vec<&'a [u8]>> {
        match self {
            Action::Write(bytes) => Some(vec![bytes.as_slice()]),
            Action::Splice(spans) => {
                let base = base?;
                let spans = spans.iter().map(|(s, e, r)| (*s, *e, r.as_slice()));
                Some(crate::edit::text::spliced(base, 0..base.len(), spans))
            }
            Action::Keep | Action::Delete => None,
        }
    }
}

/// A span `(start, end)` of the content a write leaves, and the range of the content before it that
/// goes there to give it back.
pub type ReverseSpan = (usize, usize, std::ops::Range<usize>);

/// The splice of the bytes `action` makes of `before` that gives `before` back: spans of the new
/// content, sorted and disjoint, each with the range of `before` that replaces it (as
/// [`Action::Splice`], the bytes named by range). For a splice, its replaced stretches; for a whole
/// write, the one stretch between the ends the two contents share (none when they are equal). `None`
/// for `Keep` and `Delete`.
pub fn reverse_splice(before: &[u8], action: &Action) -> Option<Vec<ReverseSpan>> {
    match action {
        Action::Splice(spans) => {
            let (mut out, mut at_new) = (Vec::with_capacity(spans.len()), 0usize);
            let mut at_old = 0;
            for (s, e, new) in spans {
                let start = at_new + (s - at_old);
                out.push((start, start + new.len(), *s..*e));
                at_new = start + new.len();
                at_old = *e;
            }
            Some(out)
        }
        Action::Write(after) => {
            let pre = crate::edit::text::common_prefix_len(before, after);
            let suf = crate::edit::text::common_suffix_len(&before[pre..], &after[pre..]);
            if pre == before.len() && pre == after.len() {
                return Some(Vec::new());
            }
            Some(vec![(pre, after.len() - suf, pre..before.len() - suf)])
        }
        Action::Keep | Action::Delete => None,
    }
}

/// One file in a transaction.
#[derive(Debug)]
pub struct TxFile {
    /// The path as the caller wrote it.
    pub user_path: String,
    pub real: PathBuf,
    /// Workspace-relative, `/`-separated.
    pub display: String,
    /// Current bytes; `None` when the file does not exist (or a caller took them).
    pub bytes: Option<Vec<u8>>,
    /// Whether the file existed when the transaction opened.
    pub existed: bool,
    pub action: Action,
    kept: Option<Kept>,
    /// Mode, owner and group a write gives the file instead of its own (see [`Txn::keep_like`]).
    like: Option<Kept>,
    writable: bool,
    _lock: Option<LockedFile>,
}

impl TxFile {
    /// The mode, owner and group the file had when the transaction opened (`None`: it did not exist).
    pub fn kept(&self) -> Option<&Kept> {
        self.kept.as_ref()
    }

    /// How a write puts this file in place: with the metadata [`Txn::keep_like`] chose, else its
    /// own (an existing file), else a new file's (a creation, which must find the name free).
    fn put(&self) -> Put<'_> {
        match (&self.like, &self.kept) {
            (Some(like), Some(_)) => Put::Replace(like),
            (Some(like), None) => Put::CreateLike(like),
            (None, Some(kept)) => Put::Replace(kept),
            (None, None) => Put::CreateNew,
        }
    }
}

/// What a commit did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    pub display: String,
    pub real: PathBuf,
    /// `"update"`, `"create"` or `"delete"`.
    pub kind: &'static str,
    /// The bytes before the commit (`None` for a created file, or when the caller took them).
    pub before: Option<Vec<u8>>,
    /// The mode, owner and group before the commit (`None` for a created file).
    pub before_kept: Option<Kept>,
    /// Hash of the bytes now on disk (`None` after a delete).
    pub file_hash: Option<String>,
    pub after_bytes: usize,
    /// The update as a splice of the bytes now on disk that gives `before` back ([`reverse_splice`]):
    /// what the undo journal keeps instead of the whole of `before`. `None` for a create or a delete.
    pub reverse: Option<Vec<ReverseSpan>>,
}

pub struct Txn {
    sandbox: Sandbox,
    pub files: Vec<TxFile>,
    _dir_locks: Vec<DirLock>,
}

/// One lock of a transaction, sorted by path.
enum LockOn {
    /// File `i` of the resolved list (it exists).
    File(usize),
    /// A directory under which files will be created.
    Dir,
}

impl Txn {
    /// The workspace's directory handle every operation of this transaction goes through.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// Resolves, locks and reads every path. The same real file named twice is one entry; `files`
    /// keeps the callers' order (use [`Txn::index_of`] to find a path's entry).
    pub fn open(ws: &Workspace, paths: &[(String, Resolve)], max_bytes: u64) -> Result<Txn> {
        let deadline = Deadline::from_setting();
        let mut resolved = Vec::with_capacity(paths.len());
        for (p, mode) in paths {
            let r = ws.resolve(p, *mode)?;
            crate::fs::trace::touch(&r.real);
            resolved.push((p.clone(), r));
        }
        let sandbox = Sandbox::open(ws.root())?;
        Self::lock_when_recovered(ws, sandbox, &resolved, max_bytes, &deadline)
    }

    /// Locks are taken only when no transaction that died midway touches the files: one found
    /// before is recovered first; one found after (its owner died while we waited) makes us let go
    /// and start again, so that it is recovered before anyone reads its files.
    fn lock_when_recovered(
        ws: &Workspace,
        mut sandbox: Sandbox,
        resolved: &[(String, Resolved)],
        max_bytes: u64,
        deadline: &Deadline,
    ) -> Result<Txn> {
        loop {
            recover_dead_intents(&sandbox, deadline)?;
            let txn = Self::lock_all(ws, sandbox, resolved, max_bytes, deadline)?;
            let reals: Vec<&Path> = txn.files.iter().map(|f| f.real.as_path()).collect();
            if !intents_touch(&txn.sandbox, &reals) {
                return Ok(txn);
            }
            if deadline.expired() {
                return Err(Failure::new(
                    Code::LockTimeout,
                    "a transaction that was interrupted (killed) is being recovered on these files; \
                     nothing was written. Try again in a moment.",
                ));
            }
            // Let go of every lock now (not at the end of this iteration).
            let Txn {
                sandbox: sb,
                files,
                _dir_locks,
            } = txn;
            drop((files, _dir_locks));
            sandbox = sb;
            // A recovery holding the record waits for the locks just released: let it finish
            // before locking again (else the two could take turns until the deadline).
            let reals: Vec<PathBuf> = resolved.iter().map(|(_, r)| r.real.clone()).collect();
            let reals: Vec<&Path> = reals.iter().map(PathBuf::as_path).collect();
            loop {
                std::thread::sleep(std::time::Duration::from_millis(5));
                if deadline.expired() || !live_intent_touches(&sandbox, &reals) {
                    break;
                }
            }
        }
    }

    /// Locks and reads every resolved path (see [`Txn::open`]).
    fn lock_all(
        ws: &Workspace,
        sandbox: Sandbox,
        resolved: &[(String, Resolved)],
        max_bytes: u64,
        deadline: &Deadline,
    ) -> Result<Txn> {
        // The same real file twice is one entry (the first).
        let mut order: Vec<usize> = (0..resolved.len()).collect();
        order.sort_by(|&a, &b| resolved[a].1.real.cmp(&resolved[b].1.real));
        order.dedup_by(|a, b| resolved[*a].1.real == resolved[*b].1.real);
        // Every lock in path order: files, and for new files the deepest existing directory above.
        let mut locks: Vec<(PathBuf, LockOn)> = Vec::new();
        for &i in &order {
            let r = &resolved[i].1;
            if r.exists {
                locks.push((r.real.clone(), LockOn::File(i)));
            } else {
                let mut dir = r.real.parent().unwrap_or(ws.root()).to_path_buf();
                while dir != ws.root() && !sandbox.is_dir(&dir) {
                    dir.pop();
                }
                locks.push((dir, LockOn::Dir));
            }
        }
        locks.sort_by(|a, b| a.0.cmp(&b.0));
        // A directory is locked once: a second lock on it from this process would wait for the first.
        locks.dedup_by(|a, b| a.0 == b.0 && matches!((&a.1, &b.1), (LockOn::Dir, LockOn::Dir)));

        let mut files: Vec<Option<TxFile>> = (0..resolved.len()).map(|_| None).collect();
        let mut dir_locks = Vec::new();
        for (path, on) in &locks {
            match on {
                LockOn::Dir => dir_locks.push(DirLock::acquire(&sandbox, path, deadline)?),
                LockOn::File(i) => {
                    let (user_path, r) = &resolved[*i];
                    let with_path = |f: Failure| f.with("file_path", &r.display);
                    let mut lock =
                        LockedFile::open(&sandbox, &r.real, deadline).map_err(with_path)?;
                    let bytes = lock.read_all(max_bytes).map_err(with_path)?;
                    files[*i] = Some(TxFile {
                        user_path: user_path.clone(),
                        real: r.real.clone(),
                        display: r.display.clone(),
                        bytes: Some(bytes),
                        existed: true,
                        action: Action::Keep,
                        kept: Some(lock.kept()),
                        like: None,
                        writable: lock.writable(),
                        _lock: Some(lock),
                    });
                }
            }
        }
        for &i in &order {
            let (user_path, r) = &resolved[i];
            if r.exists {
                continue;
            }
            if sandbox.exists(&r.real) {
                return Err(Failure::new(
                    Code::StaleFile,
                    format!(
                        "{} was created by someone else meanwhile; re-read and try again.",
                        r.display
                    ),
                )
                .with("file_path", &r.display));
            }
            files[i] = Some(TxFile {
                user_path: user_path.clone(),
                real: r.real.clone(),
                display: r.display.clone(),
                bytes: None,
                existed: false,
                action: Action::Keep,
                kept: None,
                like: None,
                writable: true,
                _lock: None,
            });
        }
        Ok(Txn {
            sandbox,
            files: files.into_iter().flatten().collect(),
            _dir_locks: dir_locks,
        })
    }

    /// The entry for a path as the caller wrote it (or for the same real file).
    pub fn index_of(&self, user_path: &str) -> Option<usize> {
        self.files.iter().position(|f| f.user_path == user_path)
    }

    /// A write of file `d` gives it the mode, owner and group of file `s` (an existing file), not
    /// its own or a new file's: a move done by copy (across file systems) keeps the moved file's.
    pub fn keep_like(&mut self, d: usize, s: usize) {
        self.files[d].like = self.files[s].kept.clone();
    }

    /// A write of file `i` gives it this mode, owner and group (an undo: the file's as they were);
    /// where `kept` names no owner, the file keeps its current one.
    pub fn keep_as(&mut self, i: usize, kept: Kept) {
        self.files[i].like = Some(kept.owned_like(self.files[i].kept.as_ref()));
    }

    /// Writes every planned change; on any failure restores what was already changed and returns the
    /// failure. Writes happen before deletes. A change to an existing file this process may not
    /// write ([`fsio`]'s rule: read-only mode, or no write access) → `PERMISSION_DENIED` before
    /// anything is written.
    pub fn commit(mut self) -> Result<Vec<Committed>> {
        if let Some(f) = self
            .files
            .iter()
            .find(|f| f.existed && !f.writable && f.action != Action::Keep)
        {
            return Err(fsio::not_writable(&f.display));
        }
        let mut order: Vec<usize> = (0..self.files.len())
            .filter(|&i| matches!(self.files[i].action, Action::Write(_) | Action::Splice(_)))
            .collect();
        order.extend((0..self.files.len()).filter(|&i| self.files[i].action == Action::Delete));
        if order.len() >= 2 {
            return self.commit_many(&order);
        }
        let mut done: Vec<Committed> = Vec::new();
        // The directories this commit made for new files: removed again if it fails.
        let mut made: Vec<PathBuf> = Vec::new();
        for i in order {
            let sb = &self.sandbox;
            let f = &mut self.files[i];
            let action = std::mem::replace(&mut f.action, Action::Keep);
            let step = match &action {
                Action::Write(_) | Action::Splice(_) => {
                    let parts = action.parts(f.bytes.as_deref()).ok_or_else(|| {
                        Failure::new(Code::InternalError, "a splice of a file that was not read")
                    });
                    let r = match f.real.parent() {
                        Some(parent) if !f.existed => {
                            sb.create_dirs_made(parent).map(|m| made.extend(m))
                        }
                        _ => Ok(()),
                    };
                    let put = f.put();
                    let written = parts.and_then(|parts| {
                        r?;
                        let hash = write_and_hash(sb, &f.real, &parts, put)?;
                        Ok((hash, parts.iter().map(|p| p.len()).sum()))
                    });
                    written.map(|(hash, after_bytes)| Committed {
                        display: f.display.clone(),
                        real: f.real.clone(),
                        kind: if f.existed { "update" } else { "create" },
                        reverse: f.bytes.as_deref().and_then(|b| reverse_splice(b, &action)),
                        before: f.bytes.take(),
                        before_kept: f.kept.clone(),
                        file_hash: Some(hash),
                        after_bytes,
                    })
                }
                Action::Delete => sb.remove_file(&f.real).map(|_| Committed {
                    display: f.display.clone(),
                    real: f.real.clone(),
                    kind: "delete",
                    before: f.bytes.take(),
                    before_kept: f.kept.clone(),
                    file_hash: None,
                    after_bytes: 0,
                    reverse: None,
                }),
                Action::Keep => continue,
            };
            match step {
                Ok(c) => done.push(c),
                Err(e) => {
                    let restored = rollback(&self.sandbox, &done, &self.files);
                    self.sandbox.remove_made_dirs(&made);
                    let e = e
                        .with("file_path", &self.files[i].display)
                        .with("rolled_back", restored);
                    return Err(e);
                }
            }
        }
        Ok(done)
    }

    /// A commit changing two files or more, atomic across a crash (see [`Intent`]): every new
    /// content is written to its temp file first, under a `prepared` record; the record turns
    /// `committed`; then the renames and deletes; then the record goes. A failure before the commit
    /// point changes nothing; one after it restores the files already changed.
    fn commit_many(mut self, order: &[usize]) -> Result<Vec<Committed>> {
        let sb = &self.sandbox;
        let fail_at = |e: Failure, i: usize, files: &[TxFile]| {
            e.with("file_path", &files[i].display)
                .with("rolled_back", Vec::<String>::new())
        };
        // Plan: the temp name of every write, known before anything is created.
        let temps: Vec<Option<std::ffi::OsString>> = order
            .iter()
            .map(|&i| match self.files[i].action {
                Action::Delete => None,
                _ => Some(fsio::temp_name(&self.files[i].real)),
            })
            .collect();
        let ops = order
            .iter()
            .zip(&temps)
            .map(|(&i, t)| {
                serde_json::json!({
                    "path": self.files[i].display,
                    "temp": t.as_ref().map(|t| t.to_string_lossy()),
                })
            })
            .collect();
        let intent = Intent::begin(sb, ops)?;
        let mut intent = scopeguard(intent);
        // Phase 1: every temp file, complete. The directories made for new files are removed
        // again, after the temp files, when the commit fails.
        let mut prepared = Vec::new();
        let mut made: Vec<PathBuf> = Vec::new();
        let undo = |prepared: Vec<_>, made: &[PathBuf]| {
            drop(prepared);
            sb.remove_made_dirs(made);
        };
        for (&i, t) in order.iter().zip(&temps) {
            let Some(t) = t else { continue };
            let f = &self.files[i];
            let parts = match f.action.parts(f.bytes.as_deref()) {
                Some(p) => p,
                None => {
                    undo(prepared, &made);
                    return Err(Failure::new(
                        Code::InternalError,
                        "a splice of a file that was not read",
                    ));
                }
            };
            let put = f.put();
            let step = match f.real.parent() {
                Some(parent) if !f.existed => sb.create_dirs_made(parent).map(|m| made.extend(m)),
                _ => Ok(()),
            }
            .and_then(|_| sb.prepare(&f.real, &parts, put, Some(t)));
            match step {
                Ok(p) => prepared.push((
                    i,
                    p,
                    file_hash_parts(&parts),
                    parts.iter().map(|p| p.len()).sum::<usize>(),
                )),
                Err(e) => {
                    undo(prepared, &made);
                    return Err(fail_at(e, i, &self.files));
                }
            }
        }
        // The commit point.
        if let Err(e) = intent.0.as_mut().map_or(Ok(()), Intent::commit) {
            undo(prepared, &made);
            return Err(e);
        }
        // Phase 2: in place.
        let mut done: Vec<Committed> = Vec::new();
        let mut prepared = prepared.into_iter();
        for &i in order {
            let step = if self.files[i].action == Action::Delete {
                sb.remove_file(&self.files[i].real).map(|_| (None, 0))
            } else {
                let (j, p, hash, len) = prepared.next().expect("one prepared file per write");
                debug_assert_eq!(i, j);
                p.install().map(|_| (Some(hash), len))
            };
            let f = &mut self.files[i];
            match step {
                Ok((file_hash, after_bytes)) => done.push(Committed {
                    display: f.display.clone(),
                    real: f.real.clone(),
                    kind: match (&f.action, f.existed) {
                        (Action::Delete, _) => "delete",
                        (_, true) => "update",
                        (_, false) => "create",
                    },
                    reverse: f
                        .bytes
                        .as_deref()
                        .and_then(|b| reverse_splice(b, &f.action)),
                    before: f.bytes.take(),
                    before_kept: f.kept.clone(),
                    file_hash,
                    after_bytes,
                }),
                Err(e) => {
                    let restored = rollback(sb, &done, &self.files);
                    undo(prepared.collect(), &made);
                    return Err(e
                        .with("file_path", &self.files[i].display)
                        .with("rolled_back", restored));
                }
            }
        }
        for f in self.files.iter_mut() {
            f.action = Action::Keep;
        }
        Ok(done)
    }
}

/// Finishes (removes) an intent record when dropped, whatever path the commit took.
struct IntentGuard<'a>(Option<Intent<'a>>);

impl Drop for IntentGuard<'_> {
    fn drop(&mut self) {
        if let Some(i) = self.0.take() {
            i.finish();
        }
    }
}

fn scopeguard(i: Intent<'_>) -> IntentGuard<'_> {
    IntentGuard(Some(i))
}

/// Files at least this large are hashed on a second thread during their whole write; smaller ones on
/// the calling thread, between the write and the fsync (see [`Sandbox::write_with`]). A thread costs
/// its start and, on a busy machine, a wait for a free core (measured on 2 shared cores: 0.05 to
/// 4 ms), more than hashing a few MiB (about 0.2 ms per MiB) that the disk write-back hides anyway.
const HASH_THREAD_MIN_BYTES: usize = 8 << 20;

/// Writes the concatenation of `parts` atomically and returns its hash, computed while the disk
/// writes: on the calling thread between the write and the fsync, or for large files on a second
/// thread during the whole write.
fn write_and_hash(sb: &Sandbox, path: &Path, parts: &[&[u8]], put: Put<'_>) -> Result<String> {
    if parts.iter().map(|p| p.len()).sum::<usize>() < HASH_THREAD_MIN_BYTES {
        return sb.write_with(path, parts, put, || file_hash_parts(parts));
    }
    std::thread::scope(|s| {
        let hasher = s.spawn(|| file_hash_parts(parts));
        let written = sb.write(path, parts, put);
        let hash = hasher.join().unwrap_or_else(|_| file_hash_parts(parts));
        written.map(|_| hash)
    })
}

/// Puts back the files a failed commit already changed, through the sandbox; returns their display
/// paths.
fn rollback(sb: &Sandbox, done: &[Committed], files: &[TxFile]) -> Vec<String> {
    let mut restored = Vec::new();
    for c in done.iter().rev() {
        let kept = files
            .iter()
            .find(|f| f.real == c.real)
            .and_then(|f| f.kept.as_ref());
        // An updated or deleted file is put back with its mode and owner.
        let put = kept.map_or(Put::Any, Put::Replace);
        let ok = match (&c.before, c.kind) {
            (Some(bytes), _) => sb.write(&c.real, &[bytes], put).is_ok(),
            (None, "create") => sb.remove_file(&c.real).is_ok(),
            (None, _) => false,
        };
        if ok {
            restored.push(c.display.clone());
        }
    }
    restored
}

// ---------------------------------------------------------------------------------------------
// Crash atomicity of multi-file commits

/// Directory (in the workspace root) of the intent records of multi-file commits in progress; it
/// exists only while one is.
pub const INTENT_DIR: &str = ".surepatch-txn";
const INTENT_FORMAT: &str = "surepatch-txn/1";

/// The durable record of a multi-file commit: `<id>.json` lists every file it changes (its
/// workspace-relative path, and the temp file holding its new bytes, or none for a delete), first in
/// state `prepared` (the temp files are being written; nothing is in place), then `committed` (all
/// temp files are complete: the commit point). `<id>.lock` is locked by the committing process for
/// the whole commit, so a record whose lock is free belongs to a process that died: the next call
/// recovers it — a `prepared` one is rolled back (its temp files removed, no file changed), a
/// `committed` one is rolled forward (every remaining temp file renamed into place, every delete
/// done).
struct Intent<'a> {
    sb: &'a Sandbox,
    json: PathBuf,
    lock_path: PathBuf,
    lock: Option<std::fs::File>,
    record: serde_json::Value,
}

fn intent_dir(sb: &Sandbox) -> PathBuf {
    sb.root().join(INTENT_DIR)
}

impl<'a> Intent<'a> {
    fn begin(sb: &'a Sandbox, ops: Vec<serde_json::Value>) -> Result<Intent<'a>> {
        let dir = intent_dir(sb);
        let id = crate::fs::ids::new_edit_id();
        let lock_path = dir.join(format!("{id}.lock"));
        let io = |e: std::io::Error| Failure::io(&e, false, INTENT_DIR);
        // The lock file appears under its name already locked: it is created and locked under a
        // temp name, then renamed. (Created in place, a recovery could find it in the instant
        // before the lock and take it for a dead commit's.) Another commit may remove the (empty)
        // directory between our mkdir and our create: try again then.
        let mut tries = 0;
        let lock = loop {
            // A fresh temp name each try: a recovery may be probing (briefly locking) the last one.
            let lock_tmp = dir.join(format!(
                ".{id}.lock{}",
                fsio::temp_name(Path::new("")).to_string_lossy()
            ));
            // Another commit may remove the (empty) directory while we create it: try again.
            if let Err(f) = sb.create_dirs(&dir) {
                if matches!(f.code, Code::FileNotFound | Code::FileWriteError) && tries < 16 {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(tries));
                    continue;
                }
                return Err(f);
            }
            let made = sb.try_lock_file(&lock_tmp, true).and_then(|l| {
                let l = l.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::WouldBlock))?;
                sb.rename_in_dir(&lock_tmp, &lock_path)?;
                Ok(l)
            });
            match made {
                Ok(l) => break l,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::NotFound | std::io::ErrorKind::WouldBlock
                    ) && tries < 16 =>
                {
                    sb.remove_temp(&lock_tmp, lock_tmp.file_name().unwrap_or_default());
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(tries));
                }
                Err(e) => {
                    sb.remove_temp(&lock_tmp, lock_tmp.file_name().unwrap_or_default());
                    return Err(io(e));
                }
            }
        };
        let intent = Intent {
            sb,
            json: dir.join(format!("{id}.json")),
            lock_path,
            lock: Some(lock),
            record: serde_json::json!({"format": INTENT_FORMAT, "state": "prepared", "ops": ops}),
        };
        if let Err(e) = intent.save() {
            intent.finish();
            return Err(e);
        }
        Ok(intent)
    }

    /// Writes the record: `prepared` without fsync (lost only in a power loss, which then leaves the
    /// temp files as ordinary crash leftovers), `committed` durably before anything is renamed.
    fn save(&self) -> Result<()> {
        let text = self.record.to_string();
        if self.record["state"] == "committed" {
            self.sb.write(&self.json, &[text.as_bytes()], Put::Any)
        } else {
            self.sb.write_volatile(&self.json, text.as_bytes())
        }
    }

    /// The commit point: every temp file is complete.
    fn commit(&mut self) -> Result<()> {
        self.record["state"] = "committed".into();
        self.save()
    }

    /// Removes the record, then its lock, then the directory if empty.
    fn finish(mut self) {
        let _ = self.sb.remove_file(&self.json);
        let _ = self.sb.remove_file(&self.lock_path);
        drop(self.lock.take());
        self.sb.remove_empty_dir(&intent_dir(self.sb));
    }
}

/// The ids of the intent records (and orphan locks) in the intent directory.
fn intent_ids(sb: &Sandbox) -> Vec<String> {
    let mut ids: Vec<String> = sb
        .list_dir(&intent_dir(sb))
        .into_iter()
        .filter_map(|(n, _)| n.into_string().ok())
        .filter_map(|n| {
            // `<id>.json`, `<id>.lock`, and the temp files `.<id>.json…` / `.<id>.lock…`.
            let n = n
                .strip_prefix('.')
                .map_or(n.as_str(), |t| t.split('.').next().unwrap_or(t));
            n.strip_suffix(".json")
                .or_else(|| n.strip_suffix(".lock"))
                .or(Some(n))
                .map(str::to_string)
        })
        .filter(|id| crate::fs::ids::is_edit_id(id))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// `(state, [(real path, temp name or None for a delete)])` of a record.
type Plan = (String, Vec<(PathBuf, Option<std::ffi::OsString>)>);

fn read_intent(sb: &Sandbox, id: &str) -> Option<Plan> {
    let bytes = sb.read_regular(&intent_dir(sb).join(format!("{id}.json")))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    if v["format"] != INTENT_FORMAT {
        return None;
    }
    let state = v["state"].as_str()?.to_string();
    let mut ops = Vec::new();
    for op in v["ops"].as_array()? {
        let path = op["path"].as_str()?;
        let real = sb.root().join(path);
        if !real.starts_with(sb.root()) || path.split('/').any(|c| c == "..") {
            return None;
        }
        let temp = match &op["temp"] {
            serde_json::Value::String(t) if !t.contains('/') && !t.contains('\\') => {
                Some(std::ffi::OsString::from(t))
            }
            serde_json::Value::Null => None,
            _ => return None,
        };
        ops.push((real, temp));
    }
    Some((state, ops))
}

/// Recovers every intent record whose owner died (its lock is free); see [`Intent`].
fn recover_dead_intents(sb: &Sandbox, deadline: &Deadline) -> Result<()> {
    if !sb.is_dir(&intent_dir(sb)) {
        return Ok(());
    }
    for id in intent_ids(sb) {
        let dir = intent_dir(sb);
        let lock_path = dir.join(format!("{id}.lock"));
        let json = dir.join(format!("{id}.json"));
        let lock = match sb.try_lock_file(&lock_path, false) {
            Ok(Some(l)) => l,
            Ok(None) => continue, // its owner is alive
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // No lock under its name: a commit is creating it (its lock is still under a temp
                // name, locked, or was just renamed into place), or its owner died before the
                // rename. Never create the lock here: a commit renaming its own into place would
                // replace it, and its live record would be taken for a dead one.
                let temps: Vec<PathBuf> = sb
                    .list_dir(&dir)
                    .into_iter()
                    .filter(|(n, _)| n.to_string_lossy().starts_with(&format!(".{id}.lock")))
                    .map(|(n, _)| dir.join(n))
                    .collect();
                let mut dead = None;
                let mut live = false;
                for t in &temps {
                    match sb.try_lock_file(t, false) {
                        // Free: its owner died, or is between creating and locking it. Let go,
                        // give a live owner the time to lock or rename it, and look again.
                        Ok(Some(l)) => {
                            drop(l);
                            std::thread::sleep(std::time::Duration::from_millis(25));
                            match sb.try_lock_file(t, false) {
                                Ok(Some(l)) => dead = Some(l),
                                Ok(None) => live = true,
                                Err(_) => live = true, // renamed into place, or given up
                            }
                        }
                        Ok(None) => live = true,
                        Err(_) => {}
                    }
                }
                if live {
                    continue;
                }
                match dead {
                    Some(l) => l,
                    // Look at the lock's own name once more: the owner may have renamed it since.
                    None => match sb.try_lock_file(&lock_path, false) {
                        Ok(Some(l)) => l,
                        _ => continue,
                    },
                }
            }
            Err(_) => continue,
        };
        if let Some((state, ops)) = read_intent(sb, &id) {
            // Hold the locks of its files while putting them right (in path order).
            let mut reals: Vec<&PathBuf> = ops.iter().map(|(r, _)| r).collect();
            reals.sort();
            reals.dedup();
            let mut held = Vec::new();
            for real in reals {
                if sb.exists(real) {
                    held.push(LockedFile::open(sb, real, deadline)?);
                }
            }
            for (real, temp) in &ops {
                match (state.as_str(), temp) {
                    ("committed", Some(t)) => sb.roll_forward(real, t)?,
                    ("committed", None) => match sb.remove_file(real) {
                        Err(f) if f.code != Code::FileNotFound => return Err(f),
                        _ => {}
                    },
                    (_, Some(t)) => sb.remove_temp(real, t),
                    (_, None) => {}
                }
            }
            drop(held);
        }
        let _ = sb.remove_file(&json);
        // A record or lock being written when its owner died leaves its temp file.
        let temp_prefix = format!(".{id}.");
        for (name, _) in sb.list_dir(&dir) {
            if name.to_string_lossy().starts_with(&temp_prefix) {
                let _ = sb.remove_file(&dir.join(name));
            }
        }
        let _ = sb.remove_file(&lock_path);
        drop(lock);
    }
    sb.remove_empty_dir(&intent_dir(sb));
    Ok(())
}

/// Whether a record whose lock is held (a commit or a recovery in progress) names one of `reals`.
fn live_intent_touches(sb: &Sandbox, reals: &[&Path]) -> bool {
    if !sb.is_dir(&intent_dir(sb)) {
        return false;
    }
    intent_ids(sb).iter().any(|id| {
        let touches = read_intent(sb, id)
            .is_some_and(|(_, ops)| ops.iter().any(|(r, _)| reals.contains(&r.as_path())));
        touches
            && matches!(
                sb.try_lock_file(&intent_dir(sb).join(format!("{id}.lock")), false),
                Ok(None)
            )
    })
}

/// Whether an intent record that is not being committed right now (its owner died, or a recovery
/// waits for our locks) names one of `reals`.
fn intents_touch(sb: &Sandbox, reals: &[&Path]) -> bool {
    if !sb.is_dir(&intent_dir(sb)) {
        return false;
    }
    intent_ids(sb).iter().any(|id| {
        let Some((_, ops)) = read_intent(sb, id) else {
            return false;
        };
        ops.iter().any(|(r, _)| reals.contains(&r.as_path()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn commit_writes_creates_and_deletes() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("a.txt"), "a").unwrap();
        fs::write(d.path().join("b.txt"), "b").unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let paths = [
            ("b.txt".to_string(), Resolve::Existing),
            ("new/c.txt".to_string(), Resolve::MayCreate),
            ("a.txt".to_string(), Resolve::Existing),
        ];
        let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
        assert_eq!(t.files.len(), 3);
        let a = t.index_of("a.txt").unwrap();
        assert_eq!(t.files[a].bytes.as_deref(), Some(&b"a"[..]));
        t.files[a].action = Action::Write(b"A".to_vec());
        let c = t.index_of("new/c.txt").unwrap();
        t.files[c].action = Action::Write(b"C".to_vec());
        let b = t.index_of("b.txt").unwrap();
        t.files[b].action = Action::Delete;
        let done = t.commit().unwrap();
        assert_eq!(
            done.iter().map(|c| c.kind).collect::<Vec<_>>(),
            ["create", "update", "delete"]
        );
        assert_eq!(fs::read_to_string(d.path().join("a.txt")).unwrap(), "A");
        assert_eq!(fs::read_to_string(d.path().join("new/c.txt")).unwrap(), "C");
        assert!(!d.path().join("b.txt").exists());
    }

    /// `keep_like`: a created file, and a replaced one, take the source's mode (a move by copy).
    #[cfg(unix)]
    #[test]
    fn keep_like_gives_a_written_file_another_files_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let mode = |p: &str| fs::metadata(d.path().join(p)).unwrap().permissions().mode() & 0o7777;
        fs::write(d.path().join("run.sh"), "x").unwrap();
        fs::set_permissions(d.path().join("run.sh"), fs::Permissions::from_mode(0o751)).unwrap();
        fs::write(d.path().join("old.sh"), "o").unwrap();
        fs::set_permissions(d.path().join("old.sh"), fs::Permissions::from_mode(0o600)).unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        for (target, existed) in [("new/copy.sh", false), ("old.sh", true)] {
            let paths = [
                ("run.sh".to_string(), Resolve::Existing),
                (target.to_string(), Resolve::MayCreate),
            ];
            let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
            let (s, c) = (t.index_of("run.sh").unwrap(), t.index_of(target).unwrap());
            assert_eq!(t.files[c].existed, existed);
            t.files[c].action = Action::Write(b"moved".to_vec());
            t.keep_like(c, s);
            t.commit().unwrap();
            assert_eq!(mode(target), 0o751, "{target}");
            assert_eq!(fs::read_to_string(d.path().join(target)).unwrap(), "moved");
        }
        // Without it, a creation has a new file's mode.
        let mut t = Txn::open(
            &ws,
            &[("plain.txt".to_string(), Resolve::MayCreate)],
            1 << 20,
        )
        .unwrap();
        t.files[0].action = Action::Write(b"p".to_vec());
        t.commit().unwrap();
        assert_ne!(mode("plain.txt"), 0o751);
    }

    /// The reverse of any splice or whole write, applied to what it wrote, gives the bytes before
    /// (random splices and rewrites of short texts over a small alphabet, so ends are often shared).
    #[test]
    fn the_reverse_splice_gives_the_previous_bytes_back() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let apply = |base: &[u8], action: &Action| action.parts(Some(base)).unwrap().concat();
        for _ in 0..20_000 {
            let before: Vec<u8> = (0..next(12)).map(|_| b"ab\n"[next(3)]).collect();
            let action = if next(2) == 0 {
                Action::Write((0..next(12)).map(|_| b"ab\n"[next(3)]).collect())
            } else {
                let mut cuts: Vec<usize> =
                    (0..2 * next(4)).map(|_| next(before.len() + 1)).collect();
                cuts.sort_unstable();
                let spans = cuts
                    .chunks(2)
                    .map(|c| (c[0], c[1], (0..next(4)).map(|_| b"xa"[next(2)]).collect()))
                    .collect();
                Action::Splice(spans)
            };
            let after = apply(&before, &action);
            let reverse: Vec<(usize, usize, Vec<u8>)> = reverse_splice(&before, &action)
                .unwrap()
                .into_iter()
                .map(|(s, e, r)| (s, e, before[r].to_vec()))
                .collect();
            let mut pos = 0;
            for (s, e, _) in &reverse {
                assert!(pos <= *s && s <= e && *e <= after.len(), "{reverse:?}");
                pos = *e;
            }
            assert_eq!(
                apply(&after, &Action::Splice(reverse.clone())),
                before,
                "{action:?}"
            );
            if let Action::Write(new) = &action {
                // One stretch at most, as short as the shared ends allow.
                assert!(reverse.len() <= 1);
                let kept: usize = reverse.iter().map(|(_, _, b)| b.len()).sum();
                let pre = new.iter().zip(&before).take_while(|(x, y)| x == y).count();
                assert!(kept <= before.len() - pre.min(before.len()));
            }
        }
        assert_eq!(reverse_splice(b"x", &Action::Delete), None);
        assert_eq!(reverse_splice(b"x", &Action::Keep), None);
        assert_eq!(
            reverse_splice(b"same", &Action::Write(b"same".to_vec())),
            Some(vec![])
        );
    }

    #[test]
    fn a_splice_writes_the_read_bytes_with_spans_replaced() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("a.txt"), "0123456789").unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let mut t = Txn::open(&ws, &[("a.txt".to_string(), Resolve::Existing)], 1 << 20).unwrap();
        t.files[0].action = Action::Splice(vec![
            (0, 0, b"<".to_vec()),
            (2, 5, b"".to_vec()),
            (7, 8, b"seven".to_vec()),
            (10, 10, b">".to_vec()),
        ]);
        let done = t.commit().unwrap();
        let now = fs::read(d.path().join("a.txt")).unwrap();
        assert_eq!(now, b"<0156seven89>");
        assert_eq!(done[0].after_bytes, now.len());
        assert_eq!(
            done[0].file_hash.as_deref(),
            Some(file_hash_parts(&[&now]).as_str())
        );
        assert_eq!(done[0].before.as_deref(), Some(&b"0123456789"[..]));
    }

    #[test]
    fn two_new_files_in_one_directory() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let paths = [
            ("x.txt".to_string(), Resolve::MayCreate),
            ("y.txt".to_string(), Resolve::MayCreate),
        ];
        let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
        for f in t.files.iter_mut() {
            f.action = Action::Write(b"n".to_vec());
        }
        assert_eq!(t.commit().unwrap().len(), 2);
        assert_eq!(fs::read_to_string(d.path().join("y.txt")).unwrap(), "n");
    }

    #[test]
    fn a_failed_write_restores_the_files_already_written() {
        let d = tempfile::tempdir().unwrap();
        for n in ["1", "2", "3", "4"] {
            fs::write(d.path().join(format!("f{n}.txt")), n).unwrap();
        }
        let ws = Workspace::new(d.path()).unwrap();
        let paths: Vec<_> = ["f1.txt", "f2.txt", "f3.txt", "f4.txt"]
            .iter()
            .map(|p| (p.to_string(), Resolve::Existing))
            .collect();
        let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
        for f in t.files.iter_mut() {
            f.action = Action::Write(b"new".to_vec());
        }
        let marker = Path::new(d.path().file_name().unwrap()).join("f3.txt");
        let err = fsio::with_write_fault(marker.to_string_lossy(), || t.commit().unwrap_err());
        assert_eq!(err.code, Code::FileWriteError);
        assert_eq!(
            err.detail("rolled_back").unwrap(),
            &serde_json::json!(["f2.txt", "f1.txt"])
        );
        for n in ["1", "2", "3", "4"] {
            assert_eq!(
                fs::read_to_string(d.path().join(format!("f{n}.txt"))).unwrap(),
                n
            );
        }
        let leftovers: Vec<_> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 4, "{leftovers:?}");
    }
    /// Regression (issue #16, item 2): T1 = {create d/a, update d/b} and T2 = {update d/b, create
    /// d/c} deadlocked: the directory lock of a creation was taken at the new name's place in path
    /// order. Now every lock follows one order; 2 threads × 150 rounds finish with no timeout.
    #[test]
    fn creations_and_updates_in_one_directory_never_deadlock() {
        use std::sync::{Arc, Barrier};
        let d = tempfile::tempdir().unwrap();
        fs::create_dir(d.path().join("d")).unwrap();
        fs::write(d.path().join("d/b.txt"), "0").unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        const ROUNDS: usize = 150;
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = [("d/a", false), ("d/c", true)]
            .into_iter()
            .map(|(prefix, create_last)| {
                let (ws, barrier) = (ws.clone(), barrier.clone());
                std::thread::spawn(move || {
                    fsio::set_lock_timeout(Some(std::time::Duration::from_secs(20)));
                    barrier.wait();
                    for n in 0..ROUNDS {
                        let new = format!("{prefix}-{n}.txt");
                        let mut paths = vec![("d/b.txt".to_string(), Resolve::Existing)];
                        if create_last {
                            paths.push((new.clone(), Resolve::MayCreate));
                        } else {
                            paths.insert(0, (new.clone(), Resolve::MayCreate));
                        }
                        let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
                        let b = t.index_of("d/b.txt").unwrap();
                        let count: usize = String::from_utf8(t.files[b].bytes.clone().unwrap())
                            .unwrap()
                            .parse()
                            .unwrap();
                        t.files[b].action = Action::Write((count + 1).to_string().into_bytes());
                        let i = t.index_of(&new).unwrap();
                        t.files[i].action = Action::Write(b"n".to_vec());
                        t.commit().unwrap();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(
            fs::read_to_string(d.path().join("d/b.txt")).unwrap(),
            (2 * ROUNDS).to_string()
        );
        assert_eq!(
            fs::read_dir(d.path().join("d")).unwrap().count(),
            2 * ROUNDS + 1
        );
    }

    /// A lock held elsewhere ends the wait with `LOCK_TIMEOUT`, nothing written.
    #[test]
    fn a_held_lock_times_out_cleanly() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("a.txt"), "a").unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let held = Txn::open(&ws, &[("a.txt".to_string(), Resolve::Existing)], 1 << 20).unwrap();
        let creating =
            Txn::open(&ws, &[("new.txt".to_string(), Resolve::MayCreate)], 1 << 20).unwrap();
        let err = std::thread::scope(|s| {
            s.spawn(|| {
                fsio::set_lock_timeout(Some(std::time::Duration::from_millis(100)));
                let file = Txn::open(&ws, &[("a.txt".to_string(), Resolve::Existing)], 1 << 20);
                let dir = Txn::open(
                    &ws,
                    &[("n/new.txt".to_string(), Resolve::MayCreate)],
                    1 << 20,
                );
                (file.err().unwrap(), dir.err().unwrap())
            })
            .join()
            .unwrap()
        });
        assert_eq!(err.0.code, Code::LockTimeout, "{}", err.0.message);
        assert_eq!(err.0.detail("file_path").unwrap(), "a.txt");
        assert_eq!(err.1.code, Code::LockTimeout, "{}", err.1.message);
        drop((held, creating));
        assert_eq!(fs::read_to_string(d.path().join("a.txt")).unwrap(), "a");
        assert!(!d.path().join("n").exists());
    }

    fn plant_intent(root: &Path, state: &str, ops: serde_json::Value) -> String {
        let id = crate::fs::ids::new_edit_id();
        let dir = root.join(INTENT_DIR);
        fs::create_dir_all(&dir).unwrap();
        let record = serde_json::json!({"format": INTENT_FORMAT, "state": state, "ops": ops});
        fs::write(dir.join(format!("{id}.json")), record.to_string()).unwrap();
        fs::write(dir.join(format!("{id}.lock")), "").unwrap();
        id
    }

    fn listing(root: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Issue #16 item 7: a commit killed after its commit point (one file renamed, one temp file
    /// still waiting, a delete not done) is rolled forward by the next call; one killed before it
    /// (`prepared`) is rolled back. Either way no record or temp file is left.
    #[test]
    fn an_interrupted_commit_is_recovered_by_the_next_call() {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::write(root.join("a.txt"), "A1").unwrap();
        fs::write(root.join("b.txt"), "B0").unwrap();
        fs::write(root.join(".b.txt.surepatch-1-ab.tmp"), "B1").unwrap();
        fs::write(root.join("c.txt"), "C0").unwrap();
        fs::create_dir(root.join("n")).unwrap();
        fs::write(root.join("n/.new.txt.surepatch-1-cd.tmp"), "N1").unwrap();
        plant_intent(
            &root,
            "committed",
            serde_json::json!([
                {"path": "a.txt", "temp": ".a.txt.surepatch-1-aa.tmp"},
                {"path": "b.txt", "temp": ".b.txt.surepatch-1-ab.tmp"},
                {"path": "n/new.txt", "temp": ".new.txt.surepatch-1-cd.tmp"},
                {"path": "c.txt", "temp": null},
            ]),
        );
        let ws = Workspace::new(&root).unwrap();
        let t = Txn::open(&ws, &[("b.txt".to_string(), Resolve::Existing)], 1 << 20).unwrap();
        assert_eq!(t.files[0].bytes.as_deref(), Some(&b"B1"[..]));
        drop(t);
        assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"A1");
        assert_eq!(fs::read(root.join("n/new.txt")).unwrap(), b"N1");
        assert_eq!(listing(&root), ["a.txt", "b.txt", "n"]);
        assert_eq!(listing(&root.join("n")), ["new.txt"]);

        // Killed before the commit point: the temp files go, no file changes.
        fs::write(root.join(".a.txt.surepatch-2-aa.tmp"), "A2").unwrap();
        plant_intent(
            &root,
            "prepared",
            serde_json::json!([
                {"path": "a.txt", "temp": ".a.txt.surepatch-2-aa.tmp"},
                {"path": "b.txt", "temp": ".b.txt.surepatch-2-ab.tmp"},
                {"path": "b.txt", "temp": null},
            ]),
        );
        let t = Txn::open(&ws, &[("x.txt".to_string(), Resolve::MayCreate)], 1 << 20).unwrap();
        drop(t);
        assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"A1");
        assert_eq!(fs::read(root.join("b.txt")).unwrap(), b"B1");
        assert_eq!(listing(&root), ["a.txt", "b.txt", "n"]);
    }

    /// A record whose lock is held belongs to a commit in progress: it is not recovered, and a call
    /// on one of its files waits (here until its deadline) instead of reading a half-applied file.
    #[test]
    fn a_live_commit_record_is_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::write(root.join("a.txt"), "A0").unwrap();
        fs::write(root.join(".a.txt.surepatch-1-aa.tmp"), "A1").unwrap();
        let id = plant_intent(
            &root,
            "committed",
            serde_json::json!([{"path": "a.txt", "temp": ".a.txt.surepatch-1-aa.tmp"}]),
        );
        let lock = fs::File::open(root.join(INTENT_DIR).join(format!("{id}.lock"))).unwrap();
        lock.try_lock().unwrap();
        let ws = Workspace::new(&root).unwrap();
        let other = Txn::open(&ws, &[("x.txt".to_string(), Resolve::MayCreate)], 1 << 20);
        assert!(other.is_ok());
        drop(other);
        let err = std::thread::scope(|s| {
            s.spawn(|| {
                fsio::set_lock_timeout(Some(std::time::Duration::from_millis(100)));
                Txn::open(&ws, &[("a.txt".to_string(), Resolve::Existing)], 1 << 20)
                    .err()
                    .unwrap()
            })
            .join()
            .unwrap()
        });
        assert_eq!(err.code, Code::LockTimeout, "{}", err.message);
        assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"A0");
        assert!(root.join(INTENT_DIR).join(format!("{id}.json")).exists());
        drop(lock);
        let t = Txn::open(&ws, &[("a.txt".to_string(), Resolve::Existing)], 1 << 20).unwrap();
        assert_eq!(t.files[0].bytes.as_deref(), Some(&b"A1"[..]));
        drop(t);
        assert_eq!(listing(&root), ["a.txt"]);
    }

    /// A multi-file commit leaves no record behind, and a failure before the commit point changes
    /// nothing.
    #[test]
    fn multi_file_commits_leave_no_record() {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::write(root.join("a.txt"), "a").unwrap();
        fs::write(root.join("b.txt"), "b").unwrap();
        let ws = Workspace::new(&root).unwrap();
        let paths = [
            ("a.txt".to_string(), Resolve::Existing),
            ("b.txt".to_string(), Resolve::Existing),
            ("sub/c.txt".to_string(), Resolve::MayCreate),
        ];
        let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
        t.files[0].action = Action::Write(b"A".to_vec());
        t.files[1].action = Action::Delete;
        t.files[2].action = Action::Write(b"C".to_vec());
        let done = t.commit().unwrap();
        assert_eq!(
            done.iter().map(|c| c.kind).collect::<Vec<_>>(),
            ["update", "create", "delete"]
        );
        assert_eq!(listing(&root), ["a.txt", "sub"]);
        assert_eq!(fs::read(root.join("sub/c.txt")).unwrap(), b"C");
        // A new file whose name is taken meanwhile fails at the last step: the update is undone.
        let mut t = Txn::open(
            &ws,
            &[
                ("a.txt".to_string(), Resolve::Existing),
                ("z.txt".to_string(), Resolve::MayCreate),
            ],
            1 << 20,
        )
        .unwrap();
        t.files[0].action = Action::Write(b"AA".to_vec());
        t.files[1].action = Action::Write(b"Z".to_vec());
        fs::write(root.join("z.txt"), "theirs").unwrap();
        let err = t.commit().unwrap_err();
        assert_eq!(err.code, Code::StaleFile, "{}", err.message);
        assert_eq!(
            err.detail("rolled_back").unwrap(),
            &serde_json::json!(["a.txt"])
        );
        assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"A");
        assert_eq!(fs::read(root.join("z.txt")).unwrap(), b"theirs");
        assert_eq!(listing(&root), ["a.txt", "sub", "z.txt"]);
    }
}

#[cfg(test)]
mod intent_race_tests {
    use super::*;
    use std::fs;

    #[test]
    fn concurrent_multi_file_commits_never_lose_their_record() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        fs::create_dir(root.join("d")).unwrap();
        fs::write(root.join("d/shared.txt"), "0\n").unwrap();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let root = root.clone();
                std::thread::spawn(move || {
                    let ws = Workspace::new(&root).unwrap();
                    // The race under test is about records, not fairness: a loaded machine may keep
                    // one thread waiting on the shared directory lock for a while.
                    crate::fs::fsio::set_lock_timeout(Some(std::time::Duration::from_secs(300)));
                    for round in 0..40 {
                        // Every transaction updates one shared file and creates its own.
                        let a = format!("d/t{t}-{round}.txt");
                        let b = "d/shared.txt".to_string();
                        let mut txn = Txn::open(
                            &ws,
                            &[(a, Resolve::MayCreate), (b, Resolve::Existing)],
                            1 << 20,
                        )
                        .unwrap_or_else(|f| panic!("open {t}/{round}: {}", f.message));
                        txn.files[0].action = Action::Write(format!("{round}\n").into_bytes());
                        txn.files[1].action = Action::Write(format!("{round}\n").into_bytes());
                        if let Err(f) = txn.commit() {
                            panic!("thread {t} round {round}: {}", f.message);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(!root.join(INTENT_DIR).exists(), "no record left");
        for dir in [root.clone(), root.join("d")] {
            for e in fs::read_dir(&dir).unwrap() {
                let n = e.unwrap().file_name().into_string().unwrap();
                assert!(!n.starts_with('.'), "litter {n}");
            }
        }
    }
}
