//! `patchFile`, `applyEdits` and `previewEdits`: edits to one existing file.

use serde_json::Value;

use super::args::bad;
use super::checks::{check_base, syntax_gate, GATE_USED};
use super::commit::Writer;
use super::options::{edit_options, tolerance, EditOptions, Validate};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{
    to_value, ApplyEditsSuccess, JournalFields, PatchFileSuccess, True,
};
use crate::edit::apply::{self, Planned};
use crate::edit::hash::{file_hash, file_hash_parts};
use crate::edit::ir::{Dialect, Edit};
use crate::edit::text::utf16_len;
use crate::error::{Code, Failure, Result};
use crate::fs::codec::{self, Encoding};
use crate::fs::journal::Recorded;
use crate::fs::txn::Action;
use crate::fs::workspace::{Resolve, Workspace};
use crate::syntax;

/// What one file edit produced, before it is shaped into a receipt.
pub struct Outcome {
    pub display: String,
    pub applied: Planned,
    pub before_text_utf16: usize,
    pub after_text_utf16: usize,
    pub before_bytes: usize,
    pub after_bytes: usize,
    pub diff: String,
    pub written: bool,
    pub file_hash: String,
    /// The journal entry of the write (empty for a dry run).
    pub recorded: Recorded,
    /// The syntax gate's report (`None` with `validate: "off"`).
    pub syntax: Option<syntax::SyntaxReport>,
    /// An empty `old` created the missing file.
    pub created: bool,
}

/// Resolve, lock, read, check the base hash, decode, apply `edits`, encode, write (unless dry run).
///
/// A UTF-8 file (with or without a BOM) is never copied whole: the text is borrowed from the bytes read,
/// the edits are located without building the new text, and the write sends the unchanged stretches
/// straight from the read buffer with the replacements between them ([`Action::Splice`]). The new text
/// is built only when the syntax gate parses it, or to encode a UTF-16 file.
/// `names`: what the caller calls an edit's two sides (`("search_block", "replace_block")` for
/// `patchFile`, `("old", "new")` for `applyEdits`), for messages.
pub fn edit_file(
    path: &str,
    edits: &[Edit],
    opts: &EditOptions,
    names: (&str, &str),
) -> Result<Outcome> {
    if let Some(i) = edits.iter().position(|e| e.old.is_empty()) {
        if edits.len() == 1 {
            return fill_file(path, &edits[0].new, opts, names);
        }
        return Err(bad(format!(
            "edits[{i}].old is empty: an empty old creates a missing file or fills an empty one, and must then be the only edit. To change existing text, put that text in old."
        ))
        .with("edit_index", i));
    }
    let ws = Workspace::new(&opts.root)?;
    let mut w = Writer::open(
        &ws,
        &opts.journal,
        &[(path.to_string(), Resolve::Existing)],
        opts.max_file_bytes,
        opts.dry_run,
    )?;
    let display = w.txn.files[0].display.clone();
    let with_path = |f: Failure| f.with("file_path", &display);
    // The bytes stay in the transaction (they reach the undo journal at commit).
    let bytes = w.txn.files[0].bytes.as_deref().unwrap_or_default();
    let before_bytes = bytes.len();
    check_base(opts.base_hash.as_deref(), bytes, &display)?;
    let (text, encoding, before_text_utf16) =
        codec::decode_slice_counted(bytes).map_err(with_path)?;
    // With name_path, the search sees only that symbol's span (the rest masked, offsets kept).
    let scoped = match &opts.name_path {
        Some(np) => Some(mask_outside(
            &text,
            super::symbols::symbol_span(&display, &text, np)?,
        )),
        None => None,
    };
    // A later edit whose old only an earlier edit's new holds: the list is applied in turn.
    let mut applied = apply::plan_batch_in(
        scoped.as_deref().unwrap_or(&text),
        edits,
        opts.tolerance,
        Dialect::EditsInTurn,
        crate::edit::matcher::Layout::of_path(&display),
    )
    .map_err(with_path)?;
    drop(scoped);
    let syntax = syntax_gate_planned(opts.validate, &display, &text, &applied)?;
    let mut lines = std::mem::take(&mut applied.lines);
    let spans: Vec<(usize, usize, &str)> = applied.spans().collect();
    let diff = crate::edit::diff::unified_spans(&display, &text, &spans, &mut lines);
    // Only the changed spans differ: adjust by them instead of measuring the new text again.
    let after_text_utf16 = spans.iter().fold(before_text_utf16, |n, &(os, oe, new)| {
        n - utf16_len(&text[os..oe]) + utf16_len(new)
    });
    let action = match encoding {
        // The text is the file's bytes after the BOM, if any.
        Encoding::Utf8 | Encoding::Utf8Bom => {
            let at = before_bytes - text.len();
            Action::Splice(
                spans
                    .iter()
                    .map(|&(os, oe, new)| (os + at, oe + at, new.as_bytes().to_vec()))
                    .collect(),
            )
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            Action::Write(codec::encode(applied.render(&text), encoding))
        }
    };
    let parts = action.parts(Some(bytes)).unwrap_or_default();
    let after_bytes = parts.iter().map(|p| p.len()).sum();
    let written = !opts.dry_run;
    let dry_hash = (!written).then(|| file_hash_parts(&parts));
    drop(parts);
    drop(spans);
    drop(text);
    let (file_hash, recorded) = match dry_hash {
        Some(h) => (h, Recorded::default()),
        None => {
            w.set(0, action);
            let mut done = w.commit()?;
            let hash = done.committed[0].file_hash.take().unwrap_or_default();
            (hash, done.recorded)
        }
    };
    Ok(Outcome {
        display,
        before_text_utf16,
        after_text_utf16,
        before_bytes,
        after_bytes,
        file_hash,
        diff,
        written,
        applied,
        recorded,
        syntax,
        created: false,
    })
}

