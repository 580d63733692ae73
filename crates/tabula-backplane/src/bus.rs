//! The node bus: node liveness and node-to-node messages, behind
//! [`NodeBus`].
//!
//! [`NodeBus::send`] delivers an opaque text message to a node's inbox, at
//! most once; [`NodeBus::take_inbox`] yields this node's inbox. What the
//! messages mean is the node's business.

use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use crate::Result;

/// What arrives in this node's inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inbound {
    /// A message another node (or this one) sent.
    Message(String),
    /// The subscription was re-established after a loss: messages sent in
    /// between may be lost, so the node should resync what it routes.
    Resubscribed,
}

/// The node bus: who this node is, who is alive, and the inboxes.
pub trait NodeBus: Send + Sync + std::fmt::Debug + 'static {
    /// This node's id.
    fn node_id(&self) -> &str;

    /// The liveness lease: a node whose last [`NodeBus::heartbeat`] is
    /// older than this is dead, and its rooms may be claimed.
    fn lease(&self) -> Duration;

    /// Renews this node's liveness lease (the node calls it every third of
    /// a lease or so).
    fn heartbeat(&self) -> BoxFuture<'_, Result<()>>;

    /// Whether a node's lease is current.
    fn node_alive(&self, node: &str) -> BoxFuture<'_, Result<bool>>;

    /// Marks this node as gone at once (clean exit after a drain), so no
    /// one waits for its lease to expire: the rooms it still owns are
    /// listed by [`RoomStore::orphans`](crate::RoomStore::orphans) at once.
    fn leave(&self) -> BoxFuture<'_, Result<()>>;

    /// Sends a message to a node's inbox (at most once; lost if the node is
    /// not subscribed).
    fn send(&self, node: &str, message: String) -> BoxFuture<'_, Result<()>>;

    /// This node's inbox; `Some` on the first call only. The implementation
    /// keeps the subscription alive across outages and says so with
    /// [`Inbound::Resubscribed`].
    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>>;
}
