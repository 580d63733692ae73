//! The durable store: what must outlive Redis — players' profiles,
//! finished games, ratings and leaderboards — on an embedded SQLite file
//! (the single-node default: no other service) or PostgreSQL (clusters),
//! with one schema and one set of migrations for both.
//!
//! As in the backplane, each concern is one trait, every method returns a
//! boxed `Send` future, and [`DurableStore`] is all of them together (a
//! blanket impl), so the node can hold one `Arc<dyn DurableStore>` and a
//! test fake implements only the concern it fakes:
//!
//! - [`Profiles`] — a player's profile, refreshed at each login; his chosen
//!   name; the deletion of everything stored about him;
//! - [`Games`] — finished games archived idempotently by (room, game
//!   number), each adding its statistics deltas to its players'
//!   statistics once; one game with its record; a player's history,
//!   newest first, keyset-paginated and filtered; rated games whose
//!   ratings wait; a player's statistics; a game's cached analysis;
//! - [`Ratings`] — a player's rating per game kind, and one rated game's
//!   two new ratings applied atomically and at most once;
//! - [`Leaderboards`] — the top of a game kind and a player's own rank,
//!   all time or over a period ("this week": [`week_start_ms`]);
//! - [`TournamentResults`] — each player's final line in each finished
//!   tournament, written once by (tournament, player); a player's latest
//!   with his counts of tournaments finished and won.
//!
//! [`Store`] implements all five on SQL: [`Store::connect`] takes a
//! `sqlite://path?mode=rwc` or `postgres://…` URL and runs the migrations.
//! The tables and each query's contract are in [the `sql` module's
//! docs](sql).
//!
//! The store computes no rating: `tabula-ratings` does, and hands the new
//! figures to [`Ratings::apply_rated_game`].
//!
//! # Runtime
//!
//! [`Store::connect`] must be called inside a tokio runtime (a
//! current-thread one is fine: actix's) that lives as long as the store:
//! the pool's upkeep runs on it (SQLite's connections each run on a thread
//! of their own). A call waits at most
//! [`StoreConfig::acquire_timeout_ms`] for a connection, then fails with
//! [`StoreError::Unavailable`]; the caller decides whether to retry, and
//! every write may be retried.
//!
//! # Files
//!
//! `profiles.rs`, `games.rs`, `ratings.rs`, `tournaments.rs`: one trait
//! each with its types (`ratings.rs` holds [`Leaderboards`] too). `sql/`: [`Store`] — `mod.rs`
//! the connection, the migrations, the table list and what the backends
//! share; one file per trait (`profiles.rs`, `games.rs`, `ratings.rs`,
//! `leaderboard.rs`, `tournaments.rs`), and `bulk.rs` (loading for benchmarks and tests,
//! the buckets' recount). `testing.rs`: [`testing::PgServer`], a
//! throwaway PostgreSQL for tests. `migrations/`: the schema, one SQL text
//! per migration for both backends. `tests/contract.rs`: every test
//! against both backends. `examples/leaderboard.rs`: the leaderboard at a
//! million players, timed.

mod durable;
mod error;
mod games;
mod key;
mod profiles;
mod ratings;
mod tournaments;

pub mod sql;
pub mod testing;

pub use durable::DurableStore;
pub use error::{Result, StoreError, StoreFuture};
pub use games::{
    Archived, FinishedGame, Games, HistoryCursor, HistoryEntry, HistoryPage, HistoryQuery,
    MAX_ANALYSIS_BYTES, MAX_PAGE, MAX_PENDING, Opponent, Record, Seat, StoredGame,
};
pub use key::GameKey;
pub use profiles::{Deleted, Profile, ProfileUpdate, Profiles};
pub use ratings::{
    Applied, LeaderboardEntry, Leaderboards, MAX_LEADERBOARD, PROVISIONAL_DEVIATION, Rating,
    RatingUpdate, Ratings, Standing, week_start_ms,
};
pub use sql::{Backend, Store, StoreConfig};
pub use tournaments::{MAX_FORMAT_BYTES, PlayerTournaments, TournamentResult, TournamentResults};
