#![no_main]
//! Random JSON into `surepatch::api::call`, every operation, on a real (tmpfs) workspace.
//!
//! Input: up to [`MAX_CALLS`] calls separated by the byte 0x1E; each call is one byte choosing the
//! operation ([`OPS`], modulo its length) and the payload text. In the payload, `$ROOT` is replaced by
//! the workspace root, `$EDIT` by the last `edit_id` an earlier call of the same input returned (so a
//! write can be undone), and `$HASH` by the last `file_hash` an earlier call returned (so a read can
//! feed a `base_hash`). Every `workspace_root` / `workspaceRoot` string, and a missing options argument
//! (which would mean the current directory), is pointed at the workspace, so the fuzzer can never
//! reach real files through a root of its choosing; paths, edits, journal directories and every other
//! option are its own. `set_event_log` (it writes a log wherever it is told) and `__test_panic` are
//! not called.
//!
//! The workspace holds UTF-8, CRLF, CR, UTF-16, binary, BOM, empty, executable and Python files,
//! symlinks to a file and a directory inside it, and symlinks to a canary file and directory outside
//! it. After every call the whole tree (both sides) is compared with the tree before the call
//! (kind, bytes, mode, link target of every entry). Invariants, per call:
//! - no panic, and no panic caught inside either (`INTERNAL_ERROR` is a failure);
//! - the answer is a JSON object with a boolean `ok`; a refusal has a known `code` and a message;
//! - a refusal (`ok: false`), a dry run or preview (`written: false`) and every reading operation
//!   change nothing at all;
//! - nothing outside the workspace ever changes (the canary);
//! - a write changes only the files its receipt names (`file_path`, `moved_to`, `files[].file_path`,
//!   `files[].moved_to`; `path` for `create_directory`), plus new directories that hold them and, when
//!   the call names a `journal_dir`, journal entries (`<edit_id>/...`) — so no temp or lock file is
//!   ever left; the single-file writes change exactly their one file;
//! - every file a receipt names is as the receipt says: with `file_hash` null (a delete, the source of a
//!   move, an undone creation) it is gone; otherwise its bytes hash to `file_hash` and number
//!   `after_bytes`; a rewritten file keeps its mode;
//! - for a UTF-8 file, the bytes `patch_file` / `apply_edits` write are the pure applier's result
//!   (`apply::apply_edits` on the decoded original, encoded back);
//! - `view_file` and `touched_files` report the `file_hash` of the bytes on disk;
//! - an `undo_edit` of the input's last write, with nothing changed since, leaves every file it names
//!   exactly (bytes and mode) as it was before that write.
//!
//! After each input the tree is put back as it was (only the entries that differ are rewritten), so
//! runs are independent and cheap; only the engine's in-memory undo journal outlives an input.
//! `SUREPATCH_FUZZ_TRACE=1` in the environment prints every call and its answer.
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use surepatch::edit::ir::Edit;
use surepatch::edit::matcher::Tolerance;
use surepatch::fs::codec::Encoding;

/// The operations, with the index of their options argument (`None`: none, or one without a root).
/// The order is the selector's meaning: append, never reorder (the corpus depends on it). Names the
/// engine does not know yet are refused as unknown operations (they land on other branches).
const OPS: &[(&str, Option<usize>)] = &[
    ("patch_file", Some(1)),
    ("apply_edits", Some(2)),
    ("preview_edits", Some(2)),
    ("codes", None),
    ("no_such_op", None),
    ("apply_patch", Some(1)),
    ("apply_blocks", Some(1)),
    ("apply_unified_diff", Some(1)),
    ("edit_lines", Some(2)),
    ("create_file", Some(2)),
    ("write_file", Some(2)),
    ("delete_file", Some(1)),
    ("undo_edit", Some(1)),
    ("view_file", Some(1)),
    ("touched_files", None),
    ("permission_scope", Some(1)),
    ("parse_blocks", None),
    ("parse_path_blocks", None),
    ("get_stats", None),
    ("list_directory", Some(1)),
    ("find_files", Some(1)),
    ("search_files", Some(1)),
    ("read_many_files", Some(1)),
    ("move_file", Some(2)),
    ("create_directory", Some(1)),
    ("create_checkpoint", Some(0)),
    ("restore_checkpoint", Some(1)),
    ("list_checkpoints", Some(0)),
    ("merge_snippet", Some(1)),
    ("list_symbols", Some(1)),
    ("edit_symbol", Some(1)),
];

