//! Issue 47 (part 3): "a restart loses nothing finished". A single node
//! (the default: in-process backplane, SQLite) is killed with SIGKILL at
//! random moments around game ends — the moment a player receives
//! `gameEnded`, or a few milliseconds after — and restarted on the same
//! file, again and again. Every game a player saw end is in his history
//! afterwards, exactly once. Then it measures what a game end costs.

// It prints the seed of its random moments, and its figures.
#![allow(clippy::print_stdout)]

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::SinkExt;
use serde_json::{Value, json};
use tabula_tests as common;
use tokio_tungstenite::tungstenite::Message;

use crate::node_proc::NodeProc;
use common::Client;

const SECRET: &str = "crash-archive-secret-0123456789abcdef";
/// Players, each playing games one after another, all at once.
const PLAYERS: usize = 4;
/// Kills (and restarts).
const ROUNDS: usize = 10;
/// Games played one after another to measure what an end costs.
const GAMES: usize = 200;

/// A small xorshift: the test's random moments, from a seed it prints.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn node(db: &str) -> NodeProc {
    NodeProc::start(&[
        ("TABULA__STORE__URL", db),
        ("TABULA__AUTH__SESSION_SECRET", SECRET),
        ("TABULA__BOTS__DELAY_MS", "0"),
        ("TABULA__SERVER__RATE_PER_SEC", "10000"),
        ("TABULA__SERVER__RATE_BURST", "10000"),
        ("TABULA__QUOTAS__ADDRESS_ROOMS_BURST", "100000"),
        ("TABULA__QUOTAS__ADDRESS_ROOMS_PER_MINUTE", "100000"),
        ("TABULA__QUOTAS__PLAYER_ROOMS_BURST", "100000"),
        ("TABULA__QUOTAS__PLAYER_ROOMS_PER_MINUTE", "100000"),
    ])
}

