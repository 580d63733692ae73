//! Short nardy's board features: the hand-made ones Medium weighs
//! ([`shots`], `pips`) and the network's input encoding ([`encode`]),
//! both read from one pass over the board as bit masks (`Side`).

use tabula_backgammon::Position;

use crate::nn::Sparse;

/// Tesauro's board units.
pub(crate) const BOARD: usize = 196;
/// Features per side after the board units.
pub const FEATURES: usize = 6;
/// Input units.
pub const INPUTS: usize = BOARD + 2 * FEATURES + 1;

/// How many of the 36 rolls let the opponent hit at least one of the
/// mover's blots, and the pips of the farthest-advanced blot hit (the most
/// the mover can lose). Ignores the opponent's bar-entry obligation.
///
/// Each (blot, opponent point) pair gives the set of rolls that hit across
/// that distance as a 36-bit mask (bit `6 × (d1 − 1) + d2 − 1` for the
/// ordered roll d1-d2); the union's bits are the rolls that hit. No
/// allocation: the network computes this for both sides of every position
/// it judges, from the bit masks it reads its features from
/// (`Side`).
pub fn shots(b: &[i8; 26]) -> (u32, u32) {
    let [mover, other] = Side::both(b);
    mover.shots(&other)
}

/// [`shots`] from bit masks of the mover's numbering (bit `i` its point
/// `i`): its points of two checkers or more on 1..=24, closed to a hitting
/// checker passing through; its blots on 1..=24; the opponent's checkers
/// (bit 0 its bar).
pub(crate) fn shots_in(closed: u32, mut blots: u32, opp: u32) -> (u32, u32) {
    let mut all = 0u64;
    let mut worst = 0u32;
    while blots != 0 {
        let i = blots.trailing_zeros() as usize;
        blots &= blots - 1;
        // The opponent's checkers behind the blot.
        let mut from = opp & ((1u32 << i) - 1);
        let mut mask = 0u64;
        while from != 0 {
            let j = from.trailing_zeros() as usize;
            from &= from - 1;
            mask |= hit_mask(closed >> j, i - j);
        }
        if mask != 0 {
            all |= mask;
            worst = worst.max(25 - i as u32);
        }
    }
    (all.count_ones(), worst)
}

/// The bit of the ordered roll `d1`-`d2` in [`shots`]' masks.
const fn roll_bit(d1: usize, d2: usize) -> u64 {
    1 << (6 * (d1 - 1) + d2 - 1)
}

/// One way a roll crosses a distance: its rolls' bits, and the points on
/// the way (bit `k`: `k` pips from the hitting checker) of which at least
/// one (`any`, two different dice in either order) or every one (`all`, a
/// double's steps) must be open. A single die needs neither.
#[derive(Debug, Clone, Copy)]
struct Way {
    rolls: u64,
    any: u32,
    all: u32,
}

/// Room for the ways across one distance (at most five: 6 is a die, 1-5,
/// 2-4, 3-3 and 2-2; the table fails to compile if one needs more).
const MAX_WAYS: usize = 8;

/// [`Way`]s for each distance 1..=24 (index 0 unused): one die of the
/// distance; two different dice summing to it; a double whose steps sum to
/// it in 2, 3 or 4 steps.
const WAYS: [([Way; MAX_WAYS], usize); 25] = {
    const NONE: Way = Way {
        rolls: 0,
        any: 0,
        all: 0,
    };
    let mut table = [([NONE; MAX_WAYS], 0usize); 25];
    let mut dist = 1;
    while dist <= 24 {
        let (mut ways, mut n) = ([NONE; MAX_WAYS], 0);
        if dist <= 6 {
            let mut rolls = 0u64;
            let mut d = 1;
            while d <= 6 {
                rolls |= roll_bit(dist, d) | roll_bit(d, dist);
                d += 1;
            }
            ways[n] = Way {
                rolls,
                any: 0,
                all: 0,
            };
            n += 1;
        }
        let mut d1 = 1;
        while d1 <= 6 {
            if dist > d1 && dist - d1 > d1 && dist - d1 <= 6 {
                let d2 = dist - d1;
                ways[n] = Way {
                    rolls: roll_bit(d1, d2) | roll_bit(d2, d1),
                    any: (1 << d1) | (1 << d2),
                    all: 0,
                };
                n += 1;
            }
            let mut k = 2;
            while k <= 4 {
                if d1 * k == dist {
                    let mut all = 0u32;
                    let mut s = 1;
                    while s < k {
                        all |= 1 << (d1 * s);
                        s += 1;
                    }
                    ways[n] = Way {
                        rolls: roll_bit(d1, d1),
                        any: 0,
                        all,
                    };
                    n += 1;
                }
                k += 1;
            }
            d1 += 1;
        }
        table[dist] = (ways, n);
        dist += 1;
    }
    table
};

