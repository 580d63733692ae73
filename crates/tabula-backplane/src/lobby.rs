//! The lobby: quick match, behind [`Lobby`].
//!
//! Players wait in one queue per match key (game, options, clocks). Two
//! tickets of different players are *compatible* when their ratings are
//! close enough for the longer of their two waits ([`Window::admits`],
//! [`compatible`]): the window starts narrow and widens with waiting, up
//! to any rating. Among the compatible tickets a matcher takes the one
//! whose rating is **closest** to its own, the oldest of those at the same
//! distance ([`pick_partner`]). A newcomer matches against the queue
//! ([`Lobby::match_or_wait`]); a waiter whose window has widened since
//! tries again ([`Lobby::rematch`]), so two compatible waiters do not wait
//! for a third player. Both tests run atomically with the queue's update
//! (under the lock in memory, inside one script on Redis), so no ticket is
//! taken twice. The caller passes the time (`now_ms`, ms since the epoch,
//! its wall clock) and the window, so the tests are pure functions of
//! what is stored and what is passed.
//!
//! The lobby's showcase is here too: the games being played now and the
//! open challenges ([`Shelf`]), each a bounded list of entries ranked by
//! a score, that every node reads the same ([`Lobby::shown`]). The node
//! that owns a room lists it with an expiry ([`Lobby::show`]) and renews
//! it while it holds the room, so the entry of a room whose node died
//! leaves by itself, and the node that takes the room over lists it
//! again. Beside them, each node's count of open sockets with the same
//! kind of expiry ([`Lobby::count_online`], summed by [`Lobby::online`]).
//!
//! Invite codes are not here: they are part of the room directory, which
//! the [`RoomStore`](crate::RoomStore) keeps (see [its module](crate::store)).

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use crate::Result;

/// The rating of a player who has none: a new player's (Glicko-2's 1500).
pub const NEW_PLAYER_RATING: i32 = 1500;

fn new_player_rating() -> i32 {
    NEW_PLAYER_RATING
}

/// A player waiting for a quick match.
///
/// `id` stays the first field: the Redis queue finds a ticket by the
/// prefix of its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// Unique ticket id.
    pub id: u64,
    /// The waiting player.
    pub player: String,
    /// His rating in the game, rounded ([`NEW_PLAYER_RATING`] without one;
    /// a ticket queued before ratings reads so).
    #[serde(default = "new_player_rating")]
    pub rating: i32,
    /// When he started waiting, ms since the epoch (a ticket queued before
    /// ratings reads 0: it has waited long enough for anyone).
    #[serde(default)]
    pub since_ms: u64,
}

/// How far apart two players' ratings may be as they wait: `start` points
/// at once, `per_sec` more per second of waiting, any rating from
/// `open_after_ms` of waiting on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The largest gap at once, rating points.
    pub start: u32,
    /// Points added per second of waiting.
    pub per_sec: u32,
    /// After this wait (ms) any gap is admitted.
    pub open_after_ms: u64,
}

impl Window {
    /// Any rating at once: the first player of another name.
    pub const ANY: Window = Window {
        start: 0,
        per_sec: 0,
        open_after_ms: 0,
    };

    /// Whether two ratings `gap` points apart may meet after `waited_ms`
    /// (`gap ≤ start + per_sec · waited_ms / 1000`, exactly, or the wait
    /// reached `open_after_ms`).
    pub fn admits(&self, gap: u32, waited_ms: u64) -> bool {
        waited_ms >= self.open_after_ms
            || u64::from(gap).saturating_mul(1000)
                <= u64::from(self.start)
                    .saturating_mul(1000)
                    .saturating_add(u64::from(self.per_sec).saturating_mul(waited_ms))
    }
}

/// Whether tickets `a` and `b` may be paired at `now_ms`: different
/// players whose rating gap the window admits at the longer of their two
/// waits (a waiter who has widened his window meets a newcomer too).
pub fn compatible(window: &Window, a: &Ticket, b: &Ticket, now_ms: u64) -> bool {
    let waited = now_ms.saturating_sub(a.since_ms.min(b.since_ms));
    a.player != b.player && window.admits(a.rating.abs_diff(b.rating), waited)
}

