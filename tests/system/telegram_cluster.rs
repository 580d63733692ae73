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
        &[
            ("TABULA__AUTH__BOT_TOKEN", bot_api::TOKEN),
            ("TABULA__AUTH__FORCE_GUEST", "true"),
            ("TABULA__TELEGRAM__WEBHOOK_SECRET", SECRET),
            ("TABULA__TELEGRAM__API_BASE_URL", &url),
            ("TABULA__TELEGRAM__PUBLIC_URL", "https://tabula.example"),
            ("TABULA__TELEGRAM__SET_WEBHOOK", "false"),
            ("TABULA__CLUSTER__TAKEOVER_GRACE_MS", "1500"),
        ],
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
