//! The contract of the entry points: the Rust types of every success receipt and of the failure
//! ([`receipts`]), and the JSON Schemas generated from them.
//!
//! `schemas/<op>.output.json` (one per operation of [`crate::api::TABLE`]) and `schemas/ops.json` (the
//! op table) are generated from these types by `npm run schemas` (which runs
//! `cargo run --example contract`); `types/receipts.d.ts` is generated from those schemas by
//! `scripts/gen-receipt-types.mjs`. `tests/contract.rs` and `__test__/contract.test.mjs` fail
//! while a checked-in file differs from what the generators write.
//!
//! Schemas use only keywords that mean the same in JSON Schema draft-07 and 2020-12 (no `$schema`, no
//! `format`), with named types under `$defs` (Ajv accepts `$defs` in both drafts).

pub mod receipts;

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

/// Pretty JSON with a final newline: the form of every generated file.
pub fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
