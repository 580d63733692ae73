//! The step-by-step [`Turn`] (seed 000's `move` message) and why a step
//! is refused ([`StepError`]).

use std::collections::HashSet;

use tabula_dice::Dice;

use crate::movegen::{Ctx, OFF, St, all_home, apply};
use crate::moves::{FinalKey, RawSeq, RawStep, dice_list, final_key, legal_raw, raw_to_step};
use crate::notation::{Sequence, Step, Target, push_steps};
use crate::position::{Color, Position, point_of, route_index};

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
