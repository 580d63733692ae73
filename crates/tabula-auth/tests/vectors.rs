//! `initData` validation against published and independently computed
//! vectors, and every rejection as a typed error.
//!
//! Sources:
//! * `PUBLISHED_HMAC` / `PUBLISHED_TOKEN`: the vector in the Telegram Mini
//!   Apps (tma.js) project's docs and test suites (`init-data-golang`,
//!   `@telegram-apps/init-data-node`), a real initData for bot 7342037359.
//!   Its `signature` also verifies under Telegram's *production* Ed25519 key.
//! * `PUBLISHED_THIRD_PARTY`: the `validate3rd` example of
//!   `@telegram-apps/init-data-node` (bot 7342037359, production key; its
//!   `hash` belongs to a token that is not published).
//! * `OWN_HMAC` / `OWN_THIRD_PARTY`: built and signed by `tests/gen_vectors.py`
//!   (python3 hmac/hashlib and `cryptography`'s Ed25519), independent of this
//!   crate's code. Rerun it to reproduce them byte for byte.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signer, SigningKey};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use tabula_auth::{
    AuthError, MAX_FUTURE_SKEW, MAX_INIT_DATA_LEN, PRODUCTION_PUBLIC_KEY_HEX, TEST_PUBLIC_KEY_HEX,
    TelegramEnv, validate_init_data, validate_third_party, validate_third_party_with_key,
};

const PUBLISHED_TOKEN: &str = "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4";
const PUBLISHED_BOT_ID: u64 = 7342037359;
const PUBLISHED_HMAC: &str = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D&chat_instance=8134722200314281151&chat_type=private&auth_date=1733509682&signature=TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau-X7oNNLNBM72APCpi_RKiUlBvcqo5L-LAxIc3dnTzcZX_PDg&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73";
const PUBLISHED_HMAC_DATE: u64 = 1733509682;
const PUBLISHED_THIRD_PARTY: &str = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D&chat_instance=8134722200314281151&chat_type=private&auth_date=1733584787&signature=zL-ucjNyREiHDE8aihFwpfR9aggP2xiAo3NSpfe-p7IbCisNlDKlo7Kb6G4D0Ao2mBrSgEk4maLSdv6MLIlADQ&hash=2174df5b000556d044f3f020384e879c8efcab55ddea2ced4eb752e93e7080d6";
const PUBLISHED_THIRD_PARTY_DATE: u64 = 1733584787;

const OWN_TOKEN: &str = "123456789:TEST-tabula-bot-token";
const OWN_BOT_ID: u64 = 123456789;
const OWN_DATE: u64 = 1700000000;
const OWN_HMAC: &str = "query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A5000131393%2C%22first_name%22%3A%22%D0%90%D0%BB%D0%B8%D1%81%D0%B0%22%2C%22last_name%22%3A%22O%27Neil%20%26%20Co%22%2C%22username%22%3A%22alice_tabula%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%2F%2Ft.me%2Fi%2Fuserpic%2F320%2Falice.svg%22%7D&auth_date=1700000000&start_param=room-42&chat_type=sender&chat_instance=-8473522709835892796&hash=f1c59b1b458fe6da321dae53e2751aaf1438f3a9ad934a66db1768cd63fe7c69";
/// Ed25519 seed of `OWN_THIRD_PARTY`'s signer, and its public key.
const OWN_SEED: [u8; 32] = [7; 32];
const OWN_PUBLIC_KEY_HEX: &str = "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c";
const OWN_THIRD_PARTY: &str = "query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A5000131393%2C%22first_name%22%3A%22%D0%90%D0%BB%D0%B8%D1%81%D0%B0%22%2C%22last_name%22%3A%22O%27Neil%20%26%20Co%22%2C%22username%22%3A%22alice_tabula%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%2F%2Ft.me%2Fi%2Fuserpic%2F320%2Falice.svg%22%7D&auth_date=1700000000&start_param=room-42&chat_type=sender&chat_instance=-8473522709835892796&signature=OTz7WAQPRVATOJ3wObqmquhKFuYvpLsIOt0l7P0K_ineVZj855VmYhvpfasgvJF_0QT4fN-NJ8HJgamefapoDw";

