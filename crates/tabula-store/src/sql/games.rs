//! [`Games`] on SQL: the `games` and `game_players` tables, the
//! players' `player_stats` and the `analyses` cache (the contracts: the
//! [module docs](super)).

use tabula_room::{GameResult, PlayerStats, SeatId};

use super::{
    BeginWrite, Cols, Store, name_of, now_ms, on_pool, parse_name, to_i64, to_u32, to_u64,
};
use crate::{
    Archived, FinishedGame, GameKey, Games, HistoryEntry, HistoryPage, HistoryQuery,
    MAX_ANALYSIS_BYTES, MAX_PAGE, Opponent, Result, Seat, StoreError, StoreFuture, StoredGame,
};

/// The summary columns of `games` (alias `g`), as [`summary_of`] reads them.
macro_rules! summary_cols {
    () => {
        "g.room_id, g.game_number, g.game_kind, g.a_player, g.a_bot, g.b_player, g.b_bot, \
         g.winner, g.result_kind, g.end_reason, g.base_points, g.cube, g.points, g.thud_a, \
         g.thud_b, g.match_length, g.rated, g.finished_ms"
    };
}

const INSERT_GAME: &str = "\
INSERT INTO games (room_id, game_number, game_kind, a_player, a_bot, b_player, b_bot, winner,
    result_kind, end_reason, base_points, cube, points, thud_a, thud_b, match_length, rated,
    finished_ms, archived_ms, record)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
ON CONFLICT (room_id, game_number) DO NOTHING";

const INSERT_PLAYER: &str = "\
INSERT INTO game_players (player_id, room_id, game_number, seat, game_kind, opponent, finished_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT DO NOTHING";

const GET: &str = concat!(
    "SELECT ",
    summary_cols!(),
    ", g.archived_ms, g.ratings_applied_ms, g.record FROM games g \
     WHERE g.room_id = $1 AND g.game_number = $2"
);

const HISTORY: &str = concat!(
    "SELECT gp.seat, gp.opponent, ",
    summary_cols!(),
    " FROM game_players gp \
     JOIN games g ON g.room_id = gp.room_id AND g.game_number = gp.game_number \
     WHERE gp.player_id = $1 \
       AND (gp.finished_ms, gp.room_id, gp.game_number) < ($2, $3, $4) \
       AND ($5 IS NULL OR gp.game_kind = $5) \
       AND ($6 IS NULL OR gp.opponent = $6) \
     ORDER BY gp.finished_ms DESC, gp.room_id DESC, gp.game_number DESC \
     LIMIT $7"
);

/// Takes the player's statistics row (creating it with `$3`, the empty
/// statistics) and returns its stats: on PostgreSQL the `DO UPDATE` locks
/// the row and reads its latest committed version, so two archives of
/// one player's games queue here instead of losing one's deltas.
const LOCK_STATS: &str = "\
INSERT INTO player_stats (player_id, stats, updated_ms) VALUES ($1, $3, $2)
ON CONFLICT (player_id) DO UPDATE SET updated_ms = excluded.updated_ms
RETURNING stats";

const WRITE_STATS: &str =
    "UPDATE player_stats SET stats = $2, updated_ms = $3 WHERE player_id = $1";

const GET_STATS: &str = "SELECT stats FROM player_stats WHERE player_id = $1";

const GET_ANALYSIS: &str = "SELECT json FROM analyses WHERE room_id = $1 AND game_number = $2";

/// Only for an archived game (no row selected: nothing inserted); the
/// latest save replaces the one before.
const SAVE_ANALYSIS: &str = "\
INSERT INTO analyses (room_id, game_number, json, created_ms)
SELECT room_id, game_number, $3, $4 FROM games WHERE room_id = $1 AND game_number = $2
ON CONFLICT (room_id, game_number) DO UPDATE SET
    json = excluded.json,
    created_ms = excluded.created_ms";

const PENDING: &str = "\
SELECT room_id, game_number FROM games
WHERE rated AND ratings_applied_ms IS NULL AND a_player IS NOT NULL AND b_player IS NOT NULL
ORDER BY finished_ms, room_id, game_number
LIMIT $1";

