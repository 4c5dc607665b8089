//! The edit-robustness corpus adapter for the pure engine (no files): one JSON case per stdin line,
//! one verdict per stdout line. `npm run bench:corpus` runs the same cases through the Node API.
//!
//! python3 ../shared/corpus/score.py ../shared/corpus/robust-dev.jsonl \
//!     --adapter "target/release/examples/corpus_adapter"
use std::io::{BufRead, Write};

use serde_json::{json, Value};
use surepatch::edit::{apply::apply_edits, ir::Edit, matcher::Tolerance};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() {
            continue;
        }
        let case: Value = serde_json::from_str(&line).expect("case json");
        let file = case["file"].as_str().unwrap_or_default();
        let edit = Edit::new(
            case["edit"]["old"].as_str().unwrap_or_default(),
            case["edit"]["new"].as_str().unwrap_or_default(),
        );
        let verdict = match apply_edits(file, &[edit], Tolerance::Safe) {
            Ok(a) => json!({"id": case["id"], "outcome": "apply", "result": a.text}),
            Err(f) => {
                let cands: Vec<Value> = f
                    .detail("candidates")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(|c| c["start_line"].clone()).collect())
                    .or_else(|| f.detail("match_lines").and_then(Value::as_array).cloned())
                    .unwrap_or_default();
                json!({"id": case["id"], "outcome": "reject", "code": f.code.as_str(), "candidates": cands})
            }
        };
        writeln!(out, "{verdict}").expect("stdout");
    }
}
