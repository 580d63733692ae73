//! Glicko-2 exactly as Glickman's "Example of the Glicko-2 system"
//! (<http://www.glicko.net/glicko/glicko2.pdf>) defines it.
//!
//! A player has a rating `r`, a rating deviation `RD` and a volatility `σ`.
//! Games within a rating period are treated as simultaneous; the update
//! takes the pre-period values and every result of the period.
//!
//! 1. τ, the system constant, constrains the change in volatility over
//!    time (the paper suggests 0.3 to 1.2). An unrated player starts at
//!    [`Glicko::UNRATED`]: 1500, 350, 0.06.
//! 2. Onto the Glicko-2 scale: `μ = (r − 1500) / 173.7178`,
//!    `φ = RD / 173.7178` ([`GLICKO2_SCALE`] is `400 / ln 10`).
//! 3. Against opponents `j = 1..m` with `μ_j`, `φ_j` and scores `s_j`:
//!
//!    ```text
//!    g(φ)            = 1 / √(1 + 3φ²/π²)
//!    E(μ, μ_j, φ_j)  = 1 / (1 + exp(−g(φ_j)(μ − μ_j)))
//!    v               = [ Σ_j g(φ_j)² E_j (1 − E_j) ]⁻¹
//!    ```
//!
//! 4. `Δ = v Σ_j g(φ_j)(s_j − E_j)`, the estimated improvement.
//! 5. The new volatility `σ' = e^(A/2)`, where `A` is the root of
//!
//!    ```text
//!    f(x) = e^x (Δ² − φ² − v − e^x) / (2(φ² + v + e^x)²) − (x − a)/τ²,   a = ln σ²
//!    ```
//!
//!    found by the Illinois algorithm (5.1–5.5), to within ε = 0.000001:
//!    start `A = a`; `B = ln(Δ² − φ² − v)` if `Δ² > φ² + v`, otherwise
//!    `B = a − kτ` for the least `k = 1, 2, …` with `f(a − kτ) ≥ 0`; then
//!    while `|B − A| > ε`: `C = A + (A − B) f_A / (f_B − f_A)`; if
//!    `f_C f_B ≤ 0` set `A ← B, f_A ← f_B`, otherwise `f_A ← f_A / 2`;
//!    and `B ← C, f_B ← f_C`.
//! 6. `φ* = √(φ² + σ'²)`, the pre-period deviation grown by one period.
//! 7. `φ' = 1 / √(1/φ*² + 1/v)` and `μ' = μ + φ'² Σ_j g(φ_j)(s_j − E_j)`.
//! 8. Back: `r' = 173.7178 μ' + 1500`, `RD' = 173.7178 φ'`.
//!
//! A player with no games in the period gets step 6 alone, with his own
//! `σ`: his rating and volatility stay, his deviation grows
//! ([`Glicko2::idle`]).
//!
//! # What this module adds to the paper
//!
//! * **Elapsed periods.** Step 6 grows `φ` by one period;
//!   [`Glicko2::rate_with_elapsed`] takes the number of periods `t` instead
//!   (`φ* = √(φ² + t·σ'²)`), which is how lichess runs it (`t = 0` within a
//!   game, the growth with time applied before it; see
//!   [`RatingSystem`](crate::RatingSystem)). [`Glicko2::rate`] is the paper
//!   (`t = 1`).
//! * **A ceiling on the deviation.** Step 6 never grows `φ*` past the
//!   deviation of an unrated player ([`Glicko2::max_deviation`], 350 by
//!   default), the cap Glickman's original Glicko paper puts on the same
//!   step; the Glicko-2 paper leaves it to the administrator. (A deviation
//!   given above the ceiling is not grown, nor lowered to it.)
//! * **Match length.** Every result carries a [`MatchLength`]; a match of
//!   `n` points scales `g(φ_j)` by `√n` (see [`crate::match_length`]). One
//!   point is the paper's formula.
//! * **Arithmetic kept finite.** `1 − E` is computed as `E` of the negated
//!   difference, `s − E` from both, and `f` with its denominator divided out
//!   before squaring, so results stay finite where the textbook forms
//!   overflow or cancel; the iterations are bounded. None of this changes a
//!   result by more than rounding.

