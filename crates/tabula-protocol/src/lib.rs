//! Tabula's wire protocol: the JSON messages between clients and nodes.
//!
//! This crate is the only place the wire format is defined (see
//! `docs/protocol.md` for the prose version with example exchanges).
//!
//! * [`ClientFrame`] = an optional client sequence number `seq` plus a
//!   [`ClientMsg`] (`{"type": "rollDice", "seq": 7}`).
//! * [`ServerMsg`]: `welcome`, `state` (full, versioned), `event`
//!   (incremental, versioned, echoing `seq`), `game_over`, `opponent_left`,
//!   `chat`, `ack`, `pong`, `error {code, message}`.
//! * [`ErrorCode`]: stable snake_case codes; [`room_error_code`] maps every
//!   refusal of the room core to one.
//! * [`to_wire`]: which room events a viewer sees, and as which message;
//!   [`EventText`] writes the same as JSON text, serialising each event
//!   once for all its viewers.

use serde::{Deserialize, Serialize};
use tabula_room::{
    Audience, ChatAuthor, Command, Envelope, Event, PlayerResult, ResultKind, RoomError, RoomView,
    SeatId, Spot,
};

/// The protocol version, sent in `welcome`. Bumped on any incompatible
/// change; additions (new message types, new fields) do not bump it.
pub const PROTOCOL_VERSION: u32 = 1;

/// One message from a client: an optional sequence number and the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientFrame {
    /// Client sequence number, echoed by the answering `event`s / `ack` /
    /// `error`. A resent command with an already seen number is not applied
    /// again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The message.
    #[serde(flatten)]
    pub msg: ClientMsg,
}

/// What a client may say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ClientMsg {
    /// Enter a room by id or invite code: take a seat (the given one or the
    /// first free), or watch with `spectate: true`. A player already seated
    /// there is reconnected to the seat.
    #[serde(rename_all = "camelCase")]
    Join {
        /// Room id or invite code.
        room: String,
        /// The seat wanted (`a` or `b`).
        #[serde(default)]
        seat: Option<SeatId>,
        /// Watch instead of sitting.
        #[serde(default)]
        spectate: bool,
    },
    /// Ready to start the (next) game.
    Ready,
    /// Set one's client seed for the provably fair dice (before the game).
    SetClientSeed {
        /// The seed.
        seed: String,
    },
    /// Roll the dice.
    RollDice,
    /// One step (long nardy: seed 000 numbering, `"off"`; backgammon: the
    /// mover's own numbering, `"bar"`, `"off"`).
    Move {
        /// From.
        from: Spot,
        /// To.
        to: Spot,
    },
    /// A Thud! move in notation (`Da6-b6`, `Th7-h6xg5`).
    ThudMove {
        /// The move.
        notation: String,
    },
    /// Resign the game.
    Resign,
    /// Offer a double.
    Double,
    /// Take the double.
    Take,
    /// Drop the double.
    Drop,
    /// Thud!: propose to end the round.
    ProposeEnd,
    /// Thud!: accept the proposal.
    AcceptEnd,
    /// Thud!: decline or withdraw a proposal.
    DeclineEnd,
    /// Stand up from the seat (a resignation during a game).
    StandUp,
    /// Leave the room.
    Leave,
    /// A chat line.
    Chat {
        /// The text.
        text: String,
    },
    /// After a reconnect: the events after `version`, or a full state.
    Resume {
        /// The last version the client saw.
        version: u64,
    },
    /// Keep-alive; answered by `pong`.
    Ping,
    /// Every legal play for the roll just made, ranked, with estimates
    /// (answered by `hint`). Allowed at the start of one's own turn, after
    /// rolling and before the first step, in rooms with a bot seat.
    Hint {
        /// Games rolled out for each of the best candidates (0..=64;
        /// default 16).
        #[serde(default)]
        rollouts: Option<u32>,
    },
}

