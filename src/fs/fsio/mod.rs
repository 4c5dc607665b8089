//! The sandboxed file system layer: every read, lock, write, rename, unlink and mkdir surepatch makes
//! goes through a [`Sandbox`], a handle on the workspace root, and acts through directory handles
//! opened one component at a time below it, never following a symbolic link.
//!
//! Paths handed to the sandbox are real paths from [`crate::fs::workspace::Workspace::resolve`]: every
//! symlink on them was already resolved, so the path below the root names only real directories. A
//! component that is a symbolic link now was swapped in after the check, and is refused
//! (`FILE_READ_ERROR`, detail `reason: "symlink"`), never followed. The directory handles come from
//! `cap-std` (on Linux `openat2` with `RESOLVE_BENEATH` when the kernel has it), opened with
//! `O_NOFOLLOW` for each component (`cap_fs_ext::DirExt::open_dir_nofollow`), so the final
//! operation (`openat`, `renameat`, `unlinkat`, `linkat`, `mkdirat`) names a single entry of a
//! directory known to be inside the root. This holds on every platform cap-std supports.
//!
//! The protocol for an edit is [`LockedFile::open`] → `read_all` → (edit) → [`Sandbox::write`] →
//! drop the lock. A write replaces the file by renaming a fully written, fsynced temp file over it,
//! so readers see the old or the new content, never a mix; the replaced file's mode, and its owner
//! and group where the process may set them, are kept. Because that rename gives the path a new
//! inode, [`LockedFile::open`] re-checks after taking its lock that the path still names the file it
//! locked, and starts again if not. A creation links its temp file in place (`linkat`), which fails
//! if the name exists, so two creators never overwrite each other.
//!
//! Locks are advisory (`flock` on unix, `LockFileEx` on Windows): they serialize surepatch writers
//! (across threads and processes), not other programs. A lock wait is bounded ([`Deadline`], per
//! call: option `lock_timeout_ms`, default 10 s) and ends with `LOCK_TIMEOUT`.
//!
//! This module holds the [`Sandbox`] itself and its failures; its parts live beside it: bounded lock
//! waits and the directory lock (`lock`), the locked file of an edit (`locked`), atomic writes and
//! temp names (`atomic`), the sweep of crash leftovers (`sweep`), small reads of ignore files
//! (`small`) and, in test builds only, the write-fault hook (`fault`). It may use [`crate::error`]
//! only: what a path means to the workspace is [`crate::fs::workspace`]'s business, and what a
//! write means to the journal is [`crate::fs::journal`]'s.

use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata, Permissions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};

use crate::error::{Code, Failure, Result};

/// How many times [`LockedFile::open`] starts again when the path was replaced while it waited.
/// Each retry means another writer finished an edit (progress, not a livelock); the lock deadline
/// bounds the whole wait anyway.
const LOCK_RETRIES: usize = 1000;
/// Temp files of ours older than this are a crash leftover and are swept.
const STALE_TEMP_AGE: Duration = Duration::from_secs(10 * 60);
/// Marker in temp file names: `.<name>.surepatch-<pid>-<16 lowercase hex>.tmp` (see [`temp_name`]; the
/// sweep takes only that exact shape for its own, see [`is_our_temp`]).
const TEMP_MARK: &str = ".surepatch-";
/// Longest file name (bytes) the common file systems take (ext4, xfs, btrfs, APFS; NTFS: 255 UTF-16
/// units, which is more).
const NAME_MAX: usize = 255;
/// Bytes a temp name adds to its stem: `.` + [`TEMP_MARK`] + a 10-digit pid + `-` + 16 hex + `.tmp`.
const TEMP_OVERHEAD: usize = 1 + TEMP_MARK.len() + 10 + 1 + 16 + 4;
/// Default bound of a lock wait.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

