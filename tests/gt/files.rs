//! Files built to be hard: near-duplicate functions and blocks (twins that differ in one token, in
//! trailing whitespace, in line endings, in NFC vs NFD, in indentation only, or not at all), lines
//! starting with numbers, tabs and spaces, Makefile recipes, YAML, Python, brace languages, string
//! literals holding `\n` and `\t` escapes, repeated scope lines, embedded blocks (a YAML raw string in
//! Go, a heredoc in shell), CRLF, BOM, with and without a final newline.

use unicode_normalization::UnicodeNormalization;

use super::doc::{indent_of, Block, Doc, Lang, Line, Twin, TwinKind};
use super::rng::Rng;

pub const VARS: &[&str] = &[
    "total", "count", "x", "y", "name", "value", "retries", "timeout", "item", "result", "idx",
    "limit", "size", "offset",
];
pub const WORDS: &[&str] = &[
    "ready", "done", "error", "retry", "hello", "café", "naïve", "résumé", "ok", "über", "config",
    "fin",
];
const FUNCS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "load", "save", "parse", "render", "check", "update",
];
const CLASSES: &[&str] = &["Alpha", "Delta", "Store", "Client", "Parser", "Cache"];
const SERVICES: &[&str] = &["web", "worker", "cron", "api", "db"];
const NAMES: &[&str] = &["alice", "bob", "carol", "dave", "erin", "frank"];

/// A relative snippet: (depth, text) lines.
type Snip = Vec<(usize, String)>;

struct Gen {
    lang: Lang,
    unit: &'static str,
    lines: Vec<String>,
    twins: Vec<Twin>,
    embedded: Vec<(usize, usize)>,
    /// Lines of twin copies that take the other line ending.
    flip_eol: Vec<usize>,
}

impl Gen {
    fn push(&mut self, depth: usize, text: &str) {
        if text.is_empty() {
            self.lines.push(String::new());
        } else {
            self.lines
                .push(format!("{}{}", self.unit.repeat(depth), text));
        }
    }

    fn raw(&mut self, text: String) {
        self.lines.push(text);
    }

    fn snip(&mut self, base: usize, s: &Snip) -> usize {
        let at = self.lines.len();
        for (d, t) in s {
            self.push(base + d, t);
        }
        at
    }

    /// Emits `s` at `base`, and returns where; then (later) a perturbed copy via [`Self::twin`].
    fn twin(&mut self, r: &mut Rng, a: usize, len: usize, base: usize, s: &Snip, kind: TwinKind) {
        let b = self.lines.len();
        let mut copy = s.clone();
        let mut depth_shift = 0;
        match kind {
            TwinKind::Token => {
                // Change one token of one non-header line (or the header when it is alone).
                let cands: Vec<usize> = (0..copy.len())
                    .filter(|&i| i > 0 || copy.len() == 1)
                    .filter(|&i| !copy[i].1.trim().is_empty() && !tokens(&copy[i].1).is_empty())
                    .collect();
                if let Some(&i) = cands.get(r.below(cands.len())) {
                    copy[i].1 = change_token(r, &copy[i].1);
                }
            }
            TwinKind::Indent => depth_shift = 1,
            _ => {}
        }
        for (d, t) in &copy {
            self.push(base + d + depth_shift, t);
        }
        let cands: Vec<usize> = (b..self.lines.len())
            .filter(|&i| !self.lines[i].trim().is_empty())
            .collect();
        let pick = cands.get(r.below(cands.len())).copied();
        match (kind, pick) {
            (TwinKind::TrailingWs, Some(i)) => {
                let ws = *r.pick(&[" ", "  ", "\t", "    "]);
                self.lines[i].push_str(ws);
            }
            (TwinKind::Eol, Some(i)) => self.flip_eol.push(i),
            (TwinKind::Nfd, _) => {
                // One line with an accented letter, in NFD in the copy.
                let acc: Vec<usize> = (b..self.lines.len())
                    .filter(|&i| self.lines[i].nfd().count() != self.lines[i].chars().count())
                    .collect();
                match acc.first() {
                    Some(&i) => self.lines[i] = self.lines[i].nfd().collect(),
                    None => {
                        if let Some(i) = pick {
                            let note = format!(" {} café", self.lang.comment());
                            self.lines[i].push_str(&note);
                            self.lines[i] = self.lines[i].nfd().collect();
                            // The original needs the same comment, in NFC, to stay a twin.
                            let j = a + (i - b);
                            self.lines[j].push_str(&note);
                        }
                    }
                }
            }
            _ => {}
        }
        self.twins.push(Twin { a, b, len, kind });
    }
}

