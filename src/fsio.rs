//! The sandboxed file system layer: every read, lock, write, rename, unlink and mkdir surepatch makes
//! goes through a [`Sandbox`], a handle on the workspace root, and acts through directory handles
//! opened one component at a time below it, never following a symbolic link.
//!
//! Paths handed to the sandbox are real paths from [`crate::workspace::Workspace::resolve`]: every
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

use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata, Permissions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

// ---------------------------------------------------------------------------------------------
// Lock deadlines

thread_local! {
    static LOCK_TIMEOUT: Cell<Duration> = const { Cell::new(DEFAULT_LOCK_TIMEOUT) };
}

/// Sets how long the lock waits of calls made on this thread may last (the option
/// `lock_timeout_ms`, read once per call by the API layer; `None` restores the default 10 s).
pub fn set_lock_timeout(limit: Option<Duration>) {
    LOCK_TIMEOUT.with(|c| c.set(limit.unwrap_or(DEFAULT_LOCK_TIMEOUT)));
}

/// When the lock waits of one transaction must end.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    start: Instant,
    limit: Duration,
}

impl Deadline {
    pub fn after(limit: Duration) -> Deadline {
        Deadline {
            start: Instant::now(),
            limit,
        }
    }

    /// A deadline from this thread's setting ([`set_lock_timeout`]).
    pub fn from_setting() -> Deadline {
        Deadline::after(LOCK_TIMEOUT.with(Cell::get))
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.remaining().is_zero()
    }

    fn remaining(&self) -> Duration {
        self.limit.saturating_sub(self.start.elapsed())
    }

    fn timed_out(&self, what: &Path, kind: &str) -> Failure {
        let ms = self.limit.as_millis() as u64;
        Failure::new(
            Code::LockTimeout,
            format!(
                "{} is locked by another writer ({kind} lock); gave up after {ms} ms (option \
                 lock_timeout_ms); nothing was written. Try again in a moment.",
                what.display()
            ),
        )
        .with("path", lossy(what))
        .with("lock_timeout_ms", ms)
    }
}

/// Takes an exclusive lock on `file`, polling until `deadline` (1 ms, doubling to 50 ms between
/// tries). A blocking `flock` cannot be bounded, hence the polling.
fn lock_until(file: &File, deadline: &Deadline, what: &Path, kind: &str) -> Result<()> {
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Failure::new(
                    Code::FileReadError,
                    format!("locking {} failed: {e}", what.display()),
                )
                .with("path", lossy(what)))
            }
        }
        let left = deadline.remaining();
        if left.is_zero() {
            return Err(deadline.timed_out(what, kind));
        }
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

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

/// What [`Sandbox::read_small_regular`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum SmallFile {
    /// Nothing by that name (or a directory on the way is missing or a file).
    Missing,
    /// The whole file.
    Read(Vec<u8>),
    /// There is something by that name, and it was not read.
    Refused(SmallRefusal),
}

/// Why [`Sandbox::read_small_regular`] did not read an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SmallRefusal {
    /// A symbolic link (never followed, wherever it points).
    Symlink,
    /// A FIFO, socket, device or directory.
    NotRegularFile,
    /// Larger than the cap.
    TooLarge,
    /// It could not be opened or read.
    Unreadable,
}

impl SmallRefusal {
    /// The stable string form used in receipts.
    pub fn as_str(self) -> &'static str {
        match self {
            SmallRefusal::Symlink => "symlink",
            SmallRefusal::NotRegularFile => "not_regular_file",
            SmallRefusal::TooLarge => "too_large",
            SmallRefusal::Unreadable => "unreadable",
        }
    }
}

/// The small regular file `name` of the directory `dir` (a handle from [`Sandbox::open_dir`]),
/// read only when it is one: see [`SmallFile`]. Nothing can make this block or read without
/// bound: the entry is looked at without following a link (a symlink is refused, whatever it
/// points to), opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in after the look does not
/// block the open) and looked at again through the open descriptor (`fstat`: a regular file, at
/// most `cap` bytes), and at most `cap + 1` bytes are read (a file that grew past `cap` is
/// refused).
pub fn read_small_regular(dir: &Dir, name: &OsStr, cap: u64) -> SmallFile {
    let missing = |e: &io::Error| {
        matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    };
    let meta = match dir.symlink_metadata(name) {
        Ok(m) => m,
        Err(e) if missing(&e) => return SmallFile::Missing,
        Err(_) => return SmallFile::Refused(SmallRefusal::Unreadable),
    };
    if meta.file_type().is_symlink() {
        return SmallFile::Refused(SmallRefusal::Symlink);
    }
    if !meta.is_file() {
        return SmallFile::Refused(SmallRefusal::NotRegularFile);
    }
    if meta.len() > cap {
        return SmallFile::Refused(SmallRefusal::TooLarge);
    }
    let file = match dir.open_with(name, &read_options()) {
        Ok(f) => f.into_std(),
        Err(e) if is_loop(&e) => return SmallFile::Refused(SmallRefusal::Symlink),
        Err(e) if missing(&e) => return SmallFile::Missing,
        Err(_) => return SmallFile::Refused(SmallRefusal::Unreadable),
    };
    // Swapped between the look and the open: what was opened is what counts.
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(_) => return SmallFile::Refused(SmallRefusal::Unreadable),
    };
    if !meta.is_file() {
        return SmallFile::Refused(SmallRefusal::NotRegularFile);
    }
    if meta.len() > cap {
        return SmallFile::Refused(SmallRefusal::TooLarge);
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    if (&file)
        .take(cap.saturating_add(1))
        .read_to_end(&mut buf)
        .is_err()
    {
        return SmallFile::Refused(SmallRefusal::Unreadable);
    }
    if buf.len() as u64 > cap {
        return SmallFile::Refused(SmallRefusal::TooLarge);
    }
    SmallFile::Read(buf)
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

/// A temp file written next to its target, to be put in place by [`Prepared::install`]; removed
/// if dropped before.
pub struct Prepared {
    dir: Pinned,
    tmp: OsString,
    name: OsString,
    real: PathBuf,
    create_new: bool,
    armed: bool,
    durable: bool,
}

impl Prepared {
    /// The temp file's name (in the target's directory).
    pub fn temp(&self) -> &OsStr {
        &self.tmp
    }

    /// Renames the temp file over the target (a creation: links it in place, failing with
    /// `STALE_FILE` if the name was taken) and fsyncs the directory.
    pub fn install(mut self) -> Result<()> {
        if fault_injected(&self.real) {
            return Err(Failure::new(
                Code::FileWriteError,
                format!(
                    "writing {} failed: injected fault (test hook); the file was not changed",
                    self.real.display()
                ),
            )
            .with("path", lossy(&self.real)));
        }
        if self.create_new {
            // Linked: the temp name is removed below, the file stays at `name`.
            self.dir.link_new(&self.tmp, &self.name, &self.real)?;
        } else {
            self.dir
                .dir
                .rename(&self.tmp, &self.dir.dir, &self.name)
                .map_err(|e| write_error(&e, &self.real))?;
            self.armed = false;
        }
        if std::mem::take(&mut self.armed) {
            let _ = self.dir.remove(&self.tmp);
        }
        if self.durable {
            self.dir.sync();
        }
        Ok(())
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.dir.remove(&self.tmp);
        }
    }
}

