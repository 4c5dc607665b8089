//! What happens around every call: the fallback ladder on failures (`next_action`, `attempt`,
//! `repeated`), the counters behind `getStats`, and the optional JSON-lines event log.
//!
//! State is per process and bounded: at most [`MAX_FILES`] files are tracked (least recently used
//! first out), latencies keep the last [`MAX_SAMPLES`] per entry point.
//!
//! The ladder escalates instead of letting a model retry blindly:
//! - `SEARCH_BLOCK_NOT_FOUND`: 1st failure → `reread` (the best candidate's lines); 2nd → `use_line_edit`
//!   (view as hashline, then `editLines`); 3rd and later → `rewrite_file` when the file has at most
//!   [`SMALL_FILE_LINES`] lines, else `use_line_edit` again;
//! - `SEARCH_BLOCK_AMBIGUOUS`, `MATCH_COUNT_MISMATCH` → `widen_context`;
//! - `STALE_FILE`, `STALE_ANCHOR`, read/write/internal errors → `reread`;
//! - `SYNTAX_ERROR_INTRODUCED` → `fix_input`: the edit landed in the right place but its new text does
//!   not parse; the message shows where, and the same edit with corrected text will go through;
//! - `REWRITE_TOO_BROAD` → `use_line_edit`: a whole-file rewrite touched more lines than allowed, which
//!   almost always means the model regenerated text it meant to keep; the way out is a targeted edit
//!   of the lines that must change (hashline view + `editLines`), not a corrected rewrite (a model
//!   that does intend the broad rewrite raises `max_changed_lines`, as the message says);
//! - everything else (bad input, parse errors, paths, …) → `fix_input`.
//!
//! `attempt` counts the failures of this same call since its file was last viewed or changed, this one
//! included: the same op failing on the same file with the same code (a model correcting its search
//! text is retrying the same call, and the ladder above is for it), or, for a call that reached no file,
//! the same op with the same arguments. Failures of other ops, on other files, with other codes, or
//! other bad calls that reached no file do not count (issue #27 §3). `repeated` counts how often this
//! exact payload failed on the file in a row, just before.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::contract::receipts::{self, indexmap_like::OrderedMap, Stats, True};
use serde_json::{json, Map, Value};

pub const MAX_FILES: usize = 4096;
pub const MAX_SAMPLES: usize = 2048;
pub const SMALL_FILE_LINES: u64 = 400;

fn take_touched() -> Vec<String> {
    crate::fs::trace::take()
}

/// How many different failing calls per file `attempt` keeps counts for (the least recent is forgotten).
const CALLS_PER_FILE: usize = 32;

#[derive(Default)]
struct FileState {
    /// `(call, failures)` of the calls that failed on this file (or, under the key `""`, on none),
    /// least recent first; `call` is the hash of `(op, code)`, or of `(op, payload)` without a file.
    calls: Vec<(u64, u64)>,
    last_payload: Option<u64>,
    repeated: u64,
    failures_since_success: u64,
    used: u64,
}

#[derive(Default)]
struct OpStats {
    calls: u64,
    ok: u64,
    failed: u64,
    samples: Vec<f64>,
    next_sample: usize,
    max_ms: f64,
}

