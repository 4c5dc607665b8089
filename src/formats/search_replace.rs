//! SEARCH/REPLACE blocks, the edit format popularised by aider.
//!
//! # Grammar
//!
//! Lines are split as described in [`crate::formats`] (LF or CRLF; terminators are not part of a line).
//!
//! ```text
//! input          = { other-line | block } ;
//! block          = search-marker , { body-line } ,      (* the search body  *)
//!                  divider ,       { body-line } ,      (* the replace body *)
//!                  replace-marker ;
//! search-marker  = "<<<<<<< SEARCH"  , { ws } , EOL ;   (* exactly 7 '<', one space *)
//! divider        = "======="         , { ws } , EOL ;   (* exactly 7 '=' *)
//! replace-marker = ">>>>>>> REPLACE" , { ws } , EOL ;   (* exactly 7 '>', one space *)
//! body-line      = any line that is not a marker line ;
//! other-line     = any line that is not a marker line ;
//!
//! (* parse_path_blocks only *)
//! path-input     = { gap , block } , { other-line } ;
//! gap            = { other-line } ;      (* the lines after the previous block, or from the start *)
//! path-line      = { ws } , path-token , { ws } ;
//! path-token     = path | "`" , path , "`" | "**" , path , "**" | "**`" , path , "`**" ;
//! path           = one or more non-whitespace characters, the first not '`' or '*',
//!                  the last not '`' '*' ':' '.' or ',' ;
//! fence-line     = { ws } , "```" , { any character } ;
//! blank-line     = { ws } ;
//! ```
//!
//! # Markers
//!
//! A marker line is one of the three markers above, starting in column 0, followed by nothing but
//! optional trailing whitespace. Any other line is a body line or an other-line, even when it almost
//! looks like a marker: `<<<<<<<< SEARCH` (eight `<`), `  =======` (indented), `<<<<<<< SEARCH foo`,
//! git conflict markers such as `<<<<<<< HEAD` are all content. Because of this, a file line that is
//! exactly `=======` can not be written inside a search body (it would end it) — a limit of the
//! format itself.
//!
//! # Bodies
//!
//! The search body becomes [`Edit::old`] and the replace body [`Edit::new`]: the body lines joined
//! with LF, each terminated by LF, so a non-empty body ends with `"\n"` and an empty body is `""`.
//! An empty replace body deletes the searched text. An empty search body is passed through as
//! `old == ""`; what that means (creating a file, refusing) is decided by the layer that applies it.
//! Inside a body every line is content, including lines that look like markdown fences or paths.
//! [`Edit::expected_replacements`] is always `None`.
//!
//! # Paths ([`parse_path_blocks`])
//!
//! Each block's path is taken from its *gap*: the lines between the end of the previous block (or
//! the start of the input) and its search marker. Blank lines and fence lines in the gap are skipped;
//! the nearest remaining line above the block is the *candidate*:
//!
//! - if the candidate is a `path-line`, its path (wrappers removed) is the block's path;
//! - if there is no candidate (the gap holds only blank and fence lines), the block reuses the path
//!   of the previous block — models often write several blocks for one file under one path line;
//!   the first block has no previous path, so this is an error for it;
//! - if the candidate is not a path-line it is prose (it contains whitespace, or ends with `:`, `.`
//!   or `,`, e.g. `Now update the imports:`) and the block is refused, even when a previous path
//!   exists: prose between blocks often names another file, and applying a block to the wrong file
//!   is worse than asking for the path again. Only the nearest candidate is considered; a path two
//!   lines above prose is not used.
//!
//! Paths are returned as written (no normalisation; `./a` and `a` are different paths). Paths that
//! contain whitespace can not be written in this format. The result holds one entry per distinct
//! path, in order of first appearance; the blocks of one path keep their input order.
//!
//! [`parse_blocks`] ignores paths entirely: every line outside a block is skipped.
//!
//! # Errors
//!
//! Every error is a [`ParseError`] with the 1-based input line:
//!
//! | situation | line reported |
//! |---|---|
//! | no block in the input | 1 |
//! | `=======` outside a block | that line |
//! | `>>>>>>> REPLACE` outside a block (stray) | that line |
//! | `>>>>>>> REPLACE` before the block's `=======` | that line |
//! | `<<<<<<< SEARCH` inside a search body (nested) | the inner marker |
//! | `<<<<<<< SEARCH` inside a replace body (block not closed) | the inner marker |
//! | a second `=======` inside one block | the second divider |
//! | end of input before `=======` | the block's search marker |
//! | end of input before `>>>>>>> REPLACE` | the block's divider |
//! | ([`parse_path_blocks`]) no path for a block | the block's search marker |

