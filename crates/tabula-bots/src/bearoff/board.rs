//! One side's bear-off boards and their index (gnubg's), and the boards a
//! roll leads to.

use std::sync::OnceLock;

use tabula_dice::Dice;

/// Home points a side bears off from.
pub const POINTS: usize = 6;
/// Checkers a side has.
pub const CHECKERS: usize = 15;
/// Positions of up to 15 checkers on 6 points: C(21, 6).
pub const POSITIONS: usize = 54_264;
/// The mass below which a distribution's tail is dropped.
pub const TAIL: f64 = 1e-9;
/// No bear-off takes more rolls than this (the build checks it).
pub const MAX_ROLLS: usize = 40;

/// A side's checkers on its home points: `board[i]` holds the checkers
/// `i + 1` pips from off (backgammon: the (i+1)-point; long nardy: white's
/// point i+1, black's point 13+i).
pub type Board = [u8; POINTS];

/// Binomial coefficients C(n, k) for n ≤ 21.
const BINOM: [[u32; 22]; 22] = {
    let mut c = [[0u32; 22]; 22];
    let mut n = 0;
    while n < 22 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
};

/// The checkers on `b`.
pub fn checkers(b: &Board) -> usize {
    b.iter().map(|&n| usize::from(n)).sum()
}

/// gnubg's number for a position (`PositionBearoff(anBoard, 6, 15)`): the
/// rank, in the combinatorial number system, of the 21-bit string that
/// writes each point's checkers as ones and separates the points by six
/// zeros. gnubg walks the bits (`PositionF`); the same sum in closed form
/// is Σₘ C(5 − m + Sₘ, 6 − m) over m = 0..6, Sₘ the checkers on the
/// points m+1..=6 (the tests check it against gnubg's walk on every
/// position). `None` for more than 15 checkers.
pub fn index(b: &Board) -> Option<usize> {
    if checkers(b) > CHECKERS {
        return None;
    }
    let mut suffix = 0usize;
    let mut idx = 0usize;
    for m in (0..POINTS).rev() {
        suffix += usize::from(b[m]);
        idx += BINOM[POINTS - 1 - m + suffix][POINTS - m] as usize;
    }
    Some(idx)
}

/// Every position, by index.
pub fn boards() -> &'static [Board] {
    static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
    BOARDS.get_or_init(|| {
        let mut out = vec![[0u8; POINTS]; POSITIONS];
        let mut b = [0u8; POINTS];
        loop {
            if let Some(i) = index(&b) {
                out[i] = b;
            }
            // The next board in base 16, skipping those over 15 checkers.
            let mut k = 0;
            loop {
                if k == POINTS {
                    return out;
                }
                b[k] += 1;
                if checkers(&b) <= CHECKERS {
                    break;
                }
                b[k] = 0;
                k += 1;
            }
        }
    })
}

/// The distinct positions one step of `die` leads to from `b` (none when
/// `b` is empty). A die equal to a checker's distance bears it off; a
/// larger die bears off only from the farthest occupied point; a checker
/// farther than the die moves down by it (nothing blocks in a home board).
pub fn steps(b: &Board, die: u8) -> impl Iterator<Item = Board> + '_ {
    let d = usize::from(die);
    let high = (1..=POINTS).rev().find(|&q| b[q - 1] > 0).unwrap_or(0);
    (1..=POINTS).filter_map(move |q| {
        if b[q - 1] == 0 || (q < d && q != high) {
            return None;
        }
        let mut next = *b;
        next[q - 1] -= 1;
        if q > d {
            next[q - d - 1] += 1;
        }
        Some(next)
    })
}

/// The distinct positions after a whole legal play of `dice` from `b`
/// (sorted), as both engines' move generation gives them: both dice (four
/// of a double) are played in any order, the turn ending early only when
/// the last checker is off. Every die is always playable while a checker
/// is left, so the use-both-dice and larger-die rules never bite.
pub fn successors(b: &Board, dice: Dice) -> Vec<Board> {
    let moves: Vec<u8> = if dice.is_double() {
        vec![dice.first(); 4]
    } else {
        vec![dice.first(), dice.second()]
    };
    let mut out = Vec::new();
    let mut orders = vec![moves.clone()];
    if !dice.is_double() {
        orders.push(vec![moves[1], moves[0]]);
    }
    for order in orders {
        let mut level = vec![*b];
        for &d in &order {
            let mut next = Vec::new();
            for p in &level {
                if checkers(p) == 0 {
                    next.push(*p);
                } else {
                    next.extend(steps(p, d));
                }
            }
            next.sort_unstable();
            next.dedup();
            level = next;
        }
        out.extend(level);
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gnubg's `PositionBearoff`, transcribed: the bit string, then
    /// `PositionF` walking it from the top.
    fn gnubg_position_bearoff(b: &Board) -> usize {
        let mut j = POINTS - 1 + checkers(b);
        let mut bits: u32 = 1 << j;
        for &n in &b[..POINTS - 1] {
            j -= usize::from(n) + 1;
            bits |= 1 << j;
        }
        let (mut n, mut r, mut idx) = (CHECKERS + POINTS, POINTS, 0usize);
        while n > r {
            if bits & (1 << (n - 1)) != 0 {
                idx += BINOM[n - 1][r] as usize;
                r -= 1;
            }
            n -= 1;
        }
        idx
    }

    #[test]
    fn indices_are_gnubgs_and_a_bijection() {
        let boards = boards();
        assert_eq!(boards.len(), POSITIONS);
        for (i, b) in boards.iter().enumerate() {
            assert_eq!(index(b), Some(i));
            assert_eq!(gnubg_position_bearoff(b), i, "{b:?}");
        }
        assert_eq!(index(&[0; 6]), Some(0));
        // gnubg: 1..=6 are one checker on the 1- to 6-point, the last is
        // fifteen on the 6-point (bearoffdump gnubg_os0.bd -n 54263).
        for q in 0..6 {
            let mut b = [0; 6];
            b[q] = 1;
            assert_eq!(index(&b), Some(q + 1));
        }
        assert_eq!(index(&[0, 0, 0, 0, 0, 15]), Some(POSITIONS - 1));
        assert_eq!(index(&[0, 0, 0, 0, 1, 15]), None);
    }
}
