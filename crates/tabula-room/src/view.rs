//! The full-state projection of a room (the wire's `state` message body).

use serde::{Deserialize, Serialize};

use std::collections::VecDeque;

use crate::event::{BotNeed, Envelope, Event, Phase};
use crate::game::{Action, BoardView, Cube, GameKind, GameOptions};
use crate::result::GameResult;
use crate::types::{BotLevel, PlayerId, SeatId, Stake};

/// One seat as everyone may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatView {
    /// The human in it.
    pub player: Option<PlayerId>,
    /// The bot level, if a bot holds it.
    pub bot: Option<BotLevel>,
    /// Pressed Ready (for the next game).
    pub ready: bool,
    /// When a disconnected player forfeits (millis), if disconnected.
    pub disconnect_deadline: Option<u64>,
}

/// The legal continuations of the turn being played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovesView {
    /// The seat on move.
    pub seat: SeatId,
    /// Dice not yet played.
    pub dice_left: Vec<u8>,
    /// Distinct legal next steps.
    pub first_steps: Vec<String>,
    /// One canonical sequence per distinct final position.
    pub sequences: Vec<String>,
}

/// Who must act and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToAct {
    /// The seat.
    pub seat: SeatId,
    /// `roll`, `move`, `cubeDecision` or `endProposal`.
    pub need: BotNeed,
}

/// A room's full state at its current version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomView {
    /// The room version this state is at.
    pub version: u64,
    /// The phase.
    pub phase: Phase,
    /// The game.
    pub game: GameKind,
    /// Its variant options.
    pub options: GameOptions,
    /// The stake per point.
    pub stake: Option<Stake>,
    /// Match length in points.
    pub match_length: u32,
    /// Match score of seats A and B.
    pub score: [u32; 2],
    /// Seats A and B.
    pub seats: [SeatView; 2],
    /// Spectators.
    pub spectators: Vec<PlayerId>,
    /// 1-based number of the current (or last) game; 0 before the first.
    pub game_number: u32,
    /// The board, once a game has started.
    pub board: Option<BoardView>,
    /// Who must act now.
    pub to_act: Option<ToAct>,
    /// The cube.
    pub cube: Option<Cube>,
    /// The dice rolled this turn.
    pub dice: Option<[u8; 2]>,
    /// The legal continuations while a seat is moving.
    pub moves: Option<MovesView>,
    /// `SHA-256(server_seed)` of the current game.
    pub commitment: Option<String>,
    /// The last finished game's result.
    pub last_result: Option<GameResult>,
    /// A game against a bot waiting for its absent player
    /// ([`Room::paused`](crate::Room::paused)); on the wire only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    /// The room's latest chat lines, oldest first (at most [`CHAT_KEEP`];
    /// on the wire only when there are some).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<ChatLine>,
    /// The seat that asks to take back its last turn, while it waits for
    /// an answer (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takeback: Option<SeatId>,
    /// The seats that have asked for a rematch of the finished match
    /// (on the wire only when some have).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rematch: Vec<SeatId>,
    /// The room's match number: 1, then 2 after the first rematch, …
    /// (on the wire only after a rematch).
    #[serde(default = "first_match", skip_serializing_if = "is_first_match")]
    pub match_number: u32,
    /// Every action of the current (or last) game so far, in order, as
    /// its record will hold them: the move log of a player who reopens
    /// the game or a spectator who joins late (on the wire only when
    /// there are some).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    /// The room's games count for ratings (absent when casual).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// The room's time control (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<crate::clock::TimeControl>,
    /// The clocks under a time control (absent without one): the banks
    /// and the running period, in the server's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clock::ClockView>,
}

fn first_match() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
fn is_first_match(n: &u32) -> bool {
    *n == 1
}

