//! SEARCH/REPLACE blocks, the edit format popularised by aider.
//!
//! # Grammar
//!
//! Lines are split as described in [`crate::edit::formats`] (LF or CRLF; terminators are not part of a line).
//!
//! ```text
//! input          = { other-line | block } ;
//! block          = search-marker , { body-line } ,      (* the search body  *)
//!                  divider ,       { body-line } ,      (* the replace body *)
//!                  replace-marker ;
//! search-marker  = run("<") , [ " " ] , "SEARCH" , [ ">" ] , { ws } , EOL
//!                | run("-") , " " , "SEARCH" , { ws } , EOL ;            (* ------- SEARCH *)
//! divider        = run("=") , { ws } , EOL ;
//! replace-marker = run(">") , [ " " ] , "REPLACE" , [ ">" ] , { ws } , EOL
//!                | run("+") , " " , "REPLACE" , { ws } , EOL ;           (* +++++++ REPLACE *)
//! run(c)         = 3 or more times c ;                  (* canonical: 7, with the space *)
//! body-line      = any line that is not a block marker (see "Dividers") ;
//! other-line     = any line that is not a search or replace marker ;
//!
//! (* parse_path_blocks only *)
//! path-input     = { gap , block } , { other-line } ;
//! gap            = { other-line } ;      (* the lines after the previous block, or from the start *)
//! path-line      = { ws } , path-token , [ ":" ] , { ws } ;
//! path-token     = path | "`" , path , "`" | "**" , path , "**" | "**`" , path , "`**" ;
//! path           = one or more non-whitespace characters, the first not '`' '*' '#' '>' '<' '=',
//!                  the last not '`' '*' ':' '.' or ',' ;
//! fence-line     = { ws } , "```" , [ info ] ;          (* info: `py`, `py:path`, `py path`, `path` *)
//! blank-line     = { ws } ;
//! ```
//!
//! # Markers
//!
//! A marker line starts in column 0 and holds nothing else but optional trailing whitespace. Models
//! write the markers with runs of 3 characters or more (`<<< SEARCH`, `=====`,
//! `<<<<<<<<<<< SEARCH`, `==========`, `>>>>>>>>>>> REPLACE`), with `-------`/`+++++++` runs, or with
//! a `>` after the word (`<<<<<<< SEARCH>`); all are read, and any spelling other than the canonical
//! one is noted ([`Dialect::MarkerVariant`]). Still content: runs of 1 or 2, indented markers, a
//! marker followed by another word (`<<<<<<< SEARCH foo`), git conflict markers (`<<<<<<< HEAD`,
//! `>>>>>>> feature`), and a run of `=` of 10 or more inside a block opened by a search marker of
//! 3 to 9 (see "Dividers"). A `=======` outside a block is prose (a heading rule).
//!
//! # Dividers
//!
//! A block ends at the first replace marker after its search marker; its divider is one of the
//! divider lines between the two, chosen by this rule, so that files holding git conflict markers
//! (or underlines of `=`) stay editable:
//!
//! 1. A divider line inside a git conflict region of the block's text — after a line
//!    `<<<<<<< <label>` and before its `>>>>>>> <label>` — is content, not a divider; so is a run of
//!    10 or more `=` in a block whose search marker's run is shorter than 10 (a file's underline:
//!    such runs were never dividers there), while under a search marker of 10 or more every run
//!    counts.
//! 2. Of the divider lines left, a single one is the divider.
//! 3. Of several, the single one whose run is as long as the search marker's run is the divider
//!    (a model writes its own markers alike; a file's `=====` underline rarely matches); under a
//!    search marker of 10 or more, else the single one of 10 or more.
//! 4. Otherwise where the search text ends is unclear, and the block is refused (a `PARSE_ERROR`
//!    naming the lines): split the edit so the file's `=======` line is not inside it.
//!
//! # Bodies
//!
//! The search body becomes [`Edit::old`] and the replace body [`Edit::new`]: the body lines joined
//! with LF, each terminated by LF, so a non-empty body ends with `"\n"` and an empty body is `""`.
//! An empty replace body deletes the searched text. An empty search body is passed through as
//! `old == ""`; what that means (creating or filling a file, refusing) is decided by the layer that
//! applies it. Inside a body every line is content, including lines that look like markdown fences
//! or paths. [`Edit::expected_replacements`] is always `None`.
//!
//! A text whose line holding the first `SEARCH` and everything after hold no real line break but
//! literal `\n` escapes is unescaped once before parsing ([`Dialect::Unescaped`]).
//!
//! # Paths ([`parse_path_blocks`])
//!
//! Each block's path is taken from its *gap*: the lines between the end of the previous block (or
//! the start of the input) and its search marker, searched upwards from the block:
//!
//! - blank lines are skipped; a fence line whose info string names a path (```` ```py:src/x.py ````,
//!   ```` ```js src/x.js ````, ```` ```src/x.py ````) gives that path; other fence lines are skipped;
//! - a path-line gives its path (backticks, bold and a trailing `:` removed: `**src/x.py**:`; also
//!   after a markdown heading marker, `### src/x.py`, or a label, `File:` / `Path:`); a
//!   bare word with no `.` or `/` (`Makefile`) counts only as the nearest line above the block, and
//!   `Then:` is prose;
//! - any other line is prose and is passed over.
//!
//! A gap that names no path gives the block the path of the previous block: models write several
//! blocks for one file under one path line, with prose between them. The first block has no
//! previous path, so for it this is an error (pass `file_path` to `applyBlocks` instead). Whether
//! the block's text belongs to that file is then for its content to prove: a block whose SEARCH text
//! is not in the file is refused.
//!
//! Paths are returned as written otherwise (no normalisation). Paths that contain whitespace can not
//! be written in this format. The result holds one entry per distinct path, in order of first
//! appearance; the blocks of one path keep their input order.
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
//! | a replace marker outside a block (stray) | that line |
//! | a block with no divider line before its replace marker | the replace marker |
//! | a search marker before the block's replace marker (nested, or not closed) | the inner marker |
//! | several divider lines the rule above can not tell apart | the second divider |
//! | end of input before the block's replace marker (a truncated reply: the message names the block) | the block's search marker |
//! | ([`parse_path_blocks`]) no path for the first block | the block's search marker |

