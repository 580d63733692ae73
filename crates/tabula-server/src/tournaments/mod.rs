//! Tournaments run by the cluster: each one owned by one node, under the
//! room store's lease and fencing ([`tabula_backplane::tournament_key`]),
//! driven by the pure core of `tabula-tournament`.
//!
//! The owner is a task ([`run`]) that keeps one rule: **persist, then
//! act**. It takes what waits in the tournament's inbox (results and
//! arrivals posted by its rooms, joins and withdrawals posted by the HTTP
//! routes of any node) and the deadlines that are due, applies them to the
//! core, writes the core's state under its epoch, acknowledges the inbox
//! entries, and only then carries out the effects: a room for each
//! pairing ([`crate::room_registry::Rooms::create_game`], idempotent by the
//! derived game id). A node that takes a tournament over (its owner died:
//! the orphan sweep lists it; or it was released by a drain) restores the
//! state, applies `Restored`, and makes sure every running game has its
//! room, so an effect lost with the old owner is carried out once.
//!
//! When it finishes, the players' final results are owed to the durable
//! store ([`Side::results_due`], set in the write that finishes it): the
//! owner writes them (each row once, by key) before it releases the
//! tournament, retrying while the store is down; a successor finds the
//! flag and writes them again.
//!
//! Deadlines (the start, a no-show's grace, an arena's end) are the core's
//! [`Tournament::next_deadline`]: the owner's loop sleeps until the next
//! one. A tournament is never unloaded while it is not over, so its
//! deadlines need no wake of their own: if its owner dies, the orphan
//! sweep gives it to another node within a lease, and a deadline that
//! passed meanwhile fires on the new owner's first input.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;

use tabula_backplane::{BackplaneError, tournament_key};
use tabula_tournament::{Effect, Input, Status, Tournament};

use crate::AppState;
use crate::telegram::group_post::{self, Group, Post};
use crate::time::now_ms;

mod games;
mod held;
mod inbox;
mod side;

use games::{carry_out, make_room};
pub use games::{ensure_game_room, game_config};
pub use held::{READ_KEEP, Read, SCAN_KEEP, SCANNED, Scan, Tournaments};
pub use inbox::{Posted, of_game, post, post_now};
use side::room_game;
pub use side::{Side, decode, encode};

/// How often an owner looks at its tournament's inbox unasked. Whoever
/// posts to it rings the owner's bell ([`Tournaments::ring`], through the
/// node bus), which it answers at once; this look only catches a ring
/// lost on the way (the owner was moving). It was 100 ms before the bell:
/// ten Redis reads a second for every tournament, idle or not.
pub const IDLE_POLL_MS: u64 = 1_000;

/// Game rooms an owner makes at the same time (each is a few backplane
/// round trips: one after another, an arena's start waits for the whole
/// field's rooms in turn).
const ROOMS_AT_ONCE: usize = 16;

/// What a new tournament could not be.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The id is taken.
    #[error("a tournament {0} already exists")]
    Exists(String),
    /// The backplane failed.
    #[error(transparent)]
    Backplane(#[from] BackplaneError),
}

/// Registers, claims and stores a new tournament, then runs it here.
pub async fn create(state: Arc<AppState>, t: Tournament) -> Result<(), CreateError> {
    create_for(state, t, None).await
}

/// [`create`], for a Telegram group when `group` names one (with the
/// creator's name): its announcement is in the outbox of the first write.
pub async fn create_for(
    state: Arc<AppState>,
    t: Tournament,
    group: Option<(Group, String)>,
) -> Result<(), CreateError> {
    let bp = &state.backplane;
    let id = t.id().to_string();
    let mut side = Side::default();
    if let Some((g, creator)) = group
        && state.telegram.is_some()
    {
        let c = t.config();
        let post = Post::Announce {
            format: c.format,
            match_points: c.match_points,
            start_at_ms: c.start_at_ms,
            creator,
        };
        side.group = Some(g);
        side.post(&t, post, now_ms());
    }
    if !bp.register_tournament(&id, now_ms()).await? {
        return Err(CreateError::Exists(id));
    }
    let lease = bp.claim(&tournament_key(&id)).await?;
    let json = encode(&t, &side).map_err(|e| BackplaneError::Corrupt(e.to_string()))?;
    bp.save_tournament(&id, lease.epoch, json).await?;
    start(state, t, side, lease.epoch, false);
    Ok(())
}

