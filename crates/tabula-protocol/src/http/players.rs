//! The players' and records' bodies: a player's own profile, history,
//! notices and deletion, a stored game, the leaderboards and a shared
//! result (`docs/protocol.md`, *Players, history and ratings*).

use serde::{Deserialize, Serialize};
use tabula_room::{GameKind, GameResult, PlayerStats, SeatId};

use super::tournaments::ProfileTournaments;

/// Who sat in a seat of a stored game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SeatInfo {
    /// A player, by name.
    Person {
        /// His id.
        player: String,
        /// His name as shown.
        name: String,
        /// His Telegram photo.
        #[serde(rename = "photoUrl", default, skip_serializing_if = "Option::is_none")]
        photo_url: Option<String>,
    },
    /// The computer at this level.
    Computer {
        /// 1 to 3.
        level: u8,
    },
    /// A player who deleted his data.
    Deleted,
}

/// A Glicko-2 rating as the routes show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RatingLine {
    /// The game rated.
    pub game: GameKind,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// Too few games, or too long ago, to be sure of.
    pub provisional: bool,
    /// His place on the game's leaderboard, if he has one.
    pub rank: Option<u64>,
    /// Of how many.
    pub of: Option<u64>,
    /// His rating after each of his latest rated games, oldest first.
    pub history: Vec<RatingPoint>,
}

/// A point of a rating's graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RatingPoint {
    /// When the game was rated (ms since the epoch).
    pub at: u64,
    /// The rating after it.
    pub rating: f64,
}

/// `GET /api/me/profile`: what a player sees of himself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyProfile {
    /// His id.
    pub player: String,
    /// His name as shown.
    pub name: String,
    /// His Telegram photo.
    pub photo_url: Option<String>,
    /// His Telegram username.
    pub username: Option<String>,
    /// His language, as his latest login with `initData` left it.
    pub language: Option<String>,
    /// Since when the store keeps him (ms since the epoch).
    pub since: Option<u64>,
    /// One per game he is rated in.
    pub ratings: Vec<RatingLine>,
    /// His statistics.
    pub stats: PlayerStats,
    /// His tournaments, once the store keeps any.
    pub tournaments: Option<ProfileTournaments>,
}

/// `DELETE /api/me`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DeletedAnswer {
    /// What was deleted.
    pub deleted: DeletedCounts,
}

/// What `DELETE /api/me` deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeletedCounts {
    /// His profile.
    pub profile: bool,
    /// Games of his whose seat now reads `deleted`.
    pub games: u64,
    /// Games deleted outright (both players gone).
    pub games_deleted: u64,
    /// Ratings.
    pub ratings: u64,
    /// His statistics.
    pub stats: bool,
    /// Tournament results.
    pub tournaments: u64,
}

/// A game's end from one player's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlayerOutcome {
    /// He won.
    Win,
    /// He lost.
    Lose,
    /// Thud!: a draw.
    Draw,
}

/// A game of `GET /api/me/history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryGame {
    /// Its room.
    pub room: String,
    /// Its number in the room, from 1.
    pub game_number: u32,
    /// The game played.
    pub game: GameKind,
    /// When it ended (ms since the epoch).
    pub finished_ms: u64,
    /// His seat.
    pub seat: SeatId,
    /// Who sat opposite.
    pub opponent: SeatInfo,
    /// Won, lost or drawn.
    pub outcome: PlayerOutcome,
    /// The result.
    pub result: GameResult,
    /// The match's length in points.
    pub match_length: u32,
    /// Whether it was rated.
    pub rated: bool,
    /// The tournament it was played in.
    pub tournament: Option<String>,
}

/// `GET /api/me/history`: a page, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HistoryPage {
    /// The games.
    pub games: Vec<HistoryGame>,
    /// The cursor of the next page (`after`); none after the last.
    pub next: Option<String>,
}

/// `GET /api/games/{room}/{number}`: a stored game and its replay.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredGameView {
    /// Its room.
    pub room: String,
    /// Its number in the room.
    pub game_number: u32,
    /// The game played.
    pub game: GameKind,
    /// When it ended (ms since the epoch).
    pub finished_ms: u64,
    /// Whether it was rated.
    pub rated: bool,
    /// The match's length in points.
    pub match_length: u32,
    /// Seats A and B.
    pub seats: Vec<SeatInfo>,
    /// The result.
    pub result: GameResult,
    /// The game record (`tabula verify`'s input), as stored.
    #[schema(value_type = Object)]
    pub record: Box<serde_json::value::RawValue>,
    /// The replay's frames, one per step.
    #[schema(value_type = Vec<Object>)]
    pub frames: Vec<tabula_room::replay::Frame>,
}

/// A line of a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardLine {
    /// Place, from 1.
    pub rank: u64,
    /// Who.
    pub player: String,
    /// His name as shown.
    pub name: String,
    /// His Telegram photo.
    pub photo_url: Option<String>,
    /// His rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Rated games played.
    pub games: u32,
    /// Too few games, or too long ago, to be sure of.
    pub provisional: bool,
}

/// The caller's own place on a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct YourStanding {
    /// Place, from 1.
    pub rank: u64,
    /// Of how many.
    pub of: u64,
    /// His rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Rated games played.
    pub games: u32,
    /// Too few games, or too long ago, to be sure of.
    pub provisional: bool,
}

/// `GET /api/leaderboards/{game}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Leaderboard {
    /// The game.
    pub game: GameKind,
    /// `all` or `week`.
    pub period: String,
    /// The best, first first.
    pub top: Vec<LeaderboardLine>,
    /// The caller's place, when he gave credentials and has one.
    pub you: Option<YourStanding>,
}

/// A kind of the bot's messages and whether he gets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NoticeSwitch {
    /// `your_turn`, `invite_taken`, `rematch`, `bot_game_waiting`,
    /// `game_ended` or `tournament_game`.
    pub kind: String,
    /// On or off.
    pub on: bool,
}

/// `GET` and `PUT /api/me/notices`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Notices {
    /// He has sent the bot `/start` (else the bot cannot write to him).
    pub started: bool,
    /// He blocked the bot.
    pub blocked: bool,
    /// Each kind of message.
    pub kinds: Vec<NoticeSwitch>,
}

/// `POST /api/me/share`'s body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareGame {
    /// The room.
    pub room: String,
    /// The game's number in it.
    pub game: u32,
    /// `ru` or `en`.
    #[serde(default)]
    pub lang: Option<String>,
}

/// `POST /api/me/share`'s answer: a prepared inline message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Shared {
    /// For `Telegram.WebApp.shareMessage`.
    pub id: String,
    /// Until when (seconds since the epoch).
    pub expires_at: u64,
}
