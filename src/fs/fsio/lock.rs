//! Lock waits bounded by a deadline, and the directory lock ([`DirLock`]) that serializes creations
//! and removals of entries in one directory.

use super::*;

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

    pub(super) fn remaining(&self) -> Duration {
        self.limit.saturating_sub(self.start.elapsed())
    }

    pub(super) fn timed_out(&self, what: &Path, kind: &str) -> Failure {
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
pub(super) fn lock_until(file: &File, deadline: &Deadline, what: &Path, kind: &str) -> Result<()> {
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
pub(super) const DIR_LOCK_NAME: &str = ".surepatch-dir.lock";

impl DirLock {
    /// Locks the directory `real_dir`, waiting until `deadline` (then `LOCK_TIMEOUT`).
    pub fn acquire(sb: &Sandbox, real_dir: &Path, deadline: &Deadline) -> Result<DirLock> {
        let dir = sb.open_dir(real_dir)?;
        Self::acquire_impl(dir, real_dir, deadline)
    }

    #[cfg(unix)]
    pub(super) fn acquire_impl(dir: Dir, real_dir: &Path, deadline: &Deadline) -> Result<DirLock> {
        let file = readable_dir(&dir).map_err(|e| Failure::io(&e, true, &lossy(real_dir)))?;
        lock_until(&file, deadline, real_dir, "directory")?;
        Ok(DirLock { file })
    }

    #[cfg(not(unix))]
    pub(super) fn acquire_impl(dir: Dir, real_dir: &Path, deadline: &Deadline) -> Result<DirLock> {
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
