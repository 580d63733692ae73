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
}

impl NoticeKind {
    /// Every kind a player chooses to get, in the order `/settings`
    /// lists them.
    pub const ALL: [NoticeKind; 5] = [
        NoticeKind::YourTurn,
        NoticeKind::InviteTaken,
        NoticeKind::Rematch,
        NoticeKind::BotGameWaiting,
        NoticeKind::GameEnded,
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
    /// A paused game's pause (ms): the notice is sent only if the game
    /// still waits from then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<u64>,
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
