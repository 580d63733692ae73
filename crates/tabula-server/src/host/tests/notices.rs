//! The bot's notices (issue 44): who is told what, under which id.

use std::collections::BTreeMap;

use tabula_room::{Command, Event, PlayerId, Room};

use super::*;

const NOTIFY: HostConfig = HostConfig {
    notify: true,
    ..CFG
};

/// Two Telegram players (`tg:11` on 1, `tg:22` on 2), seated, ready,
/// everything written: the game has started.
fn started(config: HostConfig) -> Run {
    started_in(pvp(), config)
}

/// The same in `room`.
fn started_in(room: Room, config: HostConfig) -> Run {
    let mut r = Run::with(RoomHost::new(entry(), room, BTreeMap::new(), false, config));
    r.setup(&[
        In::JoinTg(1, 11),
        In::Ok,
        In::JoinTg(2, 22),
        In::Ok,
        In::Cmd(1, 2, Command::Ready),
        In::Ok,
        In::Cmd(2, 2, Command::Ready),
        In::Ok,
    ]);
    r
}

fn notices(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.starts_with("notify")).collect()
}

/// Whose turn it is: (seat, player, conn), and the version of the event
/// that gave it.
fn turn(r: &Run) -> (tabula_room::SeatId, String, u64, u64) {
    let (seat, _) = r.h.room().game().and_then(|g| g.to_act()).expect("a turn");
    let player = r.h.room().player_in(seat).unwrap().0.clone();
    let conn = if player == "tg:11" { 1 } else { 2 };
    let v =
        r.h.room()
            .log()
            .iter()
            .rev()
            .find(|e| {
                matches!(&*e.event, Event::TurnStarted { seat: s, .. }
                | Event::OpeningRoll { starter: s, .. } if *s == seat)
            })
            .map(|e| e.version)
            .expect("the turn's event");
    (seat, player, conn, v)
}

#[test]
fn a_player_looking_at_the_game_is_told_nothing_and_one_who_leaves_on_his_turn_is_told_once() {
    let mut r = started(NOTIFY);
    let (_, player, conn, v) = turn(&r);
    let other = 3 - conn;
    // The other player leaves: not his turn, nothing.
    let got = r.feed(In::Detach(other));
    assert!(notices(&got).is_empty(), "{got:?}");
    // The player to act leaves: "your turn", under the turn's event.
    let got = r.feed(In::Detach(conn));
    let n = notices(&got);
    assert_eq!(n.len(), 1, "{got:?}");
    assert!(
        n[0].starts_with(&format!("notify your_turn {player} turn:r1:{v} due ")),
        "{n:?}"
    );
}

#[test]
fn the_turn_passing_to_an_absent_player_notifies_him_once_it_is_written() {
    let mut r = started(NOTIFY);
    let (_, mover, conn, _) = turn(&r);
    let absent = 3 - conn;
    let absent_player = if mover == "tg:11" { "tg:22" } else { "tg:11" };
    r.feed(In::Detach(absent));
    r.feed(In::Ok);
    // The mover plays until the turn is the absent player's; the notice
    // comes with the written events, never before the write.
    let mut seq = 10;
    let mut seen = Vec::new();
    for _ in 0..40 {
        let Some((seat, need)) = r.h.room().game().and_then(|g| g.to_act()) else {
            break;
        };
        if r.h.room().player_in(seat).map(|p| p.0.as_str()) != Some(&mover) {
            break;
        }
        let cmd = match need {
            tabula_room::BotNeed::Roll => Command::RollDice,
            _ => {
                let step =
                    r.h.room()
                        .moves_view()
                        .and_then(|m| m.first_steps.first().cloned());
                let Some(step) = step else { break };
                let (from, to) = tabula_room::Spot::parse_step(&step).unwrap();
                Command::Move { from, to }
            }
        };
        seq += 1;
        let got = r.feed(In::Cmd(conn, seq, cmd));
        assert!(
            notices(&got).is_empty(),
            "a notice before its write: {got:?}"
        );
        seen.extend(r.feed(In::Ok));
    }
    seen.extend(r.feed(In::Ok));
    let n = notices(&seen);
    assert_eq!(n.len(), 1, "{seen:?}");
    let (_, player, _, v) = turn(&r);
    assert_eq!(player, absent_player);
    assert!(
        n[0].contains(&format!("your_turn {absent_player} turn:r1:{v} ")),
        "{n:?}"
    );
}

