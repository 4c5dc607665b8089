#![no_main]
//! apply_patch envelope parser: no panic, errors name a real line, CRLF ≡ LF, BOM ignored, and every
//! operation names a non-empty path.
use libfuzzer_sys::fuzz_target;
use surepatch::edit::formats::parse_patch;
use surepatch::edit::ir::{Change, FileOp};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    common::check_parser(text, parse_patch);
    if let Ok(ops) = parse_patch(text) {
        for op in &ops {
            assert!(!op.path().is_empty(), "empty path in {op:?}");
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
