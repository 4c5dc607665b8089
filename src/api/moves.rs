//! `moveFile(fromPath, toPath, options)`: renames a file inside the workspace.
//!
//! Both paths go through the sandbox and are opened and locked in one [`Txn`] (which also reads the
//! bytes the undo journal keeps). The move itself is one `rename(2)` made while both locks are held:
//! atomic, the file keeps its inode, mode and bytes (any encoding, binary included: nothing is
//! decoded). Across file systems (`EXDEV`) it falls back to the transaction's own commit: the new path
//! written atomically with the bytes and the old one deleted in the same commit, rolled back if a step
//! fails; the new file keeps the moved file's mode (and its owner and group where the process may set
//! them), as a rename would. The move is journaled like any edit,
//! so `undoEdit` puts the file back (and restores a file it replaced).
//! Missing parent directories of the new path are created. An existing file at the new path is
//! refused with `FILE_EXISTS` unless `overwrite: true`. Only files move; a directory is refused with
//! `TARGET_IS_DIRECTORY`, and a symbolic link (`fromPath`'s last component is one) with
//! `INVALID_INPUT` (`reason: "symlink"`): the path would resolve to the link's target, which would
//! move in its place and leave the link dangling. Directories on the way may be links (the file
//! they lead to moves, and the receipt names it by its real path). A `toPath` through a link names
//! the link's target, which `overwrite: true` replaces.

use super::args::bad;
use super::checks::check_base;
use super::commit::Writer;
use super::options::edit_options;
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, JournalFields, MoveFileSuccess, True};
use crate::edit::hash::file_hash;
use crate::error::{Code, Failure, Result};
use crate::fs::txn::{Action, Committed, Txn};
use crate::fs::workspace::{Resolve, Workspace};

/// `moveFile(fromPath, toPath, {overwrite, dry_run, base_hash, journal_dir, max_file_bytes,
/// workspace_root})`.
pub fn move_file(a: i::MoveFileArgs) -> Res {
    let (from, to) = (a.from_path.as_str(), a.to_path.as_str());
    let o = a.options.unwrap_or_default();
    let overwrite = o.overwrite.unwrap_or(false);
    let opts = edit_options(Some(o.edit))?;
    let ws = Workspace::new(&opts.root)?;
    let src = ws.resolve(from, Resolve::Existing)?;
    if let Some(link) = ws.final_symlink(from) {
        // Renaming the resolved path would move the link's target and leave the link dangling.
        return Err(Failure::new(
            Code::InvalidInput,
            format!(
                "{link} is a symbolic link (to {}); moveFile moves files, not links, and nothing was moved. \
                 Move the file itself ({}), or rename the link with your shell.",
                src.display, src.display
            ),
        )
        .with("file_path", &link)
        .with("path", from)
        .with("resolved", &src.display)
        .with("reason", "symlink"));
    }
    let dst = ws.resolve(to, Resolve::MayCreate)?;
    if src.real == dst.real {
        return Err(bad(format!(
            "the new path {to:?} is the file itself ({}); nothing to move.",
            src.display
        )));
    }
    let exists = |display: &str| {
        Failure::new(
            Code::FileExists,
            format!("{display} already exists; pick another name, or pass overwrite: true to replace it. Nothing was moved."),
        )
        .with("file_path", &src.display)
        .with("to_path", display)
    };
    if dst.exists && !overwrite {
        return Err(exists(&dst.display));
    }
    let w = Writer::open(
        &ws,
        &opts.journal,
        &[
            (from.to_string(), Resolve::Existing),
            (to.to_string(), Resolve::MayCreate),
        ],
        opts.max_file_bytes,
        opts.dry_run,
    )?;
    let txn = &w.txn;
    let (s, d) = match (txn.index_of(from), txn.index_of(to)) {
        (Some(s), Some(d)) if s != d => (s, d),
        _ => {
            return Err(Failure::new(
                Code::InternalError,
                "a path is missing from the transaction",
            ))
        }
    };
    let replaced = txn.files[d].existed;
    if replaced && !overwrite {
        return Err(exists(&txn.files[d].display));
    }
    let bytes = txn.files[s].bytes.as_deref().unwrap_or_default();
    let (from_display, to_display) = (txn.files[s].display.clone(), txn.files[d].display.clone());
    check_base(opts.base_hash.as_deref(), bytes, &from_display)?;
    let hash = file_hash(bytes);
    let size = bytes.len();
    let recorded = w
        .commit_with(|mut txn| match rename_locked(&ws, &mut txn, s, d, &hash)? {
            Some(done) => Ok(done),
            None => {
                let bytes = txn.files[s].bytes.clone().unwrap_or_default();
                txn.files[d].action = Action::Write(bytes);
                txn.keep_like(d, s);
                txn.files[s].action = Action::Delete;
                txn.commit()
            }
        })?
        .recorded;
    Ok(to_value(&MoveFileSuccess {
        ok: True,
        file_path: from_display,
        moved_to: to_display,
        bytes: size,
        file_hash: hash,
        replaced,
        written: !opts.dry_run,
        journal: JournalFields::of(&recorded),
    }))
}

