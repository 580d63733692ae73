//! Events the room emits, each with the room version and an audience.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::game::{BoardView, GameKind};
use crate::narration::Narration;
use crate::result::{GameResult, GameSummary, PlayerResult, ResultKind};
use crate::types::{BotLevel, PlayerId, SeatId, Spot};

/// Who an event is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "seat", rename_all = "camelCase")]
pub enum Audience {
    /// Both seats and every spectator.
    All,
    /// Only the player in this seat.
    Seat(SeatId),
    /// Only spectators.
    Spectators,
    /// The host (bot requests, statistics); never put on a player's wire.
    Host,
}

/// One entry of the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    /// The room version after this event (strictly rising, starting at 1).
    pub version: u64,
    /// Who should receive it.
    pub to: Audience,
    /// The event, shared: the log keeps the same one the room hands out,
    /// rather than a deep copy of every event (a `possibleMoves` is dozens
    /// of strings).
    pub event: Arc<Event>,
}

/// One player's statistics delta for a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerDelta {
    /// The seat.
    pub seat: SeatId,
    /// The human in it, `None` for a bot.
    pub player: Option<PlayerId>,
    /// The seat's bot level, if a bot played it.
    pub bot_level: Option<BotLevel>,
    /// The opponent's bot level, if the opponent was a bot.
    pub opponent_bot_level: Option<BotLevel>,
    /// Win, lose or draw.
    pub result: PlayerResult,
    /// Points won in this game (0 unless won).
    pub points_won: u32,
    /// Points lost in this game (0 unless lost).
    pub points_lost: u32,
    /// Whether the game was a mars (or gammon) either way.
    pub mars: bool,
    /// The kind of game (absent in events written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameKind>,
}

/// What the host must do for a bot seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BotNeed {
    /// Press Ready.
    Ready,
    /// Roll (or double first).
    Roll,
    /// Play the next step (long nardy, backgammon) or move (Thud!).
    Move,
    /// Take or drop the pending double.
    CubeDecision,
    /// Accept or decline the pending proposal to end the Thud! round.
    EndProposal,
}

/// Who wrote a chat line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", content = "id", rename_all = "camelCase")]
pub enum ChatAuthor {
    /// The arbiter (the room itself).
    Arbiter,
    /// A player or spectator.
    Player(PlayerId),
}

/// Room phases (seed 000): waiting for players → playing → finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Seats filling, players pressing Ready (also between games of a match).
    WaitingForPlayer,
    /// A game is being played.
    Playing,
    /// The match (or the single game) is over.
    Finished,
}

