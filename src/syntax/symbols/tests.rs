use super::*;

const FIXTURES: &[(&str, &str)] = &[
    (
        "service.py",
        include_str!("../../../tests/fixtures/symbols/service.py"),
    ),
    (
        "store.ts",
        include_str!("../../../tests/fixtures/symbols/store.ts"),
    ),
    (
        "widget.js",
        include_str!("../../../tests/fixtures/symbols/widget.js"),
    ),
    (
        "lib.rs",
        include_str!("../../../tests/fixtures/symbols/lib.rs"),
    ),
    (
        "server.go",
        include_str!("../../../tests/fixtures/symbols/server.go"),
    ),
    (
        "config.json",
        include_str!("../../../tests/fixtures/symbols/config.json"),
    ),
    (
        "main.c",
        include_str!("../../../tests/fixtures/symbols/main.c"),
    ),
    (
        "shapes.hpp",
        include_str!("../../../tests/fixtures/symbols/shapes.hpp"),
    ),
    (
        "Button.tsx",
        include_str!("../../../tests/fixtures/symbols/Button.tsx"),
    ),
    (
        "Account.java",
        include_str!("../../../tests/fixtures/symbols/Account.java"),
    ),
];

fn find<'a>(o: &'a Outline, name_path: &str) -> &'a Symbol {
    let i = resolve(&o.symbols, name_path).unwrap_or_else(|e| panic!("{name_path}: {e:?}"));
    &o.symbols[i]
}

fn lines_of(o: &Outline, name_path: &str) -> (usize, usize) {
    let s = find(o, name_path);
    (s.start_line, s.end_line)
}

/// Every symbol's canonical name path, sent back verbatim, resolves to exactly that symbol; every
/// span is whole lines and holds the symbol's name; no two symbols share a canonical name path.
#[test]
fn every_canonical_name_path_resolves_to_its_own_symbol() {
    let mut total = 0;
    for (path, src) in FIXTURES {
        let o = outline(path, src).unwrap();
        assert!(o.symbols.len() >= 8, "{path}: {}", o.text());
        let mut seen = std::collections::HashSet::new();
        for (i, s) in o.symbols.iter().enumerate() {
            assert!(
                seen.insert(s.name_path.clone()),
                "{path}: {} twice",
                s.name_path
            );
            assert_eq!(
                resolve(&o.symbols, &s.name_path),
                Ok(i),
                "{path}: {}",
                s.name_path
            );
            assert_eq!(
                resolve(&o.symbols, &format!("/{}", s.name_path)),
                Ok(i),
                "{path}: /{}",
                s.name_path
            );
            assert!(
                s.start == 0 || src.as_bytes()[s.start - 1] == b'\n',
                "{path}: {}",
                s.name_path
            );
            assert!(
                s.end == src.len() || src.as_bytes()[s.end - 1] == b'\n',
                "{path}: {}",
                s.name_path
            );
            assert!(
                src[s.start..s.end].contains(s.name.as_str())
                    || s.kind == "impl"
                    || s.path.len() > 1,
                "{path}: {}",
                s.name_path
            );
            total += 1;
        }
    }
    assert!(total > 100, "{total}");
}

/// Candidates sent back with SYMBOL_AMBIGUOUS / SYMBOL_NOT_FOUND resolve to exactly themselves.
#[test]
fn candidates_resolve_verbatim() {
    for (path, src) in FIXTURES {
        let o = outline(path, src).unwrap();
        for q in [
            "get", "fmt", "area", "count", "main", "format", "parse", "Account", "nope", "x", "add",
        ] {
            let cands = match resolve(&o.symbols, q) {
                Ok(_) => continue,
                Err(Resolved::NotFound { candidates })
                | Err(Resolved::Ambiguous { candidates }) => candidates,
            };
            for c in cands {
                assert_eq!(
                    resolve(&o.symbols, &o.symbols[c].name_path),
                    Ok(c),
                    "{path}: {q}"
                );
            }
        }
    }
}

fn o(path: &str, src: &str) -> Outline {
    outline(path, src).unwrap()
}

