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
//! - a canary file outside the workspace (reachable through a symlink inside it) never changes.
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

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
    for (p, b) in FILES {
        let path = e.root.join(p);
        let now = fs::read(&path).unwrap();
        if now != *b {
            assert!(
                !must_be_unchanged,
                "{p} changed by a refusal or preview: {payload} -> {out}"
            );
            fs::write(&path, b).unwrap();
        }
    }
});
