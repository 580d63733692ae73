//! The move generator core: mover-relative bitboards, single steps, and the
//! fast distinct-finals generator behind [`Position::legal_moves`].
//!
//! State during a turn is the mover's counts by route index plus an
//! occupancy bitmask (bit r = the mover has a checker on route index r);
//! the opponent's occupancy never changes during a turn. Six-point blocks
//! are found with shifts on the occupancy rotated into the opponent's route
//! order, so that runs never wrap across the opponent's route end.
//!
//! Finals for a double are enumerated with the from-points non-decreasing
//! along the route (rear checkers first), which visits every multiset of
//! steps once; with one die value, distinct multisets give distinct boards
//! (each point has exactly one outgoing step), so no de-duplication is
//! needed. Reordering a legal sequence rear-first keeps it legal for every
//! rule except the six-block rule (an intermediate block may appear in one
//! order only), so when a block could form this turn the generator falls
//! back to an exhaustive level-by-level search with transposition merging.

use tabula_dice::Dice;

use crate::position::{CHECKERS, Position};
use crate::variant::PrimeRule;

pub(crate) const ALL: u32 = (1 << 24) - 1;
/// Route indices 0..=17: outside home.
pub(crate) const OUTSIDE_HOME: u32 = (1 << 18) - 1;
/// Window starts 0..=18 (a six-window must fit inside the route).
const WINDOW_STARTS: u32 = ALL >> 5;
/// The route index used for "off" in raw steps.
pub(crate) const OFF: u8 = 24;

/// Mover-route-order mask → opponent-route-order mask (rotate by 12).
#[inline]
pub(crate) fn rot12(m: u32) -> u32 {
    ((m >> 12) | (m << 12)) & ALL
}

/// Bit s set iff bits s..=s+5 are all set (no wrap-around).
#[inline]
pub(crate) fn six_windows(m: u32) -> u32 {
    m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4) & (m >> 5)
}

/// Mover-route index → index in the board of the position after the turn
/// (where the opponent is the mover): `(r + 12) % 24`.
#[inline]
pub(crate) fn flip(r: usize) -> usize {
    if r < 12 { r + 12 } else { r - 12 }
}

/// The state during a turn. It carries the position *after* the turn (the
/// opponent to move), so a final is a plain copy: in `p.board` the mover's
/// checkers are negative at index `flip(r)`, and `p.off[1]` is the mover's
/// borne-off count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct St {
    pub p: Position,
    /// Mover occupancy by the mover's route index.
    pub occ: u32,
    /// Checkers that left the head this turn.
    pub head: u8,
}

impl St {
    /// The mover's checkers on route index `r`.
    #[inline]
    pub fn count(&self, r: usize) -> u8 {
        (-self.p.board[flip(r)]).max(0) as u8
    }

    /// The mover's borne-off count.
    #[inline]
    pub fn off(&self) -> u8 {
        self.p.off[1]
    }
}

/// What stays fixed during a turn.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    /// Opponent occupancy in mover route order.
    pub opp: u32,
    /// Six-window starts (opponent route order) that are forbidden.
    pub forbidden: u32,
    /// How many checkers may leave the head this turn.
    pub head_limit: u8,
    /// The board already holds a forbidden block before the turn (only in
    /// set-up positions: in play a block can only become forbidden by
    /// occupying a new point, so it is checked then). Then every step is
    /// checked, since the rule holds after every single step.
    pub pre_blocked: bool,
}

impl Ctx {
    pub fn new(pos: &Position, dice: Dice) -> (Ctx, St) {
        let (occ, opp) = sign_masks(&pos.board);
        let st = St {
            p: pos.pass_turn(),
            occ,
            head: 0,
        };
        let opp_q = rot12(opp);
        let forbidden = if pos.off[1] > 0 || opp_q == 0 {
            0
        } else {
            match pos.variant.prime_rule {
                PrimeRule::OpponentAhead => {
                    // The most advanced opponent checker, on his route.
                    let maxq = 31 - opp_q.leading_zeros();
                    // Window [s, s+5] is allowed iff s + 5 < maxq.
                    let lo = maxq.saturating_sub(5);
                    WINDOW_STARTS & !((1u32 << lo) - 1)
                }
                PrimeRule::OpponentHome => {
                    if opp_q >> 18 != 0 {
                        0
                    } else {
                        WINDOW_STARTS
                    }
                }
            }
        };
        let v = dice.first();
        let head_limit = if pos.first[0] && dice.is_double() && matches!(v, 3 | 4 | 6) {
            2
        } else {
            1
        };
        let mut ctx = Ctx {
            opp,
            forbidden,
            head_limit,
            pre_blocked: false,
        };
        ctx.pre_blocked = ctx.blocked(occ);
        (ctx, st)
    }

