//! The merge rules, one test each, and snippets built to make a merger land wrong.

use super::*;
use crate::edit::matcher::Tolerance;
use crate::error::Code;

const JS: &str = "import a from 'a'\n\nfunction one() {\n  const x = 1\n  return x\n}\n\nfunction two() {\n  const y = 2\n  return y\n}\n\nfunction three() {\n  const z = 3\n  return z\n}\n";

fn merged(file: &str, snip: &str) -> Merged {
    match merge(file, snip, Tolerance::Safe) {
        Ok(Plan::Merged(m)) => m,
        other => panic!("expected a merge, got {other:?}"),
    }
}

fn text(file: &str, snip: &str) -> String {
    merged(file, snip).text
}

fn refused(file: &str, snip: &str) -> crate::error::Failure {
    match merge(file, snip, Tolerance::Safe) {
        Err(f) => f,
        Ok(p) => panic!("expected a refusal, got {p:?}"),
    }
}

#[test]
fn a_change_between_unchanged_lines_lands_and_reports_where() {
    let snip = "// ... existing code ...\nfunction two() {\n  const y = 20\n  return y\n// ... existing code ...\n";
    let m = merged(JS, snip);
    assert_eq!(m.text, JS.replace("const y = 2\n", "const y = 20\n"));
    assert_eq!(m.landings.len(), 1);
    assert_eq!((m.landings[0].start_line, m.landings[0].end_line), (8, 10));
    assert_eq!(
        (
            m.landings[0].snippet_start_line,
            m.landings[0].snippet_end_line
        ),
        (2, 4)
    );
    // The changed line is the only old line removed.
    assert_eq!(
        m.removed,
        vec![Removed {
            start_line: 9,
            end_line: 9,
            by: "shown"
        }]
    );
    assert_eq!(m.tier, crate::edit::matcher::Tier::Exact);
}

#[test]
fn several_chunks_land_in_order_and_the_markers_keep_what_they_stand_for() {
    let snip = "// ...\nfunction one() {\n  const x = 10\n  return x\n// ...\nfunction three() {\n  const z = 30\n  return z\n// ...\n";
    assert_eq!(
        text(JS, snip),
        JS.replace("x = 1\n", "x = 10\n")
            .replace("z = 3\n", "z = 30\n")
    );
}

#[test]
fn new_lines_with_context_on_one_side_go_right_next_to_it() {
    // Context above, marker below.
    let below =
        "// ... existing code ...\nfunction two() {\n  log('two')\n// ... existing code ...\n";
    assert_eq!(
        text(JS, below),
        JS.replace("function two() {\n", "function two() {\n  log('two')\n")
    );
    // Marker above, context below.
    let above =
        "// ... existing code ...\n// the second one\nfunction two() {\n// ... existing code ...\n";
    assert_eq!(
        text(JS, above),
        JS.replace(
            "function two() {\n",
            "// the second one\nfunction two() {\n"
        )
    );
}

#[test]
fn deletion_happens_only_where_both_sides_are_shown() {
    let snip = "// ...\nfunction two() {\n  return y\n}\n// ...\n";
    let m = merged(JS, snip);
    assert_eq!(m.text, JS.replace("  const y = 2\n", ""));
    assert_eq!(m.removed[0].start_line, 9);
    assert_eq!(m.removed[0].by, "shown");
}

#[test]
fn a_removal_marker_deletes_what_it_stands_for_and_is_listed() {
    let snip = "// ...\n  return x\n}\n// ... removed code ...\nfunction three() {\n// ...\n";
    let m = merged(JS, snip);
    // The marker stands for everything between `}` and `function three() {`, blank lines included.
    assert_eq!(
        m.text,
        JS.replace("\nfunction two() {\n  const y = 2\n  return y\n}\n\n", "")
    );
    assert_eq!(
        m.removed,
        vec![Removed {
            start_line: 7,
            end_line: 12,
            by: "removal_marker"
        }]
    );
    assert!(!m.text.contains("removed code"));
}

#[test]
fn a_keep_marker_is_checked() {
    let ok = "// ...\nfunction one() {\n  const x = 10\n  return x\n// ... keep two ...\nfunction three() {\n// ...\n";
    assert_eq!(text(JS, ok), JS.replace("x = 1\n", "x = 10\n"));
    let bad = "// ...\nfunction one() {\n  const x = 10\n  return x\n// ... keep four ...\nfunction three() {\n// ...\n";
    let f = refused(JS, bad);
    assert_eq!(f.code, Code::SnippetKeepMissing);
}

