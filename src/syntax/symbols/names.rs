//! Name paths.
//!
//! A symbol's canonical name path is its logical path joined with `/` (`Cache/get`), followed by
//! `[i]` (0-based, file order) when several symbols share that path (overloads, a Python property's
//! getter and setter, a C `main` defined twice under `#ifdef`).
//!
//! A caller's name path is resolved in tiers; the first tier with a match decides:
//! 1. the whole path, `/`-separated (so every canonical name path resolves to its own symbol);
//! 2. the whole path with `.` or `::` accepted between segments;
//! 3. a suffix of the path (`get` finds `Cache/get`), `/`-separated;
//! 4. a suffix with `.` or `::` accepted.
//!
//! A leading `/` makes the path absolute (tiers 1 and 2 only). A trailing `[i]` picks the i-th
//! symbol (0-based, in file order) of the tier's matches; a name that itself ends in `[...]` (a JSON
//! key `"a[0]"`) is tried literally first. No match, or an index past the matches, is
//! `NotFound`; several matches without an index is `Ambiguous`.

use super::Symbol;

/// Why a name path does not name exactly one symbol. The candidates are symbol indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    NotFound { candidates: Vec<usize> },
    Ambiguous { candidates: Vec<usize> },
}

/// Sets every symbol's canonical `name_path`.
pub(super) fn assign(symbols: &mut [Symbol]) {
    let joined: Vec<String> = symbols.iter().map(|s| s.path.join("/")).collect();
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for j in &joined {
        *counts.entry(j.as_str()).or_default() += 1;
    }
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut names = Vec::with_capacity(symbols.len());
    for j in &joined {
        let n = counts[j.as_str()];
        if n > 1 {
            let i = seen.entry(j.as_str()).or_default();
            names.push(format!("{j}[{i}]"));
            *i += 1;
        } else {
            names.push(j.clone());
        }
    }
    for (s, n) in symbols.iter_mut().zip(names) {
        s.name_path = n;
    }
}

const SEPARATORS: [&str; 3] = ["/", ".", "::"];

/// Whether `q` spells `segs` (whole, or a suffix when `suffix`), with `/` only or with any
/// separator between segments.
fn spells(q: &str, segs: &[String], suffix: bool, any_sep: bool) -> bool {
    let Some((last, rest)) = segs.split_last() else {
        return false;
    };
    let Some(before) = q.strip_suffix(last.as_str()) else {
        return false;
    };
    if before.is_empty() {
        return suffix || rest.is_empty();
    }
    let seps: &[&str] = if any_sep {
        &SEPARATORS
    } else {
        &SEPARATORS[..1]
    };
    seps.iter().any(|sep| {
        before
            .strip_suffix(sep)
            .is_some_and(|b| !b.is_empty() && spells(b, rest, suffix, any_sep))
    })
}

