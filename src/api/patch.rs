//! `applyPatch`, `applyBlocks`, `applyUnifiedDiff`: model output naming one or more files, parsed into
//! the edit IR and applied as one transaction; `parseBlocks` and `parsePathBlocks`: the pure parsers.
//!
//! Every operation of a patch, block set or diff is verified first (paths resolved in the sandbox,
//! files locked and read, base hashes checked, every hunk or edit located and applied in memory);
//! only then is anything written, through one [`Txn`], which restores the files already written if
//! a write fails midway. Any failure before the commit writes nothing. A failure is the failing
//! operation's failure with `op_index` (0-based), `op` and `file_path` added.
//!
//! Files keep their encoding (UTF-8, UTF-8 BOM, UTF-16), line terminators and final-newline state.
//! Files created by `Add File` (or a new-file diff, or an empty SEARCH block) are written as given:
//! UTF-8, LF. Overwriting an existing file (`overwrite: true`) keeps that file's encoding and
//! dominant line terminator. A move writes the new path and deletes the old one in the same
//! transaction.
//!
//! Option `validate` (see [`super::options::Validate`]) runs the syntax gate on every file an operation
//! adds or changes, during planning: under `enforce`, one file's new error fails the call before the
//! commit, so no file is written. File entries carry `syntax` (not for deletes and pure moves).

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use super::args::bad;
use super::checks::{check_base, syntax_gate};
use super::commit::Writer;
use super::options::{write_options, EditOptions};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::read::read_args;
use crate::contract::receipts::{
    indexmap_like::OrderedMap, to_value, ApplyBlocksSuccess, ApplyPatchSuccess, BlockEdit,
    BlockFileReceipt, HunkFileReceipt, JournalFields, ParseBlocksSuccess, ParsePathBlocksSuccess,
    TouchedFile, True,
};
use crate::edit::apply::MatchInfo;
use crate::edit::apply_hunks::HunkMatch;
use crate::edit::formats;
use crate::edit::hash::file_hash;
use crate::edit::ir::{dialect_names, note, Change, Dialect, Edit, FileOp, ParseError, Parsed};
use crate::edit::{apply, apply_hunks, diff, text};
use crate::error::{Code, Failure, Result};
use crate::fs::codec;
use crate::fs::txn::{Action, Txn};
use crate::fs::workspace::{Resolve, Workspace};
use crate::syntax::SyntaxReport;

/// Options of the multi-file entry points: the common ones ([`write_options`], without `base_hash`:
/// a patch names several files) and their own.
struct PatchOptions {
    edit: EditOptions,
    overwrite: bool,
    /// `{path as written in the patch: file_hash}`.
    base_hashes: Vec<(String, String)>,
    /// `applyBlocks`: apply every block to this file, ignoring paths in the text.
    /// `applyUnifiedDiff`: the file for hunks whose headers name no file (or none that exists).
    file_path: Option<String>,
    /// Set by [`touched`] only: stop once every path is chosen and resolved, and list them.
    targets_only: bool,
}

fn patch_options(o: i::PatchOptions, file_path: Option<String>) -> Result<PatchOptions> {
    let edit = write_options(o.write, None)?;
    if file_path.as_deref() == Some("") {
        return Err(bad("file_path is empty."));
    }
    Ok(PatchOptions {
        edit,
        overwrite: o.overwrite.unwrap_or(false),
        base_hashes: o.base_hashes.unwrap_or_default().into_iter().collect(),
        file_path,
        targets_only: false,
    })
}

fn parse_failure(e: ParseError, format: &str) -> Failure {
    Failure::new(
        Code::ParseError,
        format!(
            "the {format} is malformed at line {}: {}. Nothing was written; fix the syntax and resend.",
            e.line, e.message
        ),
    )
    .with("line", e.line)
}

fn block_edits(edits: Vec<Edit>) -> Vec<BlockEdit> {
    edits
        .into_iter()
        .map(|e| BlockEdit {
            old: e.old,
            new: e.new,
        })
        .collect()
}

/// `parseBlocks(text)`.
pub fn parse_blocks(a: i::ParseBlocksArgs) -> Res {
    let text = a.text.as_str();
    let edits = formats::parse_blocks(text).map_err(|e| parse_failure(e, "SEARCH/REPLACE text"))?;
    Ok(to_value(&ParseBlocksSuccess {
        ok: True,
        edits: block_edits(edits),
    }))
}

