//! Fan-out of written events, and what follows them: records and stats
//! for the store, the room's timer, the bot that must act next.

use tabula_protocol::http::UnfinishedGame;
use tabula_protocol::{EventText, ServerMsg};
use tabula_room::{Actor, BotNeed, Command, Event, Phase, PlayerId, SeatId};

use super::{Count, Effect, Lifecycle, RoomHost, Think, Timer, Unsent};
use crate::bot::BotInput;
use crate::route::{OutItem, Outbound};

impl<T> RoomHost<T> {
    /// Queues the finished game `rec` for the durable store.
    pub(super) fn archive(&self, rec: &tabula_room::GameRecord, fx: &mut Vec<Effect<T>>) {
        let q = crate::archiver::QueuedGame::of(&self.id, &self.room, rec);
        match serde_json::to_string(&q) {
            Ok(entry) => fx.push(Effect::Archive {
                key: q.key(),
                entry,
            }),
            Err(e) => tracing::error!(room = %self.id, error = %e, "finished game not serialised"),
        }
    }

    /// Written events to every connection (one batch each), the host's
    /// own events (records, stats), and the origin's answer.
    pub(super) fn dispatch(&mut self, u: Unsent, fx: &mut Vec<Effect<T>>) {
        let Unsent { envs, origin, .. } = u;
        // A game that ended in this batch goes to the durable store's
        // queue before any of its events reach a socket: the actor carries
        // out [`Effect::Archive`] before the effects after it, so nobody
        // sees `gameEnded` of a game a crash could still lose.
        if self.config.archive
            && envs.iter().any(|e| matches!(*e.event, Event::Stats { .. }))
            && let Some(rec) = self.room.records().last()
        {
            self.archive(rec, fx);
        }
        // Each event is serialised once for all the sockets (only `seq`
        // and the audience differ between them), here on the room's
        // thread; the sessions just write the texts.
        let mut texts: Vec<EventText<'_>> = envs.iter().map(EventText::new).collect();
        for (&id, c) in &self.conns {
            if let Some(o) = origin
                && o.conn == id
                && o.state_instead
            {
                continue;
            }
            let seq = origin.filter(|o| o.conn == id).and_then(|o| o.seq);
            let viewer = self.viewer(&c.player);
            let batch: Vec<OutItem> = texts
                .iter_mut()
                .filter_map(|t| t.render(viewer, seq).map(OutItem::from))
                .collect();
            if !batch.is_empty() {
                fx.push(Effect::Send {
                    conn: id,
                    out: Outbound::Batch(batch),
                });
            } else if seq.is_some() {
                // Every command is answered: none of its events is the
                // sender's to see, so an `ack`.
                fx.push(Effect::Send {
                    conn: id,
                    out: Outbound::Msg(Box::new(ServerMsg::Ack {
                        seq,
                        version: envs.last().map_or(0, |e| e.version),
                        duplicate: false,
                    })),
                });
            }
        }
        drop(texts);
        for env in &envs {
            self.host_event(&env.event, fx);
            self.notice_event(env, fx);
        }
        if let Some(o) = origin {
            if o.state_instead {
                self.catch_up(o.conn, o.resume_from, fx);
            }
            fx.push(Effect::Latency(o.received));
        }
    }

    /// After written events went out: the room's timer, and a bot.
    pub(super) fn after_dispatch(&mut self, fx: &mut Vec<Effect<T>>) {
        self.list_correspondence(fx);
        self.reschedule(fx);
        self.maybe_bot(fx);
    }

