//! The SQL store: [`Store`] implements every trait of the crate on SQLite
//! (an embedded file, the single-node default) or PostgreSQL (clusters).
//!
//! # Backends
//!
//! One schema, one migration text and one SQL text per query serve both:
//! the statements use only what both read alike (`$n` parameters,
//! `ON CONFLICT … DO UPDATE / DO NOTHING`, `RETURNING`, row-value
//! comparisons, partial indexes), every integer column is a `BIGINT`
//! (decoded as `i64` on both) and booleans are `BOOLEAN`. sqlx's `Any`
//! driver would fit the SQL but not the connections (SQLite's WAL, busy
//! timeout, foreign keys and secure delete are set per connection, and a
//! SQLite write transaction must begin `IMMEDIATE`), so the store holds
//! one pool of either kind and each query's body is written once and
//! compiled for both (the `on_pool!` macro). Every statement is a static
//! string with binds; nothing is assembled from input (sqlx 0.9 refuses a
//! `String` as SQL).
//!
//! SQLite runs in WAL mode with `synchronous = NORMAL` (a committed write
//! survives the process dying; a power cut may lose the latest commits),
//! `foreign_keys` and `secure_delete` on (a deleted player's rows are
//! overwritten in the file, not only unlinked), a busy timeout, and write
//! transactions that take the write lock at `BEGIN IMMEDIATE`, so two
//! writers queue instead of failing. PostgreSQL runs every transaction at
//! READ COMMITTED; the statements that must not race check what they
//! change in their `WHERE` (see each query below).
//!
//! # Migrations
//!
//! `migrations/NNNN_name.sql`, embedded in the binary and run by
//! [`Store::connect`] in order, each once (sqlx's `_sqlx_migrations`
//! table, checksummed: an applied migration whose text changed is an
//! error). On PostgreSQL the migrator holds an advisory lock, so nodes
//! starting together migrate once. A database migrated by a newer
//! version (a migration this binary does not know) is accepted, so a
//! rolling update's old nodes keep running: migrations only add.
//!
//! # Tables
//!
//! | table | key | holds |
//! |---|---|---|
//! | `players` | `id` | a profile: what the latest login said (`display_name`, `username`, `photo_url`, `language`), `chosen_name`, `created_ms`, `updated_ms` |
//! | `games` | `(room_id, game_number)` | a finished game: `game_kind`, each seat's `x_player` or `x_bot` (neither: a deleted player), `winner` (`a`, `b`, none for a draw), `result_kind`, `end_reason`, `base_points`, `cube`, `points`, `thud_a`/`thud_b`, `match_length`, `rated`, `finished_ms`, `archived_ms`, `ratings_applied_ms`, `record` (the GameRecord JSON) |
//! | `game_players` | `(player_id, room_id, game_number)` | one row per player seated in a game: his `seat`, `game_kind`, `opponent` (`person` / `computer`), `finished_ms`; cascades from `games` |
//! | `ratings` | `(player_id, game_kind)` | `rating`, `deviation`, `volatility`, `games`, `last_rated_ms` (the latest end of the games applied to it), `bucket` (= ⌊rating⌋) |
//! | `rating_buckets` | `(game_kind, bucket)` | `players`: how many ratings of the kind have that whole part |
//! | `rating_history` | `(player_id, game_kind, rated_ms, room_id, game_number)` | each applied change: `rating_before` (none for the first), the new `rating`, `deviation`, `volatility`; `rated_ms` is the game's end |
//! | `player_stats` | `player_id` | `stats`: his `tabula_room::PlayerStats` as JSON (every delta of his archived games, each added once), `updated_ms` (migration 2) |
//! | `analyses` | `(room_id, game_number)` | a game's cached analysis: `json` (at most 1 MiB), `created_ms`; cascades from `games` (migration 2) |
//! | `period_weeks` | `game_kind` | `week_ms`: the newest week whose period counts are kept, with the week before it (migration 3) |
//! | `period_buckets` | `(game_kind, period_ms, bucket)` | `players`: how many ratings of the kind last rated at or after `period_ms` have that whole part (migration 3) |
//! | `tournament_results` | `(tournament_id, player_id)` | a player's final line in a finished tournament: `format` (its JSON), `game_kind`, `place`, `points`, `games`, `wins`, `players` (ranked in the final standings), `finished_ms`, `stored_ms` (migration 4) |
//!
//! Indexes: `games_pending_ratings` (partial: rated games not applied, by
//! end), `game_players_history` (`player_id, finished_ms, room_id,
//! game_number`: a history page is one range of it), `game_players_game`
//! (the cascade), `ratings_board` (`game_kind, rating DESC, player_id`:
//! the leaderboard's order), `rating_history_week` (`game_kind,
//! rated_ms`: a period's rows of the history), and from migration 2
//! `ratings_period` (`game_kind, last_rated_ms, rating, player_id`: a
//! period's board is one range of it, read index-only), and from
//! migration 3 `ratings_board_period` (`game_kind, rating DESC,
//! player_id, last_rated_ms`: the board's order with what a period
//! filters on, so a period's walk and one whole point of it are read
//! index-only), and from migration 4 `tournament_results_player`
//! (`player_id, finished_ms, tournament_id`: a player's results newest
//! first, and his counts, are one range of it).
//!
//! # Queries
//!
//! - **Profiles** (`profiles.rs`). Upsert: one `INSERT … ON CONFLICT (id)
//!   DO UPDATE` replacing the login's fields and `updated_ms`, keeping
//!   `created_ms` and `chosen_name`, `RETURNING` the row. Chosen name: one
//!   `UPDATE`. Delete: one write transaction — in every game he sat in
//!   (found through his `game_players` rows), his seat cleared; games left
//!   with no player deleted (their `game_players` rows cascade); his
//!   remaining `game_players` rows deleted; his ratings deleted `RETURNING`
//!   their buckets and `last_rated_ms`, the buckets decremented, then each
//!   kind's period counts (*Period boards*, in kind order); his rating
//!   history, his
//!   `player_stats` row and his profile deleted (the analyses of the games
//!   deleted go with them, the cascade; a game kept for his opponent keeps
//!   its analysis, as it keeps its record). SQLite's `secure_delete`
//!   overwrites the freed content; PostgreSQL's dead rows are reclaimed by
//!   (auto)vacuum.
//! - **Games** (`games.rs`). Archive: one write transaction — `INSERT … ON
//!   CONFLICT (room_id, game_number) DO NOTHING`; no row inserted means it
//!   was archived before and nothing else is written; else one
//!   `game_players` row per player seat, then, per player with a delta and
//!   in id order, his statistics: his `player_stats` row taken by `INSERT …
//!   ON CONFLICT (player_id) DO UPDATE SET updated_ms … RETURNING stats`
//!   (created empty if missing; on PostgreSQL the `DO UPDATE` locks the row
//!   and returns its latest committed version, so two archives of one
//!   player's games queue on it instead of one losing the other's delta; on
//!   SQLite the write lock is already held), his deltas added by
//!   `PlayerStats::record`, and the JSON written back by an `UPDATE`. Locks
//!   are taken in one order (the game, its players' rows, their statistics
//!   by player id), so two archives cannot deadlock; a deletion shares only
//!   the statistics row with an archive and takes it after every row an
//!   archive could wait on. A batch (`archive_many`, issue 47): the same in
//!   one write transaction for all its games — on PostgreSQL four statements
//!   over arrays (`UNNEST`): the games inserted in key order `ON CONFLICT DO
//!   NOTHING RETURNING` their keys, the history rows of the games inserted,
//!   the statistics rows of their players taken in id order (`INSERT … SELECT
//!   … ORDER BY … ON CONFLICT DO UPDATE … RETURNING stats`), each player's
//!   deltas of the whole batch added, and the rows written back by one
//!   `UPDATE … FROM UNNEST`; on SQLite each game's statements in turn, then
//!   the statistics player by player. Get: by key. History: a range of
//!   `game_players_history` below the cursor (`(finished_ms, room_id,
//!   game_number) < (…)`, the first page below `(i64::MAX, '', 0)`, which
//!   no archived game reaches), the filters as `($n IS NULL OR col = $n)`,
//!   joined to `games`, `LIMIT` one more than the page to know whether
//!   another follows. Pending ratings: the partial index, oldest first,
//!   without games a player of which has deleted his data. Statistics: by
//!   key. Analysis: by key; saved by one `INSERT INTO analyses … SELECT …
//!   FROM games WHERE` the key `ON CONFLICT DO UPDATE` (the latest save
//!   wins; no row selected: not archived, nothing written; a foreign-key
//!   failure, the game deleted meanwhile, reads the same).
//! - **Ratings** (`ratings.rs`). Apply: one write transaction — `UPDATE
//!   games SET ratings_applied_ms … WHERE` the key, `rated` and not yet
//!   applied, `RETURNING` its kind, players and end (no row: unknown,
//!   casual or already applied, told apart by a read, nothing written);
//!   then per player, in id order: his rating read, compared with
//!   `previous_games`, written by an `UPDATE … WHERE games = previous` or
//!   an `INSERT … ON CONFLICT DO NOTHING` for a first rating (a row not
//!   written is a conflict: rolled back), and a history row; then the
//!   buckets' counts moved, in bucket order; then the period counts
//!   (*Period boards*). Locks are taken in one order (the game, the
//!   ratings by player, the buckets by number, the kind's `period_weeks`
//!   row, its `period_buckets` by (period, bucket)), so two applies cannot
//!   deadlock on PostgreSQL; on SQLite the write lock is taken first.
//!   A batch (`apply_rated_games`, issue 47), one write transaction: on
//!   SQLite each game's statements in turn; on PostgreSQL the games marked by
//!   one `UPDATE … FROM UNNEST … RETURNING` (any game not marked — unknown,
//!   casual, applied already — and the batch is applied game by game
//!   instead, which tells each apart), each (player, kind) of the batch read
//!   `FOR UPDATE` in that order and checked against the games count his
//!   first update in the batch was computed from (his later ones must follow
//!   on: each `previous_games` one more), written once with his last update
//!   and his games count plus his games in the batch, a history row per game
//!   and player with the rating before it, the buckets moved by their sums
//!   in (kind, bucket) order, and each kind's period counts moved once (the
//!   batch's latest week advancing the tracked one as its last game would):
//!   what the games applied one by one leave (the contract tests compare).
//!   Any refusal rolls the whole batch back.
//! - **Tournament results** (`tournaments.rs`). Store: one write
//!   transaction, an `INSERT … ON CONFLICT (tournament_id, player_id) DO
//!   NOTHING` per row (the first write wins; the rows newly inserted are
//!   counted). A player's: his count and wins (`place = 1`) over his range
//!   of `tournament_results_player`, and the latest `LIMIT n` of it,
//!   newest first. A deletion of the player deletes his rows.
//! - **Leaderboards** (`leaderboard.rs`). Top: `ratings_board` read in
//!   order, `LIMIT n`, joined to `players` for names. Standing: one
//!   statement — the player's rating and bucket; 1 + the sum of
//!   `rating_buckets` above his bucket + the ratings of his bucket above
//!   his (a range of `ratings_board` within one whole point) + the equal
//!   ratings with a smaller id. It reads at most one bucket's rows and
//!   the bucket table (a few thousand rows), whatever the rank; at
//!   1,000,000 players both queries take well under 10 ms (the figures
//!   and method: `examples/leaderboard.rs`). A period's top and standing:
//!   below.
//!
//! # Period boards ("this week")
//!
//! A period's board is the kind's players with an applied rated game
//! ending at or after the period's start (`since_ms`; this week's:
//! [`week_start_ms`](crate::week_start_ms)), ranked by current rating as
//! the all-time board. That set is read from `ratings`, not from
//! `rating_history`: `apply_rated_game` writes a rating's
//! `last_rated_ms` as the latest end of its games (`max(old, end)`) in
//! the transaction that writes the game's history row, and a deletion
//! deletes both, so "last rated at or after `since_ms`" is "has a
//! history row at or after `since_ms`" (the contract tests check the
//! two agree). `bulk_load` (benchmarks, tests) writes ratings without
//! history; its `last_rated_ms` is taken as given.
//!
//! **Counts.** As `rating_buckets` counts the all-time board by whole
//! rating point, `period_buckets` counts a period's: per kind, for two
//! periods, the week `period_weeks.week_ms` (the newest week a rated
//! game of the kind ended in, [`week_start_ms`](crate::week_start_ms) of
//! its end) and the week before it, the ratings last rated at or after
//! the period's start by bucket. They are kept in the transactions that
//! move a rating (migration 3):
//!
//! - `apply_rated_game`, after `rating_buckets`: the kind's
//!   `period_weeks` row taken (`UPDATE … SET week_ms = week_ms RETURNING`,
//!   which locks it on PostgreSQL until the commit, so every write of the
//!   period counts queues on it; created by `INSERT … ON CONFLICT DO
//!   NOTHING` at the kind's first rated game, read again if another
//!   transaction made it). If the game ended in a later week than the
//!   tracked one (the week's first game: the week rolls over), that week
//!   is tracked and both weeks' counts are recounted from `ratings`
//!   (`INSERT … SELECT … GROUP BY bucket` of the range `last_rated_ms >=
//!   start` of `ratings_period`, which this transaction has written):
//!   at a week's first game the new week holds its two players and the
//!   one before it the last week's players, read once a week. Else each
//!   of his two ratings moves the counts of each tracked period: out of
//!   his old bucket if his old `last_rated_ms` was in it, into his new
//!   bucket if his new one is (`max(old, end)`): a rating moving within
//!   the week, a player of an earlier week rated again this week, a game
//!   of last week applied late (last week's board moves, and this week's
//!   if the player also played this week) — one `INSERT … ON CONFLICT DO
//!   UPDATE` per (period, bucket) that changed, in that order.
//! - `delete_player`: per kind of his deleted ratings, the row taken as
//!   above and his rating taken out of the tracked periods it counted in.
//! - `bulk_load` and [`Store::recount_buckets`] (a repair) recount them:
//!   the week of the kind's latest `last_rated_ms` tracked, both weeks
//!   counted from `ratings`.
//!
//! On PostgreSQL a recount's statement sees the committed ratings; a
//! transaction that changed a rating but has not committed holds no
//! `period_weeks` lock yet (it takes it after its ratings), so it queues
//! behind the recount and then moves the recounted counts by its change:
//! each rating is counted once. A node of a version before migration 3
//! (a rolling update) moves ratings without these counts; the next
//! week's first game recounts both weeks, and `recount_buckets` repairs
//! at once.
//!
//! **Queries.** A `since_ms` that is a tracked period's start reads the
//! counts; any other (a period neither this week nor last, the counts
//! not made yet: a week with no game applied) reads the range of
//! `ratings_period` as before. Each query checks that its period is
//! tracked in the statement that reads the counts (one snapshot).
//!
//! - Standing (`STANDING_SINCE_BUCKETS`): his row by key (none, or last
//!   rated before the period: not on the board); 1 + the period's
//!   buckets above his + the period's players of his bucket above him (a
//!   range of `ratings_board_period` within one whole point, index-only,
//!   the period's test written `+last_rated_ms` so that no index serves
//!   it and `ratings_period` is not taken) + those with his rating and a
//!   smaller id; `of` the sum of the period's buckets. A few thousand
//!   bucket rows and one point's entries (up to ~1,200 at a million),
//!   whatever the period's size and his rank. Untracked: `STANDING_SINCE`,
//!   his rating by key then one pass over the period's range of
//!   `ratings_period` counting all and those above him.
//! - Top (`TOP_SINCE_PLAN`, then a page): from the counts, the highest
//!   bucket `bound` at or above which the period has a page of players,
//!   and how many of the whole board are at or above it (`walk`, from
//!   `rating_buckets`). When `walk` is at most the period's size, the
//!   page is `TOP_SINCE_WALK`: `ratings_board_period` walked in the
//!   board's order from the top down to `bound`, keeping the period's
//!   players, `LIMIT n` (at 50,000 of 1,000,000, about 2,000 entries for
//!   a page of 100); else, or untracked, or a period smaller than a page,
//!   `TOP_SINCE`: the period's range of `ratings_period`, index-only,
//!   into a top-n sort, its order written `-rating` so that no index
//!   provides it (both read at most the period's size). A walk that
//!   finds fewer than `n` rows (the counts moved between the two
//!   statements) is answered by `TOP_SINCE` instead. The page is joined
//!   to `ratings` and `players` by key.
//!
//! The answers are the range's, exactly (the contract tests check both
//! paths, the counts against a recount after each kind of change and
//! after applies and deletions run at once, and `examples/leaderboard.rs`
//! checks against a sort).
//!
//! **Measured** (`cargo run --release -p tabula-store --example
//! leaderboard -- --players 1000000 --active 50000 --week-lookups 300
//! --week-pages 300 --explain 1`: 1,000,000 rated players of whom 50,000
//! played this week; a shared 2-vCPU VM, load average 1.6 to 7.7 during
//! the run; p50 / p99, ms): a rank, SQLite 0.59 / 1.19, PostgreSQL 1.53 /
//! 4.45; a top-100 page with names, SQLite 2.95 / 5.23, PostgreSQL 4.28 /
//! 5.84 — under the 10 ms target, every call (the table and plans:
//! `examples/leaderboard.rs`). A second run at a load average of 5.6 to
//! 6.6: a rank 0.48 / 3.83 and 1.95 / 4.77 ms, a page 4.31 / 8.35 and
//! 5.13 / 11.9 ms (PostgreSQL's page p99 just over the target there: its
//! walk, on a table freshly loaded and not vacuumed, reads each entry's
//! heap row for `last_rated_ms`, about 2,000 buffers). The range and sort alone, the previous
//! version, took 20–32 / 43 ms (SQLite) and 55–65 / 97–168 ms
//! (PostgreSQL) for a rank, 30 / 50 and 32 / 53 ms for a page; reading
//! `rating_history_week` instead, the first version, 0.9 to 1.5 s.
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;
use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::{Result, StoreError};

