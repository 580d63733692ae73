//! The one trait behind which each game's rules sit, and the facts its
//! methods return to the shared flow of [`super::Game`].

use tabula_dice::Dice;

use super::{BoardView, GameOptions, StartPosition};
use crate::error::RoomError;
use crate::event::BotNeed;
use crate::narration::Seats;
use crate::result::ResultKind;
use crate::types::{SeatId, Spot};

/// The rules of one game, as the shared flow of [`Game`] needs them.
///
/// Two kinds of game fit: dice games (`DICE`: long nardy, backgammon),
/// which [`Game`] runs through the opening roll, rolls, steps and the
/// cube, calling `opening`, `set_starter`, `begin_turn`, `step`,
/// `borne_off`, `outcome` and `turn`; and games that keep their own turn
/// order (Thud!), which take moves in notation through `play`, the
/// end-of-round proposal, `round_over` and `to_act`. The defaults refuse
/// with [`RoomError::WrongGame`] or answer "nothing": an engine implements
/// what its kind uses. Every method is pure and deterministic: records
/// and snapshots are replayed through it.
pub(crate) trait Engine: Sized {
    /// How the arbiter names the seats.
    const SEATS: Seats;
    /// Played with dice (and the cube where the match has one).
    const DICE: bool;
    /// A match is always one game, whatever its length.
    const ONE_GAME: bool;

    /// The initial position.
    fn new(options: &GameOptions) -> Self;

    /// A start position other than the initial one, checked, and who moves
    /// first in it. The default: this game has none.
    fn from_start(
        _start: &StartPosition,
        _options: &GameOptions,
    ) -> Result<(Self, SeatId), RoomError> {
        Err(other_game())
    }

    /// How the opening roll decides who starts.
    fn opening(&self, _options: &GameOptions) -> tabula_long::Opening {
        tabula_long::Opening::default()
    }

    /// The opening roll made `starter` the first to move.
    fn set_starter(&mut self, _starter: SeatId, _options: &GameOptions) {}

    /// The mover rolled `dice`: either no legal play (the engine has passed
    /// the turn) or the moves offered (the engine holds the turn).
    fn begin_turn(&mut self, _dice: Dice) -> Result<Turn, RoomError> {
        Err(RoomError::WrongGame)
    }

    /// One step of the turn being played. Refused: nothing changes.
    fn step(&mut self, _from: Spot, _to: Spot) -> Result<Stepped, RoomError> {
        Err(RoomError::WrongGame)
    }

    /// Checkers borne off by seats A and B; `None` where nothing is.
    fn borne_off(&self) -> Option<[u8; 2]> {
        None
    }

    /// The result once the position is won (all borne off).
    fn outcome(&self, _options: &GameOptions) -> Option<Outcome> {
        None
    }

    /// The result when `seat` resigns now.
    fn resign(&self, seat: SeatId, options: &GameOptions) -> Outcome;

    /// The board as the wire shows it (mid-turn included).
    fn view(&self) -> BoardView;

    /// The turn being played by `seat` (dice games): the roll, the start
    /// position and the steps so far.
    fn turn(&self, _seat: SeatId) -> Option<PlayedTurn> {
        None
    }

    /// Who must act next and how (games with their own turn order).
    fn to_act(&self) -> Option<(SeatId, BotNeed)> {
        None
    }

    /// `seat` plays a move in notation. Refused: nothing changes.
    fn play(&mut self, _seat: SeatId, _notation: &str) -> Result<Played, RoomError> {
        Err(RoomError::WrongGame)
    }

    /// `seat` proposes to end the round.
    fn propose_end(&mut self, _seat: SeatId) -> Result<(), RoomError> {
        Err(RoomError::WrongGame)
    }

    /// `seat` accepts the other's proposal.
    fn accept_end(&mut self, _seat: SeatId) -> Result<(), RoomError> {
        Err(RoomError::WrongGame)
    }

    /// `seat` declines (or withdraws) the proposal.
    fn decline_end(&mut self, _seat: SeatId) -> Result<(), RoomError> {
        Err(RoomError::WrongGame)
    }

    /// `seat`'s clock ran out (games with their own turn order, whose
    /// timeout ends a round rather than the game; [`super::Game`] makes a
    /// dice game's timeout a resignation). Then `round_over` says how.
    fn time_out(&mut self, _seat: SeatId) -> Result<(), RoomError> {
        Err(RoomError::WrongGame)
    }

