use super::*;
use serde_json::json;

/// Replaces the single occurrence of `from` in `before` by `to`; returns the result and its span.
fn replace(before: &str, from: &str, to: &str) -> (String, Vec<(usize, usize, usize, usize)>) {
    assert_eq!(before.matches(from).count(), 1, "{from:?} must occur once");
    let os = before.find(from).unwrap();
    let after = format!("{}{}{}", &before[..os], to, &before[os + from.len()..]);
    (after, vec![(os, os + from.len(), os, os + to.len())])
}

/// Applies several (from, to) replacements at once, like a batch of edits on the original.
fn replace_all(
    before: &str,
    edits: &[(&str, &str)],
) -> (String, Vec<(usize, usize, usize, usize)>) {
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|(from, to)| {
            assert_eq!(before.matches(from).count(), 1, "{from:?} must occur once");
            let os = before.find(from).unwrap();
            (os, os + from.len(), *to)
        })
        .collect();
    spans.sort();
    let mut after = String::new();
    let mut changes = Vec::new();
    let mut pos = 0;
    for (os, oe, to) in spans {
        after.push_str(&before[pos..os]);
        let ns = after.len();
        after.push_str(to);
        changes.push((os, oe, ns, after.len()));
        pos = oe;
    }
    after.push_str(&before[pos..]);
    (after, changes)
}

/// Checks with every strategy, asserts they agree (full and incremental parses, from the cache or not),
/// and returns the report.
fn gate(
    path: &str,
    before: &str,
    after: &str,
    changes: &[(usize, usize, usize, usize)],
) -> SyntaxReport {
    let report = check(path, before, after, changes);
    for strategy in [
        Strategy::AfterFirst,
        Strategy::BeforeFirst,
        Strategy::Full,
        Strategy::Cached,
    ] {
        assert_eq!(
            check_with(path, before, after, changes, strategy),
            report,
            "{strategy:?} disagrees on {path}"
        );
    }
    report
}

/// Edits `before` and returns the report, asserting the original parses clean against itself.
fn edit(path: &str, before: &str, from: &str, to: &str) -> SyntaxReport {
    let (after, changes) = replace(before, from, to);
    gate(path, before, &after, &changes)
}

/// The report of an edit that must be refused under "enforce": not ok, at least one new error, the
/// first at `line`, and a message that shows it.
fn assert_breaks(r: &SyntaxReport, language: &str, line: usize) {
    assert_eq!(r.language, Some(language), "{r:?}");
    assert_eq!(r.skipped, None);
    assert!(!r.ok, "expected a new error: {r:?}");
    assert!(!r.new_errors.is_empty());
    assert_eq!(r.new_errors[0].line, line, "{r:?}");
}

fn assert_clean(r: &SyntaxReport, language: &str) {
    assert_eq!(r.language, Some(language), "{r:?}");
    assert_eq!(r.skipped, None);
    assert!(r.ok, "expected no new error: {r:?}");
    assert!(r.new_errors.is_empty());
}

// ---- language_for ---------------------------------------------------------------------------------

#[test]
fn languages_by_extension() {
    let table = [
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("a.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("types/index.d.ts", "typescript"),
        ("a.tsx", "tsx"),
        ("a.py", "python"),
        ("a.pyi", "python"),
        ("src/lib.rs", "rust"),
        ("main.go", "go"),
        ("package.json", "json"),
        ("a.c", "c"),
        ("a.h", "cpp"),
        ("a.cpp", "cpp"),
        ("a.cc", "cpp"),
        ("a.hpp", "cpp"),
        ("A.java", "java"),
        ("DIR\\SUB\\MAIN.PY", "python"),
        ("Component.TSX", "tsx"),
    ];
    for (path, language) in table {
        assert_eq!(language_for(path), Some(language), "{path}");
    }
    for path in [
        "README.md",
        "Makefile",
        ".json",
        "dir.py/file",
        "a.",
        "a.rb",
        "",
    ] {
        assert_eq!(language_for(path), None, "{path}");
    }
    assert_eq!(
        languages(),
        [
            "javascript",
            "typescript",
            "tsx",
            "python",
            "rust",
            "go",
            "json",
            "c",
            "cpp",
            "java"
        ]
    );
}

// ---- skips -----------------------------------------------------------------------------------------

#[test]
fn unknown_extension_is_skipped() {
    let r = gate("notes.txt", "a (", "a ((", &[(3, 3, 3, 4)]);
    assert_eq!(r.language, None);
    assert_eq!(r.skipped, Some("unknown_language"));
    assert!(r.ok);
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"language": null, "skipped": "unknown_language"})
    );
}

