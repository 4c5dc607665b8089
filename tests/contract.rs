//! The generated contract files in `schemas/` are what the Rust types generate now
//! (`npm run schemas` rewrites them), and the op table is consistent.

use std::path::Path;

use surepatch::api::{contract_files, OPS, TABLE};

#[test]
fn contract_files_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    for (name, text) in contract_files() {
        let on_disk = std::fs::read_to_string(dir.join(&name)).unwrap_or_default();
        assert!(
            on_disk == text,
            "schemas/{name} is out of date: run `npm run schemas` and commit the result"
        );
    }
}

#[test]
fn the_op_table_names_each_op_and_function_once() {
    let mut names: Vec<&str> = OPS.to_vec();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), TABLE.len());
    let mut js: Vec<&str> = TABLE.iter().map(|o| o.js).collect();
    js.sort();
    js.dedup();
    assert_eq!(js.len(), TABLE.len());
    for op in TABLE {
        assert!(op.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
    }
}

/// Only keywords that mean the same in draft-07 and 2020-12, and no `format` or `$schema` (but in the
/// argument schemas, which are 2020-12: `$schema` and `prefixItems`).
#[test]
fn schemas_use_portable_keywords_only() {
    const ALLOWED: &[&str] = &[
        "title",
        "description",
        "type",
        "properties",
        "required",
        "oneOf",
        "anyOf",
        "allOf",
        "$defs",
        "$ref",
        "items",
        "enum",
        "const",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "additionalProperties",
    ];
    fn walk(v: &serde_json::Value, under_properties: bool, file: &str) {
        if let Some(m) = v.as_object() {
            for (k, x) in m {
                if !under_properties {
                    assert!(ALLOWED.contains(&k.as_str()), "{file}: keyword {k}");
                }
                let props = !under_properties && (k == "properties" || k == "$defs");
                if props {
                    for sub in x.as_object().into_iter().flat_map(|o| o.values()) {
                        walk(sub, false, file);
                    }
                } else if !under_properties {
                    walk(x, false, file);
                }
            }
        } else if let Some(a) = v.as_array() {
            for x in a {
                walk(x, false, file);
            }
        }
    }
    for (name, text) in contract_files() {
        if name == "ops.json" {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        if name.ends_with(".args.json") {
            // The argument schemas are draft 2020-12 (they are no MCP tool schemas): `$schema` says
            // so, and the positional parameters are `prefixItems`. Every other keyword is portable.
            let m = v.as_object_mut().unwrap();
            assert_eq!(
                m.remove("$schema"),
                Some(serde_json::json!(
                    "https://json-schema.org/draft/2020-12/schema"
                )),
                "{name}"
            );
            if let Some(items) = m.remove("prefixItems") {
                walk(&items, false, &name);
            }
        } else {
            assert!(name.ends_with(".output.json"), "{name}");
        }
        walk(&v, false, &name);
    }
}

/// The `api_call` fuzz target keeps its own op list (the order is what its corpus means, so it only
/// grows) and its own list of writers: both must follow the op table. Every op but `set_event_log`
/// (it writes a log wherever it is told) is fuzzed, no name the engine lacks but the deliberate
/// `no_such_op`, and the writers are exactly the table's (`writes`).
#[test]
fn the_fuzz_target_follows_the_op_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets/api_call.rs");
    let src = std::fs::read_to_string(&path).expect("fuzz/fuzz_targets/api_call.rs");
    // The quoted names of the first `const <name>: &[...] = &[ ... ];` block called `name`.
    let block = |name: &str| -> Vec<String> {
        let start = src
            .find(&format!("const {name}: &["))
            .unwrap_or_else(|| panic!("no const {name} in api_call.rs"));
        let body = &src[start..];
        let body = &body[body.find("= &[").unwrap()..body.find("];").unwrap()];
        body.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let fuzzed = block("OPS");
    let mut want: Vec<&str> = TABLE
        .iter()
        .map(|o| o.name)
        .filter(|n| *n != "set_event_log")
        .collect();
    want.sort();
    let mut got: Vec<&str> = fuzzed
        .iter()
        .map(String::as_str)
        .filter(|n| *n != "no_such_op")
        .collect();
    got.sort();
    assert_eq!(
        got, want,
        "api_call.rs OPS must name every op of the table (append new ones)"
    );
    let mut writers = block("WRITERS");
    writers.sort();
    let mut want: Vec<&str> = TABLE.iter().filter(|o| o.writes).map(|o| o.name).collect();
    want.sort();
    assert_eq!(
        writers, want,
        "api_call.rs WRITERS must be the table's writing ops"
    );
}