impl ClientMsg {
    /// The wire name of the message (metrics label).
    pub fn kind(&self) -> &'static str {
        match self {
            ClientMsg::Join { .. } => "join",
            ClientMsg::Ready => "ready",
            ClientMsg::SetClientSeed { .. } => "setClientSeed",
            ClientMsg::RollDice => "rollDice",
            ClientMsg::Move { .. } => "move",
            ClientMsg::ThudMove { .. } => "thudMove",
            ClientMsg::Resign => "resign",
            ClientMsg::Double => "double",
            ClientMsg::Take => "take",
            ClientMsg::Drop => "drop",
            ClientMsg::ProposeEnd => "proposeEnd",
            ClientMsg::AcceptEnd => "acceptEnd",
            ClientMsg::DeclineEnd => "declineEnd",
            ClientMsg::StandUp => "standUp",
            ClientMsg::Leave => "leave",
            ClientMsg::Chat { .. } => "chat",
            ClientMsg::Resume { .. } => "resume",
            ClientMsg::Ping => "ping",
            ClientMsg::Hint { .. } => "hint",
        }
    }

    /// The room command for a game message; `None` for `join`, `resume`
    /// and `ping`, which the node handles itself.
    pub fn to_command(&self) -> Option<Command> {
        Some(match self {
            ClientMsg::Ready => Command::Ready,
            ClientMsg::SetClientSeed { seed } => Command::SetClientSeed { seed: seed.clone() },
            ClientMsg::RollDice => Command::RollDice,
            ClientMsg::Move { from, to } => Command::Move {
                from: *from,
                to: *to,
            },
            ClientMsg::ThudMove { notation } => Command::ThudMove {
                notation: notation.clone(),
            },
            ClientMsg::Resign => Command::Resign,
            ClientMsg::Double => Command::Double,
            ClientMsg::Take => Command::Take,
            ClientMsg::Drop => Command::Drop,
            ClientMsg::ProposeEnd => Command::ProposeEnd,
            ClientMsg::AcceptEnd => Command::AcceptEnd,
            ClientMsg::DeclineEnd => Command::DeclineEnd,
            ClientMsg::StandUp => Command::StandUp,
            ClientMsg::Leave => Command::Leave,
            ClientMsg::Chat { text } => Command::Chat { text: text.clone() },
            ClientMsg::Join { .. }
            | ClientMsg::Resume { .. }
            | ClientMsg::Ping
            | ClientMsg::Hint { .. } => return None,
        })
    }
}

/// All message type names a client may send.
pub const CLIENT_TYPES: &[&str] = &[
    "join",
    "ready",
    "setClientSeed",
    "rollDice",
    "move",
    "thudMove",
    "resign",
    "double",
    "take",
    "drop",
    "proposeEnd",
    "acceptEnd",
    "declineEnd",
    "standUp",
    "leave",
    "chat",
    "resume",
    "ping",
    "hint",
];

/// One ranked play of a `hint` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HintPlay {
    /// The play: long nardy `"24-18,18-13"`, backgammon `"24/18 13/8"`
    /// (`bar`, `off`), each step playable with `move` in order.
    pub play: String,
    /// The estimated chance that the mover wins the game.
    pub win: f64,
    /// The estimated result for the mover, in points per game.
    pub equity: f64,
    /// Games rolled out for the estimate (0: from the evaluation).
    pub rollouts: u32,
}

/// Why a frame could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// `bad_json`, `unknown_type` or `bad_message`.
    pub code: ErrorCode,
    /// What was wrong.
    pub message: String,
    /// The frame's `seq`, when it could be read.
    pub seq: Option<u64>,
}

/// Reads a client text frame, telling malformed JSON, an unknown `type` and
/// a known type with bad fields apart.
pub fn parse_client(text: &str) -> Result<ClientFrame, ParseError> {
    // Well-formed frames (nearly all of them) are read directly; only a
    // refused one goes through `Value` to find out what is wrong with it.
    if let Ok(frame) = serde_json::from_str::<ClientFrame>(text) {
        return Ok(frame);
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| ParseError {
        code: ErrorCode::BadJson,
        message: e.to_string(),
        seq: None,
    })?;
    let seq = value.get("seq").and_then(serde_json::Value::as_u64);
    let Some(ty) = value.get("type").and_then(serde_json::Value::as_str) else {
        return Err(ParseError {
            code: ErrorCode::BadMessage,
            message: "a message is a JSON object with a string \"type\"".into(),
            seq,
        });
    };
    if !CLIENT_TYPES.contains(&ty) {
        return Err(ParseError {
            code: ErrorCode::UnknownType,
            message: format!("unknown message type {ty:?}"),
            seq,
        });
    }
    serde_json::from_value(value).map_err(|e| ParseError {
        code: ErrorCode::BadMessage,
        message: e.to_string(),
        seq,
    })
}

