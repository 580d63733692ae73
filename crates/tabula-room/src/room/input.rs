//! What a room is made of and fed: its configuration, the commands, the
//! inputs a snapshot keeps.

use serde::{Deserialize, Serialize};

use crate::clock::TimeControl;
use crate::game::{GameOptions, StartPosition};
use crate::types::{Actor, BotLevel, PlayerId, SeatId, Spot, Stake};

/// How a room is set up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RoomConfig {
    /// The game and its variant options.
    pub options: GameOptions,
    /// The stake shown in `game_over` messages (per point).
    pub stake: Option<Stake>,
    /// Match length in points (1 = a single game). Thud! is always one game.
    pub match_length: u32,
    /// The cube is used when `match_length` is at least this (default 3).
    pub cube_from_match_length: u32,
    /// Disconnect grace period in milliseconds (default 30 000).
    pub grace_ms: u64,
    /// A bot in seat B at this level.
    pub bot: Option<BotLevel>,
    /// When a seated player leaves a game in progress (the disconnect
    /// grace runs out, or `leave` / stand up), a bot at this level takes
    /// the seat and plays on, instead of the game being forfeited.
    pub replace_leaver: Option<BotLevel>,
    /// The secret master seed; each game's server seed is derived from it
    /// ([`crate::fair::game_server_seed`]).
    pub master_seed: String,
    /// The longest chat line in characters (default 500).
    pub chat_max_chars: usize,
    /// Start every game from this position (tests, lessons).
    pub start_position: Option<StartPosition>,
    /// Scripted dice instead of the fair derivation (tests and training
    /// only; the game records carry the script).
    pub dice_script: Option<Vec<[u8; 2]>>,
    /// A game against a bot pauses while its player is away, instead of
    /// running his disconnect grace (seed 001: a game against the computer
    /// is continued later, never forfeited for absence). New rooms have it;
    /// a snapshot written before it existed reads as `false`, so its log
    /// replays as it was played.
    #[serde(default = "before_pauses")]
    pub pause_vs_bot: bool,
    /// The clocks ([`crate::clock`]); `None`: no clock (the default, and
    /// what a snapshot written before clocks reads as).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// The room's games count for ratings (issue 24: quick match between
    /// people; an invite when its creator asks). Nothing in the rules
    /// depends on it; a game with a bot in a seat is never rated,
    /// whatever this says. A snapshot without it reads as casual.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// The only players who may sit (a challenge accepted in Telegram
    /// names both); anyone else who joins watches. `None`: anyone may
    /// sit, as before (and what a snapshot without it reads as).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Vec<PlayerId>>,
    /// Under a correspondence clock, the next game of a match starts as
    /// soon as one ends, without both players pressing Ready: they are
    /// rarely in the app at once, and no clock runs between games, so a
    /// match that waited for both could wait for ever. New rooms have it;
    /// a snapshot written before it existed reads as `false`, so its log
    /// replays as it was played.
    #[serde(default = "before_next_game_at_once")]
    pub next_game_at_once: bool,
}

/// What a snapshot without `pauseVsBot` was played under.
fn before_pauses() -> bool {
    false
}

/// What a snapshot without `nextGameAtOnce` was played under.
fn before_next_game_at_once() -> bool {
    false
}

impl Default for RoomConfig {
    fn default() -> RoomConfig {
        RoomConfig {
            options: GameOptions::default(),
            stake: None,
            match_length: 1,
            cube_from_match_length: 3,
            grace_ms: 30_000,
            bot: None,
            replace_leaver: None,
            master_seed: String::new(),
            chat_max_chars: 500,
            start_position: None,
            dice_script: None,
            pause_vs_bot: true,
            time_control: None,
            rated: false,
            players: None,
            next_game_at_once: true,
        }
    }
}

/// A command to the room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Command {
    /// Take a seat (`None`: the first free one).
    Sit {
        /// The seat wanted.
        seat: Option<SeatId>,
    },
    /// Watch.
    Spectate,
    /// Leave the seat; during a game this is a resignation (seed 002).
    StandUp,
    /// Leave the room; during a game the opponent wins and gets
    /// `opponentLeft`.
    Leave,
    /// Ready to start (seed 002).
    Ready,
    /// Set one's client seed for the next game.
    SetClientSeed {
        /// The seed.
        seed: String,
    },
    /// Roll the dice.
    RollDice,
    /// One step (seed 000's `move {from, to}`).
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
    /// A whole dice turn at once (the client confirmed it after any
    /// undo): every step of the roll, in order. Applied only if every step
    /// is legal and together they finish the turn; otherwise nothing
    /// changes. Its events are those of the steps, without the
    /// `possibleMoves` between them.
    Turn {
        /// The steps.
        steps: Vec<(Spot, Spot)>,
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
    /// Thud!: decline (or withdraw) the proposal.
    DeclineEnd,
    /// A chat line.
    Chat {
        /// The text.
        text: String,
    },
    /// Ask to take back the turn just played (casual games between two
    /// people, before the opponent acts).
    Takeback,
    /// Accept the opponent's takeback.
    AcceptTakeback,
    /// Decline the opponent's takeback, or withdraw one's own.
    DeclineTakeback,
    /// After a finished match between two people: ask for a rematch (the
    /// same options, colours swapped). It starts when both have asked.
    Rematch,
    /// Decline the opponent's rematch offer, or withdraw one's own.
    DeclineRematch,
    /// The player's connection came back.
    Connected,
    /// The player's connection dropped.
    Disconnected,
}

/// One accepted input, as kept in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Input {
    /// An accepted command.
    Apply {
        /// The command.
        command: Command,
        /// Who sent it.
        actor: Actor,
        /// When.
        now: u64,
    },
    /// A tick that fired a timer.
    Tick {
        /// When.
        now: u64,
    },
    /// A new owner restored the room with a clock running
    /// ([`Room::resume_clock`](crate::Room::resume_clock)).
    Resume {
        /// When.
        now: u64,
    },
}

/// A room snapshot: the configuration and every accepted input. The room is
/// a deterministic function of these, so [`Room::restore`] replays them
/// and gets the exact room back, mid-turn included, with the same event
/// log and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomSnapshot {
    /// The configuration.
    pub config: RoomConfig,
    /// Accepted inputs in order.
    pub inputs: Vec<Input>,
    /// The room version at the snapshot (checked on restore).
    pub version: u64,
}