const DAY: u64 = 86_400;

fn own_public_key() -> [u8; 32] {
    let key = SigningKey::from_bytes(&OWN_SEED).verifying_key().to_bytes();
    assert_eq!(hex::encode(key), OWN_PUBLIC_KEY_HEX);
    key
}

// ---- test-side signers (plain hmac/ed25519, not the crate's code path) ----

/// Percent-encodes like python's `quote(v, safe='')`.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn check_string(pairs: &[(&str, &str)]) -> String {
    let mut sorted = pairs.to_vec();
    sorted.sort();
    sorted
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
    mac.update(msg);
    mac.finalize().into_bytes().to_vec()
}

/// initData with a correct `hash` for `token`.
fn sign_hmac(pairs: &[(&str, &str)], token: &str) -> String {
    let secret = hmac_sha256(b"WebAppData", token.as_bytes());
    let hash = hex::encode(hmac_sha256(&secret, check_string(pairs).as_bytes()));
    format!("{}&hash={hash}", query(pairs))
}

/// initData with a correct `signature` by `OWN_SEED` for `bot_id`.
fn sign_ed25519(pairs: &[(&str, &str)], bot_id: u64) -> String {
    let message = format!("{bot_id}:WebAppData\n{}", check_string(pairs));
    let sig = SigningKey::from_bytes(&OWN_SEED).sign(message.as_bytes());
    format!(
        "{}&signature={}",
        query(pairs),
        URL_SAFE_NO_PAD.encode(sig.to_bytes())
    )
}

const USER: &str = r#"{"id":42,"first_name":"Bob"}"#;

fn own_pairs() -> Vec<(&'static str, &'static str)> {
    vec![
        ("query_id", "AAHdF6IQAAAAAN0XohDhrOrc"),
        (
            "user",
            r#"{"id":5000131393,"first_name":"Алиса","last_name":"O'Neil & Co","username":"alice_tabula","language_code":"ru","is_premium":true,"allows_write_to_pm":true,"photo_url":"https://t.me/i/userpic/320/alice.svg"}"#,
        ),
        ("auth_date", "1700000000"),
        ("start_param", "room-42"),
        ("chat_type", "sender"),
        ("chat_instance", "-8473522709835892796"),
    ]
}

// ---- published vectors ----

#[test]
fn published_hmac_vector_validates() {
    let data =
        validate_init_data(PUBLISHED_HMAC, PUBLISHED_TOKEN, PUBLISHED_HMAC_DATE, DAY).unwrap();
    assert_eq!(data.player_id.as_str(), "tg:279058397");
    assert_eq!(data.auth_date, PUBLISHED_HMAC_DATE);
    let u = &data.user;
    assert_eq!(u.id, 279058397);
    // `%2B` is a literal plus and JSON's `\/` is a slash.
    assert_eq!(u.first_name, "Vladislav + - ? /");
    assert_eq!(u.last_name.as_deref(), Some("Kibenko"));
    assert_eq!(u.username.as_deref(), Some("vdkfrost"));
    assert_eq!(u.language_code.as_deref(), Some("ru"));
    assert_eq!(u.is_premium, Some(true));
    assert_eq!(u.allows_write_to_pm, Some(true));
    assert_eq!(
        u.photo_url.as_deref(),
        Some("https://t.me/i/userpic/320/4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg")
    );
    assert_eq!(data.chat_type.as_deref(), Some("private"));
    assert_eq!(data.chat_instance.as_deref(), Some("8134722200314281151"));
    assert_eq!(data.query_id, None);
    assert_eq!(data.start_param, None);
}

