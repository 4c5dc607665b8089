//! `listSymbols(filePath, options)` and `editSymbol({file_path, name_path, action, text}, options)`:
//! a file's outline, and edits addressed by a symbol's name path (see [`crate::syntax::symbols`] for
//! the span, name and whitespace rules).
//!
//! `editSymbol` goes through the one write pipeline ([`super::commit`]: `dry_run`, `base_hash`,
//! the undo journal) and always runs the syntax gate: under `validate: "enforce"` an edit that adds
//! a parse error is refused with `SYNTAX_ERROR_INTRODUCED`; otherwise the receipt reports it.
//! A name path that names no symbol, or several, is refused with `SYMBOL_NOT_FOUND` /
//! `SYMBOL_AMBIGUOUS` and `candidates` (each candidate's `name_path` names exactly that symbol); a
//! file without a grammar with `UNSUPPORTED_LANGUAGE`.

use super::args::bad;
use super::checks::{check_base, syntax_gate};
use super::options::{edit_options, root, Validate, DEFAULT_MAX_FILE_BYTES};
use super::whole::{commit_one, open_one};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, JournalFields, SymbolCandidate, True};
use crate::contract::symbols::{EditSymbolSuccess, ListSymbolsSuccess, OutlineSymbol};
use crate::edit::hash::file_hash;
use crate::error::{Code, Failure, Result};
use crate::fs::codec;
use crate::fs::txn::{Action as TxnAction, Txn};
use crate::fs::workspace::{Resolve, Workspace};

#[cfg(grammar)]
use crate::syntax::symbols::{self, Action, NoOutline, Outline, Resolved};

/// The outline of `text` (`display` picks the grammar), or the failure for a file without one.
#[cfg(grammar)]
fn outline_of(display: &str, text: &str) -> Result<Outline> {
    // From now on viewFile warms the parse cache too (see `super::view`): a caller that outlines
    // files gets the next outline or symbol edit of a file it viewed without a full parse.
    super::checks::GATE_USED.store(true, std::sync::atomic::Ordering::Relaxed);
    symbols::outline(display, text).map_err(|e| {
        let f = match e {
            NoOutline::UnknownLanguage => Failure::new(
                Code::UnsupportedLanguage,
                format!(
                    "{display}: surepatch has no grammar for this file's extension, so it has no symbols (languages: {}). Edit it with patchFile, applyEdits or editLines.",
                    crate::syntax::languages().join(", ")
                ),
            ),
            NoOutline::TooLarge(l) => Failure::new(
                Code::FileTooLarge,
                format!(
                    "{display} is above {} MiB, the most the {l} grammar parses; edit it with patchFile, applyEdits or editLines.",
                    crate::syntax::MAX_BYTES / (1024 * 1024)
                ),
            ),
            NoOutline::Timeout(l) => Failure::new(
                Code::FileTooLarge,
                format!(
                    "{display}: parsing it as {l} took longer than {} s; edit it with patchFile, applyEdits or editLines.",
                    crate::syntax::PARSE_BUDGET.as_secs()
                ),
            ),
        };
        f.with("file_path", display)
    })
}

#[cfg(not(grammar))]
fn no_grammar(display: &str) -> Failure {
    Failure::new(
        Code::UnsupportedLanguage,
        format!("{display}: this build of surepatch has no grammars, so no file has symbols. Edit it with patchFile, applyEdits or editLines."),
    )
    .with("file_path", display)
}

