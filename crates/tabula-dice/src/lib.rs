//! Dice for Tabula's table games (long nardy and short nardy / backgammon).
//!
//! The rules crates never roll dice themselves: a roll is an input. This
//! crate gives the validated [`Dice`] type, the 21 distinct rolls
//! ([`Dice::ALL_21`]) with their probabilities, and the [`DiceSource`] trait
//! through which rooms, bots and self-play inject randomness. [`SeededDice`]
//! is a reproducible source (ChaCha8, stable across platforms and crate
//! versions), so any game can be replayed exactly from its seed;
//! [`ScriptedDice`] replays a fixed list for tests.
//!
//! No IO, no clock, no global RNG.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Why a roll could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiceError {
    /// A die value outside 1..=6.
    #[error("die value {0} is out of range 1..6")]
    OutOfRange(u32),
    /// Text that is not two dice such as `6,5` or `6-5`.
    #[error("cannot read dice from {0:?}: expected two values like 6,5")]
    Malformed(String),
}

/// A roll of two dice, each 1..=6. The order is kept as rolled (it matters
/// for nothing in the rules, but a replay shows it as it happened).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "[u8; 2]", into = "[u8; 2]"))]
pub struct Dice {
    a: u8,
    b: u8,
}

impl Dice {
    /// The 21 distinct rolls, doubles first then the rest with the larger
    /// die first. Each double has probability 1/36, every other roll 2/36.
    pub const ALL_21: [Dice; 21] = {
        let mut out = [Dice { a: 1, b: 1 }; 21];
        let mut i = 0;
        let mut d = 1;
        while d <= 6 {
            out[i] = Dice { a: d, b: d };
            i += 1;
            d += 1;
        }
        let mut hi = 2;
        while hi <= 6 {
            let mut lo = 1;
            while lo < hi {
                out[i] = Dice { a: hi, b: lo };
                i += 1;
                lo += 1;
            }
            hi += 1;
        }
        out
    };

    /// Builds a roll, checking both values are in 1..=6.
    pub fn new(a: u8, b: u8) -> Result<Dice, DiceError> {
        for v in [a, b] {
            if !(1..=6).contains(&v) {
                return Err(DiceError::OutOfRange(u32::from(v)));
            }
        }
        Ok(Dice { a, b })
    }

    /// The first die as rolled.
    pub fn first(self) -> u8 {
        self.a
    }

    /// The second die as rolled.
    pub fn second(self) -> u8 {
        self.b
    }

    /// The larger die.
    pub fn high(self) -> u8 {
        self.a.max(self.b)
    }

    /// The smaller die.
    pub fn low(self) -> u8 {
        self.a.min(self.b)
    }

    /// Both dice show the same number (four moves).
    pub fn is_double(self) -> bool {
        self.a == self.b
    }

    /// The die values to be played: four of a double, else the two dice,
    /// larger first.
    pub fn moves(self) -> Vec<u8> {
        if self.is_double() {
            vec![self.a; 4]
        } else {
            vec![self.high(), self.low()]
        }
    }

    /// Probability of this roll (unordered): 1/36 for a double, 2/36 else.
    pub fn probability(self) -> f64 {
        if self.is_double() {
            1.0 / 36.0
        } else {
            2.0 / 36.0
        }
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.a, self.b)
    }
}

impl FromStr for Dice {
    type Err = DiceError;

    /// Reads `6,5`, `6-5`, `6 5` or `65`.
    fn from_str(s: &str) -> Result<Dice, DiceError> {
        let t = s.trim();
        let parts: Vec<&str> = t
            .split([',', '-', ' ', '/'])
            .filter(|p| !p.is_empty())
            .collect();
        let parts: Vec<&str> = if parts.len() == 1 && parts[0].len() == 2 {
            vec![&parts[0][..1], &parts[0][1..]]
        } else {
            parts
        };
        if parts.len() != 2 {
            return Err(DiceError::Malformed(s.to_string()));
        }
        let mut v = [0u32; 2];
        for (slot, p) in v.iter_mut().zip(&parts) {
            *slot = p
                .parse::<u32>()
                .map_err(|_| DiceError::Malformed(s.to_string()))?;
            if !(1..=6).contains(slot) {
                return Err(DiceError::OutOfRange(*slot));
            }
        }
        Ok(Dice {
            a: v[0] as u8,
            b: v[1] as u8,
        })
    }
}

impl TryFrom<[u8; 2]> for Dice {
    type Error = DiceError;
    fn try_from(v: [u8; 2]) -> Result<Dice, DiceError> {
        Dice::new(v[0], v[1])
    }
}

impl From<Dice> for [u8; 2] {
    fn from(d: Dice) -> [u8; 2] {
        [d.a, d.b]
    }
}

