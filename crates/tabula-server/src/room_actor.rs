//! One room = one actix actor owning a [`tabula_room::Room`].
//!
//! Every accepted input is snapshotted through the backplane (the actor
//! waits for the write, `ctx.wait`) before its events go to any socket.
//! Timers come from [`Room::next_deadline`]; bots think off the actor in
//! `spawn_blocking`.
//!
//! A refused write has two meanings. Fenced (another node claimed the room):
//! the actor stops at once and tells every socket to re-route. Unavailable
//! (the store is unreachable): the events stay unsent, the write is retried,
//! and new commands are refused with `unavailable` until it succeeds — the
//! room never acknowledges a move it could not keep.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use actix::prelude::*;
use std::collections::BTreeMap;

use tabula_backplane::{Backplane, BackplaneError, RoomAppend, RoomEntry, StoredRoom};
use tabula_protocol::{
    ClientFrame, ClientMsg, ErrorCode, EventText, HintPlay, ServerMsg, Viewer, room_error_code,
};
use tabula_room::{
    Actor as RoomActorId, BotLevel, BotNeed, Command, Envelope, Event, GameKind, Phase, PlayerId,
    Room, RoomView, SeatId,
};
use tokio::sync::mpsc::UnboundedSender;

use crate::bot::{BotBrain, BotFactory, BotInput, TabulaBots};
use crate::metrics::Metrics;
use crate::route::{OutItem, Outbound};

/// The room's small per-command maps (sockets, players, seqs), looked up on
/// every command: foldhash rather than SipHash, which was 1.5 % of a
/// stressed node's CPU. The keys are a handful per room, so flooding one
/// bucket gains an attacker nothing.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Milliseconds since the epoch (the room's `now`).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn game_label(g: GameKind) -> &'static str {
    match g {
        GameKind::LongNardy => "long_nardy",
        GameKind::Backgammon => "backgammon",
        GameKind::Thud => "thud",
    }
}

fn phase_label(p: Phase) -> &'static str {
    match p {
        Phase::WaitingForPlayer => "waiting",
        Phase::Playing => "playing",
        Phase::Finished => "finished",
    }
}

#[derive(Debug)]
struct Conn {
    player: PlayerId,
    tx: UnboundedSender<Outbound>,
}

/// Who sent the input being committed.
#[derive(Debug, Clone, Copy)]
struct Origin {
    conn: u64,
    seq: Option<u64>,
    /// A `join`: the joiner gets a full `state` instead of the events.
    state_instead: bool,
    /// A re-join after a re-route: the joiner gets the events after this
    /// version instead of a full state, when they can be replayed.
    resume_from: Option<u64>,
    received: Instant,
}

/// Shared services a room needs.
#[derive(Debug, Clone)]
pub struct RoomDeps {
    /// The backplane.
    pub backplane: Arc<dyn Backplane>,
    /// Metrics.
    pub metrics: Metrics,
    /// Bot brains.
    pub bots: Arc<dyn BotFactory>,
    /// Delay before each bot action.
    pub bot_delay: Duration,
    /// After a takeover, seated players not back within this are marked
    /// disconnected (their grace timers start).
    pub takeover_grace: Duration,
    /// A room idle this long (no socket, nothing running) is unloaded.
    pub unload_after: Duration,
    /// An unloaded room nobody joins again within this is deleted from
    /// the store.
    pub forget_after: Duration,
    /// The node's room actors, which a stopping actor leaves.
    pub registry: crate::RoomMap,
}

/// The room actor.
#[derive(Debug)]
pub struct RoomActor {
    id: String,
    entry: RoomEntry,
    taken_over: bool,
    /// The last write failed for want of the store: commands are refused
    /// until a retry succeeds.
    unpersisted: bool,
    retry_pending: bool,
    room: Room,
    epoch: u64,
    deps: RoomDeps,
    conns: FastMap<u64, Conn>,
    by_player: FastMap<PlayerId, u64>,
    last_seq: FastMap<PlayerId, u64>,
    timer: Option<SpawnHandle>,
    /// Runs out `unload_after` after the last socket left.
    idle_timer: Option<SpawnHandle>,
    brains: HashMap<SeatId, Box<dyn BotBrain>>,
    bot_busy: bool,
    bot_failures: u32,
    gauge: (&'static str, &'static str),
    fenced: bool,
    /// Committed events waiting for their snapshot write, oldest first.
    unsent: Vec<(Vec<Envelope>, Option<Origin>)>,
    /// Inputs the store holds (as of the last successful write).
    persisted: usize,
    /// Appends since the last whole write.
    appends: usize,
    /// The next write must be whole (the store refused an append, or may
    /// have lost the room).
    whole_next: bool,
}

