//! What a client sends: [`ClientFrame`]s read by [`parse_client`].
//!
//! The game messages map to the room core's [`Command`]s and back
//! ([`ClientMsg::to_command`], [`ClientMsg::of_command`]); `join`,
//! `resume`, `ping` and `hint` are the node's own.

use serde::{Deserialize, Serialize};
use tabula_room::{Command, SeatId, Spot};

use crate::ErrorCode;

/// One message from a client: an optional sequence number and the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
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
    /// A whole dice turn, confirmed at once: `"24-18,18-13"` (seed 000),
    /// or backgammon's `"24/18 18/13"` — any of `possibleMoves.sequences`
    /// after the roll. Applied atomically or not at all.
    Turn {
        /// The steps, in order.
        #[serde(with = "play")]
        #[schema(value_type = String)]
        play: Vec<(Spot, Spot)>,
    },
    /// What the turn would offer after these tentative steps (answered
    /// by `preview`, to the asker only; nothing is played). A client that
    /// lets its player undo steps asks it after each local step, then
    /// sends the confirmed steps with `turn`.
    Preview {
        /// The tentative steps, in order.
        #[serde(with = "play")]
        #[schema(value_type = String)]
        play: Vec<(Spot, Spot)>,
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
    /// After a finished match between two people: ask for a rematch (the
    /// same options, colours swapped); it starts when both have asked.
    Rematch,
    /// Decline the opponent's rematch offer, or withdraw one's own.
    DeclineRematch,
    /// Ask to take back the turn just played (a casual game between two
    /// people, before the opponent acts).
    Takeback,
    /// Accept the opponent's takeback.
    AcceptTakeback,
    /// Decline the opponent's takeback, or withdraw one's own.
    DeclineTakeback,
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
            ClientMsg::Turn { .. } => "turn",
            ClientMsg::Preview { .. } => "preview",
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
            ClientMsg::Rematch => "rematch",
            ClientMsg::DeclineRematch => "declineRematch",
            ClientMsg::Takeback => "takeback",
            ClientMsg::AcceptTakeback => "acceptTakeback",
            ClientMsg::DeclineTakeback => "declineTakeback",
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
            ClientMsg::Turn { play } => Command::Turn {
                steps: play.clone(),
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
            ClientMsg::Rematch => Command::Rematch,
            ClientMsg::DeclineRematch => Command::DeclineRematch,
            ClientMsg::Takeback => Command::Takeback,
            ClientMsg::AcceptTakeback => Command::AcceptTakeback,
            ClientMsg::DeclineTakeback => Command::DeclineTakeback,
            ClientMsg::Join { .. }
            | ClientMsg::Resume { .. }
            | ClientMsg::Ping
            | ClientMsg::Preview { .. }
            | ClientMsg::Hint { .. } => return None,
        })
    }

    /// The one wire form of a room command a client sends: the inverse of
    /// [`ClientMsg::to_command`]. `None` for the commands the node makes
    /// itself: `sit` and `spectate` (from a `join`), `connected` and
    /// `disconnected` (from the socket's life).
    pub fn of_command(command: &Command) -> Option<ClientMsg> {
        Some(match command {
            Command::Ready => ClientMsg::Ready,
            Command::SetClientSeed { seed } => ClientMsg::SetClientSeed { seed: seed.clone() },
            Command::RollDice => ClientMsg::RollDice,
            Command::Move { from, to } => ClientMsg::Move {
                from: *from,
                to: *to,
            },
            Command::ThudMove { notation } => ClientMsg::ThudMove {
                notation: notation.clone(),
            },
            Command::Turn { steps } => ClientMsg::Turn {
                play: steps.clone(),
            },
            Command::Resign => ClientMsg::Resign,
            Command::Double => ClientMsg::Double,
            Command::Take => ClientMsg::Take,
            Command::Drop => ClientMsg::Drop,
            Command::ProposeEnd => ClientMsg::ProposeEnd,
            Command::AcceptEnd => ClientMsg::AcceptEnd,
            Command::DeclineEnd => ClientMsg::DeclineEnd,
            Command::StandUp => ClientMsg::StandUp,
            Command::Leave => ClientMsg::Leave,
            Command::Chat { text } => ClientMsg::Chat { text: text.clone() },
            Command::Rematch => ClientMsg::Rematch,
            Command::DeclineRematch => ClientMsg::DeclineRematch,
            Command::Takeback => ClientMsg::Takeback,
            Command::AcceptTakeback => ClientMsg::AcceptTakeback,
            Command::DeclineTakeback => ClientMsg::DeclineTakeback,
            _ => return None,
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
    "turn",
    "preview",
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
    "rematch",
    "declineRematch",
    "takeback",
    "acceptTakeback",
    "declineTakeback",
    "resume",
    "ping",
    "hint",
];

/// The most steps a turn has (a double: four).
pub const MAX_TURN_STEPS: usize = 4;

/// A turn's steps as the wire writes them: `"24-18,18-13"`, the steps
/// separated by commas or spaces, each read by [`Spot::parse_step`]; a
/// step folded as backgammon writes it, `8/5(2)`, is that step twice.
/// The `play` text of a server message (the same notation as `turn`'s).
pub(crate) mod play_text {
    pub use super::play::{deserialize, serialize};
}

mod play {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    use tabula_room::Spot;

    use super::MAX_TURN_STEPS;

    pub fn serialize<S: Serializer>(steps: &[(Spot, Spot)], s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = steps.iter().map(|(a, b)| format!("{a}-{b}")).collect();
        s.serialize_str(&text.join(","))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Spot, Spot)>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let mut steps = Vec::new();
        for token in text.split([',', ' ']).filter(|t| !t.is_empty()) {
            // Backgammon folds a repeated step: `8/5(2)`.
            let (step, times) = match token.strip_suffix(')').and_then(|t| t.split_once('(')) {
                Some((step, n)) => match n.parse::<usize>() {
                    Ok(n @ 1..=MAX_TURN_STEPS) => (step, n),
                    _ => return Err(D::Error::custom(format!("play: bad count in {token:?}"))),
                },
                None => (token, 1),
            };
            let step = Spot::parse_step(step).map_err(D::Error::custom)?;
            steps.extend(std::iter::repeat_n(step, times));
            if steps.len() > MAX_TURN_STEPS {
                break;
            }
        }
        if steps.is_empty() {
            return Err(D::Error::custom("play: no steps (e.g. \"24-18,18-13\")"));
        }
        if steps.len() > MAX_TURN_STEPS {
            return Err(D::Error::custom(format!(
                "play: more than {MAX_TURN_STEPS} steps"
            )));
        }
        Ok(steps)
    }
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
    // serde would take a number for the tag as a variant's index
    // (`{"type":17}`), so a frame whose `type` is not a string is not
    // read directly.
    if type_is_a_string(text)
        && let Ok(frame) = serde_json::from_str::<ClientFrame>(text)
    {
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

/// Whether every `"type"` key of the JSON text has a string value. A
/// literal `"type"` is a key exactly when a `:` follows it (inside a JSON
/// string its quotes would be escaped, and a value is followed by `,` or
/// a bracket), so this is a scan of the bytes, not a parse.
fn type_is_a_string(text: &str) -> bool {
    const KEY: &[u8] = b"\"type\"";
    let b = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    };
    let mut from = 0;
    while let Some(at) = b[from..].windows(KEY.len()).position(|w| w == KEY) {
        let i = skip_ws(from + at + KEY.len());
        if b.get(i) == Some(&b':') && b.get(skip_ws(i + 1)) != Some(&b'"') {
            return false;
        }
        from += at + 1;
    }
    true
}
