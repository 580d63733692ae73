//! Arena: pairing at once, rematches, pause and resume, streaks, the end,
//! and 100 players over ten compressed minutes.

mod support;

use support::*;
use tabula_tournament::{
    Effect, Format, GameId, Input, Outcome, PlayerId, Record, Status, TournamentConfig, recount,
};

const HOUR: u64 = 3_600_000;

#[test]
fn finishers_are_paired_at_once_but_not_with_whom_they_just_played() {
    let mut t = with_players(
        arena(HOUR),
        &[("a", 1800), ("b", 1700), ("c", 1600), ("d", 1500)],
    );
    let end = START + HOUR;
    table(
        &mut t,
        &[
            (
                Input::Tick,
                START,
                &[
                    "started 4",
                    "announce started 4",
                    "pair t:a:1 a-b",
                    "pair t:a:2 c-d",
                ],
            ),
            (started("t:a:1"), START + 1, &[]),
            (started("t:a:2"), START + 1, &[]),
            // a and b just played: they wait for someone else.
            (
                result("t:a:1", Outcome::WhiteWon),
                START + 100,
                &["standings"],
            ),
            // c and d come: a (2) meets d (2), b (0) meets c (0).
            (
                result("t:a:2", Outcome::BlackWon),
                START + 200,
                &["pair t:a:3 d-a", "pair t:a:4 b-c", "standings"],
            ),
            (started("t:a:3"), START + 201, &[]),
            (started("t:a:4"), START + 201, &[]),
            (Input::Pause { player: p("b") }, START + 250, &[]),
            (
                Input::Pause { player: p("b") },
                START + 251,
                &["rejected AlreadyPaused"],
            ),
            (
                result("t:a:3", Outcome::WhiteWon),
                START + 300,
                &["standings"],
            ),
            // Nobody else came within the rematch wait: d and a again.
            (Input::Tick, START + 10_299, &[]),
            (Input::Tick, START + 10_300, &["pair t:a:5 a-d"]),
            // b paused: only c waits.
            (
                result("t:a:4", Outcome::BlackWon),
                START + 10_400,
                &["standings"],
            ),
            (Input::Resume { player: p("b") }, START + 10_500, &[]),
            // A late joiner is paired with c at once; b just played c.
            (join("e", 1000), START + 10_600, &["pair t:a:6 c-e"]),
            (started("t:a:5"), START + 10_601, &[]),
            (started("t:a:6"), START + 10_601, &[]),
            (Input::Tick, end - 1, &[]),
            // The end: nobody is paired again; the games being played count.
            (Input::Tick, end, &[]),
            (join("f", 1000), end + 1, &["rejected LateJoinClosed"]),
            (result("t:a:5", Outcome::WhiteWon), end + 10, &["standings"]),
            (
                result("t:a:6", Outcome::Draw),
                end + 20,
                &["standings", "finished a,d,c,e,b", "announce podium a,d,c"],
            ),
        ],
    );
    assert_eq!(t.status(), Status::Finished);
    assert_recount(&t);
}

#[test]
fn two_wins_in_a_row_set_a_player_on_fire() {
    use Outcome::{BlackWon, Draw, WhiteWon};
    let config = config(arena(HOUR));
    // x's results in order, and his points after each.
    let cases: &[(Outcome, u32, bool)] = &[
        (WhiteWon, 2, false),
        (WhiteWon, 4, true),
        (WhiteWon, 8, true),
        (Draw, 10, false),
        (WhiteWon, 12, false),
        (BlackWon, 12, false),
        (WhiteWon, 14, false),
        (WhiteWon, 16, true),
        (WhiteWon, 20, true),
        (WhiteWon, 24, true),
        (Outcome::BothLost, 24, false),
    ];
    let players = vec![(p("x"), 1500), (p("y"), 1500)];
    let mut records = Vec::new();
    for (k, (outcome, points, fire)) in cases.iter().enumerate() {
        records.push(Record::Game {
            game_id: GameId(format!("t:a:{k}")),
            round: 0,
            white: p("x"),
            black: p("y"),
            outcome: *outcome,
            forfeit: false,
        });
        let s = recount(&config, &players, &records);
        let x = s.row(&p("x")).unwrap();
        assert_eq!((x.points, x.on_fire), (*points, *fire), "after game {k}");
    }
}

