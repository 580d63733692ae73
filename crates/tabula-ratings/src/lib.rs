//! Ratings for Tabula: Glicko-2 as Glickman defines it, run the way lichess
//! runs it, with the match length counting as FIBS counts it.
//!
//! The crate is pure: no IO, no clock, no async. Every function that
//! depends on time takes `now_ms` (Unix milliseconds) as an argument. Every
//! input is checked: a number that is not finite, a deviation or volatility
//! that is not positive, a score outside `0..=1` or a match length outside
//! `1..=MAX_MATCH_LENGTH` is a typed [`RatingError`], never a panic, and the
//! iterations are bounded.
//!
//! # Layers
//!
//! * [`glicko2`] — Glickman's algorithm exactly as his paper "Example of the
//!   Glicko-2 system" gives it, steps 1–8, the volatility found by the
//!   Illinois algorithm, τ configurable: [`Glicko2::rate`] for a rating
//!   period, [`Glicko2::idle`] for a period without games. Tested against
//!   the paper's worked example.
//! * [`match_length`] — how a match of `n` points weighs: FIBS's model, in
//!   which the log-odds of winning scale by `√n`, put into Glickman's
//!   likelihood (`g(φ_j)` becomes `√n·g(φ_j)`); one point is plain
//!   Glicko-2.
//! * [`lichess`] — [`RatingSystem::LICHESS`]: 1500 / 500 / 0.09 for a new
//!   player, τ 0.75, each finished game its own rating period for both
//!   players ([`RatingSystem::rate_game`] takes both and returns both), the
//!   deviation growing with the time since the last rated game, lichess's
//!   bounds and its 700-point cap per game. Tested against the figures of
//!   lichess's own calculator tests.
//! * [`standing`] — what a profile or leaderboard shows: the truncated
//!   rating, provisional (deviation ≥ 110), ranked (≥ 2 games, deviation
//!   ≤ 75, played within 30 days), the conservative `r − 2·RD`, and the
//!   instant a ranking lapses, for an indexed leaderboard query.
//!
//! # Using it from a store
//!
//! ```
//! use tabula_ratings::{MatchLength, Outcome, RatingSystem};
//!
//! let system = RatingSystem::LICHESS;
//! let now_ms = 1_750_000_000_000;
//! // Both players' stored ratings for this game kind (new ones here).
//! let (alice, bob) = (system.new_player(), system.new_player());
//! // Alice wins a 5-point match.
//! let length = MatchLength::new(5).unwrap();
//! let rated = system.rate_game(&alice, &bob, Outcome::FirstWins, length, now_ms).unwrap();
//! assert!(rated.first.rating > 1500.0 && rated.second.rating < 1500.0);
//! assert_eq!(rated.first.games, 1);
//! // Write both in one transaction, with the game; show the change.
//! assert!(rated.first_diff > 0 && rated.second_diff < 0);
//! // A profile or leaderboard row at some later instant.
//! let standing = system.standing(&rated.first, now_ms + 86_400_000).unwrap();
//! assert!(standing.provisional && !standing.ranked);
//! ```

mod error;
pub mod glicko2;
pub mod lichess;
pub mod match_length;
mod score;
pub mod standing;

pub use error::RatingError;
pub use glicko2::{GLICKO2_SCALE, GameResult, Glicko, Glicko2, Opponent, expected_score};
pub use lichess::{Outcome, PlayerRating, RatedGame, RatingSystem, display_rating};
pub use match_length::{MAX_MATCH_LENGTH, MatchLength};
pub use score::Score;
pub use standing::{Standing, conservative_rating};
