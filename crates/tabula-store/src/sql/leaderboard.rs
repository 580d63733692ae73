//! [`Leaderboards`] on SQL: `ratings_board` read in order, and a rank
//! counted from `rating_buckets` plus one bucket's rows (the contracts:
//! the [module docs](super)).

use tabula_room::GameKind;

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

impl Leaderboards for Store {
    fn top(&self, kind: GameKind, limit: u32) -> StoreFuture<'_, Vec<LeaderboardEntry>> {
        Box::pin(async move {
            if limit == 0 || limit > MAX_LEADERBOARD {
                return Err(StoreError::Invalid(format!(
                    "a leaderboard page has 1 to {MAX_LEADERBOARD} rows"
                )));
            }
            let kind = name_of(&kind)?;
            on_pool!(self, pool => {
                let rows = sqlx::query(TOP)
                    .bind(kind.as_str())
                    .bind(i64::from(limit))
                    .fetch_all(pool)
                    .await?;
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
                    .collect::<Result<Vec<_>>>()
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
                row.as_ref()
                    .map(|r| {
                        Ok(Standing {
                            rank: to_u64("rank", r.i64("rank")?)?,
                            of: to_u64("total", r.i64("total")?)?,
                            rating: rating_of(r)?,
                        })
                    })
                    .transpose()
            })
        })
    }
}
