//! `createCheckpoint`, `restoreCheckpoint` and `listCheckpoints`: the JSON entry points of
//! [`crate::fs::checkpoint`].

use super::options::{journal, root, DEFAULT_MAX_FILE_BYTES};
use super::Res;
use crate::contract::checkpoints::{
    CheckpointInfo, CreateCheckpointArgs, CreateCheckpointSuccess, ListCheckpointsArgs,
    ListCheckpointsSuccess, RestoreAction, RestoreCheckpointArgs, RestoreCheckpointSuccess,
    RestoredFileSchema,
};
use crate::contract::receipts::{to_value, True};
use crate::fs::checkpoint;
use crate::fs::workspace::Workspace;

/// `createCheckpoint({workspace_root, journal_dir | host_journal_dir, label})`.
pub fn create_checkpoint(a: CreateCheckpointArgs) -> Res {
    let o = a.options.unwrap_or_default();
    let ws = Workspace::new(&root(&o.root)?)?;
    let disk = journal(&o.journal)?.open(&ws)?;
    let cp = checkpoint::create(&ws, o.label.as_deref(), disk.as_ref())?;
    Ok(to_value(&CreateCheckpointSuccess {
        ok: True,
        checkpoint_id: cp.checkpoint_id,
        label: cp.label,
    }))
}

/// `restoreCheckpoint(checkpoint_id, {workspace_root, journal, force, dry_run, max_file_bytes})`.
pub fn restore_checkpoint(a: RestoreCheckpointArgs) -> Res {
    let o = a.options.unwrap_or_default();
    let ws = Workspace::new(&root(&o.root)?)?;
    let disk = journal(&o.journal)?.open(&ws)?;
    let how = checkpoint::How {
        force: o.force.unwrap_or(false),
        dry_run: o.dry_run.unwrap_or(false),
        max_bytes: o.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES),
        only: o.only_edit_ids.as_deref(),
    };
    let r = checkpoint::restore(&ws, &a.checkpoint_id, disk.as_ref(), how)?;
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
pub fn list_checkpoints(a: ListCheckpointsArgs) -> Res {
    let o = a.options.unwrap_or_default();
    let ws = Workspace::new(&root(&o.root)?)?;
    let disk = journal(&o.journal)?.open(&ws)?;
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
