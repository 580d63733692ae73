//! Variant options: which capture rule, and the server's plies limit.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How many dwarfs a troll's plain one-square step captures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureRule {
    /// Seed 003's ZRF (default): a step captures **every** dwarf adjacent to
    /// where the troll lands (possibly none).
    #[default]
    Zrf,
    /// The published board game: a step captures **at most one** adjacent
    /// dwarf, chosen by the trolls' player (or none). Each choice is its own
    /// move. Shoves are unchanged (they capture every adjacent dwarf).
    Classic,
}

impl CaptureRule {
    /// `"zrf"` or `"classic"`.
    pub const fn name(self) -> &'static str {
        match self {
            CaptureRule::Zrf => "zrf",
            CaptureRule::Classic => "classic",
        }
    }
}

impl fmt::Display for CaptureRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CaptureRule {
    type Err = VariantError;

    fn from_str(s: &str) -> Result<CaptureRule, VariantError> {
        match s {
            "zrf" | "seed" | "003" => Ok(CaptureRule::Zrf),
            "classic" => Ok(CaptureRule::Classic),
            _ => Err(VariantError::BadValue {
                key: "capture_rule".into(),
                value: s.into(),
                expected: "zrf or classic",
            }),
        }
    }
}

/// The rules a round is played under.
///
/// Parsed from `key=value` options with [`Variant::from_options`]:
/// * `capture_rule=zrf|classic` (default `zrf`);
/// * `max_plies_without_capture=N|none` (default `none`: the seed has no
///   such limit; a server should set one so that rounds always end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// How many dwarfs a troll's plain step captures.
    pub capture_rule: CaptureRule,
    /// A round ends once this many plies in a row were played without a
    /// capture; `None` = no limit.
    pub max_plies_without_capture: Option<u32>,
}

/// An option that is unknown or has a value out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VariantError {
    /// No such option.
    #[error("unknown thud option {0:?} (known: capture_rule, max_plies_without_capture)")]
    UnknownOption(String),
    /// The option exists, the value does not fit.
    #[error("bad value {value:?} for thud option {key}: expected {expected}")]
    BadValue {
        /// The option.
        key: String,
        /// The value given.
        value: String,
        /// What would have fitted.
        expected: &'static str,
    },
    /// A string that is not `key=value`.
    #[error("option {0:?} is not of the form key=value")]
    NotKeyValue(String),
}

impl Variant {
    /// Sets one option.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), VariantError> {
        match key {
            "capture_rule" => self.capture_rule = value.parse()?,
            "max_plies_without_capture" => {
                self.max_plies_without_capture =
                    match value {
                        "none" | "off" => None,
                        _ => Some(value.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(
                            || VariantError::BadValue {
                                key: key.into(),
                                value: value.into(),
                                expected: "a positive integer or none",
                            },
                        )?),
                    }
            }
            _ => return Err(VariantError::UnknownOption(key.into())),
        }
        Ok(())
    }

    /// The default variant with these `(key, value)` options applied in order.
    pub fn from_options<K: AsRef<str>, V: AsRef<str>>(
        options: &[(K, V)],
    ) -> Result<Variant, VariantError> {
        let mut v = Variant::default();
        for (k, val) in options {
            v.set(k.as_ref(), val.as_ref())?;
        }
        Ok(v)
    }

    /// Parses `key=value` strings (as on the command line).
    pub fn from_strs<S: AsRef<str>>(options: &[S]) -> Result<Variant, VariantError> {
        let mut v = Variant::default();
        for o in options {
            let o = o.as_ref();
            let (k, val) = o
                .split_once('=')
                .ok_or_else(|| VariantError::NotKeyValue(o.into()))?;
            v.set(k.trim(), val.trim())?;
        }
        Ok(v)
    }
}
