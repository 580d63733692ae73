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

use crate::lex::tokenize;
use parse::parse;

mod parse;

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

#[cfg(test)]
mod tests;
