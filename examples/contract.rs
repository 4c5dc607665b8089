//! Writes the generated contract files into `schemas/` (run by `npm run schemas`):
//! `schemas/<op>.output.json` and `schemas/<op>.args.json` for every operation of the op table, and
//! `schemas/ops.json`.
//!
//!     cargo run --example contract            write them
//!     cargo run --example contract -- --check exit 1 if a checked-in file differs

use std::path::Path;

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    std::fs::create_dir_all(&dir).expect("create schemas/");
    let mut stale = Vec::new();
    let files = surepatch::api::contract_files();
    for (name, text) in &files {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if check {
            stale.push(name.clone());
        } else {
            std::fs::write(&path, text).expect("write a schema file");
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "out of date: {}\nRun `npm run schemas` and commit the result.",
            stale.join(", ")
        );
        std::process::exit(1);
    }
    println!(
        "{} {} contract files in schemas/",
        if check { "checked" } else { "wrote" },
        files.len()
    );
}
