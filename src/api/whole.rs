//! Whole-file operations: `createFile`, `writeFile`, `deleteFile`, and `undoEdit`.
//!
//! All go through the sandbox, a [`Txn`] (lock, atomic write, rollback) and the codecs, accept
//! `base_hash`, and journal what they replaced (see [`crate::fs::journal`]).
//!
//! A rewrite (`writeFile`, or `createFile` with `overwrite` over an existing file) keeps the file's
//! encoding (BOM included) and, when the file uses one line terminator throughout, converts the new
//! content's line breaks to it; options `encoding` and `line_ending` say otherwise. A new file is
//! UTF-8 and keeps the content's line breaks as given unless told otherwise.
//!
//! A rewrite refuses content with an elision placeholder on a line of its own — a comment that only
//! says `...`, `existing code`, `rest of the file unchanged` and the like, which a model leaves when it
//! means "keep what was there" — with `ELIDED_CONTENT`, unless `allow_placeholders`. Writing such a
//! file would delete the code it stands for. New files are not checked (nothing can be elided).
//!
//! Every receipt reports what the write changes line by line (a Myers line diff of the old and new
//! text): `lines_added`, `lines_removed`, `changed_lines` (per block of adjacent changed lines the
//! larger of removed and added, summed: a line edited in place counts once) and `changed_ranges`
//! (`{start_line, end_line}` in the new file, at most [`MAX_CHANGED_RANGES`], with
//! `changed_ranges_truncated`; lines only removed show as the empty range `end_line = start_line - 1`
//! just before `start_line`). A new file is all added lines. Option `max_changed_lines` guards a
//! rewrite of an existing file: one whose `changed_lines` is larger is refused with
//! `REWRITE_TOO_BROAD` (the same counts and ranges as details) and nothing is written, which catches
//! a model that meant to change a few lines but regenerated the file. Option `validate` runs the
//! syntax gate on the old and new text (a new file is checked against an empty one).

use std::borrow::Cow;

use serde_json::{json, Value};

use super::checks::{check_base, syntax_gate};
use super::commit::Writer;
use super::options::{edit_options, journal, root, JournalAt};
use super::options::{EditOptions, DEFAULT_MAX_FILE_BYTES};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts as r;
use crate::contract::receipts::{
    to_value, ChangedRange, DeleteFileSuccess, JournalFields, LineChangeFields, TouchedFile, True,
    UndoEditSuccess, WriteFileSuccess,
};
use crate::edit::hash::file_hash;
use crate::edit::line_changes::{differing_span, line_changes, LineChanges, MAX_CHANGED_RANGES};
use crate::edit::placeholder::placeholder_lines;
use crate::edit::text::convert_terminators;
use crate::error::{Code, Failure, Result};
use crate::fs::codec::{self, detect_line_ending, Encoding, LineEnding};
use crate::fs::journal::{self, Recorded, Scope, Target};
use crate::fs::txn::Action;
use crate::fs::workspace::{Resolve, Workspace};

/// One file opened for writing (step 1 of the write pipeline, [`super::commit`]).
pub struct Opened(Writer);

impl Opened {
    pub fn display(&self) -> &str {
        &self.0.txn.files[0].display
    }

    /// The file's current bytes (`None` when it does not exist).
    pub fn bytes(&self) -> Option<&[u8]> {
        self.0.txn.files[0].bytes.as_deref()
    }
}

/// Resolves and locks one file (after resolving the journal directory, so a bad one refuses the call
/// before anything is read).
pub fn open_one(path: &str, mode: Resolve, opts: &EditOptions) -> Result<Opened> {
    let ws = Workspace::new(&opts.root)?;
    let paths = [(path.to_string(), mode)];
    Writer::open(
        &ws,
        &opts.journal,
        &paths,
        opts.max_file_bytes,
        opts.dry_run,
    )
    .map(Opened)
}

/// Commits `action` (unless a dry run) and journals it. Returns the file's new hash (`None` after a
/// delete) and the journal entry.
pub fn commit_one(
    o: Opened,
    action: Action,
    opts: &EditOptions,
) -> Result<(Option<String>, Recorded)> {
    let mut w = o.0;
    if opts.dry_run {
        let h = match &action {
            Action::Write(b) => Some(file_hash(b)),
            _ => None,
        };
        return Ok((h, Recorded::default()));
    }
    w.set(0, action);
    let mut done = w.commit()?;
    Ok((done.committed[0].file_hash.take(), done.recorded))
}

// ---------------------------------------------------------------------------------------------
// Elision placeholders

