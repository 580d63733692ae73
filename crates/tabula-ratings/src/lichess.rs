//! Glicko-2 as lichess runs it: each game its own rating period, the
//! deviation growing with the time since a player's last rated game, and
//! lichess's bounds.
//!
//! Read from lichess's source: lila's `modules/rating/src/main/Glicko.scala`
//! (the constants), `PerfExt.scala` (`addOrReset`: the per-game cap and the
//! clamps), `Perf.scala` (the live deviation on every read),
//! `modules/round/src/main/PerfsUpdater.scala` (one game, both players,
//! `skipDeviationIncrease = true`) and `modules/user/src/main/RankingApi.scala`
//! (who is ranked); scalachess's `rating/src/main/scala/glicko/` (the
//! calculator, τ, `provisionalDeviation`).
//!
//! # One game
//!
//! [`RatingSystem::rate_game`] takes both players' stored ratings, the
//! outcome, the match length and the time the game ended, and returns both
//! new ratings; neither update sees the other's result, so the store writes
//! the pair in one transaction. For each player:
//!
//! 1. **The live deviation.** The deviation grows with the time `Δt` since
//!    his last rated game, as Glickman's step 6 over
//!    `t = Δt · 0.21436 / day` periods, then clamped into `45..=500`:
//!    `RD_live = clamp(173.7178 · √(φ² + t·σ²), 45, 500)`. A player never
//!    rated has `t = 0`.
//! 2. **Clamped into lichess's bounds** (`Glicko.cap`): rating at least
//!    400 (and, here, at most 4000), volatility at most 0.1.
//! 3. **One rating period** of Glickman's steps 3–8 against the other's
//!    pre-game values, with no further growth in step 6 (`t = 0`: the time
//!    already counted in 1). A draw scores ½.
//! 4. **Capped and clamped** (`addOrReset`): the rating moves at most 700
//!    from the one that entered the game, then the bounds of 2 again and
//!    the deviation into `45..=500`; one more game, last rated at the
//!    game's end.
//!
//! Not taken from lichess, as chess-specific or the server's: the colour
//! advantage (nardy and backgammon decide who starts by the opening roll),
//! `RatingRegulator`'s per-speed multipliers on gains, farming and
//! boosting detection, and the reset to the default rating of a result
//! that fails lichess's sanity check (here a [`RatingError`] instead; it
//! cannot arise from values inside the bounds).
//!
//! # Stored values
//!
//! Stored ratings are checked and clamped as lichess does on reading:
//! finite values outside the bounds are clamped (a deviation of 900 reads
//! as 500), and what no clamp can mend — a value that is not finite, a
//! deviation or volatility that is not positive — is a [`RatingError`].

use crate::glicko2::{GameResult, Glicko, Glicko2, grow_deviation};
use crate::{MatchLength, RatingError, Score};

/// τ, lichess's system constant (scalachess `Tau.default`, lila
/// `Glicko.tau`).
pub const TAU: f64 = 0.75;
/// A new player's rating (lila `Glicko.default`).
pub const DEFAULT_RATING: f64 = 1500.0;
/// A new player's deviation, which is also the most a deviation grows to
/// (lila `Glicko.maxDeviation`; `Glicko.default` starts at it).
pub const MAX_DEVIATION: f64 = 500.0;
/// The least deviation: however often a player plays, his rating stays
/// this uncertain (lila `Glicko.minDeviation`).
pub const MIN_DEVIATION: f64 = 45.0;
/// A new player's volatility (lila `Glicko.defaultVolatility`).
pub const DEFAULT_VOLATILITY: f64 = 0.09;
/// The most volatility: "past this, it might not stabilize ever again"
/// (lila `Glicko.maxVolatility`).
pub const MAX_VOLATILITY: f64 = 0.1;
/// The rating floor (lila `Glicko.minRating`, applied by `Glicko.cap`).
pub const MIN_RATING: f64 = 400.0;
/// The rating ceiling (lila `Glicko.maxRating`; its sanity check refuses a
/// rating of 4000 or more, here a clamp).
pub const MAX_RATING: f64 = 4000.0;
/// Rating periods per day of inactivity in the deviation's growth, "chosen
/// so a typical player's RD goes from 60 -> 110 in 1 year" (lila
/// `Glicko.ratingPeriodsPerDay`).
pub const RATING_PERIODS_PER_DAY: f64 = 0.21436;
/// A rating is provisional while its deviation is at least this (scalachess
/// `provisionalDeviation`: `deviation >= 110`; lichess shows it with a `?`).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;
/// A player is on the leaderboard only while his deviation is at most this
/// (lila `Glicko.standardRankableDeviation`; its variants use 65).
pub const RANKABLE_DEVIATION: f64 = 75.0;
/// The most one game can move a rating, either way (lila
/// `Glicko.maxRatingDelta`, applied in `PerfExt.addOrReset`).
pub const MAX_RATING_DELTA: f64 = 700.0;
/// Rated games a player needs before he is ranked (lila
/// `RankingApi.save`: `perf.nb >= 2`).
pub const RANKING_MIN_GAMES: u32 = 2;
/// How long after his last rated game a player stays ranked: lila's
/// ranking entries expire a month after they are written
/// (`RankingApi.save`: `expiresAt -> now.plusMonths(1)`); here 30 days.
pub const RANKING_EXPIRY_MS: i64 = 30 * MS_PER_DAY;

