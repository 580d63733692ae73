//! Persistence planning: every accepted input is written before its
//! events go to anyone; the write's result decides what happens next.
//! Also the two ways a room ends on purpose: the drain's hand-off and the
//! idle unload.
//!
//! A refused write has two meanings. Fenced (another node claimed the
//! room): the room stops at once and tells every socket to re-route.
//! Unavailable (the store is unreachable): the events stay unsent, the
//! write is retried, and new commands are refused with `unavailable` until
//! it succeeds — the room never acknowledges a move it could not keep.

use std::collections::BTreeMap;

use tabula_backplane::{BackplaneError, RoomAppend, StoredRoom};
use tabula_protocol::{ErrorCode, ServerMsg};
use tabula_room::{Envelope, Phase, SeatId};

use super::{
    COMPACT_EVERY, Count, Effect, InFlight, Lifecycle, Origin, RETRY_AFTER_MS, RoomHost, Timer,
    Unsent, Write, ms,
};

impl<T> RoomHost<T> {
    /// Events of an accepted input: written first, sent once the write
    /// succeeds. An input that changed nothing is answered at once.
    pub(super) fn commit(
        &mut self,
        envs: Vec<Envelope>,
        origin: Option<Origin>,
        fx: &mut Vec<Effect<T>>,
    ) {
        if envs.is_empty() {
            if let Some(o) = origin {
                if o.state_instead {
                    self.catch_up(o.conn, o.resume_from, fx);
                } else {
                    self.send(o.conn, self.ack(o.seq, false), fx);
                }
            }
            return;
        }
        if self.life == Lifecycle::Unpersisted
            && let Some(o) = &origin
        {
            self.tell_held(o, fx);
        }
        self.unsent.push(Unsent {
            envs,
            origin,
            upto: self.room.input_count(),
        });
        if self.life == Lifecycle::Serving {
            self.write(fx);
        }
    }

    /// An input held unsent while the store is unreachable is answered
    /// `unavailable` at once, not left silent until the store is back: the
    /// client resends the same `seq` (applied at most once) and meanwhile
    /// knows it was heard.
    fn tell_held(&self, o: &Origin, fx: &mut Vec<Effect<T>>) {
        let msg = ServerMsg::error(
            ErrorCode::Unavailable,
            "the room cannot save this right now (its store is unreachable); it is not \
             acknowledged: resend the same seq shortly (it is applied at most once)",
            o.seq,
        );
        self.send(o.conn, msg, fx);
    }

    /// What is persisted: the snapshot and the client seqs.
    pub(super) fn stored(&self) -> StoredRoom {
        StoredRoom {
            entry: self.entry.clone(),
            snapshot: self.room.snapshot(),
            seqs: self.seqs(),
        }
    }

    fn seqs(&self) -> BTreeMap<String, u64> {
        self.last_seq
            .iter()
            .map(|(p, s)| (p.0.clone(), *s))
            .collect()
    }

    /// One write of the room as it is now: the inputs since the last
    /// write, or the whole room after a gap, a store restart or
    /// [`COMPACT_EVERY`] appends. One at a time: a write due while another
    /// is under way follows it.
    fn write(&mut self, fx: &mut Vec<Effect<T>>) {
        if self.in_flight.is_some() {
            self.write_again = true;
            return;
        }
        let c = self.cursor;
        let whole = c.whole_next || c.appends >= COMPACT_EVERY;
        let w = if whole {
            Write::Whole(Box::new(self.stored()))
        } else {
            Write::Append(RoomAppend {
                base: c.persisted,
                inputs: self.room.inputs_since(c.persisted).to_vec(),
                version: self.room.version(),
                seqs: self.seqs(),
            })
        };
        self.in_flight = Some(InFlight {
            count: self.room.input_count(),
            whole,
        });
        fx.push(Effect::Write(w));
    }
}

