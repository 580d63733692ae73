//! Ratings and leaderboards, behind [`Ratings`] and [`Leaderboards`].
//!
//! A player has one rating per game kind: Glicko-2's rating, deviation
//! and volatility, the rated games it counts and when it was last rated.
//! The store computes nothing: `tabula-ratings` reads both players'
//! ratings, computes the new ones and hands them to
//! [`Ratings::apply_rated_game`], which writes both and marks the game
//! applied in one transaction, once. Each update says how many games the
//! rating it was computed from counted ([`RatingUpdate::previous_games`]),
//! so two games of one player applied at once cannot lose one: the second
//! is refused with [`StoreError::RatingConflict`] and recomputed.
//!
//! A leaderboard is a game kind's rated players by rating, highest first,
//! ties by player id; a rank is a position in it (1-based). A period's
//! board ("this week": [`Leaderboards::top_since`] from [`week_start_ms`])
//! is the same order restricted to the players with a rated game of the
//! kind ending in the period, each at his current rating.
//!
//! [`StoreError::RatingConflict`]: crate::StoreError::RatingConflict

use tabula_room::GameKind;

use crate::{GameKey, StoreError, StoreFuture};

/// The largest leaderboard page.
pub const MAX_LEADERBOARD: u32 = 100;

/// A rating is provisional while its deviation is at least this: lichess's
/// rule, as `tabula_ratings::lichess::PROVISIONAL_DEVIATION` (110) states
/// it; repeated here because the store does not depend on
/// `tabula-ratings`.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// One day, in ms.
const DAY_MS: u64 = 86_400_000;

/// The start of the ISO week holding `now_ms` (ms since the epoch):
/// Monday 00:00 UTC, the `since_ms` of a "this week" board. The epoch's
/// week began on Monday 1969-12-29, before the epoch: for the first four
/// days of 1970 this is 0.
pub fn week_start_ms(now_ms: u64) -> u64 {
    let days = now_ms / DAY_MS;
    // Day 0, 1970-01-01, was a Thursday: 3 days after a Monday.
    match (days + 3) / 7 {
        0 => 0,
        weeks => (weeks * 7 - 3) * DAY_MS,
    }
}

/// The largest rating magnitude the store accepts (ratings are hundreds
/// to a few thousand; this only keeps the bucket arithmetic exact).
const MAX_RATING: f64 = 1.0e9;

/// Players' ratings.
pub trait Ratings: Send + Sync + std::fmt::Debug + 'static {
    /// `player`'s rating in `kind`, if he was ever rated in it.
    fn rating<'a>(&'a self, player: &'a str, kind: GameKind) -> StoreFuture<'a, Option<Rating>>;

    /// All of `player`'s ratings, by game kind.
    fn ratings<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Vec<(GameKind, Rating)>>;

    /// `player`'s rating in `kind` after each of his latest `limit` rated
    /// games, oldest first: `(rated_ms, rating)` (the profile's graph).
    fn rating_history<'a>(
        &'a self,
        player: &'a str,
        kind: GameKind,
        limit: u32,
    ) -> StoreFuture<'a, Vec<(u64, f64)>>;

    /// Applies the archived rated game `game`: writes both players' new
    /// ratings (their games count + 1, last rated at the game's end), a
    /// history row each, and marks the game applied, in one transaction.
    /// [`Applied::AlreadyApplied`] (nothing written) when it was applied
    /// before. Refused, with nothing written: an unknown game
    /// ([`StoreError::UnknownGame`]), a casual one
    /// ([`StoreError::NotRated`]), updates that are not for its two
    /// players ([`StoreError::WrongPlayers`]), a rating that moved since it
    /// was read ([`StoreError::RatingConflict`]), figures that are not
    /// finite and positive ([`StoreError::Invalid`]).
    ///
    /// [`StoreError::UnknownGame`]: crate::StoreError::UnknownGame
    /// [`StoreError::NotRated`]: crate::StoreError::NotRated
    /// [`StoreError::WrongPlayers`]: crate::StoreError::WrongPlayers
    /// [`StoreError::RatingConflict`]: crate::StoreError::RatingConflict
    /// [`StoreError::Invalid`]: crate::StoreError::Invalid
    fn apply_rated_game<'a>(
        &'a self,
        game: &'a GameKey,
        updates: &'a [RatingUpdate; 2],
    ) -> StoreFuture<'a, Applied>;

    /// Applies rated games in order, as [`Ratings::apply_rated_game`]
    /// applies each, all in one transaction: an archiver's batch, where
    /// one player may have several games, each update computed from the
    /// rating the game before it in the batch left
    /// ([`RatingUpdate::previous_games`] counting it). One answer per
    /// game. Any refusal or failure writes nothing (a rating moved
    /// meanwhile: [`StoreError::RatingConflict`]; read again and
    /// recompute the batch).
    fn apply_rated_games<'a>(
        &'a self,
        games: &'a [(GameKey, [RatingUpdate; 2])],
    ) -> StoreFuture<'a, Vec<Applied>>;

    /// The stored ratings in `kind` of those of `players` who have one.
    fn ratings_in<'a>(
        &'a self,
        players: &'a [String],
        kind: GameKind,
    ) -> StoreFuture<'a, Vec<(String, Rating)>>;

    /// Settles the archived rated game `game` without changing anyone's
    /// rating: marks it applied, so it leaves
    /// [`pending_ratings`](crate::Games::pending_ratings), for a game whose
    /// ratings can never be computed (a ratings worker would otherwise read
    /// it again on every pass, ahead of every later game). The game stays
    /// rated in history. [`Applied::AlreadyApplied`] when it was applied or
    /// settled before; refused as [`apply_rated_game`](Ratings::apply_rated_game)
    /// refuses an unknown or casual game.
    fn settle_unrateable<'a>(&'a self, game: &'a GameKey) -> StoreFuture<'a, Applied>;
}

