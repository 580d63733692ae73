//! Issue 24 over real sockets and a real SQLite file: finished games reach
//! the durable store through the archive queue, history pages and
//! replays them, a rated game moves both ratings and the leaderboard, a
//! restart of the single-node default (a fresh in-process backplane)
//! loses none of it, and "delete my data" is real.

use std::time::{Duration, Instant};

use tabula_tests as common;

use common::*;
use serde_json::{Value, json};
use tabula_server::settings::Secret;

fn settings(dir: &std::path::Path) -> tabula_server::Settings {
    let mut s = with_store(test_settings(), dir);
    s.testing.allow_start_position = true;
    // Tokens that outlive the node: the same players after the restart.
    s.auth.session_secret = Some(Secret("players-test-secret-0123456789abcdef".into()));
    s
}

/// `GET path` with `c`'s token.
async fn get(addr: std::net::SocketAddr, c: &Client, path: &str) -> (u16, Value) {
    let sep = if path.contains('?') { '&' } else { '?' };
    let token = c.token.as_deref().expect("a token");
    http_async(addr, "GET", &format!("{path}{sep}token={token}"), None).await
}

/// `c`'s history once it holds `n` games (the archiver is asynchronous).
async fn history(addr: std::net::SocketAddr, c: &Client, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = get(addr, c, "/api/me/history").await;
        assert_eq!(status, 200, "{v}");
        let games = v["games"].as_array().cloned().unwrap_or_default();
        if games.len() >= n || Instant::now() > deadline {
            assert_eq!(games.len(), n, "{}: {v}", c.name);
            return games;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `c`'s rating in `game` once applied.
async fn rating(addr: std::net::SocketAddr, c: &Client, game: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = get(addr, c, "/api/me/profile").await;
        assert_eq!(status, 200, "{v}");
        if let Some(r) = v["ratings"]
            .as_array()
            .and_then(|rs| rs.iter().find(|r| r["game"] == game))
        {
            return r.clone();
        }
        assert!(
            Instant::now() < deadline,
            "{}: no {game} rating: {v}",
            c.name
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn finished_games_are_archived_replayed_rated_and_survive_a_restart() {
    let _one = common::one().await;
    let dir = tempfile::tempdir().unwrap();
    let node = start(settings(dir.path()));
    store_reached(node.addr).await;
    let addr = node.addr;

    // 1. Against the computer, from a near-finished position, to its end.
    let bot_room = create_room(
        addr,
        json!({"game": "long_nardy", "bot": {"level": "easy"},
               "startPosition": {"turn": "white", "white": {"1": 1, "2": 1, "3": 1, "5": 1},
                                 "black": {"13": 3, "14": 3, "15": 3, "16": 3, "17": 2, "19": 1},
                                 "off": {"white": 11, "black": 0}, "first_turn": false}}),
    )
    .await;
    let mut ann = Client::connect(addr, "ann").await;
    assert_eq!(ann.join(&bot_room).await["yourSeat"], "a");
    let r = ann.call(json!({"type": "ready"})).await;
    assert_ne!(r["type"], "error", "{r}");
    play_out(addr, &bot_room, &mut [Some(&mut ann), None], 200).await;

    // 2. A rated backgammon game between two people: a few turns, then
    // Bob resigns.
    let rated = create_room(addr, json!({"game": "backgammon", "rated": true})).await;
    let mut bob = Client::connect(addr, "bob").await;
    assert_eq!(ann.join(&rated).await["yourSeat"], "a");
    assert_eq!(bob.join(&rated).await["yourSeat"], "b");
    both_ready(&mut ann, &mut bob).await;
    for _ in 0..12 {
        let st = state(addr, &rated).await;
        let Some((seat, cmd)) = next_command(&st) else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let c = if seat == "a" { &mut ann } else { &mut bob };
        let r = c.call(cmd.clone()).await;
        assert_ne!(r["type"], "error", "{cmd}: {r}");
    }
    let r = bob.call(json!({"type": "resign"})).await;
    assert_ne!(r["type"], "error", "{r}");

    // History, newest first: the rated game, then the game vs the computer.
    let games = history(addr, &ann, 2).await;
    assert_eq!(games[0]["room"], rated.as_str(), "{games:?}");
    assert_eq!(games[0]["outcome"], "win");
    assert_eq!(games[0]["rated"], true);
    assert_eq!(games[0]["opponent"]["kind"], "person");
    assert_eq!(games[0]["opponent"]["player"], bob.player.as_str());
    assert_eq!(games[1]["room"], bot_room.as_str());
    assert_eq!(
        games[1]["opponent"],
        json!({"kind": "computer", "level": 1})
    );
    assert_eq!(games[1]["rated"], false);
    // Neither was played in a tournament.
    assert!(games.iter().all(|g| g["tournament"].is_null()), "{games:?}");
    // Filters and pages.
    let (_, v) = get(addr, &ann, "/api/me/history?opponent=computer").await;
    assert_eq!(v["games"].as_array().unwrap().len(), 1, "{v}");
    let (_, v) = get(addr, &ann, "/api/me/history?game=thud").await;
    assert_eq!(v["games"], json!([]), "{v}");
    let (_, p1) = get(addr, &ann, "/api/me/history?limit=1").await;
    let next = p1["next"].as_str().expect("a next page").to_string();
    let (_, p2) = get(addr, &ann, &format!("/api/me/history?limit=1&after={next}")).await;
    assert_eq!(p2["games"][0]["room"], bot_room.as_str(), "{p2}");
    assert_eq!(p2["next"], Value::Null, "{p2}");
    let (status, v) = get(addr, &ann, "/api/me/history?limit=500").await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("bad_request"))
    );

    // The replay: a verified record and a frame per turn.
    let (status, g) = http_async(addr, "GET", &format!("/api/games/{bot_room}/1"), None).await;
    assert_eq!(status, 200, "{g}");
    let record: tabula_room::GameRecord = serde_json::from_value(g["record"].clone()).unwrap();
    tabula_room::verify(&record).expect("the archived record verifies");
    let frames = g["frames"].as_array().unwrap();
    assert!(frames.len() >= 2, "{g}");
    assert_eq!(frames[0]["seat"], Value::Null);
    assert_eq!(frames[1]["seat"], "a");
    assert!(frames.iter().all(|f| f["board"].is_object()), "{g}");
    let (status, v) = http_async(addr, "GET", "/api/games/nope/1", None).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("game_not_found"))
    );
    // The analysis: one entry per played turn, cached.
    let (status, a) = http_async(
        addr,
        "GET",
        &format!("/api/games/{bot_room}/1/analysis"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{a}");
    assert!(!a["turns"].as_array().unwrap().is_empty(), "{a}");
    let (_, again) = http_async(
        addr,
        "GET",
        &format!("/api/games/{bot_room}/1/analysis"),
        None,
    )
    .await;
    assert_eq!(a, again);

    // Ratings: the winner up, the loser down; the leaderboard.
    let ra = rating(addr, &ann, "backgammon").await;
    let rb = rating(addr, &bob, "backgammon").await;
    assert!(ra["rating"].as_f64().unwrap() > 1500.0, "{ra}");
    assert!(rb["rating"].as_f64().unwrap() < 1500.0, "{rb}");
    assert_eq!(
        (ra["games"].as_u64(), ra["provisional"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(
        (ra["rank"].as_u64(), ra["of"].as_u64()),
        (Some(1), Some(2)),
        "{ra}"
    );
    let (status, board) = get(addr, &bob, "/api/leaderboards/backgammon").await;
    assert_eq!(status, 200, "{board}");
    let top: Vec<&str> = board["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player"].as_str().unwrap())
        .collect();
    assert_eq!(top, vec![ann.player.as_str(), bob.player.as_str()]);
    assert_eq!(board["you"]["rank"], 2, "{board}");
    let (_, week) = http_async(
        addr,
        "GET",
        "/api/leaderboards/backgammon?period=week",
        None,
    )
    .await;
    assert_eq!(week["top"].as_array().unwrap().len(), 2, "{week}");
    assert_eq!(week["you"], Value::Null, "no credentials, no standing");
    let (_, none) = http_async(addr, "GET", "/api/leaderboards/long_nardy", None).await;
    assert_eq!(
        none["top"],
        json!([]),
        "the game vs the computer is not rated"
    );
    let stats = |v: &Value| v["games"].as_u64();
    let (_, s) = http_async(
        addr,
        "GET",
        &format!("/api/players/{}/stats", ann.player),
        None,
    )
    .await;
    assert_eq!(stats(&s), Some(2), "{s}");

    // 3. A restart: the single-node default's backplane is in memory and
    // starts empty; the store keeps everything finished.
    let (ann_token, bob_token) = (ann.token.clone().unwrap(), bob.token.clone().unwrap());
    drop((ann, bob));
    drop(node);
    let node = start(settings(dir.path()));
    store_reached(node.addr).await;
    let addr = node.addr;
    let ann = Client::with_token(addr, "ann", &ann_token).await;
    let bob = Client::with_token(addr, "bob", &bob_token).await;
    let after = history(addr, &ann, 2).await;
    assert_eq!(after, games, "the same history after the restart");
    let (_, s) = http_async(
        addr,
        "GET",
        &format!("/api/players/{}/stats", ann.player),
        None,
    )
    .await;
    assert_eq!(stats(&s), Some(2), "statistics from the store: {s}");
    // The rooms are forgotten with the old backplane; their records are
    // served from the store, and they verify.
    let recs = common::records(addr, &bot_room).await;
    assert_eq!(recs.len(), 1, "{recs:?}");
    tabula_room::verify(&recs[0]).expect("the archived record verifies");
    let (status, _) = http_async(addr, "GET", "/api/rooms/nope/records", None).await;
    assert_eq!(status, 404);
    assert_eq!(
        rating(addr, &ann, "backgammon").await["rating"],
        ra["rating"]
    );
    let (_, again) = get(addr, &bob, "/api/leaderboards/backgammon").await;
    assert_eq!(again["top"], board["top"]);

    // 4. Bob deletes his data: his history, ratings and statistics go; Ann
    // keeps the game, with his seat shown deleted.
    let (status, v) = http_async(addr, "DELETE", &format!("/api/me?token={bob_token}"), None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["deleted"]["ratings"], 1, "{v}");
    assert_eq!(v["deleted"]["games"], 1, "{v}");
    let (_, v) = get(addr, &bob, "/api/me/history").await;
    assert_eq!(v["games"], json!([]), "{v}");
    let (_, v) = get(addr, &bob, "/api/me/profile").await;
    assert_eq!(v["ratings"], json!([]), "{v}");
    assert_eq!(stats(&v["stats"]), Some(0), "{v}");
    let games = history(addr, &ann, 2).await;
    assert_eq!(
        games[0]["opponent"],
        json!({"kind": "deleted"}),
        "{games:?}"
    );
    let (_, board) = http_async(addr, "GET", "/api/leaderboards/backgammon", None).await;
    assert_eq!(board["top"].as_array().unwrap().len(), 1, "{board}");
}

#[tokio::test]
async fn without_a_store_the_routes_say_so_and_games_are_played_as_ever() {
    let _one = common::one().await;
    let node = start(test_settings());
    let addr = node.addr;
    let room = create_room(
        addr,
        json!({"game": "long_nardy", "bot": {"level": "easy"}}),
    )
    .await;
    let mut c = Client::connect(addr, "nobody-keeps").await;
    c.join(&room).await;
    let r = c.call(json!({"type": "ready"})).await;
    assert_ne!(r["type"], "error", "{r}");
    // The bot presses Ready on its own time: resign once the game is on.
    let mut r = c.call(json!({"type": "resign"})).await;
    for _ in 0..100 {
        if r["code"] != "game_not_started" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        r = c.call(json!({"type": "resign"})).await;
    }
    assert_ne!(r["type"], "error", "{r}");
    for path in ["/api/me/history", "/api/me/profile"] {
        let (status, v) = get(addr, &c, path).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (503, Some("no_store")),
            "{path}: {v}"
        );
    }
    let (status, v) = http_async(addr, "GET", "/api/leaderboards/thud", None).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (503, Some("no_store")),
        "{v}"
    );
    // Statistics still come from the backplane.
    let (_, s) = http_async(
        addr,
        "GET",
        &format!("/api/players/{}/stats", c.player),
        None,
    )
    .await;
    assert_eq!(s["games"], 1, "{s}");
    // A rated room with a bot is refused.
    let (status, v) = http_async(
        addr,
        "POST",
        "/api/rooms",
        Some(json!({"game": "long_nardy", "bot": {"level": "easy"}, "rated": true})),
    )
    .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("bad_rated")),
        "{v}"
    );
}