/// `text` with every byte outside `span` replaced by NUL (line breaks kept): same length, same line
/// numbers, and no `old` without a NUL can match outside the span.
fn mask_outside(text: &str, (start, end): (usize, usize)) -> String {
    let mask = |s: &str| {
        s.bytes()
            .map(|b| {
                if b == b'\n' || b == b'\r' {
                    b as char
                } else {
                    '\0'
                }
            })
            .collect::<String>()
    };
    let mut out = mask(&text[..start]);
    out.push_str(&text[start..end]);
    out.push_str(&mask(&text[end..]));
    out
}

/// The options of `patchFile` / `applyEdits`: the single-file ones and `name_path`.
/// The options of patchFile and applyEdits: the single-file edit options and `name_path`.
fn scoped_options(o: Option<i::ScopedEditOptions>) -> Result<EditOptions> {
    let o = o.unwrap_or_default();
    let mut opts = edit_options(Some(o.edit))?;
    opts.name_path = o.name_path;
    Ok(opts)
}

/// An empty `old`: creates the file when it is missing, fills it when it holds nothing but
/// whitespace (the new text takes the file's encoding and line terminator), and is refused on a file
/// with content, since agents disagree on what it means there (one prepends, another appends). A file
/// that already holds exactly `new` is `ALREADY_APPLIED` (a retried creation).
fn fill_file(path: &str, new: &str, opts: &EditOptions, names: (&str, &str)) -> Result<Outcome> {
    let (old_name, new_name) = names;
    if opts.name_path.is_some() {
        return Err(bad(format!(
            "{old_name} is empty: name_path narrows the search of a non-empty {old_name} to one symbol; to add code next to a symbol, use editSymbol with insert_before or insert_after."
        ))
        .with("edit_index", 0));
    }
    let ws = Workspace::new(&opts.root)?;
    let mut w = Writer::open(
        &ws,
        &opts.journal,
        &[(path.to_string(), Resolve::MayCreate)],
        opts.max_file_bytes,
        opts.dry_run,
    )?;
    let display = w.txn.files[0].display.clone();
    let with_path = |f: Failure| f.with("file_path", &display);
    let bytes = w.txn.files[0].bytes.as_deref();
    let created = bytes.is_none();
    match (bytes, opts.base_hash.as_deref()) {
        (Some(b), base) => check_base(base, b, &display)?,
        (None, Some(base)) => {
            return Err(Failure::new(
                Code::StaleFile,
                format!("{display} does not exist any more (base_hash {base}); nothing was written. Re-read the directory; send the edit without base_hash to create the file."),
            )
            .with("base_hash", base)
            .with("current_hash", Value::Null)
            .with("file_path", &display))
        }
        (None, None) => {}
    }
    let before_bytes = bytes.map_or(0, <[u8]>::len);
    let (old_text, encoding, before_text_utf16) = match bytes {
        Some(b) => codec::decode_slice_counted(b).map_err(with_path)?,
        None => (std::borrow::Cow::Borrowed(""), Encoding::Utf8, 0),
    };
    if new.is_empty() {
        return Err(with_path(
            Failure::new(
                Code::NoChanges,
                format!("{old_name} and {new_name} are both empty; nothing to change."),
            )
            .with("edit_index", 0),
        ));
    }
    let term = crate::edit::text::dominant_terminator(&old_text);
    let new_text = match created {
        true => new.to_string(),
        false => crate::edit::text::convert_terminators(new, term).into_owned(),
    };
    if !created && new_text == *old_text {
        return Err(with_path(
            Failure::new(
                Code::AlreadyApplied,
                format!("{display} already holds exactly this text: the edit (an empty old, which creates or fills the file) is already applied (a retried call?). Nothing was written, and nothing is left to do."),
            )
            .with("edit_index", 0)
            .with("already_applied", [0])
            .with("pending", Vec::<usize>::new()),
        ));
    }
    if !old_text.trim().is_empty() {
        return Err(with_path(bad(format!(
            "{old_name} is empty, but {display} is not: an empty {old_name} only creates a missing file or fills an empty one. Agents disagree on what it means for a file with content (one prepends, another appends), so surepatch does neither. To insert text, put a unique existing line in {old_name} and write it again in {new_name} with the new lines before or after it; to replace the whole file, use writeFile."
        ))
        .with("edit_index", 0)));
    }
    let changes = vec![(0, old_text.len(), 0, new_text.len())];
    let syntax = syntax_gate(opts.validate, &display, &old_text, &new_text, &changes)?;
    let diff = crate::edit::diff::unified(&display, &old_text, &new_text, &changes);
    let after_text_utf16 = utf16_len(&new_text);
    let end_line = crate::edit::text::split_lines(&old_text).len().max(1);
    drop(old_text);
    let out = codec::encode(new_text.clone(), encoding);
    let after_bytes = out.len();
    let written = !opts.dry_run;
    let (file_hash, recorded) = match written {
        false => (file_hash(&out), Recorded::default()),
        true => {
            w.set(0, Action::Write(out));
            let mut done = w.commit()?;
            let hash = done.committed[0].file_hash.take().unwrap_or_default();
            (hash, done.recorded)
        }
    };
    let applied = Planned {
        replacements: vec![new_text],
        matches: vec![apply::MatchInfo {
            edit_index: 0,
            start_line: 1,
            end_line,
            tier: crate::edit::matcher::Tier::Exact.as_str(),
            tolerances: Vec::new(),
        }],
        changes,
        first_changed_line: 1,
        tier: crate::edit::matcher::Tier::Exact,
        lines: crate::edit::text::LineCounter::new(),
        dialect: Vec::new(),
    };
    Ok(Outcome {
        display,
        applied,
        before_text_utf16,
        after_text_utf16,
        before_bytes,
        after_bytes,
        diff,
        written,
        file_hash,
        recorded,
        syntax,
        created,
    })
}

