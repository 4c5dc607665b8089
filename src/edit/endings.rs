//! Line terminators of a text: which convention it uses ([`detect_line_ending`]) and how many of
//! each kind it holds ([`count_line_endings`]), in one pass with `memchr`. Pure; the codec
//! ([`crate::fs::codec`]) re-exports these for the readers and writers of files.

/// The line terminator convention of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// Only `\n`.
    Lf,
    /// Only `\r\n`.
    Crlf,
    /// Only a lone `\r` (classic Mac).
    Cr,
    /// More than one kind. `dominant` is the most frequent terminator (`"\n"`, `"\r\n"` or `"\r"`);
    /// ties go to `\n`, then `\r\n`, then `\r`.
    Mixed { dominant: &'static str },
    /// No line terminator at all (empty or single-line text).
    None,
}

impl LineEnding {
    /// The stable string form: `"lf"`, `"crlf"`, `"cr"`, `"mixed"` or `"none"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "lf",
            LineEnding::Crlf => "crlf",
            LineEnding::Cr => "cr",
            LineEnding::Mixed { .. } => "mixed",
            LineEnding::None => "none",
        }
    }

    /// The terminator to use for new lines: `"\n"` for `Lf` and `None`, `"\r\n"` for `Crlf`, `"\r"`
    /// for `Cr`, and the most frequent one for `Mixed`.
    pub fn terminator(self) -> &'static str {
        match self {
            LineEnding::Lf | LineEnding::None => "\n",
            LineEnding::Crlf => "\r\n",
            LineEnding::Cr => "\r",
            LineEnding::Mixed { dominant } => dominant,
        }
    }
}

/// How many terminators of each kind a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineCounts {
    /// `\n` not preceded by `\r`.
    pub lf: usize,
    /// `\r\n`.
    pub crlf: usize,
    /// `\r` not followed by `\n`.
    pub cr: usize,
}

impl LineCounts {
    /// The convention these counts describe.
    pub fn ending(self) -> LineEnding {
        let kinds = (self.lf > 0) as u8 + (self.crlf > 0) as u8 + (self.cr > 0) as u8;
        match kinds {
            0 => LineEnding::None,
            1 if self.lf > 0 => LineEnding::Lf,
            1 if self.crlf > 0 => LineEnding::Crlf,
            1 => LineEnding::Cr,
            _ => {
                let dominant = if self.lf >= self.crlf && self.lf >= self.cr {
                    "\n"
                } else if self.crlf >= self.cr {
                    "\r\n"
                } else {
                    "\r"
                };
                LineEnding::Mixed { dominant }
            }
        }
    }
}

/// Counts the line terminators of `text` in one `memchr` pass.
pub fn count_line_endings(text: &str) -> LineCounts {
    let b = text.as_bytes();
    let mut c = LineCounts::default();
    for i in memchr::memchr2_iter(b'\r', b'\n', b) {
        if b[i] == b'\r' {
            if b.get(i + 1) == Some(&b'\n') {
                c.crlf += 1;
            } else {
                c.cr += 1;
            }
        } else if i == 0 || b[i - 1] != b'\r' {
            c.lf += 1;
        }
    }
    c
}

/// The line terminator convention of `text` (see [`LineEnding`]).
pub fn detect_line_ending(text: &str) -> LineEnding {
    count_line_endings(text).ending()
}
