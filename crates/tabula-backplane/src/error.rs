//! The backplane's ids and its one error type, shared by every concern.

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
