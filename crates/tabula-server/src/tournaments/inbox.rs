//! Inputs posted to a tournament's inbox (by its rooms and the routes of
//! any node), which its owner applies.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use tabula_backplane::BackplaneError;
use tabula_protocol::{NodeMsg, ToOwner};
use tabula_tournament::Input;

use crate::time::now_ms;

/// The tournament of a game room, from its id (`{t}:{round}:{board}`,
/// `{t}:a:{n}`): what a room posts its results to.
pub fn of_game(room_id: &str) -> Option<&str> {
    room_id.split_once(':').map(|(t, _)| t)
}

/// An inbox entry: an input and when it was posted (ms).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Posted {
    /// The input for the core.
    pub input: Input,
    /// When it was posted (ms since the epoch).
    pub at_ms: u64,
}

/// Posts an input to a tournament's inbox under `key` now.
pub async fn post_now(
    bp: &dyn tabula_backplane::Backplane,
    tournament: &str,
    key: &str,
    input: Input,
) -> Result<bool, BackplaneError> {
    let entry = serde_json::to_string(&Posted {
        input,
        at_ms: now_ms(),
    })
    .map_err(|e| BackplaneError::Corrupt(e.to_string()))?;
    let posted = bp.post_tournament(tournament, key, entry).await?;
    if posted {
        wake(bp, tournament).await;
    }
    Ok(posted)
}

/// Tells a tournament's owner that its inbox holds something new
/// ([`ToOwner::TournamentMail`], through the node bus: to itself when
/// this node owns it), so that it is applied at once rather than at the
/// owner's next look ([`super::IDLE_POLL_MS`]). Best effort: a wake lost
/// (no owner yet, the owner moving, the bus failing) costs that wait.
async fn wake(bp: &dyn tabula_backplane::Backplane, tournament: &str) {
    let Ok(Some(lease)) = bp
        .owner(&tabula_backplane::tournament_key(tournament))
        .await
    else {
        return;
    };
    let msg = NodeMsg::ToOwner(ToOwner::TournamentMail {
        tournament: tournament.to_string(),
    });
    if let Ok(text) = msg.encode() {
        let _ = bp.send(&lease.node, text).await;
    }
}

/// Posts an input to a tournament's inbox under `key`, retried for a
/// while on a backplane fault (the room posts again when it is restored).
pub fn post(
    bp: Arc<dyn tabula_backplane::Backplane>,
    tournament: String,
    key: String,
    input: Input,
) {
    actix_rt::spawn(async move {
        let Ok(entry) = serde_json::to_string(&Posted {
            input,
            at_ms: now_ms(),
        }) else {
            return;
        };
        let mut wait = Duration::from_millis(50);
        for _ in 0..10 {
            match bp.post_tournament(&tournament, &key, entry.clone()).await {
                Ok(posted) => {
                    if posted {
                        wake(bp.as_ref(), &tournament).await;
                    }
                    return;
                }
                Err(e) => {
                    tracing::warn!(%tournament, %key, error = %e, "tournament input not posted; retrying");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
            }
        }
    });
}
