#![no_main]
//! Random JSON into `surepatch::api::call` on a real (tmpfs) workspace.
//!
//! Input: one byte choosing the operation, then the payload text. `$ROOT` in the payload is replaced
//! by the workspace root, and every `workspace_root` / `workspaceRoot` string (or a missing options
//! argument, which would mean the current directory) is pointed at the workspace, so the fuzzer can
//! never edit real files through a root of its choosing; paths, edits and every other option are its
//! own.
//!
//! Invariants:
//! - no panic, and no panic caught inside either (`INTERNAL_ERROR` is a failure);
//! - the answer is a JSON object with a boolean `ok`; a refusal has a known `code` and a message;
//! - a refusal, a preview and `codes` change no file;
//! - no temp or lock file is left in the workspace after any call;
//! - a canary file outside the workspace (reachable through a symlink inside it) never changes;
//! - a write by `patch_file` / `apply_edits` changes exactly the file its receipt names, the receipt's
//!   `file_hash` and `after_bytes` describe the bytes now on disk, and for a UTF-8 file those bytes are
//!   the pure applier's result (`apply::apply_edits` on the decoded original, encoded back): the write
//!   path that sends unchanged stretches straight from the read buffer builds exactly that file.
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use surepatch::codec::Encoding;
use surepatch::ir::Edit;
use surepatch::matcher::Tolerance;

const OPS: &[&str] = &[
    "patch_file",
    "apply_edits",
    "preview_edits",
    "codes",
    "no_such_op",
];
const FILES: &[(&str, &[u8])] = &[
    (
        "a.txt",
        b"alpha\nbeta\nalpha\n    indented line\n\tfn x() {}\n",
    ),
    ("crlf.txt", b"one\r\ntwo\r\nthree\r\n"),
    ("u16.txt", b"\xff\xfeh\x00i\x00\n\x00"),
    ("bin.dat", b"a\x00b"),
    ("sub/b.txt", b"\xef\xbb\xbfbom line\r\nno newline"),
];
const CANARY: &[u8] = b"secret: must never change\n";

struct Env {
    base: PathBuf,
    root: PathBuf,
    names: Vec<String>,
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
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("a.txt", root.join("link.txt")).unwrap();
            std::os::unix::fs::symlink("../outside/secret.txt", root.join("escape.txt")).unwrap();
            std::os::unix::fs::symlink("../outside", root.join("outdir")).unwrap();
        }
        for (p, b) in FILES {
            fs::write(root.join(p), b).unwrap();
        }
        let names = listing(&root);
        Env { base, root, names }
    })
}

fn listing(root: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for d in [root.to_path_buf(), root.join("sub")] {
        for e in fs::read_dir(&d).unwrap() {
            v.push(e.unwrap().path().to_string_lossy().into_owned());
        }
    }
    v.sort();
    v
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

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let e = env();
    let root = e.root.to_string_lossy().into_owned();
    let op = OPS[sel as usize % OPS.len()];
    let text = String::from_utf8_lossy(rest);
    let root_json = serde_json::to_string(&root).unwrap();
    let mut payload = text.replace("$ROOT", &root_json[1..root_json.len() - 1]);
    if let Ok(mut v) = serde_json::from_str::<Value>(&payload) {
        point_roots(&mut v, &root);
        let opt_at = match op {
            "patch_file" => Some(1),
            "apply_edits" | "preview_edits" => Some(2),
            _ => None,
        };
        if let (Value::Array(a), Some(i)) = (&mut v, opt_at) {
            while a.len() <= i {
                a.push(Value::Null);
            }
            match &mut a[i] {
                Value::Null => a[i] = serde_json::json!({ "workspace_root": root }),
                Value::Object(m)
                    if !m.contains_key("workspace_root") && !m.contains_key("workspaceRoot") =>
                {
                    m.insert("workspace_root".into(), Value::String(root.clone()));
                }
                _ => {}
            }
        }
        payload = v.to_string();
    }

    let parsed: Option<Value> = serde_json::from_str(&payload).ok();
    let out = surepatch::api::call(op, &payload);

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
        assert_ne!(code, "INTERNAL_ERROR", "caught panic: {out}");
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
    assert_eq!(
        fs::read(e.base.join("outside/secret.txt")).unwrap(),
        CANARY,
        "wrote outside the workspace: {payload}"
    );
    assert_eq!(
        listing(&e.root),
        e.names,
        "files appeared or vanished: {payload} -> {out}"
    );
    let must_be_unchanged = !ok || op == "preview_edits" || op == "codes";
    let mut changed = Vec::new();
    for (p, b) in FILES {
        let path = e.root.join(p);
        let now = fs::read(&path).unwrap();
        if now != *b {
            assert!(
                !must_be_unchanged,
                "{p} changed by a refusal or preview: {payload} -> {out}"
            );
            changed.push((*p, *b, now));
            fs::write(&path, b).unwrap();
        }
    }
    if ok && (op == "patch_file" || op == "apply_edits") && v["written"] == true {
        let [(p, before, now)] = &changed[..] else {
            panic!(
                "a write changed {} files: {payload} -> {out}",
                changed.len()
            );
        };
        assert_eq!(v["file_path"], *p, "{payload} -> {out}");
        assert_eq!(v["file_hash"], surepatch::hash::file_hash(now), "{out}");
        assert_eq!(v["after_bytes"], now.len(), "{out}");
        if let Some((edits, tol)) = parsed.as_ref().and_then(|a| edits_of(op, a)) {
            let (text, encoding) = surepatch::codec::decode_slice(before).unwrap();
            if matches!(encoding, Encoding::Utf8 | Encoding::Utf8Bom) {
                let applied = surepatch::apply::apply_edits(&text, &edits, tol)
                    .unwrap_or_else(|f| panic!("the engine wrote what the applier refuses: {f:?}"));
                let expected = surepatch::codec::encode(applied.text, encoding);
                assert!(
                    *now == expected,
                    "{p} on disk is not the applier's result: {payload} -> {out}"
                );
            }
        }
    }
});

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
