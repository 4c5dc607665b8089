//! Finding one's way in the workspace: `listDirectory`, `findFiles` and `createDirectory`, and the
//! directory walk `searchFiles` shares.
//!
//! Every directory named by the caller is resolved through the sandbox ([`Workspace::resolve`]), so
//! `..`, absolute paths elsewhere and symlinks that lead outside are refused as for the edit tools.
//! The walk itself never follows a symlink: a symlink is listed as `type: "symlink"` (its target is
//! neither read nor listed), so nothing outside the root is ever reached through one.
//!
//! `.gitignore` (and ripgrep's `.ignore`) files are honoured whether or not the root is a git
//! repository: the ones in the walked directories and those of its ancestors up to the workspace root
//! (never above it; the user's global git excludes are not read either), and the root's
//! `.git/info/exclude`. They are read by [`super::ignore_files`], never through a symlink and never
//! from a FIFO or device; one that is not read is named in the result (`skipped_ignore_files`).
//! `.git` is never listed or searched: the walks skip every entry named `.git`, and a path in a
//! `.git` directory is refused, as written or as resolved through a symlink.
//! `include_ignored: true` lists ignored files too. Hidden files (a name starting with `.`) are listed
//! by `listDirectory` and skipped by `findFiles` and `searchFiles` unless `include_hidden: true`.
//!
//! Every listing is in tree order (each directory followed by its contents, names sorted) and capped
//! (`max_entries`, `max_results`); a cut result says `truncated: true` with a `hint` on how to get
//! the rest.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use ignore::overrides::Override;
use ignore::{DirEntry, Match, WalkBuilder};
use serde_json::Value;

use super::args::bad;
use super::ignore_files::IgnoreRules;
use super::options::root;
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{
    to_value, CreateDirectorySuccess, DirectoryEntry, FindFilesSuccess, ListDirectorySuccess,
    SkippedIgnoreFile, True,
};
use crate::error::{Code, Failure, Result};
use crate::fs::fsio::{self, Sandbox};
use crate::fs::workspace::{Resolve, Workspace};

/// Default and largest `max_entries` of `listDirectory`.
pub const LIST_DEFAULT_MAX: u64 = 1000;
/// Default and largest `max_results` of `findFiles`.
pub const FIND_DEFAULT_MAX: u64 = 1000;
/// Largest `max_entries` / `max_results` a caller may ask for.
pub const HARD_MAX: u64 = 100_000;

/// A directory resolved inside the workspace.
pub struct Dir {
    pub real: PathBuf,
    /// Workspace-relative (`"."` for the root).
    pub display: String,
}

/// Resolves `user_path` (default: the root) to an existing directory inside the workspace.
///
/// A path in a `.git` directory is refused (`INVALID_INPUT`, `reason: "git_dir"`), as written or as
/// resolved: `.git` is never listed or searched, whether the walk meets it or the caller names it.
pub fn resolve_dir(ws: &Workspace, user_path: Option<&str>) -> Result<Dir> {
    let p = user_path.unwrap_or(".");
    if in_git_dir(p) {
        return Err(git_dir_refused(p, p));
    }
    let trimmed = p.trim_end_matches('/');
    let p = if trimmed.is_empty() && !p.is_empty() {
        "/"
    } else if trimmed.is_empty() {
        "."
    } else {
        trimmed
    };
    match ws.resolve(p, Resolve::Existing) {
        Ok(r) if in_git_dir(&r.display) => Err(git_dir_refused(p, &r.display)),
        Ok(r) => Err(Failure::new(
            Code::InvalidInput,
            format!(
                "{} is a file, not a directory; read it with view_file, or name its directory.",
                r.display
            ),
        )
        .with("path", p)),
        Err(f) if f.code == Code::TargetIsDirectory => {
            let display = f
                .detail("resolved")
                .and_then(Value::as_str)
                .unwrap_or(".")
                .to_string();
            let real = if display == "." {
                ws.root().to_path_buf()
            } else {
                ws.root().join(&display)
            };
            if in_git_dir(&display) {
                Err(git_dir_refused(p, &display))
            } else if real.is_dir() {
                Ok(Dir { real, display })
            } else {
                Err(missing_dir(p, &display))
            }
        }
        Err(f) if f.code == Code::FileNotFound => {
            let display = f
                .detail("resolved")
                .and_then(Value::as_str)
                .unwrap_or(p)
                .to_string();
            Err(missing_dir(p, &display))
        }
        Err(f) => Err(f),
    }
}

