//! Thud! rules engine (seed 003: Thud! in the Zillions rule language).
//!
//! Pure: no IO, no clock, no global RNG. In the style of `shakmaty`: an
//! unchecked [`Setup`] is validated into a [`Position`]; positions generate
//! [`Move`]s and are advanced with [`Position::play`] (checked) or
//! [`Position::play_unchecked`]. [`Round`] and [`Game`] hold the round and
//! two-round structure as data.
//!
//! # Board
//!
//! A 15×15 grid, files `a`–`o`, ranks `1`–`15`. Seed 003's `kill-positions`
//! remove 60 corner squares (ranks 1/15 lose five squares at each end, 2/14
//! four, 3/13 three, 4/12 two, 5/11 one) and the Thudstone `h8`, leaving 164
//! squares a piece may stand on. A killed square does not exist for ZoG, so
//! nothing enters, passes or jumps it. Start (seed `board-setup`): 32 dwarfs
//! on f1 g1 i1 j1 e2 k2 d3 l3 c4 m4 b5 n5 a6 o6 a7 o7 a9 o9 a10 o10 b11 n11
//! c12 m12 d13 l13 e14 k14 f15 g15 i15 j15, 8 trolls on g7 h7 i7 g8 i8 g9 h9
//! i9; dwarfs (ZoG's `White`, first in `turn-order`) move first.
//!
//! # Moves, and how the ZRF was read
//!
//! * **Dwarf move** (`shift`): any number of empty squares in one of the 8
//!   directions. Notation `Dg1-g5`.
//! * **Dwarf hurl** (`dwarf-N`, N = 1..7): the dwarf verifies N−1 friendly
//!   dwarfs directly behind it (opposite to the direction: the line is the
//!   mover plus those behind it, so the line must be **at least** N long),
//!   then N−1 empty squares ahead and a troll on the N-th square, which it
//!   captures by landing there. So a hurl of distance d needs a line of at
//!   least d dwarfs, and **distance 1 is allowed** (a lone dwarf next to a
//!   troll captures it). The seed stops at `dwarf-7`, but no longer hurl fits
//!   on the board (8 dwarfs + 7 empty squares + the troll = 16 > 15), so
//!   there is no extra cap. Notation `Dg1xg7`.
//! * **Troll step** (`troll-1`): one square onto an empty square; under the
//!   default [`CaptureRule::Zrf`] every dwarf adjacent to the landing square
//!   is captured (possibly none; the step needs no capture). Under
//!   [`CaptureRule::Classic`] the step captures none or exactly one adjacent
//!   dwarf, chosen by the trolls' player; each choice is a separate move.
//!   Notation `Th7-h6xg5xi5` (each capture, ascending square order).
//! * **Troll shove** (`troll-N`, N = 2..7): N−1 trolls directly behind the
//!   mover (a line of at least N), N empty squares ahead, the troll lands on
//!   the N-th and must have at least one dwarf next to it; every adjacent
//!   dwarf is captured (both capture rules). A one-square "shove" is just a
//!   step: the seed has no `troll-1` line check and no capture requirement
//!   for it. Distances above 7 cannot occur (needs 8 trolls + 8 squares).
//!   Notation as for a step; distance 1 = step, 2+ = shove.
//! * Nothing jumps a piece or the stone; all paths are over empty squares.
//! * Captures are never compulsory (the ZRF declares no priorities).
//!
//! # End of a round, scoring
//!
//! * The ZRF's `(loss-condition (White Black) stalemated)` is read as: the
//!   round ends when the side to move has no legal move (points still count
//!   material, as RULES.md's two-round scoring asks).
//! * The ZRF's `(draw-condition (White Black) repetition)` is read as ZoG's
//!   repetition: the round ends when the same position (pieces and side to
//!   move) occurs the third time ([`REPETITION_LIMIT`]).
//! * Also: one side has no pieces; agreement (propose + accept); and an
//!   optional limit of plies without a capture
//!   ([`Variant::max_plies_without_capture`], off by default as in the seed).
//! * Score: dwarf 1, troll 4 per piece left on the board; the player's points
//!   in a round are his side's material. Two rounds, sides swapped; the
//!   totals decide, equal totals are a draw.
//!
//! # JSON form of a position
//!
//! `{"turn":"dwarfs","dwarfs":["f1","g1",...],"trolls":["g7",...],"plies_since_capture":0}`
//! (see [`Setup`]; the last field is optional).
//!
//! # Example
//!
//! ```
//! use tabula_thud::{Move, Position, Setup};
//!
//! let start = Position::start();
//! assert_eq!(start.legal_moves().len(), 656);
//! let mv: Move = "Da6-b6".parse()?;
//! let next = start.play(&mv)?;
//! assert_eq!(next.plies_since_capture(), 1);
//!
//! let setup: Setup = serde_json::from_str(
//!     r#"{"turn":"trolls","dwarfs":["g5","i5"],"trolls":["h7"]}"#,
//! )?;
//! let p = Position::try_from(setup)?;
//! let step = p.parse_move("Th7-h6xg5xi5")?;
//! assert_eq!(step.captures().count(), 2);
//! assert!(p.play(&step)?.dwarfs().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod moves;
mod position;
mod round;
mod setup;
mod square;
mod variant;

pub use moves::{Move, MoveKind, ParseMoveError};
pub use position::{
    PlayError, Position, RepetitionKey, START_DWARFS, START_TROLLS, Score, SquareSet,
};
pub use round::{
    EndReason, Game, GameOutcome, REPETITION_LIMIT, Round, RoundError, RoundResult, Seat,
    outcome_of,
};
pub use setup::{MAX_DWARFS, MAX_TROLLS, Setup, SetupError};
pub use square::{BOARD_SIZE, GRID_SQUARES, ParseSideError, ParseSquareError, Piece, Side, Square};
pub use variant::{CaptureRule, Variant, VariantError};
