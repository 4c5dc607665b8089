//! End-to-end tests of patchFile, applyEdits and previewEdits (receipts, refusals, encodings, the
//! fallback ladder) on real files in a temp workspace.

use super::call;
use super::test_support::{run, Ws};
use serde_json::{json, Value};
use std::fs;

#[test]
fn patch_file_success_receipt() {
    let d = Ws::new();
    fs::write(d.path().join("a.py"), "x = 1\ny = 2\n").unwrap();
    let r = run(
        "patch_file",
        json!([{"file_path": "a.py", "search_block": "y = 2", "replace_block": "y = 3"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["line_number"], 2);
    assert_eq!(r["replacements"], 1);
    assert_eq!(r["written"], true);
    assert_eq!(r["tier"], "exact");
    assert_eq!(r["before_bytes"], 12);
    assert_eq!(r["after_bytes"], 12);
    assert_eq!(
        r["file_hash"],
        crate::edit::hash::file_hash(b"x = 1\ny = 3\n")
    );
    assert!(r["diff"].as_str().unwrap().contains("-y = 2\n+y = 3\n"));
    assert_eq!(
        fs::read_to_string(d.path().join("a.py")).unwrap(),
        "x = 1\ny = 3\n"
    );
}

#[test]
fn camel_case_and_dry_run() {
    let d = Ws::new();
    fs::write(d.path().join("a.txt"), "hello").unwrap();
    let r = run(
        "patch_file",
        json!([{"filePath": "a.txt", "searchBlock": "hello", "replaceBlock": "bye"}, {"workspaceRoot": d.root(), "dryRun": true}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["written"], false);
    assert_eq!(fs::read_to_string(d.path().join("a.txt")).unwrap(), "hello");
}

#[test]
fn error_codes_leave_the_file_unchanged() {
    let d = Ws::new();
    let p = d.path().join("f.txt");
    fs::write(&p, "aa\nbb\naa\n").unwrap();
    let cases = [
        (
            json!({"file_path": "f.txt", "search_block": "zz", "replace_block": "y"}),
            "SEARCH_BLOCK_NOT_FOUND",
        ),
        (
            json!({"file_path": "f.txt", "search_block": "aa", "replace_block": "y"}),
            "SEARCH_BLOCK_AMBIGUOUS",
        ),
        (
            json!({"file_path": "f.txt", "search_block": "bb", "replace_block": "bb"}),
            "NO_CHANGES",
        ),
        (
            json!({"file_path": "f.txt", "search_block": "", "replace_block": "y"}),
            "INVALID_INPUT",
        ),
        (
            json!({"file_path": 7, "search_block": "bb", "replace_block": "y"}),
            "INVALID_INPUT",
        ),
        (
            json!({"file_path": "f.txt", "search_block": "bb"}),
            "INVALID_INPUT",
        ),
        (
            json!({"file_path": "../x", "search_block": "bb", "replace_block": "y"}),
            "PATH_OUTSIDE_WORKSPACE",
        ),
        (
            json!({"file_path": "nope.txt", "search_block": "bb", "replace_block": "y"}),
            "FILE_NOT_FOUND",
        ),
        (
            json!({"file_path": ".", "search_block": "bb", "replace_block": "y"}),
            "TARGET_IS_DIRECTORY",
        ),
        (
            json!({"file_path": "f.txt", "search_block": "bb", "replace_block": "y", "extra": 1}),
            "INVALID_INPUT",
        ),
    ];
    for (input, code) in cases {
        let r = run("patch_file", json!([input, {"workspace_root": d.root()}]));
        assert_eq!(r["ok"], false);
        assert_eq!(r["code"], code, "{input} -> {r}");
        assert!(!r["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(fs::read(&p).unwrap(), b"aa\nbb\naa\n");
    let r = run(
        "patch_file",
        json!([{"file_path": "f.txt", "search_block": "aa", "replace_block": "y"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["match_count"], 2);
    assert_eq!(r["match_lines"], json!([1, 3]));
}

#[test]
fn binary_and_invalid_utf8_are_refused() {
    let d = Ws::new();
    fs::write(d.path().join("b.bin"), b"ab\0cd").unwrap();
    fs::write(d.path().join("l.txt"), b"caf\xe9\n").unwrap();
    let r = run(
        "patch_file",
        json!([{"file_path": "b.bin", "search_block": "ab", "replace_block": "x"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["code"], "BINARY_FILE_REJECTED");
    let r = run(
        "patch_file",
        json!([{"file_path": "l.txt", "search_block": "caf", "replace_block": "x"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["code"], "ENCODING_UNSUPPORTED");
    assert_eq!(fs::read(d.path().join("l.txt")).unwrap(), b"caf\xe9\n");
}

#[test]
fn crlf_bom_and_utf16_round_trip() {
    let d = Ws::new();
    fs::write(d.path().join("c.txt"), b"\xef\xbb\xbfa\r\nb\r\n").unwrap();
    let r = run(
        "patch_file",
        json!([{"file_path": "c.txt", "search_block": "a\nb\n", "replace_block": "a\nB\n"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read(d.path().join("c.txt")).unwrap(),
        b"\xef\xbb\xbfa\r\nB\r\n"
    );
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("h\u{e9}llo\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    fs::write(d.path().join("u.txt"), &utf16).unwrap();
    let r = run(
        "patch_file",
        json!([{"file_path": "u.txt", "search_block": "h\u{e9}llo", "replace_block": "bye"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let want: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("bye\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(fs::read(d.path().join("u.txt")).unwrap(), want);
}

#[test]
fn apply_edits_batch_and_preview() {
    let d = Ws::new();
    let p = d.path().join("m.js");
    fs::write(&p, "const a = 1;\nconst b = 2;\n").unwrap();
    let edits =
        json!([{"old": "const a = 1;", "new": "const a = 10;"}, ["const b = 2;", "const b = 20;"]]);
    let r = run(
        "preview_edits",
        json!(["m.js", edits, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["written"], false);
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "const a = 1;\nconst b = 2;\n"
    );
    let r = run(
        "apply_edits",
        json!(["m.js", edits, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["edits_applied"], 2);
    assert_eq!(r["matches"][1]["start_line"], 2);
    assert_eq!(r["matches"][1]["tier"], "exact");
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "const a = 10;\nconst b = 20;\n"
    );
    // A failing edit names its index and writes nothing.
    let r = run(
        "apply_edits",
        json!(["m.js", [["const a = 10;", "x"], ["nope", "y"]], {"workspace_root": d.root()}]),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND");
    assert_eq!(r["edit_index"], 1);
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "const a = 10;\nconst b = 20;\n"
    );
}

#[test]
fn stale_base_hash_is_refused() {
    let d = Ws::new();
    let p = d.path().join("s.txt");
    fs::write(&p, "one\n").unwrap();
    let r = run(
        "patch_file",
        json!([{"file_path": "s.txt", "search_block": "one", "replace_block": "two"}, {"workspace_root": d.root(), "base_hash": "0000000000000000"}]),
    );
    assert_eq!(r["code"], "STALE_FILE");
    assert_eq!(r["current_hash"], crate::edit::hash::file_hash(b"one\n"));
    assert_eq!(fs::read_to_string(&p).unwrap(), "one\n");
    let good = crate::edit::hash::file_hash(b"one\n");
    let r = run(
        "patch_file",
        json!([{"file_path": "s.txt", "search_block": "one", "replace_block": "two"}, {"workspace_root": d.root(), "base_hash": good}]),
    );
    assert_eq!(r["ok"], true);
}

#[test]
fn malformed_payloads() {
    let v: Value = serde_json::from_str(&call("patch_file", "not json")).unwrap();
    assert_eq!(v["code"], "INVALID_INPUT");
    let v: Value = serde_json::from_str(&call("patch_file", r#"["\ud800"]"#)).unwrap();
    assert_eq!(v["code"], "INVALID_INPUT");
    let v: Value = serde_json::from_str(&call("nope", "[]")).unwrap();
    assert_eq!(v["code"], "INVALID_INPUT");
    let v = run("patch_file", json!([null]));
    assert_eq!(v["code"], "INVALID_INPUT");
    let v = run(
        "patch_file",
        json!([{"file_path": "a", "search_block": "b", "replace_block": "c"}, 5]),
    );
    assert_eq!(v["code"], "INVALID_INPUT");
}

#[test]
fn ladder_escalates_and_detects_repeats() {
    let d = Ws::new();
    let p = d.path().join("l.py");
    fs::write(&p, "def f():\n    retries = 3\n    return retries\n").unwrap();
    let bad = json!([{"file_path": "l.py", "search_block": "    retries = 2\n    return retries\n", "replace_block": "x"}, {"workspace_root": d.root()}]);
    let r1 = run("patch_file", bad.clone());
    assert_eq!(
        (
            r1["code"].as_str(),
            r1["attempt"].as_u64(),
            r1["next_action"].as_str()
        ),
        (Some("SEARCH_BLOCK_NOT_FOUND"), Some(1), Some("reread"))
    );
    assert!(r1.get("repeated").is_none());
    assert!(
        r1["hint"].as_str().unwrap().contains("lines 2-3"),
        "{}",
        r1["hint"]
    );
    let r2 = run("patch_file", bad.clone());
    assert_eq!(
        (
            r2["attempt"].as_u64(),
            r2["next_action"].as_str(),
            r2["repeated"].as_u64()
        ),
        (Some(2), Some("use_line_edit"), Some(1))
    );
    assert!(r2["message"]
        .as_str()
        .unwrap()
        .contains("do not resend it unchanged"));
    let r3 = run("patch_file", bad.clone());
    assert_eq!(
        (
            r3["attempt"].as_u64(),
            r3["next_action"].as_str(),
            r3["repeated"].as_u64()
        ),
        (Some(3), Some("rewrite_file"), Some(2))
    );
    // A different code on the same file starts again at 1; a success resets the file.
    let amb = run(
        "patch_file",
        json!([{"file_path": "l.py", "search_block": "retries", "replace_block": "n"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(
        (amb["attempt"].as_u64(), amb["next_action"].as_str()),
        (Some(1), Some("widen_context"))
    );
    let ok = run(
        "patch_file",
        json!([{"file_path": "l.py", "search_block": "retries = 3", "replace_block": "retries = 4"}, {"workspace_root": d.root()}]),
    );
    assert_eq!(ok["ok"], true);
    let again = run("patch_file", bad);
    assert_eq!(again["attempt"], 1);
    let inv = run("patch_file", json!([{"file_path": 1}]));
    assert_eq!(inv["next_action"], "fix_input");
}

#[test]
fn a_large_bom_crlf_file_is_edited_in_place_byte_for_byte() {
    // Several scan blocks of non-ASCII CRLF text after a BOM; two edits far apart. The write sends the
    // unchanged stretches from the read buffer: the file must be exactly the expected bytes, the
    // counts JavaScript's, and a dry run's hash the written file's.
    let d = Ws::new();
    let p = d.path().join("big.txt");
    let body: String = (0..6000)
        .map(|i| format!("línea {i}: “ok” 😀\r\n"))
        .collect();
    let original = format!("\u{feff}{body}");
    fs::write(&p, &original).unwrap();
    let edits = json!([
        ["línea 10: “ok” 😀", "line ten"],
        ["línea 5990: “ok”", "línea 5990: “done”"]
    ]);
    let expected = original
        .replacen("línea 10: “ok” 😀", "line ten", 1)
        .replacen("línea 5990: “ok”", "línea 5990: “done”", 1);
    let dry = run(
        "preview_edits",
        json!(["big.txt", edits.clone(), {"workspace_root": d.root()}]),
    );
    assert_eq!(dry["ok"], true, "{dry}");
    assert_eq!(fs::read_to_string(&p).unwrap(), original);
    let r = run(
        "apply_edits",
        json!(["big.txt", edits, {"workspace_root": d.root()}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read(&p).unwrap(), expected.as_bytes());
    assert_eq!(
        r["file_hash"],
        crate::edit::hash::file_hash(expected.as_bytes())
    );
    assert_eq!(dry["file_hash"], r["file_hash"]);
    assert_eq!(r["before_bytes"], original.len());
    assert_eq!(r["after_bytes"], expected.len());
    // Without the BOM (U+FEFF is not part of the text).
    let js_len = |s: &str| s.encode_utf16().count() - 1;
    assert_eq!(r["before_chars"], js_len(&original));
    assert_eq!(r["after_chars"], js_len(&expected));
    let diff = r["diff"].as_str().unwrap();
    assert!(diff.contains("-línea 10: “ok” 😀\n+line ten\n"), "{diff}");
    assert!(diff.contains("@@ -5988,7 +5988,7 @@"), "{diff}");
}
