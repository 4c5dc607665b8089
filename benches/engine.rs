//! The pure engine, without Node: `cargo bench --bench engine` (filter with `-- <name>`).
//!
//! - `apply_exact/{1KB,1MB,100MB}`: one exact edit in the middle of a text held in memory;
//! - `miss/*`: a search block that is nowhere in the file, candidates included (the 100,000-line file,
//!   a first line that occurs 20,000 times, a 1 MB single-line file);
//! - `hostile/*`: the worst shapes for the line search and the candidates (issue #16 §5): a 20 KB and a
//!   500-line block that miss on the 100,000-line file, 100,000 identical lines searched for 500 of
//!   them (ambiguous at the indentation tier, exactly, and with the last line missing), a 5,000-line
//!   needle of short lines that all occur in the file but in no order, a 1 MB line of one byte
//!   searched for 20,000 of it (every position matches), and 350,000 curly quotes searched for 10,000
//!   straight ones (the typography tier);
//! - `parse/*`: `parse_path_blocks` and `parse_patch` throughput on generated inputs;
//! - `io_floor/*`: read + write a temp file + fsync + rename of the same file (the Rust I/O floor).
use std::fs::{self, File, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use surepatch::edit::apply::apply_edits;
use surepatch::edit::formats::{parse_patch, parse_path_blocks};
use surepatch::edit::ir::Edit;
use surepatch::edit::matcher::Tolerance;

/// Code-like text of about `bytes` bytes, every line unique.
fn code(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 128);
    let mut i = 0usize;
    while s.len() < bytes {
        s.push_str(&match i % 8 {
            0 => format!("fn handler_{i}(req: &Request) -> Result<Response> {{\n"),
            1 => format!("    let value_{i} = compute({i}, \"item-{i}\")?;\n"),
            2 => format!("    if value_{} > LIMIT_{i} {{\n", i - 1),
            3 => format!(
                "        log::warn!(\"over limit at {i}: {{}}\", value_{});\n",
                i - 2
            ),
            4 => "    }\n".to_string(),
            5 => format!("    let out_{i} = render(&value_{}, {i});\n", i - 4),
            6 => format!("    Ok(Response::new(out_{}))\n", i - 1),
            _ => "}\n".to_string(),
        });
        i += 1;
    }
    s
}

/// The 3-line block starting at the first `let value_` line at or after the middle of `text`.
fn middle_block(text: &str) -> String {
    let mid = text.len() / 2;
    let at = mid + text[mid..].find("    let value_").unwrap();
    let end = (0..3).fold(at, |p, _| p + text[p..].find('\n').unwrap() + 1);
    text[at..end].to_string()
}

fn exact(c: &mut Criterion) {
    let mut g = c.benchmark_group("apply_exact");
    for (name, size, samples) in [
        ("1KB", 1usize << 10, 100),
        ("1MB", 1 << 20, 50),
        ("100MB", 100 << 20, 10),
    ] {
        let text = code(size);
        let old = middle_block(&text);
        let new = old.replace("compute(", "compute_checked(");
        let edit = [Edit::new(old, new)];
        g.sample_size(samples);
        g.throughput(Throughput::Bytes(text.len() as u64));
        if size > 1 << 20 {
            g.measurement_time(Duration::from_secs(10));
        }
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| apply_edits(black_box(&text), &edit, Tolerance::Safe).unwrap())
        });
    }
    g.finish();
}

