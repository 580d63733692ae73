//! What other players see of a player: a name a person can read, and for
//! Telegram players the username and photo their signed `initData` gave.
//!
//! * [`check_name`] — a name a player chooses: trimmed, 1..=
//!   [`NAME_MAX_CHARS`] characters, no control or format character
//!   (Unicode `Cc` / `Cf`: bidi overrides and isolates, zero-width
//!   characters, the BOM, tags) and no line or paragraph separator.
//!   Refused whole, never repaired.
//! * [`TelegramProfile::from_user`] — what signed `initData` says:
//!   `first_name` and `last_name` joined, with the same characters
//!   *removed* (Telegram's own name is not refused: the login goes on),
//!   cut to [`TELEGRAM_NAME_MAX_CHARS`]; the username only if it is
//!   Telegram's charset; the photo only as an `https` URL of at most
//!   [`PHOTO_URL_MAX_LEN`] bytes.
//! * [`generated_name`] — a guest's name before he chooses one: an English
//!   adjective, an animal and two digits (`"Brave Otter 42"`), derived from
//!   the player id alone (SHA-256), so every node names a guest alike
//!   without anything stored.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::TelegramUser;

/// The most characters (Unicode scalar values) of a chosen name.
pub const NAME_MAX_CHARS: usize = 32;
/// The most characters kept of a Telegram name (first and last).
pub const TELEGRAM_NAME_MAX_CHARS: usize = 64;
/// The longest Telegram username kept (Telegram's own maximum).
pub const USERNAME_MAX_LEN: usize = 32;
/// The longest photo URL kept, in bytes.
pub const PHOTO_URL_MAX_LEN: usize = 512;

/// Why a chosen name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Nothing but whitespace.
    #[error("a name must not be empty")]
    Empty,
    /// Over [`NAME_MAX_CHARS`] characters after trimming.
    #[error("a name is at most {max} characters (this one has {len})")]
    TooLong {
        /// The limit.
        max: usize,
        /// The name's characters after trimming.
        len: usize,
    },
    /// A control, format or separator character.
    #[error("a name must not contain control or invisible characters (U+{0:04X})")]
    Forbidden(u32),
}

/// Whether `c` is refused in a name (and removed from a Telegram one):
/// Unicode general category `Cc` or `Cf`, or a line / paragraph separator
/// (`Zl`, `Zp`). The `Cf` list is Unicode 15.1's.
pub fn is_forbidden(c: char) -> bool {
    if c.is_control() {
        return true;
    }
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// A name a player chose, checked: trimmed (Unicode whitespace), then
/// 1..=[`NAME_MAX_CHARS`] characters with none [`is_forbidden`]. The
/// trimmed name, or why it was refused.
pub fn check_name(raw: &str) -> Result<String, NameError> {
    let name = raw.trim();
    if let Some(c) = name.chars().find(|&c| is_forbidden(c)) {
        return Err(NameError::Forbidden(u32::from(c)));
    }
    let len = name.chars().count();
    if len == 0 {
        return Err(NameError::Empty);
    }
    if len > NAME_MAX_CHARS {
        return Err(NameError::TooLong {
            max: NAME_MAX_CHARS,
            len,
        });
    }
    Ok(name.to_owned())
}

/// `raw` with every [`is_forbidden`] character removed (a control
/// whitespace — tab, newline — becomes a space), whitespace runs folded to
/// one space, trimmed and cut to `max` characters; `None` when nothing is
/// left.
fn clean(raw: &str, max: usize) -> Option<String> {
    let mut out = String::new();
    let mut space = false;
    for c in raw.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if is_forbidden(c) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    let out: String = out.chars().take(max).collect();
    let out = out.trim_end();
    (!out.is_empty()).then(|| out.to_owned())
}

/// What a Telegram player's signed `initData` says about him, cleaned for
/// others to see (stored by the node at each login).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TelegramProfile {
    /// First and last name, cleaned; `None` when nothing readable is left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The username without `@`, when it is Telegram's charset
    /// (`A-Z a-z 0-9 _`, at most [`USERNAME_MAX_LEN`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// The profile photo, when an `https` URL of at most
    /// [`PHOTO_URL_MAX_LEN`] bytes of URL characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub photo_url: Option<String>,
}

