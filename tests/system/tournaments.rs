//! Tournaments run by the cluster, played by socket clients: a knockout of
//! 64 players across three node processes on one real Redis, its owner
//! killed (`kill -9`) in the middle of the first round; a Swiss on one
//! node; the routes' refusals.
//!
//! Every game is played by its two players over WebSockets (join, ready,
//! and black resigns: a match of one point is over), on nodes other than
//! the one a test kills. The references are computed from what the rooms
//! stored, not from what the tournament says: each game room's final
//! score and seats (`GET /api/rooms/{id}`) and its records.

// The knockout's duration is this test's report.
#![allow(clippy::print_stdout)]

use tabula_tests as common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Client, http_async};
use serde_json::{Value, json};
use tabula_tournament::{GameId, Outcome, PlayerId, Record, Standings, TournamentConfig, recount};

use crate::cluster::Cluster;

/// A player: his label and session token (any node takes it).
#[derive(Debug, Clone)]
struct Entrant {
    player: String,
    token: String,
}

async fn guests(addr: SocketAddr, n: usize) -> Vec<Entrant> {
    let mut out = Vec::new();
    for i in 0..n {
        let c = Client::connect(addr, &format!("p{i}")).await;
        out.push(Entrant {
            player: c.player.clone(),
            token: c.token.clone().expect("a session token"),
        });
    }
    out
}

