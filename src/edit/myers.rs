//! Myers diffs through the `similar` crate, with every op's indices re-derived from the ops' order
//! and lengths.
//!
//! `similar` 2.7 can hand a `Delete` or an `Insert` the wrong index on the side it does not change
//! (mitsuhiko/similar#78: a `Delete` whose `new_index` points past the lines inserted after it). The
//! order of the ops and their lengths are right, so walking them with a running position on each
//! side gives the right indices; the `Equal` runs are then checked element by element, and if any
//! does not hold (or the ops do not cover both sides) the diff falls back to the coarse one (the
//! common prefix, one `Replace`, the common suffix), which is always correct. Every caller slices
//! text by these indices: a wrong one spliced overlapping ranges (a panic, caught as
//! `INTERNAL_ERROR`) or paired the wrong lines.

use similar::DiffOp;
use std::hash::Hash;

/// The Myers diff of `a` against `b`, with consistent indices. Unbounded: callers that need a bound
/// use [`crate::edit::matcher::bounded_diff`], which counts steps (a clock would make the result
/// depend on the machine's load).
pub fn diff<T: Eq + Hash + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, a, b);
    resequence(a, b, &ops).unwrap_or_else(|| coarse(a, b))
}

/// [`diff`] when `(a.len() + b.len())²` is at most `max_cost` (a bound on the work Myers can do),
/// else [`coarse`]: a deterministic bound for callers below the matcher, which cannot use its
/// step-counting `bounded_diff` without importing back up.
pub fn diff_within<T: Eq + Hash + Ord>(a: &[T], b: &[T], max_cost: usize) -> Vec<DiffOp> {
    let n = a.len() + b.len();
    if n.saturating_mul(n) <= max_cost {
        diff(a, b)
    } else {
        coarse(a, b)
    }
}

/// The (old, new) index pairs an edit marks as kept (`kept[n]`: the line of `old` that line `n` of
/// `new` keeps), when they hold: in order on both sides, inside both slices, and equal lines.
/// `None` when one does not (the marks were written for other lines than these).
pub fn marked_pairs<T: PartialEq>(
    kept: &[Option<usize>],
    old: &[T],
    new: &[T],
) -> Option<Vec<(usize, usize)>> {
    let pairs: Vec<(usize, usize)> = kept
        .iter()
        .enumerate()
        .filter_map(|(n, o)| o.map(|o| (o, n)))
        .collect();
    let holds = pairs.windows(2).all(|w| w[0].0 < w[1].0)
        && pairs
            .iter()
            .all(|&(o, n)| o < old.len() && n < new.len() && old[o] == new[n]);
    holds.then_some(pairs)
}

/// The diff of two sequences of lengths `lens` (old, new) through `pairs` (from
/// [`marked_pairs`]): each pair an `Equal`, every stretch between two pairs diffed by `gap` (its
/// old and new ranges in, ops in the stretch's own indices out).
pub fn diff_through(
    pairs: &[(usize, usize)],
    (lo, ln): (usize, usize),
    mut gap: impl FnMut(std::ops::Range<usize>, std::ops::Range<usize>) -> Vec<DiffOp>,
) -> Vec<DiffOp> {
    let mut ops = Vec::new();
    let (mut o, mut n) = (0, 0);
    for &(po, pn) in pairs.iter().chain([(lo, ln)].iter()) {
        ops.extend(gap(o..po, n..pn).into_iter().map(|op| offset(op, o, n)));
        if po < lo {
            ops.push(DiffOp::Equal {
                old_index: po,
                new_index: pn,
                len: 1,
            });
        }
        (o, n) = (po + 1, pn + 1);
    }
    ops
}

/// `op` of a diff of sub-slices starting at `o` (old) and `n` (new), in the whole slices' indices.
pub fn offset(op: similar::DiffOp, o: usize, n: usize) -> similar::DiffOp {
    use similar::DiffOp::*;
    match op {
        Equal {
            old_index,
            new_index,
            len,
        } => Equal {
            old_index: old_index + o,
            new_index: new_index + n,
            len,
        },
        Delete {
            old_index,
            old_len,
            new_index,
        } => Delete {
            old_index: old_index + o,
            old_len,
            new_index: new_index + n,
        },
        Insert {
            old_index,
            new_index,
            new_len,
        } => Insert {
            old_index: old_index + o,
            new_index: new_index + n,
            new_len,
        },
        Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => Replace {
            old_index: old_index + o,
            old_len,
            new_index: new_index + n,
            new_len,
        },
    }
}

