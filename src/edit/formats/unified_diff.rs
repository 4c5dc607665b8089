//! Unified diffs: plain (`diff -u`) and git (`git diff`, `git format-patch`).
//!
//! # Grammar
//!
//! Lines are split as described in [`crate::edit::formats`] (LF or CRLF; terminators are not part of a line).
//!
//! ```text
//! diff          = { other-line | file } ;                 (* at least one file *)
//! file          = git-file | plain-file ;
//! git-file      = "diff --git " , git-paths , EOL ,
//!                 { extended-header } ,
//!                 [ file-headers , hunk , { hunk | other-line } ] ;
//! plain-file    = file-headers , hunk , { hunk | other-line } ;
//! headerless    = hunk , { hunk | other-line } ;     (* before any header: the caller's file *)
//! file-headers  = "---" , [ " " ] , header-path , [ TAB , { any } ] , EOL ,  (* e.g. a timestamp *)
//!                 "+++" , [ " " ] , header-path , [ TAB , { any } ] , EOL ;
//! header-path   = "/dev/null" | path | c-quoted-path ;
//! extended-header = "index " ... | "old mode " ... | "new mode " ...
//!                 | "new file mode " ... | "deleted file mode " ...
//!                 | "similarity index " ... | "dissimilarity index " ...
//!                 | "rename from " , path | "rename to " , path ;
//! hunk          = hunk-header , body ;
//! hunk-header   = "@@ -" , range , " +" , range , " @@" , [ " " , section ]
//!               | "@@" , { any } ;                     (* no (usable) numbers: counts from the body *)
//! range         = line-number , [ "," , count ] ;                    (* count defaults to 1 *)
//! body          = { body-line | no-eol-marker } ;   (* as the counts say, else to the next header *)
//! body-line     = " " , text      (* context: one old and one new line *)
//!               | "-" , text      (* remove:  one old line *)
//!               | "+" , text      (* add:     one new line *)
//!               | "" ;            (* a completely empty line: empty context *)
//!               | other , text ;  (* inside a body: context that lost its " " *)
//! no-eol-marker = "\" , { any } ;                                    (* "\ No newline at end of file" *)
//! other-line    = any line that starts none of the above ;
//! ```
//!
//! # Files
//!
//! A file section starts at `diff --git` or at a `--- ` line directly followed by a `+++ ` line, and
//! ends where the next one starts. Within a `diff --git` section the extended headers are read until
//! the `--- `/`+++ ` pair; unknown extended headers are skipped. `copy from`/`copy to`, `Binary files
//! … differ` and `GIT binary patch` are refused (this engine edits text and does not copy).
//!
//! Header paths: everything after `--- ` / `+++ ` up to the first TAB (what follows a TAB, usually a
//! timestamp, is ignored), trailing whitespace removed. A path in double quotes is unquoted with C
//! escapes (`\\`, `\"`, `\t`, `\n`, `\r`, `\a`, `\b`, `\f`, `\v`, octal `\NNN` bytes), as git writes
//! unusual names. The `a/` prefix of the old path and the `b/` prefix of the new path are removed
//! when *both* sides carry their prefix (a `/dev/null` side counts as carrying it); a `--no-prefix`
//! diff keeps its paths as written. Paths are returned as written otherwise (no normalisation).
//!
//! Each section becomes at most one [`FileOp`], in input order:
//!
//! - `--- /dev/null` → [`FileOp::Add`]: the `+` lines of its hunks, each terminated by LF, except the
//!   last when `\ No newline at end of file` follows it. Its hunks may hold only `+` lines.
//! - `+++ /dev/null` → [`FileOp::Delete`] of the old path. Its hunks may hold only `-` lines (they are
//!   checked, then dropped).
//! - otherwise → [`FileOp::Update`] with [`Change::Hunks`]. With git `rename from`/`rename to`
//!   headers, `path` is the rename source and `move_to` its target. Without them `path` is the new
//!   name, and [`Parsed::alternatives`] lists the other spellings to try, in order, when it names no
//!   file: each name without a ` (label)` suffix, without a `.orig`/`.rej`/`.bak`/`.old`/`.new`
//!   suffix, and each of those without its first directory (`old/x`, `a/x` → `x`, as `patch -p1`
//!   reads them), the new name's spellings first. The caller picks the first that names an existing
//!   file, else its own `file_path` ([`Dialect::HeaderVariant`], [`Dialect::PathFallback`]).
//! - Hunks before any file header → an Update with an empty `path`: the caller names the file
//!   (so only the first operation can have an empty path). A `diff --git` section whose
//!   `---`/`+++` lines are missing takes its names from the `diff --git` line; when they can not
//!   be read, its hunks are an error (they are not the caller's file).
//! - A git section without `---`/`+++`: `new file mode` → an empty [`FileOp::Add`] (of the `b/`
//!   path of the `diff --git` line); `deleted file mode` → [`FileOp::Delete`]; a rename → a pure
//!   move, `Update { move_to, change: Hunks(vec![]) }`; a mode change alone → no operation.
//! - Every path (and rename target) may be named by one section only; a second section on a path is
//!   an error. A diff of only mode changes parses to an empty list.
//!
//! # Hunks
//!
//! `@@ -l,c +l',c' @@` gives [`Hunk::line_hint`] = `Some(l)`; when `c` is 0 (a pure insertion,
//! which unified diffs number by the line *before* it), the hint is `l + 1`, the line the insertion
//! lands on. The section text after the second `@@` is ignored: it is a heading git guessed, not a
//! constraint, and the IR has no place for a non-binding hint. [`Hunk::source_line`] is the line of
//! the `@@` header; `anchors` and `at_eof` are never set.
//!
//! When the header has usable numbers and the body fits them (below), the body is read by counting.
//! Otherwise — `@@`, `@@ @@`, `@@ ... @@`, a malformed range, or counts the body contradicts — the
//! counts are recomputed from the body ([`Dialect::HunkCounts`]): it runs to the next hunk header,
//! file header or `diff --git` line; the empty and unprefixed lines that trail its last ` `/`-`/`+`
//! line are not part of it (separators, prose), and the line numbers stay a hint.
//!
//! Counted, the body ends when `c` old lines (context + remove) and `c'` new lines
//! (context + add) have been read, or earlier at a line that is no body line or at a file header
//! (a `--- ` line, a `+++ ` line and a `@@ -` line in a row; a diff of a diff whose body holds
//! exactly that sequence can not be expressed). A `\` line sets [`Hunk::old_no_eol`] when the line before it was
//! a `-` line, [`Hunk::new_no_eol`] when it was a `+` line, and both when it was context; it does not
//! count. A completely empty line is an empty context line (editors strip the single space).
//!
//! Count checks:
//!
//! - A body of at least one line that ends early **exactly one context line short** — one old and
//!   one new line missing — is accepted as it is: that is the empty last context line that editors
//!   and chat interfaces strip. The missing line is not invented; the hunk simply matches without it.
//! - Any other shortfall, a body line that does not fit the remaining counts (e.g. a `+` line when
//!   all new lines are read), or a ` `, `-` or `+` line *directly* after a complete body means the
//!   counts and the body disagree: the body is read again without counts. Not counted as such a
//!   line: a `--- `/`+++ ` header pair, and the `-- ` signature separator `git format-patch` writes
//!   after the last hunk. A blank line after a complete body ends the hunk; whatever follows it is
//!   read afresh.
//! - While counted lines remain, a line with no ` `/`-`/`+` prefix is a context line that lost its
//!   space ([`Dialect::ContextPrefixMissing`]; see [`Hunk::alt_lines`] for the other reading).
//! - A hunk with no body line at all is an error.
//!
//! Lines between hunks and files that fit none of the rules (prose, `git format-patch` mail headers
//! and signatures) are ignored.
//!
//! # Errors
//!
//! Every error is a [`ParseError`] with the 1-based input line:
//!
//! | situation | line reported |
//! |---|---|
//! | no file header in the input | 1 |
//! | `--- ` not followed by `+++ `; `+++ ` without `--- ` | that line |
//! | an empty or badly quoted header path; unparsable `diff --git` paths when they are needed | that line |
//! | `copy from`/`copy to`, binary patches | that line |
//! | an empty hunk | the hunk header |
//! | a `\` line with no body line before it | that line |
//! | file headers without hunks (outside the git cases above) | the `---` line |
//! | both sides `/dev/null` | the `---` line |
//! | a new file's hunk with ` `/`-` lines, a deleted file's hunk with ` `/`+` lines | the hunk header |
//! | only one of `rename from`/`rename to` | the `diff --git` line |
//! | a second section on a path | that section's first line |

