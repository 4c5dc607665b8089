//! Locks and atomic writes: how surepatch reads a file it is about to edit and puts the new bytes in
//! place without ever leaving a half-written file.
//!
//! The protocol for an edit is `LockedFile::open` → `read_all` → (edit) → [`write_atomic`] → drop the
//! lock. [`write_atomic`] replaces the file by renaming a fully written, fsynced temp file over it,
//! so readers see the old or the new content, never a mix. Because that rename gives the path a new
//! inode, [`LockedFile::open`] re-checks after taking its lock that the path still names the file it
//! locked, and starts again if not: two cooperating editors can never both edit the same content.
//!
//! Locks are advisory (`flock` on unix, `LockFileEx` on Windows): they serialize surepatch writers
//! (across threads and processes), not other programs.
//!
//! Paths given here are expected to come from [`crate::workspace::Workspace::resolve`] (symlinks
//! already resolved); the final component is then never followed again ([`LockedFile::open`] uses
//! `O_NOFOLLOW`), so a symlink swapped in after resolution is refused, not written through. A
//! *directory* of the path swapped for a symlink is caught too (on Linux, where the kernel names each
//! open descriptor in `/proc/self/fd`): the opened file and the directory written into must be at
//! exactly the resolved path, and the write is then made relative to that directory's descriptor.

use std::ffi::OsString;
use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::error::{Code, Failure, Result};

/// How many times [`LockedFile::open`] starts again when the path was replaced while it waited.
/// Each retry means another writer finished an edit (progress, not a livelock); with N writers
/// queued on one file, one of them can lose the race up to N-1 times per round, so the bound is
/// generous and only stops a pathological stream of replacements.
const LOCK_RETRIES: usize = 1000;
/// Temp files of ours older than this are a crash leftover and are swept.
const STALE_TEMP_AGE: Duration = Duration::from_secs(10 * 60);
/// Marker in temp file names: `.<name>.surepatch-<pid>-<random>.tmp`.
const TEMP_MARK: &str = ".surepatch-";

