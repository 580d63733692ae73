//! Bot decision times: one element = one decision (a whole turn chosen).
//!
//! `bots/long-nardy-hard` and `bots/backgammon-hard`: 200 (position, roll)
//! pairs each from seeded random games, cycled; `bots/*-medium` the same
//! positions at Medium; `bots/long-nardy-hard-classic` long nardy's Hard
//! before the trained network (the hand-made evaluation); `bots/thud-hard` the Thud start position (dwarfs)
//! and one early trolls position. The arena (`tabula arena`) reports the
//! p50 / p99 / max of the same decisions in real games.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::Rng;
use tabula_bots::{Bot, Level};
use tabula_dice::{Dice, DiceSource, SeededDice};

fn long_positions() -> Vec<(tabula_long::Position, Dice)> {
    let mut dice = SeededDice::new(77);
    let mut out = Vec::new();
    while out.len() < 200 {
        let mut pos = tabula_long::Position::initial();
        while !pos.is_game_over() {
            let roll = dice.roll();
            if dice.rng().random_bool(0.3) {
                out.push((pos, roll));
            }
            let finals = pos.legal_moves(roll);
            pos = finals[dice.rng().random_range(0..finals.len())];
        }
    }
    out.truncate(200);
    out
}

fn bg_positions() -> Vec<(tabula_backgammon::Position, Dice)> {
    let mut dice = SeededDice::new(78);
    let mut out = Vec::new();
    while out.len() < 200 {
        let mut pos = tabula_backgammon::Position::initial();
        loop {
            let roll = dice.roll();
            if dice.rng().random_bool(0.3) {
                out.push((pos, roll));
            }
            let finals = pos.legal_positions(roll);
            let next = finals[dice.rng().random_range(0..finals.len())];
            if next.is_over() {
                break;
            }
            pos = next.pass_turn();
        }
    }
    out.truncate(200);
    out
}

fn bots(c: &mut Criterion) {
    let long = long_positions();
    let bg = bg_positions();
    let mut g = c.benchmark_group("bots");
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3))
        .throughput(Throughput::Elements(1));
    for level in [Level::Medium, Level::Hard] {
        let mut bot = Bot::new(level, 1);
        let mut i = 0;
        g.bench_function(format!("long-nardy-{level}"), |b| {
            b.iter(|| {
                let (p, d) = &long[i % long.len()];
                i += 1;
                bot.choose_play(tabula_bots::Position::Long(p), Some(*d))
                    .and_then(tabula_bots::Play::into_long)
                    .unwrap_or_default()
            })
        });
        let mut i = 0;
        g.bench_function(format!("backgammon-{level}"), |b| {
            b.iter(|| {
                let (p, d) = &bg[i % bg.len()];
                i += 1;
                bot.choose_play(tabula_bots::Position::Backgammon(p), Some(*d))
                    .and_then(tabula_bots::Play::into_backgammon)
                    .unwrap_or_default()
            })
        });
    }
    // Long nardy Hard as it was before the trained network (the hand-made
    // evaluation and its expectimax), to compare the search's cost.
    let mut bot = Bot::new(Level::Hard, 1).with_classic_long();
    let mut i = 0;
    g.bench_function("long-nardy-hard-classic", |b| {
        b.iter(|| {
            let (p, d) = &long[i % long.len()];
            i += 1;
            bot.choose_play(tabula_bots::Position::Long(p), Some(*d))
                .and_then(tabula_bots::Play::into_long)
                .unwrap_or_default()
        })
    });
    let start = tabula_thud::Position::start();
    let mut bot = Bot::new(Level::Hard, 1);
    g.bench_function("thud-hard-start", |b| {
        b.iter(|| {
            bot.choose_play(tabula_bots::Position::Thud(&start), None)
                .and_then(tabula_bots::Play::into_thud)
        })
    });
    g.finish();
}

criterion_group!(benches, bots);
criterion_main!(benches);
