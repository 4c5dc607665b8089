//! The ground-truth generator (tests/gt) driven by the fuzz input: every choice (file, edit,
//! format, dialect, noise, adversarial kind) is read from the input's bytes, then from a SplitMix64
//! seeded by them. The case is applied through `surepatch::api::call` on a temp workspace and
//! judged as in `tests/ground_truth.rs`: the intended file byte for byte, or a refusal with nothing
//! written. A wrong write in no known class (tests/gt/known.rs) panics with its reproduction.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/gt/mod.rs"]
mod gt;

static WORKER: OnceLock<gt::run::Worker> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let w = WORKER.get_or_init(|| gt::run::Worker::new("fuzz"));
    let mut r = gt::rng::Rng::from_bytes(data);
    let case = gt::render::gen_case_with(&mut r, 0, None);
    let o = w.run(&case);
    if let gt::run::Verdict::Wrong(why) = &o.verdict {
        if gt::run::known_class(gt::known::KNOWN_CLASSES, &case, &o).is_none() {
            let repro = gt::run::repro(&case, &o, None);
            panic!(
                "wrong write in no known class: {why}\n{}",
                serde_json::to_string_pretty(&repro).unwrap()
            );
        }
    }
});
