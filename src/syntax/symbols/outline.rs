//! Per-language symbol extraction from a tree-sitter tree: which nodes are symbols, their names and
//! kinds, their logical name segments, and their whole-line spans (see the span rules in
//! [`super`]).

use std::cell::RefCell;
use std::rc::Rc;

use tree_sitter::Node;

use super::Symbol;
use crate::edit::text::LineTable;

/// What a node is to the outline.
enum Class<'t> {
    /// A symbol: kind, its name segments relative to the enclosing logical path (usually one; Go
    /// methods and C++ out-of-class definitions carry their type first), the node whose children
    /// hold its members (if any), and the logical path its members hang under when it is not the
    /// symbol's own (Rust `impl T` → `T`).
    Sym {
        kind: &'static str,
        segments: Vec<String>,
        body: Option<Node<'t>>,
        member_prefix: Option<Vec<String>>,
        group: Option<&'static str>,
    },
    /// A wrapper whose declaration inside is the symbol (`export`, decorators, `template<>`): the
    /// symbol's span starts at the wrapper.
    Wrap,
    /// A container whose children may be symbols at the same level (`#ifdef`, `extern "C" {}`, a Go
    /// `type ( ... )` group, a Python `if` at module level).
    Descend,
    Skip,
}

pub(super) struct Walker<'t> {
    pub language: &'static str,
    pub src: &'t str,
    pub lines: &'t LineTable,
    pub out: Vec<Symbol>,
    /// The grammar, and the field ids looked up so far (a lookup by name scans the grammar's
    /// field names).
    pub grammar: tree_sitter::Language,
    pub fields: RefCell<Vec<(&'static str, Option<u16>)>>,
    /// Keep only the symbols that could answer this name path (their name ends it), and every
    /// symbol with members (so paths and parents stay whole). `None`: keep all.
    pub keep: Option<Vec<String>>,
    /// Visit only the nodes that hold one of these byte offsets (sorted): the places a name occurs
    /// in the text. `None`: visit all.
    pub only: Option<Vec<usize>>,
}

fn text<'t>(n: Node, src: &'t str) -> &'t str {
    &src[n.start_byte()..n.end_byte()]
}

fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

fn has_child_kind(n: Node, kind: &str) -> bool {
    let mut c = n.walk();
    let found = n.children(&mut c).any(|k| k.kind() == kind);
    found
}

fn sym<'t>(kind: &'static str, name: String, body: Option<Node<'t>>) -> Class<'t> {
    Class::Sym {
        kind,
        segments: vec![name],
        body,
        member_prefix: None,
        group: None,
    }
}

/// Strips generic arguments and path qualifiers: `fmt::Display<T>` → `Display`, `*Server[K]` → `Server`.
fn bare_type(t: &str) -> String {
    let t = t.trim().trim_start_matches(['*', '&']).trim();
    let t = t.split(['<', '[', '(']).next().unwrap_or(t);
    let t = t.rsplit("::").next().unwrap_or(t);
    let t = t.rsplit('.').next().unwrap_or(t);
    t.trim().to_string()
}

/// A node among its siblings (all of them, anonymous tokens and comments included), so that the
/// span rules look at neighbours without tree-sitter's sibling and parent lookups (each walks from
/// the parent or the root: quadratic over a long class or file).
#[derive(Clone)]
struct Place<'t> {
    siblings: Rc<Vec<Node<'t>>>,
    index: usize,
}

impl<'t> Place<'t> {
    fn node(&self) -> Node<'t> {
        self.siblings[self.index]
    }
}

