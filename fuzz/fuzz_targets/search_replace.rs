#![no_main]
//! SEARCH/REPLACE parser: no panic, errors name a real line, CRLF ≡ LF, BOM ignored; the path form
//! holds exactly the blocks of the plain form when both succeed.
use libfuzzer_sys::fuzz_target;
use surepatch::edit::formats::{parse_blocks, parse_path_blocks};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    common::check_parser(text, parse_blocks);
    common::check_parser(text, parse_path_blocks);
    if let (Ok(plain), Ok(grouped)) = (parse_blocks(text), parse_path_blocks(text)) {
        let n: usize = grouped.iter().map(|(_, e)| e.len()).sum();
        assert_eq!(n, plain.len(), "grouping lost or invented blocks");
        for (_, edits) in &grouped {
            for e in edits {
                assert!(
                    plain.contains(e),
                    "grouped edit not among the plain parse: {e:?}"
                );
            }
        }
    }
});
