//! Plays, notation, the step-by-step validator and the reference generator.

use std::collections::HashSet;
use std::fmt;

use tabula_dice::Dice;

use crate::movegen::{self, Board, apply};
use crate::position::{BAR, OFF, Position};

/// One checker moved by one die, in the mover's numbering
/// (`from` 1..=25 where 25 is the bar, `to` 0..=24 where 0 is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step {
    from: u8,
    to: u8,
    die: u8,
    hit: bool,
}

impl Step {
    /// A step of the checker on `from` (25 = bar) by `die`. Whether it hits
    /// is only known against a position; this constructor says no.
    pub fn new(from: u8, die: u8) -> Step {
        Step {
            from,
            to: from.saturating_sub(die),
            die,
            hit: false,
        }
    }

    /// Origin point (25 = bar).
    pub fn from(&self) -> u8 {
        self.from
    }

    /// Destination point (0 = off).
    pub fn to(&self) -> u8 {
        self.to
    }

    /// The die used.
    pub fn die(&self) -> u8 {
        self.die
    }

    /// Whether it hit an opponent blot.
    pub fn is_hit(&self) -> bool {
        self.hit
    }
}

fn point_name(p: u8) -> String {
    match p {
        BAR => "bar".to_string(),
        OFF => "off".to_string(),
        p => p.to_string(),
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", point_name(self.from), point_name(self.to))?;
        if self.hit {
            f.write_str("*")?;
        }
        Ok(())
    }
}

/// A whole play: the steps of one turn, in the order played.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Play {
    steps: Vec<Step>,
}

impl Play {
    /// A play from steps (see [`Step::new`]); check it with
    /// [`Position::play`].
    pub fn from_steps(steps: Vec<Step>) -> Play {
        Play { steps }
    }

    /// The steps in the order played.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// How many dice it uses (0 for a pass).
    pub fn dice_used(&self) -> usize {
        self.steps.len()
    }
}

impl fmt::Display for Play {
    /// Standard notation, one checker-step per die, highest origin first,
    /// repeated steps folded: `24/18 13/11`, `bar/22*`, `6/off`, `8/5(2)`.
    /// An empty play (no legal move) prints as `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return f.write_str("pass");
        }
        let mut sorted = self.steps.clone();
        sorted.sort_by_key(|s| std::cmp::Reverse((s.from, s.to, s.hit)));
        let mut first = true;
        let mut i = 0;
        while i < sorted.len() {
            let s = sorted[i];
            let mut n = 1;
            while i + n < sorted.len()
                && (sorted[i + n].from, sorted[i + n].to, sorted[i + n].hit)
                    == (s.from, s.to, s.hit)
            {
                n += 1;
            }
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{s}")?;
            if n > 1 {
                write!(f, "({n})")?;
            }
            i += n;
        }
        Ok(())
    }
}

/// Why a single step is illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// Every die that can be played has been played.
    #[error("the play is complete: no further die may be played")]
    TurnComplete,
    /// The die is not among those left to play.
    #[error("no {0} left to play")]
    DieNotAvailable(u8),
    /// Not a point 1..=25.
    #[error("{0} is not a point (1..24, 25 = bar)")]
    BadPoint(u8),
    /// A checker is on the bar and must enter first.
    #[error("a checker on the bar must enter before any other move")]
    MustEnterFirst,
    /// No checker of the mover there.
    #[error("no checker of yours on {0}")]
    NoChecker(u8),
    /// The destination holds two or more opposing checkers.
    #[error("point {0} is closed (two or more opposing checkers)")]
    PointClosed(u8),
    /// Bearing off with a checker still outside the home board (a hit
    /// checker must come all the way home first).
    #[error("cannot bear off while a checker is outside the home board or on the bar")]
    NotAllHome,
    /// A larger die bears off only from the farthest occupied point.
    #[error("a {die} bears off from {from} only if no checker is on a higher point")]
    NotFarthest {
        /// The point.
        from: u8,
        /// The die.
        die: u8,
    },
    /// The step is legal alone but the play could then not use as many dice
    /// as the roll allows.
    #[error("this would leave a playable die unplayed")]
    LeavesDieUnplayed,
    /// Only one die can be played and the larger one can: it must be.
    #[error("only one die can be played, so the larger ({0}) must be")]
    MustPlayLarger(u8),
    /// No die left takes this checker from `from` to `to`.
    #[error("no die left moves from {from} to {to}")]
    NoSuchMove {
        /// Origin.
        from: u8,
        /// Destination.
        to: u8,
    },
}

/// Why a whole play is illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// Step number `index` (from 0) is illegal.
    #[error("step {} is illegal: {error}", index + 1)]
    Step {
        /// Which step.
        index: usize,
        /// Why.
        error: StepError,
    },
    /// The play stops before using every die that can be played.
    #[error("the play uses {played} dice but {required} can be played")]
    Incomplete {
        /// Dice used.
        played: usize,
        /// Dice that must be used.
        required: usize,
    },
}

/// Why a play in notation could not be read or is not legal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotationError {
    /// Text that is not notation.
    #[error("cannot read move {0:?}: expected moves like 24/18 13/11, bar/22*, 6/off, 8/5(2)")]
    Syntax(String),
    /// A move from a point without a checker of the mover.
    #[error("move {0:?}: no checker of yours on {1}")]
    NoChecker(String, u8),
    /// Readable but not one of the legal plays for the dice.
    #[error("{0:?} is not a legal play for this roll")]
    Illegal(String),
}

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