#[test]
fn a_new_owner_queues_the_same_notice_under_the_same_id() {
    let mut r = started(NOTIFY);
    let (_, player, conn, v) = turn(&r);
    let got = r.feed(In::Detach(conn));
    let first = notices(&got)[0].clone();
    // Taken over from the snapshot: after the grace, the players not back
    // are away, and the one to act is told under the same id (which the
    // queue then refuses).
    r.feed(In::Ok);
    let room = Room::restore(&r.h.room().snapshot()).unwrap();
    let mut t = Run::with(RoomHost::new(entry(), room, BTreeMap::new(), true, NOTIFY));
    let mut fx = Vec::new();
    t.h.grace(t.now + 600, &mut fx);
    let got = show(&fx);
    let n = notices(&got);
    assert_eq!(n.len(), 1, "{got:?}");
    let id = |l: &str| l.split(' ').nth(3).unwrap().to_string();
    assert_eq!(id(n[0]), id(&first));
    assert_eq!(id(n[0]), format!("turn:r1:{v}"));
    assert!(n[0].contains(&player));
}

#[test]
fn guests_and_a_node_without_the_bot_cause_no_notice() {
    // The bot off: nothing, whoever leaves.
    let mut r = started(CFG);
    let (_, _, conn, _) = turn(&r);
    assert!(notices(&r.feed(In::Detach(conn))).is_empty());
    // Guests: Telegram cannot reach them.
    let mut r = guests_playing(NOTIFY);
    for c in [1, 2] {
        let got = r.feed(In::Detach(c));
        assert!(notices(&got).is_empty(), "{got:?}");
    }
}

#[test]
fn a_game_against_the_computer_left_by_its_player_is_announced_a_day_later() {
    let room = Room::new(tabula_room::RoomConfig {
        bot: Some(1),
        pause_vs_bot: true,
        master_seed: "host-tests".into(),
        ..tabula_room::RoomConfig::default()
    });
    let mut r = Run::with(RoomHost::new(entry(), room, BTreeMap::new(), false, NOTIFY));
    r.setup(&[
        In::JoinTg(1, 11),
        In::Ok,
        In::Cmd(1, 2, Command::Ready),
        In::Ok,
    ]);
    // The bot presses Ready too: the game is on.
    let req = r.h.room().bot_request().expect("the bot's Ready");
    r.setup(&[
        In::Bot(req.seat, req.need, Some(vec![Command::Ready])),
        In::Ok,
    ]);
    let mut seen = r.feed(In::Detach(1));
    seen.extend(r.feed(In::Ok));
    let n = notices(&seen);
    assert_eq!(n.len(), 1, "{seen:?}");
    let paused =
        r.h.room()
            .log()
            .iter()
            .find_map(|e| match &*e.event {
                Event::GamePaused { since, .. } => Some(*since),
                _ => None,
            })
            .expect("paused");
    assert_eq!(
        *n[0],
        format!(
            "notify bot_game_waiting tg:11 waiting:r1:{paused} due {}",
            paused + BOT_GAME_WAITING_AFTER_MS
        )
    );
    let _ = PlayerId::new("unused");
}

