//! The in-process backplane: everything in this process's memory, one
//! [`State`] behind one mutex. [`InProcess`] is one node's view of it;
//! [`InProcess::member`] adds nodes sharing the state (tests of routing
//! and failover without Redis).
//!
//! Each concern's trait is implemented in its own file ([`store`],
//! [`bus`], [`lobby`], [`archive`]); this file holds the state they share
//! (a claim reads the bus's liveness, forgetting a room drops its
//! archived records).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tabula_room::PlayerStats;
use tokio::sync::mpsc;

use crate::{
    BackplaneError, Inbound, Lease, NodeId, Result, RoomEntry, RoomId, StoredProfile, StoredRoom,
    Ticket,
};

mod archive;
mod bus;
mod lobby;
mod notices;
mod store;
#[cfg(test)]
mod tests;
mod tournaments;

/// The in-process store's maps keyed by room id or invite code: looked up
/// on every write a room makes (SipHash there was ~1 % of a stressed node).
/// foldhash, seeded per process; the keys are ids and codes the server drew
/// (`register`), so a client cannot choose what gets inserted.
type ByRoom<V> = HashMap<RoomId, V, foldhash::fast::RandomState>;

#[derive(Debug, Default)]
struct State {
    rooms: ByRoom<RoomEntry>,
    invites: ByRoom<RoomId>,
    owners: ByRoom<Lease>,
    epochs: ByRoom<u64>,
    snapshots: ByRoom<StoredRoom>,
    needs_owner: HashSet<RoomId, foldhash::fast::RandomState>,
    stats: HashMap<String, PlayerStats>,
    /// Each player's unfinished games: room → (game JSON, listed until).
    unfinished: HashMap<String, HashMap<RoomId, (String, Instant)>>,
    /// Each player's profile and until when it is kept (at most
    /// [`crate::MAX_PROFILES`]).
    profiles: HashMap<String, (StoredProfile, Instant)>,
    beats: HashMap<NodeId, Instant>,
    inboxes: HashMap<NodeId, mpsc::UnboundedSender<Inbound>>,
    queues: HashMap<String, Vec<Ticket>>,
    taken: HashSet<u64>,
    delivered: HashMap<u64, String>,
    records: ByRoom<BTreeMap<u32, String>>,
    /// The archive queue: key → (place, entry, queued at ms) …
    archive: HashMap<String, (u64, String, u64)>,
    /// … and the keys by place, oldest first.
    archive_order: BTreeMap<u64, String>,
    /// The next place in the archive queue.
    archive_next: u64,
    /// Who drains the archive queue, and until when (its lease).
    archive_drain: Option<(String, Instant)>,
    /// Rooms released idle, by when they are deleted, soonest first.
    forget: BTreeSet<(Instant, RoomId)>,
    /// The deadline of each room still due for deletion (a claim takes it
    /// out; its entry in `forget` is then stale).
    forget_at: ByRoom<Instant>,
    /// Rooms released idle with a wake (ms since the epoch): listed as
    /// orphans once it is due; a claim takes it out.
    wakes: ByRoom<u64>,
    /// The bot's notices, slots and players ([`notices`]).
    notices: NoticeState,
    /// The lobby's showcase, per shelf ([`lobby`]).
    shelves: HashMap<crate::Shelf, ShelfState>,
    /// Each node's open sockets and until when the count holds.
    online: HashMap<NodeId, (u64, u64)>,
    /// Tournaments: their directory, states and inboxes ([`tournaments`]).
    tournaments: TournamentState,
}

impl State {
    fn alive(&self, node: &str, lease: Duration) -> bool {
        self.beats.get(node).is_some_and(|t| t.elapsed() < lease)
    }

    /// Deletes the rooms whose `release_idle` keep has run out. Runs on
    /// every access: with nothing due it is one comparison.
    fn purge(&mut self, now: Instant) {
        while let Some((at, _)) = self.forget.first()
            && *at <= now
        {
            let Some((at, id)) = self.forget.pop_first() else {
                break;
            };
            if self.forget_at.get(&id) != Some(&at) {
                continue;
            }
            self.forget_at.remove(&id);
            if let Some(e) = self.rooms.remove(&id)
                && self.invites.get(&e.invite) == Some(&id)
            {
                self.invites.remove(&e.invite);
            }
            self.owners.remove(&id);
            self.epochs.remove(&id);
            self.snapshots.remove(&id);
            self.needs_owner.remove(&id);
            self.wakes.remove(&id);
            self.records.remove(&id);
        }
    }
}

/// The in-process backplane: everything in this process's memory. One
/// node by default; [`InProcess::member`] adds nodes sharing the state.
#[derive(Debug)]
pub struct InProcess {
    node: NodeId,
    lease: Duration,
    state: Arc<Mutex<State>>,
    inbox: Mutex<Option<mpsc::UnboundedReceiver<Inbound>>>,
}

impl InProcess {
    /// A new, empty backplane for node `node` (lease 3 s).
    pub fn new(node: impl Into<NodeId>) -> InProcess {
        InProcess::with_state(node.into(), Duration::from_secs(3), Arc::default())
    }

