//! Symbols: a file's outline from its tree-sitter tree, name paths that address one symbol, and
//! edits of a symbol's whole span (`listSymbols` / `editSymbol`, see `docs/api.md`).
//!
//! - [`outline`] lists the symbols of a text in file order, each with its whole-line span.
//! - [`names`] gives each symbol its canonical name path and resolves a caller's name path.
//! - [`edit`] replaces, deletes or inserts next to a span with the whitespace rules.
//!
//! **Span rule.** A symbol's span is whole lines: from the first line of the comment block directly
//! above it (doc or plain; no blank line between; a comment that follows code on its line, and
//! Rust's inner `//!` / `/*!`, do not count) or of its attributes / decorators / annotations, and
//! of any wrapper it is declared in (`export`, `export default`, `declare`, `template<...>`, Python's
//! decorators), to the last line of the declaration, with a trailing `;` or `,` and a trailing
//! comment on that line. Modifiers (`pub`, `static`, `public`, ...) are part of the declaration.
//! A Go spec inside `type ( ... )` or `const ( ... )` is its own symbol (span: the spec's lines).

mod edit;
mod names;
mod outline;

#[cfg(test)]
mod tests;

pub use edit::{apply, dropped_parts, Action, Edited};
pub use names::{resolve, Resolved};

use crate::edit::text::LineTable;

/// One symbol of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its own name (the last segment of `path`).
    pub name: String,
    /// Its logical path: `["Cache", "get"]` (Go `func (c *Cache) Get` is `["Cache", "Get"]`, a Rust
    /// method of `impl Trait for T` is `["T", "method"]`).
    pub path: Vec<String>,
    /// `class`, `struct`, `enum`, `interface`, `trait`, `impl`, `type`, `namespace`, `function`,
    /// `method`, `constant` or `key`.
    pub kind: &'static str,
    /// The enclosing symbol in the source (its outline parent), by index.
    pub parent: Option<usize>,
    /// Byte span of whole lines: `start` at a line start, `end` after the last line's terminator (or
    /// at the end of the text).
    pub start: usize,
    pub end: usize,
    /// 1-based first and last line of the span.
    pub start_line: usize,
    pub end_line: usize,
    /// Where the declaration itself starts (after the comments and attributes above it).
    pub decl_start: usize,
    /// The span's first or last line holds other code too (`int a; int b;`): whole-line edits of it
    /// are refused.
    pub shares_line: bool,
    /// `Some("type")` / `Some("const")` for a Go spec inside a `type ( ... )` / `const ( ... )`
    /// group (its text is written without the keyword).
    pub group: Option<&'static str>,
    /// The canonical name path (see [`names`]), set by [`outline`].
    pub name_path: String,
}

/// A file's symbols in file order (a parent before its children).
#[derive(Debug, Clone, Default)]
pub struct Outline {
    pub language: &'static str,
    pub symbols: Vec<Symbol>,
    /// How many lines the text has (as [`LineTable::len`] counts them).
    pub total_lines: usize,
}

