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

/// Whether `word` (lowercase) is one a placeholder comment may consist of.
pub fn is_filler(word: &str) -> bool {
    FILLER.contains(&word)
}

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

/// The text of a line that is only a comment (`//`, `#`, `/* */`, `{/* */}`, `<!-- -->`, `--`, `;`,
/// `%`), without its opener, closer and the spaces around it; `None` for any other line. The comment
/// grammar [`is_placeholder`] reads, for callers with their own wording (the lazy merge's markers).
pub fn comment_body(line: &str) -> Option<&str> {
    let t = line.trim();
    const OPENERS: &[&str] = &["{/*", "<!--", "//", "/*", "#", "--", ";", "%"];
    let body = OPENERS.iter().find_map(|o| t.strip_prefix(o))?;
    let mut body = body
        .trim_start_matches(['/', '#', ';', '-', '!', '%', '*'])
        .trim();
    for closer in ["*/}", "*/", "-->"] {
        if let Some(b) = body.strip_suffix(closer) {
            body = b.trim_end();
            break;
        }
    }
    Some(body)
}

/// 1-based numbers and text of the placeholder lines of `text`.
pub fn placeholder_lines(text: &str) -> Vec<(usize, &str)> {
    crate::edit::text::split_lines(text)
        .into_iter()
        .enumerate()
        .filter(|(_, l)| is_placeholder(l))
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// The placeholder lines an edit would write over code: `new` replaces `text[start..end]`, and a line
/// of `new` is returned (0-based index in `new`, text) when
///
/// - it [`is_placeholder`],
/// - it is no line of the replaced text (a comment the file already has there is content),
/// - it stands in a run of changed lines (a line diff of the replaced text against `new`) that drops
///   a non-blank line of the replaced text, so it stands where code was, and
/// - it is not inside a literal: a markdown code fence (a line starting with ```` ``` ```` or `~~~`)
///   or a triple-quoted string (`"""`, `'''`) open at that point of the file followed by `new`, or a
///   template literal that `new` opens above the line and closes below it (an odd number of `` ` ``
///   on each side).
///
/// A placeholder line that drops nothing (a comment added between kept lines) is not returned.
pub fn elided_in_change<'n>(
    text: &str,
    start: usize,
    end: usize,
    new: &'n str,
) -> Vec<(usize, &'n str)> {
    let new_lines = crate::edit::text::split_lines(new);
    if !new_lines.iter().any(|l| is_placeholder(l)) {
        return Vec::new();
    }
    let old_lines = crate::edit::text::split_lines(&text[start..end]);
    // A step budget, not a clock: the same text gives the same diff under any load.
    let ops = crate::edit::matcher::bounded_diff(&old_lines, &new_lines, &mut {
        crate::edit::matcher::LINE_DIFF_STEPS
    });
    // Each run of changed lines: the old lines it drops and the new lines it writes.
    type Run = (std::ops::Range<usize>, std::ops::Range<usize>);
    let mut runs: Vec<Run> = Vec::new();
    let mut open: Option<Run> = None;
    // The lines of `new` that repeat the replaced text's (the file's own lines, kept).
    let mut kept = vec![false; new_lines.len()];
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            kept[n].fill(true);
            runs.extend(open.take());
            continue;
        }
        open = Some(match open.take() {
            Some((ro, rn)) => (ro.start..o.end.max(ro.end), rn.start..n.end.max(rn.end)),
            None => (o, n),
        });
    }
    runs.extend(open);
    let mut out = Vec::new();
    for (o, n) in runs {
        if old_lines[o].iter().all(|l| l.trim().is_empty()) {
            continue;
        }
        for j in n {
            let l = new_lines[j];
            let written: Vec<&str> = (0..j).filter(|&x| !kept[x]).map(|x| new_lines[x]).collect();
            if is_placeholder(l)
                && !old_lines.iter().any(|x| x.trim() == l.trim())
                && !inside_literal(
                    &text[..start],
                    &new_lines[..j],
                    &written,
                    &new_lines[j + 1..],
                )
            {
                out.push((j, l));
            }
        }
    }
    out
}

