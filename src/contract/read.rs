//! Reading the arguments of an operation from its declaration: the one reader of every input.
//!
//! [`read_args`] takes the JSON argument array `api::call` received and the type that declares the
//! operation's parameters ([`super::inputs`]), and returns a value of that type. It walks the
//! argument against the type's JSON Schema (the same schema `schemas/<op>.args.json` is generated
//! from) before serde deserializes it, so that every input gets the same rules and messages a model
//! can act on:
//!
//! - every property is accepted in snake_case, in camelCase and in any other spelling its field
//!   lists in `x-aliases`; two spellings of one key with different values are refused;
//! - `null` is read as absent, for a parameter and for a property;
//! - unknown keys are refused with the list of known ones;
//! - a value of the wrong type is refused naming the key, what it must be and what it is
//!   (`edits[2].old must be a string, got a number.`); a missing required key names its spellings.
//!
//! Every refusal is `INVALID_INPUT`. Declarations whose published schema is a choice of shapes that a
//! reader cannot tell apart by JSON type alone (the line ops of `editLines`) carry the schema to read
//! by in `x-read`, which the generated files do not keep.
//!
//! This module may use [`crate::error`] and the declarations of [`super::inputs`]; it knows nothing
//! of what an operation does with its arguments.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{Code, Failure, Result};

fn bad(msg: impl Into<String>) -> Failure {
    Failure::new(Code::InvalidInput, msg)
}

/// A JSON type name for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The reading schema of a declaration: its root object and its named definitions.
struct Declared {
    root: Value,
    defs: Map<String, Value>,
}

fn declared<A: JsonSchema + 'static>() -> Arc<Declared> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Declared>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = TypeId::of::<A>();
    if let Some(d) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return d.clone();
    }
    let mut g = super::input_generator();
    let root = A::json_schema(&mut g).to_value();
    let defs = g.take_definitions(true);
    let d = Arc::new(Declared { root, defs });
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, d.clone());
    d
}

/// Reads the positional arguments of an operation declared by `A` (one field per parameter, in
/// order; see [`super::inputs`]). Arguments past the declared ones are ignored, as JavaScript does.
pub fn read_args<A: DeserializeOwned + JsonSchema + 'static>(args: &[Value]) -> Result<A> {
    let d = declared::<A>();
    let props = d.root["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut obj = Map::new();
    for (i, (name, _)) in props.iter().enumerate() {
        match args.get(i) {
            None | Some(Value::Null) => {}
            Some(v) => {
                obj.insert(name.clone(), v.clone());
            }
        }
    }
    let walker = Walker { defs: &d.defs };
    let canon = walker.object(&Value::Object(obj), &d.root, &Path::Args)?;
    from_canonical(canon)
}

/// Reads one value declared by `T`, labelled `label` in messages (tests read single items with it).
#[cfg(test)]
pub fn read_value<T: DeserializeOwned + JsonSchema + 'static>(v: &Value, label: &str) -> Result<T> {
    let d = declared::<T>();
    let walker = Walker { defs: &d.defs };
    let canon = walker.value(v, &d.root, &Path::Named(label.to_string()))?;
    from_canonical(canon)
}

fn from_canonical<T: DeserializeOwned>(v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| bad(e.to_string()))
}

/// Where a value sits, for messages: a parameter and the keys of its objects are named bare
/// (`file_path`, `dry_run`), deeper values by their path (`edits[2].old`).
enum Path {
    /// The argument list itself (its keys are the parameters).
    Args,
    /// A parameter, or a key of a parameter's object: its name alone.
    Named(String),
    /// Deeper: the whole path.
    Deep(String),
}

impl Path {
    fn key(&self, k: &str) -> Path {
        match self {
            Path::Args | Path::Named(_) => Path::Named(k.to_string()),
            Path::Deep(p) => Path::Deep(format!("{p}.{k}")),
        }
    }

    fn item(&self, i: usize) -> Path {
        match self {
            Path::Args => Path::Deep(format!("[{i}]")),
            Path::Named(p) | Path::Deep(p) => Path::Deep(format!("{p}[{i}]")),
        }
    }

