//! [`Ratings`] on SQL: `ratings`, `rating_buckets`, `rating_history` and
//! the game's `ratings_applied_ms` (the contracts: the [module
//! docs](super)).

use std::collections::BTreeMap;

use tabula_room::GameKind;

use super::periods::{Change, move_periods, week_of};
use super::{BeginWrite, Cols, Store, name_of, now_ms, on_pool, parse_name, to_u32, to_u64};
use crate::{Applied, GameKey, Rating, RatingUpdate, Ratings, Result, StoreError, StoreFuture};

const GET: &str = "\
SELECT rating, deviation, volatility, games, last_rated_ms
FROM ratings WHERE player_id = $1 AND game_kind = $2";

const ALL: &str = "\
SELECT game_kind, rating, deviation, volatility, games, last_rated_ms
FROM ratings WHERE player_id = $1 ORDER BY game_kind";

const MARK: &str = "\
UPDATE games SET ratings_applied_ms = $3
WHERE room_id = $1 AND game_number = $2 AND rated AND ratings_applied_ms IS NULL
RETURNING game_kind, a_player, b_player, finished_ms";

const SETTLE: &str = "\
UPDATE games SET ratings_applied_ms = $3
WHERE room_id = $1 AND game_number = $2 AND rated AND ratings_applied_ms IS NULL";

const STATE: &str = "\
SELECT rated, ratings_applied_ms FROM games WHERE room_id = $1 AND game_number = $2";

const READ: &str = "\
SELECT rating, bucket, games, last_rated_ms FROM ratings WHERE player_id = $1 AND game_kind = $2";

const UPDATE: &str = "\
UPDATE ratings SET rating = $3, deviation = $4, volatility = $5, games = games + 1,
    last_rated_ms = CASE WHEN last_rated_ms > $6 THEN last_rated_ms ELSE $6 END,
    bucket = $7
WHERE player_id = $1 AND game_kind = $2 AND games = $8";

const INSERT: &str = "\
INSERT INTO ratings (player_id, game_kind, rating, deviation, volatility, games, last_rated_ms, bucket)
VALUES ($1, $2, $3, $4, $5, 1, $6, $7)
ON CONFLICT (player_id, game_kind) DO NOTHING";

const HISTORY: &str = "\
INSERT INTO rating_history (player_id, game_kind, rated_ms, room_id, game_number, rating_before,
    rating, deviation, volatility)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT DO NOTHING";

pub(super) const BUCKET_ADD: &str = "\
INSERT INTO rating_buckets (game_kind, bucket, players) VALUES ($1, $2, $3)
ON CONFLICT (game_kind, bucket) DO UPDATE SET players = rating_buckets.players + excluded.players";

/// A rating as `GET` / `ALL` select it.
pub(super) fn rating_of<R: Cols>(row: &R) -> Result<Rating> {
    Ok(Rating {
        rating: row.f64("rating")?,
        deviation: row.f64("deviation")?,
        volatility: row.f64("volatility")?,
        games: to_u32("games", row.i64("games")?)?,
        last_rated_ms: to_u64("last_rated_ms", row.i64("last_rated_ms")?)?,
    })
}

/// Why `MARK` changed nothing.
fn refusal(game: &GameKey, state: Option<(bool, Option<i64>)>) -> Result<Applied> {
    match state {
        None => Err(StoreError::UnknownGame(game.clone())),
        Some((false, _)) => Err(StoreError::NotRated(game.clone())),
        Some((true, _)) => Ok(Applied::AlreadyApplied),
    }
}

impl Ratings for Store {
    fn rating<'a>(&'a self, player: &'a str, kind: GameKind) -> StoreFuture<'a, Option<Rating>> {
        Box::pin(async move {
            let kind = name_of(&kind)?;
            on_pool!(self, pool => {
                let row = sqlx::query(GET)
                    .bind(player)
                    .bind(kind.as_str())
                    .fetch_optional(pool)
                    .await?;
                row.as_ref().map(rating_of).transpose()
            })
        })
    }

    fn ratings<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Vec<(GameKind, Rating)>> {
        Box::pin(async move {
            on_pool!(self, pool => {
                let rows = sqlx::query(ALL).bind(player).fetch_all(pool).await?;
                rows.iter()
                    .map(|r| Ok((parse_name("game_kind", &r.text("game_kind")?)?, rating_of(r)?)))
                    .collect()
            })
        })
    }

    fn settle_unrateable<'a>(&'a self, game: &'a GameKey) -> StoreFuture<'a, Applied> {
        Box::pin(async move {
            game.check()?;
            let number = i64::from(game.game);
            on_pool!(self, pool => {
                let settled = sqlx::query(SETTLE)
                    .bind(game.room.as_str())
                    .bind(number)
                    .bind(now_ms())
                    .execute(pool)
                    .await?
                    .rows_affected();
                if settled > 0 {
                    return Ok(Applied::Applied);
                }
                let state = sqlx::query(STATE)
                    .bind(game.room.as_str())
                    .bind(number)
                    .fetch_optional(pool)
                    .await?;
                let state = match state {
                    Some(r) => Some((r.boolean("rated")?, r.opt_i64("ratings_applied_ms")?)),
                    None => None,
                };
                refusal(game, state)
            })
        })
    }