/// [`syntax_gate`] for a planned edit: the new text is built only when the gate will parse it (not for
/// an unknown language or a file above the gate's size cap, which are reported as skipped).
fn syntax_gate_planned(
    mode: Validate,
    display: &str,
    text: &str,
    plan: &Planned,
) -> Result<Option<syntax::SyntaxReport>> {
    if mode == Validate::Off {
        return Ok(None);
    }
    if let Err(skipped) = syntax::gate_language(display, text.len(), plan.after_len(text)) {
        GATE_USED.store(true, std::sync::atomic::Ordering::Relaxed);
        return Ok(Some(skipped));
    }
    syntax_gate(mode, display, text, &plan.render(text), &plan.changes)
}

/// One edit as declared (`{old, new, expected_replacements, replace_all}` in any spelling, or an
/// `[old, new]` pair) in the engine's terms, with whether it replaces every occurrence.
pub fn edit_of(e: i::Edit, name: &str) -> Result<(Edit, bool)> {
    match e {
        i::Edit::Spec(s) => {
            let (expected_replacements, all) =
                count_of(name, s.expected_replacements, s.replace_all)?;
            Ok((
                Edit {
                    old: s.old,
                    new: s.new,
                    expected_replacements,
                },
                all,
            ))
        }
        i::Edit::Pair([old, new]) => Ok((Edit::new(old, new), false)),
    }
}

