//! The backplane: the room directory, room ownership with fencing epochs,
//! node liveness, the snapshot store, node-to-node messages, matchmaking,
//! finished-game records and player statistics behind one trait,
//! [`Backplane`].
//!
//! The node talks to the backplane only through `Arc<dyn Backplane>`; every
//! method returns a boxed `Send` future, so an implementation may do network
//! IO without the room code changing. [`InProcess`] is the single-node
//! implementation used by default; [`InProcess::member`] lets several nodes
//! in one process share one (tests of routing and failover without Redis).
//!
//! Architecture Invariant: only this crate knows how ownership, snapshots
//! and the directory are stored (Redis keys included).
//!
//! Ownership: [`Backplane::claim`] succeeds when the room has no owner, is
//! already this node's, or its owner's liveness lease has expired; it
//! returns a rising epoch. A snapshot write with a stale epoch is refused
//! with [`BackplaneError::Fenced`], and the writer must stop its room at
//! once.
//!
//! Routing: [`Backplane::send`] delivers an opaque text message to a node's
//! inbox, at most once; [`Backplane::take_inbox`] yields this node's inbox.
//! What the messages mean is the node's business.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tabula_room::{GameOptions, Input, PlayerDelta, PlayerId, PlayerStats, RoomSnapshot};
use tokio::sync::mpsc;

pub mod redis;
pub use redis::{RedisBackplane, RedisConfig};

/// A room's id (URL-safe).
pub type RoomId = String;

/// A node's id.
pub type NodeId = String;

/// What the directory knows about a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomEntry {
    /// The id.
    pub id: RoomId,
    /// The invite code (short, shareable).
    pub invite: String,
    /// The game and its options.
    pub options: GameOptions,
    /// Millis when it was created.
    pub created_ms: u64,
}

/// Ownership of a room: the node and the fencing epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The owning node.
    pub node: NodeId,
    /// The fencing epoch (rises with each claim).
    pub epoch: u64,
}

/// What is persisted for a room: its snapshot and, per player, the last
/// client sequence number applied (so a resend after a failover is still
/// applied at most once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredRoom {
    /// The directory entry (so a store that lost its data can have the
    /// room's directory entry and invite re-established by the owner).
    pub entry: RoomEntry,
    /// The room snapshot (its `version` only ever rises).
    pub snapshot: RoomSnapshot,
    /// Player id → last applied client `seq`.
    #[serde(default)]
    pub seqs: BTreeMap<String, u64>,
}

/// An incremental snapshot: the inputs a room accepted since its last
/// write. A room's snapshot is the replay log of its inputs, so writing it
/// whole costs O(inputs) per command; appending costs O(1). The owner
/// writes a whole [`StoredRoom`] now and then (compaction) and whenever an
/// append is refused with [`BackplaneError::Gap`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomAppend {
    /// How many inputs the store must already hold for this to apply.
    pub base: usize,
    /// The inputs after the first `base`.
    pub inputs: Vec<Input>,
    /// The room version after them (only ever rises).
    pub version: u64,
    /// Player id → last applied client `seq` (the whole map).
    pub seqs: BTreeMap<String, u64>,
}

/// A player waiting for a quick match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// Unique ticket id.
    pub id: u64,
    /// The waiting player.
    pub player: String,
}

/// What arrives in this node's inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inbound {
    /// A message another node (or this one) sent.
    Message(String),
    /// The subscription was re-established after a loss: messages sent in
    /// between may be lost, so the node should resync what it routes.
    Resubscribed,
}

/// Why a backplane call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackplaneError {
    /// The room id or invite code is already registered.
    #[error("room {0} already exists")]
    Exists(String),
    /// The room is owned by a live node other than the caller.
    #[error("room {room} is owned by node {owner}")]
    Owned {
        /// The room.
        room: RoomId,
        /// Its owner.
        owner: NodeId,
    },
    /// The caller's epoch is stale: it no longer owns the room.
    #[error("stale epoch {epoch} for room {room}")]
    Fenced {
        /// The room.
        room: RoomId,
        /// The caller's epoch.
        epoch: u64,
    },
    /// A snapshot older than the stored one.
    #[error("snapshot version {version} is older than the stored one")]
    StaleVersion {
        /// The refused version.
        version: u64,
    },
    /// An append does not continue the stored room (it holds `stored`
    /// inputs, or nothing at all): write the whole room instead.
    #[error("the store holds {stored} inputs, not {base}: a whole snapshot is needed")]
    Gap {
        /// Inputs the store holds.
        stored: usize,
        /// Inputs the append assumed.
        base: usize,
    },
    /// The store could not be reached (or timed out).
    #[error("backplane unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be read back.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
}