/// Anything that can roll dice: a seeded RNG, a script, a provably-fair
/// derivation from committed seeds (in the room crate).
pub trait DiceSource {
    /// One die, 1..=6.
    fn roll_one(&mut self) -> u8;

    /// Two dice.
    fn roll(&mut self) -> Dice {
        let a = self.roll_one();
        let b = self.roll_one();
        Dice { a, b }
    }
}

/// A reproducible dice source: ChaCha8 seeded from a `u64`. The same seed
/// gives the same rolls on every platform and with every build.
#[derive(Debug, Clone)]
pub struct SeededDice {
    rng: ChaCha8Rng,
}

impl SeededDice {
    /// A source that rolls the same sequence for the same seed.
    pub fn new(seed: u64) -> SeededDice {
        SeededDice {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The underlying RNG, for callers that also need other random choices
    /// (random play in self-play) from the same reproducible stream.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }
}

impl DiceSource for SeededDice {
    fn roll_one(&mut self) -> u8 {
        self.rng.random_range(1..=6)
    }
}

/// Replays a fixed list of single die values, then repeats from the start.
/// For tests and for replaying recorded games.
#[derive(Debug, Clone)]
pub struct ScriptedDice {
    values: Vec<u8>,
    next: usize,
}

impl ScriptedDice {
    /// A script of single die values; every value must be in 1..=6.
    pub fn new(values: Vec<u8>) -> Result<ScriptedDice, DiceError> {
        if values.is_empty() {
            return Err(DiceError::Malformed(String::new()));
        }
        if let Some(&bad) = values.iter().find(|v| !(1..=6).contains(*v)) {
            return Err(DiceError::OutOfRange(u32::from(bad)));
        }
        Ok(ScriptedDice { values, next: 0 })
    }

    /// A script of whole rolls.
    pub fn from_rolls(rolls: &[Dice]) -> ScriptedDice {
        ScriptedDice {
            values: rolls.iter().flat_map(|d| [d.a, d.b]).collect(),
            next: 0,
        }
    }
}

impl DiceSource for ScriptedDice {
    fn roll_one(&mut self) -> u8 {
        let v = self.values[self.next % self.values.len()];
        self.next += 1;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_21_rolls_are_distinct_and_probabilities_sum_to_one() {
        let mut seen = std::collections::HashSet::new();
        for d in Dice::ALL_21 {
            assert!(seen.insert((d.high(), d.low())));
        }
        let total: f64 = Dice::ALL_21.iter().map(|d| d.probability()).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(Dice::ALL_21.iter().filter(|d| d.is_double()).count(), 6);
    }

    #[test]
    fn dice_out_of_range_are_rejected() {
        assert_eq!(Dice::new(0, 3), Err(DiceError::OutOfRange(0)));
        assert_eq!(Dice::new(3, 7), Err(DiceError::OutOfRange(7)));
        assert_eq!("6,9".parse::<Dice>(), Err(DiceError::OutOfRange(9)));
        assert!(matches!("6".parse::<Dice>(), Err(DiceError::Malformed(_))));
        assert!(matches!(
            "a,b".parse::<Dice>(),
            Err(DiceError::Malformed(_))
        ));
    }

    #[test]
    fn dice_parse_in_every_usual_form() {
        for s in ["6,5", "6-5", "6 5", "65", " 6, 5 "] {
            assert_eq!(s.parse::<Dice>().unwrap(), Dice::new(6, 5).unwrap());
        }
    }

    #[test]
    fn a_double_gives_four_moves() {
        assert_eq!(Dice::new(4, 4).unwrap().moves(), vec![4, 4, 4, 4]);
        assert_eq!(Dice::new(2, 5).unwrap().moves(), vec![5, 2]);
    }

    #[test]
    fn seeded_dice_replay_exactly_and_stay_in_range() {
        let mut a = SeededDice::new(42);
        let mut b = SeededDice::new(42);
        let ra: Vec<Dice> = (0..1000).map(|_| a.roll()).collect();
        let rb: Vec<Dice> = (0..1000).map(|_| b.roll()).collect();
        assert_eq!(ra, rb);
        assert!(
            ra.iter()
                .all(|d| (1..=6).contains(&d.first()) && (1..=6).contains(&d.second()))
        );
        // Every face shows up: the source is not stuck.
        for face in 1..=6 {
            assert!(ra.iter().any(|d| d.first() == face));
        }
    }

    #[test]
    fn scripted_dice_replay_the_script() {
        let mut s = ScriptedDice::new(vec![6, 6, 3, 1]).unwrap();
        assert_eq!(s.roll(), Dice::new(6, 6).unwrap());
        assert_eq!(s.roll(), Dice::new(3, 1).unwrap());
        assert!(ScriptedDice::new(vec![7]).is_err());
    }
}
