//! Unescaping only the line breaks of a text a model escaped once too often.
//!
//! Models send a multi-line `old`/`new` as one line in two ways: escaped as a whole (a JSON string
//! pasted as is: `\n`, `\t`, `\"`, `\\` all escaped), or with **only the line breaks** escaped (the
//! program's own `"a\n"` and `"\t"` left as they are in the file). In the second form a `\n` inside
//! a string literal is the program's, and unescaping it splits the literal over two lines (issue #25
//! class G5). So the line breaks are read first: a `\n` (or `\r\n`) escape outside every quoted
//! literal of its line is a line break; inside a literal, and every other escape, it is kept as
//! written. A line whose quotes do not pair (an apostrophe in a comment) makes the reading unsure,
//! and then every `\n` escape is a line break (what the text's own `old` must still confirm by
//! matching the file).

/// `s` with its escaped line breaks turned into line breaks: the `\n` escapes outside quoted
/// literals (`"…"`, `'…'`, `` `…` ``), when every literal closes; else every `\n` escape. Every other
/// escape is kept as written.
pub fn line_breaks_unescaped(s: &str) -> String {
    outside_literals(s, true)
        .or_else(|| outside_literals(s, false))
        .unwrap_or_else(|| s.replace("\\r\\n", "\r\n").replace("\\n", "\n"))
}

/// Whether `s` reads as escaped as a whole: outside every quoted literal (the quotes of an escaped
/// text are escaped too, so it has none) it holds a `\"`, `\'`, `\\` or `\t` escape, which a program
/// with only its line breaks escaped does not have there. Between smartened quotes (`“a:\t”`) only
/// a `\"`, `\'` or `\\` counts: a tab escape there may be the program's own.
pub fn escaped_as_a_whole(s: &str) -> bool {
    // A backquote that begins its line and pairs with none in the text closes a raw string (a Go
    // raw string, a JS template) opened above the edit: what comes before it lies inside that
    // literal, what comes after it outside (issue #25 G5, ground truth seed 29 case 335116).
    if let Some(i) = closing_backquote(s) {
        return escaped_as_a_whole(&s[i + 1..]);
    }
    // Every double quote escaped (`\"` and no bare `"`): the text has no literal of its own to
    // hold them, its quotes were escaped with it (a Go raw string's backquote opens no literal
    // here, issue #25 G5).
    if s.contains("\\\"") && !s.replace("\\\\", "").replace("\\\"", "").contains('"') {
        return true;
    }
    let mut open: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let d = chars.next();
                match open {
                    None if matches!(d, Some('"' | '\'' | '\\' | 't')) => return true,
                    // A literal whose quotes the model smartened (`“a:\t”`): a tab escape inside it
                    // is the program's as much as the escaping's, no evidence either way; a doubled
                    // backslash or an escaped quote is the escaping's still.
                    Some('”' | '’') if matches!(d, Some('"' | '\'' | '\\')) => return true,
                    _ => {}
                }
            }
            '"' | '\'' | '`' => {
                open = match open {
                    None => Some(c),
                    Some(q) if q == c => None,
                    o => o,
                }
            }
            '“' if open.is_none() => open = Some('”'),
            '‘' if open.is_none() => open = Some('’'),
            c if open == Some(c) && matches!(c, '”' | '’') => open = None,
            _ => {}
        }
    }
    false
}

/// Whether every quoted literal of `s` closes on its line, backquotes included: when one does not
/// (a Go raw string or JS template closed or opened beyond the text), where its literals lie is
/// unsure, and an escape's place tells nothing about how the text was escaped.
pub fn literals_pair(s: &str) -> bool {
    outside_literals(s, true).is_some()
}