use std::collections::HashMap;

use super::{alt_reading, input_lines, shown, split_lines, unescape_one_line};
use crate::edit::ir::{Change, Dialect, FileOp, Hunk, HunkLine, ParseError, Parsed};

const DEV_NULL: &str = "/dev/null";

/// Parses a unified diff (one or several files) into file operations, in diff order.
pub fn parse_unified_diff(text: &str) -> Result<Vec<FileOp>, ParseError> {
    parse_unified_diff_dialect(text).map(|p| p.ops)
}

/// [`parse_unified_diff`], also reporting the liberties taken and, for each operation, the other
/// names its file may go by (see "Dialects"). An operation whose hunks came without any file
/// header has an empty path: the caller names the file.
pub fn parse_unified_diff_dialect(text: &str) -> Result<Parsed, ParseError> {
    let unescaped = unescape_one_line(text, "@@");
    let at = unescaped.as_ref().map(|u| u.1);
    let r = parse_lines(
        unescaped.as_ref().map_or(text, |u| u.0.as_str()),
        at.is_some(),
    );
    input_lines(r, at)
}

fn parse_lines(text: &str, unescaped: bool) -> Result<Parsed, ParseError> {
    let lines = split_lines(text);
    let n = lines.len();
    let mut out = Parsed::default();
    if unescaped {
        out.note(Dialect::Unescaped);
    }
    let mut claimed: HashMap<String, usize> = HashMap::new();
    let mut sections = 0usize;
    let mut cur: Option<Section> = None;
    let mut i = 0;
    while i < n {
        let line = lines[i];
        let no = i + 1;
        if let Some(rest) = line.strip_prefix("diff --git ") {
            finish(cur.take(), &mut out, &mut claimed)?;
            sections += 1;
            cur = Some(Section {
                line: no,
                git: true,
                git_paths: git_paths(rest),
                ..Section::default()
            });
            i += 1;
            continue;
        }
        if let Some((old_raw, new_raw)) = header_pair(&lines, i) {
            let attach = matches!(&cur, Some(s) if s.git && s.headers.is_none());
            if !attach {
                finish(cur.take(), &mut out, &mut claimed)?;
                sections += 1;
                cur = Some(Section {
                    line: no,
                    ..Section::default()
                });
            }
            if !line.starts_with("--- ") || !lines[i + 1].starts_with("+++ ") {
                out.note(Dialect::HeaderVariant);
            }
            let old = header_path(old_raw, no)?;
            let new = header_path(new_raw, no + 1)?;
            if let Some(s) = cur.as_mut() {
                s.headers = Some(Headers { old, new, line: no });
            }
            i += 2;
            continue;
        }
        if line.starts_with("--- ") {
            return Err(ParseError::new(
                no,
                format!("expected a `+++ <path>` line right after {}", shown(line)),
            ));
        }
        if line.starts_with("+++ ") {
            return Err(ParseError::new(
                no,
                format!("{} without a `--- <path>` line before it", shown(line)),
            ));
        }
        if line.starts_with("@@") {
            if let Some(s) = cur.as_mut().filter(|s| s.git && s.headers.is_none()) {
                // A `diff --git` section whose `---`/`+++` lines are missing: its own names, which
                // its hunks need (they are not the caller's file: that is only for hunks before
                // any header).
                let Some((old, new)) = s.git_paths.clone() else {
                    return Err(unreadable_git_paths(s.line));
                };
                out.note(Dialect::HeaderVariant);
                s.headers = Some(Headers {
                    old: format!("a/{old}"),
                    new: format!("b/{new}"),
                    line: s.line,
                });
            }
            if !matches!(&cur, Some(s) if s.headers.is_some() || s.headerless) {
                // Hunks with no file header at all: for the file the caller names.
                finish(cur.take(), &mut out, &mut claimed)?;
                sections += 1;
                out.note(Dialect::PathFallback);
                cur = Some(Section {
                    line: no,
                    headerless: true,
                    ..Section::default()
                });
            }
            let (hunk, next) = parse_hunk(&lines, i, &mut out)?;
            if let Some(s) = cur.as_mut() {
                s.hunks.push(hunk);
            }
            i = next;
            continue;
        }
        if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
            return Err(ParseError::new(
                no,
                "binary patches are not supported; surepatch only edits text files",
            ));
        }
        if let Some(s) = cur.as_mut() {
            if s.git && s.headers.is_none() {
                extended_header(s, line, no)?;
            }
        }
        i += 1;
    }
    finish(cur, &mut out, &mut claimed)?;
    if sections == 0 {
        return Err(ParseError::new(
            1,
            "no file header found; expected `--- a/<path>` and `+++ b/<path>` lines (or \
             `diff --git a/<path> b/<path>`) followed by `@@ -l,c +l,c @@` hunks",
        ));
    }
    Ok(out)
}