impl BackplaneError {
    /// Whether the caller lost ownership (as opposed to a store outage).
    pub fn is_fenced(&self) -> bool {
        matches!(
            self,
            BackplaneError::Fenced { .. } | BackplaneError::StaleVersion { .. }
        )
    }
}

/// A result of the backplane.
pub type Result<T> = std::result::Result<T, BackplaneError>;

/// The cluster seam: directory, ownership, liveness, snapshots, routing,
/// matchmaking, records, statistics.
pub trait Backplane: Send + Sync + std::fmt::Debug + 'static {
    /// This node's id.
    fn node_id(&self) -> &str;

    /// The liveness lease: a node whose last [`Backplane::heartbeat`] is
    /// older than this is dead, and its rooms may be claimed.
    fn lease(&self) -> Duration;

    /// Renews this node's liveness lease (the node calls it every third of
    /// a lease or so).
    fn heartbeat(&self) -> BoxFuture<'_, Result<()>>;

    /// Whether a node's lease is current.
    fn node_alive(&self, node: &str) -> BoxFuture<'_, Result<bool>>;

    /// Marks this node as gone at once (clean exit after a drain), so no
    /// one waits for its lease to expire.
    fn leave(&self) -> BoxFuture<'_, Result<()>>;

    /// Registers a new room (id and invite code must be unused).
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>>;

    /// Looks a room up by id.
    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>>;

    /// Resolves an invite code to its room.
    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>>;

    /// Claims a room for this node: atomic; succeeds when the room has no
    /// owner, is this node's, or its owner is dead; returns the new lease
    /// (epoch + 1). A live other owner gives [`BackplaneError::Owned`].
    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>>;

    /// Releases a room this node owns with `epoch` (drain, or a finished
    /// room): the owner is cleared and the epoch bumped. With
    /// `needs_owner`, the room is listed by [`Backplane::orphans`] until
    /// someone claims it (its timers must keep running).
    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>>;

    /// Releases a room nobody is using (no socket, nothing running), like
    /// `release(id, epoch, false)`, and has the store delete it (entry,
    /// invite, snapshot and game records) once `keep` has passed, unless
    /// someone claims it before: a join restores it, and the claim keeps
    /// it. Without this the store holds every room ever created.
    fn release_idle(&self, id: &str, epoch: u64, keep: Duration) -> BoxFuture<'_, Result<()>>;

    /// The room's current owner (routing); `None` when released.
    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>>;

    /// Rooms that need an owner: owned by a dead node, or released with
    /// `needs_owner`. The background sweep claims them.
    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>>;

    /// Stores a room, fenced by `epoch` (compare-and-set); versions never
    /// go back. If the store has lost the room entirely (a store
    /// restarted without persistence), the write
    /// re-establishes this node as owner at `epoch`, and the directory
    /// entry and invite from `room.entry`.
    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>>;

    /// Appends a room's new inputs to its stored snapshot, fenced like
    /// [`Backplane::save_snapshot`]; [`BackplaneError::Gap`] when the store
    /// does not hold exactly `append.base` inputs (or lost the room).
    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>>;

    /// The latest stored room (whole, appends included).
    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>>;

    /// Sends a message to a node's inbox (at most once; lost if the node is
    /// not subscribed).
    fn send(&self, node: &str, message: String) -> BoxFuture<'_, Result<()>>;

    /// This node's inbox; `Some` on the first call only. The implementation
    /// keeps the subscription alive across outages and says so with
    /// [`Inbound::Resubscribed`].
    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>>;

    /// Quick match: atomically takes the oldest waiting ticket of another
    /// player under `key`, or (none waiting) queues `ticket` and returns
    /// `None`.
    fn match_or_wait(&self, key: &str, ticket: Ticket) -> BoxFuture<'_, Result<Option<Ticket>>>;

    /// Removes a queued ticket; `false` if it was already taken (a partner
    /// is delivering a room to it).
    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>>;

    /// Delivers the matched room (opaque JSON) to a taken ticket.
    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>>;

    /// The room delivered to a ticket, if any yet (taken once).
    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>>;

    /// Stores a finished game's record (opaque JSON), keyed by room and
    /// game number.
    fn save_record(&self, room: &str, game: u32, record: String) -> BoxFuture<'_, Result<()>>;

    /// The stored records of a room, by game number.
    fn records(&self, room: &str) -> BoxFuture<'_, Result<Vec<String>>>;

    /// Adds a finished game's delta to a player's statistics.
    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>>;

    /// A player's statistics (empty if none).
    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>>;
}

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
    beats: HashMap<NodeId, Instant>,
    inboxes: HashMap<NodeId, mpsc::UnboundedSender<Inbound>>,
    queues: HashMap<String, Vec<Ticket>>,
    taken: HashSet<u64>,
    delivered: HashMap<u64, String>,
    records: ByRoom<BTreeMap<u32, String>>,
    /// Rooms released idle, by when they are deleted, oldest first (a
    /// node's `keep` is fixed, so release order is deadline order).
    forget: VecDeque<(Instant, RoomId)>,
    /// The deadline of each room still due for deletion (a claim takes it
    /// out; its entry in `forget` is then stale).
    forget_at: ByRoom<Instant>,
}

