//! Moves and their notation.

use std::fmt;
use std::str::FromStr;

use crate::square::{ParseSquareError, Piece, Square};

/// Neighbour directions as `(file, rank)` deltas, in ascending order of the
/// square index delta (so capture masks iterate in ascending square order).
pub(crate) const DIR_FR: [(i8, i8); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// The neighbour of `sq` in direction `d` (index into [`DIR_FR`]), if on the grid.
pub(crate) fn neighbour(sq: Square, d: usize) -> Option<Square> {
    let (df, dr) = DIR_FR[d];
    let f = sq.file() as i8 + df;
    let r = sq.rank() as i8 + dr;
    if f < 0 || r < 0 {
        return None;
    }
    Square::new(f as u8, r as u8)
}

/// The four kinds of move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// A dwarf slides like a queen over empty squares; no capture.
    Move,
    /// A dwarf is hurled onto a troll, capturing it.
    Hurl,
    /// A troll steps one square onto an empty square, capturing adjacent dwarfs.
    Step,
    /// A troll is shoved two or more squares by a line of trolls behind it,
    /// landing next to at least one dwarf; captures every adjacent dwarf.
    Shove,
}

impl MoveKind {
    /// `"move"`, `"hurl"`, `"step"` or `"shove"` (the JSON form).
    pub const fn name(self) -> &'static str {
        match self {
            MoveKind::Move => "move",
            MoveKind::Hurl => "hurl",
            MoveKind::Step => "step",
            MoveKind::Shove => "shove",
        }
    }

    /// The piece that makes moves of this kind.
    pub const fn piece(self) -> Piece {
        match self {
            MoveKind::Move | MoveKind::Hurl => Piece::Dwarf,
            MoveKind::Step | MoveKind::Shove => Piece::Troll,
        }
    }
}

impl fmt::Display for MoveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One move: its kind, from, to and the squares it captures on.
///
/// Four bytes, `Copy`. Troll captures are kept as a mask of the landing
/// square's neighbours, so [`Move::captures`] lists them in ascending square
/// order (`a1` < `b1` < … < `a2`), which is also their order in notation.
///
/// Notation: `Dg1-g5` (dwarf move), `Dg1xg7` (hurl, capturing the troll on
/// the landing square), `Th7-h6xg5xi5` (troll step or shove, `x` + each
/// captured square). A troll move of distance 1 is a step, 2 or more a shove.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    kind: MoveKind,
    from: Square,
    to: Square,
    mask: u8,
}

impl Move {
    pub(crate) const fn raw(kind: MoveKind, from: Square, to: Square, mask: u8) -> Move {
        Move {
            kind,
            from,
            to,
            mask,
        }
    }

    /// A dwarf's plain move (not checked for legality).
    pub const fn dwarf_move(from: Square, to: Square) -> Move {
        Move::raw(MoveKind::Move, from, to, 0)
    }

    /// A dwarf's hurl onto the troll on `to` (not checked for legality).
    pub const fn hurl(from: Square, to: Square) -> Move {
        Move::raw(MoveKind::Hurl, from, to, 0)
    }

    /// A troll step (distance 1) or shove (distance 2+) from `from` to `to`
    /// capturing the dwarfs on `captures`, each of which must be a neighbour of
    /// `to`. Not checked for legality beyond that shape.
    pub fn troll(from: Square, to: Square, captures: &[Square]) -> Result<Move, ParseMoveError> {
        let distance = line_distance(from, to).ok_or(ParseMoveError::NotALine { from, to })?;
        let kind = if distance == 1 {
            MoveKind::Step
        } else {
            MoveKind::Shove
        };
        let mut mask = 0u8;
        for &c in captures {
            let d = (0..8)
                .find(|&d| neighbour(to, d) == Some(c))
                .ok_or(ParseMoveError::CaptureNotAdjacent { to, capture: c })?;
            if mask & (1 << d) != 0 {
                return Err(ParseMoveError::DuplicateCapture(c));
            }
            mask |= 1 << d;
        }
        Ok(Move::raw(kind, from, to, mask))
    }

    /// Move, hurl, step or shove.
    pub const fn kind(&self) -> MoveKind {
        self.kind
    }

    /// The piece that moves.
    pub const fn piece(&self) -> Piece {
        self.kind.piece()
    }