/// Operations that may write (when `ok` and not `written: false`).
const WRITERS: &[&str] = &[
    "patch_file",
    "apply_edits",
    "apply_patch",
    "apply_blocks",
    "apply_unified_diff",
    "edit_lines",
    "create_file",
    "write_file",
    "delete_file",
    "undo_edit",
    "move_file",
    "create_directory",
    "create_checkpoint",
    "restore_checkpoint",
    "merge_snippet",
    "edit_symbol",
];

/// Writers that change exactly one file when they succeed.
const SINGLE: &[&str] = &[
    "patch_file",
    "apply_edits",
    "edit_lines",
    "create_file",
    "write_file",
    "delete_file",
    "merge_snippet",
    "edit_symbol",
];

/// Most calls in one input.
const MAX_CALLS: usize = 4;

/// The workspace's regular files: path, bytes, mode.
const FILES: &[(&str, &[u8], u32)] = &[
    (
        "a.txt",
        b"alpha\nbeta\nalpha\n    indented line\n\tfn x() {}\n",
        0o644,
    ),
    ("crlf.txt", b"one\r\ntwo\r\nthree\r\n", 0o644),
    ("u16.txt", b"\xff\xfeh\x00i\x00\n\x00", 0o644),
    ("bin.dat", b"a\x00b", 0o644),
    ("sub/b.txt", b"\xef\xbb\xbfbom line\r\nno newline", 0o644),
    ("empty.txt", b"", 0o644),
    ("cr.txt", b"first\rsecond\rthird", 0o600),
    ("run.sh", b"#!/bin/sh\necho hi\n", 0o755),
    ("m.py", b"def f(x):\n    return x + 1\n", 0o644),
];
/// Symlinks inside the workspace: link, target.
const LINKS: &[(&str, &str)] = &[
    ("link.txt", "a.txt"),
    ("sublink", "sub"),
    ("escape.txt", "../outside/secret.txt"),
    ("outdir", "../outside"),
];
const CANARY: &[u8] = b"secret: must never change\n";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir,
    File(Vec<u8>, u32),
    Link(PathBuf),
}

/// Every entry under the base directory (`ws/...` and `outside/...`), symlinks not followed.
type Tree = BTreeMap<String, Node>;

struct Env {
    base: PathBuf,
    root_str: String,
    initial: Tree,
}

fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let tmp = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let base = tmp.join(format!("surepatch-fuzz-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let root = base.join("ws");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("outside/secret.txt"), CANARY).unwrap();
        for (p, b, mode) in FILES {
            let path = root.join(p);
            fs::write(&path, b).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(*mode)).unwrap();
        }
        for (l, t) in LINKS {
            std::os::unix::fs::symlink(t, root.join(l)).unwrap();
        }
        let initial = tree(&base);
        let root_str = root.to_string_lossy().into_owned();
        Env {
            base,
            root_str,
            initial,
        }
    })
}

/// `SUREPATCH_FUZZ_TRACE=1` prints every call and its answer (to see what the seeds do).
fn trace() -> bool {
    static T: OnceLock<bool> = OnceLock::new();
    *T.get_or_init(|| std::env::var_os("SUREPATCH_FUZZ_TRACE").is_some())
}

fn tree(base: &Path) -> Tree {
    fn walk(dir: &Path, rel: &str, out: &mut Tree) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let path = e.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let t = meta.file_type();
            if t.is_symlink() {
                out.insert(rel, Node::Link(fs::read_link(&path).unwrap()));
            } else if t.is_dir() {
                out.insert(rel.clone(), Node::Dir);
                walk(&path, &rel, out);
            } else {
                let mode = meta.permissions().mode() & 0o7777;
                out.insert(rel, Node::File(fs::read(&path).unwrap(), mode));
            }
        }
    }
    let mut out = Tree::new();
    walk(base, "", &mut out);
    out
}

