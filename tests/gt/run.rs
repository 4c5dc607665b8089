//! Applies a case through the real entry point (`surepatch::api::call` on a temp workspace), judges
//! the outcome against the oracle, counts per reading, shrinks a wrong case and writes it as a JSON
//! reproduction.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::edit::{matches, render_lines, split_bytes, ExpLine};
use super::render::{Case, Expect, FileCase};

/// One workspace directory (per worker thread); every case writes its files, calls, reads them
/// back and removes them.
pub struct Worker {
    pub root: PathBuf,
    root_json: String,
}

impl Worker {
    pub fn new(tag: &str) -> Worker {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let root = base.join(format!("surepatch-gt-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).expect("create the workspace");
        let root = root.canonicalize().expect("canonical workspace");
        let root_json = serde_json::to_string(&root.to_string_lossy()).unwrap();
        Worker { root, root_json }
    }

    /// Runs `case` and judges it.
    pub fn run(&self, case: &Case) -> Outcome {
        if !self.first_sending_lands(case) {
            return Outcome {
                verdict: Verdict::Skipped,
                response: Value::Null,
                actual: Vec::new(),
                receipt: Vec::new(),
                shape: "",
            };
        }
        let before: Vec<Vec<u8>> = case
            .files
            .iter()
            .map(|f| render_lines(&f.before, f.bom))
            .collect();
        for (f, b) in case.files.iter().zip(&before) {
            let p = self.root.join(&f.path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, b).unwrap();
        }
        let args = serde_json::to_string(&case.args)
            .unwrap()
            .replace("\"$ROOT\"", &self.root_json);
        let out = surepatch::api::call(case.op, &args);
        let response: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
        let actual: Vec<Option<Vec<u8>>> = case
            .files
            .iter()
            .map(|f| fs::read(self.root.join(&f.path)).ok())
            .collect();
        for f in &case.files {
            let _ = fs::remove_file(self.root.join(&f.path));
        }
        let verdict = judge(case, &before, &actual, &response);
        let shape = match &verdict {
            Verdict::Wrong(_) => shape(case, &before, &actual),
            _ => "",
        };
        Outcome {
            shape,
            receipt: receipt_labels(&response),
            verdict,
            response,
            actual,
        }
    }
}

impl Worker {
    /// For a retry: whether its first sending, applied to the files before it, writes an accepted
    /// result (a retry re-sends a call that landed; a refused first sending left no file to retry
    /// against). `true` for every other case.
    fn first_sending_lands(&self, case: &Case) -> bool {
        if case.files.iter().all(|f| f.first.is_none()) {
            return true;
        }
        let first = Case {
            expect: Expect::MayApply,
            files: case
                .files
                .iter()
                .map(|f| FileCase {
                    before: f.first.clone().unwrap_or_else(|| f.before.clone()),
                    first: None,
                    ..f.clone()
                })
                .collect(),
            ..case.clone()
        };
        self.run(&first).verdict == Verdict::Applied
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Wrote exactly an accepted result.
    Applied,
    /// `ok: false`, nothing changed (the code).
    Refused(String),
    /// `ok: true` that changed nothing, where a refusal was right.
    Noop,
    /// Anything else: what went wrong.
    Wrong(String),
    /// Not judged: a retry whose first sending does not land (no file it produced exists).
    Skipped,
}

impl Verdict {
    /// One word for a run's case-by-case list: `applied`, `noop`, `wrong`, `skipped` or the
    /// refusal's code.
    pub fn short(&self) -> String {
        match self {
            Verdict::Applied => "applied".into(),
            Verdict::Refused(code) => code.clone(),
            Verdict::Noop => "noop".into(),
            Verdict::Wrong(_) => "wrong".into(),
            Verdict::Skipped => "skipped".into(),
        }
    }
}

pub struct Outcome {
    pub verdict: Verdict,
    pub response: Value,
    pub actual: Vec<Option<Vec<u8>>>,
    /// `tier:…` and `dialect:…` the receipt reported.
    pub receipt: Vec<String>,
    /// For a wrong write: how it departs from the right result (`eol`, `typography`,
    /// `whitespace`, `content`; `wrote` where nothing was to be written).
    pub shape: &'static str,
}

fn judge(case: &Case, before: &[Vec<u8>], actual: &[Option<Vec<u8>>], resp: &Value) -> Verdict {
    let unchanged = actual
        .iter()
        .zip(before)
        .all(|(a, b)| a.as_deref() == Some(b.as_slice()));
    let ok = resp.get("ok") == Some(&Value::Bool(true));
    if !ok {
        if resp.get("ok") != Some(&Value::Bool(false)) {
            return Verdict::Wrong(format!("not a result object: {resp}"));
        }
        if resp.get("code").and_then(Value::as_str) == Some("INTERNAL_ERROR") {
            return Verdict::Wrong("INTERNAL_ERROR".into());
        }
        if !unchanged {
            return Verdict::Wrong("a refusal changed a file".into());
        }
        return Verdict::Refused(
            resp.get("code")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
        );
    }
    match case.expect {
        Expect::MustRefuse => {
            if unchanged {
                Verdict::Noop
            } else {
                Verdict::Wrong(format!(
                    "wrote a file where the right answer is a refusal ({})",
                    case.why
                ))
            }
        }
        Expect::MayApply => {
            for (f, a) in case.files.iter().zip(actual) {
                if f.gone {
                    if a.is_some() {
                        return Verdict::Wrong(format!("{} is still there", f.path));
                    }
                    continue;
                }
                let Some(a) = a else {
                    return Verdict::Wrong(format!("{} is gone", f.path));
                };
                if !f.accept.iter().any(|x| matches(a, x, f.bom)) {
                    return Verdict::Wrong(describe(f, a));
                }
            }
            Verdict::Applied
        }
    }
}

/// How a wrong write departs from the nearest right result.
fn shape(case: &Case, before: &[Vec<u8>], actual: &[Option<Vec<u8>>]) -> &'static str {
    let lone_cr = |b: &[u8]| {
        b.iter()
            .enumerate()
            .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'))
    };
    if actual
        .iter()
        .zip(before)
        .any(|(a, b)| a.as_deref().is_some_and(lone_cr) && !lone_cr(b))
    {
        return "lone_cr";
    }
    if case.expect == Expect::MustRefuse {
        return "wrote";
    }
    let eol = |s: &str| s.replace("\r\n", "\n").replace('\r', "\n");
    let quotes = |s: &str| {
        eol(s)
            .chars()
            .map(super::doc::fold_char)
            .collect::<String>()
    };
    let ws = |s: &str| {
        quotes(s)
            .chars()
            .filter(|c| !matches!(c, ' ' | '\t'))
            .collect::<String>()
    };
    let mut worst = 0;
    for ((f, a), b) in case.files.iter().zip(actual).zip(before) {
        if f.gone {
            continue;
        }
        let Some(a) = a else { return "content" };
        if a == b {
            // Unchanged where a change was right: "ok" without the write.
            worst = worst.max(3);
            continue;
        }
        let got = String::from_utf8_lossy(a).into_owned();
        let rank = f
            .accept
            .iter()
            .map(|x| {
                let exp = String::from_utf8_lossy(&render_lines(x, f.bom)).into_owned();
                if got == exp || matches(a, x, f.bom) {
                    0
                } else if eol(&got) == eol(&exp) {
                    1
                } else if quotes(&got) == quotes(&exp) {
                    2
                } else if ws(&got) == ws(&exp) {
                    3
                } else {
                    4
                }
            })
            .min()
            .unwrap_or(4);
        worst = worst.max(rank);
    }
    ["content", "eol", "typography", "whitespace", "content"][worst]
}

/// The first line where `actual` departs from the generator's intended result.
fn describe(f: &FileCase, actual: &[u8]) -> String {
    let text = String::from_utf8_lossy(actual);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let got = split_bytes(text);
    let exp = &f.accept[0];
    let n = got.len().max(exp.len());
    for i in 0..n {
        let g = got.get(i);
        let e = exp.get(i);
        let same = match (g, e) {
            (Some((t, l)), Some(x)) => *t == x.text && *l == x.eol,
            _ => false,
        };
        if !same {
            return format!(
                "{}: line {}: intended {:?}, written {:?} ({} lines intended, {} written)",
                f.path,
                i + 1,
                e.map(|x| format!("{}{}", x.text, x.eol)),
                g.map(|(t, l)| format!("{t}{l}")),
                exp.len(),
                got.len()
            );
        }
    }
    format!("{}: differs only in what relax flags do not allow", f.path)
}

fn receipt_labels(resp: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut tier = |v: &Value| {
        if let Some(t) = v.as_str() {
            out.push(format!("tier:{t}"));
        }
    };
    if let Some(t) = resp.get("tier") {
        tier(t);
    }
    let walk_matches = |ms: &Value, tier: &mut dyn FnMut(&Value)| {
        for m in ms.as_array().into_iter().flatten() {
            if let Some(t) = m.get("tier") {
                tier(t);
            }
            for t in m
                .get("tolerances")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                tier(t);
            }
        }
    };
    if let Some(ms) = resp.get("matches") {
        walk_matches(ms, &mut tier);
    }
    for f in resp
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(ms) = f.get("matches") {
            walk_matches(ms, &mut tier);
        }
    }
    for d in resp
        .get("dialect")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(d) = d.as_str() {
            out.push(format!("dialect:{d}"));
        }
    }
    out.sort();
    out.dedup();
    out
}

