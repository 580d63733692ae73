//! Who is connecting. [`Authenticator`] maps the credentials a client
//! presents to a player id: [`GuestAuth`] admits guests and chains in
//! [`TelegramAuth`] (`tabula-auth`: Telegram Mini App `initData` validated
//! with the bot token, and short-lived signed session tokens for
//! reconnects). [`from_settings`] builds the chain from `[auth]`.

use std::time::{SystemTime, UNIX_EPOCH};

use rand::Rng;
use tabula_auth::{SessionKey, TelegramProfile};
use tabula_room::PlayerId;

use crate::settings::{AuthSettings, Secret};

/// What a client presented (query string or headers).
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    /// Telegram Mini App `initData` (raw query string form).
    pub init_data: Option<String>,
    /// A session token issued earlier.
    pub token: Option<String>,
    /// What a client sent as `?guest=`: ignored. A guest's identity is
    /// minted by the node and held by its session token alone; a name a
    /// client chooses would let anyone who learns it take the seat.
    pub guest: Option<String>,
}

/// Why a client was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// Nothing acceptable was presented.
    #[error("authentication required")]
    Missing,
    /// Telegram or token authentication is not configured on this node.
    #[error("{0} authentication is not configured on this node")]
    NotConfigured(&'static str),
    /// The credentials were checked and refused.
    #[error("invalid credentials: {0}")]
    Invalid(String),
}

/// Who came in, and what his signed `initData` said about him.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    /// The player.
    pub player: PlayerId,
    /// His Telegram profile, cleaned, when he came in with `initData`
    /// (never from anything unsigned: a token carries none).
    pub telegram: Option<TelegramProfile>,
    /// His client's language from the same `initData` (a kept tag, see
    /// [`tabula_auth::language`]): private, for his own profile only, so it
    /// is not in the profile others see.
    pub language: Option<String>,
}

/// Maps credentials to a player id.
pub trait Authenticator: Send + Sync + std::fmt::Debug + 'static {
    /// The player presenting `c`.
    fn authenticate(&self, c: &Credentials) -> Result<PlayerId, AuthError>;

    /// [`Authenticator::authenticate`], with the Telegram profile of a
    /// player who came in with `initData` (none by default).
    fn login(&self, c: &Credentials) -> Result<Login, AuthError> {
        self.authenticate(c).map(|player| Login {
            player,
            telegram: None,
            language: None,
        })
    }

    /// A session token for `player` (sent in `welcome`), when this
    /// authenticator issues them.
    fn issue_token(&self, _player: &PlayerId) -> Option<String> {
        None
    }
}

/// Guest mode, and the place the Telegram authenticator is chained in.
#[derive(Debug)]
pub struct GuestAuth {
    /// Whether guests are admitted.
    pub guest: bool,
    /// The Telegram / session-token authenticator (`tabula-auth`), when
    /// configured; tried first when `init_data` or `token` is present, and
    /// asked for session tokens.
    pub telegram: Option<Box<dyn Authenticator>>,
}

/// A new guest: 128 random bits, so that an id seen by others (it is
/// public: seats, chat, spectators) cannot be guessed for another guest;
/// it is never a credential by itself — only its session token is.
fn mint_guest() -> PlayerId {
    let r: u128 = rand::rng().random();
    PlayerId::new(format!("guest:{r:032x}"))
}

impl Authenticator for GuestAuth {
    fn authenticate(&self, c: &Credentials) -> Result<PlayerId, AuthError> {
        self.login(c).map(|l| l.player)
    }

    fn login(&self, c: &Credentials) -> Result<Login, AuthError> {
        if c.init_data.is_some() || c.token.is_some() {
            let login = match &self.telegram {
                Some(t) => t.login(c)?,
                None => return Err(AuthError::NotConfigured("telegram")),
            };
            // A guest's token (from a node sharing the secret, or issued
            // before guest mode was turned off) is no way around the switch.
            if !self.guest && login.player.0.starts_with("guest:") {
                return Err(AuthError::Invalid(
                    "guest sessions are disabled on this node".into(),
                ));
            }
            return Ok(login);
        }
        if !self.guest {
            return Err(AuthError::Missing);
        }
        // Without a token a guest is a new player, whatever `?guest=`
        // says: coming back as the same one takes the token of `welcome`.
        Ok(Login {
            player: mint_guest(),
            telegram: None,
            language: None,
        })
    }

    fn issue_token(&self, player: &PlayerId) -> Option<String> {
        self.telegram.as_ref()?.issue_token(player)
    }
}

/// The current unix time, seconds.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Telegram `initData` (when a bot token is configured) and session tokens,
/// over `tabula-auth`.
#[derive(Debug)]
pub struct TelegramAuth {
    bot_token: Option<Secret>,
    third_party: Option<ThirdParty>,
    max_age: u64,
    key: SessionKey,
    ttl: u64,
    guest_ttl: u64,
}

/// Third-party `initData` validation: Telegram's Ed25519 signature for a
/// bot whose token this node does not hold.
#[derive(Debug, Clone, Copy)]
pub struct ThirdParty {
    /// The bot's numeric id (the part of its token before `:`).
    pub bot_id: u64,
    /// The Ed25519 public key that signs (Telegram's, per environment).
    pub public_key: [u8; 32],
}