impl<T: Clone> RoomHost<T> {
    /// The result of the [`Effect::Write`] under way.
    pub fn written(&mut self, res: Result<(), BackplaneError>, now: u64, fx: &mut Vec<Effect<T>>) {
        let Some(w) = self.in_flight.take() else {
            return;
        };
        let again = std::mem::take(&mut self.write_again);
        if self.life == Lifecycle::Stopped {
            return;
        }
        let handing_off = self.life == Lifecycle::HandingOff;
        match res {
            Ok(()) => {
                self.cursor.persisted = w.count;
                if w.whole {
                    self.cursor.appends = 0;
                    self.cursor.whole_next = false;
                } else {
                    self.cursor.appends += 1;
                }
                if handing_off {
                    // The hand-off's own write sends what is unsent.
                    return;
                }
                if self.life == Lifecycle::Unpersisted {
                    tracing::info!(room = %self.id, "snapshot written again; the room accepts commands");
                    self.life = Lifecycle::Serving;
                }
                let ready = self.unsent.iter().take_while(|u| u.upto <= w.count).count();
                if ready > 0 {
                    // The written batches out of the list and the rest back
                    // in, without allocating when all are written (the
                    // usual case); the emptied list keeps its capacity.
                    let mut batches = std::mem::take(&mut self.unsent);
                    self.unsent = batches.split_off(ready);
                    for u in batches.drain(..) {
                        let leaver = u.origin.filter(|o| o.leaves).map(|o| o.conn);
                        self.dispatch(u, fx);
                        if let Some(conn) = leaver {
                            self.unjoin(conn, now, fx);
                        }
                    }
                    if self.unsent.is_empty() {
                        self.unsent = batches;
                    }
                    self.after_dispatch(fx);
                }
                if again || !self.unsent.is_empty() {
                    self.write(fx);
                }
            }
            Err(BackplaneError::Gap { stored, base }) => {
                // Not an outage: the store holds another history (a
                // restarted store, an older node's write). Write it whole.
                tracing::info!(room = %self.id, stored, base, "append refused; writing the whole room");
                self.cursor.whole_next = true;
                if !handing_off {
                    self.write(fx);
                }
            }
            Err(e) if e.is_fenced() => {
                tracing::error!(room = %self.id, error = %e, "snapshot write refused by the fence; stopping the room");
                fx.push(Effect::Count(Count::Fenced("snapshot")));
                self.abandon(fx);
            }
            Err(e) => {
                fx.push(Effect::Count(Count::StoreError("save_snapshot")));
                if handing_off {
                    return;
                }
                if self.life != Lifecycle::Unpersisted {
                    tracing::warn!(room = %self.id, error = %e, "snapshot not written; refusing commands until it is");
                    // What was waiting for this write is answered now.
                    for o in self.unsent.iter().filter_map(|u| u.origin.as_ref()) {
                        self.tell_held(o, fx);
                    }
                }
                self.life = Lifecycle::Unpersisted;
                if !self.retry_pending {
                    self.retry_pending = true;
                    fx.push(Effect::Set {
                        timer: Timer::Retry,
                        at: now + RETRY_AFTER_MS,
                    });
                }
            }
        }
    }
}

impl<T> RoomHost<T> {
    /// The retry timer fired.
    pub fn retry(&mut self, fx: &mut Vec<Effect<T>>) {
        self.retry_pending = false;
        if self.life == Lifecycle::Unpersisted {
            self.write(fx);
        }
    }

    /// Write the room whole now (the store came back, possibly empty: the
    /// write re-establishes what it lost).
    pub fn persist(&mut self, fx: &mut Vec<Effect<T>>) {
        if self.life.owns() {
            self.cursor.whole_next = true;
            self.write(fx);
        }
    }

    /// The node lost its liveness lease: stop acting as the owner at once.
    pub fn lease_lost(&mut self, fx: &mut Vec<Effect<T>>) {
        if self.life == Lifecycle::Stopped {
            return;
        }
        fx.push(Effect::Count(Count::Release("lease_lost")));
        self.abandon(fx);
    }

    /// Drain: freeze the room, write its final snapshot and release it
    /// ([`Effect::Handoff`]); [`RoomHost::handed_off`] follows.
    pub fn shutdown(&mut self, fx: &mut Vec<Effect<T>>) {
        if !self.life.owns() {
            return;
        }
        self.life = Lifecycle::HandingOff;
        fx.push(Effect::Handoff {
            stored: Box::new(self.stored()),
            needs_owner: self.room.phase() != Phase::Finished,
        });
    }

    /// The hand-off's result: what the final snapshot covers goes out when
    /// it was written, then every socket is told to re-route.
    pub fn handed_off(&mut self, saved: bool, released: bool, fx: &mut Vec<Effect<T>>) {
        if self.life != Lifecycle::HandingOff {
            return;
        }
        if saved {
            for u in std::mem::take(&mut self.unsent) {
                self.dispatch(u, fx);
            }
        }
        if released {
            fx.push(Effect::Count(Count::Release("drain")));
        }
        self.abandon(fx);
    }