/// Stable error codes (`error.code` on the wire and in HTTP error bodies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
        RoomError::GameInProgress => ErrorCode::GameInProgress,
        RoomError::MatchFinished => ErrorCode::MatchFinished,
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

/// What the server says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum ServerMsg {
    /// First message on every socket.
    #[serde(rename = "welcome")]
    Welcome {
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The authenticated player id.
        player: String,
        /// A short-lived signed session token for reconnecting as the same
        /// player (`?token=` or `Authorization: Bearer`); absent when the
        /// node issues none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// The full room state (after `join`, or `resume` when events cannot be
    /// replayed).
    #[serde(rename = "state")]
    State {
        /// The room id.
        room: String,
        /// The viewer's seat, if seated.
        #[serde(rename = "yourSeat")]
        your_seat: Option<SeatId>,
        /// The state (carries `version`).
        state: Box<RoomView>,
    },
    /// One room event.
    #[serde(rename = "event")]
    Event {
        /// The room version after this event.
        version: u64,
        /// The client's `seq` when this event answers its command.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// The event (`{"type": "diceRolled", ...}`).
        event: Event,
    },
    /// Seed 000's `game_over`, to each seat.
    #[serde(rename = "game_over")]
    GameOver {
        /// The room version.
        version: u64,
        /// The client's `seq` when its command ended the game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// win, lose or draw.
        result: PlayerResult,
        /// Points won or lost.
        points: u32,
        /// oin, mars, koks, single, gammon, …
        kind: ResultKind,
        /// `WIN 100 TON.`
        message: String,
    },
    /// Seed 000's `opponent_left`.
    #[serde(rename = "opponent_left")]
    OpponentLeft {
        /// The room version.
        version: u64,
        /// The message.
        message: String,
    },
    /// A chat line (a player's or the arbiter's).
    #[serde(rename = "chat")]
    Chat {
        /// The room version.
        version: u64,
        /// The client's `seq` when it answers its `chat`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// Who wrote it.
        from: ChatAuthor,
        /// The text.
        text: String,
    },
    /// A command that was accepted without events, or a resend of an
    /// already applied `seq` (`duplicate: true`).
    #[serde(rename = "ack")]
    Ack {
        /// The client's `seq`.
        seq: Option<u64>,
        /// The room version now.
        version: u64,
        /// Whether the command had already been applied.
        duplicate: bool,
    },
    /// Answer to `hint`: every legal play, best first.
    #[serde(rename = "hint")]
    Hint {
        /// The client's `seq`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// The plays, best first. (No `version`: a hint changes nothing.)
        plays: Vec<HintPlay>,
    },
    /// Answer to `ping`.
    #[serde(rename = "pong")]
    Pong {
        /// The client's `seq`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
    },
    /// A refusal; nothing changed.
    #[serde(rename = "error")]
    Error {
        /// A stable code.
        code: ErrorCode,
        /// Human-readable text.
        message: String,
        /// The client's `seq`, if the refused frame had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
    },
}

