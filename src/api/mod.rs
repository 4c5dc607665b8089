//! The entry points, as JSON in and JSON out: what the Node binding (and any other host) calls.
//!
//! `call(op, payload)` takes the operation name and a JSON array of the caller's arguments, and always
//! returns a JSON object: `{"ok": true, ...}` or `{"ok": false, "code", "message", ...}`. It never
//! panics: a panic inside the engine is caught and reported as `INTERNAL_ERROR`, with nothing written.
//!
//! ```
//! let out = surepatch::api::call("patch_file", r#"[{"file_path": 3}]"#);
//! assert!(out.contains("\"code\":\"INVALID_INPUT\""));
//! ```

mod args;
mod browse;
mod checkpoints;
mod checks;
mod commit;
mod edit;
mod ignore_files;
mod lines;
mod merge;
mod moves;
mod observe;
mod options;
mod panics;
mod patch;
mod read_many;
mod scope;
mod search;
mod symbols;
mod targets;
mod view;
mod whole;

use serde_json::{json, Map, Value};

use crate::contract::receipts::{to_value, CodeInfo, CodesSuccess, SetEventLogSuccess, True};
use crate::error::{Code, Failure, Result};

/// One operation of [`call`]: its name, the library function (index.js) that calls it, whether it
/// writes files and whether that function is synchronous, its handler, and the JSON Schema of its
/// result (generated from its receipt type in [`crate::contract::receipts`]).
pub struct Op {
    pub name: &'static str,
    pub js: &'static str,
    pub writes: bool,
    pub sync: bool,
    run: fn(&[Value]) -> Res,
    /// `schemas/<name>.output.json`.
    pub output_schema: fn() -> Value,
    /// `schemas/<name>.args.json`: the argument array (from its type in
    /// [`crate::contract::inputs`]).
    pub args_schema: fn() -> Value,
    /// `{native key: [other spellings]}` of its arguments (`aliases` in `schemas/ops.json`).
    pub aliases: fn() -> Map<String, Value>,
}

/// `applyEdits` → `ApplyEditsArgs`: the title of an op's argument schema.
fn args_title(js: &str) -> String {
    let mut c = js.chars();
    let first = c.next().map(|f| f.to_ascii_uppercase()).into_iter();
    first.chain(c).chain("Args".chars()).collect()
}

macro_rules! ops {
    ($($name:literal => $js:literal, writes $w:literal, sync $s:literal, $run:expr, $args:ty, $receipt:ty, $doc:literal;)*) => {
        /// The op table: every operation `call` dispatches, declared once.
        pub const TABLE: &[Op] = &[$(Op {
            name: $name,
            js: $js,
            writes: $w,
            sync: $s,
            run: |a| ($run)(crate::contract::read::read_args::<$args>(a)?),
            output_schema: || crate::contract::output_schema::<$receipt>($doc),
            args_schema: || crate::contract::args_schema::<$args>(&args_title($js), &format!("The arguments of {} ({}), as `api::call` receives them: a JSON array, one item per parameter.", $js, $name)),
            aliases: crate::contract::aliases::aliases_of::<$args>,
        },)*];
    };
}

use crate::contract::checkpoints as c;
use crate::contract::inputs as i;
use crate::contract::receipts as r;