mod bulk;
mod games;
#[doc(hidden)]
pub mod leaderboard;
mod periods;
mod profiles;
mod ratings;
mod rows;
mod tournaments;

pub use bulk::{SeedHistory, SeedRating};
pub(crate) use rows::{BeginWrite, Cols, name_of, now_ms, parse_name, to_i64, to_u32, to_u64};

/// How the store connects (deserialised from the node's config).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct StoreConfig {
    /// `sqlite://path?mode=rwc` (the file is created when missing; its
    /// directory must exist), `sqlite::memory:` (tests), or
    /// `postgres://user[:password]@host[:port]/database` (a unix socket:
    /// `?host=/path/to/dir`). Name the user: without one sqlx 0.9 takes
    /// `PGUSER`, else connects as `anonymous`.
    pub url: String,
    /// The pool's size (an in-memory SQLite database has one connection).
    pub max_connections: u32,
    /// How long a call waits for a connection before failing with
    /// [`StoreError::Unavailable`], in ms.
    pub acquire_timeout_ms: u64,
    /// How long a SQLite statement waits for another connection's write
    /// lock, in ms.
    pub busy_timeout_ms: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            url: "sqlite://tabula.db?mode=rwc".into(),
            max_connections: 8,
            acquire_timeout_ms: 3000,
            busy_timeout_ms: 5000,
        }
    }
}

