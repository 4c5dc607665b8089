//! Renders an intended edit the way models write it — every format and dialect, with transcription
//! noise and adversarial variants — and decides, per rendering, what the right outcome is.
//!
//! # What "right" means (the oracle)
//!
//! Every case is one of:
//!
//! - **May apply** (`Expect::MayApply`): the rendering says what the generator intended, and content
//!   (with the evidence it carries) can locate it. The engine must write exactly one of the accepted
//!   results (byte for byte, but for what [`ExpLine::relax`] allows), or refuse (`ok: false`) with
//!   every file unchanged. A refusal is counted (the apply rate), never a failure.
//! - **Must refuse** (`Expect::MustRefuse`): no write is right. `ok: false` with the files unchanged,
//!   or an `ok: true` that changed nothing (a no-op), passes; anything written fails.
//!
//! Per adversarial kind (the rule each breaks is in issue #25 §1/§2):
//!
//! | adversarial | rendering | right answer |
//! |---|---|---|
//! | `none` | the edit as intended, with context widened until the old side is unique by what a view shows | may apply |
//! | `stale` | one token of a line the edit copies (context, removed or replaced) is not what the file holds, and the stale text is found nowhere in the file by what a view shows | must refuse |
//! | `retry` | the same rendering sent again to the file it already produced (not when the first sending is itself ambiguous by what a view shows, `view_ambiguous`: the engine refuses it, so no file it produced exists; judged only when the first sending, applied to the file before it, lands on an accepted result; not generated when every hunk is a deletion whose old side the result still shows line for line: see below) | must refuse (or no-op): applying twice is not applying |
//! | `elided` | `new` keeps the first and last line of a 3+ line region and puts `... existing code ...` between | must refuse: no placeholder over real code |
//! | `scope_at_twin` | `apply_patch`: the `@@` scope names another block (its twin when it has one); a chunk of added lines only, or one whose content a view shows identically elsewhere, keeps its own scope (the scope is then what locates it: another block's is another well-formed edit) | may apply when the content lies inside a block of a line the scope chain resolves to, below such a line (see below), or the chain names no line; must refuse when every line it names is below the content: a scope that names a real line is a constraint |
//! | `lines_at_twin` | line numbers (unified-diff headers, `apply_patch` unified headers, view prefixes) point at the twin of the region (or elsewhere) while the content is right (a chunk with neither scope nor context, which its numbers alone place, keeps its own) | may apply (content decides; the numbers may also make it refuse); a write at the twin is wrong |
//!
//! **A scope above the content, outside its block, may apply** (the one oracle liberty for
//! `scope_at_twin`). `apply_patch`'s own reading of `@@ line` is "find this line, then search the
//! chunk after it" (the format's reference applier seeks the line, then the chunk from there); the
//! development corpus relies on it (`dialects-dev`: an `@@ def _commit_removals(...)` over a change
//! in `get`, 77 lines and five sibling methods further down; an `@@ if (...) {` whose block closed
//! six lines above the change), and no rule decided by the file's content tells those apart from
//! a scope naming a block above the one the content is in. The content still decides: it must be
//! unique at or below the scope line, and one found only above it is refused. So a write below
//! the scope line is the intended file, not a wrong write; a scope every line of which lies below
//! the content stays must-refuse.
//!
//! **A retry re-sends a call that landed.** A retry is the same call sent again because its answer
//! was lost, so the file it meets is the one its first sending wrote. When the engine refuses the
//! first sending (its `old` is also a substring of another line, or matches two places at the
//! indentation tier: ambiguous), nothing was written, no such file exists, and sending the text
//! again to the generator's intended result is a fresh edit of another file, which may well be
//! unique there (`old = "EOF"` once the closing `EOF` line was replaced: only `<<EOF` is left).
//! So the runner first applies the rendering to the file before it and judges the retry only when
//! that sending writes an accepted result (`run::Verdict::Skipped` otherwise: counted apart, never
//! as a refusal). This hides no wrong write the engine could avoid: the first sending is a
//! rendering of the `none` kind (the same renderer), whose wrong writes are judged in those cases. **A deletion whose old side its result still
//! shows** (a line deleted beside its equal: `P X X Q` → `P X Q`, the edit `P X` → `P`; or an edit
//! that writes no line of its own, every written line a copy of an old one) is not
//! generated as a retry when every hunk is one: the text sent again is a well-formed, unique edit of
//! the result, and nothing it writes (a deletion writes no line of its own) marks that file as its
//! result, so no engine could tell it from a first sending. The same for an `editLines` range
//! deleted, replaced by blank lines, or replaced by fewer lines than it holds, whose anchors read
//! true on the result (the same numbers, and lines with the same hashes): what it writes already
//! stands at the range's start, and the op reads as a deletion of the rest restating the lines it
//! keeps, exactly as such a deletion's first sending does.
//!
//! Per noise kind, what the intended file allows:
//!
//! - lines of `new` that copy a line of the file keep the file's bytes, whatever noise the copy has;
//! - a changed line written from a line with trailing whitespace (noise `trailing_ws`) may keep or
//!   drop it (`WS_ANY`); from a line in NFD (noise `nfc`) may be in either form (`NF_ANY`), and so
//!   may a line added by an edit whose old side holds NFD text the model sent in NFC (no view shows
//!   which form the model meant; the engine folds its text to the file's);
//! - indentation noise: `indent_shift` / `indent_strip` write `old` and `new` moved together
//!   (relative columns), `indent_abs` moves `old` and the copied lines of `new` but writes the other
//!   lines of `new` at the file's columns (absolute columns). The other reading of the same text is
//!   also accepted in brace languages; in indentation-significant ones (Python, YAML, Makefiles, and
//!   an embedded YAML block) only the generator's frame is (a tie-break there changes block
//!   membership: issue #25 §1) — unless that frame makes a YAML file no document (a key nested
//!   under a key with a scalar value, `image: app` over a deeper `ITEM: 1`): then the other
//!   reading, where it is a document (or nests fewer keys so, when another edit of the file left
//!   one), is what the file can mean, and it is accepted too;
//! - tabs for spaces (noise `tabs_spaces`) is used on a hunk only when one of its old lines holds
//!   indentation the model converts (a tab, or the file's unit of spaces): the copy of `old` then
//!   shows the conversion. Where no old line does (a YAML block indented by two under a unit of
//!   four, lines at column 0), the copy is the file's bytes and an added line written with tabs is,
//!   as far as any text sent tells, indented as the model means it; an engine could only guess
//!   that the tab stood for the file's spaces, and at which width. (Before, such hunks counted
//!   the tabs written as sent as wrong writes: G12's "tabs and spaces in embedded blocks".)
//! - inline-whitespace noise (`inline_ws`) collapses runs of spaces in the lines the model copies
//!   or changes; it is not used on a hunk whose added line keeps, single-spaced, the two words on
//!   either side of a run of a line the hunk replaces (`idx     = 59` replaced by `idx = "x"`):
//!   the text sent then reads the same as that aligned line edited with its alignment kept, a
//!   well-formed edit with other bytes (`keeps_words_beside_a_run`);
//! - a line the engine terminates itself in a file with mixed line endings may take either
//!   (`EOL_ANY`);
//! - twins the text cannot tell apart: when a line the edit keeps reads in a view like a line it
//!   removes or writes (inside the edit, or beside it where the two could trade places: deleting
//!   `a x` from `a x a` reads the same as deleting `x a`), which of the two is "the kept one" is
//!   not in the text sent. The kept line may then carry its twin's invisible bytes (trailing
//!   whitespace; in a mixed-ending file, the line break): either result is the file's own bytes for
//!   that line, and no engine could know which the generator meant (`edit::twins`). So may a kept
//!   line's break when the edit writes a line one word apart from it (a diff that keeps as many
//!   lines reads the kept line as the one edited) or writes a line it also removes (a diff may
//!   keep that one instead), in a mixed-ending file. Visible text
//!   and every other line are still held byte for byte;
//! - smartened quotes (noise `smart_quotes`): a written line is expected with the file's straight
//!   quotes when a copied line *of the same file* showed the model smartening (the engine folds
//!   what every edit of that file's batch adds, `src/matcher/smartened.rs`); in a file none of
//!   whose copied lines holds a quote, its written lines may keep the curly quotes as sent
//!   (`TYPO_ANY`). Evidence is per file: the engine decides a file's bytes from that file's
//!   content and the edits addressed to it, and does not rewrite one file's added text because
//!   another file's copy was smartened (a call may well add curly quotes to a Markdown file while
//!   a code file's copy shows the model's noise).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use unicode_normalization::UnicodeNormalization;

