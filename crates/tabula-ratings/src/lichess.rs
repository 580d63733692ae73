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
mod tests {
    use super::*;
    use crate::glicko2::Opponent;

    const LICHESS: RatingSystem = RatingSystem::LICHESS;
    const DAY: i64 = MS_PER_DAY;
    const T0: i64 = 1_750_000_000_000;

    fn player(rating: f64, deviation: f64, volatility: f64) -> PlayerRating {
        PlayerRating {
            rating,
            deviation,
            volatility,
            games: 10,
            last_rated_at_ms: None,
        }
    }

    fn assert_near(got: f64, want: f64, tolerance: f64, what: &str) {
        assert!(
            (got - want).abs() <= tolerance,
            "{what}: got {got}, want {want} ± {tolerance}"
        );
    }

    fn game(a: PlayerRating, b: PlayerRating, outcome: Outcome) -> RatedGame {
        LICHESS
            .rate_game(&a, &b, outcome, MatchLength::ONE, T0)
            .unwrap()
    }

    #[test]
    fn a_new_player_starts_at_1500_with_deviation_500_and_is_provisional() {
        let new = LICHESS.new_player();
        assert_eq!(
            (new.rating, new.deviation, new.volatility),
            (1500.0, 500.0, 0.09)
        );
        assert_eq!((new.games, new.last_rated_at_ms), (0, None));
        assert!(LICHESS.is_provisional(LICHESS.live_deviation(&new, T0).unwrap()));
        assert_eq!(RatingSystem::default(), LICHESS);
        LICHESS.validate().unwrap();
    }

    /// The figures of scalachess's own calculator tests
    /// (`GlickoCalculatorTest`: τ 0.75, one game, no deviation increase),
    /// to the precision they assert.
    #[test]
    fn matches_lichesss_calculator_on_its_published_cases() {
        // Two new lichess players: the winner 1741, the loser 1258, both
        // deviations 396, volatility 0.0899983.
        let new = LICHESS.new_player();
        let won = game(new, new, Outcome::FirstWins);
        assert_near(won.first.rating, 1741.0, 1.0, "winner");
        assert_near(won.second.rating, 1258.0, 1.0, "loser");
        assert_near(won.first.deviation, 396.0, 1.0, "RD");
        assert_near(won.second.deviation, 396.0, 1.0, "RD");
        assert_near(won.first.volatility, 0.089_998_3, 0.000_000_1, "σ");
        assert_eq!((won.first_diff, won.second_diff), (241, -242));

        // 1500/350/0.06 each.
        let p = player(1500.0, 350.0, 0.06);
        let won = game(p, p, Outcome::SecondWins);
        assert_near(won.first.rating, 1337.79, 0.005, "loser");
        assert_near(won.second.rating, 1662.21, 0.005, "winner");
        assert_near(won.first.deviation, 290.23, 0.005, "RD");
        assert_near(won.second.volatility, 0.059_999_3, 0.000_000_1, "σ");
        let drawn = game(p, p, Outcome::Draw);
        assert_near(drawn.first.rating, 1500.0, 0.005, "draw");
        assert_near(drawn.second.rating, 1500.0, 0.005, "draw");
        assert_near(drawn.first.deviation, 290.23, 0.005, "RD");
        assert_near(drawn.first.volatility, 0.059_997_7, 0.000_000_1, "σ");

        // Mixed: 1400/79/0.06 against 1550/110/0.065.
        let (a, b) = (player(1400.0, 79.0, 0.06), player(1550.0, 110.0, 0.065));
        for (outcome, want_a, want_b) in [
            (Outcome::FirstWins, 1422.63, 1506.32),
            (Outcome::SecondWins, 1389.99, 1568.90),
            (Outcome::Draw, 1406.31, 1537.61),
        ] {
            let rated = game(a, b, outcome);
            assert_near(rated.first.rating, want_a, 0.005, "first");
            assert_near(rated.second.rating, want_b, 0.005, "second");
            assert_near(rated.first.deviation, 77.50, 0.005, "first RD");
            assert_near(rated.second.deviation, 105.87, 0.005, "second RD");
            assert_near(rated.first.volatility, 0.06, 0.000_01, "first σ");
            assert_near(rated.second.volatility, 0.065, 0.000_01, "second σ");
        }

        // More mixed: 1200/60/0.053 against 1850/200/0.062.
        let (a, b) = (player(1200.0, 60.0, 0.053), player(1850.0, 200.0, 0.062));
        for (outcome, want_a, want_b, sigma_a, sigma_b) in [
            (Outcome::FirstWins, 1216.73, 1635.99, 0.053_013, 0.062_028),
            (Outcome::SecondWins, 1199.29, 1855.42, 0.052_999, 0.061_999),
            (Outcome::Draw, 1208.01, 1745.71, 0.053_002, 0.062_006),
        ] {
            let rated = game(a, b, outcome);
            assert_near(rated.first.rating, want_a, 0.005, "first");
            assert_near(rated.second.rating, want_b, 0.005, "second");
            assert_near(rated.first.deviation, 59.90, 0.005, "first RD");
            assert_near(rated.second.deviation, 196.99, 0.005, "second RD");
            assert_near(rated.first.volatility, sigma_a, 0.000_001, "first σ");
            assert_near(rated.second.volatility, sigma_b, 0.000_001, "second σ");
        }
    }