#[test]
fn published_vectors_validate_third_party_in_production() {
    for (init, date) in [
        (PUBLISHED_HMAC, PUBLISHED_HMAC_DATE),
        (PUBLISHED_THIRD_PARTY, PUBLISHED_THIRD_PARTY_DATE),
    ] {
        let data = validate_third_party(init, PUBLISHED_BOT_ID, date, DAY, TelegramEnv::Production)
            .unwrap();
        assert_eq!(data.player_id.as_str(), "tg:279058397");
        assert_eq!(
            validate_third_party(init, PUBLISHED_BOT_ID, date, DAY, TelegramEnv::Test),
            Err(AuthError::SignatureMismatch)
        );
        assert_eq!(
            validate_third_party(
                init,
                PUBLISHED_BOT_ID + 1,
                date,
                DAY,
                TelegramEnv::Production
            ),
            Err(AuthError::SignatureMismatch)
        );
    }
}

#[test]
fn published_keys_are_telegrams() {
    assert_eq!(
        PRODUCTION_PUBLIC_KEY_HEX,
        "e7bf03a2fa4602af4580703d88dda5bb59f32ed8b02a56c187fe7d34caed242d"
    );
    assert_eq!(
        TEST_PUBLIC_KEY_HEX,
        "40055058a4ee38156a06562e52eece92a771bcd8346a8c4615cb7376eddf72ec"
    );
    assert_eq!(
        hex::encode(TelegramEnv::Production.public_key()),
        PRODUCTION_PUBLIC_KEY_HEX
    );
    assert_eq!(
        hex::encode(TelegramEnv::Test.public_key()),
        TEST_PUBLIC_KEY_HEX
    );
}

#[test]
fn published_vector_hmac_covers_signature_field() {
    // The bot-token check signs every field but `hash`, `signature` included.
    let renamed = PUBLISHED_HMAC.replace("signature=", "signaturx=");
    assert_eq!(
        validate_init_data(&renamed, PUBLISHED_TOKEN, PUBLISHED_HMAC_DATE, DAY),
        Err(AuthError::HashMismatch)
    );
}

// ---- independently computed vectors ----

#[test]
fn own_hmac_vector_validates() {
    assert_eq!(
        sign_hmac(&own_pairs(), OWN_TOKEN),
        OWN_HMAC,
        "test signer agrees with python"
    );
    let data = validate_init_data(OWN_HMAC, OWN_TOKEN, OWN_DATE + 5, 3600).unwrap();
    assert_eq!(data.player_id.as_str(), "tg:5000131393");
    assert_eq!(data.user.first_name, "Алиса");
    assert_eq!(data.user.last_name.as_deref(), Some("O'Neil & Co"));
    assert_eq!(data.user.username.as_deref(), Some("alice_tabula"));
    assert_eq!(data.user.is_premium, Some(true));
    assert_eq!(data.query_id.as_deref(), Some("AAHdF6IQAAAAAN0XohDhrOrc"));
    assert_eq!(data.start_param.as_deref(), Some("room-42"));
    assert_eq!(data.chat_type.as_deref(), Some("sender"));
    assert_eq!(data.chat_instance.as_deref(), Some("-8473522709835892796"));
    assert_eq!(data.receiver, None);
    assert_eq!(data.chat, None);
    // Field order in the query string does not matter.
    let mut parts: Vec<&str> = OWN_HMAC.split('&').collect();
    parts.reverse();
    assert_eq!(
        validate_init_data(&parts.join("&"), OWN_TOKEN, OWN_DATE, 3600),
        Ok(data)
    );
}

#[test]
fn own_third_party_vector_validates() {
    let key = own_public_key();
    assert_eq!(sign_ed25519(&own_pairs(), OWN_BOT_ID), OWN_THIRD_PARTY);
    let data =
        validate_third_party_with_key(OWN_THIRD_PARTY, OWN_BOT_ID, &key, OWN_DATE, 3600).unwrap();
    assert_eq!(data.player_id.as_str(), "tg:5000131393");
    assert_eq!(data.start_param.as_deref(), Some("room-42"));
    // `hash` is ignored by the third-party check, present or not.
    let with_hash = format!("{OWN_THIRD_PARTY}&hash=00");
    assert!(validate_third_party_with_key(&with_hash, OWN_BOT_ID, &key, OWN_DATE, 3600).is_ok());
    // Telegram's keys did not sign it.
    for env in [TelegramEnv::Production, TelegramEnv::Test] {
        assert_eq!(
            validate_third_party(OWN_THIRD_PARTY, OWN_BOT_ID, OWN_DATE, 3600, env),
            Err(AuthError::SignatureMismatch)
        );
    }
}

