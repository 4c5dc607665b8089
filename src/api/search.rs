//! `searchFiles(query, options)`: literal or regex search over the workspace, built on the crates
//! ripgrep is built from (`ignore` for the walk, `grep-regex` and `grep-searcher` for the search).
//!
//! `path` names a directory (default: the root) or a single file to search. The walk is the one of [`super::browse`] (sandboxed start directory, `.gitignore`-aware, hidden
//! files off, symlinks never followed, `.git` skipped), run on several threads. Binary files (a NUL
//! byte) are skipped; UTF-16 files with a BOM are searched as text; other bytes that are not UTF-8
//! are shown lossily. Each file is opened without following a symlink swapped into its final
//! component after the walk saw it.
//!
//! A file that cannot be opened or read is skipped and counted in `files_unreadable` (present when
//! not 0). A file larger than `max_file_bytes` (default 256 MiB, as for the edit tools) is not
//! searched (`files_too_large`), and no line may hold more than [`MAX_SEARCH_LINE_BYTES`] in memory:
//! the search of a file stops at such a line (`files_with_overlong_lines`; the matches before it are
//! kept). A file is opened through the root's handle with `O_NOFOLLOW | O_NONBLOCK` and searched only
//! if the open descriptor is a regular file, so a FIFO or a link to a device (swapped in after the
//! walk saw a file) is never read. A path naming a file searches it alone; a symlink met by the walk
//! is never searched, one named as `path` is resolved like any path (inside the root only).
//!
//! Matches are grouped by file, sorted by path then line. At most `max_results` matching lines are
//! returned (default [`DEFAULT_MAX`]); a cut result says `truncated: true` with a `hint`. A shown
//! line longer than [`MAX_LINE_BYTES`] is cut (at a character boundary) and the result says
//! `long_lines_cut: true`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use std::io::Read;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::overrides::OverrideBuilder;
use ignore::WalkState;

use super::args::bad;
use super::browse::{git_dir_refused, in_git_dir, resolve_dir, walker, WalkOpts, HARD_MAX};
use super::options::{root, DEFAULT_MAX_FILE_BYTES};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{
    to_value, SearchFileResult, SearchFilesSuccess, SearchMatch, True,
};
use crate::error::Code;
use crate::fs::fsio::Sandbox;
use crate::fs::workspace::{Resolve, Workspace};

/// Default `max_results` (matching lines).
pub const DEFAULT_MAX: u64 = 200;
/// Largest `context_lines`.
pub const MAX_CONTEXT: u64 = 20;
/// Longest line shown in a result, in bytes.
pub const MAX_LINE_BYTES: usize = 500;
/// Longest line a search holds in memory (4 MiB): the search of a file stops at a longer one.
pub const MAX_SEARCH_LINE_BYTES: usize = 4 * 1024 * 1024;

struct Hit {
    line: u64,
    text: String,
    before: Vec<String>,
    after: Vec<String>,
}

/// Collects one file's matches.
struct Collect<'a> {
    hits: Vec<Hit>,
    before: Vec<String>,
    context: bool,
    total: &'a AtomicUsize,
    max: usize,
    stop: &'a AtomicBool,
    cut: bool,
}

impl Collect<'_> {
    fn text(&mut self, bytes: &[u8]) -> String {
        let mut b = bytes;
        while let [rest @ .., b'\n' | b'\r'] = b {
            b = rest;
        }
        let s = String::from_utf8_lossy(b);
        if s.len() <= MAX_LINE_BYTES {
            return s.into_owned();
        }
        self.cut = true;
        let mut end = MAX_LINE_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.total.fetch_add(1, Ordering::Relaxed) >= self.max {
            self.stop.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        let text = self.text(m.bytes());
        let before = std::mem::take(&mut self.before);
        self.hits.push(Hit {
            line: m.line_number().unwrap_or(0),
            text,
            before,
            after: Vec::new(),
        });
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if !self.context {
            return Ok(true);
        }
        let t = self.text(c.bytes());
        match c.kind() {
            SinkContextKind::Before => self.before.push(t),
            SinkContextKind::After => {
                if let Some(h) = self.hits.last_mut() {
                    h.after.push(t);
                }
            }
            SinkContextKind::Other => {}
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.before.clear();
        Ok(true)
    }
}

/// What the search threads share.
struct Shared {
    total: AtomicUsize,
    stop: AtomicBool,
    found: Mutex<Vec<(String, Vec<Hit>)>>,
    cut: AtomicBool,
    files_searched: AtomicUsize,
    unreadable: AtomicUsize,
    too_large: AtomicUsize,
    overlong: AtomicUsize,
    max: usize,
    context: usize,
    max_file_bytes: u64,
}

/// A reader that remembers whether a read failed, to tell a read error from the searcher's line cap.
struct Watched<R> {
    inner: R,
    failed: bool,
}

impl<R: std::io::Read> std::io::Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let r = self.inner.read(buf);
        self.failed |= r.is_err();
        r
    }
}