    /// With no socket attached, unloads the room once `unload_after` has
    /// passed (see [`RoomHost::idle`]). Why: a node otherwise keeps every
    /// room it ever created or took over, finished matches included, until
    /// it stops — memory that grows with every game played.
    pub(super) fn watch_idle(&mut self, now: u64, fx: &mut Vec<Effect<T>>) {
        if self.conns.is_empty() && !self.idle_armed && self.life.owns() {
            self.idle_armed = true;
            self.idle_since.get_or_insert(now);
            fx.push(Effect::Set {
                timer: Timer::Idle,
                at: now + ms(self.config.unload_after),
            });
        }
    }

    /// The idle timer fired. Unloads the room if it is still idle: no
    /// socket, no game in play (a game whose players left ends by their
    /// disconnect deadlines, and the room waits for that), no timer, no
    /// bot thinking, nothing unsent or unwritten. Otherwise looks again
    /// after another `unload_after`.
    pub fn idle(&mut self, now: u64, fx: &mut Vec<Effect<T>>) {
        self.idle_armed = false;
        if !self.life.owns() || !self.conns.is_empty() {
            return;
        }
        // A paused game against a bot waits for its player in the store,
        // not in memory ([`tabula_room::Room::paused`]); so does a
        // correspondence game between moves, its deadline with it (the
        // store's wake).
        let corr = self.room.correspondence();
        let busy = (self.room.phase() == Phase::Playing && !self.room.paused() && !corr)
            || (self.room.next_deadline().is_some() && !corr)
            || self.bot_busy
            || self.life == Lifecycle::Unpersisted
            || !self.unsent.is_empty()
            || self.in_flight.is_some();
        if busy {
            self.watch_idle(now, fx);
            return;
        }
        // An open correspondence challenge waits for a taker in memory, so
        // the lobby lists it while its maker is away (a node that dies
        // leaves it to the node that takes it over, which lists it again),
        // for `open_wait` after its last socket left.
        if corr && self.waits_open() {
            let until = self.idle_since.unwrap_or(now) + ms(self.config.open_wait);
            if now < until {
                self.idle_armed = true;
                fx.push(Effect::Set {
                    timer: Timer::Idle,
                    at: until,
                });
                return;
            }
        }
        // Every accepted input is in the store already: releasing the
        // lease is all that is left. A join arriving meanwhile re-routes
        // and, once the actor has stopped, restores the room from its
        // snapshot (on this node or any other). Not listed for a new
        // owner: nothing needs to run. The store forgets it after
        // `forget_after` unless it is joined again.
        self.life = Lifecycle::Unloading;
        fx.push(Effect::ReleaseIdle {
            waits: self.room.paused() || corr,
            wake: self.room.next_deadline().filter(|_| corr),
        });
    }

    /// Whether the room is an open challenge still waiting for a taker:
    /// created `open`, one person seated and the other seat free.
    pub(super) fn waits_open(&self) -> bool {
        self.entry.open
            && self.room.phase() == Phase::WaitingForPlayer
            && [SeatId::A, SeatId::B]
                .iter()
                .filter(|s| self.room.player_in(**s).is_some())
                .count()
                == 1
    }

    /// The result of [`Effect::ReleaseIdle`].
    pub fn idle_released(
        &mut self,
        res: Result<(), BackplaneError>,
        now: u64,
        fx: &mut Vec<Effect<T>>,
    ) {
        if self.life != Lifecycle::Unloading {
            return;
        }
        match res {
            Ok(()) => {
                fx.push(Effect::Count(Count::Release("idle")));
                tracing::debug!(room = %self.id, "idle room unloaded");
                self.abandon(fx);
            }
            // Another node owns it now: not ours to keep.
            Err(e) if e.is_fenced() => {
                fx.push(Effect::Count(Count::Fenced("release")));
                self.abandon(fx);
            }
            Err(e) => {
                tracing::warn!(room = %self.id, error = %e, "idle room not released; keeping it");
                fx.push(Effect::Count(Count::StoreError("release")));
                self.life = Lifecycle::Serving;
                self.watch_idle(now, fx);
            }
        }
    }
}
