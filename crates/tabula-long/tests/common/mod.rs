//! Test helpers: a position builder and an independent, deliberately plain
//! reference move generator written in seed-000 point numbering.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use tabula_dice::Dice;
use tabula_long::{Color, OffCounts, Position, PrimeRule, Setup, Variant};

/// Builds a position: checkers by point for each side; borne-off counts are
/// whatever is missing from 15.
pub fn build(
    turn: Color,
    white: &[(u8, i64)],
    black: &[(u8, i64)],
    first_turn: bool,
    variant: Variant,
) -> Position {
    let setup = make_setup(turn, white, black, first_turn);
    Position::from_setup(&setup, variant).expect("test position is legal")
}

pub fn make_setup(
    turn: Color,
    white: &[(u8, i64)],
    black: &[(u8, i64)],
    first_turn: bool,
) -> Setup {
    let map = |v: &[(u8, i64)]| -> BTreeMap<String, i64> {
        v.iter().map(|&(p, n)| (p.to_string(), n)).collect()
    };
    let off = |v: &[(u8, i64)]| 15 - v.iter().map(|&(_, n)| n).sum::<i64>();
    Setup {
        turn,
        white: map(white),
        black: map(black),
        off: OffCounts {
            white: off(white),
            black: off(black),
        },
        first_turn,
    }
}

/// `pos!(white; w [24:14, 19:1]; b [12:15])`, optionally `; first` and/or
/// `; variant V`.
#[macro_export]
macro_rules! pos {
    ($turn:ident; w [$($wp:literal : $wn:literal),* $(,)?]; b [$($bp:literal : $bn:literal),* $(,)?] $(; $first:ident)? $(; variant $v:expr)?) => {{
        #[allow(unused_mut, unused_assignments)]
        let mut first = false;
        $( let _ = stringify!($first); first = true; )?
        #[allow(unused_mut, unused_assignments)]
        let mut variant = tabula_long::Variant::default();
        $( variant = $v; )?
        let turn = match stringify!($turn) {
            "white" => tabula_long::Color::White,
            _ => tabula_long::Color::Black,
        };
        $crate::common::build(turn, &[$(($wp, $wn)),*], &[$(($bp, $bn)),*], first, variant)
    }};
}

pub fn dice(a: u8, b: u8) -> Dice {
    Dice::new(a, b).unwrap()
}

pub fn variant(s: &str) -> Variant {
    s.parse().unwrap()
}

/// A final board in plain form: (white by point, black by point, off).
pub type PlainBoard = ([u8; 25], [u8; 25], [u8; 2]);

pub fn plain(p: &Position) -> PlainBoard {
    let mut w = [0u8; 25];
    let mut b = [0u8; 25];
    for pt in 1..=24u8 {
        w[pt as usize] = p.checkers(Color::White, pt);
        b[pt as usize] = p.checkers(Color::Black, pt);
    }
    (w, b, [p.off(Color::White), p.off(Color::Black)])
}

// ---------------------------------------------------------------------
// The reference generator. Everything here is written from RULES.md in
// point numbering, sharing no code with the engine.
// ---------------------------------------------------------------------

fn r_of(color: Color, p: u8) -> i32 {
    match color {
        Color::White => 24 - p as i32,
        Color::Black => (12 - p as i32).rem_euclid(24),
    }
}

