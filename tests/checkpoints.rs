//! Issue #27 §6: checkpoints through the JSON entry points: every file written since, restored as one
//! transaction (contents, creations deleted, deletions and moves reversed); a file changed since by
//! anything else is STALE_FILE naming it with nothing restored, unless `force`.

use std::fs;

use serde_json::{json, Value};
use surepatch::api::call;

fn run(op: &str, args: Value) -> Value {
    serde_json::from_str(&call(op, &args.to_string())).unwrap()
}

struct Ws(tempfile::TempDir);

impl Ws {
    fn new(files: &[(&str, &str)]) -> Ws {
        let d = tempfile::tempdir().unwrap();
        for (n, t) in files {
            fs::write(d.path().join(n), t).unwrap();
        }
        Ws(d)
    }
    fn o(&self) -> Value {
        json!({ "workspace_root": self.0.path() })
    }
    fn read(&self, n: &str) -> Option<String> {
        fs::read_to_string(self.0.path().join(n)).ok()
    }
    fn checkpoint(&self) -> String {
        let r = run("create_checkpoint", json!([self.o()]));
        assert_eq!(r["ok"], true, "{r}");
        r["checkpoint_id"].as_str().unwrap().to_string()
    }
}

fn ok(r: Value) -> Value {
    assert_eq!(r["ok"], true, "{r}");
    r
}

#[test]
fn a_restore_puts_back_every_file_written_since_in_one_transaction() {
    let w = Ws::new(&[
        ("a.txt", "one\ntwo\nthree\n"),
        ("c.txt", "c\n"),
        ("d.txt", "d\n"),
    ]);
    let before_cp = ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "one", "replace_block": "1"}, w.o()]),
    ));
    let cp = w.checkpoint();
    // Several edits of one file (kept as splices), a creation, a deletion, a move.
    ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "two", "replace_block": "2"}, w.o()]),
    ));
    ok(run(
        "apply_edits",
        json!(["a.txt", [{"old": "three", "new": "3"}], w.o()]),
    ));
    ok(run("create_file", json!(["b.txt", "new\n", w.o()])));
    ok(run("delete_file", json!(["c.txt", w.o()])));
    let moved = ok(run("move_file", json!(["d.txt", "e.txt", w.o()])));
    let list = ok(run("list_checkpoints", json!([w.o()])));
    assert_eq!(list["checkpoints"][0]["checkpoint_id"], cp.as_str());
    assert_eq!(list["checkpoints"][0]["edits_since"], 5);
    // A dry run writes nothing.
    let dry = ok(run(
        "restore_checkpoint",
        json!([cp, {"workspace_root": w.0.path(), "dry_run": true}]),
    ));
    assert_eq!(dry["written"], false);
    assert_eq!(w.read("a.txt").unwrap(), "1\n2\n3\n");
    let r = ok(run("restore_checkpoint", json!([cp, w.o()])));
    assert_eq!(r["edits_reverted"].as_array().unwrap().len(), 5);
    let actions: Vec<(String, String)> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file_path"].as_str().unwrap().into(),
                f["action"].as_str().unwrap().into(),
            )
        })
        .collect();
    for want in [
        ("a.txt", "restored"),
        ("b.txt", "deleted"),
        ("c.txt", "recreated"),
        ("d.txt", "recreated"),
        ("e.txt", "deleted"),
    ] {
        assert!(
            actions.contains(&(want.0.into(), want.1.into())),
            "{actions:?}"
        );
    }
    assert_eq!(
        w.read("a.txt").unwrap(),
        "1\ntwo\nthree\n",
        "the edit before the checkpoint stays"
    );
    assert_eq!(w.read("b.txt"), None);
    assert_eq!(w.read("c.txt").unwrap(), "c\n");
    assert_eq!(w.read("d.txt").unwrap(), "d\n");
    assert_eq!(w.read("e.txt"), None);
    // The reverted edits left the journal; the one before the checkpoint did not.
    let undo_moved = run("undo_edit", json!([moved["edit_id"], w.o()]));
    assert_eq!(undo_moved["code"], "EDIT_NOT_FOUND", "{undo_moved}");
    let undo_first = ok(run("undo_edit", json!([before_cp["edit_id"], w.o()])));
    assert_eq!(undo_first["files"][0]["action"], "restored");
    assert_eq!(w.read("a.txt").unwrap(), "one\ntwo\nthree\n");
}

#[test]
fn a_file_changed_by_anything_else_is_stale_and_nothing_is_restored_unless_force() {
    let w = Ws::new(&[("a.txt", "a\n"), ("z.txt", "z\n")]);
    let cp = w.checkpoint();
    ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "a", "replace_block": "A"}, w.o()]),
    ));
    ok(run(
        "patch_file",
        json!([{"file_path": "z.txt", "search_block": "z", "replace_block": "Z"}, w.o()]),
    ));
    ok(run("create_file", json!(["n.txt", "n\n", w.o()])));
    fs::write(w.0.path().join("z.txt"), "changed by hand\n").unwrap();
    let r = run("restore_checkpoint", json!([cp, w.o()]));
    assert_eq!(r["code"], "STALE_FILE", "{r}");
    assert_eq!(r["file_path"], "z.txt");
    assert_eq!(r["checkpoint_id"], cp.as_str());
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("z.txt changed since surepatch last wrote it"),
        "{r}"
    );
    assert_eq!(
        (
            w.read("a.txt").unwrap(),
            w.read("z.txt").unwrap(),
            w.read("n.txt").unwrap()
        ),
        ("A\n".into(), "changed by hand\n".into(), "n\n".into())
    );
    // In memory a small edit keeps only the stretches it replaced: force cannot rebuild z.txt.
    let r = run(
        "restore_checkpoint",
        json!([cp, {"workspace_root": w.0.path(), "force": true}]),
    );
    assert_eq!(
        (r["code"].as_str(), r["file_path"].as_str()),
        (Some("STALE_FILE"), Some("z.txt")),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("even force cannot rebuild it"),
        "{r}"
    );
    assert_eq!(w.read("n.txt").unwrap(), "n\n");
}

