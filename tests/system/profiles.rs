//! Names (issue 22): a Telegram player's name from his signed `initData`,
//! read by another player; a guest's generated name, which he changes;
//! bad names refused with nothing changed; names that hold across nodes
//! and restarts of a Redis cluster.

use tabula_tests as common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::cluster::Redis;
use common::telegram::{enc, init_data_for};
use common::*;
use serde_json::{Value, json};
use tabula_server::settings::Secret;

const BOT: &str = "7654321:profile-test-bot-token";
const SECRET: &str = "a session secret of at least 32 bytes";

/// Telegram and guests on one node.
fn both_settings() -> tabula_server::Settings {
    let mut s = test_settings();
    s.auth.bot_token = Some(Secret(BOT.into()));
    s.auth.session_secret = Some(Secret(SECRET.into()));
    s.auth.force_guest = true;
    s
}

async fn open(addr: SocketAddr, query: &str) -> (Client, Value) {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?{query}"))
        .await
        .unwrap();
    Client::welcomed(ws, query.get(..16).unwrap_or(query)).await
}

async fn telegram(addr: SocketAddr, user: Value) -> (Client, Value) {
    open(
        addr,
        &format!("initData={}", enc(&init_data_for(BOT, &user))),
    )
    .await
}

async fn profile(addr: SocketAddr, id: &str) -> Value {
    let (status, v) = http_async(addr, "GET", &format!("/api/players/{id}/profile"), None).await;
    assert_eq!(status, 200, "{v}");
    v
}

async fn rename(addr: SocketAddr, token: &str, body: Value) -> (u16, Value) {
    http_async(
        addr,
        "POST",
        &format!("/api/me/name?token={token}"),
        Some(body),
    )
    .await
}

/// A name as `tabula_auth::generated_name` makes them: "Brave Otter 42".
fn is_generated(name: &str) -> bool {
    let parts: Vec<&str> = name.split(' ').collect();
    parts.len() == 3
        && parts[..2].iter().all(|w| {
            w.len() > 1
                && w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && w.bytes().all(|b| b.is_ascii_alphabetic())
        })
        && parts[2].len() == 2
        && parts[2].bytes().all(|b| b.is_ascii_digit())
}

