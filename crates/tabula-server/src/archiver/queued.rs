//! What a room queues for the durable store when a game ends
//! ([`QueuedGame`]), built by the host from the room alone, and its
//! conversion into the store's [`FinishedGame`]. Pure: no IO.

use serde::{Deserialize, Serialize};
use tabula_room::{BotLevel, GameRecord, PlayerDelta, Room, SeatId};
use tabula_store::{FinishedGame, Seat};

/// A finished game on its way to the durable store: the record and what
/// the record does not say (who sat where, the match, whether it counts
/// for ratings, when it ended, each seat's statistics). A room queues a
/// [`QueuedGame`] (the record as the room holds it); the archiver reads
/// the same JSON back as a [`QueuedEntry`] (the record as text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Queued<R> {
    /// The room.
    pub room: String,
    /// Seats A and B.
    pub seats: [QueuedSeat; 2],
    /// The match's length in points.
    pub match_length: u32,
    /// Whether the game's result is rated: the last game of a rated
    /// room's match between two players (a match is rated once, at its
    /// end, its length weighing as FIBS weighs it).
    pub rated: bool,
    /// When it ended (the room's time of the input that ended it).
    pub finished_ms: u64,
    /// Each seat's statistics.
    pub deltas: Vec<PlayerDelta>,
    /// The record.
    pub record: R,
}

/// What a room queues when a game ends.
pub type QueuedGame = Queued<GameRecord>;

/// A queued game as it is read back for the store: the same JSON as
/// [`QueuedGame`], its record kept as text ([`tabula_store::Record`]), so
/// the archiver reads only the fields it needs and stores the record as
/// it was queued (issue 47: parsing each record into a `GameRecord` and
/// writing it out again was most of an archiver's own work).
pub type QueuedEntry = Queued<Box<serde_json::value::RawValue>>;

/// Who sat in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum QueuedSeat {
    /// A player.
    Player {
        /// His id.
        id: String,
    },
    /// The computer.
    Bot {
        /// Its level.
        level: BotLevel,
    },
    /// Nobody (cannot be archived).
    Empty,
}

/// The store's form of a queued game's JSON `entry` (what
/// [`QueuedGame`] serialises to); an error when it does not read or a
/// seat was empty.
pub fn finished_of(entry: &str) -> Result<FinishedGame, String> {
    let q: QueuedEntry = serde_json::from_str(entry).map_err(|e| e.to_string())?;
    let seats = [seat_of(&q.seats[0])?, seat_of(&q.seats[1])?];
    let mut g = FinishedGame::from_record_json(
        q.room,
        q.record.into(),
        seats,
        q.match_length,
        q.rated,
        q.finished_ms,
    )
    .map_err(|e| e.to_string())?;
    g.deltas = q.deltas;
    Ok(g)
}

fn seat_of(s: &QueuedSeat) -> Result<Seat, String> {
    match s {
        QueuedSeat::Player { id } => Ok(Seat::Player(id.clone())),
        QueuedSeat::Bot { level } => Ok(Seat::Bot(*level)),
        QueuedSeat::Empty => Err("a seat was empty".to_string()),
    }
}

/// The queue's key of a room's game.
pub fn key(room: &str, game_number: u32) -> String {
    format!("{room}#{game_number}")
}

impl QueuedGame {
    /// The game `record` of `room` (one of `room.records()`), as the room
    /// now is: its seats, its match, and whether the match ended with it.
    pub fn of(id: &str, room: &Room, record: &GameRecord) -> QueuedGame {
        let seats = SeatId::BOTH.map(|seat| match (room.player_in(seat), room.bot_in(seat)) {
            (Some(p), _) => QueuedSeat::Player { id: p.0.clone() },
            (None, Some(level)) => QueuedSeat::Bot { level },
            (None, None) => QueuedSeat::Empty,
        });
        let people =
            seats.iter().all(|s| matches!(s, QueuedSeat::Player { .. })) && seats[0] != seats[1];
        let last = room
            .records()
            .last()
            .is_some_and(|r| r.setup.game_number == record.setup.game_number);
        let match_over = last && room.phase() == tabula_room::Phase::Finished;
        QueuedGame {
            room: id.to_string(),
            seats,
            match_length: room.config().match_length.max(1),
            rated: room.config().rated && room.config().bot.is_none() && people && match_over,
            finished_ms: room.last_input_at(),
            deltas: room.deltas(&record.result),
            record: record.clone(),
        }
    }

    /// The queue's key.
    pub fn key(&self) -> String {
        key(&self.room, self.record.setup.game_number)
    }
}
