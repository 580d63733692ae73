//! A node on port 0 and WebSocket clients for the socket tests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tabula_server::Settings;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub mod cluster;

pub const WAIT: Duration = Duration::from_secs(10);

/// A running node; stops when dropped.
pub struct Node {
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

pub fn test_settings() -> Settings {
    let mut s = Settings::defaults();
    s.bots.delay_ms = 0;
    s.server.rate_per_sec = 10_000;
    s.server.rate_burst = 10_000;
    s.server.shutdown_timeout_secs = 1;
    s.matchmaking.bot_after_ms = 300;
    s
}

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

pub async fn create_room(addr: SocketAddr, body: Value) -> String {
    let (status, v) = http_async(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{v}");
    v["roomId"].as_str().unwrap().to_string()
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A socket client that remembers everything it received.
pub struct Client {
    pub ws: Ws,
    pub name: String,
    pub seq: u64,
    pub seen: Vec<Value>,
    pub last_version: u64,
    pub seat: Option<String>,
}

impl Client {
    pub async fn connect(addr: SocketAddr, guest: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?guest={guest}"))
            .await
            .unwrap();
        let mut c = Client {
            ws,
            name: guest.to_string(),
            seq: 0,
            seen: Vec::new(),
            last_version: 0,
            seat: None,
        };
        let w = c.recv().await;
        assert_eq!(w["type"], "welcome");
        assert_eq!(w["player"], format!("guest:{guest}"));
        c
    }

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

    pub async fn join(&mut self, room: &str) -> Value {
        self.send(json!({"type": "join", "room": room})).await;
        self.until(|m| m["type"] == "state" || m["type"] == "error")
            .await
    }

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
    let s = step.trim_end_matches('*');
    let (a, b) = s.split_once(['-', '/']).unwrap();
    let spot = |x: &str| -> Value {
        let x = x.trim_end_matches('*');
        match x.parse::<u8>() {
            Ok(n) => json!(n),
            Err(_) => json!(x),
        }
    };
    json!({"type": "move", "from": spot(a), "to": spot(b)})
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