/// `parsePathBlocks(text)`.
pub fn parse_path_blocks(a: i::ParseBlocksArgs) -> Res {
    let text = a.text.as_str();
    let files =
        formats::parse_path_blocks(text).map_err(|e| parse_failure(e, "SEARCH/REPLACE text"))?;
    Ok(to_value(&ParsePathBlocksSuccess {
        ok: True,
        files: OrderedMap(
            files
                .into_iter()
                .map(|(path, edits)| (path, block_edits(edits)))
                .collect(),
        ),
    }))
}

/// Most hunks (or SEARCH/REPLACE blocks) one call may carry, as `applyEdits` caps its edits.
pub const MAX_HUNKS: usize = 10_000;

/// Refuses a parsed input with more than [`MAX_HUNKS`] hunks or blocks in all.
fn check_hunk_count(ops: &[FileOp]) -> Result<()> {
    let n: usize = ops
        .iter()
        .map(|op| match op {
            FileOp::Update {
                change: Change::Hunks(h),
                ..
            } => h.len(),
            FileOp::Update {
                change: Change::Edits(e),
                ..
            } => e.len(),
            _ => 1,
        })
        .sum();
    if n > MAX_HUNKS {
        return Err(bad(format!(
            "the input holds {n} hunks or blocks; at most {MAX_HUNKS} are accepted in one call. Split it into several calls."
        )));
    }
    Ok(())
}

/// The files a call of `op` (`apply_patch`, `apply_unified_diff` or `apply_blocks`) with `args` would
/// touch: the call itself, stopped once every path is chosen among its spellings and resolved (same
/// refusals), with nothing read or written. `{targets: [{path, display, exists, role, op_index}]}`;
/// `path` is the key of `base_hashes`. Used by `touchedFiles` ([`super::targets`]).
pub(super) fn touched(op: &str, args: &[Value]) -> Result<Vec<TouchedFile>> {
    let ran = match op {
        "apply_patch" => apply_patch_as(read_args(args)?, true),
        "apply_unified_diff" => apply_unified_diff_as(read_args(args)?, true),
        _ => apply_blocks_as(read_args(args)?, true),
    }?;
    match ran {
        Ran::Targets(t) => Ok(t),
        Ran::Receipt(_) => Err(Failure::new(
            Code::InternalError,
            "touchedFiles: the operation ran instead of listing its files",
        )),
    }
}

/// What [`run`] did: listed the files (`targets_only`), or applied the operations.
enum Ran {
    Targets(Vec<TouchedFile>),
    Receipt(Value),
}

impl Ran {
    fn receipt(self) -> Res {
        match self {
            Ran::Receipt(v) => Ok(v),
            Ran::Targets(_) => Err(Failure::new(
                Code::InternalError,
                "the operation listed its files instead of running",
            )),
        }
    }
}

/// `applyPatch(patchText, options)`.
pub fn apply_patch(a: i::ApplyPatchArgs) -> Res {
    apply_patch_as(a, false)?.receipt()
}

fn apply_patch_as(a: i::ApplyPatchArgs, targets_only: bool) -> Result<Ran> {
    let text = a.patch.as_str();
    let mut opts = patch_options(a.options.unwrap_or_default(), None)?;
    opts.targets_only = targets_only;
    let parsed =
        formats::parse_patch_dialect(text).map_err(|e| parse_failure(e, "apply_patch envelope"))?;
    run(parsed, &opts, Format::ApplyPatch)
}

/// `applyUnifiedDiff(diffText, options)`.
pub fn apply_unified_diff(a: i::ApplyUnifiedDiffArgs) -> Res {
    apply_unified_diff_as(a, false)?.receipt()
}

