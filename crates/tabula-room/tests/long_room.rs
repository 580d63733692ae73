//! Room core rules for long nardy, each driven by a scripted clock and
//! scripted (or seed-derived) dice.

mod common;

use common::*;
use tabula_long::{Opening, Setup, Variant};
use tabula_room::{
    Audience, BotNeed, Command, EVENT_LOG_KEEP, EndReason, EngineError, Envelope, Event,
    GameOptions, GameResult, MovesView, Phase, PlayerId, PlayerResult, ResultKind, RoomConfig,
    RoomError, SeatId, Spot, Stake, StartPosition, fair,
};

fn white_first() -> GameOptions {
    GameOptions::long(Variant {
        opening: Opening::WhiteFirst,
        ..Variant::default()
    })
}

fn scripted(options: GameOptions, rolls: &[[u8; 2]]) -> RoomConfig {
    RoomConfig {
        options,
        master_seed: "master".into(),
        dice_script: Some(rolls.to_vec()),
        ..RoomConfig::default()
    }
}

fn from_position(json: &str, rolls: &[[u8; 2]]) -> RoomConfig {
    let setup: Setup = serde_json::from_str(json).unwrap();
    RoomConfig {
        start_position: Some(StartPosition::LongNardy(setup)),
        ..scripted(white_first(), rolls)
    }
}

#[test]
fn game_starts_only_when_both_players_press_ready() {
    // Given two seated players
    let mut t = Table::seated(RoomConfig {
        master_seed: "m".into(),
        ..RoomConfig::default()
    });
    assert_eq!(t.room.phase(), Phase::WaitingForPlayer);
    // When only A presses Ready
    let ev = t.ok(alice(), Command::Ready);
    // Then nothing starts
    assert!(!has(&ev, |e| matches!(e, Event::GameStarted { .. })));
    assert_eq!(t.room.phase(), Phase::WaitingForPlayer);
    assert_eq!(
        t.try_cmd(alice(), Command::Ready).unwrap_err(),
        RoomError::AlreadyReady
    );
    // When B presses Ready too
    let ev = t.ok(bob(), Command::Ready);
    // Then the game starts with the server seed committed
    let seed = fair::game_server_seed("m", 1);
    assert!(has(
        &ev,
        |e| matches!(e, Event::GameStarted { commitment, game_number: 1, .. }
        if *commitment == fair::commitment(&seed))
    ));
    assert_eq!(t.room.phase(), Phase::Playing);
}

#[test]
fn rolling_before_the_game_starts_is_refused() {
    let mut t = Table::seated(RoomConfig::default());
    assert_eq!(
        t.try_cmd(alice(), Command::RollDice).unwrap_err(),
        RoomError::GameNotStarted
    );
    assert_eq!(
        t.try_cmd(PlayerIdActor::carol(), Command::Ready)
            .unwrap_err(),
        RoomError::NotSeated
    );
}

struct PlayerIdActor;
impl PlayerIdActor {
    fn carol() -> tabula_room::Actor {
        tabula_room::Actor::Player(tabula_room::PlayerId::new("carol"))
    }
}

#[test]
fn opening_roll_rerolls_ties_and_becomes_the_starters_first_move() {
    // Given the default opening (the opening roll plays) and dice 3-3, 2-5
    let cfg = scripted(GameOptions::default(), &[[3, 3], [2, 5], [1, 1]]);
    let mut t = Table::seated(cfg);
    t.ok(alice(), Command::Ready);
    // When both are ready
    let ev = t.ok(bob(), Command::Ready);
    // Then the tie is rerolled, black (B, with the 5) starts with 5-2
    assert!(has(
        &ev,
        |e| matches!(e, Event::OpeningRoll { rolls, starter: SeatId::B, first_roll: Some([5, 2]) }
        if *rolls == vec![[3, 3], [2, 5]])
    ));
    // and B is already on move with 5-2, without rolling
    let (first, seqs, left) = t.possible();
    assert_eq!(left, vec![5, 2]);
    assert!(first.contains(&"12-7".to_string()), "{first:?}");
    assert!(!seqs.is_empty());
    assert_eq!(
        t.try_cmd(bob(), Command::RollDice).unwrap_err(),
        RoomError::AlreadyRolled
    );
    assert_eq!(
        t.try_cmd(
            alice(),
            Command::Move {
                from: Spot::Point(24),
                to: Spot::Point(19)
            }
        )
        .unwrap_err(),
        RoomError::NotYourTurn
    );
}

