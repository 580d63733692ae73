//! Random self-play, reproducible from a seeded dice source.

use rand::Rng;
use tabula_dice::{Dice, DiceSource, SeededDice};

use crate::options::Options;
use crate::position::{Outcome, Position, Side};

/// How a random game went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameSummary {
    /// The result.
    pub outcome: Outcome,
    /// Turns played (each roll, including passes).
    pub turns: u32,
}

/// Plays one game of uniformly random legal plays (each distinct resulting
/// position equally likely) from the initial position. The opening roll is
/// rolled as in backgammon: each side one die, doubles re-rolled, the higher
/// die's owner moves first with both dice. `visit` sees every position
/// before it is played, with its roll and its distinct results.
///
/// Random play always ends in practice; a game is cut off (and returns
/// `None`) after `max_turns` turns.
pub fn random_game(
    dice: &mut SeededDice,
    options: &Options,
    max_turns: u32,
    mut visit: impl FnMut(&Position, Dice, &[Position]),
) -> Option<GameSummary> {
    let mut roll = loop {
        let r = dice.roll();
        if !r.is_double() {
            break r;
        }
    };
    let start = Position::initial();
    let mut pos = if roll.first() > roll.second() {
        start
    } else {
        Position {
            turn: Side::Black,
            ..start
        }
    };
    let mut finals = Vec::with_capacity(64);
    let mut turns = 0;
    loop {
        pos.legal_positions_into(roll, &mut finals);
        visit(&pos, roll, &finals);
        let k = dice.rng().random_range(0..finals.len());
        let next = finals[k];
        turns += 1;
        if let Some(outcome) = next.outcome(options.scoring) {
            return Some(GameSummary { outcome, turns });
        }
        if turns >= max_turns {
            return None;
        }
        pos = next.pass_turn();
        roll = dice.roll();
    }
}
