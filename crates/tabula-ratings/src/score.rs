//! A game's or match's result from one player's side.

use crate::RatingError;

/// A result as Glicko-2 scores it: 1 a win, ½ a draw, 0 a loss
/// (Glickman's `s_j`). Always finite and in `0..=1`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Score(f64);

impl Score {
    /// A win.
    pub const WIN: Score = Score(1.0);
    /// A draw: half a point to each side.
    pub const DRAW: Score = Score(0.5);
    /// A loss.
    pub const LOSS: Score = Score(0.0);

    /// A score, checked to be finite and in `0..=1`.
    pub fn new(value: f64) -> Result<Score, RatingError> {
        if (0.0..=1.0).contains(&value) {
            Ok(Score(value))
        } else {
            Err(RatingError::InvalidScore(value))
        }
    }

    /// The score as a number in `0..=1`.
    pub fn value(self) -> f64 {
        self.0
    }

    /// The opponent's score of the same game: `1 - s`.
    pub fn opponent(self) -> Score {
        Score(1.0 - self.0)
    }
}

impl TryFrom<f64> for Score {
    type Error = RatingError;

    fn try_from(value: f64) -> Result<Score, RatingError> {
        Score::new(value)
    }
}

impl From<Score> for f64 {
    fn from(score: Score) -> f64 {
        score.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_outside_zero_to_one_or_not_finite_are_refused() {
        for bad in [-0.1, 1.000_001, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(Score::new(bad).is_err(), "{bad}");
        }
        assert_eq!(Score::new(0.5), Ok(Score::DRAW));
        assert_eq!(Score::WIN.opponent(), Score::LOSS);
    }

    #[test]
    fn serde_refuses_an_invalid_score() {
        assert_eq!(serde_json::to_string(&Score::DRAW).unwrap(), "0.5");
        assert!(serde_json::from_str::<Score>("1.5").is_err());
        assert_eq!(serde_json::from_str::<Score>("1.0").unwrap(), Score::WIN);
    }
}
