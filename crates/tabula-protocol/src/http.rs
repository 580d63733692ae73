//! The bodies of the HTTP API (`docs/protocol.md`, *HTTP*): what
//! `POST /api/rooms` and `POST /api/quickmatch` read, what the room,
//! health and config routes answer, and the one error body of every
//! refusal.

use serde::{Deserialize, Serialize};
use tabula_room::{
    BotLevel, GameKind, GameOptions, GameResult, GameSummary, RoomView, Stake, TimeControl,
};

use crate::ErrorCode;

/// Every HTTP refusal: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The refusal.
    pub error: ErrorDetail,
}

/// The inside of an [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthQuery {
    /// Guest id.
    pub guest: Option<String>,
    /// Session token.
    pub token: Option<String>,
    /// Telegram initData.
    pub init_data: Option<String>,
}

/// A bot seat: `{"level": 1}` or `{"level": "easy"}`.
#[derive(Debug, Clone, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateRoom {
    /// `long_nardy`, `backgammon` or `thud`.
    pub game: GameKind,
    /// Variant options (`long`, `backgammon`, `backgammonOpening`, `thud`).
    #[serde(default)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickMatch {
    /// The game.
    pub game: GameKind,
    /// Its options (players are paired only on equal options).
    #[serde(default)]
    pub options: Option<GameOptions>,
    /// The clocks; players are paired only on the same time control.
    /// Absent: the node's `rooms.default_time_control`. A player nobody
    /// was found for plays the computer without a clock.
    #[serde(default)]
    pub time_control: Option<TimeControlSpec>,
}

/// `GET /healthz`: the process is alive (always 200), and what a peer
/// needs to tell a shared store outage from its own partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Readiness {
    /// `ready`, `draining` or `cut_off`.
    pub status: String,
}

/// `GET /api/client-config`: what the Mini App needs to know about this
/// deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    /// The bot's Mini App link, for invites.
    pub telegram_app_url: String,
    /// Whether guests may play.
    pub guest: bool,
}

/// `GET /api/rooms/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomState {
    /// The id or invite code asked for.
    pub room_id: String,
    /// The room as a spectator sees it.
    pub state: Box<RoomView>,
}

/// `GET /api/rooms/{id}/summary`: seed 001's results summary of the
/// current (or last) game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// `GET /api/session`: the player the credentials name (a session token
/// as `Authorization: Bearer`, `initData`, or none: a new guest), with a
/// fresh token; 401 when they name nobody (an expired or foreign token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnfinishedGames {
    /// The games.
    pub games: Vec<UnfinishedGame>,
}

/// What everyone may see of a player: `welcome.profile`,
/// `GET /api/players/{id}/profile`, each of `GET /api/profiles`, and the
/// answer to `POST /api/me/name`. `name` is always there (chosen, from
/// Telegram, or generated for the id), so a client never shows an id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerProfile {
    /// The player id (`tg:…` or `guest:…`), as seats and chat name him.
    pub id: String,
    /// The name to show.
    pub name: String,
    /// The Telegram username, without `@` (Telegram players who have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// The Telegram profile photo, an `https` URL (when Telegram gave one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub photo_url: Option<String>,
}

/// `GET /api/profiles?ids=a,b`: the profiles, in the order asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profiles {
    /// One per id asked.
    pub profiles: Vec<PlayerProfile>,
}

/// The query of `GET /api/profiles`: player ids separated by commas.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ProfilesQuery {
    /// `tg:1,guest:ab12…`.
    #[serde(default)]
    pub ids: String,
}

/// `POST /api/me/name`: `{"name": "Ann"}` sets the name the player is
/// shown by; `{"name": null}` forgets it (back to his Telegram name, or his
/// generated one). The field is required.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct SetName {
    /// The name, or `null`; `None` when the field is missing.
    #[serde(default, deserialize_with = "present")]
    pub name: Option<Option<String>>,
}

/// A field that is present: `null` is `Some(None)`, missing stays `None`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[cfg(test)]
mod profile_tests {
    use super::*;

    #[test]
    fn set_name_tells_null_from_missing() {
        let read = |s: &str| serde_json::from_str::<SetName>(s).map(|b| b.name);
        assert_eq!(read(r#"{"name":"Ann"}"#).unwrap(), Some(Some("Ann".into())));
        assert_eq!(read(r#"{"name":null}"#).unwrap(), Some(None));
        assert_eq!(read(r#"{}"#).unwrap(), None);
        assert!(read(r#"{"name":5}"#).is_err());
    }

    #[test]
    fn profiles_serialise_as_documented() {
        let p = PlayerProfile {
            id: "tg:1".into(),
            name: "Ann Lee".into(),
            username: Some("ann".into()),
            photo_url: Some("https://t.me/i/userpic/320/a.svg".into()),
        };
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"id":"tg:1","name":"Ann Lee","username":"ann","photoUrl":"https://t.me/i/userpic/320/a.svg"}"#
        );
        let g = PlayerProfile {
            id: "guest:ab".into(),
            name: "Brave Otter 42".into(),
            username: None,
            photo_url: None,
        };
        assert_eq!(
            serde_json::to_string(&g).unwrap(),
            r#"{"id":"guest:ab","name":"Brave Otter 42"}"#
        );
    }
}

/// `POST /api/tournaments`.
#[derive(Debug, Clone, Deserialize, Serialize)]
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
    pub grace_ms: Option<u64>,
    /// The most players (absent: no limit).
    #[serde(default)]
    pub max_players: Option<u32>,
}

/// A tournament as the routes show it (`GET /api/tournaments/{id}`, and
/// the answer of its creation).
#[derive(Debug, Clone, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TournamentQueued {
    /// The tournament.
    pub id: String,
    /// `join`, `withdraw`, `pause` or `resume`.
    pub action: String,
}
