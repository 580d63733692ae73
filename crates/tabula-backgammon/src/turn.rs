//! The step-by-step validator ([`Turn`]) and the reference generator.

use std::collections::HashSet;

use tabula_dice::Dice;

use crate::movegen::{Board, apply};
use crate::notation::{Play, PlayError, Step, StepError};
use crate::position::{BAR, OFF, Position};

/// Checks one step alone (no look-ahead): returns the step with its
/// destination and hit filled in.
pub(crate) fn check_step(b: &Board, from: u8, die: u8) -> Result<Step, StepError> {
    if !(1..=25).contains(&from) {
        return Err(StepError::BadPoint(from));
    }
    if b[25] > 0 && from != BAR {
        return Err(StepError::MustEnterFirst);
    }
    let i = from as usize;
    let d = die as usize;
    if b[i] <= 0 {
        return Err(StepError::NoChecker(from));
    }
    if i > d {
        let t = i - d;
        if b[t] < -1 {
            return Err(StepError::PointClosed(t as u8));
        }
        return Ok(Step {
            from,
            to: t as u8,
            die,
            hit: b[t] == -1,
        });
    }
    if b[7..].iter().any(|&c| c > 0) {
        return Err(StepError::NotAllHome);
    }
    if i < d && b[i + 1..].iter().any(|&c| c > 0) {
        return Err(StepError::NotFarthest { from, die });
    }
    Ok(Step {
        from,
        to: OFF,
        die,
        hit: false,
    })
}

/// The most dice of `dice` playable from `b`, in any order.
fn max_playable(b: &Board, dice: &[u8]) -> usize {
    let mut best = 0;
    for k in 0..dice.len() {
        let d = dice[k];
        if dice[..k].contains(&d) {
            continue;
        }
        let mut rest: Vec<u8> = dice.to_vec();
        rest.remove(k);
        for from in (1..=25u8).rev() {
            if check_step(b, from, d).is_ok() {
                let mut c = *b;
                apply(&mut c, from as usize, d as usize);
                best = best.max(1 + max_playable(&c, &rest));
                if best == dice.len() {
                    return best;
                }
            }
        }
    }
    best
}

fn dice_list(dice: Dice) -> Vec<u8> {
    if dice.is_double() {
        vec![dice.high(); 4]
    } else {
        vec![dice.high(), dice.low()]
    }
}

/// The step-by-step validator: play one checker by one die at a time, with a
/// typed error for each illegal step (including a step that would leave a
/// playable die unplayed, and the larger-die rule).
///
/// ```
/// use tabula_backgammon::{Position, StepError, Turn};
/// use tabula_dice::Dice;
///
/// let mut turn = Turn::new(&Position::initial(), Dice::new(6, 5).unwrap());
/// assert_eq!(turn.step(24, 6).unwrap().to(), 18);
/// assert_eq!(turn.step(6, 6), Err(StepError::DieNotAvailable(6)));
/// turn.step_to(18, 13).unwrap();
/// assert!(turn.is_complete());
/// let after = turn.finish().unwrap();
/// assert_eq!(after.checkers(after.turn(), 13), 6);
/// ```
#[derive(Debug, Clone)]
pub struct Turn {
    position: Position,
    remaining: Vec<u8>,
    steps: Vec<Step>,
    max_dice: usize,
    must_play_larger: Option<u8>,
}

impl Turn {
    /// Starts a turn with the given roll.
    pub fn new(position: &Position, dice: Dice) -> Turn {
        let remaining = dice_list(dice);
        let max_dice = max_playable(&position.board, &remaining);
        let must_play_larger = (max_dice == 1
            && !dice.is_double()
            && max_playable(&position.board, &[dice.high()]) == 1)
            .then_some(dice.high());
        Turn {
            position: *position,
            remaining,
            steps: Vec::new(),
            max_dice,
            must_play_larger,
        }
    }

    /// The position so far (mover still on roll).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Dice values not yet played.
    pub fn remaining_dice(&self) -> &[u8] {
        &self.remaining
    }

    /// How many dice the whole play must use.
    pub fn max_dice(&self) -> usize {
        self.max_dice
    }

    /// The steps played so far.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Every die that can be played has been.
    pub fn is_complete(&self) -> bool {
        self.steps.len() == self.max_dice
    }

