//! The fast move generator: every distinct resulting position exactly once.
//!
//! Works on the mover-relative board (see [`Position::board`]). Duplicates
//! are avoided by construction rather than filtered:
//!
//! * Doubles: checkers are moved in non-increasing order of origin point, so
//!   each multiset of single-die moves is built once; the multiset fixes the
//!   result and vice versa (read the changes top-down), so no two results
//!   coincide. Moving the higher checker first is never less permissive
//!   (bar first, bear-off needs everyone home and no checker behind).
//! * Mixed rolls: "small die first" pairs with the big die's origin at or
//!   below the small one's, "big die first" pairs with the small die's origin
//!   strictly below; the one-checker play moved big-then-small is skipped
//!   when it equals the small-then-big one (no hit and no block on either
//!   intermediate point). Bear-offs can merge different pairs into one
//!   result, so only when a checker was borne off are the results sorted and
//!   deduplicated.

use tabula_dice::Dice;

use crate::position::Position;

pub(crate) type Board = [i8; 26];

/// Bits 1..=25 set where the mover has checkers (25 = bar).
#[inline(always)]
fn occupied(b: &Board) -> u32 {
    let mut m = 0u32;
    for (i, &c) in b.iter().enumerate().skip(1) {
        if c > 0 {
            m |= 1 << i;
        }
    }
    m
}

/// Iterates the set bits of `m`, highest first.
#[inline(always)]
fn for_each_desc(mut m: u32, mut f: impl FnMut(usize)) {
    while m != 0 {
        let i = 31 - m.leading_zeros();
        m &= !(1 << i);
        f(i as usize);
    }
}

/// Bits 1..=top.
#[inline(always)]
fn up_to(top: usize) -> u32 {
    ((2u64 << top) - 2) as u32
}

/// Can a mover checker on `i` (which must hold one) move `d` pips? `m` is
/// the occupancy mask. Does not check the bar rule.
#[inline(always)]
fn can_move_m(b: &Board, m: u32, i: usize, d: usize) -> bool {
    if i > d {
        b[i - d] >= -1
    } else if i == d {
        m >> 7 == 0
    } else {
        m >> (i + 1) == 0
    }
}

/// Moves a mover checker from `i` by `d` (hitting a blot), assuming legal.
#[inline(always)]
pub(crate) fn apply(b: &mut Board, i: usize, d: usize) {
    b[i] -= 1;
    if i > d {
        let t = i - d;
        if b[t] == -1 {
            b[t] = 1;
            b[0] -= 1;
        } else {
            b[t] += 1;
        }
    }
}

/// The board and mask after moving `i` by `d`.
#[inline(always)]
fn moved(b: &Board, m: u32, i: usize, d: usize) -> (Board, u32) {
    let mut c = *b;
    let mut cm = m;
    apply(&mut c, i, d);
    if c[i] == 0 {
        cm &= !(1 << i);
    }
    if i > d {
        cm |= 1 << (i - d);
    }
    (c, cm)
}

/// The generator's output sink: positions with a fixed side on roll.
struct Sink<'a> {
    out: &'a mut Vec<Position>,
    turn: crate::Side,
}

impl Sink<'_> {
    #[inline(always)]
    fn push(&mut self, board: Board) {
        self.out.push(Position {
            board,
            turn: self.turn,
        });
    }
}

/// Appends every distinct position after a legal play of `dice` to `out`
/// (mover still on roll) and returns how many dice the play uses. With no
/// legal play it appends the unchanged position and returns 0.
pub(crate) fn generate(pos: &Position, dice: Dice, out: &mut Vec<Position>) -> usize {
    let start = out.len();
    let mut sink = Sink {
        out,
        turn: pos.turn,
    };
    let b = &pos.board;
    let n = if dice.is_double() {
        doubles(b, dice.high() as usize, &mut sink)
    } else {
        let big = dice.high() as usize;
        let small = dice.low() as usize;
        match b[25] {
            0 => mixed_no_bar(b, big, small, &mut sink, start),
            1 => mixed_one_on_bar(b, big, small, &mut sink),
            _ => {
                let mut p = *b;
                let mut n = 0;
                for d in [big, small] {
                    if p[25 - d] >= -1 {
                        apply(&mut p, 25, d);
                        n += 1;
                    }
                }
                sink.push(p);
                n
            }
        }
    };
    if out.len() == start {
        out.push(*pos);
    }
    n
}

fn doubles(b: &Board, d: usize, sink: &mut Sink<'_>) -> usize {
    let start = sink.out.len();
    let mut max_depth = 0usize;
    dfs_double(b, occupied(b), d, 25, 0, &mut max_depth, sink, start);
    max_depth
}

