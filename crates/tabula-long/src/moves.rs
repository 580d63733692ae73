//! Steps, sequences, the full move listing ([`Moves`]) and the step-by-step
//! [`Turn`].

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use tabula_dice::Dice;

use crate::movegen::{Ctx, OFF, St, all_home, apply, sources};
use crate::position::{CHECKERS, Color, Position, point_of, route_index};

/// Where a step lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A point 1..=24 (seed-000 numbering).
    Point(u8),
    /// Borne off.
    Off,
}

/// One checker moved by one die, in seed-000 numbering: `24-18`, `5-off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Step {
    /// The point the checker leaves.
    pub from: u8,
    /// Where it goes.
    pub to: Target,
}

impl Step {
    /// A step between two points.
    pub fn new(from: u8, to: u8) -> Step {
        Step {
            from,
            to: Target::Point(to),
        }
    }

    /// A bear-off step.
    pub fn off(from: u8) -> Step {
        Step {
            from,
            to: Target::Off,
        }
    }
}

impl Step {
    /// The notation's bytes: ASCII digits, `-` and `off`, at most 7.
    fn notation(&self) -> ([u8; 7], usize) {
        fn digits(n: u8, buf: &mut [u8; 7], len: &mut usize) {
            if n >= 100 {
                buf[*len] = b'0' + n / 100;
                *len += 1;
            }
            if n >= 10 {
                buf[*len] = b'0' + n / 10 % 10;
                *len += 1;
            }
            buf[*len] = b'0' + n % 10;
            *len += 1;
        }
        let mut buf = [0u8; 7];
        let mut len = 0;
        digits(self.from, &mut buf, &mut len);
        buf[len] = b'-';
        len += 1;
        match self.to {
            Target::Point(p) => digits(p, &mut buf, &mut len),
            Target::Off => {
                buf[len..len + 3].copy_from_slice(b"off");
                len += 3;
            }
        }
        (buf, len)
    }

    /// Appends the notation (what `Display` writes) to `out`, without
    /// `core::fmt`: a node writes every offered step and sequence of every
    /// turn as text, and the formatting machinery was most of that cost.
    pub fn push_to(&self, out: &mut String) {
        let (buf, len) = self.notation();
        out.extend(buf[..len].iter().map(|&b| char::from(b)));
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (buf, len) = self.notation();
        f.write_str(std::str::from_utf8(&buf[..len]).map_err(|_| fmt::Error)?)
    }
}

/// Text that is not a step or a sequence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotationError {
    /// Not of the form `24-18` or `5-off`.
    #[error("cannot read step {0:?}: expected FROM-TO like 24-18 or 5-off")]
    Malformed(String),
}

impl FromStr for Step {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Step, NotationError> {
        let bad = || NotationError::Malformed(s.to_string());
        let (a, b) = s.trim().split_once('-').ok_or_else(bad)?;
        let from: u8 = a.trim().parse().map_err(|_| bad())?;
        let b = b.trim();
        if b.eq_ignore_ascii_case("off") {
            Ok(Step::off(from))
        } else {
            Ok(Step::new(from, b.parse().map_err(|_| bad())?))
        }
    }
}

/// A sequence of steps, written `24-20,20-18` (seed 000).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Sequence(pub Vec<Step>);

impl Sequence {
    /// The steps.
    pub fn steps(&self) -> &[Step] {
        &self.0
    }

    /// How many dice it plays.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it plays nothing (a pass).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends the notation (what `Display` writes) to `out`; see
    /// [`Step::push_to`].
    pub fn push_to(&self, out: &mut String) {
        push_steps(self.0.iter().copied(), out);
    }
}

/// Appends steps in sequence notation (`24-18,18-13`).
fn push_steps(steps: impl Iterator<Item = Step>, out: &mut String) {
    for (i, s) in steps.enumerate() {
        if i > 0 {
            out.push(',');
        }
        s.push_to(out);
    }
}

impl fmt::Display for Sequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            fmt::Display::fmt(s, f)?;
        }
        Ok(())
    }
}

impl FromStr for Sequence {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Sequence, NotationError> {
        s.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(Step::from_str)
            .collect::<Result<Vec<_>, _>>()
            .map(Sequence)
    }
}

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