#[tokio::test]
async fn a_telegram_players_name_photo_and_username_are_what_others_read() {
    let _one = common::one().await;
    let node = start(both_settings());
    let addr = node.addr;
    let photo = "https://t.me/i/userpic/320/ann.svg";
    let ann = json!({
        "id": 279_058_397u64,
        "first_name": "Ann\u{202e}",
        "last_name": "Lee",
        "username": "ann_lee",
        "photo_url": photo,
        "language_code": "en",
    });
    let (_ann_socket, w) = telegram(addr, ann.clone()).await;
    let me =
        json!({"id": "tg:279058397", "name": "Ann Lee", "username": "ann_lee", "photoUrl": photo});
    // His own name in welcome, the bidi override gone.
    assert_eq!(w["profile"], me, "{w}");
    let ann_token = w["token"].as_str().unwrap().to_string();

    // Another player (a guest) reads it: public fields only.
    let (bob, bw) = Client::welcomed(
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap()
            .0,
        "bob",
    )
    .await;
    assert_eq!(profile(addr, "tg:279058397").await, me);
    let bob_name = bw["profile"]["name"].as_str().unwrap().to_string();
    assert!(is_generated(&bob_name), "{bw}");
    assert_eq!(bw["profile"], json!({"id": bob.player, "name": bob_name}));
    let (status, v) = http_async(
        addr,
        "GET",
        &format!("/api/profiles?ids=tg:279058397,{},tg:5", bob.player),
        None,
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let names: Vec<&str> = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[..2], ["Ann Lee", bob_name.as_str()], "{v}");
    // Somebody never seen has a generated name too, never his id.
    assert!(is_generated(names[2]), "{v}");
    assert_eq!(v["profiles"][2]["id"], "tg:5");

    // He changes his name in Telegram: the next login says so.
    let mut anna = ann.clone();
    anna["first_name"] = json!("Anna");
    anna["username"] = json!("anna_lee");
    let (_s, w) = telegram(addr, anna).await;
    assert_eq!(w["profile"]["name"], "Anna Lee", "{w}");
    assert_eq!(profile(addr, "tg:279058397").await["username"], "anna_lee");
    // A login over HTTP with initData refreshes it too.
    let mut annette = ann.clone();
    annette["first_name"] = json!("Annette");
    annette.as_object_mut().unwrap().remove("photo_url");
    let q = enc(&init_data_for(BOT, &annette));
    let (status, v) = http_async(addr, "GET", &format!("/api/session?initData={q}"), None).await;
    assert_eq!(status, 200, "{v}");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let p = profile(addr, "tg:279058397").await;
        if p["name"] == "Annette Lee" {
            assert!(p.get("photoUrl").is_none(), "the photo is gone: {p}");
            break;
        }
        assert!(Instant::now() < deadline, "not refreshed: {p}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Unsigned changes never count: the same data, its name altered after
    // signing, is refused and changes nothing.
    let forged = q.replace("Annette", "Mallory");
    assert_ne!(forged, q);
    let (status, v) = http_async(
        addr,
        "GET",
        &format!("/api/session?initData={forged}"),
        None,
    )
    .await;
    assert_eq!(status, 401, "{v}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(profile(addr, "tg:279058397").await["name"], "Annette Lee");

    // He chooses a name: a later Telegram login keeps it (and refreshes
    // the rest).
    let (status, v) = rename(addr, &ann_token, json!({"name": "Queen Ann"})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["name"], "Queen Ann");
    let (_s, w) = telegram(addr, ann.clone()).await;
    assert_eq!(w["profile"]["name"], "Queen Ann", "{w}");
    assert_eq!(w["profile"]["photoUrl"], photo, "{w}");
    assert_eq!(profile(addr, "tg:279058397").await["name"], "Queen Ann");
    // Forgotten: his Telegram name again.
    let (status, v) = rename(addr, &ann_token, json!({"name": null})).await;
    assert_eq!((status, v["name"].as_str()), (200, Some("Ann Lee")), "{v}");
}

#[tokio::test]
async fn a_guest_renames_himself_and_a_bad_name_changes_nothing() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let (c, w) = open(addr, "").await;
    let generated = w["profile"]["name"].as_str().unwrap().to_string();
    assert!(is_generated(&generated), "{w}");
    assert_eq!(w["profile"]["id"], c.player.as_str());
    assert_eq!(profile(addr, &c.player).await["name"], generated.as_str());
    // The same guest again: the same name (nothing was stored for it).
    let again = Client::again(addr, &c).await;
    let token = again.token.clone().unwrap();

    let (status, v) = rename(addr, &token, json!({"name": "  Брат Ёж 🙂 "})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"id": c.player, "name": "Брат Ёж 🙂"}));
    assert_eq!(profile(addr, &c.player).await["name"], "Брат Ёж 🙂");

    let longest = "é".repeat(32);
    for (bad, says) in [
        (json!(""), "empty"),
        (json!(" \t "), "empty"),
        (json!("x".repeat(33)), "at most 32"),
        (json!(format!("{longest}é")), "at most 32"),
        (json!("\u{202e}evil"), "U+202E"),
        (json!("a\nb"), "U+000A"),
        (json!("zero\u{200b}width"), "U+200B"),
        (json!("nul\u{0}"), "U+0000"),
    ] {
        let (status, v) = rename(addr, &token, json!({ "name": bad })).await;
        assert_eq!(status, 400, "{bad}: {v}");
        assert_eq!(v["error"]["code"], "bad_name", "{bad}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{bad}: {message}");
        assert_eq!(
            profile(addr, &c.player).await["name"],
            "Брат Ёж 🙂",
            "{bad}"
        );
    }
    // Not a name at all, or no name field: bad_request, nothing changed.
    for body in [json!({"name": 5}), json!({}), json!(["x"])] {
        let (status, v) = rename(addr, &token, body.clone()).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{body}: {v}"
        );
    }
    // Without credentials, or with a forged token: 401.
    let (status, v) = http_async(addr, "POST", "/api/me/name", Some(json!({"name": "Eve"}))).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (401, Some("unauthorized")),
        "{v}"
    );
    let (status, _) = rename(
        addr,
        "v1.Z3Vlc3Q6YWJj.1.9999999999.AAAA",
        json!({"name": "Eve"}),
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(profile(addr, &c.player).await["name"], "Брат Ёж 🙂");

    // The longest name fits; a reconnect brings it in welcome.
    let (status, v) = rename(addr, &token, json!({"name": longest})).await;
    assert_eq!(
        (status, v["name"].as_str()),
        (200, Some(longest.as_str())),
        "{v}"
    );
    let (_, w) = open(addr, &format!("token={token}")).await;
    assert_eq!(w["profile"]["name"], longest.as_str(), "{w}");
    // Forgotten: the generated name again.
    let (status, v) = rename(addr, &token, json!({"name": null})).await;
    assert_eq!(
        (status, v["name"].as_str()),
        (200, Some(generated.as_str())),
        "{v}"
    );

    // Reading: ids that are not player ids, and too many at once.
    for path in [
        "/api/players/nobody/profile",
        "/api/players/guest:a%20b/profile",
        // Issue 45: only the form a node mints is a guest's id.
        "/api/players/guest:anything-at-all/profile",
        "/api/players/guest:3F9A2C1B7D4E8A6F0B5C9D2E1F4A7B3C/profile",
        "/api/profiles?ids=tg:1,guest:alice",
        "/api/profiles?ids=",
        "/api/profiles",
        "/api/profiles?ids=tg:1,admin",
    ] {
        let (status, v) = http_async(addr, "GET", path, None).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{path}: {v}"
        );
    }
    let many: Vec<String> = (1..=51).map(|i| format!("tg:{i}")).collect();
    let (status, _) = http_async(
        addr,
        "GET",
        &format!("/api/profiles?ids={}", many.join(",")),
        None,
    )
    .await;
    assert_eq!(status, 400);
    let (status, v) = http_async(
        addr,
        "GET",
        &format!("/api/profiles?ids={}", many[..50].join(",")),
        None,
    )
    .await;
    assert_eq!(
        (status, v["profiles"].as_array().map(Vec::len)),
        (200, Some(50))
    );
}