/// `ops` with their indices re-derived by walking them in order; `None` when an `Equal` run does not
/// hold or the ops do not cover both sides exactly.
pub fn resequence<T: Eq>(a: &[T], b: &[T], ops: &[DiffOp]) -> Option<Vec<DiffOp>> {
    let (mut o, mut n) = (0usize, 0usize);
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        let (ol, nl) = (op.old_range().len(), op.new_range().len());
        out.push(match op {
            DiffOp::Equal { len, .. } => {
                if a.get(o..o + len)? != b.get(n..n + len)? {
                    return None;
                }
                DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len: *len,
                }
            }
            DiffOp::Delete { old_len, .. } => DiffOp::Delete {
                old_index: o,
                old_len: *old_len,
                new_index: n,
            },
            DiffOp::Insert { new_len, .. } => DiffOp::Insert {
                old_index: o,
                new_index: n,
                new_len: *new_len,
            },
            DiffOp::Replace {
                old_len, new_len, ..
            } => DiffOp::Replace {
                old_index: o,
                old_len: *old_len,
                new_index: n,
                new_len: *new_len,
            },
        });
        o += ol;
        n += nl;
    }
    (o == a.len() && n == b.len()).then_some(out)
}

/// The common prefix, one `Replace` of what lies between, the common suffix.
pub fn coarse<T: Eq>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut ops = Vec::with_capacity(3);
    if pre > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: pre,
        });
    }
    let (ol, nl) = (a.len() - pre - suf, b.len() - pre - suf);
    match (ol, nl) {
        (0, 0) => {}
        (_, 0) => ops.push(DiffOp::Delete {
            old_index: pre,
            old_len: ol,
            new_index: pre,
        }),
        (0, _) => ops.push(DiffOp::Insert {
            old_index: pre,
            new_index: pre,
            new_len: nl,
        }),
        _ => ops.push(DiffOp::Replace {
            old_index: pre,
            old_len: ol,
            new_index: pre,
            new_len: nl,
        }),
    }
    if suf > 0 {
        ops.push(DiffOp::Equal {
            old_index: a.len() - suf,
            new_index: b.len() - suf,
            len: suf,
        });
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op is where the walk says it is, the `Equal` runs hold, and applying the ops to `a`
    /// gives `b`.
    fn check<T: Eq + Hash + Ord + Clone + std::fmt::Debug>(a: &[T], b: &[T]) {
        let ops = diff(a, b);
        let (mut o, mut n) = (0, 0);
        let mut built = Vec::new();
        for op in &ops {
            let (or, nr) = (op.old_range(), op.new_range());
            assert_eq!((or.start, nr.start), (o, n), "{a:?} -> {b:?}: {ops:?}");
            if let DiffOp::Equal { .. } = op {
                assert_eq!(a[or.clone()], b[nr.clone()]);
            }
            built.extend_from_slice(&b[nr.clone()]);
            o = or.end;
            n = nr.end;
        }
        assert_eq!((o, n), (a.len(), b.len()));
        assert_eq!(built, b);
    }

    #[test]
    fn the_indices_similar_gets_wrong_are_walked_right() {
        // similar#78's own case: a Delete with new_index 4 where 2 is right.
        check(&[1, 1, 0, 2], &[2, 1, 0, 0, 0, 0]);
        // Found by the ground-truth fuzzer (seed 25, case 320605): two C functions edited in turn;
        // the raw ops gave line_changes overlapping spans and the render sliced backwards.
        let a = "#include <stdio.h>\n\nint check(int size) {\n    return value;\n    return value;\n    return name;\n    return name;\n    return result;\n}\n\nint save(int size) {  \n    return value;\n    return value;\n    return name;\n    return name;\n    return idx;\n}\n\nint parse(int size) {\n    return value;\n    return value;\n    return name;\n    return name;\n    return result;\n}";
        let b = "#include <stdio.h>\n\nint check(int size) {\n    return value;\n    return value;\n    return name;\n    return name;\n\nint save(int size) {  \n    return value;\n    return value;\n    return idx;\n    total name;\n    return total;\n    return idx;\n}\n\nint parse(int size) {\n    return value;\n    return value;\n    return name;\n    return name;\n    name size;\n    return result;\n}";
        let (al, bl): (Vec<&str>, Vec<&str>) = (a.split('\n').collect(), b.split('\n').collect());
        check(&al, &bl);
        // The raw ops are the ones the walk corrects (if similar is fixed, this case stops testing it).
        let raw = similar::capture_diff_slices(similar::Algorithm::Myers, &al, &bl);
        assert_ne!(resequence(&al, &bl, &raw).as_ref(), Some(&raw));
    }

    #[test]
    fn every_small_pair_diffs_consistently() {
        let alphabet = [0u8, 1, 2];
        let mut seqs: Vec<Vec<u8>> = vec![vec![]];
        for len in 1..=5 {
            let mut next = Vec::new();
            for s in seqs.iter().filter(|s| s.len() == len - 1) {
                for c in alphabet {
                    let mut t = s.clone();
                    t.push(c);
                    next.push(t);
                }
            }
            seqs.extend(next);
        }
        for a in &seqs {
            for b in &seqs {
                check(a, b);
            }
        }
    }
}
