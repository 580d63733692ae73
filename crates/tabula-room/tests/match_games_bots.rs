//! Matches and the cube, backgammon and Thud! rooms, bot seats, statistics.

mod common;

use common::*;
use tabula_long::{Opening, Variant};
use tabula_room::{
    Actor, Audience, BotNeed, Command, EndReason, EngineError, Event, GameKind, GameOptions, Phase,
    PlayerDelta, PlayerId, PlayerResult, PlayerStats, ResultKind, RoomConfig, RoomError, SeatId,
};

fn white_first() -> GameOptions {
    GameOptions::long(Variant {
        opening: Opening::WhiteFirst,
        ..Variant::default()
    })
}

fn match_to(n: u32) -> RoomConfig {
    RoomConfig {
        options: white_first(),
        match_length: n,
        master_seed: "match".into(),
        dice_script: Some(vec![[6, 5], [4, 2], [3, 1], [5, 5]]),
        ..RoomConfig::default()
    }
}

/// Plays until it is `seat`'s turn to roll.
fn play_until_roll_of(t: &mut Table, seat: SeatId) {
    for _ in 0..50 {
        if t.room.game().unwrap().to_act() == Some((seat, BotNeed::Roll)) {
            return;
        }
        let (s, need) = t.room.game().unwrap().to_act().unwrap();
        match need {
            BotNeed::Roll => {
                t.ok(actor(s), Command::RollDice);
            }
            BotNeed::Move => {
                let (first, ..) = t.possible();
                t.step(s, &first[0]);
            }
            _ => panic!("unexpected {need:?}"),
        }
    }
    panic!("never reached {seat:?}'s roll");
}

#[test]
fn double_take_gives_the_cube_to_the_taker_and_drop_loses_at_the_current_stake() {
    // Given a 5-point match (cube in play)
    let mut t = Table::started(match_to(5));
    assert!(t.room.log().iter().any(|e| matches!(
        *e.event,
        Event::TurnStarted {
            seat: SeatId::A,
            may_double: true
        }
    )));
    // When A doubles before rolling
    let ev = t.ok(alice(), Command::Double);
    assert!(has(&ev, |e| matches!(
        e,
        Event::DoubleOffered {
            seat: SeatId::A,
            value: 2
        }
    )));
    // Then nothing else happens until B decides
    assert_eq!(
        t.try_cmd(alice(), Command::RollDice).unwrap_err(),
        RoomError::DoublePending
    );
    assert_eq!(
        t.try_cmd(alice(), Command::Take).unwrap_err(),
        RoomError::NotYourTurn
    );
    // When B takes: B owns a 2-cube, A rolls on
    let ev = t.ok(bob(), Command::Take);
    assert!(has(&ev, |e| matches!(
        e,
        Event::DoubleTaken {
            seat: SeatId::B,
            value: 2
        }
    )));
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::A,
            may_double: false
        }
    )));
    assert_eq!(
        t.try_cmd(alice(), Command::Double).unwrap_err(),
        RoomError::NotYourCube
    );
    // When B, the owner, redoubles on his turn and A drops
    play_until_roll_of(&mut t, SeatId::B);
    assert_eq!(
        t.try_cmd(bob(), Command::Take).unwrap_err(),
        RoomError::NoDoublePending
    );
    let ev = t.ok(bob(), Command::Double);
    assert!(has(&ev, |e| matches!(
        e,
        Event::DoubleOffered { value: 4, .. }
    )));
    let ev = t.ok(alice(), Command::Drop);
    // Then B wins the game at the stake before the redouble: 2 points
    assert!(has(
        &ev,
        |e| matches!(e, Event::GameEnded { result, match_score: [0, 2], .. }
        if result.kind == ResultKind::Drop && result.points == 2 && result.reason == EndReason::Dropped)
    ));
    assert!(arbiter_lines(&ev).contains(&"Победа: отказ от удвоения (2 очка)".to_string()));
    // and the match goes on: both must press Ready again
    assert_eq!(t.room.phase(), Phase::WaitingForPlayer);
    t.ok(alice(), Command::Ready);
    let ev = t.ok(bob(), Command::Ready);
    assert!(has(&ev, |e| matches!(
        e,
        Event::GameStarted {
            game_number: 2,
            cube_enabled: true,
            ..
        }
    )));
}

