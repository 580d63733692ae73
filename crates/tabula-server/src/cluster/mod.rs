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
//! * `router.rs`: the routing tables ([`Router`]);
//! * this file: sending; `inbox.rs`: the inbox, which hands each message
//!   to its side;
//! * `owner.rs`: what an owner does with [`ToOwner`] messages, the
//!   proxies' forwarders and the owner's beats;
//! * `front.rs`: what a front does with [`ToFront`] messages, and the
//!   watch over silent links;
//! * `lease.rs`: the node's liveness lease and the takeover sweep.
//!
//! The messages are defined in [`tabula_protocol::node`]; clients never
//! see them.

mod front;
mod inbox;
mod lease;
mod owner;
mod router;

use tabula_protocol::NodeMsg;

use crate::AppState;

pub use front::watch_loop;
pub use inbox::inbox_loop;
pub use lease::{heartbeat_every, heartbeat_loop, sweep_loop};
pub use owner::beat_loop;
pub use router::Router;

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
