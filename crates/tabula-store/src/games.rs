//! Finished games, behind [`Games`].
//!
//! A game is archived once, keyed by its room and its number in the
//! room's match ([`GameKey`]); archiving it again stores nothing and says
//! so, so an archiver may retry until it has seen a success and only then
//! let the backplane forget the record. What is archived is the summary
//! the history and the ratings need (kind, seats, result, match length,
//! rated, end time) and the whole record, `tabula_room::GameRecord` as it
//! serialises, which `tabula verify` checks and a replay steps through.
//!
//! The same transaction adds the game's statistics deltas
//! ([`FinishedGame::deltas`], the room's `stats`) to each player's
//! statistics, `tabula_room::PlayerStats` accumulated by
//! `PlayerStats::record` (the room's one definition): only when the game
//! is newly stored, so a retried archive counts a game once
//! ([`Games::stats`]).
//!
//! An analysis of an archived game (the analyser's JSON, at most
//! [`MAX_ANALYSIS_BYTES`]) may be cached beside it
//! ([`Games::save_analysis`], [`Games::analysis`]); it is deleted with
//! its game.
//!
//! A player's history is read newest first, a page at a time, each page
//! continuing after the last entry of the one before ([`HistoryCursor`]:
//! keyset pagination on (end time, room, game number), so pages neither
//! skip nor repeat a game however many are archived meanwhile).

use serde::{Deserialize, Serialize};
use tabula_room::{
    BotLevel, GameKind, GameRecord, GameResult, PlayerDelta, PlayerResult, PlayerStats, SeatId,
};

use crate::profiles::{MAX_ID_BYTES, check_id};
use crate::{GameKey, StoreError, StoreFuture};

/// The largest history page.
pub const MAX_PAGE: u32 = 100;

/// The most games [`Games::pending_rated_games`] lists at once (an
/// archiver's batch).
pub const MAX_PENDING: u32 = 1000;

/// The largest analysis [`Games::save_analysis`] accepts: 1 MiB of JSON.
pub const MAX_ANALYSIS_BYTES: usize = 1 << 20;

/// Finished games.
pub trait Games: Send + Sync + std::fmt::Debug + 'static {
    /// Archives a finished game, with a history entry for each player
    /// seated in it, and its [`deltas`](FinishedGame::deltas) added to
    /// the players' statistics, in one transaction.
    /// [`Archived::AlreadyStored`] when the key was archived before
    /// (nothing is written, statistics included: the first archive wins).
    /// Refused with [`StoreError::Invalid`], nothing written: a game
    /// [`FinishedGame`] does not allow (see its fields), a delta whose
    /// player is not the one in its seat, two deltas for one seat, a
    /// delta of another game kind.
    fn archive<'a>(&'a self, game: &'a FinishedGame) -> StoreFuture<'a, Archived>;

    /// Archives `games` as [`Games::archive`] archives each, all in one
    /// transaction (an archiver's batch: on PostgreSQL a few statements
    /// whatever the batch's size); one answer per game, in order. A key
    /// twice in the batch is stored once (the first; the second answers
    /// [`Archived::AlreadyStored`]), and the statistics of a player with
    /// several games in it add each. Refused with
    /// [`StoreError::Invalid`], nothing written, when any game would be
    /// refused alone; any other failure writes nothing either, so the
    /// batch may be retried whole.
    fn archive_many<'a>(&'a self, games: &'a [FinishedGame]) -> StoreFuture<'a, Vec<Archived>>;

    /// One archived game, with its record.
    fn game<'a>(&'a self, key: &'a GameKey) -> StoreFuture<'a, Option<StoredGame>>;

    /// A page of a player's history, newest first.
    fn history<'a>(&'a self, query: &'a HistoryQuery) -> StoreFuture<'a, HistoryPage>;

    /// Up to `limit` (at most [`MAX_PAGE`]) rated games whose ratings are
    /// not applied yet, oldest first: what a ratings worker catches up on
    /// after a restart. A game one of whose players has since deleted his
    /// data is not listed (it can no longer be applied).
    fn pending_ratings(&self, limit: u32) -> StoreFuture<'_, Vec<GameKey>>;

    /// Up to `limit` (at most [`MAX_PENDING`]) of the games
    /// [`Games::pending_ratings`] lists, in its order, each without its
    /// record (`record` is `null`): what a rating needs, a batch at once.
    fn pending_rated_games(&self, limit: u32) -> StoreFuture<'_, Vec<FinishedGame>>;

    /// `player`'s statistics: every delta of his in the games archived
    /// so far, each counted once; `None` before his first.
    fn stats<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Option<PlayerStats>>;

    /// The analysis cached for the archived game `key`, if any.
    fn analysis<'a>(&'a self, key: &'a GameKey) -> StoreFuture<'a, Option<String>>;

    /// Caches `json` as the analysis of the archived game `key`, replacing
    /// any cached before (the latest save wins, so an improved analyser's
    /// figures supersede old ones). Refused: a game not archived (or
    /// deleted meanwhile) with [`StoreError::UnknownGame`]; JSON over
    /// [`MAX_ANALYSIS_BYTES`], or text that is not JSON, with
    /// [`StoreError::Invalid`]. Deleted with its game (a game left with no
    /// player, [`Profiles::delete_player`](crate::Profiles::delete_player)).
    fn save_analysis<'a>(&'a self, key: &'a GameKey, json: &'a str) -> StoreFuture<'a, ()>;
}