#[test]
fn the_cube_value_multiplies_the_result() {
    let mut t = Table::started(match_to(7));
    t.ok(alice(), Command::Double);
    t.ok(bob(), Command::Take);
    // B resigns with nothing borne off: mars 2 × cube 2
    let ev = t.ok(bob(), Command::Resign);
    assert!(has(
        &ev,
        |e| matches!(e, Event::GameEnded { result, match_score: [4, 0], .. }
        if result.base_points == 2 && result.cube == 2 && result.points == 4)
    ));
    assert!(arbiter_lines(&ev).contains(&"Победа: марс (4 очка)".to_string()));
}

#[test]
fn no_cube_in_a_one_point_match_or_below_the_configured_length() {
    let mut t = Table::started(match_to(1));
    assert_eq!(
        t.try_cmd(alice(), Command::Double).unwrap_err(),
        RoomError::NoCube
    );
    let mut t = Table::started(match_to(2));
    assert_eq!(
        t.try_cmd(alice(), Command::Double).unwrap_err(),
        RoomError::NoCube
    );
    let mut t = Table::started(RoomConfig {
        cube_from_match_length: 2,
        ..match_to(2)
    });
    t.ok(alice(), Command::Double);
}

#[test]
fn crawford_game_has_no_cube_and_post_crawford_games_do() {
    // Given a 3-point match
    let mut t = Table::started(match_to(3));
    // When B resigns at once: A wins a mars, 2 points = match point
    t.ok(bob(), Command::Resign);
    assert_eq!(t.room.score(), [2, 0]);
    t.ok(alice(), Command::Ready);
    let ev = t.ok(bob(), Command::Ready);
    // Then game 2 is the Crawford game: no doubling
    assert!(has(&ev, |e| matches!(
        e,
        Event::GameStarted {
            game_number: 2,
            crawford: true,
            cube_enabled: false,
            ..
        }
    )));
    assert_eq!(
        t.try_cmd(alice(), Command::Double).unwrap_err(),
        RoomError::NoCube
    );
    // When A resigns it: B reaches 2
    t.ok(alice(), Command::Resign);
    assert_eq!(t.room.score(), [2, 2]);
    t.ok(alice(), Command::Ready);
    let ev = t.ok(bob(), Command::Ready);
    // Then game 3 is post-Crawford: the cube is back
    assert!(has(&ev, |e| matches!(
        e,
        Event::GameStarted {
            game_number: 3,
            crawford: false,
            cube_enabled: true,
            ..
        }
    )));
    t.ok(alice(), Command::Double);
    let ev = t.ok(bob(), Command::Drop);
    // and the match ends
    assert!(has(&ev, |e| matches!(
        e,
        Event::MatchOver {
            winner: Some(SeatId::A),
            score: [3, 2]
        }
    )));
    assert_eq!(t.room.phase(), Phase::Finished);
    assert_eq!(t.room.records().len(), 3);
    for r in t.room.records() {
        tabula_room::verify(r).unwrap();
    }
}

#[test]
fn backgammon_room_plays_steps_in_the_movers_numbering() {
    let mut o = GameOptions::backgammon(Default::default());
    o.backgammon_opening = Opening::WhiteFirst;
    let mut t = Table::started(RoomConfig {
        options: o,
        dice_script: Some(vec![[6, 5], [3, 1]]),
        ..RoomConfig::default()
    });
    let ev = t.ok(alice(), Command::RollDice);
    assert!(has(&ev, |e| matches!(
        e,
        Event::DiceRolled { dice: [6, 5], .. }
    )));
    let (first, seqs, _) = t.possible();
    assert!(first.contains(&"24/18".to_string()), "{first:?}");
    assert!(seqs.contains(&"24/18 18/13".to_string()), "{seqs:?}");
    t.step(SeatId::A, "24/18");
    // Mid-turn the rest is offered as whole plays too, one per result.
    let (first, seqs, left) = t.possible();
    assert_eq!(left, vec![5]);
    assert!(first.contains(&"18/13".to_string()), "{first:?}");
    assert_eq!(seqs.len(), first.len(), "one step left: {seqs:?} {first:?}");
    assert!(seqs.contains(&"18/13".to_string()), "{seqs:?}");
    let ev = t.step(SeatId::A, "18/13");
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::B,
            ..
        }
    )));
    // B (black) enters its own numbering: 3-1 makes its 5-point
    t.ok(bob(), Command::RollDice);
    t.step(SeatId::B, "8/5");
    let ev = t.step(SeatId::B, "6/5");
    assert!(has(&ev, |e| matches!(
        e,
        Event::TurnStarted {
            seat: SeatId::A,
            ..
        }
    )));
    // Resigning with none off is a single game under single scoring
    let ev = t.ok(alice(), Command::Resign);
    assert!(arbiter_lines(&ev).contains(&"Победа: обычная (1 очко)".to_string()));
}

