//! The module graph of one crate, file by file, and its cycles.
//!
//! A node is a source file under `src/` (a `mod.rs` and the files of its
//! directory are separate nodes). There is an edge `a → b` when code in `a`
//! names something defined in `b`: a `use` of it, a path through
//! `crate::`, `super::`, `self::`, a child module or a name a `use`
//! brought in, or a serde `with = "path"` attribute. A path is resolved
//! the way rustc resolves it, segment by segment through the module tree,
//! and through `use` items to where the name is defined: `crate::Room`,
//! re-exported by `lib.rs`, leads to the file that defines `Room`, not to
//! `lib.rs`. A `pub use` that only re-exports a name (the file's own code
//! never mentions it) is not an edge: it is the file's façade, not a
//! dependency of its code.
//!
//! Not edges: `mod x;` declarations (the tree, not an import), comments
//! and doc links, string literals, and anything under `#[cfg(test)]` (a
//! test may look at the module above the one it tests).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::lex::{Token, tokenize};

/// A crate's sources: paths relative to `src/` (`lib.rs`, `room/mod.rs`)
/// and their text.
pub type Sources = BTreeMap<String, String>;

/// Reads every `.rs` file under `dir` (a crate's `src/`).
pub fn read_sources(dir: &Path) -> std::io::Result<Sources> {
    fn walk(root: &Path, dir: &Path, out: &mut Sources) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel = rel.to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&path)?);
            }
        }
        Ok(())
    }
    let mut out = Sources::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

/// The file-level import graph: `from → {to}`, both paths relative to
/// `src/`. Every file reached from a crate root is a key.
pub fn graph(sources: &Sources) -> BTreeMap<String, BTreeSet<String>> {
    let mut tree = Tree::default();
    for root in sources.keys().filter(|f| is_root(f)) {
        tree.load_root(sources, root);
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, module) in tree.modules.iter().enumerate() {
        let file = &module.file;
        let entry = edges.entry(file.clone()).or_default();
        for path in &module.refs {
            if let Some(target) = tree.resolve(m, path, 0) {
                let to = &tree.modules[target.module()].file;
                if to != file {
                    entry.insert(to.clone());
                }
            }
        }
    }
    edges
}