    fn apply_rated_game<'a>(
        &'a self,
        game: &'a GameKey,
        updates: &'a [RatingUpdate; 2],
    ) -> StoreFuture<'a, Applied> {
        Box::pin(async move {
            game.check()?;
            for u in updates {
                u.check()?;
            }
            if updates[0].player == updates[1].player {
                return Err(StoreError::WrongPlayers { game: game.clone() });
            }
            // Ratings in player order: the lock order every write follows.
            let mut ordered: Vec<&RatingUpdate> = updates.iter().collect();
            ordered.sort_by(|a, b| a.player.cmp(&b.player));
            let number = i64::from(game.game);
            on_pool!(self, pool => {
                let mut tx = pool.begin_write().await?;
                let marked = sqlx::query(MARK)
                    .bind(game.room.as_str())
                    .bind(number)
                    .bind(now_ms())
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(marked) = marked else {
                    let state = sqlx::query(STATE)
                        .bind(game.room.as_str())
                        .bind(number)
                        .fetch_optional(&mut *tx)
                        .await?;
                    let state = match state {
                        Some(r) => Some((r.boolean("rated")?, r.opt_i64("ratings_applied_ms")?)),
                        None => None,
                    };
                    tx.rollback().await?;
                    return refusal(game, state);
                };
                let kind = marked.text("game_kind")?;
                let finished = marked.i64("finished_ms")?;
                let mut seated = [marked.opt_text("a_player")?, marked.opt_text("b_player")?];
                seated.sort();
                let named = [Some(ordered[0].player.clone()), Some(ordered[1].player.clone())];
                if seated != named {
                    tx.rollback().await?;
                    return Err(StoreError::WrongPlayers { game: game.clone() });
                }
                let mut buckets: BTreeMap<i64, i64> = BTreeMap::new();
                let mut changes: Vec<Change> = Vec::with_capacity(2);
                for u in &ordered {
                    let old = sqlx::query(READ)
                        .bind(u.player.as_str())
                        .bind(kind.as_str())
                        .fetch_optional(&mut *tx)
                        .await?;
                    let old = match old {
                        Some(r) => Some((
                            r.f64("rating")?,
                            r.i64("bucket")?,
                            r.i64("games")?,
                            r.i64("last_rated_ms")?,
                        )),
                        None => None,
                    };
                    let stored_games = old.map_or(0, |(_, _, g, _)| g);
                    let written = if stored_games != i64::from(u.previous_games) {
                        false
                    } else if old.is_some() {
                        sqlx::query(UPDATE)
                            .bind(u.player.as_str())
                            .bind(kind.as_str())
                            .bind(u.rating)
                            .bind(u.deviation)
                            .bind(u.volatility)
                            .bind(finished)
                            .bind(u.bucket())
                            .bind(stored_games)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected()
                            == 1
                    } else {
                        sqlx::query(INSERT)
                            .bind(u.player.as_str())
                            .bind(kind.as_str())
                            .bind(u.rating)
                            .bind(u.deviation)
                            .bind(u.volatility)
                            .bind(finished)
                            .bind(u.bucket())
                            .execute(&mut *tx)
                            .await?
                            .rows_affected()
                            == 1
                    };
                    if !written {
                        // Read again: what a concurrent apply left.
                        let now = sqlx::query(READ)
                            .bind(u.player.as_str())
                            .bind(kind.as_str())
                            .fetch_optional(&mut *tx)
                            .await?;
                        let games = match now {
                            Some(r) => to_u32("games", r.i64("games")?)?,
                            None => 0,
                        };
                        tx.rollback().await?;
                        return Err(StoreError::RatingConflict { player: u.player.clone(), games });
                    }
                    sqlx::query(HISTORY)
                        .bind(u.player.as_str())
                        .bind(kind.as_str())
                        .bind(finished)
                        .bind(game.room.as_str())
                        .bind(number)
                        .bind(old.map(|(r, _, _, _)| r))
                        .bind(u.rating)
                        .bind(u.deviation)
                        .bind(u.volatility)
                        .execute(&mut *tx)
                        .await?;
                    if let Some((_, bucket, _, _)) = old {
                        *buckets.entry(bucket).or_default() -= 1;
                    }
                    *buckets.entry(u.bucket()).or_default() += 1;
                    let old_last = old.map(|(_, _, _, last)| last);
                    changes.push(Change {
                        old: old.map(|(_, bucket, _, last)| (bucket, last)),
                        new: Some((u.bucket(), old_last.map_or(finished, |l| l.max(finished)))),
                    });
                }
                for (bucket, delta) in buckets.iter().filter(|(_, d)| **d != 0) {
                    sqlx::query(BUCKET_ADD)
                        .bind(kind.as_str())
                        .bind(*bucket)
                        .bind(*delta)
                        .execute(&mut *tx)
                        .await?;
                }
                move_periods!(tx, kind.as_str(), Some(week_of(finished)), &changes);
                tx.commit().await?;
                Ok(Applied::Applied)
            })
        })
    }
}
