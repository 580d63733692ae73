//! How a session reaches its room: a frame read and dispatched
//! ([`Sess::handle_text`]), joins and detaches here or on the owning node,
//! what the room sends back ([`Sess::outbound`]), and the resends and
//! re-routes that keep a pending command alive across a move
//! ([`Sess::tick`]).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use actix_ws::{CloseCode, CloseReason};
use tabula_protocol::{ClientFrame, ClientMsg, ErrorCode, ServerMsg, ToOwner, parse_client};
use tabula_room::SeatId;

use super::{Flow, Link, Pending, Sess, restart_msg, restart_reason};
use crate::Located;
use crate::room_actor::{Detach, DetachForDrain, Join, not_joined};
use crate::route::{Outbound, RemoteOut};

/// How long a re-route keeps looking for a room missing from the store
/// before the session leaves it: a store restarted empty gets its rooms
/// back from their owners within a heartbeat or two.
const ROOM_MISSING_GRACE: Duration = Duration::from_secs(10);

/// Which of a remote owner's numbered messages a session writes.
#[derive(Debug, PartialEq, Eq)]
struct Window {
    /// Leading messages written already (numbered below the expected one).
    skip: usize,
    /// Messages were lost before these: resync.
    gap: bool,
    /// The number expected after these.
    next: u64,
}

/// Messages `n ..= n + len - 1` arrive while `expect` is the next number
/// due: `None` when all of them were written already (a duplicate).
fn window(expect: u64, n: u64, len: usize) -> Option<Window> {
    let next = n + len as u64;
    if next <= expect {
        return None;
    }
    Some(Window {
        skip: expect.saturating_sub(n) as usize,
        gap: n > expect,
        next,
    })
}

impl Sess {
    fn node(&self) -> &str {
        self.state.backplane.node_id()
    }

    /// Notes what an outgoing message answers and carries.
    fn note(&mut self, seq: Option<u64>, version: Option<u64>, remote: bool) {
        if let Some(s) = seq
            && let Some(p) = self.pending.remove(&s)
            && remote
        {
            self.state
                .metrics
                .routed_latency
                .observe(p.sent.elapsed().as_secs_f64());
            if p.first.elapsed() > Duration::from_secs(1) {
                tracing::debug!(
                    conn = self.conn,
                    seq = s,
                    waited_ms = p.first.elapsed().as_millis() as u64,
                    "slow routed answer"
                );
            }
        }
        if let Some(v) = version {
            self.last_version = Some(self.last_version.map_or(v, |l| l.max(v)));
        }
    }

    pub(super) async fn outbound(&mut self, out: Outbound) -> Flow {
        match out {
            Outbound::Msg(m) => {
                self.note(m.seq(), m.version(), false);
                Flow::Write(m.to_json())
            }
            Outbound::Batch(items) => {
                let texts = items
                    .into_iter()
                    .map(|i| {
                        self.note(i.seq, i.version, false);
                        i.text
                    })
                    .collect();
                Flow::WriteAll(texts)
            }
            Outbound::Remote(r) => {
                let RemoteOut { n, items } = *r;
                let Some(l) = &mut self.link else {
                    return Flow::Nothing;
                };
                if !matches!(l.at, Located::Remote(_)) {
                    return Flow::Nothing;
                }
                let Some(Window { skip, gap, next }) = window(l.expect_n, n, items.len()) else {
                    return Flow::Nothing;
                };
                l.expect_n = next;
                self.join_wait = None;
                if gap {
                    // Pub/sub lost something: ask the owner for the whole
                    // state (a version past the room's gets one).
                    self.state
                        .metrics
                        .route_gaps
                        .with_label_values(&["gap"])
                        .inc();
                    self.resync().await;
                }
                let texts = items
                    .into_iter()
                    .skip(skip)
                    .map(|i| {
                        self.note(i.seq, i.version, true);
                        i.text
                    })
                    .collect();
                Flow::WriteAll(texts)
            }
            Outbound::Close(reason) => {
                let e = ServerMsg::error(ErrorCode::Replaced, reason.clone(), None);
                Flow::Close(
                    CloseReason {
                        code: CloseCode::Policy,
                        description: Some(reason),
                    },
                    Some(e),
                )
            }
            Outbound::Reroute => {
                if self.state.draining.load(Ordering::SeqCst) {
                    return Flow::Close(restart_reason(), Some(restart_msg()));
                }
                self.relink_due = true;
                self.maybe_relink().await;
                Flow::Nothing
            }
            Outbound::Unjoined => {
                self.join_wait = None;
                if let Some(l) = self.link.take()
                    && let Located::Remote(node) = l.at
                {
                    self.state.router.unlink(self.conn);
                    // After a `leave` the owner still holds the link's
                    // proxy: let it go (a refused join's is gone already).
                    let msg = ToOwner::Detach {
                        room: l.room,
                        from: self.node().to_string(),
                        conn: self.conn,
                        quiet: false,
                    };
                    crate::cluster::send(&self.state, &node, msg).await;
                }
                self.pending.clear();
                Flow::Nothing
            }
            Outbound::Resync => {
                self.state
                    .metrics
                    .route_gaps
                    .with_label_values(&["resync"])
                    .inc();
                self.resync().await;
                self.resend_all().await;
                Flow::Nothing
            }
            Outbound::Linked => {
                if self
                    .link
                    .as_ref()
                    .is_some_and(|l| matches!(l.at, Located::Remote(_)))
                {
                    self.join_wait = None;
                }
                Flow::Nothing
            }
            Outbound::Gap(n) => {
                // Messages up to `n` were published and lost: what follows
                // is numbered after them, and the full state replaces them.
                if let Some(l) = &mut self.link
                    && matches!(l.at, Located::Remote(_))
                {
                    l.expect_n = l.expect_n.max(n + 1);
                    self.state
                        .metrics
                        .route_gaps
                        .with_label_values(&["beat"])
                        .inc();
                    self.resync().await;
                    self.resend_all().await;
                }
                Flow::Nothing
            }
        }
    }

