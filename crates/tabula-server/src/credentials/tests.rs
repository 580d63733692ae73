use super::*;

#[test]
fn a_guest_is_minted_whatever_name_it_sends() {
    let a = GuestAuth {
        guest: true,
        telegram: None,
    };
    let named = Credentials {
        guest: Some("bob".into()),
        ..Credentials::default()
    };
    let one = a.authenticate(&named).unwrap();
    let two = a.authenticate(&named).unwrap();
    assert!(
        one.0.starts_with("guest:") && one.0.len() == 6 + 32,
        "{one}"
    );
    // The same name twice is two players: a name is no credential.
    assert_ne!(one, two);
    assert_ne!(one.0, "guest:bob");
    // Whatever was sent as a name (too short, odd characters).
    for g in ["ab", "a b", "", "<img>"] {
        let c = Credentials {
            guest: Some(g.into()),
            ..Credentials::default()
        };
        assert!(a.authenticate(&c).unwrap().0.starts_with("guest:"));
    }
    let off = GuestAuth {
        guest: false,
        telegram: None,
    };
    assert_eq!(off.authenticate(&named), Err(AuthError::Missing));
}

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

const BOT: &str = "1234567:TEST-token_for-unit-tests";
const NOW: u64 = 1_700_000_000;

fn hmac(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
    m.update(msg);
    m.finalize().into_bytes().to_vec()
}