// ---- statistics ---------------------------------------------------------------------------------

#[derive(Default, Clone, Debug)]
pub struct Counts {
    pub cases: u64,
    pub must_refuse: u64,
    pub applied: u64,
    pub refused: u64,
    pub noop: u64,
    pub wrong: u64,
    pub known: u64,
    /// Retries not judged: their first sending does not land.
    pub skipped: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.cases += o.cases;
        self.must_refuse += o.must_refuse;
        self.applied += o.applied;
        self.refused += o.refused;
        self.noop += o.noop;
        self.wrong += o.wrong;
        self.known += o.known;
        self.skipped += o.skipped;
    }

    fn count(&mut self, case: &Case, v: &Verdict, known: bool) {
        self.cases += 1;
        if case.expect == Expect::MustRefuse {
            self.must_refuse += 1;
        }
        match v {
            Verdict::Applied => self.applied += 1,
            Verdict::Refused(_) => self.refused += 1,
            Verdict::Noop => self.noop += 1,
            Verdict::Skipped => self.skipped += 1,
            Verdict::Wrong(_) => {
                self.wrong += 1;
                if known {
                    self.known += 1;
                }
            }
        }
    }
}

#[derive(Default, Clone, Debug)]
pub struct Stats {
    pub total: Counts,
    /// Per reading: format × noise × adversarial kind.
    pub by_reading: BTreeMap<String, Counts>,
    /// Per rendering choice (`format:variant`).
    pub by_variant: BTreeMap<String, Counts>,
    /// Per tier / dialect the receipt reported (applied and wrong cases).
    pub by_receipt: BTreeMap<String, Counts>,
    /// Per file trait (`format:tag`).
    pub by_tag: BTreeMap<String, Counts>,
    /// Refusal codes of may-apply cases.
    pub refusal_codes: BTreeMap<String, u64>,
    /// Wrong writes per known class (`NEW` for none).
    pub by_class: BTreeMap<String, u64>,
    /// Each case's index and verdict (`Verdict::short`), when `Config::outcomes` asks for them.
    pub outcomes: Vec<(u64, String)>,
}

