//! The position type and the facts read off it (checker counts, outcome).

use std::fmt;

use crate::options::Scoring;

/// The mover's bar, as a point number in the mover-relative numbering
/// (a checker on the bar is 25 pips from home).
pub const BAR: u8 = 25;
/// Borne off, as a point number in the mover-relative numbering.
pub const OFF: u8 = 0;

/// The two colours. White moves first in the initial position.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Light checkers.
    White,
    /// Dark checkers.
    Black,
}

impl Side {
    /// The other colour.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `"white"` or `"black"`.
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game was won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WinKind {
    /// The loser had borne off at least one checker.
    Single,
    /// The loser had borne off none.
    Gammon,
    /// The loser had borne off none and still had a checker on the bar or in
    /// the winner's home board.
    Backgammon,
}

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Who bore off all fifteen checkers.
    pub winner: Side,
    /// Single, gammon or backgammon (always reported, whatever the scoring).
    pub kind: WinKind,
    /// Points won under the scoring in force: always 1 under
    /// [`Scoring::Single`], 1 / 2 / 3 under [`Scoring::Gammons`].
    pub points: u8,
}

/// A legal backgammon position with the side on roll.
///
/// The board is stored relative to the side on roll (the *mover*): see
/// [`Position::board`]. Positions compare equal when the checkers and the
/// side on roll are the same.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub(crate) board: [i8; 26],
    pub(crate) turn: Side,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} on roll, {})", self.turn, self.gnubg_id())
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::initial()
    }
}

pub(crate) const INITIAL_BOARD: [i8; 26] = {
    let mut b = [0i8; 26];
    b[24] = 2;
    b[13] = 5;
    b[8] = 3;
    b[6] = 5;
    // The opponent's 24, 13, 8 and 6 points in the mover's numbering.
    b[1] = -2;
    b[12] = -5;
    b[17] = -3;
    b[19] = -5;
    b
};

impl Position {
    /// The starting position, White on roll: in each side's own numbering two
    /// checkers on the 24-point, five on the 13, three on the 8, five on the 6.
    pub fn initial() -> Position {
        Position {
            board: INITIAL_BOARD,
            turn: Side::White,
        }
    }

    /// The raw mover-relative board (see [`Position::from_board`]).
    pub fn board(&self) -> &[i8; 26] {
        &self.board
    }

    /// The side on roll.
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// The same checkers with the other side on roll (the board flipped).
    /// After a play, call this to hand the dice over.
    pub fn pass_turn(&self) -> Position {
        Position {
            board: flip(&self.board),
            turn: self.turn.opponent(),
        }
    }

    /// Checkers of `side` on `point`, numbered in that side's own numbering
    /// (1..=24, home board 1..=6); 25 ([`BAR`]) gives its bar, 0 ([`OFF`])
    /// its borne-off checkers.
    pub fn checkers(&self, side: Side, point: u8) -> u8 {
        match point {
            OFF => self.off(side),
            BAR => self.bar(side),
            p if p <= 24 => {
                if side == self.turn {
                    self.board[p as usize].max(0) as u8
                } else {
                    (-self.board[25 - p as usize]).max(0) as u8
                }
            }
            _ => 0,
        }
    }

    /// Checkers of `side` on the bar.
    pub fn bar(&self, side: Side) -> u8 {
        if side == self.turn {
            self.board[25] as u8
        } else {
            (-self.board[0]) as u8
        }
    }

    /// Checkers of `side` borne off.
    pub fn off(&self, side: Side) -> u8 {
        let on: i32 = if side == self.turn {
            self.board
                .iter()
                .filter(|&&c| c > 0)
                .map(|&c| i32::from(c))
                .sum()
        } else {
            self.board
                .iter()
                .filter(|&&c| c < 0)
                .map(|&c| -i32::from(c))
                .sum()
        };
        (15 - on) as u8
    }

    /// Pips `side` still has to travel to bear everything off.
    pub fn pip_count(&self, side: Side) -> u32 {
        (1..=25u8)
            .map(|p| u32::from(self.checkers(side, p)) * u32::from(p))
            .sum()
    }

    /// No contact left: every mover checker has passed every opponent
    /// checker (a pure race), so no hit can ever happen again.
    pub fn is_race(&self) -> bool {
        Position::board_is_race(&self.board)
    }

    /// [`Position::is_race`] of a mover-relative board as
    /// [`Position::board`] gives it (for evaluations that see only the
    /// board).
    pub fn board_is_race(board: &[i8; 26]) -> bool {
        // The mover's farthest-back checker must be below the opponent's
        // farthest-back checker (lowest index holding an opponent checker).
        let my_back = (0..=25).rev().find(|&i| board[i] > 0);
        let their_back = (0..=25).find(|&i| board[i] < 0);
        match (my_back, their_back) {
            (Some(m), Some(t)) => m < t,
            _ => true,
        }
    }

    /// The result if the game is over (one side has borne off all fifteen).
    pub fn outcome(&self, scoring: Scoring) -> Option<Outcome> {
        let winner = [self.turn, self.turn.opponent()]
            .into_iter()
            .find(|&s| self.off(s) == 15)?;
        let loser = winner.opponent();
        let kind = if self.off(loser) > 0 {
            WinKind::Single
        } else if self.bar(loser) > 0 || (19..=24).any(|p| self.checkers(loser, p) > 0) {
            WinKind::Backgammon
        } else {
            WinKind::Gammon
        };
        let points = match scoring {
            Scoring::Single => 1,
            Scoring::Gammons => match kind {
                WinKind::Single => 1,
                WinKind::Gammon => 2,
                WinKind::Backgammon => 3,
            },
        };
        Some(Outcome {
            winner,
            kind,
            points,
        })
    }

    /// The game is over.
    pub fn is_over(&self) -> bool {
        self.off(self.turn) == 15 || self.off(self.turn.opponent()) == 15
    }
}

/// The board seen from the other side.
pub(crate) fn flip(b: &[i8; 26]) -> [i8; 26] {
    let mut out = [0i8; 26];
    for i in 0..26 {
        out[i] = -b[25 - i];
    }
    out
}

impl fmt::Display for Position {
    /// A compact text diagram: each side's points in its own numbering.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for side in [self.turn, self.turn.opponent()] {
            let on_roll = if side == self.turn { " (on roll)" } else { "" };
            write!(f, "{side}{on_roll}:")?;
            for p in (1..=24u8).rev() {
                let n = self.checkers(side, p);
                if n > 0 {
                    write!(f, " {p}x{n}")?;
                }
            }
            writeln!(
                f,
                "  bar {} off {} pips {}",
                self.bar(side),
                self.off(side),
                self.pip_count(side)
            )?;
        }
        write!(f, "Position ID {}", self.gnubg_id())
    }
}
