//! The archive: finished games' records and players' statistics, behind
//! [`Archive`].
//!
//! A room's records are forgotten with the room
//! ([`RoomStore::release_idle`](crate::RoomStore::release_idle)); a
//! player's statistics are kept. Each player's unfinished games (games
//! against a bot waiting for him) are listed for the lobby's "Continue".

use std::time::Duration;

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

    /// Lists `room` among `player`'s unfinished games with `game` (opaque
    /// JSON), replacing what was listed for it, for `keep`; `None` takes it
    /// off the list.
    fn set_unfinished(
        &self,
        player: &str,
        room: &str,
        game: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>>;

    /// `player`'s unfinished games listed within their keep, at most
    /// [`MAX_UNFINISHED`], in no particular order.
    fn unfinished(&self, player: &str) -> BoxFuture<'_, Result<Vec<String>>>;
}

/// The most unfinished games listed per player: the store drops the
/// oldest beyond it (a player who keeps leaving games against bots cannot
/// grow his list without bound).
pub const MAX_UNFINISHED: usize = 20;