fn lossy(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

mod atomic;
#[cfg(any(test, feature = "fault-injection"))]
mod fault;
mod lock;
mod locked;
mod small;
mod sweep;
#[cfg(test)]
mod tests;

pub use atomic::*;
#[cfg(any(test, feature = "fault-injection"))]
pub use fault::*;
pub use lock::*;
pub use locked::*;
pub use small::*;
#[allow(unused_imports)]
use sweep::*;

// ---------------------------------------------------------------------------------------------
// Errors

fn symlink_refused(path: &Path) -> Failure {
    Failure::new(
        Code::FileReadError,
        format!(
            "{} is a symbolic link (it was probably swapped in after the path was resolved); \
             it is not followed; resolve the path again",
            path.display()
        ),
    )
    .with("path", lossy(path))
    .with("reason", "symlink")
}

fn swapped_parent(path: &Path) -> Failure {
    Failure::new(
        Code::FileReadError,
        format!(
            "a directory on the path of {} was replaced (by a symbolic link or a move) after the \
             path was resolved; it is not followed; resolve the path again",
            path.display()
        ),
    )
    .with("path", lossy(path))
    .with("reason", "symlink")
}

fn is_loop(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        let raw = e.raw_os_error();
        raw == Some(libc::ELOOP)
            || (cfg!(any(target_os = "freebsd", target_os = "dragonfly"))
                && raw == Some(libc::EMLINK))
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

fn open_error(e: &io::Error, path: &Path) -> Failure {
    if is_loop(e) {
        return symlink_refused(path);
    }
    if e.kind() == io::ErrorKind::NotADirectory {
        return Failure::new(
            Code::FileNotFound,
            format!(
                "{} does not exist: one of its parents is a file; check the path",
                path.display()
            ),
        )
        .with("path", lossy(path));
    }
    Failure::io(e, true, &lossy(path)).with("path", lossy(path))
}

fn write_error(e: &io::Error, path: &Path) -> Failure {
    let what = lossy(path);
    let mut f = Failure::io(e, false, &what).with("path", &what);
    if f.code == Code::FileWriteError || f.code == Code::FileNotFound {
        f.message.push_str("; the file was not changed");
    }
    f
}

// ---------------------------------------------------------------------------------------------
// The sandbox

/// A handle on the workspace root; every file system operation of a call goes through it.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    dir: Dir,
}

/// The metadata a replacement keeps: the mode, and on unix the owner and group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    perms: Permissions,
    /// `None`: the file keeps the owner it was created with (this process's).
    #[cfg(unix)]
    owner: Option<(u32, u32)>,
}

impl Kept {
    fn of(meta: &Metadata) -> Kept {
        Kept {
            perms: meta.permissions(),
            #[cfg(unix)]
            owner: {
                use std::os::unix::fs::MetadataExt;
                Some((meta.uid(), meta.gid()))
            },
        }
    }

    /// As the on-disk undo journal keeps it: `{"mode"}`, the permission bits, on unix (`null`
    /// elsewhere: nothing is restored from the disk there). Not the set-id and sticky bits, nor the
    /// owner: the journal directory is inside the workspace, where a tool call may write, and an
    /// entry must not be able to make a set-id file or give one away (see [`Kept::owned_like`] for
    /// the write bits).
    pub fn to_json(&self) -> serde_json::Value {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            serde_json::json!({ "mode": self.perms.mode() & 0o777 })
        }
        #[cfg(not(unix))]
        {
            serde_json::Value::Null
        }
    }

    /// The inverse of [`Kept::to_json`] (`None` for anything else, and always on Windows).
    pub fn from_json(v: &serde_json::Value) -> Option<Kept> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = v["mode"].as_u64().filter(|m| *m <= 0o777)?;
            Some(Kept {
                perms: Permissions::from_mode(mode as u32),
                owner: None,
            })
        }
        #[cfg(not(unix))]
        {
            let _ = v;
            None
        }
    }

    /// What a restore from the on-disk journal (this `Kept` names no owner) gives the file `current`
    /// (its metadata now, `None` when missing): these permission bits, but write permission for group
    /// and others only where the file also has it now, and `current`'s owner and group. So a forged
    /// entry can neither make a file writable for others nor give it away. A `Kept` that names its owner
    /// (this process's own records) is returned as it is.
    pub fn owned_like(self, current: Option<&Kept>) -> Kept {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if self.owner.is_some() {
                return self;
            }
            let now = current.map_or(0, |c| c.perms.mode());
            let kept = self.perms.mode();
            let mode = (kept & 0o755) | (kept & now & 0o022);
            Kept {
                perms: Permissions::from_mode(mode),
                owner: current.and_then(|c| c.owner),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = current;
            self
        }
    }

    /// Gives `file` (a fresh temp file owned by this process) this owner, group and mode. Owner and
    /// group are best effort (only root may give a file away; an owner may set one of its groups);
    /// the mode is set last, as `chown` clears the set-id bits.
    fn apply(&self, file: &File) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::{fchown, MetadataExt};
            let m = file.metadata()?;
            let Some((uid, gid)) = self.owner else {
                return file.set_permissions(self.perms.clone());
            };
            if (m.uid(), m.gid()) != (uid, gid)
                && fchown(file, Some(uid), Some(gid)).is_err()
                && m.gid() != gid
            {
                let _ = fchown(file, None, Some(gid));
            }
        }
        file.set_permissions(self.perms.clone())
    }
}

