//! Issue #27 §3: `attempt` counts repeats of the same failing call (the same op on the same file with
//! the same code; without a file, the same op with the same arguments), not unrelated failures before
//! it. One test function: the counters are per process, and this binary is its own process.

use serde_json::{json, Value};
use surepatch::api::call;

fn run(op: &str, args: Value) -> Value {
    serde_json::from_str(&call(op, &args.to_string())).unwrap()
}

#[test]
fn attempt_counts_only_the_same_call() {
    let d = tempfile::tempdir().unwrap();
    let text = "def f():\n    return 1\n";
    std::fs::write(d.path().join("f.py"), text).unwrap();
    let root = json!({"workspace_root": d.path()});
    let miss = |search: &str| {
        run(
            "patch_file",
            json!([{"file_path": "f.py", "search_block": search, "replace_block": "x"}, root]),
        )
    };
    let a = miss("    return 2\n");
    assert_eq!(
        (a["code"].as_str(), a["attempt"].as_u64()),
        (Some("SEARCH_BLOCK_NOT_FOUND"), Some(1))
    );
    // Unrelated failures in between: other ops on the same file, other codes, no file at all.
    let no_file = run("apply_edits", json!(["f.py", [{"new": "x"}], root]));
    assert_eq!(
        (no_file["code"].as_str(), no_file["attempt"].as_u64()),
        (Some("INVALID_INPUT"), Some(1))
    );
    let also_no_file = run("view_file", json!([7]));
    assert_eq!(
        (
            also_no_file["code"].as_str(),
            also_no_file["attempt"].as_u64()
        ),
        (Some("INVALID_INPUT"), Some(1)),
        "{also_no_file}"
    );
    let other_op = run(
        "apply_edits",
        json!(["f.py", [{"old": "    return 4\n", "new": "x"}], root]),
    );
    assert_eq!(
        (other_op["code"].as_str(), other_op["attempt"].as_u64()),
        (Some("SEARCH_BLOCK_NOT_FOUND"), Some(1))
    );
    // The first call again: its second attempt, so the ladder moves to its second rung.
    let again = miss("    return 2\n");
    assert_eq!(
        (again["attempt"].as_u64(), again["next_action"].as_str()),
        (Some(2), Some("use_line_edit")),
        "{again}"
    );
    let third = miss("    return 2\n");
    assert_eq!(third["attempt"], 3);
    // The same bad call without a file, repeated: counted too.
    assert_eq!(run("view_file", json!([7]))["attempt"], 2);
    // A view of the file starts its counts again.
    assert_eq!(run("view_file", json!(["f.py", root]))["ok"], true);
    assert_eq!(miss("    return 2\n")["attempt"], 1);
    assert_eq!(
        std::fs::read_to_string(d.path().join("f.py")).unwrap(),
        text
    );
}
