//! [`LockedFile`]: a file opened and locked for an edit, re-checked after the lock is taken to be the
//! file its path still names, and the checks that decide whether it may be written.

use super::*;

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
pub(super) fn may_write(dir: &Dir, name: &OsStr, meta: &Metadata) -> bool {
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

pub(super) fn check_regular(meta: &Metadata, path: &Path) -> Result<()> {
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
pub(super) fn same_file(a: &Metadata, b: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt as _;
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Without a stable file id in std off unix, compare what a replacement would change: a renamed-in
/// file has its own creation time, and almost always another write time.
#[cfg(not(unix))]
pub(super) fn same_file(a: &Metadata, b: &cap_std::fs::Metadata) -> bool {
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
pub(super) fn opened_at(file: &File, expected: &Path) -> bool {
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
pub(super) fn readable_dir(dir: &Dir) -> io::Result<File> {
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
pub(super) fn cname(name: &OsStr) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(name.as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}
