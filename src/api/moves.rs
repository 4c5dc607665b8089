//! `moveFile(fromPath, toPath, options)`: renames a file inside the workspace.
//!
//! Both paths go through the sandbox and are opened and locked in one [`Txn`] (which also reads the
//! bytes the undo journal keeps). The move itself is one `rename(2)` made while both locks are held:
//! atomic, the file keeps its inode, mode and bytes (any encoding, binary included: nothing is
//! decoded). Across file systems (`EXDEV`) it falls back to the transaction's own commit: the new path
//! written atomically with the bytes and the old one deleted in the same commit, rolled back if a step
//! fails (the mode of the new file is then that of a new file). The move is journaled like any edit,
//! so `undoEdit` puts the file back (and restores a file it replaced).
//! Missing parent directories of the new path are created. An existing file at the new path is
//! refused with `FILE_EXISTS` unless `overwrite: true`. Only files move; a directory is refused with
//! `TARGET_IS_DIRECTORY`.

use serde_json::Value;

use super::args::{bad, str_arg, Obj};
use super::commit::Writer;
use super::edit::check_base;
use super::options::read_common;
use super::{arg, Res};
use crate::contract::receipts::{to_value, JournalFields, MoveFileSuccess, True};
use crate::error::{Code, Failure, Result};
use crate::hash::file_hash;
use crate::txn::{Action, Committed, Txn};
use crate::workspace::{Resolve, Workspace};

/// `moveFile(fromPath, toPath, {overwrite, dry_run, base_hash, journal_dir, max_file_bytes,
/// workspace_root})`.
pub fn move_file(args: &[Value]) -> Res {
    let from = str_arg(args, 0, "from_path")?;
    let to = str_arg(args, 1, "to_path")?;
    let mut o = Obj::new("options", arg(args, 2), true)?;
    let opts = read_common(&mut o, true)?;
    let overwrite = o.boolean(&["overwrite"])?.unwrap_or(false);
    o.finish()?;
    let ws = Workspace::new(&opts.root)?;
    let src = ws.resolve(from, Resolve::Existing)?;
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
    Ok(Some(vec![
        Committed {
            display: dst_display,
            real: dst_real,
            kind: if dst_existed { "update" } else { "create" },
            before: dst_before,
            file_hash: Some(hash.to_string()),
            after_bytes: size,
        },
        Committed {
            display: src_display,
            real: src_real,
            kind: "delete",
            before: src_before,
            file_hash: None,
            after_bytes: 0,
        },
    ]))
}
