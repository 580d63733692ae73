//! The system tests' one support library (`tests/system` and
//! `loadtest/tests` use it):
//!
//! * a node in this process on a free port ([`start`], [`start_with`]:
//!   [`Node`] stops it on drop; [`test_settings`]), plain HTTP ([`http`],
//!   [`http_async`]) and a protocol client ([`Client`]) that checks every
//!   event's version follows the last;
//! * [`next_command`] / [`play_out`]: a game driven to its end from the
//!   room's state;
//! * [`cluster`]: our own `redis-server` on a free port, and players that
//!   survive their node (reconnect elsewhere, re-join, resend the same
//!   `seq`) whose acknowledged moves are checked against the stored record;
//! * [`telegram`]: `initData` signed as Telegram signs it;
//! * [`one`] / [`one_blocking`]: the lock every system test holds.
//!
//! The node *processes* the multi-process tests start are the binary
//! `tabula-node` of this package (`src/bin/tabula-node.rs`, the server's own
//! `main`), found by a test as `env!("CARGO_BIN_EXE_tabula-node")`, run in
//! [`ROOT`] so that `config/` and `web/` are the repository's.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tabula_server::Settings;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub mod bot_api;
pub mod cluster;
pub mod proxy;
pub mod telegram;

/// The repository's root (`config/`, `web/`, `helm/` are under it).
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The lock every system test holds for its whole run.
///
/// The system tests are one test binary, whose tests libtest runs on
/// several threads at once. They used to be nine binaries run one after
/// another, and the multi-process scenarios (a cluster of node processes,
/// chaos, the chart's drain, network partitions) measure pauses against
/// tight bounds — how long a player waits while its node is killed or
/// drained — that hold on a 2-core machine only when nothing else runs:
/// another test's nodes and games on the same cores would stretch the
/// pauses and fail them by chance (each cluster scenario runs a Redis and
/// three nodes; the pause figures mean something only on a machine that is
/// not also running other clusters), and the partition scenarios build
/// network namespaces and links of fixed names, one network at a time.
/// So every test takes this lock first
/// ([`one`] in async tests, [`one_blocking`] in plain ones) and they run
/// one at a time. A tokio mutex is not poisoned by a test that panics
/// holding it, so one failure does not fail the rest.
pub static ONE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Waits for [`ONE`]; hold the guard until the test ends
/// (`let _one = common::one().await;`).
pub async fn one() -> tokio::sync::MutexGuard<'static, ()> {
    ONE.lock().await
}

/// [`one`] for a test that is not async (not inside a runtime).
pub fn one_blocking() -> tokio::sync::MutexGuard<'static, ()> {
    ONE.blocking_lock()
}

/// How long [`Client::recv`] waits for a message.
pub const WAIT: Duration = Duration::from_secs(10);

