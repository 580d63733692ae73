//! The archiver: finished games from the backplane's archive queue into
//! the durable store (`tabula-store`), then the ratings of rated ones.
//!
//! 1. A room whose game ends queues a [`QueuedGame`] (the record, the
//!    seats, the match, rated or not, each seat's statistics) under
//!    `room#number` ([`tabula_backplane::Archive::queue_archive`]), retried until the
//!    backplane has it, and wakes this node's archiver.
//! 2. One node's archiver at a time drains the shared queue: the one
//!    holding its lease ([`tabula_backplane::Archive::claim_archive_drain`],
//!    renewed every round, [`drain_lease`]), so no two nodes store the
//!    same batch or rate the same games; the others report the queue
//!    and take over when the drainer stops (it gives the lease up) or
//!    dies (its lease runs out). The drainer ([`run`]) takes the oldest games off the queue, stores
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

mod durable;
pub mod queued;
pub mod rate;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tabula_backplane::Backplane;
use tabula_room::GameKind;
use tabula_store::{Applied, Archived, DurableStore, Rating, Store, StoreConfig, StoreError};

pub use durable::{Durable, NoDurable};
pub use queued::{Queued, QueuedEntry, QueuedGame, QueuedSeat, finished_of};

use crate::AppState;
use crate::metrics::Metrics;

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
    let lease = drain_lease(interval);
    let me = state.backplane.node_id().to_string();
    let bp = state.backplane.as_ref();
    let mut failures = 0u32;
    loop {
        // One node drains at a time: the others only report the queue,
        // and try again each interval (a game's wake-up is for the
        // drainer; theirs would cost a call per game for nothing).
        let drains = match bp.claim_archive_drain(&me, lease).await {
            Ok(held) => held,
            Err(e) => {
                state
                    .metrics
                    .backplane_errors
                    .with_label_values(&["archive_drain"])
                    .inc();
                tracing::warn!(error = %e, "archive drain not claimed");
                false
            }
        };
        state.metrics.archive_drainer.set(i64::from(drains));
        if !drains {
            backlog(bp, &state.metrics).await;
            tokio::select! {
                _ = tokio::time::sleep(interval) => continue,
                _ = shutdown.changed() => return,
            }
        }
        let (done, rated) = round(bp, store.as_ref(), &state.metrics, settings.archive_batch).await;
        backlog(bp, &state.metrics).await;
        let wait = match (done, rated) {
            // A full batch: more may wait (unless the node stops).
            (Ok(n), Ok(())) if n >= settings.archive_batch && !*shutdown.borrow() => {
                failures = 0;
                continue;
            }
            (Ok(_), Ok(())) => {
                failures = 0;
                interval
            }
            // The store or the backplane failed: back off, up to 10 s,
            // renewing the drain meanwhile (another node would meet the
            // same store).
            _ => {
                failures = failures.saturating_add(1);
                (interval * failures.min(10))
                    .min(Duration::from_secs(10))
                    .min(lease / 2)
            }
        };
        tokio::select! {
            _ = state.durable.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.changed() => {
                // Handed over at once rather than after the lease.
                let _ = bp.release_archive_drain(&me).await;
                state.metrics.archive_drainer.set(0);
                return;
            }
        }
    }
}

/// How long the archive queue's drain is held without a renewal: five
/// rounds, at least 5 s. A drainer renews at every round (at most an
/// interval apart, half the lease while it backs off), so only one that
/// died, or hung longer than that, is replaced; the queue then waits at
/// most the lease and an interval for the next drainer.
pub fn drain_lease(interval: Duration) -> Duration {
    (interval * 5).max(Duration::from_secs(5))
}

/// Archives up to `batch` queued games, oldest first, in one store
/// transaction ([`tabula_store::Games::archive_many`]), then takes them
/// off the queue in one call; how many were taken off. A failure of the
/// store or the backplane takes none off (the batch is retried whole
/// next round: the store stores each game once).
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
    let mut keys = Vec::with_capacity(items.len());
    let mut games = Vec::with_capacity(items.len());
    let mut outcomes: Vec<&'static str> = Vec::with_capacity(items.len());
    let mut refused = Vec::new();
    for (key, entry) in items {
        match queued::finished_of(&entry) {
            Ok(game) => {
                keys.push(key);
                games.push(game);
            }
            Err(why) => {
                tracing::error!(key = %key, why = %why, "a queued game cannot be archived; dropped");
                refused.push(key);
            }
        }
    }
    match store.archive_many(&games).await {
        Ok(done) => outcomes.extend(done.iter().map(|a| match a {
            Archived::Stored => "stored",
            Archived::AlreadyStored => "already_stored",
        })),
        // A game the store refuses: one at a time, to drop only it.
        Err(StoreError::Invalid(_)) => {
            for (key, game) in keys.iter().zip(&games) {
                outcomes.push(match store.archive(game).await {
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
                });
            }
        }
        Err(e) => {
            metrics.store_errors.with_label_values(&["archive"]).inc();
            tracing::warn!(games = games.len(), error = %e, "games not archived yet");
            return Err(());
        }
    }
    outcomes.extend(refused.iter().map(|_| "refused"));
    keys.extend(refused);
    if keys.is_empty() {
        return Ok(0);
    }
    if let Err(e) = bp.archived_many(&keys).await {
        metrics
            .backplane_errors
            .with_label_values(&["archived"])
            .inc();
        tracing::warn!(games = keys.len(), error = %e, "archived games not taken off the queue yet");
        return Err(());
    }
    for outcome in outcomes {
        metrics.archived.with_label_values(&[outcome]).inc();
    }
    Ok(keys.len())
}