/// Puts the tree back as `want`, touching only what differs from `now`.
fn restore(base: &Path, want: &Tree, now: &Tree) {
    for (p, _) in now.iter().rev().filter(|(p, _)| !want.contains_key(*p)) {
        let path = base.join(p);
        let _ = fs::remove_file(&path).or_else(|_| fs::remove_dir_all(&path));
    }
    for (p, n) in want {
        if now.get(p) == Some(n) {
            continue;
        }
        let path = base.join(p);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() && *n != Node::Dir => fs::remove_dir_all(&path).unwrap(),
            Ok(m) if !m.is_dir() => fs::remove_file(&path).unwrap(),
            _ => {}
        }
        match n {
            Node::Dir => {
                let _ = fs::create_dir(&path);
            }
            Node::File(b, mode) => {
                fs::write(&path, b).unwrap();
                fs::set_permissions(&path, fs::Permissions::from_mode(*mode)).unwrap();
            }
            Node::Link(t) => std::os::unix::fs::symlink(t, &path).unwrap(),
        }
    }
}

fn point_roots(v: &mut Value, root: &str) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "workspace_root" || k == "workspaceRoot" {
                    if matches!(x, Value::String(s) if !s.is_empty()) {
                        *x = Value::String(root.to_string());
                    }
                } else {
                    point_roots(x, root);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| point_roots(x, root)),
        _ => {}
    }
}

/// Gives the options argument at `at` a workspace root when it has none.
fn add_root(args: &mut Value, at: Option<usize>, root: &str) {
    let (Value::Array(a), Some(i)) = (args, at) else {
        return;
    };
    while a.len() <= i {
        a.push(Value::Null);
    }
    match &mut a[i] {
        Value::Null => a[i] = serde_json::json!({ "workspace_root": root }),
        Value::Object(m)
            if !m.contains_key("workspace_root") && !m.contains_key("workspaceRoot") =>
        {
            m.insert("workspace_root".into(), Value::String(root.to_string()));
        }
        _ => {}
    }
}

fn options_at(op: &str) -> Option<usize> {
    OPS.iter()
        .find(|(o, _)| *o == op)
        .map_or(Some(1), |(_, i)| *i)
}

/// Whether `v` names a journal directory anywhere.
fn has_journal_dir(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, x)| k == "journal_dir" || k == "journalDir" || has_journal_dir(x)),
        Value::Array(a) => a.iter().any(has_journal_dir),
        _ => false,
    }
}

/// Whether the workspace entry `rel` (relative to the root) is inside a journal entry directory, or
/// is a checkpoint kept in a journal directory (`<checkpoint_id>.checkpoint.json`).
fn in_journal_entry(rel: &str) -> bool {
    rel.split('/').any(|c| {
        surepatch::fs::ids::is_edit_id(c)
            || c.strip_suffix(".checkpoint.json")
                .is_some_and(surepatch::fs::checkpoint::is_checkpoint_id)
    })
}

/// The last `edit_id` and `file_hash` strings in an answer.
fn remember(v: &Value, edit: &mut Option<String>, hash: &mut Option<String>) {
    if let Some(s) = v.get("edit_id").and_then(Value::as_str) {
        *edit = Some(s.to_string());
    }
    for key in ["files", "targets"] {
        for f in v.get(key).and_then(Value::as_array).into_iter().flatten() {
            if let Some(s) = f.get("file_hash").and_then(Value::as_str) {
                *hash = Some(s.to_string());
            }
        }
    }
    if let Some(s) = v.get("file_hash").and_then(Value::as_str) {
        *hash = Some(s.to_string());
    }
}

