//! Takebacks (issue 46): in a casual game between two people, a player
//! who has just played his turn asks to take it back; his opponent
//! accepts, and the game is as it was right after that turn's roll (the
//! same dice, played again), or declines. Never in a rated game, never
//! against the computer.
//!
//! Asked (`takeback`) only for the turn just played, before the opponent
//! acts ([`Game::takeback_point`](crate::game::Game)); once per turn: a
//! declined takeback is not asked again for the same turn. Any action in
//! the game meanwhile (the opponent rolls, doubles or moves; the game
//! ends) lapses it, as if declined by the opponent.

use super::{Occupant, Out, Room};
use crate::error::RoomError;
use crate::event::{Audience, Event, Phase};
use crate::game::Action;
use crate::types::{Actor, SeatId};

impl Room {
    /// Whether takebacks may be asked in this room: casual, two people.
    fn takebacks_allowed(&self) -> bool {
        !self.config.rated
            && self
                .seats
                .iter()
                .all(|s| matches!(s, Some(Occupant::Human { .. })))
    }

    /// Where the match stands: the game's number and its action count
    /// (0 with no game in play).
    fn actions_played(&self) -> (u32, usize) {
        match (&self.phase, &self.game) {
            (Phase::Playing, Some(g)) => (self.game_number, g.actions().len()),
            _ => (self.game_number, 0),
        }
    }

    /// The seat whose takeback waits for an answer.
    pub fn takeback_asked(&self) -> Option<SeatId> {
        self.takeback.map(|(seat, _)| seat)
    }

    /// `takeback`: `actor` asks to take back the turn he just played.
    pub(super) fn offer_takeback(&mut self, actor: &Actor, out: &mut Out) -> Result<(), RoomError> {
        let seat = self.actor_seat(actor)?;
        if !self.takebacks_allowed() {
            return Err(RoomError::TakebackNotAllowed);
        }
        if self.playing()?.takeback_point(seat).is_none() {
            return Err(RoomError::NothingToTakeBack);
        }
        let played = self.actions_played();
        if self.takeback.is_some() {
            return Err(RoomError::TakebackPending);
        }
        if self.takeback_declined == Some((seat, played)) {
            return Err(RoomError::TakebackDeclined);
        }
        self.takeback = Some((seat, played));
        out.push((Audience::All, Event::TakebackOffered { seat }));
        Ok(())
    }

    /// `acceptTakeback`: the opponent of the seat that asked accepts; the
    /// game goes back to that seat's roll.
    pub(super) fn accept_takeback(
        &mut self,
        actor: &Actor,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        let seat = self.actor_seat(actor)?;
        let Some((by, _)) = self.takeback.filter(|(by, _)| *by == seat.other()) else {
            return Err(RoomError::NoTakebackOffered);
        };
        let mut moves = Out::new();
        self.playing()?.take_back(by, &mut moves)?;
        self.takeback = None;
        let game = self.game.as_ref().ok_or(RoomError::GameNotStarted)?;
        out.push((
            Audience::All,
            Event::TakebackAccepted {
                seat: by,
                board: game.board_view(),
                dice: match game.actions().last() {
                    Some(Action::Roll { dice, .. }) => Some(*dice),
                    Some(Action::Opening { first_roll, .. }) => *first_roll,
                    _ => None,
                },
            },
        ));
        out.extend(moves);
        Ok(())
    }

    /// `declineTakeback`: the opponent declines, or the asker withdraws.
    pub(super) fn decline_takeback(
        &mut self,
        actor: &Actor,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        let seat = self.actor_seat(actor)?;
        let Some(asked) = self.takeback else {
            return Err(RoomError::NoTakebackOffered);
        };
        self.takeback = None;
        if asked.0 != seat {
            self.takeback_declined = Some(asked);
        }
        out.push((Audience::All, Event::TakebackDeclined { seat }));
        Ok(())
    }

    /// After every input: a takeback asked before an action in the game
    /// (or the game's end) lapses, declined by the opponent.
    pub(super) fn lapse_takeback(&mut self, out: &mut Out) {
        if let Some((by, played)) = self.takeback
            && self.actions_played() != played
        {
            self.takeback = None;
            out.push((Audience::All, Event::TakebackDeclined { seat: by.other() }));
        }
    }
}