    /// Whether `occ` (mover occupancy) holds a forbidden six-block.
    #[inline]
    pub fn blocked(&self, occ: u32) -> bool {
        self.forbidden != 0 && six_windows(rot12(occ)) & self.forbidden != 0
    }
}

/// Bit masks of the positive and of the negative entries of a board
/// (SWAR over three 8-byte words).
#[inline]
pub(crate) fn sign_masks(board: &[i8; 24]) -> (u32, u32) {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // Byte k's bit 0 → bit k of the top byte.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut pos = 0u32;
    let mut neg = 0u32;
    for k in 0..3 {
        let bytes: [u8; 8] = std::array::from_fn(|j| board[8 * k + j] as u8);
        let w = u64::from_le_bytes(bytes);
        let sign = (w >> 7) & LOW;
        let nonzero = ((((w & SEVEN) + SEVEN) | w) >> 7) & LOW;
        let positive = nonzero & !sign;
        neg |= ((sign.wrapping_mul(GATHER) >> 56) as u32) << (8 * k);
        pos |= ((positive.wrapping_mul(GATHER) >> 56) as u32) << (8 * k);
    }
    (pos, neg)
}

/// Whether all of the mover's checkers on the board are home.
#[inline]
pub(crate) fn all_home(st: &St) -> bool {
    st.occ & OUTSIDE_HOME == 0
}

/// The route indices from which a checker can take a step of `d` that
/// passes the landing, head and bear-off rules (the six-block rule is
/// checked by [`apply`]).
#[inline]
pub(crate) fn sources(st: &St, ctx: &Ctx, d: u8) -> u32 {
    let d32 = u32::from(d);
    let mut m = st.occ & !(ctx.opp >> d32) & (ALL >> d32);
    if st.head >= ctx.head_limit {
        m &= !1;
    }
    if st.occ != 0 && all_home(st) {
        let exact = 24 - d32;
        if st.occ & (1 << exact) != 0 {
            m |= 1 << exact;
        } else {
            let far = st.occ.trailing_zeros();
            if far > exact {
                m |= 1 << far;
            }
        }
    }
    m
}

/// The step of `d` from route index `r` (a bit of [`sources`]); `None` if
/// it forms a forbidden six-block (the only rule not settled by
/// [`sources`]).
#[inline]
pub(crate) fn apply(st: &St, ctx: &Ctx, r: u32, d: u8) -> Option<St> {
    let mut s = *st;
    let r = r as usize;
    let t = r + usize::from(d);
    let ri = flip(r);
    s.p.board[ri] += 1;
    if s.p.board[ri] == 0 {
        s.occ &= !(1 << r);
    }
    if r == 0 {
        s.head += 1;
    }
    if t < 24 {
        let ti = flip(t);
        if s.p.board[ti] == 0 {
            s.occ |= 1 << t;
            if ctx.blocked(s.occ) {
                return None;
            }
        }
        s.p.board[ti] -= 1;
    } else {
        s.p.off[1] += 1;
    }
    if ctx.pre_blocked && ctx.blocked(s.occ) {
        return None;
    }
    Some(s)
}

/// The final position of the step of `d` from `r` (as [`apply`], without
/// the bookkeeping a further step would need).
#[inline]
fn apply_last(st: &St, ctx: &Ctx, r: u32, d: u8) -> Option<Position> {
    let mut p = st.p;
    let r = r as usize;
    let t = r + usize::from(d);
    let ri = flip(r);
    p.board[ri] += 1;
    if t < 24 {
        let ti = flip(t);
        if (p.board[ti] == 0 || ctx.pre_blocked) && ctx.forbidden != 0 {
            let mut occ = st.occ | (1 << t);
            if p.board[ri] == 0 {
                occ &= !(1 << r);
            }
            if ctx.blocked(occ) {
                return None;
            }
        }
        p.board[ti] -= 1;
    } else {
        p.off[1] += 1;
        if ctx.pre_blocked {
            let occ = if p.board[ri] == 0 {
                st.occ & !(1 << r)
            } else {
                st.occ
            };
            if ctx.blocked(occ) {
                return None;
            }
        }
    }
    Some(p)
}

