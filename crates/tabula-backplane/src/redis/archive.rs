//! [`Archive`] on Redis: a room's records are a hash in the room's slot
//! (so they expire with it); a player's statistics are one JSON string,
//! updated by compare-and-set; his unfinished games and his profile are
//! one hash each. The archive queue is a hash of entries and a sorted set
//! of their order, both in the `{archive}` slot (one script writes both),
//! with no expiry.

use std::collections::HashMap;
use std::time::Duration;

use deadpool_redis::redis;
use futures_util::future::BoxFuture;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};

use super::{CAS_RETRIES, RedisBackplane, corrupt, now_ms, parse, to_json, unavailable};
use crate::{Archive, ArchiveBacklog, MAX_UNFINISHED, ProfilePart, Result, StoredProfile};

/// An unfinished game's field value: `until_ms|json`.
fn listed(value: &str) -> Option<(u64, &str)> {
    let (until, json) = value.split_once('|')?;
    Some((until.parse().ok()?, json))
}

impl RedisBackplane {
    async fn stats_inner(&self, player: &str) -> Result<(String, PlayerStats)> {
        let raw: Option<String> = self
            .q(redis::cmd("GET").arg(self.stats_key(player)))
            .await?;
        match raw {
            Some(s) => {
                let st = parse("player stats", &s)?;
                Ok((s, st))
            }
            None => Ok((String::new(), PlayerStats::default())),
        }
    }

    async fn record_stats_inner(&self, player: PlayerId, delta: PlayerDelta) -> Result<()> {
        // Optimistic: read, add in Rust (PlayerStats::record is the one
        // definition of the accumulation), compare-and-set in Lua (one
        // key, so it works on a cluster where MULTI cannot be routed).
        let key = self.stats_key(&player.0);
        for _ in 0..CAS_RETRIES {
            let (old, mut st) = self.stats_inner(&player.0).await?;
            st.record(&delta);
            let new = to_json(&st)?;
            let ok: i64 = self.eval(&self.scripts.cas, &[&key], &[&old, &new]).await?;
            if ok == 1 {
                return Ok(());
            }
            tokio::task::yield_now().await;
        }
        Err(unavailable(format!(
            "stats of {} kept being raced",
            player.0
        )))
    }
}

impl RedisBackplane {
    /// The player's listed games, the live ones (room, until, JSON) and
    /// the fields to drop: past their time, or the oldest beyond
    /// [`MAX_UNFINISHED`].
    async fn unfinished_inner(
        &self,
        player: &str,
    ) -> Result<(Vec<(String, u64, String)>, Vec<String>)> {
        let all: HashMap<String, String> = self
            .q(redis::cmd("HGETALL").arg(self.unfinished_key(player)))
            .await?;
        let now = now_ms();
        let mut live = Vec::new();
        let mut dead = Vec::new();
        for (room, v) in all {
            match listed(&v) {
                Some((until, json)) if until > now => live.push((room, until, json.to_string())),
                _ => dead.push(room),
            }
        }
        live.sort_by_key(|l| std::cmp::Reverse(l.1));
        for (room, ..) in live.split_off(live.len().min(MAX_UNFINISHED)) {
            dead.push(room);
        }
        Ok((live, dead))
    }

    async fn set_unfinished_inner(
        &self,
        player: &str,
        room: &str,
        game: Option<String>,
        keep: Duration,
    ) -> Result<()> {
        let key = self.unfinished_key(player);
        match game {
            Some(g) => {
                let keep_ms = u64::try_from(keep.as_millis()).unwrap_or(u64::MAX).max(1);
                let value = format!("{}|{g}", now_ms().saturating_add(keep_ms));
                self.q::<()>(redis::cmd("HSET").arg(&key).arg(room).arg(value))
                    .await?;
                // The key lives as long as its newest entry.
                self.q::<()>(redis::cmd("PEXPIRE").arg(&key).arg(keep_ms))
                    .await?;
            }
            None => {
                self.q::<()>(redis::cmd("HDEL").arg(&key).arg(room)).await?;
            }
        }
        let (_, dead) = self.unfinished_inner(player).await?;
        if !dead.is_empty() {
            self.q::<()>(redis::cmd("HDEL").arg(&key).arg(&dead))
                .await?;
        }
        Ok(())
    }
}