/// Percent-encodes everything but unreserved characters.
fn enc(s: &str) -> String {
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

/// Signed `initData` for Telegram user `id`, as Telegram builds it.
pub(crate) fn init_data(bot: &str, id: u64, auth_date: u64) -> String {
    let user = format!(r#"{{"id":{id},"first_name":"Ann"}}"#);
    let mut fields = [
        ("auth_date", auth_date.to_string()),
        ("query_id", "AAF".to_string()),
        ("user", user),
    ];
    fields.sort();
    let check = fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let secret = hmac(b"WebAppData", bot.as_bytes());
    let hash = hex::encode(hmac(&secret, check.as_bytes()));
    let mut q: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{k}={}", enc(v)))
        .collect();
    q.push(format!("hash={hash}"));
    q.join("&")
}

fn key(b: u8) -> SessionKey {
    SessionKey::new(&[b; 32]).unwrap()
}

fn tg() -> TelegramAuth {
    TelegramAuth::new(Some(Secret(BOT.into())), 86_400, key(7), 3600)
}

fn with_init(s: String) -> Credentials {
    Credentials {
        init_data: Some(s),
        ..Credentials::default()
    }
}

fn with_token(s: String) -> Credentials {
    Credentials {
        token: Some(s),
        ..Credentials::default()
    }
}

#[test]
fn valid_init_data_is_a_telegram_player() {
    let p = tg()
        .authenticate_at(&with_init(init_data(BOT, 279_058_397, NOW - 30)), NOW)
        .unwrap();
    assert_eq!(p.0, "tg:279058397");
}

#[test]
fn an_init_data_login_carries_the_signed_profile_and_a_token_none() {
    let l = tg()
        .login_at(&with_init(init_data(BOT, 42, NOW)), NOW)
        .unwrap();
    assert_eq!(l.player.0, "tg:42");
    let p = l.telegram.expect("the profile initData signed");
    assert_eq!(p.name.as_deref(), Some("Ann"));
    let t = tg().issue_token_at(&l.player, NOW).unwrap();
    let l = tg().login_at(&with_token(t), NOW).unwrap();
    assert_eq!((l.player.0.as_str(), l.telegram), ("tg:42", None));
    // Through the guest chain too.
    let a = GuestAuth {
        guest: true,
        telegram: Some(Box::new(TelegramAuth::new(
            Some(Secret(BOT.into())),
            u64::MAX,
            key(7),
            3600,
        ))),
    };
    let l = a.login(&with_init(init_data(BOT, 42, NOW))).unwrap();
    assert!(l.telegram.is_some());
    assert_eq!(a.login(&Credentials::default()).unwrap().telegram, None);
}

#[test]
fn published_vector_is_accepted() {
    // The tma.js vector also used in tabula-auth's docs.
    let bot = "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4";
    let init = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D&chat_instance=8134722200314281151&chat_type=private&auth_date=1733509682&signature=TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau-X7oNNLNBM72APCpi_RKiUlBvcqo5L-LAxIc3dnTzcZX_PDg&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73";
    let a = TelegramAuth::new(Some(Secret(bot.into())), 86_400, key(1), 60);
    let p = a
        .authenticate_at(&with_init(init.into()), 1_733_509_682 + 60)
        .unwrap();
    assert_eq!(p.0, "tg:279058397");
}

#[test]
fn tampered_init_data_is_refused() {
    let good = init_data(BOT, 42, NOW);
    let tampered = good.replace("%22id%22%3A42", "%22id%22%3A43");
    assert_ne!(good, tampered);
    let e = tg().authenticate_at(&with_init(tampered), NOW).unwrap_err();
    assert!(
        matches!(&e, AuthError::Invalid(m) if m.contains("hash does not match")),
        "{e}"
    );
    // Signed with another bot's token.
    let other = init_data("999:other", 42, NOW);
    assert!(tg().authenticate_at(&with_init(other), NOW).is_err());
    // Garbage.
    let e = tg()
        .authenticate_at(&with_init("not init data".into()), NOW)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("invalid credentials: telegram initData"),
        "{e}"
    );
}

#[test]
fn stale_init_data_is_refused() {
    let old = init_data(BOT, 42, NOW - 86_401);
    let e = tg().authenticate_at(&with_init(old), NOW).unwrap_err();
    assert!(
        matches!(&e, AuthError::Invalid(m) if m.contains("expired")),
        "{e}"
    );
    // The configured max age is what counts.
    let strict = TelegramAuth::new(Some(Secret(BOT.into())), 60, key(7), 3600);
    let minute = init_data(BOT, 42, NOW - 61);
    assert!(
        strict
            .authenticate_at(&with_init(minute.clone()), NOW)
            .is_err()
    );
    assert!(tg().authenticate_at(&with_init(minute), NOW).is_ok());
}

#[test]
fn init_data_without_a_bot_token_is_not_configured() {
    let a = TelegramAuth::new(None, 86_400, key(7), 3600);
    let e = a
        .authenticate_at(&with_init(init_data(BOT, 42, NOW)), NOW)
        .unwrap_err();
    assert_eq!(e, AuthError::NotConfigured("telegram"));
}

#[test]
fn token_round_trip() {
    let a = tg();
    let p = a
        .authenticate_at(&with_init(init_data(BOT, 42, NOW)), NOW)
        .unwrap();
    let t = a.issue_token_at(&p, NOW).unwrap();
    assert_eq!(
        a.authenticate_at(&with_token(t.clone()), NOW + 3599)
            .unwrap(),
        p
    );
    // Guests get tokens too (names tabula-auth accepts).
    let g = PlayerId::new("guest:alice");
    let gt = a.issue_token_at(&g, NOW).unwrap();
    assert_eq!(a.authenticate_at(&with_token(gt), NOW + 1).unwrap(), g);
    // Another node with the same secret accepts it.
    let b = TelegramAuth::new(None, 86_400, key(7), 3600);
    assert_eq!(b.authenticate_at(&with_token(t), NOW + 1).unwrap(), p);
}

#[test]
fn expired_or_forged_tokens_are_refused() {
    let a = tg();
    let p = PlayerId::new("tg:42");
    let t = a.issue_token_at(&p, NOW).unwrap();
    let e = a
        .authenticate_at(&with_token(t.clone()), NOW + 3600)
        .unwrap_err();
    assert!(
        matches!(&e, AuthError::Invalid(m) if m.contains("expired")),
        "{e}"
    );
    // Signed with another secret.
    let forged = TelegramAuth::new(None, 86_400, key(8), 3600)
        .issue_token_at(&p, NOW)
        .unwrap();
    let e = a.authenticate_at(&with_token(forged), NOW).unwrap_err();
    assert!(
        matches!(&e, AuthError::Invalid(m) if m.contains("signature")),
        "{e}"
    );
    // The player swapped in a genuine token.
    let mut parts: Vec<&str> = t.split('.').collect();
    let other = "dGc6NDM"; // base64url("tg:43")
    parts[1] = other;
    let swapped = parts.join(".");
    assert!(a.authenticate_at(&with_token(swapped), NOW).is_err());
    assert!(
        a.authenticate_at(&with_token("garbage".into()), NOW)
            .is_err()
    );
}

#[test]
fn guests_are_off_when_a_bot_token_is_configured() {
    let mut s = crate::Settings::defaults();
    assert!(from_settings(&s.auth).guest);
    s.auth.bot_token = Some(Secret(BOT.into()));
    let a = from_settings(&s.auth);
    assert!(!a.guest);
    let c = Credentials {
        guest: Some("bob".into()),
        ..Credentials::default()
    };
    assert_eq!(a.authenticate(&c), Err(AuthError::Missing));
    // Telegram players are admitted and get a token that works.
    let p = a
        .authenticate(&with_init(init_data(BOT, 42, unix_now())))
        .unwrap();
    assert_eq!(p.0, "tg:42");
    let t = a.issue_token(&p).unwrap();
    assert_eq!(a.authenticate(&with_token(t)).unwrap(), p);
    // A guest token (signed with the same key) is refused too.
    let gt = a.issue_token(&PlayerId::new("guest:bob")).unwrap();
    let e = a.authenticate(&with_token(gt)).unwrap_err();
    assert!(e.to_string().contains("guest sessions are disabled"), "{e}");
    // Forced back on.
    s.auth.force_guest = true;
    assert!(from_settings(&s.auth).authenticate(&c).is_ok());
}

#[test]
fn default_guest_mode_issues_tokens() {
    let a = from_settings(&crate::Settings::defaults().auth);
    let c = Credentials {
        guest: Some("carol".into()),
        ..Credentials::default()
    };
    let p = a.authenticate(&c).unwrap();
    let t = a.issue_token(&p).unwrap();
    // The token, and only the token, is the same guest again.
    assert_eq!(a.authenticate(&with_token(t.clone())).unwrap(), p);
    assert_ne!(a.authenticate(&c).unwrap(), p);
    // A guest's token outlives a Telegram session's (30 days, not 1 h).
    let s = crate::Settings::defaults().auth;
    assert!(s.guest_session_ttl_secs > s.session_ttl_secs);
    let key = SessionKey::new(&[7u8; 32]).unwrap();
    let tg = TelegramAuth::new(None, 60, key, 3600).with_guest_ttl(30 * 86_400);
    let gt = tg.issue_token_at(&p, 1_000).unwrap();
    let later = 1_000 + 7 * 86_400;
    assert_eq!(tg.authenticate_at(&with_token(gt), later).unwrap(), p);
    let tt = tg.issue_token_at(&PlayerId::new("tg:42"), 1_000).unwrap();
    assert!(tg.authenticate_at(&with_token(tt), later).is_err());
    // init_data without a bot token: not configured.
    assert_eq!(
        a.authenticate(&with_init(init_data(BOT, 1, unix_now()))),
        Err(AuthError::NotConfigured("telegram"))
    );
}
