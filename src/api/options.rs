//! The settings of a call, made from its declared options ([`crate::contract::inputs`], read by
//! [`crate::contract::read`]): [`root`] for every op that touches the workspace (`workspace_root`,
//! `lock_timeout_ms`), [`write_options`] for every op that writes (plus `dry_run`, `tolerance`,
//! `max_file_bytes`, `base_hash`, `journal_dir` / `host_journal_dir`, `validate`). What the
//! declarations cannot say (a root that is empty, two journals at once) is refused here.

use super::args::bad;
use crate::contract::inputs as i;
use crate::edit::matcher::Tolerance;
use crate::error::{Code, Failure, Result};
use crate::fs::journal::DiskJournal;
use crate::fs::workspace::Workspace;

/// Files larger than this are refused unless `max_file_bytes` says otherwise.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Options every edit entry point accepts.
pub struct EditOptions {
    pub root: std::path::PathBuf,
    pub dry_run: bool,
    pub tolerance: Tolerance,
    pub max_file_bytes: u64,
    pub base_hash: Option<String>,
    /// Where the undo journal is also kept on disk, if anywhere.
    pub journal: JournalAt,
    /// The syntax gate (option `validate`).
    pub validate: Validate,
    /// `patchFile` / `applyEdits` option `name_path`: search only inside that symbol's span.
    pub name_path: Option<String>,
}

/// Option `validate`: whether an edit is checked with the syntax gate ([`crate::syntax`]).
///
/// - `off` (the library default): no check, no `syntax` key in the receipt;
/// - `report`: the edit lands and the receipt carries `syntax: {language, ok, new_errors}` (or
///   `{language, skipped}`);
/// - `enforce`: an edit that introduces a syntax error is refused with `SYNTAX_ERROR_INTRODUCED`
///   (details: `syntax`, `file_path`) and nothing is written.
///
/// Dry runs are checked too, so a preview tells what the real call would do (under `enforce` a dry
/// run of a breaking edit is refused the same way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Validate {
    #[default]
    Off,
    Report,
    Enforce,
}

/// Option `validate` as declared.
pub fn validate(v: Option<&i::ValidateMode>) -> Validate {
    match v {
        Some(i::ValidateMode::Report) => Validate::Report,
        Some(i::ValidateMode::Enforce) => Validate::Enforce,
        _ => Validate::Off,
    }
}

/// Option `tolerance` as declared (default `safe`).
pub fn tolerance(t: Option<&i::Tolerance>) -> Tolerance {
    match t {
        Some(i::Tolerance::Exact) => Tolerance::Exact,
        _ => Tolerance::Safe,
    }
}

/// The options of a single-file edit: the common ones only.
pub fn edit_options(o: Option<i::EditOptions>) -> Result<EditOptions> {
    let o = o.unwrap_or_default();
    write_options(o.write, o.base_hash)
}

/// The workspace root option (default: the current directory). Also applies `lock_timeout_ms` (how
/// long the call's lock waits may last, default 10 s), which every call that touches files takes:
/// it is set for the calling thread ([`crate::fs::fsio::set_lock_timeout`]).
pub fn root(o: &i::WorkspaceOption) -> Result<std::path::PathBuf> {
    crate::fs::fsio::set_lock_timeout(o.lock_timeout_ms.map(std::time::Duration::from_millis));
    Ok(match o.workspace_root.as_deref() {
        Some("") => return Err(bad("workspace_root is empty.")),
        Some(r) => r.into(),
        None => std::env::current_dir().map_err(|e| {
            Failure::new(
                Code::InvalidInput,
                format!("cannot read the current directory: {e}"),
            )
        })?,
    })
}

/// The options every writing op shares. `base_hash` is given by single-file ops (the multi-file ones
/// take `base_hashes` instead).
pub fn write_options(o: i::WriteOptions, base_hash: Option<String>) -> Result<EditOptions> {
    let root = root(&o.root)?;
    Ok(EditOptions {
        root,
        dry_run: o.dry_run.unwrap_or(false),
        tolerance: tolerance(o.tolerance.as_ref()),
        max_file_bytes: o.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES),
        base_hash,
        journal: journal(&o.journal)?,
        validate: validate(o.validate.as_ref()),
        name_path: None,
    })
}

/// Where the undo journal is also kept on disk: options `journal_dir` (a directory inside the
/// workspace) and `host_journal_dir` (an absolute directory chosen by the host, not sandboxed; see
/// [`DiskJournal::open_host`]). At most one of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum JournalAt {
    #[default]
    MemoryOnly,
    Workspace(String),
    Host(String),
}

impl JournalAt {
    /// Opens the on-disk journal, if any (before anything is written, so a bad directory refuses
    /// the call).
    pub fn open(&self, ws: &Workspace) -> Result<Option<DiskJournal>> {
        match self {
            JournalAt::MemoryOnly => Ok(None),
            JournalAt::Workspace(d) => DiskJournal::open(ws, d).map(Some),
            JournalAt::Host(d) => DiskJournal::open_host(ws, d).map(Some),
        }
    }
}

/// Options `journal_dir` / `host_journal_dir`: at most one of them.
pub fn journal(o: &i::JournalOptions) -> Result<JournalAt> {
    match (&o.journal_dir, &o.host_journal_dir) {
        (Some(_), Some(_)) => Err(bad(
            "journal_dir and host_journal_dir cannot both be given; choose one journal.",
        )),
        (Some(d), None) => Ok(JournalAt::Workspace(d.clone())),
        (None, Some(d)) => Ok(JournalAt::Host(d.clone())),
        (None, None) => Ok(JournalAt::MemoryOnly),
    }
}
