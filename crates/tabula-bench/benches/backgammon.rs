//! Backgammon move generation and self-play throughput.
//!
//! `movegen/contact` and `movegen/race`: 1,000 positions each from seeded
//! random self-play (race = no contact left), all 21 rolls each; one element
//! = one (position, roll) call returning every distinct resulting position,
//! so criterion's elements/s is calls per second (wildbg does 0.9–3.3 M/s).
//! `selfplay`: complete random games, elements = games.

use std::collections::HashSet;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tabula_backgammon::{Options, Position, random_game};
use tabula_dice::{Dice, SeededDice};

fn positions() -> (Vec<Position>, Vec<Position>) {
    let mut contact = Vec::new();
    let mut race = Vec::new();
    let mut seen = HashSet::new();
    let mut dice = SeededDice::new(2024);
    let mut n = 0u64;
    while contact.len() < 1000 || race.len() < 1000 {
        random_game(&mut dice, &Options::default(), 100_000, |p, _, _| {
            n += 1;
            let target = if p.is_race() { &mut race } else { &mut contact };
            // Every race position, every 7th contact one (spread over games).
            if target.len() < 1000 && (p.is_race() || n.is_multiple_of(7)) && seen.insert(*p) {
                target.push(*p);
            }
        })
        .expect("game ends");
    }
    (contact, race)
}

fn movegen(c: &mut Criterion) {
    let (contact, race) = positions();
    let mut g = c.benchmark_group("movegen");
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3));
    for (name, set) in [("contact", &contact), ("race", &race)] {
        g.throughput(Throughput::Elements((set.len() * 21) as u64));
        g.bench_function(name, |b| {
            let mut buf = Vec::with_capacity(1024);
            b.iter(|| {
                let mut total = 0usize;
                for p in set.iter() {
                    for d in Dice::ALL_21 {
                        p.legal_positions_into(d, &mut buf);
                        total += buf.len();
                    }
                }
                std::hint::black_box(total)
            })
        });
    }
    g.finish();
}

fn selfplay(c: &mut Criterion) {
    let mut g = c.benchmark_group("selfplay");
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3));
    g.throughput(Throughput::Elements(100));
    g.bench_function("random_games_x100", |b| {
        let mut dice = SeededDice::new(1);
        b.iter(|| {
            let mut turns = 0u32;
            for _ in 0..100 {
                turns += random_game(&mut dice, &Options::default(), 100_000, |_, _, _| {})
                    .expect("game ends")
                    .turns;
            }
            std::hint::black_box(turns)
        })
    });
    g.finish();
}

criterion_group!(benches, movegen, selfplay);
criterion_main!(benches);
