//! Writes, their results, the drain, idle unloads, the fence.

use std::collections::BTreeMap;

use tabula_backplane::BackplaneError;
use tabula_room::Command;

use super::*;

#[test]
fn an_input_is_written_before_its_events_go_out() {
    let mut r = Run::new(pvp());
    r.table(&[
        (
            In::Join(1),
            &["#join/accepted", "cancel Idle", "write append 0+1"],
        ),
        (In::Ok, &["1: state", "latency", "cancel Room"]),
        (In::Join(2), &["#join/accepted", "write append 1+1"]),
        (
            In::Ok,
            &["1: [seatTaken]", "2: state", "latency", "cancel Room"],
        ),
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (In::Ok, SENT_HI),
        // A refused command changes nothing and writes nothing.
        (
            In::Cmd(2, 1, chat("")),
            &["#cmd/chat_empty", "2: error:chat_empty#1"],
        ),
        // A connection the room does not hold is not heard.
        (In::Cmd(9, 1, chat("hi")), &[]),
    ]);
}

#[test]
fn a_write_refused_by_the_fence_stops_the_room_and_sends_nothing() {
    for e in [fenced as fn() -> BackplaneError, || {
        BackplaneError::StaleVersion { version: 3 }
    }] {
        let mut r = two_seated();
        r.table(&[
            (
                In::Cmd(1, 5, chat("hi")),
                &["#cmd/accepted", "write append 2+1"],
            ),
            // The chat is never sent: every socket re-routes.
            (
                In::Fail(e),
                &["#fenced snapshot", "1: reroute", "2: reroute", "stop"],
            ),
            (In::Cmd(2, 1, chat("hi")), &[]),
            (In::Resume(1, 0, Some(6)), &[]),
            (In::Hint(1, 7), &[]),
            (In::Join(3), &["last 3: reroute"]),
            (In::Persist, &[]),
            (In::Retry, &[]),
            (In::Ok, &[]),
            (In::Shutdown, &[]),
            (In::LeaseLost, &[]),
        ]);
        assert_eq!(r.h.lifecycle(), Lifecycle::Stopped);
    }
}

#[test]
fn a_store_unavailable_refuses_commands_until_a_write_succeeds() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        // The command under way is answered at once (issue 45: it was
        // silent until the store came back).
        (
            In::Fail(down),
            &[
                "#error/save_snapshot",
                "1: error:unavailable#5",
                "set Retry 1310",
            ],
        ),
        // Nothing is acknowledged that may yet be lost.
        (
            In::Cmd(2, 1, chat("b")),
            &["#cmd/unavailable", "2: error:unavailable#1"],
        ),
        (In::Resume(2, 0, Some(2)), &["2: error:unavailable#2"]),
        // A join is taken (it is written with the rest), and answered
        // `unavailable` meanwhile.
        (In::Watch(3), &["#join/accepted", "3: error:unavailable#1"]),
        // A second failure while a retry is due schedules no other.
        (In::Persist, &["write whole 4"]),
        (In::Fail(down), &["#error/save_snapshot"]),
        (In::Retry, &["write whole 4"]),
        (In::Fail(down), &["#error/save_snapshot", "set Retry 1380"]),
        (In::Retry, &["write whole 4"]),
        // Written: everything held back goes out, in order.
        (
            In::Ok,
            &[
                "1: [chat]#5",
                "2: [chat]",
                "3: [chat]",
                "latency",
                "1: [spectatorJoined]",
                "2: [spectatorJoined]",
                "3: state",
                "latency",
                "cancel Room",
            ],
        ),
        (
            In::Cmd(2, 1, chat("b")),
            &["#cmd/accepted", "write append 4+1"],
        ),
        (
            In::Ok,
            &[
                "1: [chat]",
                "2: [chat]#1",
                "3: [chat]",
                "latency",
                "cancel Room",
            ],
        ),
        // A retry due after the store came back does nothing.
        (In::Retry, &[]),
    ]);
}

#[test]
fn an_append_the_store_cannot_take_is_written_whole() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (In::Gap, &["write whole 3"]),
        (In::Ok, SENT_HI),
        (
            In::Cmd(1, 6, chat("hi")),
            &["#cmd/accepted", "write append 3+1"],
        ),
        // The store came back empty: the next write is whole.
        (
            In::Ok,
            &["1: [chat]#6", "2: [chat]", "latency", "cancel Room"],
        ),
        (In::Persist, &["write whole 4"]),
        (In::Ok, &[]),
        (
            In::Cmd(1, 7, chat("hi")),
            &["#cmd/accepted", "write append 4+1"],
        ),
    ]);
}

#[test]
fn the_room_is_written_whole_every_compact_every_appends() {
    let mut r = two_seated();
    r.setup(&[In::Persist, In::Ok]);
    let mut writes = Vec::new();
    for seq in 1..=(2 * COMPACT_EVERY as u64 + 2) {
        let fx = r.feed(In::Cmd(1, seq, chat("hi")));
        writes.push(fx[1].clone());
        r.feed(In::Ok);
    }
    for (i, w) in writes.iter().enumerate() {
        let inputs = 2 + i;
        let want = if i == COMPACT_EVERY || i == 2 * COMPACT_EVERY + 1 {
            format!("write whole {}", inputs + 1)
        } else {
            format!("write append {inputs}+1")
        };
        assert_eq!(*w, want, "write {i}");
    }
}

