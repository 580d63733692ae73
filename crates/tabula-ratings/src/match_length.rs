//! How a match of `n` points weighs in a Glicko-2 update.
//!
//! # FIBS
//!
//! FIBS, the First Internet Backgammon Server, rates a match of length `n`
//! with an Elo-style formula in which `n` enters through `√n` twice (FIBS's
//! `help formula`, quoted at <http://www.bkgm.com/rgb/rgb.cgi?view+1093>):
//! the chance that the underdog wins is
//!
//! ```text
//! P_upset = 1 / (10^(D·√n / 2000) + 1)        D = |r_a − r_b|
//! ```
//!
//! and the winner gains `4·K·√n·P` (P his chance of having lost, K an
//! experience factor from 5 for a newcomer down to 1), the loser losing
//! the same. (Glicko-2's deviation plays the part of K.) Behind this: a match to `n` points is the sum of many
//! games, so the stronger player's edge in log-odds grows like `√n`; and a
//! longer match is more evidence about who is stronger.
//!
//! # In Glicko-2
//!
//! Glickman's update (steps 3–4 of his paper) is built from the first and
//! second derivatives, at the player's pre-period rating `μ`, of the
//! log-likelihood of the results under the logistic model
//! `P(win) = 1 / (1 + exp(−g(φ_j)·(μ − μ_j)))`. Tabula takes FIBS's model
//! for a match of `n` points — the log-odds scaled by `√n` — and puts it
//! into that same likelihood, with no other change:
//!
//! ```text
//! g_n(φ_j) = √n · g(φ_j)
//! E_n      = 1 / (1 + exp(−g_n(φ_j)·(μ − μ_j)))        expected match score
//! v⁻¹      = Σ_j g_n(φ_j)² · E_n · (1 − E_n)           = Σ n·g²·E_n(1 − E_n)
//! Δ        = v · Σ_j g_n(φ_j) · (s_j − E_n)
//! μ'       = μ + φ'² · Σ_j g_n(φ_j) · (s_j − E_n)
//! ```
//!
//! That is, a match of `n` points is one result against the opponent seen
//! through `g_n = √n·g`, everything else (the volatility iteration, steps
//! 6–8) exactly as the paper has it. So:
//!
//! * `n = 1` is plain Glicko-2, bit for bit (`√1 = 1`).
//! * The favourite's expected score `E_n` rises with `n` — FIBS's
//!   `D·√n` in the win probability.
//! * The pull on the rating, `g_n·(s − E_n)`, carries FIBS's `√n` factor,
//!   and the information a result gives, `n·g²·E_n(1 − E_n)`, grows with
//!   `n`, so the deviation falls further after a longer match.
//!
//! The FIBS scale (2000 per factor of ten in odds) is not adopted: per
//! point of match, ratings keep Glicko's logistic scale
//! (`173.7178 = 400 / ln 10`), and only the `√n` dependence is FIBS's.
//!
//! # Established and provisional players
//!
//! For an established player (deviation around 110 or less), the prior
//! term `1/φ*²` in `φ'² = 1 / (1/φ*² + 1/v)` dominates, and the rating
//! change grows with `n` as in FIBS: the same upset moves both players
//! further in a longer match. For a provisional player the evidence term
//! dominates instead: a long match then mostly settles his deviation (a
//! newcomer at 500 who beats an established 1500 player drops to a
//! deviation of 129 after a 7-point match against 289 after a single
//! game) while his rating moves less than a single game would move it
//! (+124.8 against +235.7). This is Glicko's one-step update at work —
//! a posterior-mode estimate, which a single decisive result cannot push
//! far beyond the opponent's rating when the result is strong evidence —
//! not a property of the `√n` weighting; the tests pin both regimes.

use crate::RatingError;

/// The longest match a rating update accepts, in points. Backgammon and
/// nardy matches are rarely longer than 25; the bound keeps `√n·g·(μ − μ_j)`
/// well inside the range where `exp` is finite for every rating lichess's
/// bounds allow.
pub const MAX_MATCH_LENGTH: u32 = 255;

