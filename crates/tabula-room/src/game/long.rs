//! Long nardy (`tabula-long`) behind [`Engine`].

use tabula_dice::Dice;
use tabula_long as long;

use super::{
    BoardView, Engine, GameOptions, Moves, Outcome, PlayedTurn, StartPosition, Stepped, Turn,
};
use crate::error::{EngineError, RoomError};
use crate::narration::Seats;
use crate::result::ResultKind;
use crate::types::{SeatId, Spot};

/// A long nardy game: the position at the start of the turn and the turn
/// being played.
#[derive(Debug, Clone)]
pub(crate) struct LongGame {
    pos: long::Position,
    turn: Option<long::Turn>,
}

impl LongGame {
    /// The position now (mid-turn included).
    pub(crate) fn position(&self) -> long::Position {
        self.turn.as_ref().map_or(self.pos, |t| t.position())
    }
}

/// A `move {from, to}` as a long nardy step (seed 000's numbering).
pub(crate) fn step_of(from: Spot, to: Spot) -> Option<long::Step> {
    let Spot::Point(f) = from else { return None };
    match to {
        Spot::Point(t) => Some(long::Step::new(f, t)),
        Spot::Off => Some(long::Step::off(f)),
        Spot::Bar => None,
    }
}

fn moves(turn: &long::Turn) -> Moves {
    // Each text sized up front ("24-18," is six bytes): one allocation per
    // offered step or sequence rather than a few as the text grows.
    let first_steps = turn
        .legal_steps()
        .iter()
        .map(|s| {
            let mut text = String::with_capacity(7);
            s.push_to(&mut text);
            text
        })
        .collect();
    Moves {
        dice_left: turn.dice_left().to_vec(),
        first_steps,
        sequences: turn.continuation_texts_by_result(),
    }
}

fn kind(k: long::WinKind) -> ResultKind {
    match k {
        long::WinKind::Oin => ResultKind::Oin,
        long::WinKind::Mars => ResultKind::Mars,
        long::WinKind::Koks => ResultKind::Koks,
    }
}

impl Engine for LongGame {
    const SEATS: Seats = Seats::Colours;
    const DICE: bool = true;
    const ONE_GAME: bool = false;

    fn new(options: &GameOptions) -> LongGame {
        LongGame {
            pos: long::Position::new_game(options.long, long::Color::White),
            turn: None,
        }
    }

    fn from_start(
        start: &StartPosition,
        options: &GameOptions,
    ) -> Result<(LongGame, SeatId), RoomError> {
        let StartPosition::LongNardy(s) = start else {
            return Err(super::engine::other_game());
        };
        let pos = long::Position::from_setup(s, options.long)
            .map_err(|e| RoomError::BadStartPosition(e.to_string()))?;
        Ok((LongGame { pos, turn: None }, SeatId::of_long(pos.turn())))
    }

    fn opening(&self, options: &GameOptions) -> long::Opening {
        options.long.opening
    }

    fn set_starter(&mut self, starter: SeatId, options: &GameOptions) {
        self.pos = long::Position::new_game(options.long, starter.long_color());
    }

    fn begin_turn(&mut self, dice: Dice) -> Result<Turn, RoomError> {
        let t = self.pos.turn_with(dice);
        if t.is_complete() {
            self.pos = t.finish().expect("a complete turn finishes");
            return Ok(Turn::Passed);
        }
        let m = moves(&t);
        self.turn = Some(t);
        Ok(Turn::Moves(m))
    }

    fn step(&mut self, from: Spot, to: Spot) -> Result<Stepped, RoomError> {
        let step = step_of(from, to).ok_or_else(|| super::engine::bad_points(from, to))?;
        let t = self.turn.as_mut().expect("moving has a turn");
        t.play_step(step).map_err(EngineError::from)?;
        let next = if t.is_complete() {
            self.pos = t.finish().expect("a complete turn finishes");
            self.turn = None;
            None
        } else {
            Some(moves(t))
        };
        Ok(Stepped {
            notation: step.to_string(),
            hit: false,
            next,
        })
    }

    fn borne_off(&self) -> Option<[u8; 2]> {
        Some(SeatId::BOTH.map(|s| self.pos.off(s.long_color())))
    }

    fn outcome(&self, _options: &GameOptions) -> Option<Outcome> {
        let o = self.pos.outcome()?;
        Some(Outcome::won(
            SeatId::of_long(o.winner),
            kind(o.kind),
            u32::from(o.points),
        ))
    }

    fn resign(&self, seat: SeatId, _options: &GameOptions) -> Outcome {
        let o = long::resign_outcome(&self.pos, seat.long_color());
        Outcome::won(seat.other(), kind(o.kind), u32::from(o.points))
    }

    fn view(&self) -> BoardView {
        BoardView::LongNardy {
            position: self.position().to_setup(),
        }
    }

    fn turn(&self, seat: SeatId) -> Option<PlayedTurn> {
        let t = self.turn.as_ref()?;
        Some(PlayedTurn::LongNardy {
            seat,
            dice: t.dice(),
            start: self.pos,
            steps: t.played().to_vec(),
        })
    }
}