#[test]
fn backgammon_results_summary_counts_hits_and_doubles() {
    let mut t = Table::started(RoomConfig {
        options: GameOptions::backgammon(Default::default()),
        master_seed: "bg-stats".into(),
        ..RoomConfig::default()
    });
    t.autoplay(5_000);
    let hits = t
        .history
        .iter()
        .filter(|e| matches!(*e.event, Event::Moved { hit: true, .. }))
        .count() as u32;
    let doubles = t
        .history
        .iter()
        .filter(|e| matches!(*e.event, Event::DiceRolled { dice: [a, b], .. } if a == b))
        .count() as u32;
    let summary = t
        .history
        .iter()
        .find_map(|e| match &*e.event {
            Event::Stats { summary, .. } => Some(summary.clone()),
            _ => None,
        })
        .expect("a stats event");
    assert_eq!(summary.hits[0] + summary.hits[1], hits);
    assert_eq!(summary.doubles[0] + summary.doubles[1], doubles);
    assert!(summary.borne_off.contains(&15));
}

fn thud(limit: Option<u32>) -> RoomConfig {
    let mut o = GameOptions::thud(Default::default());
    o.thud.max_plies_without_capture = limit;
    RoomConfig {
        options: o,
        ..RoomConfig::default()
    }
}

#[test]
fn thud_round_ends_by_proposal_and_acceptance_and_sides_swap() {
    let mut t = Table::started(thud(None));
    assert_eq!(
        t.try_cmd(alice(), Command::RollDice).unwrap_err(),
        RoomError::WrongGame
    );
    let ev = t.ok(alice(), Command::ProposeEnd);
    assert!(has(&ev, |e| matches!(
        e,
        Event::EndProposed { seat: SeatId::A }
    )));
    assert!(matches!(
        t.try_cmd(alice(), Command::AcceptEnd).unwrap_err(),
        RoomError::Illegal(EngineError::Thud(tabula_thud::RoundError::OwnProposal(_)))
    ));
    let ev = t.ok(bob(), Command::AcceptEnd);
    assert!(has(
        &ev,
        |e| matches!(e, Event::RoundEnded { round: 1, reason, points: [32, 32] } if reason == "agreement")
    ));
    // Round 2: B plays the dwarfs and moves first
    let g = t.room.game().unwrap().thud_game().unwrap();
    assert_eq!(g.round_number(), 2);
    let mv = g.round().position().legal_moves()[0].to_string();
    assert_eq!(
        t.try_cmd(
            alice(),
            Command::ThudMove {
                notation: mv.clone()
            }
        )
        .unwrap_err(),
        RoomError::NotYourTurn
    );
    t.ok(bob(), Command::ThudMove { notation: mv });
    t.ok(bob(), Command::ProposeEnd);
    let ev = t.ok(alice(), Command::AcceptEnd);
    assert!(has(&ev, |e| matches!(e, Event::GameEnded { result, .. }
        if result.kind == ResultKind::Draw && result.thud_totals == Some([64, 64]))));
    assert!(arbiter_lines(&ev).contains(&"Ничья: 64 : 64.".to_string()));
    assert!(has(&ev, |e| matches!(
        e,
        Event::GameOver {
            result: PlayerResult::Draw,
            ..
        }
    )));
}

