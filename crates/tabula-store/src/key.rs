//! [`GameKey`]: a stored game's key, which the store's errors name.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A game's key: its room and its number in the room's match.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GameKey {
    /// The room's id.
    pub room: String,
    /// The 1-based game number in the room's match.
    pub game: u32,
}

impl GameKey {
    /// A key.
    pub fn new(room: impl Into<String>, game: u32) -> GameKey {
        GameKey {
            room: room.into(),
            game,
        }
    }
}

impl fmt::Display for GameKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.room, self.game)
    }
}
