//! [`Leaderboards`] on SQL: `ratings_board` read in order, and a rank
//! counted from `rating_buckets` plus one bucket's rows; a period's board
//! the same way from its `period_buckets` (its rank; its top page walking
//! `ratings_board_period` when the period is large) when the period's
//! counts are kept, else from the period's range of `ratings_period` (the
//! contracts: the [module docs](super), *Period boards*).

use tabula_room::GameKind;

use super::periods::WEEK_MS;
use super::ratings::rating_of;
use super::{Cols, Store, name_of, on_pool, to_u64};
use crate::{
    LeaderboardEntry, Leaderboards, MAX_LEADERBOARD, Result, Standing, StoreError, StoreFuture,
};

/// The top of a board: `$1` the game kind, `$2` the page size. (Public,
/// as [`STANDING`], for `examples/leaderboard.rs`, which prints its plan.)
pub const TOP: &str = "\
SELECT r.player_id, r.rating, r.deviation, r.volatility, r.games, r.last_rated_ms,
    COALESCE(p.chosen_name, p.display_name) AS name, p.photo_url
FROM ratings r LEFT JOIN players p ON p.id = r.player_id
WHERE r.game_kind = $1
ORDER BY r.rating DESC, r.player_id ASC
LIMIT $2";

/// 1 + the players in the buckets above his + those above him in his
/// bucket (`rating < bucket + 1` bounds the range to it) + those with his
/// rating and a smaller id; and the board's size. `$1` the player, `$2`
/// the game kind.
pub const STANDING: &str = "\
WITH me AS (
    SELECT rating, deviation, volatility, games, last_rated_ms, bucket
    FROM ratings WHERE player_id = $1 AND game_kind = $2
)
SELECT me.rating, me.deviation, me.volatility, me.games, me.last_rated_ms,
    1
    + (SELECT CAST(COALESCE(SUM(b.players), 0) AS BIGINT) FROM rating_buckets b
        WHERE b.game_kind = $2 AND b.bucket > me.bucket)
    + (SELECT COUNT(*) FROM ratings r
        WHERE r.game_kind = $2 AND r.rating > me.rating
            AND r.rating < CAST(me.bucket + 1 AS DOUBLE PRECISION))
    + (SELECT COUNT(*) FROM ratings r
        WHERE r.game_kind = $2 AND r.rating = me.rating AND r.player_id < $1)
    AS rank,
    (SELECT CAST(COALESCE(SUM(b.players), 0) AS BIGINT) FROM rating_buckets b
        WHERE b.game_kind = $2) AS total
FROM me";

/// The top of a period's board: `$1` the game kind, `$2` the period's
/// start, `$3` the page size. The period's players are the ratings of the
/// kind last rated at or after `$2`: one range of `ratings_period`, read
/// index-only and whole into a top-`$3` sort. The order is written
/// `-rating` so that no index gives it: a planner that walked
/// `ratings_board` instead, filtering, would walk the whole board in a
/// period with few players. The page's rows and names are joined to the
/// page alone.
pub const TOP_SINCE: &str = "\
WITH page AS MATERIALIZED (
    SELECT player_id, rating FROM ratings
    WHERE game_kind = $1 AND last_rated_ms >= $2
    ORDER BY -rating, player_id
    LIMIT $3
)
SELECT r.player_id, r.rating, r.deviation, r.volatility, r.games, r.last_rated_ms,
    COALESCE(p.chosen_name, p.display_name) AS name, p.photo_url
FROM page t
JOIN ratings r ON r.player_id = t.player_id AND r.game_kind = $1
LEFT JOIN players p ON p.id = t.player_id
ORDER BY t.rating DESC, t.player_id ASC";

/// A player's place on a period's board: 1 + the period's players above
/// him (a higher rating, or his with a smaller id), and how many it has,
/// counted together in one pass over the period's range of
/// `ratings_period`, index-only (his row, by key, joined to each). No row
/// when he has no rating of the kind or was last rated before the period.
/// `$1` the game kind, `$2` the period's start, `$3` the player.
pub const STANDING_SINCE: &str = "\
SELECT me.rating, me.deviation, me.volatility, me.games, me.last_rated_ms,
    1 + COUNT(*) FILTER (WHERE r.rating > me.rating
        OR (r.rating = me.rating AND r.player_id < me.player_id)) AS rank,
    COUNT(*) AS total
FROM ratings me
JOIN ratings r ON r.game_kind = me.game_kind AND r.last_rated_ms >= $2
WHERE me.player_id = $3 AND me.game_kind = $1 AND me.last_rated_ms >= $2
GROUP BY me.player_id, me.game_kind";

