//! The players who started the bot: his private chat, his language, the
//! notices he does not want, and whether he blocked the bot. Telegram lets
//! a bot write only to someone who started it, so a player who never did
//! gets nothing; one who blocked it (a 403) gets nothing more until he
//! starts it again (`/start` clears the mark).

use serde::{Deserialize, Serialize};
use tabula_backplane::{Backplane, BackplaneError};

use super::notice::NoticeKind;
use super::texts::Lang;

/// What the bot knows of a player (the backplane's opaque JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotUser {
    /// His private chat with the bot (his user id).
    pub chat: i64,
    /// His language.
    pub lang: Lang,
    /// The notices he turned off.
    #[serde(default)]
    pub off: Vec<NoticeKind>,
    /// He blocked the bot (a 403): nothing is sent until he starts it again.
    #[serde(default)]
    pub blocked: bool,
}

impl BotUser {
    /// Whether he wants notices of `kind`.
    pub fn wants(&self, kind: NoticeKind) -> bool {
        !self.off.contains(&kind)
    }

    /// Turns `kind` on or off.
    pub fn toggle(&mut self, kind: NoticeKind) {
        if let Some(i) = self.off.iter().position(|k| *k == kind) {
            self.off.remove(i);
        } else {
            self.off.push(kind);
        }
    }
}

/// `player`'s record; `None` when he never started the bot (or it does
/// not read, which is logged and treated the same).
pub async fn load(bp: &dyn Backplane, player: &str) -> Result<Option<BotUser>, BackplaneError> {
    let Some(raw) = bp.bot_user(player).await? else {
        return Ok(None);
    };
    match serde_json::from_str(&raw) {
        Ok(u) => Ok(Some(u)),
        Err(e) => {
            tracing::warn!(%player, error = %e, "unreadable bot user record");
            Ok(None)
        }
    }
}

/// Stores `player`'s record.
pub async fn save(bp: &dyn Backplane, player: &str, user: &BotUser) -> Result<(), BackplaneError> {
    let json = serde_json::to_string(user).map_err(|e| BackplaneError::Corrupt(e.to_string()))?;
    bp.set_bot_user(player, Some(json)).await
}