    /// Asks a remote owner for the full state.
    async fn resync(&mut self) {
        if let Some(Link {
            room,
            at: Located::Remote(node),
            ..
        }) = &self.link
        {
            let msg = ToOwner::Resume {
                room: room.clone(),
                from: self.node().to_string(),
                conn: self.conn,
                version: u64::MAX,
                seq: None,
            };
            crate::cluster::send(&self.state, node, msg).await;
        }
    }

    /// Re-routes now unless it was just tried (then at the next tick).
    async fn maybe_relink(&mut self) {
        if self
            .last_relink
            .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.relink().await;
    }

    async fn relink(&mut self) {
        self.relink_due = false;
        self.last_relink = Some(Instant::now());
        let Some(l) = &self.link else {
            return;
        };
        let (room, seat, spectate) = (l.room.clone(), l.seat, l.spectate);
        match self.state.rooms.locate(&room).await {
            Ok(Some((_, at))) => {
                self.missing_since = None;
                self.state
                    .metrics
                    .reroutes
                    .with_label_values(&[match at {
                        Located::Local(_) => "local",
                        Located::Remote(_) => "remote",
                    }])
                    .inc();
                tracing::debug!(conn = self.conn, room = %room, "re-routed");
                let resume_from = self.last_version;
                self.attach(room, seat, spectate, at, None, resume_from)
                    .await;
                self.resend_all().await;
            }
            Ok(None) => {
                // Not in the store. Gone for good, or a store restarted
                // empty whose owner has not written the room back yet (its
                // liveness key is gone too, so the link watch re-routes in
                // that window): keep the link and look again, for a while.
                let since = *self.missing_since.get_or_insert_with(Instant::now);
                if since.elapsed() < ROOM_MISSING_GRACE {
                    self.relink_due = true;
                } else {
                    tracing::info!(conn = self.conn, room = %room, "room gone from the store; leaving it");
                    self.missing_since = None;
                    self.link = None;
                    self.pending.clear();
                }
            }
            Err(e) => {
                tracing::debug!(conn = self.conn, error = %e, "re-route failed; retrying");
                self.relink_due = true;
            }
        }
    }

