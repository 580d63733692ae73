//! The types that pass between a session, a room and the cluster's
//! routing, below all three: a room sends a session [`Outbound`]s (of
//! [`OutItem`]s), whether the session is a local socket or a proxy for a
//! socket on another node. `host`, `room_actor`, `session` and `cluster`
//! import this module; it imports none of them.

use std::sync::atomic::AtomicU64;

pub use tabula_protocol::OutItem;
use tabula_protocol::ServerMsg;

/// Connection ids, unique within a process (sockets, and the proxies of
/// remote sockets).
pub static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// What a room sends a session.
#[derive(Debug)]
pub enum Outbound {
    /// A message to write. Boxed, as is `Remote`, so that the enum stays
    /// small: every socket's channel allocates its slots 32 at a time, and
    /// that block was 3.3 KiB per idle socket with the message inline.
    Msg(Box<ServerMsg>),
    /// Messages to write, in order, already JSON: the events of one
    /// command for one connection, sent together so the session is woken
    /// once and writes them in one go (one `send` syscall, not one per
    /// event).
    Batch(Vec<OutItem>),
    /// Close the socket with this reason (replaced by a newer socket).
    Close(String),
    /// The room moved (fenced, drained, lease lost): find its owner again,
    /// re-join and resend what is unanswered.
    Reroute,
    /// A message from the owner of a remote room (already JSON), numbered
    /// per link so that gaps show.
    Remote(Box<RemoteOut>),
    /// A remote `join` was refused (the error was sent before).
    Unjoined,
    /// The node's inbox was re-subscribed: resync and resend.
    Resync,
    /// The remote owner's beat says it published up to this link number,
    /// and some of it never arrived: skip past it and resync.
    Gap(u64),
    /// The remote owner serves the link: a join sent to it landed (a
    /// re-join that missed nothing gets no other answer).
    Linked,
}

/// Messages from the owner of a remote room (see [`Outbound::Remote`]).
#[derive(Debug)]
pub struct RemoteOut {
    /// The link sequence number of the first (1, 2, …); the others follow
    /// it one by one.
    pub n: u64,
    /// The messages, in order (never empty).
    pub items: Vec<OutItem>,
}