    /// Plays the checker on `from` (25 = bar) by `die`.
    pub fn step(&mut self, from: u8, die: u8) -> Result<Step, StepError> {
        if self.is_complete() {
            return Err(StepError::TurnComplete);
        }
        let k = self
            .remaining
            .iter()
            .position(|&d| d == die)
            .ok_or(StepError::DieNotAvailable(die))?;
        let step = check_step(&self.position.board, from, die)?;
        if let Some(larger) = self.must_play_larger
            && die != larger
        {
            return Err(StepError::MustPlayLarger(larger));
        }
        let mut after = self.position.board;
        apply(&mut after, from as usize, die as usize);
        let mut rest = self.remaining.clone();
        rest.remove(k);
        let needed = self.max_dice - self.steps.len() - 1;
        if max_playable(&after, &rest) < needed {
            return Err(StepError::LeavesDieUnplayed);
        }
        self.position.board = after;
        self.remaining = rest;
        self.steps.push(step);
        Ok(step)
    }

    /// Plays the checker on `from` to `to` (0 = off), choosing the die: the
    /// exact distance, or for a bear-off the exact die if that is legal and
    /// otherwise the smallest larger die that is (with 5-1 where only the 5
    /// may be played, `1/off` bears off with the 5).
    pub fn step_to(&mut self, from: u8, to: u8) -> Result<Step, StepError> {
        if from <= to || from > 25 {
            return Err(StepError::NoSuchMove { from, to });
        }
        let exact = from - to;
        if to != OFF {
            if !self.remaining.contains(&exact) {
                return Err(StepError::NoSuchMove { from, to });
            }
            return self.step(from, exact);
        }
        let mut candidates: Vec<u8> = self
            .remaining
            .iter()
            .copied()
            .filter(|&d| d >= exact)
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut first_err = None;
        for d in candidates {
            match self.step(from, d) {
                Ok(s) => return Ok(s),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.unwrap_or(StepError::NoSuchMove { from, to }))
    }

    /// The play so far.
    pub fn play(&self) -> Play {
        Play {
            steps: self.steps.clone(),
        }
    }

    /// The final position (mover still on roll) if the play is complete.
    pub fn finish(&self) -> Result<Position, PlayError> {
        if self.is_complete() {
            Ok(self.position)
        } else {
            Err(PlayError::Incomplete {
                played: self.steps.len(),
                required: self.max_dice,
            })
        }
    }

    /// Every distinct way to finish the turn from here: one per final
    /// position (mover still on roll), as the steps still to play (empty
    /// when the turn is already complete), each playable step by step with
    /// [`Turn::step`]. Searched from the highest point down, smaller die
    /// first, so the result is deterministic.
    pub fn completions(&self) -> Vec<(Vec<Step>, Position)> {
        fn walk(
            t: &Turn,
            k: usize,
            seen: &mut HashSet<Position>,
            out: &mut Vec<(Vec<Step>, Position)>,
        ) {
            if t.is_complete() {
                if seen.insert(t.position) {
                    out.push((t.steps[k..].to_vec(), t.position));
                }
                return;
            }
            let mut dice = t.remaining.clone();
            dice.sort_unstable();
            dice.dedup();
            for from in (1..=BAR).rev() {
                for &d in &dice {
                    let mut next = t.clone();
                    if next.step(from, d).is_ok() {
                        walk(&next, k, seen, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(self, self.steps.len(), &mut HashSet::new(), &mut out);
        out
    }
}

/// Reference generator: breadth-first over (board, dice left), every order
/// of the dice, deduplicating states; one play per distinct final. Slower
/// than the fast generator and independent of it.
pub(crate) fn reference_plays(pos: &Position, dice: Dice) -> (usize, Vec<(Play, Position)>) {
    let mut level: Vec<(Board, Vec<u8>, Vec<Step>)> = vec![(pos.board, dice_list(dice), vec![])];
    let mut depth = 0;
    loop {
        let mut seen: HashSet<(Board, Vec<u8>)> = HashSet::new();
        let mut next = Vec::new();
        for (b, rem, steps) in &level {
            for k in 0..rem.len() {
                let d = rem[k];
                if rem[..k].contains(&d) {
                    continue;
                }
                for from in (1..=25u8).rev() {
                    if let Ok(step) = check_step(b, from, d) {
                        let mut c = *b;
                        apply(&mut c, from as usize, d as usize);
                        let mut r = rem.clone();
                        r.remove(k);
                        if seen.insert((c, r.clone())) {
                            let mut s = steps.clone();
                            s.push(step);
                            next.push((c, r, s));
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
        depth += 1;
    }
    if depth == 1 && !dice.is_double() && level.iter().any(|(_, _, s)| s[0].die == dice.high()) {
        level.retain(|(_, _, s)| s[0].die == dice.high());
    }
    let mut finals = HashSet::new();
    let mut out = Vec::new();
    for (b, _, steps) in level {
        if finals.insert(b) {
            out.push((
                Play { steps },
                Position {
                    board: b,
                    turn: pos.turn,
                },
            ));
        }
    }
    (depth, out)
}
