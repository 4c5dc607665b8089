//! The marker grammar of a lazy snippet: which lines stand for code left out.
//!
//! A marker is a line that is only a comment in one of the comment syntaxes
//! [`crate::edit::placeholder::comment_body`] reads (`//`, `#`, `/* */`, `{/* */}`, `<!-- -->`, `--`, `;`,
//! `%`) and whose text says that code is elided:
//!
//! - anything the rewrite guard already calls a placeholder ([`crate::edit::placeholder::is_placeholder`]:
//!   `existing code`, `rest of the file unchanged`, a bare `...`);
//! - an ellipsis (`...` or `…`) with at most [`MAX_WORDS`] words, all from the elision vocabulary
//!   (`existing`, `unchanged`, `rest`, `remaining`, `more`, `methods`, `(unchanged)`, ...);
//! - an ellipsis with `keep` followed by names (`// ... keep parseArgs ...`): a [`Marker::Keep`]
//!   whose span must hold every name;
//! - an ellipsis with `removed` / `deleted` and vocabulary words (`// ... removed code ...`): a
//!   [`Marker::Remove`], whose span is deleted.
//!
//! Everything else is text: a bare `...` line (a Python body), `...args`, a TypeScript rest type, a
//! path like `C:\...\`, a trailing comment after code, or a comment that mentions a word of the
//! vocabulary among others (`# keep existing entries; only new keys are added`).

use crate::edit::placeholder::{comment_body, is_filler, is_placeholder};

/// What a marker line stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    /// The file's lines between the neighbouring anchors stay; each name must occur in them.
    Keep(Vec<String>),
    /// The file's lines between the neighbouring anchors are deleted.
    Remove,
}

/// Most words a marker's text may have besides its ellipsis.
pub const MAX_WORDS: usize = 10;

/// Words that describe elided code besides the placeholder detector's own
/// ([`crate::edit::placeholder::is_filler`]).
const VOCABULARY: &[&str] = &[
    "others",
    "line",
    "contents",
    "out",
    "implementations",
    "method",
    "function",
    "changed",
    "not",
    "imports",
    "import",
    "fields",
    "props",
    "properties",
    "members",
    "helpers",
    "handlers",
    "routes",
    "tests",
    "cases",
    "styles",
    "rules",
    "config",
    "configuration",
    "settings",
    "options",
    "definitions",
    "declarations",
    "body",
    "logic",
    "class",
    "classes",
    "module",
    "modules",
    "component",
    "components",
    "setup",
    "elements",
    "items",
    "entries",
    "exports",
    "types",
    "constants",
    "variables",
    "statements",
    "queries",
    "tables",
    "columns",
    "keys",
    "values",
    "sections",
    "section",
    "tasks",
    "steps",
    "jobs",
    "targets",
    "commands",
    "blocks",
    "block",
    "markup",
    "page",
    "document",
    "template",
    "script",
    "html",
    "text",
    "data",
    "snip",
    "snipped",
    "truncated",
    "elided",
    "abbreviated",
    "skipped",
    "hidden",
    "kept",
    "preserved",
    "retained",
    "continues",
    "continued",
    "similar",
    "stuff",
    "in",
    "this",
    "that",
    "these",
    "those",
    "to",
    "from",
    "with",
    "there",
];

/// Words that make an ellipsis comment a removal.
const REMOVAL: &[&str] = &["removed", "deleted", "remove", "delete", "dropped"];

