//! Tests of the reading and finding entry points through `call` (the Node tests cover every path;
//! these keep `cargo test` meaningful for them).

use super::test_support::{run, Ws};
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

// ---- hostile repository content (issue 26 §1) ---------------------------------------------------

use super::browse::{resolve_dir, walker, WalkOpts};
use crate::fs::workspace::Workspace;
use ignore::overrides::OverrideBuilder;
use ignore::WalkBuilder;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Runs `op` on another thread and gives its result, or fails the test after `limit` (a call that
/// blocks must not hang the test run).
fn bounded(
    op: &'static str,
    args: serde_json::Value,
    limit: Duration,
) -> (serde_json::Value, Duration) {
    let (tx, rx) = mpsc::channel();
    let t0 = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(run(op, args));
    });
    match rx.recv_timeout(limit) {
        Ok(r) => (r, t0.elapsed()),
        Err(_) => panic!("{op} did not answer within {limit:?}"),
    }
}

/// The paths a walk from the root keeps, workspace-relative, sorted.
fn kept(b: &WalkBuilder, root: &Path) -> Vec<String> {
    let mut v: Vec<String> = b
        .build()
        .flatten()
        .filter(|e| e.depth() > 0)
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// On a tree of regular ignore files, the walk keeps exactly what the `ignore` crate keeps when it
/// reads them itself (its settings before: no parents, no global excludes, `require_git(false)`),
/// with and without hidden files and a glob: nested files, negations, anchored and directory-only
/// patterns, `.ignore` over `.gitignore`, the root's `.git/info/exclude`, a whitelisted hidden file,
/// a CRLF file with a BOM, a line that is not UTF-8 (the rest of that file is dropped, as the crate
/// does: `z.c` stays).
#[test]
fn the_rules_are_the_crates_own_on_regular_ignore_files() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    let files: &[(&str, &[u8])] = &[
        (".gitignore", b"*.log\n/build/\n!keep.log\ntmp*\n!.github\n"),
        (".ignore", b"notes.md\n"),
        (".git/info/exclude", b"local.txt\nsecret/\n"),
        (".git/HEAD", b"ref: refs/heads/main\n"),
        (".github/ci.yml", b"x"),
        (".hidden.txt", b"x"),
        ("keep.log", b"x"),
        ("drop.log", b"x"),
        ("notes.md", b"x"),
        ("local.txt", b"x"),
        ("secret/a.txt", b"x"),
        ("build/out.o", b"x"),
        ("src/build/gen.rs", b"x"),
        (
            "src/.gitignore",
            b"\xef\xbb\xbfgen/\r\n!drop.log\r\n*.tmp\r\n",
        ),
        ("src/.ignore", b"*.rs\n!main.rs\n"),
        ("src/main.rs", b"x"),
        ("src/lib.rs", b"x"),
        ("src/drop.log", b"x"),
        ("src/a.tmp", b"x"),
        ("src/gen/x.c", b"x"),
        ("src/deep/.gitignore", b"!*.tmp\nnot\xffutf8\nz.c\n"),
        ("src/deep/b.tmp", b"x"),
        ("src/deep/z.c", b"x"),
        ("src/deep/tmp1.c", b"x"),
        ("docs/.ignore", b"!notes.md\n"),
        ("docs/notes.md", b"x"),
        ("docs/x.log", b"x"),
    ];
    for (p, c) in files {
        let f = root.join(p);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, c).unwrap();
    }
    let ws = Workspace::new(&root).unwrap();
    let dir = resolve_dir(&ws, None).unwrap();
    for include_hidden in [false, true] {
        for glob in [None, Some("*.log"), Some("*.c")] {
            let ov = || {
                glob.map(|g| {
                    let mut ob = OverrideBuilder::new(&root);
                    ob.add(g).unwrap();
                    ob.build().unwrap()
                })
            };
            let mut theirs = WalkBuilder::new(&root);
            theirs
                .standard_filters(true)
                .hidden(!include_hidden)
                .parents(false)
                .git_global(false)
                .require_git(false)
                .follow_links(false)
                .filter_entry(|e| e.file_name() != ".git");
            if let Some(o) = ov() {
                theirs.overrides(o);
            }
            let opts = WalkOpts {
                include_ignored: false,
                include_hidden,
                max_depth: None,
            };
            let ours = walker(&ws, &dir, opts, ov()).unwrap();
            let want = kept(&theirs, &root);
            assert_eq!(
                kept(&ours.builder, &root),
                want,
                "include_hidden {include_hidden}, glob {glob:?}"
            );
            assert!(ours.skipped_ignore_files().is_none());
            if !include_hidden && glob.is_none() {
                // What the rules above say, spelled out once.
                assert_eq!(
                    want,
                    [
                        ".github",
                        ".github/ci.yml",
                        "docs",
                        "docs/notes.md",
                        "keep.log",
                        "src",
                        "src/build",
                        "src/deep",
                        "src/deep/b.tmp",
                        "src/deep/z.c",
                        "src/drop.log",
                        "src/main.rs",
                    ]
                );
            }
        }
    }
}