#[derive(Default)]
struct State {
    files: HashMap<String, FileState>,
    clock: u64,
    ops: BTreeMap<String, OpStats>,
    failures_by_code: BTreeMap<String, u64>,
    successes_by_tier: BTreeMap<String, u64>,
    /// Successful calls that needed each dialect liberty (see `crate::edit::ir::Dialect`).
    successes_by_dialect: BTreeMap<String, u64>,
    changed_lines: [u64; 6],
    retries_total: u64,
    successes_counted: u64,
    rolled_back: u64,
    undos: u64,
    syntax_refusals: u64,
    stuck_loops: u64,
    since: u64,
    log_path: Option<Option<String>>,
    /// The event log path whose failure was last reported on stderr (each is reported once).
    log_reported: Option<String>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut guard = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let s = guard.get_or_insert_with(|| State {
        since: now_ms(),
        ..State::default()
    });
    f(s)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

const BUCKETS: [(&str, u64); 6] = [
    ("0", 0),
    ("1", 1),
    ("2-5", 5),
    ("6-20", 20),
    ("21-100", 100),
    ("101+", u64::MAX),
];

/// Lines added plus lines removed, from every `diff` in a result.
fn lines_changed(v: &Value) -> u64 {
    let count = |d: &str| {
        d.lines()
            .filter(|l| {
                (l.starts_with('+') && !l.starts_with("+++ "))
                    || (l.starts_with('-') && !l.starts_with("--- "))
            })
            .count() as u64
    };
    let mut n = v.get("diff").and_then(Value::as_str).map_or(0, count);
    if let Some(files) = v.get("files").and_then(Value::as_array) {
        n += files
            .iter()
            .filter_map(|f| f.get("diff").and_then(Value::as_str))
            .map(count)
            .sum::<u64>();
    }
    n
}

fn payload_hash(op: &str, payload: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    op.hash(&mut h);
    payload.hash(&mut h);
    h.finish()
}

/// Operations that change files (their success resets a file's ladder).
fn is_write(op: &str) -> bool {
    !matches!(
        op,
        "view_file"
            | "list_symbols"
            | "preview_edits"
            | "codes"
            | "get_stats"
            | "set_event_log"
            | "permission_scope"
            | "parse_blocks"
            | "parse_path_blocks"
            | "touched_files"
            | "create_checkpoint"
            | "list_checkpoints"
    )
}

/// Operations counted in the statistics and the event log.
fn is_counted(op: &str) -> bool {
    !matches!(
        op,
        "codes" | "get_stats" | "set_event_log" | "touched_files"
    )
}

pub struct Call {
    start: Instant,
}

pub fn begin() -> Call {
    take_touched();
    Call {
        start: Instant::now(),
    }
}

/// Adds the ladder fields to a failure, and updates the counters and the event log.
pub fn finish(call: Call, op: &str, payload: &str, result: &mut Value) {
    let ms = call.start.elapsed().as_secs_f64() * 1000.0;
    let touched = take_touched();
    if !is_counted(op) {
        return;
    }
    let ok = result.get("ok").and_then(Value::as_bool).unwrap_or(false);
    let code = result
        .get("code")
        .and_then(Value::as_str)
        .map(str::to_string);
    let tier = result
        .get("tier")
        .and_then(Value::as_str)
        .map(str::to_string);
    let changed = if ok { lines_changed(result) } else { 0 };
    let dialect: Vec<String> = result
        .get("dialect")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let dry = result.get("written").and_then(Value::as_bool) == Some(false);
    let key = touched.first().cloned().unwrap_or_default();
    let phash = payload_hash(op, payload);
    let mut attempt_out = None;
    let log = with_state(|s| {
        s.clock += 1;
        let clock = s.clock;
        let st = s.ops.entry(op.to_string()).or_default();
        st.calls += 1;
        if st.samples.len() < MAX_SAMPLES {
            st.samples.push(ms);
        } else {
            let i = st.next_sample;
            st.samples[i] = ms;
            st.next_sample = (i + 1) % MAX_SAMPLES;
        }
        st.max_ms = st.max_ms.max(ms);
        if ok {
            st.ok += 1;
            if let Some(t) = &tier {
                *s.successes_by_tier.entry(t.clone()).or_default() += 1;
            }
            for d in &dialect {
                *s.successes_by_dialect.entry(d.clone()).or_default() += 1;
            }
            let b = BUCKETS
                .iter()
                .position(|&(_, hi)| changed <= hi)
                .unwrap_or(5);
            s.changed_lines[b] += 1;
            if op == "undo_edit" {
                s.undos += 1;
            }
            let resets = op == "view_file" || (is_write(op) && !dry);
            if resets {
                for k in &touched {
                    if let Some(f) = s.files.remove(k) {
                        if is_write(op) {
                            s.retries_total += f.failures_since_success;
                        }
                    }
                }
                if is_write(op) {
                    s.successes_counted += 1;
                }
            }
        } else {
            st.failed += 1;
            let code = code.clone().unwrap_or_default();
            *s.failures_by_code.entry(code.clone()).or_default() += 1;
            if code == "SYNTAX_ERROR_INTRODUCED" {
                s.syntax_refusals += 1;
            }
            if result
                .get("rolled_back")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
            {
                s.rolled_back += 1;
            }
            if s.files.len() >= MAX_FILES && !s.files.contains_key(&key) {
                if let Some(oldest) = s
                    .files
                    .iter()
                    .min_by_key(|(_, f)| f.used)
                    .map(|(k, _)| k.clone())
                {
                    s.files.remove(&oldest);
                }
            }
            let f = s.files.entry(key.clone()).or_default();
            f.used = clock;
            f.failures_since_success += 1;
            let this_call = if key.is_empty() {
                phash
            } else {
                payload_hash(op, &code)
            };
            let attempt = match f.calls.iter().position(|(h, _)| *h == this_call) {
                Some(i) => {
                    let mut c = f.calls.remove(i);
                    c.1 += 1;
                    f.calls.push(c);
                    c.1
                }
                None => {
                    if f.calls.len() >= CALLS_PER_FILE {
                        f.calls.remove(0);
                    }
                    f.calls.push((this_call, 1));
                    1
                }
            };
            if f.last_payload == Some(phash) {
                f.repeated += 1;
            } else {
                f.repeated = 0;
                f.last_payload = Some(phash);
            }
            let repeated = f.repeated;
            if repeated > 0 {
                s.stuck_loops += 1;
            }
            attempt_out = Some(attempt);
            ladder(result, &code, attempt, repeated);
        }
        s.log_path.clone()
    });
    let log_path = match log {
        Some(p) => p,
        None => {
            let p = std::env::var("SUREPATCH_LOG")
                .ok()
                .filter(|p| !p.is_empty());
            with_state(|s| s.log_path = Some(p.clone()));
            p
        }
    };
    if let Some(path) = log_path {
        let mut line = Map::new();
        line.insert("ts".into(), json!(now_ms()));
        line.insert("op".into(), json!(op));
        if let Some(p) = result.get("file_path") {
            line.insert("path".into(), p.clone());
        }
        line.insert("ok".into(), json!(ok));
        if let Some(c) = &code {
            line.insert("code".into(), json!(c));
        }
        if let Some(t) = &tier {
            line.insert("tier".into(), json!(t));
        }
        if !dialect.is_empty() {
            line.insert("dialect".into(), json!(dialect));
        }
        line.insert("ms".into(), json!((ms * 1000.0).round() / 1000.0));
        line.insert("lines_changed".into(), json!(changed));
        if let Some(a) = attempt_out {
            line.insert("attempt".into(), json!(a));
        }
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        if let Err(why) = append_line(&path, text.as_bytes()) {
            let first = with_state(|s| {
                let first = s.log_reported.as_deref() != Some(path.as_str());
                s.log_reported = Some(path.clone());
                first
            });
            if first {
                eprintln!(
                    "surepatch: event log {path:?}: {why}; events are not being logged (reported once for this path)."
                );
            }
        }
    }
}

/// Opens `path` for appending without ever blocking: `O_NONBLOCK` (a FIFO without a reader fails at
/// once instead of waiting for one; on a regular file the flag changes nothing) and `O_NOCTTY`.
fn open_log(path: &str) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC);
    }
    o.open(path)
}