/// The ticket of `waiting` (oldest first) that `me` should be paired with
/// at `now_ms`: the compatible one whose rating is closest to his, the
/// oldest of those at the same distance; `None` when none is compatible.
/// `me`'s own ticket, if it is in `waiting`, is never chosen (same player).
pub fn pick_partner(
    window: &Window,
    me: &Ticket,
    waiting: &[Ticket],
    now_ms: u64,
) -> Option<usize> {
    let mut best: Option<(usize, u32)> = None;
    for (i, t) in waiting.iter().enumerate() {
        if !compatible(window, me, t, now_ms) {
            continue;
        }
        let gap = me.rating.abs_diff(t.rating);
        if best.is_none_or(|(_, g)| gap < g) {
            best = Some((i, gap));
        }
    }
    best.map(|(i, _)| i)
}

/// What [`Lobby::rematch`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rematch {
    /// Still queued: nobody compatible yet.
    Waiting,
    /// Taken off the queue together with this partner's ticket: the caller
    /// makes the room and delivers it to the partner.
    Matched(Ticket),
    /// The ticket is not queued any more: a partner took it and is
    /// delivering a room to it (poll for it).
    Taken,
}

/// The most entries one [`Lobby::show`] call may carry (a node lists more
/// in several calls) and one [`Lobby::shown`] answers.
pub const MAX_SHOWN: usize = 100;

/// Which list of the lobby's showcase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shelf {
    /// Games between people being played now.
    Live,
    /// Rooms with one player seated, waiting for anyone.
    Open,
}

impl Shelf {
    /// The shelf's name (in keys).
    pub fn name(self) -> &'static str {
        match self {
            Shelf::Live => "live",
            Shelf::Open => "open",
        }
    }
}

/// One room on a shelf: its id, its rank (higher first) and what the
/// lobby shows of it (the node's JSON, opaque here).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The room.
    pub room: String,
    /// Higher first; ties in no promised order.
    pub score: f64,
    /// What is shown (the node's JSON).
    pub json: String,
}

