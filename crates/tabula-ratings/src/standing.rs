//! What a profile or a leaderboard shows of a rating, and who is ranked.
//!
//! * **Provisional** while the live deviation is at least 110: lichess shows
//!   such a rating with a `?` and keeps it off leaderboards
//!   ([`RatingSystem::is_provisional`]).
//! * **Ranked** (on the leaderboard) while, as in lila's `RankingApi`, the
//!   player has at least 2 rated games, his live deviation is at most 75
//!   (lila's `standardRankableDeviation`) and his last rated game is at most
//!   30 days old (lila's ranking entries expire a month after they are
//!   written). Both conditions on time only run out, so a store can keep
//!   the instant a player stops being ranked,
//!   [`RatingSystem::ranked_until_ms`], in an indexed column, recompute it
//!   at each rated game, and list a leaderboard as "ranked until after now,
//!   by rating, highest first" — lichess's order.
//! * **A conservative rating**, `r − 2·RD`: the lower end of the 95 %
//!   interval Glickman's paper reports a strength in (lichess's
//!   `intervalMin`). lichess orders leaderboards by rating among ranked
//!   players, and so does Tabula; the conservative figure is for displays
//!   or matchmaking floors that should not reward a lucky newcomer.
//!
//! Ratings are shown truncated to integers, as lichess shows them
//! ([`display_rating`]).

use crate::glicko2::GLICKO2_SCALE;
use crate::lichess::display_rating;
use crate::{PlayerRating, RatingError, RatingSystem};

/// A player's rating as a profile or leaderboard shows it at some instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Standing {
    /// The rating, truncated.
    pub rating: i32,
    /// The live deviation, truncated.
    pub deviation: i32,
    /// Whether the rating is provisional (shown with a `?`).
    pub provisional: bool,
    /// Whether the player is on the leaderboard now.
    pub ranked: bool,
    /// `rating − 2·deviation`, truncated.
    pub conservative_rating: i32,
    /// Rated games played.
    pub games: u32,
}

/// `rating − 2·deviation`: the lower end of the 95 % interval.
pub fn conservative_rating(rating: f64, deviation: f64) -> f64 {
    rating - 2.0 * deviation
}

impl RatingSystem {
    /// What a profile or leaderboard shows of `player` at `now_ms`.
    pub fn standing(&self, player: &PlayerRating, now_ms: i64) -> Result<Standing, RatingError> {
        let live = self.live(player, now_ms)?;
        Ok(Standing {
            rating: display_rating(live.rating),
            deviation: display_rating(live.deviation),
            provisional: self.is_provisional(live.deviation),
            ranked: self.is_ranked(player, now_ms)?,
            conservative_rating: display_rating(conservative_rating(live.rating, live.deviation)),
            games: player.games,
        })
    }

    /// Whether `player` is on the leaderboard at `now_ms`: at least
    /// [`ranking_min_games`](RatingSystem::ranking_min_games) rated games,
    /// his last within [`ranking_expiry_ms`](RatingSystem::ranking_expiry_ms),
    /// and a live deviation at most
    /// [`rankable_deviation`](RatingSystem::rankable_deviation).
    pub fn is_ranked(&self, player: &PlayerRating, now_ms: i64) -> Result<bool, RatingError> {
        Ok(self
            .ranked_until_ms(player)?
            .is_some_and(|until| now_ms < until))
    }

    /// The instant (Unix ms) from which `player` is no longer ranked, if he
    /// is ranked at all after his last rated game: the earlier of the
    /// ranking's expiry and the moment his growing deviation passes the
    /// rankable one. `None` for a player with too few games or a deviation
    /// already too large. A player is ranked at `now` exactly when
    /// `now < ranked_until_ms`.
    pub fn ranked_until_ms(&self, player: &PlayerRating) -> Result<Option<i64>, RatingError> {
        self.validate()?;
        let Some(last) = player.last_rated_at_ms else {
            return Ok(None);
        };
        let deviation_then = self.live_deviation(player, last)?;
        if player.games < self.ranking_min_games || deviation_then > self.rankable_deviation {
            return Ok(None);
        }
        // The live deviation grows as √(φ² + t·σ²) from the stored one:
        // it reaches the rankable deviation after t periods.
        let sigma = player.volatility.min(self.max_volatility);
        let phi = player.deviation / GLICKO2_SCALE;
        let phi_rankable = self.rankable_deviation / GLICKO2_SCALE;
        let periods = ((phi_rankable * phi_rankable - phi * phi) / (sigma * sigma)).max(0.0);
        let growth_ms = if self.rating_periods_per_day > 0.0 {
            // `as` saturates: a volatility near zero gives i64::MAX.
            (periods / self.rating_periods_per_day * MS_PER_DAY) as i64
        } else {
            i64::MAX
        };
        // The first millisecond past it is the first one not ranked.
        let span = growth_ms.saturating_add(1).min(self.ranking_expiry_ms);
        Ok(Some(last.saturating_add(span)))
    }
}

