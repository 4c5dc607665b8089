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
mod commit;
mod edit;
mod lines;
mod moves;
mod observe;
mod options;
mod panics;
mod patch;
mod read_many;
mod scope;
mod search;
mod targets;
mod view;
mod whole;

use serde_json::{json, Map, Value};

use crate::error::{Code, Failure, Result};

/// The operations `call` understands.
pub const OPS: &[&str] = &[
    "patch_file",
    "apply_edits",
    "preview_edits",
    "codes",
    "get_stats",
    "set_event_log",
    "permission_scope",
    "view_file",
    "edit_lines",
    "create_file",
    "write_file",
    "delete_file",
    "undo_edit",
    "apply_patch",
    "apply_blocks",
    "apply_unified_diff",
    "parse_blocks",
    "parse_path_blocks",
    "touched_files",
    "list_directory",
    "find_files",
    "search_files",
    "read_many_files",
    "move_file",
    "create_directory",
];

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
    value.to_string()
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
    let out = match op {
        "patch_file" => edit::patch_file(&args),
        "apply_edits" => edit::apply_edits(&args, false),
        "preview_edits" => edit::apply_edits(&args, true),
        "codes" => Ok(codes()),
        "get_stats" => get_stats(&args),
        "permission_scope" => scope::permission_scope(&args),
        "set_event_log" => set_event_log(&args),
        "view_file" => view::view_file(&args),
        "edit_lines" => lines::edit_lines(&args),
        "create_file" => whole::create_file(&args),
        "write_file" => whole::write_file(&args),
        "delete_file" => whole::delete_file(&args),
        "undo_edit" => whole::undo_edit(&args),
        "apply_patch" => patch::apply_patch(&args),
        "apply_blocks" => patch::apply_blocks(&args),
        "apply_unified_diff" => patch::apply_unified_diff(&args),
        "parse_blocks" => patch::parse_blocks(&args),
        "parse_path_blocks" => patch::parse_path_blocks(&args),
        "touched_files" => targets::touched_files(&args),
        "list_directory" => browse::list_directory(&args),
        "find_files" => browse::find_files(&args),
        "search_files" => search::search_files(&args),
        "read_many_files" => read_many::read_many_files(&args),
        "move_file" => moves::move_file(&args),
        "create_directory" => browse::create_directory(&args),
        "__test_panic" => panics::test_panic(&args),
        _ => Err(args::bad(format!(
            "unknown operation {op:?}; known: {OPS:?}"
        ))),
    };
    match out {
        Ok(v) => v,
        Err(f) => failure_value(&f),
    }
}

/// `getStats({reset})`.
fn get_stats(args: &[Value]) -> Res {
    let mut o = args::Obj::new("options", arg(args, 0), true)?;
    let reset = o.boolean(&["reset"])?.unwrap_or(false);
    o.finish()?;
    Ok(observe::stats(reset))
}

/// `setEventLog(path | null)`.
fn set_event_log(args: &[Value]) -> Res {
    match arg(args, 0) {
        None | Some(Value::Null) => observe::set_event_log(None),
        Some(Value::String(p)) if !p.is_empty() => {
            observe::check_log_path(p)?;
            observe::set_event_log(Some(p.clone()))
        }
        Some(v) => {
            return Err(args::bad(format!(
                "setEventLog takes a file path or null, got {}.",
                args::type_name(v)
            )))
        }
    }
    Ok(ok_object(json!({})))
}

/// Every failure code with what the caller should do about it.
fn codes() -> Value {
    let list: Vec<Value> = Code::ALL
        .iter()
        .map(|c| json!({"code": c.as_str(), "remedy": c.remedy()}))
        .collect();
    ok_object(json!({ "codes": list }))
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

/// Argument `i` of the call.
fn arg(args: &[Value], i: usize) -> Option<&Value> {
    args.get(i)
}

pub(crate) fn ok_object(fields: Value) -> Value {
    let mut m = Map::new();
    m.insert("ok".into(), json!(true));
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    Value::Object(m)
}

/// `a` with every field of `b` appended (both objects).
pub(crate) fn merge(mut a: Value, b: Value) -> Value {
    if let (Value::Object(a), Value::Object(b)) = (&mut a, b) {
        a.extend(b);
    }
    a
}

pub(crate) type Res = Result<Value>;

#[cfg(test)]
mod test_support;

#[cfg(test)]
mod edit_tests;

#[cfg(test)]
mod files_tests;

#[cfg(test)]
mod syntax_gate_tests;

#[cfg(test)]
mod browse_tests;
