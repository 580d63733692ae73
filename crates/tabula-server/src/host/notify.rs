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

use tabula_protocol::http::UnfinishedGame;
use tabula_room::{Envelope, Event, Phase, PlayerId, SeatId};

use super::{Effect, Listed, RoomHost};
use crate::telegram::notice::{Notice, NoticeKind, Outcome, Queued, telegram_user, time_low_lead};

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
        if self.room.player_in(seat).is_some_and(|p| self.away(p)) {
            self.notice_to(kind, id, seat, due_ms, fill, fx);
        }
    }

    /// Queues `kind` for the Telegram player in `seat`, connected or not.
    fn notice_to(
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
        if !self.config.notify || telegram_user(&player.0).is_none() {
            return;
        }
        let mut notice = Notice {
            opponent: self.room.player_in(seat.other()).map(|p| p.0.clone()),
            ..Notice::new(
                kind,
                player.0.clone(),
                self.id.clone(),
                self.room.config().options.game,
                self.room.last_input_at(),
                due_ms,
            )
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
                self.your_turn(turn_id(room, v), *seat, fx);
                self.time_low(v, *seat, fx);
            }
            Event::DoubleOffered { seat, .. } if self.between_people() => {
                let to = seat.other();
                self.your_turn(turn_id(room, v), to, fx);
                self.time_low(v, to, fx);
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
                    opponent: Some(l.0.clone()),
                    outcome: Some((
                        if winner.is_some() {
                            Outcome::Won
                        } else {
                            Outcome::Drawn
                        },
                        self.room.game_number(),
                    )),
                    ..Notice::new(
                        NoticeKind::ChallengeOver,
                        w.0.clone(),
                        self.id.clone(),
                        self.room.config().options.game,
                        now,
                        now,
                    )
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

    /// A correspondence turn given to `seat` by the event at version `v`:
    /// "little time left", due [`time_low_lead`] before its deadline,
    /// whether he is connected now or not (he may well not be then). The
    /// sender drops it if the turn is over by then: it carries the turn's
    /// start, which the player's listing then no longer shows.
    fn time_low(&self, v: u64, seat: SeatId, fx: &mut Vec<Effect<T>>) {
        let Some(tc) = self.room.config().time_control else {
            return;
        };
        if !tc.is_correspondence() {
            return;
        }
        let Some(r) = self.room.clock().and_then(|c| c.running) else {
            return;
        };
        let (Some(since), Some(deadline)) = (r.since, r.deadline) else {
            return;
        };
        if r.seat != seat {
            return;
        }
        let id = format!("low:{}:{v}", self.id);
        let due = deadline.saturating_sub(time_low_lead(tc.delay_ms));
        let fill = |n: &mut Notice| {
            n.paused_at = Some(since);
            n.deadline_ms = Some(deadline);
        };
        self.notice_to(NoticeKind::TimeLow, id, seat, due, fill, fx);
    }

    /// A correspondence room keeps itself in its players' lists of games
    /// waiting for them (the lobby's "Continue", the bot's `/games`), with
    /// whose turn it is and its deadline: from the first seat taken until
    /// the match is over, written again whenever the seats, the turn or
    /// the game change.
    pub(super) fn list_correspondence(&mut self, fx: &mut Vec<Effect<T>>) {
        if !self.room.correspondence() {
            return;
        }
        let running = self.room.clock().and_then(|c| c.running);
        let players = SeatId::BOTH.map(|s| {
            self.room
                .player_in(s)
                .filter(|_| self.room.bot_in(s).is_none())
                .cloned()
        });
        let finished = self.room.phase() == Phase::Finished;
        let turn = running.as_ref().map(|r| (r.seat, r.since, r.deadline));
        let game_number = self.room.game_number();
        let same = self.listed.as_ref().is_some_and(|l| {
            l.players == players
                && l.turn == turn
                && l.game_number == game_number
                && l.finished == finished
        });
        if same {
            return;
        }
        let now = self.room.last_input_at();
        // Unlisted: whoever left a seat, and everyone once the match is
        // over (a room restored by another node knows nothing of what was
        // listed before).
        let old = self.listed.take();
        let mut gone: Vec<&PlayerId> = old
            .iter()
            .flat_map(|l| l.players.iter().flatten())
            .filter(|p| finished || !players.contains(&Some((*p).clone())))
            .collect();
        if finished {
            gone.extend(players.iter().flatten());
        }
        gone.sort();
        gone.dedup();
        for p in gone {
            fx.push(Effect::Unfinished {
                player: p.clone(),
                game: None,
            });
        }
        let since = turn.and_then(|t| t.1).unwrap_or(now);
        if !finished {
            let v = self.room.view();
            for seat in SeatId::BOTH {
                let Some(p) = &players[seat.index()] else {
                    continue;
                };
                fx.push(Effect::Unfinished {
                    player: p.clone(),
                    game: Some(Box::new(UnfinishedGame {
                        room_id: self.id.clone(),
                        game: v.game,
                        bot: None,
                        your_seat: seat,
                        match_length: v.match_length,
                        score: v.score,
                        game_number: v.game_number,
                        board: v.board.clone(),
                        paused_at: since,
                        time_control: self.room.config().time_control,
                        turn: turn.map(|t| t.0),
                        deadline: turn.and_then(|t| t.2),
                        opponent: players[seat.other().index()].as_ref().map(|o| o.0.clone()),
                    })),
                });
            }
        }
        self.listed = Some(Listed {
            players,
            turn,
            game_number,
            finished,
        });
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
        self.your_turn(turn_id(&self.id, v), seat, fx);
    }

    /// "Your turn" for `seat` if he is away, due now; in a correspondence
    /// game it carries the turn's deadline (its text gives the hours left,
    /// and the queue remembers its id until then).
    fn your_turn(&self, id: String, seat: SeatId, fx: &mut Vec<Effect<T>>) {
        let deadline = self.correspondence_deadline(seat);
        let fill = |n: &mut Notice| n.deadline_ms = deadline;
        let now = self.room.last_input_at();
        self.notice(NoticeKind::YourTurn, id, seat, now, fill, fx);
    }

    /// The deadline of `seat`'s running correspondence turn.
    fn correspondence_deadline(&self, seat: SeatId) -> Option<u64> {
        let tc = self.room.config().time_control?;
        if !tc.is_correspondence() {
            return None;
        }
        let r = self.room.clock()?.running?;
        (r.seat == seat).then_some(r.deadline).flatten()
    }
}

/// A "your turn"'s id: the room and the version of the event that gave
/// the turn.
pub fn turn_id(room: &str, version: u64) -> String {
    format!("turn:{room}:{version}")
}
