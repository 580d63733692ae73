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

/// The mover's side of the board during a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct St {
    pub cnt: [u8; 24],
    pub occ: u32,
    pub off: u8,
    pub head: u8,
}

impl St {
    /// A compact key of the mover's counts (4 bits per point).
    #[inline]
    pub fn key(&self) -> u128 {
        let mut k = 0u128;
        for (r, &c) in self.cnt.iter().enumerate() {
            k |= u128::from(c) << (4 * r);
        }
        k
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
}

impl Ctx {
    pub fn new(pos: &Position, dice: Dice) -> (Ctx, St) {
        let mut st = St {
            cnt: [0; 24],
            occ: 0,
            off: pos.off[0],
            head: 0,
        };
        let mut opp = 0u32;
        for (r, &v) in pos.board.iter().enumerate() {
            if v > 0 {
                st.cnt[r] = v as u8;
                st.occ |= 1 << r;
            } else if v < 0 {
                opp |= 1 << r;
            }
        }
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
        (
            Ctx {
                opp,
                forbidden,
                head_limit,
            },
            st,
        )
    }

    /// Whether `occ` (mover occupancy) holds a forbidden six-block.
    #[inline]
    pub fn blocked(&self, occ: u32) -> bool {
        self.forbidden != 0 && six_windows(rot12(occ)) & self.forbidden != 0
    }
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
/// it forms a forbidden six-block.
#[inline]
pub(crate) fn apply(st: &St, ctx: &Ctx, r: u32, d: u8) -> Option<St> {
    let mut s = *st;
    let r = r as usize;
    let t = r + usize::from(d);
    s.cnt[r] -= 1;
    if s.cnt[r] == 0 {
        s.occ &= !(1 << r);
    }
    if r == 0 {
        s.head += 1;
    }
    if t < 24 {
        if s.cnt[t] == 0 {
            s.occ |= 1 << t;
            if ctx.blocked(s.occ) {
                return None;
            }
        }
        s.cnt[t] += 1;
    } else {
        s.off += 1;
    }
    Some(s)
}

/// Builds final positions (turn passed) from mover states.
pub(crate) struct Finisher {
    base: [i8; 24],
    tmpl: Position,
}

impl Finisher {
    pub fn new(pos: &Position) -> Finisher {
        let mut base = [0i8; 24];
        for (i, b) in base.iter_mut().enumerate() {
            // The opponent becomes the mover: his checkers, positive.
            *b = (-pos.board[(i + 12) % 24]).max(0);
        }
        let mut tmpl = *pos;
        tmpl.turn = pos.turn.other();
        tmpl.off = [pos.off[1], pos.off[0]];
        tmpl.first = [pos.first[1], false];
        Finisher { base, tmpl }
    }