#[test]
fn file_above_the_cap_is_skipped() {
    let line = "x = (1 + 2)\n";
    let before = line.repeat(MAX_BYTES / line.len() + 1);
    let after = format!("{before}y = (\n");
    let r = check("big.py", &before, &after, &[]);
    assert_eq!(r.skipped, Some("too_large"));
    assert!(r.ok);
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"language": "python", "skipped": "too_large"})
    );
    // The larger of the two texts counts: a small file grown past the cap is skipped too.
    let r = check("big.py", "", &before, &[]);
    assert_eq!(r.skipped, Some("too_large"));
}

#[test]
fn parse_past_the_deadline_is_skipped() {
    let before = "x = [1, 2, 3]\n".repeat(20_000);
    let after = format!("{before}y = (\n");
    let changes = normalize_changes(&before, &after, &[]);
    let past = std::time::Instant::now()
        .checked_sub(Duration::from_secs(1))
        .unwrap_or_else(std::time::Instant::now);
    std::thread::sleep(Duration::from_millis(2));
    let r = run("python", &before, &after, &changes, Strategy::Cached, past);
    assert_eq!(r.skipped, Some("timeout"));
    assert!(r.ok);
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"language": "python", "skipped": "timeout"})
    );
}

// ---- per language: a clean file broken by an edit ---------------------------------------------------

const JS: &str = "import fs from 'fs'\n\nfunction read(path) {\n  const text = fs.readFileSync(path, 'utf8')\n  return text.split('\\n')\n}\n\nexport default read\n";

#[test]
fn javascript_missing_paren() {
    let r = edit(
        "src/read.js",
        JS,
        "fs.readFileSync(path, 'utf8')",
        "fs.readFileSync(path, 'utf8'",
    );
    assert_breaks(&r, "javascript", 4);
    // The ERROR node starts at the statement; it is shown where the `)` was deleted.
    assert_eq!(r.new_errors[0].kind, "error");
    assert_eq!(r.new_errors[0].column, 44);
    assert_eq!(
        r.new_errors[0].snippet,
        "  const text = fs.readFileSync(path, 'utf8'"
    );
    assert_clean(
        &edit("src/read.mjs", JS, "'utf8'", "'latin1'"),
        "javascript",
    );
}

#[test]
fn jsx_unclosed_element() {
    let before = "export function App() {\n  return (\n    <div className=\"app\">\n      <p>hi</p>\n    </div>\n  )\n}\n";
    assert_breaks(
        &edit("App.jsx", before, "<p>hi</p>", "<p>hi"),
        "javascript",
        4,
    );
    assert_clean(
        &edit("App.jsx", before, "<p>hi</p>", "<p>hello</p>"),
        "javascript",
    );
}

const TS: &str = "interface Point {\n  x: number\n  y: number\n}\n\nexport function norm(p: Point): number {\n  return Math.sqrt(p.x * p.x + p.y * p.y)\n}\n";

#[test]
fn typescript_missing_paren() {
    let r = edit("geo.ts", TS, "Math.sqrt(p.x", "Math.sqrt((p.x");
    assert_breaks(&r, "typescript", 7);
    assert_clean(
        &edit("geo.mts", TS, "y: number\n", "y: number\n  z?: number\n"),
        "typescript",
    );
}