#[test]
fn opening_roll_rerolls_option_makes_the_starter_roll_afresh() {
    let mut o = GameOptions::default();
    o.long.opening = Opening::OpeningRollRerolls;
    let mut t = Table::seated(scripted(o, &[[6, 1], [4, 4]]));
    t.ok(alice(), Command::Ready);
    let ev = t.ok(bob(), Command::Ready);
    assert!(has(&ev, |e| matches!(
        e,
        Event::OpeningRoll {
            starter: SeatId::A,
            first_roll: None,
            ..
        }
    )));
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::A,
            ..
        }
    )));
    let ev = t.ok(alice(), Command::RollDice);
    assert!(has(&ev, |e| matches!(
        e,
        Event::DiceRolled {
            dice: [4, 4],
            roll_index: 1,
            ..
        }
    )));
}

#[test]
fn roll_then_single_steps_list_continuations_and_end_the_turn() {
    // Given white to move first and dice 6-5
    let mut t = Table::started(scripted(white_first(), &[[6, 5]]));
    // When A rolls
    let ev = t.ok(alice(), Command::RollDice);
    assert!(has(&ev, |e| matches!(
        e,
        Event::DiceRolled {
            seat: SeatId::A,
            dice: [6, 5],
            ..
        }
    )));
    // Then the legal first steps and one sequence per distinct final
    let (first, seqs, left) = t.possible();
    assert_eq!(left, vec![6, 5]);
    assert!(first.contains(&"24-18".to_string()) && first.contains(&"24-19".to_string()));
    assert!(seqs.contains(&"24-18,18-13".to_string()) || seqs.contains(&"24-19,19-13".to_string()));
    assert_eq!(
        seqs.len(),
        1,
        "only one checker may leave the head: {seqs:?}"
    );
    // When A plays one step
    let ev = t.step(SeatId::A, "24-18");
    // Then the continuations are for the 5 left
    assert!(has(
        &ev,
        |e| matches!(e, Event::Moved { seat: SeatId::A, notation, .. } if notation == "24-18")
    ));
    let (first, seqs, left) = t.possible();
    assert_eq!(left, vec![5]);
    assert_eq!(first, vec!["18-13".to_string()]);
    assert_eq!(seqs, vec!["18-13".to_string()]);
    // When A plays the last die, the turn passes to B
    let ev = t.step(SeatId::A, "18-13");
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::B,
            ..
        }
    )));
}

#[test]
fn an_illegal_step_is_refused_with_the_engines_reason_and_changes_nothing() {
    let mut t = Table::started(scripted(white_first(), &[[6, 5]]));
    t.ok(alice(), Command::RollDice);
    let before = t.room.version();
    let log_len = t.room.log().len();
    let err = t
        .try_cmd(
            alice(),
            Command::Move {
                from: Spot::Point(24),
                to: Spot::Point(20),
            },
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            RoomError::Illegal(EngineError::Long(tabula_long::StepError::DieNotAvailable {
                distance: 4,
                ..
            }))
        ),
        "{err:?}"
    );
    assert_eq!(t.room.version(), before);
    assert_eq!(t.room.log().len(), log_len);
    // B may not move for A
    assert_eq!(
        t.try_cmd(bob(), Command::RollDice).unwrap_err(),
        RoomError::NotYourTurn
    );
}

#[test]
fn a_roll_with_no_legal_play_passes_automatically_and_the_arbiter_says_so() {
    // Given white only on its head and black holding 18: 6-6 cannot be played
    let mut t = Table::started(from_position(
        r#"{"turn":"white","white":{"24":15},"black":{"12":13,"18":2}}"#,
        &[[6, 6], [1, 2]],
    ));
    // When A rolls 6-6
    let ev = t.ok(alice(), Command::RollDice);
    // Then the turn passes, the arbiter writes to the chat, B is on turn
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnPassed {
            seat: SeatId::A,
            dice: [6, 6]
        }
    )));
    let lines = arbiter_lines(&ev);
    assert_eq!(
        lines,
        vec![
            "Белые: выпало 6:6, допустимых ходов нет — ход пропускается автоматически.".to_string()
        ]
    );
    // The line is also a key with params, in the event and in the state's
    // recent chat (and so after a restore).
    assert!(has(&ev, |e| matches!(
        e,
        Event::Chat {
            narration: Some(tabula_room::Narration::AutoPass {
                seat: SeatId::A,
                dice: [6, 6]
            }),
            ..
        }
    )));
    let chat = serde_json::to_value(&t.room.view().chat).unwrap();
    assert_eq!(chat[0]["key"], "autoPass", "{chat}");
    assert_eq!(
        chat[0]["params"],
        serde_json::json!({"seat": "a", "dice": [6, 6]})
    );
    let back = tabula_room::Room::restore(&t.room.snapshot()).unwrap();
    assert_eq!(back.view().chat, t.room.view().chat);
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::B,
            ..
        }
    )));
}

