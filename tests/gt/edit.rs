//! The intended edit (replace, insert or delete whole lines, or change a substring of a line; one or
//! several per file) and the file it must produce.

use super::doc::{indent_of, key, Doc, Lang, Line};
use super::files::{change_token, other_token, stmt, tokens};
use super::rng::Rng;

/// One line of an edit's new side.
#[derive(Clone, Debug, PartialEq)]
pub enum NL {
    /// File line `i`, unchanged (the model copied it; the file's bytes must stay).
    Kept(usize),
    /// A line the model wrote, at the file's columns in the file's style. `origin`: the file line
    /// it is a changed copy of.
    Written { text: String, origin: Option<usize> },
}

/// A change of a substring inside one line.
#[derive(Clone, Debug)]
pub struct Sub {
    pub line: usize,
    /// Byte offset of `old` in the line's text.
    pub at: usize,
    pub old: String,
    pub new: String,
}

/// File lines `start..end` become `new` (`start == end`: an insertion before line `start`).
#[derive(Clone, Debug)]
pub struct LineEdit {
    pub start: usize,
    pub end: usize,
    pub new: Vec<NL>,
    pub sub: Option<Sub>,
    pub kind: EditKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKind {
    Replace,
    Insert,
    Delete,
    Substring,
}

impl EditKind {
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Replace => "replace",
            EditKind::Insert => "insert",
            EditKind::Delete => "delete",
            EditKind::Substring => "substring",
        }
    }
}

/// The line may end with any terminator the file uses (a line the engine terminates itself in a
/// file with mixed endings).
pub const EOL_ANY: u8 = 1;
/// Trailing whitespace may be kept or dropped (the model could not see it).
pub const WS_ANY: u8 = 2;
/// NFC or NFD (the model could not see the difference).
pub const NF_ANY: u8 = 4;
/// Curly or straight quotes (the model smartened them and its edits to this file gave no sign).
pub const TYPO_ANY: u8 = 8;

/// A line of a result: text, terminator, the original line it is a copy of, and what may differ.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpLine {
    pub text: String,
    /// Other texts that are right for this line: the file's own bytes of a line the edit
    /// removes that this written line repeats by what a view shows (the engine may keep them).
    pub alts: Vec<String>,
    pub eol: &'static str,
    pub origin: Option<usize>,
    pub relax: u8,
}

/// Indentation for a new line after line `i` (or at the top).
fn indent_after(doc: &Doc, i: Option<usize>) -> String {
    let Some(i) = i else { return String::new() };
    // The nearest non-blank line at or above i.
    let mut k = i;
    while k > 0 && doc.lines[k].text.trim().is_empty() {
        k -= 1;
    }
    let t = &doc.lines[k].text;
    let base = indent_of(t).to_string();
    let tt = t.trim_end();
    let opens = match doc.lang {
        // A Python bracket left open (`STATUS = {`) holds its items one level deeper too.
        Lang::Python => tt.ends_with([':', '{', '(', '[']) && !doc.in_embedded(k),
        Lang::Yaml => tt.ends_with(':') && !doc.in_embedded(k),
        Lang::Makefile => false,
        _ => tt.ends_with('{') || tt.ends_with("then"),
    };
    if doc.in_embedded(k) {
        if tt.ends_with(':') {
            return format!("{base}  ");
        }
        return base;
    }
    if opens {
        format!("{base}{}", doc.unit)
    } else {
        base
    }
}

/// New lines to insert at indentation `ind` (one statement, maybe nested).
fn new_lines(r: &mut Rng, doc: &Doc, at: usize, ind: &str) -> Vec<String> {
    let lang = if doc.in_embedded(at.min(doc.lines.len().saturating_sub(1))) {
        Lang::Yaml
    } else {
        doc.lang
    };
    let unit = if lang == Lang::Yaml { "  " } else { doc.unit };
    let nest = r.chance(1, 3);
    let s = stmt(r, lang, 0, nest);
    s.into_iter()
        .map(|(d, t)| {
            if lang == Lang::Makefile {
                // Recipe lines come with their tab.
                if ind.is_empty() && d == 0 {
                    t
                } else {
                    format!("\t{t}")
                }
            } else if lang == Lang::Tsv {
                t
            } else {
                format!("{ind}{}{t}", unit.repeat(d))
            }
        })
        .collect()
}

