//! One command's effect on the room: seats, spectators, Ready, seeds,
//! the game's commands, chat, connections, and forfeits.

use super::{Command, Occupant, Out, Room};
use crate::error::RoomError;
use crate::event::{Audience, ChatAuthor, Event, Phase};
use crate::narration::{self, Fact};
use crate::result::EndReason;
use crate::types::{Actor, SeatId};

impl Room {
    pub(super) fn handle(
        &mut self,
        command: &Command,
        actor: &Actor,
        now: u64,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        if matches!(actor, Actor::Bot(_)) && self.paused() {
            return Err(RoomError::Paused);
        }
        // A clock past its deadline is declared by the next tick; until
        // then the seats may not change the game (the timed-out period
        // would otherwise end some other way).
        if self.phase == Phase::Playing
            && !self.paused()
            && self.clocks.as_ref().and_then(|c| c.expire(now)).is_some()
            && self.actor_seat(actor).is_ok()
            && !matches!(
                command,
                Command::Chat { .. } | Command::Connected | Command::Disconnected
            )
        {
            return Err(RoomError::TimeUp);
        }
        // Just after the timeout was declared, the loser's game commands
        // still say why they are refused (`time_up`), not that no game is
        // played.
        if self.phase != Phase::Playing
            && matches!(
                command,
                Command::RollDice
                    | Command::Move { .. }
                    | Command::ThudMove { .. }
                    | Command::Turn { .. }
                    | Command::Resign
                    | Command::Double
                    | Command::Take
                    | Command::Drop
                    | Command::ProposeEnd
                    | Command::AcceptEnd
                    | Command::DeclineEnd
            )
            && let Ok(seat) = self.actor_seat(actor)
            && self.records.last().is_some_and(|r| {
                r.result.reason == EndReason::Timeout && r.result.winner == Some(seat.other())
            })
        {
            return Err(RoomError::TimeUp);
        }
        match command {
            Command::Sit { seat } => self.sit(actor, *seat, out),
            Command::Spectate => {
                let Actor::Player(p) = actor else {
                    return Err(RoomError::AlreadySeated);
                };
                if self.seat_of(p).is_some() {
                    return Err(RoomError::AlreadySeated);
                }
                if !self.spectators.contains(p) {
                    self.spectators.push(p.clone());
                    out.push((Audience::All, Event::SpectatorJoined { player: p.clone() }));
                }
                Ok(())
            }
            Command::StandUp => self.leave_seat(actor, false, out),
            Command::Leave => {
                if let Actor::Player(p) = actor
                    && let Some(i) = self.spectators.iter().position(|s| s == p)
                {
                    self.spectators.remove(i);
                    out.push((Audience::All, Event::SpectatorLeft { player: p.clone() }));
                    return Ok(());
                }
                self.leave_seat(actor, true, out)
            }
            Command::Ready => {
                let seat = self.actor_seat(actor)?;
                match self.phase {
                    Phase::Playing => return Err(RoomError::GameInProgress),
                    Phase::Finished => return Err(RoomError::MatchFinished),
                    Phase::WaitingForPlayer => {}
                }
                if self.seats[seat.index()]
                    .as_ref()
                    .is_some_and(Occupant::ready)
                {
                    return Err(RoomError::AlreadyReady);
                }
                self.next_setup().check()?;
                if let Some(occ) = self.seats[seat.index()].as_mut() {
                    occ.set_ready(true);
                    // Pressing Ready proves presence: no stale grace timer.
                    if let Occupant::Human { deadline, .. } = occ {
                        *deadline = None;
                    }
                }
                out.push((Audience::All, Event::Ready { seat }));
                if self
                    .seats
                    .iter()
                    .all(|s| s.as_ref().is_some_and(Occupant::ready))
                {
                    self.start_game(out)?;
                }
                Ok(())
            }
            Command::SetClientSeed { seed } => {
                let seat = self.actor_seat(actor)?;
                if self.phase == Phase::Playing {
                    return Err(RoomError::SeedLocked);
                }
                self.client_seeds[seat.index()] = seed.clone();
                out.push((
                    Audience::All,
                    Event::ClientSeedSet {
                        seat,
                        seed: seed.clone(),
                    },
                ));
                Ok(())
            }
            Command::RollDice => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.roll(seat, out)
            }
            Command::Move { from, to } => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.step(seat, *from, *to, out)
            }
            Command::ThudMove { notation } => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.thud_move(seat, notation, out)
            }
            Command::Turn { steps } => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.whole_turn(seat, steps, out)
            }
            Command::Resign => {
                let seat = self.actor_seat(actor)?;
                self.playing()?;
                self.forfeit(seat, EndReason::Resigned, out);
                Ok(())
            }
            Command::Double => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.double(seat, out)
            }
            Command::Take => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.take(seat, out)
            }
            Command::Drop => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.drop_double(seat, out)
            }
            Command::ProposeEnd => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.propose_end(seat, out)
            }
            Command::AcceptEnd => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.accept_end(seat, out)
            }
            Command::DeclineEnd => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.decline_end(seat, out)
            }
            Command::Takeback => self.offer_takeback(actor, out),
            Command::AcceptTakeback => self.accept_takeback(actor, out),
            Command::DeclineTakeback => self.decline_takeback(actor, out),
            Command::Rematch => self.offer_rematch(actor, out),
            Command::DeclineRematch => self.decline_rematch(actor, out),
            Command::Chat { text } => {
                let Actor::Player(p) = actor else {
                    return Err(RoomError::NotSeated);
                };
                if self.seat_of(p).is_none() && !self.spectators.contains(p) {
                    return Err(RoomError::NotSeated);
                }
                let text = text.trim();
                if text.is_empty() {
                    return Err(RoomError::ChatEmpty);
                }
                if text.chars().count() > self.config.chat_max_chars {
                    return Err(RoomError::ChatTooLong {
                        max: self.config.chat_max_chars,
                    });
                }
                out.push((
                    Audience::All,
                    Event::Chat {
                        from: ChatAuthor::Player(p.clone()),
                        text: text.to_string(),
                        narration: None,
                    },
                ));
                Ok(())
            }
            Command::Disconnected => {
                let seat = match actor {
                    Actor::Player(p) => match self.seat_of(p) {
                        Some(s) => s,
                        None => {
                            if let Some(i) = self.spectators.iter().position(|s| s == p) {
                                self.spectators.remove(i);
                                out.push((
                                    Audience::All,
                                    Event::SpectatorLeft { player: p.clone() },
                                ));
                            }
                            return Ok(());
                        }
                    },
                    Actor::Bot(_) => return Err(RoomError::NotSeated),
                };
                // A correspondence game is played over days, in and out
                // of the app: leaving it is neither a disconnection nor a
                // pause, and a seat taken before the game keeps its player
                // until he stands up. Only the clock decides.
                if self.correspondence() {
                    return Ok(());
                }
                if self.phase == Phase::Playing {
                    let against_bot = self.bot_in(seat.other()).is_some();
                    let deadline = now.saturating_add(self.config.grace_ms);
                    if let Some(Occupant::Human {
                        deadline: d, away, ..
                    }) = &mut self.seats[seat.index()]
                    {
                        if against_bot && self.config.pause_vs_bot {
                            // Seed 001: the game waits for him, the bot
                            // with it; no grace, no forfeit.
                            if !*away {
                                *away = true;
                                *d = None;
                                out.push((Audience::All, Event::GamePaused { seat, since: now }));
                            }
                        } else if d.is_none() {
                            *d = Some(deadline);
                            out.push((Audience::All, Event::PlayerDisconnected { seat, deadline }));
                        }
                    }
                    Ok(())
                } else {
                    self.free_seat(seat, out);
                    Ok(())
                }
            }
            Command::Connected => {
                let seat = self.actor_seat(actor)?;
                if let Some(Occupant::Human { deadline, away, .. }) = &mut self.seats[seat.index()]
                    && (deadline.is_some() || *away)
                {
                    *deadline = None;
                    *away = false;
                    out.push((Audience::All, Event::PlayerReconnected { seat }));
                }
                Ok(())
            }
        }
    }

    fn sit(&mut self, actor: &Actor, seat: Option<SeatId>, out: &mut Out) -> Result<(), RoomError> {
        let Actor::Player(p) = actor else {
            return Err(RoomError::AlreadySeated);
        };
        if self.seat_of(p).is_some() {
            return Err(RoomError::AlreadySeated);
        }
        // Seats kept for named players: to anyone else the room is full.
        if self
            .config
            .players
            .as_ref()
            .is_some_and(|named| !named.contains(p))
        {
            return Err(RoomError::RoomFull);
        }
        match self.phase {
            Phase::Finished => return Err(RoomError::MatchFinished),
            Phase::Playing => return Err(RoomError::GameInProgress),
            Phase::WaitingForPlayer => {}
        }
        let seat = match seat {
            Some(s) if self.seats[s.index()].is_some() => return Err(RoomError::SeatTaken(s)),
            Some(s) => s,
            None => SeatId::BOTH
                .into_iter()
                .find(|s| self.seats[s.index()].is_none())
                .ok_or(RoomError::RoomFull)?,
        };
        self.spectators.retain(|s| s != p);
        self.seats[seat.index()] = Some(Occupant::Human {
            player: p.clone(),
            ready: false,
            deadline: None,
            away: false,
        });
        out.push((
            Audience::All,
            Event::SeatTaken {
                seat,
                player: p.clone(),
            },
        ));
        Ok(())
    }

    fn free_seat(&mut self, seat: SeatId, out: &mut Out) {
        if matches!(self.seats[seat.index()], Some(Occupant::Human { .. })) {
            self.call_off_rematch(seat, out);
        }
        if let Some(Occupant::Human { player, .. }) = self.seats[seat.index()].take() {
            out.push((Audience::All, Event::SeatFreed { seat, player }));
        }
    }

    fn leave_seat(&mut self, actor: &Actor, leaving: bool, out: &mut Out) -> Result<(), RoomError> {
        let Actor::Player(_) = actor else {
            return Err(RoomError::NotSeated);
        };
        let seat = self.actor_seat(actor)?;
        if self.phase == Phase::Playing && self.bot_replaces(seat, out) {
            self.after(out);
            return Ok(());
        }
        if self.phase == Phase::Playing {
            let reason = if leaving {
                EndReason::Disconnected
            } else {
                EndReason::StoodUp
            };
            self.forfeit(seat, reason, out);
            self.after(out);
        }
        self.free_seat(seat, out);
        Ok(())
    }

    /// With [`RoomConfig::replace_leaver`], a bot takes `seat` from the
    /// player leaving it mid-game; false (nothing done) otherwise.
    pub(super) fn bot_replaces(&mut self, seat: SeatId, out: &mut Out) -> bool {
        let Some(level) = self.config.replace_leaver else {
            return false;
        };
        if !matches!(self.seats[seat.index()], Some(Occupant::Human { .. })) {
            return false;
        }
        let bot = Occupant::Bot { level, ready: true };
        if let Some(Occupant::Human { player, .. }) = self.seats[seat.index()].replace(bot) {
            out.push((Audience::All, Event::SeatFreed { seat, player }));
        }
        out.push((Audience::All, Event::BotSeated { seat, level }));
        narration::arbiter(out, Fact::BotTookSeat { seat, level });
        true
    }

    /// `seat` loses the game now (resign, stand up, leave, disconnect).
    pub(super) fn forfeit(&mut self, seat: SeatId, reason: EndReason, out: &mut Out) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        if game.resign(seat, reason).is_err() {
            return;
        }
        if reason == EndReason::Disconnected {
            out.push((Audience::Seat(seat.other()), narration::opponent_left(seat)));
        }
    }
}