use std::collections::HashMap;

use super::{join_lines, split_lines, unescape_one_line};
use crate::edit::ir::{Dialect, Edit, ParseError, Parsed};

const SEARCH: &str = "<<<<<<< SEARCH";
const DIVIDER: &str = "=======";
const REPLACE: &str = ">>>>>>> REPLACE";

/// Marker runs from this length on are long (see "Dividers").
const LONG_RUN: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Search,
    Divider,
    Replace,
}

/// A marker line: which marker, the length of its run of marker characters, and whether it is
/// spelled otherwise than the canonical seven characters and word (see "Markers").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MarkerLine {
    kind: Marker,
    run: usize,
    variant: bool,
}

fn marker(line: &str) -> Option<MarkerLine> {
    let t = line.trim_end();
    let first = *t.as_bytes().first()?;
    let run = t.bytes().take_while(|&b| b == first).count();
    if run < 3 {
        return None;
    }
    let rest = &t[run..];
    let (kind, word) = match first {
        b'=' if rest.is_empty() => {
            return Some(MarkerLine {
                kind: Marker::Divider,
                run,
                variant: run != 7,
            })
        }
        b'<' | b'-' => (Marker::Search, "SEARCH"),
        b'>' | b'+' => (Marker::Replace, "REPLACE"),
        _ => return None,
    };
    let spaced = rest.strip_prefix(' ');
    let word_rest = spaced.unwrap_or(rest).strip_prefix(word)?;
    // `-` and `+` runs need the space (`------- SEARCH`); a trailing `>` is a known slip.
    if matches!(first, b'-' | b'+') && spaced.is_none() {
        return None;
    }
    let gt = match word_rest {
        "" => false,
        ">" => true,
        _ => return None,
    };
    let canonical = matches!(first, b'<' | b'>') && run == 7 && spaced.is_some() && !gt;
    Some(MarkerLine {
        kind,
        run,
        variant: !canonical,
    })
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
    parse_blocks_dialect(text).map(|(edits, _)| edits)
}

/// [`parse_blocks`], also reporting the liberties taken with the markers.
pub fn parse_blocks_dialect(text: &str) -> Result<(Vec<Edit>, Vec<Dialect>), ParseError> {
    with_blocks(text, |_, blocks, _| {
        Ok(blocks.into_iter().map(|b| b.edit).collect())
    })
}

