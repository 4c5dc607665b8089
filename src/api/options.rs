//! The one options reader. Every op reads its `options` argument through an [`Obj`] (unknown keys
//! refused, camelCase and snake_case both accepted, each key at most once): [`read_root`] for every
//! op that touches the workspace (`workspace_root`, `lock_timeout_ms`), [`read_common`] for every op
//! that writes (plus `dry_run`, `tolerance`, `max_file_bytes`, `base_hash`, `journal_dir` /
//! `host_journal_dir`, `validate`), then the op's own extras, then [`Obj::finish`].

use serde_json::Value;

use super::args::{bad, Obj};
use crate::error::{Code, Failure, Result};
use crate::journal::DiskJournal;
use crate::matcher::Tolerance;
use crate::workspace::Workspace;

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

/// Reads option `validate` (`"off" | "report" | "enforce"`).
pub fn read_validate(o: &mut Obj) -> Result<Validate> {
    Ok(
        match o.choice(&["validate"], &["off", "report", "enforce"])? {
            Some("report") => Validate::Report,
            Some("enforce") => Validate::Enforce,
            _ => Validate::Off,
        },
    )
}

/// The options of a single-file edit: the common ones only.
pub fn read_options(v: Option<&Value>) -> Result<EditOptions> {
    let mut o = Obj::new("options", v, true)?;
    let opts = read_common(&mut o, true)?;
    o.finish()?;
    Ok(opts)
}

/// The workspace root option (default: the current directory). Also reads `lock_timeout_ms` (how
/// long the call's lock waits may last, default 10 s), which every call that touches files takes:
/// it is set for the calling thread ([`crate::fsio::set_lock_timeout`]) at each read.
pub fn read_root(o: &mut Obj) -> Result<std::path::PathBuf> {
    let lock_timeout = o.uint(&["lock_timeout_ms", "lockTimeoutMs"])?;
    crate::fsio::set_lock_timeout(lock_timeout.map(std::time::Duration::from_millis));
    Ok(match o.string(&["workspace_root", "workspaceRoot"])? {
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

/// Reads the options every writing op shares from `o` without refusing other keys (the caller reads
/// its own keys, then calls `o.finish()`). `base_hash` is read when `with_base_hash` (single-file
/// ops; the multi-file ones take `base_hashes` instead, so `base_hash` stays unknown to them).
pub fn read_common(o: &mut Obj, with_base_hash: bool) -> Result<EditOptions> {
    let root = read_root(o)?;
    let dry_run = o.boolean(&["dry_run", "dryRun"])?.unwrap_or(false);
    let tolerance = match o.choice(&["tolerance"], &["exact", "safe"])? {
        Some("exact") => Tolerance::Exact,
        _ => Tolerance::Safe,
    };
    let max_file_bytes = o
        .uint(&["max_file_bytes", "maxFileBytes"])?
        .unwrap_or(DEFAULT_MAX_FILE_BYTES);
    let base_hash = match with_base_hash {
        true => o.string(&["base_hash", "baseHash"])?.map(str::to_string),
        false => None,
    };
    let journal = read_journal(o)?;
    let validate = read_validate(o)?;
    Ok(EditOptions {
        root,
        dry_run,
        tolerance,
        max_file_bytes,
        base_hash,
        journal,
        validate,
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

/// Reads options `journal_dir` / `host_journal_dir`.
pub fn read_journal(o: &mut Obj) -> Result<JournalAt> {
    let inside = o.string(&["journal_dir", "journalDir"])?;
    let host = o.string(&["host_journal_dir", "hostJournalDir"])?;
    match (inside, host) {
        (Some(_), Some(_)) => Err(bad(
            "journal_dir and host_journal_dir cannot both be given; choose one journal.",
        )),
        (Some(d), None) => Ok(JournalAt::Workspace(d.to_string())),
        (None, Some(d)) => Ok(JournalAt::Host(d.to_string())),
        (None, None) => Ok(JournalAt::MemoryOnly),
    }
}
