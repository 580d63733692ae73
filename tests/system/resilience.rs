//! Disconnects, resume, forfeit and bad input over real sockets.

use tabula_tests as common;

use std::time::{Duration, Instant};

use futures_util::StreamExt;

use common::*;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

async fn seated(addr: std::net::SocketAddr, names: [&str; 2]) -> (String, Client, Client) {
    let room = create_room(addr, json!({"game": "long_nardy"})).await;
    let mut a = Client::connect(addr, names[0]).await;
    let mut b = Client::connect(addr, names[1]).await;
    a.join(&room).await;
    b.join(&room).await;
    both_ready(&mut a, &mut b).await;
    (room, a, b)
}

#[tokio::test]
async fn a_client_resumes_within_the_grace_period_without_losing_a_move() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (room, mut a, mut b) = seated(node.addr, ["hal", "ivy"]).await;
    // Play a few commands so there is history.
    for _ in 0..6 {
        let st = state(node.addr, &room).await;
        let (seat, cmd) = next_command(&st).unwrap();
        let c = if seat == "a" { &mut a } else { &mut b };
        let r = c.call(cmd).await;
        assert_ne!(r["type"], "error", "{r}");
    }
    let seen = a.last_version;
    let seq = a.seq;
    a.ws.close(None).await.unwrap();
    let token = a.token.clone().expect("a session token");
    b.until(|m| m["event"]["type"] == "playerDisconnected")
        .await;
    // The opponent keeps playing while A is away, if it is B's turn.
    for _ in 0..3 {
        let st = state(node.addr, &room).await;
        match next_command(&st) {
            Some((seat, cmd)) if seat == "b" => {
                b.call(cmd).await;
            }
            _ => break,
        }
    }
    // Back with the token of its welcome, as a client comes back.
    let mut a = Client::with_token(node.addr, "hal", &token).await;
    a.seq = seq;
    let s = a.join(&room).await;
    assert_eq!(s["yourSeat"], "a", "{s}");
    assert_eq!(s["state"]["phase"], "playing");
    assert!(s["state"]["seats"][0]["disconnectDeadline"].is_null());
    // resume from the last version seen before the drop: the missed events.
    a.last_version = seen;
    let r = a.call(json!({"type": "resume", "version": seen})).await;
    assert_eq!(r["type"], "ack", "{r}");
    assert!(a.saw(|m| m["event"]["type"] == "playerDisconnected"));
    b.until(|m| m["event"]["type"] == "playerReconnected").await;
    // A resent command with an old seq is not applied twice.
    a.send_raw(Message::text(
        json!({"type": "ready", "seq": 2}).to_string(),
    ))
    .await;
    let dup = a.until(|m| m["seq"] == 2).await;
    assert_eq!(dup["type"], "ack");
    assert_eq!(dup["duplicate"], true);
    // And the game goes on to the end.
    play_out(node.addr, &room, &mut [Some(&mut a), Some(&mut b)], 5000).await;
}

#[tokio::test]
async fn resume_replays_the_missed_events_in_order_or_sends_the_full_state() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (_room, mut a, mut b) = seated(node.addr, ["lea", "max"]).await;
    // Everything the game's start sent A, read first.
    while a.try_recv(Duration::from_millis(300)).await.is_some() {}
    let seen = a.last_version;
    // From the room's start: every event again, in order (the client
    // asserts that versions rise), then an ack at the room's version.
    a.last_version = 0;
    let before = a.seen.len();
    let r = a.call(json!({"type": "resume", "version": 0})).await;
    assert_eq!(r["type"], "ack", "{r}");
    assert!(r["version"].as_u64().unwrap() >= seen, "{r}");
    let replayed = &a.seen[before..a.seen.len() - 1];
    assert!(
        replayed.iter().any(|m| m["event"]["type"] == "seatTaken")
            && replayed.iter().any(|m| m["event"]["type"] == "gameStarted"),
        "{replayed:?}"
    );
    assert!(replayed.iter().all(|m| m["seq"].is_null()), "{replayed:?}");
    assert_eq!(a.last_version, seen, "replayed up to what it had seen");
    // From a version the room has not reached: the full state instead.
    a.send(json!({"type": "resume", "version": u64::MAX / 2}))
        .await;
    let s = a.until(|m| m["type"] == "state").await;
    assert_eq!(s["yourSeat"], "a", "{s}");
    assert_eq!(s["state"]["phase"], "playing", "{s}");
    // From a version older than the events the room keeps: the full state.
    for _ in 0..=tabula_room::EVENT_LOG_KEEP {
        let r = b.call(json!({"type": "chat", "text": "gg"})).await;
        assert_eq!(r["type"], "chat", "{r}");
    }
    let r = b.call(json!({"type": "ping"})).await;
    assert_eq!(r["type"], "pong", "{r}");
    while a.try_recv(Duration::from_millis(300)).await.is_some() {}
    let before = a.seen.len();
    a.send(json!({"type": "resume", "version": seen})).await;
    let s = a.until(|m| m["type"] == "state").await;
    let at = s["state"]["version"].as_u64().unwrap();
    assert!(at > seen + tabula_room::EVENT_LOG_KEEP as u64, "{s}");
    assert_eq!(
        a.seen.len(),
        before + 1,
        "nothing replayed before the state"
    );
}

