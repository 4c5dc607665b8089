//! Bytes ↔ text: the only place file bytes become a `String` and back.
//!
//! [`decode`] recognises UTF-8 (with or without a byte-order mark) and BOM-marked UTF-16 (LE/BE),
//! refuses binary files (a NUL byte in a file without a BOM) and anything that is not valid in its
//! encoding. [`encode`] writes the text back in the encoding it came in, BOM included, so that
//! `encode(decode(b).text, decode(b).encoding) == b` for every accepted `b`.
//!
//! Plain UTF-8, by far the common case, is never copied: `decode` validates the buffer in place
//! (`String::from_utf8`) and `encode` hands the `String`'s buffer back (`into_bytes`).
//!
//! [`detect_line_ending`] tells which line terminator a text uses (one pass with `memchr`), so that
//! edits can write new lines with the file's own convention.

pub use crate::edit::endings::{count_line_endings, detect_line_ending, LineCounts, LineEnding};
use crate::error::{Code, Failure, Result};

const BOM_UTF8: [u8; 3] = [0xEF, 0xBB, 0xBF];
const BOM_UTF16LE: [u8; 2] = [0xFF, 0xFE];
const BOM_UTF16BE: [u8; 2] = [0xFE, 0xFF];

/// A text encoding surepatch reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark.
    Utf8,
    /// UTF-8 starting with the byte-order mark `EF BB BF`.
    Utf8Bom,
    /// UTF-16 little-endian, starting with `FF FE`.
    Utf16Le,
    /// UTF-16 big-endian, starting with `FE FF`.
    Utf16Be,
}

impl Encoding {
    /// The stable string form: `"utf-8"`, `"utf-8-bom"`, `"utf-16le"` or `"utf-16be"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf8Bom => "utf-8-bom",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
        }
    }
}

/// A decoded file: its text (without any byte-order mark) and the encoding to write it back in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub encoding: Encoding,
}

/// Decodes a whole file.
///
/// - `EF BB BF` → [`Encoding::Utf8Bom`]; `FF FE` → [`Encoding::Utf16Le`]; `FE FF` → [`Encoding::Utf16Be`].
///   The BOM is not part of the returned text.
/// - Without a BOM, a NUL byte anywhere → `BINARY_FILE_REJECTED` (the same holds after a UTF-8 BOM:
///   a BOM does not make NUL bytes textual). UTF-16 text may hold U+0000.
/// - Invalid UTF-8 → `ENCODING_UNSUPPORTED`, with the file offset of the first invalid byte in the
///   message and as detail `byte_offset`.
/// - UTF-16 with an odd number of bytes or an unpaired surrogate → `ENCODING_UNSUPPORTED` (detail
///   `byte_offset` too).
/// - An empty file is UTF-8 `""`.
///
/// Plain UTF-8 is validated in place and not copied.
pub fn decode(mut bytes: Vec<u8>) -> Result<Decoded> {
    refuse_utf32(&bytes)?;
    if bytes.starts_with(&BOM_UTF8) {
        bytes.drain(..BOM_UTF8.len());
        let text = utf8(bytes, BOM_UTF8.len())?;
        return Ok(Decoded {
            text,
            encoding: Encoding::Utf8Bom,
        });
    }
    if bytes.starts_with(&BOM_UTF16LE) {
        let text = utf16(&bytes[2..], u16::from_le_bytes, "utf-16le")?;
        return Ok(Decoded {
            text,
            encoding: Encoding::Utf16Le,
        });
    }
    if bytes.starts_with(&BOM_UTF16BE) {
        let text = utf16(&bytes[2..], u16::from_be_bytes, "utf-16be")?;
        return Ok(Decoded {
            text,
            encoding: Encoding::Utf16Be,
        });
    }
    let text = utf8(bytes, 0)?;
    Ok(Decoded {
        text,
        encoding: Encoding::Utf8,
    })
}

/// Decodes a whole file from borrowed bytes: UTF-8 (with or without a BOM) is borrowed, not copied;
/// UTF-16 is decoded into a new `String`. Same rules and failures as [`decode`]. Lets a caller keep
/// the original bytes (for an undo journal) without holding a second copy of a UTF-8 file.
pub fn decode_slice(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, Encoding)> {
    decode_slice_counted(bytes).map(|(text, encoding, _)| (text, encoding))
}