#[test]
fn name_paths_accept_dot_and_colons_and_suffixes() {
    let src = FIXTURES[7].1;
    let x = o("shapes.hpp", src);
    assert_eq!(find(&x, "geo::Shape::id").name, "id");
    assert_eq!(find(&x, "Shape.id").name, "id");
    assert_eq!(find(&x, "Shape/id").name, "id");
    assert_eq!(find(&x, "id").name, "id");
    // Absolute: `/Shape/id` is no top-level path.
    assert!(matches!(
        resolve(&x.symbols, "/Shape/id"),
        Err(Resolved::NotFound { .. })
    ));
    assert_eq!(find(&x, "/geo/Shape/id").name, "id");
    // Overloads: ambiguous without the index, each with it.
    match resolve(&x.symbols, "add") {
        Err(Resolved::Ambiguous { candidates }) => assert_eq!(candidates.len(), 2),
        r => panic!("{r:?}"),
    }
    assert_eq!(lines_of(&x, "add[1]"), (35, 35));
    assert!(matches!(
        resolve(&x.symbols, "add[2]"),
        Err(Resolved::NotFound { .. })
    ));
    // An exact whole path wins over a longer one it is a suffix of.
    let src =
        "class A:\n    def m(self): pass\n\nclass B:\n    class A:\n        def m(self): pass\n";
    let p = o("a.py", src);
    assert_eq!(lines_of(&p, "A/m"), (2, 2));
    assert_eq!(lines_of(&p, "B/A/m"), (6, 6));
    assert_eq!(lines_of(&p, "B.A.m"), (6, 6));
}

#[test]
fn python_overloads_properties_and_decorators() {
    let x = o("s.py", FIXTURES[0].1);
    assert_eq!(
        lines_of(&x, "Cache/count[0]"),
        (19, 21),
        "getter with @property"
    );
    assert_eq!(lines_of(&x, "Cache/count[1]"), (23, 25), "setter");
    assert_eq!(lines_of(&x, "Cache/get[0]"), (27, 28), "@overload stub");
    assert_eq!(lines_of(&x, "Cache/get[2]"), (33, 34));
    assert_eq!(lines_of(&x, "run"), (41, 47), "a multi-line decorator");
    assert_eq!(
        lines_of(&x, "Cache"),
        (9, 38),
        "the plain comment directly above"
    );
    assert_eq!(find(&x, "Cache/Entry/expired").kind, "method");
    assert_eq!(find(&x, "serve").kind, "function");
    assert_eq!(find(&x, "DEFAULT_TIMEOUT").kind, "constant");
    // Nested functions are not symbols.
    assert!(resolve(&x.symbols, "helper").is_err());
}

#[test]
fn comments_above_attach_unless_a_blank_line_or_code_separates_them() {
    let src = "// plain, directly above\nfn a() {}\n\n// detached by a blank line\n\nfn b() {}\nfn c() {} // trailing\n/// doc\n#[inline]\n/// more doc\nfn d() {}\n";
    let x = o("a.rs", src);
    assert_eq!(lines_of(&x, "a"), (1, 2));
    assert_eq!(lines_of(&x, "b"), (6, 6));
    assert_eq!(
        lines_of(&x, "c"),
        (7, 7),
        "a trailing comment is on the symbol's own line"
    );
    assert_eq!(
        lines_of(&x, "d"),
        (8, 11),
        "doc comments and attributes, interleaved"
    );
    // Rust inner docs stay with the module.
    let x = o("a.rs", "//! crate doc\nfn a() {}\n");
    assert_eq!(lines_of(&x, "a"), (2, 2));
    // A comment that follows code on its line belongs to that code.
    let x = o("a.c", "int x; /* about x */\nint f(void) { return 0; }\n");
    assert_eq!(lines_of(&x, "f"), (2, 2));
}

#[test]
fn rust_impls_and_traits() {
    let x = o("lib.rs", FIXTURES[3].1);
    assert_eq!(find(&x, "Point").kind, "struct", "T alone names the struct");
    assert_eq!(
        lines_of(&x, "Point"),
        (10, 16),
        "doc comment and two attributes"
    );
    assert_eq!(find(&x, "Point/new").kind, "method");
    assert_eq!(lines_of(&x, "Point/norm"), (24, 27), "#[inline]");
    assert_eq!(
        lines_of(&x, "Point/fmt"),
        (31, 33),
        "impl Trait for T methods are T/method"
    );
    assert_eq!(lines_of(&x, "impl Display for Point"), (30, 34));
    assert_eq!(lines_of(&x, "impl Point"), (18, 28));
    assert_eq!(lines_of(&x, "Area/double"), (53, 55));
    assert_eq!(lines_of(&x, "distance"), (66, 68));
    assert_eq!(lines_of(&x, "MAX"), (5, 6));
}

