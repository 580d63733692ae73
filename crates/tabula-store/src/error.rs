//! The store's one error type and the result and future every concern's
//! methods return.

use futures_util::future::BoxFuture;

use crate::key::GameKey;

/// Why a store call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The URL or the settings are not usable (unknown scheme, bad option).
    #[error("store configuration: {0}")]
    Config(String),
    /// The database could not be reached or did not answer in time, or it
    /// refused for a passing reason (busy, a deadlock, a serialisation
    /// failure, shutting down). Retry later: every write is idempotent.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// The migrations could not be run.
    #[error("store migrations: {0}")]
    Migrate(String),
    /// The input was refused before anything was written (an empty id, a
    /// rated game with a bot, a rating that is not finite, a page size out
    /// of range, …).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The game is not archived.
    #[error("game {0} is not archived")]
    UnknownGame(GameKey),
    /// The game is archived as casual (unrated).
    #[error("game {0} is not rated")]
    NotRated(GameKey),
    /// The updates do not name the game's two players.
    #[error("the rating updates of game {game} do not name its players")]
    WrongPlayers {
        /// The game.
        game: GameKey,
    },
    /// A player's stored rating is not the one the update was computed from
    /// (another game of his was applied meanwhile): nothing was written;
    /// read his rating again and recompute.
    #[error("the rating of {player} changed since it was read (now {games} games)")]
    RatingConflict {
        /// The player.
        player: String,
        /// The games his stored rating counts.
        games: u32,
    },
    /// The database refused the statement for a lasting reason.
    #[error("database: {0}")]
    Database(String),
    /// A stored value could not be read back.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
}

/// A store call's result.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A boxed `Send` future, as every trait method returns.
pub type StoreFuture<'a, T> = BoxFuture<'a, Result<T>>;
