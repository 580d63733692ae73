//! Tournament core speed (issue 49): the owner's work for each finished
//! game of an arena (the result applied and its players paired again),
//! the standings it shows, and the state it writes after each step (the
//! JSON it stores under its epoch). Arenas of 100 and 1,000 players, one
//! game a player into their hour. Kept short (~15 s).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use tabula_tournament::{
    Effect, Format, GameId, GameKind, Input, Outcome, PlayerId, Tournament, TournamentConfig,
};

/// Applies `input` and reports each new pairing's game as begun (a no-show
/// forfeit is not what is measured).
fn step(t: &mut Tournament, input: Input, now: u64) -> usize {
    let fx = t.apply(input, now);
    let mut paired = 0;
    for e in fx {
        if let Effect::Pair { game_id, .. } = e {
            paired += 1;
            t.apply(Input::GameStarted { game_id }, now);
        }
    }
    paired
}

/// An arena of `n` players that has finished `games` games, and the time.
fn played(n: usize, games: usize) -> (Tournament, u64) {
    let config = TournamentConfig {
        format: Format::Arena {
            duration_ms: 3_600_000,
            rematch_wait_ms: 15_000,
        },
        game: GameKind::LongNardy,
        match_points: 1,
        clock: None,
        rated: true,
        start_at_ms: 1_000,
        grace_ms: 120_000,
        max_players: None,
    };
    let mut t = Tournament::new("bench", config).expect("a valid arena");
    for i in 0..n {
        t.apply(
            Input::Join {
                player: PlayerId::from(format!("p{i}").as_str()),
                rating: 1400 + (i % 200) as i32,
            },
            0,
        );
    }
    let mut now = 1_000;
    step(&mut t, Input::Tick, now);
    let mut done = 0;
    while done < games {
        now += 1;
        let next = t.running().next().map(|g| g.id.clone());
        match next {
            Some(game_id) => {
                let outcome = if done % 2 == 0 {
                    Outcome::WhiteWon
                } else {
                    Outcome::BlackWon
                };
                step(&mut t, Input::GameResult { game_id, outcome }, now);
                done += 1;
            }
            // Everyone waits out a rematch: time passes.
            None => {
                now += 15_000;
                step(&mut t, Input::Tick, now);
            }
        }
    }
    (t, now)
}

fn arena(c: &mut Criterion) {
    for n in [100usize, 1_000] {
        let (t, now) = played(n, n);
        let next: GameId = t.running().next().expect("a game running").id.clone();
        let mut g = c.benchmark_group(format!("arena_{n}"));
        g.throughput(Throughput::Elements(1));
        g.bench_function("result_and_pairing", |b| {
            b.iter_batched(
                || t.clone(),
                |mut t| {
                    black_box(step(
                        &mut t,
                        Input::GameResult {
                            game_id: next.clone(),
                            outcome: Outcome::WhiteWon,
                        },
                        now + 1,
                    ))
                },
                BatchSize::LargeInput,
            )
        });
        g.bench_function("standings", |b| b.iter(|| black_box(t.standings())));
        g.bench_function("state_json", |b| {
            b.iter(|| black_box(serde_json::to_string(&t).expect("serialises").len()))
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = arena
}
criterion_main!(benches);
