//! One match: create a room over HTTP, seat two sockets (or one against a
//! bot) on possibly different nodes, play legal moves chosen from what the
//! server offers (`turnStarted`, `possibleMoves`, or a full `state`) until
//! `game_over`.
//!
//! Pacing is open-model: every action gets an intended send time when it
//! becomes possible (plus think time), and its latency is measured from
//! that time, so a stalled server or a late harness shows in the tail.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{Message, protocol::WebSocketConfig};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::shared::Shared;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A minimal HTTP/1.1 request (the harness needs two routes); returns the
/// status and the JSON body.
pub async fn http(
    host: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> anyhow::Result<(u16, Value)> {
    let mut s = TcpStream::connect(host)
        .await
        .with_context(|| format!("connect {host}"))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    let out = String::from_utf8_lossy(&out);
    let status = out
        .get(9..12)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| anyhow!("bad HTTP answer from {host}"))?;
    let body = out.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    let v = serde_json::from_str(body).unwrap_or(Value::String(body.to_string()));
    Ok((status, v))
}

/// One seat's socket and what it is waiting for.
struct Player {
    ws: Option<Ws>,
    name: String,
    /// The session token of the last `welcome`: how a guest comes back as
    /// the same player after a reconnect (its name is no credential).
    token: Option<String>,
    host: usize,
    seat: Option<String>,
    seq: u64,
    /// Sent, unanswered: (seq, intended send time, the command).
    pending: Option<(u64, Instant, Value)>,
    /// Scheduled, not sent: (intended time, command).
    next: Option<(Instant, Value)>,
    /// The intended time of this player's last action (fan-out).
    last_action: Option<Instant>,
    done: bool,
    moves: Vec<(Value, Value)>,
    /// Game actions chosen so far (for `--resign-after`).
    acted: u32,
    /// The longest answer wait after the chaos time.
    worst_after_chaos: Duration,
}

impl Player {
    /// A seat not connected yet, as `name` (its `token` when it has one),
    /// whose socket goes to node `host` (modulo the nodes).
    fn new(name: String, token: Option<String>, host: usize) -> Player {
        Player {
            ws: None,
            name,
            token,
            host,
            seat: None,
            seq: 0,
            pending: None,
            next: None,
            last_action: None,
            done: false,
            moves: Vec::new(),
            acted: 0,
            worst_after_chaos: Duration::ZERO,
        }
    }

