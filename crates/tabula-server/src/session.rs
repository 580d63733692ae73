//! One WebSocket session: reads frames, enforces the size and rate limits,
//! routes commands to the room actor, writes what the room sends back.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use actix::Addr;
use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, CloseReason, Session};
use tabula_protocol::{ClientMsg, ErrorCode, PROTOCOL_VERSION, ServerMsg, parse_client};
use tabula_room::PlayerId;
use tokio::sync::mpsc;

use crate::AppState;
use crate::room_actor::{Cmd, Detach, Join, Outbound, Resume, RoomActor, not_joined};

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

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

/// Runs a session until the socket closes.
pub async fn run_session(
    state: Arc<AppState>,
    player: PlayerId,
    mut session: Session,
    mut stream: AggregatedMessageStream,
) {
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
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
    let mut room: Option<Addr<RoomActor>> = None;
    let mut shutdown = state.shutdown_rx.clone();
    state.metrics.connections.inc();
    tracing::debug!(conn, player = %player, "socket open");
    let welcome = ServerMsg::Welcome {
        protocol: PROTOCOL_VERSION,
        player: player.0.clone(),
        token: state.auth.issue_token(&player),
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
                            close = Some(CloseReason {
                                code: CloseCode::Size,
                                description: Some(format!("{e}")),
                            });
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
                            let reply = handle_text(&state, conn, &player, &tx, &mut room, &text).await;
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
                    match out {
                        Some(Outbound::Msg(m)) => {
                            if !send(&mut session, &m).await { break; }
                        }
                        Some(Outbound::Close(reason)) => {
                            let e = ServerMsg::error(ErrorCode::Replaced, reason.clone(), None);
                            let _ = send(&mut session, &e).await;
                            close = Some(CloseReason { code: CloseCode::Policy, description: Some(reason) });
                            break;
                        }
                        None => break,
                    }
                }
                _ = shutdown.changed() => {
                    let e = ServerMsg::error(ErrorCode::ShuttingDown, "the node is restarting; reconnect", None);
                    let _ = send(&mut session, &e).await;
                    close = Some(CloseReason { code: CloseCode::Restart, description: Some("restarting".into()) });
                    break;
                }
            }
        }
    }
    if let Some(r) = room {
        r.do_send(Detach { conn });
    }
    state.metrics.connections.dec();
    tracing::debug!(conn, player = %player, "socket closed");
    let _ = session.close(close).await;
}

async fn handle_text(
    state: &Arc<AppState>,
    conn: u64,
    player: &PlayerId,
    tx: &mpsc::UnboundedSender<Outbound>,
    room: &mut Option<Addr<RoomActor>>,
    text: &str,
) -> Option<ServerMsg> {
    let received = Instant::now();
    let frame = match parse_client(text) {
        Ok(f) => f,
        Err(e) => {
            state
                .metrics
                .commands
                .with_label_values(&["invalid", e.code.as_str()])
                .inc();
            return Some(ServerMsg::error(e.code, e.message, e.seq));
        }
    };
    let seq = frame.seq;
    match frame.msg {
        ClientMsg::Ping => Some(ServerMsg::Pong { seq }),
        ClientMsg::Join {
            room: key,
            seat,
            spectate,
        } => {
            let Some(addr) = state.rooms.find(&key).await else {
                return Some(ServerMsg::error(
                    ErrorCode::RoomNotFound,
                    format!("no room or invite {key:?}"),
                    seq,
                ));
            };
            if let Some(old) = room.take()
                && old != addr
            {
                old.do_send(Detach { conn });
            }
            let join = Join {
                conn,
                player: player.clone(),
                tx: tx.clone(),
                seat,
                spectate,
                seq,
            };
            match addr.send(join).await {
                Ok(true) => *room = Some(addr),
                Ok(false) => {}
                Err(_) => {
                    return Some(ServerMsg::error(
                        ErrorCode::RoomNotFound,
                        "the room is closed",
                        seq,
                    ));
                }
            }
            None
        }
        ClientMsg::Resume { version } => match room {
            Some(r) => {
                r.do_send(Resume { conn, version, seq });
                None
            }
            None => Some(not_joined(seq)),
        },
        msg => {
            let Some(r) = room else {
                return Some(not_joined(seq));
            };
            let command = msg.to_command()?;
            r.do_send(Cmd {
                conn,
                seq,
                command,
                kind: msg.kind(),
                received,
            });
            None
        }
    }
}
