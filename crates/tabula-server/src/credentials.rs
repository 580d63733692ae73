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
mod tests;
