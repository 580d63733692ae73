//! Clocks (a delay-plus-reserve time control) in the room core, with
//! injected time: what a period spends, timeouts in each game, cube
//! decisions, matches, pauses, snapshots, takeovers and records.

mod common;

use common::*;
use tabula_long::{Opening, Setup, Variant};
use tabula_room::{
    Actor, BotNeed, ChatAuthor, Command, EndReason, Event, GameOptions, GameRecord, Narration,
    Phase, ResultKind, Room, RoomConfig, RoomError, SeatId, StartPosition, TimeControl,
    VerifyError, verify,
};

/// 10 s per move plus a 30 s bank.
const TC: TimeControl = TimeControl::new(10_000, 30_000);

fn long_clocked(rolls: &[[u8; 2]]) -> RoomConfig {
    RoomConfig {
        options: GameOptions::long(Variant {
            opening: Opening::WhiteFirst,
            ..Variant::default()
        }),
        master_seed: "clocks".into(),
        dice_script: Some(rolls.to_vec()),
        time_control: Some(TC),
        ..RoomConfig::default()
    }
}

/// The next command or tick happens at `ms`.
fn at(t: &mut Table, ms: u64) {
    t.now = ms - 100;
}

fn tick(t: &mut Table, ms: u64) -> Vec<Event> {
    t.now = ms;
    let ev = t.room.tick(ms);
    t.history.extend_from_slice(&ev);
    ev.into_iter().map(|e| (*e.event).clone()).collect()
}

/// The first offered whole play of the mover, as a `turn`.
fn first_play(t: &Table) -> Command {
    let (_, sequences, _) = t.possible();
    let steps = sequences[0].split(',').map(parse_step).collect();
    Command::Turn { steps }
}

fn reserve(t: &Table) -> [u64; 2] {
    t.room.clock().expect("a clock").reserve
}

fn running(t: &Table) -> Option<(SeatId, Option<u64>)> {
    t.room
        .clock()
        .and_then(|c| c.running)
        .map(|r| (r.seat, r.deadline))
}

fn ended(events: &[Event]) -> Option<(Option<SeatId>, ResultKind, EndReason, u32)> {
    events.iter().find_map(|e| match e {
        Event::GameEnded { result, .. } => {
            Some((result.winner, result.kind, result.reason, result.points))
        }
        _ => None,
    })
}