/// A whole snapshot is written after this many appends, so a room's log in
/// the store stays short to read back on a takeover. Appends make a write
/// O(new inputs) instead of O(all inputs): the snapshot is the replay log,
/// and writing it whole on every command made a long game quadratic.
const COMPACT_EVERY: usize = 64;

/// One write to the store.
enum Write {
    Whole(Box<StoredRoom>),
    Append(RoomAppend),
}

impl RoomActor {
    /// A room actor for a room this node has claimed with `epoch`.
    /// `stored_seqs` are the last client seqs applied (from the snapshot);
    /// `taken_over` when it was restored from another node's snapshot.
    pub fn new(
        entry: RoomEntry,
        room: Room,
        epoch: u64,
        stored_seqs: BTreeMap<String, u64>,
        taken_over: bool,
        deps: RoomDeps,
    ) -> RoomActor {
        let gauge = (
            game_label(room.config().options.game),
            phase_label(room.phase()),
        );
        RoomActor {
            id: entry.id.clone(),
            // The store holds the snapshot the room was created or
            // restored from; if not, the first append says so (`Gap`) and
            // a whole write follows.
            persisted: room.input_count(),
            appends: 0,
            whole_next: false,
            entry,
            taken_over,
            unpersisted: false,
            retry_pending: false,
            room,
            epoch,
            deps,
            conns: FastMap::default(),
            by_player: FastMap::default(),
            last_seq: stored_seqs
                .into_iter()
                .map(|(p, s)| (PlayerId::new(p), s))
                .collect(),
            timer: None,
            idle_timer: None,
            brains: HashMap::new(),
            bot_busy: false,
            bot_failures: 0,
            gauge,
            fenced: false,
            unsent: Vec::new(),
        }
    }

    fn send(&self, conn: u64, msg: ServerMsg) {
        if let Some(c) = self.conns.get(&conn) {
            let _ = c.tx.send(Outbound::Msg(Box::new(msg)));
        }
    }

    fn viewer(&self, player: &PlayerId) -> Viewer {
        match self.room.seat_of(player) {
            Some(s) => Viewer::Seat(s),
            None => Viewer::Spectator,
        }
    }

    fn state_msg(&self, player: &PlayerId) -> ServerMsg {
        ServerMsg::State {
            room: self.id.clone(),
            your_seat: self.room.seat_of(player),
            state: Box::new(self.room.view()),
        }
    }

    /// What is persisted: the snapshot and the client seqs.
    fn stored(&self) -> StoredRoom {
        StoredRoom {
            entry: self.entry.clone(),
            snapshot: self.room.snapshot(),
            seqs: self.seqs(),
        }
    }

    /// The full state, or the events after `from` when they can be
    /// replayed (a re-join after a re-route), to one connection.
    fn catch_up(&self, conn: u64, from: Option<u64>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        match from.and_then(|v| self.missed(&c.player, v)) {
            Some(items) => self.send_batch(conn, items),
            None => {
                let m = self.state_msg(&c.player);
                let _ = c.tx.send(Outbound::Msg(Box::new(m)));
            }
        }
    }

    /// The events after `version` as this player's messages, or `None`
    /// when they cannot be replayed (`version` is ahead of the room, or
    /// behind the last [`tabula_room::EVENT_LOG_KEEP`] events the room
    /// keeps) and a full state is due.
    fn missed(&self, player: &PlayerId, version: u64) -> Option<Vec<OutItem>> {
        let missed = self.room.events_since(version)?;
        let viewer = self.viewer(player);
        Some(
            missed
                .filter_map(|e| EventText::new(e).render(viewer, None).map(OutItem::from))
                .collect(),
        )
    }

    /// Messages to one connection in one wakeup (nothing when empty).
    fn send_batch(&self, conn: u64, items: Vec<OutItem>) {
        if !items.is_empty()
            && let Some(c) = self.conns.get(&conn)
        {
            let _ = c.tx.send(Outbound::Batch(items));
        }
    }

    /// Snapshot through the backplane, then send the events. Actix runs
    /// queued `ctx.wait`s last first, so each write snapshots the room as it
    /// is when the write starts and then sends every batch still unsent, in
    /// order: commits queued together never write an older version last nor
    /// send events out of order.
    fn commit(&mut self, envs: Vec<Envelope>, origin: Option<Origin>, ctx: &mut Context<Self>) {
        if envs.is_empty() {
            if let Some(o) = origin {
                if o.state_instead {
                    self.catch_up(o.conn, o.resume_from);
                } else {
                    self.send(
                        o.conn,
                        ServerMsg::Ack {
                            seq: o.seq,
                            version: self.room.version(),
                            duplicate: false,
                        },
                    );
                }
            }
            return;
        }
        self.unsent.push((envs, origin));
        if !self.unpersisted {
            self.write(ctx);
        }
    }

