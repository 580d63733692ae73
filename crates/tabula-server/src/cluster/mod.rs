//! Cross-node routing, liveness and the takeover sweep.
//!
//! A session on node A in a room owned by node B is *linked* to B: A (the
//! *front*) sends B (the *owner*) [`ToOwner`] messages — `join`, `cmd`,
//! `resume`, `detach`, `probe`; B keeps a *proxy* connection in the room
//! actor for it, whose outbound messages are numbered per link and
//! published to A's inbox as [`ToFront`] messages. A notices a gap in the
//! numbers and asks for a full state; an unanswered command is resent with
//! its `seq` (the room applies a `seq` at most once, and the seqs are
//! persisted with the snapshot, so this holds across a takeover too). When
//! a room moves (owner fenced, drained, dead), the session re-locates it
//! and re-joins, replaying what the client missed.
//!
//! * this file: the routing tables ([`Router`]), sending, the inbox;
//! * `owner.rs`: what an owner does with [`ToOwner`] messages, the
//!   proxies' forwarders and the owner's beats;
//! * `front.rs`: what a front does with [`ToFront`] messages, and the
//!   watch over silent links;
//! * `lease.rs`: the node's liveness lease and the takeover sweep.
//!
//! The messages are defined in [`tabula_protocol::node`]; clients never
//! see them.

mod front;
mod lease;
mod owner;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use actix::Addr;
use tabula_backplane::{Inbound, NodeId};
use tabula_protocol::NodeMsg;
use tokio::sync::mpsc::UnboundedSender;

use crate::AppState;
use crate::link;
use crate::room_actor::{Persist, RoomActor};
use crate::route::Outbound;

pub use front::watch_loop;
pub use lease::{heartbeat_every, heartbeat_loop, sweep_loop};
pub use owner::beat_loop;

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
pub async fn send(state: &AppState, node: &str, msg: impl Into<NodeMsg>) -> bool {
    let text = match msg.into().encode() {
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
            Inbound::Message(text) => match NodeMsg::decode(&text) {
                Ok(NodeMsg::ToOwner(msg)) => owner::handle(&state, msg).await,
                Ok(NodeMsg::ToFront(msg)) => front::handle(&state, msg).await,
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
