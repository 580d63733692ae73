//! Short-lived signed session tokens for reconnects.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::{PlayerId, SessionKeyError, TokenError};

type HmacSha256 = Hmac<Sha256>;

/// The shortest secret [`SessionKey::new`] accepts, in bytes.
pub const MIN_SECRET_LEN: usize = 32;

/// The longest token [`SessionKey::verify`] reads; longer input is
/// [`TokenError::Malformed`] without being hashed.
pub const MAX_TOKEN_LEN: usize = 512;

const VERSION: &str = "v1";

/// A verified session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Session {
    /// Whose session it is.
    pub player_id: PlayerId,
    /// When the token was issued (unix seconds).
    pub issued_at: u64,
    /// The first second at which the token is no longer valid.
    pub expires_at: u64,
}

/// The server's HMAC-SHA256 key for session tokens.
///
/// A token is `v1.<player>.<issued_at>.<expires_at>.<mac>`, where `<player>`
/// is the player id in base64url without padding, the times are decimal unix
/// seconds, and `<mac>` is base64url (no padding) of
/// `HMAC_SHA256(secret, "v1.<player>.<issued_at>.<expires_at>")`. Every
/// character is URL-safe (`A-Z a-z 0-9 - _ .`), so a token can travel in a
/// query string or a header unescaped. Every node holding the same secret
/// accepts the others' tokens.
#[derive(Clone)]
pub struct SessionKey {
    mac: HmacSha256,
}

impl fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionKey(<redacted>)")
    }
}

impl SessionKey {
    /// A key from a secret of at least [`MIN_SECRET_LEN`] bytes (e.g. 32
    /// random bytes, or a long random string from the environment).
    pub fn new(secret: &[u8]) -> Result<SessionKey, SessionKeyError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(SessionKeyError::TooShort {
                min: MIN_SECRET_LEN,
                len: secret.len(),
            });
        }
        let mac =
            <HmacSha256 as KeyInit>::new_from_slice(secret).expect("HMAC takes keys of any length");
        Ok(SessionKey { mac })
    }

    /// A token for `player_id`, issued at `now`, valid for `ttl` seconds
    /// (until `now + ttl`, saturating).
    pub fn issue(&self, player_id: &PlayerId, now: u64, ttl: u64) -> String {
        let expires_at = now.saturating_add(ttl);
        let player = URL_SAFE_NO_PAD.encode(player_id.as_str());
        let signed = format!("{VERSION}.{player}.{now}.{expires_at}");
        let mac = URL_SAFE_NO_PAD.encode(self.sign(&signed));
        format!("{signed}.{mac}")
    }

    /// Checks a token's shape, then its MAC in constant time, then its
    /// expiry (`now < expires_at`).
    pub fn verify(&self, token: &str, now: u64) -> Result<Session, TokenError> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(TokenError::Malformed);
        }
        let (signed, mac) = token.rsplit_once('.').ok_or(TokenError::Malformed)?;
        let mut parts = signed.split('.');
        let (Some(version), Some(player), Some(issued_at), Some(expires_at), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(TokenError::Malformed);
        };
        if version != VERSION {
            return Err(TokenError::UnsupportedVersion);
        }
        let mac = URL_SAFE_NO_PAD
            .decode(mac)
            .map_err(|_| TokenError::Malformed)?;
        let mut check = self.mac.clone();
        check.update(signed.as_bytes());
        check
            .verify_slice(&mac)
            .map_err(|_| TokenError::BadSignature)?;
        // Authentic from here on; a failure below means the key signed
        // something this code would not have issued.
        let player = URL_SAFE_NO_PAD
            .decode(player)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|s| PlayerId::parse(&s).ok())
            .ok_or(TokenError::Malformed)?;
        let issued_at = parse_time(issued_at)?;
        let expires_at = parse_time(expires_at)?;
        if now >= expires_at {
            return Err(TokenError::Expired { expires_at, now });
        }
        Ok(Session {
            player_id: player,
            issued_at,
            expires_at,
        })
    }

    fn sign(&self, message: &str) -> Vec<u8> {
        let mut mac = self.mac.clone();
        mac.update(message.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }
}