/// A profile part's field in `P:profile:{player}`.
fn field(part: ProfilePart) -> &'static str {
    match part {
        ProfilePart::Telegram => "tg",
        ProfilePart::Name => "name",
    }
}

fn keep_ms(keep: Duration) -> u64 {
    u64::try_from(keep.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl RedisBackplane {
    async fn profile_inner(&self, player: &str) -> Result<StoredProfile> {
        let mut all: HashMap<String, String> = self
            .q(redis::cmd("HGETALL").arg(self.profile_key(player)))
            .await?;
        Ok(StoredProfile {
            telegram: all.remove(field(ProfilePart::Telegram)),
            name: all.remove(field(ProfilePart::Name)),
        })
    }

    async fn set_profile_inner(
        &self,
        player: &str,
        part: ProfilePart,
        value: Option<String>,
        keep: Duration,
    ) -> Result<()> {
        let key = self.profile_key(player);
        match value {
            Some(v) => {
                self.q::<()>(redis::cmd("HSET").arg(&key).arg(field(part)).arg(v))
                    .await?
            }
            // A hash left without fields is deleted by Redis itself.
            None => {
                self.q::<()>(redis::cmd("HDEL").arg(&key).arg(field(part)))
                    .await?
            }
        }
        self.q::<()>(redis::cmd("PEXPIRE").arg(&key).arg(keep_ms(keep)))
            .await
    }
}

impl Archive for RedisBackplane {
    fn save_record(&self, room: &str, game: u32, record: String) -> BoxFuture<'_, Result<()>> {
        let key = self.records_key(room);
        Box::pin(async move {
            self.q::<()>(redis::cmd("HSET").arg(&key).arg(game).arg(record))
                .await
        })
    }

    fn queue_archive(&self, key: &str, entry: String) -> BoxFuture<'_, Result<()>> {
        let key = key.to_string();
        Box::pin(async move {
            let keys = [self.archive_entries_key(), self.archive_order_key()];
            let _: i64 = self
                .eval(
                    &self.scripts.queue_archive,
                    &[&keys[0], &keys[1]],
                    &[&key, &entry, &now_ms().to_string()],
                )
                .await?;
            Ok(())
        })
    }

    /// The queue is in Redis: it outlives any node (as far as Redis's own
    /// persistence keeps it; see docs/operations.md).
    fn queue_outlives_process(&self) -> bool {
        true
    }

    fn archive_queue(&self, limit: usize) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        Box::pin(async move {
            if limit == 0 {
                return Ok(Vec::new());
            }
            let keys: Vec<String> = self
                .q(redis::cmd("ZRANGE")
                    .arg(self.archive_order_key())
                    .arg(0)
                    .arg(limit.saturating_sub(1)))
                .await?;
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let entries: Vec<Option<String>> = self
                .q(redis::cmd("HMGET")
                    .arg(self.archive_entries_key())
                    .arg(&keys))
                .await?;
            // The script writes both together, so a key without its entry
            // is only one being taken off right now: skipped.
            Ok(keys
                .into_iter()
                .zip(entries)
                .filter_map(|(k, e)| e.map(|e| (k, e)))
                .collect())
        })
    }

    fn archived(&self, key: &str) -> BoxFuture<'_, Result<()>> {
        let key = key.to_string();
        Box::pin(async move {
            let keys = [self.archive_entries_key(), self.archive_order_key()];
            let _: i64 = self
                .eval(&self.scripts.archived, &[&keys[0], &keys[1]], &[&key])
                .await?;
            Ok(())
        })
    }

    fn archived_many(&self, keys: &[String]) -> BoxFuture<'_, Result<()>> {
        let keys = keys.to_vec();
        Box::pin(async move {
            let queue = [self.archive_entries_key(), self.archive_order_key()];
            // Lua's unpack takes a few thousand values: a batch at a time.
            for chunk in keys.chunks(1000) {
                let args: Vec<&str> = chunk.iter().map(String::as_str).collect();
                let _: i64 = self
                    .eval(&self.scripts.archived_many, &[&queue[0], &queue[1]], &args)
                    .await?;
            }
            Ok(())
        })
    }

    fn archive_backlog(&self) -> BoxFuture<'_, Result<ArchiveBacklog>> {
        Box::pin(async move {
            let order = self.archive_order_key();
            let games: u64 = self.q(redis::cmd("ZCARD").arg(&order)).await?;
            let first: Vec<(String, f64)> = self
                .q(redis::cmd("ZRANGE")
                    .arg(&order)
                    .arg(0)
                    .arg(0)
                    .arg("WITHSCORES"))
                .await?;
            Ok(ArchiveBacklog {
                games,
                oldest_ms: first.first().map(|(_, ms)| *ms as u64),
            })
        })
    }

    fn claim_archive_drain(&self, holder: &str, lease: Duration) -> BoxFuture<'_, Result<bool>> {
        let holder = holder.to_string();
        Box::pin(async move {
            let key = self.archive_drainer_key();
            let ms = u64::try_from(lease.as_millis()).unwrap_or(u64::MAX).max(1);
            let held: i64 = self
                .eval(
                    &self.scripts.claim_drain,
                    &[&key],
                    &[&holder, &ms.to_string()],
                )
                .await?;
            Ok(held == 1)
        })
    }

    fn release_archive_drain(&self, holder: &str) -> BoxFuture<'_, Result<()>> {
        let holder = holder.to_string();
        Box::pin(async move {
            let key = self.archive_drainer_key();
            let _: i64 = self
                .eval(&self.scripts.release_drain, &[&key], &[&holder])
                .await?;
            Ok(())
        })
    }

    fn records(&self, room: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        let key = self.records_key(room);
        Box::pin(async move {
            let all: std::collections::BTreeMap<String, String> =
                self.q(redis::cmd("HGETALL").arg(&key)).await?;
            let mut v = all
                .into_iter()
                .map(|(g, r)| {
                    g.parse::<u32>()
                        .map(|g| (g, r))
                        .map_err(|e| corrupt("game number", e))
                })
                .collect::<Result<Vec<_>>>()?;
            v.sort_by_key(|(g, _)| *g);
            Ok(v.into_iter().map(|(_, r)| r).collect())
        })
    }

    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>> {
        Box::pin(self.record_stats_inner(player, delta))
    }

    fn forget_stats(&self, player: &str) -> BoxFuture<'_, Result<()>> {
        let key = self.stats_key(player);
        Box::pin(async move { self.q::<()>(redis::cmd("DEL").arg(&key)).await })
    }

    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>> {
        let player = player.to_string();
        Box::pin(async move { self.stats_inner(&player).await.map(|(_, s)| s) })
    }

    fn set_unfinished(
        &self,
        player: &str,
        room: &str,
        game: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        let (player, room) = (player.to_string(), room.to_string());
        Box::pin(async move { self.set_unfinished_inner(&player, &room, game, keep).await })
    }

    fn unfinished(&self, player: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        let player = player.to_string();
        Box::pin(async move {
            let (live, _) = self.unfinished_inner(&player).await?;
            Ok(live.into_iter().map(|(.., json)| json).collect())
        })
    }

    fn profile(&self, player: &str) -> BoxFuture<'_, Result<StoredProfile>> {
        let player = player.to_string();
        Box::pin(async move { self.profile_inner(&player).await })
    }

    fn set_profile(
        &self,
        player: &str,
        part: ProfilePart,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        let player = player.to_string();
        Box::pin(async move { self.set_profile_inner(&player, part, value, keep).await })
    }

    fn keep_profile(&self, player: &str, keep: Duration) -> BoxFuture<'_, Result<()>> {
        let key = self.profile_key(player);
        // PEXPIRE of a missing key does nothing.
        Box::pin(async move {
            self.q::<()>(redis::cmd("PEXPIRE").arg(&key).arg(keep_ms(keep)))
                .await
        })
    }
}