use std::collections::HashMap;

use super::{join_lines, shown, split_lines};
use crate::ir::{Edit, ParseError};

const SEARCH: &str = "<<<<<<< SEARCH";
const DIVIDER: &str = "=======";
const REPLACE: &str = ">>>>>>> REPLACE";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Search,
    Divider,
    Replace,
}

fn marker(line: &str) -> Option<Marker> {
    match line.trim_end() {
        SEARCH => Some(Marker::Search),
        DIVIDER => Some(Marker::Divider),
        REPLACE => Some(Marker::Replace),
        _ => None,
    }
}

/// One parsed block: 0-based indices of its search and replace marker lines, and its edit.
struct Block {
    start: usize,
    end: usize,
    edit: Edit,
}

/// Parses every SEARCH/REPLACE block in `text`, in order. Lines outside blocks (paths, prose, fences)
/// are ignored.
pub fn parse_blocks(text: &str) -> Result<Vec<Edit>, ParseError> {
    let lines = split_lines(text);
    Ok(scan(&lines)?.into_iter().map(|b| b.edit).collect())
}

/// Parses every SEARCH/REPLACE block in `text` with the file path written before it, grouped by path
/// in order of first appearance.
pub fn parse_path_blocks(text: &str) -> Result<Vec<(String, Vec<Edit>)>, ParseError> {
    let lines = split_lines(text);
    let blocks = scan(&lines)?;
    let mut out: Vec<(String, Vec<Edit>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut prev_end: Option<usize> = None;
    let mut prev_path: Option<&str> = None;
    for block in blocks {
        let gap_start = prev_end.map_or(0, |e| e + 1);
        let path = match candidate(&lines[gap_start..block.start]) {
            Some(line) => match path_of(line) {
                Some(p) => p,
                None => {
                    return Err(ParseError::new(
                        block.start + 1,
                        format!(
                            "expected a file path on its own line before `{SEARCH}`, \
                             but the nearest line above, {}, reads as prose",
                            shown(line.trim())
                        ),
                    ))
                }
            },
            None => prev_path.ok_or_else(|| {
                ParseError::new(
                    block.start + 1,
                    format!("expected a file path on its own line before `{SEARCH}`"),
                )
            })?,
        };
        match index.get(path) {
            Some(&i) => out[i].1.push(block.edit),
            None => {
                index.insert(path, out.len());
                out.push((path.to_string(), vec![block.edit]));
            }
        }
        prev_end = Some(block.end);
        prev_path = Some(path);
    }
    Ok(out)
}

/// The nearest line of `gap` (searching upwards) that is neither blank nor a fence line.
fn candidate<'a>(gap: &[&'a str]) -> Option<&'a str> {
    gap.iter().rev().copied().find(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with("```")
    })
}

/// The path a path-line names, or `None` when the line is prose.
fn path_of(line: &str) -> Option<&str> {
    let mut s = line.trim();
    if let Some(inner) = s.strip_prefix("**").and_then(|x| x.strip_suffix("**")) {
        s = inner;
    }
    if let Some(inner) = s.strip_prefix('`').and_then(|x| x.strip_suffix('`')) {
        s = inner;
    }
    let prose = s.is_empty()
        || s.chars().any(char::is_whitespace)
        || s.ends_with([':', '.', ','])
        || s.starts_with(['`', '*'])
        || s.ends_with(['`', '*']);
    (!prose).then_some(s)
}

