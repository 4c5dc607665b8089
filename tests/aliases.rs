//! Issue #27 §2: the argument names models learnt from other tools' schemas (Claude Code's Edit,
//! MultiEdit and Read, the MCP reference filesystem server's edit_file and read_text_file, Gemini
//! CLI's replace), accepted by the library's own ops as other spellings of the native keys. Every
//! refusal is INVALID_INPUT (or the engine's count codes) with the file unchanged.

use serde_json::{json, Value};
use surepatch::api::{call, TABLE};

fn run(op: &str, args: Value) -> Value {
    serde_json::from_str(&call(op, &args.to_string())).unwrap()
}

struct Ws(tempfile::TempDir);

impl Ws {
    fn new(files: &[(&str, &str)]) -> Ws {
        let d = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(d.path().join(name), text).unwrap();
        }
        Ws(d)
    }
    fn root(&self) -> Value {
        json!({ "workspace_root": self.0.path() })
    }
    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.path().join(name)).unwrap()
    }
}

const ABC: &str = "a = 1\nb = 1\na = 1\na = 1\n";

#[test]
fn claude_code_edit_and_gemini_replace_through_patch_file() {
    let w = Ws::new(&[("x.py", ABC)]);
    // Edit {file_path, old_string, new_string}
    let r = run(
        "patch_file",
        json!([{"file_path": "x.py", "old_string": "b = 1", "new_string": "b = 2"}, w.root()]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("x.py"), "a = 1\nb = 2\na = 1\na = 1\n");
    // Edit with replace_all: every occurrence, the receipt counts them.
    let r = run(
        "patch_file",
        json!([{"file_path": "x.py", "old_string": "a = 1", "new_string": "a = 0", "replace_all": true}, w.root()]),
    );
    assert_eq!(
        (r["ok"].clone(), r["replacements"].clone()),
        (json!(true), json!(3)),
        "{r}"
    );
    assert_eq!(w.read("x.py"), "a = 0\nb = 2\na = 0\na = 0\n");
    // Gemini replace {file_path, old_string, new_string, expected_replacements}
    let r = run(
        "patch_file",
        json!([{"file_path": "x.py", "old_string": "a = 0", "new_string": "a = 5", "expected_replacements": 3}, w.root()]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("x.py"), "a = 5\nb = 2\na = 5\na = 5\n");
}

#[test]
fn patch_file_refusals_leave_the_file_alone() {
    let w = Ws::new(&[("x.py", ABC)]);
    let cases = [
        // two spellings of one key that disagree
        (json!({"file_path": "x.py", "search_block": "b = 1", "old_string": "a = 1", "replace_block": "q"}), "INVALID_INPUT", "both search_block and old_string"),
        (json!({"file_path": "x.py", "old_string": "b = 1", "replace_block": "q", "new_string": "r"}), "INVALID_INPUT", "both replace_block and new_string"),
        // the search text missing: every accepted name is listed
        (json!({"file_path": "x.py", "new_string": "q"}), "INVALID_INPUT", "search_block is required (a string); accepted names: search_block, searchBlock, old_string, oldString."),
        (json!({"file_path": "x.py", "old_string": "b = 1"}), "INVALID_INPUT", "accepted names: replace_block, replaceBlock, new_string, newString."),
        // a count and replace_all together
        (json!({"file_path": "x.py", "old_string": "a = 1", "new_string": "q", "replace_all": true, "expected_replacements": 3}), "INVALID_INPUT", "not both"),
        // the wrong count
        (json!({"file_path": "x.py", "old_string": "a = 1", "new_string": "q", "expected_replacements": 2}), "MATCH_COUNT_MISMATCH", "found 3"),
        // replace_all of text that is not there
        (json!({"file_path": "x.py", "old_string": "zzz", "new_string": "q", "replace_all": true}), "SEARCH_BLOCK_NOT_FOUND", ""),
        // without replace_all, several occurrences stay ambiguous
        (json!({"file_path": "x.py", "old_string": "a = 1", "new_string": "q", "replace_all": false}), "SEARCH_BLOCK_AMBIGUOUS", ""),
    ];
    for (input, code, words) in cases {
        let r = run("patch_file", json!([input, w.root()]));
        assert_eq!(r["code"], code, "{input}: {r}");
        assert!(
            r["message"].as_str().unwrap().contains(words),
            "{input}: {r}"
        );
        assert_eq!(w.read("x.py"), ABC, "{input}");
    }
}

#[test]
fn multi_edit_and_the_filesystem_servers_edit_file_through_apply_edits() {
    let w = Ws::new(&[("x.py", ABC)]);
    // MultiEdit {edits: [{old_string, new_string, replace_all}]}
    let r = run(
        "apply_edits",
        json!(["x.py", [{"old_string": "a = 1", "new_string": "a = 9", "replace_all": true}, {"old_string": "b = 1", "new_string": "b = 9"}], w.root()]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(w.read("x.py"), "a = 9\nb = 9\na = 9\na = 9\n");
    // edit_file {edits: [{oldText, newText}]} with dryRun
    let r = run(
        "apply_edits",
        json!(["x.py", [{"oldText": "b = 9", "newText": "b = 0"}], {"workspace_root": w.0.path(), "dryRun": true}]),
    );
    assert_eq!(
        (r["ok"].clone(), r["written"].clone()),
        (json!(true), json!(false)),
        "{r}"
    );
    assert_eq!(w.read("x.py"), "a = 9\nb = 9\na = 9\na = 9\n");
}

#[test]
fn an_edit_item_without_its_text_names_the_item_and_the_accepted_names() {
    let w = Ws::new(&[("x.py", ABC)]);
    let cases = [
        (json!([{"old": "b = 1", "new": "x"}, {"oldText": "a"}]), "edits[1].new is required (a string; \"\" deletes the old text); accepted names: new, new_string, newString, replace, newText."),
        (json!([{"newText": "a"}]), "edits[0].old is required (a string); accepted names: old, old_string, oldString, search, oldText."),
        (json!([{"old": "b = 1", "oldText": "a = 1", "new": "x"}]), "both old and oldText are given with different values"),
        (json!([{"old": "a = 1", "new": "x", "replace_all": true, "expected_replacements": 3}]), "edits[0]: give expected_replacements or replace_all, not both"),
    ];
    for (edits, words) in cases {
        let r = run("apply_edits", json!(["x.py", edits, w.root()]));
        assert_eq!(r["code"], "INVALID_INPUT", "{edits}: {r}");
        assert!(
            r["message"].as_str().unwrap().contains(words),
            "{edits}: {r}"
        );
        assert_eq!(w.read("x.py"), ABC);
    }
}

#[test]
fn claude_code_read_and_read_text_file_through_view_file() {
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let w = Ws::new(&[("t.txt", &text)]);
    let view = |opts: Value| {
        let mut o = opts;
        o["workspace_root"] = json!(w.0.path());
        run("view_file", json!(["t.txt", o]))
    };
    // Read {offset, limit}: `limit` lines from line `offset`.
    let r = view(json!({"offset": 3, "limit": 2}));
    assert_eq!(r["content"], "line 3\nline 4\n", "{r}");
    assert_eq!(
        (r["truncated"].clone(), r["next_start_line"].clone()),
        (json!(true), json!(5))
    );
    // read_text_file {head}, {tail}
    assert_eq!(view(json!({"head": 2}))["content"], "line 1\nline 2\n");
    let r = view(json!({"tail": 3}));
    assert_eq!(r["content"], "line 8\nline 9\nline 10\n", "{r}");
    assert_eq!(
        (r["start_line"].clone(), r["truncated"].clone()),
        (json!(8), json!(false))
    );
    assert_eq!(view(json!({"tail": 50}))["start_line"], 1);
    for bad in [
        json!({"tail": 2, "head": 2}),
        json!({"tail": 2, "offset": 2}),
        json!({"tail": 0}),
        json!({"limit": 2, "head": 3}),
        json!({"offset": 2, "start_line": 3}),
    ] {
        let r = view(bad.clone());
        assert_eq!(r["code"], "INVALID_INPUT", "{bad}: {r}");
    }
}

/// The alias table of every op (ops.json `aliases`) names keys the op's reader knows: each alias of a
/// keyword argument, given alone, is never refused as an unknown argument.
#[test]
fn every_declared_alias_is_read() {
    let mut seen = 0;
    for op in TABLE {
        let table = (op.aliases)();
        for (native, list) in &table {
            for a in list.as_array().unwrap() {
                let a = a.as_str().unwrap();
                seen += 1;
                // Where the spelling goes: patch_file's input, an edit item, view options, a
                // readManyFiles item; positional parameters (file_path, patch) have no key to spell.
                let args = match (op.name, native.as_str()) {
                    (
                        "apply_edits" | "preview_edits" | "view_file" | "apply_patch",
                        "file_path" | "patch",
                    ) => continue,
                    ("patch_file", _) => json!([{ a: "x", "file_path": "nope.txt" }]),
                    ("apply_edits" | "preview_edits", "old" | "new") => {
                        json!(["nope.txt", [{ a: "x" }]])
                    }
                    ("view_file", _) => json!(["nope.txt", { a: 1 }]),
                    ("read_many_files", _) => json!([[{ a: "nope.txt" }]]),
                    (op, k) => panic!("{op}: no case for {k} ({a}): add one"),
                };
                let r = run(op.name, args);
                let msg = r["message"].as_str().unwrap_or_default();
                assert!(!msg.contains("unknown argument"), "{} {a}: {r}", op.name);
            }
        }
    }
    assert!(seen >= 20, "{seen}");
}
