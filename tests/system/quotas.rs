//! Issue 21's quotas against real nodes: room creation flooded from one
//! address (a `tabula-node` process with the repository's default
//! settings: refusals after the allowance, RSS bounded), the cap on rooms
//! in memory (creation refused, a player's join still restores a stored
//! room), per-player buckets and a Telegram-only node refusing anonymous
//! creation, and idle rooms of the in-memory store forgotten.

// The measured figures (RSS growth, counts) are this test's report.
#![allow(clippy::print_stdout)]

use tabula_tests as common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::telegram::init_data;
use common::*;
use serde_json::{Value, json};
use tabula_server::settings::Secret;

use crate::node_proc::NodeProc;

/// One HTTP/1.1 request with extra headers: status, headers (lower-case
/// names), JSON body.
fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (u16, Vec<(String, String)>, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status: u16 = head[9..12].parse().unwrap();
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let v = serde_json::from_str(body).unwrap_or(Value::String(body.to_string()));
    (status, headers, v)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn metric(addr: SocketAddr, series: &str) -> f64 {
    let (_, body) = http(addr, "GET", "/metrics", None);
    body.as_str()
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

fn rooms_held(addr: SocketAddr) -> f64 {
    let (_, body) = http(addr, "GET", "/metrics", None);
    body.as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("tabula_rooms{"))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

const ROOM: &str = r#"{"game":"long_nardy"}"#;

#[test]
fn five_thousand_rooms_from_one_address_are_refused_after_the_allowance() {
    let _one = common::one_blocking();
    // Given a node with the repository's defaults
    let node = NodeProc::start(&[]);
    let defaults = tabula_server::Settings::defaults().quotas;
    let r0 = node.rss();
    // When one address asks for 5,000 rooms as fast as it can
    let body: Value = serde_json::from_str(ROOM).unwrap();
    let t0 = Instant::now();
    let (mut created, mut refused) = (0u64, 0u64);
    let mut retry_after = None;
    for _ in 0..5000 {
        let (status, headers, v) = request(node.addr, "POST", "/api/rooms", &[], &body);
        match status {
            201 => created += 1,
            429 => {
                refused += 1;
                assert_eq!(v["error"]["code"], "rate_limited", "{v}");
                assert!(v["error"]["message"].is_string(), "{v}");
                retry_after = header(&headers, "retry-after").map(str::to_string);
            }
            other => panic!("status {other}: {v}"),
        }
    }
    let took = t0.elapsed();
    let r1 = node.rss();
    let growth = r1.saturating_sub(r0);
    println!(
        "5000 POST /api/rooms from one address in {took:?}: {created} created, {refused} refused (429); rss {r0} -> {r1} (+{growth} bytes)"
    );
    // Then it gets its burst and the sustained rate, no more
    let allowance = f64::from(defaults.address_rooms_burst)
        + f64::from(defaults.address_rooms_per_minute) * took.as_secs_f64() / 60.0;
    assert!(created as f64 <= allowance + 1.0, "{created} > {allowance}");
    assert!(
        created >= u64::from(defaults.address_rooms_burst),
        "{created}"
    );
    assert_eq!(created + refused, 5000);
    let secs: u64 = retry_after.expect("Retry-After").parse().unwrap();
    assert!((1..=60).contains(&secs), "{secs}");
    assert_eq!(
        metric(
            node.addr,
            r#"tabula_quota_refusals_total{quota="address",route="create"}"#
        ),
        refused as f64
    );
    // And the node's memory stays bounded (5,000 rooms took ~19 MB)
    assert!(growth < 8 << 20, "RSS grew by {growth} bytes");
    assert!(rooms_held(node.addr) <= allowance + 1.0);
    // And it still serves
    assert_eq!(http(node.addr, "GET", "/healthz", None).0, 200);
}

#[tokio::test]
async fn rooms_in_memory_are_capped_and_a_join_still_restores_a_stored_room() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.quotas.max_rooms = 4;
    s.rooms.unload_after_ms = 1000;
    let node = start(s);
    // Given a room unloaded to the store
    let stored = create_room(node.addr, json!({"game": "backgammon"})).await;
    let t0 = Instant::now();
    while metric(node.addr, r#"tabula_room_releases_total{reason="idle"}"#) < 1.0 {
        assert!(t0.elapsed() < Duration::from_secs(10), "never unloaded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // And as many rooms in memory as the node may hold, players in them
    let mut players = Vec::new();
    for i in 0..4 {
        let room = create_room(node.addr, json!({"game": "long_nardy"})).await;
        let mut c = Client::connect(node.addr, &format!("p{i}")).await;
        assert_eq!(c.join(&room).await["yourSeat"], "a");
        players.push(c);
    }
    // When another room is asked for
    let (status, v) = http_async(
        node.addr,
        "POST",
        "/api/rooms",
        Some(json!({"game": "long_nardy"})),
    )
    .await;
    // Then it is refused: 503 unavailable, saying why
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["error"]["code"], "unavailable", "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("quotas.max_rooms"), "{msg}");
    // (a quick match too)
    let (status, v) = http_async(
        node.addr,
        "POST",
        "/api/quickmatch",
        Some(json!({"game": "long_nardy"})),
    )
    .await;
    assert_eq!(status, 503, "{v}");
    assert_eq!(
        metric(
            node.addr,
            r#"tabula_quota_refusals_total{quota="room_cap",route="create"}"#
        ),
        2.0
    );
    // But a player joining the stored room gets it back (the reserve)
    let mut c = Client::connect(node.addr, "back").await;
    let j = c.join(&stored).await;
    assert_eq!(j["yourSeat"], "a", "{j}");
    assert_eq!(rooms_held(node.addr), 5.0);
}

const BOT: &str = "7654321:quota-test-bot-token";

#[tokio::test]
async fn a_telegram_only_node_refuses_anonymous_creation_and_counts_each_player() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.auth.bot_token = Some(Secret(BOT.into()));
    s.auth.session_secret = Some(Secret("a session secret of at least 32 bytes".into()));
    s.quotas.player_rooms_burst = 2;
    s.quotas.player_rooms_per_minute = 1;
    let node = start(s);
    let addr = node.addr;
    let body: Value = serde_json::from_str(ROOM).unwrap();
    let post = move |headers: Vec<(&'static str, String)>| {
        let body = body.clone();
        tokio::task::spawn_blocking(move || {
            let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            request(addr, "POST", "/api/rooms", &h, &body)
        })
    };
    // Without credentials, or with a guest's name: 401
    let (status, _, v) = post(vec![]).await.unwrap();
    assert_eq!(status, 401, "{v}");
    assert_eq!(v["error"]["code"], "unauthorized", "{v}");
    let (status, _, _) = post(vec![("x-telegram-init-data", "user=%7B%7D&hash=00".into())])
        .await
        .unwrap();
    assert_eq!(status, 401);
    // With Telegram's initData: created, up to the player's burst
    let alice = init_data(BOT, 101);
    for _ in 0..2 {
        let (status, _, v) = post(vec![("x-telegram-init-data", alice.clone())])
            .await
            .unwrap();
        assert_eq!(status, 201, "{v}");
    }
    let (status, headers, v) = post(vec![("x-telegram-init-data", alice.clone())])
        .await
        .unwrap();
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["code"], "rate_limited", "{v}");
    assert!(header(&headers, "retry-after").is_some());
    // Another player at the same address has his own bucket, and a
    // session token names the same player as his initData
    let bob = init_data(BOT, 102);
    let (status, _, v) = post(vec![("x-telegram-init-data", bob)]).await.unwrap();
    assert_eq!(status, 201, "{v}");
    let (_, session) = http_async(
        addr,
        "GET",
        &format!("/api/session?initData={}", common::telegram::enc(&alice)),
        None,
    )
    .await;
    let token = session["token"].as_str().expect("a token").to_string();
    let (status, _, v) = post(vec![("authorization", format!("Bearer {token}"))])
        .await
        .unwrap();
    assert_eq!(status, 429, "{v}");
    assert_eq!(
        metric(
            addr,
            r#"tabula_quota_refusals_total{quota="player",route="create"}"#
        ),
        2.0
    );
}

#[tokio::test]
async fn a_quick_match_flood_from_one_address_is_refused() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.quotas.address_rooms_burst = 3;
    s.quotas.address_rooms_per_minute = 1;
    s.matchmaking.bot_after_ms = 100;
    let node = start(s);
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let (status, v) = http_async(
            node.addr,
            "POST",
            "/api/quickmatch",
            Some(json!({"game": "backgammon"})),
        )
        .await;
        if status == 429 {
            assert_eq!(v["error"]["code"], "rate_limited", "{v}");
        }
        statuses.push(status);
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
    // Room creation shares the bucket
    let (status, _) = http_async(
        node.addr,
        "POST",
        "/api/rooms",
        Some(json!({"game": "backgammon"})),
    )
    .await;
    assert_eq!(status, 429);
}