impl<'t> Walker<'t> {
    fn field(&self, n: Node<'t>, name: &'static str) -> Option<Node<'t>> {
        let mut fields = self.fields.borrow_mut();
        let id = match fields
            .iter()
            .find(|(k, _)| std::ptr::eq(*k, name) || *k == name)
        {
            Some(&(_, id)) => id,
            None => {
                let id = self.grammar.field_id_for_name(name).map(|f| f.get());
                fields.push((name, id));
                id
            }
        };
        n.child_by_field_id(id?)
    }

    fn name_of(&self, n: Node<'t>) -> Option<String> {
        self.field(n, "name").map(|c| text(c, self.src).to_string())
    }

    /// Visits the children of `container`; symbols found get `parent` and hang under `prefix`.
    /// `outer`: the wrapper the container is (`export`, decorators, `template<>`), if any.
    pub fn walk(
        &mut self,
        container: Node<'t>,
        parent: Option<usize>,
        prefix: &[String],
        in_type: bool,
    ) {
        self.walk_in(container, parent, prefix, None, in_type)
    }

    fn walk_in(
        &mut self,
        container: Node<'t>,
        parent: Option<usize>,
        prefix: &[String],
        outer: Option<Place<'t>>,
        in_type: bool,
    ) {
        let mut cursor = container.walk();
        let siblings: Rc<Vec<Node<'t>>> = Rc::new(container.children(&mut cursor).collect());
        for index in 0..siblings.len() {
            if !siblings[index].is_named() || !self.reaches(siblings[index]) {
                continue;
            }
            let place = Place {
                siblings: Rc::clone(&siblings),
                index,
            };
            self.visit(place, parent, prefix, outer.clone(), in_type);
        }
    }

    /// Whether `n` holds one of the offsets of [`Walker::only`] (always, without them).
    fn reaches(&self, n: Node) -> bool {
        let Some(only) = &self.only else {
            return true;
        };
        let i = only.partition_point(|&at| at < n.start_byte());
        only.get(i).is_some_and(|&at| at < n.end_byte())
    }

    fn visit(
        &mut self,
        place: Place<'t>,
        parent: Option<usize>,
        prefix: &[String],
        outer: Option<Place<'t>>,
        in_type: bool,
    ) {
        let node = place.node();
        match self.classify(node, in_type, outer.is_some()) {
            Class::Skip => {}
            Class::Descend => self.walk_in(node, parent, prefix, None, in_type),
            Class::Wrap => {
                let outer = outer.or(Some(place));
                self.walk_in(node, parent, prefix, outer, in_type)
            }
            Class::Sym {
                kind,
                segments,
                body,
                member_prefix,
                group,
            } => {
                if segments.iter().any(|s| s.is_empty()) {
                    return;
                }
                if let (Some(keep), None, Some(last)) = (&self.keep, body, segments.last()) {
                    if !keep.iter().any(|q| q.ends_with(last.as_str())) {
                        return;
                    }
                }
                let mut path = prefix.to_vec();
                path.extend(segments);
                let index = self.out.len();
                let first = outer.unwrap_or(place);
                let Some(body) = body else {
                    let symbol = self.span(node, first, kind, path, parent, group);
                    self.out.push(symbol);
                    return;
                };
                let symbol = self.span(node, first, kind, path.clone(), parent, group);
                self.out.push(symbol);
                {
                    let members = member_prefix.unwrap_or(path);
                    let is_type = kind != "namespace";
                    self.walk_in(body, Some(index), &members, None, is_type);
                }
            }
        }
    }

    fn classify(&self, n: Node<'t>, in_type: bool, wrapped: bool) -> Class<'t> {
        match self.language {
            "javascript" | "typescript" | "tsx" => self.js(n, in_type),
            "python" => self.python(n, in_type),
            "rust" => self.rust(n, in_type),
            "go" => self.go(n),
            "json" => self.json(n),
            "c" | "cpp" => self.c(n, in_type, wrapped),
            "java" => self.java(n, in_type),
            _ => Class::Skip,
        }
    }

    fn js(&self, n: Node<'t>, in_type: bool) -> Class<'t> {
        let src = self.src;
        let named = |kind| {
            self.name_of(n)
                .map_or(Class::Skip, |name| sym(kind, name, None))
        };
        match n.kind() {
            "export_statement" | "ambient_declaration" => Class::Wrap,
            "expression_statement" if !in_type => Class::Descend,
            "class_declaration" | "abstract_class_declaration" | "class" => match self.name_of(n) {
                Some(name) => sym("class", name, self.field(n, "body")),
                None => Class::Skip,
            },
            "interface_declaration" => match self.name_of(n) {
                Some(name) => sym("interface", name, self.field(n, "body")),
                None => Class::Skip,
            },
            "enum_declaration" => named("enum"),
            "type_alias_declaration" => named("type"),
            "internal_module" | "module" => match self.name_of(n) {
                Some(name) => sym("namespace", name, self.field(n, "body")),
                None => Class::Skip,
            },
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                named(if in_type { "method" } else { "function" })
            }
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                named("method")
            }
            "field_definition" | "public_field_definition" if in_type => {
                let value = self.field(n, "value");
                let is_fn = value.is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                });
                let name = self.field(n, "property").or_else(|| self.field(n, "name"));
                match (is_fn, name) {
                    (true, Some(p)) => sym("method", text(p, src).to_string(), None),
                    _ => Class::Skip,
                }
            }
            "lexical_declaration" | "variable_declaration" if !in_type => {
                let decls: Vec<Node> = named_children(n)
                    .into_iter()
                    .filter(|c| c.kind() == "variable_declarator")
                    .collect();
                let [d] = decls.as_slice() else {
                    return Class::Skip;
                };
                let Some(name) = self.field(*d, "name").filter(|x| x.kind() == "identifier") else {
                    return Class::Skip;
                };
                let is_fn = self.field(*d, "value").is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function"
                            | "function_expression"
                            | "function"
                            | "generator_function"
                    )
                });
                let is_const = text(n, src).starts_with("const");
                match (is_fn, is_const) {
                    (true, _) => sym("function", text(name, src).to_string(), None),
                    (false, true) => sym("constant", text(name, src).to_string(), None),
                    _ => Class::Skip,
                }
            }
            _ => Class::Skip,
        }
    }

    fn python(&self, n: Node<'t>, in_type: bool) -> Class<'t> {
        let src = self.src;
        match n.kind() {
            "decorated_definition" => Class::Wrap,
            "class_definition" => match self.name_of(n) {
                Some(name) => sym("class", name, self.field(n, "body")),
                None => Class::Skip,
            },
            "function_definition" => match self.name_of(n) {
                Some(name) => sym(if in_type { "method" } else { "function" }, name, None),
                None => Class::Skip,
            },
            "if_statement" | "else_clause" | "elif_clause" | "try_statement" | "except_clause"
            | "finally_clause" | "block" => Class::Descend,
            "expression_statement" if !in_type => {
                let kids = named_children(n);
                let [a] = kids.as_slice() else {
                    return Class::Skip;
                };
                if a.kind() != "assignment" {
                    return Class::Skip;
                }
                match self.field(*a, "left").filter(|l| l.kind() == "identifier") {
                    Some(l) if self.field(*a, "right").is_some() => {
                        sym("constant", text(l, src).to_string(), None)
                    }
                    _ => Class::Skip,
                }
            }
            _ => Class::Skip,
        }
    }

    fn rust(&self, n: Node<'t>, in_type: bool) -> Class<'t> {
        let src = self.src;
        let named = |kind| {
            self.name_of(n)
                .map_or(Class::Skip, |name| sym(kind, name, None))
        };
        match n.kind() {
            "function_item" | "function_signature_item" => {
                named(if in_type { "method" } else { "function" })
            }
            "struct_item" | "union_item" => named("struct"),
            "enum_item" => named("enum"),
            "type_item" => named("type"),
            "const_item" | "static_item" => named("constant"),
            "trait_item" => match self.name_of(n) {
                Some(name) => sym("trait", name, self.field(n, "body")),
                None => Class::Skip,
            },
            "mod_item" => match (self.name_of(n), self.field(n, "body")) {
                (Some(name), Some(body)) => sym("namespace", name, Some(body)),
                _ => Class::Skip,
            },
            "impl_item" => {
                let Some(ty) = self.field(n, "type") else {
                    return Class::Skip;
                };
                let ty = bare_type(text(ty, src));
                let name = match self.field(n, "trait") {
                    Some(tr) => format!("impl {} for {ty}", bare_type(text(tr, src))),
                    None => format!("impl {ty}"),
                };
                Class::Sym {
                    kind: "impl",
                    segments: vec![name],
                    body: self.field(n, "body"),
                    member_prefix: Some(vec![ty]),
                    group: None,
                }
            }
            _ => Class::Skip,
        }
    }

    fn go(&self, n: Node<'t>) -> Class<'t> {
        let src = self.src;
        match n.kind() {
            "function_declaration" => self
                .name_of(n)
                .map_or(Class::Skip, |name| sym("function", name, None)),
            "method_declaration" => {
                let recv = self.field(n, "receiver").and_then(|r| {
                    named_children(r)
                        .into_iter()
                        .find(|p| p.kind() == "parameter_declaration")
                        .and_then(|p| self.field(p, "type"))
                });
                match (recv, self.name_of(n)) {
                    (Some(t), Some(name)) => Class::Sym {
                        kind: "method",
                        segments: vec![bare_type(text(t, src)), name],
                        body: None,
                        member_prefix: None,
                        group: None,
                    },
                    _ => Class::Skip,
                }
            }
            "type_declaration" | "const_declaration" => {
                let grouped = has_child_kind(n, "(");
                let specs: Vec<Node> = named_children(n)
                    .into_iter()
                    .filter(|c| matches!(c.kind(), "type_spec" | "type_alias" | "const_spec"))
                    .collect();
                if grouped {
                    return Class::Descend;
                }
                match specs.as_slice() {
                    [spec] => self.go_spec(*spec, None),
                    _ => Class::Skip,
                }
            }
            "type_spec" | "type_alias" | "const_spec" => {
                let keyword = if n.kind() == "const_spec" {
                    "const"
                } else {
                    "type"
                };
                self.go_spec(n, Some(keyword))
            }
            _ => Class::Skip,
        }
    }

    fn go_spec(&self, spec: Node<'t>, group: Option<&'static str>) -> Class<'t> {
        let src = self.src;
        if spec.kind() == "const_spec" {
            let names: Vec<Node> = named_children(spec)
                .into_iter()
                .filter(|c| c.kind() == "identifier")
                .collect();
            let [name] = names.as_slice() else {
                return Class::Skip;
            };
            return Class::Sym {
                kind: "constant",
                segments: vec![text(*name, src).to_string()],
                body: None,
                member_prefix: None,
                group,
            };
        }
        let Some(name) = self.name_of(spec) else {
            return Class::Skip;
        };
        let ty = self.field(spec, "type");
        let (kind, body) = match ty.map(|t| t.kind()) {
            Some("struct_type") => ("struct", None),
            Some("interface_type") => ("interface", ty),
            _ => ("type", None),
        };
        Class::Sym {
            kind,
            segments: vec![name],
            body,
            member_prefix: None,
            group,
        }
    }

    fn json(&self, n: Node<'t>) -> Class<'t> {
        match n.kind() {
            "document" | "object" => Class::Descend,
            "pair" => {
                let Some(key) = self.field(n, "key") else {
                    return Class::Skip;
                };
                let k = text(key, self.src);
                let k = k
                    .strip_prefix('"')
                    .and_then(|k| k.strip_suffix('"'))
                    .unwrap_or(k);
                let body = self.field(n, "value").filter(|v| v.kind() == "object");
                sym("key", k.to_string(), body)
            }
            _ => Class::Skip,
        }
    }

    /// The name of a C/C++ declarator: `f`, `Foo::bar` (two segments), `~Foo`, `operator==`.
    fn c_declarator(&self, d: Node<'t>) -> Option<(Vec<String>, bool)> {
        let mut d = d;
        let mut is_fn = false;
        loop {
            match d.kind() {
                "function_declarator" => {
                    is_fn = true;
                    d = self.field(d, "declarator")?;
                }
                "pointer_declarator"
                | "reference_declarator"
                | "init_declarator"
                | "parenthesized_declarator"
                | "attributed_declarator" => {
                    d = self.field(d, "declarator").or_else(|| d.named_child(0))?;
                }
                "identifier" | "field_identifier" | "destructor_name" | "operator_name"
                | "type_identifier" | "primitive_type" => {
                    return Some((vec![text(d, self.src).to_string()], is_fn))
                }
                "qualified_identifier" | "template_function" | "template_method" => {
                    let t = text(d, self.src);
                    let mut segs: Vec<String> = Vec::new();
                    let mut depth = 0;
                    let mut cur = String::new();
                    let b = t.as_bytes();
                    let mut i = 0;
                    while i < b.len() {
                        let ch = b[i] as char;
                        match ch {
                            '<' => depth += 1,
                            '>' => depth -= 1,
                            ':' if depth == 0 && b.get(i + 1) == Some(&b':') => {
                                segs.push(std::mem::take(&mut cur));
                                i += 2;
                                continue;
                            }
                            _ if depth == 0 && !ch.is_whitespace() => cur.push(ch),
                            _ => {}
                        }
                        i += 1;
                    }
                    segs.push(cur);
                    segs.retain(|s| !s.is_empty());
                    if segs.is_empty() {
                        return None;
                    }
                    return Some((segs, is_fn));
                }
                _ => return None,
            }
        }
    }

    fn c(&self, n: Node<'t>, in_type: bool, wrapped: bool) -> Class<'t> {
        let fn_kind = |segs: &Vec<String>| {
            if in_type || segs.len() > 1 {
                "method"
            } else {
                "function"
            }
        };
        match n.kind() {
            "template_declaration" => Class::Wrap,
            "preproc_ifdef"
            | "preproc_if"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "declaration_list" => Class::Descend,
            "namespace_definition" => match self.name_of(n) {
                Some(name) => sym("namespace", name, self.field(n, "body")),
                None => Class::Descend,
            },
            "function_definition" => {
                let Some((segs, _)) = self
                    .field(n, "declarator")
                    .and_then(|d| self.c_declarator(d))
                else {
                    return Class::Skip;
                };
                Class::Sym {
                    kind: fn_kind(&segs),
                    segments: segs,
                    body: None,
                    member_prefix: None,
                    group: None,
                }
            }
            "declaration" | "field_declaration" | "type_definition" => {
                // A class/struct/enum with a body declared here, or a function prototype.
                if let Some(ty) = self.field(n, "type") {
                    if let Some(c) = self.c_type(ty, Some(n)) {
                        return c;
                    }
                }
                let decls: Vec<Node> = {
                    let mut c = n.walk();
                    n.children_by_field_name("declarator", &mut c).collect()
                };
                let [d] = decls.as_slice() else {
                    return Class::Skip;
                };
                match self.c_declarator(*d) {
                    Some((segs, true)) => Class::Sym {
                        kind: fn_kind(&segs),
                        segments: segs,
                        body: None,
                        member_prefix: None,
                        group: None,
                    },
                    _ => Class::Skip,
                }
            }
            "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier"
                if !wrapped || self.field(n, "body").is_some() =>
            {
                self.c_type(n, None).unwrap_or(Class::Skip)
            }
            "preproc_def" if !in_type => self
                .name_of(n)
                .map_or(Class::Skip, |name| sym("constant", name, None)),
            "preproc_function_def" if !in_type => self
                .name_of(n)
                .map_or(Class::Skip, |name| sym("function", name, None)),
            _ => Class::Skip,
        }
    }

    /// A struct/class/union/enum specifier with a body; `decl` is the declaration holding it (a
    /// typedef names an anonymous struct).
    fn c_type(&self, ty: Node<'t>, decl: Option<Node<'t>>) -> Option<Class<'t>> {
        let kind = match ty.kind() {
            "struct_specifier" | "union_specifier" => "struct",
            "class_specifier" => "class",
            "enum_specifier" => "enum",
            _ => return None,
        };
        let body = self.field(ty, "body")?;
        let name = match self.name_of(ty) {
            Some(n) => n,
            None => {
                let d = decl.filter(|d| d.kind() == "type_definition")?;
                text(self.field(d, "declarator")?, self.src).to_string()
            }
        };
        let name = bare_type(&name);
        let members = (kind != "enum").then_some(body);
        Some(sym(kind, name, members))
    }

    fn java(&self, n: Node<'t>, in_type: bool) -> Class<'t> {
        let src = self.src;
        let container = |kind| match self.name_of(n) {
            Some(name) => sym(kind, name, self.field(n, "body")),
            None => Class::Skip,
        };
        match n.kind() {
            "class_declaration" | "record_declaration" => container("class"),
            "interface_declaration" | "annotation_type_declaration" => container("interface"),
            "enum_declaration" => container("enum"),
            "enum_body_declarations" => Class::Descend,
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => self
                .name_of(n)
                .map_or(Class::Skip, |name| sym("method", name, None)),
            "field_declaration" | "constant_declaration" if in_type => {
                let mods = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "modifiers")
                    .map(|m| text(m, src))
                    .unwrap_or_default();
                let constant = n.kind() == "constant_declaration"
                    || (mods.contains("static") && mods.contains("final"));
                let decls: Vec<Node> = {
                    let mut c = n.walk();
                    n.children_by_field_name("declarator", &mut c).collect()
                };
                match (constant, decls.as_slice()) {
                    (true, [d]) => self
                        .name_of(*d)
                        .map_or(Class::Skip, |name| sym("constant", name, None)),
                    _ => Class::Skip,
                }
            }
            _ => Class::Skip,
        }
    }

    /// Whether `n` is attached above a declaration as part of it: an attribute or decorator.
    fn is_attribute(&self, n: Node) -> bool {
        matches!(
            n.kind(),
            "attribute_item"
                | "decorator"
                | "attribute_declaration"
                | "annotation"
                | "marker_annotation"
        )
    }

    fn is_comment(&self, n: Node) -> bool {
        n.kind().contains("comment")
    }

    /// Whether the line holding byte `at` has only whitespace before `at`.
    fn starts_line(&self, at: usize) -> bool {
        let i = self.lines.index_of(at);
        self.src[self.lines.start(i)..at].trim().is_empty()
    }

    fn line_index(&self, at: usize) -> usize {
        self.lines.index_of(at)
    }

    /// Whether only whitespace (and at most one line break between non-blank lines, i.e. no blank
    /// line) separates `a_end` from `b_start`.
    fn adjacent(&self, a_end: usize, b_start: usize) -> bool {
        let gap = &self.src[a_end.min(b_start)..b_start];
        if !gap.trim().is_empty() {
            return false;
        }
        let ai = self.line_index(a_end.saturating_sub(1));
        let bi = self.line_index(b_start);
        bi <= ai + 1
    }

    /// The symbol of `node`, declared at `first` (a wrapper holding it, or itself), with its
    /// whole-line span.
    fn span(
        &self,
        node: Node<'t>,
        first: Place<'t>,
        kind: &'static str,
        path: Vec<String>,
        parent: Option<usize>,
        group: Option<&'static str>,
    ) -> Symbol {
        let src = self.src;
        let siblings = &first.siblings;
        let mut start_node = first.node();
        // Attributes, decorators and the comment block directly above.
        let mut cur = start_node;
        for &p in siblings[..first.index].iter().rev() {
            if self.is_attribute(p) && src[p.end_byte()..cur.start_byte()].trim().is_empty() {
                cur = p;
                start_node = p;
                continue;
            }
            if self.is_comment(p)
                && self.starts_line(p.start_byte())
                && self.adjacent(p.end_byte(), cur.start_byte())
                && !is_inner_doc(text(p, src))
            {
                cur = p;
                start_node = p;
                continue;
            }
            break;
        }
        let mut last = first.node();
        // A trailing `;` or `,` and a trailing comment on the last line.
        let end_line = self.line_index(last.end_byte().saturating_sub(1));
        for &nx in &siblings[first.index + 1..] {
            let same_line = self.line_index(nx.start_byte()) == end_line;
            if same_line && (matches!(nx.kind(), ";" | ",") || self.is_comment(nx)) {
                last = nx;
                continue;
            }
            break;
        }
        let start_byte = start_node.start_byte();
        let end_byte = last.end_byte().max(node.end_byte());
        let (si, ei) = (
            self.line_index(start_byte),
            self.line_index(end_byte.saturating_sub(1).max(start_byte)),
        );
        let start = self.lines.start(si);
        let end = self.lines.end(ei);
        let content_end = self.lines.content_end(ei);
        let after = &src[end_byte.min(content_end)..content_end];
        let shares_line = !src[start..start_byte].trim().is_empty() || !after.trim().is_empty();
        Symbol {
            name: path.last().cloned().unwrap_or_default(),
            path,
            kind,
            parent,
            start,
            end,
            start_line: si + 1,
            end_line: ei + 1,
            decl_start: first.node().start_byte().max(start_byte),
            shares_line,
            group,
            name_path: String::new(),
        }
    }
}

/// Rust's inner doc comments (`//!`, `/*!`) document the enclosing item, not the one below.
fn is_inner_doc(c: &str) -> bool {
    c.starts_with("//!") || c.starts_with("/*!")
}
