//! Joins, seqs, resume, bots, hints.

use std::collections::BTreeMap;
use std::time::Instant;

use tabula_room::{BotNeed, Command, PlayerId, Room, SeatId};

use super::*;

#[test]
fn a_duplicate_seq_is_acknowledged_not_applied_again() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (In::Ok, SENT_HI),
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/duplicate", "1: ack(dup)#5"],
        ),
        (
            In::Cmd(1, 4, chat("older")),
            &["#cmd/duplicate", "1: ack(dup)#4"],
        ),
        // Seqs are per player.
        (
            In::Cmd(2, 5, chat("hi")),
            &["#cmd/accepted", "write append 3+1"],
        ),
        (
            In::Ok,
            &["1: [chat]", "2: [chat]#5", "latency", "cancel Room"],
        ),
    ]);
    // The seqs go to the store with the inputs, and come back with a
    // takeover: a command resent to the new owner is not applied twice.
    let mut fx = Vec::new();
    r.h.command(1, Some(6), chat("x"), "cmd", Instant::now(), 2000, &mut fx);
    r.feed(In::Ok);
    r.h.persist(&mut fx);
    let stored = fx.iter().find_map(|e| match e {
        Effect::Write(Write::Whole(s)) => Some(s.clone()),
        _ => None,
    });
    let stored = stored.expect("a whole write");
    assert_eq!(stored.seqs.get("p1"), Some(&6));
    assert_eq!(stored.seqs.get("p2"), Some(&5));
    let room = Room::restore(&stored.snapshot).unwrap();
    let h = RoomHost::new(entry(), room, stored.seqs.clone(), true, CFG);
    let mut r = Run::with(h);
    r.setup(&[In::Join(1), In::Ok]);
    r.table(&[
        (
            In::Cmd(1, 6, chat("x")),
            &["#cmd/duplicate", "1: ack(dup)#6"],
        ),
        (
            In::Cmd(1, 7, chat("y")),
            &["#cmd/accepted", "write append 5+1"],
        ),
    ]);
}

#[test]
fn resume_replays_what_was_missed_or_sends_the_state() {
    let mut r = two_seated();
    r.setup(&[
        In::Cmd(1, 5, chat("a")),
        In::Ok,
        In::Cmd(1, 6, chat("b")),
        In::Ok,
    ]);
    let v = r.h.room().version();
    r.table(&[
        (
            In::Resume(2, v - 2, Some(3)),
            &["2: [chat chat]", "2: ack#3"],
        ),
        (In::Resume(2, v, Some(4)), &["2: ack#4"]),
        // Ahead of the room (another history): the full state.
        (In::Resume(2, v + 5, Some(5)), &["2: state"]),
        // A re-join after a re-route gets what it missed, not the state.
        (In::Detach(2), &["write append 4+1"]),
        // Before a game, leaving frees the seat.
        (In::Ok, &["1: [seatFreed]", "cancel Room"]),
        (
            In::Back {
                conn: 12,
                player: 2,
                from: v,
            },
            &["#join/accepted", "write append 5+1"],
        ),
        (
            In::Ok,
            &[
                "1: [seatTaken]",
                "12: [seatFreed seatTaken]",
                "latency",
                "cancel Room",
            ],
        ),
    ]);
}

#[test]
fn a_newer_connection_replaces_the_players_older_one() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Rejoin {
                conn: 11,
                player: 1,
            },
            &["#join/accepted", "last 1: close", "11: state"],
        ),
        // The old connection is gone; its detach changes nothing.
        (In::Cmd(1, 5, chat("hi")), &[]),
        (In::Detach(1), &[]),
        (
            In::Cmd(11, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
    ]);
}

#[test]
fn players_not_back_after_a_takeover_are_disconnected() {
    let mut room = pvp();
    for p in ["p1", "p2"] {
        let a = tabula_room::Actor::Player(PlayerId::new(p));
        room.apply(Command::Sit { seat: None }, a.clone(), 10)
            .unwrap();
        room.apply(Command::Ready, a, 10).unwrap();
    }
    let mut h = RoomHost::<u64>::new(entry(), room, BTreeMap::new(), true, CFG);
    let mut fx = Vec::new();
    h.start(1000, &mut fx);
    assert_eq!(
        show(&fx),
        ["cancel Room", "set Idle 2000", "set Grace 1500"]
    );
    let mut r = Run { h, now: 1000 };
    r.setup(&[In::Join(1), In::Ok]);
    fx.clear();
    r.h.grace(1500, &mut fx);
    // p2 only: p1 came back.
    assert_eq!(show(&fx), ["write append 4+1"]);
    // Its grace runs out 30 s later.
    assert_eq!(
        r.feed(In::Ok),
        ["1: [playerDisconnected]", "set Room 31500"]
    );
    assert!(r.h.room().next_deadline().is_some());
}

