//! Clocks over real sockets: a player who lets his clock run out loses on
//! time, both are told, and the record proves it; the time control is
//! asked for and refused over HTTP; quick match pairs equal clocks only.

use tabula_tests as common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

/// 3 s per move plus a 2 s bank.
fn tight() -> Value {
    json!({"delayMs": 3000, "reserveMs": 2000})
}

#[tokio::test]
async fn a_player_who_lets_his_clock_run_out_loses_on_time_and_both_are_told() {
    let _one = common::one().await;
    let node = start(test_settings());
    let room = create_room(
        node.addr,
        json!({"game": "long_nardy", "timeControl": tight()}),
    )
    .await;
    let mut a = Client::connect(node.addr, "tick").await;
    let mut b = Client::connect(node.addr, "tock").await;
    let s = a.join(&room).await;
    assert_eq!(s["state"]["timeControl"], tight(), "{s}");
    assert!(s["state"].get("clock").is_some(), "{s}");
    b.join(&room).await;
    both_ready(&mut a, &mut b).await;
    let started = Instant::now();
    // The state says whose clock runs, until when, in the server's time.
    let mut watcher = Client::connect(node.addr, "watcher").await;
    watcher
        .send(json!({"type": "join", "room": room, "spectate": true}))
        .await;
    let st = watcher
        .until(|m| m["type"] == "state" || m["type"] == "error")
        .await;
    assert_eq!(st["type"], "state", "{st}");
    let server_time = st["serverTime"].as_u64().expect("serverTime");
    let running = &st["state"]["clock"]["running"];
    let seat = running["seat"].as_str().expect("a clock runs").to_string();
    let deadline = running["deadline"].as_u64().unwrap();
    let since = running["since"].as_u64().unwrap();
    assert_eq!(deadline - since, 5000, "{running}");
    assert_eq!(running["freeUntil"].as_u64().unwrap() - since, 3000);
    assert!(
        server_time >= since && server_time < deadline,
        "{server_time} {running}"
    );
    assert_eq!(st["state"]["toAct"]["seat"], seat.as_str());
    // When nobody acts, the player to act loses on time, both are told.
    let (loser, winner) = if seat == "a" {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    let over = loser.until(|m| m["type"] == "game_over").await;
    let took = started.elapsed();
    assert_eq!(over["result"], "lose", "{over}");
    assert_eq!(over["kind"], "mars", "nothing borne off: {over}");
    assert!(
        took >= Duration::from_millis(4500) && took < Duration::from_secs(8),
        "the timeout came after {took:?}"
    );
    let won = winner.until(|m| m["type"] == "game_over").await;
    assert_eq!(won["result"], "win", "{won}");
    for c in [&mut *loser, &mut *winner] {
        let ended = c
            .until(|m| m["type"] == "event" && m["event"]["type"] == "gameEnded")
            .await;
        assert_eq!(ended["event"]["result"]["reason"], "timeout", "{ended}");
        assert!(
            c.saw(|m| m["type"] == "chat"
                && m["key"] == "timeout"
                && m["params"]["seat"] == seat.as_str()),
            "the arbiter says who ran out of time"
        );
        assert!(c.saw(|m| m["type"] == "event" && m["event"]["type"] == "clock"));
    }
    // The record carries the clock and checks out.
    let recs = common::records(node.addr, &room).await;
    assert_eq!(recs.len(), 1, "{recs:?}");
    let rec = &recs[0];
    let clock = rec.clock.as_ref().expect("the record keeps the clock");
    assert_eq!(clock.turns.len(), 1);
    assert!(clock.turns[0].used_ms >= 5000, "{clock:?}");
    let v = tabula_room::verify(rec).expect("the record verifies");
    assert_eq!(v.result.reason, tabula_room::EndReason::Timeout);
    // The state after the game: no clock runs.
    let st = state(node.addr, &room).await;
    assert!(st["clock"]["running"].is_null(), "{st}");
}

#[tokio::test]
async fn time_controls_are_asked_for_by_name_or_figures_and_bad_ones_refused() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let tc_of = |room: String| async move { state(addr, &room).await["timeControl"].clone() };
    // The presets, the figures, none, and the defaults.
    let blitz = create_room(addr, json!({"game": "backgammon", "timeControl": "blitz"})).await;
    assert_eq!(
        tc_of(blitz).await,
        json!({"delayMs": 12000, "reserveMs": 60000})
    );
    let own = create_room(addr, json!({"game": "thud", "timeControl": tight()})).await;
    assert_eq!(tc_of(own).await, tight());
    let none = create_room(addr, json!({"game": "long_nardy", "timeControl": "none"})).await;
    assert!(tc_of(none).await.is_null());
    let people = create_room(addr, json!({"game": "long_nardy"})).await;
    assert_eq!(
        tc_of(people).await,
        json!({"delayMs": 30000, "reserveMs": 120000}),
        "rooms.default_time_control between people"
    );
    let computer = create_room(addr, json!({"game": "long_nardy", "bot": {"level": 1}})).await;
    assert!(tc_of(computer).await.is_null(), "none against the computer");
    // Bad ones: 400 bad_time_control, nothing made.
    for bad in [
        json!("bullet"),
        json!({"delayMs": 100, "reserveMs": 0}),
        json!({"delayMs": 30000, "reserveMs": 99999999}),
        json!({"delayMs": 30500, "reserveMs": 0}),
        // Issue 45: the figures without the reserve, or not an object.
        json!({"delayMs": 3000}),
        json!(30000),
    ] {
        let (s, e) = http_async(
            addr,
            "POST",
            "/api/rooms",
            Some(json!({"game": "long_nardy", "timeControl": bad})),
        )
        .await;
        assert_eq!(s, 400, "{bad}: {e}");
        assert_eq!(e["error"]["code"], "bad_time_control", "{e}");
        let (s, e) = http_async(
            addr,
            "POST",
            "/api/quickmatch?guest=qmbad",
            Some(json!({"game": "long_nardy", "timeControl": bad})),
        )
        .await;
        assert_eq!((s, &e["error"]["code"]), (400, &json!("bad_time_control")));
    }
}

