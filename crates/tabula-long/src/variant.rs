//! Variant options (RULES.md names every disagreement between the seeds as
//! an option with a default).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Who starts the game (RULES.md "Who starts").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// One die per side, doubles rerolled; the higher side starts and that
    /// roll is its first move (seed 002). The default.
    #[default]
    OpeningRollPlays,
    /// One die per side, doubles rerolled; the higher side starts and rolls
    /// both dice afresh (seed 004).
    OpeningRollRerolls,
    /// White always starts (seeds 000, 001).
    WhiteFirst,
}

/// When a six-point block (prime) is allowed (RULES.md "Six-block rule").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimeRule {
    /// Allowed only if at least one opponent checker has already passed the
    /// block on the opponent's route (borne-off checkers count as passed).
    /// Seeds 002, 004. The default.
    #[default]
    OpponentAhead,
    /// Allowed only if the opponent has at least one checker in his home
    /// (seed 000).
    OpponentHome,
}

/// How a finished game is scored (RULES.md "Result").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// Oin 1, mars 2, koks 3 (seed 004). The default.
    #[default]
    OinMarsKoks,
    /// Oin 1, mars 2, no koks (seed 002).
    OinMars,
    /// Every win is one point (seed 001 style).
    Single,
}

/// The full set of variant options. `Default` is RULES.md's default game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Variant {
    /// Who starts.
    pub opening: Opening,
    /// When a six-point block is allowed.
    pub prime_rule: PrimeRule,
    /// How a win is scored.
    pub scoring: Scoring,
}

/// A variant option that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VariantError {
    /// The key names no option.
    #[error("unknown long nardy option {key:?} (known: opening, prime_rule, scoring)")]
    UnknownKey {
        /// The key as given.
        key: String,
    },
    /// The value is not one of the option's values.
    #[error("unknown value {value:?} for option {key} (expected one of: {expected})")]
    UnknownValue {
        /// The option.
        key: String,
        /// The value as given.
        value: String,
        /// The accepted values, comma separated.
        expected: &'static str,
    },
    /// Text that is not `key=value`.
    #[error("option {0:?} is not of the form key=value")]
    Malformed(String),
}

macro_rules! option_enum {
    ($ty:ident, $key:literal, $( $variant:ident => $name:literal ),+ $(,)?) => {
        impl $ty {
            /// The option's name as used in `key=value` form.
            pub const KEY: &'static str = $key;
            const EXPECTED: &'static str = concat!($( $name, " " ),+);

            /// The snake_case name of this value.
            pub fn name(self) -> &'static str {
                match self {
                    $( $ty::$variant => $name, )+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $ty {
            type Err = VariantError;
            fn from_str(s: &str) -> Result<$ty, VariantError> {
                match s.trim() {
                    $( $name => Ok($ty::$variant), )+
                    _ => Err(VariantError::UnknownValue {
                        key: $key.to_string(),
                        value: s.to_string(),
                        expected: $ty::EXPECTED.trim_end(),
                    }),
                }
            }
        }
    };
}

option_enum!(Opening, "opening",
    OpeningRollPlays => "opening_roll_plays",
    OpeningRollRerolls => "opening_roll_rerolls",
    WhiteFirst => "white_first",
);
option_enum!(PrimeRule, "prime_rule",
    OpponentAhead => "opponent_ahead",
    OpponentHome => "opponent_home",
);
option_enum!(Scoring, "scoring",
    OinMarsKoks => "oin_mars_koks",
    OinMars => "oin_mars",
    Single => "single",
);

impl Variant {
    /// Sets one option from its key and value, e.g. `("prime_rule",
    /// "opponent_home")`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), VariantError> {
        match key.trim() {
            "opening" => self.opening = value.parse()?,
            "prime_rule" => self.prime_rule = value.parse()?,
            "scoring" => self.scoring = value.parse()?,
            other => {
                return Err(VariantError::UnknownKey {
                    key: other.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The default variant with the given `(key, value)` options applied in
    /// order.
    pub fn from_options<K, V, I>(options: I) -> Result<Variant, VariantError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
        I: IntoIterator<Item = (K, V)>,
    {
        let mut v = Variant::default();
        for (k, val) in options {
            v.set(k.as_ref(), val.as_ref())?;
        }
        Ok(v)
    }
}

impl FromStr for Variant {
    type Err = VariantError;

    /// Reads comma-separated `key=value` options, e.g.
    /// `prime_rule=opponent_home,scoring=single`; the empty string is the
    /// default variant.
    fn from_str(s: &str) -> Result<Variant, VariantError> {
        let mut v = Variant::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, val) = part
                .split_once('=')
                .ok_or_else(|| VariantError::Malformed(part.to_string()))?;
            v.set(k, val)?;
        }
        Ok(v)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "opening={},prime_rule={},scoring={}",
            self.opening, self.prime_rule, self.scoring
        )
    }
}