impl GameKey {
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        if self.room.is_empty() || self.room.len() > MAX_ID_BYTES {
            return Err(StoreError::Invalid(format!(
                "a room id must have 1 to {MAX_ID_BYTES} bytes"
            )));
        }
        Ok(())
    }
}

/// Who sat in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Seat {
    /// A player, by id.
    Player(String),
    /// The computer, at this level.
    Bot(BotLevel),
    /// A player who has since deleted his data (only ever read back).
    Deleted,
}

impl Seat {
    /// The player's id, for a player's seat.
    pub fn player(&self) -> Option<&str> {
        match self {
            Seat::Player(id) => Some(id),
            _ => None,
        }
    }
}

/// Who a player played against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Opponent {
    /// Another player.
    Person,
    /// The computer.
    Computer,
}

impl Opponent {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Opponent::Person => "person",
            Opponent::Computer => "computer",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<Opponent> {
        match s {
            "person" => Some(Opponent::Person),
            "computer" => Some(Opponent::Computer),
            _ => None,
        }
    }
}

/// A game's record as JSON text (`tabula_room::GameRecord` as it
/// serialises), kept as text from the archive queue to the store and back
/// out to a client: parsed only where something reads inside it. Always
/// well-formed JSON (every constructor checks or serialises).
#[derive(Debug, Clone)]
pub struct Record(Box<serde_json::value::RawValue>);

impl Record {
    /// The JSON of `value`.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Record, StoreError> {
        serde_json::value::to_raw_value(value)
            .map(Record)
            .map_err(|e| StoreError::Invalid(format!("the record does not serialise: {e}")))
    }

    /// `text`, checked to be one JSON value.
    pub fn from_text(text: String) -> Result<Record, serde_json::Error> {
        serde_json::value::RawValue::from_string(text).map(Record)
    }

    /// `null`: a summary read without its record.
    pub fn null() -> Record {
        Record(serde_json::value::RawValue::NULL.to_owned())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// Parsed as `T` (a `tabula_room::GameRecord`, a `serde_json::Value`).
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }
}

impl From<Box<serde_json::value::RawValue>> for Record {
    fn from(raw: Box<serde_json::value::RawValue>) -> Record {
        Record(raw)
    }
}

impl From<&serde_json::Value> for Record {
    fn from(v: &serde_json::Value) -> Record {
        // A `Value` always serialises.
        Record::of(v).unwrap_or_else(|_| Record::null())
    }
}

/// Two records are equal when their JSON texts are.
impl PartialEq for Record {
    fn eq(&self, other: &Record) -> bool {
        self.0.get() == other.0.get()
    }
}

/// Written as the JSON it is (not as a string).
impl Serialize for Record {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// The fields of a record the store reads (the rest is skipped unread;
/// a `GameRecord` writes its setup's fields at its top level).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RecordHead {
    game: GameKind,
    game_number: u32,
    result: GameResult,
}

/// A finished game, as it is archived.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedGame {
    /// Its key.
    pub key: GameKey,
    /// Which game.
    pub kind: GameKind,
    /// Seats A and B.
    pub seats: [Seat; 2],
    /// How it ended.
    pub result: GameResult,
    /// The match's length in points (1 for a single game).
    pub match_length: u32,
    /// Whether the game counts for ratings (only between two players).
    pub rated: bool,
    /// When it ended (ms since the epoch).
    pub finished_ms: u64,
    /// The whole record: `tabula_room::GameRecord` as it serialises.
    pub record: Record,
    /// The room's statistics deltas for this game (its `stats` event), one
    /// per seat; those with a player are added to his statistics when the
    /// game is archived. Each names the seat its player sits in here; one
    /// without a game kind counts as this game's. Not stored with the
    /// game: [`Games::game`] reads it back empty.
    pub deltas: Vec<PlayerDelta>,
}

impl FinishedGame {
    /// A finished game from its record (kind, number and result read from
    /// it) and what the record does not hold.
    pub fn from_record(
        room: impl Into<String>,
        record: &GameRecord,
        seats: [Seat; 2],
        match_length: u32,
        rated: bool,
        finished_ms: u64,
    ) -> Result<FinishedGame, StoreError> {
        let json = Record::of(record)?;
        FinishedGame::from_record_json(room, json, seats, match_length, rated, finished_ms)
    }

    /// The same from a record's JSON text as it was queued: its kind,
    /// number and result are read from it, the rest is kept as text (an
    /// archiver need not parse a whole record to store it).
    pub fn from_record_json(
        room: impl Into<String>,
        record: Record,
        seats: [Seat; 2],
        match_length: u32,
        rated: bool,
        finished_ms: u64,
    ) -> Result<FinishedGame, StoreError> {
        let head: RecordHead = record
            .parse()
            .map_err(|e| StoreError::Invalid(format!("not a game record: {e}")))?;
        Ok(FinishedGame {
            key: GameKey::new(room, head.game_number),
            kind: head.game,
            seats,
            result: head.result,
            match_length,
            rated,
            finished_ms,
            record,
            deltas: Vec::new(),
        })
    }