fn elided(found: &[(usize, &str)], display: &str) -> Failure {
    let nums: Vec<String> = found.iter().map(|f| f.0.to_string()).collect();
    let list: Vec<Value> = found
        .iter()
        .map(|(n, l)| json!({"line": n, "text": l}))
        .collect();
    Failure::new(
        Code::ElidedContent,
        format!(
            "the new content of {display} has placeholder line(s) {} (such as \"{}\") standing for code left out; writing it would delete that code, so nothing was written. To keep the code the markers stand for, send the same text to mergeSnippet (each changed region with an unchanged line above and below it); or send the complete text, or edit only the changed region with applyEdits/editLines. If the line is meant literally, pass allow_placeholders: true.",
            nums.join(", "),
            found[0].1.trim()
        ),
    )
    .with("hint", "Send this content to mergeSnippet instead: it keeps the code each marker line stands for and changes only the regions shown.")
    .with("placeholder_lines", list)
    .with("file_path", display)
}

// ---------------------------------------------------------------------------------------------
// createFile / writeFile

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The existing file's terminator when it uses one throughout; otherwise the content as given.
    Keep,
    /// The content's line breaks as given.
    AsIs,
    To(&'static str),
}

struct WholeOptions {
    edit: EditOptions,
    overwrite: bool,
    max_changed_lines: Option<u64>,
    allow_placeholders: bool,
    encoding: Option<Encoding>,
    ending: Ending,
}

fn whole_options(o: i::WriteFileOptions, overwrite: bool) -> Result<WholeOptions> {
    let edit = edit_options(Some(o.edit))?;
    let encoding = o.encoding.map(|e| match e {
        r::Encoding::Utf8 => Encoding::Utf8,
        r::Encoding::Utf8Bom => Encoding::Utf8Bom,
        r::Encoding::Utf16Le => Encoding::Utf16Le,
        r::Encoding::Utf16Be => Encoding::Utf16Be,
    });
    let ending = match o.line_ending {
        Some(i::LineEndingOption::AsIs) => Ending::AsIs,
        Some(i::LineEndingOption::Lf) => Ending::To("\n"),
        Some(i::LineEndingOption::Crlf) => Ending::To("\r\n"),
        Some(i::LineEndingOption::Cr) => Ending::To("\r"),
        _ => Ending::Keep,
    };
    Ok(WholeOptions {
        edit,
        overwrite,
        max_changed_lines: o.max_changed_lines,
        allow_placeholders: o.allow_placeholders.unwrap_or(false),
        encoding,
        ending,
    })
}

/// `lines_added`, `lines_removed`, `changed_lines`, `changed_ranges` (capped) and
/// `changed_ranges_truncated`.
fn line_change_fields(lc: &LineChanges) -> LineChangeFields {
    LineChangeFields {
        lines_added: lc.added,
        lines_removed: lc.removed,
        changed_lines: lc.changed,
        changed_ranges: lc
            .ranges
            .iter()
            .take(MAX_CHANGED_RANGES)
            .map(|&(start_line, end_line)| ChangedRange {
                start_line,
                end_line,
            })
            .collect(),
        changed_ranges_truncated: lc.ranges.len() > MAX_CHANGED_RANGES,
    }
}

fn too_broad(lc: &LineChanges, max: u64, display: &str) -> Failure {
    let places: Vec<String> = lc
        .ranges
        .iter()
        .take(5)
        .map(|&(s, e)| match e.cmp(&s) {
            std::cmp::Ordering::Less => format!("removed before line {s}"),
            std::cmp::Ordering::Equal => format!("line {s}"),
            std::cmp::Ordering::Greater => format!("lines {s}-{e}"),
        })
        .collect();
    let more = if lc.ranges.len() > places.len() {
        format!(" and {} more", lc.ranges.len() - places.len())
    } else {
        String::new()
    };
    let mut f = Failure::new(
        Code::RewriteTooBroad,
        format!(
            "the rewrite of {display} changes {} line(s) ({} added, {} removed, in {} place(s): {}{more}), more than max_changed_lines {max}; nothing was written. Change only the lines you mean to (editLines, or applyEdits with the old and new text), or raise max_changed_lines if the whole rewrite is intended.",
            lc.changed,
            lc.added,
            lc.removed,
            lc.ranges.len(),
            places.join(", "),
        ),
    )
    .with("file_path", display)
    .with("max_changed_lines", max);
    if let Value::Object(m) = to_value(&line_change_fields(lc)) {
        for (k, v) in m {
            f = f.with(&k, v);
        }
    }
    f
}

