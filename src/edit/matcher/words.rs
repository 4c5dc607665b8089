//! The wording of refusals about where the matcher found text: shared by the appliers of edits
//! ([`crate::edit::apply`]) and of hunks ([`crate::edit::apply_hunks`]), which may not depend on each other.

use super::{IndentMiss, Tier};

/// For refusal messages: the first ten start lines, how many more there are, and the tier (if not exact).
pub fn describe_places(lines: &[usize], count: usize, tier: Tier) -> (String, String, String) {
    let shown = lines
        .iter()
        .take(10)
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let more = if count > 10 {
        format!(" and {} more", count - 10)
    } else {
        String::new()
    };
    let via = if tier == Tier::Exact {
        String::new()
    } else {
        format!(" (at the {} tier)", tier.as_str())
    };
    (shown, more, via)
}

/// What a region that matches apart from indentation differs in, and why `new` (`what`) is refused.
pub fn indent_miss_words(
    why: IndentMiss,
    sl: usize,
    el: usize,
    what: &str,
) -> (&'static str, String) {
    match why {
        IndentMiss::Uneven => (
            "indentation differs by different amounts on different lines",
            format!("lines {sl}-{el} match apart from indentation, but the indentation differs unevenly, so {what} cannot be re-indented safely."),
        ),
        IndentMiss::FramesDisagree => (
            "indentation differs; the changed lines could be meant at the file's columns or shifted like the rest",
            format!("lines {sl}-{el} match apart from indentation, but {what} repeats lines at old's columns while a changed line sits at the file's column: the two readings put that line at different depths (in or out of a block), so nothing was applied."),
        ),
        IndentMiss::MoveAmbiguous => (
            "old lacks its line's indentation; the later lines of new could be relative to the first or at the file's columns",
            format!("line {sl} matches after its indentation, which old leaves out, and the later lines of {what} read both as written at the file's columns and as indented relative to the first line, at different depths; nothing was applied."),
        ),
        IndentMiss::SpacingUndecided { line } => (
            "inline whitespace differs; the changed line could keep the spacing of more than one line it replaces",
            format!("lines {sl}-{el} match apart from inline whitespace, and line {line} of {what} replaces several lines that space their words differently, reading as each of them with one word changed: whose spacing it keeps is a guess, so nothing was applied. Copy the lines' spacing exactly."),
        ),
        IndentMiss::PairingUndecided { line } => (
            "lines repeat; new pairs with the lines it replaces in two ways that write different whitespace",
            format!("lines {sl}-{el} match, but {what} repeats a line it also moves or replaces (such as a closing brace), and the two ways of pairing its lines with the file's write different indentation, trailing whitespace or line breaks from line {line} of the result on: which copy was kept is a guess, so nothing was applied. Send the lines that stay as they are as context, unchanged, or copy old exactly."),
        ),
        IndentMiss::FrameUndecided { line, shifted, written, place } => (
            "indentation differs; nothing tells whether new is indented like old or already at the file's columns",
            format!("lines {sl}-{el} match apart from indentation, and in {place} nothing decides how to read {what}'s indentation: indented like old (shifted as old is), line {line} of {what} goes to column {shifted}; read as already at the file's columns, it stays at column {written}. The two readings put it in different blocks, so nothing was applied."),
        ),
    }
}