/// Trap: the chunk's context occurs twice.
#[test]
fn duplicated_anchors_are_refused_with_both_places() {
    let file = "a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n}\nc()\n";
    let f = refused(file, "// ...\nif (x) {\n  go()\n  more()\n// ...\n");
    assert_eq!(f.code, Code::SnippetAmbiguous);
    let c = f.detail("candidates").unwrap().as_array().unwrap();
    let starts: Vec<u64> = c
        .iter()
        .map(|c| c["start_line"].as_u64().unwrap())
        .collect();
    assert_eq!(starts, vec![2, 6]);
    assert_eq!(f.detail("chunk_index").unwrap(), 0);
    assert_eq!(f.detail("chunk_lines").unwrap()["start_line"], 2);
    // A twin that differs only in indentation is a second place too.
    let twin = "a()\nif (x) {\n  go()\n}\nfunction f() {\n    if (x) {\n      go()\n    }\n}\n";
    let f = refused(twin, "// ...\nif (x) {\n  go()\n  more()\n// ...\n");
    assert_eq!(f.code, Code::SnippetAmbiguous);
    // One more unchanged line makes it land.
    assert!(
        text(file, "// ...\nb()\nif (x) {\n  go()\n  more()\n// ...\n")
            .contains("b()\nif (x) {\n  go()\n  more()\n}\nc()")
    );
}

/// Trap: two chunks written in reverse file order.
#[test]
fn reordered_chunks_are_refused() {
    let snip = "// ...\nfunction three() {\n  const z = 30\n  return z\n// ...\nfunction one() {\n  const x = 10\n  return x\n// ...\n";
    assert_eq!(refused(JS, snip).code, Code::SnippetOutOfOrder);
}

/// Trap: the marker hides the only anchor: new lines alone between two markers.
#[test]
fn a_chunk_without_unchanged_lines_is_refused() {
    let f = refused(JS, "// ...\n  const w = 4\n// ...\n");
    assert_eq!(f.code, Code::SnippetUnanchored);
    assert_eq!(f.detail("chunk_lines").unwrap()["start_line"], 2);
}

/// Trap: a stale chunk (its context was renamed since the model read the file).
#[test]
fn a_stale_chunk_is_refused_with_the_nearest_region() {
    let f = refused(
        JS,
        "// ...\nfunction deux() {\n  const yy = 22\n  return yy\n// ...\n",
    );
    assert_eq!(f.code, Code::SnippetUnanchored);
    let c = f.detail("candidates").unwrap().as_array().unwrap();
    assert_eq!(c[0]["start_line"], 8);
}

/// Trap: a deletion that is not shown: no marker above the first chunk (or below the last), and
/// the chunk does not start (end) at the file's first (last) line.
#[test]
fn a_snippet_edge_without_a_marker_must_be_the_file_edge() {
    let top = "function two() {\n  const y = 20\n  return y\n}\n// ...\n";
    assert_eq!(refused(JS, top).code, Code::SnippetUnanchored);
    let bottom = "// ...\nfunction two() {\n  const y = 20\n  return y\n}\n";
    assert_eq!(refused(JS, bottom).code, Code::SnippetUnanchored);
    // At the real edges it lands.
    let first = "import a from 'a'\nimport b from 'b'\n// ...\n";
    assert_eq!(
        text(JS, first),
        JS.replace(
            "import a from 'a'\n",
            "import a from 'a'\nimport b from 'b'\n"
        )
    );
    let last = "// ...\n  return z\n}\n\nexport { one }\n";
    assert_eq!(text(JS, last), format!("{JS}\nexport {{ one }}\n"));
    // A snippet that ends with `}` standing for the file's last line, but the lines before it are
    // not the file's: refused (a `}` alone cannot show the end).
    let weak = "// ...\nfunction two() {\n  const y = 20\n}\n";
    assert_eq!(refused(JS, weak).code, Code::SnippetUnanchored);
}

/// Trap: a new method that ends like the method above it must not nest inside it or anchor on
/// another method's end.
#[test]
fn a_new_method_ending_like_its_neighbour_does_not_nest() {
    let file = "class A {\n  foo() {\n    this.x = 1;\n    return this;\n  }\n\n  bar() {\n    this.y = 2;\n    return this;\n  }\n}\n";
    let snip = "// ...\n  foo() {\n    this.x = 1;\n    return this;\n  }\n\n  baz() {\n    this.z = 3;\n    return this;\n  }\n// ...\n";
    match merge(file, snip, Tolerance::Safe) {
        Err(f) => assert_eq!(f.code, Code::SnippetAmbiguous),
        Ok(Plan::Merged(m)) => assert_eq!(
            m.text,
            file.replace(
                "\n  bar() {",
                "\n  baz() {\n    this.z = 3;\n    return this;\n  }\n\n  bar() {"
            )
        ),
        Ok(p) => panic!("{p:?}"),
    }
}

