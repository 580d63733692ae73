//! Cross-node routing, liveness and the takeover sweep.
//!
//! A session on node A in a room owned by node B is *linked* to B: A sends
//! B's inbox `join`/`cmd`/`resume`/`detach` node messages; B keeps a *proxy*
//! connection in the room actor for it, whose outbound messages are numbered
//! per link and published to A's inbox. A notices a gap in the numbers and
//! asks for a full state; an unanswered command is resent with its `seq`
//! (the room applies a `seq` at most once, and the seqs are persisted with
//! the snapshot, so this holds across a takeover too). When a room moves
//! (owner fenced, drained, dead), the session re-locates it and re-joins,
//! replaying what the client missed.
//!
//! The messages here are node-internal: clients never see them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix::Addr;
use serde::{Deserialize, Serialize};
use tabula_backplane::{Inbound, NodeId};
use tabula_protocol::parse_client;
use tabula_room::{PlayerId, SeatId};
use tokio::sync::mpsc::{self, UnboundedSender};

use crate::AppState;
use crate::link::{self, Verdict};
use crate::room_actor::{Abandon, Detach, Join, Persist, Resume, RoomActor};
use crate::route::{NEXT_CONN, OutItem, Outbound, RemoteOut};

/// A message between nodes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum NodeMsg {
    /// Front → owner: a socket joins a room.
    Join {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The player.
        player: String,
        /// Seat wanted.
        seat: Option<SeatId>,
        /// Watch only.
        spectate: bool,
        /// The client's seq.
        seq: Option<u64>,
        /// A re-join: the last version the client saw.
        resume_from: Option<u64>,
    },
    /// Front → owner: a client frame (JSON as the client sent it).
    Cmd {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The frame.
        text: String,
    },
    /// Front → owner: `resume {version}`.
    Resume {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The last version seen.
        version: u64,
        /// The client's seq.
        seq: Option<u64>,
    },
    /// Front → owner: the socket left.
    Detach {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
    /// Owner → front: a message for the socket.
    Out {
        /// The owner (a front drops what comes from a node its link is not
        /// on; empty from a node that does not say).
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// Link sequence number.
        n: u64,
        /// The `seq` it answers.
        seq: Option<u64>,
        /// The room version it carries.
        version: Option<u64>,
        /// The JSON text.
        text: String,
        /// Messages that follow it, numbered `n + 1`, `n + 2`, …: the
        /// events of one command go in one publish. (Left out when empty,
        /// so that a single message reads as before; a node that does not
        /// know the field reads the first and resyncs on the gap.)
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        more: Vec<OutItem>,
    },
    /// Owner → front: close the socket.
    Close {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// Why.
        reason: String,
    },
    /// Owner → front: the room is not (or no longer) here; re-locate it.
    Reroute {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
    /// Owner → front: the join was refused.
    Unjoined {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
    /// Owner → front: the links the owner serves for the front, each with
    /// the number of the last message published on it (see
    /// [`crate::link`]).
    Beats {
        /// The owner.
        from: NodeId,
        /// `(front connection id, last link number published)`.
        links: Vec<(u64, u64)>,
    },
    /// Front → owner: a link was silent; do you still serve it? (Answered
    /// with `Beats` for it, or `Reroute`.)
    Probe {
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
}

#[derive(Debug)]
struct Proxy {
    local: u64,
    addr: Addr<RoomActor>,
    /// The number of the last message its forwarder published.
    sent: Arc<AtomicU64>,
}

/// A local session linked to a room on another node, as the inbox and the
/// link watch see it.
#[derive(Debug)]
struct Front {
    tx: UnboundedSender<Outbound>,
    /// The node the link is on.
    owner: NodeId,
    /// When its owner was last heard from on this link (a message or a
    /// beat), or when it was linked.
    heard: Instant,
    /// The number of the last message received on it.
    received: u64,
    /// When it was last probed, since it was last heard from.
    probed: Option<Instant>,
    /// The owner confirmed the link's join (the session was told).
    joined: bool,
}

/// The node's routing tables.
#[derive(Debug, Default)]
pub struct Router {
    /// Local sessions linked to rooms elsewhere, by conn.
    fronts: Mutex<HashMap<u64, Front>>,
    /// Remote sessions in rooms here: (front node, conn) → proxy.
    proxies: Mutex<HashMap<(NodeId, u64), Proxy>>,
}

impl Router {
    /// Registers a local session linked to a room on `owner` (a new link:
    /// its numbering starts again).
    pub fn link(&self, conn: u64, tx: UnboundedSender<Outbound>, owner: &str) {
        lock(&self.fronts).insert(
            conn,
            Front {
                tx,
                owner: owner.to_string(),
                heard: Instant::now(),
                received: 0,
                probed: None,
                joined: false,
            },
        );
    }

    /// Forgets a local session.
    pub fn unlink(&self, conn: u64) {
        lock(&self.fronts).remove(&conn);
    }

    /// The session of a link on `from`, noting that its owner was heard
    /// from (and up to which message number); `None` when the session is
    /// gone or linked elsewhere (a message from an old owner).
    fn heard(
        &self,
        conn: u64,
        from: &str,
        last_n: Option<u64>,
    ) -> Option<UnboundedSender<Outbound>> {
        let mut fronts = lock(&self.fronts);
        let f = fronts.get_mut(&conn)?;
        if !link::accepts(&f.owner, from) {
            return None;
        }
        f.heard = Instant::now();
        f.probed = None;
        if let Some(n) = last_n {
            f.received = f.received.max(n);
        }
        Some(f.tx.clone())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends a node message, counting failures.
pub async fn send(state: &AppState, node: &str, msg: &NodeMsg) -> bool {
    let text = match serde_json::to_string(msg) {
        Ok(t) => t,
        Err(_) => return false,
    };
    match state.backplane.send(node, text).await {
        Ok(()) => true,
        Err(e) => {
            state
                .metrics
                .backplane_errors
                .with_label_values(&["send"])
                .inc();
            tracing::warn!(to = %node, error = %e, "node message not sent");
            false
        }
    }
}

/// Reads this node's inbox until the backplane closes it.
pub async fn inbox_loop(state: Arc<AppState>) {
    let Some(mut rx) = state.backplane.take_inbox() else {
        return;
    };
    while let Some(m) = rx.recv().await {
        match m {
            Inbound::Message(text) => match serde_json::from_str::<NodeMsg>(&text) {
                Ok(msg) => handle(&state, msg).await,
                Err(e) => tracing::warn!(error = %e, "unreadable node message"),
            },
            Inbound::Resubscribed => {
                // Messages may have been lost while the inbox was away.
                state
                    .metrics
                    .route_gaps
                    .with_label_values(&["resubscribed"])
                    .inc();
                for f in lock(&state.router.fronts).values() {
                    let _ = f.tx.send(Outbound::Resync);
                }
                // The store may have restarted empty: every room this node
                // owns writes itself again, re-establishing its ownership,
                // directory entry and snapshot.
                for room in state.rooms.all() {
                    room.do_send(Persist);
                }
            }
            _ => {}
        }
    }
}

async fn handle(state: &Arc<AppState>, msg: NodeMsg) {
    let router = &state.router;
    // This node's id, made only where a message names its sender (not on
    // every routed command).
    let me = || state.backplane.node_id().to_string();
    match msg {
        NodeMsg::Join {
            room,
            from,
            conn,
            player,
            seat,
            spectate,
            seq,
            resume_from,
        } => {
            let addr = match state.rooms.local(&room) {
                Some(a) => a,
                // Routed here but not running here (stopped when the lease
                // was lost, say): take it back if nobody else has.
                None => match state.rooms.take_over(&room, "rejoin").await {
                    Ok(crate::Located::Local(a)) => a,
                    _ => {
                        send(state, &from, &NodeMsg::Reroute { from: me(), conn }).await;
                        return;
                    }
                },
            };
            let old = lock(&router.proxies).remove(&(from.clone(), conn));
            let local = match old {
                // The front joins again on the same link (it re-linked
                // after a silence, or its join went unanswered): the room
                // keeps the connection and only its sender is replaced.
                // A detach and a join instead would show the opponent a
                // disconnection that never happened.
                Some(p) if p.addr == addr && addr.connected() => p.local,
                Some(p) => {
                    p.addr.do_send(Detach { conn: p.local });
                    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
                }
                None => NEXT_CONN.fetch_add(1, Ordering::Relaxed),
            };
            let sent = Arc::new(AtomicU64::new(0));
            let tx = forwarder(state.clone(), from.clone(), conn, sent.clone());
            lock(&router.proxies).insert(
                (from.clone(), conn),
                Proxy {
                    local,
                    addr: addr.clone(),
                    sent,
                },
            );
            let join = Join {
                conn: local,
                player: PlayerId::new(player),
                tx,
                seat,
                spectate,
                seq,
                resume_from,
            };
            match addr.send(join).await {
                Ok(true) => {
                    // Tell the front at once that the link is served: a
                    // re-join that missed nothing gets no message at all.
                    let beat = NodeMsg::Beats {
                        from: me(),
                        links: vec![(conn, 0)],
                    };
                    send(state, &from, &beat).await;
                }
                Ok(false) => {
                    lock(&router.proxies).remove(&(from.clone(), conn));
                    send(state, &from, &NodeMsg::Unjoined { from: me(), conn }).await;
                }
                Err(_) => {
                    lock(&router.proxies).remove(&(from.clone(), conn));
                    send(state, &from, &NodeMsg::Reroute { from: me(), conn }).await;
                }
            }
        }
        NodeMsg::Cmd {
            room: _,
            from,
            conn,
            text,
        } => {
            let target = lock(&router.proxies)
                .get(&(from.clone(), conn))
                .map(|p| (p.local, p.addr.clone()));
            let Some((local, addr)) = target.filter(|(_, a)| a.connected()) else {
                send(state, &from, &NodeMsg::Reroute { from: me(), conn }).await;
                return;
            };
            // The front parsed it already; a frame that fails here is dropped.
            if let Ok(frame) = parse_client(&text) {
                crate::room_actor::deliver(&addr, local, &frame, Instant::now());
            }
        }
        NodeMsg::Resume {
            room: _,
            from,
            conn,
            version,
            seq,
        } => {
            let target = lock(&router.proxies)
                .get(&(from.clone(), conn))
                .map(|p| (p.local, p.addr.clone()));
            match target {
                Some((local, addr)) if addr.connected() => addr.do_send(Resume {
                    conn: local,
                    version,
                    seq,
                }),
                _ => {
                    send(state, &from, &NodeMsg::Reroute { from: me(), conn }).await;
                }
            }
        }
        NodeMsg::Detach {
            room: _,
            from,
            conn,
        } => {
            if let Some(p) = lock(&router.proxies).remove(&(from, conn)) {
                p.addr.do_send(Detach { conn: p.local });
            }
        }
        NodeMsg::Out {
            from,
            conn,
            n,
            seq,
            version,
            text,
            more,
        } => {
            let last = n + more.len() as u64;
            match router.heard(conn, &from, Some(last)) {
                Some(tx) => {
                    let mut items = Vec::with_capacity(1 + more.len());
                    items.push(OutItem { seq, version, text });
                    items.extend(more);
                    let _ = tx.send(Outbound::Remote(Box::new(RemoteOut { n, items })));
                }
                None => stale(state, conn),
            }
        }
        NodeMsg::Close { from, conn, reason } => {
            to_front(state, conn, &from, Outbound::Close(reason));
        }
        NodeMsg::Reroute { from, conn } => to_front(state, conn, &from, Outbound::Reroute),
        NodeMsg::Unjoined { from, conn } => to_front(state, conn, &from, Outbound::Unjoined),
        NodeMsg::Beats { from, links } => beats(state, from, links).await,
        NodeMsg::Probe { from, conn } => {
            let serving = lock(&router.proxies)
                .get(&(from.clone(), conn))
                .filter(|p| p.addr.connected())
                .map(|p| p.sent.load(Ordering::Acquire));
            let answer = match serving {
                Some(n) => NodeMsg::Beats {
                    from: me(),
                    links: vec![(conn, n)],
                },
                None => NodeMsg::Reroute { from: me(), conn },
            };
            send(state, &from, &answer).await;
        }
    }
}

/// An owner's control message to the session of a link on `from`;
/// dropped when the link is gone or on another node.
fn to_front(state: &AppState, conn: u64, from: &str, out: Outbound) {
    match state.router.heard(conn, from, None) {
        Some(tx) => {
            let _ = tx.send(out);
        }
        None => stale(state, conn),
    }
}

/// A message for a link that is gone or on another node: dropped.
fn stale(state: &AppState, conn: u64) {
    if lock(&state.router.fronts).contains_key(&conn) {
        state
            .metrics
            .link_faults
            .with_label_values(&["stale_sender"])
            .inc();
    }
}

/// An owner's beats: each link heard from; a link whose messages were lost
/// on the way resyncs now; a link this node no longer holds is detached
/// at the owner (its detach was lost, and its seat would stay connected).
async fn beats(state: &AppState, from: NodeId, links: Vec<(u64, u64)>) {
    let mut gaps = Vec::new();
    let mut orphans = Vec::new();
    {
        let mut fronts = lock(&state.router.fronts);
        let now = Instant::now();
        for (conn, n) in links {
            match fronts.get_mut(&conn) {
                Some(f) if f.owner == from => {
                    f.heard = now;
                    f.probed = None;
                    if !f.joined {
                        // The owner serves the link: its join landed.
                        f.joined = true;
                        let _ = f.tx.send(Outbound::Linked);
                    }
                    if link::beat(f.received, n) {
                        f.received = n;
                        gaps.push((f.tx.clone(), n));
                    }
                }
                _ => orphans.push(conn),
            }
        }
    }
    let m = &state.metrics.link_faults;
    for (tx, n) in gaps {
        m.with_label_values(&["beat_gap"]).inc();
        let _ = tx.send(Outbound::Gap(n));
    }
    let me = state.backplane.node_id().to_string();
    for conn in orphans {
        m.with_label_values(&["orphan_proxy"]).inc();
        let msg = NodeMsg::Detach {
            room: String::new(),
            from: me.clone(),
            conn,
        };
        send(state, &from, &msg).await;
    }
}

/// Owner side: beats every link this node serves, one message per front
/// node (in chunks), every [`link::Timing::beat`].
pub async fn beat_loop(state: Arc<AppState>) {
    let t = link::Timing::for_lease(state.backplane.lease());
    let me = state.backplane.node_id().to_string();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(t.beat) => {}
            _ = shutdown.changed() => return,
        }
        let mut by_front: HashMap<NodeId, Vec<(u64, u64)>> = HashMap::new();
        // Only links whose room still runs: a proxy left behind by a room
        // that stopped must fall silent, so the front probes it and is
        // told to re-route.
        for ((front, conn), p) in lock(&state.router.proxies)
            .iter()
            .filter(|(_, p)| p.addr.connected())
        {
            by_front
                .entry(front.clone())
                .or_default()
                .push((*conn, p.sent.load(Ordering::Acquire)));
        }
        for (front, links) in by_front {
            for chunk in links.chunks(BEATS_PER_MESSAGE) {
                let msg = NodeMsg::Beats {
                    from: me.clone(),
                    links: chunk.to_vec(),
                };
                send(&state, &front, &msg).await;
            }
        }
    }
}

/// Links in one beat message (about 20 bytes each).
const BEATS_PER_MESSAGE: usize = 2048;

/// Front side: every [`link::Timing::check`], the links silent past
/// [`link::Timing::silence`] get their [`link::verdict`]: re-routed when
/// their owner is dead, probed when it lives.
pub async fn watch_loop(state: Arc<AppState>) {
    let t = link::Timing::for_lease(state.backplane.lease());
    let me = state.backplane.node_id().to_string();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(t.check) => {}
            _ = shutdown.changed() => return,
        }
        let mut owners: Vec<NodeId> = {
            let now = Instant::now();
            lock(&state.router.fronts)
                .values()
                .filter(|f| now.duration_since(f.heard) >= t.silence)
                .map(|f| f.owner.clone())
                .collect()
        };
        if owners.is_empty() {
            continue;
        }
        owners.sort();
        owners.dedup();
        // One liveness read per owner, whatever the number of its links.
        let mut alive: HashMap<NodeId, Option<bool>> = HashMap::new();
        for o in owners {
            let a = state.backplane.node_alive(&o).await.ok();
            alive.insert(o, a);
        }
        let mut probes = Vec::new();
        {
            let now = Instant::now();
            let m = &state.metrics.link_faults;
            for (&conn, f) in lock(&state.router.fronts).iter_mut() {
                let Some(&a) = alive.get(&f.owner) else {
                    continue;
                };
                let v = link::verdict(
                    now.duration_since(f.heard),
                    f.probed.map(|p| now.duration_since(p)),
                    a,
                    &t,
                );
                match v {
                    Verdict::Fine | Verdict::Wait => {}
                    Verdict::Reroute => {
                        m.with_label_values(&["owner_dead"]).inc();
                        // Not again before it has had time to re-link.
                        f.heard = now;
                        f.probed = None;
                        let _ = f.tx.send(Outbound::Reroute);
                    }
                    Verdict::Probe => {
                        m.with_label_values(&["silent"]).inc();
                        f.probed = Some(now);
                        probes.push((f.owner.clone(), conn));
                    }
                }
            }
        }
        for (owner, conn) in probes {
            let msg = NodeMsg::Probe {
                from: me.clone(),
                conn,
            };
            send(&state, &owner, &msg).await;
        }
    }
}

/// Most messages one publish carries (a backlog is sent in several).
const OUT_BATCH: usize = 64;

/// The outbound side of a proxy: what the room sends the remote socket is
/// numbered and published to the front node, in order (one task per link,
/// each publish awaited before the next). The messages of one command, and
/// whatever else queued up meanwhile, go in one publish: Redis and both
/// nodes then pay one round trip per command, not one per event.
fn forwarder(
    state: Arc<AppState>,
    front: NodeId,
    conn: u64,
    sent: Arc<AtomicU64>,
) -> UnboundedSender<Outbound> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Outbound>();
    let me = state.backplane.node_id().to_string();
    actix_rt::spawn(async move {
        // The number of the last message published.
        let mut n = 0u64;
        let mut held: Option<Outbound> = None;
        loop {
            let first = match held.take() {
                Some(out) => out,
                None => match rx.recv().await {
                    Some(out) => out,
                    None => break,
                },
            };
            let mut items: Vec<OutItem> = Vec::new();
            let mut end = None;
            let mut next = Some(first);
            while let Some(out) = next.take() {
                match out {
                    Outbound::Msg(m) => items.push(OutItem::of(&m)),
                    Outbound::Batch(ms) => items.extend(ms),
                    Outbound::Close(reason) => {
                        end = Some(NodeMsg::Close {
                            from: me.clone(),
                            conn,
                            reason,
                        });
                    }
                    Outbound::Reroute => {
                        end = Some(NodeMsg::Reroute {
                            from: me.clone(),
                            conn,
                        });
                    }
                    Outbound::Unjoined => {
                        end = Some(NodeMsg::Unjoined {
                            from: me.clone(),
                            conn,
                        });
                    }
                    Outbound::Remote(_)
                    | Outbound::Resync
                    | Outbound::Gap(_)
                    | Outbound::Linked => {}
                }
                if end.is_some() || items.len() >= OUT_BATCH {
                    break;
                }
                // Take what is already queued, without waiting.
                next = rx.try_recv().ok();
                if let Some(Outbound::Close(_) | Outbound::Reroute | Outbound::Unjoined) = &next
                    && !items.is_empty()
                {
                    // Publish the messages before it first, in order.
                    held = next.take();
                }
            }
            let mut rest = items.into_iter();
            while let Some(first) = rest.next() {
                let more: Vec<OutItem> = rest.by_ref().take(OUT_BATCH - 1).collect();
                let first_n = n + 1;
                n += 1 + more.len() as u64;
                let msg = NodeMsg::Out {
                    from: me.clone(),
                    conn,
                    n: first_n,
                    seq: first.seq,
                    version: first.version,
                    text: first.text,
                    more,
                };
                // Counted published even when the publish failed: the
                // next beat then shows the front what it lost.
                send(&state, &front, &msg).await;
                sent.store(n, Ordering::Release);
            }
            if let Some(msg) = end {
                let last = matches!(msg, NodeMsg::Close { .. } | NodeMsg::Reroute { .. });
                send(&state, &front, &msg).await;
                if last {
                    lock(&state.router.proxies).remove(&(front.clone(), conn));
                    break;
                }
            }
        }
    });
    tx
}