fn missing_dir(p: &str, display: &str) -> Failure {
    Failure::new(
        Code::FileNotFound,
        format!("the directory {display} does not exist; list its parent directory to see what is there."),
    )
    .with("path", p)
}

/// What a walk shows.
#[derive(Clone, Copy)]
pub struct WalkOpts {
    pub include_ignored: bool,
    pub include_hidden: bool,
    /// 1 = the directory's own entries.
    pub max_depth: Option<usize>,
}

/// A walk to run (`builder`), and what it learns about ignore files on the way.
pub struct Walk {
    pub builder: WalkBuilder,
    rules: Option<Arc<IgnoreRules>>,
}

impl Walk {
    /// The ignore files the walk met and did not read (after it ran).
    pub fn skipped_ignore_files(&self) -> Option<Vec<SkippedIgnoreFile>> {
        self.rules.as_ref().and_then(|r| r.skipped())
    }
}

/// A sorted, gitignore-aware walk of `dir` that never follows symlinks and never enters `.git`.
/// The crate's own ignore-file reading is off: the rules come from [`IgnoreRules`], which reads
/// only regular files (see [`super::ignore_files`]). `glob` (searchFiles' option) takes precedence
/// over the ignore rules, as in ripgrep.
pub fn walker(ws: &Workspace, dir: &Dir, o: WalkOpts, glob: Option<Override>) -> Result<Walk> {
    let rules = match o.include_ignored {
        true => None,
        false => Some(Arc::new(IgnoreRules::new(ws)?)),
    };
    let mut b = WalkBuilder::new(&dir.real);
    b.standard_filters(false)
        .follow_links(false)
        .max_depth(o.max_depth)
        .sort_by_file_name(|a, b| a.cmp(b));
    let (r, skip_hidden) = (rules.clone(), !o.include_hidden);
    b.filter_entry(move |e| keep(e, r.as_deref(), glob.as_ref(), skip_hidden));
    Ok(Walk { builder: b, rules })
}

/// Whether the walk keeps `e` (and, for a directory, enters it). The order is the crate's: the
/// glob decides first, then the ignore files; an entry neither of them names is hidden when its
/// name starts with `.` (on Windows also when it has the hidden attribute).
fn keep(
    e: &DirEntry,
    rules: Option<&IgnoreRules>,
    glob: Option<&Override>,
    skip_hidden: bool,
) -> bool {
    if e.depth() == 0 {
        return true;
    }
    if is_git_name(e.file_name()) {
        return false;
    }
    let is_dir = e.file_type().is_some_and(|t| t.is_dir());
    let mut m = glob.map_or(Match::None, |g| g.matched(e.path(), is_dir).map(|_| ()));
    if m.is_none() {
        if let Some(r) = rules {
            m = r.matched(e.path(), is_dir);
        }
    }
    match m {
        Match::Ignore(()) => false,
        Match::Whitelist(()) => true,
        Match::None => !(skip_hidden && is_hidden(e)),
    }
}

fn is_hidden(e: &DirEntry) -> bool {
    if e.file_name().as_encoded_bytes().first() == Some(&b'.') {
        return true;
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt;
        const FILE_ATTRIBUTE_HIDDEN: u32 = 0x2;
        if let Ok(m) = e.metadata() {
            return m.file_attributes() & FILE_ATTRIBUTE_HIDDEN != 0;
        }
    }
    false
}

/// Whether a name is `.git` (in any ASCII case: case-insensitive file systems take `.GIT` for it).
fn is_git_name(name: &OsStr) -> bool {
    name.as_encoded_bytes().eq_ignore_ascii_case(b".git")
}

/// Whether `path` (as written, or workspace-relative) names a `.git` directory or anything in one.
pub fn in_git_dir(path: &str) -> bool {
    Path::new(path)
        .components()
        .any(|c| matches!(c, Component::Normal(n) if is_git_name(n)))
}

