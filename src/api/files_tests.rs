//! End-to-end tests of viewFile, editLines, the whole-file operations and undo.

use crate::edit::hash::{file_hash, line_tag};
use serde_json::{json, Value};

use super::test_support::{run, Ws};

fn anchor(n: usize, line: &str) -> String {
    format!("{n}:{}", line_tag(line))
}

fn code(r: &Value) -> &str {
    r["code"].as_str().unwrap_or("<ok>")
}

#[test]
fn view_formats_ranges_and_cap() {
    let w = Ws::new();
    w.write("a.txt", "one\r\ntwo\r\nthree");
    let r = run("view_file", json!(["a.txt", w.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["content"], "one\ntwo\nthree");
    assert_eq!(r["total_lines"], 3);
    assert_eq!(
        (r["start_line"].clone(), r["end_line"].clone()),
        (json!(1), json!(3))
    );
    assert_eq!(r["line_ending"], "crlf");
    assert_eq!(r["encoding"], "utf-8");
    assert_eq!(r["truncated"], false);
    assert_eq!(r["file_hash"], file_hash(&w.read("a.txt")));

    let r = run(
        "view_file",
        json!([
            "a.txt",
            w.opts(json!({"format": "hashline", "start_line": 2}))
        ]),
    );
    assert_eq!(
        r["content"],
        format!("2:{}|two\n3:{}|three", line_tag("two"), line_tag("three"))
    );
    let r = run(
        "view_file",
        json!(["a.txt", w.opts(json!({"format": "numbered", "endLine": 2}))]),
    );
    assert_eq!(r["content"], "     1\tone\n     2\ttwo\n");
    assert_eq!(r["end_line"], 2);
    // Byte cap: only whole lines; end_line is the last one included.
    let r = run(
        "view_file",
        json!(["a.txt", w.opts(json!({"max_bytes": 9}))]),
    );
    assert_eq!(r["content"], "one\ntwo\n");
    assert_eq!(
        (r["end_line"].clone(), r["truncated"].clone()),
        (json!(2), json!(true))
    );
    let r = run(
        "view_file",
        json!(["a.txt", w.opts(json!({"max_bytes": 2}))]),
    );
    assert_eq!(
        (r["content"].clone(), r["end_line"].clone()),
        (json!(""), json!(0))
    );
    // BOM and UTF-16.
    w.write("b.txt", b"\xEF\xBB\xBFx\n");
    let r = run("view_file", json!(["b.txt", w.opts(json!({}))]));
    assert_eq!(
        (r["encoding"].clone(), r["content"].clone()),
        (json!("utf-8-bom"), json!("x\n"))
    );
    let u: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "h\u{e9}\n"
                .encode_utf16()
                .flat_map(u16::to_be_bytes)
                .collect::<Vec<_>>()
                .chunks(2)
                .flat_map(|c| [c[1], c[0]]),
        )
        .collect();
    w.write("u.txt", &u);
    let r = run("view_file", json!(["u.txt", w.opts(json!({}))]));
    assert_eq!(
        (r["encoding"].clone(), r["content"].clone()),
        (json!("utf-16le"), json!("h\u{e9}\n"))
    );
    // Empty file.
    w.write("e.txt", "");
    let r = run("view_file", json!(["e.txt", w.opts(json!({}))]));
    assert_eq!(
        (
            r["content"].clone(),
            r["total_lines"].clone(),
            r["line_ending"].clone()
        ),
        (json!(""), json!(0), json!("none"))
    );
}

#[test]
fn view_errors() {
    let w = Ws::new();
    w.write("a.txt", "a\nb\n");
    w.write("bin", b"a\0b");
    for (args, want) in [
        (
            json!(["a.txt", w.opts(json!({"start_line": 3}))]),
            "INVALID_INPUT",
        ),
        (
            json!(["a.txt", w.opts(json!({"start_line": 0}))]),
            "INVALID_INPUT",
        ),
        (
            json!(["a.txt", w.opts(json!({"start_line": 2, "end_line": 1}))]),
            "INVALID_INPUT",
        ),
        (
            json!(["a.txt", w.opts(json!({"format": "fancy"}))]),
            "INVALID_INPUT",
        ),
        (
            json!(["a.txt", w.opts(json!({"bogus": 1}))]),
            "INVALID_INPUT",
        ),
        (json!(["missing.txt", w.opts(json!({}))]), "FILE_NOT_FOUND"),
        (json!(["../x", w.opts(json!({}))]), "PATH_OUTSIDE_WORKSPACE"),
        (json!(["bin", w.opts(json!({}))]), "BINARY_FILE_REJECTED"),
        (
            json!(["a.txt", w.opts(json!({"max_file_bytes": 2}))]),
            "FILE_TOO_LARGE",
        ),
    ] {
        let r = run("view_file", args.clone());
        assert_eq!(code(&r), want, "{args} -> {r}");
    }
}

#[test]
fn edit_lines_receipt_and_crlf() {
    let w = Ws::new();
    w.write("f.py", "def f():\r\n    return 1\r\n\r\nx = f()\r\n");
    let r = run(
        "edit_lines",
        json!(["f.py", [
            {"op": "replace", "start": anchor(2, "    return 1"), "lines": ["    y = 2", "    return y"]},
            {"op": "insert_after", "start": anchor(4, "x = f()"), "text": "print(x)\n"},
        ], w.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let after = b"def f():\r\n    y = 2\r\n    return y\r\n\r\nx = f()\r\nprint(x)\r\n";
    assert_eq!(w.read("f.py"), after);
    assert_eq!(r["file_hash"], file_hash(after));
    assert_eq!(r["first_changed_line"], 2);
    assert_eq!(
        (r["lines_added"].clone(), r["lines_removed"].clone()),
        (json!(3), json!(1))
    );
    assert!(
        r["diff"]
            .as_str()
            .unwrap()
            .contains("-    return 1\n+    y = 2\n+    return y\n"),
        "{}",
        r["diff"]
    );
    assert!(crate::fs::ids::is_edit_id(r["edit_id"].as_str().unwrap()));
    assert_eq!(r["undo_available"], true);
}

#[test]
fn edit_lines_errors_leave_the_file_unchanged() {
    let w = Ws::new();
    let original = "a\nb\nc\nd\n";
    w.write("f.txt", original);
    let ok = anchor(2, "b");
    let cases = [
        (json!([{"op": "delete", "start": "2"}]), "INVALID_INPUT"),
        (json!([{"op": "delete", "start": 2}]), "INVALID_INPUT"),
        (json!([{"op": "replace", "start": ok}]), "INVALID_INPUT"),
        (
            json!([{"op": "insert_after", "start": ok, "end": ok, "lines": ["x"]}]),
            "INVALID_INPUT",
        ),
        (
            json!([{"op": "delete", "start": ok, "lines": ["x"]}]),
            "INVALID_INPUT",
        ),
        (
            json!([{"op": "replace", "start": ok, "lines": ["x\ny"]}]),
            "INVALID_INPUT",
        ),
        (
            json!([{"op": "replace", "start": ok, "lines": ["x"], "text": "y"}]),
            "INVALID_INPUT",
        ),
        (json!([{"op": "move", "start": ok}]), "INVALID_INPUT"),
        (json!([]), "INVALID_INPUT"),
        (
            json!([{"op": "replace", "start": anchor(2, "B"), "lines": ["x"]}]),
            "STALE_ANCHOR",
        ),
        (
            json!([{"op": "delete", "start": anchor(1, "a"), "end": ok}, {"op": "delete", "start": ok}]),
            "OVERLAPPING_EDITS",
        ),
        (
            json!([{"op": "replace", "start": ok, "lines": ["b"]}]),
            "NO_CHANGES",
        ),
    ];
    for (ops, want) in cases {
        let r = run(
            "edit_lines",
            json!(["f.txt", ops.clone(), w.opts(json!({}))]),
        );
        assert_eq!(code(&r), want, "{ops} -> {r}");
        assert_eq!(w.read("f.txt"), original.as_bytes());
    }
    let r = run(
        "edit_lines",
        json!(["f.txt", [{"op": "delete", "start": ok}], w.opts(json!({"base_hash": "0000000000000000"}))]),
    );
    assert_eq!(code(&r), "STALE_FILE");
    assert_eq!(r["current_hash"], file_hash(original.as_bytes()));
    assert_eq!(w.read("f.txt"), original.as_bytes());
}

#[test]
fn stale_anchor_after_another_writer_changed_two_lines() {
    let w = Ws::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    w.write("f.txt", &text);
    let v = run(
        "view_file",
        json!(["f.txt", w.opts(json!({"format": "hashline"}))]),
    );
    let lines: Vec<&str> = v["content"].as_str().unwrap().lines().collect();
    let anchor_of = |n: usize| lines[n - 1].split('|').next().unwrap().to_string();
    // Another writer changes lines 4 and 6.
    let changed = text
        .replace("line 4\n", "LINE FOUR\n")
        .replace("line 6\n", "line six\n");
    w.write("f.txt", &changed);
    let r = run(
        "edit_lines",
        json!(["f.txt", [
            {"op": "replace", "start": anchor_of(4), "end": anchor_of(6), "lines": ["merged"]},
            {"op": "delete", "start": anchor_of(9)},
        ], w.opts(json!({}))]),
    );
    assert_eq!(code(&r), "STALE_ANCHOR", "{r}");
    assert_eq!(w.read("f.txt"), changed.as_bytes());
    assert_eq!(
        r["stale"],
        json!([
            {"line": 4, "expected_tag": line_tag("line 4"), "actual_tag": line_tag("LINE FOUR")},
            {"line": 6, "expected_tag": line_tag("line 6"), "actual_tag": line_tag("line six")},
        ])
    );
    let fresh = r["fresh"].as_str().unwrap();
    let want: String = (2..=8)
        .map(|n| {
            let l = changed.lines().nth(n - 1).unwrap();
            format!("{n}:{}|{l}\n", line_tag(l))
        })
        .collect();
    assert_eq!(fresh, want);
    // The fresh anchors work.
    let r = run(
        "edit_lines",
        json!(["f.txt", [
            {"op": "replace", "start": format!("4:{}", line_tag("LINE FOUR")), "end": format!("6:{}", line_tag("line six")), "lines": ["merged"]},
        ], w.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn create_write_delete_and_their_codes() {
    let w = Ws::new();
    let r = run(
        "create_file",
        json!(["src/deep/new.rs", "fn a() {}\n", w.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["created"], true);
    assert_eq!(r["file_hash"], file_hash(b"fn a() {}\n"));
    assert!(r["diff"].as_str().unwrap().contains("+fn a() {}\n"));
    assert_eq!(w.read("src/deep/new.rs"), b"fn a() {}\n");
    let r = run(
        "create_file",
        json!(["src/deep/new.rs", "x", w.opts(json!({}))]),
    );
    assert_eq!(code(&r), "FILE_EXISTS");
    assert_eq!(r["current_hash"], file_hash(b"fn a() {}\n"));
    assert_eq!(w.read("src/deep/new.rs"), b"fn a() {}\n");
    let r = run(
        "create_file",
        json!(["../escape.txt", "x", w.opts(json!({}))]),
    );
    assert_eq!(code(&r), "PATH_OUTSIDE_WORKSPACE");
    let r = run(
        "create_file",
        json!([
            "src/deep/new.rs",
            "fn b() {}\n",
            w.opts(json!({"overwrite": true}))
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["created"], false);

    // A leading U+FEFF is a BOM, written once.
    let r = run(
        "create_file",
        json!(["bom.txt", "\u{feff}x\n", w.opts(json!({}))]),
    );
    assert_eq!(r["encoding"], "utf-8-bom", "{r}");
    assert_eq!(w.read("bom.txt"), b"\xEF\xBB\xBFx\n");
    let r = run(
        "write_file",
        json!(["bom.txt", "\u{feff}y\n", w.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("bom.txt"), b"\xEF\xBB\xBFy\n");
    let r = run(
        "create_file",
        json!([
            "u16.txt",
            "\u{feff}z",
            w.opts(json!({"encoding": "utf-16be"}))
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("u16.txt"), b"\xFE\xFF\0z");

    // writeFile keeps BOM and CRLF.
    w.write("w.txt", b"\xEF\xBB\xBFone\r\ntwo\r\n");
    let r = run(
        "write_file",
        json!(["w.txt", "one\nTWO\nthree\n", w.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("w.txt"), b"\xEF\xBB\xBFone\r\nTWO\r\nthree\r\n");
    assert_eq!(
        (r["encoding"].clone(), r["line_ending"].clone()),
        (json!("utf-8-bom"), json!("crlf"))
    );
    let r = run(
        "write_file",
        json!([
            "w.txt",
            "x\n",
            w.opts(json!({"line_ending": "lf", "encoding": "utf-8"}))
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("w.txt"), b"x\n");
    let before = w.read("w.txt");
    for (args, want) in [
        (json!(["w.txt", "x\n", w.opts(json!({}))]), "NO_CHANGES"),
        (
            json!([
                "w.txt",
                "y\n",
                w.opts(json!({"base_hash": "0123456789abcdef"}))
            ]),
            "STALE_FILE",
        ),
        (
            json!([
                "w.txt",
                "a\n// ... existing code ...\nb\n",
                w.opts(json!({}))
            ]),
            "ELIDED_CONTENT",
        ),
        (
            json!(["nope.txt", "y\n", w.opts(json!({}))]),
            "FILE_NOT_FOUND",
        ),
        (json!(["w.txt", 5, w.opts(json!({}))]), "INVALID_INPUT"),
        (
            json!(["w.txt", "y", w.opts(json!({"overwrite": true}))]),
            "INVALID_INPUT",
        ),
        (
            json!(["w.txt", "y", w.opts(json!({"encoding": "latin1"}))]),
            "INVALID_INPUT",
        ),
    ] {
        let r = run("write_file", args.clone());
        assert_eq!(code(&r), want, "{args} -> {r}");
        assert_eq!(w.read("w.txt"), before);
    }
    let r = run(
        "write_file",
        json!([
            "w.txt",
            "a\n// ... existing code ...\nb\n",
            w.opts(json!({}))
        ]),
    );
    assert_eq!(
        r["placeholder_lines"],
        json!([{"line": 2, "text": "// ... existing code ..."}])
    );
    let r = run(
        "write_file",
        json!([
            "w.txt",
            "a\n// ... existing code ...\n",
            w.opts(json!({"allow_placeholders": true}))
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    // Legitimate content passes.
    let py = "class A:\n    def f(self): ...\n    def g(self):\n        ...\n\nMSG = \"keep the existing code\"\n";
    let r = run("write_file", json!(["w.txt", py, w.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");

    // deleteFile.
    let h = file_hash(py.as_bytes());
    let r = run(
        "delete_file",
        json!(["w.txt", w.opts(json!({"base_hash": "ffffffffffffffff"}))]),
    );
    assert_eq!(code(&r), "STALE_FILE");
    assert!(w.exists("w.txt"));
    let r = run(
        "delete_file",
        json!(["w.txt", w.opts(json!({"base_hash": h, "dry_run": true}))]),
    );
    assert_eq!(
        (r["ok"].clone(), r["written"].clone()),
        (json!(true), json!(false))
    );
    assert!(w.exists("w.txt"));
    let r = run(
        "delete_file",
        json!(["w.txt", w.opts(json!({"base_hash": h}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["file_hash"], Value::Null);
    assert!(!w.exists("w.txt"));
    let r = run("delete_file", json!(["w.txt", w.opts(json!({}))]));
    assert_eq!(code(&r), "FILE_NOT_FOUND");
}

#[test]
fn undo_round_trips() {
    let w = Ws::new();
    w.write("a.txt", "one\ntwo\n");
    let e1 = run(
        "apply_edits",
        json!(["a.txt", [["two", "TWO"]], w.opts(json!({}))]),
    );
    assert_eq!(e1["ok"], true, "{e1}");
    let e2 = run(
        "edit_lines",
        json!(["a.txt", [{"op": "insert_after", "start": anchor(2, "TWO"), "lines": ["three"]}], w.opts(json!({}))]),
    );
    assert_eq!(e2["ok"], true, "{e2}");
    // Undoing the older edit first is refused: the file has changed since.
    let r = run("undo_edit", json!([e1["edit_id"], w.opts(json!({}))]));
    assert_eq!(code(&r), "STALE_FILE", "{r}");
    assert_eq!(r["current_hash"], e2["file_hash"]);
    assert_eq!(w.read("a.txt"), b"one\nTWO\nthree\n");
    // By path: newest first, then the one before.
    let r = run("undo_edit", json!(["a.txt", w.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["edit_id"], e2["edit_id"]);
    assert_eq!(
        r["files"],
        json!([{"file_path": "a.txt", "action": "restored", "file_hash": e1["file_hash"]}])
    );
    assert_eq!(w.read("a.txt"), b"one\nTWO\n");
    let r = run(
        "undo_edit",
        json!([{"edit_id": e1["edit_id"]}, w.opts(json!({}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("a.txt"), b"one\ntwo\n");
    // Twice: gone.
    let r = run("undo_edit", json!([e1["edit_id"], w.opts(json!({}))]));
    assert_eq!(code(&r), "EDIT_NOT_FOUND");
    let r = run("undo_edit", json!(["a.txt", w.opts(json!({}))]));
    assert_eq!(code(&r), "EDIT_NOT_FOUND");

    // Create → undo deletes; delete → undo recreates.
    let c = run(
        "create_file",
        json!(["n/new.txt", "hi\n", w.opts(json!({}))]),
    );
    let r = run("undo_edit", json!([c["edit_id"], w.opts(json!({}))]));
    assert_eq!(r["files"][0]["action"], "deleted", "{r}");
    assert!(!w.exists("n/new.txt"));
    let d = run("delete_file", json!(["a.txt", w.opts(json!({}))]));
    let r = run("undo_edit", json!([d["edit_id"], w.opts(json!({}))]));
    assert_eq!(r["files"][0]["action"], "recreated", "{r}");
    assert_eq!(w.read("a.txt"), b"one\ntwo\n");

    // A deleted file that came back is a change: undoing the delete is refused.
    let d = run("delete_file", json!(["a.txt", w.opts(json!({}))]));
    w.write("a.txt", "someone else\n");
    let r = run("undo_edit", json!([d["edit_id"], w.opts(json!({}))]));
    assert_eq!(code(&r), "STALE_FILE", "{r}");
    assert_eq!(w.read("a.txt"), b"someone else\n");

    // Another workspace cannot undo it.
    let other = Ws::new();
    let e = run("write_file", json!(["a.txt", "mine\n", w.opts(json!({}))]));
    let r = run("undo_edit", json!([e["edit_id"], other.opts(json!({}))]));
    assert_eq!(code(&r), "PATH_OUTSIDE_WORKSPACE", "{r}");
    assert_eq!(w.read("a.txt"), b"mine\n");
    let r = run("undo_edit", json!([7, w.opts(json!({}))]));
    assert_eq!(code(&r), "INVALID_INPUT");
}

#[test]
fn multi_file_transactions_undo_as_one() {
    use crate::fs::txn::{Action, Txn};
    use crate::fs::workspace::{Resolve, Workspace};
    let w = Ws::new();
    w.write("a.txt", "A\n");
    w.write("b.txt", "B\n");
    let ws = Workspace::new(w.path()).unwrap();
    let paths = [
        ("a.txt".to_string(), Resolve::Existing),
        ("b.txt".to_string(), Resolve::Existing),
        ("c/new.txt".to_string(), Resolve::MayCreate),
    ];
    let mut t = Txn::open(&ws, &paths, 1 << 20).unwrap();
    t.files[0].action = Action::Write(b"A2\n".to_vec());
    t.files[1].action = Action::Delete;
    t.files[2].action = Action::Write(b"C\n".to_vec());
    let done = t.commit().unwrap();
    let id = crate::fs::journal::record(&done).unwrap();
    // A later change to one file blocks the whole undo.
    w.write("c/new.txt", "C changed\n");
    let r = run("undo_edit", json!([id, w.opts(json!({}))]));
    assert_eq!(code(&r), "STALE_FILE", "{r}");
    assert_eq!(r["stale_files"].as_array().unwrap().len(), 1);
    assert_eq!(w.read("a.txt"), b"A2\n");
    assert!(!w.exists("b.txt"));
    w.write("c/new.txt", "C\n");
    // By the path of any file of the transaction.
    let r = run("undo_edit", json!(["b.txt", w.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["edit_id"], id.as_str());
    let mut actions: Vec<(&str, &str)> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file_path"].as_str().unwrap(),
                f["action"].as_str().unwrap(),
            )
        })
        .collect();
    actions.sort();
    assert_eq!(
        actions,
        [
            ("a.txt", "restored"),
            ("b.txt", "recreated"),
            ("c/new.txt", "deleted")
        ]
    );
    assert_eq!(w.read("a.txt"), b"A\n");
    assert_eq!(w.read("b.txt"), b"B\n");
    assert!(!w.exists("c/new.txt"));
}

#[test]
fn journal_dir_survives_the_memory_journal() {
    let w = Ws::new();
    w.write("a.txt", "one\n");
    let r = run(
        "write_file",
        json!([
            "a.txt",
            "two\n",
            w.opts(json!({"journal_dir": ".surepatch/journal"}))
        ]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let id = r["edit_id"].as_str().unwrap().to_string();
    assert!(w.exists(&format!(".surepatch/journal/{id}/entry.json")));
    assert!(w.exists(&format!(".surepatch/journal/{id}/0.bin")));
    let r = run(
        "write_file",
        json!(["a.txt", "x\n", w.opts(json!({"journal_dir": "../outside"}))]),
    );
    assert_eq!(code(&r), "PATH_OUTSIDE_WORKSPACE");
    assert_eq!(w.read("a.txt"), b"two\n");
    let r = run(
        "undo_edit",
        json!([id, w.opts(json!({"journal_dir": ".surepatch/journal"}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("a.txt"), b"one\n");
    assert!(!w.exists(&format!(".surepatch/journal/{id}")));
}

#[test]
fn host_journal_dir_lives_outside_the_workspace() {
    let w = Ws::new();
    let state = tempfile::tempdir().unwrap();
    let dir = state.path().join("journals/one");
    let dir = dir.to_str().unwrap();
    w.write("a.txt", "one\n");
    let r = run(
        "write_file",
        json!(["a.txt", "two\n", w.opts(json!({"host_journal_dir": dir}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    let id = r["edit_id"].as_str().unwrap().to_string();
    assert!(state
        .path()
        .join(format!("journals/one/{id}/entry.json"))
        .exists());
    // A relative directory, or both journals at once, is refused before anything is written.
    for opts in [
        json!({"host_journal_dir": "relative/dir"}),
        json!({"host_journal_dir": dir, "journal_dir": ".j"}),
    ] {
        let r = run("write_file", json!(["a.txt", "x\n", w.opts(opts)]));
        assert_eq!(code(&r), "INVALID_INPUT", "{r}");
        assert_eq!(w.read("a.txt"), b"two\n");
    }
    let r = run(
        "undo_edit",
        json!([id, w.opts(json!({"host_journal_dir": dir}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("a.txt"), b"one\n");
    assert!(!state.path().join(format!("journals/one/{id}")).exists());
}

#[test]
fn multi_file_patches_are_journaled_and_undone_from_disk() {
    let w = Ws::new();
    let state = tempfile::tempdir().unwrap();
    let dir = state.path().to_str().unwrap();
    w.write("a.txt", "one\n");
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: b.txt\n+new\n*** End Patch\n";
    let r = run(
        "apply_patch",
        json!([patch, w.opts(json!({"host_journal_dir": dir}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["undo_available"], true, "{r}");
    let id = r["edit_id"].as_str().unwrap().to_string();
    assert!(state.path().join(format!("{id}/entry.json")).exists());
    // A dry run journals nothing.
    let dry = run(
        "apply_patch",
        json!([
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+three\n*** End Patch\n",
            w.opts(json!({"dry_run": true}))
        ]),
    );
    assert_eq!(dry["ok"], true, "{dry}");
    assert!(dry["edit_id"].is_null(), "{dry}");
    let r = run(
        "undo_edit",
        json!([id, w.opts(json!({"host_journal_dir": dir}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("a.txt"), b"one\n");
    assert!(!w.exists("b.txt"));
}

#[test]
fn patch_receipts_carry_edit_ids() {
    let w = Ws::new();
    w.write("a.txt", "x = 1\n");
    let r = run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "x = 1", "replace_block": "x = 2"}, w.opts(json!({}))]),
    );
    assert_eq!(r["undo_available"], true, "{r}");
    let r2 = run("undo_edit", json!([r["edit_id"], w.opts(json!({}))]));
    assert_eq!(r2["ok"], true, "{r2}");
    assert_eq!(w.read("a.txt"), b"x = 1\n");
    let r = run(
        "apply_edits",
        json!([
            "a.txt",
            [["x = 1", "x = 3"]],
            w.opts(json!({"dry_run": true}))
        ]),
    );
    assert_eq!(
        (r["edit_id"].clone(), r["undo_available"].clone()),
        (Value::Null, json!(false))
    );
}

/// A deletion whose diff shows the content it deletes checks it: a diff written against another
/// version of the file is refused (`STALE_FILE`), the file kept; the right content deletes it.
#[test]
fn a_deletion_checks_the_content_its_diff_shows() {
    let w = Ws::new();
    w.write("gone.txt", "a\r\nb  \r\nc\r\n");
    let stale = "--- a/gone.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-B\n-c\n";
    let r = run("apply_unified_diff", json!([stale, w.opts(json!({}))]));
    assert_eq!(code(&r), "STALE_FILE", "{r}");
    assert!(r["message"].as_str().unwrap().contains("at line 2"), "{r}");
    assert_eq!(w.read("gone.txt"), b"a\r\nb  \r\nc\r\n");
    // Fewer lines than the file has: refused too.
    let short = "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    let r = run("apply_unified_diff", json!([short, w.opts(json!({}))]));
    assert_eq!(code(&r), "STALE_FILE", "{r}");
    assert_eq!(w.read("gone.txt"), b"a\r\nb  \r\nc\r\n");
    // The file's content (line endings and trailing whitespace aside): deleted.
    let right = "--- a/gone.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n";
    let r = run("apply_unified_diff", json!([right, w.opts(json!({}))]));
    assert_eq!(r["ok"], true, "{r}");
    assert!(!w.exists("gone.txt"));
}

/// An `editLines` insertion retried (its anchor line is unchanged, so the anchor stays valid) is
/// `ALREADY_APPLIED`, not a second copy; an insertion of other lines at that place still lands.
#[test]
fn an_edit_lines_insertion_retried_is_already_applied() {
    let w = Ws::new();
    w.write("f.py", "x = f()\ny = 2\n");
    let call = |text: &str, kind: &str, line: usize, at: &str| {
        run(
            "edit_lines",
            json!(["f.py", [{"op": kind, "start": anchor(line, at), "text": text}], w.opts(json!({}))]),
        )
    };
    let r = call("print(x)\n", "insert_after", 1, "x = f()");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("f.py"), b"x = f()\nprint(x)\ny = 2\n");
    let r = call("print(x)\n", "insert_after", 1, "x = f()");
    assert_eq!(code(&r), "ALREADY_APPLIED", "{r}");
    assert_eq!(w.read("f.py"), b"x = f()\nprint(x)\ny = 2\n");
    // insert_before, the same.
    let r = call("# y\n", "insert_before", 3, "y = 2");
    assert_eq!(r["ok"], true, "{r}");
    let r = call("# y\n", "insert_before", 4, "y = 2");
    assert_eq!(code(&r), "ALREADY_APPLIED", "{r}");
    assert_eq!(w.read("f.py"), b"x = f()\nprint(x)\n# y\ny = 2\n");
    // Other lines at the same place land.
    let r = call("print(y)\n", "insert_after", 1, "x = f()");
    assert_eq!(r["ok"], true, "{r}");
}
