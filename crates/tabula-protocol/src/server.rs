//! What a server sends: [`ServerMsg`], and which room events a viewer sees
//! as which message ([`to_wire`], [`EventText`]).
//!
//! The bodies of `event` and `state` are the room core's [`Event`] and
//! [`RoomView`] as they serialise; the golden transcripts
//! (`crates/tabula-server/src/host/tests/golden/`) pin every byte of them.

use serde::{Deserialize, Serialize};
use tabula_room::{
    Audience, ChatAuthor, Envelope, Event, Narration, PlayerResult, ResultKind, RoomView, SeatId,
};

use crate::ErrorCode;

/// One ranked play of a `hint` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
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

/// What the server says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
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
        /// What others see of this player (his name above all), as
        /// `GET /api/players/{id}/profile` answers it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        profile: Option<crate::http::PlayerProfile>,
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
        #[schema(value_type = Object)]
        state: Box<RoomView>,
        /// The owner's time when it sent this (ms since the epoch): what
        /// a client counts the clocks' deadlines from, whatever its own
        /// device's clock says.
        #[serde(
            rename = "serverTime",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        server_time: Option<u64>,
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
        #[schema(value_type = Object)]
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
        /// The message as `key` (`gameWon`, `gameLost`, `gameDrawn`) and
        /// `params`, for a client to render in its player's language.
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        #[schema(ignore)]
        narration: Option<Narration>,
    },
    /// Seed 000's `opponent_left`.
    #[serde(rename = "opponent_left")]
    OpponentLeft {
        /// The room version.
        version: u64,
        /// The message (Russian).
        message: String,
        /// The message as `key` (`opponentLeft`) and `params`.
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        #[schema(ignore)]
        narration: Option<Narration>,
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
        /// The text (the arbiter's: Russian).
        text: String,
        /// The arbiter's line as `key` and `params` (none on a player's
        /// line), for a client to render in its player's language.
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        #[schema(ignore)]
        narration: Option<Narration>,
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
    /// Answer to `preview`: what the rest of the turn offers after the
    /// tentative steps, to this player only. Nothing changed and nobody
    /// else saw them (no `version`).
    #[serde(rename = "preview", rename_all = "camelCase")]
    Preview {
        /// The client's `seq`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// The tentative steps, as asked (`"24-18,18-13"`).
        #[serde(with = "crate::client::play_text")]
        #[schema(value_type = String)]
        play: Vec<(tabula_room::Spot, tabula_room::Spot)>,
        /// Whether they finish the turn: `turn` with them would be played.
        complete: bool,
        /// Dice still to play (empty when complete).
        dice_left: Vec<u8>,
        /// The legal next steps, as in `possibleMoves`.
        first_steps: Vec<String>,
        /// The rest of the turn, as in `possibleMoves`.
        sequences: Vec<String>,
    },
    /// Answer to `ping`.
    #[serde(rename = "pong")]
    Pong {
        /// The client's `seq`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// The node's time (ms since the epoch), to correct a device's
        /// clock by.
        #[serde(
            rename = "serverTime",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        server_time: Option<u64>,
    },
    /// The command (or `join`) whose `seq` is `for` was heard and is not
    /// answered yet: the room is moving to another node, or saving it is
    /// slow. Its answer follows; sent every second while it waits, so a
    /// waiting client is never left in silence (docs/protocol.md, *Waiting
    /// for an answer*). Not an answer, so it carries no `seq` (a client
    /// that takes any message with its `seq` for the answer is not misled).
    #[serde(rename = "pending", rename_all = "camelCase")]
    Pending {
        /// The waiting command's `seq` (absent for a `join` sent without).
        #[serde(rename = "for", default, skip_serializing_if = "Option::is_none")]
        for_seq: Option<u64>,
        /// How long it has waited so far, ms.
        waited_ms: u64,
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
            | ServerMsg::Pong { seq, .. }
            | ServerMsg::Hint { seq, .. }
            | ServerMsg::Preview { seq, .. }
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
            narration,
        } => ServerMsg::GameOver {
            version,
            seq,
            result: *result,
            points: *points,
            kind: *kind,
            message: message.clone(),
            narration: narration.clone(),
        },
        Event::OpponentLeft { message, narration } => ServerMsg::OpponentLeft {
            version,
            message: message.clone(),
            narration: narration.clone(),
        },
        Event::Chat {
            from,
            text,
            narration,
        } => ServerMsg::Chat {
            version,
            seq,
            from: from.clone(),
            text: text.clone(),
            narration: narration.clone(),
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
        let mut num = itoa::Buffer::new();
        let mut text = String::with_capacity(body.len() + 64);
        text.push_str(r#"{"type":"event","version":"#);
        text.push_str(num.format(env.version));
        if let Some(q) = seq {
            text.push_str(r#","seq":"#);
            text.push_str(num.format(q));
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
