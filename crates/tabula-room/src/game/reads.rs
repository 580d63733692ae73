//! What the room, its views and the bots read of a [`Game`].

use super::{
    Action, Board, BoardView, Cube, Engine, Game, GameOptions, MAX_CUBE, PlayedTurn, Stage,
};
use crate::event::BotNeed;
use crate::fair::FairDice;
use crate::narration::Seats;
use crate::result::{GameResult, GameSummary};
use crate::types::SeatId;

impl Game {
    /// The options.
    pub fn options(&self) -> &GameOptions {
        &self.options
    }

    /// The actions so far.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The dice (seeds and how many were used).
    pub fn dice(&self) -> &FairDice {
        &self.dice
    }

    /// The cube.
    pub fn cube(&self) -> Cube {
        self.cube
    }

    /// The result once over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// The results summary so far.
    pub fn summary(&self) -> &GameSummary {
        &self.summary
    }

    /// How the arbiter names this game's seats.
    pub(crate) fn seats(&self) -> Seats {
        engine!(&self.board, e => e.seats())
    }

    /// Whether this game is played with dice (and shows dice, moves and
    /// the cube in the room's view).
    pub(crate) fn uses_dice(&self) -> bool {
        engine!(&self.board, e => e.dice())
    }

    /// Whether a match of this game is always one game.
    pub(crate) fn one_game(&self) -> bool {
        engine!(&self.board, e => e.one_game())
    }

    /// The long nardy position (start of the current turn).
    pub fn long_position(&self) -> Option<tabula_long::Position> {
        match &self.board {
            Board::Long(g) => Some(g.position()),
            _ => None,
        }
    }

    /// At the start of a dice game's turn (rolled, nothing played yet): who
    /// is to play, the roll and the position, as an empty
    /// [`crate::PlayedTurn`]. `None` at any other moment.
    pub fn turn_start(&self) -> Option<crate::PlayedTurn> {
        self.turn_in_progress().filter(PlayedTurn::is_unplayed)
    }

    /// During a dice game's turn (rolled; some steps may be played): who
    /// is to play, the roll, the position before the turn's first step and
    /// the steps played so far. `None` at any other moment.
    pub fn turn_in_progress(&self) -> Option<crate::PlayedTurn> {
        let Stage::Moving(seat) = self.stage else {
            return None;
        };
        engine!(&self.board, e => e.turn(seat))
    }

    /// The Thud! game.
    pub fn thud_game(&self) -> Option<&tabula_thud::Game> {
        match &self.board {
            Board::Thud(g) => Some(g.game()),
            _ => None,
        }
    }

    /// Who must act next and how; `None` once over.
    pub fn to_act(&self) -> Option<(SeatId, BotNeed)> {
        match self.stage {
            Stage::AwaitRoll(s) => Some((s, BotNeed::Roll)),
            Stage::Moving(s) => Some((s, BotNeed::Move)),
            Stage::CubeOffered(by) => Some((by.other(), BotNeed::CubeDecision)),
            Stage::OwnTurns => engine!(&self.board, e => e.to_act()),
            Stage::Over => None,
        }
    }

    /// Whether `seat` may double now.
    pub fn may_double(&self, seat: SeatId) -> bool {
        self.cube.enabled
            && self.stage == Stage::AwaitRoll(seat)
            && self.cube.value < MAX_CUBE
            && self.cube.owner.is_none_or(|o| o == seat)
    }

    /// The board as it stands now (mid-turn included).
    pub fn board_view(&self) -> BoardView {
        engine!(&self.board, e => e.view())
    }
}