impl ServerMsg {
    /// An `error`.
    pub fn error(code: ErrorCode, message: impl Into<String>, seq: Option<u64>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
            seq,
        }
    }

    /// The client `seq` this message echoes.
    pub fn seq(&self) -> Option<u64> {
        match self {
            ServerMsg::Event { seq, .. }
            | ServerMsg::GameOver { seq, .. }
            | ServerMsg::Chat { seq, .. }
            | ServerMsg::Ack { seq, .. }
            | ServerMsg::Pong { seq }
            | ServerMsg::Hint { seq, .. }
            | ServerMsg::Error { seq, .. } => *seq,
            _ => None,
        }
    }

    /// The room version this message carries.
    pub fn version(&self) -> Option<u64> {
        match self {
            ServerMsg::State { state, .. } => Some(state.version),
            ServerMsg::Event { version, .. }
            | ServerMsg::GameOver { version, .. }
            | ServerMsg::OpponentLeft { version, .. }
            | ServerMsg::Chat { version, .. }
            | ServerMsg::Ack { version, .. } => Some(*version),
            _ => None,
        }
    }

    /// The JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"type":"error","code":"internal","message":"serialization"}"#.to_string()
        })
    }
}

/// Who is looking at a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// A seated player.
    Seat(SeatId),
    /// A spectator.
    Spectator,
}

/// The message a viewer gets for a room event, or `None` when it is not
/// for them (another seat's, spectators-only, or host-only events).
pub fn to_wire(env: &Envelope, viewer: Viewer, seq: Option<u64>) -> Option<ServerMsg> {
    if !visible(&env.to, viewer) {
        return None;
    }
    let version = env.version;
    Some(match &*env.event {
        Event::GameOver {
            result,
            points,
            kind,
            message,
        } => ServerMsg::GameOver {
            version,
            seq,
            result: *result,
            points: *points,
            kind: *kind,
            message: message.clone(),
        },
        Event::OpponentLeft { message } => ServerMsg::OpponentLeft {
            version,
            message: message.clone(),
        },
        Event::Chat { from, text } => ServerMsg::Chat {
            version,
            seq,
            from: from.clone(),
            text: text.clone(),
        },
        Event::BotRequest { .. } | Event::Stats { .. } => return None,
        e => ServerMsg::Event {
            version,
            seq,
            event: e.clone(),
        },
    })
}

fn visible(to: &Audience, viewer: Viewer) -> bool {
    match (to, viewer) {
        (Audience::All, _) => true,
        (Audience::Seat(s), Viewer::Seat(v)) => *s == v,
        (Audience::Spectators, Viewer::Spectator) => true,
        _ => false,
    }
}

/// Whether [`to_wire`] makes an event a plain `event` message (rather than
/// `game_over`, `opponent_left`, `chat` or nothing).
fn plain_event(e: &Event) -> bool {
    !matches!(
        e,
        Event::GameOver { .. }
            | Event::OpponentLeft { .. }
            | Event::Chat { .. }
            | Event::BotRequest { .. }
            | Event::Stats { .. }
    )
}

/// One room event written as JSON for any number of viewers.
///
/// [`to_wire`] then [`ServerMsg::to_json`] for each viewer clones the event
/// and serialises it again, although only the envelope (`version`, `seq`)
/// differs between viewers. This writes the event's JSON once, on first
/// use, and wraps it per viewer: the text is byte for byte what
/// `to_wire(env, viewer, seq).map(|m| m.to_json())` gives.
#[derive(Debug)]
pub struct EventText<'a> {
    env: &'a Envelope,
    body: Option<String>,
}

