//! Locating runs of a snippet's lines in the file, with the matcher's tolerance tiers.
//!
//! A run is a sequence of consecutive snippet lines equal to consecutive file lines. Lines are
//! compared after [`crate::edit::matcher::normalize::norm`] at a tier; a run's places are counted at the
//! first tier of the ladder that finds it anywhere (`exact`, then `trailing_whitespace`, `typography`,
//! `indentation`, `inline_whitespace`), so a looser tier never escapes an ambiguity, as in
//! [`crate::edit::matcher`].

use std::cell::RefCell;

use rustc_hash::FxHashMap as HashMap;

use crate::edit::matcher::normalize::norm;
use crate::edit::matcher::{Tier, Tolerance};
use crate::edit::text::LineTable;

/// The tiers a line comparison may use, strictest first.
pub fn ladder(tol: Tolerance) -> &'static [Tier] {
    const SAFE: [Tier; 5] = [
        Tier::Exact,
        Tier::TrailingWhitespace,
        Tier::Typography,
        Tier::Indentation,
        Tier::InlineWhitespace,
    ];
    match tol {
        Tolerance::Exact => &SAFE[..1],
        Tolerance::Safe => &SAFE,
    }
}

/// One tier's view of the file: every line normalized, and where each normalized line occurs.
struct TierIndex {
    at: HashMap<String, Vec<usize>>,
}

/// The file's lines, indexed per tier on first use.
pub struct FileLines<'a> {
    pub text: &'a str,
    pub table: LineTable,
    tiers: RefCell<Vec<(Tier, std::rc::Rc<TierIndex>)>>,
}

fn key(line: &str, tier: Tier) -> std::borrow::Cow<'_, str> {
    match tier {
        Tier::Exact => std::borrow::Cow::Borrowed(line),
        t => norm(line, t).text,
    }
}

impl<'a> FileLines<'a> {
    pub fn new(text: &'a str) -> Self {
        FileLines {
            text,
            table: LineTable::new(text),
            tiers: RefCell::new(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Line `i` without its terminator.
    pub fn line(&self, i: usize) -> &'a str {
        self.table.content(i, self.text)
    }

    fn index(&self, tier: Tier) -> std::rc::Rc<TierIndex> {
        if let Some((_, ix)) = self.tiers.borrow().iter().find(|(t, _)| *t == tier) {
            return ix.clone();
        }
        let mut at: HashMap<String, Vec<usize>> = HashMap::default();
        for i in 0..self.len() {
            at.entry(key(self.line(i), tier).into_owned())
                .or_default()
                .push(i);
        }
        let ix = std::rc::Rc::new(TierIndex { at });
        self.tiers.borrow_mut().push((tier, ix.clone()));
        ix
    }

    /// Whether snippet line `s` equals file line `f` at `tier`.
    pub fn eq(&self, s: &str, f: usize, tier: Tier) -> bool {
        f < self.len() && key(self.line(f), tier) == key(s, tier)
    }

    /// The file lines equal to `s` at `tier`, in order.
    pub fn places_of(&self, s: &str, tier: Tier) -> Vec<usize> {
        self.index(tier)
            .at
            .get(key(s, tier).as_ref())
            .cloned()
            .unwrap_or_default()
    }

    /// Whether `s` equals some file line at some tier of `tiers` (each tier folds what the ones
    /// before it fold, so the loosest decides).
    pub fn occurs(&self, s: &str, tiers: &[Tier]) -> bool {
        tiers
            .last()
            .is_some_and(|&t| self.index(t).at.contains_key(key(s, t).as_ref()))
    }

    /// Where `run` (snippet lines) matches file lines as a whole at `tier`, starting in `within`.
    pub fn run_places(
        &self,
        run: &[&str],
        tier: Tier,
        within: std::ops::Range<usize>,
    ) -> Vec<usize> {
        let Some(first) = run.first() else {
            return Vec::new();
        };
        self.places_of(first, tier)
            .into_iter()
            .filter(|&p| p >= within.start && p + run.len() <= within.end.min(self.len()))
            .filter(|&p| run.iter().enumerate().all(|(k, l)| self.eq(l, p + k, tier)))
            .collect()
    }

    /// The places of `run` at the first tier of `tiers` that finds it in `within`, with that tier.
    pub fn ladder_places(
        &self,
        run: &[&str],
        tiers: &[Tier],
        within: std::ops::Range<usize>,
    ) -> Option<(Tier, Vec<usize>)> {
        tiers.iter().find_map(|&t| {
            let p = self.run_places(run, t, within.clone());
            (!p.is_empty()).then_some((t, p))
        })
    }

    /// How many lines of `snip` from `i` match the file from line `f` onward at `tier`.
    pub fn match_len(&self, snip: &[&str], i: usize, f: usize, tier: Tier) -> usize {
        let mut k = 0;
        while i + k < snip.len() && f + k < self.len() && self.eq(snip[i + k], f + k, tier) {
            k += 1;
        }
        k
    }
}

/// Whether a line says too little to place anything by itself: blank, only brackets and
/// punctuation (`}`, `});`, `"""`, `*/`), or a block keyword (`end`, `else:`, `fi`, `pass`).
pub fn is_weak(line: &str) -> bool {
    const WORDS: &[&str] = &[
        "end", "fi", "done", "esac", "else", "endif", "pass", "return", "break", "continue", "try",
        "finally", "begin", "do", "then", "default",
    ];
    let t = line.trim();
    if !t.chars().any(char::is_alphanumeric) {
        return true;
    }
    let w = t
        .trim_end_matches([':', ';', '{', ' '])
        .trim_start_matches(['}', ' ']);
    WORDS.contains(&w)
}