/// One move of the notation: `from`→`to`, repeated.
fn parse_notation(text: &str) -> Result<Vec<(u8, u8)>, NotationError> {
    let syntax = || NotationError::Syntax(text.to_string());
    let t = text.trim();
    if t.is_empty() || t == "pass" || t == "(no play)" {
        return Ok(vec![]);
    }
    let mut hops = Vec::new();
    for token in t.split_whitespace() {
        let (body, times) = match token.split_once('(') {
            Some((b, rest)) => {
                let n = rest
                    .strip_suffix(')')
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|n| (1..=4).contains(n))
                    .ok_or_else(syntax)?;
                (b, n)
            }
            None => (token, 1),
        };
        let mut points = Vec::new();
        for part in body.split('/') {
            let p = part.trim_end_matches('*').to_ascii_lowercase();
            let v = match p.as_str() {
                "bar" | "b" => BAR,
                "off" | "o" => OFF,
                n => n
                    .parse::<u8>()
                    .ok()
                    .filter(|&v| v <= 25)
                    .ok_or_else(syntax)?,
            };
            points.push(v);
        }
        if points.len() < 2 {
            return Err(syntax());
        }
        for _ in 0..times {
            for w in points.windows(2) {
                if w[0] <= w[1] || w[0] == OFF {
                    return Err(syntax());
                }
                hops.push((w[0], w[1]));
            }
        }
    }
    Ok(hops)
}

impl Position {
    /// Every distinct position after a legal play of `dice` (the mover still
    /// on roll; call [`Position::pass_turn`] to hand over). When no play is
    /// legal the turn passes and the only result is the position itself
    /// (then [`Position::max_dice`] is 0).
    pub fn legal_positions(&self, dice: Dice) -> Vec<Position> {
        let mut out = Vec::with_capacity(64);
        movegen::generate(self, dice, &mut out);
        out
    }

    /// Alias of [`Position::legal_positions`]: every distinct resulting
    /// position once (wildbg's `all_positions_after_moving`).
    pub fn legal_moves(&self, dice: Dice) -> Vec<Position> {
        self.legal_positions(dice)
    }

    /// As [`Position::legal_positions`] into a reused buffer (cleared
    /// first); returns how many dice the play uses. Allocation-free once the
    /// buffer has grown.
    pub fn legal_positions_into(&self, dice: Dice, out: &mut Vec<Position>) -> usize {
        out.clear();
        movegen::generate(self, dice, out)
    }

    /// How many dice a legal play of `dice` uses (0 to 4): the max-dice rule.
    pub fn max_dice(&self, dice: Dice) -> usize {
        let mut out = Vec::with_capacity(64);
        movegen::generate(self, dice, &mut out)
    }

    /// One play for each distinct resulting position, with the position.
    /// Empty when no play is legal.
    pub fn legal_plays(&self, dice: Dice) -> Vec<(Play, Position)> {
        let (depth, plays) = reference_plays(self, dice);
        if depth == 0 { vec![] } else { plays }
    }

    /// Checks `play` step by step and returns the resulting position (mover
    /// still on roll).
    pub fn play(&self, dice: Dice, play: &Play) -> Result<Position, PlayError> {
        let mut turn = Turn::new(self, dice);
        for (index, s) in play.steps.iter().enumerate() {
            turn.step(s.from, s.die)
                .map_err(|error| PlayError::Step { index, error })?;
        }
        turn.finish()
    }

    /// Applies `play` without checking it. A play that is not legal here
    /// gives a meaningless position (but never panics).
    pub fn play_unchecked(&self, play: &Play) -> Position {
        let mut b = self.board;
        for s in &play.steps {
            let (i, d) = (s.from as usize, s.die as usize);
            if (1..=25).contains(&i) && b[i] > 0 {
                apply(&mut b, i, d);
            }
        }
        Position {
            board: b,
            turn: self.turn,
        }
    }

    /// Reads a play in notation (`24/18 13/11`, `bar/22*`, `6/off`,
    /// `8/5(2)`, and GNU Backgammon's compact forms `24/13`, `24/18*/13`)
    /// and returns the legal play it denotes for `dice`.
    pub fn parse_play(&self, dice: Dice, text: &str) -> Result<Play, NotationError> {
        let target = self.parse_result(dice, text)?;
        let plays = self.legal_plays(dice);
        if plays.is_empty() {
            return Ok(Play::default());
        }
        plays
            .into_iter()
            .find(|(_, p)| *p == target)
            .map(|(play, _)| play)
            .ok_or_else(|| NotationError::Illegal(text.to_string()))
    }

    /// Reads a play in notation (as [`Position::parse_play`]) and returns
    /// only its resulting position (mover still on roll), checked against
    /// the fast generator: cheaper when the steps are not needed.
    pub fn parse_result(&self, dice: Dice, text: &str) -> Result<Position, NotationError> {
        let hops = parse_notation(text)?;
        let mut b = self.board;
        for &(from, to) in &hops {
            let i = from as usize;
            if b[i] <= 0 {
                return Err(NotationError::NoChecker(text.to_string(), from));
            }
            b[i] -= 1;
            if to != OFF {
                let t = to as usize;
                if b[t] == -1 {
                    b[t] = 1;
                    b[0] -= 1;
                } else if b[t] < -1 {
                    return Err(NotationError::Illegal(text.to_string()));
                } else {
                    b[t] += 1;
                }
            }
        }
        let target = Position {
            board: b,
            turn: self.turn,
        };
        let mut finals = Vec::with_capacity(64);
        let max = movegen::generate(self, dice, &mut finals);
        if (max == 0 && hops.is_empty()) || (max > 0 && finals.contains(&target)) {
            Ok(target)
        } else {
            Err(NotationError::Illegal(text.to_string()))
        }
    }
}
