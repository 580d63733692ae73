//! The multi-process cluster harness (the system tests `cluster`,
//! `chart_drain`, `partition`): our own `redis-server`, and players that survive their
//! node (reconnect to another with backoff, re-join, resend the same `seq`)
//! driving whole games whose stored records are then checked against the
//! moves the players saw acknowledged.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::{Ws, http, next_command};

/// A port that was free a moment ago (node processes bind it by
/// configuration, as an SRE would, not by port 0).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An empty scratch directory for this test process, `name` in it.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tabula-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The liveness lease of every multi-process cluster test, ms.
pub const LEASE_MS: u64 = 1000;

/// What every multi-process cluster test gives a `tabula-node` process:
/// run from the repository root, listening on `listen`, the Redis
/// backplane at `redis_url` as node `node_id`, a [`LEASE_MS`] lease, 300 ms
/// route and Redis timeouts, a 200 ms sweep, no bot delay, rate limits out
/// of the way, one session secret, logs at `TABULA_TEST_LOG` (default
/// `info`). The caller adds its own settings, the output and the spawn.
pub fn cluster_node<'a>(
    cmd: &'a mut Command,
    node_id: &str,
    listen: &str,
    redis_url: &str,
) -> &'a mut Command {
    cmd.current_dir(crate::ROOT)
        .env("TABULA__SERVER__LISTEN", listen)
        .env("TABULA__SERVER__RATE_PER_SEC", "10000")
        .env("TABULA__SERVER__RATE_BURST", "10000")
        .env("TABULA__CLUSTER__BACKPLANE", "redis")
        .env("TABULA__CLUSTER__NODE_ID", node_id)
        .env("TABULA__CLUSTER__ROUTE_TIMEOUT_MS", "300")
        .env("TABULA__CLUSTER__SWEEP_INTERVAL_MS", "200")
        .env("TABULA__REDIS__URL", redis_url)
        .env("TABULA__REDIS__LEASE_MS", LEASE_MS.to_string())
        .env("TABULA__REDIS__TIMEOUT_MS", "300")
        .env("TABULA__BOTS__DELAY_MS", "0")
        // No durable store unless the test sets one.
        .env("TABULA__STORE__URL", "")
        .env(
            "TABULA__AUTH__SESSION_SECRET",
            "cluster-test-secret-0123456789abcdef",
        )
        .env(
            "RUST_LOG",
            std::env::var("TABULA_TEST_LOG").unwrap_or_else(|_| "info".into()),
        )
}

/// Our own redis-server, killed on drop.
#[derive(Debug)]
pub struct Redis {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its data directory.
    pub dir: PathBuf,
    /// Whether it keeps an append-only file (fsync always).
    pub aof: bool,
    /// Whether it runs in cluster mode.
    pub cluster: bool,
    /// The process, while it runs.
    pub child: Option<Child>,
}

impl Redis {
    /// A standalone server on a free port.
    pub fn start(name: &str, aof: bool) -> Redis {
        Redis::start_with(name, aof, false)
    }

    /// [`Redis::start`], in cluster mode when `cluster`.
    pub fn start_with(name: &str, aof: bool, cluster: bool) -> Redis {
        let mut r = Redis {
            port: free_port(),
            dir: scratch(name),
            aof,
            cluster,
            child: None,
        };
        // A free port may be taken before redis-server binds it (other
        // tests start servers too): then try another.
        for _ in 0..5 {
            if r.try_spawn() {
                return r;
            }
            r.kill();
            r.port = free_port();
        }
        panic!("redis-server did not start");
    }

    /// Starts (or restarts, on the same port and data) the server.
    pub fn spawn(&mut self) {
        assert!(self.try_spawn(), "redis-server did not start");
    }

