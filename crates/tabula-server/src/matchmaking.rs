//! Quick match by rating (issue 24), the pure part: the window the node
//! passes to the backplane's [`Lobby`](tabula_backplane::Lobby), and a
//! player's rating as his ticket carries it.
//!
//! Two players of the same key (game, options, clocks) meet when their
//! ratings are at most [`START_POINTS`] apart, plus [`POINTS_PER_SEC`] for
//! each second the longer waiter of the two has waited; from three
//! quarters of `matchmaking.bot_after_ms` on, any rating (so nobody meets
//! the computer while a person of any rating waits). Among those in the
//! window the closest rating is taken, the oldest ticket of those as
//! close ([`tabula_backplane::pick_partner`]). A waiter tries again every
//! [`RETRY_MS`] while he waits, so two waiters whose window has widened
//! meet without a third player coming.

use tabula_backplane::{NEW_PLAYER_RATING, Window};

/// The rating gap admitted at once, points.
pub const START_POINTS: u32 = 100;

/// Points the window widens per second of waiting.
pub const POINTS_PER_SEC: u32 = 50;

/// How often a waiting player tries again to match, ms.
pub const RETRY_MS: u64 = 200;

/// How long the node waits for the durable store's rating before it
/// treats the player as new, ms (a slow store never holds up a match).
pub const RATING_WAIT_MS: u64 = 500;

/// The window for a node whose bot comes after `bot_after_ms`: any rating
/// from three quarters of that wait on.
pub fn window(bot_after_ms: u64) -> Window {
    Window {
        start: START_POINTS,
        per_sec: POINTS_PER_SEC,
        open_after_ms: bot_after_ms / 4 * 3 + bot_after_ms % 4 * 3 / 4,
    }
}

/// A ticket's rating from the store's (`None`: no rating, or no store):
/// rounded; a new player's [`NEW_PLAYER_RATING`] when there is none or it
/// is not a number; held to ±100 000 (ratings are a few thousand at most).
pub fn ticket_rating(stored: Option<f64>) -> i32 {
    match stored {
        Some(r) if r.is_finite() => r.round().clamp(-100_000.0, 100_000.0) as i32,
        _ => NEW_PLAYER_RATING,
    }
}

#[cfg(test)]
mod tests {
    use tabula_backplane::{Ticket, compatible};

    use super::*;

    #[test]
    fn the_window_opens_at_three_quarters_of_the_bot_wait() {
        assert_eq!(window(20_000).open_after_ms, 15_000);
        assert_eq!(window(300).open_after_ms, 225);
        assert_eq!(window(7).open_after_ms, 5);
        assert_eq!(window(0).open_after_ms, 0);
        assert_eq!(window(u64::MAX).open_after_ms, u64::MAX / 4 * 3 + 2);
    }

    #[test]
    fn who_meets_whom_with_the_default_bot_wait() {
        let w = window(20_000);
        let at = |side: &str, rating, since_ms| Ticket {
            id: 0,
            player: side.to_string(),
            rating,
            since_ms,
        };
        // (a's rating, a's since, b's rating, b's since, now) → meet.
        let table: &[(i32, u64, i32, u64, u64, bool)] = &[
            (1500, 0, 1500, 0, 0, true),
            (1450, 0, 1550, 0, 0, true),
            (1450, 0, 1551, 0, 0, false),
            // 1 s: 150; 10 s: 600.
            (1500, 0, 1650, 1_000, 1_000, true),
            (1500, 0, 1651, 1_000, 1_000, false),
            (1200, 0, 1800, 9_000, 10_000, true),
            (1200, 5_000, 1800, 9_000, 10_000, false),
            // 14.99 s: 849.5; 15 s: anyone.
            (1000, 0, 1849, 0, 14_990, true),
            (1000, 0, 1850, 0, 14_990, false),
            (800, 0, 2600, 0, 15_000, true),
        ];
        for &(ra, sa, rb, sb, now, meet) in table {
            assert_eq!(
                compatible(&w, &at("a", ra, sa), &at("b", rb, sb), now),
                meet,
                "{ra}@{sa} vs {rb}@{sb} at {now}"
            );
        }
    }

    #[test]
    fn a_ticket_carries_the_rounded_rating_or_a_new_players() {
        assert_eq!(ticket_rating(None), 1500);
        assert_eq!(ticket_rating(Some(1723.5)), 1724);
        assert_eq!(ticket_rating(Some(1723.49)), 1723);
        assert_eq!(ticket_rating(Some(f64::NAN)), 1500);
        assert_eq!(ticket_rating(Some(f64::INFINITY)), 1500);
        assert_eq!(ticket_rating(Some(-3.0e9)), -100_000);
    }
}
