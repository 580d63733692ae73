//! [`Archive`] in memory: records by room and game, statistics by player.

use futures_util::future::BoxFuture;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};

use super::{InProcess, ready};
use crate::{Archive, Result};

impl Archive for InProcess {
    fn save_record(&self, room: &str, game: u32, record: String) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            s.records
                .entry(room.to_string())
                .or_default()
                .insert(game, record)
        });
        ready(Ok(()))
    }

    fn records(&self, room: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        ready(Ok(self.with(|s| {
            s.records
                .get(room)
                .map(|m| m.values().cloned().collect())
                .unwrap_or_default()
        })))
    }

    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>> {
        self.with(|s| s.stats.entry(player.0).or_default().record(&delta));
        ready(Ok(()))
    }

    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>> {
        ready(Ok(
            self.with(|s| s.stats.get(player).cloned().unwrap_or_default())
        ))
    }
}