use std::f64::consts::PI;

use crate::{MatchLength, RatingError, Score};

/// Glickman's conversion factor between the Glicko and Glicko-2 scales,
/// `400 / ln 10` rounded as the paper prints it.
pub const GLICKO2_SCALE: f64 = 173.7178;

/// The rating at the centre of the Glicko-2 scale (`μ = 0`).
pub const SCALE_CENTRE: f64 = 1500.0;

/// The convergence tolerance ε of the volatility iteration (step 5.1).
pub const CONVERGENCE_TOLERANCE: f64 = 0.000_001;

/// At most this many Illinois steps (lichess's `ITERATION_MAX`).
const MAX_ILLINOIS_STEPS: u32 = 1000;

/// At most this many `k` when bracketing the root (step 5.2).
const MAX_BRACKET_STEPS: u32 = 10_000;

/// A player's rating, deviation and volatility on the Glicko scale (the
/// one players see: 1500 at the centre).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Glicko {
    /// The rating `r`.
    pub rating: f64,
    /// The rating deviation `RD`.
    pub deviation: f64,
    /// The volatility `σ`.
    pub volatility: f64,
}

impl Glicko {
    /// An unrated player, as step 1 of the paper sets him: 1500, 350, 0.06.
    pub const UNRATED: Glicko = Glicko {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
    };

    /// A rating, checked: the rating finite, the deviation and the
    /// volatility finite and positive.
    pub fn new(rating: f64, deviation: f64, volatility: f64) -> Result<Glicko, RatingError> {
        let glicko = Glicko {
            rating,
            deviation,
            volatility,
        };
        glicko.validate()?;
        Ok(glicko)
    }

    /// Checks the three values as [`Glicko::new`] does.
    pub fn validate(&self) -> Result<(), RatingError> {
        check_rating(self.rating)?;
        check_deviation(self.deviation)?;
        check_volatility(self.volatility)
    }

    /// This player as an opponent: his rating and deviation.
    pub fn as_opponent(&self) -> Opponent {
        Opponent {
            rating: self.rating,
            deviation: self.deviation,
        }
    }
}

/// What a result needs of the opponent: his pre-period rating and
/// deviation (his volatility plays no part).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Opponent {
    /// The opponent's rating `r_j`.
    pub rating: f64,
    /// The opponent's rating deviation `RD_j`.
    pub deviation: f64,
}

impl Opponent {
    fn validate(&self) -> Result<(), RatingError> {
        check_rating(self.rating)?;
        check_deviation(self.deviation)
    }
}

/// One game or match of a rating period, from the rated player's side.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameResult {
    /// Whom he played.
    pub opponent: Opponent,
    /// His score: 1 a win, ½ a draw, 0 a loss.
    pub score: Score,
    /// The match's length in points; one for a single game.
    #[serde(default)]
    pub match_length: MatchLength,
}

impl GameResult {
    /// A single game (a one-point match).
    pub fn game(opponent: Opponent, score: Score) -> GameResult {
        GameResult {
            opponent,
            score,
            match_length: MatchLength::ONE,
        }
    }

    /// A match of `match_length` points.
    pub fn matched(opponent: Opponent, score: Score, match_length: MatchLength) -> GameResult {
        GameResult {
            opponent,
            score,
            match_length,
        }
    }
}

/// The Glicko-2 system: its constant τ and the deviation ceiling.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Glicko2 {
    tau: f64,
    max_deviation: f64,
}

impl Glicko2 {
    /// The system with constant `tau` (finite, positive) and the deviation
    /// ceiling of an unrated player, 350.
    pub fn new(tau: f64) -> Result<Glicko2, RatingError> {
        if !(tau.is_finite() && tau > 0.0) {
            return Err(RatingError::InvalidTau(tau));
        }
        Ok(Glicko2 {
            tau,
            max_deviation: Glicko::UNRATED.deviation,
        })
    }

