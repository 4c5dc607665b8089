//! Stable failure codes and the failure value every engine call returns.
//!
//! A [`Failure`] is plain data: a [`Code`] whose string form never changes, a message written for the
//! caller (often a model) that says what to do next, and named details (`match_count`, `candidates`, …)
//! that are copied verbatim into the result object.

use serde::Serialize;
use serde_json::{Map, Value};

macro_rules! codes {
    ($($variant:ident => $name:literal, $doc:literal;)*) => {
        /// Every failure code the engine can return. The string form is part of the public API.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $(#[doc = $doc] $variant,)* }

        impl Code {
            /// All codes, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable string form, e.g. `"SEARCH_BLOCK_NOT_FOUND"`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// One sentence: what the caller should do about this code.
            pub fn remedy(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }
        }
    };
}

codes! {
    InvalidInput => "INVALID_INPUT", "Fix the arguments as the message says and call again.";
    PathOutsideWorkspace => "PATH_OUTSIDE_WORKSPACE", "Use a path inside the workspace root (relative paths resolve against it).";
    TargetIsDirectory => "TARGET_IS_DIRECTORY", "Name a file, not a directory.";
    FileNotFound => "FILE_NOT_FOUND", "Check the path (list the directory), or create the file first.";
    FileExists => "FILE_EXISTS", "The file already exists: edit it, or pass overwrite: true to replace it.";
    PermissionDenied => "PERMISSION_DENIED", "The process may not read or write this file; do not retry unchanged.";
    BinaryFileRejected => "BINARY_FILE_REJECTED", "The file is binary; surepatch only edits text files.";
    EncodingUnsupported => "ENCODING_UNSUPPORTED", "The file is not valid UTF-8 or BOM-marked UTF-16; it is left untouched.";
    FileTooLarge => "FILE_TOO_LARGE", "The file is above the size limit (option max_file_bytes).";
    SearchBlockNotFound => "SEARCH_BLOCK_NOT_FOUND", "Re-read the region named by the best candidate and copy the text exactly.";
    SearchBlockAmbiguous => "SEARCH_BLOCK_AMBIGUOUS", "Add surrounding lines until the search text is unique, or set expected_replacements.";
    MatchCountMismatch => "MATCH_COUNT_MISMATCH", "The search text occurs a different number of times than expected_replacements; fix the count or the text.";
    OverlappingEdits => "OVERLAPPING_EDITS", "Merge the two overlapping edits into one, or split them so they do not touch the same text.";
    NoChanges => "NO_CHANGES", "The replacement equals the original text; nothing to do.";
    AlreadyApplied => "ALREADY_APPLIED", "The edit's result is already in the file (a retried call?); nothing was written. Re-read the file to confirm; if pending lists parts not yet applied, send only those.";
    ParseError => "PARSE_ERROR", "The patch text is malformed at the given line; fix the syntax and resend.";
    StaleFile => "STALE_FILE", "The file changed since it was read; re-read it and rebuild the edit.";
    StaleAnchor => "STALE_ANCHOR", "Some anchored lines changed; use the fresh N:tag anchors given and resend.";
    ElidedContent => "ELIDED_CONTENT", "The content holds a placeholder such as '... existing code ...'; send the full text.";
    EditNotFound => "EDIT_NOT_FOUND", "The edit_id is unknown or was evicted from the undo journal.";
    FileReadError => "FILE_READ_ERROR", "Reading the file failed; the message has the OS error.";
    FileWriteError => "FILE_WRITE_ERROR", "Writing the file failed and nothing was changed; the message has the OS error.";
    LockTimeout => "LOCK_TIMEOUT", "Another writer held a lock on the file for longer than lock_timeout_ms (default 10 s); nothing was written. Retry in a moment.";
    SyntaxErrorIntroduced => "SYNTAX_ERROR_INTRODUCED", "The edit would break the file's syntax at the place shown; fix the edit so the file still parses.";
    RewriteTooBroad => "REWRITE_TOO_BROAD", "The rewrite changes more lines than max_changed_lines allows; change only the lines you mean to (editLines, applyEdits), or raise the limit if the whole rewrite is intended.";
    SnippetUnanchored => "SNIPPET_UNANCHORED", "A chunk of the lazy snippet has no unchanged line to place it by, or a snippet edge without a marker would delete lines it does not show: copy an unchanged line above and below each chunk, and put a marker (`// ... existing code ...`) wherever code is left out.";
    SnippetAmbiguous => "SNIPPET_AMBIGUOUS", "A chunk's unchanged lines occur at several places (candidates lists them): copy the file line that distinguishing_lines names for the place you mean next to the chunk, above or below it as it says.";
    SnippetOutOfOrder => "SNIPPET_OUT_OF_ORDER", "The snippet's chunks (or a chunk's unchanged lines) are not in the file's order: write the chunks top to bottom as they stand in the file.";
    SnippetKeepMissing => "SNIPPET_KEEP_MISSING", "A `keep NAME` marker stands for lines that do not hold NAME: the chunks around it are not where the snippet says; re-read the file and resend.";
    SymbolNotFound => "SYMBOL_NOT_FOUND", "No symbol has this name path; pick one of the candidates (each name_path resolves to exactly that symbol), or list the file's symbols with listSymbols.";
    SymbolAmbiguous => "SYMBOL_AMBIGUOUS", "Several symbols have this name path; send one of the candidates' name_path verbatim (e.g. Class/method[1]), or a longer path.";
    UnsupportedLanguage => "UNSUPPORTED_LANGUAGE", "surepatch has no grammar for this file's extension, so it has no symbols; edit it with patchFile, applyEdits or editLines.";
    InternalError => "INTERNAL_ERROR", "A bug in surepatch; nothing was written. Please report it at https://github.com/surepatch/surepatch/issues.";
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused or failed call: a code, a message and named details.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: Code,
    pub message: String,
    pub details: Map<String, Value>,
}

impl Failure {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds a named detail. Values that fail to serialize are dropped (they cannot: all are plain data).
    pub fn with(mut self, key: &str, value: impl Serialize) -> Self {
        if let Ok(v) = serde_json::to_value(value) {
            self.details.insert(key.to_string(), v);
        }
        self
    }

    pub fn detail(&self, key: &str) -> Option<&Value> {
        self.details.get(key)
    }

    /// Maps an I/O error met while touching `what` to the matching code.
    pub fn io(err: &std::io::Error, reading: bool, what: &str) -> Self {
        use std::io::ErrorKind::*;
        let code = match err.kind() {
            NotFound => Code::FileNotFound,
            PermissionDenied => Code::PermissionDenied,
            IsADirectory => Code::TargetIsDirectory,
            _ if reading => Code::FileReadError,
            _ => Code::FileWriteError,
        };
        let verb = if reading { "reading" } else { "writing" };
        Failure::new(code, format!("{verb} {what} failed: {err}"))
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Failure {}

pub type Result<T, E = Failure> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_screaming_snake() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            let s = c.as_str();
            assert!(seen.insert(s), "duplicate {s}");
            assert!(
                s.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'),
                "{s}"
            );
            assert!(!c.remedy().is_empty());
        }
    }

    #[test]
    fn failure_details_serialize() {
        let f = Failure::new(Code::SearchBlockAmbiguous, "two").with("match_count", 2);
        assert_eq!(f.detail("match_count"), Some(&Value::from(2)));
        assert_eq!(
            serde_json::to_value(f.code).unwrap(),
            Value::from("SEARCH_BLOCK_AMBIGUOUS")
        );
    }
}