/// How often the liveness lease is renewed: three times a lease.
pub fn heartbeat_every(lease: Duration) -> Duration {
    (lease / 3).max(Duration::from_millis(50))
}

/// Renews the liveness lease; when it cannot for longer than the lease, the
/// node stops acting as an owner (another node may have claimed its rooms).
pub async fn heartbeat_loop(state: Arc<AppState>) {
    let lease = state.backplane.lease();
    let every = heartbeat_every(lease);
    let mut last_ok = Instant::now();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => return,
        }
        match state.backplane.heartbeat().await {
            Ok(()) => {
                if last_ok.elapsed() > lease {
                    // Paused or cut off past the lease: other nodes may have
                    // taken rooms over. Stop every room this node no longer
                    // owns before it acts again (the fence would refuse its
                    // next write anyway; this stops timers and bots at once).
                    tracing::warn!(
                        "liveness lease renewed after it had expired; checking ownership"
                    );
                    for (id, addr) in state.rooms.owned() {
                        let mine = matches!(
                            state.backplane.owner(&id).await,
                            Ok(Some(l)) if l.node == state.backplane.node_id()
                        );
                        if !mine {
                            state.metrics.fenced.with_label_values(&["lease"]).inc();
                            addr.do_send(Abandon);
                        }
                    }
                }
                last_ok = Instant::now();
                state.store.ok();
            }
            Err(e) => {
                state.store.failed();
                state
                    .metrics
                    .backplane_errors
                    .with_label_values(&["heartbeat"])
                    .inc();
                tracing::warn!(error = %e, "liveness lease not renewed");
                if last_ok.elapsed() > lease {
                    let rooms = state.rooms.all();
                    if !rooms.is_empty() {
                        tracing::error!(
                            rooms = rooms.len(),
                            "liveness lease lost; no longer acting as owner"
                        );
                    }
                    for r in rooms {
                        r.do_send(Abandon);
                    }
                }
            }
        }
    }
}