#[test]
fn typescript_type_annotation_broken() {
    assert_breaks(&edit("geo.cts", TS, "(p: Point)", "(p: )"), "typescript", 6);
}

#[test]
fn tsx_unclosed_element() {
    let before = "type Props = { name: string }\n\nexport const Hello = ({ name }: Props) => (\n  <div>\n    <b>{name}</b>\n  </div>\n)\n";
    assert_breaks(
        &edit("Hello.tsx", before, "<b>{name}</b>", "<b>{name}"),
        "tsx",
        5,
    );
    assert_clean(
        &edit("Hello.tsx", before, "<b>{name}</b>", "<i>{name}</i>"),
        "tsx",
    );
}

const PY: &str = "import os\n\n\ndef load(path):\n    try:\n        with open(path) as f:\n            return f.read()\n    except OSError:\n        return None\n\n\ndef size(path):\n    return os.path.getsize(path)\n";

#[test]
fn python_except_moved_out_of_its_try() {
    let r = edit(
        "load.py",
        PY,
        "    except OSError:\n        return None\n",
        "\nexcept OSError:\n    return None\n",
    );
    assert_breaks(&r, "python", 9);
    assert_eq!(r.new_errors[0].snippet, "except OSError:");
}

#[test]
fn python_missing_paren() {
    let r = edit(
        "load.py",
        PY,
        "os.path.getsize(path)",
        "os.path.getsize(path",
    );
    assert_breaks(&r, "python", 13);
}

#[test]
fn python_clean_edit_and_odd_dedent_accepted() {
    assert_clean(&edit("load.py", PY, "return None", "return ''"), "python");
    // tree-sitter accepts a body that ends early: the dedented line becomes a new statement.
    assert_clean(
        &edit(
            "load.py",
            PY,
            "    return os.path.getsize(path)\n",
            "    p = path\nreturn os.path.getsize(p)\n",
        ),
        "python",
    );
}

const RS: &str = "use std::fs;\n\nfn main() {\n    let args: Vec<String> = std::env::args().collect();\n    if args.len() > 1 {\n        println!(\"{}\", fs::read_to_string(&args[1]).unwrap());\n    }\n}\n\nfn helper() -> u32 {\n    1\n}\n";

#[test]
fn rust_unbalanced_brace_is_new() {
    // Removing the `}` of the `if` leaves the braces unbalanced: tree-sitter makes the whole file one
    // ERROR node starting on line 1; it is shown on the edited line.
    let (after, changes) = replace(RS, "    }\n}\n\nfn helper", "}\n\nfn helper");
    let r = gate("src/main.rs", RS, &after, &changes);
    assert_breaks(&r, "rust", 7);
}

/// A clean file whose edit opens a brace that is never closed: tree-sitter reports a MISSING `}` at
/// the end of the file, far from the edit.
const UNBALANCED: &str =
    "function f() {\n  if (x) {\n    g()\n  }\n}\n\nfunction h() {\n  return 1\n}\n";

#[test]
fn unbalanced_brace_reported_at_the_end_of_the_file_is_new() {
    let (after, changes) = replace(UNBALANCED, "g()", "g() {");
    let r = gate("u.js", UNBALANCED, &after, &changes);
    assert_breaks(&r, "javascript", 9);
    assert_eq!(r.new_errors[0].kind, "missing");
    assert_eq!(r.new_errors[0].expected.as_deref(), Some("}"));
    let msg = message("u.js", &r, UNBALANCED, &after, &changes).unwrap();
    assert!(msg.contains("missing \"}\" at line 9, column 2"), "{msg}");
    assert!(msg.contains("The edit changed line(s) 3;"), "{msg}");
    // Without spans the message finds the edited lines itself.
    assert_eq!(message("u.js", &r, UNBALANCED, &after, &[]).unwrap(), msg);
    // The same in C, whose grammar reports it the same way.
    let c = UNBALANCED
        .replace("function", "int")
        .replace("g()", "g();")
        .replace("return 1", "return 1;");
    let (after, changes) = replace(&c, "if (x) {", "if (x) {{");
    assert_breaks(&gate("u.c", &c, &after, &changes), "c", 9);
}