/// Which database a [`Store`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// An embedded SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// The SQL store. Cloning it shares the pool.
#[derive(Debug, Clone)]
pub struct Store {
    pools: Pools,
}

#[derive(Debug, Clone)]
pub(crate) enum Pools {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// `games.record`'s compression on PostgreSQL, as one letter (`c`).
const RECORD_COMPRESSION: &str = "SELECT attcompression::text AS c FROM pg_attribute \
     WHERE attrelid = 'games'::regclass AND attname = 'record'";

/// On PostgreSQL, stores `games.record` with lz4 rather than the default
/// pglz (issue 47: compressing 15 KB records with pglz was most of the
/// server's time in a batch of archived games): set once, when the
/// server has lz4 (PostgreSQL 14+ built with it) and the column does not
/// use it yet. Not a migration, because migrations are one text for both
/// databases and SQLite has no such setting; an old row keeps its
/// compression until rewritten. A failure (no lz4, not the table's
/// owner) leaves pglz and is logged: nothing else depends on it.
async fn lz4_records(pool: &PgPool) {
    let has_lz4 = sqlx::query(
        "SELECT 1 AS one FROM pg_settings WHERE name = 'default_toast_compression' \
         AND 'lz4' = ANY(enumvals)",
    )
    .fetch_optional(pool)
    .await;
    let current = sqlx::query(RECORD_COMPRESSION).fetch_one(pool).await;
    match (has_lz4, current) {
        (Ok(Some(_)), Ok(row)) if row.text("c").is_ok_and(|c| c != "l") => {
            if let Err(e) = sqlx::query("ALTER TABLE games ALTER COLUMN record SET COMPRESSION lz4")
                .execute(pool)
                .await
            {
                tracing::warn!(error = %e, "games.record stays compressed with pglz");
            }
        }
        (Ok(None), _) => tracing::info!("the server has no lz4: games.record stays with pglz"),
        _ => {}
    }
}

/// Runs `$body` with `$pool` bound to the store's pool, whichever backend
/// it is: the body is written once and compiled for each.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.pools {
            $crate::sql::Pools::Sqlite($pool) => $body,
            $crate::sql::Pools::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

impl Store {
    /// Connects to `url` with the default settings and runs the
    /// migrations. See [`StoreConfig::url`].
    pub async fn connect(url: &str) -> Result<Store> {
        Store::connect_with(&StoreConfig {
            url: url.to_owned(),
            ..StoreConfig::default()
        })
        .await
    }