    /// Joins `room` where it is served.
    async fn attach(
        &mut self,
        room: String,
        seat: Option<SeatId>,
        spectate: bool,
        at: Located,
        seq: Option<u64>,
        resume_from: Option<u64>,
    ) {
        match &at {
            Located::Local(addr) => {
                self.join_wait = None;
                self.state.router.unlink(self.conn);
                let join = Join {
                    conn: self.conn,
                    player: self.player.clone(),
                    tx: self.tx.clone(),
                    seat,
                    spectate,
                    seq,
                    resume_from,
                };
                match addr.send(join).await {
                    Ok(true) => {}
                    Ok(false) => {
                        self.link = None;
                        return;
                    }
                    Err(_) => {
                        // Stopped meanwhile: find it again at the next tick.
                        self.relink_due = true;
                    }
                }
            }
            Located::Remote(node) => {
                if self.join_wait.is_none() || self.join_told.is_none() {
                    let now = Instant::now();
                    self.join_told = Some((now, now));
                }
                self.join_wait = Some((Instant::now(), seq, resume_from));
                self.state.router.link(self.conn, self.tx.clone(), node);
                let msg = ToOwner::Join {
                    room: room.clone(),
                    from: self.node().to_string(),
                    conn: self.conn,
                    player: self.player.0.clone(),
                    seat,
                    spectate,
                    seq,
                    resume_from,
                };
                if !crate::cluster::send(&self.state, node, msg).await {
                    self.relink_due = true;
                }
            }
        }
        self.link = Some(Link {
            room,
            seat,
            spectate,
            at,
            expect_n: 1,
        });
    }

    /// Leaves the current room.
    pub(super) async fn detach(&mut self) {
        let Some(l) = self.link.take() else {
            return;
        };
        match l.at {
            Located::Local(addr) if self.drained => {
                addr.do_send(DetachForDrain { conn: self.conn })
            }
            Located::Local(addr) => addr.do_send(Detach { conn: self.conn }),
            Located::Remote(node) => {
                self.state.router.unlink(self.conn);
                let msg = ToOwner::Detach {
                    room: l.room,
                    from: self.node().to_string(),
                    conn: self.conn,
                    quiet: self.drained,
                };
                crate::cluster::send(&self.state, &node, msg).await;
            }
        }
    }

    /// Sends a client frame to the room where it is served.
    async fn forward(&mut self, frame: &ClientFrame) {
        let Some(l) = &self.link else {
            return;
        };
        match &l.at {
            Located::Local(addr) => {
                crate::room_actor::deliver(addr, self.conn, frame, Instant::now());
            }
            Located::Remote(node) => {
                let msg = ToOwner::Cmd {
                    room: l.room.clone(),
                    from: self.node().to_string(),
                    conn: self.conn,
                    frame: Some(frame.clone()),
                    // Also as text, for an owner of the previous release
                    // during a rolling upgrade (it reads only `text`);
                    // dropped in the next release.
                    text: serde_json::to_string(frame).ok(),
                };
                let node = node.clone();
                let ok = crate::cluster::send(&self.state, &node, msg).await;
                self.state
                    .metrics
                    .routed_commands
                    .with_label_values(&[if ok { "sent" } else { "send_failed" }])
                    .inc();
            }
        }
    }

    async fn resend_all(&mut self) {
        let frames: Vec<ClientFrame> = self.pending.values().map(|p| p.frame.clone()).collect();
        for f in &frames {
            self.forward(f).await;
        }
        let now = Instant::now();
        for p in self.pending.values_mut() {
            p.sent = now;
        }
    }

    /// Whether the socket is in a room (here or on its owner).
    pub(super) fn in_room(&self) -> bool {
        self.link.is_some()
    }

    /// `pending` for each command, and the `join`, unanswered for
    /// [`super::PENDING_EVERY`] since it was sent or last said pending.
    /// Written by the session itself, so it is no answer: the command
    /// stays pending until its own answer comes.
    pub(super) fn progress(&mut self, now: Instant) -> Vec<ServerMsg> {
        let every = super::PENDING_EVERY;
        let mut notes = Vec::new();
        for (&seq, p) in &mut self.pending {
            if now.duration_since(p.told) >= every {
                p.told = now;
                notes.push(ServerMsg::Pending {
                    for_seq: Some(seq),
                    waited_ms: now.duration_since(p.first).as_millis() as u64,
                });
            }
        }
        match (&self.join_wait, &mut self.join_told) {
            (Some((_, seq, _)), Some((first, told))) if now.duration_since(*told) >= every => {
                *told = now;
                notes.push(ServerMsg::Pending {
                    for_seq: *seq,
                    waited_ms: now.duration_since(*first).as_millis() as u64,
                });
            }
            (None, told) => *told = None,
            _ => {}
        }
        notes
    }

    /// Whether [`Sess::tick`] has anything to look at.
    pub(super) fn needs_tick(&self) -> bool {
        self.relink_due || self.join_wait.is_some() || !self.pending.is_empty()
    }