#[test]
fn rust_missing_semicolon_and_clean_edit() {
    assert_breaks(
        &edit("src/main.rs", RS, ".collect();", ".collect() let"),
        "rust",
        4,
    );
    assert_clean(&edit("src/main.rs", RS, "    1\n", "    2\n"), "rust");
}

const GO: &str = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}\n}\n";

#[test]
fn go_missing_paren() {
    let r = edit("main.go", GO, "fmt.Println(i)", "fmt.Println(i");
    assert_breaks(&r, "go", 7);
    assert_clean(&edit("main.go", GO, "i < 3", "i < 4"), "go");
}

const JSON: &str =
    "{\n  \"name\": \"surepatch\",\n  \"version\": \"1.0.0\",\n  \"files\": [\"index.js\"]\n}\n";

#[test]
fn json_trailing_comma() {
    let r = edit(
        "package.json",
        JSON,
        "[\"index.js\"]\n",
        "[\"index.js\"],\n",
    );
    assert_breaks(&r, "json", 4);
    assert_eq!(r.new_errors[0].kind, "error");
    assert_eq!(r.new_errors[0].column, 24);
    assert_clean(&edit("package.json", JSON, "1.0.0", "1.1.0"), "json");
}

#[test]
fn json_missing_comma() {
    assert_breaks(
        &edit("package.json", JSON, "\"1.0.0\",", "\"1.0.0\""),
        "json",
        3,
    );
}

const C: &str = "#include <stdio.h>\n\nint add(int a, int b) {\n    return a + b;\n}\n\nint main(void) {\n    printf(\"%d\\n\", add(1, 2));\n    return 0;\n}\n";

#[test]
fn c_missing_paren_and_semicolon() {
    assert_breaks(&edit("main.c", C, "add(1, 2));", "add(1, 2);"), "c", 8);
    let r = edit("main.c", C, "return a + b;", "return a + b");
    assert_breaks(&r, "c", 4);
    assert_eq!(r.new_errors[0].kind, "missing");
    assert_eq!(r.new_errors[0].expected.as_deref(), Some(";"));
    assert_clean(&edit("main.c", C, "add(1, 2)", "add(3, 4)"), "c");
}

const CPP: &str = "#include <vector>\n\nclass Stack {\npublic:\n    void push(int v) { items.push_back(v); }\nprivate:\n    std::vector<int> items;\n};\n\nint main() {\n    Stack s;\n    s.push(1);\n}\n";

#[test]
fn cpp_missing_paren() {
    assert_breaks(
        &edit(
            "stack.cpp",
            CPP,
            "items.push_back(v);",
            "items.push_back(v;",
        ),
        "cpp",
        5,
    );
    assert_clean(&edit("stack.hpp", CPP, "s.push(1);", "s.push(2);"), "cpp");
}

#[test]
fn c_header_is_read_as_cpp() {
    // A C++ class in a `.h` file is not an error, so an edit beside it is not refused.
    let before = "#pragma once\nclass A {\npublic:\n    int f();\n};\n";
    assert_clean(
        &edit("a.h", before, "int f();", "int f();\n    int g();"),
        "cpp",
    );
}

const JAVA: &str = "public class Main {\n    public static void main(String[] args) {\n        System.out.println(\"hi\");\n    }\n}\n";

#[test]
fn java_missing_paren() {
    assert_breaks(
        &edit("Main.java", JAVA, "println(\"hi\");", "println(\"hi\";"),
        "java",
        3,
    );
    assert_clean(&edit("Main.java", JAVA, "\"hi\"", "\"hello\""), "java");
}

// ---- "at the same place" ----------------------------------------------------------------------------

/// A Python file with an error on line 2.
const PY_BROKEN: &str =
    "def f():\n    x = = 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n";

