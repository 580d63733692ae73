//! A rematch after a finished match between two people: each asks
//! (`rematch`); when both have, a new match starts in the same room with
//! the same options and the players' seats swapped, so the colours swap
//! (who was White — seat A — plays Black). A seat freed while an offer is
//! open (stand up, leave, a dropped connection between games), or a
//! `declineRematch`, calls it off.
//!
//! Swapping the seats, rather than the colours of the seats, keeps every
//! rule of the room as it is: seat A is White (Thud!: the first player) in
//! every game, the records and statistics name seats as before, and each
//! player's statistics follow him to his new seat. The game number counts
//! on (game 2 of the room is the rematch's first game), so each game has
//! its own server seed and record.

use super::{Occupant, Out, Room};
use crate::error::RoomError;
use crate::event::{Audience, Event, Phase};
use crate::types::{Actor, PlayerId, SeatId};

impl Room {
    /// `rematch`: `actor` asks; the new match starts when both have.
    pub(super) fn offer_rematch(&mut self, actor: &Actor, out: &mut Out) -> Result<(), RoomError> {
        let seat = self.rematch_seat(actor)?;
        if self.phase != Phase::Finished {
            return Err(RoomError::MatchNotFinished);
        }
        let [Some(a), Some(b)] = self.human_players() else {
            return Err(RoomError::NoOpponent);
        };
        if self.rematch[seat.index()] {
            return Err(RoomError::RematchAlreadyOffered);
        }
        self.next_setup().check()?;
        self.rematch[seat.index()] = true;
        out.push((Audience::All, Event::RematchOffered { seat }));
        if self.rematch == [true, true] {
            self.start_rematch([b, a], out)?;
        }
        Ok(())
    }

    /// `declineRematch`: `actor` declines the offer, or withdraws his own.
    pub(super) fn decline_rematch(
        &mut self,
        actor: &Actor,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        let seat = self.rematch_seat(actor)?;
        if self.phase != Phase::Finished {
            return Err(RoomError::MatchNotFinished);
        }
        if self.rematch == [false, false] {
            return Err(RoomError::NoRematchOffered);
        }
        self.call_off_rematch(seat, out);
        Ok(())
    }

    /// A seat is being freed: an open offer is off (`rematchDeclined` by
    /// that seat).
    pub(super) fn call_off_rematch(&mut self, seat: SeatId, out: &mut Out) {
        if self.rematch != [false, false] {
            self.rematch = [false, false];
            out.push((Audience::All, Event::RematchDeclined { seat }));
        }
    }

    /// The asker's seat: a seated person, in a room without a bot.
    fn rematch_seat(&self, actor: &Actor) -> Result<SeatId, RoomError> {
        let Actor::Player(_) = actor else {
            return Err(RoomError::RematchWithBot);
        };
        let seat = self.actor_seat(actor)?;
        let bot_room = self.config.bot.is_some()
            || self
                .seats
                .iter()
                .any(|s| matches!(s, Some(Occupant::Bot { .. })));
        if bot_room {
            return Err(RoomError::RematchWithBot);
        }
        Ok(seat)
    }

    /// The people in seats A and B.
    fn human_players(&self) -> [Option<PlayerId>; 2] {
        SeatId::BOTH.map(|s| self.player_in(s).cloned())
    }

    /// Both asked: the new match, `players` in seats A and B.
    fn start_rematch(&mut self, players: [PlayerId; 2], out: &mut Out) -> Result<(), RoomError> {
        self.rematch = [false, false];
        self.seats.swap(0, 1);
        // A client seed is its player's: it moves with him.
        self.client_seeds.swap(0, 1);
        for occ in self.seats.iter_mut().flatten() {
            // Asking is pressing Ready, and proves presence.
            occ.set_ready(true);
            if let Occupant::Human { deadline, away, .. } = occ {
                *deadline = None;
                *away = false;
            }
        }
        self.score = [0, 0];
        self.crawford_now = false;
        self.crawford_done = false;
        self.match_number += 1;
        out.push((
            Audience::All,
            Event::RematchStarted {
                match_number: self.match_number,
                players,
            },
        ));
        self.start_game(out)
    }
}