fn raw_to_step(color: Color, s: RawStep) -> Step {
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

fn dice_list(dice: Dice) -> Vec<u8> {
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
type FinalKey = (u128, u64, u32);

fn final_key(p: &Position) -> FinalKey {
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

/// Why a single step is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// The step was offered for the side not on move.
    #[error("it is {mover}'s turn, not {player}'s")]
    NotYourTurn {
        /// The side to move.
        mover: Color,
        /// The side that tried to move.
        player: Color,
    },
    /// Every playable die has been played.
    #[error("the turn is complete: nothing is left to play")]
    TurnComplete,
    /// A point outside 1..=24.
    #[error("point {point} is not on the board (points are 1..24)")]
    NotOnBoard {
        /// The point as given.
        point: u8,
    },
    /// The mover has no checker on the from-point (it is empty or the
    /// opponent's).
    #[error("{color} has no checker on point {point}")]
    NoOwnChecker {
        /// The mover.
        color: Color,
        /// The from-point.
        point: u8,
    },
    /// Checkers only move forward along their route.
    #[error("{color} cannot move from {from} to {to}: checkers only move forward")]
    WrongDirection {
        /// The mover.
        color: Color,
        /// The from-point.
        from: u8,
        /// The to-point.
        to: u8,
    },
    /// No remaining die has the step's length.
    #[error("no die left for a move of {distance} (dice left: {dice:?})")]
    DieNotAvailable {
        /// The length of the step.
        distance: u8,
        /// The dice not yet played.
        dice: Vec<u8>,
    },
    /// The to-point holds opponent checkers.
    #[error("point {point} is held by the opponent")]
    LandsOnOpponent {
        /// The to-point.
        point: u8,
    },
    /// Too many checkers would leave the head this turn.
    #[error("the head rule allows only {limit} checker(s) to leave the head this turn")]
    HeadRule {
        /// Checkers allowed off the head this turn.
        limit: u8,
    },
    /// The step would make a six-point block the prime rule forbids.
    #[error("this step makes a six-point block the opponent has not yet passed")]
    SixBlock,
    /// Bearing off before all 15 are home.
    #[error("cannot bear off yet: not all 15 checkers are home")]
    BearOffTooEarly,
    /// No remaining die bears off from this point.
    #[error(
        "cannot bear off from {point} with dice {dice:?}: needs a {distance}, or a larger die from the farthest point"
    )]
    BearOffWrongDie {
        /// The from-point.
        point: u8,
        /// Its distance to the edge.
        distance: u8,
        /// The dice not yet played.
        dice: Vec<u8>,
    },
    /// Only one die can be played and the larger one can: play it.
    #[error("only one die can be played, so the larger die must be played")]
    MustPlayLargerDie,
    /// The step is legal alone but then fewer dice than possible get played.
    #[error("this step would leave a playable die unplayed")]
    LeavesDieUnplayed,
    /// `finish` before the turn is complete.
    #[error("the turn is not complete: legal steps remain")]
    TurnIncomplete,
}

/// A turn played one step at a time (seed 000's `move` message): the legal
/// steps now, why a step is refused, the continuations after each step.
#[derive(Debug, Clone)]
pub struct Turn {
    start: Position,
    dice: Dice,
    ctx: Ctx,
    st: St,
    dice_left: Vec<u8>,
    played: Vec<Step>,
    conts: Vec<RawSeq>,
    max_dice: u8,
}

impl Turn {
    /// Starts a turn for the side to move in `pos` with `dice`.
    pub fn new(pos: &Position, dice: Dice) -> Turn {
        let (ctx, st, conts) = legal_raw(pos, dice);
        let max_dice = conts.iter().map(|s| s.len).max().unwrap_or(0);
        Turn {
            start: *pos,
            dice,
            ctx,
            st,
            dice_left: dice_list(dice),
            played: Vec::new(),
            conts,
            max_dice,
        }
    }

    /// The roll.
    pub fn dice(&self) -> Dice {
        self.dice
    }

    /// The side on move.
    pub fn mover(&self) -> Color {
        self.start.turn
    }

