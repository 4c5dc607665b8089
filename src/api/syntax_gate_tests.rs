//! The syntax gate (option `validate`) through every edit entry point, and guarded rewrites
//! (`max_changed_lines`, `REWRITE_TOO_BROAD`). The gate tests need the grammars (feature `syntax`).

use serde_json::json;

use super::test_support::{run, Ws};

#[cfg(feature = "syntax")]
const JS: &str = "function f() {\n  return 1;\n}\n";

#[cfg(feature = "syntax")]
fn patch(
    ws: &Ws,
    path: &str,
    search: &str,
    replace: &str,
    validate: Option<&str>,
) -> serde_json::Value {
    let opts = match validate {
        Some(v) => ws.opts(json!({"validate": v})),
        None => ws.opts(json!({})),
    };
    run(
        "patch_file",
        json!([{"file_path": path, "search_block": search, "replace_block": replace}, opts]),
    )
}

#[test]
#[cfg(feature = "syntax")]
fn off_by_default_no_syntax_key() {
    let ws = Ws::with(&[("a.js", JS)]);
    let r = patch(&ws, "a.js", "return 1;", "return (1;", None);
    assert_eq!(r["ok"], true, "{r}");
    assert!(r.get("syntax").is_none(), "{r}");
    let ws = Ws::with(&[("a.js", JS)]);
    let r = patch(&ws, "a.js", "return 1;", "return (1;", Some("off"));
    assert!(r.get("syntax").is_none(), "{r}");
}

#[test]
#[cfg(feature = "syntax")]
fn report_lands_and_says_so() {
    let ws = Ws::with(&[("a.js", JS)]);
    let r = patch(&ws, "a.js", "return 1;", "return (1;", Some("report"));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["written"], true);
    assert_eq!(r["syntax"]["language"], "javascript");
    assert_eq!(r["syntax"]["ok"], false);
    let e = &r["syntax"]["new_errors"][0];
    assert_eq!(e["line"], 2, "{r}");
    assert!(e["column"].as_u64().unwrap() >= 1);
    assert_eq!(e["snippet"], "  return (1;");
    assert_eq!(ws.read_string("a.js"), "function f() {\n  return (1;\n}\n");
    // A clean edit reports ok.
    let ws = Ws::with(&[("a.js", JS)]);
    let r = patch(&ws, "a.js", "return 1;", "return 2;", Some("report"));
    assert_eq!(
        r["syntax"],
        json!({"language": "javascript", "ok": true, "new_errors": []})
    );
}

