//! `touchedFiles(op, args)`: the files a call of operation `op` with arguments `args` would touch, as
//! the engine itself sees them — for hosts that gate writes (the MCP server's read-before-edit mode).
//!
//! For `apply_patch`, `apply_unified_diff` and `apply_blocks` the answer is the operation itself,
//! stopped once every path is parsed, chosen among its spellings and resolved ([`super::patch::touched`]);
//! for the single-file operations it is their path argument through the same sandbox
//! ([`Workspace::resolve`]). So no spelling the engine accepts (a symlinked directory followed by `..`,
//! odd whitespace or decoration around a path, `./` prefixes, absolute paths inside the root, a diff
//! header naming no file) names a different file here than in the write. Nothing is written; an
//! existing file is read only to report its `file_hash`.
//!
//! Each target is `{path, display, exists, file_hash, role, op_index}`:
//! - `path`: as the operation reads it (the key of the multi-file operations' `base_hashes`);
//! - `display`: the workspace-relative path of the real file (symlinks resolved), the same string the
//!   operation's result reports as `file_path`;
//! - `file_hash`: the hash of the bytes on disk now (null for a missing file, or one that cannot be
//!   read within `max_file_bytes`);
//! - `role`: `"file"` (single-file operations), `"source"` (the file an operation of a patch reads,
//!   changes or deletes, or the file `move_file` moves) or `"move_target"` (where a `*** Move to:` or
//!   `move_file` writes).
//!
//! A call the operation would refuse for its paths (parse error, path outside the workspace, …) is
//! refused here with the same code. For `undo_edit` the targets are the files of the journaled edit
//! the undo would revert (role `"file"`, `path` = `display`), found as the undo finds it (by id or
//! by path, within `only_edit_ids` when given); no such edit is `EDIT_NOT_FOUND`, as in the undo.

use serde_json::Value;

use super::args::bad;
use super::options::{root, DEFAULT_MAX_FILE_BYTES};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::read::read_args;
use crate::contract::receipts::{to_value, TouchedFile, TouchedFilesSuccess, True};
use crate::edit::hash::file_hash;
use crate::error::Result;
use crate::fs::fsio::{Deadline, LockedFile, Sandbox};
use crate::fs::workspace::{Resolve, Workspace};

