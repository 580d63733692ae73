//! The Telegram bot's shared state, behind [`Notices`]: the outbound
//! notification queue, the send slots that keep Telegram's rate limits
//! across every node, the updates already acted on, and the players who
//! started the bot.
//!
//! Sends are counted by slots of a tenth of a second ([`send_slot`]).
//!
//! The **notice queue** is an outbox drained by every node, as the archive
//! queue is: a room queues a notice under an id made from the event that
//! caused it (`turn:{room}:{version}`), so a node that takes the room over
//! and queues it again changes nothing; every node's sender takes due
//! notices, each taken by one node only, and sends them. A queued id is
//! remembered for `keep` after it is queued, sent or not, so it is queued
//! at most once within that time: at least once into the queue, at most
//! once to the person.
//!
//! A **slot** is a name claimed for a while (`SET NX PX`): the first claim
//! wins, later ones fail until it runs out. The sender claims a chat's
//! slot for each message (one a second per chat), a game's quiet period
//! for "your turn", and the webhook claims each `update_id` once.

use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::Result;

/// The bot's shared state.
pub trait Notices: Send + Sync + std::fmt::Debug + 'static {
    /// Queues the notice `entry` (opaque JSON) under `id`, due at `due_ms`
    /// (ms since the epoch). Refused (`false`) when `id` was queued within
    /// the last `keep`, whether it is still queued or was taken since.
    fn queue_notice(
        &self,
        id: &str,
        entry: String,
        due_ms: u64,
        keep: Duration,
    ) -> BoxFuture<'_, Result<bool>>;

    /// Takes up to `limit` notices due by `now_ms`, the earliest due
    /// first, as `(id, entry)`: each one is taken by one caller only, and
    /// leaves the queue.
    fn take_notices(
        &self,
        now_ms: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<(String, String)>>>;

    /// Puts a taken notice back, due at `due_ms` (a send to retry later).
    fn requeue_notice(&self, id: &str, entry: String, due_ms: u64) -> BoxFuture<'_, Result<()>>;

    /// How many notices are queued, and the earliest due time among them.
    fn notice_backlog(&self) -> BoxFuture<'_, Result<NoticeBacklog>>;

    /// Claims the slot `name` for `ttl`: `true` when it was free.
    fn claim_slot(&self, name: &str, ttl: Duration) -> BoxFuture<'_, Result<bool>>;

    /// Claims a send at `now_ms` within `per_sec` sends a second, across
    /// every node, counted by [`send_slot`]: a burst is spread over the
    /// second, and no second (aligned or not) holds more than one slot's
    /// worth beyond `per_sec`. `false` when the current slot's sends are
    /// spent.
    fn claim_send(&self, now_ms: u64, per_sec: u32) -> BoxFuture<'_, Result<bool>>;

    /// Stops every node's sends until `until_ms` (Telegram's 429
    /// `retry_after`); a later time replaces an earlier one, never the
    /// reverse.
    fn pause_sends(&self, until_ms: u64) -> BoxFuture<'_, Result<()>>;

    /// Until when sends are stopped (0: they are not).
    fn sends_paused_until(&self) -> BoxFuture<'_, Result<u64>>;

    /// Writes the note `name` (`None`: erases it), kept for `keep`: what
    /// the bot remembers of a challenge (its inline message, by room).
    fn set_note(
        &self,
        name: &str,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>>;

    /// The note `name`, if written and kept.
    fn note(&self, name: &str) -> BoxFuture<'_, Result<Option<String>>>;

    /// What the bot knows of `player` (opaque JSON: his chat, language,
    /// the notices he wants, whether he blocked the bot); `None` when he
    /// never started it. Kept without expiry.
    fn bot_user(&self, player: &str) -> BoxFuture<'_, Result<Option<String>>>;

    /// Writes (`None`: forgets) what the bot knows of `player`.
    fn set_bot_user(&self, player: &str, user: Option<String>) -> BoxFuture<'_, Result<()>>;
}

/// How `per_sec` sends a second are counted: (slot length in ms, sends
/// each slot allows). A tenth of a second allows a tenth of them (rounded
/// down: never more than asked); under 10 a second, one send per
/// `1000 / per_sec` ms.
pub fn send_slot(per_sec: u32) -> (u64, u32) {
    match per_sec {
        0 => (1000, 0),
        1..=9 => (1000 / u64::from(per_sec), 1),
        n => (100, n / 10),
    }
}

/// The notice queue's length, as [`Notices::notice_backlog`] reads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoticeBacklog {
    /// Notices queued.
    pub notices: u64,
    /// The earliest due time (ms since the epoch); `None` when empty.
    pub earliest_due_ms: Option<u64>,
}
