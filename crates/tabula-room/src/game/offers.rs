//! What one player offers and the other answers, as [`Game`]'s methods:
//! the cube (double, take, drop), a Thud! round's end by agreement, and a
//! take-back of the turn being played.

use super::Game;
use super::{Action, Board, Engine, MAX_CUBE, Out, Outcome, Stage};
use crate::error::RoomError;
use crate::event::{Audience, Event};
use crate::result::{EndReason, ResultKind};
use crate::types::SeatId;

impl Game {
    /// `seat` offers a double.
    pub(crate) fn double(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        if !self.cube.enabled {
            return Err(RoomError::NoCube);
        }
        if let Stage::CubeOffered(_) = self.stage {
            return Err(RoomError::DoublePending);
        }
        if self.stage != Stage::AwaitRoll(seat) {
            return Err(RoomError::NotTimeToDouble);
        }
        if self.cube.owner.is_some_and(|o| o != seat) {
            return Err(RoomError::NotYourCube);
        }
        if self.cube.value >= MAX_CUBE {
            return Err(RoomError::CubeAtMaximum);
        }
        self.actions.push(Action::Double { seat });
        self.stage = Stage::CubeOffered(seat);
        out.push((
            Audience::All,
            Event::DoubleOffered {
                seat,
                value: self.cube.value * 2,
            },
        ));
        Ok(())
    }

    fn offer_to(&self, seat: SeatId) -> Result<SeatId, RoomError> {
        match self.stage {
            Stage::CubeOffered(by) if by.other() == seat => Ok(by),
            Stage::CubeOffered(_) => Err(RoomError::NotYourTurn),
            _ => Err(RoomError::NoDoublePending),
        }
    }

    /// `seat` takes the pending double.
    pub(crate) fn take(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let by = self.offer_to(seat)?;
        self.actions.push(Action::Take { seat });
        self.cube.value *= 2;
        self.cube.owner = Some(seat);
        out.push((
            Audience::All,
            Event::DoubleTaken {
                seat,
                value: self.cube.value,
            },
        ));
        self.await_roll(by, out);
        Ok(())
    }

    /// `seat` drops the pending double: the doubler wins at the current
    /// cube value.
    pub(crate) fn drop_double(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let by = self.offer_to(seat)?;
        self.actions.push(Action::Drop { seat });
        out.push((Audience::All, Event::DoubleDropped { seat }));
        self.update_borne_off();
        self.finish(Outcome::won(by, ResultKind::Drop, 1), EndReason::Dropped);
        Ok(())
    }

    /// Thud!: `seat` proposes to end the round.
    pub(crate) fn propose_end(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        self.own_turns()?;
        engine!(&mut self.board, e => e.propose_end(seat))?;
        self.actions.push(Action::ProposeEnd { seat });
        out.push((Audience::All, Event::EndProposed { seat }));
        Ok(())
    }

    /// Thud!: `seat` accepts the other's proposal.
    pub(crate) fn accept_end(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        self.own_turns()?;
        engine!(&mut self.board, e => e.accept_end(seat))?;
        self.actions.push(Action::AcceptEnd { seat });
        self.after_own_move(out);
        Ok(())
    }

    /// Thud!: `seat` declines (or withdraws) the proposal.
    pub(crate) fn decline_end(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        self.own_turns()?;
        engine!(&mut self.board, e => e.decline_end(seat))?;
        self.actions.push(Action::DeclineEnd { seat });
        out.push((Audience::All, Event::EndDeclined { seat }));
        Ok(())
    }

    /// How many actions a takeback by `seat` keeps: those up to the roll
    /// that began his last turn (or the opening roll that played as it),
    /// so he plays that roll again. `None` unless his turn is the last
    /// thing done: he played at least one step (a Thud! move), it ended
    /// his turn, the game goes on, and the other side has done nothing
    /// since (no roll, no double, no move, no proposal).
    pub(crate) fn takeback_point(&self, seat: SeatId) -> Option<usize> {
        if self.result.is_some() {
            return None;
        }
        match self.stage {
            Stage::AwaitRoll(s) if s == seat.other() => {
                let steps = self
                    .actions
                    .iter()
                    .rev()
                    .take_while(|a| matches!(a, Action::Step { seat: s, .. } if *s == seat))
                    .count();
                let k = self.actions.len() - steps;
                match self.actions.get(k.checked_sub(1)?) {
                    _ if steps == 0 => None,
                    Some(Action::Roll { seat: s, .. }) if *s == seat => Some(k),
                    Some(Action::Opening {
                        starter,
                        first_roll: Some(_),
                        ..
                    }) if *starter == seat => Some(k),
                    _ => None,
                }
            }
            Stage::OwnTurns => match self.actions.last() {
                Some(Action::ThudMove { seat: s, .. })
                    if *s == seat && self.to_act().is_some_and(|(w, _)| w == seat.other()) =>
                {
                    Some(self.actions.len() - 1)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `seat` takes back his last turn ([`Game::takeback_point`]): the
    /// game is played again from its setup up to that point, so the board,
    /// the dice, the cube and the summary are exactly what they were then.
    /// Pushes the `possibleMoves` of the roll he plays again (a dice game).
    pub(crate) fn take_back(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let k = self
            .takeback_point(seat)
            .ok_or(RoomError::NothingToTakeBack)?;
        let mut scratch = Out::new();
        let mut g = Game::start(&self.setup, &mut scratch)?;
        for a in &self.actions[..k] {
            g.replay(a, &mut scratch)?;
        }
        if let Some(m) = scratch
            .into_iter()
            .rev()
            .find(|(_, e)| matches!(e, Event::PossibleMoves { .. }))
        {
            out.push(m);
        }
        *self = g;
        Ok(())
    }
}