const MS_PER_DAY: f64 = 86_400_000.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MatchLength, Outcome};

    const LICHESS: RatingSystem = RatingSystem::LICHESS;
    const DAY: i64 = 86_400_000;
    const T0: i64 = 1_750_000_000_000;

    fn rated(deviation: f64, games: u32) -> PlayerRating {
        PlayerRating {
            rating: 1850.7,
            deviation,
            volatility: 0.06,
            games,
            last_rated_at_ms: Some(T0),
        }
    }

    #[test]
    fn the_standing_shows_truncated_figures_and_the_conservative_rating() {
        let standing = LICHESS.standing(&rated(50.4, 30), T0).unwrap();
        assert_eq!(
            standing,
            Standing {
                rating: 1850,
                deviation: 50,
                provisional: false,
                ranked: true,
                conservative_rating: 1749,
                games: 30,
            }
        );
        let new = LICHESS.standing(&LICHESS.new_player(), T0).unwrap();
        assert!(new.provisional && !new.ranked);
        assert_eq!(
            (new.rating, new.deviation, new.conservative_rating),
            (1500, 500, 500)
        );
        assert_eq!(conservative_rating(1850.0, 50.0), 1750.0);
    }

    #[test]
    fn a_player_is_ranked_after_two_games_with_a_low_deviation() {
        assert!(!LICHESS.is_ranked(&rated(50.0, 1), T0).unwrap());
        assert!(LICHESS.is_ranked(&rated(50.0, 2), T0).unwrap());
        assert!(LICHESS.is_ranked(&rated(75.0, 2), T0).unwrap());
        assert!(!LICHESS.is_ranked(&rated(75.1, 2), T0).unwrap());
        // Established but not ranked yet: 75 < RD < 110.
        let between = LICHESS.standing(&rated(90.0, 20), T0).unwrap();
        assert!(!between.provisional && !between.ranked);
        let never = PlayerRating {
            last_rated_at_ms: None,
            ..rated(50.0, 20)
        };
        assert_eq!(LICHESS.ranked_until_ms(&never).unwrap(), None);
    }

    #[test]
    fn a_ranking_expires_thirty_days_after_the_last_rated_game() {
        let p = rated(45.0, 20);
        assert_eq!(LICHESS.ranked_until_ms(&p).unwrap(), Some(T0 + 30 * DAY));
        assert!(LICHESS.is_ranked(&p, T0 + 30 * DAY - 1).unwrap());
        assert!(!LICHESS.is_ranked(&p, T0 + 30 * DAY).unwrap());
        // Time before the last game (a clock behind) keeps him ranked.
        assert!(LICHESS.is_ranked(&p, T0 - DAY).unwrap());
    }

    #[test]
    fn a_ranking_ends_when_the_growing_deviation_passes_75() {
        // From 74, the deviation passes 75 within days, well before the
        // expiry; the instant agrees with the live deviation.
        let p = rated(74.0, 20);
        let until = LICHESS.ranked_until_ms(&p).unwrap().unwrap();
        assert!(T0 < until && until < T0 + 30 * DAY);
        assert!(LICHESS.live_deviation(&p, until - 1).unwrap() <= 75.0);
        assert!(LICHESS.live_deviation(&p, until).unwrap() > 75.0);
        assert!(LICHESS.is_ranked(&p, until - 1).unwrap());
        assert!(!LICHESS.is_ranked(&p, until).unwrap());
        // Without growth with time only the expiry ends it.
        let frozen = RatingSystem {
            rating_periods_per_day: 0.0,
            ..LICHESS
        };
        assert_eq!(frozen.ranked_until_ms(&p).unwrap(), Some(T0 + 30 * DAY));
    }

    #[test]
    fn a_rated_game_renews_the_ranking() {
        let p = rated(60.0, 20);
        let later = T0 + 29 * DAY;
        let game = LICHESS
            .rate_game(&p, &rated(60.0, 20), Outcome::Draw, MatchLength::ONE, later)
            .unwrap();
        let until = LICHESS.ranked_until_ms(&game.first).unwrap().unwrap();
        assert_eq!(until, later + 30 * DAY);
    }

    #[test]
    fn broken_values_are_errors_not_rankings() {
        let broken = PlayerRating {
            volatility: f64::NAN,
            ..rated(50.0, 20)
        };
        assert!(LICHESS.ranked_until_ms(&broken).is_err());
        assert!(LICHESS.standing(&broken, T0).is_err());
    }
}
