//! Why a rating could not be computed.

/// Every way an input can be refused or the arithmetic can break down.
///
/// Numbers that are not finite are always refused; so are values the
/// formulas cannot take (a deviation or volatility that is not positive, a
/// score outside `0..=1`). [`RatingSystem`](crate::RatingSystem) clamps
/// finite out-of-range stored values into its bounds, as lichess does, and
/// refuses only what no clamp can mend.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RatingError {
    /// A rating that is not a finite number.
    #[error("rating {0} is not a finite number")]
    InvalidRating(f64),
    /// A rating deviation that is not a finite positive number.
    #[error("rating deviation {0} is not a finite positive number")]
    InvalidDeviation(f64),
    /// A volatility that is not a finite positive number.
    #[error("volatility {0} is not a finite positive number")]
    InvalidVolatility(f64),
    /// A system constant τ that is not a finite positive number.
    #[error("system constant tau {0} is not a finite positive number")]
    InvalidTau(f64),
    /// A score outside `0..=1` (1 a win, 0.5 a draw, 0 a loss).
    #[error("score {0} is not in 0..=1")]
    InvalidScore(f64),
    /// A match length outside `1..=MAX_MATCH_LENGTH`.
    #[error("match length {0} is not in 1..={max}", max = crate::MAX_MATCH_LENGTH)]
    InvalidMatchLength(u32),
    /// A number of elapsed rating periods that is negative or not finite.
    #[error("elapsed rating periods {0} is not a finite number at least 0")]
    InvalidElapsedPeriods(f64),
    /// A [`RatingSystem`](crate::RatingSystem) whose constants contradict
    /// each other or are not finite.
    #[error("rating system constant {field} = {value} is out of range")]
    InvalidSystem {
        /// The constant's field name.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// The volatility iteration (step 5 of Glickman's paper) did not
    /// converge within its bound of iterations. Unreachable for inputs of a
    /// sane size; reported instead of looping.
    #[error("the volatility iteration did not converge")]
    NoConvergence,
    /// The arithmetic left the finite numbers (inputs of absurd size).
    #[error("the rating arithmetic overflowed for these inputs")]
    NotFinite,
}
