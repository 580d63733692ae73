//! Typed errors. Every input the crate rejects maps to one of these; nothing
//! panics on untrusted input.

/// Why Telegram `initData` (or a guest name) was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The input is longer than [`crate::MAX_INIT_DATA_LEN`] bytes.
    #[error("init data is longer than {max} bytes")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// A `&`-separated segment has no `=` or an empty key.
    #[error("init data is not a query string: a field has no `=` or an empty key")]
    MalformedPair,
    /// A `%` is not followed by two hex digits.
    #[error("init data has malformed percent-encoding")]
    BadPercentEncoding,
    /// A decoded key or value is not UTF-8.
    #[error("init data decodes to bytes that are not UTF-8")]
    NotUtf8,
    /// The same key appears twice (the data-check-string would be ambiguous).
    #[error("field `{0}` appears more than once")]
    DuplicateField(String),
    /// A field the check needs is absent (`hash`, `signature`, `auth_date`, `user`).
    #[error("required field `{0}` is missing")]
    MissingField(&'static str),
    /// A field is present but cannot be read (not a number, bad JSON, bad encoding).
    #[error("field `{field}` is invalid: {reason}")]
    InvalidField {
        /// The field's name.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The bot token given to [`crate::validate_init_data`] is empty.
    #[error("the bot token is empty")]
    EmptyBotToken,
    /// The `hash` does not match: wrong bot token or tampered data.
    #[error("hash does not match the data (wrong bot token or tampered data)")]
    HashMismatch,
    /// The Ed25519 `signature` does not verify: wrong bot id, wrong
    /// environment or tampered data.
    #[error("signature does not verify (wrong bot id, wrong environment or tampered data)")]
    SignatureMismatch,
    /// `auth_date` is more than `max_age` seconds before `now`.
    #[error("init data expired: auth_date {auth_date} is more than {max_age}s before {now}")]
    Expired {
        /// The signed `auth_date`.
        auth_date: u64,
        /// The caller's clock.
        now: u64,
        /// The caller's limit.
        max_age: u64,
    },
    /// `auth_date` is more than [`crate::MAX_FUTURE_SKEW`] seconds after `now`.
    #[error("auth_date {auth_date} is in the future (now {now})")]
    FromFuture {
        /// The signed `auth_date`.
        auth_date: u64,
        /// The caller's clock.
        now: u64,
    },
    /// A guest name or player id string breaks the charset or length rules.
    #[error("invalid player id: {0}")]
    InvalidPlayerId(&'static str),
}

/// Why a session token was rejected by [`crate::SessionKey::verify`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Not a token of this shape (wrong parts, bad base64, bad numbers, too long).
    #[error("malformed session token")]
    Malformed,
    /// A token of a version this crate does not issue.
    #[error("unsupported session token version")]
    UnsupportedVersion,
    /// The signature does not match: forged, tampered or from another key.
    #[error("session token signature does not match")]
    BadSignature,
    /// The token's lifetime is over.
    #[error("session token expired at {expires_at} (now {now})")]
    Expired {
        /// When it stopped being valid.
        expires_at: u64,
        /// The caller's clock.
        now: u64,
    },
}

/// Why a [`crate::SessionKey`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionKeyError {
    /// The secret is shorter than [`crate::MIN_SECRET_LEN`] bytes.
    #[error("session secret is {len} bytes; at least {min} are required")]
    TooShort {
        /// The required minimum.
        min: usize,
        /// The length given.
        len: usize,
    },
}