/// Leaderboards.
pub trait Leaderboards: Send + Sync + std::fmt::Debug + 'static {
    /// The best `limit` (1 to [`MAX_LEADERBOARD`]) rated players of
    /// `kind`, ranked.
    fn top(&self, kind: GameKind, limit: u32) -> StoreFuture<'_, Vec<LeaderboardEntry>>;

    /// Where `player` stands in `kind`, if he is rated in it.
    fn standing<'a>(&'a self, player: &'a str, kind: GameKind)
    -> StoreFuture<'a, Option<Standing>>;

    /// The best `limit` (1 to [`MAX_LEADERBOARD`]) players of `kind`
    /// among those with an applied rated game of it that ended at or after
    /// `since_ms` (ms since the epoch; "this week": [`week_start_ms`]),
    /// ranked by their current rating as [`Leaderboards::top`] ranks (ties
    /// by player id).
    fn top_since(
        &self,
        kind: GameKind,
        since_ms: u64,
        limit: u32,
    ) -> StoreFuture<'_, Vec<LeaderboardEntry>>;

    /// Where `player` stands on the board of [`Leaderboards::top_since`]
    /// (`of`: how many players it ranks), if he is on it.
    fn standing_since<'a>(
        &'a self,
        player: &'a str,
        kind: GameKind,
        since_ms: u64,
    ) -> StoreFuture<'a, Option<Standing>>;
}

/// A stored rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// Glicko-2's rating (on the Glicko scale, 1500 to start).
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games counted.
    pub games: u32,
    /// When it was last rated: the end of the latest game applied.
    pub last_rated_ms: u64,
}

impl Rating {
    /// Whether the rating is provisional at its stored deviation (at
    /// least [`PROVISIONAL_DEVIATION`], or not a number). The deviation
    /// grows with the days since [`Rating::last_rated_ms`]:
    /// `tabula-ratings` computes the live one, which may be provisional
    /// when this is not.
    pub fn provisional(&self) -> bool {
        self.deviation.is_nan() || self.deviation >= PROVISIONAL_DEVIATION
    }
}

/// One player's new rating after a rated game.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingUpdate {
    /// The player.
    pub player: String,
    /// The games the rating this was computed from counted: his stored
    /// [`Rating::games`], or 0 when he had none.
    pub previous_games: u32,
    /// The new rating.
    pub rating: f64,
    /// The new deviation.
    pub deviation: f64,
    /// The new volatility.
    pub volatility: f64,
}

impl RatingUpdate {
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        let ok = self.rating.is_finite()
            && self.rating.abs() <= MAX_RATING
            && self.deviation.is_finite()
            && self.deviation > 0.0
            && self.volatility.is_finite()
            && self.volatility > 0.0;
        if !ok {
            return Err(StoreError::Invalid(format!(
                "the rating update of {} is not finite and positive",
                self.player
            )));
        }
        Ok(())
    }

    /// The leaderboard bucket of the new rating.
    pub(crate) fn bucket(&self) -> i64 {
        bucket(self.rating)
    }
}

