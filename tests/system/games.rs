//! Whole games over real sockets against a node on port 0.

use tabula_tests as common;

use common::*;
use serde_json::{Value, json};

async fn game_over(c: &mut Client) -> Value {
    if let Some(v) = c.seen.iter().find(|m| m["type"] == "game_over") {
        return v.clone();
    }
    c.until(|m| m["type"] == "game_over").await
}

async fn two_players(
    addr: std::net::SocketAddr,
    body: Value,
    names: [&str; 2],
) -> (String, Client, Client) {
    let room = create_room(addr, body).await;
    let mut a = Client::connect(addr, names[0]).await;
    let mut b = Client::connect(addr, names[1]).await;
    let s = a.join(&room).await;
    assert_eq!(s["type"], "state", "{s}");
    assert_eq!(s["yourSeat"], "a");
    let s = b.join(&room).await;
    assert_eq!(s["yourSeat"], "b", "{s}");
    both_ready(&mut a, &mut b).await;
    (room, a, b)
}

#[tokio::test]
async fn two_clients_play_a_complete_long_nardy_game() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (room, mut a, mut b) = two_players(
        node.addr,
        json!({"game": "long_nardy", "stake": {"amount": 100, "currency": "TON"}}),
        ["alice", "bob"],
    )
    .await;
    let sent = play_out(node.addr, &room, &mut [Some(&mut a), Some(&mut b)], 5000).await;
    assert!(sent > 30, "a whole game takes many commands, got {sent}");
    let ga = game_over(&mut a).await;
    let gb = game_over(&mut b).await;
    let results = [
        ga["result"].as_str().unwrap(),
        gb["result"].as_str().unwrap(),
    ];
    assert!(
        results.contains(&"win") && results.contains(&"lose"),
        "{ga} {gb}"
    );
    assert!(["oin", "mars", "koks"].contains(&ga["kind"].as_str().unwrap()));
    assert!(ga["message"].as_str().unwrap().ends_with("TON."), "{ga}");
    // Both saw the same room history: rolls and steps as events.
    assert!(a.saw(|m| m["type"] == "event" && m["event"]["type"] == "diceRolled"));
    assert!(b.saw(|m| m["type"] == "event" && m["event"]["type"] == "moved"));
    assert!(a.saw(|m| m["type"] == "chat" && m["from"]["kind"] == "arbiter"));
    let st = state(node.addr, &room).await;
    assert_eq!(st["phase"], "finished");
    // Statistics were recorded for both players.
    let path = format!("/api/players/{}/stats", a.player);
    let (status, s) = http_async(node.addr, "GET", &path, None).await;
    assert_eq!(status, 200);
    assert_eq!(s["games"], 1, "{s}");
}

#[tokio::test]
async fn a_client_plays_a_complete_game_against_a_bot() {
    let _one = common::one().await;
    let node = start(test_settings());
    let room = create_room(
        node.addr,
        json!({"game": "long_nardy", "bot": {"level": "easy"}}),
    )
    .await;
    let mut a = Client::connect(node.addr, "carol").await;
    let s = a.join(&room).await;
    assert_eq!(s["yourSeat"], "a");
    assert_eq!(s["state"]["seats"][1]["bot"], 1);
    a.call(json!({"type": "ready"})).await;
    play_out(node.addr, &room, &mut [Some(&mut a), None], 5000).await;
    let g = game_over(&mut a).await;
    assert!(
        ["win", "lose"].contains(&g["result"].as_str().unwrap()),
        "{g}"
    );
    assert!(a.saw(|m| m["type"] == "event"
        && m["event"]["type"] == "moved"
        && m["event"]["seat"] == "b"));

    // The game shows in every metric the issue lists, with real values.
    let wrong = a.call(json!({"type": "rollDice"})).await;
    assert_eq!(wrong["type"], "error", "the game is over: {wrong}");
    let (s, m) = http_async(node.addr, "GET", "/metrics", None).await;
    assert_eq!(s, 200);
    let m = m.as_str().unwrap().to_string();
    assert_eq!(metric(&m, "tabula_connections"), 1.0, "{m}");
    assert_eq!(
        metric(&m, "tabula_rooms{game=\"long_nardy\",state=\"finished\"}"),
        1.0,
        "{m}"
    );
    assert!(
        metric(
            &m,
            "tabula_commands_total{outcome=\"accepted\",type=\"move\"}"
        ) >= 15.0
    );
    assert!(
        metric(
            &m,
            "tabula_commands_total{outcome=\"accepted\",type=\"rollDice\"}"
        ) >= 1.0
    );
    let code = wrong["code"].as_str().unwrap();
    assert_eq!(
        metric(
            &m,
            &format!("tabula_commands_total{{outcome=\"{code}\",type=\"rollDice\"}}")
        ),
        1.0,
        "the refused roll is counted by its code: {m}"
    );
    assert!(
        metric(&m, "tabula_command_latency_seconds_count") >= 16.0,
        "{m}"
    );
    assert!(
        metric(&m, "tabula_snapshot_write_seconds_count") >= 16.0,
        "{m}"
    );
    let kind = g["kind"].as_str().unwrap();
    assert_eq!(
        metric(
            &m,
            &format!("tabula_games_finished_total{{game=\"long_nardy\",kind=\"{kind}\"}}")
        ),
        1.0,
        "{m}"
    );
    assert!(
        metric(&m, "tabula_bot_think_seconds_count{game=\"long_nardy\"}") >= 5.0,
        "{m}"
    );
}