    async fn connect(&mut self, shared: &Shared, room: &str) -> anyhow::Result<()> {
        let hosts = &shared.cfg.hosts;
        let host = &hosts[self.host % hosts.len()];
        let cred = match &self.token {
            Some(t) => format!("token={t}"),
            None => shared.cfg.credentials(&self.name),
        };
        let url = format!("ws://{host}/ws?{cred}");
        let t = Instant::now();
        let (mut ws, _) = tokio::time::timeout(
            shared.cfg.connect_timeout,
            // tungstenite's default 128 KiB read buffer is zero-filled on
            // every read: 40 % of the harness's CPU went to that memset at
            // 10,000 sockets. Our messages are a few KiB at most.
            tokio_tungstenite::connect_async_with_config(
                url,
                Some(
                    WebSocketConfig::default()
                        .read_buffer_size(8 * 1024)
                        .write_buffer_size(0),
                ),
                true,
            ),
        )
        .await
        .map_err(|_| anyhow!("connect timeout"))?
        .context("connect")?;
        // welcome
        match tokio::time::timeout(shared.cfg.connect_timeout, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) if t.contains("\"welcome\"") => {
                let w: Value = serde_json::from_str(&t).unwrap_or_default();
                if let Some(t) = w["token"].as_str() {
                    self.token = Some(t.to_string());
                }
            }
            _ => bail!("no welcome"),
        }
        shared.stats.connect.record(t.elapsed());
        shared.stats.socket_opened();
        ws.send(Message::text(
            json!({"type": "join", "room": room}).to_string(),
        ))
        .await?;
        self.ws = Some(ws);
        Ok(())
    }

    fn close(&mut self, shared: &Shared) {
        if self.ws.take().is_some() {
            shared.stats.socket_closed();
        }
    }

    async fn send(&mut self, shared: &Shared, cmd: Value, intended: Instant, seq: Option<u64>) {
        let seq = seq.unwrap_or_else(|| {
            self.seq += 1;
            self.seq
        });
        let mut msg = cmd.clone();
        msg["seq"] = json!(seq);
        self.pending = Some((seq, intended, cmd));
        self.last_action = Some(intended);
        shared.stats.sent.fetch_add(1, Ordering::Relaxed);
        if let Some(ws) = &mut self.ws
            && ws.send(Message::text(msg.to_string())).await.is_err()
        {
            self.close(shared);
        }
    }

    fn schedule(&mut self, shared: &Shared, mut cmd: Value) {
        // `--resign-after`: a game action past the count is a resignation.
        if let Some(n) = shared.cfg.resign_after
            && !matches!(cmd["type"].as_str(), Some("ready" | "resume" | "resign"))
        {
            if self.acted >= n {
                cmd = json!({"type": "resign"});
            } else {
                self.acted += 1;
            }
        }
        let (lo, hi) = shared.cfg.think;
        let think = if hi > lo {
            rand::rng().random_range(lo..=hi)
        } else {
            lo
        };
        shared.stats.scheduled.fetch_add(1, Ordering::Relaxed);
        self.next = Some((Instant::now() + think, cmd));
    }

    fn want_state(&mut self, now: Instant) {
        self.next = Some((now, json!({"type": "resume", "version": u64::MAX / 2})));
    }

    /// Chooses this seat's command from a full room view, if it must act.
    fn act_on_state(&mut self, shared: &Shared, st: &Value) {
        let Some(seat) = &self.seat else { return };
        if st["phase"] == "finished" {
            self.done = true;
            return;
        }
        let to_act = &st["toAct"];
        if to_act["seat"].as_str() != Some(seat.as_str()) || self.pending.is_some() {
            return;
        }
        let cmd = match to_act["need"].as_str() {
            Some("roll") => json!({"type": "rollDice"}),
            Some("cubeDecision") => json!({"type": "take"}),
            Some("endProposal") => json!({"type": "acceptEnd"}),
            Some("move") => {
                if st["game"] == "thud" {
                    let Some(moves) = st["board"]["legalMoves"]
                        .as_array()
                        .filter(|m| !m.is_empty())
                    else {
                        return;
                    };
                    let m = &moves[rand::rng().random_range(0..moves.len())];
                    json!({"type": "thudMove", "notation": m})
                } else {
                    let key = if shared.cfg.turns {
                        "sequences"
                    } else {
                        "firstSteps"
                    };
                    let Some(steps) = st["moves"][key].as_array().filter(|m| !m.is_empty()) else {
                        return;
                    };
                    let pick = steps[rand::rng().random_range(0..steps.len())]
                        .as_str()
                        .unwrap_or("");
                    if shared.cfg.turns {
                        json!({"type": "turn", "play": pick})
                    } else {
                        step_msg(pick)
                    }
                }
            }
            _ => return,
        };
        self.schedule(shared, cmd);
    }

    /// Handles one server message; returns the event's seat and type when
    /// it is a game event (for fan-out).
    fn on_message(&mut self, shared: &Shared, v: &Value, chaos: Option<Instant>) -> Option<String> {
        let now = Instant::now();
        if let Some((seq, intended, cmd)) = &self.pending
            && v["seq"] == json!(*seq)
        {
            let is_error = v["type"] == "error";
            if !is_error {
                shared.stats.action.record(now.duration_since(*intended));
                shared.stats.answered.fetch_add(1, Ordering::Relaxed);
                if chaos.is_some_and(|c| *intended <= now && c <= now) {
                    self.worst_after_chaos = self
                        .worst_after_chaos
                        .max(now.duration_since((*intended).max(chaos.unwrap_or(*intended))));
                }
                if cmd["type"] == "move" {
                    self.moves.push((cmd["from"].clone(), cmd["to"].clone()));
                }
                if cmd["type"] == "turn"
                    && let Ok(f) = tabula_protocol::parse_client(&cmd.to_string())
                    && let tabula_protocol::ClientMsg::Turn { play } = f.msg
                {
                    for (from, to) in play {
                        self.moves.push((json!(from), json!(to)));
                    }
                }
            }
            let code = v["code"].as_str().unwrap_or("").to_string();
            let cmd = cmd.clone();
            self.pending = None;
            if is_error {
                shared.stats.error(format!("error_{code}"));
                if code == "unavailable" || code == "rate_limited" {
                    self.next = Some((now + Duration::from_millis(200), cmd));
                } else if code == "not_joined" {
                    // The socket is in no room (its join was refused or
                    // it idled out): a new socket joins again, then the
                    // command goes out again.
                    self.close(shared);
                    self.next = Some((now + Duration::from_millis(200), cmd));
                } else {
                    // Our view was stale: ask for the whole state.
                    self.next = Some((now, json!({"type": "resume", "version": u64::MAX / 2})));
                }
                return None;
            }
        }
        match v["type"].as_str() {
            Some("state") => {
                if self
                    .pending
                    .as_ref()
                    .is_some_and(|(_, _, c)| c["type"] == "resume")
                {
                    self.pending = None;
                }
                if let Some(s) = v["yourSeat"].as_str() {
                    self.seat = Some(s.to_string());
                }
                let st = v["state"].clone();
                self.act_on_state(shared, &st);
                None
            }
            Some("game_over") => {
                self.done = true;
                None
            }
            Some("event") => {
                let ev = &v["event"];
                let seat = ev["seat"].as_str();
                let mine = seat.is_some() && seat == self.seat.as_deref();
                match ev["type"].as_str() {
                    Some("turnStarted") if mine && self.pending.is_none() => {
                        self.schedule(shared, json!({"type": "rollDice"}));
                    }
                    Some("possibleMoves") if mine && self.pending.is_none() => {
                        let key = if shared.cfg.turns {
                            "sequences"
                        } else {
                            "firstSteps"
                        };
                        if let Some(steps) = ev[key].as_array().filter(|s| !s.is_empty()) {
                            let s = steps[rand::rng().random_range(0..steps.len())]
                                .as_str()
                                .unwrap_or("");
                            let cmd = if shared.cfg.turns {
                                json!({"type": "turn", "play": s})
                            } else {
                                step_msg(s)
                            };
                            self.schedule(shared, cmd);
                        }
                    }
                    // Thud! has no `possibleMoves`: after the other side
                    // moved, or a round or game began, ask for the state.
                    Some("thudMoved") if !mine => self.want_state(now),
                    Some("roundEnded") | Some("gameStarted") if shared.cfg.game == "thud" => {
                        self.want_state(now);
                    }
                    _ => {}
                }
                if !mine {
                    return ev["type"].as_str().map(str::to_string);
                }
                None
            }
            _ => None,
        }
    }
}

