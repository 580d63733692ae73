//! Telegram Mini App `initData`: parsing, the bot-token HMAC check and the
//! third-party Ed25519 check.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, VerifyingKey};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::{AuthError, PlayerId};

type HmacSha256 = Hmac<Sha256>;

/// The longest `initData` accepted, in bytes (real ones are well under 4 KiB).
pub const MAX_INIT_DATA_LEN: usize = 16 * 1024;

/// How far `auth_date` may lie after the caller's `now`, in seconds, to absorb
/// clock skew between Telegram and the server.
pub const MAX_FUTURE_SKEW: u64 = 60;

/// Telegram's Ed25519 public key for third-party validation in production
/// (hex), from <https://core.telegram.org/bots/webapps#validating-data-for-third-party-use>.
pub const PRODUCTION_PUBLIC_KEY_HEX: &str =
    "e7bf03a2fa4602af4580703d88dda5bb59f32ed8b02a56c187fe7d34caed242d";

/// Telegram's Ed25519 public key for third-party validation in the test
/// environment (hex), from the same page.
pub const TEST_PUBLIC_KEY_HEX: &str =
    "40055058a4ee38156a06562e52eece92a771bcd8346a8c4615cb7376eddf72ec";

const PRODUCTION_PUBLIC_KEY: [u8; 32] = [
    0xe7, 0xbf, 0x03, 0xa2, 0xfa, 0x46, 0x02, 0xaf, 0x45, 0x80, 0x70, 0x3d, 0x88, 0xdd, 0xa5, 0xbb,
    0x59, 0xf3, 0x2e, 0xd8, 0xb0, 0x2a, 0x56, 0xc1, 0x87, 0xfe, 0x7d, 0x34, 0xca, 0xed, 0x24, 0x2d,
];

const TEST_PUBLIC_KEY: [u8; 32] = [
    0x40, 0x05, 0x50, 0x58, 0xa4, 0xee, 0x38, 0x15, 0x6a, 0x06, 0x56, 0x2e, 0x52, 0xee, 0xce, 0x92,
    0xa7, 0x71, 0xbc, 0xd8, 0x34, 0x6a, 0x8c, 0x46, 0x15, 0xcb, 0x73, 0x76, 0xed, 0xdf, 0x72, 0xec,
];

/// Which Telegram environment signed the data (selects the public key for
/// [`validate_third_party`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TelegramEnv {
    /// The production servers.
    Production,
    /// Telegram's test environment.
    Test,
}

impl TelegramEnv {
    /// Telegram's Ed25519 public key (32 bytes) for this environment.
    pub fn public_key(self) -> [u8; 32] {
        match self {
            TelegramEnv::Production => PRODUCTION_PUBLIC_KEY,
            TelegramEnv::Test => TEST_PUBLIC_KEY,
        }
    }
}

/// The Telegram user in `initData` (`user` or `receiver`). Unknown JSON
/// fields are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TelegramUser {
    /// The user's Telegram id.
    pub id: u64,
    /// Whether the user is a bot (set only in `receiver`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_bot: Option<bool>,
    /// First name.
    #[serde(default)]
    pub first_name: String,
    /// Last name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    /// Username, without `@`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// IETF language tag of the user's client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language_code: Option<String>,
    /// Whether the user has Telegram Premium.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_premium: Option<bool>,
    /// Whether the user added the bot to the attachment menu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_to_attachment_menu: Option<bool>,
    /// Whether the bot may message the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allows_write_to_pm: Option<bool>,
    /// URL of the user's profile photo (`.jpeg` or `.svg`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub photo_url: Option<String>,
}

/// The chat in `initData` (attachment-menu launches only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TelegramChat {
    /// The chat's id (negative for groups).
    pub id: i64,
    /// `group`, `supergroup` or `channel`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The chat's title.
    #[serde(default)]
    pub title: String,
    /// The chat's username.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// URL of the chat's photo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub photo_url: Option<String>,
}