const MS_PER_DAY: i64 = 24 * 60 * 60 * 1000;

/// A player's stored rating in one game kind: what a store keeps, and
/// what [`RatingSystem::rate_game`] takes and returns.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerRating {
    /// The rating.
    pub rating: f64,
    /// The deviation as of `last_rated_at_ms` (the live one grows from
    /// it; see [`RatingSystem::live_deviation`]).
    pub deviation: f64,
    /// The volatility.
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// When his last rated game ended (Unix milliseconds), `None` if never.
    pub last_rated_at_ms: Option<i64>,
}

/// How a game or match between two players ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// The first player won (by any means: the opponent's resignation,
    /// forfeit or timeout counts as his loss).
    FirstWins,
    /// The second player won.
    SecondWins,
    /// A draw: half a point each.
    Draw,
}

impl Outcome {
    /// The first player's score.
    pub fn first_score(self) -> Score {
        match self {
            Outcome::FirstWins => Score::WIN,
            Outcome::SecondWins => Score::LOSS,
            Outcome::Draw => Score::DRAW,
        }
    }
}

/// Both players' ratings after a rated game, and the change each sees.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RatedGame {
    /// The first player's new rating.
    pub first: PlayerRating,
    /// The second player's new rating.
    pub second: PlayerRating,
    /// The first player's change in displayed rating (lichess's
    /// `ratingDiff`: the new displayed rating minus the old, the old one
    /// clamped into the bounds as it entered the game).
    pub first_diff: i32,
    /// The second player's change in displayed rating.
    pub second_diff: i32,
}

/// The constants of a rating policy: [`RatingSystem::LICHESS`] (the
/// default) is lichess's.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RatingSystem {
    /// τ.
    pub tau: f64,
    /// A new player's rating.
    pub default_rating: f64,
    /// A new player's volatility.
    pub default_volatility: f64,
    /// The rating floor.
    pub min_rating: f64,
    /// The rating ceiling.
    pub max_rating: f64,
    /// The least deviation.
    pub min_deviation: f64,
    /// A new player's deviation and the most it grows to.
    pub max_deviation: f64,
    /// The most volatility.
    pub max_volatility: f64,
    /// Rating periods per day of inactivity (0: the deviation never grows
    /// with time).
    pub rating_periods_per_day: f64,
    /// Provisional while the live deviation is at least this.
    pub provisional_deviation: f64,
    /// Ranked only while the live deviation is at most this.
    pub rankable_deviation: f64,
    /// The most one game moves a rating.
    pub max_rating_delta: f64,
    /// Rated games needed to be ranked.
    pub ranking_min_games: u32,
    /// Ranked for at most this long after the last rated game (ms).
    pub ranking_expiry_ms: i64,
}

impl Default for RatingSystem {
    fn default() -> RatingSystem {
        RatingSystem::LICHESS
    }
}