/// Picks 1..=max edits on `doc`, in file order, apart from each other.
pub fn choose_edits(r: &mut Rng, doc: &Doc, max: usize) -> Vec<LineEdit> {
    let n = doc.lines.len();
    let want = if max <= 1 {
        1
    } else {
        r.weighted(&[(1, 6), (2, 3), (3, 1)]).min(max)
    };
    let mut edits: Vec<LineEdit> = Vec::new();
    let mut tries = 0;
    while edits.len() < want && tries < 40 {
        tries += 1;
        // Half the time inside a twin, where it is hard.
        let at = if !doc.twins.is_empty() && r.chance(1, 2) {
            let t = &doc.twins[r.below(doc.twins.len())];
            let base = if r.chance(1, 2) { t.a } else { t.b };
            base + r.below(t.len.max(1))
        } else {
            r.below(n)
        };
        if at >= n {
            continue;
        }
        let kind = r.weighted(&[
            (EditKind::Replace, 9),
            (EditKind::Insert, 4),
            (EditKind::Delete, 2),
            (EditKind::Substring, 5),
        ]);
        let Some(e) = make_edit(r, doc, at, kind) else {
            continue;
        };
        // At least 3 lines between two edits' lines.
        let clash = edits
            .iter()
            .any(|o| e.start < o.end.max(o.start + 1) + 3 && o.start < e.end.max(e.start + 1) + 3);
        if clash {
            continue;
        }
        edits.push(e);
    }
    edits.sort_by_key(|e| e.start);
    edits
}

/// Whether a replacement that writes new lines, in a language where indentation is syntax, deletes
/// an opening line and keeps any line of its body: that body is left deeper than anything above
/// it, no well-formed code, and the lines written near it have no frame a reader could call right
/// (seed 28, 962255: `class Store:` replaced by a statement over its `def`; seed 25, 321450: YAML
/// `api:` deleted with its first body line, `ports:` and `env:` kept).
fn orphans_a_body(doc: &Doc, at: usize, len: usize, new: &[NL]) -> bool {
    let writes = new
        .iter()
        .any(|n| matches!(n, NL::Written { origin: None, .. }));
    if !doc.lang.indent_significant() || !writes {
        return false;
    }
    let text = |i: usize| doc.lines[i].text.as_str();
    let survives = |j: usize| {
        j >= at + len
            || new.iter().any(|n| match n {
                NL::Kept(k) => *k == j,
                NL::Written { origin, .. } => *origin == Some(j),
            })
    };
    (at..at + len).any(|i| {
        if text(i).trim().is_empty() || survives(i) {
            return false;
        }
        let depth = indent_of(text(i)).len();
        (i + 1..doc.lines.len())
            .filter(|&j| !text(j).trim().is_empty())
            .take_while(|&j| indent_of(text(j)).len() > depth)
            .any(survives)
    })
}

