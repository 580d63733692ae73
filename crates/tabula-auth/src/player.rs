//! Player ids as this crate issues them: `tg:<telegram user id>` and
//! `guest:<name>`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::AuthError;

/// The shortest guest name [`guest_player_id`] accepts.
pub const GUEST_NAME_MIN_LEN: usize = 3;
/// The longest guest name [`guest_player_id`] accepts (a UUID fits).
pub const GUEST_NAME_MAX_LEN: usize = 64;

const TG_PREFIX: &str = "tg:";
const GUEST_PREFIX: &str = "guest:";

/// An authenticated player's id: `tg:<user id>` for a Telegram user,
/// `guest:<name>` for a guest.
///
/// Every value is well-formed: it is built only by [`PlayerId::telegram`],
/// [`guest_player_id`] or [`PlayerId::parse`] (which deserialisation uses),
/// so it is short, ASCII and never contains `.`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PlayerId(String);

impl PlayerId {
    /// The id of Telegram user `user_id`: `tg:<user_id>`.
    pub fn telegram(user_id: u64) -> PlayerId {
        PlayerId(format!("{TG_PREFIX}{user_id}"))
    }

    /// Reads an id in either form, checking it as its constructor would.
    pub fn parse(s: &str) -> Result<PlayerId, AuthError> {
        if let Some(digits) = s.strip_prefix(TG_PREFIX) {
            let canonical = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !digits.starts_with('0');
            match digits.parse::<u64>() {
                Ok(id) if canonical => Ok(PlayerId::telegram(id)),
                _ => Err(AuthError::InvalidPlayerId(
                    "a telegram id is `tg:` and a positive decimal u64",
                )),
            }
        } else if let Some(name) = s.strip_prefix(GUEST_PREFIX) {
            guest_player_id(name)
        } else {
            Err(AuthError::InvalidPlayerId(
                "a player id starts with `tg:` or `guest:`",
            ))
        }
    }

    /// The id as a string, e.g. `tg:279058397`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as an owned string (for the room's `PlayerId::new`).
    pub fn into_string(self) -> String {
        self.0
    }

    /// The Telegram user id, if this is a Telegram player.
    pub fn telegram_user_id(&self) -> Option<u64> {
        self.0.strip_prefix(TG_PREFIX)?.parse().ok()
    }

    /// Whether this is a guest.
    pub fn is_guest(&self) -> bool {
        self.0.starts_with(GUEST_PREFIX)
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for PlayerId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for PlayerId {
    type Error = AuthError;
    fn try_from(s: String) -> Result<PlayerId, AuthError> {
        PlayerId::parse(&s)
    }
}

impl From<PlayerId> for String {
    fn from(id: PlayerId) -> String {
        id.0
    }
}

/// A guest's player id `guest:<raw>` for a client-chosen name.
///
/// The name must be [`GUEST_NAME_MIN_LEN`]..=[`GUEST_NAME_MAX_LEN`] bytes of
/// ASCII letters, digits, `_` and `-` (nothing is trimmed or case-folded).
/// A guest id is a claim, not a proof: bind it to a session token.
pub fn guest_player_id(raw: &str) -> Result<PlayerId, AuthError> {
    if raw.len() < GUEST_NAME_MIN_LEN {
        return Err(AuthError::InvalidPlayerId("guest name is too short"));
    }
    if raw.len() > GUEST_NAME_MAX_LEN {
        return Err(AuthError::InvalidPlayerId("guest name is too long"));
    }
    if !raw
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(AuthError::InvalidPlayerId(
            "guest name may hold only ASCII letters, digits, `_` and `-`",
        ));
    }
    Ok(PlayerId(format!("{GUEST_PREFIX}{raw}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn telegram_ids() {
        let id = PlayerId::telegram(279058397);
        assert_eq!(id.as_str(), "tg:279058397");
        assert_eq!(id.telegram_user_id(), Some(279058397));
        assert!(!id.is_guest());
        assert_eq!(PlayerId::parse("tg:279058397"), Ok(id));
        for bad in [
            "tg:",
            "tg:0",
            "tg:007",
            "tg:+5",
            "tg:-5",
            "tg:1a",
            "tg:99999999999999999999",
            "x:1",
            "",
        ] {
            assert!(
                matches!(PlayerId::parse(bad), Err(AuthError::InvalidPlayerId(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn guest_names() {
        let id = guest_player_id("Alice_01-x").unwrap();
        assert_eq!(id.as_str(), "guest:Alice_01-x");
        assert!(id.is_guest());
        assert_eq!(id.telegram_user_id(), None);
        assert_eq!(PlayerId::parse("guest:Alice_01-x"), Ok(id));
        assert!(guest_player_id("abc").is_ok());
        assert!(guest_player_id(&"a".repeat(GUEST_NAME_MAX_LEN)).is_ok());
        assert!(guest_player_id("123e4567-e89b-12d3-a456-426614174000").is_ok());
        for bad in [
            "",
            "ab",
            &"a".repeat(GUEST_NAME_MAX_LEN + 1),
            "has space",
            "dot.ted",
            "colon:x",
            "Алиса",
            "tab\tx",
            "nul\0x",
            "emoji🙂",
        ] {
            assert!(
                matches!(guest_player_id(bad), Err(AuthError::InvalidPlayerId(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn serde_round_trip_checks() {
        let id = guest_player_id("bob").unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"guest:bob\"");
        assert_eq!(serde_json::from_str::<PlayerId>(&json).unwrap(), id);
        assert!(serde_json::from_str::<PlayerId>("\"guest:a b\"").is_err());
        assert!(serde_json::from_str::<PlayerId>("\"admin\"").is_err());
    }
}
