//! Knockout: seeding, byes, rounds, replays, walkovers, a bracket of 64.

mod support;

use std::collections::BTreeSet;

use support::*;
use tabula_tournament::knockout::{Decided, first_round, seed_positions};
use tabula_tournament::{Effect, Format, Input, Outcome, PlayerId, Record, Status};

#[test]
fn seed_positions_place_the_seeds_the_standard_way() {
    let cases: &[(u32, &[u32])] = &[
        (1, &[1]),
        (2, &[1, 2]),
        (4, &[1, 4, 2, 3]),
        (8, &[1, 8, 4, 5, 2, 7, 3, 6]),
        (16, &[1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]),
    ];
    for (size, want) in cases {
        assert_eq!(seed_positions(*size), *want, "size {size}");
    }
}

#[test]
fn the_first_round_gives_the_byes_to_the_top_seeds() {
    type Round = &'static [(u32, Option<u32>)];
    let cases: &[(u32, Round)] = &[
        (2, &[(1, Some(2))]),
        (3, &[(1, None), (2, Some(3))]),
        (4, &[(1, Some(4)), (2, Some(3))]),
        (5, &[(1, None), (4, Some(5)), (2, None), (3, None)]),
        (6, &[(1, None), (4, Some(5)), (2, None), (3, Some(6))]),
        (7, &[(1, None), (4, Some(5)), (2, Some(7)), (3, Some(6))]),
        (8, &[(1, Some(8)), (4, Some(5)), (2, Some(7)), (3, Some(6))]),
        (
            9,
            &[
                (1, None),
                (8, Some(9)),
                (4, None),
                (5, None),
                (2, None),
                (7, None),
                (3, None),
                (6, None),
            ],
        ),
    ];
    for (n, want) in cases {
        assert_eq!(first_round(*n), *want, "{n} players");
    }
}

/// Properties of every field from 2 to 64: the byes are seeds 1..=byes, 1
/// and 2 are in opposite halves, 1..4 in different quarters, and every
/// match of a full bracket adds up to size + 1.
#[test]
fn seeding_properties_hold_for_every_field_up_to_64() {
    for n in 2..=64u32 {
        let size = n.next_power_of_two();
        let round = first_round(n);
        assert_eq!(round.len() as u32, size / 2);
        let byes: BTreeSet<u32> = round
            .iter()
            .filter(|(_, b)| b.is_none())
            .map(|(a, _)| *a)
            .collect();
        assert_eq!(byes, (1..=size - n).collect(), "{n} players");
        let seeds: Vec<u32> = round
            .iter()
            .flat_map(|(a, b)| [Some(*a), *b])
            .flatten()
            .collect();
        assert_eq!(
            seeds.iter().copied().collect::<BTreeSet<_>>().len() as u32,
            n
        );
        let place = |s: u32| seed_positions(size).iter().position(|&x| x == s).unwrap();
        let half = size as usize / 2;
        assert!(place(1) < half && place(2) >= half, "{n}: 1 and 2 apart");
        if size >= 4 {
            let quarters: BTreeSet<usize> = (1..=4).map(|s| place(s) / (half / 2)).collect();
            assert_eq!(quarters.len(), 4, "{n}: seeds 1-4 in four quarters");
        }
        if n == size {
            assert!(round.iter().all(|(a, b)| a + b.unwrap() == size + 1));
        }
    }
}

#[test]
fn a_field_of_five_plays_through_byes_to_a_champion() {
    let mut t = with_players(
        Format::Knockout,
        &[
            ("e", 1400),
            ("a", 1800),
            ("d", 1500),
            ("b", 1700),
            ("c", 1600),
        ],
    );
    // Seeds a b c d e: 1 bye, 4 v 5, 2 bye, 3 bye.
    table(
        &mut t,
        &[
            (Input::Tick, START - 1, &[]),
            (
                Input::Tick,
                START,
                &[
                    "started 5",
                    "announce started 5",
                    "round 1",
                    "bye a",
                    "pair t:1:2 d-e",
                    "bye b",
                    "bye c",
                    "announce round 1",
                    "standings",
                ],
            ),
            (started("t:1:2"), START + 1, &[]),
            (
                result("t:1:2", Outcome::BlackWon),
                START + 100,
                &[
                    "round 2",
                    "pair t:2:1 a-e",
                    "pair t:2:2 b-c",
                    "announce round 2",
                    "standings",
                ],
            ),
            (started("t:2:1"), START + 101, &[]),
            (started("t:2:2"), START + 101, &[]),
            (
                result("t:2:1", Outcome::WhiteWon),
                START + 200,
                &["standings"],
            ),
            (
                result("t:2:2", Outcome::BlackWon),
                START + 300,
                &["round 3", "pair t:3:1 a-c", "announce round 3", "standings"],
            ),
            (started("t:3:1"), START + 301, &[]),
            (
                result("t:3:1", Outcome::BlackWon),
                START + 400,
                &["standings", "finished c,a,b,e,d", "announce podium c,a,b"],
            ),
            (Input::Tick, START + 500, &[]),
            (join("z", 2000), START + 500, &["rejected Closed"]),
        ],
    );
    assert_eq!(t.status(), Status::Finished);
    assert_eq!(t.bracket().unwrap().champion(), Some(&p("c")));
    assert_eq!(t.next_deadline(), None);
    assert_recount(&t);
}