fn parse_time(s: &str) -> Result<u64, TokenError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TokenError::Malformed);
    }
    s.parse().map_err(|_| TokenError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guest_player_id;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn key() -> SessionKey {
        SessionKey::new(SECRET).unwrap()
    }

    #[test]
    fn round_trip() {
        let id = PlayerId::telegram(279058397);
        let token = key().issue(&id, 1_000, 600);
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "{token}"
        );
        let s = key().verify(&token, 1_000).unwrap();
        assert_eq!(s.player_id, id);
        assert_eq!(s.issued_at, 1_000);
        assert_eq!(s.expires_at, 1_600);
        assert_eq!(key().verify(&token, 1_599).unwrap().player_id, id);
        // Another node with the same secret accepts it.
        assert!(
            SessionKey::new(SECRET)
                .unwrap()
                .verify(&token, 1_001)
                .is_ok()
        );
    }

    #[test]
    fn known_token_is_stable() {
        // HMAC computed independently:
        // python3 -c 'import hmac,hashlib,base64;m="v1.dGc6Mjc5MDU4Mzk3.1000.1600";print(m+"."+base64.urlsafe_b64encode(hmac.new(b"0123456789abcdef0123456789abcdef",m.encode(),hashlib.sha256).digest()).decode().rstrip("="))'
        let token = key().issue(&PlayerId::telegram(279058397), 1_000, 600);
        assert_eq!(token, KNOWN_TOKEN);
    }

    const KNOWN_TOKEN: &str =
        "v1.dGc6Mjc5MDU4Mzk3.1000.1600.XbG7QfgRFAQUGI7jyime2kTv4lk7Sx_6FGXZh7cSXtQ";

    #[test]
    fn expiry() {
        let id = guest_player_id("bob").unwrap();
        let token = key().issue(&id, 1_000, 600);
        assert_eq!(
            key().verify(&token, 1_600),
            Err(TokenError::Expired {
                expires_at: 1_600,
                now: 1_600
            })
        );
        let zero = key().issue(&id, 1_000, 0);
        assert!(matches!(
            key().verify(&zero, 1_000),
            Err(TokenError::Expired { .. })
        ));
        let forever = key().issue(&id, 1_000, u64::MAX);
        assert_eq!(
            key().verify(&forever, u64::MAX - 1).unwrap().expires_at,
            u64::MAX
        );
    }

    #[test]
    fn bad_signature() {
        let id = PlayerId::telegram(42);
        let token = key().issue(&id, 1_000, 600);
        let other = SessionKey::new(b"another secret, also 32 bytes long").unwrap();
        assert_eq!(other.verify(&token, 1_001), Err(TokenError::BadSignature));

        // Extending the lifetime breaks the MAC.
        let forged = token.replacen(".1600.", ".9999.", 1);
        assert_eq!(key().verify(&forged, 1_001), Err(TokenError::BadSignature));

        // Swapping the player breaks the MAC.
        let mallory = URL_SAFE_NO_PAD.encode("tg:43");
        let alice = URL_SAFE_NO_PAD.encode("tg:42");
        let swapped = token.replacen(&alice, &mallory, 1);
        assert_ne!(swapped, token);
        assert_eq!(key().verify(&swapped, 1_001), Err(TokenError::BadSignature));

        // A MAC of the wrong length, or flipped.
        let (signed, mac) = token.rsplit_once('.').unwrap();
        let short = format!("{signed}.{}", &mac[..mac.len() - 2]);
        assert!(key().verify(&short, 1_001).is_err());
        let mut bytes = URL_SAFE_NO_PAD.decode(mac).unwrap();
        bytes[0] ^= 1;
        let flipped = format!("{signed}.{}", URL_SAFE_NO_PAD.encode(bytes));
        assert_eq!(key().verify(&flipped, 1_001), Err(TokenError::BadSignature));
    }

    #[test]
    fn malformed() {
        let token = key().issue(&PlayerId::telegram(42), 1_000, 600);
        for bad in [
            "",
            ".",
            "v1",
            "v1.a.b.c",
            "v1.a.1.2.3.4",
            "v1.dGc6NDI.1000.1600.!!!",
            "v1.dGc6NDI.1000.1600.",
            &"v1.".repeat(200),
            &format!("{token}.extra"),
        ] {
            assert!(
                matches!(
                    key().verify(bad, 1_001),
                    Err(TokenError::Malformed | TokenError::BadSignature)
                ),
                "{bad:?}"
            );
        }
        assert_eq!(key().verify("", 0), Err(TokenError::Malformed));
        assert_eq!(key().verify("v1.a.b.c", 0), Err(TokenError::Malformed));
        assert_eq!(
            key().verify(&format!("{token}.extra"), 0),
            Err(TokenError::Malformed)
        );
        assert_eq!(
            key().verify(&"x".repeat(MAX_TOKEN_LEN + 1), 0),
            Err(TokenError::Malformed)
        );
        assert_eq!(
            key().verify(&token.replacen("v1.", "v2.", 1), 1_001),
            Err(TokenError::UnsupportedVersion)
        );
    }

    #[test]
    fn authentic_but_unreadable_fields_are_malformed() {
        // Sign contents `issue` would never produce, with the real key.
        let k = key();
        let sign = |signed: &str| format!("{signed}.{}", URL_SAFE_NO_PAD.encode(k.sign(signed)));
        let admin = URL_SAFE_NO_PAD.encode("admin");
        let good = URL_SAFE_NO_PAD.encode("tg:1");
        for signed in [
            format!("v1.{admin}.1.2"),
            format!("v1.{good}.x.2"),
            format!("v1.{good}.1.+2"),
            format!("v1.{good}.1.99999999999999999999"),
            "v1.***.1.2".to_owned(),
        ] {
            assert_eq!(
                k.verify(&sign(&signed), 0),
                Err(TokenError::Malformed),
                "{signed}"
            );
        }
    }

    #[test]
    fn weak_secrets_are_refused() {
        assert_eq!(
            SessionKey::new(b"short").unwrap_err(),
            SessionKeyError::TooShort { min: 32, len: 5 }
        );
        assert!(SessionKey::new(&[0u8; 31]).is_err());
        assert!(SessionKey::new(&[0u8; 32]).is_ok());
        assert_eq!(format!("{:?}", key()), "SessionKey(<redacted>)");
    }
}
