//! The arguments and receipts of the checkpoint operations (`createCheckpoint`, `restoreCheckpoint`,
//! `listCheckpoints`; see [`crate::fs::checkpoint`]). Declarations, as in [`super::inputs`] and
//! [`super::receipts`].

#![allow(dead_code)]

use schemars::JsonSchema;
use serde::Serialize;

use super::inputs::{JournalOptions, WorkspaceOption};
use super::receipts::True;

/// Options of createCheckpoint.
#[derive(JsonSchema, serde::Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct CreateCheckpointOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Also keep the checkpoint in this journal directory, so that it survives a restart with the
    /// journal (the journal of the edits since must be on disk too: pass the same directory to them).
    #[serde(flatten)]
    pub journal: JournalOptions,
    /// A name for the checkpoint (shown by listCheckpoints).
    pub label: Option<String>,
}

/// Options of restoreCheckpoint.
#[derive(JsonSchema, serde::Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct RestoreCheckpointOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Also look in this on-disk journal for the checkpoint and the edits since.
    #[serde(flatten)]
    pub journal: JournalOptions,
    /// Restore files changed since by something other than surepatch too (that change is lost).
    pub force: Option<bool>,
    /// Compute everything, write nothing (`written: false`).
    pub dry_run: Option<bool>,
    /// Refuse files larger than this many bytes with `FILE_TOO_LARGE` (default 256 MiB).
    pub max_file_bytes: Option<u64>,
    /// Revert only these edits (an MCP HTTP session's own): another's edit of a file since makes that
    /// file `STALE_FILE`, as any other change.
    pub only_edit_ids: Option<Vec<String>>,
}

/// Options of listCheckpoints.
#[derive(JsonSchema, serde::Deserialize, Default)]
#[schemars(deny_unknown_fields)]
pub struct ListCheckpointsOptions {
    #[serde(flatten)]
    pub root: WorkspaceOption,
    /// Also list the checkpoints kept in this on-disk journal.
    #[serde(flatten)]
    pub journal: JournalOptions,
}

/// `createCheckpoint(options?)`.
#[derive(JsonSchema, serde::Deserialize)]
pub struct CreateCheckpointArgs {
    pub options: Option<CreateCheckpointOptions>,
}

/// `restoreCheckpoint(checkpoint_id, options?)`.
#[derive(JsonSchema, serde::Deserialize)]
pub struct RestoreCheckpointArgs {
    /// A `checkpoint_id` from createCheckpoint.
    pub checkpoint_id: String,
    pub options: Option<RestoreCheckpointOptions>,
}

/// `listCheckpoints(options?)`.
#[derive(JsonSchema, serde::Deserialize)]
pub struct ListCheckpointsArgs {
    pub options: Option<ListCheckpointsOptions>,
}

/// `createCheckpoint`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CreateCheckpointSuccess {
    pub ok: True,
    /// Pass it to restoreCheckpoint to put back every file surepatch wrote since.
    pub checkpoint_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// What a restore did to one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RestoredFileSchema {
    /// Workspace-relative path.
    pub file_path: String,
    pub action: RestoreAction,
    /// Hash of the file now (`null` when deleted).
    pub file_hash: Option<String>,
}

/// `"restored"`: its content at the checkpoint written back; `"deleted"`: created since;
/// `"recreated"`: deleted since; `"unchanged"`: its edits since cancel out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestoreAction {
    Restored,
    Deleted,
    Recreated,
    Unchanged,
}

/// `restoreCheckpoint`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RestoreCheckpointSuccess {
    pub ok: True,
    pub checkpoint_id: String,
    /// Every file surepatch wrote since the checkpoint, as the restore left it.
    pub files: Vec<RestoredFileSchema>,
    /// The edits reverted (they leave the undo journal), oldest first.
    pub edits_reverted: Vec<String>,
    /// false for a dry run.
    pub written: bool,
}

/// One checkpoint.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckpointInfo {
    pub checkpoint_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How many journaled edits of this workspace were made since.
    pub edits_since: usize,
}

/// `listCheckpoints`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListCheckpointsSuccess {
    pub ok: True,
    /// Oldest first.
    pub checkpoints: Vec<CheckpointInfo>,
}