/// [`decode_slice`], also returning the text's length in UTF-16 code units (JavaScript's
/// `String.length`); for UTF-8 it is counted in the same pass that validates the bytes.
pub fn decode_slice_counted(bytes: &[u8]) -> Result<(std::borrow::Cow<'_, str>, Encoding, usize)> {
    use std::borrow::Cow;
    refuse_utf32(bytes)?;
    if let Some(body) = bytes.strip_prefix(&BOM_UTF8) {
        let (text, units) = utf8_str(body, BOM_UTF8.len())?;
        return Ok((Cow::Borrowed(text), Encoding::Utf8Bom, units));
    }
    if bytes.starts_with(&BOM_UTF16LE) {
        let text = utf16(&bytes[2..], u16::from_le_bytes, "utf-16le")?;
        let units = crate::edit::text::utf16_len(&text);
        return Ok((Cow::Owned(text), Encoding::Utf16Le, units));
    }
    if bytes.starts_with(&BOM_UTF16BE) {
        let text = utf16(&bytes[2..], u16::from_be_bytes, "utf-16be")?;
        let units = crate::edit::text::utf16_len(&text);
        return Ok((Cow::Owned(text), Encoding::Utf16Be, units));
    }
    let (text, units) = utf8_str(bytes, 0)?;
    Ok((Cow::Borrowed(text), Encoding::Utf8, units))
}

const BOM_UTF32LE: [u8; 4] = [0xFF, 0xFE, 0x00, 0x00];
const BOM_UTF32BE: [u8; 4] = [0x00, 0x00, 0xFE, 0xFF];

/// A UTF-32 byte-order mark → `ENCODING_UNSUPPORTED` (detail `encoding`). Checked before UTF-16,
/// whose little-endian mark is the start of UTF-32's (a UTF-16 file cannot begin with U+0000 as text
/// and be edited meaningfully, so `FF FE 00 00` is taken as UTF-32).
fn refuse_utf32(bytes: &[u8]) -> Result<()> {
    let name = if bytes.starts_with(&BOM_UTF32LE) {
        "utf-32le"
    } else if bytes.starts_with(&BOM_UTF32BE) {
        "utf-32be"
    } else {
        return Ok(());
    };
    Err(Failure::new(
        Code::EncodingUnsupported,
        format!(
            "the file is {} (it starts with a UTF-32 byte-order mark); only UTF-8 and BOM-marked \
             UTF-16 files can be edited, so it is left untouched; convert it to UTF-8 first",
            name.to_uppercase()
        ),
    )
    .with("encoding", name))
}

/// Bytes per block of [`utf8_str`]: small enough to stay in the L1/L2 cache when a block needs its
/// second, slower look.
const SCAN_BLOCK: usize = 16 * 1024;

/// [`utf8`] on a borrowed slice, with the text's length in UTF-16 code units, in one pass: a block of
/// ASCII without NUL (most of most source files) costs one vectorised check; any other block is
/// checked for NUL and validated by the standard library, then counted. The failures are those of a
/// whole-file check: a NUL anywhere wins over invalid UTF-8, else the first invalid byte is named.
/// Long texts are scanned in two halves on two threads (split on a character boundary).
fn utf8_str(bytes: &[u8], base: usize) -> Result<(&str, usize)> {
    let scan = if bytes.len() >= crate::edit::text::PAR_MIN {
        let mid = char_edge(bytes, bytes.len() / 2);
        let (a, b) = crate::edit::text::in_halves(mid, bytes.len(), |r| scan_utf8(bytes, r));
        // The first half decides unless it is clean; a NUL anywhere beats invalid UTF-8 anywhere.
        Scan {
            units: a.units + b.units,
            nul: a.nul.or(b.nul),
            invalid: a.invalid.or(b.invalid),
        }
    } else {
        scan_utf8(bytes, 0..bytes.len())
    };
    if let Some(at) = scan.nul {
        return Err(nul_failure(base + at));
    }
    if let Some(at) = scan.invalid {
        return Err(invalid_utf8(base + at));
    }
    // SAFETY: every byte of `bytes` lies in a block that `scan_utf8` found to be ASCII or that
    // `str::from_utf8` accepted, the blocks tile `bytes`, and a concatenation of valid UTF-8 strings is
    // valid UTF-8 (`scan.invalid` is `None`, so no block failed).
    let text = unsafe { std::str::from_utf8_unchecked(bytes) };
    Ok((text, scan.units))
}

