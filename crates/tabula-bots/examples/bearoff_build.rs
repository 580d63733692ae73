//! Times the bear-off database's build (`tabula_bots::bearoff::Table::build`).
//!
//! `cargo run --release -p tabula-bots --example bearoff_build [-- RUNS]`
//! prints each run's wall time, the fastest and the median, the table's
//! size, and a few entries (so a change to the table shows).

#![allow(clippy::print_stdout)]

use std::time::Instant;

use tabula_bots::bearoff::{self, POSITIONS, Table};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    // The positions' list is built once per process and shared; time it
    // apart so every run below is the whole build.
    let t = Instant::now();
    let _ = bearoff::boards();
    println!(
        "positions listed in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut ms = Vec::new();
    let mut table = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let built = Table::build();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        table = Some(built);
    }
    let table = table.unwrap_or_else(Table::build);
    println!(
        "runs (ms): {}",
        ms.iter()
            .map(|m| format!("{m:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    ms.sort_by(f64::total_cmp);
    println!(
        "build: fastest {:.1} ms, median {:.1} ms ({} runs)",
        ms[0],
        ms[ms.len() / 2],
        ms.len()
    );
    println!("{table:?}");
    let longest = (0..POSITIONS)
        .map(|i| table.rolls(i).last())
        .max()
        .unwrap_or(0);
    println!("longest kept distribution: {longest} rolls");
    for b in [[0, 0, 0, 0, 0, 15], [15, 0, 0, 0, 0, 0], [3, 3, 3, 2, 2, 2]] {
        let i = bearoff::index(&b).unwrap_or(0);
        println!(
            "{b:?} (gnubg #{i}): mean {:.6} rolls, first off {:.6}",
            table.mean(i),
            table.first_off_mean(i)
        );
    }
}
