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
mod backplane;
mod bus;
mod error;
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
pub use backplane::Backplane;
pub use bus::{Inbound, NodeBus};
pub use error::{BackplaneError, NodeId, Result, RoomId};
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