fn apply_unified_diff_as(a: i::ApplyUnifiedDiffArgs, targets_only: bool) -> Result<Ran> {
    let text = a.diff.as_str();
    let o = a.options.unwrap_or_default();
    let mut opts = patch_options(o.patch, o.file_path)?;
    opts.targets_only = targets_only;
    let mut parsed =
        formats::parse_unified_diff_dialect(text).map_err(|e| parse_failure(e, "unified diff"))?;
    if parsed.ops.is_empty() {
        return Err(Failure::new(
            Code::NoChanges,
            "the diff changes no file content (only modes, which surepatch does not change); nothing to do.",
        ));
    }
    // Hunks with no file header are for the caller's file.
    for op in &mut parsed.ops {
        if let FileOp::Update { path, .. } = op {
            if path.is_empty() {
                match &opts.file_path {
                    Some(p) => p.clone_into(path),
                    None => {
                        return Err(Failure::new(
                            Code::ParseError,
                            "the diff's hunks come with no `--- `/`+++ ` file headers, so it does not say which file they change. Nothing was written; pass file_path (the file the diff is for), or add `--- a/<path>` and `+++ b/<path>` lines.",
                        ))
                    }
                }
            }
        }
    }
    run(parsed, &opts, Format::UnifiedDiff)
}

/// `applyBlocks(text, options)`.
pub fn apply_blocks(a: i::ApplyBlocksArgs) -> Res {
    apply_blocks_as(a, false)?.receipt()
}

fn apply_blocks_as(a: i::ApplyBlocksArgs, targets_only: bool) -> Result<Ran> {
    let text = a.text.as_str();
    let o = a.options.unwrap_or_default();
    let mut opts = patch_options(o.patch, o.file_path)?;
    opts.targets_only = targets_only;
    let (groups, dialect) = match &opts.file_path {
        Some(p) => {
            let (edits, dialect) = formats::parse_blocks_dialect(text)
                .map_err(|e| parse_failure(e, "SEARCH/REPLACE text"))?;
            (vec![(p.clone(), edits)], dialect)
        }
        None => formats::parse_path_blocks_dialect(text)
            .map_err(|e| parse_failure(e, "SEARCH/REPLACE text"))?,
    };
    let mut ops = Vec::with_capacity(groups.len());
    for (i, (path, edits)) in groups.into_iter().enumerate() {
        let empty = edits.iter().filter(|e| e.old.is_empty()).count();
        if empty == 0 {
            ops.push(FileOp::Update {
                path,
                move_to: None,
                change: Change::Edits(edits),
            });
        } else if edits.len() == 1 {
            let content = edits.into_iter().next().map(|e| e.new).unwrap_or_default();
            ops.push(FileOp::Add { path, content });
        } else {
            return Err(bad(format!(
                "the blocks for {path} mix an empty SEARCH section (which creates the file) with other blocks; send the whole file in one block with an empty SEARCH, or search for existing text."
            ))
            .with("op_index", i)
            .with("file_path", path));
        }
    }
    let alternatives = ops
        .iter()
        .map(|op| formats::clean_path(op.path()).1)
        .collect();
    let parsed = Parsed {
        ops,
        dialect,
        alternatives,
    };
    run(parsed, &opts, Format::Blocks)
}

/// What one operation did to its file: the receipt's file entry before it takes its format's shape
/// ([`HunkFileReceipt`] or [`BlockFileReceipt`]).
struct Entry {
    file_path: String,
    op: &'static str,
    moved_to: Option<String>,
    /// Hunks or blocks applied.
    applied: usize,
    matches: Matches,
    diff: String,
    before_bytes: usize,
    after_bytes: usize,
    file_hash: Option<String>,
    syntax: Option<SyntaxReport>,
}

/// Where the hunks (patches, diffs) or edits (blocks) of one operation landed.
enum Matches {
    None,
    Hunks(Vec<HunkMatch>),
    Edits(Vec<MatchInfo>),
}

/// A change of the wrong kind for its format is a bug, reported as one (never dropped).
fn wrong_kind() -> Failure {
    Failure::new(
        Code::InternalError,
        "a file entry's matches are not of its format's kind",
    )
}

impl Entry {
    fn hunk_receipt(self) -> Result<HunkFileReceipt> {
        let matches = match self.matches {
            Matches::None => Vec::new(),
            Matches::Hunks(m) => m,
            Matches::Edits(_) => return Err(wrong_kind()),
        };
        Ok(HunkFileReceipt {
            file_path: self.file_path,
            op: self.op,
            moved_to: self.moved_to,
            hunks_applied: self.applied,
            matches,
            diff: self.diff,
            before_bytes: self.before_bytes,
            after_bytes: self.after_bytes,
            file_hash: self.file_hash,
            syntax: self.syntax,
        })
    }