#[test]
fn force_restores_over_a_change_from_the_journal_directory() {
    let w = Ws::new(&[("a.txt", "a\n"), ("z.txt", "z\n")]);
    let o = json!({"workspace_root": w.0.path(), "journal_dir": ".j"});
    let cp = ok(run("create_checkpoint", json!([o])));
    let cp = cp["checkpoint_id"].as_str().unwrap();
    ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "a", "replace_block": "A"}, o]),
    ));
    ok(run(
        "patch_file",
        json!([{"file_path": "z.txt", "search_block": "z", "replace_block": "Z"}, o]),
    ));
    fs::write(w.0.path().join("z.txt"), "changed by hand\n").unwrap();
    let r = run("restore_checkpoint", json!([cp, o]));
    assert_eq!(
        (r["code"].as_str(), r["file_path"].as_str()),
        (Some("STALE_FILE"), Some("z.txt")),
        "{r}"
    );
    assert_eq!(w.read("a.txt").unwrap(), "A\n");
    let r = ok(run(
        "restore_checkpoint",
        json!([cp, {"workspace_root": w.0.path(), "journal_dir": ".j", "force": true}]),
    ));
    assert_eq!(r["written"], true);
    assert_eq!(
        (w.read("a.txt").unwrap(), w.read("z.txt").unwrap()),
        ("a\n".into(), "z\n".into())
    );
}

#[test]
fn bad_and_unknown_checkpoints_are_refused() {
    let w = Ws::new(&[("a.txt", "a\n")]);
    for (id, code) in [
        (json!("nope"), "INVALID_INPUT"),
        (json!(3), "INVALID_INPUT"),
        (json!("c0192f3a4b5c6000001a1b2"), "EDIT_NOT_FOUND"),
    ] {
        let r = run("restore_checkpoint", json!([id, w.o()]));
        assert_eq!(r["code"], code, "{id}: {r}");
    }
    // A checkpoint of another workspace is not this one's.
    let other = Ws::new(&[]);
    let cp = other.checkpoint();
    assert_eq!(
        run("restore_checkpoint", json!([cp, w.o()]))["code"],
        "EDIT_NOT_FOUND"
    );
    assert_eq!(
        run(
            "create_checkpoint",
            json!([{"workspace_root": w.0.path(), "bogus": 1}])
        )["code"],
        "INVALID_INPUT"
    );
    assert_eq!(w.read("a.txt").unwrap(), "a\n");
}

#[test]
fn checkpoints_are_kept_in_the_journal_directory() {
    let w = Ws::new(&[("a.txt", "a\n")]);
    let o = json!({"workspace_root": w.0.path(), "journal_dir": ".journal"});
    let cp = ok(run(
        "create_checkpoint",
        json!([{"workspace_root": w.0.path(), "journal_dir": ".journal", "label": "before"}]),
    ));
    let id = cp["checkpoint_id"].as_str().unwrap();
    assert!(w
        .0
        .path()
        .join(".journal")
        .join(format!("{id}.checkpoint.json"))
        .is_file());
    ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "a", "replace_block": "b"}, o]),
    ));
    let list = ok(run("list_checkpoints", json!([o])));
    assert_eq!(list["checkpoints"][0]["label"], "before");
    ok(run("restore_checkpoint", json!([id, o])));
    assert_eq!(w.read("a.txt").unwrap(), "a\n");
}

#[test]
fn only_edit_ids_reverts_a_sessions_own_edits() {
    let w = Ws::new(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let cp = w.checkpoint();
    let mine = ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "a", "replace_block": "A"}, w.o()]),
    ));
    ok(run(
        "patch_file",
        json!([{"file_path": "b.txt", "search_block": "b", "replace_block": "B"}, w.o()]),
    ));
    let only = json!({"workspace_root": w.0.path(), "only_edit_ids": [mine["edit_id"]]});
    let r = ok(run("restore_checkpoint", json!([cp, only])));
    assert_eq!(r["edits_reverted"], json!([mine["edit_id"]]));
    assert_eq!(
        (w.read("a.txt").unwrap(), w.read("b.txt").unwrap()),
        ("a\n".into(), "B\n".into())
    );
    // Another session's later edit of a file of mine: that file changed by something else.
    let cp = w.checkpoint();
    let mine = ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "a", "replace_block": "x"}, w.o()]),
    ));
    ok(run(
        "patch_file",
        json!([{"file_path": "a.txt", "search_block": "x", "replace_block": "y"}, w.o()]),
    ));
    let only = json!({"workspace_root": w.0.path(), "only_edit_ids": [mine["edit_id"]]});
    let r = run("restore_checkpoint", json!([cp, only]));
    assert_eq!(
        (r["code"].as_str(), r["file_path"].as_str()),
        (Some("STALE_FILE"), Some("a.txt")),
        "{r}"
    );
    assert_eq!(w.read("a.txt").unwrap(), "y\n");
}
