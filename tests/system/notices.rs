//! The Mini App's notification settings (issue 44): `GET` / `PUT
//! /api/me/notices` on a real `tabula-node` process whose bot talks to the
//! stand-in Bot API. They read and write the bot's own record of the
//! player, so a kind turned off in the Mini App is off in the bot's
//! `/settings`, and one the bot turns back on is on in the Mini App.

use std::time::{Duration, Instant};

use common::telegram::{enc, init_data};
use serde_json::{Value, json};
use tabula_tests as common;
use tabula_tests::bot_api::{self, BotApi, message, post_update_async};

use crate::node_proc::NodeProc;

const SECRET: &str = "webhook-secret_1";
const KINDS: [&str; 7] = [
    "your_turn",
    "time_low",
    "invite_taken",
    "rematch",
    "bot_game_waiting",
    "game_ended",
    "tournament_game",
];

/// The kinds that are on, in the answer's order.
fn on(v: &Value) -> Vec<&str> {
    v["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["on"] == true)
        .map(|k| k["kind"].as_str().unwrap())
        .collect()
}

/// Whether a sent message is the `/settings` answer: its keyboard's
/// buttons switch kinds (`set:…`). The `/start` greeting, which may
/// arrive after it on a loaded machine, is not.
fn has_keyboard(c: &bot_api::Call) -> bool {
    c.body["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        .as_str()
        .is_some_and(|d| d.starts_with("set:"))
}

/// The bot's `/settings` keyboard last sent: each button's text.
fn bot_switches(api: &BotApi) -> Vec<String> {
    let sent = api.ok_calls("sendMessage");
    let last = sent
        .iter()
        .rev()
        .find(|c| has_keyboard(c))
        .expect("a /settings answer");
    last.body["reply_markup"]["inline_keyboard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row[0]["text"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn the_mini_app_reads_and_writes_the_same_switches_as_the_bots_settings() {
    let _one = common::one().await;
    let api = BotApi::start();
    let api_url = api.url();
    let node = NodeProc::start(&bot_api::node_env(&api_url, SECRET, &[]));
    let addr = node.addr;
    let me = format!(
        "/api/me/notices?initData={}",
        enc(&init_data(bot_api::TOKEN, 31))
    );
    let get = || common::http_async(addr, "GET", &me, None);
    let put = |body: Value| common::http_async(addr, "PUT", &me, Some(body));

    // Credentials are required; a guest has no bot to hear from.
    let (status, v) = common::http_async(addr, "GET", "/api/me/notices", None).await;
    assert_eq!(status, 401, "{v}");
    let (status, v) = common::http_async(addr, "GET", "/api/me/notices?guest=bob", None).await;
    assert_eq!(status, 401, "a guest name is not a sign-in: {v}");

    // Never started the bot: told so, every kind on (nothing turned off),
    // and nothing to write.
    let (status, v) = get().await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["started"], false, "{v}");
    assert_eq!(v["blocked"], false, "{v}");
    assert_eq!(on(&v), KINDS, "{v}");
    let (status, v) = put(json!({"rematch": false})).await;
    assert_eq!(status, 409, "{v}");
    assert_eq!(v["error"]["code"], "bad_request", "{v}");
    assert_eq!(on(&get().await.1), KINDS, "nothing written");

    // He starts the bot (its webhook acts after answering).
    let (status, v) = post_update_async(addr, Some(SECRET), message(1, 31, "en", "/start")).await;
    assert_eq!(status, 200, "{v}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while get().await.1["started"] != true {
        assert!(Instant::now() < deadline, "the /start was not recorded");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Two kinds off in the Mini App: the answer, a later GET and the bot's
    // /settings all say so.
    let (status, v) = put(json!({"rematch": false, "your_turn": false})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        on(&v),
        [
            "time_low",
            "invite_taken",
            "bot_game_waiting",
            "game_ended",
            "tournament_game"
        ],
        "{v}"
    );
    assert_eq!(on(&get().await.1), on(&v));
    // Turning off what is off changes nothing.
    let (status, v) = put(json!({"rematch": false})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        on(&v),
        [
            "time_low",
            "invite_taken",
            "bot_game_waiting",
            "game_ended",
            "tournament_game"
        ],
        "{v}"
    );
    let sent = api.ok_calls("sendMessage").len();
    let (status, _) =
        post_update_async(addr, Some(SECRET), message(2, 31, "en", "/settings")).await;
    assert_eq!(status, 200);
    api.wait_for("sendMessage", Duration::from_secs(5), |c| {
        c.iter().skip(sent).any(has_keyboard)
    })
    .await;
    assert_eq!(
        bot_switches(&api),
        [
            "❌ Your turn",
            "✅ Little time left (correspondence)",
            "✅ Invite accepted",
            "❌ Rematch offers",
            "✅ A game against the computer waits",
            "✅ Game over",
            "✅ Tournament game ready",
        ]
    );

    // The bot turns rematch back on: the Mini App reads it.
    let tap = json!({"update_id": 3, "callback_query": {
        "id": "cb3", "chat_instance": "1",
        "from": {"id": 31, "is_bot": false, "first_name": "Ann", "language_code": "en"},
        "data": "set:rematch"}});
    assert_eq!(post_update_async(addr, Some(SECRET), tap).await.0, 200);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let v = get().await.1;
        if on(&v).contains(&"rematch") {
            assert_eq!(
                on(&v),
                [
                    "time_low",
                    "invite_taken",
                    "rematch",
                    "bot_game_waiting",
                    "game_ended",
                    "tournament_game"
                ]
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the bot's switch was not read: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Bodies that do not read change nothing.
    for body in [
        json!({"challenge_over": false}),
        json!({"nope": true}),
        json!({"rematch": "no"}),
        json!({}),
        json!(["rematch"]),
    ] {
        let (status, v) = put(body.clone()).await;
        assert_eq!(status, 400, "{body}: {v}");
        assert_eq!(v["error"]["code"], "bad_request", "{body}: {v}");
    }
    assert_eq!(
        on(&get().await.1),
        [
            "time_low",
            "invite_taken",
            "rematch",
            "bot_game_waiting",
            "game_ended",
            "tournament_game"
        ]
    );

    // Another player's switches are his own.
    let other = format!(
        "/api/me/notices?initData={}",
        enc(&init_data(bot_api::TOKEN, 32))
    );
    let (status, v) = common::http_async(addr, "GET", &other, None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["started"], false);
    assert_eq!(on(&v), KINDS);
}

#[actix_rt::test]
async fn a_guest_is_refused_and_a_node_without_a_bot_has_no_switches() {
    let _one = common::one().await;
    // Guests on a node with a bot: a guest's token is refused with 403.
    let api = BotApi::start();
    let api_url = api.url();
    let node = NodeProc::start(&bot_api::node_env(&api_url, SECRET, &[]));
    let c = common::Client::connect(node.addr, "bob").await;
    let token = c.token.clone().expect("a guest token");
    let path = format!("/api/me/notices?token={}", enc(&token));
    let (status, v) = common::http_async(node.addr, "GET", &path, None).await;
    assert_eq!(status, 403, "{v}");
    assert_eq!(v["error"]["code"], "unauthorized", "{v}");
    let (status, v) =
        common::http_async(node.addr, "PUT", &path, Some(json!({"rematch": false}))).await;
    assert_eq!(status, 403, "{v}");
    drop(c);
    drop(node);

    // No bot token: no bot, no switches (guests only, so a guest asks).
    let node = NodeProc::start(&[]);
    let c = common::Client::connect(node.addr, "bob").await;
    let token = c.token.clone().expect("a guest token");
    let path = format!("/api/me/notices?token={}", enc(&token));
    let (status, v) = common::http_async(node.addr, "GET", &path, None).await;
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["error"]["code"], "unavailable", "{v}");
    drop(c);
}