/// Appends the distinct final positions (turn passed) of every legal play
/// of `dice` to `out`. A roll with no legal play gives the one passed
/// position; a finished game gives nothing.
pub(crate) fn legal_finals(pos: &Position, dice: Dice, out: &mut Vec<Position>) {
    if pos.is_game_over() {
        return;
    }
    let (ctx, st) = Ctx::new(pos, dice);
    let start = out.len();
    if dice.is_double() {
        let d = dice.first();
        if !doubles_rear_first(&ctx, &st, d, out) {
            out.truncate(start);
            doubles_exhaustive(&ctx, &st, d, out);
        }
    } else {
        nondouble(&ctx, &st, dice.high(), dice.low(), out);
    }
    if out.len() == start {
        // Nothing playable: the pass (st.p is the passed position).
        out.push(st.p);
    }
}

/// Double `d`, rear-first orders only. Returns false if a step was refused
/// by the six-block rule anywhere in the search: then the rear-first order
/// may have missed plays and the caller searches every order instead. With
/// no refusal the searched tree is the block-free tree, which is complete.
fn doubles_rear_first(ctx: &Ctx, st: &St, d: u8, out: &mut Vec<Position>) -> bool {
    let mut refused = false;
    let target = max_depth_asc(ctx, st, d, 0, 0, &mut refused);
    if refused {
        return false;
    }
    if target > 0 {
        let mut won = false;
        collect_asc(ctx, st, d, 1, 0, target, out, &mut won, &mut refused);
    }
    !refused
}

/// The most dice playable with double `d` (a win counts as all four),
/// searching rear-first orders only.
fn max_depth_asc(ctx: &Ctx, st: &St, d: u8, depth: u8, min_r: u32, refused: &mut bool) -> u8 {
    let mut best = depth;
    let mut srcs = sources(st, ctx, d) & !((1u32 << min_r) - 1);
    while srcs != 0 {
        let r = srcs.trailing_zeros();
        srcs &= srcs - 1;
        match apply(st, ctx, r, d) {
            None => *refused = true,
            Some(s2) => {
                if s2.off() == CHECKERS || depth + 1 == 4 {
                    return 4;
                }
                let v = max_depth_asc(ctx, &s2, d, depth + 1, r, refused);
                if v == 4 {
                    return 4;
                }
                best = best.max(v);
            }
        }
    }
    best
}

#[allow(clippy::too_many_arguments)]
fn collect_asc(
    ctx: &Ctx,
    st: &St,
    d: u8,
    depth: u8,
    min_r: u32,
    target: u8,
    out: &mut Vec<Position>,
    won: &mut bool,
    refused: &mut bool,
) {
    let mut srcs = sources(st, ctx, d) & !((1u32 << min_r) - 1);
    if depth == target {
        while srcs != 0 {
            let r = srcs.trailing_zeros();
            srcs &= srcs - 1;
            match apply_last(st, ctx, r, d) {
                None => *refused = true,
                Some(p) => {
                    if p.off[1] != CHECKERS || !std::mem::replace(won, true) {
                        out.push(p);
                    }
                }
            }
        }
        return;
    }
    while srcs != 0 {
        let r = srcs.trailing_zeros();
        srcs &= srcs - 1;
        match apply(st, ctx, r, d) {
            None => *refused = true,
            Some(s2) => {
                if s2.off() == CHECKERS {
                    if !std::mem::replace(won, true) {
                        out.push(s2.p);
                    }
                } else {
                    collect_asc(ctx, &s2, d, depth + 1, r, target, out, won, refused);
                }
            }
        }
    }
}

