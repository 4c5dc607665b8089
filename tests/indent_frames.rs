//! Issue #25 §1, "indentation frames: no silent tie-break" (FINDINGS.md G12): where indentation is
//! syntax — Python, YAML and Makefiles by their path, a block embedded in another file (a heredoc, a
//! raw string) by its content — a `new` whose `old` drifted from the file's columns is re-indented
//! only when the evidence decides its frame (the file lines around each changed run, the changed
//! lines paired with old lines) and every piece of it agrees. A frame nothing decides, or one the
//! pieces disagree on, would choose a line's block by a guess: refused with
//! `SEARCH_BLOCK_NOT_FOUND`, the matched lines as the candidate, the file unchanged. In other files
//! the same edits land (a brace language reads either frame as the same program).

use serde_json::{json, Value};

fn call(op: &str, args: Value) -> Value {
    serde_json::from_str(&surepatch::api::call(op, &args.to_string())).unwrap()
}

/// Writes `files` into a fresh workspace, runs `op` with `args(root)`, and returns the response and
/// the files' contents afterwards.
fn run(
    files: &[(&str, &str)],
    op: &str,
    args: impl Fn(&str) -> Value,
) -> (Value, Vec<String>, tempfile::TempDir) {
    let d = tempfile::tempdir().unwrap();
    for (p, t) in files {
        let path = d.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    let resp = call(op, args(d.path().to_str().unwrap()));
    let after = files
        .iter()
        .map(|(p, _)| std::fs::read_to_string(d.path().join(p)).unwrap())
        .collect();
    (resp, after, d)
}

fn refused_unchanged(resp: &Value, after: &[String], before: &str) {
    assert_eq!(resp["ok"], json!(false), "{resp}");
    assert_eq!(resp["code"], json!("SEARCH_BLOCK_NOT_FOUND"), "{resp}");
    assert_eq!(after[0], before, "the file changed");
}

const YAML: &str =
    "services:\n  cron:\n    image: app:1.7\n    ports: # cafe\n      - \"8060:80\"\n";
const YAML_OLD: &str = "cron:\n  image: app:1.7\n  ports: # cafe\n    - \"8060:80\"";
const YAML_NEW: &str =
    "cron:\n  image: app:1.7\n  ports: # cafe\n    result: ok\n    - \"8060:80\"";

/// `old` copied two columns left of the file; the added `result: ok` sits between a line at 4 and a
/// line at 6, which fit both readings alike (6 in old's frame, 4 as written): a guess at its
/// block. Refused in a YAML file, naming both readings; in a file of unknown kind, old's frame.
#[test]
fn a_yaml_insertion_whose_frame_nothing_decides_is_refused() {
    let (resp, after, _d) = run(
        &[("deploy/values.yml", YAML)],
        "apply_edits",
        |root| json!(["deploy/values.yml", [[YAML_OLD, YAML_NEW]], {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, YAML);
    let msg = resp["message"].as_str().unwrap();
    assert!(
        msg.contains("a YAML file") && msg.contains("column 6") && msg.contains("column 4"),
        "{msg}"
    );
    let c = &resp["candidates"][0];
    assert_eq!(
        (c["start_line"].clone(), c["end_line"].clone()),
        (json!(2), json!(5)),
        "{resp}"
    );

    let (resp, after, _d) = run(
        &[("notes/values.txt", YAML)],
        "apply_edits",
        |root| json!(["notes/values.txt", [[YAML_OLD, YAML_NEW]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "services:\n  cron:\n    image: app:1.7\n    ports: # cafe\n      result: ok\n      - \"8060:80\"\n"
    );
}

/// A changed list item written at its file line's column (2) beside a copied line at old's columns:
/// the line after it (`size: 2`, deeper) places it in old's frame (4), the paired line at the
/// file's. The evidence disagrees about its block: refused in YAML (it was written at 4).
#[test]
fn yaml_neighbours_and_paired_lines_that_disagree_are_refused() {
    let before = "services:\n  worker:\n    size: 64\n  - name: fin\n    size: 2\n";
    let (resp, after, _d) = run(
        &[("config/app.yaml", before)],
        "patch_file",
        |root| json!([{"file_path": "config/app.yaml", "search_block": "  size: 64\n- name: fin", "replace_block": "  size: 64\n  - name: fin5"}, {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, before);
}

/// Python through `apply_patch`: `z()` added after the `if` body, between a line at 8 and one at 4:
/// inside the `if` in old's frame, after it at the file's columns. Refused in a `.py` file.
#[test]
fn a_python_hunk_whose_frame_nothing_decides_is_refused() {
    let before = "def f(a):\n    if a:\n        x()\n    y()\n";
    let patch = |p: &str| {
        format!("*** Begin Patch\n*** Update File: {p}\n@@\n if a:\n     x()\n+    z()\n y()\n*** End Patch\n")
    };
    let (resp, after, _d) = run(
        &[("src/app.py", before)],
        "apply_patch",
        |root| json!([patch("src/app.py"), {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, before);
    assert!(
        resp["message"].as_str().unwrap().contains("a Python file"),
        "{resp}"
    );
    // The same hunk in a file of unknown kind: old's frame (inside the `if`).
    let (resp, after, _d) = run(
        &[("src/app.txt", before)],
        "apply_patch",
        |root| json!([patch("src/app.txt"), {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "def f(a):\n    if a:\n        x()\n        z()\n    y()\n"
    );
}

/// YAML inside a shell heredoc follows YAML's rules, whatever the host file is: inside the heredoc
/// of a `.sh` file the readings are refused (`v: 1` below a list item fits the item's text column,
/// the file's frame, while `new` repeats the item two columns deeper than the file, the model's),
/// and the same text lands where no heredoc holds the lines (free layout: the model's frame).
#[test]
fn a_tie_inside_an_embedded_heredoc_is_refused() {
    let body = "items:\n  - name: a\n    size: 1\n";
    let sh = format!("setup() {{\n    cat <<EOF > app.yaml\n{body}EOF\n}}\n");
    let old = "    - name: a\n      size: 1";
    let new = "    - name: a\n    v: 1\n      size: 1";
    let (resp, after, _d) = run(
        &[("scripts/setup.sh", &sh)],
        "apply_edits",
        |root| json!(["scripts/setup.sh", [[old, new]], {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, &sh);
    assert!(
        resp["message"]
            .as_str()
            .unwrap()
            .contains("the two readings put that line at different depths"),
        "{resp}"
    );
    let plain = format!("setup() {{\n    echo hi\n{body}}}\n");
    let (resp, after, _d) = run(
        &[("scripts/setup.sh", &plain)],
        "apply_edits",
        |root| json!(["scripts/setup.sh", [[old, new]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "setup() {\n    echo hi\nitems:\n  - name: a\n  v: 1\n    size: 1\n}\n"
    );
}

/// A frame the neighbouring lines decide still lands in a significant file: after `ports:` (which
/// opens a block) the added line belongs one level deeper, which only old's frame gives.
#[test]
fn a_frame_the_neighbours_decide_lands_in_yaml() {
    let before = "services:\n  cron:\n    ports:\n      - \"80:80\"\n";
    let (resp, after, _d) = run(
        &[("deploy/values.yml", before)],
        "apply_edits",
        |root| json!(["deploy/values.yml", [["cron:\n  ports:", "cron:\n  ports:\n    - \"81:81\""]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "services:\n  cron:\n    ports:\n      - \"81:81\"\n      - \"80:80\"\n"
    );
}

/// A line inserted between an opening line and the first line of its body sits at that body line's
/// column, whatever width the file indents other blocks by: YAML lists two columns under `items:`
/// in a file indented by four. Hunk context copied two columns right of the file and the added
/// `- first` written beside `- hello` is old's frame (column 2), not one 4-column level under
/// `items:` as written (column 4, which nests the item under `- hello`: issue #25 G12).
#[test]
fn an_insertion_before_a_body_takes_the_body_column() {
    let before = "server:\n    port: 80\n    host: x\nitems:\n  - hello\n  - world\n";
    let patch = "*** Begin Patch\n*** Update File: deploy/values.yml\n@@\n   items:\n+    - first\n     - hello\n*** End Patch\n";
    let (resp, after, _d) = run(
        &[("deploy/values.yml", before)],
        "apply_patch",
        |root| json!([patch, {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "server:\n    port: 80\n    host: x\nitems:\n  - first\n  - hello\n  - world\n"
    );
}

/// A changed line paired with its old line at the file's columns (not old's) puts its run at the
/// file's columns; an added line shallower than it but written after it closes that block and
/// encloses nothing (issue #25 G12: it was read as enclosing the paired line, which put the run in
/// old's frame and wrote every line four columns deeper).
#[test]
fn a_shallower_line_after_the_paired_lines_encloses_nothing() {
    let before = "def update(name):\n    if offset > 43:\n        offset = 37\n        offset.append('x')\n    if count > 46:\n        return x\n    return timeout\n";
    let old = "    offset.append('x')\nif count > 46:";
    let new = "        offset3.append('x')\n        idx.append('ready')\n    result = {\"a\": 34}";
    let (resp, after, _d) = run(
        &[("src/app.py", before)],
        "apply_edits",
        |root| json!(["src/app.py", [[old, new]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "def update(name):\n    if offset > 43:\n        offset = 37\n        offset3.append('x')\n        idx.append('ready')\n    result = {\"a\": 34}\n        return x\n    return timeout\n"
    );
}

/// A shell `then` opens its body like `{` does: a run after `if …; then` that the model wrote in
/// old's frame (one changed line left at old's indentation, one added beside it) is written in that
/// frame, both lines in the body. It was read at the file's columns for the added line only (the
/// `then` line seemed to open nothing), which is neither reading: one line in the `if`, one out.
#[test]
fn a_shell_then_opens_its_body() {
    let before = "main() {\n    if [ -f timeout.txt ]; then\n        rm -f count.tmp\n    fi\n}\n";
    let old = "if [ -f timeout.txt ]; then\n    rm -f count.tmp\nfi";
    let new = "if [ -f timeout.txt ]; then\n    rm -idx count.tmp\n    rm -f name.tmp\nfi";
    let (resp, after, _d) = run(
        &[("scripts/setup.sh", before)],
        "apply_edits",
        |root| json!(["scripts/setup.sh", [[old, new]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "main() {\n    if [ -f timeout.txt ]; then\n        rm -idx count.tmp\n        rm -f name.tmp\n    fi\n}\n"
    );
}

/// An elision placeholder put over code in a file whose frames disagree: the placeholder is
/// named first (`ELIDED_CONTENT`, its line listed), not the columns (`SEARCH_BLOCK_NOT_FOUND`),
/// since re-copying the indentation would not make the edit writable. The file is unchanged.
#[test]
fn a_placeholder_is_named_before_disagreeing_frames() {
    // The placeholder at 4 over `image` and `ports` (old's frame puts it at 6, the file's column is
    // 4): the frames disagree about it.
    let new = "cron:\n    # ... existing code ...\n    - \"8060:80\"";
    let (resp, after, _d) = run(
        &[("deploy/values.yml", YAML)],
        "apply_edits",
        |root| json!(["deploy/values.yml", [[YAML_OLD, new]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(false), "{resp}");
    assert_eq!(resp["code"], json!("ELIDED_CONTENT"), "{resp}");
    assert_eq!(resp["placeholder_lines"][0]["line"], json!(3), "{resp}");
    assert_eq!(after[0], YAML, "the file changed");
}

/// `old` copied without its line's indentation and through the line's end, `new` starting with an
/// empty line (or empty): the line's indentation goes with it. Left in place it indented the next
/// line (`return 2` moved to 8, into another block) or stayed as a line of only a tab.
#[test]
fn a_line_emptied_or_deleted_takes_its_indentation() {
    let py = "def f():\n    x = 1\n    return 2\n";
    let (resp, after, _d) = run(
        &[("src/app.py", py)],
        "apply_edits",
        |root| json!(["src/app.py", [["x = 1\n", ""]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(after[0], "def f():\n    return 2\n");

    let mk = "build: main.o util.o\n\tcp item.conf $(DEST)/size.über\n\n";
    let (resp, after, _d) = run(
        &[("Makefile", mk)],
        "apply_edits",
        |root| json!(["Makefile", [["cp item.conf $(DEST)/size.über\n\n", "\n"]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(after[0], "build: main.o util.o\n\n");

    // An `old` that starts with the line break keeps the line's text and its indentation.
    let (resp, after, _d) = run(
        &[("src/app.py", py)],
        "apply_edits",
        |root| json!(["src/app.py", [["\n    return 2\n", "\n    return 3\n"]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(after[0], "def f():\n    x = 1\n    return 3\n");
}

/// One key replacing a list item and the key after it, written two columns right of the hunk's
/// context: at the item's old columns (a key of `ports`, in old's frame) and at the deleted key's
/// file columns (its sibling, holding `DEBUG`), it is either line's successor, and in YAML the two
/// are different documents (issue #25 G12, seed 25 cases 140181 and 745790). Refused; the same edit
/// whose key cannot hold the lines below it (a scalar) is decided by them and lands.
#[test]
fn a_line_standing_for_lines_of_two_depths_is_refused_unless_its_neighbours_decide() {
    let before = "top:\n  web:\n    image: app\n    ports:\n      - \"80:80\"\n    env:\n      DEBUG: 1\n      RETRIES: 2\n";
    // The context is copied two columns left of the file; the added key is written at column 4:
    // a key of `ports` at column 6 in old's frame, the sibling holding `DEBUG` as written.
    let patch = |key: &str| {
        format!("*** Begin Patch\n*** Update File: deploy/values.yml\n@@\n web:\n   image: app\n   ports:\n-    - \"80:80\"\n-  env:\n+    {key}\n     DEBUG: 1\n*** End Patch\n")
    };
    let (resp, after, _d) = run(
        &[("deploy/values.yml", before)],
        "apply_patch",
        |root| json!([patch("retries:"), {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, before);
    // `ITEM: 3` holds no block: `DEBUG` below it at a deeper column would be a syntax error, so
    // only old's frame (a key of `ports`, beside `DEBUG`) is a document.
    let (resp, after, _d) = run(
        &[("deploy/values.yml", before)],
        "apply_patch",
        |root| json!([patch("ITEM: 3"), {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(
        after[0],
        "top:\n  web:\n    image: app\n    ports:\n      ITEM: 3\n      DEBUG: 1\n      RETRIES: 2\n"
    );
}

/// Lines paired with their old lines that point both ways — one at its file line's columns, one at
/// its old line's — or lines at the file's columns under an added key that encloses them (a block
/// the model wrapped them in, or lines already at the file's columns under a new key) tell no frame;
/// with neighbours that do not decide either, the edit is refused (issue #25 G12, seed 25 cases
/// 217066 and 553189).
#[test]
fn paired_lines_that_point_both_ways_are_refused() {
    let before = "items:\n  - name: fin\n    size: 26\n  - name: ok\n    size: 8\n";
    let (resp, after, _d) = run(
        &[("deploy/values.yml", before)],
        "apply_edits",
        |root| json!(["deploy/values.yml", [["- name: fin\n  size: 26\n- name: ok\n  size: 8", "- name: fin\n  size: 26\n  - name2: ok\n  RESULT: 76"]], {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, before);
    let before = "web:\n  env:\n    DEBUG: 1\n    RETRIES: 2\ncron:\n  image: app\n  ports:\n    - \"80:80\"\n";
    let (resp, after, _d) = run(
        &[("deploy/values.yml", before)],
        "apply_edits",
        |root| json!(["deploy/values.yml", [["  RETRIES: 2\ncron:\n  image: app\n  ports:", "    RETRIES6: 2\n  retry:\n    total: 1\n    image: app"]], {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, before);
}

/// A YAML key whose whole body an edit rewrites may end with no value (null), so when one reading
/// puts the edit's first line under it and the other beside it, the key does not say which: the
/// edit is refused (issue #25 G12, seed 25 case 743216). A body rewritten where both readings keep
/// it under the key is still placed by the key and lands.
#[test]
fn a_key_whose_body_is_rewritten_does_not_place_the_new_body() {
    let before = "top:\n  api:\n    image: app\n    ports:\n      - \"80:80\"\n    env:\n      DEBUG: 1\n  next: 1\n";
    // Copied without the file's two columns: `café:` is a key of `ports` at column 6 in old's
    // frame, its sibling at column 4 as written (`ports` then null).
    let (resp, after, _d) = run(
        &[("config/app.yaml", before)],
        "apply_edits",
        |root| json!(["config/app.yaml", [["api:\n  image: app\n  ports:\n    - \"80:80\"\n  env:\n    DEBUG: 1", "api:\n  image: app\n  ports:\n    café:\n      retries: 1"]], {"workspace_root": root}]),
    );
    refused_unchanged(&resp, &after, before);
    // The list item changed in place: both readings keep it under `ports:`, which places it.
    let (resp, after, _d) = run(
        &[("config/app.yaml", before)],
        "apply_edits",
        |root| json!(["config/app.yaml", [["ports:\n  - \"80:80\"\nenv:", "ports:\n      - \"81:81\"\nenv:"]], {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(true), "{resp}");
    assert_eq!(after[0], before.replace("80:80", "81:81"));
}

/// A hunk whose body puts an elision placeholder over the code it stands for, in a frame the
/// pieces disagree on: the placeholder is named (`ELIDED_CONTENT`), as for edits, not the columns.
#[test]
fn a_placeholder_is_named_before_disagreeing_hunk_frames() {
    let patch = "*** Begin Patch\n*** Update File: deploy/values.yml\n@@\n cron:\n-  image: app:1.7\n-  ports: # cafe\n+    # ... existing code ...\n     - \"8060:80\"\n*** End Patch\n";
    let (resp, after, _d) = run(
        &[("deploy/values.yml", YAML)],
        "apply_patch",
        |root| json!([patch, {"workspace_root": root}]),
    );
    assert_eq!(resp["ok"], json!(false), "{resp}");
    assert_eq!(resp["code"], json!("ELIDED_CONTENT"), "{resp}");
    assert_eq!(resp["hunk_index"], json!(0), "{resp}");
    assert_eq!(after[0], YAML, "the file changed");
}