use super::doc::{indent_of, key, windows_equal, Doc, Lang};
use super::edit::{
    choose_edits, intended, unchanged, EditKind, ExpLine, LineEdit, NF_ANY, NL, TYPO_ANY, WS_ANY,
};
use super::files::{change_token, gen_doc};
use super::rng::Rng;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Format {
    PatchFile,
    ApplyEdits,
    Blocks,
    ApplyPatch,
    Udiff,
    EditLines,
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::PatchFile,
        Format::ApplyEdits,
        Format::Blocks,
        Format::ApplyPatch,
        Format::Udiff,
        Format::EditLines,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::PatchFile => "patch_file",
            Format::ApplyEdits => "apply_edits",
            Format::Blocks => "apply_blocks",
            Format::ApplyPatch => "apply_patch",
            Format::Udiff => "apply_unified_diff",
            Format::EditLines => "edit_lines",
        }
    }

    pub fn from_name(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }

    /// `{old, new}` text (as opposed to line-oriented hunks).
    fn old_new(self) -> bool {
        matches!(
            self,
            Format::PatchFile | Format::ApplyEdits | Format::Blocks
        )
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Pfx {
    CatN,
    Colon,
    Pipe,
    Arrow,
    Hashline,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Noise {
    None,
    CrlfLf,
    TrailingWs,
    SmartQuotes,
    Nfc,
    IndentShift,
    IndentStrip,
    IndentAbs,
    TabsSpaces,
    InlineWs,
    Prefix(Pfx),
    PrefixBoth(Pfx),
    BlankDropped,
    BlankAdded,
}

impl Noise {
    pub fn name(self) -> String {
        let p = |p: Pfx| match p {
            Pfx::CatN => "catn",
            Pfx::Colon => "colon",
            Pfx::Pipe => "pipe",
            Pfx::Arrow => "arrow",
            Pfx::Hashline => "hashline",
        };
        match self {
            Noise::None => "none".into(),
            Noise::CrlfLf => "crlf_lf".into(),
            Noise::TrailingWs => "trailing_ws".into(),
            Noise::SmartQuotes => "smart_quotes".into(),
            Noise::Nfc => "nfc".into(),
            Noise::IndentShift => "indent_shift".into(),
            Noise::IndentStrip => "indent_strip".into(),
            Noise::IndentAbs => "indent_abs".into(),
            Noise::TabsSpaces => "tabs_spaces".into(),
            Noise::InlineWs => "inline_ws".into(),
            Noise::Prefix(k) => format!("prefix_{}", p(k)),
            Noise::PrefixBoth(k) => format!("prefix_both_{}", p(k)),
            Noise::BlankDropped => "blank_dropped".into(),
            Noise::BlankAdded => "blank_added".into(),
        }
    }

    fn indent(self) -> bool {
        matches!(
            self,
            Noise::IndentShift | Noise::IndentStrip | Noise::IndentAbs
        )
    }

    fn prefix(self) -> Option<Pfx> {
        match self {
            Noise::Prefix(p) | Noise::PrefixBoth(p) => Some(p),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Adv {
    None,
    Stale,
    Retry,
    Elided,
    ScopeAtTwin,
    LinesAtTwin,
}

impl Adv {
    pub fn name(self) -> &'static str {
        match self {
            Adv::None => "none",
            Adv::Stale => "stale",
            Adv::Retry => "retry",
            Adv::Elided => "elided",
            Adv::ScopeAtTwin => "scope_at_twin",
            Adv::LinesAtTwin => "lines_at_twin",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Expect {
    MayApply,
    MustRefuse,
}

/// One file of a case: what is on disk before, and the results that are right.
#[derive(Clone, Debug)]
pub struct FileCase {
    pub path: String,
    pub bom: bool,
    pub before: Vec<ExpLine>,
    /// Right results (for `MayApply`); the first is the generator's own.
    pub accept: Vec<Vec<ExpLine>>,
    /// The right result is that the file is gone (a deletion).
    pub gone: bool,
    /// Original lines the rendering shows (the shrinker keeps them).
    pub pinned: BTreeSet<usize>,
    /// A retry's file before its first sending: the retry is judged only when that sending lands
    /// on an accepted result (else no file it produced exists; `run::Verdict::Skipped`).
    pub first: Option<Vec<ExpLine>>,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub format: Format,
    pub noise: Noise,
    pub adv: Adv,
    /// The rendering's choices (markers, headers, wrappers, ...).
    pub variant: Vec<String>,
    /// Traits of the files and edits (language, line endings, twins touched, ...).
    pub tags: Vec<String>,
    pub op: &'static str,
    /// The call's arguments; `"$ROOT"` stands for the workspace root.
    pub args: Value,
    pub expect: Expect,
    pub files: Vec<FileCase>,
    /// What the right answer is, and why.
    pub why: String,
}

impl Case {
    /// The reading: format × noise × adversarial kind.
    pub fn reading(&self) -> String {
        format!(
            "{} {} {}",
            self.format.name(),
            self.noise.name(),
            self.adv.name()
        )
    }
}

// ---- the model's pen: how it copies and writes lines under a noise kind ----------------------

/// How the model transcribes one hunk.
#[derive(Clone, Debug)]
struct Pen {
    noise: Noise,
    /// Indentation noise: the common indentation `p` of the old side is replaced by `q`.
    p: String,
    q: String,
    /// Tabs to spaces (`true`) or the file's unit of spaces to tabs (`false`).
    to_spaces: bool,
    unit: String,
}

fn smarten(s: &str) -> String {
    let mut open = true;
    s.chars()
        .map(|c| match c {
            '"' => {
                open = !open;
                if !open {
                    '\u{201c}'
                } else {
                    '\u{201d}'
                }
            }
            '\'' => '\u{2019}',
            c => c,
        })
        .collect()
}

fn collapse_inline(s: &str) -> String {
    let ind = indent_of(s);
    let body = &s[ind.len()..];
    let trimmed = body.trim_end_matches([' ', '\t']);
    let trail = &body[trimmed.len()..];
    let mut out = String::from(ind);
    let mut prev_space = false;
    for c in trimmed.chars() {
        if c == ' ' {
            if !prev_space {
                out.push(' ');
            }
            prev_space = true;
        } else {
            out.push(c);
            prev_space = false;
        }
    }
    out.push_str(trail);
    out
}

/// Whether a line the hunk adds (written anew, single-spaced) keeps, side by side, the two words
/// around a run of inline whitespace of a line the hunk replaces (`idx     = 59` replaced by
/// `idx = "x"`). Under inline-whitespace noise the replaced line is copied single-spaced, and the
/// hunk then reads, by any text sent, as that aligned line edited, its alignment kept: another
/// well-formed edit with other bytes (seed 27, 876596; seed 28, 976394). Not rendered with this
/// noise.
fn keeps_words_beside_a_run(doc: &Doc, h: &Hunk) -> bool {
    let kept: Vec<usize> = h
        .new
        .iter()
        .filter_map(|n| match n {
            NL::Kept(i) => Some(*i),
            _ => None,
        })
        .collect();
    // Each written line as the model sends it (a changed line collapsed by the noise, an added one
    // as written), with the line it was changed from, compared by its words: an added line that
    // keeps the run as well reads as the replaced line edited all the more (seed 39 case 435564:
    // `const size     = 52;` replaced by `const offset = 52;`, sent collapsed, and an added
    // `const size     = 91;`, which reads as the line edited, its alignment kept).
    let added: Vec<(Option<usize>, Vec<String>)> = h
        .new
        .iter()
        .filter_map(|n| match n {
            NL::Written { text, origin } => Some((
                *origin,
                collapse_inline(text)
                    .trim()
                    .split(' ')
                    .map(str::to_string)
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    (h.a..h.b)
        .filter(|i| !kept.contains(i))
        .map(|i| (i, doc.lines[i].text.as_str()))
        .filter(|(_, t)| has_inline_run(t))
        .any(|(i, t)| {
            let body = t[indent_of(t).len()..].trim_end_matches([' ', '\t']);
            let mut at = 0;
            while let Some(k) = body[at..].find("  ") {
                let run = at + k;
                let end = run + body[run..].len() - body[run..].trim_start().len();
                let (before, after) = (
                    body[..run].split_whitespace().last(),
                    body[end..].split_whitespace().next(),
                );
                if let (Some(w1), Some(w2)) = (before, after) {
                    // A changed line keeping its own line's words is that line edited (seed 33
                    // case 417959: `x        = 26` → `timeout        = 26` sent as
                    // `timeout = 26`, which reads as the replaced `timeout  = 26` kept).
                    if added.iter().any(|(o, a)| {
                        *o != Some(i) && a.windows(2).any(|w| w[0] == w1 && w[1] == w2)
                    }) {
                        return true;
                    }
                }
                at = end.max(run + 1);
            }
            false
        })
}

fn has_inline_run(s: &str) -> bool {
    let body = s[indent_of(s).len()..].trim_end_matches([' ', '\t']);
    body.contains("  ")
}

impl Pen {
    fn plain() -> Pen {
        Pen {
            noise: Noise::None,
            p: String::new(),
            q: String::new(),
            to_spaces: true,
            unit: "    ".into(),
        }
    }

    fn tabs(&self, s: &str) -> String {
        if !self.to_spaces && self.unit.is_empty() {
            return s.to_string();
        }
        let ind = indent_of(s);
        let rest = &s[ind.len()..];
        if self.to_spaces {
            format!("{}{rest}", ind.replace('\t', "    "))
        } else {
            format!("{}{rest}", ind.replace(self.unit.as_str(), "\t"))
        }
    }

    /// The model's copy of a file line.
    fn copy(&self, s: &str) -> String {
        match self.noise {
            Noise::TrailingWs => s.trim_end_matches([' ', '\t']).to_string(),
            Noise::SmartQuotes => smarten(s),
            Noise::Nfc => s.nfc().collect(),
            Noise::IndentShift | Noise::IndentStrip | Noise::IndentAbs => {
                if s.trim().is_empty() {
                    String::new()
                } else {
                    format!("{}{}", self.q, s.strip_prefix(self.p.as_str()).unwrap_or(s))
                }
            }
            Noise::TabsSpaces => self.tabs(s),
            Noise::InlineWs => collapse_inline(s),
            _ => s.to_string(),
        }
    }

    /// The model's writing of a line it changed (from file line `origin`) or added (`None`: not
    /// writable in this frame). Inline whitespace is transcription noise of a copied line only: a
    /// line the model adds is written as it means it.
    fn write(&self, s: &str, origin: Option<usize>) -> Option<String> {
        match self.noise {
            Noise::InlineWs if origin.is_none() => Some(s.to_string()),
            Noise::IndentShift | Noise::IndentStrip => {
                if s.trim().is_empty() {
                    Some(String::new())
                } else {
                    Some(format!("{}{}", self.q, s.strip_prefix(self.p.as_str())?))
                }
            }
            Noise::IndentAbs => Some(s.to_string()),
            _ => Some(self.copy(s)),
        }
    }

    /// The text the other indentation reading gives a written line (the one the generator did
    /// not intend), if it differs.
    fn other_frame(&self, intended: &str) -> Option<String> {
        let w = self.write(intended, None)?;
        match self.noise {
            // Written relative; read as absolute: the text as written.
            Noise::IndentShift | Noise::IndentStrip => Some(w),
            // Written absolute; read as relative: moved by p - q.
            Noise::IndentAbs => {
                if w.trim().is_empty() {
                    Some(w)
                } else {
                    Some(format!(
                        "{}{}",
                        self.p,
                        w.strip_prefix(self.q.as_str()).unwrap_or(&w)
                    ))
                }
            }
            _ => None,
        }
    }
}

// ---- hunks: an edit with its context ----------------------------------------------------------

/// An edit with the context lines shown around it: old side `a..b`, new side `new`.
#[derive(Clone, Debug)]
struct Hunk {
    a: usize,
    b: usize,
    edit: usize,
    new: Vec<NL>,
    /// For a substring edit shown without whole lines: the line, and the byte range of the shown
    /// old text in it; the new text is that range with the substitution.
    sub: Option<(usize, usize, usize)>,
    pen: Pen,
    /// A line whose copy is stale: (line, the stale text as the model has it).
    stale: Option<(usize, String)>,
    /// Extra blank line added at the top / bottom of both sides (noise `blank_added`).
    blank_top: bool,
    blank_bottom: bool,
}

impl Hunk {
    fn old_copy(&self, doc: &Doc, i: usize) -> String {
        if let Some((k, t)) = &self.stale {
            if *k == i {
                return t.clone();
            }
        }
        self.pen.copy(&doc.lines[i].text)
    }

    fn new_text(&self, doc: &Doc, nl: &NL) -> String {
        match nl {
            NL::Kept(i) => self.old_copy(doc, *i),
            NL::Written { text, origin } => self
                .pen
                .write(text, *origin)
                .unwrap_or_else(|| text.clone()),
        }
    }

    /// Old and new side as lines (model text).
    fn sides(&self, doc: &Doc) -> (Vec<String>, Vec<String>) {
        let mut old: Vec<String> = (self.a..self.b).map(|i| self.old_copy(doc, i)).collect();
        let mut new: Vec<String> = self.new.iter().map(|n| self.new_text(doc, n)).collect();
        if self.blank_top {
            old.insert(0, String::new());
            new.insert(0, String::new());
        }
        if self.blank_bottom {
            old.push(String::new());
            new.push(String::new());
        }
        (old, new)
    }

    /// Diff lines: (' ' | '-' | '+', text), removed lines before added ones in each change.
    fn diff_lines(&self, doc: &Doc) -> Vec<(char, String, Option<usize>)> {
        let mut out = Vec::new();
        let mut i = self.a;
        let mut plus: Vec<String> = Vec::new();
        let flush = |out: &mut Vec<(char, String, Option<usize>)>,
                     i: &mut usize,
                     upto: usize,
                     plus: &mut Vec<String>| {
            while *i < upto {
                out.push(('-', self.old_copy(doc, *i), Some(*i)));
                *i += 1;
            }
            for p in plus.drain(..) {
                out.push(('+', p, None));
            }
        };
        for nl in &self.new {
            match nl {
                NL::Kept(k) => {
                    flush(&mut out, &mut i, *k, &mut plus);
                    out.push((' ', self.old_copy(doc, *k), Some(*k)));
                    i = k + 1;
                }
                NL::Written { .. } => plus.push(self.new_text(doc, nl)),
            }
        }
        flush(&mut out, &mut i, self.b, &mut plus);
        out
    }
}

/// What a view shows of a line: NFC, no trailing whitespace, no CR (indentation, inner spaces
/// and typography are visible).
fn vis(s: &str) -> String {
    s.trim_end_matches([' ', '\t', '\r']).nfc().collect()
}

/// Another place (start line) that the shown old side `rendered` reads as, when it reads
/// differently from the intended lines `a..`: under indentation noise any place equal but for
/// indentation (a drift can not tell them apart), otherwise any place a view shows as the rendered
/// text while it shows the intended lines otherwise (blank lines at its edges aside, as they may be
/// the previous or its last line's terminator). Such a rendering says another place, not this edit, so the
/// generator does not use it.
fn collision(doc: &Doc, a: usize, rendered: &[String], noise: Noise) -> bool {
    let n = rendered.len();
    if n == 0 || n > doc.lines.len() {
        return false;
    }
    let indent = noise.indent() || noise == Noise::TabsSpaces;
    let norm = |s: &str| {
        if indent {
            vis(s).trim_start().to_string()
        } else {
            vis(s)
        }
    };
    let r: Vec<String> = rendered.iter().map(|l| norm(l)).collect();
    let f: Vec<String> = doc.lines.iter().map(|l| norm(&l.text)).collect();
    let reads_elsewhere = |a: usize, r: &[String]| {
        let n = r.len();
        (0..=doc.lines.len() - n).any(|s| {
            s != a
                && f[s..s + n] == r[..]
                && (indent || a + n > doc.lines.len() || f[a..a + n] != f[s..s + n])
        })
    };
    // Blank lines that open the text may as well be the previous line's terminator (`\nX` is
    // found after any line that ends before `X`), and those that close it the last line's (`X\n`
    // with a blank line after it is sent as `X\n`; the blank_edges tier forgives either): the rest
    // alone must not read as another place.
    let lead = r.iter().take_while(|l| l.trim().is_empty()).count();
    let trail = r[lead..]
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    [(0, 0), (lead, 0), (0, trail), (lead, trail)]
        .into_iter()
        .filter(|&(l, t)| l + t < n)
        .any(|(l, t)| reads_elsewhere(a + l, &r[l..n - t]))
}

/// Whether another place shows exactly like lines `a..b` in a view (differing only in trailing
/// whitespace, NFC/NFD or line endings): the principle's ambiguity.
fn invisible_twin(doc: &Doc, a: usize, b: usize) -> bool {
    // Blank edge lines do not count: in `{old, new}` text a leading line break may as well be the
    // previous line's terminator.
    let blank = |i: usize| doc.lines[i].text.trim().is_empty();
    let (mut a, mut b) = (a, b);
    while a < b && blank(a) {
        a += 1;
    }
    while b > a && blank(b - 1) {
        b -= 1;
    }
    let n = b - a;
    if n == 0 {
        return false;
    }
    let f: Vec<String> = doc.lines.iter().map(|l| vis(&l.text)).collect();
    (0..=doc.lines.len() - n).any(|s| s != a && f[s..s + n] == f[a..b])
}

/// How many lines the old side `a..b` (with line `stale` replaced) matches, by view keys.
fn key_windows(keys: &[String], a: usize, b: usize, stale: Option<(usize, &str)>) -> usize {
    let mut needle: Vec<String> = keys[a..b].to_vec();
    if let Some((k, t)) = stale {
        needle[k - a] = key(t);
    }
    // Blank edge lines do not count for the view (the blank_edges tier).
    while needle.first().is_some_and(|k| k.is_empty()) {
        needle.remove(0);
    }
    while needle.last().is_some_and(|k| k.is_empty()) {
        needle.pop();
    }
    if needle.is_empty() {
        return usize::MAX;
    }
    windows_equal(keys, &needle).len()
}

/// Occurrences of `needle` in the file, exactly and by what a view shows.
fn sub_count(doc: &Doc, needle: &str) -> (usize, usize) {
    let exact = doc.text().matches(needle).count();
    let v: String = needle.nfc().map(super::doc::fold_char).collect();
    let visible: usize = doc
        .lines
        .iter()
        .map(|l| {
            let t: String = l.text.nfc().map(super::doc::fold_char).collect();
            t.matches(v.as_str()).count()
        })
        .sum();
    (exact, visible)
}

/// Whether a view shows `needle` inside some line when whitespace runs, and the indentation and
/// trailing whitespace a view does not show, are not told apart (a stale `\treturn x ` is the
/// line `\treturn x` to a model; a stale `     return ok;` is the line `  return ok;`).
fn seen_in_a_line(doc: &Doc, needle: &str) -> bool {
    let k = key(needle);
    !k.is_empty() && doc.lines.iter().any(|l| key(&l.text).contains(&k))
}

/// Widens the context around `e` inside `lo..hi` until its old side is unique by view keys (or
/// `max` context lines are reached).
#[allow(clippy::too_many_arguments)]
fn with_context(
    keys: &[String],
    e: &LineEdit,
    lo: usize,
    hi: usize,
    cb0: usize,
    ca0: usize,
    max: usize,
) -> (usize, usize) {
    let (mut cb, mut ca) = (cb0, ca0);
    let mut turn = 0;
    loop {
        let a = e.start.saturating_sub(cb).max(lo);
        let b = (e.end + ca).min(hi).max(a);
        if b > a && key_windows(keys, a, b, None) == 1 {
            return (a, b);
        }
        let can_b = a > lo;
        let can_a = b < hi;
        if cb + ca >= max || (!can_a && !can_b) {
            return (a, b.max(a));
        }
        if (turn % 2 == 0 && can_b) || !can_a {
            cb += 1;
        } else {
            ca += 1;
        }
        turn += 1;
    }
}

// ---- case generation ---------------------------------------------------------------------------

struct FilePlan {
    doc: Doc,
    edits: Vec<LineEdit>,
    hunks: Vec<Hunk>,
    /// Edits in turn: after hunk `k`, a further edit of a line hunk `k` wrote (`old` is that line
    /// as written, `new` its next version), found only in the text the earlier edit left.
    chained: Vec<(usize, String, String)>,
}

fn noises_for(format: Format) -> &'static [Noise] {
    use Noise::*;
    use Pfx::*;
    match format {
        Format::PatchFile | Format::ApplyEdits => &[
            CrlfLf,
            TrailingWs,
            SmartQuotes,
            Nfc,
            IndentShift,
            IndentStrip,
            IndentAbs,
            TabsSpaces,
            InlineWs,
            Prefix(CatN),
            Prefix(Colon),
            Prefix(Pipe),
            Prefix(Arrow),
            Prefix(Hashline),
            PrefixBoth(CatN),
            PrefixBoth(Colon),
            BlankDropped,
            BlankAdded,
        ],
        Format::Blocks => &[
            TrailingWs,
            SmartQuotes,
            Nfc,
            IndentShift,
            IndentStrip,
            IndentAbs,
            TabsSpaces,
            InlineWs,
            Prefix(CatN),
            Prefix(Colon),
            Prefix(Pipe),
            Prefix(Hashline),
            PrefixBoth(Colon),
            BlankDropped,
            BlankAdded,
        ],
        Format::ApplyPatch | Format::Udiff => &[
            TrailingWs,
            SmartQuotes,
            Nfc,
            IndentShift,
            IndentStrip,
            IndentAbs,
            TabsSpaces,
            InlineWs,
            BlankDropped,
        ],
        Format::EditLines => &[],
    }
}

fn advs_for(format: Format) -> &'static [Adv] {
    match format {
        Format::PatchFile | Format::ApplyEdits | Format::Blocks => {
            &[Adv::Stale, Adv::Retry, Adv::Elided, Adv::LinesAtTwin]
        }
        Format::ApplyPatch => &[
            Adv::Stale,
            Adv::Retry,
            Adv::Elided,
            Adv::ScopeAtTwin,
            Adv::LinesAtTwin,
        ],
        Format::Udiff => &[Adv::Stale, Adv::Retry, Adv::Elided, Adv::LinesAtTwin],
        Format::EditLines => &[Adv::Stale, Adv::Retry, Adv::Elided],
    }
}

/// Whether noise `n` changes anything in `plan`'s hunks (and can be rendered).
fn noise_applies(n: Noise, plan: &FilePlan) -> bool {
    let doc = &plan.doc;
    let old_lines = || {
        plan.hunks
            .iter()
            .filter(|h| h.sub.is_none())
            .flat_map(|h| h.a..h.b)
            .map(|i| doc.lines[i].text.as_str())
    };
    let any_sub = plan.hunks.iter().any(|h| h.sub.is_some());
    match n {
        Noise::None => true,
        Noise::CrlfLf => doc.lines.iter().any(|l| l.eol == "\r\n"),
        Noise::TrailingWs => old_lines().any(|t| t.trim_end_matches([' ', '\t']) != t),
        Noise::SmartQuotes => old_lines().any(|t| t.contains(['"', '\''])),
        Noise::Nfc => old_lines().any(|t| t.nfc().collect::<String>() != t),
        Noise::IndentShift | Noise::IndentStrip | Noise::IndentAbs => {
            !any_sub && old_lines().any(|t| !indent_of(t).is_empty())
        }
        Noise::TabsSpaces => {
            !any_sub
                && old_lines().any(|t| {
                    let i = indent_of(t);
                    i.contains('\t')
                        || (doc.unit != "\t" && !doc.unit.is_empty() && i.contains(doc.unit))
                })
        }
        Noise::InlineWs => old_lines().any(has_inline_run),
        Noise::Prefix(_) | Noise::PrefixBoth(_) => !any_sub,
        Noise::BlankDropped => plan.hunks.iter().any(|h| blank_edge(doc, h).is_some()),
        Noise::BlankAdded => !any_sub,
    }
}

/// A blank context line at an edge of `h` that can be left out: (drop top, drop bottom).
fn blank_edge(doc: &Doc, h: &Hunk) -> Option<(bool, bool)> {
    if h.sub.is_some() || h.b <= h.a + 1 {
        return None;
    }
    let blank = |i: usize| doc.lines[i].text.trim().is_empty();
    let top = blank(h.a) && h.new.first() == Some(&NL::Kept(h.a));
    let bottom = blank(h.b - 1) && h.new.last() == Some(&NL::Kept(h.b - 1));
    if top || bottom {
        Some((top, bottom))
    } else {
        None
    }
}

/// The pen of hunk `h` under noise `n`.
fn pen_for(r: &mut Rng, n: Noise, doc: &Doc, a: usize, b: usize) -> Pen {
    let mut pen = Pen::plain();
    pen.noise = n;
    pen.unit = doc.unit.to_string();
    if doc.unit == "\t" {
        pen.to_spaces = true;
    } else {
        pen.to_spaces = (a..b).any(|i| indent_of(&doc.lines[i].text).contains('\t'));
    }
    if n.indent() {
        // The common indentation of the non-blank old lines.
        let mut common: Option<String> = None;
        for i in a..b {
            let t = &doc.lines[i].text;
            if t.trim().is_empty() {
                continue;
            }
            let ind = indent_of(t);
            common = Some(match common {
                None => ind.to_string(),
                Some(c) => c
                    .chars()
                    .zip(ind.chars())
                    .take_while(|(x, y)| x == y)
                    .map(|(x, _)| x)
                    .collect(),
            });
        }
        pen.p = common.unwrap_or_default();
        pen.q = match n {
            Noise::IndentShift => loop {
                let q = r.pick(&["", "  ", "    ", "\t", "        "]).to_string();
                if q != pen.p {
                    break q;
                }
            },
            _ => String::new(),
        };
    }
    pen
}

/// Generates case `seed` (every choice from it).
pub fn gen_case(seed: u64) -> Case {
    gen_case_with(&mut Rng::new(seed), seed, None)
}

/// Generates a case from `r`, optionally of one format.
pub fn gen_case_with(r: &mut Rng, seed: u64, only: Option<Format>) -> Case {
    loop {
        if let Some(c) = try_case(r, seed, only) {
            return c;
        }
    }
}

fn try_case(r: &mut Rng, seed: u64, only: Option<Format>) -> Option<Case> {
    let format = only.unwrap_or_else(|| *r.pick(&Format::ALL));
    let nfiles = match format {
        Format::Blocks | Format::ApplyPatch | Format::Udiff if r.chance(1, 4) => 2,
        _ => 1,
    };
    let max_edits = match format {
        Format::PatchFile => 1,
        _ => 3,
    };
    let mut plans: Vec<FilePlan> = Vec::new();
    let mut used_paths: Vec<&str> = Vec::new();
    for _ in 0..nfiles {
        let lang = *r.pick(&Lang::ALL);
        let path = *r.pick(lang.paths());
        if used_paths.contains(&path) {
            continue;
        }
        used_paths.push(path);
        let doc = gen_doc(r, lang, path);
        if doc.lines.len() < 3 {
            return None;
        }
        let mut edits = choose_edits(r, &doc, max_edits);
        if format == Format::ApplyPatch && r.chance(1, 4) {
            // A pure insertion right under a scope line.
            if let Some(e) = scope_insertion(r, &doc) {
                if edits
                    .iter()
                    .all(|o| e.start + 3 < o.start || o.end + 3 < e.start)
                {
                    edits.push(e);
                    edits.sort_by_key(|e| e.start);
                }
            }
        }
        if edits.is_empty() {
            return None;
        }
        plans.push(FilePlan {
            doc,
            edits,
            hunks: Vec::new(),
            chained: Vec::new(),
        });
    }
    if plans.is_empty() {
        return None;
    }

    if format == Format::Udiff && plans.len() == 1 && r.chance(1, 12) {
        return delete_case(r, seed, &plans[0].doc);
    }

    // Adversarial kind first (it shapes the edit), then hunks, then noise.
    let adv = if r.chance(11, 20) {
        Adv::None
    } else {
        *r.pick(advs_for(format))
    };
    let mut variant: Vec<String> = Vec::new();
    let mut tags: BTreeSet<String> = BTreeSet::new();
    if adv == Adv::Elided {
        let p = &mut plans[0];
        let n = p.doc.lines.len();
        // A region of 4+ lines whose middle lines become a placeholder.
        let k = r.below(p.edits.len());
        let limit = p.edits.get(k + 1).map_or(n, |x| x.start.saturating_sub(3));
        let e = &mut p.edits[k];
        let want = e.start + r.range(4, 6);
        if e.end < want {
            e.end = want.min(limit);
        }
        if e.end < e.start + 4 {
            return None;
        }
        let ind = indent_of(&p.doc.lines[e.start + 1].text).to_string();
        let marker = format!("{ind}{} ... existing code ...", p.doc.lang.comment());
        e.new = vec![
            NL::Kept(e.start),
            NL::Written {
                text: marker,
                origin: None,
            },
            NL::Kept(e.end - 1),
        ];
        e.kind = EditKind::Replace;
        e.sub = None;
    }

    // Hunks: context per format.
    let pure_insert_scope = |p: &FilePlan, e: &LineEdit| {
        format == Format::ApplyPatch
            && e.kind == EditKind::Insert
            && p.doc.blocks.iter().any(|b| b.header + 1 == e.start)
    };
    for p in plans.iter_mut() {
        let keys = p.doc.keys();
        let n = p.doc.lines.len();
        let mut prev_b = 0;
        for (k, e) in p.edits.iter().enumerate() {
            let hi = p.edits.get(k + 1).map_or(n, |x| x.start);
            let lo = prev_b;
            // A substring edit shown as a unique substring of its line.
            if let (Some(s), true) = (
                &e.sub,
                matches!(format, Format::PatchFile | Format::ApplyEdits) && r.chance(3, 4),
            ) {
                let line = &p.doc.lines[s.line].text;
                let (mut x, mut y) = (s.at, s.at + s.old.len());
                let mut ok = false;
                for turn in 0..200 {
                    let (ex, vis) = sub_count(&p.doc, &line[x..y]);
                    if ex == 1 && vis == 1 {
                        ok = true;
                        break;
                    }
                    if x == 0 && y == line.len() {
                        break;
                    }
                    if (turn % 2 == 0 && x > 0) || y == line.len() {
                        x -= line[..x].chars().next_back().map_or(1, |c| c.len_utf8());
                    } else {
                        y += line[y..].chars().next().map_or(1, |c| c.len_utf8());
                    }
                }
                if ok && !line[x..y].trim().is_empty() {
                    p.hunks.push(Hunk {
                        a: s.line,
                        b: s.line + 1,
                        edit: k,
                        new: e.new.clone(),
                        sub: Some((s.line, x, y)),
                        pen: Pen::plain(),
                        stale: None,
                        blank_top: false,
                        blank_bottom: false,
                    });
                    prev_b = s.line + 1;
                    continue;
                }
            }
            let (cb0, ca0, max) = match format {
                Format::ApplyPatch if pure_insert_scope(p, e) && r.chance(2, 3) => (0, 0, 0),
                Format::ApplyPatch | Format::Udiff => {
                    let c = r.weighted(&[(3, 6), (2, 2), (1, 2), (0, 1)]);
                    (c, c, 10)
                }
                Format::EditLines => (0, 0, 0),
                _ => {
                    if e.start == e.end || e.new.is_empty() {
                        if e.start > lo {
                            (1, 0, 10)
                        } else {
                            (0, 1, 10)
                        }
                    } else {
                        (0, 0, 10)
                    }
                }
            };
            let (a, b) = if max == 0 {
                (e.start, e.end)
            } else {
                with_context(&keys, e, lo, hi, cb0, ca0, max)
            };
            if format.old_new() && b <= a {
                return None;
            }
            let mut new: Vec<NL> = (a..e.start).map(NL::Kept).collect();
            new.extend(e.new.iter().cloned());
            new.extend((e.end..b).map(NL::Kept));
            // An empty `new` string is both no line and one empty line (`old` = "X\nY" and `new` =
            // "" leave the break after Y, as the kept blank line of `old` = "\nY" does): a
            // deletion left with no line of context (its neighbours belong to other edits) says
            // nothing either way, so it is not generated (seed 29 case 834046).
            if format.old_new() && new.is_empty() {
                return None;
            }
            p.hunks.push(Hunk {
                a,
                b,
                edit: k,
                new,
                sub: None,
                pen: Pen::plain(),
                stale: None,
                blank_top: false,
                blank_bottom: false,
            });
            prev_b = b;
        }
    }

    // Noise: one kind for the whole case, among those that change something.
    let noise = if r.chance(3, 10) || noises_for(format).is_empty() {
        Noise::None
    } else {
        let cands: Vec<Noise> = noises_for(format)
            .iter()
            .copied()
            .filter(|&n| plans.iter().any(|p| noise_applies(n, p)))
            .filter(|&n| n.prefix().is_none() || adv != Adv::Elided)
            .collect();
        if cands.is_empty() {
            Noise::None
        } else {
            *r.pick(&cands)
        }
    };
    if adv == Adv::LinesAtTwin && format.old_new() && noise.prefix().is_none() {
        return None;
    }
    for p in plans.iter_mut() {
        for h in p.hunks.iter_mut() {
            if h.sub.is_some() {
                if matches!(noise, Noise::SmartQuotes | Noise::Nfc | Noise::InlineWs) {
                    h.pen.noise = noise;
                }
                continue;
            }
            h.pen = pen_for(r, noise, &p.doc, h.a, h.b);
            if noise == Noise::InlineWs && keeps_words_beside_a_run(&p.doc, h) {
                // Reads as an aligned line edited: not this noise's rendering (see the function).
                h.pen = Pen::plain();
            }
            // Indentation noise needs old lines that show indentation: without them nothing
            // tells a drift from an intent (a pure insertion, or lines at column 0 while the
            // model writes tabs).
            let nonblank = (h.a..h.b).any(|i| !p.doc.lines[i].text.trim().is_empty());
            let indented = (h.a..h.b).any(|i| {
                !p.doc.lines[i].text.trim().is_empty()
                    && !indent_of(&p.doc.lines[i].text).is_empty()
            });
            // Tabs for spaces (or the reverse) shows only where an old line's indentation holds
            // what the model converts: else its copy of `old` is the file's bytes, and a converted
            // added line reads as the model's intent (no text sent tells a tab it meant from one
            // it wrote for the file's spaces).
            let converts = (h.a..h.b).any(|i| {
                let t = &p.doc.lines[i].text;
                !t.trim().is_empty() && h.pen.tabs(t) != *t
            });
            let shows_indent = match noise {
                Noise::IndentShift => nonblank,
                Noise::TabsSpaces => converts,
                _ => indented,
            };
            if !shows_indent && (noise.indent() || noise == Noise::TabsSpaces) {
                // No old line shows the indentation: nothing tells a drift from an intent.
                h.pen = Pen::plain();
            }
            let keeps_context = |h: &Hunk, drop_top: bool, drop_bottom: bool| {
                // In {old, new} text an insertion or deletion needs a line it keeps.
                !format.old_new()
                    || (h.new.len() - usize::from(drop_top) - usize::from(drop_bottom)) > 0
                        && h.new.iter().any(|n| matches!(n, NL::Kept(_)))
                        && (drop_top as usize + drop_bottom as usize)
                            < h.new.iter().filter(|n| matches!(n, NL::Kept(_))).count()
            };
            if noise == Noise::BlankDropped {
                if let Some((top, bottom)) =
                    blank_edge(&p.doc, h).filter(|&(t, b)| keeps_context(h, t, b))
                {
                    if top && h.b > h.a + 1 {
                        h.a += 1;
                        h.new.remove(0);
                    }
                    if bottom && h.b > h.a + 1 {
                        h.b -= 1;
                        h.new.pop();
                    }
                }
            }
            if noise == Noise::BlankAdded {
                let blank = |i: usize| p.doc.lines[i].text.trim().is_empty();
                h.blank_top = r.chance(1, 2) && (h.a == 0 || !blank(h.a - 1));
                h.blank_bottom =
                    (!h.blank_top || r.chance(1, 3)) && h.b < p.doc.lines.len() && !blank(h.b);
            }
        }
        // Indentation noise must be writable in its frame.
        if noise.indent() {
            for h in &p.hunks {
                for nl in &h.new {
                    if let NL::Written { text, origin } = nl {
                        h.pen.write(text, *origin)?;
                    }
                }
            }
        }
    }

    // Edits in turn (SEARCH/REPLACE blocks, applyEdits batches): a later edit changes a line an
    // earlier one wrote, as models that apply blocks one after another write them. The intended
    // file has the line's last version.
    if matches!(format, Format::Blocks | Format::ApplyEdits)
        && noise == Noise::None
        && adv == Adv::None
        && r.chance(1, 5)
    {
        let p = &mut plans[0];
        let keys = p.doc.keys();
        let cands: Vec<(usize, usize)> = p
            .hunks
            .iter()
            .enumerate()
            .filter(|(_, h)| h.sub.is_none())
            .flat_map(|(k, h)| {
                let e = &p.edits[h.edit];
                e.new
                    .iter()
                    .enumerate()
                    .filter_map(move |(j, nl)| match nl {
                        NL::Written { text, .. } if !text.trim().is_empty() => {
                            Some((k, j, text.clone()))
                        }
                        _ => None,
                    })
                    .filter(|(_, _, t)| !keys.contains(&key(t)))
                    .map(|(k, j, _)| (k, j))
                    .collect::<Vec<_>>()
            })
            .collect();
        if let Some(&(k, j)) = cands.get(r.below(cands.len().max(1))) {
            let ei = p.hunks[k].edit;
            let NL::Written { text, origin } = p.edits[ei].new[j].clone() else {
                unreachable!()
            };
            let unique = p.edits[ei]
                .new
                .iter()
                .filter(|n| matches!(n, NL::Written { text: t, .. } if key(t) == key(&text)))
                .count()
                == 1;
            let next = change_token(r, &text);
            if unique && key(&next) != key(&text) && !keys.contains(&key(&next)) {
                p.edits[ei].new[j] = NL::Written {
                    text: next.clone(),
                    origin,
                };
                p.chained.push((k, text, next));
                variant.push("in_turn".into());
            }
        }
    }

    // Adversarial: stale content.
    if adv == Adv::Stale {
        let p = &mut plans[0];
        let keys = p.doc.keys();
        let k = r.below(p.hunks.len());
        // What the other edits write: a stale text one of them writes is no longer stale once
        // the edits are read in turn (issue #25 §3), so it is not used.
        let others: Vec<String> = p
            .hunks
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .flat_map(|(_, o)| o.new.iter().map(|n| o.new_text(&p.doc, n)))
            .collect();
        let h = &mut p.hunks[k];
        if let Some((line, x, y)) = h.sub {
            let shown = &p.doc.lines[line].text[x..y];
            let stale = change_token(r, shown);
            let (ex, vis) = sub_count(&p.doc, &stale);
            if ex + vis > 0
                || seen_in_a_line(&p.doc, &stale)
                || stale == shown
                // As a view shows it too: the trailing whitespace of a whole line is forgiven
                // (seed 39 case 873592: `\trm -f result.o ` read in turn as the line another edit
                // writes without the space).
                || others
                    .iter()
                    .any(|o| o.contains(&stale) || key(o).contains(&key(&stale)))
            {
                return None;
            }
            h.stale = Some((line, stale));
        } else {
            let written_from: BTreeSet<usize> = h
                .new
                .iter()
                .filter_map(|n| match n {
                    NL::Written {
                        origin: Some(o), ..
                    } => Some(*o),
                    _ => None,
                })
                .collect();
            let cands: Vec<usize> = (h.a..h.b)
                .filter(|i| !written_from.contains(i))
                .filter(|&i| !super::files::tokens(&p.doc.lines[i].text).is_empty())
                .collect();
            if cands.is_empty() {
                return None;
            }
            let i = cands[r.below(cands.len())];
            let copy = h.pen.copy(&p.doc.lines[i].text);
            let stale = change_token(r, &copy);
            // A one-line old is read as a substring of a line too: a stale line that a view shows
            // inside another line is a well-formed edit of that line (seed 38 case 6661: `EOF`
            // made stale as `config`, found at the end of `  - config  `), not stale.
            if key(&stale) == key(&p.doc.lines[i].text)
                || key_windows(&keys, h.a, h.b, Some((i, &stale))) != 0
                || others.iter().any(|o| key(o) == key(&stale))
                || h.b - h.a == 1 && seen_in_a_line(&p.doc, &stale)
            {
                return None;
            }
            // The stale text must not be a whole line elsewhere either (a one-line old).
            h.stale = Some((i, stale));
        }
    }

    // A rendering that reads as another place is not this edit.
    for p in &plans {
        for h in &p.hunks {
            if h.sub.is_some() || h.b == h.a || noise == Noise::None && h.stale.is_none() {
                continue;
            }
            let (old, _) = h.sides(&p.doc);
            if collision(&p.doc, h.a, &old, noise) {
                return None;
            }
        }
    }

    // Tags.
    for p in &plans {
        let d = &p.doc;
        tags.insert(format!("lang:{}", d.lang.name()));
        if d.eol == "\r\n" {
            tags.insert("crlf".into());
        }
        if d.mixed_eol() {
            tags.insert("mixed_eol".into());
        }
        if d.bom {
            tags.insert("bom".into());
        }
        if !d.final_newline() {
            tags.insert("no_final_newline".into());
        }
        for e in &p.edits {
            tags.insert(format!("edit:{}", e.kind.name()));
        }
        if p.edits.len() > 1 {
            tags.insert("edits:many".into());
        }
        for h in &p.hunks {
            for t in &d.twins {
                let inside = |s: usize| {
                    (s..s + t.len).contains(&h.a)
                        || (s..s + t.len).contains(&(h.b.max(h.a + 1) - 1))
                };
                if inside(t.a) || inside(t.b) {
                    tags.insert(format!("in:{}", t.kind.name()));
                }
            }
            if (h.a..h.b).any(|i| d.in_embedded(i)) {
                tags.insert("in:embedded".into());
            }
            if (h.a..h.b).any(|i| {
                d.lines[i]
                    .text
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
            }) {
                tags.insert("numeric_lines".into());
            }
            if h.sub.is_some() {
                tags.insert("shown:substring".into());
            } else if h.b > h.a && invisible_twin(d, h.a, h.b) {
                // The shown old side is also elsewhere, differing only in bytes a view does not
                // show.
                tags.insert("view_ambiguous".into());
            }
            if h.a == h.b && format == Format::ApplyPatch {
                tags.insert("pure_insert".into());
            }
            if h.b == d.lines.len() && h.b > h.a && !d.final_newline() {
                // The shown old side ends with the file's last line, which has no line break.
                tags.insert("search_at_eof".into());
            }
            if format.old_new() && h.sub.is_none() && h.b > h.a {
                // The shown old text (as the model copied it) is also found in the file where
                // it starts or ends inside a line.
                let (old, _) = h.sides(d);
                let old = old.join("\n");
                let text = d.text().replace("\r\n", "\n");
                let starts: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).collect();
                let inside = starts.iter().any(|&i| {
                    let end = i + old.len();
                    let at_start =
                        i == 0 || text.as_bytes()[i - 1] == b'\n' || old.starts_with('\n');
                    let at_end =
                        end == text.len() || text.as_bytes()[end] == b'\n' || old.ends_with('\n');
                    !(at_start && at_end)
                });
                if inside && old.contains('\n') {
                    tags.insert("old_inside_lines".into());
                }
            }
        }
    }

    // A retry of an edit whose first sending is itself ambiguous by what a view shows: the engine
    // refuses that first sending (two places a view shows alike), so there is no file it produced
    // to retry against; and what the retry finds, a place equal to `old` but for bytes a view does
    // not show, is what an edit making a block like its twin finds too. Not generated.
    if adv == Adv::Retry && tags.contains("view_ambiguous") {
        return None;
    }

    // Render.
    let mut expect = match adv {
        Adv::Stale | Adv::Retry | Adv::Elided => Expect::MustRefuse,
        _ => Expect::MayApply,
    };
    let mut why = match adv {
        Adv::Stale => {
            "must refuse: a line the edit copies is not in the file (stale content)".to_string()
        }
        Adv::Retry => {
            "must refuse or be a no-op: the edit was already applied (a retry)".to_string()
        }
        Adv::Elided => {
            "must refuse: new puts a '... existing code ...' placeholder over real lines"
                .to_string()
        }
        _ => "may apply: the intended file exactly, or a refusal".to_string(),
    };
    let (op, args) = match format {
        Format::PatchFile | Format::ApplyEdits => {
            render_old_new(r, format, &plans[0], noise, adv, &mut variant)?
        }
        Format::Blocks => render_blocks(r, &plans, noise, adv, &mut variant)?,
        Format::ApplyPatch => {
            let (op, args, in_scope) = render_apply_patch(r, &plans, adv, &mut variant)?;
            if !in_scope && expect == Expect::MayApply {
                expect = Expect::MustRefuse;
                why = "must refuse: an @@ scope names a real line, and the content is not inside its block".into();
            }
            (op, args)
        }
        Format::Udiff => render_udiff(r, &plans, adv, &mut variant)?,
        Format::EditLines => render_edit_lines(r, &plans[0], adv, &mut variant)?,
    };

    // Results.
    let mut files = Vec::new();
    let mut deletions_still_shown = 0;
    for p in &plans {
        let trailing = |t: &str| t.trim_end_matches([' ', '\t']) != t;
        // Edits whose shown old side has trailing whitespace the model dropped: a line it writes
        // there may keep or drop it.
        let ws_edits: BTreeSet<usize> = p
            .hunks
            .iter()
            .filter(|h| {
                noise == Noise::TrailingWs && (h.a..h.b).any(|i| trailing(&p.doc.lines[i].text))
            })
            .map(|h| h.edit)
            .collect();
        // Edits whose shown old side was NFD text the model sent in NFC: a line it adds there is in a
        // form no view shows either, so the file's form (NFD) is as right as the one sent.
        let nf_edits: BTreeSet<usize> = p
            .hunks
            .iter()
            .filter(|h| {
                noise == Noise::Nfc
                    && (h.a..h.b).any(|i| {
                        let t = &p.doc.lines[i].text;
                        t.nfc().collect::<String>() != *t
                    })
            })
            .map(|h| h.edit)
            .collect();
        // Smartened quotes are evidence only in the file whose copied lines show them: a file none
        // of whose copied lines holds a quote gives the engine no sign, so its written lines may
        // keep what the model sent (typography evidence is per file: see the module docs).
        let typo_evidence = p.hunks.iter().any(|h| {
            h.pen.noise == Noise::SmartQuotes
                && (h.a..h.b).any(|i| p.doc.lines[i].text.contains(['"', '\'']))
        });
        let relax = |k: usize, o: Option<usize>| -> u8 {
            let mut x = 0;
            if ws_edits.contains(&k) {
                x |= WS_ANY;
            }
            if noise == Noise::SmartQuotes && !typo_evidence {
                x |= TYPO_ANY;
            }
            let Some(o) = o else {
                if nf_edits.contains(&k) {
                    x |= NF_ANY;
                }
                return x;
            };
            let t = &p.doc.lines[o].text;
            if trailing(t) {
                // A changed line's trailing whitespace is invisible in a view: the model could
                // not see it, so keeping or dropping it are both right.
                x |= WS_ANY;
            }
            if noise == Noise::Nfc && t.nfc().collect::<String>() != *t {
                x |= NF_ANY;
            }
            x
        };
        let primary = intended(&p.doc, &p.edits, &relax);
        let mut accept = vec![primary.clone()];
        // A YAML file whose intended text nests a key under a key with a scalar value is no YAML
        // document: the other reading of the same text, when it is one, is what the file can mean.
        // The same for a Python block opener left without a body (seed 39 case 813215: an
        // `indent_abs` chunk whose `+` line, read at absolute columns, took the place of the only
        // body line of `if retries > 99:` beside it). The generator's files hold such openers of
        // their own, so a reading is judged by whether it leaves fewer.
        let breaks = |lines: &[ExpLine]| match p.doc.lang {
            Lang::Yaml => yaml_breaks(lines),
            Lang::Python => python_breaks(lines),
            _ => 0,
        };
        let nestings = breaks(&primary);
        let malformed = nestings > 0;
        if noise.indent() && (!p.doc.lang.indent_significant() || malformed) {
            // The other indentation reading of the same text, hunk by hunk (the engine may read
            // each hunk either way).
            let mut flips: Vec<usize> = Vec::new();
            for (k, h) in p.hunks.iter().enumerate() {
                if (h.a..h.b.max(h.a + 1)).any(|i| i < p.doc.lines.len() && p.doc.in_embedded(i)) {
                    continue;
                }
                let differs = p.edits[h.edit].new.iter().any(|nl| match nl {
                    NL::Written { text, .. } => h.pen.other_frame(text).is_some_and(|o| o != *text),
                    _ => false,
                });
                if differs {
                    flips.push(k);
                }
            }
            flips.truncate(3);
            for mask in 1u32..(1 << flips.len()) {
                let mut alt = p.edits.clone();
                for (bit, &k) in flips.iter().enumerate() {
                    if mask & (1 << bit) == 0 {
                        continue;
                    }
                    let h = &p.hunks[k];
                    for nl in alt[h.edit].new.iter_mut() {
                        if let NL::Written { text, .. } = nl {
                            if let Some(o) = h.pen.other_frame(text) {
                                *text = o;
                            }
                        }
                    }
                }
                let alt = intended(&p.doc, &alt, &relax);
                if !malformed || breaks(&alt) < nestings {
                    accept.push(alt);
                }
            }
        }
        let mut pinned: BTreeSet<usize> = BTreeSet::new();
        for h in &p.hunks {
            pinned.extend(h.a..h.b);
            if h.a == h.b {
                pinned.insert(h.a.saturating_sub(1));
            }
        }
        if format == Format::ApplyPatch {
            // Scope lines and the blocks they head decide what is right: keep them.
            pinned.extend(p.doc.blocks.iter().map(|b| b.header));
        }
        if adv == Adv::Retry {
            // Every hunk a deletion (or an edit writing no line of its own) whose old side the
            // result still shows, line for line (a line deleted beside its equal): sent again, the
            // text is a well-formed edit of the file its first sending produced, and nothing it
            // writes marks that file as its result. No engine can tell it from a first sending:
            // not generated.
            // The first old line may stand after a result line's indentation: the text as sent
            // begins there, read as a substring (seed 38 case 479005: `}` then `impl Delta {`,
            // the first brace deleted, its old side still shown from the `}` of `    }`).
            let shown = |t: &str| t.trim_end().nfc().collect::<String>();
            let result: Vec<String> = primary.iter().map(|l| shown(&l.text)).collect();
            let first_after_indent = |w: &str, o: &str| {
                w.strip_suffix(o)
                    .is_some_and(|head| head.bytes().all(|b| b == b' ' || b == b'\t'))
            };
            // Or its last old line may end inside a result line: the text as sent ends there,
            // read as a substring (seed 42 case 202687: `build: …` then `\trm -f result.o`, the
            // first of two such lines deleted, its old side still shown up to ` # café`).
            let still = p.hunks.iter().all(|h| {
                let old: Vec<String> = (h.a..h.b).map(|i| shown(&p.doc.lines[i].text)).collect();
                let m = old.len();
                let first = |w: &str| match m {
                    1 => w.contains(&old[0]),
                    _ => first_after_indent(w, &old[0]),
                };
                let last = |w: &str| w == old[m - 1] || w.starts_with(&old[m - 1]);
                // A line of its own (one no old line is) is what marks the result; an edit
                // whose written lines all repeat old lines writes none (seed 43 case 688479:
                // `item`, `x` → `item`, `item` beside another `x`).
                let own = h.new.iter().any(|n| match n {
                    NL::Kept(_) => false,
                    NL::Written { text, .. } => !old.contains(&shown(text)),
                });
                h.b > h.a
                    && !own
                    && result.windows(m).any(|w| {
                        first(&w[0]) && (m == 1 || w[1..m - 1] == old[1..m - 1] && last(&w[m - 1]))
                    })
            });
            // editLines: a range replaced by blank lines (or deleted), or by fewer lines than it
            // holds, between anchors that read true on the result too (the same numbers, lines
            // with the same hashes) is as well-formed an edit of the result: what it writes
            // already stands at the range's start, and it reads as a deletion of the rest that
            // restates the lines it keeps, as a first sending does (seed 29 case 722613).
            let tag = surepatch::edit::hash::line_tag;
            let anchors_hold = format == Format::EditLines
                && p.hunks.iter().all(|h| {
                    let new_blank = h.new.iter().all(|n| match n {
                        NL::Kept(i) => p.doc.lines[*i].text.trim().is_empty(),
                        NL::Written { text, .. } => text.trim().is_empty(),
                    });
                    let holds = |i: usize| {
                        primary
                            .get(i)
                            .is_some_and(|l| tag(&l.text) == tag(&p.doc.lines[i].text))
                    };
                    // Fewer lines than the range: on the result they stand at its start, and
                    // the op reads as a deletion of the rest that restates the lines it keeps.
                    let shrinks = h.new.len() < h.b - h.a;
                    h.b > h.a
                        && h.stale.is_none()
                        && (new_blank || shrinks)
                        && holds(h.a)
                        && holds(h.b - 1)
                });
            if still || anchors_hold {
                deletions_still_shown += 1;
            }
        }
        let (before, first) = if adv == Adv::Retry {
            (primary.clone(), Some(unchanged(&p.doc)))
        } else {
            (unchanged(&p.doc), None)
        };
        files.push(FileCase {
            path: p.doc.path.clone(),
            bom: p.doc.bom,
            before,
            accept,
            pinned,
            gone: false,
            first,
        });
    }
    if adv == Adv::Retry && deletions_still_shown == plans.len() {
        return None;
    }
    Some(Case {
        seed,
        format,
        noise,
        adv,
        variant,
        tags: tags.into_iter().collect(),
        op,
        args,
        expect,
        files,
        why,
    })
}

/// A unified diff deleting the file (`+++ /dev/null`), its content shown: right is the file gone;
/// with one line of the shown content stale, a refusal (the content it deletes is checked).
fn delete_case(r: &mut Rng, seed: u64, doc: &Doc) -> Option<Case> {
    let stale = r.chance(1, 2);
    let mut lines: Vec<String> = doc.lines.iter().map(|l| l.text.clone()).collect();
    if stale {
        let cands: Vec<usize> = (0..lines.len())
            .filter(|&i| !super::files::tokens(&lines[i]).is_empty())
            .collect();
        let i = *cands.get(r.below(cands.len().max(1)))?;
        lines[i] = change_token(r, &lines[i]);
    }
    let mut text = format!(
        "--- a/{0}\n+++ /dev/null\n@@ -1,{1} +0,0 @@\n",
        doc.path,
        lines.len()
    );
    for l in &lines {
        text.push('-');
        text.push_str(l);
        text.push('\n');
    }
    if !doc.final_newline() {
        text.push_str("\\ No newline at end of file\n");
    }
    let mut tags = vec![
        format!("lang:{}", doc.lang.name()),
        "delete_file".to_string(),
    ];
    if doc.eol == "\r\n" {
        tags.push("crlf".into());
    }
    Some(Case {
        seed,
        format: Format::Udiff,
        noise: Noise::None,
        adv: if stale { Adv::Stale } else { Adv::None },
        variant: vec!["delete_file".into()],
        tags,
        op: "apply_unified_diff",
        args: json!([text, options(&[])]),
        expect: if stale {
            Expect::MustRefuse
        } else {
            Expect::MayApply
        },
        files: vec![FileCase {
            path: doc.path.clone(),
            bom: doc.bom,
            before: unchanged(doc),
            accept: Vec::new(),
            pinned: (0..doc.lines.len()).collect(),
            gone: true,
            first: None,
        }],
        why: if stale {
            "must refuse: the deletion shows content the file does not hold".into()
        } else {
            "may apply: the file deleted".into()
        },
    })
}

/// An insertion right after a block's scope line.
fn scope_insertion(r: &mut Rng, doc: &Doc) -> Option<LineEdit> {
    if doc.blocks.is_empty() {
        return None;
    }
    let b = &doc.blocks[r.below(doc.blocks.len())];
    let hdr = &doc.lines[b.header].text;
    let inner = doc.lines.get(b.header + 1).map(|l| l.text.clone())?;
    let ind = if inner.trim().is_empty() {
        format!("{}{}", indent_of(hdr), doc.unit)
    } else {
        indent_of(&inner).to_string()
    };
    let lang = if doc.in_embedded(b.header + 1) {
        Lang::Yaml
    } else {
        doc.lang
    };
    let s = super::files::stmt(r, lang, 0, false);
    let new = s
        .into_iter()
        .map(|(d, t)| NL::Written {
            text: if lang == Lang::Makefile {
                format!("\t{t}")
            } else {
                format!("{ind}{}{t}", doc.unit.repeat(d))
            },
            origin: None,
        })
        .collect();
    Some(LineEdit {
        start: b.header + 1,
        end: b.header + 1,
        new,
        sub: None,
        kind: EditKind::Insert,
    })
}

// ---- {old, new} ---------------------------------------------------------------------------------

/// Line `i`'s number as a view shows it.
fn prefixed(kind: Pfx, n: usize, text: &str) -> String {
    match kind {
        Pfx::CatN => format!("{n:>6}\t{text}"),
        Pfx::Colon => format!("{n}: {text}"),
        Pfx::Pipe => format!("{n:>4} | {text}"),
        Pfx::Arrow => format!("{n:>6}\u{2192}{text}"),
        Pfx::Hashline => format!("{n}:{}|{text}", surepatch::edit::hash::line_tag(text)),
    }
}

/// The partner line of `i` in a twin, if `i` is in one.
fn twin_partner(doc: &Doc, i: usize) -> Option<usize> {
    for t in &doc.twins {
        if (t.a..t.a + t.len).contains(&i) {
            return Some(t.b + (i - t.a));
        }
        if (t.b..t.b + t.len).contains(&i) {
            return Some(t.a + (i - t.b));
        }
    }
    None
}

/// The first line number a view prefix or header shows for a hunk starting at `a` (0-based), or
/// for `lines_at_twin` the twin's (else some other place).
fn shown_start(r: &mut Rng, doc: &Doc, a: usize, adv: Adv) -> usize {
    if adv != Adv::LinesAtTwin {
        return a;
    }
    match twin_partner(doc, a) {
        Some(t) => t,
        None => {
            let n = doc.lines.len();
            let off = r.range(3, 40);
            if a + off < n {
                a + off
            } else {
                a.saturating_sub(off)
            }
        }
    }
}

/// `old` and `new` strings of one hunk for `patchFile` / `applyEdits`.
fn old_new_strings(r: &mut Rng, doc: &Doc, h: &Hunk, noise: Noise, adv: Adv) -> (String, String) {
    if let Some((line, x, y)) = h.sub {
        let t = &doc.lines[line].text;
        let NL::Written { text: nt, .. } = &h.new[0] else {
            unreachable!()
        };
        // The new line differs from the old one inside x..y only (one token).
        let tail = t.len() - y;
        let new_shown = &nt[x..nt.len() - tail];
        let old_shown = match &h.stale {
            Some((_, s)) => s.clone(),
            None => h.pen.copy(&t[x..y]),
        };
        return (old_shown, h.pen.copy(new_shown));
    }
    let (old, new) = h.sides(doc);
    let crlf_exact = noise != Noise::CrlfLf && doc.eol == "\r\n";
    let join = |lines: &[String]| {
        let mut s = String::new();
        for (k, l) in lines.iter().enumerate() {
            if k > 0 {
                s.push_str(if crlf_exact { "\r\n" } else { "\n" });
            }
            s.push_str(l);
        }
        s
    };
    if let Some(kind) = noise.prefix() {
        let start = shown_start(r, doc, h.a, adv) + 1;
        let o: Vec<String> = old
            .iter()
            .enumerate()
            .map(|(k, l)| prefixed(kind, start + k, l))
            .collect();
        let n: Vec<String> = if matches!(noise, Noise::PrefixBoth(_)) {
            new.iter()
                .enumerate()
                .map(|(k, l)| prefixed(kind, start + k, l))
                .collect()
        } else {
            new
        };
        return (join(&o), join(&n));
    }
    (join(&old), join(&new))
}

/// Escapes a text once more (the model JSON-escaped it twice).
fn escape_once(s: &str, full: bool) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' if full => out.push_str("\\r"),
            '\t' if full => out.push_str("\\t"),
            '"' if full => out.push_str("\\\""),
            '\\' if full => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

fn options(extra: &[(&str, Value)]) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("workspace_root".into(), json!("$ROOT"));
    for (k, v) in extra {
        m.insert((*k).to_string(), v.clone());
    }
    Value::Object(m)
}

fn render_old_new(
    r: &mut Rng,
    format: Format,
    p: &FilePlan,
    noise: Noise,
    adv: Adv,
    variant: &mut Vec<String>,
) -> Option<(&'static str, Value)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, h) in p.hunks.iter().enumerate() {
        pairs.push(old_new_strings(r, &p.doc, h, noise, adv));
        for (_, o, n) in p.chained.iter().filter(|c| c.0 == k) {
            pairs.push((o.clone(), n.clone()));
        }
    }
    // Escaped once too often: the whole old (and maybe new) on one line with literal \n.
    if pairs.iter().all(|(o, _)| o.contains('\n')) && r.chance(1, 5) {
        let how = r.below(3);
        variant.push(["escaped_both", "escaped_old", "escaped_newlines_only"][how].to_string());
        for (o, n) in pairs.iter_mut() {
            match how {
                0 => {
                    *o = escape_once(o, true);
                    *n = escape_once(n, true);
                }
                1 => *o = escape_once(o, true),
                _ => {
                    *o = escape_once(o, false);
                    *n = escape_once(n, false);
                }
            }
        }
    }
    if format == Format::PatchFile {
        let (o, n) = pairs.into_iter().next()?;
        let camel = r.chance(1, 5);
        if camel {
            variant.push("camel_case".into());
        }
        let input = if camel {
            json!({"filePath": p.doc.path, "searchBlock": o, "replaceBlock": n})
        } else {
            json!({"file_path": p.doc.path, "search_block": o, "replace_block": n})
        };
        return Some(("patch_file", json!([input, options(&[])])));
    }
    let style = r.below(4);
    variant.push(
        [
            "edits_old_new",
            "edits_pairs",
            "edits_old_string",
            "edits_search",
        ][style]
            .into(),
    );
    let edits: Vec<Value> = pairs
        .into_iter()
        .map(|(o, n)| match style {
            0 => json!({"old": o, "new": n}),
            1 => json!([o, n]),
            2 => json!({"old_string": o, "new_string": n}),
            _ => json!({"search": o, "replace": n}),
        })
        .collect();
    if edits.len() > 1 {
        variant.push("edits_batch".into());
    }
    Some(("apply_edits", json!([p.doc.path, edits, options(&[])])))
}

// ---- SEARCH/REPLACE -----------------------------------------------------------------------------

fn render_blocks(
    r: &mut Rng,
    plans: &[FilePlan],
    noise: Noise,
    adv: Adv,
    variant: &mut Vec<String>,
) -> Option<(&'static str, Value)> {
    let mut text = String::new();
    let run = r.weighted(&[
        (7, 10),
        (5, 1),
        (6, 1),
        (8, 1),
        (9, 1),
        (10, 1),
        (11, 1),
        (12, 1),
    ]);
    if run != 7 {
        variant.push(format!("markers_{run}"));
    }
    let cline = r.chance(1, 8);
    if cline {
        variant.push("markers_cline".into());
    }
    let (sm, dv, rm) = if cline {
        (
            format!("{} SEARCH", "-".repeat(run)),
            "=".repeat(run),
            format!("{} REPLACE", "+".repeat(run)),
        )
    } else {
        (
            format!("{} SEARCH", "<".repeat(run)),
            "=".repeat(run),
            format!("{} REPLACE", ">".repeat(run)),
        )
    };
    let no_paths = plans.len() == 1 && r.chance(1, 6);
    if no_paths {
        variant.push("file_path_option".into());
    }
    let fence = r.chance(1, 2);
    let path_style = r.below(7);
    if !no_paths {
        variant.push(
            [
                "path_plain",
                "path_backticks",
                "path_bold",
                "path_colon",
                "path_heading",
                "path_fence_info",
                "path_file_label",
            ][path_style]
                .into(),
        );
    }
    if fence {
        variant.push("fenced".into());
    }
    if r.chance(1, 4) {
        text.push_str("Here are the changes:\n\n");
        variant.push("prose".into());
    }
    for p in plans {
        let path = p.doc.path.as_str();
        let ext = path.rsplit('.').next().unwrap_or("");
        let mut block_texts = Vec::new();
        for (hk, h) in p.hunks.iter().enumerate() {
            if h.sub.is_some() {
                // SEARCH/REPLACE bodies are whole lines (substrings are not shown for them).
                return None;
            }
            let (old, new) = h.sides(&p.doc);
            let (old, new) = match noise.prefix() {
                Some(kind) => {
                    let start = shown_start(r, &p.doc, h.a, adv) + 1;
                    let o = old
                        .iter()
                        .enumerate()
                        .map(|(k, l)| prefixed(kind, start + k, l))
                        .collect();
                    let n = if matches!(noise, Noise::PrefixBoth(_)) {
                        new.iter()
                            .enumerate()
                            .map(|(k, l)| prefixed(kind, start + k, l))
                            .collect()
                    } else {
                        new
                    };
                    (o, n)
                }
                None => (old, new),
            };
            let mut b = String::new();
            b.push_str(&sm);
            b.push('\n');
            for l in &old {
                b.push_str(l);
                b.push('\n');
            }
            b.push_str(&dv);
            b.push('\n');
            for l in &new {
                b.push_str(l);
                b.push('\n');
            }
            b.push_str(&rm);
            b.push('\n');
            block_texts.push(b);
            for (_, o, n) in p.chained.iter().filter(|c| c.0 == hk) {
                block_texts.push(format!("{sm}\n{o}\n{dv}\n{n}\n{rm}\n"));
            }
        }
        let between = r.chance(1, 3);
        for (k, b) in block_texts.iter().enumerate() {
            let first = k == 0;
            if !no_paths && (first || r.chance(1, 3)) {
                match path_style {
                    0 => text.push_str(&format!("{path}\n")),
                    1 => text.push_str(&format!("`{path}`\n")),
                    2 => text.push_str(&format!("**{path}**\n")),
                    3 => text.push_str(&format!("{path}:\n")),
                    4 => text.push_str(&format!("### {path}\n")),
                    5 => {}
                    _ => text.push_str(&format!("File: {path}\n")),
                }
            }
            if fence || (path_style == 5 && !no_paths) {
                if path_style == 5 && !no_paths {
                    text.push_str(&format!("```{ext}:{path}\n"));
                } else {
                    text.push_str(&format!("```{ext}\n"));
                }
            }
            text.push_str(b);
            if fence || (path_style == 5 && !no_paths) {
                text.push_str("```\n");
            }
            if between && k + 1 < block_texts.len() {
                text.push_str("\nThen the next change:\n\n");
            } else {
                text.push('\n');
            }
        }
    }
    let opts = if no_paths {
        options(&[("file_path", json!(plans[0].doc.path))])
    } else {
        options(&[])
    };
    Some(("apply_blocks", json!([text, opts])))
}

// ---- apply_patch --------------------------------------------------------------------------------

/// Which lines a scope chain resolves to (all candidates at the last level), or `None` when the
/// chain names no line (every scope ignored). Mirrors the documented rule: each scope is the lines
/// equal to it (by view keys) inside the previous level's blocks, else the one line that contains
/// it; a scope that names no line is ignored.
fn resolve_scopes(doc: &Doc, scopes: &[String]) -> Option<Vec<usize>> {
    let keys = doc.keys();
    let n = doc.lines.len();
    let mut level: Option<Vec<usize>> = None;
    for s in scopes {
        let k = key(s);
        let within = |i: usize| match &level {
            None => true,
            Some(prev) => prev.iter().any(|&p| {
                let end = doc
                    .blocks
                    .iter()
                    .find(|b| b.header == p)
                    .map_or(n, |b| b.end);
                p <= i && i < end
            }),
        };
        let mut hits: Vec<usize> = (0..n).filter(|&i| keys[i] == k && within(i)).collect();
        if hits.is_empty() {
            let c: Vec<usize> = (0..n)
                .filter(|&i| within(i) && !k.is_empty() && keys[i].contains(&k))
                .collect();
            if c.len() == 1 {
                hits = c;
            }
        }
        if !hits.is_empty() {
            level = Some(hits);
        }
    }
    level
}

/// Whether lines `a..b` (or the gap at `a` for an insertion) lie in a block of one of `lines`.
fn inside_any(doc: &Doc, lines: &[usize], a: usize, b: usize) -> bool {
    lines.iter().any(|&l| {
        let end = doc
            .blocks
            .iter()
            .find(|blk| blk.header == l)
            .map_or(doc.lines.len(), |blk| blk.end);
        if a == b {
            l < a && a <= end
        } else {
            // The scope line may also be one of the hunk's own lines.
            (l <= a && b <= end) || (a..b).contains(&l)
        }
    })
}

/// The scope chain (outermost first) of the block around lines `a..b`.
fn chain_of(doc: &Doc, blk: usize) -> Vec<usize> {
    let mut out = vec![doc.blocks[blk].header];
    let mut cur = doc.blocks[blk].parent;
    while let Some(c) = cur {
        out.insert(0, doc.blocks[c].header);
        cur = doc.blocks[c].parent;
    }
    out
}

fn render_apply_patch(
    r: &mut Rng,
    plans: &[FilePlan],
    adv: Adv,
    variant: &mut Vec<String>,
) -> Option<(&'static str, Value, bool)> {
    let mut in_scope = true;
    let mut body = String::new();
    let no_begin = r.chance(1, 8);
    let no_end = r.chance(1, 8);
    let wrapper = r.weighted(&[(0, 12), (1, 1), (2, 1), (3, 1)]);
    let scope_style = r.weighted(&[(0, 3), (1, 4), (2, 2), (3, 1), (4, 2)]);
    variant.push(
        [
            "scope_none",
            "scope_inner",
            "scope_chain",
            "scope_partial",
            "scope_unified_header",
        ][scope_style]
            .into(),
    );
    let prefix_missing = r.chance(1, 6);
    let eof_marker = r.chance(1, 2);
    let two_sections = r.chance(1, 6);
    let reversed = r.chance(1, 8);
    if no_begin {
        variant.push("no_begin_marker".into());
    }
    if no_end {
        variant.push("no_end_marker".into());
    }
    if prefix_missing {
        variant.push("context_prefix_missing".into());
    }
    let mut any_scope_at_twin = false;
    for p in plans {
        let doc = &p.doc;
        let mut chunks: Vec<String> = Vec::new();
        let mut delta: i64 = 0;
        for h in &p.hunks {
            let mut c = String::new();
            // Scope lines.
            let blk = doc.block_around(h.a, h.b);
            let pure_insert = h.a == h.b;
            let mut scope_blk = blk;
            let lines = h.diff_lines(doc);
            // A chunk of added lines only is placed by its scope alone: naming another block makes
            // it another, well-formed edit (nothing in it could disagree), so it is not retargeted.
            let placed_by_scope = !lines.iter().any(|l| l.0 != '+');
            // Content that a view shows identically elsewhere is located by the scope among its
            // copies: a scope naming the other copy's block means that copy (another well-formed
            // edit), so such a chunk is not retargeted either.
            let shown_twice = h.b > h.a && invisible_twin(doc, h.a, h.b);
            if adv == Adv::ScopeAtTwin && !any_scope_at_twin && !placed_by_scope && !shown_twice {
                // Another block: the twin's if there is one.
                let twin_blk = twin_partner(doc, h.a).and_then(|t| doc.block_of(t));
                let other = twin_blk.filter(|&t| Some(t) != blk).or_else(|| {
                    let others: Vec<usize> =
                        (0..doc.blocks.len()).filter(|&k| Some(k) != blk).collect();
                    others.get(r.below(others.len())).copied()
                });
                if let Some(o) = other {
                    scope_blk = Some(o);
                    any_scope_at_twin = true;
                }
            }
            let mut scopes: Vec<String> = Vec::new();
            let hdr_text = |l: usize| doc.lines[l].text.trim_end().to_string();
            if let Some(sb) = scope_blk {
                match scope_style {
                    1 => scopes.push(hdr_text(doc.blocks[sb].header).trim_start().to_string()),
                    2 => {
                        for l in chain_of(doc, sb) {
                            scopes.push(if r.chance(1, 2) {
                                hdr_text(l)
                            } else {
                                hdr_text(l).trim_start().to_string()
                            });
                        }
                    }
                    3 => {
                        let t = hdr_text(doc.blocks[sb].header).trim_start().to_string();
                        let cut = t.find('(').unwrap_or(t.len().clamp(1, 6));
                        let cut = (0..=cut)
                            .rev()
                            .find(|&c| t.is_char_boundary(c))
                            .unwrap_or(0);
                        if cut > 0 {
                            scopes.push(t[..cut].trim_end().to_string());
                        }
                    }
                    _ => {}
                }
            }
            if adv == Adv::ScopeAtTwin && scopes.is_empty() && any_scope_at_twin {
                if let Some(sb) = scope_blk {
                    scopes.push(hdr_text(doc.blocks[sb].header).trim_start().to_string());
                }
            }
            if !scopes.is_empty() {
                if let Some(lines) = resolve_scopes(doc, &scopes) {
                    if lines.len() > 1 {
                        variant.push("scope_repeated".into());
                    }
                    if !inside_any(doc, &lines, h.a, h.b) {
                        // Below a line the scope names, outside its block: the chunk is searched
                        // after the scope line (apply_patch's reading), so it may apply.
                        if lines.iter().any(|&l| l < h.a) {
                            variant.push("scope_names_a_line_above_outside".into());
                        } else {
                            in_scope = false;
                            variant.push("scope_names_a_line_below".into());
                        }
                    }
                }
            }
            let bare_insert = pure_insert && !lines.iter().any(|l| l.0 == ' ');
            if bare_insert && h.a == doc.lines.len() {
                // At the end of the file a pure insertion needs no scope (a chunk with neither
                // scope nor context goes there), and one would place it under its block's header.
                scopes.clear();
            } else if bare_insert {
                // A pure insertion is placed by its scope alone, right under the line it names.
                match blk {
                    Some(b) if doc.blocks[b].header + 1 == h.a => {
                        if scopes.is_empty() {
                            scopes.push(hdr_text(doc.blocks[b].header).trim_start().to_string());
                        }
                    }
                    _ => return None,
                }
                if let Some(lines) = resolve_scopes(doc, &scopes) {
                    if !inside_any(doc, &lines, h.a, h.b) {
                        in_scope = false;
                    }
                }
            }
            if scope_style == 4 {
                let old_n = lines.iter().filter(|l| l.0 != '+').count();
                let new_n = lines.iter().filter(|l| l.0 != '-').count();
                // A chunk with neither scope nor context is placed by its numbers alone: numbers
                // naming another place would be another, well-formed edit.
                let shown_adv = match bare_insert && scopes.is_empty() {
                    true => Adv::None,
                    false => adv,
                };
                let start = shown_start(r, doc, h.a, shown_adv) + 1;
                let ns = (start as i64 + delta).max(1);
                let tail = scopes.first().map(|s| format!(" {s}")).unwrap_or_default();
                c.push_str(&format!("@@ -{start},{old_n} +{ns},{new_n} @@{tail}\n"));
                delta += new_n as i64 - old_n as i64;
            } else if scopes.is_empty() {
                c.push_str("@@\n");
            } else {
                for s in &scopes {
                    c.push_str(&format!("@@ {s}\n"));
                }
            }
            for (k, text, _) in &lines {
                if *k == ' '
                    && prefix_missing
                    && r.chance(2, 3)
                    && !text.starts_with(['+', '-', '@', '*', '\\', ' ', '\t'])
                    && !text.is_empty()
                {
                    c.push_str(text);
                } else {
                    c.push(*k);
                    c.push_str(text);
                }
                c.push('\n');
            }
            if h.b == doc.lines.len() && h.a < h.b && eof_marker {
                c.push_str("*** End of File\n");
                variant.push("end_of_file".into());
            }
            chunks.push(c);
        }
        if reversed && chunks.len() > 1 {
            chunks.reverse();
            variant.push("hunks_reversed".into());
        }
        let deco = r.weighted(&[(0, 12), (1, 1), (2, 1)]);
        let shown_path = match deco {
            1 => format!("`{}`", doc.path),
            2 => format!("./{}", doc.path),
            _ => doc.path.clone(),
        };
        if two_sections && chunks.len() > 1 {
            variant.push("two_sections".into());
            let half = chunks.len() / 2;
            for part in [&chunks[..half], &chunks[half..]] {
                body.push_str(&format!("*** Update File: {shown_path}\n"));
                for c in part {
                    body.push_str(c);
                }
            }
        } else {
            body.push_str(&format!("*** Update File: {shown_path}\n"));
            for c in &chunks {
                body.push_str(c);
            }
        }
    }
    let mut text = String::new();
    if !no_begin {
        text.push_str("*** Begin Patch\n");
    }
    text.push_str(&body);
    if !no_end {
        text.push_str("*** End Patch\n");
    }
    let text = match wrapper {
        1 => {
            variant.push("heredoc".into());
            format!("apply_patch <<'EOF'\n{text}EOF\n")
        }
        2 => {
            variant.push("fenced".into());
            format!("```diff\n{text}```\n")
        }
        3 => {
            variant.push("prose".into());
            format!("I'll make the change.\n\n{text}\nDone.\n")
        }
        _ => text,
    };
    if adv == Adv::ScopeAtTwin && !any_scope_at_twin {
        return None;
    }
    Some(("apply_patch", json!([text, options(&[])]), in_scope))
}

// ---- unified diff -------------------------------------------------------------------------------

fn render_udiff(
    r: &mut Rng,
    plans: &[FilePlan],
    adv: Adv,
    variant: &mut Vec<String>,
) -> Option<(&'static str, Value)> {
    let numbers = r.weighted(&[(0, 8), (1, 2), (2, 2), (3, 2)]);
    variant.push(
        [
            "numbers_right",
            "numbers_offset",
            "counts_wrong",
            "numbers_missing",
        ][numbers]
            .into(),
    );
    let func_ctx = r.chance(1, 3);
    if func_ctx {
        variant.push("function_context".into());
    }
    let headers = r.weighted(&[(0, 8), (1, 2), (2, 1), (3, 1)]);
    let path_fallback = plans.len() == 1 && r.chance(1, 10);
    let prefix_missing = r.chance(1, 8);
    let drop_no_eol = r.chance(1, 4);
    if prefix_missing {
        variant.push("context_prefix_missing".into());
    }
    let two_sections = r.chance(1, 8);
    let mut text = String::new();
    for p in plans {
        let doc = &p.doc;
        let mut hunks: Vec<String> = Vec::new();
        let mut delta: i64 = 0;
        let offset = r.range(1, 30) as i64 * if r.chance(1, 2) { 1 } else { -1 };
        for h in &p.hunks {
            let lines = h.diff_lines(doc);
            let old_n = lines.iter().filter(|l| l.0 != '+').count();
            let new_n = lines.iter().filter(|l| l.0 != '-').count();
            let a1 = shown_start(r, doc, h.a, adv) + 1;
            // A pure insertion with no context is numbered by the line before it.
            let os = if old_n == 0 { a1 as i64 - 1 } else { a1 as i64 };
            let ns = if new_n == 0 {
                os + delta - 1
            } else {
                a1 as i64 + delta
            };
            let (os, ns) = if numbers == 1 {
                ((os + offset).max(1), (ns + offset).max(1))
            } else {
                (os, ns)
            };
            let (oc, nc) = if numbers == 2 {
                (old_n + 1, new_n.saturating_sub(1))
            } else {
                (old_n, new_n)
            };
            let ctx = if func_ctx {
                doc.block_around(h.a, h.b.max(h.a))
                    .map(|b| format!(" {}", doc.lines[doc.blocks[b].header].text.trim()))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            let mut c = if numbers == 3 {
                format!("{}{ctx}\n", r.pick(&["@@", "@@ @@", "@@ ... @@"]))
            } else {
                format!("@@ -{os},{oc} +{ns},{nc} @@{ctx}\n")
            };
            delta += new_n as i64 - old_n as i64;
            let mut lines = lines;
            let last_line = doc.lines.len().saturating_sub(1);
            let file_lacks_nl = !doc.final_newline();
            if file_lacks_nl && h.b == doc.lines.len() && lines.iter().all(|l| l.0 == '-') {
                // Every line up to the end removed: the line before becomes the last one, and a
                // diff can not say whether it keeps its newline without showing it.
                return None;
            }
            if file_lacks_nl && h.b == doc.lines.len() && !drop_no_eol {
                // The old side ends with the file's last line (no newline); the new side ends
                // with the new file's last line (no newline either). A context line that is the
                // last line of only one side is shown as removed and added again, as diff does.
                if let Some(k) = lines.iter().rposition(|l| l.0 != '-') {
                    let both_last = lines[k].0 == ' ' && lines[k].2 == Some(last_line);
                    if lines[k].0 == ' ' && !both_last {
                        let t = lines[k].1.clone();
                        lines[k].0 = '-';
                        lines.push(('+', t, None));
                    }
                }
                if let Some(k) = lines
                    .iter()
                    .position(|l| l.0 == ' ' && l.2 == Some(last_line))
                {
                    if k + 1 < lines.len() {
                        // The old last line as context, with lines added after it.
                        let t = lines[k].1.clone();
                        lines[k].0 = '-';
                        lines.push(('+', t, None));
                        let plus: Vec<_> = lines.drain(k + 1..).collect();
                        let (minus, adds): (Vec<_>, Vec<_>) =
                            plus.into_iter().partition(|l| l.0 == '-');
                        lines.extend(minus);
                        // The re-added old last line goes before the lines added after it.
                        let mut adds = adds;
                        let last = adds.pop().unwrap();
                        adds.insert(0, last);
                        lines.extend(adds);
                    }
                }
            }
            let at_eof = h.b == doc.lines.len();
            let last_plus = lines.iter().rposition(|l| l.0 == '+');
            let last_new = lines.iter().rposition(|l| l.0 != '-');
            // Context after the last changed line keeps its prefix: without counts, unprefixed
            // lines trailing a hunk are prose (a documented reading), not context.
            let last_change = lines.iter().rposition(|l| l.0 != ' ').unwrap_or(0);
            for (k, (kind, t, orig)) in lines.iter().enumerate() {
                if *kind == ' '
                    && k < last_change
                    && prefix_missing
                    && r.chance(2, 3)
                    && !t.is_empty()
                    && !t.starts_with(['+', '-', '@', '\\', ' ', '\t'])
                {
                    c.push_str(t);
                } else {
                    c.push(*kind);
                    c.push_str(t);
                }
                c.push('\n');
                if file_lacks_nl && at_eof && !drop_no_eol {
                    let old_last = *kind != '+' && *orig == Some(last_line);
                    let new_last = *kind == '+' && Some(k) == last_plus && Some(k) == last_new;
                    if old_last || new_last {
                        c.push_str("\\ No newline at end of file\n");
                    }
                }
            }
            hunks.push(c);
        }
        let (old_name, new_name) = match headers {
            0 => (format!("a/{}", doc.path), format!("b/{}", doc.path)),
            1 => (doc.path.clone(), doc.path.clone()),
            2 => (format!("{}.orig", doc.path), doc.path.clone()),
            _ => (format!("a/{}", doc.path), format!("b/{}", doc.path)),
        };
        let header = |t: &mut String| {
            if headers == 3 {
                t.push_str(&format!(
                    "diff --git a/{0} b/{0}\nindex 3b18e51..a9c3f2d 100644\n",
                    doc.path
                ));
            }
            t.push_str(&format!("--- {old_name}\n+++ {new_name}\n"));
        };
        if path_fallback {
            variant.push("path_fallback".into());
            for hk in &hunks {
                text.push_str(hk);
            }
        } else if two_sections && hunks.len() > 1 {
            variant.push("two_sections".into());
            let half = hunks.len() / 2;
            for part in [&hunks[..half], &hunks[half..]] {
                header(&mut text);
                for hk in part {
                    text.push_str(hk);
                }
            }
        } else {
            header(&mut text);
            for hk in &hunks {
                text.push_str(hk);
            }
        }
    }
    variant.push(
        [
            "headers_git",
            "headers_plain",
            "headers_orig",
            "headers_diff_git",
        ][headers]
            .into(),
    );
    let opts = if path_fallback {
        options(&[("file_path", json!(plans[0].doc.path))])
    } else {
        options(&[])
    };
    Some(("apply_unified_diff", json!([text, opts])))
}

// ---- editLines ----------------------------------------------------------------------------------

fn render_edit_lines(
    r: &mut Rng,
    p: &FilePlan,
    adv: Adv,
    variant: &mut Vec<String>,
) -> Option<(&'static str, Value)> {
    let doc = &p.doc;
    let paste = r.chance(1, 4);
    if paste {
        variant.push("anchor_with_text".into());
    }
    let use_text = r.chance(1, 4);
    let anchor = |i: usize, h: &Hunk| {
        let t = match &h.stale {
            Some((k, s)) if *k == i => s.clone(),
            _ => doc.lines[i].text.clone(),
        };
        let tag = surepatch::edit::hash::line_tag(&t);
        if paste {
            format!("{}:{tag}|{t}", i + 1)
        } else {
            format!("{}:{tag}", i + 1)
        }
    };
    let mut ops = Vec::new();
    for h in &p.hunks {
        let new: Vec<String> = h
            .new
            .iter()
            .map(|n| match n {
                NL::Kept(i) => doc.lines[*i].text.clone(),
                NL::Written { text, .. } => text.clone(),
            })
            .collect();
        let lines_val = |v: &[String]| {
            if use_text {
                (
                    "text",
                    json!(v.iter().map(|l| format!("{l}\n")).collect::<String>()),
                )
            } else {
                ("lines", json!(v))
            }
        };
        if h.a == h.b {
            let (k, v) = lines_val(&new);
            if h.a > 0 {
                ops.push(json!({"op": "insert_after", "start": anchor(h.a - 1, h), k: v}));
            } else {
                ops.push(json!({"op": "insert_before", "start": anchor(0, h), k: v}));
            }
        } else if new.is_empty() {
            ops.push(json!({"op": "delete", "start": anchor(h.a, h), "end": anchor(h.b - 1, h)}));
        } else {
            let (k, v) = lines_val(&new);
            ops.push(
                json!({"op": "replace", "start": anchor(h.a, h), "end": anchor(h.b - 1, h), k: v}),
            );
        }
    }
    if adv == Adv::Stale
        && !p.hunks.iter().any(|h| {
            h.stale
                .as_ref()
                .is_some_and(|(k, _)| *k == h.a || *k + 1 == h.b || (h.a == h.b && *k + 1 == h.a))
        })
    {
        // editLines only shows the anchors' lines: the stale line must be one of them.
        return None;
    }
    Some(("edit_lines", json!([doc.path, ops, options(&[])])))
}

/// How many times YAML lines nest a mapping key under a key whose value is a plain scalar (`image: app`
/// followed by a deeper `ITEM: 1`): "mapping values are not allowed here", no document. Narrow on
/// purpose: list items, block scalars (`|`, `>`), flow collections, anchors, tags and quoted values
/// that do not close on their line (a flow scalar may go on below) are left alone; a quoted value
/// closed on its line is a scalar like any other (`limit: "über"` over a deeper `size: 98`).
///
/// Also counted: a mapping key at the column of the sequence entries just above it, where that
/// sequence is deeper than the key that holds it (`items:`, `  - name: a`, then `  size: 1`: "did
/// not find expected '-' indicator"). A sequence at its key's own column (`items:`, `- a`, then
/// `other: 1`) is YAML's compact form, and a key after it is that key's sibling (seed 34 case
/// 697913: an `indent_abs` hunk whose `+` line, read at absolute columns, sat beside the item it
/// belonged to).
///
/// Counted: another edit of the same file may leave one elsewhere, so a reading is judged by
/// whether it has fewer (seed 30 case 612054: a first block deleting `name:` and `services:` left
/// `version: 2` over `  web:`).
fn yaml_breaks(lines: &[ExpLine]) -> usize {
    let indent = |t: &str| t.len() - t.trim_start_matches(' ').len();
    let mut count = 0;
    let mut prev: Option<&str> = None;
    let mut seen: Vec<&str> = Vec::new();
    for l in lines {
        let t = l.text.trim_end();
        if t.trim().is_empty() || t.trim_start().starts_with('#') {
            continue;
        }
        if is_key_beside_deeper_sequence(&seen, t) {
            count += 1;
        }
        seen.push(t);
        if let Some(p) = prev {
            let body = p.trim_start();
            // `"…"` or `'…'` closed on the line, with no quote of its kind inside.
            let closed = |v: &str| {
                [('"', '"'), ('\'', '\'')].iter().any(|&(a, b)| {
                    v.len() >= 2
                        && v.starts_with(a)
                        && v.ends_with(b)
                        && !v[1..v.len() - 1].contains(a)
                        && !v.contains('\\')
                })
            };
            let scalar = !body.starts_with("- ")
                && body.split_once(": ").is_some_and(|(k, v)| {
                    let v = v.trim_end();
                    !k.contains(' ')
                        && !v.is_empty()
                        && (closed(v)
                            || !v.starts_with(['|', '>', '{', '[', '&', '*', '!', '"', '\'', '#']))
                });
            let key = t.trim_start().contains(": ") || t.ends_with(':');
            if scalar && key && indent(t) > indent(p) {
                count += 1;
            }
        }
        prev = Some(t);
    }
    count
}

/// How many Python block openers (`if …:`, `def …:`, `else:` and the like, a line whose code ends
/// with `:`) have no body: the next line with code is not deeper, or there is none
/// ("expected an indented block"). Comments and blank lines are skipped; only a line whose first
/// word is a block keyword opens a block (a dict entry `"a":` does not).
pub fn python_breaks(lines: &[ExpLine]) -> usize {
    const OPENERS: [&str; 12] = [
        "if", "elif", "else", "for", "while", "def", "class", "try", "except", "finally", "with",
        "async",
    ];
    let indent = |t: &str| t.len() - t.trim_start_matches([' ', '\t']).len();
    let code: Vec<&str> = lines
        .iter()
        .map(|l| l.text.trim_end())
        .filter(|t| !t.trim().is_empty() && !t.trim_start().starts_with('#'))
        .collect();
    let opener = |t: &str| {
        let body = t.trim_start();
        let word = body
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .next()
            .unwrap_or("");
        let code = body.split(" #").next().unwrap_or(body).trim_end();
        OPENERS.contains(&word) && code.ends_with(':')
    };
    (0..code.len())
        .filter(|&i| opener(code[i]))
        .filter(|&i| code.get(i + 1).is_none_or(|n| indent(n) <= indent(code[i])))
        .count()
}

/// [`yaml_breaks`]' second shape: `t`, a mapping key (not an entry), sits at the column of the
/// sequence entries that the nearest line at or left of its column (among `above`, non-blank lines)
/// belongs to, and the line heading that sequence is left of that column.
pub fn is_key_beside_deeper_sequence(above: &[&str], t: &str) -> bool {
    let indent = |t: &str| t.len() - t.trim_start_matches(' ').len();
    let body = t.trim_start();
    let is_key = !body.starts_with("- ") && (body.contains(": ") || body.ends_with(':'));
    if !is_key {
        return false;
    }
    let c = indent(t);
    // Up through the sequence's entries (and their deeper lines) to the line that heads it.
    let mut entries = false;
    for a in above.iter().rev() {
        let (ai, ab) = (indent(a), a.trim_start());
        if ai > c {
            continue;
        }
        if ai == c && (ab.starts_with("- ") || ab == "-") {
            entries = true;
            continue;
        }
        return entries && ai < c;
    }
    false
}
