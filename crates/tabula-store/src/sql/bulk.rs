//! Bulk loading for benchmarks and tests (`examples/leaderboard.rs` loads
//! a million rated players and a week's rating history with it), and the
//! buckets' recount, which also repairs them. Not for the node: the node writes ratings only through
//! [`Ratings::apply_rated_game`](crate::Ratings::apply_rated_game).
//!
//! The one place where the backends' SQL differs: PostgreSQL is fed with
//! `COPY … FROM STDIN`, SQLite with `INSERT … SELECT … FROM json_each($1)`
//! (a JSON array of rows per statement), in one transaction each.

use std::collections::BTreeSet;

use serde_json::json;
use tabula_room::GameKind;

use sqlx::Row;

use super::periods::{
    CLEAR_PERIODS, COUNT_PERIOD, DROP_WEEK, LATEST, PUT_WEEK, periods_of, week_of,
};
use super::{BeginWrite, Pools, Store, name_of, now_ms, on_pool, to_i64};
use crate::ratings::bucket;
use crate::{ProfileUpdate, Rating, RatingUpdate, Result};

/// One rating to load.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedRating {
    /// The player.
    pub player: String,
    /// The game kind.
    pub kind: GameKind,
    /// The rating (its figures are checked as an update's are).
    pub rating: Rating,
}

/// One rating history row to load (as `apply_rated_game` writes one per
/// player of a rated game; no game row goes with it).
#[derive(Debug, Clone, PartialEq)]
pub struct SeedHistory {
    /// The player.
    pub player: String,
    /// The game kind.
    pub kind: GameKind,
    /// The game's end.
    pub rated_ms: u64,
    /// The game's room.
    pub room: String,
    /// Its number.
    pub game: u32,
    /// The rating after it.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
}

const HISTORY_SQLITE: &str = "\
INSERT INTO rating_history (player_id, game_kind, rated_ms, room_id, game_number, rating_before,
    rating, deviation, volatility)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, NULL, value ->> 5,
    value ->> 6, value ->> 7
FROM json_each($1)";

const HISTORY_COPY: &str = "\
COPY rating_history (player_id, game_kind, rated_ms, room_id, game_number, rating, deviation, \
volatility) FROM STDIN";

const PROFILE_SQLITE: &str = "\
INSERT INTO players (id, display_name, username, photo_url, language, created_ms, updated_ms)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, $2, $2 FROM json_each($1)";

const RATING_SQLITE: &str = "\
INSERT INTO ratings (player_id, game_kind, rating, deviation, volatility, games, last_rated_ms, bucket)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
    value ->> 7
FROM json_each($1)";

const PROFILE_COPY: &str = "\
COPY players (id, display_name, username, photo_url, language, created_ms, updated_ms) FROM STDIN";

const RATING_COPY: &str = "\
COPY ratings (player_id, game_kind, rating, deviation, volatility, games, last_rated_ms, bucket) \
FROM STDIN";

/// Rows per statement.
const CHUNK: usize = 20_000;

const CLEAR_BUCKETS: &str = "DELETE FROM rating_buckets WHERE game_kind = $1";

const COUNT_BUCKETS: &str = "\
INSERT INTO rating_buckets (game_kind, bucket, players)
SELECT game_kind, bucket, COUNT(*) FROM ratings WHERE game_kind = $1 GROUP BY game_kind, bucket";

/// A field in `COPY`'s text format (`\N` is NULL).
fn copy_field(out: &mut String, field: Option<&str>) {
    let Some(field) = field else {
        out.push_str("\\N");
        return;
    };
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn copy_row(out: &mut String, fields: &[Option<&str>]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        copy_field(out, *f);
    }
    out.push('\n');
}