/// Appends one line to the event log, which must be a regular file (checked on the open handle, so a
/// FIFO, socket or device swapped in is refused too): a log must never block or fail a call.
fn append_line(path: &str, line: &[u8]) -> std::result::Result<(), String> {
    let mut f = open_log(path).map_err(|e| format!("cannot be opened ({e})"))?;
    let meta = f
        .metadata()
        .map_err(|e| format!("cannot be inspected ({e})"))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    f.write_all(line)
        .map_err(|e| format!("cannot be written ({e})"))
}

/// Refuses an event log path that names something other than a regular file (a FIFO would block
/// every later call; a directory or device is no log). A missing file is created on the first event.
pub fn check_log_path(path: &str) -> crate::error::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(crate::error::Failure::new(
            crate::error::Code::InvalidInput,
            format!("setEventLog: {path:?} is not a regular file (a FIFO, socket, device or directory); give the path of a regular file, or null to turn the log off."),
        )),
        _ => Ok(()),
    }
}

fn ladder(result: &mut Value, code: &str, attempt: u64, repeated: u64) {
    let Value::Object(m) = result else { return };
    let best = m.get("candidates").and_then(|c| c.get(0)).map(|c| {
        (
            c["start_line"].as_u64().unwrap_or(1),
            c["end_line"].as_u64().unwrap_or(1),
        )
    });
    let file_lines = m.get("file_lines").and_then(Value::as_u64);
    let (action, hint): (&str, String) = match code {
        "SEARCH_BLOCK_NOT_FOUND" => match attempt {
            1 => (
                "reread",
                match best {
                    Some((a, b)) => format!(
                        "Re-read lines {}-{} (view_file with start_line {} and end_line {}) and copy the text exactly.",
                        a,
                        b,
                        a.saturating_sub(3).max(1),
                        b + 3
                    ),
                    None => "Re-read the file (view_file) and copy the text to replace exactly.".into(),
                },
            ),
            2 => ("use_line_edit", "Stop retrying text search: view the file with format \"hashline\" and edit the lines with edit_lines using their N:tag anchors.".into()),
            _ if file_lines.is_some_and(|n| n <= SMALL_FILE_LINES) => (
                "rewrite_file",
                format!("Text search failed {attempt} times: the file has {} lines, so rewrite it whole with write_file (send the complete content).", file_lines.unwrap_or(0)),
            ),
            _ => ("use_line_edit", "View the file with format \"hashline\" and edit with edit_lines using the N:tag anchors; the file is too large to rewrite whole.".into()),
        },
        "SEARCH_BLOCK_AMBIGUOUS" | "MATCH_COUNT_MISMATCH" | "OVERLAPPING_EDITS" | "SNIPPET_AMBIGUOUS" => (
            "widen_context",
            m.get("hint").and_then(Value::as_str).unwrap_or("Add neighbouring lines to the search text until it is unique.").to_string(),
        ),
        "ALREADY_APPLIED" => ("reread", "Nothing was written: the edit's result is already in the file (a retried call?). View the file to confirm it reads as you meant; if pending lists edits or hunks not applied yet, send only those.".into()),
        "STALE_FILE" | "STALE_ANCHOR" => ("reread", "The file changed: re-read it (view_file) and rebuild the edit against the current text.".into()),
        "SYNTAX_ERROR_INTRODUCED" => ("fix_input", "The edit would break the file's syntax where the message shows (nothing was written): correct the new text, usually a missing or extra bracket, quote or indentation, and send the edit again.".into()),
        "REWRITE_TOO_BROAD" => ("use_line_edit", "Do not rewrite the whole file: view it with format \"hashline\" and change only the lines that must change with edit_lines (or edit_file with old/new text).".into()),
        "LOCK_TIMEOUT" => ("retry", "Another writer held the file's lock; nothing was written. Send the same call again in a moment.".into()),
        "FILE_READ_ERROR" | "FILE_WRITE_ERROR" | "INTERNAL_ERROR" => ("reread", "Nothing was changed; re-read the file before trying again.".into()),
        _ => ("fix_input", m.get("hint").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| "Fix the input as the message says; resending it unchanged will fail again.".into())),
    };
    m.insert("next_action".into(), json!(action));
    m.insert("attempt".into(), json!(attempt));
    m.insert("hint".into(), json!(hint));
    if repeated > 0 {
        m.insert("repeated".into(), json!(repeated));
        let msg = m
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        m.insert(
            "message".into(),
            json!(format!("{msg} This exact request already failed {repeated} time(s) on this file: do not resend it unchanged; {hint}")),
        );
    }
}