/// Stored statistics.
fn stats_of(player: &str, json: &str) -> Result<PlayerStats> {
    serde_json::from_str(json)
        .map_err(|e| StoreError::Corrupt(format!("the statistics of {player}: {e}")))
}

/// Statistics as they are stored.
fn stats_json(stats: &PlayerStats) -> Result<String> {
    serde_json::to_string(stats)
        .map_err(|e| StoreError::Invalid(format!("statistics do not serialise: {e}")))
}

/// A seat from its two columns.
pub(super) fn seat_of(player: Option<String>, bot: Option<i64>) -> Result<Seat> {
    Ok(match (player, bot) {
        (Some(id), _) => Seat::Player(id),
        (None, Some(level)) => Seat::Bot(
            u8::try_from(level)
                .map_err(|_| StoreError::Corrupt(format!("bot level {level} is out of range")))?,
        ),
        (None, None) => Seat::Deleted,
    })
}

/// The columns of a seat to archive.
fn seat_cols(seat: &Seat) -> (Option<&str>, Option<i64>) {
    match seat {
        Seat::Player(id) => (Some(id.as_str()), None),
        Seat::Bot(level) => (None, Some(i64::from(*level))),
        Seat::Deleted => (None, None),
    }
}

/// A game's summary as [`summary_cols`] selects it, with an empty record.
fn summary_of<R: Cols>(row: &R) -> Result<FinishedGame> {
    let winner = row
        .opt_text("winner")?
        .map(|w| parse_name::<SeatId>("winner", &w))
        .transpose()?;
    let thud = match (row.opt_i64("thud_a")?, row.opt_i64("thud_b")?) {
        (Some(a), Some(b)) => Some([to_u32("thud_a", a)?, to_u32("thud_b", b)?]),
        _ => None,
    };
    Ok(FinishedGame {
        key: GameKey {
            room: row.text("room_id")?,
            game: to_u32("game_number", row.i64("game_number")?)?,
        },
        kind: parse_name("game_kind", &row.text("game_kind")?)?,
        seats: [
            seat_of(row.opt_text("a_player")?, row.opt_i64("a_bot")?)?,
            seat_of(row.opt_text("b_player")?, row.opt_i64("b_bot")?)?,
        ],
        result: GameResult {
            winner,
            kind: parse_name("result_kind", &row.text("result_kind")?)?,
            reason: parse_name("end_reason", &row.text("end_reason")?)?,
            base_points: to_u32("base_points", row.i64("base_points")?)?,
            cube: to_u32("cube", row.i64("cube")?)?,
            points: to_u32("points", row.i64("points")?)?,
            thud_totals: thud,
        },
        match_length: to_u32("match_length", row.i64("match_length")?)?,
        rated: row.boolean("rated")?,
        finished_ms: to_u64("finished_ms", row.i64("finished_ms")?)?,
        record: serde_json::Value::Null,
        deltas: Vec::new(),
    })
}

fn stored_of<R: Cols>(row: &R) -> Result<StoredGame> {
    let mut game = summary_of(row)?;
    let record = row.text("record")?;
    game.record = serde_json::from_str(&record)
        .map_err(|e| StoreError::Corrupt(format!("record of {}: {e}", game.key)))?;
    Ok(StoredGame {
        game,
        archived_ms: to_u64("archived_ms", row.i64("archived_ms")?)?,
        ratings_applied_ms: row
            .opt_i64("ratings_applied_ms")?
            .map(|v| to_u64("ratings_applied_ms", v))
            .transpose()?,
    })
}

fn entry_of<R: Cols>(row: &R) -> Result<HistoryEntry> {
    let game = summary_of(row)?;
    let opponent = row.text("opponent")?;
    Ok(HistoryEntry {
        seat: parse_name("seat", &row.text("seat")?)?,
        opponent: Opponent::parse(&opponent)
            .ok_or_else(|| StoreError::Corrupt(format!("opponent {opponent:?}")))?,
        key: game.key,
        kind: game.kind,
        seats: game.seats,
        result: game.result,
        match_length: game.match_length,
        rated: game.rated,
        finished_ms: game.finished_ms,
    })
}