/// The value of the sample `name` (with its labels as rendered) in a
/// Prometheus text exposition; 0 when absent.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let (k, v) = l.rsplit_once(' ')?;
            (k == name).then(|| v.parse().ok())?
        })
        .unwrap_or(0.0)
}

#[tokio::test]
async fn a_backgammon_game_runs_to_the_end() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (room, mut a, mut b) =
        two_players(node.addr, json!({"game": "backgammon"}), ["dave", "erin"]).await;
    play_out(node.addr, &room, &mut [Some(&mut a), Some(&mut b)], 5000).await;
    let g = game_over(&mut a).await;
    assert!(
        ["single", "gammon", "backgammon"].contains(&g["kind"].as_str().unwrap()),
        "{g}"
    );
    game_over(&mut b).await;
}

#[tokio::test]
async fn a_thud_game_runs_to_the_end() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (room, mut a, mut b) = two_players(
        node.addr,
        json!({"game": "thud", "options": {"thud": {"capture_rule": "zrf", "max_plies_without_capture": 6}}}),
        ["fred", "gina"],
    )
    .await;
    let st = state(node.addr, &room).await;
    assert_eq!(st["board"]["game"], "thud", "{st}");
    play_out(node.addr, &room, &mut [Some(&mut a), Some(&mut b)], 5000).await;
    let g = game_over(&mut a).await;
    assert!(
        ["thudTotals", "draw"].contains(&g["kind"].as_str().unwrap()),
        "{g}"
    );
    assert!(a.saw(|m| m["type"] == "event" && m["event"]["type"] == "roundEnded"));
}