/// What [`Room::view`](crate::Room::view) shows from past events (this turn's dice and
/// offer, the last game's result), kept up to date as each event is
/// emitted: the view reads it instead of scanning the log back, and it
/// outlives the events the log drops.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recent {
    /// The dice of this turn: the latest `diceRolled` (or the opening roll
    /// that is the first move, or the roll a takeback gives back); `[0, 0]` after `turnStarted` or
    /// `gameStarted`, before the roll.
    dice: Option<[u8; 2]>,
    /// The version of the latest `possibleMoves` after those dice.
    moves_at: Option<u64>,
    /// That event once the log has dropped it (moved here, not copied).
    moves_dropped: Option<Envelope>,
    /// The latest `gameEnded`'s result.
    last_result: Option<GameResult>,
    /// The latest [`CHAT_KEEP`] chat lines (shared with the log).
    chat: VecDeque<Envelope>,
}

/// How many of its latest chat lines a room shows in its state (a player
/// who reopens the app sees the conversation; seed 002 keeps a room's
/// chat).
pub const CHAT_KEEP: usize = 50;

/// A chat line in the state, as the `chat` message carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The room version of the line.
    pub version: u64,
    /// Who wrote it.
    pub from: crate::event::ChatAuthor,
    /// The text.
    pub text: String,
    /// The arbiter's line as `key` and `params` (absent for a player's
    /// line, and in states written before keys existed).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub narration: Option<crate::narration::Narration>,
}

impl Recent {
    /// Takes in the room's next event.
    pub(crate) fn observe(&mut self, e: &Envelope) {
        match &*e.event {
            Event::PossibleMoves { .. } => {
                self.moves_at = Some(e.version);
                self.moves_dropped = None;
            }
            Event::DiceRolled { dice, .. }
            | Event::OpeningRoll {
                first_roll: Some(dice),
                ..
            }
            | Event::TakebackAccepted {
                dice: Some(dice), ..
            } => self.new_dice(*dice),
            Event::TurnStarted { .. } | Event::GameStarted { .. } => self.new_dice([0, 0]),
            Event::GameEnded { result, .. } => self.last_result = Some(result.clone()),
            Event::Chat { .. } if e.to == crate::event::Audience::All => {
                if self.chat.len() == CHAT_KEEP {
                    self.chat.pop_front();
                }
                self.chat.push_back(e.clone());
            }
            _ => {}
        }
    }

    fn new_dice(&mut self, dice: [u8; 2]) {
        self.dice = Some(dice);
        self.moves_at = None;
        self.moves_dropped = None;
    }

    /// Takes the event the log is dropping if the view still needs it.
    pub(crate) fn dropped(&mut self, e: Envelope) {
        if self.moves_at == Some(e.version) {
            self.moves_dropped = Some(e);
        }
    }

    /// This turn's dice, if rolled (`[0, 0]` before the roll).
    pub(crate) fn dice(&self) -> Option<[u8; 2]> {
        self.dice
    }

    /// The latest `gameEnded`'s result.
    pub(crate) fn last_result(&self) -> Option<&GameResult> {
        self.last_result.as_ref()
    }

    /// The latest [`CHAT_KEEP`] chat lines, oldest first.
    pub(crate) fn chat(&self) -> &VecDeque<Envelope> {
        &self.chat
    }

    /// The latest `possibleMoves` after this turn's dice, as the view
    /// shows it.
    pub(crate) fn moves(&self, log: &VecDeque<Envelope>) -> Option<MovesView> {
        let at = self.moves_at?;
        let env = match &self.moves_dropped {
            Some(e) => e,
            None => {
                let first = log.front()?.version;
                log.get(usize::try_from(at.checked_sub(first)?).ok()?)?
            }
        };
        match &*env.event {
            Event::PossibleMoves {
                seat,
                dice_left,
                first_steps,
                sequences,
            } => Some(MovesView {
                seat: *seat,
                dice_left: dice_left.clone(),
                first_steps: first_steps.clone(),
                sequences: sequences.clone(),
            }),
            _ => None,
        }
    }
}