fn check_limit(limit: u32) -> Result<i64> {
    if limit == 0 || limit > MAX_PAGE {
        return Err(StoreError::Invalid(format!(
            "a page has 1 to {MAX_PAGE} entries"
        )));
    }
    Ok(i64::from(limit))
}

impl Games for Store {
    fn archive<'a>(&'a self, game: &'a FinishedGame) -> StoreFuture<'a, Archived> {
        Box::pin(async move {
            game.check()?;
            let kind = name_of(&game.kind)?;
            let winner = game.result.winner.map(|w| name_of(&w)).transpose()?;
            let result_kind = name_of(&game.result.kind)?;
            let reason = name_of(&game.result.reason)?;
            let record = serde_json::to_string(&game.record)
                .map_err(|e| StoreError::Invalid(format!("the record does not serialise: {e}")))?;
            let finished = to_i64("finished_ms", game.finished_ms)?;
            let (a_player, a_bot) = seat_cols(&game.seats[0]);
            let (b_player, b_bot) = seat_cols(&game.seats[1]);
            let thud = game.result.thud_totals;
            let deltas = game.player_deltas();
            let empty = stats_json(&PlayerStats::default())?;
            let now = now_ms();
            on_pool!(self, pool => {
                let mut tx = pool.begin_write().await?;
                let inserted = sqlx::query(INSERT_GAME)
                    .bind(game.key.room.as_str())
                    .bind(i64::from(game.key.game))
                    .bind(kind.as_str())
                    .bind(a_player)
                    .bind(a_bot)
                    .bind(b_player)
                    .bind(b_bot)
                    .bind(winner.as_deref())
                    .bind(result_kind.as_str())
                    .bind(reason.as_str())
                    .bind(i64::from(game.result.base_points))
                    .bind(i64::from(game.result.cube))
                    .bind(i64::from(game.result.points))
                    .bind(thud.map(|t| i64::from(t[0])))
                    .bind(thud.map(|t| i64::from(t[1])))
                    .bind(i64::from(game.match_length))
                    .bind(game.rated)
                    .bind(finished)
                    .bind(now)
                    .bind(record.as_str())
                    .execute(&mut *tx)
                    .await?;
                if inserted.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Ok(Archived::AlreadyStored);
                }
                for (i, seat) in SeatId::BOTH.into_iter().enumerate() {
                    let Seat::Player(player) = &game.seats[i] else { continue };
                    let opponent = match game.seats[1 - i] {
                        Seat::Bot(_) => Opponent::Computer,
                        _ => Opponent::Person,
                    };
                    sqlx::query(INSERT_PLAYER)
                        .bind(player.as_str())
                        .bind(game.key.room.as_str())
                        .bind(i64::from(game.key.game))
                        .bind(name_of(&seat)?)
                        .bind(kind.as_str())
                        .bind(opponent.as_str())
                        .bind(finished)
                        .execute(&mut *tx)
                        .await?;
                }
                // Statistics, player by player in id order (the lock
                // order), only for a game stored now.
                for his in deltas.chunk_by(|a, b| a.0 == b.0) {
                    let player = his[0].0;
                    let row = sqlx::query(LOCK_STATS)
                        .bind(player)
                        .bind(now)
                        .bind(empty.as_str())
                        .fetch_one(&mut *tx)
                        .await?;
                    let mut stats = stats_of(player, &row.text("stats")?)?;
                    for (_, d) in his {
                        stats.record(d);
                    }
                    sqlx::query(WRITE_STATS)
                        .bind(player)
                        .bind(stats_json(&stats)?)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(Archived::Stored)
            })
        })
    }

