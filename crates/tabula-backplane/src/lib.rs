//! The backplane: the room directory, room ownership with fencing epochs,
//! the snapshot store, routing and player statistics behind one trait,
//! [`Backplane`].
//!
//! The node talks to the backplane only through `Arc<dyn Backplane>`; every
//! method returns a boxed `Send` future, so an implementation may do network
//! IO (the Redis backplane of a later issue) without the room code changing.
//! [`InProcess`] is the single-node implementation used by default.
//!
//! Routing: [`Backplane::owner`] says which node owns a room. A node sends a
//! command to a room it owns directly to the room's actor; commands for a
//! room owned elsewhere go through the cluster backplane (not implemented
//! by [`InProcess`], which is one node by definition).
//!
//! Fencing: [`Backplane::claim`] returns a rising epoch; a snapshot write
//! with a stale epoch is refused with [`BackplaneError::Fenced`], and the
//! writer must stop its room at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tabula_room::{GameOptions, PlayerDelta, PlayerId, PlayerStats, RoomSnapshot};

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
    /// The store could not be reached.
    #[error("backplane unavailable: {0}")]
    Unavailable(String),
}

/// A result of the backplane.
pub type Result<T> = std::result::Result<T, BackplaneError>;

/// The cluster seam: directory, ownership, snapshots, routing, statistics.
pub trait Backplane: Send + Sync + std::fmt::Debug + 'static {
    /// This node's id.
    fn node_id(&self) -> &str;

    /// Registers a new room (id and invite code must be unused).
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>>;

    /// Looks a room up by id.
    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>>;

    /// Resolves an invite code to its room.
    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>>;

    /// Claims a room for this node; returns the new lease.
    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>>;

    /// Releases a room this node owns (drain).
    fn release(&self, id: &str, epoch: u64) -> BoxFuture<'_, Result<()>>;

    /// The room's current owner (routing).
    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>>;

    /// Stores a snapshot, fenced by `epoch`; versions never go back.
    fn save_snapshot(
        &self,
        id: &str,
        epoch: u64,
        snapshot: RoomSnapshot,
    ) -> BoxFuture<'_, Result<()>>;

    /// The latest snapshot of a room.
    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomSnapshot>>>;

    /// Adds a finished game's delta to a player's statistics.
    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>>;

    /// A player's statistics (empty if none).
    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>>;
}

#[derive(Debug, Default)]
struct State {
    rooms: HashMap<RoomId, RoomEntry>,
    invites: HashMap<String, RoomId>,
    owners: HashMap<RoomId, Lease>,
    epochs: HashMap<RoomId, u64>,
    snapshots: HashMap<RoomId, RoomSnapshot>,
    stats: HashMap<String, PlayerStats>,
}

/// The single-node backplane: everything in this process's memory.
#[derive(Debug, Clone)]
pub struct InProcess {
    node: NodeId,
    state: Arc<Mutex<State>>,
}

impl InProcess {
    /// A new, empty backplane for node `node`.
    pub fn new(node: impl Into<NodeId>) -> InProcess {
        InProcess {
            node: node.into(),
            state: Arc::default(),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let mut g = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut g)
    }
}

fn ready<'a, T: Send + 'a>(v: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(v))
}

impl Backplane for InProcess {
    fn node_id(&self) -> &str {
        &self.node
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
        ready(self.with(|s| {
            if let Some(l) = s.owners.get(id)
                && l.node != node
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
            Ok(lease)
        }))
    }

    fn release(&self, id: &str, epoch: u64) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            match s.owners.get(id) {
                Some(l) if l.epoch == epoch => {
                    s.owners.remove(id);
                    *s.epochs.entry(id.to_string()).or_insert(0) += 1;
                }
                _ => {
                    return Err(BackplaneError::Fenced {
                        room: id.to_string(),
                        epoch,
                    });
                }
            }
            Ok(())
        }))
    }

    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>> {
        ready(Ok(self.with(|s| s.owners.get(id).cloned())))
    }

    fn save_snapshot(
        &self,
        id: &str,
        epoch: u64,
        snapshot: RoomSnapshot,
    ) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            match s.owners.get(id) {
                Some(l) if l.epoch == epoch && l.node == self.node => {}
                _ => {
                    return Err(BackplaneError::Fenced {
                        room: id.to_string(),
                        epoch,
                    });
                }
            }
            if let Some(old) = s.snapshots.get(id)
                && old.version > snapshot.version
            {
                return Err(BackplaneError::StaleVersion {
                    version: snapshot.version,
                });
            }
            s.snapshots.insert(id.to_string(), snapshot);
            Ok(())
        }))
    }

    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomSnapshot>>> {
        ready(Ok(self.with(|s| s.snapshots.get(id).cloned())))
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
        let snap = Room::new(RoomConfig::default()).snapshot();
        let l1 = block_on(b.claim("r1")).unwrap();
        block_on(b.save_snapshot("r1", l1.epoch, snap.clone())).unwrap();
        block_on(b.release("r1", l1.epoch)).unwrap();
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
}
