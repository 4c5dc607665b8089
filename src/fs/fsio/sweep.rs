//! The sweep of crash leftovers: temp files of ours (exact name shape, our owner) older than
//! [`STALE_TEMP_AGE`], removed at most once per directory per that age by this process.

use super::*;

#[cfg(test)]
thread_local! {
    /// Tests: every write on this thread sweeps (a new temp directory may reuse the inode of one
    /// swept by another test).
    pub(super) static SWEEP_ALWAYS: Cell<bool> = const { Cell::new(false) };
}

/// Whether a directory is due for [`Pinned::sweep_stale_temps`], noting that it is swept now: not
/// when this process swept it less than [`STALE_TEMP_AGE`] ago. Keyed by device, inode and birth time
/// where the file system keeps one (so a new directory that reuses a removed one's inode is due); a
/// directory whose identity cannot be read is always due.
pub(super) fn sweep_due(dir: &Dir) -> bool {
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
pub(super) fn is_our_temp(file_name: &OsStr, target: Option<&OsStr>) -> bool {
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
pub(super) fn owned_by_us(m: &cap_std::fs::Metadata) -> bool {
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
