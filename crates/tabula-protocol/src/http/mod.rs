//! The bodies of the HTTP API (`docs/protocol.md`, *HTTP API*), each a
//! utoipa schema of the OpenAPI document (`docs/openapi.json`): here the
//! one error body of every refusal, the credentials, health, config and a
//! session; the rooms' in `rooms.rs`, names in `profiles.rs`, the
//! players' and records' in `players.rs`, the tournaments' in
//! `tournaments.rs`. The sibling files import each other, never this one.

use serde::{Deserialize, Serialize};
use tabula_room::{BotLevel, GameKind};

use crate::ErrorCode;

/// Every HTTP refusal: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The refusal.
    pub error: ErrorDetail,
}

/// The inside of an [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// A stable code.
    pub code: ErrorCode,
    /// Human-readable text.
    pub message: String,
}

impl ErrorBody {
    /// The body for `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code,
                message: message.into(),
            },
        }
    }
}

/// Credentials in the query string (`/ws`, `/api/quickmatch`); a token may
/// also come as `Authorization: Bearer`, initData as
/// `X-Telegram-Init-Data`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, utoipa::ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AuthQuery {
    /// Guest id.
    pub guest: Option<String>,
    /// Session token.
    pub token: Option<String>,
    /// Telegram initData.
    pub init_data: Option<String>,
}

/// `GET /healthz`: the process is alive (always 200), and what a peer
/// needs to tell a shared store outage from its own partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
    /// This node's id.
    pub node: String,
    /// Milliseconds since this node last reached its store.
    #[serde(rename = "storeOkMsAgo")]
    pub store_ok_ms_ago: u64,
    /// Milliseconds its store calls had been succeeding without a failure
    /// at that last success.
    #[serde(rename = "storeUpMs")]
    pub store_up_ms: u64,
}

/// `GET /readyz`: `ready` (200), `draining` or `cut_off` (503).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Readiness {
    /// `ready`, `draining` or `cut_off`.
    pub status: String,
}

/// `GET /api/client-config`: what the Mini App needs to know about this
/// deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    /// The bot's Mini App link, for invites.
    pub telegram_app_url: String,
    /// Whether guests may play.
    pub guest: bool,
}

/// `GET /api/session`: the player the credentials name (a session token
/// as `Authorization: Bearer`, `initData`, or none: a new guest), with a
/// fresh token; 401 when they name nobody (an expired or foreign token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Session {
    /// The player id.
    pub player: String,
    /// A fresh session token (absent when the node issues none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// One game waiting for its player, as `GET /api/me/games` lists it for
/// the lobby's "Continue": joining `roomId` puts him back where he was, on
/// any node. Either a game against a bot he left (it pauses until he is
/// back), or a correspondence game between people (listed for both from
/// the first seat taken until the match is over, with whose turn it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnfinishedGame {
    /// The room to join.
    pub room_id: String,
    /// The game.
    pub game: GameKind,
    /// The bot's level (1 easy, 2 medium, 3 hard).
    pub bot: Option<BotLevel>,
    /// The player's seat.
    pub your_seat: tabula_room::SeatId,
    /// Match length in points (1: a single game).
    pub match_length: u32,
    /// Match score of seats A and B.
    pub score: [u32; 2],
    /// The game of the match being played.
    pub game_number: u32,
    /// The board as it was when he left (for the card's small board).
    #[schema(value_type = Option<Object>)]
    pub board: Option<tabula_room::BoardView>,
    /// When he left, ms since the epoch (the list is newest first); in a
    /// correspondence game, when the running turn (or the wait) began.
    pub paused_at: u64,
    /// A correspondence game's time control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<tabula_room::TimeControl>,
    /// A correspondence game: the seat whose turn it is (absent while the
    /// game waits for a second player or a Ready).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<tabula_room::SeatId>,
    /// A correspondence game: when the seat to act loses on time (ms
    /// since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<u64>,
    /// A correspondence game: the other player's id (absent while the
    /// seat is free).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
}

/// `GET /api/me/games`: the player's games waiting for him, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UnfinishedGames {
    /// The games.
    pub games: Vec<UnfinishedGame>,
}

mod players;
mod profiles;
mod rooms;
mod tournaments;
pub use players::*;
pub use profiles::*;
pub use rooms::*;
pub use tournaments::*;
