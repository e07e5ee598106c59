//! No two files of a crate import each other, directly or round a longer loop (issue #31): a
//! cycle between files is a knot a reader cannot start from either end of, and it is how a
//! module that was meant to be low ends up knowing about the layers above it.
//!
//! The check reads every production source file of each library crate with `syn` and draws an
//! edge from a file to the file that defines what it names: `use` items and paths in code and
//! in macro arguments (`crate::…`, `super::…`, `self::…`, or through a module it imported),
//! followed through re-exports to the file that defines the item. Declaring a module (`mod x;`)
//! is not an edge, and `#[cfg(test)]` code is left out.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

const CRATES: &[&str] = &["common", "pdf", "api", "worker", "i18n", "tests"];

#[test]
fn no_file_of_a_crate_imports_itself_round_a_loop() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = String::new();
    for name in CRATES {
        let graph = Graph::of_crate(&root.join(name).join("src/lib.rs"));
        for cycle in graph.cycles() {
            report.push_str(&format!("{name}:\n{}\n", graph.describe(&cycle, &root)));
        }
    }
    assert!(report.is_empty(), "files that import each other:\n{report}");
}

#[test]
fn a_loop_between_files_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod a;\npub mod b;\npub mod c;\npub use a::A;\n",
    );
    write("a.rs", "pub struct A(pub crate::b::B);\n");
    write("b/mod.rs", "mod inner;\npub use inner::B;\n");
    // The loop closes inside a macro's arguments, through the re-export at the crate's root.
    write(
        "b/inner.rs",
        "pub struct B;\nfn f() { let _ = format!(\"{}\", crate::A::default()); }\n",
    );
    write(
        "c.rs",
        "use crate::a::A;\n#[cfg(test)]\nmod tests { use crate::c; }\n",
    );
    let graph = Graph::of_crate(&dir.path().join("lib.rs"));
    let cycles: Vec<Vec<String>> = graph
        .cycles()
        .iter()
        .map(|cycle| {
            cycle
                .iter()
                .map(|&file| {
                    graph.files[file]
                        .strip_prefix(dir.path())
                        .unwrap()
                        .display()
                        .to_string()
                })
                .collect()
        })
        .collect();
    assert_eq!(cycles, [["a.rs", "b/inner.rs"]]);
}

/// One module of the crate: where it is, what it defines and what its `use` items bind.
#[derive(Default)]
struct Module {
    file: usize,
    children: BTreeMap<String, usize>,
    parent: Option<usize>,
    items: BTreeSet<String>,
    /// `use` bindings: the name in this module → the path it stands for.
    bindings: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    /// The glob imports again, with their lines: each is an edge to the whole module.
    glob_uses: Vec<(Vec<String>, usize)>,
    /// Paths this module's `use` items and code name, with the line they are on.
    named: Vec<(Vec<String>, usize)>,
}

struct Graph {
    files: Vec<PathBuf>,
    modules: Vec<Module>,
    /// file → file it imports → a path that makes it so, and its line.
    edges: BTreeMap<usize, BTreeMap<usize, (String, usize)>>,
}

impl Graph {
    fn of_crate(lib: &Path) -> Self {
        let mut graph = Graph {
            files: Vec::new(),
            modules: Vec::new(),
            edges: BTreeMap::new(),
        };
        graph.load_file(lib, None, None);
        graph.link();
        graph
    }

