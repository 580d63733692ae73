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

/// A player's latest rated games in one kind, newest first (the caller reverses).
const HISTORY_OF: &str = "\
SELECT rated_ms, rating FROM rating_history
WHERE player_id = $1 AND game_kind = $2
ORDER BY rated_ms DESC, room_id DESC, game_number DESC LIMIT $3";

/// A rated game marked as having its ratings applied, once.
macro_rules! mark_applied {
    () => {
        "\
UPDATE games SET ratings_applied_ms = $3
WHERE room_id = $1 AND game_number = $2 AND rated AND ratings_applied_ms IS NULL"
    };
}

/// Marked, with what rating it needs.
const MARK: &str = concat!(
    mark_applied!(),
    "\nRETURNING game_kind, a_player, b_player, finished_ms"
);

/// Marked with nothing to rate (settled).
const SETTLE: &str = mark_applied!();

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

/// Many games marked applied at once (PostgreSQL).
const MARK_PG: &str = "\
UPDATE games SET ratings_applied_ms = $3
FROM UNNEST($1::text[], $2::bigint[]) AS k(room_id, game_number)
WHERE games.room_id = k.room_id AND games.game_number = k.game_number
    AND games.rated AND games.ratings_applied_ms IS NULL
RETURNING games.room_id, games.game_number, games.game_kind, games.a_player, games.b_player,
    games.finished_ms";

/// Many ratings read and locked, in (player, kind) order (PostgreSQL).
const READ_PG: &str = "\
SELECT r.player_id, r.game_kind, r.rating, r.bucket, r.games, r.last_rated_ms
FROM ratings r
JOIN UNNEST($1::text[], $2::text[]) AS k(player_id, game_kind)
    ON r.player_id = k.player_id AND r.game_kind = k.game_kind
ORDER BY r.player_id, r.game_kind
FOR UPDATE OF r";

/// Many ratings moved, each only from the games count it was computed
/// from (PostgreSQL).
const UPDATE_PG: &str = "\
UPDATE ratings SET rating = u.rating, deviation = u.deviation, volatility = u.volatility,
    games = ratings.games + u.n,
    last_rated_ms = GREATEST(ratings.last_rated_ms, u.last_rated_ms),
    bucket = u.bucket
FROM UNNEST($1::text[], $2::text[], $3::float8[], $4::float8[], $5::float8[], $6::bigint[],
    $7::bigint[], $8::bigint[], $9::bigint[])
    AS u(player_id, game_kind, rating, deviation, volatility, n, last_rated_ms, bucket, prev)
WHERE ratings.player_id = u.player_id AND ratings.game_kind = u.game_kind
    AND ratings.games = u.prev";

const INSERT_PG: &str = "\
INSERT INTO ratings (player_id, game_kind, rating, deviation, volatility, games, last_rated_ms,
    bucket)
SELECT * FROM UNNEST($1::text[], $2::text[], $3::float8[], $4::float8[], $5::float8[],
    $6::bigint[], $7::bigint[], $8::bigint[])
ORDER BY 1, 2
ON CONFLICT (player_id, game_kind) DO NOTHING";

const HISTORY_PG: &str = "\
INSERT INTO rating_history (player_id, game_kind, rated_ms, room_id, game_number, rating_before,
    rating, deviation, volatility)
SELECT * FROM UNNEST($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[],
    $6::float8[], $7::float8[], $8::float8[], $9::float8[])
ON CONFLICT DO NOTHING";

const BUCKETS_PG: &str = "\
INSERT INTO rating_buckets (game_kind, bucket, players)
SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::bigint[]) ORDER BY 1, 2
ON CONFLICT (game_kind, bucket) DO UPDATE SET players = rating_buckets.players + excluded.players";

/// One player's rating in one kind through a batch: the games count the
/// first of his updates was computed from, the last update, how many, the
/// latest end among them; then what is stored before the batch.
#[derive(Debug, Clone)]
struct Chain {
    first_prev: i64,
    last: (f64, f64, f64),
    n: i64,
    latest: i64,
    /// (rating, bucket, games, last_rated_ms) stored.
    old: Option<(f64, i64, i64, i64)>,
}

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