#[allow(clippy::too_many_arguments)]
fn dfs_double(
    p: &Board,
    m: u32,
    d: usize,
    from_max: usize,
    depth: usize,
    max_depth: &mut usize,
    sink: &mut Sink<'_>,
    start: usize,
) {
    let mut any = false;
    if depth < 4 {
        if p[25] > 0 {
            if p[25 - d] >= -1 {
                any = true;
                let (c, cm) = moved(p, m, 25, d);
                dfs_double(&c, cm, d, 25, depth + 1, max_depth, sink, start);
            }
        } else if depth == 3 {
            // Last die: push the results directly.
            for_each_desc(m & up_to(from_max.min(24)), |i| {
                if can_move_m(p, m, i, d) {
                    any = true;
                    let (c, _) = moved(p, m, i, d);
                    if *max_depth < 4 {
                        sink.out.truncate(start);
                        *max_depth = 4;
                    }
                    sink.push(c);
                }
            });
        } else {
            for_each_desc(m & up_to(from_max.min(24)), |i| {
                if can_move_m(p, m, i, d) {
                    any = true;
                    let (c, cm) = moved(p, m, i, d);
                    dfs_double(&c, cm, d, i, depth + 1, max_depth, sink, start);
                }
            });
        }
    }
    if !any {
        if depth > *max_depth {
            sink.out.truncate(start);
            *max_depth = depth;
        }
        if depth == *max_depth && depth > 0 {
            sink.push(*p);
        }
    }
}

fn mixed_one_on_bar(b: &Board, big: usize, small: usize, sink: &mut Sink<'_>) -> usize {
    let start = sink.out.len();
    let m = occupied(b);
    let enter_big = b[25 - big] >= -1;
    let enter_small = b[25 - small] >= -1;
    if enter_big {
        let (p, pm) = moved(b, m, 25, big);
        for_each_desc(pm & up_to(24), |j| {
            if can_move_m(&p, pm, j, small) {
                sink.push(moved(&p, pm, j, small).0);
            }
        });
    }
    if enter_small {
        let (p, pm) = moved(b, m, 25, small);
        // The entered checker continuing with the big die lands where
        // "enter big, continue small" did, unless an intermediate point
        // differs (a blot hit, or the big entry point closed).
        let different = b[25 - big] < 0 || b[25 - small] < 0;
        let skip = if different { 0 } else { 1 << (25 - small) };
        for_each_desc(pm & up_to(24) & !skip, |j| {
            if can_move_m(&p, pm, j, big) {
                sink.push(moved(&p, pm, j, big).0);
            }
        });
    }
    if sink.out.len() > start {
        return 2;
    }
    if enter_big {
        sink.push(moved(b, m, 25, big).0);
        1
    } else if enter_small {
        sink.push(moved(b, m, 25, small).0);
        1
    } else {
        0
    }
}

fn mixed_no_bar(b: &Board, big: usize, small: usize, sink: &mut Sink<'_>, start: usize) -> usize {
    let m = occupied(b);
    // Bear-offs can merge different pairs into one result.
    let mut bore_off = false;
    // Small die first; the big die then moves a checker at or below.
    for_each_desc(m, |i| {
        if can_move_m(b, m, i, small) {
            let (p, pm) = moved(b, m, i, small);
            bore_off |= i <= small;
            for_each_desc(pm & up_to(i), |j| {
                if can_move_m(&p, pm, j, big) {
                    bore_off |= j <= big;
                    sink.push(moved(&p, pm, j, big).0);
                }
            });
        }
    });
    // Big die first; the small die then moves a checker strictly below.
    for_each_desc(m, |i| {
        if can_move_m(b, m, i, big) {
            let (p, pm) = moved(b, m, i, big);
            bore_off |= i <= big;
            let skip = if i > big && b[i - big] >= 0 && b[i - small] >= 0 {
                1 << (i - big)
            } else {
                0
            };
            for_each_desc(pm & up_to(i - 1) & !skip, |j| {
                if can_move_m(&p, pm, j, small) {
                    bore_off |= j <= small;
                    sink.push(moved(&p, pm, j, small).0);
                }
            });
        }
    });
    if sink.out.len() > start {
        if bore_off {
            let found = &mut sink.out[start..];
            found.sort_unstable();
            let mut w = start;
            for r in start..sink.out.len() {
                if r == start || sink.out[r] != sink.out[w - 1] {
                    sink.out[w] = sink.out[r];
                    w += 1;
                }
            }
            sink.out.truncate(w);
        }
        return 2;
    }
    for d in [big, small] {
        for_each_desc(m, |i| {
            if can_move_m(b, m, i, d) {
                sink.push(moved(b, m, i, d).0);
            }
        });
        if sink.out.len() > start {
            return 1;
        }
    }
    0
}
