//! Conformance suite for the multi-file formats. Each fixture is a directory
//! `tests/fixtures/<format>/NNN_name/` holding:
//!
//! - `input/`: the workspace before the call (absent: an empty workspace);
//! - `patch.txt`: the text handed to the entry point, byte for byte;
//! - `options.json` (optional): options merged over `{workspace_root}`;
//! - either `expected/`: the whole workspace afterwards, compared byte for byte (no file more, none
//!   less), or `expected_error.json`: `{"code": ..., other keys}` compared with the failure, and the
//!   workspace must be exactly the input (nothing written).
//!
//! `<format>` is `apply_patch`, `blocks` or `unified_diff` (the entry point called).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    walk(root, root, &mut out);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let p = to.join(&rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
}

fn show(t: &BTreeMap<String, Vec<u8>>) -> String {
    t.iter()
        .map(|(k, v)| format!("{k}: {:?}\n", String::from_utf8_lossy(v)))
        .collect()
}

fn op_for(format: &str) -> &'static str {
    match format {
        "apply_patch" => "apply_patch",
        "blocks" => "apply_blocks",
        "unified_diff" => "apply_unified_diff",
        other => panic!("unknown fixture format {other}"),
    }
}

fn run_fixture(format: &str, dir: &Path) -> Result<(), String> {
    let ws = tempfile::tempdir().unwrap();
    let input = dir.join("input");
    copy_tree(&input, ws.path());
    let before = tree(ws.path());
    let patch = String::from_utf8(fs::read(dir.join("patch.txt")).unwrap()).unwrap();
    let mut opts = match fs::read_to_string(dir.join("options.json")) {
        Ok(s) => serde_json::from_str::<Value>(&s).unwrap(),
        Err(_) => json!({}),
    };
    opts["workspace_root"] = json!(ws.path().to_str().unwrap());
    let out = surepatch::api::call(op_for(format), &json!([patch, opts]).to_string());
    let r: Value = serde_json::from_str(&out).unwrap();
    let after = tree(ws.path());
    if let Ok(s) = fs::read_to_string(dir.join("expected_error.json")) {
        let want: Value = serde_json::from_str(&s).unwrap();
        if r["ok"] != json!(false) {
            return Err(format!("expected failure {want}, got {r}"));
        }
        for (k, v) in want.as_object().unwrap() {
            if &r[k] != v {
                return Err(format!("{k}: expected {v}, got {} in {r}", r[k]));
            }
        }
        if after != before {
            return Err(format!(
                "the workspace changed on failure:\n{}",
                show(&after)
            ));
        }
    } else {
        if r["ok"] != json!(true) {
            return Err(format!("expected success, got {r}"));
        }
        let want = tree(&dir.join("expected"));
        if after != want {
            return Err(format!(
                "tree differs.\nexpected:\n{}got:\n{}receipt: {r}",
                show(&want),
                show(&after)
            ));
        }
        if r["written"] != json!(true) {
            return Err(format!("written is not true: {r}"));
        }
    }
    Ok(())
}

#[test]
fn fixtures() {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut failures = Vec::new();
    let mut count = BTreeMap::new();
    for format in ["apply_patch", "blocks", "unified_diff"] {
        let mut dirs: Vec<_> = fs::read_dir(base.join(format))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        count.insert(format, dirs.len());
        for d in dirs {
            if let Err(e) = run_fixture(format, &d) {
                failures.push(format!("{}: {e}", d.strip_prefix(&base).unwrap().display()));
            }
        }
    }
    assert!(
        count.values().all(|&n| n > 10),
        "{count:?}; failures: {failures:#?}"
    );
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// A write failing on the third of four files: the first two are restored, nothing is left behind.
#[test]
fn a_failed_write_restores_every_file_already_written() {
    let d = tempfile::tempdir().unwrap();
    for n in 1..=4 {
        fs::write(d.path().join(format!("f{n}.txt")), format!("line {n}\n")).unwrap();
    }
    let mut patch = String::from("*** Begin Patch\n");
    for n in 1..=4 {
        patch.push_str(&format!(
            "*** Update File: f{n}.txt\n@@\n-line {n}\n+changed {n}\n"
        ));
    }
    patch.push_str("*** End Patch\n");
    let before = tree(d.path());
    let marker = std::path::Path::new(d.path().file_name().unwrap())
        .join("f3.txt")
        .to_string_lossy()
        .into_owned();
    let out = surepatch::fs::fsio::with_write_fault(marker, || {
        surepatch::api::call(
            "apply_patch",
            &json!([patch, {"workspace_root": d.path().to_str().unwrap()}]).to_string(),
        )
    });
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["code"], "FILE_WRITE_ERROR", "{r}");
    assert_eq!(r["op_index"], 2, "{r}");
    assert_eq!(r["file_path"], "f3.txt", "{r}");
    assert_eq!(r["rolled_back"], json!(["f2.txt", "f1.txt"]), "{r}");
    assert_eq!(
        tree(d.path()),
        before,
        "every file restored, no temp file left"
    );

    // The same patch applies once the fault is gone.
    let out = surepatch::api::call(
        "apply_patch",
        &json!([patch, {"workspace_root": d.path().to_str().unwrap()}]).to_string(),
    );
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read_to_string(d.path().join("f4.txt")).unwrap(),
        "changed 4\n"
    );
}