/// Blocks grouped by the path they name, in order of first appearance.
pub type PathBlocks = Vec<(String, Vec<Edit>)>;

/// Parses every SEARCH/REPLACE block in `text` with the file path written before it, grouped by path
/// in order of first appearance.
pub fn parse_path_blocks(text: &str) -> Result<PathBlocks, ParseError> {
    parse_path_blocks_dialect(text).map(|(groups, _)| groups)
}

/// [`parse_path_blocks`], also reporting the liberties taken with the markers and paths.
pub fn parse_path_blocks_dialect(text: &str) -> Result<(PathBlocks, Vec<Dialect>), ParseError> {
    with_blocks(text, path_blocks)
}

/// Splits `text` into lines (unescaped once when it came on one line with literal `\n` escapes),
/// scans its blocks, and hands both to `then`; returns its result and the liberties taken. Error
/// lines of an unescaped text are its one escaped input line.
fn with_blocks<T>(
    text: &str,
    then: impl FnOnce(&[&str], Vec<Block>, &mut Parsed) -> Result<T, ParseError>,
) -> Result<(T, Vec<Dialect>), ParseError> {
    let unescaped = unescape_one_line(text, "SEARCH");
    let at = unescaped.as_ref().map(|u| u.1);
    let lines = split_lines(unescaped.as_ref().map_or(text, |u| u.0.as_str()));
    let mut notes = Parsed::default();
    if at.is_some() {
        notes.note(Dialect::Unescaped);
    }
    let out = scan(&lines, &mut notes).and_then(|blocks| then(&lines, blocks, &mut notes));
    match out {
        Ok(v) => Ok((v, notes.dialect)),
        Err(mut e) => {
            if let Some(at) = at {
                e.line = e.line.min(at);
            }
            Err(e)
        }
    }
}

fn path_blocks(
    lines: &[&str],
    blocks: Vec<Block>,
    notes: &mut Parsed,
) -> Result<PathBlocks, ParseError> {
    let mut out: Vec<(String, Vec<Edit>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut prev_end: Option<usize> = None;
    let mut prev_path: Option<String> = None;
    for (k, block) in blocks.into_iter().enumerate() {
        let gap_start = prev_end.map_or(0, |e| e + 1);
        let path = match path_in_gap(&lines[gap_start..block.start]) {
            Some((p, decorated)) => {
                if decorated {
                    notes.note(Dialect::PathDecorated);
                }
                p
            }
            None => prev_path.clone().ok_or_else(|| {
                ParseError::new(
                    block.start + 1,
                    format!(
                        "block {} has no file path: expected the path on its own line above its \
                         `{SEARCH}` line (or pass file_path)",
                        k + 1
                    ),
                )
            })?,
        };
        match index.get(&path) {
            Some(&i) => out[i].1.push(block.edit),
            None => {
                index.insert(path.clone(), out.len());
                out.push((path.clone(), vec![block.edit]));
            }
        }
        prev_end = Some(block.end);
        prev_path = Some(path);
    }
    Ok(out)
}

/// The path named in the lines above a block (`gap`: since the previous block), searching upwards:
/// the nearest fence line whose info string names a path (```` ```py:src/x.py ````, ```` ```js src/x.js ````),
/// or path-line (see "Paths"). A bare word with no `.` or `/` counts only as the nearest line.
/// `None` when the gap names none (the block then belongs to the previous block's path). Also
/// says whether the path was decorated (backticks, bold, a trailing `:`).
fn path_in_gap(gap: &[&str]) -> Option<(String, bool)> {
    let mut nearest = true;
    for line in gap.iter().rev() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(info) = t.strip_prefix("```") {
            let info = info.trim();
            let named = info
                .split_once(':')
                .map(|(_, p)| p)
                .or_else(|| info.split_once(char::is_whitespace).map(|(_, p)| p))
                .or_else(|| info.contains(['.', '/']).then_some(info));
            if let Some((p, _)) = named.and_then(path_of) {
                return Some((p.to_string(), true));
            }
            continue;
        }
        if let Some((p, decorated)) = path_of(t) {
            if nearest || p.contains(['.', '/']) {
                return Some((p.to_string(), decorated));
            }
        }
        nearest = false;
    }
    None
}