/// What `touchedFiles` needs of a call: the paths it names outright (with their roles; `None` for
/// the calls that find their files by running: the patch formats and undo), the workspace option and
/// `max_file_bytes`. The call's arguments are read as the operation reads them.
struct Named {
    paths: Option<Vec<(String, &'static str)>>,
    root: i::WorkspaceOption,
    max_file_bytes: Option<u64>,
}

fn named(op: &str, args: &[Value]) -> Result<Named> {
    fn edit(paths: Vec<(String, &'static str)>, o: Option<i::EditOptions>) -> Named {
        let o = o.unwrap_or_default().write;
        Named {
            paths: Some(paths),
            root: o.root,
            max_file_bytes: o.max_file_bytes,
        }
    }
    fn patch(o: i::PatchOptions) -> Named {
        Named {
            paths: None,
            root: o.write.root,
            max_file_bytes: o.write.max_file_bytes,
        }
    }
    let file = |p: String| vec![(p, "file")];
    Ok(match op {
        "move_file" => {
            let a: i::MoveFileArgs = read_args(args)?;
            let paths = vec![(a.from_path, "source"), (a.to_path, "move_target")];
            edit(paths, a.options.map(|o| o.edit))
        }
        "view_file" => {
            let a: i::ViewFileArgs = read_args(args)?;
            let o = a.options.unwrap_or_default();
            Named {
                paths: Some(file(a.file_path)),
                root: o.root,
                max_file_bytes: o.max_file_bytes,
            }
        }
        "delete_file" => {
            let a: i::DeleteFileArgs = read_args(args)?;
            edit(file(a.file_path), a.options)
        }
        "apply_edits" | "preview_edits" => {
            let a: i::ApplyEditsArgs = read_args(args)?;
            edit(file(a.file_path), a.options.map(|o| o.edit))
        }
        "edit_lines" => {
            let a: i::EditLinesArgs = read_args(args)?;
            edit(file(a.file_path), a.options)
        }
        "create_file" => {
            let a: i::CreateFileArgs = read_args(args)?;
            edit(file(a.file_path), a.options.map(|o| o.write.edit))
        }
        "write_file" => {
            let a: i::WriteFileArgs = read_args(args)?;
            edit(file(a.file_path), a.options.map(|o| o.edit))
        }
        "patch_file" => {
            let a: i::PatchFileArgs = read_args(args)?;
            edit(file(a.input.file_path), a.options.map(|o| o.edit))
        }
        "edit_symbol" => {
            let a: i::EditSymbolArgs = read_args(args)?;
            edit(file(a.input.file_path), a.options)
        }
        "merge_snippet" => {
            let a: i::MergeSnippetArgs = read_args(args)?;
            edit(file(a.input.file_path), a.options)
        }
        "apply_patch" => patch(
            read_args::<i::ApplyPatchArgs>(args)?
                .options
                .unwrap_or_default(),
        ),
        "apply_unified_diff" => {
            let a: i::ApplyUnifiedDiffArgs = read_args(args)?;
            patch(a.options.unwrap_or_default().patch)
        }
        "apply_blocks" => {
            let a: i::ApplyBlocksArgs = read_args(args)?;
            patch(a.options.unwrap_or_default().patch)
        }
        "undo_edit" => {
            let a: i::UndoEditArgs = read_args(args)?;
            let o = a.options.unwrap_or_default();
            Named {
                paths: None,
                root: o.root,
                max_file_bytes: o.max_file_bytes,
            }
        }
        _ => {
            return Err(bad(format!(
                "touchedFiles: {op:?} is not an operation that writes named files."
            )))
        }
    })
}

/// The hash of the file at `real` now, or None when it cannot be read within `max_bytes`.
fn hash_now(ws: &Workspace, real: &std::path::Path, max_bytes: u64) -> Option<String> {
    let sb = Sandbox::open(ws.root()).ok()?;
    let mut f = LockedFile::open(&sb, real, &Deadline::from_setting()).ok()?;
    let bytes = f.read_all(max_bytes).ok()?;
    Some(file_hash(&bytes))
}

/// `touchedFiles(op, args)`.
pub fn touched_files(a: i::TouchedFilesArgs) -> Res {
    let (op, call) = (a.op.as_str(), a.args.as_slice());
    let named = named(op, call)?;
    let root = root(&named.root)?;
    let max_file_bytes = named.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES);
    let ws = Workspace::new(&root)?;
    let mut targets = match named.paths {
        Some(paths) => paths
            .into_iter()
            .map(|(path, role)| {
                let r = ws.resolve(&path, Resolve::MayCreate)?;
                Ok(TouchedFile {
                    path,
                    display: r.display,
                    exists: r.exists,
                    role,
                    op_index: None,
                    file_hash: None,
                })
            })
            .collect::<Result<Vec<_>>>()?,
        // The edit the undo would revert, found as the undo finds it.
        None if op == "undo_edit" => super::whole::undo_touched(call)?,
        // The operation itself, stopped before it reads or writes anything.
        None => super::patch::touched(op, call)?,
    };
    for t in &mut targets {
        if t.exists {
            t.file_hash = ws
                .resolve(&t.display, Resolve::Existing)
                .ok()
                .and_then(|r| hash_now(&ws, &r.real, max_file_bytes));
        }
    }
    Ok(to_value(&TouchedFilesSuccess { ok: True, targets }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;
    use serde_json::json;

    fn call(op: &str, a: Value) -> Res {
        touched_files(read_args(&[json!(op), a])?)
    }

    #[test]
    fn paths_come_from_the_engine_parsers_and_sandbox() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_str().unwrap();
        std::fs::create_dir_all(d.path().join("real/sub")).unwrap();
        std::fs::write(d.path().join("real/x.txt"), "x\n").unwrap();
        std::fs::write(d.path().join("top.txt"), "t\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.path().join("real/sub"), d.path().join("link")).unwrap();
        let opts = json!({ "workspace_root": root });

        let r = call(
            "patch_file",
            json!([{"file_path": "./top.txt", "search_block": "t", "replace_block": "u"}, opts]),
        )
        .unwrap();
        assert_eq!(r["targets"][0]["display"], "top.txt");
        assert_eq!(r["targets"][0]["exists"], true);
        assert_eq!(
            r["targets"][0]["file_hash"],
            json!(file_hash(b"t\n")),
            "the hash of the bytes on disk"
        );

        // `link/../x.txt` is real/x.txt: the link is followed before `..`.
        #[cfg(unix)]
        {
            let r = call("apply_edits", json!(["link/../x.txt", [], opts])).unwrap();
            assert_eq!(r["targets"][0]["display"], "real/x.txt");
            let patch =
                "*** Begin Patch\n*** Update File: link/../x.txt\n@@\n-x\n+y\n*** End Patch\n";
            let r = call("apply_patch", json!([patch, opts])).unwrap();
            assert_eq!(r["targets"][0]["path"], "link/../x.txt");
            assert_eq!(r["targets"][0]["display"], "real/x.txt");
        }

        // Whatever spelling the envelope parser accepts, the target is what it resolves to.
        let patch = "*** Begin Patch\n*** Update File: top.txt\n*** Move to: moved/t.txt\n@@\n-t\n+u\n*** Add File: new.txt\n+n\n*** End Patch\n";
        let r = call("apply_patch", json!([patch, opts])).unwrap();
        let t = r["targets"].as_array().unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(
            (
                t[0]["role"].as_str(),
                t[1]["role"].as_str(),
                t[2]["role"].as_str()
            ),
            (Some("source"), Some("move_target"), Some("source"))
        );
        assert_eq!(t[1]["display"], "moved/t.txt");
        assert_eq!(t[1]["exists"], false);
        assert_eq!(t[1]["file_hash"], Value::Null);
        assert_eq!(t[2]["op_index"], 1);

        let diff = "--- a/top.txt\n+++ b/top.txt\n@@ -1 +1 @@\n-t\n+u\n";
        let r = call("apply_unified_diff", json!([diff, opts])).unwrap();
        assert_eq!(r["targets"][0]["display"], "top.txt");

        let blocks = "top.txt\n<<<<<<< SEARCH\nt\n=======\nu\n>>>>>>> REPLACE\n";
        let r = call("apply_blocks", json!([blocks, opts])).unwrap();
        assert_eq!(r["targets"][0]["display"], "top.txt");
        let r = call(
            "apply_blocks",
            json!(["<<<<<<< SEARCH\nt\n=======\nu\n>>>>>>> REPLACE\n", {"workspace_root": root, "file_path": "real/x.txt"}]),
        )
        .unwrap();
        assert_eq!(r["targets"][0]["display"], "real/x.txt");

        // An undo names the files of the edit it would revert; no such edit: its own refusal.
        assert_eq!(
            call("undo_edit", json!(["top.txt", opts]))
                .unwrap_err()
                .code,
            Code::EditNotFound
        );

        // Paths the operation picks itself: a decorated header, a diff naming no file.
        let patch = "*** Begin Patch\n*** Update File: `top.txt`\n@@\n-t\n+u\n*** End Patch\n";
        let r = call("apply_patch", json!([patch, opts])).unwrap();
        assert_eq!(r["targets"][0]["display"], "top.txt");
        assert_eq!(r["targets"][0]["path"], "top.txt", "the base_hashes key");
        let r = call(
            "apply_unified_diff",
            json!(["@@ -1 +1 @@\n-x\n+y\n", {"workspace_root": root, "file_path": "real/x.txt"}]),
        )
        .unwrap();
        assert_eq!(r["targets"][0]["display"], "real/x.txt");
        assert_eq!(r["targets"][0]["file_hash"], json!(file_hash(b"x\n")));
    }

    /// Issue #26 §3: an undo names the files of the edit it would revert, and `only_edit_ids`
    /// (an MCP session's own edits) hides every other edit, by id and by path, in the undo too.
    #[test]
    fn an_undo_names_its_edits_files_within_its_scope() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.txt"), "one\n").unwrap();
        let root = d.path().to_str().unwrap();
        let opts = json!({ "workspace_root": root });
        let api = |op: &str, a: Value| -> Value {
            serde_json::from_str(&crate::api::call(op, &a.to_string())).unwrap()
        };
        let edit = |from: &str, to: &str| {
            let r = api(
                "patch_file",
                json!([{"file_path": "a.txt", "search_block": from, "replace_block": to}, opts]),
            );
            r["edit_id"].as_str().unwrap().to_string()
        };
        let (first, second) = (edit("one", "two"), edit("two", "three"));
        let r = call("undo_edit", json!([first, opts])).unwrap();
        assert_eq!(
            r["targets"],
            json!([{"path": "a.txt", "display": "a.txt", "exists": true, "role": "file",
                    "op_index": null, "file_hash": file_hash(b"three\n")}])
        );
        let only = |ids: &[&str]| json!({ "workspace_root": root, "only_edit_ids": ids });
        assert_eq!(
            call("undo_edit", json!(["a.txt", only(&[&first])])).unwrap()["targets"][0]["display"],
            "a.txt"
        );
        for target in [
            json!(second),
            json!("a.txt"),
            json!({"file_path": "./a.txt"}),
        ] {
            let code = call("undo_edit", json!([target, only(&[])]))
                .unwrap_err()
                .code;
            assert_eq!(code, Code::EditNotFound, "{target}");
            assert_eq!(
                api("undo_edit", json!([target, only(&[])]))["code"],
                "EDIT_NOT_FOUND"
            );
        }
        let code = call("undo_edit", json!([second, only(&[&first])]))
            .unwrap_err()
            .code;
        assert_eq!(code, Code::EditNotFound);
        // By path, the scope's own (older) edit, which no longer fits the file: STALE_FILE.
        let u = api("undo_edit", json!(["a.txt", only(&[&first])]));
        assert_eq!(u["code"], "STALE_FILE", "{u}");
        assert_eq!(u["edit_id"], json!(first));
        assert_eq!(
            std::fs::read_to_string(d.path().join("a.txt")).unwrap(),
            "three\n"
        );
        // Within scope: undone.
        let u = api("undo_edit", json!([second, only(&[&second])]));
        assert_eq!(u["ok"], true, "{u}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("a.txt")).unwrap(),
            "two\n"
        );
        let bad = api(
            "undo_edit",
            json!([first, {"workspace_root": root, "only_edit_ids": [1]}]),
        );
        assert_eq!(bad["code"], "INVALID_INPUT");
        assert_eq!(
            std::fs::read_to_string(d.path().join("a.txt")).unwrap(),
            "two\n"
        );
    }

    #[test]
    fn refusals_carry_the_operation_codes() {
        let d = tempfile::tempdir().unwrap();
        let opts = json!({ "workspace_root": d.path().to_str().unwrap() });
        let code = |op: &str, a: Value| call(op, a).unwrap_err().code;
        assert_eq!(
            code("write_file", json!(["../x", "c", opts])),
            Code::PathOutsideWorkspace
        );
        assert_eq!(
            code("apply_patch", json!(["*** Begin Patch\n*** Bogus\n", opts])),
            Code::ParseError
        );
        let outside = "*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch\n";
        assert_eq!(
            code("apply_patch", json!([outside, opts])),
            Code::PathOutsideWorkspace
        );
        assert_eq!(code("view_file", json!([3, opts])), Code::InvalidInput);
        assert_eq!(code("codes", json!([])), Code::InvalidInput);
        assert_eq!(
            call("view_file", json!("x")).unwrap_err().code,
            Code::InvalidInput
        );
        assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
    }

    #[test]
    fn move_file_names_its_source_and_its_target() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().to_str().unwrap();
        std::fs::write(d.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(d.path().join("b.txt"), "b\n").unwrap();
        let r = call(
            "move_file",
            json!(["a.txt", "./b.txt", {"workspace_root": root, "overwrite": true}]),
        )
        .unwrap();
        let t = &r["targets"];
        assert_eq!(t[0]["role"], "source");
        assert_eq!(t[0]["display"], "a.txt");
        assert_eq!(t[1]["role"], "move_target");
        assert_eq!(t[1]["display"], "b.txt");
        assert_eq!(t[1]["file_hash"], json!(file_hash(b"b\n")));
        let missing = call("move_file", json!(["a.txt"])).unwrap_err();
        assert_eq!(missing.code, Code::InvalidInput);
    }
}
