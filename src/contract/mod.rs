//! The contract of the entry points: the Rust types of every success receipt and of the failure
//! ([`receipts`]), of every operation's arguments and options ([`inputs`]), and the JSON Schemas
//! generated from them.
//!
//! `schemas/<op>.output.json` and `schemas/<op>.args.json` (one each per operation of
//! [`crate::api::TABLE`]) and `schemas/ops.json` (the op table) are generated from these types by
//! `npm run schemas` (which runs `cargo run --example contract`); `types/receipts.d.ts` and
//! `types/options.d.ts` are generated from those schemas by `scripts/gen-receipt-types.mjs`.
//! `tests/contract.rs` and `__test__/contract.test.mjs` fail while a checked-in file differs from what
//! the generators write; `tests/inputs.rs` runs the reader ([`read`]) against the declared arguments.
//!
//! Output schemas use only keywords that mean the same in JSON Schema draft-07 and 2020-12 (no
//! `$schema`, no `format`), with named types under `$defs` (Ajv accepts `$defs` in both drafts).
//! Argument schemas are draft 2020-12 (`$schema`, `prefixItems`): they are no MCP tool schemas.

pub mod aliases;
pub mod checkpoints;
pub mod inputs;
pub mod read;
pub mod receipts;
pub mod symbols;

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde_json::{json, Map, Value};

/// The generator settings of every schema: 2020-12 layout (`$defs`), no `$schema`, no `format`
/// (schemars' integer formats such as `uint` are not standard, and Ajv warns on unknown formats).
fn generator() -> schemars::SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .for_serialize()
        .with_transform(RecursiveTransform(|s: &mut Schema| {
            s.remove("format");
        }))
        .into_generator()
}

/// The output schema of an operation whose success receipt is `T`: `{ok: true, ...T}` or a
/// [`receipts::FailureSchema`], told apart by `ok`.
pub fn output_schema<T: JsonSchema>(description: &str) -> Value {
    // `PatchFileSuccess` → `PatchFileResult` (the TypeScript names of index.d.ts).
    let name = T::schema_name();
    let result_name = match name.strip_suffix("Success") {
        Some(stem) => format!("{stem}Result"),
        None => format!("{name}Result"),
    };
    let mut g = generator();
    let ok = g.subschema_for::<T>();
    let failure = g.subschema_for::<receipts::FailureSchema>();
    let defs = g.take_definitions(true);
    json!({
        "title": result_name,
        "description": description,
        "type": "object",
        "properties": { "ok": { "type": "boolean" } },
        "required": ["ok"],
        "oneOf": [ok, failure],
        "$defs": Value::Object(defs),
    })
}

/// The definitions (`$defs`) of the named types `T` uses, `T` included.
pub fn definitions_of<T: JsonSchema>() -> Map<String, Value> {
    let mut g = generator();
    g.subschema_for::<T>();
    g.take_definitions(true)
}

/// The generator of the argument schemas: as [`generator`], for deserializing (an `Option` field is
/// optional and may be `null`, as the reader reads `null` as absent).
fn input_generator() -> schemars::SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .for_deserialize()
        .with_transform(RecursiveTransform(|s: &mut Schema| {
            s.remove("format");
        }))
        .into_generator()
}

/// The JSON Schema of the argument array `api::call` receives for an operation whose positional
/// parameters are the fields of `A`, in order (`schemas/<op>.args.json`): draft 2020-12, one
/// `prefixItems` entry per parameter, titled with the parameter's name. Trailing parameters that
/// are `Option`s may be left out or `null`.
pub fn args_schema<A: JsonSchema>(title: &str, description: &str) -> Value {
    let mut g = input_generator();
    let obj = A::json_schema(&mut g).to_value();
    let defs = g.take_definitions(true);
    let required: Vec<&str> = obj["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut items = Vec::new();
    let mut seen_optional = false;
    for (name, s) in obj["properties"].as_object().into_iter().flatten() {
        let is_required = required.contains(&name.as_str());
        assert!(
            !(is_required && seen_optional),
            "{title}: required parameter {name} after an optional one"
        );
        seen_optional |= !is_required;
        let mut item = Map::new();
        item.insert("title".into(), json!(name));
        if let Value::Object(m) = s {
            item.extend(m.clone());
        }
        // A positional parameter's other spellings are for the tools named after the op (ops.json
        // `aliases`); a position has no name to spell.
        item.remove("x-aliases");
        items.push(Value::Object(item));
    }
    let mut out = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": description,
        "type": "array",
        "prefixItems": items,
        "minItems": required.len(),
        "maxItems": items.len(),
    });
    if items.is_empty() {
        // `prefixItems` must not be empty: an op without parameters takes `[]`.
        out.as_object_mut().map(|m| m.shift_remove("prefixItems"));
    }
    if !defs.is_empty() {
        out["$defs"] = Value::Object(defs);
    }
    expand_aliases(&mut out);
    out
}

