//! Short nardy, i.e. standard backgammon, for Tabula.
//!
//! A pure rules engine in the style of wildbg and shakmaty: no IO, no clock,
//! no global RNG. Dice are an input ([`tabula_dice::Dice`]).
//!
//! * [`Position`]: a validated position with the side on roll. Internally the
//!   usual mover-relative board (`[i8; 26]`: index 25 is the mover's bar,
//!   1..=24 the mover's points numbered from its own side (home = 1..=6),
//!   positive = mover, negative = opponent, index 0 the opponent's bar as a
//!   negative count).
//! * Move generation: [`Position::legal_positions`] gives every distinct
//!   resulting position once (the hot path), [`Position::max_dice`] how many
//!   dice a full play uses, [`Position::legal_plays`] one [`Play`] per
//!   distinct result, with standard notation (`24/18 13/11`, `bar/22*`,
//!   `6/off`, `8/5(2)`), parsed by [`Position::parse_play`] (which also reads
//!   GNU Backgammon's compact forms such as `24/13` and `24/18*/13`).
//! * [`Turn`]: a step-by-step validator (one checker, one die at a time) with
//!   a typed [`StepError`] for every illegal step, including one that would
//!   leave a playable die unplayed.
//! * [`Position::play`] (checked) and [`Position::play_unchecked`].
//! * GNU Backgammon Position IDs: [`Position::from_gnubg_id`] and
//!   [`Position::gnubg_id`] (the 80-bit key, base64, 14 characters; the
//!   player on roll as in gnubg). The start position is `4HPwATDgc/ABMA`.
//! * An unchecked, serde-friendly [`Setup`] (the JSON form the CLI reads)
//!   validated into a [`Position`] with typed [`SetupError`]s.
//! * Outcomes under [`Scoring::Single`] (every game one point, the default)
//!   or [`Scoring::Gammons`] (1 / 2 / 3), see [`Options`].
//!
//! ```
//! use tabula_backgammon::Position;
//! use tabula_dice::Dice;
//!
//! let start = Position::initial();
//! assert_eq!(start.gnubg_id(), "4HPwATDgc/ABMA");
//! let dice = Dice::new(6, 5).unwrap();
//! assert_eq!(start.legal_positions(dice).len(), 7);
//! assert_eq!(start.max_dice(dice), 2);
//! let play = start.parse_play(dice, "24/18 18/13").unwrap();
//! let after = start.play(dice, &play).unwrap();
//! assert!(start.legal_positions(dice).contains(&after));
//! ```

mod gnubg_id;
mod movegen;
mod notation;
mod options;
mod play;
mod position;
mod selfplay;
mod setup;
mod turn;

pub use gnubg_id::PositionIdError;
pub use notation::{NotationError, Play, PlayError, Step, StepError};
pub use options::{OptionError, Options, Scoring};
pub use position::{BAR, OFF, Outcome, Position, Side, WinKind};
pub use selfplay::{GameSummary, random_game};
pub use setup::{Setup, SetupError, SideCounts};
pub use turn::Turn;
