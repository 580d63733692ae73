//! The stable error codes of `error` messages and HTTP error bodies.

use serde::{Deserialize, Serialize};
use tabula_room::RoomError;

/// Stable error codes (`error.code` on the wire and in HTTP error bodies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The frame is not JSON.
    BadJson,
    /// The `type` is not one of the client messages.
    UnknownType,
    /// A known type with missing or wrong fields.
    BadMessage,
    /// A binary frame (only text frames are read).
    BinaryFrame,
    /// The frame is over the size limit.
    FrameTooLarge,
    /// Too many messages; slow down (repeated floods close the socket).
    RateLimited,
    /// A game command before `join`.
    NotJoined,
    /// No such room or invite code.
    RoomNotFound,
    /// The room is full.
    RoomFull,
    /// That seat is taken.
    SeatTaken,
    /// Already seated.
    AlreadySeated,
    /// The actor holds no seat.
    NotSeated,
    /// Already pressed Ready.
    AlreadyReady,
    /// No game is being played.
    GameNotStarted,
    /// Not allowed during a game.
    GameInProgress,
    /// The match is over.
    MatchFinished,
    /// `rematch` before the match is over.
    MatchNotFinished,
    /// `rematch` in a room with a bot.
    RematchWithBot,
    /// `rematch` when the opponent has left the room.
    NoOpponent,
    /// `rematch` sent twice.
    RematchAlreadyOffered,
    /// `declineRematch` with no rematch asked for.
    NoRematchOffered,
    /// `takeback` in a rated game or against the computer.
    TakebackNotAllowed,
    /// `takeback` with no turn of the sender's to take back now.
    NothingToTakeBack,
    /// `takeback` while one is asked for.
    TakebackPending,
    /// `takeback` of a turn whose takeback was declined.
    TakebackDeclined,
    /// `acceptTakeback` / `declineTakeback` with none asked for.
    NoTakebackOffered,
    /// It is not your turn.
    NotYourTurn,
    /// Roll first.
    MustRollFirst,
    /// Already rolled.
    AlreadyRolled,
    /// Not a command of this game.
    WrongGame,
    /// The engine refused the step or move.
    IllegalMove,
    /// The points cannot be a step of this game.
    BadPoints,
    /// Doubling is not in play.
    NoCube,
    /// The cube belongs to the opponent.
    NotYourCube,
    /// The cube is at 64.
    CubeAtMaximum,
    /// Doubling only before rolling on one's own turn.
    NotTimeToDouble,
    /// A double is pending.
    DoublePending,
    /// No double is pending.
    NoDoublePending,
    /// Client seeds are locked during a game.
    SeedLocked,
    /// Empty chat line.
    ChatEmpty,
    /// Chat line too long.
    ChatTooLong,
    /// Bad room options (HTTP create).
    BadRequest,
    /// Authentication failed or missing.
    Unauthorized,
    /// This socket was replaced by a newer one for the same player.
    Replaced,
    /// The node is shutting down.
    ShuttingDown,
    /// The room cannot persist moves right now (its store is unreachable);
    /// nothing changed; retry shortly.
    Unavailable,
    /// Hints are not allowed in this room (only with a bot seat).
    HintsDisabled,
    /// A hint is for one's own turn, after rolling, before the first step.
    NotTimeForHint,
    /// The player's previous hint is still being computed.
    HintPending,
    /// The socket was in no room for `server.join_timeout_ms` and is
    /// closed; open one when joining a room.
    Idle,
    /// A whole `turn` whose steps leave dice to play.
    IncompleteTurn,
    /// The player's clock has run out: the timeout is being declared
    /// (the result follows at once); nothing changed.
    TimeUp,
    /// A time control the server does not accept (`timeControl` of a
    /// room or a quick match).
    BadTimeControl,
    /// The game against a bot is paused until its player is back (only a
    /// bot is ever told).
    GamePaused,
    /// A name refused by `POST /api/me/name` (empty, too long, or with a
    /// control or invisible character); nothing changed.
    BadName,
    /// A rated room that cannot be rated (`rated` with a bot).
    BadRated,
    /// The node runs without a durable store (`store.url` empty):
    /// history, ratings and leaderboards are not kept.
    NoStore,
    /// The durable store is configured but cannot be reached now (the
    /// database is down, restarting or not answering in time): history,
    /// profiles, leaderboards and archived games answer 503 with a
    /// `Retry-After`; games go on meanwhile.
    StoreUnavailable,
    /// No archived game under that room and number.
    GameNotFound,
    /// Thud! games have no move analysis.
    NoAnalysis,
    /// No tournament has that id.
    TournamentNotFound,
    /// The tournament refuses the request as it stands (closed, started,
    /// not registered, already in).
    TournamentRefused,
    /// Something went wrong on the node.
    Internal,
}

