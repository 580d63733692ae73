//! What a stake may be: it reaches the other player (in `state` and in
//! `gameOver`'s message, `WIN 200 TON.`), so its currency is a short code
//! of capital letters and its amount is bounded, and the payout is
//! computed with checked arithmetic.

use crate::game::MAX_CUBE;
use crate::types::Stake;

/// The largest stake per point. A game scores at most
/// [`MAX_BASE_POINTS`] × [`MAX_CUBE`] points and a match is at most
/// [`MAX_MATCH_POINTS`] long, so even a whole match's payout at this
/// stake (10^11 × 3 × 64 × 64 ≈ 1.2 × 10^15) stays below 2^53: exact in
/// a `u64` and in a JavaScript number.
pub const MAX_STAKE_AMOUNT: u64 = 100_000_000_000;

/// The most points a game scores before the cube (a koks, a backgammon).
pub const MAX_BASE_POINTS: u64 = 3;

/// The longest match a room is created with (`matchLength` 1..=64).
pub const MAX_MATCH_POINTS: u64 = 64;

const _: () = assert!(
    MAX_STAKE_AMOUNT * MAX_BASE_POINTS * MAX_CUBE as u64 * MAX_MATCH_POINTS < 1 << 53,
    "a match's payout at the largest stake must stay an exact integer"
);

/// Currency codes are 2 to 8 capital letters A–Z (`TON`, `USDT`, `STARS`).
pub const CURRENCY_LEN: std::ops::RangeInclusive<usize> = 2..=8;

/// Why a stake is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StakeError {
    /// The currency is not 2 to 8 capital letters.
    #[error("stake.currency must be 2 to 8 capital letters A-Z (e.g. TON)")]
    Currency,
    /// The amount is 0 or over [`MAX_STAKE_AMOUNT`].
    #[error("stake.amount must be 1..={MAX_STAKE_AMOUNT}")]
    Amount,
}

impl Stake {
    /// Whether this stake may be a room's: currency `[A-Z]{2,8}`, amount
    /// 1..=[`MAX_STAKE_AMOUNT`].
    pub fn check(&self) -> Result<(), StakeError> {
        let c = self.currency.as_bytes();
        if !CURRENCY_LEN.contains(&c.len()) || !c.iter().all(u8::is_ascii_uppercase) {
            return Err(StakeError::Currency);
        }
        if !(1..=MAX_STAKE_AMOUNT).contains(&self.amount) {
            return Err(StakeError::Amount);
        }
        Ok(())
    }

    /// The amount won or lost for `points` (`None` if it would overflow,
    /// which a checked stake cannot).
    pub fn payout(&self, points: u32) -> Option<u64> {
        self.amount.checked_mul(u64::from(points))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stake(amount: u64, currency: &str) -> Stake {
        Stake {
            amount,
            currency: currency.into(),
        }
    }

    #[test]
    fn a_stake_is_a_short_capital_code_and_a_bounded_amount() {
        for ok in ["TON", "US", "USDT", "STARSXTR"] {
            assert_eq!(stake(100, ok).check(), Ok(()), "{ok}");
        }
        let long = "X".repeat(10_000);
        for bad in [
            "",
            "T",
            "TONTONTON",
            "ton",
            "Ton",
            "T0N",
            "TO N",
            "<img src=x onerror=alert(1)>",
            "ТОН",
            "TON\n",
            long.as_str(),
        ] {
            assert_eq!(
                stake(100, bad).check(),
                Err(StakeError::Currency),
                "{bad:?}"
            );
        }
        assert_eq!(stake(1, "TON").check(), Ok(()));
        assert_eq!(stake(MAX_STAKE_AMOUNT, "TON").check(), Ok(()));
        for bad in [0, MAX_STAKE_AMOUNT + 1, 1 << 63, u64::MAX] {
            assert_eq!(stake(bad, "TON").check(), Err(StakeError::Amount), "{bad}");
        }
    }

    #[test]
    fn the_payout_is_checked_and_exact_at_the_largest_stake() {
        let max_game = (MAX_BASE_POINTS * u64::from(MAX_CUBE)) as u32;
        assert_eq!(
            stake(MAX_STAKE_AMOUNT, "TON").payout(max_game),
            Some(MAX_STAKE_AMOUNT * 192)
        );
        assert_eq!(stake(100, "TON").payout(2), Some(200));
        // What the node did before: 2^63 × 2 wrapped to 0.
        assert_eq!(stake(1 << 63, "TON").payout(2), None);
    }
}
