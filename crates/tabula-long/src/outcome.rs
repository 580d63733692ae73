//! Results: oin, mars, koks (RULES.md "Result").

use serde::{Deserialize, Serialize};

use crate::position::{CHECKERS, Color, Position};
use crate::variant::Scoring;

/// The kind of a win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinKind {
    /// The loser bore off at least one checker (1 point). Under
    /// `scoring=single` every win is reported as oin.
    Oin,
    /// The loser bore off none (2 points).
    Mars,
    /// The loser bore off none and still has a checker in the winner's home
    /// or on his own head (3 points); see [`is_koks`].
    Koks,
}

impl WinKind {
    /// Points for this kind (before any cube).
    pub fn points(self) -> u8 {
        match self {
            WinKind::Oin => 1,
            WinKind::Mars => 2,
            WinKind::Koks => 3,
        }
    }
}

/// A finished game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// Who won.
    pub winner: Color,
    /// The kind of win under the position's scoring option.
    pub kind: WinKind,
    /// Points won: `kind.points()`.
    pub points: u8,
}

/// The koks reading this engine uses (seed 004: «в вашей стартовой
/// четверти (1–6 для чёрных, 13–18 для белых) или на голове»): the loser
/// has borne off none **and** still has at least one checker either in the
/// winner's home quarter (points 1–6 if white won, 13–18 if black won) or
/// on the loser's own head (24 for white, 12 for black).
pub fn is_koks(pos: &Position, winner: Color) -> bool {
    let loser = winner.other();
    pos.off(loser) == 0
        && (pos.checkers(loser, loser.head()) > 0
            || winner.home().iter().any(|&p| pos.checkers(loser, p) > 0))
}

fn scored(kind: WinKind, scoring: Scoring) -> WinKind {
    match (scoring, kind) {
        (Scoring::Single, _) => WinKind::Oin,
        (Scoring::OinMars, WinKind::Koks) => WinKind::Mars,
        (_, k) => k,
    }
}

fn outcome_of(winner: Color, kind: WinKind, scoring: Scoring) -> Outcome {
    let kind = scored(kind, scoring);
    Outcome {
        winner,
        kind,
        points: kind.points(),
    }
}

impl Position {
    /// The result if a side has borne off all 15, scored under the
    /// position's `scoring` option.
    pub fn outcome(&self) -> Option<Outcome> {
        let winner = [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.off(c) == CHECKERS)?;
        let loser = winner.other();
        let kind = if self.off(loser) > 0 {
            WinKind::Oin
        } else if is_koks(self, winner) {
            WinKind::Koks
        } else {
            WinKind::Mars
        };
        Some(outcome_of(winner, kind, self.variant.scoring))
    }
}

/// The result when `resigner` resigns (or stands up, or forfeits by
/// disconnecting) in `pos` (seed 002): mars if he has borne off none, else
/// oin; under `scoring=single`, 1 point.
pub fn resign_outcome(pos: &Position, resigner: Color) -> Outcome {
    let kind = if pos.off(resigner) == 0 {
        WinKind::Mars
    } else {
        WinKind::Oin
    };
    outcome_of(resigner.other(), kind, pos.variant.scoring)
}