/// A Telegram login fills the durable profile: `GET /api/me/profile` shows
/// him his language (a kept tag) beside his username, and the public
/// profile does not carry the language.
#[tokio::test]
async fn a_telegram_login_keeps_his_language_for_him_alone() {
    let _one = common::one().await;
    let dir = tempfile::tempdir().unwrap();
    const BOT: &str = "7654321:players-test-bot-token";
    let mut s = settings(dir.path());
    s.auth.bot_token = Some(Secret(BOT.into()));
    let node = start(s);
    let addr = node.addr;
    store_reached(addr).await;
    let user =
        json!({"id": 4242, "first_name": "Анна", "username": "anna_k", "language_code": "ru"});
    let q = common::telegram::enc(&common::telegram::init_data_for(BOT, &user));
    let deadline = Instant::now() + Duration::from_secs(10);
    let v = loop {
        let (status, v) =
            http_async(addr, "GET", &format!("/api/me/profile?initData={q}"), None).await;
        assert_eq!(status, 200, "{v}");
        // The login's profile writes are asynchronous.
        if (v["language"] != Value::Null && v["username"] != Value::Null)
            || Instant::now() > deadline
        {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(v["language"], "ru", "{v}");
    assert_eq!(v["username"], "anna_k", "{v}");
    assert_eq!(v["name"], "Анна", "{v}");
    assert!(v["since"].as_u64().is_some_and(|t| t > 0), "{v}");
    let id = v["player"].as_str().unwrap().to_string();
    let (status, public) =
        http_async(addr, "GET", &format!("/api/players/{id}/profile"), None).await;
    assert_eq!(status, 200, "{public}");
    assert!(public.get("language").is_none(), "{public}");
    // A tag that is not one is not kept; the rest still is.
    let odd = json!({"id": 4243, "first_name": "Bo", "language_code": "ru;<x>"});
    let q = common::telegram::enc(&common::telegram::init_data_for(BOT, &odd));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, v) = http_async(addr, "GET", &format!("/api/me/profile?initData={q}"), None).await;
        if v["since"].is_u64() {
            assert_eq!(v["language"], Value::Null, "{v}");
            break;
        }
        assert!(Instant::now() < deadline, "no profile: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