    /// Resends or re-routes what has waited too long.
    pub(super) async fn tick(&mut self) {
        if self.relink_due {
            self.relink().await;
            return;
        }
        let timeout = Duration::from_millis(self.state.settings.cluster.route_timeout_ms);
        let join_late = self
            .join_wait
            .is_some_and(|(t, _, _)| t.elapsed() >= timeout);
        if !join_late && !self.pending.values().any(|p| p.sent.elapsed() >= timeout) {
            return;
        }
        let Some(l) = &self.link else {
            self.pending.clear();
            return;
        };
        let moved = match &l.at {
            Located::Local(addr) => !addr.connected(),
            Located::Remote(node) => {
                let bp = &self.state.backplane;
                match bp.owner(&l.room).await {
                    Ok(Some(lease)) if lease.node == *node => {
                        !bp.node_alive(node).await.unwrap_or(true)
                    }
                    Ok(_) => true,
                    // The store is away: keep trying the same owner.
                    Err(_) => false,
                }
            }
        };
        if moved {
            self.relink().await;
        } else if join_late {
            // The owner is alive but did not answer the join: join again
            // (it replaces the proxy) and resend what is pending.
            let (room, seat, spectate, at) = (l.room.clone(), l.seat, l.spectate, l.at.clone());
            let (_, seq, resume_from) = self.join_wait.unwrap_or((Instant::now(), None, None));
            self.attach(room, seat, spectate, at, seq, resume_from)
                .await;
            self.resend_all().await;
        } else if matches!(l.at, Located::Remote(_)) {
            self.state
                .metrics
                .routed_commands
                .with_label_values(&["resent"])
                .inc();
            let due: Vec<ClientFrame> = self
                .pending
                .values()
                .filter(|p| p.sent.elapsed() >= timeout)
                .map(|p| p.frame.clone())
                .collect();
            for f in &due {
                self.forward(f).await;
            }
            let now = Instant::now();
            for p in self.pending.values_mut() {
                if now.duration_since(p.sent) >= timeout {
                    p.sent = now;
                }
            }
        }
    }

    pub(super) async fn handle_text(&mut self, text: &str) -> Option<ServerMsg> {
        let frame = match parse_client(text) {
            Ok(f) => f,
            Err(e) => {
                self.state
                    .metrics
                    .commands
                    .with_label_values(&["invalid", e.code.as_str()])
                    .inc();
                return Some(ServerMsg::error(e.code, e.message, e.seq));
            }
        };
        let seq = frame.seq;
        match &frame.msg {
            ClientMsg::Ping => Some(ServerMsg::Pong {
                seq,
                server_time: Some(crate::time::now_ms()),
            }),
            ClientMsg::Join {
                room: key,
                seat,
                spectate,
            } => {
                // A tournament's game shown before its owner made the
                // room (not found, or registered and not written yet:
                // its takeover fails): made here (idempotent), then joined.
                let (mut located, failed) = match self.state.rooms.locate(key).await {
                    Ok(l) => (l, None),
                    Err(e) if crate::tournaments::of_game(key).is_some() => (None, Some(e)),
                    Err(e) => {
                        return Some(ServerMsg::error(ErrorCode::Unavailable, e.to_string(), seq));
                    }
                };
                if located.is_none() {
                    if crate::tournaments::ensure_game_room(&self.state, key).await {
                        located = match self.state.rooms.locate(key).await {
                            Ok(l) => l,
                            Err(e) => {
                                return Some(ServerMsg::error(
                                    ErrorCode::Unavailable,
                                    e.to_string(),
                                    seq,
                                ));
                            }
                        };
                    } else if let Some(e) = failed {
                        return Some(ServerMsg::error(ErrorCode::Unavailable, e.to_string(), seq));
                    }
                }
                let Some((entry, at)) = located else {
                    return Some(ServerMsg::error(
                        ErrorCode::RoomNotFound,
                        format!("no room or invite {key:?}"),
                        seq,
                    ));
                };
                if self.link.as_ref().is_some_and(|l| l.room != entry.id) {
                    self.detach().await;
                    self.pending.clear();
                    self.last_version = None;
                }
                self.attach(entry.id, *seat, *spectate, at, seq, None).await;
                None
            }
            _ => {
                if self.link.is_none() {
                    return Some(not_joined(seq));
                }
                if let Some(s) = seq {
                    let now = Instant::now();
                    self.pending.insert(
                        s,
                        Pending {
                            frame: frame.clone(),
                            sent: now,
                            first: now,
                            told: now,
                        },
                    );
                }
                self.forward(&frame).await;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