    fn try_spawn(&mut self) -> bool {
        let mut cmd = Command::new("redis-server");
        cmd.arg("--port")
            .arg(self.port.to_string())
            .arg("--bind")
            .arg("127.0.0.1")
            .arg("--save")
            .arg("")
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if self.cluster {
            cmd.args(["--cluster-enabled", "yes", "--cluster-config-file"])
                .arg(self.dir.join("nodes.conf"));
        }
        if self.aof {
            cmd.args(["--appendonly", "yes", "--appendfsync", "always"]);
        } else {
            cmd.args(["--appendonly", "no"]);
        }
        // Killed and reaped on drop, whatever happens next.
        self.child = Some(cmd.spawn().expect("redis-server is installed"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let out = Command::new("redis-cli")
                .args(["-p", &self.port.to_string(), "ping"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout).contains("PONG") {
                return true;
            }
            if self
                .child
                .as_mut()
                .is_some_and(|c| c.try_wait().ok().flatten().is_some())
            {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Kills and reaps the process (its data stays).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Nodes a client may use, and which of them are gone.
pub type Nodes = Arc<std::sync::Mutex<Vec<(SocketAddr, bool)>>>;

/// The nodes not marked gone.
pub fn live(nodes: &Nodes) -> Vec<SocketAddr> {
    nodes
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, up)| *up)
        .map(|(a, _)| *a)
        .collect()
}

/// Notes a `gameEnded`, or a `playerDisconnected` of anyone, in `v`.
fn note(v: &Value, end: &mut bool, disconnected: &mut bool) {
    match v["event"]["type"].as_str() {
        Some("gameEnded") => *end = true,
        Some("playerDisconnected") => *disconnected = true,
        _ => {}
    }
}

/// A player that survives its node: on a dead or silent socket it
/// reconnects to another node with backoff, re-joins, and resends its
/// command with the same `seq`.
#[derive(Debug)]
pub struct Player {
    /// Its label in failures.
    pub name: String,
    /// Its session token, from the last `welcome`: how it comes back as
    /// the same player (a guest's only credential).
    pub token: Option<String>,
    /// The room it plays in.
    pub room: String,
    /// The node it tries first.
    pub home: SocketAddr,
    /// The nodes it may fall back to.
    pub nodes: Nodes,
    /// Its socket, while it has one.
    pub ws: Option<Ws>,
    /// The last `seq` sent.
    pub seq: u64,
    /// `move` commands acknowledged, in order.
    pub moves: Vec<(Value, Value)>,
    /// The longest wait for an answer, and when it began.
    pub worst: (Duration, Option<Instant>),
    /// Answers that arrived after `mark` (the disruption), first one.
    pub mark: Option<Instant>,
    /// How long after `mark` the first message with a version came.
    pub first_after_mark: Option<Duration>,
    /// Reconnections in `call` (a lost or silent socket).
    pub reconnects: u32,
    /// The node of each socket dropped for its silence (rule 4 of the
    /// docs' waiting rules: 3 s with nothing at all while waiting). A
    /// socket is silent only when its node is stopped or cut off: one
    /// dropped on a node that serves is a healthy socket the docs made a
    /// client drop ([`assert_no_healthy_socket_dropped`]).
    pub silent_drops: Vec<SocketAddr>,
    /// The node of every socket this client lost or gave up in `call`, for
    /// whatever reason (closed, reset, silent): each is a reconnect that
    /// only a fault of that node may force
    /// ([`assert_no_healthy_socket_dropped`]).
    pub lost: Vec<SocketAddr>,
    /// Answers `unavailable` (the command retried) and `pending` progress
    /// messages received in `call`: how often the server said "not now" or
    /// "still waiting" rather than fall silent.
    pub held: u32,
    /// Seen on the socket: `gameEnded`, and `playerDisconnected` of anyone.
    pub saw_end: bool,
    /// See `saw_end`.
    pub saw_disconnected: bool,
}

impl Player {
    /// A player not yet connected.
    pub fn new(name: &str, room: &str, home: SocketAddr, nodes: &Nodes) -> Player {
        Player {
            name: name.into(),
            token: None,
            room: room.into(),
            home,
            nodes: nodes.clone(),
            ws: None,
            seq: 0,
            moves: Vec::new(),
            worst: (Duration::ZERO, None),
            mark: None,
            first_after_mark: None,
            reconnects: 0,
            silent_drops: Vec::new(),
            lost: Vec::new(),
            held: 0,
            saw_end: false,
            saw_disconnected: false,
        }
    }

    /// Connects to `home`, else any live node, with backoff, and joins
    /// its room (panics after 20 s).
    pub async fn connect(&mut self) {
        let mut backoff = Duration::from_millis(20);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let mut order = vec![self.home];
            order.extend(live(&self.nodes).into_iter().filter(|a| *a != self.home));
            for addr in order {
                if !live(&self.nodes).contains(&addr) {
                    continue;
                }
                let url = match &self.token {
                    Some(t) => format!("ws://{addr}/ws?token={t}"),
                    None => format!("ws://{addr}/ws"),
                };
                let Ok(Ok((mut ws, _))) = tokio::time::timeout(
                    Duration::from_secs(2),
                    tokio_tungstenite::connect_async(url),
                )
                .await
                else {
                    continue;
                };
                let join = json!({"type": "join", "room": self.room}).to_string();
                if ws.send(Message::text(join)).await.is_err() {
                    continue;
                }
                // welcome, then the state (or an error).
                let mut ok = false;
                while let Ok(Some(Ok(m))) =
                    tokio::time::timeout(Duration::from_secs(3), ws.next()).await
                {
                    if let Message::Text(t) = m {
                        let v: Value = serde_json::from_str(&t).unwrap();
                        if v["type"] == "welcome"
                            && let Some(t) = v["token"].as_str()
                        {
                            self.token = Some(t.to_string());
                        }
                        if v["type"] == "state" {
                            ok = true;
                            break;
                        }
                        if v["type"] == "error" {
                            break;
                        }
                    }
                }
                if ok {
                    self.home = addr;
                    self.ws = Some(ws);
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "{}: no node would take me back",
                self.name
            );
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_millis(500));
        }
    }

    /// Notes what a message says of the game's end and disconnections.
    pub fn saw(&mut self, v: &Value) {
        note(v, &mut self.saw_end, &mut self.saw_disconnected);
    }

    /// After his game ended: he was told (reading his socket for up to 2 s
    /// if his answers did not already carry `gameEnded`), and he never saw
    /// anyone marked disconnected. `logs` names the nodes' logs for the
    /// failure message.
    pub async fn assert_told_the_end_and_nobody_left(&mut self, logs: &str) {
        if !self.saw_end
            && let Some(ws) = self.ws.as_mut()
        {
            let until = Instant::now() + Duration::from_secs(2);
            while let Ok(Some(Ok(m))) = tokio::time::timeout_at(until.into(), ws.next()).await {
                if let Message::Text(t) = m
                    && let Ok(v) = serde_json::from_str::<Value>(&t)
                {
                    note(&v, &mut self.saw_end, &mut self.saw_disconnected);
                }
            }
        }
        assert!(
            self.saw_end,
            "{} never received gameEnded; logs: {logs}",
            self.name
        );
        assert!(
            !self.saw_disconnected,
            "{} saw a player marked disconnected; logs: {logs}",
            self.name
        );
    }

    /// Sends `cmd` with a fresh seq until something answers that seq; a
    /// lost socket or 3 s of silence means: reconnect and resend the same
    /// seq.
    pub async fn call(&mut self, mut cmd: Value) -> Value {
        self.seq += 1;
        let seq = self.seq;
        cmd["seq"] = json!(seq);
        let started = Instant::now();
        loop {
            if self.ws.is_none() {
                self.reconnects += 1;
                self.connect().await;
            }
            let ws = self.ws.as_mut().unwrap();
            if ws.send(Message::text(cmd.to_string())).await.is_err() {
                self.lost.push(self.home);
                self.ws = None;
                continue;
            }
            let answer = loop {
                match tokio::time::timeout(Duration::from_secs(3), ws.next()).await {
                    Ok(Some(Ok(Message::Text(t)))) => {
                        let v: Value = serde_json::from_str(&t).unwrap();
                        note(&v, &mut self.saw_end, &mut self.saw_disconnected);
                        if let Some(m) = self.mark
                            && self.first_after_mark.is_none()
                            && v.get("version").is_some()
                        {
                            self.first_after_mark = Some(m.elapsed());
                        }
                        if v["type"] == "pending" {
                            self.held += 1;
                        }
                        if v["seq"] == json!(seq) {
                            break Some(v);
                        }
                    }
                    // A close frame (1012 from a draining node): reconnect
                    // at once, as a browser would.
                    Ok(Some(Ok(Message::Close(_)))) => break None,
                    Ok(Some(Ok(_))) => {}
                    // 3 s of nothing: lost, by the docs.
                    Err(_) => {
                        self.silent_drops.push(self.home);
                        break None;
                    }
                    _ => break None,
                }
            };
            match answer {
                None => {
                    self.lost.push(self.home);
                    self.ws = None;
                }
                Some(v)
                    if v["type"] == "error"
                        && (v["code"] == "unavailable" || v["code"] == "rate_limited") =>
                {
                    self.held += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Some(v) => {
                    let took = started.elapsed();
                    if took > self.worst.0 {
                        self.worst = (took, Some(started));
                    }
                    return v;
                }
            }
        }
    }
}

/// A client that follows docs/protocol.md drops no healthy socket, and
/// reconnects only where a fault forces it: every socket a player lost
/// (closed, reset or silent) was on a node in `faulted` (those the fault
/// killed, stopped, drained or cut off), at most once per node and player
/// (one fault, one reconnect), and every one dropped for its silence was on
/// a node in `silent` (those whose sockets the fault silences: stopped,
/// killed, cut off from their clients). Returns the reconnects counted.
pub fn assert_no_healthy_socket_dropped<'a>(
    players: impl IntoIterator<Item = &'a Player>,
    faulted: &[SocketAddr],
    silent: &[SocketAddr],
    logs: &str,
) -> usize {
    let mut count = 0;
    for p in players {
        let silenced: Vec<&SocketAddr> = p
            .silent_drops
            .iter()
            .filter(|a| !silent.contains(a))
            .collect();
        assert!(
            silenced.is_empty(),
            "{}: healthy sockets dropped for 3 s of silence on {silenced:?}; logs: {logs}",
            p.name
        );
        let unforced: Vec<&SocketAddr> = p.lost.iter().filter(|a| !faulted.contains(a)).collect();
        assert!(
            unforced.is_empty(),
            "{}: reconnected from {unforced:?}, which no fault touched (lost sockets: {:?}); logs: {logs}",
            p.name,
            p.lost
        );
        let mut nodes = p.lost.clone();
        nodes.sort();
        nodes.dedup();
        assert_eq!(
            nodes.len(),
            p.lost.len(),
            "{}: more than one reconnect forced by one node's fault: {:?}; logs: {logs}",
            p.name,
            p.lost
        );
        count += p.lost.len();
    }
    count
}

/// The room state from any live node.
pub async fn room_state(nodes: &Nodes, room: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    // What each node last answered, for the failure's message.
    let mut last = Vec::new();
    loop {
        last.clear();
        for addr in live(nodes) {
            let path = format!("/api/rooms/{room}");
            let r = tokio::task::spawn_blocking(move || {
                std::panic::catch_unwind(|| http(addr, "GET", &path, None)).ok()
            })
            .await
            .unwrap();
            if let Some((200, v)) = r {
                return v["state"].clone();
            }
            last.push((addr, r));
        }
        assert!(
            Instant::now() < deadline,
            "no node serves room {room} (their last answers: {last:?})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One game between two players, driven to its end.
#[derive(Debug)]
pub struct Game {
    /// The room's id.
    pub room: String,
    /// Seats a and b.
    pub players: [Player; 2],
}

impl Game {
    /// A long nardy room created on `owner`, its players connected from
    /// `homes` and ready.
    pub async fn new(owner: SocketAddr, homes: [SocketAddr; 2], nodes: &Nodes, tag: &str) -> Game {
        let (status, v) = tokio::task::spawn_blocking(move || {
            http(
                owner,
                "POST",
                "/api/rooms",
                Some(json!({"game": "long_nardy"})),
            )
        })
        .await
        .unwrap();
        assert_eq!(status, 201, "{v}");
        let room = v["roomId"].as_str().unwrap().to_string();
        let mut a = Player::new(&format!("{tag}a"), &room, homes[0], nodes);
        let mut b = Player::new(&format!("{tag}b"), &room, homes[1], nodes);
        a.connect().await;
        b.connect().await;
        for p in [&mut a, &mut b] {
            let r = p.call(json!({"type": "ready"})).await;
            assert_ne!(r["type"], "error", "{r}");
            p.reconnects = 0;
        }
        Game {
            room,
            players: [a, b],
        }
    }

    /// Plays up to `steps` commands (all of them with `None`); true when
    /// the game is over.
    pub async fn play(&mut self, nodes: &Nodes, steps: Option<usize>) -> bool {
        let mut n = 0;
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            assert!(Instant::now() < deadline, "game {} did not end", self.room);
            if steps.is_some_and(|s| n >= s) {
                return false;
            }
            let st = room_state(nodes, &self.room).await;
            if st["phase"] == "finished" {
                return true;
            }
            let Some((seat, cmd)) = next_command(&st) else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let p = &mut self.players[if seat == "a" { 0 } else { 1 }];
            let r = p.call(cmd.clone()).await;
            n += 1;
            if r["type"] == "error" {
                // The state we read was already stale; read it again.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            if cmd["type"] == "move" {
                p.moves.push((cmd["from"].clone(), cmd["to"].clone()));
            }
        }
    }

    /// The stored record's steps, per seat, equal the acknowledged moves.
    pub async fn check_record(&self, nodes: &Nodes) {
        let addr = live(nodes)[0];
        let path = format!("/api/rooms/{}/records", self.room);
        // Asked as soon as `game_over` is out: the game is listed (from the
        // room's log when its record is not saved yet).
        let (status, recs) = tokio::task::spawn_blocking(move || http(addr, "GET", &path, None))
            .await
            .unwrap();
        assert_eq!(status, 200, "{recs}");
        let recs = recs.as_array().unwrap();
        assert_eq!(recs.len(), 1, "one finished game in {}", self.room);
        assert!(
            self.players.iter().all(|p| !p.moves.is_empty()),
            "both players moved in {}",
            self.room
        );
        for (i, seat) in ["a", "b"].iter().enumerate() {
            let steps: Vec<(Value, Value)> = recs[0]["actions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["type"] == "step" && a["seat"] == *seat)
                .map(|a| (a["from"].clone(), a["to"].clone()))
                .collect();
            assert_eq!(
                steps, self.players[i].moves,
                "room {} seat {seat}: the record's steps differ from the acknowledged moves",
                self.room
            );
        }
    }
}
