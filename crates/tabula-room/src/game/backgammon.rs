//! Backgammon (`tabula-backgammon`) behind [`Engine`].

use tabula_backgammon as bg;
use tabula_dice::Dice;

use super::{
    BoardView, Engine, GameOptions, Moves, Outcome, PlayedTurn, StartPosition, Stepped, Turn,
};
use crate::error::{EngineError, RoomError};
use crate::narration::Seats;
use crate::result::ResultKind;
use crate::types::{SeatId, Spot};

/// A backgammon game: the position at the start of the turn (the mover on
/// roll), the turn being played and its roll.
#[derive(Debug, Clone)]
pub(crate) struct BackgammonGame {
    pos: bg::Position,
    turn: Option<bg::Turn>,
    dice: Option<Dice>,
}

/// A `move {from, to}` as backgammon points in the mover's numbering
/// (25 = bar, 0 = off).
pub(crate) fn points_of(from: Spot, to: Spot) -> Option<(u8, u8)> {
    let f = match from {
        Spot::Point(n) => n,
        Spot::Bar => bg::BAR,
        Spot::Off => return None,
    };
    let t = match to {
        Spot::Point(n) => n,
        Spot::Off => bg::OFF,
        Spot::Bar => return None,
    };
    Some((f, t))
}

/// The rest of a backgammon turn after its first steps: one sequence of
/// the remaining steps per distinct final position (the same shape the
/// roll's `legal_plays` gives, so a client sees whole plays at every step).
fn rest_sequences(turn: &bg::Turn) -> Vec<String> {
    turn.completions()
        .into_iter()
        .filter(|(rest, _)| !rest.is_empty())
        .map(|(rest, _)| bg::Play::from_steps(rest).to_string())
        .collect()
}

fn first_steps(turn: &bg::Turn) -> Vec<String> {
    let mut dice: Vec<u8> = turn.remaining_dice().to_vec();
    dice.sort_unstable();
    dice.dedup();
    let mut out = Vec::new();
    for from in (1..=bg::BAR).rev() {
        for &d in &dice {
            let mut t = turn.clone();
            if let Ok(s) = t.step(from, d) {
                out.push(s.to_string());
            }
        }
    }
    out
}

fn kind(k: bg::WinKind) -> ResultKind {
    match k {
        bg::WinKind::Single => ResultKind::Single,
        bg::WinKind::Gammon => ResultKind::Gammon,
        bg::WinKind::Backgammon => ResultKind::Backgammon,
    }
}

fn setup(pos: &bg::Position) -> bg::Setup {
    let mut white = std::collections::BTreeMap::new();
    let mut black = std::collections::BTreeMap::new();
    for p in 1..=24u8 {
        let w = pos.checkers(bg::Side::White, p);
        if w > 0 {
            white.insert(p.to_string(), w);
        }
        let b = pos.checkers(bg::Side::Black, p);
        if b > 0 {
            black.insert(p.to_string(), b);
        }
    }
    bg::Setup {
        turn: pos.turn(),
        white,
        black,
        bar: bg::SideCounts {
            white: pos.bar(bg::Side::White),
            black: pos.bar(bg::Side::Black),
        },
        off: Some(bg::SideCounts {
            white: pos.off(bg::Side::White),
            black: pos.off(bg::Side::Black),
        }),
    }
}

impl Engine for BackgammonGame {
    const SEATS: Seats = Seats::Colours;
    const DICE: bool = true;
    const ONE_GAME: bool = false;

    fn new(_options: &GameOptions) -> BackgammonGame {
        BackgammonGame {
            pos: bg::Position::initial(),
            turn: None,
            dice: None,
        }
    }

    fn from_start(
        start: &StartPosition,
        _options: &GameOptions,
    ) -> Result<(BackgammonGame, SeatId), RoomError> {
        let StartPosition::Backgammon(s) = start else {
            return Err(super::engine::other_game());
        };
        let pos = s
            .validate()
            .map_err(|e| RoomError::BadStartPosition(e.to_string()))?;
        let starter = SeatId::of_bg(pos.turn());
        Ok((
            BackgammonGame {
                pos,
                turn: None,
                dice: None,
            },
            starter,
        ))
    }

    fn opening(&self, options: &GameOptions) -> tabula_long::Opening {
        options.backgammon_opening
    }

    fn set_starter(&mut self, starter: SeatId, _options: &GameOptions) {
        if starter == SeatId::B {
            self.pos = self.pos.pass_turn();
        }
    }

    fn begin_turn(&mut self, dice: Dice) -> Result<Turn, RoomError> {
        let t = bg::Turn::new(&self.pos, dice);
        if t.max_dice() == 0 {
            self.pos = self.pos.pass_turn();
            return Ok(Turn::Passed);
        }
        let sequences = self
            .pos
            .legal_plays(dice)
            .into_iter()
            .map(|(p, _)| p.to_string())
            .collect();
        let m = Moves {
            dice_left: t.remaining_dice().to_vec(),
            first_steps: first_steps(&t),
            sequences,
        };
        self.turn = Some(t);
        self.dice = Some(dice);
        Ok(Turn::Moves(m))
    }

    fn step(&mut self, from: Spot, to: Spot) -> Result<Stepped, RoomError> {
        let (f, t_) = points_of(from, to).ok_or_else(|| super::engine::bad_points(from, to))?;
        let t = self.turn.as_mut().expect("moving has a turn");
        let s = t.step_to(f, t_).map_err(EngineError::from)?;
        let next = if t.is_complete() {
            let after = t.finish().expect("a complete play finishes");
            self.pos = if after.is_over() {
                after
            } else {
                after.pass_turn()
            };
            self.turn = None;
            self.dice = None;
            None
        } else {
            Some(Moves {
                dice_left: t.remaining_dice().to_vec(),
                first_steps: first_steps(t),
                sequences: rest_sequences(t),
            })
        };
        Ok(Stepped {
            notation: s.to_string(),
            hit: s.is_hit(),
            next,
        })
    }

    fn borne_off(&self) -> Option<[u8; 2]> {
        Some(SeatId::BOTH.map(|s| self.pos.off(s.bg_side())))
    }

    fn outcome(&self, options: &GameOptions) -> Option<Outcome> {
        let scoring = options.backgammon.scoring;
        let o = self.pos.outcome(scoring)?;
        let kind = match scoring {
            bg::Scoring::Single => ResultKind::Single,
            _ => kind(o.kind),
        };
        Some(Outcome::won(
            SeatId::of_bg(o.winner),
            kind,
            u32::from(o.points),
        ))
    }

    fn resign(&self, seat: SeatId, options: &GameOptions) -> Outcome {
        let gammon =
            options.backgammon.scoring == bg::Scoring::Gammons && self.pos.off(seat.bg_side()) == 0;
        let (kind, base) = if gammon {
            (ResultKind::Gammon, 2)
        } else {
            (ResultKind::Single, 1)
        };
        Outcome::won(seat.other(), kind, base)
    }

    fn view(&self) -> BoardView {
        let p = self.turn.as_ref().map_or(self.pos, |t| *t.position());
        BoardView::Backgammon {
            position: setup(&p),
            position_id: p.gnubg_id(),
        }
    }

    fn turn(&self, seat: SeatId) -> Option<PlayedTurn> {
        let (Some(t), Some(dice)) = (&self.turn, self.dice) else {
            return None;
        };
        Some(PlayedTurn::Backgammon {
            seat,
            dice,
            start: self.pos,
            steps: t.steps().iter().map(|s| (s.from(), s.to())).collect(),
        })
    }
}