/// A player's place on a period's board from the period's bucket counts:
/// 1 + the period's players in the buckets above his + those above him in
/// his bucket (a range of `ratings_board_period` within one whole point,
/// index-only; `+last_rated_ms` keeps `ratings_period` out of it) + those
/// with his rating and a smaller id; `total` the period's players;
/// `tracked` whether the period's counts are kept (else the counts are
/// not the period's: `STANDING_SINCE` answers). No row when he has no
/// rating of the kind or was last rated before the period. `$1` the game
/// kind, `$2` the period's start, `$3` the player, `$4` the start + 7
/// days (a period is tracked as the tracked week or the week before it).
pub const STANDING_SINCE_BUCKETS: &str = "\
WITH me AS (
    SELECT rating, deviation, volatility, games, last_rated_ms, bucket
    FROM ratings WHERE player_id = $3 AND game_kind = $1 AND last_rated_ms >= $2
)
SELECT me.rating, me.deviation, me.volatility, me.games, me.last_rated_ms,
    (SELECT COUNT(*) FROM period_weeks w
        WHERE w.game_kind = $1 AND (w.week_ms = $2 OR w.week_ms = $4)) AS tracked,
    1
    + (SELECT CAST(COALESCE(SUM(b.players), 0) AS BIGINT) FROM period_buckets b
        WHERE b.game_kind = $1 AND b.period_ms = $2 AND b.bucket > me.bucket)
    + (SELECT COUNT(*) FROM ratings r
        WHERE r.game_kind = $1 AND r.rating > me.rating
            AND r.rating < CAST(me.bucket + 1 AS DOUBLE PRECISION)
            AND +r.last_rated_ms >= $2)
    + (SELECT COUNT(*) FROM ratings r
        WHERE r.game_kind = $1 AND r.rating = me.rating AND r.player_id < $3
            AND +r.last_rated_ms >= $2)
    AS rank,
    (SELECT CAST(COALESCE(SUM(b.players), 0) AS BIGINT) FROM period_buckets b
        WHERE b.game_kind = $1 AND b.period_ms = $2) AS total
FROM me";

/// How to read a period's top page, from its bucket counts: `tracked`
/// (as in [`STANDING_SINCE_BUCKETS`]), `period` its players, `bound` the
/// highest bucket at or above which the period has `$4` players (none:
/// it has fewer) and `walk` all the board's players at or above it (how
/// far [`TOP_SINCE_WALK`] reads). `$1` the game kind, `$2` the period's
/// start, `$3` the start + 7 days, `$4` the page size.
pub const TOP_SINCE_PLAN: &str = "\
WITH cum AS (
    SELECT bucket, SUM(players) OVER (ORDER BY bucket DESC ROWS UNBOUNDED PRECEDING) AS above
    FROM period_buckets WHERE game_kind = $1 AND period_ms = $2
), bound AS (
    SELECT MAX(bucket) AS bucket FROM cum WHERE above >= $4
)
SELECT
    (SELECT COUNT(*) FROM period_weeks w
        WHERE w.game_kind = $1 AND (w.week_ms = $2 OR w.week_ms = $3)) AS tracked,
    (SELECT CAST(COALESCE(SUM(b.players), 0) AS BIGINT) FROM period_buckets b
        WHERE b.game_kind = $1 AND b.period_ms = $2) AS period,
    bound.bucket AS bound,
    (SELECT CAST(COALESCE(SUM(b.players), 0) AS BIGINT) FROM rating_buckets b
        WHERE b.game_kind = $1 AND b.bucket >= bound.bucket) AS walk
FROM bound";

/// The top of a period's board by walking the board's order from the
/// top down to `$4` (a rating), keeping the period's players
/// (`ratings_board_period`, index-only; `+last_rated_ms` keeps
/// `ratings_period` out of it): `$1` the game kind, `$2` the period's
/// start, `$3` the page size. Fewer than `$3` rows: the bound was too
/// high (the counts moved since they were read), `TOP_SINCE` answers.
pub const TOP_SINCE_WALK: &str = "\
WITH page AS MATERIALIZED (
    SELECT player_id, rating FROM ratings
    WHERE game_kind = $1 AND rating >= $4 AND +last_rated_ms >= $2
    ORDER BY rating DESC, player_id
    LIMIT $3
)
SELECT r.player_id, r.rating, r.deviation, r.volatility, r.games, r.last_rated_ms,
    COALESCE(p.chosen_name, p.display_name) AS name, p.photo_url
FROM page t
JOIN ratings r ON r.player_id = t.player_id AND r.game_kind = $1
LEFT JOIN players p ON p.id = t.player_id
ORDER BY t.rating DESC, t.player_id ASC";

