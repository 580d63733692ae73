//! Medium's hand-made evaluation of short nardy, in pips.

use tabula_backgammon::{Position, Scoring};

use super::features::{flip, pips, shots};

/// Evaluation weights (pips per unit of each feature).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Per pip of race lead.
    pub pip: f64,
    /// Per opponent checker on the bar.
    pub opp_bar: f64,
    /// Per point made (2+ checkers) on 1..=24.
    pub point: f64,
    /// Extra per made point in the home board (1..=6).
    pub home_point: f64,
    /// Extra per made key point (4, 5, 6, 7).
    pub key_point: f64,
    /// Extra per made point (anchor) in the opponent's home (19..=24).
    pub anchor: f64,
    /// Per unit of (longest run of made points)², runs of 3+.
    pub prime: f64,
    /// Per exposed blot (Medium's blot count).
    pub blot: f64,
    /// Per shot against the mover's blots, as the fraction of the 36 rolls
    /// that hit, times (this + the farthest hit blot's pips).
    pub shot: f64,
    /// Per checker above 3 on a point.
    pub stack: f64,
    /// Per checker borne off (race).
    pub off: f64,
}

/// Medium: race lead, hitting, making points, blots.
pub const MEDIUM: Weights = Weights {
    pip: 1.0,
    opp_bar: 4.0,
    point: 2.0,
    home_point: 0.0,
    key_point: 0.0,
    anchor: 0.0,
    prime: 0.0,
    blot: -4.0,
    shot: 0.0,
    stack: 0.0,
    off: 0.5,
};

const WIN: f64 = 10_000.0;

/// Positional features of the side with positive counts on `b` (pips
/// excluded). `mover` says whether this side just moved (its blots face
/// the next roll).
#[allow(clippy::needless_range_loop)]
fn features(b: &[i8; 26], w: &Weights, mover: bool, race: bool) -> f64 {
    let mut s = 0.0;
    let mut run = 0u32;
    let mut best = 0u32;
    let mut on_board = 0i32;
    let mut exposed = 0u32;
    let opp_back = (0..=24).find(|&j| b[j] < 0);
    for i in 1..=25usize {
        let n = b[i];
        if n > 0 {
            on_board += i32::from(n);
        }
        if i == 25 {
            break;
        }
        if n >= 2 {
            s += w.point;
            if i <= 6 {
                s += w.home_point;
            }
            if (4..=7).contains(&i) {
                s += w.key_point;
            }
            if i >= 19 {
                s += w.anchor;
            }
            if n > 3 {
                s += w.stack * f64::from(n - 3);
            }
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
            if n == 1 && opp_back.is_some_and(|j| j < i) {
                exposed += 1;
            }
        }
    }
    s += w.off * f64::from(15 - on_board);
    if race {
        return s;
    }
    if best >= 3 {
        s += w.prime * f64::from(best * best);
    }
    s += w.opp_bar * f64::from(-b[0]);
    s += w.blot * f64::from(exposed);
    if mover && w.shot != 0.0 {
        let (n, pips) = shots(b);
        s += w.shot * f64::from(n) / 36.0 * (10.0 + f64::from(pips));
    }
    s
}

/// The evaluation of `pos` (the mover has just played, still on roll in the
/// engine's sense) for the mover, in pips; a finished game scores ±(`WIN` +
/// points under gammon scoring).
pub fn evaluate(pos: &Position, w: &Weights) -> f64 {
    if let Some(o) = pos.outcome(Scoring::Gammons) {
        let v = WIN + f64::from(o.points);
        return if o.winner == pos.turn() { v } else { -v };
    }
    let b = pos.board();
    let race = pos.is_race();
    let (mine, theirs) = pips(b);
    w.pip * f64::from(theirs - mine) + features(b, w, true, race)
        - features(&flip(b), w, false, race)
}
