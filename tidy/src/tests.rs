//! The workspace's own imports and layers.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::{imports, layers};

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
    let lines: Vec<String> = found
        .iter()
        .map(|(c, files)| format!("  {c}: {}", files.join(", ")))
        .collect();
    assert!(
        found.is_empty(),
        "import cycles (each a crate and the files of one strongly connected \
         component; `cargo run -p tabula-tidy --bin import-graph -- crates/<name>` prints the edges):\n{}",
        lines.join("\n")
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
/// The crates ARCHITECTURE.md calls pure: no IO, no clock, no global
/// RNG, nothing async.
const PURE: &[&str] = &[
    "tabula-dice",
    "tabula-long",
    "tabula-backgammon",
    "tabula-thud",
    "tabula-room",
    "tabula-bots",
    "tabula-tournament",
    "tabula-ratings",
    "tabula-auth",
];

/// Crates a pure crate must not depend on: runtimes, networking, stores.
const NOT_PURE: &[&str] = &[
    "actix",
    "actix-rt",
    "actix-web",
    "actix-ws",
    "async-trait",
    "deadpool-redis",
    "futures",
    "futures-util",
    "hyper",
    "mio",
    "redis",
    "reqwest",
    "sqlx",
    "tokio",
];

/// What a pure crate's code must not name: the clock, the global RNG, the
/// file system, the network, the environment, the console.
const NOT_PURE_CODE: &[&str] = &[
    "SystemTime",
    "Instant::now",
    "std::time",
    "thread_rng",
    "rand::rng()",
    "std::fs",
    "std::net",
    "std::env",
    "std::process",
    "println!",
    "eprintln!",
];

#[test]
fn the_pure_crates_depend_on_nothing_async_and_read_no_clock() {
    let deps = layers::all_dependencies(&root()).expect("cargo metadata");
    let mut wrong = Vec::new();
    for name in PURE {
        let Some(d) = deps.get(*name) else {
            wrong.push(format!("{name} is not in the workspace"));
            continue;
        };
        for bad in NOT_PURE.iter().filter(|b| d.contains(**b)) {
            wrong.push(format!("{name} depends on {bad}"));
        }
        let dir = root().join("crates").join(name).join("src");
        let sources = imports::read_sources(&dir).expect("readable sources");
        for (file, text) in &sources {
            for bad in NOT_PURE_CODE.iter().filter(|b| text.contains(**b)) {
                wrong.push(format!("{name}/src/{file} names {bad}"));
            }
        }
    }
    assert!(wrong.is_empty(), "the pure crates: {wrong:#?}");
}

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