/// The texts after the markers when lines `i` and `i + 1` are a `---` / `+++` file header pair:
/// `--- <path>` / `+++ <path>`, or the same glued to the path (`---a/x`), but never a body line of
/// a hunk (`----`, `--- ` followed by anything but `+++`).
fn header_pair<'a>(lines: &[&'a str], i: usize) -> Option<(&'a str, &'a str)> {
    let old = lines[i].strip_prefix("---")?;
    let new = lines.get(i + 1)?.strip_prefix("+++")?;
    if old.starts_with(' ') && new.starts_with(' ') {
        return Some((&old[1..], &new[1..]));
    }
    let usable = |rest: &str| {
        let t = rest.trim();
        !t.is_empty() && !t.starts_with(['-', '+'])
    };
    (usable(old) && usable(new)).then(|| (old.trim_start(), new.trim_start()))
}

#[derive(Debug, Default)]
struct Headers {
    old: String,
    new: String,
    /// 1-based line of `---`.
    line: usize,
}

#[derive(Debug, Default)]
struct Section {
    /// 1-based line where the section starts.
    line: usize,
    /// Started by `diff --git`.
    git: bool,
    /// The two paths of the `diff --git` line, prefixes removed (`None` when unparsable).
    git_paths: Option<(String, String)>,
    new_file: bool,
    deleted: bool,
    rename_from: Option<String>,
    rename_to: Option<String>,
    headers: Option<Headers>,
    /// Hunks that came with no file header (the caller names the file).
    headerless: bool,
    hunks: Vec<Hunk>,
}

fn extended_header(s: &mut Section, line: &str, no: usize) -> Result<(), ParseError> {
    if line.starts_with("new file mode") {
        s.new_file = true;
    } else if line.starts_with("deleted file mode") {
        s.deleted = true;
    } else if let Some(p) = line.strip_prefix("rename from ") {
        s.rename_from = Some(unquote(p.trim_end(), no)?);
    } else if let Some(p) = line.strip_prefix("rename to ") {
        s.rename_to = Some(unquote(p.trim_end(), no)?);
    } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
        return Err(ParseError::new(
            no,
            "git copies are not supported; send the new file as `--- /dev/null` / `+++ b/<path>`",
        ));
    }
    // `index`, `old mode`, `new mode`, `similarity index`, `dissimilarity index` and anything else
    // carry nothing the IR needs.
    Ok(())
}

/// Turns a finished section into its operation (if any) and records the paths it names.
fn finish(
    section: Option<Section>,
    out: &mut Parsed,
    claimed: &mut HashMap<String, usize>,
) -> Result<(), ParseError> {
    let Some(mut s) = section else { return Ok(()) };
    let hunks = std::mem::take(&mut s.hunks);
    if s.headerless {
        out.ops.push(FileOp::Update {
            path: String::new(),
            move_to: None,
            change: Change::Hunks(hunks),
        });
        out.alternatives.push(Vec::new());
        return Ok(());
    }
    let (op, alternatives) = match &s.headers {
        None => match git_only(&s)? {
            Some(op) => (op, Vec::new()),
            None => return Ok(()),
        },
        Some(h) => with_headers(hunks, &s, h)?,
    };
    let empty_move = matches!(&op, FileOp::Update { move_to: Some(to), .. } if to.is_empty());
    if op.path().is_empty() || empty_move {
        return Err(ParseError::new(s.line, "a file header names an empty path"));
    }
    // A second section for a file an earlier section updates (neither renaming it): its hunks join
    // the earlier operation's, in order.
    if let FileOp::Update {
        path,
        move_to: None,
        change: Change::Hunks(more),
    } = &op
    {
        // Not when the later section reads as written against the earlier one's result.
        let earlier = out.ops.iter_mut().find_map(|o| match o {
            FileOp::Update {
                path: p,
                move_to: None,
                change: Change::Hunks(h),
            } if p == path && !super::builds_on(h, more) => Some(h),
            _ => None,
        });
        if let Some(h) = earlier {
            h.extend(more.iter().cloned());
            out.note(Dialect::SectionsMerged);
            return Ok(());
        }
    }
    let mut names = vec![op.path()];
    if let FileOp::Update {
        move_to: Some(to), ..
    } = &op
    {
        names.push(to);
    }
    for name in names {
        if let Some(first) = claimed.insert(name.to_string(), s.line) {
            return Err(ParseError::new(
                s.line,
                format!(
                    "`{name}` is already changed by the file section at line {first}; \
                     put all hunks of one file in one section"
                ),
            ));
        }
    }
    out.ops.push(op);
    out.alternatives.push(alternatives);
    Ok(())
}

/// A `diff --git` section with no `---`/`+++` lines.
fn git_only(s: &Section) -> Result<Option<FileOp>, ParseError> {
    if let Some((path, move_to)) = rename(s)? {
        return Ok(Some(FileOp::Update {
            path,
            move_to,
            change: Change::Hunks(Vec::new()),
        }));
    }
    if !(s.new_file || s.deleted) {
        return Ok(None);
    }
    let Some((old, new)) = &s.git_paths else {
        return Err(unreadable_git_paths(s.line));
    };
    Ok(Some(if s.new_file {
        FileOp::Add {
            path: new.clone(),
            content: String::new(),
        }
    } else {
        FileOp::Delete {
            path: old.clone(),
            expect: None,
        }
    }))
}

/// The error for a `diff --git` line at `line` whose two paths are needed but can not be read.
fn unreadable_git_paths(line: usize) -> ParseError {
    ParseError::new(
        line,
        "can not read the two paths of this `diff --git` line; quote paths that contain \
         spaces, or add `--- `/`+++ ` lines",
    )
}

/// With `rename from` and `rename to`: the Update's `path` and `move_to`.
fn rename(s: &Section) -> Result<Option<(String, Option<String>)>, ParseError> {
    match (&s.rename_from, &s.rename_to) {
        (None, None) => Ok(None),
        (Some(from), Some(to)) => Ok(Some((from.clone(), (to != from).then(|| to.clone())))),
        _ => Err(ParseError::new(
            s.line,
            "a git rename needs both `rename from <path>` and `rename to <path>`",
        )),
    }
}

