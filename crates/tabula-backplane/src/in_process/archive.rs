//! [`Archive`] in memory: records by room and game, statistics by player.

use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};

use super::{InProcess, ready};
use crate::{Archive, MAX_UNFINISHED, Result};

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

    fn set_unfinished(
        &self,
        player: &str,
        room: &str,
        game: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        let now = Instant::now();
        self.with(|s| {
            let list = s.unfinished.entry(player.to_string()).or_default();
            list.retain(|_, (_, until)| *until > now);
            match game {
                Some(g) => {
                    list.insert(room.into(), (g, now + keep));
                    // The oldest listed go first beyond the bound.
                    while list.len() > MAX_UNFINISHED {
                        let oldest = list
                            .iter()
                            .min_by_key(|(_, (_, until))| *until)
                            .map(|(r, _)| r.clone());
                        match oldest {
                            Some(r) => list.remove(&r),
                            None => break,
                        };
                    }
                }
                None => {
                    list.remove(room);
                }
            }
            if list.is_empty() {
                s.unfinished.remove(player);
            }
        });
        ready(Ok(()))
    }

    fn unfinished(&self, player: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        let now = Instant::now();
        ready(Ok(self.with(|s| {
            s.unfinished
                .get(player)
                .map(|l| {
                    l.values()
                        .filter(|(_, until)| *until > now)
                        .map(|(g, _)| g.clone())
                        .collect()
                })
                .unwrap_or_default()
        })))
    }
}