/// `24-18` / `bar/22*` / `5-off` → a `move` message (read by the room's
/// one step reader; a step it cannot read is sent as it is, for the node to
/// refuse).
fn step_msg(step: &str) -> Value {
    match tabula_room::Spot::parse_step(step) {
        Ok((from, to)) => json!({"type": "move", "from": from, "to": to}),
        Err(_) => json!({"type": "move", "from": step, "to": step}),
    }
}

async fn recv(
    p: &mut Option<Player>,
) -> Option<Result<Message, tokio_tungstenite::tungstenite::Error>> {
    match p.as_mut().and_then(|p| p.ws.as_mut()) {
        Some(ws) => ws.next().await,
        None => std::future::pending().await,
    }
}

/// Plays one match to its end (or until the run stops).
pub async fn run_match(shared: Arc<Shared>, slot: usize, n: u64) -> anyhow::Result<bool> {
    let cfg = &shared.cfg;
    let hosts = &cfg.hosts;
    // Retries (a new `n`) move on to the next node, so a dead node in
    // the list costs one failed attempt, not every attempt of the slot.
    let owner = (slot + n as usize) % hosts.len();
    let mut body = json!({"game": cfg.game});
    if let Some(level) = cfg.bot {
        body["bot"] = json!({"level": level});
    }
    // As the first player of the match: a Telegram-only node makes rooms
    // for Telegram players only (a guest's credentials are ignored).
    let path = format!(
        "/api/rooms?{}",
        cfg.credentials(&format!("lt{}s{slot}n{n}p0", cfg.run_tag))
    );
    let (status, created) = http(&hosts[owner], "POST", &path, Some(&body))
        .await
        .map_err(|e| anyhow!("create_room: {e}"))?;
    if status != 201 {
        bail!("create_room_{status}");
    }
    let room = created["roomId"].as_str().unwrap_or_default().to_string();
    let mk = |i: usize| {
        Player::new(
            format!("lt{}s{slot}n{n}p{i}", cfg.run_tag),
            None,
            // The two sockets of a match go to different nodes when there
            // are several, as behind a load balancer, unless both follow
            // the room.
            if cfg.affinity {
                owner
            } else {
                slot + n as usize + i
            },
        )
    };
    let mut a = Some(mk(0));
    let mut b = if cfg.bot.is_some() { None } else { Some(mk(1)) };
    for p in [&mut a, &mut b].into_iter().flatten() {
        p.connect(&shared, &room)
            .await
            .map_err(|e| anyhow!("connect: {e}"))?;
        p.schedule(&shared, json!({"type": "ready"}));
    }
    shared.stats.active.fetch_add(1, Ordering::Relaxed);
    let result = drive(&shared, &room, &mut a, &mut b).await;
    shared.stats.active.fetch_sub(1, Ordering::Relaxed);
    let mut worst = Duration::ZERO;
    let mut moves = Vec::new();
    for p in [&mut a, &mut b].into_iter().flatten() {
        p.close(&shared);
        worst = worst.max(p.worst_after_chaos);
        moves.push((p.seat.clone(), std::mem::take(&mut p.moves)));
    }
    // Every match that waited on an answer after the chaos command counts,
    // finished or not.
    if shared.chaos_time().is_some() && worst > Duration::ZERO {
        shared
            .stats
            .chaos_pauses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(worst);
    }
    if result.as_ref().is_ok_and(|f| *f) && cfg.verify {
        verify(&shared, &room, &moves).await;
    }
    result
}