    fn load_file(&mut self, path: &Path, parent: Option<usize>, name: Option<&str>) -> usize {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.files.push(path.to_owned());
        let file_index = self.files.len() - 1;
        let dir = match path.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "main.rs" | "mod.rs") => path.parent().unwrap().to_owned(),
            _ => path.with_extension(""),
        };
        self.load_module(&file.items, file_index, &dir, parent, name)
    }

    fn load_module(
        &mut self,
        items: &[syn::Item],
        file: usize,
        dir: &Path,
        parent: Option<usize>,
        name: Option<&str>,
    ) -> usize {
        self.modules.push(Module {
            file,
            parent,
            ..Module::default()
        });
        let index = self.modules.len() - 1;
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent].children.insert(name.to_owned(), index);
        }
        let mut collector = PathCollector::default();
        let mut uses = Vec::new();
        for item in items {
            if is_test_only(item) {
                continue;
            }
            match item {
                syn::Item::Mod(module) => {
                    let name = module.ident.to_string();
                    match &module.content {
                        Some((_, inner)) => {
                            self.load_module(
                                inner,
                                file,
                                &dir.join(&name),
                                Some(index),
                                Some(&name),
                            );
                        }
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            let path = if flat.exists() {
                                flat
                            } else {
                                dir.join(&name).join("mod.rs")
                            };
                            self.load_file(&path, Some(index), Some(&name));
                        }
                    }
                }
                syn::Item::Use(item_use) => {
                    let line = item_use.use_token.span.start().line;
                    let module = &mut self.modules[index];
                    let (bound_before, globs_before) =
                        (module.bindings.clone(), module.globs.len());
                    flatten_use(&item_use.tree, &mut Vec::new(), module);
                    let new_bindings: Vec<Vec<String>> = module
                        .bindings
                        .iter()
                        .filter(|(name, path)| bound_before.get(*name) != Some(path))
                        .map(|(_, path)| path.clone())
                        .collect();
                    let new_globs = module.globs[globs_before..].to_vec();
                    uses.extend(
                        new_bindings
                            .into_iter()
                            .chain(new_globs)
                            .map(|path| (path, line)),
                    );
                }
                other => {
                    if let Some(name) = defined_name(other) {
                        self.modules[index].items.insert(name);
                    }
                    collector.visit_item(other);
                }
            }
        }
        uses.extend(collector.paths);
        self.modules[index].named = uses;
        index
    }

    /// Turns the paths every module names into edges between files.
    fn link(&mut self) {
        for module in 0..self.modules.len() {
            let from = self.modules[module].file;
            for (path, line) in self.modules[module].glob_uses.clone() {
                if let Some(to) = self.module_at(module, &path).map(|m| self.modules[m].file)
                    && to != from
                {
                    self.edges
                        .entry(from)
                        .or_default()
                        .entry(to)
                        .or_insert((format!("{}::*", path.join("::")), line));
                }
            }
            for (path, line) in self.modules[module].named.clone() {
                if let Some(to) = self.resolve(module, &path, false, 0)
                    && to != from
                {
                    self.edges
                        .entry(from)
                        .or_default()
                        .entry(to)
                        .or_insert((path.join("::"), line));
                }
            }
        }
    }

    /// The file that defines what `path`, named in `module`, stands for; `None` for anything
    /// outside the crate.
    /// `strict`: only a name the walk finds defined counts (trying which of several glob
    /// imports a name comes from); otherwise a name the walk cannot place (a variant, a
    /// method) is taken to be in the module it was reached through.
    fn resolve(&self, module: usize, path: &[String], strict: bool, depth: usize) -> Option<usize> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let (mut at, rest) = match self.anchored(module, path) {
            Some(anchored) => anchored,
            None if path[0] == "super" => return None,
            None => {
                let first = path[0].as_str();
                if let Some(&child) = self.modules[module].children.get(first) {
                    (child, &path[1..])
                } else if let Some(bound) = self.modules[module].bindings.get(first) {
                    let mut full = bound.clone();
                    full.extend_from_slice(&path[1..]);
                    return self.resolve(module, &full, strict, depth + 1);
                } else if path.len() == 1 && first.starts_with(|c: char| c.is_lowercase()) {
                    // A local variable as often as a function a glob import brought in: the
                    // glob import itself is the edge.
                    return None;
                } else {
                    // A name a glob import brought in, if it is one of the crate's.
                    return self.modules[module].globs.iter().find_map(|glob| {
                        let mut full = glob.clone();
                        full.extend_from_slice(path);
                        self.resolve(module, &full, true, depth + 1)
                    });
                }
            }
        };
        for (i, segment) in rest.iter().enumerate() {
            let here = &self.modules[at];
            if let Some(&child) = here.children.get(segment) {
                at = child;
                continue;
            }
            if here.items.contains(segment) {
                return Some(here.file);
            }
            if let Some(bound) = here.bindings.get(segment) {
                let mut full = bound.clone();
                full.extend_from_slice(&rest[i + 1..]);
                return self
                    .resolve(at, &full, strict, depth + 1)
                    .or((!strict).then_some(here.file));
            }
            for glob in &here.globs {
                let mut full = glob.clone();
                full.extend_from_slice(&rest[i..]);
                if let Some(file) = self.resolve(at, &full, true, depth + 1) {
                    return Some(file);
                }
            }
            return (!strict).then_some(here.file);
        }
        // The path names a module, not an item in it: importing a module is no edge; what is
        // used through it is.
        None
    }

    /// Where a path that starts with `crate`, `self` or `super` starts, and the rest of it;
    /// `None` for any other path, or a `super` above the crate's root.
    fn anchored<'p>(&self, module: usize, path: &'p [String]) -> Option<(usize, &'p [String])> {
        match path.first()?.as_str() {
            "crate" => Some((0, &path[1..])),
            "self" => Some((module, &path[1..])),
            "super" => {
                let mut at = module;
                let mut rest = path;
                while rest.first().map(String::as_str) == Some("super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                Some((at, rest))
            }
            _ => None,
        }
    }

    /// The module `path`, named in `module`, is, if it is one of the crate's.
    fn module_at(&self, module: usize, path: &[String]) -> Option<usize> {
        let (mut at, rest) = match self.anchored(module, path) {
            Some(anchored) => anchored,
            None => (
                *self.modules[module].children.get(path.first()?)?,
                &path[1..],
            ),
        };
        for segment in rest {
            at = *self.modules[at].children.get(segment)?;
        }
        Some(at)
    }

    /// Strongly connected sets of more than one file (Tarjan).
    fn cycles(&self) -> Vec<Vec<usize>> {
        struct State<'a> {
            edges: &'a BTreeMap<usize, BTreeMap<usize, (String, usize)>>,
            index: Vec<Option<usize>>,
            low: Vec<usize>,
            on_stack: Vec<bool>,
            stack: Vec<usize>,
            next: usize,
            found: Vec<Vec<usize>>,
        }
        fn visit(s: &mut State, v: usize) {
            s.index[v] = Some(s.next);
            s.low[v] = s.next;
            s.next += 1;
            s.stack.push(v);
            s.on_stack[v] = true;
            let targets: Vec<usize> = s
                .edges
                .get(&v)
                .map(|e| e.keys().copied().collect())
                .unwrap_or_default();
            for w in targets {
                match s.index[w] {
                    None => {
                        visit(s, w);
                        s.low[v] = s.low[v].min(s.low[w]);
                    }
                    Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                    Some(_) => {}
                }
            }
            if Some(s.low[v]) == s.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = s.stack.pop().unwrap();
                    s.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    s.found.push(component);
                }
            }
        }
        let n = self.files.len();
        let mut state = State {
            edges: &self.edges,
            index: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            next: 0,
            found: Vec::new(),
        };
        for v in 0..n {
            if state.index[v].is_none() {
                visit(&mut state, v);
            }
        }
        state.found
    }

    /// The edges inside one cycle, each with a path that makes it.
    fn describe(&self, cycle: &[usize], root: &Path) -> String {
        let name = |file: usize| {
            let path = &self.files[file];
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        let mut text = String::new();
        for &from in cycle {
            for (&to, (path, line)) in self.edges.get(&from).into_iter().flatten() {
                if cycle.contains(&to) {
                    text.push_str(&format!(
                        "  {} → {} ({path}, line {line})\n",
                        name(from),
                        name(to)
                    ));
                }
            }
        }
        text
    }
}