#[tokio::test]
async fn a_guests_name_is_the_same_on_every_node_and_after_a_restart() {
    let _one = common::one().await;
    let redis = Redis::start("profiles-redis", false);
    let mut s = test_settings();
    s.cluster.backplane = "redis".into();
    s.redis.url = redis.url();
    s.auth.session_secret = Some(Secret(SECRET.into()));
    let a = start(s.clone());
    let b = start(s.clone());
    // Before anything is stored: every node names him alike.
    let (c, w) = open(a.addr, "").await;
    let player = c.player.clone();
    let generated = w["profile"]["name"].as_str().unwrap().to_string();
    assert_eq!(profile(b.addr, &player).await["name"], generated.as_str());
    let token = c.token.clone().unwrap();
    let (status, v) = rename(a.addr, &token, json!({"name": "Night Owl"})).await;
    assert_eq!(status, 200, "{v}");
    // Another node reads it, and brings it in its welcome.
    assert_eq!(profile(b.addr, &c.player).await["name"], "Night Owl");
    let (_, w) = open(b.addr, &format!("token={token}")).await;
    assert_eq!(w["profile"]["name"], "Night Owl", "{w}");
    // Refused on the other node: nothing changed anywhere.
    let (status, _) = rename(b.addr, &token, json!({"name": "\u{2066}x"})).await;
    assert_eq!(status, 400);
    assert_eq!(profile(a.addr, &c.player).await["name"], "Night Owl");
    // Every node restarted: still his name.
    drop(c);
    drop(a);
    drop(b);
    let a = start(s.clone());
    assert_eq!(profile(a.addr, &player).await["name"], "Night Owl");
    let (_, w) = open(a.addr, &format!("token={token}")).await;
    assert_eq!(w["profile"]["name"], "Night Owl", "{w}");
    // And the key is where the key table says, kept as long as his token.
    let key = format!("tabula:profile:{{{player}}}");
    let out = std::process::Command::new("redis-cli")
        .args(["-p", &redis.port.to_string(), "PTTL", &key])
        .output()
        .expect("redis-cli is installed with redis-server");
    let ttl: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let keep = i64::try_from(s.auth.guest_session_ttl_secs * 1000).unwrap();
    assert!(ttl > keep - 60_000 && ttl <= keep, "{ttl}");
}
