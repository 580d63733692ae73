//! The bots' strengths, and the work each level may spend on a decision.

use std::fmt;
use std::str::FromStr;

/// How many candidate plays (the best by the static evaluation) Hard nardy
/// at most examines with the look-ahead over the opponent's 21 rolls.
pub const HARD_NARDY_CANDIDATES: usize = 8;

/// The node budget of Hard Thud's alpha-beta search per decision.
pub const HARD_THUD_NODES: u64 = 20_000;

/// A bot's strength.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Random legal play.
    Easy,
    /// Greedy one-ply evaluation.
    Medium,
    /// Richer evaluation plus look-ahead.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// 1 = Easy, 2 = Medium, 3 = Hard.
    pub fn from_u8(n: u8) -> Option<Level> {
        match n {
            1 => Some(Level::Easy),
            2 => Some(Level::Medium),
            3 => Some(Level::Hard),
            _ => None,
        }
    }

    /// 1, 2 or 3.
    pub fn as_u8(self) -> u8 {
        match self {
            Level::Easy => 1,
            Level::Medium => 2,
            Level::Hard => 3,
        }
    }

    /// `easy`, `medium` or `hard`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not `easy`, `medium`, `hard` (or `1`, `2`, `3`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?} (expected easy, medium, hard or 1, 2, 3)")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "easy" | "1" => Ok(Level::Easy),
            "medium" | "2" => Ok(Level::Medium),
            "hard" | "3" => Ok(Level::Hard),
            _ => Err(ParseLevelError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_print() {
        for (n, l) in [(1u8, Level::Easy), (2, Level::Medium), (3, Level::Hard)] {
            assert_eq!(Level::from_u8(n), Some(l));
            assert_eq!(l.as_u8(), n);
            assert_eq!(n.to_string().parse::<Level>().unwrap(), l);
            assert_eq!(l.to_string().parse::<Level>().unwrap(), l);
        }
        assert_eq!("HARD".parse::<Level>().unwrap(), Level::Hard);
        assert!("expert".parse::<Level>().is_err());
        assert_eq!(Level::from_u8(0), None);
        assert_eq!(Level::from_u8(4), None);
    }
}