/// Double `d`, every order, level by level, merging transpositions (the
/// board fixes the rest of the state: the head counter is the head count
/// before minus after).
fn doubles_exhaustive(ctx: &Ctx, st: &St, d: u8, out: &mut Vec<Position>) {
    let mut level: Vec<St> = vec![*st];
    let mut next: Vec<St> = Vec::new();
    let mut depth = 0u8;
    let mut win: Option<Position> = None;
    for k in 1..=4u8 {
        next.clear();
        for s in &level {
            let mut srcs = sources(s, ctx, d);
            while srcs != 0 {
                let r = srcs.trailing_zeros();
                srcs &= srcs - 1;
                if let Some(s2) = apply(s, ctx, r, d) {
                    if s2.off() == CHECKERS {
                        win = Some(s2.p);
                    } else {
                        next.push(s2);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        next.sort_unstable_by_key(|s| s.p.board);
        next.dedup_by_key(|s| s.p.board);
        std::mem::swap(&mut level, &mut next);
        depth = k;
    }
    if (win.is_none() || depth == 4) && depth > 0 {
        out.extend(level.iter().map(|s| s.p));
    }
    if let Some(w) = win {
        out.push(w);
    }
}

/// Two different dice `a > b`.
fn nondouble(ctx: &Ctx, st: &St, a: u8, b: u8, out: &mut Vec<Position>) {
    let mut seen = Seen {
        ab: [0; 24],
        both_off: [0; 24],
        chains: 0,
        won: false,
    };
    let mut full = false;
    let mut refused = false;
    let mut singles_a = 0u32;
    let mut singles_b = 0u32;
    let a32 = u32::from(a);
    let b32 = u32::from(b);

    // Pass 1: a first.
    let mut xs = sources(st, ctx, a);
    while xs != 0 {
        let x = xs.trailing_zeros();
        xs &= xs - 1;
        let Some(s1) = apply(st, ctx, x, a) else {
            refused = true;
            continue;
        };
        if s1.off() == CHECKERS {
            full = true;
            if !std::mem::replace(&mut seen.won, true) {
                out.push(s1.p);
            }
            continue;
        }
        singles_a |= 1 << x;
        let mut ys = sources(&s1, ctx, b);
        while ys != 0 {
            let y = ys.trailing_zeros();
            ys &= ys - 1;
            let Some(p2) = apply_last(&s1, ctx, y, b) else {
                refused = true;
                continue;
            };
            full = true;
            seen.ab[x as usize] |= 1 << y;
            if seen.first_of_kind(p2.off[1], x, y, a32, b32) {
                out.push(p2);
            }
        }
    }

    // Pass 2: b first. Only plays whose a-first order is illegal are new.
    // Without bear-offs this turn (two or more checkers outside home) and
    // without a block refusal in pass 1, the a-first order of "y with b,
    // then x with a" is legal whenever x held a checker before the turn
    // (same landing, head and block checks as pass 1 made), so only the
    // chain x = y + b can be new.
    let chain_only = !refused && (st.occ & OUTSIDE_HOME).count_ones() >= 2;
    let mut ys = sources(st, ctx, b);
    while ys != 0 {
        let y = ys.trailing_zeros();
        ys &= ys - 1;
        let Some(s1) = apply(st, ctx, y, b) else {
            continue;
        };
        if s1.off() == CHECKERS {
            full = true;
            if !std::mem::replace(&mut seen.won, true) {
                out.push(s1.p);
            }
            continue;
        }
        singles_b |= 1 << y;
        let mut xs = sources(&s1, ctx, a);
        if chain_only {
            xs &= 1 << (y + b32);
        }
        while xs != 0 {
            let x = xs.trailing_zeros();
            xs &= xs - 1;
            // The same two steps in the other order were already seen.
            if seen.ab[x as usize] & (1 << y) != 0 {
                continue;
            }
            let Some(p2) = apply_last(&s1, ctx, x, a) else {
                continue;
            };
            full = true;
            if seen.first_of_kind(p2.off[1], x, y, a32, b32) {
                out.push(p2);
            }
        }
    }

    if !full {
        // Only one die can be played: the larger when it can.
        let (mut mask, d) = if singles_a != 0 {
            (singles_a, a)
        } else {
            (singles_b, b)
        };
        while mask != 0 {
            let r = mask.trailing_zeros();
            mask &= mask - 1;
            if let Some(p) = apply_last(st, ctx, r, d) {
                out.push(p);
            }
        }
    }
}

/// De-duplication for the two-step plays of a non-double.
struct Seen {
    /// `ab[x]` bit y: "x with a, then y with b" is legal.
    ab: [u32; 24],
    /// Both steps bore off, from {lo, hi}: `both_off[lo]` bit hi.
    both_off: [u32; 24],
    /// A chain final "one checker's worth from s to s+a+b": bit s.
    chains: u32,
    /// The win (everything off) was recorded.
    won: bool,
}

impl Seen {
    /// For the two-step play "x with a, y with b" (in either order) ending
    /// with `off` checkers borne off: whether its final is new. Two
    /// different multisets of steps reach the same final only as (1) a
    /// chain through an intermediate point — "s with a, s+a with b" and
    /// "s+b with a, s with b" both take one checker's worth from s to s+a+b
    /// —, (2) two bear-offs from the same two points with the dice swapped,
    /// or (3) a win.
    #[inline]
    fn first_of_kind(&mut self, off: u8, x: u32, y: u32, a: u32, b: u32) -> bool {
        if off == CHECKERS {
            return !std::mem::replace(&mut self.won, true);
        }
        let s = if x + a == y {
            x
        } else if y + b == x {
            y
        } else {
            if x + a >= 24 && y + b >= 24 {
                let (lo, hi) = (x.min(y), x.max(y));
                let bit = 1u32 << hi;
                let new = self.both_off[lo as usize] & bit == 0;
                self.both_off[lo as usize] |= bit;
                return new;
            }
            return true;
        };
        let bit = 1u32 << s;
        let new = self.chains & bit == 0;
        self.chains |= bit;
        new
    }
}