fn is_test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => return false,
    };
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && {
            let tokens = attr
                .meta
                .require_list()
                .map(|l| l.tokens.to_string())
                .unwrap_or_default();
            tokens == "test" || tokens.starts_with("all (test")
        }
    })
}

fn defined_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, module: &mut Module) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, module);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            let name = n.ident.to_string();
            if name == "self" {
                let Some(last) = prefix.last() else { return };
                module.bindings.insert(last.clone(), path);
            } else {
                path.push(name.clone());
                module.bindings.insert(name, path);
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            module.bindings.insert(r.rename.to_string(), path);
        }
        syn::UseTree::Glob(_) => module.globs.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                flatten_use(tree, prefix, module);
            }
        }
    }
}

/// Every path in a module's own code (not in its child modules), and
/// the `a::b` paths inside macro arguments, which `syn` leaves as tokens.
#[derive(Default)]
struct PathCollector {
    paths: Vec<(Vec<String>, usize)>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if !path.segments.is_empty() {
            let line = path.segments[0].ident.span().start().line;
            self.paths.push((
                path.segments.iter().map(|s| s.ident.to_string()).collect(),
                line,
            ));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
}

impl PathCollector {
    fn visit_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let TokenTree::Group(group) = &tokens[i] {
                self.visit_tokens(group.stream());
                i += 1;
                continue;
            }
            let mut path = Vec::new();
            let mut j = i;
            while let Some(TokenTree::Ident(ident)) = tokens.get(j) {
                path.push(ident.to_string());
                let colons = matches!(
                    (tokens.get(j + 1), tokens.get(j + 2)),
                    (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                        if a.as_char() == ':' && b.as_char() == ':'
                );
                if !colons {
                    break;
                }
                j += 3;
            }
            if path.len() > 1 {
                let line = match &tokens[i] {
                    TokenTree::Ident(ident) => ident.span().start().line,
                    _ => 0,
                };
                self.paths.push((path, line));
                i = j + 1;
            } else {
                i += 1;
            }
        }
    }
}