impl ErrorCode {
    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::BinaryFrame => "binary_frame",
            ErrorCode::FrameTooLarge => "frame_too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::NotJoined => "not_joined",
            ErrorCode::RoomNotFound => "room_not_found",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::NotSeated => "not_seated",
            ErrorCode::AlreadyReady => "already_ready",
            ErrorCode::GameNotStarted => "game_not_started",
            ErrorCode::GameInProgress => "game_in_progress",
            ErrorCode::MatchFinished => "match_finished",
            ErrorCode::MatchNotFinished => "match_not_finished",
            ErrorCode::RematchWithBot => "rematch_with_bot",
            ErrorCode::NoOpponent => "no_opponent",
            ErrorCode::RematchAlreadyOffered => "rematch_already_offered",
            ErrorCode::NoRematchOffered => "no_rematch_offered",
            ErrorCode::TakebackNotAllowed => "takeback_not_allowed",
            ErrorCode::NothingToTakeBack => "nothing_to_take_back",
            ErrorCode::TakebackPending => "takeback_pending",
            ErrorCode::TakebackDeclined => "takeback_declined",
            ErrorCode::NoTakebackOffered => "no_takeback_offered",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::MustRollFirst => "must_roll_first",
            ErrorCode::AlreadyRolled => "already_rolled",
            ErrorCode::WrongGame => "wrong_game",
            ErrorCode::IllegalMove => "illegal_move",
            ErrorCode::BadPoints => "bad_points",
            ErrorCode::NoCube => "no_cube",
            ErrorCode::NotYourCube => "not_your_cube",
            ErrorCode::CubeAtMaximum => "cube_at_maximum",
            ErrorCode::NotTimeToDouble => "not_time_to_double",
            ErrorCode::DoublePending => "double_pending",
            ErrorCode::NoDoublePending => "no_double_pending",
            ErrorCode::SeedLocked => "seed_locked",
            ErrorCode::ChatEmpty => "chat_empty",
            ErrorCode::ChatTooLong => "chat_too_long",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Replaced => "replaced",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::HintsDisabled => "hints_disabled",
            ErrorCode::NotTimeForHint => "not_time_for_hint",
            ErrorCode::HintPending => "hint_pending",
            ErrorCode::Idle => "idle",
            ErrorCode::GamePaused => "game_paused",
            ErrorCode::IncompleteTurn => "incomplete_turn",
            ErrorCode::TimeUp => "time_up",
            ErrorCode::BadTimeControl => "bad_time_control",
            ErrorCode::BadName => "bad_name",
            ErrorCode::BadRated => "bad_rated",
            ErrorCode::NoStore => "no_store",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::GameNotFound => "game_not_found",
            ErrorCode::NoAnalysis => "no_analysis",
            ErrorCode::TournamentNotFound => "tournament_not_found",
            ErrorCode::TournamentRefused => "tournament_refused",
            ErrorCode::Internal => "internal",
        }
    }
}

/// The stable code of a room refusal.
pub fn room_error_code(e: &RoomError) -> ErrorCode {
    match e {
        RoomError::NotSeated | RoomError::NotABot(_) => ErrorCode::NotSeated,
        RoomError::SeatTaken(_) => ErrorCode::SeatTaken,
        RoomError::AlreadySeated => ErrorCode::AlreadySeated,
        RoomError::RoomFull => ErrorCode::RoomFull,
        RoomError::AlreadyReady => ErrorCode::AlreadyReady,
        RoomError::GameNotStarted => ErrorCode::GameNotStarted,
        RoomError::Paused => ErrorCode::GamePaused,
        RoomError::IncompleteTurn => ErrorCode::IncompleteTurn,
        RoomError::TimeUp => ErrorCode::TimeUp,
        RoomError::GameInProgress => ErrorCode::GameInProgress,
        RoomError::MatchFinished => ErrorCode::MatchFinished,
        RoomError::MatchNotFinished => ErrorCode::MatchNotFinished,
        RoomError::RematchWithBot => ErrorCode::RematchWithBot,
        RoomError::NoOpponent => ErrorCode::NoOpponent,
        RoomError::RematchAlreadyOffered => ErrorCode::RematchAlreadyOffered,
        RoomError::NoRematchOffered => ErrorCode::NoRematchOffered,
        RoomError::TakebackNotAllowed => ErrorCode::TakebackNotAllowed,
        RoomError::NothingToTakeBack => ErrorCode::NothingToTakeBack,
        RoomError::TakebackPending => ErrorCode::TakebackPending,
        RoomError::TakebackDeclined => ErrorCode::TakebackDeclined,
        RoomError::NoTakebackOffered => ErrorCode::NoTakebackOffered,
        RoomError::NotYourTurn => ErrorCode::NotYourTurn,
        RoomError::MustRollFirst => ErrorCode::MustRollFirst,
        RoomError::AlreadyRolled => ErrorCode::AlreadyRolled,
        RoomError::WrongGame => ErrorCode::WrongGame,
        RoomError::Illegal(_) => ErrorCode::IllegalMove,
        RoomError::BadPoints { .. } => ErrorCode::BadPoints,
        RoomError::NoCube => ErrorCode::NoCube,
        RoomError::NotYourCube => ErrorCode::NotYourCube,
        RoomError::CubeAtMaximum => ErrorCode::CubeAtMaximum,
        RoomError::NotTimeToDouble => ErrorCode::NotTimeToDouble,
        RoomError::DoublePending => ErrorCode::DoublePending,
        RoomError::NoDoublePending => ErrorCode::NoDoublePending,
        RoomError::SeedLocked => ErrorCode::SeedLocked,
        RoomError::ChatEmpty => ErrorCode::ChatEmpty,
        RoomError::ChatTooLong { .. } => ErrorCode::ChatTooLong,
        RoomError::BadStartPosition(_) => ErrorCode::BadRequest,
        _ => ErrorCode::Internal,
    }
}
