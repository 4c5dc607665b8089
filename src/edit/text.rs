//! Line tables over a text, and small helpers shared by the matcher and the receipts.
//!
//! A line's terminator is `\r\n`, `\n` or a lone `\r`, so CR-only and mixed files have real lines.
//!
//! ```
//! use surepatch::edit::text::LineTable;
//! let t = LineTable::new("a\r\nb\nc");
//! assert_eq!(t.len(), 3);
//! assert_eq!(t.content(2, "a\r\nb\nc"), "c");
//! assert_eq!(t.line_of(4), 2); // 1-based line of byte offset 4 ("b" is at 3, "\n" at 4)
//! ```

use memchr::memchr2_iter;

/// Start, content end and end (after the terminator) of every line.
#[derive(Debug, Clone)]
pub struct LineTable {
    /// `starts[i]` is where line `i` starts; one extra entry holds the text length.
    starts: Vec<usize>,
    /// Where line `i`'s content ends (before its terminator).
    content_ends: Vec<usize>,
    /// Whether the last line has a terminator.
    last_terminated: bool,
}

impl LineTable {
    pub fn new(text: &str) -> Self {
        let b = text.as_bytes();
        let guess = b.len() / 40 + 1;
        let mut starts = Vec::with_capacity(guess + 1);
        starts.push(0);
        let mut content_ends = Vec::with_capacity(guess);
        let mut skip_lf_at = usize::MAX;
        for i in memchr2_iter(b'\n', b'\r', b) {
            if i == skip_lf_at {
                continue;
            }
            content_ends.push(i);
            if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                skip_lf_at = i + 1;
                starts.push(i + 2);
            } else {
                starts.push(i + 1);
            }
        }
        let last_terminated = *starts.last().unwrap() == b.len() && !b.is_empty();
        if last_terminated {
            // The final terminator ends the last line; no empty line follows it.
        } else {
            content_ends.push(b.len());
            starts.push(b.len());
        }
        if b.is_empty() {
            // An empty text has no lines.
            starts.truncate(1);
            content_ends.clear();
        }
        LineTable {
            starts,
            content_ends,
            last_terminated,
        }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.content_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.content_ends.is_empty()
    }

    pub fn start(&self, i: usize) -> usize {
        self.starts[i]
    }

    /// Offset just past line `i`'s terminator (the start of line `i + 1`, or the text length).
    pub fn end(&self, i: usize) -> usize {
        self.starts[i + 1]
    }

    pub fn content_end(&self, i: usize) -> usize {
        self.content_ends[i]
    }

    pub fn has_terminator(&self, i: usize) -> bool {
        i + 1 < self.len() || self.last_terminated
    }

    pub fn content<'t>(&self, i: usize, text: &'t str) -> &'t str {
        &text[self.starts[i]..self.content_ends[i]]
    }

    pub fn terminator<'t>(&self, i: usize, text: &'t str) -> &'t str {
        &text[self.content_ends[i]..self.starts[i + 1]]
    }

    /// 0-based index of the line holding byte `offset` (an offset at the very end belongs to the last line).
    pub fn index_of(&self, offset: usize) -> usize {
        match self.starts[..self.len().max(1)].binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// 1-based line number of byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.index_of(offset) + 1
    }
}

/// 1-based line number of `offset`, counting `\n`, `\r\n` and lone `\r` as one break each, without
/// building a table (one pass up to `offset`).
pub fn line_number_at(text: &str, offset: usize) -> usize {
    count_breaks(text.as_bytes(), 0, offset) + 1
}

/// `base[range]` with the sorted, disjoint `spans` `(start, end, replacement)` inside it replaced, as
/// consecutive pieces (slices of `base` and the replacements): the text after an edit, never built in
/// one piece unless the caller concatenates them.
pub fn spliced<'a, T>(
    base: &'a T,
    range: std::ops::Range<usize>,
    spans: impl IntoIterator<Item = (usize, usize, &'a T)>,
) -> Vec<&'a T>
where
    T: ?Sized + std::ops::Index<std::ops::Range<usize>, Output = T>,
{
    let mut out = Vec::new();
    let mut pos = range.start;
    for (s, e, r) in spans {
        out.push(&base[pos..s]);
        out.push(r);
        pos = e;
    }
    out.push(&base[pos..range.end]);
    out
}

