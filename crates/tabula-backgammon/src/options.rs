//! Variant options (`scoring=single|gammons`).

use std::fmt;
use std::str::FromStr;

/// How a won game is scored.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// Every game is worth one point (short nardy's default).
    #[default]
    Single,
    /// Single 1, gammon 2, backgammon 3 (standard backgammon, no cube).
    Gammons,
}

impl fmt::Display for Scoring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scoring::Single => "single",
            Scoring::Gammons => "gammons",
        })
    }
}

impl FromStr for Scoring {
    type Err = OptionError;
    fn from_str(s: &str) -> Result<Scoring, OptionError> {
        match s.trim() {
            "single" => Ok(Scoring::Single),
            "gammons" => Ok(Scoring::Gammons),
            other => Err(OptionError::BadValue {
                key: "scoring".to_string(),
                value: other.to_string(),
                expected: "single or gammons",
            }),
        }
    }
}

/// Why an option could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    /// A key this game does not know.
    #[error("unknown backgammon option {0:?} (known: scoring)")]
    UnknownKey(String),
    /// A known key with a value it does not take.
    #[error("bad value {value:?} for option {key}: expected {expected}")]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: &'static str,
    },
    /// Text that is not `key=value`.
    #[error("option {0:?} is not of the form key=value")]
    Malformed(String),
}

/// The variant options of short nardy.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[non_exhaustive]
pub struct Options {
    /// How games are scored (default [`Scoring::Single`]).
    pub scoring: Scoring,
}

impl Options {
    /// Options with the given scoring.
    pub fn with_scoring(scoring: Scoring) -> Options {
        Options { scoring }
    }

    /// Applies one `key=value` pair.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        match key.trim() {
            "scoring" => {
                self.scoring = value.parse()?;
                Ok(())
            }
            other => Err(OptionError::UnknownKey(other.to_string())),
        }
    }

    /// Options from `(key, value)` pairs, later pairs overriding earlier.
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(
        pairs: &[(K, V)],
    ) -> Result<Options, OptionError> {
        let mut o = Options::default();
        for (k, v) in pairs {
            o.set(k.as_ref(), v.as_ref())?;
        }
        Ok(o)
    }
}

impl FromStr for Options {
    type Err = OptionError;

    /// Reads `scoring=gammons`, several pairs separated by commas or spaces.
    fn from_str(s: &str) -> Result<Options, OptionError> {
        let mut o = Options::default();
        for part in s.split([',', ' ']).filter(|p| !p.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| OptionError::Malformed(part.to_string()))?;
            o.set(k, v)?;
        }
        Ok(o)
    }
}
