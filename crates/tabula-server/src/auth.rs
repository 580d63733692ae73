//! Who is connecting. [`Authenticator`] is the seam where `tabula-auth`
//! (Telegram `initData` validation and signed session tokens) plugs in;
//! this module implements guest mode only.

use rand::Rng;
use tabula_room::PlayerId;

/// What a client presented (query string or headers).
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    /// Telegram Mini App `initData` (raw query string form).
    pub init_data: Option<String>,
    /// A session token issued earlier.
    pub token: Option<String>,
    /// A guest id (guest mode).
    pub guest: Option<String>,
}

/// Why a client was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// Nothing acceptable was presented.
    #[error("authentication required")]
    Missing,
    /// A guest id with characters other than `A-Za-z0-9_-` or too long.
    #[error("bad guest id (1..64 of A-Z a-z 0-9 _ -)")]
    BadGuestId,
    /// Telegram or token authentication is not configured on this node.
    #[error("{0} authentication is not configured on this node")]
    NotConfigured(&'static str),
    /// The credentials were checked and refused.
    #[error("invalid credentials: {0}")]
    Invalid(String),
}

/// Maps credentials to a player id.
pub trait Authenticator: Send + Sync + std::fmt::Debug + 'static {
    /// The player presenting `c`.
    fn authenticate(&self, c: &Credentials) -> Result<PlayerId, AuthError>;
}

/// Guest mode, and the place the Telegram authenticator will be chained in.
#[derive(Debug)]
pub struct GuestAuth {
    /// Whether guests are admitted.
    pub guest: bool,
    /// The Telegram / session-token authenticator (`tabula-auth`), when
    /// configured; tried first when `init_data` or `token` is present.
    pub telegram: Option<Box<dyn Authenticator>>,
}

fn valid_guest(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Authenticator for GuestAuth {
    fn authenticate(&self, c: &Credentials) -> Result<PlayerId, AuthError> {
        if c.init_data.is_some() || c.token.is_some() {
            return match &self.telegram {
                Some(t) => t.authenticate(c),
                None => Err(AuthError::NotConfigured("telegram")),
            };
        }
        if !self.guest {
            return Err(AuthError::Missing);
        }
        let id = match &c.guest {
            Some(g) if !g.is_empty() => {
                if !valid_guest(g) {
                    return Err(AuthError::BadGuestId);
                }
                g.clone()
            }
            _ => format!("{:016x}", rand::rng().random::<u64>()),
        };
        Ok(PlayerId::new(format!("guest:{id}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guests_get_prefixed_ids() {
        let a = GuestAuth {
            guest: true,
            telegram: None,
        };
        let c = Credentials {
            guest: Some("bob".into()),
            ..Credentials::default()
        };
        assert_eq!(a.authenticate(&c).unwrap().0, "guest:bob");
        assert!(
            a.authenticate(&Credentials::default())
                .unwrap()
                .0
                .starts_with("guest:")
        );
        let bad = Credentials {
            guest: Some("a b".into()),
            ..Credentials::default()
        };
        assert_eq!(a.authenticate(&bad), Err(AuthError::BadGuestId));
        let off = GuestAuth {
            guest: false,
            telegram: None,
        };
        assert_eq!(off.authenticate(&c), Err(AuthError::Missing));
    }
}
