//! Replays of finished games: one frame per turn (or Thud! ply), each the
//! board the room showed after it.

mod common;

use common::*;
use tabula_long::{Opening, Setup, Variant};
use tabula_room::{
    Action, BoardView, BotNeed, Command, Event, Frame, GameOptions, GameRecord, RoomConfig, SeatId,
    StartPosition, played_turn_frames, played_turns, replay, verify,
};

/// What the room showed while a game was played: the board after each
/// completed turn, pass or Thud! ply, with its mover.
struct Played {
    t: Table,
    boards: Vec<(SeatId, BoardView)>,
}

impl Played {
    fn record(&self) -> &GameRecord {
        self.t.room.records().last().expect("a finished game")
    }

    fn final_board(&self) -> BoardView {
        self.t.room.game().expect("a game").board_view()
    }
}

/// Plays the started game in `t` to its end (roll, the first legal step;
/// Thud!: the first legal move), noting the board after every turn.
fn play_out(mut t: Table) -> Played {
    let mut boards = Vec::new();
    for _ in 0..10_000 {
        let game = t.room.game().expect("a game");
        if game.result().is_some() {
            return Played { t, boards };
        }
        let (seat, need) = game.to_act().expect("someone acts");
        match need {
            BotNeed::Roll => {
                let ev = t.ok(actor(seat), Command::RollDice);
                if has(&ev, |e| matches!(e, Event::TurnPassed { .. })) {
                    boards.push((seat, t.room.game().unwrap().board_view()));
                }
            }
            BotNeed::Move => {
                if let Some(g) = game.thud_game() {
                    let mv = g.round().position().legal_moves()[0].to_string();
                    t.ok(actor(seat), Command::ThudMove { notation: mv });
                    boards.push((seat, t.room.game().unwrap().board_view()));
                } else {
                    let (first, ..) = t.possible();
                    t.step(seat, &first[0]);
                    let g = t.room.game().unwrap();
                    if g.result().is_some() || g.to_act() != Some((seat, BotNeed::Move)) {
                        boards.push((seat, g.board_view()));
                    }
                }
            }
            other => panic!("unexpected need {other:?}"),
        }
    }
    panic!("the game did not end");
}

fn seeded(options: GameOptions) -> RoomConfig {
    RoomConfig {
        options,
        master_seed: "replay-secret".into(),
        ..RoomConfig::default()
    }
}

fn passes(record: &GameRecord) -> usize {
    record
        .actions
        .iter()
        .filter(|a| matches!(a, Action::Pass { .. }))
        .count()
}

fn dice_game_frames_follow_the_played_turns(options: GameOptions) {
    let p = play_out(Table::started(seeded(options)));
    let record = p.record();
    let frames = replay(record).unwrap();
    let turns = played_turns(record).unwrap();
    // The start, then one frame per turn played or passed.
    assert!(turns.len() > 10, "{} turns", turns.len());
    assert_eq!(frames.len(), 1 + turns.len() + passes(record));
    assert_eq!(frames.len(), 1 + p.boards.len());
    let start = &frames[0];
    assert_eq!(
        (start.seat, start.dice, &start.notation),
        (None, None, &None)
    );
    // Each frame is the board the room showed after that turn, by its mover.
    for (i, (f, (seat, board))) in frames[1..].iter().zip(&p.boards).enumerate() {
        assert_eq!(f.seat, Some(*seat), "frame {}", i + 1);
        assert_eq!(&f.board, board, "frame {}", i + 1);
        assert!(f.dice.is_some(), "frame {}", i + 1);
    }
    assert_eq!(frames.last().unwrap().board, p.final_board());
    // The rolls, in order, are the record's (opening first roll included).
    let rolls: Vec<[u8; 2]> = record
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::Roll { dice, .. } => Some(*dice),
            Action::Opening {
                first_roll: Some(d),
                ..
            } => Some(*d),
            _ => None,
        })
        .collect();
    let frame_dice: Vec<[u8; 2]> = frames.iter().filter_map(|f| f.dice).collect();
    assert_eq!(frame_dice, rolls);
    // Played turns carry their notation; passes none.
    let played = played_turn_frames(record).unwrap();
    assert_eq!(played.len(), turns.len());
    for (i, turn) in &played {
        assert_eq!(
            frames[*i].notation.as_deref(),
            Some(tabula_room::turn_notation(turn).as_str())
        );
    }
    assert_eq!(
        played.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
        turns
    );
}