#[test]
fn existing_error_elsewhere_still_takes_a_clean_edit() {
    for (path, before, from, to) in [
        ("b.py", PY_BROKEN, "return 3", "return 4"),
        (
            "b.js",
            "let a = (1;\n\nfunction g() {\n  return 2\n}\n",
            "return 2",
            "return 3",
        ),
        (
            "b.json",
            "{\n  \"a\": 1,,\n  \"b\": 2\n}\n",
            "\"b\": 2",
            "\"b\": 3",
        ),
        (
            "b.rs",
            "fn f() {\n    let x = ;\n}\n\nfn g() -> u8 {\n    2\n}\n",
            "    2\n",
            "    3\n",
        ),
    ] {
        let (after, changes) = replace(before, from, to);
        let r = gate(path, before, &after, &changes);
        assert!(r.ok, "{path}: {r:?}");
        // The original really was broken, and the result still is.
        assert!(
            !gate(path, "", before, &[]).ok,
            "{path} should start broken"
        );
        assert!(!gate(path, "", &after, &[]).ok, "{path} should stay broken");
    }
}

#[test]
fn existing_error_moved_by_an_insertion_above_it() {
    let before = "import os\n\ndef f():\n    x = (1,\n";
    let r = edit(
        "m.py",
        before,
        "import os\n",
        "import os\nimport sys\nimport re\n\n\n",
    );
    assert_clean(&r, "python");
}

#[test]
fn existing_unbalanced_brace_at_the_end_still_takes_a_clean_edit() {
    let before = "function f() {\n  if (x) {\n    g(1)\n}\n\nfunction h() {\n  return 1\n}\n";
    assert!(!gate("u.js", "", before, &[]).ok);
    assert_clean(&edit("u.js", before, "g(1)", "g(2)"), "javascript");
}

#[test]
fn new_error_far_from_an_existing_one_is_reported() {
    let r = edit("b.py", PY_BROKEN, "return 3", "return (3");
    assert_breaks(&r, "python", 10);
    assert_eq!(
        r.new_errors.len(),
        1,
        "the old error on line 2 is not listed: {r:?}"
    );
}

#[test]
fn repair_is_ok() {
    assert_clean(&edit("b.py", PY_BROKEN, "x = = 1", "x = 1"), "python");
    assert_clean(
        &edit("b.json", "{\n  \"a\": 1,\n}\n", "\"a\": 1,\n", "\"a\": 1\n"),
        "json",
    );
}

#[test]
fn partial_repair_inside_the_broken_region_is_ok() {
    // Still broken on the same line, but no worse: the edit is on the line that was already broken.
    let before = "def f():\n    x = (1, [2,\n    return x\n";
    assert_clean(&edit("p.py", before, "[2,", "[2],"), "python");
}

#[test]
fn an_error_that_grows_from_an_old_one_to_swallow_a_new_mistake_is_new() {
    // The old error is on line 2; the edit on line 4 adds another. Whatever span tree-sitter gives the
    // result, the error covering line 4 was not there before.
    let before = "{\n  \"a\": 1,,\n  \"b\": [1, 2],\n  \"c\": 3\n}\n";
    let r = edit("g.json", before, "\"c\": 3", "\"c\": 3,");
    assert!(!r.ok, "{r:?}");
    assert!(r.new_errors.iter().any(|e| e.line == 4), "{r:?}");
}

#[test]
fn several_changes_one_breaking() {
    let (after, changes) = replace_all(
        PY,
        &[
            ("import os", "import os, sys"),
            ("getsize(path)", "getsize(path"),
            ("return None", "return 0"),
        ],
    );
    assert_eq!(changes.len(), 3);
    let r = gate("load.py", PY, &after, &changes);
    assert_breaks(&r, "python", 13);
    let (after, changes) = replace_all(
        PY,
        &[("import os", "import os, sys"), ("return None", "return 0")],
    );
    assert_clean(&gate("load.py", PY, &after, &changes), "python");
}

