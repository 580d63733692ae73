//! Steps and sequences in seed 000's notation (`24-18`, `5-off`,
//! `24-18,18-13`): written and read.

use std::fmt;
use std::str::FromStr;

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
pub(crate) fn push_steps(steps: impl Iterator<Item = Step>, out: &mut String) {
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
