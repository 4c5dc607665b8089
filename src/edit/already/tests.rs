//! Applying twice is not applying: every reading of an edit or hunk, applied to the text its first
//! application left, is refused (`ALREADY_APPLIED`), and edits that only look alike still land.

use super::*;
use crate::edit::apply::{apply_batch, plan_edits};
use crate::edit::formats::{parse_patch, parse_unified_diff};
use crate::edit::ir::{Change, Dialect, FileOp};

const SAFE: Tolerance = Tolerance::Safe;

fn edits(pairs: &[(&str, &str)]) -> Vec<Edit> {
    pairs.iter().map(|(o, n)| Edit::new(*o, *n)).collect()
}

/// The batch applied once to `text`, and the refusal of the same batch applied to that result.
fn twice(text: &str, es: &[Edit], turn: Dialect) -> (String, Failure) {
    let once = apply_batch(text, es, SAFE, turn)
        .unwrap_or_else(|f| panic!("first application refused: {f}"))
        .text;
    let again = apply_batch(&once, es, SAFE, turn).expect_err(&format!("applied twice: {once:?}"));
    (once, again)
}

fn list(f: &Failure, key: &str) -> Vec<u64> {
    f.detail(key)
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_u64()).collect())
        .unwrap_or_default()
}

#[test]
fn an_insertion_applied_again_is_refused_as_already_applied() {
    let text = "def f():\n    a = 1\n    return a\n";
    let es = edits(&[("    a = 1\n", "    a = 1\n    b = 2\n")]);
    let (once, f) = twice(text, &es, Dialect::EditsInTurn);
    assert_eq!(once, "def f():\n    a = 1\n    b = 2\n    return a\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert_eq!(list(&f, "already_applied"), [0]);
    assert!(list(&f, "pending").is_empty());
    assert!(f.message.contains("lines 2-3"), "{}", f.message);
    // The one-line form of the issue: `a` → `a\nb`.
    let (once, f) = twice("x\na\ny\n", &edits(&[("a", "a\nb")]), Dialect::EditsInTurn);
    assert_eq!(once, "x\na\nb\ny\n");
    assert_eq!(f.code, Code::AlreadyApplied);
    // Appended to a line, not a new line: the same.
    let (_, f) = twice(
        "call(x)\n",
        &edits(&[("call(x)", "call(x) or 0")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(f.code, Code::AlreadyApplied);
}

#[test]
fn a_retry_is_recognised_at_every_tolerance_tier_the_first_one_used() {
    // The model's old lost its indentation (indentation tier): its new is re-indented on the way in,
    // so on the retry new is found at the same tier, around old.
    let text = "class A:\n    def f(self):\n        a = 1\n        return a\n";
    let es = edits(&[("a = 1\nreturn a\n", "a = 1\nb = 2\nreturn a\n")]);
    let (once, f) = twice(text, &es, Dialect::EditsInTurn);
    assert_eq!(
        once,
        "class A:\n    def f(self):\n        a = 1\n        b = 2\n        return a\n"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Line-number prefixes copied from a view (line_prefix tier), on both sides.
    let (once, f) = twice(
        "a = 1\nc = 3\n",
        &edits(&[("1: a = 1\n", "1: a = 1\n2: b = 2\n")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(once, "a = 1\nb = 2\nc = 3\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Smart quotes the file does not use, folded back where the typography tier matched.
    let (once, f) = twice(
        "s = \"x\"\nt = 1\n",
        &edits(&[(
            "s = \u{201c}x\u{201d}\n",
            "s = \u{201c}x\u{201d}\nname = \u{201c}a\u{201d}\n",
        )]),
        Dialect::EditsInTurn,
    );
    assert_eq!(once, "s = \"x\"\nname = \"a\"\nt = 1\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // A CRLF file edited with LF text.
    let (once, f) = twice(
        "p\r\nq\r\n",
        &edits(&[("p\n", "p\nr\n")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(once, "p\r\nr\r\nq\r\n");
    assert_eq!(f.code, Code::AlreadyApplied);
}

#[test]
fn edits_that_only_look_like_retries_still_land() {
    // Closing one more block: new holds old, but the file does not already read as new.
    let es = edits(&[("    }\n}\n", "    }\n    }\n}\n")]);
    let out = apply_batch("f {\n  g {\n    }\n}\n", &es, SAFE, Dialect::EditsInTurn).unwrap();
    assert_eq!(out.text, "f {\n  g {\n    }\n    }\n}\n");
    // new is in the file, but elsewhere than around old: a second copy is meant.
    let es = edits(&[("a = 1\n", "a = 1\nb = 2\n")]);
    let text = "def f():\n    a = 1\n    b = 2\ndef g():\n    a = 1\n    c = 3\n";
    // (old occurs twice: ambiguous, whatever new does)
    assert_eq!(
        apply_batch(text, &es, SAFE, Dialect::EditsInTurn)
            .unwrap_err()
            .code,
        Code::SearchBlockAmbiguous
    );
    let es = edits(&[("c = 3\n", "b = 2\nc = 3\n")]);
    let out = apply_batch(text, &es, SAFE, Dialect::EditsInTurn).unwrap();
    assert!(
        out.text.ends_with("    a = 1\n    b = 2\n    c = 3\n"),
        "{}",
        out.text
    );
    // An edit whose new only re-indents old is no insertion.
    let es = edits(&[("x = 1\n", "    x = 1\n")]);
    let out = apply_batch("x = 1\n", &es, SAFE, Dialect::EditsInTurn).unwrap();
    assert_eq!(out.text, "    x = 1\n");
}

#[test]
fn a_replacement_retried_is_already_applied_when_its_new_text_stands_once() {
    let text = "retries = 2\ntimeout = 5\n";
    let es = edits(&[("retries = 2", "retries = 3")]);
    let (_, f) = twice(text, &es, Dialect::EditsInTurn);
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("no longer in the file"), "{}", f.message);
    // Neither old nor new in the file: the refusal stays not-found, with its candidates.
    let f = apply_batch("retries = 5\n", &es, SAFE, Dialect::EditsInTurn).unwrap_err();
    assert_eq!(f.code, Code::SearchBlockNotFound);
    // new twice, old nowhere: nothing says which one the edit wrote.
    let f = apply_batch(
        "retries = 3\nretries = 3\n",
        &es,
        SAFE,
        Dialect::EditsInTurn,
    )
    .unwrap_err();
    assert_eq!(f.code, Code::SearchBlockNotFound);
    // A deletion leaves nothing to recognise: not found.
    let es = edits(&[("timeout = 5\n", "")]);
    let (_, f) = twice(text, &es, Dialect::EditsInTurn);
    assert_eq!(f.code, Code::SearchBlockNotFound);
}

#[test]
fn a_partly_applied_batch_is_refused_whole_with_what_is_pending() {
    let text = "import os\n\nx = 1\ny = 2\n";
    let es = edits(&[
        ("import os\n", "import os\nimport sys\n"),
        ("y = 2", "y = 3"),
    ]);
    // The first edit is in the file already, the second is not.
    let now = "import os\nimport sys\n\nx = 1\ny = 2\n";
    let f = apply_batch(now, &es, SAFE, Dialect::EditsInTurn).unwrap_err();
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert_eq!(list(&f, "already_applied"), [0]);
    assert_eq!(list(&f, "pending"), [1]);
    assert!(
        f.message.contains("edits[1] not applied yet"),
        "{}",
        f.message
    );
    // Both in: the whole batch.
    let (_, f) = twice(text, &es, Dialect::EditsInTurn);
    assert_eq!(f.code, Code::AlreadyApplied);
    assert_eq!(list(&f, "already_applied"), [0, 1]);
    // One applied, one that matches nowhere: that refusal stands.
    let es = edits(&[
        ("import os\n", "import os\nimport sys\n"),
        ("z = 9", "z = 8"),
    ]);
    let f = apply_batch(now, &es, SAFE, Dialect::EditsInTurn).unwrap_err();
    assert_eq!(f.code, Code::SearchBlockNotFound);
    assert_eq!(f.detail("edit_index"), Some(&1.into()));
}

#[test]
fn expected_replacements_retried_is_refused() {
    let mut e = Edit::new("log(", "log(ctx, ");
    e.expected_replacements = Some(2);
    let (once, f) = twice("log(a)\nlog(b)\n", &[e], Dialect::EditsInTurn);
    assert_eq!(once, "log(ctx, a)\nlog(ctx, b)\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

#[test]
fn edits_read_in_turn_are_not_applied_twice() {
    // The second edit's old exists only in the first one's new: in turn.
    let es = edits(&[("a\n", "a\nb\n"), ("b\n", "c\n")]);
    let once = apply_batch("a\n", &es, SAFE, Dialect::EditsInTurn).unwrap();
    assert_eq!(once.text, "a\nc\n");
    assert_eq!(once.dialect, vec![Dialect::EditsInTurn]);
    // Retried: in turn it would match again (a → a b, b → c) and write `c` twice.
    let f = apply_batch(&once.text, &es, SAFE, Dialect::EditsInTurn).unwrap_err();
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert_eq!(list(&f, "already_applied"), [0, 1]);
    assert!(list(&f, "pending").is_empty());
    // The same batch on a file where the in-turn result repeats no line lands.
    let out = apply_batch("a\nz\n", &es, SAFE, Dialect::EditsInTurn).unwrap();
    assert_eq!(out.text, "a\nc\nz\n");
    // Its result repeats a line, but the file is no result of the batch (`b` is not what the first
    // edit would put after `a` there): it lands.
    let es = edits(&[("a\n", "a\nb\n"), ("b\n", "a\n")]);
    let out = apply_batch("a\nz\n", &es, SAFE, Dialect::EditsInTurn).unwrap();
    assert_eq!(out.text, "a\na\nz\n");
}

#[test]
fn plan_edits_refuses_a_second_application_without_building_anything() {
    let f = plan_edits("a\nb\n", &edits(&[("a\n", "a\nb\n")]), SAFE).unwrap_err();
    assert_eq!(f.code, Code::AlreadyApplied);
    assert_eq!(f.detail("edit_index"), Some(&0.into()));
}

fn patch_hunks(p: &str) -> Vec<Hunk> {
    let ops = parse_patch(p).unwrap();
    match &ops[0] {
        FileOp::Update {
            change: Change::Hunks(h),
            ..
        } => h.clone(),
        _ => panic!("not an update"),
    }
}

fn diff_hunks(p: &str) -> Vec<Hunk> {
    let ops = parse_unified_diff(p).unwrap();
    match &ops[0] {
        FileOp::Update {
            change: Change::Hunks(h),
            ..
        } => h.clone(),
        _ => panic!("not an update"),
    }
}

/// The hunks applied once, and checked against the result as a second application is.
fn hunks_twice(text: &str, hunks: &[Hunk]) -> (String, Failure) {
    let once = apply_hunks(text, hunks, SAFE).unwrap();
    check_hunks(text, hunks, &once.matches, SAFE).unwrap_or_else(|f| panic!("first: {f}"));
    let again = match apply_hunks(&once.text, hunks, SAFE) {
        Ok(a) => check_hunks(&once.text, hunks, &a.matches, SAFE)
            .expect_err(&format!("applied twice: {:?}", a.text)),
        Err(f) => {
            let at = f
                .detail("hunk_index")
                .and_then(|v| v.as_u64())
                .map(|i| i as usize);
            classify_hunks(&once.text, hunks, at, SAFE).unwrap_or(f)
        }
    };
    (once.text, again)
}

#[test]
fn a_chunk_with_context_on_one_side_is_not_applied_twice() {
    let text = "def f():\n    a = 1\n    return a\n\ndef g():\n    pass\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: m.py\n@@ def f():\n     a = 1\n+    b = 2\n*** End Patch\n");
    let (once, f) = hunks_twice(text, &h);
    assert!(once.contains("    a = 1\n    b = 2\n    return a\n"));
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert_eq!(f.detail("hunk_index"), Some(&0.into()));
    // A unified diff with context below the added line only.
    let h = diff_hunks(
        "--- a/m.py\n+++ b/m.py\n@@ -5,2 +5,3 @@\n+# g does nothing\n def g():\n     pass\n",
    );
    let (once, f) = hunks_twice(text, &h);
    assert!(once.contains("\n# g does nothing\ndef g():\n"), "{once}");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

#[test]
fn a_chunk_whose_context_lost_its_prefix_is_not_applied_twice() {
    // A context line came without its leading space (read as context all the same).
    let text = "def f():\n    return a\n";
    let h = patch_hunks(
        "*** Begin Patch\n*** Update File: m.py\n@@\ndef f():\n+    \"\"\"Doc.\"\"\"\n*** End Patch\n",
    );
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "def f():\n    \"\"\"Doc.\"\"\"\n    return a\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Two readings (an unprefixed context line, and one with a space that may be the file's): the
    // one that matched is the one recognised.
    let text = "x = 0\n   y = 1\nz = 2\n";
    let h = patch_hunks(
        "*** Begin Patch\n*** Update File: m.py\n@@\nx = 0\n   y = 1\n+w = 3\n*** End Patch\n",
    );
    assert!(h[0].alt_lines.is_some());
    let a = apply_hunks(text, &h, SAFE).unwrap();
    assert_eq!(a.dialect, vec![Dialect::ContextPrefixMissing]);
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "x = 0\n   y = 1\nw = 3\nz = 2\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

#[test]
fn pure_insertions_are_not_applied_twice() {
    let text = "def f():\n    return 1\n";
    // At the end of the file (a chunk with no context).
    let h = patch_hunks(
        "*** Begin Patch\n*** Update File: m.py\n@@\n+\n+def g():\n+    return 2\n*** End Patch\n",
    );
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "def f():\n    return 1\n\ndef g():\n    return 2\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Right after a scope line.
    let h = patch_hunks("*** Begin Patch\n*** Update File: m.py\n@@ def f():\n+    \"\"\"Doc.\"\"\"\n*** End Patch\n");
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Lines that stand elsewhere in the file (not at the insertion point) are inserted.
    let text = "x = 1\ndef f():\n    return 1\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: m.py\n@@\n+x = 1\n*** End Patch\n");
    let a = apply_hunks(text, &h, SAFE).unwrap();
    assert!(check_hunks(text, &h, &a.matches, SAFE).is_ok());
    // Only blank lines: nothing to recognise.
    let h = patch_hunks("*** Begin Patch\n*** Update File: m.py\n@@\n+\n*** End Patch\n");
    let a = apply_hunks("a\n\n", &h, SAFE).unwrap();
    assert!(check_hunks("a\n\n", &h, &a.matches, SAFE).is_ok());
}

#[test]
fn a_multi_hunk_patch_is_all_already_applied_or_partly_with_what_is_pending() {
    let text = "import os\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n";
    let p = "*** Begin Patch\n*** Update File: m.py\n@@\n import os\n+import sys\n@@ def g():\n-    return 2\n+    return 3\n*** End Patch\n";
    let h = patch_hunks(p);
    let (once, f) = hunks_twice(text, &h);
    assert!(once.contains("import sys\n") && once.contains("return 3"));
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert_eq!(list(&f, "already_applied"), [0, 1]);
    assert!(list(&f, "pending").is_empty());
    // Only the first hunk in the file: refused, with hunk 1 pending.
    let half = "import os\nimport sys\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n";
    let a = apply_hunks(half, &h, SAFE).unwrap();
    let f = check_hunks(half, &h, &a.matches, SAFE).unwrap_err();
    assert_eq!(f.code, Code::AlreadyApplied);
    assert_eq!(list(&f, "already_applied"), [0]);
    assert_eq!(list(&f, "pending"), [1]);
    // A hunk found nowhere whose new side is not there either: not found stands.
    let p2 = "*** Begin Patch\n*** Update File: m.py\n@@\n import os\n+import sys\n@@\n-    return 9\n+    return 8\n*** End Patch\n";
    let h2 = patch_hunks(p2);
    let f = apply_hunks(half, &h2, SAFE).unwrap_err();
    assert_eq!(f.code, Code::SearchBlockNotFound);
    assert!(classify_hunks(half, &h2, Some(1), SAFE).is_none());
}

#[test]
fn a_scope_decides_whose_lines_they_are() {
    // f already has `b = 2` after `a = 1`; g does not: the chunk under `def g` lands in g.
    let text = "def f():\n    a = 1\n    b = 2\n\ndef g():\n    a = 1\n    return a\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: m.py\n@@ def g():\n     a = 1\n+    b = 2\n*** End Patch\n");
    let a = apply_hunks(text, &h, SAFE).unwrap();
    assert!(check_hunks(text, &h, &a.matches, SAFE).is_ok());
    assert_eq!(
        a.text,
        "def f():\n    a = 1\n    b = 2\n\ndef g():\n    a = 1\n    b = 2\n    return a\n"
    );
    // And once it did, it is not applied again.
    let again = apply_hunks(&a.text, &h, SAFE).unwrap();
    assert_eq!(
        check_hunks(&a.text, &h, &again.matches, SAFE)
            .unwrap_err()
            .code,
        Code::AlreadyApplied
    );
}

#[test]
fn repeats_itself_needs_the_rerun_to_give_the_text_back() {
    // An insertion that repeats the line above, but the batch on the text without it does not give
    // the text back: not a retry.
    assert!(!repeats_itself("a\nb\n", "a\nb\nb\n", |_| Some(
        "other".into()
    )));
    assert!(repeats_itself("a\nb\n", "a\nb\nb\n", |t| (t == "a\n")
        .then(|| "a\nb\n".into())));
    // A change that is not a pure insertion never is.
    assert!(!repeats_itself("a\nb\n", "a\nc\n", |_| Some(
        "a\nb\n".into()
    )));
}

#[test]
fn a_line_break_added_at_an_edge_of_old_is_no_retry_where_the_file_has_its_own() {
    // `x` → `\nx` on `head\nx`: the break before `x` is the end of `head`, not an inserted blank
    // line. It lands; retried, the blank line it wrote is there, and it is refused.
    let (once, f) = twice(
        "head\n\u{bd}|\ntail\n",
        &edits(&[("\u{bd}|", "\n\u{bd}|")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(once, "head\n\n\u{bd}|\ntail\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // The same after: `a` → `a\n` on `x\na\ny`.
    let (once, f) = twice("x\na\ny\n", &edits(&[("a", "a\n")]), Dialect::EditsInTurn);
    assert_eq!(once, "x\na\n\ny\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // A break added after an old that ends with its own is a blank line, whatever follows.
    let (_, f) = twice(
        "a\n\tz()\nb\n",
        &edits(&[("\tz()\n", "\tz()\n\n")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // An old that starts with a line break, and content before it.
    let (_, f) = twice(
        "x\nfoo\n",
        &edits(&[("\nfoo", "\nbar\nfoo")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

#[test]
fn cases_the_seeded_test_found_stay_refused() {
    // An old of blank lines only, before lines it inserts.
    let text = "\n\nu_2 = 2\n    x = 1\n";
    let (_, f) = twice(
        text,
        &edits(&[("\n\n", "\n\n    x = 1\n")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // A blank line added after a line.
    let (once, f) = twice(
        "a\n\tz()\nb\n",
        &edits(&[("\tz()\n", "\tz()\n\n")]),
        Dialect::EditsInTurn,
    );
    assert_eq!(once, "a\n\tz()\n\nb\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // A pure insertion at the end whose lines repeat the file's last line: its new side then
    // occurs twice (overlapping), yet it stands right above the insertion point.
    let h = vec![Hunk {
        lines: vec![HunkLine::Add("\tz()".into()), HunkLine::Add("\tz()".into())],
        ..Hunk::default()
    }];
    let (once, f) = hunks_twice("return x\n\tz()\n", &h);
    assert_eq!(once, "return x\n\tz()\n\tz()\n\tz()\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// A small xorshift generator, for the seeded property tests below.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "x = 1",
    "    x = 1",
    "return x",
    "    return x",
    "}",
    "",
    "def f():",
    "    pass",
    "y = x + 1",
    "\tz()",
];

/// Texts full of repeated lines, insertions of lines that already occur elsewhere: whatever the
/// first application of an insertion does, the second never writes (the same batch meets the text
/// the first left and is refused, whatever the code).
#[test]
fn an_insertion_never_lands_twice_seeded() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut landed, mut hunks_landed) = (0, 0);
    for case in 0..3_000 {
        let n = 4 + r.below(12);
        let lines: Vec<String> = (0..n)
            .map(|i| match r.below(4) {
                0 => format!("u{case}_{i} = {i}"),
                _ => WORDS[r.below(WORDS.len())].to_string(),
            })
            .collect();
        let text = lines.join("\n") + "\n";
        let at = r.below(n);
        let len = 1 + r.below((n - at).min(3));
        let region: Vec<&str> = lines[at..at + len].iter().map(String::as_str).collect();
        let added: Vec<String> = (0..1 + r.below(2))
            .map(|k| match r.below(3) {
                0 => format!("added_{case}_{k}()"),
                _ => WORDS[r.below(WORDS.len())].to_string(),
            })
            .collect();
        let below = r.below(2) == 0;
        let new_lines: Vec<&str> = match below {
            true => region
                .iter()
                .copied()
                .chain(added.iter().map(String::as_str))
                .collect(),
            false => added
                .iter()
                .map(String::as_str)
                .chain(region.iter().copied())
                .collect(),
        };
        // Whole lines, or (one case in three) without the last line's break, ending inside a line.
        let end = if r.below(3) == 0 { "" } else { "\n" };
        let old = region.join("\n") + end;
        let new = new_lines.join("\n") + end;
        let es = [Edit::new(&old, &new)];
        if let Ok(once) = apply_batch(&text, &es, SAFE, Dialect::EditsInTurn) {
            landed += 1;
            let again = apply_batch(&once.text, &es, SAFE, Dialect::EditsInTurn);
            assert!(again.is_err(), "{text:?} {es:?} -> {:?}", once.text);
        }
        // The same change as a hunk: context on one side of the `+` lines.
        let mut hk = Hunk::default();
        for l in &new_lines {
            hk.lines
                .push(match region.contains(l) && !added.iter().any(|a| a == l) {
                    true => HunkLine::Context(l.to_string()),
                    false => HunkLine::Add(l.to_string()),
                });
        }
        let hs = [hk];
        if !grows(&hs[0]) {
            continue;
        }
        let Ok(a) = apply_hunks(&text, &hs, SAFE) else {
            continue;
        };
        if check_hunks(&text, &hs, &a.matches, SAFE).is_err() {
            continue;
        }
        hunks_landed += 1;
        let second = apply_hunks(&a.text, &hs, SAFE)
            .and_then(|b| check_hunks(&a.text, &hs, &b.matches, SAFE).map(|_| b));
        assert!(second.is_err(), "{text:?} {hs:?} -> {:?}", a.text);
    }
    // Not bought by refusing everything: most first applications land.
    assert!(
        landed > 1_000 && hunks_landed > 500,
        "{landed} {hunks_landed}"
    );
}

/// A stale deletion is no retry: its `new` is part of its `old` (a line dropped), so finding `new`
/// says nothing about whether it was applied; it stays `SEARCH_BLOCK_NOT_FOUND` (the refusal keeps
/// its candidates). A stale SEARCH deleting `delete: ...Id,` above two lines the file has.
#[test]
fn a_stale_deletion_is_not_already_applied() {
    let text = "x = {\n  open: k,\n  delete: k,\n  keys: k\n}\n";
    let e = Edit::new("  delete: kId,\n  keys: k\n}", "  keys: k\n}");
    let f = apply_batch(text, &[e], SAFE, Dialect::EditsInTurn).unwrap_err();
    assert_eq!(f.code, Code::SearchBlockNotFound, "{f:?}");
    // A stale hunk deleting a line the same way.
    let p = "*** Begin Patch\n*** Update File: a.js\n@@\n-  delete: kId,\n   keys: k\n }\n*** End Patch\n";
    let ops = parse_patch(p).unwrap();
    let FileOp::Update {
        change: Change::Hunks(h),
        ..
    } = &ops[0]
    else {
        unreachable!()
    };
    assert!(classify_hunks(text, h, Some(0), SAFE).is_none());
}

/// Found by the ground-truth fuzzer (issue #25, class G2): a substitution retried on the file its first
/// application left, where `old` still matches a near-twin of the place it changed at a tolerance
/// tier (trailing whitespace, indentation) while `new` stands exactly where it was written.
#[test]
fn a_substitution_retried_at_a_near_twin_is_already_applied() {
    // The twin differs from the changed lines in a trailing space only.
    let once = "fn a() {\n    let n = n + 80;\n}\nfn b() {\n    let n = n + 79; \n}\n";
    let es = edits(&[("    let n = n + 79;\n}\n", "    let n = n + 80;\n}\n")]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied to the twin");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("lines 2-3"), "{}", f.message);
    // The twin is indented differently: an old that starts inside the first line's indentation.
    let once =
        "        for t in range7(48):\n            pass\n    for t in range(48):\n        pass\n";
    let es = edits(&[("     for t in range(48):", "     for t in range7(48):")]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied to the twin");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // An edit that makes a line like one the file already has, whose old matched at a tier (tabs
    // sent as spaces): `new` as sent is not in the file, only the file's spelling of it; it lands.
    let text =
        "switch (n) {\n\tcase 1:\n\t\treturn T[4 + 1];\n\tcase 2:\n\t\treturn T[4 + 2];\n}\n";
    let es = edits(&[("        return T[4 + 1];\n", "        return T[4 + 2];\n")]);
    let out = crate::edit::apply::apply_edits(text, &es, SAFE).expect("lands");
    assert_eq!(out.text, text.replacen("4 + 1", "4 + 2", 1));
    // A change that only removes lines is never inferred as applied.
    let text = "    '''\n    Start it\n    '''\n    x = 1\n";
    let es = edits(&[(
        "    \u{2018}\u{2019}\u{2018}\n    Start it",
        "    \u{2018}\u{2019}\u{2018}",
    )]);
    let out = crate::edit::apply::apply_edits(text, &es, SAFE).expect("lands");
    assert_eq!(out.text, "    '''\n    '''\n    x = 1\n");
}

/// G2: a deletion of a middle line retried. The first application left the block it keeps at the
/// place it was written; `old` now matches only an indented twin that still holds the deleted line
/// (the indentation tier). Ground truth seed 25, patch_file retries (shrunk).
#[test]
fn a_deletion_retried_at_a_near_twin_is_already_applied() {
    let once = "impl A {\n    pub fn delta() {\n        a();\n        b();\n        c();\n    }\n}\n\npub fn delta() {\n    a();\n    b();\n}\n";
    let es = edits(&[(
        "pub fn delta() {\n    a();\n    b();\n    c();\n}",
        "pub fn delta() {\n    a();\n    b();\n}",
    )]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied to the twin");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // The first application itself (the top-level copy still holds c()) lands there, exactly.
    let first = once.replace("    b();\n}\n", "    b();\n    c();\n}\n");
    let out = crate::edit::apply::apply_edits(&first, &es, SAFE).expect("lands");
    assert_eq!(out.text, once);
    // A deletion that keeps one line leaves nothing to tell a result from another copy: it lands on
    // the twin, as before.
    let es = edits(&[("pub fn delta() {\n    c();", "pub fn delta() {")]);
    let text = "impl A {\n    pub fn delta() {\n        c();\n    }\n}\npub fn delta() {\n}\n";
    let out = crate::edit::apply::apply_edits(text, &es, SAFE).expect("lands");
    assert!(
        out.text
            .starts_with("impl A {\n    pub fn delta() {\n    }\n"),
        "{}",
        out.text
    );
}

/// G2: an insertion matched at the blank_edges tier (old and new end with a blank line the file
/// does not have there), and one whose old carries a view's line-number prefix.
#[test]
fn insertions_retried_at_the_blank_edges_and_line_prefix_tiers_are_already_applied() {
    let text = "fn f() {\n        return item;\n    }\n    other();\n";
    let es = edits(&[(
        "        return item;\n    }\n\n",
        "        return item;\n    }\n    log(1);\n\n",
    )]);
    let (once, f) = twice(text, &es, Dialect::EditsInTurn);
    assert_eq!(
        once,
        "fn f() {\n        return item;\n    }\n    log(1);\n    other();\n"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    let es = edits(&[(
        "    12\u{2192}func delta(size int) int {",
        "func delta(size int) int {\n\tname = 84",
    )]);
    let mut text = "package main\n".repeat(11);
    text.push_str("func delta(size int) int {\n\treturn idx\n}\n");
    let (once, f) = twice(&text, &es, Dialect::EditsInTurn);
    assert!(
        once.contains("int {\n\tname = 84\n\treturn idx\n"),
        "{once}"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// G2: an `editLines` `replace` that keeps its range's lines and adds lines after (or before) them,
/// retried: its anchors are unchanged, so it matched again and added the lines a second time.
#[test]
fn an_edit_lines_replace_that_only_grows_its_range_is_not_applied_twice() {
    use crate::edit::line_edit::{Anchor, Kind, LineOp};
    let op = |s: usize, e: usize, lines: &[&str]| LineOp {
        kind: Kind::Replace,
        start: Anchor {
            line: s,
            tag: String::new(),
        },
        end: Some(Anchor {
            line: e,
            tag: String::new(),
        }),
        lines: lines.iter().map(|l| l.to_string()).collect(),
    };
    let text = "a\n\nfunc beta() {\n\tr = 92\n\treturn r\n}\n";
    let lt = LineTable::new(text);
    // Lines 2-3 grown by the line after them: it stands there already.
    let f = reapplied_line_ops(&lt, text, &[op(2, 3, &["", "func beta() {", "\tr = 92"])])
        .expect("applied twice");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Grown by a line before them.
    let f = reapplied_line_ops(&lt, text, &[op(2, 3, &["a", "", "func beta() {"])]);
    assert_eq!(f.map(|f| f.code), Some(Code::AlreadyApplied));
    // A line not yet there, a replacement that changes its range, or only a blank line added: pending.
    for o in [
        op(2, 3, &["", "func beta() {", "\tr = 93"]),
        op(3, 4, &["func beta() {", "\tr = 1", "\treturn r"]),
        op(3, 3, &["func beta() {", ""]),
        op(3, 3, &["", "func beta() {"]),
    ] {
        assert!(reapplied_line_ops(&lt, text, &[o]).is_none());
    }
}

/// G2: a hunk that inserts between a line and a blank context line matches its own result at the
/// blank_edges tier (the blank line trimmed); read that way, its new side stands there.
#[test]
fn a_hunk_with_blank_context_retried_at_the_blank_edges_tier_is_already_applied() {
    let text = "CC = gcc\nDEST    = /usr/local/etc\n\nclean:\n\trm -f app\n";
    let h = diff_hunks("--- a/Makefile\n+++ b/Makefile\n@@ -2,2 +2,3 @@\n DEST    = /usr/local/etc\n+\trm -f name.o\n \n");
    let (once, f) = hunks_twice(text, &h);
    assert!(
        once.contains("DEST    = /usr/local/etc\n\trm -f name.o\n\nclean:"),
        "{once}"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // The blank context line above the added line.
    let h = patch_hunks(
        "*** Begin Patch\n*** Update File: Makefile\n@@\n \n+# targets\n clean:\n*** End Patch\n",
    );
    let (once, f) = hunks_twice(text, &h);
    assert!(once.contains("\n\n# targets\nclean:\n"), "{once}");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// G2: an edit that only deletes a line break at an edge of its text deletes a blank line; where
/// none is left it is already applied, never a join of two lines or a dropped final line break.
#[test]
fn a_blank_line_deleted_twice_is_already_applied() {
    let text = "all: app\n\trm -f item.o\n\ntest: main.o\n";
    // Read through escaped line breaks (unescaped), a view's line numbers (line_prefix), or with the
    // blank line copied (blank_edges).
    for (old, new, code) in [
        ("\\ntest: main.o", "test: main.o", Code::AlreadyApplied),
        (
            "  2 | \trm -f item.o\n  3 | ",
            "\trm -f item.o",
            Code::AlreadyApplied,
        ),
        ("\trm -f item.o\n\n", "\trm -f item.o\n", Code::NoChanges),
    ] {
        let es = edits(&[(old, new)]);
        let (once, f) = twice(text, &es, Dialect::EditsInTurn);
        assert_eq!(once, "all: app\n\trm -f item.o\ntest: main.o\n");
        assert_eq!(f.code, code, "{old:?}: {f}");
    }
    // At the end of the file, through a view: the final line break is no blank line.
    let f = plan_edits(
        "x = 1\npackage main\n",
        &edits(&[("  2 | package main\n  3 | ", "package main")]),
        SAFE,
    )
    .expect_err("the final line break dropped");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Matched byte for byte as sent, the bytes decide: the line break is removed as asked.
    let es = edits(&[("package main\n", "package main")]);
    let out = crate::edit::apply::apply_edits("package main\n", &es, SAFE).expect("lands");
    assert_eq!(out.text, "package main");
    // A blank line at the top of the file is one.
    let out = crate::edit::apply::apply_edits("\nx = 1\n", &edits(&[("\nx = 1", "x = 1")]), SAFE)
        .expect("lands");
    assert_eq!(out.text, "x = 1\n");
}

/// G2 (ground truth seed 31 case 535968): the blank line's deletion retried where the line above
/// ends with trailing whitespace (`}\t`): the blank first line of `old` matched that whitespace, so
/// the text removed was the tab and the break, a join of `}` and `load() {`. The break with the
/// trailing whitespace of the line it ends is still one break: already applied, at every tier.
#[test]
fn a_blank_line_deleted_twice_beside_trailing_whitespace_is_already_applied() {
    let text = "fi
}\t\n\nload() {\n    echo \"config\"\n    rm -f x.tmp\n}\n";
    for old in [
        "\nload() {\n    echo \"config\"\n    rm -f x.tmp\n",
        "\nload() {\n    echo “config”\n    rm -f x.tmp\n",
    ] {
        let new = old.trim_start_matches('\n');
        let es = edits(&[(old, new)]);
        let (once, f) = twice(text, &es, Dialect::EditsInTurn);
        assert_eq!(
            once,
            "fi\n}\t\nload() {\n    echo \"config\"\n    rm -f x.tmp\n}\n"
        );
        assert_eq!(f.code, Code::AlreadyApplied, "{old:?}: {f}");
        // The file after the retry was refused: unchanged.
        assert!(crate::edit::apply::apply_edits(&once, &es, SAFE).is_err());
    }
    // A whitespace-only line is a blank line: deleted as asked.
    let text = "fi\n}\n\t\nload() {\n";
    let es = edits(&[("\t\nload() {", "load() {")]);
    let out = crate::edit::apply::apply_edits(text, &es, SAFE).expect("lands");
    assert_eq!(out.text, "fi\n}\nload() {\n");
}

/// G2: the deletion of a blank line sent again and matched byte for byte (ground truth seed 25,
/// cases 425591, 580321 and six more of the 1M run): the break it removes stands between two lines
/// that show text, so no blank line is left and writing it would join them (`import osclass
/// Delta:`). A break with a blank, whitespace-only or missing line on its other side is still
/// removed as asked.
#[test]
fn a_blank_line_deleted_twice_as_sent_is_already_applied() {
    let text = "import os\n\nclass Delta:\n    x = 1\n";
    for (old, new) in [
        ("\nclass Delta:", "class Delta:"),
        ("import os\n", "import os"),
        ("\r\nclass Delta:", "class Delta:"),
    ] {
        let es = edits(&[(old, new)]);
        let text = match old.contains('\r') {
            true => text.replace('\n', "\r\n"),
            false => text.to_string(),
        };
        let once = crate::edit::apply::apply_edits(&text, &es, SAFE)
            .expect("the blank line deleted")
            .text;
        assert_eq!(
            once.replace('\r', ""),
            "import os\nclass Delta:\n    x = 1\n"
        );
        let f = plan_edits(&once, &es, SAFE).expect_err("two lines joined");
        assert_eq!(f.code, Code::AlreadyApplied, "{old:?}: {f}");
        assert!(f.message.contains("lines 1-"), "{}", f.message);
    }
    // A whitespace-only line before the break is a blank line a view shows: deleted.
    let out = crate::edit::apply::apply_edits(
        "import os\n   \nclass Delta:\n",
        &edits(&[("\nclass Delta:", "class Delta:")]),
        SAFE,
    )
    .expect("lands");
    assert_eq!(out.text, "import os\nclass Delta:\n");
    // The file's final line break, asked for by bytes, is removed.
    let out = crate::edit::apply::apply_edits(
        "import os\nclass Delta:\n",
        &edits(&[("class Delta:\n", "class Delta:")]),
        SAFE,
    )
    .expect("lands");
    assert_eq!(out.text, "import os\nclass Delta:");
}

/// G2: a one-line substitution retried where its `old` is found only inside a longer word (the
/// changed line's twin `rm -f x.o8`), while `new` as sent stands as it was written: already applied.
#[test]
fn a_substitution_retried_inside_a_longer_word_is_already_applied() {
    let once = "clean:\n\trm -f über.o\n\trm -f x.o8\n";
    let es = edits(&[("\trm -f x.o", "\trm -f über.o")]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied inside x.o8");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Without the result in the file, a match inside a word still lands (substring semantics).
    let out = crate::edit::apply::apply_edits(
        "\trm -f x.o8\n",
        &edits(&[("\trm -f x.o", "\trm -f y.o")]),
        SAFE,
    )
    .expect("lands");
    assert_eq!(out.text, "\trm -f y.o8\n");
}

/// G2: a hunk retried at a near-twin of the place it landed (ground truth seed 25, `apply_patch`
/// and unified-diff retries, shrunk). The first application matched the intended place; the retry
/// matches only its twin, at a tolerance tier, while the hunk's new side stands where it was
/// written, read with strictly fewer liberties.
#[test]
fn a_hunk_retried_at_a_near_twin_is_already_applied() {
    // An indented twin (the indentation tier).
    let text = "impl A {\n    fn save() {\n        if x > 8 {\n            return x;\n        }\n    }\n}\nfn save() {\n    if x > 8 {\n        return x;\n    }\n}\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: a.rs\n@@\n fn save() {\n     if x > 8 {\n-        return x;\n+        config x;\n     }\n }\n*** End Patch\n");
    let (once, f) = hunks_twice(text, &h);
    assert!(
        once.ends_with("fn save() {\n    if x > 8 {\n        config x;\n    }\n}\n"),
        "{once}"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("lines 8-12"), "{}", f.message);
    // A twin with trailing whitespace (the trailing-whitespace tier), a unified diff.
    let text = "a:\n  x: 1 \n  y: 2\nb:\n  x: 1\n  y: 2\n";
    let h =
        diff_hunks("--- a/c.yaml\n+++ b/c.yaml\n@@ -4,3 +4,4 @@\n b:\n   x: 1\n+  z: 3\n   y: 2\n");
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "a:\n  x: 1 \n  y: 2\nb:\n  x: 1\n  z: 3\n  y: 2\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // Smartened quotes (typography) at an indented twin: the new side stands read through the
    // typography liberty alone, the twin needs indentation too.
    let text = "    log(\"a\")\n    run()\nlog(\"a\")\nrun()\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: a.py\n@@\n log(\u{201c}a\u{201d})\n-run()\n+run(1)\n*** End Patch\n");
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "    log(\"a\")\n    run()\nlog(\"a\")\nrun(1)\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// G2 (ground truth seed 43 case 979690, shrunk): a hunk retried in the composed normal form. It
/// landed where its numbers point, a method whose context line spells `é` decomposed; retried, its
/// old side is found only at the top-level twin, through indentation. Its new side stands at the
/// method but for the normal form of a context line, which no view shows: closer than the twin,
/// already applied. The same hunk sent first to the file lands at the method; and a line changed
/// to one that stands elsewhere only in the other normal form, as its old side does (no liberty a
/// view shows on either side), is no evidence: the edit lands.
#[test]
fn a_hunk_retried_in_the_other_normal_form_is_already_applied() {
    let text = "impl A {\n    fn f() {\n        p(\"cafe\u{301}\");\n        let x = 1;\n    }\n}\nfn f() {\n    p(\"caf\u{e9}\");\n    let x = 1;\n}\n";
    let h = diff_hunks("--- a/a.rs\n+++ b/a.rs\n@@ -2,4 +2,4 @@\n     fn f() {\n         p(\"caf\u{e9}\");\n-        let x = 1;\n+        let y = 2;\n     }\n");
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "impl A {\n    fn f() {\n        p(\"cafe\u{301}\");\n        let y = 2;\n    }\n}\nfn f() {\n    p(\"caf\u{e9}\");\n    let x = 1;\n}\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("lines 2-5"), "{}", f.message);
    // Both places at the same depth, a line changed without context, the result standing only in
    // the other normal form, as the old side does: no evidence.
    let text = "fn f() {\n    s = \"cafe\u{301} y\";\n}\nfn g() {\n    s = \"cafe\u{301} x\";\n}\n";
    let h = diff_hunks("--- a/a.rs\n+++ b/a.rs\n@@ -5,1 +5,1 @@\n-    s = \"caf\u{e9} x\";\n+    s = \"caf\u{e9} y\";\n");
    let a = apply_hunks(text, &h, SAFE).unwrap();
    check_hunks(text, &h, &a.matches, SAFE).unwrap();
    assert!(
        a.text
            .ends_with("fn g() {\n    s = \"cafe\u{301} y\";\n}\n"),
        "{}",
        a.text
    );
}

/// G2: an insertion whose added lines were written at the file's columns beside a context copied
/// without its indentation (noise `indent_abs`): no tier reads the new side as one block, so it is
/// read line by line through the liberty the context needed (ground truth seed 25, shrunk).
#[test]
fn an_insertion_written_in_two_frames_is_not_applied_twice() {
    let text = "dist: a.o\n\trm -f y.o\nclean:\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: Makefile\n@@\n rm -f y.o\n+\t$(CC) -o app y.o\n*** End Patch\n");
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "dist: a.o\n\trm -f y.o\n\t$(CC) -o app y.o\nclean:\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    let text = "func f() {\n\ta()\n\tb()\n}\n";
    let h = diff_hunks("--- a/m.go\n+++ b/m.go\n@@ -2,2 +2,3 @@\n a()\n b()\n+\treturn r\n");
    let (once, f) = hunks_twice(text, &h);
    assert_eq!(once, "func f() {\n\ta()\n\tb()\n\treturn r\n}\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// G2: `{old, new}` edits retried at a near-twin whose `new` is not found as sent: it stands read
/// through the liberty the model's text needs everywhere (smartened quotes, tabs for spaces, a
/// blank line added at an edge), while `old` needs that one and the twin's difference too.
#[test]
fn edits_retried_at_a_twin_are_recognised_through_the_readings_old_was_read_through() {
    // Smartened quotes; the twin is indented.
    let once = "    say(\"hi\")\n    x = 1\nsay(\"hi\")\nx = 2\n";
    let es = edits(&[(
        "say(\u{201c}hi\u{201d})\nx = 1",
        "say(\u{201c}hi\u{201d})\nx = 2",
    )]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied to the twin");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("lines 3-4"), "{}", f.message);
    // The first application lands at the place it was written.
    let first = once.replace("x = 2", "x = 1");
    let out = crate::edit::apply::apply_edits(&first, &es, SAFE).expect("lands");
    assert_eq!(out.text, once);
    // Tabs sent for spaces; the twin has a trailing space too.
    let once = "def f():\n    a = 1\n    b = 3\n\ndef f():\n    a = 1 \n    b = 2\n";
    let es = edits(&[("def f():\n\ta = 1\n\tb = 2", "def f():\n\ta = 1\n\tb = 3")]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied to the twin");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // A blank line added before both sides (the blank_edges tier); the twin is indented.
    let once = "x = 0\n\nfn a() {\n    go(2);\n}\n  fn a() {\n      go(1);\n  }\n";
    let es = edits(&[("\nfn a() {\n    go(1);\n}", "\nfn a() {\n    go(2);\n}")]);
    let f = plan_edits(once, &es, SAFE).expect_err("applied to the twin");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// What the twin rules must leave alone: an edit that makes a block like another one, read through
/// the same liberty on both sides (the same lines at another depth, `robust-dev` tabs_spaces-007's
/// shape over several lines), or matched exactly, lands.
#[test]
fn edits_that_make_a_block_like_another_still_land() {
    // Spaces sent for the file's tabs; the block it makes stands elsewhere, in tabs.
    let text = "f() {\n\tif a {\n\t\treturn 1;\n\t}\n}\ng() {\n\tif a {\n\t\treturn 2;\n\t}\n}\n";
    let es = edits(&[(
        "    if a {\n        return 1;",
        "    if a {\n        return 2;",
    )]);
    let out = crate::edit::apply::apply_edits(text, &es, SAFE).expect("lands");
    assert_eq!(out.text, text.replacen("return 1", "return 2", 1));
    // Matched exactly, its result standing elsewhere exactly: a copy made on purpose.
    let text = "if a:\n    x = 1\nif a:\n    x = 2\n";
    let es = edits(&[("if a:\n    x = 1", "if a:\n    x = 2")]);
    let out = crate::edit::apply::apply_edits(text, &es, SAFE).expect("lands");
    assert_eq!(out.text, "if a:\n    x = 2\nif a:\n    x = 2\n");
    // A hunk that deletes a line, read with an indentation shift, making a block like a deeper one.
    let text = "    }\n}\n\nimpl D {\n        fn r() {\n            a();\n\n    fn p() {\n        b();\n    }\n}\n\nfn r() {\n    a();\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: a.rs\n@@\n         }\n     }\n \n-    impl D {\n             fn r() {\n                 a();\n*** End Patch\n");
    let a = apply_hunks(text, &h, SAFE).expect("lands");
    check_hunks(text, &h, &a.matches, SAFE).expect("not a retry");
}

/// G2: an insertion whose `+` lines were written at the file's columns beside context copied
/// without its indentation (ground truth seed 25, unified diffs 583017 and 590783 of the 1M run,
/// shrunk): retried, its context matches through the indentation liberty with an added line among
/// it, and its new side stands there read through the same liberty (the context line and the
/// added line it repeats are one line in two frames).
#[test]
fn an_insertion_in_two_frames_retried_over_its_own_line_is_already_applied() {
    let h = diff_hunks("--- a/s.sh\n+++ b/s.sh\n@@ -1,3 +1,4 @@\n rm -idx count.tmp\n echo \"fin\"\n+    rm -f retries.tmp\n rm -f retries.tmp\n");
    let (once, f) = hunks_twice(
        "    rm -idx count.tmp\n    echo \"fin\"\n    rm -f retries.tmp\n",
        &h,
    );
    assert_eq!(
        once,
        "    rm -idx count.tmp\n    echo \"fin\"\n    rm -f retries.tmp\n    rm -f retries.tmp\n"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    let h = diff_hunks("--- a/s.js\n+++ b/s.js\n@@ -1,2 +1,5 @@\n }\n+    if (idx > 12) {\n+      run();\n+    }\n const offset = 53;\n");
    let (once, f) = hunks_twice("  f() {\n    }\n    const offset = 53;\n  }\n", &h);
    assert_eq!(
        once,
        "  f() {\n    }\n    if (idx > 12) {\n      run();\n    }\n    const offset = 53;\n  }\n"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// G2: an insertion between two context lines, the first with trailing whitespace, that repeats
/// that line without it (ground truth seed 25 case 576409, shrunk): retried, the context matches
/// the added line and the next at the trailing-whitespace tier, while the whole new side stands
/// exactly over that match, one line wider.
#[test]
fn an_insertion_retried_over_the_line_it_added_is_already_applied() {
    let h = patch_hunks("*** Begin Patch\n*** Update File: s.sh\n@@ update\n     rm -f value.tmp\t\n+    rm -f value.tmp\n     rm -f x.tmp\n*** End Patch\n");
    let (once, f) = hunks_twice(
        "update() {\n    rm -f value.tmp\t\n    rm -f x.tmp\n}\n",
        &h,
    );
    assert_eq!(
        once,
        "update() {\n    rm -f value.tmp\t\n    rm -f value.tmp\n    rm -f x.tmp\n}\n"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("lines 2-4"), "{}", f.message);
}

/// G2: a hunk replacing a blank line, retried where the blank line is gone (ground truth seed 25
/// case 381308, shrunk): the `blank_edges` tier matches it without its blank `-` line, so it would
/// insert its line again; read so, its new side stands there.
#[test]
fn a_blank_line_replaced_twice_is_already_applied() {
    let h = diff_hunks(
        "--- a/Makefile\n+++ b/Makefile\n@@ -1,2 +1,2 @@\n-\n+\trm -f value.o\n build: main.o\n",
    );
    let (once, f) = hunks_twice("DEST = /usr\n\nbuild: main.o\n", &h);
    assert_eq!(once, "DEST = /usr\n\trm -f value.o\nbuild: main.o\n");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
}

/// G2: a hunk deleting the last lines of a block, retried at its indented twin (ground truth seed
/// 25 case 273980, shrunk): the block it keeps, three lines and more, stands exactly where the
/// first application left it, closer to the hunk's text than the twin its old side matched
/// through the indentation liberty. Two kept lines are too few to tell a result from lines two
/// places share: that deletion still lands.
#[test]
fn a_hunk_deleting_a_blocks_last_lines_retried_at_a_twin_is_already_applied() {
    let text = "impl D {\n    fn update() {\n        let a = 1;\n        log(a);\n        return a;\n        push(a);\n    }\n}\n\nfn update() {\n    let a = 1;\n    log(a);\n    return a;\n    push(a);\n}\n";
    let h = diff_hunks("--- a/lib.rs\n+++ b/lib.rs\n@@ -10,6 +10,4 @@\n fn update() {\n     let a = 1;\n     log(a);\n     return a;\n-    push(a);\n-}\n");
    let (once, f) = hunks_twice(text, &h);
    assert!(
        once.ends_with("}\n\nfn update() {\n    let a = 1;\n    log(a);\n    return a;\n"),
        "{once}"
    );
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    assert!(f.message.contains("lines 10-13"), "{}", f.message);
    let h = diff_hunks("--- a/lib.rs\n+++ b/lib.rs\n@@ -10,3 +10,2 @@\n     let a = 1;\n     log(a);\n-    return a;\n");
    let text = "impl D {\n    fn update() {\n        let a = 1;\n        log(a);\n        return a;\n    }\n}\n\nfn update() {\n    let a = 1;\n    log(a);\n}\n";
    let a = apply_hunks(text, &h, SAFE).expect("lands at the indented block");
    check_hunks(text, &h, &a.matches, SAFE).expect("two kept lines: not a retry");
    // The kept lines stand in another block too, but no closer to the hunk's text than where it
    // matched (a trailing tab there, an alignment run here; ground truth seed 25 case 27996): a
    // deletion that lands.
    let text = "int a() {\n    if (x) {\n        return 1;\n    }\t\n    if (y) {\n        z     = 2;\n    }\n}\n\n    if (x) {\n        return 1;\n    }\n    if (y) {\n        z     = 7;\n    }\n";
    let h = diff_hunks("--- a/m.c\n+++ b/m.c\n@@\n         return 1;\n     }\n     if (y) {\n-        z = 7;\n-    }\n");
    let a = apply_hunks(text, &h, SAFE).expect("lands at the inline_whitespace tier");
    assert!(a.text.ends_with("    }\n    if (y) {\n"), "{}", a.text);
    check_hunks(text, &h, &a.matches, SAFE).expect("kept lines shared as shown: not a retry");
    // Kept lines that are closing braces and one short line are lines every block shares, exact
    // elsewhere or not (ground truth seed 11 case 21416): the deletion lands.
    let text = "class D {\n  check() {\n    const t = 75;\n    return t;\n  }  \n}\n\nfunction g() {\n  if (x) {\n    return t;\n  }\n}\n";
    let h = patch_hunks("*** Begin Patch\n*** Update File: s.js\n@@ class D {\n-  check() {\n-    const t = 75;\n     return t;\n   }\n }\n*** End Patch\n");
    let a = apply_hunks(text, &h, SAFE).expect("lands at the trailing_whitespace tier");
    assert!(
        a.text.starts_with("class D {\n    return t;\n  }  \n}\n"),
        "{}",
        a.text
    );
    check_hunks(text, &h, &a.matches, SAFE).expect("braces and one line: not a retry");
}

/// Lines deleted from one end of a block, retried: the kept lines (three with words) stand exactly
/// where the first application left them, and `old` is found only at an indented twin that still
/// holds the deleted line. Already applied; the same deletion sent to the text before lands once.
#[test]
fn an_edge_deletion_retried_at_an_indented_twin_is_already_applied() {
    let block = "fn check() {\n    a();\n    b();\n    return c;\n}";
    let twin = "    fn check() {\n        a();\n        b();\n        return c;\n    }";
    let text = format!("{block}\n\nmod m {{\n{twin}\n}}\n");
    let es = edits(&[(block, "fn check() {\n    a();\n    b();\n    return c;")]);
    let (once, again) = twice(&text, &es, Dialect::EditsInTurn);
    assert!(once.starts_with("fn check() {\n    a();\n    b();\n    return c;\n\nmod m"));
    assert_eq!(again.code, Code::AlreadyApplied);
    // Two kept lines with words are lines any two blocks may share: no evidence, it lands.
    let short = "fn f() {\n    a();\n}\n\nmod m {\n    fn f() {\n        a();\n    }\n}\n";
    let (o, n) = ("fn f() {\n    a();\n}", "fn f() {\n    a();");
    let once = apply_batch(short, &edits(&[(o, n)]), SAFE, Dialect::EditsInTurn)
        .unwrap()
        .text;
    assert!(apply_batch(&once, &edits(&[(o, n)]), SAFE, Dialect::EditsInTurn).is_ok());
}

/// G2 (ground truth seed 27 case 200226, shrunk): a method's last line deleted where the hunk was
/// written (at the file's columns), retried: the hunk's kept lines stand there as sent (a trailing
/// space aside, which no view shows), and its old side is found only at a copy nested eight columns
/// deeper, through the indentation liberty. Already applied. The same hunk sent to the text before
/// lands once; and where the kept lines stand elsewhere only at another depth (a view shows the
/// difference), the deletion at the indented copy is a fresh edit and lands.
#[test]
fn an_edge_deletion_retried_where_its_kept_lines_stand_as_sent_is_already_applied() {
    let nested = "class S:\n    def check(self):\n        pass\n\n        def save(self, y):\n            log(y)\n            retries = y + 13\n            timeout = y + 4\n            return y\n\n";
    let text = format!("{nested}def save(self, y):\n    log(y)\n    retries = y + 13  \n    timeout = y + 4\n    return y\n");
    let h = diff_hunks("--- a/app.py\n+++ b/app.py\n@@ ... @@\n \n def save(self, y):\n     log(y)\n     retries = y + 13\n     timeout = y + 4\n-    return y\n");
    let (once, f) = hunks_twice(&text, &h);
    assert!(once.ends_with("    timeout = y + 4\n"), "{once}");
    assert!(once.starts_with(nested), "{once}");
    assert_eq!(f.code, Code::AlreadyApplied, "{f}");
    // The kept lines elsewhere only at another depth: the nested copy's deletion lands.
    let text = format!(
        "{nested}def save(self, y):\n      log(y)\n      retries = y + 13\n      timeout = y + 4\n"
    );
    let a = apply_hunks(&text, &h, SAFE).expect("lands at the nested copy");
    assert!(a.text.starts_with("class S:\n    def check(self):\n        pass\n\n        def save(self, y):\n            log(y)\n            retries = y + 13\n            timeout = y + 4\n\n"), "{}", a.text);
    check_hunks(&text, &h, &a.matches, SAFE)
        .expect("kept lines shown elsewhere at another depth: not a retry");
}
