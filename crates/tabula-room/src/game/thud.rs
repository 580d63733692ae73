//! Thud! (`tabula-thud`) behind [`Engine`]: no dice and no cube; the
//! engine keeps its own turn order over two rounds and takes moves in
//! notation.

use tabula_thud as thud;

use super::{BoardView, Engine, GameOptions, Outcome, Played, RoundOver};
use crate::error::{EngineError, RoomError};
use crate::event::BotNeed;
use crate::narration::Seats;
use crate::result::ResultKind;
use crate::types::SeatId;

/// A Thud! game (both rounds).
#[derive(Debug, Clone)]
pub(crate) struct ThudGame(thud::Game);

impl ThudGame {
    /// The engine's game.
    pub(crate) fn game(&self) -> &thud::Game {
        &self.0
    }
}

impl Engine for ThudGame {
    const SEATS: Seats = Seats::Order;
    const DICE: bool = false;
    const ONE_GAME: bool = true;

    fn new(options: &GameOptions) -> ThudGame {
        ThudGame(thud::Game::new(options.thud))
    }

    fn resign(&self, seat: SeatId, _options: &GameOptions) -> Outcome {
        Outcome {
            winner: Some(seat.other()),
            kind: ResultKind::ThudTotals,
            base: 1,
            thud_totals: Some(thud::outcome_of(&self.0.results()).totals),
        }
    }

    fn view(&self) -> BoardView {
        let g = &self.0;
        let r = g.round();
        let dwarfs = if g.round_number() <= 1 {
            SeatId::A
        } else {
            SeatId::B
        };
        BoardView::Thud {
            position: r.position().to_setup(),
            round: g.round_number() as u32,
            dwarfs,
            proposal: r.proposal().map(SeatId::of_thud),
            legal_moves: if r.result().is_some() {
                Vec::new()
            } else {
                r.position()
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect()
            },
        }
    }

    fn to_act(&self) -> Option<(SeatId, BotNeed)> {
        let r = self.0.round();
        match r.proposal() {
            Some(p) => Some((SeatId::of_thud(p.other()), BotNeed::EndProposal)),
            None => Some((SeatId::of_thud(r.to_move()), BotNeed::Move)),
        }
    }

    fn play(&mut self, seat: SeatId, notation: &str) -> Result<Played, RoomError> {
        let round = self.0.round_mut();
        if round.to_move() != seat.thud_seat() {
            return Err(RoomError::NotYourTurn);
        }
        let mv = round
            .position()
            .parse_move(notation)
            .map_err(|e| EngineError::Thud(e.into()))?;
        round
            .play(seat.thud_seat(), &mv)
            .map_err(EngineError::from)?;
        Ok(Played {
            notation: mv.to_string(),
            captured: mv.captures().count() as u32,
        })
    }

    fn propose_end(&mut self, seat: SeatId) -> Result<(), RoomError> {
        self.0
            .round_mut()
            .propose_end(seat.thud_seat())
            .map_err(EngineError::from)?;
        Ok(())
    }

    fn accept_end(&mut self, seat: SeatId) -> Result<(), RoomError> {
        self.0
            .round_mut()
            .accept_end(seat.thud_seat())
            .map_err(EngineError::from)?;
        Ok(())
    }

    fn decline_end(&mut self, seat: SeatId) -> Result<(), RoomError> {
        self.0
            .round_mut()
            .decline_end(seat.thud_seat())
            .map_err(EngineError::from)?;
        Ok(())
    }

    fn time_out(&mut self, seat: SeatId) -> Result<(), RoomError> {
        self.0
            .round_mut()
            .time_out(seat.thud_seat())
            .map_err(EngineError::from)?;
        Ok(())
    }

    fn round_over(&mut self) -> Option<RoundOver> {
        let g = &mut self.0;
        let res = g.round().result().copied()?;
        let round = g.round_number() as u32;
        let points = [
            res.points(thud::Seat::First),
            res.points(thud::Seat::Second),
        ];
        let reason = serde_json::to_value(res.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let outcome = if round == 1 {
            g.next_round().expect("round 1 is over");
            None
        } else {
            let o = g.outcome().expect("both rounds are over");
            let winner = o.winner.map(SeatId::of_thud);
            let (kind, base) = match winner {
                Some(_) => (ResultKind::ThudTotals, 1),
                None => (ResultKind::Draw, 0),
            };
            Some(Outcome {
                winner,
                kind,
                base,
                thud_totals: Some(o.totals),
            })
        };
        Some(RoundOver {
            round,
            reason,
            points,
            outcome,
        })
    }
}
