//! What happens to a tournament ([`Input`]) and what its owner must do
//! about it ([`Effect`]), with the group's posts and the refusals.

use serde::{Deserialize, Serialize};

use crate::{GameId, Outcome, PlayerId, Standings};

/// What happens to a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Input {
    /// A player registers (or, while running, joins late where the format
    /// allows it, or comes back after withdrawing).
    Join {
        /// Who.
        player: PlayerId,
        /// His rating for this game kind.
        rating: i32,
    },
    /// A player leaves.
    Withdraw {
        /// Who.
        player: PlayerId,
    },
    /// A player stops being paired (arena and Swiss).
    Pause {
        /// Who.
        player: PlayerId,
    },
    /// A paused player wants games again.
    Resume {
        /// Who.
        player: PlayerId,
    },
    /// A game's room began play: both players are there.
    GameStarted {
        /// Which game.
        game_id: GameId,
    },
    /// A paired player came to his game's room.
    PlayerArrived {
        /// Which game.
        game_id: GameId,
        /// Who.
        player: PlayerId,
    },
    /// A game (a match, in a knockout) ended.
    GameResult {
        /// Which game.
        game_id: GameId,
        /// How.
        outcome: Outcome,
    },
    /// Time passed: fire what is due.
    Tick,
    /// A new owner restored the tournament and applies this before anything
    /// else: the time since the last input is not charged to the players a
    /// game still waits for (their grace is moved on by it), as a room's
    /// clock forgives the time it had no owner. The schedule (the start, an arena's end) is not moved.
    Restored,
}

/// What the owner must do, in order, once the state is persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Effect {
    /// Registration closed and play began.
    Started {
        /// Players taking part.
        players: u32,
    },
    /// A round began (knockout and Swiss).
    RoundStarted {
        /// Which (from 1).
        round: u32,
    },
    /// Create this game's room and tell both players.
    Pair {
        /// The game's id (the same for every owner).
        game_id: GameId,
        /// Who plays white (the first seat).
        white: PlayerId,
        /// Who plays black.
        black: PlayerId,
        /// The round (0 in an arena).
        round: u32,
    },
    /// A player is not paired this round and scores as the format says.
    Bye {
        /// Who.
        player: PlayerId,
        /// Which round.
        round: u32,
    },
    /// A player lost a game without playing it (absent, or withdrawn from a
    /// knockout): close its room.
    Forfeit {
        /// Which game.
        game_id: GameId,
        /// Who lost it.
        loser: PlayerId,
    },
    /// The standings changed (a result, a bye, a forfeit).
    StandingsChanged,
    /// The tournament is over.
    Finished {
        /// The final standings.
        standings: Standings,
    },
    /// The tournament was called off.
    Cancelled {
        /// Why.
        reason: CancelReason,
    },
    /// Something for the group's bot to post.
    Announce(Announcement),
    /// The input was refused and changed nothing.
    Rejected(Rejection),
}

/// Why a tournament was called off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    /// Fewer than two players at the start.
    TooFewPlayers,
}

/// A post for the group's chat (the bot words it in the group's language).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Announcement {
    /// Play began.
    Started {
        /// Players taking part.
        players: u32,
    },
    /// A round's pairings (knockout and Swiss).
    Round {
        /// Which round.
        round: u32,
        /// White and black of each game, by board.
        pairings: Vec<(PlayerId, PlayerId)>,
        /// Players with a bye.
        byes: Vec<PlayerId>,
    },
    /// The tournament ended.
    Finished {
        /// The first three (fewer in a small field), best first.
        podium: Vec<PlayerId>,
    },
    /// The tournament was called off.
    Cancelled {
        /// Why.
        reason: CancelReason,
    },
}

/// Why an input was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Rejection {
    /// The tournament is over (or called off).
    Closed,
    /// The format takes no players once running (or its late entry closed).
    LateJoinClosed,
    /// The player is already in.
    AlreadyJoined,
    /// The field is full.
    Full,
    /// The player is not in the tournament.
    UnknownPlayer,
    /// The player already withdrew.
    Withdrawn,
    /// Pausing is not part of this format (knockout).
    NoPause,
    /// The player is already paused.
    AlreadyPaused,
    /// The player is not paused.
    NotPaused,
    /// No such game in this tournament.
    UnknownGame,
    /// The game is over; arrivals no longer matter.
    GameOver {
        /// Which game.
        game_id: GameId,
    },
    /// The player does not play this game.
    NotInGame,
    /// The game already has its result; this one is not counted.
    DuplicateResult {
        /// Which game.
        game_id: GameId,
    },
}
