//! Who starts (RULES.md "Who starts").

use tabula_dice::{Dice, DiceSource};

use crate::position::Color;
use crate::variant::Opening;

/// The result of the opening procedure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpeningDecision {
    /// The side that moves first.
    pub starter: Color,
    /// Under `opening_roll_plays`, the opening roll (starter's die first),
    /// which is the starter's first move; `None` when the starter rolls
    /// afresh.
    pub first_roll: Option<Dice>,
    /// The single-die rolls made as `(white, black)`, ties included, in
    /// order (empty under `white_first`).
    pub rolls: Vec<(u8, u8)>,
}

/// Decides who starts under `opening`, rolling from `dice`: one die each
/// (white's first), ties rerolled, the higher die starts. Under
/// `white_first` no dice are rolled.
pub fn decide_opening<D: DiceSource + ?Sized>(opening: Opening, dice: &mut D) -> OpeningDecision {
    if opening == Opening::WhiteFirst {
        return OpeningDecision {
            starter: Color::White,
            first_roll: None,
            rolls: Vec::new(),
        };
    }
    let mut rolls = Vec::new();
    loop {
        let w = dice.roll_one().clamp(1, 6);
        let b = dice.roll_one().clamp(1, 6);
        rolls.push((w, b));
        if w == b {
            continue;
        }
        let (starter, mine, theirs) = if w > b {
            (Color::White, w, b)
        } else {
            (Color::Black, b, w)
        };
        let first_roll = match opening {
            Opening::OpeningRollPlays => Dice::new(mine, theirs).ok(),
            _ => None,
        };
        return OpeningDecision {
            starter,
            first_roll,
            rolls,
        };
    }
}