/// The bucket of a rating: its whole part, rounded down. Exact for the
/// ratings [`RatingUpdate::check`] accepts.
pub(crate) fn bucket(rating: f64) -> i64 {
    // |rating| <= MAX_RATING, so the cast neither saturates nor rounds.
    rating.floor() as i64
}

/// What [`Ratings::apply_rated_game`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Both ratings are written and the game marked.
    Applied,
    /// The game was applied before; nothing was written.
    AlreadyApplied,
}

/// A player's place on a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    /// His rank, 1-based.
    pub rank: u64,
    /// How many players the leaderboard ranks.
    pub of: u64,
    /// His rating.
    pub rating: Rating,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderboardEntry {
    /// The rank, 1-based.
    pub rank: u64,
    /// The player.
    pub player: String,
    /// The name to show (chosen, else his login's), if he has a profile.
    pub name: Option<String>,
    /// His photo's URL.
    pub photo_url: Option<String>,
    /// His rating.
    pub rating: Rating,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-01-01T00:00:00Z, a Monday (ISO week 1 of 2024).
    const MONDAY: u64 = 1_704_067_200_000;

    #[test]
    fn a_week_starts_on_monday_at_midnight_utc() {
        // Every instant of that week, to its last millisecond.
        for offset in [0, 1, 12 * 3_600_000, DAY_MS, 3 * DAY_MS + 1, 7 * DAY_MS - 1] {
            assert_eq!(week_start_ms(MONDAY + offset), MONDAY, "+{offset} ms");
        }
        // The next Monday starts the next week.
        assert_eq!(week_start_ms(MONDAY + 7 * DAY_MS), MONDAY + 7 * DAY_MS);
        // The Sunday before (2023-12-31, ISO week 52 of 2023) is in the
        // week of Monday 2023-12-25, across the year's end.
        assert_eq!(week_start_ms(MONDAY - 1), 1_703_462_400_000);
        assert_eq!(week_start_ms(MONDAY - 7 * DAY_MS), 1_703_462_400_000);
        // 2026-03-01 12:00 UTC is a Sunday: its week began 2026-02-23.
        assert_eq!(week_start_ms(1_772_366_400_000), 1_771_804_800_000);
        // A leap day: Thursday 2024-02-29 is in the week of 2024-02-26.
        assert_eq!(week_start_ms(1_709_164_800_000 + 5), 1_708_905_600_000);
    }

    #[test]
    fn the_epochs_first_days_start_at_zero() {
        // 1970-01-01 was a Thursday; its Monday was before the epoch.
        for t in [0, 1, DAY_MS, 4 * DAY_MS - 1] {
            assert_eq!(week_start_ms(t), 0);
        }
        // Monday 1970-01-05.
        assert_eq!(week_start_ms(4 * DAY_MS), 4 * DAY_MS);
        assert_eq!(week_start_ms(11 * DAY_MS - 1), 4 * DAY_MS);
        assert_eq!(week_start_ms(11 * DAY_MS), 11 * DAY_MS);
    }

    #[test]
    fn every_week_start_is_a_monday_and_within_a_week() {
        let mut t = 0u64;
        while t < 4_000_000_000_000 {
            let w = week_start_ms(t);
            assert!(w == 0 || (w <= t && t - w < 7 * DAY_MS), "{t}");
            assert_eq!(w % DAY_MS, 0);
            // Days since the epoch's Thursday: a Monday is 4 mod 7.
            assert!(w == 0 || (w / DAY_MS) % 7 == 4, "{t}");
            assert_eq!(week_start_ms(w), w);
            t += 7_777_777_777;
        }
        assert_eq!(week_start_ms(u64::MAX) % DAY_MS, 0);
    }

    #[test]
    fn provisional_from_a_deviation_of_110() {
        let r = |deviation| Rating {
            rating: 1500.0,
            deviation,
            volatility: 0.06,
            games: 3,
            last_rated_ms: 0,
        };
        assert!(r(350.0).provisional());
        assert!(r(110.0).provisional());
        assert!(!r(109.99).provisional());
        assert!(!r(45.0).provisional());
        assert!(r(f64::NAN).provisional());
    }
}