#[test]
fn optional_fields_parse() {
    let pairs = [
        ("user", USER),
        (
            "receiver",
            r#"{"id":7,"is_bot":true,"first_name":"Tabula"}"#,
        ),
        (
            "chat",
            r#"{"id":-1001,"type":"supergroup","title":"Nardy club"}"#,
        ),
        ("can_send_after", "1700000100"),
        ("auth_date", "1700000000"),
        ("unknown_future_field", "kept out"),
    ];
    let data = validate_init_data(&sign_hmac(&pairs, OWN_TOKEN), OWN_TOKEN, OWN_DATE, 60).unwrap();
    assert_eq!(data.player_id.as_str(), "tg:42");
    assert_eq!(
        data.receiver.as_ref().map(|r| (r.id, r.is_bot)),
        Some((7, Some(true)))
    );
    let chat = data.chat.unwrap();
    assert_eq!(
        (chat.id, chat.kind.as_str(), chat.title.as_str()),
        (-1001, "supergroup", "Nardy club")
    );
    assert_eq!(data.can_send_after, Some(1700000100));
}

// ---- rejections ----

#[test]
fn tampered_field_is_rejected() {
    let tampered = OWN_HMAC.replace("room-42", "room-43");
    assert_eq!(
        validate_init_data(&tampered, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::HashMismatch)
    );
    let tampered = PUBLISHED_HMAC.replace("279058397", "279058398");
    assert_eq!(
        validate_init_data(&tampered, PUBLISHED_TOKEN, PUBLISHED_HMAC_DATE, DAY),
        Err(AuthError::HashMismatch)
    );
    assert_eq!(
        validate_third_party(
            &tampered,
            PUBLISHED_BOT_ID,
            PUBLISHED_HMAC_DATE,
            DAY,
            TelegramEnv::Production
        ),
        Err(AuthError::SignatureMismatch)
    );
    let tampered = OWN_THIRD_PARTY.replace("1700000000", "1700000001");
    assert_eq!(
        validate_third_party_with_key(&tampered, OWN_BOT_ID, &own_public_key(), OWN_DATE, 3600),
        Err(AuthError::SignatureMismatch)
    );
    // An extra field is data too.
    let extra = format!("{OWN_HMAC}&is_admin=true");
    assert_eq!(
        validate_init_data(&extra, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::HashMismatch)
    );
    // A different (wrong) hash of the right length.
    let wrong = OWN_HMAC.replace("hash=f1c5", "hash=f1c6");
    assert_eq!(
        validate_init_data(&wrong, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::HashMismatch)
    );
    // A truncated hash.
    let short = &OWN_HMAC[..OWN_HMAC.len() - 2];
    assert_eq!(
        validate_init_data(short, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::HashMismatch)
    );
}

#[test]
fn wrong_token_is_rejected() {
    assert_eq!(
        validate_init_data(OWN_HMAC, "123456789:TEST-tabula-bot-tokeN", OWN_DATE, 3600),
        Err(AuthError::HashMismatch)
    );
    assert_eq!(
        validate_init_data(PUBLISHED_HMAC, OWN_TOKEN, PUBLISHED_HMAC_DATE, DAY),
        Err(AuthError::HashMismatch)
    );
    assert_eq!(
        validate_init_data(OWN_HMAC, "", OWN_DATE, 3600),
        Err(AuthError::EmptyBotToken)
    );
}

