//! The ignore files of a walk, read by surepatch rather than by the `ignore` crate.
//!
//! A repository is untrusted input. Git stores symlinks, so a cloned tree can hold
//! `sub/.ignore` → `/dev/zero`, and any tree can hold a FIFO named `.gitignore`. The crate opens and
//! reads whatever it finds under those names (a FIFO blocks the open for good; `/dev/zero` is read
//! into one line until memory runs out), so the walks turn its ignore-file reading off
//! (`standard_filters(false)`) and apply the same rules from files read here: only a regular file,
//! not a symlink (as git ≥ 2.32 does not follow a symlinked `.gitignore` either), inside the root, at
//! most [`MAX_IGNORE_FILE_BYTES`], looked at and opened through the root's directory handle without
//! following a link and without blocking ([`fsio::read_small_regular`]). Any other is skipped, and
//! the result names it (`skipped_ignore_files`).
//!
//! The rules are the crate's (with `require_git(false)`, no parents above the root and no global
//! excludes), which are git's:
//! - in every directory from the workspace root down, `.gitignore` and `.ignore` hold rules for the
//!   entries below that directory, relative to it;
//! - `.git/info/exclude` of the root holds rules for the whole tree (the exclude files of nested
//!   repositories are not read, nor the one a linked worktree's `.git` file points to, which is
//!   outside the root);
//! - for an entry, each kind of file is asked from the entry's own directory upward, and the nearest
//!   file holding a matching rule (a negation `!…` included) decides for its kind; `.ignore` then
//!   takes precedence over `.gitignore`, and `.gitignore` over the exclude file;
//! - a directory excluded is not entered (its entries are never asked about).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use cap_std::fs::Dir;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use serde_json::Value;

use crate::contract::receipts::SkippedIgnoreFile;
use crate::error::Result;
use crate::fs::fsio::{self, Sandbox, SmallFile, SmallRefusal};
use crate::fs::workspace::Workspace;

/// Largest ignore file read (1 MiB); a larger one is skipped (`too_large`).
pub const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// The rules of one directory, and of its parents up to the root.
struct Level {
    ignore: Gitignore,
    gitignore: Gitignore,
    /// `.git/info/exclude`: the root's level only.
    exclude: Gitignore,
    parent: Option<Arc<Level>>,
}

/// The ignore rules of a walk: each directory's files are read once, when an entry of the directory
/// is first asked about. Shared by the walk's threads.
pub struct IgnoreRules {
    /// Unique per value (see [`IgnoreRules::level_cached`]).
    id: u64,
    ws: Workspace,
    sb: Sandbox,
    levels: Mutex<HashMap<PathBuf, Arc<Level>>>,
    skipped: Mutex<BTreeMap<String, SmallRefusal>>,
}

