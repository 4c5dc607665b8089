//! The two principles and the unambiguous liberties of issue 25, end to end through `api::call` on
//! real files: applying twice is not applying (`ALREADY_APPLIED`), no edit path writes an elision
//! placeholder over code (`ELIDED_CONTENT`), `applyEdits` in turn, and an empty `old` on an empty or
//! missing file. Every refusal leaves the file's bytes as they were.

use super::test_support::{run, Ws};
use serde_json::{json, Value};

fn ids(v: &Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// `r` is a refusal with `code`, and `file` still holds `before`.
fn refused(ws: &Ws, r: &Value, code: &str, file: &str, before: &str) {
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], code, "{r}");
    assert_eq!(ws.read_string(file), before, "{file} changed: {r}");
}

const PY: &str = "import os\n\ndef f(x):\n    a = x + 1\n    return a\n\ndef g():\n    return 2\n";

/// The same change (insert `b = a * 2` after `a = x + 1`) in every format.
fn insertion_calls(ws: &Ws) -> Vec<(&'static str, Value)> {
    let o = ws.opts(json!({}));
    vec![
        (
            "patch_file",
            json!([{"file_path": "m.py", "search_block": "    a = x + 1\n", "replace_block": "    a = x + 1\n    b = a * 2\n"}, o]),
        ),
        (
            "apply_edits",
            json!(["m.py", [{"old": "    a = x + 1", "new": "    a = x + 1\n    b = a * 2"}], o]),
        ),
        (
            "apply_blocks",
            json!(["m.py\n<<<<<<< SEARCH\n    a = x + 1\n=======\n    a = x + 1\n    b = a * 2\n>>>>>>> REPLACE\n", o]),
        ),
        (
            "apply_patch",
            json!(["*** Begin Patch\n*** Update File: m.py\n@@ def f(x):\n     a = x + 1\n+    b = a * 2\n*** End Patch\n", o]),
        ),
        (
            "apply_unified_diff",
            json!(["--- a/m.py\n+++ b/m.py\n@@ -4,1 +4,2 @@\n     a = x + 1\n+    b = a * 2\n", o]),
        ),
    ]
}

#[test]
fn every_format_refuses_to_apply_an_insertion_twice() {
    let after = "import os\n\ndef f(x):\n    a = x + 1\n    b = a * 2\n    return a\n\ndef g():\n    return 2\n";
    for k in 0..insertion_calls(&Ws::new()).len() {
        let ws = Ws::with(&[("m.py", PY)]);
        let (op, args) = insertion_calls(&ws).swap_remove(k);
        let r = run(op, args.clone());
        assert_eq!(r["ok"], true, "{op}: {r}");
        assert_eq!(ws.read_string("m.py"), after, "{op}");
        // The call retried (a timeout on the caller's side): refused, the file as the first left it.
        let r = run(op, args);
        refused(&ws, &r, "ALREADY_APPLIED", "m.py", after);
        assert_eq!(ids(&r["already_applied"]), [0], "{op}: {r}");
        assert_eq!(ids(&r["pending"]), Vec::<u64>::new(), "{op}: {r}");
        assert_eq!(r["next_action"], "reread", "{op}: {r}");
        assert!(
            r["message"].as_str().unwrap().contains("already applied"),
            "{op}: {r}"
        );
    }
}