/// A blocking HTTP/1.1 request to a node that may be gone: `None` then.
fn try_http(addr: SocketAddr, method: &str, path: &str, body: &str) -> Option<(u16, Value)> {
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let status: u16 = out.get(9..12)?.parse().ok()?;
    let body = out.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> Option<(u16, Value)> {
    let (m, p, b) = (method.to_string(), path.to_string(), body.to_string());
    tokio::task::spawn_blocking(move || try_http(addr, &m, &p, &b))
        .await
        .ok()
        .flatten()
}

/// Sends `v` with the next seq; `false` once the node is gone.
async fn send(c: &mut Client, mut v: Value) -> bool {
    c.seq += 1;
    v["seq"] = json!(c.seq);
    c.ws.send(Message::text(v.to_string())).await.is_ok()
}

/// Waits for a message satisfying `pred`; `None` once the node is gone.
async fn until(c: &mut Client, pred: impl Fn(&Value) -> bool) -> Option<Value> {
    loop {
        let m = c.try_recv(Duration::from_secs(5)).await?;
        if pred(&m) {
            return Some(m);
        }
    }
}

/// Games against the computer, one after another, each resigned as soon
/// as it starts, until the node is gone; each room whose `gameEnded` the
/// player received goes into `seen` at once (and the `ended` bell rings).
async fn play(
    addr: SocketAddr,
    mut c: Client,
    seen: Arc<Mutex<Vec<String>>>,
    ended: Arc<tokio::sync::Notify>,
) {
    let body = json!({"game": "backgammon", "bot": {"level": "easy"}}).to_string();
    loop {
        // `None` once the node is gone.
        let Some((201, v)) = http(addr, "POST", "/api/rooms", &body).await else {
            return;
        };
        let Some(room) = v["roomId"].as_str().map(str::to_string) else {
            return;
        };
        if !send(&mut c, json!({"type": "join", "room": room})).await
            || until(&mut c, |m| m["type"] == "state").await.is_none()
            || !send(&mut c, json!({"type": "ready"})).await
        {
            return;
        }
        match resign(&mut c).await {
            Some(_) => {
                seen.lock().unwrap().push(room);
                ended.notify_one();
            }
            // The node is gone.
            None => return,
        }
    }
}

/// Resigns as soon as the game is on (the computer readies itself a moment
/// after the player: a resign before is refused, and resent); the round
/// trip of the resign answered by `gameEnded`, or `None` once the node is
/// gone.
async fn resign(c: &mut Client) -> Option<Duration> {
    for _ in 0..100 {
        let t = Instant::now();
        if !send(c, json!({"type": "resign"})).await {
            return None;
        }
        let resigned = c.seq;
        let end = until(c, |m| {
            (m["type"] == "event" && m["event"]["type"] == "gameEnded")
                || (m["type"] == "error" && m["seq"] == json!(resigned))
        })
        .await?;
        if end["type"] == "event" {
            return Some(t.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    panic!("{}: resign refused 100 times", c.name);
}

/// The rooms of `token`'s archived games (every page).
async fn history(addr: SocketAddr, token: &str) -> Vec<String> {
    let mut rooms = Vec::new();
    let mut after = String::new();
    loop {
        let path = format!("/api/me/history?limit=100&token={token}{after}");
        let (status, v) = http(addr, "GET", &path, "").await.expect("history answers");
        assert_eq!(status, 200, "{v}");
        for g in v["games"].as_array().cloned().unwrap_or_default() {
            rooms.push(g["room"].as_str().unwrap_or_default().to_string());
        }
        match v["next"].as_str() {
            Some(next) => after = format!("&after={next}"),
            None => return rooms,
        }
    }
}

#[tokio::test]
async fn every_game_a_player_saw_end_is_in_his_history_after_any_kill() {
    let _one = common::one().await;
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/tabula.db?mode=rwc", dir.path().display());
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    println!("seed {seed}");
    let mut rng = Rng(seed);
    let seen: Vec<Arc<Mutex<Vec<String>>>> = (0..PLAYERS).map(|_| Arc::default()).collect();
    let mut tokens: Vec<Option<String>> = vec![None; PLAYERS];
    let t0 = Instant::now();
    for round in 0..ROUNDS {
        let n = node(&db);
        let addr = n.addr;
        common::store_reached(addr).await;
        let ended = Arc::new(tokio::sync::Notify::new());
        let mut players = Vec::new();
        for (p, token) in tokens.iter_mut().enumerate() {
            let name = format!("p{p}");
            let c = match token {
                Some(t) => Client::with_token(addr, &name, t).await,
                None => Client::connect(addr, &name).await,
            };
            *token = c.token.clone();
            players.push(tokio::spawn(play(addr, c, seen[p].clone(), ended.clone())));
        }
        // The kill: at the moment the k-th game of this round is seen to
        // end, or up to 5 ms after it.
        let k = 2 + rng.below(8);
        let after = rng.below(6);
        let total = || seen.iter().map(|s| s.lock().unwrap().len()).sum::<usize>();
        let start = total();
        let deadline = Instant::now() + Duration::from_secs(10);
        while total() < start + k as usize {
            assert!(Instant::now() < deadline, "round {round}: no games end");
            let _ = tokio::time::timeout(Duration::from_millis(100), ended.notified()).await;
        }
        if after > 0 {
            std::thread::sleep(Duration::from_millis(after));
        }
        drop(n);
        for p in players {
            let _ = p.await;
        }
        println!(
            "round {round}: killed at game {k} + {after} ms; {} seen to end so far",
            total()
        );

        // The same file again: every game seen to end is there, once.
        let n = node(&db);
        common::store_reached(n.addr).await;
        for (p, token) in tokens.iter().enumerate() {
            let token = token.as_deref().expect("a session token");
            let rooms = history(n.addr, token).await;
            for room in seen[p].lock().unwrap().iter() {
                let times = rooms.iter().filter(|r| *r == room).count();
                assert_eq!(
                    times, 1,
                    "seed {seed}, round {round}: player {p} saw {room} end; his history holds it {times} times: {rooms:?}"
                );
            }
        }
        drop(n);
    }
    println!(
        "{} games seen to end over {ROUNDS} kills, {:?}",
        seen.iter().map(|s| s.lock().unwrap().len()).sum::<usize>(),
        t0.elapsed()
    );

    // What it costs: one player's games one after another, each end held
    // until the store has the game (`tabula_archive_hold_seconds`), and
    // the resign's round trip to `gameEnded` as the player sees it.
    let n = node(&db);
    common::store_reached(n.addr).await;
    let token = tokens[0].as_deref().expect("a session token");
    let mut c = Client::with_token(n.addr, "p0", token).await;
    let body = json!({"game": "backgammon", "bot": {"level": "easy"}}).to_string();
    let mut rtts = Vec::new();
    for _ in 0..GAMES {
        let (status, v) = http(n.addr, "POST", "/api/rooms", &body)
            .await
            .expect("the node answers");
        assert_eq!(status, 201, "{v}");
        let room = v["roomId"].as_str().expect("a room").to_string();
        assert!(send(&mut c, json!({"type": "join", "room": room})).await);
        assert!(until(&mut c, |m| m["type"] == "state").await.is_some());
        assert!(send(&mut c, json!({"type": "ready"})).await);
        rtts.push(resign(&mut c).await.expect("gameEnded"));
    }
    rtts.sort();
    let holds = common::metric(n.addr, "tabula_archive_hold_seconds_count").await;
    let held = common::metric(n.addr, "tabula_archive_hold_seconds_sum").await;
    assert!(holds >= GAMES as f64, "every end held until kept: {holds}");
    println!(
        "{GAMES} game ends: held {:.3} ms on average until stored; resign to gameEnded p50 {:?}, p99 {:?}",
        held * 1000.0 / holds,
        rtts[rtts.len() / 2],
        rtts[rtts.len() * 99 / 100]
    );
}