/// Renames `txn.files[s]` to `txn.files[d]` while the transaction holds their locks, and returns what
/// was committed (for the journal); `None` when the two are on different file systems.
fn rename_locked(
    ws: &Workspace,
    txn: &mut Txn,
    s: usize,
    d: usize,
    hash: &str,
) -> Result<Option<Vec<Committed>>> {
    let (src, dst) = (&txn.files[s], &txn.files[d]);
    let sb = txn.sandbox();
    let mut made = Vec::new();
    if let Some(parent) = dst.real.parent() {
        if parent != ws.root() && !sb.is_dir(parent) {
            made = sb
                .create_dirs_made(parent)
                .map_err(|f| f.with("file_path", &src.display))?;
        }
    }
    if let Err(e) = sb.rename(&src.real, &dst.real) {
        // A refusal leaves nothing, not even the directories made for the target.
        sb.remove_made_dirs(&made);
        if e.kind() == std::io::ErrorKind::CrossesDevices {
            return Ok(None);
        }
        return Err(Failure::io(&e, false, &dst.display).with("file_path", &src.display));
    }
    let size = src.bytes.as_ref().map_or(0, Vec::len);
    let (src_real, src_display) = (src.real.clone(), src.display.clone());
    let (dst_real, dst_display, dst_existed) = (dst.real.clone(), dst.display.clone(), dst.existed);
    let dst_before = txn.files[d].bytes.take();
    let src_before = txn.files[s].bytes.take();
    let (dst_kept, src_kept) = (txn.files[d].kept().cloned(), txn.files[s].kept().cloned());
    Ok(Some(vec![
        Committed {
            display: dst_display,
            real: dst_real,
            kind: if dst_existed { "update" } else { "create" },
            before: dst_before,
            before_kept: dst_kept,
            file_hash: Some(hash.to_string()),
            after_bytes: size,
            reverse: None,
        },
        Committed {
            display: src_display,
            real: src_real,
            kind: "delete",
            before: src_before,
            before_kept: src_kept,
            file_hash: None,
            after_bytes: 0,
            reverse: None,
        },
    ]))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::test_support::{run, Ws};
    use serde_json::json;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    /// A tmpfs mounted at a directory of the workspace, unmounted when dropped.
    struct Mounted(PathBuf);

    impl Mounted {
        /// `None` (the test then says why it is skipped) where this process may not mount.
        fn tmpfs(at: &Path) -> Option<Mounted> {
            fs::create_dir_all(at).unwrap();
            let ok = Command::new("mount")
                .args(["-t", "tmpfs", "-o", "size=1m", "surepatch-test"])
                .arg(at)
                .output()
                .is_ok_and(|o| o.status.success());
            ok.then(|| Mounted(at.to_path_buf()))
        }
    }

    impl Drop for Mounted {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }

    /// A move across file systems (a tmpfs mounted inside the workspace, so `rename` fails with
    /// `EXDEV`) is done by copy and delete, and the file keeps its mode, as a rename keeps it; undo
    /// puts every file back with its mode. Needs the right to mount (root on Linux); skipped
    /// otherwise.
    #[test]
    fn a_move_across_file_systems_keeps_the_mode_and_undoes() {
        let ws = Ws::with(&[("tool.sh", "#!/bin/sh\necho hi\n")]);
        fs::set_permissions(ws.path().join("tool.sh"), fs::Permissions::from_mode(0o751)).unwrap();
        let Some(_mounted) = Mounted::tmpfs(&ws.path().join("other")) else {
            eprintln!("skipped: this process may not mount a tmpfs (needs root on Linux)");
            return;
        };
        let r = run(
            "move_file",
            json!(["tool.sh", "other/deep/tool.sh", ws.opts(json!({}))]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let moved = ws.path().join("other/deep/tool.sh");
        assert_eq!(fs::read_to_string(&moved).unwrap(), "#!/bin/sh\necho hi\n");
        assert_eq!(mode(&moved), 0o751);
        assert!(!ws.exists("tool.sh"));
        // Back across, over an existing file: the moved file's mode wins, as with a rename.
        ws.write("back.sh", "old\n");
        fs::set_permissions(ws.path().join("back.sh"), fs::Permissions::from_mode(0o600)).unwrap();
        let r2 = run(
            "move_file",
            json!([
                "other/deep/tool.sh",
                "back.sh",
                ws.opts(json!({"overwrite": true}))
            ]),
        );
        assert_eq!(r2["ok"], true, "{r2}");
        assert_eq!(mode(&ws.path().join("back.sh")), 0o751);
        let u = run("undo_edit", json!([r2["edit_id"], ws.opts(json!({}))]));
        assert_eq!(u["ok"], true, "{u}");
        // Undo puts both files back as they were, modes included.
        assert_eq!(ws.read_string("back.sh"), "old\n");
        assert_eq!(mode(&ws.path().join("back.sh")), 0o600);
        assert_eq!(ws.read_string("other/deep/tool.sh"), "#!/bin/sh\necho hi\n");
        assert_eq!(mode(&moved), 0o751);
    }

    /// Undo gives a file back its mode as well as its bytes: a deleted executable comes back
    /// executable, a move undone (same file system) puts back both files' modes, and an edit undone
    /// after a `chmod` restores the mode the edit found. Also from the on-disk journal alone.
    #[test]
    fn undo_restores_modes() {
        let ws = Ws::with(&[("run.sh", "echo run\n"), ("keep.txt", "k\n")]);
        let p = |n: &str| ws.path().join(n);
        fs::set_permissions(p("run.sh"), fs::Permissions::from_mode(0o750)).unwrap();
        fs::set_permissions(p("keep.txt"), fs::Permissions::from_mode(0o604)).unwrap();
        let opts = ws.opts(json!({"journal_dir": "j"}));
        let undo = |r: &serde_json::Value| {
            let u = run("undo_edit", json!([r["edit_id"], opts]));
            assert_eq!(u["ok"], true, "{u}");
        };
        let r = run("delete_file", json!(["run.sh", opts]));
        assert_eq!(r["ok"], true, "{r}");
        undo(&r);
        assert_eq!(mode(&p("run.sh")), 0o750);
        let r = run(
            "move_file",
            json!([
                "run.sh",
                "keep.txt",
                ws.opts(json!({"journal_dir": "j", "overwrite": true}))
            ]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(mode(&p("keep.txt")), 0o750);
        undo(&r);
        assert_eq!((mode(&p("run.sh")), mode(&p("keep.txt"))), (0o750, 0o604));
        let r = run("write_file", json!(["keep.txt", "K\n", opts]));
        assert_eq!(r["ok"], true, "{r}");
        fs::set_permissions(p("keep.txt"), fs::Permissions::from_mode(0o666)).unwrap();
        // From the disk journal alone, as another process would undo it.
        let id = r["edit_id"].as_str().unwrap();
        crate::fs::journal::forget_in_memory(id);
        undo(&r);
        assert_eq!(ws.read_string("keep.txt"), "k\n");
        assert_eq!(mode(&p("keep.txt")), 0o604);
    }

    /// `moveFile` of a symlink refuses (the path resolves to the link's target, which used to move
    /// in its place, leaving the link dangling): the link, its target and the new path are as they
    /// were. A file reached through a linked directory moves, and the receipt names its real path.
    #[test]
    fn a_symlink_is_not_moved_and_its_target_stays() {
        let ws = Ws::with(&[("real.txt", "real\n"), ("d/f.txt", "f\n")]);
        std::os::unix::fs::symlink("real.txt", ws.path().join("link.txt")).unwrap();
        std::os::unix::fs::symlink("d", ws.path().join("dl")).unwrap();
        for to in ["moved.txt", "sub/moved.txt"] {
            let r = run("move_file", json!(["link.txt", to, ws.opts(json!({}))]));
            assert_eq!(r["code"], "INVALID_INPUT", "{r}");
            assert_eq!(r["reason"], "symlink");
            assert_eq!(r["file_path"], "link.txt");
            assert_eq!(r["resolved"], "real.txt");
            assert_eq!(ws.read_string("real.txt"), "real\n");
            assert_eq!(
                fs::read_link(ws.path().join("link.txt")).unwrap(),
                Path::new("real.txt")
            );
            assert!(!ws.exists("moved.txt") && !ws.exists("sub"));
        }
        let r = run(
            "move_file",
            json!(["dl/f.txt", "g.txt", ws.opts(json!({}))]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            (r["file_path"].as_str(), r["moved_to"].as_str()),
            (Some("d/f.txt"), Some("g.txt"))
        );
        assert_eq!(ws.read_string("g.txt"), "f\n");
        assert!(!ws.exists("d/f.txt"));
    }

    /// `*** Move to:` in a patch writes the new path and deletes the old one; the file keeps its
    /// mode, changed or not.
    #[test]
    fn a_patch_move_keeps_the_mode() {
        let ws = Ws::with(&[("a.sh", "echo a\n"), ("b.sh", "echo b\n")]);
        fs::set_permissions(ws.path().join("a.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(ws.path().join("b.sh"), fs::Permissions::from_mode(0o700)).unwrap();
        let patch = "*** Begin Patch\n*** Update File: a.sh\n*** Move to: bin/a.sh\n@@\n-echo a\n+echo A\n*** Update File: b.sh\n*** Move to: b2.sh\n*** End Patch\n";
        let r = run("apply_patch", json!([patch, ws.opts(json!({}))]));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(ws.read_string("bin/a.sh"), "echo A\n");
        assert_eq!(mode(&ws.path().join("bin/a.sh")), 0o755);
        assert_eq!(ws.read_string("b2.sh"), "echo b\n");
        assert_eq!(mode(&ws.path().join("b2.sh")), 0o700);
        assert!(!ws.exists("a.sh") && !ws.exists("b.sh"));
    }
}