/// Looks up entries below the root through directory handles opened without following a symlink,
/// for the reading tools that walk the tree by path (`listDirectory`, `findFiles`): a name the walk
/// saw is kept only if it is there through the root's handle, so a parent swapped for a link to
/// elsewhere during the walk cannot show what is outside. The handle of the last directory is kept
/// (a walk yields a directory's entries together), so the cost is about one `fstatat` per entry.
pub struct Beneath<'a> {
    sb: &'a Sandbox,
    last: Option<(PathBuf, Dir)>,
}

impl Beneath<'_> {
    /// The metadata of `real` (not following a symlink), or `None` when it is not there beneath the
    /// root.
    pub fn metadata(&mut self, real: &Path) -> Option<cap_std::fs::Metadata> {
        let parent = real.parent()?;
        let name = real.file_name()?;
        if self.last.as_ref().is_none_or(|(p, _)| p != parent) {
            let dir = self.sb.open_dir(parent).ok()?;
            self.last = Some((parent.to_path_buf(), dir));
        }
        let (_, dir) = self.last.as_ref()?;
        dir.symlink_metadata(name).ok()
    }
}

/// How [`Sandbox::write`] puts the new file in place.
#[derive(Debug, Clone, Copy)]
pub enum Put<'a> {
    /// Replace the file, keeping its mode, owner and group.
    Replace(&'a Kept),
    /// Create the file; the name must be free (else `STALE_FILE`).
    CreateNew,
    /// Create the file as [`Put::CreateNew`] does, with this mode, owner and group (a file moved
    /// by copy keeps its own).
    CreateLike(&'a Kept),
    /// Create or replace, with the mode of a new file.
    Any,
    /// Create or replace, readable and writable by the owner alone (0o600 less the umask), from the
    /// moment the temp file exists: the on-disk undo journal, which holds files' previous content.
    Private,
}

/// The mode of the directories the on-disk undo journal makes, and that its own directory is given
/// ([`Sandbox::create_private_dirs_made`], [`Sandbox::make_private`]).
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// The mode of the files the on-disk undo journal writes ([`Put::Private`]).
pub const PRIVATE_FILE_MODE: u32 = 0o600;

impl Sandbox {
    /// Opens the workspace root `root` (a canonical path).
    pub fn open(root: &Path) -> Result<Sandbox> {
        let dir = Dir::open_ambient_dir(root, cap_std::ambient_authority()).map_err(|e| {
            Failure::new(
                Code::InvalidInput,
                format!("the workspace root {} cannot be used: {e}", root.display()),
            )
            .with("root", lossy(root))
        })?;
        Ok(Sandbox {
            root: root.to_path_buf(),
            dir,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The components of `real` below the root. Outside → `PATH_OUTSIDE_WORKSPACE`; a `.`/`..`
    /// component (not from a resolved path) → `INVALID_INPUT`.
    fn components<'a>(&self, real: &'a Path) -> Result<Vec<&'a OsStr>> {
        let rel = if real.is_absolute() {
            real.strip_prefix(&self.root).map_err(|_| {
                Failure::new(
                    Code::PathOutsideWorkspace,
                    format!(
                        "{} is outside the workspace root {}",
                        real.display(),
                        self.root.display()
                    ),
                )
                .with("path", lossy(real))
            })?
        } else {
            real
        };
        rel.components()
            .map(|c| match c {
                Component::Normal(n) => Ok(n),
                _ => Err(Failure::new(
                    Code::InvalidInput,
                    format!("{}: '.' and '..' are not allowed here", real.display()),
                )
                .with("path", lossy(real))),
            })
            .collect()
    }

    /// Opens the directory `names` below the root, one component at a time, never following a
    /// symlink. `real` is the path the caller asked about (for messages).
    fn walk(&self, names: &[&OsStr], real: &Path) -> Result<Dir> {
        let mut dir = self
            .dir
            .try_clone()
            .map_err(|e| Failure::io(&e, true, &lossy(&self.root)))?;
        for name in names {
            dir = match dir.open_dir_nofollow(name) {
                Ok(d) => d,
                Err(e) => {
                    return Err(match dir.symlink_metadata(name) {
                        Ok(m) if m.file_type().is_symlink() => swapped_parent(real),
                        Ok(m) if !m.is_dir() => Failure::new(
                            Code::FileNotFound,
                            format!(
                                "{} does not exist: one of its parents is a file; check the path",
                                real.display()
                            ),
                        )
                        .with("path", lossy(real)),
                        Err(e2) if e2.kind() == io::ErrorKind::NotFound => Failure::new(
                            Code::FileNotFound,
                            format!(
                                "{} does not exist: its directory {} is missing",
                                real.display(),
                                Path::new(name).display()
                            ),
                        )
                        .with("path", lossy(real)),
                        // It was a symlink when opened (`O_NOFOLLOW|O_DIRECTORY` on a link
                        // gives ENOTDIR or ELOOP) and is a directory again now: swapped.
                        _ if is_loop(&e) || e.kind() == io::ErrorKind::NotADirectory => {
                            swapped_parent(real)
                        }
                        _ => Failure::io(&e, true, &lossy(real)).with("path", lossy(real)),
                    });
                }
            };
        }
        Ok(dir)
    }

    /// The directory `real_dir` (the root or below it).
    pub fn open_dir(&self, real_dir: &Path) -> Result<Dir> {
        let names = self.components(real_dir)?;
        self.walk(&names, real_dir)
    }

    /// The directory holding `real`, and the file's name in it.
    fn parent(&self, real: &Path) -> Result<(Dir, OsString)> {
        let mut names = self.components(real)?;
        let name = names.pop().ok_or_else(|| {
            Failure::new(
                Code::InvalidInput,
                format!("{} does not name a file", real.display()),
            )
        })?;
        Ok((self.walk(&names, real)?, name.to_os_string()))
    }

    /// Whether an entry (of any type) exists at `real`, not following a symlink. A missing or
    /// unreadable directory on the way → false.
    pub fn exists(&self, real: &Path) -> bool {
        self.parent(real)
            .is_ok_and(|(d, n)| d.symlink_metadata(&n).is_ok())
    }

    /// Whether `real` is a directory (not a symlink to one).
    pub fn is_dir(&self, real: &Path) -> bool {
        self.open_dir(real).is_ok()
    }

    /// The bytes of the regular file `real`; `None` if missing, not a regular file, or unreadable.
    pub fn read_regular(&self, real: &Path) -> Option<Vec<u8>> {
        let (file, _) = self.open_regular(real)?;
        let mut buf = Vec::new();
        (&file).read_to_end(&mut buf).ok()?;
        Some(buf)
    }

    /// The regular file `real` opened for reading through the root's handle, never following a
    /// symlink on the way (a parent swapped for a link to elsewhere fails to open), and its size;
    /// `None` if missing, not a regular file, or unreadable. The open does not block on a FIFO
    /// (`O_NONBLOCK`), which the `fstat` after it then refuses.
    pub fn open_regular(&self, real: &Path) -> Option<(std::fs::File, u64)> {
        let (dir, name) = self.parent(real).ok()?;
        let file = dir.open_with(&name, &read_options()).ok()?.into_std();
        let meta = file.metadata().ok()?;
        meta.is_file().then_some((file, meta.len()))
    }

    /// Names of the entries of `real_dir` with whether each is a directory (not following links).
    pub fn list_dir(&self, real_dir: &Path) -> Vec<(OsString, bool)> {
        let Ok(dir) = self.open_dir(real_dir) else {
            return Vec::new();
        };
        let Ok(entries) = dir.entries() else {
            return Vec::new();
        };
        entries
            .flatten()
            .map(|e| {
                let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                (e.file_name(), is_dir)
            })
            .collect()
    }

    /// Sizes of the regular files directly in `real_dir`, by name.
    pub fn file_sizes(&self, real_dir: &Path) -> Vec<(OsString, u64)> {
        let Ok(dir) = self.open_dir(real_dir) else {
            return Vec::new();
        };
        let Ok(entries) = dir.entries() else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let m = dir.symlink_metadata(e.file_name()).ok()?;
                m.is_file().then(|| (e.file_name(), m.len()))
            })
            .collect()
    }

    /// A [`Beneath`] over this sandbox.
    pub fn beneath(&self) -> Beneath<'_> {
        Beneath {
            sb: self,
            last: None,
        }
    }

    /// Removes the regular file (or symlink: the link itself) at `real`.
    pub fn remove_file(&self, real: &Path) -> Result<()> {
        let (dir, name) = self.parent(real)?;
        dir.remove_file(&name).map_err(|e| {
            let code = match e.kind() {
                io::ErrorKind::NotFound => Code::FileNotFound,
                io::ErrorKind::PermissionDenied => Code::PermissionDenied,
                io::ErrorKind::IsADirectory => Code::TargetIsDirectory,
                _ => Code::FileWriteError,
            };
            Failure::new(
                code,
                format!(
                    "deleting {} failed: {e}; it was not deleted",
                    real.display()
                ),
            )
            .with("path", lossy(real))
        })
    }

    /// Removes the directory `real_dir` and everything in it (symlinks in it are removed, never
    /// followed). Best effort.
    pub fn remove_dir_all(&self, real_dir: &Path) {
        if let Ok((dir, name)) = self.parent(real_dir) {
            if dir
                .symlink_metadata(&name)
                .is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink())
            {
                let _ = dir.remove_dir_all(&name);
            }
        }
    }

    /// Creates the missing directories of `real_dir` (the root or below it), one component at a
    /// time: each is created with `mkdirat` in, then opened (`O_NOFOLLOW`) from, its parent's handle.
    /// A component that is a symlink → `FILE_READ_ERROR` (`reason: "symlink"`); a file →
    /// `INVALID_INPUT`. A failure midway removes the directories this call made (see
    /// [`Sandbox::create_dirs_made`]).
    pub fn create_dirs(&self, real_dir: &Path) -> Result<()> {
        self.create_dirs_made(real_dir).map(|_| ())
    }

    /// [`Sandbox::create_dirs`], returning the directories this call made itself (real paths,
    /// outermost first; not those that existed or that another process made meanwhile), for
    /// [`Sandbox::remove_made_dirs`] when what they were made for fails. On its own failure it
    /// removes them before returning: a refused call leaves no directory behind.
    pub fn create_dirs_made(&self, real_dir: &Path) -> Result<Vec<PathBuf>> {
        self.create_dirs_with(real_dir, None)
    }

    /// [`Sandbox::create_dirs_made`] for private data (the on-disk undo journal): each directory it
    /// makes gets [`PRIVATE_DIR_MODE`] (owner only) at its `mkdirat`, whatever the umask allows.
    pub fn create_private_dirs_made(&self, real_dir: &Path) -> Result<Vec<PathBuf>> {
        self.create_dirs_with(real_dir, Some(PRIVATE_DIR_MODE))
    }

    fn create_dirs_with(&self, real_dir: &Path, mode: Option<u32>) -> Result<Vec<PathBuf>> {
        let mut made = Vec::new();
        let r = self.create_dirs_into(real_dir, &mut made, mode);
        match r {
            Ok(()) => Ok(made),
            Err(f) => {
                self.remove_made_dirs(&made);
                Err(f)
            }
        }
    }

    /// Takes group and other permissions away from the directory `real_dir` (the root or below it,
    /// opened without following a symlink) when this process's user owns it: its mode becomes
    /// `mode & 0o700`. Another user's directory is left as it is. For the on-disk undo journal, whose
    /// directory may have been made before journals were private. Unix only (a no-op elsewhere).
    pub fn make_private(&self, real_dir: &Path) -> Result<()> {
        #[cfg(unix)]
        {
            use cap_std::fs::PermissionsExt as _;
            use std::os::unix::fs::MetadataExt;
            let dir = self.open_dir(real_dir)?;
            let fail = |e: &io::Error| write_error(e, real_dir);
            // fstat of the handle; the chmod names the handle's own directory (".") too, so no
            // path is looked up again (the handle may be O_PATH, on which fchmod fails).
            let meta = dir
                .try_clone()
                .and_then(|d| d.into_std_file().metadata())
                .map_err(|e| fail(&e))?;
            let mine = meta.uid() == unsafe { libc::geteuid() };
            if mine && meta.mode() & 0o077 != 0 {
                let narrowed = cap_std::fs::Permissions::from_mode(meta.mode() & 0o700);
                dir.set_permissions(".", narrowed).map_err(|e| fail(&e))?;
            }
        }
        #[cfg(not(unix))]
        let _ = real_dir;
        Ok(())
    }

    /// Removes the directories `made` (from [`Sandbox::create_dirs_made`]), innermost first, each
    /// only if it is still empty, through the handle of its parent (never following a symlink).
    /// Best effort: one another call has put something in meanwhile stays.
    pub fn remove_made_dirs(&self, made: &[PathBuf]) {
        for d in made.iter().rev() {
            self.remove_empty_dir(d);
        }
    }

    fn create_dirs_into(
        &self,
        real_dir: &Path,
        made: &mut Vec<PathBuf>,
        mode: Option<u32>,
    ) -> Result<()> {
        let names = self.components(real_dir)?;
        let mut dir = self
            .dir
            .try_clone()
            .map_err(|e| Failure::io(&e, false, &lossy(&self.root)))?;
        let mut here = self.root.clone();
        for name in names {
            here.push(name);
            let mut next = None;
            // A few rounds in case another process creates or removes the entry meanwhile.
            for _ in 0..8 {
                match dir.open_dir_nofollow(name) {
                    Ok(d) => {
                        next = Some(d);
                        break;
                    }
                    Err(e) => match dir.symlink_metadata(name) {
                        Ok(m) if m.file_type().is_symlink() => {
                            return Err(swapped_parent(real_dir))
                        }
                        Ok(m) if !m.is_dir() => {
                            return Err(Failure::new(
                                Code::InvalidInput,
                                format!(
                                    "{} cannot be created: {} exists and is not a directory",
                                    real_dir.display(),
                                    Path::new(name).display()
                                ),
                            )
                            .with("path", lossy(real_dir)))
                        }
                        Ok(_) if is_loop(&e) || e.kind() == io::ErrorKind::NotADirectory => {
                            return Err(swapped_parent(real_dir))
                        }
                        // Created by someone else between the two looks: open it next round.
                        Ok(_) if e.kind() == io::ErrorKind::NotFound => {}
                        Ok(_) => return Err(write_error(&e, real_dir)),
                        Err(_) => match make_dir(&dir, name, mode) {
                            Ok(()) => made.push(here.clone()),
                            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                            Err(e) => return Err(write_error(&e, real_dir)),
                        },
                    },
                }
            }
            dir = next.ok_or_else(|| {
                write_error(
                    &io::Error::other("it kept changing while being created"),
                    real_dir,
                )
            })?;
        }
        Ok(())
    }

    /// Atomically replaces or creates `real` with the concatenation of `parts`.
    ///
    /// Writes a temp file (see [`temp_stem`]) in the same directory, fsyncs it, gives it the kept
    /// metadata ([`Put::Replace`]) or a new file's mode (0o644 less the umask), then renames it over
    /// `real` ([`Put::CreateNew`]: links it in place, failing if the name is taken) and fsyncs the
    /// directory. On any failure the temp file is removed and `real` is untouched. Before writing,
    /// our temp files for the same name older than 10 minutes (crash leftovers) are removed; no
    /// other file is touched. A hard link to the old file keeps the old content.
    pub fn write(&self, real: &Path, parts: &[&[u8]], put: Put<'_>) -> Result<()> {
        self.prepare(real, parts, put, None)?.install()
    }

    /// [`Sandbox::write`] that runs `meanwhile` after the bytes are in the temp file and before its
    /// fsync, and returns what it returned. On Linux the disk write-back of the temp file is started
    /// first (`sync_file_range`, which does not wait), so `meanwhile` runs while the disk works,
    /// without a second thread; the fsyncs that follow are the same as [`Sandbox::write`]'s.
    pub fn write_with<R>(
        &self,
        real: &Path,
        parts: &[&[u8]],
        put: Put<'_>,
        meanwhile: impl FnOnce() -> R,
    ) -> Result<R> {
        let mut meanwhile = Some(meanwhile);
        let mut out = None;
        let mut run = || out = meanwhile.take().map(|f| f());
        self.prepare_with(real, parts, put, None, true, Some(&mut run))?
            .install()?;
        // `prepare_with` runs it on every path that returns Ok.
        out.ok_or_else(|| Failure::new(Code::InternalError, "write_with: the hook did not run"))
    }

    /// [`Sandbox::write`] without the fsyncs: atomic for readers and across a killed process, but
    /// not across a power loss (for records whose loss costs nothing but a leftover).
    pub fn write_volatile(&self, real: &Path, bytes: &[u8]) -> Result<()> {
        let mut p = self.prepare_with(real, &[bytes], Put::Any, None, false, None)?;
        p.durable = false;
        p.install()
    }

    /// The first half of [`Sandbox::write`]: the temp file, written, fsynced and given its metadata,
    /// next to `real`, not yet in place. `tmp`: the temp name to use (see [`temp_name`]; it must be
    /// free), else a fresh one. Dropping the result removes the temp file.
    pub fn prepare(
        &self,
        real: &Path,
        parts: &[&[u8]],
        put: Put<'_>,
        tmp: Option<&OsStr>,
    ) -> Result<Prepared> {
        self.prepare_with(real, parts, put, tmp, true, None)
    }

    fn prepare_with(
        &self,
        real: &Path,
        parts: &[&[u8]],
        put: Put<'_>,
        tmp: Option<&OsStr>,
        durable: bool,
        meanwhile: Option<&mut dyn FnMut()>,
    ) -> Result<Prepared> {
        let (dir, name) = self.parent(real)?;
        let dir = Pinned { dir };
        let fail = |e: &io::Error| write_error(e, real);
        dir.sweep_stale_temps();
        let mode = match put {
            Put::Private => PRIVATE_FILE_MODE,
            _ => NEW_FILE_MODE,
        };
        let (tmp, mut file) = match tmp {
            Some(t) => dir.create_named(t, mode).map(|f| (t.to_os_string(), f)),
            None => dir.create_temp(&name, mode),
        }
        .map_err(|e| fail(&e))?;
        let prepared = Prepared {
            dir,
            tmp,
            name,
            real: real.to_path_buf(),
            create_new: matches!(put, Put::CreateNew | Put::CreateLike(_)),
            armed: true,
            durable,
        };
        for part in parts {
            file.write_all(part).map_err(|e| fail(&e))?;
        }
        if let Put::Replace(kept) | Put::CreateLike(kept) = put {
            kept.apply(&file).map_err(|e| fail(&e))?;
        }
        if let Some(meanwhile) = meanwhile {
            if durable {
                start_write_back(&file);
            }
            meanwhile();
        }
        if durable {
            file.sync_all().map_err(|e| fail(&e))?;
        }
        Ok(prepared)
    }

    /// Opens (creating it if `create`) the file `real` and takes its lock without waiting:
    /// `Ok(None)` when another holds it.
    pub fn try_lock_file(&self, real: &Path, create: bool) -> io::Result<Option<File>> {
        let (dir, name) = self.parent(real).map_err(as_io)?;
        let mut o = OpenOptions::new();
        o.read(true).follow(FollowSymlinks::No);
        if create {
            o.write(true).create(true);
        }
        let file = dir.open_with(&name, &o)?.into_std();
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Puts the temp file `tmp` (in the directory of `real`) in place at `real`, as a recovery does:
    /// nothing when `tmp` is gone; only removes `tmp` when it already is `real` (linked in place
    /// before a crash); else renames it over `real`. Then fsyncs the directory.
    pub fn roll_forward(&self, real: &Path, tmp: &OsStr) -> Result<()> {
        let (dir, name) = self.parent(real)?;
        let Ok(t) = dir.symlink_metadata(tmp) else {
            return Ok(());
        };
        let linked = dir
            .symlink_metadata(&name)
            .is_ok_and(|n| same_entry(&t, &n));
        let r = if linked {
            dir.remove_file(tmp)
        } else {
            dir.rename(tmp, &dir, &name)
        };
        r.map_err(|e| write_error(&e, real))?;
        Pinned { dir }.sync();
        Ok(())
    }

    /// Renames `from` to `to` (any two directories of the workspace), both through directory
    /// handles opened without following links.
    pub fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (da, a) = self.parent(from).map_err(as_io)?;
        let (db, b) = self.parent(to).map_err(as_io)?;
        da.rename(&a, &db, &b)
    }

    /// Renames `from` to `to`, two names in one directory.
    pub fn rename_in_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (dir, a) = self.parent(from).map_err(as_io)?;
        let b = to.file_name().ok_or(io::ErrorKind::InvalidInput)?;
        dir.rename(&a, &dir, b)
    }

    /// Removes `tmp` from the directory of `real` if it is there (a recovery's roll back).
    pub fn remove_temp(&self, real: &Path, tmp: &OsStr) {
        if let Ok((dir, _)) = self.parent(real) {
            let _ = dir.remove_file(tmp);
        }
    }

    /// Removes the directory `real_dir` if it is empty (not a symlink: `unlinkat` with
    /// `AT_REMOVEDIR` refuses one). Best effort.
    pub fn remove_empty_dir(&self, real_dir: &Path) {
        if let Ok((dir, name)) = self.parent(real_dir) {
            let _ = dir.remove_dir(&name);
        }
    }
}

