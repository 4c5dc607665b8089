//! Helpers shared by the tests of the JSON entry points (`*_tests.rs` beside this file): one call
//! through [`super::call`] and a temporary workspace.

use serde_json::{json, Value};
use std::fs;
use std::path::Path;

/// Runs `op` with the argument array `args` and parses the result.
pub fn run(op: &str, args: Value) -> Value {
    serde_json::from_str(&super::call(op, &args.to_string())).unwrap()
}

/// A temporary workspace, removed when dropped.
pub struct Ws {
    dir: tempfile::TempDir,
}

impl Ws {
    pub fn new() -> Ws {
        Ws {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A workspace holding `files` (`(path, content)`; parent directories are created).
    pub fn with(files: &[(&str, &str)]) -> Ws {
        let ws = Ws::new();
        for (p, c) in files {
            ws.write(p, c);
        }
        ws
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The root as the `workspace_root` option takes it.
    pub fn root(&self) -> String {
        self.dir.path().to_str().unwrap().to_string()
    }

    /// `{workspace_root}` plus the fields of `extra` (an object).
    pub fn opts(&self, extra: Value) -> Value {
        let mut o = json!({ "workspace_root": self.root() });
        if let (Value::Object(m), Value::Object(e)) = (&mut o, extra) {
            m.extend(e);
        }
        o
    }

    pub fn write(&self, p: &str, b: impl AsRef<[u8]>) {
        let path = self.dir.path().join(p);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, b).unwrap();
    }

    pub fn read(&self, p: &str) -> Vec<u8> {
        fs::read(self.dir.path().join(p)).unwrap()
    }

    pub fn read_string(&self, p: &str) -> String {
        fs::read_to_string(self.dir.path().join(p)).unwrap()
    }

    pub fn exists(&self, p: &str) -> bool {
        self.dir.path().join(p).exists()
    }
}
