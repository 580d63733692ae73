//! The hint budget ([`super::hints`]): the hint each player waits for,
//! and a token bucket per player refilled at
//! [`HostConfig::hint_rollouts_per_minute`](super::HostConfig::hint_rollouts_per_minute).

use tabula_room::{PlayerId, hint_cost};

use super::fast_map::FastMap;

const MS_PER_MINUTE: u64 = 60_000;

/// The host's hint bookkeeping.
#[derive(Debug, Default)]
pub(super) struct Hints {
    /// The hint each player waits for: its connection and seq.
    pub(super) asked: FastMap<PlayerId, (u64, Option<u64>)>,
    /// Each player's budget.
    budget: FastMap<PlayerId, Budget>,
}

/// A token bucket in rollout-milliseconds per minute (integers: a token
/// is `1 / MS_PER_MINUTE` of a rollout).
#[derive(Debug, Clone, Copy)]
struct Budget {
    tokens: u64,
    at: u64,
}

impl Hints {
    /// Takes `cost` rollouts from `player`'s budget at `now`, or says in
    /// how many ms it will hold them.
    pub(super) fn take(
        &mut self,
        player: &PlayerId,
        cost: u32,
        now: u64,
        per_minute: u32,
    ) -> Result<(), u64> {
        let per_min = u64::from(per_minute);
        if per_min == 0 {
            return Ok(());
        }
        let cap = per_min.max(u64::from(hint_cost(tabula_room::MAX_HINT_ROLLOUTS))) * MS_PER_MINUTE;
        let b = self.budget.entry(player.clone()).or_insert(Budget {
            tokens: cap,
            at: now,
        });
        let refill = now.saturating_sub(b.at).saturating_mul(per_min);
        b.tokens = b.tokens.saturating_add(refill).min(cap);
        b.at = now;
        let need = u64::from(cost) * MS_PER_MINUTE;
        if b.tokens >= need {
            b.tokens -= need;
            Ok(())
        } else {
            Err((need - b.tokens).div_ceil(per_min))
        }
    }
}
