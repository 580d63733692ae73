//! Telegram `initData`, signed as Telegram signs it for a bot (HMAC-SHA256
//! keyed by `HMAC("WebAppData", bot token)`), and percent-encoded for a
//! query string.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

fn hmac(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
    m.update(msg);
    m.finalize().into_bytes().to_vec()
}

/// Percent-encodes everything but unreserved characters.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Now, in Unix seconds (an `auth_date`).
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// `initData` for Telegram user `id`, signed as Telegram signs it for `bot`.
pub fn init_data(bot: &str, id: u64) -> String {
    signed(
        bot,
        &[
            ("auth_date", now().to_string()),
            ("query_id", "AAHdF6IQAAAAAN0XohDhrOrc".to_string()),
            ("user", format!(r#"{{"id":{id},"first_name":"Ann"}}"#)),
        ],
    )
}

/// `initData` for the Telegram user `user` (its JSON, with an `id`),
/// signed as Telegram signs it for `bot`, `auth_date` now.
pub fn init_data_for(bot: &str, user: &serde_json::Value) -> String {
    signed(
        bot,
        &[("auth_date", now().to_string()), ("user", user.to_string())],
    )
}

/// `fields` (sorted by key) with Telegram's `hash` of them for `bot`.
fn signed(bot: &str, fields: &[(&str, String)]) -> String {
    let check = fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let hash = hex::encode(hmac(&hmac(b"WebAppData", bot.as_bytes()), check.as_bytes()));
    let mut q: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{k}={}", enc(v)))
        .collect();
    q.push(format!("hash={hash}"));
    q.join("&")
}