/// The rolls (as [`roll_bit`]s) with which an opponent checker reaches a
/// blot `dist` pips ahead, where `closed` has bit `k` set when the point
/// `k` pips ahead of the checker is held by the mover: one die of `dist`;
/// two different dice summing to it through either open intermediate
/// point; or a double whose steps land only on open points before it.
fn hit_mask(closed: u32, dist: usize) -> u64 {
    let (ways, n) = &WAYS[dist];
    let mut m = 0u64;
    for w in &ways[..*n] {
        let through = w.any == 0 || closed & w.any != w.any;
        if through && closed & w.all == 0 {
            m |= w.rolls;
        }
    }
    m
}

/// The same board seen by the other side (its checkers positive, in its
/// own numbering).
pub(crate) fn flip(b: &[i8; 26]) -> [i8; 26] {
    let mut out = [0i8; 26];
    for i in 0..26 {
        out[i] = -b[25 - i];
    }
    out
}

/// The pips of the side with positive counts on `b` and of the other.
pub(crate) fn pips(b: &[i8; 26]) -> (i32, i32) {
    let mut mine = 0;
    let mut theirs = 0;
    for (i, &n) in b.iter().enumerate() {
        if n > 0 {
            mine += i32::from(n) * i as i32;
        } else if n < 0 {
            theirs += -i32::from(n) * (25 - i as i32);
        }
    }
    (mine, theirs)
}

/// Whether the side that moved on the mover-relative board `b` can still
/// win a backgammon (`[0]`) and lose one (`[1]`). The loser must have
/// borne off none, and once the game is a race its checkers only move
/// home: it can end with one in the winner's home board (19..=24 in the
/// loser's numbering) or on the bar only if one is there already.
pub fn backgammon_possible(b: &[i8; 26]) -> [bool; 2] {
    let (mine, theirs) = on_board(b);
    possible_with(b, mine, theirs)
}

/// Each side's checkers still on the board (bar included): the mover's,
/// the other side's.
fn on_board(b: &[i8; 26]) -> (i32, i32) {
    b.iter().fold((0, 0), |(m, t), &n| {
        (m + i32::from(n.max(0)), t + i32::from((-n).max(0)))
    })
}

/// [`backgammon_possible`] with [`on_board`]'s counts given.
fn possible_with(b: &[i8; 26], mine: i32, theirs: i32) -> [bool; 2] {
    if mine != 15 && theirs != 15 {
        return [false, false];
    }
    // The mover's checkers in the other side's home board or on its bar
    // (19..=25), and the other side's in the mover's home or on its bar
    // (1..=6 and 0).
    let mine_back: i32 = b[19..=25].iter().map(|&n| i32::from(n.max(0))).sum();
    let theirs_back: i32 = b[0..=6].iter().map(|&n| i32::from((-n).max(0))).sum();
    let race = Position::board_is_race(b);
    [
        theirs == 15 && (!race || theirs_back > 0),
        mine == 15 && (!race || mine_back > 0),
    ]
}

/// Where the backgammon head judges (else its outputs are zero): a
/// backgammon still possible ([`backgammon_possible`]) and its winner
/// already bearing off (every checker home, or one off). Earlier a
/// backgammon is a far, small chance, much the same whatever the play,
/// and a logistic unit's errors there would only stir the close plays;
/// the searches' leaves reach the bearing-off soon enough.
pub fn backgammon_in_sight(b: &[i8; 26]) -> [bool; 2] {
    let (mine, theirs) = on_board(b);
    // The winner bearing off and the loser with none off: checked first,
    // as it rules out most positions before the race is looked at.
    let win_near = theirs == 15 && (mine < 15 || b[7..=25].iter().all(|&n| n <= 0));
    let lose_near = mine == 15 && (theirs < 15 || b[..=18].iter().all(|&n| n >= 0));
    if !win_near && !lose_near {
        return [false, false];
    }
    let [win, lose] = possible_with(b, mine, theirs);
    [win && win_near, lose && lose_near]
}

