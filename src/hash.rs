//! Content hashes: `file_hash` for drift control.
//!
//! `file_hash` is the first 64 bits of BLAKE3 over the file's bytes as stored on disk (BOM and line
//! endings included), as 16 lowercase hex digits. It detects any change to the file; it is not meant
//! to resist an adversary who wants two different files with one hash.
//!
//! ```
//! let h = surepatch::hash::file_hash(b"hello\n");
//! assert_eq!(h.len(), 16);
//! assert_ne!(h, surepatch::hash::file_hash(b"hello \n"));
//! ```

pub fn file_hash(bytes: &[u8]) -> String {
    let h = blake3::hash(bytes);
    h.to_hex()[..16].to_string()
}