/// Validated `initData`, mapped to a player.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InitData {
    /// `tg:<user.id>`.
    pub player_id: PlayerId,
    /// The user who opened the Mini App.
    pub user: TelegramUser,
    /// When Telegram produced the data (unix seconds).
    pub auth_date: u64,
    /// Session id for `answerWebAppQuery`.
    pub query_id: Option<String>,
    /// The chat partner (private-chat attachment-menu launches).
    pub receiver: Option<TelegramUser>,
    /// The chat (attachment-menu launches).
    pub chat: Option<TelegramChat>,
    /// `sender`, `private`, `group`, `supergroup` or `channel`.
    pub chat_type: Option<String>,
    /// Global id of the chat the app was opened from.
    pub chat_instance: Option<String>,
    /// The `startapp` / `start_param` value of the launch link.
    pub start_param: Option<String>,
    /// Unix time after which `answerWebAppQuery` may be called.
    pub can_send_after: Option<u64>,
}

/// Validates `initData` with the bot token (Telegram's HMAC-SHA256 check)
/// and maps the user to `tg:<id>`.
///
/// Order: shape (length, percent-encoding, duplicates), `hash` present,
/// constant-time hash comparison, then `auth_date` freshness (`now - max_age
/// <= auth_date <= now + MAX_FUTURE_SKEW`), then the `user` JSON. All fields
/// except `hash` enter the data-check-string, `signature` included.
pub fn validate_init_data(
    init_data: &str,
    bot_token: &str,
    now: u64,
    max_age: u64,
) -> Result<InitData, AuthError> {
    if bot_token.is_empty() {
        return Err(AuthError::EmptyBotToken);
    }
    let fields = parse_query(init_data)?;
    let hash = get(&fields, "hash").ok_or(AuthError::MissingField("hash"))?;
    let expected = hex::decode(hash).map_err(|_| AuthError::InvalidField {
        field: "hash",
        reason: "not hexadecimal".to_owned(),
    })?;
    let data_check_string = data_check_string(&fields, &["hash"], None);
    let secret_key = hmac_sha256(b"WebAppData", bot_token.as_bytes());
    let mut mac = new_mac(&secret_key);
    mac.update(data_check_string.as_bytes());
    // `verify_slice` compares in constant time (and rejects a wrong length).
    mac.verify_slice(&expected)
        .map_err(|_| AuthError::HashMismatch)?;
    build(&fields, now, max_age)
}

/// Signs `initData` as Telegram does for a bot token: the inverse of
/// [`validate_init_data`], for load generators and tests that must present
/// valid `initData` to a node configured with a test bot. `fields` are the
/// decoded pairs (`auth_date`, `user`, …, no `hash`); the result is the
/// percent-encoded query string with `hash` appended.
pub fn sign_init_data(fields: &[(&str, &str)], bot_token: &str) -> String {
    let mut sorted: Vec<(String, String)> = fields
        .iter()
        .filter(|(k, _)| *k != "hash")
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let secret_key = hmac_sha256(b"WebAppData", bot_token.as_bytes());
    let hash = hex::encode(hmac_sha256(
        &secret_key,
        data_check_string(&sorted, &[], None).as_bytes(),
    ));
    let encode = |s: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    sorted
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .chain(std::iter::once(format!("hash={hash}")))
        .collect::<Vec<_>>()
        .join("&")
}

/// Validates `initData` without the bot token: Telegram's Ed25519
/// `signature` under the public key of `env`, for bot `bot_id`.
///
/// The data-check-string is `"<bot_id>:WebAppData\n"` followed by every
/// field except `hash` and `signature`, sorted by key, `key=value`, joined
/// with `'\n'`. Freshness and `user` are checked as in [`validate_init_data`].
pub fn validate_third_party(
    init_data: &str,
    bot_id: u64,
    now: u64,
    max_age: u64,
    env: TelegramEnv,
) -> Result<InitData, AuthError> {
    validate_third_party_with_key(init_data, bot_id, &env.public_key(), now, max_age)
}

