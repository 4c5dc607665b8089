//! `editLines(filePath, ops, options)`: edits anchored on `N:tag` line references from a hashline view.
//!
//! Each op is `{op, start, end?, lines? | text?}`:
//! - `replace` lines `start..=end` (`end` defaults to `start`) with the new lines;
//! - `delete` lines `start..=end`;
//! - `insert_before` / `insert_after` line `start` (no `end`).
//!
//! Every anchor must carry its tag (`"12:ab3f"`; a pasted `"12:ab3f|text"` is accepted too) and is
//! checked against the file as it is now before anything changes: a line that no longer has that tag
//! (or no longer exists) fails the whole call with `STALE_ANCHOR`, listing each stale anchor and the
//! fresh `N:tag|text` of the lines around it. Ops refer to the original numbering and are applied
//! together; two ops that touch the same line, or insert at the same place, are refused with
//! `OVERLAPPING_EDITS`. New lines are written with the file's line terminator; a file without a final
//! terminator keeps lacking one.

use serde_json::Value;

use super::args::{bad, type_name};
use super::checks::{check_base, syntax_gate};
use super::options::edit_options;
use super::whole::{commit_one, open_one};
use super::Res;
use crate::contract::inputs as i;
use crate::contract::receipts::{to_value, EditLinesSuccess, JournalFields, True};
use crate::edit::line_edit::{check_anchors, op_name, splice, Anchor, Kind, LineOp};
use crate::edit::text::{split_lines, utf16_len, LineTable};
use crate::error::{Code, Failure, Result};
use crate::fs::codec;
use crate::fs::txn::Action;
use crate::fs::workspace::Resolve;

const MAX_OPS: usize = 10_000;

/// Parses `"12:ab3f"` (optionally followed by `|` and pasted text).
fn parse_anchor(v: &Value, name: &str) -> Result<Anchor> {
    let need_tag = || {
        bad(format!(
            "{name} must be a line anchor with its tag, like \"12:ab3f\", as viewFile with format \"hashline\" shows it; a bare line number is not accepted (the tag proves the line is the one you read)."
        ))
    };
    let s = match v {
        Value::String(s) => s.trim(),
        Value::Number(_) => return Err(need_tag()),
        other => {
            return Err(bad(format!(
                "{name} must be a string like \"12:ab3f\", got {}.",
                type_name(other)
            )))
        }
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return Err(need_tag());
    }
    let line: usize = s[..digits].parse().map_err(|_| need_tag())?;
    let Some(rest) = s[digits..].strip_prefix(':') else {
        return Err(need_tag());
    };
    let tag_len = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
    let after = &rest[tag_len..];
    if !(2..=16).contains(&tag_len) || !(after.is_empty() || after.starts_with('|')) {
        return Err(need_tag());
    }
    if line == 0 {
        return Err(bad(format!("{name}: line numbers start at 1.")));
    }
    Ok(Anchor {
        line,
        tag: rest[..tag_len].to_ascii_lowercase(),
    })
}

fn read_op(o: i::LineOp, name: &str) -> Result<LineOp> {
    let kind = match o.op.as_str() {
        "replace" => Kind::Replace,
        "insert_before" => Kind::InsertBefore,
        "insert_after" => Kind::InsertAfter,
        _ => Kind::Delete,
    };
    let start = parse_anchor(&o.start.0, &format!("{name}.start"))?;
    let end = o
        .end
        .map(|e| parse_anchor(&e.0, &format!("{name}.end")))
        .transpose()?;
    if let Some(i) = o
        .lines
        .iter()
        .flatten()
        .position(|l| l.contains(['\n', '\r']))
    {
        return Err(bad(format!(
            "{name}.lines[{i}] contains a line break; give one line per item, or send text instead."
        )));
    }
    let lines = o.lines;
    let text = o.text.as_deref();
    let new_lines = match (lines, text) {
        (Some(_), Some(_)) => return Err(bad(format!("{name}: give lines or text, not both."))),
        (Some(l), None) => Some(l),
        (None, Some(t)) => {
            let mut parts = split_lines(t);
            // A final line break ends the last line; it does not start an empty one. "" is no lines.
            if parts.last() == Some(&"") {
                parts.pop();
            }
            Some(parts.into_iter().map(str::to_string).collect())
        }
        (None, None) => None,
    };
    let lines = match (kind, new_lines) {
        (Kind::Delete, Some(_)) => {
            return Err(bad(format!(
            "{name}: delete takes no lines or text (use replace to put new lines in their place)."
        )))
        }
        (Kind::Delete, None) => Vec::new(),
        (_, None) => {
            return Err(bad(format!(
                "{name}: {} needs the new lines (lines: [...] or text).",
                op_name(kind)
            )))
        }
        (Kind::InsertBefore | Kind::InsertAfter, Some(l)) if l.is_empty() => {
            return Err(bad(format!("{name}: nothing to insert (lines is empty).")))
        }
        (_, Some(l)) => l,
    };
    if matches!(kind, Kind::InsertBefore | Kind::InsertAfter) && end.is_some() {
        return Err(bad(format!(
            "{name}: {} takes only start, not end.",
            op_name(kind)
        )));
    }
    if let Some(e) = &end {
        if e.line < start.line {
            return Err(bad(format!(
                "{name}.end (line {}) is before {name}.start (line {}).",
                e.line, start.line
            )));
        }
    }
    Ok(LineOp {
        kind,
        start,
        end,
        lines,
    })
}