    /// Where the piece starts.
    pub const fn from(&self) -> Square {
        self.from
    }

    /// Where the piece lands.
    pub const fn to(&self) -> Square {
        self.to
    }

    /// Whether the move captures anything.
    pub const fn is_capture(&self) -> bool {
        matches!(self.kind, MoveKind::Hurl) || self.mask != 0
    }

    /// How many pieces the move captures.
    pub const fn capture_count(&self) -> u32 {
        match self.kind {
            MoveKind::Hurl => 1,
            _ => self.mask.count_ones(),
        }
    }

    pub(crate) const fn mask(&self) -> u8 {
        self.mask
    }

    /// The captured squares, ascending (a hurl captures on its `to`).
    pub fn captures(&self) -> impl Iterator<Item = Square> + use<> {
        let (to, mask, hurl) = (self.to, self.mask, self.kind == MoveKind::Hurl);
        let troll = (0..8usize)
            .filter(move |d| mask & (1 << d) != 0)
            .filter_map(move |d| neighbour(to, d));
        hurl.then_some(to).into_iter().chain(troll)
    }

    /// How far the piece travels (in king steps along its line).
    pub fn distance(&self) -> u8 {
        line_distance(self.from, self.to).unwrap_or(0)
    }
}

/// The distance from `a` to `b` if they share a rank, file or diagonal and differ.
pub(crate) fn line_distance(a: Square, b: Square) -> Option<u8> {
    let df = a.file().abs_diff(b.file());
    let dr = a.rank().abs_diff(b.rank());
    if (df == 0 || dr == 0 || df == dr) && (df | dr) != 0 {
        Some(df.max(dr))
    } else {
        None
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            MoveKind::Move => write!(f, "D{}-{}", self.from, self.to),
            MoveKind::Hurl => write!(f, "D{}x{}", self.from, self.to),
            MoveKind::Step | MoveKind::Shove => {
                write!(f, "T{}-{}", self.from, self.to)?;
                for c in self.captures() {
                    write!(f, "x{c}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Move notation that does not describe a move's shape. (Whether the move is
/// legal is [`crate::Position::play`]'s question.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseMoveError {
    /// The notation does not follow `D<from>-<to>`, `D<from>x<to>` or
    /// `T<from>-<to>[x<sq>]...`.
    #[error("bad move notation {0:?} (expected e.g. Dg1-g5, Dg1xh7, Th7-h6xg5xi5)")]
    Syntax(String),
    /// A square that is not on the grid.
    #[error(transparent)]
    Square(#[from] ParseSquareError),
    /// From and to are not on one rank, file or diagonal (or are equal).
    #[error("{from} and {to} are not on one line")]
    NotALine {
        /// Start.
        from: Square,
        /// End.
        to: Square,
    },
    /// A troll capture that is not next to the landing square.
    #[error("capture on {capture} is not next to the landing square {to}")]
    CaptureNotAdjacent {
        /// Landing square.
        to: Square,
        /// The named capture.
        capture: Square,
    },
    /// The same capture named twice.
    #[error("capture on {0} named twice")]
    DuplicateCapture(Square),
}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let syntax = || ParseMoveError::Syntax(s.to_string());
        let piece = match s.chars().next() {
            Some('D') => Piece::Dwarf,
            Some('T') => Piece::Troll,
            _ => return Err(syntax()),
        };
        let rest = &s[1..];
        let sep = rest.find(['-', 'x']).ok_or_else(syntax)?;
        let from: Square = rest[..sep].parse()?;
        let hurl = rest.as_bytes()[sep] == b'x';
        let mut parts = rest[sep + 1..].split('x');
        let to: Square = parts.next().ok_or_else(syntax)?.parse()?;
        let captures = parts
            .map(|p| p.parse::<Square>())
            .collect::<Result<Vec<_>, _>>()?;
        line_distance(from, to).ok_or(ParseMoveError::NotALine { from, to })?;
        match piece {
            Piece::Dwarf if !captures.is_empty() => Err(syntax()),
            Piece::Dwarf if hurl => Ok(Move::hurl(from, to)),
            Piece::Dwarf => Ok(Move::dwarf_move(from, to)),
            Piece::Troll if hurl => Err(syntax()),
            Piece::Troll => Move::troll(from, to, &captures),
        }
    }
}