#[test]
fn missing_hash_or_signature_is_rejected() {
    let no_hash = OWN_HMAC.split("&hash=").next().unwrap();
    assert_eq!(
        validate_init_data(no_hash, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::MissingField("hash"))
    );
    assert_eq!(
        validate_init_data("", OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::MissingField("hash"))
    );
    let no_sig = OWN_THIRD_PARTY.split("&signature=").next().unwrap();
    assert_eq!(
        validate_third_party(no_sig, OWN_BOT_ID, OWN_DATE, 3600, TelegramEnv::Production),
        Err(AuthError::MissingField("signature"))
    );
}

#[test]
fn bad_hash_or_signature_encoding_is_rejected() {
    let not_hex = OWN_HMAC.replace("hash=f1c5", "hash=x1c5");
    assert!(matches!(
        validate_init_data(&not_hex, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::InvalidField { field: "hash", .. })
    ));
    let (head, sig) = OWN_THIRD_PARTY.split_once("&signature=").unwrap();
    for bad in [
        format!("{head}&signature={sig}=="),                   // padded
        format!("{head}&signature={}", sig.replace('_', "/")), // standard alphabet
        format!("{head}&signature={}", &sig[..sig.len() - 4]), // 61 bytes
        format!("{head}&signature="),
    ] {
        assert!(
            matches!(
                validate_third_party_with_key(&bad, OWN_BOT_ID, &own_public_key(), OWN_DATE, 3600),
                Err(AuthError::InvalidField {
                    field: "signature",
                    ..
                })
            ),
            "{bad}"
        );
    }
}

#[test]
fn duplicate_keys_are_rejected() {
    // Even when one copy is the validly signed one.
    let dup = format!("{OWN_HMAC}&start_param=room-666");
    assert_eq!(
        validate_init_data(&dup, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::DuplicateField("start_param".to_owned()))
    );
    let dup_hash = format!("{OWN_HMAC}&hash=00");
    assert_eq!(
        validate_init_data(&dup_hash, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::DuplicateField("hash".to_owned()))
    );
    let dup_sig = format!("{OWN_THIRD_PARTY}&signature=AA");
    assert_eq!(
        validate_third_party(
            &dup_sig,
            OWN_BOT_ID,
            OWN_DATE,
            3600,
            TelegramEnv::Production
        ),
        Err(AuthError::DuplicateField("signature".to_owned()))
    );
}

#[test]
fn stale_auth_date_is_rejected() {
    assert!(validate_init_data(OWN_HMAC, OWN_TOKEN, OWN_DATE + 3600, 3600).is_ok());
    assert_eq!(
        validate_init_data(OWN_HMAC, OWN_TOKEN, OWN_DATE + 3601, 3600),
        Err(AuthError::Expired {
            auth_date: OWN_DATE,
            now: OWN_DATE + 3601,
            max_age: 3600
        })
    );
    assert!(matches!(
        validate_third_party(
            PUBLISHED_THIRD_PARTY,
            PUBLISHED_BOT_ID,
            PUBLISHED_THIRD_PARTY_DATE + DAY + 1,
            DAY,
            TelegramEnv::Production
        ),
        Err(AuthError::Expired { .. })
    ));
    assert!(validate_init_data(OWN_HMAC, OWN_TOKEN, u64::MAX, u64::MAX - OWN_DATE).is_ok());
    assert!(matches!(
        validate_init_data(OWN_HMAC, OWN_TOKEN, u64::MAX, u64::MAX - OWN_DATE - 1),
        Err(AuthError::Expired { .. })
    ));
}

#[test]
fn future_auth_date_is_rejected() {
    let now = OWN_DATE - MAX_FUTURE_SKEW;
    assert!(validate_init_data(OWN_HMAC, OWN_TOKEN, now, 3600).is_ok());
    assert_eq!(
        validate_init_data(OWN_HMAC, OWN_TOKEN, now - 1, 3600),
        Err(AuthError::FromFuture {
            auth_date: OWN_DATE,
            now: now - 1
        })
    );
    assert!(matches!(
        validate_init_data(OWN_HMAC, OWN_TOKEN, 0, u64::MAX),
        Err(AuthError::FromFuture { .. })
    ));
    let far = sign_hmac(
        &[("user", USER), ("auth_date", "18446744073709551615")],
        OWN_TOKEN,
    );
    assert!(matches!(
        validate_init_data(&far, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::FromFuture { .. })
    ));
}

