#![no_main]
//! Unified diff parser: no panic, errors name a real line, CRLF ≡ LF, BOM ignored, every operation
//! names a non-empty path (but the first, when it is an update of the caller's file: hunks that came
//! before any file header) and every hunk's source line is a line of the input.
use libfuzzer_sys::fuzz_target;
use surepatch::edit::formats::parse_unified_diff;
use surepatch::edit::ir::{Change, FileOp};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    common::check_parser(text, parse_unified_diff);
    if let Ok(ops) = parse_unified_diff(text) {
        for (k, op) in ops.iter().enumerate() {
            // Hunks before any file header are for the caller's file: an update with an empty path,
            // never a move, and only as the first operation (README finding 6).
            let headerless = k == 0 && matches!(op, FileOp::Update { move_to: None, .. });
            assert!(!op.path().is_empty() || headerless, "empty path in {op:?}");
            if let FileOp::Update {
                change: Change::Hunks(h),
                ..
            } = op
            {
                for hunk in h {
                    assert!(hunk.source_line >= 1 && hunk.source_line <= common::line_count(text));
                }
            }
        }
    }
});
