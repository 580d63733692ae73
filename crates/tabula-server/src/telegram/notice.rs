//! A notice: one message the bot owes a player, as the room's host
//! queues it ([`crate::host`]) and the sender ([`super::sender`]) sends
//! it. Its id is made from the event that caused it, so whoever queues it
//! again (a node that took the room over) queues the same notice, which
//! the queue refuses ([`tabula_backplane::Notices::queue_notice`]).

use serde::{Deserialize, Serialize};
use tabula_room::GameKind;

/// What a notice tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// It is his turn in a game between people he is not looking at.
    YourTurn,
    /// Someone took the seat of his invite or his challenge.
    InviteTaken,
    /// His opponent asks for a rematch.
    Rematch,
    /// The game he left against the computer is waiting (once, a day on).
    BotGameWaiting,
    /// A game of his between people ended while he was away.
    GameEnded,
    /// A challenge's match is over: its message in the chat where it was
    /// posted shows the result (not a player's choice: the chat's).
    ChallengeOver,
    /// Little time is left for his move in a correspondence game
    /// ([`time_low_lead`]).
    TimeLow,
    /// A tournament paired him: his game's room is ready.
    TournamentGame,
}

/// How long before a correspondence move's deadline its player is
/// reminded: a quarter of the time a move, at most 12 hours (6 hours of a
/// day, 12 of three or seven days).
pub fn time_low_lead(delay_ms: u64) -> u64 {
    (delay_ms / 4).min(12 * 3_600_000)
}

impl NoticeKind {
    /// Every kind a player chooses to get, in the order `/settings`
    /// lists them.
    pub const ALL: [NoticeKind; 7] = [
        NoticeKind::YourTurn,
        NoticeKind::TimeLow,
        NoticeKind::InviteTaken,
        NoticeKind::Rematch,
        NoticeKind::BotGameWaiting,
        NoticeKind::GameEnded,
        NoticeKind::TournamentGame,
    ];

    /// The kind's name on the wire and in metrics (`your_turn`, …).
    pub fn name(self) -> &'static str {
        match self {
            NoticeKind::YourTurn => "your_turn",
            NoticeKind::InviteTaken => "invite_taken",
            NoticeKind::Rematch => "rematch",
            NoticeKind::BotGameWaiting => "bot_game_waiting",
            NoticeKind::GameEnded => "game_ended",
            NoticeKind::ChallengeOver => "challenge_over",
            NoticeKind::TimeLow => "time_low",
            NoticeKind::TournamentGame => "tournament_game",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<NoticeKind> {
        NoticeKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether it goes to a player's private chat (else to the chat where
    /// a challenge was posted).
    pub fn to_player(self) -> bool {
        self != NoticeKind::ChallengeOver
    }
}

/// How a finished game went for the notice's player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// He won.
    Won,
    /// He lost.
    Lost,
    /// Nobody won (Thud!).
    Drawn,
}

/// One notice (the queue's entry, as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// What it tells.
    pub kind: NoticeKind,
    /// Who gets it (`tg:<id>`; nobody else can).
    pub player: String,
    /// The room it is about.
    pub room: String,
    /// The game played there.
    pub game: GameKind,
    /// The other player, for his name (`None`: the computer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// When its cause happened (ms since the epoch): the delay metric and
    /// the notice's time to live count from here.
    pub caused_ms: u64,
    /// A finished game's outcome for him, and its number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<(Outcome, u32)>,
    /// A paused game's pause, or the start of a correspondence turn (ms):
    /// the notice is sent only if the game is still listed for him as
    /// waiting from then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<u64>,
    /// A correspondence move's deadline (ms), for "little time left".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// When it is due (ms since the epoch); it expires
    /// `telegram.notice_ttl_ms` after.
    pub due_ms: u64,
    /// Sends tried and failed for a passing fault (put back with a
    /// growing delay).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// A "your turn" whose quiet period it claimed already (a send put
    /// back is not then refused by its own claim).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quiet_claimed: bool,
}

impl Notice {
    /// A notice of `kind` to `player` about `room`, caused at `caused_ms`
    /// and due at `due_ms`, with nothing else said yet.
    pub fn new(
        kind: NoticeKind,
        player: String,
        room: String,
        game: GameKind,
        caused_ms: u64,
        due_ms: u64,
    ) -> Notice {
        Notice {
            kind,
            player,
            room,
            game,
            opponent: None,
            caused_ms,
            outcome: None,
            paused_at: None,
            deadline_ms: None,
            due_ms,
            attempts: 0,
            quiet_claimed: false,
        }
    }

    /// How long the queue remembers this notice's id from `now`, so that
    /// the same cause queued again is refused: until it is due, then
    /// `ttl` (its time to live); a notice about a correspondence turn
    /// until the turn's deadline, then `ttl` (a player who opens the game
    /// days later and leaves again is not told twice of the same turn).
    pub fn remembered_for(&self, now: u64, ttl: std::time::Duration) -> std::time::Duration {
        let until = self.due_ms.max(self.deadline_ms.unwrap_or(0));
        ttl + std::time::Duration::from_millis(until.saturating_sub(now))
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The telegram user id of a player id (`tg:<id>`); `None` for a guest.
pub fn telegram_user(player: &str) -> Option<i64> {
    player.strip_prefix("tg:")?.parse().ok()
}

/// A notice to queue, under its id.
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    /// The id (from its cause).
    pub id: String,
    /// The notice.
    pub notice: Notice,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn an_id_is_remembered_past_its_due_time_and_a_correspondence_turn_past_its_deadline() {
        let ttl = Duration::from_secs(86_400);
        let mut n = Notice::new(
            NoticeKind::YourTurn,
            "tg:1".into(),
            "r1".into(),
            GameKind::LongNardy,
            1_000,
            1_000,
        );
        // Due now: its time to live.
        assert_eq!(n.remembered_for(1_000, ttl), ttl);
        // Due in a minute: that minute more.
        n.due_ms = 61_000;
        assert_eq!(n.remembered_for(1_000, ttl), ttl + Duration::from_secs(60));
        // A correspondence turn of three days: until its deadline, then
        // the time to live.
        n.due_ms = 1_000;
        n.deadline_ms = Some(1_000 + 3 * 86_400_000);
        assert_eq!(
            n.remembered_for(1_000, ttl),
            ttl + Duration::from_secs(3 * 86_400)
        );
        // Past the deadline: the time to live.
        assert_eq!(n.remembered_for(10 * 86_400_000, ttl), ttl);
    }
}
