//! Tournaments in Telegram groups (issue 49) against the stand-in Bot API
//! ([`tabula_tests::bot_api`]): `/tournament` in a group makes one, the
//! Join button registers whoever taps it, and the group gets the
//! announcement, each round's pairings and the final standings, once
//! each, a 429 obeyed on the way; across a kill -9 of the tournament's
//! owner, no post is lost or doubled.

#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_server::Settings;
use tabula_server::settings::Secret;
use tabula_tests as common;
use tabula_tests::bot_api::{self, BotApi, Call, Fault, post_update_async};
use tabula_tests::{Client, http_async};

use crate::cluster::Cluster;

const SECRET: &str = "group-webhook-secret";
const GROUP: i64 = -1_001_234_567;
const APP: &str = "https://t.me/tabula_test_bot/play";

fn settings(api: &BotApi) -> Settings {
    let mut s = common::test_settings();
    s.auth.bot_token = Some(Secret(bot_api::TOKEN.into()));
    s.auth.force_guest = true;
    s.telegram.webhook_secret = Some(Secret(SECRET.into()));
    s.telegram.api_base_url = api.url();
    s.telegram.set_webhook = false;
    s.telegram.group_interval_ms = 200;
    s.web.telegram_app_url = APP.into();
    s
}

/// A message from `user` in the group.
fn group_message(update_id: u64, user: u64, lang: &str, text: &str) -> Value {
    json!({
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1_700_000_000,
            "chat": {"id": GROUP, "type": "supergroup", "title": "Nardy club"},
            "from": {"id": user, "is_bot": false, "first_name": format!("P{user}"), "language_code": lang},
            "text": text,
        }
    })
}

/// A tap by `user` on a button of the group's message `message`.
fn group_tap(update_id: u64, user: u64, message: i64, data: &str) -> Value {
    json!({"update_id": update_id, "callback_query": {
        "id": format!("cb{update_id}"), "chat_instance": "42",
        "message": {"message_id": message, "date": 1_700_000_000,
                    "chat": {"id": GROUP, "type": "supergroup", "title": "Nardy club"}},
        "from": {"id": user, "is_bot": false, "first_name": format!("P{user}"), "language_code": "en"},
        "data": data}})
}

/// The bot's messages to the group (answered `ok`), by their text.
fn posts(api: &BotApi) -> Vec<Call> {
    api.ok_calls("sendMessage")
        .into_iter()
        .filter(|c| c.body["chat_id"] == GROUP)
        .collect()
}

fn text(c: &Call) -> &str {
    c.body["text"].as_str().unwrap_or("")
}

/// Waits until a post to the group whose text starts with `prefix` has
/// been sent; returns it.
async fn post_starting(api: &BotApi, prefix: &str, within: Duration) -> Call {
    let calls = api
        .wait_for("sendMessage", within, |c| {
            c.iter()
                .any(|c| c.body["chat_id"] == GROUP && text(c).starts_with(prefix))
        })
        .await;
    calls
        .into_iter()
        .find(|c| c.body["chat_id"] == GROUP && text(c).starts_with(prefix))
        .unwrap_or_else(|| panic!("no post {prefix:?}; posts: {:?}", texts(api)))
}

fn texts(api: &BotApi) -> Vec<String> {
    posts(api).iter().map(|c| text(c).to_string()).collect()
}

/// Every button of a message: (text, callback data or url).
fn buttons(call: &Call) -> Vec<(String, String)> {
    call.body["reply_markup"]["inline_keyboard"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|row| row.as_array().cloned().unwrap_or_default())
        .map(|b| {
            let to = b["callback_data"]
                .as_str()
                .or(b["url"].as_str())
                .unwrap_or("");
            (b["text"].as_str().unwrap_or("").to_string(), to.to_string())
        })
        .collect()
}

/// A Telegram player with a session (to play his games).
struct Member {
    id: u64,
    player: String,
    token: String,
}

async fn member(addr: SocketAddr, id: u64) -> Member {
    let user = json!({"id": id, "first_name": format!("P{id}")});
    let c = Client::with_init_data(
        addr,
        &format!("P{id}"),
        &common::telegram::init_data_for(bot_api::TOKEN, &user),
    )
    .await;
    assert_eq!(c.player, format!("tg:{id}"));
    Member {
        id,
        player: c.player.clone(),
        token: c.token.clone().expect("a session token"),
    }
}

