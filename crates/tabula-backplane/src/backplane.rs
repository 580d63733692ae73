//! [`Backplane`]: every concern together.

use crate::{Archive, Lobby, NodeBus, Notices, RoomStore, TournamentStore};

/// The whole cluster seam: every concern of the backplane. Implemented for
/// whatever implements the four parts, so `Arc<dyn Backplane>` offers all
/// their methods (a trait object's supertrait methods need no import).
///
/// The parts of one backplane speak for one node: the store's "this node"
/// is the bus's [`NodeBus::node_id`], and its "dead" is the bus's
/// liveness.
pub trait Backplane: RoomStore + NodeBus + Lobby + Archive + Notices + TournamentStore {}

impl<T: RoomStore + NodeBus + Lobby + Archive + Notices + TournamentStore> Backplane for T {}