fn miss(c: &mut Criterion) {
    let mut g = c.benchmark_group("miss");
    g.sample_size(10);
    // 100,000 lines; the needle is a 7-line block from the middle with one token changed.
    let lines: String = code(8 << 20).split_inclusive('\n').take(100_000).collect();
    let mid = lines.len() / 2;
    let at = mid + lines[mid..].find("fn handler_").unwrap();
    let block: String = lines[at..].split_inclusive('\n').take(7).collect();
    let typo = block.replace("compute(", "compte(");
    g.bench_function("100k_lines_block", |b| {
        b.iter(|| {
            apply_edits(
                black_box(&lines),
                &[Edit::new(&*typo, "x\n")],
                Tolerance::Safe,
            )
            .unwrap_err()
        })
    });
    // A short (two-line) needle switches on the trigram votes.
    let short: String = block
        .split_inclusive('\n')
        .skip(1)
        .take(2)
        .collect::<String>()
        .replace("compute(", "compte(");
    g.bench_function("100k_lines_short", |b| {
        b.iter(|| {
            apply_edits(
                black_box(&lines),
                &[Edit::new(&*short, "x\n")],
                Tolerance::Safe,
            )
            .unwrap_err()
        })
    });
    // The needle's first line occurs 20,000 times in the file.
    let mut rep = String::new();
    for i in 0..20_000 {
        rep.push_str(&format!(
            "    return None\n    x_{i} = y_{i} + 1\n    z_{i} = x_{i} * 2\n"
        ));
    }
    let rep_needle = "    return None\n    x_10000 = y_10000 + 2\n    z_10000 = x_10000 * 2\n";
    g.bench_function("first_line_x20000", |b| {
        b.iter(|| {
            apply_edits(
                black_box(&rep),
                &[Edit::new(rep_needle, "x\n")],
                Tolerance::Safe,
            )
            .unwrap_err()
        })
    });
    // A 1 MB file with no line break (minified), needle a token sequence that is not there.
    let mut one = String::with_capacity(1 << 20);
    let mut i = 0;
    while one.len() < 1 << 20 {
        one.push_str(&format!("var a{i}=f({i},\"s{i}\");"));
        i += 1;
    }
    let one_needle = "var a5000=f(5000,\"s5001\");";
    g.bench_function("1MB_single_line", |b| {
        b.iter(|| {
            apply_edits(
                black_box(&one),
                &[Edit::new(one_needle, "x")],
                Tolerance::Safe,
            )
            .unwrap_err()
        })
    });
    g.finish();
}

/// `n` SEARCH/REPLACE blocks under path lines, and an apply_patch envelope of `n` update chunks.
fn parse_inputs(n: usize) -> (String, String) {
    let mut sr = String::new();
    let mut ap = String::from("*** Begin Patch\n");
    for i in 0..n {
        let f = i / 10;
        sr.push_str(&format!(
            "src/module_{f}.rs\n```rust\n<<<<<<< SEARCH\n    let value_{i} = compute({i});\n    if value_{i} > LIMIT {{\n        return Err(Error::Over({i}));\n    }}\n=======\n    let value_{i} = compute_checked({i})?;\n    if value_{i} > LIMIT {{\n        return Err(Error::Over({i}));\n    }}\n>>>>>>> REPLACE\n```\n\n"
        ));
        if i % 10 == 0 {
            ap.push_str(&format!("*** Update File: src/module_{f}.rs\n"));
        }
        ap.push_str(&format!(
            "@@ fn handler_{i}()\n     let value_{i} = compute({i});\n-    if value_{i} > LIMIT {{\n+    if value_{i} >= LIMIT {{\n         return Err(Error::Over({i}));\n     }}\n"
        ));
    }
    ap.push_str("*** End Patch\n");
    (sr, ap)
}

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    g.sample_size(20);
    let (sr, ap) = parse_inputs(40_000);
    g.throughput(Throughput::Bytes(sr.len() as u64));
    g.bench_function("parse_path_blocks", |b| {
        b.iter(|| parse_path_blocks(black_box(&sr)).unwrap())
    });
    g.throughput(Throughput::Bytes(ap.len() as u64));
    g.bench_function("parse_patch", |b| {
        b.iter(|| parse_patch(black_box(&ap)).unwrap())
    });
    g.finish();
}

fn floor_once(path: &Path) {
    let bytes = fs::read(path).unwrap();
    let dir = path.parent().unwrap();
    let tmp = dir.join(".floor.tmp");
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .unwrap();
    f.write_all(&bytes).unwrap();
    f.sync_all().unwrap();
    drop(f);
    fs::rename(&tmp, path).unwrap();
    File::open(dir).unwrap().sync_all().unwrap();
}

