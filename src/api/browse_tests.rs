//! Tests of the reading and finding entry points through `call` (the Node tests cover every path;
//! these keep `cargo test` meaningful for them).

use super::test_support::run;
use serde_json::json;
use std::fs;

/// A workspace that is not a git repository, with a `.gitignore` at the root and one below.
fn tree() -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    for (p, c) in [
        (".gitignore", "*.log\n"),
        ("a/.gitignore", "gen/\n"),
        ("a/x.rs", "fn one() {}\nfn two() {}\n"),
        ("a/gen/y.rs", "fn gen() {}\n"),
        ("a/b/trace.log", "fn logged() {}\n"),
        ("a/b/z.rs", "// fn not_code\n"),
    ] {
        let f = root.join(p);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, c).unwrap();
    }
    let r = root.to_str().unwrap().to_string();
    (d, r)
}

#[test]
fn ignores_apply_from_the_root_down_to_a_listed_subdirectory() {
    let (_d, root) = tree();
    let r = run(
        "list_directory",
        json!(["a/b", {"workspace_root": root, "depth": 3}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["entries"],
        json!([{"path": "a/b/z.rs", "type": "file", "size": 15}])
    );
    let f = run("find_files", json!(["*.rs", {"workspace_root": root}]));
    assert_eq!(f["files"], json!(["a/b/z.rs", "a/x.rs"]));
}

#[test]
fn search_reports_lines_in_path_order_and_states_its_cap() {
    let (_d, root) = tree();
    let r = run(
        "search_files",
        json!(["fn ", {"workspace_root": root, "max_results": 2}]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["truncated"], true);
    assert_eq!(r["match_count"], 2);
    let all = run(
        "search_files",
        json!(["^fn \\w+", {"workspace_root": root, "regex": true}]),
    );
    assert_eq!(
        all["results"],
        json!([{"file_path": "a/x.rs", "matches": [
            {"line_number": 1, "text": "fn one() {}"},
            {"line_number": 2, "text": "fn two() {}"}
        ]}])
    );
    assert_eq!(all["truncated"], false);
}

#[test]
fn move_then_undo_restores_the_bytes() {
    let (_d, root) = tree();
    let m = run(
        "move_file",
        json!(["a/x.rs", "c/x.rs", {"workspace_root": root}]),
    );
    assert_eq!(m["ok"], true, "{m}");
    let base = std::path::Path::new(&root);
    assert!(!base.join("a/x.rs").exists());
    assert_eq!(
        fs::read_to_string(base.join("c/x.rs")).unwrap(),
        "fn one() {}\nfn two() {}\n"
    );
    let u = run("undo_edit", json!([m["edit_id"], {"workspace_root": root}]));
    assert_eq!(u["ok"], true, "{u}");
    assert_eq!(
        fs::read_to_string(base.join("a/x.rs")).unwrap(),
        "fn one() {}\nfn two() {}\n"
    );
    assert!(!base.join("c/x.rs").exists());
}

#[test]
fn bad_arguments_are_refused_without_a_panic() {
    let (_d, root) = tree();
    for (op, args) in [
        ("list_directory", json!([{}, {"workspace_root": root}])),
        ("find_files", json!([[], {"workspace_root": root}])),
        (
            "search_files",
            json!(["x", {"workspace_root": root, "context_lines": -1}]),
        ),
        ("read_many_files", json!([{"a": 1}])),
        ("move_file", json!(["a/x.rs"])),
        ("create_directory", json!([null])),
    ] {
        let r = run(op, args);
        assert_eq!(r["code"], "INVALID_INPUT", "{op}: {r}");
    }
}