#[test]
fn bots_think_when_the_room_asks_and_fall_back_after_failures() {
    let mut r = Run::new(bot_room());
    r.table(&[
        (
            In::Join(1),
            &["#join/accepted", "cancel Idle", "write append 0+1"],
        ),
        (
            In::Ok,
            &["1: state", "latency", "cancel Room", "think B Ready"],
        ),
        // A brain that fails is asked again only after the next events.
        (In::Bot(SeatId::B, BotNeed::Ready, None), &[]),
        (
            In::Cmd(1, 2, chat("a")),
            &["#cmd/accepted", "write append 1+1"],
        ),
        (
            In::Ok,
            &["1: [chat]#2", "latency", "cancel Room", "think B Ready"],
        ),
        // An empty answer and a refused one are failures too.
        (
            In::Bot(SeatId::B, BotNeed::Ready, Some(vec![])),
            &["think B Ready"],
        ),
        (
            In::Bot(SeatId::B, BotNeed::Ready, Some(vec![Command::RollDice])),
            &["think B Ready fallback"],
        ),
        // An answer to a question the room no longer asks is dropped.
        (
            In::Bot(SeatId::B, BotNeed::Roll, Some(vec![Command::RollDice])),
            &["think B Ready fallback"],
        ),
        (
            In::Bot(SeatId::B, BotNeed::Ready, Some(vec![Command::Ready])),
            &["write append 2+1"],
        ),
        // Ready, the bot waits for the person.
        (In::Ok, &["1: [ready]", "cancel Room"]),
    ]);
}

#[test]
fn hints_follow_the_rooms_policy() {
    let mut r = two_seated();
    r.table(&[(
        In::Hint(1, 5),
        &["#hint/hints_disabled", "1: error:hints_disabled#5"],
    )]);
    let mut r = Run::new(bot_room());
    r.setup(&[In::Join(1), In::Ok]);
    r.table(&[(
        In::Hint(1, 5),
        &["#hint/not_time_for_hint", "1: error:not_time_for_hint#5"],
    )]);
    // An answer to a hint nobody asked (or one cancelled) is dropped.
    let mut fx = Vec::new();
    r.h.hint_answered(1, Some(7), Some(vec![]), &mut fx);
    assert!(fx.is_empty(), "{:?}", show(&fx));
}

#[test]
fn a_restored_clocked_room_resumes_its_clock_first_and_writes_that_before_anything() {
    // A clocked game whose last input was at 10 ms: seat A's period
    // began then.
    let mut room = Room::new(tabula_room::RoomConfig {
        master_seed: "host-tests".into(),
        time_control: Some(tabula_room::TimeControl::new(10_000, 30_000)),
        ..tabula_room::RoomConfig::default()
    });
    for p in ["p1", "p2"] {
        let a = tabula_room::Actor::Player(PlayerId::new(p));
        room.apply(Command::Sit { seat: None }, a.clone(), 10)
            .unwrap();
        room.apply(Command::Ready, a, 10).unwrap();
    }
    let before = room.clock().unwrap().running.unwrap();
    assert_eq!(before.deadline, Some(40_010));
    // Restored by a new owner at 5 s: the 5 s in between are nobody's,
    // so the deadline moves to 5 s + 40 s, the resume is written as an
    // input, and the room's timer is set for the new deadline.
    let mut h = RoomHost::<u64>::new(entry(), room, BTreeMap::new(), true, CFG);
    let mut fx = Vec::new();
    h.start(5_000, &mut fx);
    assert_eq!(
        show(&fx),
        [
            "write append 4+1",
            "set Room 45000",
            "set Idle 6000",
            "set Grace 5500"
        ]
    );
    let after = h.room().clock().unwrap().running.unwrap();
    assert_eq!((after.since, after.deadline), (Some(5_000), Some(45_000)));
    // A room with no clock running restores with nothing to resume.
    let mut h = RoomHost::<u64>::new(entry(), pvp(), BTreeMap::new(), true, CFG);
    fx.clear();
    h.start(5_000, &mut fx);
    assert_eq!(
        show(&fx),
        ["cancel Room", "set Idle 6000", "set Grace 5500"]
    );
}

/// Issue 45: `leave` takes the socket out of the room once its answer is
/// out (`Unjoined`: its session is in no room, and the idle-socket rule
/// applies); the room then hears nothing more from it, and with nobody
/// left it watches for being idle.
#[test]
fn a_leave_takes_the_socket_out_of_the_room_once_answered() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(2, 3, Command::Leave),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (
            In::Ok,
            &[
                "1: [seatFreed]",
                "last 2: [seatFreed]#3",
                "latency",
                "last 2: Unjoined",
                "cancel Room",
            ],
        ),
        (In::Cmd(2, 4, chat("still here?")), &[]),
        (
            In::Cmd(1, 5, Command::Leave),
            &["#cmd/accepted", "write append 3+1"],
        ),
        (
            In::Ok,
            &[
                "last 1: [seatFreed]#5",
                "latency",
                "last 1: Unjoined",
                "set Idle 2090",
                "cancel Room",
            ],
        ),
    ]);
}

/// Issue 45: a socket closed by its node's drain does not show the
/// opponent `playerDisconnected`: the room forgets the connection and
/// waits the takeover grace. Back in time (on another node): nothing was
/// ever announced. Not back: marked disconnected when the grace runs out,
/// as after a takeover.
#[test]
fn a_drained_socket_is_no_disconnection_unless_its_player_stays_away() {
    let mut r = two_seated();
    r.table(&[
        // Nothing written, nothing sent: only the grace is set.
        (In::Drained(2), &["set Grace 1550"]),
        // Back on another connection (another node's proxy): a state for
        // him, nothing for the opponent.
        (
            In::Rejoin {
                conn: 12,
                player: 2,
            },
            &["#join/accepted", "12: state"],
        ),
        (In::Grace, &[]),
        // Drained and not back: disconnected when the grace runs out
        // (before a game that frees his seat; in one, his forfeit grace
        // starts, as after a takeover).
        (In::Drained(12), &["set Grace 1580"]),
        (In::Grace, &["write append 2+1"]),
        (In::Ok, &["1: [seatFreed]", "cancel Room"]),
    ]);
}