fn make_edit(r: &mut Rng, doc: &Doc, at: usize, kind: EditKind) -> Option<LineEdit> {
    let n = doc.lines.len();
    let text = |i: usize| doc.lines[i].text.as_str();
    match kind {
        EditKind::Substring => {
            let toks = tokens(text(at));
            if toks.is_empty() {
                return None;
            }
            let (a, b) = toks[r.below(toks.len())];
            let old = text(at)[a..b].to_string();
            let new = other_token(r, &old);
            let line = format!("{}{}{}", &text(at)[..a], new, &text(at)[b..]);
            Some(LineEdit {
                start: at,
                end: at + 1,
                new: vec![NL::Written {
                    text: line,
                    origin: Some(at),
                }],
                sub: Some(Sub {
                    line: at,
                    at: a,
                    old,
                    new,
                }),
                kind,
            })
        }
        EditKind::Insert => {
            // Insert before line `p` (p == n: at the end).
            let p = (at + 1).min(n);
            let ind = indent_after(doc, p.checked_sub(1));
            let mut new: Vec<NL> = new_lines(r, doc, p.saturating_sub(1), &ind)
                .into_iter()
                .map(|t| NL::Written {
                    text: t,
                    origin: None,
                })
                .collect();
            if r.chance(1, 4) {
                new.extend(
                    new_lines(r, doc, p.saturating_sub(1), &ind)
                        .into_iter()
                        .map(|t| NL::Written {
                            text: t,
                            origin: None,
                        }),
                );
            }
            Some(LineEdit {
                start: p,
                end: p,
                new,
                sub: None,
                kind,
            })
        }
        EditKind::Delete => {
            let len = r.range(1, 2).min(n - at);
            if len == 0
                || (doc.lines[at..at + len]
                    .iter()
                    .all(|l| l.text.trim().is_empty()))
            {
                return None;
            }
            Some(LineEdit {
                start: at,
                end: at + len,
                new: Vec::new(),
                sub: None,
                kind,
            })
        }
        EditKind::Replace => {
            let len = r.weighted(&[(1, 5), (2, 3), (3, 2), (4, 1)]).min(n - at);
            if doc.lines[at..at + len]
                .iter()
                .all(|l| l.text.trim().is_empty())
            {
                return None;
            }
            let mut new = Vec::new();
            let mut changed = false;
            // The indentation of the shallowest line of the run of deleted lines `i` ends.
            let mut deleted_at: Option<String> = None;
            for i in at..at + len {
                let blank = text(i).trim().is_empty();
                let mut deleted = false;
                match r.below(20) {
                    0..=6 => new.push(NL::Kept(i)),
                    7..=16 if !blank => {
                        let t = change_token(r, text(i));
                        changed = true;
                        new.push(NL::Written {
                            text: t,
                            origin: Some(i),
                        });
                    }
                    17..=19 => {
                        changed = true;
                        deleted = true;
                    }
                    _ => new.push(NL::Kept(i)),
                }
                match (deleted, blank) {
                    (true, false) => {
                        let here = indent_of(text(i));
                        if deleted_at.as_ref().is_none_or(|d| here.len() < d.len()) {
                            deleted_at = Some(here.to_string());
                        }
                    }
                    (true, true) => {}
                    (false, _) => deleted_at = None,
                }
                if r.chance(1, 6) {
                    // Lines written in place of a deleted line stand where it stood (below a
                    // deleted `ports:`, not in the block it no longer opens), and in place of a
                    // deleted body whose opening line went with it, where that line stood (a
                    // `for` written where the body of a deleted `for` was is no well-formed code).
                    let ind = match deleted {
                        true if !blank => deleted_at.clone().unwrap_or_default(),
                        _ => indent_after(doc, Some(i)),
                    };
                    for t in new_lines(r, doc, i, &ind) {
                        new.push(NL::Written {
                            text: t,
                            origin: None,
                        });
                    }
                    changed = true;
                }
            }
            if orphans_a_body(doc, at, len, &new) {
                return None;
            }
            if !changed {
                let i = (at..at + len).find(|&i| !text(i).trim().is_empty())?;
                let k = new.iter().position(|x| *x == NL::Kept(i))?;
                new[k] = NL::Written {
                    text: change_token(r, text(i)),
                    origin: Some(i),
                };
            }
            Some(LineEdit {
                start: at,
                end: at + len,
                new,
                sub: None,
                kind,
            })
        }
    }
}

/// Kept lines that may carry the invisible bytes (trailing whitespace; the line break) of a line a
/// view shows alike, because which of the two the edit keeps is not in the text sent:
/// - inside an edit, a kept line and a line the edit removes or writes (`a\na` for `a`: either
///   `a` may be the kept one);
/// - beside an edit, a kept line and the removed or written line it could trade places with:
///   deleting `a x` from `a x a` reads the same as deleting `x a`, inserting `a` after `a` the
///   same as inserting it before.
///
/// The engine keeps one twin with its own bytes; either one is the file's bytes for that line.
/// Whether `a` and `b` have as many words, all but one the same.
fn one_word_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    a.len() == b.len() && a.iter().zip(&b).filter(|(x, y)| x != y).count() == 1
}