#[test]
fn a_draw_is_replayed_with_colours_swapped_and_absence_gives_a_walkover() {
    let mut t = with_players(
        Format::Knockout,
        &[("a", 1800), ("b", 1700), ("c", 1600), ("d", 1500)],
    );
    table(
        &mut t,
        &[
            (
                Input::Tick,
                START,
                &[
                    "started 4",
                    "announce started 4",
                    "round 1",
                    "pair t:1:1 a-d",
                    "pair t:1:2 b-c",
                    "announce round 1",
                ],
            ),
            (started("t:1:1"), START + 1, &[]),
            (
                result("t:1:1", Outcome::Draw),
                START + 10,
                &["pair t:1:1:2 d-a", "standings"],
            ),
            // b and c never come: both lose, nobody goes through.
            (
                Input::Tick,
                START + GRACE,
                &["forfeit t:1:2 b", "forfeit t:1:2 c", "standings"],
            ),
            (started("t:1:1:2"), START + GRACE + 1, &[]),
            (
                result("t:1:1:2", Outcome::WhiteWon),
                START + GRACE + 20,
                &[
                    "round 2",
                    "bye d",
                    "announce round 2",
                    "standings",
                    "finished d,a,b,c",
                    "announce podium d,a,b",
                ],
            ),
            (
                result("t:1:1:2", Outcome::WhiteWon),
                START + GRACE + 30,
                &["rejected DuplicateResult { game_id: GameId(\"t:1:1:2\") }"],
            ),
        ],
    );
    let bracket = t.bracket().unwrap();
    assert_eq!(bracket.rounds[0][1].winner, Decided::Nobody);
    assert_eq!(bracket.champion(), Some(&p("d")));
    assert_recount(&t);
}

#[test]
fn withdrawing_forfeits_the_match_being_played() {
    let mut t = with_players(Format::Knockout, &[("a", 1800), ("b", 1700)]);
    t.apply(Input::Tick, START);
    table(
        &mut t,
        &[
            (
                Input::Pause { player: p("a") },
                START + 1,
                &["rejected NoPause"],
            ),
            (
                Input::Withdraw { player: p("a") },
                START + 2,
                &[
                    "forfeit t:1:1 a",
                    "standings",
                    "finished b,a",
                    "announce podium b,a",
                ],
            ),
        ],
    );
}

/// 64 players, random results: every match once, one champion, the
/// standings as recounted; with favourites winning, the seeds meet as the
/// seeding says (1 v 2 in the final, 1-4 in the semi-finals).
#[test]
fn a_knockout_of_64_is_played_to_one_champion() {
    for (seed, favourites_win) in [(1, true), (2, false), (3, false), (4, false)] {
        let players: Vec<(String, i32)> = (0..64)
            .map(|i| (format!("p{i:02}"), 1000 + 7 * i))
            .collect();
        let names: Vec<(&str, i32)> = players.iter().map(|(n, r)| (n.as_str(), *r)).collect();
        let t = with_players(Format::Knockout, &names);
        let how = Behaviour {
            favourites_win,
            duplicates: 10,
            ..Behaviour::default()
        };
        let mut finished = 0;
        let played = play(t, seed, &how, |_, _, fx, _| {
            finished += fx
                .iter()
                .filter(|e| matches!(e, Effect::Finished { .. }))
                .count();
        });
        assert_eq!(finished, 1);
        let t = played.tournament;
        let mut ids = BTreeSet::new();
        let mut meetings = BTreeSet::new();
        for e in played.effects.iter().flatten() {
            if let Effect::Pair {
                game_id,
                white,
                black,
                ..
            } = e
            {
                assert!(ids.insert(game_id.clone()), "{game_id} paired twice");
                let m = (white.min(black).clone(), white.max(black).clone());
                assert!(meetings.insert(m), "{white} and {black} met twice");
            }
        }
        assert_eq!(ids.len(), 63);
        assert_eq!(t.records().len(), 63);
        let bracket = t.bracket().unwrap();
        assert_eq!(bracket.rounds.len(), 6);
        let champion = bracket.champion().unwrap().clone();
        let standings = t.standings();
        assert_eq!(standings.rows[0].player, champion);
        assert_eq!(standings.rows[0].points, 6);
        // The bracket against a reference from the records alone: who went
        // through each round is who won a game or had a bye in it.
        for (r, round) in bracket.rounds.iter().enumerate().skip(1) {
            let through: BTreeSet<PlayerId> = t
                .records()
                .iter()
                .filter_map(|rec| match rec {
                    Record::Game {
                        round,
                        white,
                        black,
                        outcome,
                        ..
                    } if *round as usize == r => match outcome {
                        Outcome::WhiteWon => Some(white.clone()),
                        Outcome::BlackWon => Some(black.clone()),
                        _ => None,
                    },
                    Record::Bye { player, round } if *round as usize == r => Some(player.clone()),
                    _ => None,
                })
                .collect();
            let placed: BTreeSet<PlayerId> = round
                .iter()
                .flat_map(|m| [m.a.clone(), m.b.clone()])
                .flatten()
                .collect();
            assert_eq!(placed, through, "round {}", r + 1);
        }
        assert_recount(&t);
        if favourites_win {
            let seed = |s: usize| bracket.seeds[s - 1].clone();
            assert_eq!(champion, seed(1));
            let last = &bracket.rounds[5][0];
            assert_eq!(
                (last.a.clone(), last.b.clone()),
                (Some(seed(1)), Some(seed(2)))
            );
            let semis: BTreeSet<PlayerId> = bracket.rounds[4]
                .iter()
                .flat_map(|m| [m.a.clone(), m.b.clone()])
                .flatten()
                .collect();
            assert_eq!(semis, (1..=4).map(seed).collect());
        }
    }
}