    fn block_receipt(self) -> Result<BlockFileReceipt> {
        let matches = match self.matches {
            Matches::None => Vec::new(),
            Matches::Edits(m) => m,
            Matches::Hunks(_) => return Err(wrong_kind()),
        };
        if self.moved_to.is_some() {
            return Err(wrong_kind());
        }
        Ok(BlockFileReceipt {
            file_path: self.file_path,
            op: self.op,
            edits_applied: self.applied,
            matches,
            diff: self.diff,
            before_bytes: self.before_bytes,
            after_bytes: self.after_bytes,
            file_hash: self.file_hash,
            syntax: self.syntax,
        })
    }
}

/// One planned file operation, computed before anything is written.
struct Planned {
    entry: Entry,
    /// Txn entry and bytes to write there.
    write: Option<(usize, Vec<u8>)>,
    delete: Option<usize>,
}

fn tag(f: Failure, i: usize, op: &FileOp, display: Option<&str>) -> Failure {
    let mut f = f.with("op_index", i).with("op", op.kind());
    if !f.details.contains_key("file_path") {
        f = f.with("file_path", display.unwrap_or(op.path()));
    }
    f.message = format!(
        "operation {i} ({} {}): {}",
        op.kind(),
        display.unwrap_or(op.path()),
        f.message
    );
    f
}

/// The path an operation names, among its spellings: as written if that resolves to an existing
/// file (or, for a creation, to a place whose directory exists), else the first other spelling
/// that does, else the caller's `file_path` for a unified diff whose names are none of these.
/// The path as written otherwise, so that its own error is reported.
fn choose_path(
    ws: &Workspace,
    op: &FileOp,
    alternatives: &[String],
    fallback: Option<&str>,
    alt_note: Dialect,
    dialect: &mut Vec<Dialect>,
) -> String {
    let path = op.path();
    let exists = |p: &str| ws.resolve(p, Resolve::Existing).is_ok();
    let creatable = |p: &str| {
        ws.resolve(p, Resolve::MayCreate).is_ok()
            && match p.rsplit_once('/') {
                Some((dir, _)) => ws.root().join(dir).is_dir(),
                None => true,
            }
    };
    let usable = |p: &str| match op {
        FileOp::Add { .. } => creatable(p),
        _ => exists(p),
    };
    if (alternatives.is_empty() && fallback.is_none()) || usable(path) {
        return path.to_string();
    }
    if let Some(alt) = alternatives.iter().find(|a| usable(a)) {
        note(dialect, alt_note);
        return alt.clone();
    }
    match fallback {
        Some(f) if !matches!(op, FileOp::Add { .. }) => {
            note(dialect, Dialect::PathFallback);
            f.to_string()
        }
        _ => path.to_string(),
    }
}

/// Which entry point a parsed input came through.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    ApplyPatch,
    UnifiedDiff,
    Blocks,
}

