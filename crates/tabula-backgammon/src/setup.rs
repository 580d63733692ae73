//! The unchecked, serde-friendly position form and its validation.
//!
//! JSON form (what `tabula --position` reads):
//!
//! ```json
//! {"turn":"white",
//!  "white":{"24":2,"13":5,"8":3,"6":5},
//!  "black":{"24":2,"13":5,"8":3,"6":5},
//!  "bar":{"white":0,"black":0},
//!  "off":{"white":0,"black":0}}
//! ```
//!
//! Each side's points are in that side's OWN numbering 1..24 (its home board
//! is 1..6), as backgammon players number them; White's 24-point is Black's
//! 1-point. `bar` and `off` may be left out; checkers neither on the board
//! nor on the bar are borne off, and a given `off` must match that count.

use std::collections::BTreeMap;

use crate::position::{Position, Side};

/// A count per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideCounts {
    /// White's count.
    #[serde(default)]
    pub white: u8,
    /// Black's count.
    #[serde(default)]
    pub black: u8,
}

impl SideCounts {
    fn get(&self, side: Side) -> u8 {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }
}

/// An unchecked position, as read from JSON; [`Setup::validate`] turns it
/// into a [`Position`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The side on roll.
    pub turn: Side,
    /// White's checkers by point name (`"1"`..`"24"`, White's numbering).
    #[serde(default)]
    pub white: BTreeMap<String, u8>,
    /// Black's checkers by point name (`"1"`..`"24"`, Black's numbering).
    #[serde(default)]
    pub black: BTreeMap<String, u8>,
    /// Checkers on the bar.
    #[serde(default)]
    pub bar: SideCounts,
    /// Checkers borne off (optional; checked when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<SideCounts>,
}

/// Why a setup (or raw board) is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A point name that is not 1..24.
    #[error("bad point {0:?}: points are named 1 to 24 in each side's own numbering")]
    BadPoint(String),
    /// A side with more than fifteen checkers on the board and bar.
    #[error("{side} has {count} checkers (at most 15)")]
    TooManyCheckers {
        /// The side.
        side: Side,
        /// How many it has.
        count: u32,
    },
    /// Both colours on the same point.
    #[error("point {white_point} (White's numbering) holds checkers of both colours")]
    BothColours {
        /// The point in White's numbering.
        white_point: u8,
    },
    /// The given `off` count does not make fifteen with the others.
    #[error(
        "{side} has {on_board} checkers on the board and bar and {off} off: expected 15 in all"
    )]
    OffMismatch {
        /// The side.
        side: Side,
        /// Checkers on the board and bar.
        on_board: u32,
        /// Checkers declared off.
        off: u32,
    },
    /// A negative bar count in a raw board.
    #[error("{side}'s bar count has the wrong sign")]
    BadBar {
        /// The side.
        side: Side,
    },
    /// Both sides have borne everything off.
    #[error("both sides have borne off all their checkers")]
    BothFinished,
}

fn point_index(name: &str) -> Result<usize, SetupError> {
    match name.trim().parse::<u8>() {
        Ok(p @ 1..=24) => Ok(p as usize),
        _ => Err(SetupError::BadPoint(name.to_string())),
    }
}

impl Setup {
    /// Checks the setup and builds the position.
    pub fn validate(&self) -> Result<Position, SetupError> {
        // Counts in White's numbering, both sides.
        let mut white = [0u32; 25];
        let mut black_in_white = [0u32; 25];
        for (name, &n) in &self.white {
            white[point_index(name)?] += u32::from(n);
        }
        for (name, &n) in &self.black {
            black_in_white[25 - point_index(name)?] += u32::from(n);
        }
        for side in [Side::White, Side::Black] {
            let map = if side == Side::White {
                &white
            } else {
                &black_in_white
            };
            let on: u32 = map.iter().sum::<u32>() + u32::from(self.bar.get(side));
            if on > 15 {
                return Err(SetupError::TooManyCheckers { side, count: on });
            }
            if let Some(off) = self.off {
                let off = u32::from(off.get(side));
                if on + off != 15 {
                    return Err(SetupError::OffMismatch {
                        side,
                        on_board: on,
                        off,
                    });
                }
            }
        }
        for p in 1..=24 {
            if white[p] > 0 && black_in_white[p] > 0 {
                return Err(SetupError::BothColours {
                    white_point: p as u8,
                });
            }
        }
        let mut b = [0i8; 26];
        for p in 1..=24 {
            b[p] = white[p] as i8 - black_in_white[p] as i8;
        }
        b[25] = self.bar.white as i8;
        b[0] = -(self.bar.black as i8);
        let pos = Position::from_board(b, Side::White)?;
        Ok(if self.turn == Side::White {
            pos
        } else {
            pos.pass_turn()
        })
    }
}

impl Position {
    /// Builds a position from a raw mover-relative board, checking it.
    ///
    /// `board[25]` = the mover's checkers on the bar (≥ 0), `board[1..=24]`
    /// the mover's points 1..24 in its own numbering (positive = mover's
    /// checkers, negative = opponent's), `board[0]` = the opponent's checkers
    /// on the bar as a negative number. Checkers not on the board are off.
    pub fn from_board(board: [i8; 26], turn: Side) -> Result<Position, SetupError> {
        if board[25] < 0 {
            return Err(SetupError::BadBar { side: turn });
        }
        if board[0] > 0 {
            return Err(SetupError::BadBar {
                side: turn.opponent(),
            });
        }
        let mine: i32 = board
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| i32::from(c))
            .sum();
        let theirs: i32 = board
            .iter()
            .filter(|&&c| c < 0)
            .map(|&c| -i32::from(c))
            .sum();
        for (side, n) in [(turn, mine), (turn.opponent(), theirs)] {
            if n > 15 {
                return Err(SetupError::TooManyCheckers {
                    side,
                    count: n as u32,
                });
            }
        }
        if mine == 0 && theirs == 0 {
            return Err(SetupError::BothFinished);
        }
        Ok(Position { board, turn })
    }
}

impl From<&Position> for Setup {
    fn from(p: &Position) -> Setup {
        let mut white = BTreeMap::new();
        let mut black = BTreeMap::new();
        for pt in 1..=24u8 {
            let w = p.checkers(Side::White, pt);
            if w > 0 {
                white.insert(pt.to_string(), w);
            }
            let k = p.checkers(Side::Black, pt);
            if k > 0 {
                black.insert(pt.to_string(), k);
            }
        }
        Setup {
            turn: p.turn(),
            white,
            black,
            bar: SideCounts {
                white: p.bar(Side::White),
                black: p.bar(Side::Black),
            },
            off: Some(SideCounts {
                white: p.off(Side::White),
                black: p.off(Side::Black),
            }),
        }
    }
}

impl TryFrom<Setup> for Position {
    type Error = SetupError;
    fn try_from(s: Setup) -> Result<Position, SetupError> {
        s.validate()
    }
}