/// A page size of a board.
fn check_limit(limit: u32) -> Result<i64> {
    if limit == 0 || limit > MAX_LEADERBOARD {
        return Err(StoreError::Invalid(format!(
            "a leaderboard page has 1 to {MAX_LEADERBOARD} rows"
        )));
    }
    Ok(i64::from(limit))
}

/// A board's rows, ranked in their order.
fn entries_of<R: Cols>(rows: &[R]) -> Result<Vec<LeaderboardEntry>> {
    rows.iter()
        .zip(1u64..)
        .map(|(r, rank)| {
            Ok(LeaderboardEntry {
                rank,
                player: r.text("player_id")?,
                name: r.opt_text("name")?,
                photo_url: r.opt_text("photo_url")?,
                rating: rating_of(r)?,
            })
        })
        .collect()
}

/// A standing as `STANDING` / `STANDING_SINCE` select it.
fn standing_of<R: Cols>(r: &R) -> Result<Standing> {
    Ok(Standing {
        rank: to_u64("rank", r.i64("rank")?)?,
        of: to_u64("total", r.i64("total")?)?,
        rating: rating_of(r)?,
    })
}

impl Leaderboards for Store {
    fn top(&self, kind: GameKind, limit: u32) -> StoreFuture<'_, Vec<LeaderboardEntry>> {
        Box::pin(async move {
            let limit = check_limit(limit)?;
            let kind = name_of(&kind)?;
            on_pool!(self, pool => {
                let rows = sqlx::query(TOP)
                    .bind(kind.as_str())
                    .bind(limit)
                    .fetch_all(pool)
                    .await?;
                entries_of(&rows)
            })
        })
    }

    fn standing<'a>(
        &'a self,
        player: &'a str,
        kind: GameKind,
    ) -> StoreFuture<'a, Option<Standing>> {
        Box::pin(async move {
            let kind = name_of(&kind)?;
            on_pool!(self, pool => {
                let row = sqlx::query(STANDING)
                    .bind(player)
                    .bind(kind.as_str())
                    .fetch_optional(pool)
                    .await?;
                row.as_ref().map(standing_of).transpose()
            })
        })
    }

    fn top_since(
        &self,
        kind: GameKind,
        since_ms: u64,
        limit: u32,
    ) -> StoreFuture<'_, Vec<LeaderboardEntry>> {
        Box::pin(async move {
            let limit = check_limit(limit)?;
            let kind = name_of(&kind)?;
            // No game ends at or after i64::MAX: a later start is an empty period.
            let since = i64::try_from(since_ms).unwrap_or(i64::MAX);
            let next = since.saturating_add(WEEK_MS);
            on_pool!(self, pool => {
                let plan = sqlx::query(TOP_SINCE_PLAN)
                    .bind(kind.as_str())
                    .bind(since)
                    .bind(next)
                    .bind(limit)
                    .fetch_one(pool)
                    .await?;
                let walk = match plan.opt_i64("bound")? {
                    Some(bound) if plan.i64("tracked")? > 0
                        && plan.i64("walk")? <= plan.i64("period")? => Some(bound),
                    _ => None,
                };
                if let Some(bound) = walk {
                    // |bound| <= MAX_RATING: exact as a float.
                    let rows = sqlx::query(TOP_SINCE_WALK)
                        .bind(kind.as_str())
                        .bind(since)
                        .bind(limit)
                        .bind(bound as f64)
                        .fetch_all(pool)
                        .await?;
                    if rows.len() as i64 == limit {
                        return entries_of(&rows);
                    }
                }
                let rows = sqlx::query(TOP_SINCE)
                    .bind(kind.as_str())
                    .bind(since)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?;
                entries_of(&rows)
            })
        })
    }

    fn standing_since<'a>(
        &'a self,
        player: &'a str,
        kind: GameKind,
        since_ms: u64,
    ) -> StoreFuture<'a, Option<Standing>> {
        Box::pin(async move {
            let kind = name_of(&kind)?;
            // No game ends at or after i64::MAX: a later start is an empty period.
            let since = i64::try_from(since_ms).unwrap_or(i64::MAX);
            let next = since.saturating_add(WEEK_MS);
            on_pool!(self, pool => {
                let row = sqlx::query(STANDING_SINCE_BUCKETS)
                    .bind(kind.as_str())
                    .bind(since)
                    .bind(player)
                    .bind(next)
                    .fetch_optional(pool)
                    .await?;
                match row {
                    None => return Ok(None),
                    Some(row) if row.i64("tracked")? > 0 => return standing_of(&row).map(Some),
                    Some(_) => {}
                }
                let row = sqlx::query(STANDING_SINCE)
                    .bind(kind.as_str())
                    .bind(since)
                    .bind(player)
                    .fetch_optional(pool)
                    .await?;
                row.as_ref().map(standing_of).transpose()
            })
        })
    }
}
