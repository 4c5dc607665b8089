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
//! following a symlink below it (see [`crate::fsio`]).
//!
//! ```no_run
//! use surepatch::{txn::{Txn, Action}, workspace::{Workspace, Resolve}};
//! let ws = Workspace::new(std::path::Path::new(".")).unwrap();
//! let mut t = Txn::open(&ws, &[("a.txt".into(), Resolve::Existing)], 1 << 20).unwrap();
//! let old = t.files[0].bytes.clone().unwrap();
//! t.files[0].action = Action::Write([old, b"more\n".to_vec()].concat());
//! let done = t.commit().unwrap();
//! assert_eq!(done[0].display, "a.txt");
//! ```

use std::path::{Path, PathBuf};

use crate::error::{Code, Failure, Result};
use crate::fsio::{self, Deadline, DirLock, Kept, LockedFile, Put, Sandbox};
use crate::hash::file_hash_parts;
use crate::workspace::{Resolve, Workspace};

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
                Some(crate::text::spliced(base, 0..base.len(), spans))
            }
            Action::Keep | Action::Delete => None,
        }
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
    writable: bool,
    _lock: Option<LockedFile>,
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
    /// Hash of the bytes now on disk (`None` after a delete).
    pub file_hash: Option<String>,
    pub after_bytes: usize,
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
    /// Resolves, locks and reads every path. The same real file named twice is one entry; `files`
    /// keeps the callers' order (use [`Txn::index_of`] to find a path's entry).
    pub fn open(ws: &Workspace, paths: &[(String, Resolve)], max_bytes: u64) -> Result<Txn> {
        let deadline = Deadline::from_setting();
        let mut resolved = Vec::with_capacity(paths.len());
        for (p, mode) in paths {
            let r = ws.resolve(p, *mode)?;
            crate::trace::touch(&r.real);
            resolved.push((p.clone(), r));
        }
        let sandbox = Sandbox::open(ws.root())?;
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
                LockOn::Dir => dir_locks.push(DirLock::acquire(&sandbox, path, &deadline)?),
                LockOn::File(i) => {
                    let (user_path, r) = &resolved[*i];
                    let with_path = |f: Failure| f.with("file_path", &r.display);
                    let mut lock =
                        LockedFile::open(&sandbox, &r.real, &deadline).map_err(with_path)?;
                    let bytes = lock.read_all(max_bytes).map_err(with_path)?;
                    files[*i] = Some(TxFile {
                        user_path: user_path.clone(),
                        real: r.real.clone(),
                        display: r.display.clone(),
                        bytes: Some(bytes),
                        existed: true,
                        action: Action::Keep,
                        kept: Some(lock.kept()),
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
        let mut done: Vec<Committed> = Vec::new();
        let mut order: Vec<usize> = (0..self.files.len())
            .filter(|&i| matches!(self.files[i].action, Action::Write(_) | Action::Splice(_)))
            .collect();
        order.extend((0..self.files.len()).filter(|&i| self.files[i].action == Action::Delete));
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
                        Some(parent) if !f.existed => sb.create_dirs(parent),
                        _ => Ok(()),
                    };
                    let put = match &f.kept {
                        Some(k) => Put::Replace(k),
                        None => Put::CreateNew,
                    };
                    let written = parts.and_then(|parts| {
                        r?;
                        let hash = write_and_hash(sb, &f.real, &parts, put)?;
                        Ok((hash, parts.iter().map(|p| p.len()).sum()))
                    });
                    written.map(|(hash, after_bytes)| Committed {
                        display: f.display.clone(),
                        real: f.real.clone(),
                        kind: if f.existed { "update" } else { "create" },
                        before: f.bytes.take(),
                        file_hash: Some(hash),
                        after_bytes,
                    })
                }
                Action::Delete => sb.remove_file(&f.real).map(|_| Committed {
                    display: f.display.clone(),
                    real: f.real.clone(),
                    kind: "delete",
                    before: f.bytes.take(),
                    file_hash: None,
                    after_bytes: 0,
                }),
                Action::Keep => continue,
            };
            match step {
                Ok(c) => done.push(c),
                Err(e) => {
                    let restored = rollback(&self.sandbox, &done, &self.files);
                    let e = e
                        .with("file_path", &self.files[i].display)
                        .with("rolled_back", restored);
                    return Err(e);
                }
            }
        }
        Ok(done)
    }
}

/// Writes the concatenation of `parts` atomically and returns its hash; for large files the hash is
/// computed on a second thread while the write and its fsyncs wait on the disk.
fn write_and_hash(sb: &Sandbox, path: &Path, parts: &[&[u8]], put: Put<'_>) -> Result<String> {
    if parts.iter().map(|p| p.len()).sum::<usize>() < 1 << 20 {
        sb.write(path, parts, put)?;
        return Ok(file_hash_parts(parts));
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
        let marker = format!("{}/f3.txt", d.path().file_name().unwrap().to_str().unwrap());
        fsio::set_write_fault(Some(marker));
        let err = t.commit().unwrap_err();
        fsio::set_write_fault(None);
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
}