fn is_arena(c: &TournamentConfig) -> u64 {
    match c.format {
        Format::Arena {
            rematch_wait_ms, ..
        } => rematch_wait_ms,
        _ => panic!("an arena"),
    }
}

/// 100 players for ten compressed minutes, with late joiners, pauses,
/// draws, no-shows and results sent twice. After every input: at most two
/// players wait, and only two who just played each other, for less than
/// the rematch wait; every free player is playing or waiting; nobody is
/// paired after the end. At the end, the scores equal a recount.
#[test]
fn an_arena_of_100_pairs_every_finisher_at_once() {
    for seed in 0..4u64 {
        let duration = 600_000;
        let end = START + duration;
        let players: Vec<(String, i32)> = (0..100)
            .map(|i| (format!("p{i:03}"), 1100 + ((i * 37) % 100) * 9))
            .collect();
        let names: Vec<(&str, i32)> = players.iter().map(|(n, r)| (n.as_str(), *r)).collect();
        let t = with_players(arena(duration), &names);
        let mut extra = Vec::new();
        for k in 0..5u64 {
            extra.push((START + 60_000 * (k + 1), join(&format!("late{k}"), 1500)));
            let who = PlayerId(format!("p{:03}", k * 11));
            extra.push((
                START + 100_000 + k * 7_000,
                Input::Pause {
                    player: who.clone(),
                },
            ));
            extra.push((START + 200_000 + k * 9_000, Input::Resume { player: who }));
        }
        extra.push((START + 300_000, Input::Withdraw { player: p("p050") }));
        let how = Behaviour {
            no_show: 1,
            draws: 8,
            duplicates: 5,
            game_ms: (20_000, 90_000),
            extra,
            ..Behaviour::default()
        };
        let mut pairs = 0;
        let mut finished = 0;
        let played = play(t, seed, &how, |t, input, fx, now| {
            let wait = is_arena(t.config());
            for e in fx {
                match e {
                    Effect::Pair { .. } => {
                        assert!(now < end, "paired after the end");
                        pairs += 1;
                    }
                    Effect::Finished { .. } => finished += 1,
                    _ => {}
                }
            }
            if t.status() != Status::Running || now >= end {
                return;
            }
            let waiting = t.waiting();
            assert!(waiting.len() <= 2, "seed {seed} {input:?}: {waiting:?}");
            if let [(a, sa), (b, sb)] = waiting.as_slice() {
                let (ea, eb) = (t.entrant(a).unwrap(), t.entrant(b).unwrap());
                assert!(
                    ea.last_opponent.as_ref() == Some(b) || eb.last_opponent.as_ref() == Some(a),
                    "seed {seed}: {a} and {b} wait though they could play"
                );
                assert!(
                    now < sa.min(sb) + wait,
                    "seed {seed}: a rematch waited too long"
                );
            }
            for e in t.entrants() {
                let free = !e.withdrawn && !e.paused;
                let waits = waiting.iter().any(|(w, _)| *w == e.player);
                // Free: playing or waiting; paused or gone: not waiting.
                assert_eq!(
                    free,
                    free && e.game.is_some() || waits,
                    "seed {seed}: {}",
                    e.player
                );
            }
        });
        assert_eq!(finished, 1);
        assert!(pairs > 250, "seed {seed}: only {pairs} games");
        let t = played.tournament;
        assert_eq!(t.entrants().len(), 105);
        assert!(t.running().next().is_none());
        assert_recount(&t);
    }
}