#[test]
fn a_drain_hands_the_room_off_then_stops() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (
            In::Fail(down),
            &[
                "#error/save_snapshot",
                "1: error:unavailable#5",
                "set Retry 1310",
            ],
        ),
        (In::Shutdown, &["handoff 3 owner=true"]),
        // Frozen: nothing applies, joiners go to the next owner.
        (In::Cmd(2, 1, chat("b")), &[]),
        (In::Join(3), &["last 3: reroute"]),
        (In::Detach(2), &[]),
        (In::Retry, &[]),
        (In::Persist, &[]),
        (In::Shutdown, &[]),
        // The final snapshot holds the chat: it goes out, then every
        // socket re-routes.
        (
            In::HandedOff(true, true),
            &[
                "1: [chat]#5",
                "latency",
                "#release/drain",
                "1: reroute",
                "stop",
            ],
        ),
    ]);
    // Refused: what it did not cover is never sent.
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (
            In::Fail(down),
            &[
                "#error/save_snapshot",
                "1: error:unavailable#5",
                "set Retry 1310",
            ],
        ),
        (In::Shutdown, &["handoff 3 owner=true"]),
        (
            In::HandedOff(false, false),
            &["1: reroute", "2: reroute", "stop"],
        ),
    ]);
    assert_eq!(r.h.lifecycle(), Lifecycle::Stopped);
}

#[test]
fn an_idle_room_is_unloaded() {
    let mut h = RoomHost::<u64>::new(entry(), pvp(), BTreeMap::new(), false, CFG);
    let mut fx = Vec::new();
    h.start(1000, &mut fx);
    assert_eq!(show(&fx), ["cancel Room", "set Idle 2000"]);
    let mut r = Run { h, now: 1000 };
    r.table(&[
        (In::Idle, &["release idle"]),
        // Unloading: a joiner finds the room again once it is released.
        (In::Join(1), &["last 1: reroute"]),
        (In::Released(Ok(())), &["#release/idle", "stop"]),
    ]);
    // The store refused: the room stays and looks again later.
    let mut r = Run::new(pvp());
    r.table(&[
        (In::Idle, &["release idle"]),
        (
            In::Released(Err(down)),
            &["#error/release", "set Idle 2020"],
        ),
        (
            In::Join(1),
            &["#join/accepted", "cancel Idle", "write append 0+1"],
        ),
        (In::Idle, &[]),
        (In::Ok, &["1: state", "latency", "cancel Room"]),
        (In::Detach(1), &["set Idle 2060", "write append 1+1"]),
        // Busy writing: not yet.
        (In::Idle, &["set Idle 2070"]),
        (In::Ok, &["cancel Room"]),
        (In::Idle, &["release idle"]),
        // Fenced meanwhile: not ours to keep.
        (In::Released(Err(fenced)), &["#fenced release", "stop"]),
    ]);
}

#[test]
fn a_game_in_play_is_not_unloaded() {
    let mut r = two_seated();
    r.setup(&[
        In::Cmd(1, 2, Command::Ready),
        In::Ok,
        In::Cmd(2, 2, Command::Ready),
        In::Ok,
    ]);
    r.setup(&[In::Detach(1), In::Ok, In::Detach(2), In::Ok]);
    assert_eq!(r.h.room().phase(), tabula_room::Phase::Playing);
    let now = r.now + 10;
    assert_eq!(r.feed(In::Idle), [format!("set Idle {}", now + 1000)]);
}

#[test]
fn the_lease_lost_stops_the_room_at_once() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (
            In::LeaseLost,
            &["#release/lease_lost", "1: reroute", "2: reroute", "stop"],
        ),
        (In::Ok, &[]),
        (In::LeaseLost, &[]),
    ]);
}

#[test]
fn a_write_due_while_another_is_under_way_follows_it() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        // (Under actix the write holds the mailbox; the host does not rely
        // on it.)
        (In::Cmd(2, 1, chat("b")), &["#cmd/accepted"]),
        (In::Persist, &[]),
        // The first write covers the first chat only: it goes out, and the
        // next write (whole, as Persist asked) carries the second.
        (
            In::Ok,
            &[
                "1: [chat]#5",
                "2: [chat]",
                "latency",
                "cancel Room",
                "write whole 4",
            ],
        ),
        (
            In::Ok,
            &["1: [chat]", "2: [chat]#1", "latency", "cancel Room"],
        ),
        (
            In::Cmd(1, 6, chat("c")),
            &["#cmd/accepted", "write append 4+1"],
        ),
    ]);
}