/// `patchFile(input, options)`.
pub fn patch_file(a: i::PatchFileArgs) -> Res {
    let input = a.input;
    let given = a.options.unwrap_or_default();
    let (expected_replacements, all) =
        count_of("patch_file", input.expected_replacements, input.replace_all)?;
    // The tool's own arguments may ride in `input` too, so a harness can pass a model's tool call
    // straight through: each must agree with the same setting in `options` when both are given.
    let clash = |name: &str| {
        bad(format!(
            "{name} is given both with the tool's arguments and in options, with different values; give it once."
        ))
    };
    if let (Some(h), Some(o)) = (&input.base_hash, &given.edit.base_hash) {
        if h != o {
            return Err(clash("base_hash"));
        }
    }
    if let (Some(d), Some(o)) = (input.dry_run, given.edit.write.dry_run) {
        if d != o {
            return Err(clash("dry_run"));
        }
    }
    if let (Some(t), Some(o)) = (&input.tolerance, &given.edit.write.tolerance) {
        if tolerance(Some(t)) != tolerance(Some(o)) {
            return Err(clash("tolerance"));
        }
    }
    let mut opts = scoped_options(Some(given))?;
    if let Some(h) = input.base_hash {
        opts.base_hash = Some(h);
    }
    if let Some(d) = input.dry_run {
        opts.dry_run = d;
    }
    if input.tolerance.is_some() {
        opts.tolerance = tolerance(input.tolerance.as_ref());
    }
    let (path, search, replace) = (&input.file_path, input.search_block, input.replace_block);
    let edit = Edit {
        expected_replacements,
        ..Edit::new(search, replace)
    };
    let (_, out) = edit_file_all(
        path,
        vec![edit],
        &[all],
        &opts,
        ("search_block", "replace_block"),
    )?;
    let first = &out.applied.matches[0];
    Ok(to_value(&PatchFileSuccess {
        ok: True,
        replacements: out.applied.matches.len(),
        created: out.created.then_some(true),
        line_number: first.start_line,
        tier: first.tier,
        dialect: crate::edit::ir::dialect_names(&out.applied.dialect),
        before_chars: out.before_text_utf16,
        after_chars: out.after_text_utf16,
        before_bytes: out.before_bytes,
        after_bytes: out.after_bytes,
        written: out.written,
        journal: JournalFields::of(&out.recorded),
        file_path: out.display,
        diff: out.diff,
        file_hash: out.file_hash,
        syntax: out.syntax,
    }))
}

