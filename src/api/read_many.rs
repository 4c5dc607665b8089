//! `readManyFiles(files, options)`: several files or line ranges in one call.
//!
//! Each item is a path or `{file_path, start_line, end_line}` and is read exactly as `viewFile` reads
//! it (same sandbox, encodings, formats, `file_hash`, default caps and `truncated` /
//! `next_start_line`). One item's failure is reported in its own slot (`{ok: false, code, message,
//! file_path}`) and does not fail the others. At most [`MAX_FILES`] items per call; all items together
//! show at most [`TOTAL_MAX_BYTES`] of content (option `max_bytes` lowers it): once it is spent, the
//! remaining items come back `truncated` with empty content and their `next_start_line`.

use serde_json::json;

use super::args::bad;
use super::options::root;
use super::view::{view, VIEW_MAX_BYTES};
use super::{failure_value, Res};
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, ReadManyEntry, ReadManyFilesSuccess, True};

/// Most items per call.
pub const MAX_FILES: usize = 100;
/// Most content bytes per call, all items together.
pub const TOTAL_MAX_BYTES: u64 = 1024 * 1024;

struct Item {
    path: String,
    start: Option<u64>,
    end: Option<u64>,
}

/// `readManyFiles(files, {format, max_bytes, max_file_bytes, workspace_root})`.
pub fn read_many_files(a: i::ReadManyFilesArgs) -> Res {
    if a.files.is_empty() {
        return Err(bad("files is empty; name at least one file."));
    }
    if a.files.len() > MAX_FILES {
        return Err(bad(format!(
            "files has {} items; at most {MAX_FILES} per call.",
            a.files.len()
        )));
    }
    let items: Vec<Item> = a
        .files
        .into_iter()
        .map(|f| match f {
            i::ReadManyItem::Path(path) => Item {
                path,
                start: None,
                end: None,
            },
            i::ReadManyItem::Range(r) => Item {
                path: r.file_path,
                start: r.start_line,
                end: r.end_line,
            },
        })
        .collect();
    let o = a.options.unwrap_or_default();
    let root = root(&o.root)?;
    let format = o.format;
    let max_bytes = o.max_bytes;
    let max_file_bytes = o.max_file_bytes;
    let mut budget = max_bytes.unwrap_or(TOTAL_MAX_BYTES).min(TOTAL_MAX_BYTES);
    let mut files = Vec::with_capacity(items.len());
    let mut failed = 0;
    for item in items {
        let opts = i::ViewFileOptions {
            root: i::WorkspaceOption {
                workspace_root: Some(root.to_string_lossy().into_owned()),
                lock_timeout_ms: o.root.lock_timeout_ms,
            },
            format,
            start_line: item.start,
            end_line: item.end,
            max_bytes: Some(budget.min(VIEW_MAX_BYTES)),
            max_lines: None,
            tail: None,
            max_file_bytes,
        };
        let v = match view(i::ViewFileArgs {
            file_path: item.path.clone(),
            options: Some(opts),
        }) {
            Ok(v) => {
                budget = budget.saturating_sub(v.content.len() as u64);
                ReadManyEntry::Read(v)
            }
            Err(f) => {
                failed += 1;
                let mut v = failure_value(&f);
                if v.get("file_path").is_none() {
                    v["file_path"] = json!(item.path);
                }
                ReadManyEntry::Failed(v)
            }
        };
        files.push(v);
    }
    Ok(to_value(&ReadManyFilesSuccess {
        ok: True,
        files,
        failed,
        hint: (budget == 0).then(|| {
            "the content budget of this call was spent; read the files marked truncated from their next_start_line in another call.".to_string()
        }),
    }))
}
