//! The tournaments' bodies (`/api/tournaments`, `/api/me/tournaments`,
//! a profile's results).

use serde::{Deserialize, Serialize};

use super::profiles::PlayerProfile;
use super::rooms::TimeControlSpec;

/// `POST /api/tournaments`.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateTournament {
    /// The id (1 to 30 letters, digits, `-`, `_`); absent: one is drawn.
    #[serde(default)]
    pub id: Option<String>,
    /// `{"type":"knockout"}`, `{"type":"swiss","rounds":5,"lateJoinUntilRound":2}`
    /// or `{"type":"arena","durationMs":…,"rematchWaitMs":…}`.
    pub format: tabula_tournament::Format,
    /// `long_nardy`, `backgammon` or `thud`.
    pub game: tabula_tournament::GameKind,
    /// Points of each match (default 1).
    #[serde(default)]
    pub match_points: Option<u32>,
    /// The games' clocks ([`TimeControlSpec`]); absent: the node's
    /// `rooms.default_time_control`.
    #[serde(default)]
    pub time_control: Option<TimeControlSpec>,
    /// Whether the games are rated.
    #[serde(default)]
    pub rated: bool,
    /// When registration closes and play begins (ms since the epoch).
    pub start_at_ms: u64,
    /// How long a paired player has to come to his game before he
    /// forfeits it (ms; default 120000; 0: never).
    #[serde(default)]
    #[schema(maximum = 604_800_000)]
    pub grace_ms: Option<u64>,
    /// The most players (absent: no limit).
    #[serde(default)]
    pub max_players: Option<u32>,
}

/// A tournament as the routes show it (`GET /api/tournaments/{id}`, and
/// the answer of its creation).
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentView {
    /// Its id.
    pub id: String,
    /// What it is.
    pub config: tabula_tournament::TournamentConfig,
    /// `registering`, `running`, `finished` or `cancelled`.
    pub status: tabula_tournament::Status,
    /// The current round (0 before the first; arenas stay at 0).
    pub round: u32,
    /// Players registered (withdrawn ones included, flagged).
    pub players: Vec<TournamentPlayer>,
    /// The standings, best first.
    pub standings: tabula_tournament::Standings,
    /// A knockout's bracket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bracket: Option<tabula_tournament::knockout::Bracket>,
    /// The games of the current round (every game still being played in
    /// an arena), with their rooms.
    pub games: Vec<TournamentGame>,
    /// The caller's game being played, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_game: Option<TournamentGame>,
    /// The champion, once a knockout is decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub champion: Option<String>,
}

/// A registered player.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentPlayer {
    /// His id.
    pub player: String,
    /// His rating when he joined.
    pub rating: i32,
    /// He withdrew.
    pub withdrawn: bool,
    /// He is paused (arena, Swiss).
    pub paused: bool,
}

/// One tournament game and its room.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentGame {
    /// The game id, which is also its room's id (join it as any room).
    pub room_id: String,
    /// The round (0 in an arena).
    pub round: u32,
    /// White (the first seat).
    pub white: String,
    /// Black.
    pub black: String,
    /// How it ended, once it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<tabula_tournament::Outcome>,
}

/// `GET /api/tournaments`: each list newest first.
#[derive(Debug, Clone, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentList {
    /// Registering.
    pub upcoming: Vec<TournamentSummary>,
    /// Being played.
    pub running: Vec<TournamentSummary>,
    /// Over or called off.
    pub finished: Vec<TournamentSummary>,
}

/// A line of [`TournamentList`].
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentSummary {
    /// Its id.
    pub id: String,
    /// Its format.
    pub format: tabula_tournament::Format,
    /// Its game.
    pub game: tabula_tournament::GameKind,
    /// Its status.
    pub status: tabula_tournament::Status,
    /// When it starts (ms).
    pub start_at_ms: u64,
    /// Players registered and not withdrawn.
    pub players: u32,
}

/// A player's final line in a finished tournament (`GET
/// /api/me/tournaments`'s `finished`, the profile's `tournaments.recent`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentResultLine {
    /// The tournament.
    pub id: String,
    /// Its format.
    pub format: tabula_tournament::Format,
    /// Its game.
    pub game: tabula_tournament::GameKind,
    /// His place, from 1.
    pub place: u32,
    /// His points, in the format's unit (as the standings' `points`).
    pub points: u32,
    /// His games counted.
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// Players in the final standings.
    pub players: u32,
    /// When it ended (ms; absent when not known yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at_ms: Option<u64>,
}

/// A tournament the player is in that is not over (`GET
/// /api/me/tournaments`'s `upcoming` and `running`).
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyTournament {
    /// The tournament, as the list shows it.
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// The current round (0 before the first, and in an arena).
    pub round: u32,
    /// He is paused (not paired until he resumes).
    pub paused: bool,
    /// His place and points in the standings now (running only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// His points now (running only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    /// His game being played, if any (join its `roomId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_game: Option<TournamentGame>,
}

/// `GET /api/me/tournaments`: the player's tournaments.
#[derive(Debug, Clone, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MyTournaments {
    /// Registered, not started, soonest first.
    pub upcoming: Vec<MyTournament>,
    /// Being played, those with his game waiting first.
    pub running: Vec<MyTournament>,
    /// His latest finished ones with his place, newest first.
    pub finished: Vec<TournamentResultLine>,
    /// Finished tournaments he has a result in (the durable store's count).
    pub played: u64,
    /// Of which he won.
    pub won: u64,
    /// Whether `finished`, `played` and `won` come from the durable store
    /// (false: none is configured or it is not reached now; `finished` then
    /// holds only what the live directory still shows).
    pub stored: bool,
}

/// A player's tournaments on his public profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileTournaments {
    /// Finished tournaments he has a result in.
    pub played: u64,
    /// Of which he won (first place).
    pub won: u64,
    /// His latest results, newest first.
    pub recent: Vec<TournamentResultLine>,
}

/// `GET /api/players/{id}/profile`: the public profile, with his
/// tournament results when the durable store answers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicProfile {
    /// Name, username, photo.
    #[serde(flatten)]
    pub profile: PlayerProfile,
    /// His tournaments (absent without a store, or while it is not
    /// reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournaments: Option<ProfileTournaments>,
}

/// The answer of `join`, `withdraw`, `pause`, `resume` (202): the request
/// is queued for the tournament's owner, which applies it within a moment
/// (`GET` the tournament to see it).
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TournamentQueued {
    /// The tournament.
    pub id: String,
    /// `join`, `withdraw`, `pause` or `resume`.
    pub action: String,
}
