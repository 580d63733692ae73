//! Long nardy rules engine for Tabula.
//!
//! The rules are RULES.md's "Long nardy" section (which replaces seed 000's
//! spec and names every disagreement between seeds as a [`Variant`]
//! option). The crate is pure: no IO, no clock, no global RNG; dice are an
//! input ([`tabula_dice::Dice`], [`tabula_dice::DiceSource`]).
//!
//! # Numbering
//!
//! Every edge (JSON, CLI, notation, errors) uses seed 000's numbering:
//! points 1..=24; white's head is 24, white moves 24 → 1, home 1–6; black's
//! head is 12, black moves 12 → 1 → 24 → 13, home 13–18. Black's point
//! 12+N is N pips from the edge (13 → 1, 18 → 6). Steps are written
//! `24-18`, bear-offs `5-off`, sequences `24-20,20-18`.
//!
//! Inside, a [`Position`] keeps a mover-relative board indexed by the
//! mover's route index (white r = 24 - p, black r = (12 - p) mod 24; 0 is
//! the head, 18..=23 home): positive counts are the mover's, negative the
//! opponent's. The opponent's route index of a point is the mover's + 12
//! mod 24, so passing the turn rotates the board by 12 and negates it.
//!
//! # The rules implemented
//!
//! * No landing on a point holding any opponent checker; no hitting.
//! * Doubles play four times.
//! * Head rule: at most one checker leaves the head per turn; on a player's
//!   own first turn (see [`Position`] for how both flags are kept) 6-6, 4-4
//!   and 3-3 let two leave. White's first 6-6 is exactly `24-18,24-18`.
//! * As many dice as possible must be played; if only one die can be, the
//!   larger when it can. A sequence that bears off the last checker is
//!   complete even with dice left (and counts as playing them all).
//! * Six-block rule, checked after every single step, runs counted along
//!   the opponent's route and never across its end; allowed under
//!   [`PrimeRule::OpponentAhead`] (default) only if an opponent checker has
//!   passed the block (borne-off checkers count), under
//!   [`PrimeRule::OpponentHome`] only if the opponent has a checker home.
//! * Bearing off once all 15 are home (borne off included): the exact die,
//!   or a larger die from the farthest occupied home point; moving inside
//!   home instead is always allowed when legal.
//! * Results: oin / mars / koks per [`Scoring`] ([`Position::outcome`],
//!   [`resign_outcome`], koks reading in [`is_koks`]).
//!
//! # Generators
//!
//! * [`Position::legal_moves`]: the distinct final positions (opponent to
//!   move) — the fast path for bots, perft and benchmarks.
//! * [`Position::moves`]: everything seed 000 asks for — all complete
//!   sequences, distinct finals with a canonical sequence, `max_dice`,
//!   first steps.
//! * [`Turn`]: a turn step by step, with a typed [`StepError`] saying why a
//!   step is refused.
//!
//! # Perft
//!
//! For a dice game, perft counts the leaves of the tree where each ply is a
//! roll and a play: `perft(p, 0) = 1`; a finished game has no plies
//! (`perft = 0` for depth ≥ 1); otherwise `perft(p, d)` is the sum over the
//! 21 distinct rolls of `perft_roll(p, roll, d)`, where `perft_roll` at
//! depth 1 is the number of distinct final positions of that roll (a roll
//! with no legal play counts 1, the pass) and deeper the sum of
//! `perft(final, d - 1)` over those finals, the opponent to move.

mod movegen;
mod moves;
mod notation;
mod opening;
mod outcome;
mod perft;
mod position;
mod selfplay;
mod turn;
mod variant;

use tabula_dice::Dice;

pub use moves::{Final, Moves};
pub use notation::{NotationError, Sequence, Step, Target};
pub use opening::{OpeningDecision, decide_opening};
pub use outcome::{Outcome, WinKind, is_koks, resign_outcome};
pub use perft::{perft, perft_divide, perft_roll};
pub use position::{
    CHECKERS, Color, OffCounts, Position, Setup, SetupError, point_of, route_index,
};
pub use selfplay::{RandomGame, play_random_game};
pub use turn::{StepError, Turn};
pub use variant::{Opening, PrimeRule, Scoring, Variant, VariantError};

impl Position {
    /// The distinct final positions of every legal play of `dice`, each with
    /// the opponent to move. A roll with no legal play gives the one passed
    /// position; a finished game gives none.
    pub fn legal_moves(&self, dice: Dice) -> Vec<Position> {
        let mut out = Vec::with_capacity(32);
        movegen::legal_finals(self, dice, &mut out);
        out
    }

    /// [`Position::legal_moves`], appending to a caller's buffer (no
    /// allocation once the buffer has grown).
    pub fn legal_moves_into(&self, dice: Dice, out: &mut Vec<Position>) {
        movegen::legal_finals(self, dice, out);
    }

    /// The full listing seed 000 asks for: every complete legal sequence,
    /// the distinct finals each with a canonical sequence, and `max_dice`.
    pub fn moves(&self, dice: Dice) -> Moves {
        moves::moves(self, dice)
    }

    /// The most dice a legal sequence of `dice` plays.
    pub fn max_dice(&self, dice: Dice) -> u8 {
        Turn::new(self, dice).max_dice()
    }

    /// The distinct legal first steps for `dice`.
    pub fn first_steps(&self, dice: Dice) -> Vec<Step> {
        Turn::new(self, dice).legal_steps()
    }

    /// Starts a step-by-step [`Turn`] with `dice`.
    pub fn turn_with(&self, dice: Dice) -> Turn {
        Turn::new(self, dice)
    }

    /// Applies `steps` for the mover **without any legality check** and
    /// passes the turn (for hot loops replaying known-legal sequences).
    /// Steps that name no mover checker are skipped rather than corrupting
    /// the board.
    pub fn play_unchecked(&self, steps: &[Step]) -> Position {
        let mut p = *self;
        for s in steps {
            if !(1..=24).contains(&s.from) {
                continue;
            }
            let r = route_index(p.turn, s.from);
            if p.board[r] <= 0 {
                continue;
            }
            p.board[r] -= 1;
            match s.to {
                Target::Point(t) if (1..=24).contains(&t) => {
                    p.board[route_index(p.turn, t)] += 1;
                }
                Target::Point(_) => p.board[r] += 1,
                Target::Off => p.off[0] += 1,
            }
        }
        p.pass_turn()
    }
}
