//! `mergeSnippet`: a lazy snippet (the changed regions with `// ... existing code ...` markers for
//! what stays) merged into one existing file by [`crate::edit::lazy`], through the one write pipeline
//! ([`super::commit`]): lock and read, `base_hash`, merge, syntax gate, encode (the file's encoding,
//! BOM and line terminators kept), write and journal (undo), or a dry run.
//!
//! A snippet without any marker is the whole new file (a rewrite: its line breaks take the file's
//! terminator), unless it is a fragment of the file, which is refused (`SNIPPET_UNANCHORED`).

use super::checks::{check_base, syntax_gate};
use super::options::edit_options;
use super::whole::{commit_one, open_one};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, JournalFields, MergeSnippetSuccess, True};
use crate::edit::lazy::{merge, Plan};
use crate::edit::line_changes::line_changes;
use crate::edit::text::utf16_len;
use crate::error::{Code, Failure};
use crate::fs::codec;
use crate::fs::txn::Action;
use crate::fs::workspace::Resolve;

/// `mergeSnippet(input, options)`.
pub fn merge_snippet(a: i::MergeSnippetArgs) -> Res {
    let (path, snippet) = (a.input.file_path.as_str(), a.input.snippet.as_str());
    let opts = edit_options(a.options)?;
    let opened = open_one(path, Resolve::Existing, &opts)?;
    let display = opened.display().to_string();
    let with_path = |f: Failure| f.with("file_path", &display);
    let bytes = opened.bytes().unwrap_or_default();
    check_base(opts.base_hash.as_deref(), bytes, &display)?;
    let before_bytes = bytes.len();
    let (old, encoding, before_chars) = codec::decode_slice_counted(bytes).map_err(with_path)?;
    let snippet = snippet.strip_prefix('\u{feff}').unwrap_or(snippet);
    let (new, mode, chunks, removed, tier) = match merge(&old, snippet, opts.tolerance) {
        Ok(Plan::Merged(m)) => (m.text, "merge", m.landings, m.removed, m.tier),
        Ok(Plan::Rewrite) => {
            let term = crate::edit::text::dominant_terminator(&old);
            let text = crate::edit::text::convert_terminators(snippet, term).into_owned();
            (
                text,
                "rewrite",
                Vec::new(),
                Vec::new(),
                crate::edit::matcher::Tier::Exact,
            )
        }
        Err(f) => return Err(with_path(f)),
    };
    if new == *old {
        return Err(with_path(Failure::new(
            Code::NoChanges,
            "the merged snippet is what the file already holds (every chunk's lines are already there); nothing was written.",
        )));
    }
    let lines = line_changes(&old, &new);
    let syntax = syntax_gate(opts.validate, &display, &old, &new, &lines.spans)?;
    let diff = crate::edit::diff::unified(&display, &old, &new, &lines.spans);
    let first_changed_line = lines.ranges.first().map_or(1, |r| r.0);
    let after_chars = utf16_len(&new);
    drop(old);
    let out = codec::encode(new, encoding);
    let after_bytes = out.len();
    let (hash, recorded) = commit_one(opened, Action::Write(out), &opts)?;
    Ok(to_value(&MergeSnippetSuccess {
        ok: True,
        file_path: display,
        mode,
        chunks,
        removed_ranges: removed,
        first_changed_line,
        tier: tier.as_str(),
        dialect: Vec::new(),
        before_chars,
        after_chars,
        before_bytes,
        after_bytes,
        diff,
        written: !opts.dry_run,
        file_hash: hash.unwrap_or_default(),
        syntax,
        journal: JournalFields::of(&recorded),
    }))
}