#[tokio::test]
async fn quick_match_pairs_two_players_and_offers_a_bot_after_the_wait() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let body = json!({"game": "long_nardy"});
    let b2 = body.clone();
    let first = tokio::spawn(async move {
        http_async(addr, "POST", "/api/quickmatch?guest=qm1", Some(b2)).await
    });
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let (s2, r2) = http_async(
        addr,
        "POST",
        "/api/quickmatch?guest=qm2",
        Some(body.clone()),
    )
    .await;
    let (s1, r1) = first.await.unwrap();
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(r1["roomId"], r2["roomId"]);
    assert!(r1.get("bot").is_none());
    // Each gets a session token of their own for the socket.
    let (t1, t2) = (r1["token"].as_str().unwrap(), r2["token"].as_str().unwrap());
    assert_ne!(t1, t2);
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token={t1}"))
        .await
        .unwrap();
    drop(ws);
    // Alone: a bot room after the configured wait.
    let (s, r) = http_async(addr, "POST", "/api/quickmatch?guest=qm3", Some(body)).await;
    assert_eq!(s, 200);
    assert_eq!(r["bot"], 1, "{r}");
    // Join by invite code.
    let (s, inv) = http_async(
        addr,
        "GET",
        &format!("/api/invites/{}", r["invite"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(inv["roomId"], r["roomId"]);
    let mut c = Client::connect(addr, "qm4").await;
    let st = c.join(r["invite"].as_str().unwrap()).await;
    assert_eq!(st["yourSeat"], "a", "{st}");
}

#[tokio::test]
async fn health_ready_and_metrics() {
    let _one = common::one().await;
    let node = start(test_settings());
    assert_eq!(http_async(node.addr, "GET", "/healthz", None).await.0, 200);
    assert_eq!(http_async(node.addr, "GET", "/readyz", None).await.0, 200);
    create_room(node.addr, json!({"game": "thud"})).await;
    let (s, m) = http_async(node.addr, "GET", "/metrics", None).await;
    assert_eq!(s, 200);
    let m = m.as_str().unwrap().to_string();
    assert!(
        m.contains("tabula_rooms{game=\"thud\",state=\"waiting\"} 1"),
        "{m}"
    );
    let (s, e) = http_async(node.addr, "GET", "/api/rooms/nope", None).await;
    assert_eq!(s, 404);
    assert_eq!(e["error"]["code"], "room_not_found");
    let (s, e) = http_async(
        node.addr,
        "POST",
        "/api/rooms",
        Some(json!({"game": "long_nardy", "bot": {"level": 7}})),
    )
    .await;
    assert_eq!(s, 400);
    assert_eq!(e["error"]["code"], "bad_request");
}

/// Plays (first legal commands) until someone must roll; that state.
async fn until_a_roll(
    addr: std::net::SocketAddr,
    room: &str,
    a: &mut Client,
    b: &mut Client,
) -> Value {
    for _ in 0..200 {
        let st = state(addr, room).await;
        if st["toAct"]["need"] == "roll" {
            return st;
        }
        match next_command(&st) {
            Some((s, cmd)) => {
                let c = if s == "a" { &mut *a } else { &mut *b };
                let r = c.call(cmd.clone()).await;
                assert!(r["type"] != "error", "{cmd} refused: {r}");
            }
            None => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
        }
    }
    panic!("nobody had to roll in 200 commands");
}

/// The client for `seat` ("a" / "b").
fn seat<'c>(
    seat: &Value,
    a: &'c mut Client,
    b: &'c mut Client,
) -> (&'c mut Client, &'c mut Client) {
    if seat == "a" { (a, b) } else { (b, a) }
}

#[tokio::test]
async fn a_match_with_the_doubling_cube_runs_over_sockets() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let (room, mut a, mut b) = two_players(
        addr,
        json!({"game": "backgammon", "matchLength": 3}),
        ["cubea", "cubeb"],
    )
    .await;
    let st = state(addr, &room).await;
    assert_eq!(st["matchLength"], 3);
    assert_eq!(st["cube"]["enabled"], true, "{st}");

    // Game 1: the first player to roll doubles instead; the other drops
    // and loses one point (the cube's value before the double).
    let st = until_a_roll(addr, &room, &mut a, &mut b).await;
    let doubler = st["toAct"]["seat"].clone();
    let (d, t) = seat(&doubler, &mut a, &mut b);
    let r = d.call(json!({"type": "double"})).await;
    assert_eq!(r["event"]["type"], "doubleOffered", "{r}");
    assert_eq!(r["event"]["value"], 2, "{r}");
    // Wrong seat: the doubler cannot take his own double.
    let e = d.call(json!({"type": "take"})).await;
    assert_eq!(e["type"], "error", "{e}");
    let st = state(addr, &room).await;
    assert_eq!(st["toAct"]["need"], "cubeDecision", "{st}");
    let r = t.call(json!({"type": "drop"})).await;
    assert_eq!(r["type"], "event", "{r}");
    let over = d.until(|m| m["type"] == "game_over").await;
    assert_eq!(over["result"], "win", "{over}");
    assert_eq!(over["kind"], "drop", "{over}");
    assert_eq!(over["points"], 1, "{over}");
    let st = state(addr, &room).await;
    assert_eq!(st["phase"], "waiting_for_player", "{st}");
    let doubler_score = if doubler == "a" { 0 } else { 1 };
    assert_eq!(st["score"][doubler_score], 1, "{st}");

    // Game 2: both press Ready again; a double is taken (cube 2, owned by
    // the taker), and the game is played to its end.
    both_ready(&mut a, &mut b).await;
    let st = until_a_roll(addr, &room, &mut a, &mut b).await;
    let doubler = st["toAct"]["seat"].clone();
    let (d, t) = seat(&doubler, &mut a, &mut b);
    d.call(json!({"type": "double"})).await;
    let r = t.call(json!({"type": "take"})).await;
    assert_eq!(r["event"]["type"], "doubleTaken", "{r}");
    let st = state(addr, &room).await;
    assert_eq!(st["cube"]["value"], 2, "{st}");
    let taker = if doubler == "a" { "b" } else { "a" };
    assert_eq!(st["cube"]["owner"], taker, "{st}");
    // Only the cube's owner may redouble.
    let e = d.call(json!({"type": "double"})).await;
    assert_eq!(e["type"], "error", "{e}");

    // Play the rest of the match out (play_out takes any further doubles).
    loop {
        let st = state(addr, &room).await;
        if st["phase"] == "finished" {
            break;
        }
        if st["phase"] == "waiting_for_player" {
            both_ready(&mut a, &mut b).await;
        }
        play_out(addr, &room, &mut [Some(&mut a), Some(&mut b)], 5000).await;
    }
    let st = state(addr, &room).await;
    let score = [
        st["score"][0].as_u64().unwrap(),
        st["score"][1].as_u64().unwrap(),
    ];
    assert!(score.iter().any(|&s| s >= 3), "{st}");
    let match_over = |m: &Value| m["type"] == "event" && m["event"]["type"] == "matchOver";
    if !a.saw(match_over) {
        a.until(match_over).await;
    }
    let records = http_async(addr, "GET", &format!("/api/rooms/{room}/records"), None).await;
    assert_eq!(records.0, 200, "{:?}", records.1);
    let games = records.1.as_array().map_or(0, Vec::len);
    assert!(
        games >= 2,
        "every game of the match is recorded: {}",
        records.1
    );
}

