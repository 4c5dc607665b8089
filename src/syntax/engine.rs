//! The tree-sitter side of the gate: grammars, parsing (full or incremental) and error collection.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::time::Instant;

use tree_sitter::{InputEdit, Language, ParseOptions, Parser, Point, Tree};

use super::{introduced, Change, RawError, Strategy};

fn grammar(language: &str) -> Option<Language> {
    Some(match language {
        #[cfg(feature = "syntax-javascript")]
        "javascript" => tree_sitter_javascript::LANGUAGE.into(),
        #[cfg(feature = "syntax-typescript")]
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        #[cfg(feature = "syntax-typescript")]
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        #[cfg(feature = "syntax-python")]
        "python" => tree_sitter_python::LANGUAGE.into(),
        #[cfg(feature = "syntax-rust")]
        "rust" => tree_sitter_rust::LANGUAGE.into(),
        #[cfg(feature = "syntax-go")]
        "go" => tree_sitter_go::LANGUAGE.into(),
        #[cfg(feature = "syntax-json")]
        "json" => tree_sitter_json::LANGUAGE.into(),
        #[cfg(feature = "syntax-c")]
        "c" => tree_sitter_c::LANGUAGE.into(),
        #[cfg(feature = "syntax-cpp")]
        "cpp" => tree_sitter_cpp::LANGUAGE.into(),
        #[cfg(feature = "syntax-java")]
        "java" => tree_sitter_java::LANGUAGE.into(),
        _ => return None,
    })
}

/// The new errors of `after`, or `None` when parsing ran past `deadline` (or the grammar is not
/// compiled in, which `language_for` already rules out).
pub(super) fn new_errors(
    language: &'static str,
    before: &str,
    after: &str,
    changes: &[Change],
    strategy: Strategy,
    deadline: Instant,
) -> Option<Vec<RawError>> {
    let mut parser = Parser::new();
    parser.set_language(&grammar(language)?).ok()?;
    let mut parse = |text: &str, old: Option<&Tree>| parse(&mut parser, text, old, deadline);
    match strategy {
        Strategy::Cached => {
            let (before_key, after_key) = (Key::new(language, before), Key::new(language, after));
            if let Some(old_tree) = CACHE.get(&before_key) {
                let new_tree = parse(after, Some(&edited(&old_tree, before, after, changes)))?;
                CACHE.put(after_key, new_tree.clone());
                return Some(compare(before, changes, &old_tree, &new_tree));
            }
            let new_tree = parse(after, None)?;
            CACHE.put(after_key, new_tree.clone());
            let new = errors(&new_tree);
            if new.is_empty() {
                return Some(new);
            }
            let old_tree = parse(before, Some(&reverted(&new_tree, before, after, changes)))?;
            CACHE.put(before_key, old_tree.clone());
            Some(introduced(before, changes, &errors(&old_tree), new))
        }
        Strategy::AfterFirst => {
            let new_tree = parse(after, None)?;
            let new = errors(&new_tree);
            if new.is_empty() {
                return Some(new);
            }
            let old_tree = parse(before, Some(&reverted(&new_tree, before, after, changes)))?;
            Some(introduced(before, changes, &errors(&old_tree), new))
        }
        Strategy::BeforeFirst => {
            let old_tree = parse(before, None)?;
            let new_tree = parse(after, Some(&edited(&old_tree, before, after, changes)))?;
            Some(compare(before, changes, &old_tree, &new_tree))
        }
        Strategy::Full => {
            let old_tree = parse(before, None)?;
            let new_tree = parse(after, None)?;
            Some(compare(before, changes, &old_tree, &new_tree))
        }
    }
}

/// Parses `text` and keeps its tree, so that the next check of an edit *of* this text re-parses
/// incrementally. Returns false when parsing ran past `deadline`.
pub(super) fn warm(language: &'static str, text: &str, deadline: Instant) -> bool {
    let key = Key::new(language, text);
    if CACHE.get(&key).is_some() {
        return true;
    }
    let Some(grammar) = grammar(language) else {
        return false;
    };
    let mut parser = Parser::new();
    if parser.set_language(&grammar).is_err() {
        return false;
    }
    let _parsing = Parsing::start(&key);
    match parse(&mut parser, text, None, deadline) {
        Some(tree) => {
            CACHE.put(key, tree);
            true
        }
        None => false,
    }
}

/// The texts [`warm`] is parsing now (a view's background parse). [`tree`] waits for such a parse
/// instead of parsing the same text a second time beside it (a caller that views a file and lists its
/// symbols at once would otherwise pay two full parses on the same cores).
static PARSING: (Mutex<Vec<Key>>, std::sync::Condvar) =
    (Mutex::new(Vec::new()), std::sync::Condvar::new());