    /// The same system with another deviation ceiling (finite, positive).
    pub fn with_max_deviation(self, max_deviation: f64) -> Result<Glicko2, RatingError> {
        check_deviation(max_deviation)?;
        Ok(Glicko2 {
            max_deviation,
            ..self
        })
    }

    /// The system constant τ.
    pub fn tau(&self) -> f64 {
        self.tau
    }

    /// The most a deviation grows to in step 6.
    pub fn max_deviation(&self) -> f64 {
        self.max_deviation
    }

    /// One rating period as the paper has it (steps 1–8, one period
    /// elapsed in step 6). With no results, step 6 alone.
    pub fn rate(&self, player: &Glicko, results: &[GameResult]) -> Result<Glicko, RatingError> {
        self.rate_with_elapsed(player, results, 1.0)
    }

    /// One rating period whose step 6 grows the deviation by
    /// `elapsed_periods` periods (finite, at least 0) instead of one.
    pub fn rate_with_elapsed(
        &self,
        player: &Glicko,
        results: &[GameResult],
        elapsed_periods: f64,
    ) -> Result<Glicko, RatingError> {
        self.validate()?;
        player.validate()?;
        check_elapsed(elapsed_periods)?;
        for result in results {
            result.opponent.validate()?;
        }
        if results.is_empty() {
            return self.idle(player, elapsed_periods);
        }

        // Step 2.
        let mu = to_mu(player.rating);
        let phi = player.deviation / GLICKO2_SCALE;
        let phi_max = self.max_deviation / GLICKO2_SCALE;

        // Steps 3 and 4: v⁻¹ and the sum Σ g(s − E), each result's g
        // scaled by √n.
        let mut information = 0.0;
        let mut pull = 0.0;
        for result in results {
            let g_n = result.match_length.weight() * g(result.opponent.deviation / GLICKO2_SCALE);
            let x = g_n * (mu - to_mu(result.opponent.rating));
            let (e, one_minus_e) = (logistic(x), logistic(-x));
            let s = result.score.value();
            information += g_n * g_n * e * one_minus_e;
            pull += g_n * (s * one_minus_e - (1.0 - s) * e);
        }
        let v = 1.0 / information;
        let delta = v * pull;
        if !(v.is_finite() && delta.is_finite()) {
            return Err(RatingError::NotFinite);
        }

        // Step 5.
        let sigma = volatility(phi, v, delta, player.volatility, self.tau)?;

        // Step 6.
        let growth = if elapsed_periods == 0.0 {
            0.0
        } else {
            elapsed_periods * sigma * sigma
        };
        let phi_star = (phi * phi + growth).sqrt().min(phi_max.max(phi));

        // Step 7.
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * pull;

        // Step 8.
        finite(Glicko {
            rating: from_mu(mu_new),
            deviation: phi_new * GLICKO2_SCALE,
            volatility: sigma,
        })
    }

    /// A period without games (step 6 alone): the rating and volatility
    /// stay, the deviation grows to `√(φ² + t·σ²)`, never past the ceiling
    /// (nor lowered to it if it was above).
    pub fn idle(&self, player: &Glicko, elapsed_periods: f64) -> Result<Glicko, RatingError> {
        self.validate()?;
        player.validate()?;
        check_elapsed(elapsed_periods)?;
        let grown = grow_deviation(player.deviation, player.volatility, elapsed_periods);
        finite(Glicko {
            deviation: grown.min(self.max_deviation.max(player.deviation)),
            ..*player
        })
    }

    fn validate(&self) -> Result<(), RatingError> {
        if !(self.tau.is_finite() && self.tau > 0.0) {
            return Err(RatingError::InvalidTau(self.tau));
        }
        check_deviation(self.max_deviation)
    }
}