/// Everything the room says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Event {
    /// A player sat down.
    #[serde(rename_all = "camelCase")]
    SeatTaken {
        /// The seat.
        seat: SeatId,
        /// Who.
        player: PlayerId,
    },
    /// A bot was given a seat.
    #[serde(rename_all = "camelCase")]
    BotSeated {
        /// The seat.
        seat: SeatId,
        /// The bot's level.
        level: BotLevel,
    },
    /// A seat was freed.
    #[serde(rename_all = "camelCase")]
    SeatFreed {
        /// The seat.
        seat: SeatId,
        /// Who left it.
        player: PlayerId,
    },
    /// A spectator came in.
    #[serde(rename_all = "camelCase")]
    SpectatorJoined {
        /// Who.
        player: PlayerId,
    },
    /// A spectator left.
    #[serde(rename_all = "camelCase")]
    SpectatorLeft {
        /// Who.
        player: PlayerId,
    },
    /// A seat pressed Ready.
    #[serde(rename_all = "camelCase")]
    Ready {
        /// The seat.
        seat: SeatId,
    },
    /// A seat set its client seed for the next game.
    #[serde(rename_all = "camelCase")]
    ClientSeedSet {
        /// The seat.
        seat: SeatId,
        /// The seed.
        seed: String,
    },
    /// A game started: the server seed is committed.
    #[serde(rename_all = "camelCase")]
    GameStarted {
        /// 1-based game number in the match.
        game_number: u32,
        /// `hex(SHA-256(server_seed))`.
        commitment: String,
        /// The client seeds of seats A and B.
        client_seeds: [String; 2],
        /// Whether this is the Crawford game.
        crawford: bool,
        /// Whether the doubling cube is in play this game.
        cube_enabled: bool,
    },
    /// The opening roll(s): one die each, doubles rerolled.
    #[serde(rename_all = "camelCase")]
    OpeningRoll {
        /// Each opening roll as (seat A's die, seat B's die), ties included.
        rolls: Vec<[u8; 2]>,
        /// Who starts.
        starter: SeatId,
        /// The starter's first roll if the opening roll plays.
        first_roll: Option<[u8; 2]>,
    },
    /// It is this seat's turn (roll, or double first).
    #[serde(rename_all = "camelCase")]
    TurnStarted {
        /// The seat.
        seat: SeatId,
        /// Whether it may double now.
        may_double: bool,
    },
    /// Dice rolled.
    #[serde(rename_all = "camelCase")]
    DiceRolled {
        /// The roller.
        seat: SeatId,
        /// The dice as derived.
        dice: [u8; 2],
        /// The derivation index `k` of this roll.
        roll_index: u64,
    },
    /// The legal continuations (seed 000's `possibleMoves`).
    #[serde(rename_all = "camelCase")]
    PossibleMoves {
        /// The seat on move.
        seat: SeatId,
        /// Dice not yet played.
        dice_left: Vec<u8>,
        /// The distinct legal next steps (`24-18`, `5-off`, `bar/22`).
        first_steps: Vec<String>,
        /// One canonical sequence per distinct final position
        /// (`24-20,20-18`); backgammon lists whole plays only right after
        /// the roll.
        sequences: Vec<String>,
    },
    /// One step played.
    #[serde(rename_all = "camelCase")]
    Moved {
        /// The mover.
        seat: SeatId,
        /// From.
        from: Spot,
        /// To.
        to: Spot,
        /// The step in notation.
        notation: String,
        /// Backgammon: it hit a blot.
        hit: bool,
    },
    /// A Thud! move.
    #[serde(rename_all = "camelCase")]
    ThudMoved {
        /// The mover.
        seat: SeatId,
        /// The move in notation.
        notation: String,
        /// Pieces captured.
        captured: u32,
    },
    /// A roll with no legal play: the turn passed automatically.
    #[serde(rename_all = "camelCase")]
    TurnPassed {
        /// The seat that could not move.
        seat: SeatId,
        /// Its dice.
        dice: [u8; 2],
    },
    /// A chat line (a player's or the arbiter's).
    #[serde(rename_all = "camelCase")]
    Chat {
        /// Who wrote it.
        from: ChatAuthor,
        /// The text (the arbiter's: Russian).
        text: String,
        /// The arbiter's line as a key with parameters (`key`, `params`
        /// beside `text`); `None` for a player's line.
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        narration: Option<Narration>,
    },
    /// A double was offered.
    #[serde(rename_all = "camelCase")]
    DoubleOffered {
        /// Who doubles.
        seat: SeatId,
        /// The cube value if taken.
        value: u32,
    },
    /// A double was taken.
    #[serde(rename_all = "camelCase")]
    DoubleTaken {
        /// Who took (now owns the cube).
        seat: SeatId,
        /// The new cube value.
        value: u32,
    },
    /// A double was dropped (the game ends).
    #[serde(rename_all = "camelCase")]
    DoubleDropped {
        /// Who dropped.
        seat: SeatId,
    },
    /// A takeback was asked for by this seat (of the turn it just played).
    #[serde(rename_all = "camelCase")]
    TakebackOffered {
        /// Who asks.
        seat: SeatId,
    },
    /// A takeback was declined by the opponent, withdrawn by the asker, or
    /// lapsed (the opponent acted; the game ended): `seat` is who declined.
    #[serde(rename_all = "camelCase")]
    TakebackDeclined {
        /// Who declined (or withdrew).
        seat: SeatId,
    },
    /// A takeback was accepted: `seat`'s last turn is undone, and he plays
    /// the same roll again (a dice game: `possibleMoves` follows).
    #[serde(rename_all = "camelCase")]
    TakebackAccepted {
        /// Whose turn was taken back (to play again).
        seat: SeatId,
        /// The board as it is again (as `state`'s `board`).
        board: BoardView,
        /// The roll he plays again; absent in Thud!.
        #[serde(skip_serializing_if = "Option::is_none")]
        dice: Option<[u8; 2]>,
    },
    /// Thud!: a seat proposed to end the round.
    #[serde(rename_all = "camelCase")]
    EndProposed {
        /// Who.
        seat: SeatId,
    },
    /// Thud!: a proposal was declined or withdrawn.
    #[serde(rename_all = "camelCase")]
    EndDeclined {
        /// Who.
        seat: SeatId,
    },
    /// Thud!: a round ended.
    #[serde(rename_all = "camelCase")]
    RoundEnded {
        /// 1 or 2.
        round: u32,
        /// Why (`agreement`, `no_legal_move`, `no_pieces`,
        /// `plies_without_capture`, `repetition`, `timeout`).
        reason: String,
        /// Points of seats A and B in this round.
        points: [u32; 2],
    },
    /// A player disconnected; the deadline is when the grace period ends.
    #[serde(rename_all = "camelCase")]
    PlayerDisconnected {
        /// The seat.
        seat: SeatId,
        /// Millis timestamp of the forfeit.
        deadline: u64,
    },
    /// A game against a bot paused: its player left (no grace runs; the
    /// game waits for him, `playerReconnected` resumes it).
    #[serde(rename_all = "camelCase")]
    GamePaused {
        /// The absent player's seat.
        seat: SeatId,
        /// When he left (ms since the epoch).
        since: u64,
    },
    /// The clocks changed: a period began or ended, a paused game stopped
    /// or restarted the clock, or a new owner resumed it after a takeover.
    #[serde(rename_all = "camelCase")]
    Clock {
        /// The server's time of these figures (ms since the epoch).
        at: u64,
        /// Free time per period ([`crate::ClockView::delay_ms`]; the
        /// view's fields one by one, not flattened: serde's flatten
        /// buffers the whole event on every serialisation).
        delay_ms: u64,
        /// The bank a seat starts with.
        reserve_ms: u64,
        /// The reserves of seats A and B.
        reserve: [u64; 2],
        /// The running period, if a seat must act.
        running: Option<crate::clock::RunningView>,
    },
    /// A player came back.
    #[serde(rename_all = "camelCase")]
    PlayerReconnected {
        /// The seat.
        seat: SeatId,
    },
    /// Seed 000's `opponent_left`, to the remaining player.
    #[serde(rename_all = "camelCase")]
    OpponentLeft {
        /// The message (Russian).
        message: String,
        /// The message as a key with parameters (`opponentLeft`).
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        narration: Option<Narration>,
    },
    /// Seed 000's `game_over`, one per seat.
    #[serde(rename_all = "camelCase")]
    GameOver {
        /// win, lose or draw.
        result: PlayerResult,
        /// Points won or lost.
        points: u32,
        /// The kind of win.
        kind: ResultKind,
        /// `WIN 100 TON.` / `LOST 100 TON.` (or points without a stake).
        message: String,
        /// The message as a key with parameters (`gameWon`, `gameLost`,
        /// `gameDrawn`).
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        narration: Option<Narration>,
    },
    /// The game ended (to everyone): the result and the revealed seed.
    #[serde(rename_all = "camelCase")]
    GameEnded {
        /// 1-based game number.
        game_number: u32,
        /// The result.
        result: GameResult,
        /// The revealed server seed.
        server_seed: String,
        /// Match score of seats A and B after this game.
        match_score: [u32; 2],
    },
    /// The match is over.
    #[serde(rename_all = "camelCase")]
    MatchOver {
        /// The winner (`None` on a Thud! draw).
        winner: Option<SeatId>,
        /// The final score.
        score: [u32; 2],
    },
    /// After a match between two people: this seat asks for a rematch.
    #[serde(rename_all = "camelCase")]
    RematchOffered {
        /// Who asks.
        seat: SeatId,
    },
    /// The rematch offer is off: this seat declined it, withdrew its own,
    /// or left its seat.
    #[serde(rename_all = "camelCase")]
    RematchDeclined {
        /// Who.
        seat: SeatId,
    },
    /// Both asked: a new match starts in the room, the same options, the
    /// players' seats swapped (who played seat A — White, Thud!'s first
    /// player — now plays seat B). The next events are the new match's
    /// first game, in the new seating.
    #[serde(rename_all = "camelCase")]
    RematchStarted {
        /// The room's match number now (2 for the first rematch).
        match_number: u32,
        /// The players now in seats A and B.
        players: [PlayerId; 2],
    },
    /// Statistics for the finished game (to the host).
    #[serde(rename_all = "camelCase")]
    Stats {
        /// The results summary.
        summary: GameSummary,
        /// Per-seat deltas.
        players: Vec<PlayerDelta>,
    },
    /// The host must act for a bot.
    #[serde(rename_all = "camelCase")]
    BotRequest {
        /// The bot's seat.
        seat: SeatId,
        /// Its level.
        level: BotLevel,
        /// What is needed.
        need: BotNeed,
    },
}
