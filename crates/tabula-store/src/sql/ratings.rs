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

impl Store {
    /// [`Ratings::apply_rated_games`] on PostgreSQL: a few statements per
    /// batch, each over arrays. The games are marked first; when one is
    /// not (unknown, casual or applied already), the batch is applied game
    /// by game instead, which tells each apart. Then every (player, kind)
    /// of the batch is read and locked in that order, checked against the
    /// games count its first update was computed from, and written once
    /// (his last update, his games count plus his games in the batch), a
    /// history row per game and player (each with the rating before it),
    /// the buckets' counts moved by their sum, and each kind's period
    /// counts moved once, as the batch's games one by one would leave
    /// them.
    async fn apply_rated_games_pg(
        &self,
        pool: &sqlx::PgPool,
        games: &[(&GameKey, [&RatingUpdate; 2])],
    ) -> Result<Vec<Applied>> {
        let mut tx = pool.begin_write().await?;
        let marked = sqlx::query(MARK_PG)
            .bind(
                games
                    .iter()
                    .map(|(g, _)| g.room.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(
                games
                    .iter()
                    .map(|(g, _)| i64::from(g.game))
                    .collect::<Vec<_>>(),
            )
            .bind(now_ms())
            .fetch_all(&mut *tx)
            .await?;
        let distinct: std::collections::HashSet<&GameKey> = games.iter().map(|(g, _)| *g).collect();
        if marked.len() != distinct.len() || distinct.len() != games.len() {
            tx.rollback().await?;
            let mut tx = pool.begin_write().await?;
            let mut out = Vec::with_capacity(games.len());
            for (game, ordered) in games {
                out.push(apply_one!(tx, game, ordered)?);
            }
            tx.commit().await?;
            return Ok(out);
        }
        // Each game's kind and end, and a check of its players.
        let mut of_game: std::collections::HashMap<(String, i64), (String, i64)> =
            std::collections::HashMap::with_capacity(marked.len());
        let mut seated_of = std::collections::HashMap::with_capacity(marked.len());
        for row in &marked {
            let key = (row.text("room_id")?, row.i64("game_number")?);
            let mut seated = [row.opt_text("a_player")?, row.opt_text("b_player")?];
            seated.sort();
            seated_of.insert(key.clone(), seated);
            of_game.insert(key, (row.text("game_kind")?, row.i64("finished_ms")?));
        }
        let mut chains: BTreeMap<(String, String), Chain> = BTreeMap::new();
        // (player, kind, end, room, number, chain's rating before or None for the stored one, update)
        let mut history = Vec::with_capacity(games.len() * 2);
        for (game, ordered) in games {
            let key = (game.room.clone(), i64::from(game.game));
            let (Some((kind, finished)), Some(seated)) = (of_game.get(&key), seated_of.get(&key))
            else {
                return Err(StoreError::UnknownGame((*game).clone()));
            };
            let named = [
                Some(ordered[0].player.clone()),
                Some(ordered[1].player.clone()),
            ];
            if *seated != named {
                return Err(StoreError::WrongPlayers {
                    game: (*game).clone(),
                });
            }
            for u in ordered {
                let chain_key = (u.player.clone(), kind.clone());
                let before = match chains.get_mut(&chain_key) {
                    Some(c) => {
                        if i64::from(u.previous_games) != c.first_prev + c.n {
                            return Err(StoreError::RatingConflict {
                                player: u.player.clone(),
                                games: u32::try_from(c.first_prev + c.n).unwrap_or(u32::MAX),
                            });
                        }
                        let before = c.last.0;
                        c.last = (u.rating, u.deviation, u.volatility);
                        c.n += 1;
                        c.latest = c.latest.max(*finished);
                        Some(before)
                    }
                    None => {
                        chains.insert(
                            chain_key,
                            Chain {
                                first_prev: i64::from(u.previous_games),
                                last: (u.rating, u.deviation, u.volatility),
                                n: 1,
                                latest: *finished,
                                old: None,
                            },
                        );
                        None
                    }
                };
                history.push((
                    u.player.clone(),
                    kind.clone(),
                    *finished,
                    key.clone(),
                    before,
                    *u,
                ));
            }
        }
        let (players, kinds): (Vec<String>, Vec<String>) = chains.keys().cloned().unzip();
        let stored = sqlx::query(READ_PG)
            .bind(&players)
            .bind(&kinds)
            .fetch_all(&mut *tx)
            .await?;
        for r in &stored {
            let key = (r.text("player_id")?, r.text("game_kind")?);
            if let Some(c) = chains.get_mut(&key) {
                c.old = Some((
                    r.f64("rating")?,
                    r.i64("bucket")?,
                    r.i64("games")?,
                    r.i64("last_rated_ms")?,
                ));
            }
        }
        for ((player, _), c) in &chains {
            let stored_games = c.old.map_or(0, |(_, _, g, _)| g);
            if stored_games != c.first_prev {
                return Err(StoreError::RatingConflict {
                    player: player.clone(),
                    games: u32::try_from(stored_games).unwrap_or(u32::MAX),
                });
            }
        }
        // The ratings: moved from what was read, or new.
        let (moved, new): (Vec<_>, Vec<_>) = chains.iter().partition(|(_, c)| c.old.is_some());
        let bucket_of = |c: &Chain| crate::ratings::bucket(c.last.0);
        if !moved.is_empty() {
            let n = moved.len();
            let done = sqlx::query(UPDATE_PG)
                .bind(
                    moved
                        .iter()
                        .map(|((p, _), _)| p.clone())
                        .collect::<Vec<_>>(),
                )
                .bind(
                    moved
                        .iter()
                        .map(|((_, k), _)| k.clone())
                        .collect::<Vec<_>>(),
                )
                .bind(moved.iter().map(|(_, c)| c.last.0).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.last.1).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.last.2).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.n).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.latest).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| bucket_of(c)).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.first_prev).collect::<Vec<_>>())
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if done != n as u64 {
                return Err(StoreError::RatingConflict {
                    player: moved[0].0.0.clone(),
                    games: 0,
                });
            }
        }
        if !new.is_empty() {
            let n = new.len();
            let done = sqlx::query(INSERT_PG)
                .bind(new.iter().map(|((p, _), _)| p.clone()).collect::<Vec<_>>())
                .bind(new.iter().map(|((_, k), _)| k.clone()).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.last.0).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.last.1).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.last.2).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.n).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.latest).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| bucket_of(c)).collect::<Vec<_>>())
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if done != n as u64 {
                // Another transaction rated one of them first.
                return Err(StoreError::RatingConflict {
                    player: new[0].0.0.clone(),
                    games: 1,
                });
            }
        }
        // A history row per game and player, with the rating before it.
        let n = history.len();
        let (mut ids, mut kinds, mut ends) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut rooms, mut numbers) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut befores: Vec<Option<f64>> = Vec::with_capacity(n);
        let (mut ratings, mut deviations, mut volatilities) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (player, kind, finished, (room, number), before, u) in &history {
            let before = match before {
                Some(r) => Some(*r),
                None => chains
                    .get(&(player.clone(), kind.clone()))
                    .and_then(|c| c.old)
                    .map(|(r, ..)| r),
            };
            ids.push(player.clone());
            kinds.push(kind.clone());
            ends.push(*finished);
            rooms.push(room.clone());
            numbers.push(*number);
            befores.push(before);
            ratings.push(u.rating);
            deviations.push(u.deviation);
            volatilities.push(u.volatility);
        }
        sqlx::query(HISTORY_PG)
            .bind(ids)
            .bind(kinds)
            .bind(ends)
            .bind(rooms)
            .bind(numbers)
            .bind(befores)
            .bind(ratings)
            .bind(deviations)
            .bind(volatilities)
            .execute(&mut *tx)
            .await?;
        // The buckets' counts, by (kind, bucket).
        let mut buckets: BTreeMap<(String, i64), i64> = BTreeMap::new();
        let mut changes: BTreeMap<String, Vec<Change>> = BTreeMap::new();
        let mut weeks: BTreeMap<String, i64> = BTreeMap::new();
        for ((_, kind), c) in &chains {
            if let Some((_, bucket, _, _)) = c.old {
                *buckets.entry((kind.clone(), bucket)).or_default() -= 1;
            }
            *buckets.entry((kind.clone(), bucket_of(c))).or_default() += 1;
            let old_last = c.old.map(|(_, _, _, last)| last);
            changes.entry(kind.clone()).or_default().push(Change {
                old: c.old.map(|(_, bucket, _, last)| (bucket, last)),
                new: Some((bucket_of(c), old_last.map_or(c.latest, |l| l.max(c.latest)))),
            });
            let week = weeks.entry(kind.clone()).or_insert(i64::MIN);
            *week = (*week).max(week_of(c.latest));
        }
        buckets.retain(|_, d| *d != 0);
        if !buckets.is_empty() {
            sqlx::query(BUCKETS_PG)
                .bind(buckets.keys().map(|(k, _)| k.clone()).collect::<Vec<_>>())
                .bind(buckets.keys().map(|(_, b)| *b).collect::<Vec<_>>())
                .bind(buckets.values().copied().collect::<Vec<_>>())
                .execute(&mut *tx)
                .await?;
        }
        // Each kind's period counts, once, from the batch's latest week.
        for (kind, changes) in &changes {
            let week = weeks.get(kind).copied();
            move_periods!(tx, kind.as_str(), week, changes);
        }
        tx.commit().await?;
        Ok(vec![Applied::Applied; games.len()])
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
