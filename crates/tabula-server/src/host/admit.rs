//! Admission: what the host does with a join, a command, a `resume` and
//! a detach (see [`super`] for when each is refused; `hint` is in
//! `hints.rs`).

use std::time::Instant;

use tabula_protocol::{ErrorCode, ServerMsg, room_error_code};
use tabula_room::{Actor, Command, PlayerId, SeatId};

use super::{Conn, Count, Effect, Lifecycle, Origin, RoomHost};
use crate::route::Outbound;

/// A socket enters the room (`join`).
#[derive(Debug)]
pub struct JoinReq<T> {
    /// The connection.
    pub conn: u64,
    /// The player.
    pub player: PlayerId,
    /// Its sender.
    pub tx: T,
    /// The seat wanted.
    pub seat: Option<SeatId>,
    /// Watch only.
    pub spectate: bool,
    /// The client's seq.
    pub seq: Option<u64>,
    /// A re-join after a re-route: the last version the client saw.
    pub resume_from: Option<u64>,
    /// When the frame arrived.
    pub received: Instant,
}

impl<T> RoomHost<T> {
    /// A join. `false` when the room refused it (the joiner was told why);
    /// a room that is not the owner any more re-routes the joiner, which
    /// is not a refusal: it finds the room's next owner and joins there.
    pub fn join(&mut self, j: JoinReq<T>, now: u64, fx: &mut Vec<Effect<T>>) -> bool {
        if !self.life.owns() {
            fx.push(Effect::Last {
                tx: j.tx,
                out: Outbound::Reroute,
            });
            return true;
        }
        let actor = Actor::Player(j.player.clone());
        let res = if self.room.seat_of(&j.player).is_some() {
            self.room.apply(Command::Connected, actor, now)
        } else if j.spectate {
            self.room.apply(Command::Spectate, actor, now)
        } else {
            self.room.apply(Command::Sit { seat: j.seat }, actor, now)
        };
        let outcome = match &res {
            Ok(_) => "accepted",
            Err(e) => room_error_code(e).as_str(),
        };
        fx.push(Effect::Count(Count::Command {
            kind: "join",
            outcome,
        }));
        let envs = match res {
            Err(e) => {
                let msg = ServerMsg::error(room_error_code(&e), e.to_string(), j.seq);
                fx.push(Effect::Last {
                    tx: j.tx,
                    out: Outbound::Msg(Box::new(msg)),
                });
                return false;
            }
            Ok(envs) => envs,
        };
        if let Some(old) = self.by_player.insert(j.player.clone(), j.conn)
            && old != j.conn
            && let Some(c) = self.conns.remove(&old)
        {
            self.cancel_hint(old, fx);
            fx.push(Effect::Last {
                tx: c.tx,
                out: Outbound::Close("replaced by a newer connection for the same player".into()),
            });
        }
        self.conns.insert(
            j.conn,
            Conn {
                player: j.player,
                tx: j.tx,
            },
        );
        self.idle_since = None;
        if self.idle_armed {
            self.idle_armed = false;
            fx.push(Effect::Cancel(super::Timer::Idle));
        }
        let origin = Origin {
            conn: j.conn,
            seq: j.seq,
            state_instead: true,
            resume_from: j.resume_from,
            received: j.received,
            leaves: false,
        };
        self.commit(envs, Some(origin), fx);
        true
    }

    /// A game command from a joined connection; `kind` is its wire type.
    #[allow(clippy::too_many_arguments)]
    pub fn command(
        &mut self,
        conn: u64,
        seq: Option<u64>,
        command: Command,
        kind: &'static str,
        received: Instant,
        now: u64,
        fx: &mut Vec<Effect<T>>,
    ) {
        let Some(player) = self.conns.get(&conn).map(|c| c.player.clone()) else {
            return;
        };
        let count = |outcome| Effect::Count(Count::Command { kind, outcome });
        match self.life {
            Lifecycle::Serving => {}
            Lifecycle::Unpersisted => {
                fx.push(count("unavailable"));
                let msg = ServerMsg::error(
                    ErrorCode::Unavailable,
                    "the room cannot save moves right now; nothing changed, retry shortly",
                    seq,
                );
                self.send(conn, msg, fx);
                return;
            }
            // Handing off: the sender resends after it re-routes.
            _ => return,
        }
        if let Some(s) = seq
            && self.last_seq.get(&player).is_some_and(|&l| s <= l)
        {
            fx.push(count("duplicate"));
            self.send(conn, self.ack(seq, true), fx);
            return;
        }
        let leaves = matches!(command, Command::Leave);
        match self.room.apply(command, Actor::Player(player.clone()), now) {
            Ok(envs) => {
                fx.push(count("accepted"));
                self.cancel_hint_if_unseated(&player, fx);
                if let Some(s) = seq {
                    self.last_seq.insert(player, s);
                }
                let origin = Origin {
                    conn,
                    seq,
                    state_instead: false,
                    resume_from: None,
                    received,
                    leaves,
                };
                self.commit(envs, Some(origin), fx);
            }
            Err(e) => {
                let code = room_error_code(&e);
                fx.push(count(code.as_str()));
                self.send(conn, ServerMsg::error(code, e.to_string(), seq), fx);
            }
        }
    }

