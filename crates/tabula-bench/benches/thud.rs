//! Thud! speed: legal-move generation (start and self-play positions) and
//! complete random two-round games. Kept short (~20 s).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_thud::{Game, Position, Variant};

/// Positions from seeded random rounds (every ply of a few rounds).
fn selfplay_positions(seed: u64, rounds: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..rounds {
        let mut p = Position::start();
        for _ in 0..300 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            out.push(p.clone());
            p.play_unchecked(&moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

fn play_game(variant: Variant, rng: &mut ChaCha8Rng, buf: &mut Vec<tabula_thud::Move>) -> u32 {
    let mut g = Game::new(variant);
    let mut plies = 0;
    loop {
        let r = g.round_mut();
        while !r.is_over() {
            buf.clear();
            r.position().legal_moves_into(buf);
            let mv = buf[rng.random_range(0..buf.len())];
            r.play_unchecked(&mv);
            plies += 1;
        }
        if g.next_round().is_err() {
            return plies;
        }
    }
}

fn movegen(c: &mut Criterion) {
    let mut g = c.benchmark_group("thud_movegen");
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    let start = Position::start();
    let mut buf = Vec::with_capacity(1024);
    g.throughput(Throughput::Elements(1));
    g.bench_function("start_position", |b| {
        b.iter(|| {
            buf.clear();
            black_box(&start).legal_moves_into(&mut buf);
            buf.len()
        })
    });

    let positions = selfplay_positions(42, 20);
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function(format!("selfplay_positions_x{}", positions.len()), |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                buf.clear();
                p.legal_moves_into(&mut buf);
                n += buf.len();
            }
            n
        })
    });

    g.throughput(Throughput::Elements(1));
    g.bench_function("perft_2_start", |b| b.iter(|| black_box(&start).perft(2)));
    g.finish();
}

fn selfplay(c: &mut Criterion) {
    let mut g = c.benchmark_group("thud_selfplay");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    let variant = Variant {
        max_plies_without_capture: Some(100),
        ..Variant::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut buf = Vec::with_capacity(1024);
    // Throughput in games (two rounds each).
    g.throughput(Throughput::Elements(10));
    g.bench_function("games_x10", |b| {
        b.iter(|| {
            (0..10)
                .map(|_| play_game(variant, &mut rng, &mut buf))
                .sum::<u32>()
        })
    });
    g.finish();
}

criterion_group!(benches, movegen, selfplay);
criterion_main!(benches);
