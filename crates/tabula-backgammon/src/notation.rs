//! A play's steps and their notation, written and read, and why a step,
//! a play or a text is refused.

use std::fmt;

use crate::position::{BAR, OFF};

/// One checker moved by one die, in the mover's numbering
/// (`from` 1..=25 where 25 is the bar, `to` 0..=24 where 0 is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step {
    pub(crate) from: u8,
    pub(crate) to: u8,
    pub(crate) die: u8,
    pub(crate) hit: bool,
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
    pub(crate) steps: Vec<Step>,
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

/// One move of the notation: `from`→`to`, repeated.
pub(crate) fn parse_notation(text: &str) -> Result<Vec<(u8, u8)>, NotationError> {
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
