//! Registration, the start, cancellation, no-shows, refused inputs.

mod support;

use support::*;
use tabula_tournament::{
    ConfigError, Format, Input, Outcome, Rejection, Status, Tournament, TournamentConfig,
};

#[test]
fn bad_configurations_are_refused() {
    let cases: &[(TournamentConfig, ConfigError)] = &[
        (
            TournamentConfig {
                match_points: 0,
                ..config(Format::Knockout)
            },
            ConfigError::MatchPoints,
        ),
        (
            TournamentConfig {
                max_players: Some(1),
                ..config(Format::Knockout)
            },
            ConfigError::MaxPlayers,
        ),
        (config(swiss(0)), ConfigError::Rounds),
        (config(arena(0)), ConfigError::Duration),
    ];
    for (c, want) in cases {
        assert_eq!(Tournament::new("t", c.clone()).unwrap_err(), *want);
    }
    let long = "x".repeat(31);
    for id in ["", "a:1", "a b", "ü", long.as_str()] {
        let err = Tournament::new(id, config(Format::Knockout)).unwrap_err();
        assert_eq!(err, ConfigError::Id, "{id:?}");
    }
    assert!(Tournament::new("Cup_2026-12", config(Format::Knockout)).is_ok());
}

#[test]
fn registration_accepts_refuses_and_withdraws() {
    let mut t = Tournament::new(
        "t",
        TournamentConfig {
            max_players: Some(2),
            ..config(swiss(3))
        },
    )
    .unwrap();
    assert_eq!(t.next_deadline(), Some(START));
    table(
        &mut t,
        &[
            (join("a", 1500), 1, &[]),
            (join("a", 1500), 2, &["rejected AlreadyJoined"]),
            (join("b", 1600), 3, &[]),
            (join("c", 1700), 4, &["rejected Full"]),
            (
                Input::Withdraw { player: p("z") },
                5,
                &["rejected UnknownPlayer"],
            ),
            (Input::Resume { player: p("a") }, 6, &["rejected NotPaused"]),
            (Input::Withdraw { player: p("a") }, 7, &[]),
            (join("c", 1700), 8, &[]),
            (Input::Tick, START - 1, &[]),
        ],
    );
    let names: Vec<String> = t.entrants().iter().map(|e| e.player.0.clone()).collect();
    assert_eq!(names, ["b", "c"]);
    assert_eq!(t.status(), Status::Registering);
}

#[test]
fn fewer_than_two_players_cancel_the_tournament() {
    for format in [Format::Knockout, swiss(3), arena(60_000)] {
        let mut t = with_players(format, &[("a", 1500)]);
        table(
            &mut t,
            &[
                (Input::Tick, START, &["cancelled", "announce cancelled"]),
                (join("b", 1500), START + 1, &["rejected Closed"]),
                (Input::Tick, START + 2, &[]),
            ],
        );
        assert_eq!(t.status(), Status::Cancelled);
        assert_eq!(t.next_deadline(), None);
    }
}

#[test]
fn any_input_after_the_start_time_starts_first() {
    let mut t = with_players(Format::Knockout, &[("a", 1500), ("b", 1400)]);
    table(
        &mut t,
        &[(
            join("c", 1600),
            START + 5,
            &[
                "started 2",
                "announce started 2",
                "round 1",
                "pair t:1:1 a-b",
                "announce round 1",
                "rejected LateJoinClosed",
            ],
        )],
    );
}

#[test]
fn a_no_show_forfeits_after_the_grace_and_is_paused() {
    let mut t = with_players(
        swiss(2),
        &[("a", 1800), ("b", 1700), ("c", 1600), ("d", 1500)],
    );
    let fx = t.apply(Input::Tick, START);
    assert_eq!(fx.len(), 6);
    assert_eq!(t.next_deadline(), Some(START + GRACE));
    table(
        &mut t,
        &[
            (
                Input::PlayerArrived {
                    game_id: g("t:1:1"),
                    player: p("b"),
                },
                START + 1,
                &["rejected NotInGame"],
            ),
            (
                Input::PlayerArrived {
                    game_id: g("t:9:9"),
                    player: p("b"),
                },
                START + 1,
                &["rejected UnknownGame"],
            ),
            (
                Input::PlayerArrived {
                    game_id: g("t:1:1"),
                    player: p("a"),
                },
                START + 2,
                &[],
            ),
            (started("t:1:2"), START + 3, &[]),
            (Input::Tick, START + GRACE - 1, &[]),
            // c never came: a wins by forfeit.
            (
                Input::Tick,
                START + GRACE,
                &["forfeit t:1:1 c", "standings"],
            ),
            (
                Input::PlayerArrived {
                    game_id: g("t:1:1"),
                    player: p("c"),
                },
                START + GRACE + 1,
                &["rejected GameOver { game_id: GameId(\"t:1:1\") }"],
            ),
            (
                result("t:1:1", Outcome::BlackWon),
                START + GRACE + 2,
                &["rejected DuplicateResult { game_id: GameId(\"t:1:1\") }"],
            ),
            (
                result("t:9:9", Outcome::BlackWon),
                START + GRACE + 2,
                &["rejected UnknownGame"],
            ),
            // c is paused: round 2 pairs the three others, one with a bye.
            (
                result("t:1:2", Outcome::WhiteWon),
                START + GRACE + 3,
                &[
                    "round 2",
                    "pair t:2:1 d-a",
                    "bye b",
                    "announce round 2",
                    "standings",
                ],
            ),
            (Input::Resume { player: p("c") }, START + GRACE + 4, &[]),
        ],
    );
    assert!(t.entrant(&p("c")).unwrap().tally.losses == 1);
    assert_recount(&t);
}

