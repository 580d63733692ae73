//! The archiver: finished games from the backplane's archive queue into
//! the durable store (`tabula-store`), then the ratings of rated ones.
//!
//! 1. A room whose game ends queues a [`QueuedGame`] (the record, the
//!    seats, the match, rated or not, each seat's statistics) under
//!    `room#number` ([`tabula_backplane::Archive::queue_archive`]), retried until the
//!    backplane has it, and wakes this node's archiver.
//! 2. The archiver ([`run`]) takes the oldest games off the queue, stores
//!    each ([`tabula_store::Games::archive`]: idempotent by room and number, so two
//!    nodes' archivers taking the same game, or a retry, store it once),
//!    and only then takes it off the queue ([`tabula_backplane::Archive::archived`]).
//! 3. Then it applies the ratings still pending, oldest first
//!    ([`tabula_store::Games::pending_ratings`]): both players' stored ratings, the new
//!    ones from [`rate::rate`], written with the game marked applied in
//!    one transaction ([`tabula_store::Ratings::apply_rated_game`]: at most once; a
//!    rating moved meanwhile is refused and recomputed).
//!
//! The database being down or slow holds up nothing but this loop: rooms
//! only ever write to the backplane. Games wait in the queue
//! (`tabula_archive_backlog_games`, `tabula_archive_lag_seconds`) and are
//! archived when it is back. A node whose store cannot be reached at
//! start-up serves games all the same and keeps trying to connect.
//!
//! Architecture Invariant: a game leaves the archive queue only after the
//! durable store has it (stored now or before), or when it can never be
//! stored (a corrupt entry, or one the store refuses as invalid: logged
//! and counted as `refused`).

pub mod queued;
pub mod rate;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tabula_backplane::Backplane;
use tabula_store::{Applied, Archived, DurableStore, Store, StoreConfig, StoreError};
use tokio::sync::Notify;

pub use queued::{QueuedGame, QueuedSeat};

use crate::AppState;
use crate::metrics::Metrics;

/// The node's durable store, once connected, and the archiver's bell.
#[derive(Default)]
pub struct Durable {
    configured: bool,
    store: OnceLock<Arc<dyn DurableStore>>,
    wake: Notify,
}

impl std::fmt::Debug for Durable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Durable")
            .field("configured", &self.configured)
            .field("connected", &self.store.get().is_some())
            .finish()
    }
}

/// Why the durable store cannot answer now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoDurable {
    /// None is configured (`store.url` empty).
    NotConfigured,
    /// Configured, not connected yet (the database is down or starting).
    Connecting,
}

impl Durable {
    /// A handle for a node with (`configured`) or without a store.
    pub fn new(configured: bool) -> Durable {
        Durable {
            configured,
            ..Durable::default()
        }
    }

    /// A handle already holding `store` (tests).
    pub fn with(store: Arc<dyn DurableStore>) -> Durable {
        let d = Durable::new(true);
        let _ = d.store.set(store);
        d
    }

    /// Whether a store is configured: rooms queue their games only then.
    pub fn configured(&self) -> bool {
        self.configured
    }

    /// The store, if connected.
    pub fn get(&self) -> Result<&Arc<dyn DurableStore>, NoDurable> {
        match self.store.get() {
            Some(s) => Ok(s),
            None if self.configured => Err(NoDurable::Connecting),
            None => Err(NoDurable::NotConfigured),
        }
    }

    /// Tells the archiver a game was queued.
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}

/// Writes what a login says about `player` into the durable store's
/// profile (issue 24: refreshed at each login), in the background: a
/// store that is down costs the refresh, never the login. Only a login
/// with Telegram's signed `initData` or a player without a stored
/// profile writes (a guest's socket does not write at every connect).
pub fn refresh_profile(
    state: &AppState,
    player: &tabula_room::PlayerId,
    telegram: Option<&tabula_auth::TelegramProfile>,
    language: Option<String>,
) {
    profile_then_name(state, player, telegram, language, None);
}

/// Writes the name `player` chose (`None`: forgets it) into the durable
/// store's profile, after what his login says (a profile is made first
/// when he has none, so the name is never lost).
pub fn chosen_name(
    state: &AppState,
    player: &tabula_room::PlayerId,
    telegram: Option<&tabula_auth::TelegramProfile>,
    language: Option<String>,
    name: Option<String>,
) {
    profile_then_name(state, player, telegram, language, Some(name));
}

