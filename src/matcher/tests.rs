use super::*;

fn apply(text: &str, old: &str, new: &str) -> Result<(String, Tier), Miss> {
    let h = Haystack::new(text);
    let ms = locate(&h, old, new, 1, Tolerance::Safe)?;
    let m = &ms[0];
    Ok((
        format!("{}{}{}", &text[..m.start], m.replacement, &text[m.end..]),
        m.tier,
    ))
}

#[test]
fn exact_unique_and_ambiguous() {
    assert_eq!(
        apply("a = 1\nb = 2\n", "b = 2", "b = 3").unwrap(),
        ("a = 1\nb = 3\n".into(), Tier::Exact)
    );
    match apply("x\nx\n", "x", "y") {
        Err(Miss::Count {
            count: 2,
            tier: Tier::Exact,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Overlapping occurrences count.
    assert!(matches!(
        apply("aaa", "aa", "b"),
        Err(Miss::Count { count: 2, .. })
    ));
    assert_eq!(apply("abc", "", "x"), Err(Miss::EmptyOld));
}

#[test]
fn crlf_file_lf_edit() {
    let (out, tier) = apply("a\r\nb\r\nc\r\n", "a\nb\n", "a\nB\nb2\n").unwrap();
    assert_eq!(out, "a\r\nB\r\nb2\r\nc\r\n");
    assert_eq!(tier, Tier::LineEndings);
    // A single-line exact match in a CRLF file writes new's breaks as CRLF.
    let (out, tier) = apply("a\r\nb\r\n", "b", "b\nc").unwrap();
    assert_eq!((out.as_str(), tier), ("a\r\nb\r\nc\r\n", Tier::Exact));
}

#[test]
fn trailing_whitespace_keeps_file_bytes_on_kept_lines() {
    let file = "fn a() {  \n    x();\t\n}\n";
    let (out, tier) = apply(
        file,
        "fn a() {\n    x();\n}\n",
        "fn a() {\n    x();\n    y();\n}\n",
    )
    .unwrap();
    assert_eq!(tier, Tier::TrailingWhitespace);
    assert_eq!(out, "fn a() {  \n    x();\t\n    y();\n}\n");
}

#[test]
fn typography_mid_line_and_whole_lines() {
    let file = "msg = \u{201C}hello\u{201D}  # greet\n";
    let (out, tier) = apply(file, "\"hello\"", "\"bye\"").unwrap();
    assert_eq!(tier, Tier::Typography);
    assert_eq!(out, "msg = \"bye\"  # greet\n");
    // ASCII in the file, curly in the edit.
    let (out, _) = apply("say('hi')\n", "say(\u{2018}hi\u{2019})", "say('yo')").unwrap();
    assert_eq!(out, "say('yo')\n");
    // NFD edit on an NFC file.
    let (out, tier) = apply("caf\u{e9} = 1\n", "cafe\u{301} = 1", "caf\u{e9} = 2").unwrap();
    assert_eq!((out.as_str(), tier), ("caf\u{e9} = 2\n", Tier::Typography));
}

#[test]
fn indentation_drift_reindents_new() {
    let file = "class A:\n    def f(self):\n        return 1\n";
    let (out, tier) = apply(
        file,
        "def f(self):\n    return 1\n",
        "def f(self):\n    x = 2\n    return x\n",
    )
    .unwrap();
    assert_eq!(tier, Tier::Indentation);
    assert_eq!(
        out,
        "class A:\n    def f(self):\n        x = 2\n        return x\n"
    );
}

#[test]
fn tabs_written_as_spaces_stay_tabs() {
    let file = "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n";
    let (out, tier) = apply(
        file,
        "    if x {\n        return\n    }\n",
        "    if x {\n        y()\n        return\n    }\n",
    )
    .unwrap();
    assert_eq!(tier, Tier::Indentation);
    assert_eq!(out, "func f() {\n\tif x {\n\t\ty()\n\t\treturn\n\t}\n}\n");
}

#[test]
fn inconsistent_drift_is_refused() {
    let file = "a:\n    b\n        c\n";
    let r = apply(file, "a:\n  b\n  c\n", "a:\n  b\n  d\n");
    assert!(matches!(r, Err(Miss::InconsistentIndent { .. })), "{r:?}");
}

#[test]
fn view_prefixes_are_stripped() {
    let file = "one\ntwo\nthree\n";
    let (out, tier) = apply(file, "     2\ttwo\n     3\tthree\n", "two\n3!\n").unwrap();
    assert_eq!((out.as_str(), tier), ("one\ntwo\n3!\n", Tier::LinePrefix));
    let (out, _) = apply(file, "2:ab|two\n3:cd|three", "2:ab|two\n3:cd|THREE").unwrap();
    assert_eq!(out, "one\ntwo\nTHREE\n");
}

#[test]
fn blank_edges_and_missing_final_newline() {
    let file = "a\nb\nc";
    let (out, tier) = apply(file, "\nb\nc\n", "\nb\nC\n").unwrap();
    assert_eq!((out.as_str(), tier), ("a\nb\nC", Tier::BlankEdges));
}

#[test]
fn ambiguity_at_a_tier_never_falls_through() {
    // Two regions match once trailing whitespace is ignored: refused, even though a looser tier exists.
    let file = "x = 1 \ny\nx = 1\t\ny\n";
    match apply(file, "x = 1\ny\n", "z\n") {
        Err(Miss::Count {
            count: 2,
            tier: Tier::TrailingWhitespace,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn content_differences_are_never_applied() {
    let file = "retries = 3\ntimeout = 10\n";
    assert!(matches!(
        apply(file, "retries = 2\ntimeout = 10\n", "x"),
        Err(Miss::NotFound { .. })
    ));
    assert!(matches!(
        apply(file, "retries = 3\n// ... existing code ...\n", "x"),
        Err(Miss::NotFound { .. })
    ));
}

#[test]
fn expected_replacements() {
    let h = Haystack::new("a\nb\na\n");
    let ms = locate(&h, "a", "c", 2, Tolerance::Safe).unwrap();
    assert_eq!(ms.len(), 2);
    assert!(matches!(
        locate(&h, "a", "c", 3, Tolerance::Safe),
        Err(Miss::Count {
            count: 2,
            expected: 3,
            ..
        })
    ));
}

#[test]
fn exact_tolerance_refuses_noise() {
    let h = Haystack::new("a\r\nb\r\n");
    assert!(matches!(
        locate(&h, "a\nb", "x", 1, Tolerance::Exact),
        Err(Miss::NotFound { .. })
    ));
}

#[test]
fn candidates_point_at_the_stale_region() {
    let mut file = String::new();
    for i in 0..200 {
        file.push_str(&format!("fn f{i}() {{\n    let retries = {i};\n}}\n"));
    }
    let h = Haystack::new(&file);
    let needle = "fn f120() {\n    let retries = 9999;\n}\n";
    let c = candidates::nearest(&h, needle, 3);
    assert!(!c.is_empty());
    assert_eq!(c[0].start_line, 361, "{c:?}");
    assert!(
        c[0].differences[0].contains("retries = 120"),
        "{:?}",
        c[0].differences
    );
}

#[test]
fn locate_in_counts_only_inside_the_range() {
    let text = "x = 1\nfn b() {\nx = 1\n}\n";
    let h = Haystack::new(text);
    assert!(matches!(
        locate(&h, "x = 1", "x = 2", 1, Tolerance::Safe),
        Err(Miss::Count { count: 2, .. })
    ));
    let from = text.find("fn b").unwrap();
    let m = locate_in(&h, "x = 1", "x = 2", 1, Tolerance::Safe, from..text.len()).unwrap();
    assert_eq!(h.line_of(m[0].start), 3);
}

#[test]
fn candidates_in_a_long_single_line() {
    let mut file = String::new();
    for i in 0..20_000 {
        file.push_str(&format!("var a{i}=f({i});"));
    }
    let h = Haystack::new(&file);
    let c = candidates::nearest(&h, "var a12345=g(12345);", 3);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].start_line, 1);
    assert!(c[0].similarity > 0.5, "{c:?}");
}

#[test]
fn exact_search_in_two_halves_counts_every_occurrence_once() {
    // Above PAR_MIN the search runs in two halves: occurrences straddling the middle, overlapping
    // ones on both sides of it, and multi-byte characters at the split are each counted once.
    let len = crate::text::PAR_MIN + 10;
    for (needle, placed) in [("needle", "needle"), ("aa", "aaaaa"), ("é€", "é€é€")] {
        for shift in 0..8 {
            let mut t = "-".repeat(len);
            let at = len / 2 - shift;
            t.replace_range(at..at + placed.len(), placed);
            t.replace_range(3..3 + needle.len(), needle);
            let b = t.as_bytes();
            let finder = super::search::Occurrences::new(needle.as_bytes());
            let plain = super::find_starting_in(&t, needle, &finder, 0..b.len(), usize::MAX);
            let split = find_exact_all(&t, needle);
            assert_eq!(split, plain, "{needle} at mid - {shift}");
            let (count, spans) = find_exact(&t, needle);
            assert_eq!(count, plain.0);
            assert_eq!(spans.len(), plain.0.min(MAX_LISTED));
        }
    }
}

#[test]
fn a_line_repeated_in_every_block_does_not_stretch_the_candidate() {
    // Every block starts (or ends) with the same line; the needle is one block with a stale value in
    // its middle line. The nearest candidate is exactly that block, not a region reaching back (or on)
    // into its neighbour through another copy of the repeated line.
    let blocks = |first: bool| -> String {
        (0..3000)
            .map(|i| {
                if first {
                    format!("    return None\n    x_{i} = y_{i} + 1\n    z_{i} = x_{i} * 2\n")
                } else {
                    format!("    x_{i} = y_{i} + 1\n    z_{i} = x_{i} * 2\n    return None\n")
                }
            })
            .collect()
    };
    for first in [true, false] {
        let text = blocks(first);
        let needle = if first {
            "    return None\n    x_1500 = y_1500 + 2\n    z_1500 = x_1500 * 2\n"
        } else {
            "    x_1500 = y_1500 + 1\n    z_1500 = x_1500 * 3\n    return None\n"
        };
        let h = Haystack::new(&text);
        let c = candidates::nearest(&h, needle, 3);
        assert_eq!(
            (c[0].start_line, c[0].end_line),
            (4501, 4503),
            "repeated line first: {first}: {c:?}"
        );
        assert!(c[0].similarity > 0.9, "{c:?}");
    }
}

#[test]
fn a_needle_that_shares_no_line_still_finds_its_region() {
    // Every line of the needle has a typo, so no line of it occurs in the file and, at six lines, it
    // is too long for trigram votes: every window is ranked by shared trigrams, the best few by
    // similarity. The region it was copied from must come first.
    let file: String = (0..300)
        .map(|i| {
            format!(
                "    total_{i} = compute_value(items[{i}], scale={})\n",
                i * 7
            )
        })
        .collect();
    let needle: String = (150..156)
        .map(|i| {
            format!(
                "    totl_{i} = compute_value(items[{i}], scale={})\n",
                i * 7
            )
        })
        .collect();
    let h = Haystack::new(&file);
    let c = candidates::nearest(&h, &needle, 3);
    assert_eq!((c[0].start_line, c[0].end_line), (151, 156), "{c:?}");
    assert!(c[0].similarity > 0.9, "{c:?}");
}

/// The line search as it was before it went linear: every start, middle lines first, then the edges.
fn find_lines_naive(h: &Haystack, parts: &[&str], tier: Tier) -> Vec<(usize, usize)> {
    let (text, lines) = (h.text, h.lines());
    let n = lines.len();
    let k = parts.len() - 1;
    let np: Vec<_> = parts.iter().map(|p| norm(p, tier)).collect();
    let last_empty = parts[k].is_empty();
    let needed = if last_empty { k } else { k + 1 };
    let mut out = Vec::new();
    if n < needed {
        return out;
    }
    for i in 0..=(n - needed) {
        if !(1..k).all(|j| norm(lines.content(i + j, text), tier).text == np[j].text) {
            continue;
        }
        let end = if last_empty {
            if !lines.has_terminator(i + k - 1) {
                continue;
            }
            lines.end(i + k - 1)
        } else {
            let nl = norm(lines.content(i + k, text), tier);
            if !nl.text.starts_with(&*np[k].text) {
                continue;
            }
            lines.start(i + k) + nl.to_orig(np[k].text.len())
        };
        let first = norm(lines.content(i, text), tier);
        if !first.text.ends_with(&*np[0].text) {
            continue;
        }
        let start = if tier == Tier::Indentation && first.text == np[0].text {
            lines.start(i)
        } else {
            lines.start(i) + first.to_orig(first.text.len() - np[0].text.len())
        };
        out.push((start, end));
    }
    out
}

#[test]
fn line_search_agrees_with_the_naive_search() {
    // Files and needles drawn from a few lines that differ only by the noise each tier folds, so
    // every tier finds overlapping, repeated and edge-only matches.
    let pool = [
        "x = 1",
        "  x = 1",
        "x = 1  ",
        "\tx = 1",
        "say(\u{201C}hi\u{201D})",
        "say(\"hi\")",
        "",
        "  ",
        "}",
        "y",
    ];
    let mut seed = 12345u64;
    let mut next = |m: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % m
    };
    for round in 0..400 {
        let lines = 1 + next(30);
        let term = ["\n", "\r\n"][round % 2];
        let mut file: String = (0..lines)
            .map(|_| format!("{}{term}", pool[next(pool.len())]))
            .collect();
        if next(3) == 0 {
            file.truncate(file.len() - term.len());
        }
        let h = Haystack::new(&file);
        let k = 2 + next(5);
        let mut needle: Vec<String> = (0..k).map(|_| pool[next(pool.len())].to_string()).collect();
        match next(4) {
            0 => needle[k - 1].clear(),
            1 => needle[0] = "1".into(),
            2 => needle[k - 1] = "sa".into(),
            _ => {}
        }
        let old = needle.join("\n");
        let parts = split_lines(&old);
        for tier in LINE_TIERS {
            assert_eq!(
                find_lines(&h, &parts, tier),
                find_lines_naive(&h, &parts, tier),
                "{tier:?} {old:?} in {file:?}"
            );
        }
    }
}

#[test]
fn hostile_shapes_take_linear_work() {
    // Counted steps (not time): identical lines, a needle of identical lines, and a periodic
    // single-line needle each cost a small multiple of the file's lines or bytes.
    let n = 20_000;
    let file = "    x = 1\n".repeat(n);
    let h = Haystack::new(&file);
    search::work();
    match locate(&h, &"x = 1\n".repeat(500), "y\n", 1, Tolerance::Safe) {
        Err(Miss::Count {
            count, tier, spans, ..
        }) => {
            assert_eq!((count, tier), (n - 499, Tier::Indentation));
            // Listed like the exact tier's: the first MAX_LISTED, in order, whole lines (10 bytes each).
            assert_eq!(spans.len(), MAX_LISTED);
            assert_eq!(spans[1], (10, 10 + 500 * 10));
        }
        other => panic!("{other:?}"),
    }
    let w = search::work();
    assert!(w < 40 * n as u64, "identical lines: {w} steps");

    let missing = format!("{}x = 2\n", "x = 1\n".repeat(499));
    assert!(matches!(
        locate(&h, &missing, "y\n", 1, Tolerance::Safe),
        Err(Miss::NotFound { .. })
    ));
    let w = search::work();
    assert!(
        w < 40 * n as u64,
        "identical lines, missing last: {w} steps"
    );

    let line = "a".repeat(200_000);
    let h = Haystack::new(&line);
    let needle = "a".repeat(5_000);
    match locate(&h, &needle, "b", 1, Tolerance::Safe) {
        Err(Miss::Count { count, .. }) => assert_eq!(count, 195_001),
        other => panic!("{other:?}"),
    }
    let trailing = format!("{needle}  ");
    let m = locate(&h, &trailing, "b", 1, Tolerance::Safe).unwrap();
    assert_eq!((m[0].start, m[0].end), (195_000, 200_000));
    let w = search::work();
    assert!(w < 10 * line.len() as u64, "periodic line: {w} steps");
}

/// The single-line search as it was: every line normalized, every occurrence stepped one character.
fn find_in_line_naive(h: &Haystack, p: &str, tier: Tier) -> Vec<(usize, usize)> {
    let text = h.text;
    let mut out = Vec::new();
    let trimmed = p.trim_end();
    let had_trailing = trimmed.len() != p.len();
    match tier {
        Tier::LineEndings => return out,
        Tier::TrailingWhitespace if !had_trailing || trimmed.is_empty() => return out,
        Tier::Typography if p.is_ascii() && text.is_ascii() => return out,
        _ => {}
    }
    let needle = norm(p, tier);
    if needle.text.is_empty() {
        return out;
    }
    let lines = h.lines();
    for i in 0..lines.len() {
        let nl = norm(lines.content(i, text), tier);
        let s = lines.start(i);
        if tier == Tier::Indentation {
            if nl.text == needle.text {
                out.push((s, s + nl.to_orig(nl.text.len())));
            }
            continue;
        }
        let hb = nl.text.as_bytes();
        let mut pos = 0;
        while let Some(at) =
            memchr::memmem::find(&hb[pos..], needle.text.as_bytes()).map(|x| x + pos)
        {
            let e = at + needle.text.len();
            if !had_trailing || e == hb.len() {
                out.push((s + nl.to_orig(at), s + nl.to_orig(e)));
            }
            pos = at + 1;
            while pos < hb.len() && !nl.text.is_char_boundary(pos) {
                pos += 1;
            }
            if pos >= hb.len() {
                break;
            }
        }
    }
    out
}

#[test]
fn single_line_search_agrees_with_the_naive_search() {
    let lines = [
        "aaaa",
        "  aa aa  ",
        "\u{201C}aa\u{201D} aa",
        "caf\u{e9} caf\u{e9}",
        "cafe\u{301}",
        "\taa\t",
        "",
        "a\u{2014}a\u{2014}a",
    ];
    let needles = [
        "aa",
        "aa ",
        "aa  ",
        "a",
        "\"aa\"",
        "caf\u{e9}",
        "cafe\u{301}",
        "a-a",
        "a\u{2014}a",
        "  aa",
        "aaaa",
        "x",
    ];
    for term in ["\n", "\r\n"] {
        let file: String = lines.iter().map(|l| format!("{l}{term}")).collect();
        let h = Haystack::new(&file);
        for needle in needles {
            for tier in LINE_TIERS {
                assert_eq!(
                    find_in_line(&h, needle, tier),
                    find_in_line_naive(&h, needle, tier),
                    "{tier:?} {needle:?}"
                );
            }
        }
    }
}