/// `editLines(filePath, ops, options)`.
pub fn edit_lines(a: i::EditLinesArgs) -> Res {
    let path = a.file_path.as_str();
    if a.ops.is_empty() {
        return Err(bad("ops is empty: send at least one op."));
    }
    if a.ops.len() > MAX_OPS {
        return Err(bad(format!(
            "{} ops in one call; at most {MAX_OPS} are accepted.",
            a.ops.len()
        )));
    }
    let ops = a
        .ops
        .into_iter()
        .enumerate()
        .map(|(i, v)| read_op(v, &format!("ops[{i}]")))
        .collect::<Result<Vec<_>>>()?;
    let opts = edit_options(a.options)?;
    let opened = open_one(path, Resolve::Existing, &opts)?;
    let display = opened.display().to_string();
    let with_path = |f: Failure| f.with("file_path", &display);
    let bytes = opened.bytes().unwrap_or_default();
    let before_bytes = bytes.len();
    check_base(opts.base_hash.as_deref(), bytes, &display)?;
    let (text, encoding) = codec::decode_slice(bytes).map_err(with_path)?;
    let lt = LineTable::new(&text);
    check_anchors(&ops, &text, &lt).map_err(with_path)?;
    if let Some(f) = crate::edit::already::reapplied_line_ops(&lt, &text, &ops) {
        return Err(with_path(f));
    }
    let done = splice(&text, &lt, &ops).map_err(with_path)?;
    // No op writes an elision placeholder over the lines it replaces.
    for &(os, oe, ns, ne) in &done.changes {
        let elided = crate::edit::placeholder::elided_in_change(&text, os, oe, &done.text[ns..ne]);
        if !elided.is_empty() {
            let first = crate::edit::text::line_number_at(&text, os);
            let lines: Vec<(usize, &str)> = elided.iter().map(|&(j, l)| (first + j, l)).collect();
            return Err(with_path(crate::edit::placeholder::elided_failure(
                &lines, "an op",
            )));
        }
    }
    if done.text == *text {
        return Err(with_path(Failure::new(
            Code::NoChanges,
            "the ops leave the file as it is; nothing was written.",
        )));
    }
    let syntax = syntax_gate(opts.validate, &display, &text, &done.text, &done.changes)?;
    let diff = crate::edit::diff::unified(&display, &text, &done.text, &done.changes);
    let first_changed_line = crate::edit::text::line_number_at(&done.text, done.changes[0].2);
    let (before_chars, after_chars) = (utf16_len(&text), utf16_len(&done.text));
    drop(text);
    let out = codec::encode(done.text, encoding);
    let after_bytes = out.len();
    let (file_hash, recorded) = commit_one(opened, Action::Write(out), &opts)?;
    Ok(to_value(&EditLinesSuccess {
        ok: True,
        file_path: display,
        ops_applied: ops.len(),
        first_changed_line,
        lines_added: done.added,
        lines_removed: done.removed,
        before_chars,
        after_chars,
        before_bytes,
        after_bytes,
        diff,
        written: !opts.dry_run,
        file_hash: file_hash.unwrap_or_default(), // always Some for a write
        syntax,
        journal: JournalFields::of(&recorded),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::hash::line_tag;
    use crate::edit::line_edit::Spliced;
    use serde_json::json;

    fn anchor(text: &str, n: usize) -> String {
        let lt = LineTable::new(text);
        format!("{n}:{}", line_tag(lt.content(n - 1, text)))
    }

    /// One op as `editLines` reads it: by its declaration, then checked.
    fn read_json_op(v: &Value, name: &str) -> Result<LineOp> {
        read_op(crate::contract::read::read_value(v, name)?, name)
    }

    fn run(text: &str, ops: Value) -> Result<Spliced> {
        let ops: Vec<LineOp> = ops
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, v)| read_json_op(v, &format!("ops[{i}]")))
            .collect::<Result<_>>()?;
        let lt = LineTable::new(text);
        check_anchors(&ops, text, &lt)?;
        splice(text, &lt, &ops)
    }

    fn diff_ok(before: &str, s: &Spliced) {
        // Everything outside the change spans is identical.
        let mut p = (0, 0);
        for c in &s.changes {
            assert!(
                c.0 >= p.0 && c.2 >= p.1 && c.1 >= c.0 && c.3 >= c.2,
                "{:?}",
                s.changes
            );
            assert_eq!(before[p.0..c.0], s.text[p.1..c.2]);
            p = (c.1, c.3);
        }
        assert_eq!(before[p.0..], s.text[p.1..]);
    }

    #[test]
    fn anchors_need_tags() {
        for bad_anchor in [
            json!(3),
            json!("3"),
            json!("3:"),
            json!("3:a"),
            json!("x:ab"),
            json!("3:ab cd"),
        ] {
            let e =
                read_json_op(&json!({"op": "delete", "start": bad_anchor}), "ops[0]").unwrap_err();
            assert_eq!(e.code, Code::InvalidInput, "{bad_anchor}");
        }
        // A bare line number is read as the declaration allows and refused with the anchor's reason.
        let e = read_json_op(&json!({"op": "delete", "start": 12}), "ops[0]").unwrap_err();
        assert!(
            e.message.contains("a bare line number is not accepted"),
            "{}",
            e.message
        );
        let op = read_json_op(
            &json!({"op": "delete", "start": " 3:AB12|pasted text"}),
            "o",
        )
        .unwrap();
        assert_eq!(
            op.start,
            Anchor {
                line: 3,
                tag: "ab12".into()
            }
        );
    }

    #[test]
    fn ops_apply_bottom_up_on_the_original_numbering() {
        let t = "a\nb\nc\nd\ne\n";
        let s = run(
            t,
            json!([
                {"op": "replace", "start": anchor(t, 2), "end": anchor(t, 3), "lines": ["B", "C", "C2"]},
                {"op": "insert_before", "start": anchor(t, 1), "text": "top\n"},
                {"op": "insert_after", "start": anchor(t, 5), "lines": ["end"]},
                {"op": "delete", "start": anchor(t, 4)},
            ]),
        )
        .unwrap();
        assert_eq!(s.text, "top\na\nB\nC\nC2\ne\nend\n");
        assert_eq!((s.added, s.removed), (5, 3));
        diff_ok(t, &s);
    }

    #[test]
    fn mixed_line_endings_each_line_keeps_its_own() {
        // CRLF dominant, line 2 LF: a replace that sends line 2 back unchanged keeps its LF; the
        // changed line takes the CRLF of the line it replaces; an added line its neighbours' (G7).
        let t = "a\r\nb\nc\r\nd\r\n";
        let s = run(
            t,
            json!([{"op": "replace", "start": anchor(t, 2), "end": anchor(t, 3), "lines": ["b", "C", "x"]}]),
        )
        .unwrap();
        assert_eq!(s.text, "a\r\nb\nC\r\nx\r\nd\r\n");
        diff_ok(t, &s);
        // An insertion between two LF lines in a CRLF file takes LF.
        let t = "a\r\nb\nc\nd\r\ne\r\n";
        let s = run(
            t,
            json!([{"op": "insert_after", "start": anchor(t, 2), "lines": ["x"]}]),
        )
        .unwrap();
        assert_eq!(s.text, "a\r\nb\nx\nc\nd\r\ne\r\n");
        // The unterminated last line replaced: the kept line before it keeps its LF.
        let t = "a\r\nb\r\nc\nd";
        let s = run(
            t,
            json!([{"op": "replace", "start": anchor(t, 3), "end": anchor(t, 4), "lines": ["c", "D"]}]),
        )
        .unwrap();
        assert_eq!(s.text, "a\r\nb\r\nc\nD");
    }

    #[test]
    fn line_endings_and_missing_final_newline_are_kept() {
        let t = "a\r\nb\r\nc";
        let s = run(
            t,
            json!([{"op": "insert_after", "start": anchor(t, 3), "lines": ["d"]}]),
        )
        .unwrap();
        assert_eq!(s.text, "a\r\nb\r\nc\r\nd");
        diff_ok(t, &s);
        let s = run(
            t,
            json!([{"op": "replace", "start": anchor(t, 3), "text": "x\ny"}]),
        )
        .unwrap();
        assert_eq!(s.text, "a\r\nb\r\nx\r\ny");
        let s = run(t, json!([{"op": "delete", "start": anchor(t, 3)}])).unwrap();
        assert_eq!(s.text, "a\r\nb");
        diff_ok(t, &s);
        // Deleting the last lines right after another deletion: spans merge, final newline still absent.
        let s = run(
            t,
            json!([{"op": "delete", "start": anchor(t, 2)}, {"op": "delete", "start": anchor(t, 3)}]),
        )
        .unwrap();
        assert_eq!(s.text, "a");
        diff_ok(t, &s);
        let s = run(
            t,
            json!([{"op": "replace", "start": anchor(t, 2), "lines": ["B"]}, {"op": "delete", "start": anchor(t, 3)}]),
        )
        .unwrap();
        assert_eq!(s.text, "a\r\nB");
        diff_ok(t, &s);
        let s = run(
            t,
            json!([{"op": "delete", "start": anchor(t, 1), "end": anchor(t, 3)}]),
        )
        .unwrap();
        assert_eq!(s.text, "");
        let d = crate::edit::diff::unified("f", t, &s.text, &s.changes);
        assert!(d.contains("-a\n-b\n-c\n"), "{d}");
    }

    #[test]
    fn overlaps_are_refused() {
        let t = "a\nb\nc\nd\n";
        let cases = [
            json!([{"op": "delete", "start": anchor(t, 1), "end": anchor(t, 3)}, {"op": "replace", "start": anchor(t, 3), "lines": ["x"]}]),
            json!([{"op": "delete", "start": anchor(t, 1), "end": anchor(t, 3)}, {"op": "insert_after", "start": anchor(t, 1), "lines": ["x"]}]),
            json!([{"op": "insert_after", "start": anchor(t, 1), "lines": ["x"]}, {"op": "insert_before", "start": anchor(t, 2), "lines": ["y"]}]),
            json!([{"op": "delete", "start": anchor(t, 1), "end": anchor(t, 4)}, {"op": "delete", "start": anchor(t, 2)}]),
        ];
        for c in cases {
            let e = run(t, c.clone()).err().expect("refused");
            assert_eq!(e.code, Code::OverlappingEdits, "{c}");
        }
        // Touching is fine: insert before a replaced range, replace adjacent ranges.
        let s = run(
            t,
            json!([
                {"op": "insert_before", "start": anchor(t, 2), "lines": ["i"]},
                {"op": "replace", "start": anchor(t, 2), "lines": ["B"]},
                {"op": "replace", "start": anchor(t, 3), "end": anchor(t, 4), "lines": ["CD"]},
            ]),
        )
        .unwrap();
        assert_eq!(s.text, "a\ni\nB\nCD\n");
    }

    #[test]
    fn stale_anchors_list_fresh_tags() {
        let t = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n";
        let edited = "l1\nl2\nL3\nl4\nl5\nl6\nL7\nl8\n";
        let ops =
            json!([{"op": "replace", "start": anchor(t, 3), "end": anchor(t, 7), "lines": ["x"]}]);
        let e = run(edited, ops).err().unwrap();
        assert_eq!(e.code, Code::StaleAnchor);
        let stale = e.detail("stale").unwrap().as_array().unwrap();
        assert_eq!(stale.len(), 2);
        assert_eq!(stale[0]["line"], 3);
        assert_eq!(stale[0]["actual_tag"], line_tag("L3"));
        assert_eq!(stale[1]["expected_tag"], line_tag("l7"));
        let fresh = e.detail("fresh").unwrap().as_str().unwrap();
        assert_eq!(fresh.lines().count(), 8, "{fresh}");
        assert!(fresh.starts_with(&format!("1:{}|l1\n", line_tag("l1"))));
        assert!(fresh.contains(&format!("7:{}|L7\n", line_tag("L7"))));
        // A line past the end is stale too.
        let e = run("a\nb\n", json!([{"op": "delete", "start": "9:abcd"}]))
            .err()
            .unwrap();
        assert_eq!(e.code, Code::StaleAnchor);
        assert_eq!(e.detail("stale").unwrap()[0]["actual_tag"], Value::Null);
        assert_eq!(
            e.detail("fresh").unwrap(),
            &json!(format!("1:{}|a\n2:{}|b\n", line_tag("a"), line_tag("b")))
        );
    }
}
