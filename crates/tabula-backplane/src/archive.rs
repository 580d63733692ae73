//! The archive: finished games' records and players' statistics, behind
//! [`Archive`].
//!
//! A room's records are forgotten with the room
//! ([`RoomStore::release_idle`](crate::RoomStore::release_idle)); a
//! player's statistics are kept.

use futures_util::future::BoxFuture;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};

use crate::Result;

/// Finished-game records and player statistics.
pub trait Archive: Send + Sync + std::fmt::Debug + 'static {
    /// Stores a finished game's record (opaque JSON), keyed by room and
    /// game number.
    fn save_record(&self, room: &str, game: u32, record: String) -> BoxFuture<'_, Result<()>>;

    /// The stored records of a room, by game number.
    fn records(&self, room: &str) -> BoxFuture<'_, Result<Vec<String>>>;

    /// Adds a finished game's delta to a player's statistics.
    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>>;

    /// A player's statistics (empty if none).
    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>>;
}