/// Encodes `b`, a mover-relative board (positive: the side that moved,
/// 1..=24 its points, 25 its bar; negative: the opponent, 0 its bar): at
/// most 2 × (24 × 4 + 2) active units.
pub fn encode(b: &[i8; 26], e: &mut Sparse) {
    encode_with(b, &tail_units(b), e);
}

/// [`encode`] of `b` whose [`tail_units`] are `tail`.
pub(crate) fn encode_with(b: &[i8; 26], tail: &[f32; TAIL], e: &mut Sparse) {
    e.clear();
    for i in 1..=24usize {
        for (side, n) in [(0usize, b[i]), (1usize, -b[25 - i])] {
            let base = side * 98 + (i - 1) * 4;
            for (k, v) in point_units(n).into_iter().enumerate() {
                e.push(base + k, v);
            }
        }
    }
    for (&at, &v) in TAIL_AT.iter().zip(tail) {
        e.push(at, v);
    }
}

/// The four board units of a point on which a side has `n` checkers (none
/// when `n` is not positive): 1+, 2+, 3+, and (n − 3) / 2 above three.
pub(crate) fn point_units(n: i8) -> [f32; 4] {
    let at_least = |k: i8| if n >= k { 1.0 } else { 0.0 };
    let above = if n > 3 { f32::from(n - 3) / 2.0 } else { 0.0 };
    [at_least(1), at_least(2), at_least(3), above]
}

/// How many of [`encode`]'s units are not a point's: each side's bar and
/// checkers off, the features of both sides, and contact.
pub(crate) const TAIL: usize = 4 + 2 * FEATURES + 1;

/// The unit of each of [`tail_units`]' values, in [`encode`]'s order.
pub(crate) const TAIL_AT: [usize; TAIL] = {
    let mut at = [0; TAIL];
    at[0] = 96;
    at[1] = 97;
    at[2] = 98 + 96;
    at[3] = 98 + 97;
    let mut k = 0;
    while k <= 2 * FEATURES {
        at[4 + k] = BOARD + k;
        k += 1;
    }
    at
};

/// The values of [`encode`]'s units that are not a point's ([`TAIL_AT`]
/// says which): each side's bar / 2 and checkers off / 15, then the
/// [`FEATURES`] of the side that moved and of the other, then 1 while
/// contact is left. One pass over the board, then bit masks.
pub(crate) fn tail_units(b: &[i8; 26]) -> [f32; TAIL] {
    let [mover, other] = Side::both(b);
    let mut t = [0.0; TAIL];
    let bar = [b[25].max(0), (-b[0]).max(0)];
    for (side, s) in [&mover, &other].into_iter().enumerate() {
        t[2 * side] = f32::from(bar[side]) / 2.0;
        t[2 * side + 1] = (15 - s.on) as f32 / 15.0;
    }
    t[4..4 + FEATURES].copy_from_slice(&mover.features(&other));
    t[4 + FEATURES..4 + 2 * FEATURES].copy_from_slice(&other.features(&mover));
    // Contact: the mover's rearmost checker (the highest bit of its own)
    // is not past the other's rearmost (25 minus the highest of its own).
    let rear = |any: u32| any.checked_ilog2();
    if let (Some(m), Some(o)) = (rear(mover.any), rear(other.any))
        && m + o >= 25
    {
        t[TAIL - 1] = 1.0;
    }
    t
}

/// One side's checkers as bit masks in its own numbering (bit `i`: its
/// point `i`, 1..=24; bit 25 its bar), for the features: the board is read
/// once for both sides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side {
    /// Its points with two checkers or more.
    closed: u32,
    /// Its points with one checker.
    blots: u32,
    /// Its points with any checker, and its bar.
    any: u32,
    /// Its pips.
    pips: i32,
    /// Its checkers not borne off.
    on: i32,
}

/// Bits 1..=24: the points.
const POINTS: u32 = 0x1FF_FFFE;