/// The byte offset of `s`'s first backquote when the text has an odd number of them and that one
/// begins its line (only spaces, tabs or `\t` escapes before it since the text's start or its last
/// `\n` escape): the backquote that closes a literal opened before the text.
fn closing_backquote(s: &str) -> Option<usize> {
    let i = s.find('`')?;
    if s.matches('`').count().is_multiple_of(2) {
        return None;
    }
    let line = s[..i].rsplit("\\n").next().unwrap_or("");
    let indent = line.replace("\\t", "");
    indent.chars().all(|c| c == ' ' || c == '\t').then_some(i)
}

/// Whether nothing tells how `new` was escaped while its two readings differ: its literals do not
/// pair (a raw string closed or opened beyond the text), so its escapes' places tell nothing, and
/// neither side shows the text escaped as a whole, nor a bare double quote (a text escaped as a
/// whole has none: its quotes were escaped with it). Ground truth seed 39 case
/// 350391: `result: \"done\"` before the backquote closing a Go raw string, beside an `old` with
/// only `\n` escapes, kept its backslashes; read as escaped as a whole it is `result: "done"`.
pub fn new_escaping_unsure(old: &str, new: &str) -> bool {
    !literals_pair(new)
        && !escaped_as_a_whole(new)
        && !escaped_as_a_whole(old)
        && !bare_double_quote(old)
        && !bare_double_quote(new)
        && super::unescape_once(new) != line_breaks_unescaped(new)
}

/// Whether `s` holds a `"` that no backslash escapes.
fn bare_double_quote(s: &str) -> bool {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return true,
            _ => {}
        }
    }
    false
}

/// Whether one side escapes the program's backslashes (`\\n` in `old`: escaped as a whole) while the
/// other holds a single backslash escape inside a literal delimited by curly quotes (`“café\n”`):
/// smartened quotes are no literal to [`line_breaks_unescaped`], so that escape would be read as a
/// line break (or a tab), although the other side shows the program writes it with one backslash
/// more. The two sides were escaped differently and nothing says how: no reading is safe.
pub fn escapes_disagree(old: &str, new: &str) -> bool {
    let one_way = |a: &str, b: &str| a.contains("\\\\") && !b.contains("\\\\") && curly_escape(b);
    one_way(old, new) || one_way(new, old)
}

/// Whether the line breaks of `s` (only they escaped, not the whole text) hold a `\n`, `\r` or
/// `\t` escape between smartened quotes (`“café\n”`): the program's own escape in a literal whose
/// quotes the model smartened, or a line break inside a quotation of prose. The text does not say
/// which, so no reading of it is safe.
pub fn curly_escape_unsure(s: &str) -> bool {
    if escaped_as_a_whole(s) {
        return false;
    }
    let mut close: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, close) {
            ('\\', open) => {
                let escaped = chars.next();
                if open.is_some() && matches!(escaped, Some('n' | 'r' | 't')) {
                    return true;
                }
            }
            ('“', None) => close = Some('”'),
            ('‘', None) => close = Some('’'),
            (c, Some(q)) if c == q => close = None,
            _ => {}
        }
    }
    false
}

/// Whether `s` holds a backslash escape inside a literal opened by `“` or `‘` on its line.
fn curly_escape(s: &str) -> bool {
    let mut close: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, close) {
            ('\\', Some(_)) => return true,
            ('\\', None) => {
                chars.next();
            }
            ('“', None) => close = Some('”'),
            ('‘', None) => close = Some('’'),
            (c, Some(q)) if c == q => close = None,
            _ => {}
        }
    }
    false
}