    /// After a move or an accepted proposal: the round that just ended,
    /// if one did (the engine has started the next round, or the game is
    /// over and the outcome says how).
    fn round_over(&mut self) -> Option<RoundOver> {
        None
    }

    /// [`Engine::SEATS`] of the engine a value holds.
    fn seats(&self) -> Seats {
        Self::SEATS
    }

    /// [`Engine::DICE`] of the engine a value holds.
    fn dice(&self) -> bool {
        Self::DICE
    }

    /// [`Engine::ONE_GAME`] of the engine a value holds.
    fn one_game(&self) -> bool {
        Self::ONE_GAME
    }
}

/// The moves offered to the mover (a `possibleMoves` event's body).
#[derive(Debug)]
pub(crate) struct Moves {
    /// Dice not yet played.
    pub dice_left: Vec<u8>,
    /// Distinct legal next steps, in notation.
    pub first_steps: Vec<String>,
    /// One sequence per distinct final position.
    pub sequences: Vec<String>,
}

/// The start of a dice turn.
#[derive(Debug)]
pub(crate) enum Turn {
    /// No legal play: the turn has passed to the other seat.
    Passed,
    /// These moves are offered.
    Moves(Moves),
}

/// One step played.
#[derive(Debug)]
pub(crate) struct Stepped {
    /// The step in the game's notation.
    pub notation: String,
    /// It hit a blot.
    pub hit: bool,
    /// What is offered next; `None`: the turn is complete.
    pub next: Option<Moves>,
}

/// A move in notation, played.
#[derive(Debug)]
pub(crate) struct Played {
    /// The move as the engine writes it.
    pub notation: String,
    /// Pieces it captured.
    pub captured: u32,
}

/// A round that ended (Thud!).
#[derive(Debug)]
pub(crate) struct RoundOver {
    /// 1 or 2.
    pub round: u32,
    /// Why, as the engine spells it.
    pub reason: String,
    /// Points of seats A and B this round.
    pub points: [u32; 2],
    /// The game's outcome when this was the last round.
    pub outcome: Option<Outcome>,
}

/// How a game ended, before the cube and the reason are applied.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The winner; `None` for a draw.
    pub winner: Option<SeatId>,
    /// The kind of win.
    pub kind: ResultKind,
    /// Points before the cube.
    pub base: u32,
    /// Thud!: totals of seats A and B.
    pub thud_totals: Option<[u32; 2]>,
}

impl Outcome {
    /// `winner` won `kind` for `base` points.
    pub(crate) fn won(winner: SeatId, kind: ResultKind, base: u32) -> Outcome {
        Outcome {
            winner: Some(winner),
            kind,
            base,
            thud_totals: None,
        }
    }
}

/// The refusal of a start position meant for another game.
pub(super) fn other_game() -> RoomError {
    RoomError::BadStartPosition("the start position is for another game".into())
}

/// The refusal of a `move {from, to}` the game cannot read.
pub(super) fn bad_points(from: Spot, to: Spot) -> RoomError {
    RoomError::BadPoints {
        from: from.to_string(),
        to: to.to_string(),
    }
}

/// One turn of a finished dice game, as played: who, the roll, the position
/// before the first step (the mover on roll) and the steps, in the engine's
/// own terms (long nardy: seed-000 numbering; backgammon: the mover's
/// numbering, 25 = bar, 0 = off). The input of replay analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlayedTurn {
    /// Long nardy.
    LongNardy {
        /// Who played.
        seat: SeatId,
        /// The roll.
        dice: tabula_dice::Dice,
        /// The position before the first step.
        start: tabula_long::Position,
        /// The steps played.
        steps: Vec<tabula_long::Step>,
    },
    /// Backgammon.
    Backgammon {
        /// Who played.
        seat: SeatId,
        /// The roll.
        dice: tabula_dice::Dice,
        /// The position before the first step.
        start: tabula_backgammon::Position,
        /// The steps played, `(from, to)`.
        steps: Vec<(u8, u8)>,
    },
}

impl PlayedTurn {
    /// No step played yet.
    pub(crate) fn is_unplayed(&self) -> bool {
        match self {
            PlayedTurn::LongNardy { steps, .. } => steps.is_empty(),
            PlayedTurn::Backgammon { steps, .. } => steps.is_empty(),
        }
    }
}