/// Claims a tournament nobody holds (the sweep found its owner dead, or
/// it was released) and runs it here from its stored state.
pub async fn take_over(state: Arc<AppState>, id: &str) -> Result<(), BackplaneError> {
    if state.tournaments.holds(id) {
        return Ok(());
    }
    let bp = &state.backplane;
    let lease = bp.claim(&tournament_key(id)).await?;
    let t = match bp.load_tournament(id).await? {
        Some(json) => {
            decode(&json).map_err(|e| BackplaneError::Corrupt(format!("tournament {id}: {e}")))
        }
        None => Err(BackplaneError::Corrupt(format!(
            "tournament {id} has no state"
        ))),
    };
    let (t, side) = match t {
        Ok(t) => t,
        Err(e) => {
            let _ = bp.release(&tournament_key(id), lease.epoch, false).await;
            return Err(e);
        }
    };
    tracing::info!(tournament = %id, epoch = lease.epoch, posts = side.outbox.len(), "tournament taken over");
    start(state, t, side, lease.epoch, true);
    Ok(())
}

fn start(state: Arc<AppState>, t: Tournament, side: Side, epoch: u64, restored: bool) {
    let id = t.id().to_string();
    if !state.tournaments.lock().insert(id.clone()) {
        return;
    }
    state.metrics.tournaments_running.inc();
    let bell = state.tournaments.bell(&id);
    actix_rt::spawn(async move {
        let st = state.clone();
        run(st, t, side, epoch, restored, bell).await;
        state.tournaments.unhang(&id);
        state.tournaments.lock().remove(&id);
        state.metrics.tournaments_running.dec();
    });
}