fn lossy(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------------------------
// LockedFile

/// An open file holding an exclusive advisory lock until dropped.
#[derive(Debug)]
pub struct LockedFile {
    file: File,
    meta: Metadata,
    path: PathBuf,
}

impl LockedFile {
    /// Opens `path` (final component not followed: `O_NOFOLLOW` on unix), takes an exclusive lock
    /// (`File::lock`), then re-checks that `path` still names the same file (device and inode): if
    /// another writer renamed a new file into place meanwhile, unlocks and starts again (at most 1000
    /// times).
    ///
    /// Errors: directory → `TARGET_IS_DIRECTORY`; missing → `FILE_NOT_FOUND`; `EACCES` →
    /// `PERMISSION_DENIED`; a symlink in the final component, or not a regular file →
    /// `FILE_READ_ERROR` / `INVALID_INPUT`.
    pub fn open(path: &Path) -> Result<LockedFile> {
        for _ in 0..LOCK_RETRIES {
            let file = open_nofollow(path).map_err(|e| open_error(&e, path))?;
            let meta = file
                .metadata()
                .map_err(|e| Failure::io(&e, true, &lossy(path)))?;
            check_regular(&meta, path)?;
            file.lock().map_err(|e| {
                Failure::new(
                    Code::FileReadError,
                    format!("locking {} failed: {e}", path.display()),
                )
                .with("path", lossy(path))
            })?;
            match fs::symlink_metadata(path) {
                Ok(now) if same_file(&meta, &now) => {
                    if !opened_at(&file, path) {
                        return Err(swapped_parent(path));
                    }
                    // Fresh metadata: the size may have changed while we waited for the lock.
                    let meta = file
                        .metadata()
                        .map_err(|e| Failure::io(&e, true, &lossy(path)))?;
                    return Ok(LockedFile {
                        file,
                        meta,
                        path: path.to_path_buf(),
                    });
                }
                // Replaced or removed while we waited: drop (unlock) and look again.
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Failure::io(&e, true, &lossy(path))),
            }
        }
        Err(Failure::new(
            Code::FileReadError,
            format!(
                "{} kept being replaced by another writer while it was being locked \
                 ({LOCK_RETRIES} tries); try again",
                path.display()
            ),
        )
        .with("path", lossy(path)))
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

    /// Permissions of the locked file, to pass to [`write_atomic`].
    pub fn permissions(&self) -> Permissions {
        self.meta.permissions()
    }

    /// The path this file was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }
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

fn open_error(e: &io::Error, path: &Path) -> Failure {
    #[cfg(unix)]
    {
        let raw = e.raw_os_error();
        let refused_link = raw == Some(libc::ELOOP)
            || (cfg!(any(target_os = "freebsd", target_os = "dragonfly"))
                && raw == Some(libc::EMLINK));
        if refused_link {
            return symlink_refused(path);
        }
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

#[cfg(unix)]
fn open_nofollow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO must not hang (it is refused right after, by fstat); it has no
    // effect on regular files.
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        // FILE_FLAG_OPEN_REPARSE_POINT: open a symlink itself (refused by `check_regular`).
        opts.custom_flags(0x0020_0000);
    }
    opts.open(path)
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Without a stable file id in std off unix, compare what a replacement would change: a renamed-in
/// file has its own creation time, and almost always another write time.
#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.file_type().is_file() == b.file_type().is_file()
        && a.created().ok() == b.created().ok()
        && a.modified().ok() == b.modified().ok()
        && a.len() == b.len()
}

// ---------------------------------------------------------------------------------------------
// DirLock

/// Serializes creation of a new file in `dir` (between the "does it exist?" check and the write).
///
/// On unix the directory itself is locked with `flock`. Elsewhere a lock file
/// `.surepatch-dir.lock` is created exclusively in `dir` and removed on drop (no lock file is left
/// behind; one older than 10 minutes is taken to be a crash leftover and removed).
#[derive(Debug)]
pub struct DirLock {
    #[allow(dead_code)]
    file: File,
    #[cfg(not(unix))]
    lock_path: PathBuf,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        Self::acquire_impl(dir)
    }

    #[cfg(unix)]
    fn acquire_impl(dir: &Path) -> Result<DirLock> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY)
            .open(dir)
            .map_err(|e| dir_error(&e, dir))?;
        file.lock().map_err(|e| dir_error(&e, dir))?;
        Ok(DirLock { file })
    }

    #[cfg(not(unix))]
    fn acquire_impl(dir: &Path) -> Result<DirLock> {
        let lock_path = dir.join(".surepatch-dir.lock");
        // 60 s at most, in 5 ms steps.
        for _ in 0..12_000 {
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock_path)
            {
                Ok(file) => return Ok(DirLock { file, lock_path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let stale = fs::symlink_metadata(&lock_path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok())
                        .is_some_and(|age| age > STALE_TEMP_AGE);
                    if stale {
                        let _ = fs::remove_file(&lock_path);
                    } else {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                Err(e) => return Err(dir_error(&e, dir)),
            }
        }
        Err(Failure::new(
            Code::FileWriteError,
            format!(
                "timed out waiting for the lock on directory {}",
                dir.display()
            ),
        ))
    }
}

#[cfg(not(unix))]
impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.lock_path);
    }
}

fn dir_error(e: &io::Error, dir: &Path) -> Failure {
    if e.kind() == io::ErrorKind::NotADirectory {
        return Failure::new(
            Code::InvalidInput,
            format!("{} is not a directory", dir.display()),
        )
        .with("path", lossy(dir));
    }
    Failure::new(
        match e.kind() {
            io::ErrorKind::NotFound => Code::FileNotFound,
            io::ErrorKind::PermissionDenied => Code::PermissionDenied,
            _ => Code::FileWriteError,
        },
        format!("locking directory {} failed: {e}", dir.display()),
    )
    .with("path", lossy(dir))
}

// ---------------------------------------------------------------------------------------------
// Failure injection (tests)

static FAULT_ARMED: AtomicBool = AtomicBool::new(false);
static FAULT_SUFFIX: Mutex<Option<String>> = Mutex::new(None);

/// Test hook: while set, [`write_atomic`] fails with `FILE_WRITE_ERROR` for any target whose path
/// ends with `path_suffix` (a string suffix of the whole path), after it has created its temp file
/// (so that tests can check the cleanup). `None` clears it. One process-wide setting: tests that
/// use it should give a suffix unique to their own temp directory. Costs one atomic load when unset.
pub fn set_write_fault(path_suffix: Option<String>) {
    let mut slot = FAULT_SUFFIX.lock().unwrap_or_else(|e| e.into_inner());
    FAULT_ARMED.store(path_suffix.is_some(), Ordering::SeqCst);
    *slot = path_suffix;
}

fn fault_injected(path: &Path) -> bool {
    if !FAULT_ARMED.load(Ordering::Relaxed) {
        return false;
    }
    let slot = FAULT_SUFFIX.lock().unwrap_or_else(|e| e.into_inner());
    slot.as_deref()
        .is_some_and(|s| path.to_string_lossy().ends_with(s))
}

