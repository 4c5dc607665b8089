//! The ground-truth differential fuzzer's runner (issue #25 §4): generates `--cases` cases from
//! `--seed`, applies each through `surepatch::api::call`, prints the per-reading table as Markdown,
//! writes every wrong write as a JSON reproduction into `--out` (default `ground-truth-wrong/`; at
//! most 100 per known class), and exits non-zero when there was one.
//!
//! ```sh
//! cargo run --release --example ground_truth -- --cases 1000000 --seed 1 --threads 2
//! cargo run --release --example ground_truth -- --seed 1 --case 1234 --show   # one case, printed
//! cargo run --release --example ground_truth -- --replay ground-truth-wrong/x.json
//! ```
//!
//! Options: `--cases N` (10000), `--seed S` (1), `--threads T` (2), `--first I` (0, the first case
//! index), `--format F` (only one format: patch_file, apply_edits, apply_blocks, apply_patch,
//! apply_unified_diff, edit_lines), `--out DIR`, `--shrink K` (shrink at most K wrong cases per
//! reading and class, default 3), `--keep-known K` (write at most K reproductions per known class,
//! default 100; every wrong write in no known class is written), `--new-only` (exit 0 when every
//! wrong write is in a known class of tests/gt/known.rs; by default any wrong write exits 1),
//! `--outcomes FILE` (write each case's index and verdict, one per line: `applied`, `noop`, `wrong`,
//! `skipped` (a retry not judged) or the refusal's code, to compare two runs case by case), `--help`
//! (this text).

#[path = "../tests/gt/mod.rs"]
mod gt;

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let num = |name: &str, d: u64| {
        get(name).map_or(d, |v| {
            let v = v.replace('_', "");
            match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).expect("a number"),
                None => v.parse().expect("a number"),
            }
        })
    };
    if args.iter().any(|a| a == "--help" || a == "-h") {
        let doc: String = include_str!("ground_truth.rs")
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| format!("{}\n", l.trim_start_matches("//!").trim_start_matches(' ')))
            .collect();
        print!("{doc}");
        return;
    }
    let seed = num("--seed", 1);
    if let Some(path) = get("--replay") {
        let w = gt::run::Worker::new("replay");
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let (resp, after) = gt::run::replay(&w, &r);
        let files: Vec<serde_json::Value> = r["files"]
            .as_array()
            .unwrap()
            .iter()
            .zip(after)
            .map(|(f, a)| serde_json::json!({"path": f["path"], "after": a}))
            .collect();
        let out = serde_json::json!({"response": resp, "files": files});
        println!("{}", serde_json::to_string_pretty(&out).unwrap());
        return;
    }
    let only = get("--format").map(|f| gt::render::Format::from_name(&f).expect("a format name"));
    if args.iter().any(|a| a == "--show") {
        let i = num("--case", 0);
        let case = gt::case_at(seed, i, only);
        let w = gt::run::Worker::new("show");
        let o = w.run(&case);
        let rp = gt::run::repro(&case, &o, None);
        println!("{}", serde_json::to_string_pretty(&rp).unwrap());
        return;
    }
    let cfg = gt::Config {
        seed,
        first: num("--first", 0),
        cases: num("--cases", 10_000),
        threads: num("--threads", 2) as usize,
        only,
        shrink_per_reading: num("--shrink", 3) as usize,
        outcomes: get("--outcomes").is_some(),
    };
    let out = std::path::PathBuf::from(get("--out").unwrap_or_else(|| "ground-truth-wrong".into()));
    let new_only = args.iter().any(|a| a == "--new-only");
    let new_wrong = AtomicU64::new(0);
    let keep_known = num("--keep-known", 100);
    let per_class: std::sync::Mutex<std::collections::HashMap<&str, u64>> = Default::default();
    let written = AtomicU64::new(0);
    let started = Instant::now();
    let stats = gt::drive(&cfg, gt::known::KNOWN_CLASSES, &|w: &gt::WrongCase| {
        if w.class.is_none() {
            new_wrong.fetch_add(1, Ordering::Relaxed);
        }
        // Every wrong write in no known class; at most --keep-known (100) per known class.
        let keep = match w.class {
            None => true,
            Some(c) => {
                let mut m = per_class.lock().unwrap();
                let n = m.entry(c).or_insert(0u64);
                *n += 1;
                *n <= keep_known
            }
        };
        if keep && written.fetch_add(1, Ordering::Relaxed) < 20_000 {
            let _ = std::fs::create_dir_all(&out);
            let name = format!(
                "{}-{}-{}-{:08}.json",
                w.case.reading().replace(' ', "-"),
                w.repro["shape"].as_str().unwrap_or(""),
                w.class.map_or("NEW".to_string(), |c| c
                    .split(' ')
                    .next()
                    .unwrap_or("")
                    .to_string()),
                w.index
            );
            let _ = std::fs::write(
                out.join(name),
                serde_json::to_string_pretty(&w.repro).unwrap(),
            );
        }
        if w.class.is_none() {
            eprintln!(
                "NEW wrong write: seed {seed} case {} ({}): {}",
                w.index,
                w.case.reading(),
                w.repro["verdict"]
            );
        }
    });
    let secs = started.elapsed().as_secs_f64();
    let mut so = std::io::stdout().lock();
    let _ = writeln!(
        so,
        "## Ground-truth run: seed {seed}, cases {}..{}, {} threads, {:.1} s ({:.0} cases/s)\n",
        cfg.first,
        cfg.first + cfg.cases,
        cfg.threads,
        secs,
        cfg.cases as f64 / secs
    );
    let _ = writeln!(so, "{}", stats.markdown());
    if let Some(path) = get("--outcomes") {
        let mut rows = stats.outcomes.clone();
        rows.sort();
        let text: String = rows.iter().map(|(i, v)| format!("{i}\t{v}\n")).collect();
        std::fs::write(&path, text).expect("write --outcomes");
    }
    let bad = if new_only {
        new_wrong.load(Ordering::Relaxed)
    } else {
        stats.total.wrong
    };
    if bad > 0 {
        eprintln!(
            "{} wrong writes ({} in no known class); reproductions in {}",
            stats.total.wrong,
            new_wrong.load(Ordering::Relaxed),
            out.display()
        );
        std::process::exit(1);
    }
}