#[test]
fn resigning_before_bearing_off_loses_a_mars_with_the_stake_message() {
    // Given a game with a stake
    let mut t = Table::started(RoomConfig {
        stake: Some(Stake {
            amount: 100,
            currency: "TON".into(),
        }),
        ..scripted(white_first(), &[[6, 5]])
    });
    // When A resigns before bearing off anything
    let ev = t.try_cmd(alice(), Command::Resign).unwrap();
    // Then B wins a mars (2 points); game_over to each seat
    let over: Vec<_> = ev
        .iter()
        .filter_map(|e| match &*e.event {
            Event::GameOver {
                result,
                points,
                kind,
                message,
                ..
            } => Some((e.to.clone(), *result, *points, *kind, message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        over,
        vec![
            (
                Audience::Seat(SeatId::A),
                PlayerResult::Lose,
                2,
                ResultKind::Mars,
                "LOST 200 TON.".to_string()
            ),
            (
                Audience::Seat(SeatId::B),
                PlayerResult::Win,
                2,
                ResultKind::Mars,
                "WIN 200 TON.".to_string()
            ),
        ]
    );
    let events: Vec<Event> = ev.into_iter().map(|e| (*e.event).clone()).collect();
    assert_eq!(
        arbiter_lines(&events),
        vec![
            "Белые сдаются.".to_string(),
            "Победа: марс (2 очка)".to_string()
        ]
    );
    assert_eq!(t.room.phase(), Phase::Finished);
    assert!(has(
        &events,
        |e| matches!(e, Event::GameEnded { result, .. }
        if result.reason == EndReason::Resigned && result.winner == Some(SeatId::B))
    ));
}

#[test]
fn resigning_after_bearing_off_loses_an_oin() {
    // Given white has borne off ten
    let mut t = Table::started(RoomConfig {
        stake: Some(Stake {
            amount: 100,
            currency: "TON".into(),
        }),
        ..from_position(
            r#"{"turn":"white","white":{"1":5},"black":{"12":15},"off":{"white":10,"black":0}}"#,
            &[[1, 2]],
        )
    });
    // When white resigns
    let ev = t.ok(alice(), Command::Resign);
    // Then black wins an oin: 1 point
    assert!(arbiter_lines(&ev).contains(&"Победа: оин (1 очко)".to_string()));
    assert!(has(
        &ev,
        |e| matches!(e, Event::GameOver { result: PlayerResult::Win, points: 1, kind: ResultKind::Oin, message, .. } if message == "WIN 100 TON.")
    ));
}

#[test]
fn standing_up_during_a_game_is_a_resignation() {
    let mut t = Table::started(scripted(white_first(), &[[6, 5]]));
    let ev = t.ok(bob(), Command::StandUp);
    assert!(has(&ev, |e| matches!(e, Event::GameEnded { result, .. }
        if result.reason == EndReason::StoodUp && result.winner == Some(SeatId::A) && result.kind == ResultKind::Mars)));
    assert!(has(&ev, |e| matches!(
        e,
        Event::SeatFreed {
            seat: SeatId::B,
            ..
        }
    )));
}

#[test]
fn bearing_off_the_last_checker_wins_koks_when_the_loser_is_still_on_his_head() {
    let mut t = Table::started(from_position(
        r#"{"turn":"white","white":{"1":1},"black":{"12":15},"off":{"white":14,"black":0}}"#,
        &[[1, 2]],
    ));
    t.ok(alice(), Command::RollDice);
    let ev = t.step(SeatId::A, "1-off");
    assert!(arbiter_lines(&ev).contains(&"Победа: кокс (3 очка)".to_string()));
    assert!(has(&ev, |e| matches!(e, Event::GameEnded { result, .. }
        if result.reason == EndReason::BorneOff && result.points == 3)));
}

#[test]
fn a_player_disconnected_past_the_grace_period_loses_and_the_opponent_is_told() {
    // Given a game with the default 30 s grace
    let mut t = Table::started(scripted(white_first(), &[[6, 5]]));
    // When A disconnects at t
    let ev = t.ok(alice(), Command::Disconnected);
    let t0 = t.now;
    assert!(has(
        &ev,
        |e| matches!(e, Event::PlayerDisconnected { seat: SeatId::A, deadline } if *deadline == t0 + 30_000)
    ));
    assert_eq!(t.room.next_deadline(), Some(t0 + 30_000));
    // Then nothing happens before the deadline
    assert!(t.room.tick(t0 + 29_999).is_empty());
    // When the deadline passes
    let ev = t.room.tick(t0 + 30_000);
    // Then B gets opponent_left and A loses by the resign rule (mars)
    assert!(ev.iter().any(
        |e| e.to == Audience::Seat(SeatId::B) && matches!(*e.event, Event::OpponentLeft { .. })
    ));
    assert!(ev.iter().any(|e| matches!(&*e.event, Event::GameEnded { result, .. }
        if result.reason == EndReason::Disconnected && result.kind == ResultKind::Mars && result.winner == Some(SeatId::B))));
    assert_eq!(t.room.next_deadline(), None);
}

#[test]
fn reconnecting_within_the_grace_period_keeps_the_game_going() {
    let mut t = Table::started(RoomConfig {
        grace_ms: 5_000,
        ..scripted(white_first(), &[[6, 5]])
    });
    t.ok(alice(), Command::Disconnected);
    let t0 = t.now;
    let ev = t.ok(alice(), Command::Connected);
    assert!(has(&ev, |e| matches!(
        e,
        Event::PlayerReconnected { seat: SeatId::A }
    )));
    assert!(t.room.tick(t0 + 60_000).is_empty());
    assert_eq!(t.room.phase(), Phase::Playing);
}

#[test]
fn snapshot_mid_turn_restores_a_room_with_the_same_future() {
    // Given a game with seed-derived dice, one step into A's first turn
    let mut t = Table::started(RoomConfig {
        options: white_first(),
        master_seed: "snapshot".into(),
        ..RoomConfig::default()
    });
    t.ok(alice(), Command::RollDice);
    let (first, ..) = t.possible();
    t.step(SeatId::A, &first[0]);
    // When the room is snapshotted (through JSON) and restored
    let json = serde_json::to_string(&t.room.snapshot()).unwrap();
    let restored = tabula_room::Room::restore(&serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(restored.version(), t.room.version());
    assert_eq!(restored.log(), t.room.log());
    let at = restored.version();
    let mut u = Table::of(restored, t.now);
    let (t_cut, u_cut) = (t.history.len(), u.history.len());
    // Then both rooms continue identically
    t.autoplay(40);
    u.autoplay(40);
    assert!(t.room.version() > at + 20, "the game went on");
    assert_eq!(t.room.log(), u.room.log());
    assert_eq!(t.history[t_cut..], u.history[u_cut..]);
}

#[test]
fn chat_is_length_limited_and_open_to_spectators() {
    let mut t = Table::seated(RoomConfig {
        chat_max_chars: 5,
        ..RoomConfig::default()
    });
    assert_eq!(
        t.try_cmd(
            alice(),
            Command::Chat {
                text: "123456".into()
            }
        )
        .unwrap_err(),
        RoomError::ChatTooLong { max: 5 }
    );
    assert_eq!(
        t.try_cmd(alice(), Command::Chat { text: "  ".into() })
            .unwrap_err(),
        RoomError::ChatEmpty
    );
    let carol = tabula_room::Actor::Player(tabula_room::PlayerId::new("carol"));
    assert_eq!(
        t.try_cmd(carol.clone(), Command::Chat { text: "hi".into() })
            .unwrap_err(),
        RoomError::NotSeated
    );
    t.ok(carol.clone(), Command::Spectate);
    let ev = t.ok(
        carol,
        Command::Chat {
            text: "мир".into()
        },
    );
    assert!(has(
        &ev,
        |e| matches!(e, Event::Chat { text, .. } if text == "мир")
    ));
}

#[test]
fn seats_are_exclusive() {
    let mut t = Table::new(RoomConfig::default());
    t.ok(
        alice(),
        Command::Sit {
            seat: Some(SeatId::A),
        },
    );
    assert_eq!(
        t.try_cmd(
            bob(),
            Command::Sit {
                seat: Some(SeatId::A)
            }
        )
        .unwrap_err(),
        RoomError::SeatTaken(SeatId::A)
    );
    assert_eq!(
        t.try_cmd(alice(), Command::Sit { seat: None }).unwrap_err(),
        RoomError::AlreadySeated
    );
    let ev = t.ok(bob(), Command::Sit { seat: None });
    assert!(has(&ev, |e| matches!(
        e,
        Event::SeatTaken {
            seat: SeatId::B,
            ..
        }
    )));
    let carol = tabula_room::Actor::Player(tabula_room::PlayerId::new("carol"));
    assert_eq!(
        t.try_cmd(carol, Command::Sit { seat: None }).unwrap_err(),
        RoomError::RoomFull
    );
}

#[test]
fn versions_rise_strictly_through_the_log() {
    let mut t = Table::started(RoomConfig {
        options: white_first(),
        master_seed: "v".into(),
        ..RoomConfig::default()
    });
    t.autoplay(30);
    let v: Vec<u64> = t.room.log().iter().map(|e| e.version).collect();
    assert!(v.windows(2).all(|w| w[1] == w[0] + 1));
    assert_eq!(*v.last().unwrap(), t.room.version());
    assert_eq!(t.room.events_since(v[5]).unwrap().len(), v.len() - 6);
}

#[test]
fn commands_and_events_use_the_wire_shapes() {
    let cmd: Command = serde_json::from_str(r#"{"type":"move","from":5,"to":"off"}"#).unwrap();
    assert_eq!(
        cmd,
        Command::Move {
            from: Spot::Point(5),
            to: Spot::Off
        }
    );
    let cmd: Command = serde_json::from_str(r#"{"type":"rollDice"}"#).unwrap();
    assert_eq!(cmd, Command::RollDice);
    let e = Event::GameOver {
        result: PlayerResult::Win,
        points: 1,
        kind: ResultKind::Oin,
        message: "WIN 100 TON.".into(),
        narration: None,
    };
    assert_eq!(
        serde_json::to_string(&e).unwrap(),
        r#"{"type":"gameOver","result":"win","points":1,"kind":"oin","message":"WIN 100 TON."}"#
    );
    let e = Event::PossibleMoves {
        seat: SeatId::A,
        dice_left: vec![5],
        first_steps: vec!["18-13".into()],
        sequences: vec!["18-13".into()],
    };
    assert_eq!(
        serde_json::to_string(&e).unwrap(),
        r#"{"type":"possibleMoves","seat":"a","diceLeft":[5],"firstSteps":["18-13"],"sequences":["18-13"]}"#
    );
}

#[test]
fn with_replace_leaver_a_bot_takes_the_seat_of_a_player_who_leaves() {
    // Given a room that replaces leavers with a level-2 bot, A on roll
    let config = RoomConfig {
        replace_leaver: Some(2),
        ..scripted(white_first(), &[[6, 5], [4, 2], [3, 1]])
    };
    let mut t = Table::started(config.clone());
    // When A's disconnect grace runs out
    t.ok(alice(), Command::Disconnected);
    let t0 = t.now;
    let ev = t.room.tick(t0 + 30_000);
    // Then the seat goes to the bot, the game goes on, and the host is
    // asked to roll for it (A was on roll)
    assert!(ev.iter().any(
        |e| matches!(&*e.event, Event::SeatFreed { seat: SeatId::A, player } if player.0 == "alice")
    ));
    assert!(ev.iter().any(|e| matches!(
        *e.event,
        Event::BotSeated {
            seat: SeatId::A,
            level: 2
        }
    )));
    assert!(ev.iter().any(|e| e.to == Audience::Host
        && matches!(
            *e.event,
            Event::BotRequest {
                seat: SeatId::A,
                level: 2,
                need: tabula_room::BotNeed::Roll
            }
        )));
    assert!(
        !ev.iter()
            .any(|e| matches!(*e.event, Event::GameEnded { .. }))
    );
    assert_eq!(t.room.phase(), Phase::Playing);
    assert_eq!(t.room.bot_in(SeatId::A), Some(2));
    assert_eq!(t.room.seat_of(&tabula_room::PlayerId::new("alice")), None);
    // The bot plays on through the host; Alice no longer can
    t.ok(tabula_room::Actor::Bot(SeatId::A), Command::RollDice);
    assert!(t.try_cmd(alice(), Command::Resign).is_err());

    // And `leave` mid-game does the same for B, without a forfeit
    let ev = t.ok(bob(), Command::Leave);
    assert!(has(&ev, |e| matches!(
        e,
        Event::BotSeated {
            seat: SeatId::B,
            level: 2
        }
    )));
    assert!(!has(&ev, |e| matches!(e, Event::GameEnded { .. })));
    assert_eq!(t.room.bot_in(SeatId::B), Some(2));

    // Without the option the same disconnect forfeits (the default)
    let mut t = Table::started(RoomConfig {
        replace_leaver: None,
        ..config
    });
    t.ok(alice(), Command::Disconnected);
    let t0 = t.now;
    let ev = t.room.tick(t0 + 30_000);
    assert!(
        ev.iter()
            .any(|e| matches!(*e.event, Event::GameEnded { .. }))
    );
}

#[test]
fn the_log_keeps_the_latest_events_and_a_resume_from_before_them_gets_none() {
    // Given a whole game, far more events than the log keeps
    let mut t = Table::started(RoomConfig {
        options: white_first(),
        master_seed: "bounded".into(),
        ..RoomConfig::default()
    });
    t.autoplay(5_000);
    let v = t.room.version();
    assert!(t.history.len() > 3 * EVENT_LOG_KEEP, "{}", t.history.len());
    // Then the log is the latest EVENT_LOG_KEEP of them
    assert_eq!(t.room.log().len(), EVENT_LOG_KEEP);
    assert!(
        t.room
            .log()
            .iter()
            .eq(&t.history[t.history.len() - EVENT_LOG_KEEP..])
    );
    // And a resume is answered from it back to its first event, not before
    let kept_from = v - EVENT_LOG_KEEP as u64;
    for from in [kept_from, kept_from + 1, v - 1, v] {
        let since: Vec<u64> = t
            .room
            .events_since(from)
            .unwrap()
            .map(|e| e.version)
            .collect();
        assert_eq!(since, (from + 1..=v).collect::<Vec<_>>(), "from {from}");
    }
    assert!(t.room.events_since(kept_from - 1).is_none());
    assert!(t.room.events_since(0).is_none());
    assert!(t.room.events_since(v + 1).is_none());
}

/// What `view()` showed of this turn's dice, offer and the last result when
/// it scanned the whole log back (before the log was bounded).
fn scanned(history: &[Envelope]) -> (Option<[u8; 2]>, Option<MovesView>, Option<GameResult>) {
    let (mut dice, mut moves, mut last) = (None, None, None);
    for e in history.iter().rev() {
        match &*e.event {
            Event::PossibleMoves {
                seat,
                dice_left,
                first_steps,
                sequences,
            } if moves.is_none() && dice.is_none() => {
                moves = Some(MovesView {
                    seat: *seat,
                    dice_left: dice_left.clone(),
                    first_steps: first_steps.clone(),
                    sequences: sequences.clone(),
                });
            }
            Event::DiceRolled { dice: d, .. } if dice.is_none() => dice = Some(*d),
            Event::OpeningRoll {
                first_roll: Some(d),
                ..
            } if dice.is_none() => dice = Some(*d),
            Event::TurnStarted { .. } | Event::GameStarted { .. } if dice.is_none() => {
                dice = Some([0, 0]);
            }
            Event::GameEnded { result, .. } if last.is_none() => last = Some(result.clone()),
            _ => {}
        }
    }
    (dice, moves, last)
}

#[test]
fn the_view_shows_what_a_scan_of_every_event_shows_though_the_log_drops_them() {
    // Given a three-point match played with the first offered step, with
    // bursts of chat long enough to push a turn's dice and offer out of the
    // log, mid-turn and between games
    let mut t = Table::seated(RoomConfig {
        options: white_first(),
        match_length: 3,
        master_seed: "view".into(),
        ..RoomConfig::default()
    });
    let (mut bursts, mut mid_turn) = (0, 0);
    for i in 0..20_000 {
        let playing = t.room.phase() == Phase::Playing;
        // Then after every command the view shows what the scan shows
        let view = t.room.view();
        let (dice, moves, last) = scanned(&t.history);
        assert_eq!(view.dice, dice.filter(|d| d[0] != 0 && playing), "at {i}");
        let moving = view.to_act.is_some_and(|a| a.need == BotNeed::Move);
        assert_eq!(view.moves, moves.clone().filter(|_| moving), "at {i}");
        assert_eq!(view.last_result, last, "at {i}");
        if i % 61 == 0 {
            bursts += 1;
            mid_turn += usize::from(view.moves.is_some());
            for _ in 0..=EVENT_LOG_KEEP {
                t.ok(alice(), Command::Chat { text: "gg".into() });
            }
            continue;
        }
        match (t.room.phase(), view.to_act) {
            (Phase::Finished, _) => break,
            (Phase::WaitingForPlayer, _) => {
                for who in [alice(), bob()] {
                    let _ = t.try_cmd(who, Command::Ready);
                }
            }
            (Phase::Playing, Some(a)) => {
                let cmd = match a.need {
                    BotNeed::Roll => Command::RollDice,
                    BotNeed::Move => {
                        let offer = moves.expect("an offer while moving");
                        let (from, to) = parse_step(&offer.first_steps[0]);
                        Command::Move { from, to }
                    }
                    other => panic!("unexpected need {other:?}"),
                };
                t.ok(actor(a.seat), cmd);
            }
            (phase, to_act) => panic!("stuck: {phase:?} {to_act:?}"),
        }
    }
    assert_eq!(t.room.phase(), Phase::Finished, "the match ended");
    assert!(t.room.records().len() >= 2, "more than one game");
    assert!(bursts > 10);
    assert!(
        mid_turn > 3,
        "{mid_turn} bursts dropped an offer still in play"
    );
}

/// The steps of a sequence as `possibleMoves` writes it (`24-18,18-13`).
fn steps_of(seq: &str) -> Vec<(Spot, Spot)> {
    seq.split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(parse_step)
        .collect()
}

#[test]
fn a_whole_turn_is_applied_at_once_or_not_at_all() {
    // Given A to move 6-5 from the start (and a second table played step
    // by step, for comparison)
    let config = scripted(white_first(), &[[6, 5], [3, 1]]);
    let mut t = Table::started(config.clone());
    t.ok(alice(), Command::RollDice);
    let (_, sequences, _) = t.possible();
    let whole = sequences[0].clone();
    let steps = steps_of(&whole);
    assert_eq!(steps.len(), 2, "{whole}");

    // Refused, changing nothing: before the roll, by the other seat, an
    // illegal step, a legal start that leaves a die, no steps at all.
    let mut fresh = Table::started(config.clone());
    assert_eq!(
        fresh
            .try_cmd(
                alice(),
                Command::Turn {
                    steps: steps.clone()
                }
            )
            .unwrap_err(),
        RoomError::MustRollFirst
    );
    let version = t.room.version();
    let board = t.room.view().board;
    assert_eq!(
        t.try_cmd(
            bob(),
            Command::Turn {
                steps: steps.clone()
            }
        )
        .unwrap_err(),
        RoomError::NotYourTurn
    );
    let illegal = vec![steps[0], (Spot::Point(1), Spot::Point(2))];
    assert!(matches!(
        t.try_cmd(alice(), Command::Turn { steps: illegal })
            .unwrap_err(),
        RoomError::Illegal(_)
    ));
    assert_eq!(
        t.try_cmd(
            alice(),
            Command::Turn {
                steps: steps[..1].to_vec()
            }
        )
        .unwrap_err(),
        RoomError::IncompleteTurn
    );
    assert_eq!(
        t.try_cmd(alice(), Command::Turn { steps: vec![] })
            .unwrap_err(),
        RoomError::IncompleteTurn
    );
    // Issue 45: a turn with a step too many, or in another game's
    // notation (a bar in long nardy), is a malformed turn of the mover:
    // `illegal_move`, never `not_your_turn` nor `bad_points`.
    let too_many = [steps.clone(), vec![(Spot::Point(13), Spot::Point(7))]].concat();
    let bar = vec![(Spot::Bar, Spot::Point(19)), steps[1]];
    for (what, malformed) in [("a step too many", too_many), ("bar", bar)] {
        let e = t
            .try_cmd(alice(), Command::Turn { steps: malformed })
            .unwrap_err();
        assert!(matches!(e, RoomError::Illegal(_)), "{what}: {e:?}");
    }
    assert_eq!(t.room.version(), version, "a refused turn changes nothing");
    assert_eq!(t.room.view().board, board);
    assert_eq!(t.room.view().to_act.unwrap().seat, SeatId::A);

    // Accepted: both steps, no possibleMoves between them, B to roll.
    let ev = t.ok(
        alice(),
        Command::Turn {
            steps: steps.clone(),
        },
    );
    let moved = ev
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Moved {
                    seat: SeatId::A,
                    ..
                }
            )
        })
        .count();
    assert_eq!(moved, 2, "{ev:?}");
    assert!(!has(&ev, |e| matches!(
        e,
        Event::PossibleMoves {
            seat: SeatId::A,
            ..
        }
    )));
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::B,
            ..
        }
    )));

    // The same as playing the steps one by one, position and records.
    let mut s = Table::started(config);
    s.ok(alice(), Command::RollDice);
    for (from, to) in &steps {
        s.ok(
            alice(),
            Command::Move {
                from: *from,
                to: *to,
            },
        );
    }
    assert_eq!(s.room.view().board, t.room.view().board);
    assert_eq!(
        s.room.game().unwrap().actions(),
        t.room.game().unwrap().actions()
    );
    // And the snapshot replays it.
    let back = tabula_room::Room::restore(&t.room.snapshot()).unwrap();
    assert_eq!(back.view().board, t.room.view().board);
    assert_eq!(back.version(), t.room.version());
}