// ---------------------------------------------------------------------------------------------
// Atomic writes

/// Whether `file` (just opened at the absolute path `expected`) really is the file at `expected`, with
/// no symlink in any directory of the path: the kernel's own name for the descriptor
/// (`/proc/self/fd/N` on Linux) must be `expected` itself. This closes the race where a parent
/// directory is swapped for a symlink between the sandbox check and the open. Where the kernel does
/// not name descriptors (macOS, BSD, Windows, Linux without /proc), this check is not made.
fn opened_at(file: &File, expected: &Path) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if expected.is_absolute() {
        use std::os::unix::io::AsRawFd;
        if let Ok(real) = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return real == expected;
        }
    }
    let _ = (file, expected);
    true
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

/// The directory a write happens in, pinned: on unix an open descriptor, checked to be the directory
/// the path names (see [`opened_at`]), and every later step (sweep, temp file, rename, fsync) is made
/// relative to it (`openat`, `renameat`, `unlinkat`), so a directory swapped for a symlink afterwards
/// is never followed.
struct Dir {
    path: PathBuf,
    #[cfg(unix)]
    fd: File,
}

#[cfg(unix)]
fn cname(name: &std::ffi::OsStr) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(name.as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

#[cfg(unix)]
fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl Dir {
    /// Opens `dir`. `Ok(None)`: the directory is not where its path says (a swapped parent).
    fn open(dir: &Path) -> io::Result<Option<Dir>> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let fd = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
                .open(dir)?;
            if !opened_at(&fd, dir) {
                return Ok(None);
            }
            Ok(Some(Dir {
                path: dir.to_path_buf(),
                fd,
            }))
        }
        #[cfg(not(unix))]
        Ok(Some(Dir {
            path: dir.to_path_buf(),
        }))
    }

    /// `(is a regular file, modification time)` of `name`, not following a symlink.
    fn stat(&self, name: &std::ffi::OsStr) -> Option<(bool, SystemTime)> {
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let n = cname(name).ok()?;
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: `n` is a NUL-terminated string and `st` a valid out-pointer.
            cvt(unsafe {
                libc::fstatat(
                    self.fd.as_raw_fd(),
                    n.as_ptr(),
                    &mut st,
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            })
            .ok()?;
            let secs = u64::try_from(st.st_mtime).ok()?;
            // `mode_t` is u32 on Linux, u16 on macOS.
            #[allow(clippy::unnecessary_cast)]
            let is_file = (st.st_mode as u32 & libc::S_IFMT as u32) == libc::S_IFREG as u32;
            Some((is_file, SystemTime::UNIX_EPOCH + Duration::from_secs(secs)))
        }
        #[cfg(not(unix))]
        {
            let m = fs::symlink_metadata(self.path.join(name)).ok()?;
            Some((m.file_type().is_file(), m.modified().ok()?))
        }
    }

    fn remove(&self, name: &std::ffi::OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let n = cname(name)?;
            // SAFETY: `n` is a NUL-terminated string.
            cvt(unsafe { libc::unlinkat(self.fd.as_raw_fd(), n.as_ptr(), 0) }).map(|_| ())
        }
        #[cfg(not(unix))]
        fs::remove_file(self.path.join(name))
    }

    fn create_new(&self, name: &std::ffi::OsStr) -> io::Result<File> {
        #[cfg(unix)]
        {
            use std::os::unix::io::{AsRawFd, FromRawFd};
            let n = cname(name)?;
            let flags =
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            // A new file's mode: 0o644 less the umask (applied by the kernel).
            // SAFETY: `n` is a NUL-terminated string; the returned descriptor is owned by the File.
            let fd = cvt(unsafe {
                libc::openat(
                    self.fd.as_raw_fd(),
                    n.as_ptr(),
                    flags,
                    0o644 as libc::c_uint,
                )
            })?;
            Ok(unsafe { File::from_raw_fd(fd) })
        }
        #[cfg(not(unix))]
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.path.join(name))
    }

    fn rename(&self, from: &std::ffi::OsStr, to: &std::ffi::OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let (f, t) = (cname(from)?, cname(to)?);
            let d = self.fd.as_raw_fd();
            // SAFETY: both names are NUL-terminated strings.
            cvt(unsafe { libc::renameat(d, f.as_ptr(), d, t.as_ptr()) }).map(|_| ())
        }
        #[cfg(not(unix))]
        fs::rename(self.path.join(from), self.path.join(to))
    }

    /// Makes a rename durable. Best effort: the rename has happened whatever this returns, and some
    /// file systems refuse to fsync a directory.
    fn sync(&self) {
        #[cfg(unix)]
        let _ = self.fd.sync_all();
    }

    /// Removes crash leftovers: our temp files for target `name` older than 10 minutes. Best effort:
    /// errors are ignored. Nothing else is touched.
    fn sweep_stale_temps(&self, name: &std::ffi::OsStr) {
        let Ok(entries) = fs::read_dir(&self.path) else {
            return;
        };
        let prefix = temp_prefix(name);
        let now = SystemTime::now();
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            if !is_our_temp(&file_name, &prefix) {
                continue;
            }
            let Some((is_file, modified)) = self.stat(&file_name) else {
                continue;
            };
            let old = now
                .duration_since(modified)
                .is_ok_and(|age| age > STALE_TEMP_AGE);
            if is_file && old {
                let _ = self.remove(&file_name);
            }
        }
    }

    fn create_temp(&self, name: &std::ffi::OsStr) -> io::Result<(OsString, File)> {
        let pid = std::process::id();
        let mut last = None;
        for _ in 0..100 {
            let mut tmp = OsString::from(".");
            tmp.push(name);
            tmp.push(format!("{TEMP_MARK}{pid}-{:016x}.tmp", random_u64()));
            match self.create_new(&tmp) {
                Ok(f) => return Ok((tmp, f)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temp file name")))
    }
}

/// Removes the temp file on drop unless disarmed.
struct TempGuard<'a>(&'a Dir, Option<OsString>);

impl Drop for TempGuard<'_> {
    fn drop(&mut self) {
        if let Some(n) = self.1.take() {
            let _ = self.0.remove(&n);
        }
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

/// `.<name>.surepatch-`, the start of every temp file name for target `name`.
fn temp_prefix(name: &std::ffi::OsStr) -> Vec<u8> {
    let mut p = b".".to_vec();
    p.extend_from_slice(name.as_encoded_bytes());
    p.extend_from_slice(TEMP_MARK.as_bytes());
    p
}

/// Whether `file_name` is one of our temp files for the target whose prefix is `prefix`:
/// `<prefix><decimal pid>-<hex>.tmp`.
fn is_our_temp(file_name: &std::ffi::OsStr, prefix: &[u8]) -> bool {
    let Some(rest) = file_name.as_encoded_bytes().strip_prefix(prefix) else {
        return false;
    };
    let Some(rest) = rest.strip_suffix(b".tmp") else {
        return false;
    };
    let mut parts = rest.splitn(2, |&b| b == b'-');
    let (Some(pid), Some(rand)) = (parts.next(), parts.next()) else {
        return false;
    };
    !pid.is_empty()
        && pid.iter().all(u8::is_ascii_digit)
        && !rand.is_empty()
        && rand.iter().all(u8::is_ascii_hexdigit)
}

/// Atomically replaces (or creates) `path` with `bytes`.
///
/// Writes a temp file `.<name>.surepatch-<pid>-<random>.tmp` in the same directory, fsyncs it, sets
/// its permissions (`perms`, else those of a new file: 0o644 less the umask), renames it over
/// `path` and fsyncs the directory (unix). On any failure the temp file is removed and `path` is
/// untouched. Before writing, our temp files for the same name older than 10 minutes (crash
/// leftovers) are removed; no other file is touched.
///
/// On unix every step is made relative to a descriptor of the directory, opened once and (on
/// Linux) checked to be the directory `path` names with no symlink on the way; a directory swapped
/// for a symlink meanwhile → `FILE_READ_ERROR` (detail `reason: "symlink"`), nothing written.
///
/// `path` should be a resolved real path: a symlink at `path` is replaced, not followed. The new
/// file is owned by this process's user, and a hard link to the old file keeps the old content.
pub fn write_atomic(path: &Path, bytes: &[u8], perms: Option<&Permissions>) -> Result<()> {
    write_atomic_parts(path, &[bytes], perms)
}

/// [`write_atomic`] of the concatenation of `parts`, written one after another (an edit of a large
/// file sends the unchanged prefix and suffix straight from the buffer it read).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]], perms: Option<&Permissions>) -> Result<()> {
    let what = lossy(path);
    let fail = |e: &io::Error| {
        let mut f = Failure::io(e, false, &what).with("path", &what);
        if f.code == Code::FileWriteError || f.code == Code::FileNotFound {
            f.message.push_str("; the file was not changed");
        }
        f
    };
    let name = match path.file_name() {
        Some(n) => n,
        None => {
            return Err(Failure::new(
                Code::InvalidInput,
                format!("{} does not name a file", path.display()),
            ))
        }
    };
    let dir_path = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = Dir::open(dir_path)
        .map_err(|e| fail(&e))?
        .ok_or_else(|| swapped_parent(path))?;
    dir.sweep_stale_temps(name);

    let (tmp_name, mut file) = dir.create_temp(name).map_err(|e| fail(&e))?;
    let mut guard = TempGuard(&dir, Some(tmp_name.clone()));

    if fault_injected(path) {
        return Err(Failure::new(
            Code::FileWriteError,
            format!("writing {what} failed: injected fault (test hook); the file was not changed"),
        )
        .with("path", &what));
    }
    for part in parts {
        file.write_all(part).map_err(|e| fail(&e))?;
    }
    if let Some(p) = perms {
        file.set_permissions(p.clone()).map_err(|e| fail(&e))?;
    }
    file.sync_all().map_err(|e| fail(&e))?;
    drop(file);
    dir.rename(&tmp_name, name).map_err(|e| fail(&e))?;
    guard.1 = None;
    dir.sync();
    Ok(())
}

/// Creates the missing directories of `dir`, which must be `root` or below it (relative paths are
/// taken from `root`). Existing components that are symlinks are followed only if they resolve to a
/// directory inside `root`; anything that escapes → `PATH_OUTSIDE_WORKSPACE`. A component that is a
/// file, or a `..` → `INVALID_INPUT`.
pub fn create_dirs_within(root: &Path, dir: &Path) -> Result<()> {
    let root = fs::canonicalize(root).map_err(|e| {
        Failure::new(
            Code::InvalidInput,
            format!("the workspace root {} cannot be used: {e}", root.display()),
        )
    })?;
    let outside = |p: &Path| {
        Failure::new(
            Code::PathOutsideWorkspace,
            format!(
                "{} is outside the workspace root {}",
                p.display(),
                root.display()
            ),
        )
        .with("path", lossy(dir))
    };
    let invalid = |why: String| Failure::new(Code::InvalidInput, why).with("path", lossy(dir));
    let io_fail =
        |e: &io::Error, p: &Path| Failure::io(e, false, &lossy(p)).with("path", lossy(dir));

    let full = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        root.join(dir)
    };
    let rel = full.strip_prefix(&root).map_err(|_| outside(&full))?;
    let mut cur = root.clone();
    for c in rel.components() {
        let name = match c {
            Component::Normal(n) => n,
            Component::CurDir => continue,
            _ => {
                return Err(invalid(format!(
                    "{}: '..' is not allowed when creating directories",
                    dir.display()
                )))
            }
        };
        let next = cur.join(name);
        // A few rounds in case another process creates or swaps the entry meanwhile.
        let mut done = false;
        for _ in 0..8 {
            match fs::symlink_metadata(&next) {
                Ok(m) if m.file_type().is_symlink() => {
                    let target = match fs::canonicalize(&next) {
                        Ok(t) => t,
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {
                            return Err(invalid(format!(
                                "{} is a dangling symbolic link",
                                next.display()
                            )))
                        }
                        Err(e) => return Err(io_fail(&e, &next)),
                    };
                    if !target.starts_with(&root) {
                        return Err(outside(&target));
                    }
                    if !target.is_dir() {
                        return Err(invalid(format!("{} is not a directory", next.display())));
                    }
                    cur = target;
                }
                Ok(m) if m.is_dir() => cur = next.clone(),
                Ok(_) => {
                    return Err(invalid(format!(
                        "{} exists and is not a directory",
                        next.display()
                    )))
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(&next) {
                    Ok(()) => cur = next.clone(),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io_fail(&e, &next)),
                },
                Err(e) => return Err(io_fail(&e, &next)),
            }
            done = true;
            break;
        }
        if !done {
            return Err(io_fail(
                &io::Error::other("it kept changing while being created"),
                &next,
            ));
        }
    }
    // Catch a component swapped for a symlink while we walked.
    let real = fs::canonicalize(&cur).map_err(|e| io_fail(&e, &cur))?;
    if !real.starts_with(&root) {
        return Err(outside(&real));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
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
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("a.txt");
        fs::write(&p, "hello\n").unwrap();
        let mut f = LockedFile::open(&p).unwrap();
        assert_eq!(f.len(), 6);
        assert!(!f.is_empty());
        assert_eq!(f.path(), p);
        assert_eq!(f.read_all(1 << 20).unwrap(), b"hello\n");
        // Twice: reads from the start again.
        assert_eq!(f.read_all(6).unwrap(), b"hello\n");

        let fail = f.read_all(5).unwrap_err();
        assert_eq!(fail.code, Code::FileTooLarge);
        assert_eq!(fail.detail("size"), Some(&6.into()));
        assert_eq!(fail.detail("limit"), Some(&5.into()));

        let empty = tmp.path().join("empty");
        fs::write(&empty, "").unwrap();
        let mut f = LockedFile::open(&empty).unwrap();
        assert!(f.is_empty());
        assert_eq!(f.read_all(0).unwrap(), b"");
    }

    #[test]
    fn open_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let f = LockedFile::open(&tmp.path().join("missing")).unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        let f = LockedFile::open(tmp.path()).unwrap_err();
        assert_eq!(f.code, Code::TargetIsDirectory);
        fs::write(tmp.path().join("file"), "x").unwrap();
        let f = LockedFile::open(&tmp.path().join("file/below")).unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
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
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("secret");
        fs::write(&p, "x").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o000)).unwrap();
        assert_eq!(
            LockedFile::open(&p).unwrap_err().code,
            Code::PermissionDenied
        );
    }

    #[cfg(unix)]
    #[test]
    fn special_files_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        // Must not hang on the FIFO.
        assert_eq!(
            LockedFile::open(&fifo).unwrap_err().code,
            Code::InvalidInput
        );
    }

    #[test]
    fn lock_is_exclusive() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("a.txt");
        fs::write(&p, "x").unwrap();
        let held = LockedFile::open(&p).unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let t = {
            let (p, released) = (p.clone(), released.clone());
            std::thread::spawn(move || {
                let _f = LockedFile::open(&p).unwrap();
                assert!(released.load(Ordering::SeqCst), "got the lock while held");
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        released.store(true, Ordering::SeqCst);
        drop(held);
        t.join().unwrap();
    }

    #[test]
    fn waiter_reopens_a_replaced_file() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("a.txt");
        fs::write(&p, "old").unwrap();
        let held = LockedFile::open(&p).unwrap();
        let t = {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut f = LockedFile::open(&p).unwrap();
                f.read_all(100).unwrap()
            })
        };
        // Let the waiter open the old inode and block on its lock.
        std::thread::sleep(Duration::from_millis(100));
        write_atomic(&p, b"new", Some(&held.permissions())).unwrap();
        drop(held);
        assert_eq!(t.join().unwrap(), b"new");
    }

    #[test]
    fn no_lost_updates_under_contention() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("counter");
        fs::write(&p, "0").unwrap();
        const THREADS: usize = 8;
        const ROUNDS: usize = 25;
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (p, barrier) = (p.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    for _ in 0..ROUNDS {
                        let mut f = LockedFile::open(&p).unwrap();
                        let n: usize = String::from_utf8(f.read_all(64).unwrap())
                            .unwrap()
                            .parse()
                            .unwrap();
                        write_atomic(&p, (n + 1).to_string().as_bytes(), Some(&f.permissions()))
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
        assert_eq!(names(tmp.path()), ["counter"], "no temp files left");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_swapped_in_after_resolve_is_not_followed() {
        use crate::workspace::{Resolve, Workspace};
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("a.txt"), "inside").unwrap();
        let outside = tmp.path().join("outside.txt");
        fs::write(&outside, "secret").unwrap();

        let ws = Workspace::new(&root).unwrap();
        let r = ws.resolve("a.txt", Resolve::Existing).unwrap();
        // The attacker swaps a symlink into the final component.
        let link_tmp = root.join("a.txt.link");
        std::os::unix::fs::symlink(&outside, &link_tmp).unwrap();
        fs::rename(&link_tmp, &r.real).unwrap();

        let f = LockedFile::open(&r.real).unwrap_err();
        assert_eq!(f.code, Code::FileReadError, "{}", f.message);
        assert_eq!(f.detail("reason"), Some(&"symlink".into()));
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
        assert!(fs::symlink_metadata(&r.real)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        for m in [0o600, 0o755, 0o640, 0o444] {
            let p = tmp.path().join(format!("f{m:o}"));
            fs::write(&p, "before").unwrap();
            fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
            let f = LockedFile::open(&p).unwrap();
            write_atomic(&p, b"after", Some(&f.permissions())).unwrap();
            drop(f);
            assert_eq!(mode(&p), m, "mode {m:o} kept");
            assert_eq!(fs::read(&p).unwrap(), b"after");
        }
    }

    #[cfg(unix)]
    #[test]
    fn new_file_gets_default_mode() {
        use std::os::unix::fs::OpenOptionsExt;
        let tmp = tempfile::tempdir().unwrap();
        // What the kernel gives a new 0o644 file under the current umask.
        let reference = tmp.path().join("reference");
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&reference)
            .unwrap();
        let p = tmp.path().join("new.txt");
        write_atomic(&p, b"x", None).unwrap();
        assert_eq!(mode(&p), mode(&reference));
        assert_eq!(mode(&p) & !0o644, 0);
    }

    #[test]
    fn write_replaces_and_leaves_no_temp() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("a.txt");
        write_atomic(&p, b"one", None).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"one");
        write_atomic(&p, b"two\r\n", None).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two\r\n");
        write_atomic(&p, b"", None).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"");
        assert_eq!(names(tmp.path()), ["a.txt"]);
    }

    #[test]
    fn write_into_missing_directory_fails_cleanly() {
        let tmp = tempfile::tempdir().unwrap();
        let f = write_atomic(&tmp.path().join("nodir/a.txt"), b"x", None).unwrap_err();
        assert_eq!(f.code, Code::FileNotFound);
        assert!(names(tmp.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn injected_fault_leaves_target_and_no_temp() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("victim.txt");
        fs::write(&p, "original").unwrap();
        let before = ino(&p);
        let fresh = tmp.path().join("fresh.txt");
        let other = tmp.path().join("other.txt");

        let dir = tmp.path().to_string_lossy().into_owned();
        set_write_fault(Some(format!("{dir}/victim.txt")));
        let f = write_atomic(&p, b"changed", None).unwrap_err();
        // Another target is not affected by the fault.
        let ok = write_atomic(&other, b"fine", None);
        set_write_fault(Some(format!("{dir}/fresh.txt")));
        let g = write_atomic(&fresh, b"new", None).unwrap_err();
        set_write_fault(None);

        assert_eq!(f.code, Code::FileWriteError);
        assert_eq!(g.code, Code::FileWriteError);
        ok.unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"original");
        assert_eq!(ino(&p), before, "target untouched");
        assert!(!fresh.exists(), "a new file is not created");
        assert_eq!(names(tmp.path()), ["other.txt", "victim.txt"]);

        // Cleared: writes go through again.
        write_atomic(&p, b"changed", None).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"changed");
    }

    #[test]
    fn temp_names_are_recognised_strictly() {
        let prefix = temp_prefix(std::ffi::OsStr::new("a.txt"));
        let ok = |n: &str| is_our_temp(std::ffi::OsStr::new(n), &prefix);
        assert!(ok(".a.txt.surepatch-123-00ff.tmp"));
        assert!(!ok(".a.txt.surepatch-123-00ff.tmp.bak"));
        assert!(!ok(".a.txt.surepatch-x-00ff.tmp"));
        assert!(!ok(".a.txt.surepatch-123-.tmp"));
        assert!(!ok(".a.txt.surepatch--00ff.tmp"));
        assert!(!ok(".a.txt.surepatch-123-zz.tmp"));
        assert!(!ok(".b.txt.surepatch-123-00ff.tmp"));
        assert!(!ok(".aa.txt.surepatch-123-00ff.tmp"));
        assert!(!ok("a.txt"));
    }

    #[test]
    fn sweep_removes_only_old_matching_temps() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let old = SystemTime::now() - Duration::from_secs(20 * 60);
        let recent = SystemTime::now() - Duration::from_secs(5 * 60);
        let make = |name: &str, mtime: SystemTime| {
            let f = File::create(dir.join(name)).unwrap();
            f.set_modified(mtime).unwrap();
        };
        make(".a.txt.surepatch-4242-deadbeef00000000.tmp", old); // swept
        make(".a.txt.surepatch-1-ff.tmp", old); // swept
        make(".a.txt.surepatch-4242-0123456789abcdef.tmp", recent); // too young
        make(".b.txt.surepatch-4242-deadbeef00000000.tmp", old); // another name
        make(".a.txt.surepatch-notapid.tmp", old); // not our pattern
        make("a.txt.bak", old);
        make(".a.txt.swp", old);
        fs::create_dir(dir.join(".a.txt.surepatch-7-ab.tmp")).unwrap(); // a directory: kept
        fs::write(dir.join("a.txt"), "x").unwrap();

        write_atomic(&dir.join("a.txt"), b"y", None).unwrap();
        assert_eq!(
            names(dir),
            [
                ".a.txt.surepatch-4242-0123456789abcdef.tmp",
                ".a.txt.surepatch-7-ab.tmp",
                ".a.txt.surepatch-notapid.tmp",
                ".a.txt.swp",
                ".b.txt.surepatch-4242-deadbeef00000000.tmp",
                "a.txt",
                "a.txt.bak",
            ]
        );
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"y");
    }

    #[test]
    fn dir_lock_serializes_and_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let first = DirLock::acquire(&dir).unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let t = {
            let (dir, released) = (dir.clone(), released.clone());
            std::thread::spawn(move || {
                let _l = DirLock::acquire(&dir).unwrap();
                assert!(released.load(Ordering::SeqCst), "got the lock while held");
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        released.store(true, Ordering::SeqCst);
        drop(first);
        t.join().unwrap();
        assert!(names(&dir).is_empty(), "no lock files left");

        assert_eq!(
            DirLock::acquire(&dir.join("missing")).unwrap_err().code,
            Code::FileNotFound
        );
        fs::write(dir.join("f"), "x").unwrap();
        assert_eq!(
            DirLock::acquire(&dir.join("f")).unwrap_err().code,
            Code::InvalidInput
        );
    }

    #[test]
    fn create_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().join("root");
        fs::create_dir(&root).unwrap();
        create_dirs_within(&root, &root.join("a/b/c")).unwrap();
        assert!(root.join("a/b/c").is_dir());
        // Existing, relative, and the root itself.
        create_dirs_within(&root, &root.join("a/b")).unwrap();
        create_dirs_within(&root, Path::new("a/x")).unwrap();
        assert!(root.join("a/x").is_dir());
        create_dirs_within(&root, &root).unwrap();

        fs::write(root.join("file"), "x").unwrap();
        let f = create_dirs_within(&root, &root.join("file/sub")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        let f = create_dirs_within(&root, &root.join("a/../b")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        let f = create_dirs_within(&root, &tmp.path().join("elsewhere")).unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
        let f = create_dirs_within(&root, &root.with_file_name("root-evil/x")).unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
        assert!(!root.with_file_name("root-evil").exists());
        assert!(!root.join("b").exists());
    }

    /// Regression (safety R3): a parent directory swapped for a symlink to outside after the path was
    /// resolved used to be followed by both the open and the rename, so the edit landed outside.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn parent_directory_swapped_for_a_symlink_is_not_followed() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir_all(base.join("root/dir")).unwrap();
        fs::create_dir(base.join("outside")).unwrap();
        fs::write(base.join("root/dir/f.txt"), "inside\n").unwrap();
        fs::write(base.join("outside/f.txt"), "secret\n").unwrap();
        let real = base.join("root/dir/f.txt");
        // The swap, after resolution.
        fs::rename(base.join("root/dir"), base.join("root/dir-aside")).unwrap();
        symlink(base.join("outside"), base.join("root/dir")).unwrap();

        let err = LockedFile::open(&real).unwrap_err();
        assert_eq!(err.code, Code::FileReadError);
        assert_eq!(err.detail("reason").unwrap(), "symlink");
        let err = write_atomic(&real, b"PWNED\n", None).unwrap_err();
        assert_eq!(err.code, Code::FileReadError);
        assert_eq!(err.detail("reason").unwrap(), "symlink");
        assert_eq!(fs::read(base.join("outside/f.txt")).unwrap(), b"secret\n");
        assert_eq!(
            names(&base.join("outside")),
            ["f.txt"],
            "no temp file outside"
        );
        assert_eq!(
            fs::read(base.join("root/dir-aside/f.txt")).unwrap(),
            b"inside\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn create_dirs_through_symlinks() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        fs::create_dir_all(root.join("real")).unwrap();
        fs::create_dir(base.join("out")).unwrap();
        symlink("real", root.join("in_link")).unwrap();
        symlink("../out", root.join("out_link")).unwrap();
        symlink("nowhere", root.join("dangling")).unwrap();

        create_dirs_within(&root, &root.join("in_link/new")).unwrap();
        assert!(root.join("real/new").is_dir());

        let f = create_dirs_within(&root, &root.join("out_link/new")).unwrap_err();
        assert_eq!(f.code, Code::PathOutsideWorkspace);
        assert!(!base.join("out/new").exists(), "nothing created outside");
        let f = create_dirs_within(&root, &root.join("dangling/new")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
    }
}