    /// Checks what the store relies on: the key, a player or a bot in each
    /// seat, two different players in a rated game, a time that fits.
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        self.key.check()?;
        for seat in &self.seats {
            match seat {
                Seat::Player(id) => check_id(id)?,
                Seat::Bot(_) => {}
                Seat::Deleted => {
                    return Err(StoreError::Invalid(
                        "a seat to archive is a player or a bot".into(),
                    ));
                }
            }
        }
        if self.rated {
            match (&self.seats[0], &self.seats[1]) {
                (Seat::Player(a), Seat::Player(b)) if a != b => {}
                _ => {
                    return Err(StoreError::Invalid(
                        "a rated game is between two different players".into(),
                    ));
                }
            }
        }
        if i64::try_from(self.finished_ms).is_err() || self.finished_ms == i64::MAX as u64 {
            return Err(StoreError::Invalid("finished_ms is out of range".into()));
        }
        let mut seen = [false; 2];
        for d in &self.deltas {
            let i = d.seat as usize;
            if std::mem::replace(&mut seen[i], true) {
                return Err(StoreError::Invalid(format!(
                    "two statistics deltas for seat {}",
                    d.seat
                )));
            }
            if let Some(player) = &d.player
                && self.seats[i].player() != Some(player.0.as_str())
            {
                return Err(StoreError::Invalid(format!(
                    "a statistics delta names {player}, who is not seated in seat {}",
                    d.seat
                )));
            }
            if d.game.is_some_and(|k| k != self.kind) {
                return Err(StoreError::Invalid(
                    "a statistics delta of another game kind".into(),
                ));
            }
        }
        Ok(())
    }

    /// The deltas to add to each player's statistics, by player id (the
    /// lock order), each with this game's kind. Checked by `check`.
    pub(crate) fn player_deltas(&self) -> Vec<(&str, PlayerDelta)> {
        let mut out: Vec<(&str, PlayerDelta)> = self
            .deltas
            .iter()
            .filter_map(|d| {
                let player = d.player.as_ref()?;
                let mut d = d.clone();
                d.game.get_or_insert(self.kind);
                Some((player.0.as_str(), d))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }
}

/// What [`Games::archive`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archived {
    /// The game is now stored.
    Stored,
    /// It was stored before; nothing was written.
    AlreadyStored,
}

/// An archived game, as [`Games::game`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    /// The game (a seat whose player deleted his data reads
    /// [`Seat::Deleted`]).
    pub game: FinishedGame,
    /// When it was archived.
    pub archived_ms: u64,
    /// When its ratings were applied, for a rated game.
    pub ratings_applied_ms: Option<u64>,
}

/// Which page of whose history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryQuery {
    /// The player.
    pub player: String,
    /// Only games of this kind.
    pub kind: Option<GameKind>,
    /// Only games against this kind of opponent.
    pub opponent: Option<Opponent>,
    /// The page's size, 1 to [`MAX_PAGE`].
    pub limit: u32,
    /// Continue after this entry (`None`: the newest games). The cursor
    /// of a page read with other filters still works: it is a position.
    pub after: Option<HistoryCursor>,
}

impl HistoryQuery {
    /// The newest `limit` games of `player`, unfiltered.
    pub fn newest(player: impl Into<String>, limit: u32) -> HistoryQuery {
        HistoryQuery {
            player: player.into(),
            kind: None,
            opponent: None,
            limit,
            after: None,
        }
    }
}

/// A position in a history: an entry's (end time, room, game number).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryCursor {
    /// The entry's end time.
    pub finished_ms: u64,
    /// Its room.
    pub room: String,
    /// Its game number.
    pub game: u32,
}

/// One game of a player's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    /// The game.
    pub key: GameKey,
    /// Which game.
    pub kind: GameKind,
    /// The player's seat.
    pub seat: SeatId,
    /// Seats A and B.
    pub seats: [Seat; 2],
    /// Who he played.
    pub opponent: Opponent,
    /// How it ended.
    pub result: GameResult,
    /// The match's length.
    pub match_length: u32,
    /// Whether it was rated.
    pub rated: bool,
    /// When it ended.
    pub finished_ms: u64,
}

impl HistoryEntry {
    /// Won, lost or drawn, for the player whose history this is.
    pub fn outcome(&self) -> PlayerResult {
        match self.result.winner {
            None => PlayerResult::Draw,
            Some(seat) if seat == self.seat => PlayerResult::Win,
            Some(_) => PlayerResult::Lose,
        }
    }

    /// This entry's position, to continue after it.
    pub fn cursor(&self) -> HistoryCursor {
        HistoryCursor {
            finished_ms: self.finished_ms,
            room: self.key.room.clone(),
            game: self.key.game,
        }
    }
}

/// A page of history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryPage {
    /// The entries, newest first.
    pub entries: Vec<HistoryEntry>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<HistoryCursor>,
}