fn write_whole(path: &str, content: &str, o: WholeOptions, create: bool) -> Res {
    let mode = if create {
        Resolve::MayCreate
    } else {
        Resolve::Existing
    };
    let opened = open_one(path, mode, &o.edit)?;
    let display = opened.display().to_string();
    let with_path = |f: Failure| f.with("file_path", &display);
    let existing = opened.bytes();
    if let (true, Some(b)) = (create && !o.overwrite, existing) {
        return Err(Failure::new(
            Code::FileExists,
            format!("{display} already exists; nothing was written. Edit it (applyEdits, editLines), rewrite it with writeFile, or pass overwrite: true."),
        )
        .with("file_path", &display)
        .with("current_hash", file_hash(b)));
    }
    match (existing, o.edit.base_hash.as_deref()) {
        (Some(b), base) => check_base(base, b, &display)?,
        (None, Some(base)) => {
            return Err(Failure::new(
                Code::StaleFile,
                format!("{display} does not exist any more (base_hash {base}); nothing was written. Re-read the directory; use createFile without base_hash to create it."),
            )
            .with("base_hash", base)
            .with("current_hash", Value::Null)
            .with("file_path", &display))
        }
        (None, None) => {}
    }
    let old = existing
        .map(codec::decode_slice)
        .transpose()
        .map_err(with_path)?;
    if old.is_some() && !o.allow_placeholders {
        let found = placeholder_lines(content);
        if !found.is_empty() {
            return Err(elided(&found, &display));
        }
    }
    // A leading U+FEFF in the content is a byte-order mark: UTF-8 content that starts with one is
    // written as UTF-8 with a BOM (unless `encoding` says otherwise), and never gets two.
    let (content, wants_bom) = match content.strip_prefix('\u{feff}') {
        Some(rest) => (rest, true),
        None => (content, false),
    };
    let encoding = match o.encoding.or(old.as_ref().map(|d| d.1)) {
        Some(Encoding::Utf8) | None if wants_bom && o.encoding.is_none() => Encoding::Utf8Bom,
        Some(e) => e,
        None => Encoding::Utf8,
    };
    let term = match o.ending {
        Ending::AsIs => None,
        Ending::To(t) => Some(t),
        Ending::Keep => match old.as_ref().map(|d| detect_line_ending(&d.0)) {
            Some(e @ (LineEnding::Lf | LineEnding::Crlf | LineEnding::Cr)) => Some(e.terminator()),
            _ => None,
        },
    };
    let new_text: Cow<str> = match term {
        Some(t) => convert_terminators(content, t),
        None => Cow::Borrowed(content),
    };
    let old_text: &str = old.as_ref().map_or("", |d| &d.0);
    let lines = line_changes(old_text, &new_text);
    if let (Some(max), true) = (o.max_changed_lines, existing.is_some()) {
        if lines.changed as u64 > max {
            return Err(too_broad(&lines, max, &display));
        }
    }
    let syntax = syntax_gate(o.edit.validate, &display, old_text, &new_text, &lines.spans)?;
    let span = differing_span(old_text, &new_text);
    let diff = crate::edit::diff::unified(&display, old_text, &new_text, &[span]);
    let line_ending = detect_line_ending(&new_text).as_str();
    let new_bytes = codec::encode(new_text.into_owned(), encoding);
    if existing == Some(new_bytes.as_slice()) {
        return Err(with_path(Failure::new(
            Code::NoChanges,
            "the content is what the file already holds; nothing was written.",
        )));
    }
    let before_bytes = existing.map_or(0, <[u8]>::len);
    let created = existing.is_none();
    drop(old);
    let after_bytes = new_bytes.len();
    let (hash, recorded) = commit_one(opened, Action::Write(new_bytes), &o.edit)?;
    Ok(to_value(&WriteFileSuccess {
        ok: True,
        file_path: display,
        created,
        encoding: encoding.as_str(),
        line_ending,
        before_bytes,
        after_bytes,
        lines: line_change_fields(&lines),
        diff,
        written: !o.edit.dry_run,
        file_hash: hash.unwrap_or_default(), // always Some for a write
        syntax,
        journal: JournalFields::of(&recorded),
    }))
}

/// `createFile(filePath, content, options)`.
pub fn create_file(a: i::CreateFileArgs) -> Res {
    let o = a.options.unwrap_or_default();
    let overwrite = o.overwrite.unwrap_or(false);
    write_whole(
        &a.file_path,
        &a.content,
        whole_options(o.write, overwrite)?,
        true,
    )
}

/// `writeFile(filePath, content, options)`.
pub fn write_file(a: i::WriteFileArgs) -> Res {
    let o = whole_options(a.options.unwrap_or_default(), false)?;
    write_whole(&a.file_path, &a.content, o, false)
}

