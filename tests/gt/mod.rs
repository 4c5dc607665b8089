//! A ground-truth differential generator for every liberal reading of surepatch (issue #25 §4).
//!
//! Deterministic from a `u64` seed: [`render::gen_case`] builds files made to be hard
//! ([`files`]), picks an intended edit and computes the intended file ([`edit`]), renders the edit
//! the way models write it — in every format and dialect, with transcription noise and adversarial
//! variants — and says what the right outcome is ([`render`], whose module documentation is the
//! oracle); [`run`] applies it through `surepatch::api::call` on a temp workspace and judges the
//! outcome: exactly an intended file (byte for byte) or a refusal with every file unchanged.
//!
//! Shared by `tests/ground_truth.rs` (CI), `examples/ground_truth.rs` (long runs) and
//! `fuzz/fuzz_targets/ground_truth.rs` (choices from the fuzz input), each including this directory
//! with `#[path]`.
#![allow(dead_code)]

pub mod doc;
pub mod edit;
pub mod files;
pub mod known;
pub mod render;
pub mod rng;
pub mod run;

use std::sync::Mutex;

use render::{Case, Format};
use rng::case_seed;
use run::{known_class, Known, Outcome, Stats, Verdict, Worker};

pub struct Config {
    pub seed: u64,
    /// Case indices `first..first + cases`.
    pub first: u64,
    pub cases: u64,
    pub threads: usize,
    pub only: Option<Format>,
    /// Shrink at most this many wrong cases per reading and class (0: none).
    pub shrink_per_reading: usize,
    /// Keep every case's verdict in `Stats::outcomes` (to compare two runs case by case).
    pub outcomes: bool,
}

/// A wrong write: the case, its shrunk form, and the reproduction JSON of the shrunk form.
pub struct WrongCase {
    pub index: u64,
    pub case: Case,
    pub shrunk: Option<Case>,
    pub repro: serde_json::Value,
    pub class: Option<&'static str>,
}

/// The case with index `i` of a run seeded `seed`.
pub fn case_at(seed: u64, i: u64, only: Option<Format>) -> Case {
    let s = case_seed(seed, i);
    render::gen_case_with(&mut rng::Rng::new(s), s, only)
}

/// Runs `cfg.cases` cases on `cfg.threads` threads; calls `on_wrong` for every wrong write (from
/// the worker thread that found it).
pub fn drive(cfg: &Config, known: &[Known], on_wrong: &(dyn Fn(&WrongCase) + Sync)) -> Stats {
    let total = Mutex::new(Stats::default());
    let shrunk_per: Mutex<std::collections::HashMap<String, usize>> =
        Mutex::new(Default::default());
    std::thread::scope(|s| {
        for t in 0..cfg.threads.max(1) {
            let total = &total;
            let shrunk_per = &shrunk_per;
            s.spawn(move || {
                let worker = Worker::new(&format!("t{t}"));
                let mut stats = Stats::default();
                let mut i = cfg.first + t as u64;
                while i < cfg.first + cfg.cases {
                    let case = case_at(cfg.seed, i, cfg.only);
                    let o: Outcome = worker.run(&case);
                    let class = match o.verdict {
                        Verdict::Wrong(_) => known_class(known, &case, &o).map(|k| k.class),
                        _ => None,
                    };
                    if let Verdict::Wrong(_) = &o.verdict {
                        let key =
                            format!("{} {} {}", case.reading(), o.shape, class.unwrap_or("NEW"));
                        let do_shrink = {
                            let mut m = shrunk_per.lock().unwrap();
                            let n = m.entry(key).or_default();
                            *n += 1;
                            *n <= cfg.shrink_per_reading
                        };
                        let (shrunk, repro) = if do_shrink {
                            let sh = run::shrink(&worker, &case);
                            let so = worker.run(&sh);
                            let rp = run::repro(&sh, &so, class);
                            (Some(sh), rp)
                        } else {
                            (None, run::repro(&case, &o, class))
                        };
                        on_wrong(&WrongCase {
                            index: i,
                            case: case.clone(),
                            shrunk,
                            repro,
                            class,
                        });
                    }
                    stats.record(&case, &o, class);
                    if cfg.outcomes {
                        stats.outcomes.push((i, o.verdict.short()));
                    }
                    i += cfg.threads.max(1) as u64;
                }
                total.lock().unwrap().merge(&stats);
            });
        }
    });
    total.into_inner().unwrap()
}
