//! [`TournamentResults`] on SQL: the `tournament_results` table (the
//! contracts: the [module docs](super)).

use super::{
    BeginWrite, Cols, Store, name_of, now_ms, on_pool, parse_name, to_i64, to_u32, to_u64,
};
use crate::tournaments::check_limit;
use crate::{PlayerTournaments, Result, StoreFuture, TournamentResult, TournamentResults};

const INSERT: &str = "\
INSERT INTO tournament_results (tournament_id, player_id, format, game_kind, place, points,
    games, wins, players, finished_ms, stored_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (tournament_id, player_id) DO NOTHING";

const RECENT: &str = "\
SELECT tournament_id, player_id, format, game_kind, place, points, games, wins, players, finished_ms
FROM tournament_results WHERE player_id = $1
ORDER BY finished_ms DESC, tournament_id DESC
LIMIT $2";

const COUNTS: &str = "\
SELECT COUNT(*) AS played,
    CAST(COALESCE(SUM(CASE WHEN place = 1 THEN 1 ELSE 0 END), 0) AS BIGINT) AS won
FROM tournament_results WHERE player_id = $1";

fn result_of<R: Cols>(row: &R) -> Result<TournamentResult> {
    Ok(TournamentResult {
        tournament: row.text("tournament_id")?,
        player: row.text("player_id")?,
        format: row.text("format")?,
        game: parse_name("game_kind", &row.text("game_kind")?)?,
        place: to_u32("place", row.i64("place")?)?,
        points: to_u32("points", row.i64("points")?)?,
        games: to_u32("games", row.i64("games")?)?,
        wins: to_u32("wins", row.i64("wins")?)?,
        players: to_u32("players", row.i64("players")?)?,
        finished_ms: to_u64("finished_ms", row.i64("finished_ms")?)?,
    })
}

impl TournamentResults for Store {
    fn store_tournament_results<'a>(
        &'a self,
        results: &'a [TournamentResult],
    ) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let mut rows = Vec::with_capacity(results.len());
            for r in results {
                r.check()?;
                rows.push((r, name_of(&r.game)?, to_i64("finished_ms", r.finished_ms)?));
            }
            if rows.is_empty() {
                return Ok(0);
            }
            // In key order: two writers of the same rows (an owner and
            // its successor) take their locks in one order, so they
            // cannot deadlock on PostgreSQL.
            rows.sort_by(|a, b| {
                (&a.0.tournament, &a.0.player).cmp(&(&b.0.tournament, &b.0.player))
            });
            let stored = now_ms();
            on_pool!(self, pool => {
                let mut tx = pool.begin_write().await?;
                let mut new = 0;
                for (r, kind, finished) in &rows {
                    let done = sqlx::query(INSERT)
                        .bind(r.tournament.as_str())
                        .bind(r.player.as_str())
                        .bind(r.format.as_str())
                        .bind(kind.as_str())
                        .bind(i64::from(r.place))
                        .bind(i64::from(r.points))
                        .bind(i64::from(r.games))
                        .bind(i64::from(r.wins))
                        .bind(i64::from(r.players))
                        .bind(*finished)
                        .bind(stored)
                        .execute(&mut *tx)
                        .await?;
                    new += done.rows_affected();
                }
                tx.commit().await?;
                Ok(new)
            })
        })
    }

    fn player_tournaments<'a>(
        &'a self,
        player: &'a str,
        limit: u32,
    ) -> StoreFuture<'a, PlayerTournaments> {
        Box::pin(async move {
            check_limit(limit)?;
            on_pool!(self, pool => {
                let counts = sqlx::query(COUNTS).bind(player).fetch_one(pool).await?;
                let rows = sqlx::query(RECENT)
                    .bind(player)
                    .bind(i64::from(limit))
                    .fetch_all(pool)
                    .await?;
                Ok(PlayerTournaments {
                    played: to_u64("played", counts.i64("played")?)?,
                    won: to_u64("won", counts.i64("won")?)?,
                    recent: rows.iter().map(result_of).collect::<Result<Vec<_>>>()?,
                })
            })
        })
    }
}
