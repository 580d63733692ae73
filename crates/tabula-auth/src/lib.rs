//! Authentication for Tabula: Telegram Mini App `initData` validation,
//! guest ids and short-lived signed session tokens.
//!
//! The crate is pure: it does no IO and never reads a clock. Every check that
//! depends on time takes `now` (unix seconds) as an argument, so the server
//! passes its clock and tests pass a fixed instant.
//!
//! # Telegram `initData`
//!
//! A Mini App receives `Telegram.WebApp.initData`, a query string signed by
//! Telegram, and forwards it to the server. Two checks are offered, both from
//! <https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app>:
//!
//! * [`validate_init_data`] — the bot owner's check: the `hash` field must
//!   equal `hex(HMAC_SHA256(secret_key, data_check_string))` with
//!   `secret_key = HMAC_SHA256(key = "WebAppData", msg = bot_token)`. The
//!   data-check-string is every other field (the `signature` field included),
//!   percent-decoded, sorted by key, `key=value` joined with `'\n'`.
//! * [`validate_third_party`] — the check that needs no bot token: the
//!   `signature` field (base64url, no padding) must be Telegram's Ed25519
//!   signature of `"<bot_id>:WebAppData\n"` followed by every field except
//!   `hash` and `signature`, sorted and joined as above, under Telegram's
//!   published public key for the [`TelegramEnv`].
//!
//! Both compare in constant time, reject duplicate fields, check that
//! `auth_date` is at most `max_age` seconds old and not more than
//! [`MAX_FUTURE_SKEW`] seconds in the future, parse the `user` JSON and map the
//! user to a [`PlayerId`] `tg:<user id>`.
//!
//! ```
//! use tabula_auth::{validate_init_data, SessionKey};
//!
//! // A published vector (tma.js test suites): bot token and initData.
//! let token = "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4";
//! let init_data = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D&chat_instance=8134722200314281151&chat_type=private&auth_date=1733509682&signature=TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau-X7oNNLNBM72APCpi_RKiUlBvcqo5L-LAxIc3dnTzcZX_PDg&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73";
//! let now = 1733509682 + 60;
//! let data = validate_init_data(init_data, token, now, 86_400).unwrap();
//! assert_eq!(data.player_id.as_str(), "tg:279058397");
//!
//! // After that, a session token for reconnects.
//! let key = SessionKey::new(b"a server secret of at least 32 bytes!!").unwrap();
//! let token = key.issue(&data.player_id, now, 3600);
//! let session = key.verify(&token, now + 10).unwrap();
//! assert_eq!(session.player_id, data.player_id);
//! ```
//!
//! # Guests
//!
//! [`guest_player_id`] turns a client-chosen name into `guest:<name>` after
//! checking its charset and length. A guest id proves nothing about who holds
//! it; the server should issue a session token for it and accept the name
//! only once per session.
//!
//! # Profiles
//!
//! [`check_name`] checks a name a player chooses, [`TelegramProfile`] is
//! what validated `initData` says about a Telegram player (cleaned), and
//! [`generated_name`] names a guest from his id alone.
//!
//! # Session tokens
//!
//! [`SessionKey`] issues and verifies compact, URL-safe tokens
//! `v1.<base64url(player id)>.<issued_at>.<expires_at>.<base64url(HMAC-SHA256)>`;
//! see [`SessionKey`] for the format.

mod error;
mod init_data;
mod player;
mod profile;
mod session;

pub use error::{AuthError, SessionKeyError, TokenError};
pub use init_data::{
    InitData, MAX_FUTURE_SKEW, MAX_INIT_DATA_LEN, PRODUCTION_PUBLIC_KEY_HEX, TEST_PUBLIC_KEY_HEX,
    TelegramChat, TelegramEnv, TelegramUser, sign_init_data, validate_init_data,
    validate_third_party, validate_third_party_with_key,
};
pub use player::{GUEST_NAME_MAX_LEN, GUEST_NAME_MIN_LEN, PlayerId, guest_player_id};
pub use profile::{
    LANGUAGE_MAX_LEN, NAME_MAX_CHARS, NameError, PHOTO_URL_MAX_LEN, TELEGRAM_NAME_MAX_CHARS,
    TelegramProfile, USERNAME_MAX_LEN, check_name, generated_name, is_forbidden, language,
};
pub use session::{MAX_TOKEN_LEN, MIN_SECRET_LEN, Session, SessionKey};