#[test]
fn a_correspondence_game_is_listed_for_both_reminds_the_mover_and_unloads_with_its_deadline() {
    let mut r = Run::with(RoomHost::new(
        entry(),
        correspondence(),
        BTreeMap::new(),
        false,
        NOTIFY,
    ));
    // The first seat taken lists the room for its player, waiting.
    r.feed(In::JoinTg(1, 11));
    let got = r.feed(In::Ok);
    assert!(
        got.contains(&"unfinished tg:11 r1 [0, 0] turn None deadline None vs None".to_string()),
        "{got:?}"
    );
    let mut seen = Vec::new();
    for i in [
        In::JoinTg(2, 22),
        In::Ok,
        In::Cmd(1, 2, Command::Ready),
        In::Ok,
    ] {
        seen.extend(r.feed(i));
    }
    seen.extend(r.feed(In::Cmd(2, 2, Command::Ready)));
    seen.extend(r.feed(In::Ok));
    let (seat, mover, _, v) = turn(&r);
    let deadline = r.h.room().next_deadline().expect("the mover's day");
    // Both are listed with whose turn and until when, naming each other.
    let other = if mover == "tg:11" { "tg:22" } else { "tg:11" };
    for (p, o) in [(&*mover, other), (other, &*mover)] {
        let line = format!(
            "unfinished {p} r1 [0, 0] turn Some({seat:?}) deadline Some({deadline}) vs Some(\"{o}\")"
        );
        assert!(seen.contains(&line), "{line} not in {seen:?}");
    }
    // The mover is reminded 6 hours before his deadline, in the app or not.
    let low = format!(
        "notify time_low {mover} low:r1:{v} due {} until {deadline}",
        deadline - 6 * 3_600_000
    );
    assert!(seen.contains(&low), "{low} not in {seen:?}");
    // Both leave the app: no disconnection (nothing written), and the
    // mover gets his "your turn".
    let left: Vec<String> = [In::Detach(1), In::Detach(2)]
        .into_iter()
        .flat_map(|i| r.feed(i))
        .collect();
    assert!(!left.iter().any(|l| l.starts_with("write")), "{left:?}");
    // It says until when he may move, and the queue keeps its id until
    // then: the same turn is not told twice however often he comes and
    // goes (the id is the turn's; see `Outbox::queue`).
    let told: Vec<_> = notices(&left)
        .into_iter()
        .filter(|l| l.starts_with(&format!("notify your_turn {mover} ")))
        .collect();
    assert_eq!(told.len(), 1, "{left:?}");
    assert!(
        told[0].starts_with(&format!("notify your_turn {mover} turn:r1:{v} due "))
            && told[0].ends_with(&format!(" until {deadline}")),
        "{told:?}"
    );
    // Idle: the game in play unloads, with its deadline as the store's wake.
    assert_eq!(
        r.feed(In::Idle),
        [format!("release idle paused wake {deadline}")]
    );
    // Woken at its deadline on another node, which knows nothing of what
    // was listed: the mover loses on time, and the game leaves both lists.
    let room = Room::restore(&r.h.room().snapshot()).unwrap();
    let mut t = Run::with(RoomHost::new(entry(), room, BTreeMap::new(), true, NOTIFY));
    let mut fx = Vec::new();
    t.h.start(deadline, &mut fx);
    t.h.tick(deadline, deadline, &mut fx);
    let mut got = show(&fx);
    got.extend(t.feed(In::Ok));
    assert_eq!(t.h.room().phase(), tabula_room::Phase::Finished, "{got:?}");
    for p in ["tg:11", "tg:22"] {
        assert!(got.contains(&format!("finished {p}")), "{p}: {got:?}");
    }
}

#[test]
fn the_next_game_of_a_correspondence_match_tells_its_first_mover_if_he_is_away() {
    // Played twice: one player away and the other resigning game 1, then
    // the other way round. Game 2 starts at once (no Ready) with the same
    // first mover both times (the dice are the room's): in the run where
    // he is away he is told "your turn" under game 2's turn event, once it
    // is written; in the other he is there and told nothing.
    let mut told_away = 0;
    for (away, resigner) in [(2u64, 1u64), (1, 2)] {
        let room = correspondence_with(tabula_room::RoomConfig {
            match_length: 3,
            next_game_at_once: true,
            ..tabula_room::RoomConfig::default()
        });
        let mut r = started_in(room, NOTIFY);
        r.feed(In::Detach(away));
        assert_eq!(r.h.room().game_number(), 1);
        let mut got = r.feed(In::Cmd(resigner, 3, Command::Resign));
        got.extend(r.feed(In::Ok));
        assert_eq!(r.h.room().game_number(), 2, "{got:?}");
        assert_eq!(r.h.room().phase(), tabula_room::Phase::Playing);
        let (_, mover, conn, v) = turn(&r);
        let yours: Vec<_> = notices(&got)
            .into_iter()
            .filter(|l| l.starts_with("notify your_turn"))
            .collect();
        if conn == away {
            told_away += 1;
            assert_eq!(yours.len(), 1, "{got:?}");
            assert!(
                yours[0].starts_with(&format!("notify your_turn {mover} turn:r1:{v} due ")),
                "{yours:?}"
            );
        } else {
            assert!(yours.is_empty(), "{got:?}");
        }
    }
    assert_eq!(told_away, 1, "the first mover was away in exactly one run");
}