impl RatingSystem {
    /// lichess's constants (this module's `const`s, each with its source).
    pub const LICHESS: RatingSystem = RatingSystem {
        tau: TAU,
        default_rating: DEFAULT_RATING,
        default_volatility: DEFAULT_VOLATILITY,
        min_rating: MIN_RATING,
        max_rating: MAX_RATING,
        min_deviation: MIN_DEVIATION,
        max_deviation: MAX_DEVIATION,
        max_volatility: MAX_VOLATILITY,
        rating_periods_per_day: RATING_PERIODS_PER_DAY,
        provisional_deviation: PROVISIONAL_DEVIATION,
        rankable_deviation: RANKABLE_DEVIATION,
        max_rating_delta: MAX_RATING_DELTA,
        ranking_min_games: RANKING_MIN_GAMES,
        ranking_expiry_ms: RANKING_EXPIRY_MS,
    };

    /// Checks that the constants are finite and consistent: τ, the
    /// deviations, the volatilities and the rating delta positive, the
    /// bounds ordered with the defaults inside them, the periods per day
    /// and the expiry at least 0.
    pub fn validate(&self) -> Result<(), RatingError> {
        let refuse = |field, value| Err(RatingError::InvalidSystem { field, value });
        let values = [
            ("tau", self.tau),
            ("defaultRating", self.default_rating),
            ("defaultVolatility", self.default_volatility),
            ("minRating", self.min_rating),
            ("maxRating", self.max_rating),
            ("minDeviation", self.min_deviation),
            ("maxDeviation", self.max_deviation),
            ("maxVolatility", self.max_volatility),
            ("ratingPeriodsPerDay", self.rating_periods_per_day),
            ("provisionalDeviation", self.provisional_deviation),
            ("rankableDeviation", self.rankable_deviation),
            ("maxRatingDelta", self.max_rating_delta),
        ];
        for (field, value) in values {
            if !value.is_finite() {
                return refuse(field, value);
            }
        }
        let positive = [
            ("tau", self.tau),
            ("minDeviation", self.min_deviation),
            ("defaultVolatility", self.default_volatility),
            ("provisionalDeviation", self.provisional_deviation),
            ("rankableDeviation", self.rankable_deviation),
            ("maxRatingDelta", self.max_rating_delta),
        ];
        for (field, value) in positive {
            if value <= 0.0 {
                return refuse(field, value);
            }
        }
        // Each value at least the one before it.
        let ordered = [
            ("defaultRating", self.min_rating, self.default_rating),
            ("maxRating", self.default_rating, self.max_rating),
            ("maxDeviation", self.min_deviation, self.max_deviation),
            (
                "maxVolatility",
                self.default_volatility,
                self.max_volatility,
            ),
            ("ratingPeriodsPerDay", 0.0, self.rating_periods_per_day),
        ];
        for (field, low, value) in ordered {
            if value < low {
                return refuse(field, value);
            }
        }
        if self.ranking_expiry_ms < 0 {
            return refuse("rankingExpiryMs", self.ranking_expiry_ms as f64);
        }
        Ok(())
    }

    /// A player's rating before his first rated game: 1500, 500, 0.09.
    pub fn new_player(&self) -> PlayerRating {
        PlayerRating {
            rating: self.default_rating,
            deviation: self.max_deviation,
            volatility: self.default_volatility,
            games: 0,
            last_rated_at_ms: None,
        }
    }

    /// The deviation at `now_ms`: the stored one grown by the rating
    /// periods since his last rated game, clamped into the bounds (lila
    /// `Glicko.liveDeviation`). Time going backwards grows nothing.
    pub fn live_deviation(&self, player: &PlayerRating, now_ms: i64) -> Result<f64, RatingError> {
        self.validate()?;
        Ok(self.checked(player, now_ms)?.deviation)
    }

    /// The rating at `now_ms` as it enters a game: the live deviation, and
    /// every value clamped into the bounds.
    pub fn live(&self, player: &PlayerRating, now_ms: i64) -> Result<PlayerRating, RatingError> {
        self.validate()?;
        let glicko = self.checked(player, now_ms)?;
        Ok(PlayerRating {
            rating: glicko.rating,
            deviation: glicko.deviation,
            volatility: glicko.volatility,
            ..*player
        })
    }