/// The one symbol `name_path` names in `outline`, or `SYMBOL_NOT_FOUND` / `SYMBOL_AMBIGUOUS`.
#[cfg(grammar)]
fn find(outline: &Outline, display: &str, name_path: &str) -> Result<usize> {
    let candidates = |ids: &[usize]| -> Vec<SymbolCandidate> {
        ids.iter()
            .map(|&i| {
                let s = &outline.symbols[i];
                SymbolCandidate {
                    name_path: s.name_path.clone(),
                    kind: s.kind,
                    start_line: s.start_line,
                    end_line: s.end_line,
                }
            })
            .collect()
    };
    let list = |c: &[SymbolCandidate]| {
        c.iter()
            .map(|c| format!("{} ({}, line {})", c.name_path, c.kind, c.start_line))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match symbols::resolve(&outline.symbols, name_path) {
        Ok(i) => Ok(i),
        Err(Resolved::Ambiguous { candidates: ids }) => {
            let c = candidates(&ids);
            Err(Failure::new(
                Code::SymbolAmbiguous,
                format!(
                    "{name_path:?} names {} symbols in {display}: {}. Nothing was written. Send one of these name paths verbatim.",
                    c.len(),
                    list(&c)
                ),
            )
            .with("file_path", display)
            .with("candidates", c))
        }
        Err(Resolved::NotFound { candidates: ids }) => {
            let c = candidates(&ids);
            let msg = if outline.symbols.is_empty() {
                format!("{display} has no symbols, so {name_path:?} names nothing. Nothing was written.")
            } else {
                format!(
                    "no symbol of {display} has the name path {name_path:?}. Nothing was written. Candidates: {}. Send one of these name paths verbatim, or list the symbols with listSymbols.",
                    list(&c)
                )
            };
            Err(Failure::new(Code::SymbolNotFound, msg)
                .with("file_path", display)
                .with("candidates", c))
        }
    }
}

/// The outline of `text` (enough of it to resolve `name_path`: see [`symbols::outline_named`]) and
/// the index of the one symbol `name_path` names; a failure is built from the whole outline.
#[cfg(grammar)]
fn locate(display: &str, text: &str, name_path: &str) -> Result<(Outline, usize)> {
    let part = symbols::outline_named(display, text, name_path);
    if let Ok(part) = part {
        if let Ok(i) = symbols::resolve(&part.symbols, name_path) {
            return Ok((part, i));
        }
    }
    let outline = outline_of(display, text)?;
    let i = find(&outline, display, name_path)?;
    Ok((outline, i))
}

/// The byte span of the symbol `name_path` names in `text` (for `patchFile` / `applyEdits` with
/// option `name_path`).
#[cfg(grammar)]
pub(super) fn symbol_span(display: &str, text: &str, name_path: &str) -> Result<(usize, usize)> {
    let (outline, i) = locate(display, text, name_path)?;
    let s = &outline.symbols[i];
    Ok((s.start, s.end))
}

#[cfg(not(grammar))]
pub(super) fn symbol_span(display: &str, _text: &str, _name_path: &str) -> Result<(usize, usize)> {
    Err(no_grammar(display))
}

/// `listSymbols(filePath, options)`.
pub fn list_symbols(a: i::ListSymbolsArgs) -> Res {
    let path = a.file_path.as_str();
    let o = a.options.unwrap_or_default();
    let root = root(&o.root)?;
    let max_file_bytes = o.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES);
    let ws = Workspace::new(&root)?;
    let txn = Txn::open(
        &ws,
        &[(path.to_string(), Resolve::Existing)],
        max_file_bytes,
    )?;
    let file = &txn.files[0];
    let display = file.display.clone();
    let bytes = file.bytes.as_deref().unwrap_or_default();
    let (text, _) = codec::decode_slice(bytes).map_err(|f| f.with("file_path", &display))?;
    list(&display, &text, bytes)
}

#[cfg(not(grammar))]
fn list(display: &str, _text: &str, _bytes: &[u8]) -> Res {
    Err(no_grammar(display))
}