/// The tournament as the routes show it, once `pred` holds.
async fn until(addrs: &[SocketAddr], id: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(40);
    let mut i = 0;
    loop {
        let addr = addrs[i % addrs.len()];
        i += 1;
        let (status, v) = http_async(addr, "GET", &format!("/api/tournaments/{id}"), None).await;
        if status == 200 && pred(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: {status} {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn room_over(addr: SocketAddr, room: &str) -> bool {
    let (status, v) = http_async(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    status == 200 && v["state"]["phase"] == "finished"
}

/// Plays every running game of the tournament's view on the live nodes.
async fn play_round(addrs: &[SocketAddr], view: &Value, members: &BTreeMap<String, Member>) {
    let games: Vec<(String, String, String)> = view["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["outcome"].is_null())
        .map(|g| {
            (
                g["roomId"].as_str().unwrap().to_string(),
                g["white"].as_str().unwrap().to_string(),
                g["black"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (room, white, black) in games {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut i = 0;
        loop {
            let addr = addrs[i % addrs.len()];
            i += 1;
            if room_over(addr, &room).await {
                break;
            }
            let (r, w, b) = (
                room.clone(),
                members[&white].token.clone(),
                members[&black].token.clone(),
            );
            let done =
                tokio::spawn(
                    async move { crate::tournaments::try_play(addr, &r, &w, &b, false).await },
                )
                .await
                .unwrap_or(false);
            if done && room_over(addr, &room).await {
                break;
            }
            assert!(Instant::now() < deadline, "game {room} was not played");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The announcement's Join data and its Mini App link, and the
/// tournament's id from them.
fn join_data(announce: &Call) -> (String, String) {
    let b = buttons(announce);
    let join = b
        .iter()
        .find(|(_, to)| to.starts_with("tj:"))
        .unwrap_or_else(|| panic!("no Join button: {b:?}"))
        .1
        .clone();
    let id = join.strip_prefix("tj:").unwrap().to_string();
    let link = b
        .iter()
        .find(|(_, to)| to.starts_with("https://"))
        .expect("a Mini App link")
        .1
        .clone();
    assert_eq!(link, format!("{APP}?startapp=t_{id}"));
    (join, id)
}

/// How many posts to the group start with `prefix`.
fn count(api: &BotApi, prefix: &str) -> usize {
    posts(api)
        .iter()
        .filter(|c| text(c).starts_with(prefix))
        .count()
}

#[actix_rt::test]
async fn a_group_tournament_made_by_command_is_joined_by_button_and_posted_once_each() {
    let _one = common::one().await;
    let api = BotApi::start();
    let node = common::start(settings(&api));
    let addr = node.addr;
    api.wait_for("getMe", Duration::from_secs(5), |c| !c.is_empty())
        .await;

    // Bad arguments: the usage, in the sender's language, and nothing made.
    let (status, _) = post_update_async(
        addr,
        Some(SECRET),
        group_message(1, 11, "ru", "/tournament chess"),
    )
    .await;
    assert_eq!(status, 200);
    let usage = post_starting(&api, "Турнир для этой группы", Duration::from_secs(5)).await;
    assert!(text(&usage).contains("/tournament knockout long 10"));
    // A command to another bot is not ours.
    post_update_async(
        addr,
        Some(SECRET),
        group_message(2, 11, "ru", "/tournament@other_bot knockout short 3s"),
    )
    .await;

    // The members play in the Mini App (their sessions, their names).
    let mut members = BTreeMap::new();
    for id in [11, 22, 33, 44] {
        let m = member(addr, id).await;
        members.insert(m.player.clone(), m);
    }
    // The tournament, in the creator's language (Russian); its first
    // post will meet a 429.
    api.fail_next("sendMessage", Fault::TooMany(1));
    let (status, _) = post_update_async(
        addr,
        Some(SECRET),
        group_message(
            3,
            11,
            "ru",
            &format!("/tournament@{} knockout short 6s", bot_api::BOT_NAME),
        ),
    )
    .await;
    assert_eq!(status, 200);
    let announce = post_starting(&api, "🏆 P11 объявляет турнир", Duration::from_secs(10)).await;
    assert!(
        text(&announce).contains("Короткие нарды, на выбывание"),
        "{}",
        text(&announce)
    );
    let refused: Vec<_> = api
        .calls("sendMessage")
        .into_iter()
        .filter(|c| c.answered == "429")
        .collect();
    assert_eq!(refused.len(), 1, "the 429 was not met");
    assert!(
        announce.at.duration_since(refused[0].at) >= Duration::from_millis(900),
        "the retry did not wait for retry_after"
    );
    let (join, id) = join_data(&announce);
    let message = announce.body["message_id"].as_i64().unwrap_or(1);

    // Four members tap Join (two at once); each is told he is in.
    let taps = [(10, 11), (11, 22), (12, 33), (13, 44)];
    let (a, b) = tokio::join!(
        post_update_async(addr, Some(SECRET), group_tap(10, 11, message, &join)),
        post_update_async(addr, Some(SECRET), group_tap(11, 22, message, &join)),
    );
    assert_eq!((a.0, b.0), (200, 200));
    for (update, user) in &taps[2..] {
        post_update_async(
            addr,
            Some(SECRET),
            group_tap(*update, *user, message, &join),
        )
        .await;
    }
    let answers = api
        .wait_for("answerCallbackQuery", Duration::from_secs(5), |c| {
            c.len() >= 4
        })
        .await;
    for a in &answers {
        assert_eq!(a.body["text"], "You're in the tournament!", "{}", a.body);
    }
    let view = until(&[addr], &id, "four registered", |v| {
        v["players"].as_array().is_some_and(|a| a.len() == 4)
    })
    .await;
    assert_eq!(view["status"], "registering", "{view}");
    // A second tap: already in.
    post_update_async(addr, Some(SECRET), group_tap(14, 22, message, &join)).await;
    let answers = api
        .wait_for("answerCallbackQuery", Duration::from_secs(5), |c| {
            c.len() >= 5
        })
        .await;
    assert_eq!(answers[4].body["text"], "You're already in.");

    // Round 1: two games, posted once; played.
    let round1 = post_starting(&api, "Тур 1, пары:", Duration::from_secs(15)).await;
    assert_eq!(text(&round1).lines().count(), 3, "{}", text(&round1));
    assert!(text(&round1).contains(" — "), "{}", text(&round1));
    assert!(
        buttons(&round1)
            .iter()
            .any(|(_, to)| *to == format!("{APP}?startapp=t_{id}"))
    );
    let view = until(&[addr], &id, "round 1 paired", |v| {
        v["round"] == 1 && v["games"].as_array().is_some_and(|g| g.len() == 2)
    })
    .await;
    play_round(&[addr], &view, &members).await;
    // Round 2: the final; played.
    post_starting(&api, "Тур 2, пары:", Duration::from_secs(15)).await;
    let view = until(&[addr], &id, "round 2 paired", |v| {
        v["round"] == 2 && v["games"].as_array().is_some_and(|g| g.len() == 1)
    })
    .await;
    let last = view["games"][0].clone();
    play_round(&[addr], &view, &members).await;
    // The champion: the final's white (black resigned).
    let champion = last["white"].as_str().unwrap().replace("tg:", "P");
    let fin = post_starting(&api, "🏁 Турнир окончен", Duration::from_secs(15)).await;
    assert!(
        text(&fin).starts_with(&format!("🏁 Турнир окончен. Победитель — {champion}!")),
        "{}",
        text(&fin)
    );
    until(&[addr], &id, "finished", |v| v["status"] == "finished").await;

    // Once each, and nothing else.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let all = texts(&api);
    println!("group posts: {all:#?}");
    for prefix in [
        "🏆",
        "Тур 1, пары:",
        "Тур 2, пары:",
        "🏁 Турнир окончен",
        "Турнир для этой группы",
    ] {
        assert_eq!(count(&api, prefix), 1, "{prefix}: {all:#?}");
    }
    assert_eq!(all.len(), 5, "{all:#?}");
    // Group posts kept the group's pace.
    let times: Vec<_> = posts(&api).iter().map(|c| c.at).collect();
    for w in times.windows(2) {
        assert!(w[1].duration_since(w[0]) >= Duration::from_millis(190));
    }
    let metric = |s: &'static str| common::metric(addr, s);
    assert_eq!(
        metric("tabula_group_posts_sent_total{post=\"round\"}").await,
        2.0
    );
    assert_eq!(
        metric("tabula_group_posts_sent_total{post=\"announce\"}").await,
        1.0
    );
    assert_eq!(
        metric("tabula_group_posts_sent_total{post=\"final\"}").await,
        1.0
    );
    assert_eq!(
        metric("tabula_group_posts_queued_total{post=\"round\"}").await,
        2.0
    );
    assert!(metric("tabula_group_posts_failed_total{reason=\"rate_limited\"}").await >= 1.0);
}

#[actix_rt::test]
async fn a_group_tournament_nobody_joins_is_called_off_in_the_group() {
    let _one = common::one().await;
    let api = BotApi::start();
    let node = common::start(settings(&api));
    let addr = node.addr;
    api.wait_for("getMe", Duration::from_secs(5), |c| !c.is_empty())
        .await;
    post_update_async(
        addr,
        Some(SECRET),
        group_message(1, 11, "en", "/tournament swiss long 2s 3"),
    )
    .await;
    let announce = post_starting(
        &api,
        "🏆 P11 announces a tournament",
        Duration::from_secs(10),
    )
    .await;
    assert!(
        text(&announce).contains("Long nardy, Swiss, 3 rounds"),
        "{}",
        text(&announce)
    );
    let (join, id) = join_data(&announce);
    // One player is not a field.
    post_update_async(addr, Some(SECRET), group_tap(2, 22, 1, &join)).await;
    let called_off = post_starting(
        &api,
        "The tournament was called off",
        Duration::from_secs(10),
    )
    .await;
    assert!(buttons(&called_off).is_empty());
    until(&[addr], &id, "cancelled", |v| v["status"] == "cancelled").await;
    // A late tap: closed.
    post_update_async(addr, Some(SECRET), group_tap(3, 33, 1, &join)).await;
    let answers = api
        .wait_for("answerCallbackQuery", Duration::from_secs(5), |c| {
            c.len() >= 2
        })
        .await;
    assert_eq!(
        answers[1].body["text"],
        "This tournament takes no more players."
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(texts(&api).len(), 2, "{:#?}", texts(&api));
    // In a private chat the command says where it works.
    post_update_async(
        addr,
        Some(SECRET),
        bot_api::message(4, 22, "en", "/tournament knockout long 10"),
    )
    .await;
    let private = api
        .wait_for("sendMessage", Duration::from_secs(5), |c| {
            c.iter().any(|c| c.body["chat_id"] == 22)
        })
        .await;
    assert!(
        private
            .iter()
            .any(|c| text(c).starts_with("Tournaments are run in groups"))
    );
}

#[actix_rt::test]
async fn kill_9_of_a_group_tournaments_owner_loses_and_doubles_no_post() {
    let _one = common::one().await;
    let api = BotApi::start();
    let url = api.url();
    let mut c = Cluster::start_env(
        "tggroup",
        false,
        &bot_api::node_env(
            &url,
            SECRET,
            &[
                ("TABULA__TELEGRAM__SET_WEBHOOK", "false"),
                ("TABULA__TELEGRAM__GROUP_INTERVAL_MS", "200"),
                ("TABULA__WEB__TELEGRAM_APP_URL", APP),
                ("TABULA__CLUSTER__TAKEOVER_GRACE_MS", "1500"),
            ],
        ),
    );
    // The command reaches node 2, which creates and owns the tournament.
    let owner = c.nodes[2].addr;
    let live = [c.nodes[0].addr, c.nodes[1].addr];
    let mut members = BTreeMap::new();
    for id in [11, 22, 33, 44] {
        let m = member(live[0], id).await;
        members.insert(m.player.clone(), m);
    }
    let (status, _) = post_update_async(
        owner,
        Some(SECRET),
        group_message(1, 11, "en", "/tournament knockout short 8s"),
    )
    .await;
    assert_eq!(status, 200);
    let announce = post_starting(&api, "🏆", Duration::from_secs(15)).await;
    let (join, id) = join_data(&announce);
    for (i, m) in members.values().enumerate() {
        post_update_async(
            live[i % 2],
            Some(SECRET),
            group_tap(10 + i as u64, m.id, 1, &join),
        )
        .await;
    }
    post_starting(&api, "Round 1 pairings:", Duration::from_secs(20)).await;
    let view = until(&live, &id, "round 1 paired", |v| {
        v["round"] == 1 && v["games"].as_array().is_some_and(|g| g.len() == 2)
    })
    .await;
    // The owner dies in the middle of round 1; its games are played on
    // the nodes that live, and another node takes the tournament over.
    c.down(2);
    c.nodes[2].kill9();
    play_round(&live, &view, &members).await;
    post_starting(&api, "Round 2 pairings:", Duration::from_secs(40)).await;
    let view = until(&live, &id, "round 2 paired", |v| {
        v["round"] == 2 && v["games"].as_array().is_some_and(|g| g.len() == 1)
    })
    .await;
    play_round(&live, &view, &members).await;
    post_starting(&api, "🏁 The tournament is over", Duration::from_secs(40)).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let all = texts(&api);
    println!("group posts across kill -9 of the owner: {all:#?}");
    for prefix in [
        "🏆",
        "Round 1 pairings:",
        "Round 2 pairings:",
        "🏁 The tournament is over",
    ] {
        assert_eq!(
            count(&api, prefix),
            1,
            "{prefix}: {all:#?}; logs: {}",
            c.logs()
        );
    }
    assert_eq!(all.len(), 4, "{all:#?}");
}
