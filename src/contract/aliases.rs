//! The other spellings each operation accepts, as one table per op (`aliases` in
//! `schemas/ops.json`): `{native name: [other spellings]}`, read from the `x-aliases` the fields of
//! [`super::inputs`] declare (positional parameters included). The MCP tools (mcp/tools.cjs) take their
//! arguments' other spellings from it, so the library, the tools and the schemas accept the same names.
//! camelCase spellings are left out: every surface accepts them for every snake_case key.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::{Map, Value};

/// `{native: [aliases]}` of the argument type `A` (every object inside it, named types included).
/// Panics when one alias names two different keys of one op (the tools could not tell them apart).
pub fn aliases_of<A: JsonSchema>() -> Map<String, Value> {
    let mut g = super::input_generator();
    let root = A::json_schema(&mut g).to_value();
    let defs = g.take_definitions(true);
    let mut table: BTreeMap<String, Vec<String>> = BTreeMap::new();
    collect(&root, &mut table);
    for d in defs.values() {
        collect(d, &mut table);
    }
    let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
    for (k, list) in &table {
        for a in list {
            if let Some(other) = owner.insert(a, k) {
                assert_eq!(other, k, "alias {a} names both {other} and {k}");
            }
        }
    }
    table
        .into_iter()
        .map(|(k, v)| (k, Value::from(v)))
        .collect()
}

fn collect(v: &Value, out: &mut BTreeMap<String, Vec<String>>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                for (k, s) in props {
                    let camel = super::camel(k);
                    let listed = s.get("x-aliases").and_then(Value::as_array);
                    for a in listed.into_iter().flatten().filter_map(Value::as_str) {
                        if a != k && a != camel {
                            let e = out.entry(k.clone()).or_default();
                            if !e.iter().any(|x| x == a) {
                                e.push(a.to_string());
                            }
                        }
                    }
                }
            }
            for s in m.values() {
                collect(s, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|s| collect(s, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::inputs as i;

    #[test]
    fn the_tables_list_each_declared_spelling_once() {
        let edits = aliases_of::<i::ApplyEditsArgs>();
        assert_eq!(
            Value::Object(edits),
            serde_json::json!({
                "file_path": ["path"],
                "new": ["new_string", "newString", "replace", "newText"],
                "old": ["old_string", "oldString", "search", "oldText"],
            })
        );
        let patch = aliases_of::<i::ApplyPatchArgs>();
        assert_eq!(patch["patch"], serde_json::json!(["input"]));
        let view = aliases_of::<i::ViewFileArgs>();
        assert_eq!(view["start_line"], serde_json::json!(["offset"]));
        assert_eq!(view["max_lines"], serde_json::json!(["limit", "head"]));
    }
}
