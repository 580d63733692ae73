//! One room = one actix actor executing what its [`RoomHost`] decides.
//!
//! The host ([`crate::host`]) is the room's logic: admission,
//! persistence planning, fan-out, bot scheduling, lifecycle. This actor is
//! its glue: each message becomes one host input (with `now`), and the
//! effects it returns are carried out here — sends to the connections'
//! channels, writes to the backplane (awaited with `ctx.wait`, so no other
//! input is handled before a write's events are sent), timers, bots and
//! hints in `spawn_blocking`, metrics. Its messages are the room's API
//! for sessions, the cluster and HTTP.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use tabula_backplane::{Backplane, RoomEntry};
use tabula_protocol::{ClientFrame, ClientMsg, ErrorCode, ServerMsg};
use tabula_room::{Command, GameKind, Phase, PlayerId, Room, RoomView, SeatId, Spot};
use tokio::sync::mpsc::UnboundedSender;

use crate::bot::{BotBrain, BotFactory};
use crate::host::{Effect, HostConfig, JoinReq, RoomHost, Timer};
use crate::metrics::Metrics;
use crate::route::Outbound;
use crate::time::now_ms;

/// The room actors of a node by room id. Shared with the actors, so that
/// one that stops (unloaded, fenced, drained) takes itself out. (Here, with
/// the actor, so that `rooms` imports `room_actor` and not the other way.)
pub type RoomMap = std::sync::Arc<std::sync::Mutex<HashMap<String, Addr<RoomActor>>>>;

mod effects;

pub use tabula_room::MAX_HINT_ROLLOUTS;

/// A connection's sender.
type Tx = UnboundedSender<Outbound>;

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
    /// The node-wide limit on bot and hint searches running at once.
    pub searches: crate::searches::Searches,
    /// Rollouts a player's hints may use per minute (0: no limit).
    pub hint_rollouts_per_minute: u32,
    /// After a takeover, seated players not back within this are marked
    /// disconnected (their grace timers start).
    pub takeover_grace: Duration,
    /// A room idle this long (no socket, nothing running) is unloaded.
    pub unload_after: Duration,
    /// An unloaded room nobody joins again within this is deleted from
    /// the store.
    pub forget_after: Duration,
    /// The same for a paused game against a bot; also how long it stays
    /// on its player's "Continue" list.
    pub paused_forget_after: Duration,
    /// The node's room actors, which a stopping actor leaves.
    pub registry: RoomMap,
    /// The durable store's handle: whether finished games are queued for
    /// it, and the archiver's bell.
    pub durable: Arc<crate::archiver::Durable>,
    /// The Telegram bot's notices, when the bot is on: how long a queued
    /// id is remembered, and the sender's bell.
    pub notices: Option<Arc<crate::telegram::Outbox>>,
}

/// A hint being computed: its future in the actor, and the flag its
/// search looks at before each rollout. Dropped (answered, cancelled, or
/// with the actor), it raises the flag, so a search whose answer nobody
/// waits for stops within one rollout instead of running its budget.
#[derive(Debug)]
struct HintRun {
    job: SpawnHandle,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Drop for HintRun {
    fn drop(&mut self) {
        self.cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The room actor.
#[derive(Debug)]
pub struct RoomActor {
    host: RoomHost<Tx>,
    epoch: u64,
    deps: RoomDeps,
    /// The host's effects, a buffer reused for every input.
    fx: Vec<Effect<Tx>>,
    /// The host's timers, by [`Timer::index`].
    timers: [Option<SpawnHandle>; Timer::ALL.len()],
    brains: HashMap<SeatId, Box<dyn BotBrain>>,
    /// The hint job of each connection that asked one (cancelled with it).
    hint_jobs: HashMap<u64, HintRun>,
    gauge: (&'static str, &'static str),
    /// What this actor posted to its tournament (a tournament's game).
    posted: TournamentPosts,
}

/// What a tournament game's room has told its tournament (each is posted
/// once per actor; a restored room posts again, and the tournament's
/// inbox and core refuse what they already have).
#[derive(Debug, Default)]
struct TournamentPosts {
    arrived: std::collections::HashSet<String>,
    result: bool,
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
        let config = HostConfig {
            unload_after: deps.unload_after,
            open_wait: deps.forget_after,
            takeover_grace: deps.takeover_grace,
            hint_rollouts_per_minute: deps.hint_rollouts_per_minute,
            archive: deps.durable.configured(),
            notify: deps.notices.is_some(),
        };
        // Counted from here to `stopped` (made before its arbiter starts it).
        deps.metrics
            .rooms
            .with_label_values(&[gauge.0, gauge.1])
            .inc();
        RoomActor {
            host: RoomHost::new(entry, room, stored_seqs, taken_over, config),
            epoch,
            deps,
            fx: Vec::new(),
            timers: Default::default(),
            brains: HashMap::new(),
            hint_jobs: HashMap::new(),
            gauge,
            posted: TournamentPosts::default(),
        }
    }
}

impl RoomActor {
    /// A tournament game's room tells its tournament (through its inbox)
    /// who has sat down and, once its match is over, the result: white is
    /// the first of the room's `players`, as the tournament paired them.
    fn tournament_posts(&mut self) {
        let Some(t) = self.host.entry().tournament.clone() else {
            return;
        };
        let room = self.host.room();
        let game = self.host.id().to_string();
        let bp = self.deps.backplane.clone();
        for seat in SeatId::BOTH {
            if let Some(p) = room.player_in(seat)
                && self.posted.arrived.insert(p.0.clone())
            {
                crate::tournaments::post(
                    bp.clone(),
                    t.clone(),
                    format!("arrived:{game}:{p}"),
                    tabula_tournament::Input::PlayerArrived {
                        game_id: tabula_tournament::GameId(game.clone()),
                        player: tabula_tournament::PlayerId(p.0.clone()),
                    },
                );
            }
        }
        if self.posted.result
            || room.phase() != tabula_room::Phase::Finished
            || room.match_number() != 1
        {
            return;
        }
        let Some(players) = room.config().players.as_ref() else {
            return;
        };
        let (Some(white), Some(black)) = (players.first(), players.get(1)) else {
            return;
        };
        let score = room.score();
        let of = |p| room.seat_of(p).map(|s: SeatId| score[s.index()]);
        let (Some(w), Some(b)) = (of(white), of(black)) else {
            return;
        };
        let outcome = match w.cmp(&b) {
            std::cmp::Ordering::Greater => tabula_tournament::Outcome::WhiteWon,
            std::cmp::Ordering::Less => tabula_tournament::Outcome::BlackWon,
            std::cmp::Ordering::Equal => tabula_tournament::Outcome::Draw,
        };
        self.posted.result = true;
        tracing::info!(room = %game, tournament = %t, ?outcome, "tournament game over");
        crate::tournaments::post(
            bp,
            t,
            format!("result:{game}"),
            tabula_tournament::Input::GameResult {
                game_id: tabula_tournament::GameId(game),
                outcome,
            },
        );
    }
}

impl Actor for RoomActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.set_mailbox_capacity(1024);
        self.host.start(now_ms(), &mut self.fx);
        self.run(ctx);
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
        if map.get(self.host.id()) == Some(&me) {
            map.remove(self.host.id());
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
        let join = JoinReq {
            conn: m.conn,
            player: m.player,
            tx: m.tx,
            seat: m.seat,
            spectate: m.spectate,
            seq: m.seq,
            resume_from: m.resume_from,
            received: Instant::now(),
        };
        let joined = self.host.join(join, now_ms(), &mut self.fx);
        self.run(ctx);
        joined
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
        self.host.command(
            m.conn,
            m.seq,
            m.command,
            m.kind,
            m.received,
            now_ms(),
            &mut self.fx,
        );
        self.run(ctx);
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

    fn handle(&mut self, m: Resume, ctx: &mut Context<Self>) {
        self.host.resume(m.conn, m.version, m.seq, &mut self.fx);
        self.run(ctx);
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
        self.host.detach(m.conn, now_ms(), &mut self.fx);
        self.run(ctx);
    }
}

/// A socket closed by its node's drain (or its node cut off from the
/// store): it is expected back elsewhere ([`RoomHost::detach_for_drain`]).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct DetachForDrain {
    /// The connection.
    pub conn: u64,
}

impl Handler<DetachForDrain> for RoomActor {
    type Result = ();