/// A tree whose ignore files are hostile. Each walk answers at once, reads none of them, and names
/// each in `skipped_ignore_files`.
#[cfg(unix)]
fn hostile_tree() -> (tempfile::TempDir, String) {
    use std::os::unix::fs::symlink;
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    for (p, c) in [
        ("sub/a.txt", "needle\n".to_string()),
        ("zero/b.txt", "needle\n".to_string()),
        ("big/.gitignore", format!("c.txt\n{}", "#".repeat(1 << 20))),
        ("big/c.txt", "needle\n".to_string()),
        ("linked/d.txt", "needle\n".to_string()),
        ("rules.txt", "d.txt\n".to_string()),
        (".git/info/keep", String::new()),
    ] {
        let f = root.join(p);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, c).unwrap();
    }
    let fifo = |p: &Path| {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    };
    fifo(&root.join("sub/.gitignore"));
    fifo(&root.join(".git/info/exclude"));
    symlink("/dev/zero", root.join("zero/.ignore")).unwrap();
    symlink("../rules.txt", root.join("linked/.gitignore")).unwrap();
    let r = root.to_str().unwrap().to_string();
    (d, r)
}

#[cfg(unix)]
#[test]
fn hostile_ignore_files_are_skipped_and_named_without_blocking() {
    let (_d, root) = hostile_tree();
    let want = json!([
        {"path": ".git/info/exclude", "reason": "not_regular_file"},
        {"path": "big/.gitignore", "reason": "too_large"},
        {"path": "linked/.gitignore", "reason": "symlink"},
        {"path": "sub/.gitignore", "reason": "not_regular_file"},
        {"path": "zero/.ignore", "reason": "symlink"},
    ]);
    let limit = Duration::from_secs(5);
    let (r, t) = bounded(
        "list_directory",
        json!([".", {"workspace_root": root, "depth": 3}]),
        limit,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["skipped_ignore_files"], want, "{r}");
    assert!(t < Duration::from_secs(1), "{t:?}");
    let (f, _) = bounded(
        "find_files",
        json!(["*.txt", {"workspace_root": root}]),
        limit,
    );
    assert_eq!(
        f["files"],
        json!([
            "big/c.txt",
            "linked/d.txt",
            "rules.txt",
            "sub/a.txt",
            "zero/b.txt"
        ]),
        "{f}"
    );
    assert_eq!(f["skipped_ignore_files"], want);
    let (s, _) = bounded(
        "search_files",
        json!(["needle", {"workspace_root": root}]),
        limit,
    );
    assert_eq!(s["files_with_matches"], 4, "{s}");
    assert_eq!(s["skipped_ignore_files"], want);
    // With include_ignored no ignore file is read, so none is skipped.
    let (l, _) = bounded(
        "find_files",
        json!(["*.txt", {"workspace_root": root, "include_ignored": true}]),
        limit,
    );
    assert!(l.get("skipped_ignore_files").is_none(), "{l}");
    // Listing a subdirectory reads the root's files too (its exclude file is one of them).
    let (l, _) = bounded(
        "list_directory",
        json!(["zero", {"workspace_root": root}]),
        limit,
    );
    assert_eq!(
        l["skipped_ignore_files"],
        json!([
            {"path": ".git/info/exclude", "reason": "not_regular_file"},
            {"path": "zero/.ignore", "reason": "symlink"},
        ])
    );
}

/// `.git` as a symlink to a directory holding `info/exclude`: not followed, named; a nested
/// repository's exclude file is not read (git reads the root's only).
#[cfg(unix)]
#[test]
fn a_linked_git_directory_and_nested_excludes_are_not_read() {
    let ws = Ws::with(&[
        ("real-git/info/exclude", "a.txt\n"),
        ("a.txt", "x"),
        ("nested/.git/info/exclude", "b.txt\n"),
        ("nested/b.txt", "x"),
    ]);
    std::os::unix::fs::symlink("real-git", ws.path().join(".git")).unwrap();
    let r = run("find_files", json!(["*.txt", ws.opts(json!({}))]));
    assert_eq!(r["files"], json!(["a.txt", "nested/b.txt"]), "{r}");
    assert_eq!(
        r["skipped_ignore_files"],
        json!([{"path": ".git/info/exclude", "reason": "symlink"}])
    );
}

