//! Reading JSON arguments the way every entry point accepts them: snake_case and camelCase spellings
//! of each key, strict types, unknown keys refused with the list of known ones.
//!
//! When two spellings of one key are both given, they must be equal; otherwise the call is refused with
//! `INVALID_INPUT` (silently preferring one would hide a caller's bug).

use serde_json::{Map, Value};

use crate::error::{Code, Failure, Result};

/// An argument object: the map, and the keys read so far. Messages name its keys bare, as the
/// tool's arguments.
pub struct Obj<'a> {
    map: &'a Map<String, Value>,
    known: Vec<&'static str>,
}

static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();

pub fn bad(msg: impl Into<String>) -> Failure {
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

/// Positional argument `i` (0-based), a required string; `name` as the caller knows it.
pub fn str_arg<'a>(args: &'a [Value], i: usize, name: &str) -> Result<&'a str> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s),
        Some(Value::Null) | None => Err(bad(format!("{name} is required (a string)."))),
        Some(v) => Err(bad(format!(
            "{name} must be a string, got {}.",
            type_name(v)
        ))),
    }
}

impl<'a> Obj<'a> {
    /// `v` must be an object; `null`/absent is allowed when `optional` (then it is empty).
    pub fn new(name: &str, v: Option<&'a Value>, optional: bool) -> Result<Obj<'a>> {
        let map = match v {
            Some(Value::Object(m)) => m,
            None | Some(Value::Null) if optional => EMPTY.get_or_init(Map::new),
            Some(other) => {
                return Err(bad(format!(
                    "{name} must be an object, got {}.",
                    type_name(other)
                )))
            }
            None => return Err(bad(format!("{name} is required."))),
        };
        Ok(Obj {
            map,
            known: Vec::new(),
        })
    }

    /// The value under any of `keys` (spellings of one key), refusing conflicting spellings.
    pub fn get(&mut self, keys: &[&'static str]) -> Result<Option<&'a Value>> {
        self.known.extend_from_slice(keys);
        let mut found: Option<(&str, &'a Value)> = None;
        for k in keys {
            if let Some(v) = self.map.get(*k) {
                if v.is_null() {
                    continue;
                }
                match found {
                    Some((k0, v0)) if v0 != v => {
                        return Err(bad(format!(
                            "both {k0} and {k} are given with different values; send one spelling."
                        )))
                    }
                    Some(_) => {}
                    None => found = Some((k, v)),
                }
            }
        }
        Ok(found.map(|(_, v)| v))
    }

    /// A key as a model knows it: the tool's argument name, bare (`search_block`, not
    /// `input.search_block`).
    fn label(&self, keys: &[&'static str]) -> String {
        keys[0].to_string()
    }

    pub fn string(&mut self, keys: &[&'static str]) -> Result<Option<&'a str>> {
        match self.get(keys)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(bad(format!(
                "{} must be a string, got {}.",
                self.label(keys),
                type_name(v)
            ))),
        }
    }

    pub fn req_string(&mut self, keys: &[&'static str]) -> Result<&'a str> {
        let label = self.label(keys);
        self.string(keys)?
            .ok_or_else(|| bad(format!("{label} is required (a string).")))
    }

    pub fn boolean(&mut self, keys: &[&'static str]) -> Result<Option<bool>> {
        match self.get(keys)? {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(bad(format!(
                "{} must be a boolean, got {}.",
                self.label(keys),
                type_name(v)
            ))),
        }
    }

    pub fn uint(&mut self, keys: &[&'static str]) -> Result<Option<u64>> {
        match self.get(keys)? {
            None => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                bad(format!(
                    "{} must be a non-negative whole number, got {v}.",
                    self.label(keys)
                ))
            }),
        }
    }

    /// An array of strings.
    pub fn strings(&mut self, keys: &[&'static str]) -> Result<Option<Vec<String>>> {
        let label = self.label(keys);
        match self.get(keys)? {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    v => Err(bad(format!(
                        "{label} must be an array of strings, got an array holding {}.",
                        type_name(v)
                    ))),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(v) => Err(bad(format!(
                "{label} must be an array of strings, got {}.",
                type_name(v)
            ))),
        }
    }

    /// One of `allowed`, as a string.
    pub fn choice(
        &mut self,
        keys: &[&'static str],
        allowed: &[&'static str],
    ) -> Result<Option<&'static str>> {
        match self.string(keys)? {
            None => Ok(None),
            Some(s) => allowed
                .iter()
                .find(|a| **a == s)
                .copied()
                .map(Some)
                .ok_or_else(|| {
                    bad(format!(
                        "{} must be one of {allowed:?}, got {s:?}.",
                        self.label(keys)
                    ))
                }),
        }
    }

    /// Refuses keys no getter asked for. Call after reading every field.
    pub fn finish(&self) -> Result<()> {
        let mut unknown: Vec<&str> = self
            .map
            .keys()
            .map(String::as_str)
            .filter(|k| !self.known.contains(k))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort();
        let mut known = self.known.clone();
        known.sort();
        known.dedup();
        Err(bad(format!(
            "unknown argument(s) {unknown:?}; known ones are {known:?}."
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_spellings() {
        let v = json!({"file_path": "a", "filePath": "a"});
        let mut o = Obj::new("input", Some(&v), false).unwrap();
        assert_eq!(o.req_string(&["file_path", "filePath"]).unwrap(), "a");
        let v = json!({"file_path": "a", "filePath": "b"});
        let mut o = Obj::new("input", Some(&v), false).unwrap();
        assert_eq!(
            o.req_string(&["file_path", "filePath"]).unwrap_err().code,
            Code::InvalidInput
        );
    }

    #[test]
    fn types_and_unknown_keys() {
        let v = json!({"file_path": 3, "x": 1});
        let mut o = Obj::new("input", Some(&v), false).unwrap();
        let e = o.req_string(&["file_path", "filePath"]).unwrap_err();
        assert!(
            e.message.contains("must be a string, got a number"),
            "{}",
            e.message
        );
        assert!(o.finish().unwrap_err().message.contains("\"x\""));
        assert!(Obj::new("options", Some(&Value::Null), true).is_ok());
        assert!(Obj::new("input", Some(&json!(5)), false).is_err());
    }

    #[test]
    fn uint_refuses_every_number_that_is_not_a_whole_count() {
        for v in [
            json!(-1),
            json!(1.5),
            json!(-0.5),
            json!(1e300),
            json!(2.0),
            json!(-1e-300),
        ] {
            let m = json!({ "n": v });
            let mut o = Obj::new("options", Some(&m), false).unwrap();
            let e = o.uint(&["n"]).unwrap_err();
            assert_eq!(e.code, Code::InvalidInput, "{v}");
            assert!(
                e.message.contains("non-negative whole number"),
                "{}",
                e.message
            );
        }
        let m = json!({ "n": 7 });
        assert_eq!(
            Obj::new("o", Some(&m), false)
                .unwrap()
                .uint(&["n"])
                .unwrap(),
            Some(7)
        );
        // NaN and Infinity have no JSON spelling: a payload naming them is not JSON, so INVALID_INPUT.
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
}
