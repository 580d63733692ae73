//! [`Narration`]: a line of the narration as a message key with its
//! parameters, the text's typed twin. Data only, below the events that
//! carry it; the words are [`super`]'s.

use serde::{Deserialize, Serialize};

use crate::result::ResultKind;
use crate::types::{BotLevel, SeatId};

/// What an arbiter line, `opponentLeft` or `gameOver` says, as a message
/// key (`key`) with its parameters (`params`, always an object), beside
/// the Russian `text` / `message`: `{"key":"autoPass","params":{"seat":"b",
/// "dice":[6,6]}}`. Seats are `"a"` / `"b"`; a client names them by colour
/// (long nardy, backgammon: a = White) or by order (Thud!: a = the first
/// player). Player chat lines have none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "key", content = "params", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Narration {
    /// `seat` rolled `dice` and had no legal play: the turn passed.
    AutoPass {
        /// Who could not move.
        seat: SeatId,
        /// The roll.
        dice: [u8; 2],
    },
    /// A Thud! round ended.
    RoundOver {
        /// 1 or 2.
        round: u32,
        /// Points of seats A and B in this round.
        points: [u32; 2],
    },
    /// `seat` resigned.
    Resigned {
        /// The loser.
        seat: SeatId,
    },
    /// `seat` stood up during the game (a loss).
    StoodUp {
        /// The loser.
        seat: SeatId,
    },
    /// `seat` left, or stayed away past the grace period (a loss).
    Disconnected {
        /// The loser.
        seat: SeatId,
    },
    /// `seat`'s clock ran out: a loss.
    Timeout {
        /// Who ran out of time.
        seat: SeatId,
    },
    /// Thud!: `seat`'s clock ran out: the round ended, the opponent
    /// credited with all the pieces left.
    RoundTimeout {
        /// Who ran out of time.
        seat: SeatId,
    },
    /// `seat` dropped a double.
    Dropped {
        /// The loser.
        seat: SeatId,
    },
    /// The kind of win: `seat` won `points` by `kind`.
    Win {
        /// The winner.
        seat: SeatId,
        /// The result kind's wire name (`oin`, `mars`, `gammon`, `drop`, …).
        kind: ResultKind,
        /// Points won (the cube included).
        points: u32,
    },
    /// Thud!: `seat` won on the totals of both rounds.
    ThudWin {
        /// The winner.
        seat: SeatId,
        /// Totals of seats A and B.
        totals: [u32; 2],
    },
    /// Thud!: equal totals.
    Draw {
        /// Totals of seats A and B.
        totals: [u32; 2],
    },
    /// A bot took the seat of a player who left mid-game.
    BotTookSeat {
        /// The seat.
        seat: SeatId,
        /// The bot's level (1 easy, 2 medium, 3 hard).
        level: BotLevel,
    },
    /// `opponentLeft`: the opponent (in `seat`) left the game.
    OpponentLeft {
        /// The leaver's seat.
        seat: SeatId,
    },
    /// `gameOver` to the winner.
    GameWon {
        /// Points won.
        points: u32,
        /// The stake's payout: `points` × the stake per point (absent
        /// without a stake).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount: Option<u64>,
        /// The stake's currency (`TON`; absent without a stake).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        currency: Option<String>,
    },
    /// `gameOver` to the loser.
    GameLost {
        /// Points lost.
        points: u32,
        /// As in [`Narration::GameWon`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount: Option<u64>,
        /// As in [`Narration::GameWon`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        currency: Option<String>,
    },
    /// `gameOver` on a draw.
    GameDrawn {},
}