/// `at`, moved past up to three continuation bytes: the end of a character in valid UTF-8.
fn char_edge(bytes: &[u8], mut at: usize) -> usize {
    let stop = (at + 3).min(bytes.len());
    while at < stop && bytes[at] & 0xC0 == 0x80 {
        at += 1;
    }
    at
}

/// What [`scan_utf8`] found in a range: UTF-16 units (meaningful only when clean), the first NUL, the
/// first invalid byte (offsets into the whole slice).
struct Scan {
    units: usize,
    nul: Option<usize>,
    invalid: Option<usize>,
}

/// Scans `bytes[range]` block by block; `range.start` must begin a character (or be a stray byte that
/// then counts as invalid). After the first invalid byte only NUL is looked for.
fn scan_utf8(bytes: &[u8], range: std::ops::Range<usize>) -> Scan {
    let (mut units, mut pos) = (0, range.start);
    while pos < range.end {
        let mut end = (pos + SCAN_BLOCK).min(range.end);
        if plain_ascii(&bytes[pos..end]) {
            units += end - pos;
            pos = end;
            continue;
        }
        // End the block on a character boundary: take up to three continuation bytes along (the
        // range's own end is already one).
        if end < range.end {
            end = char_edge(&bytes[..range.end], end);
        }
        let block = &bytes[pos..end];
        if let Some(at) = memchr::memchr(0, block) {
            return Scan {
                units,
                nul: Some(pos + at),
                invalid: None,
            };
        }
        if let Err(e) = std::str::from_utf8(block) {
            return Scan {
                units,
                nul: memchr::memchr(0, &bytes[end..range.end]).map(|at| end + at),
                invalid: Some(pos + e.valid_up_to()),
            };
        }
        units += utf16_units(block);
        pos = end;
    }
    Scan {
        units,
        nul: None,
        invalid: None,
    }
}

/// Whether every byte is ASCII and none is NUL (written to vectorise: no early exit).
fn plain_ascii(b: &[u8]) -> bool {
    let (mut or, mut min) = (0u8, u8::MAX);
    for &x in b {
        or |= x;
        min = min.min(x);
    }
    or < 0x80 && min > 0
}

/// UTF-16 code units of valid UTF-8: one per character (every byte but continuation bytes), two for
/// a 4-byte character (lead byte 0xF0 and above).
fn utf16_units(b: &[u8]) -> usize {
    b.iter()
        .map(|&x| usize::from(x & 0xC0 != 0x80) + usize::from(x >= 0xF0))
        .sum()
}

fn nul_failure(at: usize) -> Failure {
    Failure::new(
        Code::BinaryFileRejected,
        format!("the file holds a NUL byte at byte offset {at}, so it is treated as binary"),
    )
    .with("byte_offset", at)
}

fn invalid_utf8(at: usize) -> Failure {
    Failure::new(
        Code::EncodingUnsupported,
        format!(
            "the file is not valid UTF-8: the first invalid byte is at byte offset {at}; \
             only UTF-8 and BOM-marked UTF-16 files can be edited"
        ),
    )
    .with("byte_offset", at)
}