fuzz_target!(|data: &[u8]| {
    let e = env();
    let mut before = e.initial.clone();
    let (mut edit, mut hash) = (None, None);
    // The last write of this input (its edit_id and the tree before it), while nothing else changed.
    let mut last_write: Option<(String, Tree)> = None;
    for call in data.split(|&b| b == 0x1e).take(MAX_CALLS) {
        let Some((&sel, rest)) = call.split_first() else {
            continue;
        };
        let op = OPS[sel as usize % OPS.len()].0;
        let (after, v) = one_call(e, op, rest, &before, &mut edit, &mut hash);
        let id = v.get("edit_id").and_then(Value::as_str).map(str::to_string);
        if op == "undo_edit" && v["ok"] == true {
            if let Some((written, was)) = last_write.take().filter(|(w, _)| id.as_ref() == Some(w))
            {
                check_undo(&v, &was, &after, &written);
            }
        } else if v["ok"] == true && WRITERS.contains(&op) && id.is_some() {
            last_write = id.map(|i| (i, before.clone()));
        } else if after != before {
            last_write = None;
        }
        before = after;
    }
    if before != e.initial {
        restore(&e.base, &e.initial, &before);
        debug_assert_eq!(tree(&e.base), e.initial);
    }
});

/// An undo of the write just before it put back exactly what that write found: every file the undo
/// names is, bytes and mode, as it was before the write (gone if it did not exist).
fn check_undo(v: &Value, was: &Tree, now: &Tree, id: &str) {
    for f in v["files"].as_array().expect("an undo lists its files") {
        let p = format!("ws/{}", f["file_path"].as_str().expect("a file_path"));
        assert!(
            was.get(&p) == now.get(&p),
            "undo of {id} left {p} other than before the write: {v}"
        );
    }
}

/// Runs one call, checks every invariant against the tree `before` it, and returns the tree after it
/// and the answer.
fn one_call(
    e: &Env,
    op: &str,
    rest: &[u8],
    before: &Tree,
    edit: &mut Option<String>,
    hash: &mut Option<String>,
) -> (Tree, Value) {
    let root = e.root_str.as_str();
    let text = String::from_utf8_lossy(rest);
    let root_json = serde_json::to_string(root).unwrap();
    let mut payload = text.replace("$ROOT", &root_json[1..root_json.len() - 1]);
    if payload.contains("$EDIT") {
        let id = edit.as_deref().unwrap_or("e000000000000000000000a");
        payload = payload.replace("$EDIT", id);
    }
    if payload.contains("$HASH") {
        payload = payload.replace("$HASH", hash.as_deref().unwrap_or("0000000000000000"));
    }
    if let Ok(mut v) = serde_json::from_str::<Value>(&payload) {
        point_roots(&mut v, root);
        add_root(&mut v, options_at(op), root);
        if op == "touched_files" {
            if let Value::Array(a) = &mut v {
                if let [Value::String(inner), call, ..] = &mut a[..] {
                    add_root(call, options_at(inner), root);
                }
            }
        }
        payload = v.to_string();
    }

    let parsed: Option<Value> = serde_json::from_str(&payload).ok();
    let out = surepatch::api::call(op, &payload);
    let ctx = || format!("{op} {payload} -> {out}");
    if trace() {
        eprintln!("{op} {payload}\n  -> {out}");
    }

    let v: Value = serde_json::from_str(&out).expect("the answer is JSON");
    let ok = v
        .get("ok")
        .and_then(Value::as_bool)
        .expect("the answer has a boolean ok");
    if !ok {
        let code = v
            .get("code")
            .and_then(Value::as_str)
            .expect("a refusal has a code");
        assert_ne!(code, "INTERNAL_ERROR", "caught panic: {}", ctx());
        assert!(
            surepatch::error::Code::ALL
                .iter()
                .any(|c| c.as_str() == code),
            "unknown code {code}"
        );
        assert!(v
            .get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| !m.is_empty()));
    }
    remember(&v, edit, hash);

    let after = tree(&e.base);
    let changed: BTreeSet<&str> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .map(String::as_str)
        .collect();
    for p in &changed {
        assert!(
            p.starts_with("ws/"),
            "changed {p} outside the workspace: {}",
            ctx()
        );
    }
    let writes = ok && WRITERS.contains(&op) && v.get("written") != Some(&Value::Bool(false));
    if !writes {
        // Not even the directories a failed create made (README finding 5).
        assert!(
            changed.is_empty(),
            "a refusal, a dry run or a read changed {changed:?}: {}",
            ctx()
        );
    } else {
        check_write(op, &v, parsed.as_ref(), before, &after, &changed, &ctx);
    }
    if ok && op == "view_file" {
        let p = v["file_path"].as_str().expect("view_file names its file");
        let Some(Node::File(b, _)) = after.get(&format!("ws/{p}")) else {
            panic!("view_file named {p}, which is not a file: {}", ctx());
        };
        assert_eq!(
            v["file_hash"],
            surepatch::edit::hash::file_hash(b),
            "{}",
            ctx()
        );
    }
    if ok && op == "touched_files" {
        for t in v["targets"]
            .as_array()
            .expect("touched_files lists targets")
        {
            if let (Some(d), Some(h)) = (t["display"].as_str(), t["file_hash"].as_str()) {
                let Some(Node::File(b, _)) = after.get(&format!("ws/{d}")) else {
                    panic!("touched_files hashed {d}, which is not a file: {}", ctx());
                };
                assert_eq!(h, surepatch::edit::hash::file_hash(b), "{}", ctx());
            }
        }
    }
    (after, v)
}

