//! The syntax gate on a 10,000-line file with a one-line edit: what validation adds to an edit.
//!
//! - `warm`: `check` with the original's tree in the cache (the second and later edits of a file, or
//!   the first after `warm`): one incremental re-parse.
//! - `cold`: `check` with an empty cache: one full parse of the result (plus an incremental re-parse of
//!   the original when the result has errors).
//! - `before_first`: full parse of the original, incremental re-parse of the result (no cache).
//! - `full`: both texts parsed from scratch.
//!
//! Each runs on a clean edit, a breaking edit, and a clean edit in a file that already has an error
//! elsewhere. Two groups: wall time (`syntax_10k_lines`) and, on Unix, the thread's CPU time
//! (`syntax_10k_lines_cpu`), which stays meaningful on a loaded shared machine.
//!
//! `cargo bench --bench syntax`; medians are in target/criterion/*/*/*/new/estimates.json.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;
use surepatch::syntax::{check_with, clear_cache, warm, Strategy};

/// A 10,000-line JavaScript file of small functions.
fn javascript() -> String {
    let mut s = String::from("'use strict'\n\nconst fs = require('fs')\n\n");
    let mut i = 0;
    while s.lines().count() < 10_000 - 8 {
        s.push_str(&format!(
            "function step{i}(input, options) {{\n  const value = input.items[{i}] ?? options.fallback\n  if (value > {i}) {{\n    return {{ id: {i}, label: `item-${{value}}`, ok: true }}\n  }}\n  return compute(value, [1, 2, 3].map((x) => x * {i}))\n}}\n\n"
        ));
        i += 1;
    }
    s.push_str("module.exports = { step0 }\n");
    s
}

/// A 10,000-line Python file of small functions.
fn python() -> String {
    let mut s = String::from("import os\nimport sys\n\n\n");
    let mut i = 0;
    while s.lines().count() < 10_000 - 8 {
        s.push_str(&format!(
            "def step{i}(data, options=None):\n    value = data.get('k{i}', {i})\n    if value > {i}:\n        return {{'id': {i}, 'label': f'item-{{value}}', 'ok': True}}\n    return [x * {i} for x in range(value)]\n\n\n"
        ));
        i += 1;
    }
    s
}

/// Replaces the single occurrence of `from` by `to`, with its change span.
fn edit(text: &str, from: &str, to: &str) -> (String, Vec<(usize, usize, usize, usize)>) {
    let at = text.find(from).expect("present");
    assert_eq!(text.matches(from).count(), 1);
    let after = format!("{}{}{}", &text[..at], to, &text[at + from.len()..]);
    (after, vec![(at, at + from.len(), at, at + to.len())])
}

type Case = (
    &'static str,
    &'static str,
    String,
    (String, Vec<(usize, usize, usize, usize)>),
);

fn cases() -> Vec<Case> {
    let js = javascript();
    let py = python();
    assert!(js.lines().count() >= 9_990 && py.lines().count() >= 9_990);
    let js_broken = js.replacen("const fs = require('fs')", "const fs = require('fs'", 1);
    let py_broken = py.replacen("import sys", "import sys,", 1);
    vec![
        (
            "js_clean",
            "a.js",
            js.clone(),
            edit(&js, "input.items[1000]", "input.items[1001]"),
        ),
        (
            "js_breaking",
            "a.js",
            js.clone(),
            edit(
                &js,
                "items[1000] ?? options.fallback",
                "items[1000] ?? (options.fallback",
            ),
        ),
        (
            "js_preexisting",
            "a.js",
            js_broken.clone(),
            edit(&js_broken, "input.items[1000]", "input.items[1001]"),
        ),
        (
            "py_clean",
            "a.py",
            py.clone(),
            edit(&py, "data.get('k700', 700)", "data.get('k700', 701)"),
        ),
        (
            "py_breaking",
            "a.py",
            py.clone(),
            edit(&py, "data.get('k700', 700)", "data.get('k700', 700"),
        ),
        (
            "py_preexisting",
            "a.py",
            py_broken.clone(),
            edit(&py_broken, "data.get('k700', 700)", "data.get('k700', 701)"),
        ),
    ]
}

fn run<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let mut group = c.benchmark_group(group);
    for (name, path, before, (after, changes)) in &cases() {
        // Every strategy must agree, and the edit must be judged as its name says.
        let report = check_with(path, before, after, changes, Strategy::Full);
        assert_eq!(report.ok, !name.ends_with("breaking"), "{name}: {report:?}");
        for s in [
            Strategy::AfterFirst,
            Strategy::BeforeFirst,
            Strategy::Cached,
        ] {
            assert_eq!(
                check_with(path, before, after, changes, s),
                report,
                "{name} {s:?}"
            );
        }
        assert!(warm(path, before));
        group.bench_function(BenchmarkId::new("warm", name), |b| {
            b.iter(|| {
                check_with(
                    path,
                    black_box(before),
                    black_box(after),
                    changes,
                    Strategy::Cached,
                )
            })
        });
        clear_cache();
        for (label, strategy) in [
            ("cold", Strategy::AfterFirst),
            ("before_first", Strategy::BeforeFirst),
            ("full", Strategy::Full),
        ] {
            group.bench_with_input(BenchmarkId::new(label, name), &strategy, |b, &s| {
                b.iter(|| check_with(path, black_box(before), black_box(after), changes, s))
            });
        }
    }
    group.finish();
}

fn wall(c: &mut Criterion) {
    run(c, "syntax_10k_lines");
}

/// CPU time of the benchmarking thread (all parsing happens on it).
#[cfg(unix)]
struct ThreadCpu;

#[cfg(unix)]
static WALL: WallTime = WallTime;

#[cfg(unix)]
impl Measurement for ThreadCpu {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(unix)]
fn cpu(c: &mut Criterion<ThreadCpu>) {
    run(c, "syntax_10k_lines_cpu");
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = wall_time;
    config = config();
    targets = wall
}

#[cfg(unix)]
criterion_group! {
    name = cpu_time;
    config = config().with_measurement(ThreadCpu);
    targets = cpu
}

#[cfg(unix)]
criterion_main!(wall_time, cpu_time);
#[cfg(not(unix))]
criterion_main!(wall_time);