/// `include_ignored` → `includeIgnored`.
fn camel(k: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in k.chars() {
        match c {
            '_' => up = true,
            c if up => {
                out.extend(c.to_uppercase());
                up = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// Declares every other spelling of each property of an input schema as a property of its own, right
/// after it, with the same schema: the camelCase spelling of every snake_case name, and the names a
/// field lists in `x-aliases` (which is removed). A required property with spellings is required as
/// "one of them": `allOf: [{anyOf: [{required: [spelling]}, ...]}]`. Applied to every object schema
/// inside `v`.
pub fn expand_aliases(v: &mut Value) {
    let Value::Object(m) = v else { return };
    // The reader's own schema of a declaration (see `read`) is no part of the published one.
    m.shift_remove("x-read");
    m.shift_remove("x-required");
    // Added after the walk below, which must not expand the spellings it names again.
    let mut one_of = Vec::new();
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        let mut out = Map::new();
        let mut spelled: Vec<(String, Vec<String>)> = Vec::new();
        for (k, mut s) in std::mem::take(props) {
            let mut aliases: Vec<String> =
                match s.as_object_mut().and_then(|o| o.remove("x-aliases")) {
                    Some(Value::Array(a)) => a
                        .iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect(),
                    _ => Vec::new(),
                };
            let c = camel(&k);
            if c != k {
                aliases.insert(0, c.clone());
            }
            // The spelling lists of inputs.rs start with the native name (and its camelCase).
            let mut seen = vec![k.clone()];
            aliases.retain(|a| {
                let new = !seen.contains(a);
                seen.push(a.clone());
                new
            });
            expand_aliases(&mut s);
            let mut alias_schema = s.clone();
            if let Value::Object(a) = &mut alias_schema {
                a.shift_remove("description");
                let mut with_doc = Map::new();
                with_doc.insert(
                    "description".into(),
                    json!(format!("Another spelling of `{k}`.")),
                );
                with_doc.extend(std::mem::take(a));
                *a = with_doc;
            }
            if !aliases.is_empty() {
                let mut all = vec![k.clone()];
                all.extend(aliases.iter().cloned());
                spelled.push((k.clone(), all));
            }
            out.insert(k, s);
            for a in aliases {
                out.insert(a, alias_schema.clone());
            }
        }
        *props = out;
        let mut one_of_each = Vec::new();
        if let Some(Value::Array(req)) = m.get_mut("required") {
            req.retain(|r| {
                let Some((_, all)) = spelled.iter().find(|(k, _)| r.as_str() == Some(k)) else {
                    return true;
                };
                // (each names its property, as Ajv's strict mode wants of a `required`)
                let alts: Vec<Value> = all
                    .iter()
                    .map(|s| json!({ "properties": { s: true }, "required": [s] }))
                    .collect();
                one_of_each.push(json!({ "anyOf": alts }));
                false
            });
            if req.is_empty() {
                m.shift_remove("required");
            }
        }
        one_of = one_of_each;
    }
    for (k, sub) in m.iter_mut() {
        match k.as_str() {
            "properties" => {}
            "$defs" => {
                for d in sub.as_object_mut().into_iter().flat_map(|o| o.values_mut()) {
                    expand_aliases(d);
                }
            }
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                for d in sub.as_array_mut().into_iter().flatten() {
                    expand_aliases(d);
                }
            }
            "items" | "additionalProperties" => expand_aliases(sub),
            _ => {}
        }
    }
    if !one_of.is_empty() {
        m.insert("allOf".into(), Value::Array(one_of));
    }
}

/// Pretty JSON with a final newline: the form of every generated file.
pub fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
