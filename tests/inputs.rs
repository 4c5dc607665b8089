//! The reader and the generated schemas agree: for every op, the reader is run with an object
//! holding one unknown key, and the keys it says it knows ("known ones are [...]") must be exactly the
//! properties (every spelling) that `schemas/<op>.args.json` declares for that object.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use surepatch::api::{call, TABLE};

const UNKNOWN: &str = "__not_a_key__";

/// The keys the reader names as known when `args` holds an object with an unknown key.
fn known_keys(op: &str, args: &Value) -> BTreeSet<String> {
    let out: Value = serde_json::from_str(&call(op, &args.to_string())).unwrap();
    assert_eq!(out["code"], "INVALID_INPUT", "{op} {args}: {out}");
    let msg = out["message"].as_str().unwrap();
    let at = msg
        .find("known ones are ")
        .unwrap_or_else(|| panic!("{op}: {msg}"));
    let list = msg[at + "known ones are ".len()..].trim_end_matches('.');
    assert!(msg.contains(UNKNOWN), "{op}: {msg}");
    serde_json::from_str::<Vec<String>>(list)
        .unwrap_or_else(|e| panic!("{op}: {list}: {e}"))
        .into_iter()
        .collect()
}

fn args_schema(op: &str) -> Value {
    let op = TABLE.iter().find(|o| o.name == op).unwrap();
    (op.args_schema)()
}

/// Follows `$ref`s and `anyOf`/`oneOf` (a nullable parameter, a union of object shapes) and returns
/// every property any object shape of `s` declares.
fn declared(s: &Value, defs: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        return declared(&defs[name], defs);
    }
    if let Some(p) = s.get("properties").and_then(Value::as_object) {
        out.extend(p.keys().cloned());
    }
    for k in ["anyOf", "oneOf"] {
        for alt in s.get(k).and_then(Value::as_array).into_iter().flatten() {
            out.extend(declared(alt, defs));
        }
    }
    out
}

/// The parameter titled `name` of an op's argument schema, and its index.
fn param(schema: &Value, name: &str) -> Option<(usize, Value)> {
    schema["prefixItems"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .find(|(_, p)| p["title"] == name)
        .map(|(i, p)| (i, p.clone()))
}

/// Positional arguments that get each op past its positional checks to its options reader.
fn leading(op: &str) -> Option<Vec<Value>> {
    Some(match op {
        "patch_file" => {
            vec![json!({"file_path": "a.txt", "search_block": "x", "replace_block": "y"})]
        }
        "merge_snippet" => vec![json!({"file_path": "a.txt", "snippet": "// ...\na\n// ...\n"})],
        "apply_edits" | "preview_edits" => vec![json!("a.txt"), json!([{"old": "a", "new": "b"}])],
        "get_stats" | "create_checkpoint" | "list_checkpoints" => vec![],
        "restore_checkpoint" => vec![json!("c0192f3a4b5c6000001a1b2")],
        "permission_scope" => vec![json!(["a.txt"])],
        "view_file" | "delete_file" | "undo_edit" => vec![json!("a.txt")],
        "edit_lines" => vec![json!("a.txt"), json!([{"op": "delete", "start": "1:ab"}])],
        "create_file" | "write_file" => vec![json!("a.txt"), json!("x\n")],
        "apply_patch" | "apply_blocks" | "apply_unified_diff" => vec![json!("text")],
        "list_directory" => vec![Value::Null],
        "find_files" => vec![json!("*")],
        "search_files" => vec![json!("x")],
        "read_many_files" => vec![json!(["a.txt"])],
        "move_file" => vec![json!("a.txt"), json!("b.txt")],
        "create_directory" => vec![json!("d")],
        "list_symbols" => vec![json!("a.rs")],
        "edit_symbol" => vec![json!({"file_path": "a.rs", "name_path": "f", "action": "delete"})],
        // No options object of their own (touched_files passes its inner call's options through).
        "codes" | "set_event_log" | "parse_blocks" | "parse_path_blocks" | "touched_files" => {
            return None
        }
        other => panic!("no leading arguments for {other}: add them here"),
    })
}

#[test]
fn every_op_reader_knows_exactly_the_declared_option_keys() {
    let mut mismatches = Vec::new();
    for op in TABLE {
        let schema = args_schema(op.name);
        let Some(mut args) = leading(op.name) else {
            assert!(
                param(&schema, "options").is_none(),
                "{}: declares options but the test reads none",
                op.name
            );
            continue;
        };
        let (at, p) = param(&schema, "options")
            .unwrap_or_else(|| panic!("{}: no options parameter declared", op.name));
        assert_eq!(
            at,
            args.len(),
            "{}: options is not where the test puts it",
            op.name
        );
        args.push(json!({ UNKNOWN: 1 }));
        let read = known_keys(op.name, &Value::Array(args));
        let want = declared(&p, &schema["$defs"]);
        if read != want {
            mismatches.push(format!(
                "{}: reader only {:?}; declared only {:?}",
                op.name,
                read.difference(&want).collect::<Vec<_>>(),
                want.difference(&read).collect::<Vec<_>>()
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// The objects inside the positional arguments: patch_file's `input`, an edit, a line op, a
/// readManyFiles item, an undo target.
#[test]
fn nested_argument_objects_agree_too() {
    let cases = [
        (
            "patch_file",
            "input",
            json!([{"file_path": "a.txt", "search_block": "x", "replace_block": "y", UNKNOWN: 1}]),
        ),
        (
            "apply_edits",
            "edits",
            json!(["a.txt", [{"old": "a", "new": "b", UNKNOWN: 1}]]),
        ),
        (
            "edit_lines",
            "ops",
            json!(["a.txt", [{"op": "delete", "start": "1:ab", UNKNOWN: 1}]]),
        ),
        (
            "read_many_files",
            "files",
            json!([[{"file_path": "a.txt", UNKNOWN: 1}]]),
        ),
        (
            "edit_symbol",
            "input",
            json!([{"file_path": "a.rs", "name_path": "f", "action": "delete", UNKNOWN: 1}]),
        ),
        (
            "undo_edit",
            "target",
            json!([{"file_path": "a.txt", UNKNOWN: 1}]),
        ),
    ];
    let mut mismatches = Vec::new();
    for (op, name, args) in cases {
        let schema = args_schema(op);
        let (_, p) = param(&schema, name).unwrap_or_else(|| panic!("{op}: no {name}"));
        let p = p.get("items").cloned().unwrap_or(p);
        let read = known_keys(op, &args);
        let want = declared(&p, &schema["$defs"]);
        if read != want {
            mismatches.push(format!(
                "{op} {name}: reader only {:?}; declared only {:?}",
                read.difference(&want).collect::<Vec<_>>(),
                want.difference(&read).collect::<Vec<_>>()
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
