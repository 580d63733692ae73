//! Long nardy benchmarks: distinct-final generation over a fixed set of
//! positions from seeded random self-play (all 21 rolls each), and whole
//! random games.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tabula_dice::{Dice, SeededDice};
use tabula_long::{Position, Turn, Variant, play_random_game};

/// At least `n` positions from seeded self-play (every third ply).
fn positions(n: usize) -> Vec<Position> {
    let mut out = Vec::with_capacity(n + 200);
    let mut dice = SeededDice::new(2024);
    while out.len() < n {
        let mut ply = 0u32;
        play_random_game(Variant::default(), &mut dice, 5000, |p| {
            if ply.is_multiple_of(3) {
                out.push(*p);
            }
            ply += 1;
        });
    }
    out.truncate(n);
    out
}

fn legal_moves(c: &mut Criterion) {
    let set = positions(1000);
    let mut g = c.benchmark_group("long_nardy");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(
        (set.len() * Dice::ALL_21.len()) as u64,
    ));
    g.bench_function("legal_moves_into/1000_positions_x_21_rolls", |b| {
        let mut buf = Vec::with_capacity(256);
        b.iter(|| {
            let mut total = 0usize;
            for p in &set {
                for d in Dice::ALL_21 {
                    buf.clear();
                    p.legal_moves_into(d, &mut buf);
                    total += buf.len();
                }
            }
            black_box(total)
        })
    });
    g.bench_function("legal_moves/1000_positions_x_21_rolls", |b| {
        b.iter(|| {
            let mut total = 0usize;
            for p in &set {
                for d in Dice::ALL_21 {
                    total += p.legal_moves(d).len();
                }
            }
            black_box(total)
        })
    });
    // What a room does on every roll: start the turn, list its first
    // steps and one whole play per distinct result (`possibleMoves`).
    g.bench_function("turn_offer/1000_positions_x_21_rolls", |b| {
        b.iter(|| {
            let mut total = 0usize;
            for p in &set {
                for d in Dice::ALL_21 {
                    let t = Turn::new(p, d);
                    total += t.legal_steps().len() + t.continuations_by_result().len();
                }
            }
            black_box(total)
        })
    });
    g.finish();
}

fn selfplay(c: &mut Criterion) {
    let mut g = c.benchmark_group("long_nardy_selfplay");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    const GAMES: u64 = 100;
    g.throughput(Throughput::Elements(GAMES));
    g.bench_function("random_games_x100", |b| {
        let mut seed = 0u64;
        b.iter(|| {
            let mut plies = 0u32;
            for _ in 0..GAMES {
                seed += 1;
                let mut dice = SeededDice::new(seed);
                plies += play_random_game(Variant::default(), &mut dice, 10_000, |_| {}).plies;
            }
            black_box(plies)
        })
    });
    g.finish();
}

criterion_group!(benches, legal_moves, selfplay);
criterion_main!(benches);