impl Stats {
    pub fn record(&mut self, case: &Case, o: &Outcome, class: Option<&str>) {
        let known = class.is_some();
        if let Verdict::Wrong(_) = o.verdict {
            *self
                .by_class
                .entry(class.unwrap_or("NEW").to_string())
                .or_default() += 1;
        }
        self.total.count(case, &o.verdict, known);
        self.by_reading
            .entry(case.reading())
            .or_default()
            .count(case, &o.verdict, known);
        let f = case.format.name();
        for v in &case.variant {
            self.by_variant
                .entry(format!("{f}:{v}"))
                .or_default()
                .count(case, &o.verdict, known);
        }
        for t in &case.tags {
            self.by_tag
                .entry(format!("{f}:{t}"))
                .or_default()
                .count(case, &o.verdict, known);
        }
        if matches!(o.verdict, Verdict::Applied | Verdict::Wrong(_)) {
            for r in &o.receipt {
                self.by_receipt
                    .entry(format!("{f} {r}"))
                    .or_default()
                    .count(case, &o.verdict, known);
            }
        }
        if let (Verdict::Refused(code), Expect::MayApply) = (&o.verdict, case.expect) {
            *self.refusal_codes.entry(format!("{f} {code}")).or_default() += 1;
        }
    }

    pub fn merge(&mut self, o: &Stats) {
        self.total.add(&o.total);
        self.outcomes.extend(o.outcomes.iter().cloned());
        for (k, v) in &o.by_reading {
            self.by_reading.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in &o.by_variant {
            self.by_variant.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in &o.by_receipt {
            self.by_receipt.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in &o.by_tag {
            self.by_tag.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in &o.refusal_codes {
            *self.refusal_codes.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.by_class {
            *self.by_class.entry(k.clone()).or_default() += v;
        }
    }

    /// The tables as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let t = &self.total;
        s.push_str(&format!(
            "{} cases: {} may apply, {} must refuse; applied {}, refused {}, no-op {}, **wrong {}** ({} in known classes); {} retries not judged (their first sending does not land)\n\n",
            t.cases,
            t.cases - t.must_refuse,
            t.must_refuse,
            t.applied,
            t.refused,
            t.noop,
            t.wrong,
            t.known,
            t.skipped
        ));
        s.push_str("### Wrong writes per class (FINDINGS.md)\n\n| class | wrong | per 100k cases |\n|---|---:|---:|\n");
        let mut classes: Vec<(&String, &u64)> = self.by_class.iter().collect();
        // G1, G2, …, G10 in number order; NEW last.
        classes.sort_by_key(|(k, _)| {
            k.strip_prefix('G')
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(u32::MAX)
        });
        for (k, v) in classes {
            s.push_str(&format!(
                "| {k} | {v} | {:.0} |\n",
                *v as f64 * 100_000.0 / t.cases.max(1) as f64
            ));
        }
        let mut by_fa: BTreeMap<String, Counts> = BTreeMap::new();
        for (k, c) in &self.by_reading {
            let p: Vec<&str> = k.split(' ').collect();
            by_fa
                .entry(format!("{} {}", p[0], p[2]))
                .or_default()
                .add(c);
            by_fa.entry(format!("{} (all)", p[0])).or_default().add(c);
        }
        s.push_str("\n### Per format × adversarial kind\n\n");
        s.push_str(&table("format adversarial", &by_fa));
        s.push_str("\n### Per reading (format × noise × adversarial)\n\n");
        s.push_str(&table("reading", &self.by_reading));
        s.push_str("\n### Per noise kind (every format and adversarial kind)\n\n");
        let mut by_noise: BTreeMap<String, Counts> = BTreeMap::new();
        for (k, c) in &self.by_reading {
            let noise = k.split(' ').nth(1).unwrap_or(k).to_string();
            by_noise.entry(noise).or_default().add(c);
        }
        s.push_str(&table("noise", &by_noise));
        s.push_str("\n### Per rendering choice\n\n");
        s.push_str(&table("format:variant", &self.by_variant));
        s.push_str("\n### Per tier / dialect the receipt reported (writes only: right and wrong)\n\n| format receipt | right | wrong | wrong share |\n|---|---:|---:|---:|\n");
        for (k, c) in &self.by_receipt {
            s.push_str(&format!(
                "| {k} | {} | {} | {:.1}% |\n",
                c.applied,
                c.wrong,
                100.0 * c.wrong as f64 / (c.applied + c.wrong).max(1) as f64
            ));
        }
        s.push_str("\n### Per file and edit trait\n\n");
        s.push_str(&table("format:trait", &self.by_tag));
        s.push_str(
            "\n### Refusals of may-apply cases, by code\n\n| format code | count |\n|---|---:|\n",
        );
        for (k, v) in &self.refusal_codes {
            s.push_str(&format!("| {k} | {v} |\n"));
        }
        s
    }
}

fn table(head: &str, m: &BTreeMap<String, Counts>) -> String {
    let mut s = format!(
        "| {head} | cases | must refuse | applied | refused | no-op | wrong | apply rate (may apply) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (k, c) in m {
        let may = c.cases - c.must_refuse;
        let rate = if may == 0 {
            "—".to_string()
        } else {
            format!("{:.1}%", 100.0 * c.applied as f64 / may as f64)
        };
        let wrong = if c.wrong > 0 {
            format!("**{}**", c.wrong)
        } else {
            "0".into()
        };
        s.push_str(&format!(
            "| {k} | {} | {} | {} | {} | {} | {wrong} | {rate} |\n",
            c.cases, c.must_refuse, c.applied, c.refused, c.noop
        ));
    }
    s
}

// ---- known classes --------------------------------------------------------------------------------

/// A class of wrong writes already written down in FINDINGS.md, by rendering: `reading` is
/// `format noise adversarial` with `*` for any part (`prefix_*`: any noise starting so); every tag
/// in `tags` must be on the case (its traits, its rendering choices, or a `tier:…` / `dialect:…`
/// label of the receipt; `!tag`: must not be); `shape` is how the write departs from the right
/// result.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    pub reading: &'static str,
    pub tags: &'static [&'static str],
    /// How the wrong write departs from the right result (see [`Outcome::shape`]); `*`: any.
    pub shape: &'static str,
    pub class: &'static str,
}

impl Known {
    /// Whether this entry covers a wrong write of `case` with `shape` and the receipt's
    /// `tier:…` / `dialect:…` labels.
    pub fn covers(&self, case: &Case, shape: &str, receipt: &[String]) -> bool {
        if self.shape != "*" && self.shape != shape {
            return false;
        }
        let reading = case.reading();
        let got: Vec<&str> = reading.split(' ').collect();
        let want: Vec<&str> = self.reading.split(' ').collect();
        if got.len() != want.len() {
            return false;
        }
        let parts_ok = got.iter().zip(&want).all(|(g, w)| {
            *w == "*" || g == w || (w.ends_with('*') && g.starts_with(&w[..w.len() - 1]))
        });
        parts_ok
            && self.tags.iter().all(|t| {
                let has = |t: &str| {
                    case.tags
                        .iter()
                        .chain(&case.variant)
                        .chain(receipt)
                        .any(|x| x == t)
                };
                match t.strip_prefix('!') {
                    Some(t) => !has(t),
                    None => has(t),
                }
            })
    }
}

pub fn known_class<'k>(known: &'k [Known], case: &Case, o: &Outcome) -> Option<&'k Known> {
    known.iter().find(|k| k.covers(case, o.shape, &o.receipt))
}

