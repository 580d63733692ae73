//! [`Games::archive_many`](crate::Games::archive_many) on each backend:
//! a batch of finished games, each stored once, in one transaction.

use super::*;

impl Store {
    /// [`Games::archive_many`] on PostgreSQL: four statements.
    pub(super) async fn archive_many_pg(
        &self,
        pool: &sqlx::PgPool,
        rows: &[Row<'_>],
    ) -> Result<Vec<Archived>> {
        let now = now_ms();
        let col = |f: &dyn Fn(&Row<'_>) -> Option<String>| -> Vec<Option<String>> {
            rows.iter().map(f).collect()
        };
        let int = |f: &dyn Fn(&Row<'_>) -> Option<i64>| -> Vec<Option<i64>> {
            rows.iter().map(f).collect()
        };
        let mut tx = pool.begin_write().await?;
        let inserted = sqlx::query(INSERT_GAMES_PG)
            .bind(col(&|r| Some(r.game.key.room.clone())))
            .bind(int(&|r| Some(i64::from(r.game.key.game))))
            .bind(col(&|r| Some(r.kind.clone())))
            .bind(col(&|r| seat_cols(&r.game.seats[0]).0.map(str::to_string)))
            .bind(int(&|r| seat_cols(&r.game.seats[0]).1))
            .bind(col(&|r| seat_cols(&r.game.seats[1]).0.map(str::to_string)))
            .bind(int(&|r| seat_cols(&r.game.seats[1]).1))
            .bind(col(&|r| r.winner.clone()))
            .bind(col(&|r| Some(r.result_kind.clone())))
            .bind(col(&|r| Some(r.reason.clone())))
            .bind(int(&|r| Some(i64::from(r.game.result.base_points))))
            .bind(int(&|r| Some(i64::from(r.game.result.cube))))
            .bind(int(&|r| Some(i64::from(r.game.result.points))))
            .bind(int(&|r| r.game.result.thud_totals.map(|t| i64::from(t[0]))))
            .bind(int(&|r| r.game.result.thud_totals.map(|t| i64::from(t[1]))))
            .bind(int(&|r| Some(i64::from(r.game.match_length))))
            .bind(rows.iter().map(|r| r.game.rated).collect::<Vec<bool>>())
            .bind(int(&|r| Some(r.finished)))
            .bind(
                rows.iter()
                    .map(|r| r.game.record.as_str())
                    .collect::<Vec<&str>>(),
            )
            .bind(now)
            .fetch_all(&mut *tx)
            .await?;
        let mut stored = std::collections::HashSet::with_capacity(inserted.len());
        for row in &inserted {
            stored.insert((row.text("room_id")?, row.i64("game_number")?));
        }
        let (out, deltas) = deltas_of(rows, &stored);
        // One history row per player seat of each game stored now.
        let mut seen = std::collections::HashSet::new();
        let (mut ids, mut rooms, mut numbers, mut seats) = (vec![], vec![], vec![], vec![]);
        let (mut kinds, mut opponents, mut ends) = (vec![], vec![], vec![]);
        for r in rows {
            let (room, number) = r.key();
            if !stored.contains(&(room.to_string(), number)) || !seen.insert((room, number)) {
                continue;
            }
            for (player, seat, opponent) in &r.players {
                ids.push((*player).to_string());
                rooms.push(room.to_string());
                numbers.push(number);
                seats.push(seat.clone());
                kinds.push(r.kind.clone());
                opponents.push((*opponent).to_string());
                ends.push(r.finished);
            }
        }
        if !ids.is_empty() {
            sqlx::query(INSERT_PLAYERS_PG)
                .bind(ids)
                .bind(rooms)
                .bind(numbers)
                .bind(seats)
                .bind(kinds)
                .bind(opponents)
                .bind(ends)
                .execute(&mut *tx)
                .await?;
        }
        if !deltas.is_empty() {
            let ids: Vec<String> = deltas.keys().map(|p| (*p).to_string()).collect();
            let empty = stats_json(&PlayerStats::default())?;
            let locked = sqlx::query(LOCK_STATS_PG)
                .bind(&ids)
                .bind(now)
                .bind(empty.as_str())
                .fetch_all(&mut *tx)
                .await?;
            let mut written = Vec::with_capacity(locked.len());
            let mut json = Vec::with_capacity(locked.len());
            for row in &locked {
                let player = row.text("player_id")?;
                let mut stats = stats_of(&player, &row.text("stats")?)?;
                for d in deltas.get(player.as_str()).into_iter().flatten() {
                    stats.record(d);
                }
                json.push(stats_json(&stats)?);
                written.push(player);
            }
            sqlx::query(WRITE_STATS_PG)
                .bind(written)
                .bind(json)
                .bind(now)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(out)
    }

    /// [`Games::archive_many`] on SQLite: the statements of one archive
    /// per game, in one transaction (no round trip: the file is local).
    pub(super) async fn archive_many_sqlite(
        &self,
        pool: &sqlx::SqlitePool,
        rows: &[Row<'_>],
    ) -> Result<Vec<Archived>> {
        let now = now_ms();
        let mut tx = pool.begin_write().await?;
        let mut stored = std::collections::HashSet::new();
        for r in rows {
            let (a_player, a_bot) = seat_cols(&r.game.seats[0]);
            let (b_player, b_bot) = seat_cols(&r.game.seats[1]);
            let thud = r.game.result.thud_totals;
            let inserted = sqlx::query(INSERT_GAME)
                .bind(r.game.key.room.as_str())
                .bind(i64::from(r.game.key.game))
                .bind(r.kind.as_str())
                .bind(a_player)
                .bind(a_bot)
                .bind(b_player)
                .bind(b_bot)
                .bind(r.winner.as_deref())
                .bind(r.result_kind.as_str())
                .bind(r.reason.as_str())
                .bind(i64::from(r.game.result.base_points))
                .bind(i64::from(r.game.result.cube))
                .bind(i64::from(r.game.result.points))
                .bind(thud.map(|t| i64::from(t[0])))
                .bind(thud.map(|t| i64::from(t[1])))
                .bind(i64::from(r.game.match_length))
                .bind(r.game.rated)
                .bind(r.finished)
                .bind(now)
                .bind(r.game.record.as_str())
                .execute(&mut *tx)
                .await?;
            if inserted.rows_affected() == 0 {
                continue;
            }
            let (room, number) = r.key();
            stored.insert((room.to_string(), number));
            for (player, seat, opponent) in &r.players {
                sqlx::query(INSERT_PLAYER)
                    .bind(*player)
                    .bind(room)
                    .bind(number)
                    .bind(seat.as_str())
                    .bind(r.kind.as_str())
                    .bind(*opponent)
                    .bind(r.finished)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        let (out, deltas) = deltas_of(rows, &stored);
        let empty = stats_json(&PlayerStats::default())?;
        // Statistics, player by player in id order (the lock order).
        for (player, his) in &deltas {
            let row = sqlx::query(LOCK_STATS)
                .bind(*player)
                .bind(now)
                .bind(empty.as_str())
                .fetch_one(&mut *tx)
                .await?;
            let mut stats = stats_of(player, &row.text("stats")?)?;
            for d in his {
                stats.record(d);
            }
            sqlx::query(WRITE_STATS)
                .bind(*player)
                .bind(stats_json(&stats)?)
                .bind(now)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(out)
    }
}