#[tokio::test]
async fn quick_match_pairs_only_players_who_asked_for_the_same_clock() {
    let _one = common::one().await;
    let mut settings = test_settings();
    settings.matchmaking.bot_after_ms = 1500;
    let node = start(settings);
    let addr = node.addr;
    let ask = |guest: &'static str, tc: Value| {
        tokio::spawn(async move {
            http_async(
                addr,
                "POST",
                &format!("/api/quickmatch?guest={guest}"),
                Some(json!({"game": "long_nardy", "timeControl": tc})),
            )
            .await
        })
    };
    // Blitz and long do not meet: each plays the computer, without a clock.
    let (x, y) = (ask("qmx", json!("blitz")), ask("qmy", json!("long")));
    let (x, y) = (x.await.unwrap(), y.await.unwrap());
    assert_eq!((x.0, y.0), (200, 200));
    assert_ne!(x.1["roomId"], y.1["roomId"]);
    assert_eq!(
        (x.1["bot"].clone(), y.1["bot"].clone()),
        (json!(1), json!(1))
    );
    let rid = x.1["roomId"].as_str().unwrap().to_string();
    assert!(state(addr, &rid).await["timeControl"].is_null());
    // Two blitz players meet, in a blitz room.
    let p = ask("qmp", json!("blitz"));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let q = ask("qmq", json!({"delayMs": 12000, "reserveMs": 60000}));
    let (p, q) = (p.await.unwrap(), q.await.unwrap());
    assert_eq!(p.1["roomId"], q.1["roomId"], "{p:?} {q:?}");
    assert!(p.1.get("bot").is_none());
    let rid = p.1["roomId"].as_str().unwrap().to_string();
    assert_eq!(
        state(addr, &rid).await["timeControl"],
        json!({"delayMs": 12000, "reserveMs": 60000})
    );
}

#[tokio::test]
async fn correspondence_is_offered_between_people_only_and_its_quick_match_never_meets_the_computer()
 {
    let _one = common::one().await;
    let mut settings = test_settings();
    settings.matchmaking.bot_after_ms = 1000;
    let node = start(settings);
    let addr = node.addr;
    // Against the computer: refused.
    let (s, e) = http_async(
        addr,
        "POST",
        "/api/rooms?guest=corrbot",
        Some(json!({"game": "long_nardy", "bot": {"level": 1}, "timeControl": "3d"})),
    )
    .await;
    assert_eq!((s, &e["error"]["code"]), (400, &json!("bad_time_control")));
    // Between people: a day a move, no reserve.
    let (s, room) = http_async(
        addr,
        "POST",
        "/api/rooms?guest=corrhost",
        Some(json!({"game": "backgammon", "timeControl": "1d"})),
    )
    .await;
    assert_eq!(s, 201, "{room}");
    let rid = room["roomId"].as_str().unwrap();
    assert_eq!(
        state(addr, rid).await["timeControl"],
        json!({"delayMs": 86_400_000u64, "reserveMs": 0})
    );
    // Nobody else wants a 7-day game now: no computer, 404 no_opponent.
    let (s, e) = http_async(
        addr,
        "POST",
        "/api/quickmatch?guest=corrqm",
        Some(json!({"game": "long_nardy", "timeControl": "7d"})),
    )
    .await;
    assert_eq!(
        (s, &e["error"]["code"]),
        (404, &json!("no_opponent")),
        "{e}"
    );
    // Two who want one meet, in a rated correspondence room.
    let ask = |guest: &'static str| {
        tokio::spawn(async move {
            http_async(
                addr,
                "POST",
                &format!("/api/quickmatch?guest={guest}"),
                Some(json!({"game": "long_nardy", "timeControl": "3d"})),
            )
            .await
        })
    };
    let p = ask("corrp");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let q = ask("corrq");
    let (p, q) = (p.await.unwrap(), q.await.unwrap());
    assert_eq!(p.1["roomId"], q.1["roomId"], "{p:?} {q:?}");
    let st = state(addr, p.1["roomId"].as_str().unwrap()).await;
    assert_eq!(st["timeControl"]["delayMs"], json!(3 * 86_400_000u64));
}