impl TelegramProfile {
    /// The profile of a user from validated `initData` (never from
    /// anything unsigned).
    pub fn from_user(user: &TelegramUser) -> TelegramProfile {
        let full = match &user.last_name {
            Some(last) => format!("{} {last}", user.first_name),
            None => user.first_name.clone(),
        };
        TelegramProfile {
            name: clean(&full, TELEGRAM_NAME_MAX_CHARS),
            username: user.username.as_deref().and_then(username),
            photo_url: user.photo_url.as_deref().and_then(photo_url),
        }
    }
}

/// A Telegram username as kept: its own charset and length, else `None`.
pub fn username(raw: &str) -> Option<String> {
    let ok = !raw.is_empty()
        && raw.len() <= USERNAME_MAX_LEN
        && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ok.then(|| raw.to_owned())
}

/// The longest language tag kept, bytes (BCP 47's own practical limit is 35).
pub const LANGUAGE_MAX_LEN: usize = 35;

/// A language tag as kept (Telegram's `language_code`, an IETF tag such as
/// `ru` or `pt-br`): ASCII letters, digits and `-`, starting with a letter,
/// at most [`LANGUAGE_MAX_LEN`] bytes, lower-cased; else `None`.
pub fn language(raw: &str) -> Option<String> {
    let ok = raw.len() <= LANGUAGE_MAX_LEN
        && raw.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !raw.ends_with('-');
    ok.then(|| raw.to_ascii_lowercase())
}

/// A photo URL as kept: `https://` and a host, at most
/// [`PHOTO_URL_MAX_LEN`] bytes, printable ASCII with none of
/// `" ' < > \ ^ ` { | }` or spaces (a URL that needs them percent-encodes
/// them), else `None`.
pub fn photo_url(raw: &str) -> Option<String> {
    let rest = raw.strip_prefix("https://")?;
    let host_ok = rest
        .split(['/', '?', '#'])
        .next()
        .is_some_and(|h| !h.is_empty());
    let ok = host_ok
        && raw.len() <= PHOTO_URL_MAX_LEN
        && raw
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"\"'<>\\^`{|}".contains(&b));
    ok.then(|| raw.to_owned())
}

const ADJECTIVES: [&str; 64] = [
    "Brave", "Calm", "Clever", "Bold", "Bright", "Swift", "Quiet", "Lucky", "Merry", "Noble",
    "Proud", "Quick", "Sly", "Wise", "Happy", "Gentle", "Jolly", "Keen", "Lively", "Mighty",
    "Nimble", "Patient", "Plucky", "Polite", "Sunny", "Steady", "Witty", "Zesty", "Daring",
    "Eager", "Fancy", "Fearless", "Friendly", "Gallant", "Golden", "Grand", "Hardy", "Honest",
    "Humble", "Jaunty", "Kind", "Loyal", "Mellow", "Modest", "Nifty", "Peppy", "Rapid", "Royal",
    "Rustic", "Sharp", "Silent", "Silver", "Smart", "Snappy", "Spry", "Stout", "Sturdy", "Tidy",
    "Tough", "Trusty", "Upbeat", "Vivid", "Warm", "Zippy",
];

const ANIMALS: [&str; 64] = [
    "Otter", "Falcon", "Badger", "Beaver", "Bison", "Camel", "Cheetah", "Cobra", "Condor",
    "Coyote", "Crane", "Dolphin", "Eagle", "Ferret", "Fox", "Gazelle", "Gecko", "Giraffe", "Hawk",
    "Hedgehog", "Heron", "Ibex", "Jackal", "Jaguar", "Koala", "Lemur", "Leopard", "Lion", "Lynx",
    "Magpie", "Marten", "Meerkat", "Mole", "Moose", "Narwhal", "Ocelot", "Owl", "Panda", "Panther",
    "Parrot", "Pelican", "Penguin", "Puffin", "Puma", "Rabbit", "Raven", "Seal", "Shark",
    "Sparrow", "Stork", "Swan", "Tiger", "Toucan", "Turtle", "Walrus", "Weasel", "Whale", "Wolf",
    "Wombat", "Yak", "Zebra", "Bear", "Crow", "Deer",
];