impl<'a> EventText<'a> {
    /// Nothing is written until [`EventText::render`] needs it.
    pub fn new(env: &'a Envelope) -> EventText<'a> {
        EventText { env, body: None }
    }

    /// The message this viewer gets when `seq` is the command it answers;
    /// `None` when the event is not for them.
    pub fn render(&mut self, viewer: Viewer, seq: Option<u64>) -> Option<Rendered> {
        use std::fmt::Write as _;
        let env = self.env;
        let slow = |m: ServerMsg| Rendered {
            text: m.to_json(),
            seq: m.seq(),
            version: env.version,
        };
        if !plain_event(&env.event) {
            return to_wire(env, viewer, seq).map(slow);
        }
        if !visible(&env.to, viewer) {
            return None;
        }
        let body = self.body.get_or_insert_with(|| {
            serde_json::to_string(&env.event).unwrap_or_else(|_| String::new())
        });
        if body.is_empty() {
            // Unserialisable (never expected): the same error text as
            // `to_json` gives.
            return to_wire(env, viewer, seq).map(slow);
        }
        // The field order of `ServerMsg::Event`'s derived serialisation.
        let mut text = String::with_capacity(body.len() + 64);
        let _ = write!(text, r#"{{"type":"event","version":{}"#, env.version);
        if let Some(q) = seq {
            let _ = write!(text, r#","seq":{q}"#);
        }
        text.push_str(r#","event":"#);
        text.push_str(body);
        text.push('}');
        Some(Rendered {
            text,
            seq,
            version: env.version,
        })
    }
}

/// A server message for one viewer, as JSON text, with what the session
/// keeps track of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The JSON text.
    pub text: String,
    /// The `seq` the message echoes.
    pub seq: Option<u64>,
    /// The room version it carries.
    pub version: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_frames_read_with_seq() {
        let f = parse_client(r#"{"type":"move","from":24,"to":"off","seq":3}"#).unwrap();
        assert_eq!(f.seq, Some(3));
        assert_eq!(
            f.msg,
            ClientMsg::Move {
                from: Spot::Point(24),
                to: Spot::Off
            }
        );
        let f = parse_client(r#"{"type":"rollDice"}"#).unwrap();
        assert_eq!((f.seq, f.msg), (None, ClientMsg::RollDice));
        let f = parse_client(r#"{"type":"join","room":"abc"}"#).unwrap();
        assert!(matches!(
            f.msg,
            ClientMsg::Join {
                spectate: false,
                seat: None,
                ..
            }
        ));
    }

    #[test]
    fn every_client_type_is_listed() {
        for t in CLIENT_TYPES {
            let e = parse_client(&format!(r#"{{"type":"{t}"}}"#));
            if let Err(e) = e {
                assert_eq!(e.code, ErrorCode::BadMessage, "{t}");
            }
        }
    }

    #[test]
    fn bad_frames_get_distinct_codes() {
        assert_eq!(parse_client("{nope").unwrap_err().code, ErrorCode::BadJson);
        let e = parse_client(r#"{"type":"fly","seq":9}"#).unwrap_err();
        assert_eq!((e.code, e.seq), (ErrorCode::UnknownType, Some(9)));
        assert_eq!(
            parse_client(r#"{"type":"move","from":"x"}"#)
                .unwrap_err()
                .code,
            ErrorCode::BadMessage
        );
        assert_eq!(parse_client("[1]").unwrap_err().code, ErrorCode::BadMessage);
    }

    #[test]
    fn error_codes_serialize_as_their_names() {
        for c in [
            ErrorCode::BadJson,
            ErrorCode::NotYourTurn,
            ErrorCode::FrameTooLarge,
        ] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
    }

    #[test]
    fn events_map_to_messages_by_audience() {
        let env = Envelope {
            version: 5,
            to: Audience::Seat(SeatId::A),
            event: Event::GameOver {
                result: PlayerResult::Win,
                points: 2,
                kind: ResultKind::Mars,
                message: "WIN 2 pt.".into(),
            }
            .into(),
        };
        assert!(to_wire(&env, Viewer::Seat(SeatId::B), None).is_none());
        let m = to_wire(&env, Viewer::Seat(SeatId::A), Some(4)).unwrap();
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["type"], "game_over");
        assert_eq!(v["version"], 5);
        assert_eq!(v["kind"], "mars");
        let env = Envelope {
            version: 6,
            to: Audience::All,
            event: Event::DiceRolled {
                seat: SeatId::A,
                dice: [3, 5],
                roll_index: 2,
            }
            .into(),
        };
        let v = serde_json::to_value(to_wire(&env, Viewer::Spectator, Some(1)).unwrap()).unwrap();
        assert_eq!(v["type"], "event");
        assert_eq!(v["seq"], 1);
        assert_eq!(v["event"]["type"], "diceRolled");
        let host = Envelope {
            version: 7,
            to: Audience::Host,
            event: Event::BotRequest {
                seat: SeatId::B,
                level: 1,
                need: tabula_room::BotNeed::Roll,
            }
            .into(),
        };
        assert!(to_wire(&host, Viewer::Seat(SeatId::B), None).is_none());
    }
}
