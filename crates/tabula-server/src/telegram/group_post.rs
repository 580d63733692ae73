//! A post the bot owes a Telegram group ([`super::groups`]): the group,
//! what the post says, its queue id, and its queueing, once, into the
//! notices' queue.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tabula_backplane::Backplane;
use tabula_room::GameKind;
use tabula_tournament::Format;

use super::Telegram;
use super::texts::Lang;
use crate::time::now_ms;

/// The queue ids of group posts begin with this.
pub const PREFIX: &str = "grp:";

/// The rows of an arena's top and of the final standings a post shows.
pub const TOP_ROWS: usize = 10;

/// A group chat a tournament belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// The chat's id.
    pub chat: i64,
    /// Its posts' language (the creator's).
    pub lang: Lang,
}

/// One post the bot owes a group (the queue's entry, as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupPost {
    /// The group.
    pub chat: i64,
    /// In its language.
    pub lang: Lang,
    /// The tournament.
    pub tournament: String,
    /// Its game.
    pub game: GameKind,
    /// When its cause happened (ms): it expires `telegram.notice_ttl_ms`
    /// after.
    pub caused_ms: u64,
    /// What it says.
    pub post: Post,
    /// Sends tried and failed for a passing fault.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What a group post says (player ids: their names are read when it is
/// sent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Post {
    /// The tournament is open: the Join button.
    #[serde(rename_all = "camelCase")]
    Announce {
        /// Its format.
        format: Format,
        /// Points a match.
        match_points: u32,
        /// When it starts (ms).
        start_at_ms: u64,
        /// Who created it (his Telegram name).
        creator: String,
    },
    /// An arena began.
    Started {
        /// Its players.
        players: u32,
    },
    /// A round's pairings.
    Round {
        /// Which.
        round: u32,
        /// White and black, by board.
        pairings: Vec<(String, String)>,
        /// Byes.
        byes: Vec<String>,
    },
    /// An arena's live top: `(player, points)`; its message is edited.
    Top {
        /// The rows, best first.
        rows: Vec<(String, u32)>,
    },
    /// The end: `(player, points)`, best first.
    Final {
        /// Its format (how points read).
        format: Format,
        /// The rows.
        rows: Vec<(String, u32)>,
    },
    /// Called off.
    Cancelled,
}

impl Post {
    /// The post's queue id in tournament `t` (`seq`: an arena top's
    /// number).
    pub fn id(&self, t: &str, seq: u32) -> String {
        match self {
            Post::Announce { .. } => format!("{PREFIX}{t}:announce"),
            Post::Started { .. } => format!("{PREFIX}{t}:started"),
            Post::Round { round, .. } => format!("{PREFIX}{t}:round:{round}"),
            Post::Top { .. } => format!("{PREFIX}{t}:top:{seq}"),
            Post::Final { .. } => format!("{PREFIX}{t}:final"),
            Post::Cancelled => format!("{PREFIX}{t}:cancelled"),
        }
    }

    /// Its name in metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Post::Announce { .. } => "announce",
            Post::Started { .. } => "started",
            Post::Round { .. } => "round",
            Post::Top { .. } => "top",
            Post::Final { .. } => "final",
            Post::Cancelled => "cancelled",
        }
    }
}

/// Queues a post under `id` (refused, `Ok(false)`, when it was queued
/// within `telegram.notice_ttl_ms`: an owner's outbox written again by
/// its successor).
pub async fn queue(bp: &dyn Backplane, tg: &Telegram, id: &str, p: &GroupPost) -> bool {
    let Ok(entry) = serde_json::to_string(p) else {
        return true;
    };
    let keep = Duration::from_millis(tg.settings.notice_ttl_ms.saturating_add(3_600_000));
    match bp.queue_notice(id, entry, now_ms(), keep).await {
        Ok(fresh) => {
            if fresh {
                tg.outbox
                    .metrics
                    .group_queued
                    .with_label_values(&[p.post.name()])
                    .inc();
                tg.outbox.bell.notify_one();
            }
            true
        }
        Err(e) => {
            tracing::warn!(%id, error = %e, "group post not queued yet");
            false
        }
    }
}
