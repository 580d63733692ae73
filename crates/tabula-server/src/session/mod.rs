//! One WebSocket session: reads frames, enforces the size and rate limits,
//! routes commands to the room's actor — here, or on the node that owns the
//! room — and writes what the room sends back.
//!
//! Every command with a `seq` stays *pending* until something answers it.
//! A pending command unanswered for `cluster.route_timeout_ms` is resent
//! with the same `seq` (the room applies it at most once) or, when the room
//! has moved, re-routed: the session finds the room again (taking it over
//! when its owner is dead), re-joins it with the last version the client
//! saw — so the client gets only what it missed — and resends. The client
//! sees a pause, not a change.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, CloseReason, Session};
use tabula_protocol::{ClientFrame, ErrorCode, PROTOCOL_VERSION, ServerMsg};
use tabula_room::{PlayerId, SeatId};
use tokio::sync::mpsc;

mod dispatch;

use crate::peers::CloseAll;
use crate::route::{NEXT_CONN, Outbound};
use crate::{AppState, Located};

/// A token bucket: `rate` per second, up to `burst`.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

async fn send(session: &mut Session, msg: &ServerMsg) -> bool {
    session.text(msg.to_json()).await.is_ok()
}

/// The room a session is in, and where it is served.
#[derive(Debug)]
struct Link {
    room: String,
    seat: Option<SeatId>,
    spectate: bool,
    at: Located,
    /// The next link number expected from a remote owner.
    expect_n: u64,
}

#[derive(Debug)]
struct Pending {
    frame: ClientFrame,
    sent: Instant,
    first: Instant,
    /// When the client was last told it still waits (`pending`).
    told: Instant,
}

/// How often a command (or `join`) still unanswered is said to be pending:
/// well inside the 3 s of silence after which docs/protocol.md tells a
/// client its socket is lost, whatever the lease or the store does.
const PENDING_EVERY: Duration = Duration::from_secs(1);

struct Sess {
    state: Arc<AppState>,
    conn: u64,
    player: PlayerId,
    tx: mpsc::UnboundedSender<Outbound>,
    link: Option<Link>,
    pending: BTreeMap<u64, Pending>,
    /// The last room version written to the client.
    last_version: Option<u64>,
    relink_due: bool,
    last_relink: Option<Instant>,
    /// A join sent to a remote owner and not answered yet: when, its seq
    /// and resume point (resent, or re-routed, like a pending command).
    join_wait: Option<(Instant, Option<u64>, Option<u64>)>,
    /// Since when a re-route finds the linked room missing from the store.
    missing_since: Option<Instant>,
    /// The join awaited from a remote owner ([`Sess::join_wait`]): since
    /// when, and when the client was last told it is pending.
    join_told: Option<(Instant, Instant)>,
    /// The socket is closed by this node's drain (or cut-off): the room is
    /// told so, and does not mark the player disconnected at once.
    drained: bool,
}

/// What the select loop should do after an outbound message.
enum Flow {
    Write(String),
    WriteAll(Vec<String>),
    Close(CloseReason, Option<ServerMsg>),
    Nothing,
}

fn restart_msg() -> ServerMsg {
    ServerMsg::error(
        ErrorCode::ShuttingDown,
        "the node is restarting; reconnect",
        None,
    )
}

fn cut_off_msg() -> ServerMsg {
    ServerMsg::error(
        ErrorCode::ShuttingDown,
        "this node is cut off from its store; reconnect to another",
        None,
    )
}

fn restart_reason() -> CloseReason {
    CloseReason {
        code: CloseCode::Restart,
        description: Some("restarting".into()),
    }
}