impl TelegramAuth {
    /// `initData` checked with `bot_token` (refused as not configured when
    /// `None`) and at most `max_age` seconds old; tokens signed with `key`,
    /// valid for `ttl` seconds.
    pub fn new(bot_token: Option<Secret>, max_age: u64, key: SessionKey, ttl: u64) -> TelegramAuth {
        TelegramAuth {
            bot_token,
            third_party: None,
            max_age,
            key,
            ttl,
            guest_ttl: ttl,
        }
    }

    /// Guests' tokens valid for `ttl` seconds instead (a guest's token is
    /// its only credential, kept by the client for longer than a session).
    pub fn with_guest_ttl(mut self, ttl: u64) -> TelegramAuth {
        self.guest_ttl = ttl;
        self
    }

    /// Also accept `initData` by its Ed25519 `signature` (third-party
    /// validation) when no bot token is configured.
    pub fn with_third_party(mut self, third_party: ThirdParty) -> TelegramAuth {
        self.third_party = Some(third_party);
        self
    }

    /// [`Authenticator::authenticate`] at `now` (unix seconds).
    pub fn authenticate_at(&self, c: &Credentials, now: u64) -> Result<PlayerId, AuthError> {
        self.login_at(c, now).map(|l| l.player)
    }

    /// [`Authenticator::login`] at `now` (unix seconds): with `initData`,
    /// the Telegram profile its signed `user` gives.
    pub fn login_at(&self, c: &Credentials, now: u64) -> Result<Login, AuthError> {
        if let Some(init) = &c.init_data {
            // The bot token, when held, is the stronger check (the HMAC
            // covers every field, `signature` included); a node without it
            // verifies Telegram's Ed25519 signature instead.
            let data = match (&self.bot_token, &self.third_party) {
                (Some(bot), _) => {
                    tabula_auth::validate_init_data(init, bot.expose(), now, self.max_age)
                }
                (None, Some(tp)) => tabula_auth::validate_third_party_with_key(
                    init,
                    tp.bot_id,
                    &tp.public_key,
                    now,
                    self.max_age,
                ),
                (None, None) => return Err(AuthError::NotConfigured("telegram")),
            }
            .map_err(|e| AuthError::Invalid(format!("telegram initData: {e}")))?;
            return Ok(Login {
                telegram: Some(TelegramProfile::from_user(&data.user)),
                language: data
                    .user
                    .language_code
                    .as_deref()
                    .and_then(tabula_auth::language),
                player: PlayerId::new(data.player_id.into_string()),
            });
        }
        if let Some(token) = &c.token {
            let session = self
                .key
                .verify(token, now)
                .map_err(|e| AuthError::Invalid(format!("session token: {e}")))?;
            return Ok(Login {
                player: PlayerId::new(session.player_id.into_string()),
                telegram: None,
                language: None,
            });
        }
        Err(AuthError::Missing)
    }

    /// [`Authenticator::issue_token`] at `now`. `None` for an id
    /// `tabula-auth` does not accept.
    pub fn issue_token_at(&self, player: &PlayerId, now: u64) -> Option<String> {
        let id = tabula_auth::PlayerId::parse(&player.0).ok()?;
        let ttl = if player.0.starts_with("guest:") {
            self.guest_ttl
        } else {
            self.ttl
        };
        Some(self.key.issue(&id, now, ttl))
    }
}

impl Authenticator for TelegramAuth {
    fn authenticate(&self, c: &Credentials) -> Result<PlayerId, AuthError> {
        self.authenticate_at(c, unix_now())
    }

    fn login(&self, c: &Credentials) -> Result<Login, AuthError> {
        self.login_at(c, unix_now())
    }

    fn issue_token(&self, player: &PlayerId) -> Option<String> {
        self.issue_token_at(player, unix_now())
    }
}

/// The node's authenticator from `[auth]`: guests per
/// [`AuthSettings::guest_enabled`], Telegram when a bot token is set, session
/// tokens signed with `session_secret` — or, when that is unset, with a
/// random per-process secret (a warning is logged: tokens then do not
/// survive a restart and are not accepted by other nodes).
pub fn from_settings(a: &AuthSettings) -> GuestAuth {
    let key = match &a.session_secret {
        Some(s) => match SessionKey::new(s.expose().as_bytes()) {
            Ok(k) => Some(k),
            Err(e) => {
                // `Settings::validate` refuses this already.
                tracing::error!(error = %e, "auth.session_secret unusable; using a random one");
                None
            }
        },
        None => {
            tracing::warn!(
                "TABULA__AUTH__SESSION_SECRET is not set: session tokens are signed with a random \
                 per-process secret and will not survive a restart (or work on other nodes)"
            );
            None
        }
    };
    let key = key.unwrap_or_else(|| {
        let secret: [u8; 32] = rand::rng().random();
        SessionKey::new(&secret).expect("32 bytes is long enough")
    });
    if a.telegram_configured() && a.guest && !a.force_guest {
        tracing::info!(
            "Telegram authentication is configured: guest mode is off (auth.force_guest keeps it on)"
        );
    }
    let mut telegram = TelegramAuth::new(
        a.bot_token.clone(),
        a.init_data_max_age_secs,
        key,
        a.session_ttl_secs,
    )
    .with_guest_ttl(a.guest_session_ttl_secs);
    if a.telegram_bot_id != 0
        && let Some(public_key) = a.telegram_key()
    {
        telegram = telegram.with_third_party(ThirdParty {
            bot_id: a.telegram_bot_id,
            public_key,
        });
    }
    GuestAuth {
        guest: a.guest_enabled(),
        telegram: Some(Box::new(telegram)),
    }
}

#[cfg(test)]
mod tests {
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
}
