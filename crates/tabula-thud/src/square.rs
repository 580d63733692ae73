//! Squares, sides, pieces and the board's shape.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Files (a–o) and ranks (1–15) on the board.
pub const BOARD_SIZE: u8 = 15;

/// The number of squares on the 15×15 grid, cut or not.
pub const GRID_SQUARES: usize = 225;

/// How many squares each rank cuts from each of its two ends (seed 003's
/// `kill-positions`, without the stone): ranks 1 and 15 lose five, 2 and 14
/// four, 3 and 13 three, 4 and 12 two, 5 and 11 one.
const fn cut_per_end(rank: u8) -> u8 {
    let from_edge = if rank < 7 {
        rank
    } else {
        BOARD_SIZE - 1 - rank
    };
    5u8.saturating_sub(from_edge)
}

/// A square of the 15×15 grid, `a1`..`o15` (file a–o, rank 1–15). The value
/// may name a cut corner or the Thudstone; [`Square::is_playable`] says
/// whether a piece may stand there.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The Thudstone, `h8`: nothing may stand on it or pass it.
    pub const STONE: Square = Square(7 * 15 + 7);

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if on the grid.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < BOARD_SIZE && rank < BOARD_SIZE {
            Some(Square(rank * BOARD_SIZE + file))
        } else {
            None
        }
    }

    /// The square with this index (`rank * 15 + file`, 0-based), if any.
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < GRID_SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// `rank * 15 + file`, 0-based: `a1` = 0, `o15` = 224.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0 = file a … 14 = file o.
    pub const fn file(self) -> u8 {
        self.0 % BOARD_SIZE
    }

    /// 0 = rank 1 … 14 = rank 15.
    pub const fn rank(self) -> u8 {
        self.0 / BOARD_SIZE
    }

    /// Whether seed 003's `kill-positions` removes this square as a corner.
    pub const fn is_cut(self) -> bool {
        let k = cut_per_end(self.rank());
        self.file() < k || self.file() >= BOARD_SIZE - k
    }

    /// Whether this is the Thudstone (`h8`).
    pub const fn is_stone(self) -> bool {
        self.0 == Self::STONE.0
    }

    /// Whether a piece may stand here: neither a cut corner nor the stone.
    pub const fn is_playable(self) -> bool {
        !self.is_cut() && !self.is_stone()
    }

    /// Every square of the grid, `a1`, `b1`, … `o15`.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..GRID_SQUARES as u8).map(Square)
    }

    /// Every square a piece may stand on (164 of them).
    pub fn playable() -> impl Iterator<Item = Square> {
        Self::all().filter(|s| s.is_playable())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A string that does not name a square of the 15×15 grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown square {0:?} (expected a1..o15)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.to_string());
        let mut chars = s.chars();
        let file = chars.next().ok_or_else(err)?;
        let digits = chars.as_str();
        if !file.is_ascii_lowercase()
            || digits.is_empty()
            || digits.len() > 2
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.starts_with('0')
        {
            return Err(err());
        }
        let rank: u8 = digits.parse().map_err(|_| err())?;
        let file = file as u8 - b'a';
        if rank == 0 {
            return Err(err());
        }
        Square::new(file, rank - 1).ok_or_else(err)
    }
}

impl Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The two sides of a round. Dwarfs move first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The 32 dwarfs; they move first.
    Dwarfs,
    /// The 8 trolls.
    Trolls,
}

impl Side {
    /// The other side.
    pub const fn opponent(self) -> Side {
        match self {
            Side::Dwarfs => Side::Trolls,
            Side::Trolls => Side::Dwarfs,
        }
    }

    /// `"dwarfs"` or `"trolls"`, as in the JSON form.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Dwarfs => "dwarfs",
            Side::Trolls => "trolls",
        }
    }

    /// The kind of piece this side plays.
    pub const fn piece(self) -> Piece {
        match self {
            Side::Dwarfs => Piece::Dwarf,
            Side::Trolls => Piece::Troll,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A string that is neither `dwarfs` nor `trolls`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown side {0:?} (expected \"dwarfs\" or \"trolls\")")]
pub struct ParseSideError(pub String);

impl FromStr for Side {
    type Err = ParseSideError;

    fn from_str(s: &str) -> Result<Side, ParseSideError> {
        match s {
            "dwarfs" | "dwarf" => Ok(Side::Dwarfs),
            "trolls" | "troll" => Ok(Side::Trolls),
            _ => Err(ParseSideError(s.to_string())),
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Piece::Dwarf => "dwarf",
            Piece::Troll => "troll",
        })
    }
}

/// A piece kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Piece {
    /// Worth 1 point; moves like a queen, captures by hurling onto a troll.
    Dwarf,
    /// Worth 4 points; steps like a king or is shoved, captures adjacent dwarfs.
    Troll,
}

impl Piece {
    /// Points the piece is worth while on the board: dwarf 1, troll 4.
    pub const fn value(self) -> u32 {
        match self {
            Piece::Dwarf => 1,
            Piece::Troll => 4,
        }
    }

    /// The side that plays this piece.
    pub const fn side(self) -> Side {
        match self {
            Piece::Dwarf => Side::Dwarfs,
            Piece::Troll => Side::Trolls,
        }
    }

    /// `'D'` or `'T'`, as in move notation.
    pub const fn letter(self) -> char {
        match self {
            Piece::Dwarf => 'D',
            Piece::Troll => 'T',
        }
    }
}
