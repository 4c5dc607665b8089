//! What a `SNIPPET_AMBIGUOUS` refusal says to add: for each candidate region, the nearest file line
//! next to the chunk that places it there, found by trial merges under the same rules (nothing is
//! relaxed; a line is named only when the chunk then lands on that candidate). The rules are in
//! `docs/formats.md` ("Refusals that say what to add").

use serde::Serialize;

use super::anchor::{ladder, FileLines};
use super::merge::{is_blank, merge_lines, parse, strong_runs, Chunk, Plan};
use crate::edit::matcher::{Tier, Tolerance};
use crate::error::Failure;

/// How many non-blank file lines beside a chunk a hint may ask for before it gives up.
const HINT_REACH: usize = 3;

/// For one candidate region of a `SNIPPET_AMBIGUOUS` refusal: the file lines to copy next to the
/// chunk so that it lands there (checked by merging with them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Distinguishing {
    /// The candidate region's first line (as in `candidates`).
    pub candidate_start_line: usize,
    /// The file line that tells the candidate apart (1-based), and its text.
    pub line: usize,
    pub text: String,
    /// `"above"` the chunk's first line or `"below"` its last.
    pub side: &'static str,
    /// The file lines to copy, `line` and any lines between it and the chunk (1-based, inclusive).
    pub copy_lines: CopyLines,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyLines {
    pub start_line: usize,
    pub end_line: usize,
}

