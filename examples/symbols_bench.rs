//! The symbol ops in Rust, without Node (issue #29): CPU time of the calling thread per call
//! (`api::call` runs on it), medians. Not part of the library.
//!
//! ```text
//! cargo run --release --example symbols_bench [runs]
//! ```
//!
//! On the 5,000-line TypeScript and Python files of `bench/symbols.mjs`: the outline walk of a cached
//! tree, the name-path resolution editSymbol does (`syntax::symbols::outline_named`, from the text)
//! against the walk it replaced (`outline_for`), `listSymbols` and `editSymbol` through `api::call`,
//! and `patchFile` of the same region (validate "report" and "off"), writing and as dry runs.
//! `SYMBOLS_BENCH_PROFILE=resolve|outline|edit|patch` loops one step instead (for `perf record`).
use std::time::Instant;

use serde_json::json;
use surepatch::syntax::symbols;

fn cpu_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// (CPU ms, wall ms) medians of `runs` calls of `f`.
fn time(runs: usize, mut f: impl FnMut(usize)) -> (f64, f64) {
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let (c, w) = (cpu_ms(), Instant::now());
        f(i);
        cpu.push(cpu_ms() - c);
        wall.push(w.elapsed().as_secs_f64() * 1e3);
    }
    (median(cpu), median(wall))
}

fn ts_file() -> String {
    let mut out = vec!["// bench".to_string()];
    let mut c = 0;
    while out.len() < 5000 {
        out.push(format!("export class Service{c} {{"));
        for m in 0..4 {
            out.push(format!("  /** Method {m}. */"));
            out.push(format!("  method{m}(x: number): number {{"));
            out.push(format!("    const y = x * {};", m + 1));
            out.push(format!("    return y + {c};"));
            out.push("  }".into());
        }
        out.push("}".into());
        out.push(String::new());
        c += 1;
    }
    out.truncate(5000);
    out.join("\n") + "\n"
}

fn py_file() -> String {
    let mut out = vec!["# bench".to_string()];
    let mut c = 0;
    while out.len() < 5000 {
        out.push(String::new());
        out.push(String::new());
        out.push(format!("class Service{c}:"));
        for m in 0..4 {
            out.push(format!("    def method{m}(self, x):"));
            out.push(format!("        y = x * {}", m + 1));
            out.push(format!("        return y + {c}"));
            out.push(String::new());
        }
        c += 1;
    }
    out.truncate(5000);
    out.join("\n") + "\n"
}

