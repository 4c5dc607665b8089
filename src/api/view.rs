//! `viewFile(filePath, options)`: a file's text, whole or a line range, plain, numbered or hashline.
//!
//! `content` shows each line followed by `"\n"`, whatever the file's own terminator (`line_ending`
//! says which it is; edits write new lines with it); the file's last line has no `"\n"` after it when
//! the file does not end with a terminator. So the plain view of a whole LF file is the file's text.
//! Formats prefix each line: `numbered` as `cat -n` does (`%6d\t`), `hashline` as `N:tag|` with the
//! line's [`line_tag`] — the anchors `editLines` takes, and a prefix the matcher strips from pasted
//! `old` text.
//!
//! A view is capped: without `end_line` it shows at most [`VIEW_MAX_LINES`] lines (option
//! `max_lines`), and at most [`VIEW_MAX_BYTES`] of content (option `max_bytes`). A cut view says
//! `truncated: true` and `next_start_line`, the `start_line` that continues it.
//!
//! Once an edit in this process has run the syntax gate (option `validate`), viewing a file the gate
//! has a grammar for (up to [`syntax::MAX_BYTES`]) also hands its text to a background thread that
//! parses it into the gate's tree cache ([`syntax::warm`]), so the first checked edit of the file
//! re-parses incrementally. The view never waits for it: at most two texts queue, more are dropped;
//! other files cost one extension lookup.

use super::args::bad;
use super::options::{root, DEFAULT_MAX_FILE_BYTES};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, True, ViewFileSuccess};
use crate::edit::hash::file_hash;
use crate::edit::line_edit::{push_line, Format};
use crate::edit::text::LineTable;
use crate::error::Failure;
use crate::fs::codec::{self, detect_line_ending};
use crate::fs::txn::Txn;
use crate::fs::workspace::{Resolve, Workspace};
use crate::syntax;

/// Default cap on the lines of a view without `end_line`.
pub const VIEW_MAX_LINES: u64 = 2000;
/// Default cap on the bytes of a view's content.
pub const VIEW_MAX_BYTES: u64 = 256 * 1024;

/// Queues `text` for [`syntax::warm`] on the background thread (see the module doc).
fn warm_syntax(path: &str, text: &str) {
    use std::sync::mpsc::{sync_channel, SyncSender};
    use std::sync::{Mutex, OnceLock};
    if !super::checks::GATE_USED.load(std::sync::atomic::Ordering::Relaxed)
        || text.len() > syntax::MAX_BYTES
        || syntax::language_for(path).is_none()
    {
        return;
    }
    type Job = (String, String);
    static QUEUE: OnceLock<Option<Mutex<SyncSender<Job>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = sync_channel::<Job>(2);
        std::thread::Builder::new()
            .name("surepatch-syntax-warm".into())
            .spawn(move || {
                for (path, text) in rx {
                    syntax::warm(&path, &text);
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    if let Some(tx) = queue {
        let tx = tx.lock().unwrap_or_else(|e| e.into_inner());
        let _ = tx.try_send((path.to_string(), text.to_string()));
    }
}

/// `viewFile(filePath, options)`.
pub fn view_file(a: i::ViewFileArgs) -> Res {
    view(a).map(|v| to_value(&v))
}

/// `viewFile`, as its receipt type (`readManyFiles` collects these).
pub(super) fn view(a: i::ViewFileArgs) -> crate::error::Result<ViewFileSuccess> {
    let path = a.file_path.as_str();
    let o = a.options.unwrap_or_default();
    let root = root(&o.root)?;
    let format = match o.format {
        Some(i::ViewFormat::Numbered) => Format::Numbered,
        Some(i::ViewFormat::Hashline) => Format::Hashline,
        _ => Format::Plain,
    };
    let start = o.start_line;
    let end = o.end_line;
    let max_bytes = o.max_bytes.unwrap_or(VIEW_MAX_BYTES);
    let max_lines = o.max_lines;
    let tail = o.tail;
    let max_file_bytes = o.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES);
    if start == Some(0) || end == Some(0) || max_lines == Some(0) {
        return Err(bad(
            "line numbers start at 1 (start_line / end_line), and max_lines must be at least 1.",
        ));
    }
    if tail == Some(0)
        || (tail.is_some() && (start.is_some() || end.is_some() || max_lines.is_some()))
    {
        return Err(bad(
            "tail shows the last tail lines (at least 1), and is given alone: without start_line, end_line or max_lines (head).",
        ));
    }

    let ws = Workspace::new(&root)?;
    let txn = Txn::open(
        &ws,
        &[(path.to_string(), Resolve::Existing)],
        max_file_bytes,
    )?;
    let file = &txn.files[0];
    let with_path = |f: Failure| f.with("file_path", &file.display);
    let bytes = file.bytes.as_deref().unwrap_or_default();
    let (text, encoding) = codec::decode_slice(bytes).map_err(with_path)?;
    warm_syntax(&file.display, &text);
    let lt = LineTable::new(&text);
    let total = lt.len();
    let first = match tail {
        Some(n) => total.saturating_sub(n as usize) + 1,
        None => start.unwrap_or(1) as usize,
    };
    if first > total.max(1) {
        return Err(with_path(bad(format!(
            "start_line is {first}, but the file has {total} line(s)."
        )))
        .with("total_lines", total));
    }
    let last = match end {
        Some(e) if (e as usize) < first => {
            return Err(with_path(bad(format!(
                "end_line ({e}) is before start_line ({first})."
            ))))
        }
        Some(e) => (e as usize).min(total),
        None => total,
    };
    let line_cap = match (end, max_lines) {
        (_, Some(m)) => Some(m),
        (None, None) => Some(VIEW_MAX_LINES),
        (Some(_), None) => None,
    };
    let (last, mut truncated) = match line_cap {
        Some(m) if last - (first - 1) > m as usize => (first - 1 + m as usize, true),
        _ => (last, false),
    };
    let mut content = String::new();
    let mut shown = first - 1;
    let mut piece = String::new();
    for i in first - 1..last {
        piece.clear();
        push_line(&mut piece, format, i + 1, lt.content(i, &text));
        if lt.has_terminator(i) {
            piece.push('\n');
        }
        if (content.len() + piece.len()) as u64 > max_bytes {
            truncated = true;
            break;
        }
        content.push_str(&piece);
        shown = i + 1;
    }
    let next_start_line = truncated.then_some(shown + 1);
    let hint = (truncated && shown + 1 == first).then(|| {
        format!(
            "line {first} alone is longer than max_bytes ({max_bytes}); raise max_bytes to see it."
        )
    });
    Ok(ViewFileSuccess {
        ok: True,
        file_hash: file_hash(bytes),
        line_ending: detect_line_ending(&text).as_str(),
        file_path: file.display.clone(),
        content,
        start_line: first,
        end_line: shown,
        total_lines: total,
        encoding: encoding.as_str(),
        truncated,
        next_start_line,
        hint,
    })
}