#[test]
fn thud_round_ends_after_the_configured_plies_without_capture() {
    let mut t = Table::started(thud(Some(2)));
    t.autoplay(1);
    let before = t.history.len();
    t.autoplay(1);
    let ev: Vec<Event> = t.history[before..]
        .iter()
        .map(|e| (*e.event).clone())
        .collect();
    assert!(has(
        &ev,
        |e| matches!(e, Event::RoundEnded { round: 1, reason, .. } if reason == "plies_without_capture")
    ));
    // Two more plies end round 2 and the game: the totals decide
    t.autoplay(2);
    assert!(t.room.game().unwrap().result().is_some());
    assert_eq!(t.room.phase(), Phase::Finished);
}

#[test]
fn thud_resign_and_bad_notation() {
    let mut t = Table::started(thud(None));
    assert!(matches!(
        t.try_cmd(
            alice(),
            Command::ThudMove {
                notation: "Zz9".into()
            }
        )
        .unwrap_err(),
        RoomError::Illegal(_)
    ));
    let ev = t.ok(bob(), Command::Resign);
    assert!(has(
        &ev,
        |e| matches!(e, Event::GameEnded { result, .. } if result.winner == Some(SeatId::A))
    ));
}

#[test]
fn a_bot_seat_is_prompted_through_the_host_and_validated_like_anyone() {
    // Given a room with a level-3 bot in seat B
    let mut t = Table::new(RoomConfig {
        bot: Some(3),
        ..match_to(1)
    });
    assert!(matches!(
        *t.room.log()[0].event,
        Event::BotSeated {
            seat: SeatId::B,
            level: 3
        }
    ));
    // When Alice sits, the host is asked to press Ready for the bot
    let ev = t.try_cmd(alice(), Command::Sit { seat: None }).unwrap();
    assert!(ev.iter().any(|e| e.to == Audience::Host
        && matches!(
            *e.event,
            Event::BotRequest {
                seat: SeatId::B,
                level: 3,
                need: BotNeed::Ready
            }
        )));
    // A player cannot act as a bot, nor for a human seat
    assert_eq!(
        t.try_cmd(Actor::Bot(SeatId::A), Command::Ready)
            .unwrap_err(),
        RoomError::NotABot(SeatId::A)
    );
    t.ok(Actor::Bot(SeatId::B), Command::Ready);
    t.ok(alice(), Command::Ready);
    // When A's turn ends, the host is asked to roll for the bot
    t.ok(alice(), Command::RollDice);
    t.step(SeatId::A, "24-18");
    let ev = t
        .try_cmd(
            alice(),
            Command::Move {
                from: tabula_room::Spot::Point(18),
                to: tabula_room::Spot::Point(13),
            },
        )
        .unwrap();
    assert!(ev.iter().any(|e| matches!(
        *e.event,
        Event::BotRequest {
            seat: SeatId::B,
            need: BotNeed::Roll,
            ..
        }
    )));
    assert_eq!(
        t.try_cmd(bob(), Command::RollDice).unwrap_err(),
        RoomError::NotSeated
    );
    let ev = t.try_cmd(Actor::Bot(SeatId::B), Command::RollDice).unwrap();
    assert!(ev.iter().any(|e| matches!(
        *e.event,
        Event::BotRequest {
            seat: SeatId::B,
            need: BotNeed::Move,
            ..
        }
    )));
    // The game's stats name the bot's level
    let ev = t.ok(alice(), Command::Resign);
    let players = ev
        .iter()
        .find_map(|e| match e {
            Event::Stats { players, .. } => Some(players.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(players[0].opponent_bot_level, Some(3));
    assert_eq!(players[0].player, Some(PlayerId::new("alice")));
    assert_eq!(players[1].bot_level, Some(3));
    assert!(players[0].mars && players[0].points_lost == 2);
}

fn delta(result: PlayerResult, points: u32, mars: bool, bot: Option<u8>) -> PlayerDelta {
    PlayerDelta {
        seat: SeatId::A,
        player: Some(PlayerId::new("alice")),
        bot_level: None,
        opponent_bot_level: bot,
        result,
        points_won: if result == PlayerResult::Win {
            points
        } else {
            0
        },
        points_lost: if result == PlayerResult::Lose {
            points
        } else {
            0
        },
        mars,
        game: Some(GameKind::LongNardy),
    }
}

#[test]
fn player_stats_count_points_mars_and_per_level_streaks() {
    let mut s = PlayerStats::default();
    s.record(&delta(PlayerResult::Win, 2, true, Some(1)));
    s.record(&delta(PlayerResult::Win, 1, false, Some(1)));
    s.record(&delta(PlayerResult::Lose, 1, false, Some(1)));
    s.record(&delta(PlayerResult::Win, 1, false, Some(1)));
    s.record(&delta(PlayerResult::Lose, 2, true, None));
    // Games ≠ wins + losses: wins and losses count points
    assert_eq!(s.games, 5);
    assert_eq!(s.wins, 4);
    assert_eq!(s.losses, 3);
    assert_eq!((s.mars_wins, s.mars_losses), (1, 1));
    let l = &s.by_bot_level[&1];
    assert_eq!(
        (l.wins, l.losses, l.current_streak, l.best_streak),
        (3, 1, 1, 2)
    );
    assert!((l.win_rate() - 0.75).abs() < 1e-9);
    assert!(!s.by_bot_level.contains_key(&2));
    // All of them long nardy: its own row holds the same; a Thud! draw and
    // a backgammon loss to Easy count in their own rows (and the totals).
    assert_eq!(
        s.by_game[&GameKind::LongNardy],
        PlayerStats {
            by_game: Default::default(),
            ..s.clone()
        }
    );
    let mut thud = delta(PlayerResult::Draw, 0, false, None);
    thud.game = Some(GameKind::Thud);
    s.record(&thud);
    let mut bg = delta(PlayerResult::Lose, 1, false, Some(1));
    bg.game = Some(GameKind::Backgammon);
    s.record(&bg);
    assert_eq!(s.games, 7);
    assert_eq!(s.by_game[&GameKind::LongNardy].games, 5);
    assert_eq!(s.by_game[&GameKind::LongNardy].by_bot_level[&1].losses, 1);
    assert_eq!(s.by_game[&GameKind::Backgammon].by_bot_level[&1].losses, 1);
    assert_eq!(s.by_game[&GameKind::Thud].draws, 1);
    assert_eq!(s.by_bot_level[&1].losses, 2);
    // On the wire: the totals at the top level as before, and byGame.
    let wire = serde_json::to_value(&s).unwrap();
    assert_eq!(wire["games"], 7);
    assert_eq!(wire["byGame"]["thud"]["draws"], 1);
    assert_eq!(wire["byGame"]["long_nardy"]["byBotLevel"]["1"]["wins"], 3);
    // A record from before byGame reads, with no rows per game.
    let old: PlayerStats = serde_json::from_str(
        r#"{"games":1,"wins":1,"losses":0,"marsWins":0,"marsLosses":0,"draws":0,"byBotLevel":{}}"#,
    )
    .unwrap();
    assert_eq!(old.games, 1);
    assert!(old.by_game.is_empty());
}

#[test]
fn every_finished_game_emits_stats_to_the_host_only() {
    let mut t = Table::started(match_to(1));
    let ev = t.try_cmd(alice(), Command::Resign).unwrap();
    let stats: Vec<_> = ev
        .iter()
        .filter(|e| matches!(*e.event, Event::Stats { .. }))
        .collect();
    assert_eq!(stats.len(), 1);
    assert_eq!(stats[0].to, Audience::Host);
}

#[test]
fn the_cube_stops_at_64() {
    // Given a long match where every double is taken
    let mut t = Table::started(match_to(25));
    let mut doubler = SeatId::A;
    for value in [2, 4, 8, 16, 32, 64] {
        play_until_roll_of(&mut t, doubler);
        let ev = t.ok(actor(doubler), Command::Double);
        assert!(has(
            &ev,
            |e| matches!(e, Event::DoubleOffered { value: v, .. } if *v == value)
        ));
        t.ok(actor(doubler.other()), Command::Take);
        doubler = doubler.other();
    }
    // When the owner of the 64-cube is on roll
    play_until_roll_of(&mut t, doubler);
    // Then he may not double any more
    assert_eq!(t.room.game().unwrap().cube().value, 64);
    assert!(!t.room.game().unwrap().may_double(doubler));
    assert_eq!(
        t.try_cmd(actor(doubler), Command::Double).unwrap_err(),
        RoomError::CubeAtMaximum
    );
}

/// A room with a level-1 bot in seat B, Alice in A, the game started with
/// Alice to move (white first).
fn against_bot(config: RoomConfig) -> Table {
    let mut t = Table::new(RoomConfig {
        bot: Some(1),
        options: white_first(),
        ..config
    });
    t.ok(alice(), Command::Sit { seat: None });
    t.ok(Actor::Bot(SeatId::B), Command::Ready);
    t.ok(alice(), Command::Ready);
    assert_eq!(t.room.phase(), Phase::Playing);
    t
}

#[test]
fn a_game_against_a_bot_pauses_while_its_player_is_away_and_never_forfeits() {
    // Given Alice playing the bot; her turn ends, so the bot is to act
    let mut t = against_bot(match_to(1));
    t.ok(alice(), Command::RollDice);
    let (first, _, _) = t.possible();
    t.step(SeatId::A, &first[0]);
    while t.room.bot_request().is_none_or(|r| r.seat != SeatId::B) {
        let (steps, _, _) = t.possible();
        t.step(SeatId::A, &steps[0]);
    }
    // When she leaves
    let ev = t.ok(alice(), Command::Disconnected);
    // Then the game pauses: no grace, no deadline, the bot is not asked
    assert!(has(&ev, |e| matches!(
        e,
        Event::GamePaused {
            seat: SeatId::A,
            ..
        }
    )));
    assert!(!has(&ev, |e| matches!(e, Event::PlayerDisconnected { .. })));
    assert!(t.room.paused());
    assert_eq!(t.room.next_deadline(), None);
    assert_eq!(t.room.seat_view(SeatId::A).disconnect_deadline, None);
    assert!(t.room.bot_request().is_none());
    // and a bot's command already on its way is refused, changing nothing
    let version = t.room.version();
    assert_eq!(
        t.try_cmd(Actor::Bot(SeatId::B), Command::RollDice)
            .unwrap_err(),
        RoomError::Paused
    );
    assert_eq!(t.room.version(), version);
    // A second disconnect (another of her sockets) says nothing more
    assert!(
        t.try_cmd(alice(), Command::Disconnected)
            .unwrap()
            .is_empty()
    );
    // Days pass: nothing happens
    assert!(t.room.tick(t.now + 30 * 86_400_000).is_empty());
    assert_eq!(t.room.phase(), Phase::Playing);
    // The snapshot restores the paused game as it was
    let back = tabula_room::Room::restore(&t.room.snapshot()).unwrap();
    assert!(back.paused());
    // When she comes back, the game resumes and the bot is asked to roll
    let ev = t.ok(alice(), Command::Connected);
    assert!(has(&ev, |e| matches!(
        e,
        Event::PlayerReconnected { seat: SeatId::A }
    )));
    assert!(!t.room.paused());
    assert!(has(&ev, |e| matches!(
        e,
        Event::BotRequest {
            seat: SeatId::B,
            need: BotNeed::Roll,
            ..
        }
    )));
    t.ok(Actor::Bot(SeatId::B), Command::RollDice);
}

#[test]
fn a_game_between_people_keeps_the_grace_and_an_old_snapshot_replays_as_played() {
    // Between people: the 30-second rule, as before
    let mut t = Table::started(match_to(1));
    let ev = t.ok(alice(), Command::Disconnected);
    assert!(has(&ev, |e| matches!(e, Event::PlayerDisconnected { .. })));
    assert!(!t.room.paused());

    // A room against a bot made before pauses existed (its snapshot has
    // no `pauseVsBot`) keeps the grace, so its log replays as it was.
    let mut t = against_bot(RoomConfig {
        pause_vs_bot: false,
        ..match_to(1)
    });
    let ev = t.ok(alice(), Command::Disconnected);
    assert!(has(&ev, |e| matches!(e, Event::PlayerDisconnected { .. })));
    let mut json = serde_json::to_value(t.room.snapshot()).unwrap();
    json["config"].as_object_mut().unwrap().remove("pauseVsBot");
    let old: tabula_room::RoomSnapshot = serde_json::from_value(json).unwrap();
    assert!(!old.config.pause_vs_bot);
    let back = tabula_room::Room::restore(&old).unwrap();
    assert!(back.next_deadline().is_some());
    // and a new room's config says so on the wire
    let json = serde_json::to_value(RoomConfig::default()).unwrap();
    assert_eq!(json["pauseVsBot"], true);
}