#[test]
fn spans_are_optional_and_bad_spans_fall_back() {
    let (after, changes) = replace(PY, "getsize(path)", "getsize(path");
    let with = gate("load.py", PY, &after, &changes);
    assert_eq!(gate("load.py", PY, &after, &[]), with);
    // Spans that do not describe the two texts are replaced by the computed one.
    assert_eq!(gate("load.py", PY, &after, &[(0, 1, 0, 5)]), with);
    assert_eq!(gate("load.py", PY, &after, &[(5, 4, 5, 4)]), with);
    assert_eq!(
        gate("load.py", PY, &after, &[(0, 999_999, 0, 999_999)]),
        with
    );
    // Equal texts: nothing changed, nothing new, even in a broken file.
    assert_clean(&gate("b.py", PY_BROKEN, PY_BROKEN, &[]), "python");
}

#[test]
fn a_new_broken_file_reports_every_error_capped() {
    let after: String = (0..15)
        .map(|i| format!("def f{i}(:\n    pass\n\n"))
        .collect();
    let r = gate("new.py", "", &after, &[(0, 0, 0, after.len())]);
    assert!(!r.ok);
    assert_eq!(r.new_errors.len(), MAX_REPORTED);
    assert_eq!(r.new_errors[0].line, 1);
    assert_eq!(r.new_errors[1].line, 4);
    let msg = message("new.py", &r, "", &after, &[(0, 0, 0, after.len())]).unwrap();
    assert!(msg.contains("(and at least 9 more)"), "{msg}");
}

// ---- positions -------------------------------------------------------------------------------------

#[test]
fn positions_count_characters_and_crlf_lines() {
    let before = "const s = 'héllo wörld';\r\nconst t = f(s);\r\n";
    let r = edit("s.js", before, "const t = f(s);", "const t = 'ü' + f(s;");
    assert_breaks(&r, "javascript", 2);
    let e = &r.new_errors[0];
    assert_eq!((e.kind, e.expected.as_deref()), ("missing", Some(")")));
    // `const t = 'ü' + f(s` is 19 characters (20 bytes): the missing `)` is at character 20.
    assert_eq!(e.column, 20);
    assert_eq!(e.snippet, "const t = 'ü' + f(s;");
}

#[test]
fn snippet_is_cut() {
    let long = format!("x = [{}\n", "1, ".repeat(100));
    let r = gate("l.py", "", &long, &[]);
    assert!(!r.ok);
    assert_eq!(r.new_errors[0].snippet.chars().count(), SNIPPET_CHARS + 1);
    assert!(r.new_errors[0].snippet.ends_with('…'));
}

// ---- JSON shapes and messages -----------------------------------------------------------------------

#[test]
fn report_json_shape() {
    let (after, changes) = replace(
        JS,
        "fs.readFileSync(path, 'utf8')",
        "fs.readFileSync(path, 'utf8'",
    );
    let r = gate("read.js", JS, &after, &changes);
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({
            "language": "javascript",
            "ok": false,
            "new_errors": [{
                "line": 4, "column": 44, "snippet": "  const text = fs.readFileSync(path, 'utf8'",
                "kind": "error"
            }]
        })
    );
    let ok = gate("read.js", JS, JS, &[]);
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"language": "javascript", "ok": true, "new_errors": []})
    );
    assert_eq!(message("read.js", &ok, JS, JS, &[]), None);
}

#[test]
fn message_shows_the_first_error_in_context() {
    let (after, changes) = replace(PY, "os.path.getsize(path)", "os.path.getsize(path");
    let r = gate("load.py", PY, &after, &changes);
    let msg = message("load.py", &r, PY, &after, &changes).unwrap();
    let context = "   11 | \n   12 | def size(path):\n>  13 |     return os.path.getsize(path\n";
    assert!(
        msg.starts_with("The edit would introduce a syntax error in load.py (python): "),
        "{msg}"
    );
    assert!(msg.contains("at line 13, column"), "{msg}");
    assert!(msg.contains("Nothing was written.\n"), "{msg}");
    assert!(msg.contains(context), "{msg}");
    assert!(msg.contains("validate: \"report\""), "{msg}");
    assert!(
        !msg.contains("The edit changed line(s)"),
        "the error is on the edited line: {msg}"
    );
}

