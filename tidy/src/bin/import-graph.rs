//! `cargo run -p tabula-tidy --bin import-graph -- crates/tabula-room`: one
//! crate's file-level import graph (each file and the files it imports),
//! to see the edges of a cycle `imports_run_one_way` reports.

use std::io::Write;
use std::path::Path;

fn main() -> std::process::ExitCode {
    let Some(dir) = std::env::args().nth(1) else {
        let _ = writeln!(std::io::stderr(), "usage: import-graph <crate directory>");
        return std::process::ExitCode::from(2);
    };
    let sources = match tabula_tidy::imports::read_sources(&Path::new(&dir).join("src")) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{dir}/src: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    for (from, to) in tabula_tidy::imports::graph(&sources) {
        let to: Vec<String> = to.into_iter().collect();
        if writeln!(out, "{from} -> {}", to.join(" ")).is_err() {
            break;
        }
    }
    std::process::ExitCode::SUCCESS
}