/// The first `max` characters of a trimmed line, for a message.
fn clip(line: &str, max: usize) -> String {
    let t = line.trim();
    match t.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

/// Copies file lines outward from `edge` (the chunk's top or bottom file line at a candidate) into
/// the snippet next to chunk `x`, one non-blank line more at a time (blank lines between come
/// along), and merges again: the first copy with which the merge succeeds and the chunk spans the
/// copied lines and the candidate region `fs..=fe` is the hint: (first row, last row, non-blank
/// lines copied).
#[allow(clippy::too_many_arguments)]
fn trial(
    fl: &FileLines,
    snip: &[&str],
    tol: Tolerance,
    k: &Chunk,
    x: usize,
    (fs, fe): (usize, usize),
    edge: usize,
    above: bool,
    reach: usize,
) -> Option<(usize, usize, usize)> {
    let mut row = edge;
    let mut solid = 0;
    loop {
        row = match above {
            true => row.checked_sub(1)?,
            false => Some(row + 1).filter(|&r| r < fl.len())?,
        };
        if is_blank(fl.line(row)) {
            continue;
        }
        solid += 1;
        if solid > reach {
            return None;
        }
        let (a, b) = match above {
            true => (row, edge),
            false => (edge + 1, row + 1),
        };
        let at = match above {
            true => k.at[0],
            false => k.at[k.at.len() - 1] + 1,
        };
        let mut t: Vec<&str> = snip[..at].to_vec();
        t.extend((a..b).map(|i| fl.line(i)));
        t.extend_from_slice(&snip[at..]);
        if let Ok((Plan::Merged(_), spans)) = merge_lines(fl.text, &t, tol) {
            let (f0, f1) = spans[x];
            let edge_ok = match above {
                true => f0 == row,
                false => f1 == row + 1,
            };
            if edge_ok && f0 <= fs && fe < f1 {
                return Some((a, b - 1, solid));
            }
        }
    }
}

/// Adds to an ambiguity refusal of chunk `x`, for each candidate region, the nearest file line next
/// to the chunk that tells that candidate apart from the others (`distinguishing_lines`, and one
/// sentence in the message and `hint`). Each is checked by merging with it: copied as named, the
/// chunk lands on that candidate. Nothing is relaxed: the trial merges follow the same rules.
pub(super) fn tell_apart(f: Failure, file: &str, snip: &[&str], tol: Tolerance) -> Failure {
    let chunk = f
        .detail("chunk_index")
        .and_then(serde_json::Value::as_u64)
        .map(|x| x as usize);
    let parsed = parse(snip);
    let Some((x, k)) = chunk.and_then(|x| Some((x, parsed.as_ref()?.chunks.get(x)?))) else {
        return f;
    };
    let fl = &FileLines::new(file);
    let tiers = ladder(tol);
    let loose: Tier = *tiers.last().expect("a ladder has a tier");
    let lines = &k.lines;
    let m = lines.len();
    let regions: Vec<(usize, usize)> = f
        .detail("candidates")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| {
                    let s = c["start_line"].as_u64()? as usize;
                    let e = c["end_line"].as_u64()? as usize;
                    (s >= 1 && e >= s).then_some((s - 1, e - 1))
                })
                .collect()
        })
        .unwrap_or_default();
    let runs = strong_runs(fl, lines, tiers);
    let mut out: Vec<Distinguishing> = Vec::new();
    for (fs, fe) in regions {
        let len = fe + 1 - fs;
        // The chunk line the region's first line is.
        let Some(cs) = (0..(m + 1).saturating_sub(len))
            .find(|&c| (0..len).all(|i| fl.eq(lines[c + i], fs + i, loose)))
        else {
            continue;
        };
        let ce = cs + len - 1;
        // The chunk's top and bottom at this place: its unchanged edge lines beside the region,
        // else the region's own edge (new lines there go between it and a copied line).
        // When the chunk has another run above (below) the region, the chunk's edge is that
        // run's nearest place above (below) the region.
        let (mut ts, mut tf) = (cs, fs);
        if let Some(r) = runs.first().filter(|r| r.c0 + r.len <= cs) {
            // (A run's weak lines may stand on the region's own edge line: `}` closing both.)
            if let Some(&p) = r
                .places
                .iter()
                .rev()
                .find(|&&p| p < fs && p + r.len <= fe + 1)
            {
                (ts, tf) = (r.c0, p);
            }
        }
        let top = match tf >= ts && (0..ts).all(|c| fl.eq(lines[c], tf - ts + c, loose)) {
            true => tf - ts,
            false => tf,
        };
        let (mut be, mut bf) = (ce, fe);
        if let Some(r) = runs.last().filter(|r| r.c0 > ce) {
            if let Some(&p) = r.places.iter().find(|&&p| p >= fs && p + r.len > fe + 1) {
                (be, bf) = (r.c0 + r.len - 1, p + r.len - 1);
            }
        }
        let below_end = bf + (m - 1 - be);
        let bottom = match below_end < fl.len()
            && (be + 1..m).all(|c| fl.eq(lines[c], bf + (c - be), loose))
        {
            true => below_end,
            false => bf,
        };
        let up = trial(fl, snip, tol, k, x, (fs, fe), top, true, HINT_REACH).map(|t| (t, "above"));
        // Below, only as far as a line that could beat the one found above.
        let reach = match up {
            Some(((a, b, solid), _)) if solid == 1 && a == b => 0,
            Some(((_, _, solid), _)) => solid,
            None => HINT_REACH,
        };
        let down = trial(fl, snip, tol, k, x, (fs, fe), bottom, false, reach).map(|t| (t, "below"));
        let best = [up, down]
            .into_iter()
            .flatten()
            .min_by_key(|((a, b, solid), _)| (*solid, b - a));
        if let Some(((a, b, _), side)) = best {
            let line = match side {
                "above" => a,
                _ => b,
            };
            out.push(Distinguishing {
                candidate_start_line: fs + 1,
                line: line + 1,
                text: fl.line(line).to_string(),
                side,
                copy_lines: CopyLines {
                    start_line: a + 1,
                    end_line: b + 1,
                },
            });
        }
    }
    let sentence = match out.is_empty() {
        true => format!("No file line next to the chunk (up to {HINT_REACH} non-blank lines above or below it) places it on one candidate by itself: show more of the unchanged code around the change, above and below the chunk."),
        false => {
            let each: Vec<String> = out
                .iter()
                .map(|d| {
                    let what = match d.copy_lines.start_line == d.copy_lines.end_line {
                        true => format!("line {} `{}`", d.line, clip(&d.text, 60)),
                        false => format!(
                            "lines {}-{} (line {} `{}` and the lines between it and the chunk)",
                            d.copy_lines.start_line,
                            d.copy_lines.end_line,
                            d.line,
                            clip(&d.text, 60)
                        ),
                    };
                    format!("for the one at line {}, copy file {what} {} the chunk", d.candidate_start_line, d.side)
                })
                .collect();
            format!("To place it, {} (distinguishing_lines).", each.join("; "))
        }
    };
    let mut f = f;
    f.message = format!("{} {sentence}", f.message);
    f.with("distinguishing_lines", out).with("hint", sentence)
}