#[test]
fn a_preview_offers_what_the_step_would_and_changes_nothing() {
    // Given A to move 6-5 from the start
    let config = scripted(white_first(), &[[6, 5], [3, 1]]);
    let mut t = Table::started(config.clone());
    let carol = PlayerId::new("carol");
    assert_eq!(
        t.room.preview(&carol, &steps_of("24-18")).unwrap_err(),
        RoomError::NotSeated
    );
    let alice_id = PlayerId::new("alice");
    let bob_id = PlayerId::new("bob");
    assert_eq!(
        t.room.preview(&alice_id, &steps_of("24-18")).unwrap_err(),
        RoomError::MustRollFirst
    );
    t.ok(alice(), Command::RollDice);
    let (first, sequences, _) = t.possible();
    let version = t.room.version();
    let board = t.room.view().board;
    assert_eq!(
        t.room.preview(&bob_id, &steps_of("24-18")).unwrap_err(),
        RoomError::NotYourTurn
    );
    assert!(matches!(
        t.room.preview(&alice_id, &steps_of("1-2")).unwrap_err(),
        RoomError::Illegal(_)
    ));

    // Every first step previews exactly what playing it offers next,
    // in whichever order the dice are used.
    for step in &first {
        let preview = t
            .room
            .preview(&alice_id, &steps_of(step))
            .unwrap()
            .expect("one die is left");
        let mut s = Table::started(config.clone());
        s.ok(alice(), Command::RollDice);
        s.step(SeatId::A, step);
        let (next, rest, dice_left) = s.possible();
        assert_eq!(preview.first_steps, next, "after {step}");
        assert_eq!(preview.sequences, rest, "after {step}");
        assert_eq!(preview.dice_left, dice_left, "after {step}");
        // And each offered next step finishes the turn.
        for second in &next {
            let both = steps_of(&format!("{step},{second}"));
            assert_eq!(t.room.preview(&alice_id, &both).unwrap(), None);
        }
    }
    for whole in &sequences {
        assert_eq!(t.room.preview(&alice_id, &steps_of(whole)).unwrap(), None);
    }
    assert_eq!(t.room.version(), version, "a preview changes nothing");
    assert_eq!(t.room.view().board, board);
    assert!(t.room.view().moves.is_some());
}

#[test]
fn the_state_carries_the_latest_chat_lines_and_a_restore_keeps_them() {
    let mut t = Table::started(scripted(white_first(), &[[6, 5]]));
    for i in 0..60 {
        t.ok(
            alice(),
            Command::Chat {
                text: format!("line {i}"),
            },
        );
    }
    let chat = t.room.view().chat;
    assert_eq!(chat.len(), tabula_room::CHAT_KEEP);
    assert_eq!(chat.first().unwrap().text, "line 10");
    assert_eq!(chat.last().unwrap().text, "line 59");
    assert!(chat.windows(2).all(|w| w[0].version < w[1].version));
    let back = tabula_room::Room::restore(&t.room.snapshot()).unwrap();
    assert_eq!(back.view().chat, chat);
    // On the wire as the `chat` message writes its author.
    let json = serde_json::to_value(&chat[0]).unwrap();
    assert_eq!(json["from"]["kind"], "player", "{json}");
}