    /// The seqs to persist.
    fn seqs(&self) -> BTreeMap<String, u64> {
        self.last_seq
            .iter()
            .map(|(p, s)| (p.0.clone(), *s))
            .collect()
    }

    /// One write of the room as it is when the write starts: the inputs
    /// since the last write, or now and then the whole room; on success
    /// every unsent batch goes out.
    fn write(&mut self, ctx: &mut Context<Self>) {
        let bp = self.deps.backplane.clone();
        let id = self.id.clone();
        let epoch = self.epoch;
        let write = fut::ready(()).then(move |(), act: &mut Self, _| {
            let count = act.room.input_count();
            let req = if act.whole_next || act.appends >= COMPACT_EVERY {
                Write::Whole(Box::new(act.stored()))
            } else {
                Write::Append(RoomAppend {
                    base: act.persisted,
                    inputs: act.room.inputs_since(act.persisted).to_vec(),
                    version: act.room.version(),
                    seqs: act.seqs(),
                })
            };
            let whole = matches!(req, Write::Whole(_));
            let started = Instant::now();
            async move {
                let res = match req {
                    Write::Whole(stored) => bp.save_snapshot(&id, epoch, *stored).await,
                    Write::Append(append) => bp.append_inputs(&id, epoch, append).await,
                };
                (res, started, whole, count)
            }
            .into_actor(act)
        });
        ctx.wait(write.map(move |(res, started, whole, count), act, ctx| {
            act.deps
                .metrics
                .snapshot_latency
                .observe(started.elapsed().as_secs_f64());
            if res.is_ok() {
                act.persisted = count;
                if whole {
                    act.appends = 0;
                    act.whole_next = false;
                } else {
                    act.appends += 1;
                }
            }
            if let Err(BackplaneError::Gap { stored, base }) = &res {
                // Not an outage: the store holds another history (a
                // restarted store, an older node's write). Write it whole.
                tracing::info!(room = %act.id, stored, base, "append refused; writing the whole room");
                act.whole_next = true;
                act.write(ctx);
                return;
            }
            match res {
                Ok(()) => {
                    if act.unpersisted {
                        tracing::info!(room = %act.id, "snapshot written again; the room accepts commands");
                    }
                    act.unpersisted = false;
                    for (envs, origin) in std::mem::take(&mut act.unsent) {
                        act.dispatch(envs, origin, ctx);
                    }
                }
                Err(e) if e.is_fenced() => {
                    tracing::error!(room = %act.id, error = %e, "snapshot write refused by the fence; stopping the room");
                    act.deps.metrics.fenced.with_label_values(&["snapshot"]).inc();
                    act.abandon(ctx);
                }
                Err(e) => {
                    act.deps
                        .metrics
                        .backplane_errors
                        .with_label_values(&["save_snapshot"])
                        .inc();
                    if !act.unpersisted {
                        tracing::warn!(room = %act.id, error = %e, "snapshot not written; refusing commands until it is");
                    }
                    act.unpersisted = true;
                    if !act.retry_pending {
                        act.retry_pending = true;
                        ctx.run_later(Duration::from_millis(250), |act, ctx| {
                            act.retry_pending = false;
                            if !act.fenced && act.unpersisted {
                                act.write(ctx);
                            }
                        });
                    }
                }
            }
        }));
    }

    /// Stops acting as the owner at once (fenced, or the lease is lost):
    /// nothing unsent goes out, every socket is told to re-route.
    fn abandon(&mut self, ctx: &mut Context<Self>) {
        self.fenced = true;
        self.unsent.clear();
        for c in self.conns.values() {
            let _ = c.tx.send(Outbound::Reroute);
        }
        self.conns.clear();
        ctx.stop();
    }

    /// With no socket attached, unloads the room once `unload_after` has
    /// passed (see [`RoomActor::maybe_unload`]). Why: a node otherwise keeps
    /// every room it ever created or took over, finished matches included,
    /// until it stops — memory that grows with every game played.
    fn watch_idle(&mut self, ctx: &mut Context<Self>) {
        if self.conns.is_empty() && self.idle_timer.is_none() && !self.fenced {
            self.idle_timer = Some(ctx.run_later(self.deps.unload_after, |act, ctx| {
                act.idle_timer = None;
                act.maybe_unload(ctx);
            }));
        }
    }