/// Quick match: queues of waiting tickets per match key, and the rooms
/// delivered to taken tickets; the lobby's showcase and online count.
pub trait Lobby: Send + Sync + std::fmt::Debug + 'static {
    /// Quick match: atomically takes the waiting ticket under `key` that
    /// [`pick_partner`] chooses for `ticket` at `now_ms` within `window`,
    /// or (none compatible) queues `ticket` last and returns `None`.
    fn match_or_wait(
        &self,
        key: &str,
        ticket: Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<Ticket>>>;

    /// A waiter's new try: if `ticket` is still queued under `key` and
    /// [`pick_partner`] finds it a partner at `now_ms`, atomically takes
    /// both off the queue ([`Rematch::Matched`]); else leaves the queue as
    /// it is.
    fn rematch(
        &self,
        key: &str,
        ticket: &Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Rematch>>;

    /// Removes a queued ticket; `false` if it was already taken (a partner
    /// is delivering a room to it).
    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>>;

    /// Delivers the matched room (opaque JSON) to a taken ticket.
    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>>;

    /// The room delivered to a ticket, if any yet (taken once).
    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>>;

    /// Lists (or renews) `items` on `shelf` for this node until `until_ms`
    /// (ms since the epoch): an entry of the same room replaces the
    /// stored one, whichever node wrote it. At most [`MAX_SHOWN`] items a
    /// call (more: the first [`MAX_SHOWN`]). Entries of any node expired
    /// at `now_ms` are dropped on the way, a bounded number per call.
    fn show(
        &self,
        shelf: Shelf,
        items: Vec<Shown>,
        until_ms: u64,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<()>>;

    /// Takes `rooms` off `shelf`, each only if this node listed it last
    /// (a room another node has taken over since stays).
    fn unshow(&self, shelf: Shelf, rooms: Vec<String>) -> BoxFuture<'_, Result<()>>;

    /// The JSON of the highest `limit` (at most [`MAX_SHOWN`]) entries of
    /// `shelf` not expired at `now_ms`, highest score first.
    fn shown(&self, shelf: Shelf, limit: usize, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>>>;

    /// Records this node's count of open sockets until `until_ms`.
    fn count_online(&self, count: u64, until_ms: u64) -> BoxFuture<'_, Result<()>>;

    /// The sum of the nodes' counts not expired at `now_ms`.
    fn online(&self, now_ms: u64) -> BoxFuture<'_, Result<u64>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Window = Window {
        start: 100,
        per_sec: 50,
        open_after_ms: 15_000,
    };

    fn t(id: u64, player: &str, rating: i32, since_ms: u64) -> Ticket {
        Ticket {
            id,
            player: player.into(),
            rating,
            since_ms,
        }
    }

    #[test]
    fn the_window_widens_with_the_longer_wait_and_opens_at_the_end() {
        // (rating a, since a, rating b, since b, now) → compatible.
        let table: &[(i32, u64, i32, u64, u64, bool)] = &[
            // At once: 100 points either side, inclusive.
            (1500, 0, 1500, 0, 0, true),
            (1500, 0, 1600, 0, 0, true),
            (1500, 0, 1601, 0, 0, false),
            (1601, 0, 1500, 0, 0, false),
            (-50, 0, 50, 0, 0, true),
            // 50 points a second, counted in ms: 2 s → 200.
            (1200, 0, 1400, 0, 2_000, true),
            (1200, 0, 1401, 0, 2_000, false),
            (1200, 0, 1401, 0, 2_020, true),
            // The longer wait counts, whichever side has it.
            (1200, 0, 1400, 1_999, 2_000, true),
            (1200, 1_999, 1400, 0, 2_000, true),
            (1200, 1_000, 1400, 1_999, 2_000, false),
            // Just before the end 849 points; from 15 s any gap.
            (1000, 0, 1849, 0, 14_980, true),
            (1000, 0, 1850, 0, 14_980, false),
            (1000, 0, 3000, 0, 15_000, true),
            // A `since` in the future (another node's clock ahead) has
            // waited nothing.
            (1500, 9_000, 1700, 9_000, 5_000, false),
            // A ticket from before ratings (since 0) has waited for ages.
            (1500, 0, 2900, 1_700_000_000_000, 1_700_000_000_000, true),
        ];
        for &(ra, sa, rb, sb, now, want) in table {
            let (a, b) = (t(1, "a", ra, sa), t(2, "b", rb, sb));
            assert_eq!(
                compatible(&W, &a, &b, now),
                want,
                "{ra}@{sa} vs {rb}@{sb} at {now}"
            );
        }
        // Never the same player, whatever the window.
        assert!(!compatible(
            &Window::ANY,
            &t(1, "a", 1, 0),
            &t(2, "a", 1, 0),
            0
        ));
        assert!(compatible(
            &Window::ANY,
            &t(1, "a", 0, 9),
            &t(2, "b", 9_000, 9),
            0
        ));
        // No overflow at the extremes.
        assert!(!W.admits(u32::MAX, 14_999));
        let wide = Window {
            start: u32::MAX,
            per_sec: u32::MAX,
            open_after_ms: u64::MAX,
        };
        assert!(wide.admits(u32::MAX, u64::MAX - 1));
    }

    #[test]
    fn the_closest_compatible_ticket_is_picked_the_oldest_on_a_tie() {
        let q = vec![
            t(1, "far", 1900, 0),
            t(2, "near-old", 1560, 0),
            t(3, "nearer", 1530, 0),
            t(4, "tie-young", 1470, 0),
            t(5, "me", 1500, 0),
        ];
        let me = t(9, "me", 1500, 0);
        // 30 away (the older of two), not 60; the far one is not
        // compatible yet, himself never.
        assert_eq!(pick_partner(&W, &me, &q, 0), Some(2));
        assert_eq!(pick_partner(&W, &me, &q[..2], 0), Some(1));
        let tie = vec![t(1, "x", 1530, 0), t(2, "y", 1470, 0)];
        assert_eq!(pick_partner(&W, &me, &tie, 0), Some(0));
        // Only himself and one 400 away: nobody yet; that one at 6 s.
        let alone = vec![t(5, "me", 1500, 0), t(1, "far", 1900, 0)];
        assert_eq!(pick_partner(&W, &me, &alone, 0), None);
        assert_eq!(pick_partner(&W, &me, &alone, 6_000), Some(1));
    }
}