/// The name a player has before anything is stored for him: an adjective,
/// an animal and two digits (`"Brave Otter 42"`; ASCII letters, digits and
/// two spaces), from the SHA-256 of `player_id` — the same on every node,
/// platform and release.
pub fn generated_name(player_id: &str) -> String {
    let h = Sha256::digest(player_id.as_bytes());
    let pick = |i: usize| usize::from(h.get(i).copied().unwrap_or(0));
    let adjective = ADJECTIVES
        .get(pick(0) % ADJECTIVES.len())
        .unwrap_or(&"Brave");
    let animal = ANIMALS.get(pick(1) % ANIMALS.len()).unwrap_or(&"Otter");
    let digits = (pick(2) << 8 | pick(3)) % 100;
    format!("{adjective} {animal} {digits:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_names_are_trimmed_and_checked() {
        assert_eq!(check_name("  Ann  ").unwrap(), "Ann");
        assert_eq!(check_name("Анна Ли").unwrap(), "Анна Ли");
        assert_eq!(check_name("🙂 Bob").unwrap(), "🙂 Bob");
        assert_eq!(check_name("x").unwrap(), "x");
        // Whitespace around is trimmed, a newline included; inside, refused.
        assert_eq!(check_name("Bob\n").unwrap(), "Bob");
        let longest = "é".repeat(NAME_MAX_CHARS);
        assert_eq!(check_name(&longest).unwrap(), longest);
        assert_eq!(check_name(&format!(" {longest}\u{3000}")).unwrap(), longest);
        assert_eq!(check_name(""), Err(NameError::Empty));
        assert_eq!(check_name(" \u{3000} "), Err(NameError::Empty));
        assert_eq!(
            check_name(&"a".repeat(NAME_MAX_CHARS + 1)),
            Err(NameError::TooLong {
                max: NAME_MAX_CHARS,
                len: NAME_MAX_CHARS + 1
            })
        );
        for (bad, code) in [
            ("a\nb", 0x0A),
            ("ta\tb", 0x09),
            ("nul\0", 0),
            ("del\u{7F}", 0x7F),
            ("c\u{85}1", 0x85),
            ("\u{202E}evil", 0x202E),
            ("iso\u{2067}late", 0x2067),
            ("zero\u{200B}width", 0x200B),
            ("bom\u{FEFF}", 0xFEFF),
            ("line\u{2028}sep", 0x2028),
            ("shy\u{AD}", 0xAD),
            ("tag\u{E0041}", 0xE0041),
        ] {
            assert_eq!(check_name(bad), Err(NameError::Forbidden(code)), "{bad:?}");
        }
        assert!(NameError::Forbidden(0x202E).to_string().contains("U+202E"));
    }

    fn user(json: &str) -> TelegramUser {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn telegram_profiles_are_cleaned_not_refused() {
        let p = TelegramProfile::from_user(&user(
            r#"{"id":1,"first_name":"Vladislav","last_name":"Kibenko","username":"vdkfrost","photo_url":"https://t.me/i/userpic/320/4FPEE4.svg"}"#,
        ));
        assert_eq!(p.name.as_deref(), Some("Vladislav Kibenko"));
        assert_eq!(p.username.as_deref(), Some("vdkfrost"));
        assert_eq!(
            p.photo_url.as_deref(),
            Some("https://t.me/i/userpic/320/4FPEE4.svg")
        );
        // Bidi overrides, zero-width and control characters go; whitespace
        // runs fold; the rest stays.
        let p = TelegramProfile::from_user(&user(
            r#"{"id":1,"first_name":" \u202eAnn\u200b\n\tLee ","last_name":"\u0000"}"#,
        ));
        assert_eq!(p.name.as_deref(), Some("Ann Lee"));
        assert_eq!(p.username, None);
        assert_eq!(p.photo_url, None);
        // Nothing readable: no name (the node falls back).
        let p = TelegramProfile::from_user(&user(r#"{"id":1,"first_name":"\u202e\u200f "}"#));
        assert_eq!(p.name, None);
        // Capped.
        let long = "Я".repeat(200);
        let p = TelegramProfile::from_user(&user(&format!(r#"{{"id":1,"first_name":"{long}"}}"#)));
        assert_eq!(
            p.name.as_deref().map(|n| n.chars().count()),
            Some(TELEGRAM_NAME_MAX_CHARS)
        );
        // Serialised as the wire spells it.
        let p = TelegramProfile {
            name: Some("A".into()),
            username: None,
            photo_url: Some("https://x/y".into()),
        };
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"name":"A","photoUrl":"https://x/y"}"#);
        assert_eq!(serde_json::from_str::<TelegramProfile>(&json).unwrap(), p);
    }

    #[test]
    fn usernames_and_photos_are_kept_only_when_well_formed() {
        assert_eq!(username("ann_01").as_deref(), Some("ann_01"));
        for bad in ["", "has space", "a-b", "@ann", &"a".repeat(33), "Анна"] {
            assert_eq!(username(bad), None, "{bad:?}");
        }
        assert!(photo_url("https://t.me/i/userpic/320/a.jpg").is_some());
        assert!(photo_url("https://cdn.example/a.jpg?size=320#x").is_some());
        for bad in [
            "http://t.me/a.jpg",
            "javascript:alert(1)",
            "data:image/svg+xml,<svg>",
            "https://",
            "https:///path",
            "//t.me/a.jpg",
            "https://t.me/a b.jpg",
            "https://t.me/\"onerror=\"x",
            "https://t.me/<script>",
            "https://t.me/é.jpg",
            "https://t.me/a\n.jpg",
            &format!("https://t.me/{}", "a".repeat(PHOTO_URL_MAX_LEN)),
        ] {
            assert_eq!(photo_url(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn generated_names_are_readable_and_the_same_everywhere() {
        let a = generated_name("guest:3f9a2c1b7d4e8a6f0b5c9d2e1f4a7b3c");
        // Fixed for all time: nodes of different releases must agree (these
        // two checked against Python's hashlib as well).
        assert_eq!(a, generated_name("guest:3f9a2c1b7d4e8a6f0b5c9d2e1f4a7b3c"));
        assert_eq!(generated_name("guest:alice"), "Spry Penguin 98");
        assert_eq!(generated_name("tg:279058397"), "Jolly Seal 52");
        let mut seen = std::collections::HashSet::new();
        for i in 0..2000u32 {
            let n = generated_name(&format!("guest:{i:032x}"));
            let parts: Vec<&str> = n.split(' ').collect();
            assert_eq!(parts.len(), 3, "{n}");
            assert!(ADJECTIVES.contains(&parts[0]), "{n}");
            assert!(ANIMALS.contains(&parts[1]), "{n}");
            assert!(
                parts[2].len() == 2 && parts[2].bytes().all(|b| b.is_ascii_digit()),
                "{n}"
            );
            // Every generated name passes as a chosen one.
            assert_eq!(check_name(&n).as_deref(), Ok(n.as_str()));
            seen.insert(n);
        }
        // Spread: 2000 ids give (nearly) 2000 names among 409,600.
        assert!(seen.len() > 1990, "{}", seen.len());
    }

    #[test]
    fn word_lists_have_no_duplicates() {
        for list in [&ADJECTIVES[..], &ANIMALS[..]] {
            let set: std::collections::HashSet<_> = list.iter().collect();
            assert_eq!(set.len(), list.len());
            assert!(
                list.iter()
                    .all(|w| w.bytes().all(|b| b.is_ascii_alphabetic()))
            );
        }
    }

    #[test]
    fn a_language_tag_is_kept_only_when_it_is_one() {
        assert_eq!(language("ru").as_deref(), Some("ru"));
        assert_eq!(language("pt-BR").as_deref(), Some("pt-br"));
        for bad in [
            "",
            "-ru",
            "ru-",
            "r u",
            "ру",
            "ru;drop",
            &"a".repeat(36),
            "1ru",
        ] {
            assert_eq!(language(bad), None, "{bad:?}");
        }
    }
}
