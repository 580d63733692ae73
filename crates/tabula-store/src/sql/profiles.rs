//! [`Profiles`] on SQL: the `players` table, and the deletion of a player
//! across every table (the contracts: the [module docs](super)).

use std::collections::BTreeMap;

use sqlx::Row;

use super::periods::{Change, move_periods};
use super::{BeginWrite, Cols, Store, now_ms, on_pool, to_u64};
use crate::profiles::{check_id, check_text};
use crate::{Deleted, Profile, ProfileUpdate, Profiles, Result, StoreFuture};

const UPSERT: &str = "\
INSERT INTO players (id, display_name, username, photo_url, language, created_ms, updated_ms)
VALUES ($1, $2, $3, $4, $5, $6, $6)
ON CONFLICT (id) DO UPDATE SET
    display_name = excluded.display_name,
    username = excluded.username,
    photo_url = excluded.photo_url,
    language = excluded.language,
    updated_ms = excluded.updated_ms
RETURNING id, display_name, chosen_name, username, photo_url, language, created_ms, updated_ms";

const CHOOSE_NAME: &str = "UPDATE players SET chosen_name = $2, updated_ms = $3 WHERE id = $1";

const GET: &str = "\
SELECT id, display_name, chosen_name, username, photo_url, language, created_ms, updated_ms
FROM players WHERE id = $1";

// The deletion (one write transaction, in the order `delete_player` runs them).
const DELETE_RATINGS: &str =
    "DELETE FROM ratings WHERE player_id = $1 RETURNING game_kind, bucket, last_rated_ms";
const DECREMENT_BUCKET: &str = "\
UPDATE rating_buckets SET players = players - $3 WHERE game_kind = $1 AND bucket = $2";
const DELETE_RATING_HISTORY: &str = "DELETE FROM rating_history WHERE player_id = $1";
const COUNT_HIS_GAMES: &str = "SELECT COUNT(*) AS n FROM game_players WHERE player_id = $1";
const CLEAR_SEAT_A: &str = "\
UPDATE games SET a_player = NULL WHERE a_player = $1 AND (room_id, game_number) IN
    (SELECT room_id, game_number FROM game_players WHERE player_id = $1)";
const CLEAR_SEAT_B: &str = "\
UPDATE games SET b_player = NULL WHERE b_player = $1 AND (room_id, game_number) IN
    (SELECT room_id, game_number FROM game_players WHERE player_id = $1)";
const DELETE_EMPTY_GAMES: &str = "\
DELETE FROM games WHERE a_player IS NULL AND b_player IS NULL AND (room_id, game_number) IN
    (SELECT room_id, game_number FROM game_players WHERE player_id = $1)";
const DELETE_HIS_ROWS: &str = "DELETE FROM game_players WHERE player_id = $1";
const DELETE_TOURNAMENTS: &str = "DELETE FROM tournament_results WHERE player_id = $1";
const DELETE_STATS: &str = "DELETE FROM player_stats WHERE player_id = $1";
const DELETE_PROFILE: &str = "DELETE FROM players WHERE id = $1";

pub(super) fn profile_of<R: Cols>(row: &R) -> Result<Profile> {
    Ok(Profile {
        player: row.text("id")?,
        display_name: row.text("display_name")?,
        chosen_name: row.opt_text("chosen_name")?,
        username: row.opt_text("username")?,
        photo_url: row.opt_text("photo_url")?,
        language: row.opt_text("language")?,
        created_ms: to_u64("created_ms", row.i64("created_ms")?)?,
        updated_ms: to_u64("updated_ms", row.i64("updated_ms")?)?,
    })
}

impl Profiles for Store {
    fn upsert_profile<'a>(&'a self, update: &'a ProfileUpdate) -> StoreFuture<'a, Profile> {
        Box::pin(async move {
            update.check()?;
            on_pool!(self, pool => {
                let row = sqlx::query(UPSERT)
                    .bind(update.player.as_str())
                    .bind(update.display_name.as_str())
                    .bind(update.username.as_deref())
                    .bind(update.photo_url.as_deref())
                    .bind(update.language.as_deref())
                    .bind(now_ms())
                    .fetch_one(pool)
                    .await?;
                profile_of(&row)
            })
        })
    }

    fn set_chosen_name<'a>(
        &'a self,
        player: &'a str,
        name: Option<&'a str>,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            check_id(player)?;
            if let Some(name) = name {
                check_text("the chosen name", name)?;
            }
            on_pool!(self, pool => {
                let done = sqlx::query(CHOOSE_NAME)
                    .bind(player)
                    .bind(name)
                    .bind(now_ms())
                    .execute(pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            })
        })
    }

    fn profile<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Option<Profile>> {
        Box::pin(async move {
            on_pool!(self, pool => {
                let row = sqlx::query(GET).bind(player).fetch_optional(pool).await?;
                row.as_ref().map(profile_of).transpose()
            })
        })
    }

    fn delete_player<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Deleted> {
        Box::pin(async move {
            check_id(player)?;
            on_pool!(self, pool => {
                let mut tx = pool.begin_write().await?;
                // In the lock order every write follows: games, then
                // ratings, then buckets by number.
                let games: i64 = sqlx::query(COUNT_HIS_GAMES)
                    .bind(player)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("n")?;
                for clear in [CLEAR_SEAT_A, CLEAR_SEAT_B] {
                    sqlx::query(clear).bind(player).execute(&mut *tx).await?;
                }
                let emptied = sqlx::query(DELETE_EMPTY_GAMES).bind(player).execute(&mut *tx).await?;
                sqlx::query(DELETE_HIS_ROWS).bind(player).execute(&mut *tx).await?;
                let rows = sqlx::query(DELETE_RATINGS).bind(player).fetch_all(&mut *tx).await?;
                let mut buckets: BTreeMap<(String, i64), i64> = BTreeMap::new();
                for row in &rows {
                    *buckets.entry((row.text("game_kind")?, row.i64("bucket")?)).or_default() += 1;
                }
                for ((kind, bucket), n) in &buckets {
                    sqlx::query(DECREMENT_BUCKET)
                        .bind(kind.as_str())
                        .bind(*bucket)
                        .bind(*n)
                        .execute(&mut *tx)
                        .await?;
                }
                // Then each kind's period counts, in kind order.
                let mut periods: BTreeMap<String, Vec<Change>> = BTreeMap::new();
                for row in &rows {
                    periods.entry(row.text("game_kind")?).or_default().push(Change {
                        old: Some((row.i64("bucket")?, row.i64("last_rated_ms")?)),
                        new: None,
                    });
                }
                for (kind, changes) in &periods {
                    move_periods!(tx, kind.as_str(), None, changes);
                }
                sqlx::query(DELETE_RATING_HISTORY).bind(player).execute(&mut *tx).await?;
                let tournaments =
                    sqlx::query(DELETE_TOURNAMENTS).bind(player).execute(&mut *tx).await?;
                let stats = sqlx::query(DELETE_STATS).bind(player).execute(&mut *tx).await?;
                let profile = sqlx::query(DELETE_PROFILE).bind(player).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(Deleted {
                    profile: profile.rows_affected() > 0,
                    games: to_u64("games", games)?,
                    games_deleted: emptied.rows_affected(),
                    ratings: rows.len() as u64,
                    stats: stats.rows_affected() > 0,
                    tournaments: tournaments.rows_affected(),
                })
            })
        })
    }
}