/// Claims the rooms nobody owns (dead owners, released rooms), so their
/// timers keep running with nobody connected; detaches proxies of dead
/// front nodes.
pub async fn sweep_loop(state: Arc<AppState>) {
    let every = Duration::from_millis(state.settings.cluster.sweep_interval_ms);
    let mut shutdown = state.shutdown_rx.clone();
    // Front nodes found dead, and since when.
    let mut suspects: HashMap<NodeId, Instant> = HashMap::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => return,
        }
        if state.draining.load(Ordering::SeqCst) {
            return;
        }
        match state.backplane.orphans().await {
            Ok(rooms) => {
                for id in rooms {
                    if state.rooms.local(&id).is_some() {
                        continue;
                    }
                    if let Err(e) = state.rooms.take_over(&id, "sweep").await {
                        tracing::debug!(room = %id, error = %e, "sweep did not take the room");
                    }
                }
            }
            Err(e) => {
                state
                    .metrics
                    .backplane_errors
                    .with_label_values(&["orphans"])
                    .inc();
                tracing::debug!(error = %e, "orphan sweep failed");
            }
        }
        let fronts: Vec<NodeId> = {
            let p = lock(&state.router.proxies);
            let mut v: Vec<NodeId> = p.keys().map(|(n, _)| n.clone()).collect();
            v.sort();
            v.dedup();
            v
        };
        let now = Instant::now();
        suspects.retain(|n, _| fronts.contains(n));
        for node in fronts {
            if node == state.backplane.node_id() {
                continue;
            }
            let dead = matches!(state.backplane.node_alive(&node).await, Ok(false));
            if !dead {
                suspects.remove(&node);
                continue;
            }
            // Dead for a whole lease, not just once: a store that restarted
            // empty (or lost the key for a moment) makes every node look
            // dead until its next heartbeat, and detaching then would mark
            // players of live nodes disconnected.
            let since = *suspects.entry(node.clone()).or_insert(now);
            if now.duration_since(since) >= state.backplane.lease() {
                let gone: Vec<Proxy> = {
                    let mut p = lock(&state.router.proxies);
                    let keys: Vec<_> = p.keys().filter(|(n, _)| *n == node).cloned().collect();
                    keys.into_iter().filter_map(|k| p.remove(&k)).collect()
                };
                for p in gone {
                    p.addr.do_send(Detach { conn: p.local });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_out_message_keeps_its_old_wire_form_and_a_batch_round_trips() {
        let one = NodeMsg::Out {
            from: String::new(),
            conn: 7,
            n: 3,
            seq: Some(2),
            version: Some(9),
            text: "{}".into(),
            more: Vec::new(),
        };
        let text = serde_json::to_string(&one).unwrap();
        assert!(!text.contains("more"), "{text}");
        // What a node without batches sends reads as a batch of one.
        let old = r#"{"t":"out","conn":7,"n":3,"seq":2,"version":9,"text":"{}"}"#;
        let NodeMsg::Out { n, more, .. } = serde_json::from_str::<NodeMsg>(old).unwrap() else {
            panic!("not an out message");
        };
        assert_eq!((n, more.len()), (3, 0));

        let batch = NodeMsg::Out {
            from: "n3".into(),
            conn: 7,
            n: 4,
            seq: Some(3),
            version: Some(10),
            text: "a".into(),
            more: vec![OutItem {
                seq: None,
                version: Some(11),
                text: "b".into(),
            }],
        };
        let back: NodeMsg = serde_json::from_str(&serde_json::to_string(&batch).unwrap()).unwrap();
        let NodeMsg::Out { n, text, more, .. } = back else {
            panic!("not an out message");
        };
        assert_eq!((n, text.as_str()), (4, "a"));
        assert_eq!(more.len(), 1);
        assert_eq!((more[0].version, more[0].text.as_str()), (Some(11), "b"));
    }
}