    fn with_state(node: NodeId, lease: Duration, state: Arc<Mutex<State>>) -> InProcess {
        let (tx, rx) = mpsc::unbounded_channel();
        {
            let mut g = state.lock().unwrap_or_else(PoisonError::into_inner);
            g.inboxes.insert(node.clone(), tx);
            g.beats.insert(node.clone(), Instant::now());
        }
        InProcess {
            node,
            lease,
            state,
            inbox: Mutex::new(Some(rx)),
        }
    }

    /// Another node sharing this backplane's state (same lease).
    pub fn member(&self, node: impl Into<NodeId>) -> InProcess {
        InProcess::with_state(node.into(), self.lease, self.state.clone())
    }

    /// The same backplane with another lease (tests of expiry).
    pub fn with_lease(self, lease: Duration) -> InProcess {
        InProcess { lease, ..self }
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let mut g = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        g.purge(Instant::now());
        f(&mut g)
    }

    fn release_in(&self, s: &mut State, id: &str, epoch: u64, needs_owner: bool) -> Result<()> {
        match s.owners.get(id) {
            Some(l) if l.epoch == epoch && l.node == self.node => {
                s.owners.remove(id);
                *s.epochs.entry(id.to_string()).or_insert(0) += 1;
                if needs_owner {
                    s.needs_owner.insert(id.to_string());
                }
                Ok(())
            }
            _ => Err(BackplaneError::Fenced {
                room: id.to_string(),
                epoch,
            }),
        }
    }

    /// `Fenced` unless this node owns `id` at `epoch`.
    fn check_fence(&self, s: &State, id: &str, epoch: u64) -> Result<()> {
        match s.owners.get(id) {
            Some(l) if l.epoch == epoch && l.node == self.node => Ok(()),
            _ => Err(BackplaneError::Fenced {
                room: id.to_string(),
                epoch,
            }),
        }
    }
}

fn ready<'a, T: Send + 'a>(v: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(v))
}

/// Wall-clock milliseconds since the epoch (the archive queue's times).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Expired entries a `show` drops at most.
const PURGE: usize = 64;

/// A score in the in-memory order: thousandths of a point (ratings are
/// whole; this keeps any score's order that matters).
fn order(score: f64) -> i64 {
    (score * 1000.0) as i64
}

/// One shelf: room → (score, JSON, node, until ms), and the two orders.
#[derive(Debug, Default)]
struct ShelfState {
    entries: HashMap<String, (f64, String, String, u64)>,
    by_score: BTreeSet<(Reverse<i64>, String)>,
    by_until: BTreeSet<(u64, String)>,
}

impl ShelfState {
    fn remove(&mut self, room: &str) {
        if let Some((score, _, _, until)) = self.entries.remove(room) {
            self.by_score
                .remove(&(Reverse(order(score)), room.to_string()));
            self.by_until.remove(&(until, room.to_string()));
        }
    }

    fn purge(&mut self, now_ms: u64) {
        for _ in 0..PURGE {
            match self.by_until.first() {
                Some((until, room)) if *until <= now_ms => {
                    let room = room.clone();
                    self.remove(&room);
                }
                _ => break,
            }
        }
    }
}

/// The most ids remembered as queued: past it, those whose keep is over
/// go first, then the oldest (a bound on memory, as [`crate::MAX_PROFILES`]).
const MAX_SEEN: usize = 1_000_000;

/// `d` from `now`, or a century when that does not fit an `Instant`.
fn later(now: Instant, d: Duration) -> Instant {
    now.checked_add(d)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

/// The bot's state in memory.
#[derive(Debug, Default)]
struct NoticeState {
    /// id → (entry, due ms).
    queued: HashMap<String, (String, u64)>,
    /// (due ms, id), earliest first.
    due: BTreeSet<(u64, String)>,
    /// id → until when it is remembered.
    seen: HashMap<String, Instant>,
    /// slot name → until when it is claimed.
    slots: HashMap<String, Instant>,
    /// ((slot length, slot), sends claimed in it).
    second: ((u64, u64), u32),
    paused_until: u64,
    users: HashMap<String, String>,
    /// name → (value, until when it is kept).
    notes: HashMap<String, (String, Instant)>,
}

impl NoticeState {
    fn bound(&mut self, now: Instant) {
        if self.seen.len() >= MAX_SEEN {
            self.seen.retain(|_, until| *until > now);
        }
        if self.slots.len() >= MAX_SEEN {
            self.slots.retain(|_, until| *until > now);
        }
        if self.notes.len() >= MAX_SEEN {
            self.notes.retain(|_, (_, until)| *until > now);
        }
    }
}

/// Tournaments' part of the shared state.
#[derive(Debug, Default)]
struct TournamentState {
    /// Id → created ms.
    ids: HashMap<String, u64>,
    /// Id → state JSON.
    states: HashMap<String, String>,
    /// Id → key → entry.
    inboxes: HashMap<String, BTreeMap<String, String>>,
}