fn io_floor(c: &mut Criterion) {
    let mut g = c.benchmark_group("io_floor");
    let dir = tempfile::tempdir().unwrap();
    for (name, size, samples) in [
        ("1KB", 1usize << 10, 50),
        ("1MB", 1 << 20, 20),
        ("100MB", 100 << 20, 10),
    ] {
        let path = dir.path().join(format!("floor-{name}.txt"));
        fs::write(&path, code(size)).unwrap();
        g.sample_size(samples);
        g.throughput(Throughput::Bytes(size as u64));
        if size > 1 << 20 {
            g.measurement_time(Duration::from_secs(20));
        }
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| floor_once(&path))
        });
    }
    g.finish();
}

/// The 100,000-line file and `needle_lines` lines from its middle with one token changed `at` lines in.
fn stale_block(lines: &str, needle_bytes: usize, at_from_end: usize) -> String {
    let all: Vec<&str> = lines.split_inclusive('\n').collect();
    let mut block: Vec<String> = Vec::new();
    let mut len = 0;
    for l in &all[all.len() / 2..] {
        if len >= needle_bytes {
            break;
        }
        block.push(l.to_string());
        len += l.len();
    }
    let i = block.len() - at_from_end;
    block[i] = block[i]
        .replacen("compute(", "XX", 1)
        .replacen("render(", "XX", 1)
        .replacen("value_", "XX", 1)
        .replacen('}', "XX", 1);
    block.concat()
}

fn hostile(c: &mut Criterion) {
    let mut g = c.benchmark_group("hostile");
    g.sample_size(10);
    let mut case = |name: &str, text: &str, old: &str, want: &str| {
        let edit = [Edit::new(old, "replacement\n")];
        let got = apply_edits(text, &edit, Tolerance::Safe)
            .map(|_| ())
            .unwrap_err();
        assert_eq!(got.code.as_str(), want, "{name}: {}", got.message);
        g.bench_function(name, |b| {
            b.iter(|| apply_edits(black_box(text), &edit, Tolerance::Safe).unwrap_err())
        });
    };
    let lines: String = code(8 << 20).split_inclusive('\n').take(100_000).collect();
    let miss = "SEARCH_BLOCK_NOT_FOUND";
    let ambiguous = "SEARCH_BLOCK_AMBIGUOUS";
    case(
        "block_20KB_miss",
        &lines,
        &stale_block(&lines, 20_000, 3),
        miss,
    );
    let block500: String = {
        let all: Vec<&str> = lines.split_inclusive('\n').collect();
        let mut b: Vec<String> = all[50_000..50_500].iter().map(|l| l.to_string()).collect();
        b[250] = b[250].replacen("value_", "XX", 1).replacen('}', "XX", 1);
        b.concat()
    };
    case("lines_500_miss", &lines, &block500, miss);
    let same = "    x = 1\n".repeat(100_000);
    case(
        "identical_x500_indented",
        &same,
        &"x = 1\n".repeat(500),
        ambiguous,
    );
    case(
        "identical_x500_exact",
        &same,
        &"    x = 1\n".repeat(500),
        ambiguous,
    );
    let last_missing = format!("{}x = 2\n", "x = 1\n".repeat(499));
    case("identical_x500_last_missing", &same, &last_missing, miss);
    // Short lines `t0`..`t4999` repeated; the needle is 5,000 of them in a scrambled order.
    let short: String = (0..100_000).map(|i| format!("t{}\n", i % 5000)).collect();
    let scrambled: String = (0..5000u64)
        .map(|j| format!("t{}\n", j * 7919 % 5000))
        .collect();
    case("short_lines_5000_scrambled", &short, &scrambled, miss);
    let one = "a".repeat(1 << 20);
    case("1MB_line_periodic", &one, &"a".repeat(20_000), ambiguous);
    case(
        "1MB_line_periodic_miss",
        &one,
        &format!("{}b", "a".repeat(20_000)),
        miss,
    );
    // Typography tier on one line: 350,000 curly quotes searched for 10,000 straight ones.
    let curly = "\u{201C}".repeat(350_000);
    case(
        "1MB_line_typography_periodic",
        &curly,
        &"\"".repeat(10_000),
        ambiguous,
    );
    g.finish();
}

criterion_group!(benches, exact, miss, hostile, parse, io_floor);
criterion_main!(benches);