/// Asks the kernel to start writing `file`'s dirty pages to disk without waiting for them (Linux:
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)`), so that work done before the fsync overlaps the disk
/// write. Only a head start: the fsync that follows is what makes the data durable, and a failure
/// here is ignored (the fsync reports any error). A no-op elsewhere.
fn start_write_back(file: &std::fs::File) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain syscall on a file descriptor this function borrows; it reads no memory.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = file;
}

fn read_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO must not hang (it is refused right after, by fstat); it has no
        // effect on regular files.
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    o
}

// ---------------------------------------------------------------------------------------------
// LockedFile

/// An open file holding an exclusive advisory lock until dropped.
#[derive(Debug)]
pub struct LockedFile {
    file: File,
    meta: Metadata,
    path: PathBuf,
    writable: bool,
}

impl LockedFile {
    /// Opens `real` through the sandbox (no symlink followed, final component included), takes an
    /// exclusive lock (waiting until `deadline`, then `LOCK_TIMEOUT`), then re-checks that `real`
    /// still names the same file (device and inode): if another writer renamed a new file into
    /// place meanwhile, unlocks and starts again.
    ///
    /// Errors: directory → `TARGET_IS_DIRECTORY`; missing → `FILE_NOT_FOUND`; `EACCES` →
    /// `PERMISSION_DENIED`; a symlink on the path → `FILE_READ_ERROR` (`reason: "symlink"`); not a
    /// regular file → `INVALID_INPUT`.
    pub fn open(sb: &Sandbox, real: &Path, deadline: &Deadline) -> Result<LockedFile> {
        for _ in 0..LOCK_RETRIES {
            let (dir, name) = sb.parent(real)?;
            let file = dir
                .open_with(&name, &read_options())
                .map_err(|e| open_error(&e, real))?
                .into_std();
            let meta = file
                .metadata()
                .map_err(|e| Failure::io(&e, true, &lossy(real)))?;
            check_regular(&meta, real)?;
            lock_until(&file, deadline, real, "file")?;
            match dir.symlink_metadata(&name) {
                Ok(now) if same_file(&meta, &now) => {
                    if !opened_at(&file, real) {
                        return Err(swapped_parent(real));
                    }
                    // Fresh metadata: the size may have changed while we waited for the lock.
                    let meta = file
                        .metadata()
                        .map_err(|e| Failure::io(&e, true, &lossy(real)))?;
                    let writable = may_write(&dir, &name, &meta);
                    return Ok(LockedFile {
                        file,
                        meta,
                        path: real.to_path_buf(),
                        writable,
                    });
                }
                // Replaced or removed while we waited: drop (unlock) and look again.
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Failure::io(&e, true, &lossy(real))),
            }
        }
        Err(Failure::new(
            Code::FileReadError,
            format!(
                "{} kept being replaced by another writer while it was being locked \
                 ({LOCK_RETRIES} tries); try again",
                real.display()
            ),
        )
        .with("path", lossy(real)))
    }

    /// Reads the whole file from its start. Larger than `max_bytes` → `FILE_TOO_LARGE` (details
    /// `size` and `limit`); a read error → `FILE_READ_ERROR`.
    pub fn read_all(&mut self, max_bytes: u64) -> Result<Vec<u8>> {
        let read_err = |e: io::Error, path: &Path| {
            Failure::new(
                Code::FileReadError,
                format!("reading {} failed: {e}", path.display()),
            )
            .with("path", lossy(path))
        };
        let too_large = |size: u64, path: &Path| {
            Failure::new(
                Code::FileTooLarge,
                format!(
                    "{} is {size} bytes, above the limit of {max_bytes} bytes",
                    path.display()
                ),
            )
            .with("size", size)
            .with("limit", max_bytes)
        };
        let size = self
            .file
            .metadata()
            .map_err(|e| read_err(e, &self.path))?
            .len();
        if size > max_bytes {
            return Err(too_large(size, &self.path));
        }
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|e| read_err(e, &self.path))?;
        let mut buf = Vec::with_capacity(size as usize);
        // Read one byte past the limit to notice a file that grew since fstat (a writer that does
        // not take our lock).
        (&mut self.file)
            .take(max_bytes.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(|e| read_err(e, &self.path))?;
        if buf.len() as u64 > max_bytes {
            return Err(too_large(buf.len() as u64, &self.path));
        }
        Ok(buf)
    }

    /// Size in bytes when the lock was taken.
    pub fn len(&self) -> u64 {
        self.meta.len()
    }

    /// Whether the file was empty when the lock was taken.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What a replacement of this file keeps (mode, owner, group).
    pub fn kept(&self) -> Kept {
        Kept::of(&self.meta)
    }

    /// Whether this process may replace or delete the file (see [`may_write`]).
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// The path this file was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether the caller may change the file `name` of `dir`, as a plain write would be allowed: the
/// file must not be read-only (at least one write bit set: a 0444 file is refused even for root,
/// like editors do), and the kernel must grant the effective user write access (`faccessat` with
/// `AT_EACCESS`; root passes this test for every file, as it could `open(O_WRONLY)` it). Elsewhere:
/// the read-only attribute.
fn may_write(dir: &Dir, name: &OsStr, meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::io::AsRawFd;
        if meta.permissions().mode() & 0o222 == 0 {
            return false;
        }
        let Ok(n) = cname(name) else { return false };
        // SAFETY: `n` is a NUL-terminated string; the descriptor is the open directory.
        let r =
            unsafe { libc::faccessat(dir.as_raw_fd(), n.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
        if r == 0 {
            return true;
        }
        let e = io::Error::last_os_error().raw_os_error();
        // Only a real refusal refuses; an unsupported check (ENOSYS, EINVAL) leaves it to the write.
        !matches!(
            e,
            Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS)
        )
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, name);
        !meta.permissions().readonly()
    }
}

/// The `PERMISSION_DENIED` refusal of a change to a file [`may_write`] says no to.
pub fn not_writable(display: &str) -> Failure {
    Failure::new(
        Code::PermissionDenied,
        format!(
            "{display} is not writable by this process (read-only mode, or owned by another user \
             without write permission for us); it was not changed. Change its permissions first \
             if the edit is intended."
        ),
    )
    .with("file_path", display)
}

fn check_regular(meta: &Metadata, path: &Path) -> Result<()> {
    if meta.is_dir() {
        return Err(Failure::new(
            Code::TargetIsDirectory,
            format!("{} is a directory; name a file", path.display()),
        )
        .with("path", lossy(path)));
    }
    if meta.file_type().is_symlink() {
        return Err(symlink_refused(path));
    }
    if !meta.is_file() {
        return Err(Failure::new(
            Code::InvalidInput,
            format!(
                "{} is not a regular file (a device, socket or pipe)",
                path.display()
            ),
        )
        .with("path", lossy(path)));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt as _;
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Without a stable file id in std off unix, compare what a replacement would change: a renamed-in
/// file has its own creation time, and almost always another write time.
#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &cap_std::fs::Metadata) -> bool {
    a.file_type().is_file() == b.file_type().is_file()
        && a.created().ok() == b.created().ok().map(|t| t.into_std())
        && a.modified().ok() == b.modified().ok().map(|t| t.into_std())
        && a.len() == b.len()
}

/// Whether `file` (just opened at the absolute path `expected`) is still at `expected`: the kernel's
/// own name for the descriptor (`/proc/self/fd/N` on Linux) must be `expected` itself. Catches a
/// directory of the path moved away (inside or outside the root) while the lock was awaited. Where
/// the kernel does not name descriptors, this check is not made (the handles still keep every
/// operation inside the root).
fn opened_at(file: &File, expected: &Path) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if expected.is_absolute() {
        use std::os::unix::io::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return real == expected;
        }
    }
    let _ = (file, expected);
    true
}

/// A readable descriptor of the directory `dir` (cap-std's own may be an `O_PATH` handle, which can
/// be neither locked nor fsynced).
#[cfg(unix)]
fn readable_dir(dir: &Dir) -> io::Result<File> {
    use cap_fs_ext::OpenOptionsMaybeDirExt;
    let mut o = OpenOptions::new();
    o.read(true).maybe_dir(true).follow(FollowSymlinks::No);
    let f = dir.open_with(".", &o)?.into_std();
    if !f.metadata()?.is_dir() {
        return Err(io::Error::from(io::ErrorKind::NotADirectory));
    }
    Ok(f)
}

#[cfg(unix)]
fn cname(name: &OsStr) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(name.as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

// ---------------------------------------------------------------------------------------------
// DirLock

/// Serializes creation of new files below a directory (between the "does it exist?" check and the
/// write).
///
/// On unix the directory itself is locked with `flock`. Elsewhere a lock file
/// `.surepatch-dir.lock` is created exclusively in the directory and removed on drop (one older
/// than 10 minutes is taken to be a crash leftover and removed).
#[derive(Debug)]
pub struct DirLock {
    #[allow(dead_code)]
    file: File,
    #[cfg(not(unix))]
    dir: Dir,
}

#[cfg(not(unix))]
const DIR_LOCK_NAME: &str = ".surepatch-dir.lock";

impl DirLock {
    /// Locks the directory `real_dir`, waiting until `deadline` (then `LOCK_TIMEOUT`).
    pub fn acquire(sb: &Sandbox, real_dir: &Path, deadline: &Deadline) -> Result<DirLock> {
        let dir = sb.open_dir(real_dir)?;
        Self::acquire_impl(dir, real_dir, deadline)
    }

    #[cfg(unix)]
    fn acquire_impl(dir: Dir, real_dir: &Path, deadline: &Deadline) -> Result<DirLock> {
        let file = readable_dir(&dir).map_err(|e| Failure::io(&e, true, &lossy(real_dir)))?;
        lock_until(&file, deadline, real_dir, "directory")?;
        Ok(DirLock { file })
    }

    #[cfg(not(unix))]
    fn acquire_impl(dir: Dir, real_dir: &Path, deadline: &Deadline) -> Result<DirLock> {
        loop {
            let mut o = OpenOptions::new();
            o.write(true).create_new(true);
            match dir.open_with(DIR_LOCK_NAME, &o) {
                Ok(file) => {
                    return Ok(DirLock {
                        file: file.into_std(),
                        dir,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let stale = dir
                        .symlink_metadata(DIR_LOCK_NAME)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t.into_std()).ok())
                        .is_some_and(|age| age > STALE_TEMP_AGE);
                    if stale {
                        let _ = dir.remove_file(DIR_LOCK_NAME);
                    } else if deadline.remaining().is_zero() {
                        return Err(deadline.timed_out(real_dir, "directory"));
                    } else {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                Err(e) => return Err(write_error(&e, real_dir)),
            }
        }
    }
}

#[cfg(not(unix))]
impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = self.dir.remove_file(DIR_LOCK_NAME);
    }
}

// ---------------------------------------------------------------------------------------------
// Failure injection (tests)

static FAULT_ARMED: AtomicBool = AtomicBool::new(false);
static FAULT_SUFFIX: Mutex<Option<String>> = Mutex::new(None);

/// Test hook: while set, [`Sandbox::write`] fails with `FILE_WRITE_ERROR` for any target whose path
/// contains `pattern` (a string: `"<dir>/victim.txt"`, or `"<root>/journal/"` for everything below a
/// directory), after it has created its temp file (so that tests can check the cleanup). `None`
/// clears it. One process-wide setting: tests that use it should give a pattern that names their own
/// temp directory. Costs one atomic load when unset.
pub fn set_write_fault(pattern: Option<String>) {
    let mut slot = FAULT_SUFFIX.lock().unwrap_or_else(|e| e.into_inner());
    FAULT_ARMED.store(pattern.is_some(), Ordering::SeqCst);
    *slot = pattern;
}

static FAULT_TURN: Mutex<()> = Mutex::new(());

/// Runs `f` with the write fault set to `pattern` ([`set_write_fault`]) and clears it after, even
/// if `f` panics. Holds a process-wide turn meanwhile, so tests that use the hook in parallel never
/// replace or clear each other's pattern.
pub fn with_write_fault<R>(pattern: impl Into<String>, f: impl FnOnce() -> R) -> R {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            set_write_fault(None);
        }
    }
    let _turn = FAULT_TURN.lock().unwrap_or_else(|e| e.into_inner());
    set_write_fault(Some(pattern.into()));
    let _clear = Clear;
    f()
}

fn fault_injected(path: &Path) -> bool {
    if !FAULT_ARMED.load(Ordering::Relaxed) {
        return false;
    }
    let slot = FAULT_SUFFIX.lock().unwrap_or_else(|e| e.into_inner());
    slot.as_deref()
        .is_some_and(|s| path.to_string_lossy().contains(s))
}

// ---------------------------------------------------------------------------------------------
// Atomic writes

/// The directory a write happens in, as a handle: every step (sweep, temp file, rename, fsync) is
/// relative to it.
struct Pinned {
    dir: Dir,
}

impl Pinned {
    fn remove(&self, name: &OsStr) -> io::Result<()> {
        self.dir.remove_file(name)
    }

    /// Links the finished temp file at `name`; fails with `STALE_FILE` if `name` exists (someone
    /// else created it meanwhile). Where hard links are not supported, checks and renames.
    fn link_new(&self, tmp: &OsStr, name: &OsStr, real: &Path) -> Result<()> {
        let taken = || {
            Failure::new(
                Code::StaleFile,
                format!(
                    "{} was created by someone else meanwhile; nothing was written over it. \
                     Re-read it and try again.",
                    real.display()
                ),
            )
            .with("path", lossy(real))
        };
        match self.dir.hard_link(tmp, &self.dir, name) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(taken()),
            Err(_) => {
                if self.dir.symlink_metadata(name).is_ok() {
                    return Err(taken());
                }
                self.dir
                    .rename(tmp, &self.dir, name)
                    .map_err(|e| write_error(&e, real))
            }
        }
    }

    /// Makes a rename durable. Best effort: the rename has happened whatever this returns, and some
    /// file systems refuse to fsync a directory.
    fn sync(&self) {
        #[cfg(unix)]
        if let Ok(d) = readable_dir(&self.dir) {
            let _ = d.sync_all();
        }
    }

    /// Removes crash leftovers: our temp files (for any target) older than 10 minutes, owned by the
    /// user this process runs as. A name counts as ours only if it has the exact shape
    /// [`temp_name`] gives ([`is_our_temp`]). Best effort: errors are ignored. Nothing else is
    /// touched. Listing a directory costs its size (1.5 ms for
    /// 5,000 names), so a process sweeps each directory at most once per [`STALE_TEMP_AGE`]: a temp
    /// that turns stale later is removed by a later sweep.
    fn sweep_stale_temps(&self) {
        if !sweep_due(&self.dir) {
            return;
        }
        let Ok(entries) = self.dir.entries() else {
            return;
        };
        let now = SystemTime::now();
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            if !is_our_temp(&file_name, None) {
                continue;
            }
            let Ok(m) = self.dir.symlink_metadata(&file_name) else {
                continue;
            };
            let old = m
                .modified()
                .ok()
                .and_then(|t| now.duration_since(t.into_std()).ok())
                .is_some_and(|age| age > STALE_TEMP_AGE);
            if m.is_file() && old && owned_by_us(&m) {
                let _ = self.remove(&file_name);
            }
        }
    }

    fn create_named(&self, tmp: &OsStr, mode: u32) -> io::Result<File> {
        Ok(self.dir.open_with(tmp, &temp_options(mode))?.into_std())
    }

    fn create_temp(&self, name: &OsStr, mode: u32) -> io::Result<(OsString, File)> {
        let opts = temp_options(mode);
        let mut last = None;
        for _ in 0..100 {
            let tmp = temp_name(Path::new(name));
            match self.dir.open_with(&tmp, &opts) {
                Ok(f) => return Ok((tmp, f.into_std())),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temp file name")))
    }
}

/// A new file's mode: 0o644 less the umask (applied by the kernel).
const NEW_FILE_MODE: u32 = 0o644;

/// A temp file's open options: created with `mode` (less the umask, applied by the kernel).
fn temp_options(mode: u32) -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        opts.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    opts
}

/// `mkdirat` of `name` in `dir`, with `mode` (less the umask) on unix when given.
fn make_dir(dir: &Dir, name: &OsStr, mode: Option<u32>) -> io::Result<()> {
    match mode {
        #[cfg(unix)]
        Some(mode) => {
            use cap_std::fs::DirBuilderExt;
            let mut b = cap_std::fs::DirBuilder::new();
            b.mode(mode);
            dir.create_dir_with(name, &b)
        }
        _ => dir.create_dir(name),
    }
}

fn random_u64() -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

/// The part of a temp name that stands for the target `name`: the name itself when the temp name
/// fits in 255 bytes, else its first bytes (whole characters) and `~` and 8 hex digits of a hash of
/// the whole name, so that a name of up to 255 bytes can be written.
fn temp_stem(name: &OsStr) -> OsString {
    let budget = NAME_MAX - TEMP_OVERHEAD;
    if name.len() <= budget {
        return name.to_os_string();
    }
    let lossy = name.to_string_lossy();
    let mut cut = budget - 9;
    while !lossy.is_char_boundary(cut) {
        cut -= 1;
    }
    let hash = blake3::hash(name.as_encoded_bytes());
    let h = hash.as_bytes();
    OsString::from(format!(
        "{}~{:02x}{:02x}{:02x}{:02x}",
        &lossy[..cut],
        h[0],
        h[1],
        h[2],
        h[3]
    ))
}

#[cfg(test)]
thread_local! {
    /// Tests: every write on this thread sweeps (a new temp directory may reuse the inode of one
    /// swept by another test).
    static SWEEP_ALWAYS: Cell<bool> = const { Cell::new(false) };
}

/// Whether a directory is due for [`Pinned::sweep_stale_temps`], noting that it is swept now: not
/// when this process swept it less than [`STALE_TEMP_AGE`] ago. Keyed by device, inode and birth time
/// where the file system keeps one (so a new directory that reuses a removed one's inode is due); a
/// directory whose identity cannot be read is always due.
fn sweep_due(dir: &Dir) -> bool {
    #[cfg(test)]
    if SWEEP_ALWAYS.with(Cell::get) {
        return true;
    }
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt;
        use std::collections::HashMap;
        type Key = (u64, u64, Option<SystemTime>);
        static SWEPT: Mutex<Option<HashMap<Key, Instant>>> = Mutex::new(None);
        let Ok(m) = dir.dir_metadata() else {
            return true;
        };
        let key = (m.dev(), m.ino(), m.created().ok().map(|t| t.into_std()));
        let now = Instant::now();
        let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
        let swept = swept.get_or_insert_with(HashMap::new);
        if swept
            .get(&key)
            .is_some_and(|t| now.duration_since(*t) < STALE_TEMP_AGE)
        {
            return false;
        }
        if swept.len() >= 4096 {
            swept.retain(|_, t| now.duration_since(*t) < STALE_TEMP_AGE);
        }
        swept.insert(key, now);
        true
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        true
    }
}

/// Whether `file_name` has the exact shape [`temp_name`] gives: `.<stem>.surepatch-<pid>-<r>.tmp`,
/// where `<stem>` is not empty (for `target: Some(name)`, it is `name`'s [`temp_stem`]), `<pid>` is
/// a process id in decimal (1 to 10 digits, no leading zero) and `<r>` exactly 16 lowercase hex
/// digits. A name of another shape is never ours, however close (`.notes.surepatch-2024-01.tmp`).
fn is_our_temp(file_name: &OsStr, target: Option<&OsStr>) -> bool {
    let b = file_name.as_encoded_bytes();
    let Some(rest) = b.strip_suffix(b".tmp") else {
        return false;
    };
    let Some(split) = rest.len().checked_sub(16) else {
        return false;
    };
    let (rest, random) = rest.split_at(split);
    if !random
        .iter()
        .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
    {
        return false;
    }
    let Some(rest) = rest.strip_suffix(b"-") else {
        return false;
    };
    let digits = rest.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if !(1..=10).contains(&digits) {
        return false;
    }
    let (rest, pid) = rest.split_at(rest.len() - digits);
    if pid[0] == b'0' {
        return false;
    }
    let Some(head) = rest.strip_suffix(TEMP_MARK.as_bytes()) else {
        return false;
    };
    let Some(stem) = head.strip_prefix(b".") else {
        return false;
    };
    match target {
        Some(name) => stem == temp_stem(name).as_encoded_bytes(),
        None => !stem.is_empty(),
    }
}

/// Whether the file described by `m` belongs to the user this process runs as (unix: its owner is
/// the effective uid); elsewhere there is no owner to compare, and every file is.
fn owned_by_us(m: &cap_std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        m.uid() == unsafe { libc::geteuid() }
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::sync::{Arc, Barrier};

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// A canonical temp directory and a sandbox on it.
    fn setup() -> (tempfile::TempDir, PathBuf, Sandbox) {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let sb = Sandbox::open(&root).unwrap();
        (tmp, root, sb)
    }

    fn soon() -> Deadline {
        Deadline::after(DEFAULT_LOCK_TIMEOUT)
    }

    fn open(sb: &Sandbox, p: &Path) -> Result<LockedFile> {
        LockedFile::open(sb, p, &soon())
    }

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[cfg(unix)]
    fn ino(p: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(p).unwrap().ino()
    }

    #[test]
    fn open_and_read() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        fs::write(&p, "hello\n").unwrap();
        let mut f = open(&sb, &p).unwrap();
        assert_eq!(f.len(), 6);
        assert!(!f.is_empty());
        assert!(f.writable());
        assert_eq!(f.path(), p);
        assert_eq!(f.read_all(1 << 20).unwrap(), b"hello\n");
        // Twice: reads from the start again.
        assert_eq!(f.read_all(6).unwrap(), b"hello\n");

        let fail = f.read_all(5).unwrap_err();
        assert_eq!(fail.code, Code::FileTooLarge);
        assert_eq!(fail.detail("size"), Some(&6.into()));
        assert_eq!(fail.detail("limit"), Some(&5.into()));

        let empty = root.join("empty");
        fs::write(&empty, "").unwrap();
        let mut f = open(&sb, &empty).unwrap();
        assert!(f.is_empty());
        assert_eq!(f.read_all(0).unwrap(), b"");
    }

    #[test]
    fn open_errors() {
        let (_t, root, sb) = setup();
        let f = open(&sb, &root.join("missing")).unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        fs::create_dir(root.join("d")).unwrap();
        let f = open(&sb, &root.join("d")).unwrap_err();
        assert_eq!(f.code, Code::TargetIsDirectory);
        fs::write(root.join("file"), "x").unwrap();
        let f = open(&sb, &root.join("file/below")).unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        let f = open(&sb, &root.join("nodir/below")).unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        let f = open(&sb, &root.with_file_name("elsewhere")).unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
    }

    #[cfg(unix)]
    #[test]
    fn permission_denied() {
        let denied = io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(
            open_error(&denied, Path::new("x")).code,
            Code::PermissionDenied
        );
        // Root reads anything: only check the real thing as an ordinary user.
        if unsafe { libc::geteuid() } == 0 {
            return;
        }
        use std::os::unix::fs::PermissionsExt;
        let (_t, root, sb) = setup();
        let p = root.join("secret");
        fs::write(&p, "x").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o000)).unwrap();
        assert_eq!(open(&sb, &p).unwrap_err().code, Code::PermissionDenied);
    }

    #[cfg(unix)]
    #[test]
    fn read_only_files_are_not_writable() {
        use std::os::unix::fs::PermissionsExt;
        let (_t, root, sb) = setup();
        for (m, w) in [
            (0o644, true),
            (0o444, false),
            (0o400, false),
            (0o555, false),
            (0o464, true),
        ] {
            let p = root.join(format!("f{m:o}"));
            fs::write(&p, "x").unwrap();
            fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
            assert_eq!(open(&sb, &p).unwrap().writable(), w, "mode {m:o}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn special_files_refused() {
        let (_t, root, sb) = setup();
        let fifo = root.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        // Must not hang on the FIFO.
        assert_eq!(open(&sb, &fifo).unwrap_err().code, Code::InvalidInput);
    }

    #[test]
    fn lock_is_exclusive() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        fs::write(&p, "x").unwrap();
        let held = open(&sb, &p).unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let t = {
            let (p, root, released) = (p.clone(), root.clone(), released.clone());
            std::thread::spawn(move || {
                let sb = Sandbox::open(&root).unwrap();
                let _f = open(&sb, &p).unwrap();
                assert!(released.load(Ordering::SeqCst), "got the lock while held");
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        released.store(true, Ordering::SeqCst);
        drop(held);
        t.join().unwrap();
    }

    #[test]
    fn a_lock_wait_is_bounded() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        fs::write(&p, "x").unwrap();
        let _held = open(&sb, &p).unwrap();
        let started = Instant::now();
        let f =
            LockedFile::open(&sb, &p, &Deadline::after(Duration::from_millis(150))).unwrap_err();
        let waited = started.elapsed();
        assert_eq!(f.code, Code::LockTimeout, "{}", f.message);
        assert_eq!(f.detail("lock_timeout_ms"), Some(&150.into()));
        assert!(waited >= Duration::from_millis(150), "{waited:?}");
        assert!(waited < Duration::from_secs(3), "{waited:?}");
        // Directory locks too.
        let _d = DirLock::acquire(&sb, &root, &soon()).unwrap();
        let f =
            DirLock::acquire(&sb, &root, &Deadline::after(Duration::from_millis(50))).unwrap_err();
        assert_eq!(f.code, Code::LockTimeout);
        // The per-thread setting.
        set_lock_timeout(Some(Duration::from_millis(20)));
        let f = LockedFile::open(&sb, &p, &Deadline::from_setting()).unwrap_err();
        set_lock_timeout(None);
        assert_eq!(f.detail("lock_timeout_ms"), Some(&20.into()));
        assert_eq!(fs::read(&p).unwrap(), b"x");
    }

    #[test]
    fn waiter_reopens_a_replaced_file() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        fs::write(&p, "old").unwrap();
        let held = open(&sb, &p).unwrap();
        let t = {
            let (p, root) = (p.clone(), root.clone());
            std::thread::spawn(move || {
                let sb = Sandbox::open(&root).unwrap();
                let mut f = open(&sb, &p).unwrap();
                f.read_all(100).unwrap()
            })
        };
        // Let the waiter open the old inode and wait for its lock.
        std::thread::sleep(Duration::from_millis(100));
        sb.write(&p, &[b"new"], Put::Replace(&held.kept())).unwrap();
        drop(held);
        assert_eq!(t.join().unwrap(), b"new");
    }

    #[test]
    fn no_lost_updates_under_contention() {
        let (_t, root, _sb) = setup();
        let p = root.join("counter");
        fs::write(&p, "0").unwrap();
        const THREADS: usize = 8;
        const ROUNDS: usize = 25;
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (p, root, barrier) = (p.clone(), root.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let sb = Sandbox::open(&root).unwrap();
                    barrier.wait();
                    for _ in 0..ROUNDS {
                        let mut f = open(&sb, &p).unwrap();
                        let n: usize = String::from_utf8(f.read_all(64).unwrap())
                            .unwrap()
                            .parse()
                            .unwrap();
                        sb.write(
                            &p,
                            &[(n + 1).to_string().as_bytes()],
                            Put::Replace(&f.kept()),
                        )
                        .unwrap();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            (THREADS * ROUNDS).to_string()
        );
        assert_eq!(names(&root), ["counter"], "no temp files left");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_swapped_in_after_resolve_is_not_followed() {
        use crate::workspace::{Resolve, Workspace};
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("a.txt"), "inside").unwrap();
        let outside = base.join("outside.txt");
        fs::write(&outside, "secret").unwrap();

        let ws = Workspace::new(&root).unwrap();
        let sb = Sandbox::open(ws.root()).unwrap();
        let r = ws.resolve("a.txt", Resolve::Existing).unwrap();
        // The attacker swaps a symlink into the final component.
        let link_tmp = root.join("a.txt.link");
        std::os::unix::fs::symlink(&outside, &link_tmp).unwrap();
        fs::rename(&link_tmp, &r.real).unwrap();

        let f = open(&sb, &r.real).unwrap_err();
        assert_eq!(f.code, Code::FileReadError, "{}", f.message);
        assert_eq!(f.detail("reason"), Some(&"symlink".into()));
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
        assert!(sb.read_regular(&r.real).is_none());
        // A write replaces the link itself, never the target.
        sb.write(&r.real, &[b"mine"], Put::Any).unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
        assert_eq!(fs::read_to_string(&r.real).unwrap(), "mine");
    }

    #[cfg(unix)]
    #[test]
    fn mode_owner_and_group_are_kept() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let (_t, root, sb) = setup();
        for m in [0o600, 0o755, 0o640, 0o444, 0o4755] {
            let p = root.join(format!("f{m:o}"));
            fs::write(&p, "before").unwrap();
            fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
            let f = open(&sb, &p).unwrap();
            sb.write(&p, &[b"after"], Put::Replace(&f.kept())).unwrap();
            drop(f);
            assert_eq!(mode(&p), m, "mode {m:o} kept");
            assert_eq!(fs::read(&p).unwrap(), b"after");
        }
        // Owner and group: only root may give a file away.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let p = root.join("owned");
        fs::write(&p, "before").unwrap();
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o2664)).unwrap();
        let f = open(&sb, &p).unwrap();
        sb.write(&p, &[b"after"], Put::Replace(&f.kept())).unwrap();
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (65534, 65534));
        assert_eq!(mode(&p), 0o2664, "set-id bits survive the chown");
    }

    #[cfg(unix)]
    #[test]
    fn new_file_gets_default_mode() {
        use std::os::unix::fs::OpenOptionsExt;
        let (_t, root, sb) = setup();
        // What the kernel gives a new 0o644 file under the current umask.
        let reference = root.join("reference");
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&reference)
            .unwrap();
        let p = root.join("new.txt");
        sb.write(&p, &[b"x"], Put::CreateNew).unwrap();
        assert_eq!(mode(&p), mode(&reference));
        assert_eq!(mode(&p) & !0o644, 0);
    }

    #[test]
    fn write_replaces_and_leaves_no_temp() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        sb.write(&p, &[b"one"], Put::CreateNew).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"one");
        sb.write(&p, &[b"two", b"\r\n"], Put::Any).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two\r\n");
        sb.write(&p, &[b""], Put::Any).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"");
        assert_eq!(names(&root), ["a.txt"]);
    }

    /// `write_with` runs its hook once, after the new bytes are in the temp file and before they
    /// are put in place, and returns what the hook returned; a failed write does not run it.
    #[test]
    fn write_with_runs_the_hook_before_the_file_is_replaced() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        fs::write(&p, "old").unwrap();
        let mut runs = 0;
        let seen = sb
            .write_with(&p, &[b"ne", b"w"], Put::Any, || {
                runs += 1;
                let temps: Vec<String> =
                    names(&root).into_iter().filter(|n| n != "a.txt").collect();
                assert_eq!(temps.len(), 1, "the temp file exists while the hook runs");
                assert_eq!(fs::read(root.join(&temps[0])).unwrap(), b"new");
                fs::read(&p).unwrap()
            })
            .unwrap();
        assert_eq!(runs, 1);
        assert_eq!(seen, b"old", "the target is replaced only after the hook");
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(names(&root), ["a.txt"]);
        let f = sb
            .write_with(&root.join("nodir/a.txt"), &[b"x"], Put::Any, || runs += 1)
            .unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        assert_eq!(runs, 1, "not run when the write fails");
    }

    /// The journal's form of the metadata: permission bits only; set-id bits, sticky bit and owner
    /// are neither written nor read (an entry may have been written by a tool call).
    #[cfg(unix)]
    #[test]
    fn kept_in_the_journal_is_the_permission_bits_only() {
        use std::os::unix::fs::PermissionsExt;
        let setuid = Kept {
            perms: Permissions::from_mode(0o4755),
            owner: Some((0, 0)),
        };
        assert_eq!(setuid.to_json(), serde_json::json!({"mode": 0o755}));
        let back = Kept::from_json(&setuid.to_json()).unwrap();
        assert_eq!(back.perms.mode() & 0o7777, 0o755);
        assert_eq!(back.owner, None);
        for bad in [
            serde_json::json!({"mode": 0o4755}),
            serde_json::json!({"mode": -1}),
            serde_json::json!({"mode": "755"}),
            serde_json::json!(null),
        ] {
            assert_eq!(Kept::from_json(&bad), None, "{bad}");
        }
        let current = Kept {
            perms: Permissions::from_mode(0o600),
            owner: Some((7, 8)),
        };
        let restored = back.clone().owned_like(Some(&current));
        assert_eq!(restored.owner, Some((7, 8)));
        assert_eq!(restored.perms.mode() & 0o7777, 0o755);
        // Write permission for group and others only where the file has it now.
        let open = Kept::from_json(&serde_json::json!({"mode": 0o777})).unwrap();
        let mode = |k: Kept| k.perms.mode() & 0o7777;
        assert_eq!(mode(open.clone().owned_like(Some(&current))), 0o755);
        assert_eq!(mode(open.clone().owned_like(None)), 0o755);
        let shared = Kept {
            perms: Permissions::from_mode(0o664),
            owner: Some((7, 8)),
        };
        assert_eq!(mode(open.owned_like(Some(&shared))), 0o775);
        // This process's own record (it names the owner) is restored as it was.
        assert_eq!(mode(setuid.clone().owned_like(Some(&current))), 0o4755);
    }

    #[test]
    fn create_new_never_overwrites() {
        let (_t, root, sb) = setup();
        let p = root.join("a.txt");
        fs::write(&p, "theirs").unwrap();
        let f = sb.write(&p, &[b"mine"], Put::CreateNew).unwrap_err();
        assert_eq!(f.code, Code::StaleFile);
        assert_eq!(fs::read(&p).unwrap(), b"theirs");
        assert_eq!(names(&root), ["a.txt"], "no temp left");
    }

    #[test]
    fn write_into_missing_directory_fails_cleanly() {
        let (_t, root, sb) = setup();
        let f = sb
            .write(&root.join("nodir/a.txt"), &[b"x"], Put::Any)
            .unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        assert!(names(&root).is_empty());
    }

    /// Regression (issue #16, item 6): a name of 220-255 bytes could not be written (the temp name
    /// was too long).
    #[test]
    fn names_up_to_255_bytes_can_be_written() {
        let (_t, root, sb) = setup();
        for len in [200usize, 212, 213, 220, 240, 255] {
            let name = "n".repeat(len);
            let p = root.join(&name);
            sb.write(&p, &[b"one"], Put::CreateNew).unwrap();
            let f = open(&sb, &p).unwrap();
            sb.write(&p, &[b"two"], Put::Replace(&f.kept())).unwrap();
            assert_eq!(fs::read(&p).unwrap(), b"two", "{len}");
            fs::remove_file(&p).unwrap();
        }
        // Multi-byte characters are cut on a character boundary.
        let name = "é".repeat(127);
        sb.write(&root.join(&name), &[b"x"], Put::CreateNew)
            .unwrap();
        let stem = temp_stem(OsStr::new(&name));
        assert!(stem.len() + TEMP_OVERHEAD <= NAME_MAX);
        assert!(stem.to_str().is_some());
        assert_ne!(
            temp_stem(OsStr::new(&"a".repeat(250))),
            temp_stem(OsStr::new(&"a".repeat(251)))
        );
        assert_eq!(names(&root), [name]);
    }

    #[cfg(unix)]
    #[test]
    fn injected_fault_leaves_target_and_no_temp() {
        let (_t, root, sb) = setup();
        let p = root.join("victim.txt");
        fs::write(&p, "original").unwrap();
        let before = ino(&p);
        let fresh = root.join("fresh.txt");
        let other = root.join("other.txt");

        let (f, ok) = with_write_fault(p.to_string_lossy(), || {
            let f = sb.write(&p, &[b"changed"], Put::Any).unwrap_err();
            // Another target is not affected by the fault.
            (f, sb.write(&other, &[b"fine"], Put::Any))
        });
        let g = with_write_fault(fresh.to_string_lossy(), || {
            sb.write(&fresh, &[b"new"], Put::CreateNew).unwrap_err()
        });

        assert_eq!(f.code, Code::FileWriteError);
        assert_eq!(g.code, Code::FileWriteError);
        ok.unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"original");
        assert_eq!(ino(&p), before, "target untouched");
        assert!(!fresh.exists(), "a new file is not created");
        assert_eq!(names(&root), ["other.txt", "victim.txt"]);

        // Cleared: writes go through again.
        sb.write(&p, &[b"changed"], Put::Any).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"changed");
    }

    #[test]
    fn temp_names_are_recognised_strictly() {
        let r = "0123456789abcdef";
        let ok = |n: &str| is_our_temp(OsStr::new(n), Some(OsStr::new("a.txt")));
        let any = |n: &str| is_our_temp(OsStr::new(n), None);
        assert!(ok(&format!(".a.txt.surepatch-123-{r}.tmp")));
        assert!(ok(&format!(".a.txt.surepatch-4294967295-{r}.tmp")));
        assert!(any(&format!(".b.txt.surepatch-123-{r}.tmp")));
        for bad in [
            // The user's file the sweep used to delete: a short random part.
            ".notes.surepatch-2024-01.tmp".to_string(),
            ".a.txt.surepatch-123-00ff.tmp".to_string(),
            format!(".a.txt.surepatch-123-{r}0.tmp"),
            format!(".a.txt.surepatch-123-{}.tmp", &r[1..]),
            format!(".a.txt.surepatch-123-{}.tmp", r.to_uppercase()),
            format!(".a.txt.surepatch-123-{r}.tmp.bak"),
            format!(".a.txt.surepatch-x-{r}.tmp"),
            format!(".a.txt.surepatch--{r}.tmp"),
            format!(".a.txt.surepatch-0123-{r}.tmp"),
            format!(".a.txt.surepatch-12345678901-{r}.tmp"),
            format!(".a.txt.surepatch-123{r}.tmp"),
            format!(".a.txt-123-{r}.tmp"),
            format!("a.txt.surepatch-123-{r}.tmp"),
            format!("..surepatch-123-{r}.tmp"),
            format!(".surepatch-123-{r}.tmp"),
            "a.txt".to_string(),
        ] {
            assert!(!any(&bad), "{bad} is not ours");
        }
        assert!(!ok(&format!(".b.txt.surepatch-123-{r}.tmp")));
        assert!(!ok(&format!(".aa.txt.surepatch-123-{r}.tmp")));
    }

    /// Every name [`temp_name`] makes has the shape the sweep takes, for short names and for names
    /// long enough to be shortened to a stem with a hash.
    #[test]
    fn generated_temp_names_have_the_swept_shape() {
        for target in [
            "a.txt",
            "x",
            ".hidden",
            "dir.surepatch-1-2",
            &"é".repeat(127),
            &"n".repeat(255),
        ] {
            for _ in 0..50 {
                let t = temp_name(Path::new(target));
                assert!(t.len() <= NAME_MAX, "{t:?}");
                assert!(is_our_temp(&t, Some(OsStr::new(target))), "{t:?}");
                assert!(is_our_temp(&t, None), "{t:?}");
            }
        }
    }

    #[test]
    fn sweep_removes_only_old_matching_temps() {
        let (_t, dir, sb) = setup();
        let old = SystemTime::now() - Duration::from_secs(20 * 60);
        let recent = SystemTime::now() - Duration::from_secs(5 * 60);
        let make = |name: &str, mtime: SystemTime| {
            let f = File::create(dir.join(name)).unwrap();
            f.set_modified(mtime).unwrap();
        };
        make(".a.txt.surepatch-4242-deadbeef00000000.tmp", old); // swept
        make(".a.txt.surepatch-1-00000000000000ff.tmp", old); // swept
        make(".a.txt.surepatch-4242-0123456789abcdef.tmp", recent); // too young
        make(".b.txt.surepatch-4242-deadbeef00000000.tmp", old); // another target's: swept
        make(".notes.surepatch-2024-01.tmp", old); // a user's file: a short random part
        make(".a.txt.surepatch-1-ff.tmp", old); // the same
        make(".a.txt.surepatch-notapid.tmp", old); // not our pattern
        make(".c.surepatch-x.surepatch-12-zz.tmp", old); // not hex
        make("b.txt.surepatch-1-00000000000000ab.tmp", old); // no leading dot
        make("a.txt.bak", old);
        make(".a.txt.swp", old);
        fs::create_dir(dir.join(".a.txt.surepatch-7-00000000000000ab.tmp")).unwrap(); // a directory: kept
        fs::write(dir.join("a.txt"), "x").unwrap();

        SWEEP_ALWAYS.with(|a| a.set(true));
        sb.write(&dir.join("a.txt"), &[b"y"], Put::Any).unwrap();
        SWEEP_ALWAYS.with(|a| a.set(false));
        assert_eq!(
            names(&dir),
            [
                ".a.txt.surepatch-1-ff.tmp",
                ".a.txt.surepatch-4242-0123456789abcdef.tmp",
                ".a.txt.surepatch-7-00000000000000ab.tmp",
                ".a.txt.surepatch-notapid.tmp",
                ".a.txt.swp",
                ".c.surepatch-x.surepatch-12-zz.tmp",
                ".notes.surepatch-2024-01.tmp",
                "a.txt",
                "a.txt.bak",
                "b.txt.surepatch-1-00000000000000ab.tmp",
            ]
        );
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"y");
    }

    /// A stale temp of the right shape that another user owns is theirs to clean up: kept. Needs
    /// root (to give the file away); skipped otherwise.
    #[cfg(unix)]
    #[test]
    fn sweep_keeps_other_users_temps() {
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: giving a file to another user needs root");
            return;
        }
        let (_t, dir, sb) = setup();
        let old = SystemTime::now() - Duration::from_secs(20 * 60);
        let theirs = ".a.txt.surepatch-4242-deadbeef00000000.tmp";
        let ours = ".a.txt.surepatch-4243-deadbeef00000000.tmp";
        for n in [theirs, ours] {
            File::create(dir.join(n))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        std::os::unix::fs::chown(dir.join(theirs), Some(65534), Some(65534)).unwrap();
        fs::write(dir.join("a.txt"), "x").unwrap();
        SWEEP_ALWAYS.with(|a| a.set(true));
        sb.write(&dir.join("a.txt"), &[b"y"], Put::Any).unwrap();
        SWEEP_ALWAYS.with(|a| a.set(false));
        assert_eq!(names(&dir), [theirs, "a.txt"]);
    }

    /// A directory is listed for leftovers at most once per [`STALE_TEMP_AGE`] by a process: a write
    /// in a directory of thousands of names does not pay for listing it every time.
    #[test]
    fn a_directory_is_swept_once_per_stale_age() {
        let (_t, dir, sb) = setup();
        fs::write(dir.join("a.txt"), "x").unwrap();
        sb.write(&dir.join("a.txt"), &[b"y"], Put::Any).unwrap();
        let d = Dir::open_ambient_dir(&dir, cap_std::ambient_authority()).unwrap();
        assert!(!sweep_due(&d), "just swept by the write");
        let stale = ".a.txt.surepatch-4242-deadbeef00000000.tmp";
        File::create(dir.join(stale))
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(20 * 60))
            .unwrap();
        sb.write(&dir.join("a.txt"), &[b"z"], Put::Any).unwrap();
        assert!(dir.join(stale).exists(), "not listed again so soon");
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"z");
    }

    #[test]
    fn dir_lock_serializes_and_leaves_nothing() {
        let (_t, dir, sb) = setup();
        let first = DirLock::acquire(&sb, &dir, &soon()).unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let t = {
            let (dir, released) = (dir.clone(), released.clone());
            std::thread::spawn(move || {
                let sb = Sandbox::open(&dir).unwrap();
                let _l = DirLock::acquire(&sb, &dir, &soon()).unwrap();
                assert!(released.load(Ordering::SeqCst), "got the lock while held");
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        released.store(true, Ordering::SeqCst);
        drop(first);
        t.join().unwrap();
        assert!(names(&dir).is_empty(), "no lock files left");

        assert_eq!(
            DirLock::acquire(&sb, &dir.join("missing"), &soon())
                .unwrap_err()
                .code,
            Code::FileNotFound
        );
        fs::write(dir.join("f"), "x").unwrap();
        assert_eq!(
            DirLock::acquire(&sb, &dir.join("f"), &soon())
                .unwrap_err()
                .code,
            Code::FileNotFound
        );
    }

    #[test]
    fn create_dirs() {
        let (_t, base, _) = setup();
        let root = base.join("root");
        fs::create_dir(&root).unwrap();
        let sb = Sandbox::open(&root).unwrap();
        sb.create_dirs(&root.join("a/b/c")).unwrap();
        assert!(root.join("a/b/c").is_dir());
        // Existing, relative, and the root itself.
        sb.create_dirs(&root.join("a/b")).unwrap();
        sb.create_dirs(Path::new("a/x")).unwrap();
        assert!(root.join("a/x").is_dir());
        sb.create_dirs(&root).unwrap();

        fs::write(root.join("file"), "x").unwrap();
        let f = sb.create_dirs(&root.join("file/sub")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        let f = sb.create_dirs(&root.join("a/../b")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        let f = sb.create_dirs(&base.join("elsewhere")).unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
        let f = sb
            .create_dirs(&root.with_file_name("root-evil/x"))
            .unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
        assert!(!root.with_file_name("root-evil").exists());
        assert!(!root.join("b").exists());
    }

    /// Regression (fuzz finding 5): the directories a call made are known, and removed when what
    /// they were made for fails — only those, only while empty; a failure midway removes its own.
    #[test]
    fn create_dirs_made_and_removed() {
        let (_t, base, _) = setup();
        let root = base.join("root");
        fs::create_dir_all(root.join("old")).unwrap();
        let sb = Sandbox::open(&root).unwrap();
        let made = sb.create_dirs_made(&root.join("old/n1/n2")).unwrap();
        assert_eq!(made, vec![root.join("old/n1"), root.join("old/n1/n2")]);
        assert_eq!(
            sb.create_dirs_made(&root.join("old/n1")).unwrap(),
            Vec::<PathBuf>::new()
        );
        sb.remove_made_dirs(&made);
        assert!(!root.join("old/n1").exists());
        assert!(root.join("old").is_dir());
        // Something put in meanwhile keeps its directory (and the ones above it).
        let made = sb.create_dirs_made(&root.join("k1/k2")).unwrap();
        fs::write(root.join("k1/k2/f"), "x").unwrap();
        sb.remove_made_dirs(&made);
        assert!(root.join("k1/k2/f").is_file());
        // A name too long for the file system, below new directories: nothing is left.
        let long = "y".repeat(300);
        let f = sb
            .create_dirs_made(&root.join("m1/m2").join(&long).join("m3"))
            .unwrap_err();
        assert_eq!(f.code, Code::FileWriteError, "{f:?}");
        assert!(!root.join("m1").exists());
        let mut names: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, vec![OsString::from("k1"), OsString::from("old")]);
    }

    /// Regression (issue #16, item 1): a directory of a resolved path is real, so a symlink there
    /// was swapped in; creating directories through it used to be followed when it led inside.
    #[cfg(unix)]
    #[test]
    fn create_dirs_refuses_symlinks() {
        use std::os::unix::fs::symlink;
        let (_t, base, _) = setup();
        let root = base.join("root");
        fs::create_dir_all(root.join("real")).unwrap();
        fs::create_dir(base.join("out")).unwrap();
        symlink("real", root.join("in_link")).unwrap();
        symlink("../out", root.join("out_link")).unwrap();
        let sb = Sandbox::open(&root).unwrap();
        for link in ["in_link", "out_link"] {
            let f = sb
                .create_dirs(&root.join(link).join("new/deeper"))
                .unwrap_err();
            assert_eq!(f.code, Code::FileReadError, "{link}");
            assert_eq!(f.detail("reason").unwrap(), "symlink");
        }
        assert!(
            names(&base.join("out")).is_empty(),
            "nothing created outside"
        );
        assert!(names(&root.join("real")).is_empty());
    }

    /// Regression (safety R3, issue #16 item 1): a parent directory swapped for a symlink to outside
    /// after the path was resolved: no open, write, unlink or mkdir follows it.
    #[cfg(unix)]
    #[test]
    fn parent_directory_swapped_for_a_symlink_is_not_followed() {
        use std::os::unix::fs::symlink;
        let (_t, base, _) = setup();
        fs::create_dir_all(base.join("root/dir")).unwrap();
        fs::create_dir(base.join("outside")).unwrap();
        fs::write(base.join("root/dir/f.txt"), "inside\n").unwrap();
        fs::write(base.join("outside/f.txt"), "secret\n").unwrap();
        let sb = Sandbox::open(&base.join("root")).unwrap();
        let real = base.join("root/dir/f.txt");
        // The swap, after resolution.
        fs::rename(base.join("root/dir"), base.join("root/dir-aside")).unwrap();
        symlink(base.join("outside"), base.join("root/dir")).unwrap();

        let symlink_refused = |f: Failure| {
            assert_eq!(f.code, Code::FileReadError, "{}", f.message);
            assert_eq!(f.detail("reason"), Some(&"symlink".into()), "{}", f.message);
        };
        symlink_refused(open(&sb, &real).unwrap_err());
        symlink_refused(sb.write(&real, &[b"PWNED\n"], Put::Any).unwrap_err());
        symlink_refused(sb.write(&real, &[b"PWNED\n"], Put::CreateNew).unwrap_err());
        symlink_refused(sb.remove_file(&real).unwrap_err());
        symlink_refused(sb.create_dirs(&base.join("root/dir/n/x")).unwrap_err());
        symlink_refused(DirLock::acquire(&sb, &base.join("root/dir"), &soon()).unwrap_err());
        assert!(sb.read_regular(&real).is_none());
        assert!(!sb.exists(&real));
        sb.remove_dir_all(&base.join("root/dir"));
        assert_eq!(fs::read(base.join("outside/f.txt")).unwrap(), b"secret\n");
        assert_eq!(
            names(&base.join("outside")),
            ["f.txt"],
            "nothing created outside"
        );
        assert_eq!(
            fs::read(base.join("root/dir-aside/f.txt")).unwrap(),
            b"inside\n"
        );
    }
}