/// Validates UTF-8 without copying. `base` is the number of bytes (a BOM) stripped before `bytes`,
/// added to reported offsets so they are file offsets.
fn utf8(bytes: Vec<u8>, base: usize) -> Result<String> {
    utf8_str(&bytes, base)?;
    // SAFETY: `utf8_str` just accepted exactly these bytes as UTF-8.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}

/// Decodes UTF-16 code units (after the 2-byte BOM) with the given byte order.
fn utf16(body: &[u8], unit: fn([u8; 2]) -> u16, name: &str) -> Result<String> {
    if !body.len().is_multiple_of(2) {
        let size = body.len() + 2;
        return Err(Failure::new(
            Code::EncodingUnsupported,
            format!("the file has a {name} byte-order mark but an odd number of bytes ({size})"),
        )
        .with("size", size));
    }
    let units = body.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    let mut text = String::with_capacity(body.len() / 2 * 3 / 2);
    // Byte offset (in the file) of the next code unit, to report where decoding failed.
    let mut at = 2usize;
    for r in char::decode_utf16(units) {
        match r {
            Ok(ch) => {
                text.push(ch);
                at += ch.len_utf16() * 2;
            }
            Err(_) => {
                return Err(Failure::new(
                    Code::EncodingUnsupported,
                    format!("the file is not valid {name}: unpaired surrogate at byte offset {at}"),
                )
                .with("byte_offset", at));
            }
        }
    }
    Ok(text)
}

/// Encodes text in `enc`, re-adding the byte-order mark the encoding implies. UTF-8 without a BOM
/// reuses the `String`'s buffer (no copy).
pub fn encode(text: String, enc: Encoding) -> Vec<u8> {
    match enc {
        Encoding::Utf8 => text.into_bytes(),
        Encoding::Utf8Bom => {
            let mut out = Vec::with_capacity(text.len() + BOM_UTF8.len());
            out.extend_from_slice(&BOM_UTF8);
            out.extend_from_slice(text.as_bytes());
            out
        }
        Encoding::Utf16Le => utf16_bytes(&text, BOM_UTF16LE, u16::to_le_bytes),
        Encoding::Utf16Be => utf16_bytes(&text, BOM_UTF16BE, u16::to_be_bytes),
    }
}

fn utf16_bytes(text: &str, bom: [u8; 2], bytes: fn(u16) -> [u8; 2]) -> Vec<u8> {
    // Every UTF-8 byte yields at most one UTF-16 unit (2 bytes).
    let mut out = Vec::with_capacity(2 + text.len() * 2);
    out.extend_from_slice(&bom);
    for u in text.encode_utf16() {
        out.extend_from_slice(&bytes(u));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the block scanner must agree with: a whole-file NUL search, then `str::from_utf8`, then a
    /// count of UTF-16 units.
    fn reference(bytes: &[u8]) -> std::result::Result<usize, (Code, usize)> {
        if let Some(at) = memchr::memchr(0, bytes) {
            return Err((Code::BinaryFileRejected, at));
        }
        match std::str::from_utf8(bytes) {
            Ok(t) => Ok(t.encode_utf16().count()),
            Err(e) => Err((Code::EncodingUnsupported, e.valid_up_to())),
        }
    }

    fn scanned(bytes: &[u8]) -> std::result::Result<usize, (Code, usize)> {
        utf8_str(bytes, 0)
            .map(|(t, n)| {
                assert_eq!(t.as_bytes(), bytes);
                n
            })
            .map_err(|f| {
                (
                    f.code,
                    f.detail("byte_offset").and_then(|v| v.as_u64()).unwrap() as usize,
                )
            })
    }

    #[test]
    fn block_scan_agrees_with_a_whole_file_check_around_block_edges() {
        // Every character width, a NUL, stray continuation bytes, a truncated character and an
        // overlong lead, each placed at every offset around the first block edge.
        let inserts: &[&[u8]] = &[
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\0",
            b"\x80",
            b"\x80\x80\x80\x80",
            b"\xe2\x82",
            b"\xf0\x9f\x98",
            b"\xc0\xaf",
            b"\xff",
            "😀\0".as_bytes(),
            b"\xe2\x82\0",
        ];
        for ins in inserts {
            for at in SCAN_BLOCK - 5..SCAN_BLOCK + 5 {
                for tail in [0, 1, 3, SCAN_BLOCK + 7] {
                    let mut b = vec![b'a'; at];
                    b.extend_from_slice(ins);
                    b.extend(std::iter::repeat_n(b'z', tail));
                    assert_eq!(scanned(&b), reference(&b), "{ins:?} at {at}, tail {tail}");
                    // The same with an invalid byte far after it: a NUL there still wins.
                    b.extend_from_slice(b"\xff\0");
                    assert_eq!(scanned(&b), reference(&b), "{ins:?} at {at} + trailer");
                }
            }
        }
    }

    #[test]
    fn block_scan_agrees_with_a_whole_file_check_on_random_text() {
        // A fixed xorshift stream: mostly ASCII with runs of multi-byte text, and now and then one
        // damaged byte; lengths span several blocks.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let pieces = ["a", "\n", "é", "€", "😀", "ж", "\t", "Z"];
        for round in 0..300 {
            let len = (next() % (3 * SCAN_BLOCK as u64)) as usize;
            let mut b = Vec::with_capacity(len + 4);
            while b.len() < len {
                let p = pieces[(next() % pieces.len() as u64) as usize];
                let n = if next() % 4 == 0 { 1 } else { 40 };
                for _ in 0..n {
                    b.extend_from_slice(p.as_bytes());
                }
            }
            if round % 3 == 0 && !b.is_empty() {
                let at = (next() % b.len() as u64) as usize;
                b[at] = [0u8, 0x80, 0xff, 0xc3][(next() % 4) as usize];
            }
            assert_eq!(
                scanned(&b),
                reference(&b),
                "round {round}, {} bytes",
                b.len()
            );
        }
    }

    #[test]
    fn two_thread_scan_agrees_with_a_whole_file_check_at_the_split() {
        // Above PAR_MIN the scan runs in halves split near len / 2: put each awkward sequence across
        // that split, and pair a NUL in the second half with invalid UTF-8 in the first.
        let len = crate::edit::text::PAR_MIN + 64;
        let inserts: &[&[u8]] = &[
            "😀".as_bytes(),
            "€".as_bytes(),
            b"\x80\x80\x80\x80\x80",
            b"\xf0\x9f\x98",
            b"\xff",
            b"\0",
        ];
        for ins in inserts {
            for shift in [0usize, 1, 2, 3, 5] {
                let mut b = vec![b'x'; len];
                let at = len / 2 - shift;
                b[at..at + ins.len()].copy_from_slice(ins);
                assert_eq!(scanned(&b), reference(&b), "{ins:?} at mid - {shift}");
                b[len - 10] = 0;
                assert_eq!(
                    scanned(&b),
                    reference(&b),
                    "{ins:?} at mid - {shift}, NUL late"
                );
            }
        }
        let mut b = "é".repeat(len / 2).into_bytes();
        assert_eq!(scanned(&b), reference(&b));
        b[10] = 0xff;
        assert_eq!(scanned(&b), reference(&b));
    }

    #[test]
    fn decode_slice_counted_counts_utf16_units_after_a_bom() {
        let (t, e, n) = decode_slice_counted("\u{feff}a😀é".as_bytes()).unwrap();
        assert_eq!((t.as_ref(), e, n), ("a😀é", Encoding::Utf8Bom, 4));
        let le = utf16("a😀", true);
        let (t, e, n) = decode_slice_counted(&le).unwrap();
        assert_eq!((t.as_ref(), e, n), ("a😀", Encoding::Utf16Le, 3));
        let f = decode_slice_counted(b"\xef\xbb\xbfok\xff").unwrap_err();
        assert_eq!(f.code, Code::EncodingUnsupported);
        assert_eq!(f.detail("byte_offset"), Some(&serde_json::json!(5)));
    }

    fn round_trip(bytes: &[u8]) -> Decoded {
        let d = decode(bytes.to_vec()).unwrap_or_else(|f| panic!("{bytes:?}: {f}"));
        let again = encode(d.text.clone(), d.encoding);
        assert_eq!(again, bytes, "round trip of {:?}", d.encoding);
        d
    }

    fn utf16(text: &str, le: bool) -> Vec<u8> {
        let mut out = if le {
            vec![0xFF, 0xFE]
        } else {
            vec![0xFE, 0xFF]
        };
        for u in text.encode_utf16() {
            out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        out
    }

    #[test]
    fn decode_slice_agrees_with_decode_and_borrows_utf8() {
        let cases: Vec<Vec<u8>> = vec![
            b"plain\n".to_vec(),
            b"\xEF\xBB\xBFbom\r\n".to_vec(),
            utf16("wide\n", true),
            utf16("wide\n", false),
            b"a\0b".to_vec(),
            b"\xEF\xBB\xBFa\0b".to_vec(),
            b"caf\xE9".to_vec(),
            b"\xFF\xFEa".to_vec(),
        ];
        for c in cases {
            let owned = decode(c.clone()).map(|d| (d.text, d.encoding));
            let borrowed = decode_slice(&c).map(|(t, e)| (t.into_owned(), e));
            assert_eq!(owned, borrowed, "{c:?}");
        }
        let bytes = b"\xEF\xBB\xBFzero copy".to_vec();
        let (t, _) = decode_slice(&bytes).unwrap();
        assert!(matches!(t, std::borrow::Cow::Borrowed(_)));
        assert_eq!(t.as_ptr(), bytes[3..].as_ptr());
    }

    #[test]
    fn encoding_names() {
        assert_eq!(Encoding::Utf8.as_str(), "utf-8");
        assert_eq!(Encoding::Utf8Bom.as_str(), "utf-8-bom");
        assert_eq!(Encoding::Utf16Le.as_str(), "utf-16le");
        assert_eq!(Encoding::Utf16Be.as_str(), "utf-16be");
    }

    #[test]
    fn round_trips_are_byte_exact() {
        let texts = [
            "",
            "a",
            "one\ntwo\n",
            "one\r\ntwo\r\n",
            "one\rtwo\r",
            "one\ntwo\r\nthree\rfour",
            "no final newline",
            "héllo wörld 日本語 🎉\n",
            "\r\n\r\n",
        ];
        for t in texts {
            let d = round_trip(t.as_bytes());
            assert_eq!(d.text, t);
            assert_eq!(d.encoding, Encoding::Utf8);

            let mut bom = BOM_UTF8.to_vec();
            bom.extend_from_slice(t.as_bytes());
            let d = round_trip(&bom);
            assert_eq!(d.text, t, "BOM excluded from the text");
            assert_eq!(d.encoding, Encoding::Utf8Bom);

            let d = round_trip(&utf16(t, true));
            assert_eq!((d.text.as_str(), d.encoding), (t, Encoding::Utf16Le));
            let d = round_trip(&utf16(t, false));
            assert_eq!((d.text.as_str(), d.encoding), (t, Encoding::Utf16Be));
        }
    }

    #[test]
    fn bom_with_crlf_round_trips() {
        let bytes = b"\xEF\xBB\xBFline one\r\nline two\r\n";
        let d = round_trip(bytes);
        assert_eq!(d.text, "line one\r\nline two\r\n");
        assert_eq!(detect_line_ending(&d.text), LineEnding::Crlf);
    }

    #[test]
    fn empty_file_is_utf8() {
        let d = decode(Vec::new()).unwrap();
        assert_eq!(d.text, "");
        assert_eq!(d.encoding, Encoding::Utf8);
    }

    #[test]
    fn plain_utf8_is_not_copied() {
        let bytes = b"fn main() {}\n".to_vec();
        let ptr = bytes.as_ptr();
        let d = decode(bytes).unwrap();
        assert_eq!(d.text.as_ptr(), ptr, "decode reuses the buffer");
        let out = encode(d.text, Encoding::Utf8);
        assert_eq!(out.as_ptr(), ptr, "encode reuses the buffer");
    }

    #[test]
    fn nul_byte_is_binary() {
        for bytes in [&b"\0"[..], b"abc\0def", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"] {
            let f = decode(bytes.to_vec()).unwrap_err();
            assert_eq!(f.code, Code::BinaryFileRejected, "{bytes:?}");
        }
        let f = decode(b"\xEF\xBB\xBFa\0b".to_vec()).unwrap_err();
        assert_eq!(f.code, Code::BinaryFileRejected);
        assert_eq!(f.detail("byte_offset"), Some(&4.into()));
    }

    #[test]
    fn invalid_utf8_reports_offset() {
        let f = decode(b"abc\xFFdef".to_vec()).unwrap_err();
        assert_eq!(f.code, Code::EncodingUnsupported);
        assert_eq!(f.detail("byte_offset"), Some(&3.into()));
        assert!(f.message.contains("byte offset 3"), "{}", f.message);

        // Truncated multi-byte sequence at the end.
        let f = decode(b"ok \xE6\x97".to_vec()).unwrap_err();
        assert_eq!(f.detail("byte_offset"), Some(&3.into()));

        // Latin-1 "é" after a UTF-8 BOM: offset counts the BOM.
        let f = decode(b"\xEF\xBB\xBFcaf\xE9".to_vec()).unwrap_err();
        assert_eq!(f.code, Code::EncodingUnsupported);
        assert_eq!(f.detail("byte_offset"), Some(&6.into()));
    }

    #[test]
    fn utf16_odd_length_refused() {
        for bytes in [&b"\xFF\xFEa"[..], b"\xFE\xFF\0a\0", b"\xFF\xFEa\0b"] {
            let f = decode(bytes.to_vec()).unwrap_err();
            assert_eq!(f.code, Code::EncodingUnsupported, "{bytes:?}");
            assert!(f.message.contains("odd"), "{}", f.message);
        }
    }

    #[test]
    fn utf16_unpaired_surrogate_refused() {
        // LE: 'a', lone high surrogate D800, 'b'.
        let f = decode(vec![0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0]).unwrap_err();
        assert_eq!(f.code, Code::EncodingUnsupported);
        assert_eq!(f.detail("byte_offset"), Some(&4.into()));
        // BE: lone low surrogate DC00 at the end.
        let f = decode(vec![0xFE, 0xFF, 0, b'a', 0xDC, 0x00]).unwrap_err();
        assert_eq!(f.code, Code::EncodingUnsupported);
        assert_eq!(f.detail("byte_offset"), Some(&4.into()));
        // A high surrogate at the very end.
        let f = decode(vec![0xFF, 0xFE, 0x3D, 0xD8]).unwrap_err();
        assert_eq!(f.code, Code::EncodingUnsupported);
    }

    #[test]
    fn utf16_surrogate_pairs_decode() {
        let d = round_trip(&utf16("x🎉y\r\n", true));
        assert_eq!(d.text, "x🎉y\r\n");
        let d = round_trip(&utf16("x🎉y\r\n", false));
        assert_eq!(d.text, "x🎉y\r\n");
        // A BOM alone is an empty text.
        let d = round_trip(&[0xFF, 0xFE]);
        assert_eq!((d.text.as_str(), d.encoding), ("", Encoding::Utf16Le));
    }

    #[test]
    fn line_endings() {
        let cases: &[(&str, LineEnding, &str)] = &[
            ("", LineEnding::None, "\n"),
            ("single line", LineEnding::None, "\n"),
            ("a\nb\n", LineEnding::Lf, "\n"),
            ("a\nb", LineEnding::Lf, "\n"),
            ("\n", LineEnding::Lf, "\n"),
            ("a\r\nb\r\n", LineEnding::Crlf, "\r\n"),
            ("\r\n", LineEnding::Crlf, "\r\n"),
            ("a\rb\r", LineEnding::Cr, "\r"),
            ("\r", LineEnding::Cr, "\r"),
            (
                "a\r\nb\nc\r\n",
                LineEnding::Mixed { dominant: "\r\n" },
                "\r\n",
            ),
            ("a\nb\nc\r\n", LineEnding::Mixed { dominant: "\n" }, "\n"),
            ("a\rb\rc\n", LineEnding::Mixed { dominant: "\r" }, "\r"),
            ("a\nb\r\n", LineEnding::Mixed { dominant: "\n" }, "\n"),
            ("a\r\nb\r", LineEnding::Mixed { dominant: "\r\n" }, "\r\n"),
            ("\r\r\n\n", LineEnding::Mixed { dominant: "\n" }, "\n"),
        ];
        for &(text, want, term) in cases {
            let got = detect_line_ending(text);
            assert_eq!(got, want, "{text:?}");
            assert_eq!(got.terminator(), term, "{text:?}");
        }
        assert_eq!(
            count_line_endings("\r\r\n\n"),
            LineCounts {
                lf: 1,
                crlf: 1,
                cr: 1
            }
        );
        let names: Vec<_> = [
            LineEnding::Lf,
            LineEnding::Crlf,
            LineEnding::Cr,
            LineEnding::Mixed { dominant: "\n" },
            LineEnding::None,
        ]
        .iter()
        .map(|e| e.as_str())
        .collect();
        assert_eq!(names, ["lf", "crlf", "cr", "mixed", "none"]);
    }

    /// Regression (issue #16, item 6): UTF-32 files (with a BOM) were read as UTF-16 (NULs shown,
    /// re-encoded as UTF-16 on write). Now refused, by both decoders.
    #[test]
    fn utf32_is_refused_not_read_as_utf16() {
        let le = [&BOM_UTF32LE[..], b"h\0\0\0i\0\0\0\n\0\0\0"].concat();
        let be = [&BOM_UTF32BE[..], b"\0\0\0h\0\0\0i"].concat();
        for (bytes, name) in [(le, "utf-32le"), (be, "utf-32be")] {
            let f = decode(bytes.clone()).unwrap_err();
            assert_eq!(f.code, Code::EncodingUnsupported, "{}", f.message);
            assert_eq!(f.detail("encoding"), Some(&name.into()));
            let g = decode_slice_counted(&bytes).unwrap_err();
            assert_eq!(g.code, Code::EncodingUnsupported);
        }
        // UTF-16 LE whose first character is not U+0000 is still UTF-16.
        let d = decode(b"\xFF\xFEh\0".to_vec()).unwrap();
        assert_eq!((d.text.as_str(), d.encoding), ("h", Encoding::Utf16Le));
    }
}
