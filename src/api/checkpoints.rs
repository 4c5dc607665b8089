//! `createCheckpoint`, `restoreCheckpoint` and `listCheckpoints`: the JSON entry points of
//! [`crate::checkpoint`].

use serde_json::Value;

use super::args::{str_arg, Obj};
use super::options::{read_journal, read_root, DEFAULT_MAX_FILE_BYTES};
use super::{arg, Res};
use crate::checkpoint;
use crate::contract::checkpoints::{
    CheckpointInfo, CreateCheckpointSuccess, ListCheckpointsSuccess, RestoreAction,
    RestoreCheckpointSuccess, RestoredFileSchema,
};
use crate::contract::receipts::{to_value, True};
use crate::workspace::Workspace;

/// `createCheckpoint({workspace_root, journal_dir | host_journal_dir, label})`.
pub fn create_checkpoint(args: &[Value]) -> Res {
    let mut o = Obj::new("options", arg(args, 0), true)?;
    let root = read_root(&mut o)?;
    let journal = read_journal(&mut o)?;
    let label = o.string(&["label"])?;
    o.finish()?;
    let ws = Workspace::new(&root)?;
    let disk = journal.open(&ws)?;
    let cp = checkpoint::create(&ws, label, disk.as_ref())?;
    Ok(to_value(&CreateCheckpointSuccess {
        ok: True,
        checkpoint_id: cp.checkpoint_id,
        label: cp.label,
    }))
}

/// `restoreCheckpoint(checkpoint_id, {workspace_root, journal, force, dry_run, max_file_bytes})`.
pub fn restore_checkpoint(args: &[Value]) -> Res {
    let id = str_arg(args, 0, "checkpoint_id")?;
    let mut o = Obj::new("options", arg(args, 1), true)?;
    let root = read_root(&mut o)?;
    let journal = read_journal(&mut o)?;
    let force = o.boolean(&["force"])?.unwrap_or(false);
    let dry_run = o.boolean(&["dry_run", "dryRun"])?.unwrap_or(false);
    let max_file_bytes = o
        .uint(&["max_file_bytes", "maxFileBytes"])?
        .unwrap_or(DEFAULT_MAX_FILE_BYTES);
    let only = o.strings(&["only_edit_ids", "onlyEditIds"])?;
    o.finish()?;
    let ws = Workspace::new(&root)?;
    let disk = journal.open(&ws)?;
    let how = checkpoint::How {
        force,
        dry_run,
        max_bytes: max_file_bytes,
        only: only.as_deref(),
    };
    let r = checkpoint::restore(&ws, id, disk.as_ref(), how)?;
    Ok(to_value(&RestoreCheckpointSuccess {
        ok: True,
        checkpoint_id: r.checkpoint_id,
        files: r
            .files
            .into_iter()
            .map(|f| RestoredFileSchema {
                file_path: f.file_path,
                action: match f.action {
                    "deleted" => RestoreAction::Deleted,
                    "recreated" => RestoreAction::Recreated,
                    "unchanged" => RestoreAction::Unchanged,
                    _ => RestoreAction::Restored,
                },
                file_hash: f.file_hash,
            })
            .collect(),
        edits_reverted: r.edits_reverted,
        written: r.written,
    }))
}

/// `listCheckpoints({workspace_root, journal})`.
pub fn list_checkpoints(args: &[Value]) -> Res {
    let mut o = Obj::new("options", arg(args, 0), true)?;
    let root = read_root(&mut o)?;
    let journal = read_journal(&mut o)?;
    o.finish()?;
    let ws = Workspace::new(&root)?;
    let disk = journal.open(&ws)?;
    let checkpoints = checkpoint::list(&ws, disk.as_ref())
        .into_iter()
        .map(|c| CheckpointInfo {
            edits_since: checkpoint::edits_since(&ws, &c.checkpoint_id, disk.as_ref()).len(),
            checkpoint_id: c.checkpoint_id,
            label: c.label,
        })
        .collect();
    Ok(to_value(&ListCheckpointsSuccess {
        ok: True,
        checkpoints,
    }))
}