fn percentile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() - 1) as f64 * p).round() as usize;
    (v[i] * 1000.0).round() / 1000.0
}

/// `getStats({reset})`: counters since start or the last reset.
pub fn stats(reset: bool) -> Stats {
    with_state(|s| {
        let ops = s
            .ops
            .iter()
            .map(|(name, o)| {
                let stats = receipts::OpStats {
                    calls: o.calls,
                    ok: o.ok,
                    failed: o.failed,
                    p50_ms: percentile(&o.samples, 0.5),
                    p95_ms: percentile(&o.samples, 0.95),
                    max_ms: (o.max_ms * 1000.0).round() / 1000.0,
                };
                (name.clone(), stats)
            })
            .collect();
        let hist = BUCKETS
            .iter()
            .zip(s.changed_lines)
            .map(|((k, _), n)| (k.to_string(), n))
            .collect();
        let rps = if s.successes_counted == 0 {
            0.0
        } else {
            s.retries_total as f64 / s.successes_counted as f64
        };
        let out = Stats {
            ok: True,
            since_ms: s.since,
            ops,
            failures_by_code: s.failures_by_code.clone(),
            successes_by_tier: s.successes_by_tier.clone(),
            successes_by_dialect: s.successes_by_dialect.clone(),
            retries_per_success: (rps * 1000.0).round() / 1000.0,
            changed_lines_histogram: OrderedMap(hist),
            transactions_rolled_back: s.rolled_back,
            undos: s.undos,
            syntax_refusals: s.syntax_refusals,
            stuck_loops_detected: s.stuck_loops,
        };
        if reset {
            let log = s.log_path.take();
            let reported = s.log_reported.take();
            *s = State {
                since: now_ms(),
                log_path: log,
                log_reported: reported,
                ..State::default()
            };
        }
        out
    })
}

/// `setEventLog(path | null)`.
pub fn set_event_log(path: Option<String>) {
    with_state(|s| {
        s.log_path = Some(path);
        s.log_reported = None;
    });
}
