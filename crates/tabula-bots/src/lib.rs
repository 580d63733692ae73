//! Computer opponents for every Tabula game: Easy, Medium and Hard.
//!
//! The crate is pure: no IO, no clock, no global RNG. A [`Bot`] is built
//! from a [`Level`] and a seed, and every decision it makes is a function
//! of the position, the dice and its own seeded random stream, so the same
//! seed replays the same games on every machine. Each decision is one
//! method, for a [`Position`] that carries its game:
//! [`Bot::choose_play`] (a whole turn, a [`Play`]), [`Bot::offers_double`],
//! [`Bot::takes_double`] and [`Bot::accepts_end`]. Training the networks
//! is another crate's (`tabula-training`); this one only evaluates and
//! searches.
//!
//! Because there is no clock, thinking budgets are expressed as work, not
//! time: Hard nardy looks one ply ahead over the opponent's 21 rolls for at
//! most a fixed number of candidate plays ([`HARD_NARDY_CANDIDATES`]), Hard
//! backgammon looks a second roll ahead for its closest plays only within
//! a budget of positions ([`bg::HARD_BG_DEEP_BUDGET`]), and Hard Thud
//! searches alpha-beta within a node budget ([`HARD_THUD_NODES`]).
//! These were sized so a decision stays well inside the 100 ms
//! (p99) on the reference machine; see `RESULTS.md`.
//!
//! Every level picks among the engines' own legal plays only:
//! [`tabula_long::Position::legal_moves`] / [`tabula_long::Position::moves`],
//! [`tabula_backgammon::Position::legal_positions`] /
//! [`tabula_backgammon::Position::legal_plays`] and
//! [`tabula_thud::Position::legal_moves`].
//!
//! * **Easy**: a uniformly random legal play (distinct final positions are
//!   equally likely); never doubles, always takes.
//! * **Medium**: a one-ply greedy evaluation: race lead (pips), points made,
//!   hitting and blots (short nardy); in long nardy also checkers off,
//!   home, on the head. Thud: greedy on material (dwarf 1, troll 4).
//! * **Hard**: a neural network trained by self-play in each nardy game
//!   (long nardy [`long::net`], with mars and koks outputs so it plays for
//!   points; short nardy [`bg::net`], with gammon outputs, counted only
//!   where the game scores gammons: [`Bot::with_backgammon_scoring`])
//!   ranks every play, and the best few
//!   (long nardy: those within [`long::FILTER_EQUITY`] of the best, as
//!   gnubg filters) are searched one roll deeper: the opponent's best
//!   reply by the network to each of his 21 rolls. In short nardy up to
//!   four of the best plays by that search, when close, are judged a roll
//!   deeper still (gnubg's 2-ply: [`bg::search::two_ply`]). Long nardy's hand-made
//!   evaluation and expectimax that Hard used before the network stay as
//!   [`Bot::with_classic_long`], to measure against.
//!   Once both sides are bearing off (every checker of each in his home
//!   board, so no contact is left), Hard in both nardy games plays by the
//!   exact one-sided bear-off database instead ([`bearoff`]): the play
//!   with the best race equity, gammons / mars counted where the scoring
//!   counts them. Thud: iterative-deepening alpha-beta with a node budget.
//!
//! An immediate win is always taken at Medium and Hard.

pub mod analysis;
pub mod bearoff;
pub mod bg;
mod bot;
pub mod error_rate;
pub mod hint;
mod level;
pub mod long;
pub mod nn;
mod pick;
pub mod thud;

pub use bot::{Bot, Play, Position};
pub use level::{HARD_NARDY_CANDIDATES, HARD_THUD_NODES, Level, ParseLevelError};