fn run(parsed: Parsed, opts: &PatchOptions, format: Format) -> Result<Ran> {
    let Parsed {
        mut ops,
        mut dialect,
        alternatives,
    } = parsed;
    check_hunk_count(&ops)?;
    let ws = Workspace::new(&opts.edit.root)?;
    // 0. Pick each operation's path among its spellings (unified diffs: and the caller's file).
    let blocks = format == Format::Blocks;
    let (fallback, alt_note) = match format {
        Format::UnifiedDiff => (opts.file_path.as_deref(), Dialect::HeaderVariant),
        _ => (None, Dialect::PathDecorated),
    };
    for (i, op) in ops.iter_mut().enumerate() {
        let alts = alternatives.get(i).map_or(&[][..], Vec::as_slice);
        let chosen = choose_path(&ws, op, alts, fallback, alt_note, &mut dialect);
        if chosen != op.path() {
            match op {
                FileOp::Add { path, .. }
                | FileOp::Delete { path, .. }
                | FileOp::Update { path, .. } => *path = chosen,
            }
        }
    }
    // 1. Resolve every path; refuse two operations on one file and unwanted overwrites.
    let mut paths: Vec<(String, Resolve)> = Vec::new();
    let mut owner: HashMap<PathBuf, usize> = HashMap::new();
    let mut displays: Vec<(String, Option<String>)> = Vec::with_capacity(ops.len());
    let mut targets: Vec<TouchedFile> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let t = |f: Failure| tag(f, i, op, None);
        let mut claim = |real: &PathBuf, display: &str| -> Result<()> {
            if let Some(&j) = owner.get(real) {
                return Err(t(bad(format!(
                    "{display} is also named by operation {j}; each file may be touched by one operation only. Merge them."
                ))));
            }
            owner.insert(real.clone(), i);
            Ok(())
        };
        let (src_mode, target) = match op {
            FileOp::Add { .. } => (Resolve::MayCreate, None),
            FileOp::Delete { .. } => (Resolve::Existing, None),
            FileOp::Update { move_to, .. } => (Resolve::Existing, move_to.as_deref()),
        };
        let r = ws.resolve(op.path(), src_mode).map_err(t)?;
        if let FileOp::Add { .. } = op {
            // An empty SEARCH block may fill an empty file, and a file that already holds exactly
            // the content is a retry: decided once the file is read.
            if r.exists && !opts.overwrite && opts.targets_only && !blocks {
                return Err(t(Failure::new(
                    Code::FileExists,
                    format!(
                        "{} already exists; update it instead, or pass overwrite: true to replace it. Nothing was written.",
                        r.display
                    ),
                )
                .with("file_path", &r.display)));
            }
        }
        claim(&r.real, &r.display)?;
        paths.push((op.path().to_string(), src_mode));
        if opts.targets_only {
            targets.push(TouchedFile {
                path: op.path().to_string(),
                display: r.display.clone(),
                exists: r.exists,
                role: "source",
                op_index: Some(i),
                file_hash: None,
            });
        }
        let moved = match target {
            Some(to) => {
                let rt = ws.resolve(to, Resolve::MayCreate).map_err(t)?;
                if rt.real == r.real {
                    return Err(t(bad(format!(
                        "the move target {to} is the file itself ({}).",
                        r.display
                    ))));
                }
                if rt.exists && !opts.overwrite {
                    return Err(t(Failure::new(
                        Code::FileExists,
                        format!(
                            "the move target {} already exists; pick another name, or pass overwrite: true to replace it. Nothing was written.",
                            rt.display
                        ),
                    )
                    .with("file_path", &r.display)
                    .with("moved_to", &rt.display)));
                }
                claim(&rt.real, &rt.display)?;
                paths.push((to.to_string(), Resolve::MayCreate));
                if opts.targets_only {
                    targets.push(TouchedFile {
                        path: to.to_string(),
                        display: rt.display.clone(),
                        exists: rt.exists,
                        role: "move_target",
                        op_index: Some(i),
                        file_hash: None,
                    });
                }
                Some(rt.display)
            }
            None => None,
        };
        displays.push((r.display, moved));
    }
    for (p, _) in &opts.base_hashes {
        if !ops.iter().any(|op| op.path() == p) {
            let named: Vec<&str> = ops.iter().map(|op| op.path()).collect();
            return Err(bad(format!(
                "base_hashes names {p:?}, which no operation touches; the paths are {named:?} (as written in the input)."
            )));
        }
    }
    if opts.targets_only {
        return Ok(Ran::Targets(targets));
    }

    // 2. Lock and read every file (the write pipeline, [`super::commit`]).
    let mut w = Writer::open(
        &ws,
        &opts.edit.journal,
        &paths,
        opts.edit.max_file_bytes,
        opts.edit.dry_run,
    )
    .map_err(|f| {
        let at = f.detail("file_path").and_then(Value::as_str).and_then(|d| {
            displays
                .iter()
                .position(|(s, m)| s == d || m.as_deref() == Some(d))
        });
        match at {
            Some(i) => tag(f, i, &ops[i], Some(&displays[i].0)),
            None => f,
        }
    })?;

    // 3. Compute every operation. An operation whose result is wholly in its file already is
    // remembered, and the others are planned: the refusal then says which are left to apply.
    let mut planned = Vec::with_capacity(ops.len());
    let mut already: Option<Failure> = None;
    let mut pending_ops = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let display = displays[i].0.as_str();
        match plan(&mut w.txn, op, &displays[i], opts, blocks, &mut dialect) {
            Ok(p) => {
                planned.push(p);
                pending_ops.push(i);
            }
            Err(f)
                if f.code == Code::AlreadyApplied
                    && f.detail("pending")
                        .and_then(Value::as_array)
                        .is_some_and(Vec::is_empty) =>
            {
                if already.is_none() {
                    already = Some(tag(f, i, op, Some(display)));
                }
            }
            Err(f) => return Err(tag(f, i, op, Some(display))),
        }
    }
    if let Some(mut f) = already {
        if ops.len() > 1 {
            let rest: Vec<String> = pending_ops.iter().map(usize::to_string).collect();
            f.message = match rest.is_empty() {
                true => format!("{} Every operation of the patch is already applied.", f.message),
                false => format!(
                    "{} Operation(s) {} are not applied yet: nothing was written; re-read the files and send only those.",
                    f.message,
                    rest.join(", ")
                ),
            };
            f = f.with("pending_ops", &pending_ops);
        }
        return Err(f);
    }

    // 4. Commit. A moved file keeps its mode, owner and group, as a rename would.
    for p in &mut planned {
        if let (Some((to, _)), Some(from)) = (&p.write, p.delete) {
            w.txn.keep_like(*to, from);
        }
        if let Some((idx, bytes)) = p.write.take() {
            w.set(idx, Action::Write(bytes));
        }
        if let Some(idx) = p.delete {
            w.set(idx, Action::Delete);
        }
    }
    let written = !opts.edit.dry_run;
    let recorded = {
        let done = w.commit().map_err(|f| {
            let at = f.detail("file_path").and_then(Value::as_str).and_then(|d| {
                displays
                    .iter()
                    .position(|(s, m)| s == d || m.as_deref() == Some(d))
            });
            match at {
                Some(i) => tag(f, i, &ops[i], Some(&displays[i].0)),
                None => f,
            }
        })?;
        // One journal entry for the whole transaction: undoEdit(edit_id) restores every file.
        done.recorded
    };
    let entries = planned.into_iter().map(|p| p.entry);
    let dialect = dialect_names(&dialect);
    let journal = JournalFields::of(&recorded);
    Ok(Ran::Receipt(if blocks {
        to_value(&ApplyBlocksSuccess {
            ok: True,
            files: entries.map(Entry::block_receipt).collect::<Result<_>>()?,
            written,
            dialect,
            journal,
        })
    } else {
        to_value(&ApplyPatchSuccess {
            ok: True,
            files: entries.map(Entry::hunk_receipt).collect::<Result<_>>()?,
            written,
            dialect,
            journal,
        })
    }))
}

