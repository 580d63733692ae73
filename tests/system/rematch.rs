//! Issue 22 over real sockets: the arbiter's lines and `game_over` carry a
//! message key with params; two people who finished a game ask for a
//! rematch and play it with the colours swapped.

use tabula_tests as common;

use common::*;
use serde_json::{Value, json};

/// The first message `c` has received (or receives) that `pred` holds of.
async fn got(c: &mut Client, pred: impl Fn(&Value) -> bool) -> Value {
    if let Some(v) = c.seen.iter().find(|m| pred(m)) {
        return v.clone();
    }
    c.until(pred).await
}

fn event_of(ty: &'static str) -> impl Fn(&Value) -> bool {
    move |m: &Value| m["type"] == "event" && m["event"]["type"] == ty
}

#[tokio::test]
async fn a_finished_game_between_people_is_narrated_by_key_and_rematched_with_colours_swapped() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let room = create_room(
        addr,
        json!({"game": "long_nardy", "stake": {"amount": 100, "currency": "TON"}}),
    )
    .await;
    let mut a = Client::connect(addr, "white-then-black").await;
    let mut b = Client::connect(addr, "black-then-white").await;
    assert_eq!(a.join(&room).await["yourSeat"], "a");
    assert_eq!(b.join(&room).await["yourSeat"], "b");
    both_ready(&mut a, &mut b).await;

    // No rematch while the game is played.
    let r = a.call(json!({"type": "rematch"})).await;
    assert_eq!(r["code"], "match_not_finished", "{r}");

    // White (seat A) resigns: the arbiter says so by key, and each seat's
    // game_over carries its own.
    let r = a.call(json!({"type": "resign"})).await;
    assert_ne!(r["type"], "error", "{r}");
    for c in [&mut a, &mut b] {
        let how = got(c, |m| m["type"] == "chat" && m["key"] == "resigned").await;
        assert_eq!(how["from"]["kind"], "arbiter", "{how}");
        assert_eq!(how["params"], json!({"seat": "a"}), "{how}");
        assert_eq!(how["text"], "Белые сдаются.", "{how}");
        let win = got(c, |m| m["type"] == "chat" && m["key"] == "win").await;
        assert_eq!(
            win["params"],
            json!({"seat": "b", "kind": "mars", "points": 2}),
            "{win}"
        );
        assert_eq!(win["text"], "Победа: марс (2 очка)", "{win}");
    }
    let over = got(&mut a, |m| m["type"] == "game_over").await;
    assert_eq!(over["message"], "LOST 200 TON.", "{over}");
    assert_eq!(over["key"], "gameLost", "{over}");
    assert_eq!(
        over["params"],
        json!({"points": 2, "amount": 200, "currency": "TON"}),
        "{over}"
    );
    let over = got(&mut b, |m| m["type"] == "game_over").await;
    assert_eq!(over["key"], "gameWon", "{over}");
    got(&mut b, event_of("matchOver")).await;
    // The state's recent chat keeps the keys (what a reopened app shows).
    let st = state(addr, &room).await;
    assert_eq!(st["phase"], "finished", "{st}");
    let keys: Vec<&str> = st["chat"]
        .as_array()
        .expect("recent chat")
        .iter()
        .filter_map(|l| l["key"].as_str())
        .collect();
    assert_eq!(keys, ["resigned", "win"], "{st}");

    // Both ask for a rematch: White asks, both are told, the state shows it.
    let r = a.call(json!({"type": "rematch"})).await;
    assert_eq!(
        r["event"],
        json!({"type": "rematchOffered", "seat": "a"}),
        "{r}"
    );
    let r = a.call(json!({"type": "rematch"})).await;
    assert_eq!(r["code"], "rematch_already_offered", "{r}");
    got(&mut b, event_of("rematchOffered")).await;
    assert_eq!(state(addr, &room).await["rematch"], json!(["a"]));
    let r = b.call(json!({"type": "rematch"})).await;
    assert_eq!(r["type"], "event", "{r}");
    // The new match starts at once, the players' seats swapped.
    for c in [&mut a, &mut b] {
        let started = got(c, event_of("rematchStarted")).await;
        assert_eq!(started["event"]["matchNumber"], 2, "{started}");
        let g = got(c, |m| {
            m["type"] == "event"
                && m["event"]["type"] == "gameStarted"
                && m["event"]["gameNumber"] == 2
        })
        .await;
        assert!(g["version"].as_u64() > started["version"].as_u64(), "{g}");
    }
    let started = got(&mut a, event_of("rematchStarted")).await;
    assert_eq!(
        started["event"]["players"],
        json!([b.player, a.player]),
        "who was Black is White now: {started}"
    );
    let st = state(addr, &room).await;
    assert_eq!(st["phase"], "playing", "{st}");
    assert_eq!(st["matchNumber"], 2, "{st}");
    assert_eq!(st["score"], json!([0, 0]), "{st}");
    assert_eq!(st["seats"][0]["player"], json!(b.player), "{st}");
    assert_eq!(st["seats"][1]["player"], json!(a.player), "{st}");
    assert!(st.get("rematch").is_none(), "{st}");

    // A reopened app resyncs from `state`: the first player is seat B now.
    let mut a = Client::again(addr, &a).await;
    let s = a.join(&room).await;
    assert_eq!(s["yourSeat"], "b", "{s}");
    assert_eq!(s["state"]["gameNumber"], 2, "{s}");

    // The rematch is played like any game: now Black (the first player)
    // wins when White (the second) resigns.
    let r = b.call(json!({"type": "resign"})).await;
    assert_ne!(r["type"], "error", "{r}");
    let over = got(&mut a, |m| m["type"] == "game_over").await;
    assert_eq!(over["result"], "win", "{over}");
    let how = got(&mut a, |m| m["type"] == "chat" && m["key"] == "resigned").await;
    assert_eq!(how["params"], json!({"seat": "a"}), "{how}");
    // Two games in the room's records; each player's statistics count both
    // (a loss, then a win, for the one who swapped to Black).
    let (code, recs) = http_async(addr, "GET", &format!("/api/rooms/{room}/records"), None).await;
    assert_eq!(code, 200);
    let numbers: Vec<u64> = recs
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["gameNumber"].as_u64())
        .collect();
    assert_eq!(numbers, [1, 2], "{recs}");
    for _ in 0..100 {
        let (_, s) = http_async(
            addr,
            "GET",
            &format!("/api/players/{}/stats", a.player),
            None,
        )
        .await;
        if s["games"] == 2 {
            assert_eq!(
                (s["wins"].clone(), s["losses"].clone()),
                (json!(2), json!(2)),
                "{s}"
            );
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("both games were counted in the statistics");
}

#[tokio::test]
async fn there_is_no_rematch_against_the_computer() {
    let _one = common::one().await;
    let node = start(test_settings());
    let room = create_room(
        node.addr,
        json!({"game": "backgammon", "bot": {"level": "easy"}}),
    )
    .await;
    let mut a = Client::connect(node.addr, "solo").await;
    a.join(&room).await;
    a.call(json!({"type": "ready"})).await;
    got(&mut a, event_of("gameStarted")).await;
    let r = a.call(json!({"type": "resign"})).await;
    assert_ne!(r["type"], "error", "{r}");
    got(&mut a, |m| m["type"] == "game_over").await;
    let r = a.call(json!({"type": "rematch"})).await;
    assert_eq!(r["code"], "rematch_with_bot", "{r}");
}