    fn handle(&mut self, m: DetachForDrain, ctx: &mut Context<Self>) {
        self.host.detach_for_drain(m.conn, now_ms(), &mut self.fx);
        self.run(ctx);
    }
}

/// The full state (HTTP, spectators).
#[derive(Debug, Message)]
#[rtype(result = "RoomView")]
pub struct GetView;

impl Handler<GetView> for RoomActor {
    type Result = MessageResult<GetView>;

    fn handle(&mut self, _m: GetView, _ctx: &mut Context<Self>) -> Self::Result {
        MessageResult(self.host.view())
    }
}

/// What the lobby shows of the room, if anything ([`crate::showcase`]).
#[derive(Debug, Message)]
#[rtype(result = "Option<crate::showcase::Listing>")]
pub struct GetListing;

impl Handler<GetListing> for RoomActor {
    type Result = MessageResult<GetListing>;

    fn handle(&mut self, _m: GetListing, _ctx: &mut Context<Self>) -> Self::Result {
        MessageResult(crate::showcase::listing(
            self.host.entry(),
            self.host.room(),
            |p| self.host.connected(p),
        ))
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

    fn handle(&mut self, _m: Shutdown, ctx: &mut Context<Self>) -> Self::Result {
        self.host.shutdown(&mut self.fx);
        // The hand-off is this message's answer: the drain waits for it.
        let mut handoff = None;
        let mut fx = std::mem::take(&mut self.fx);
        for e in fx.drain(..) {
            match e {
                Effect::Handoff {
                    stored,
                    needs_owner,
                } => handoff = Some(self.handoff(*stored, needs_owner)),
                e => self.exec(e, ctx),
            }
        }
        self.fx = fx;
        handoff.unwrap_or_else(|| Box::pin(fut::ready(())))
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
        self.host.persist(&mut self.fx);
        self.run(ctx);
    }
}

/// The node lost its liveness lease: stop acting as the owner at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Abandon;

impl Handler<Abandon> for RoomActor {
    type Result = ();

    fn handle(&mut self, _m: Abandon, ctx: &mut Context<Self>) {
        self.host.lease_lost(&mut self.fx);
        self.run(ctx);
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
        ClientMsg::Preview { play } => addr.do_send(PreviewReq {
            conn,
            seq,
            steps: play.clone(),
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

/// `preview`: what the requester's turn offers after tentative steps,
/// answered to that connection only (a pure read of the room).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct PreviewReq {
    /// The connection.
    pub conn: u64,
    /// The client's seq.
    pub seq: Option<u64>,
    /// The tentative steps.
    pub steps: Vec<(Spot, Spot)>,
}

impl Handler<PreviewReq> for RoomActor {
    type Result = ();

    fn handle(&mut self, m: PreviewReq, ctx: &mut Context<Self>) {
        self.host.preview(m.conn, m.seq, &m.steps, &mut self.fx);
        self.run(ctx);
    }
}

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
        self.host
            .hint(m.conn, m.seq, m.rollouts, now_ms(), &mut self.fx);
        self.run(ctx);
    }
}