    /// The most dice a legal sequence of this roll plays.
    pub fn max_dice(&self) -> u8 {
        self.max_dice
    }

    /// The dice not yet played.
    pub fn dice_left(&self) -> &[u8] {
        &self.dice_left
    }

    /// The steps played so far.
    pub fn played(&self) -> &[Step] {
        &self.played
    }

    fn k(&self) -> usize {
        self.played.len()
    }

    /// The distinct legal next steps.
    pub fn legal_steps(&self) -> Vec<Step> {
        let k = self.k();
        let mut out: Vec<Step> = Vec::new();
        for s in &self.conts {
            if usize::from(s.len) > k {
                let st = raw_to_step(self.mover(), s.steps[k]);
                if !out.contains(&st) {
                    out.push(st);
                }
            }
        }
        out
    }

    /// One way to finish the turn from here per distinct final position
    /// (the first of [`Turn::continuations`] that reaches it): what a
    /// client needs to offer whole plays. Linear in the number of
    /// sequences (the final positions are already known), where
    /// deduplicating [`Turn::continuations`] by replaying each is not.
    pub fn continuations_by_result(&self) -> Vec<Sequence> {
        let mut out = Vec::new();
        self.each_by_result(|steps| {
            out.push(Sequence(
                steps
                    .iter()
                    .map(|&r| raw_to_step(self.mover(), r))
                    .collect(),
            ));
        });
        out
    }

    /// [`Turn::continuations_by_result`] as notation texts (what each
    /// sequence's `Display` writes), written straight from the search's
    /// steps: a node sends these after every roll and step, and building
    /// each `Sequence` first cost an allocation per sequence.
    pub fn continuation_texts_by_result(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.each_by_result(|steps| {
            // "24-18," is six bytes.
            let mut text = String::with_capacity(6 * steps.len());
            push_steps(
                steps.iter().map(|&r| raw_to_step(self.mover(), r)),
                &mut text,
            );
            out.push(text);
        });
        out
    }

    /// The rest of the first continuation reaching each distinct final
    /// position, in generation order.
    fn each_by_result(&self, mut f: impl FnMut(&[RawStep])) {
        let k = self.k();
        // Packed keys (`final_key`) hashed with foldhash, not whole
        // positions with SipHash: hashing the finals was most of this. The
        // keys are positions the rules generated, not attacker input.
        let mut seen: HashSet<FinalKey, foldhash::fast::RandomState> =
            HashSet::with_capacity_and_hasher(self.conts.len(), Default::default());
        for s in &self.conts {
            if usize::from(s.len) <= k || !seen.insert(final_key(&s.fin.p)) {
                continue;
            }
            f(&s.steps[k..usize::from(s.len)]);
        }
    }

    /// The distinct legal ways to finish the turn from here (each a
    /// sequence of the remaining steps).
    pub fn continuations(&self) -> Vec<Sequence> {
        let k = self.k();
        let mut out: Vec<Sequence> = Vec::new();
        for s in &self.conts {
            let seq = Sequence(
                s.steps[k..usize::from(s.len).max(k)]
                    .iter()
                    .map(|&r| raw_to_step(self.mover(), r))
                    .collect(),
            );
            if !seq.is_empty() && !out.contains(&seq) {
                out.push(seq);
            }
        }
        out
    }

    /// Whether nothing more can (or may) be played.
    pub fn is_complete(&self) -> bool {
        let k = self.k();
        self.conts.is_empty() || self.conts.iter().any(|s| usize::from(s.len) <= k)
    }

    /// The position so far, the mover still on move.
    pub fn position(&self) -> Position {
        let mut p = self.start;
        for (r, b) in p.board.iter_mut().enumerate() {
            // The mover never lands on an opponent point, so his counts
            // replace exactly the non-negative entries.
            if *b >= 0 {
                *b = self.st.count(r) as i8;
            }
        }
        p.off[0] = self.st.off();
        p
    }

    /// Plays one step for `player`, refusing it if `player` is not on move.
    pub fn play_step_as(&mut self, player: Color, step: Step) -> Result<(), StepError> {
        if player != self.mover() {
            return Err(StepError::NotYourTurn {
                mover: self.mover(),
                player,
            });
        }
        self.play_step(step)
    }

