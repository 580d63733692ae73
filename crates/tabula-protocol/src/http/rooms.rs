//! The rooms' bodies: what `POST /api/rooms` and `POST /api/quickmatch`
//! read and answer, and a room's state and summary.

use serde::{Deserialize, Serialize};
use tabula_room::{
    BotLevel, GameKind, GameOptions, GameResult, GameSummary, RoomView, Stake, TimeControl,
};

/// A bot seat: `{"level": 1}` or `{"level": "easy"}`.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
pub struct BotSpec {
    /// 1..=3 or easy / medium / hard.
    pub level: serde_json::Value,
}

impl BotSpec {
    /// The level it names, if it names one.
    pub fn level(&self) -> Option<BotLevel> {
        match &self.level {
            serde_json::Value::Number(n) => {
                n.as_u64().filter(|l| (1..=3).contains(l)).map(|l| l as u8)
            }
            serde_json::Value::String(s) => match s.to_ascii_lowercase().as_str() {
                "easy" | "1" => Some(1),
                "medium" | "2" => Some(2),
                "hard" | "3" => Some(3),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A time control as a request names it: `"none"`, a preset (`"blitz"`
/// 12 s + 60 s, `"normal"` 30 s + 120 s, `"long"` 60 s + 300 s) or the
/// figures, `{"delayMs": 20000, "reserveMs": 90000}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TimeControlSpec {
    /// `none` or a preset's name.
    Named(String),
    /// Explicit figures.
    Figures(TimeControl),
    /// Anything else (`{"delayMs": 3000}` without its reserve, a number):
    /// read, so that it is refused as a time control (`bad_time_control`)
    /// and not as the whole body.
    Unreadable(serde_json::Value),
}

/// Its schema is the two forms a client may send: `Unreadable` is only how
/// the node reads anything else, so that it is refused as a time control.
impl utoipa::PartialSchema for TimeControlSpec {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some(
                        "`none` or a preset: `blitz`, `normal`, `long`, `1d`, `3d`, ...",
                    )),
            )
            .item(utoipa::openapi::Ref::from_schema_name("TimeControl"))
            .into()
    }
}

impl utoipa::ToSchema for TimeControlSpec {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        schemas.push(("TimeControl".into(), TimeControl::schema()));
    }
}

impl TimeControlSpec {
    /// The time control it names (`None` for `none`), or why it is refused.
    pub fn resolve(&self) -> Result<Option<TimeControl>, String> {
        match self {
            TimeControlSpec::Named(n) if n.trim().eq_ignore_ascii_case("none") => Ok(None),
            TimeControlSpec::Named(n) => TimeControl::preset(n).map(Some).ok_or_else(|| {
                format!(
                    "timeControl must be none, blitz, normal, long or {{\"delayMs\", \"reserveMs\"}}, not {n:?}"
                )
            }),
            TimeControlSpec::Figures(tc) => tc.check().map(|()| Some(*tc)),
            TimeControlSpec::Unreadable(v) => Err(format!(
                "timeControl must be none, blitz, normal, long or {{\"delayMs\", \"reserveMs\"}} \
                 (both whole milliseconds), not {v}"
            )),
        }
    }
}

/// `POST /api/rooms`.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateRoom {
    /// `long_nardy`, `backgammon` or `thud`.
    pub game: GameKind,
    /// Variant options (`long`, `backgammon`, `backgammonOpening`, `thud`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<GameOptions>,
    /// Stake per point.
    #[serde(default)]
    pub stake: Option<Stake>,
    /// A bot in seat B.
    #[serde(default)]
    pub bot: Option<BotSpec>,
    /// Match length in points (default 1).
    #[serde(default)]
    pub match_length: Option<u32>,
    /// A bot at this level takes the seat of a player who leaves a game in
    /// progress (disconnect grace over, or `leave`), instead of a forfeit.
    #[serde(default)]
    pub replace_leaver: Option<BotSpec>,
    /// The clocks ([`TimeControlSpec`]). Absent: none against the
    /// computer, the node's `rooms.default_time_control` between people.
    #[serde(default)]
    pub time_control: Option<TimeControlSpec>,
    /// The room's games count for ratings (default: casual). Refused
    /// (`bad_rated`) with a bot.
    #[serde(default)]
    pub rated: bool,
    /// An open challenge: listed in the lobby (`GET /api/live`'s
    /// `challenges`) while its creator waits in it for anyone to take the
    /// other seat (default: false). Refused (`bad_request`) with a bot.
    #[serde(default)]
    pub open: bool,
    /// Test-only: every game of the room starts from this position (long
    /// nardy: seed 000's JSON form; backgammon: `{"turn","white","black",
    /// "bar","off"}`). Accepted only with `testing.allow_start_position`.
    #[serde(default)]
    pub start_position: Option<serde_json::Value>,
}

/// A created or found room (`POST /api/rooms`, `GET /api/invites/{code}`,
/// `POST /api/quickmatch`, which adds the player's `token`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoomCreated {
    /// Room id (for `join`).
    pub room_id: String,
    /// Invite code (also accepted by `join`).
    pub invite: String,
    /// The game.
    pub game: GameKind,
    /// The bot level in seat B, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
    /// The player's session token (quick match, when the node issues
    /// tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// `POST /api/quickmatch`.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuickMatch {
    /// The game.
    pub game: GameKind,
    /// Its options (players are paired only on equal options).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<GameOptions>,
    /// The clocks; players are paired only on the same time control.
    /// Absent: the node's `rooms.default_time_control`. A player nobody
    /// was found for plays the computer without a clock.
    #[serde(default)]
    pub time_control: Option<TimeControlSpec>,
}

/// `GET /api/rooms/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoomState {
    /// The id or invite code asked for.
    pub room_id: String,
    /// The room as a spectator sees it.
    #[schema(value_type = Object)]
    pub state: Box<RoomView>,
}

/// `GET /api/rooms/{id}/summary`: seed 001's results summary of the
/// current (or last) game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoomSummary {
    /// The room id.
    pub room_id: String,
    /// The game it is about (0 before the first).
    pub game_number: u32,
    /// Checkers borne off, moves, doubles and hits per seat.
    pub summary: Option<GameSummary>,
    /// How the game ended, once it has.
    pub result: Option<GameResult>,
}

/// `GET /api/live`: the lobby's showcase, the same from every node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Live {
    /// Games between people being played now, highest-rated first.
    pub games: Vec<Listed>,
    /// Open challenges, highest-rated first.
    pub challenges: Vec<Listed>,
    /// The sockets open on the cluster's nodes.
    pub online: u64,
}

/// A room as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    /// The room.
    pub room_id: String,
    /// The game played.
    pub game: GameKind,
    /// Its seated players (one for an open challenge).
    pub players: Vec<ListedPlayer>,
    /// The match's length in points.
    pub match_length: u32,
    /// The match's score, seats A and B.
    pub score: [u32; 2],
    /// Whether its games are rated.
    pub rated: bool,
    /// Spectators watching.
    pub spectators: u64,
    /// When the room was made (ms since the epoch).
    pub created_at: u64,
    /// Its clocks, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// A listed room's player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ListedPlayer {
    /// His id.
    pub id: String,
    /// His name as shown.
    pub name: String,
    /// His rating in the game, rounded, when he has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
}