/// `backquotes`: whether a backquote opens a literal (a Go raw string or a JS template opened on
/// one line and closed on a later one does not close on its line: read again without them).
fn outside_literals(s: &str, backquotes: bool) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut open: Option<char> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match (open, chars.next()) {
                (None, Some('n')) => out.push('\n'),
                (None, Some('r')) if chars.peek() == Some(&'\\') => {
                    // `\r\n`: a CRLF line break; a lone `\r` escape is kept.
                    let mut ahead = chars.clone();
                    ahead.next();
                    if ahead.next() == Some('n') {
                        chars.next();
                        chars.next();
                        out.push_str("\r\n");
                    } else {
                        out.push_str("\\r");
                    }
                }
                (_, Some(d)) => {
                    out.push('\\');
                    out.push(d);
                }
                (_, None) => out.push('\\'),
            },
            '"' | '\'' | '`' if backquotes || c != '`' => {
                open = match open {
                    None => Some(c),
                    Some(q) if q == c => None,
                    o => o,
                };
                out.push(c);
            }
            c => out.push(c),
        }
        // A literal does not run across a line break.
        if out.ends_with('\n') && open.is_some() {
            return None;
        }
    }
    open.is_none().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_programs_own_escapes_inside_literals_are_kept() {
        assert_eq!(
            line_breaks_unescaped("def f():\\n    print(\"a\\nb\\t\")\\n    return 1"),
            "def f():\n    print(\"a\\nb\\t\")\n    return 1"
        );
        assert_eq!(
            line_breaks_unescaped("'use strict';\\n\\nlet x = \"ready\\n\";"),
            "'use strict';\n\nlet x = \"ready\\n\";"
        );
        // A tab escape outside a literal is the program's too (only line breaks were escaped).
        assert_eq!(line_breaks_unescaped("a\\tb\\r\\nc"), "a\\tb\r\nc");
        assert!(escaped_as_a_whole("echo \\\"hello\\\\n\\\""));
        assert!(escaped_as_a_whole("\\n\\t$(CC) -o x"));
        assert!(!escaped_as_a_whole("print(\"a\\tb\\n\")\\nx = 1"));
        // Inside smartened quotes a tab escape is the program's as much as the escaping's.
        assert!(!escaped_as_a_whole("x\\n  log(“a:\\t” + b);"));
        assert!(curly_escape_unsure("x\\n  log(“a:\\t” + b);"));
        assert!(escaped_as_a_whole("x\\n  log(“a:” + b)\\t;"));
        assert!(escaped_as_a_whole("x\\n  log(“a:\\\\n” + b);"));
        // Unpaired quotes (an apostrophe in a comment): every `\n` escape is a line break.
        assert_eq!(
            line_breaks_unescaped("# don't\\nx = 1\\ny = \"a\""),
            "# don't\nx = 1\ny = \"a\""
        );
    }

    /// Found by the ground-truth fuzzer (issue #25, class G5): a one-line old/new with only the line
    /// breaks escaped, or an old escaped as a whole beside a new written as is, holding a program's
    /// own `\n` / `\t` inside a string literal: the literal was split over two lines (or got a tab).
    #[test]
    fn a_programs_own_escapes_survive_the_unescaped_reading() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        let text = "'use strict';\n\nfunction f() {\n  return 1;\n}\n";
        let es = [Edit::new(
            "'use strict';\\n",
            "'use strict';\\n\\nlet x = \"ready\\n\";\\nlet t = \"a\\tb\";",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "'use strict';\n\nlet x = \"ready\\n\";\nlet t = \"a\\tb\";\nfunction f() {\n  return 1;\n}\n"
        );
        // Old escaped as a whole, new as it is: new keeps its literal's escapes.
        let text = "function f() {\n  let s = \"x\\n\";\n}\n";
        let es = [Edit::new(
            "  let s = \\\"x\\\\n\\\";\\n}",
            "  let s = \"y\\n\";\\n}",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(out.text, "function f() {\n  let s = \"y\\n\";\n}\n");
        // Both escaped as a whole: unescaped once, as before.
        let es = [Edit::new(
            "  let s = \\\"x\\\\n\\\";",
            "  let s = \\\"x\\\\n\\\";\\n  let t = \\\"z\\\";",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "function f() {\n  let s = \"x\\n\";\n  let t = \"z\";\n}\n"
        );
    }

    /// Found by the ground-truth fuzzer (issue #25 G5, seed 25 case 901195): a `new` with only its
    /// line breaks escaped holds `\\n` between smartened quotes (`“café\\n”`): the program's own
    /// escape in a literal whose quotes the model smartened, or a line break inside a quotation of
    /// prose. Nothing tells which, so the unescaped reading is not tried.
    #[test]
    fn a_line_break_escape_between_curly_quotes_is_unsure() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        assert!(curly_escape_unsure("a:\\n    x = “café\\n”"));
        assert!(!curly_escape_unsure("a:\\n    x = “café”\\n"));
        // Escaped as a whole, the program's escape shows its own backslash: sure.
        assert!(!curly_escape_unsure("x = \\\"a\\\\n\\\"\\n“b\\\\n”"));
        let text = "class A:\n    def f(self):\n        pass\n";
        let es = [Edit::new(
            "class A:\\n    def f(self):",
            "class A:\\n    def f(self):\\n        x = “café\\n”",
        )];
        let f = apply_edits(text, &es, Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, crate::error::Code::SearchBlockNotFound, "{f:?}");
        // Without the curly literal, the same edit lands unescaped.
        let es = [Edit::new(
            "class A:\\n    def f(self):",
            "class A:\\n    def f(self):\\n        x = 1",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "class A:\n    def f(self):\n        x = 1\n        pass\n"
        );
    }

    /// Found by the ground-truth fuzzer (issue #25, G5): an `old` escaped as a whole (`\\n`) beside
    /// a `new` written as is, whose literal is delimited by smartened quotes: the program's `\n`
    /// (or `\t`) in `new` became a line break (or a tab). The two sides disagree: refused.
    #[test]
    fn sides_escaped_differently_around_curly_quotes_are_refused() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        assert!(escapes_disagree("echo “café\\\\n”\\n}", "echo “café\\n”"));
        assert!(escapes_disagree("log(“e:\\t”)", "log(“e:\\\\t”)\\nx"));
        // Straight quotes: the line-break reading keeps the literal's escape (no disagreement).
        assert!(!escapes_disagree(
            "let s = \\\"x\\\\n\\\";",
            "let s = \"y\\n\";"
        ));
        // Both sides escaped alike, or no escape inside a curly literal.
        assert!(!escapes_disagree("echo “a\\\\n”\\nx", "echo “b\\\\n”\\nx"));
        assert!(!escapes_disagree("echo “a” \\\\\\nx", "echo “b”\\ny"));
        let text = "update() {\n    echo \"café\\n\"\n}\n";
        let es = [Edit::new("    echo “café\\\\n”\\n}", "    echo “café\\n”")];
        let f = apply_edits(text, &es, Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, crate::error::Code::SearchBlockNotFound);
    }

    /// Found by the ground-truth fuzzer (issue #25, G5): a Go raw string's backquote, opened on one
    /// line and closed on a later one, read as a literal that never closes, so a side escaped as a
    /// whole kept its `\"` and one with only its line breaks escaped lost its own `"\n"`.
    #[test]
    fn a_backquote_that_does_not_close_on_its_line_opens_no_literal() {
        assert!(escaped_as_a_whole(
            "` idx\\n}\\nidx = append(idx, \\\"error\\\")"
        ));
        assert_eq!(
            line_breaks_unescaped("\treturn `\\n\tfmt.Printf(\"a: %d\\n\", x)\\nretries: 7"),
            "\treturn `\n\tfmt.Printf(\"a: %d\\n\", x)\nretries: 7"
        );
        // A backquote literal that closes on its line is still one.
        assert_eq!(line_breaks_unescaped("x = `a\\nb`\\ny"), "x = `a\\nb`\ny");
    }

    /// Found by the ground-truth fuzzer (issue #25, G5, seed 29 cases 340920 and 335116): `new`
    /// starts with the backquote closing a Go raw string opened above the edit, so every escape in
    /// it lies inside a literal that never closes and shows nothing of how it was escaped; its
    /// `\t` stayed a backslash and a `t`. Both sides are one line from one encoder: such a side is
    /// read as the other one, escaped as a whole. A side whose own literals pair keeps its reading,
    /// and so does an unsure side beside an `old` with only its line breaks escaped.
    #[test]
    fn a_side_whose_literals_do_not_pair_is_read_as_the_other_side() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        assert!(!literals_pair("`\\n}\\n\\treturn x"));
        // A backquote beginning the text, unpaired, closes a literal opened above: a `\t` after it
        // lies outside every literal (seed 29 case 335116); one ending a line opens a literal.
        assert!(escaped_as_a_whole("` \\n} item\\n\\treturn r\\n}"));
        assert!(escaped_as_a_whole("x\\n  `\\n\\treturn r"));
        assert!(!escaped_as_a_whole("x := `\\n\\tname: a"));
        assert!(!escaped_as_a_whole("`a\\tb`\\nx"));
        assert!(literals_pair("x = `a`\\n\\ty"));
        let text = "func f() string {\n\treturn `\nname: app\n`\n}\n\nfunc g() {}\n";
        let es = [Edit::new(
            "`\\n}\\n\\nfunc g() {}",
            "`\\n}\\n\\nfunc g() {\\n\\treturn \\\"ok\\\"\\n}",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "func f() string {\n\treturn `\nname: app\n`\n}\n\nfunc g() {\n\treturn \"ok\"\n}\n"
        );
        // `old` escaped as a whole (a `\t` outside any literal), `new` unsure: whole too.
        let es = [Edit::new(
            "\\treturn `\\nname: app\\n`\\n}",
            "\\treturn `\\nname: app\\n`\\n}\\n\\nfunc h() {\\n\\tx()\\n}",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert!(out.text.contains("func h() {\n\tx()\n}"), "{}", out.text);
        // Beside an `old` that shows no escaping of its own (its backquote unpaired too), an
        // unsure `new` keeps the line-break reading: its `\t` stays the program's.
        let text = "const s = `a\n  ${x}\n`;\nlog(1);\n";
        let es = [Edit::new("`;\\nlog(1);", "`;\\nlog(1);\\nlog(\"\\t\");")];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "const s = `a\n  ${x}\n`;\nlog(1);\nlog(\"\\t\");\n"
        );
    }

    /// Found by the ground-truth fuzzer (issue #25 G5, seed 39 case 350391): `new`'s `\"done\"`
    /// stands before the backquote closing a Go raw string, so its place tells nothing, and `old`
    /// has only `\n` escapes and no quote: escaped as a whole it is `"done"`, with only its line
    /// breaks escaped `\"done\"`. Nothing tells which: refused, the file unchanged. A bare quote on
    /// either side, or a side escaped as a whole, still decides.
    #[test]
    fn an_unsure_new_beside_an_old_that_shows_nothing_is_refused() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        let text = "var c = `\n  - done\n` \n}\n";
        let es = [Edit::new(
            "  - done\\n` \\n}",
            "  - done\\n  result: \\\"done\\\"\\n` x\\n} item",
        )];
        let f = apply_edits(text, &es, Tolerance::Safe).unwrap_err();
        assert_eq!(f.code, crate::error::Code::SearchBlockNotFound);
        assert!(new_escaping_unsure(&es[0].old, &es[0].new));
        // `old` escaped as a whole (a `\t` outside any literal): whole, `"done"`.
        assert!(!new_escaping_unsure("\\tx\\n}", "\\\"done\\\"\\n` x"));
        // A bare quote in `old`: only its line breaks were escaped.
        assert!(!new_escaping_unsure("f(\"a\")\\n}", "\\\"done\\\"\\n` x"));
        // Both readings alike: nothing to decide.
        assert!(!new_escaping_unsure("a\\nb", "` x\\ny"));
    }
}