/// Runs a session until the socket closes.
pub async fn run_session(
    state: Arc<AppState>,
    player: PlayerId,
    profile: tabula_protocol::http::PlayerProfile,
    mut session: Session,
    mut stream: AggregatedMessageStream,
    slot: crate::sockets::Slot,
    verdict: crate::ws_close::Verdict,
) {
    let conn = NEXT_CONN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let s = &state.settings.server;
    let mut bucket = Bucket {
        tokens: f64::from(s.rate_burst),
        rate: f64::from(s.rate_per_sec),
        burst: f64::from(s.rate_burst),
        last: Instant::now(),
    };
    let max_message = s.max_message_bytes;
    let abuse = s.abuse_strikes;
    let mut strikes = 0u32;
    let (tx, mut rx) = mpsc::unbounded_channel::<Outbound>();
    // Marks what was already sent as seen: only a later drain or cut-off
    // closes this socket.
    let mut close_rx = state.close_sockets.subscribe();
    // One future for the socket's life: a `changed()` made anew at every
    // turn of the loop registered and dropped a waiter each time (a lock
    // and an unlock per message, 1.5 % of a stressed node's CPU).
    let shutdown = close_rx.changed();
    tokio::pin!(shutdown);
    let mut ticker = tokio::time::interval(Duration::from_millis(100));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Dead and idle sockets: one timer, set to the next thing due
    // (`Hygiene::next`), so an idle socket wakes once a ping interval.
    let mut hygiene = Hygiene::new(s, tokio::time::Instant::now());
    let housekeeping = tokio::time::sleep_until(hygiene.next());
    tokio::pin!(housekeeping);
    state.metrics.connections.inc();
    tracing::debug!(conn, player = %player, "socket open");
    let welcome = ServerMsg::Welcome {
        protocol: PROTOCOL_VERSION,
        player: player.0.clone(),
        token: state.auth.issue_token(&player),
        profile: Some(profile),
    };
    let mut sess = Sess {
        state: state.clone(),
        conn,
        player: player.clone(),
        tx,
        link: None,
        pending: BTreeMap::new(),
        last_version: None,
        relink_due: false,
        last_relink: None,
        join_wait: None,
        missing_since: None,
        join_told: None,
        drained: false,
    };
    let mut close: Option<CloseReason> = None;
    // The client closed (its close frame, or its connection ended).
    let mut peer_closed = false;
    if send(&mut session, &welcome).await {
        loop {
            tokio::select! {
                m = stream.recv() => {
                    let Some(m) = m else {
                        peer_closed = true;
                        break;
                    };
                    let m = match m {
                        Ok(m) => m,
                        Err(e) => {
                            tracing::debug!(conn, error = %e, "protocol error");
                            let (reason, msg) = crate::ws_frames::refusal(&e, s.max_frame_bytes);
                            if let Some(m) = msg {
                                let _ = send(&mut session, &m).await;
                            }
                            close = Some(reason);
                            break;
                        }
                    };
                    hygiene.heard(tokio::time::Instant::now());
                    // Every frame a client chooses to send counts against
                    // the rate, binary frames and pings too (a pong only
                    // answers ours; a close ends the socket).
                    let counted = !matches!(m, AggregatedMessage::Pong(_) | AggregatedMessage::Close(_));
                    if counted && !bucket.take() {
                        strikes += 1;
                        if strikes > abuse {
                            state.metrics.socket_limits.with_label_values(&["flood"]).inc();
                            // Reconnecting does not reset the rate: the
                            // address waits out a cool-down first.
                            let now = std::time::Instant::now();
                            slot.cool_down(now, now + Duration::from_millis(s.abuse_cooldown_ms));
                            close = Some(CloseReason {
                                code: CloseCode::Policy,
                                description: Some("message flood".into()),
                            });
                            break;
                        }
                        // Echo the command's seq so a client waiting for
                        // its answer learns to resend after a pause.
                        let seq = match &m {
                            AggregatedMessage::Text(text) => serde_json::from_str::<serde_json::Value>(text)
                                .ok()
                                .and_then(|v| v.get("seq").and_then(serde_json::Value::as_u64)),
                            _ => None,
                        };
                        let e = ServerMsg::error(ErrorCode::RateLimited, "too many messages; slow down", seq);
                        if !send(&mut session, &e).await { break; }
                        continue;
                    }
                    match m {
                        AggregatedMessage::Text(text) => {
                            if text.len() > max_message {
                                let e = ServerMsg::error(
                                    ErrorCode::FrameTooLarge,
                                    format!("message of {} bytes; the limit is {max_message}", text.len()),
                                    None,
                                );
                                if !send(&mut session, &e).await { break; }
                                continue;
                            }
                            // Boxed: the futures of a command's handling are large and
                            // would otherwise be part of every idle socket's task
                            // (7.5 KiB per socket by massif before this).
                            let reply = Box::pin(sess.handle_text(&text)).await;
                            if let Some(r) = reply
                                && !send(&mut session, &r).await
                            {
                                break;
                            }
                        }
                        AggregatedMessage::Binary(_) => {
                            let e = ServerMsg::error(ErrorCode::BinaryFrame, "send JSON text frames", None);
                            if !send(&mut session, &e).await { break; }
                        }
                        AggregatedMessage::Ping(b) => {
                            if session.pong(&b).await.is_err() { break; }
                        }
                        AggregatedMessage::Pong(_) => {}
                        AggregatedMessage::Close(_) => {
                            peer_closed = true;
                            break;
                        }
                    }
                }
                out = rx.recv() => {
                    let Some(out) = out else { break };
                    match Box::pin(sess.outbound(out)).await {
                        Flow::Write(text) => {
                            if session.text(text).await.is_err() { break; }
                        }
                        Flow::WriteAll(texts) => {
                            let mut ok = true;
                            for text in texts {
                                if session.text(text).await.is_err() { ok = false; break; }
                            }
                            if !ok { break; }
                        }
                        Flow::Close(reason, msg) => {
                            if let Some(m) = msg {
                                let _ = send(&mut session, &m).await;
                            }
                            close = Some(reason);
                            break;
                        }
                        Flow::Nothing => {}
                    }
                }
                // Only while something awaits an answer: an idle socket
                // must cost no wakeups (10 a second on each of 20,000
                // sockets was a core's worth of timer work).
                _ = ticker.tick(), if sess.needs_tick() => {
                    let mut ok = true;
                    for m in sess.progress(Instant::now()) {
                        if !send(&mut session, &m).await { ok = false; break; }
                    }
                    if !ok { break; }
                    Box::pin(sess.tick()).await;
                }
                () = &mut housekeeping => {
                    let now = tokio::time::Instant::now();
                    match hygiene.check(now, sess.in_room()) {
                        Due::Nothing => {}
                        Due::Ping => {
                            if session.ping(b"").await.is_err() { break; }
                        }
                        Due::Dead => {
                            state.metrics.socket_limits.with_label_values(&["no_pong"]).inc();
                            close = Some(CloseReason {
                                code: CloseCode::Away,
                                description: Some("no answer to pings".into()),
                            });
                            break;
                        }
                        Due::Idle => {
                            state.metrics.socket_limits.with_label_values(&["idle"]).inc();
                            let e = ServerMsg::error(
                                ErrorCode::Idle,
                                format!(
                                    "in no room for {} ms; open a socket when you join one",
                                    s.join_timeout_ms
                                ),
                                None,
                            );
                            let _ = send(&mut session, &e).await;
                            close = Some(CloseReason {
                                code: CloseCode::Normal,
                                description: Some("idle".into()),
                            });
                            break;
                        }
                    }
                    housekeeping.as_mut().reset(hygiene.next());
                }
                _ = &mut shutdown => {
                    let msg = if *state.close_sockets.borrow() == CloseAll::CutOff {
                        cut_off_msg()
                    } else {
                        restart_msg()
                    };
                    let _ = send(&mut session, &msg).await;
                    close = Some(restart_reason());
                    sess.drained = true;
                    break;
                }
            }
        }
    }
    Box::pin(sess.detach()).await;
    state.router.unlink(conn);
    state.metrics.connections.dec();
    tracing::debug!(conn, player = %player, "socket closed");
    let _ = session.close(close).await;
    // The closing handshake: the client's close frame (or its connection
    // ending) within the grace, or the connection is dropped
    // (crate::ws_close); its place among the sockets is held till then.
    let answered = peer_closed
        || tokio::time::timeout(crate::ws_close::CLOSE_GRACE, async {
            while let Some(m) = stream.recv().await {
                if matches!(m, Ok(AggregatedMessage::Close(_)) | Err(_)) {
                    return;
                }
            }
        })
        .await
        .is_ok();
    if answered {
        verdict.answered();
    } else {
        verdict.unanswered();
    }
    drop(slot);
}