    #[test]
    fn both_players_are_rated_from_their_pre_game_ratings() {
        let a = player(1600.0, 80.0, 0.06);
        let b = player(1450.0, 150.0, 0.07);
        let rated = game(a, b, Outcome::SecondWins);
        // The second player's update is the same whether computed alone
        // from the pre-game pair or as the second half of the pair.
        let system = Glicko2::new(TAU)
            .unwrap()
            .with_max_deviation(MAX_DEVIATION)
            .unwrap();
        let alone = system
            .rate_with_elapsed(
                &Glicko::new(1450.0, 150.0, 0.07).unwrap(),
                &[GameResult::game(
                    Glicko::new(1600.0, 80.0, 0.06).unwrap().as_opponent(),
                    Score::WIN,
                )],
                0.0,
            )
            .unwrap();
        assert_eq!(rated.second.rating, alone.rating);
        assert_eq!(rated.second.deviation, alone.deviation);
        // Swapping the seats swaps the results exactly.
        let swapped = game(b, a, Outcome::FirstWins);
        assert_eq!(swapped.first, rated.second);
        assert_eq!(swapped.second, rated.first);
        // Both count the game and its time.
        assert_eq!((rated.first.games, rated.second.games), (11, 11));
        assert_eq!(rated.first.last_rated_at_ms, Some(T0));
        assert_eq!(rated.second.last_rated_at_ms, Some(T0));
    }

    #[test]
    fn a_draw_counts_half_a_point() {
        let p = player(1500.0, 200.0, 0.06);
        let drawn = game(p, p, Outcome::Draw);
        assert_near(drawn.first.rating, 1500.0, 1e-9, "equal draw");
        // Against a stronger player a draw gains, and the gain is what a
        // score of ½ gives in the paper's algorithm.
        let strong = player(1700.0, 200.0, 0.06);
        let drawn = game(p, strong, Outcome::Draw);
        assert!(drawn.first.rating > 1500.0 && drawn.second.rating < 1700.0);
        let system = Glicko2::new(TAU)
            .unwrap()
            .with_max_deviation(MAX_DEVIATION)
            .unwrap();
        let half = system
            .rate_with_elapsed(
                &Glicko::new(1500.0, 200.0, 0.06).unwrap(),
                &[GameResult::game(
                    Opponent {
                        rating: 1700.0,
                        deviation: 200.0,
                    },
                    Score::DRAW,
                )],
                0.0,
            )
            .unwrap();
        assert_eq!(drawn.first.rating, half.rating);
    }