fn pick_twin_kind(r: &mut Rng) -> TwinKind {
    r.weighted(&[
        (TwinKind::Token, 5),
        (TwinKind::Exact, 2),
        (TwinKind::TrailingWs, 2),
        (TwinKind::Eol, 1),
        (TwinKind::Nfd, 2),
        (TwinKind::Indent, 2),
    ])
}

/// Identifier, number and word tokens of a line: (byte start, byte end).
pub fn tokens(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push((st, s.len()));
    }
    // Not the escape letters of `\n` / `\t`.
    out.retain(|&(a, _)| a == 0 || s.as_bytes()[a - 1] != b'\\');
    out
}

/// A different word or number for the token at `a..b` of `s`.
pub fn other_token(r: &mut Rng, tok: &str) -> String {
    if let Ok(n) = tok.parse::<u64>() {
        loop {
            let m = match r.below(3) {
                0 => n + 1,
                1 => n.saturating_sub(1).max(1) + 7 * r.range(1, 3) as u64,
                _ => r.range(0, 999) as u64,
            };
            if m != n {
                return m.to_string();
            }
        }
    }
    loop {
        let w = match r.below(3) {
            0 => r.pick(VARS).to_string(),
            1 => r.pick(WORDS).to_string(),
            _ => format!("{tok}{}", r.range(2, 9)),
        };
        if w != tok {
            return w;
        }
    }
}

/// `s` with one token changed.
pub fn change_token(r: &mut Rng, s: &str) -> String {
    let toks = tokens(s);
    if toks.is_empty() {
        return format!("{} {}", s.trim_end(), r.pick(VARS));
    }
    let (a, b) = toks[r.below(toks.len())];
    format!("{}{}{}", &s[..a], other_token(r, &s[a..b]), &s[b..])
}

// ---- statements -----------------------------------------------------------------------------

fn v(r: &mut Rng) -> &'static str {
    VARS[r.below(VARS.len())]
}
fn w(r: &mut Rng) -> &'static str {
    WORDS[r.below(WORDS.len())]
}