ops! {
    "patch_file" => "patchFile", writes true, sync false, edit::patch_file, i::PatchFileArgs, r::PatchFileSuccess, "The result of patchFile (patch_file).";
    "apply_edits" => "applyEdits", writes true, sync false, |a| edit::apply_edits(a, false), i::ApplyEditsArgs, r::ApplyEditsSuccess, "The result of applyEdits (apply_edits).";
    "preview_edits" => "previewEdits", writes false, sync false, |a| edit::apply_edits(a, true), i::ApplyEditsArgs, r::ApplyEditsSuccess, "The result of previewEdits (preview_edits): an applyEdits dry run.";
    "codes" => "errorCodes", writes false, sync true, |_| Ok(codes()), i::NoArgs, r::CodesSuccess, "The result of the codes operation (errorCodes() returns its codes).";
    "get_stats" => "getStats", writes false, sync true, get_stats, i::GetStatsArgs, r::Stats, "The result of getStats (get_stats).";
    "set_event_log" => "setEventLog", writes false, sync true, set_event_log, i::SetEventLogArgs, r::SetEventLogSuccess, "The result of setEventLog (set_event_log).";
    "permission_scope" => "permissionScope", writes false, sync false, scope::permission_scope, i::PermissionScopeArgs, r::PermissionScopeSuccess, "The result of permissionScope (permission_scope).";
    "view_file" => "viewFile", writes false, sync false, view::view_file, i::ViewFileArgs, r::ViewFileSuccess, "The result of viewFile (view_file).";
    "edit_lines" => "editLines", writes true, sync false, lines::edit_lines, i::EditLinesArgs, r::EditLinesSuccess, "The result of editLines (edit_lines).";
    "create_file" => "createFile", writes true, sync false, whole::create_file, i::CreateFileArgs, r::WriteFileSuccess, "The result of createFile (create_file).";
    "write_file" => "writeFile", writes true, sync false, whole::write_file, i::WriteFileArgs, r::WriteFileSuccess, "The result of writeFile (write_file).";
    "delete_file" => "deleteFile", writes true, sync false, whole::delete_file, i::DeleteFileArgs, r::DeleteFileSuccess, "The result of deleteFile (delete_file).";
    "undo_edit" => "undoEdit", writes true, sync false, whole::undo_edit, i::UndoEditArgs, r::UndoEditSuccess, "The result of undoEdit (undo_edit).";
    "apply_patch" => "applyPatch", writes true, sync false, patch::apply_patch, i::ApplyPatchArgs, r::ApplyPatchSuccess, "The result of applyPatch (apply_patch).";
    "apply_blocks" => "applyBlocks", writes true, sync false, patch::apply_blocks, i::ApplyBlocksArgs, r::ApplyBlocksSuccess, "The result of applyBlocks (apply_blocks).";
    "apply_unified_diff" => "applyUnifiedDiff", writes true, sync false, patch::apply_unified_diff, i::ApplyUnifiedDiffArgs, r::ApplyPatchSuccess, "The result of applyUnifiedDiff (apply_unified_diff).";
    "parse_blocks" => "parseBlocks", writes false, sync true, patch::parse_blocks, i::ParseBlocksArgs, r::ParseBlocksSuccess, "The result of parseBlocks (parse_blocks).";
    "parse_path_blocks" => "parsePathBlocks", writes false, sync true, patch::parse_path_blocks, i::ParseBlocksArgs, r::ParsePathBlocksSuccess, "The result of parsePathBlocks (parse_path_blocks).";
    "touched_files" => "touchedFiles", writes false, sync false, targets::touched_files, i::TouchedFilesArgs, r::TouchedFilesSuccess, "The result of touchedFiles (touched_files).";
    "list_directory" => "listDirectory", writes false, sync false, browse::list_directory, i::ListDirectoryArgs, r::ListDirectorySuccess, "The result of listDirectory (list_directory).";
    "find_files" => "findFiles", writes false, sync false, browse::find_files, i::FindFilesArgs, r::FindFilesSuccess, "The result of findFiles (find_files).";
    "search_files" => "searchFiles", writes false, sync false, search::search_files, i::SearchFilesArgs, r::SearchFilesSuccess, "The result of searchFiles (search_files).";
    "read_many_files" => "readManyFiles", writes false, sync false, read_many::read_many_files, i::ReadManyFilesArgs, r::ReadManyFilesSuccess, "The result of readManyFiles (read_many_files).";
    "move_file" => "moveFile", writes true, sync false, moves::move_file, i::MoveFileArgs, r::MoveFileSuccess, "The result of moveFile (move_file).";
    "create_directory" => "createDirectory", writes true, sync false, browse::create_directory, i::CreateDirectoryArgs, r::CreateDirectorySuccess, "The result of createDirectory (create_directory).";
    "create_checkpoint" => "createCheckpoint", writes true, sync false, checkpoints::create_checkpoint, c::CreateCheckpointArgs, c::CreateCheckpointSuccess, "The result of createCheckpoint (create_checkpoint).";
    "restore_checkpoint" => "restoreCheckpoint", writes true, sync false, checkpoints::restore_checkpoint, c::RestoreCheckpointArgs, c::RestoreCheckpointSuccess, "The result of restoreCheckpoint (restore_checkpoint).";
    "list_checkpoints" => "listCheckpoints", writes false, sync false, checkpoints::list_checkpoints, c::ListCheckpointsArgs, c::ListCheckpointsSuccess, "The result of listCheckpoints (list_checkpoints).";
    "merge_snippet" => "mergeSnippet", writes true, sync false, merge::merge_snippet, i::MergeSnippetArgs, r::MergeSnippetSuccess, "The result of mergeSnippet (merge_snippet).";
    "list_symbols" => "listSymbols", writes false, sync false, symbols::list_symbols, i::ListSymbolsArgs, crate::contract::symbols::ListSymbolsSuccess, "The result of listSymbols (list_symbols).";
    "edit_symbol" => "editSymbol", writes true, sync false, symbols::edit_symbol, i::EditSymbolArgs, crate::contract::symbols::EditSymbolSuccess, "The result of editSymbol (edit_symbol).";
}

