//! The workspace's own imports and layers.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::{imports, layers};

/// Import cycles the workspace still has, by crate: each one strongly
/// connected component of files (paths under the crate's `src/`, sorted).
/// Issue 48 ("Imports that run one way") removes them all; until then a
/// cycle that is not listed fails the test (a new one, or a listed one
/// that grew or split), and so does a listed one that is gone: strike it
/// out, so the list only shrinks. Every crate not named here has none.
const ALLOWED_CYCLES: &[(&str, &[&str])] = &[
    // lib.rs holds `BackplaneError` and the ids every concern's trait
    // uses, and names the traits in `Backplane`; the in-process and Redis
    // `mod.rs` hold the shared state their per-trait files implement on.
    (
        "crates/tabula-backplane",
        &[
            "archive.rs",
            "bus.rs",
            "lib.rs",
            "lobby.rs",
            "notices.rs",
            "store.rs",
            "tournaments.rs",
        ],
    ),
    (
        "crates/tabula-backplane",
        &[
            "in_process/lobby.rs",
            "in_process/mod.rs",
            "in_process/notices.rs",
            "in_process/tournaments.rs",
        ],
    ),
    (
        "crates/tabula-backplane",
        &["redis/bus.rs", "redis/conn.rs", "redis/mod.rs"],
    ),
    // lib.rs's `StoreError` and `StoreFuture` are every concern's, and
    // lib.rs names the concerns (`DurableStore`, `NotRated(GameKey)`).
    (
        "crates/tabula-store",
        &[
            "games.rs",
            "lib.rs",
            "profiles.rs",
            "ratings.rs",
            "tournaments.rs",
        ],
    ),
    // core.rs holds each format's state; each format works on `Tournament`;
    // lib.rs's effects carry `Standings`, which read lib.rs's ids.
    (
        "crates/tabula-tournament",
        &["arena.rs", "core.rs", "knockout.rs"],
    ),
    ("crates/tabula-tournament", &["lib.rs", "standings.rs"]),
];

fn root() -> PathBuf {
    let tidy = Path::new(env!("CARGO_MANIFEST_DIR"));
    tidy.parent().unwrap_or(tidy).to_path_buf()
}

/// Every workspace crate's `src/`, by the crate's directory
/// (`crates/tabula-room`, `tests`, …).
fn crate_sources() -> Vec<(String, PathBuf)> {
    let root = root();
    let mut dirs = Vec::new();
    let crates = std::fs::read_dir(root.join("crates")).expect("crates/");
    for entry in crates {
        let dir = entry.expect("crates/*").path();
        let name = dir
            .strip_prefix(&root)
            .unwrap_or(&dir)
            .to_string_lossy()
            .into_owned();
        dirs.push((name, dir));
    }
    for other in ["loadtest", "tests", "tidy"] {
        dirs.push((other.to_string(), root.join(other)));
    }
    dirs.retain(|(_, d)| d.join("src").is_dir());
    dirs.sort();
    dirs
}

#[test]
fn imports_run_one_way() {
    let mut found = BTreeSet::new();
    let mut files = 0;
    for (name, dir) in crate_sources() {
        let sources = imports::read_sources(&dir.join("src")).expect("readable sources");
        files += sources.len();
        for cycle in imports::cycles(&sources) {
            found.insert((name.clone(), cycle));
        }
    }
    assert!(
        files > 100,
        "only {files} files read under {}",
        root().display()
    );
    let allowed: BTreeSet<(String, Vec<String>)> = ALLOWED_CYCLES
        .iter()
        .map(|(c, files)| (c.to_string(), files.iter().map(|f| f.to_string()).collect()))
        .collect();
    let spell = |cycles: Vec<&(String, Vec<String>)>| -> String {
        let lines: Vec<String> = cycles
            .iter()
            .map(|(c, files)| format!("    (\"{c}\", &[\"{}\"]),", files.join("\", \"")))
            .collect();
        lines.join("\n")
    };
    let new = spell(found.difference(&allowed).collect());
    let gone = spell(allowed.difference(&found).collect());
    assert!(
        new.is_empty() && gone.is_empty(),
        "import cycles (each a crate and the files of one strongly connected \
         component; `cargo run -p tabula-tidy --bin import-graph -- crates/<name>` prints the edges)\n\
         new, not allowed:\n{new}\n\
         allowed but gone (strike them from ALLOWED_CYCLES):\n{gone}"
    );
}

#[test]
fn crates_depend_on_each_other_as_architecture_md_draws() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let table = layers::parse_table(&doc).expect("ARCHITECTURE.md's layer table");
    let wrong = layers::downward_only(&table);
    assert!(wrong.is_empty(), "ARCHITECTURE.md's layers: {wrong:#?}");
    let actual = layers::workspace(&root()).expect("cargo metadata");
    let drawn: std::collections::BTreeMap<String, BTreeSet<String>> = table
        .into_iter()
        .map(|(name, row)| (name, row.depends_on))
        .collect();
    assert_eq!(
        drawn, actual,
        "ARCHITECTURE.md's layer table (left) is not the workspace's normal dependencies (right)"
    );
}

#[test]
fn the_node_links_no_training_code() {
    let graph = layers::workspace(&root()).expect("cargo metadata");
    let linked = layers::links(&graph, "tabula-server");
    assert!(linked.contains("tabula-bots"), "{linked:?}");
    assert!(!linked.contains("tabula-training"), "{linked:?}");
}

/// ARCHITECTURE.md names every module of the system-test binary, as
/// `tests/system/main.rs` declares them.
#[test]
fn architecture_md_names_every_system_test_module() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let main = std::fs::read_to_string(root().join("tests/system/main.rs")).expect("main.rs");
    let at = doc
        .find("`tests/system/` is ONE test binary")
        .expect("ARCHITECTURE.md describes tests/system/");
    let list = &doc[at..doc[at..].find("\n\n").map_or(doc.len(), |e| at + e)];
    let missing: Vec<&str> = main
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .filter(|m| !list.contains(&format!("`{m}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's list of tests/system modules lacks {missing:?}"
    );
}