    /// Unloads the room if it is still idle: no socket, no game in play
    /// (a game whose players left ends by their disconnect deadlines, and
    /// the room waits for that), no timer, no bot thinking, nothing unsent
    /// or unwritten. Otherwise looks again after another `unload_after`.
    fn maybe_unload(&mut self, ctx: &mut Context<Self>) {
        if self.fenced || !self.conns.is_empty() {
            return;
        }
        let busy = self.room.phase() == Phase::Playing
            || self.room.next_deadline().is_some()
            || self.bot_busy
            || self.unpersisted
            || !self.unsent.is_empty()
            || ctx.waiting();
        if busy {
            self.watch_idle(ctx);
            return;
        }
        // Every accepted input is in the store already (nothing unsent or
        // unwritten): releasing the lease is all that is left. Fenced while
        // it runs, so a join arriving now re-routes and, once the actor has
        // stopped, restores the room from its snapshot (on this node or any
        // other). Not listed for a new owner: nothing needs to run. The
        // store forgets it after `forget_after` unless it is joined again.
        self.fenced = true;
        let bp = self.deps.backplane.clone();
        let id = self.id.clone();
        let epoch = self.epoch;
        let keep = self.deps.forget_after;
        ctx.wait(
            async move { bp.release_idle(&id, epoch, keep).await }
                .into_actor(self)
                .map(|res, act, ctx| match res {
                    Ok(()) => {
                        act.deps
                            .metrics
                            .releases
                            .with_label_values(&["idle"])
                            .inc();
                        tracing::debug!(room = %act.id, "idle room unloaded");
                        act.abandon(ctx);
                    }
                    Err(e) if e.is_fenced() => {
                        // Another node owns it now: not ours to keep.
                        act.abandon(ctx);
                    }
                    Err(e) => {
                        tracing::warn!(room = %act.id, error = %e, "idle room not released; keeping it");
                        act.deps
                            .metrics
                            .backplane_errors
                            .with_label_values(&["release"])
                            .inc();
                        act.fenced = false;
                        act.watch_idle(ctx);
                    }
                }),
        );
    }

    fn dispatch(&mut self, envs: Vec<Envelope>, origin: Option<Origin>, ctx: &mut Context<Self>) {
        self.dispatch_only(envs, origin);
        self.update_gauge();
        self.reschedule(ctx);
        self.maybe_bot(ctx);
    }