/// [`validate_third_party`] with an explicit Ed25519 public key (32 bytes),
/// for tests and for keys Telegram may publish later.
pub fn validate_third_party_with_key(
    init_data: &str,
    bot_id: u64,
    public_key: &[u8; 32],
    now: u64,
    max_age: u64,
) -> Result<InitData, AuthError> {
    let fields = parse_query(init_data)?;
    let signature = get(&fields, "signature").ok_or(AuthError::MissingField("signature"))?;
    let invalid_signature = |reason: &str| AuthError::InvalidField {
        field: "signature",
        reason: reason.to_owned(),
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| invalid_signature("not base64url without padding"))?;
    let signature = Signature::from_slice(&bytes).map_err(|_| invalid_signature("not 64 bytes"))?;
    let key = VerifyingKey::from_bytes(public_key).map_err(|_| AuthError::SignatureMismatch)?;
    let prefix = format!("{bot_id}:WebAppData");
    let message = data_check_string(&fields, &["hash", "signature"], Some(&prefix));
    key.verify_strict(message.as_bytes(), &signature)
        .map_err(|_| AuthError::SignatureMismatch)?;
    build(&fields, now, max_age)
}

/// Decoded `(key, value)` pairs sorted by key, keys unique.
type Fields = Vec<(String, String)>;

fn parse_query(input: &str) -> Result<Fields, AuthError> {
    if input.len() > MAX_INIT_DATA_LEN {
        return Err(AuthError::TooLong {
            max: MAX_INIT_DATA_LEN,
        });
    }
    let mut fields = Vec::new();
    for segment in input.split('&').filter(|s| !s.is_empty()) {
        let (key, value) = segment.split_once('=').ok_or(AuthError::MalformedPair)?;
        let key = percent_decode(key)?;
        if key.is_empty() {
            return Err(AuthError::MalformedPair);
        }
        fields.push((key, percent_decode(value)?));
    }
    fields.sort_by(|a: &(String, String), b| a.0.cmp(&b.0));
    if let Some(pair) = fields.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(AuthError::DuplicateField(pair[0].0.clone()));
    }
    Ok(fields)
}

/// `application/x-www-form-urlencoded` decoding (`+` is a space), strict:
/// a `%` must be followed by two hex digits and the result must be UTF-8.
fn percent_decode(s: &str) -> Result<String, AuthError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => match bytes.get(i + 1..i + 3) {
                Some(&[hi, lo]) => {
                    let (Some(hi), Some(lo)) = (hex_digit(hi), hex_digit(lo)) else {
                        return Err(AuthError::BadPercentEncoding);
                    };
                    out.push(hi << 4 | lo);
                    i += 3;
                }
                _ => return Err(AuthError::BadPercentEncoding),
            },
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| AuthError::NotUtf8)
}

fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn get<'a>(fields: &'a Fields, key: &str) -> Option<&'a str> {
    fields
        .binary_search_by(|(k, _)| k.as_str().cmp(key))
        .ok()
        .and_then(|i| fields.get(i))
        .map(|(_, v)| v.as_str())
}

fn data_check_string(fields: &Fields, exclude: &[&str], first_line: Option<&str>) -> String {
    let lines = fields
        .iter()
        .filter(|(k, _)| !exclude.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"));
    first_line
        .map(str::to_owned)
        .into_iter()
        .chain(lines)
        .collect::<Vec<_>>()
        .join("\n")
}

fn new_mac(key: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length; this cannot fail.
    <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC takes keys of any length")
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = new_mac(key);
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

fn parse_u64(fields: &Fields, field: &'static str) -> Result<Option<u64>, AuthError> {
    get(fields, field)
        .map(|s| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(AuthError::InvalidField {
                    field,
                    reason: "not a non-negative decimal integer".to_owned(),
                });
            }
            s.parse().map_err(|_| AuthError::InvalidField {
                field,
                reason: "out of range".to_owned(),
            })
        })
        .transpose()
}

fn parse_json<T: for<'de> Deserialize<'de>>(
    fields: &Fields,
    field: &'static str,
) -> Result<Option<T>, AuthError> {
    get(fields, field)
        .map(|s| {
            // serde reads a struct from a JSON array too; Telegram sends objects.
            if !s.trim_start().starts_with('{') {
                return Err(AuthError::InvalidField {
                    field,
                    reason: "not a JSON object".to_owned(),
                });
            }
            serde_json::from_str(s).map_err(|e| AuthError::InvalidField {
                field,
                reason: e.to_string(),
            })
        })
        .transpose()
}

