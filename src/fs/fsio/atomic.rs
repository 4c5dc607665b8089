//! Atomic writes: a temp file written and fsynced next to its target ([`Prepared`]) in a pinned
//! directory handle, then renamed or linked into place; temp names and modes.

use super::*;

/// A temp file written next to its target, to be put in place by [`Prepared::install`]; removed
/// if dropped before.
pub struct Prepared {
    pub(super) dir: Pinned,
    pub(super) tmp: OsString,
    pub(super) name: OsString,
    pub(super) real: PathBuf,
    pub(super) create_new: bool,
    pub(super) armed: bool,
    pub(super) durable: bool,
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
pub(super) fn start_write_back(file: &std::fs::File) {
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

pub(super) fn read_options() -> OpenOptions {
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
// Atomic writes

/// The directory a write happens in, as a handle: every step (sweep, temp file, rename, fsync) is
/// relative to it.
pub(super) struct Pinned {
    pub(super) dir: Dir,
}

impl Pinned {
    pub(super) fn remove(&self, name: &OsStr) -> io::Result<()> {
        self.dir.remove_file(name)
    }

    /// Links the finished temp file at `name`; fails with `STALE_FILE` if `name` exists (someone
    /// else created it meanwhile). Where hard links are not supported, checks and renames.
    pub(super) fn link_new(&self, tmp: &OsStr, name: &OsStr, real: &Path) -> Result<()> {
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
    pub(super) fn sync(&self) {
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
    pub(super) fn sweep_stale_temps(&self) {
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

    pub(super) fn create_named(&self, tmp: &OsStr, mode: u32) -> io::Result<File> {
        Ok(self.dir.open_with(tmp, &temp_options(mode))?.into_std())
    }

    pub(super) fn create_temp(&self, name: &OsStr, mode: u32) -> io::Result<(OsString, File)> {
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
pub(super) const NEW_FILE_MODE: u32 = 0o644;

/// A temp file's open options: created with `mode` (less the umask, applied by the kernel).
pub(super) fn temp_options(mode: u32) -> OpenOptions {
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
pub(super) fn make_dir(dir: &Dir, name: &OsStr, mode: Option<u32>) -> io::Result<()> {
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

pub(super) fn random_u64() -> u64 {
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
pub(super) fn temp_stem(name: &OsStr) -> OsString {
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