/// The words of a comment's text: runs of letters, digits, `_` and `$`.
fn words(body: &str) -> Vec<&str> {
    body.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// `keep` is no vocabulary: it starts a `keep NAME` marker.
fn in_vocabulary(w: &str) -> bool {
    let l = w.to_lowercase();
    (l != "keep" && is_filler(&l))
        || VOCABULARY.contains(&l.as_str())
        || l.chars().all(|c| c.is_ascii_digit())
}

/// The marker a snippet line is, if it is one.
pub fn marker(line: &str) -> Option<Marker> {
    let body = comment_body(line)?;
    let dots = body.contains("...") || body.contains('\u{2026}');
    let ws = words(body);
    if ws.is_empty() {
        return dots.then(|| Marker::Keep(Vec::new()));
    }
    if !dots {
        // Without an ellipsis only the placeholder detector's phrases are markers.
        return is_placeholder(line).then(|| Marker::Keep(Vec::new()));
    }
    if ws.len() > MAX_WORDS {
        return None;
    }
    let lower: Vec<String> = ws.iter().map(|w| w.to_lowercase()).collect();
    if lower.iter().any(|w| REMOVAL.contains(&w.as_str())) {
        let rest_ok = lower
            .iter()
            .all(|w| REMOVAL.contains(&w.as_str()) || in_vocabulary(w));
        return rest_ok.then_some(Marker::Remove);
    }
    if let Some(k) = lower.iter().position(|w| w == "keep") {
        // Words before `keep` are vocabulary (`... existing: keep foo ...`); after it, names.
        if !lower[..k].iter().all(|w| in_vocabulary(w)) {
            return None;
        }
        let names: Vec<String> = ws[k + 1..]
            .iter()
            .filter(|w| !in_vocabulary(w))
            .map(|w| w.to_string())
            .collect();
        if names.len() > 3 {
            return None;
        }
        return Some(Marker::Keep(names));
    }
    if ws.iter().all(|w| in_vocabulary(w)) || is_placeholder(line) {
        return Some(Marker::Keep(Vec::new()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep() -> Option<Marker> {
        Some(Marker::Keep(Vec::new()))
    }

    /// Every comment syntax, with `...` and `…`, and the wordings models use.
    #[test]
    fn markers_of_every_comment_syntax_are_found() {
        for l in [
            "// ... existing code ...",
            "    // ...existing code...",
            "# ... rest of the file unchanged ...",
            "# rest of the file unchanged",
            "/* ... */",
            "/* ... existing code ... */",
            "{/* ... */}",
            "  {/* ... existing markup ... */}",
            "<!-- ... -->",
            "<!-- ... rest of the page unchanged ... -->",
            "-- ... existing queries ...",
            "-- …",
            ";; ... rest of the file ...",
            "; ...",
            "% ...",
            "// … existing code …",
            "// ... (unchanged) ...",
            "// ... existing functions ...",
            "// ... rest of the code remains the same ...",
            "# ... more code ...",
            "# ... existing methods ...",
            "\t// ...",
            "/// ...",
            "# ... 40 more lines ...",
        ] {
            assert_eq!(marker(l), keep(), "{l:?}");
        }
        assert_eq!(
            marker("// ... keep parseArgs ..."),
            Some(Marker::Keep(vec!["parseArgs".into()]))
        );
        assert_eq!(
            marker("        # ... keep _dir_candidates ..."),
            Some(Marker::Keep(vec!["_dir_candidates".into()]))
        );
        assert_eq!(marker("// ... removed code ..."), Some(Marker::Remove));
        assert_eq!(marker("# ... deleted ..."), Some(Marker::Remove));
        assert_eq!(marker("<!-- ... removed ... -->"), Some(Marker::Remove));
    }

    /// Lines that look like markers but are code or ordinary comments.
    #[test]
    fn look_alikes_are_text() {
        for l in [
            "...",
            "    ...",
            "def f(): ...",
            "    return {...defaults, ...opts}",
            "  ...args,",
            "function f(...args: string[]): void {}",
            "type T = [...Head, Tail]",
            "path = r\"C:\\...\\bin\"",
            "x = 1  # ...",
            "msg = '// ... existing code ...'",
            "# check existing code paths first",
            "# Keep existing parent entries; only new keys are added (5442).",
            "// TODO: refactor the existing code in parser.rs",
            "// Loading...",
            "# Wait for the server... then retry",
            "// removed in v2... use run() instead",
            "---",
            "#include <stdio.h>",
            "print('...')",
            "// ... keep the cache warm between requests of the same session ...",
        ] {
            assert_eq!(marker(l), None, "{l:?}");
        }
    }
}
