//! The unchecked setup (the JSON form) and its validation.

use serde::{Deserialize, Serialize};

use crate::position::Position;
use crate::square::{Piece, Side, Square};
use crate::variant::CaptureRule;

/// An unchecked position as it arrives from outside, e.g. as JSON:
///
/// ```json
/// {"turn":"dwarfs","dwarfs":["f1","g1"],"trolls":["g7"],"plies_since_capture":0}
/// ```
///
/// `turn` is `"dwarfs"` or `"trolls"`; `dwarfs` and `trolls` list squares
/// `a1`..`o15` (any order); `plies_since_capture` may be left out (0).
/// Unknown fields are rejected. [`Position::from_setup`] (or `TryFrom`)
/// validates it; [`Position::to_setup`] writes the canonical form (squares
/// ascending: `a1`, `b1`, …, `o15`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// `"dwarfs"` or `"trolls"`.
    pub turn: String,
    /// Squares holding dwarfs.
    pub dwarfs: Vec<String>,
    /// Squares holding trolls.
    pub trolls: Vec<String>,
    /// Plies since the last capture (for the plies-without-capture limit).
    #[serde(default)]
    pub plies_since_capture: u32,
}

/// Why a setup is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A square name that is not `a1`..`o15`.
    #[error("unknown square {0:?} (expected a1..o15)")]
    UnknownSquare(String),
    /// A piece on a cut corner (seed 003's `kill-positions`).
    #[error("a {piece} on {square}, a cut corner of the board")]
    CutCorner {
        /// The piece.
        piece: Piece,
        /// The square.
        square: Square,
    },
    /// A piece on the Thudstone, h8.
    #[error("a {0} on the Thudstone h8")]
    OnStone(Piece),
    /// Two pieces on one square.
    #[error("square {0} is listed twice")]
    DuplicateSquare(Square),
    /// More than 32 dwarfs.
    #[error("{0} dwarfs (at most 32)")]
    TooManyDwarfs(usize),
    /// More than 8 trolls.
    #[error("{0} trolls (at most 8)")]
    TooManyTrolls(usize),
    /// `turn` is neither `dwarfs` nor `trolls`.
    #[error("bad side to move {0:?} (expected \"dwarfs\" or \"trolls\")")]
    BadSide(String),
}

/// At most this many dwarfs.
pub const MAX_DWARFS: usize = 32;
/// At most this many trolls.
pub const MAX_TROLLS: usize = 8;

impl Setup {
    /// The start position's setup.
    pub fn start() -> Setup {
        Position::start().to_setup()
    }
}

impl Position {
    /// Validates `setup` into a position whose moves follow `rule`.
    pub fn from_setup(setup: &Setup, rule: CaptureRule) -> Result<Position, SetupError> {
        let turn: Side = setup
            .turn
            .parse()
            .map_err(|_| SetupError::BadSide(setup.turn.clone()))?;
        if setup.dwarfs.len() > MAX_DWARFS {
            return Err(SetupError::TooManyDwarfs(setup.dwarfs.len()));
        }
        if setup.trolls.len() > MAX_TROLLS {
            return Err(SetupError::TooManyTrolls(setup.trolls.len()));
        }
        let mut pos = Position::empty(turn, rule);
        let pieces = setup
            .dwarfs
            .iter()
            .map(|s| (s, Piece::Dwarf))
            .chain(setup.trolls.iter().map(|s| (s, Piece::Troll)));
        for (name, piece) in pieces {
            let square: Square = name
                .trim()
                .parse()
                .map_err(|_| SetupError::UnknownSquare(name.clone()))?;
            if square.is_stone() {
                return Err(SetupError::OnStone(piece));
            }
            if square.is_cut() {
                return Err(SetupError::CutCorner { piece, square });
            }
            if pos.piece_at(square).is_some() {
                return Err(SetupError::DuplicateSquare(square));
            }
            pos.put(square, piece);
        }
        pos.set_plies_since_capture(setup.plies_since_capture);
        Ok(pos)
    }

    /// The canonical setup of this position.
    pub fn to_setup(&self) -> Setup {
        Setup {
            turn: self.turn().name().to_string(),
            dwarfs: self.dwarfs().iter().map(|s| s.to_string()).collect(),
            trolls: self.trolls().iter().map(|s| s.to_string()).collect(),
            plies_since_capture: self.plies_since_capture(),
        }
    }
}

impl TryFrom<Setup> for Position {
    type Error = SetupError;

    /// Validates under the default (seed 003) capture rule.
    fn try_from(setup: Setup) -> Result<Position, SetupError> {
        Position::from_setup(&setup, CaptureRule::Zrf)
    }
}

impl TryFrom<&Setup> for Position {
    type Error = SetupError;

    fn try_from(setup: &Setup) -> Result<Position, SetupError> {
        Position::from_setup(setup, CaptureRule::Zrf)
    }
}
