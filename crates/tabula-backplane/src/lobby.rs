//! The lobby: quick match, behind [`Lobby`].
//!
//! Invite codes are not here: they are part of the room directory, which
//! the [`RoomStore`](crate::RoomStore) keeps (see [its module](crate::store)).

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use crate::Result;

/// A player waiting for a quick match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// Unique ticket id.
    pub id: u64,
    /// The waiting player.
    pub player: String,
}

/// Quick match: queues of waiting tickets per match key, and the rooms
/// delivered to taken tickets.
pub trait Lobby: Send + Sync + std::fmt::Debug + 'static {
    /// Quick match: atomically takes the oldest waiting ticket of another
    /// player under `key`, or (none waiting) queues `ticket` and returns
    /// `None`.
    fn match_or_wait(&self, key: &str, ticket: Ticket) -> BoxFuture<'_, Result<Option<Ticket>>>;

    /// Removes a queued ticket; `false` if it was already taken (a partner
    /// is delivering a room to it).
    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>>;

    /// Delivers the matched room (opaque JSON) to a taken ticket.
    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>>;

    /// The room delivered to a ticket, if any yet (taken once).
    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>>;
}