#[cfg(grammar)]
fn list(display: &str, text: &str, bytes: &[u8]) -> Res {
    let outline = outline_of(display, text)?;
    let n = outline.symbols.len();
    let compact = outline.text();
    // Built from the last symbol to the first, so each takes its children whole and its name path
    // is moved, not copied (a parent comes before its children).
    let mut children: Vec<Vec<OutlineSymbol>> = (0..n).map(|_| Vec::new()).collect();
    let mut roots = Vec::new();
    for (i, s) in outline.symbols.into_iter().enumerate().rev() {
        let mut kids = std::mem::take(&mut children[i]);
        kids.reverse();
        let o = OutlineSymbol {
            name_path: s.name_path,
            kind: s.kind,
            start_line: s.start_line,
            end_line: s.end_line,
            children: kids,
        };
        match s.parent {
            Some(p) => children[p].push(o),
            None => roots.push(o),
        }
    }
    roots.reverse();
    let receipt = ListSymbolsSuccess {
        ok: True,
        file_path: display.to_string(),
        language: outline.language,
        symbols: roots,
        symbol_count: n,
        outline: compact,
        total_lines: outline.total_lines,
        file_hash: file_hash(bytes),
    };
    Ok(super::raw_success(&receipt, display))
}

/// The `input` of `editSymbol`.
struct Input<'a> {
    path: &'a str,
    name_path: &'a str,
    action: &'static str,
    text: Option<&'a str>,
}

fn read_input(input: &i::EditSymbolInput) -> Result<Input<'_>> {
    let path = input.file_path.as_str();
    let name_path = input.name_path.as_str();
    let action = match input.action {
        i::SymbolAction::Replace => "replace",
        i::SymbolAction::InsertBefore => "insert_before",
        i::SymbolAction::InsertAfter => "insert_after",
        i::SymbolAction::Delete => "delete",
    };
    let text = input.text.as_deref();
    if name_path.trim().is_empty() {
        return Err(bad(
            "name_path is empty: name a symbol, e.g. \"Class/method\" (listSymbols lists them).",
        ));
    }
    match (action, text) {
        ("delete", Some(_)) => Err(bad(
            "delete takes no text (to put new code in the symbol's place, use action \"replace\").",
        )),
        ("delete", None) => Ok(Input {
            path,
            name_path,
            action,
            text,
        }),
        (_, None) => Err(bad(format!(
            "{action} needs text: {}.",
            if action == "replace" {
                "the whole new symbol"
            } else {
                "the code to insert"
            }
        ))),
        (_, Some(_)) => Ok(Input {
            path,
            name_path,
            action,
            text,
        }),
    }
}

/// `editSymbol(input, options)`.
pub fn edit_symbol(a: i::EditSymbolArgs) -> Res {
    let input = read_input(&a.input)?;
    let opts = edit_options(a.options)?;
    let opened = open_one(input.path, Resolve::Existing, &opts)?;
    let display = opened.display().to_string();
    let with_path = |f: Failure| f.with("file_path", &display);
    let bytes = opened.bytes().unwrap_or_default();
    let before_bytes = bytes.len();
    check_base(opts.base_hash.as_deref(), bytes, &display)?;
    let (text, encoding) = codec::decode_slice(bytes).map_err(with_path)?;
    let planned = plan(&display, &text, &input)?;
    let Planned {
        new_text,
        change,
        narrow,
        name_path,
        kind,
        dropped,
    } = planned;
    if new_text == *text {
        return Err(with_path(Failure::new(
            Code::NoChanges,
            format!("the new text of {name_path} equals the old one; nothing was written."),
        )));
    }
    // The gate runs on every symbol edit: refused under enforce, reported otherwise.
    let mode = match opts.validate {
        Validate::Enforce => Validate::Enforce,
        _ => Validate::Report,
    };
    let changes = [narrow];
    let syntax = syntax_gate(mode, &display, &text, &new_text, &changes)?
        .expect("the gate runs in report and enforce modes");
    let diff = crate::edit::diff::unified(&display, &text, &new_text, &changes);
    // The new lines: from the line of the change's start to that of its last byte (none for a delete).
    let (_, _, ns, ne) = change;
    let start_line = crate::edit::text::line_number_at(&new_text, ns.min(new_text.len()));
    let end_line = match ne > ns && input.action != "delete" {
        true => crate::edit::text::line_number_at(&new_text, ne - 1),
        false => start_line - 1,
    };
    drop(text);
    let out = codec::encode(new_text, encoding);
    let after_bytes = out.len();
    let (hash, recorded) = commit_one(opened, TxnAction::Write(out), &opts)?;
    let warning = (!dropped.is_empty()).then(|| {
        format!(
            "The new text leaves out {} of the old symbol; they are gone. If that was not meant, undo this edit (undoEdit with its edit_id) or send the symbol again with them.",
            dropped.join(", ")
        )
    });
    Ok(to_value(&EditSymbolSuccess {
        ok: True,
        file_path: display,
        name_path,
        kind,
        action: input.action,
        start_line,
        end_line,
        dropped,
        warning,
        before_bytes,
        after_bytes,
        diff,
        written: !opts.dry_run,
        file_hash: hash.unwrap_or_default(),
        syntax,
        journal: JournalFields::of(&recorded),
    }))
}