#[test]
fn go_receivers_and_type_groups() {
    let x = o("server.go", FIXTURES[4].1);
    assert_eq!(
        lines_of(&x, "Server/Start"),
        (41, 44),
        "*T receiver, doc comment"
    );
    assert_eq!(lines_of(&x, "Server/Addr"), (46, 48), "T receiver");
    assert_eq!(lines_of(&x, "Stack/Push"), (58, 60), "generic receiver");
    let h = find(&x, "Handler");
    assert_eq!((h.start_line, h.end_line, h.group), (24, 25, Some("type")));
    assert_eq!(find(&x, "Options").kind, "struct");
    assert_eq!(find(&x, "Runner").kind, "interface");
    assert_eq!(lines_of(&x, "Server"), (17, 21));
    assert_eq!(find(&x, "Server").group, None);
    assert_eq!(lines_of(&x, "ModeA"), (12, 13));
}

#[test]
fn typescript_exports_decorators_and_overloads() {
    let x = o("store.ts", FIXTURES[1].1);
    assert_eq!(
        lines_of(&x, "MemoryStore"),
        (18, 45),
        "doc, decorator, export"
    );
    assert_eq!(
        lines_of(&x, "MemoryStore/set"),
        (31, 34),
        "method decorator"
    );
    assert_eq!(lines_of(&x, "parse[0]"), (47, 47));
    assert_eq!(lines_of(&x, "parse[2]"), (49, 51));
    assert_eq!(lines_of(&x, "MemoryStore/format[1]"), (37, 37));
    assert_eq!(lines_of(&x, "main"), (53, 55), "export default");
    assert_eq!(lines_of(&x, "helper"), (57, 57));
    assert_eq!(find(&x, "Store/get").kind, "method");
    assert_eq!(find(&x, "Internal/hidden").kind, "function");
    let x = o("w.js", FIXTURES[2].1);
    assert_eq!(lines_of(&x, "build"), (5, 10));
    assert_eq!(lines_of(&x, "Widget"), (12, 25));
    assert_eq!(lines_of(&x, "Widget/create"), (22, 24));
}

#[test]
fn java_annotations_and_constructors() {
    let x = o("A.java", FIXTURES[9].1);
    assert_eq!(lines_of(&x, "Account"), (5, 45), "javadoc and annotations");
    assert_eq!(lines_of(&x, "deposit"), (23, 28));
    assert_eq!(lines_of(&x, "Account/Account[1]"), (19, 21));
    assert_eq!(find(&x, "LIMIT").kind, "constant");
    assert_eq!(find(&x, "Kind/interest").kind, "method");
}

#[test]
fn c_and_cpp_templates_duplicates_and_typedefs() {
    let x = o("main.c", FIXTURES[6].1);
    assert_eq!(lines_of(&x, "main[0]"), (28, 31));
    assert_eq!(lines_of(&x, "main[1]"), (33, 37));
    assert_eq!(lines_of(&x, "point_t"), (12, 15));
    assert_eq!(lines_of(&x, "list"), (6, 10));
    assert_eq!(lines_of(&x, "count[1]"), (21, 25));
    assert_eq!(find(&x, "MAX_ITEMS").kind, "constant");
    let x = o("s.hpp", FIXTURES[7].1);
    assert_eq!(lines_of(&x, "Box"), (17, 21), "template<>");
    assert_eq!(lines_of(&x, "max_of"), (23, 28));
    assert_eq!(lines_of(&x, "Shape"), (6, 15), "/// doc and the trailing ;");
    assert_eq!(
        lines_of(&x, "Shape/area[1]"),
        (30, 32),
        "out-of-class definition"
    );
}

