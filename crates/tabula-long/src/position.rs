//! Colours, the unchecked [`Setup`] (the JSON form) and the validated
//! [`Position`].

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::variant::Variant;

/// Checkers per side.
pub const CHECKERS: u8 = 15;

/// A side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Head on 24, moves 24 → 1, home 1–6.
    White,
    /// Head on 12, moves 12 → 1 → 24 → 13, home 13–18.
    Black,
}

impl Color {
    /// The other side.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The point of this side's head (24 for white, 12 for black).
    pub fn head(self) -> u8 {
        point_of(self, 0)
    }

    /// The points of this side's home, nearest the edge first (white 1..6,
    /// black 13..18).
    pub fn home(self) -> [u8; 6] {
        let mut out = [0; 6];
        for (i, p) in out.iter_mut().enumerate() {
            *p = point_of(self, 23 - i);
        }
        out
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

impl FromStr for Color {
    type Err = SetupError;
    fn from_str(s: &str) -> Result<Color, SetupError> {
        match s.trim() {
            "white" => Ok(Color::White),
            "black" => Ok(Color::Black),
            _ => Err(SetupError::UnknownColor(s.to_string())),
        }
    }
}

/// The route index (0 = head, 18..23 = home) of seed-000 `point` (1..=24)
/// for `color`: white r = 24 - p, black r = (12 - p) mod 24.
#[inline]
pub fn route_index(color: Color, point: u8) -> usize {
    debug_assert!((1..=24).contains(&point));
    let p = usize::from(point);
    match color {
        Color::White => 24 - p,
        Color::Black => (36 - p) % 24,
    }
}

/// The seed-000 point (1..=24) at route index `r` (0..=23) for `color`.
#[inline]
pub fn point_of(color: Color, r: usize) -> u8 {
    debug_assert!(r < 24);
    let p = match color {
        Color::White => 24 - r,
        Color::Black => (35 - r) % 24 + 1,
    };
    p as u8
}

/// Borne-off counts by colour, as in the JSON form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OffCounts {
    /// White checkers borne off.
    pub white: i64,
    /// Black checkers borne off.
    pub black: i64,
}

/// An unchecked position, the serde (JSON) form used on every edge:
///
/// ```json
/// {"turn":"white","white":{"24":14,"19":1},"black":{"12":15},
///  "off":{"white":0,"black":0},"first_turn":false}
/// ```
///
/// Points are seed-000 point names `"1"`..`"24"`; `first_turn` says whether
/// this is the *mover's* own first turn (the head-rule exception). `off` and
/// `first_turn` may be left out (0 and false). Turn it into a [`Position`]
/// with [`Position::from_setup`] or `TryFrom`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The side to move.
    pub turn: Color,
    /// White checkers by point name.
    #[serde(default, serialize_with = "serialize_points")]
    pub white: BTreeMap<String, i64>,
    /// Black checkers by point name.
    #[serde(default, serialize_with = "serialize_points")]
    pub black: BTreeMap<String, i64>,
    /// Checkers borne off.
    #[serde(default)]
    pub off: OffCounts,
    /// Whether this is the mover's own first turn.
    #[serde(default)]
    pub first_turn: bool,
}