#[test]
fn a_game_against_a_bot_left_by_its_player_pauses_is_listed_and_unloads() {
    let mut r = Run::new(bot_room());
    r.setup(&[
        In::Join(1),
        In::Ok,
        In::Bot(SeatId::B, BotNeed::Ready, Some(vec![Command::Ready])),
        In::Ok,
        In::Cmd(1, 2, Command::Ready),
    ]);
    // The bot won the opening roll: it is thinking of its move.
    let started = r.feed(In::Ok);
    assert_eq!(r.h.room().phase(), tabula_room::Phase::Playing);
    assert_eq!(started.last().map(String::as_str), Some("think B Move"));
    // She leaves: the game pauses; once written, it is listed for her
    // "Continue" and nothing is scheduled (no grace, no bot).
    let left = r.feed(In::Detach(1));
    assert!(
        left.iter().any(|l| l.starts_with("write append")),
        "{left:?}"
    );
    let paused_at = r.now;
    let written = r.feed(In::Ok);
    assert_eq!(
        written,
        ["unfinished p1 r1 [0, 0]", "cancel Room"],
        "{written:?}"
    );
    assert!(r.h.room().paused());
    // The bot's answer on its way is dropped: no move while she is away.
    assert!(r.h.room().bot_request().is_none());
    let version = r.h.room().version();
    assert!(
        r.feed(In::Bot(SeatId::B, BotNeed::Move, Some(vec![])))
            .is_empty()
    );
    assert_eq!(r.h.room().version(), version);
    // Idle: unloaded (a paused game waits in the store, not in memory).
    let idle_at = paused_at + 1000;
    r.now = idle_at;
    assert_eq!(r.feed(In::Idle), ["release idle paused"]);
    assert_eq!(r.feed(In::Released(Ok(()))), ["#release/idle", "stop"]);
}

#[test]
fn an_open_correspondence_challenge_waits_loaded_for_a_taker_then_unloads() {
    let open = RoomEntry {
        open: true,
        ..entry()
    };
    let corr = correspondence;
    let mut r = Run::with(RoomHost::new(
        open.clone(),
        corr(),
        BTreeMap::new(),
        false,
        CFG,
    ));
    r.setup(&[In::Join(1), In::Ok]);
    // Its maker leaves: the room is not unloaded at `unload_after` but
    // waits `open_wait` (10 s here) from when he left, listed meanwhile.
    r.feed(In::Detach(1));
    let left = r.now;
    r.now = left + 1000;
    assert_eq!(r.feed(In::Idle), [format!("set Idle {}", left + 10_000)]);
    // He comes back and leaves again: the wait counts from then.
    r.setup(&[In::Join(1), In::Detach(1)]);
    let left = r.now;
    r.now = left + 1000;
    assert_eq!(r.feed(In::Idle), [format!("set Idle {}", left + 10_000)]);
    r.now = left + 10_000;
    assert_eq!(r.feed(In::Idle), ["release idle paused"]);

    // Taken: a correspondence game between moves unloads as before.
    let mut r = Run::with(RoomHost::new(open, corr(), BTreeMap::new(), false, CFG));
    r.setup(&[
        In::Join(1),
        In::Ok,
        In::Join(2),
        In::Ok,
        In::Detach(1),
        In::Detach(2),
    ]);
    r.now += 1000;
    assert_eq!(r.feed(In::Idle), ["release idle paused"]);
    // A room not created open, one player seated: no wait either.
    let mut r = Run::new(corr());
    r.setup(&[In::Join(1), In::Ok, In::Detach(1)]);
    r.now += 1000;
    assert_eq!(r.feed(In::Idle), ["release idle paused"]);
}

/// A restored room queues its last finished game again (its owner may
/// have died between the game's end and its queuing; the queue keeps the
/// first entry of a key), but not once a seat is empty: a player left the
/// finished match, and that entry could not be archived.
#[test]
fn a_restored_room_queues_its_last_game_again_only_while_both_seats_are_held() {
    let config = HostConfig {
        archive: true,
        ..CFG
    };
    let mut r = guests_playing(config);
    let mut got = r.feed(In::Cmd(1, 3, Command::Resign));
    got.extend(r.feed(In::Ok));
    assert_eq!(r.h.room().phase(), tabula_room::Phase::Finished, "{got:?}");
    assert_eq!(
        got.iter().filter(|l| *l == "archive r1#1").count(),
        1,
        "queued at the game's end: {got:?}"
    );
    let restored = |r: &Run| -> Vec<String> {
        let room = Room::restore(&r.h.room().snapshot()).expect("restores");
        let mut h = RoomHost::<u64>::new(entry(), room, BTreeMap::new(), true, config);
        let mut fx = Vec::new();
        h.start(5_000, &mut fx);
        show(&fx)
            .into_iter()
            .filter(|l| l.starts_with("archive"))
            .collect()
    };
    assert_eq!(restored(&r), ["archive r1#1"]);
    r.setup(&[In::Cmd(2, 4, Command::Leave), In::Ok]);
    assert!(
        SeatId::BOTH
            .iter()
            .any(|&s| r.h.room().player_in(s).is_none())
    );
    assert_eq!(restored(&r), Vec::<String>::new());
}
