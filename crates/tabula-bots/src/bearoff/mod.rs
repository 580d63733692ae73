//! Exact one-sided bear-off databases for long nardy and backgammon, as
//! GNU Backgammon's one-sided bear-off database (`gnubg_os0.bd`, made by
//! its `makebearoff`) defines them.
//!
//! For every position of up to 15 checkers on a side's six home points
//! (C(21, 6) = [`POSITIONS`] = 54,264 of them, numbered as gnubg's
//! `PositionBearoff` numbers them, so index 0 is "all off", 1..=6 one
//! checker on the 1- to 6-point, 54,263 fifteen on the 6-point), the table
//! holds:
//!
//! * the expected number of rolls to bear every checker off, and the
//!   distribution of that number (P(done in exactly k rolls)), the mover
//!   choosing for each roll the play that minimises the expected rolls left
//!   (the one-sided optimum, as gnubg's `makebearoff` does);
//! * for positions with all 15 checkers still on the board, the same for the
//!   roll on which the **first** checker comes off (the mover now minimising
//!   the expected rolls to get one off), which gives the chance of a gammon
//!   (backgammon) or mars (long nardy: the loser has borne off none); any
//!   position with a checker already off has it at 0 rolls. gnubg keeps the
//!   same second distribution ("bearing at least one chequer off").
//!
//! A distribution is kept from its first possible roll to the roll after
//! which less than [`TAIL`] (1e-9) of its mass remains; the dropped tail is
//! counted as done at the last kept roll, so [`Dist::within`] reaches 1
//! there. The longest kept distribution ends at 21 rolls (fifteen on the
//! 6-point); the exact supports are finite and the build checks they stay
//! under [`MAX_ROLLS`] (gnubg keeps a fixed 32). Means are computed from
//! the untruncated distributions in `f64`; kept probabilities are `f32`.
//! Where two plays leave exactly equal expected rolls (within 1e-12) the
//! one whose final position has the lower index is taken, so the table
//! never depends on the order plays are generated in.
//!
//! **Both games share one table.** With both sides' checkers all in their
//! home boards nothing of the opponent can be in the way (backgammon: no
//! contact; long nardy: the opponent's home is the other half of the
//! route), and the two rulebooks bear off alike: a die equal to a checker's
//! distance bears it off, a larger die bears off only from the farthest
//! occupied point, moving inside home is always allowed, doubles play four
//! times, and the turn ends when the last checker is off. Long nardy's
//! six-block rule never forbids a home-board move here (under
//! `opponent_ahead` every opponent checker has passed the block; under
//! `opponent_home` the opponent has checkers home). The generator here
//! ([`successors`]) is proved equal to **both** engines' own move
//! generation, on every position and every roll, by this crate's tests
//! (`tests/bearoff.rs`), which also rebuild the whole table through each
//! engine's generator and compare it with this one, and compare it with
//! gnubg's own `gnubg_os0.bd` where GNU Backgammon is installed.
//!
//! The table is built at first use ([`Table::shared`]) rather than
//! checked in: about 50 ms on the shared 2-vCPU development machine
//! (`cargo run --release -p tabula-bots --example bearoff_build`;
//! RESULTS.md), 4.1 MB in memory (603,098 `f32` probabilities, two `f64`
//! means and two spans per position). `tabula bearoff --out` writes it in
//! gnubg's file format (1.4 MB) for anyone who wants to look.
//!
//! [`race`](Table::race) turns two one-sided distributions into the chances
//! of a bear-off race with one side on roll (as gnubg's one-sided bear-off
//! evaluation does: the sides' roll counts independent, each side playing
//! its one-sided optimum); [`long_race`] and [`bg_race`] read them off a
//! game position once both sides are bearing off.

mod board;
mod race;
mod table;

pub use board::{
    Board, CHECKERS, MAX_ROLLS, POINTS, POSITIONS, TAIL, boards, checkers, index, steps, successors,
};
pub use race::{
    bg_after, bg_board, bg_equity, bg_race, long_board, long_equity, long_gammon_value, long_race,
};
pub use table::{Dist, Race, Table};
