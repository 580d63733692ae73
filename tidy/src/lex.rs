//! Rust's tokens, as much of them as a reader of paths needs.

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    Ident(String),
    Str(String),
    Punct(char),
    /// `::`
    Path,
}

/// Rust's tokens, enough for paths: comments dropped, literals kept as
/// strings (their text is not code), lifetimes and numbers dropped.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied().unwrap_or('\0');
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == '*' {
            let mut nest = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    nest += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    nest -= 1;
                    i += 2;
                    if nest == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            let (s, end) = quoted(&c, i + 1);
            out.push(Token::Str(s));
            i = end;
        } else if (ch == 'r' || ch == 'b' || ch == 'c') && raw_string_at(&c, i).is_some() {
            let (s, end) = raw_string_at(&c, i).unwrap_or_default();
            out.push(Token::Str(s));
            i = end;
        } else if (ch == 'b' || ch == 'c') && next == '"' {
            let (s, end) = quoted(&c, i + 2);
            out.push(Token::Str(s));
            i = end;
        } else if ch == 'b' && next == '\'' {
            i = char_literal_end(&c, i + 1);
        } else if ch == '\'' {
            // A char literal, or a lifetime / label.
            if next == '\\' || c.get(i + 2) == Some(&'\'') {
                i = char_literal_end(&c, i);
            } else {
                i += 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
        } else if ch == 'r' && next == '#' && c.get(i + 2).is_some_and(|&x| ident_start(x)) {
            // A raw identifier.
            i += 2;
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            out.push(Token::Ident(c[start..i].iter().collect()));
        } else if ident_start(ch) || (ch == '$' && ident_start(next)) {
            let start = i;
            i += 1;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            out.push(Token::Ident(c[start..i].iter().collect()));
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (ident_char(c[i])
                    || (c[i] == '.' && c.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
        } else if ch == ':' && next == ':' {
            out.push(Token::Path);
            i += 2;
        } else {
            out.push(Token::Punct(ch));
            i += 1;
        }
    }
    out
}

/// A `"…"` string's text from after its opening quote; the index after it.
fn quoted(c: &[char], mut i: usize) -> (String, usize) {
    let start = i;
    while i < c.len() && c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    let end = i.min(c.len());
    (c[start..end].iter().collect(), end + 1)
}

/// `r"…"`, `r#"…"#`, `br"…"`, `cr#"…"#` at `i`: its text and the index
/// after it.
fn raw_string_at(c: &[char], mut i: usize) -> Option<(String, usize)> {
    if c[i] != 'r' {
        i += 1;
    }
    if c.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    let mut hashes = 0;
    while c.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if c.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    let start = i;
    while i < c.len() {
        if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
            return Some((c[start..i].iter().collect(), i + 1 + hashes));
        }
        i += 1;
    }
    Some((c[start..].iter().collect(), c.len()))
}

/// The index after the char literal whose opening quote is at `i`.
fn char_literal_end(c: &[char], mut i: usize) -> usize {
    i += 1;
    while i < c.len() && c[i] != '\'' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}
