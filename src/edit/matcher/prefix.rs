//! View prefixes that models copy from a file viewer into `old`: `cat -n` numbering (`    12\t`),
//! arrows (`    12→`), `12: `, `12 | ` and hashline tags (`12:ab3f|`).
//!
//! They are a view's numbering only when they read as one: every line of `old` carries one of the
//! same kind and the numbers are consecutive ([`strip_view_prefixes`]); the caller then also requires
//! that no line of the file carries a prefix of that kind as content (a dict `404: "Not Found",`, a
//! YAML map `410: x.html`, a TSV row `3\talice`) and that the stripped text sits at the line the first
//! number names. `new` is stripped only when every line of it carries one of that kind and its first
//! number is `old`'s: lines of `new` that merely look like `N: ` (dict keys) are content.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tab,
    Arrow,
    Hashline,
    Colon,
    Pipe,
    /// Digits alone (a numbered blank line whose trailing tab or space was trimmed): fits any kind.
    Bare,
}

/// The line number a view prefix of `line` gives, and the prefix's kind (not [`Kind::Bare`]).
pub(super) fn prefix_kind(line: &str) -> Option<(u64, u8)> {
    match parse(line)? {
        (_, Kind::Bare, _) => None,
        (n, k, _) => Some((n, k as u8)),
    }
}

fn parse(line: &str) -> Option<(u64, Kind, &str)> {
    let s = line.trim_start_matches(' ');
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let num: u64 = s[..digits].parse().ok()?;
    let rest = &s[digits..];
    // `cat -n`'s tab ends the prefix: what follows it is the line, also when that is only the
    // whitespace of an indented blank line (reading it as a bare number lost that indentation, and
    // the rebuild then indented the line `new` wrote there by it once more: G15).
    if let Some(r) = rest.strip_prefix('\t') {
        if !r.is_empty() && r.trim_end().is_empty() {
            return Some((num, Kind::Tab, r));
        }
    }
    if rest.trim_end().is_empty() {
        return Some((num, Kind::Bare, ""));
    }
    if let Some(r) = rest.strip_prefix('\t') {
        return Some((num, Kind::Tab, r));
    }
    if let Some(r) = rest.strip_prefix('\u{2192}') {
        return Some((num, Kind::Arrow, r));
    }
    if let Some(r) = rest.strip_prefix(':') {
        let tag = r.bytes().take_while(u8::is_ascii_alphanumeric).count();
        if (2..=16).contains(&tag) && r.as_bytes().get(tag) == Some(&b'|') {
            return Some((num, Kind::Hashline, &r[tag + 1..]));
        }
        if let Some(r) = r.strip_prefix(' ') {
            return Some((num, Kind::Colon, r));
        }
        return None;
    }
    let r = rest.trim_start_matches(' ');
    if let Some(r) = r.strip_prefix('|') {
        return Some((num, Kind::Pipe, r.strip_prefix(' ').unwrap_or(r)));
    }
    None
}

/// Lines of `s`, without a final empty part after a trailing break; and whether there was one.
fn body(s: &str) -> (Vec<&str>, bool) {
    let mut parts = crate::edit::text::split_lines(s);
    let trailing = parts.len() > 1 && parts.last() == Some(&"");
    if trailing {
        parts.pop();
    }
    (parts, trailing)
}

fn strip_all(
    lines: &[&str],
    kind: Option<Kind>,
    consecutive: bool,
) -> Option<(Vec<String>, Kind, u64)> {
    let mut kind = kind;
    let mut first = None;
    let mut prev: Option<u64> = None;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let (num, k, rest) = parse(line)?;
        if k != Kind::Bare {
            match kind {
                None => kind = Some(k),
                Some(have) if have != k => return None,
                _ => {}
            }
        }
        if consecutive {
            if let Some(p) = prev {
                if num != p + 1 {
                    return None;
                }
            }
        }
        first.get_or_insert(num);
        prev = Some(num);
        out.push(rest.to_string());
    }
    Some((out, kind?, first?))
}

/// `old` and `new` with their view prefixes removed.
#[derive(Debug)]
pub struct Stripped {
    pub old: String,
    pub new: String,
    /// The line number the first line of `old` carried.
    pub first_line: u64,
    /// The prefix kind, comparable with [`prefix_kind`]'s.
    pub kind: u8,
}

/// `old` and `new` with view prefixes removed, or `None` when `old` does not carry them throughout.
pub fn strip_view_prefixes(old: &str, new: &str) -> Option<Stripped> {
    let (o_lines, o_break) = body(old);
    let (o, kind, first) = strip_all(&o_lines, None, true)?;
    let (n_lines, n_break) = body(new);
    let n = match strip_all(&n_lines, Some(kind), false) {
        Some((n, _, n_first)) if !new.is_empty() && n_first == first => n,
        _ => n_lines.iter().map(|s| s.to_string()).collect(),
    };
    let mut old_s = o.join("\n");
    if o_break {
        old_s.push('\n');
    }
    let mut new_s = n.join("\n");
    if n_break {
        new_s.push('\n');
    }
    Some(Stripped {
        old: old_s,
        new: new_s,
        first_line: first,
        kind: kind as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_each_kind() {
        let cases = [
            ("    12\tfoo()\n    13\t  bar\n", "foo()\n  bar\n"),
            ("12\u{2192}foo()\n13\u{2192}  bar", "foo()\n  bar"),
            ("12:ab3f|foo()\n13:9c0d|  bar", "foo()\n  bar"),
            ("12: foo()\n13:   bar", "foo()\n  bar"),
            ("  12 | foo()\n  13 |   bar", "foo()\n  bar"),
            ("    12\tfoo()\n    13\n    14\tbar", "foo()\n\nbar"),
            // A whitespace-only line keeps its whitespace after cat -n's tab.
            (
                "    12\tfoo()\n    13\t    \n    14\tbar",
                "foo()\n    \nbar",
            ),
        ];
        for (old, want) in cases {
            let o = strip_view_prefixes(old, "").unwrap_or_else(|| panic!("{old:?}"));
            assert_eq!(o.old, want, "{old:?}");
            assert_eq!(o.first_line, 12, "{old:?}");
        }
    }

    #[test]
    fn refuses_gaps_mixed_kinds_and_unprefixed_lines() {
        assert!(strip_view_prefixes("12\tfoo\n14\tbar", "").is_none());
        assert!(strip_view_prefixes("12\tfoo\n13: bar", "").is_none());
        assert!(strip_view_prefixes("12\tfoo\nbar", "").is_none());
        assert!(strip_view_prefixes("foo", "").is_none());
        assert!(
            strip_view_prefixes("12", "").is_none(),
            "digits alone are no prefix kind"
        );
    }

    #[test]
    fn new_is_stripped_only_when_fully_prefixed() {
        let n = strip_view_prefixes("1\ta\n2\tb\n", "1\ta\n2\tc\n")
            .unwrap()
            .new;
        assert_eq!(n, "a\nc\n");
        let n = strip_view_prefixes("1\ta\n2\tb\n", "a\n2\tc\n")
            .unwrap()
            .new;
        assert_eq!(n, "a\n2\tc\n");
        // Lines of `new` that look like prefixes but do not continue old's numbering are content
        // (dict keys): stripping them lost every key.
        let n = strip_view_prefixes("7: x = {\n", "200: \"OK\",\n404: \"Missing\",\n")
            .unwrap()
            .new;
        assert_eq!(n, "200: \"OK\",\n404: \"Missing\",\n");
    }
}