/// A closing bracket that closes the block of an unchanged line is placed on that block's end; one
/// that closes a new block is new text.
#[test]
fn a_closing_bracket_at_a_chunk_end_belongs_to_its_block() {
    // Closes `function two() {`: a change of the line inside.
    let snip = "// ...\nfunction two() {\n  return 22\n}\n// ...\n";
    assert_eq!(
        text(JS, snip),
        JS.replace("  const y = 2\n  return y\n", "  return 22\n")
    );
    // Closes a new `if` block.
    let snip = "// ...\nfunction two() {\n  if (!ok) {\n    return\n  }\n// ...\n";
    assert_eq!(
        text(JS, snip),
        JS.replace(
            "function two() {\n",
            "function two() {\n  if (!ok) {\n    return\n  }\n"
        )
    );
}

#[test]
fn blank_lines_beside_markers_belong_to_the_marker_and_beside_new_lines_are_new() {
    // The blank line under the marker is not written twice.
    let snip = "// ...\n\nfunction two() {\n  const y = 20\n  return y\n\n// ...\n";
    assert_eq!(text(JS, snip), JS.replace("y = 2\n", "y = 20\n"));
    // A blank line between new lines and the marker is new text.
    let snip = "// ...\n  return z\n}\n\nfunction four() {}\n\n// ...\n";
    let t = text(JS, snip);
    assert!(
        t.ends_with("  return z\n}\n\nfunction four() {}\n\n"),
        "{t:?}"
    );
}

#[test]
fn marker_look_alikes_are_written_literally() {
    let file = "function f(...args) {\n  return [...args]\n}\n\nfunction g() {\n  return 1\n}\n";
    let snip = "// ...\nfunction g() {\n  const o = { ...defaults, ...opts }\n  // Loading...\n  return 1\n// ...\n";
    let t = text(file, snip);
    assert!(t.contains("  const o = { ...defaults, ...opts }\n  // Loading...\n  return 1\n"));
    // An unchanged line with `...` is matched literally.
    let snip = "function f(...args) {\n  return [...args]\n// ...\n";
    assert!(text(file, snip).starts_with("function f(...args) {\n  return [...args]\n}\n"));
}

#[test]
fn new_lines_are_reindented_to_where_they_land_and_tabs_crlf_bom_kept() {
    // The model wrote the region without its indentation.
    let file = "class A:\n    def f(self):\n        a = 1\n        return a\n\n    def g(self):\n        return 2\n";
    let snip = "# ...\ndef f(self):\n    a = 1\n    b = 2\n    return a\n# ...\n";
    assert_eq!(
        text(file, snip),
        file.replace("        a = 1\n", "        a = 1\n        b = 2\n")
    );
    // Tabs and CRLF: unchanged lines keep their bytes, new lines take the file's terminator and tabs.
    let file = "int f() {\r\n\tint a = 1;\r\n\treturn a;\r\n}\r\n";
    let snip = "// ...\nint f() {\n    int a = 1;\n    int b = 2;\n    return a;\n// ...\n";
    assert_eq!(
        text(file, snip),
        "int f() {\r\n\tint a = 1;\r\n\tint b = 2;\r\n\treturn a;\r\n}\r\n"
    );
    // A file without a final newline keeps it that way.
    let file = "a = 1\nb = 2\nc = 3";
    assert_eq!(
        text(file, "# ...\nb = 2\nb2 = 22\nc = 3"),
        "a = 1\nb = 2\nb2 = 22\nc = 3"
    );
}