fn row(what: &str, (cpu, wall): (f64, f64)) {
    println!("| {what} | {cpu:.3} ms | {wall:.3} ms |");
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(101, |r| r.parse().expect("runs"));
    if let Ok(what) = std::env::var("SYMBOLS_BENCH_PROFILE") {
        // A loop of one step for `perf record`: `resolve` (outline_named + resolve) or `outline`.
        let text = ts_file();
        symbols::outline("s.ts", &text).unwrap();
        for _ in 0..runs {
            match what.as_str() {
                "resolve" => {
                    let o = symbols::outline_named("s.ts", &text, "Service125/method2").unwrap();
                    std::hint::black_box(
                        symbols::resolve(&o.symbols, "Service125/method2").unwrap(),
                    );
                }
                "list" => {
                    let dir =
                        std::env::temp_dir().join(format!("symbols-bench-{}", std::process::id()));
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(dir.join("s.ts"), &text).unwrap();
                    let p = json!(["s.ts", {"workspace_root": dir.to_str().unwrap()}]).to_string();
                    for _ in 0..runs {
                        let out = surepatch::api::call("list_symbols", &p);
                        assert!(out.starts_with("{\"ok\":true"), "{out}");
                    }
                    std::fs::remove_dir_all(&dir).unwrap();
                    return;
                }
                "edit" | "patch" => {
                    let dir =
                        std::env::temp_dir().join(format!("symbols-bench-{}", std::process::id()));
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(dir.join("s.ts"), &text).unwrap();
                    let root = dir.to_str().unwrap();
                    let to = "  /** Method 2. */\n  method2(x: number): number {\n    const y = x * 3;\n    return y - 125;\n  }";
                    let from = to.replace("y - 125", "y + 125");
                    let p = match what.as_str() {
                        "edit" => {
                            json!([{"file_path": "s.ts", "name_path": "Service125/method2", "action": "replace", "text": to}, {"workspace_root": root, "dry_run": true}])
                        }
                        _ => {
                            json!([{"file_path": "s.ts", "search_block": from, "replace_block": to}, {"workspace_root": root, "dry_run": true, "validate": "report"}])
                        }
                    };
                    let p = p.to_string();
                    for _ in 0..runs {
                        let out = surepatch::api::call(
                            if what == "edit" {
                                "edit_symbol"
                            } else {
                                "patch_file"
                            },
                            &p,
                        );
                        assert!(out.starts_with("{\"ok\":true"), "{out}");
                    }
                    std::fs::remove_dir_all(&dir).unwrap();
                    return;
                }
                _ => {
                    std::hint::black_box(symbols::outline("s.ts", &text).unwrap());
                }
            }
        }
        return;
    }
    let root = tempfile::tempdir().expect("temp dir");
    let root_s = root.path().to_str().unwrap().to_string();
    println!("| measure (median of {runs}) | CPU | wall |\n|---|---|---|");
    for (name, text, query) in [
        ("s.ts", ts_file(), "Service125/method2"),
        ("s.py", py_file(), "Service125/method2"),
    ] {
        std::fs::write(root.path().join(name), &text).unwrap();
        symbols::outline(name, &text).unwrap();
        row(
            &format!("{name}: outline walk, cached tree"),
            time(runs, |_| {
                std::hint::black_box(symbols::outline(name, &text).unwrap());
            }),
        );
        row(
            &format!("{name}: resolve {query} by the outline walk"),
            time(runs, |_| {
                let o = symbols::outline_for(name, &text, query).unwrap();
                std::hint::black_box(symbols::resolve(&o.symbols, query).unwrap());
            }),
        );
        row(
            &format!("{name}: resolve {query} from the text (outline_named)"),
            time(runs, |_| {
                std::hint::black_box({
                    let o = symbols::outline_named(name, &text, query).unwrap();
                    symbols::resolve(&o.symbols, query).unwrap()
                });
            }),
        );
        let args = json!([name, {"workspace_root": root_s}]).to_string();
        row(
            &format!("{name}: listSymbols (api::call, warm)"),
            time(runs, |_| {
                let out = surepatch::api::call("list_symbols", &args);
                assert!(out.starts_with("{\"ok\":true"), "{out}");
            }),
        );
    }

    // editSymbol against patchFile of the same region, interleaved, each call toggling the method.
    let method = |b: &str| {
        format!(
            "  /** Method 2. */\n  method2(x: number): number {{\n    const y = x * 3;\n{b}\n  }}"
        )
    };
    let bodies = ["    return y + 125;", "    return y - 125;"];
    let mut state = 0;
    for dry_run in [false, true] {
        let mut cpu: [Vec<f64>; 3] = Default::default();
        let mut wall: [Vec<f64>; 3] = Default::default();
        for _ in 0..runs {
            for (k, (c, w)) in cpu.iter_mut().zip(wall.iter_mut()).enumerate() {
                let (from, to) = (method(bodies[state]), method(bodies[1 - state]));
                let opts = |validate: &str| json!({"workspace_root": root_s, "validate": validate, "dry_run": dry_run});
                let (op, p) = match k {
                    0 => (
                        "edit_symbol",
                        json!([{"file_path": "s.ts", "name_path": "Service125/method2", "action": "replace", "text": to}, opts("report")]),
                    ),
                    _ => (
                        "patch_file",
                        json!([{"file_path": "s.ts", "search_block": from, "replace_block": to}, opts(if k == 1 { "report" } else { "off" })]),
                    ),
                };
                let p = p.to_string();
                let (c0, w0) = (cpu_ms(), Instant::now());
                let out = surepatch::api::call(op, &p);
                c.push(cpu_ms() - c0);
                w.push(w0.elapsed().as_secs_f64() * 1e3);
                assert!(out.starts_with("{\"ok\":true"), "{op}: {out}");
                if !dry_run {
                    state = 1 - state;
                }
            }
        }
        let m = |v: &[Vec<f64>; 3]| v.clone().map(median);
        let (c, w) = (m(&cpu), m(&wall));
        let d = if dry_run { ", dry run" } else { "" };
        row(&format!("s.ts: editSymbol replace{d}"), (c[0], w[0]));
        row(&format!("s.ts: patchFile report{d}"), (c[1], w[1]));
        row(&format!("s.ts: patchFile off{d}"), (c[2], w[2]));
        println!(
            "| ratio editSymbol / patchFile report{d} | {:.2}x | {:.2}x |",
            c[0] / c[1],
            w[0] / w[1]
        );
        println!(
            "| ratio editSymbol / patchFile off{d} | {:.2}x | {:.2}x |",
            c[0] / c[2],
            w[0] / w[2]
        );
    }
}