/// File names without an extension that projects conventionally use: a line `Makefile:` above a
/// block names that file, where `Changes:` is prose.
const EXTENSIONLESS: [&str; 14] = [
    "Makefile",
    "makefile",
    "GNUmakefile",
    "Dockerfile",
    "Containerfile",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "Vagrantfile",
    "Jenkinsfile",
    "Justfile",
    "justfile",
    "Brewfile",
    "CODEOWNERS",
];

/// The path a path-line names, and whether it was decorated; `None` when the line is prose.
fn path_of(line: &str) -> Option<(&str, bool)> {
    let mut s = line.trim();
    let mut decorated = false;
    // A markdown heading (`### src/x.py`) and a label (`File: src/x.py`, `**Path:** src/x.py`).
    let unheaded = s.trim_start_matches('#');
    if unheaded.len() < s.len() && unheaded.starts_with(' ') {
        s = unheaded.trim();
        decorated = true;
    }
    for label in [
        "file:",
        "filename:",
        "path:",
        "file path:",
        "**file:**",
        "**filename:**",
        "**path:**",
    ] {
        if s.len() > label.len()
            && s.is_char_boundary(label.len())
            && s[..label.len()].eq_ignore_ascii_case(label)
        {
            s = s[label.len()..].trim();
            decorated = true;
            break;
        }
    }
    for (open, close) in [("**", "**"), ("`", "`"), ("**", "**")] {
        if let Some(inner) = s.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
            s = inner.trim();
            decorated = true;
        }
    }
    if let Some(inner) = s.strip_suffix(':') {
        // `src/x.py:` names a file, and so does a conventional file name without an extension
        // (`Makefile:`); `Then:` is prose.
        if !inner.contains(['.', '/']) && !EXTENSIONLESS.contains(&inner.trim_matches(['`', '*'])) {
            return None;
        }
        s = inner;
        decorated = true;
        for (open, close) in [("**", "**"), ("`", "`")] {
            if let Some(inner) = s.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
                s = inner.trim();
            }
        }
    }
    let prose = s.is_empty()
        || s.chars().any(char::is_whitespace)
        || s.ends_with([':', '.', ','])
        || s.starts_with(['`', '*', '#', '>', '<', '='])
        || s.ends_with(['`', '*']);
    (!prose).then_some((s, decorated))
}

/// Whether `line` is a git conflict marker that opens (`<<<<<<< label`) or closes
/// (`>>>>>>> label`) a conflict region: `Some(true)` opens, `Some(false)` closes.
fn conflict_edge(line: &str) -> Option<bool> {
    if marker(line).is_some() {
        return None;
    }
    let open = line
        .strip_prefix("<<<<<<<")
        .is_some_and(|r| r.is_empty() || r.starts_with(' '));
    let close = line
        .strip_prefix(">>>>>>>")
        .is_some_and(|r| r.is_empty() || r.starts_with(' '));
    if open {
        Some(true)
    } else if close {
        Some(false)
    } else {
        None
    }
}

/// Picks a block's divider among the divider lines between its markers (see "Dividers").
fn pick_divider(
    lines: &[&str],
    start: usize,
    end: usize,
    search_run: usize,
    k: usize,
) -> Result<usize, ParseError> {
    let mut depth = 0usize;
    let mut outside = Vec::new();
    for (i, line) in lines.iter().enumerate().take(end).skip(start + 1) {
        match conflict_edge(line) {
            Some(true) => depth += 1,
            Some(false) => depth = depth.saturating_sub(1),
            None => {}
        }
        if depth == 0 {
            // A long `=` run (10 and more) divides only a block opened by a long marker: under a
            // marker of the usual lengths it is the file's (an underline), as it always was.
            if let Some(m) = marker(line).filter(|m| {
                m.kind == Marker::Divider && (m.run < LONG_RUN || search_run >= LONG_RUN)
            }) {
                outside.push((i, m.run));
            }
        }
    }
    let same: Vec<usize> = outside
        .iter()
        .filter(|&&(_, run)| run == search_run)
        .map(|&(i, _)| i)
        .collect();
    let pick = match (outside.len(), same.len()) {
        (0, _) => {
            return Err(ParseError::new(
                end + 1,
                format!(
                    "block {k} (opened at line {}) has no `{DIVIDER}` line before its closing \
                     marker; expected SEARCH text, `{DIVIDER}`, REPLACE text",
                    start + 1
                ),
            ))
        }
        (1, _) => outside[0].0,
        (_, 1) => same[0],
        // Under a long search marker, the one long divider among short `=======` lines of the file.
        _ if search_run >= LONG_RUN && outside.iter().filter(|d| d.1 >= LONG_RUN).count() == 1 => {
            outside.iter().find(|d| d.1 >= LONG_RUN).map_or(0, |d| d.0)
        }
        _ => {
            let at: Vec<String> = outside.iter().map(|(i, _)| (i + 1).to_string()).collect();
            return Err(ParseError::new(
                outside[1].0 + 1,
                format!(
                    "block {k} (opened at line {}) has several divider lines (lines {}), so where \
                     its SEARCH text ends is unclear; split it so that a `{DIVIDER}` line of the \
                     file is not inside the SEARCH or REPLACE text, or edit that part with an \
                     other format",
                    start + 1,
                    at.join(", ")
                ),
            ));
        }
    };
    Ok(pick)
}