    /// Connects as `config` says and runs the migrations.
    pub async fn connect_with(config: &StoreConfig) -> Result<Store> {
        let url = config.url.as_str();
        let acquire = Duration::from_millis(config.acquire_timeout_ms.max(1));
        let max = config.max_connections.max(1);
        let pools = if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .map_err(|e| StoreError::Config(e.to_string()))?
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_millis(config.busy_timeout_ms))
                .foreign_keys(true)
                .pragma("secure_delete", "on");
            let memory = url.contains(":memory:") || url.contains("mode=memory");
            let pool = SqlitePoolOptions::new().acquire_timeout(acquire);
            // An in-memory database lives as long as a connection to it:
            // one, kept forever.
            let pool = if memory {
                pool.max_connections(1)
                    .min_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None)
            } else {
                pool.max_connections(max)
            };
            Pools::Sqlite(pool.connect_with(options).await?)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options =
                PgConnectOptions::from_str(url).map_err(|e| StoreError::Config(e.to_string()))?;
            let pool = PgPoolOptions::new()
                .max_connections(max)
                .acquire_timeout(acquire)
                .connect_with(options)
                .await?;
            Pools::Postgres(pool)
        } else {
            return Err(StoreError::Config(
                "the store URL must start with sqlite: or postgres:".into(),
            ));
        };
        let store = Store { pools };
        store.migrate().await?;
        if let Pools::Postgres(pool) = &store.pools {
            lz4_records(pool).await;
        }
        Ok(store)
    }

    /// Runs the migrations not applied yet (none: nothing happens).
    /// [`Store::connect`] already did.
    pub async fn migrate(&self) -> Result<()> {
        let migrator = migrator();
        on_pool!(self, pool => migrator.run(pool).await)
            .map_err(|e| StoreError::Migrate(e.to_string()))
    }

    /// The migrations this binary knows and whether each is applied, by
    /// version.
    pub async fn migrations(&self) -> Result<Vec<(i64, String, bool)>> {
        let applied: Vec<i64> = on_pool!(self, pool => {
            let rows = sqlx::query("SELECT version FROM _sqlx_migrations WHERE success")
                .fetch_all(pool)
                .await?;
            rows.iter().map(|r| r.i64("version")).collect::<Result<Vec<_>>>()?
        });
        Ok(migrator()
            .iter()
            .map(|m| {
                (
                    m.version,
                    m.description.to_string(),
                    applied.contains(&m.version),
                )
            })
            .collect())
    }

    /// How `games.record` is compressed on PostgreSQL (`l`: lz4, `p`:
    /// pglz, empty: the server's default); `None` on SQLite.
    pub async fn record_compression(&self) -> Result<Option<String>> {
        match &self.pools {
            Pools::Sqlite(_) => Ok(None),
            Pools::Postgres(pool) => {
                let row = sqlx::query(RECORD_COMPRESSION).fetch_one(pool).await?;
                Ok(Some(row.text("c")?))
            }
        }
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        match self.pools {
            Pools::Sqlite(_) => Backend::Sqlite,
            Pools::Postgres(_) => Backend::Postgres,
        }
    }

    /// Closes the pool: calls after it fail.
    pub async fn close(&self) {
        on_pool!(self, pool => pool.close().await)
    }
}

/// The migrations, embedded.
fn migrator() -> Migrator {
    let migrations = vec![
        Migration::new(
            1,
            "init".into(),
            MigrationType::Simple,
            include_str!("../../migrations/0001_init.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            2,
            "stats_and_analyses".into(),
            MigrationType::Simple,
            include_str!("../../migrations/0002_stats_and_analyses.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            3,
            "period_buckets".into(),
            MigrationType::Simple,
            include_str!("../../migrations/0003_period_buckets.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            4,
            "tournament_results".into(),
            MigrationType::Simple,
            include_str!("../../migrations/0004_tournament_results.sql").into_sql_str(),
            false,
        ),
    ];
    let mut migrator = Migrator::with_migrations(migrations);
    migrator.set_ignore_missing(true);
    migrator
}