/// Bit `i` to bit `25 − i`: a mask in one side's numbering to the
/// other's.
fn turn(mask: u32) -> u32 {
    mask.reverse_bits() >> 6
}

impl Side {
    /// The side that moved in mover-relative `b` (positive counts) and the
    /// other (negative), each in its own numbering.
    pub(crate) fn both(b: &[i8; 26]) -> [Side; 2] {
        let (mut closed, mut blots, mut any) = ([0u32; 2], [0u32; 2], [0u32; 2]);
        let (mut pips, mut on) = ([0i32; 2], [0i32; 2]);
        for (i, &n) in b.iter().enumerate() {
            // The other side's bit for this index is 25 − i, set by
            // `turn` at the end.
            let (mine, theirs) = (n.max(0), (-n).max(0));
            for (s, k) in [(0, mine), (1, theirs)] {
                closed[s] |= u32::from(k >= 2) << i;
                blots[s] |= u32::from(k == 1) << i;
                any[s] |= u32::from(k > 0) << i;
                on[s] += i32::from(k);
            }
            pips[0] += i32::from(mine) * i as i32;
            pips[1] += i32::from(theirs) * (25 - i as i32);
        }
        let side = |s: usize, f: fn(u32) -> u32| Side {
            closed: f(closed[s]) & POINTS,
            blots: f(blots[s]) & POINTS,
            any: f(any[s]),
            pips: pips[s],
            on: on[s],
        };
        [side(0, |m| m), side(1, turn)]
    }

    /// Its [`FEATURES`], facing `other`: pips / 167; the share of the
    /// other's 36 rolls that hit one of its blots, and the pips the
    /// farthest of them would lose / 24; its back escapes / 36; its
    /// longest run of made points / 6; its made home points / 6.
    fn features(&self, other: &Side) -> [f32; FEATURES] {
        let (hits, loss) = self.shots(other);
        let mut run = self.closed;
        let mut prime = 0u32;
        while run != 0 && prime < 6 {
            run &= run << 1;
            prime += 1;
        }
        let home = (self.closed & 0x7E).count_ones();
        [
            self.pips as f32 / 167.0,
            hits as f32 / 36.0,
            loss as f32 / 24.0,
            // The other's points in this side's numbering.
            escapes_in(self.any, turn(other.closed)) as f32 / 36.0,
            prime as f32 / 6.0,
            home as f32 / 6.0,
        ]
    }

    /// The other's rolls that hit one of this side's blots, and the pips
    /// the farthest of them would lose ([`crate::bg::shots`]). The other's
    /// checkers in this side's numbering: its bar, bit 25 in its own, is
    /// this side's 0.
    pub(crate) fn shots(&self, other: &Side) -> (u32, u32) {
        shots_in(self.closed, self.blots, turn(other.any))
    }
}

/// Of the 36 rolls, how many let the rearmost checker of a side whose
/// checkers (and bar, bit 25) are `any` land beyond every point of
/// `blocked` (the other side's points of 2+, in this side's numbering)
/// within 12 pips ahead of it, one checker moving through open points: 36
/// when nothing holds it, 0 with no checker left outside home.
fn escapes_in(any: u32, blocked: u32) -> u32 {
    let rear = match (any & !0x7F).checked_ilog2() {
        Some(r) => r as usize,
        None => return 0,
    };
    // The held points from 12 pips ahead of it up to it; the farthest
    // back of them is the last to pass.
    let ahead = blocked & ((1u32 << rear) - 1) & !((1u32 << rear.saturating_sub(12).max(1)) - 1);
    if ahead == 0 {
        return 36;
    }
    let last = ahead.trailing_zeros() as usize;
    let lands = |steps: &[usize]| {
        let mut at = rear;
        for &d in steps {
            if at <= d {
                return false;
            }
            at -= d;
            if blocked >> at & 1 == 1 {
                return false;
            }
            if at < last {
                return true;
            }
        }
        false
    };
    // 1-2 and 2-1 escape alike (either order may be played): each pair
    // of different dice counts twice.
    let mut n = 0;
    for d1 in 1..=6usize {
        n += u32::from(lands(&[d1; 4]));
        for d2 in d1 + 1..=6 {
            n += 2 * u32::from(lands(&[d1, d2]) || lands(&[d2, d1]));
        }
    }
    n
}

#[cfg(test)]
mod tests;
