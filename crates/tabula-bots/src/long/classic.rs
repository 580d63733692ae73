//! The hand-made evaluation of long nardy: Medium's, and Hard's before the
//! network (kept to measure against: [`super::Engine`]).
//!
//! The evaluation is antisymmetric: `eval(p, c) = feat(c) - feat(other)`,
//! in pips (one unit = one pip of race lead). Features of a side, read
//! along its own route (0 = head, 18..=23 = home): pip count, checkers
//! off, checkers home, checkers left on the head, points held, points held
//! ahead of the opponent's rearmost checker on the opponent's route
//! (blocks), the longest run of such points (prime), stacking (sum of
//! squares), the rearmost checker, and mobility (dice 1..=6 that some
//! checker can play, and checker-die moves).

use tabula_dice::Dice;
use tabula_long::{CHECKERS, Color, Position, point_of};

use crate::pick::sigmoid;

/// Evaluation weights (pips per unit of each feature).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Per pip of race lead.
    pub pip: f64,
    /// Per checker borne off.
    pub off: f64,
    /// Per checker in the home quarter.
    pub home: f64,
    /// Per checker still on the head (negative is a penalty).
    pub head: f64,
    /// Per point held (head excluded).
    pub held: f64,
    /// Per point held ahead of the opponent's rearmost checker, within 12
    /// points of it on the opponent's route.
    pub block: f64,
    /// Per unit of (longest run of blocking points)².
    pub run: f64,
    /// Per unit of sum of squares of checkers per point (head excluded).
    pub stack: f64,
    /// Per pip the rearmost checker is short of home (r < 18).
    pub rear: f64,
    /// Per die value (1..=6) the side can play at all.
    pub dice_playable: f64,
    /// Per checker-die move available.
    pub moves: f64,
}

/// Medium: race lead, points made, checkers home/off, leaving the head.
pub const MEDIUM: Weights = Weights {
    pip: 1.0,
    off: 1.0,
    home: 0.5,
    head: -1.0,
    held: 1.5,
    block: 0.0,
    run: 0.0,
    stack: 0.0,
    rear: 0.0,
    dice_playable: 0.0,
    moves: 0.0,
};

/// Hard: every feature.
pub const HARD: Weights = Weights {
    pip: 1.0,
    off: 1.5,
    home: 0.5,
    head: -1.5,
    held: 1.0,
    block: 2.0,
    run: 1.2,
    stack: -0.15,
    rear: -0.1,
    dice_playable: 2.0,
    moves: 0.1,
};

/// Score of a won game, beyond any evaluation (plus the points won).
const WIN: f64 = 10_000.0;

/// A side's checkers and the opponent's, both indexed by this side's route
/// index.
struct View {
    me: [u8; 24],
    opp: [u8; 24],
    off: u8,
}

fn view(pos: &Position, c: Color) -> View {
    let mut me = [0u8; 24];
    let mut opp = [0u8; 24];
    let o = c.other();
    for r in 0..24 {
        let p = point_of(c, r);
        me[r] = pos.checkers(c, p);
        opp[r] = pos.checkers(o, p);
    }
    View {
        me,
        opp,
        off: pos.off(c),
    }
}

fn features(v: &View, w: &Weights) -> f64 {
    let mut pips = 0u32;
    let mut home = 0u32;
    let mut held = 0u32;
    let mut stack = 0u32;
    let mut rear = 24usize;
    for r in 0..24 {
        let n = u32::from(v.me[r]);
        if n == 0 {
            continue;
        }
        pips += n * (24 - r as u32);
        if r >= 18 {
            home += n;
        }
        if r > 0 {
            held += 1;
            stack += n * n;
        }
        rear = rear.min(r);
    }
    let mut s = -w.pip * f64::from(pips)
        + w.off * f64::from(v.off)
        + w.home * f64::from(home)
        + w.head * f64::from(v.me[0])
        + w.held * f64::from(held)
        + w.stack * f64::from(stack);
    if rear < 18 {
        s += w.rear * (18 - rear) as f64;
    }
    if w.block != 0.0 || w.run != 0.0 {
        // The opponent's route index s of my route index r is (r + 12) % 24.
        let opp_rear = (0..24).find(|&s| v.opp[(s + 12) % 24] > 0);
        if let Some(rs) = opp_rear {
            let mut blocks = 0u32;
            let mut run = 0u32;
            let mut best = 0u32;
            for s in rs + 1..24 {
                if v.me[(s + 12) % 24] > 0 {
                    if s <= rs + 12 {
                        blocks += 1;
                    }
                    run += 1;
                    best = best.max(run);
                } else {
                    run = 0;
                }
            }
            s += w.block * f64::from(blocks) + w.run * f64::from(best * best);
        }
    }
    if w.dice_playable != 0.0 || w.moves != 0.0 {
        let all_home = u32::from(v.off) + home == u32::from(CHECKERS);
        let mut playable = 0u32;
        let mut moves = 0u32;
        for d in 1..=6usize {
            let mut any = false;
            for r in 0..24 {
                if v.me[r] == 0 {
                    continue;
                }
                let t = r + d;
                if (t < 24 && v.opp[t] == 0) || (t >= 24 && all_home) {
                    any = true;
                    moves += 1;
                }
            }
            playable += u32::from(any);
        }
        s += w.dice_playable * f64::from(playable) + w.moves * f64::from(moves);
    }
    s
}

/// The evaluation of `pos` for `c` (any side to move), in pips; a finished
/// game scores ±(`WIN` + points).
pub fn evaluate(pos: &Position, c: Color, w: &Weights) -> f64 {
    if let Some(o) = pos.outcome() {
        let v = WIN + f64::from(o.points);
        return if o.winner == c { v } else { -v };
    }
    features(&view(pos, c), w) - features(&view(pos, c.other()), w)
}

/// Expected evaluation for `me` of `pos` (opponent to move) after the
/// opponent's best reply to each of its 21 rolls.
pub(crate) fn expectimax(pos: &Position, me: Color, w: &Weights, buf: &mut Vec<Position>) -> f64 {
    if pos.is_game_over() {
        return evaluate(pos, me, w);
    }
    let mut total = 0.0;
    for dice in Dice::ALL_21 {
        buf.clear();
        pos.legal_moves_into(dice, buf);
        let worst = buf
            .iter()
            .map(|p| evaluate(p, me, w))
            .fold(f64::INFINITY, f64::min);
        total += dice.probability() * worst;
    }
    total
}

/// A rough chance that `c` wins from `pos` (for Medium's cube decisions,
/// and Hard's before the network): the hand-made Hard evaluation squashed by a logistic whose scale grows with the pips left.
pub fn win_probability(pos: &Position, c: Color) -> f64 {
    if let Some(o) = pos.outcome() {
        return if o.winner == c { 1.0 } else { 0.0 };
    }
    let mut e = evaluate(pos, c, &HARD);
    // Being on roll is worth about half a roll.
    e += if pos.turn() == c { 4.0 } else { -4.0 };
    let pips = f64::from(pos.pip_count(Color::White) + pos.pip_count(Color::Black));
    sigmoid(1.7 * e / (2.0 * pips.sqrt()).max(4.0))
}