/// Why there is no outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoOutline {
    /// No grammar for this path (unknown extension, or its cargo feature is off).
    UnknownLanguage,
    /// Above [`super::MAX_BYTES`].
    TooLarge(&'static str),
    /// Parsing took longer than [`super::PARSE_BUDGET`].
    Timeout(&'static str),
}

/// The outline of `text`, parsed as `path`'s language (the parse cache is used and filled).
pub fn outline(path: &str, text: &str) -> Result<Outline, NoOutline> {
    let language = super::language_for(path).ok_or(NoOutline::UnknownLanguage)?;
    outline_of(language, text)
}

/// [`outline`] for a language name (see [`super::language_for`]).
pub fn outline_of(language: &'static str, text: &str) -> Result<Outline, NoOutline> {
    walk(language, text, None, None)
}

/// The part of `path`'s outline that can answer `name_path`: every symbol with members, and the
/// others whose name ends `name_path` (with or without its `[i]`). [`resolve`] finds in it what it
/// finds in the whole outline, with the same canonical name paths (a path's `[i]` counts only
/// symbols of the same name); only `NotFound`'s candidates need the whole outline. Saves the span of
/// every other symbol (about half of an outline's cost).
pub fn outline_for(path: &str, text: &str, name_path: &str) -> Result<Outline, NoOutline> {
    let language = super::language_for(path).ok_or(NoOutline::UnknownLanguage)?;
    walk(language, text, Some(names::query_forms(name_path)), None)
}

/// What [`outline_for`] gives for resolving `name_path`, found from the text instead of a walk of
/// every container. The names `name_path` can end in ([`names::candidate_names`]) are looked up in
/// the text, and only the nodes that hold an occurrence are visited: every symbol of such a name has
/// it in the text inside its own node, so the symbols that can answer `name_path` are all found,
/// with their enclosing symbols (for their paths and parents). Of the file's top-level nodes, only
/// those that hold every part of `name_path` (split at each separator) are visited: a symbol and
/// all the symbols its path goes through lie in one top-level node. [`resolve`] finds in it what it
/// finds in the whole outline, with the same canonical name paths. A name a symbol may carry without
/// it being in the text as such (a Rust `impl T for U`, a C++ `A::operator new`, whose segments the
/// outline writes without whitespace) is looked up by the walk of [`outline_for`].
pub fn outline_named(path: &str, text: &str, name_path: &str) -> Result<Outline, NoOutline> {
    let language = super::language_for(path).ok_or(NoOutline::UnknownLanguage)?;
    let keep = names::query_forms(name_path);
    let wanted = names::candidate_names(name_path);
    if !wanted.iter().all(|n| names::in_text_as_is(language, n)) {
        return walk(language, text, Some(keep), None);
    }
    let bytes = text.as_bytes();
    let mut at = Vec::new();
    for name in &wanted {
        at.extend(
            memchr::memmem::find_iter(bytes, name.as_bytes())
                .filter(|&i| names::bounded(bytes, i, i + name.len())),
        );
    }
    at.sort_unstable();
    at.dedup();
    let forms = names::pieces(name_path);
    let parts = match forms
        .iter()
        .flatten()
        .all(|p| names::in_text_as_is(language, p))
    {
        true => forms
            .iter()
            .map(|form| {
                form.iter()
                    .map(|p| memchr::memmem::find_iter(bytes, p.as_bytes()).collect())
                    .collect()
            })
            .collect(),
        false => Vec::new(),
    };
    walk(language, text, Some(keep), Some(Only { at, parts }))
}

/// Where [`outline_named`] looks: the offsets of the names, and for each query form the offsets of
/// each of its parts (none: every top-level node may hold the symbol).
struct Only {
    at: Vec<usize>,
    parts: Vec<Vec<Vec<usize>>>,
}

impl Only {
    /// The offsets of `at` inside a top-level node that holds every part of some query form.
    fn narrowed(self, root: tree_sitter::Node) -> Vec<usize> {
        if self.parts.is_empty() || self.at.is_empty() {
            return self.at;
        }
        let within = |xs: &[usize], a: usize, b: usize| {
            let i = xs.partition_point(|&x| x < a);
            xs.get(i).is_some_and(|&x| x < b)
        };
        let mut out = Vec::new();
        let mut cursor = root.walk();
        for n in root.children(&mut cursor) {
            let (a, b) = (n.start_byte(), n.end_byte());
            if !within(&self.at, a, b) {
                continue;
            }
            if self
                .parts
                .iter()
                .any(|form| form.iter().all(|xs| within(xs, a, b)))
            {
                let i = self.at.partition_point(|&x| x < a);
                out.extend(self.at[i..].iter().take_while(|&&x| x < b));
            }
        }
        out
    }
}

fn walk(
    language: &'static str,
    text: &str,
    keep: Option<Vec<String>>,
    only: Option<Only>,
) -> Result<Outline, NoOutline> {
    if text.len() > super::MAX_BYTES {
        return Err(NoOutline::TooLarge(language));
    }
    let deadline = std::time::Instant::now() + super::PARSE_BUDGET;
    let tree = super::engine::tree(language, text, deadline).ok_or(NoOutline::Timeout(language))?;
    let only = only.map(|o| o.narrowed(tree.root_node()));
    let lines = LineTable::new(text);
    let mut w = outline::Walker {
        language,
        src: text,
        lines: &lines,
        out: Vec::new(),
        grammar: tree.language().to_owned(),
        fields: Default::default(),
        keep,
        only,
    };
    w.walk(tree.root_node(), None, &[], false);
    let mut symbols = w.out;
    names::assign(&mut symbols);
    Ok(Outline {
        language,
        symbols,
        total_lines: lines.len(),
    })
}

impl Outline {
    /// The compact text form: one line per symbol, indented two spaces per outline level:
    /// `<name_path> (<kind>, <start>-<end>)`.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::with_capacity(self.symbols.len() * 40);
        let mut depth: Vec<usize> = Vec::with_capacity(self.symbols.len());
        for s in &self.symbols {
            // A parent comes before its children.
            let d = s.parent.map_or(0, |p| depth[p] + 1);
            depth.push(d);
            for _ in 0..d {
                out.push_str("  ");
            }
            let _ = match s.start_line == s.end_line {
                true => writeln!(out, "{} ({}, {})", s.name_path, s.kind, s.start_line),
                false => writeln!(
                    out,
                    "{} ({}, {}-{})",
                    s.name_path, s.kind, s.start_line, s.end_line
                ),
            };
        }
        out
    }
}
