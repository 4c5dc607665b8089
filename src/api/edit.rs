//! `patchFile`, `applyEdits` and `previewEdits`: edits to one existing file.

use serde_json::Value;

use super::args::{bad, type_name, Obj};
use super::commit::Writer;
use super::options::{EditOptions, Validate};
use super::{arg, Res};
use crate::apply::{self, Planned};
use crate::codec::{self, Encoding};
use crate::contract::receipts::{
    to_value, ApplyEditsSuccess, JournalFields, PatchFileSuccess, True,
};
use crate::error::{Code, Failure, Result};
use crate::hash::{file_hash, file_hash_parts};
use crate::ir::{Dialect, Edit};
use crate::journal::Recorded;
use crate::matcher::Tolerance;
use crate::syntax;
use crate::text::utf16_len;
use crate::txn::Action;
use crate::workspace::{Resolve, Workspace};

/// Set once an edit ran the syntax gate in this process (or `listSymbols` / `editSymbol` outlined a
/// file); from then on `viewFile` warms the gate's tree cache (see [`super::view`]), so hosts that
/// never validate never pay for parsing.
pub static GATE_USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs the syntax gate on one file's edit: `None` when `mode` is off, the report otherwise. Under
/// `enforce`, an edit that introduces an error fails with `SYNTAX_ERROR_INTRODUCED`, the report under
/// `syntax` and a message that shows the first new error in context. `changes` are the edit's byte
/// spans (`&[]` when none are at hand: the gate computes the differing span itself).
pub fn syntax_gate(
    mode: Validate,
    display: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> Result<Option<syntax::SyntaxReport>> {
    if mode == Validate::Off {
        return Ok(None);
    }
    GATE_USED.store(true, std::sync::atomic::Ordering::Relaxed);
    let report = syntax::check(display, before, after, changes);
    if mode == Validate::Enforce && !report.ok {
        let message =
            syntax::message(display, &report, before, after, changes).unwrap_or_else(|| {
                format!(
                    "The edit would introduce a syntax error in {display}. Nothing was written."
                )
            });
        return Err(Failure::new(Code::SyntaxErrorIntroduced, message)
            .with("file_path", display)
            .with("syntax", &report));
    }
    Ok(Some(report))
}

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

/// Checks `base_hash` against the bytes the caller's edit will be applied to.
pub fn check_base(base: Option<&str>, bytes: &[u8], display: &str) -> Result<()> {
    let Some(base) = base else { return Ok(()) };
    let now = file_hash(bytes);
    if now.eq_ignore_ascii_case(base) {
        return Ok(());
    }
    Err(Failure::new(
        Code::StaleFile,
        format!("{display} changed since it was read (base_hash {base}, now {now}); nothing was written. Re-read the file and rebuild the edit."),
    )
    .with("base_hash", base)
    .with("current_hash", now)
    .with("file_path", display))
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
    let mut applied = apply::plan_batch(
        scoped.as_deref().unwrap_or(&text),
        edits,
        opts.tolerance,
        Dialect::EditsInTurn,
    )
    .map_err(with_path)?;
    drop(scoped);
    let syntax = syntax_gate_planned(opts.validate, &display, &text, &applied)?;
    let mut lines = std::mem::take(&mut applied.lines);
    let spans: Vec<(usize, usize, &str)> = applied.spans().collect();
    let diff = crate::diff::unified_spans(&display, &text, &spans, &mut lines);
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
fn read_scoped_options(v: Option<&Value>) -> Result<EditOptions> {
    let mut o = Obj::new("options", v, true)?;
    let mut opts = super::options::read_common(&mut o, true)?;
    opts.name_path = o.string(&["name_path", "namePath"])?.map(str::to_string);
    o.finish()?;
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
    let term = crate::text::dominant_terminator(&old_text);
    let new_text = match created {
        true => new.to_string(),
        false => crate::text::convert_terminators(new, term).into_owned(),
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
    let diff = crate::diff::unified(&display, &old_text, &new_text, &changes);
    let after_text_utf16 = utf16_len(&new_text);
    let end_line = crate::text::split_lines(&old_text).len().max(1);
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
            tier: crate::matcher::Tier::Exact.as_str(),
            tolerances: Vec::new(),
        }],
        changes,
        first_changed_line: 1,
        tier: crate::matcher::Tier::Exact,
        lines: crate::text::LineCounter::new(),
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

/// Reads one edit from `{old|old_string|oldString|search, new|new_string|newString|replace,
/// expected_replacements}` or an `[old, new]` pair.
pub fn read_edit(v: &Value, name: &str) -> Result<Edit> {
    match v {
        Value::Array(pair) => {
            if pair.len() != 2 {
                return Err(bad(format!(
                    "{name} must be an [old, new] pair, got {} items.",
                    pair.len()
                )));
            }
            let s = |x: &Value, what: &str| match x {
                Value::String(s) => Ok(s.clone()),
                other => Err(bad(format!(
                    "{name}[{what}] must be a string, got {}.",
                    type_name(other)
                ))),
            };
            Ok(Edit::new(s(&pair[0], "0")?, s(&pair[1], "1")?))
        }
        Value::Object(_) => {
            let mut o = Obj::new(name, Some(v), false)?;
            let old = o
                .req_string(&["old", "old_string", "oldString", "search"])?
                .to_string();
            let new = o
                .string(&["new", "new_string", "newString", "replace"])?
                .ok_or_else(|| {
                    bad(format!(
                        "{name}.new is required (a string; \"\" deletes the old text)."
                    ))
                })?
                .to_string();
            let expected = o.uint(&["expected_replacements", "expectedReplacements"])?;
            o.finish()?;
            Ok(Edit {
                old,
                new,
                expected_replacements: expected.map(|n| n as usize),
            })
        }
        other => Err(bad(format!(
            "{name} must be an {{old, new}} object or an [old, new] pair, got {}.",
            type_name(other)
        ))),
    }
}

/// `patchFile(input, options)`.
pub fn patch_file(args: &[Value]) -> Res {
    let mut input = Obj::new("input", arg(args, 0), false)?;
    let path = input.req_string(&["file_path", "filePath"])?;
    let search = input.req_string(&["search_block", "searchBlock"])?;
    let replace = input.req_string(&["replace_block", "replaceBlock"])?;
    // The tool's own arguments may ride in `input` too, so a harness can pass a model's tool call
    // straight through: each must agree with the same setting in `options` when both are given.
    let base_hash = input
        .string(&["base_hash", "baseHash"])?
        .map(str::to_string);
    let dry_run = input.boolean(&["dry_run", "dryRun"])?;
    let tolerance = input.choice(&["tolerance"], &["exact", "safe"])?;
    input.finish()?;
    let mut opts = read_scoped_options(arg(args, 1))?;
    let given = arg(args, 1).and_then(Value::as_object);
    let in_options = |keys: &[&str]| {
        given.is_some_and(|m| keys.iter().any(|k| m.get(*k).is_some_and(|v| !v.is_null())))
    };
    let clash = |name: &str| {
        bad(format!(
            "{name} is given both with the tool's arguments and in options, with different values; give it once."
        ))
    };
    if let Some(h) = base_hash {
        if in_options(&["base_hash", "baseHash"]) && opts.base_hash.as_deref() != Some(h.as_str()) {
            return Err(clash("base_hash"));
        }
        opts.base_hash = Some(h);
    }
    if let Some(d) = dry_run {
        if in_options(&["dry_run", "dryRun"]) && opts.dry_run != d {
            return Err(clash("dry_run"));
        }
        opts.dry_run = d;
    }
    if let Some(t) = tolerance {
        let t = if t == "exact" {
            Tolerance::Exact
        } else {
            Tolerance::Safe
        };
        if in_options(&["tolerance"]) && opts.tolerance != t {
            return Err(clash("tolerance"));
        }
        opts.tolerance = t;
    }
    let out = edit_file(
        path,
        &[Edit::new(search, replace)],
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
        dialect: crate::ir::dialect_names(&out.applied.dialect),
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
pub fn apply_edits(args: &[Value], preview: bool) -> Res {
    let path = match arg(args, 0) {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Null) | None => return Err(bad("file_path is required (a string).")),
        Some(v) => {
            return Err(bad(format!(
                "file_path must be a string, got {}.",
                type_name(v)
            )))
        }
    };
    let edits = match arg(args, 1) {
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, e)| read_edit(e, &format!("edits[{i}]")))
            .collect::<Result<Vec<_>>>()?,
        Some(Value::Null) | None => {
            return Err(bad("edits is required: an array of {old, new} edits."))
        }
        Some(v) => {
            return Err(bad(format!(
                "edits must be an array, got {}.",
                type_name(v)
            )))
        }
    };
    let mut opts = read_scoped_options(arg(args, 2))?;
    if preview {
        opts.dry_run = true;
    }
    let out = edit_file(path, &edits, &opts, ("old", "new"))?;
    Ok(to_value(&ApplyEditsSuccess {
        ok: True,
        edits_applied: edits.len(),
        created: out.created.then_some(true),
        first_changed_line: out.applied.first_changed_line,
        tier: out.applied.tier.as_str(),
        dialect: crate::ir::dialect_names(&out.applied.dialect),
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
