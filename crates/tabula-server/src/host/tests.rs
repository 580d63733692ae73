//! The host as tables of inputs → effects, without actix or a store.
//! Each effect is shown as a short line (see [`show`]); a connection's
//! sender is its own number.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tabula_backplane::{BackplaneError, RoomEntry};
use tabula_room::{BotNeed, Command, GameKind, GameOptions, PlayerId, Room, RoomConfig, SeatId};

use super::*;

const CFG: HostConfig = HostConfig {
    unload_after: Duration::from_millis(1000),
    takeover_grace: Duration::from_millis(500),
};

fn entry() -> RoomEntry {
    RoomEntry {
        id: "r1".into(),
        invite: "ABCDEF".into(),
        options: Default::default(),
        created_ms: 0,
    }
}

fn pvp() -> Room {
    Room::new(RoomConfig {
        master_seed: "host-tests".into(),
        ..RoomConfig::default()
    })
}

fn bot_room() -> Room {
    Room::new(RoomConfig {
        options: GameOptions {
            game: GameKind::LongNardy,
            ..GameOptions::default()
        },
        bot: Some(1),
        master_seed: "host-tests".into(),
        ..RoomConfig::default()
    })
}

fn fenced() -> BackplaneError {
    BackplaneError::Fenced {
        room: "r1".into(),
        epoch: 1,
    }
}

fn down() -> BackplaneError {
    BackplaneError::Unavailable("connection refused".into())
}

/// One input to the host.
#[derive(Debug, Clone)]
enum In {
    /// Player `p{conn}` joins on `conn`, sitting down.
    Join(u64),
    /// Player `p{player}` joins again on a new `conn`.
    Rejoin {
        conn: u64,
        player: u64,
    },
    /// Player `p{player}` re-joins on `conn` after a re-route, having
    /// seen `from`.
    Back {
        conn: u64,
        player: u64,
        from: u64,
    },
    /// A spectator `s{conn}` joins.
    Watch(u64),
    /// A command with a seq.
    Cmd(u64, u64, Command),
    Resume(u64, u64, Option<u64>),
    Detach(u64),
    Hint(u64, u64),
    Ok,
    Fail(fn() -> BackplaneError),
    Gap,
    Retry,
    Persist,
    Shutdown,
    HandedOff(bool, bool),
    LeaseLost,
    Idle,
    Released(Result<(), fn() -> BackplaneError>),
    Bot(SeatId, BotNeed, Option<Vec<Command>>),
}

fn chat(text: &str) -> Command {
    Command::Chat { text: text.into() }
}

/// A host, started at `now` = 1000, fed inputs at `now` + 10 each.
struct Run {
    h: RoomHost<u64>,
    now: u64,
}

impl Run {
    fn new(room: Room) -> Run {
        Run::with(RoomHost::new(entry(), room, BTreeMap::new(), false, CFG))
    }

    fn with(mut h: RoomHost<u64>) -> Run {
        let mut fx = Vec::new();
        h.start(1000, &mut fx);
        Run { h, now: 1000 }
    }

    /// Feeds one input; its effects, shown.
    fn feed(&mut self, input: In) -> Vec<String> {
        self.now += 10;
        let now = self.now;
        let mut fx = Vec::new();
        let h = &mut self.h;
        let join = |conn, player: String, resume_from, spectate| JoinReq {
            conn,
            player: PlayerId::new(player),
            tx: conn,
            seat: None,
            spectate,
            seq: Some(1),
            resume_from,
            received: Instant::now(),
        };
        match input {
            In::Join(c) => {
                h.join(join(c, format!("p{c}"), None, false), now, &mut fx);
            }
            In::Rejoin { conn, player } => {
                h.join(join(conn, format!("p{player}"), None, false), now, &mut fx);
            }
            In::Back { conn, player, from } => {
                h.join(
                    join(conn, format!("p{player}"), Some(from), false),
                    now,
                    &mut fx,
                );
            }
            In::Watch(c) => {
                h.join(join(c, format!("s{c}"), None, true), now, &mut fx);
            }
            In::Cmd(c, seq, cmd) => {
                h.command(c, Some(seq), cmd, "cmd", Instant::now(), now, &mut fx)
            }
            In::Resume(c, v, seq) => h.resume(c, v, seq, &mut fx),
            In::Detach(c) => h.detach(c, now, &mut fx),
            In::Hint(c, seq) => h.hint(c, Some(seq), None, &mut fx),
            In::Ok => h.written(Ok(()), now, &mut fx),
            In::Fail(e) => h.written(Err(e()), now, &mut fx),
            In::Gap => h.written(
                Err(BackplaneError::Gap { stored: 0, base: 3 }),
                now,
                &mut fx,
            ),
            In::Retry => h.retry(&mut fx),
            In::Persist => h.persist(&mut fx),
            In::Shutdown => h.shutdown(&mut fx),
            In::HandedOff(saved, released) => h.handed_off(saved, released, &mut fx),
            In::LeaseLost => h.lease_lost(&mut fx),
            In::Idle => h.idle(now, &mut fx),
            In::Released(r) => h.idle_released(r.map_err(|e| e()), now, &mut fx),
            In::Bot(seat, need, cmds) => h.bot_answered(seat, need, cmds, now, &mut fx),
        }
        show(&fx)
    }

    /// Feeds a table: each input and the effects it must have.
    fn table(&mut self, rows: &[(In, &[&str])]) {
        for (i, (input, want)) in rows.iter().enumerate() {
            let got = self.feed(input.clone());
            assert_eq!(got, *want, "row {i}: {input:?}");
        }
    }

