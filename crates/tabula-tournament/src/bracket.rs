//! A knockout's bracket, as the tournament keeps it and the views show it
//! (re-exported by [`knockout`](crate::knockout), which plays it).

use serde::{Deserialize, Serialize};

use crate::{GameId, PlayerId};

/// Whether a match has its winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "state", content = "player", rename_all = "snake_case")]
pub enum Decided {
    /// Not yet.
    Pending,
    /// This player goes on.
    Winner(PlayerId),
    /// Nobody goes on (both absent, or no players).
    Nobody,
}

/// A match of the bracket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Match {
    /// The upper player (none: a bye or nobody came through).
    pub a: Option<PlayerId>,
    /// The lower player.
    pub b: Option<PlayerId>,
    /// The games played, a replay after each draw.
    pub games: Vec<GameId>,
    /// Its winner.
    pub winner: Decided,
}

/// The bracket: the seeds and each round's matches so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Bracket {
    /// The players by seed, first seed first.
    pub seeds: Vec<PlayerId>,
    /// The rounds opened so far, each its matches top to bottom.
    pub rounds: Vec<Vec<Match>>,
    /// How many rounds the bracket has.
    pub total_rounds: u32,
}

impl Bracket {
    /// The champion, once the final is decided.
    pub fn champion(&self) -> Option<&PlayerId> {
        let last = self.rounds.get(self.total_rounds as usize - 1)?;
        match &last.first()?.winner {
            Decided::Winner(p) => Some(p),
            _ => None,
        }
    }
}