fn profile_then_name(
    state: &AppState,
    player: &tabula_room::PlayerId,
    telegram: Option<&tabula_auth::TelegramProfile>,
    language: Option<String>,
    name: Option<Option<String>>,
) {
    let Ok(store) = state.durable.get().cloned() else {
        return;
    };
    let update = tabula_store::ProfileUpdate {
        player: player.0.clone(),
        display_name: telegram
            .and_then(|t| t.name.clone().or_else(|| t.username.clone()))
            .unwrap_or_else(|| tabula_auth::generated_name(&player.0)),
        username: telegram.and_then(|t| t.username.clone()),
        photo_url: telegram.and_then(|t| t.photo_url.clone()),
        language,
    };
    let fresh = telegram.is_some();
    actix_rt::spawn(async move {
        let stored = matches!(store.profile(&update.player).await, Ok(Some(_)));
        if (fresh || !stored)
            && let Err(e) = store.upsert_profile(&update).await
        {
            tracing::warn!(player = %update.player, error = %e, "durable profile not refreshed");
            return;
        }
        if let Some(name) = name
            && let Err(e) = store.set_chosen_name(&update.player, name.as_deref()).await
        {
            tracing::warn!(player = %update.player, error = %e, "durable chosen name not written");
        }
    });
}

/// Connects the configured store (retrying while the database is down),
/// then archives and rates until the node drains.
pub async fn run(state: Arc<AppState>) {
    let settings = state.settings.store.clone();
    if !settings.enabled() {
        return;
    }
    let mut shutdown = state.shutdown_rx.clone();
    let config = StoreConfig {
        url: settings.url.clone(),
        max_connections: settings.max_connections,
        acquire_timeout_ms: settings.acquire_timeout_ms,
        ..StoreConfig::default()
    };
    let mut backoff = Duration::from_millis(200);
    loop {
        if state.durable.store.get().is_some() {
            break;
        }
        match Store::connect_with(&config).await {
            Ok(store) => {
                tracing::info!(store = %settings.scheme(), "durable store connected");
                let _ = state.durable.store.set(Arc::new(store));
                break;
            }
            Err(e) => {
                state
                    .metrics
                    .store_errors
                    .with_label_values(&["connect"])
                    .inc();
                tracing::warn!(store = %settings.scheme(), error = %e, "durable store not reached; retrying");
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = shutdown.changed() => return,
        }
        backoff = (backoff * 2).min(Duration::from_secs(10));
    }
    let Ok(store) = state.durable.get().cloned() else {
        return;
    };
    let interval = Duration::from_millis(settings.archive_interval_ms);
    let mut failures = 0u32;
    loop {
        let done = archive_batch(
            state.backplane.as_ref(),
            store.as_ref(),
            &state.metrics,
            settings.archive_batch,
        )
        .await;
        let rated = rate_pending(store.as_ref(), &state.metrics).await;
        backlog(state.backplane.as_ref(), &state.metrics).await;
        let wait = match (done, rated) {
            // A full batch: more may wait.
            (Ok(n), Ok(())) if n >= settings.archive_batch => {
                failures = 0;
                continue;
            }
            (Ok(_), Ok(())) => {
                failures = 0;
                interval
            }
            // The store or the backplane failed: back off, up to 10 s.
            _ => {
                failures = failures.saturating_add(1);
                (interval * failures.min(10)).min(Duration::from_secs(10))
            }
        };
        tokio::select! {
            _ = state.durable.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// Archives up to `batch` queued games, oldest first; how many were taken
/// off the queue. Stops at the first failure of the store or the
/// backplane (the rest wait for the next round).
pub async fn archive_batch(
    bp: &dyn Backplane,
    store: &dyn DurableStore,
    metrics: &Metrics,
    batch: usize,
) -> Result<usize, ()> {
    let items = bp.archive_queue(batch).await.map_err(|e| {
        metrics
            .backplane_errors
            .with_label_values(&["archive_queue"])
            .inc();
        tracing::warn!(error = %e, "archive queue not read");
    })?;
    let mut taken = 0;
    for (key, entry) in items {
        let finished = serde_json::from_str::<QueuedGame>(&entry)
            .map_err(|e| e.to_string())
            .and_then(|q| q.finished());
        let outcome = match finished {
            Err(why) => {
                tracing::error!(key = %key, why = %why, "a queued game cannot be archived; dropped");
                "refused"
            }
            Ok(game) => match store.archive(&game).await {
                Ok(Archived::Stored) => "stored",
                Ok(Archived::AlreadyStored) => "already_stored",
                Err(StoreError::Invalid(why)) => {
                    tracing::error!(key = %key, why = %why, "the store refused a queued game; dropped");
                    "refused"
                }
                Err(e) => {
                    metrics.store_errors.with_label_values(&["archive"]).inc();
                    tracing::warn!(key = %key, error = %e, "game not archived yet");
                    return Err(());
                }
            },
        };
        if let Err(e) = bp.archived(&key).await {
            metrics
                .backplane_errors
                .with_label_values(&["archived"])
                .inc();
            tracing::warn!(key = %key, error = %e, "archived game not taken off the queue yet");
            return Err(());
        }
        metrics.archived.with_label_values(&[outcome]).inc();
        taken += 1;
    }
    Ok(taken)
}

/// Applies the ratings of archived rated games still pending, oldest
/// first, a batch at a time.
pub async fn rate_pending(store: &dyn DurableStore, metrics: &Metrics) -> Result<(), ()> {
    let fail = |op: &'static str, e: StoreError| {
        metrics.store_errors.with_label_values(&[op]).inc();
        tracing::warn!(op, error = %e, "ratings not applied yet");
    };
    let keys = store
        .pending_ratings(32)
        .await
        .map_err(|e| fail("pending_ratings", e))?;
    for key in keys {
        let Some(stored) = store.game(&key).await.map_err(|e| fail("game", e))? else {
            continue;
        };
        let game = stored.game;
        let (Some(a), Some(b)) = (game.seats[0].player(), game.seats[1].player()) else {
            // The store lists only games with two players; never reached.
            continue;
        };
        // A rating moved by another game meanwhile: read again, recompute.
        for _ in 0..4 {
            let ra = store
                .rating(a, game.kind)
                .await
                .map_err(|e| fail("rating", e))?;
            let rb = store
                .rating(b, game.kind)
                .await
                .map_err(|e| fail("rating", e))?;
            let updates = match rate::rate(&game, ra.as_ref(), rb.as_ref()) {
                Ok(u) => u,
                Err(why) => {
                    // It never will be: settled with no change, so it does
                    // not hold a place ahead of every later game.
                    tracing::error!(game = %key, why = %why, "a rated game cannot be rated; settled unrated");
                    match store.settle_unrateable(&key).await {
                        Ok(_) => metrics
                            .ratings_applied
                            .with_label_values(&["unrateable"])
                            .inc(),
                        Err(e) => {
                            fail("settle_unrateable", e);
                            return Err(());
                        }
                    }
                    break;
                }
            };
            match store.apply_rated_game(&key, &updates).await {
                Ok(Applied::Applied) => {
                    metrics
                        .ratings_applied
                        .with_label_values(&["applied"])
                        .inc();
                    break;
                }
                Ok(Applied::AlreadyApplied) => {
                    metrics
                        .ratings_applied
                        .with_label_values(&["already_applied"])
                        .inc();
                    break;
                }
                Err(StoreError::RatingConflict { .. }) => {
                    metrics
                        .ratings_applied
                        .with_label_values(&["conflict"])
                        .inc();
                }
                Err(e) => {
                    fail("apply_rated_game", e);
                    return Err(());
                }
            }
        }
    }
    Ok(())
}

/// Reads the queue's length into the metrics.
async fn backlog(bp: &dyn Backplane, metrics: &Metrics) {
    match bp.archive_backlog().await {
        Ok(b) => {
            metrics
                .archive_backlog
                .set(i64::try_from(b.games).unwrap_or(i64::MAX));
            let lag = b
                .oldest_ms
                .map(|ms| crate::room_actor::now_ms().saturating_sub(ms) as f64 / 1000.0)
                .unwrap_or(0.0);
            metrics.archive_lag.set(lag);
        }
        Err(e) => tracing::debug!(error = %e, "archive backlog not read"),
    }
}