// ---- shrinking and reproductions --------------------------------------------------------------

/// Removes lines the rendering does not show, as long as the case stays wrong.
pub fn shrink(worker: &Worker, case: &Case) -> Case {
    let mut best = case.clone();
    let shape = worker.run(case).shape;
    let wrong = |c: &Case| {
        let o = worker.run(c);
        matches!(o.verdict, Verdict::Wrong(_)) && o.shape == shape
    };
    for fi in 0..best.files.len() {
        let mut chunk = best.files[fi].before.len().max(1);
        while chunk >= 1 {
            let mut start = 0;
            loop {
                let f = &best.files[fi];
                let cands: Vec<usize> = f
                    .before
                    .iter()
                    .filter_map(|l| l.origin)
                    .filter(|o| !f.pinned.contains(o))
                    .collect();
                if start >= cands.len() {
                    break;
                }
                let drop: Vec<usize> = cands[start..(start + chunk).min(cands.len())].to_vec();
                let mut trial = best.clone();
                remove_origins(&mut trial.files[fi], &drop);
                if wrong(&trial) {
                    best = trial;
                } else {
                    start += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
    }
    best
}

fn remove_origins(f: &mut FileCase, drop: &[usize]) {
    let gone = |l: &ExpLine| l.origin.is_some_and(|o| drop.contains(&o));
    f.before.retain(|l| !gone(l));
    if let Some(first) = f.first.as_mut() {
        first.retain(|l| !gone(l));
    }
    for a in f.accept.iter_mut() {
        a.retain(|l| !gone(l));
    }
}

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A wrong case as JSON: everything needed to replay it (`op`, `args` with `$ROOT`, the files
/// before), what was intended and what was written.
pub fn repro(case: &Case, o: &Outcome, class: Option<&str>) -> Value {
    let files: Vec<Value> = case
        .files
        .iter()
        .zip(&o.actual)
        .map(|(f, a)| {
            json!({
                "path": f.path,
                "before": text_of(&render_lines(&f.before, f.bom)),
                "first_sent_to": f.first.as_ref().map(|x| text_of(&render_lines(x, f.bom))),
                "intended": f.accept.iter().map(|x| text_of(&render_lines(x, f.bom))).collect::<Vec<_>>(),
                "written": a.as_ref().map(|a| text_of(a)),
            })
        })
        .collect();
    json!({
        "seed": format!("{:#018x}", case.seed),
        "reading": case.reading(),
        "variant": case.variant,
        "tags": case.tags,
        "expect": format!("{:?}", case.expect),
        "why": case.why,
        "verdict": format!("{:?}", o.verdict),
        "shape": o.shape,
        "known_class": class,
        "op": case.op,
        "args": case.args,
        "files": files,
        "response": o.response,
    })
}

/// Replays a reproduction written by [`repro`]: the files as they were before, the same call.
pub fn replay(worker: &Worker, r: &Value) -> (Value, Vec<Option<String>>) {
    let files = r["files"].as_array().cloned().unwrap_or_default();
    for f in &files {
        let p = worker.root.join(f["path"].as_str().unwrap());
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, f["before"].as_str().unwrap()).unwrap();
    }
    let args = serde_json::to_string(&r["args"])
        .unwrap()
        .replace("\"$ROOT\"", &worker.root_json);
    let out = surepatch::api::call(r["op"].as_str().unwrap(), &args);
    let after = files
        .iter()
        .map(|f| fs::read_to_string(worker.root.join(f["path"].as_str().unwrap())).ok())
        .collect();
    for f in &files {
        let _ = fs::remove_file(worker.root.join(f["path"].as_str().unwrap()));
    }
    (serde_json::from_str(&out).unwrap_or(Value::Null), after)
}