/// Marks a text as being parsed by [`warm`] until dropped.
struct Parsing(Key);

impl Parsing {
    fn start(key: &Key) -> Parsing {
        PARSING
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(key.clone());
        Parsing(key.clone())
    }

    /// Waits (until `deadline` at most) while [`warm`] parses `key`'s text.
    fn wait_for(key: &Key, deadline: Instant) {
        let mut parsing = PARSING.0.lock().unwrap_or_else(|e| e.into_inner());
        while parsing.contains(key) {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            parsing = match PARSING.1.wait_timeout(parsing, left) {
                Ok((p, _)) => p,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

impl Drop for Parsing {
    fn drop(&mut self) {
        let mut parsing = PARSING.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = parsing.iter().position(|k| *k == self.0) {
            parsing.swap_remove(i);
        }
        PARSING.1.notify_all();
    }
}

/// The tree of `text` in `language`: the cached one when there is one, else a full parse (kept in the
/// cache for the next caller, the gate included). `None` when parsing ran past `deadline`.
pub(super) fn tree(language: &'static str, text: &str, deadline: Instant) -> Option<Tree> {
    let key = Key::new(language, text);
    if let Some(tree) = CACHE.get(&key) {
        return Some(tree);
    }
    Parsing::wait_for(&key, deadline);
    if let Some(tree) = CACHE.get(&key) {
        return Some(tree);
    }
    let mut parser = Parser::new();
    parser.set_language(&grammar(language)?).ok()?;
    #[cfg(test)]
    tests::PARSED_BY_TREE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(key.clone());
    let tree = parse(&mut parser, text, None, deadline)?;
    CACHE.put(key, tree.clone());
    Some(tree)
}

pub(super) fn clear_cache() {
    CACHE
        .entries
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
}

fn compare(before: &str, changes: &[Change], old_tree: &Tree, new_tree: &Tree) -> Vec<RawError> {
    let new = errors(new_tree);
    if new.is_empty() {
        return new;
    }
    introduced(before, changes, &errors(old_tree), new)
}

/// `old_tree` (of `before`) edited to line up with `after`, ready for an incremental parse.
fn edited(old_tree: &Tree, before: &str, after: &str, changes: &[Change]) -> Tree {
    let mut tree = old_tree.clone();
    for edit in forward_edits(before, after, changes) {
        tree.edit(&edit);
    }
    tree
}

/// `new_tree` (of `after`) edited back to line up with `before`.
fn reverted(new_tree: &Tree, before: &str, after: &str, changes: &[Change]) -> Tree {
    let mut tree = new_tree.clone();
    for edit in inverse_edits(before, after, changes).iter().rev() {
        tree.edit(edit);
    }
    tree
}

/// Most recently used trees, by language and content hash. A check of an edit whose original text is
/// here re-parses only what the edit touched (tree-sitter's incremental parse, which yields the same
/// tree as a fresh one); every check leaves the tree of its result here, so a run of edits on one file
/// pays for one full parse. Bounded by entry count and by the total size of the texts.
static CACHE: TreeCache = TreeCache {
    entries: Mutex::new(VecDeque::new()),
};

/// At most this many trees are kept.
pub(super) const CACHE_ENTRIES: usize = 16;
/// At most this many bytes of source text have trees kept (a tree takes roughly 10 to 20 times the
/// size of its text).
pub(super) const CACHE_BYTES: usize = 4 * 1024 * 1024;

#[derive(Clone, PartialEq, Eq)]
struct Key {
    language: &'static str,
    len: usize,
    hash: [u8; 32],
}

impl Key {
    fn new(language: &'static str, text: &str) -> Self {
        Key {
            language,
            len: text.len(),
            hash: *blake3::hash(text.as_bytes()).as_bytes(),
        }
    }
}

struct TreeCache {
    entries: Mutex<VecDeque<(Key, Tree)>>,
}

impl TreeCache {
    fn get(&self, key: &Key) -> Option<Tree> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let i = entries.iter().position(|(k, _)| k == key)?;
        let entry = entries.remove(i)?;
        let tree = entry.1.clone();
        entries.push_front(entry);
        Some(tree)
    }

    fn put(&self, key: Key, tree: Tree) {
        if key.len > CACHE_BYTES {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(k, _)| *k != key);
        entries.push_front((key, tree));
        let mut total = 0;
        let keep = entries
            .iter()
            .take(CACHE_ENTRIES)
            .take_while(|(k, _)| {
                total += k.len;
                total <= CACHE_BYTES
            })
            .count();
        entries.truncate(keep);
    }
}

fn parse(parser: &mut Parser, text: &str, old: Option<&Tree>, deadline: Instant) -> Option<Tree> {
    let bytes = text.as_bytes();
    let mut progress = |_: &tree_sitter::ParseState| {
        if Instant::now() > deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        old,
        Some(options),
    );
    // A cancelled parse leaves state behind that would resume on the next call.
    if tree.is_none() {
        parser.reset();
    }
    tree
}

/// The outermost ERROR and every MISSING node, in document order. Nothing inside an ERROR node is
/// listed: its extent is the error.
fn errors(tree: &Tree) -> Vec<RawError> {
    let mut out = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return out;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let mut descend = false;
        if node.is_error() || node.is_missing() {
            out.push(RawError {
                start: node.start_byte(),
                end: node.end_byte(),
                missing: node.is_missing(),
                expected: node.is_missing().then(|| node.kind().to_string()),
            });
        } else if node.has_error() {
            descend = true;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Row/column (bytes after the last `\n`) of increasing byte offsets, in one pass over the text.
struct Points<'t> {
    text: &'t [u8],
    pos: usize,
    row: usize,
    line_start: usize,
}

impl<'t> Points<'t> {
    fn new(text: &'t str) -> Self {
        Points {
            text: text.as_bytes(),
            pos: 0,
            row: 0,
            line_start: 0,
        }
    }

    fn at(&mut self, pos: usize) -> Point {
        debug_assert!(pos >= self.pos);
        for i in memchr::memchr_iter(b'\n', &self.text[self.pos..pos]) {
            self.row += 1;
            self.line_start = self.pos + i + 1;
        }
        self.pos = pos;
        Point::new(self.row, pos - self.line_start)
    }
}

/// Where `start` ends up after the text `s`.
fn advance(start: Point, s: &str) -> Point {
    let b = s.as_bytes();
    match memchr::memrchr(b'\n', b) {
        None => Point::new(start.row, start.column + b.len()),
        Some(last) => Point::new(
            start.row + memchr::memchr_iter(b'\n', b).count(),
            b.len() - last - 1,
        ),
    }
}

/// Edits that turn a tree of `before` into one of `after`, to apply in order: each is expressed in
/// the coordinates of the document with the earlier changes already made.
fn forward_edits(before: &str, after: &str, changes: &[Change]) -> Vec<InputEdit> {
    let mut points = Points::new(after);
    changes
        .iter()
        .map(|c| {
            let start_position = points.at(c.new_start);
            let old_len = c.old_end - c.old_start;
            InputEdit {
                start_byte: c.new_start,
                old_end_byte: c.new_start + old_len,
                new_end_byte: c.new_end,
                start_position,
                old_end_position: advance(start_position, &before[c.old_start..c.old_end]),
                new_end_position: points.at(c.new_end),
            }
        })
        .collect()
}

/// Edits that turn a tree of `after` back into one of `before`, to apply in *reverse* order: each is
/// expressed in the coordinates of `after`, which the later changes (already undone) do not shift.
fn inverse_edits(before: &str, after: &str, changes: &[Change]) -> Vec<InputEdit> {
    let mut points = Points::new(after);
    changes
        .iter()
        .map(|c| {
            let start_position = points.at(c.new_start);
            let old_len = c.old_end - c.old_start;
            InputEdit {
                start_byte: c.new_start,
                old_end_byte: c.new_end,
                new_end_byte: c.new_start + old_len,
                start_position,
                old_end_position: points.at(c.new_end),
                new_end_position: advance(start_position, &before[c.old_start..c.old_end]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts [`tree`] parsed itself.
    pub(super) static PARSED_BY_TREE: Mutex<Vec<Key>> = Mutex::new(Vec::new());

    /// A tree asked for while a view's background parse ([`warm`]) of the same text runs is that
    /// parse's tree, not a second full parse beside it.
    #[cfg(feature = "syntax-javascript")]
    #[test]
    fn tree_waits_for_the_background_parse_of_the_same_text() {
        let text: String = (0..8000)
            .map(|i| format!("function f{i}(a, b) {{ return [a, b, {i}].map((x) => x * 2); }}\n"))
            .collect();
        let key = Key::new("javascript", &text);
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        let warming = {
            let text = text.clone();
            std::thread::spawn(move || warm("javascript", &text, deadline))
        };
        // Wait until the background parse has started (bounded), then ask for the tree.
        let started = Instant::now();
        while !PARSING.0.lock().unwrap().contains(&key) && CACHE.get(&key).is_none() {
            assert!(started.elapsed().as_secs() < 10, "the parse never started");
            std::thread::yield_now();
        }
        let tree = tree("javascript", &text, deadline).expect("a tree");
        assert!(warming.join().unwrap());
        assert_eq!(tree.root_node().named_child_count(), 8000);
        assert!(
            !PARSED_BY_TREE.lock().unwrap().contains(&key),
            "tree parsed the text a second time"
        );
    }
}
