//! Why a command is refused. A refused command changes nothing.

use crate::types::SeatId;

/// The engine's reason for refusing a step or move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// Long nardy.
    #[error(transparent)]
    Long(#[from] tabula_long::StepError),
    /// Backgammon.
    #[error(transparent)]
    Backgammon(#[from] tabula_backgammon::StepError),
    /// Thud!.
    #[error(transparent)]
    Thud(#[from] tabula_thud::RoundError),
    /// The move text could not be read.
    #[error("cannot read the move: {0}")]
    Notation(String),
    /// A whole turn with steps left after it ended.
    #[error("the turn ends after {played} of its {given} steps")]
    AfterTurn {
        /// The steps that ended the turn.
        played: usize,
        /// The steps given.
        given: usize,
    },
}

/// A refused command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RoomError {
    /// The actor has no seat in this room.
    #[error("you are not seated in this room")]
    NotSeated,
    /// The seat is occupied.
    #[error("seat {0} is taken")]
    SeatTaken(SeatId),
    /// The actor already has a seat.
    #[error("you already have a seat")]
    AlreadySeated,
    /// Both seats are occupied.
    #[error("the room is full")]
    RoomFull,
    /// The actor named a bot seat that holds no bot.
    #[error("seat {0} is not a bot seat")]
    NotABot(SeatId),
    /// Already pressed Ready.
    #[error("already ready")]
    AlreadyReady,
    /// No game is being played.
    #[error("the game has not started")]
    GameNotStarted,
    /// A whole-turn command whose steps, all legal, leave dice to play.
    #[error("the steps leave dice to play: send the whole turn")]
    IncompleteTurn,
    /// A clock has run out: the timeout is being declared, and no seated
    /// player may act before it is.
    #[error("the clock has run out")]
    TimeUp,
    /// The game waits for its absent player (a bot may not act).
    #[error("the game is paused until its player is back")]
    Paused,
    /// Not allowed while a game is being played.
    #[error("a game is in progress")]
    GameInProgress,
    /// The match is over.
    #[error("the match is over")]
    MatchFinished,
    /// A rematch is for a finished match.
    #[error("the match is not over: a rematch is asked after it")]
    MatchNotFinished,
    /// No rematch with a bot (a room with a bot is left for a new one).
    #[error("no rematch against the computer: start a new game")]
    RematchWithBot,
    /// The other seat is empty: nobody to play a rematch with.
    #[error("the opponent has left: nobody to play a rematch with")]
    NoOpponent,
    /// This seat has already asked for the rematch.
    #[error("you have already asked for a rematch")]
    RematchAlreadyOffered,
    /// No rematch was asked for (nothing to decline).
    #[error("no rematch has been asked for")]
    NoRematchOffered,
    /// It is the other seat's turn (or decision).
    #[error("it is not your turn")]
    NotYourTurn,
    /// Roll first.
    #[error("roll the dice first")]
    MustRollFirst,
    /// The dice are already rolled this turn.
    #[error("the dice are already rolled")]
    AlreadyRolled,
    /// The command does not exist in this game (e.g. dice in Thud!).
    #[error("this command does not apply to this game")]
    WrongGame,
    /// The engine refused the step or move.
    #[error("illegal move: {0}")]
    Illegal(#[from] EngineError),
    /// A `move` whose points cannot be a step of this game.
    #[error("not a step of this game: {from} to {to}")]
    BadPoints {
        /// From, as given.
        from: String,
        /// To, as given.
        to: String,
    },
    /// The cube is not in play in this game (Thud!, short match, Crawford).
    #[error("no doubling in this game")]
    NoCube,
    /// The cube is owned by the opponent.
    #[error("the cube is not yours")]
    NotYourCube,
    /// The cube is at its maximum.
    #[error("the cube is at its maximum (64)")]
    CubeAtMaximum,
    /// Doubling is only allowed before rolling on one's own turn.
    #[error("you may double only on your turn before rolling")]
    NotTimeToDouble,
    /// A double is waiting for take or drop.
    #[error("a double is pending: take or drop")]
    DoublePending,
    /// No double to take or drop.
    #[error("no double is pending")]
    NoDoublePending,
    /// Client seeds may only change before a game starts.
    #[error("client seeds can only be set before the game starts")]
    SeedLocked,
    /// Empty chat line.
    #[error("empty chat message")]
    ChatEmpty,
    /// Chat line over the limit.
    #[error("chat message longer than {max} characters")]
    ChatTooLong {
        /// The limit in characters.
        max: usize,
    },
    /// Takebacks are for casual games between two people.
    #[error("takebacks are for casual games between two people")]
    TakebackNotAllowed,
    /// No turn of the sender's to take back now.
    #[error(
        "no turn of yours to take back now: only the turn you just played, before your opponent acts"
    )]
    NothingToTakeBack,
    /// A takeback is already asked for.
    #[error("a takeback is already asked for")]
    TakebackPending,
    /// The takeback of this turn was declined already.
    #[error("your opponent declined taking back this turn")]
    TakebackDeclined,
    /// `acceptTakeback` or `declineTakeback` with none asked for.
    #[error("no takeback has been asked for")]
    NoTakebackOffered,
    /// The configured start position is not legal.
    #[error("bad start position: {0}")]
    BadStartPosition(String),
    /// A restored snapshot does not replay to the recorded version.
    #[error("snapshot does not replay: {0}")]
    BadSnapshot(String),
}
