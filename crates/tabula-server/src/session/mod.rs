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

mod rooms;

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
}

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
    mut session: Session,
    mut stream: AggregatedMessageStream,
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
    state.metrics.connections.inc();
    tracing::debug!(conn, player = %player, "socket open");
    let welcome = ServerMsg::Welcome {
        protocol: PROTOCOL_VERSION,
        player: player.0.clone(),
        token: state.auth.issue_token(&player),
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
    };
    let mut close: Option<CloseReason> = None;
    if send(&mut session, &welcome).await {
        loop {
            tokio::select! {
                m = stream.recv() => {
                    let Some(m) = m else { break };
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
                    match m {
                        AggregatedMessage::Text(text) => {
                            if !bucket.take() {
                                strikes += 1;
                                if strikes > abuse {
                                    close = Some(CloseReason {
                                        code: CloseCode::Policy,
                                        description: Some("message flood".into()),
                                    });
                                    break;
                                }
                                // Echo the command's seq so a client waiting for
                                // its answer learns to resend after a pause.
                                let seq = serde_json::from_str::<serde_json::Value>(&text)
                                    .ok()
                                    .and_then(|v| v.get("seq").and_then(serde_json::Value::as_u64));
                                let e = ServerMsg::error(ErrorCode::RateLimited, "too many messages; slow down", seq);
                                if !send(&mut session, &e).await { break; }
                                continue;
                            }
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
                        AggregatedMessage::Close(_) => break,
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
                    Box::pin(sess.tick()).await;
                }
                _ = &mut shutdown => {
                    let msg = if *state.close_sockets.borrow() == CloseAll::CutOff {
                        cut_off_msg()
                    } else {
                        restart_msg()
                    };
                    let _ = send(&mut session, &msg).await;
                    close = Some(restart_reason());
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
}