impl IgnoreRules {
    pub fn new(ws: &Workspace) -> Result<IgnoreRules> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Ok(IgnoreRules {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            ws: ws.clone(),
            sb: Sandbox::open(ws.root())?,
            levels: Mutex::new(HashMap::new()),
            skipped: Mutex::new(BTreeMap::new()),
        })
    }

    /// Whether the ignore files exclude (`Ignore`) or re-include (`Whitelist`) the entry at `path`
    /// (a real path below the root), or say nothing about it.
    pub fn matched(&self, path: &Path, is_dir: bool) -> Match<()> {
        let Some(level) = path.parent().and_then(|d| self.level_cached(d)) else {
            return Match::None;
        };
        let (mut by_ignore, mut by_gitignore, mut by_exclude) =
            (Match::None, Match::None, Match::None);
        let mut at = Some(&*level);
        while let Some(l) = at {
            if by_ignore.is_none() {
                by_ignore = l.ignore.matched(path, is_dir).map(|_| ());
            }
            if by_gitignore.is_none() {
                by_gitignore = l.gitignore.matched(path, is_dir).map(|_| ());
            }
            if by_exclude.is_none() {
                by_exclude = l.exclude.matched(path, is_dir).map(|_| ());
            }
            at = l.parent.as_deref();
        }
        by_ignore.or(by_gitignore).or(by_exclude)
    }

    /// The ignore files skipped so far, by path; `None` when there is none.
    pub fn skipped(&self) -> Option<Vec<SkippedIgnoreFile>> {
        let skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
        (!skipped.is_empty()).then(|| {
            skipped
                .iter()
                .map(|(path, why)| SkippedIgnoreFile {
                    path: path.clone(),
                    reason: why.as_str(),
                })
                .collect()
        })
    }

    /// [`IgnoreRules::level`], remembered per thread for the last directory asked about: a walk
    /// asks about a directory's entries one after another on one thread, so the shared map (and
    /// its lock, which the search threads would contend for) is met once per directory. (A weak
    /// reference: the rules go with the walk.)
    fn level_cached(&self, dir: &Path) -> Option<Arc<Level>> {
        thread_local! {
            static LAST: RefCell<Option<(u64, PathBuf, Weak<Level>)>> = const { RefCell::new(None) };
        }
        let hit = LAST.with_borrow(|last| match last {
            Some((id, d, l)) if *id == self.id && d == dir => l.upgrade(),
            _ => None,
        });
        if hit.is_some() {
            return hit;
        }
        let level = self.level(dir)?;
        LAST.set(Some((self.id, dir.to_path_buf(), Arc::downgrade(&level))));
        Some(level)
    }

    /// The rules that apply below `dir` (a real directory at or below the root), reading the files
    /// of the directories not met yet (the root's first).
    fn level(&self, dir: &Path) -> Option<Arc<Level>> {
        let root = self.ws.root();
        if !dir.starts_with(root) {
            return None;
        }
        let mut unread = Vec::new();
        let mut parent = None;
        {
            let levels = self.levels.lock().unwrap_or_else(|p| p.into_inner());
            let mut d = dir;
            loop {
                if let Some(l) = levels.get(d) {
                    parent = Some(l.clone());
                    break;
                }
                unread.push(d);
                if d == root {
                    break;
                }
                d = d.parent()?;
            }
        }
        for d in unread.into_iter().rev() {
            let level = Arc::new(self.read_level(d, parent.take()));
            let mut levels = self.levels.lock().unwrap_or_else(|p| p.into_inner());
            // Another thread may have read it meanwhile: keep the first.
            parent = Some(levels.entry(d.to_path_buf()).or_insert(level).clone());
        }
        parent
    }

    fn read_level(&self, dir: &Path, parent: Option<Arc<Level>>) -> Level {
        let mut level = Level {
            ignore: Gitignore::empty(),
            gitignore: Gitignore::empty(),
            exclude: Gitignore::empty(),
            parent,
        };
        // Most directories have no ignore file: a look by path (one `lstat` each, as the crate's
        // look) saves opening the directory through the root's handle. It only decides whether to
        // look; what is read is looked at again through the handle.
        let here = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
        let is_root = dir == self.ws.root();
        let exclude = is_root && here(".git/info/exclude");
        if !here(".ignore") && !here(".gitignore") && !exclude {
            return level;
        }
        // A directory that cannot be opened through the root's handle now (swapped for a link,
        // removed) has no entries the walk keeps; it has no rules either.
        let Ok(handle) = self.sb.open_dir(dir) else {
            return level;
        };
        level.ignore = self.read(&handle, dir, ".ignore", dir);
        level.gitignore = self.read(&handle, dir, ".gitignore", dir);
        if exclude {
            let info = dir.join(".git").join("info");
            match self.sb.open_dir(&info) {
                Ok(h) => level.exclude = self.read(&h, &info, "exclude", dir),
                // `.git` or `.git/info` is a symlink: not followed.
                Err(f) if f.detail("reason").and_then(Value::as_str) == Some("symlink") => {
                    self.skip(&info.join("exclude"), SmallRefusal::Symlink)
                }
                // No `.git` directory (none, or a worktree's `.git` file).
                Err(_) => {}
            }
        }
        level
    }

    /// The rules of the file `name` of the directory `dir` (open as `handle`), for the entries
    /// below `base`.
    fn read(&self, handle: &Dir, dir: &Path, name: &str, base: &Path) -> Gitignore {
        match fsio::read_small_regular(handle, OsStr::new(name), MAX_IGNORE_FILE_BYTES) {
            SmallFile::Missing => Gitignore::empty(),
            SmallFile::Refused(why) => {
                self.skip(&dir.join(name), why);
                Gitignore::empty()
            }
            SmallFile::Read(bytes) => compile(base, &dir.join(name), &bytes),
        }
    }

    fn skip(&self, path: &Path, why: SmallRefusal) {
        self.skipped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(self.ws.display(path), why);
    }
}

/// The rules of an ignore file's bytes, read as the crate reads a file: line by line (`\n`, an
/// optional `\r` before it), a UTF-8 BOM dropped from the first line, stopping at the first line
/// that is not UTF-8; a line that is not a valid glob is left out, and a file whose globs cannot be
/// compiled together has no rules.
fn compile(base: &Path, from: &Path, bytes: &[u8]) -> Gitignore {
    let mut b = GitignoreBuilder::new(base);
    for (i, line) in bytes.split(|&c| c == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(line) = std::str::from_utf8(line) else {
            break;
        };
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = b.add_line(Some(from.to_path_buf()), line);
    }
    b.build().unwrap_or_else(|_| Gitignore::empty())
}
