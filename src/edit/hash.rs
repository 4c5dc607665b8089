//! Content hashes: `file_hash` for drift control, `line_tag` for line-anchored edits.
//!
//! `file_hash` is the first 64 bits of BLAKE3 over the file's bytes as stored on disk (BOM and line
//! endings included), as 16 lowercase hex digits. It detects any change to the file; it is not meant
//! to resist an adversary who wants two different files with one hash.
//!
//! `line_tag` is the first 16 bits of BLAKE3 over one line's text, without its terminator (so a file
//! converted between LF and CRLF keeps its tags), as 4 lowercase hex digits: the tag alphabet is
//! `0-9a-f`, which the matcher's view-prefix tier recognises in `N:tag|` prefixes. A tag tells whether
//! the line a model saw is still the line at that number; it is not a unique name. A line whose text
//! changed keeps its tag with probability 2⁻¹⁶ (about 1 in 65,536) per changed line, so an edit
//! anchored on two lines (start and end) misses a change to both with probability 2⁻³². Lines with
//! equal text have equal tags by design: the number disambiguates them.
//!
//! ```
//! let h = surepatch::edit::hash::file_hash(b"hello\n");
//! assert_eq!(h.len(), 16);
//! assert_ne!(h, surepatch::edit::hash::file_hash(b"hello \n"));
//! let t = surepatch::edit::hash::line_tag("fn main() {");
//! assert_eq!(t.len(), 4);
//! assert!(t.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
//! ```

pub fn file_hash(bytes: &[u8]) -> String {
    file_hash_parts(&[bytes])
}

/// [`file_hash`] of the concatenation of `parts`.
pub fn file_hash_parts(parts: &[&[u8]]) -> String {
    let mut h = blake3::Hasher::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().to_hex()[..16].to_string()
}

/// Number of hex digits in a line tag (16 bits).
pub const LINE_TAG_LEN: usize = 4;

/// The tag of one line's text (without its terminator): 4 lowercase hex digits of BLAKE3.
pub fn line_tag(line: &str) -> String {
    let h = blake3::hash(line.as_bytes());
    let b = h.as_bytes();
    format!("{:02x}{:02x}", b[0], b[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_short_hex_and_content_sensitive() {
        let t = line_tag("    return x");
        assert_eq!(t.len(), LINE_TAG_LEN);
        assert!(t.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        assert_eq!(t, line_tag("    return x"));
        assert_eq!(&t, &blake3::hash(b"    return x").to_hex()[..4]);
        // Over many distinct lines, collisions with one fixed tag are rare (expected ~1 in 65,536).
        let same = (0..20_000)
            .filter(|i| line_tag(&format!("line {i}")) == t)
            .count();
        assert!(same < 5, "{same}");
        assert_ne!(line_tag(""), line_tag(" "));
    }
}
