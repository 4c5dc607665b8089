//! Every cargo-fuzz target (`fuzz/fuzz_targets/*.rs`) run over its committed corpus
//! (`fuzz/corpus/<target>/`) on the stable toolchain, so `cargo test` checks each target's invariants
//! on every seed and keeps the targets compiling against the library.
//!
//! The target files are compiled here unchanged, as modules: this crate names itself
//! `libfuzzer_sys`, so a target's `use libfuzzer_sys::fuzz_target;` finds the [`fuzz_target!`] below,
//! which turns the target's closure into a function `run(data)` instead of registering it with
//! libFuzzer. A target's `#![no_main]` is then an attribute without effect (allowed).
//!
//! A failing seed panics with the target's own message; the test names the seed file. Each target's
//! corpus runs in one test, its seeds in name order, so a failure replays with
//! `cargo +nightly fuzz run <target> fuzz/corpus/<target>/<seed>`.
#![cfg(unix)]
// The parser targets each include fuzz_targets/common.rs as their own `mod common`, as in the fuzz build.
#![allow(clippy::duplicate_mod)]

extern crate self as libfuzzer_sys;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

// api_call's workspace (tmpfs, modes, symlinks leading outside) has only ever run on Linux, where
// cargo-fuzz runs it; elsewhere its seeds are not replayed.
#[cfg(target_os = "linux")]
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/api_call.rs"]
mod api_call;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/apply_patch.rs"]
mod apply_patch;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/ground_truth.rs"]
mod ground_truth;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/matcher.rs"]
mod matcher;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/search_replace.rs"]
mod search_replace;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/unified_diff.rs"]
mod unified_diff;

/// Whole-corpus time limit per target (the slowest, `api_call`, takes a few seconds in a debug build).
const LIMIT: Duration = Duration::from_secs(300);

/// The seed files of `fuzz/corpus/<target>`, in name order.
fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `run` on every seed of `target`'s corpus; returns how many ran.
fn each_seed(target: &str, run: fn(&[u8])) -> usize {
    let files = seeds(target);
    assert!(!files.is_empty(), "fuzz/corpus/{target} holds no seed");
    let t0 = Instant::now();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let r = std::panic::catch_unwind(|| run(&data));
        assert!(
            r.is_ok(),
            "fuzz target {target} failed on {} (replay: cargo +nightly fuzz run {target} {})",
            f.display(),
            f.strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap()
                .strip_prefix("fuzz")
                .unwrap()
                .display()
        );
        assert!(
            t0.elapsed() < LIMIT,
            "fuzz target {target}: the corpus took over {LIMIT:?}"
        );
    }
    files.len()
}

#[test]
fn search_replace_corpus() {
    each_seed("search_replace", search_replace::run);
}

#[test]
fn apply_patch_corpus() {
    each_seed("apply_patch", apply_patch::run);
}

#[test]
fn unified_diff_corpus() {
    each_seed("unified_diff", unified_diff::run);
}

#[test]
fn matcher_corpus() {
    each_seed("matcher", matcher::run);
}

#[test]
fn ground_truth_corpus() {
    each_seed("ground_truth", ground_truth::run);
}

#[cfg(target_os = "linux")]
#[test]
fn api_call_corpus() {
    each_seed("api_call", api_call::run);
    // The target's workspace (it never removes it: libFuzzer exits without running destructors).
    for tmp in [PathBuf::from("/dev/shm"), std::env::temp_dir()] {
        let _ = std::fs::remove_dir_all(tmp.join(format!("surepatch-fuzz-{}", std::process::id())));
    }
}

/// A seed that breaks a target's invariant fails the test, naming the seed: the harness does not
/// swallow a target's panic.
#[test]
#[should_panic(expected = "fuzz target search_replace failed on")]
fn a_failing_seed_fails_the_test() {
    each_seed("search_replace", |_| panic!("invariant broken"));
}

/// What `libfuzzer_sys::fuzz_target!` is for the fuzz build: here, the target's body as `run`.
/// Defined last, so the targets reach it through their `use` (by path), not by textual scope.
#[macro_export]
macro_rules! fuzz_target {
    (|$data:ident: &[u8]| $body:block) => {
        pub fn run($data: &[u8]) $body
    };
}
