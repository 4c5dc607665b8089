//! Whether a line's indentation is syntax where an edit lands: in Python, YAML and Makefiles (and in a
//! block embedded in another file — a YAML document in a Go raw string, a shell heredoc) a line's
//! columns decide which block it belongs to, so the indentation tiers may not pick a frame for a
//! changed line by a tie-break there (`rebuild.rs`, issue #25 §1: "never change a line's block
//! membership in an indentation-significant language by a guess").
//!
//! The file's kind comes from its path ([`Layout::of_path`]); an embedded block from the file's
//! content ([`embedded_at`]): a heredoc (`<<EOF` … `EOF`, `<<-'EOF'`, …) open at the line, or a raw
//! string or template literal (an odd number of backquotes before the line; in Markdown, a fenced
//! code block) — the text inside either follows its own rules, which the host file's do not tell.

use super::Haystack;

/// [`Layout::Significant`]'s place for a Makefile.
pub(super) const MAKEFILE: &str = "a Makefile";

/// [`Layout::Significant`]'s place for a YAML file.
pub(super) const YAML: &str = "a YAML file";

/// How indentation reads in the edited text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// Brace languages, prose, and files of unknown kind: depth is layout.
    #[default]
    Free,
    /// A file whose language makes indentation syntax (what it is, for messages: `"a Python file"`).
    Significant(&'static str),
}

impl Layout {
    /// The layout of the file at `path`, by its name: Python (`.py .pyi .pyw`), YAML (`.yaml .yml`),
    /// Makefiles (`Makefile`, `makefile`, `GNUmakefile`, `.mk .mak`); anything else is free.
    pub fn of_path(path: &str) -> Layout {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        if matches!(name, "Makefile" | "makefile" | "GNUmakefile") {
            return Layout::Significant(MAKEFILE);
        }
        let Some((stem, ext)) = name.rsplit_once('.') else {
            return Layout::Free;
        };
        if stem.is_empty() {
            return Layout::Free;
        }
        match ext.to_ascii_lowercase().as_str() {
            "py" | "pyi" | "pyw" => Layout::Significant("a Python file"),
            "yaml" | "yml" => Layout::Significant(YAML),
            "mk" | "mak" => Layout::Significant(MAKEFILE),
            _ => Layout::Free,
        }
    }

    pub fn is_significant(self) -> bool {
        matches!(self, Layout::Significant(_))
    }
}

/// Most lines looked at above a line for a heredoc that holds it, and below an opener for its end.
const HEREDOC_REACH: usize = 2_000;

/// What embeds line `i` (0-based) of `h` in a block with rules of its own, if anything: `"a
/// heredoc"` when a heredoc opened above it (`<<WORD`, with a line `WORD` below that closes it)
/// closes after it, `"a raw string"` when an odd number of backquotes precedes it.
pub(super) fn embedded_at(h: &Haystack, i: usize) -> Option<&'static str> {
    let lines = h.lines();
    let line = |j: usize| lines.content(j, h.text);
    let n = lines.len();
    let i = i.min(n);
    // A heredoc: the nearest opener above whose closing line exists. Heredocs do not nest, so one
    // closed before the line ends the search.
    for x in (i.saturating_sub(HEREDOC_REACH)..i).rev() {
        let Some(word) = heredoc_word(line(x)) else {
            continue;
        };
        let close = (x + 1..n.min(x + 1 + HEREDOC_REACH)).find(|&c| line(c).trim() == word);
        match close {
            Some(c) if c > i => return Some("a heredoc"),
            Some(_) => break,
            // `<<` that nothing closes is no heredoc (a shift: `1 << SHIFT`, `cout << x`).
            None => continue,
        }
    }
    let ticks: usize = (0..i)
        .map(|j| memchr::memchr_iter(b'`', line(j).as_bytes()).count())
        .sum();
    (ticks % 2 == 1).then_some("a raw string")
}

/// The delimiting word of a heredoc a shell line opens (`cat <<EOF > f`, `<<-'END'`, `<< "X"`).
fn heredoc_word(line: &str) -> Option<&str> {
    let at = line.find("<<")?;
    let rest = line[at + 2..].trim_start_matches('-');
    // `<<<` is a here-string.
    if rest.starts_with('<') {
        return None;
    }
    let rest = rest.trim_start().trim_start_matches(['\'', '"']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let word = &rest[..end];
    (!word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit())).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_by_path() {
        for (p, l) in [
            ("src/app.py", Layout::Significant("a Python file")),
            ("A/B.PYI", Layout::Significant("a Python file")),
            ("config/app.yaml", Layout::Significant("a YAML file")),
            ("deploy\\values.yml", Layout::Significant("a YAML file")),
            ("Makefile", Layout::Significant("a Makefile")),
            ("sub/GNUmakefile", Layout::Significant("a Makefile")),
            ("rules.mk", Layout::Significant("a Makefile")),
            ("src/lib.rs", Layout::Free),
            ("web/app.js", Layout::Free),
            ("Makefile.bak", Layout::Free),
            (".yaml", Layout::Free),
            ("README", Layout::Free),
            ("", Layout::Free),
        ] {
            assert_eq!(Layout::of_path(p), l, "{p}");
        }
    }

    fn at(lines: &[&str], i: usize) -> Option<&'static str> {
        let text = lines.join("\n");
        embedded_at(&Haystack::new(&text), i)
    }

    #[test]
    fn embedded_blocks_by_content() {
        let sh = [
            "setup() {",
            "    cat <<EOF > app.yaml",
            "name: app",
            "items:",
            "EOF",
            "    echo done",
        ];
        assert_eq!(at(&sh, 1), None);
        assert_eq!(at(&sh, 2), Some("a heredoc"));
        assert_eq!(at(&sh, 3), Some("a heredoc"));
        assert_eq!(at(&sh, 5), None);
        let quoted = ["cat <<-'END'", "  x: 1", "END"];
        assert_eq!(at(&quoted, 1), Some("a heredoc"));
        // A here-string, a shift, an opener nothing closes: no heredoc.
        assert_eq!(at(&["x <<< word", "y"], 1), None);
        assert_eq!(at(&["echo $((1 << 2))", "y"], 1), None);
        assert_eq!(at(&["int m = 1 << SHIFT;", "    y();", "}"], 1), None);
        let go = [
            "func config() string {",
            "\treturn `",
            "name: app",
            "`",
            "}",
        ];
        assert_eq!(at(&go, 1), None);
        assert_eq!(at(&go, 2), Some("a raw string"));
        assert_eq!(at(&go, 4), None);
        assert_eq!(at(&["s := `a` + `b`", "x"], 1), None);
    }
}