impl Store {
    /// Writes `profiles` and `ratings` (none may exist already) and
    /// recounts the buckets of the kinds loaded; for benchmarks and tests.
    pub async fn bulk_load(
        &self,
        profiles: &[ProfileUpdate],
        ratings: &[SeedRating],
    ) -> Result<()> {
        for p in profiles {
            p.check()?;
        }
        for r in ratings {
            RatingUpdate {
                player: r.player.clone(),
                previous_games: 0,
                rating: r.rating.rating,
                deviation: r.rating.deviation,
                volatility: r.rating.volatility,
            }
            .check()?;
            to_i64("last_rated_ms", r.rating.last_rated_ms)?;
        }
        let now = now_ms();
        match &self.pools {
            Pools::Sqlite(pool) => {
                let mut tx = pool.begin_write().await?;
                for chunk in profiles.chunks(CHUNK) {
                    let rows: Vec<_> = chunk
                        .iter()
                        .map(|p| {
                            json!([
                                p.player,
                                p.display_name,
                                p.username,
                                p.photo_url,
                                p.language
                            ])
                        })
                        .collect();
                    sqlx::query(PROFILE_SQLITE)
                        .bind(serde_json::Value::Array(rows).to_string())
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                }
                for chunk in ratings.chunks(CHUNK) {
                    let mut rows = Vec::with_capacity(chunk.len());
                    for r in chunk {
                        rows.push(json!([
                            r.player,
                            name_of(&r.kind)?,
                            r.rating.rating,
                            r.rating.deviation,
                            r.rating.volatility,
                            r.rating.games,
                            r.rating.last_rated_ms,
                            bucket(r.rating.rating)
                        ]));
                    }
                    sqlx::query(RATING_SQLITE)
                        .bind(serde_json::Value::Array(rows).to_string())
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
            }
            Pools::Postgres(pool) => {
                let mut tx = pool.begin_write().await?;
                let now = now.to_string();
                for chunk in profiles.chunks(CHUNK) {
                    let mut text = String::new();
                    for p in chunk {
                        copy_row(
                            &mut text,
                            &[
                                Some(&p.player),
                                Some(&p.display_name),
                                p.username.as_deref(),
                                p.photo_url.as_deref(),
                                p.language.as_deref(),
                                Some(&now),
                                Some(&now),
                            ],
                        );
                    }
                    let mut copy = tx.copy_in_raw(PROFILE_COPY).await?;
                    copy.send(text.as_bytes()).await?;
                    copy.finish().await?;
                }
                for chunk in ratings.chunks(CHUNK) {
                    let mut text = String::new();
                    for r in chunk {
                        let kind = name_of(&r.kind)?;
                        copy_row(
                            &mut text,
                            &[
                                Some(&r.player),
                                Some(&kind),
                                Some(&format!("{:?}", r.rating.rating)),
                                Some(&format!("{:?}", r.rating.deviation)),
                                Some(&format!("{:?}", r.rating.volatility)),
                                Some(&r.rating.games.to_string()),
                                Some(&r.rating.last_rated_ms.to_string()),
                                Some(&bucket(r.rating.rating).to_string()),
                            ],
                        );
                    }
                    let mut copy = tx.copy_in_raw(RATING_COPY).await?;
                    copy.send(text.as_bytes()).await?;
                    copy.finish().await?;
                }
                tx.commit().await?;
            }
        }
        let kinds: BTreeSet<GameKind> = ratings.iter().map(|r| r.kind).collect();
        for kind in kinds {
            self.recount_buckets(kind).await?;
        }
        Ok(())
    }

    /// Writes `rows` to the rating history (none may exist already); for
    /// benchmarks and tests of the period boards. The ratings they lead to
    /// are loaded apart ([`Store::bulk_load`]).
    pub async fn bulk_load_history(&self, rows: &[SeedHistory]) -> Result<()> {
        for h in rows {
            to_i64("rated_ms", h.rated_ms)?;
            RatingUpdate {
                player: h.player.clone(),
                previous_games: 0,
                rating: h.rating,
                deviation: h.deviation,
                volatility: h.volatility,
            }
            .check()?;
        }
        match &self.pools {
            Pools::Sqlite(pool) => {
                let mut tx = pool.begin_write().await?;
                for chunk in rows.chunks(CHUNK) {
                    let mut json = Vec::with_capacity(chunk.len());
                    for h in chunk {
                        json.push(json!([
                            h.player,
                            name_of(&h.kind)?,
                            h.rated_ms,
                            h.room,
                            h.game,
                            h.rating,
                            h.deviation,
                            h.volatility
                        ]));
                    }
                    sqlx::query(HISTORY_SQLITE)
                        .bind(serde_json::Value::Array(json).to_string())
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
            }
            Pools::Postgres(pool) => {
                let mut tx = pool.begin_write().await?;
                for chunk in rows.chunks(CHUNK) {
                    let mut text = String::new();
                    for h in chunk {
                        copy_row(
                            &mut text,
                            &[
                                Some(&h.player),
                                Some(&name_of(&h.kind)?),
                                Some(&h.rated_ms.to_string()),
                                Some(&h.room),
                                Some(&h.game.to_string()),
                                Some(&format!("{:?}", h.rating)),
                                Some(&format!("{:?}", h.deviation)),
                                Some(&format!("{:?}", h.volatility)),
                            ],
                        );
                    }
                    let mut copy = tx.copy_in_raw(HISTORY_COPY).await?;
                    copy.send(text.as_bytes()).await?;
                    copy.finish().await?;
                }
                tx.commit().await?;
            }
        }
        Ok(())
    }

    /// Recounts `kind`'s leaderboard buckets from its ratings, in one
    /// write transaction (a repair; [`Ratings::apply_rated_game`] and
    /// [`Profiles::delete_player`] keep them counted): the all-time
    /// board's, and the period boards' (`period_buckets`) of the week of
    /// the kind's latest `last_rated_ms` and the week before, that week
    /// tracked from then on.
    ///
    /// [`Ratings::apply_rated_game`]: crate::Ratings::apply_rated_game
    /// [`Profiles::delete_player`]: crate::Profiles::delete_player
    pub async fn recount_buckets(&self, kind: GameKind) -> Result<()> {
        let kind = name_of(&kind)?;
        on_pool!(self, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query(CLEAR_BUCKETS).bind(kind.as_str()).execute(&mut *tx).await?;
            sqlx::query(COUNT_BUCKETS).bind(kind.as_str()).execute(&mut *tx).await?;
            let latest: Option<i64> = sqlx::query(LATEST)
                .bind(kind.as_str())
                .fetch_one(&mut *tx)
                .await?
                .try_get("latest")?;
            // The kind's period_weeks row first: the lock order of the
            // writes that move the period counts.
            match latest {
                Some(latest) => {
                    let week = week_of(latest);
                    sqlx::query(PUT_WEEK)
                        .bind(kind.as_str())
                        .bind(week)
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(CLEAR_PERIODS).bind(kind.as_str()).execute(&mut *tx).await?;
                    for period in periods_of(week) {
                        sqlx::query(COUNT_PERIOD)
                            .bind(kind.as_str())
                            .bind(period)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                None => {
                    sqlx::query(DROP_WEEK).bind(kind.as_str()).execute(&mut *tx).await?;
                    sqlx::query(CLEAR_PERIODS).bind(kind.as_str()).execute(&mut *tx).await?;
                }
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Refreshes the planner's statistics (`ANALYZE`), e.g. after a bulk
    /// load.
    pub async fn analyze(&self) -> Result<()> {
        on_pool!(self, pool => sqlx::query("ANALYZE").execute(pool).await.map(drop))?;
        Ok(())
    }
}