    /// Plays one step of the mover, or says exactly why it is refused.
    pub fn play_step(&mut self, step: Step) -> Result<(), StepError> {
        if self.is_complete() {
            return Err(StepError::TurnComplete);
        }
        let color = self.mover();
        for p in [
            Some(step.from),
            if let Target::Point(p) = step.to {
                Some(p)
            } else {
                None
            },
        ]
        .into_iter()
        .flatten()
        {
            if !(1..=24).contains(&p) {
                return Err(StepError::NotOnBoard { point: p });
            }
        }
        let from = route_index(color, step.from) as u8;
        let to = match step.to {
            Target::Point(p) => route_index(color, p) as u8,
            Target::Off => OFF,
        };
        let k = self.k();
        let matching: Vec<u8> = self
            .conts
            .iter()
            .filter(|s| usize::from(s.len) > k && s.steps[k].from == from && s.steps[k].to == to)
            .map(|s| s.steps[k].die)
            .collect();
        if matching.is_empty() {
            return Err(self.classify(step, from, to));
        }
        // The die: the exact one if it is among them, else the smallest.
        let exact = if to == OFF { 24 - from } else { to - from };
        let die = if matching.contains(&exact) {
            exact
        } else {
            matching.iter().copied().min().unwrap_or(exact)
        };
        self.conts.retain(|s| {
            usize::from(s.len) > k
                && s.steps[k].from == from
                && s.steps[k].to == to
                && s.steps[k].die == die
        });
        if let Some(next) = apply(&self.st, &self.ctx, u32::from(from), die) {
            self.st = next;
        }
        if let Some(i) = self.dice_left.iter().position(|&d| d == die) {
            self.dice_left.remove(i);
        }
        self.played.push(step);
        Ok(())
    }

    fn classify(&self, step: Step, from: u8, to: u8) -> StepError {
        let color = self.mover();
        let st = &self.st;
        let ctx = &self.ctx;
        let r = usize::from(from);
        if st.count(r) == 0 {
            return StepError::NoOwnChecker {
                color,
                point: step.from,
            };
        }
        let dice = self.dice_left.clone();
        let die_used = if to == OFF {
            if !all_home(st) {
                return StepError::BearOffTooEarly;
            }
            let distance = 24 - from;
            let far = st.occ.trailing_zeros() as u8;
            let ok: Vec<u8> = dice
                .iter()
                .copied()
                .filter(|&d| d == distance || (d > distance && from == far))
                .collect();
            let Some(&d) = ok.iter().max() else {
                return StepError::BearOffWrongDie {
                    point: step.from,
                    distance,
                    dice,
                };
            };
            d
        } else {
            if to <= from {
                return StepError::WrongDirection {
                    color,
                    from: step.from,
                    to: match step.to {
                        Target::Point(p) => p,
                        Target::Off => 0,
                    },
                };
            }
            let distance = to - from;
            if !dice.contains(&distance) {
                return StepError::DieNotAvailable { distance, dice };
            }
            if ctx.opp & (1 << to) != 0 {
                return StepError::LandsOnOpponent {
                    point: point_of(color, usize::from(to)),
                };
            }
            if from == 0 && st.head >= ctx.head_limit {
                return StepError::HeadRule {
                    limit: ctx.head_limit,
                };
            }
            if apply(st, ctx, u32::from(from), distance).is_none() {
                return StepError::SixBlock;
            }
            distance
        };
        let high = self.dice.high();
        if !self.dice.is_double()
            && self.max_dice == 1
            && die_used < high
            && self
                .conts
                .iter()
                .any(|s| s.len > 0 && s.steps[0].die == high)
        {
            StepError::MustPlayLargerDie
        } else {
            StepError::LeavesDieUnplayed
        }
    }

    /// The position after the turn, the opponent on move (the mover's first
    /// turn is used up, even by a pass).
    pub fn finish(&self) -> Result<Position, StepError> {
        if !self.is_complete() {
            return Err(StepError::TurnIncomplete);
        }
        if self.played.is_empty() {
            return Ok(self.start.pass_turn());
        }
        Ok(self.st.p)
    }
}