fn with_headers(
    hunks: Vec<Hunk>,
    s: &Section,
    h: &Headers,
) -> Result<(FileOp, Vec<String>), ParseError> {
    if hunks.is_empty() {
        return Err(ParseError::new(
            h.line,
            "file headers without hunks; expected `@@ -l,c +l,c @@` after the `+++` line",
        ));
    }
    let old_null = h.old == DEV_NULL;
    let new_null = h.new == DEV_NULL;
    if old_null && new_null {
        return Err(ParseError::new(
            h.line,
            "both sides are /dev/null; name the file on one side",
        ));
    }
    let strip = (old_null || h.old.starts_with("a/")) && (new_null || h.new.starts_with("b/"));
    let old = if strip && !old_null {
        &h.old[2..]
    } else {
        &h.old
    };
    let new = if strip && !new_null {
        &h.new[2..]
    } else {
        &h.new
    };
    if old_null {
        let mut content = String::new();
        for hunk in &hunks {
            for l in &hunk.lines {
                match l {
                    HunkLine::Add(t) => {
                        content.push_str(t);
                        content.push('\n');
                    }
                    _ => {
                        return Err(ParseError::new(
                            hunk.source_line,
                            "a new file's hunk (`--- /dev/null`) may only add lines (`+`)",
                        ))
                    }
                }
            }
        }
        if hunks.last().is_some_and(|h| h.new_no_eol) {
            content.pop();
        }
        return Ok((
            FileOp::Add {
                path: new.to_string(),
                content,
            },
            Vec::new(),
        ));
    }
    if new_null {
        for hunk in &hunks {
            if hunk.lines.iter().any(|l| !matches!(l, HunkLine::Remove(_))) {
                return Err(ParseError::new(
                    hunk.source_line,
                    "a deleted file's hunk (`+++ /dev/null`) may only remove lines (`-`)",
                ));
            }
        }
        // What it shows is checked against the file before it is deleted.
        let mut shown = String::new();
        for hunk in &hunks {
            for l in &hunk.lines {
                if let HunkLine::Remove(t) = l {
                    shown.push_str(t);
                    shown.push('\n');
                }
            }
        }
        return Ok((
            FileOp::Delete {
                path: old.to_string(),
                expect: (!hunks.is_empty()).then_some(shown),
            },
            Vec::new(),
        ));
    }
    if let Some((path, move_to)) = rename(s)? {
        return Ok((
            FileOp::Update {
                path,
                move_to,
                change: Change::Hunks(hunks),
            },
            Vec::new(),
        ));
    }
    // The file is the new name if it exists, else another spelling of either name (see
    // "File names"); the caller tries them in order.
    let mut names: Vec<String> = Vec::new();
    for name in [new, old] {
        for n in name_spellings(name) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let path = names.remove(0);
    Ok((
        FileOp::Update {
            path,
            move_to: None,
            change: Change::Hunks(hunks),
        },
        names,
    ))
}

/// The spellings a header name may stand for, the name itself first: without a label in
/// parentheses (`x (original)`), without a backup suffix (`x.orig`), and each without its first
/// directory (`a/x`, `old/x` → `x`, as `patch -p1` reads them).
fn name_spellings(name: &str) -> Vec<String> {
    let mut base = name.trim();
    if let Some(open) = base.rfind(" (") {
        if base.ends_with(')') {
            base = base[..open].trim_end();
        }
    }
    fn push(out: &mut Vec<String>, s: &str) {
        if !s.is_empty() && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    let mut out = vec![name.trim().to_string()];
    push(&mut out, base);
    for suffix in [".orig", ".rej", ".bak", ".old", ".new"] {
        if let Some(b) = base.strip_suffix(suffix) {
            push(&mut out, b);
        }
    }
    for k in 0..out.len() {
        if let Some((_, rest)) = out[k].clone().split_once('/') {
            push(&mut out, rest);
        }
    }
    out
}

/// The path of a `---`/`+++` line (text after the marker).
fn header_path(raw: &str, no: usize) -> Result<String, ParseError> {
    let raw = raw.split('\t').next().unwrap_or("").trim_end();
    let path = unquote(raw, no)?;
    if path.is_empty() {
        return Err(ParseError::new(
            no,
            "empty path in a file header; expected `--- a/<path>` / `+++ b/<path>`",
        ));
    }
    Ok(path)
}

/// Removes git's C-style quoting when `raw` is in double quotes; otherwise returns it unchanged.
fn unquote(raw: &str, no: usize) -> Result<String, ParseError> {
    let Some(inner) = raw.strip_prefix('"') else {
        return Ok(raw.to_string());
    };
    let bad = |what: &str| ParseError::new(no, format!("badly quoted path {}: {what}", shown(raw)));
    let inner = inner
        .strip_suffix('"')
        .ok_or_else(|| bad("no closing quote"))?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut it = inner.bytes().peekable();
    while let Some(b) = it.next() {
        if b == b'"' {
            return Err(bad("unescaped quote inside"));
        }
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        let e = it.next().ok_or_else(|| bad("ends with a backslash"))?;
        let out = match e {
            b'\\' => b'\\',
            b'"' => b'"',
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match it.peek() {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            it.next();
                        }
                        _ => break,
                    }
                }
                u8::try_from(v).map_err(|_| bad("octal escape above \\377"))?
            }
            _ => return Err(bad("unknown escape")),
        };
        bytes.push(out);
    }
    String::from_utf8(bytes).map_err(|_| bad("not UTF-8 once unquoted"))
}

/// The two paths of a `diff --git` line (text after `diff --git `), `a/`/`b/` prefixes removed.
fn git_paths(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_end();
    let strip = |p: String, prefix: &str| match p.strip_prefix(prefix) {
        Some(s) => s.to_string(),
        None => p,
    };
    if rest.starts_with('"') || rest.ends_with('"') {
        // At least one side quoted: split at the quote boundary.
        let (a, b) = if let Some(inner) = rest.strip_prefix('"') {
            let close = find_closing_quote(inner)?;
            (&rest[..close + 2], rest[close + 2..].trim_start())
        } else {
            let open = rest.find(" \"")?;
            (&rest[..open], &rest[open + 1..])
        };
        let a = unquote(a, 0).ok()?;
        let b = unquote(b, 0).ok()?;
        return Some((strip(a, "a/"), strip(b, "b/")));
    }
    // Unquoted: prefer the split where both sides name the same path.
    let mut first = None;
    for (pos, _) in rest.match_indices(' ') {
        let (a, b) = (&rest[..pos], &rest[pos + 1..]);
        first.get_or_insert((a, b));
        let same = match (a.strip_prefix("a/"), b.strip_prefix("b/")) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        };
        if same {
            return Some((strip(a.into(), "a/"), strip(b.into(), "b/")));
        }
    }
    let (a, b) = first?;
    (!rest[a.len() + 1..].contains(' ')).then(|| (strip(a.into(), "a/"), strip(b.into(), "b/")))
}

/// Index in `inner` (the text after an opening quote) of the closing quote.
fn find_closing_quote(inner: &str) -> Option<usize> {
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Parses `@@ -l[,c] +l[,c] @@[ section]` into (old start, old count, new start, new count).
fn hunk_range(line: &str) -> Option<(usize, usize, usize, usize)> {
    fn range(s: &str) -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((l, c)) => Some((num(l)?, num(c)?)),
            None => Some((num(s)?, 1)),
        }
    }
    fn num(s: &str) -> Option<usize> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    }
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, rest) = rest.split_once(" @@")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let (ol, oc) = range(old)?;
    let (nl, nc) = range(new)?;
    Some((ol, oc, nl, nc))
}

