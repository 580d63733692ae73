//! Long nardy's network inputs ([`encode`]) and whether contact is left
//! ([`no_contact`]).

use tabula_long::{CHECKERS, Color, Position, point_of};

use crate::nn::Sparse;

/// Input units.
pub const INPUTS: usize = 2 * SIDE + 1;
/// Units per side.
pub(crate) const SIDE: usize = 24 * 4 + 8;

/// Encodes `pos` for `me` (the side that moved; the other side rolls
/// next) into `x`.
pub fn encode(pos: &Position, me: Color, x: &mut Sparse) {
    x.clear();
    let sides = [me, me.other()];
    // counts[s][r]: side s's checkers on its own route point r.
    let board = pos.route_board();
    let mut counts = [[0u8; 24]; 2];
    for (s, &c) in sides.iter().enumerate() {
        let on_roll = c == pos.turn();
        for (r, n) in counts[s].iter_mut().enumerate() {
            *n = if on_roll {
                board[r].max(0) as u8
            } else {
                (-board[(r + 12) % 24]).max(0) as u8
            };
        }
    }
    let contact = !no_contact(pos);
    for (s, &c) in sides.iter().enumerate() {
        let mine = &counts[s];
        let theirs = &counts[1 - s];
        let base = s * SIDE;
        let mut home = 0u32;
        let mut pips = 0u32;
        let mut rear = None;
        for (r, &n) in mine.iter().enumerate() {
            if n == 0 {
                continue;
            }
            rear.get_or_insert(r);
            pips += u32::from(n) * (24 - r as u32);
            if r >= 18 {
                home += u32::from(n);
            }
            let at = base + r * 4;
            x.push(at, 1.0);
            if n >= 2 {
                x.push(at + 1, 1.0);
            }
            if n >= 3 {
                x.push(at + 2, 1.0);
            }
            if n > 3 {
                x.push(at + 3, f32::from(n - 3) / 4.0);
            }
        }
        let f = base + 96;
        x.push(f, f32::from(pos.off(c)) / 15.0);
        x.push(f + 1, home as f32 / 15.0);
        x.push(f + 2, pips as f32 / 360.0);
        // My route point r is the other side's (r + 12) % 24, and back.
        let other_rear = theirs.iter().position(|&n| n > 0);
        if let Some(t) = other_rear {
            let mut blocks = 0u32;
            let mut run = 0u32;
            let mut best = 0u32;
            for u in t + 1..24 {
                if mine[(u + 12) % 24] > 0 {
                    if u <= t + 6 {
                        blocks += 1;
                    }
                    run += 1;
                    best = best.max(run);
                } else {
                    run = 0;
                }
            }
            x.push(f + 3, blocks as f32 / 6.0);
            x.push(f + 4, best.min(6) as f32 / 6.0);
        }
        let all_home = u32::from(pos.off(c)) + home == u32::from(CHECKERS);
        let playable = (1..=6usize)
            .filter(|&d| {
                (0..24).any(|r| {
                    mine[r] > 0
                        && (if r + d < 24 {
                            theirs[(r + d + 12) % 24] == 0
                        } else {
                            all_home
                        })
                })
            })
            .count();
        x.push(f + 5, playable as f32 / 6.0);
        if let Some(r) = rear {
            x.push(f + 6, r as f32 / 23.0);
        }
        if pos.is_first_turn(c) {
            x.push(f + 7, 1.0);
        }
    }
    if !contact {
        x.push(2 * SIDE, 1.0);
    }
}

/// No contact is left: every checker of each side is in the half of the
/// route that ends in his home (route indices 12..=23: white on points
/// 1–12, black on 13–24), so each side has passed all of the other's
/// checkers and neither can ever stand in the other's way again (nor can
/// a six-block of either hold anyone back). The converse holds too: a
/// checker of either side in the first half of its route still has some
/// opponent checker ahead of it, or one of the opponent's still has it
/// ahead.
pub fn no_contact(pos: &Position) -> bool {
    [Color::White, Color::Black]
        .into_iter()
        .all(|c| (0..12).all(|r| pos.checkers(c, point_of(c, r)) == 0))
}

#[cfg(test)]
mod tests {
    use tabula_dice::DiceSource;

    use super::*;

    #[test]
    fn the_start_encodes_both_sides_alike() {
        let pos = Position::initial();
        let mut x = Sparse::default();
        encode(&pos, Color::Black, &mut x);
        let units: Vec<_> = x.iter().collect();
        let mine: Vec<_> = units.iter().filter(|(i, _)| *i < SIDE).copied().collect();
        let theirs: Vec<_> = units
            .iter()
            .filter(|(i, _)| (SIDE..2 * SIDE).contains(i))
            .map(|&(i, v)| (i - SIDE, v))
            .collect();
        // White is on roll and on his first turn; so is black (he has not
        // moved yet either).
        assert_eq!(mine, theirs);
        // The head: 1+, 2+, 3+, (15 − 3) / 4; no checkers off or home
        // and no block within six (zero units are not set); pips 1; a run
        // of one point (the head) ahead of the other's rearmost checker;
        // every die playable; rearmost point 0 (not set); the first turn.
        assert_eq!(mine.len(), 4 + 1 + 1 + 1 + 1);
        assert!(mine.contains(&(3, 3.0)));
        assert!(!units.iter().any(|&(i, _)| i == 2 * SIDE), "contact");
    }

    #[test]
    fn the_encoding_reads_each_side_along_its_own_route() {
        // A game's positions: each side's units are its checkers by its
        // own route point, whoever is on roll.
        let mut pos = Position::initial();
        let mut dice = tabula_dice::SeededDice::new(3);
        let mut x = Sparse::default();
        for _ in 0..60 {
            let finals = pos.legal_moves(dice.roll());
            pos = finals[finals.len() / 2];
            for me in [Color::White, Color::Black] {
                encode(&pos, me, &mut x);
                let units: std::collections::HashMap<usize, f32> = x.iter().collect();
                for (s, c) in [me, me.other()].into_iter().enumerate() {
                    for r in 0..24 {
                        let n = pos.checkers(c, tabula_long::point_of(c, r));
                        assert_eq!(
                            units.contains_key(&(s * SIDE + r * 4)),
                            n > 0,
                            "{pos} {c} {r}"
                        );
                        assert_eq!(units.contains_key(&(s * SIDE + r * 4 + 1)), n > 1);
                    }
                }
            }
            if pos.is_game_over() {
                break;
            }
        }
    }
}