    #[test]
    fn the_deviation_grows_with_time_since_the_last_rated_game() {
        let mut p = player(1800.0, 60.0, 0.06);
        p.last_rated_at_ms = Some(T0);
        assert_eq!(LICHESS.live_deviation(&p, T0).unwrap(), 60.0);
        let day = LICHESS.live_deviation(&p, T0 + DAY).unwrap();
        let week = LICHESS.live_deviation(&p, T0 + 7 * DAY).unwrap();
        assert!(60.0 < day && day < week);
        // Step 6 over 0.21436 periods a day.
        let phi = 60.0 / crate::GLICKO2_SCALE;
        let want = (phi * phi + 7.0 * 0.21436 * 0.06 * 0.06).sqrt() * crate::GLICKO2_SCALE;
        assert_near(week, want, 1e-9, "a week");
        // lichess's comment: 60 → 110 in a year for a typical player.
        assert_near(
            LICHESS.live_deviation(&p, T0 + 365 * DAY).unwrap(),
            110.0,
            0.5,
            "a year",
        );
        // Never past 500; time going backwards grows nothing; a player
        // never rated does not grow.
        assert_eq!(
            LICHESS.live_deviation(&p, T0 + 100_000 * DAY).unwrap(),
            500.0
        );
        assert_eq!(LICHESS.live_deviation(&p, T0 - DAY).unwrap(), 60.0);
        assert_eq!(LICHESS.live_deviation(&p, i64::MIN).unwrap(), 60.0);
        assert_eq!(LICHESS.live_deviation(&p, i64::MAX).unwrap(), 500.0);
        p.last_rated_at_ms = None;
        assert_eq!(LICHESS.live_deviation(&p, T0 + 365 * DAY).unwrap(), 60.0);
    }

    #[test]
    fn a_game_after_a_long_break_moves_the_rating_more() {
        let mut regular = player(1800.0, 60.0, 0.06);
        regular.last_rated_at_ms = Some(T0 - DAY);
        let mut returning = regular;
        returning.last_rated_at_ms = Some(T0 - 400 * DAY);
        let opponent = player(1800.0, 60.0, 0.06);
        let a = game(regular, opponent, Outcome::SecondWins);
        let b = game(returning, opponent, Outcome::SecondWins);
        assert!(b.first.rating < a.first.rating);
        // His live deviation entered the game, not the stored one.
        assert!(b.first.deviation > a.first.deviation);
    }

    #[test]
    fn provisional_while_the_deviation_is_at_least_110() {
        assert!(LICHESS.is_provisional(500.0));
        assert!(LICHESS.is_provisional(110.0));
        assert!(!LICHESS.is_provisional(109.99));
        assert!(LICHESS.is_provisional(f64::NAN));
        // A new player is provisional for his first several games against
        // established opponents.
        let mut me = LICHESS.new_player();
        let them = player(1500.0, 60.0, 0.06);
        let mut games = 0;
        while LICHESS.is_provisional(me.deviation) {
            let outcome = if games % 2 == 0 {
                Outcome::FirstWins
            } else {
                Outcome::SecondWins
            };
            me = LICHESS
                .rate_game(&me, &them, outcome, MatchLength::ONE, T0)
                .unwrap()
                .first;
            games += 1;
            assert!(games < 50);
        }
        assert!(games >= 5, "{games}");
    }

    #[test]
    fn ratings_stay_within_lichesss_bounds() {
        // The floor: a 400 player who loses stays at 400.
        let floor = player(400.0, 60.0, 0.06);
        let rated = game(floor, player(1500.0, 60.0, 0.06), Outcome::SecondWins);
        assert_eq!(rated.first.rating, 400.0);
        // The deviation never falls below 45.
        let mut a = player(1500.0, 45.0, 0.06);
        for _ in 0..100 {
            a = game(a, player(1500.0, 45.0, 0.06), Outcome::Draw).first;
        }
        assert_eq!(a.deviation, 45.0);
        // Volatility at most 0.1, even after a shock.
        let shocked = game(
            player(2500.0, 45.0, 0.1),
            player(500.0, 45.0, 0.06),
            Outcome::SecondWins,
        );
        assert!(shocked.first.volatility <= 0.1);
    }

