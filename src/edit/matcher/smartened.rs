//! Typography evidence is the batch's, not one edit's. A model that "smartened" quotes (or
//! dashes, or non-breaking spaces) in its transcription does so in everything it writes: when one
//! edit or hunk of a batch holds a typographic character the file has nowhere (so it matched only
//! at the typography tier), the same characters in the text the other edits add are the same
//! noise, even where their own `old` matched exactly and so gave no evidence of its own.
//!
//! The rule, decided by content: the characters folded are the typographic ones
//! ([`super::normalize::fold_char`] maps them to ASCII) that the **file holds nowhere**; a file that
//! uses curly quotes anywhere keeps every curly quote a model writes. Without a batch-mate's
//! evidence nothing is folded: an exact match gives no sign that the model smartened its added
//! lines, so they are written as sent.

use super::normalize::fold_char;

/// Whether `c` is a typographic character the tiers fold (a curly quote, a dash, a non-breaking
/// space) and `file` has nowhere.
fn absent_typography(c: char, file: &str) -> bool {
    !c.is_ascii() && fold_char(c) != c && !file.contains(c)
}

/// Whether some text the model copied from the file (`olds`: the `old` sides of a batch) holds a
/// typographic character the file has nowhere: the model's transcription smartens.
pub fn evident<'a>(file: &str, mut olds: impl Iterator<Item = &'a str>) -> bool {
    olds.any(|o| o.chars().any(|c| absent_typography(c, file)))
}

/// `replacement` with every typographic character the file has nowhere folded to its ASCII form;
/// `None` when there is none.
pub fn fold(replacement: &str, file: &str) -> Option<String> {
    if replacement.is_ascii() || !replacement.chars().any(|c| absent_typography(c, file)) {
        return None;
    }
    Some(
        replacement
            .chars()
            .map(|c| match absent_typography(c, file) {
                true => fold_char(c),
                false => c,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_characters_the_file_has_nowhere_are_evidence_and_are_folded() {
        let file = "say(\"hi\")\nname = \u{2018}x\u{2019}\n";
        assert!(evident(file, ["say(\u{201c}hi\u{201d})"].into_iter()));
        assert!(!evident(
            file,
            ["name = \u{2018}x\u{2019}", "say(\"hi\")"].into_iter()
        ));
        assert_eq!(
            fold("a(\u{201c}b\u{201d}, \u{2018}c\u{2019})", file).as_deref(),
            Some("a(\"b\", \u{2018}c\u{2019})")
        );
        assert_eq!(fold("plain \u{e9}", file), None);
    }

    /// Found by the ground-truth fuzzer (issue #25, class G10): one edit of a batch matched only at
    /// the typography tier (its old was smartened), another matched exactly and added a line the
    /// model smartened too; that line was written with curly quotes.
    #[test]
    fn a_batch_mate_at_the_typography_tier_folds_what_every_match_adds() {
        use crate::edit::apply::apply_edits;
        use crate::edit::ir::Edit;
        use crate::edit::matcher::Tolerance;
        let text = "fn a() {\n    say(\"x\");\n}\nfn b() {\n    go();\n}\n";
        let es = [
            Edit::new(
                "    say(\u{201c}x\u{201d});\n",
                "    say(\u{201c}y\u{201d});\n",
            ),
            Edit::new("    go();\n", "    go();\n    say(\u{201c}z\u{201d});\n"),
        ];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "fn a() {\n    say(\"y\");\n}\nfn b() {\n    go();\n    say(\"z\");\n}\n"
        );
        // Hunks alike.
        let patch = "*** Begin Patch\n*** Update File: a.rs\n@@\n-    say(\u{201c}x\u{201d});\n+    say(\u{201c}y\u{201d});\n@@\n     go();\n+    say(\u{201c}z\u{201d});\n*** End Patch\n";
        let ops = crate::edit::formats::parse_patch(patch).unwrap();
        let crate::edit::ir::FileOp::Update {
            change: crate::edit::ir::Change::Hunks(h),
            ..
        } = &ops[0]
        else {
            unreachable!()
        };
        let out = crate::edit::apply_hunks::apply_hunks(text, h, Tolerance::Safe).unwrap();
        assert!(
            out.text.contains("    go();\n    say(\"z\");\n"),
            "{}",
            out.text
        );
        // A batch-mate found through a needle transform (`blank_edges`: a blank line the file does
        // not have after `}`) folds nothing itself: what it adds is folded too (#25, seed 25 case
        // 369002: the added line was written with curly quotes).
        let es = [
            Edit::new(
                "    say(\u{201c}x\u{201d});\n",
                "    say(\u{201c}y\u{201d});\n",
            ),
            Edit::new(
                "    go();\n}\n\n",
                "    go();\n}\nsay(\u{201c}z\u{201d});\n\n",
            ),
        ];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert_eq!(
            out.text,
            "fn a() {\n    say(\"y\");\n}\nfn b() {\n    go();\n}\nsay(\"z\");\n"
        );
        // Without a batch-mate's evidence, an exact match writes what it adds as sent; a file that
        // has curly quotes keeps them too.
        let es = [Edit::new(
            "    go();\n",
            "    go();\n    say(\u{201c}z\u{201d});\n",
        )];
        let out = apply_edits(text, &es, Tolerance::Safe).unwrap();
        assert!(out.text.contains("say(\u{201c}z\u{201d})"));
        let curly = format!("{text}// \u{201c}ok\u{201d}\n");
        let es = [
            Edit::new("    say(\u{2018}x\u{2019});\n", "    say(\"y\");\n"),
            Edit::new("    go();\n", "    go();\n    say(\u{201c}z\u{201d});\n"),
        ];
        let out = apply_edits(&curly.replace("\"x\"", "'x'"), &es, Tolerance::Safe).unwrap();
        assert!(out.text.contains("say(\u{201c}z\u{201d})"), "{}", out.text);
    }
}
