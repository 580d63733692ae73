//! The node's routing tables: the local sessions linked to rooms on other
//! nodes (fronts) and the remote sessions in rooms here (proxies).

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use actix::Addr;
use tabula_backplane::NodeId;
use tokio::sync::mpsc::UnboundedSender;

use crate::link;
use crate::room_actor::RoomActor;
use crate::route::Outbound;

#[derive(Debug)]
pub(super) struct Proxy {
    pub(super) local: u64,
    pub(super) addr: Addr<RoomActor>,
    /// The number of the last message its forwarder published.
    pub(super) sent: Arc<AtomicU64>,
}

/// A local session linked to a room on another node, as the inbox and the
/// link watch see it.
#[derive(Debug)]
pub(super) struct Front {
    pub(super) tx: UnboundedSender<Outbound>,
    /// The node the link is on.
    pub(super) owner: NodeId,
    /// When its owner was last heard from on this link (a message or a
    /// beat), or when it was linked.
    pub(super) heard: Instant,
    /// The number of the last message received on it.
    pub(super) received: u64,
    /// When it was last probed, since it was last heard from.
    pub(super) probed: Option<Instant>,
    /// The owner confirmed the link's join (the session was told).
    pub(super) joined: bool,
}

/// The node's routing tables.
#[derive(Debug, Default)]
pub struct Router {
    /// Local sessions linked to rooms elsewhere, by conn.
    pub(super) fronts: Mutex<HashMap<u64, Front>>,
    /// Remote sessions in rooms here: (front node, conn) → proxy.
    pub(super) proxies: Mutex<HashMap<(NodeId, u64), Proxy>>,
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
    pub(super) fn heard(
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

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
