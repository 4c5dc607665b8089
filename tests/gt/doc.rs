//! What a generated file is: its lines (each with its own terminator), encoding details, and the
//! structure the renderings need (blocks with scope lines, twin regions, embedded blocks).

use unicode_normalization::UnicodeNormalization;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Lang {
    Python,
    Yaml,
    Makefile,
    Js,
    Go,
    Rust,
    C,
    Tsv,
    Shell,
}

impl Lang {
    pub const ALL: [Lang; 9] = [
        Lang::Python,
        Lang::Yaml,
        Lang::Makefile,
        Lang::Js,
        Lang::Go,
        Lang::Rust,
        Lang::C,
        Lang::Tsv,
        Lang::Shell,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Yaml => "yaml",
            Lang::Makefile => "makefile",
            Lang::Js => "js",
            Lang::Go => "go",
            Lang::Rust => "rust",
            Lang::C => "c",
            Lang::Tsv => "tsv",
            Lang::Shell => "shell",
        }
    }

    /// Where a line's indentation decides what block it belongs to.
    pub fn indent_significant(self) -> bool {
        matches!(self, Lang::Python | Lang::Yaml | Lang::Makefile)
    }

    pub fn paths(self) -> &'static [&'static str] {
        match self {
            Lang::Python => &["src/app.py", "tools/report.py", "lib/util.py"],
            Lang::Yaml => &["config/app.yaml", "deploy/values.yml"],
            Lang::Makefile => &["Makefile", "sub/Makefile"],
            Lang::Js => &["web/app.js", "web/status.mjs"],
            Lang::Go => &["cmd/main.go", "pkg/conf.go"],
            Lang::Rust => &["src/lib.rs", "src/parse.rs"],
            Lang::C => &["src/main.c", "src/util.c"],
            Lang::Tsv => &["data/scores.tsv"],
            Lang::Shell => &["scripts/setup.sh"],
        }
    }

    pub fn comment(self) -> &'static str {
        match self {
            Lang::Js | Lang::Go | Lang::Rust | Lang::C => "//",
            _ => "#",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Without its terminator.
    pub text: String,
    /// `"\n"`, `"\r\n"`, or `""` for a last line without one.
    pub eol: &'static str,
}

/// A block opened by a scope line (`def beta(self, x):`, `func main() {`, `web:`, `build:`): lines
/// `header..end`, the header included.
#[derive(Clone, Debug)]
pub struct Block {
    pub header: usize,
    pub end: usize,
    pub parent: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TwinKind {
    /// The copy differs in one token.
    Token,
    /// Exactly the same lines.
    Exact,
    /// One line of the copy has trailing whitespace the original lacks.
    TrailingWs,
    /// One line of the copy ends with the other line ending (a mixed file).
    Eol,
    /// One line of the copy is in NFD where the original is NFC.
    Nfd,
    /// The copy is indented differently.
    Indent,
}

impl TwinKind {
    pub fn name(self) -> &'static str {
        match self {
            TwinKind::Token => "twin_token",
            TwinKind::Exact => "twin_exact",
            TwinKind::TrailingWs => "twin_trailing_ws",
            TwinKind::Eol => "twin_eol",
            TwinKind::Nfd => "twin_nfd",
            TwinKind::Indent => "twin_indent",
        }
    }

    /// Whether the twins look different in a view (else they are the same place to a model).
    pub fn visible(self) -> bool {
        matches!(self, TwinKind::Token | TwinKind::Indent)
    }
}

/// Lines `a..a+len` and `b..b+len` are copies (line for line) that differ as `kind` says.
#[derive(Clone, Debug)]
pub struct Twin {
    pub a: usize,
    pub b: usize,
    pub len: usize,
    pub kind: TwinKind,
}

#[derive(Clone, Debug)]
pub struct Doc {
    pub path: String,
    pub lang: Lang,
    pub lines: Vec<Line>,
    pub bom: bool,
    /// The dominant terminator.
    pub eol: &'static str,
    /// The indentation unit of the host language (`"    "`, `"  "`, `"\t"`).
    pub unit: &'static str,
    pub blocks: Vec<Block>,
    pub twins: Vec<Twin>,
    /// Line ranges of embedded text with its own rules (a YAML raw string in Go, a heredoc).
    pub embedded: Vec<(usize, usize)>,
}

impl Doc {
    pub fn text(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s.push_str(&l.text);
            s.push_str(l.eol);
        }
        s
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        if self.bom {
            b.extend_from_slice("\u{feff}".as_bytes());
        }
        b.extend_from_slice(self.text().as_bytes());
        b
    }

    pub fn final_newline(&self) -> bool {
        self.lines.last().is_none_or(|l| !l.eol.is_empty())
    }

    pub fn mixed_eol(&self) -> bool {
        self.lines
            .iter()
            .any(|l| !l.eol.is_empty() && l.eol != self.eol)
    }

    pub fn in_embedded(&self, line: usize) -> bool {
        self.embedded.iter().any(|&(a, b)| (a..b).contains(&line))
    }

    /// The innermost block holding line `i` (a header belongs to its own block).
    pub fn block_of(&self, i: usize) -> Option<usize> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.header <= i && i < b.end)
            .max_by_key(|(_, b)| b.header)
            .map(|(k, _)| k)
    }

    /// The innermost block holding every line of `a..b` (for an insertion, `a == b`: the block
    /// around the gap before line `a`).
    pub fn block_around(&self, a: usize, b: usize) -> Option<usize> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, k)| {
                if a == b {
                    k.header < a && a <= k.end.min(self.lines.len())
                } else {
                    k.header <= a && b <= k.end
                }
            })
            .max_by_key(|(_, k)| k.header)
            .map(|(k, _)| k)
    }

    pub fn keys(&self) -> Vec<String> {
        self.lines.iter().map(|l| key(&l.text)).collect()
    }
}

/// Leading whitespace of a line.
pub fn indent_of(s: &str) -> &str {
    &s[..s.len() - s.trim_start_matches([' ', '\t']).len()]
}

/// What a view shows of a line, coarser than every tolerance tier: NFC, typography folded, no
/// leading or trailing whitespace, inner whitespace runs as one space, no CR. Two regions with the
/// same keys are the same place to a model.
pub fn key(s: &str) -> String {
    let folded: String = s.nfc().map(fold_char).collect();
    let mut out = String::with_capacity(folded.len());
    for w in folded
        .split([' ', '\t', '\r', '\u{a0}'])
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

pub fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => '\'',
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{2033}' => '"',
        '\u{2013}' | '\u{2014}' | '\u{2212}' => '-',
        '\u{a0}' | '\u{2007}' | '\u{202f}' | '\u{3000}' => ' ',
        c => c,
    }
}

/// Start lines of every window of `keys` equal to `needle` (line keys).
pub fn windows_equal(keys: &[String], needle: &[String]) -> Vec<usize> {
    if needle.is_empty() || needle.len() > keys.len() {
        return Vec::new();
    }
    (0..=keys.len() - needle.len())
        .filter(|&i| keys[i..i + needle.len()] == *needle)
        .collect()
}
