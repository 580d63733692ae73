//! One file's tokens read into what the module graph needs: its inline
//! modules, `mod` declarations, `use` leaves and the paths its code names.

use crate::lex::Token;

/// One `use` leaf: the name it binds and the path it names.
#[derive(Debug)]
pub(super) struct Use {
    pub(super) name: String,
    pub(super) path: Vec<String>,
    pub(super) glob: bool,
    pub(super) public: bool,
    /// At the module's item level (not inside a function or block).
    pub(super) top_level: bool,
}

/// What one module of a file holds (the file's own module first, then its
/// inline modules).
#[derive(Debug, Default)]
pub(super) struct Scope {
    /// Index of the enclosing scope (itself for the file's module).
    pub(super) parent: usize,
    pub(super) name: String,
    /// `mod name;`
    pub(super) declared: Vec<String>,
    pub(super) uses: Vec<Use>,
    pub(super) paths: Vec<Vec<String>>,
}

#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) modules: Vec<Scope>,
    /// The identifiers of the file's code outside `use` items.
    pub(super) idents: Vec<String>,
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token::Ident(s)) => Some(s),
        _ => None,
    }
}

pub(super) fn parse(tokens: &[Token]) -> Parsed {
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