/// The owner's loop (see the module docs). Returns when the tournament is
/// over (released), fenced (another node owns it), or the node drains or
/// shuts down (released for another node).
async fn run(
    state: Arc<AppState>,
    mut t: Tournament,
    mut side: Side,
    epoch: u64,
    restored: bool,
    bell: Arc<tokio::sync::Notify>,
) {
    let bp = state.backplane.clone();
    let id = t.id().to_string();
    let key = tournament_key(&id);
    let mut pending: Vec<Input> = if restored {
        vec![Input::Restored]
    } else {
        Vec::new()
    };
    let mut ensure_rooms = restored;
    let mut results_retry = Retry::default();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        if state.draining.load(std::sync::atomic::Ordering::SeqCst) || *shutdown.borrow() {
            let _ = bp.release(&key, epoch, true).await;
            tracing::info!(tournament = %id, "tournament released for another node");
            return;
        }
        let inbox = match bp.tournament_inbox(&id).await {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(tournament = %id, error = %e, "tournament inbox not read");
                Vec::new()
            }
        };
        let mut acks = Vec::with_capacity(inbox.len());
        for (k, entry) in inbox {
            match serde_json::from_str::<Posted>(&entry) {
                Ok(p) => {
                    if let Input::GameResult { game_id, .. } = &p.input
                        && let Some(g) = t.game(game_id)
                    {
                        let mut m = state
                            .tournaments
                            .ended
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        for who in [&g.white, &g.black] {
                            m.insert(format!("{id}/{who}"), p.at_ms);
                        }
                    }
                    pending.push(p.input);
                }
                Err(e) => {
                    tracing::warn!(tournament = %id, key = %k, error = %e, "unreadable inbox entry dropped")
                }
            }
            acks.push(k);
        }
        let now = now_ms();
        let due = t.next_deadline().is_some_and(|d| d <= now);
        let top_every = state
            .telegram
            .as_ref()
            .map_or(u64::MAX, |tg| tg.settings.group_top_interval_ms);
        if pending.is_empty()
            && acks.is_empty()
            && !due
            && !ensure_rooms
            && side.outbox.is_empty()
            && !side.top_due(&t, now, top_every)
            && !(side.results_due.is_some() && results_retry.due())
        {
            let wait = t.next_deadline().map_or(IDLE_POLL_MS, |d| {
                d.saturating_sub(now).clamp(1, IDLE_POLL_MS)
            });
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(wait)) => {}
                () = bell.notified() => {}
                _ = shutdown.changed() => {}
            }
            continue;
        }
        if due && pending.is_empty() {
            pending.push(Input::Tick);
        }
        let mut fx = Vec::new();
        for input in pending.drain(..) {
            fx.extend(t.apply(input, now));
        }
        if state.durable.configured() && fx.iter().any(|e| matches!(e, Effect::Finished { .. })) {
            side.results_due = Some(now);
        }
        if state.telegram.is_some() {
            side.decide(&t, &fx, now, top_every);
        } else {
            // No bot: nothing is posted, and nothing waits for it.
            side.outbox.clear();
            side.top_stale = false;
        }
        // Persist (the group's posts with the state that caused them),
        // then act.
        if !save(&state, &t, &side, epoch).await {
            return;
        }
        if !acks.is_empty()
            && let Err(e) = bp.ack_tournament(&id, epoch, acks).await
        {
            if e.is_fenced() || matches!(e, BackplaneError::Fenced { .. }) {
                return;
            }
            // Applied again next time: the core refuses the duplicates.
            tracing::debug!(tournament = %id, error = %e, "inbox not acknowledged");
        }
        // Several at once: an arena's start pairs its whole field, each
        // pairing's room a few backplane round trips.
        futures_util::stream::iter(fx)
            .for_each_concurrent(ROOMS_AT_ONCE, |e| carry_out(&state, &t, e))
            .await;
        // The group's posts into the bot's queue (refused there if an
        // earlier owner queued them), then out of the outbox.
        if !side.outbox.is_empty() {
            if let Some(tg) = &state.telegram {
                let mut left = Vec::new();
                for (pid, post) in side.outbox.drain(..) {
                    if !group_post::queue(bp.as_ref(), tg, &pid, &post).await {
                        left.push((pid, post));
                    }
                }
                side.outbox = left;
            } else {
                side.outbox.clear();
            }
            if !save(&state, &t, &side, epoch).await {
                return;
            }
            if !side.outbox.is_empty() {
                // The queue is unreachable: try again after a pause.
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
        if ensure_rooms {
            let games: Vec<_> = t.running().cloned().collect();
            let (st, tt) = (&state, &t);
            futures_util::stream::iter(games)
                .for_each_concurrent(ROOMS_AT_ONCE, |g| async move {
                    make_room(st, tt, &g.id.0, &g.white.0, &g.black.0).await;
                })
                .await;
            ensure_rooms = false;
        }
        // The final results into the durable store, then out of the
        // state (a store that cannot be reached keeps the owner, which
        // tries again, less and less often).
        if let Some(finished_ms) = side.results_due
            && results_retry.due()
        {
            if store_results(&state, &t, finished_ms).await {
                side.results_due = None;
                results_retry = Retry::default();
                if !save(&state, &t, &side, epoch).await {
                    return;
                }
            } else {
                results_retry.failed();
            }
        }
        // Over, once its last posts are queued and its results stored (a
        // post still in the outbox, or results not stored, keep the
        // owner, which tries again).
        if matches!(t.status(), Status::Finished | Status::Cancelled)
            && side.outbox.is_empty()
            && side.results_due.is_none()
        {
            let _ = bp.release(&key, epoch, false).await;
            tracing::info!(tournament = %id, status = ?t.status(), "tournament over");
            return;
        }
    }
}

/// When the next try of something that failed is due: at once at first,
/// then after 0.2 s doubling to 30 s.
#[derive(Debug, Default)]
struct Retry {
    at: Option<std::time::Instant>,
    wait: Duration,
}

