//! What becomes of one send to Telegram (a notice's, a group post's),
//! and the rule for a failed call: wait out a 429 on every node, retry a
//! passing fault with a growing delay, drop the rest.

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
