//! The bot's notices across a kill -9 of a room's owner (issue 44): the
//! notice of an acknowledged move is neither lost nor sent twice.

#![allow(clippy::print_stdout)]

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use tabula_tests as common;
use tabula_tests::bot_api::{self, BotApi, message, post_update_async};
use tabula_tests::{Client, create_room, next_command, state};

use crate::cluster::Cluster;

const SECRET: &str = "cluster-webhook-secret";

#[actix_rt::test]
async fn kill_9_of_the_owner_after_an_acknowledged_move_sends_its_your_turn_exactly_once() {
    let _one = common::one().await;
    let api = BotApi::start();
    let url = api.url();
    let name = "tgkill";
    let mut c = Cluster::start_env(
        name,
        false,
        &bot_api::node_env(
            &url,
            SECRET,
            &[
                ("TABULA__TELEGRAM__PUBLIC_URL", "https://tabula.example"),
                ("TABULA__TELEGRAM__SET_WEBHOOK", "false"),
                ("TABULA__CLUSTER__TAKEOVER_GRACE_MS", "1500"),
            ],
        ),
    );
    let owner = c.nodes[2].addr;
    let front = c.nodes[0].addr;
    // B started the bot (through another node).
    let (status, _) = post_update_async(front, Some(SECRET), message(1, 22, "en", "/start")).await;
    assert_eq!(status, 200);
    api.wait_for("sendMessage", Duration::from_secs(10), |c| c.len() == 1)
        .await;
    let room = create_room(owner, json!({"game": "long_nardy", "timeControl": "none"})).await;
    let bot = bot_api::TOKEN;
    let mut a = Client::with_init_data(front, "a", &common::telegram::init_data(bot, 11)).await;
    let mut b = Client::with_init_data(front, "b", &common::telegram::init_data(bot, 22)).await;
    a.join(&room).await;
    b.join(&room).await;
    common::both_ready(&mut a, &mut b).await;
    // Nobody sends for a while (as after Telegram's 429), so the notice
    // waits in the queue while its room's owner dies.
    let prefix = format!("t{}{name}", std::process::id());
    let until = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 6_000;
    let out = Command::new("redis-cli")
        .args(["-p", &c.redis.port.to_string(), "SET"])
        .arg(format!("{prefix}:sends-paused"))
        .arg(until.to_string())
        .args(["PX", "6000"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // B leaves; A plays, each command acknowledged, until it is B's turn;
    // then the owner is killed at once.
    drop(b);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = state(front, &room).await;
        match next_command(&st) {
            Some((seat, cmd)) if seat_of(&st, &seat) == "tg:11" => {
                let r = a.call(cmd).await;
                assert_ne!(r["type"], "error", "{r}");
            }
            _ => break,
        }
        assert!(Instant::now() < deadline, "the turn never passed to B");
    }
    c.down(2);
    c.nodes[2].kill9();
    // The room is taken over; B is not back; the notice is sent once the
    // pause is over, exactly once.
    let sent = api
        .wait_for("sendMessage", Duration::from_secs(30), |c| {
            c.iter()
                .filter(|c| {
                    c.body["text"]
                        .as_str()
                        .is_some_and(|t| t.starts_with("Your turn"))
                })
                .count()
                >= 1
        })
        .await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let turns: Vec<_> = api
        .calls("sendMessage")
        .into_iter()
        .filter(|c| {
            c.body["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("Your turn"))
        })
        .collect();
    println!(
        "your turn across kill -9 of the owner: {} sent ({} calls in all; logs: {})",
        turns.len(),
        sent.len(),
        c.logs()
    );
    assert_eq!(turns.len(), 1, "logs: {}", c.logs());
    assert_eq!(turns[0].body["chat_id"], 22);
    assert_eq!(turns[0].answered, "ok");
}

/// The player in `seat` (`a`/`b`) of a room's state.
fn seat_of(st: &serde_json::Value, seat: &str) -> String {
    st["seats"]
        .as_array()
        .and_then(|s| s.get(if seat == "a" { 0 } else { 1 }))
        .and_then(|s| s["player"].as_str())
        .unwrap_or_default()
        .to_string()
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Redis's word on a room: its owner field and its wake, if any.
fn redis_room(c: &Cluster, prefix: &str, room: &str) -> (String, Option<u64>) {
    let cli = |args: &[&str]| {
        let out = Command::new("redis-cli")
            .args(["-p", &c.redis.port.to_string()])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let owner = cli(&["HGET", &format!("{prefix}:room:{{{room}}}"), "owner"]);
    let wake = cli(&["ZSCORE", &format!("{prefix}:wakes"), room]);
    (owner, wake.parse::<f64>().ok().map(|w| w as u64))
}

#[actix_rt::test]
async fn a_correspondence_deadline_fires_for_a_room_no_node_holds_after_the_node_that_unloaded_it_died()
 {
    use tabula_backplane::{RedisBackplane, RedisConfig, RoomEntry, RoomStore, StoredRoom};
    use tabula_room::{Actor, Command as Cmd, PlayerId, Room, RoomConfig, TimeControl};
    let _one = common::one().await;
    let api = BotApi::start();
    let url = api.url();
    let name = "tgcorr";
    let mut c = Cluster::start_env(
        name,
        false,
        &bot_api::node_env(
            &url,
            SECRET,
            &[
                ("TABULA__TELEGRAM__PUBLIC_URL", "https://tabula.example"),
                ("TABULA__TELEGRAM__SET_WEBHOOK", "false"),
                ("TABULA__ROOMS__UNLOAD_AFTER_MS", "1000"),
            ],
        ),
    );
    let front = c.nodes[0].addr;
    for (i, user) in [(1, 11), (2, 22)] {
        let (status, _) =
            post_update_async(front, Some(SECRET), message(i, user, "en", "/start")).await;
        assert_eq!(status, 200);
    }
    api.wait_for("sendMessage", Duration::from_secs(10), |c| c.len() == 2)
        .await;
    // A correspondence game (a day a move) that began a day ago, less
    // 15 s: the first mover's day ends 15 s from now. Written into the
    // store as a node writes a room, then released as an unloaded one.
    let prefix = format!("t{}{name}", std::process::id());
    let writer = RedisBackplane::connect(
        RedisConfig {
            url: c.redis.url(),
            prefix: prefix.clone(),
            ..RedisConfig::default()
        },
        "test-writer",
    )
    .await
    .unwrap();
    let t0 = wall_ms() - tabula_room::DAY_MS + 15_000;
    let mut room = Room::new(RoomConfig {
        time_control: Some(TimeControl::DAYS_1),
        master_seed: "correspondence".into(),
        ..RoomConfig::default()
    });
    let (a, b) = (PlayerId::new("tg:11"), PlayerId::new("tg:22"));
    let steps = [
        (&a, Cmd::Sit { seat: None }),
        (&b, Cmd::Sit { seat: None }),
        (&a, Cmd::Ready),
        (&b, Cmd::Ready),
    ];
    for (i, (p, cmd)) in steps.into_iter().enumerate() {
        room.apply(cmd, Actor::Player(p.clone()), t0 + i as u64)
            .unwrap();
    }
    let deadline = room.next_deadline().expect("the first mover's day");
    let id = "corr-1";
    let entry = RoomEntry {
        id: id.into(),
        invite: "CORR01".into(),
        options: room.config().options,
        created_ms: t0,
        open: false,
        tournament: None,
    };
    writer.register(entry.clone()).await.unwrap();
    let lease = writer.claim(id).await.unwrap();
    let stored = StoredRoom {
        entry,
        snapshot: room.snapshot(),
        seqs: Default::default(),
    };
    writer.save_snapshot(id, lease.epoch, stored).await.unwrap();
    writer
        .release_idle(id, lease.epoch, Duration::from_secs(3600), None)
        .await
        .unwrap();
    // A player looks at it through node 3, which restores it; the clock is
    // the wall's: nothing of the day is forgiven.
    let third = c.nodes[2].addr;
    let mut p =
        Client::with_init_data(third, "b", &common::telegram::init_data(bot_api::TOKEN, 22)).await;
    let st = p.join(id).await;
    assert_eq!(
        st["state"]["clock"]["running"]["deadline"].as_u64(),
        Some(deadline),
        "{st}"
    );
    // He leaves the app: node 3 unloads the room with its deadline as the
    // store's wake, and then dies.
    drop(p);
    let until = Instant::now() + Duration::from_secs(8);
    loop {
        let (owner, wake) = redis_room(&c, &prefix, id);
        if owner.is_empty() && wake == Some(deadline) {
            break;
        }
        assert!(
            Instant::now() < until,
            "not unloaded with its wake: owner {owner:?}, wake {wake:?}; logs: {}",
            c.logs()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(wall_ms() < deadline, "unloaded too late for the test");
    c.down(2);
    c.nodes[2].kill9();
    // At the deadline a live node's sweep takes the room and the mover
    // loses on time: both players are told once.
    let over = |c: &[bot_api::Call]| {
        c.iter()
            .filter(|c| {
                c.body["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("Game over"))
            })
            .count()
    };
    api.wait_for("sendMessage", Duration::from_secs(40), |c| over(c) >= 2)
        .await;
    let fired = wall_ms();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let sent = api.calls("sendMessage");
    assert_eq!(over(&sent), 2, "logs: {}", c.logs());
    let st = state(front, id).await;
    println!(
        "correspondence deadline fired {} ms after it was due, by a node that never held the room",
        fired.saturating_sub(deadline)
    );
    assert_eq!(st["phase"], "finished", "{st}");
    let (owner, wake) = redis_room(&c, &prefix, id);
    assert_eq!(wake, None, "a claim clears the wake (owner {owner})");
}