    /// Feeds inputs whose effects do not matter here.
    fn setup(&mut self, inputs: &[In]) {
        for i in inputs {
            self.feed(i.clone());
        }
    }
}

fn json_type(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
    let t = v["type"].as_str().unwrap_or("?").to_string();
    match t.as_str() {
        "error" => format!("error:{}", v["code"].as_str().unwrap_or("?")),
        "ack" if v["duplicate"] == true => "ack(dup)".into(),
        "event" => v["event"]["type"].as_str().unwrap_or("?").to_string(),
        _ => t,
    }
}

fn out(o: &Outbound) -> String {
    match o {
        Outbound::Msg(m) => {
            let seq = m.seq().map(|s| format!("#{s}")).unwrap_or_default();
            format!("{}{seq}", json_type(&m.to_json()))
        }
        Outbound::Batch(items) => {
            let seq = items
                .iter()
                .find_map(|i| i.seq)
                .map(|s| format!("#{s}"))
                .unwrap_or_default();
            let types: Vec<String> = items.iter().map(|i| json_type(&i.text)).collect();
            format!("[{}]{seq}", types.join(" "))
        }
        Outbound::Close(_) => "close".into(),
        Outbound::Reroute => "reroute".into(),
        other => format!("{other:?}"),
    }
}

/// One line per effect; sends to several connections in a row (a
/// fan-out, whose order is the map's) sorted by connection.
fn show(fx: &[Effect<u64>]) -> Vec<String> {
    let mut lines = lines(fx);
    let mut i = 0;
    while i < lines.len() {
        let fan = lines[i..]
            .iter()
            .take_while(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .count();
        lines[i..i + fan].sort_by_key(|l| l.split(':').next().and_then(|n| n.parse::<u64>().ok()));
        i += fan.max(1);
    }
    lines
}

fn lines(fx: &[Effect<u64>]) -> Vec<String> {
    fx.iter()
        .map(|e| match e {
            Effect::Send { conn, out: o } => format!("{conn}: {}", out(o)),
            Effect::Last { tx, out: o } => format!("last {tx}: {}", out(o)),
            Effect::Write(Write::Whole(s)) => format!("write whole {}", s.snapshot.inputs.len()),
            Effect::Write(Write::Append(a)) => {
                format!("write append {}+{}", a.base, a.inputs.len())
            }
            Effect::Handoff {
                stored,
                needs_owner,
            } => format!(
                "handoff {} owner={needs_owner}",
                stored.snapshot.inputs.len()
            ),
            Effect::ReleaseIdle => "release idle".into(),
            Effect::Set { timer, at } => format!("set {timer:?} {at}"),
            Effect::Cancel(t) => format!("cancel {t:?}"),
            Effect::Think(t) => format!(
                "think {:?} {:?}{}",
                t.seat,
                t.need,
                if t.fallback { " fallback" } else { "" }
            ),
            Effect::Hint(h) => format!("hint {} x{}", h.conn, h.rollouts),
            Effect::RecordStats { player, .. } => format!("stats {}", player.0),
            Effect::SaveRecord { game_number, .. } => format!("record {game_number}"),
            Effect::Count(Count::Command { kind, outcome }) => format!("#{kind}/{outcome}"),
            Effect::Count(Count::Fenced) => "#fenced".into(),
            Effect::Count(Count::StoreError(op)) => format!("#error/{op}"),
            Effect::Count(Count::Release(why)) => format!("#release/{why}"),
            Effect::Count(Count::GameFinished(k)) => format!("#finished/{k}"),
            Effect::Latency(_) => "latency".into(),
            Effect::Stop => "stop".into(),
        })
        .collect()
}

/// Two players seated on connections 1 and 2, everything written.
fn two_seated() -> Run {
    let mut r = Run::new(pvp());
    r.setup(&[In::Join(1), In::Ok, In::Join(2), In::Ok]);
    assert_eq!(r.h.lifecycle(), Lifecycle::Serving);
    r
}

const SENT_HI: &[&str] = &["1: [chat]#5", "2: [chat]", "latency", "cancel Room"];

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
                &["#fenced", "1: reroute", "2: reroute", "stop"],
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
        (In::Fail(down), &["#error/save_snapshot", "set Retry 1310"]),
        // Nothing is acknowledged that may yet be lost.
        (
            In::Cmd(2, 1, chat("b")),
            &["#cmd/unavailable", "2: error:unavailable#1"],
        ),
        (In::Resume(2, 0, Some(2)), &["2: error:unavailable#2"]),
        // A join is taken (it is written with the rest).
        (In::Watch(3), &["#join/accepted"]),
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
fn a_drain_hands_the_room_off_then_stops() {
    let mut r = two_seated();
    r.table(&[
        (
            In::Cmd(1, 5, chat("hi")),
            &["#cmd/accepted", "write append 2+1"],
        ),
        (In::Fail(down), &["#error/save_snapshot", "set Retry 1310"]),
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
        (In::Fail(down), &["#error/save_snapshot", "set Retry 1310"]),
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
        (In::Released(Err(fenced)), &["stop"]),
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
    let mut fx = Vec::new();
    r.h.hint_answered(1, Some(6), None, &mut fx);
    r.h.hint_answered(1, Some(7), Some(vec![]), &mut fx);
    assert_eq!(
        show(&fx),
        ["1: error:internal#6", "#hint/accepted", "1: hint#7"]
    );
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