/// Plays a room that exists already (a tournament's game) to its end,
/// as the two players `seats` (name, session token): white's socket on
/// node `host`, black's on the next (the same with `--affinity`).
/// `Ok(true)` when the game ended.
pub async fn play_room(
    shared: Arc<Shared>,
    room: &str,
    host: usize,
    seats: [(String, String); 2],
) -> anyhow::Result<bool> {
    let affinity = shared.cfg.affinity;
    let mut players = seats.map(|(name, token)| Player::new(name, Some(token), host));
    if !affinity {
        players[1].host += 1;
    }
    let [a, b] = players;
    let (mut a, mut b) = (Some(a), Some(b));
    for p in [&mut a, &mut b].into_iter().flatten() {
        p.connect(&shared, room)
            .await
            .map_err(|e| anyhow!("connect: {e}"))?;
        p.schedule(&shared, json!({"type": "ready"}));
    }
    shared.stats.active.fetch_add(1, Ordering::Relaxed);
    let result = drive(&shared, room, &mut a, &mut b).await;
    shared.stats.active.fetch_sub(1, Ordering::Relaxed);
    for p in [&mut a, &mut b].into_iter().flatten() {
        p.close(&shared);
    }
    result
}

/// Compares the stored record's steps, per seat, with the moves the
/// players saw acknowledged.
/// A seat and the moves it saw acknowledged.
type Acked = (Option<String>, Vec<(Value, Value)>);

