//! The node's rooms: which run here ([`Rooms`], by id, spread over the
//! room arbiters), where a room is served ([`Located`]: here, or on the
//! node that owns it), creating one, and taking one over from its stored
//! snapshot when its owner is gone.

use std::collections::HashMap;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use actix::{Actor, Addr, ArbiterHandle};
use rand::Rng;
use tabula_backplane::{Backplane, BackplaneError, NodeId, RoomEntry, StoredRoom};
use tabula_room::{Room, RoomConfig};

use crate::room_actor::{RoomActor, RoomDeps, RoomMap};
use crate::time::now_ms;

/// Where a room is served.
#[derive(Debug, Clone)]
pub enum Located {
    /// By an actor on this node.
    Local(Addr<RoomActor>),
    /// By another node.
    Remote(NodeId),
}

/// Registers the first of `make`'s entries whose id and invite code are
/// both free. Six-letter invite codes (~10⁹ of them) collide now and then
/// once a store holds thousands of rooms (the 9,900-match load run met one,
/// which failed that room's creation); a collision is not an error the
/// player should see, so another code is drawn.
async fn register_fresh(
    bp: &dyn Backplane,
    mut make: impl FnMut() -> RoomEntry,
) -> Result<RoomEntry, BackplaneError> {
    const ATTEMPTS: usize = 8;
    let mut last = None;
    for _ in 0..ATTEMPTS {
        let entry = make();
        match bp.register(entry.clone()).await {
            Ok(()) => return Ok(entry),
            Err(BackplaneError::Exists(taken)) => {
                tracing::debug!(%taken, "room id or invite code taken; drawing another");
                last = Some(taken);
            }
            Err(e) => return Err(e),
        }
    }
    Err(BackplaneError::Exists(last.unwrap_or_default()))
}

/// The rooms this node owns, and the arbiters they run on.
#[derive(Debug)]
pub struct Rooms {
    pub(crate) map: RoomMap,
    pub(crate) arbiters: Vec<ArbiterHandle>,
    pub(crate) next: AtomicUsize,
    pub(crate) deps: RoomDeps,
    /// Set when the node drains: it takes no rooms any more.
    pub(crate) draining: AtomicBool,
    /// One takeover or game creation at a time per room on this node, so
    /// two sessions that find the same orphan do not claim it twice (each
    /// claim bumps the epoch); other rooms are not held up.
    pub(crate) takeover: crate::keyed::KeyedLocks,
    /// Rooms held in memory at most (`quotas.max_rooms`), see
    /// [`Rooms::admits`].
    pub(crate) max_rooms: usize,
    /// Creations under way (counted against `max_rooms` before their
    /// actor is registered).
    pub(crate) creating: AtomicUsize,
}

/// Counts a creation under way for as long as it lives.
struct Creating<'a>(&'a AtomicUsize);

