//! Hints: one in flight per player, a rollout budget per player that
//! survives reconnects, rollouts over the maximum refused, and a hint
//! cancelled when its asker's connection leaves or he leaves his seat.

use tabula_room::{Actor, Game, Spot};

use super::*;

/// A bot room where `p1` (seat a) has rolled and must move, hosted, with
/// `p1` connected on connection 1 and everything written.
fn rolled_turn() -> Run {
    rolled_turn_in(bot_room())
}

/// [`rolled_turn`] in `room`.
fn rolled_turn_in(mut room: Room) -> Run {
    let p = || Actor::Player(PlayerId::new("p1"));
    let seat_a = Command::Sit {
        seat: Some(SeatId::A),
    };
    room.apply(seat_a, p(), 1).unwrap();
    room.apply(Command::Ready, p(), 2).unwrap();
    room.apply(Command::Ready, Actor::Bot(SeatId::B), 3)
        .unwrap();
    for now in 4..400 {
        let (actor, cmd) = match room.game().and_then(Game::to_act) {
            Some((SeatId::A, BotNeed::Move)) => break,
            Some((SeatId::A, BotNeed::Roll)) => (p(), Command::RollDice),
            Some((SeatId::B, BotNeed::Move)) => {
                let steps = room.view().moves.expect("moves").first_steps;
                let (from, to) = Spot::parse_step(&steps[0]).expect("a step");
                (Actor::Bot(SeatId::B), Command::Move { from, to })
            }
            Some((SeatId::B, _)) => (Actor::Bot(SeatId::B), Command::RollDice),
            other => panic!("unexpected turn {other:?}"),
        };
        room.apply(cmd, actor, now).unwrap();
    }
    assert!(room.hint_turn(&PlayerId::new("p1")).is_ok());
    let mut r = Run::with(RoomHost::new(entry(), room, BTreeMap::new(), false, CFG));
    r.setup(&[In::Rejoin { conn: 1, player: 1 }, In::Ok]);
    r
}

#[test]
fn a_hint_is_computed_for_the_games_scoring() {
    for scoring in [
        tabula_backgammon::Scoring::Single,
        tabula_backgammon::Scoring::Gammons,
    ] {
        let mut options = GameOptions {
            game: GameKind::Backgammon,
            ..GameOptions::default()
        };
        options.backgammon.scoring = scoring;
        let mut r = rolled_turn_in(bot_room_of(options));
        let mut fx = Vec::new();
        r.h.hint(1, Some(1), Some(4), r.now + 10, &mut fx);
        let job = fx
            .iter()
            .find_map(|e| match e {
                Effect::Hint(h) => Some(h),
                _ => None,
            })
            .expect("a hint computed");
        assert_eq!(job.scoring, scoring);
    }
}

#[test]
fn one_hint_in_flight_per_player_and_rollouts_over_64_are_refused() {
    let mut r = rolled_turn();
    r.table(&[
        (In::HintOf(1, 10, 64), &["hint 1 x64"]),
        (
            In::HintOf(1, 11, 64),
            &["#hint/hint_pending", "1: error:hint_pending#11"],
        ),
        (In::HintDone(1, 10), &["#hint/accepted", "1: hint#10"]),
        // Answered once only.
        (In::HintDone(1, 10), &[]),
        // Refused, not clamped.
        (
            In::HintOf(1, 12, 65),
            &["#hint/bad_message", "1: error:bad_message#12"],
        ),
        (
            In::HintOf(1, 13, u32::MAX),
            &["#hint/bad_message", "1: error:bad_message#13"],
        ),
        (In::Hint(1, 14), &["hint 1 x16"]),
    ]);
}

#[test]
fn rollouts_count_against_a_budget_that_survives_reconnects() {
    // 256 rollouts a minute, a minute's worth at most: three hints of 64
    // (65 each with the ranking), then a pause.
    let mut r = rolled_turn();
    r.table(&[
        (In::HintOf(1, 1, 64), &["hint 1 x64"]),
        (In::HintDone(1, 1), &["#hint/accepted", "1: hint#1"]),
        (In::HintOf(1, 2, 64), &["hint 1 x64"]),
        (In::HintDone(1, 2), &["#hint/accepted", "1: hint#2"]),
        (In::HintOf(1, 3, 64), &["hint 1 x64"]),
        (In::HintDone(1, 3), &["#hint/accepted", "1: hint#3"]),
        (
            In::HintOf(1, 4, 64),
            &["#hint/rate_limited", "1: error:rate_limited#4"],
        ),
        // A cheaper one still fits.
        (In::HintOf(1, 5, 4), &["hint 1 x4"]),
        (In::HintDone(1, 5), &["#hint/accepted", "1: hint#5"]),
    ]);
    // About 56 rollouts are left. Reconnecting does not refill them.
    r.setup(&[In::Rejoin { conn: 2, player: 1 }, In::Ok]);
    r.table(&[
        (
            In::HintOf(2, 6, 64),
            &["#hint/rate_limited", "2: error:rate_limited#6"],
        ),
        // 256 a minute: a second brings back ~4 (not enough for 65), three
        // bring back ~13.
        (In::Wait(1_000), &[]),
        (
            In::HintOf(2, 7, 64),
            &["#hint/rate_limited", "2: error:rate_limited#7"],
        ),
        (In::Wait(2_000), &[]),
        (In::HintOf(2, 8, 64), &["hint 2 x64"]),
    ]);
}

#[test]
fn a_hint_is_cancelled_when_its_connection_leaves_or_is_replaced_or_its_asker_leaves() {
    // The socket goes away: cancelled, and its late answer dropped.
    let mut r = rolled_turn();
    r.table(&[(In::Hint(1, 1), &["hint 1 x16"])]);
    let fx = r.feed(In::Detach(1));
    assert_eq!(fx[..2], ["#hint/cancelled", "cancel hint 1"], "{fx:?}");
    r.table(&[(In::HintDone(1, 1), &[])]);
    // Back on a new socket, he may ask again.
    r.setup(&[In::Rejoin { conn: 2, player: 1 }, In::Ok]);
    r.table(&[(In::Hint(2, 2), &["hint 2 x16"])]);
    // A newer socket of the same player replaces the asking one.
    let fx = r.feed(In::Rejoin { conn: 3, player: 1 });
    assert!(
        fx.iter().any(|l| l == "cancel hint 2"),
        "replaced, the hint stays: {fx:?}"
    );
    r.setup(&[In::Ok]);
    r.table(&[(In::HintDone(2, 2), &[])]);
    // Leaving the room (a forfeit) cancels it too.
    r.table(&[(In::Hint(3, 3), &["hint 3 x16"])]);
    let fx = r.feed(In::Cmd(3, 4, Command::Leave));
    assert!(
        fx.iter().any(|l| l == "cancel hint 3"),
        "left, the hint stays: {fx:?}"
    );
    // Another person's hint is none of his business: the bot room's
    // spectator cannot ask (not his turn), and nothing is cancelled.
    let mut r = rolled_turn();
    r.setup(&[In::Watch(5), In::Ok]);
    r.table(&[
        (In::Hint(1, 1), &["hint 1 x16"]),
        (
            In::Hint(5, 1),
            &["#hint/not_time_for_hint", "5: error:not_time_for_hint#1"],
        ),
    ]);
    let fx = r.feed(In::Detach(5));
    assert!(!fx.iter().any(|l| l.contains("cancel hint")), "{fx:?}");
}
