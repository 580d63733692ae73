//! Player statistics (seeds 001, 002), a pure aggregate of [`PlayerDelta`]s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::event::PlayerDelta;
use crate::game::GameKind;
use crate::result::PlayerResult;
use crate::types::BotLevel;

/// Results against one bot level (seed 001).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LevelStats {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Current streak: positive for wins in a row, negative for losses.
    pub current_streak: i32,
    /// Longest run of wins.
    pub best_streak: u32,
}

impl LevelStats {
    /// Wins / (wins + losses), 0 with no games.
    pub fn win_rate(&self) -> f64 {
        let n = self.wins + self.losses;
        if n == 0 {
            0.0
        } else {
            f64::from(self.wins) / f64::from(n)
        }
    }
}

/// One player's statistics (seed 002): games played; wins and losses
/// counted in points (oin 1, mars 2 — so `games` ≠ wins + losses); how many
/// of the won and lost games were mars; per bot level (seed 001). These
/// count every game together; `by_game` holds the same figures for each
/// kind of game on its own (so a Thud! loss is not in a long-nardy row).
/// Games recorded before `byGame` existed are in the totals only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlayerStats {
    /// Games played.
    pub games: u32,
    /// Points won.
    pub wins: u32,
    /// Points lost.
    pub losses: u32,
    /// Won games that were mars (or koks, gammon, backgammon).
    pub mars_wins: u32,
    /// Lost games that were mars (or worse).
    pub mars_losses: u32,
    /// Drawn games (Thud!).
    pub draws: u32,
    /// Results against each bot level.
    // JSON's keys are strings: the level's digit (`"1"`).
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, LevelStats>))]
    pub by_bot_level: BTreeMap<BotLevel, LevelStats>,
    /// The same for each kind of game (its own `byGame` always empty);
    /// keyed by the game's wire name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub by_game: BTreeMap<GameKind, PlayerStats>,
}

impl PlayerStats {
    /// Adds one finished game, to the totals and to its kind's.
    pub fn record(&mut self, d: &PlayerDelta) {
        self.count(d);
        if let Some(game) = d.game {
            self.by_game.entry(game).or_default().count(d);
        }
    }

    fn count(&mut self, d: &PlayerDelta) {
        self.games += 1;
        self.wins += d.points_won;
        self.losses += d.points_lost;
        match d.result {
            PlayerResult::Win if d.mars => self.mars_wins += 1,
            PlayerResult::Lose if d.mars => self.mars_losses += 1,
            PlayerResult::Draw => self.draws += 1,
            _ => {}
        }
        if let Some(level) = d.opponent_bot_level {
            let l = self.by_bot_level.entry(level).or_default();
            match d.result {
                PlayerResult::Win => {
                    l.wins += 1;
                    l.current_streak = l.current_streak.max(0) + 1;
                    l.best_streak = l.best_streak.max(l.current_streak.unsigned_abs());
                }
                PlayerResult::Lose => {
                    l.losses += 1;
                    l.current_streak = l.current_streak.min(0) - 1;
                }
                PlayerResult::Draw => l.current_streak = 0,
            }
        }
    }
}