/// `.git` is never listed or searched: named as a path, through a symlink, in any case, or below.
#[test]
fn git_directories_are_refused_by_name_and_through_links() {
    let ws = Ws::with(&[
        (".git/config", "[core] secret\n"),
        ("a.txt", "secret\n"),
        ("sub/.git/HEAD", "secret\n"),
    ]);
    #[cfg(unix)]
    std::os::unix::fs::symlink(".git", ws.path().join("gitlink")).unwrap();
    let mut paths = vec![
        ".git",
        ".git/",
        "./.git",
        ".git/config",
        "sub/.git",
        ".GIT",
        "nope/.git",
    ];
    if cfg!(unix) {
        paths.extend(["gitlink", "gitlink/config"]);
    }
    for p in paths {
        for (op, args) in [
            ("list_directory", json!([p, ws.opts(json!({}))])),
            ("find_files", json!(["*", ws.opts(json!({"path": p}))])),
            (
                "search_files",
                json!(["secret", ws.opts(json!({"path": p}))]),
            ),
        ] {
            let r = run(op, args);
            assert_eq!(r["code"], "INVALID_INPUT", "{op} {p}: {r}");
            assert_eq!(r["reason"], "git_dir", "{op} {p}: {r}");
        }
    }
    // The walks skip them, hidden files included.
    let s = run(
        "search_files",
        json!([
            "secret",
            ws.opts(json!({"include_hidden": true, "include_ignored": true}))
        ]),
    );
    assert_eq!(
        s["results"],
        json!([{"file_path": "a.txt", "matches": [{"line_number": 1, "text": "secret"}]}]),
        "{s}"
    );
}

/// `max_file_bytes` and the line cap bound what a search reads and holds.
#[test]
fn search_honours_max_file_bytes_and_the_line_cap() {
    let long = format!(
        "{}needle\nneedle\n",
        "x".repeat(super::search::MAX_SEARCH_LINE_BYTES + 10)
    );
    let ws = Ws::with(&[
        ("small.txt", "needle\n"),
        ("big.txt", &format!("needle\n{}", "y".repeat(4000))),
        ("long.txt", &long),
        ("early.txt", &format!("needle\n{long}")),
    ]);
    let r = run(
        "search_files",
        json!(["needle", ws.opts(json!({"max_file_bytes": 3000}))]),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["files_too_large"], 3, "{r}");
    let names = |r: &serde_json::Value| {
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file_path"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&r), ["small.txt"]);
    assert!(
        r["skipped_hint"]
            .as_str()
            .unwrap()
            .contains("max_file_bytes (3000 bytes)"),
        "{r}"
    );
    let r = run("search_files", json!(["needle", ws.opts(json!({}))]));
    assert_eq!(r["files_with_overlong_lines"], 2, "{r}");
    assert!(r.get("files_too_large").is_none());
    assert!(r.get("files_unreadable").is_none());
    // The match before the overlong line is kept; the file is counted as searched.
    assert_eq!(names(&r), ["big.txt", "early.txt", "small.txt"]);
    assert_eq!(r["files_searched"], 4);
    // One file named as the path: the same limits.
    let r = run(
        "search_files",
        json!([
            "needle",
            ws.opts(json!({"path": "big.txt", "max_file_bytes": 100}))
        ]),
    );
    assert_eq!(
        (r["files_too_large"].clone(), r["files_searched"].clone()),
        (json!(1), json!(0)),
        "{r}"
    );
}

/// A `.git` that is a FIFO (the crate opened a `.git` file to follow a linked worktree's `gitdir:`)
/// or a file pointing outside the root: nothing is opened, nothing is read, the walk answers.
#[cfg(unix)]
#[test]
fn a_git_fifo_or_worktree_file_is_not_opened() {
    for kind in ["fifo", "gitfile"] {
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(outside.path().join("info")).unwrap();
        fs::write(outside.path().join("info/exclude"), "a.txt\n").unwrap();
        let ws = Ws::with(&[("a.txt", "needle\n")]);
        let git = ws.path().join(".git");
        match kind {
            "fifo" => {
                let c = std::ffi::CString::new(git.as_os_str().as_encoded_bytes()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            }
            _ => fs::write(&git, format!("gitdir: {}\n", outside.path().display())).unwrap(),
        }
        let (r, _) = bounded(
            "search_files",
            json!(["needle", ws.opts(json!({}))]),
            Duration::from_secs(5),
        );
        assert_eq!(r["files_with_matches"], 1, "{kind}: {r}");
        assert!(r.get("skipped_ignore_files").is_none(), "{kind}: {r}");
    }
}