/// The refusal of a path in a `.git` directory, which is never listed or searched.
pub fn git_dir_refused(path: &str, resolved: &str) -> Failure {
    let through = !in_git_dir(path);
    let f = Failure::new(
        Code::InvalidInput,
        format!(
            "{path} is in a .git directory{}, which is never listed or searched; \
             list or search the working tree (or ask git itself).",
            match through {
                true => format!(" (it resolves to {resolved})"),
                false => String::new(),
            }
        ),
    )
    .with("path", path)
    .with("reason", "git_dir");
    match through {
        true => f.with("resolved", resolved),
        false => f,
    }
}

/// The kind of a walked entry, without following a symlink.
pub fn kind(e: &DirEntry) -> &'static str {
    match e.file_type() {
        Some(t) if t.is_symlink() => "symlink",
        Some(t) if t.is_dir() => "directory",
        Some(t) if t.is_file() => "file",
        _ => "other",
    }
}

/// The kind of an entry from its (not followed) metadata.
fn kind_of(m: &cap_std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "directory"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    }
}

/// A cap on results (`max_entries`, `max_results`): between 1 and [`HARD_MAX`].
pub(super) fn cap(n: Option<u64>, name: &str, default: u64) -> Result<usize> {
    let n = n.unwrap_or(default);
    if n == 0 || n > HARD_MAX {
        return Err(bad(format!(
            "{name} must be between 1 and {HARD_MAX}, got {n}."
        )));
    }
    Ok(n as usize)
}

fn walk_error(e: &ignore::Error, dir: &Dir) -> Option<Failure> {
    // Entries that vanish or cannot be read mid-walk are skipped; only the start directory matters.
    let io = e.io_error()?;
    if e.depth().unwrap_or(1) > 0 {
        return None;
    }
    Some(Failure::io(io, true, &dir.display).with("path", &dir.display))
}

/// `listDirectory(path, {depth, include_ignored, max_entries, workspace_root})`.
pub fn list_directory(a: i::ListDirectoryArgs) -> Res {
    let o = a.options.unwrap_or_default();
    let root = root(&o.root)?;
    let depth = o.depth.unwrap_or(1);
    if !(1..=20).contains(&depth) {
        return Err(bad(format!("depth must be between 1 and 20, got {depth}.")));
    }
    let include_ignored = o.include_ignored.unwrap_or(false);
    let max = cap(o.max_entries, "max_entries", LIST_DEFAULT_MAX)?;
    let ws = Workspace::new(&root)?;
    let dir = resolve_dir(&ws, a.path.as_deref())?;
    let opts = WalkOpts {
        include_ignored,
        include_hidden: true,
        max_depth: Some(depth as usize),
    };
    let sb = Sandbox::open(ws.root())?;
    let mut beneath = sb.beneath();
    let mut entries = Vec::new();
    let mut truncated = false;
    let walk = walker(&ws, &dir, opts, None)?;
    for e in walk.builder.build() {
        let e = match e {
            Ok(e) => e,
            Err(err) => match walk_error(&err, &dir) {
                Some(f) => return Err(f),
                None => continue,
            },
        };
        if e.depth() == 0 {
            continue;
        }
        // What the walk saw, checked through the root's handle (see `Beneath`).
        let Some(m) = beneath.metadata(e.path()) else {
            continue;
        };
        if entries.len() == max {
            truncated = true;
            break;
        }
        let k = kind_of(&m);
        let size = (k == "file").then(|| m.len());
        entries.push(DirectoryEntry {
            path: ws.display(e.path()),
            kind: k,
            size,
        });
    }
    let hint = truncated.then(|| format!(
        "only the first {max} entries (in tree order) are shown; list a subdirectory, lower depth, or raise max_entries (up to {HARD_MAX})."
    ));
    Ok(to_value(&ListDirectorySuccess {
        ok: True,
        path: dir.display,
        entries,
        truncated,
        hint,
        skipped_ignore_files: walk.skipped_ignore_files(),
    }))
}

/// A compiled `findFiles` pattern: a pattern without `/` matches file names at any depth, one with
/// `/` matches the path relative to the searched directory (`**` crosses directories, `*` does not).
pub struct Pattern {
    glob: GlobMatcher,
    by_name: bool,
}

