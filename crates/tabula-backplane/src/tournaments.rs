//! The tournament store: each tournament's state and its inbox, behind
//! [`TournamentStore`].
//!
//! Ownership is the room store's: a tournament is owned under the room
//! machinery's lease and fencing, by the id [`tournament_key`] gives it
//! (`tour~ID`, which no room id can be: room ids are drawn hex or
//! `tournament:round:board` game ids). [`RoomStore::claim`](crate::RoomStore::claim)
//! takes it, [`RoomStore::orphans`](crate::RoomStore::orphans) lists it when
//! its owner dies or released it with `needs_owner`, and the writes below
//! are fenced by the epoch of that claim, so a deposed owner cannot write
//! the state after its successor.
//!
//! The inbox is what other nodes tell a tournament (a game's result, a
//! player's arrival, a join from an HTTP route on any node): entries keyed
//! by an idempotent key (`result:GAME`…), posted once (a second post of the
//! same key while it waits is refused), read by the owner, which applies
//! them, writes the state, and only then acknowledges them (deletes them,
//! fenced). An entry applied twice (the owner died between the write and
//! the acknowledgement) is refused by the tournament core as a duplicate.

use futures_util::future::BoxFuture;

use crate::Result;

/// The id under which a tournament is owned in the room store.
pub fn tournament_key(id: &str) -> String {
    format!("tour~{id}")
}

/// The tournament whose ownership id this is, if it is one.
pub fn tournament_of(key: &str) -> Option<&str> {
    key.strip_prefix("tour~")
}

/// Tournaments' state and inboxes (ownership is the room store's, by
/// [`tournament_key`]).
pub trait TournamentStore: Send + Sync + std::fmt::Debug + 'static {
    /// Lists a new tournament in the directory of tournaments; `false` if
    /// the id is taken.
    fn register_tournament(&self, id: &str, created_ms: u64) -> BoxFuture<'_, Result<bool>>;

    /// Every tournament's id, oldest first.
    fn tournament_ids(&self) -> BoxFuture<'_, Result<Vec<String>>>;

    /// Stores a tournament's state (its core's JSON), fenced by the epoch
    /// of the claim of [`tournament_key`]: refused
    /// [`BackplaneError::Fenced`](crate::BackplaneError::Fenced) unless this
    /// node owns it with `epoch`.
    fn save_tournament(&self, id: &str, epoch: u64, state: String) -> BoxFuture<'_, Result<()>>;

    /// The latest stored state.
    fn load_tournament(&self, id: &str) -> BoxFuture<'_, Result<Option<String>>>;

    /// Posts an entry (an input's JSON) to a tournament's inbox under
    /// `key`; `false` when an entry of that key is already waiting.
    fn post_tournament(&self, id: &str, key: &str, entry: String) -> BoxFuture<'_, Result<bool>>;

    /// The entries waiting in a tournament's inbox, in key order.
    fn tournament_inbox(&self, id: &str) -> BoxFuture<'_, Result<Vec<(String, String)>>>;

    /// Deletes applied entries, fenced like [`TournamentStore::save_tournament`].
    fn ack_tournament(&self, id: &str, epoch: u64, keys: Vec<String>) -> BoxFuture<'_, Result<()>>;
}