#[test]
fn a_long_nardy_replay_has_the_start_and_one_frame_per_turn() {
    dice_game_frames_follow_the_played_turns(GameOptions::default());
}

#[test]
fn a_backgammon_replay_has_the_start_and_one_frame_per_turn() {
    dice_game_frames_follow_the_played_turns(GameOptions::backgammon(Default::default()));
}

#[test]
fn a_replay_writes_long_nardy_in_seed_000s_form_and_backgammon_in_gnubgs() {
    let p = play_out(Table::started(seeded(GameOptions::default())));
    let frames = replay(p.record()).unwrap();
    let n = frames[1].notation.clone().unwrap();
    assert!(
        n.split(',').all(|s| s.parse::<tabula_long::Step>().is_ok()),
        "{n}"
    );
    let p = play_out(Table::started(seeded(GameOptions::backgammon(
        Default::default(),
    ))));
    let frames = replay(p.record()).unwrap();
    for f in frames.iter().skip(1) {
        let Some(n) = &f.notation else { continue };
        assert!(n.contains('/') && !n.contains(','), "{n}");
    }
    // A hit is marked somewhere in a whole game of first legal steps.
    assert!(
        frames
            .iter()
            .any(|f| f.notation.as_deref().is_some_and(|n| n.contains('*'))),
        "no hit in {frames:?}"
    );
}

#[test]
fn an_automatic_pass_is_a_frame_with_its_dice_and_no_notation() {
    // White only on its head and black holding 18: 6-6 cannot be played.
    let setup: Setup =
        serde_json::from_str(r#"{"turn":"white","white":{"24":15},"black":{"12":13,"18":2}}"#)
            .unwrap();
    let mut t = Table::started(RoomConfig {
        options: GameOptions::long(Variant {
            opening: Opening::WhiteFirst,
            ..Variant::default()
        }),
        start_position: Some(StartPosition::LongNardy(setup)),
        dice_script: Some(vec![[6, 6], [1, 2]]),
        ..seeded(GameOptions::default())
    });
    t.ok(alice(), Command::RollDice);
    t.ok(bob(), Command::RollDice);
    t.ok(bob(), Command::Resign);
    let record = &t.room.records()[0];
    let frames = replay(record).unwrap();
    // The start, A's pass; B rolled and resigned without a step: no frame.
    assert_eq!(frames.len(), 2, "{frames:?}");
    let pass = &frames[1];
    assert_eq!(pass.seat, Some(SeatId::A));
    assert_eq!(pass.dice, Some([6, 6]));
    assert_eq!(pass.notation, None);
    // The same checkers, black to move.
    let (BoardView::LongNardy { position: after }, BoardView::LongNardy { position: before }) =
        (&pass.board, &frames[0].board)
    else {
        panic!("long nardy boards");
    };
    assert_eq!((&after.white, &after.black), (&before.white, &before.black));
    assert_eq!(after.turn, tabula_long::Color::Black);
    let json = serde_json::to_value(pass).unwrap();
    assert_eq!(json["seat"], "a");
    assert_eq!(json["dice"], serde_json::json!([6, 6]));
    assert!(json["notation"].is_null());
    assert_eq!(json["board"]["game"], "long_nardy");
    assert!(played_turn_frames(record).unwrap().is_empty());
}

#[test]
fn a_turn_cut_short_by_a_resignation_is_a_frame_with_the_steps_played() {
    let mut t = Table::started(RoomConfig {
        options: GameOptions::long(Variant {
            opening: Opening::WhiteFirst,
            ..Variant::default()
        }),
        dice_script: Some(vec![[6, 5], [4, 2]]),
        ..seeded(GameOptions::default())
    });
    t.ok(alice(), Command::RollDice);
    t.step(SeatId::A, "24-18");
    t.ok(alice(), Command::Resign);
    let record = &t.room.records()[0];
    let frames = replay(record).unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1].notation.as_deref(), Some("24-18"));
    assert_eq!(frames[1].dice, Some([6, 5]));
    assert_eq!(frames[1].board, t.room.game().unwrap().board_view());
    // Not a finished turn: the analysis leaves it out.
    assert!(played_turn_frames(record).unwrap().is_empty());
}