const N_OPS: usize = TABLE.len();
const OP_NAMES: [&str; N_OPS] = {
    let mut names = [""; N_OPS];
    let mut i = 0;
    while i < N_OPS {
        names[i] = TABLE[i].name;
        i += 1;
    }
    names
};

/// The operations `call` understands (the names of [`TABLE`]).
pub const OPS: &[&str] = &OP_NAMES;

/// The generated files of the contract, `(path under schemas/, text)`: `<op>.output.json` and
/// `<op>.args.json` for every operation, and `ops.json`, the op table for JavaScript (`npm run schemas` writes them).
pub fn contract_files() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = TABLE
        .iter()
        .map(|op| {
            (
                format!("{}.output.json", op.name),
                crate::contract::pretty(&(op.output_schema)()),
            )
        })
        .collect();
    out.extend(TABLE.iter().map(|op| {
        (
            format!("{}.args.json", op.name),
            crate::contract::pretty(&(op.args_schema)()),
        )
    }));
    let table: Vec<Value> = TABLE
        .iter()
        .map(|op| {
            let mut o = json!({"op": op.name, "js": op.js, "writes": op.writes, "sync": op.sync, "args": format!("{}.args.json", op.name), "output": format!("{}.output.json", op.name)});
            let aliases = (op.aliases)();
            if !aliases.is_empty() {
                o["aliases"] = Value::Object(aliases);
            }
            o
        })
        .collect();
    let journal = crate::contract::definitions_of::<r::JournalFields>();
    out.push((
        "ops.json".to_string(),
        crate::contract::pretty(&json!({
            "description": "The op table of surepatch's engine (generated from src/api/mod.rs TABLE by `npm run schemas`): each operation, the library function that calls it, whether it writes files, whether that function is synchronous, its argument and output schemas, and the other spellings its arguments accept (`aliases`: `{native name: [other spellings]}`; camelCase aside).",
            "ops": table,
            "$defs": Value::Object(journal),
        })),
    ));
    out
}

pub use panics::install_hook as install_panic_hook;

/// Runs one operation. `payload` is a JSON array of the arguments as the caller passed them.
pub fn call(op: &str, payload: &str) -> String {
    let started = observe::begin();
    let result = std::panic::catch_unwind(|| dispatch(op, payload));
    let mut value = match result {
        Ok(v) => v,
        Err(panic) => {
            // Never the raw payload: it may quote file content (see `panics`).
            let what = panics::describe(panic.as_ref());
            failure_value(&Failure::new(
                Code::InternalError,
                format!("internal error in surepatch ({what}); nothing was written. Please report this at https://github.com/surepatch/surepatch/issues."),
            ))
        }
    };
    observe::finish(started, op, payload, &mut value);
    match value.get_mut(RAW_JSON).map(Value::take) {
        Some(Value::String(text)) => text,
        _ => value.to_string(),
    }
}

