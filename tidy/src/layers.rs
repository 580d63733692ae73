//! The crate layers: the table ARCHITECTURE.md draws, and the workspace's
//! dependencies as `cargo metadata` reports them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One crate's row: its layer and the workspace crates it depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 0 is the bottom.
    pub layer: u32,
    /// Normal dependencies (not dev, not build) on workspace crates.
    pub depends_on: BTreeSet<String>,
}

/// The layer table of a Markdown text: the table whose header is
/// `| Layer | Crate | Depends on |`. Names may be in backticks; `—` or an
/// empty cell is no dependency.
pub fn parse_table(markdown: &str) -> Result<BTreeMap<String, Row>, String> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().replace('`', ""))
            .collect()
    };
    let mut lines = markdown.lines().skip_while(|l| {
        let c = cells(l);
        !(l.trim_start().starts_with('|') && c.len() == 3 && c[0] == "Layer" && c[1] == "Crate")
    });
    lines
        .next()
        .ok_or("no `| Layer | Crate | Depends on |` table")?;
    lines.next(); // |---|---|---|
    let mut out = BTreeMap::new();
    for line in lines.take_while(|l| l.trim_start().starts_with('|')) {
        let c = cells(line);
        let [layer, name, deps] = c.as_slice() else {
            return Err(format!("a row of three cells expected: {line}"));
        };
        let layer = layer
            .parse()
            .map_err(|_| format!("a layer number expected: {line}"))?;
        let depends_on = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "—")
            .map(str::to_string)
            .collect();
        if out
            .insert(name.clone(), Row { layer, depends_on })
            .is_some()
        {
            return Err(format!("{name} twice"));
        }
    }
    Ok(out)
}

/// Every workspace package and its normal dependencies on workspace
/// packages, from `cargo metadata --no-deps` run in `root`.
pub fn workspace(root: &Path) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let all = all_dependencies(root)?;
    let names: BTreeSet<String> = all.keys().cloned().collect();
    Ok(all
        .into_iter()
        .map(|(name, deps)| (name, deps.intersection(&names).cloned().collect()))
        .collect())
}

/// `cargo metadata --no-deps`'s answer in `root`.
fn metadata(root: &Path) -> Result<serde_json::Value, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

/// Every workspace package and all its normal dependencies (workspace
/// packages and crates from the registry alike), by name, from `cargo
/// metadata --no-deps` run in `root`.
pub fn all_dependencies(root: &Path) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let meta = metadata(root)?;
    let packages = meta["packages"].as_array().ok_or("no packages")?;
    let mut out = BTreeMap::new();
    for p in packages {
        let name = p["name"].as_str().ok_or("a package without a name")?;
        let deps = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .map(str::to_string)
            .collect();
        out.insert(name.to_string(), deps);
    }
    Ok(out)
}

/// What is wrong with a table: each dependency must point to a lower layer.
pub fn downward_only(table: &BTreeMap<String, Row>) -> Vec<String> {
    let mut wrong = Vec::new();
    for (name, row) in table {
        for dep in &row.depends_on {
            match table.get(dep) {
                None => wrong.push(format!("{name} depends on {dep}, which has no row")),
                Some(d) if d.layer >= row.layer => wrong.push(format!(
                    "{name} (layer {}) depends on {dep} (layer {}): not below it",
                    row.layer, d.layer
                )),
                Some(_) => {}
            }
        }
    }
    wrong
}

/// The workspace crates `name` links, itself aside (normal dependencies,
/// transitively).
pub fn links(graph: &BTreeMap<String, BTreeSet<String>>, name: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(n) = todo.pop() {
        for d in graph.get(&n).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_read_and_its_direction_checked() {
        let doc = "Some text.\n\n| Layer | Crate | Depends on |\n|---|---|---|\n\
                   | 0 | `a` | — |\n| 1 | `b` | `a` |\n| 1 | `c` | `a`, `b` |\n\nAfter.\n| x |\n";
        let table = parse_table(doc).unwrap();
        assert_eq!(table.len(), 3);
        assert_eq!(table["c"].layer, 1);
        assert_eq!(table["c"].depends_on, ["a", "b"].map(String::from).into());
        assert_eq!(
            downward_only(&table),
            ["c (layer 1) depends on b (layer 1): not below it"]
        );
        assert!(parse_table("| Crate | Layer |\n|-|-|\n").is_err());
        assert!(
            parse_table("| Layer | Crate | Depends on |\n|-|-|-|\n| 0 | a | — |\n| 1 | a | — |\n")
                .is_err()
        );
    }
}