/// What the housekeeping timer finds due ([`Hygiene::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Due {
    /// Not yet.
    Nothing,
    /// Silent for a ping interval: ping it.
    Ping,
    /// Nothing heard for the idle timeout, pings included: close it.
    Dead,
    /// In no room for the join timeout: close it.
    Idle,
}

/// A socket's liveness: when it was last heard from and pinged, and since
/// when it has been in no room. Pure (time passed in), unit-tested.
#[derive(Debug)]
struct Hygiene {
    ping_every: Duration,
    idle_timeout: Duration,
    join_timeout: Duration,
    heard: tokio::time::Instant,
    pinged: Option<tokio::time::Instant>,
    out_of_room: Option<tokio::time::Instant>,
}

impl Hygiene {
    fn new(s: &crate::settings::ServerSettings, now: tokio::time::Instant) -> Hygiene {
        Hygiene {
            ping_every: Duration::from_millis(s.ping_interval_ms),
            idle_timeout: Duration::from_millis(s.idle_timeout_ms),
            join_timeout: Duration::from_millis(s.join_timeout_ms),
            heard: now,
            pinged: None,
            out_of_room: Some(now),
        }
    }

    /// A frame or a pong arrived.
    fn heard(&mut self, now: tokio::time::Instant) {
        self.heard = now;
        self.pinged = None;
    }

