//! Every legal play of a roll: the raw sequences the generator finds and
//! the full move listing ([`Moves`]) made of them (steps and sequences
//! are `notation.rs`'s, the step-by-step turn `turn.rs`'s).

use std::collections::HashSet;

use tabula_dice::Dice;

use crate::movegen::{Ctx, OFF, St, apply, sources};
use crate::notation::{Sequence, Step, Target};
use crate::position::{CHECKERS, Color, Position, point_of};

/// One step in route indices, with the die it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawStep {
    pub from: u8,
    /// Route index, or [`OFF`].
    pub to: u8,
    pub die: u8,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct RawSeq {
    pub steps: [RawStep; 4],
    pub len: u8,
    pub won: bool,
    pub fin: St,
}

impl RawSeq {
    fn same_steps(&self, other: &RawSeq) -> bool {
        self.len == other.len
            && self.steps[..self.len as usize]
                .iter()
                .zip(&other.steps[..other.len as usize])
                .all(|(a, b)| a.from == b.from && a.to == b.to)
    }
}

pub(crate) fn raw_to_step(color: Color, s: RawStep) -> Step {
    Step {
        from: point_of(color, usize::from(s.from)),
        to: if s.to == OFF {
            Target::Off
        } else {
            Target::Point(point_of(color, usize::from(s.to)))
        },
    }
}

/// Every legal sequence with the dice it uses, in generation order (larger
/// die first, then the checker farthest from home first), after the
/// max-dice, larger-die and winning rules. A position with no legal play
/// gives one empty sequence; a finished game gives none.
pub(crate) fn legal_raw(pos: &Position, dice: Dice) -> (Ctx, St, Vec<RawSeq>) {
    let (ctx, st) = Ctx::new(pos, dice);
    if pos.is_game_over() {
        return (ctx, st, Vec::new());
    }
    let dl = dice_list(dice);
    let mut out = Vec::new();
    let mut path = RawSeq {
        steps: [RawStep {
            from: 0,
            to: 0,
            die: 0,
        }; 4],
        len: 0,
        won: false,
        fin: st,
    };
    rec(&ctx, &st, &dl, &mut path, &mut out);
    let total = dl.len() as u8;
    let eff = |s: &RawSeq| if s.won { total } else { s.len };
    let max_eff = out.iter().map(eff).max().unwrap_or(0);
    out.retain(|s| eff(s) == max_eff);
    if !dice.is_double() && max_eff == 1 && out.iter().any(|s| s.steps[0].die == dice.high()) {
        out.retain(|s| s.steps[0].die == dice.high());
    }
    (ctx, st, out)
}

pub(crate) fn dice_list(dice: Dice) -> Vec<u8> {
    dice.moves()
}

fn rec(ctx: &Ctx, st: &St, rem: &[u8], path: &mut RawSeq, out: &mut Vec<RawSeq>) {
    let mut any = false;
    for (i, &d) in rem.iter().enumerate() {
        if rem[..i].contains(&d) {
            continue;
        }
        let mut srcs = sources(st, ctx, d);
        while srcs != 0 {
            let r = srcs.trailing_zeros();
            srcs &= srcs - 1;
            let Some(s2) = apply(st, ctx, r, d) else {
                continue;
            };
            any = true;
            let to = (r as u8 + d).min(OFF);
            path.steps[path.len as usize] = RawStep {
                from: r as u8,
                to,
                die: d,
            };
            path.len += 1;
            if s2.off() == CHECKERS {
                let mut p = *path;
                p.won = true;
                p.fin = s2;
                out.push(p);
            } else {
                // The other dice, on the stack: this runs for every node
                // of the search, once per roll in every room.
                let mut rest = [0u8; 4];
                let n = rem.len() - 1;
                rest[..i].copy_from_slice(&rem[..i]);
                rest[i..n].copy_from_slice(&rem[i + 1..]);
                rec(ctx, &s2, &rest[..n], path, out);
            }
            path.len -= 1;
        }
    }
    if !any {
        let mut p = *path;
        p.fin = *st;
        out.push(p);
    }
}

/// A distinct final position with one canonical sequence reaching it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Final {
    /// The first sequence in generation order (larger die first, then the
    /// checker farthest from home first) that reaches this position; empty
    /// for a pass.
    pub sequence: Sequence,
    /// The position after the play, with the opponent to move.
    pub position: Position,
}

/// Everything seed 000 asks for after a roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moves {
    /// The roll.
    pub dice: Dice,
    /// The most dice any legal sequence plays (0 when nothing is playable).
    /// A sequence that bears off the last checker may play fewer.
    pub max_dice: u8,
    /// Every distinct complete legal sequence, in generation order; empty
    /// when nothing is playable.
    pub sequences: Vec<Sequence>,
    /// The distinct final positions, each with its canonical sequence. With
    /// nothing playable this is the one passed position (empty sequence),
    /// so its length is always the perft count of the roll.
    pub finals: Vec<Final>,
}

impl Moves {
    /// The distinct legal first steps (what a client highlights).
    pub fn first_steps(&self) -> Vec<Step> {
        let mut out: Vec<Step> = Vec::new();
        for s in &self.sequences {
            if let Some(&f) = s.0.first()
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
        out
    }
}

/// What tells one turn's final positions apart, packed into integers: they
/// share the variant and the side to move, so the board, the borne-off
/// counts and the first-turn flags are all that can differ. Hashing and
/// comparing these is a few instructions, where the derived `Hash` of a
/// whole `Position` was 6 % of a loaded node's work.
pub(crate) type FinalKey = (u128, u64, u32);

pub(crate) fn final_key(p: &Position) -> FinalKey {
    let b = p.board.map(|c| c.to_le_bytes()[0]);
    let lo = u128::from_le_bytes(std::array::from_fn(|i| b[i]));
    let hi = u64::from_le_bytes(std::array::from_fn(|i| b[16 + i]));
    let rest = u32::from_le_bytes([
        p.off[0],
        p.off[1],
        u8::from(p.first[0]),
        u8::from(p.first[1]),
    ]);
    (lo, hi, rest)
}

pub(crate) fn moves(pos: &Position, dice: Dice) -> Moves {
    let (_, _, raw) = legal_raw(pos, dice);
    let color = pos.turn;
    let mut sequences: Vec<Sequence> = Vec::new();
    let mut seen: Vec<RawSeq> = Vec::new();
    let mut finals: Vec<Final> = Vec::new();
    let mut keys: HashSet<[i8; 24], foldhash::fast::RandomState> = HashSet::default();
    let mut max_dice = 0u8;
    for s in &raw {
        let seq = Sequence(
            s.steps[..s.len as usize]
                .iter()
                .map(|&r| raw_to_step(color, r))
                .collect(),
        );
        if keys.insert(s.fin.p.board) {
            finals.push(Final {
                sequence: seq.clone(),
                position: s.fin.p,
            });
        }
        if s.len == 0 {
            continue;
        }
        max_dice = max_dice.max(s.len);
        if !seen.iter().any(|o| o.same_steps(s)) {
            seen.push(*s);
            sequences.push(seq);
        }
    }
    Moves {
        dice,
        max_dice,
        sequences,
        finals,
    }
}