#[test]
fn json_keys() {
    let x = o("c.json", FIXTURES[5].1);
    assert_eq!(lines_of(&x, "scripts"), (4, 7));
    assert_eq!(lines_of(&x, "scripts/test"), (6, 6));
    assert_eq!(lines_of(&x, "dependencies/a.b"), (10, 10));
    assert_eq!(lines_of(&x, "a.b"), (10, 10));
    assert_eq!(lines_of(&x, "@types/node"), (9, 9));
}

// ---- edits ----------------------------------------------------------------------------------------

fn edit(path: &str, src: &str, name_path: &str, action: Action, text: &str) -> String {
    let x = o(path, src);
    let i = resolve(&x.symbols, name_path).unwrap_or_else(|e| panic!("{name_path}: {e:?}"));
    apply(src, &x, i, action, text).unwrap().text
}

/// A new symbol named `zz_inserted` that fits next to `s` in `language`.
fn sample(language: &str, x: &Outline, s: &Symbol) -> Option<&'static str> {
    let parent = s.parent.map(|p| x.symbols[p].kind);
    Some(match (language, parent, s.group) {
        ("python", _, _) => "def zz_inserted():\n    return 1\n",
        ("javascript" | "typescript" | "tsx", None | Some("namespace"), _) => {
            "function zz_inserted() {\n  return 1;\n}\n"
        }
        ("javascript" | "typescript" | "tsx", Some("class"), _) => {
            "zz_inserted() {\n  return 1;\n}\n"
        }
        ("javascript" | "typescript" | "tsx", Some("interface"), _) => "zz_inserted(): void;\n",
        ("rust", None | Some("namespace"), _) => "fn zz_inserted() -> u8 {\n    1\n}\n",
        ("rust", Some("impl"), _) => "fn zz_inserted(&self) -> u8 {\n    1\n}\n",
        ("rust", Some("trait"), _) => "fn zz_inserted(&self) -> u8;\n",
        ("go", _, Some("type")) => "zz_inserted int\n",
        ("go", _, Some("const")) => "zz_inserted = 5\n",
        ("go", Some("interface"), _) => "zz_inserted() error\n",
        ("go", None, _) => "func zz_inserted() int {\n\treturn 1\n}\n",
        ("json", _, _) => "\"zz_inserted\": 1\n",
        ("c" | "cpp", None | Some("namespace"), _) => "int zz_inserted(void) {\n    return 1;\n}\n",
        ("cpp", Some("class" | "struct"), _) => "int zz_inserted() const { return 1; }\n",
        ("java", None, _) => "class zz_inserted {\n}\n",
        ("java", Some("interface"), _) => "void zz_inserted();\n",
        ("java", Some(_), _) => "void zz_inserted() {\n}\n",
        _ => return None,
    })
}