impl Shared {
    fn searcher(&self) -> Searcher {
        SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .before_context(self.context)
            .after_context(self.context)
            .heap_limit(Some(MAX_SEARCH_LINE_BYTES))
            .build()
    }

    /// Searches one file (`real`, already inside the workspace) and keeps its matches.
    fn search_one(
        &self,
        searcher: &mut Searcher,
        matcher: &RegexMatcher,
        real: &Path,
        ws: &Workspace,
        sb: &Sandbox,
    ) {
        // Through the root's directory handle: a parent swapped for a symlink while the walk runs
        // cannot make the search read a file outside the workspace.
        let Some((file, size)) = sb.open_regular(real) else {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return;
        };
        if size > self.max_file_bytes {
            self.too_large.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.files_searched.fetch_add(1, Ordering::Relaxed);
        let mut sink = Collect {
            hits: Vec::new(),
            before: Vec::new(),
            context: self.context > 0,
            total: &self.total,
            max: self.max,
            stop: &self.stop,
            cut: false,
        };
        // At most max_file_bytes, also of a file that grows while it is searched.
        let mut from = Watched {
            inner: (&file).take(self.max_file_bytes),
            failed: false,
        };
        if searcher
            .search_reader(matcher, &mut from, &mut sink)
            .is_err()
        {
            // The sink never fails: a failed read, or else a line above the searcher's heap limit.
            let counter = match from.failed {
                true => &self.unreadable,
                false => &self.overlong,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }
        if sink.cut {
            self.cut.store(true, Ordering::Relaxed);
        }
        if !sink.hits.is_empty() {
            self.found
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((ws.display(real), sink.hits));
        }
    }
}

/// `searchFiles(query, {regex, path, glob, case_sensitive, context_lines, max_results,
/// include_ignored, include_hidden, max_file_bytes, workspace_root})`.
pub fn search_files(a: i::SearchFilesArgs) -> Res {
    let query = a.query.as_str();
    let o = a.options.unwrap_or_default();
    let root = root(&o.root)?;
    let regex = o.regex.unwrap_or(false);
    let path = o.path.as_deref();
    let glob = o.glob.as_deref();
    let case_sensitive = o.case_sensitive.unwrap_or(true);
    let context_lines = o.context_lines.unwrap_or(0);
    let max = o.max_results.unwrap_or(DEFAULT_MAX);
    let include_ignored = o.include_ignored.unwrap_or(false);
    let include_hidden = o.include_hidden.unwrap_or(false);
    let max_file_bytes = o.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES);
    if query.is_empty() {
        return Err(bad(
            "query is empty; pass the text (or regex: true and a pattern) to look for.",
        ));
    }
    if context_lines > MAX_CONTEXT {
        return Err(bad(format!(
            "context_lines must be at most {MAX_CONTEXT}, got {context_lines}."
        )));
    }
    if max == 0 || max > HARD_MAX {
        return Err(bad(format!(
            "max_results must be between 1 and {HARD_MAX}, got {max}."
        )));
    }
    let matcher = RegexMatcherBuilder::new()
        .fixed_strings(!regex)
        .case_insensitive(!case_sensitive)
        .line_terminator(Some(b'\n'))
        .build(query)
        .map_err(|e| {
            bad(if regex {
                format!("query is not a valid regex (Rust regex syntax; a match cannot span lines): {e}")
            } else {
                format!("query cannot be searched: {e}")
            })
        })?;
    let ws = Workspace::new(&root)?;
    let sb = Sandbox::open(ws.root())?;
    let shared = Shared {
        total: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        found: Mutex::new(Vec::new()),
        cut: AtomicBool::new(false),
        files_searched: AtomicUsize::new(0),
        unreadable: AtomicUsize::new(0),
        too_large: AtomicUsize::new(0),
        overlong: AtomicUsize::new(0),
        max: max as usize,
        context: context_lines as usize,
        max_file_bytes,
    };
    // A path naming a file searches that file alone.
    let single = match path {
        Some(p) if in_git_dir(p) => return Err(git_dir_refused(p, p)),
        Some(p) if !p.ends_with('/') => match ws.resolve(p, Resolve::Existing) {
            Ok(r) if in_git_dir(&r.display) => return Err(git_dir_refused(p, &r.display)),
            Ok(r) => Some(r),
            Err(f) if f.code == Code::TargetIsDirectory => None,
            Err(f) if f.code == Code::FileNotFound => None, // reported as a missing directory below
            Err(f) => return Err(f),
        },
        _ => None,
    };
    let (shown_path, skipped_ignore_files) = if let Some(r) = &single {
        shared.search_one(&mut shared.searcher(), &matcher, &r.real, &ws, &sb);
        (r.display.clone(), None)
    } else {
        let dir = resolve_dir(&ws, path)?;
        let glob = match glob {
            Some(g) => {
                // The glob matches like findFiles' pattern: without '/', a file name at any depth.
                let g = g.strip_prefix("./").unwrap_or(g);
                let g = if g.contains('/') {
                    format!("/{g}")
                } else {
                    g.to_string()
                };
                let mut ob = OverrideBuilder::new(&dir.real);
                ob.add(&g)
                    .map_err(|e| bad(format!("glob {g:?} is not a valid glob: {e}")))?;
                Some(
                    ob.build()
                        .map_err(|e| bad(format!("glob {g:?} is not a valid glob: {e}")))?,
                )
            }
            None => None,
        };
        let walk = walker(
            &ws,
            &dir,
            WalkOpts {
                include_ignored,
                include_hidden,
                max_depth: None,
            },
            glob,
        )?;
        walk.builder.build_parallel().run(|| {
            let matcher = matcher.clone();
            let mut searcher = shared.searcher();
            let (ws, shared, sb) = (&ws, &shared, &sb);
            Box::new(move |entry| {
                if shared.stop.load(Ordering::Relaxed) {
                    return WalkState::Quit;
                }
                let Ok(e) = entry else {
                    return WalkState::Continue;
                };
                if !e.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                shared.search_one(&mut searcher, &matcher, e.path(), ws, sb);
                if shared.stop.load(Ordering::Relaxed) {
                    WalkState::Quit
                } else {
                    WalkState::Continue
                }
            })
        });
        (dir.display, walk.skipped_ignore_files())
    };
    let Shared {
        total: _,
        stop,
        found,
        cut,
        files_searched,
        unreadable,
        too_large,
        overlong,
        ..
    } = shared;
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let truncated = stop.load(Ordering::Relaxed);
    let mut match_count = 0;
    let results: Vec<SearchFileResult> = found
        .into_iter()
        .map(|(file, hits)| {
            match_count += hits.len();
            let matches = hits
                .into_iter()
                .map(|h| {
                    let (before, after) = if context_lines > 0 {
                        (Some(h.before), Some(h.after))
                    } else {
                        (None, None)
                    };
                    SearchMatch {
                        line_number: h.line,
                        text: h.text,
                        before,
                        after,
                    }
                })
                .collect();
            SearchFileResult {
                file_path: file,
                matches,
            }
        })
        .collect();
    let unreadable = unreadable.load(Ordering::Relaxed);
    let long_lines_cut = cut.load(Ordering::Relaxed);
    let (too_large, overlong) = (
        too_large.load(Ordering::Relaxed),
        overlong.load(Ordering::Relaxed),
    );
    let skipped_hint = match (too_large, overlong) {
        (0, 0) => None,
        (t, o) => Some(skipped_hint(t, o, max_file_bytes)),
    };
    Ok(to_value(&SearchFilesSuccess {
        ok: True,
        path: shown_path,
        files_with_matches: results.len(),
        results,
        match_count,
        files_searched: files_searched.load(Ordering::Relaxed),
        truncated,
        hint: truncated.then(|| format!(
            "stopped after {max} matching lines; narrow the query, path or glob, or raise max_results (up to {HARD_MAX})."
        )),
        files_unreadable: (unreadable > 0).then_some(unreadable),
        long_lines_cut: long_lines_cut.then_some(True),
        long_lines_hint: long_lines_cut.then(|| format!(
            "lines longer than {MAX_LINE_BYTES} bytes are cut and end with '…'; read them with view_file."
        )),
        files_too_large: (too_large > 0).then_some(too_large),
        files_with_overlong_lines: (overlong > 0).then_some(overlong),
        skipped_hint,
        skipped_ignore_files,
    }))
}

/// What `files_too_large` and `files_with_overlong_lines` left out, and how to see it.
fn skipped_hint(too_large: usize, overlong: usize, max_file_bytes: u64) -> String {
    let mut parts = Vec::new();
    if too_large > 0 {
        parts.push(format!(
            "{too_large} file(s) larger than max_file_bytes ({max_file_bytes} bytes) were not searched (raise max_file_bytes to search them)"
        ));
    }
    if overlong > 0 {
        parts.push(format!(
            "{overlong} file(s) hold a line longer than {MAX_SEARCH_LINE_BYTES} bytes, where their search stopped (matches before it are shown; read the rest with view_file)"
        ));
    }
    format!("{}.", parts.join("; "))
}