/// `deleteFile(filePath, options)`.
pub fn delete_file(a: i::DeleteFileArgs) -> Res {
    let path = a.file_path.as_str();
    let opts = edit_options(a.options)?;
    let opened = open_one(path, Resolve::Existing, &opts)?;
    let display = opened.display().to_string();
    let bytes = opened.bytes().unwrap_or_default();
    check_base(opts.base_hash.as_deref(), bytes, &display)?;
    let before_bytes = bytes.len();
    let (_, recorded) = commit_one(opened, Action::Delete, &opts)?;
    Ok(to_value(&DeleteFileSuccess {
        ok: True,
        file_path: display,
        deleted: True,
        before_bytes,
        written: !opts.dry_run,
        file_hash: (),
        journal: JournalFields::of(&recorded),
    }))
}

// ---------------------------------------------------------------------------------------------
// undoEdit

/// What to undo, from `undoEdit`'s first argument: a string that has the form of an edit id names
/// that edit; any other string is a file path (undo the newest journaled edit of it). `{edit_id}` or
/// `{file_path}` says which explicitly.
fn undo_target(t: &i::UndoTarget) -> Target<'_> {
    match t {
        i::UndoTarget::IdOrPath(s) if crate::fs::ids::is_edit_id(s) => Target::Id(s),
        i::UndoTarget::IdOrPath(s) => Target::Path(s),
        i::UndoTarget::Named(i::UndoTargetObject::Id { edit_id }) => Target::Id(edit_id),
        i::UndoTarget::Named(i::UndoTargetObject::Path { file_path }) => Target::Path(file_path),
    }
}

/// `undoEdit`'s arguments, read and checked.
struct UndoCall<'a> {
    target: Target<'a>,
    ws: Workspace,
    journal: JournalAt,
    max_file_bytes: u64,
    /// `only_edit_ids`: the edits this undo may reach (an MCP session's own); `None`: every one.
    only: Option<Vec<String>>,
}

impl<'a> UndoCall<'a> {
    fn read(a: &'a i::UndoEditArgs) -> Result<UndoCall<'a>> {
        let target = undo_target(&a.target);
        let o = a.options.as_ref();
        let root = root(&o.map(|o| o.root.clone()).unwrap_or_default())?;
        let journal = journal(&o.map(|o| o.journal.clone()).unwrap_or_default())?;
        let max_file_bytes = o
            .and_then(|o| o.max_file_bytes)
            .unwrap_or(DEFAULT_MAX_FILE_BYTES);
        let only = o.and_then(|o| o.only_edit_ids.clone());
        Ok(UndoCall {
            target,
            ws: Workspace::new(&root)?,
            journal,
            max_file_bytes,
            only,
        })
    }

    fn scope(&self) -> Scope<'_> {
        self.only.as_deref().map_or(Scope::All, Scope::Only)
    }
}

/// `undoEdit(editIdOrPath, options)` (see [`undo_target`]). With `only_edit_ids`, an edit not in
/// that list is `EDIT_NOT_FOUND`, as an unknown one.
pub fn undo_edit(a: i::UndoEditArgs) -> Res {
    let c = UndoCall::read(&a)?;
    let disk = c.journal.open(&c.ws)?;
    let undone = journal::undo_in(&c.ws, c.target, disk.as_ref(), c.max_file_bytes, c.scope())?;
    Ok(to_value(&UndoEditSuccess {
        ok: True,
        edit_id: undone.edit_id,
        files: undone.files,
    }))
}

/// `touchedFiles("undo_edit", args)`: the files of the edit the undo would revert (role `"file"`),
/// or the undo's own refusal (`EDIT_NOT_FOUND`, `PATH_OUTSIDE_WORKSPACE`). Writes nothing: a host
/// journal directory that does not exist yet is not made (it holds nothing).
pub(super) fn undo_touched(args: &[Value]) -> Result<Vec<TouchedFile>> {
    let a: i::UndoEditArgs = crate::contract::read::read_args(args)?;
    let c = UndoCall::read(&a)?;
    let disk = match &c.journal {
        JournalAt::Host(d) if !std::path::Path::new(d).is_dir() => None,
        j => j.open(&c.ws)?,
    };
    let entry = journal::find(&c.ws, c.target, disk.as_ref(), c.scope())?;
    Ok(entry
        .files
        .into_iter()
        .map(|f| TouchedFile {
            path: f.display.clone(),
            exists: c.ws.resolve(&f.display, Resolve::Existing).is_ok(),
            display: f.display,
            role: "file",
            op_index: None,
            file_hash: None,
        })
        .collect())
}