impl Drop for Creating<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Rooms {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Addr<RoomActor>>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the node may hold one more room for `reason` (`create`,
    /// `sweep`, `join`, `rejoin`, `tournament`), counting `pending` rooms
    /// not yet registered. New rooms and the orphan sweep stop at
    /// `max_rooms`; a player's join (or a front's re-join) may restore a
    /// stored room, and a tournament's pairing make its game's room, up to
    /// a quarter more. Why: that room exists already and someone is
    /// waiting at it, so refusing it would break a game in progress, while
    /// creation, which an attacker controls, is what the cap must stop;
    /// the reserve is bounded too, because joins can be repeated over
    /// stored rooms (room hopping).
    pub fn admits(held: usize, pending: usize, max_rooms: usize, reason: &str) -> bool {
        let cap = match reason {
            "join" | "rejoin" | "tournament" => max_rooms.saturating_add(max_rooms / 4),
            _ => max_rooms,
        };
        held.saturating_add(pending) < cap
    }

    /// `Unavailable` (and a count in `tabula_quota_refusals_total`) when
    /// the node holds as many rooms as it may for `reason`.
    fn check_cap(&self, reason: &str) -> Result<(), BackplaneError> {
        let held = self.lock().len();
        let pending = self.creating.load(Ordering::SeqCst);
        if Rooms::admits(held, pending, self.max_rooms, reason) {
            return Ok(());
        }
        self.deps
            .metrics
            .quota_refusals
            .with_label_values(&[reason, "room_cap"])
            .inc();
        let max = self.max_rooms;
        tracing::debug!(held, max_rooms = max, reason, "room cap reached");
        Err(BackplaneError::Unavailable(format!(
            "this node holds its maximum of rooms ({held} in memory, quotas.max_rooms = {max}); try again later"
        )))
    }

    /// Rooms held in memory.
    pub fn held(&self) -> usize {
        self.lock().len()
    }

    /// Creates, registers, claims and starts a room.
    pub async fn create(&self, config: RoomConfig) -> Result<RoomEntry, BackplaneError> {
        self.create_as(config, false).await
    }

    /// [`Rooms::create`], an open challenge when `open` (listed in the
    /// lobby while its one player waits for anyone).
    pub async fn create_as(
        &self,
        config: RoomConfig,
        open: bool,
    ) -> Result<RoomEntry, BackplaneError> {
        if self.draining.load(Ordering::SeqCst) {
            return Err(BackplaneError::Unavailable("the node is draining".into()));
        }
        self.check_cap("create")?;
        self.creating.fetch_add(1, Ordering::SeqCst);
        let _creating = Creating(&self.creating);
        let bp = &self.deps.backplane;
        let options = config.options;
        let entry = register_fresh(bp.as_ref(), || {
            let mut rng = rand::rng();
            const ALPHA: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
            RoomEntry {
                id: format!("{:012x}", rng.random::<u64>() & 0xffff_ffff_ffff),
                invite: (0..6)
                    .map(|_| ALPHA[rng.random_range(0..ALPHA.len())] as char)
                    .collect(),
                options,
                created_ms: now_ms(),
                open,
                tournament: None,
            }
        })
        .await?;
        let lease = bp.claim(&entry.id).await?;
        self.write_new(entry.clone(), config, lease.epoch).await?;
        tracing::info!(room = %entry.id, invite = %entry.invite, game = ?entry.options.game, "room created");
        Ok(entry)
    }

    /// A new room, just claimed under `epoch`: its first snapshot written,
    /// then its actor started here.
    async fn write_new(
        &self,
        entry: RoomEntry,
        config: RoomConfig,
        epoch: u64,
    ) -> Result<(), BackplaneError> {
        self.deps
            .metrics
            .claims
            .with_label_values(&["create"])
            .inc();
        let room = Room::new(config);
        let stored = StoredRoom {
            entry: entry.clone(),
            snapshot: room.snapshot(),
            seqs: Default::default(),
        };
        self.deps
            .backplane
            .save_snapshot(&entry.id, epoch, stored)
            .await?;
        self.start(entry, room, epoch, Default::default(), false);
        Ok(())
    }

    /// Creates a tournament's game room under its derived id (the game id,
    /// also its invite code: game ids hold `:`, drawn ids and codes never
    /// do). Idempotent: a room already registered with a snapshot is left
    /// as it is (a new owner of the tournament re-emits its pairings); one
    /// registered by an owner that died before its first write is claimed
    /// and written now. `Ok(false)` when it was already there.
    pub async fn create_game(
        &self,
        id: &str,
        tournament: &str,
        config: RoomConfig,
    ) -> Result<bool, BackplaneError> {
        let bp = &self.deps.backplane;
        let entry = RoomEntry {
            id: id.to_string(),
            invite: id.to_string(),
            options: config.options,
            created_ms: now_ms(),
            open: false,
            tournament: Some(tournament.to_string()),
        };
        let entry = match bp.register(entry.clone()).await {
            Ok(()) => entry,
            Err(BackplaneError::Exists(_)) => {
                if bp.load_snapshot(id).await?.is_some() {
                    return Ok(false);
                }
                bp.lookup(id).await?.unwrap_or(entry)
            }
            Err(e) => return Err(e),
        };
        let _one = self.takeover.lock(id).await;
        if self.local(id).is_some() {
            return Ok(false);
        }
        // Counted against the room cap with a join's reserve: its two
        // players are waiting at it, as at a stored room a join restores.
        // Refused, it stays registered, and the owner's retries or either
        // player's join (on any node with room) make it.
        self.check_cap("tournament")?;
        self.creating.fetch_add(1, Ordering::SeqCst);
        let _creating = Creating(&self.creating);
        let lease = match bp.claim(id).await {
            Ok(l) => l,
            // Another node holds it: a creator about to write it, or a
            // join's takeover finding no snapshot, which lets go at once.
            // Only a written room is made; else try again (giving up here
            // left a registered room that nobody ever wrote).
            Err(BackplaneError::Owned { .. }) => {
                return if bp.load_snapshot(id).await?.is_some() {
                    Ok(false)
                } else {
                    Err(BackplaneError::Unavailable(format!(
                        "room {id} is claimed by another node and not written yet"
                    )))
                };
            }
            Err(e) => return Err(e),
        };
        if bp.load_snapshot(id).await?.is_some() {
            // Written between our look and our claim: hand it back.
            bp.release(id, lease.epoch, true).await?;
            return Ok(false);
        }
        self.write_new(entry, config, lease.epoch).await?;
        tracing::info!(room = %id, tournament, "tournament game created");
        Ok(true)
    }

    fn start(
        &self,
        entry: RoomEntry,
        room: Room,
        epoch: u64,
        seqs: std::collections::BTreeMap<String, u64>,
        taken_over: bool,
    ) -> Addr<RoomActor> {
        let n = self.next.fetch_add(1, Ordering::Relaxed) % self.arbiters.len();
        let deps = self.deps.clone();
        let id = entry.id.clone();
        // Made here, not on the arbiter: it counts itself in `tabula_rooms`
        // before the caller answers (a `POST /api/rooms` then scraped at
        // once sees its room).
        let actor = RoomActor::new(entry, room, epoch, seqs, taken_over, deps);
        let addr = RoomActor::start_in_arbiter(&self.arbiters[n], move |_| actor);
        self.lock().insert(id, addr.clone());
        addr
    }

    /// The live actor of a room this node owns.
    pub fn local(&self, id: &str) -> Option<Addr<RoomActor>> {
        let mut m = self.lock();
        match m.get(id) {
            Some(a) if a.connected() => Some(a.clone()),
            Some(_) => {
                // Stopped (fenced, drained): forget it.
                m.remove(id);
                None
            }
            None => None,
        }
    }

    /// A room by id or invite code, and where it is served: here, on its
    /// live owner, or here after a takeover when its owner is gone.
    pub async fn locate(&self, key: &str) -> Result<Option<(RoomEntry, Located)>, BackplaneError> {
        let bp = &self.deps.backplane;
        let entry = match bp.lookup(key).await? {
            Some(e) => e,
            None => match bp.resolve_invite(key).await? {
                Some(e) => e,
                None => return Ok(None),
            },
        };
        if let Some(a) = self.local(&entry.id) {
            return Ok(Some((entry, Located::Local(a))));
        }
        if let Some(lease) = bp.owner(&entry.id).await?
            && lease.node != bp.node_id()
            && bp.node_alive(&lease.node).await?
        {
            return Ok(Some((entry, Located::Remote(lease.node))));
        }
        let at = self.take_over(&entry.id, "join").await?;
        Ok(Some((entry, at)))
    }

    /// Claims a room whose owner is gone and restores it from its last
    /// snapshot. A live owner found on the way is returned instead.
    pub async fn take_over(&self, id: &str, reason: &str) -> Result<Located, BackplaneError> {
        if self.draining.load(Ordering::SeqCst) {
            return Err(BackplaneError::Unavailable("the node is draining".into()));
        }
        let _one = self.takeover.lock(id).await;
        if let Some(a) = self.local(id) {
            return Ok(Located::Local(a));
        }
        self.check_cap(reason)?;
        // Counted against the cap while it restores (takeovers of other
        // rooms run at the same time).
        self.creating.fetch_add(1, Ordering::SeqCst);
        let _creating = Creating(&self.creating);
        let bp = &self.deps.backplane;
        let lease = match bp.claim(id).await {
            Ok(l) => l,
            Err(BackplaneError::Owned { owner, .. }) => return Ok(Located::Remote(owner)),
            Err(e) => return Err(e),
        };
        let m = &self.deps.metrics;
        m.claims.with_label_values(&[reason]).inc();
        let restored = match bp.load_snapshot(id).await {
            Ok(Some(stored)) => Room::restore(&stored.snapshot)
                .map(|room| (stored, room))
                .map_err(|e| BackplaneError::Corrupt(e.to_string())),
            // A tournament's game registered by its maker, not written
            // yet: a join that came first (the join makes it instead).
            Ok(None) if crate::tournaments::of_game(id).is_some() => Err(
                BackplaneError::Unavailable(format!("room {id} is not made yet")),
            ),
            Ok(None) => Err(BackplaneError::Corrupt(format!(
                "room {id} has no snapshot"
            ))),
            Err(e) => Err(e),
        };
        let (stored, room) = match restored {
            Ok(r) => r,
            Err(e) => {
                let _ = bp.release(id, lease.epoch, false).await;
                if matches!(e, BackplaneError::Unavailable(_)) {
                    tracing::debug!(room = %id, error = %e, "takeover failed");
                } else {
                    tracing::error!(room = %id, error = %e, "takeover failed");
                }
                return Err(e);
            }
        };
        m.takeovers.with_label_values(&[reason]).inc();
        tracing::info!(room = %id, epoch = lease.epoch, version = room.version(), reason, "room taken over");
        let addr = self.start(stored.entry, room, lease.epoch, stored.seqs, true);
        Ok(Located::Local(addr))
    }

    /// Every room actor with its id.
    pub fn owned(&self) -> Vec<(String, Addr<RoomActor>)> {
        self.lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Every room actor.
    pub fn all(&self) -> Vec<Addr<RoomActor>> {
        self.lock().values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_backplane::InProcess;
    use tabula_backplane::RoomStore;

    fn entry(id: &str, invite: &str) -> RoomEntry {
        RoomEntry {
            id: id.into(),
            invite: invite.into(),
            options: Default::default(),
            created_ms: 0,
            open: false,
            tournament: None,
        }
    }

    #[test]
    fn the_room_cap_stops_creation_and_keeps_a_reserve_for_joins() {
        // Under the cap everything is admitted
        for reason in ["create", "sweep", "join", "rejoin", "tournament"] {
            assert!(Rooms::admits(99, 0, 100, reason), "{reason}");
        }
        // At it (rooms being created count), creation and the sweep stop
        for reason in ["create", "sweep"] {
            assert!(!Rooms::admits(100, 0, 100, reason), "{reason}");
            assert!(!Rooms::admits(98, 2, 100, reason), "{reason}");
        }
        // A player's join restores a stored room, a tournament's pairing
        // makes its game's room, up to a quarter more
        for reason in ["join", "rejoin", "tournament"] {
            assert!(Rooms::admits(100, 0, 100, reason), "{reason}");
            assert!(Rooms::admits(124, 0, 100, reason), "{reason}");
            assert!(!Rooms::admits(125, 0, 100, reason), "{reason}");
        }
        assert!(!Rooms::admits(usize::MAX, 1, usize::MAX, "join"));
    }

    #[actix_rt::test]
    async fn a_taken_invite_code_draws_another() {
        let bp = InProcess::new("n1");
        bp.register(entry("r1", "ABCDEF")).await.unwrap();
        let mut offers = vec![entry("r3", "GHJKLM"), entry("r2", "ABCDEF")];
        let got = register_fresh(&bp, || offers.pop().unwrap()).await.unwrap();
        assert_eq!(got.id, "r3");
        // The first room keeps its code; the second is found by its own.
        assert_eq!(bp.resolve_invite("ABCDEF").await.unwrap().unwrap().id, "r1");
        assert_eq!(bp.resolve_invite("GHJKLM").await.unwrap().unwrap().id, "r3");
        assert!(bp.lookup("r2").await.unwrap().is_none());
    }

    #[actix_rt::test]
    async fn gives_up_after_a_few_collisions() {
        let bp = InProcess::new("n1");
        bp.register(entry("r1", "ABCDEF")).await.unwrap();
        let mut n = 0;
        let e = register_fresh(&bp, || {
            n += 1;
            entry(&format!("x{n}"), "ABCDEF")
        })
        .await
        .unwrap_err();
        assert!(
            matches!(e, BackplaneError::Exists(ref c) if c == "ABCDEF"),
            "{e}"
        );
        assert_eq!(n, 8);
    }
}