/// The import cycles: each strongly connected component of more than one
/// file, its files sorted; the components sorted.
pub fn cycles(sources: &Sources) -> Vec<Vec<String>> {
    let g = graph(sources);
    let mut out: Vec<Vec<String>> = strongly_connected(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|mut c| {
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

fn is_root(file: &str) -> bool {
    file == "lib.rs"
        || file == "main.rs"
        || (file.starts_with("bin/")
            && (file.matches('/').count() == 1 || file.ends_with("/main.rs")))
}

/// Tarjan's algorithm, iterative over the file names.
fn strongly_connected(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let names: Vec<&String> = g.keys().collect();
    let index_of: BTreeMap<&String, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            g[*n]
                .iter()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let n = names.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        // (node, next successor to visit)
        let mut work = vec![(start, 0)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

/// One module: a file, or an inline `mod x { … }` inside one.
#[derive(Debug, Default)]
struct Module {
    file: String,
    parent: Option<usize>,
    root: usize,
    children: BTreeMap<String, usize>,
    /// Names its `use` items bind, each to the path it names (relative to
    /// this module).
    bindings: BTreeMap<String, Vec<String>>,
    /// Paths its code names, to be resolved.
    refs: Vec<Vec<String>>,
}

#[derive(Debug, Default)]
struct Tree {
    modules: Vec<Module>,
}

#[derive(Debug, Clone, Copy)]
enum Target {
    Module(usize),
    /// An item defined in this module.
    Item(usize),
}

impl Target {
    fn module(self) -> usize {
        match self {
            Target::Module(m) | Target::Item(m) => m,
        }
    }
}

impl Tree {
    fn load_root(&mut self, sources: &Sources, root: &str) {
        let id = self.modules.len();
        self.modules.push(Module {
            file: root.to_string(),
            root: id,
            ..Module::default()
        });
        self.load_file(sources, id, root);
    }

    fn load_file(&mut self, sources: &Sources, module: usize, file: &str) {
        let Some(text) = sources.get(file) else {
            return;
        };
        let tokens = tokenize(text);
        let parsed = parse(&tokens);
        // Which identifiers the file's code (its `use` items aside) names.
        let mentioned: BTreeSet<&str> = parsed.idents.iter().map(String::as_str).collect();
        // Inline modules: index in `parsed.modules` → module id.
        let mut ids = vec![module];
        for inline in parsed.modules.iter().skip(1) {
            let parent = ids[inline.parent];
            let id = self.child(parent, &inline.name, file);
            ids.push(id);
        }
        for (i, scope) in parsed.modules.iter().enumerate() {
            let id = ids[i];
            for u in &scope.uses {
                if u.glob {
                    self.modules[id].refs.push(u.path.clone());
                    continue;
                }
                if u.top_level {
                    self.modules[id]
                        .bindings
                        .insert(u.name.clone(), u.path.clone());
                }
                if !u.public || mentioned.contains(u.name.as_str()) {
                    self.modules[id].refs.push(u.path.clone());
                }
            }
            self.modules[id].refs.extend(scope.paths.iter().cloned());
        }
        for (i, scope) in parsed.modules.iter().enumerate() {
            for name in &scope.declared {
                let parent = ids[i];
                let Some(child_file) = self.child_file(parent, file, name, sources) else {
                    continue;
                };
                let id = self.child(parent, name, &child_file);
                self.load_file(sources, id, &child_file);
            }
        }
    }

    fn child(&mut self, parent: usize, name: &str, file: &str) -> usize {
        let id = self.modules.len();
        let root = self.modules[parent].root;
        self.modules.push(Module {
            file: file.to_string(),
            parent: Some(parent),
            root,
            ..Module::default()
        });
        self.modules[parent].children.insert(name.to_string(), id);
        id
    }

    /// The file of `mod name;` declared in module `parent` (of `file`).
    fn child_file(
        &self,
        parent: usize,
        file: &str,
        name: &str,
        sources: &Sources,
    ) -> Option<String> {
        // The directory a file's child modules live in: `a/` for `a/mod.rs`,
        // `lib.rs` and `main.rs`; `a/b/` for `a/b.rs`; then one more level
        // per inline module between.
        let mut dir = match file.rsplit_once('/') {
            Some((d, f)) if f == "mod.rs" || f == "main.rs" => format!("{d}/"),
            Some((d, f)) => format!("{d}/{}/", f.trim_end_matches(".rs")),
            None if file == "lib.rs" || file == "main.rs" => String::new(),
            None => format!("{}/", file.trim_end_matches(".rs")),
        };
        if file.starts_with("bin/") && file.matches('/').count() == 1 {
            dir = format!(
                "bin/{}/",
                file.trim_start_matches("bin/").trim_end_matches(".rs")
            );
        }
        let mut inline = Vec::new();
        let mut m = parent;
        while self.modules[m].file == file {
            let Some(p) = self.modules[m]
                .parent
                .filter(|&p| self.modules[p].file == file)
            else {
                break;
            };
            let name = self.modules[p]
                .children
                .iter()
                .find(|&(_, &c)| c == m)
                .map(|(n, _)| n.clone());
            inline.extend(name);
            m = p;
        }
        for n in inline.iter().rev() {
            dir.push_str(n);
            dir.push('/');
        }
        [format!("{dir}{name}.rs"), format!("{dir}{name}/mod.rs")]
            .into_iter()
            .find(|f| sources.contains_key(f))
    }

    /// Where `path`, named in module `m`, leads; `None` outside the crate
    /// (another crate, `std`, a local name).
    fn resolve(&self, m: usize, path: &[String], depth: u32) -> Option<Target> {
        if depth > 32 || path.is_empty() {
            return None;
        }
        let first = path[0].as_str();
        match first {
            "crate" | "$crate" => self.walk(self.modules[m].root, &path[1..], depth),
            "self" => self.walk(m, &path[1..], depth),
            "super" => {
                let mut cur = m;
                let mut i = 0;
                while path.get(i).is_some_and(|s| s == "super") {
                    cur = self.modules[cur].parent?;
                    i += 1;
                }
                self.walk(cur, &path[i..], depth)
            }
            _ => {
                let module = &self.modules[m];
                if module.children.contains_key(first) || module.bindings.contains_key(first) {
                    self.walk(m, path, depth)
                } else {
                    None
                }
            }
        }
    }

    fn walk(&self, mut cur: usize, mut rest: &[String], depth: u32) -> Option<Target> {
        while let Some(name) = rest.first() {
            let module = &self.modules[cur];
            if let Some(&child) = module.children.get(name) {
                cur = child;
            } else if let Some(bound) = module.bindings.get(name) {
                match self.resolve(cur, bound, depth + 1)? {
                    Target::Module(m) => cur = m,
                    item => return Some(item),
                }
            } else {
                return Some(Target::Item(cur));
            }
            rest = &rest[1..];
        }
        Some(Target::Module(cur))
    }
}

/// One `use` leaf: the name it binds and the path it names.
#[derive(Debug)]
struct Use {
    name: String,
    path: Vec<String>,
    glob: bool,
    public: bool,
    /// At the module's item level (not inside a function or block).
    top_level: bool,
}

/// What one module of a file holds (the file's own module first, then its
/// inline modules).
#[derive(Debug, Default)]
struct Scope {
    /// Index of the enclosing scope (itself for the file's module).
    parent: usize,
    name: String,
    /// `mod name;`
    declared: Vec<String>,
    uses: Vec<Use>,
    paths: Vec<Vec<String>>,
}

#[derive(Debug, Default)]
struct Parsed {
    modules: Vec<Scope>,
    /// The identifiers of the file's code outside `use` items.
    idents: Vec<String>,
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token::Ident(s)) => Some(s),
        _ => None,
    }
}

fn parse(tokens: &[Token]) -> Parsed {
    let mut p = Parsed {
        modules: vec![Scope::default()],
        ..Parsed::default()
    };
    // The brace depth each open inline module's items sit at, innermost last.
    let mut open: Vec<(usize, usize)> = vec![(0, 0)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let (scope, item_depth) = *open.last().unwrap_or(&(0, 0));
        match &tokens[i] {
            Token::Punct('#') => {
                let inner = tokens.get(i + 1) == Some(&Token::Punct('!'));
                let start = if inner { i + 2 } else { i + 1 };
                let end = balanced(tokens, start);
                let is_test = tokens.get(start + 1..end.saturating_sub(1))
                    == Some(&[
                        Token::Ident("cfg".into()),
                        Token::Punct('('),
                        Token::Ident("test".into()),
                        Token::Punct(')'),
                    ]);
                // serde's `with = "path"` and the like name a module or a
                // function.
                for w in tokens[start..end].windows(3) {
                    if let [Token::Ident(key), Token::Punct('='), Token::Str(s)] = w
                        && matches!(
                            key.as_str(),
                            "with" | "serialize_with" | "deserialize_with" | "default"
                        )
                    {
                        let path: Vec<String> = s.split("::").map(str::to_string).collect();
                        if path.len() > 1 {
                            p.modules[scope].paths.push(path);
                        }
                    }
                }
                i = end;
                if is_test && !inner {
                    i = item_end(tokens, i);
                } else if is_test {
                    // `#![cfg(test)]`: the whole module is a test's.
                    return Parsed {
                        modules: vec![Scope::default()],
                        ..Parsed::default()
                    };
                }
            }
            Token::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Token::Punct('}') => {
                if open.len() > 1 && depth == item_depth {
                    open.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Token::Ident(kw) if kw == "use" => {
                let public = is_public(tokens, i);
                let end = item_end(tokens, i);
                let mut leaves = Vec::new();
                use_tree(&tokens[i + 1..end], Vec::new(), &mut leaves);
                for (path, alias, glob) in leaves {
                    let name = alias.or_else(|| path.last().cloned()).unwrap_or_default();
                    p.modules[scope].uses.push(Use {
                        name,
                        path,
                        glob,
                        public,
                        top_level: depth == item_depth,
                    });
                }
                i = end;
            }
            Token::Ident(kw) if kw == "mod" && depth == item_depth => {
                if let Some(name) = ident(tokens.get(i + 1)) {
                    match tokens.get(i + 2) {
                        Some(Token::Punct(';')) => p.modules[scope].declared.push(name.to_string()),
                        Some(Token::Punct('{')) => {
                            p.modules.push(Scope {
                                parent: scope,
                                name: name.to_string(),
                                ..Scope::default()
                            });
                            depth += 1;
                            open.push((p.modules.len() - 1, depth));
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
                i += 2;
            }
            Token::Ident(first) => {
                p.idents.push(first.clone());
                let after_path = i > 0 && tokens[i - 1] == Token::Path;
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while tokens.get(j) == Some(&Token::Path) {
                    match ident(tokens.get(j + 1)) {
                        Some(s) => {
                            path.push(s.to_string());
                            p.idents.push(s.to_string());
                            j += 2;
                        }
                        None => break,
                    }
                }
                if !after_path && path.len() > 1 {
                    p.modules[scope].paths.push(path);
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    p
}

/// The index after the bracketed group opening at `start` (`[`, `(`, `{`).
fn balanced(tokens: &[Token], start: usize) -> usize {
    let mut nest = 0i32;
    let mut i = start;
    while i < tokens.len() {
        match tokens[i] {
            Token::Punct('[' | '(' | '{') => nest += 1,
            Token::Punct(']' | ')' | '}') => {
                nest -= 1;
                if nest <= 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    tokens.len()
}

/// The index after the item starting at `i`: its `;` or its `{ … }` at
/// bracket depth 0, after any further attributes.
fn item_end(tokens: &[Token], mut i: usize) -> usize {
    while tokens.get(i) == Some(&Token::Punct('#')) {
        i = balanced(tokens, i + 1);
    }
    let mut nest = 0i32;
    while i < tokens.len() {
        match tokens[i] {
            Token::Punct('[' | '(') => nest += 1,
            Token::Punct(']' | ')') => nest -= 1,
            Token::Punct(';') if nest == 0 => return i + 1,
            Token::Punct('{') if nest == 0 => return balanced(tokens, i),
            // The end of the enclosing block: the item ended without `;`.
            Token::Punct('}') if nest == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    tokens.len()
}

/// Whether the `use` at `i` is `pub` (any `pub(…)` too).
fn is_public(tokens: &[Token], i: usize) -> bool {
    match i.checked_sub(1).map(|k| &tokens[k]) {
        Some(Token::Ident(s)) => s == "pub",
        Some(Token::Punct(')')) => {
            let mut k = i - 1;
            while k > 0 && tokens[k] != Token::Punct('(') {
                k -= 1;
            }
            k > 0 && ident(tokens.get(k - 1)) == Some("pub")
        }
        _ => false,
    }
}

/// The leaves of a use tree: (path, alias, glob).
fn use_tree(
    tokens: &[Token],
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, bool)>,
) {
    let mut path = prefix;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(s) if s == "as" => {
                // `as _` still names the path: an edge, binding nothing.
                out.push((path, ident(tokens.get(i + 1)).map(str::to_string), false));
                return;
            }
            Token::Ident(s) if s == "self" && !path.is_empty() => {}
            Token::Ident(s) => path.push(s.clone()),
            Token::Punct('*') => {
                out.push((path, None, true));
                return;
            }
            Token::Punct('{') => {
                let end = balanced(tokens, i) - 1;
                // Split the group's items at its top-level commas.
                let mut nest = 0;
                let mut start = i + 1;
                for k in i + 1..=end {
                    match tokens[k] {
                        Token::Punct('{') => nest += 1,
                        Token::Punct('}') if nest > 0 => nest -= 1,
                        Token::Punct(',') if nest == 0 => {
                            use_tree(&tokens[start..k], path.clone(), out);
                            start = k + 1;
                        }
                        _ => {}
                    }
                }
                if start < end {
                    use_tree(&tokens[start..end], path, out);
                }
                return;
            }
            Token::Punct(';') => break,
            _ => {}
        }
        i += 1;
    }
    if !path.is_empty() {
        out.push((path, None, false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case: its name, a crate's files (path under `src/`, text), and
    /// the cycles expected in it.
    type Case = (
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static [&'static [&'static str]],
    );

    const CASES: &[Case] = &[
        (
            "two files naming each other",
            &[
                ("lib.rs", "mod a; mod b;"),
                ("a.rs", "use crate::b::B; pub struct A;"),
                ("b.rs", "pub struct B(crate::a::A);"),
            ],
            &[&["a.rs", "b.rs"]],
        ),
        (
            "a chain is no cycle",
            &[
                ("lib.rs", "mod a; mod b; mod c;"),
                ("a.rs", "use crate::b::B;"),
                ("b.rs", "pub struct B(crate::c::C);"),
                ("c.rs", "pub struct C;"),
            ],
            &[],
        ),
        (
            "mod.rs and a file of its directory are two files",
            &[
                ("lib.rs", "mod g;"),
                ("g/mod.rs", "mod x; use x::X; pub struct G;"),
                ("g/x.rs", "use super::G; pub struct X;"),
            ],
            &[&["g/mod.rs", "g/x.rs"]],
        ),
        (
            "a re-export of the root leads to where the item is defined",
            &[
                ("lib.rs", "mod a; mod b; pub use a::A; pub use b::B;"),
                ("a.rs", "pub struct A; fn f(_: crate::B) {}"),
                ("b.rs", "use crate::A; pub struct B;"),
            ],
            &[&["a.rs", "b.rs"]],
        ),
        (
            "naming the root's re-exports is no cycle with the root",
            &[
                ("lib.rs", "mod a; mod b; pub use a::A; pub use b::B;"),
                ("a.rs", "pub struct A;"),
                ("b.rs", "use crate::{A}; pub struct B;"),
            ],
            &[],
        ),
        (
            "a pure re-export is no edge, a used one is",
            &[
                ("lib.rs", "mod g; mod h;"),
                (
                    "g/mod.rs",
                    "mod wire; pub use wire::Kind; pub struct Board;",
                ),
                ("g/wire.rs", "use super::Board; pub enum Kind {}"),
                (
                    "h/mod.rs",
                    "mod wire; pub use wire::Kind; pub struct Board(Kind);",
                ),
                ("h/wire.rs", "use super::Board; pub enum Kind {}"),
            ],
            &[&["h/mod.rs", "h/wire.rs"]],
        ),
        (
            "comments, doc links, strings and tests are not imports",
            &[
                ("lib.rs", "mod a; mod b;"),
                (
                    "a.rs",
                    "//! See [`crate::b::B`].\n/* crate::b::B */ const S: &str = \"crate::b::B\";\n\
                     #[cfg(test)]\nmod tests { use crate::b::B; }\n#[cfg(test)]\nfn t() -> crate::b::B { todo!() }",
                ),
                (
                    "b.rs",
                    "/// Not [`crate::a::S`] either.\npub struct B; fn f() { let _ = crate::a::S; }",
                ),
            ],
            &[],
        ),
        (
            "a test module in its own file is skipped",
            &[
                ("lib.rs", "mod a; mod b;"),
                ("a.rs", "#[cfg(test)]\nmod tests;\npub struct A;"),
                ("a/tests.rs", "use crate::b::B;"),
                ("b.rs", "use crate::a::A;"),
            ],
            &[],
        ),
        (
            "use trees: groups, self, aliases, super::super",
            &[
                ("lib.rs", "mod a; mod p;"),
                ("a.rs", "use crate::{p::{self, q::Q as R}}; fn f(_: R) {}"),
                ("p/mod.rs", "pub mod q;"),
                ("p/q/mod.rs", "pub mod r; pub use r::Q;"),
                (
                    "p/q/r.rs",
                    "pub struct Q; fn f() { super::super::super::a::g() }",
                ),
            ],
            &[&["a.rs", "p/q/r.rs"]],
        ),
        (
            "inline modules resolve super from where they are",
            &[
                ("lib.rs", "mod a; mod b;"),
                (
                    "a.rs",
                    "mod inner { use super::super::b::B; } pub struct A;",
                ),
                ("b.rs", "pub struct B; fn f(_: crate::a::A) {}"),
            ],
            &[&["a.rs", "b.rs"]],
        ),
        (
            "paths through a child module, other crates ignored",
            &[
                (
                    "lib.rs",
                    "mod a; mod b; use serde::Serialize; fn f() { std::mem::drop(b::x()) }",
                ),
                ("a.rs", "fn g() { serde_json::json!(1); }"),
                ("b.rs", "pub fn x() { crate::f() }"),
            ],
            &[&["b.rs", "lib.rs"]],
        ),
        (
            "serde's with = \"path\" names a module",
            &[
                ("lib.rs", "mod a; mod b;"),
                (
                    "a.rs",
                    "struct S { #[serde(with = \"crate::b::hex\")] x: u8 } pub fn y() {}",
                ),
                ("b.rs", "pub mod hex { pub fn f() { crate::a::y() } }"),
            ],
            &[&["a.rs", "b.rs"]],
        ),
        (
            "lifetimes, chars and raw strings do not derail the reader",
            &[
                ("lib.rs", "mod a; mod b;"),
                (
                    "a.rs",
                    "fn f<'a>(x: &'a str) -> char { let _ = r#\"crate::b\"#; '\"' }\nuse crate::b::B;",
                ),
                (
                    "b.rs",
                    "pub struct B; fn g() -> char { let _ = '\\''; crate::a::f(\"\").into() }",
                ),
            ],
            &[&["a.rs", "b.rs"]],
        ),
    ];

    #[test]
    fn cycle_cases() {
        for (name, files, expected) in CASES {
            let sources: Sources = files
                .iter()
                .map(|(f, t)| (f.to_string(), t.to_string()))
                .collect();
            let want: Vec<Vec<String>> = expected
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect();
            assert_eq!(
                cycles(&sources),
                want,
                "{name}: graph {:?}",
                graph(&sources)
            );
        }
    }
}
