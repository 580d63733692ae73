//! What becomes of one send to Telegram (a notice's, a group post's),
//! and the rule for a failed call: wait out a 429 on every node, retry a
//! passing fault with a growing delay, drop the rest; and the bot's sends
//! of a slot of the second, claimed across nodes and spent within it.

use tabula_backplane::Backplane;

use super::api::Refusal;
use crate::time::now_ms;

/// A notice put back after a passing fault is given up after this many
/// tries.
pub const MAX_ATTEMPTS: u32 = 8;

/// What became of one notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Sent.
    Sent,
    /// Not sent, for this reason (a metric label).
    Dropped(&'static str),
    /// Put back, due again at this time (ms), for this reason.
    Later(u64, &'static str),
}

/// A failed call to retry (a notice's, or a group post's: `attempts` is
/// its count of passing faults): a 429 stops every node's sends for its
/// `retry_after` and puts it back after that; a passing fault puts it back
/// with a growing delay, [`MAX_ATTEMPTS`] times; anything else drops it.
pub async fn later(bp: &dyn Backplane, attempts: &mut u32, refusal: Refusal) -> Fate {
    match refusal {
        Refusal::RetryAfter(secs) => {
            let until = now_ms() + secs * 1000;
            if let Err(e) = bp.pause_sends(until).await {
                tracing::warn!(error = %e, "the 429 pause could not be shared");
            }
            Fate::Later(until, "rate_limited")
        }
        Refusal::Transient => {
            *attempts += 1;
            if *attempts >= MAX_ATTEMPTS {
                Fate::Dropped("gave_up")
            } else {
                Fate::Later(now_ms() + (1000u64 << (*attempts).min(8)), "unavailable")
            }
        }
        Refusal::Blocked | Refusal::Permanent => Fate::Dropped("bad_request"),
    }
}

/// Claims one of the bot's sends of the current slot
/// ([`tabula_backplane::send_slot`]), across nodes: the time that slot
/// ends, or the notice's fate when the slot's sends are spent.
pub async fn claim_bot_send(bp: &dyn Backplane, per_sec: u32) -> Result<u64, Fate> {
    let now = now_ms();
    match bp.claim_send(now, per_sec).await {
        Ok(true) => Ok(next_slot(now, per_sec)),
        Ok(false) => Err(Fate::Later(next_slot(now, per_sec), "bot_busy")),
        Err(_) => Err(Fate::Later(now + 1000, "unavailable")),
    }
}

/// A send leaves within the slot it was counted in, or not at all: one
/// whose slot has ended by the time it would leave (the claims after it
/// took long, or the node was busy) waits until `retry_at` instead, so
/// that a second never receives its own sends and a stalled batch of the
/// one before.
pub fn late(slot_end: u64, retry_at: u64) -> Option<Fate> {
    let now = now_ms();
    (now >= slot_end).then_some(Fate::Later(retry_at.max(now), "late"))
}

/// When the next slot of sends begins ([`tabula_backplane::send_slot`]).
pub fn next_slot(now: u64, per_sec: u32) -> u64 {
    let (slot_ms, _) = tabula_backplane::send_slot(per_sec);
    (now / slot_ms + 1) * slot_ms
}
