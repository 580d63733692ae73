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

const PENDING_GAMES: &str = concat!(
    "SELECT ",
    summary_cols!(),
    " FROM games g \
     WHERE g.rated AND g.ratings_applied_ms IS NULL \
       AND g.a_player IS NOT NULL AND g.b_player IS NOT NULL \
     ORDER BY g.finished_ms, g.room_id, g.game_number \
     LIMIT $1"
);

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
        record: crate::Record::null(),
        deltas: Vec::new(),
    })
}

fn stored_of<R: Cols>(row: &R) -> Result<StoredGame> {
    let mut game = summary_of(row)?;
    let record = row.text("record")?;
    game.record = crate::Record::from_text(record)
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

/// A game to archive, checked, in its columns.
struct Row<'a> {
    game: &'a FinishedGame,
    kind: String,
    winner: Option<String>,
    result_kind: String,
    reason: String,
    finished: i64,
    /// (player, seat, opponent) of each player seat.
    players: Vec<(&'a str, String, &'static str)>,
}

impl<'a> Row<'a> {
    fn of(game: &'a FinishedGame) -> Result<Row<'a>> {
        game.check()?;
        let mut players = Vec::with_capacity(2);
        for (i, seat) in SeatId::BOTH.into_iter().enumerate() {
            let Seat::Player(player) = &game.seats[i] else {
                continue;
            };
            let opponent = match game.seats[1 - i] {
                Seat::Bot(_) => Opponent::Computer,
                _ => Opponent::Person,
            };
            players.push((player.as_str(), name_of(&seat)?, opponent.as_str()));
        }
        Ok(Row {
            game,
            kind: name_of(&game.kind)?,
            winner: game.result.winner.map(|w| name_of(&w)).transpose()?,
            result_kind: name_of(&game.result.kind)?,
            reason: name_of(&game.result.reason)?,
            finished: to_i64("finished_ms", game.finished_ms)?,
            players,
        })
    }

    fn key(&self) -> (&str, i64) {
        (self.game.key.room.as_str(), i64::from(self.game.key.game))
    }
}

/// Many games at once on PostgreSQL: each statement takes one array per
/// column (`UNNEST`), so a batch is four statements whatever its size.
const INSERT_GAMES_PG: &str = "\
INSERT INTO games (room_id, game_number, game_kind, a_player, a_bot, b_player, b_bot, winner,
    result_kind, end_reason, base_points, cube, points, thud_a, thud_b, match_length, rated,
    finished_ms, record, archived_ms)
SELECT u.*, $20::bigint
FROM UNNEST($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[],
    $7::bigint[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[],
    $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[], $17::boolean[], $18::bigint[],
    $19::text[])
    AS u(room_id, game_number, game_kind, a_player, a_bot, b_player, b_bot, winner,
        result_kind, end_reason, base_points, cube, points, thud_a, thud_b, match_length,
        rated, finished_ms, record)
ORDER BY u.room_id, u.game_number
ON CONFLICT (room_id, game_number) DO NOTHING
RETURNING room_id, game_number";

const INSERT_PLAYERS_PG: &str = "\
INSERT INTO game_players (player_id, room_id, game_number, seat, game_kind, opponent, finished_ms)
SELECT * FROM UNNEST($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[],
    $7::bigint[])
ON CONFLICT DO NOTHING";

/// `LOCK_STATS` for many players, in id order (the lock order).
const LOCK_STATS_PG: &str = "\
INSERT INTO player_stats (player_id, stats, updated_ms)
SELECT p, $3, $2 FROM UNNEST($1::text[]) AS u(p) ORDER BY p
ON CONFLICT (player_id) DO UPDATE SET updated_ms = excluded.updated_ms
RETURNING player_id, stats";

const WRITE_STATS_PG: &str = "\
UPDATE player_stats SET stats = u.stats, updated_ms = $3
FROM UNNEST($1::text[], $2::text[]) AS u(player_id, stats)
WHERE player_stats.player_id = u.player_id";

/// Each game's answer and the statistics deltas of the games stored now,
/// by player in id order: what the batch's last step adds.
fn deltas_of<'a>(
    rows: &'a [Row<'a>],
    stored: &std::collections::HashSet<(String, i64)>,
) -> (
    Vec<Archived>,
    std::collections::BTreeMap<&'a str, Vec<tabula_room::PlayerDelta>>,
) {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(rows.len());
    let mut deltas: std::collections::BTreeMap<&str, Vec<tabula_room::PlayerDelta>> =
        std::collections::BTreeMap::new();
    for r in rows {
        let (room, number) = r.key();
        // A key twice in one batch: the first is the one stored.
        if stored.contains(&(room.to_string(), number)) && seen.insert((room, number)) {
            out.push(Archived::Stored);
            for (player, d) in r.game.player_deltas() {
                deltas.entry(player).or_default().push(d);
            }
        } else {
            out.push(Archived::AlreadyStored);
        }
    }
    (out, deltas)
}

mod archive;

impl Games for Store {
    fn archive<'a>(&'a self, game: &'a FinishedGame) -> StoreFuture<'a, Archived> {
        Box::pin(async move {
            let rows = [Row::of(game)?];
            let done = match &self.pools {
                super::Pools::Sqlite(pool) => self.archive_many_sqlite(pool, &rows).await?,
                super::Pools::Postgres(pool) => self.archive_many_pg(pool, &rows).await?,
            };
            Ok(done.first().copied().unwrap_or(Archived::AlreadyStored))
        })
    }

    fn archive_many<'a>(&'a self, games: &'a [FinishedGame]) -> StoreFuture<'a, Vec<Archived>> {
        Box::pin(async move {
            let rows = games.iter().map(Row::of).collect::<Result<Vec<_>>>()?;
            if rows.is_empty() {
                return Ok(Vec::new());
            }
            match &self.pools {
                super::Pools::Sqlite(pool) => self.archive_many_sqlite(pool, &rows).await,
                super::Pools::Postgres(pool) => self.archive_many_pg(pool, &rows).await,
            }
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

    fn pending_rated_games(&self, limit: u32) -> StoreFuture<'_, Vec<FinishedGame>> {
        Box::pin(async move {
            if limit == 0 || limit > crate::MAX_PENDING {
                return Err(StoreError::Invalid(format!(
                    "a batch of pending games has 1 to {} games",
                    crate::MAX_PENDING
                )));
            }
            let limit = i64::from(limit);
            on_pool!(self, pool => {
                let rows = sqlx::query(PENDING_GAMES).bind(limit).fetch_all(pool).await?;
                rows.iter().map(summary_of).collect()
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