    fn game<'a>(&'a self, key: &'a GameKey) -> StoreFuture<'a, Option<StoredGame>> {
        Box::pin(async move {
            on_pool!(self, pool => {
                let row = sqlx::query(GET)
                    .bind(key.room.as_str())
                    .bind(i64::from(key.game))
                    .fetch_optional(pool)
                    .await?;
                row.as_ref().map(stored_of).transpose()
            })
        })
    }

    fn history<'a>(&'a self, query: &'a HistoryQuery) -> StoreFuture<'a, HistoryPage> {
        Box::pin(async move {
            let limit = check_limit(query.limit)?;
            // The first page starts below every archived game
            // (`FinishedGame::check` keeps finished_ms under i64::MAX).
            let (before_ms, before_room, before_game) = match &query.after {
                Some(c) => (
                    to_i64("the cursor", c.finished_ms)?,
                    c.room.as_str(),
                    i64::from(c.game),
                ),
                None => (i64::MAX, "", 0),
            };
            let kind = query.kind.map(|k| name_of(&k)).transpose()?;
            let opponent = query.opponent.map(Opponent::as_str);
            let mut entries = on_pool!(self, pool => {
                let rows = sqlx::query(HISTORY)
                    .bind(query.player.as_str())
                    .bind(before_ms)
                    .bind(before_room)
                    .bind(before_game)
                    .bind(kind.as_deref())
                    .bind(opponent)
                    .bind(limit + 1)
                    .fetch_all(pool)
                    .await?;
                rows.iter().map(entry_of).collect::<Result<Vec<_>>>()?
            });
            let more = entries.len() > query.limit as usize;
            entries.truncate(query.limit as usize);
            let next = if more {
                entries.last().map(HistoryEntry::cursor)
            } else {
                None
            };
            Ok(HistoryPage { entries, next })
        })
    }

    fn pending_ratings(&self, limit: u32) -> StoreFuture<'_, Vec<GameKey>> {
        Box::pin(async move {
            let limit = check_limit(limit)?;
            on_pool!(self, pool => {
                let rows = sqlx::query(PENDING).bind(limit).fetch_all(pool).await?;
                rows.iter()
                    .map(|r| {
                        Ok(GameKey {
                            room: r.text("room_id")?,
                            game: to_u32("game_number", r.i64("game_number")?)?,
                        })
                    })
                    .collect()
            })
        })
    }

    fn stats<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Option<PlayerStats>> {
        Box::pin(async move {
            on_pool!(self, pool => {
                let row = sqlx::query(GET_STATS).bind(player).fetch_optional(pool).await?;
                row.map(|r| stats_of(player, &r.text("stats")?)).transpose()
            })
        })
    }

    fn analysis<'a>(&'a self, key: &'a GameKey) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            on_pool!(self, pool => {
                let row = sqlx::query(GET_ANALYSIS)
                    .bind(key.room.as_str())
                    .bind(i64::from(key.game))
                    .fetch_optional(pool)
                    .await?;
                row.map(|r| r.text("json")).transpose()
            })
        })
    }

    fn save_analysis<'a>(&'a self, key: &'a GameKey, json: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            key.check()?;
            if json.len() > MAX_ANALYSIS_BYTES {
                return Err(StoreError::Invalid(format!(
                    "an analysis is at most {MAX_ANALYSIS_BYTES} bytes (this one: {})",
                    json.len()
                )));
            }
            serde_json::from_str::<serde::de::IgnoredAny>(json)
                .map_err(|e| StoreError::Invalid(format!("an analysis is JSON: {e}")))?;
            let saved = on_pool!(self, pool => {
                sqlx::query(SAVE_ANALYSIS)
                    .bind(key.room.as_str())
                    .bind(i64::from(key.game))
                    .bind(json)
                    .bind(now_ms())
                    .execute(pool)
                    .await
                    .map(|done| done.rows_affected())
            });
            match saved {
                Ok(n) if n > 0 => Ok(()),
                Ok(_) => Err(StoreError::UnknownGame(key.clone())),
                // The game deleted between the select and the insert.
                Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => {
                    Err(StoreError::UnknownGame(key.clone()))
                }
                Err(e) => Err(e.into()),
            }
        })
    }
}
