//! The node's wall clock: a room's `now`, a deadline, a posted entry's
//! age are all milliseconds since the epoch.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the epoch (the room's `now`).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