#[test]
fn context_marks_the_line_and_column() {
    let text = "a\n\tb = (1\nc\nd\n";
    assert_eq!(
        context(text, 2, 7, 1),
        "    1 | a\n>   2 | \tb = (1\n      | \t     ^\n    3 | c\n"
    );
    assert_eq!(context(text, 1, 1, 0), ">   1 | a\n      | ^\n");
    assert_eq!(context("", 1, 1, 2), ">   1 | \n      | ^\n");
    // A line past the end is clamped to the last one.
    assert_eq!(context("x\n", 9, 2, 0), ">   1 | x\n      |  ^\n");
}

#[test]
fn error_kinds_serialize() {
    let e = SyntaxError {
        line: 3,
        column: 1,
        snippet: "x".into(),
        kind: "error",
        expected: None,
    };
    assert_eq!(
        serde_json::to_value(&e).unwrap(),
        json!({"line": 3, "column": 1, "snippet": "x", "kind": "error"})
    );
}

// ---- mapping -----------------------------------------------------------------------------------------

#[test]
fn positions_map_through_changes() {
    let changes = [
        Change {
            old_start: 10,
            old_end: 20,
            new_start: 10,
            new_end: 12,
        },
        Change {
            old_start: 30,
            old_end: 30,
            new_start: 22,
            new_end: 27,
        },
    ];
    assert_eq!(map_pos(&changes, 5), (5, 5));
    assert_eq!(map_pos(&changes, 10), (10, 10));
    assert_eq!(map_pos(&changes, 11), (10, 20));
    assert_eq!(map_pos(&changes, 12), (20, 20));
    assert_eq!(map_pos(&changes, 15), (23, 23));
    assert_eq!(map_pos(&changes, 22), (30, 30));
    assert_eq!(map_pos(&changes, 25), (30, 30));
    assert_eq!(map_pos(&changes, 27), (30, 30));
    assert_eq!(map_pos(&changes, 28), (31, 31));
    assert_eq!(map_to_old(&changes, 11, 28), (10, 31));
}

// ---- the tree cache ------------------------------------------------------------------------------------

#[test]
fn a_run_of_edits_through_the_cache_agrees_with_fresh_parses() {
    // Each step edits the previous result, as an agent does; the cached tree of each result is the
    // starting point of the next check.
    let steps: &[(&str, &str)] = &[
        ("return None", "return ''"),
        ("import os\n", "import os\nimport sys\n"),
        ("getsize(path)", "getsize(path"),
        ("def size(path):", "def size(path, follow=True):"),
        ("getsize(path", "getsize(path)"),
        ("    except OSError:\n", "except OSError:\n"),
    ];
    let mut text = PY.to_string();
    assert!(warm("steps.py", &text));
    let mut oks = Vec::new();
    for (from, to) in steps {
        let (after, changes) = replace(&text, from, to);
        let cached = check("steps.py", &text, &after, &changes);
        assert_eq!(
            cached,
            check_with("steps.py", &text, &after, &changes, Strategy::Full),
            "{from:?}"
        );
        oks.push(cached.ok);
        text = after;
    }
    // Broken at step 3 and repaired at step 5 (the file stays broken in between, which step 4 may
    // touch); broken again at step 6.
    assert_eq!(oks, [true, true, false, true, true, false]);
}

#[test]
fn warm_only_for_known_languages_under_the_cap() {
    assert!(warm("w.rs", RS));
    assert!(warm("w.rs", RS), "a second warm is a cache hit");
    assert!(!warm("w.txt", RS));
    assert!(!warm("w.rs", &"x".repeat(MAX_BYTES + 1)));
}