/// `applyEdits(filePath, edits, options)` and `previewEdits(...)` (a dry run).
pub fn apply_edits(a: i::ApplyEditsArgs, preview: bool) -> Res {
    let path = a.file_path.as_str();
    let (edits, all): (Vec<Edit>, Vec<bool>) = a
        .edits
        .into_iter()
        .enumerate()
        .map(|(i, e)| edit_of(e, &format!("edits[{i}]")))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let mut opts = scoped_options(a.options)?;
    if preview {
        opts.dry_run = true;
    }
    let (edits, out) = edit_file_all(path, edits, &all, &opts, ("old", "new"))?;
    Ok(to_value(&ApplyEditsSuccess {
        ok: True,
        edits_applied: edits.len(),
        created: out.created.then_some(true),
        first_changed_line: out.applied.first_changed_line,
        tier: out.applied.tier.as_str(),
        dialect: crate::edit::ir::dialect_names(&out.applied.dialect),
        before_chars: out.before_text_utf16,
        after_chars: out.after_text_utf16,
        before_bytes: out.before_bytes,
        after_bytes: out.after_bytes,
        written: out.written,
        journal: JournalFields::of(&out.recorded),
        matches: out.applied.matches,
        file_path: out.display,
        diff: out.diff,
        file_hash: out.file_hash,
        syntax: out.syntax,
    }))
}

// ---------------------------------------------------------------------------------------------
// replace_all
//
// `replace_all` (Claude Code's Edit and MultiEdit): an edit that replaces every occurrence of its old
// text, however many there are (at least one). The engine's own count check does the work: the edit
// is tried as a unique replacement, and when the file holds its old text `n > 1` times (which the
// engine reports as `SEARCH_BLOCK_AMBIGUOUS` with `match_count: n`, nothing written) it is tried again
// as `expected_replacements: n`. Each try is a whole transaction of its own, so a file changed in
// between is found by the second try's own count (`MATCH_COUNT_MISMATCH`), never written blindly.

/// `expected_replacements` and `replace_all` of one edit, read together: both given is refused.
pub fn count_of(
    name: &str,
    expected: Option<u64>,
    all: Option<bool>,
) -> Result<(Option<usize>, bool)> {
    match (expected, all) {
        (Some(_), Some(true)) => Err(bad(format!(
            "{name}: give expected_replacements or replace_all, not both (replace_all replaces every occurrence, however many)."
        ))),
        (e, a) => Ok((e.map(|n| n as usize), a == Some(true))),
    }
}

/// [`edit_file`], where each edit whose `all` is true replaces every occurrence of its old text.
pub fn edit_file_all(
    path: &str,
    mut edits: Vec<Edit>,
    all: &[bool],
    opts: &EditOptions,
    names: (&str, &str),
) -> Result<(Vec<Edit>, Outcome)> {
    // Each retry fixes the count of one edit: at most one try per edit, plus the last.
    for _ in 0..=edits.len() {
        match edit_file(path, &edits, opts, names) {
            Ok(out) => return Ok((edits, out)),
            Err(f) if f.code == Code::SearchBlockAmbiguous => {
                let at = f.details.get("edit_index").and_then(Value::as_u64);
                let n = f.details.get("match_count").and_then(Value::as_u64);
                match (at, n) {
                    (Some(i), Some(n))
                        if n > 1
                            && all.get(i as usize) == Some(&true)
                            && edits[i as usize].expected_replacements.is_none() =>
                    {
                        edits[i as usize].expected_replacements = Some(n as usize);
                    }
                    _ => return Err(f),
                }
            }
            Err(f) => return Err(f),
        }
    }
    Err(Failure::new(
        Code::InternalError,
        "replace_all: the occurrences could not be counted; nothing was written.",
    ))
}