/// The expected score, in `0..=1`, of a player rated `rating` against
/// `opponent` over a match of `match_length` points (Glickman's `E`, with
/// `g` scaled by `√n`): his chance of winning, a draw counted half.
pub fn expected_score(
    rating: f64,
    opponent: &Opponent,
    match_length: MatchLength,
) -> Result<f64, RatingError> {
    check_rating(rating)?;
    opponent.validate()?;
    let g_n = match_length.weight() * g(opponent.deviation / GLICKO2_SCALE);
    Ok(logistic(g_n * (to_mu(rating) - to_mu(opponent.rating))))
}

/// Step 6's growth of a deviation (Glicko scale) by `periods` periods at
/// volatility `sigma`, without a ceiling.
pub(crate) fn grow_deviation(deviation: f64, sigma: f64, periods: f64) -> f64 {
    if periods == 0.0 {
        // Exactly, not through the scale and back.
        return deviation;
    }
    let phi = deviation / GLICKO2_SCALE;
    (phi * phi + periods * sigma * sigma).sqrt() * GLICKO2_SCALE
}

/// Step 5: the new volatility by the Illinois algorithm.
fn volatility(phi: f64, v: f64, delta: f64, sigma: f64, tau: f64) -> Result<f64, RatingError> {
    let phi2 = phi * phi;
    let delta2 = delta * delta;
    // 5.1
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi2 + v + ex;
        0.5 * (ex / d) * (delta2 / d - 1.0) - (x - a) / (tau * tau)
    };

    // 5.2
    let mut big_a = a;
    let mut big_b = if delta2 > phi2 + v {
        (delta2 - phi2 - v).ln()
    } else {
        let mut k = 1.0;
        let mut steps = 0;
        while f(a - k * tau) < 0.0 {
            steps += 1;
            if steps > MAX_BRACKET_STEPS {
                return Err(RatingError::NoConvergence);
            }
            k += 1.0;
        }
        a - k * tau
    };

    // 5.3
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);

    // 5.4
    let mut steps = 0;
    while (big_b - big_a).abs() > CONVERGENCE_TOLERANCE {
        steps += 1;
        if steps > MAX_ILLINOIS_STEPS {
            return Err(RatingError::NoConvergence);
        }
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }

    // 5.5
    let sigma_new = (big_a / 2.0).exp();
    if sigma_new.is_finite() && sigma_new > 0.0 {
        Ok(sigma_new)
    } else {
        Err(RatingError::NotFinite)
    }
}

/// Glickman's `g(φ)`: how much an opponent's uncertainty discounts a
/// result against him.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// `1 / (1 + e^−x)`, which is 0 or 1 (never NaN) for large `|x|`.
fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn to_mu(rating: f64) -> f64 {
    (rating - SCALE_CENTRE) / GLICKO2_SCALE
}

fn from_mu(mu: f64) -> f64 {
    mu * GLICKO2_SCALE + SCALE_CENTRE
}

fn finite(glicko: Glicko) -> Result<Glicko, RatingError> {
    if glicko.rating.is_finite()
        && glicko.deviation.is_finite()
        && glicko.deviation > 0.0
        && glicko.volatility.is_finite()
        && glicko.volatility > 0.0
    {
        Ok(glicko)
    } else {
        Err(RatingError::NotFinite)
    }
}

pub(crate) fn check_rating(rating: f64) -> Result<(), RatingError> {
    if rating.is_finite() {
        Ok(())
    } else {
        Err(RatingError::InvalidRating(rating))
    }
}

pub(crate) fn check_deviation(deviation: f64) -> Result<(), RatingError> {
    if deviation.is_finite() && deviation > 0.0 {
        Ok(())
    } else {
        Err(RatingError::InvalidDeviation(deviation))
    }
}

pub(crate) fn check_volatility(volatility: f64) -> Result<(), RatingError> {
    if volatility.is_finite() && volatility > 0.0 {
        Ok(())
    } else {
        Err(RatingError::InvalidVolatility(volatility))
    }
}

fn check_elapsed(periods: f64) -> Result<(), RatingError> {
    if periods.is_finite() && periods >= 0.0 {
        Ok(())
    } else {
        Err(RatingError::InvalidElapsedPeriods(periods))
    }
}

#[cfg(test)]
mod tests;