/// The key of [`raw_success`]'s stand-in that holds the answer's JSON text.
const RAW_JSON: &str = "\u{0}json";

/// A success answered as `receipt`'s JSON text, serialized straight from the receipt instead of
/// through a [`Value`] (the same text: fields in declaration order). For large receipts
/// (`listSymbols`: about 1,300 objects for a 5,000-line file, where the `Value` tree cost as much as
/// the outline itself). What [`call`]'s bookkeeping reads of a success (`ok`, `file_path`) stands
/// beside the text.
pub(crate) fn raw_success<T: serde::Serialize>(receipt: &T, file_path: &str) -> Value {
    let text = serde_json::to_string(receipt).unwrap_or_else(|_| "null".into());
    json!({"ok": true, "file_path": file_path, RAW_JSON: text})
}

fn dispatch(op: &str, payload: &str) -> Value {
    let args: Vec<Value> = match serde_json::from_str::<Value>(payload) {
        Ok(Value::Array(a)) => a,
        Ok(_) => return failure_value(&args::bad("arguments must be passed as a JSON array")),
        Err(e) => {
            return failure_value(&args::bad(format!(
                "arguments are not valid JSON text ({e}); strings must be well-formed Unicode (no lone surrogates)."
            )))
        }
    };
    let out = match TABLE.iter().find(|o| o.name == op) {
        Some(o) => (o.run)(&args),
        None if op == "__test_panic" => panics::test_panic(&args),
        None => Err(args::bad(format!(
            "unknown operation {op:?}; known: {OPS:?}"
        ))),
    };
    match out {
        Ok(v) => v,
        Err(f) => failure_value(&f),
    }
}

/// `getStats({reset})`.
fn get_stats(a: i::GetStatsArgs) -> Res {
    let reset = a.options.unwrap_or_default().reset.unwrap_or(false);
    Ok(crate::contract::receipts::to_value(&observe::stats(reset)))
}

/// `setEventLog(path | null)`.
fn set_event_log(a: i::SetEventLogArgs) -> Res {
    match a.path {
        None => observe::set_event_log(None),
        Some(p) if p.is_empty() => {
            return Err(args::bad(
                "setEventLog takes a file path or null, got an empty string.",
            ))
        }
        Some(p) => {
            observe::check_log_path(&p)?;
            observe::set_event_log(Some(p))
        }
    }
    Ok(to_value(&SetEventLogSuccess { ok: True }))
}

/// Every failure code with what the caller should do about it.
fn codes() -> Value {
    to_value(&CodesSuccess {
        ok: True,
        codes: Code::ALL
            .iter()
            .map(|c| CodeInfo {
                code: c.as_str(),
                remedy: c.remedy(),
            })
            .collect(),
    })
}

/// The JSON form of a failure: `ok`, `code`, `message`, then every detail.
pub fn failure_value(f: &Failure) -> Value {
    let mut m = Map::new();
    m.insert("ok".into(), json!(false));
    m.insert("code".into(), json!(f.code.as_str()));
    m.insert("message".into(), json!(f.message));
    for (k, v) in &f.details {
        m.insert(k.clone(), v.clone());
    }
    Value::Object(m)
}

pub(crate) fn ok_object(fields: Value) -> Value {
    let mut m = Map::new();
    m.insert("ok".into(), json!(true));
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    Value::Object(m)
}

pub(crate) type Res = Result<Value>;

#[cfg(test)]
mod test_support;

#[cfg(test)]
mod edit_tests;

#[cfg(test)]
mod files_tests;

#[cfg(test)]
mod liberties_tests;

#[cfg(test)]
mod syntax_gate_tests;

#[cfg(test)]
mod browse_tests;
