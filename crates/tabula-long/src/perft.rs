//! Perft for a dice game (see the crate documentation for the definition).

use tabula_dice::Dice;

use crate::position::Position;

/// Number of leaves of the move tree of `depth` plies: depth 0 is 1; a
/// finished game has no plies (0 for depth ≥ 1); otherwise the sum over the
/// 21 distinct rolls of [`perft_roll`].
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.is_game_over() {
        return 0;
    }
    let mut buf = Vec::new();
    Dice::ALL_21
        .iter()
        .map(|&d| perft_roll_buf(pos, d, depth, &mut buf))
        .sum()
}

/// Perft with the first ply restricted to `dice`: at depth 1 the number of
/// distinct final positions (a roll with no legal play counts 1), deeper
/// the sum of [`perft`] over those finals with `depth - 1`.
pub fn perft_roll(pos: &Position, dice: Dice, depth: u32) -> u64 {
    let mut buf = Vec::new();
    perft_roll_buf(pos, dice, depth, &mut buf)
}

fn perft_roll_buf(pos: &Position, dice: Dice, depth: u32, buf: &mut Vec<Position>) -> u64 {
    if depth == 0 {
        return 1;
    }
    buf.clear();
    pos.legal_moves_into(dice, buf);
    if depth == 1 {
        return buf.len() as u64;
    }
    let finals = std::mem::take(buf);
    let n = finals.iter().map(|f| perft(f, depth - 1)).sum();
    *buf = finals;
    n
}

/// Perft split by first roll, in [`Dice::ALL_21`] order.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Dice, u64)> {
    Dice::ALL_21
        .iter()
        .map(|&d| {
            (
                d,
                if pos.is_game_over() {
                    0
                } else {
                    perft_roll(pos, d, depth)
                },
            )
        })
        .collect()
}