impl Retry {
    fn due(&self) -> bool {
        self.at.is_none_or(|at| std::time::Instant::now() >= at)
    }

    fn failed(&mut self) {
        self.wait = (self.wait * 2).clamp(Duration::from_millis(200), Duration::from_secs(30));
        self.at = Some(std::time::Instant::now() + self.wait);
    }
}

/// Each player's final line of a finished tournament, as the durable
/// store keeps it: his place, points, games and wins in the final
/// standings, the field's size, and when it ended.
pub fn results_of(t: &Tournament, finished_ms: u64) -> Vec<tabula_store::TournamentResult> {
    let standings = t.standings();
    let players = standings.rows.len() as u32;
    let format = serde_json::to_string(&t.config().format).unwrap_or_else(|_| "{}".into());
    let (_, game) = room_game(t);
    standings
        .rows
        .iter()
        .map(|r| tabula_store::TournamentResult {
            tournament: t.id().to_string(),
            player: r.player.0.clone(),
            format: format.clone(),
            game,
            place: r.rank,
            points: r.points,
            games: r.games,
            wins: r.wins,
            players,
            finished_ms,
        })
        .collect()
}

/// Writes a finished tournament's results into the durable store (each
/// row once, whoever wrote it before); `false` when the store is not
/// reached (try again later). Results the store refuses as invalid can
/// never be stored: logged, and counted as done.
async fn store_results(state: &AppState, t: &Tournament, finished_ms: u64) -> bool {
    let store = match state.durable.get() {
        Ok(s) => s.clone(),
        Err(crate::archiver::NoDurable::NotConfigured) => return true,
        Err(crate::archiver::NoDurable::Connecting) => return false,
    };
    let rows = results_of(t, finished_ms);
    match store.store_tournament_results(&rows).await {
        Ok(new) => {
            tracing::info!(tournament = %t.id(), rows = rows.len(), new, "tournament results stored");
            true
        }
        Err(tabula_store::StoreError::Invalid(m)) => {
            tracing::error!(tournament = %t.id(), error = %m, "tournament results refused by the store; dropped");
            state
                .metrics
                .store_errors
                .with_label_values(&["tournament_results"])
                .inc();
            true
        }
        Err(e) => {
            tracing::warn!(tournament = %t.id(), error = %e, "tournament results not stored; retrying");
            state
                .metrics
                .store_errors
                .with_label_values(&["tournament_results"])
                .inc();
            false
        }
    }
}

/// Writes the state under `epoch`, retried while the backplane fails;
/// `false` when another node owns the tournament (or it cannot be
/// serialised): the owner stops.
async fn save(state: &AppState, t: &Tournament, side: &Side, epoch: u64) -> bool {
    let id = t.id();
    let json = match encode(t, side) {
        Ok(j) => j,
        Err(e) => {
            tracing::error!(tournament = %id, error = %e, "tournament not serialised; stopped");
            return false;
        }
    };
    let mut wait = Duration::from_millis(50);
    loop {
        match state
            .backplane
            .save_tournament(id, epoch, json.clone())
            .await
        {
            Ok(()) => {
                // This node's readers see the owner's last write.
                state
                    .tournaments
                    .written(id, Arc::new((t.clone(), side.clone())));
                return true;
            }
            Err(e) if e.is_fenced() => {
                tracing::warn!(tournament = %id, epoch, "tournament fenced: another node owns it");
                return false;
            }
            Err(e) => {
                state
                    .metrics
                    .backplane_errors
                    .with_label_values(&["save_tournament"])
                    .inc();
                tracing::warn!(tournament = %id, error = %e, "tournament state not written; retrying");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_room_names_its_tournament() {
        assert_eq!(of_game("cup:1:2"), Some("cup"));
        assert_eq!(of_game("cup:a:17"), Some("cup"));
        assert_eq!(of_game("0123456789ab"), None);
    }
}