/// One statement (maybe a nested one) at depth `d`.
pub fn stmt(r: &mut Rng, lang: Lang, d: usize, nest: bool) -> Snip {
    let (a, b, n, word) = (v(r), v(r), r.range(0, 99), w(r));
    let k = r.below(10);
    let nested = nest && (k == 3 || k == 6);
    let mut out: Snip = Vec::new();
    match lang {
        Lang::Python => match k {
            0 => out.push((d, format!("{a} = {b} + {n}"))),
            1 => out.push((d, format!("{a} = \"{word}\\n\""))),
            2 => out.push((d, format!("print(\"{word}:\\t%s\" % {a})"))),
            3 if nested => {
                out.push((d, format!("if {a} > {n}:")));
                out.extend(stmt(r, lang, d + 1, false));
                if r.chance(1, 2) {
                    out.extend(stmt(r, lang, d + 1, false));
                }
            }
            4 => out.push((d, format!("{a}.append('{word}')"))),
            5 => out.push((d, format!("log.info(\"{word} %s\", {a})"))),
            6 if nested => {
                out.push((d, format!("for {a} in range({n}):")));
                out.extend(stmt(r, lang, d + 1, false));
            }
            7 => out.push((d, format!("{a} = {{\"{word}\": {n}}}"))),
            8 => out.push((d, format!("{a:<8}= {n}"))),
            _ => out.push((d, format!("return {a}"))),
        },
        Lang::Js => match k {
            0 => out.push((d, format!("const {a} = {b} + {n};"))),
            1 => out.push((d, format!("let {a} = \"{word}\\n\";"))),
            2 => out.push((d, format!("console.log(\"{word}:\\t\" + {a});"))),
            3 | 6 if nested => {
                out.push((d, format!("if ({a} > {n}) {{")));
                out.extend(stmt(r, lang, d + 1, false));
                out.push((d, "}".into()));
            }
            4 => out.push((d, format!("{a}.push('{word}');"))),
            8 => out.push((d, format!("const {a:<8} = {n};"))),
            _ => out.push((d, format!("return {a};"))),
        },
        Lang::Go => match k {
            0 => out.push((d, format!("{a} := {b} + {n}"))),
            1 | 2 => out.push((d, format!("fmt.Printf(\"{word}: %d\\n\", {a})"))),
            3 | 6 if nested => {
                out.push((d, format!("if {a} > {n} {{")));
                out.extend(stmt(r, lang, d + 1, false));
                out.push((d, "}".into()));
            }
            4 => out.push((d, format!("{a} = append({a}, \"{word}\")"))),
            8 => out.push((d, format!("{a:<8} = {n}"))),
            _ => out.push((d, format!("return {a}"))),
        },
        Lang::Rust => match k {
            0 => out.push((d, format!("let {a} = {b} + {n};"))),
            1 | 2 => out.push((d, format!("println!(\"{word}: {{}}\\n\", {a});"))),
            3 | 6 if nested => {
                out.push((d, format!("if {a} > {n} {{")));
                out.extend(stmt(r, lang, d + 1, false));
                out.push((d, "}".into()));
            }
            4 => out.push((d, format!("{a}.push(\"{word}\");"))),
            _ => out.push((d, format!("return {a};"))),
        },
        Lang::C => match k {
            0 => out.push((d, format!("int {a} = {b} + {n};"))),
            1 | 2 => out.push((d, format!("printf(\"{word}: %d\\n\", {a});"))),
            3 | 6 if nested => {
                out.push((d, format!("if ({a} > {n}) {{")));
                out.extend(stmt(r, lang, d + 1, false));
                out.push((d, "}".into()));
            }
            8 => out.push((d, format!("{a:<8} = {n};"))),
            _ => out.push((d, format!("return {a};"))),
        },
        Lang::Shell => match k {
            0 => out.push((d, format!("{}={n}", a.to_uppercase()))),
            1 | 2 => out.push((d, format!("echo \"{word}\\n\""))),
            3 | 6 if nested => {
                out.push((d, format!("if [ -f {a}.txt ]; then")));
                out.extend(stmt(r, lang, d + 1, false));
                out.push((d, "fi".into()));
            }
            _ => out.push((d, format!("rm -f {a}.tmp"))),
        },
        Lang::Makefile => match k {
            0 | 1 => out.push((1, format!("$(CC) $(CFLAGS) -o {a} {b}.o"))),
            2 => out.push((1, format!("@echo \"{word}\\n\""))),
            3 => out.push((1, format!("cp {a}.conf $(DEST)/{b}.conf"))),
            _ => out.push((1, format!("rm -f {a}.o"))),
        },
        Lang::Yaml => match k {
            0 | 1 => out.push((d, format!("{}: {n}", a.to_uppercase()))),
            2 => out.push((d, format!("{a}: \"{word}\""))),
            3 | 6 if nest => {
                out.push((d, format!("{a}:")));
                out.push((d + 1, format!("- {word}")));
                out.push((d + 1, format!("- {b}")));
            }
            _ => out.push((d, format!("{a}: {word}"))),
        },
        Lang::Tsv => out.push((0, format!("{n}\t{}\t{}", r.pick(NAMES), r.range(10, 99)))),
    }
    if out.is_empty() {
        out.push((d, stmt_fallback(lang, a)));
    }
    out
}

fn stmt_fallback(lang: Lang, a: &str) -> String {
    match lang {
        Lang::Python | Lang::Go => format!("return {a}"),
        Lang::Shell => format!("rm -f {a}.tmp"),
        Lang::Yaml => format!("{a}: ok"),
        _ => format!("return {a};"),
    }
}

fn body(r: &mut Rng, lang: Lang, d: usize) -> Snip {
    let mut out = Vec::new();
    if lang == Lang::Python && r.chance(1, 4) {
        out.push((d, format!("\"\"\"{} the {}.\"\"\"", "Load", w(r))));
    }
    for _ in 0..r.range(2, 5) {
        out.extend(stmt(r, lang, d, true));
    }
    out
}

