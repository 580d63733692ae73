//! Swiss: the pairing rules on tables of cases, a tournament of 30 over 5
//! rounds, late joining and withdrawal.

mod support;

use std::collections::{BTreeMap, BTreeSet};

use support::*;
use tabula_tournament::swiss::{Pairing, Seat, pair};
use tabula_tournament::{Colour, Effect, Format, Input, Outcome, PlayerId, Status};

fn seat(points: u32, rating: i32) -> Seat {
    Seat {
        points,
        rating,
        had_bye: false,
        colour_diff: 0,
        last_colour: None,
    }
}

fn fresh(ratings: &[i32]) -> Vec<Seat> {
    ratings.iter().map(|&r| seat(0, r)).collect()
}

struct Case {
    name: &'static str,
    seats: Vec<Seat>,
    played: &'static [(usize, usize)],
    boards: &'static [(usize, usize)],
    bye: Option<usize>,
}

#[test]
fn pairings_follow_the_rules_on_a_table_of_cases() {
    let mut had_bye = fresh(&[1500, 1400, 1300, 1200, 1100]);
    had_bye[4].had_bye = true;
    let mut colours = fresh(&[1600, 1500]);
    colours[0].colour_diff = 1;
    colours[0].last_colour = Some(Colour::White);
    colours[1].colour_diff = -1;
    colours[1].last_colour = Some(Colour::Black);
    let mut mild = fresh(&[1600, 1500]);
    mild[0].last_colour = Some(Colour::Black);
    mild[1].colour_diff = -1;
    mild[1].last_colour = Some(Colour::Black);
    let mut clash = fresh(&[1600, 1500, 1400, 1300]);
    clash[0].colour_diff = 2;
    clash[2].colour_diff = 2;
    let cases = vec![
        Case {
            name: "two: the higher rated is white on board 1",
            seats: fresh(&[1500, 1600]),
            played: &[],
            boards: &[(1, 0)],
            bye: None,
        },
        Case {
            name: "four: top half v bottom half, colours alternate by board",
            seats: fresh(&[1400, 1700, 1500, 1600]),
            played: &[],
            boards: &[(1, 2), (0, 3)],
            bye: None,
        },
        Case {
            name: "five: the lowest has the bye, 1 v 3, 2 v 4",
            seats: fresh(&[1500, 1400, 1300, 1200, 1100]),
            played: &[],
            boards: &[(0, 2), (3, 1)],
            bye: Some(4),
        },
        Case {
            name: "six: 1 v 4, 2 v 5, 3 v 6",
            seats: fresh(&[1600, 1500, 1400, 1300, 1200, 1100]),
            played: &[],
            boards: &[(0, 3), (4, 1), (2, 5)],
            bye: None,
        },
        Case {
            name: "equal ratings: the earlier joiner ranks higher",
            seats: fresh(&[1500, 1500, 1500, 1500]),
            played: &[],
            boards: &[(0, 2), (3, 1)],
            bye: None,
        },
        Case {
            name: "no second bye: the next lowest has it",
            seats: had_bye,
            played: &[],
            boards: &[(0, 2), (4, 1)],
            bye: Some(3),
        },
        Case {
            name: "score groups are paired apart",
            seats: vec![
                seat(2, 1200),
                seat(2, 1100),
                seat(0, 1900),
                seat(2, 1000),
                seat(0, 1800),
                seat(2, 900),
            ],
            played: &[],
            boards: &[(0, 3), (5, 1), (2, 4)],
            bye: None,
        },
        Case {
            name: "the odd player of a group floats to the top of the next",
            seats: vec![
                seat(2, 1600),
                seat(2, 1500),
                seat(2, 1400),
                seat(0, 1300),
                seat(0, 1200),
                seat(0, 1100),
            ],
            played: &[],
            boards: &[(0, 1), (3, 2), (4, 5)],
            bye: None,
        },
        Case {
            name: "a repeat is avoided by the next opponent",
            seats: fresh(&[1600, 1500, 1400, 1300]),
            played: &[(0, 2)],
            boards: &[(0, 3), (2, 1)],
            bye: None,
        },
        Case {
            name: "backtracking: the top pairs go down so the rest can pair",
            seats: fresh(&[1600, 1500, 1400, 1300]),
            played: &[(0, 2), (1, 2)],
            boards: &[(0, 1), (3, 2)],
            bye: None,
        },
        Case {
            name: "the bye moves up when the lowest cannot be left out",
            seats: fresh(&[1600, 1500, 1400]),
            played: &[(0, 1)],
            boards: &[(0, 2)],
            bye: Some(1),
        },
        Case {
            name: "strong colour preferences are both met",
            seats: colours,
            played: &[],
            boards: &[(1, 0)],
            bye: None,
        },
        Case {
            name: "a strong preference beats a mild one",
            seats: mild,
            played: &[],
            boards: &[(1, 0)],
            bye: None,
        },
        Case {
            name: "two who must both have black are not paired together",
            seats: clash,
            played: &[],
            boards: &[(3, 0), (1, 2)],
            bye: None,
        },
        Case {
            name: "too small a field repeats rather than stop",
            seats: fresh(&[1600, 1500]),
            played: &[(0, 1)],
            boards: &[(0, 1)],
            bye: None,
        },
    ];
    for case in cases {
        let played: BTreeSet<(usize, usize)> = case.played.iter().copied().collect();
        let want = Pairing {
            boards: case.boards.to_vec(),
            bye: case.bye,
        };
        assert_eq!(pair(&case.seats, &played), want, "{}", case.name);
    }
}