/// Polls the tournament on the nodes in turn until `pred` holds.
async fn until(addrs: &[SocketAddr], id: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
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

async fn join_all(addrs: &[SocketAddr], id: &str, players: &[Entrant]) {
    for (i, p) in players.iter().enumerate() {
        let addr = addrs[i % addrs.len()];
        let (status, v) = http_async(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join?token={}", p.token),
            None,
        )
        .await;
        assert_eq!(status, 202, "{v}");
    }
    let n = players.len();
    until(addrs, id, "everyone registered", |v| {
        v["players"].as_array().is_some_and(|a| a.len() == n)
    })
    .await;
}

/// One try at playing a game: both players join its room on `addr`,
/// press Ready, and black resigns. `false` when something refused (the
/// room's owner was dying): the caller tries again.
pub(crate) async fn try_play(
    addr: SocketAddr,
    room: &str,
    white: &str,
    black: &str,
    white_loses: bool,
) -> bool {
    let mut w = Client::with_token(addr, "white", white).await;
    let mut b = Client::with_token(addr, "black", black).await;
    // White sits in seat a, black in b: the stored score says who won.
    for (c, seat) in [(&mut w, "a"), (&mut b, "b")] {
        c.send(json!({"type": "join", "room": room, "seat": seat}))
            .await;
        let s = c
            .until(|m| m["type"] == "state" || m["type"] == "error")
            .await;
        if s["type"] != "state" || s["yourSeat"] != seat {
            return false;
        }
        if s["state"]["phase"] == "finished" {
            return true;
        }
    }
    for c in [&mut w, &mut b] {
        let r = c.call(json!({"type": "ready"})).await;
        if r["type"] == "error" && r["code"] != "already_ready" && r["code"] != "game_in_progress" {
            return false;
        }
    }
    // The game may need a moment to start (both ready).
    let loser = if white_loses { &mut w } else { &mut b };
    for _ in 0..50 {
        let r = loser.call(json!({"type": "resign"})).await;
        if r["type"] != "error" {
            return true;
        }
        if r["code"] == "match_finished" {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Plays a game to its end, whatever node dies meanwhile: each try on its
/// own task (a client that loses its node panics), on the live nodes in
/// turn, until the room says the match is over. Black resigns.
async fn play(addrs: &[SocketAddr], room: &str, white: &Entrant, black: &Entrant) {
    play_lost_by(addrs, room, white, black, false).await;
}

/// [`play`], white resigning when `white_loses`.
async fn play_lost_by(
    addrs: &[SocketAddr],
    room: &str,
    white: &Entrant,
    black: &Entrant,
    white_loses: bool,
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut i = 0;
    loop {
        let addr = addrs[i % addrs.len()];
        i += 1;
        if room_over(addr, room).await.is_some() {
            return;
        }
        let (r, w, b) = (room.to_string(), white.clone(), black.clone());
        let done =
            tokio::spawn(async move { try_play(addr, &r, &w.token, &b.token, white_loses).await })
                .await
                .unwrap_or(false);
        if done && room_over(addr, room).await.is_some() {
            return;
        }
        assert!(Instant::now() < deadline, "game {room} was not played");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The seat that won a finished tournament room (0: `a`, where white
/// sits), from its stored state; `None` while it is not over.
async fn room_over(addr: SocketAddr, room: &str) -> Option<usize> {
    let (status, v) = http_async(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    if status != 200 || v["state"]["phase"] != "finished" {
        return None;
    }
    let score = |i: usize| v["state"]["score"][i].as_u64().unwrap_or(0);
    Some(if score(0) > score(1) { 0 } else { 1 })
}

fn by_id<'a>(players: &'a [Entrant], id: &str) -> &'a Entrant {
    players
        .iter()
        .find(|p| p.player == id)
        .expect("a player of ours")
}

/// The standings the tournament shows must equal a recount from the
/// rooms' stored results.
fn assert_recount(view: &Value, records: &[Record]) {
    let config: TournamentConfig = serde_json::from_value(view["config"].clone()).unwrap();
    let players: Vec<(PlayerId, i32)> = view["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                PlayerId(p["player"].as_str().unwrap().into()),
                p["rating"].as_i64().unwrap() as i32,
            )
        })
        .collect();
    let shown: Standings = serde_json::from_value(view["standings"].clone()).unwrap();
    assert_eq!(shown, recount(&config, &players, records), "{view}");
}

/// The knockout's field, and its rounds.
const N: usize = 64;
const ROUNDS: u64 = 6;

#[tokio::test]
async fn a_knockout_of_64_across_three_nodes_survives_its_owner_killed_mid_round() {
    let _one = common::one().await;
    let started = Instant::now();
    let mut c = Cluster::start_env("tourney-ko", false, &[]);
    let owner = c.nodes[0].addr;
    let others = [c.nodes[1].addr, c.nodes[2].addr];
    let players = guests(others[0], N).await;
    let start_at = now_ms() + 2_500;
    let (status, v) = http_async(
        owner,
        "POST",
        "/api/tournaments",
        Some(json!({
            "id": "ko64",
            "format": {"type": "knockout"},
            "game": "backgammon",
            "matchPoints": 1,
            "timeControl": "none",
            "startAtMs": start_at,
            "graceMs": 60000
        })),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["status"], "registering", "{v}");
    join_all(&others, "ko64", &players).await;
    // The creator's node owns it.
    assert_eq!(node_metric(owner, "tabula_tournaments_running").await, 1.0);

    let mut played: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut killed = false;
    for round in 1..=ROUNDS {
        let v = until(&others, "ko64", "the round's pairings", |v| {
            v["round"] == round && v["status"] == "running"
        })
        .await;
        let games: Vec<(String, String, String)> = v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["roomId"].as_str().unwrap().to_string(),
                    g["white"].as_str().unwrap().to_string(),
                    g["black"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(games.len(), N >> round, "round {round}: {v}");
        for (i, (room, white, black)) in games.iter().enumerate() {
            if round == 1 && i == games.len() / 2 {
                // Half the round is played: the owner dies.
                c.nodes[0].kill9();
                c.down(0);
                killed = true;
            }
            play(
                &others,
                room,
                by_id(&players, white),
                by_id(&players, black),
            )
            .await;
            assert!(
                played
                    .insert(room.clone(), (white.clone(), black.clone()))
                    .is_none()
            );
        }
    }
    assert!(killed);
    let v = until(&others, "ko64", "the final standings", |v| {
        v["status"] == "finished"
    })
    .await;

    // Every match played once: one stored game per room, the winner the
    // one the players made win (black resigned).
    let mut records = Vec::new();
    let mut winners: BTreeMap<String, String> = BTreeMap::new();
    for (room, (white, black)) in &played {
        let stored = common::records(others[0], room).await;
        assert_eq!(stored.len(), 1, "{room} played once");
        let seat = room_over(others[0], room).await.expect("over");
        assert_eq!(seat, 0, "{room}: white won (black resigned)");
        winners.insert(room.clone(), white.clone());
        records.push(Record::Game {
            game_id: GameId(room.clone()),
            round: room.split(':').nth(1).unwrap().parse().unwrap(),
            white: PlayerId(white.clone()),
            black: PlayerId(black.clone()),
            outcome: Outcome::WhiteWon,
            forfeit: false,
        });
    }
    assert_eq!(played.len(), N - 1);
    // The bracket: round 1 from the seeds, each later match between the
    // stored winners of the two matches above it, the champion the
    // stored winner of the final.
    let b = &v["bracket"];
    let rounds = b["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), ROUNDS as usize, "{b}");
    for (r, matches) in rounds.iter().enumerate() {
        for (k, m) in matches.as_array().unwrap().iter().enumerate() {
            let room = m["games"][0].as_str().unwrap();
            let won = &winners[room];
            assert_eq!(m["winner"]["player"].as_str(), Some(won.as_str()), "{m}");
            if r > 0 {
                let above = rounds[r - 1].as_array().unwrap();
                let w = |j: usize| winners[above[j]["games"][0].as_str().unwrap()].clone();
                let pair: BTreeSet<String> = [w(2 * k), w(2 * k + 1)].into();
                let here: BTreeSet<String> = [
                    m["a"].as_str().unwrap().to_string(),
                    m["b"].as_str().unwrap().to_string(),
                ]
                .into();
                assert_eq!(pair, here, "round {} match {k}", r + 1);
            }
        }
    }
    let final_room = rounds[ROUNDS as usize - 1][0]["games"][0].as_str().unwrap();
    assert_eq!(v["champion"].as_str(), Some(winners[final_room].as_str()));
    assert_recount(&v, &records);
    // The champion reported once, by the node that took the tournament
    // over (the first owner died in round 1).
    let finished: f64 = node_metric(others[0], "tabula_tournaments_finished_total").await
        + node_metric(others[1], "tabula_tournaments_finished_total").await;
    assert_eq!(finished, 1.0);
    let taken = std::fs::read_to_string(c.nodes[1].log_path())
        .unwrap_or_default()
        .matches("tournament taken over")
        .count()
        + std::fs::read_to_string(c.nodes[2].log_path())
            .unwrap_or_default()
            .matches("tournament taken over")
            .count();
    assert_eq!(taken, 1, "one takeover; logs: {}", c.logs());
    println!("knockout of {N} with a kill -9: {:?}", started.elapsed());
}

#[tokio::test]
async fn a_swiss_on_one_node_pairs_no_one_twice_and_its_standings_recount() {
    let _one = common::one().await;
    swiss("sw6", 6, 3).await;
}

/// The Swiss: 30 players over 5 rounds, the winners varying (a
/// game's loser drawn from its room id), so that scores spread and the
/// pairings of equal scores and the tie-breaks are exercised.
#[tokio::test]
async fn a_swiss_of_30_over_5_rounds_pairs_no_one_twice_and_its_standings_recount() {
    let _one = common::one().await;
    swiss("sw30", 30, 5).await;
}

/// A Swiss of `n` guests over `rounds` on one node, every game played to
/// a result: no pairing repeats, each round pairs everyone (a bye for an
/// odd field), and the standings shown equal a recount from the results.
async fn swiss(id: &str, n: usize, rounds: u64) {
    let node = common::start(common::test_settings());
    let addr = node.addr;
    let addrs = [addr];
    let players = guests(addr, n).await;
    let (status, v) = http_async(
        addr,
        "POST",
        "/api/tournaments",
        Some(json!({
            "id": id,
            "format": {"type": "swiss", "rounds": rounds, "lateJoinUntilRound": 0},
            "game": "long_nardy",
            "timeControl": "none",
            "startAtMs": now_ms() + 1_500
        })),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    join_all(&addrs, id, &players).await;
    let mut met: BTreeSet<(String, String)> = BTreeSet::new();
    let mut records = Vec::new();
    for round in 1..=rounds {
        let v = until(&addrs, id, "the round's pairings", |v| {
            v["round"] == round && v["status"] == "running"
        })
        .await;
        let games = v["games"].as_array().unwrap().clone();
        assert_eq!(games.len(), n / 2, "{v}");
        for g in &games {
            let room = g["roomId"].as_str().unwrap();
            let (white, black) = (
                g["white"].as_str().unwrap().to_string(),
                g["black"].as_str().unwrap().to_string(),
            );
            let pair = if white < black {
                (white.clone(), black.clone())
            } else {
                (black.clone(), white.clone())
            };
            assert!(met.insert(pair), "a repeat pairing in round {round}: {v}");
            let white_loses = room.bytes().map(u32::from).sum::<u32>() % 2 == 0;
            play_lost_by(
                &addrs,
                room,
                by_id(&players, &white),
                by_id(&players, &black),
                white_loses,
            )
            .await;
            let seat = room_over(addr, room).await.unwrap();
            assert_eq!(
                seat,
                usize::from(white_loses),
                "room {room}: the loser resigned"
            );
            let outcome = if seat == 0 {
                Outcome::WhiteWon
            } else {
                Outcome::BlackWon
            };
            records.push(Record::Game {
                game_id: GameId(room.into()),
                round: round as u32,
                white: PlayerId(white),
                black: PlayerId(black),
                outcome,
                forfeit: false,
            });
        }
    }
    let v = until(&addrs, id, "the final standings", |v| {
        v["status"] == "finished"
    })
    .await;
    assert_recount(&v, &records);
    let (status, list) = http_async(addr, "GET", "/api/tournaments", None).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["finished"][0]["id"], id, "{list}");
    // The pairing latency was measured: one per pairing after a result.
    assert!(
        node_metric(addr, "tabula_tournaments_pairing_seconds_count").await
            >= ((rounds - 1) * (n as u64 / 2)) as f64,
        "rounds after the first paired after results"
    );
    println!(
        "Swiss of {n} over {rounds} rounds: {} games, no repeat, standings recounted",
        records.len()
    );
}

#[tokio::test]
async fn the_tournament_routes_refuse_what_they_cannot_do() {
    let _one = common::one().await;
    let node = common::start(common::test_settings());
    let addr = node.addr;
    let p = guests(addr, 3).await;
    let post = |path: String, body: Option<Value>| async move {
        http_async(addr, "POST", &path, body).await
    };
    let base = json!({
        "format": {"type": "knockout"},
        "game": "backgammon",
        "startAtMs": now_ms() + 800,
    });
    let with = |k: &str, v: Value| {
        let mut b = base.clone();
        b[k] = v;
        b
    };
    // Bad bodies.
    for (body, why) in [
        (json!({"game": "backgammon"}), "no format"),
        (with("game", json!("chess")), "unknown game"),
        (with("matchPoints", json!(0)), "zero points"),
        (with("matchPoints", json!(65)), "too many points"),
        (with("id", json!("bad id!")), "a bad id"),
        (
            with(
                "format",
                json!({"type": "swiss", "rounds": 0, "lateJoinUntilRound": 0}),
            ),
            "no rounds",
        ),
        (with("maxPlayers", json!(1)), "room for one"),
        (with("timeControl", json!("glacial")), "unknown clock"),
        (with("colour", json!("red")), "an unknown field"),
    ] {
        let (status, v) = post("/api/tournaments".into(), Some(body)).await;
        assert_eq!(status, 400, "{why}: {v}");
        assert!(
            v["error"]["code"].is_string() && v["error"]["message"].is_string(),
            "{why}: {v}"
        );
    }
    // Unknown ids.
    let (status, v) = http_async(addr, "GET", "/api/tournaments/nope", None).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("tournament_not_found"))
    );
    let (status, _) = post(
        format!("/api/tournaments/nope/join?token={}", p[0].token),
        None,
    )
    .await;
    assert_eq!(status, 404);
    // Made, then the same id again.
    let (status, v) = post("/api/tournaments".into(), Some(with("id", json!("cup")))).await;
    assert_eq!(status, 201, "{v}");
    let (status, v) = post("/api/tournaments".into(), Some(with("id", json!("cup")))).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (409, Some("tournament_refused")),
        "{v}"
    );
    // Joining needs credentials.
    let (status, _) = post("/api/tournaments/cup/join".into(), None).await;
    assert_eq!(status, 401);
    // Withdraw before joining; pause in a knockout; join twice.
    let (status, _) = post(
        format!("/api/tournaments/cup/withdraw?token={}", p[0].token),
        None,
    )
    .await;
    assert_eq!(status, 409);
    join_all(&[addr], "cup", &p[..2]).await;
    let (status, v) = post(
        format!("/api/tournaments/cup/join?token={}", p[0].token),
        None,
    )
    .await;
    assert_eq!(status, 409, "{v}");
    let (status, _) = post(
        format!("/api/tournaments/cup/pause?token={}", p[0].token),
        None,
    )
    .await;
    assert_eq!(status, 409);
    // Once it started, a knockout takes nobody more.
    until(&[addr], "cup", "started", |v| v["status"] == "running").await;
    let (status, v) = post(
        format!("/api/tournaments/cup/join?token={}", p[2].token),
        None,
    )
    .await;
    assert_eq!(status, 409, "{v}");
    assert_eq!(
        v["error"]["message"],
        "a knockout takes no players once it started"
    );
    // The caller's game is shown to him.
    let (status, v) = http_async(
        addr,
        "GET",
        &format!("/api/tournaments/cup?token={}", p[0].token),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(v["myGame"]["roomId"], "cup:1:1", "{v}");
    // A withdrawal while running forfeits his game: the other is champion.
    let (status, _) = post(
        format!("/api/tournaments/cup/withdraw?token={}", p[0].token),
        None,
    )
    .await;
    assert_eq!(status, 202);
    let v = until(&[addr], "cup", "over", |v| v["status"] == "finished").await;
    assert_eq!(v["champion"], p[1].player.as_str(), "{v}");
    let (status, _) = post(
        format!("/api/tournaments/cup/join?token={}", p[2].token),
        None,
    )
    .await;
    assert_eq!(status, 409);
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

async fn node_metric(addr: SocketAddr, series: &str) -> f64 {
    let (_, body) = http_async(addr, "GET", "/metrics", None).await;
    body.as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(series))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}
