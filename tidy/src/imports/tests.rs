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
