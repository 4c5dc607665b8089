//! Elision placeholders: the comment lines a model leaves in a rewrite when it means "keep what was
//! there" (`// ... existing code ...`, `# rest of the file unchanged`). Pure: no I/O.
//!
//! A whole-file rewrite whose new content has one on a line of its own would delete the code it stands
//! for, so the rewrite is refused (`ELIDED_CONTENT`, in [`crate::api`]) unless the caller says the line
//! is meant literally.

/// Words a placeholder comment may consist of.
const FILLER: &[&str] = &[
    "existing",
    "code",
    "unchanged",
    "rest",
    "of",
    "the",
    "file",
    "remains",
    "remain",
    "same",
    "is",
    "are",
    "here",
    "goes",
    "keep",
    "as",
    "before",
    "other",
    "previous",
    "all",
    "and",
    "everything",
    "else",
    "stays",
    "stay",
    "untouched",
    "omitted",
    "for",
    "brevity",
    "lines",
    "content",
    "original",
    "remaining",
    "left",
    "implementation",
    "methods",
    "functions",
    "your",
    "above",
    "below",
    "etc",
    "more",
    "was",
    "unmodified",
    "no",
    "changes",
];

/// Phrases that mark a placeholder on their own.
const STRONG: &[&str] = &[
    "existing code",
    "unchanged code",
    "code unchanged",
    "remains the same",
    "remain the same",
    "same as before",
];

/// Phrases that mark a placeholder together with an ellipsis or an "unchanged"-like word.
const WEAK: &[&str] = &[
    "rest of the file",
    "rest of file",
    "rest of the code",
    "rest of code",
    "remaining code",
    "other code",
    "previous code",
    "original code",
];

const UNCHANGED_WORDS: &[&str] = &[
    "unchanged",
    "same",
    "untouched",
    "omitted",
    "before",
    "remains",
    "unmodified",
];

/// Whether one line is an elision placeholder: a comment on a line of its own whose text is only an
/// ellipsis, or a short phrase like "existing code" / "rest of the file unchanged".
pub fn is_placeholder(line: &str) -> bool {
    let t = line.trim();
    const OPENERS: &[&str] = &["{/*", "<!--", "//", "/*", "#", "--", ";", "%"];
    let Some(body) = OPENERS.iter().find_map(|o| t.strip_prefix(o)) else {
        return false;
    };
    let mut body = body
        .trim_start_matches(['/', '#', ';', '-', '!', '%', '*'])
        .trim();
    for closer in ["*/}", "*/", "-->"] {
        if let Some(b) = body.strip_suffix(closer) {
            body = b.trim_end();
            break;
        }
    }
    let dots = body.contains("...") || body.contains('\u{2026}');
    let lower = body.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return dots;
    }
    if words.len() > 12 || !words.iter().all(|w| FILLER.contains(w)) {
        return false;
    }
    let joined = words.join(" ");
    STRONG.iter().any(|p| joined.contains(p))
        || (WEAK.iter().any(|p| joined.contains(p))
            && (dots || words.iter().any(|w| UNCHANGED_WORDS.contains(w))))
}

/// 1-based numbers and text of the placeholder lines of `text`.
pub fn placeholder_lines(text: &str) -> Vec<(usize, &str)> {
    crate::text::split_lines(text)
        .into_iter()
        .enumerate()
        .filter(|(_, l)| is_placeholder(l))
        .map(|(i, l)| (i + 1, l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found() {
        for l in [
            "// ... existing code ...",
            "    // ...existing code...",
            "# rest of the file unchanged",
            "# ... rest of the code ...",
            "<!-- ... -->",
            "  <!-- existing content remains the same -->",
            "/* ... */",
            "{/* ... */}",
            "-- ... existing code ...",
            "// \u{2026}",
            "# ...",
            "// unchanged code here",
            "// Rest of file remains the same",
            "/// keep existing code",
        ] {
            assert!(is_placeholder(l), "{l:?}");
        }
    }

    #[test]
    fn legitimate_lines_are_not_placeholders() {
        for l in [
            "    ...",
            "def f(): ...",
            "msg = \"// ... existing code ...\"",
            "x = 1  # ...",
            "# check existing code paths first",
            "# rest of the file handles parsing",
            "// TODO: refactor the existing code in parser.rs",
            "---",
            "-- comment",
            "#include <stdio.h>",
            "# Heading",
            "print('rest of the file unchanged')",
        ] {
            assert!(!is_placeholder(l), "{l:?}");
        }
        assert_eq!(
            placeholder_lines("a\n// ... existing code ...\nb\r\n# ...\n"),
            vec![(2, "// ... existing code ..."), (4, "# ...")]
        );
    }
}