    /// Sends committed events to the sockets and the host.
    fn dispatch_only(&mut self, envs: Vec<Envelope>, origin: Option<Origin>) {
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
                let _ = c.tx.send(Outbound::Batch(batch));
            }
        }
        for env in &envs {
            self.host_event(env);
        }
        if let Some(o) = origin {
            if o.state_instead {
                self.catch_up(o.conn, o.resume_from);
            }
            self.deps
                .metrics
                .command_latency
                .observe(o.received.elapsed().as_secs_f64());
        }
    }

    fn host_event(&self, env: &Envelope) {
        match &*env.event {
            Event::Stats { players, .. } => {
                for d in players {
                    if let Some(p) = &d.player {
                        let bp = self.deps.backplane.clone();
                        let (p, d) = (p.clone(), d.clone());
                        actix::spawn(async move {
                            if let Err(e) = bp.record_stats(p, d).await {
                                tracing::warn!(error = %e, "statistics not recorded");
                            }
                        });
                    }
                }
            }
            Event::GameEnded {
                result,
                game_number,
                ..
            } => {
                // The finished game's record goes to the store, so any node
                // can serve it.
                if let Some(rec) = self.room.records().last()
                    && let Ok(json) = serde_json::to_string(rec)
                {
                    let bp = self.deps.backplane.clone();
                    let (id, n) = (self.id.clone(), *game_number);
                    actix::spawn(async move {
                        if let Err(e) = bp.save_record(&id, n, json).await {
                            tracing::warn!(room = %id, error = %e, "game record not stored");
                        }
                    });
                }
                let kind = serde_json::to_value(result.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                self.deps
                    .metrics
                    .games_finished
                    .with_label_values(&[game_label(self.room.config().options.game), &kind])
                    .inc();
                tracing::info!(room = %self.id, kind = %kind, winner = ?result.winner, "game finished");
            }
            _ => {}
        }
    }

    fn update_gauge(&mut self) {
        let now = (
            game_label(self.room.config().options.game),
            phase_label(self.room.phase()),
        );
        if now != self.gauge {
            let m = &self.deps.metrics.rooms;
            m.with_label_values(&[self.gauge.0, self.gauge.1]).dec();
            m.with_label_values(&[now.0, now.1]).inc();
            self.gauge = now;
        }
    }

    fn reschedule(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.timer.take() {
            ctx.cancel_future(h);
        }
        if let Some(deadline) = self.room.next_deadline() {
            let wait = Duration::from_millis(deadline.saturating_sub(now_ms()));
            self.timer = Some(ctx.run_later(wait, move |act, ctx| {
                act.timer = None;
                let envs = act.room.tick(now_ms().max(deadline));
                act.commit(envs, None, ctx);
            }));
        }
    }

    fn bot_need(&self) -> Option<(SeatId, BotLevel, BotNeed)> {
        match self.room.phase() {
            Phase::Finished => None,
            Phase::Playing => {
                let (seat, need) = self.room.game()?.to_act()?;
                Some((seat, self.room.bot_in(seat)?, need))
            }
            Phase::WaitingForPlayer => SeatId::BOTH.into_iter().find_map(|s| {
                let level = self.room.bot_in(s)?;
                let human = self.room.player_in(s.other()).is_some();
                (human && !self.room.seat_view(s).ready).then_some((s, level, BotNeed::Ready))
            }),
        }
    }

    fn maybe_bot(&mut self, ctx: &mut Context<Self>) {
        if self.bot_busy || self.fenced || self.unpersisted {
            return;
        }
        let Some((seat, level, need)) = self.bot_need() else {
            return;
        };
        self.bot_busy = true;
        let fallback = self.bot_failures >= 3;
        let mut brain = match self.brains.remove(&seat) {
            Some(b) if !fallback => b,
            _ => {
                let seed = self.id.bytes().fold(seat.index() as u64, |h, b| {
                    h.wrapping_mul(31).wrapping_add(u64::from(b))
                });
                if fallback {
                    TabulaBots { step_by_step: true }.make(level, seed)
                } else {
                    self.deps.bots.make(level, seed)
                }
            }
        };
        let input = BotInput {
            seat,
            need,
            game: self.room.game().cloned(),
            moves: self.room.view().moves,
        };
        let delay = self.deps.bot_delay;
        let game = game_label(self.room.config().options.game);
        let think = async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let t = Instant::now();
            let r = tokio::task::spawn_blocking(move || {
                let cmds = brain.act(&input);
                (brain, cmds)
            })
            .await;
            (r, t.elapsed())
        };
        ctx.spawn(think.into_actor(self).map(move |(r, took), act, ctx| {
            act.bot_busy = false;
            act.deps
                .metrics
                .bot_think
                .with_label_values(&[game])
                .observe(took.as_secs_f64());
            let Ok((brain, cmds)) = r else {
                act.bot_failures += 1;
                return;
            };
            act.brains.insert(seat, brain);
            if act.bot_need().map(|(s, _, n)| (s, n)) != Some((seat, need)) {
                act.maybe_bot(ctx);
                return;
            }
            let mut failed = cmds.is_empty();
            // One commit (one snapshot write) for all the accepted commands,
            // e.g. every step of a turn.
            let mut accepted = Vec::new();
            for c in cmds {
                match act.room.apply(c.clone(), RoomActorId::Bot(seat), now_ms()) {
                    Ok(envs) => accepted.extend(envs),
                    Err(e) => {
                        tracing::warn!(room = %act.id, ?seat, command = ?c, error = %e, "bot command refused");
                        failed = true;
                        break;
                    }
                }
            }
            if !accepted.is_empty() {
                act.commit(accepted, None, ctx);
            }
            if failed {
                act.bot_failures += 1;
            } else {
                act.bot_failures = 0;
            }
            act.maybe_bot(ctx);
        }));
    }
}

impl Actor for RoomActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.set_mailbox_capacity(1024);
        self.deps
            .metrics
            .rooms
            .with_label_values(&[self.gauge.0, self.gauge.1])
            .inc();
        self.reschedule(ctx);
        self.maybe_bot(ctx);
        // Created or restored with nobody attached yet.
        self.watch_idle(ctx);
        if self.taken_over {
            // Players whose node died are not connected here; unless they
            // come back, their disconnect grace must run as it would have.
            ctx.run_later(self.deps.takeover_grace, |act, ctx| {
                if act.fenced {
                    return;
                }
                for seat in SeatId::BOTH {
                    let Some(p) = act.room.player_in(seat).cloned() else {
                        continue;
                    };
                    if act.by_player.contains_key(&p) {
                        continue;
                    }
                    if let Ok(envs) =
                        act.room
                            .apply(Command::Disconnected, RoomActorId::Player(p), now_ms())
                    {
                        act.commit(envs, None, ctx);
                    }
                }
            });
        }
    }

    fn stopped(&mut self, ctx: &mut Context<Self>) {
        self.deps
            .metrics
            .rooms
            .with_label_values(&[self.gauge.0, self.gauge.1])
            .dec();
        // Only this actor's own entry: a newer actor for the same room
        // (restored here after this one was unloaded) keeps its place.
        let me = ctx.address();
        let mut map = self
            .deps
            .registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.get(&self.id) == Some(&me) {
            map.remove(&self.id);
        }
    }
}