#[test]
fn idle_rooms_of_the_in_memory_store_are_forgotten() {
    let _one = common::one_blocking();
    // Given a node (in-memory store) that unloads and forgets quickly
    let node = NodeProc::start(&[
        ("TABULA__ROOMS__UNLOAD_AFTER_MS", "1000"),
        ("TABULA__ROOMS__FORGET_AFTER_MS", "2000"),
        ("TABULA__QUOTAS__ADDRESS_ROOMS_BURST", "100000"),
    ]);
    let r0 = node.rss();
    // When 2,000 rooms are made and left
    let body: Value = serde_json::from_str(ROOM).unwrap();
    let ids: Vec<String> = (0..2000)
        .map(|_| {
            let (status, _, v) = request(node.addr, "POST", "/api/rooms", &[], &body);
            assert_eq!(status, 201, "{v}");
            v["roomId"].as_str().unwrap().to_string()
        })
        .collect();
    let r1 = node.rss();
    // Then within unload_after + forget_after (and a beat) every one is
    // gone from memory and from the store
    let t0 = Instant::now();
    // (Every 50th, and the last made: a room busy writing when its idle
    // timer fires looks again a second later, so rooms go some time apart.)
    loop {
        let left = ids
            .iter()
            .step_by(50)
            .chain(ids.last())
            .filter(|id| http(node.addr, "GET", &format!("/api/rooms/{id}"), None).0 != 404)
            .count();
        if left == 0 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "{left} not forgotten"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(rooms_held(node.addr), 0.0);
    assert_eq!(
        http(node.addr, "GET", &format!("/api/rooms/{}", ids[1999]), None).0,
        404
    );
    std::thread::sleep(Duration::from_millis(500));
    let r2 = node.rss();
    println!(
        "2000 rooms made and left: rss {r0} -> {r1} while held, {r2} once forgotten ({:?} after the last)",
        t0.elapsed()
    );
}
