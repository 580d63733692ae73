//! Random self-play: every turn a uniformly random distinct final position.
//! Dice and choices both come from one injected [`SeededDice`], so a seed
//! replays the same game.

use rand::Rng;
use tabula_dice::{DiceSource, SeededDice};

use crate::opening::decide_opening;
use crate::outcome::Outcome;
use crate::position::Position;
use crate::variant::Variant;

/// A finished (or abandoned) random game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RandomGame {
    /// The last position.
    pub last: Position,
    /// The result, `None` if `max_plies` ran out first.
    pub outcome: Option<Outcome>,
    /// Plies played (passes included).
    pub plies: u32,
    /// Final positions generated along the way (the sum of the choice
    /// counts).
    pub generated: u64,
}

/// Plays one random game under `variant` (opening included) for at most
/// `max_plies` plies. `visit` sees every position before its roll is
/// played.
pub fn play_random_game(
    variant: Variant,
    dice: &mut SeededDice,
    max_plies: u32,
    mut visit: impl FnMut(&Position),
) -> RandomGame {
    let decision = decide_opening(variant.opening, dice);
    let mut pos = Position::new_game(variant, decision.starter);
    let mut pending = decision.first_roll;
    let mut buf = Vec::with_capacity(64);
    let mut plies = 0;
    let mut generated = 0u64;
    while !pos.is_game_over() && plies < max_plies {
        visit(&pos);
        let roll = pending.take().unwrap_or_else(|| dice.roll());
        buf.clear();
        pos.legal_moves_into(roll, &mut buf);
        generated += buf.len() as u64;
        let i = dice.rng().random_range(0..buf.len());
        pos = buf[i];
        plies += 1;
    }
    RandomGame {
        last: pos,
        outcome: pos.outcome(),
        plies,
        generated,
    }
}