/// Length of the longest common prefix of `a` and `b`, in bytes (compared a block at a time).
pub fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..n]
        .iter()
        .zip(&b[at..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Length of the longest common suffix of `a` and `b`, in bytes (compared a block at a time).
pub fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut k = 0;
    while k + BLOCK <= n && a[n - k - BLOCK..n - k] == b[n - k - BLOCK..n - k] {
        k += BLOCK;
    }
    k + a[..n - k]
        .iter()
        .rev()
        .zip(b[..n - k].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Texts at least this long have their whole-text passes (UTF-8 check, exact search, line count) split
/// in two halves run on two threads.
pub const PAR_MIN: usize = 4 << 20;

/// `f(0..mid)` and `f(mid..len)`, the second on a scoped thread of its own while the calling thread runs
/// the first.
pub fn in_halves<T: Send>(
    mid: usize,
    len: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> (T, T) {
    std::thread::scope(|s| {
        let second = s.spawn(|| f(mid..len));
        let first = f(0..mid);
        // A panic in the second half is re-raised here, as it would be had it run on this thread.
        let second = second
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (first, second)
    })
}

/// Line breaks that end inside `text[from..to]`: every `\n`, and every `\r` not followed by `\n`
/// (looking past `to` when needed). Additive over adjacent ranges, so a long range is counted in two
/// halves on two threads.
fn count_breaks(text: &[u8], from: usize, to: usize) -> usize {
    if to - from >= PAR_MIN {
        let mid = from + (to - from) / 2;
        let (a, b) = in_halves(mid - from, to - from, |r| {
            count_breaks_one(text, from + r.start, from + r.end)
        });
        return a + b;
    }
    count_breaks_one(text, from, to)
}

fn count_breaks_one(text: &[u8], from: usize, to: usize) -> usize {
    let b = &text[from..to];
    let (lf, any_cr) = count_lf(b);
    if !any_cr {
        return lf;
    }
    let lone_cr = memchr::memchr_iter(b'\r', b)
        .filter(|&i| text.get(from + i + 1) != Some(&b'\n'))
        .count();
    lf + lone_cr
}

/// The number of `\n` in `b`, and whether it holds a `\r`, in one pass: byte counters per lane, emptied
/// before they can overflow (written so the compiler vectorises it).
fn count_lf(b: &[u8]) -> (usize, bool) {
    const LANES: usize = 32;
    let (mut lf, mut cr) = (0usize, 0u8);
    let mut blocks = b.chunks_exact(LANES * 255);
    for block in &mut blocks {
        let mut acc = [0u8; LANES];
        let mut seen = [0u8; LANES];
        for c in block.chunks_exact(LANES) {
            for i in 0..LANES {
                acc[i] += u8::from(c[i] == b'\n');
                seen[i] |= u8::from(c[i] == b'\r');
            }
        }
        lf += acc.iter().map(|&n| usize::from(n)).sum::<usize>();
        cr |= seen.iter().fold(0, |a, &x| a | x);
    }
    for &x in blocks.remainder() {
        lf += usize::from(x == b'\n');
        cr |= u8::from(x == b'\r');
    }
    (lf, cr != 0)
}

/// Line breaks that end inside `text[from..to]` (see [`LineCounter`]).
pub fn line_breaks(text: &str, from: usize, to: usize) -> usize {
    count_breaks(text.as_bytes(), from, to)
}

/// 1-based line numbers of offsets, counted incrementally: asking for increasing offsets costs one
/// pass over the text in total.
#[derive(Debug, Clone)]
pub struct LineCounter {
    offset: usize,
    line: usize,
}

impl Default for LineCounter {
    fn default() -> Self {
        LineCounter { offset: 0, line: 1 }
    }
}

impl LineCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// 1-based line number of byte `offset` of `text`.
    pub fn line_of(&mut self, text: &str, offset: usize) -> usize {
        let b = text.as_bytes();
        if offset >= self.offset {
            self.line += count_breaks(b, self.offset, offset);
        } else if offset >= self.offset / 2 {
            self.line -= count_breaks(b, offset, self.offset);
        } else {
            self.line = 1 + count_breaks(b, 0, offset);
        }
        self.offset = offset;
        self.line
    }
}

/// Splits a snippet into lines on any terminator. A final terminator yields a final empty part,
/// so `split_lines("a\nb\n") == ["a", "b", ""]`.
pub fn split_lines(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            b'\r' => {
                out.push(&s[start..i]);
                if b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// The first line terminator in `s`, if any.
pub fn first_terminator(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    let i = memchr::memchr2(b'\n', b'\r', b)?;
    Some(match (b[i], b.get(i + 1)) {
        (b'\r', Some(b'\n')) => "\r\n",
        (b'\r', _) => "\r",
        _ => "\n",
    })
}

/// The most frequent terminator of a text (`\n` when it has none).
pub fn dominant_terminator(text: &str) -> &'static str {
    let b = text.as_bytes();
    if memchr::memchr(b'\r', b).is_none() {
        return "\n";
    }
    let (mut lf, mut crlf, mut cr) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while let Some(p) = memchr::memchr2(b'\n', b'\r', &b[i..]) {
        let at = i + p;
        if b[at] == b'\r' {
            if b.get(at + 1) == Some(&b'\n') {
                crlf += 1;
                i = at + 2;
                continue;
            }
            cr += 1;
        } else {
            lf += 1;
        }
        i = at + 1;
    }
    if crlf >= lf && crlf >= cr {
        "\r\n"
    } else if cr > lf {
        "\r"
    } else {
        "\n"
    }
}

/// Rewrites every line break of `s` as `term`. Borrows when nothing changes.
pub fn convert_terminators<'a>(s: &'a str, term: &str) -> std::borrow::Cow<'a, str> {
    let b = s.as_bytes();
    let needs = match term {
        "\n" => memchr::memchr(b'\r', b).is_some(),
        _ => {
            let parts = split_lines(s);
            parts.len() > 1 && first_mismatch(s, term)
        }
    };
    if !needs {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(split_lines(s).join(term))
}

fn first_mismatch(s: &str, term: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(p) = memchr::memchr2(b'\n', b'\r', &b[i..]) {
        let at = i + p;
        let found = match (b[at], b.get(at + 1)) {
            (b'\r', Some(b'\n')) => "\r\n",
            (b'\r', _) => "\r",
            _ => "\n",
        };
        if found != term {
            return true;
        }
        i = at + found.len();
    }
    false
}

/// Length of `s` in UTF-16 code units, as JavaScript's `String.length` counts it.
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the byte-at-a-time definition, with the difference placed at every offset around the
    /// block size and lengths that differ.
    #[test]
    fn common_prefix_and_suffix_lengths() {
        let naive_pre = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let naive_suf = |a: &[u8], b: &[u8]| {
            a.iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        for len in [0, 1, 255, 256, 257, 700] {
            let a: Vec<u8> = (0..len).map(|i| (i % 7) as u8).collect();
            for extra in [0, 1, 300] {
                let mut longer = a.clone();
                longer.extend(std::iter::repeat_n(9u8, extra));
                assert_eq!(common_prefix_len(&a, &longer), naive_pre(&a, &longer));
                let mut front = vec![9u8; extra];
                front.extend(&a);
                assert_eq!(common_suffix_len(&a, &front), naive_suf(&a, &front));
            }
            for at in 0..len {
                let mut b = a.clone();
                b[at] = 200;
                assert_eq!(common_prefix_len(&a, &b), at);
                assert_eq!(common_suffix_len(&a, &b), len - at - 1);
                assert_eq!(common_prefix_len(&b, &a), naive_pre(&b, &a));
            }
        }
    }

    #[test]
    fn break_counts_agree_across_the_two_thread_split() {
        // CR LF, a lone CR and an LF placed at every position around the middle of a long range.
        let len = PAR_MIN + 100;
        for ins in [&b"\r\n"[..], b"\r", b"\n", b"\r\r\n"] {
            for shift in 0..4 {
                let mut t = vec![b'a'; len];
                for k in (0..len).step_by(997) {
                    t[k] = b'\n';
                }
                let at = len / 2 - shift;
                t[at..at + ins.len()].copy_from_slice(ins);
                let whole = count_breaks_one(&t, 0, len);
                assert_eq!(count_breaks(&t, 0, len), whole, "{ins:?} at mid - {shift}");
                assert_eq!(
                    count_breaks(&t, 1, len - 1),
                    count_breaks_one(&t, 1, len - 1)
                );
            }
        }
    }

    #[test]
    fn lf_count_and_cr_flag_match_a_plain_loop() {
        for n in [
            0,
            1,
            31,
            32,
            33,
            32 * 255 - 1,
            32 * 255,
            32 * 255 + 1,
            20_000,
        ] {
            let pattern = b"ab\ncd\n\nxyz";
            let t: Vec<u8> = (0..n).map(|i| pattern[i % pattern.len()]).collect();
            let lf = t.iter().filter(|&&x| x == b'\n').count();
            assert_eq!(count_lf(&t), (lf, false), "{n}");
            let mut t = t;
            if n > 0 {
                t[n - 1] = b'\r';
                let lf = t.iter().filter(|&&x| x == b'\n').count();
                assert_eq!(count_lf(&t), (lf, true), "{n} with CR");
            }
        }
    }

    #[test]
    fn line_counter_agrees_with_a_fresh_count_in_any_order() {
        let t = "a\r\nb\rc\n\r\nd\re\n";
        let mut c = LineCounter::new();
        let order = [0, 3, 2, 4, 9, 1, 11, 5, 7, 13, 6, 12, 8];
        for &o in &order {
            assert_eq!(c.line_of(t, o), line_number_at(t, o), "offset {o}");
        }
    }

    #[test]
    fn table_handles_every_terminator() {
        let t = "a\r\nb\nc\rd";
        let lt = LineTable::new(t);
        assert_eq!(lt.len(), 4);
        assert_eq!(
            (0..4).map(|i| lt.content(i, t)).collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        assert_eq!(lt.terminator(0, t), "\r\n");
        assert_eq!(lt.terminator(2, t), "\r");
        assert!(!lt.has_terminator(3));
        assert_eq!(lt.line_of(lt.start(3)), 4);
        assert_eq!(line_number_at(t, lt.start(3)), 4);
    }

    #[test]
    fn table_trailing_newline_adds_no_line() {
        let lt = LineTable::new("x\ny\n");
        assert_eq!(lt.len(), 2);
        assert!(lt.has_terminator(1));
        assert_eq!(lt.end(1), 4);
        assert_eq!(LineTable::new("").len(), 0);
        assert_eq!(LineTable::new("\n").len(), 1);
    }

    #[test]
    fn split_and_convert() {
        assert_eq!(split_lines("a\nb\n"), ["a", "b", ""]);
        assert_eq!(split_lines("a\r\nb\rc"), ["a", "b", "c"]);
        assert_eq!(convert_terminators("a\nb\n", "\r\n"), "a\r\nb\r\n");
        assert!(matches!(
            convert_terminators("a\r\nb", "\r\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(convert_terminators("a\r\nb\rc", "\n"), "a\nb\nc");
        assert_eq!(dominant_terminator("a\r\nb\r\nc\n"), "\r\n");
        assert_eq!(dominant_terminator("a\nb"), "\n");
        assert_eq!(first_terminator("ab\rc"), Some("\r"));
    }

    #[test]
    fn utf16_counts_like_javascript() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é😀"), 3);
    }
}
