//! A small driver for `npm run bench` and for profiling (perf, callgrind). Prints one JSON object with
//! the wall time of each run in milliseconds. Not part of the library.
//!
//! ```text
//! bench_driver floor <file> <runs>
//!     the Rust I/O floor: read the file, write its bytes to a temp file in the same directory, fsync,
//!     rename over the file, fsync the directory.
//! bench_driver edit <root> <file> <search_file> <replace_file> <runs>
//!     `patch_file` through `surepatch::api::call` (the Node binding minus napi); odd runs swap search
//!     and replace, so the file returns to its first state after an even number of runs.
//! bench_driver miss <root> <file> <needle_file> <runs> [code]
//!     `patch_file` with a search block that is not in the file (SEARCH_BLOCK_NOT_FOUND + candidates),
//!     or that fails with `code` (SEARCH_BLOCK_AMBIGUOUS for the hostile shapes that match everywhere).
//! bench_driver apply <text_file> <old_file> <new_file> <runs>
//!     the pure engine: `apply::apply_edits` on the text in memory (no I/O, no JSON), safe tolerance.
//! ```
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde_json::json;
use surepatch::edit::{apply::apply_edits, ir::Edit, matcher::Tolerance};

fn floor(path: &Path) {
    let bytes = fs::read(path).expect("read");
    let dir = path.parent().expect("parent");
    let tmp = dir.join(format!(
        ".{}.floor-{}.tmp",
        path.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .expect("create temp");
    f.write_all(&bytes).expect("write");
    f.sync_all().expect("fsync");
    drop(f);
    fs::rename(&tmp, path).expect("rename");
    File::open(dir)
        .and_then(|d| d.sync_all())
        .expect("dir fsync");
}

fn payload(file: &str, search: &str, replace: &str, root: &str) -> String {
    json!([
        {"file_path": file, "search_block": search, "replace_block": replace},
        {"workspace_root": root}
    ])
    .to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let read = |p: &str| fs::read_to_string(p).expect("read input");
    let runs = |s: &str| s.parse::<usize>().expect("runs");
    let mut times = Vec::new();
    let mut last = String::new();
    match args.first().map(String::as_str) {
        Some("floor") => {
            for _ in 0..runs(&args[2]) {
                let t = Instant::now();
                floor(Path::new(&args[1]));
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        Some("edit") => {
            let (root, file) = (&args[1], &args[2]);
            let (a, b) = (read(&args[3]), read(&args[4]));
            for i in 0..runs(&args[5]) {
                let (s, r) = if i % 2 == 0 { (&a, &b) } else { (&b, &a) };
                let p = payload(file, s, r, root);
                let t = Instant::now();
                last = surepatch::api::call("patch_file", &p);
                times.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(last.starts_with("{\"ok\":true"), "edit failed: {last}");
            }
        }
        Some("miss") => {
            let (root, file) = (&args[1], &args[2]);
            let needle = read(&args[3]);
            let p = payload(file, &needle, "replacement\n", root);
            let code = args.get(5).map_or("SEARCH_BLOCK_NOT_FOUND", String::as_str);
            for _ in 0..runs(&args[4]) {
                let t = Instant::now();
                last = surepatch::api::call("patch_file", &p);
                times.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(last.contains(code), "expected {code}: {last}");
            }
        }
        Some("apply") => {
            let text = read(&args[1]);
            let edit = Edit::new(read(&args[2]), read(&args[3]));
            for _ in 0..runs(&args[4]) {
                let t = Instant::now();
                let r = apply_edits(&text, std::slice::from_ref(&edit), Tolerance::Safe);
                times.push(t.elapsed().as_secs_f64() * 1e3);
                last = match r {
                    Ok(a) => format!("ok {} bytes", a.text.len()),
                    Err(f) => format!("{} {}", f.code.as_str(), f.message),
                };
            }
        }
        _ => {
            eprintln!("usage: bench_driver floor|edit|miss|apply ... (see the file's header)");
            std::process::exit(2);
        }
    }
    let head: String = last.chars().take(300).collect();
    println!("{}", json!({"times_ms": times, "last": head}));
}