/// The most pages of [`tabula_store::MAX_PENDING`] rated games one call
/// of [`rate_pending`] applies.
const RATE_PAGES: usize = 4;

/// One round of the archiver: a batch off the queue into the store
/// ([`archive_batch`]) and the pending ratings ([`rate_pending`]), the two
/// at once (different rows: the ratings of games archived before, while
/// the next batch is written), so a round takes the longer of the two
/// rather than their sum. A game archived in this round is rated in the
/// next, as each page of ratings is read oldest first whenever it runs.
pub async fn round(
    bp: &dyn Backplane,
    store: &dyn DurableStore,
    metrics: &Metrics,
    batch: usize,
) -> (Result<usize, ()>, Result<(), ()>) {
    tokio::join!(
        archive_batch(bp, store, metrics, batch),
        rate_pending(store, metrics)
    )
}

/// Applies the ratings of archived rated games still pending, oldest
/// first, a page at a time: both players' stored ratings read once per
/// page, each game rated from the ratings the games before it left (one
/// player may have several games in a page), and the page applied in
/// one transaction ([`tabula_store::Ratings::apply_rated_games`]). A
/// rating moved meanwhile (another node's archiver) refuses the page
/// whole; it is read and recomputed next round.
pub async fn rate_pending(store: &dyn DurableStore, metrics: &Metrics) -> Result<(), ()> {
    let fail = |op: &'static str, e: StoreError| {
        metrics.store_errors.with_label_values(&[op]).inc();
        tracing::warn!(op, error = %e, "ratings not applied yet");
    };
    for _ in 0..RATE_PAGES {
        let games = store
            .pending_rated_games(tabula_store::MAX_PENDING)
            .await
            .map_err(|e| fail("pending_ratings", e))?;
        let full = games.len() >= tabula_store::MAX_PENDING as usize;
        if games.is_empty() {
            break;
        }
        // Every player's rating as stored, by game kind.
        let mut current: HashMap<(String, GameKind), Option<Rating>> = HashMap::new();
        let mut by_kind: HashMap<GameKind, Vec<String>> = HashMap::new();
        for g in &games {
            for p in g.seats.iter().filter_map(|s| s.player()) {
                if current.insert((p.to_string(), g.kind), None).is_none() {
                    by_kind.entry(g.kind).or_default().push(p.to_string());
                }
            }
        }
        for (kind, players) in &by_kind {
            let stored = store
                .ratings_in(players, *kind)
                .await
                .map_err(|e| fail("rating", e))?;
            for (p, r) in stored {
                current.insert((p, *kind), Some(r));
            }
        }
        let mut page = Vec::with_capacity(games.len());
        for g in &games {
            let (Some(a), Some(b)) = (g.seats[0].player(), g.seats[1].player()) else {
                // The store lists only games with two players; never reached.
                continue;
            };
            let ra = current.get(&(a.to_string(), g.kind)).copied().flatten();
            let rb = current.get(&(b.to_string(), g.kind)).copied().flatten();
            match rate::rate(g, ra.as_ref(), rb.as_ref()) {
                Ok(updates) => {
                    for (u, before) in updates.iter().zip([ra, rb]) {
                        let after = Rating {
                            rating: u.rating,
                            deviation: u.deviation,
                            volatility: u.volatility,
                            games: u.previous_games.saturating_add(1),
                            last_rated_ms: before
                                .map_or(g.finished_ms, |r| r.last_rated_ms.max(g.finished_ms)),
                        };
                        current.insert((u.player.clone(), g.kind), Some(after));
                    }
                    page.push((g.key.clone(), updates));
                }
                Err(why) => {
                    // It never will be: settled with no change, so it does
                    // not hold a place ahead of every later game.
                    tracing::error!(game = %g.key, why = %why, "a rated game cannot be rated; settled unrated");
                    match store.settle_unrateable(&g.key).await {
                        Ok(_) => metrics
                            .ratings_applied
                            .with_label_values(&["unrateable"])
                            .inc(),
                        Err(e) => {
                            fail("settle_unrateable", e);
                            return Err(());
                        }
                    }
                }
            }
        }
        match store.apply_rated_games(&page).await {
            Ok(done) => {
                for d in done {
                    let label = match d {
                        Applied::Applied => "applied",
                        Applied::AlreadyApplied => "already_applied",
                    };
                    metrics.ratings_applied.with_label_values(&[label]).inc();
                }
            }
            Err(StoreError::RatingConflict { .. }) => {
                metrics
                    .ratings_applied
                    .with_label_values(&["conflict"])
                    .inc();
                return Ok(());
            }
            Err(e) => {
                fail("apply_rated_game", e);
                return Err(());
            }
        }
        if !full {
            break;
        }
    }
    Ok(())
}

/// Reads the shared queue's length and age into the metrics (each round
/// of the archiver, and each scrape of `/metrics`).
pub async fn backlog(bp: &dyn Backplane, metrics: &Metrics) {
    match bp.archive_backlog().await {
        Ok(b) => {
            metrics
                .archive_backlog
                .set(i64::try_from(b.games).unwrap_or(i64::MAX));
            let lag = b
                .oldest_ms
                .map(|ms| crate::time::now_ms().saturating_sub(ms) as f64 / 1000.0)
                .unwrap_or(0.0);
            metrics.archive_lag.set(lag);
        }
        Err(e) => tracing::debug!(error = %e, "archive backlog not read"),
    }
}