#[test]
fn both_absent_both_lose() {
    let mut t = with_players(arena(600_000), &[("a", 1800), ("b", 1700)]);
    t.apply(Input::Tick, START);
    table(
        &mut t,
        &[(
            Input::Tick,
            START + GRACE,
            &["forfeit t:a:1 a", "forfeit t:a:1 b", "standings"],
        )],
    );
    for who in ["a", "b"] {
        let e = t.entrant(&p(who)).unwrap();
        assert!(e.paused && e.tally.losses == 1 && e.tally.points == 0);
    }
    assert!(t.waiting().is_empty());
    let fx = t.apply(Input::Resume { player: p("a") }, START + GRACE + 1);
    assert!(fx.is_empty());
    assert_eq!(t.waiting().len(), 1);
    let fx = t.apply(Input::Pause { player: p("a") }, START + GRACE + 2);
    assert!(fx.is_empty());
    assert!(t.waiting().is_empty());
    let fx = t.apply(Input::Withdraw { player: p("a") }, START + GRACE + 3);
    assert!(fx.is_empty());
    let fx = t.apply(Input::Pause { player: p("a") }, START + GRACE + 4);
    assert_eq!(
        fx,
        [tabula_tournament::Effect::Rejected(Rejection::Withdrawn)]
    );
}

#[test]
fn a_takeover_does_not_charge_the_ownerless_time_to_absent_players() {
    let arrived = |who: &str| Input::PlayerArrived {
        game_id: g("t:1:1"),
        player: p(who),
    };
    for restored in [false, true] {
        let mut t = with_players(swiss(1), &[("a", 1800), ("b", 1700)]);
        t.apply(Input::Tick, START);
        t.apply(arrived("a"), START + 10);
        // The owner dies; a new one takes over long after the grace.
        let back = START + 2 * GRACE;
        let first = if restored {
            Input::Restored
        } else {
            Input::Tick
        };
        let fx: Vec<String> = t.apply(first, back).iter().map(line).collect();
        if restored {
            assert!(fx.is_empty());
            assert_eq!(t.next_deadline(), Some(back - 10 + GRACE));
            // b's arrival, delivered after the takeover, is in time.
            table(
                &mut t,
                &[
                    (arrived("b"), back + 1, &[]),
                    (Input::Tick, back + GRACE, &[]),
                ],
            );
        } else {
            assert_eq!(
                fx,
                [
                    "forfeit t:1:1 b",
                    "standings",
                    "finished a,b",
                    "announce podium a,b"
                ]
            );
        }
    }
}

#[test]
fn time_never_runs_backwards() {
    let mut t = with_players(swiss(1), &[("a", 1800), ("b", 1700)]);
    t.apply(Input::Tick, START + 5);
    // An input stamped earlier counts at the latest time seen.
    let fx = t.apply(Input::Tick, 0);
    assert!(fx.is_empty());
    assert_eq!(t.next_deadline(), Some(START + 5 + GRACE));
    assert_eq!(t.game(&g("t:1:1")).unwrap().paired_at_ms, START + 5);
}

#[test]
fn the_game_kind_is_spelled_as_the_rooms() {
    use tabula_tournament::GameKind;
    let pairs = [
        (GameKind::LongNardy, tabula_room::GameKind::LongNardy),
        (GameKind::Backgammon, tabula_room::GameKind::Backgammon),
        (GameKind::Thud, tabula_room::GameKind::Thud),
    ];
    for (ours, rooms) in pairs {
        let ours = serde_json::to_string(&ours).unwrap();
        assert_eq!(ours, serde_json::to_string(&rooms).unwrap());
        let back: tabula_room::GameKind = serde_json::from_str(&ours).unwrap();
        assert_eq!(back, rooms);
    }
}