/// Parses the hunk whose header is line `i`; returns it and the index of the first line after it.
///
/// A header with valid numbers whose counts the body fits exactly is read by counting (see "Hunks").
/// Otherwise (no numbers, or counts the body contradicts) the body is read to the next hunk or file
/// header and its counts are recomputed from it ([`Dialect::HunkCounts`]).
fn parse_hunk(lines: &[&str], i: usize, out: &mut Parsed) -> Result<(Hunk, usize), ParseError> {
    let header = lines[i];
    let no = i + 1;
    let range = hunk_range(header);
    let line_hint = match range {
        Some((ol, oc, _, _)) => Some(if oc == 0 { ol + 1 } else { ol }),
        None => super::unified_range(header[2..].trim_start()).map(|(l, _)| l.max(1)),
    };
    if let Some((_, oc, _, nc)) = range {
        if let Some(read) = counted_body(lines, i, oc, nc, no, line_hint, out)? {
            return Ok(read);
        }
    }
    out.note(Dialect::HunkCounts);
    let mut hunk = Hunk {
        line_hint,
        source_line: no,
        ..Hunk::default()
    };
    // Lines read since the last prefixed line: empty and unprefixed lines, context only when a
    // prefixed line follows them inside the hunk.
    let mut pending: Vec<&str> = Vec::new();
    let mut spaced = Vec::new();
    let mut j = i + 1;
    while j < lines.len() {
        let line = lines[j];
        if line.starts_with("@@")
            || line.starts_with("diff --git ")
            || header_pair(lines, j).is_some()
        {
            break;
        }
        match line.as_bytes().first() {
            Some(b'\\') if pending.is_empty() => no_eol(&mut hunk, j + 1)?,
            Some(b'\\') => {}
            Some(&k @ (b' ' | b'-' | b'+')) => {
                for p in pending.drain(..) {
                    if !p.is_empty() {
                        out.note(Dialect::ContextPrefixMissing);
                    }
                    hunk.lines.push(HunkLine::Context(p.to_string()));
                }
                if k == b' ' {
                    spaced.push(hunk.lines.len());
                }
                let text = line[1..].to_string();
                hunk.lines.push(match k {
                    b' ' => HunkLine::Context(text),
                    b'-' => HunkLine::Remove(text),
                    _ => HunkLine::Add(text),
                });
            }
            _ => pending.push(line),
        }
        j += 1;
    }
    if hunk.lines.is_empty() {
        return Err(ParseError::new(
            no,
            "empty hunk: no ` `, `-` or `+` line follows this header",
        ));
    }
    // Also when every context line had a ` ` (see the apply_patch parser): tried only when this
    // reading matches nowhere or unevenly.
    hunk.alt_lines = alt_reading(&hunk.lines, &spaced);
    // What trailed the last prefixed line was not part of the hunk (prose, separators).
    Ok((hunk, j - pending.len()))
}

/// Reads a body by its header's counts (`oc` old and `nc` new lines). `Ok(None)` when the body does
/// not fit them (the caller then reads it without counts).
fn counted_body(
    lines: &[&str],
    i: usize,
    oc: usize,
    nc: usize,
    no: usize,
    line_hint: Option<usize>,
    out: &mut Parsed,
) -> Result<Option<(Hunk, usize)>, ParseError> {
    let mut hunk = Hunk {
        line_hint,
        source_line: no,
        ..Hunk::default()
    };
    let mut prefix_missing = false;
    let mut spaced = Vec::new();
    let (mut old_left, mut new_left) = (oc, nc);
    let mut j = i + 1;
    while (old_left > 0 || new_left > 0) && j < lines.len() {
        let line = lines[j];
        let (kind, text) = match line.as_bytes().first() {
            None => (b' ', ""),
            Some(b'\\') => {
                if hunk.lines.is_empty() {
                    return Ok(None);
                }
                no_eol(&mut hunk, j + 1)?;
                j += 1;
                continue;
            }
            Some(_) if is_file_header(lines, j) || line.starts_with("@@") => break,
            Some(&k @ (b' ' | b'-' | b'+')) => {
                if k == b' ' {
                    spaced.push(hunk.lines.len());
                }
                (k, &line[1..])
            }
            // A context line that lost its leading space.
            Some(_) if old_left > 0 && new_left > 0 => {
                prefix_missing = true;
                (b' ', line)
            }
            Some(_) => break,
        };
        let fits = match kind {
            b' ' => old_left > 0 && new_left > 0,
            b'-' => old_left > 0,
            _ => new_left > 0,
        };
        if !fits {
            return Ok(None);
        }
        hunk.lines.push(match kind {
            b' ' => {
                old_left -= 1;
                new_left -= 1;
                HunkLine::Context(text.to_string())
            }
            b'-' => {
                old_left -= 1;
                HunkLine::Remove(text.to_string())
            }
            _ => {
                new_left -= 1;
                HunkLine::Add(text.to_string())
            }
        });
        j += 1;
    }
    if old_left > 0 || new_left > 0 {
        // Tolerate exactly one missing (stripped) trailing empty context line.
        if !(old_left == 1 && new_left == 1 && !hunk.lines.is_empty()) {
            return Ok(None);
        }
    } else {
        if hunk.lines.is_empty() {
            return Ok(None);
        }
        while j < lines.len() && lines[j].starts_with('\\') {
            no_eol(&mut hunk, j + 1)?;
            j += 1;
        }
        if j < lines.len() {
            let next = lines[j];
            // `-- ` is the signature separator `git format-patch` writes after the last hunk.
            let signature = next.trim_end() == "--";
            if next.starts_with([' ', '-', '+']) && header_pair(lines, j).is_none() && !signature {
                return Ok(None);
            }
        }
    }
    if prefix_missing {
        out.note(Dialect::ContextPrefixMissing);
    }
    hunk.alt_lines = alt_reading(&hunk.lines, &spaced);
    Ok(Some((hunk, j)))
}

/// Whether lines `j..` start a file header that interrupts a hunk body: a `---` / `+++` pair, then
/// `@@`.
fn is_file_header(lines: &[&str], j: usize) -> bool {
    header_pair(lines, j).is_some() && lines.get(j + 2).is_some_and(|l| l.starts_with("@@"))
}