#[test]
fn marker_styles_of_other_languages_merge() {
    let cases: &[(&str, &str, &str)] = &[
        // Go
        ("package main\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\treturn 2\n}\n",
         "// ... existing code ...\nfunc b() int {\n\treturn 20\n}\n",
         "\treturn 20\n"),
        // Ruby
        ("class A\n  def a\n    1\n  end\n\n  def b\n    2\n  end\nend\n",
         "# ... rest of the class ...\n  def b\n    20\n  end\nend\n",
         "    20\n"),
        // HTML
        ("<html>\n<body>\n<h1>Hi</h1>\n<p>one</p>\n<p>two</p>\n</body>\n</html>\n",
         "<!-- ... existing markup ... -->\n<p>one</p>\n<p>uno</p>\n<p>two</p>\n<!-- ... -->\n",
         "<p>uno</p>\n"),
        // CSS
        ("a {\n  color: red;\n}\n\nb {\n  color: blue;\n}\n",
         "/* ... */\nb {\n  color: green;\n}\n",
         "  color: green;\n"),
        // SQL / Lua
        ("SELECT a\nFROM t\nWHERE x = 1\nORDER BY a;\n",
         "-- ...\nFROM t\nWHERE x = 2\nORDER BY a;\n",
         "WHERE x = 2\n"),
        // Lisp
        ("(defun a ()\n  1)\n\n(defun b ()\n  2)\n\n(defun c ()\n  3)\n",
         ";; ...\n(defun b ()\n  20)\n\n(defun c ()\n;; ...\n",
         "  20)\n"),
        // YAML / shell
        ("name: ci\non: push\njobs:\n  build:\n    runs-on: ubuntu\n    steps:\n      - run: make\n",
         "# ...\n    steps:\n      - run: make\n      - run: make test\n",
         "      - run: make test\n"),
        // Rust / Java / C
        ("fn a() -> u8 {\n    1\n}\n\nfn b() -> u8 {\n    2\n}\n",
         "// ... existing code ...\nfn b() -> u8 {\n    // two\n    2\n}\n",
         "    // two\n"),
    ];
    for (file, snip, want) in cases {
        let t = text(file, snip);
        assert!(t.contains(want), "{snip:?} -> {t:?}");
        assert_eq!(
            t.lines().count(),
            file.lines().count() + usize::from(t.lines().count() > file.lines().count()),
            "{snip:?} -> {t:?}"
        );
    }
}

#[test]
fn a_snippet_without_markers_is_a_rewrite_unless_it_is_a_fragment() {
    assert_eq!(
        merge(JS, "import a from 'a'\n\nexport {}\n", Tolerance::Safe),
        Ok(Plan::Rewrite)
    );
    let f = refused(JS, "function two() {\n  const y = 20\n  return y\n}\n");
    assert_eq!(f.code, Code::SnippetUnanchored);
}

#[test]
fn only_markers_is_invalid_and_the_result_is_deterministic() {
    assert_eq!(refused(JS, "// ...\n").code, Code::InvalidInput);
    let snip = "// ...\nfunction two() {\n  const y = 20\n// ...\n";
    assert_eq!(
        merge(JS, snip, Tolerance::Safe),
        merge(JS, snip, Tolerance::Safe)
    );
}

#[test]
fn exact_tolerance_does_not_fold_whitespace() {
    let snip = "// ...\nfunction two() {   \n  const y = 20\n  return y\n// ...\n";
    assert_eq!(
        merge(JS, snip, Tolerance::Exact).unwrap_err().code,
        Code::SnippetUnanchored
    );
    assert!(text(JS, snip).contains("const y = 20"));
}

/// A chunk whose first run is found once places its last run at the nearest place below it, when
/// the lines between stay inside that run's block; a farther place would delete a copy of the
/// chunk's own unchanged lines.
#[test]
fn an_edge_run_found_twice_takes_the_nearest_place_in_order_beside_a_unique_run() {
    let file = "def a():\n    x = 1\n    done()\n\ndef b():\n    x = 1\n    done()\n";
    let snip = "# ...\ndef a():\n    x = 1\n    log()\n    done()\n# ...\n";
    assert_eq!(
        text(file, snip),
        "def a():\n    x = 1\n    log()\n    done()\n\ndef b():\n    x = 1\n    done()\n"
    );
    // The same last run with the first one found twice: refused.
    let f = refused(file, "# ...\n    x = 1\n    log()\n    done()\n# ...\n");
    assert_eq!(f.code, Code::SnippetAmbiguous);
}