    fn host_event(&self, event: &Event, fx: &mut Vec<Effect<T>>) {
        match event {
            // Seed 001: the game against the computer waits for its player;
            // the lobby lists it for "Continue".
            Event::GamePaused { seat, since } => {
                if let Some(player) = self.room.player_in(*seat) {
                    let v = self.room.view();
                    fx.push(Effect::Unfinished {
                        player: player.clone(),
                        game: Some(Box::new(UnfinishedGame {
                            room_id: self.id.to_string(),
                            game: v.game,
                            bot: self.room.bot_in(seat.other()),
                            your_seat: *seat,
                            match_length: v.match_length,
                            score: v.score,
                            game_number: v.game_number,
                            board: v.board,
                            paused_at: *since,
                            time_control: None,
                            turn: None,
                            deadline: None,
                            opponent: None,
                        })),
                    });
                }
            }
            Event::Stats { players, .. } => {
                // The game that just ended was queued for the durable
                // store before the batch went out ([`RoomHost::dispatch`]).
                for d in players {
                    if let Some(p) = &d.player {
                        fx.push(Effect::RecordStats {
                            player: p.clone(),
                            delta: d.clone(),
                        });
                    }
                }
            }
            Event::GameEnded {
                result,
                game_number,
                ..
            } => {
                // The finished game's record goes to the store, so any
                // node can serve it.
                if let Some(rec) = self.room.records().last()
                    && let Ok(json) = serde_json::to_string(rec)
                {
                    fx.push(Effect::SaveRecord {
                        game_number: *game_number,
                        json,
                    });
                }
                let kind = serde_json::to_value(result.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                tracing::info!(room = %self.id, kind = %kind, winner = ?result.winner, "game finished");
                fx.push(Effect::Count(Count::GameFinished(kind)));
                // The match against a bot is over: nothing to continue.
                if self.room.phase() == Phase::Finished {
                    for seat in SeatId::BOTH {
                        if let Some(player) = self.room.player_in(seat)
                            && self.room.bot_in(seat.other()).is_some()
                        {
                            fx.push(Effect::Unfinished {
                                player: player.clone(),
                                game: None,
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The full state, or the events after `from` when they can be
    /// replayed (a re-join after a re-route), to one connection.
    pub(super) fn catch_up(&self, conn: u64, from: Option<u64>, fx: &mut Vec<Effect<T>>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        match from.and_then(|v| self.missed(&c.player, v)) {
            Some(items) if items.is_empty() => {}
            Some(items) => fx.push(Effect::Send {
                conn,
                out: Outbound::Batch(items),
            }),
            None => self.send(conn, self.state_msg(&c.player), fx),
        }
    }

    /// The events after `version` as this player's messages, or `None`
    /// when they cannot be replayed (`version` is ahead of the room, or
    /// behind the last [`tabula_room::EVENT_LOG_KEEP`] events the room
    /// keeps) and a full state is due.
    pub(super) fn missed(&self, player: &PlayerId, version: u64) -> Option<Vec<OutItem>> {
        let missed = self.room.events_since(version)?;
        let viewer = self.viewer(player);
        Some(
            missed
                .filter_map(|e| EventText::new(e).render(viewer, None).map(OutItem::from))
                .collect(),
        )
    }

    /// The room's timer: at its next deadline, or none.
    pub(super) fn reschedule(&self, fx: &mut Vec<Effect<T>>) {
        fx.push(match self.room.next_deadline() {
            Some(at) => Effect::Set {
                timer: Timer::Room,
                at,
            },
            None => Effect::Cancel(Timer::Room),
        });
    }

    /// The room's timer fired for `deadline`.
    pub fn tick(&mut self, deadline: u64, now: u64, fx: &mut Vec<Effect<T>>) {
        if !self.life.owns() {
            return;
        }
        let envs = self.room.tick(now.max(deadline));
        self.commit(envs, None, fx);
    }

    /// Thinks for the bot that must act ([`tabula_room::Room::bot_request`]),
    /// unless one is thinking already or the room cannot write.
    pub(super) fn maybe_bot(&mut self, fx: &mut Vec<Effect<T>>) {
        if self.bot_busy || self.life != Lifecycle::Serving {
            return;
        }
        let Some(req) = self.room.bot_request() else {
            return;
        };
        self.bot_busy = true;
        let seed = self.id.bytes().fold(req.seat.index() as u64, |h, b| {
            h.wrapping_mul(31).wrapping_add(u64::from(b))
        });
        fx.push(Effect::Think(Box::new(Think {
            seat: req.seat,
            level: req.level,
            need: req.need,
            fallback: self.bot_failures >= 3,
            seed,
            input: BotInput {
                seat: req.seat,
                need: req.need,
                game: self.room.game().cloned(),
                moves: self.room.moves_view(),
            },
        })));
    }

    /// A bot's answer to the [`Think`] for `seat` and `need` (`None`: the
    /// brain failed). Its commands are applied, as anyone's, if the room
    /// still asks that of it, and written in one go (every step of a turn).
    /// Three failures in a row switch the seat to the fallback brain.
    pub fn bot_answered(
        &mut self,
        seat: SeatId,
        need: BotNeed,
        cmds: Option<Vec<Command>>,
        now: u64,
        fx: &mut Vec<Effect<T>>,
    ) {
        self.bot_busy = false;
        if !self.life.owns() {
            return;
        }
        let Some(cmds) = cmds else {
            self.bot_failures += 1;
            return;
        };
        if self.room.bot_request().map(|r| (r.seat, r.need)) != Some((seat, need)) {
            self.maybe_bot(fx);
            return;
        }
        let mut failed = cmds.is_empty();
        let mut accepted = Vec::new();
        for c in cmds {
            match self.room.apply(c.clone(), Actor::Bot(seat), now) {
                Ok(envs) => accepted.extend(envs),
                Err(e) => {
                    tracing::warn!(room = %self.id, ?seat, command = ?c, error = %e, "bot command refused");
                    failed = true;
                    break;
                }
            }
        }
        if !accepted.is_empty() {
            self.commit(accepted, None, fx);
        }
        if failed {
            self.bot_failures += 1;
        } else {
            self.bot_failures = 0;
        }
        self.maybe_bot(fx);
    }
}