/// Whether a line that follows `before` (the file up to the edit) and `above` (the edit's lines above
/// it), and precedes `below` (the edit's lines below it), is inside a literal: a fence or a
/// triple-quoted string open at that point, or a template literal that `written` (the lines of
/// `above` the edit writes, not the file's own it keeps) opens and `below` closes. A template literal
/// the file already has (a Go raw string holding YAML, its backquote on a line the edit keeps) is
/// the file's text: a placeholder put over its lines stands for lines left out, like one over code.
fn inside_literal(before: &str, above: &[&str], written: &[&str], below: &[&str]) -> bool {
    let lines = || before.lines().chain(above.iter().copied());
    let fences = lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("```") || t.starts_with("~~~")
        })
        .count();
    let count = |pat: &str| lines().map(|l| l.matches(pat).count()).sum::<usize>();
    let ticks = |ls: &[&str]| {
        ls.iter()
            .map(|l| l.replace("```", "").matches('`').count())
            .sum::<usize>()
    };
    fences % 2 == 1
        || count("\"\"\"") % 2 == 1
        || count("'''") % 2 == 1
        || (ticks(written) % 2 == 1 && ticks(below) % 2 == 1)
}

/// The `ELIDED_CONTENT` refusal of an edit that would write placeholder lines over code: `found` are
/// `(line, text)` with 1-based lines of the file as it is (the line the placeholder would replace);
/// `who` names the edit (`"edits[2]"`, `"the hunk at patch line 5"`).
pub fn elided_failure(found: &[(usize, &str)], who: &str) -> crate::error::Failure {
    let nums: Vec<String> = found.iter().map(|f| f.0.to_string()).collect();
    let list: Vec<serde_json::Value> = found
        .iter()
        .map(|(n, l)| serde_json::json!({"line": n, "text": l}))
        .collect();
    crate::error::Failure::new(
        crate::error::Code::ElidedContent,
        format!(
            "{who} replaces code at line(s) {} with a placeholder (\"{}\") that stands for lines left out; writing it would delete them, so nothing was written. Send the lines as they should read, or leave the unchanged lines out of both old and new.",
            nums.join(", "),
            found.first().map_or("", |f| f.1.trim())
        ),
    )
    .with("placeholder_lines", list)
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
    fn a_change_elides_code_only_where_a_placeholder_stands_for_dropped_lines() {
        fn at(new: &str) -> Vec<(usize, &str)> {
            let text = "def f():\n    a = 1\n    b = 2\n    return b\n";
            elided_in_change(text, 0, text.len(), new)
        }
        // Lines 2-3 dropped, a placeholder in their place.
        assert_eq!(
            at("def f():\n    # ... existing code ...\n    return b\n"),
            vec![(1, "    # ... existing code ...")]
        );
        // Dropped at the end of the replacement, with nothing after it.
        assert_eq!(at("def f():\n    # ...\n").len(), 1);
        // Added between kept lines: nothing dropped.
        assert!(at("def f():\n    # ...\n    a = 1\n    b = 2\n    return b\n").is_empty());
        // Dropping only blank lines drops no code.
        let blank = "x\n\n\ny\n";
        assert!(elided_in_change(blank, 0, blank.len(), "x\n# ...\ny\n").is_empty());
        // Already a line of the replaced text.
        let has = "a\n// ... existing code ...\nb\nc\n";
        assert!(elided_in_change(has, 0, has.len(), "a\n// ... existing code ...\nc\n").is_empty());
        // Inside a fence or a triple-quoted string open before the change, or a template literal the
        // new text opens and closes around it.
        let md = "```py\nrun()\nstop()\n```\n";
        let start = md.find("run").unwrap();
        let end = md.rfind("```").unwrap();
        assert!(elided_in_change(md, start, end, "# ...\n").is_empty());
        let py = "T = \"\"\"\nrun()\nstop()\n\"\"\"\n";
        let start = py.find("run").unwrap();
        assert!(elided_in_change(py, start, start + 13, "# ...\n").is_empty());
        let js = "run()\nstop()\n";
        assert!(elided_in_change(js, 0, js.len(), "s = `\n// ...\n`\n").is_empty());
        // A raw string the file already has (its backquotes on lines the edit keeps, here YAML in
        // Go): a placeholder over its lines stands for lines left out (G1).
        let go = "var cfg = `\nname: app\nretries: 6\nitems:\n  - ok\n`\n";
        assert_eq!(
            elided_in_change(
                go,
                0,
                go.len(),
                "var cfg = `\n// ... existing code ...\n  - ok\n`\n"
            ),
            vec![(1, "// ... existing code ...")]
        );
        // A backtick only above the line (a comment mentioning `x`... closed on the same line) is
        // no literal: refused.
        assert_eq!(
            elided_in_change(js, 0, js.len(), "// see `run`\n// ...\n").len(),
            1
        );
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