/// A receipt's claim about one path: gone (`None`), or bytes with this hash (and maybe this size).
struct Claim {
    path: String,
    hash: Option<String>,
    bytes: Option<u64>,
}

fn claims_of(op: &str, v: &Value, ctx: &dyn Fn() -> String) -> Vec<Claim> {
    let mut out = Vec::new();
    let mut entry = |f: &Value| {
        let Some(p) = f.get("file_path").and_then(Value::as_str) else {
            panic!("a receipt entry names no file_path: {}", ctx());
        };
        let hash = f.get("file_hash").and_then(Value::as_str).map(String::from);
        let bytes = f.get("after_bytes").and_then(Value::as_u64);
        match f.get("moved_to").and_then(Value::as_str) {
            Some(to) => {
                out.push(Claim {
                    path: p.to_string(),
                    hash: None,
                    bytes: None,
                });
                out.push(Claim {
                    path: to.to_string(),
                    hash,
                    bytes,
                });
            }
            None => out.push(Claim {
                path: p.to_string(),
                hash,
                bytes,
            }),
        }
    };
    if op == "create_directory" {
        return Vec::new();
    }
    match v.get("files").and_then(Value::as_array) {
        Some(files) => files.iter().for_each(&mut entry),
        None => entry(v),
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn check_write(
    op: &str,
    v: &Value,
    parsed: Option<&Value>,
    before: &Tree,
    after: &Tree,
    changed: &BTreeSet<&str>,
    ctx: &dyn Fn() -> String,
) {
    let claims = claims_of(op, v, ctx);
    let mut named: BTreeSet<String> = BTreeSet::new();
    for c in &claims {
        let key = format!("ws/{}", c.path);
        assert!(
            named.insert(key.clone()),
            "the receipt names {} twice: {}",
            c.path,
            ctx()
        );
        match (&c.hash, after.get(&key)) {
            (None, None) => {}
            (None, Some(n)) => panic!("{} should be gone, is {n:?}: {}", c.path, ctx()),
            (Some(h), Some(Node::File(b, mode))) => {
                assert_eq!(
                    *h,
                    surepatch::edit::hash::file_hash(b),
                    "file_hash: {}",
                    ctx()
                );
                if let Some(n) = c.bytes {
                    assert_eq!(n, b.len() as u64, "after_bytes: {}", ctx());
                }
                if let Some(Node::File(_, m)) = before.get(&key) {
                    assert_eq!(m, mode, "{} lost its mode: {}", c.path, ctx());
                }
            }
            (Some(_), n) => panic!("{} should be a file, is {n:?}: {}", c.path, ctx()),
        }
    }
    let dirs: Vec<String> = match (op, v.get("path").and_then(Value::as_str)) {
        ("create_directory", Some(p)) => vec![format!("ws/{p}")],
        _ => Vec::new(),
    };
    let journal = parsed.is_some_and(has_journal_dir);
    // New directories are allowed when they hold a named file, a named directory or a journal entry.
    let holds =
        |d: &str, p: &str| p.len() > d.len() && p.starts_with(d) && p.as_bytes()[d.len()] == b'/';
    for p in changed {
        // Journal entries only when one was written: a `journal_warning` (the entry failed) leaves
        // nothing of it, not even the directories made for it (README finding 5).
        let is_journal = journal && v.get("journal_warning").is_none() && in_journal_entry(&p[3..]);
        let ok = named.contains(*p)
            || dirs.iter().any(|d| d == p)
            || is_journal
            || (before.get(*p).is_none()
                && after.get(*p) == Some(&Node::Dir)
                && (named.iter().chain(&dirs).any(|n| holds(p, n))
                    || (journal
                        && changed
                            .iter()
                            .any(|c| holds(p, c) && in_journal_entry(&c[3..])))));
        assert!(
            ok,
            "{p} changed, but the receipt does not name it: {}",
            ctx()
        );
    }
    if SINGLE.contains(&op) {
        let files: Vec<&&str> = changed
            .iter()
            .filter(|p| {
                !(journal && in_journal_entry(&p[3..])) && after.get(**p) != Some(&Node::Dir)
            })
            .collect();
        assert_eq!(
            files.len(),
            1,
            "a single-file write changed {files:?}: {}",
            ctx()
        );
    }
    if op == "patch_file" || op == "apply_edits" {
        let p = &claims[0].path;
        let key = format!("ws/{p}");
        let (Some(Node::File(old, _)), Some(Node::File(now, _))) =
            (before.get(&key), after.get(&key))
        else {
            panic!("{p} is not a file before and after an edit: {}", ctx());
        };
        if let Some((edits, tol)) = parsed.and_then(|a| edits_of(op, a)) {
            let (text, encoding) = surepatch::fs::codec::decode_slice(old).unwrap();
            if matches!(encoding, Encoding::Utf8 | Encoding::Utf8Bom) {
                let applied = surepatch::edit::apply::apply_edits(&text, &edits, tol)
                    .unwrap_or_else(|f| panic!("the engine wrote what the applier refuses: {f:?}"));
                let expected = surepatch::fs::codec::encode(applied.text, encoding);
                assert!(
                    *now == expected,
                    "{p} on disk is not the applier's result: {}",
                    ctx()
                );
            }
        }
    }
}

/// The edits and tolerance of a successful `patch_file` / `apply_edits` call, read back from its
/// arguments (`None` if they take a form this reader does not know).
fn edits_of(op: &str, args: &Value) -> Option<(Vec<Edit>, Tolerance)> {
    let s = |v: &Value, keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k)?.as_str().map(String::from))
    };
    let (edits, opts) = if op == "patch_file" {
        let input = args.get(0)?;
        let old = s(input, &["search_block", "searchBlock"])?;
        let new = s(input, &["replace_block", "replaceBlock"])?;
        (vec![Edit::new(old, new)], args.get(1))
    } else {
        let mut edits = Vec::new();
        for e in args.get(1)?.as_array()? {
            edits.push(match e {
                Value::Array(pair) => Edit::new(pair.first()?.as_str()?, pair.get(1)?.as_str()?),
                _ => Edit {
                    old: s(e, &["old", "old_string", "oldString", "search"])?,
                    new: s(e, &["new", "new_string", "newString", "replace"])?,
                    expected_replacements: ["expected_replacements", "expectedReplacements"]
                        .iter()
                        .find_map(|k| e.get(*k)?.as_u64())
                        .map(|n| n as usize),
                },
            });
        }
        (edits, args.get(2))
    };
    let tol = match opts
        .and_then(|o| o.get("tolerance"))
        .and_then(Value::as_str)
    {
        Some("exact") => Tolerance::Exact,
        _ => Tolerance::Safe,
    };
    Some((edits, tol))
}