    #[test]
    fn one_game_moves_a_rating_at_most_700() {
        // A newcomer beating a top player in a long match would move
        // further without the cap.
        let long = MatchLength::new(crate::MAX_MATCH_LENGTH).unwrap();
        let newcomer = player(1500.0, 500.0, 0.09);
        let top = player(3000.0, 45.0, 0.06);
        let rated = LICHESS
            .rate_game(&newcomer, &top, Outcome::FirstWins, long, T0)
            .unwrap();
        assert!(rated.first.rating - 1500.0 <= 700.0);
        let uncapped = RatingSystem {
            max_rating_delta: 1e9,
            ..LICHESS
        }
        .rate_game(&newcomer, &top, Outcome::FirstWins, long, T0)
        .unwrap();
        assert!(uncapped.first.rating > rated.first.rating);
        assert_eq!(rated.first.rating, 2200.0);
        assert_eq!(rated.first_diff, 700);
    }

    #[test]
    fn stored_values_out_of_bounds_are_clamped_and_broken_ones_refused() {
        let opponent = player(1500.0, 100.0, 0.06);
        // Finite values outside the bounds read as the bounds.
        let odd = player(100.0, 900.0, 0.5);
        let live = LICHESS.live(&odd, T0).unwrap();
        assert_eq!(
            (live.rating, live.deviation, live.volatility),
            (400.0, 500.0, 0.1)
        );
        assert!(
            LICHESS
                .rate_game(&odd, &opponent, Outcome::Draw, MatchLength::ONE, T0)
                .is_ok()
        );
        // What no clamp mends is an error, on either side.
        for broken in [
            player(f64::NAN, 100.0, 0.06),
            player(1500.0, f64::INFINITY, 0.06),
            player(1500.0, 0.0, 0.06),
            player(1500.0, -50.0, 0.06),
            player(1500.0, 100.0, 0.0),
            player(1500.0, 100.0, f64::NAN),
        ] {
            assert!(
                LICHESS
                    .rate_game(&broken, &opponent, Outcome::Draw, MatchLength::ONE, T0)
                    .is_err()
            );
            assert!(
                LICHESS
                    .rate_game(&opponent, &broken, Outcome::Draw, MatchLength::ONE, T0)
                    .is_err()
            );
            assert!(LICHESS.live_deviation(&broken, T0).is_err());
        }
    }

    #[test]
    fn an_inconsistent_system_is_refused() {
        let p = player(1500.0, 100.0, 0.06);
        for system in [
            RatingSystem {
                tau: 0.0,
                ..LICHESS
            },
            RatingSystem {
                min_deviation: 600.0,
                ..LICHESS
            },
            RatingSystem {
                rating_periods_per_day: f64::NAN,
                ..LICHESS
            },
            RatingSystem {
                rating_periods_per_day: -1.0,
                ..LICHESS
            },
            RatingSystem {
                default_rating: 5000.0,
                ..LICHESS
            },
            RatingSystem {
                max_volatility: 0.01,
                ..LICHESS
            },
            RatingSystem {
                ranking_expiry_ms: -1,
                ..LICHESS
            },
        ] {
            assert!(system.validate().is_err(), "{system:?}");
            assert!(
                system
                    .rate_game(&p, &p, Outcome::Draw, MatchLength::ONE, T0)
                    .is_err()
            );
        }
    }

    #[test]
    fn a_player_rating_round_trips_through_json() {
        let mut p = LICHESS.new_player();
        p.last_rated_at_ms = Some(T0);
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(
            json,
            r#"{"rating":1500.0,"deviation":500.0,"volatility":0.09,"games":0,"lastRatedAtMs":1750000000000}"#
        );
        assert_eq!(serde_json::from_str::<PlayerRating>(&json).unwrap(), p);
        assert_eq!(
            serde_json::to_string(&Outcome::FirstWins).unwrap(),
            r#""firstWins""#
        );
        let system: RatingSystem =
            serde_json::from_str(&serde_json::to_string(&LICHESS).unwrap()).unwrap();
        assert_eq!(system, LICHESS);
    }
}
