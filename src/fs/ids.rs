//! Edit ids: the one name of a committed change, shared by the undo journal (which keys its records
//! by them) and transactions (whose intent records on disk are named by a fresh one). Owned here so
//! that neither of those two modules needs the other to make or recognise an id.

use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh edit id: `e`, 12 hex digits of milliseconds since the epoch, a 6-digit process sequence
/// number and 4 digits of salt (23 characters). Ids sort by creation time.
pub fn new_edit_id() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let ms = (now.as_millis() as u64) & 0xffff_ffff_ffff;
    let salt = blake3::hash(format!("{}:{}:{seq}", std::process::id(), now.as_nanos()).as_bytes());
    let s = salt.as_bytes();
    format!("e{ms:012x}{:06x}{:02x}{:02x}", seq & 0xff_ffff, s[0], s[1])
}

/// Whether `s` has the form of an edit id.
pub fn is_edit_id(s: &str) -> bool {
    s.len() == 23
        && s.starts_with('e')
        && s[1..]
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
