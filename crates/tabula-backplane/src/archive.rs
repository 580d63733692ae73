//! The archive: finished games' records and players' statistics, behind
//! [`Archive`].
//!
//! A room's records are forgotten with the room
//! ([`RoomStore::release_idle`](crate::RoomStore::release_idle)); a
//! player's statistics are kept. Each player's unfinished games (games
//! against a bot waiting for him) are listed for the lobby's "Continue".
//! A player's profile (what others see of him: his name) is kept in two
//! parts, each written alone so neither overwrites the other: what his
//! last Telegram login said, and the name he chose.
//!
//! The **archive queue** holds each finished game on its way to the
//! durable store (`tabula-store`): the room queues the game when it ends
//! (the whole entry, record included, so the queue needs nothing else
//! that may expire); an archiver takes the oldest, stores them and only
//! then takes each off with [`Archive::archived`]. The queue never
//! expires: a game waits there, whatever happens to its room, until it is
//! archived. One node at a time drains it, under a lease
//! ([`Archive::claim_archive_drain`]).

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

    /// Deletes a player's statistics (his "delete my data").
    fn forget_stats(&self, player: &str) -> BoxFuture<'_, Result<()>>;

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

    /// Queues a finished game for the durable store: `entry` (opaque
    /// JSON) under `key` (the game's `room#number`). Queuing a key that
    /// is queued already changes nothing: the first entry and its place
    /// are kept (a room restored after a crash queues its last game again,
    /// from a state that may have lost a seat since; the entry made at the
    /// game's end is the one to keep). Nothing in the queue
    /// expires.
    fn queue_archive(&self, key: &str, entry: String) -> BoxFuture<'_, Result<()>>;

    /// Whether the archive queue outlives this process (Redis: yes; the
    /// in-process backplane's, in memory: no). Where it does not, a node
    /// writes a finished game into the durable store itself before it
    /// announces the end, the queue only its fallback
    /// ([`queue_archive`](Archive::queue_archive)).
    fn queue_outlives_process(&self) -> bool;

    /// Up to `limit` queued games, oldest first, as `(key, entry)`.
    fn archive_queue(&self, limit: usize) -> BoxFuture<'_, Result<Vec<(String, String)>>>;

    /// Takes `key` off the queue: it is archived (a key not queued is not
    /// an error).
    fn archived(&self, key: &str) -> BoxFuture<'_, Result<()>>;

    /// Takes each of `keys` off the queue, as [`Archive::archived`] does
    /// one: an archiver's whole batch in one call.
    fn archived_many(&self, keys: &[String]) -> BoxFuture<'_, Result<()>> {
        let keys = keys.to_vec();
        Box::pin(async move {
            for key in &keys {
                self.archived(key).await?;
            }
            Ok(())
        })
    }

    /// How many games wait in the queue, and since when the oldest.
    fn archive_backlog(&self) -> BoxFuture<'_, Result<ArchiveBacklog>>;

    /// Takes, or keeps, the queue's **drain** for `holder` (a node id) for
    /// `lease` from now: `true` while `holder` is the one node that
    /// archives and rates; `false` while another holder's lease runs.
    /// One drainer at a time means disjoint batches (no two nodes store
    /// the same games) and one rater; a holder that dies is replaced once
    /// its lease runs out.
    fn claim_archive_drain(&self, holder: &str, lease: Duration) -> BoxFuture<'_, Result<bool>>;

    /// Gives up the drain if `holder` holds it (a stopping node's), so
    /// another node takes it at its next round rather than after the
    /// lease.
    fn release_archive_drain(&self, holder: &str) -> BoxFuture<'_, Result<()>>;

    /// `player`'s stored profile (both parts `None` when nothing is stored
    /// or its keep ran out).
    fn profile(&self, player: &str) -> BoxFuture<'_, Result<StoredProfile>>;

    /// The stored profiles of `players`, in their order (at most a few
    /// dozen: one call each, concurrently).
    fn profiles(&self, players: &[String]) -> BoxFuture<'_, Result<Vec<StoredProfile>>> {
        let calls: Vec<_> = players.iter().map(|p| self.profile(p)).collect();
        Box::pin(futures_util::future::try_join_all(calls))
    }

    /// Writes one part of `player`'s profile (`None` clears it), leaving
    /// the other as it is; the whole profile is then kept for `keep` from
    /// now. A profile with neither part is gone.
    fn set_profile(
        &self,
        player: &str,
        part: ProfilePart,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>>;

    /// Keeps `player`'s stored profile, if any, for `keep` from now (a
    /// returning player's); nothing is written when none is stored.
    fn keep_profile(&self, player: &str, keep: Duration) -> BoxFuture<'_, Result<()>>;
}

/// The archive queue's length, as [`Archive::archive_backlog`] reads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArchiveBacklog {
    /// Games waiting.
    pub games: u64,
    /// When the oldest was queued (ms since the epoch); `None` when none
    /// waits.
    pub oldest_ms: Option<u64>,
}

/// A part of a player's stored profile, each opaque to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProfilePart {
    /// What the player's latest Telegram login said (the node's JSON).
    Telegram,
    /// The name the player chose.
    Name,
}

/// A player's stored profile, as [`Archive::profile`] reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredProfile {
    /// [`ProfilePart::Telegram`].
    pub telegram: Option<String>,
    /// [`ProfilePart::Name`].
    pub name: Option<String>,
}

impl StoredProfile {
    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.telegram.is_none() && self.name.is_none()
    }
}

/// The most profiles the in-process store holds: beyond it, the one
/// whose keep ends first goes (a Redis backplane is bounded by the keeps
/// alone).
pub const MAX_PROFILES: usize = 100_000;

/// The most unfinished games listed per player: the store drops the
/// oldest beyond it (a player who keeps leaving games against bots cannot
/// grow his list without bound).
pub const MAX_UNFINISHED: usize = 20;