#[test]
fn bad_auth_date_is_rejected() {
    for bad in [
        "",
        "-1",
        "+1700000000",
        "1.5",
        "1e9",
        "18446744073709551616",
        " 1",
    ] {
        let init = sign_hmac(&[("user", USER), ("auth_date", bad)], OWN_TOKEN);
        assert!(
            matches!(
                validate_init_data(&init, OWN_TOKEN, OWN_DATE, 3600),
                Err(AuthError::InvalidField {
                    field: "auth_date",
                    ..
                })
            ),
            "{bad:?}"
        );
    }
    let none = sign_hmac(&[("user", USER)], OWN_TOKEN);
    assert_eq!(
        validate_init_data(&none, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::MissingField("auth_date"))
    );
}

#[test]
fn malformed_user_json_is_rejected() {
    for bad in [
        "",
        "{",
        "not json",
        r#"{"first_name":"no id"}"#,
        r#"{"id":-5,"first_name":"negative"}"#,
        r#"{"id":"42","first_name":"string id"}"#,
        r#"{"id":4.2}"#,
        r#"[42]"#,
        r#"{"id":42,"is_premium":"yes"}"#,
    ] {
        let init = sign_hmac(&[("user", bad), ("auth_date", "1700000000")], OWN_TOKEN);
        assert!(
            matches!(
                validate_init_data(&init, OWN_TOKEN, OWN_DATE, 3600),
                Err(AuthError::InvalidField { field: "user", .. })
            ),
            "{bad:?}"
        );
        let init = sign_ed25519(&[("user", bad), ("auth_date", "1700000000")], OWN_BOT_ID);
        assert!(
            matches!(
                validate_third_party_with_key(&init, OWN_BOT_ID, &own_public_key(), OWN_DATE, 3600),
                Err(AuthError::InvalidField { field: "user", .. })
            ),
            "{bad:?}"
        );
    }
    let no_user = sign_hmac(&[("auth_date", "1700000000")], OWN_TOKEN);
    assert_eq!(
        validate_init_data(&no_user, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::MissingField("user"))
    );
    let bad_chat = sign_hmac(
        &[("user", USER), ("chat", "{}"), ("auth_date", "1700000000")],
        OWN_TOKEN,
    );
    assert!(matches!(
        validate_init_data(&bad_chat, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::InvalidField { field: "chat", .. })
    ));
}

#[test]
fn malformed_query_strings_are_rejected() {
    let cases: [(&str, AuthError); 7] = [
        ("user=%7&auth_date=1&hash=00", AuthError::BadPercentEncoding),
        ("user=%zz&hash=00", AuthError::BadPercentEncoding),
        ("user=abc%&hash=00", AuthError::BadPercentEncoding),
        ("user=%FF%FE&hash=00", AuthError::NotUtf8),
        ("%C3=1&hash=00", AuthError::NotUtf8),
        ("user&hash=00", AuthError::MalformedPair),
        ("=x&hash=00", AuthError::MalformedPair),
    ];
    for (init, want) in cases {
        assert_eq!(
            validate_init_data(init, OWN_TOKEN, OWN_DATE, 3600),
            Err(want.clone()),
            "{init}"
        );
        assert_eq!(
            validate_third_party(init, OWN_BOT_ID, OWN_DATE, 3600, TelegramEnv::Production),
            Err(want),
            "{init}"
        );
    }
    let long = format!("{OWN_HMAC}&pad={}", "a".repeat(MAX_INIT_DATA_LEN));
    assert_eq!(
        validate_init_data(&long, OWN_TOKEN, OWN_DATE, 3600),
        Err(AuthError::TooLong {
            max: MAX_INIT_DATA_LEN
        })
    );
}

#[test]
fn errors_display() {
    let e = validate_init_data(OWN_HMAC, "wrong", OWN_DATE, 3600).unwrap_err();
    assert!(e.to_string().contains("hash does not match"));
}