#[tokio::test]
async fn hints_rank_the_plays_of_a_roll_against_a_bot() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let room = create_room(
        addr,
        json!({"game": "backgammon", "bot": {"level": "easy"}}),
    )
    .await;
    let mut a = Client::connect(addr, "hinter").await;
    a.join(&room).await;
    a.call(json!({"type": "ready"})).await;
    let mut checked = false;
    let mut mid_turn_checked = false;
    for _ in 0..400 {
        let st = state(addr, &room).await;
        if st["phase"] == "finished" {
            break;
        }
        if st["toAct"]["seat"] != "a" {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            continue;
        }
        if st["toAct"]["need"] == "roll" {
            let e = a.call(json!({"type": "hint"})).await;
            assert_eq!(e["code"], "not_time_for_hint", "before rolling: {e}");
            a.call(json!({"type": "rollDice"})).await;
            continue;
        }
        // Our roll: ask.
        let moves = st["moves"]["sequences"].as_array().unwrap().len();
        let h = a.call(json!({"type": "hint", "rollouts": 4})).await;
        assert_eq!(h["type"], "hint", "{h}");
        let plays = h["plays"].as_array().unwrap();
        assert_eq!(plays.len(), moves, "one per distinct play: {h}");
        assert_eq!(plays[0]["rollouts"], 4, "{h}");
        // The best play is playable step by step with `move`.
        let best = plays[0]["play"].as_str().unwrap().to_string();
        for (i, step) in best.split(' ').enumerate() {
            let r = a.call(move_msg(step)).await;
            assert_eq!(r["type"], "event", "{best}: {r}");
            if i == 0 && best.contains(' ') {
                // Mid-turn: the ways to finish the turn, one per
                // sequence the state offers, and the rest of `best` among
                // them (the same final position may be reached by steps
                // in another order, so compare as sets of steps).
                let st = state(addr, &room).await;
                let rest_moves = st["moves"]["sequences"].as_array().unwrap().len();
                let e = a.call(json!({"type": "hint"})).await;
                assert_eq!(e["type"], "hint", "mid-turn: {e}");
                let rest = e["plays"].as_array().unwrap();
                assert_eq!(rest.len(), rest_moves, "mid-turn: {e} vs {st}");
                let sorted = |p: &str| {
                    let mut v: Vec<String> = p.split(' ').map(str::to_string).collect();
                    v.sort();
                    v
                };
                let want = sorted(&best.split(' ').skip(1).collect::<Vec<_>>().join(" "));
                assert!(
                    rest.iter()
                        .any(|r| sorted(r["play"].as_str().unwrap()) == want),
                    "the rest of {best} among {e}"
                );
                mid_turn_checked = true;
            }
        }
        checked = true;
        if mid_turn_checked {
            break;
        }
    }
    assert!(checked, "never had a turn to ask a hint for");
    assert!(mid_turn_checked, "never played a two-step hint");

    // A room between two people has no hints.
    let (_room, mut p, _q) = two_players(
        addr,
        json!({"game": "backgammon"}),
        ["hintless1", "hintless2"],
    )
    .await;
    let e = p.call(json!({"type": "hint"})).await;
    assert_eq!(e["code"], "hints_disabled", "{e}");
}