    #[inline]
    pub fn make(&self, st: &St) -> Position {
        let mut p = self.tmpl;
        for i in 0..12 {
            p.board[i] = self.base[i] - st.cnt[i + 12] as i8;
            p.board[i + 12] = self.base[i + 12] - st.cnt[i] as i8;
        }
        p.off[1] = st.off;
        p
    }
}

/// Appends the distinct final positions (turn passed) of every legal play
/// of `dice` to `out`. A roll with no legal play gives the one passed
/// position; a finished game gives nothing.
pub(crate) fn legal_finals(pos: &Position, dice: Dice, out: &mut Vec<Position>) {
    if pos.is_game_over() {
        return;
    }
    let (ctx, st) = Ctx::new(pos, dice);
    let fin = Finisher::new(pos);
    let start = out.len();
    if dice.is_double() {
        let d = dice.first();
        if block_can_bite(&ctx, &st, d) {
            doubles_exhaustive(&ctx, &st, d, &fin, out);
        } else {
            let target = max_depth_asc(&ctx, &st, d, 0, 0);
            if target > 0 {
                let mut won = false;
                collect_asc(&ctx, &st, d, 1, 0, target, &fin, out, &mut won);
            }
        }
    } else {
        nondouble(&ctx, &st, dice.high(), dice.low(), &fin, out);
    }
    if out.len() == start {
        out.push(pos.pass_turn());
    }
}

/// Conservatively: could any six-block in a forbidden window form while
/// playing double `d`? (Current occupancy plus every point reachable by up
/// to four steps of `d` through points the opponent does not hold.)
#[inline]
fn block_can_bite(ctx: &Ctx, st: &St, d: u8) -> bool {
    if ctx.forbidden == 0 {
        return false;
    }
    let mut reach = st.occ;
    let mut frontier = st.occ;
    for _ in 0..4 {
        frontier = (frontier << d) & ALL & !ctx.opp;
        reach |= frontier;
    }
    six_windows(rot12(reach)) & ctx.forbidden != 0
}

/// The most dice playable with double `d` (a win counts as all four),
/// searching rear-first orders only.
fn max_depth_asc(ctx: &Ctx, st: &St, d: u8, depth: u8, min_r: u32) -> u8 {
    let mut best = depth;
    let mut srcs = sources(st, ctx, d) & !((1u32 << min_r) - 1);
    while srcs != 0 {
        let r = srcs.trailing_zeros();
        srcs &= srcs - 1;
        if let Some(s2) = apply(st, ctx, r, d) {
            if s2.off == CHECKERS || depth + 1 == 4 {
                return 4;
            }
            let v = max_depth_asc(ctx, &s2, d, depth + 1, r);
            if v == 4 {
                return 4;
            }
            best = best.max(v);
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
    fin: &Finisher,
    out: &mut Vec<Position>,
    won: &mut bool,
) {
    let mut srcs = sources(st, ctx, d) & !((1u32 << min_r) - 1);
    while srcs != 0 {
        let r = srcs.trailing_zeros();
        srcs &= srcs - 1;
        if let Some(s2) = apply(st, ctx, r, d) {
            if s2.off == CHECKERS {
                if !*won {
                    *won = true;
                    out.push(fin.make(&s2));
                }
            } else if depth == target {
                out.push(fin.make(&s2));
            } else {
                collect_asc(ctx, &s2, d, depth + 1, r, target, fin, out, won);
            }
        }
    }
}

/// Every order, level by level, merging transpositions.
fn doubles_exhaustive(ctx: &Ctx, st: &St, d: u8, fin: &Finisher, out: &mut Vec<Position>) {
    let mut level: Vec<St> = vec![*st];
    let mut depth = 0u8;
    let mut win: Option<St> = None;
    let mut next: Vec<(u128, St)> = Vec::new();
    for k in 1..=4u8 {
        next.clear();
        for s in &level {
            let mut srcs = sources(s, ctx, d);
            while srcs != 0 {
                let r = srcs.trailing_zeros();
                srcs &= srcs - 1;
                if let Some(s2) = apply(s, ctx, r, d) {
                    if s2.off == CHECKERS {
                        win = Some(s2);
                    } else {
                        next.push((s2.key(), s2));
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        next.sort_unstable_by_key(|e| e.0);
        next.dedup_by_key(|e| e.0);
        level = next.iter().map(|e| e.1).collect();
        // The head counter is part of the state but is fixed by the board
        // (head count before minus after), so the key suffices.
        depth = k;
    }
    if let Some(w) = win {
        if depth == 4 {
            out.extend(level.iter().map(|s| fin.make(s)));
        }
        out.push(fin.make(&w));
    } else if depth > 0 {
        out.extend(level.iter().map(|s| fin.make(s)));
    }
}

/// Two different dice `a > b`.
fn nondouble(ctx: &Ctx, st: &St, a: u8, b: u8, fin: &Finisher, out: &mut Vec<Position>) {
    // ab[x] bit y: "x with a, then y with b" is legal.
    let mut ab = [0u32; 24];
    // Both steps bore off from {lo, hi}: seen[lo] bit hi.
    let mut both_off = [0u32; 24];
    // A chain final "-s, +(s+a+b)" was recorded: bit s.
    let mut chains = 0u32;
    let mut full = false;
    let mut won = false;
    let mut singles_a: [St; 15] = [*st; 15];
    let mut n_a = 0usize;
    let mut singles_b: [St; 15] = [*st; 15];
    let mut n_b = 0usize;
    let a32 = u32::from(a);
    let b32 = u32::from(b);

    // Pass 1: a first.
    let mut xs = sources(st, ctx, a);
    while xs != 0 {
        let x = xs.trailing_zeros();
        xs &= xs - 1;
        let Some(s1) = apply(st, ctx, x, a) else {
            continue;
        };
        if s1.off == CHECKERS {
            full = true;
            if !won {
                won = true;
                out.push(fin.make(&s1));
            }
            continue;
        }
        singles_a[n_a] = s1;
        n_a += 1;
        let x_off = x + a32 >= 24;
        let mut ys = sources(&s1, ctx, b);
        while ys != 0 {
            let y = ys.trailing_zeros();
            ys &= ys - 1;
            let Some(s2) = apply(&s1, ctx, y, b) else {
                continue;
            };
            full = true;
            ab[x as usize] |= 1 << y;
            if first_of_kind(
                &s2,
                x,
                y,
                a32,
                b32,
                x_off,
                &mut won,
                &mut chains,
                &mut both_off,
            ) {
                out.push(fin.make(&s2));
            }
        }
    }

    // Pass 2: b first.
    let mut ys = sources(st, ctx, b);
    while ys != 0 {
        let y = ys.trailing_zeros();
        ys &= ys - 1;
        let Some(s1) = apply(st, ctx, y, b) else {
            continue;
        };
        if s1.off == CHECKERS {
            full = true;
            if !won {
                won = true;
                out.push(fin.make(&s1));
            }
            continue;
        }
        singles_b[n_b] = s1;
        n_b += 1;
        let mut xs = sources(&s1, ctx, a);
        while xs != 0 {
            let x = xs.trailing_zeros();
            xs &= xs - 1;
            let Some(s2) = apply(&s1, ctx, x, a) else {
                continue;
            };
            full = true;
            // Same steps in the other order.
            if ab[x as usize] & (1 << y) != 0 {
                continue;
            }
            if first_of_kind(
                &s2,
                x,
                y,
                a32,
                b32,
                x + a32 >= 24,
                &mut won,
                &mut chains,
                &mut both_off,
            ) {
                out.push(fin.make(&s2));
            }
        }
    }

    if !full {
        // Only one die can be played: the larger when it can.
        let singles = if n_a > 0 {
            &singles_a[..n_a]
        } else {
            &singles_b[..n_b]
        };
        out.extend(singles.iter().map(|s| fin.make(s)));
    }
}

/// For the two-step play "x with a, y with b" (in either order) reaching
/// `s2`: whether its final is new. Two different step multisets reach the
/// same final only as (1) a chain through an intermediate point — "s with a,
/// s+a with b" and "s+b with a, s with b" both move one checker's worth from
/// s to s+a+b —, (2) two bear-offs from the same two points with the dice
/// swapped, or (3) a win.
#[allow(clippy::too_many_arguments)]
#[inline]
fn first_of_kind(
    s2: &St,
    x: u32,
    y: u32,
    a: u32,
    b: u32,
    x_off: bool,
    won: &mut bool,
    chains: &mut u32,
    both_off: &mut [u32; 24],
) -> bool {
    if s2.off == CHECKERS {
        return !std::mem::replace(won, true);
    }
    let s = if x + a == y {
        Some(x)
    } else if y + b == x {
        Some(y)
    } else {
        None
    };
    if let Some(s) = s {
        let bit = 1u32 << s;
        let new = *chains & bit == 0;
        *chains |= bit;
        return new;
    }
    if x_off && y + b >= 24 {
        let (lo, hi) = (x.min(y), x.max(y));
        let bit = 1u32 << hi;
        let new = both_off[lo as usize] & bit == 0;
        both_off[lo as usize] |= bit;
        return new;
    }
    true
}