/// A function (header, body, closing line) at relative depth 0.
fn function(r: &mut Rng, lang: Lang, name: &str, method: bool) -> Snip {
    let p = v(r);
    let mut s: Snip = Vec::new();
    match lang {
        Lang::Python => {
            let sig = if method {
                format!("def {name}(self, {p}):")
            } else {
                format!("def {name}({p}):")
            };
            s.push((0, sig));
            s.extend(body(r, lang, 1));
        }
        Lang::Js => {
            s.push((
                0,
                if method {
                    format!("{name}({p}) {{")
                } else {
                    format!("function {name}({p}) {{")
                },
            ));
            s.extend(body(r, lang, 1));
            s.push((0, "}".into()));
        }
        Lang::Go => {
            s.push((0, format!("func {name}({p} int) int {{")));
            s.extend(body(r, lang, 1));
            s.push((0, "}".into()));
        }
        Lang::Rust => {
            let vis = if method { "pub " } else { "" };
            s.push((0, format!("{vis}fn {name}({p}: i32) -> i32 {{")));
            s.extend(body(r, lang, 1));
            s.push((0, "}".into()));
        }
        Lang::C => {
            s.push((0, format!("int {name}(int {p}) {{")));
            s.extend(body(r, lang, 1));
            s.push((0, "}".into()));
        }
        Lang::Shell => {
            s.push((0, format!("{name}() {{")));
            s.extend(body(r, lang, 1));
            s.push((0, "}".into()));
        }
        _ => unreachable!(),
    }
    s
}

// ---- files ----------------------------------------------------------------------------------

/// A status map whose lines start with numbers (`404: "Not Found",`), or a numbered one (`1: low`).
fn numbered_map(r: &mut Rng, lang: Lang, d: usize) -> Snip {
    let entries: Vec<(u32, &str)> = if r.chance(1, 2) {
        vec![
            (400, "Bad Request"),
            (401, "Unauthorized"),
            (404, "Not Found"),
            (410, "Gone"),
            (500, "Server Error"),
        ]
    } else {
        vec![(1, "low"), (2, "mid"), (3, "high"), (4, "max")]
    };
    let skip = r.below(entries.len());
    let entries = entries
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| i != skip || r.chance(1, 2))
        .map(|(_, e)| e);
    entries
        .map(|(k, t)| match lang {
            Lang::Yaml => (
                d,
                format!("{k}: {}.html", t.to_lowercase().replace(' ', "-")),
            ),
            _ => (d, format!("{k}: \"{t}\",")),
        })
        .collect()
}

fn gen_lines(r: &mut Rng, lang: Lang) -> Gen {
    let unit = match lang {
        Lang::Python | Lang::Rust | Lang::C | Lang::Shell => "    ",
        Lang::Js | Lang::Yaml => "  ",
        Lang::Go | Lang::Makefile => "\t",
        Lang::Tsv => "",
    };
    let mut g = Gen {
        lang,
        unit,
        lines: Vec::new(),
        twins: Vec::new(),
        embedded: Vec::new(),
        flip_eol: Vec::new(),
    };
    match lang {
        Lang::Python | Lang::Js | Lang::Rust => gen_classes(r, &mut g),
        Lang::Go | Lang::C | Lang::Shell => gen_functions(r, &mut g),
        Lang::Yaml => gen_yaml(r, &mut g),
        Lang::Makefile => gen_make(r, &mut g),
        Lang::Tsv => gen_tsv(r, &mut g),
    }
    g
}