#[test]
fn a_replacement_patch_retried_is_already_applied_and_a_partial_one_lists_what_is_pending() {
    let ws = Ws::with(&[("m.py", PY)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@\n import os\n+import sys\n@@ def g():\n-    return 2\n+    return 3\n*** End Patch\n";
    let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    let after = ws.read_string("m.py");
    let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
    refused(&ws, &r, "ALREADY_APPLIED", "m.py", &after);
    assert_eq!(ids(&r["already_applied"]), [0, 1], "{r}");
    assert_eq!(r["op_index"], 0, "{r}");
    // Only the first hunk is in the file: refused whole, hunk 1 pending.
    let half = PY.replace("import os\n", "import os\nimport sys\n");
    ws.write("m.py", &half);
    let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
    refused(&ws, &r, "ALREADY_APPLIED", "m.py", &half);
    assert_eq!(ids(&r["already_applied"]), [0], "{r}");
    assert_eq!(ids(&r["pending"]), [1], "{r}");
    assert_eq!(r["hunk_index"], 0, "{r}");
}

#[test]
fn a_multi_file_patch_names_the_operations_still_to_apply() {
    let ws = Ws::with(&[("a.txt", "one\ntwo\n"), ("b.txt", "three\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n+one and a half\n*** Update File: b.txt\n@@\n-three\n+THREE\n*** Add File: c.txt\n+new file\n*** End Patch\n";
    let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    // Retried whole: every operation (the Add File included) is already applied.
    let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
    refused(
        &ws,
        &r,
        "ALREADY_APPLIED",
        "a.txt",
        "one\none and a half\ntwo\n",
    );
    assert_eq!(ids(&r["pending_ops"]), Vec::<u64>::new(), "{r}");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("Every operation of the patch is already applied"));
    assert_eq!(ws.read_string("b.txt"), "THREE\n");
    assert_eq!(ws.read_string("c.txt"), "new file\n");
    // b.txt back as it was: a.txt and c.txt are there, b.txt is pending; nothing is written.
    ws.write("b.txt", "three\n");
    let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
    refused(&ws, &r, "ALREADY_APPLIED", "b.txt", "three\n");
    assert_eq!(r["op_index"], 0, "{r}");
    assert_eq!(ids(&r["pending_ops"]), [1], "{r}");
    assert_eq!(ws.read_string("a.txt"), "one\none and a half\ntwo\n");
    // An Add File over a file with other content is still FILE_EXISTS.
    ws.write("c.txt", "other\n");
    let r = run(
        "apply_patch",
        json!([
            "*** Begin Patch\n*** Add File: c.txt\n+new file\n*** End Patch\n",
            ws.opts(json!({}))
        ]),
    );
    refused(&ws, &r, "FILE_EXISTS", "c.txt", "other\n");
}

#[test]
fn edits_whose_new_text_only_resembles_the_file_still_land() {
    // `b = a * 2` already stands in g, not after f's `a = x + 1`: the edit is no retry.
    let text = "def f(x):\n    a = x + 1\n    return a\n\ndef g(a):\n    b = a * 2\n";
    let ws = Ws::with(&[("m.py", text)]);
    let r = run(
        "apply_edits",
        json!([
            "m.py",
            [["    a = x + 1\n", "    a = x + 1\n    b = a * 2\n"]],
            ws.opts(json!({}))
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        ws.read_string("m.py"),
        "def f(x):\n    a = x + 1\n    b = a * 2\n    return a\n\ndef g(a):\n    b = a * 2\n"
    );
}

// ---- elision placeholders --------------------------------------------------------------------

#[test]
fn no_edit_path_writes_a_placeholder_over_code() {
    let body = "def f(x):\n    a = x + 1\n    b = a * 2\n    return b\n";
    let o = |ws: &Ws| ws.opts(json!({}));
    let calls = |ws: &Ws| -> Vec<(&'static str, Value)> {
        vec![
            (
                "patch_file",
                json!([{"file_path": "m.py", "search_block": body, "replace_block": "def f(x):\n    # ... existing code ...\n    return b + 1\n"}, o(ws)]),
            ),
            (
                "apply_edits",
                json!(["m.py", [[body, "def f(x):\n    # ... existing code ...\n    return b + 1\n"]], o(ws)]),
            ),
            (
                "apply_blocks",
                json!([format!("m.py\n<<<<<<< SEARCH\n{body}=======\ndef f(x):\n    # ... rest of the code unchanged ...\n    return b + 1\n>>>>>>> REPLACE\n"), o(ws)]),
            ),
            (
                "apply_patch",
                json!(["*** Begin Patch\n*** Update File: m.py\n@@ def f(x):\n-    a = x + 1\n-    b = a * 2\n+    # ... existing code ...\n     return b\n*** End Patch\n", o(ws)]),
            ),
            (
                "apply_unified_diff",
                json!(["--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,3 @@\n def f(x):\n-    a = x + 1\n-    b = a * 2\n+    // ... existing code ...\n     return b\n", o(ws)]),
            ),
            (
                "apply_patch",
                json!(["*** Begin Patch\n*** Add File: m.py\n+def f(x):\n+    # ... existing code ...\n+    return b\n*** End Patch\n", ws.opts(json!({"overwrite": true}))]),
            ),
        ]
    };
    for k in 0..calls(&Ws::new()).len() {
        let ws = Ws::with(&[("m.py", body)]);
        let (op, args) = calls(&ws).swap_remove(k);
        let r = run(op, args);
        refused(&ws, &r, "ELIDED_CONTENT", "m.py", body);
        let lines = r["placeholder_lines"].as_array().unwrap();
        assert_eq!(lines.len(), 1, "{op}: {r}");
        assert!(lines[0]["text"].as_str().unwrap().contains("..."), "{r}");
        assert_eq!(lines[0]["line"], 2, "{op}: {r}");
    }
    // editLines: replacing lines with a placeholder is refused; inserting one drops nothing.
    let ws = Ws::with(&[("m.py", body)]);
    let tag = |n: usize| {
        format!(
            "{n}:{}",
            crate::edit::hash::line_tag(body.lines().nth(n - 1).unwrap())
        )
    };
    let r = run(
        "edit_lines",
        json!(["m.py", [{"op": "replace", "start": tag(2), "end": tag(3), "lines": ["    # ... existing code ..."]}], o(&ws)]),
    );
    refused(&ws, &r, "ELIDED_CONTENT", "m.py", body);
    assert_eq!(r["placeholder_lines"][0]["line"], 2, "{r}");
}

#[test]
fn text_that_only_mentions_a_placeholder_is_content() {
    let o = |ws: &Ws| ws.opts(json!({}));
    // A placeholder line added between kept lines drops nothing.
    let ws = Ws::with(&[("a.py", "x = 1\ny = 2\n")]);
    let r = run(
        "apply_edits",
        json!(["a.py", [["x = 1\n", "x = 1\n# ...\n"]], o(&ws)]),
    );
    assert_eq!(r["ok"], true, "{r}");
    // The line is already in old (the file has it there): kept.
    let text = "def f():\n    # ... existing code ...\n    return 1\n";
    let ws = Ws::with(&[("a.py", text)]);
    let r = run(
        "apply_edits",
        json!([
            "a.py",
            [[
                text,
                "def f():\n    # ... existing code ...\n    return 2\n"
            ]],
            o(&ws)
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    // Inside a string literal (a triple-quoted template), and in a markdown code fence.
    let text = "TEMPLATE = \"\"\"\ndef main():\n    run()\n\"\"\"\n";
    let ws = Ws::with(&[("t.py", text)]);
    let r = run(
        "apply_edits",
        json!([
            "t.py",
            [[
                "def main():\n    run()\n",
                "def main():\n    # ... existing code ...\n"
            ]],
            o(&ws)
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        ws.read_string("t.py"),
        "TEMPLATE = \"\"\"\ndef main():\n    # ... existing code ...\n\"\"\"\n"
    );
    let doc = "# Usage\n\n```js\nimport x from 'x'\nx.run()\nx.stop()\n```\n";
    let ws = Ws::with(&[("README.md", doc)]);
    let r = run(
        "apply_patch",
        json!(["*** Begin Patch\n*** Update File: README.md\n@@\n import x from 'x'\n-x.run()\n+// ... existing code ...\n x.stop()\n*** End Patch\n", o(&ws)]),
    );
    assert_eq!(r["ok"], true, "{r}");
    // A JS template literal that the new text opens and closes around the line.
    let ws = Ws::with(&[("g.js", "const t = 1\n")]);
    let r = run(
        "apply_edits",
        json!([
            "g.js",
            [[
                "const t = 1\n",
                "const t = `\n// ... existing code ...\n`\n"
            ]],
            o(&ws)
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    // A string that quotes a placeholder on a line of code is no placeholder line.
    let ws = Ws::with(&[("h.py", "msg = 'a'\nx = 1\n")]);
    let r = run(
        "apply_edits",
        json!([
            "h.py",
            [["msg = 'a'\nx = 1\n", "msg = '// ... existing code ...'\n"]],
            o(&ws)
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
}

// ---- applyEdits in turn ----------------------------------------------------------------------

#[test]
fn apply_edits_applies_a_list_in_turn_when_a_later_old_is_only_in_an_earlier_new() {
    let text = "def load(path):\n    return open(path).read()\n";
    let ws = Ws::with(&[("io.py", text)]);
    let edits = json!([
        ["def load(path):\n", "def load(path, encoding):\n"],
        // Found only in the text the first edit wrote.
        [
            "def load(path, encoding):\n    return open(path).read()\n",
            "def load(path, encoding):\n    return open(path, encoding=encoding).read()\n"
        ],
    ]);
    let r = run("apply_edits", json!(["io.py", edits, ws.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["dialect"], json!(["edits_in_turn"]), "{r}");
    assert_eq!(r["edits_applied"], 2);
    assert_eq!(
        ws.read_string("io.py"),
        "def load(path, encoding):\n    return open(path, encoding=encoding).read()\n"
    );
    assert!(r["diff"]
        .as_str()
        .unwrap()
        .contains("+    return open(path, encoding=encoding).read()"));
    // Undo restores the original.
    let u = run("undo_edit", json!([r["edit_id"], ws.opts(json!({}))]));
    assert_eq!(u["ok"], true, "{u}");
    assert_eq!(ws.read_string("io.py"), text);
    // In turn, each edit must still match exactly one place: a later old found twice is refused.
    let ws = Ws::with(&[("e.txt", "p\nq\n")]);
    let r = run(
        "apply_edits",
        json!([
            "e.txt",
            [["p\n", "z\nz\n"], ["z\n", "y\n"]],
            ws.opts(json!({}))
        ]),
    );
    refused(&ws, &r, "SEARCH_BLOCK_NOT_FOUND", "e.txt", "p\nq\n");
    assert_eq!(r["edit_index"], 1, "{r}");
    // A later old found nowhere, in turn or not: refused, nothing written.
    let ws = Ws::with(&[("e.txt", "p\nq\n")]);
    let r = run(
        "apply_edits",
        json!([
            "e.txt",
            [["p\n", "r\n"], ["s\n", "t\n"]],
            ws.opts(json!({}))
        ]),
    );
    refused(&ws, &r, "SEARCH_BLOCK_NOT_FOUND", "e.txt", "p\nq\n");
    // The batch reading comes first: an old found in the original is matched there.
    let ws = Ws::with(&[("e.txt", "x\ny\n")]);
    let r = run(
        "apply_edits",
        json!(["e.txt", [["x", "y"], ["y\n", "z\n"]], ws.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(ws.read_string("e.txt"), "y\nz\n");
    assert_eq!(r["dialect"], json!([]), "{r}");
}

// ---- an empty old ----------------------------------------------------------------------------

#[test]
fn an_empty_old_creates_a_missing_file_or_fills_an_empty_one() {
    let ws = Ws::new();
    let r = run(
        "patch_file",
        json!([{"file_path": "src/new.py", "search_block": "", "replace_block": "x = 1\n"}, ws.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["created"], true, "{r}");
    assert_eq!(r["before_bytes"], 0);
    assert_eq!(ws.read_string("src/new.py"), "x = 1\n");
    // Retried: the file holds exactly that text.
    let r = run(
        "patch_file",
        json!([{"file_path": "src/new.py", "search_block": "", "replace_block": "x = 1\n"}, ws.opts(json!({}))]),
    );
    refused(&ws, &r, "ALREADY_APPLIED", "src/new.py", "x = 1\n");
    // On a file with content: refused, with what to do instead.
    let r = run(
        "apply_edits",
        json!(["src/new.py", [["", "y = 2\n"]], ws.opts(json!({}))]),
    );
    refused(&ws, &r, "INVALID_INPUT", "src/new.py", "x = 1\n");
    assert!(r["message"].as_str().unwrap().contains("prepends"), "{r}");
    // An empty file (or only whitespace) is filled, in its line terminator.
    ws.write("e.txt", "\r\n");
    let r = run(
        "apply_edits",
        json!(["e.txt", [["", "a\nb\n"]], ws.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(r.get("created").is_none(), "{r}");
    assert_eq!(ws.read_string("e.txt"), "a\r\nb\r\n");
    // The creation is undoable: undo deletes the file.
    let ws2 = Ws::new();
    let r = run(
        "apply_edits",
        json!(["n.txt", [["", "n\n"]], ws2.opts(json!({}))]),
    );
    assert_eq!(r["created"], true, "{r}");
    let u = run("undo_edit", json!([r["edit_id"], ws2.opts(json!({}))]));
    assert_eq!(u["ok"], true, "{u}");
    assert!(!ws2.exists("n.txt"));
    // A dry run creates nothing.
    let r = run(
        "patch_file",
        json!([{"file_path": "d.txt", "search_block": "", "replace_block": "d\n"}, ws2.opts(json!({"dry_run": true}))]),
    );
    assert_eq!(
        (r["ok"].clone(), r["written"].clone()),
        (json!(true), json!(false)),
        "{r}"
    );
    assert!(!ws2.exists("d.txt"));
    // An empty old beside other edits is refused.
    ws.write("m.txt", "");
    let r = run(
        "apply_edits",
        json!(["m.txt", [["", "a\n"], ["a", "b"]], ws.opts(json!({}))]),
    );
    refused(&ws, &r, "INVALID_INPUT", "m.txt", "");
    assert_eq!(r["edit_index"], 0, "{r}");
    // Both sides empty: nothing to change, and no file appears.
    let r = run(
        "patch_file",
        json!([{"file_path": "z.txt", "search_block": "", "replace_block": ""}, ws2.opts(json!({}))]),
    );
    assert_eq!(r["code"], "NO_CHANGES", "{r}");
    assert!(!ws2.exists("z.txt"));
}