fn arbiter_keys(events: &[Event]) -> Vec<Narration> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat {
                from: ChatAuthor::Arbiter,
                narration: Some(n),
                ..
            } => Some(n.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_move_within_the_delay_spends_nothing_and_an_overrun_spends_the_difference() {
    // Given a clocked long nardy game: the last Ready at 1.4 s starts
    // white's period (10 s free, then his 30 s bank)
    let mut t = Table::started(long_clocked(&[[6, 5], [4, 2], [3, 1]]));
    assert_eq!(t.now, 1_400);
    assert_eq!(running(&t), Some((SeatId::A, Some(41_400))));
    assert_eq!(t.room.next_deadline(), Some(41_400));
    assert!(t.room.log().iter().any(|e| matches!(
        &*e.event,
        Event::Clock { at: 1_400, running: Some(r), .. } if r.seat == SeatId::A
    )));
    // When white rolls after 2 s and plays his turn after 8 s in all
    at(&mut t, 3_400);
    t.ok(alice(), Command::RollDice);
    at(&mut t, 9_400);
    let ev = t.ok(alice(), first_play(&t));
    // Then nothing left his bank, and black's period began
    assert_eq!(reserve(&t), [30_000, 30_000]);
    assert_eq!(running(&t), Some((SeatId::B, Some(49_400))));
    assert!(has(&ev, |e| matches!(e, Event::Clock { at: 9_400, .. })));
    // When black takes 25 s over his roll and move
    at(&mut t, 20_000);
    t.ok(bob(), Command::RollDice);
    at(&mut t, 34_400);
    t.ok(bob(), first_play(&t));
    // Then the 15 s over the delay came out of his bank
    assert_eq!(reserve(&t), [30_000, 15_000]);
    // And white's next period runs 10 s + 30 s from now
    assert_eq!(running(&t), Some((SeatId::A, Some(74_400))));
    // The view carries the time control and the clocks
    let v = t.room.view();
    assert_eq!(v.time_control, Some(TC));
    assert_eq!(v.clock.unwrap().reserve, [30_000, 15_000]);
}

#[test]
fn a_long_nardy_player_out_of_time_loses_a_mars_and_the_arbiter_says_so() {
    // Given white to roll in a clocked game, nothing borne off
    let mut t = Table::started(long_clocked(&[[6, 5]]));
    // When the clock reaches one millisecond before his deadline, nothing
    assert!(tick(&mut t, 41_399).is_empty());
    assert_eq!(t.room.phase(), Phase::Playing);
    // And a command at the deadline, before the tick, is refused
    at(&mut t, 41_400);
    assert_eq!(
        t.try_cmd(alice(), Command::RollDice).unwrap_err(),
        RoomError::TimeUp
    );
    // (chat still goes through, and so does the opponent's chat)
    at(&mut t, 41_400);
    t.ok(
        bob(),
        Command::Chat {
            text: "tick tock".into(),
        },
    );
    // When the tick at the deadline fires
    let ev = tick(&mut t, 41_400);
    // Then white has lost on time: a mars, 2 points to black
    assert_eq!(
        ended(&ev),
        Some((Some(SeatId::B), ResultKind::Mars, EndReason::Timeout, 2))
    );
    assert!(arbiter_keys(&ev).contains(&Narration::Timeout { seat: SeatId::A }));
    // And his command just after it is still refused `time_up` (issue 45:
    // it was `game_not_started`), changing nothing
    at(&mut t, 41_401);
    let version = t.room.version();
    assert_eq!(
        t.try_cmd(alice(), Command::RollDice).unwrap_err(),
        RoomError::TimeUp
    );
    assert_eq!(t.room.version(), version);
    assert!(
        arbiter_lines(&ev)
            .iter()
            .any(|l| l == "Белые: время вышло — это поражение.")
    );
    // And his period is recorded as 40 s with the whole bank spent
    let rec = &t.room.records()[0];
    let clock = rec.clock.as_ref().expect("the record keeps the clock");
    assert_eq!(clock.control, TC);
    assert_eq!(clock.turns.len(), 1);
    assert_eq!(
        (
            clock.turns[0].seat,
            clock.turns[0].bank_ms,
            clock.turns[0].used_ms
        ),
        (SeatId::A, 30_000, 40_000)
    );
    assert_eq!(verify(rec).map(|v| v.result.reason), Ok(EndReason::Timeout));
    assert_eq!(t.room.next_deadline(), None);
    assert_eq!(running(&t), None);
}

#[test]
fn a_long_nardy_player_who_has_borne_off_loses_an_oin_on_time() {
    let setup: Setup = serde_json::from_str(
        r#"{"turn":"white","white":{"1":5},"black":{"12":15},"off":{"white":10,"black":0}}"#,
    )
    .unwrap();
    let mut t = Table::started(RoomConfig {
        start_position: Some(StartPosition::LongNardy(setup)),
        ..long_clocked(&[[1, 2]])
    });
    let ev = tick(&mut t, 41_400);
    assert_eq!(
        ended(&ev),
        Some((Some(SeatId::B), ResultKind::Oin, EndReason::Timeout, 1))
    );
}

#[test]
fn a_backgammon_timeout_is_a_resignation_at_the_cube_with_gammons_per_the_scoring() {
    for (scoring, kind, points) in [
        (tabula_backgammon::Scoring::Single, ResultKind::Single, 1),
        (tabula_backgammon::Scoring::Gammons, ResultKind::Gammon, 2),
    ] {
        let mut t = Table::started(RoomConfig {
            options: GameOptions::backgammon(tabula_backgammon::Options::with_scoring(scoring)),
            master_seed: "bg clocks".into(),
            time_control: Some(TC),
            ..RoomConfig::default()
        });
        let (seat, _) = t.room.game().unwrap().to_act().unwrap();
        let deadline = running(&t).unwrap().1.unwrap();
        let ev = tick(&mut t, deadline);
        assert_eq!(
            ended(&ev),
            Some((Some(seat.other()), kind, EndReason::Timeout, points)),
            "{scoring:?}"
        );
    }
}

/// A 5-point long nardy match (cube in play) at white's first roll.
fn cube_match() -> Table {
    Table::started(RoomConfig {
        match_length: 5,
        ..long_clocked(&[[6, 5], [4, 2], [3, 1], [5, 5], [6, 6], [2, 1]])
    })
}

#[test]
fn a_cube_decision_runs_on_the_clock_of_the_player_who_must_decide() {
    // Given white's period: he doubles after 4 s
    let mut t = cube_match();
    at(&mut t, 5_400);
    t.ok(alice(), Command::Double);
    // Then black must decide, on his own clock
    assert_eq!(
        t.room.game().unwrap().to_act(),
        Some((SeatId::B, BotNeed::CubeDecision))
    );
    assert_eq!(running(&t), Some((SeatId::B, Some(45_400))));
    // When he takes after 18 s: 8 s over his delay
    at(&mut t, 23_400);
    t.ok(bob(), Command::Take);
    assert_eq!(reserve(&t), [30_000, 22_000]);
    // Then white rolls in a fresh period of his own
    assert_eq!(running(&t), Some((SeatId::A, Some(63_400))));
    // And a decision left to run out loses on time, at the cube
    at(&mut t, 25_000);
    t.ok(alice(), Command::RollDice);
    t.ok(alice(), first_play(&t));
    // (black is to roll; he may redouble, white must decide)
    at(&mut t, 26_000);
    t.ok(bob(), Command::Double);
    let deadline = running(&t).unwrap().1.unwrap();
    assert_eq!(running(&t).unwrap().0, SeatId::A);
    let ev = tick(&mut t, deadline);
    let (winner, _, reason, points) = ended(&ev).unwrap();
    assert_eq!((winner, reason), (Some(SeatId::B), EndReason::Timeout));
    assert_eq!(points, 2 * 2, "a mars at the cube of 2");
}

#[test]
fn a_match_with_the_cube_keeps_one_bank_and_a_match_without_it_refills_each_game() {
    for (cube_from, carried) in [(3, true), (7, false)] {
        // Given a 5-point match; white overruns his first period by 20 s
        let mut t = Table::started(RoomConfig {
            cube_from_match_length: cube_from,
            ..cube_match().room.config().clone()
        });
        at(&mut t, 31_400);
        t.ok(alice(), Command::RollDice);
        assert_eq!(
            reserve(&t),
            [30_000, 30_000],
            "charged when the period ends"
        );
        t.ok(alice(), first_play(&t));
        assert_eq!(reserve(&t), [9_900, 30_000]);
        // When black resigns the game and both press Ready again
        t.ok(bob(), Command::Resign);
        assert_eq!(t.room.phase(), Phase::WaitingForPlayer);
        assert_eq!(running(&t), None, "no clock between games");
        t.ok(alice(), Command::Ready);
        t.ok(bob(), Command::Ready);
        // Then the bank carries in a match with the cube, and is full
        // again in one without
        let want = if carried {
            [9_900, 30_000]
        } else {
            [30_000, 30_000]
        };
        assert_eq!(reserve(&t), want, "cube from {cube_from}");
        assert!(running(&t).is_some());
        // And each game's record holds its own periods
        assert_eq!(t.room.records()[0].clock.as_ref().unwrap().turns.len(), 2);
        assert!(verify(&t.room.records()[0]).is_ok());
    }
}

#[test]
fn thud_timeout_ends_the_round_and_credits_the_opponent_then_round_two_runs_on_full_banks() {
    // Given a clocked Thud! game; the dwarfs (seat A) let their clock run out
    let mut t = Table::started(RoomConfig {
        options: GameOptions::thud(Default::default()),
        time_control: Some(TC),
        ..RoomConfig::default()
    });
    assert_eq!(running(&t), Some((SeatId::A, Some(41_400))));
    let ev = tick(&mut t, 41_400);
    // Then round 1 is over: seat A scores nothing, seat B all 64 points
    assert!(has(&ev, |e| matches!(
        e,
        Event::RoundEnded { round: 1, reason, points: [0, 64] } if reason == "timeout"
    )));
    assert!(arbiter_keys(&ev).contains(&Narration::RoundTimeout { seat: SeatId::A }));
    // And the game goes on: round 2 with both banks full
    assert_eq!(t.room.phase(), Phase::Playing);
    assert_eq!(reserve(&t), [30_000, 30_000]);
    let (seat, deadline) = running(&t).unwrap();
    assert_eq!(deadline, Some(81_400));
    // When round 2's player to move runs out too, the game ends on the totals
    let ev = tick(&mut t, 81_400);
    let (winner, kind, reason, _) = ended(&ev).unwrap();
    assert_eq!(kind, ResultKind::Draw, "64 : 64 after both rounds");
    assert_eq!((winner, reason), (None, EndReason::RoundsOver));
    assert!(arbiter_keys(&ev).contains(&Narration::RoundTimeout { seat }));
    // And the record verifies, timeouts and all
    let rec = &t.room.records()[0];
    assert_eq!(rec.clock.as_ref().unwrap().turns.len(), 2);
    assert!(verify(rec).is_ok(), "{:?}", verify(rec));
}

#[test]
fn a_paused_game_against_the_computer_stops_the_clock() {
    // Given a clocked game against a bot, the player to roll
    let mut t = Table::new(RoomConfig {
        bot: Some(1),
        ..long_clocked(&[[6, 5], [4, 2]])
    });
    t.ok(alice(), Command::Sit { seat: None });
    t.ok(Actor::Bot(SeatId::B), Command::Ready);
    t.ok(alice(), Command::Ready);
    assert_eq!(t.now, 1_300);
    // When she leaves 5 s in, for an hour
    at(&mut t, 6_300);
    t.ok(alice(), Command::Disconnected);
    assert!(t.room.paused());
    assert_eq!(running(&t), Some((SeatId::A, None)));
    assert_eq!(t.room.next_deadline(), None);
    // Then coming back resumes her period with 35 s left
    at(&mut t, 3_606_300);
    t.ok(alice(), Command::Connected);
    assert_eq!(running(&t), Some((SeatId::A, Some(3_641_300))));
}

#[test]
fn a_restored_room_has_the_same_clocks_and_a_takeover_does_not_charge_the_dead_time() {
    // Given white's period 6 s in: he has rolled at 7.4 s
    let mut t = Table::started(long_clocked(&[[6, 5], [4, 2]]));
    at(&mut t, 7_400);
    t.ok(alice(), Command::RollDice);
    // When the room is restored from its snapshot, it has the same clocks
    let snap = t.room.snapshot();
    let mut room = Room::restore(&snap).unwrap();
    assert_eq!(room.clock(), t.room.clock());
    assert_eq!(room.last_input_at(), 7_400);
    // And when a new owner resumes it 90 s later, white keeps what he
    // had at the room's last input: 6 s used, 34 s left
    let ev = room.resume_clock(97_400);
    assert_eq!(ev.len(), 1);
    assert!(matches!(&*ev[0].event, Event::Clock { at: 97_400, .. }));
    let r = room.clock().unwrap().running.unwrap();
    assert_eq!((r.spent_ms, r.deadline), (6_000, Some(131_400)));
    assert!(room.tick(97_400).is_empty(), "not a timeout");
    // And the resume is itself logged: a second restore agrees
    let again = Room::restore(&room.snapshot()).unwrap();
    assert_eq!(again.clock(), room.clock());
    assert_eq!(again.version(), room.version());
    // And the timeout still fires, at the resumed deadline
    assert!(room.tick(131_399).is_empty());
    let ev: Vec<Event> = room
        .tick(131_400)
        .into_iter()
        .map(|e| (*e.event).clone())
        .collect();
    assert_eq!(ended(&ev).unwrap().2, EndReason::Timeout);
    // White's one period is recorded as 40 s: 6 before, 34 after
    let rec = &room.records()[0];
    assert_eq!(rec.clock.as_ref().unwrap().turns[0].used_ms, 40_000);
    assert!(verify(rec).is_ok());
    // Without a clock, a resume is nothing at all
    let mut plain = Table::started(RoomConfig {
        time_control: None,
        ..long_clocked(&[[6, 5]])
    });
    let v = plain.room.version();
    assert!(plain.room.resume_clock(50_000).is_empty());
    assert_eq!(plain.room.version(), v);
    assert!(plain.room.clock().is_none());
}

fn finished_record() -> GameRecord {
    let mut t = Table::started(long_clocked(&[[6, 5], [4, 2], [3, 1]]));
    at(&mut t, 3_400);
    t.ok(alice(), Command::RollDice);
    at(&mut t, 9_400);
    t.ok(alice(), first_play(&t));
    at(&mut t, 30_000);
    t.ok(bob(), Command::RollDice);
    t.ok(bob(), first_play(&t));
    let deadline = running(&t).unwrap().1.unwrap();
    tick(&mut t, deadline);
    t.room.records()[0].clone()
}

#[test]
fn verify_checks_the_clock_against_the_game() {
    let rec = finished_record();
    let turns = &rec.clock.as_ref().unwrap().turns;
    assert_eq!(
        turns.iter().map(|t| t.seat).collect::<Vec<_>>(),
        [SeatId::A, SeatId::B, SeatId::A]
    );
    assert!(verify(&rec).is_ok(), "{:?}", verify(&rec));
    // The JSON record carries it and reads back the same
    let json = serde_json::to_value(&rec).unwrap();
    assert_eq!(json["clock"]["control"]["delayMs"], 10_000);
    assert_eq!(json["clock"]["turns"][0]["usedMs"], 8_000);
    let back: GameRecord = serde_json::from_value(json).unwrap();
    assert_eq!(back, rec);
    let clock_err = |r: &GameRecord| matches!(verify(r), Err(VerifyError::Clock { .. }));
    // A timeout whose period had time left does not check out
    let mut r = rec.clone();
    r.clock.as_mut().unwrap().turns[2].used_ms -= 1;
    assert!(clock_err(&r));
    // Nor a period that ran out without a timeout
    let mut r = rec.clone();
    r.clock.as_mut().unwrap().turns[0].used_ms = 40_000;
    assert!(clock_err(&r));
    // Nor a bank that does not follow from the one before
    let mut r = rec.clone();
    r.clock.as_mut().unwrap().turns[2].bank_ms = 29_000;
    assert!(clock_err(&r));
    // Nor a missing period, nor one given to the wrong seat
    let mut r = rec.clone();
    r.clock.as_mut().unwrap().turns.pop();
    assert!(clock_err(&r));
    let mut r = rec.clone();
    r.clock.as_mut().unwrap().turns[1].seat = SeatId::A;
    assert!(clock_err(&r));
    // Nor a timeout in a record without a clock
    let mut r = rec.clone();
    r.clock = None;
    assert!(clock_err(&r));
}

#[test]
fn a_room_without_a_time_control_has_no_clock_and_never_times_out() {
    let mut t = Table::started(RoomConfig {
        time_control: None,
        ..long_clocked(&[[6, 5]])
    });
    assert!(t.room.clock().is_none());
    assert_eq!(t.room.next_deadline(), None);
    assert!(tick(&mut t, 10_000_000).is_empty());
    let json = serde_json::to_value(t.room.view()).unwrap();
    assert!(json.get("clock").is_none() && json.get("timeControl").is_none());
    assert!(
        !t.room
            .log()
            .iter()
            .any(|e| matches!(*e.event, Event::Clock { .. }))
    );
}

#[test]
fn with_both_players_disconnected_the_clock_of_the_player_to_act_keeps_running() {
    // Given a clocked game between people whose disconnect grace is longer
    // than the mover's 40 s
    let mut t = Table::started(RoomConfig {
        grace_ms: 100_000,
        ..long_clocked(&[[6, 5]])
    });
    assert_eq!(running(&t), Some((SeatId::A, Some(41_400))));
    // When both drop 2 s in
    at(&mut t, 3_400);
    t.ok(alice(), Command::Disconnected);
    t.ok(bob(), Command::Disconnected);
    // Then nothing paused: the mover's deadline stands and comes first
    assert!(!t.room.paused());
    assert_eq!(running(&t), Some((SeatId::A, Some(41_400))));
    assert_eq!(t.room.next_deadline(), Some(41_400));
    // And at it he loses on time, not by disconnection
    let ev = tick(&mut t, 41_400);
    assert_eq!(
        ended(&ev),
        Some((Some(SeatId::B), ResultKind::Mars, EndReason::Timeout, 2))
    );
}

/// A correspondence match to `n` points between alice and bob, its first
/// game started at `t.now`.
fn correspondence_match(n: u32, at_once: bool) -> Table {
    let config = RoomConfig {
        time_control: Some(TimeControl::DAYS_1),
        match_length: n,
        next_game_at_once: at_once,
        ..long_clocked(&[[6, 5], [4, 2]])
    };
    let mut t = Table::new(config);
    t.ok(alice(), Command::Sit { seat: None });
    t.ok(alice(), Command::Ready);
    t.ok(bob(), Command::Sit { seat: None });
    t.ok(bob(), Command::Ready);
    assert_eq!(t.room.phase(), Phase::Playing);
    t
}

#[test]
fn the_next_game_of_a_correspondence_match_starts_without_ready_and_its_clock_runs() {
    const DAY: u64 = tabula_room::DAY_MS;
    // Given a 3-point correspondence match whose players are both away
    let mut t = correspondence_match(3, true);
    assert!(t.ok(alice(), Command::Disconnected).is_empty());
    assert!(t.ok(bob(), Command::Disconnected).is_empty());
    // When white's day runs out (a mars: 2 points, the match goes on)
    let end = t.room.next_deadline().expect("white's day");
    let ev = tick(&mut t, end);
    assert_eq!(
        ended(&ev),
        Some((Some(SeatId::B), ResultKind::Mars, EndReason::Timeout, 2))
    );
    // Then the second game starts at once, both seats ready, nobody in
    // the app
    let readies = ev
        .iter()
        .filter(|e| matches!(e, Event::Ready { .. }))
        .count();
    assert_eq!(readies, 2, "{ev:?}");
    assert_eq!(t.room.phase(), Phase::Playing);
    assert_eq!(t.room.game_number(), 2);
    assert!(has(&ev, |e| matches!(e, Event::TurnStarted { .. })));
    // And its first mover's day runs from the end of the first game
    let (seat, _) = t.room.game().unwrap().to_act().unwrap();
    assert_eq!(running(&t), Some((seat, Some(end + DAY))));
    assert_eq!(t.room.next_deadline(), Some(end + DAY));
    // And the log replays to the same room
    let room = Room::restore(&t.room.snapshot()).unwrap();
    assert_eq!(room.phase(), Phase::Playing);
    assert_eq!(room.game_number(), 2);
    assert_eq!(room.version(), t.room.version());
    // And the match ends at its length as ever: the next day's timeout
    // gives the match
    let ev = tick(&mut t, end + DAY);
    assert!(ended(&ev).is_some(), "{ev:?}");
    assert_eq!(t.room.phase(), Phase::Finished);
}

#[test]
fn a_correspondence_match_from_before_next_game_at_once_waits_for_ready_as_it_was_played() {
    const DAY: u64 = tabula_room::DAY_MS;
    // Given a room whose snapshot has no `nextGameAtOnce`
    let t = correspondence_match(3, true);
    let mut json = serde_json::to_value(t.room.snapshot()).unwrap();
    let config = json["config"].as_object_mut().unwrap();
    assert!(config.remove("nextGameAtOnce").is_some(), "{json}");
    let mut room = Room::restore(&serde_json::from_value(json).unwrap()).unwrap();
    // When its first game ends
    room.tick(t.now + DAY);
    // Then the next waits for both players' Ready, as it did
    assert_eq!(room.phase(), Phase::WaitingForPlayer);
    assert_eq!(room.game_number(), 1);
    assert_eq!(room.next_deadline(), None);
}

#[test]
fn a_correspondence_game_ignores_absence_and_charges_the_days_it_spent_unloaded() {
    const DAY: u64 = tabula_room::DAY_MS;
    // Given a room with a day a move, where white sits, presses Ready and
    // leaves the app before black comes
    let config = RoomConfig {
        time_control: Some(TimeControl::DAYS_1),
        ..long_clocked(&[[6, 5], [4, 2]])
    };
    let mut t = Table::new(config);
    t.ok(alice(), Command::Sit { seat: None });
    t.ok(alice(), Command::Ready);
    // Then his leaving changes nothing: he keeps his seat and his Ready
    assert!(t.ok(alice(), Command::Disconnected).is_empty());
    assert!(t.room.seat_view(SeatId::A).ready);
    assert!(t.room.correspondence());
    // When black sits and presses Ready hours later, the game starts
    t.now = 5 * 3_600_000;
    t.ok(bob(), Command::Sit { seat: None });
    t.ok(bob(), Command::Ready);
    assert_eq!(t.room.phase(), Phase::Playing);
    let start = t.now;
    assert_eq!(running(&t), Some((SeatId::A, Some(start + DAY))));
    // And both leaving is no disconnection and no pause: the only
    // deadline is white's day
    t.now += 1_000;
    assert!(t.ok(alice(), Command::Disconnected).is_empty());
    assert!(t.ok(bob(), Command::Disconnected).is_empty());
    assert!(!t.room.paused());
    assert_eq!(t.room.seat_view(SeatId::A).disconnect_deadline, None);
    assert_eq!(t.room.next_deadline(), Some(start + DAY));
    // When the room is restored 20 hours later (it was unloaded), nothing
    // of those hours is forgiven
    let mut room = Room::restore(&t.room.snapshot()).unwrap();
    assert!(room.resume_clock(start + 20 * 3_600_000).is_empty());
    assert_eq!(room.next_deadline(), Some(start + DAY));
    // And at the day's end white loses on time (a mars: nothing borne off)
    assert!(room.tick(start + DAY - 1).is_empty());
    let ev: Vec<Event> = room
        .tick(start + DAY)
        .into_iter()
        .map(|e| (*e.event).clone())
        .collect();
    assert_eq!(
        ended(&ev),
        Some((Some(SeatId::B), ResultKind::Mars, EndReason::Timeout, 2))
    );
    assert!(verify(&room.records()[0]).is_ok());
}