/// Applies one rated game in the transaction `$tx` (the body of
/// [`Ratings::apply_rated_game`], the contract in the [module
/// docs](super)): `Applied` when written, else what was refused, nothing
/// written by it (the caller rolls back on an error). `$game`:
/// `&GameKey`; `$ordered`: its two checked updates in player order.
macro_rules! apply_one {
    ($tx:expr, $game:expr, $ordered:expr) => {
        async {
            let game: &GameKey = $game;
            let ordered: &[&RatingUpdate] = $ordered;
            let number = i64::from(game.game);
            let marked = sqlx::query(MARK)
                .bind(game.room.as_str())
                .bind(number)
                .bind(now_ms())
                .fetch_optional(&mut *$tx)
                .await?;
            let Some(marked) = marked else {
                let state = sqlx::query(STATE)
                    .bind(game.room.as_str())
                    .bind(number)
                    .fetch_optional(&mut *$tx)
                    .await?;
                let state = match state {
                    Some(r) => Some((r.boolean("rated")?, r.opt_i64("ratings_applied_ms")?)),
                    None => None,
                };
                return refusal(game, state);
            };
            let kind = marked.text("game_kind")?;
            let finished = marked.i64("finished_ms")?;
            let mut seated = [marked.opt_text("a_player")?, marked.opt_text("b_player")?];
            seated.sort();
            let named = [
                Some(ordered[0].player.clone()),
                Some(ordered[1].player.clone()),
            ];
            if seated != named {
                return Err(StoreError::WrongPlayers { game: game.clone() });
            }
            let mut buckets: BTreeMap<i64, i64> = BTreeMap::new();
            let mut changes: Vec<Change> = Vec::with_capacity(2);
            for u in ordered.iter() {
                let old = sqlx::query(READ)
                    .bind(u.player.as_str())
                    .bind(kind.as_str())
                    .fetch_optional(&mut *$tx)
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
                        .execute(&mut *$tx)
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
                        .execute(&mut *$tx)
                        .await?
                        .rows_affected()
                        == 1
                };
                if !written {
                    // Read again: what a concurrent apply left.
                    let now = sqlx::query(READ)
                        .bind(u.player.as_str())
                        .bind(kind.as_str())
                        .fetch_optional(&mut *$tx)
                        .await?;
                    let games = match now {
                        Some(r) => to_u32("games", r.i64("games")?)?,
                        None => 0,
                    };
                    return Err(StoreError::RatingConflict {
                        player: u.player.clone(),
                        games,
                    });
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
                    .execute(&mut *$tx)
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
                    .execute(&mut *$tx)
                    .await?;
            }
            move_periods!($tx, kind.as_str(), Some(week_of(finished)), &changes);
            Ok::<Applied, StoreError>(Applied::Applied)
        }
        .await
    };
}

/// The updates of one game checked, in player order (the lock order
/// every write follows).
fn checked<'a>(game: &GameKey, updates: &'a [RatingUpdate; 2]) -> Result<[&'a RatingUpdate; 2]> {
    game.check()?;
    for u in updates {
        u.check()?;
    }
    if updates[0].player == updates[1].player {
        return Err(StoreError::WrongPlayers { game: game.clone() });
    }
    let mut ordered = [&updates[0], &updates[1]];
    ordered.sort_by(|a, b| a.player.cmp(&b.player));
    Ok(ordered)
}

const RATINGS_IN_PG: &str = "\
SELECT player_id, rating, deviation, volatility, games, last_rated_ms
FROM ratings WHERE game_kind = $1 AND player_id = ANY($2)";

mod batch;

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

    fn rating_history<'a>(
        &'a self,
        player: &'a str,
        kind: GameKind,
        limit: u32,
    ) -> StoreFuture<'a, Vec<(u64, f64)>> {
        Box::pin(async move {
            let kind = name_of(&kind)?;
            on_pool!(self, pool => {
                let rows = sqlx::query(HISTORY_OF)
                    .bind(player)
                    .bind(kind.as_str())
                    .bind(i64::from(limit))
                    .fetch_all(pool)
                    .await?;
                let mut out = rows
                    .iter()
                    .map(|r| Ok((to_u64("rated_ms", r.i64("rated_ms")?)?, r.f64("rating")?)))
                    .collect::<Result<Vec<_>>>()?;
                out.reverse();
                Ok(out)
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
            let ordered = checked(game, updates)?;
            on_pool!(self, pool => {
                let mut tx = pool.begin_write().await?;
                let done = apply_one!(tx, game, &ordered)?;
                if done == Applied::Applied {
                    tx.commit().await?;
                } else {
                    tx.rollback().await?;
                }
                Ok(done)
            })
        })
    }

    fn apply_rated_games<'a>(
        &'a self,
        games: &'a [(GameKey, [RatingUpdate; 2])],
    ) -> StoreFuture<'a, Vec<Applied>> {
        Box::pin(async move {
            let checked = games
                .iter()
                .map(|(game, updates)| Ok((game, checked(game, updates)?)))
                .collect::<Result<Vec<_>>>()?;
            if checked.is_empty() {
                return Ok(Vec::new());
            }
            match &self.pools {
                super::Pools::Postgres(pool) => self.apply_rated_games_pg(pool, &checked).await,
                super::Pools::Sqlite(pool) => {
                    let mut tx = pool.begin_write().await?;
                    let mut out = Vec::with_capacity(checked.len());
                    for (game, ordered) in &checked {
                        // An error drops the transaction: nothing is written.
                        out.push(apply_one!(tx, game, ordered)?);
                    }
                    tx.commit().await?;
                    Ok(out)
                }
            }
        })
    }

    fn ratings_in<'a>(
        &'a self,
        players: &'a [String],
        kind: GameKind,
    ) -> StoreFuture<'a, Vec<(String, Rating)>> {
        Box::pin(async move {
            let kind = name_of(&kind)?;
            match &self.pools {
                super::Pools::Postgres(pool) => {
                    let rows = sqlx::query(RATINGS_IN_PG)
                        .bind(kind.as_str())
                        .bind(players)
                        .fetch_all(pool)
                        .await?;
                    rows.iter()
                        .map(|r| Ok((r.text("player_id")?, rating_of(r)?)))
                        .collect()
                }
                super::Pools::Sqlite(pool) => {
                    let mut out = Vec::new();
                    for player in players {
                        let row = sqlx::query(GET)
                            .bind(player.as_str())
                            .bind(kind.as_str())
                            .fetch_optional(pool)
                            .await?;
                        if let Some(r) = row {
                            out.push((player.clone(), rating_of(&r)?));
                        }
                    }
                    Ok(out)
                }
            }
        })
    }
}