fn gen_classes(r: &mut Rng, g: &mut Gen) {
    let lang = g.lang;
    match lang {
        Lang::Python => {
            g.push(0, "import os");
            g.push(0, "");
            if r.chance(1, 2) {
                g.push(0, "STATUS = {");
                let m = numbered_map(r, lang, 1);
                g.snip(0, &m);
                g.push(0, "}");
                g.push(0, "");
            }
        }
        Lang::Js => {
            g.push(0, "'use strict';");
            g.push(0, "");
            if r.chance(1, 2) {
                g.push(0, "const STATUS = {");
                let m = numbered_map(r, lang, 1);
                g.snip(0, &m);
                g.push(0, "};");
                g.push(0, "");
            }
        }
        _ => {
            g.push(0, "use std::fmt;");
            g.push(0, "");
        }
    }
    let n_classes = r.range(1, 3);
    let mut twin_src: Option<(usize, usize, Snip)> = None;
    let mut twin_done = 0;
    for c in 0..n_classes {
        let cname = CLASSES[(c + r.below(2)) % CLASSES.len()];
        match lang {
            Lang::Python => g.push(0, &format!("class {cname}:")),
            Lang::Js => g.push(0, &format!("class {cname} {{")),
            _ => g.push(0, &format!("impl {cname} {{")),
        }
        let n_methods = r.range(1, 3);
        for m in 0..n_methods {
            if m > 0 {
                g.push(0, "");
            }
            // A method copied from an earlier class (same scope line, another class).
            if let (Some((a, len, s)), true) = (&twin_src, twin_done < 2 && r.chance(2, 3)) {
                let (a, len, s) = (*a, *len, s.clone());
                let kind = pick_twin_kind(r);
                g.twin(r, a, len, 1, &s, kind);
                twin_done += 1;
                continue;
            }
            let name = FUNCS[r.below(FUNCS.len())];
            let s = function(r, lang, name, true);
            let at = g.snip(1, &s);
            if twin_src.is_none() {
                twin_src = Some((at, s.len(), s));
            }
        }
        if lang != Lang::Python {
            g.push(0, "}");
        }
        g.push(0, "");
    }
    // Top-level functions, one maybe a twin of a method's body under another name.
    for _ in 0..r.range(0, 2) {
        let name = FUNCS[r.below(FUNCS.len())];
        let s = function(r, lang, name, false);
        g.snip(0, &s);
        g.push(0, "");
    }
    // The same function at top level: a twin that differs in indentation (JS methods can not be
    // top-level functions as they are).
    if let (Some((a, len, s)), true) = (&twin_src, r.chance(1, 2) && lang != Lang::Js) {
        let (a, len, s) = (*a, *len, s.clone());
        {
            let b = g.lines.len();
            g.snip(0, &s);
            g.twins.push(Twin {
                a,
                b,
                len,
                kind: TwinKind::Indent,
            });
            g.push(0, "");
        }
    }
}

fn gen_functions(r: &mut Rng, g: &mut Gen) {
    let lang = g.lang;
    match lang {
        Lang::Go => {
            g.push(0, "package main");
            g.push(0, "");
            g.push(0, "import \"fmt\"");
            g.push(0, "");
            if r.chance(1, 2) {
                // An embedded YAML document in a raw string, inside an indented function.
                g.push(0, "func config() string {");
                g.push(1, "return `");
                let a = g.lines.len();
                g.raw("name: app".into());
                g.raw(format!("retries: {}", r.range(1, 9)));
                g.raw("items:".into());
                g.raw(format!("  - {}", w(r)));
                g.raw(format!("  - {}", w(r)));
                if r.chance(1, 2) {
                    g.raw("env:".into());
                    g.raw(format!("  DEBUG: \"{}\"", r.pick(&["true", "false"])));
                }
                g.embedded.push((a, g.lines.len()));
                g.raw("`".into());
                g.push(0, "}");
                g.push(0, "");
            }
        }
        Lang::C => {
            g.push(0, "#include <stdio.h>");
            g.push(0, "");
        }
        _ => {
            g.push(0, "#!/bin/sh");
            g.push(0, "set -e");
            g.push(0, "");
            if r.chance(2, 3) {
                // A heredoc (YAML at column 0) inside an indented block.
                g.push(0, "setup() {");
                g.push(1, "if [ ! -f app.yaml ]; then");
                g.push(2, "cat <<EOF > app.yaml");
                let a = g.lines.len();
                g.raw("name: app".into());
                g.raw("items:".into());
                g.raw(format!("  - {}", w(r)));
                g.raw(format!("  - {}", w(r)));
                g.raw(format!("retries: {}", r.range(1, 9)));
                g.embedded.push((a, g.lines.len()));
                g.raw("EOF".into());
                g.push(1, "fi");
                g.push(0, "}");
                g.push(0, "");
            }
        }
    }
    let n = r.range(2, 4);
    let mut made: Vec<(usize, usize, Snip)> = Vec::new();
    for _ in 0..n {
        if !made.is_empty() && r.chance(1, 2) {
            // A twin: the same body under another name.
            let (a, len, s) = made[r.below(made.len())].clone();
            let mut copy = s.clone();
            let old_name = fn_name(&copy[0].1);
            let new_name = loop {
                let n = *r.pick(FUNCS);
                if Some(n) != old_name.as_deref() {
                    break n;
                }
            };
            if let Some(o) = old_name {
                copy[0].1 = copy[0].1.replacen(&o, new_name, 1);
            }
            let kind = pick_twin_kind(r);
            if kind == TwinKind::Indent {
                // Top-level functions can not move; fall back to a token twin.
                g.twin(
                    r,
                    a + 1,
                    len - 2,
                    0,
                    &copy[1..len - 1].to_vec(),
                    TwinKind::Token,
                );
                continue;
            }
            g.push(0, &copy[0].1.clone());
            g.twin(r, a + 1, len - 2, 0, &copy[1..len - 1].to_vec(), kind);
            g.push(0, &copy[len - 1].1.clone());
            g.push(0, "");
            continue;
        }
        let name = FUNCS[r.below(FUNCS.len())];
        let s = function(r, lang, name, false);
        let at = g.snip(0, &s);
        made.push((at, s.len(), s));
        g.push(0, "");
    }
}