/// A socket enters the room (`join`).
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct Join {
    /// The connection.
    pub conn: u64,
    /// The player.
    pub player: PlayerId,
    /// Where to send.
    pub tx: UnboundedSender<Outbound>,
    /// The seat wanted.
    pub seat: Option<SeatId>,
    /// Watch only.
    pub spectate: bool,
    /// The client's seq.
    pub seq: Option<u64>,
    /// A re-join after a re-route: the last version the client saw.
    pub resume_from: Option<u64>,
}

impl Handler<Join> for RoomActor {
    type Result = bool;

    fn handle(&mut self, m: Join, ctx: &mut Context<Self>) -> bool {
        let received = Instant::now();
        if self.fenced {
            // Handing off (or fenced): not a refusal — the joiner finds
            // the room's next owner and joins there.
            let _ = m.tx.send(Outbound::Reroute);
            return true;
        }
        let actor = RoomActorId::Player(m.player.clone());
        let res = if self.room.seat_of(&m.player).is_some() {
            self.room.apply(Command::Connected, actor, now_ms())
        } else if m.spectate {
            self.room.apply(Command::Spectate, actor, now_ms())
        } else {
            self.room
                .apply(Command::Sit { seat: m.seat }, actor, now_ms())
        };
        let outcome = match &res {
            Ok(_) => "accepted",
            Err(e) => room_error_code(e).as_str(),
        };
        self.deps
            .metrics
            .commands
            .with_label_values(&["join", outcome])
            .inc();
        match res {
            Err(e) => {
                let _ = m.tx.send(Outbound::Msg(Box::new(ServerMsg::error(
                    room_error_code(&e),
                    e.to_string(),
                    m.seq,
                ))));
                false
            }
            Ok(envs) => {
                if let Some(old) = self.by_player.insert(m.player.clone(), m.conn)
                    && old != m.conn
                    && let Some(c) = self.conns.remove(&old)
                {
                    let _ = c.tx.send(Outbound::Close(
                        "replaced by a newer connection for the same player".into(),
                    ));
                }
                self.conns.insert(
                    m.conn,
                    Conn {
                        player: m.player,
                        tx: m.tx,
                    },
                );
                if let Some(h) = self.idle_timer.take() {
                    ctx.cancel_future(h);
                }
                let origin = Origin {
                    conn: m.conn,
                    seq: m.seq,
                    state_instead: true,
                    resume_from: m.resume_from,
                    received,
                };
                self.commit(envs, Some(origin), ctx);
                true
            }
        }
    }
}

/// A game command from a joined socket.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Cmd {
    /// The connection.
    pub conn: u64,
    /// The client's seq.
    pub seq: Option<u64>,
    /// The command.
    pub command: Command,
    /// The wire type (metrics).
    pub kind: &'static str,
    /// When the frame arrived.
    pub received: Instant,
}

impl Handler<Cmd> for RoomActor {
    type Result = ();

    fn handle(&mut self, m: Cmd, ctx: &mut Context<Self>) {
        let Some(player) = self.conns.get(&m.conn).map(|c| c.player.clone()) else {
            return;
        };
        if self.fenced {
            // Handing off: the sender resends after it re-routes.
            return;
        }
        if self.unpersisted {
            self.deps
                .metrics
                .commands
                .with_label_values(&[m.kind, "unavailable"])
                .inc();
            self.send(
                m.conn,
                ServerMsg::error(
                    ErrorCode::Unavailable,
                    "the room cannot save moves right now; nothing changed, retry shortly",
                    m.seq,
                ),
            );
            return;
        }
        if let Some(seq) = m.seq
            && self.last_seq.get(&player).is_some_and(|&l| seq <= l)
        {
            self.deps
                .metrics
                .commands
                .with_label_values(&[m.kind, "duplicate"])
                .inc();
            self.send(
                m.conn,
                ServerMsg::Ack {
                    seq: m.seq,
                    version: self.room.version(),
                    duplicate: true,
                },
            );
            return;
        }
        let res = self
            .room
            .apply(m.command, RoomActorId::Player(player.clone()), now_ms());
        match res {
            Ok(envs) => {
                self.deps
                    .metrics
                    .commands
                    .with_label_values(&[m.kind, "accepted"])
                    .inc();
                if let Some(seq) = m.seq {
                    self.last_seq.insert(player, seq);
                }
                let origin = Origin {
                    conn: m.conn,
                    seq: m.seq,
                    state_instead: false,
                    resume_from: None,
                    received: m.received,
                };
                self.commit(envs, Some(origin), ctx);
            }
            Err(e) => {
                let code = room_error_code(&e);
                self.deps
                    .metrics
                    .commands
                    .with_label_values(&[m.kind, code.as_str()])
                    .inc();
                self.send(m.conn, ServerMsg::error(code, e.to_string(), m.seq));
            }
        }
    }
}