/// Writes points in numeric order, highest first (the order white travels).
fn serialize_points<S: Serializer>(map: &BTreeMap<String, i64>, s: S) -> Result<S::Ok, S::Error> {
    let mut entries: Vec<(&String, &i64)> = map.iter().collect();
    entries.sort_by_key(|(k, _)| std::cmp::Reverse(k.parse::<u32>().unwrap_or(u32::MAX)));
    let mut m = s.serialize_map(Some(entries.len()))?;
    for (k, v) in entries {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// Why a [`Setup`] is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A point name that is not `1`..`24`.
    #[error("unknown point {name:?} for {color} (points are 1..24)")]
    UnknownPoint {
        /// Whose map held it.
        color: Color,
        /// The name as given.
        name: String,
    },
    /// A negative checker count.
    #[error("negative count {count} of {color} checkers on point {point}")]
    NegativeCount {
        /// Whose checkers.
        color: Color,
        /// The point.
        point: u8,
        /// The count as given.
        count: i64,
    },
    /// Both colours on one point.
    #[error("point {point} holds both white and black checkers")]
    PointHeldByBoth {
        /// The point.
        point: u8,
    },
    /// A borne-off count outside 0..=15.
    #[error("{color} off count {off} is out of range 0..15")]
    OffOutOfRange {
        /// Whose count.
        color: Color,
        /// The count as given.
        off: i64,
    },
    /// Board plus off is not 15.
    #[error("{color} has {total} checkers (board + off), expected 15")]
    CheckerCount {
        /// Whose checkers.
        color: Color,
        /// Board plus off.
        total: i64,
    },
    /// Both sides have borne off all 15.
    #[error("both sides have borne off all 15 checkers")]
    BothBorneOff,
    /// `first_turn` is set but the mover has already moved.
    #[error("first_turn is set but {color} does not have all 15 checkers on the head")]
    FirstTurnNotOnHead {
        /// The mover.
        color: Color,
    },
    /// A colour name that is not `white` or `black`.
    #[error("unknown colour {0:?} (expected white or black)")]
    UnknownColor(String),
}

/// A legal long nardy position: the board, the side to move, borne-off
/// counts, the first-turn flags of both players and the variant options.
///
/// Internally the board is **mover-relative**: index `r` is the mover's
/// route index (0 = head, 18..=23 = home), positive counts are the mover's
/// checkers and negative counts the opponent's. The opponent's route index
/// of the same point is `(r + 12) % 24`, so passing the turn rotates the
/// board by 12 and negates it.
///
/// First turns: both players' flags are kept (`first_turn[0]` for the mover,
/// `[1]` for the opponent); a player's flag is cleared when his turn ends,
/// played or passed. The JSON form carries only the mover's flag; on
/// reading, the opponent's flag is inferred as "the mover is on his first
/// turn and the opponent still has all 15 on his head", which is exact for
/// every position reachable in play (the first player always moves at least
/// one checker off the head, since nothing can block the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: [i8; 24],
    pub(crate) off: [u8; 2],
    pub(crate) first: [bool; 2],
    pub(crate) turn: Color,
    pub(crate) variant: Variant,
}

impl Default for Position {
    fn default() -> Position {
        Position::initial()
    }
}

impl Position {
    /// The starting position with the default variant: 15 each on the
    /// heads, white to move, both on their first turn.
    pub fn initial() -> Position {
        Position::new_game(Variant::default(), Color::White)
    }

    /// The starting position for `variant` with `starter` to move (see
    /// [`crate::decide_opening`]).
    pub fn new_game(variant: Variant, starter: Color) -> Position {
        let mut board = [0i8; 24];
        board[0] = CHECKERS as i8;
        board[12] = -(CHECKERS as i8);
        Position {
            board,
            off: [0, 0],
            first: [true, true],
            turn: starter,
            variant,
        }
    }

    /// Validates a setup under `variant`.
    pub fn from_setup(setup: &Setup, variant: Variant) -> Result<Position, SetupError> {
        let mut counts = [[0u8; 25]; 2];
        for (color, map) in [(Color::White, &setup.white), (Color::Black, &setup.black)] {
            let mut total: i64 = 0;
            for (name, &n) in map {
                let point = name
                    .trim()
                    .parse::<u8>()
                    .ok()
                    .filter(|p| (1..=24).contains(p))
                    .ok_or_else(|| SetupError::UnknownPoint {
                        color,
                        name: name.clone(),
                    })?;
                if n < 0 {
                    return Err(SetupError::NegativeCount {
                        color,
                        point,
                        count: n,
                    });
                }
                total = total.saturating_add(n);
                if n > i64::from(CHECKERS) {
                    return Err(SetupError::CheckerCount { color, total });
                }
                counts[color.index()][usize::from(point)] = n as u8;
            }
            let off = match color {
                Color::White => setup.off.white,
                Color::Black => setup.off.black,
            };
            if !(0..=i64::from(CHECKERS)).contains(&off) {
                return Err(SetupError::OffOutOfRange { color, off });
            }
            let total = total.saturating_add(off);
            if total != i64::from(CHECKERS) {
                return Err(SetupError::CheckerCount { color, total });
            }
        }
        for point in 1..=24u8 {
            let p = usize::from(point);
            if counts[0][p] > 0 && counts[1][p] > 0 {
                return Err(SetupError::PointHeldByBoth { point });
            }
        }
        if setup.off.white == 15 && setup.off.black == 15 {
            return Err(SetupError::BothBorneOff);
        }
        let turn = setup.turn;
        let opp = turn.other();
        let head_count = |c: Color| counts[c.index()][usize::from(c.head())];
        if setup.first_turn && head_count(turn) != CHECKERS {
            return Err(SetupError::FirstTurnNotOnHead { color: turn });
        }
        let mut board = [0i8; 24];
        for point in 1..=24u8 {
            let r = route_index(turn, point);
            let p = usize::from(point);
            board[r] = counts[turn.index()][p] as i8 - counts[opp.index()][p] as i8;
        }
        let off_of = |c: Color| match c {
            Color::White => setup.off.white as u8,
            Color::Black => setup.off.black as u8,
        };
        Ok(Position {
            board,
            off: [off_of(turn), off_of(opp)],
            first: [
                setup.first_turn,
                setup.first_turn && head_count(opp) == CHECKERS,
            ],
            turn,
            variant,
        })
    }