/// Applies a `\ No newline at end of file` line to the last body line read.
fn no_eol(hunk: &mut Hunk, no: usize) -> Result<(), ParseError> {
    match hunk.lines.last() {
        Some(HunkLine::Context(_)) => {
            hunk.old_no_eol = true;
            hunk.new_no_eol = true;
        }
        Some(HunkLine::Remove(_)) => hunk.old_no_eol = true,
        Some(HunkLine::Add(_)) => hunk.new_no_eol = true,
        None => {
            return Err(ParseError::new(
                no,
                "`\\ No newline at end of file` with no body line before it",
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::formats::test_util::{add, ctx, hunks, rm};

    fn ok(text: &str) -> Vec<FileOp> {
        parse_unified_diff(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn err(text: &str) -> ParseError {
        parse_unified_diff(text).unwrap_err()
    }

    const GIT: &str = "diff --git a/src/app.py b/src/app.py\n\
index 3b18e51..a7c2d1f 100644\n\
--- a/src/app.py\n\
+++ b/src/app.py\n\
@@ -10,4 +10,4 @@ def main():\n \
 x = 1\n\
-retries = 2\n\
+retries = 3\n \
 y = 2\n \
 z = 3\n";

    // ---- files and headers ----

    #[test]
    fn git_update() {
        let ops = ok(GIT);
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].path(), "src/app.py");
        assert_eq!(ops[0].kind(), "update");
        let h = &hunks(&ops[0])[0];
        assert_eq!(
            h.lines,
            vec![
                ctx("x = 1"),
                rm("retries = 2"),
                add("retries = 3"),
                ctx("y = 2"),
                ctx("z = 3")
            ]
        );
        assert_eq!(h.line_hint, Some(10));
        assert_eq!(h.source_line, 5);
        assert!(h.anchors.is_empty() && !h.at_eof && !h.old_no_eol && !h.new_no_eol);
    }

    #[test]
    fn plain_diff_with_timestamps() {
        let t = "--- a/x.txt\t2024-01-01 10:00:00.000000000 +0100\n\
                 +++ b/x.txt\t2024-01-02 10:00:00.000000000 +0100\n\
                 @@ -1 +1 @@\n-a\n+b\n";
        let ops = ok(t);
        assert_eq!(ops[0].path(), "x.txt");
        assert_eq!(hunks(&ops[0])[0].lines, vec![rm("a"), add("b")]);
    }

    #[test]
    fn counts_default_to_one() {
        let ops = ok("--- a/x\n+++ b/x\n@@ -3 +3,2 @@\n a\n+b\n");
        let h = &hunks(&ops[0])[0];
        assert_eq!(h.line_hint, Some(3));
        assert_eq!(h.lines, vec![ctx("a"), add("b")]);
    }

    #[test]
    fn pure_insertion_hint_is_the_line_after() {
        let ops = ok("--- a/x\n+++ b/x\n@@ -5,0 +6,2 @@\n+n1\n+n2\n");
        assert_eq!(hunks(&ops[0])[0].line_hint, Some(6));
    }

    #[test]
    fn prefixes_removed_only_when_both_sides_have_them() {
        let ops = ok("--- src/x\n+++ src/x\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(ops[0].path(), "src/x");
        let ops = ok("--- a/x\n+++ a/x\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(ops[0].path(), "a/x");
        let ops = ok("diff --git x x\n--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(ops[0].path(), "x");
    }

    #[test]
    fn quoted_paths() {
        let t = "--- \"a/my file\\t\\303\\251.txt\"\n+++ \"b/my file\\t\\303\\251.txt\"\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(ok(t)[0].path(), "my file\té.txt");
    }

    #[test]
    fn new_file() {
        let t = "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..e69de29\n\
                 --- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+hello\n+\n";
        assert_eq!(
            ok(t),
            vec![FileOp::Add {
                path: "n.txt".into(),
                content: "hello\n\n".into()
            }]
        );
    }

    #[test]
    fn new_file_without_final_newline() {
        let t =
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n";
        assert_eq!(
            ok(t),
            vec![FileOp::Add {
                path: "n.txt".into(),
                content: "a\nb".into()
            }]
        );
    }

    #[test]
    fn deleted_file() {
        let t = "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n\
                 --- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
        assert_eq!(
            ok(t),
            vec![FileOp::Delete {
                path: "old.txt".into(),
                expect: Some("a\nb\n".into())
            }]
        );
    }

    #[test]
    fn git_empty_new_and_deleted_files() {
        let t = "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n\
                 diff --git a/gone b/gone\ndeleted file mode 100644\nindex e69de29..0000000\n";
        assert_eq!(
            ok(t),
            vec![
                FileOp::Add {
                    path: "e.txt".into(),
                    content: String::new()
                },
                FileOp::Delete {
                    path: "gone".into(),
                    expect: None
                }
            ]
        );
    }

    #[test]
    fn git_paths_with_spaces_and_quotes() {
        let t = "diff --git a/my dir/f b/my dir/f\nnew file mode 100644\n\
                 diff --git \"a/q\\\"x\" \"b/q\\\"x\"\nnew file mode 100644\n\
                 diff --git a/plain \"b/pl ain\"\ndeleted file mode 100644\n";
        let ops = ok(t);
        assert_eq!(ops[0].path(), "my dir/f");
        assert_eq!(ops[1].path(), "q\"x");
        assert_eq!(ops[2].path(), "plain");
    }

    #[test]
    fn rename_with_hunks() {
        let t = "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\n\
                 rename to new.py\nindex 1..2 100644\n--- a/old.py\n+++ b/new.py\n\
                 @@ -1 +1 @@\n-a\n+b\n";
        let ops = ok(t);
        match &ops[0] {
            FileOp::Update { path, move_to, .. } => {
                assert_eq!(path, "old.py");
                assert_eq!(move_to.as_deref(), Some("new.py"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(hunks(&ops[0]).len(), 1);
    }

    #[test]
    fn pure_rename() {
        let t = "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n";
        assert_eq!(
            ok(t),
            vec![FileOp::Update {
                path: "a".into(),
                move_to: Some("b".into()),
                change: Change::Hunks(vec![])
            }]
        );
    }

    #[test]
    fn mode_change_only_gives_no_operation() {
        let t = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
        assert!(ok(t).is_empty());
    }

    #[test]
    fn several_files_in_order() {
        let t = format!(
            "{GIT}diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n\
             --- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n"
        );
        let got: Vec<_> = ok(&t)
            .iter()
            .map(|o| (o.kind(), o.path().to_string()))
            .collect();
        assert_eq!(
            got,
            [
                ("update", "src/app.py".to_string()),
                ("update", "b.txt".into()),
                ("add", "c.txt".into()),
                ("delete", "d".into())
            ]
        );
    }

    #[test]
    fn several_hunks_per_file() {
        let t =
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n@@ -10,2 +10,3 @@ fn f()\n d\n+e\n f\n";
        let h = hunks(&ok(t)[0]).to_vec();
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].source_line, h[1].source_line), (3, 7));
        assert_eq!(h[1].line_hint, Some(10));
        assert_eq!(h[1].lines, vec![ctx("d"), add("e"), ctx("f")]);
    }

    // ---- bodies ----

    #[test]
    fn no_newline_markers() {
        let t = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n";
        let h = hunks(&ok(t)[0])[0].clone();
        assert!(h.old_no_eol && !h.new_no_eol);
        assert_eq!(h.lines, vec![rm("a"), add("a")]);
        let t = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n";
        let h = hunks(&ok(t)[0])[0].clone();
        assert!(!h.old_no_eol && h.new_no_eol);
        let t = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n";
        let h = hunks(&ok(t)[0])[0].clone();
        assert!(h.old_no_eol && h.new_no_eol);
    }

    #[test]
    fn empty_line_in_body_is_empty_context() {
        let t = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n";
        assert_eq!(
            hunks(&ok(t)[0])[0].lines,
            vec![ctx("a"), ctx(""), rm("b"), add("c")]
        );
    }

    #[test]
    fn missing_trailing_empty_context_line_is_tolerated() {
        // The header promises a last (empty) context line that was stripped: at the end of input …
        let t = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c";
        assert_eq!(hunks(&ok(t)[0])[0].lines, vec![ctx("a"), rm("b"), add("c")]);
        // … and before the next file.
        let t =
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-b\n+c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-d\n+e\n";
        assert_eq!(ok(t).len(), 2);
    }

    #[test]
    fn header_like_lines_inside_a_body_are_body() {
        let t = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- a\n+++ b\n diff --git\n";
        assert_eq!(
            hunks(&ok(t)[0])[0].lines,
            vec![rm("-- a"), add("++ b"), ctx("diff --git")]
        );
    }

    #[test]
    fn crlf_diff() {
        let t = "--- a/x\r\n+++ b/x\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n";
        assert_eq!(hunks(&ok(t)[0])[0].lines, vec![ctx("a"), rm("b"), add("c")]);
    }

    #[test]
    fn prose_and_format_patch_wrapping_is_ignored() {
        let t = format!(
            "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] Fix\n\nExplain.\n---\n \
             src/app.py | 2 +-\n 1 file changed\n\n{GIT}-- \n2.40.0\n\nThat is all.\n"
        );
        assert_eq!(ok(&t).len(), 1);
    }

    // ---- errors ----

    #[test]
    fn no_file_header() {
        for t in ["", "just prose\n", "@@ nothing\n"] {
            let e = err(t);
            assert_eq!(e.line, 1, "{t}");
        }
        assert!(err("hello").message.contains("no file header"));
    }

    #[test]
    fn minus_header_without_plus() {
        let e = err("--- a/x\n@@ -1 +1 @@\n");
        assert_eq!(e.line, 1);
        assert_eq!(err("x\n--- a/x").line, 2);
        assert!(e.message.contains("expected a `+++"), "{e}");
    }

    #[test]
    fn plus_header_without_minus() {
        let e = err("+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("without a `---"), "{e}");
    }

    #[test]
    fn bad_header_paths() {
        let e = err("--- \n+++ b/x\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("empty path"), "{e}");
        let e = err("--- a/x\n+++ \"b/x\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("no closing quote"), "{e}");
        for (q, what) in [
            ("\"b/\\q\"", "unknown escape"),
            ("\"b/\\400\"", "above"),
            ("\"b/a\"b\"", "unescaped quote"),
            ("\"b/\\377\"", "not UTF-8"),
        ] {
            let e = err(&format!("--- a/x\n+++ {q}\n"));
            assert!(e.message.contains(what), "{q}: {e}");
        }
    }

    #[test]
    fn copies_and_binaries_are_refused() {
        let e = err("diff --git a/a b/b\nsimilarity index 100%\ncopy from a\ncopy to b\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("copies"), "{e}");
        let e = err(
            "diff --git a/i.png b/i.png\nindex 1..2\nBinary files a/i.png and b/i.png differ\n",
        );
        assert_eq!(e.line, 3);
        assert!(e.message.contains("binary"), "{e}");
        let e = err("diff --git a/i.png b/i.png\nGIT binary patch\nliteral 5\n");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn hunks_without_headers_are_for_the_callers_file() {
        let p = parse_unified_diff_dialect("prose\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
        assert_eq!(p.ops[0].path(), "");
        assert_eq!(p.dialect, vec![Dialect::PathFallback]);
        // A git section without `---`/`+++` lines names its file on the `diff --git` line.
        let p = parse_unified_diff_dialect("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
        assert_eq!(p.ops[0].path(), "x");
    }

    #[test]
    fn hunk_headers_without_usable_numbers() {
        for (h, hint) in [
            ("@@", None),
            ("@@ @@", None),
            ("@@ ... @@", None),
            ("@@ -1,2 @@", None),
            ("@@ -a,2 +1,2 @@", None),
            ("@@ -1,2 +1,x @@", Some(1)),
            ("@@ -7,2 +7,2", Some(7)),
            ("@@ -1,2 +1,2 @@@", Some(1)),
            ("@@ -1,2, +1,2 @@", None),
            ("@@@ -1 +1 @@", None),
        ] {
            let p =
                parse_unified_diff_dialect(&format!("--- a/x\n+++ b/x\n{h}\n-a\n+b\n")).unwrap();
            let hk = &hunks(&p.ops[0])[0];
            assert_eq!(hk.lines, vec![rm("a"), add("b")], "{h}");
            assert_eq!(hk.line_hint, hint, "{h}");
            assert_eq!(p.dialect, vec![Dialect::HunkCounts], "{h}");
        }
        let e = err("--- a/x\n+++ b/x\n@@\n\n");
        assert!(e.message.contains("empty hunk"), "{e}");
    }

    #[test]
    fn body_shorter_than_counts() {
        let p = parse_unified_diff_dialect(
            "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n",
        )
        .unwrap();
        assert_eq!(p.ops.len(), 2);
        assert_eq!(hunks(&p.ops[0])[0].lines, vec![rm("a"), add("b")]);
        assert_eq!(p.dialect, vec![Dialect::HunkCounts]);
        // `-1,2 +1,1` after `-a` lacks exactly one context line: tolerated as it is.
        let p = parse_unified_diff_dialect("--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n-a\n").unwrap();
        assert!(p.dialect.is_empty());
    }

    #[test]
    fn trailing_unprefixed_lines_are_context_only_when_the_counts_say_so() {
        // The counts need one more context line, and the next line lost its space.
        let p =
            parse_unified_diff_dialect("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\nc\n").unwrap();
        assert_eq!(hunks(&p.ops[0])[0].lines, vec![rm("a"), add("b"), ctx("c")]);
        assert_eq!(p.dialect, vec![Dialect::ContextPrefixMissing]);
        // No numbers: interior unprefixed lines are context, trailing prose is not.
        let p =
            parse_unified_diff_dialect("--- a/x\n+++ b/x\n@@\nq\n-a\n+b\nThat is all.\n").unwrap();
        assert_eq!(hunks(&p.ops[0])[0].lines, vec![ctx("q"), rm("a"), add("b")]);
        assert_eq!(
            p.dialect,
            vec![Dialect::ContextPrefixMissing, Dialect::HunkCounts]
        );
    }

    #[test]
    fn counts_the_body_contradicts_are_recomputed() {
        for t in [
            // A line that does not fit the counts.
            "--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n+b\n c\n",
            // A body longer than its counts.
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n c\n",
            // A body shorter than its counts.
            "--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n-a\n+b\n c\n",
        ] {
            let p = parse_unified_diff_dialect(t).unwrap();
            assert_eq!(
                hunks(&p.ops[0])[0].lines,
                vec![rm("a"), add("b"), ctx("c")],
                "{t}"
            );
            assert_eq!(hunks(&p.ops[0])[0].line_hint, Some(1), "{t}");
            assert_eq!(p.dialect, vec![Dialect::HunkCounts], "{t}");
        }
    }

    #[test]
    fn body_longer_than_counts() {
        let p = parse_unified_diff_dialect("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n").unwrap();
        assert_eq!(hunks(&p.ops[0])[0].lines, vec![rm("a"), add("b"), add("c")]);
        // A blank line ends a hunk that fits its counts: what follows is ignored prose.
        assert_eq!(
            ok("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\n- a bullet\n").len(),
            1
        );
    }

    #[test]
    fn no_eol_marker_without_line() {
        let e = err("--- a/x\n+++ b/x\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n");
        assert_eq!(e.line, 4);
        assert!(e.message.contains("no body line before it"), "{e}");
    }

    #[test]
    fn headers_without_hunks() {
        let e = err("--- a/x\n+++ b/x\nprose\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("without hunks"), "{e}");
    }

    #[test]
    fn empty_hunk() {
        let e = err("--- a/x\n+++ b/x\n@@ -1,0 +1,0 @@\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("empty hunk"), "{e}");
        // A single promised line that is missing is not the tolerated stripped line.
        let e = err("--- a/x\n+++ b/x\n@@ -1 +1 @@\n");
        assert_eq!(e.line, 3);
    }

    #[test]
    fn both_sides_dev_null() {
        let e = err("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("both sides"), "{e}");
    }

    #[test]
    fn new_file_hunk_with_context() {
        let e = err("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n@@ -1 +2 @@\n x\n");
        assert_eq!(e.line, 5);
        assert!(e.message.contains("may only add"), "{e}");
    }

    #[test]
    fn deleted_file_hunk_with_add() {
        let e = err("--- a/d\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("may only remove"), "{e}");
    }

    #[test]
    fn differing_names_give_the_spellings_to_try() {
        let p = parse_unified_diff_dialect("--- a/x.orig\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
        assert_eq!(p.ops[0].path(), "x");
        assert_eq!(p.alternatives, vec![vec!["x.orig".to_string()]]);
        // Noted only when another spelling is the one that names the file (the caller decides).
        assert!(p.dialect.is_empty());
        let p =
            parse_unified_diff_dialect("--- old/src/x.js\n+++ new/src/x.js\n@@ -1 +1 @@\n-a\n+b\n")
                .unwrap();
        assert_eq!(p.ops[0].path(), "new/src/x.js");
        assert_eq!(p.alternatives[0], vec!["src/x.js", "old/src/x.js"]);
        let p = parse_unified_diff_dialect(
            "--- x.py (original)\n+++ x.py (modified)\n@@ -1 +1 @@\n-a\n+b\n",
        )
        .unwrap();
        assert_eq!(p.ops[0].path(), "x.py (modified)");
        assert_eq!(p.alternatives[0], vec!["x.py", "x.py (original)"]);
        let p =
            parse_unified_diff_dialect("---a/src/x\n+++b/src/x\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
        assert_eq!(p.ops[0].path(), "src/x");
        assert_eq!(p.dialect, vec![Dialect::HeaderVariant]);
    }

    #[test]
    fn half_a_rename() {
        let e = err("diff --git a/a b/b\nrename from a\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("rename to"), "{e}");
    }

    #[test]
    fn duplicate_sections() {
        // Two sections updating one file: one operation, the hunks in order (applying the same hunk
        // twice is then refused as overlapping).
        let t = format!("{GIT}\n{GIT}");
        let p = parse_unified_diff_dialect(&t).unwrap();
        assert_eq!(p.ops.len(), 1);
        assert_eq!(p.alternatives.len(), 1);
        assert_eq!(crate::edit::formats::test_util::hunks(&p.ops[0]).len(), 2);
        assert!(p.dialect.contains(&Dialect::SectionsMerged));
        // A second section written against the first one's result (it removes a line the first one
        // adds) is two steps, not one operation: refused, as a merge could land it on another copy.
        let e = err("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n k1\n-v = 1\n+v = 2\n k2\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n k1\n-v = 2\n+v = 3\n k2\n");
        assert!(e.message.contains("already changed"), "{e}");
        // A section that renames, creates or deletes a file another section names is still refused.
        let e = err("--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/a b/c\nrename from a\nrename to c\n");
        assert!(e.message.contains("already changed"), "{e}");
        let e = err("diff --git a/a b/b\nrename from a\nrename to b\ndiff --git a/b b/b\ndeleted file mode 100644\n");
        assert_eq!(e.line, 4);
    }

    #[test]
    fn unreadable_git_paths_when_needed() {
        let e = err("diff --git a/x y b/z w\nnew file mode 100644\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("can not read the two paths"), "{e}"); // Hunks under such a line need its paths too (found by fuzzing, README finding 6: they
                                                                          // became a second update of the caller's file, with an empty path).
        for (t, line) in [
            ("@@\n+\ndiff --git \n@@\n+", 3),
            ("diff --git \n@@\n+", 1),
            ("--- a/q\n+++ b/q\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/x y b/z w\n@@ -1 +1 @@\n-a\n+b\n", 6),
        ] {
            let e = err(t);
            assert_eq!(e.line, line, "{t:?}: {e}");
            assert!(e.message.contains("can not read the two paths"), "{e}");
        }
    }

    #[test]
    fn large_diff() {
        let mut t = String::new();
        let mut files = 0;
        while t.len() < 2_000_000 {
            t.push_str(&format!(
                "diff --git a/src/f{files}.py b/src/f{files}.py\nindex 1111111..2222222 100644\n\
                 --- a/src/f{files}.py\n+++ b/src/f{files}.py\n"
            ));
            for h in 0..4 {
                let l = 1 + h * 20;
                t.push_str(&format!(
                    "@@ -{l},4 +{l},4 @@ def f():\n     a = {h}\n-    b = 1\n+    b = 2\n     c = 3\n     return a + b\n"
                ));
            }
            files += 1;
        }
        let ops = ok(&t);
        assert_eq!(ops.len(), files);
        assert_eq!(ops.iter().map(|o| hunks(o).len()).sum::<usize>(), files * 4);
    }
}