#[test]
fn rounds_follow_results_and_the_tournament_ends_after_the_last() {
    let mut t = with_players(
        swiss(2),
        &[
            ("a", 1800),
            ("b", 1700),
            ("c", 1600),
            ("d", 1500),
            ("e", 1400),
        ],
    );
    table(
        &mut t,
        &[
            (
                Input::Tick,
                START,
                &[
                    "started 5",
                    "announce started 5",
                    "round 1",
                    "pair t:1:1 a-c",
                    "pair t:1:2 d-b",
                    "bye e",
                    "announce round 1",
                    "standings",
                ],
            ),
            (started("t:1:1"), START + 1, &[]),
            (started("t:1:2"), START + 1, &[]),
            (
                result("t:1:1", Outcome::WhiteWon),
                START + 10,
                &["standings"],
            ),
            // Scores: a 2, e 2 (bye), b 2 (won as black), c 0, d 0: d has the
            // bye, a (white) has black against b (black).
            (
                result("t:1:2", Outcome::BlackWon),
                START + 20,
                &[
                    "round 2",
                    "pair t:2:1 b-a",
                    "pair t:2:2 c-e",
                    "bye d",
                    "announce round 2",
                    "standings",
                ],
            ),
            (started("t:2:1"), START + 21, &[]),
            (started("t:2:2"), START + 21, &[]),
            (result("t:2:1", Outcome::Draw), START + 30, &["standings"]),
            (
                result("t:2:2", Outcome::WhiteWon),
                START + 40,
                &["standings", "finished a,b,c,d,e", "announce podium a,b,c"],
            ),
        ],
    );
    assert_eq!(t.status(), Status::Finished);
    assert_recount(&t);
}

fn field(n: usize) -> Vec<(String, i32)> {
    (0..n)
        .map(|i| (format!("p{i:02}"), 1200 + 13 * ((i as i32 * 7) % 30)))
        .collect()
}

/// 30 players (and 29), 5 rounds, seeded random results (with draws, no-shows and
/// results sent twice in some runs): no pair meets twice, at most one bye
/// each, every active player paired or given the bye each round, colours
/// balanced, and the standings equal a recount of the records.
#[test]
fn thirty_players_over_five_rounds() {
    let behaviours = [
        Behaviour::default(),
        Behaviour {
            draws: 10,
            duplicates: 10,
            ..Behaviour::default()
        },
        Behaviour {
            no_show: 3,
            draws: 5,
            ..Behaviour::default()
        },
    ];
    for seed in 0..20u64 {
        let how = &behaviours[seed as usize % behaviours.len()];
        // 30 players, and 29 in every fourth run, for the byes.
        let n = if seed % 4 == 3 { 29 } else { 30 };
        let players = field(n);
        let names: Vec<(&str, i32)> = players.iter().map(|(n, r)| (n.as_str(), *r)).collect();
        let t = with_players(swiss(5), &names);
        let mut meetings = BTreeSet::new();
        let mut byes: BTreeMap<PlayerId, u32> = BTreeMap::new();
        let played = play(t, seed, how, |t, _, fx, _| {
            let mut seen = BTreeSet::new();
            let mut round_started = false;
            for e in fx {
                match e {
                    Effect::RoundStarted { .. } => round_started = true,
                    Effect::Pair { white, black, .. } => {
                        let m = (white.min(black).clone(), white.max(black).clone());
                        assert!(
                            meetings.insert(m),
                            "seed {seed}: {white} and {black} met twice"
                        );
                        assert!(seen.insert(white.clone()) && seen.insert(black.clone()));
                    }
                    Effect::Bye { player, .. } => {
                        *byes.entry(player.clone()).or_default() += 1;
                        assert!(seen.insert(player.clone()));
                    }
                    _ => {}
                }
            }
            if round_started {
                let active: BTreeSet<PlayerId> = t
                    .entrants()
                    .iter()
                    .filter(|e| !e.withdrawn && !e.paused)
                    .map(|e| e.player.clone())
                    .collect();
                assert_eq!(seen, active, "seed {seed}: everyone active is paired");
            }
        });
        let t = played.tournament;
        assert_eq!(t.status(), Status::Finished);
        assert_eq!(t.round(), 5);
        assert!(byes.values().all(|&n| n <= 1), "seed {seed}: {byes:?}");
        if how.no_show == 0 {
            assert_eq!(t.records().len(), 5 * (n / 2 + n % 2));
            assert_eq!(byes.len(), 5 * (n % 2));
            for e in t.entrants() {
                assert!(
                    e.colour_diff.abs() <= 2,
                    "seed {seed}: {} {}",
                    e.player,
                    e.colour_diff
                );
            }
        }
        assert_recount(&t);
        let rows = t.standings().rows;
        assert!(rows.windows(2).all(|w| w[0].points >= w[1].points));
    }
}