/// The length of a rated match in points, `1..=MAX_MATCH_LENGTH`. A single
/// game (money play, Thud!, a one-point match) is [`MatchLength::ONE`].
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "u32", into = "u32")]
pub struct MatchLength(u32);

impl MatchLength {
    /// A single game: plain Glicko-2.
    pub const ONE: MatchLength = MatchLength(1);

    /// A match length, checked to be in `1..=MAX_MATCH_LENGTH`.
    pub fn new(points: u32) -> Result<MatchLength, RatingError> {
        if (1..=MAX_MATCH_LENGTH).contains(&points) {
            Ok(MatchLength(points))
        } else {
            Err(RatingError::InvalidMatchLength(points))
        }
    }

    /// The length in points.
    pub fn points(self) -> u32 {
        self.0
    }

    /// `√n`, the factor the match scales the logistic model's log-odds by.
    pub fn weight(self) -> f64 {
        f64::from(self.0).sqrt()
    }
}

impl Default for MatchLength {
    fn default() -> MatchLength {
        MatchLength::ONE
    }
}

impl TryFrom<u32> for MatchLength {
    type Error = RatingError;

    fn try_from(points: u32) -> Result<MatchLength, RatingError> {
        MatchLength::new(points)
    }
}

impl From<MatchLength> for u32 {
    fn from(length: MatchLength) -> u32 {
        length.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_lengths_above_the_maximum_are_refused() {
        assert_eq!(MatchLength::new(0), Err(RatingError::InvalidMatchLength(0)));
        assert!(MatchLength::new(MAX_MATCH_LENGTH + 1).is_err());
        assert!(MatchLength::new(u32::MAX).is_err());
        assert_eq!(MatchLength::new(1), Ok(MatchLength::ONE));
        assert_eq!(
            MatchLength::new(MAX_MATCH_LENGTH).map(MatchLength::points),
            Ok(MAX_MATCH_LENGTH)
        );
    }

    #[test]
    fn the_weight_is_the_square_root_of_the_length() {
        assert_eq!(MatchLength::ONE.weight(), 1.0);
        assert_eq!(MatchLength::new(25).unwrap().weight(), 5.0);
    }

    use crate::{
        GameResult, Glicko, Glicko2, Opponent, Outcome, PlayerRating, RatingSystem, Score,
    };

    const T0: i64 = 1_750_000_000_000;

    fn established(rating: f64) -> PlayerRating {
        PlayerRating {
            rating,
            deviation: 60.0,
            volatility: 0.06,
            games: 100,
            last_rated_at_ms: None,
        }
    }

    fn length(points: u32) -> MatchLength {
        MatchLength::new(points).unwrap()
    }

    #[test]
    fn a_one_point_match_is_the_plain_glicko2_update() {
        // The paper's example, each result an explicit one-point match,
        // is the paper's example.
        let system = Glicko2::new(0.5).unwrap();
        let player = Glicko::new(1500.0, 200.0, 0.06).unwrap();
        let opp = |rating, deviation| Opponent { rating, deviation };
        let one = MatchLength::new(1).unwrap();
        let results = [
            GameResult::matched(opp(1400.0, 30.0), Score::WIN, one),
            GameResult::matched(opp(1550.0, 100.0), Score::LOSS, one),
            GameResult::matched(opp(1700.0, 300.0), Score::LOSS, one),
        ];
        let new = system.rate(&player, &results).unwrap();
        assert!((new.rating - 1464.06).abs() < 0.01);
        assert!((new.deviation - 151.52).abs() < 0.005);
        // And through lichess's policy a one-point match is lichess's
        // calculator: two new players, the winner to 1741.
        let lichess = RatingSystem::LICHESS;
        let new = lichess.new_player();
        let rated = lichess
            .rate_game(&new, &new, Outcome::FirstWins, one, T0)
            .unwrap();
        assert!(
            (rated.first.rating - 1741.48).abs() < 0.01,
            "{}",
            rated.first.rating
        );
    }

    #[test]
    fn the_favourites_expected_score_rises_with_match_length() {
        let lichess = RatingSystem::LICHESS;
        let (strong, weak) = (established(1700.0), established(1500.0));
        let mut last = 0.5;
        for n in [1, 2, 3, 5, 7, 11, 17, 25, 64] {
            let e = lichess
                .expected_score(&strong, &weak, length(n), T0)
                .unwrap();
            let e_weak = lichess
                .expected_score(&weak, &strong, length(n), T0)
                .unwrap();
            assert!(e > last, "n = {n}: {e} after {last}");
            assert!((e + e_weak - 1.0).abs() < 1e-12);
            last = e;
        }
        // Equal players expect half at any length.
        let e = lichess
            .expected_score(&weak, &weak, length(25), T0)
            .unwrap();
        assert_eq!(e, 0.5);
        // FIBS's 2000-point scale is not Glicko's: one game at 200 points'
        // difference is Glicko's 0.76, a 25-point match 0.99+.
        let one = lichess
            .expected_score(&strong, &weak, length(1), T0)
            .unwrap();
        let long = lichess
            .expected_score(&strong, &weak, length(25), T0)
            .unwrap();
        assert!((one - 0.757).abs() < 0.001, "{one}");
        assert!(long > 0.99, "{long}");
    }

    #[test]
    fn a_longer_match_moves_established_ratings_more_for_the_same_upset() {
        let lichess = RatingSystem::LICHESS;
        let (underdog, favourite) = (established(1500.0), established(1700.0));
        let mut last_gain = 0.0;
        let mut last_loss = 0.0;
        for n in [1, 2, 3, 5, 7, 11, 17, 25] {
            let rated = lichess
                .rate_game(&underdog, &favourite, Outcome::FirstWins, length(n), T0)
                .unwrap();
            let gain = rated.first.rating - 1500.0;
            let loss = 1700.0 - rated.second.rating;
            assert!(
                gain > last_gain && loss > last_loss,
                "n = {n}: +{gain} −{loss}"
            );
            last_gain = gain;
            last_loss = loss;
        }
        // And the expected result moves them less, and less the longer
        // the match: the favourite's win at 7 points gains him less than
        // the underdog's upset.
        let expected = lichess
            .rate_game(&favourite, &underdog, Outcome::FirstWins, length(7), T0)
            .unwrap();
        let upset = lichess
            .rate_game(&underdog, &favourite, Outcome::FirstWins, length(7), T0)
            .unwrap();
        assert!(expected.first.rating - 1700.0 < upset.first.rating - 1500.0);
    }

    #[test]
    fn a_longer_match_lowers_the_deviation_further() {
        let lichess = RatingSystem::LICHESS;
        let newcomer = lichess.new_player();
        let regular = established(1500.0);
        let mut last = f64::INFINITY;
        for n in [1, 3, 7, 25] {
            let rated = lichess
                .rate_game(&newcomer, &regular, Outcome::FirstWins, length(n), T0)
                .unwrap();
            assert!(rated.first.deviation < last, "n = {n}");
            last = rated.first.deviation;
        }
    }

    #[test]
    fn a_provisional_player_mostly_settles_his_deviation_in_a_long_match() {
        // The figures the module docs quote: a newcomer (1500, 500, 0.09)
        // beats an established 1500 (RD 60).
        let lichess = RatingSystem::LICHESS;
        let newcomer = lichess.new_player();
        let regular = established(1500.0);
        let one = lichess
            .rate_game(&newcomer, &regular, Outcome::FirstWins, length(1), T0)
            .unwrap();
        let seven = lichess
            .rate_game(&newcomer, &regular, Outcome::FirstWins, length(7), T0)
            .unwrap();
        assert_eq!(one.first_diff, 235);
        assert_eq!(one.first.deviation as i32, 288);
        assert_eq!(seven.first_diff, 124);
        assert_eq!(seven.first.deviation as i32, 129);
        // The established loser loses more in the longer match.
        assert!(seven.second.rating < one.second.rating);
    }

    #[test]
    fn serde_refuses_a_zero_length() {
        assert_eq!(
            serde_json::to_string(&MatchLength::new(7).unwrap()).unwrap(),
            "7"
        );
        assert!(serde_json::from_str::<MatchLength>("0").is_err());
    }
}
