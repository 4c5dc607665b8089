//! OpenAI Codex `apply_patch` envelopes.
//!
//! # Grammar
//!
//! Lines are split as described in [`crate::edit::formats`] (LF or CRLF; terminators are not part of a line).
//!
//! ```text
//! input         = { blank } , [ fence-open ] , { blank } , [ heredoc-open ] ,
//!                 patch ,
//!                 [ heredoc-close ] , { blank } , [ fence-close ] , { blank } ;
//! patch         = { blank } , [ begin ] , { blank | operation } , [ end ] , { blank } ;
//!                                  (* no begin: only before an operation; no end: only after one *)
//! begin         = pad , "*** Begin Patch" , pad ;
//! end           = pad , "*** End Patch" , pad ;
//! operation     = add | delete | update ;
//!
//! add           = pad , "*** Add File:" , path , pad , { "+" , text } , [ { blank } ] ;
//! delete        = pad , "*** Delete File:" , path , pad ;
//! update        = pad , "*** Update File:" , path , pad ,
//!                 [ pad , "*** Move to:" , path , pad ] ,
//!                 { blank } ,
//!                 ( first-chunk , { chunk } | (* nothing, only with Move to *) ) ;
//! first-chunk   = chunk | chunk-body ;                  (* the first chunk may omit "@@" *)
//! chunk         = chunk-header , { chunk-header } , chunk-body ;
//! chunk-header  = "@@" , pad | "@@" , [ " " ] , anchor-text     (* column 0 *)
//!               | "@@ " , unified-range , [ anchor-text ] ;   (* -12,3 +12,4 @@: a line hint *)
//! chunk-body    = body-line , { body-line } , [ pad , "*** End of File" , pad , { blank } ] ;
//! body-line     = " " , text      (* context *)
//!               | "-" , text      (* remove  *)
//!               | "+" , text      (* add     *)
//!               | "" ;            (* a completely empty line: empty context *)
//!               | other , text ;  (* any other first character: context that lost its " " *)
//! path          = pad , [ decoration ] , one or more characters , [ decoration ] , pad ;
//! decoration    = "`" | '"' | "'" | "**" ;              (* a matching pair, removed *)
//! pad           = { ws } ;
//! blank         = { ws } ;                              (* a blank line *)
//!
//! fence-open    = pad , "```" , { any character } ;     (* e.g. ```bash *)
//! fence-close   = pad , "```" , pad ;
//! heredoc-open  = pad , launcher , pad , "<<" , pad , delimiter , pad
//!               | pad , "cat" , pad , "<<" , pad , delimiter , pad , "|" , pad , launcher , pad
//!               | pad , "<<" , pad , delimiter , pad ;      (* the heredoc alone *)
//! launcher      = "apply_patch" | "applypatch" ;
//! delimiter     = "'" , word , "'" | '"' , word , '"' | word ;   (* word = [A-Za-z0-9_]+ *)
//! heredoc-close = pad , word , pad ;                    (* the same word, unquoted *)
//! ```
//!
//! # Markers and padding
//!
//! The `***` marker lines (`Begin Patch`, `End Patch`, `Add File:`, `Delete File:`, `Update File:`,
//! `Move to:`, `End of File`) may be padded with whitespace on both sides. A line that starts in
//! column 0 with `***` but is none of these markers is an unknown header and an error. A *padded*
//! line that starts with `***` after its whitespace but is not a marker is an ordinary line (inside a
//! chunk body, a context line such as ` *** note`). A padded line that *is* exactly a marker is a
//! marker, even inside a chunk body: a file line reading `*** End Patch` can not be given as context.
//!
//! `@@` chunk headers must start in column 0 (a line starting with a space is a context line);
//! trailing whitespace after them is ignored. `@@ text` (or `@@text`) adds `text` (trailing
//! whitespace removed, leading whitespace after the one separating space kept) to [`Hunk::anchors`];
//! several header lines in a row name nested scopes, outermost first; a bare `@@` among them adds
//! nothing. A scope is a hint: how the applier uses it, and ignores one that names no line, is
//! described in [`crate::edit::apply_hunks`]. A header that is a unified-diff range (`@@ -12,5 +12,6 @@`,
//! numbers right or wrong, closing `@@` optional) sets [`Hunk::line_hint`] to its old-side line
//! ([`Dialect::UnifiedHeader`]), and text after its closing `@@` is a scope. [`Hunk::source_line`] is
//! the line of the chunk's first header (or of its first body line when the first chunk omits `@@`);
//! the `no_eol` flags are never set.
//!
//! # Blank lines
//!
//! - Blank lines before `*** Begin Patch`, after `*** End Patch`, between operations and right after
//!   an `*** Update File:` / `*** Move to:` header are ignored.
//! - Inside a chunk body a completely empty line is an empty context line (editors strip the single
//!   space of ` `). Completely empty lines at the *end* of a chunk body are separators and dropped,
//!   unless the chunk ends with `*** End of File`, where they are kept as context. Dropping a
//!   trailing context line never changes what the chunk writes; it only loosens where it matches.
//! - In Add File content, blank lines after the last content line are separators; blank lines
//!   among `+` lines are empty lines (see "Dialects"); an empty content line is written `+`.
//!
//! # Operations
//!
//! - Add File → [`FileOp::Add`]; `content` is the text after each `+`, each line terminated by LF
//!   (so the content is empty or ends with `"\n"`).
//! - Delete File → [`FileOp::Delete`]; it takes no body lines.
//! - Update File → [`FileOp::Update`] with [`Change::Hunks`]. `*** Move to:` sets `move_to`; moving a
//!   file onto its own path is normalised to no move. An Update needs at least one chunk, except
//!   with `*** Move to:`, where an Update with no chunk is a pure rename (`Hunks(vec![])`).
//! - `*** End of File` ends a chunk and sets [`Hunk::at_eof`]; it must be followed by `@@`, a new
//!   operation or `*** End Patch`.
//! - Every path (operation paths and `Move to` targets) may be named by one operation only: a second
//!   operation on a path already used is an error. Paths are compared as written.
//!
//! # Wrappers
//!
//! Models often send the patch as a shell command. When the first non-blank line (inside an optional
//! markdown fence) is a heredoc opener as in the grammar, e.g. `apply_patch <<'EOF'`,
//! `apply_patch <<"EOF"`, `apply_patch <<EOF` or `cat <<'EOF' | apply_patch`, the last non-blank line
//! (inside the fence) must be the delimiter, and the lines between are parsed as the patch. A fence
//! may also wrap a bare patch. Line numbers in errors always count from the original input.
//!
//! # Dialects
//!
//! Models write this format loosely. [`parse_patch_dialect`] reads these spellings and lists each
//! liberty it took in [`Parsed::dialect`]; what it reads must still match the file by content:
//!
//! | spelling | read as | noted |
//! |---|---|---|
//! | the whole patch on one line with literal `\n` escapes (no real line break after `*** Begin Patch`) | unescaped once (`\n`, `\r`, `\t`, `\"`, `\'`, `\\`), then parsed | `unescaped` |
//! | no `*** End Patch` after the last operation | the operations read so far | `no_end_marker` |
//! | prose before `*** Begin Patch` or after `*** End Patch` (holding no `***` marker) | passed over | `prose_around` |
//! | `*** Add File:` content with no `+` on any line, or blank lines among `+` lines | the lines as they are; blank lines as empty lines | `add_prefix_missing` |
//! | `@@ -12,3 +12,4 @@ [scope]` | a chunk header with a line hint (and a scope) | `unified_header` |
//! | a body line with no ` `/`-`/`+` prefix | a context line, the whole line its text; when some context lines of a chunk lost their prefix, [`Hunk::alt_lines`] also holds the reading in which the ` `-prefixed ones kept their space (tried only when the first reading matches nowhere) | `context_prefix_missing` |
//! | a path in backticks, quotes or `**`, or after `./` | the path without them | `path_decorated` |
//! | `a/x` or `b/x` | `a/x`, or `x` when only that names a file ([`Parsed::alternatives`]) | `path_decorated` (by the caller) |
//!
//! `+` and `-` lines are never guessed: a line with either prefix is an added or removed line.
//!
//! # Errors
//!
//! Every error is a [`ParseError`] with the 1-based input line:
//!
//! | situation | line reported |
//! |---|---|
//! | empty input | 1 |
//! | first non-blank line is not `*** Begin Patch`, and no `*** Begin Patch` follows before another marker | that line |
//! | a fence or heredoc that is not closed by the last non-blank line | the opening line |
//! | end of input before `*** End Patch` with no operation read | the last line |
//! | a `***` marker after `*** End Patch` (a second envelope) | that line |
//! | a patch with no operation | the `*** Begin Patch` line |
//! | unknown `***` header; nested `*** Begin Patch` | that line |
//! | `*** Move to:` not right after `*** Update File:` | that line |
//! | `*** End of File` outside a chunk, or followed by a body line | that line / the body line |
//! | an empty path | the header |
//! | a second operation on a path | the second header |
//! | an Add File line not starting with `+` | that line |
//! | a Delete File followed by body lines; any other stray line between operations | that line |
//! | an Update with no chunk (and no Move to) | the Update header |
//! | a chunk header with no body line | the chunk header |