    /// What is due at `now`; notes a ping as sent.
    fn check(&mut self, now: tokio::time::Instant, in_room: bool) -> Due {
        if in_room {
            self.out_of_room = None;
        } else if let Some(since) = self.out_of_room {
            if now.duration_since(since) >= self.join_timeout {
                return Due::Idle;
            }
        } else {
            self.out_of_room = Some(now);
        }
        if now.duration_since(self.heard) >= self.idle_timeout {
            return Due::Dead;
        }
        if self.pinged.is_none() && now.duration_since(self.heard) >= self.ping_every {
            self.pinged = Some(now);
            return Due::Ping;
        }
        Due::Nothing
    }

    /// When to look again: the earliest of the ping, the dead line and the
    /// join deadline still ahead.
    fn next(&self) -> tokio::time::Instant {
        let mut at = self.heard + self.idle_timeout;
        if self.pinged.is_none() {
            at = at.min(self.heard + self.ping_every);
        }
        // In a room as of the last look, the next ping's look notices a
        // leave: an idle socket wakes once a ping interval, no more.
        match self.out_of_room {
            Some(since) => at.min(since + self.join_timeout),
            None => at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::Instant;

    fn hygiene(now: Instant) -> Hygiene {
        let mut s = crate::Settings::defaults().server;
        (s.ping_interval_ms, s.idle_timeout_ms, s.join_timeout_ms) = (20_000, 60_000, 10_000);
        Hygiene::new(&s, now)
    }

    #[test]
    fn a_socket_in_no_room_is_closed_after_the_join_timeout() {
        let t0 = Instant::now();
        let mut h = hygiene(t0);
        assert_eq!(h.next(), t0 + Duration::from_secs(10));
        assert_eq!(h.check(t0 + Duration::from_secs(9), false), Due::Nothing);
        assert_eq!(h.check(t0 + Duration::from_secs(10), false), Due::Idle);
        // Joined in time: never idle, whatever it says or not.
        let mut h = hygiene(t0);
        assert_eq!(h.check(t0 + Duration::from_secs(5), true), Due::Nothing);
        assert_eq!(h.check(t0 + Duration::from_secs(15), true), Due::Nothing);
        // It leaves: the join timeout runs from when that is seen.
        let left = t0 + Duration::from_secs(19);
        h.heard(left);
        assert_eq!(h.check(left, false), Due::Nothing);
        assert_eq!(h.next(), left + Duration::from_secs(10));
        assert_eq!(h.check(left + Duration::from_secs(10), false), Due::Idle);
    }

    #[test]
    fn a_silent_socket_is_pinged_and_closed_when_nothing_answers() {
        let t0 = Instant::now();
        let mut h = hygiene(t0);
        let s = |n| t0 + Duration::from_secs(n);
        assert_eq!(h.check(s(1), true), Due::Nothing);
        assert_eq!(h.next(), s(20));
        assert_eq!(h.check(s(20), true), Due::Ping);
        // One ping per silence, then the dead line.
        assert_eq!(h.next(), s(60));
        assert_eq!(h.check(s(40), true), Due::Nothing);
        assert_eq!(h.check(s(60), true), Due::Dead);
        // A pong (or any frame) in time: alive, pinged again after a
        // silence.
        let mut h = hygiene(t0);
        assert_eq!(h.check(s(20), true), Due::Ping);
        h.heard(s(21));
        assert_eq!(h.next(), s(41));
        assert_eq!(h.check(s(41), true), Due::Ping);
        h.heard(s(42));
        assert_eq!(h.check(s(101), true), Due::Ping);
        assert_eq!(h.check(s(102), true), Due::Dead);
    }
}
