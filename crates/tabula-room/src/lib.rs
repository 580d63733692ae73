//! Tabula's room core: a deterministic state machine
//! `(room, command, now) -> (room, events)` for long nardy, backgammon
//! (short nardy) and Thud!.
//!
//! Pure: no IO, no clock (time is `now`, milliseconds, passed in), no global
//! RNG (dice come from [`fair`], derived from seeds that are inputs).
//!
//! * [`Room`]: seats (players or a bot at a level), spectators, Ready,
//!   games of a match, the doubling cube and Crawford rule, Thud!'s two
//!   rounds, disconnect grace timers ([`Room::tick`],
//!   [`Room::next_deadline`]), chat with the arbiter's lines, the event log
//!   with a rising version, and [`Room::snapshot`] / [`Room::restore`].
//! * [`Command`] in, [`Envelope`]s ([`Event`] + version + [`Audience`])
//!   out; a refused command returns a [`RoomError`] and changes nothing.
//! * [`fair`]: the provably-fair dice derivation; [`GameRecord`] and
//!   [`verify`] (the library behind `tabula verify`); [`replay()`]: a
//!   finished game's positions as [`Frame`]s to step through.
//! * [`PlayerStats`]: statistics aggregated from the `stats` events.
//!
//! # Flow of a dice game
//!
//! Both seats press Ready → `gameStarted` (commitment) → `openingRoll` (one
//! die each, ties rerolled; under `opening_roll_plays` the roll is the
//! starter's first move, followed by `possibleMoves`) → per turn:
//! `turnStarted` (may double) → `rollDice` → `diceRolled` + `possibleMoves`
//! → `move {from, to}` per step → `moved` + `possibleMoves` … → the next
//! `turnStarted`. A roll with no legal play gives `turnPassed` and the
//! arbiter's chat line. At the end: arbiter lines, `gameOver` to each seat,
//! `gameEnded` (the revealed server seed), `stats` to the host, and
//! `matchOver` when the match is decided.
//!
//! # Bots
//!
//! A bot seat never acts by itself: when it must act the room emits
//! `botRequest {seat, level, need}` to [`Audience::Host`]; the host answers
//! with an ordinary command from [`Actor::Bot`], validated like anyone's.

pub mod fair;

mod clock;
mod error;
mod event;
mod game;
mod narration;
mod policy;
mod record;
pub mod replay;
mod result;
mod room;
mod stake;
mod stats;
mod types;
mod view;

pub use clock::{
    ClockRecord, ClockView, DAY_MS, MAX_CORRESPONDENCE_DAYS, MAX_DELAY_MS, MAX_RESERVE_MS,
    MIN_DELAY_MS, RunningView, TimeControl, TurnTime,
};
pub use error::{EngineError, RoomError};
pub use event::{Audience, BotNeed, ChatAuthor, Envelope, Event, Phase, PlayerDelta};
pub use game::{
    Action, BoardView, Cube, Game, GameKind, GameOptions, GameSetup, MAX_CUBE, PlayedTurn,
    StartPosition,
};
pub use narration::{Narration, points_ru};
pub use policy::{
    BotRequest, DEFAULT_HINT_ROLLOUTS, HintRefusal, MAX_HINT_ROLLOUTS, hint_cost, hint_rollouts,
    hint_seed,
};
pub use record::{GameRecord, VerifiedGame, VerifyError, played_turns, verify};
pub use replay::{Frame, played_turn_frames, replay, turn_notation};
pub use result::{EndReason, GameResult, GameSummary, PlayerResult, ResultKind};
pub use room::{Command, EVENT_LOG_KEEP, Input, Room, RoomConfig, RoomSnapshot};
pub use stake::{MAX_STAKE_AMOUNT, StakeError};
pub use stats::{LevelStats, PlayerStats};
pub use types::{Actor, BotLevel, PlayerId, SeatId, Spot, Stake};
pub use view::{CHAT_KEEP, ChatLine, MovesView, RoomView, SeatView, ToAct};