use std::collections::HashMap;

use super::{alt_reading, clean_path, input_lines, shown, split_lines, unescape_one_line};
use crate::edit::ir::{Change, Dialect, FileOp, Hunk, HunkLine, ParseError, Parsed};

/// Parses an `apply_patch` envelope (optionally wrapped in a heredoc and/or a markdown fence) into
/// file operations, in patch order. See [`parse_patch_dialect`] for the liberties it takes.
pub fn parse_patch(text: &str) -> Result<Vec<FileOp>, ParseError> {
    parse_patch_dialect(text).map(|p| p.ops)
}

/// [`parse_patch`], also reporting the liberties taken with the grammar and the other spellings of
/// each operation's path (see "Dialects" in the module documentation).
pub fn parse_patch_dialect(text: &str) -> Result<Parsed, ParseError> {
    let unescaped = unescape_one_line(text, "*** Begin Patch");
    let at = unescaped.as_ref().map(|u| u.1);
    let lines = split_lines(unescaped.as_ref().map_or(text, |u| u.0.as_str()));
    let r = unwrap(&lines).and_then(|(lo, hi)| {
        let mut parser = Parser {
            lines: &lines,
            i: lo,
            end: hi,
            claimed: HashMap::new(),
            parsed: Parsed::default(),
        };
        if at.is_some() {
            parser.parsed.note(Dialect::Unescaped);
        }
        parser.parse()
    });
    input_lines(r, at)
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The range `[lo, hi)` of lines holding the patch once fence and heredoc wrappers are removed,
/// trimmed of blank lines at both ends.
fn unwrap(lines: &[&str]) -> Result<(usize, usize), ParseError> {
    fn trim(lines: &[&str], mut lo: usize, mut hi: usize) -> (usize, usize) {
        while lo < hi && is_blank(lines[lo]) {
            lo += 1;
        }
        while hi > lo && is_blank(lines[hi - 1]) {
            hi -= 1;
        }
        (lo, hi)
    }
    let (mut lo, mut hi) = trim(lines, 0, lines.len());
    if lo == hi {
        return Err(ParseError::new(
            1,
            "the patch is empty; expected `*** Begin Patch`",
        ));
    }
    if lines[lo].trim_start().starts_with("```") {
        if hi - lo < 2 || lines[hi - 1].trim() != "```" {
            return Err(ParseError::new(
                lo + 1,
                "the markdown fence opened here is not closed: expected a last line \"```\"",
            ));
        }
        (lo, hi) = trim(lines, lo + 1, hi - 1);
    }
    if lo < hi {
        if let Some(delim) = heredoc_opener(lines[lo]) {
            if hi - lo < 2 || lines[hi - 1].trim() != delim {
                return Err(ParseError::new(
                    lo + 1,
                    format!(
                        "the heredoc opened here is not closed: expected a last line `{delim}`"
                    ),
                ));
            }
            (lo, hi) = trim(lines, lo + 1, hi - 1);
        }
    }
    Ok((lo, hi))
}

/// The delimiter word when `line` opens a heredoc feeding `apply_patch`.
fn heredoc_opener(line: &str) -> Option<&str> {
    fn launcher(s: &str) -> Option<&str> {
        s.strip_prefix("apply_patch")
            .or_else(|| s.strip_prefix("applypatch"))
    }
    /// `<< DELIM` at the start of `s`: the delimiter word and the rest of the line.
    fn redirect(s: &str) -> Option<(&str, &str)> {
        let s = s.strip_prefix("<<")?.trim_start();
        let (word, rest) = match s.as_bytes().first()? {
            q @ (b'\'' | b'"') => {
                let inner = &s[1..];
                let close = inner.find(*q as char)?;
                (&inner[..close], &inner[close + 1..])
            }
            _ => {
                let end = s
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(s.len());
                (&s[..end], &s[end..])
            }
        };
        let ok = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        ok.then_some((word, rest))
    }
    let s = line.trim();
    // The heredoc alone, as models send it for the patch argument itself: `<<'EOF'`.
    if s.starts_with("<<") {
        let (word, rest) = redirect(s)?;
        return rest.trim().is_empty().then_some(word);
    }
    if let Some(rest) = launcher(s) {
        if !rest.starts_with(|c: char| c.is_whitespace() || c == '<') {
            return None;
        }
        let (word, rest) = redirect(rest.trim_start())?;
        return rest.trim().is_empty().then_some(word);
    }
    let rest = s.strip_prefix("cat")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let (word, rest) = redirect(rest.trim_start())?;
    let rest = rest.trim_start().strip_prefix('|')?.trim_start();
    launcher(rest)?.trim().is_empty().then_some(word)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header<'a> {
    Begin,
    End,
    Add(&'a str),
    Delete(&'a str),
    Update(&'a str),
    MoveTo(&'a str),
    EndOfFile,
    Unknown,
}

/// Classifies a `***` marker line; `None` for any other line (see "Markers and padding").
fn header(line: &str) -> Option<Header<'_>> {
    let t = line.trim();
    if !t.starts_with("***") {
        return None;
    }
    let h = match t {
        "*** Begin Patch" => Header::Begin,
        "*** End Patch" => Header::End,
        "*** End of File" => Header::EndOfFile,
        _ => {
            if let Some(p) = t.strip_prefix("*** Add File:") {
                Header::Add(p.trim())
            } else if let Some(p) = t.strip_prefix("*** Delete File:") {
                Header::Delete(p.trim())
            } else if let Some(p) = t.strip_prefix("*** Update File:") {
                Header::Update(p.trim())
            } else if let Some(p) = t.strip_prefix("*** Move to:") {
                Header::MoveTo(p.trim())
            } else if line.starts_with("***") {
                Header::Unknown
            } else {
                return None;
            }
        }
    };
    Some(h)
}

/// `@@` in column 0 starts a chunk header (with or without a space before its scope).
fn is_chunk_header(line: &str) -> bool {
    line.starts_with("@@")
}

struct Parser<'a> {
    lines: &'a [&'a str],
    i: usize,
    end: usize,
    /// Path → 1-based line of the operation that named it.
    claimed: HashMap<String, usize>,
    parsed: Parsed,
}

impl<'a> Parser<'a> {
    fn parse(mut self) -> Result<Parsed, ParseError> {
        let mut begin = self.i;
        // Whether line `begin` is the `*** Begin Patch` line (passed over below).
        let mut begin_line = true;
        if header(self.lines[begin]) != Some(Header::Begin) {
            // Prose before the envelope ("Here is the patch:") is passed over, as long as it holds
            // no marker of the format.
            let first_marker = (begin..self.end).find(|&j| header(self.lines[j]).is_some());
            match first_marker.map(|j| (j, header(self.lines[j]))) {
                Some((j, Some(Header::Begin))) => {
                    self.parsed.note(Dialect::ProseAround);
                    begin = j;
                    self.i = j;
                }
                // The envelope's first line left out: the text starts with an operation. Read as
                // if `*** Begin Patch` stood just above it.
                Some((j, Some(Header::Add(_) | Header::Update(_) | Header::Delete(_)))) => {
                    self.parsed.note(Dialect::NoBeginMarker);
                    if j > begin {
                        self.parsed.note(Dialect::ProseAround);
                    }
                    begin = j;
                    self.i = j;
                    begin_line = false;
                }
                _ => {
                    return Err(ParseError::new(
                        begin + 1,
                        format!(
                            "expected `*** Begin Patch` as the first line, found {}",
                            shown(self.lines[begin])
                        ),
                    ))
                }
            }
        }
        if begin_line {
            self.i += 1;
        }
        let mut ops = Vec::new();
        loop {
            if self.i >= self.end {
                if ops.is_empty() {
                    return Err(ParseError::new(
                        self.end,
                        "reached the end of the input; expected `*** End Patch`",
                    ));
                }
                // A reply that stops after its last operation: the operations are complete.
                self.parsed.note(Dialect::NoEndMarker);
                break;
            }
            let no = self.i + 1;
            let line = self.lines[self.i];
            if is_blank(line) {
                self.i += 1;
                continue;
            }
            match header(line) {
                Some(Header::End) => {
                    self.i += 1;
                    break;
                }
                Some(Header::Add(p)) => {
                    let path = self.claim(p, no, "*** Add File:")?;
                    self.i += 1;
                    let content = self.add_content()?;
                    ops.push(FileOp::Add { path, content });
                }
                Some(Header::Delete(p)) => {
                    let path = self.claim(p, no, "*** Delete File:")?;
                    self.i += 1;
                    ops.push(FileOp::Delete { path, expect: None });
                }
                Some(Header::Update(p)) => {
                    // A second section for a file an earlier section updates (neither moving it):
                    // its chunks join the earlier operation's, in order.
                    let named = clean_path(p).0;
                    let earlier = ops.iter().position(|o| {
                        matches!(o, FileOp::Update { path, move_to: None, change: Change::Hunks(_) } if *path == named)
                    });
                    let first = earlier.and_then(|_| self.claimed.remove(&named));
                    let op = self.update(p)?;
                    match (earlier, op) {
                        (
                            Some(k),
                            FileOp::Update {
                                move_to: None,
                                change: Change::Hunks(more),
                                ..
                            },
                        ) if !more.is_empty()
                            && !matches!(&ops[k], FileOp::Update { change: Change::Hunks(h), .. } if super::builds_on(h, &more)) =>
                        {
                            if let FileOp::Update {
                                change: Change::Hunks(h),
                                ..
                            } = &mut ops[k]
                            {
                                h.extend(more);
                            }
                            // The entry `update` added for this section's path.
                            self.parsed.alternatives.pop();
                            self.parsed.note(Dialect::SectionsMerged);
                        }
                        (Some(_), _) => {
                            return Err(ParseError::new(
                                no,
                                format!(
                                    "`{named}` is already named by the operation at line {}; \
                                     put all changes to one file in one operation",
                                    first.unwrap_or(0)
                                ),
                            ))
                        }
                        (None, op) => ops.push(op),
                    }
                }
                Some(Header::Begin) => {
                    return Err(ParseError::new(
                        no,
                        "nested `*** Begin Patch`; expected an operation or `*** End Patch`",
                    ))
                }
                Some(Header::MoveTo(_)) => {
                    return Err(ParseError::new(
                        no,
                        "`*** Move to:` must come right after its `*** Update File:` line",
                    ))
                }
                Some(Header::EndOfFile) => {
                    return Err(ParseError::new(
                        no,
                        "`*** End of File` outside a chunk; it must end the body of an Update chunk",
                    ))
                }
                Some(Header::Unknown) => {
                    return Err(ParseError::new(
                        no,
                        format!(
                            "unknown header {}; expected `*** Add File: <path>`, \
                             `*** Delete File: <path>`, `*** Update File: <path>` or `*** End Patch`",
                            shown(line)
                        ),
                    ))
                }
                None => {
                    let after_delete = matches!(ops.last(), Some(FileOp::Delete { .. }));
                    let hint = if after_delete {
                        " (a `*** Delete File:` takes no body lines)"
                    } else {
                        ""
                    };
                    return Err(ParseError::new(
                        no,
                        format!(
                            "expected `*** Add File: <path>`, `*** Delete File: <path>`, \
                             `*** Update File: <path>` or `*** End Patch`, found {}{hint}",
                            shown(line)
                        ),
                    ));
                }
            }
        }
        while self.i < self.end && is_blank(self.lines[self.i]) {
            self.i += 1;
        }
        if self.i < self.end {
            // Prose after the envelope is passed over; another envelope or operation is not (its
            // edits would be lost).
            match (self.i..self.end).find(|&j| header(self.lines[j]).is_some()) {
                None => self.parsed.note(Dialect::ProseAround),
                Some(j) => {
                    return Err(ParseError::new(
                        j + 1,
                        format!(
                            "unexpected {} after `*** End Patch`; send one envelope with every \
                             operation inside it",
                            shown(self.lines[j])
                        ),
                    ))
                }
            }
        }
        if ops.is_empty() {
            return Err(ParseError::new(
                begin + 1,
                "the patch has no operations; expected `*** Add File:`, `*** Delete File:` or \
                 `*** Update File:` before `*** End Patch`",
            ));
        }
        self.parsed.ops = ops;
        Ok(self.parsed)
    }

    /// Cleans a path as written (see "Paths"), records its other spellings, and claims it. Returns
    /// the path the operation names.
    fn claim(&mut self, raw: &str, no: usize, what: &str) -> Result<String, ParseError> {
        let (path, alternatives, decorated) = clean_path(raw);
        if path.is_empty() {
            return Err(ParseError::new(
                no,
                format!("empty path; expected `{what} <path>`"),
            ));
        }
        if decorated {
            self.parsed.note(Dialect::PathDecorated);
        }
        if let Some(first) = self.claimed.insert(path.clone(), no) {
            return Err(ParseError::new(
                no,
                format!(
                    "`{path}` is already named by the operation at line {first}; \
                     put all changes to one file in one operation"
                ),
            ));
        }
        // A `*** Move to:` target's spellings are not tried (it names a file that need not exist).
        if what != "*** Move to:" {
            self.parsed.alternatives.push(alternatives);
        }
        Ok(path)
    }

    /// The `+` lines after `*** Add File:`; leaves `i` on the first line after them.
    fn add_content(&mut self) -> Result<String, ParseError> {
        // The content runs to the next marker; blank lines at its end are separators.
        let start = self.i;
        let mut stop = start;
        while stop < self.end && header(self.lines[stop]).is_none() {
            stop += 1;
        }
        let mut last = stop;
        while last > start && is_blank(self.lines[last - 1]) {
            last -= 1;
        }
        let body = &self.lines[start..last];
        let prefixed = body.iter().filter(|l| l.starts_with('+')).count();
        let bare = body
            .iter()
            .position(|l| !l.starts_with('+') && !is_blank(l));
        let mut content = String::new();
        match bare {
            // Every line has its `+`; a blank line among them is an empty line that lost it.
            None => {
                for l in body {
                    content.push_str(l.strip_prefix('+').unwrap_or(""));
                    content.push('\n');
                }
                if body.iter().any(|l| !l.starts_with('+')) {
                    self.parsed.note(Dialect::AddPrefixMissing);
                }
            }
            // No line has its `+`: the model left the prefix out everywhere; the text is the file.
            Some(_) if prefixed == 0 => {
                for l in body {
                    content.push_str(l);
                    content.push('\n');
                }
                self.parsed.note(Dialect::AddPrefixMissing);
            }
            Some(k) => {
                return Err(ParseError::new(
                    start + k + 1,
                    format!(
                        "expected `+` at the start of every `*** Add File:` content line, found {} \
                         (other lines of this file have it, so which lines are content is unclear)",
                        shown(body[k])
                    ),
                ))
            }
        }
        self.i = last;
        Ok(content)
    }

    fn update(&mut self, raw: &str) -> Result<FileOp, ParseError> {
        let header_no = self.i + 1;
        let path = self.claim(raw, header_no, "*** Update File:")?;
        self.i += 1;
        let mut move_to = None;
        let mut has_move = false;
        if self.i < self.end {
            if let Some(Header::MoveTo(to)) = header(self.lines[self.i]) {
                // Moving onto the same path is no move (and claims nothing new).
                if clean_path(to).0 != path {
                    move_to = Some(self.claim(to, self.i + 1, "*** Move to:")?);
                }
                has_move = true;
                self.i += 1;
            }
        }
        let mut hunks = Vec::new();
        loop {
            while self.i < self.end && is_blank(self.lines[self.i]) {
                self.i += 1;
            }
            if self.i >= self.end {
                break;
            }
            let line = self.lines[self.i];
            let source_line = self.i + 1;
            let mut anchors = Vec::new();
            let mut line_hint = None;
            if is_chunk_header(line) {
                while self.i < self.end && is_chunk_header(self.lines[self.i]) {
                    let h = chunk_header(self.lines[self.i]);
                    if let Some(l) = h.line_hint {
                        self.parsed.note(Dialect::UnifiedHeader);
                        line_hint = line_hint.or(Some(l));
                    }
                    if let Some(a) = h.anchor {
                        anchors.push(a.to_string());
                    }
                    self.i += 1;
                }
            } else if !hunks.is_empty() || header(line).is_some() {
                break;
            }
            // Otherwise the first chunk omits `@@`.
            let mut hunk = self.chunk_body(anchors, source_line)?;
            hunk.line_hint = line_hint;
            hunks.push(hunk);
        }
        if hunks.is_empty() && !has_move {
            return Err(ParseError::new(
                header_no,
                format!(
                    "`*** Update File: {path}` has no chunks; expected `@@` (or `@@ <context line>`) \
                     followed by ` `, `-` and `+` lines"
                ),
            ));
        }
        Ok(FileOp::Update {
            path,
            move_to,
            change: Change::Hunks(hunks),
        })
    }

    /// The body lines of one chunk, starting at `i`.
    fn chunk_body(&mut self, anchors: Vec<String>, source_line: usize) -> Result<Hunk, ParseError> {
        let mut hunk = Hunk {
            anchors,
            source_line,
            ..Hunk::default()
        };
        // Completely empty lines at the current end of `hunk.lines`.
        let mut trailing_empty = 0;
        // Context lines read from a ` ` prefix.
        let mut spaced = Vec::new();
        while self.i < self.end {
            let line = self.lines[self.i];
            if is_chunk_header(line) {
                break;
            }
            if let Some(h) = header(line) {
                if h == Header::EndOfFile {
                    hunk.at_eof = true;
                    self.i += 1;
                    let mut j = self.i;
                    while j < self.end && is_blank(self.lines[j]) {
                        j += 1;
                    }
                    if j < self.end
                        && !is_chunk_header(self.lines[j])
                        && header(self.lines[j]).is_none()
                    {
                        return Err(ParseError::new(
                            j + 1,
                            format!(
                                "expected `@@`, a `***` header or `*** End Patch` after \
                                 `*** End of File` (line {}), found {}",
                                self.i,
                                shown(self.lines[j])
                            ),
                        ));
                    }
                }
                break;
            }
            let body = match line.as_bytes().first() {
                None => {
                    trailing_empty += 1;
                    self.i += 1;
                    hunk.lines.push(HunkLine::Context(String::new()));
                    continue;
                }
                Some(b' ') => {
                    spaced.push(hunk.lines.len());
                    HunkLine::Context(line[1..].to_string())
                }
                Some(b'-') => HunkLine::Remove(line[1..].to_string()),
                Some(b'+') => HunkLine::Add(line[1..].to_string()),
                // A context line that lost its leading space (`+` and `-` lines are never guessed).
                Some(_) => {
                    self.parsed.note(Dialect::ContextPrefixMissing);
                    HunkLine::Context(line.to_string())
                }
            };
            trailing_empty = 0;
            hunk.lines.push(body);
            self.i += 1;
        }
        if !hunk.at_eof {
            hunk.lines.truncate(hunk.lines.len() - trailing_empty);
        }
        // Also when every context line had a ` `: a model that dropped the prefix from lines that
        // all start with spaces leaves no trace of it but context one column shallower than the
        // `-`/`+` lines. The other reading is tried only when this one matches nowhere or unevenly.
        hunk.alt_lines = alt_reading(&hunk.lines, &spaced);
        if hunk.lines.is_empty() {
            return Err(ParseError::new(
                source_line,
                "the chunk has no body lines; expected ` ` (context), `-` (remove) or `+` (add) lines",
            ));
        }
        Ok(hunk)
    }
}

/// What a chunk header line says.
struct ChunkHeader<'a> {
    /// `@@ <text>`: the scope text (trailing whitespace removed).
    anchor: Option<&'a str>,
    /// `@@ -12,3 +12,4 @@`: the old-side line number, a hint only.
    line_hint: Option<usize>,
}

/// Reads a chunk header line: `@@`, `@@ <scope>`, or a unified-diff range `@@ -l[,c] +l[,c] @@
/// [scope]` (numbers kept as a hint; the text after the second `@@`, if any, is a scope).
fn chunk_header(line: &str) -> ChunkHeader<'_> {
    let text = line[2..].strip_prefix(' ').unwrap_or(&line[2..]).trim_end();
    if let Some((hint, rest)) = super::unified_range(text.trim_start()) {
        let rest = rest.trim();
        return ChunkHeader {
            anchor: (!rest.is_empty()).then_some(rest),
            line_hint: Some(hint),
        };
    }
    ChunkHeader {
        anchor: (!text.is_empty()).then_some(text),
        line_hint: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::formats::test_util::{add, ctx, hunks, rm};

    fn ok(text: &str) -> Vec<FileOp> {
        parse_patch(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn err(text: &str) -> ParseError {
        parse_patch(text).unwrap_err()
    }

    fn wrap(body: &str) -> String {
        format!("*** Begin Patch\n{body}*** End Patch\n")
    }

    // ---- operations ----

    #[test]
    fn update_with_one_chunk() {
        let ops = ok(&wrap("*** Update File: src/app.py\n@@\n a\n-b\n+c\n d\n"));
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].path(), "src/app.py");
        assert_eq!(ops[0].kind(), "update");
        let h = &hunks(&ops[0])[0];
        assert_eq!(h.lines, vec![ctx("a"), rm("b"), add("c"), ctx("d")]);
        assert!(h.anchors.is_empty());
        assert_eq!(h.source_line, 3);
        assert!(!h.at_eof && h.line_hint.is_none() && !h.old_no_eol && !h.new_no_eol);
    }

    #[test]
    fn stacked_anchors_are_outermost_first() {
        let ops = ok(&wrap(
            "*** Update File: a.py\n@@ class A:\n@@     def f(self):  \n@@\n-x\n+y\n",
        ));
        let h = &hunks(&ops[0])[0];
        assert_eq!(h.anchors, vec!["class A:", "    def f(self):"]);
        assert_eq!(h.source_line, 3);
        assert_eq!(h.lines, vec![rm("x"), add("y")]);
    }

    #[test]
    fn several_chunks_with_source_lines() {
        let ops = ok(&wrap(
            "*** Update File: a\n@@ def f\n-1\n+2\n@@ def g\n-3\n+4\n@@\n 5\n+6\n",
        ));
        let h = hunks(&ops[0]);
        assert_eq!(h.len(), 3);
        assert_eq!(
            h.iter().map(|h| h.source_line).collect::<Vec<_>>(),
            [3, 6, 9]
        );
        assert_eq!(h[1].anchors, vec!["def g"]);
        assert_eq!(h[2].lines, vec![ctx("5"), add("6")]);
    }

    #[test]
    fn first_chunk_may_omit_header() {
        let ops = ok(&wrap("*** Update File: a\n x\n-y\n+z\n@@ def g\n-1\n"));
        let h = hunks(&ops[0]);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].source_line, 3);
        assert_eq!(h[0].lines, vec![ctx("x"), rm("y"), add("z")]);
        assert!(h[0].anchors.is_empty());
    }

    #[test]
    fn empty_line_in_body_is_empty_context() {
        let ops = ok(&wrap("*** Update File: a\n@@\n a\n\n-b\n \n+c\n"));
        assert_eq!(
            hunks(&ops[0])[0].lines,
            vec![ctx("a"), ctx(""), rm("b"), ctx(""), add("c")]
        );
    }

    #[test]
    fn trailing_empty_lines_are_separators() {
        let ops = ok(&wrap(
            "*** Update File: a\n@@\n-b\n+c\n\n\n@@\n-d\n \n\n*** Delete File: z\n",
        ));
        let h = hunks(&ops[0]);
        assert_eq!(h[0].lines, vec![rm("b"), add("c")]);
        // An explicit ` ` context line is kept; only completely empty lines are dropped.
        assert_eq!(h[1].lines, vec![rm("d"), ctx("")]);
        assert_eq!(
            ops[1],
            FileOp::Delete {
                path: "z".into(),
                expect: None
            }
        );
    }

    #[test]
    fn end_of_file_sets_at_eof_and_keeps_trailing_empty_context() {
        let ops = ok(&wrap(
            "*** Update File: a\n@@\n-x\n+y\n\n*** End of File\n\n@@ top\n-q\n",
        ));
        let h = hunks(&ops[0]);
        assert!(h[0].at_eof);
        assert_eq!(h[0].lines, vec![rm("x"), add("y"), ctx("")]);
        assert!(!h[1].at_eof);
        assert_eq!(h[1].anchors, vec!["top"]);
    }

    #[test]
    fn end_of_file_then_next_operation() {
        let ops = ok(&wrap(
            "*** Update File: a\n+tail\n  *** End of File  \n*** Add File: b\n+x\n",
        ));
        assert!(hunks(&ops[0])[0].at_eof);
        assert_eq!(ops[1].kind(), "add");
    }

    #[test]
    fn add_file_content() {
        let ops = ok(&wrap(
            "*** Add File: docs/new.md\n+# Title\n+\n+text +++ -- \n+++x\n",
        ));
        assert_eq!(
            ops,
            vec![FileOp::Add {
                path: "docs/new.md".into(),
                content: "# Title\n\ntext +++ -- \n++x\n".into()
            }]
        );
    }

    #[test]
    fn add_file_without_lines_is_empty() {
        let ops = ok(&wrap("*** Add File: empty.txt\n*** Add File: b\n+x\n\n\n"));
        assert_eq!(
            ops[0],
            FileOp::Add {
                path: "empty.txt".into(),
                content: String::new()
            }
        );
        assert_eq!(
            ops[1],
            FileOp::Add {
                path: "b".into(),
                content: "x\n".into()
            }
        );
    }

    #[test]
    fn delete_file() {
        let ops = ok(&wrap("*** Delete File: old.txt\n\n*** Delete File: b\n"));
        assert_eq!(
            ops,
            vec![
                FileOp::Delete {
                    path: "old.txt".into(),
                    expect: None
                },
                FileOp::Delete {
                    path: "b".into(),
                    expect: None
                }
            ]
        );
    }

    #[test]
    fn move_to_with_chunks() {
        let ops = ok(&wrap(
            "*** Update File: a.py\n*** Move to: b/a.py\n@@\n-x\n+y\n",
        ));
        match &ops[0] {
            FileOp::Update { path, move_to, .. } => {
                assert_eq!(path, "a.py");
                assert_eq!(move_to.as_deref(), Some("b/a.py"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(ops[0].kind(), "move");
    }

    #[test]
    fn pure_move_has_no_hunks() {
        let ops = ok(&wrap(
            "*** Update File: a\n*** Move to: b\n*** Delete File: c\n",
        ));
        assert_eq!(
            ops[0],
            FileOp::Update {
                path: "a".into(),
                move_to: Some("b".into()),
                change: Change::Hunks(vec![])
            }
        );
    }

    #[test]
    fn move_onto_same_path_is_no_move() {
        let ops = ok(&wrap("*** Update File: a\n*** Move to: a\n@@\n-x\n"));
        assert_eq!(ops[0].kind(), "update");
    }

    #[test]
    fn mixed_operations_in_order() {
        let ops = ok(&wrap(
            "*** Add File: n\n+1\n*** Update File: u\n@@\n-2\n+3\n*** Delete File: d\n",
        ));
        let kinds: Vec<_> = ops.iter().map(|o| (o.kind(), o.path())).collect();
        assert_eq!(kinds, [("add", "n"), ("update", "u"), ("delete", "d")]);
    }

    // ---- tolerances ----

    #[test]
    fn padded_markers() {
        let t = "  *** Begin Patch  \n\t*** Update File:   a b.txt  \n  *** Move to: c.txt \n@@  \n-x\n \
                 *** Add File: n\n+1\n  *** End Patch\t\n";
        let ops = ok(t);
        assert_eq!(ops[0].path(), "a b.txt");
        assert_eq!(hunks(&ops[0])[0].lines, vec![rm("x")]);
        assert_eq!(ops[1].path(), "n");
    }

    #[test]
    fn padded_non_marker_star_line_is_context() {
        let ops = ok(&wrap("*** Update File: a.c\n@@\n *** note\n-x\n"));
        assert_eq!(hunks(&ops[0])[0].lines, vec![ctx("*** note"), rm("x")]);
    }

    #[test]
    fn crlf_patch() {
        let t = "*** Begin Patch\r\n*** Update File: a\r\n@@ f\r\n-x\r\n+y\r\n*** Add File: b\r\n+z\r\n*** End Patch\r\n";
        let ops = ok(t);
        let h = &hunks(&ops[0])[0];
        assert_eq!(h.anchors, vec!["f"]);
        assert_eq!(h.lines, vec![rm("x"), add("y")]);
        assert_eq!(
            ops[1],
            FileOp::Add {
                path: "b".into(),
                content: "z\n".into()
            }
        );
    }

    #[test]
    fn blank_lines_around_envelope() {
        let ops = ok("\n\n  \n*** Begin Patch\n\n*** Delete File: a\n\n*** End Patch\n\n\n");
        assert_eq!(ops.len(), 1);
        let ops = ok("*** Begin Patch\n*** Delete File: a\n*** End Patch");
        assert_eq!(ops.len(), 1);
    }

    #[test]
    fn blank_lines_after_update_header() {
        let ops = ok(&wrap("*** Update File: a\n\n\n@@\n-x\n"));
        assert_eq!(hunks(&ops[0])[0].source_line, 5);
    }

    const INNER: &str = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n";

    #[test]
    fn heredoc_wrappers() {
        for (open, close) in [
            ("apply_patch <<'EOF'", "EOF"),
            ("apply_patch <<\"EOF\"", "EOF"),
            ("apply_patch <<EOF", "EOF"),
            ("apply_patch << 'PATCH'", "PATCH"),
            ("applypatch<<EOF", "EOF"),
            ("cat <<'EOF' | apply_patch", "EOF"),
            ("cat << EOF |apply_patch", "EOF"),
            ("  apply_patch <<'EOF'  ", "  EOF "),
            ("<<'EOF'", "EOF"),
            ("<< \"PATCH\"", "PATCH"),
        ] {
            let t = format!("{open}\n{INNER}{close}\n");
            assert_eq!(ok(&t).len(), 1, "{open}");
        }
    }

    #[test]
    fn heredoc_inside_bash_fence() {
        let t = format!("```bash\napply_patch <<'EOF'\n{INNER}EOF\n```\n");
        assert_eq!(ok(&t).len(), 1);
        let t = format!("\n```sh\n\n{INNER}\n```\n\n");
        assert_eq!(ok(&t).len(), 1);
    }

    #[test]
    fn error_lines_count_from_the_original_input() {
        let t = "```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a\n@@\n x\n*** Frob\n*** End Patch\nEOF\n```\n";
        assert_eq!(err(t).line, 7);
    }

    #[test]
    fn non_heredoc_commands_are_not_unwrapped() {
        for open in [
            "apply_patchx <<EOF",
            "cat <<EOF",
            "apply_patch <<EOF extra",
            "apply_patch <<''",
        ] {
            // Not a heredoc: the line is prose around the envelope, and so is `EOF`.
            let t = format!("{open}\n{INNER}EOF\n");
            let p = parse_patch_dialect(&t).unwrap();
            assert_eq!(p.ops.len(), 1, "{open}");
            assert_eq!(p.dialect, vec![Dialect::ProseAround], "{open}");
        }
    }

    // ---- errors ----

    #[test]
    fn empty_input() {
        assert_eq!(err("").line, 1);
        assert_eq!(err("\n \n").line, 1);
    }

    #[test]
    fn missing_begin() {
        // A text that starts with an operation (after any prose) reads as if `*** Begin Patch`
        // stood above it; the liberty is reported.
        for (t, prose) in [
            ("*** Delete File: a\n*** End Patch\n", false),
            ("*** Update File: a\n@@\n-x\n+y\n*** End Patch\n", false),
            ("*** Update File: a\n@@\n-x\n+y\n", false),
            ("Here is the change:\n\n*** Add File: n.txt\n+hi\n", true),
        ] {
            let p = parse_patch_dialect(t).unwrap_or_else(|e| panic!("{e}\n{t}"));
            assert_eq!(p.ops.len(), 1, "{t:?}");
            assert!(p.dialect.contains(&Dialect::NoBeginMarker), "{t:?}");
            assert_eq!(p.dialect.contains(&Dialect::ProseAround), prose, "{t:?}");
        }
        // Text with no marker at all, or that starts with `*** End Patch`, is still no patch.
        for t in [
            "Here is no patch at all.\n",
            "*** End Patch\n*** Delete File: a\n",
        ] {
            let e = err(t);
            assert_eq!(e.line, 1);
            assert!(e.message.contains("expected `*** Begin Patch`"), "{e}");
        }
    }

    #[test]
    fn missing_end_after_complete_operations_is_accepted() {
        for t in [
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n",
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y",
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n\n\n",
        ] {
            let p = parse_patch_dialect(t).unwrap();
            assert_eq!(p.dialect, vec![Dialect::NoEndMarker], "{t:?}");
            assert_eq!(hunks(&p.ops[0])[0].lines, vec![rm("x"), add("y")]);
        }
        let p =
            parse_patch_dialect("apply_patch <<EOF\n*** Begin Patch\n*** Delete File: a\nEOF\n")
                .unwrap();
        assert_eq!(
            p.ops,
            vec![FileOp::Delete {
                path: "a".into(),
                expect: None
            }]
        );
        // With no operation at all it is still an error.
        let e = err("*** Begin Patch\n\n");
        assert!(e.message.contains("expected `*** End Patch`"), "{e}");
    }

    #[test]
    fn prose_around_the_envelope_is_passed_over() {
        let p = parse_patch_dialect(&format!(
            "Here is the patch:\n\n{INNER}\nDone! Let me know.\n"
        ))
        .unwrap();
        assert_eq!(p.ops.len(), 1);
        assert_eq!(p.dialect, vec![Dialect::ProseAround]);
        // A second envelope (or a stray operation) after the end is refused, not dropped.
        let e = err(&format!("{INNER}\nAnd also:\n{INNER}"));
        assert_eq!(e.line, 6);
        assert!(e.message.contains("after `*** End Patch`"), "{e}");
        // Prose holding a marker before the envelope is still an error.
        let e = err(&format!("*** Update File: a\n{INNER}"));
        assert_eq!(e.line, 1);
    }

    #[test]
    fn no_operations() {
        let e = err("x\n"
            .replace("x\n", "*** Begin Patch\n\n*** End Patch\n")
            .as_str());
        assert_eq!(e.line, 1);
        assert!(e.message.contains("no operations"), "{e}");
    }

    #[test]
    fn unknown_header() {
        let e = err(&wrap("*** Modify File: a\n"));
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown header"), "{e}");
        // In column 0 inside a body, too.
        let e = err(&wrap("*** Update File: a\n@@\n-x\n*** Rename: b\n"));
        assert_eq!(e.line, 5);
        assert!(e.message.contains("unknown header"), "{e}");
    }

    #[test]
    fn nested_begin() {
        let e = err(&wrap("*** Begin Patch\n"));
        assert_eq!(e.line, 2);
        assert!(e.message.contains("nested"), "{e}");
    }

    #[test]
    fn misplaced_move_to() {
        let e = err(&wrap("*** Update File: a\n@@\n-x\n*** Move to: b\n"));
        assert_eq!(e.line, 5);
        assert!(e.message.contains("right after"), "{e}");
    }

    #[test]
    fn end_of_file_outside_chunk() {
        let e = err(&wrap("*** Delete File: a\n*** End of File\n"));
        assert_eq!(e.line, 3);
        assert!(e.message.contains("outside a chunk"), "{e}");
    }

    #[test]
    fn body_line_after_end_of_file() {
        let e = err(&wrap("*** Update File: a\n@@\n-x\n*** End of File\n\n+y\n"));
        assert_eq!(e.line, 7);
        assert!(e.message.contains("after `*** End of File`"), "{e}");
    }

    #[test]
    fn empty_paths() {
        for (body, line) in [
            ("*** Add File:\n+x\n", 2),
            ("*** Delete File:   \n", 2),
            ("*** Update File: \n@@\n-x\n", 2),
            ("*** Update File: a\n*** Move to:\n@@\n-x\n", 3),
        ] {
            let e = err(&wrap(body));
            assert_eq!(e.line, line, "{body}");
            assert!(e.message.contains("empty path"), "{body}: {e}");
        }
    }

    #[test]
    fn two_update_sections_for_one_file_are_one_operation() {
        let p = parse_patch_dialect(&wrap(
            "*** Update File: a\n@@\n-x\n+y\n*** Update File: b\n@@\n-q\n+r\n*** Update File: a\n@@\n-z\n+w\n",
        ))
        .unwrap();
        assert_eq!(p.ops.len(), 2);
        assert_eq!(p.alternatives.len(), 2);
        assert_eq!(hunks(&p.ops[0]).len(), 2);
        assert_eq!(hunks(&p.ops[0])[1].lines, vec![rm("z"), add("w")]);
        assert!(p.dialect.contains(&Dialect::SectionsMerged));
        // A section that moves the file, or moves another file onto it, or that reads as written
        // against the earlier section's result (its context holds a line the earlier one adds), is
        // still refused.
        for (body, line) in [
            ("*** Update File: a\n@@\n k1\n-v = 1\n+v = 2\n*** Update File: a\n@@\n k1\n-v = 2\n+v = 3\n", 7),
            (
                "*** Update File: a\n@@\n-x\n+y\n*** Update File: a\n*** Move to: c\n@@\n-z\n+w\n",
                6,
            ),
            (
                "*** Update File: a\n*** Move to: c\n@@\n-x\n+y\n*** Update File: a\n@@\n-z\n+w\n",
                7,
            ),
        ] {
            let e = err(&wrap(body));
            assert_eq!(e.line, line, "{body}");
            assert!(e.message.contains("already named"), "{body}: {e}");
        }
    }

    #[test]
    fn duplicate_operations() {
        for (body, line) in [
            ("*** Delete File: a\n*** Delete File: a\n", 3),
            ("*** Add File: a\n+x\n*** Update File: a\n@@\n-y\n", 4),
            (
                "*** Update File: a\n*** Move to: b\n@@\n-y\n*** Add File: b\n",
                6,
            ),
            ("*** Add File: b\n*** Update File: a\n*** Move to: b\n", 4),
        ] {
            let e = err(&wrap(body));
            assert_eq!(e.line, line, "{body}");
            assert!(e.message.contains("already named"), "{body}: {e}");
        }
    }

    #[test]
    fn add_line_without_plus() {
        let e = err(&wrap("*** Add File: a\n+x\ny\n"));
        assert_eq!(e.line, 4);
        assert!(e.message.contains("expected `+`"), "{e}");
    }

    #[test]
    fn add_content_that_lost_its_plus() {
        // A blank line among `+` lines is an empty line.
        let p = parse_patch_dialect(&wrap("*** Add File: a\n+x\n\n+y\n\n")).unwrap();
        assert_eq!(
            p.ops,
            vec![FileOp::Add {
                path: "a".into(),
                content: "x\n\ny\n".into()
            }]
        );
        assert_eq!(p.dialect, vec![Dialect::AddPrefixMissing]);
        // No line has its `+`: the lines are the content.
        let p = parse_patch_dialect(&wrap("*** Add File: a\ndef f():\n    return +1\n\nx = 2\n"))
            .unwrap();
        assert_eq!(
            p.ops,
            vec![FileOp::Add {
                path: "a".into(),
                content: "def f():\n    return +1\n\nx = 2\n".into()
            }]
        );
        assert_eq!(p.dialect, vec![Dialect::AddPrefixMissing]);
        // Textbook content notes nothing.
        let p = parse_patch_dialect(&wrap("*** Add File: a\n+x\n+\n+y\n\n")).unwrap();
        assert!(p.dialect.is_empty());
    }

    #[test]
    fn delete_with_body() {
        let e = err(&wrap("*** Delete File: a\n-x\n"));
        assert_eq!(e.line, 3);
        assert!(e.message.contains("takes no body lines"), "{e}");
    }

    #[test]
    fn stray_line_between_operations() {
        let e = err(&wrap("*** Delete File: a\nsome prose\n"));
        assert_eq!(e.line, 3);
        assert!(e.message.contains("expected `*** Add File"), "{e}");
    }

    #[test]
    fn update_without_chunks() {
        for body in [
            "*** Update File: a\n",
            "*** Update File: a\n\n*** Delete File: b\n",
        ] {
            let e = err(&wrap(body));
            assert_eq!(e.line, 2, "{body}");
            assert!(e.message.contains("has no chunks"), "{body}: {e}");
        }
    }

    #[test]
    fn chunk_without_body() {
        for (body, line) in [
            ("*** Update File: a\n@@ def f\n*** Delete File: b\n", 3),
            ("*** Update File: a\n@@\n-x\n@@ g\n\n\n", 5),
            ("*** Update File: a\n@@\n*** End of File\n", 3),
        ] {
            let e = err(&wrap(body));
            assert_eq!(e.line, line, "{body}");
            assert!(e.message.contains("no body lines"), "{body}: {e}");
        }
    }

    #[test]
    fn context_lines_without_their_space() {
        let p = parse_patch_dialect(&wrap(
            "*** Update File: a\n@@\n x\n\ty\ndef f():\n-    a\n+    b\n",
        ))
        .unwrap();
        assert_eq!(
            hunks(&p.ops[0])[0].lines,
            vec![
                ctx("x"),
                ctx("\ty"),
                ctx("def f():"),
                rm("    a"),
                add("    b")
            ]
        );
        assert_eq!(p.dialect, vec![Dialect::ContextPrefixMissing]);
        // `@@` glued to its scope is still a chunk header.
        let p = parse_patch_dialect(&wrap("*** Update File: a\n@@def f\n-x\n")).unwrap();
        assert_eq!(hunks(&p.ops[0])[0].anchors, vec!["def f".to_string()]);
    }

    #[test]
    fn unified_range_in_chunk_header_is_a_line_hint() {
        for (header, anchors) in [
            ("@@ -1,3 +1,4 @@", vec![]),
            ("@@ -1 +1 @@", vec![]),
            ("@@ -1,3 +1,4", vec![]),
            ("@@ -1,3 +1,4 @@ def f():", vec!["def f():".to_string()]),
        ] {
            let p =
                parse_patch_dialect(&wrap(&format!("*** Update File: a\n{header}\n-x\n"))).unwrap();
            let h = &hunks(&p.ops[0])[0];
            assert_eq!(h.line_hint, Some(1), "{header}");
            assert_eq!(h.anchors, anchors, "{header}");
            assert_eq!(p.dialect, vec![Dialect::UnifiedHeader]);
        }
    }

    #[test]
    fn escaped_patch_on_one_line_is_unescaped_once() {
        let t = "*** Begin Patch\\n*** Update File: a.py\\n@@\\n-x = \\\"a\\\\nb\\\"\\n+y\\n*** End Patch";
        let p = parse_patch_dialect(t).unwrap();
        assert_eq!(p.dialect, vec![Dialect::Unescaped]);
        assert_eq!(
            hunks(&p.ops[0])[0].lines,
            vec![rm("x = \"a\\nb\""), add("y")]
        );
        // A real line break after the first marker: parsed as it is.
        assert!(parse_patch_dialect(
            "*** Begin Patch\n*** Update File: a\n@@\n-x\\n\n+y\n*** End Patch\n"
        )
        .unwrap()
        .dialect
        .is_empty());
    }

    #[test]
    fn lines_of_an_unescaped_patch_are_its_one_input_line() {
        // Found by fuzzing: errors and hunk lines counted lines of the unescaped text.
        let e = err("\\n*** Begin Patch");
        assert_eq!(e.line, 1);
        let e = crate::edit::formats::parse_blocks("\\n<<<SEARCH").unwrap_err();
        assert_eq!(e.line, 1);
        let p = crate::edit::formats::parse_unified_diff_dialect(
            "prose\n--- a/x\\n+++ b/x\\n@@\\n-a\\n+b",
        )
        .unwrap();
        assert_eq!(hunks(&p.ops[0])[0].source_line, 2);
    }

    #[test]
    fn decorated_paths() {
        for raw in ["`src/a.py`", "\"src/a.py\"", "./src/a.py", "'src/a.py'"] {
            let p = parse_patch_dialect(&wrap(&format!("*** Delete File: {raw}\n"))).unwrap();
            assert_eq!(p.ops[0].path(), "src/a.py", "{raw}");
            assert_eq!(p.dialect, vec![Dialect::PathDecorated]);
        }
        let p = parse_patch_dialect(&wrap("*** Delete File: a/src/a.py\n")).unwrap();
        assert_eq!(p.ops[0].path(), "a/src/a.py");
        assert_eq!(p.alternatives, vec![vec!["src/a.py".to_string()]]);
    }

    #[test]
    fn unclosed_fence_and_heredoc() {
        let e = err(&format!("```\n{INNER}"));
        assert_eq!(e.line, 1);
        assert!(e.message.contains("fence"), "{e}");
        let e = err(&format!("\napply_patch <<'EOF'\n{INNER}"));
        assert_eq!(e.line, 2);
        assert!(e.message.contains("expected a last line `EOF`"), "{e}");
    }

    #[test]
    fn large_patch() {
        let mut t = String::from("*** Begin Patch\n");
        let mut files = 0;
        while t.len() < 2_000_000 {
            t.push_str(&format!("*** Update File: src/f{files}.py\n"));
            for h in 0..4 {
                t.push_str(&format!(
                    "@@ def f{h}():\n     a = {h}\n-    b = 1\n+    b = 2\n     return a + b\n"
                ));
            }
            t.push_str(&format!("*** Add File: new/f{files}.txt\n+hello\n+world\n"));
            files += 1;
        }
        t.push_str("*** End Patch\n");
        let ops = ok(&t);
        assert_eq!(ops.len(), files * 2);
        let total: usize = ops
            .iter()
            .filter(|o| o.kind() == "update")
            .map(|o| hunks(o).len())
            .sum();
        assert_eq!(total, files * 4);
    }
}