/// `resume {version}`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Resume {
    /// The connection.
    pub conn: u64,
    /// The last version the client saw.
    pub version: u64,
    /// The client's seq.
    pub seq: Option<u64>,
}

impl Handler<Resume> for RoomActor {
    type Result = ();

    fn handle(&mut self, m: Resume, _ctx: &mut Context<Self>) {
        let Some(player) = self.conns.get(&m.conn).map(|c| c.player.clone()) else {
            return;
        };
        if self.fenced {
            return;
        }
        if self.unpersisted {
            // The room holds events it has not persisted; replaying them
            // would show moves that may yet be lost.
            self.send(
                m.conn,
                ServerMsg::error(
                    ErrorCode::Unavailable,
                    "the room cannot save moves right now; retry shortly",
                    m.seq,
                ),
            );
            return;
        }
        let Some(missed) = self.missed(&player, m.version) else {
            let s = self.state_msg(&player);
            self.send(m.conn, s);
            return;
        };
        self.send_batch(m.conn, missed);
        self.send(
            m.conn,
            ServerMsg::Ack {
                seq: m.seq,
                version: self.room.version(),
                duplicate: false,
            },
        );
    }
}

/// A socket went away.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Detach {
    /// The connection.
    pub conn: u64,
}

impl Handler<Detach> for RoomActor {
    type Result = ();

    fn handle(&mut self, m: Detach, ctx: &mut Context<Self>) {
        let Some(c) = self.conns.remove(&m.conn) else {
            return;
        };
        self.watch_idle(ctx);
        if self.by_player.get(&c.player) != Some(&m.conn) {
            return;
        }
        self.by_player.remove(&c.player);
        if let Ok(envs) = self.room.apply(
            Command::Disconnected,
            RoomActorId::Player(c.player),
            now_ms(),
        ) {
            self.commit(envs, None, ctx);
        }
    }
}

/// The full state (HTTP, spectators).
#[derive(Debug, Message)]
#[rtype(result = "RoomView")]
pub struct GetView;

impl Handler<GetView> for RoomActor {
    type Result = MessageResult<GetView>;

    fn handle(&mut self, _m: GetView, _ctx: &mut Context<Self>) -> Self::Result {
        MessageResult(self.room.view())
    }
}

/// Drain: freeze, write the final snapshot, send what it covers, release
/// the room (listed for another owner unless finished) and tell every socket
/// to re-route.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Shutdown;

impl Handler<Shutdown> for RoomActor {
    type Result = ResponseActFuture<Self, ()>;

    fn handle(&mut self, _m: Shutdown, _ctx: &mut Context<Self>) -> Self::Result {
        let bp = self.deps.backplane.clone();
        let id = self.id.clone();
        let epoch = self.epoch;
        let stored = self.stored();
        let needs_owner = self.room.phase() != Phase::Finished;
        self.fenced = true;
        Box::pin(
            async move {
                let saved = bp.save_snapshot(&id, epoch, stored).await;
                if let Err(e) = &saved {
                    tracing::warn!(room = %id, error = %e, "final snapshot refused");
                }
                let released = saved.is_ok() && bp.release(&id, epoch, needs_owner).await.is_ok();
                (saved.is_ok(), released)
            }
            .into_actor(self)
            .map(|(saved, released), act, ctx| {
                if saved {
                    for (envs, origin) in std::mem::take(&mut act.unsent) {
                        act.dispatch_only(envs, origin);
                    }
                }
                if released {
                    act.deps
                        .metrics
                        .releases
                        .with_label_values(&["drain"])
                        .inc();
                }
                act.abandon(ctx);
            }),
        )
    }
}

/// Write the room again now (the store came back, possibly empty: the write
/// re-establishes what it lost).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Persist;

impl Handler<Persist> for RoomActor {
    type Result = ();

    fn handle(&mut self, _m: Persist, ctx: &mut Context<Self>) {
        if !self.fenced {
            self.whole_next = true;
            self.write(ctx);
        }
    }
}

/// The node lost its liveness lease: stop acting as the owner at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Abandon;

impl Handler<Abandon> for RoomActor {
    type Result = ();

    fn handle(&mut self, _m: Abandon, ctx: &mut Context<Self>) {
        self.deps
            .metrics
            .releases
            .with_label_values(&["lease_lost"])
            .inc();
        self.abandon(ctx);
    }
}

