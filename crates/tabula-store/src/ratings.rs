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
//! ties by player id; a rank is a position in it (1-based).
//!
//! [`StoreError::RatingConflict`]: crate::StoreError::RatingConflict

use tabula_room::GameKind;

use crate::{GameKey, StoreError, StoreFuture};

/// The largest leaderboard page.
pub const MAX_LEADERBOARD: u32 = 100;

/// The largest rating magnitude the store accepts (ratings are hundreds
/// to a few thousand; this only keeps the bucket arithmetic exact).
const MAX_RATING: f64 = 1.0e9;

/// Players' ratings.
pub trait Ratings: Send + Sync + std::fmt::Debug + 'static {
    /// `player`'s rating in `kind`, if he was ever rated in it.
    fn rating<'a>(&'a self, player: &'a str, kind: GameKind) -> StoreFuture<'a, Option<Rating>>;

    /// All of `player`'s ratings, by game kind.
    fn ratings<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Vec<(GameKind, Rating)>>;

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
}

/// Leaderboards.
pub trait Leaderboards: Send + Sync + std::fmt::Debug + 'static {
    /// The best `limit` (1 to [`MAX_LEADERBOARD`]) rated players of
    /// `kind`, ranked.
    fn top(&self, kind: GameKind, limit: u32) -> StoreFuture<'_, Vec<LeaderboardEntry>>;

    /// Where `player` stands in `kind`, if he is rated in it.
    fn standing<'a>(&'a self, player: &'a str, kind: GameKind)
    -> StoreFuture<'a, Option<Standing>>;
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