/// Trap: a changed (or mistyped) line at a chunk's edge with no unchanged line beyond it reads as an
/// insertion by the rules, which would keep the old line beside a near copy: refused.
#[test]
fn a_new_edge_line_that_reads_like_the_file_line_beside_it_is_refused() {
    let file = "def one():\n    return 1\n\n\ndef two():\n    return 2\n";
    let f = refused(file, "# ...\ndef one():\n    return 11\n# ...\n");
    assert_eq!(f.code, Code::SnippetUnanchored);
    assert!(f.message.contains("near copy"), "{}", f.message);
    // Above the first run too.
    let f = refused(file, "# ...\n    return 12\n\n\ndef two():\n# ...\n");
    assert_eq!(f.code, Code::SnippetUnanchored);
    // A new line unlike its neighbour is an insertion.
    assert_eq!(
        text(file, "# ...\ndef one():\n    log('one called')\n# ...\n"),
        "def one():\n    log('one called')\n    return 1\n\n\ndef two():\n    return 2\n"
    );
    // A block of new code may look like its neighbour: a new function beside a similar one lands.
    let rs = "pub fn a() -> u32 {\n    1\n}\n\npub fn b() -> u32 {\n    2\n}\n";
    assert_eq!(
        text(
            rs,
            "// ...\npub fn a() -> u32 {\n    1\n}\n\npub fn a2() -> u32 {\n    12\n}\n// ...\n"
        ),
        rs.replace(
            "}\n\npub fn b",
            "}\n\npub fn a2() -> u32 {\n    12\n}\npub fn b"
        )
    );
    // A block that reads, line for line, like the lines beside it is those lines changed: refused.
    let js = "function a() {\n  return first()\n}\n\nfunction b() {\n  return second()\n}\n";
    let f = refused(
        js,
        "// ...\nfunction a() {\n  return first()\n}\n\nfunction b(x) {\n  return second(x)\n// ...\n",
    );
    assert_eq!(f.code, Code::SnippetUnanchored);
    // With the unchanged line below it, the same change lands.
    assert_eq!(
        text(
            file,
            "# ...\ndef one():\n    return 11\n\n\ndef two():\n# ...\n"
        ),
        file.replace("return 1\n", "return 11\n")
    );
}

/// A method appended at the end of a class: the snippet ends with the class's `}`, the file's last
/// line, right after the method above it (nothing between them is deleted).
#[test]
fn a_method_appended_before_the_last_bracket_lands() {
    let file = "class A {\n    int a() {\n        return 1;\n    }\n\n    int b() {\n        return 2;\n    }\n}\n";
    let snip = "// ... existing code ...\n    int b() {\n        return 2;\n    }\n\n    int c() {\n        return 3;\n    }\n}\n";
    assert_eq!(
        text(file, snip),
        file.replace(
            "        return 2;\n    }\n}",
            "        return 2;\n    }\n\n    int c() {\n        return 3;\n    }\n}"
        )
    );
    // The same ending, but lines the snippet does not show stand between: refused.
    let f = refused(file, "// ... existing code ...\n    int a() {\n        return 1;\n    }\n\n    int c() {\n        return 3;\n    }\n}\n");
    assert_eq!(f.code, Code::SnippetUnanchored);
}

/// A run that took in the bracket line above its seed (`else:` + `y = 2`) used to make the merger skip
/// as many lines after it, so the unique line right after it (`done_a()`) was never a run and the
/// chunk was refused as ambiguous. It now places the chunk, and deletes only what it shows gone.
#[test]
fn the_line_after_a_run_that_took_in_a_bracket_above_it_still_anchors() {
    let file = "def a():\n    if x:\n        y = 1\n    else:\n        y = 2\n    old_call()\n    done_a()\n\ndef b():\n    if x:\n        y = 1\n    else:\n        y = 2\n    old_call()\n    done_b()\n";
    let snip = "# ...\n    if x:\n        y = 10\n    else:\n        y = 2\n    done_a()\n# ...\n";
    let m = merged(file, snip);
    assert_eq!(
        m.text,
        file.replacen("y = 1\n", "y = 10\n", 1).replacen(
            "    old_call()\n    done_a()",
            "    done_a()",
            1
        )
    );
    assert_eq!(
        m.removed,
        vec![
            Removed {
                start_line: 3,
                end_line: 3,
                by: "shown"
            },
            Removed {
                start_line: 6,
                end_line: 6,
                by: "shown"
            }
        ]
    );
    // Trap: the same chunk whose last line stands above the rest of it in the file is out of
    // order, never placed at the copy below.
    let above = "def z():\n    done_a()\n\n".to_string() + &file.replace("done_a()", "done_c()");
    refused(&above, snip);
}