#[tokio::test]
async fn a_client_that_does_not_come_back_forfeits() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.rooms.grace_ms = 300;
    let node = start(s);
    let (_room, mut a, b) = seated(node.addr, ["joe", "kim"]).await;
    drop(b);
    let left = a.until(|m| m["type"] == "opponent_left").await;
    assert!(left["message"].is_string());
    // Issue 22: the disconnection as a key with params, for the client to
    // word ("Your opponent left"; "Black left and did not come back").
    assert_eq!(left["key"], "opponentLeft", "{left}");
    assert_eq!(left["params"], json!({"seat": "b"}), "{left}");
    let how = a
        .until(|m| m["type"] == "chat" && m["key"] == "disconnected")
        .await;
    assert_eq!(how["params"], json!({"seat": "b"}), "{how}");
    let g = a.until(|m| m["type"] == "game_over").await;
    assert_eq!(g["result"], "win");
    assert_eq!(g["kind"], "mars", "nobody has borne off: mars");
    assert_eq!(g["key"], "gameWon", "{g}");
}

#[tokio::test]
async fn bad_input_gets_error_codes_and_the_connection_survives() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (room, mut a, mut b) = seated(node.addr, ["lee", "max"]).await;
    let code = |v: &serde_json::Value| v["code"].as_str().unwrap_or("").to_string();
    async fn alive(c: &mut Client) {
        let r = c.call(json!({"type": "ping"})).await;
        assert_eq!(r["type"], "pong");
    }
    a.send_raw(Message::text("{nope")).await;
    assert_eq!(code(&a.until(|m| m["type"] == "error").await), "bad_json");
    alive(&mut a).await;
    let r = a.call(json!({"type": "fly"})).await;
    assert_eq!(code(&r), "unknown_type");
    alive(&mut a).await;
    let r = a.call(json!({"type": "move", "from": "x"})).await;
    assert_eq!(code(&r), "bad_message");
    a.send_raw(Message::binary(vec![1u8, 2, 3])).await;
    assert_eq!(
        code(&a.until(|m| m["type"] == "error").await),
        "binary_frame"
    );
    let big = format!(r#"{{"type":"chat","text":"{}"}}"#, "x".repeat(20_000));
    a.send_raw(Message::text(big)).await;
    assert_eq!(
        code(&a.until(|m| m["type"] == "error").await),
        "frame_too_large"
    );
    alive(&mut a).await;
    // Wrong turn and an illegal step.
    let st = state(node.addr, &room).await;
    let (seat, _) = next_command(&st).unwrap();
    let (mover, other) = if seat == "a" {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    let r = other.call(json!({"type": "rollDice"})).await;
    assert_eq!(code(&r), "not_your_turn", "{r}");
    alive(other).await;
    if st["toAct"]["need"] == "roll" {
        mover.call(json!({"type": "rollDice"})).await;
    }
    let r = mover
        .call(json!({"type": "move", "from": 3, "to": 2}))
        .await;
    assert!(
        ["illegal_move", "bad_points"].contains(&code(&r).as_str()),
        "{r}"
    );
    alive(mover).await;
    // Not joined.
    let mut c = Client::connect(node.addr, "nobody").await;
    assert_eq!(
        code(&c.call(json!({"type": "rollDice"})).await),
        "not_joined"
    );
    assert_eq!(
        code(&c.call(json!({"type": "join", "room": "zzz"})).await),
        "room_not_found"
    );
    alive(&mut c).await;
    // A second socket for the same player (its token): the newer wins.
    let mut a2 = Client::again(node.addr, &a).await;
    let s = a2.join(&room).await;
    assert_eq!(s["yourSeat"], "a");
    let old = a.until(|m| m["type"] == "error").await;
    assert_eq!(code(&old), "replaced");
    assert!(
        a.try_recv(Duration::from_secs(2)).await.is_none(),
        "the old socket is closed"
    );
    alive(&mut a2).await;
}

#[tokio::test]
async fn floods_are_rate_limited_then_closed() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.server.rate_per_sec = 1;
    s.server.rate_burst = 3;
    s.server.abuse_strikes = 20;
    let node = start(s);
    let mut a = Client::connect(node.addr, "flood").await;
    for _ in 0..6 {
        a.send(json!({"type": "ping"})).await;
    }
    let mut limited = 0;
    for _ in 0..6 {
        let m = a.recv().await;
        if m["code"] == "rate_limited" {
            limited += 1;
        }
    }
    assert!(limited >= 2, "{:?}", a.seen);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = a.call(json!({"type": "ping"})).await;
    assert_eq!(r["type"], "pong", "usable again after slowing down");
    for _ in 0..40 {
        a.send(json!({"type": "ping"})).await;
    }
    let mut closed = false;
    for _ in 0..60 {
        if a.try_recv(Duration::from_secs(2)).await.is_none() {
            closed = true;
            break;
        }
    }
    assert!(closed, "an abusive flood closes the socket");
}