#[test]
#[cfg(feature = "syntax")]
fn enforce_refuses_and_writes_nothing() {
    let ws = Ws::with(&[("a.js", JS)]);
    let r = patch(&ws, "a.js", "return 1;", "return (1;", Some("enforce"));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED");
    assert_eq!(r["file_path"], "a.js");
    assert_eq!(r["syntax"]["ok"], false);
    let m = r["message"].as_str().unwrap();
    assert!(m.contains("line 2"), "{m}");
    assert!(m.contains(">   2 |   return (1;"), "{m}");
    assert_eq!(r["next_action"], "fix_input");
    assert_eq!(ws.read_string("a.js"), JS);
    // A dry run is refused the same way.
    let r = run(
        "preview_edits",
        json!(["a.js", [{"old": "return 1;", "new": "return (1;"}], ws.opts(json!({"validate": "enforce"}))]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    // A dry run under report tells, and writes nothing.
    let r = run(
        "preview_edits",
        json!(["a.js", [{"old": "return 1;", "new": "return (1;"}], ws.opts(json!({"validate": "report"}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["written"], false);
    assert_eq!(r["syntax"]["ok"], false);
    assert_eq!(ws.read_string("a.js"), JS);
}

#[test]
#[cfg(feature = "syntax")]
fn an_existing_error_elsewhere_does_not_block_a_clean_edit() {
    let broken = "function f() {\n  return 1;\n}\nconst x = (;\n";
    let ws = Ws::with(&[("a.js", broken)]);
    let r = patch(&ws, "a.js", "return 1;", "return 2;", Some("enforce"));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["syntax"]["ok"], true);
    assert_eq!(
        ws.read_string("a.js"),
        broken.replace("return 1;", "return 2;")
    );
}

#[test]
#[cfg(feature = "syntax")]
fn unknown_extension_and_too_large_are_skipped() {
    let ws = Ws::with(&[("a.txt", "f(\n")]);
    let r = patch(&ws, "a.txt", "f(", "g((", Some("enforce"));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["syntax"],
        json!({"language": null, "skipped": "unknown_language"})
    );
    let big = "let a = 1;\n".repeat(crate::syntax::MAX_BYTES / 10) + "let z = 2;\n";
    let ws = Ws::with(&[("big.js", &big)]);
    let r = patch(&ws, "big.js", "let z = 2;", "let z = (;", Some("enforce"));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["syntax"],
        json!({"language": "javascript", "skipped": "too_large"})
    );
}

#[test]
#[cfg(feature = "syntax")]
fn every_language_through_patch_file() {
    let cases = [
        ("a.ts", "const x: number = 1;\n", "= 1;", "= (1;"),
        ("a.py", "def f():\n    return 1\n", "return 1", "return (1"),
        ("a.json", "{\"a\": 1}\n", "\"a\": 1", "\"a\": 1,,"),
        ("a.rs", "fn f() -> u8 {\n    1\n}\n", "    1\n", "    (1\n"),
        (
            "a.go",
            "package a\n\nfunc f() int {\n\treturn 1\n}\n",
            "return 1",
            "return (1",
        ),
        ("a.js", JS, "return 1;", "return (1;"),
    ];
    for (path, text, old, new) in cases {
        let ws = Ws::with(&[(path, text)]);
        let r = patch(&ws, path, old, new, Some("enforce"));
        assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{path}: {r}");
        assert_eq!(ws.read_string(path), text, "{path}");
        let r = patch(&ws, path, old, new, Some("report"));
        assert_eq!(r["ok"], true, "{path}: {r}");
        assert_eq!(r["syntax"]["ok"], false, "{path}: {r}");
    }
}

#[test]
#[cfg(feature = "syntax")]
fn edit_lines_create_and_write_are_gated() {
    let ws = Ws::with(&[("a.py", "def f():\n    return 1\n")]);
    let tag = crate::edit::hash::line_tag("    return 1");
    let ops = json!([{"op": "replace", "start": format!("2:{tag}"), "lines": ["    return (1"]}]);
    let r = run(
        "edit_lines",
        json!(["a.py", ops, ws.opts(json!({"validate": "enforce"}))]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert_eq!(ws.read_string("a.py"), "def f():\n    return 1\n");
    let r = run(
        "edit_lines",
        json!(["a.py", ops, ws.opts(json!({"validate": "report"}))]),
    );
    assert_eq!(r["syntax"]["ok"], false, "{r}");

    let r = run(
        "create_file",
        json!([
            "n.json",
            "{\"a\": }\n",
            ws.opts(json!({"validate": "enforce"}))
        ]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert!(!ws.exists("n.json"));
    let r = run(
        "create_file",
        json!([
            "n.json",
            "{\"a\": 1}\n",
            ws.opts(json!({"validate": "enforce"}))
        ]),
    );
    assert_eq!(r["syntax"]["ok"], true, "{r}");

    let r = run(
        "write_file",
        json!([
            "n.json",
            "{\"a\": [1}\n",
            ws.opts(json!({"validate": "enforce"}))
        ]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert_eq!(ws.read_string("n.json"), "{\"a\": 1}\n");
    let r = run(
        "create_file",
        json!([
            "n.json",
            "{\"a\": [1}\n",
            ws.opts(json!({"validate": "enforce", "overwrite": true}))
        ]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert_eq!(ws.read_string("n.json"), "{\"a\": 1}\n");
}

#[test]
#[cfg(feature = "syntax")]
fn multi_file_patch_rolls_back_on_one_bad_file() {
    let ws = Ws::with(&[("a.js", JS), ("b.py", "x = 1\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.js\n@@\n-  return 1;\n+  return 2;\n*** Update File: b.py\n@@\n-x = 1\n+x = (1\n*** Add File: c.rs\n+fn c() {}\n*** End Patch\n";
    let r = run(
        "apply_patch",
        json!([patch, ws.opts(json!({"validate": "enforce"}))]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert_eq!(r["op_index"], 1);
    assert_eq!(r["file_path"], "b.py");
    assert_eq!(ws.read_string("a.js"), JS);
    assert_eq!(ws.read_string("b.py"), "x = 1\n");
    assert!(!ws.exists("c.rs"));
    let r = run(
        "apply_patch",
        json!([patch, ws.opts(json!({"validate": "report"}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let files = r["files"].as_array().unwrap();
    assert_eq!(files[0]["syntax"]["ok"], true);
    assert_eq!(files[1]["syntax"]["ok"], false);
    assert_eq!(files[1]["syntax"]["language"], "python");
    assert_eq!(files[2]["syntax"]["ok"], true);
    assert_eq!(files[2]["syntax"]["language"], "rust");

    // Blocks and unified diffs go through the same plan.
    let ws = Ws::with(&[("a.js", JS)]);
    let blocks = "a.js\n<<<<<<< SEARCH\n  return 1;\n=======\n  return {1;\n>>>>>>> REPLACE\n";
    let r = run(
        "apply_blocks",
        json!([blocks, ws.opts(json!({"validate": "enforce"}))]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert_eq!(ws.read_string("a.js"), JS);
    let diff = "--- a/a.js\n+++ b/a.js\n@@ -1,3 +1,3 @@\n function f() {\n-  return 1;\n+  return [1;\n }\n";
    let r = run(
        "apply_unified_diff",
        json!([diff, ws.opts(json!({"validate": "enforce"}))]),
    );
    assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{r}");
    assert_eq!(ws.read_string("a.js"), JS);
    let r = run(
        "apply_unified_diff",
        json!([diff, ws.opts(json!({"validate": "off"}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["files"][0].get("syntax").is_none());
}

#[test]
#[cfg(feature = "syntax")]
fn validate_values_are_checked() {
    let ws = Ws::with(&[("a.js", JS)]);
    let r = patch(&ws, "a.js", "return 1;", "return 2;", Some("strict"));
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    assert_eq!(ws.read_string("a.js"), JS);
}

// ---------------------------------------------------------------------------------------------
// Guarded rewrites

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn write_file_reports_line_changes() {
    let before = numbered(10);
    let ws = Ws::with(&[("a.txt", &before)]);
    let after = before
        .replace("line 3\n", "line three\n")
        .replace("line 7\n", "")
        .replace("line 9\n", "line 9\nextra a\nextra b\n");
    let r = run("write_file", json!(["a.txt", after, ws.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["lines_added"], 3);
    assert_eq!(r["lines_removed"], 2);
    assert_eq!(r["changed_lines"], 4);
    assert_eq!(
        r["changed_ranges"],
        json!([
            {"start_line": 3, "end_line": 3},
            {"start_line": 7, "end_line": 6},
            {"start_line": 9, "end_line": 10},
        ])
    );
    assert_eq!(r["changed_ranges_truncated"], false);
    assert!(r.get("syntax").is_none());
    // A new file is all added lines.
    let r = run(
        "create_file",
        json!(["n.txt", "a\nb\n", ws.opts(json!({}))]),
    );
    assert_eq!(r["lines_added"], 2);
    assert_eq!(r["lines_removed"], 0);
    assert_eq!(
        r["changed_ranges"],
        json!([{"start_line": 1, "end_line": 2}])
    );
}

#[test]
fn rewrite_too_broad_is_refused() {
    let before = numbered(50);
    let ws = Ws::with(&[("a.txt", &before)]);
    let after: String = (1..=50)
        .map(|i| {
            if i % 2 == 0 {
                format!("LINE {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    for op in ["write_file", "create_file"] {
        let r = run(
            op,
            json!([
                "a.txt",
                after,
                ws.opts(if op == "create_file" {
                    json!({"max_changed_lines": 10, "overwrite": true})
                } else {
                    json!({"max_changed_lines": 10})
                })
            ]),
        );
        assert_eq!(r["code"], "REWRITE_TOO_BROAD", "{op}: {r}");
        assert_eq!(r["changed_lines"], 25);
        assert_eq!(r["lines_added"], 25);
        assert_eq!(r["lines_removed"], 25);
        assert_eq!(r["max_changed_lines"], 10);
        assert_eq!(r["changed_ranges"].as_array().unwrap().len(), 20);
        assert_eq!(r["changed_ranges_truncated"], true);
        assert_eq!(
            r["changed_ranges"][0],
            json!({"start_line": 2, "end_line": 2})
        );
        assert_eq!(r["next_action"], "use_line_edit");
        let m = r["message"].as_str().unwrap();
        assert!(m.contains("changes 25 line(s)"), "{m}");
        assert!(m.contains("line 2, line 4"), "{m}");
        assert_eq!(ws.read_string("a.txt"), before);
    }
    // At the limit it goes through.
    let r = run(
        "write_file",
        json!(["a.txt", after, ws.opts(json!({"maxChangedLines": 25}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["changed_ranges_truncated"], true);
    assert_eq!(ws.read_string("a.txt"), after);
    // A new file is never too broad.
    let r = run(
        "create_file",
        json!(["new.txt", after, ws.opts(json!({"max_changed_lines": 1}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn write_file_diffs_a_change_inside_a_multibyte_character() {
    // '½' (C2 BD) → '¼' (C2 BC) and 'ā' (C4 81) → 'Ł' (C5 81): the texts differ in half a character.
    // The diff's span used to end there and slicing the new text panicked (INTERNAL_ERROR, found by
    // the api_call fuzz target).
    let ws = Ws::with(&[("a.txt", "price ½ of ā\n")]);
    let r = run(
        "write_file",
        json!(["a.txt", "price ¼ of Ł\n", ws.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["diff"],
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-price ½ of ā\n+price ¼ of Ł\n"
    );
    assert_eq!(ws.read("a.txt"), "price ¼ of Ł\n".as_bytes());
}