fn scan(lines: &[&str]) -> Result<Vec<Block>, ParseError> {
    let n = lines.len();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < n {
        match marker(lines[i]) {
            None => i += 1,
            Some(Marker::Divider) => {
                return Err(ParseError::new(
                    i + 1,
                    format!("`{DIVIDER}` outside a block; expected `{SEARCH}` before it"),
                ))
            }
            Some(Marker::Replace) => {
                return Err(ParseError::new(
                    i + 1,
                    format!(
                        "stray `{REPLACE}` outside a block; expected `{SEARCH}` and `{DIVIDER}` before it"
                    ),
                ))
            }
            Some(Marker::Search) => {
                let start = i;
                i += 1;
                let divider = loop {
                    if i == n {
                        return Err(ParseError::new(
                            start + 1,
                            format!(
                                "the block opened here is not finished: reached the end of the input; \
                                 expected `{DIVIDER}` and then `{REPLACE}`"
                            ),
                        ));
                    }
                    match marker(lines[i]) {
                        None => i += 1,
                        Some(Marker::Divider) => break i,
                        Some(Marker::Search) => {
                            return Err(ParseError::new(
                                i + 1,
                                format!(
                                    "nested `{SEARCH}`: the block opened at line {} needs `{DIVIDER}` \
                                     and `{REPLACE}` before another block starts",
                                    start + 1
                                ),
                            ))
                        }
                        Some(Marker::Replace) => {
                            return Err(ParseError::new(
                                i + 1,
                                format!(
                                    "expected `{DIVIDER}` before `{REPLACE}` in the block opened at line {}",
                                    start + 1
                                ),
                            ))
                        }
                    }
                };
                i += 1;
                let end = loop {
                    if i == n {
                        return Err(ParseError::new(
                            divider + 1,
                            format!(
                                "the block opened at line {} is not finished: reached the end of the \
                                 input; expected `{REPLACE}` after this `{DIVIDER}`",
                                start + 1
                            ),
                        ));
                    }
                    match marker(lines[i]) {
                        None => i += 1,
                        Some(Marker::Replace) => break i,
                        Some(Marker::Search) => {
                            return Err(ParseError::new(
                                i + 1,
                                format!(
                                    "expected `{REPLACE}` to close the block opened at line {} \
                                     before another `{SEARCH}`",
                                    start + 1
                                ),
                            ))
                        }
                        Some(Marker::Divider) => {
                            return Err(ParseError::new(
                                i + 1,
                                format!(
                                    "a second `{DIVIDER}` in the block opened at line {}; \
                                     expected `{REPLACE}`",
                                    start + 1
                                ),
                            ))
                        }
                    }
                };
                blocks.push(Block {
                    start,
                    end,
                    edit: Edit::new(
                        join_lines(&lines[start + 1..divider]),
                        join_lines(&lines[divider + 1..end]),
                    ),
                });
                i += 1;
            }
        }
    }
    if blocks.is_empty() {
        return Err(ParseError::new(
            1,
            format!("no SEARCH/REPLACE block found; expected `{SEARCH}`, `{DIVIDER}`, `{REPLACE}` lines"),
        ));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(old: &str, new: &str) -> Edit {
        Edit::new(old, new)
    }

    fn err(text: &str) -> ParseError {
        parse_blocks(text).unwrap_err()
    }

    fn perr(text: &str) -> ParseError {
        parse_path_blocks(text).unwrap_err()
    }

    const ONE: &str = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";

    // ---- blocks and bodies ----

    #[test]
    fn single_block() {
        assert_eq!(parse_blocks(ONE).unwrap(), vec![e("old\n", "new\n")]);
    }

    #[test]
    fn multi_line_bodies_keep_lines_and_indentation() {
        let t = "<<<<<<< SEARCH\n  a\n\n  b\n=======\n  a\n  c\n>>>>>>> REPLACE";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("  a\n\n  b\n", "  a\n  c\n")]
        );
    }

    #[test]
    fn empty_replace_body_is_deletion() {
        let t = "<<<<<<< SEARCH\ngone\n=======\n>>>>>>> REPLACE\n";
        assert_eq!(parse_blocks(t).unwrap(), vec![e("gone\n", "")]);
    }

    #[test]
    fn empty_search_body_is_passed_through() {
        let t = "<<<<<<< SEARCH\n=======\nnew file\n>>>>>>> REPLACE\n";
        assert_eq!(parse_blocks(t).unwrap(), vec![e("", "new file\n")]);
    }

    #[test]
    fn blank_line_body_is_one_newline() {
        let t = "<<<<<<< SEARCH\n\n=======\n\n\n>>>>>>> REPLACE\n";
        assert_eq!(parse_blocks(t).unwrap(), vec![e("\n", "\n\n")]);
    }

    #[test]
    fn several_blocks_in_order_and_other_lines_ignored() {
        let t = format!(
            "intro prose\n```python\n{ONE}```\nmore\n{}",
            ONE.replace("old", "x")
        );
        assert_eq!(
            parse_blocks(&t).unwrap(),
            vec![e("old\n", "new\n"), e("x\n", "new\n")]
        );
        assert!(parse_blocks(&t).unwrap()[0].expected_replacements.is_none());
    }

    #[test]
    fn trailing_whitespace_on_markers_is_ignored() {
        let t = "<<<<<<< SEARCH  \nold\n======= \t\nnew\n>>>>>>> REPLACE \n";
        assert_eq!(parse_blocks(t).unwrap(), vec![e("old\n", "new\n")]);
    }

    #[test]
    fn crlf_input_gives_lf_text() {
        let t = "<<<<<<< SEARCH\r\na\r\nb\r\n=======\r\nc\r\n>>>>>>> REPLACE\r\n";
        assert_eq!(parse_blocks(t).unwrap(), vec![e("a\nb\n", "c\n")]);
    }

    #[test]
    fn last_marker_without_newline() {
        let t = ONE.trim_end();
        assert_eq!(parse_blocks(t).unwrap(), vec![e("old\n", "new\n")]);
    }

    #[test]
    fn near_markers_are_content() {
        let t = "<<<<<<< SEARCH\n<<<<<<<< SEARCH\n  =======\n<<<<<<< SEARCH foo\n<<<<<<< HEAD\n\
                 =======\n>>>>>>>> REPLACE\n======== \n>>>>>>> feature\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e(
                "<<<<<<<< SEARCH\n  =======\n<<<<<<< SEARCH foo\n<<<<<<< HEAD\n",
                ">>>>>>>> REPLACE\n======== \n>>>>>>> feature\n"
            )]
        );
    }

    #[test]
    fn indented_marker_is_content_not_marker() {
        let t = "<<<<<<< SEARCH\na\n=======\n  >>>>>>> REPLACE\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("a\n", "  >>>>>>> REPLACE\n")]
        );
    }

    #[test]
    fn fence_inside_replace_body_is_content() {
        let t = "<<<<<<< SEARCH\nx\n=======\n```rust\nfn f() {}\n```\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("x\n", "```rust\nfn f() {}\n```\n")]
        );
    }

    #[test]
    fn parse_blocks_ignores_path_lines() {
        let t = format!("src/a.py\n{ONE}\nsrc/b.py\n{ONE}");
        assert_eq!(parse_blocks(&t).unwrap().len(), 2);
    }

    // ---- errors ----

    #[test]
    fn no_blocks_is_error_at_line_1() {
        let er = err("just prose\nno blocks\n");
        assert_eq!(er.line, 1);
        assert!(er.message.contains("no SEARCH/REPLACE block"), "{er}");
        assert_eq!(err("").line, 1);
    }

    #[test]
    fn search_without_divider_hits_replace() {
        let er = err("x\n<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n");
        assert_eq!(er.line, 4);
        assert!(er.message.contains("expected `=======`"), "{er}");
    }

    #[test]
    fn search_without_divider_at_eof() {
        let er = err("x\n<<<<<<< SEARCH\nold\nnew\n");
        assert_eq!(er.line, 2);
        assert!(er.message.contains("end of the input"), "{er}");
        assert!(er.message.contains("expected `=======`"), "{er}");
    }

    #[test]
    fn divider_without_replace_at_eof() {
        let er = err("<<<<<<< SEARCH\nold\n=======\nnew\n");
        assert_eq!(er.line, 3);
        assert!(er.message.contains("expected `>>>>>>> REPLACE`"), "{er}");
    }

    #[test]
    fn divider_without_replace_before_next_block() {
        let er = err("<<<<<<< SEARCH\nold\n=======\nnew\n<<<<<<< SEARCH\n");
        assert_eq!(er.line, 5);
        assert!(er.message.contains("expected `>>>>>>> REPLACE`"), "{er}");
        assert!(er.message.contains("line 1"), "{er}");
    }

    #[test]
    fn second_divider_in_block() {
        let er = err("<<<<<<< SEARCH\nold\n=======\nnew\n=======\n>>>>>>> REPLACE\n");
        assert_eq!(er.line, 5);
        assert!(er.message.contains("second `=======`"), "{er}");
    }

    #[test]
    fn stray_replace() {
        let er = err(&format!("{ONE}>>>>>>> REPLACE\n"));
        assert_eq!(er.line, 6);
        assert!(er.message.contains("stray"), "{er}");
    }

    #[test]
    fn stray_divider() {
        let er = err("Title\n=======\n");
        assert_eq!(er.line, 2);
        assert!(er.message.contains("outside a block"), "{er}");
    }

    #[test]
    fn nested_search() {
        let er = err("<<<<<<< SEARCH\na\n<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE\n");
        assert_eq!(er.line, 3);
        assert!(er.message.contains("nested"), "{er}");
    }

    #[test]
    fn crlf_error_lines_are_input_lines() {
        let er = err("a\r\nb\r\n<<<<<<< SEARCH\r\nx\r\n");
        assert_eq!(er.line, 3);
    }

    // ---- paths ----

    #[test]
    fn path_line_before_block() {
        let t = format!("src/app.py\n{ONE}");
        assert_eq!(
            parse_path_blocks(&t).unwrap(),
            vec![("src/app.py".to_string(), vec![e("old\n", "new\n")])]
        );
    }

    #[test]
    fn fences_and_blank_lines_between_path_and_block() {
        let t = format!("Here is the change.\n\nsrc/app.py\n\n```python\n\n{ONE}```\n");
        assert_eq!(parse_path_blocks(&t).unwrap()[0].0, "src/app.py");
        let t = format!("```python\nsrc/app.py\n{ONE}```\n");
        assert_eq!(parse_path_blocks(&t).unwrap()[0].0, "src/app.py");
    }

    #[test]
    fn path_wrappers() {
        for line in [
            "`a/b.rs`",
            "**a/b.rs**",
            "**`a/b.rs`**",
            "  a/b.rs  ",
            "\ta/b.rs",
        ] {
            let t = format!("{line}\n{ONE}");
            assert_eq!(parse_path_blocks(&t).unwrap()[0].0, "a/b.rs", "{line}");
        }
    }

    #[test]
    fn path_without_extension_or_dir() {
        let t = format!("Makefile\n{ONE}");
        assert_eq!(parse_path_blocks(&t).unwrap()[0].0, "Makefile");
    }

    #[test]
    fn prose_is_not_a_path() {
        for line in [
            "src/app.py:",
            "Update the file.",
            "first,",
            "Now update the imports",
            "`my file.py`",
            "``",
            "****",
            "`a.py",
            "**a.py",
        ] {
            let t = format!("{line}\n{ONE}");
            let er = perr(&t);
            assert_eq!(er.line, 2, "{line}");
            assert!(er.message.contains("reads as prose"), "{line}: {er}");
        }
    }

    #[test]
    fn only_the_nearest_candidate_counts() {
        let er = perr(&format!("src/a.py\nChange retries:\n{ONE}"));
        assert_eq!(er.line, 3);
    }

    #[test]
    fn first_block_without_path() {
        let er = perr(ONE);
        assert_eq!(er.line, 1);
        assert!(er.message.contains("expected a file path"), "{er}");
        let er = perr(&format!("\n```\n\n{ONE}"));
        assert_eq!(er.line, 4);
    }

    #[test]
    fn later_block_without_path_reuses_previous() {
        let t = format!(
            "a.py\n{ONE}\n```\n\n```python\n{}",
            ONE.replace("old", "two")
        );
        assert_eq!(
            parse_path_blocks(&t).unwrap(),
            vec![(
                "a.py".to_string(),
                vec![e("old\n", "new\n"), e("two\n", "new\n")]
            )]
        );
        // Directly adjacent blocks, too.
        let t = format!("a.py\n{ONE}{ONE}");
        assert_eq!(parse_path_blocks(&t).unwrap()[0].1.len(), 2);
    }

    #[test]
    fn later_block_after_prose_is_refused() {
        let t = format!("a.py\n{ONE}Then the tests:\n{ONE}");
        let er = perr(&t);
        assert_eq!(er.line, 8);
        assert!(er.message.contains("Then the tests:"), "{er}");
    }

    #[test]
    fn path_lines_inside_bodies_are_not_paths() {
        // The replace body of the first block ends in a path-like line: it is content, and the
        // second block (with only a blank gap) reuses a.py.
        let t = "a.py\n<<<<<<< SEARCH\nx\n=======\nb.py\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\ny\n=======\n>>>>>>> REPLACE\n";
        let got = parse_path_blocks(t).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, vec![e("x\n", "b.py\n"), e("y\n", "")]);
    }

    #[test]
    fn grouped_by_first_appearance_keeping_order() {
        let b = |s: &str| ONE.replace("old", s);
        let t = format!(
            "b.py\n{}a.py\n{}b.py\n{}c.py\n{}a.py\n{}",
            b("1"),
            b("2"),
            b("3"),
            b("4"),
            b("5")
        );
        let got = parse_path_blocks(&t).unwrap();
        let names: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["b.py", "a.py", "c.py"]);
        let olds = |i: usize| got[i].1.iter().map(|e| e.old.clone()).collect::<Vec<_>>();
        assert_eq!(olds(0), ["1\n", "3\n"]);
        assert_eq!(olds(1), ["2\n", "5\n"]);
        assert_eq!(olds(2), ["4\n"]);
    }

    #[test]
    fn path_blocks_report_block_errors() {
        assert_eq!(perr("a.py\n<<<<<<< SEARCH\nx\n").line, 2);
        assert_eq!(perr("nothing here").line, 1);
    }

    #[test]
    fn crlf_paths() {
        let t = "`a.py`\r\n<<<<<<< SEARCH\r\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r\n";
        assert_eq!(
            parse_path_blocks(t).unwrap(),
            vec![("a.py".to_string(), vec![e("x\n", "y\n")])]
        );
    }

    #[test]
    fn large_input() {
        let mut t = String::new();
        let mut blocks = 0;
        while t.len() < 2_000_000 {
            t.push_str(&format!(
                "src/file{}.py\n```python\n<<<<<<< SEARCH\ndef f{blocks}():\n    return 1\n=======\n\
                 def f{blocks}():\n    return 2\n>>>>>>> REPLACE\n```\n\n",
                blocks % 100
            ));
            blocks += 1;
        }
        assert_eq!(parse_blocks(&t).unwrap().len(), blocks);
        let grouped = parse_path_blocks(&t).unwrap();
        assert_eq!(grouped.len(), 100);
        assert_eq!(grouped.iter().map(|g| g.1.len()).sum::<usize>(), blocks);
    }
}
