//! How a game ended: its result, seat-neutral, and the kinds and reasons
//! it is told in. Below the events (which carry them), the records (which
//! keep them) and the narration (which words them).

use serde::{Deserialize, Serialize};

use crate::types::SeatId;

/// The kind of a finished game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum ResultKind {
    /// Long nardy: the loser bore off at least one checker (1 point).
    Oin,
    /// Long nardy: the loser bore off none (2 points).
    Mars,
    /// Long nardy: mars with a checker still deep at home (3 points).
    Koks,
    /// Backgammon single game.
    Single,
    /// Backgammon gammon.
    Gammon,
    /// Backgammon backgammon.
    Backgammon,
    /// The loser dropped a double: the game at the stake before it.
    Drop,
    /// Thud!: the winner had the larger total over both rounds.
    ThudTotals,
    /// Thud!: equal totals.
    Draw,
}

impl ResultKind {
    /// Whether this counts as a mars for statistics (the loser bore off
    /// none: mars, koks, gammon, backgammon).
    pub fn is_mars(self) -> bool {
        matches!(
            self,
            ResultKind::Mars | ResultKind::Koks | ResultKind::Gammon | ResultKind::Backgammon
        )
    }
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum EndReason {
    /// The winner bore off all fifteen.
    BorneOff,
    /// The loser resigned.
    Resigned,
    /// The loser stood up during the game (a resignation).
    StoodUp,
    /// The loser stayed disconnected past the grace period.
    Disconnected,
    /// The loser dropped a double.
    Dropped,
    /// Thud!: both rounds are over.
    RoundsOver,
    /// The loser's clock ran out (a dice game; in Thud! a timeout ends
    /// the round, and the game ends when both rounds are over).
    Timeout,
}

/// `result` of `game_over` from one player's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PlayerResult {
    /// This player won.
    Win,
    /// This player lost.
    Lose,
    /// Thud!: equal totals.
    Draw,
}

/// A finished game's result, seat-neutral.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GameResult {
    /// The winner; `None` for a Thud! draw.
    pub winner: Option<SeatId>,
    /// The kind of win.
    pub kind: ResultKind,
    /// How it ended.
    pub reason: EndReason,
    /// Points before the cube (oin 1, mars 2, koks 3, …; Thud! 1).
    pub base_points: u32,
    /// The cube value (1 without a cube).
    pub cube: u32,
    /// Points won: `base_points × cube` (a drop: the cube before the double).
    pub points: u32,
    /// Thud!: totals of seats A and B over both rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thud_totals: Option<[u32; 2]>,
}

/// The per-game results summary (seed 001's results screen).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    /// Checkers borne off by seats A and B (0 for Thud!).
    pub borne_off: [u8; 2],
    /// Turns played (moves) by seats A and B (passes included; Thud! plies).
    pub moves: [u32; 2],
    /// Doubles rolled by seats A and B.
    pub doubles: [u32; 2],
    /// Hits made by seats A and B (backgammon; Thud!: pieces captured).
    pub hits: [u32; 2],
}
