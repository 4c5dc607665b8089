//! The checks every single-file write runs before it commits: the caller's `base_hash` against the
//! bytes read ([`check_base`]) and the syntax gate ([`syntax_gate`]). Shared by every handler that
//! writes one file (edits, line edits, rewrites, moves, lazy snippets, symbol edits, patches); it may
//! use the options and the engine below, never another handler.

use super::options::Validate;
use crate::edit::hash::file_hash;
use crate::error::{Code, Failure, Result};
use crate::syntax;

/// Set once an edit ran the syntax gate in this process (or `listSymbols` / `editSymbol` outlined a
/// file); from then on `viewFile` warms the gate's tree cache (see [`super::view`]), so hosts that
/// never validate never pay for parsing.
pub static GATE_USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs the syntax gate on one file's edit: `None` when `mode` is off, the report otherwise. Under
/// `enforce`, an edit that introduces an error fails with `SYNTAX_ERROR_INTRODUCED`, the report under
/// `syntax` and a message that shows the first new error in context. `changes` are the edit's byte
/// spans (`&[]` when none are at hand: the gate computes the differing span itself).
pub fn syntax_gate(
    mode: Validate,
    display: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> Result<Option<syntax::SyntaxReport>> {
    if mode == Validate::Off {
        return Ok(None);
    }
    GATE_USED.store(true, std::sync::atomic::Ordering::Relaxed);
    let report = syntax::check(display, before, after, changes);
    if mode == Validate::Enforce && !report.ok {
        let message =
            syntax::message(display, &report, before, after, changes).unwrap_or_else(|| {
                format!(
                    "The edit would introduce a syntax error in {display}. Nothing was written."
                )
            });
        return Err(Failure::new(Code::SyntaxErrorIntroduced, message)
            .with("file_path", display)
            .with("syntax", &report));
    }
    Ok(Some(report))
}

/// Checks `base_hash` against the bytes the caller's edit will be applied to.
pub fn check_base(base: Option<&str>, bytes: &[u8], display: &str) -> Result<()> {
    let Some(base) = base else { return Ok(()) };
    let now = file_hash(bytes);
    if now.eq_ignore_ascii_case(base) {
        return Ok(());
    }
    Err(Failure::new(
        Code::StaleFile,
        format!("{display} changed since it was read (base_hash {base}, now {now}); nothing was written. Re-read the file and rebuild the edit."),
    )
    .with("base_hash", base)
    .with("current_hash", now)
    .with("file_path", display))
}