fn scan(lines: &[&str], notes: &mut Parsed) -> Result<Vec<Block>, ParseError> {
    let n = lines.len();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < n {
        let Some(m) = marker(lines[i]) else {
            i += 1;
            continue;
        };
        match m.kind {
            // A divider outside a block is content of the surrounding prose (a rule, a heading
            // underline): only the block markers open and close blocks.
            Marker::Divider => i += 1,
            Marker::Replace => {
                return Err(ParseError::new(
                    i + 1,
                    format!(
                        "stray `{REPLACE}` outside a block; expected `{SEARCH}` and `{DIVIDER}` before it"
                    ),
                ))
            }
            Marker::Search => {
                let start = i;
                let k = blocks.len() + 1;
                let mut j = i + 1;
                let end = loop {
                    if j == n {
                        return Err(ParseError::new(
                            start + 1,
                            format!(
                                "block {k} (opened at line {}) is cut off: the text ends before its \
                                 `{REPLACE}` line, so the reply was probably truncated; nothing \
                                 was applied. Resend the whole block",
                                start + 1
                            ),
                        ));
                    }
                    match marker(lines[j]).map(|m| (m.kind, m)) {
                        Some((Marker::Replace, r)) => {
                            if r.variant {
                                notes.note(Dialect::MarkerVariant);
                            }
                            break j;
                        }
                        Some((Marker::Search, _)) => {
                            return Err(ParseError::new(
                                j + 1,
                                format!(
                                    "block {k} (opened at line {}) is not closed: expected \
                                     `{REPLACE}` before another `{SEARCH}`",
                                    start + 1
                                ),
                            ))
                        }
                        _ => j += 1,
                    }
                };
                let divider = pick_divider(lines, start, end, m.run, k)?;
                if m.variant || marker(lines[divider]).is_some_and(|d| d.variant) {
                    notes.note(Dialect::MarkerVariant);
                }
                blocks.push(Block {
                    start,
                    end,
                    edit: Edit::new(
                        join_lines(&lines[start + 1..divider]),
                        join_lines(&lines[divider + 1..end]),
                    ),
                });
                i = end + 1;
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
        // Indented markers, markers with other words, and under a marker of the usual length a
        // run of 10 or more `=` (a file's underline) are content.
        let t = "<<<<<<< SEARCH\n  <<<<<<<<<< SEARCH\n  =======\n<<<<<<<< SEARCH foo\n==========\n\
                 =======\n >>>>>>>>>> REPLACE\n  ======= \n>>>>>>> REPLACE foo\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e(
                "  <<<<<<<<<< SEARCH\n  =======\n<<<<<<<< SEARCH foo\n==========\n",
                " >>>>>>>>>> REPLACE\n  ======= \n>>>>>>> REPLACE foo\n"
            )]
        );
    }

    #[test]
    fn long_markers_are_markers() {
        // As agents write them: runs of 10 and more, the divider as long or not.
        for (s, d, r) in [
            ("<<<<<<<<<<< SEARCH", "==========", ">>>>>>>>>>> REPLACE"),
            ("<<<<<<<<<< SEARCH", "==========", ">>>>>>>>>> REPLACE"),
            ("<<<<<<<<<<<<<<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"),
            ("<<<<<<<<<<< SEARCH", "===========", ">>>>>>> REPLACE"),
        ] {
            let t = format!("{s}\nold\n{d}\nnew\n{r}\n");
            let (edits, dialect) = parse_blocks_dialect(&t).unwrap();
            assert_eq!(edits, vec![e("old\n", "new\n")], "{t}");
            assert_eq!(dialect, vec![Dialect::MarkerVariant], "{t}");
        }
        // A file's `=======` (git conflict resolved badly, or a rule) inside a long-marker block:
        // the one long divider is the divider.
        let t =
            "<<<<<<<<<<< SEARCH\nx\n=======\ny\n==========\nx\n=======\nz\n>>>>>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("x\n=======\ny\n", "x\n=======\nz\n")]
        );
        // A whole git conflict inside a long-marker block is content.
        let t = "<<<<<<<<<< SEARCH\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n==========\na\n>>>>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n", "a\n")]
        );
        // Two long dividers and a long marker: where SEARCH ends is unclear, so it is refused.
        let t = "<<<<<<<<<<< SEARCH\nTitle\n==========\n==========\nT\n>>>>>>>>>>> REPLACE\n";
        assert!(parse_blocks(t).is_err());
        // Under a usual marker, a long `=` run is content: a block with only that one has no
        // divider (it is never split at the file's underline).
        let t = "<<<<<<< SEARCH\nTitle\n==========\nbody\n>>>>>>> REPLACE\n";
        let err = parse_blocks(t).unwrap_err();
        assert!(err.message.contains("no `=======` line"), "{err}");
    }

    #[test]
    fn marker_variants() {
        for (s, d, r) in [
            ("<<< SEARCH", "===", ">>> REPLACE"),
            ("<<<<<<<<< SEARCH", "=========", ">>>>>>>>> REPLACE"),
            ("<<<<< SEARCH", "====", ">>>>>>> REPLACE"),
            ("------- SEARCH", "=======", "+++++++ REPLACE"),
            ("<<<<<<< SEARCH>", "=======", ">>>>>>> REPLACE>"),
            ("<<<<<<<SEARCH", "=======", ">>>>>>>REPLACE"),
        ] {
            let t = format!("{s}\nold\n{d}\nnew\n{r}\n");
            let (edits, dialect) = parse_blocks_dialect(&t).unwrap();
            assert_eq!(edits, vec![e("old\n", "new\n")], "{t}");
            assert_eq!(dialect, vec![Dialect::MarkerVariant], "{t}");
        }
        let (_, dialect) = parse_blocks_dialect(ONE).unwrap();
        assert!(dialect.is_empty());
        // Not markers: a `-`/`+` run glued to its word, another word, a run of 2 or 10.
        for t in [
            "-------SEARCH\nold\n=======\nnew\n+++++++REPLACE\n",
            "<< SEARCH\nold\n==\nnew\n>> REPLACE\n",
        ] {
            assert!(parse_blocks(t).is_err(), "{t}");
        }
    }

    #[test]
    fn git_conflict_markers_inside_a_block_are_content() {
        // The file holds a conflict; its `=======` lies between `<<<<<<< HEAD` and `>>>>>>> x`.
        let t = "<<<<<<< SEARCH\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> feature\n=======\na\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> feature\n", "a\n")]
        );
        // Two dividers outside any conflict: the one as long as the SEARCH marker's run wins.
        let t = "<<<<<<< SEARCH\nTitle\n=====\n=======\nTitle 2\n=====\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_blocks(t).unwrap(),
            vec![e("Title\n=====\n", "Title 2\n=====\n")]
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
        assert!(er.message.contains("has no `=======` line"), "{er}");
    }

    #[test]
    fn search_without_divider_at_eof() {
        let er = err("x\n<<<<<<< SEARCH\nold\nnew\n");
        assert_eq!(er.line, 2);
        assert!(er.message.contains("is cut off"), "{er}");
    }

    #[test]
    fn divider_without_replace_at_eof() {
        let er = err("<<<<<<< SEARCH\nold\n=======\nnew\n");
        assert_eq!(er.line, 1);
        assert!(
            er.message.contains("block 1 (opened at line 1) is cut off"),
            "{er}"
        );
        assert!(er.message.contains("truncated"), "{er}");
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
        assert!(
            er.message.contains("several divider lines (lines 3, 5)"),
            "{er}"
        );
    }

    #[test]
    fn stray_replace() {
        let er = err(&format!("{ONE}>>>>>>> REPLACE\n"));
        assert_eq!(er.line, 6);
        assert!(er.message.contains("stray"), "{er}");
    }

    #[test]
    fn a_divider_outside_blocks_is_prose() {
        let er = err("Title\n=======\n");
        assert_eq!(er.line, 1);
        assert!(er.message.contains("no SEARCH/REPLACE block"), "{er}");
        assert_eq!(
            parse_blocks(&format!("Title\n=======\n{ONE}"))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn nested_search() {
        let er = err("<<<<<<< SEARCH\na\n<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE\n");
        assert_eq!(er.line, 3);
        assert!(er.message.contains("is not closed"), "{er}");
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
            "Then:",
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
            assert!(er.message.contains("no file path"), "{line}: {er}");
        }
    }

    #[test]
    fn decorated_paths_and_paths_in_fences() {
        for (gap, want) in [
            ("src/app.py:\n", "src/app.py"),
            ("**src/app.py**\n", "src/app.py"),
            ("`src/app.py`:\n", "src/app.py"),
            ("```python:src/app.py\n", "src/app.py"),
            ("```js src/app.py\n", "src/app.py"),
            ("```src/app.py\n", "src/app.py"),
            ("```python\nsrc/app.py\n", "src/app.py"),
            ("src/app.py\n```python\n", "src/app.py"),
            ("### src/app.py\n", "src/app.py"),
            ("## `src/app.py`\n", "src/app.py"),
            ("File: src/app.py\n", "src/app.py"),
            ("**File:** `src/app.py`\n", "src/app.py"),
            ("Path: src/app.py\n", "src/app.py"),
        ] {
            let groups = parse_path_blocks(&format!("{gap}{ONE}```\n")).unwrap();
            assert_eq!(groups[0].0, want, "{gap}");
        }
    }

    #[test]
    fn a_path_above_prose_counts() {
        let groups = parse_path_blocks(&format!("src/a.py\nChange retries:\n{ONE}")).unwrap();
        assert_eq!(groups[0].0, "src/a.py");
        // A bare word counts only as the nearest line.
        let er = perr(&format!("Makefile\nChange retries:\n{ONE}"));
        assert!(er.message.contains("no file path"), "{er}");
        let groups = parse_path_blocks(&format!("Makefile\n{ONE}")).unwrap();
        assert_eq!(groups[0].0, "Makefile");
    }

    #[test]
    fn first_block_without_path() {
        let er = perr(ONE);
        assert_eq!(er.line, 1);
        assert!(er.message.contains("block 1 has no file path"), "{er}");
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
    fn later_block_after_prose_keeps_the_last_path() {
        let t = format!("a.py\n{ONE}Then the tests:\nAnd one more change below.\n{ONE}");
        let groups = parse_path_blocks(&t).unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].0, "a.py");
        assert_eq!(groups[0].1.len(), 2);
        // A path named above the prose is the block's path.
        let t = format!("a.py\n{ONE}b/c.py\nNow the helper:\n{ONE}");
        let groups = parse_path_blocks(&t).unwrap();
        assert_eq!(groups[1].0, "b/c.py");
    }

    /// Found by the ground-truth fuzzer (issue #25, G9): `Makefile:` above the second block named
    /// the root Makefile, but as a bare word with a colon it read as prose, and the block went to
    /// the previous block's `sub/Makefile`.
    #[test]
    fn a_conventional_file_name_with_a_colon_names_its_file() {
        let t = format!(
            "sub/Makefile:\n```sub/Makefile\n{ONE}```\n\nMakefile:\n```Makefile\n{ONE}```\n"
        );
        let groups = parse_path_blocks(&t).unwrap();
        let paths: Vec<&str> = groups.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(paths, ["sub/Makefile", "Makefile"]);
        // Prose with a colon is still prose, and the block keeps the previous path.
        let t = format!("a.py\n{ONE}Changes:\n{ONE}");
        assert_eq!(parse_path_blocks(&t).unwrap().len(), 1);
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