async fn verify(shared: &Shared, room: &str, moves: &[Acked]) {
    let host = &shared.cfg.hosts[0];
    // The record is stored right after `game_over` goes out, not before:
    // give it a moment.
    let mut recs = Value::Null;
    for _ in 0..20 {
        match http(host, "GET", &format!("/api/rooms/{room}/records"), None).await {
            Ok((200, r)) if r[0]["actions"].is_array() => {
                recs = r;
                break;
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let Some(actions) = recs[0]["actions"].as_array() else {
        shared.stats.error("verify_no_record");
        return;
    };
    shared.stats.verified.fetch_add(1, Ordering::Relaxed);
    for (seat, acked) in moves {
        let Some(seat) = seat else { continue };
        let steps: Vec<(Value, Value)> = actions
            .iter()
            .filter(|a| a["type"] == "step" && a["seat"] == seat.as_str())
            .map(|a| (a["from"].clone(), a["to"].clone()))
            .collect();
        if steps != *acked {
            shared.stats.mismatches.fetch_add(1, Ordering::Relaxed);
            shared.stats.error("lost_or_duplicated");
        }
    }
}

/// The longest a match's task sleeps with nothing due: it then looks at
/// the stop flag and the timeouts. Longer would stop a run later; shorter
/// costs the harness a wakeup per match that often (at 200 ms, 10,000
/// idle matches took a tenth of a core).
const IDLE_WAKE: Duration = Duration::from_secs(1);

async fn drive(
    shared: &Shared,
    room: &str,
    a: &mut Option<Player>,
    b: &mut Option<Player>,
) -> anyhow::Result<bool> {
    let cfg = &shared.cfg;
    let mut last_progress = Instant::now();
    loop {
        if shared.stopped() {
            return Ok(false);
        }
        let all_done = [&*a, &*b].into_iter().flatten().all(|p| p.done);
        if all_done {
            shared.stats.games.fetch_add(1, Ordering::Relaxed);
            return Ok(true);
        }
        if last_progress.elapsed() > cfg.action_timeout * 3 {
            bail!("stalled");
        }
        // Due actions go out; a pending one past the timeout means the
        // socket is gone or silent: reconnect and resend with its seq.
        for p in [&mut *a, &mut *b].into_iter().flatten() {
            if let Some((seq, intended, cmd)) = p.pending.clone()
                && intended.elapsed() > cfg.action_timeout
            {
                shared.stats.error("timeout");
                p.close(shared);
                p.pending = None;
                p.next = Some((intended, cmd));
                p.seq = p.seq.max(seq);
                // Keep the seq: it may have been applied already.
                p.seq -= 1;
            }
            if p.ws.is_none() {
                p.host += 1;
                shared.stats.reconnects.fetch_add(1, Ordering::Relaxed);
                if let Err(e) = p.connect(shared, room).await {
                    shared.stats.error(format!("reconnect_{}", short(&e)));
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            }
            if p.pending.is_none()
                && let Some((at, _)) = &p.next
                && *at <= Instant::now()
                && let Some((at, cmd)) = p.next.take()
            {
                p.send(shared, cmd, at, None).await;
            }
        }
        let wake = [&*a, &*b]
            .into_iter()
            .flatten()
            .filter_map(|p| p.next.as_ref().map(|(t, _)| *t))
            .min()
            .unwrap_or_else(|| Instant::now() + IDLE_WAKE)
            .min(Instant::now() + IDLE_WAKE);
        let chaos = shared.chaos_time();
        tokio::select! {
            m = recv(a) => {
                handle(shared, a, b, m, chaos);
                last_progress = Instant::now();
            }
            m = recv(b) => {
                handle(shared, b, a, m, chaos);
                last_progress = Instant::now();
            }
            () = tokio::time::sleep_until(wake.into()) => {}
        }
    }
}

fn short(e: &anyhow::Error) -> String {
    let s = e.to_string();
    if s.contains("timeout") {
        "timeout".into()
    } else if s.contains("welcome") {
        "no_welcome".into()
    } else {
        "failed".into()
    }
}

fn handle(
    shared: &Shared,
    me: &mut Option<Player>,
    other: &mut Option<Player>,
    m: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    chaos: Option<Instant>,
) {
    let Some(p) = me.as_mut() else { return };
    match m {
        Some(Ok(Message::Text(t))) => {
            let Ok(v) = serde_json::from_str::<Value>(&t) else {
                shared.stats.error("protocol_bad_json");
                return;
            };
            if let Some(kind) = p.on_message(shared, &v, chaos)
                && matches!(kind.as_str(), "moved" | "diceRolled" | "thudMoved")
                && let Some(o) = other.as_ref()
                && let Some(t) = o.last_action
            {
                shared.stats.fanout.record(t.elapsed());
            }
        }
        Some(Ok(Message::Close(frame))) => {
            let code = frame.map(|f| u16::from(f.code)).unwrap_or(1005);
            shared.stats.error(format!("close_{code}"));
            p.close(shared);
            resend_after_reconnect(p);
        }
        Some(Ok(_)) => {}
        Some(Err(_)) | None => {
            shared.stats.error("socket_lost");
            p.close(shared);
            resend_after_reconnect(p);
        }
    }
}

/// The unanswered command goes out again, with the same seq, once the
/// socket is back.
fn resend_after_reconnect(p: &mut Player) {
    if let Some((seq, intended, cmd)) = p.pending.take() {
        p.next = Some((intended, cmd));
        p.seq = seq.saturating_sub(1);
    }
}