impl State {
    fn alive(&self, node: &str, lease: Duration) -> bool {
        self.beats.get(node).is_some_and(|t| t.elapsed() < lease)
    }

    /// Deletes the rooms whose `release_idle` keep has run out. Runs on
    /// every access: with nothing due it is one comparison.
    fn purge(&mut self, now: Instant) {
        while let Some(&(at, _)) = self.forget.front()
            && at <= now
        {
            let Some((at, id)) = self.forget.pop_front() else {
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

impl Backplane for InProcess {
    fn node_id(&self) -> &str {
        &self.node
    }

    fn lease(&self) -> Duration {
        self.lease
    }

    fn heartbeat(&self) -> BoxFuture<'_, Result<()>> {
        self.with(|s| s.beats.insert(self.node.clone(), Instant::now()));
        ready(Ok(()))
    }

    fn node_alive(&self, node: &str) -> BoxFuture<'_, Result<bool>> {
        ready(Ok(self.with(|s| s.alive(node, self.lease))))
    }

    fn leave(&self) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            s.beats.remove(&self.node);
            s.inboxes.remove(&self.node);
        });
        ready(Ok(()))
    }

    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            if s.rooms.contains_key(&entry.id) {
                return Err(BackplaneError::Exists(entry.id));
            }
            if s.invites.contains_key(&entry.invite) {
                return Err(BackplaneError::Exists(entry.invite));
            }
            s.invites.insert(entry.invite.clone(), entry.id.clone());
            s.rooms.insert(entry.id.clone(), entry);
            Ok(())
        }))
    }

    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        ready(Ok(self.with(|s| s.rooms.get(id).cloned())))
    }

    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        ready(Ok(self.with(|s| {
            s.invites.get(code).and_then(|id| s.rooms.get(id)).cloned()
        })))
    }

    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>> {
        let node = self.node.clone();
        let lease = self.lease;
        ready(self.with(|s| {
            if let Some(l) = s.owners.get(id)
                && l.node != node
                && s.alive(&l.node, lease)
            {
                return Err(BackplaneError::Owned {
                    room: id.to_string(),
                    owner: l.node.clone(),
                });
            }
            let e = s.epochs.entry(id.to_string()).or_insert(0);
            *e += 1;
            let lease = Lease { node, epoch: *e };
            s.owners.insert(id.to_string(), lease.clone());
            s.needs_owner.remove(id);
            s.forget_at.remove(id);
            Ok(lease)
        }))
    }

    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| self.release_in(s, id, epoch, needs_owner)))
    }

    fn release_idle(&self, id: &str, epoch: u64, keep: Duration) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.release_in(s, id, epoch, false)?;
            let at = Instant::now() + keep;
            s.forget_at.insert(id.to_string(), at);
            s.forget.push_back((at, id.to_string()));
            Ok(())
        }))
    }

    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>> {
        ready(Ok(self.with(|s| s.owners.get(id).cloned())))
    }

    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>> {
        ready(Ok(self.with(|s| {
            let mut v: Vec<RoomId> = s
                .owners
                .iter()
                .filter(|(_, l)| !s.alive(&l.node, self.lease))
                .map(|(id, _)| id.clone())
                .chain(s.needs_owner.iter().cloned())
                .collect();
            v.sort();
            v.dedup();
            v
        })))
    }

    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.check_fence(s, id, epoch)?;
            if let Some(old) = s.snapshots.get(id)
                && old.snapshot.version > room.snapshot.version
            {
                return Err(BackplaneError::StaleVersion {
                    version: room.snapshot.version,
                });
            }
            s.snapshots.insert(id.to_string(), room);
            Ok(())
        }))
    }

    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.check_fence(s, id, epoch)?;
            let Some(stored) = s.snapshots.get_mut(id) else {
                return Err(BackplaneError::Gap {
                    stored: 0,
                    base: append.base,
                });
            };
            if stored.snapshot.version > append.version {
                return Err(BackplaneError::StaleVersion {
                    version: append.version,
                });
            }
            if stored.snapshot.inputs.len() != append.base {
                return Err(BackplaneError::Gap {
                    stored: stored.snapshot.inputs.len(),
                    base: append.base,
                });
            }
            stored.snapshot.inputs.extend(append.inputs);
            stored.snapshot.version = append.version;
            stored.seqs = append.seqs;
            Ok(())
        }))
    }

    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>> {
        ready(Ok(self.with(|s| s.snapshots.get(id).cloned())))
    }

    fn send(&self, node: &str, message: String) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            if let Some(tx) = s.inboxes.get(node) {
                let _ = tx.send(Inbound::Message(message));
            }
        });
        ready(Ok(()))
    }

    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>> {
        self.inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn match_or_wait(&self, key: &str, ticket: Ticket) -> BoxFuture<'_, Result<Option<Ticket>>> {
        ready(Ok(self.with(|s| {
            let q = s.queues.entry(key.to_string()).or_default();
            match q.iter().position(|t| t.player != ticket.player) {
                Some(i) => {
                    let t = q.remove(i);
                    s.taken.insert(t.id);
                    Some(t)
                }
                None => {
                    q.push(ticket);
                    None
                }
            }
        })))
    }

    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>> {
        ready(Ok(self.with(|s| {
            let q = s.queues.entry(key.to_string()).or_default();
            let before = q.len();
            q.retain(|t| t.id != ticket);
            q.len() < before
        })))
    }

    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            s.taken.remove(&ticket);
            s.delivered.insert(ticket, room);
        });
        ready(Ok(()))
    }

    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>> {
        ready(Ok(self.with(|s| s.delivered.remove(&ticket))))
    }

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

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll, Waker};

    use tabula_room::{Room, RoomConfig};

    use super::*;

    /// The in-process futures are ready at once.
    fn block_on<T>(mut f: BoxFuture<'_, T>) -> T {
        match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("in-process futures are ready at once"),
        }
    }

    fn entry(id: &str, invite: &str) -> RoomEntry {
        RoomEntry {
            id: id.into(),
            invite: invite.into(),
            options: GameOptions::default(),
            created_ms: 0,
        }
    }

    #[test]
    fn directory_registers_and_resolves_invites() {
        let b = InProcess::new("n1");
        block_on(b.register(entry("r1", "INV1"))).unwrap();
        assert!(block_on(b.register(entry("r1", "X"))).is_err());
        assert!(block_on(b.register(entry("r2", "INV1"))).is_err());
        assert_eq!(
            block_on(b.resolve_invite("INV1")).unwrap().unwrap().id,
            "r1"
        );
        assert!(block_on(b.lookup("nope")).unwrap().is_none());
    }

    #[test]
    fn stale_epochs_cannot_write_snapshots() {
        let b = InProcess::new("n1");
        let snap = StoredRoom {
            entry: entry("r1", "INV1"),
            snapshot: Room::new(RoomConfig::default()).snapshot(),
            seqs: BTreeMap::new(),
        };
        let l1 = block_on(b.claim("r1")).unwrap();
        block_on(b.save_snapshot("r1", l1.epoch, snap.clone())).unwrap();
        block_on(b.release("r1", l1.epoch, false)).unwrap();
        let l2 = block_on(b.claim("r1")).unwrap();
        assert!(l2.epoch > l1.epoch);
        assert!(matches!(
            block_on(b.save_snapshot("r1", l1.epoch, snap.clone())),
            Err(BackplaneError::Fenced { .. })
        ));
        block_on(b.save_snapshot("r1", l2.epoch, snap.clone())).unwrap();
        assert_eq!(block_on(b.load_snapshot("r1")).unwrap(), Some(snap));
    }

    #[test]
    fn a_room_released_idle_is_forgotten_after_its_keep_unless_claimed_again() {
        let b = InProcess::new("n1");
        let keep = Duration::from_millis(40);
        let stored = |id: &str, invite: &str| StoredRoom {
            entry: entry(id, invite),
            snapshot: Room::new(RoomConfig::default()).snapshot(),
            seqs: BTreeMap::new(),
        };
        for (id, invite) in [("r1", "INV1"), ("r2", "INV2")] {
            block_on(b.register(entry(id, invite))).unwrap();
            let l = block_on(b.claim(id)).unwrap();
            block_on(b.save_snapshot(id, l.epoch, stored(id, invite))).unwrap();
            block_on(b.save_record(id, 1, "{}".into())).unwrap();
            // Only the owner at its epoch may release it.
            assert!(matches!(
                block_on(b.release_idle(id, l.epoch + 1, keep)),
                Err(BackplaneError::Fenced { .. })
            ));
            block_on(b.release_idle(id, l.epoch, keep)).unwrap();
            assert_eq!(block_on(b.owner(id)).unwrap(), None);
        }
        // Not listed for an owner, and kept until the keep runs out
        assert!(block_on(b.orphans()).unwrap().is_empty());
        assert!(block_on(b.load_snapshot("r1")).unwrap().is_some());
        // A claim (a join restoring it) keeps r2
        block_on(b.claim("r2")).unwrap();
        std::thread::sleep(keep + Duration::from_millis(20));
        assert!(block_on(b.lookup("r1")).unwrap().is_none());
        assert!(block_on(b.resolve_invite("INV1")).unwrap().is_none());
        assert!(block_on(b.load_snapshot("r1")).unwrap().is_none());
        assert!(block_on(b.records("r1")).unwrap().is_empty());
        assert_eq!(
            block_on(b.resolve_invite("INV2")).unwrap().unwrap().id,
            "r2"
        );
        assert!(block_on(b.load_snapshot("r2")).unwrap().is_some());
        assert_eq!(block_on(b.records("r2")).unwrap().len(), 1);
        // The forgotten room's id and invite are free again
        block_on(b.register(entry("r1", "INV1"))).unwrap();
    }

    #[test]
    fn appends_extend_the_stored_room_and_refuse_gaps() {
        use tabula_room::{Actor, Command};
        let b = InProcess::new("n1");
        let mut room = Room::new(RoomConfig::default());
        let full = |room: &Room| StoredRoom {
            entry: entry("r1", "INV1"),
            snapshot: room.snapshot(),
            seqs: BTreeMap::new(),
        };
        let append = |room: &Room, base: usize| RoomAppend {
            base,
            inputs: room.inputs_since(base).to_vec(),
            version: room.version(),
            seqs: BTreeMap::from([("tg:1".to_string(), 7)]),
        };
        let l = block_on(b.claim("r1")).unwrap();
        // Nothing stored yet: an append is a gap.
        assert!(matches!(
            block_on(b.append_inputs("r1", l.epoch, append(&room, 0))),
            Err(BackplaneError::Gap { stored: 0, .. })
        ));
        block_on(b.save_snapshot("r1", l.epoch, full(&room))).unwrap();
        for (i, p) in ["tg:1", "tg:2"].into_iter().enumerate() {
            room.apply(
                Command::Sit { seat: None },
                Actor::Player(PlayerId::new(p)),
                i as u64,
            )
            .unwrap();
        }
        block_on(b.append_inputs("r1", l.epoch, append(&room, 0))).unwrap();
        let loaded = block_on(b.load_snapshot("r1")).unwrap().unwrap();
        assert_eq!(loaded.snapshot, room.snapshot());
        assert_eq!(loaded.seqs["tg:1"], 7);
        // The same append again no longer continues the stored log.
        assert!(matches!(
            block_on(b.append_inputs("r1", l.epoch, append(&room, 0))),
            Err(BackplaneError::Gap { stored: 2, base: 0 })
        ));
        // Fenced like a whole write.
        block_on(b.release("r1", l.epoch, false)).unwrap();
        assert!(matches!(
            block_on(b.append_inputs("r1", l.epoch, append(&room, 2))),
            Err(BackplaneError::Fenced { .. })
        ));
    }

    #[test]
    fn stats_accumulate() {
        let b = InProcess::new("n1");
        let d = PlayerDelta {
            seat: tabula_room::SeatId::A,
            player: Some(PlayerId::new("p")),
            bot_level: None,
            opponent_bot_level: None,
            result: tabula_room::PlayerResult::Win,
            points_won: 2,
            points_lost: 0,
            mars: true,
        };
        block_on(b.record_stats(PlayerId::new("p"), d)).unwrap();
        assert_eq!(block_on(b.stats("p")).unwrap().games, 1);
    }

    #[test]
    fn dead_owners_lose_their_rooms_and_live_ones_keep_them() {
        let a = InProcess::new("a").with_lease(Duration::from_millis(50));
        let b = a.member("b");
        let l = block_on(a.claim("r1")).unwrap();
        assert!(matches!(
            block_on(b.claim("r1")),
            Err(BackplaneError::Owned { .. })
        ));
        assert!(block_on(b.orphans()).unwrap().is_empty());
        std::thread::sleep(Duration::from_millis(80));
        block_on(b.heartbeat()).unwrap();
        assert!(!block_on(b.node_alive("a")).unwrap());
        assert_eq!(block_on(b.orphans()).unwrap(), vec!["r1".to_string()]);
        let l2 = block_on(b.claim("r1")).unwrap();
        assert_eq!((l2.node.as_str(), l2.epoch), ("b", l.epoch + 1));
        let snap = StoredRoom {
            entry: entry("r1", "INV1"),
            snapshot: Room::new(RoomConfig::default()).snapshot(),
            seqs: BTreeMap::new(),
        };
        assert!(
            block_on(a.save_snapshot("r1", l.epoch, snap.clone()))
                .unwrap_err()
                .is_fenced()
        );
        block_on(b.release("r1", l2.epoch, true)).unwrap();
        assert_eq!(block_on(a.orphans()).unwrap(), vec!["r1".to_string()]);
        block_on(a.heartbeat()).unwrap();
        block_on(a.claim("r1")).unwrap();
        assert!(block_on(a.orphans()).unwrap().is_empty());
    }

    #[test]
    fn messages_reach_the_named_node_only() {
        let a = InProcess::new("a");
        let b = a.member("b");
        let mut ia = a.take_inbox().unwrap();
        let mut ib = b.take_inbox().unwrap();
        assert!(a.take_inbox().is_none());
        block_on(a.send("b", "hello".into())).unwrap();
        assert_eq!(ib.try_recv().unwrap(), Inbound::Message("hello".into()));
        assert!(ia.try_recv().is_err());
    }

    #[test]
    fn quick_match_pairs_two_players_once() {
        let a = InProcess::new("a");
        let t = |id, p: &str| Ticket {
            id,
            player: p.into(),
        };
        assert_eq!(block_on(a.match_or_wait("k", t(1, "p"))).unwrap(), None);
        // The same player does not match himself.
        assert_eq!(block_on(a.match_or_wait("k", t(2, "p"))).unwrap(), None);
        assert_eq!(
            block_on(a.match_or_wait("k", t(3, "q"))).unwrap(),
            Some(t(1, "p"))
        );
        assert!(!block_on(a.cancel_ticket("k", 1)).unwrap());
        assert!(block_on(a.cancel_ticket("k", 2)).unwrap());
        block_on(a.deliver_match(1, "room".into())).unwrap();
        assert_eq!(block_on(a.poll_match(1)).unwrap(), Some("room".into()));
        assert_eq!(block_on(a.poll_match(1)).unwrap(), None);
    }
}