#[test]
fn a_late_joiner_starts_from_zero_until_the_documented_round() {
    let format = Format::Swiss {
        rounds: 3,
        late_join_until_round: 2,
    };
    let mut t = with_players(format, &[("a", 1800), ("b", 1700)]);
    table(
        &mut t,
        &[
            (
                Input::Tick,
                START,
                &[
                    "started 2",
                    "announce started 2",
                    "round 1",
                    "pair t:1:1 a-b",
                    "announce round 1",
                ],
            ),
            (join("c", 2000), START + 5, &[]),
            (join("c", 2000), START + 6, &["rejected AlreadyJoined"]),
            (started("t:1:1"), START + 7, &[]),
            (
                result("t:1:1", Outcome::WhiteWon),
                START + 10,
                &[
                    "round 2",
                    "pair t:2:1 c-a",
                    "bye b",
                    "announce round 2",
                    "standings",
                ],
            ),
            (join("d", 1000), START + 11, &["rejected LateJoinClosed"]),
            (Input::Withdraw { player: p("c") }, START + 12, &[]),
            (started("t:2:1"), START + 13, &[]),
            // c's game still counts; he is not paired again.
            (
                result("t:2:1", Outcome::WhiteWon),
                START + 20,
                &["round 3", "pair t:3:1 b-a", "announce round 3", "standings"],
            ),
        ],
    );
    let c = t.entrant(&p("c")).unwrap();
    assert_eq!((c.tally.points, c.tally.games), (2, 1));
}

/// A big field over many rounds still pairs every round without repeats
/// (the search stays within its budget).
#[test]
fn two_hundred_players_over_nine_rounds() {
    let players = field(201);
    let names: Vec<(&str, i32)> = players.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let t = with_players(swiss(9), &names);
    let mut meetings = BTreeSet::new();
    let played = play(t, 7, &Behaviour::default(), |_, _, fx, _| {
        for e in fx {
            if let Effect::Pair { white, black, .. } = e {
                let m = (white.min(black).clone(), white.max(black).clone());
                assert!(meetings.insert(m), "{white} and {black} met twice");
            }
        }
    });
    assert_eq!(played.tournament.records().len(), 9 * 101);
    assert_recount(&played.tournament);
}

/// Whether the players left can be paired without a repeat (brute force).
fn perfect(left: &[usize], played: &BTreeSet<(usize, usize)>) -> bool {
    let Some((&p, rest)) = left.split_first() else {
        return true;
    };
    rest.iter().enumerate().any(|(k, &q)| {
        let others: Vec<usize> = rest
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .map(|(_, &x)| x)
            .collect();
        !played.contains(&(p.min(q), p.max(q))) && perfect(&others, played)
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// On small random fields: everyone is paired once or has the bye; the
    /// bye only for an odd field and to a player without one when there is
    /// such a player; and no repeat whenever a pairing without one exists
    /// (the search is complete).
    #[test]
    fn the_search_finds_a_pairing_without_repeats_when_there_is_one(
        raw in proptest::collection::vec((0u32..4, 1400i32..1600, proptest::bool::ANY, -2i32..=2), 2..10),
        edges in proptest::collection::vec((0usize..10, 0usize..10), 0..25),
    ) {
        let n = raw.len();
        let seats: Vec<Seat> = raw
            .iter()
            .map(|&(points, rating, had_bye, colour_diff)| Seat {
                points,
                rating,
                had_bye,
                colour_diff,
                last_colour: None,
            })
            .collect();
        let played: BTreeSet<(usize, usize)> = edges
            .into_iter()
            .filter(|&(a, b)| a < n && b < n && a != b)
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        let pairing = pair(&seats, &played);
        let mut seen: Vec<usize> = pairing.boards.iter().flat_map(|&(w, b)| [w, b]).collect();
        seen.extend(pairing.bye);
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        assert_eq!(pairing.bye.is_some(), n % 2 == 1);
        let all: Vec<usize> = (0..n).collect();
        let fresh = |c: &usize| !seats[*c].had_bye;
        if let Some(bye) = pairing.bye
            && all.iter().any(fresh)
        {
            assert!(!seats[bye].had_bye, "a second bye though someone had none");
        }
        let possible = if n % 2 == 0 {
            perfect(&all, &played)
        } else {
            all.iter().filter(|c| fresh(c)).any(|&c| {
                let rest: Vec<usize> = all.iter().copied().filter(|&x| x != c).collect();
                perfect(&rest, &played)
            })
        };
        let repeats = pairing
            .boards
            .iter()
            .filter(|&&(w, b)| played.contains(&(w.min(b), w.max(b))))
            .count();
        if possible {
            assert_eq!(repeats, 0, "{pairing:?} repeats though a pairing without exists");
        }
    }
}
