//! The room store: the room directory, room ownership with fencing epochs,
//! and each room's snapshot, behind [`RoomStore`].
//!
//! The directory (id → [`RoomEntry`], invite code → id) is part of the
//! store, not of the lobby: a room's entry and its invite live and die with
//! its ownership and snapshot. [`RoomStore::release_idle`] forgets all of
//! them together, a claim keeps all of them, a whole write re-establishes
//! the entry and invite when the store lost the room, and a lookup falls
//! back to the entry inside the snapshot. Split apart, these would be
//! writes across two stores that could disagree.

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tabula_room::{GameOptions, Input, RoomSnapshot};

use crate::{NodeId, Result, RoomId};

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
    /// An open challenge: listed in the lobby while its one player waits
    /// for anyone to take the other seat (absent: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    /// The tournament whose game this room plays (absent: none; entries
    /// written before tournaments read as none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
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
/// append is refused with [`BackplaneError::Gap`](crate::BackplaneError::Gap).
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

/// The room store: directory, ownership, snapshots.
///
/// Ownership is judged against node liveness, which is the
/// [`NodeBus`](crate::NodeBus)'s: "dead" below means a node whose lease
/// ran out (or that left). "This node" is the implementation's
/// [`NodeBus::node_id`](crate::NodeBus::node_id).
pub trait RoomStore: Send + Sync + std::fmt::Debug + 'static {
    /// Registers a new room (id and invite code must be unused).
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>>;

    /// Looks a room up by id.
    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>>;

    /// Resolves an invite code to its room.
    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>>;

    /// Claims a room for this node: atomic; succeeds when the room has no
    /// owner, is this node's, or its owner is dead; returns the new lease
    /// (epoch + 1). A live other owner gives
    /// [`BackplaneError::Owned`](crate::BackplaneError::Owned).
    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>>;

    /// Releases a room this node owns with `epoch` (drain, or a finished
    /// room): the owner is cleared and the epoch bumped. With
    /// `needs_owner`, the room is listed by [`RoomStore::orphans`] until
    /// someone claims it (its timers must keep running).
    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>>;

    /// Releases a room nobody is using (no socket, nothing running), like
    /// `release(id, epoch, false)`, and has the store delete it (entry,
    /// invite, snapshot and game records) once `keep` has passed, unless
    /// someone claims it before: a join restores it, and the claim keeps
    /// it. Without this the store holds every room ever created.
    ///
    /// With `wake` (ms since the epoch), the room has a deadline of its own
    /// while nobody holds it (a correspondence game's clock): from then on
    /// [`RoomStore::orphans`] lists it, so a node's sweep claims it and its
    /// timer fires, whichever nodes live then. The wake is written before
    /// the release, so a room is never released without it; a claim
    /// clears it (the owner's own timer takes over). `keep` must outlast
    /// the wake.
    fn release_idle(
        &self,
        id: &str,
        epoch: u64,
        keep: Duration,
        wake: Option<u64>,
    ) -> BoxFuture<'_, Result<()>>;

    /// The room's current owner (routing); `None` when released.
    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>>;

    /// Rooms that need an owner: owned by a dead node, released with
    /// `needs_owner`, or released idle with a wake now due and not owned
    /// by a live node since. The background sweep claims them.
    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>>;

    /// Stores a room, fenced by `epoch` (compare-and-set); versions never
    /// go back. If the store has lost the room entirely (a store
    /// restarted without persistence), the write
    /// re-establishes this node as owner at `epoch`, and the directory
    /// entry and invite from `room.entry`.
    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>>;

    /// Appends a room's new inputs to its stored snapshot, fenced like
    /// [`RoomStore::save_snapshot`];
    /// [`BackplaneError::Gap`](crate::BackplaneError::Gap) when the store
    /// does not hold exactly `append.base` inputs (or lost the room).
    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>>;

    /// The latest stored room (whole, appends included).
    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>>;
}