#[test]
fn cube_actions_are_not_frames_and_do_not_break_the_replay() {
    let mut t = Table::started(RoomConfig {
        options: GameOptions::long(Variant {
            opening: Opening::WhiteFirst,
            ..Variant::default()
        }),
        match_length: 5,
        dice_script: Some(vec![[6, 5], [4, 2], [3, 1], [5, 5]]),
        ..seeded(GameOptions::default())
    });
    t.ok(alice(), Command::Double);
    t.ok(bob(), Command::Take);
    let p = play_out(t);
    let record = p.record();
    assert!(
        record
            .actions
            .iter()
            .any(|a| matches!(a, Action::Take { .. }))
    );
    let frames = replay(record).unwrap();
    assert_eq!(
        frames.len(),
        1 + played_turns(record).unwrap().len() + passes(record)
    );
    assert!(frames[1..].iter().all(|f| f.dice.is_some()));
    assert_eq!(frames.last().unwrap().board, p.final_board());
    // A dropped double ends the game with no frame of its own.
    let mut t = Table::started(RoomConfig {
        options: GameOptions::long(Variant {
            opening: Opening::WhiteFirst,
            ..Variant::default()
        }),
        match_length: 5,
        dice_script: Some(vec![[6, 5], [4, 2]]),
        ..seeded(GameOptions::default())
    });
    t.ok(alice(), Command::RollDice);
    t.step(SeatId::A, "24-18");
    t.step(SeatId::A, "18-13");
    t.ok(bob(), Command::Double);
    t.ok(alice(), Command::Drop);
    let frames = replay(&t.room.records()[0]).unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1].notation.as_deref(), Some("24-18,18-13"));
    assert_eq!(frames[1].board, t.room.game().unwrap().board_view());
}

#[test]
fn a_thud_replay_has_one_frame_per_ply_and_each_rounds_start() {
    let p = play_out(Table::started(seeded(
        GameOptions::thud(Default::default()),
    )));
    let record = p.record();
    let frames = replay(record).unwrap();
    let plies: Vec<&String> = record
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::ThudMove { notation, .. } => Some(notation),
            _ => None,
        })
        .collect();
    assert_eq!(plies.len(), p.boards.len());
    // The start, every ply, and round 2's start.
    assert_eq!(frames.len(), plies.len() + 2);
    let round = |b: &BoardView| match b {
        BoardView::Thud { round, .. } => *round,
        other => panic!("not a Thud! board: {other:?}"),
    };
    let mut live = p.boards.iter();
    let mut i = 1;
    let mut ply = 0;
    while i < frames.len() {
        let f = &frames[i];
        let (seat, board) = live.next().expect("a ply for each frame");
        assert_eq!(f.seat, Some(*seat), "frame {i}");
        assert_eq!(f.dice, None);
        assert_eq!(f.notation.as_ref(), Some(plies[ply]), "frame {i}");
        ply += 1;
        if round(&f.board) < round(board) {
            // The ply that ended round 1 shows round 1's end; round 2's
            // start, what the room then showed, follows as a start frame.
            let BoardView::Thud { legal_moves, .. } = &f.board else {
                unreachable!()
            };
            assert!(legal_moves.is_empty());
            let next: &Frame = &frames[i + 1];
            assert_eq!((next.seat, &next.notation), (None, &None));
            assert_eq!(&next.board, board, "frame {}", i + 1);
            i += 2;
        } else {
            assert_eq!(&f.board, board, "frame {i}");
            i += 1;
        }
    }
    assert_eq!(round(&frames.last().unwrap().board), 2);
    assert_eq!(frames.last().unwrap().board, p.final_board());
    assert!(played_turn_frames(record).unwrap().is_empty());
    let json = serde_json::to_value(&frames[1]).unwrap();
    assert!(json["dice"].is_null());
    assert_eq!(json["board"]["game"], "thud");
}

#[test]
fn a_tampered_record_is_refused_with_the_verify_error() {
    for options in [
        GameOptions::default(),
        GameOptions::backgammon(Default::default()),
        GameOptions::thud(Default::default()),
    ] {
        let p = play_out(Table::started(seeded(options)));
        let good = p.record().clone();
        let mut bad = good.clone();
        bad.setup.server_seed.push('x');
        assert_eq!(replay(&bad).unwrap_err(), verify(&bad).unwrap_err());
        assert!(played_turn_frames(&bad).is_err());
        // A step or ply taken out.
        let mut bad = good.clone();
        let i = bad
            .actions
            .iter()
            .position(|a| matches!(a, Action::Step { .. } | Action::ThudMove { .. }))
            .unwrap();
        bad.actions.remove(i);
        assert_eq!(replay(&bad).unwrap_err(), verify(&bad).unwrap_err());
        // The result changed.
        let mut bad = good;
        bad.result.points += 1;
        assert_eq!(replay(&bad).unwrap_err(), verify(&bad).unwrap_err());
    }
}