    /// The JSON form of this position (`first_turn` is the mover's flag).
    pub fn to_setup(&self) -> Setup {
        let mut white = BTreeMap::new();
        let mut black = BTreeMap::new();
        for point in 1..=24u8 {
            for (color, map) in [(Color::White, &mut white), (Color::Black, &mut black)] {
                let n = self.checkers(color, point);
                if n > 0 {
                    map.insert(point.to_string(), i64::from(n));
                }
            }
        }
        Setup {
            turn: self.turn,
            white,
            black,
            off: OffCounts {
                white: i64::from(self.off(Color::White)),
                black: i64::from(self.off(Color::Black)),
            },
            first_turn: self.first[0],
        }
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The variant options this position is played under.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The same position under other variant options.
    pub fn with_variant(mut self, variant: Variant) -> Position {
        self.variant = variant;
        self
    }

    /// How many of `color`'s checkers stand on seed-000 `point` (0 for a
    /// point outside 1..=24).
    pub fn checkers(&self, color: Color, point: u8) -> u8 {
        if !(1..=24).contains(&point) {
            return 0;
        }
        let v = self.board[route_index(self.turn, point)];
        if color == self.turn {
            v.max(0) as u8
        } else {
            (-v).max(0) as u8
        }
    }

    /// The board as the side to move sees it: entry `r` is its route
    /// point `r` (0 = its head, 18..=23 its home), positive for its own
    /// checkers and negative for the opponent's. The opponent's route point
    /// `s` is entry `(s + 12) % 24`. For hot loops (the bots' encodings);
    /// [`Position::checkers`] reads one point by colour.
    pub fn route_board(&self) -> &[i8; 24] {
        &self.board
    }

    /// How many of `color`'s checkers are borne off.
    pub fn off(&self, color: Color) -> u8 {
        if color == self.turn {
            self.off[0]
        } else {
            self.off[1]
        }
    }

    /// Whether `color` has not yet finished his own first turn.
    pub fn is_first_turn(&self, color: Color) -> bool {
        if color == self.turn {
            self.first[0]
        } else {
            self.first[1]
        }
    }

    /// Pip count: the sum over `color`'s checkers of the distance to bear
    /// off (route index r is 24 - r pips).
    pub fn pip_count(&self, color: Color) -> u32 {
        (1..=24u8)
            .map(|p| {
                let r = route_index(color, p) as u32;
                u32::from(self.checkers(color, p)) * (24 - r)
            })
            .sum()
    }

    /// Whether a side has borne off all 15 (the game is over).
    pub fn is_game_over(&self) -> bool {
        self.off[0] == CHECKERS || self.off[1] == CHECKERS
    }

    /// The position after the mover passes (no legal play): the same board
    /// with the opponent to move and the mover's first turn used up.
    pub fn pass_turn(&self) -> Position {
        let mut board = [0i8; 24];
        for i in 0..12 {
            board[i] = -self.board[i + 12];
            board[i + 12] = -self.board[i];
        }
        Position {
            board,
            off: [self.off[1], self.off[0]],
            first: [self.first[1], false],
            turn: self.turn.other(),
            variant: self.variant,
        }
    }
}

impl TryFrom<Setup> for Position {
    type Error = SetupError;
    /// Validates under the default variant.
    fn try_from(setup: Setup) -> Result<Position, SetupError> {
        Position::from_setup(&setup, Variant::default())
    }
}

impl TryFrom<&Setup> for Position {
    type Error = SetupError;
    /// Validates under the default variant.
    fn try_from(setup: &Setup) -> Result<Position, SetupError> {
        Position::from_setup(setup, Variant::default())
    }
}

impl From<&Position> for Setup {
    fn from(p: &Position) -> Setup {
        p.to_setup()
    }
}

impl fmt::Display for Position {
    /// A compact one-line form: `white to move; white 24:14 19:1; black
    /// 12:15; off 0/0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} to move", self.turn)?;
        for color in [Color::White, Color::Black] {
            write!(f, "; {color}")?;
            for p in (1..=24u8).rev() {
                let n = self.checkers(color, p);
                if n > 0 {
                    write!(f, " {p}:{n}")?;
                }
            }
        }
        write!(
            f,
            "; off {}/{}",
            self.off(Color::White),
            self.off(Color::Black)
        )?;
        if self.first[0] {
            f.write_str("; first turn")?;
        }
        Ok(())
    }
}