/// A running node; stops when dropped.
#[derive(Debug)]
pub struct Node {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Node {
    /// Starts the node's drain (as SIGTERM does) without waiting for it.
    pub fn begin_stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The defaults with no bot delay, rate limits and room quotas no test
/// reaches, a quick shutdown, and a bot seated after 300 ms of
/// matchmaking.
pub fn test_settings() -> Settings {
    let mut s = Settings::defaults();
    s.bots.delay_ms = 0;
    s.server.rate_per_sec = 10_000;
    s.server.rate_burst = 10_000;
    s.server.shutdown_timeout_secs = 1;
    s.matchmaking.bot_after_ms = 300;
    // Every test makes its rooms from 127.0.0.1.
    s.quotas.address_rooms_burst = 100_000;
    s.quotas.address_rooms_per_minute = 100_000;
    s.quotas.player_rooms_burst = 100_000;
    s.quotas.player_rooms_per_minute = 100_000;
    s.server.max_sockets_per_address = 1_000_000;
    // No durable store unless a test gives one (`with_store`): most tests
    // are about the rooms.
    s.store.url = String::new();
    s
}

/// `settings` with a durable store in a fresh SQLite file under `dir`.
pub fn with_store(mut settings: Settings, dir: &std::path::Path) -> Settings {
    settings.store.url = format!("sqlite://{}/tabula.db?mode=rwc", dir.display());
    settings.store.archive_interval_ms = 100;
    settings
}

/// Waits until the node at `addr` has reached its durable store (it
/// connects in the background; until then its store's routes answer 503
/// `unavailable`): the leaderboard answers.
pub async fn store_reached(addr: SocketAddr) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let (status, v) = http_async(addr, "GET", "/api/leaderboards/backgammon", None).await;
        if status == 200 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no durable store: {status} {v}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A node in this process on a free port, with the default services.
pub fn start(settings: Settings) -> Node {
    start_with(settings, tabula_server::Services::default())
}

/// A node with services other than the defaults (a shared backplane…).
pub fn start_with(settings: Settings, services: tabula_server::Services) -> Node {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        actix_rt::System::new().block_on(async move {
            tabula_server::run_with(listener, settings, services, async {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
    });
    Node {
        addr,
        stop: Some(tx),
        thread: Some(thread),
    }
}

/// A blocking HTTP/1.1 request; returns (status, JSON body).
pub fn http(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status: u16 = out[9..12].parse().unwrap();
    let body = out.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    let v = serde_json::from_str(body).unwrap_or(Value::String(body.to_string()));
    (status, v)
}

/// `GET /api/rooms/{room}/records` on `addr`: 200, and the room's finished
/// games' records.
pub async fn records(addr: SocketAddr, room: &str) -> Vec<tabula_room::GameRecord> {
    let (status, v) = http_async(addr, "GET", &format!("/api/rooms/{room}/records"), None).await;
    assert_eq!(status, 200, "{v}");
    serde_json::from_value(v).expect("game records")
}

/// [`http`] on a blocking thread.
pub async fn http_async(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let (m, p) = (method.to_string(), path.to_string());
    tokio::task::spawn_blocking(move || http(addr, &m, &p, body))
        .await
        .unwrap()
}

/// A series' value from a node's `/metrics` (0 when it is not there yet),
/// e.g. `tabula_room_releases_total{reason="idle"}`.
pub async fn metric(addr: SocketAddr, series: &str) -> f64 {
    let (_, body) = http_async(addr, "GET", "/metrics", None).await;
    body.as_str()
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// `POST /api/rooms` with `body`, which must answer 201; the room's id.
pub async fn create_room(addr: SocketAddr, body: Value) -> String {
    let (status, v) = http_async(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{v}");
    v["roomId"].as_str().unwrap().to_string()
}

/// A client's WebSocket.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A socket client that remembers everything it received.
#[derive(Debug)]
pub struct Client {
    /// The socket.
    pub ws: Ws,
    /// Its guest name (or a label), named in failures.
    pub name: String,
    /// The last `seq` sent.
    pub seq: u64,
    /// Every JSON message received, in order.
    pub seen: Vec<Value>,
    /// The room version last seen (each event's must exceed it).
    pub last_version: u64,
    /// The seat the last `state` gave it.
    pub seat: Option<String>,
    /// The player `welcome` named.
    pub player: String,
    /// The session token `welcome` brought: the way back to the same
    /// player ([`Client::again`]).
    pub token: Option<String>,
}

impl Client {
    /// Opens `/ws` as a new guest and takes its `welcome`; `name` labels
    /// the client in failures (the node mints the guest's id).
    pub async fn connect(addr: SocketAddr, name: &str) -> Client {
        Client::open(addr, name, "").await
    }

    /// Opens `/ws` again as the player `old` was, with its session token,
    /// as a client written from docs/protocol.md reconnects.
    pub async fn again(addr: SocketAddr, old: &Client) -> Client {
        let token = old.token.as_deref().expect("a session token");
        let c = Client::with_token(addr, &old.name, token).await;
        assert_eq!(c.player, old.player, "{}: the same player again", old.name);
        c
    }

    /// Opens `/ws?initData=<init_data>` (a Telegram player).
    pub async fn with_init_data(addr: SocketAddr, name: &str, init_data: &str) -> Client {
        let q = format!("initData={}", telegram::enc(init_data));
        Client::open(addr, name, &q).await
    }

    /// Opens `/ws?token=<token>`.
    pub async fn with_token(addr: SocketAddr, name: &str, token: &str) -> Client {
        Client::open(addr, name, &format!("token={token}")).await
    }

    async fn open(addr: SocketAddr, name: &str, query: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?{query}"))
            .await
            .unwrap();
        let (c, w) = Client::welcomed(ws, name).await;
        assert!(c.player.starts_with("guest:") || !query.is_empty(), "{w}");
        c
    }

    /// A client on an open socket, past its `welcome` (which names the
    /// player and brings the token); the welcome too.
    pub async fn welcomed(ws: Ws, name: &str) -> (Client, Value) {
        let mut c = Client {
            ws,
            name: name.to_string(),
            seq: 0,
            seen: Vec::new(),
            last_version: 0,
            seat: None,
            player: String::new(),
            token: None,
        };
        let w = c.recv().await;
        assert_eq!(w["type"], "welcome", "{w}");
        c.player = w["player"].as_str().unwrap_or_default().to_string();
        c.token = w["token"].as_str().map(str::to_string);
        (c, w)
    }

    /// Sends a frame as it is.
    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.unwrap();
    }

    /// Sends a message with the next seq; returns the seq.
    pub async fn send(&mut self, mut v: Value) -> u64 {
        self.seq += 1;
        v["seq"] = json!(self.seq);
        self.ws.send(Message::text(v.to_string())).await.unwrap();
        self.seq
    }

    /// The next JSON message (panics after [`WAIT`]).
    pub async fn recv(&mut self) -> Value {
        self.try_recv(WAIT)
            .await
            .unwrap_or_else(|| panic!("{}: nothing received", self.name))
    }

    /// The next JSON message, or `None` after `wait` or on a close.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        loop {
            let m = tokio::time::timeout(wait, self.ws.next())
                .await
                .ok()??
                .ok()?;
            match m {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(&t).unwrap();
                    if let Some(ver) = v.get("version").and_then(Value::as_u64)
                        && v["type"] != "ack"
                    {
                        if v["type"] == "state" {
                            self.last_version = ver;
                        } else {
                            assert!(
                                ver > self.last_version,
                                "{}: version {ver} after {}: {v}",
                                self.name,
                                self.last_version
                            );
                            self.last_version = ver;
                        }
                    }
                    if v["type"] == "state" {
                        self.last_version = v["state"]["version"].as_u64().unwrap();
                        if let Some(s) = v["yourSeat"].as_str() {
                            self.seat = Some(s.to_string());
                        }
                    }
                    self.seen.push(v.clone());
                    return Some(v);
                }
                Message::Close(_) => return None,
                _ => {}
            }
        }
    }

    /// Receives until `pred` holds; returns that message.
    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.recv().await;
            if pred(&v) {
                return v;
            }
        }
    }