fn base_for<'a>(opts: &'a PatchOptions, path: &str) -> Option<&'a str> {
    opts.base_hashes
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, h)| h.as_str())
}

fn whole(before: &str, after: &str) -> Vec<(usize, usize, usize, usize)> {
    if before == after {
        Vec::new()
    } else {
        vec![(0, before.len(), 0, after.len())]
    }
}

/// [`apply_hunks::apply_hunks`], refusing hunks whose result is already in the file
/// (`ALREADY_APPLIED`, see [`crate::edit::already`]) and hunks that write an elision placeholder over the
/// code it stands for (`ELIDED_CONTENT`, see [`crate::edit::placeholder::elided_in_change`]).
fn hunks_checked(
    text: &str,
    hunks: &[crate::edit::ir::Hunk],
    tol: crate::edit::matcher::Tolerance,
    layout: crate::edit::matcher::Layout,
) -> Result<apply_hunks::AppliedHunks> {
    let a = match apply_hunks::apply_hunks_in(text, hunks, tol, layout) {
        Ok(a) => a,
        Err(f)
            if matches!(
                f.code,
                Code::SearchBlockNotFound | Code::SearchBlockAmbiguous | Code::OverlappingEdits
            ) =>
        {
            let at = f
                .detail("hunk_index")
                .and_then(Value::as_u64)
                .map(|i| i as usize);
            return Err(crate::edit::already::classify_hunks(text, hunks, at, tol).unwrap_or(f));
        }
        Err(f) => return Err(f),
    };
    crate::edit::already::check_hunks(text, hunks, &a.matches, tol)?;
    for &(os, oe, ns, ne) in &a.changes {
        let elided = crate::edit::placeholder::elided_in_change(text, os, oe, &a.text[ns..ne]);
        if elided.is_empty() {
            continue;
        }
        let first = text::line_number_at(text, os);
        let lines: Vec<(usize, &str)> = elided.iter().map(|&(j, l)| (first + j, l)).collect();
        // The hunk whose region holds the change.
        let hunk = a
            .matches
            .iter()
            .find(|m| m.start_line <= first && first <= m.end_line.max(m.start_line))
            .map(|m| m.hunk_index);
        let who = match hunk {
            Some(i) => format!("hunks[{i}] (patch line {})", hunks[i].source_line),
            None => "a hunk".to_string(),
        };
        let mut f = crate::edit::placeholder::elided_failure(&lines, &who);
        if let Some(i) = hunk {
            f = f
                .with("hunk_index", i)
                .with("hunk_line", hunks[i].source_line);
        }
        return Err(f);
    }
    Ok(a)
}

