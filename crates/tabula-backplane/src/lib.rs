//! The backplane: what the nodes of a cluster share, split by concern into
//! five traits, each implemented by [`InProcess`] and [`RedisBackplane`]:
//!
//! - [`RoomStore`] — the room directory (ids, invite codes), room ownership
//!   with fencing epochs, and each room's snapshot;
//! - [`NodeBus`] — this node's id, node liveness, and node-to-node
//!   messages;
//! - [`Lobby`] — quick match, by rating within a widening window; the
//!   lobby's lists of live games and open challenges, and who is online;
//! - [`Archive`] — finished-game records, player statistics, unfinished
//!   games and profiles;
//! - [`Notices`] — the Telegram bot's outbound notice queue, its send
//!   slots (rate limits across nodes) and the players who started it;
//! - [`TournamentStore`] — each tournament's state and inbox (owned under
//!   the room store's leases, by [`tournament_key`]).
//!
//! [`Backplane`] is all five together (a blanket impl): the node talks to
//! the backplane through `Arc<dyn Backplane>`; every method returns a boxed
//! `Send` future, so an implementation may do network IO without the room
//! code changing. [`InProcess`] is the single-node implementation used by
//! default; [`InProcess::member`] lets several nodes in one process share
//! one (tests of routing and failover without Redis). [`Parts`] assembles
//! a backplane from one implementation per concern, so a fake replaces
//! only the concern it fakes.
//!
//! Architecture Invariant: only this crate knows how ownership, snapshots
//! and the directory are stored (Redis keys included).
//!
//! Ownership: [`RoomStore::claim`] succeeds when the room has no owner, is
//! already this node's, or its owner's liveness lease has expired; it
//! returns a rising epoch. A snapshot write with a stale epoch is refused
//! with [`BackplaneError::Fenced`], and the writer must stop its room at
//! once.
//!
//! Routing: [`NodeBus::send`] delivers an opaque text message to a node's
//! inbox, at most once; [`NodeBus::take_inbox`] yields this node's inbox.
//! What the messages mean is the node's business.

mod archive;
mod bus;
mod in_process;
mod lobby;
mod notices;
mod parts;
mod store;
mod tournaments;

pub mod redis;

pub use archive::{
    Archive, ArchiveBacklog, MAX_PROFILES, MAX_UNFINISHED, ProfilePart, StoredProfile,
};
pub use bus::{Inbound, NodeBus};
pub use in_process::InProcess;
pub use lobby::{
    Lobby, MAX_SHOWN, NEW_PLAYER_RATING, Rematch, Shelf, Shown, Ticket, Window, compatible,
    pick_partner,
};
pub use notices::{NoticeBacklog, Notices, send_slot};
pub use parts::Parts;
pub use redis::{RedisBackplane, RedisConfig};
pub use store::{Lease, RoomAppend, RoomEntry, RoomStore, StoredRoom};
pub use tournaments::{TournamentStore, tournament_key, tournament_of};

/// A room's id (URL-safe).
pub type RoomId = String;

/// A node's id.
pub type NodeId = String;

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

/// The whole cluster seam: every concern of the backplane. Implemented for
/// whatever implements the four parts, so `Arc<dyn Backplane>` offers all
/// their methods (a trait object's supertrait methods need no import).
///
/// The parts of one backplane speak for one node: the store's "this node"
/// is the bus's [`NodeBus::node_id`], and its "dead" is the bus's
/// liveness.
pub trait Backplane: RoomStore + NodeBus + Lobby + Archive + Notices + TournamentStore {}

impl<T: RoomStore + NodeBus + Lobby + Archive + Notices + TournamentStore> Backplane for T {}