/// For every symbol of every fixture: replacing it with its own text, sent in any of the three
/// indentation forms, leaves the file as it was; an insert before or after it parses, stays on
/// lines of its own, and deleting what was inserted restores the file byte for byte.
#[test]
fn replace_with_itself_and_insert_then_delete_are_identities() {
    let mut checked = 0;
    for (path, src) in FIXTURES {
        let x = o(path, src);
        for (i, s) in x.symbols.iter().enumerate() {
            if s.shares_line {
                continue;
            }
            let own = &src[s.start..s.end];
            let head_indent = own.len() - own.trim_start_matches([' ', '\t']).len();
            let column0: String = own
                .lines()
                .map(|l| {
                    let cut = l.len() - l.trim_start_matches([' ', '\t']).len();
                    &l[cut.min(head_indent)..]
                })
                .collect::<Vec<_>>()
                .join("\n");
            let first_stripped = own.trim_start_matches([' ', '\t']);
            for (form, text) in [
                ("as is", own),
                ("column 0", column0.as_str()),
                ("first at 0", first_stripped),
            ] {
                let r = apply(src, &x, i, Action::Replace, text).unwrap();
                assert_eq!(r.text, *src, "{path}: replace {} ({form})", s.name_path);
            }
            let Some(new) = sample(x.language, &x, s) else {
                continue;
            };
            for action in [Action::InsertBefore, Action::InsertAfter] {
                let r = apply(src, &x, i, action, new).unwrap();
                let report = crate::syntax::check(path, src, &r.text, &[]);
                assert!(
                    report.ok,
                    "{path}: {action:?} {}: {report:?}\n{}",
                    s.name_path, r.text
                );
                let y = o(path, &r.text);
                let j = y
                    .symbols
                    .iter()
                    .position(|t| t.name == "zz_inserted")
                    .unwrap_or_else(|| panic!("{path}: {action:?} {}:\n{}", s.name_path, r.text));
                let back = apply(&r.text, &y, j, Action::Delete, "").unwrap();
                assert_eq!(
                    back.text, *src,
                    "{path}: {action:?} {} then delete:\n{}",
                    s.name_path, r.text
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "{checked}");
}

#[test]
fn the_three_indentation_forms_give_the_same_result() {
    let src =
        "class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n";
    let want = "class A:\n    def a(self):\n        if x:\n            return 3\n        return 1\n\n    def b(self):\n        return 2\n";
    for text in [
        "    def a(self):\n        if x:\n            return 3\n        return 1\n",
        "def a(self):\n    if x:\n        return 3\n    return 1\n",
        "def a(self):\n        if x:\n            return 3\n        return 1\n",
    ] {
        assert_eq!(
            edit("a.py", src, "A/a", Action::Replace, text),
            want,
            "{text:?}"
        );
    }
    let src = "impl S {\n    fn a(&self) {\n        x();\n    }\n}\n";
    let want = "impl S {\n    fn a(&self) {\n        y();\n    }\n}\n";
    for text in [
        "    fn a(&self) {\n        y();\n    }",
        "fn a(&self) {\n    y();\n}",
        "fn a(&self) {\n        y();\n    }",
    ] {
        assert_eq!(
            edit("a.rs", src, "S/a", Action::Replace, text),
            want,
            "{text:?}"
        );
    }
}

#[test]
fn inserted_text_never_joins_a_line_and_a_final_newline_adds_no_blank_line() {
    // No final newline: the file keeps lacking one.
    let src = "fn a() {}\nfn b() {}";
    let out = edit("a.rs", src, "b", Action::InsertAfter, "fn c() {}\n\n");
    assert_eq!(out, "fn a() {}\nfn b() {}\nfn c() {}");
    let out = edit("a.rs", src, "b", Action::Replace, "fn b() { x() }\n");
    assert_eq!(out, "fn a() {}\nfn b() { x() }");
    let out = edit("a.rs", src, "a", Action::InsertBefore, "fn z() {}\n");
    assert_eq!(out, "fn z() {}\nfn a() {}\nfn b() {}");
    let out = edit("a.rs", src, "b", Action::Delete, "");
    assert_eq!(out, "fn a() {}");
    // CRLF: inserted lines take the file's terminator.
    let src = "fn a() {\r\n}\r\n\r\nfn b() {}\r\n";
    let out = edit(
        "a.rs",
        src,
        "a",
        Action::InsertAfter,
        "fn c() {\n    1\n}\n",
    );
    assert_eq!(
        out,
        "fn a() {\r\n}\r\n\r\nfn c() {\r\n    1\r\n}\r\n\r\nfn b() {}\r\n"
    );
}

#[test]
fn blank_lines_follow_the_file() {
    let src = "import os\n\n\ndef a():\n    pass\n\n\nclass K:\n    def m(self):\n        pass\n";
    let out = edit(
        "a.py",
        src,
        "a",
        Action::InsertAfter,
        "def b():\n    pass\n",
    );
    assert_eq!(out, "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n\n\nclass K:\n    def m(self):\n        pass\n");
    let out = edit(
        "a.py",
        src,
        "K/m",
        Action::InsertAfter,
        "def n(self):\n    pass\n",
    );
    assert_eq!(out, "import os\n\n\ndef a():\n    pass\n\n\nclass K:\n    def m(self):\n        pass\n\n    def n(self):\n        pass\n");
    // Delete takes the following separator, or the preceding one before `}` / at the end.
    let src = "class A {\n  a() {}\n\n  b() {}\n\n  c() {}\n}\n";
    assert_eq!(
        edit("a.ts", src, "A/a", Action::Delete, ""),
        "class A {\n  b() {}\n\n  c() {}\n}\n"
    );
    assert_eq!(
        edit("a.ts", src, "A/c", Action::Delete, ""),
        "class A {\n  a() {}\n\n  b() {}\n}\n"
    );
    let src = "fn a() {}\n\nfn b() {}\n";
    assert_eq!(edit("a.rs", src, "b", Action::Delete, ""), "fn a() {}\n");
}

#[test]
fn tabs_and_go_groups() {
    let src = "package p\n\ntype (\n\tA int\n\tB string\n)\n\nfunc F() {\n\treturn\n}\n";
    // A `type` keyword inside the group is dropped; spaces become the file's tabs.
    let out = edit(
        "a.go",
        src,
        "A",
        Action::Replace,
        "type A struct {\n    X int\n}\n",
    );
    assert_eq!(out, "package p\n\ntype (\n\tA struct {\n\t\tX int\n\t}\n\tB string\n)\n\nfunc F() {\n\treturn\n}\n");
    let out = edit(
        "a.go",
        src,
        "F",
        Action::InsertAfter,
        "func G() {\n    if x {\n        y()\n    }\n}",
    );
    assert!(
        out.ends_with("func G() {\n\tif x {\n\t\ty()\n\t}\n}\n"),
        "{out}"
    );
}

#[test]
fn json_commas_follow_inserts_and_deletes() {
    let src = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
    let out = edit("a.json", src, "b", Action::InsertAfter, "\"c\": 3");
    assert_eq!(out, "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n");
    assert_eq!(edit("a.json", &out, "c", Action::Delete, ""), src);
    let out = edit("a.json", src, "a", Action::InsertBefore, "\"z\": 0");
    assert_eq!(out, "{\n  \"z\": 0,\n  \"a\": 1,\n  \"b\": 2\n}\n");
    assert_eq!(
        edit("a.json", src, "b", Action::Delete, ""),
        "{\n  \"a\": 1\n}\n"
    );
    assert_eq!(
        edit("a.json", src, "a", Action::Replace, "\"a\": [1]"),
        "{\n  \"a\": [1],\n  \"b\": 2\n}\n"
    );
}

#[test]
fn replace_reports_what_the_new_text_leaves_out() {
    let old = "/** Doc. */\n@Injectable()\nexport class A {}\n";
    assert_eq!(
        dropped_parts(old, "class A { x = 1 }"),
        vec!["the comment above it", "@Injectable()", "export"]
    );
    assert!(dropped_parts(old, old).is_empty());
    let old = "    @property\n    def size(self):\n        return 1\n";
    assert_eq!(
        dropped_parts(old, "def size(self):\n    return 0\n"),
        vec!["@property"]
    );
}

#[test]
fn tsx_components() {
    let x = o("B.tsx", FIXTURES[8].1);
    assert_eq!(
        lines_of(&x, "Button"),
        (8, 21),
        "doc comment, export, JSX body"
    );
    assert_eq!(lines_of(&x, "Small"), (23, 23));
    assert_eq!(lines_of(&x, "Panel"), (25, 35), "export default class");
    assert_eq!(
        lines_of(&x, "Panel/toggle"),
        (28, 30),
        "an arrow-function field is a method"
    );
    assert_eq!(find(&x, "ButtonProps").kind, "interface");
    assert_eq!(find(&x, "THEME").kind, "constant");
    assert_eq!(find(&x, "Variant").kind, "enum");
}

#[test]
fn the_narrow_change_leaves_out_what_old_and_new_share() {
    let src = "fn a() {\n    one();\n    two();\n}\n\nfn b() {}\n";
    let x = o("a.rs", src);
    let i = resolve(&x.symbols, "a").unwrap();
    let e = apply(
        src,
        &x,
        i,
        Action::Replace,
        "fn a() {\n    one();\n    три();\n}\n",
    )
    .unwrap();
    assert_eq!(e.change, (0, 33, 0, 36));
    let (os, oe, ns, ne) = e.narrow;
    assert_eq!((&src[os..oe], &e.text[ns..ne]), ("two", "три"));
    let same = apply(src, &x, i, Action::Replace, &src[..33]).unwrap();
    assert_eq!(same.narrow.0, same.narrow.1);
}

#[test]
fn tabs_in_the_text_become_the_files_spaces() {
    let src = "class A:\n  def a(self):\n    return 1\n";
    let out = edit(
        "a.py",
        src,
        "A/a",
        Action::Replace,
        "def a(self):\n\tif x:\n\t\treturn 2\n\treturn 1\n",
    );
    assert_eq!(
        out,
        "class A:\n  def a(self):\n    if x:\n      return 2\n    return 1\n"
    );
}

/// The partial outline editSymbol resolves in answers every name path exactly as the whole one:
/// the same symbol, span and canonical name path, or a failure where the whole one fails.
#[test]
fn the_partial_outline_resolves_like_the_whole_one() {
    let mut checked = 0;
    for (path, src) in FIXTURES {
        let x = o(path, src);
        let mut queries: Vec<String> = Vec::new();
        for s in &x.symbols {
            queries.push(s.name_path.clone());
            queries.push(format!("/{}", s.name_path));
            queries.push(s.name.clone());
            queries.push(format!("{}[1]", s.name));
            queries.push(s.path.join("."));
        }
        queries.push("nope".into());
        for q in &queries {
            let part = outline_for(path, src, q).unwrap();
            assert!(part.symbols.len() <= x.symbols.len());
            match (resolve(&x.symbols, q), resolve(&part.symbols, q)) {
                (Ok(a), Ok(b)) => {
                    let (a, b) = (&x.symbols[a], &part.symbols[b]);
                    assert_eq!(
                        (&a.name_path, a.start, a.end, a.kind),
                        (&b.name_path, b.start, b.end, b.kind),
                        "{path}: {q}"
                    );
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{path}: {q}: whole {a:?}, partial {b:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked}");
}

/// The resolution from the text agrees with the whole outline: for every name path, the same
/// symbol (name path, span, kind), or the same failure with the same candidates when ambiguous.
fn named_resolves_like_the_whole_outline(path: &str, src: &str, queries: &[String]) -> usize {
    let x = o(path, src);
    let whole_names = |ids: &[usize]| -> Vec<String> {
        ids.iter()
            .map(|&i| x.symbols[i].name_path.clone())
            .collect()
    };
    for q in queries {
        let part = outline_named(path, src, q).unwrap();
        assert!(part.symbols.len() <= x.symbols.len(), "{path}: {q}");
        let names = |ids: &[usize]| -> Vec<String> {
            ids.iter()
                .map(|&i| part.symbols[i].name_path.clone())
                .collect()
        };
        match (resolve(&x.symbols, q), resolve(&part.symbols, q)) {
            (Ok(a), Ok(b)) => {
                let (a, b) = (&x.symbols[a], &part.symbols[b]);
                assert_eq!(
                    (&a.name_path, a.start, a.end, a.kind, a.parent.is_some()),
                    (&b.name_path, b.start, b.end, b.kind, b.parent.is_some()),
                    "{path}: {q}"
                );
            }
            (
                Err(Resolved::Ambiguous { candidates: a }),
                Err(Resolved::Ambiguous { candidates: b }),
            ) => assert_eq!(whole_names(&a), names(&b), "{path}: {q}"),
            (Err(Resolved::NotFound { .. }), Err(Resolved::NotFound { .. })) => {}
            (a, b) => panic!("{path}: {q}: whole {a:?}, from the text {b:?}"),
        }
    }
    queries.len()
}

/// Every way of naming every symbol of every fixture, plus indexes past the end and names that
/// name nothing, resolves from the text exactly as in the whole outline.
#[test]
fn the_resolution_from_the_text_agrees_with_the_outline_walk() {
    let mut checked = 0;
    for (path, src) in FIXTURES {
        let x = o(path, src);
        let mut queries: Vec<String> = Vec::new();
        for s in &x.symbols {
            let last = s.path.len().saturating_sub(2);
            queries.extend([
                s.name_path.clone(),
                format!("/{}", s.name_path),
                s.name.clone(),
                format!("{}[0]", s.name),
                format!("{}[1]", s.name),
                format!("{}[9]", s.name),
                s.path.join("."),
                s.path.join("::"),
                s.path[last..].join("/"),
                format!("/{}", s.name),
                format!("{}/{}", s.name, s.name),
            ]);
        }
        queries.extend(["nope", "x", "get", "a/b", "::", "/", "[0]", "main[1]"].map(String::from));
        checked += named_resolves_like_the_whole_outline(path, src, &queries);
    }
    assert!(checked > 1000, "{checked}");
}

/// A name that occurs only in strings and comments names nothing; occurrences there do not make a
/// symbol of the same name ambiguous; names the outline builds (a Rust impl, a C++ operator written
/// with a space) and out-of-line members (Go methods, C++ `A::f`) resolve as in the whole outline.
#[test]
fn names_in_strings_comments_and_built_names_resolve_like_the_outline_walk() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "a.ts",
            "// run Service/run ghost\nconst s = \"ghost run Service.run\";\nexport class Service {\n  /** calls run() */\n  run(): void { log('run'); }\n}\nfunction other() { return 'Service/run'; }\n",
            &["ghost", "run", "Service/run", "Service.run", "/run", "run[0]", "run[1]", "other", "s", "log"],
        ),
        (
            "a.py",
            "# helper\nNAME = 'helper'\n\n\nclass A:\n    \"\"\"helper A.helper\"\"\"\n\n    def helper(self):\n        return 'helper'\n",
            &["helper", "A/helper", "A.helper", "NAME", "nope"],
        ),
        (
            "a.rs",
            "struct Foo<T>(T);\n// impl Foo\nimpl<T> Foo<T> {\n    fn get(&self) {}\n}\nimpl<T> std::fmt::Display for Foo<T> {\n    fn fmt(&self) {}\n}\n",
            &["impl Foo", "impl Display for Foo", "Foo", "Foo/get", "get", "fmt", "Foo/fmt", "/Foo"],
        ),
        (
            "a.cpp",
            "struct A { void* operator new(unsigned long n); };\nvoid* A::operator new(unsigned long n) { return 0; }\nnamespace n { struct B { int f(); }; }\nint n::B::f() { return 1; }\n",
            &["A/operatornew", "operatornew", "operator new", "n/B/f", "B/f", "f", "f[1]", "n::B::f[0]"],
        ),
        (
            "b.cpp",
            "namespace x::y { struct C { C(); ~C(); int g(); }; }\nint x::y::C::g() { return 2; }\nx::y::C:: ~ C() {}\nint x::y::C::/*c*/g() { return 3; }\n",
            &["x::y/C/g", "x::y::C::g", "g", "C/g", "g[1]", "C/~C", "~C", "x::y", "/x::y/C", "C", "C/C", "/*c*/g", "C//*c*/g"],
        ),
        (
            "a.go",
            "package p\n\ntype T struct{}\n\n// Get of T\nfunc (t *T) Get() {}\n\nfunc Get() {}\n",
            &["T/Get", "Get", "Get[1]", "T.Get", "/Get", "T"],
        ),
        (
            "a.json",
            "{\"a\": {\"b.c\": 1, \"x\": \"a\"}, \"b\": {\"c\": 2}, \"t\": \"b.c\"}\n",
            &["a/b.c", "b.c", "b/c", "c", "a", "x", "t"],
        ),
    ];
    for (path, src, queries) in cases {
        let queries: Vec<String> = queries.iter().map(|q| q.to_string()).collect();
        named_resolves_like_the_whole_outline(path, src, &queries);
    }
    // Only a comment and a string hold "ghost": no symbol is visited.
    let part = outline_named("a.ts", cases[0].1, "ghost").unwrap();
    assert!(part.symbols.is_empty(), "{:?}", part.symbols);
}

#[test]
fn a_comment_the_span_does_not_own_is_not_written_twice() {
    let src = "use x;\n\n// Helpers.\n\nfn a() {}\n";
    let out = edit(
        "a.rs",
        src,
        "a",
        Action::Replace,
        "// Helpers.\n\nfn a() { 1 }\n",
    );
    assert_eq!(out, "use x;\n\n// Helpers.\n\nfn a() { 1 }\n");
    // A text without it keeps it; a different comment is the new symbol's own.
    let out = edit("a.rs", src, "a", Action::Replace, "fn a() { 2 }\n");
    assert_eq!(out, "use x;\n\n// Helpers.\n\nfn a() { 2 }\n");
    let out = edit(
        "a.rs",
        src,
        "a",
        Action::Replace,
        "/// Doc.\nfn a() { 3 }\n",
    );
    assert_eq!(out, "use x;\n\n// Helpers.\n\n/// Doc.\nfn a() { 3 }\n");
}