impl Pattern {
    pub fn new(pattern: &str, what: &str) -> Result<Pattern> {
        if pattern.is_empty() {
            return Err(bad(format!(
                "{what} is empty; pass a glob such as \"*.rs\" or \"src/**/*.ts\"."
            )));
        }
        let p = pattern.strip_prefix("./").unwrap_or(pattern);
        let glob = GlobBuilder::new(p)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| bad(format!("{what} {pattern:?} is not a valid glob: {e}")))?
            .compile_matcher();
        Ok(Pattern {
            glob,
            by_name: !p.contains('/'),
        })
    }

    /// Whether the entry at `path` (below `base`) matches.
    pub fn matches(&self, base: &Path, path: &Path) -> bool {
        if self.by_name {
            path.file_name().is_some_and(|n| self.glob.is_match(n))
        } else {
            path.strip_prefix(base)
                .is_ok_and(|rel| self.glob.is_match(rel))
        }
    }
}

/// `findFiles(pattern, {path, max_results, include_ignored, include_hidden, workspace_root})`.
pub fn find_files(a: i::FindFilesArgs) -> Res {
    let pattern = a.pattern.as_str();
    let o = a.options.unwrap_or_default();
    let root = root(&o.root)?;
    let include_ignored = o.include_ignored.unwrap_or(false);
    let include_hidden = o.include_hidden.unwrap_or(false);
    let max = cap(o.max_results, "max_results", FIND_DEFAULT_MAX)?;
    let pat = Pattern::new(pattern, "pattern")?;
    let ws = Workspace::new(&root)?;
    let dir = resolve_dir(&ws, o.path.as_deref())?;
    let opts = WalkOpts {
        include_ignored,
        include_hidden,
        max_depth: None,
    };
    let sb = Sandbox::open(ws.root())?;
    let mut beneath = sb.beneath();
    let mut files = Vec::new();
    let mut truncated = false;
    let walk = walker(&ws, &dir, opts, None)?;
    for e in walk.builder.build() {
        let e = match e {
            Ok(e) => e,
            Err(err) => match walk_error(&err, &dir) {
                Some(f) => return Err(f),
                None => continue,
            },
        };
        if e.depth() == 0 || kind(&e) == "directory" || !pat.matches(&dir.real, e.path()) {
            continue;
        }
        // What the walk saw, checked through the root's handle (see `Beneath`).
        if beneath.metadata(e.path()).is_none_or(|m| m.is_dir()) {
            continue;
        }
        if files.len() == max {
            truncated = true;
            break;
        }
        files.push(ws.display(e.path()));
    }
    let hint = truncated.then(|| format!(
        "only the first {max} matches (in tree order) are shown; narrow the pattern or path, or raise max_results (up to {HARD_MAX})."
    ));
    Ok(to_value(&FindFilesSuccess {
        ok: True,
        path: dir.display,
        pattern: pattern.to_string(),
        files,
        truncated,
        hint,
        skipped_ignore_files: walk.skipped_ignore_files(),
    }))
}

/// `createDirectory(path, {workspace_root})`: creates the directory and its missing parents; an
/// existing directory is not an error (`created: false`).
pub fn create_directory(a: i::CreateDirectoryArgs) -> Res {
    let path = a.path.as_str();
    let root = root(&a.options.unwrap_or_default())?;
    let ws = Workspace::new(&root)?;
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return Err(bad(
            "path names the workspace root, which exists; name a new directory.",
        ));
    }
    match ws.resolve(trimmed, Resolve::MayCreate) {
        Ok(r) if r.exists => Err(Failure::new(
            Code::FileExists,
            format!("{} exists and is a file; pick another name.", r.display),
        )
        .with("path", path)),
        Ok(r) => {
            fsio::Sandbox::open(ws.root())?.create_dirs(&r.real)?;
            Ok(to_value(&CreateDirectorySuccess {
                ok: True,
                path: r.display,
                created: true,
            }))
        }
        Err(f) if f.code == Code::TargetIsDirectory => {
            let d = resolve_dir(&ws, Some(trimmed))?;
            Ok(to_value(&CreateDirectorySuccess {
                ok: True,
                path: d.display,
                created: false,
            }))
        }
        Err(f) => Err(f),
    }
}