/// A failure as an I/O error of the matching kind (for the helpers that answer `io::Result`).
fn as_io(f: Failure) -> io::Error {
    let kind = match f.code {
        Code::FileNotFound => io::ErrorKind::NotFound,
        Code::PermissionDenied => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, f.message)
}

/// A fresh temp name for target `real` (see [`Sandbox::prepare`]).
pub fn temp_name(real: &Path) -> OsString {
    let name = real.file_name().unwrap_or(OsStr::new("file"));
    let mut tmp = OsString::from(".");
    tmp.push(temp_stem(name));
    tmp.push(format!(
        "{TEMP_MARK}{}-{:016x}.tmp",
        std::process::id(),
        random_u64()
    ));
    tmp
}

#[cfg(unix)]
fn same_entry(a: &cap_std::fs::Metadata, b: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_entry(a: &cap_std::fs::Metadata, b: &cap_std::fs::Metadata) -> bool {
    a.len() == b.len()
        && a.modified().ok().map(|t| t.into_std()) == b.modified().ok().map(|t| t.into_std())
        && a.created().ok().map(|t| t.into_std()) == b.created().ok().map(|t| t.into_std())
}

/// Without the test hook ([`fault`], feature `fault-injection`), no write is ever failed on purpose.
#[cfg(not(any(test, feature = "fault-injection")))]
#[inline(always)]
fn fault_injected(_: &Path) -> bool {
    false
}