    /// `resume {version}`: the events after `version` and an ack, or the
    /// full state when they cannot be replayed.
    pub fn resume(&mut self, conn: u64, version: u64, seq: Option<u64>, fx: &mut Vec<Effect<T>>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        match self.life {
            Lifecycle::Serving => {}
            Lifecycle::Unpersisted => {
                // The room holds events it has not persisted; replaying
                // them would show moves that may yet be lost.
                let msg = ServerMsg::error(
                    ErrorCode::Unavailable,
                    "the room cannot save moves right now; retry shortly",
                    seq,
                );
                self.send(conn, msg, fx);
                return;
            }
            _ => return,
        }
        match self.missed(&c.player, version) {
            None => self.send(conn, self.state_msg(&c.player), fx),
            Some(items) => {
                if !items.is_empty() {
                    fx.push(Effect::Send {
                        conn,
                        out: Outbound::Batch(items),
                    });
                }
                self.send(conn, self.ack(seq, false), fx);
            }
        }
    }

    /// A socket went away. The player's own latest connection leaving
    /// marks him disconnected (his grace timer starts); the room then
    /// watches for being idle. Handing off, the room is frozen and only
    /// forgets the connection.
    pub fn detach(&mut self, conn: u64, now: u64, fx: &mut Vec<Effect<T>>) {
        let Some(c) = self.forget_conn(conn, now, fx) else {
            return;
        };
        if !self.life.owns() {
            return;
        }
        self.notice_if_his_turn(&c.player, fx);
        if let Ok(envs) = self
            .room
            .apply(Command::Disconnected, Actor::Player(c.player), now)
        {
            self.commit(envs, None, fx);
        }
    }

    /// A socket its node closed for a drain (or for being cut off from
    /// the store): the player is on his way to another node, so he is not
    /// marked disconnected now — a drain is not a disconnection. If he is
    /// not back within the takeover grace, [`RoomHost::grace`] marks him
    /// disconnected then, as after a takeover.
    pub fn detach_for_drain(&mut self, conn: u64, now: u64, fx: &mut Vec<Effect<T>>) {
        let Some(c) = self.forget_conn(conn, now, fx) else {
            return;
        };
        if self.life.owns() && self.room.seat_of(&c.player).is_some() {
            fx.push(Effect::Set {
                timer: super::Timer::Grace,
                at: now + super::ms(self.config.takeover_grace),
            });
        }
    }

    /// A socket went away: its hint is cancelled and the idle watch armed;
    /// the connection, when it was its player's latest (the one that
    /// counts for his presence), else `None`.
    fn forget_conn(&mut self, conn: u64, now: u64, fx: &mut Vec<Effect<T>>) -> Option<Conn<T>> {
        let c = self.conns.remove(&conn)?;
        self.cancel_hint(conn, fx);
        self.watch_idle(now, fx);
        if self.by_player.get(&c.player) != Some(&conn) {
            return None;
        }
        self.by_player.remove(&c.player);
        Some(c)
    }

    /// After a takeover's grace: seated players not connected here are
    /// marked disconnected, as their own node would have done.
    pub fn grace(&mut self, now: u64, fx: &mut Vec<Effect<T>>) {
        if !self.life.owns() {
            return;
        }
        for seat in SeatId::BOTH {
            let Some(p) = self.room.player_in(seat).cloned() else {
                continue;
            };
            if self.by_player.contains_key(&p) {
                continue;
            }
            self.notice_if_his_turn(&p, fx);
            if let Ok(envs) = self
                .room
                .apply(Command::Disconnected, Actor::Player(p), now)
            {
                self.commit(envs, None, fx);
            }
        }
    }
}

impl<T: Clone> RoomHost<T> {
    /// A socket whose `leave` was answered is out of the room: the room
    /// forgets it (it was no disconnection: the player left) and its
    /// session counts it in no room, so the rule that closes sockets idle
    /// in no room applies to it. The answer already pushed for it goes on
    /// its sender itself (the actor finds a `Send`'s sender among the
    /// connections, and it is gone from them), then `Unjoined`.
    pub(super) fn unjoin(&mut self, conn: u64, now: u64, fx: &mut Vec<Effect<T>>) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        for e in fx.iter_mut() {
            if matches!(e, Effect::Send { conn: to, .. } if *to == conn) {
                let last = Effect::Last {
                    tx: c.tx.clone(),
                    out: Outbound::Unjoined,
                };
                if let Effect::Send { out, .. } = std::mem::replace(e, last) {
                    *e = Effect::Last {
                        tx: c.tx.clone(),
                        out,
                    };
                }
            }
        }
        self.cancel_hint(conn, fx);
        if self.by_player.get(&c.player) == Some(&conn) {
            self.by_player.remove(&c.player);
        }
        fx.push(Effect::Last {
            tx: c.tx,
            out: Outbound::Unjoined,
        });
        self.watch_idle(now, fx);
    }
}
