//! Finished tournaments' results, behind [`TournamentResults`] (issue 49).
//!
//! When a tournament ends, its owner writes each player's final line (his
//! place, points, games and wins, how many played, when it ended) once:
//! keyed by (tournament, player), a second write of a row stores nothing
//! and says so, so an owner may retry until it has seen a success, and
//! the node that takes a tournament over after its owner died writes them
//! all again harmlessly. A player's results are read newest first, with
//! how many tournaments he finished and won ([`PlayerTournaments`]), for
//! his profile and `GET /api/me/tournaments`.

use tabula_room::GameKind;

use crate::games::MAX_PAGE;
use crate::profiles::{MAX_ID_BYTES, check_id};
use crate::{StoreError, StoreFuture};

/// The longest format JSON a result may carry, in bytes.
pub const MAX_FORMAT_BYTES: usize = 1024;

/// Finished tournaments' results.
pub trait TournamentResults: Send + Sync + std::fmt::Debug + 'static {
    /// Stores `results` in one transaction, each row at most once by
    /// (tournament, player): a row stored before is left as it is (the
    /// first write wins). Answers how many rows were newly stored.
    /// Refused with [`StoreError::Invalid`], nothing written: an empty or
    /// over-long id, a place of 0 or past `players`, `wins` over `games`,
    /// a format that is not a JSON object (or over
    /// [`MAX_FORMAT_BYTES`]), a time past `i64::MAX`.
    fn store_tournament_results<'a>(
        &'a self,
        results: &'a [TournamentResult],
    ) -> StoreFuture<'a, u64>;

    /// `player`'s `limit` (at most [`MAX_PAGE`]) latest results, newest
    /// first (by end, then tournament id), with his counts.
    fn player_tournaments<'a>(
        &'a self,
        player: &'a str,
        limit: u32,
    ) -> StoreFuture<'a, PlayerTournaments>;
}

/// One player's final line in one finished tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentResult {
    /// The tournament's id.
    pub tournament: String,
    /// The player's id.
    pub player: String,
    /// Its format as JSON (`{"type":"knockout"}`, …): opaque here.
    pub format: String,
    /// The game it played.
    pub game: GameKind,
    /// His place, from 1.
    pub place: u32,
    /// His points, in the format's unit.
    pub points: u32,
    /// His games counted.
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// How many players the final standings rank.
    pub players: u32,
    /// When it ended (ms since the epoch).
    pub finished_ms: u64,
}

impl TournamentResult {
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        if self.tournament.is_empty() || self.tournament.len() > MAX_ID_BYTES {
            return Err(StoreError::Invalid(format!(
                "a tournament id must have 1 to {MAX_ID_BYTES} bytes"
            )));
        }
        check_id(&self.player)?;
        if self.place == 0 || self.place > self.players {
            return Err(StoreError::Invalid(format!(
                "place {} is not one of 1..={}",
                self.place, self.players
            )));
        }
        if self.wins > self.games {
            return Err(StoreError::Invalid(format!(
                "{} wins of {} games",
                self.wins, self.games
            )));
        }
        if self.format.len() > MAX_FORMAT_BYTES
            || !serde_json::from_str::<serde_json::Value>(&self.format).is_ok_and(|v| v.is_object())
        {
            return Err(StoreError::Invalid(format!(
                "the format must be a JSON object of at most {MAX_FORMAT_BYTES} bytes"
            )));
        }
        if i64::try_from(self.finished_ms).is_err() {
            return Err(StoreError::Invalid("the end time is out of range".into()));
        }
        Ok(())
    }

    /// Whether he won it (first place).
    pub fn won(&self) -> bool {
        self.place == 1
    }
}

/// A player's tournaments: his counts and his latest results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerTournaments {
    /// Finished tournaments he has a result in.
    pub played: u64,
    /// Of which he won (first place).
    pub won: u64,
    /// The latest, newest first.
    pub recent: Vec<TournamentResult>,
}

pub(crate) fn check_limit(limit: u32) -> Result<(), StoreError> {
    if limit == 0 || limit > MAX_PAGE {
        return Err(StoreError::Invalid(format!(
            "a page holds 1 to {MAX_PAGE} results"
        )));
    }
    Ok(())
}