fn twins(
    doc: &Doc,
    edits: &[LineEdit],
) -> std::collections::HashMap<usize, Vec<(String, &'static str)>> {
    let shown = |t: &str| t.trim_end_matches([' ', '\t']).to_string();
    let n = doc.lines.len();
    // A line the model writes in a mixed file may end either way (`EOL_ANY`): which of it and an
    // equal kept line keeps the kept line's break is no view's to tell (seed 31 case 926836).
    let written_eol = if doc.mixed_eol() { "?" } else { doc.eol };
    let mut out: std::collections::HashMap<usize, Vec<(String, &'static str)>> = Default::default();
    for e in edits {
        let kept_here: Vec<usize> = e
            .new
            .iter()
            .filter_map(|nl| match nl {
                NL::Kept(k) => Some(*k),
                NL::Written { .. } => None,
            })
            .collect();
        let removed: Vec<(String, &'static str)> = (e.start..e.end)
            .filter(|j| !kept_here.contains(j))
            .map(|j| (doc.lines[j].text.clone(), doc.lines[j].eol))
            .collect();
        let written: Vec<(String, &'static str)> = e
            .new
            .iter()
            .filter_map(|nl| match nl {
                NL::Written { text, .. } => Some((text.clone(), written_eol)),
                NL::Kept(_) => None,
            })
            .collect();
        for &k in &kept_here {
            for t in removed.iter().chain(&written) {
                if shown(&t.0) == shown(&doc.lines[k].text) {
                    out.entry(k).or_default().push(t.clone());
                }
            }
            // A line written with one word changed from a kept line reads as that line edited as
            // well (a diff keeping as many lines either way): which of them keeps its break is
            // no view's to tell either (seed 31 case 934516).
            // Its line break only: the visible text stays the kept line's.
            for t in &written {
                if one_word_apart(&t.0, &doc.lines[k].text) {
                    let own = doc.lines[k].text.clone();
                    out.entry(k).or_default().push((own, t.1));
                }
            }
            // An edit that writes a line it also removes (`return value;` moved below) can be
            // diffed keeping that line instead of this one, as many lines kept either way: which
            // line keeps its break is no view's to tell (seed 32 case 37579).
            let moved = written
                .iter()
                .any(|w| removed.iter().any(|r| shown(&r.0) == shown(&w.0)));
            if moved && doc.mixed_eol() {
                out.entry(k)
                    .or_default()
                    .push((doc.lines[k].text.clone(), "?"));
            }
        }
        // Beside the edit: the removed (or written) lines, in order, against the kept lines after
        // the edit, and from the end against the kept lines before it.
        for run in [&removed, &written] {
            for (d, t) in run.iter().enumerate() {
                let k = e.end + d;
                if k >= n || shown(&t.0) != shown(&doc.lines[k].text) {
                    break;
                }
                out.entry(k).or_default().push(t.clone());
            }
            for (d, t) in run.iter().rev().enumerate() {
                let Some(k) = e.start.checked_sub(d + 1) else {
                    break;
                };
                if shown(&t.0) != shown(&doc.lines[k].text) {
                    break;
                }
                out.entry(k).or_default().push(t.clone());
            }
            // The run's last lines against the kept lines right after the edit, and its first
            // ones against those right before it: `x` then `a` written before a kept `a\t` reads
            // the same as `x`, the kept line, then `a` written (seed 40 case 766003).
            for m in 1..=run.len() {
                let tail = &run[run.len() - m..];
                if e.end + m <= n
                    && tail
                        .iter()
                        .enumerate()
                        .all(|(j, t)| shown(&t.0) == shown(&doc.lines[e.end + j].text))
                {
                    for (j, t) in tail.iter().enumerate() {
                        out.entry(e.end + j).or_default().push(t.clone());
                    }
                }
                let head = &run[..m];
                if m <= e.start
                    && head
                        .iter()
                        .enumerate()
                        .all(|(j, t)| shown(&t.0) == shown(&doc.lines[e.start - m + j].text))
                {
                    for (j, t) in head.iter().enumerate() {
                        out.entry(e.start - m + j).or_default().push(t.clone());
                    }
                }
            }
            // A run of like lines removed or written beside kept lines like them: removing (or
            // adding) one of several like lines side by side reads the same whichever one goes (or
            // is new), so each kept line of that like run may carry the bytes of any line of the
            // run before it (seed 50 case 397603: one of three `rm -f offset.o` deleted, the
            // third holding trailing spaces; the engine's diff deleted the third).
            if run.iter().all(|t| shown(&t.0) == shown(&run[0].0)) && !run.is_empty() {
                let like = shown(&run[0].0);
                let mut seen: Vec<(String, &'static str)> = run.to_vec();
                let mut k = e.end;
                while k < n && shown(&doc.lines[k].text) == like {
                    out.entry(k).or_default().extend(seen.iter().cloned());
                    seen.push((doc.lines[k].text.clone(), doc.lines[k].eol));
                    k += 1;
                }
                let mut seen: Vec<(String, &'static str)> = run.to_vec();
                let mut k = e.start;
                while k > 0 && shown(&doc.lines[k - 1].text) == like {
                    out.entry(k - 1).or_default().extend(seen.iter().cloned());
                    seen.push((doc.lines[k - 1].text.clone(), doc.lines[k - 1].eol));
                    k -= 1;
                }
            }
        }
    }
    out
}

/// The file `edits` (sorted, disjoint) make of `doc`, line by line. `relax(origin)` says what may
/// differ in a line the model wrote in edit `k` from file line `origin` (or from nothing).
pub fn intended(
    doc: &Doc,
    edits: &[LineEdit],
    relax: &dyn Fn(usize, Option<usize>) -> u8,
) -> Vec<ExpLine> {
    let mixed = doc.mixed_eol();
    let eol_relax = if mixed { EOL_ANY } else { 0 };
    let mut out: Vec<ExpLine> = Vec::new();
    let mut i = 0;
    let twins = twins(doc, edits);
    let kept = |k: usize| {
        let tw = twins.get(&k).map(Vec::as_slice).unwrap_or_default();
        ExpLine {
            alts: tw
                .iter()
                .map(|(t, _)| t.clone())
                .filter(|t| *t != doc.lines[k].text)
                .collect(),
            text: doc.lines[k].text.clone(),
            eol: doc.lines[k].eol,
            origin: Some(k),
            relax: match mixed && tw.iter().any(|(_, e)| *e != doc.lines[k].eol) {
                true => EOL_ANY,
                false => 0,
            },
        }
    };
    for (ek, e) in edits.iter().enumerate() {
        while i < e.start {
            out.push(kept(i));
            i += 1;
        }
        for nl in &e.new {
            match nl {
                NL::Kept(k) => out.push(kept(*k)),
                NL::Written { text, origin } => out.push(ExpLine {
                    // The file's bytes of a removed line it repeats by view keys; and of a kept
                    // line beside the edit it repeats but for trailing whitespace, with which it
                    // may trade places (inserting `a` after `a\t` reads the same as inserting it
                    // before: which of the two keeps the tab is no view's to tell; seed 40 case
                    // 766003).
                    alts: (e.start..e.end)
                        .map(|k| &doc.lines[k].text)
                        .filter(|t| *t != text && key(t) == key(text))
                        .chain(
                            (e.start.saturating_sub(e.new.len())
                                ..(e.end + e.new.len()).min(doc.lines.len()))
                                .map(|k| &doc.lines[k].text)
                                .filter(|t| {
                                    *t != text
                                        && t.trim_end_matches([' ', '\t'])
                                            == text.trim_end_matches([' ', '\t'])
                                }),
                        )
                        .cloned()
                        .collect(),
                    text: text.clone(),
                    eol: doc.eol,
                    origin: None,
                    relax: eol_relax | relax(ek, *origin),
                }),
            }
        }
        i = e.end;
    }
    while i < doc.lines.len() {
        out.push(kept(i));
        i += 1;
    }
    // Two like lines side by side, one kept and one written (trailing whitespace aside), may trade
    // places: which of them is the kept one is no view's to tell, so the kept one may take the
    // written one's leniency on trailing whitespace (seed 49 case 364793: `return idx;` written
    // right before a kept `return idx;`, in an edit whose old side held trailing whitespace the
    // model dropped; the engine's line diff counts the first as written, and gives it the replaced
    // line's trailing space).
    for k in 1..out.len() {
        let (a, b) = (&out[k - 1], &out[k]);
        let bare = |t: &str| t.trim_end_matches([' ', '\t']).to_string();
        if a.origin.is_some() != b.origin.is_some() && bare(&a.text) == bare(&b.text) {
            let ws = (a.relax | b.relax) & WS_ANY;
            out[k - 1].relax |= ws;
            out[k].relax |= ws;
        }
    }
    // A file without a final newline keeps lacking one; a line that is no longer last gets one.
    let final_nl = doc.final_newline();
    let len = out.len();
    for (k, l) in out.iter_mut().enumerate() {
        if k + 1 < len && l.eol.is_empty() {
            l.eol = doc.eol;
            l.relax |= eol_relax;
        }
        if k + 1 == len && !final_nl {
            l.eol = "";
        }
        if k + 1 == len && final_nl && l.eol.is_empty() {
            l.eol = doc.eol;
        }
    }
    // An empty last line without a terminator is no line at all (the bytes end after the line
    // before it).
    if out
        .last()
        .is_some_and(|l| l.text.is_empty() && l.eol.is_empty())
    {
        out.pop();
    }
    out
}

/// The bytes of a result.
pub fn render_lines(lines: &[ExpLine], bom: bool) -> Vec<u8> {
    let mut b = Vec::new();
    if bom {
        b.extend_from_slice("\u{feff}".as_bytes());
    }
    for l in lines {
        b.extend_from_slice(l.text.as_bytes());
        b.extend_from_slice(l.eol.as_bytes());
    }
    b
}

/// The lines of a file as the engine's line table splits them (`\r\n`, `\n` or a lone `\r`).
pub fn split_bytes(text: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((text[start..i].to_string(), "\n"));
                i += 1;
                start = i;
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                out.push((text[start..i].to_string(), "\r\n"));
                i += 2;
                start = i;
            }
            b'\r' => {
                out.push((text[start..i].to_string(), "\r"));
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < b.len() {
        out.push((text[start..].to_string(), ""));
    }
    out
}

/// Whether `actual` (a file's bytes) is the result `exp`, allowing what each line's `relax` allows.
pub fn matches(actual: &[u8], exp: &[ExpLine], bom: bool) -> bool {
    let Ok(text) = std::str::from_utf8(actual) else {
        return false;
    };
    let text = match (bom, text.strip_prefix('\u{feff}')) {
        (true, Some(t)) => t,
        (false, None) => text,
        _ => return false,
    };
    let got = split_bytes(text);
    if got.len() != exp.len() {
        return false;
    }
    got.iter().zip(exp).all(|((t, e), x)| {
        let eol_ok = *e == x.eol || (x.relax & EOL_ANY != 0 && !e.is_empty() && !x.eol.is_empty());
        let norm = |s: &str| {
            let mut s = s.to_string();
            if x.relax & WS_ANY != 0 {
                s = s.trim_end_matches([' ', '\t']).to_string();
            }
            if x.relax & NF_ANY != 0 {
                use unicode_normalization::UnicodeNormalization;
                s = s.nfc().collect();
            }
            if x.relax & TYPO_ANY != 0 {
                s = s.chars().map(super::doc::fold_char).collect();
            }
            s
        };
        let a = norm(t);
        eol_ok && (a == norm(&x.text) || x.alts.contains(t))
    })
}

/// `doc`'s lines as a result (for a case whose right answer leaves the file alone).
pub fn unchanged(doc: &Doc) -> Vec<ExpLine> {
    doc.lines
        .iter()
        .enumerate()
        .map(|(i, l)| ExpLine {
            alts: Vec::new(),
            text: l.text.clone(),
            eol: l.eol,
            origin: Some(i),
            relax: 0,
        })
        .collect()
}

pub fn as_lines(exp: &[ExpLine]) -> Vec<Line> {
    exp.iter()
        .map(|e| Line {
            text: e.text.clone(),
            eol: e.eol,
        })
        .collect()
}