    fn label(&self) -> &str {
        match self {
            Path::Args => "the arguments",
            Path::Named(p) | Path::Deep(p) => p,
        }
    }
}

/// `include_ignored` → `includeIgnored`.
fn camel(k: &str) -> String {
    super::camel(k)
}

struct Walker<'a> {
    defs: &'a Map<String, Value>,
}

impl Walker<'_> {
    /// `s` with a `$ref` followed, and `x-read` preferred when the declaration has one.
    fn resolve<'s>(&'s self, mut s: &'s Value) -> &'s Value {
        for _ in 0..16 {
            if let Some(r) = s.get("x-read") {
                s = r;
                continue;
            }
            match s.get("$ref").and_then(Value::as_str) {
                Some(r) => match r.strip_prefix("#/$defs/").and_then(|n| self.defs.get(n)) {
                    Some(t) => s = t,
                    None => return s,
                },
                None => return s,
            }
        }
        s
    }

    /// What a schema asks for, for messages: "a string", "an array of strings", "one of [...]".
    fn describe(&self, s: &Value) -> String {
        let s = self.resolve(s);
        if let Some(Value::Array(vs)) = s.get("enum") {
            let names: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
            return format!("one of [{}]", names.join(", "));
        }
        if let Some(c) = s.get("const") {
            return format!("{c}");
        }
        if let Some(bs) = branches(s) {
            let mut parts: Vec<String> = bs
                .iter()
                .filter(|b| self.resolve(b).get("type") != Some(&Value::from("null")))
                .map(|b| self.describe(b))
                .collect();
            parts.dedup();
            return parts.join(" or ");
        }
        let types: Vec<&str> = match s.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let one = |t: &str| -> String {
            match t {
                "string" => "a string".into(),
                "boolean" => "a boolean".into(),
                "integer" if s.get("minimum").and_then(Value::as_f64) == Some(0.0) => {
                    "a non-negative whole number".into()
                }
                "integer" => "a whole number".into(),
                "number" => "a number".into(),
                "array" => match s.get("items") {
                    Some(items) => {
                        let inner = self.describe(items);
                        match inner
                            .strip_prefix("a ")
                            .or_else(|| inner.strip_prefix("an "))
                        {
                            Some(bare) if !bare.contains(' ') => format!("an array of {bare}s"),
                            _ => format!("an array, each item {inner}"),
                        }
                    }
                    None => "an array".into(),
                },
                "object" => "an object".into(),
                other => other.to_string(),
            }
        };
        let parts: Vec<String> = types
            .iter()
            .filter(|t| **t != "null")
            .map(|t| one(t))
            .collect();
        if parts.is_empty() {
            "a value".into()
        } else {
            parts.join(" or ")
        }
    }

    /// Reads `v` as the schema `s` says, returning it with every key in its canonical spelling.
    fn value(&self, v: &Value, s: &Value, at: &Path) -> Result<Value> {
        let s = self.resolve(s);
        if v.is_null() && allows_null(s, self) {
            return Ok(Value::Null);
        }
        if let Some(bs) = branches(s) {
            return self.choice(v, s, bs, at);
        }
        if let Some(c) = s.get("const") {
            if v != c {
                return Err(self.wrong(v, s, at));
            }
            return Ok(v.clone());
        }
        if let Some(Value::Array(allowed)) = s.get("enum") {
            if !allowed.contains(v) {
                let names: Vec<String> = allowed.iter().map(Value::to_string).collect();
                return Err(bad(format!(
                    "{} must be one of [{}], got {v}.",
                    at.label(),
                    names.join(", ")
                )));
            }
            return Ok(v.clone());
        }
        if !type_fits(s, v) {
            return Err(self.wrong(v, s, at));
        }
        match v {
            Value::Object(_) => self.object(v, s, at),
            Value::Array(items) => {
                let n = items.len() as u64;
                let min = s.get("minItems").and_then(Value::as_u64);
                let max = s.get("maxItems").and_then(Value::as_u64);
                if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                    let want = match (min, max) {
                        (Some(a), Some(b)) if a == b => format!("{a}"),
                        (Some(a), Some(b)) => format!("{a} to {b}"),
                        (Some(a), None) => format!("at least {a}"),
                        (None, Some(b)) => format!("at most {b}"),
                        (None, None) => unreachable!(),
                    };
                    return Err(bad(format!(
                        "{} must have {want} items, got {n}.",
                        at.label()
                    )));
                }
                let item_schema = s.get("items");
                let prefix = s.get("prefixItems").and_then(Value::as_array);
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let is = prefix.and_then(|p| p.get(i)).or(item_schema);
                    out.push(match is {
                        Some(is) => self.value(item, is, &at.item(i))?,
                        None => item.clone(),
                    });
                }
                Ok(Value::Array(out))
            }
            _ => Ok(v.clone()),
        }
    }

    fn wrong(&self, v: &Value, s: &Value, at: &Path) -> Failure {
        let want = self.describe(s);
        let got = match v {
            Value::Number(_) if want.contains("whole number") => v.to_string(),
            _ => type_name(v).to_string(),
        };
        bad(format!("{} must be {want}, got {got}.", at.label()))
    }

    /// A value declared as one of several shapes: the shapes of its JSON type are tried in order;
    /// the first that reads it wins. When none does, the refusal of the first is given.
    fn choice(&self, v: &Value, s: &Value, bs: &[Value], at: &Path) -> Result<Value> {
        let fitting: Vec<&Value> = bs
            .iter()
            .filter(|b| {
                let b = self.resolve(b);
                branches(b).is_some() || type_fits(b, v) || b.get("const").is_some()
            })
            .collect();
        let mut first_err = None;
        for b in &fitting {
            match self.value(v, b, at) {
                Ok(out) => return Ok(out),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.unwrap_or_else(|| self.wrong(v, s, at)))
    }

    /// An object: every key in its canonical spelling, `null`s dropped, unknown keys refused,
    /// required keys present, each value read by its own schema.
    fn object(&self, v: &Value, s: &Value, at: &Path) -> Result<Value> {
        let Value::Object(given) = v else {
            return Err(self.wrong(v, s, at));
        };
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            // A map (`{path: hash}`): each value by `additionalProperties`.
            let mut out = Map::new();
            for (k, x) in given {
                if x.is_null() {
                    continue;
                }
                let x = match s.get("additionalProperties") {
                    Some(vs) if vs.is_object() => {
                        self.value(x, vs, &Path::Deep(format!("{}[{k:?}]", at.label())))?
                    }
                    _ => x.clone(),
                };
                out.insert(k.clone(), x);
            }
            return Ok(Value::Object(out));
        };
        // Every spelling of every property, to its canonical name.
        let mut spelling: Vec<(String, &str)> = Vec::new();
        for (k, ps) in props {
            spelling.push((k.clone(), k));
            if matches!(at, Path::Args) {
                // Parameters are positional: they have no spellings.
                continue;
            }
            let c = camel(k);
            if c != *k {
                spelling.push((c, k));
            }
            for a in ps
                .get("x-aliases")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                spelling.push((a.to_string(), k));
            }
        }
        let canonical = |key: &str| spelling.iter().find(|(sp, _)| sp == key).map(|(_, c)| *c);
        let mut unknown: Vec<&str> = given
            .iter()
            .filter(|(k, _)| canonical(k).is_none())
            .map(|(k, _)| k.as_str())
            .collect();
        if !unknown.is_empty() {
            unknown.sort();
            let mut known: Vec<&str> = spelling.iter().map(|(sp, _)| sp.as_str()).collect();
            known.sort();
            known.dedup();
            let whose = match at {
                Path::Deep(p) => format!(" in {p}"),
                _ => String::new(),
            };
            return Err(bad(format!(
                "unknown argument(s) {unknown:?}{whose}; known ones are {known:?}."
            )));
        }
        let mut picked: Map<String, Value> = Map::new();
        let mut spelled_as: HashMap<&str, &str> = HashMap::new();
        for (k, x) in given {
            if x.is_null() {
                continue;
            }
            let c = canonical(k).expect("checked above");
            match picked.get(c) {
                Some(prev) if prev != x => {
                    return Err(bad(format!(
                        "both {} and {k} are given with different values; send one spelling.",
                        spelled_as[c]
                    )));
                }
                Some(_) => {}
                None => {
                    picked.insert(c.to_string(), x.clone());
                    spelled_as.insert(c, k);
                }
            }
        }
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut out = Map::new();
        for (k, ps) in props {
            let key_at = at.key(k);
            match picked.get(k.as_str()) {
                Some(x) => {
                    out.insert(k.clone(), self.value(x, ps, &key_at)?);
                }
                None if required.contains(&k.as_str()) => {
                    let mut names: Vec<&str> = Vec::new();
                    for (sp, c) in &spelling {
                        if *c == k && !names.contains(&sp.as_str()) {
                            names.push(sp);
                        }
                    }
                    let accepted = match names.as_slice() {
                        [_] | [] => String::new(),
                        n => format!("; accepted names: {}", n.join(", ")),
                    };
                    let hint = ps
                        .get("x-required")
                        .and_then(Value::as_str)
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                    return Err(bad(format!(
                        "{} is required ({}{hint}){accepted}.",
                        key_at.label(),
                        self.describe(ps)
                    )));
                }
                None => {}
            }
        }
        Ok(Value::Object(out))
    }
}