    /// Rates a finished game or match between two players: each is one
    /// rating period for both, from both players' pre-game ratings (see
    /// the module docs for the steps). `now_ms` is when it ended.
    pub fn rate_game(
        &self,
        first: &PlayerRating,
        second: &PlayerRating,
        outcome: Outcome,
        match_length: MatchLength,
        now_ms: i64,
    ) -> Result<RatedGame, RatingError> {
        self.validate()?;
        let system = Glicko2::new(self.tau)?.with_max_deviation(self.max_deviation)?;
        let pre_first = self.checked(first, now_ms)?;
        let pre_second = self.checked(second, now_ms)?;
        let score = outcome.first_score();

        let rate = |player: &Glicko, opponent: &Glicko, score: Score| {
            let result = GameResult::matched(opponent.as_opponent(), score, match_length);
            system.rate_with_elapsed(player, &[result], 0.0)
        };
        let new_first = rate(&pre_first, &pre_second, score)?;
        let new_second = rate(&pre_second, &pre_first, score.opponent())?;

        let first_after = self.after_game(first, &pre_first, &new_first, now_ms);
        let second_after = self.after_game(second, &pre_second, &new_second, now_ms);
        Ok(RatedGame {
            first: first_after,
            second: second_after,
            first_diff: rating_diff(pre_first.rating, first_after.rating),
            second_diff: rating_diff(pre_second.rating, second_after.rating),
        })
    }

    /// The first player's expected score against the second over a match
    /// of `match_length` points at `now_ms` (live deviations): his chance
    /// of winning, a draw counted half.
    pub fn expected_score(
        &self,
        first: &PlayerRating,
        second: &PlayerRating,
        match_length: MatchLength,
        now_ms: i64,
    ) -> Result<f64, RatingError> {
        self.validate()?;
        let first = self.checked(first, now_ms)?;
        let second = self.checked(second, now_ms)?;
        crate::glicko2::expected_score(first.rating, &second.as_opponent(), match_length)
    }

    /// Whether a rating with this (live) deviation is provisional: at least
    /// [`provisional_deviation`](RatingSystem::provisional_deviation). A
    /// deviation that is not a number is provisional.
    pub fn is_provisional(&self, deviation: f64) -> bool {
        deviation.is_nan() || deviation >= self.provisional_deviation
    }

    /// Checks a stored rating and brings it to `now_ms` with every value
    /// inside the bounds.
    fn checked(&self, player: &PlayerRating, now_ms: i64) -> Result<Glicko, RatingError> {
        Glicko::new(player.rating, player.deviation, player.volatility)?;
        let elapsed = match player.last_rated_at_ms {
            Some(last) => now_ms.saturating_sub(last).max(0) as f64,
            None => 0.0,
        };
        let periods = elapsed * self.rating_periods_per_day / MS_PER_DAY as f64;
        let volatility = player.volatility.min(self.max_volatility);
        let grown = grow_deviation(player.deviation, volatility, periods);
        let deviation = if grown.is_finite() {
            grown.clamp(self.min_deviation, self.max_deviation)
        } else {
            self.max_deviation
        };
        Ok(Glicko {
            rating: player.rating.clamp(self.min_rating, self.max_rating),
            deviation,
            volatility,
        })
    }

    /// The stored rating after a game: the change capped, every value
    /// clamped, one more game.
    fn after_game(
        &self,
        stored: &PlayerRating,
        pre: &Glicko,
        new: &Glicko,
        now_ms: i64,
    ) -> PlayerRating {
        let base = pre.rating;
        let rating = new
            .rating
            .clamp(base - self.max_rating_delta, base + self.max_rating_delta)
            .clamp(self.min_rating, self.max_rating);
        PlayerRating {
            rating,
            deviation: new.deviation.clamp(self.min_deviation, self.max_deviation),
            volatility: new.volatility.min(self.max_volatility),
            games: stored.games.saturating_add(1),
            last_rated_at_ms: Some(now_ms),
        }
    }
}

/// The change in displayed rating from `before` to `after`.
fn rating_diff(before: f64, after: f64) -> i32 {
    display_rating(after).saturating_sub(display_rating(before))
}

/// The rating as players see it: lichess truncates (`rating.toInt`).
pub fn display_rating(rating: f64) -> i32 {
    // `as` saturates at the i32 bounds and maps NaN to 0: never panics.
    rating as i32
}

#[cfg(test)]
mod tests;