/// Hands a client frame from a joined connection to its room: `resume`,
/// `hint` and the room commands each become their actor message; anything
/// else (`join`, `ping`: answered by the session) is not the room's. The
/// one place a frame becomes a room's input, for a local socket and for a
/// proxy of a remote one alike.
pub fn deliver(addr: &Addr<RoomActor>, conn: u64, frame: &ClientFrame, received: Instant) {
    let seq = frame.seq;
    match &frame.msg {
        ClientMsg::Resume { version } => addr.do_send(Resume {
            conn,
            version: *version,
            seq,
        }),
        ClientMsg::Hint { rollouts } => addr.do_send(HintReq {
            conn,
            seq,
            rollouts: *rollouts,
        }),
        msg => {
            if let Some(command) = msg.to_command() {
                addr.do_send(Cmd {
                    conn,
                    seq,
                    command,
                    kind: msg.kind(),
                    received,
                });
            }
        }
    }
}

/// An error message for a session that is not in a room.
pub fn not_joined(seq: Option<u64>) -> ServerMsg {
    ServerMsg::error(ErrorCode::NotJoined, "join a room first", seq)
}

/// The most rollouts a `hint` may ask for (per candidate).
pub const MAX_HINT_ROLLOUTS: u32 = 64;

/// `hint`: the ranked plays for the requester's roll, computed off the
/// actor (`spawn_blocking`), answered to that connection only.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct HintReq {
    /// The connection.
    pub conn: u64,
    /// The client's seq.
    pub seq: Option<u64>,
    /// Rollouts per candidate (default 16).
    pub rollouts: Option<u32>,
}

impl Handler<HintReq> for RoomActor {
    type Result = ();

    fn handle(&mut self, m: HintReq, ctx: &mut Context<Self>) {
        let Some(player) = self.conns.get(&m.conn).map(|c| c.player.clone()) else {
            return;
        };
        if self.fenced {
            return;
        }
        let refuse = |act: &Self, code: ErrorCode, msg: &str| {
            act.deps
                .metrics
                .commands
                .with_label_values(&["hint", code.as_str()])
                .inc();
            act.send(m.conn, ServerMsg::error(code, msg, m.seq));
        };
        // Hints help a person against the computer, never against another
        // person.
        if SeatId::BOTH.iter().all(|&s| self.room.bot_in(s).is_none()) {
            refuse(
                self,
                ErrorCode::HintsDisabled,
                "hints are allowed only in rooms with a bot",
            );
            return;
        }
        let turn = self
            .room
            .game()
            .and_then(tabula_room::Game::turn_in_progress);
        let seat = match &turn {
            Some(tabula_room::PlayedTurn::LongNardy { seat, .. })
            | Some(tabula_room::PlayedTurn::Backgammon { seat, .. }) => Some(*seat),
            _ => None,
        };
        if seat.is_none() || seat != self.room.seat_of(&player) {
            refuse(
                self,
                ErrorCode::NotTimeForHint,
                "a hint is for your own turn, after rolling",
            );
            return;
        }
        let Some(turn) = turn else { return };
        let rollouts = m.rollouts.unwrap_or(16).min(MAX_HINT_ROLLOUTS);
        let version = self.room.version();
        let seed = version
            ^ self
                .id
                .bytes()
                .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
        let think = tokio::task::spawn_blocking(move || hint_plays(&turn, rollouts, seed));
        let started = Instant::now();
        ctx.spawn(think.into_actor(self).map(move |r, act, _| {
            let Ok(plays) = r else {
                // Answer anyway: an unanswered seq would wait forever.
                act.send(
                    m.conn,
                    ServerMsg::error(ErrorCode::Internal, "the hint could not be computed", m.seq),
                );
                return;
            };
            act.deps
                .metrics
                .commands
                .with_label_values(&["hint", "accepted"])
                .inc();
            act.deps
                .metrics
                .command_latency
                .observe(started.elapsed().as_secs_f64());
            act.send(m.conn, ServerMsg::Hint { seq: m.seq, plays });
        }));
    }
}

/// The hint plays for a turn, in the wire's notation (the same as
/// `possibleMoves`).
fn hint_plays(turn: &tabula_room::PlayedTurn, rollouts: u32, seed: u64) -> Vec<HintPlay> {
    use tabula_bots::hint;
    let wire = |play: String, h: (f64, f64, u32)| HintPlay {
        play,
        win: h.0,
        equity: h.1,
        rollouts: h.2,
    };
    match turn {
        tabula_room::PlayedTurn::LongNardy {
            dice, start, steps, ..
        } => hint::long_nardy_after(start, *dice, steps, rollouts, seed)
            .into_iter()
            .map(|h| wire(hint::long_notation(&h.play), (h.win, h.equity, h.rollouts)))
            .collect(),
        tabula_room::PlayedTurn::Backgammon {
            dice, start, steps, ..
        } => hint::backgammon_after(start, *dice, steps, rollouts, seed)
            .into_iter()
            .map(|h| wire(hint::bg_notation(&h.play), (h.win, h.equity, h.rollouts)))
            .collect(),
        _ => Vec::new(),
    }
}
