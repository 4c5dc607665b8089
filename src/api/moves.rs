//! `moveFile(fromPath, toPath, options)`: renames a file inside the workspace.
//!
//! Both paths go through the sandbox and one [`Txn`]: both are locked, the new path is written
//! atomically with the file's bytes (any encoding, binary included: the bytes are not decoded) and the
//! old path is deleted in the same commit; if a step fails, what was done is rolled back. The move is
//! journaled like any edit, so `undoEdit` puts the file back (and restores a file it replaced).
//! Missing parent directories of the new path are created. An existing file at the new path is
//! refused with `FILE_EXISTS` unless `overwrite: true`. Only files move; a directory is refused with
//! `TARGET_IS_DIRECTORY`.

use serde_json::{json, Value};

use super::args::{bad, str_arg, Obj};
use super::edit::{check_base, disk_journal, journal_fields, read_common};
use super::{arg, merge, ok_object, Res};
use crate::error::{Code, Failure};
use crate::hash::file_hash;
use crate::journal;
use crate::txn::{Action, Txn};
use crate::workspace::{Resolve, Workspace};

/// `moveFile(fromPath, toPath, {overwrite, dry_run, base_hash, journal_dir, max_file_bytes,
/// workspace_root})`.
pub fn move_file(args: &[Value]) -> Res {
    let from = str_arg(args, 0, "fromPath")?;
    let to = str_arg(args, 1, "toPath")?;
    let mut o = Obj::new("options", arg(args, 2), true)?;
    let opts = read_common(&mut o)?;
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
    let disk = disk_journal(&ws, &opts)?;
    let mut txn = Txn::open(
        &ws,
        &[
            (from.to_string(), Resolve::Existing),
            (to.to_string(), Resolve::MayCreate),
        ],
        opts.max_file_bytes,
    )?;
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
    let bytes = txn.files[s].bytes.clone().unwrap_or_default();
    let (from_display, to_display) = (txn.files[s].display.clone(), txn.files[d].display.clone());
    check_base(opts.base_hash.as_deref(), &bytes, &from_display)?;
    let hash = file_hash(&bytes);
    let size = bytes.len();
    let recorded = if opts.dry_run {
        journal::Recorded::default()
    } else {
        txn.files[d].action = Action::Write(bytes);
        txn.files[s].action = Action::Delete;
        let mut done = txn.commit()?;
        journal::record_taking(&mut done, disk.as_ref())
    };
    Ok(merge(
        ok_object(json!({
            "file_path": from_display,
            "moved_to": to_display,
            "bytes": size,
            "file_hash": hash,
            "replaced": replaced,
            "written": !opts.dry_run,
        })),
        journal_fields(&recorded),
    ))
}
