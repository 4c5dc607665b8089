//! `readManyFiles(files, options)`: several files or line ranges in one call.
//!
//! Each item is a path or `{file_path, start_line, end_line}` and is read exactly as `viewFile` reads
//! it (same sandbox, encodings, formats, `file_hash`, default caps and `truncated` /
//! `next_start_line`). One item's failure is reported in its own slot (`{ok: false, code, message,
//! file_path}`) and does not fail the others. At most [`MAX_FILES`] items per call; all items together
//! show at most [`TOTAL_MAX_BYTES`] of content (option `max_bytes` lowers it): once it is spent, the
//! remaining items come back `truncated` with empty content and their `next_start_line`.

use serde_json::{json, Map, Value};

use super::args::{bad, type_name, Obj};
use super::options::read_root;
use super::view::{view, VIEW_MAX_BYTES};
use super::{arg, failure_value, Res};
use crate::contract::receipts::{to_value, ReadManyEntry, ReadManyFilesSuccess, True};

/// Most items per call.
pub const MAX_FILES: usize = 100;
/// Most content bytes per call, all items together.
pub const TOTAL_MAX_BYTES: u64 = 1024 * 1024;

struct Item {
    path: String,
    start: Option<Value>,
    end: Option<Value>,
}

fn read_item(v: &Value, i: usize) -> Result<Item, crate::error::Failure> {
    match v {
        Value::String(s) => Ok(Item {
            path: s.clone(),
            start: None,
            end: None,
        }),
        Value::Object(_) => {
            let name = format!("files[{i}]");
            let mut o = Obj::new(&name, Some(v), false)?;
            let path = o
                .req_string(crate::contract::inputs::FILE_PATH_OR_PATH)?
                .to_string();
            let start = o.get(&["start_line", "startLine"])?.cloned();
            let end = o.get(&["end_line", "endLine"])?.cloned();
            o.finish()?;
            Ok(Item { path, start, end })
        }
        other => Err(bad(format!(
            "files[{i}] must be a path or {{file_path, start_line, end_line}}, got {}.",
            type_name(other)
        ))),
    }
}

/// `readManyFiles(files, {format, max_bytes, max_file_bytes, workspace_root})`.
pub fn read_many_files(args: &[Value]) -> Res {
    let list = match arg(args, 0) {
        Some(Value::Array(a)) => a,
        Some(v) => {
            return Err(bad(format!(
                "files must be an array of paths or {{file_path, start_line, end_line}}, got {}.",
                type_name(v)
            )))
        }
        None => return Err(bad("files is required (an array of paths).")),
    };
    if list.is_empty() {
        return Err(bad("files is empty; name at least one file."));
    }
    if list.len() > MAX_FILES {
        return Err(bad(format!(
            "files has {} items; at most {MAX_FILES} per call.",
            list.len()
        )));
    }
    let items: Vec<Item> = list
        .iter()
        .enumerate()
        .map(|(i, v)| read_item(v, i))
        .collect::<Result<_, _>>()?;
    let mut o = Obj::new("options", arg(args, 1), true)?;
    let root = read_root(&mut o)?;
    let format = o
        .choice(&["format"], &["plain", "numbered", "hashline"])?
        .map(Value::from);
    let max_bytes = o.uint(&["max_bytes", "maxBytes"])?;
    let max_file_bytes = o.get(&["max_file_bytes", "maxFileBytes"])?.cloned();
    o.finish()?;
    let mut budget = max_bytes.unwrap_or(TOTAL_MAX_BYTES).min(TOTAL_MAX_BYTES);
    let mut files = Vec::with_capacity(items.len());
    let mut failed = 0;
    for item in items {
        let mut opts = Map::new();
        opts.insert("workspace_root".into(), json!(root.to_string_lossy()));
        for (k, v) in [
            ("format", &format),
            ("start_line", &item.start),
            ("end_line", &item.end),
            ("max_file_bytes", &max_file_bytes),
        ] {
            if let Some(v) = v {
                opts.insert(k.into(), v.clone());
            }
        }
        opts.insert("max_bytes".into(), json!(budget.min(VIEW_MAX_BYTES)));
        let v = match view(&[json!(item.path), Value::Object(opts)]) {
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