/// The distinguishing lines of one refusal, as (candidate start, line, side, copy start, copy end).
fn hints(f: &crate::error::Failure) -> Vec<(u64, u64, String, u64, u64)> {
    f.detail("distinguishing_lines")
        .and_then(|v| v.as_array())
        .expect("distinguishing_lines")
        .iter()
        .map(|d| {
            (
                d["candidate_start_line"].as_u64().unwrap(),
                d["line"].as_u64().unwrap(),
                d["side"].as_str().unwrap().to_string(),
                d["copy_lines"]["start_line"].as_u64().unwrap(),
                d["copy_lines"]["end_line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The snippet with file lines `from..=to` (1-based) copied above (`side`) or below its chunk.
fn follow(
    file: &str,
    snip: &str,
    f: &crate::error::Failure,
    h: &(u64, u64, String, u64, u64),
) -> String {
    let s: Vec<&str> = snip.lines().collect();
    let fl: Vec<&str> = file.lines().collect();
    let cl = f.detail("chunk_lines").unwrap();
    let at = match h.2.as_str() {
        "above" => cl["start_line"].as_u64().unwrap() as usize - 1,
        _ => cl["end_line"].as_u64().unwrap() as usize,
    };
    let mut out: Vec<&str> = s[..at].to_vec();
    out.extend_from_slice(&fl[h.3 as usize - 1..h.4 as usize]);
    out.extend_from_slice(&s[at..]);
    out.join("\n") + "\n"
}

/// An ambiguity refusal names, for each candidate, the file line next to it that tells it apart, and
/// copying that line as named makes the chunk land on that candidate (each one).
#[test]
fn an_ambiguity_refusal_names_the_line_that_tells_each_candidate_apart() {
    let file = "a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n}\nc()\n";
    let snip = "// ...\nif (x) {\n  go()\n  more()\n// ...\n";
    let f = refused(file, snip);
    assert_eq!(f.code, Code::SnippetAmbiguous);
    let h = hints(&f);
    assert_eq!(
        h,
        vec![
            (2, 1, "above".to_string(), 1, 1),
            (6, 5, "above".to_string(), 5, 5)
        ]
    );
    assert!(
        f.message.contains("To place it, for the one at line 2, copy file line 1 `a()` above the chunk; for the one at line 6, copy file line 5 `b()` above the chunk"),
        "{}",
        f.message
    );
    assert_eq!(
        f.detail("hint"),
        Some(&serde_json::json!(f
            .message
            .split(" To place it")
            .nth(1)
            .map(|t| format!("To place it{t}"))
            .unwrap()))
    );
    assert_eq!(
        text(file, &follow(file, snip, &f, &h[0])),
        file.replacen("  go()\n", "  go()\n  more()\n", 1)
    );
    assert_eq!(
        text(file, &follow(file, snip, &f, &h[1])),
        "a()\nif (x) {\n  go()\n}\nb()\nif (x) {\n  go()\n  more()\n}\nc()\n"
    );
}

/// When the line right next to a candidate is itself repeated (the whole region is duplicated), the
/// hint reaches to the nearest line that differs, with the lines between, and still lands there.
#[test]
fn when_the_neighbouring_line_is_repeated_too_the_hint_reaches_to_the_one_that_differs() {
    let file = "class A:\n    def f(self):\n        self.x = 1\n        self.y = 2\n\nclass B:\n    def f(self):\n        self.x = 1\n        self.y = 2\n";
    let snip = "# ...\n        self.x = 1\n        self.z = 3\n        self.y = 2\n# ...\n";
    let f = refused(file, snip);
    assert_eq!(f.code, Code::SnippetAmbiguous, "{}", f.message);
    let h = hints(&f);
    // For A, `class B:` below it (the blank line between comes along); for B, `def f(self):` above
    // it is in A too: `class B:` tells it apart, with `def f(self):` between.
    assert_eq!(
        h,
        vec![
            (3, 6, "below".to_string(), 5, 6),
            (8, 6, "above".to_string(), 6, 7)
        ]
    );
    assert!(f.message.contains("for the one at line 8, copy file lines 6-7 (line 6 `class B:` and the lines between it and the chunk) above the chunk"), "{}", f.message);
    assert_eq!(
        text(file, &follow(file, snip, &f, &h[0])),
        file.replacen(
            "        self.y = 2\n",
            "        self.z = 3\n        self.y = 2\n",
            1
        )
    );
    assert_eq!(
        text(file, &follow(file, snip, &f, &h[1])),
        file.replace(
            "        self.y = 2\n",
            "        self.z = 3\n        self.y = 2\n"
        )
        .replacen("        self.z = 3\n", "", 1)
    );
}

/// The chunk's bottom at a candidate is found from its last run even when that run took in a `}`
/// that stands on the candidate region's own last line (`}` closing both the object and the new
/// `if`): the hint is the line right below the chunk at that candidate, not at the other one.
#[test]
fn the_hint_below_a_chunk_whose_last_run_shares_the_regions_bracket_line() {
    let file = "function f() {\n  setup()\n  const opts = {\n    a: 1,\n  }\n  const arb = make(opts)\n  node = arb.first\n}\nfunction g() {\n  setup()\n  const opts = {\n    a: 1,\n  }\n  const arb = make(opts)\n  return arb\n}\n";
    let snip = "// ...\n  const opts = {\n    a: 1,\n  }\n  if (arb == null) {\n    return\n  }\n  const arb = make(opts)\n// ...\n";
    let f = refused(file, snip);
    assert_eq!(f.code, Code::SnippetAmbiguous, "{}", f.message);
    let h = hints(&f);
    assert_eq!(
        h,
        vec![
            (3, 7, "below".to_string(), 7, 7),
            (11, 15, "below".to_string(), 15, 15)
        ]
    );
    assert_eq!(
        text(file, &follow(file, snip, &f, &h[0])),
        file.replacen(
            "  }\n  const arb",
            "  }\n  if (arb == null) {\n    return\n  }\n  const arb",
            1
        )
    );
}

/// A snippet without a marker below whose last lines are a changed version of the file's last lines,
/// ending in the file's last bracket: it claims the end (the lines between its last run and that
/// bracket are as many as the file's there, and read like them line for line).
#[test]
fn a_change_of_the_files_last_lines_ending_in_its_last_bracket_lands() {
    let file = "function main() {\n  try {\n    run()\n  } catch (e) {\n    log(e)\n    return 2\n  }\n  return 0\n}\n";
    let snip = "// ... existing code ...\n  } catch (e) {\n    log(e)\n    return 2\n  }\n  return 10\n}\n";
    assert_eq!(text(file, snip), file.replace("return 0", "return 10"));
    let ts = "declare module \"domain\" {\n    function create(): Domain;\n}\ndeclare module \"node:domain\" {\n    export * from \"domain\";\n}\n";
    let snip = "// ... existing code ...\n    function create(): Domain;\n}\ndeclare module_new \"node:domain\" {\n    export * from \"domainAlt\";\n}\n";
    assert_eq!(
        text(ts, snip),
        ts.replace("module \"node:domain\"", "module_new \"node:domain\"")
            .replace("from \"domain\"", "from \"domainAlt\"")
    );
}

/// Traps for that rule: a new block (not like the lines it would replace), a snippet that ends before
/// the file does (the file goes on past lines the chunk mirrors), and a tail one line short: each
/// would delete lines the snippet does not show; refused.
#[test]
fn a_bracket_ending_without_a_marker_does_not_claim_the_end_over_lines_it_does_not_mirror() {
    let file = "function a() {\n  setup()\n}\nfunction main() {\n  runServer()\n}\n";
    // A new function meant to be added after `a`: unlike `main`, so `main` is not replaced.
    let f = refused(
        file,
        "// ...\nfunction a() {\n  setup()\n}\nfunction extra() {\n  other()\n}\n",
    );
    assert_eq!(f.code, Code::SnippetUnanchored);
    // The same change of `main` in a file that goes on below it.
    let longer = "function a() {\n  setup()\n}\nfunction main() {\n  runServer()\n}\nfunction z() {\n  zz()\n}\n";
    let f = refused(
        longer,
        "// ...\nfunction a() {\n  setup()\n}\nfunction main2() {\n  runServer2()\n}\n",
    );
    assert_eq!(f.code, Code::SnippetUnanchored);
    // Two new lines for three file lines: not a line-for-line change.
    let two = "function a() {\n  setup()\n}\nfunction main() {\n  runServer()\n  stop()\n}\n";
    let f = refused(
        two,
        "// ...\nfunction a() {\n  setup()\n}\nfunction main2() {\n  runServer2()\n}\n",
    );
    assert_eq!(f.code, Code::SnippetUnanchored, "{}", f.message);
    // The same tail mirrored line for line lands as the change it shows.
    assert_eq!(
        text(
            file,
            "// ...\nfunction a() {\n  setup()\n}\nfunction main2() {\n  runServer2()\n}\n"
        ),
        file.replace("main()", "main2()")
            .replace("runServer()", "runServer2()")
    );
}

/// A later chunk found at several places lists first the places in order (below the chunk before it),
/// which are the ones it can mean, each with its distinguishing line; one above comes last, without.
#[test]
fn an_ambiguous_later_chunk_lists_its_places_in_order_first() {
    let file = "x()\nif (x) {\n  go()\n}\nfirst()\nmid()\ny()\nif (x) {\n  go()\n}\nz()\nif (x) {\n  go()\n}\n";
    let snip = "// ...\nfirst()\nadded()\nmid()\n// ...\nif (x) {\n  go()\n  more()\n// ...\n";
    let f = refused(file, snip);
    assert_eq!(f.code, Code::SnippetAmbiguous, "{}", f.message);
    assert_eq!(f.detail("chunk_index").unwrap(), 1);
    let starts: Vec<u64> = f
        .detail("candidates")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["start_line"].as_u64().unwrap())
        .collect();
    assert_eq!(starts, vec![8, 12, 2]);
    assert_eq!(
        hints(&f),
        vec![
            (8, 7, "above".to_string(), 7, 7),
            (12, 11, "above".to_string(), 11, 11)
        ]
    );
}

/// Trap (found by snippets cut mid-file from lazy-dev's files): a snippet ending in `  }` with no
/// marker below, under a template string's line at column 0. The file's last `}` is the first line
/// at that line's indentation, but the snippet's `}` is indented deeper than that line, as the file's
/// is not: it closes the `if` in between, and claiming the end would delete `more()`. Refused.
#[test]
fn a_bracket_deeper_than_the_line_it_would_close_does_not_claim_the_end() {
    let file = "function g() {\n  if (!target) {\n    const err = new Error(\n`Missing target.\nTo fix: reinstall`\n    )\n    err.code = 'E'\n    throw err\n  }\n  more()\n}\n";
    let snip = "// ... existing code ...\nTo fix: reinstall`\n    )\n    err.code = 'E'\n    throw err // x\n  }\n";
    assert_eq!(refused(file, snip).code, Code::SnippetUnanchored);
    // With the marker below, the `}` is no longer placed on the file's last line either: it occurs
    // twice below the chunk's run, so the chunk is refused, and the hint names `more()` below it.
    let marked = format!("{snip}// ... existing code ...\n");
    let f = refused(file, &marked);
    assert_eq!(f.code, Code::SnippetAmbiguous, "{}", f.message);
    let h = hints(&f);
    assert_eq!(h, vec![(9, 10, "below".to_string(), 10, 10)]);
    assert_eq!(
        text(file, &follow(file, &marked, &f, &h[0])),
        file.replace("throw err\n", "throw err // x\n")
    );
}

/// Snippets cut from real files at each bracket line, the lines above it changed: with no marker below
/// (the snippet stops mid-file) nothing merges that deletes past the snippet's end; with a marker below,
/// a merge is the change shown or the insertion the rules read (new lines beside the run), never
/// anything else. The files are this module's own sources.
#[test]
fn snippets_cut_mid_file_never_delete_what_they_do_not_show() {
    let sources = [
        include_str!("anchor.rs"),
        include_str!("markers.rs"),
        include_str!("hints.rs"),
    ];
    let mut tried = 0;
    for src in sources {
        let fl: Vec<&str> = src.lines().collect();
        let last = fl.iter().rposition(|l| !l.trim().is_empty()).unwrap();
        for b in 5..last.saturating_sub(1) {
            let t = fl[b].trim();
            if t.is_empty() || !t.chars().all(|c| "}]);,".contains(c)) {
                continue;
            }
            for k in [1, 2] {
                let mut s: Vec<String> = vec!["// ... existing code ...".into()];
                s.extend(fl[b - 3 - k..b - k].iter().map(|l| l.to_string()));
                s.extend(fl[b - k..b].iter().map(|l| match l.trim().is_empty() {
                    true => l.to_string(),
                    false => format!("{l} // x"),
                }));
                s.push(fl[b].to_string());
                let open = s.join("\n") + "\n";
                tried += 1;
                if let Ok(Plan::Merged(m)) = merge(src, &open, Tolerance::Safe) {
                    assert!(
                        m.removed.iter().all(|r| r.end_line <= b + 1),
                        "cut at line {}: {:?}",
                        b + 1,
                        m.removed
                    );
                }
                let marked = format!("{open}// ... existing code ...\n");
                if let Ok(Plan::Merged(m)) = merge(src, &marked, Tolerance::Safe) {
                    let changed: Vec<String> = fl
                        .iter()
                        .enumerate()
                        .map(|(i, l)| match i >= b - k && i < b && !l.trim().is_empty() {
                            true => format!("{l} // x"),
                            false => l.to_string(),
                        })
                        .collect();
                    let mut ins: Vec<String> = fl[..b - k].iter().map(|l| l.to_string()).collect();
                    ins.extend(s[4..].iter().cloned());
                    ins.extend(fl[b - k..].iter().map(|l| l.to_string()));
                    let (c, i) = (changed.join("\n") + "\n", ins.join("\n") + "\n");
                    assert!(
                        m.text == c || m.text == i,
                        "cut at line {} (k {k}):\n{}",
                        b + 1,
                        m.text
                    );
                }
            }
        }
    }
    assert!(tried > 100, "{tried}");
}