fn fn_name(header: &str) -> Option<String> {
    let t = header.trim_start();
    let t = t
        .strip_prefix("func ")
        .or_else(|| t.strip_prefix("int "))
        .or_else(|| t.strip_prefix("function "))
        .unwrap_or(t);
    let end = t.find('(')?;
    Some(t[..end].to_string())
}

fn gen_yaml(r: &mut Rng, g: &mut Gen) {
    g.push(0, "version: 2");
    g.push(0, &format!("name: {}", w(r)));
    g.push(0, "services:");
    let n = r.range(2, 3);
    let mut first: Option<(usize, Snip)> = None;
    for i in 0..n {
        let svc = SERVICES[(i + r.below(2)) % SERVICES.len()];
        g.push(1, &format!("{svc}:"));
        if let (Some((a, s)), true) = (&first, r.chance(2, 3)) {
            let (a, s) = (*a, s.clone());
            let kind = match pick_twin_kind(r) {
                TwinKind::Indent => TwinKind::Token,
                k => k,
            };
            g.twin(r, a, s.len(), 2, &s, kind);
            continue;
        }
        let mut s: Snip = vec![(0, format!("image: app:{}.{}", r.range(1, 3), r.range(0, 9)))];
        s.push((0, "ports:".into()));
        s.push((1, format!("- \"{}:80\"", 8000 + r.range(0, 99))));
        s.push((0, "env:".into()));
        s.push((1, format!("DEBUG: \"{}\"", r.pick(&["true", "false"]))));
        s.push((1, format!("RETRIES: {}", r.range(1, 9))));
        for _ in 0..r.range(0, 2) {
            s.extend(stmt(r, Lang::Yaml, 1, false));
        }
        let at = g.snip(2, &s);
        if first.is_none() {
            first = Some((at, s));
        }
    }
    if r.chance(2, 3) {
        g.push(0, "errors:");
        let m = numbered_map(r, Lang::Yaml, 1);
        g.snip(0, &m);
    }
    if r.chance(1, 2) {
        g.push(0, "items:");
        for _ in 0..r.range(2, 4) {
            g.push(1, &format!("- name: {}", w(r)));
            g.push(1, &format!("  size: {}", r.range(1, 99)));
        }
    }
}

fn gen_make(r: &mut Rng, g: &mut Gen) {
    g.raw("CC      = gcc".into());
    g.raw(format!("CFLAGS  = -O{} -Wall", r.range(0, 3)));
    g.raw("DEST    = /usr/local/etc".into());
    g.raw(String::new());
    let targets = ["build", "install", "test", "dist", "lint"];
    let mut first: Option<(usize, Snip)> = None;
    let n = r.range(2, 4);
    for i in 0..n {
        let t = targets[(i + r.below(2)) % targets.len()];
        g.raw(format!("{t}: main.o util.o"));
        if let (Some((a, s)), true) = (&first, r.chance(1, 2)) {
            let (a, s) = (*a, s.clone());
            let kind = match pick_twin_kind(r) {
                TwinKind::Indent => TwinKind::Token,
                k => k,
            };
            g.twin(r, a, s.len(), 0, &s, kind);
            g.raw(String::new());
            continue;
        }
        let mut s: Snip = Vec::new();
        for _ in 0..r.range(1, 3) {
            s.extend(stmt(r, Lang::Makefile, 0, false));
        }
        let at = g.snip(0, &s);
        if first.is_none() {
            first = Some((at, s));
        }
        g.raw(String::new());
    }
    g.raw("clean:".into());
    g.raw("\trm -f app *.o".into());
    g.raw(String::new());
    g.raw(".PHONY: build clean".into());
}