fn plan(
    txn: &mut Txn,
    op: &FileOp,
    names: &(String, Option<String>),
    opts: &PatchOptions,
    blocks: bool,
    dialect: &mut Vec<Dialect>,
) -> Result<Planned> {
    let (display, moved_to) = (names.0.as_str(), names.1.as_deref());
    let src = txn.index_of(op.path()).ok_or_else(|| {
        Failure::new(
            Code::InternalError,
            "a path is missing from the transaction",
        )
    })?;
    let before: Option<Vec<u8>> = txn.files[src].bytes.clone();
    if let Some(b) = &before {
        check_base(base_for(opts, op.path()), b, display)?;
    }
    let before_bytes = before.as_ref().map_or(0, Vec::len);
    let entry = |applied: usize,
                 matches: Matches,
                 diff: String,
                 after: Option<&[u8]>,
                 syntax: Option<SyntaxReport>| Entry {
        file_path: display.to_string(),
        op: op.kind(),
        moved_to: moved_to.map(str::to_string),
        applied,
        matches,
        diff,
        before_bytes,
        after_bytes: after.map_or(0, <[u8]>::len),
        file_hash: after.map(file_hash),
        syntax,
    };
    match op {
        FileOp::Add { content, .. } => {
            if let (Some(b), false) = (&before, opts.overwrite) {
                let now = codec::decode(b.clone()).ok().map(|d| d.text);
                // A file that already holds exactly this content: the creation was applied before.
                if now.as_deref().is_some_and(|t| {
                    !t.is_empty()
                        && text::convert_terminators(content, text::dominant_terminator(t)) == t
                }) {
                    return Err(Failure::new(
                        Code::AlreadyApplied,
                        format!("{display} already exists with exactly this content: the creation is already applied (a retried call?). Nothing was written, and nothing is left to do."),
                    )
                    .with("already_applied", [0])
                    .with("pending", Vec::<usize>::new())
                    .with("file_path", display));
                }
                if !blocks {
                    return Err(Failure::new(
                        Code::FileExists,
                        format!(
                            "{display} already exists; update it instead, or pass overwrite: true to replace it. Nothing was written."
                        ),
                    )
                    .with("file_path", display));
                }
                // An empty SEARCH block: it may fill a file that holds nothing but whitespace, never
                // replace content.
                let blank = now.is_some_and(|t| t.trim().is_empty());
                if !blank {
                    return Err(Failure::new(
                        Code::FileExists,
                        format!(
                            "{display} already exists and is not empty, and an empty SEARCH section would replace all of it. Nothing was written. To insert text, put a unique existing line in SEARCH and write it again in REPLACE with the new lines before or after it (or use editLines with an insert); to replace the whole file, use writeFile or pass overwrite: true."
                        ),
                    )
                    .with("file_path", display));
                }
            }
            // Overwriting keeps the replaced file's encoding and dominant line terminator.
            let (old_text, new_text, enc) = match before.map(codec::decode) {
                Some(Ok(d)) => {
                    let term = text::dominant_terminator(&d.text);
                    let new = text::convert_terminators(content, term).into_owned();
                    (d.text, new, d.encoding)
                }
                _ => (String::new(), content.clone(), codec::Encoding::Utf8),
            };
            // Overwriting code with placeholders that stand for it deletes it.
            let elided =
                crate::edit::placeholder::elided_in_change(&old_text, 0, old_text.len(), &new_text);
            if !elided.is_empty() {
                let lines: Vec<(usize, &str)> = elided.iter().map(|&(j, l)| (j + 1, l)).collect();
                return Err(crate::edit::placeholder::elided_failure(
                    &lines,
                    &format!("the new content of {display}"),
                ));
            }
            let report = syntax_gate(opts.edit.validate, display, &old_text, &new_text, &[])?;
            let d = diff::unified(display, &old_text, &new_text, &whole(&old_text, &new_text));
            let bytes = codec::encode(new_text, enc);
            Ok(Planned {
                entry: entry(0, Matches::None, d, Some(&bytes), report),
                write: Some((src, bytes)),
                delete: None,
            })
        }
        FileOp::Delete { expect, .. } => {
            let old_text = before
                .and_then(|b| codec::decode(b).ok())
                .map(|d| d.text)
                .unwrap_or_default();
            if let Some(shown) = expect {
                check_deleted_content(display, &old_text, shown)?;
            }
            let d = diff::unified(display, &old_text, "", &whole(&old_text, ""));
            Ok(Planned {
                entry: entry(0, Matches::None, d, None, None),
                write: None,
                delete: Some(src),
            })
        }
        FileOp::Update {
            move_to, change, ..
        } => {
            let before = before.unwrap_or_default();
            let target = match move_to {
                Some(to) => txn.index_of(to).ok_or_else(|| {
                    Failure::new(
                        Code::InternalError,
                        "a path is missing from the transaction",
                    )
                })?,
                None => src,
            };
            let pure_move = matches!(change, Change::Hunks(h) if h.is_empty())
                || matches!(change, Change::Edits(e) if e.is_empty());
            let (bytes, n, matches, d, report) = if pure_move {
                (before, 0, Matches::None, String::new(), None)
            } else {
                let decoded = codec::decode(before)?;
                // Indentation is syntax in some kinds of file (by the path the content is read from).
                let layout = crate::edit::matcher::Layout::of_path(display);
                let (new_text, n, matches, changes) = match change {
                    Change::Edits(edits) => {
                        // A block whose SEARCH only an earlier block's output holds: in turn.
                        let a = apply::apply_batch_in(
                            &decoded.text,
                            edits,
                            opts.edit.tolerance,
                            Dialect::BlocksInTurn,
                            layout,
                        )?;
                        for d in &a.dialect {
                            note(dialect, *d);
                        }
                        (a.text, edits.len(), Matches::Edits(a.matches), a.changes)
                    }
                    Change::Hunks(hunks) => {
                        let a = hunks_checked(&decoded.text, hunks, opts.edit.tolerance, layout)?;
                        for d in a.dialect {
                            note(dialect, d);
                        }
                        (a.text, hunks.len(), Matches::Hunks(a.matches), a.changes)
                    }
                };
                if new_text == decoded.text && move_to.is_none() {
                    return Err(Failure::new(
                        Code::NoChanges,
                        "the patch leaves the file exactly as it is (its + lines equal its - lines, up to noise the tolerance tiers ignore); nothing to change.",
                    ));
                }
                let label = moved_to.unwrap_or(display);
                let report = syntax_gate(
                    opts.edit.validate,
                    label,
                    &decoded.text,
                    &new_text,
                    &changes,
                )?;
                let d = diff::unified(label, &decoded.text, &new_text, &changes);
                (
                    codec::encode(new_text, decoded.encoding),
                    n,
                    matches,
                    d,
                    report,
                )
            };
            Ok(Planned {
                entry: entry(n, matches, d, Some(&bytes), report),
                write: Some((target, bytes)),
                delete: move_to.as_ref().map(|_| src),
            })
        }
    }
}

/// A deletion whose patch shows the content it deletes (a unified diff to `/dev/null`) deletes the
/// file only when that content is the file's, line for line (line endings and trailing whitespace
/// aside): a diff written against another version of the file is refused, nothing deleted.
fn check_deleted_content(display: &str, text: &str, shown: &str) -> Result<(), Failure> {
    let lines = |s: &str| -> Vec<String> {
        let mut v: Vec<String> = text::split_lines(s)
            .into_iter()
            .map(|l| l.trim_end().to_string())
            .collect();
        while v.last().is_some_and(String::is_empty) {
            v.pop();
        }
        v
    };
    let (file, patch) = (lines(text), lines(shown));
    if file == patch {
        return Ok(());
    }
    let at = file
        .iter()
        .zip(&patch)
        .position(|(a, b)| a != b)
        .unwrap_or(file.len().min(patch.len()));
    Err(Failure::new(
        Code::StaleFile,
        format!(
            "the diff deletes {display} and shows its content ({} lines), but the file ({} lines) differs from it at line {}; nothing was deleted. Re-read the file: it may have changed since the diff was written.",
            patch.len(),
            file.len(),
            at + 1
        ),
    )
    .with("file_path", display))
}