/// The symbols `q` names in the first tier that has any.
fn matches(symbols: &[Symbol], q: &str, absolute: bool) -> Vec<usize> {
    let tiers: &[(bool, bool)] = if absolute {
        &[(false, false), (false, true)]
    } else {
        &[(false, false), (false, true), (true, false), (true, true)]
    };
    for &(suffix, any_sep) in tiers {
        let found: Vec<usize> = symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| spells(q, &s.path, suffix, any_sep))
            .map(|(i, _)| i)
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// `name[3]` → `("name", 3)`.
fn split_index(q: &str) -> Option<(&str, usize)> {
    let open = q.strip_suffix(']')?.rfind('[')?;
    let digits = &q[open + 1..q.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 9 {
        return None;
    }
    Some((&q[..open], digits.parse().ok()?))
}

/// The strings a symbol's name must end for it to answer `name_path`: the path as given (without a
/// leading `/`), and without its trailing `[i]`.
pub(super) fn query_forms(name_path: &str) -> Vec<String> {
    let q = name_path.trim();
    let q = q.strip_prefix('/').unwrap_or(q);
    let mut forms = vec![q.to_string()];
    if let Some((base, _)) = split_index(q) {
        forms.push(base.to_string());
    }
    forms
}

/// Every name a symbol must have to answer `name_path`: the suffixes of its [`query_forms`] that
/// start the form or follow a separator (`a.b/c[1]` → `a.b/c[1]`, `b/c[1]`, `c[1]`, `a.b/c`, `b/c`,
/// `c`), since [`resolve`] matches a symbol's last path segment against such a suffix.
pub(super) fn candidate_names(name_path: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for form in query_forms(name_path) {
        for (k, _) in form.char_indices() {
            let head = &form[..k];
            if k == 0 || SEPARATORS.iter().any(|sep| head.ends_with(sep)) {
                let name = &form[k..];
                if !out.iter().any(|n| n == name) {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// The parts of each [`query_forms`] of `name_path`, split at every separator character (`/`,
/// `.`, `:`), empty ones left out: whatever segments a symbol's path splits the form into, each
/// part is inside one of them.
pub(super) fn pieces(name_path: &str) -> Vec<Vec<String>> {
    query_forms(name_path)
        .iter()
        .map(|form| {
            form.split(['/', '.', ':'])
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// An identifier character in every grammar surepatch has (ASCII part).
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the text `bytes[start..end]` can be a whole name where it is: a name that starts (ends)
/// with an identifier character is not preceded (followed) by one, since the grammars read such
/// characters as one token.
pub(super) fn bounded(bytes: &[u8], start: usize, end: usize) -> bool {
    let (Some(&first), Some(&last)) = (bytes.get(start), bytes.get(end.wrapping_sub(1))) else {
        return false;
    };
    let before_ok = !word_byte(first) || start == 0 || !word_byte(bytes[start - 1]);
    let after_ok = !word_byte(last) || bytes.get(end).is_none_or(|&b| !word_byte(b));
    before_ok && after_ok
}

/// Whether a symbol named `name` in `language` has that name, byte for byte, in the text inside
/// its node (so [`super::outline_named`] finds it by looking the name up). Not for Rust `impl`
/// blocks (`impl T for U` is built from the type names). Not for the C/C++ names a qualified
/// declarator may write with whitespace or a comment inside a segment, which the outline drops
/// (`A::operator new` is `operatornew`, `A::template B` is `templateB`, `A:: ~ A` is `~A`): names
/// with whitespace, `~`, `\`, a comment, or starting with `operator` / `template`. Any other C/C++
/// segment is an identifier, so a name with `/`, `.` or `:` in it can only be a namespace written
/// `a::b`, which is its node's text.
pub(super) fn in_text_as_is(language: &str, name: &str) -> bool {
    match language {
        "rust" => !name.contains(char::is_whitespace),
        "c" | "cpp" => {
            !name.contains(|c: char| c.is_whitespace() || c == '~' || c == '\\')
                && !name.contains("/*")
                && !name.contains("//")
                && !name.starts_with("operator")
                && !name.starts_with("template")
        }
        _ => true,
    }
}

/// The one symbol `name_path` names.
pub fn resolve(symbols: &[Symbol], name_path: &str) -> Result<usize, Resolved> {
    let q = name_path.trim();
    let (q, absolute) = match q.strip_prefix('/') {
        Some(rest) => (rest, true),
        None => (q, false),
    };
    let literal = matches(symbols, q, absolute);
    let (found, index) = match (literal.is_empty(), split_index(q)) {
        (true, Some((base, i))) => (matches(symbols, base, absolute), Some(i)),
        _ => (literal, None),
    };
    match (found.len(), index) {
        (0, _) => Err(Resolved::NotFound {
            candidates: near(symbols, q),
        }),
        (_, Some(i)) => found
            .get(i)
            .copied()
            .ok_or(Resolved::NotFound { candidates: found }),
        (1, None) => Ok(found[0]),
        (_, None) => Err(Resolved::Ambiguous { candidates: found }),
    }
}

/// Candidates for a name path that named nothing: symbols whose name contains the query's last
/// segment (case-insensitive), else every symbol; at most 20.
fn near(symbols: &[Symbol], q: &str) -> Vec<usize> {
    let q = split_index(q).map_or(q, |(b, _)| b);
    let last = q.rsplit(['/', '.', ':']).next().unwrap_or(q).to_lowercase();
    let mut found: Vec<usize> = symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            let n = s.name.to_lowercase();
            !last.is_empty() && (n.contains(&last) || last.contains(&n))
        })
        .map(|(i, _)| i)
        .collect();
    if found.is_empty() {
        found = (0..symbols.len()).collect();
    }
    found.truncate(20);
    found
}