    /// Sends and waits for the answer carrying the same seq (event, ack,
    /// error, state, pong); returns it.
    pub async fn call(&mut self, v: Value) -> Value {
        loop {
            let seq = self.send(v.clone()).await;
            let r = self
                .until(|m| m["seq"] == json!(seq) || (m["type"] == "state" && seq_free(m)))
                .await;
            // A well-behaved client backs off and resends when rate limited.
            if r["type"] == "error" && r["code"] == "rate_limited" {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            return r;
        }
    }

    /// Joins `room`; its `state` or the error.
    pub async fn join(&mut self, room: &str) -> Value {
        self.send(json!({"type": "join", "room": room})).await;
        self.until(|m| m["type"] == "state" || m["type"] == "error")
            .await
    }

    /// Whether any message received so far satisfies `pred`.
    pub fn saw(&self, pred: impl Fn(&Value) -> bool) -> bool {
        self.seen.iter().any(pred)
    }
}

fn seq_free(_m: &Value) -> bool {
    true
}

/// The room state over HTTP.
pub async fn state(addr: SocketAddr, room: &str) -> Value {
    let (status, v) = http_async(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(status, 200, "{v}");
    v["state"].clone()
}

/// `24-18` / `bar/22*` / `5-off` → the `move` message.
pub fn move_msg(step: &str) -> Value {
    let (from, to) = tabula_room::Spot::parse_step(step).expect("a step the room offered");
    json!({"type": "move", "from": from, "to": to})
}

/// The command the player to act should send, from the full state.
pub fn next_command(st: &Value) -> Option<(String, Value)> {
    let to_act = st.get("toAct")?;
    if to_act.is_null() {
        return None;
    }
    let seat = to_act["seat"].as_str()?.to_string();
    let cmd = match to_act["need"].as_str()? {
        "roll" => json!({"type": "rollDice"}),
        "cubeDecision" => json!({"type": "take"}),
        "endProposal" => json!({"type": "acceptEnd"}),
        "move" => {
            if st["game"] == "thud" {
                let moves = st["board"]["legalMoves"].as_array()?;
                json!({"type": "thudMove", "notation": moves[0]})
            } else {
                move_msg(st["moves"]["firstSteps"][0].as_str()?)
            }
        }
        _ => return None,
    };
    Some((seat, cmd))
}

/// Both seated clients press Ready.
pub async fn both_ready(a: &mut Client, b: &mut Client) {
    let r = a.call(json!({"type": "ready"})).await;
    assert_eq!(r["event"]["type"], "ready", "{r}");
    let r = b.call(json!({"type": "ready"})).await;
    assert_eq!(r["type"], "event", "{r}");
}

/// Plays the game to its end: whoever must act sends the first legal
/// command from the room's state. `clients` are indexed by seat (a, b);
/// `None` is a bot seat. Returns the number of commands sent.
pub async fn play_out(
    addr: SocketAddr,
    room: &str,
    clients: &mut [Option<&mut Client>; 2],
    max: usize,
) -> usize {
    let mut sent = 0;
    for _ in 0..max {
        let st = state(addr, room).await;
        if st["phase"] == "finished" || st["phase"] == "waiting_for_player" && st["gameNumber"] != 0
        {
            return sent;
        }
        let Some((seat, cmd)) = next_command(&st) else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let i = if seat == "a" { 0 } else { 1 };
        match clients[i].as_deref_mut() {
            None => tokio::time::sleep(Duration::from_millis(2)).await,
            Some(c) => {
                let r = c.call(cmd.clone()).await;
                assert!(r["type"] != "error", "{cmd} refused: {r}");
                sent += 1;
            }
        }
    }
    panic!("the game did not end in {max} commands");
}