/// Freshness, then the typed fields, after a signature check has passed.
fn build(fields: &Fields, now: u64, max_age: u64) -> Result<InitData, AuthError> {
    let auth_date = parse_u64(fields, "auth_date")?.ok_or(AuthError::MissingField("auth_date"))?;
    if auth_date > now.saturating_add(MAX_FUTURE_SKEW) {
        return Err(AuthError::FromFuture { auth_date, now });
    }
    if now.saturating_sub(auth_date) > max_age {
        return Err(AuthError::Expired {
            auth_date,
            now,
            max_age,
        });
    }
    let user: TelegramUser = parse_json(fields, "user")?.ok_or(AuthError::MissingField("user"))?;
    let text = |k| get(fields, k).map(str::to_owned);
    Ok(InitData {
        player_id: PlayerId::telegram(user.id),
        user,
        auth_date,
        query_id: text("query_id"),
        receiver: parse_json(fields, "receiver")?,
        chat: parse_json(fields, "chat")?,
        chat_type: text("chat_type"),
        chat_instance: text("chat_instance"),
        start_param: text("start_param"),
        can_send_after: parse_u64(fields, "can_send_after")?,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn signed_init_data_validates() {
        let user = r#"{"id":42,"first_name":"Load Test","username":"lt"}"#;
        let q = super::sign_init_data(&[("auth_date", "1000"), ("user", user)], "1:abc");
        let d = super::validate_init_data(&q, "1:abc", 1000, 60).unwrap();
        assert_eq!(d.user.id, 42);
        assert!(super::validate_init_data(&q, "1:other", 1000, 60).is_err());
    }

    use super::*;

    #[test]
    fn key_constants_match_hex() {
        assert_eq!(
            hex::encode(PRODUCTION_PUBLIC_KEY),
            PRODUCTION_PUBLIC_KEY_HEX
        );
        assert_eq!(hex::encode(TEST_PUBLIC_KEY), TEST_PUBLIC_KEY_HEX);
        for env in [TelegramEnv::Production, TelegramEnv::Test] {
            assert!(VerifyingKey::from_bytes(&env.public_key()).is_ok());
        }
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b+c%2Bd").unwrap(), "a b c+d");
        assert_eq!(percent_decode("%D0%90").unwrap(), "А");
        assert_eq!(percent_decode("%zz"), Err(AuthError::BadPercentEncoding));
        assert_eq!(percent_decode("%2"), Err(AuthError::BadPercentEncoding));
        assert_eq!(percent_decode("%"), Err(AuthError::BadPercentEncoding));
        assert_eq!(percent_decode("%C3%28"), Err(AuthError::NotUtf8));
        assert_eq!(percent_decode("%FF"), Err(AuthError::NotUtf8));
    }

    #[test]
    fn query_parsing() {
        let f = parse_query("b=2&&a=1&c=").unwrap();
        assert_eq!(
            f,
            vec![
                ("a".to_owned(), "1".to_owned()),
                ("b".to_owned(), "2".to_owned()),
                ("c".to_owned(), String::new()),
            ]
        );
        assert_eq!(get(&f, "b"), Some("2"));
        assert_eq!(get(&f, "z"), None);
        assert_eq!(
            data_check_string(&f, &["b"], Some("1:WebAppData")),
            "1:WebAppData\na=1\nc="
        );
        assert_eq!(parse_query("a"), Err(AuthError::MalformedPair));
        assert_eq!(parse_query("=1"), Err(AuthError::MalformedPair));
        assert_eq!(
            parse_query("a=1&a=2"),
            Err(AuthError::DuplicateField("a".to_owned()))
        );
        // Keys are compared after decoding.
        assert_eq!(
            parse_query("a=1&%61=2"),
            Err(AuthError::DuplicateField("a".to_owned()))
        );
    }
}