fn gen_tsv(r: &mut Rng, g: &mut Gen) {
    g.raw("id\tname\tscore".into());
    let n = r.range(5, 12);
    let mut rows: Vec<(String, usize)> = Vec::new();
    for i in 1..=n {
        let (name, score) = if !rows.is_empty() && r.chance(1, 4) {
            rows[r.below(rows.len())].clone()
        } else {
            (r.pick(NAMES).to_string(), r.range(10, 99))
        };
        g.raw(format!("{i}\t{name}\t{score}"));
        rows.push((name, score));
    }
}

/// Blocks from the text: a scope line and the lines under it.
pub fn compute_blocks(lang: Lang, lines: &[Line]) -> Vec<Block> {
    let n = lines.len();
    let blank = |i: usize| lines[i].text.trim().is_empty();
    let ind = |i: usize| indent_of(&lines[i].text).len();
    let mut blocks: Vec<Block> = Vec::new();
    for i in 0..n {
        let t = lines[i].text.trim_end();
        let end = match lang {
            Lang::Python | Lang::Yaml if t.ends_with(':') && !t.trim_start().starts_with('#') => {
                let mut e = i + 1;
                let mut last = i + 1;
                while e < n && (blank(e) || ind(e) > ind(i)) {
                    if !blank(e) {
                        last = e + 1;
                    }
                    e += 1;
                }
                Some(last)
            }
            Lang::Makefile
                if !t.starts_with('\t') && !t.is_empty() && !t.contains('=') && t.contains(':') =>
            {
                let mut e = i + 1;
                while e < n && lines[e].text.starts_with('\t') {
                    e += 1;
                }
                Some(e)
            }
            Lang::Js | Lang::Go | Lang::Rust | Lang::C | Lang::Shell if t.ends_with('{') => {
                let mut depth = 0i64;
                let mut e = i;
                loop {
                    depth += lines[e].text.matches('{').count() as i64
                        - lines[e].text.matches('}').count() as i64;
                    e += 1;
                    if depth <= 0 || e >= n {
                        break;
                    }
                }
                Some(e)
            }
            _ => None,
        };
        if let Some(end) = end {
            if end > i + 1 {
                blocks.push(Block {
                    header: i,
                    end,
                    parent: None,
                });
            }
        }
    }
    for k in 0..blocks.len() {
        let (h, e) = (blocks[k].header, blocks[k].end);
        blocks[k].parent = blocks
            .iter()
            .enumerate()
            .filter(|&(j, b)| j != k && b.header < h && e <= b.end)
            .max_by_key(|(_, b)| b.header)
            .map(|(j, _)| j);
    }
    blocks
}

/// A whole file: its language, lines, line endings, BOM and final newline chosen from `r`.
pub fn gen_doc(r: &mut Rng, lang: Lang, path: &str) -> Doc {
    let g = gen_lines(r, lang);
    let mut texts = g.lines;
    // A little trailing whitespace here and there, and whitespace-only blank lines.
    for t in texts.iter_mut() {
        if r.chance(1, 20) && !t.is_empty() && lang != Lang::Tsv {
            t.push_str([" ", "  ", "\t"][r.below(3)]);
        } else if t.is_empty() && r.chance(1, 10) && lang == Lang::Python {
            t.push_str("    ");
        }
    }
    while texts.last().is_some_and(|t| t.trim().is_empty()) {
        texts.pop();
    }
    let eol: &'static str = if r.chance(1, 5) { "\r\n" } else { "\n" };
    let other: &'static str = if eol == "\n" { "\r\n" } else { "\n" };
    let n = texts.len();
    let mut lines: Vec<Line> = texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| Line {
            text,
            eol: if g.flip_eol.contains(&i) { other } else { eol },
        })
        .collect();
    if n > 0 && r.chance(1, 6) {
        lines[n - 1].eol = "";
    }
    let blocks = compute_blocks(lang, &lines);
    Doc {
        path: path.to_string(),
        lang,
        lines,
        bom: r.chance(1, 12),
        eol,
        unit: g.unit,
        blocks,
        twins: g.twins.into_iter().filter(|t| t.b + t.len <= n).collect(),
        embedded: g.embedded,
    }
}
