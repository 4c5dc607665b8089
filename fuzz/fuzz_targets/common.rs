//! Shared checks for the parser targets.
#![allow(dead_code)]

use surepatch::edit::ir::ParseError;

/// Lines of `text` as the parsers count them (formats module docs): split on LF, a final LF ends the
/// last line, one leading BOM ignored. At least 1 (an error about empty input names line 1).
pub fn line_count(text: &str) -> usize {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = t.strip_suffix('\n').unwrap_or(t);
    if t.is_empty() {
        1
    } else {
        body.split('\n').count().max(1)
    }
}

/// Every documented convention of the parsers, for one input:
/// - no panic (the fuzzer catches it);
/// - an error names a line of the input (1..=lines);
/// - CRLF input parses exactly like LF input (checked when the input has no CR of its own);
/// - one leading BOM is ignored.
pub fn check_parser<T: PartialEq + std::fmt::Debug>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) {
    let r = parse(text);
    if let Err(e) = &r {
        // Also for a text escaped once too often (unescaped before parsing): its errors name the
        // input line the escaped stretch sits on (README finding 3).
        let n = line_count(text);
        assert!(
            e.line >= 1 && e.line <= n,
            "error line {} outside 1..={n}: {e}",
            e.line
        );
        assert!(!e.message.is_empty());
    }
    if !text.contains('\r') && text.contains('\n') {
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(
            parse(&crlf),
            r,
            "CRLF input parsed differently from LF input"
        );
    }
    if !text.starts_with('\u{feff}') {
        let bom = format!("\u{feff}{text}");
        assert_eq!(parse(&bom), r, "a leading BOM changed the parse");
    }
}