const IDLE_RELEASES: &str = r#"tabula_room_releases_total{reason="idle"}"#;

/// A node that unloads idle rooms after 1 s (and forgets them after
/// `forget_after_ms`).
fn unloading_node(forget_after_ms: u64) -> Node {
    let mut s = test_settings();
    s.rooms.unload_after_ms = 1000;
    s.rooms.forget_after_ms = forget_after_ms;
    start(s)
}

/// Waits until the node has unloaded `n` idle rooms.
async fn until_unloaded(addr: std::net::SocketAddr, n: f64) {
    let t0 = std::time::Instant::now();
    while metric(addr, IDLE_RELEASES).await < n {
        assert!(t0.elapsed() < Duration::from_secs(10), "never unloaded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_idle_room_leaves_memory_and_the_next_join_restores_it() {
    let _one = common::one().await;
    let node = unloading_node(86_400_000);
    let finished = r#"tabula_rooms{game="long_nardy",state="finished"}"#;
    // Given a game whose players stay attached past unload_after
    let (room, mut a, b) = seated(node.addr, ["uma", "vic"]).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Then the room stays, and plays on
    assert_eq!(metric(node.addr, IDLE_RELEASES).await, 0.0);
    let r = a.call(json!({"type": "resign"})).await;
    assert_ne!(r["type"], "error", "{r}");
    let done = state(node.addr, &room).await;
    assert_eq!(done["phase"], "finished", "{done}");
    assert_eq!(metric(node.addr, finished).await, 1.0);
    // When both leave and unload_after passes
    drop((a, b));
    until_unloaded(node.addr, 1.0).await;
    // Then the node holds no room any more, but still serves its state
    // from the snapshot
    assert_eq!(metric(node.addr, finished).await, 0.0);
    let st = state(node.addr, &room).await;
    assert_eq!(st["phase"], "finished", "{st}");
    assert!(st["version"].as_u64() >= done["version"].as_u64(), "{st}");
    // And a join restores it: a finished match refuses the join as it did
    // before it was unloaded
    let mut c = Client::connect(node.addr, "uma").await;
    let j = c.join(&room).await;
    assert_eq!(j["code"], "match_finished", "{j}");
    assert_eq!(
        metric(node.addr, r#"tabula_room_takeovers_total{reason="join"}"#).await,
        1.0
    );
    assert_eq!(metric(node.addr, finished).await, 1.0);
}

#[tokio::test]
async fn a_waiting_room_unloaded_while_empty_takes_its_player_back() {
    let _one = common::one().await;
    let node = unloading_node(86_400_000);
    // Given a room whose one seated player left before anyone else came
    let room = create_room(node.addr, json!({"game": "backgammon"})).await;
    let mut a = Client::connect(node.addr, "wes").await;
    let j = a.join(&room).await;
    assert_eq!(j["yourSeat"], "a", "{j}");
    let r = a.call(json!({"type": "chat", "text": "anyone?"})).await;
    assert_eq!(r["type"], "chat", "{r}");
    let a_left = a.seq;
    let (token, player) = (a.token.clone().expect("a token"), a.player.clone());
    drop(a);
    // When it has been unloaded
    until_unloaded(node.addr, 1.0).await;
    // Then the player and a newcomer join it and play, nothing lost (the
    // player's client numbers on from its last seq, which the room kept)
    let mut a = Client::with_token(node.addr, "wes", &token).await;
    assert_eq!(a.player, player);
    a.seq = a_left;
    let j = a.join(&room).await;
    assert_eq!(j["type"], "state", "{j}");
    assert_eq!(j["yourSeat"], "a", "{j}");
    let mut b = Client::connect(node.addr, "xia").await;
    let j = b.join(&room).await;
    assert_eq!(j["yourSeat"], "b", "{j}");
    // (a seq the room has seen is still answered as a duplicate)
    a.send_raw(Message::text(
        json!({"type": "ready", "seq": a_left}).to_string(),
    ))
    .await;
    let r = a.until(|m| m["type"] == "ack").await;
    assert_eq!(r["duplicate"], true, "{r}");
    both_ready(&mut a, &mut b).await;
    let st = state(node.addr, &room).await;
    assert_eq!(st["phase"], "playing", "{st}");
    assert_eq!(
        metric(node.addr, r#"tabula_room_takeovers_total{reason="join"}"#).await,
        1.0
    );
}

#[tokio::test]
async fn an_unloaded_room_nobody_joins_is_forgotten() {
    let _one = common::one().await;
    let node = unloading_node(1000);
    // Given a room its one player left
    let room = create_room(node.addr, json!({"game": "long_nardy"})).await;
    let mut a = Client::connect(node.addr, "yan").await;
    a.join(&room).await;
    drop(a);
    assert_eq!(state(node.addr, &room).await["phase"], "waiting_for_player");
    // When nobody joins it for unload_after + forget_after
    let t0 = std::time::Instant::now();
    loop {
        let (status, _) = http_async(node.addr, "GET", &format!("/api/rooms/{room}"), None).await;
        if status == 404 {
            break;
        }
        assert_eq!(status, 200);
        assert!(t0.elapsed() < Duration::from_secs(10), "never forgotten");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Then it is gone, for a join too
    assert!(
        t0.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        t0.elapsed()
    );
    // (its records went with it: the backplane's tests check that)
    let mut b = Client::connect(node.addr, "zed").await;
    let j = b.join(&room).await;
    assert_eq!(j["code"], "room_not_found", "{j}");
}

#[tokio::test]
async fn a_game_whose_players_left_is_not_unloaded_before_it_ends() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.rooms.unload_after_ms = 1000;
    s.rooms.grace_ms = 3000;
    let node = start(s);
    let playing = r#"tabula_rooms{game="long_nardy",state="playing"}"#;
    // Given a game in play whose players both drop
    let (room, a, b) = seated(node.addr, ["abe", "bea"]).await;
    drop((a, b));
    // Then past unload_after the room is still held: its forfeit deadline
    // must fire on this node, or the game would hang unowned
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert_eq!(metric(node.addr, IDLE_RELEASES).await, 0.0);
    assert_eq!(metric(node.addr, playing).await, 1.0);
    // And once the grace has ended the game, the room is unloaded
    until_unloaded(node.addr, 1.0).await;
    let st = state(node.addr, &room).await;
    assert_eq!(st["phase"], "finished", "{st}");
    assert!(st["lastResult"].is_object(), "{st}");
}

/// A drain's `shutting_down` notice, its 1012 close and the end of the
/// connection come together: a client that reconnects when its socket
/// closes, as docs/protocol.md says, does not wait. (actix's default wait
/// for the client's FIN held the connection for a second after the close.)
#[tokio::test]
async fn a_draining_node_closes_its_sockets_right_after_the_notice() {
    let _one = common::one().await;
    let mut node = start(test_settings());
    let (_room, mut a, _b) = seated(node.addr, ["drain_a", "drain_b"]).await;
    node.begin_stop();
    let mut notice = None;
    let mut code = None;
    let ended = loop {
        match tokio::time::timeout(WAIT, a.ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                if t.contains("shutting_down") {
                    notice = Some(Instant::now());
                }
            }
            Ok(Some(Ok(Message::Close(f)))) => code = f.map(|f| u16::from(f.code)),
            Ok(Some(Ok(_))) => {}
            Ok(None | Some(Err(_))) => break Instant::now(),
            Err(_) => panic!("the socket was not closed"),
        }
    };
    let notice = notice.expect("a shutting_down notice");
    assert_eq!(code, Some(1012));
    let took = ended.duration_since(notice);
    assert!(
        took < Duration::from_millis(300),
        "the connection ended {took:?} after the notice"
    );
}

/// Seed 001: a game against the computer is never forfeited for absence.
/// Its player closes the app mid-game and stays away far past the
/// disconnect grace; the game pauses (the bot waits), leaves the node's
/// memory, is listed by `GET /api/me/games`, and continues from there to
/// its natural end.
#[tokio::test]
async fn a_game_against_the_computer_left_mid_game_pauses_and_continues_later() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.rooms.grace_ms = 200;
    s.rooms.unload_after_ms = 200;
    let node = start(s);
    let room = create_room(
        node.addr,
        json!({"game": "long_nardy", "bot": {"level": "easy"}}),
    )
    .await;
    let mut a = Client::connect(node.addr, "carol").await;
    assert_eq!(a.join(&room).await["yourSeat"], "a");
    a.call(json!({"type": "ready"})).await;
    // A few plies of the game, then she closes the app.
    let mut plies = 0;
    while plies < 6 {
        let st = state(node.addr, &room).await;
        match next_command(&st) {
            Some((seat, cmd)) if seat == "a" => {
                let r = a.call(cmd).await;
                assert_ne!(r["type"], "error", "{r}");
                plies += 1;
            }
            _ => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
    let token = a.token.clone().expect("a session token");
    // She leaves on her own turn (the bot, with no delay here, has finished
    // its own), so the board she left is the one to come back to.
    let before = loop {
        let st = state(node.addr, &room).await;
        if st["toAct"]["seat"] == "a" {
            break st;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    a.ws.close(None).await.unwrap();
    drop(a);
    // Ten times the grace, and past the idle unload.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let (_, m) = http_async(node.addr, "GET", "/metrics", None).await;
    let in_memory: f64 = m
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("tabula_rooms{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(in_memory, 0.0, "unloaded: {m}");
    assert!(metric(node.addr, IDLE_RELEASES).await >= 1.0);
    let st = state(node.addr, &room).await;
    assert_eq!(st["phase"], "playing", "not forfeited: {st}");
    assert_eq!(st["paused"], true, "{st}");
    assert!(st["seats"][0]["disconnectDeadline"].is_null(), "{st}");
    // The bot did not move while she was away (at most the move it was
    // already thinking of when she left is refused): the board is hers.
    assert_eq!(st["board"], before["board"], "{st}");
    // The lobby's list.
    let (code, list) = http_async(
        node.addr,
        "GET",
        &format!("/api/me/games?token={token}"),
        None,
    )
    .await;
    assert_eq!(code, 200, "{list}");
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{list}");
    assert_eq!(games[0]["roomId"], room.as_str());
    assert_eq!(games[0]["game"], "long_nardy");
    assert_eq!(games[0]["bot"], 1);
    assert_eq!(games[0]["yourSeat"], "a");
    assert_eq!(games[0]["board"], before["board"], "{list}");
    // Nobody else sees it.
    let (_, other) = http_async(node.addr, "GET", "/api/me/games", None).await;
    assert_eq!(other["games"], json!([]), "{other}");

    // She comes back with her token: the same seat, the game resumes.
    let mut a = Client::with_token(node.addr, "carol", &token).await;
    let s = a.join(&room).await;
    assert_eq!(s["yourSeat"], "a", "{s}");
    assert_eq!(s["state"]["phase"], "playing");
    assert!(s["state"].get("paused").is_none(), "{s}");
    play_out(node.addr, &room, &mut [Some(&mut a), None], 5000).await;
    let st = state(node.addr, &room).await;
    assert_eq!(st["phase"], "finished", "{st}");
    assert_ne!(st["lastResult"]["reason"], "disconnected", "{st}");
    // Over: off the list.
    let mut listed = json!(null);
    for _ in 0..50 {
        let (_, l) = http_async(
            node.addr,
            "GET",
            &format!("/api/me/games?token={token}"),
            None,
        )
        .await;
        listed = l;
        if listed["games"] == json!([]) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(listed["games"], json!([]), "{listed}");
}