/// The alternatives of a schema declared as a choice (`anyOf` / `oneOf`).
fn branches(s: &Value) -> Option<&[Value]> {
    s.get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
}

fn allows_null(s: &Value, w: &Walker) -> bool {
    match s.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(ts)) if ts.iter().any(|t| t == "null") => return true,
        _ => {}
    }
    branches(s).is_some_and(|bs| bs.iter().any(|b| allows_null(w.resolve(b), w)))
}

/// Whether `v` has one of the JSON types `s` declares (any, when it declares none).
fn type_fits(s: &Value, v: &Value) -> bool {
    let fits = |t: &str| match t {
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => match s.get("minimum").and_then(Value::as_f64) {
            Some(m) if m >= 0.0 => v.as_u64().is_some(),
            _ => v.as_i64().is_some() || v.as_u64().is_some(),
        },
        "number" => v.is_number(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    };
    match s.get("type") {
        Some(Value::String(t)) => fits(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::inputs as i;
    use serde_json::json;

    fn edits(args: Value) -> Result<i::ApplyEditsArgs> {
        read_args(args.as_array().unwrap())
    }

    fn msg<T>(r: Result<T>) -> String {
        match r {
            Ok(_) => panic!("expected a refusal"),
            Err(e) => {
                assert_eq!(e.code, Code::InvalidInput, "{}", e.message);
                e.message
            }
        }
    }

    #[test]
    fn every_spelling_of_a_key_reads_as_its_field() {
        for old in ["old", "old_string", "oldString", "search"] {
            let a =
                edits(json!(["a.txt", [{old: "x", "new_string": "y"}], {"dryRun": true}])).unwrap();
            let i::Edit::Spec(e) = &a.edits[0] else {
                panic!("a spec")
            };
            assert_eq!((e.old.as_str(), e.new.as_str()), ("x", "y"), "{old}");
            assert_eq!(a.options.unwrap().edit.write.dry_run, Some(true));
        }
        // Equal values under two spellings are one value; different ones are refused.
        assert!(edits(json!(["a", [{"old": "x", "search": "x", "new": ""}]])).is_ok());
        let m = msg(edits(
            json!(["a", [{"old": "x", "search": "z", "new": ""}]]),
        ));
        assert!(m.contains("both old and search"), "{m}");
    }

    #[test]
    fn null_is_absent_and_unknown_keys_are_named_with_the_known_ones() {
        let a = edits(json!(["a", [["x", "y"]], {"dry_run": null, "tolerance": null}])).unwrap();
        assert_eq!(a.options.unwrap().edit.write.dry_run, None);
        let m = msg(edits(json!(["a", [], {"dry_run": true, "bogus": 1}])));
        assert!(m.contains(r#"unknown argument(s) ["bogus"]"#), "{m}");
        assert!(
            m.contains(r#""dryRun""#) && m.contains(r#""workspace_root""#),
            "{m}"
        );
        // Inside a list item, the message says which item.
        let m = msg(edits(json!(["a", [{"old": "x", "new": "y", "extra": 1}]])));
        assert!(m.contains(r#"["extra"] in edits[0]"#), "{m}");
    }

    #[test]
    fn wrong_types_and_missing_keys_name_the_path_and_the_spellings() {
        let m = msg(edits(json!([3, []])));
        assert_eq!(m, "file_path must be a string, got a number.");
        let m = msg(edits(json!([null, []])));
        assert_eq!(m, "file_path is required (a string).");
        let m = msg(edits(json!(["a", [{"old": 5, "new": ""}]])));
        assert_eq!(m, "edits[0].old must be a string, got a number.");
        let m = msg(edits(json!(["a", [{"old": "x"}]])));
        assert!(
            m == "edits[0].new is required (a string; \"\" deletes the old text); accepted names: new, new_string, newString, replace, newText.",
            "{m}"
        );
        let m = msg(edits(json!(["a", [["x", "y", "z"]]])));
        assert!(m.contains("edits[0]") && m.contains('3'), "{m}");
        let m = msg(edits(json!(["a", [], {"tolerance": "fuzzy"}])));
        assert_eq!(
            m,
            r#"tolerance must be one of ["exact", "safe"], got "fuzzy"."#
        );
        let m = msg(edits(json!(["a"])));
        assert!(m.starts_with("edits is required (an array"), "{m}");
    }

    #[test]
    fn counts_are_whole_non_negative_numbers() {
        for v in [json!(-1), json!(1.5), json!(-0.5), json!(1e300), json!(2.0)] {
            let m = msg(edits(
                json!(["a", [{"old": "a", "new": "b", "expected_replacements": v}]]),
            ));
            assert!(m.contains("non-negative whole number"), "{v}: {m}");
        }
        let a = edits(json!(["a", [{"old": "a", "new": "b", "expectedReplacements": 7}]])).unwrap();
        let i::Edit::Spec(e) = &a.edits[0] else {
            panic!("a spec")
        };
        assert_eq!(e.expected_replacements, Some(7));
        // NaN and Infinity have no JSON spelling: a payload naming them is not JSON.
        for n in ["NaN", "Infinity", "-Infinity", "1e400"] {
            let out = crate::api::call(
                "preview_edits",
                &format!(
                    r#"["a.txt", [{{"old": "a", "new": "b", "expected_replacements": {n}}}]]"#
                ),
            );
            assert!(out.contains(r#""code":"INVALID_INPUT""#), "{n}: {out}");
        }
    }

    #[test]
    fn a_declared_reading_schema_decides_between_shapes() {
        let undo = |t: Value| read_args::<i::UndoEditArgs>(&[t]);
        assert!(matches!(
            undo(json!({"editId": "e1"})).unwrap().target,
            i::UndoTarget::Named(i::UndoTargetObject::Id { .. })
        ));
        assert!(matches!(
            undo(json!({"file_path": "a"})).unwrap().target,
            i::UndoTarget::Named(i::UndoTargetObject::Path { .. })
        ));
        let m = msg(undo(json!({"edit_id": "e1", "file_path": "a"})));
        assert!(m.contains("exactly one of edit_id and file_path"), "{m}");
        let m = msg(undo(json!({})));
        assert!(m.contains("exactly one of edit_id and file_path"), "{m}");
        let m = msg(undo(json!(7)));
        assert!(m.starts_with("target must be a string or"), "{m}");
    }
}
