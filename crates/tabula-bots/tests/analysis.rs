//! Replay analysis of games played through the room: one entry per
//! finished turn, numbered as the replay's frames, the hint's best play
//! ranked first and losing nothing.

use tabula_bots::analysis::{AnalysisError, analyse};
use tabula_bots::hint;
use tabula_room::{
    Actor, BotNeed, Command, GameOptions, GameRecord, PlayedTurn, PlayerId, Room, RoomConfig,
    SeatId, Spot, StartPosition, replay,
};

fn actor(seat: SeatId) -> Actor {
    Actor::Player(PlayerId::new(match seat {
        SeatId::A => "alice",
        SeatId::B => "bob",
    }))
}

/// Plays a game to its end through the room: seat A always the hints'
/// best play, seat B always their worst (Thud!: the first legal move).
fn play(config: RoomConfig) -> GameRecord {
    let mut room = Room::new(config);
    let mut now = 1_000;
    let mut send = |room: &mut Room, seat: SeatId, cmd: Command| {
        now += 100;
        let c = format!("{cmd:?}");
        if let Err(e) = room.apply(cmd, actor(seat), now) {
            panic!("{c} refused: {e}");
        }
    };
    for seat in SeatId::BOTH {
        send(&mut room, seat, Command::Sit { seat: Some(seat) });
    }
    for seat in SeatId::BOTH {
        send(&mut room, seat, Command::Ready);
    }
    for _ in 0..5_000 {
        let game = room.game().expect("a game");
        if game.result().is_some() {
            return room.records().last().expect("a record").clone();
        }
        let (seat, need) = game.to_act().expect("someone acts");
        let cmd = match need {
            BotNeed::Roll => Command::RollDice,
            BotNeed::Move => {
                if let Some(g) = game.thud_game() {
                    Command::ThudMove {
                        notation: g.round().position().legal_moves()[0].to_string(),
                    }
                } else {
                    let steps = match game.turn_start().expect("a turn to play") {
                        PlayedTurn::LongNardy { dice, start, .. } => {
                            let hints = hint::long_nardy(&start, dice, 0, 1);
                            let h = if seat == SeatId::A {
                                hints.first()
                            } else {
                                hints.last()
                            };
                            h.expect("a legal play")
                                .play
                                .iter()
                                .map(|s| Spot::parse_step(&s.to_string()).expect("a step"))
                                .collect()
                        }
                        PlayedTurn::Backgammon { dice, start, .. } => {
                            let hints = hint::backgammon(
                                &start,
                                dice,
                                game.options().backgammon.scoring,
                                0,
                                1,
                            );
                            let h = if seat == SeatId::A {
                                hints.first()
                            } else {
                                hints.last()
                            };
                            let spot = |p: u8| match p {
                                25 => Spot::Bar,
                                0 => Spot::Off,
                                n => Spot::Point(n),
                            };
                            h.expect("a legal play")
                                .play
                                .iter()
                                .map(|&(f, t)| (spot(f), spot(t)))
                                .collect()
                        }
                        other => panic!("not a dice turn: {other:?}"),
                    };
                    Command::Turn { steps }
                }
            }
            other => panic!("unexpected need {other:?}"),
        };
        send(&mut room, seat, cmd);
    }
    panic!("the game did not end");
}

fn seeded(options: GameOptions) -> RoomConfig {
    RoomConfig {
        options,
        master_seed: "analysis-secret".into(),
        ..RoomConfig::default()
    }
}

