//! What a panic is allowed to say. A panic payload can quote the data it failed on: slicing a string at
//! a byte that is not a character boundary panics with "byte index 5 is not a char boundary; it is
//! inside 'x' (bytes 4..6) of `<the whole string>`", and that string may be a file's content or a
//! model's edit. Neither may reach stderr or an `INTERNAL_ERROR` message, so:
//!
//! - [`describe`] turns a payload into a message with every quoted segment (backquotes, double and
//!   single quotes) elided, except a few known code names (`Result::unwrap()`, `Err`, …), cut to
//!   [`MAX_MESSAGE`] characters;
//! - [`install_hook`] (called by the Node binding) replaces the default panic hook, which prints the
//!   raw payload, with one that prints `surepatch: internal error (panic at FILE:LINE): <described>`
//!   and remembers the location for the `INTERNAL_ERROR` message of the call that panicked.

use std::any::Any;
use std::cell::RefCell;

/// Longest message kept from a panic payload, in characters.
pub const MAX_MESSAGE: usize = 200;

/// Quoted code names that say what failed and never hold data.
const KEPT: &[&str] = &[
    "Result::unwrap()",
    "Option::unwrap()",
    "Result::expect()",
    "Option::expect()",
    "Err",
    "None",
    "Ok",
    "Some",
];

thread_local! {
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The raw text of a panic payload (a `&str` or `String`), if it has one.
fn raw(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// `text` with every quoted segment replaced by `…`, cut to [`MAX_MESSAGE`] characters.
pub fn sanitize(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(['`', '"', '\'']) {
        out.push_str(&rest[..at]);
        let quote = rest[at..].chars().next().unwrap_or('`');
        let inner_start = at + quote.len_utf8();
        // A quote closes at the next same quote (a backslash escapes one inside '…' and "…").
        let mut end = None;
        let mut escaped = false;
        for (i, c) in rest[inner_start..].char_indices() {
            if escaped {
                escaped = false;
            } else if c == '\\' && quote != '`' {
                escaped = true;
            } else if c == quote {
                end = Some(inner_start + i);
                break;
            }
        }
        match end {
            Some(e) => {
                let inner = &rest[inner_start..e];
                if quote == '`' && KEPT.contains(&inner) {
                    out.push('`');
                    out.push_str(inner);
                    out.push('`');
                } else {
                    out.push(quote);
                    out.push('…');
                    out.push(quote);
                }
                rest = &rest[e + quote.len_utf8()..];
            }
            None => {
                // An unclosed quote: everything after it may be data.
                out.push(quote);
                out.push('…');
                rest = "";
            }
        }
    }
    out.push_str(rest);
    match out.char_indices().nth(MAX_MESSAGE) {
        Some((cut, _)) => format!("{}…", &out[..cut]),
        None => out,
    }
}

/// A panic payload as a message safe to show: see the module documentation.
pub fn describe(payload: &(dyn Any + Send)) -> String {
    let text = raw(payload).map_or_else(|| "unknown panic".to_string(), sanitize);
    match LOCATION.with(|l| l.borrow_mut().take()) {
        Some(at) => format!("panic at {at}: {text}"),
        None => text,
    }
}

/// Replaces the process's panic hook (once) with one that prints only [`describe`]d text.
pub fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            let text = raw(info.payload()).map_or_else(|| "unknown panic".to_string(), sanitize);
            eprintln!(
                "surepatch: internal error (panic at {}): {text}",
                at.as_deref().unwrap_or("an unknown place")
            );
            LOCATION.with(|l| *l.borrow_mut() = at);
        }));
    });
}

/// Test hook for the Node tests, answered only when the environment variable
/// `SUREPATCH_TEST_HOOKS` is `1`: panics by slicing `text` inside its first character, the way a
/// slicing bug on file content would.
pub fn test_panic(args: &[serde_json::Value]) -> super::Res {
    if std::env::var("SUREPATCH_TEST_HOOKS").as_deref() != Ok("1") {
        return Err(super::args::bad("unknown operation \"__test_panic\"."));
    }
    /// `__test_panic(text)`.
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    struct TestPanicArgs {
        text: String,
    }
    let a: TestPanicArgs = crate::contract::read::read_args(args)?;
    let text = a.text.as_str();
    let cut = usize::from(text.len() > 1);
    // Deliberately not a char boundary when the text starts with a multi-byte character.
    let piece = &text[..cut];
    Ok(super::ok_object(serde_json::json!({ "piece": piece })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload_of(f: impl FnOnce() + std::panic::UnwindSafe) -> Box<dyn Any + Send> {
        std::panic::catch_unwind(f).unwrap_err()
    }

    #[test]
    fn file_content_in_a_payload_is_elided() {
        let content = String::from("é secret line\nmore secret");
        let p = payload_of(move || {
            let _ = &content[..1];
        });
        let raw = raw(p.as_ref()).unwrap().to_string();
        assert!(
            raw.contains("secret"),
            "the raw payload quotes the data: {raw}"
        );
        let d = describe(p.as_ref());
        assert!(!d.contains("secret") && !d.contains('é'), "{d}");
        assert!(d.contains("byte index 1 is not a char boundary"), "{d}");
    }

    #[test]
    fn sanitize_keeps_code_names_and_cuts() {
        assert_eq!(
            sanitize(
                "called `Result::unwrap()` on an `Err` value: Failure { message: \"a \\\" b\" }"
            ),
            "called `Result::unwrap()` on an `Err` value: Failure { message: \"…\" }"
        );
        assert_eq!(
            sanitize("index out of bounds: the len is 3 but the index is 5"),
            "index out of bounds: the len is 3 but the index is 5"
        );
        assert_eq!(
            sanitize("inside '\\'' (bytes 0..1) of `x`"),
            "inside '…' (bytes 0..1) of `…`"
        );
        assert_eq!(sanitize("unclosed `secret"), "unclosed `…");
        let long = "x".repeat(500);
        assert_eq!(sanitize(&long).chars().count(), MAX_MESSAGE + 1);
        assert_eq!(describe(&5_i32 as &(dyn Any + Send)), "unknown panic");
    }
}
