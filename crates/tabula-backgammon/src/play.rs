//! A position's legal plays: the fast generator's, the reference's, and a
//! play read from its notation.

use tabula_dice::Dice;

use crate::movegen::{self, apply};
use crate::notation::{NotationError, Play, PlayError, parse_notation};
use crate::position::{OFF, Position};
use crate::turn::{Turn, reference_plays};

impl Position {
    /// Every distinct position after a legal play of `dice` (the mover still
    /// on roll; call [`Position::pass_turn`] to hand over). When no play is
    /// legal the turn passes and the only result is the position itself
    /// (then [`Position::max_dice`] is 0).
    pub fn legal_positions(&self, dice: Dice) -> Vec<Position> {
        let mut out = Vec::with_capacity(64);
        movegen::generate(self, dice, &mut out);
        out
    }

    /// Alias of [`Position::legal_positions`]: every distinct resulting
    /// position once (wildbg's `all_positions_after_moving`).
    pub fn legal_moves(&self, dice: Dice) -> Vec<Position> {
        self.legal_positions(dice)
    }

    /// As [`Position::legal_positions`] into a reused buffer (cleared
    /// first); returns how many dice the play uses. Allocation-free once the
    /// buffer has grown.
    pub fn legal_positions_into(&self, dice: Dice, out: &mut Vec<Position>) -> usize {
        out.clear();
        movegen::generate(self, dice, out)
    }

    /// How many dice a legal play of `dice` uses (0 to 4): the max-dice rule.
    pub fn max_dice(&self, dice: Dice) -> usize {
        let mut out = Vec::with_capacity(64);
        movegen::generate(self, dice, &mut out)
    }

    /// One play for each distinct resulting position, with the position.
    /// Empty when no play is legal.
    pub fn legal_plays(&self, dice: Dice) -> Vec<(Play, Position)> {
        let (depth, plays) = reference_plays(self, dice);
        if depth == 0 { vec![] } else { plays }
    }

    /// Checks `play` step by step and returns the resulting position (mover
    /// still on roll).
    pub fn play(&self, dice: Dice, play: &Play) -> Result<Position, PlayError> {
        let mut turn = Turn::new(self, dice);
        for (index, s) in play.steps.iter().enumerate() {
            turn.step(s.from, s.die)
                .map_err(|error| PlayError::Step { index, error })?;
        }
        turn.finish()
    }

    /// Applies `play` without checking it. A play that is not legal here
    /// gives a meaningless position (but never panics).
    pub fn play_unchecked(&self, play: &Play) -> Position {
        let mut b = self.board;
        for s in &play.steps {
            let (i, d) = (s.from as usize, s.die as usize);
            if (1..=25).contains(&i) && b[i] > 0 {
                apply(&mut b, i, d);
            }
        }
        Position {
            board: b,
            turn: self.turn,
        }
    }

    /// Reads a play in notation (`24/18 13/11`, `bar/22*`, `6/off`,
    /// `8/5(2)`, and GNU Backgammon's compact forms `24/13`, `24/18*/13`)
    /// and returns the legal play it denotes for `dice`.
    pub fn parse_play(&self, dice: Dice, text: &str) -> Result<Play, NotationError> {
        let target = self.parse_result(dice, text)?;
        let plays = self.legal_plays(dice);
        if plays.is_empty() {
            return Ok(Play::default());
        }
        plays
            .into_iter()
            .find(|(_, p)| *p == target)
            .map(|(play, _)| play)
            .ok_or_else(|| NotationError::Illegal(text.to_string()))
    }

    /// Reads a play in notation (as [`Position::parse_play`]) and returns
    /// only its resulting position (mover still on roll), checked against
    /// the fast generator: cheaper when the steps are not needed.
    pub fn parse_result(&self, dice: Dice, text: &str) -> Result<Position, NotationError> {
        let hops = parse_notation(text)?;
        let mut b = self.board;
        for &(from, to) in &hops {
            let i = from as usize;
            if b[i] <= 0 {
                return Err(NotationError::NoChecker(text.to_string(), from));
            }
            b[i] -= 1;
            if to != OFF {
                let t = to as usize;
                if b[t] == -1 {
                    b[t] = 1;
                    b[0] -= 1;
                } else if b[t] < -1 {
                    return Err(NotationError::Illegal(text.to_string()));
                } else {
                    b[t] += 1;
                }
            }
        }
        let target = Position {
            board: b,
            turn: self.turn,
        };
        let mut finals = Vec::with_capacity(64);
        let max = movegen::generate(self, dice, &mut finals);
        if (max == 0 && hops.is_empty()) || (max > 0 && finals.contains(&target)) {
            Ok(target)
        } else {
            Err(NotationError::Illegal(text.to_string()))
        }
    }
}
