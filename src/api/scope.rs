//! `permissionScope(input)`: every path an edit set touches, relative to the workspace root, and the
//! narrowest glob that covers them — for harnesses that ask a user to "always allow" edits somewhere.
//! Nothing is read or written; paths are only resolved through the sandbox.

use super::args::bad;
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, PermissionScopeSuccess, True};
use crate::edit::formats;
use crate::edit::ir::FileOp;
use crate::error::{Code, Failure};
use crate::fs::workspace::{Resolve, Workspace};

fn parse_error(e: crate::edit::ir::ParseError) -> Failure {
    Failure::new(Code::ParseError, format!("line {}: {}", e.line, e.message)).with("line", e.line)
}

/// The paths named by `text`: an `apply_patch` envelope, a unified diff, or SEARCH/REPLACE path blocks.
fn paths_in_text(text: &str) -> Result<Vec<String>, Failure> {
    let ops_paths = |ops: Vec<FileOp>| -> Vec<String> {
        ops.into_iter()
            .flat_map(|op| match op {
                FileOp::Update {
                    path,
                    move_to: Some(to),
                    ..
                } => vec![path, to],
                other => vec![other.path().to_string()],
            })
            .collect()
    };
    if text.contains("*** Begin Patch") {
        return formats::parse_patch(text)
            .map(ops_paths)
            .map_err(parse_error);
    }
    if text.contains("<<<<<<< SEARCH") {
        return formats::parse_path_blocks(text)
            .map(|v| v.into_iter().map(|(p, _)| p).collect())
            .map_err(parse_error);
    }
    if text
        .lines()
        .any(|l| l.starts_with("--- ") || l.starts_with("diff --git "))
    {
        return formats::parse_unified_diff(text)
            .map(ops_paths)
            .map_err(parse_error);
    }
    Err(bad("input text is neither an apply_patch envelope, SEARCH/REPLACE path blocks, nor a unified diff."))
}

/// The longest common directory of workspace-relative paths, by components, as a glob.
pub fn common_glob(paths: &[String]) -> String {
    let dirs: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            let mut parts: Vec<&str> = p
                .split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect();
            parts.pop();
            parts
        })
        .collect();
    let Some(first) = dirs.first() else {
        return "**".into();
    };
    let mut n = first.len();
    for d in &dirs[1..] {
        n = n.min(first.iter().zip(d).take_while(|(a, b)| a == b).count());
    }
    if n == 0 {
        "**".into()
    } else {
        format!("{}/**", first[..n].join("/"))
    }
}

pub fn permission_scope(a: i::PermissionScopeArgs) -> Res {
    let raw: Vec<String> = match a.input {
        i::ScopeInput::Paths(p) => p,
        i::ScopeInput::Text(text) => paths_in_text(&text)?,
    };
    if raw.is_empty() {
        return Err(bad("input names no paths."));
    }
    let root = super::options::root(&a.options.unwrap_or_default())?;
    let ws = Workspace::new(&root)?;
    let mut paths = Vec::with_capacity(raw.len());
    for p in &raw {
        let r = ws.resolve(p, Resolve::MayCreate)?;
        paths.push(r.display);
    }
    paths.sort();
    paths.dedup();
    Ok(to_value(&PermissionScopeSuccess {
        ok: True,
        glob: common_glob(&paths),
        paths,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn g(p: &[&str]) -> String {
        common_glob(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn globs_by_components() {
        assert_eq!(g(&["src/foo.ts"]), "src/**");
        assert_eq!(g(&["src/a.ts", "src/b.ts"]), "src/**");
        assert_eq!(g(&["src/a.ts", "lib/b.ts"]), "**");
        assert_eq!(g(&["src/ab.ts", "src/abc/x.ts"]), "src/**");
        assert_eq!(g(&["src/ab/x.ts", "src/abc/y.ts"]), "src/**");
        assert_eq!(g(&["a/b/c.ts", "a/b/d/e.ts"]), "a/b/**");
        assert_eq!(g(&["top.ts"]), "**");
    }

    #[test]
    fn scope_from_texts_and_lists() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_str().unwrap();
        let call = |input: serde_json::Value| {
            permission_scope(crate::contract::read::read_args(&[
                input,
                json!({"workspace_root": root}),
            ])?)
        };
        let r = call(json!(["src/a.ts", "src/sub/b.ts"])).unwrap();
        assert_eq!(r["glob"], "src/**");
        assert_eq!(r["paths"], json!(["src/a.ts", "src/sub/b.ts"]));
        let patch = "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/old.ts\n*** Move to: lib/old.ts\n@@\n-a\n+b\n*** End Patch\n";
        let r = call(json!(patch)).unwrap();
        assert_eq!(
            r["paths"],
            json!(["lib/old.ts", "src/new.ts", "src/old.ts"])
        );
        assert_eq!(r["glob"], "**");
        let blocks = "src/x.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n";
        assert_eq!(call(json!(blocks)).unwrap()["glob"], "src/**");
        assert_eq!(
            call(json!(["../x"])).unwrap_err().code,
            Code::PathOutsideWorkspace
        );
        assert_eq!(
            call(json!("*** Begin Patch\n*** Bogus\n"))
                .unwrap_err()
                .code,
            Code::ParseError
        );
        assert_eq!(call(json!(5)).unwrap_err().code, Code::InvalidInput);
        assert!(!d.path().join("src").exists(), "nothing is created");
    }
}
