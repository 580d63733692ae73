//! Small shared types: seats, points on the board, players, bot levels.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One of the two seats. Seat A plays white in long nardy and backgammon
/// and the dwarfs in Thud!'s first round; seat B black / the trolls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SeatId {
    /// White / first Thud! seat.
    A,
    /// Black / second Thud! seat.
    B,
}

impl SeatId {
    /// Both seats, A first.
    pub const BOTH: [SeatId; 2] = [SeatId::A, SeatId::B];

    /// The other seat.
    pub fn other(self) -> SeatId {
        match self {
            SeatId::A => SeatId::B,
            SeatId::B => SeatId::A,
        }
    }

    /// 0 for A, 1 for B.
    pub fn index(self) -> usize {
        match self {
            SeatId::A => 0,
            SeatId::B => 1,
        }
    }

    /// The long nardy colour of this seat.
    pub fn long_color(self) -> tabula_long::Color {
        match self {
            SeatId::A => tabula_long::Color::White,
            SeatId::B => tabula_long::Color::Black,
        }
    }

    /// The seat of a long nardy colour.
    pub fn of_long(c: tabula_long::Color) -> SeatId {
        match c {
            tabula_long::Color::White => SeatId::A,
            tabula_long::Color::Black => SeatId::B,
        }
    }

    /// The backgammon side of this seat.
    pub fn bg_side(self) -> tabula_backgammon::Side {
        match self {
            SeatId::A => tabula_backgammon::Side::White,
            SeatId::B => tabula_backgammon::Side::Black,
        }
    }

    /// The seat of a backgammon side.
    pub fn of_bg(s: tabula_backgammon::Side) -> SeatId {
        match s {
            tabula_backgammon::Side::White => SeatId::A,
            tabula_backgammon::Side::Black => SeatId::B,
        }
    }

    /// The Thud! seat.
    pub fn thud_seat(self) -> tabula_thud::Seat {
        match self {
            SeatId::A => tabula_thud::Seat::First,
            SeatId::B => tabula_thud::Seat::Second,
        }
    }

    /// The seat of a Thud! seat.
    pub fn of_thud(s: tabula_thud::Seat) -> SeatId {
        match s {
            tabula_thud::Seat::First => SeatId::A,
            tabula_thud::Seat::Second => SeatId::B,
        }
    }
}

impl fmt::Display for SeatId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SeatId::A => "a",
            SeatId::B => "b",
        })
    }
}

/// A player's identity as the host knows it (e.g. a Telegram user id).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl PlayerId {
    /// A player id from anything string-like.
    pub fn new(s: impl Into<String>) -> PlayerId {
        PlayerId(s.into())
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A bot level (seed 001: 1 easy, 2 medium, 3 hard; any number is kept).
pub type BotLevel = u8;

/// Who issues a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "camelCase")]
pub enum Actor {
    /// A human player (seated or not).
    Player(PlayerId),
    /// The host acting for the bot in this seat.
    Bot(SeatId),
}

/// A point named in a `move {from, to}`: a number, `"off"` or `"bar"`.
///
/// Long nardy uses seed 000's numbering (1..=24, `off`). Backgammon uses the
/// mover's own numbering (1..=24 with home 1..=6, `bar` = 25, `off` = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "SpotRepr", into = "SpotRepr")]
pub enum Spot {
    /// A numbered point.
    Point(u8),
    /// Borne off.
    Off,
    /// The bar (backgammon).
    Bar,
}

/// A spot on the wire: a point's number, `"off"` or `"bar"`.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Spot {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .maximum(Some(25)),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["off", "bar"])),
            )
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Spot {}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum SpotRepr {
    N(u8),
    S(String),
}

impl TryFrom<SpotRepr> for Spot {
    type Error = String;
    fn try_from(r: SpotRepr) -> Result<Spot, String> {
        match r {
            SpotRepr::N(n) => Ok(Spot::Point(n)),
            SpotRepr::S(s) => s.parse(),
        }
    }
}

impl From<Spot> for SpotRepr {
    fn from(s: Spot) -> SpotRepr {
        match s {
            Spot::Point(n) => SpotRepr::N(n),
            Spot::Off => SpotRepr::S("off".into()),
            Spot::Bar => SpotRepr::S("bar".into()),
        }
    }
}

impl std::str::FromStr for Spot {
    type Err = String;
    fn from_str(s: &str) -> Result<Spot, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("off") {
            Ok(Spot::Off)
        } else if t.eq_ignore_ascii_case("bar") {
            Ok(Spot::Bar)
        } else {
            t.parse::<u8>()
                .map(Spot::Point)
                .map_err(|_| format!("not a point: {s:?}"))
        }
    }
}

impl Spot {
    /// A step written as text, as the room's `possibleMoves` and records
    /// write them and as tools and bots answer: `24-18` and `5-off` (seed
    /// 000), `bar/22*` and `6/off` (standard backgammon notation; a hit mark
    /// `*` is ignored). The one reader of step notation at the room's edge
    /// (the engines keep their own typed steps).
    pub fn parse_step(s: &str) -> Result<(Spot, Spot), String> {
        let t = s.trim().trim_end_matches('*');
        let (a, b) = t
            .split_once(['-', '/'])
            .ok_or_else(|| format!("not a step: {s:?} (FROM-TO like 24-18 or bar/22)"))?;
        let spot = |p: &str| {
            p.trim_end_matches('*')
                .parse::<Spot>()
                .map_err(|_| format!("not a step: {s:?} (bad point {p:?})"))
        };
        Ok((spot(a)?, spot(b)?))
    }
}

impl fmt::Display for Spot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spot::Point(n) => write!(f, "{n}"),
            Spot::Off => f.write_str("off"),
            Spot::Bar => f.write_str("bar"),
        }
    }
}

/// A room's stake, shown in `game_over` messages (seed 000: `WIN 100 TON.`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Stake {
    /// The amount.
    pub amount: u64,
    /// The currency label, e.g. `TON`.
    pub currency: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_both_notations_and_refuse_the_rest() {
        use Spot::{Bar, Off, Point};
        let ok: &[(&str, (Spot, Spot))] = &[
            ("24-18", (Point(24), Point(18))),
            ("5-off", (Point(5), Off)),
            ("5-OFF", (Point(5), Off)),
            ("bar/22*", (Bar, Point(22))),
            ("13/7*", (Point(13), Point(7))),
            ("6/off", (Point(6), Off)),
            (" 24-18 ", (Point(24), Point(18))),
        ];
        for (text, want) in ok {
            assert_eq!(Spot::parse_step(text), Ok(*want), "{text}");
        }
        for bad in ["", "24", "24-", "-18", "24-x", "24:18", "300-1", "a/b"] {
            let e = Spot::parse_step(bad).unwrap_err();
            assert!(e.contains("not a step"), "{bad}: {e}");
        }
    }

    #[test]
    fn spot_reads_numbers_and_names() {
        let s: Vec<Spot> = serde_json::from_str(r#"[24, "off", "bar"]"#).unwrap();
        assert_eq!(s, vec![Spot::Point(24), Spot::Off, Spot::Bar]);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"[24,"off","bar"]"#);
    }
}