#[tokio::test]
async fn a_bot_replaces_a_player_who_leaves_when_the_room_allows_it() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let bad = http_async(
        addr,
        "POST",
        "/api/rooms",
        Some(json!({"game": "backgammon", "replaceLeaver": {"level": "grandmaster"}})),
    )
    .await;
    assert_eq!(bad.0, 400, "{}", bad.1);
    let (room, mut a, mut b) = two_players(
        addr,
        json!({"game": "backgammon", "replaceLeaver": {"level": "medium"}}),
        ["leaver", "stayer"],
    )
    .await;
    // A leaves mid-game: a Medium bot takes seat A and B plays on (a
    // forfeit would have ended the game before B's first command).
    let r = a.call(json!({"type": "leave"})).await;
    assert_ne!(r["type"], "error", "{r}");
    let st = state(addr, &room).await;
    assert_eq!(st["phase"], "playing", "{st}");
    assert_eq!(st["seats"][0]["bot"], 2, "{st}");
    assert!(st["seats"][0]["player"].is_null(), "{st}");
    let sent = play_out(addr, &room, &mut [None, Some(&mut b)], 5000).await;
    assert!(sent > 5, "{sent}");
    let over = game_over(&mut b).await;
    assert!(
        ["single", "gammon", "backgammon"].contains(&over["kind"].as_str().unwrap()),
        "played to the end: {over}"
    );
}

/// Issue 22's undo: `preview` answers the asker alone with what his turn
/// offers after tentative steps, changes nothing (no version, nothing to
/// the opponent), refuses as `move` would, and says when the steps finish
/// the turn, which `turn` then plays.
#[tokio::test]
async fn previews_answer_the_asker_alone_and_change_nothing() {
    let _one = common::one().await;
    let node = start(test_settings());
    for game in ["long_nardy", "backgammon"] {
        let room = create_room(node.addr, json!({"game": game})).await;
        let mut a = Client::connect(node.addr, "pia").await;
        let mut b = Client::connect(node.addr, "pim").await;
        a.join(&room).await;
        b.join(&room).await;
        both_ready(&mut a, &mut b).await;
        let mut checked = false;
        for _ in 0..200 {
            let st = state(node.addr, &room).await;
            let Some((seat, cmd)) = next_command(&st) else {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                continue;
            };
            let (c, other) = if seat == "a" {
                (&mut a, &mut b)
            } else {
                (&mut b, &mut a)
            };
            if cmd["type"] != "move" {
                let r = c.call(cmd.clone()).await;
                assert_ne!(r["type"], "error", "{cmd}: {r}");
                continue;
            }
            let play = st["moves"]["sequences"][0].as_str().unwrap().to_string();
            let steps: Vec<&str> = play.split([',', ' ']).filter(|s| !s.is_empty()).collect();
            if steps.len() < 2 {
                let r = c.call(json!({"type": "turn", "play": play})).await;
                assert_ne!(r["type"], "error", "{play}: {r}");
                continue;
            }
            let mark = other.seen.len();
            let r = c.call(json!({"type": "preview", "play": steps[0]})).await;
            assert_eq!(r["type"], "preview", "{r}");
            assert_eq!(r["complete"], false, "{r}");
            assert!(!r["firstSteps"].as_array().unwrap().is_empty(), "{r}");
            assert!(r.get("version").is_none(), "a preview has no version: {r}");
            let whole = c.call(json!({"type": "preview", "play": play})).await;
            assert_eq!(whole["complete"], true, "{whole}");
            let bad = c.call(json!({"type": "preview", "play": "1-2"})).await;
            assert_eq!(bad["type"], "error", "{bad}");
            let theirs = other
                .call(json!({"type": "preview", "play": steps[0]}))
                .await;
            assert_eq!(theirs["code"], "not_your_turn", "{theirs}");
            let after = state(node.addr, &room).await;
            assert_eq!(after["version"], st["version"], "nothing applied");
            assert_eq!(after["board"], st["board"]);
            assert!(
                !other.seen[mark..]
                    .iter()
                    .any(|m| m["type"] == "preview" || m["event"]["type"] == "moved"),
                "the opponent saw none of it"
            );
            let r = c.call(json!({"type": "turn", "play": play})).await;
            assert_eq!(r["type"], "event", "{play}: {r}");
            checked = true;
            break;
        }
        assert!(checked, "{game}: a turn of two steps or more was previewed");
    }
}

