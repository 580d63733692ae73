//! [`Archive`] in memory: records by room and game, statistics,
//! unfinished games and profiles by player.

use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};

use super::{InProcess, State, ready};
use crate::{
    Archive, ArchiveBacklog, MAX_PROFILES, MAX_UNFINISHED, ProfilePart, Result, StoredProfile,
};

/// `keep` from `now`, or a century when that does not fit an `Instant`.
fn until(now: Instant, keep: Duration) -> Instant {
    now.checked_add(keep)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

impl State {
    /// Makes room for one more profile: past [`MAX_PROFILES`], those
    /// whose keep is over go, then the one whose keep ends first.
    fn bound_profiles(&mut self, now: Instant) {
        if self.profiles.len() < MAX_PROFILES {
            return;
        }
        self.profiles.retain(|_, (_, until)| *until > now);
        while self.profiles.len() >= MAX_PROFILES {
            let first = self
                .profiles
                .iter()
                .min_by_key(|(_, (_, until))| *until)
                .map(|(p, _)| p.clone());
            match first {
                Some(p) => self.profiles.remove(&p),
                None => break,
            };
        }
    }
}

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

    fn queue_archive(&self, key: &str, entry: String) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            if s.archive.contains_key(key) {
                return;
            }
            let place = s.archive_next;
            s.archive_next += 1;
            s.archive_order.insert(place, key.to_string());
            s.archive
                .insert(key.to_string(), (place, entry, super::now_ms()));
        });
        ready(Ok(()))
    }

    /// The queue is in this process's memory: a crash loses it.
    fn queue_outlives_process(&self) -> bool {
        false
    }

    fn archive_queue(&self, limit: usize) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        ready(Ok(self.with(|s| {
            s.archive_order
                .values()
                .take(limit)
                .filter_map(|k| s.archive.get(k).map(|e| (k.clone(), e.1.clone())))
                .collect()
        })))
    }

    fn archived(&self, key: &str) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            if let Some((place, ..)) = s.archive.remove(key) {
                s.archive_order.remove(&place);
            }
        });
        ready(Ok(()))
    }

    fn archive_backlog(&self) -> BoxFuture<'_, Result<ArchiveBacklog>> {
        ready(Ok(self.with(|s| ArchiveBacklog {
            games: s.archive.len() as u64,
            oldest_ms: s
                .archive_order
                .values()
                .next()
                .and_then(|k| s.archive.get(k))
                .map(|e| e.2),
        })))
    }

    fn claim_archive_drain(&self, holder: &str, lease: Duration) -> BoxFuture<'_, Result<bool>> {
        let now = Instant::now();
        ready(Ok(self.with(|s| match &s.archive_drain {
            Some((other, until)) if other != holder && *until > now => false,
            _ => {
                s.archive_drain = Some((holder.to_string(), until(now, lease)));
                true
            }
        })))
    }

    fn release_archive_drain(&self, holder: &str) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            if s.archive_drain.as_ref().is_some_and(|(h, _)| h == holder) {
                s.archive_drain = None;
            }
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

    fn forget_stats(&self, player: &str) -> BoxFuture<'_, Result<()>> {
        self.with(|s| s.stats.remove(player));
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

    fn profile(&self, player: &str) -> BoxFuture<'_, Result<StoredProfile>> {
        let now = Instant::now();
        ready(Ok(self.with(|s| match s.profiles.get(player) {
            Some((p, until)) if *until > now => p.clone(),
            _ => StoredProfile::default(),
        })))
    }

    fn set_profile(
        &self,
        player: &str,
        part: ProfilePart,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        let now = Instant::now();
        self.with(|s| {
            let mut p = match s.profiles.remove(player) {
                Some((p, until)) if until > now => p,
                _ => StoredProfile::default(),
            };
            match part {
                ProfilePart::Telegram => p.telegram = value,
                ProfilePart::Name => p.name = value,
            }
            if !p.is_empty() {
                s.bound_profiles(now);
                s.profiles.insert(player.to_string(), (p, until(now, keep)));
            }
        });
        ready(Ok(()))
    }

    fn keep_profile(&self, player: &str, keep: Duration) -> BoxFuture<'_, Result<()>> {
        let now = Instant::now();
        self.with(|s| {
            if let Some((_, until)) = s.profiles.get_mut(player)
                && *until > now
            {
                *until = self::until(now, keep);
            }
        });
        ready(Ok(()))
    }
}
