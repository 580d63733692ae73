//! The bot's notices a room causes (issue 44): decided here, from the
//! written events and who is connected, and queued by the actor
//! ([`Effect::Notify`]) under an id made from the event's version, so a
//! node that takes the room over and decides again queues nothing twice.
//!
//! A player gets a notice only about a room he is not connected to (he is
//! not looking at it), only as a Telegram player (`tg:`), and about games
//! between people, except the one game against the computer he left
//! (a day on). Whether he started the bot and wants that kind is the
//! sender's business ([`crate::telegram::sender`]).

use tabula_room::{Envelope, Event, PlayerId, SeatId};

use super::{Effect, RoomHost};
use crate::telegram::notice::{Notice, NoticeKind, Outcome, Queued, telegram_user};

/// A game against the computer left by its player is announced once, this
/// long after he left it (ms).
pub const BOT_GAME_WAITING_AFTER_MS: u64 = 86_400_000;

impl<T> RoomHost<T> {
    /// Whether notices are wanted for `player`: notices on, a Telegram
    /// player, not connected to this room.
    fn away(&self, player: &PlayerId) -> bool {
        self.config.notify
            && telegram_user(&player.0).is_some()
            && !self.by_player.contains_key(player)
    }

    /// Both seats held by people.
    fn between_people(&self) -> bool {
        SeatId::BOTH
            .iter()
            .all(|s| self.room.player_in(*s).is_some() && self.room.bot_in(*s).is_none())
    }

    /// Queues `kind` for the player in `seat` if he is away; `fill` adds
    /// what the kind needs beyond the common fields.
    fn notice(
        &self,
        kind: NoticeKind,
        id: String,
        seat: SeatId,
        due_ms: u64,
        fill: impl FnOnce(&mut Notice),
        fx: &mut Vec<Effect<T>>,
    ) {
        let Some(player) = self.room.player_in(seat) else {
            return;
        };
        if !self.away(player) {
            return;
        }
        let mut notice = Notice {
            kind,
            player: player.0.clone(),
            room: self.id.clone(),
            game: self.room.config().options.game,
            opponent: self.room.player_in(seat.other()).map(|p| p.0.clone()),
            caused_ms: self.room.last_input_at(),
            outcome: None,
            paused_at: None,
            due_ms,
            attempts: 0,
            quiet_claimed: false,
        };
        fill(&mut notice);
        fx.push(Effect::Notify(Box::new(Queued { id, notice })));
    }

    /// The notices one written event causes.
    pub(super) fn notice_event(&self, env: &Envelope, fx: &mut Vec<Effect<T>>) {
        if !self.config.notify {
            return;
        }
        let now = self.room.last_input_at();
        let v = env.version;
        let room = &self.id;
        match &*env.event {
            Event::TurnStarted { seat, .. } | Event::OpeningRoll { starter: seat, .. }
                if self.between_people() =>
            {
                self.notice(
                    NoticeKind::YourTurn,
                    turn_id(room, v),
                    *seat,
                    now,
                    |_| {},
                    fx,
                );
            }
            Event::DoubleOffered { seat, .. } if self.between_people() => {
                let to = seat.other();
                self.notice(NoticeKind::YourTurn, turn_id(room, v), to, now, |_| {}, fx);
            }
            Event::RematchOffered { seat } if self.between_people() => {
                let id = format!("rematch:{room}:{v}");
                self.notice(NoticeKind::Rematch, id, seat.other(), now, |_| {}, fx);
            }
            // The second person sat down: the first one's invite was taken.
            Event::SeatTaken { seat, .. } if self.between_people() => {
                let id = format!("taken:{room}:{v}");
                self.notice(NoticeKind::InviteTaken, id, seat.other(), now, |_| {}, fx);
            }
            Event::GameEnded {
                result,
                game_number,
                ..
            } if self.between_people() => {
                for seat in SeatId::BOTH {
                    let id = format!("ended:{room}:{game_number}:{}", seat.index());
                    let outcome = match result.winner {
                        None => Outcome::Drawn,
                        Some(w) if w == seat => Outcome::Won,
                        Some(_) => Outcome::Lost,
                    };
                    let fill = |n: &mut Notice| n.outcome = Some((outcome, *game_number));
                    self.notice(NoticeKind::GameEnded, id, seat, now, fill, fx);
                }
            }
            // A challenge's match is over: its message in the chat shows
            // the result (whoever is connected).
            Event::MatchOver { winner, .. } if self.room.config().players.is_some() => {
                let first = winner.unwrap_or(SeatId::A);
                let (Some(w), Some(l)) = (
                    self.room.player_in(first),
                    self.room.player_in(first.other()),
                ) else {
                    return;
                };
                let notice = Notice {
                    kind: NoticeKind::ChallengeOver,
                    player: w.0.clone(),
                    room: self.id.clone(),
                    game: self.room.config().options.game,
                    opponent: Some(l.0.clone()),
                    caused_ms: now,
                    outcome: Some((
                        if winner.is_some() {
                            Outcome::Won
                        } else {
                            Outcome::Drawn
                        },
                        self.room.game_number(),
                    )),
                    paused_at: None,
                    due_ms: now,
                    attempts: 0,
                    quiet_claimed: false,
                };
                let id = format!("challenge:{room}:{}", self.room.match_number());
                fx.push(Effect::Notify(Box::new(Queued { id, notice })));
            }
            Event::GamePaused { seat, since } => {
                let id = format!("waiting:{room}:{since}");
                let due = since.saturating_add(BOT_GAME_WAITING_AFTER_MS);
                let fill = |n: &mut Notice| {
                    n.opponent = None;
                    n.paused_at = Some(*since);
                };
                self.notice(NoticeKind::BotGameWaiting, id, *seat, due, fill, fx);
            }
            _ => {}
        }
    }

    /// `player` is gone from the room (his socket left, or he did not come
    /// back after a takeover): if the game between people waits for him,
    /// "your turn", under the id of the event that gave him the turn (the
    /// same id as when it was written, so it is queued once).
    pub(super) fn notice_if_his_turn(&self, player: &PlayerId, fx: &mut Vec<Effect<T>>) {
        if !self.config.notify || !self.between_people() {
            return;
        }
        let Some(seat) = self.room.seat_of(player) else {
            return;
        };
        let Some((to_act, _)) = self.room.game().and_then(|g| g.to_act()) else {
            return;
        };
        if to_act != seat {
            return;
        }
        // The latest event that gave him the turn, among those the room
        // keeps (a turn is a few dozen events; the room keeps 128).
        let v = self
            .room
            .log()
            .iter()
            .rev()
            .find(|e| match &*e.event {
                Event::TurnStarted { seat: s, .. } | Event::OpeningRoll { starter: s, .. } => {
                    *s == seat
                }
                Event::DoubleOffered { seat: s, .. } => s.other() == seat,
                _ => false,
            })
            .map(|e| e.version);
        let Some(v) = v else {
            return;
        };
        let now = self.room.last_input_at();
        let id = turn_id(&self.id, v);
        self.notice(NoticeKind::YourTurn, id, seat, now, |_| {}, fx);
    }
}

/// A "your turn"'s id: the room and the version of the event that gave
/// the turn.
pub fn turn_id(room: &str, version: u64) -> String {
    format!("turn:{room}:{version}")
}