/// Issue 22's confirmed turn: `turn` with the whole play is refused with a
/// clear code and nothing applied when it is not a legal whole turn, is
/// applied once when resent with its `seq`, and carries long nardy and
/// backgammon games to their end.
#[tokio::test]
async fn whole_turns_are_applied_once_or_refused_and_play_games_to_the_end() {
    let _one = common::one().await;
    let node = start(test_settings());
    for game in ["long_nardy", "backgammon"] {
        let room = create_room(node.addr, json!({"game": game})).await;
        let mut a = Client::connect(node.addr, "tia").await;
        let mut b = Client::connect(node.addr, "uma").await;
        a.join(&room).await;
        b.join(&room).await;
        both_ready(&mut a, &mut b).await;
        let mut checked = false;
        let mut turns = 0;
        for _ in 0..2000 {
            let st = state(node.addr, &room).await;
            if st["phase"] == "finished" {
                break;
            }
            let Some((seat, cmd)) = next_command(&st) else {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                continue;
            };
            let c = if seat == "a" { &mut a } else { &mut b };
            if cmd["type"] != "move" {
                let r = c.call(cmd.clone()).await;
                assert_ne!(r["type"], "error", "{cmd}: {r}");
                continue;
            }
            let play = st["moves"]["sequences"][0].as_str().unwrap().to_string();
            if !checked {
                // A legal start that leaves dice, an illegal step, bad
                // notation: refused, nothing applied.
                let first = st["moves"]["firstSteps"][0].as_str().unwrap();
                let whole_steps = play.split([',', ' ']).count();
                if whole_steps > 1 {
                    let r = c.call(json!({"type": "turn", "play": first})).await;
                    assert_eq!(r["code"], "incomplete_turn", "{r}");
                }
                let r = c.call(json!({"type": "turn", "play": "1-2,2-3"})).await;
                assert_eq!(r["type"], "error", "{r}");
                let r = c.call(json!({"type": "turn", "play": "x"})).await;
                assert_eq!(r["code"], "bad_message", "{r}");
                let after = state(node.addr, &room).await;
                assert_eq!(after["version"], st["version"], "nothing applied");
                // Sent, then resent with the same seq: applied once.
                let r = c.call(json!({"type": "turn", "play": play})).await;
                assert_eq!(r["type"], "event", "{play}: {r}");
                let v1 = state(node.addr, &room).await["version"].clone();
                c.seq -= 1;
                let seq = c.send(json!({"type": "turn", "play": play})).await;
                let dup = c
                    .until(|m| m["seq"] == json!(seq) && m["type"] != "event")
                    .await;
                assert_eq!(dup["type"], "ack", "{dup}");
                assert_eq!(dup["duplicate"], true, "{dup}");
                assert_eq!(state(node.addr, &room).await["version"], v1);
                checked = true;
            } else {
                let r = c.call(json!({"type": "turn", "play": play})).await;
                assert_ne!(r["type"], "error", "{play}: {r}");
            }
            turns += 1;
        }
        let st = state(node.addr, &room).await;
        assert_eq!(st["phase"], "finished", "{game}: {st}");
        assert!(checked && turns > 10, "{game}: {turns} turns");
        // The opponent saw the moves, and never a possibleMoves of a turn
        // sent whole between its steps.
        assert!(b.saw(|m| m["event"]["type"] == "moved" && m["event"]["seat"] == "a"));
        // The record verifies as any other game's.
        let (code, recs) = http_async(
            node.addr,
            "GET",
            &format!("/api/rooms/{room}/records"),
            None,
        )
        .await;
        assert_eq!(code, 200);
        assert_eq!(recs.as_array().unwrap().len(), 1, "{recs}");
    }
}