fn p_of(color: Color, r: i32) -> u8 {
    match color {
        Color::White => (24 - r) as u8,
        Color::Black => {
            let p = (12 - r).rem_euclid(24);
            if p == 0 { 24 } else { p as u8 }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct RState {
    w: [u8; 25],
    b: [u8; 25],
    off: [u8; 2],
    head_left: u8,
}

impl RState {
    fn mine(&mut self, c: Color) -> &mut [u8; 25] {
        match c {
            Color::White => &mut self.w,
            Color::Black => &mut self.b,
        }
    }
    fn get(&self, c: Color, p: u8) -> u8 {
        match c {
            Color::White => self.w[p as usize],
            Color::Black => self.b[p as usize],
        }
    }
    fn ci(c: Color) -> usize {
        if c == Color::White { 0 } else { 1 }
    }
}

fn forms_forbidden_block(s: &RState, me: Color, rule: PrimeRule) -> bool {
    let opp = me.other();
    // Windows along the opponent's route, indices 0..=23, not wrapping.
    for start in 0..=18 {
        let all = (start..start + 6).all(|q| s.get(me, p_of(opp, q)) > 0);
        if !all {
            continue;
        }
        let allowed = match rule {
            PrimeRule::OpponentAhead => {
                s.off[RState::ci(opp)] > 0 || (start + 6..24).any(|q| s.get(opp, p_of(opp, q)) > 0)
            }
            PrimeRule::OpponentHome => (18..24).any(|q| s.get(opp, p_of(opp, q)) > 0),
        };
        if !allowed {
            return true;
        }
    }
    false
}

/// One step of `die` from point `p`, or None.
fn ref_step(s: &RState, me: Color, p: u8, die: u8, rule: PrimeRule) -> Option<RState> {
    if s.get(me, p) == 0 {
        return None;
    }
    let opp = me.other();
    let r = r_of(me, p);
    let is_head = r == 0;
    if is_head && s.head_left == 0 {
        return None;
    }
    let t = r + die as i32;
    let mut n = *s;
    n.mine(me)[p as usize] -= 1;
    if is_head {
        n.head_left -= 1;
    }
    if t < 24 {
        let tp = p_of(me, t);
        if s.get(opp, tp) > 0 {
            return None;
        }
        n.mine(me)[tp as usize] += 1;
    } else {
        // All 15 home (counting off)?
        let home: u8 = (18..24).map(|q| s.get(me, p_of(me, q))).sum::<u8>() + s.off[RState::ci(me)];
        if home != 15 {
            return None;
        }
        if t > 24 {
            // Only from the farthest occupied home point.
            let farther = (0..r).any(|q| s.get(me, p_of(me, q)) > 0);
            if farther {
                return None;
            }
        }
        n.off[RState::ci(me)] += 1;
    }
    // The six-block rule holds after every single step.
    if forms_forbidden_block(&n, me, rule) {
        return None;
    }
    Some(n)
}

fn ref_rec(
    s: &RState,
    me: Color,
    rem: &[u8],
    used: usize,
    first_die: Option<u8>,
    rule: PrimeRule,
    out: &mut Vec<(RState, usize, bool, Option<u8>)>,
) {
    let mut moved = false;
    for i in 0..rem.len() {
        let die = rem[i];
        for p in 1..=24u8 {
            if let Some(n) = ref_step(s, me, p, die, rule) {
                moved = true;
                let fd = first_die.or(Some(die));
                if n.off[RState::ci(me)] == 15 {
                    out.push((n, used + 1, true, fd));
                } else {
                    let mut rest = rem.to_vec();
                    rest.remove(i);
                    ref_rec(&n, me, &rest, used + 1, fd, rule, out);
                }
            }
        }
    }
    if !moved {
        out.push((*s, used, false, first_die));
    }
}

/// The distinct final boards of `dice` in `pos`, by the plain reference.
pub fn reference_finals(pos: &Position, d: Dice) -> BTreeSet<PlainBoard> {
    let me = pos.turn();
    let (w, b, off) = plain(pos);
    let double = d.first() == d.second();
    let v = d.first();
    let head_left = if double && pos.is_first_turn(me) && (v == 3 || v == 4 || v == 6) {
        2
    } else {
        1
    };
    let s = RState {
        w,
        b,
        off,
        head_left,
    };
    let rem: Vec<u8> = if double {
        vec![v; 4]
    } else {
        vec![d.first(), d.second()]
    };
    let mut out = Vec::new();
    ref_rec(&s, me, &rem, 0, None, pos.variant().prime_rule, &mut out);
    let total = rem.len();
    let eff = |e: &(RState, usize, bool, Option<u8>)| if e.2 { total } else { e.1 };
    let best = out.iter().map(eff).max().unwrap_or(0);
    let mut keep: Vec<_> = out.into_iter().filter(|e| eff(e) == best).collect();
    if !double && best == 1 {
        let hi = d.first().max(d.second());
        if keep.iter().any(|e| e.3 == Some(hi)) {
            keep.retain(|e| e.3 == Some(hi));
        }
    }
    keep.into_iter().map(|e| (e.0.w, e.0.b, e.0.off)).collect()
}

/// The engine's finals in plain form.
pub fn engine_finals(pos: &Position, d: Dice) -> BTreeSet<PlainBoard> {
    pos.legal_moves(d).iter().map(plain).collect()
}

/// Positions from seeded random self-play (every `every`-th ply).
pub fn sample_positions(seed: u64, games: usize, every: u32, variant: Variant) -> Vec<Position> {
    let mut out = Vec::new();
    let mut dice = tabula_dice::SeededDice::new(seed);
    for _ in 0..games {
        let mut ply = 0u32;
        tabula_long::play_random_game(variant, &mut dice, 5000, |p| {
            if ply.is_multiple_of(every) {
                out.push(*p);
            }
            ply += 1;
        });
    }
    out
}
