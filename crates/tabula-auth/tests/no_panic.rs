//! Random input never panics; session tokens round-trip.

use proptest::prelude::*;
use tabula_auth::{
    NAME_MAX_CHARS, PlayerId, SessionKey, TELEGRAM_NAME_MAX_CHARS, TelegramEnv, TelegramProfile,
    TelegramUser, check_name, generated_name, guest_player_id, is_forbidden, validate_init_data,
    validate_third_party,
};

const TOKEN: &str = "123456789:TEST-tabula-bot-token";

fn key() -> SessionKey {
    SessionKey::new(b"proptest secret, thirty-two bytes+").unwrap()
}

proptest! {
    #[test]
    fn any_string_is_handled(s in ".{0,400}", now in any::<u64>(), max_age in any::<u64>()) {
        let _ = validate_init_data(&s, TOKEN, now, max_age);
        let _ = validate_third_party(&s, 1, now, max_age, TelegramEnv::Production);
        let _ = key().verify(&s, now);
        let _ = guest_player_id(&s);
        let _ = PlayerId::parse(&s);
    }

    #[test]
    fn query_like_strings_are_handled(
        s in "([a-z_]{1,9}=[A-Za-z0-9%+{}\":,._-]{0,30}&?){0,8}",
        now in any::<u64>(),
    ) {
        let _ = validate_init_data(&s, TOKEN, now, 86_400);
        let _ = validate_third_party(&s, 7342037359, now, 86_400, TelegramEnv::Test);
    }

    #[test]
    fn token_like_strings_are_handled(s in "v1(\\.[A-Za-z0-9_=-]{0,50}){0,6}", now in any::<u64>()) {
        let _ = key().verify(&s, now);
    }

    #[test]
    fn sessions_round_trip(
        user in 1u64..,
        guest in "[A-Za-z0-9_-]{3,64}",
        now in any::<u64>(),
        ttl in 1u64..,
    ) {
        for id in [PlayerId::telegram(user), guest_player_id(&guest).unwrap()] {
            let token = key().issue(&id, now, ttl);
            prop_assert!(token.len() <= tabula_auth::MAX_TOKEN_LEN);
            let session = key().verify(&token, now).unwrap();
            prop_assert_eq!(&session.player_id, &id);
            prop_assert_eq!(session.issued_at, now);
            prop_assert_eq!(session.expires_at, now.saturating_add(ttl));
            prop_assert_eq!(PlayerId::parse(id.as_str()).unwrap(), id);
        }
    }

    #[test]
    fn names_are_checked_or_cleaned_never_passed_through(
        first in "\\PC{0,80}|[\u{0}-\u{40}\u{200b}-\u{206f}a-z ]{0,80}",
        last in proptest::option::of("\\PC{0,20}|[\u{202a}-\u{202e}\n\t x]{0,20}"),
        any_text in ".{0,80}",
    ) {
        // A chosen name is refused, or trimmed and clean.
        for raw in [&first, &any_text] {
            if let Ok(n) = check_name(raw) {
                prop_assert_eq!(n.as_str(), raw.trim());
                prop_assert!((1..=NAME_MAX_CHARS).contains(&n.chars().count()));
                prop_assert!(!n.chars().any(is_forbidden));
            }
            let g = generated_name(raw);
            prop_assert_eq!(check_name(&g), Ok(g.clone()));
        }
        // A Telegram name is never refused, only cleaned.
        let user = serde_json::json!({"id": 1, "first_name": first, "last_name": last});
        let user: TelegramUser = serde_json::from_value(user).unwrap();
        let p = TelegramProfile::from_user(&user);
        if let Some(n) = p.name {
            prop_assert!(!n.is_empty() && n.chars().count() <= TELEGRAM_NAME_MAX_CHARS);
            prop_assert!(!n.chars().any(is_forbidden), "{:?}", n);
            prop_assert_eq!(n.trim(), n.as_str());
        }
    }
}