/// A long nardy game that opens with a pass: white all on his head,
/// black holding 18, and a 6-6 first (the rest of the script cycles).
fn opening_with_a_pass() -> RoomConfig {
    let setup =
        serde_json::from_str(r#"{"turn":"white","white":{"24":15},"black":{"12":13,"18":2}}"#)
            .expect("a position");
    RoomConfig {
        start_position: Some(StartPosition::LongNardy(setup)),
        dice_script: Some(vec![
            [6, 6],
            [5, 3],
            [4, 1],
            [6, 2],
            [3, 3],
            [5, 4],
            [2, 1],
            [6, 5],
            [4, 4],
            [3, 2],
            [6, 1],
            [5, 5],
            [4, 3],
            [2, 2],
            [6, 4],
            [5, 1],
            [1, 1],
            [6, 3],
            [5, 2],
            [4, 2],
            [3, 1],
        ]),
        ..seeded(GameOptions::default())
    }
}

fn check(record: &GameRecord) {
    let a = analyse(record, 0, 1).unwrap();
    let frames = replay(record).unwrap();
    // One entry per finished turn: every frame with a play, in order.
    let with_play: Vec<usize> = (1..frames.len())
        .filter(|&i| frames[i].notation.is_some())
        .collect();
    let numbers: Vec<usize> = a.turns.iter().map(|t| t.turn).collect();
    assert_eq!(numbers, with_play);
    assert!(a.turns.len() > 10, "{} turns", a.turns.len());
    for t in &a.turns {
        // Turn N is frames[N]: its mover, its roll, its play.
        let f = &frames[t.turn];
        assert_eq!(f.seat, Some(t.seat), "{t:?}");
        assert_eq!(f.dice, Some(t.dice), "{t:?}");
        assert_eq!(f.notation.as_deref(), Some(t.played.as_str()), "{t:?}");
        assert!(t.rank >= 1 && t.rank <= t.plays, "{t:?}");
        assert!(t.equity_lost >= 0.0, "{t:?}");
        if t.seat == SeatId::A {
            // A played the hint's best every time.
            assert_eq!(t.rank, 1, "{t:?}");
            assert_eq!(t.equity_lost, 0.0, "{t:?}");
            assert_eq!(t.played, t.best, "{t:?}");
        } else {
            // B the worst.
            assert_eq!(t.rank, t.plays, "{t:?}");
        }
        if t.rank == 1 {
            assert_eq!(t.equity_lost, 0.0, "{t:?}");
        }
    }
    assert_eq!(a.per_seat.a.turns + a.per_seat.b.turns, a.turns.len());
    assert_eq!(a.per_seat.a.equity_lost, 0.0);
    assert_eq!(a.per_seat.a.best_play_rate, 1.0);
    assert!(a.per_seat.b.equity_lost > 0.0, "{:?}", a.per_seat);
    assert!(a.per_seat.b.best_play_rate < 1.0, "{:?}", a.per_seat);
    let b = &a.per_seat.b;
    assert!((b.mean_equity_lost - b.equity_lost / b.turns as f64).abs() < 1e-12);
    // The same inputs give the same analysis.
    assert_eq!(analyse(record, 0, 1).unwrap(), a);
}

#[test]
fn a_long_nardy_game_is_analysed_turn_by_turn_as_the_replay_numbers_it() {
    let record = play(opening_with_a_pass());
    let frames = replay(&record).unwrap();
    // The first frame after the start is A's pass: no entry, and the
    // analysis starts at turn 2.
    assert_eq!(frames[1].notation, None);
    assert_eq!(frames[1].dice, Some([6, 6]));
    check(&record);
    assert_eq!(analyse(&record, 0, 1).unwrap().turns[0].turn, 2);
}

#[test]
fn a_backgammon_game_is_analysed_turn_by_turn_as_the_replay_numbers_it() {
    let record = play(seeded(GameOptions::backgammon(Default::default())));
    check(&record);
    let a = analyse(&record, 0, 1).unwrap();
    // Standard notation, as the frames write it.
    assert!(a.turns.iter().all(|t| t.played.contains('/')));
}

#[test]
fn the_analysis_serialises_in_camel_case() {
    let record = play(seeded(GameOptions::backgammon(Default::default())));
    let v = serde_json::to_value(analyse(&record, 0, 1).unwrap()).unwrap();
    let t = &v["turns"][0];
    for key in [
        "turn",
        "seat",
        "dice",
        "played",
        "best",
        "rank",
        "plays",
        "equityLost",
    ] {
        assert!(!t[key].is_null(), "{key} in {t}");
    }
    assert!(t["seat"] == "a" || t["seat"] == "b", "{t}");
    assert_eq!(t["dice"].as_array().unwrap().len(), 2);
    for seat in ["a", "b"] {
        let s = &v["perSeat"][seat];
        for key in ["turns", "equityLost", "meanEquityLost", "bestPlayRate"] {
            assert!(s[key].is_number(), "{key} in {s}");
        }
    }
}

#[test]
fn thud_and_tampered_records_are_refused() {
    let thud = play(seeded(GameOptions::thud(Default::default())));
    assert_eq!(
        analyse(&thud, 0, 1).unwrap_err(),
        AnalysisError::NotDiceGame(tabula_room::GameKind::Thud)
    );
    let mut bad = play(seeded(GameOptions::default()));
    bad.setup.server_seed.push('x');
    assert!(matches!(
        analyse(&bad, 0, 1).unwrap_err(),
        AnalysisError::Verify(tabula_room::VerifyError::CommitmentMismatch { .. })
    ));
}