struct Planned {
    new_text: String,
    change: (usize, usize, usize, usize),
    narrow: (usize, usize, usize, usize),
    name_path: String,
    kind: &'static str,
    dropped: Vec<String>,
}

#[cfg(not(grammar))]
fn plan(display: &str, _text: &str, _input: &Input) -> Result<Planned> {
    Err(no_grammar(display))
}

#[cfg(grammar)]
fn plan(display: &str, text: &str, input: &Input) -> Result<Planned> {
    let (outline, i) = locate(display, text, input.name_path)?;
    let action = Action::parse(input.action).expect("read_input checked the action");
    let new = input.text.unwrap_or_default();
    let edited = symbols::apply(text, &outline, i, action, new)
        .map_err(|m| bad(m).with("file_path", display))?;
    let s = &outline.symbols[i];
    let dropped = match action {
        Action::Replace => symbols::dropped_parts(&text[s.start..s.end], new),
        _ => Vec::new(),
    };
    Ok(Planned {
        new_text: edited.text,
        change: edited.change,
        narrow: edited.narrow,
        name_path: s.name_path.clone(),
        kind: s.kind,
        dropped,
    })
}

#[cfg(all(test, feature = "syntax"))]
mod tests {
    use super::super::test_support::{run, Ws};
    use serde_json::{json, Value};

    /// listSymbols answers its receipt's JSON text written straight from the receipt: the same text
    /// a `Value` of it prints (fields in declaration order), nothing of the stand-in `call` reads,
    /// and the call is counted as a success.
    #[test]
    fn list_symbols_answers_the_receipt_text_itself() {
        let ws = Ws::with(&[(
            "a.py",
            "class A:\n    def f(self):\n        return \"\\u00e9\\\"\"\n\n\ndef g():\n    pass\n",
        )]);
        let before = run("get_stats", json!([]))["ops"]["list_symbols"]["ok"]
            .as_u64()
            .unwrap_or(0);
        let out = super::super::call(
            "list_symbols",
            &json!(["a.py", {"workspace_root": ws.root()}]).to_string(),
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v.to_string(), out, "the text a Value of it prints");
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "ok",
                "file_path",
                "language",
                "symbols",
                "symbol_count",
                "outline",
                "total_lines",
                "file_hash"
            ]
        );
        assert_eq!(v["symbol_count"], 3);
        assert_eq!(v["symbols"][0]["name_path"], "A");
        assert_eq!(v["symbols"][0]["children"][0]["name_path"], "A/f");
        assert_eq!(v["symbols"][1]["name_path"], "g");
        assert_eq!(
            v["outline"],
            "A (class, 1-3)\n  A/f (method, 2-3)\ng (function, 6-7)\n"
        );
        assert_eq!(v["total_lines"], 7);
        assert!(!out.contains("\\u0000"), "{out}");
        let after = run("get_stats", json!([]))["ops"]["list_symbols"]["ok"]
            .as_u64()
            .unwrap();
        assert!(after > before, "{before} -> {after}");
        // A failure is answered as before.
        let ws = Ws::with(&[("a.txt", "x\n")]);
        let v = run(
            "list_symbols",
            json!(["a.txt", {"workspace_root": ws.root()}]),
        );
        assert_eq!(v["code"], "UNSUPPORTED_LANGUAGE");
        assert_eq!(v["ok"], false);
    }
}
