//! The room host: everything a node does around one room's core, as pure
//! decisions. [`RoomHost`] owns the [`Room`], its connections and their
//! viewers, the last client `seq` of each player, the persistence cursor
//! and the room's [`Lifecycle`]. Each method takes one input (a join, a
//! command, a timer, a write's result, a bot's answer) and `now`, and
//! pushes [`Effect`]s into a buffer the caller reuses; the actix actor
//! ([`crate::room_actor`]) only executes them. No actix, no tokio, no
//! store, no clock: the decisions are tested as tables of inputs → effects
//! (`host/tests/`).
//!
//! * `admit.rs`: joins, commands, `resume`, detaches —
//!   refused while fenced, handing off or unloading, answered
//!   `unavailable` while unpersisted, duplicate `seq`s re-acked.
//! * `hints.rs`: `hint` — the room's policy, one in flight per player, a
//!   rollout budget per player (`hint_budget.rs`), cancelled when the
//!   asker leaves.
//! * `persist.rs`: every accepted input is written before its events
//!   go to anyone (an append of the new inputs, or the whole room after a
//!   gap, a store restart or [`COMPACT_EVERY`] appends); a refused write
//!   is either the fence (stop, nothing sent) or the store being
//!   unavailable (retry, refuse commands until a write succeeds); drain and
//!   idle unload.
//! * `fanout.rs`: the written events to every connection (each
//!   serialised once for all), records and stats to the store, the room's
//!   timer, and the bot that must act next.
//!
//! # Lifecycle
//!
//! | state         | joins, commands            | writes          | left by |
//! |---------------|----------------------------|-----------------|---------|
//! | `Serving`     | applied                    | after each input| write refused for want of the store → `Unpersisted`; drain → `HandingOff`; idle → `Unloading`; fence, lease lost → `Stopped` |
//! | `Unpersisted` | joins applied, commands and `resume` refused `unavailable` | retried every 250 ms | a write succeeds → `Serving`; drain → `HandingOff`; fence, lease lost → `Stopped` |
//! | `HandingOff`  | joins re-routed, the rest ignored; the room is frozen | the final whole snapshot | its result → `Stopped` |
//! | `Unloading`   | joins re-routed            | none (releasing)| released or fenced → `Stopped`; release failed → `Serving` |
//! | `Stopped`     | joins re-routed, the rest ignored | none     | — |

mod admit;
mod fanout;
mod fast_map;
mod hint_budget;
mod hints;
mod notify;
mod persist;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tabula_backplane::{RoomAppend, RoomEntry, StoredRoom};
use tabula_protocol::http::UnfinishedGame;
use tabula_protocol::{ServerMsg, Viewer};
use tabula_room::{
    BotLevel, BotNeed, Envelope, PlayedTurn, PlayerDelta, PlayerId, Room, RoomView, SeatId,
};

use crate::bot::BotInput;
use crate::route::Outbound;

pub use admit::JoinReq;
pub use notify::{BOT_GAME_WAITING_AFTER_MS, turn_id};

use fast_map::FastMap;

/// A whole snapshot is written after this many appends, so a room's log in
/// the store stays short to read back on a takeover. Appends make a write
/// O(new inputs) instead of O(all inputs): the snapshot is the replay log,
/// and writing it whole on every command made a long game quadratic.
pub const COMPACT_EVERY: usize = 64;

/// A write refused for want of the store is retried after this long.
pub const RETRY_AFTER_MS: u64 = 250;

/// Where a room stands (see the module docs for the transitions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// Owner of the room: inputs are applied, written, then sent.
    Serving,
    /// The last write failed for want of the store: commands are refused
    /// until a retry succeeds; nothing unwritten is sent.
    Unpersisted,
    /// Draining: the final snapshot is being written, then the room is
    /// released for another owner.
    HandingOff,
    /// Idle: the lease is being released.
    Unloading,
    /// Not the owner any more (fenced, lease lost, handed off, unloaded):
    /// the actor stops.
    Stopped,
}

impl Lifecycle {
    /// Whether the room acts as its owner (takes joins and commands).
    pub fn owns(self) -> bool {
        matches!(self, Lifecycle::Serving | Lifecycle::Unpersisted)
    }
}

/// The host's timers. Each is set to a time (ms since the epoch) and
/// replaces its previous setting; the actor calls the matching input when
/// one fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// The room's next deadline: [`RoomHost::tick`].
    Room,
    /// No socket for `unload_after`: [`RoomHost::idle`].
    Idle,
    /// Retry the refused write: [`RoomHost::retry`].
    Retry,
    /// After a takeover, players not back are disconnected:
    /// [`RoomHost::grace`].
    Grace,
}

impl Timer {
    /// The four timers, as indices for the actor's handles.
    pub const ALL: [Timer; 4] = [Timer::Room, Timer::Idle, Timer::Retry, Timer::Grace];

    /// The timer's index in [`Timer::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One write to the store.
#[derive(Debug)]
pub enum Write {
    /// The whole room, which replaces what the store holds.
    Whole(Box<StoredRoom>),
    /// The inputs since the last successful write.
    Append(RoomAppend),
}

/// A bot seat to think for, off the actor.
#[derive(Debug)]
pub struct Think {
    /// The seat.
    pub seat: SeatId,
    /// Its level.
    pub level: BotLevel,
    /// What it must do (its answer is checked against the room again).
    pub need: BotNeed,
    /// The bot failed three times in a row: use a fresh step-by-step
    /// brain instead of the configured one.
    pub fallback: bool,
    /// The seed of a new brain for the seat.
    pub seed: u64,
    /// What the brain sees.
    pub input: BotInput,
}

/// A hint to compute off the actor (rollouts are CPU-heavy).
#[derive(Debug)]
pub struct HintJob {
    /// The asking connection.
    pub conn: u64,
    /// Its seq.
    pub seq: Option<u64>,
    /// The turn being played.
    pub turn: PlayedTurn,
    /// Rollouts per candidate.
    pub rollouts: u32,
    /// The rollouts' seed.
    pub seed: u64,
    /// How the game is scored (backgammon's hints count gammons only
    /// where it does).
    pub scoring: tabula_backgammon::Scoring,
}

/// A metric to count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Count {
    /// `commands{kind, outcome}`.
    Command {
        /// The wire type (`join`, `move`, `hint`, …).
        kind: &'static str,
        /// `accepted`, `duplicate`, `unavailable` or the error code.
        outcome: &'static str,
    },
    /// `fenced{op}`: a write (`snapshot`) or an idle room's release
    /// (`release`) refused by the fence.
    Fenced(&'static str),
    /// `backplane_errors{op}`.
    StoreError(&'static str),
    /// `releases{why}`.
    Release(&'static str),
    /// `games_finished{game, kind}`, the kind of result.
    GameFinished(String),
}

/// What the actor does for the host. `T` is a connection's sender.
#[derive(Debug)]
pub enum Effect<T> {
    /// Send to a connection the host holds (see [`RoomHost::tx`]).
    Send {
        /// The connection.
        conn: u64,
        /// What to send.
        out: Outbound,
    },
    /// Send to a connection the host does not hold (a refused join, a
    /// replaced connection).
    Last {
        /// Its sender.
        tx: T,
        /// What to send.
        out: Outbound,
    },
    /// Write to the store, holding every other input until it is done;
    /// then [`RoomHost::written`].
    Write(Write),
    /// Write the final snapshot and release the room (for another owner
    /// when `needs_owner`); then [`RoomHost::handed_off`].
    Handoff {
        /// The final snapshot.
        stored: Box<StoredRoom>,
        /// The room is not finished: list it for a new owner.
        needs_owner: bool,
    },
    /// Release the idle room's lease, holding every other input until it
    /// is done; then [`RoomHost::idle_released`]. The store keeps it for
    /// `rooms.forget_after_ms`, or `rooms.paused_forget_after_ms` when
    /// `waits` (a game against a bot waiting for its player, or a
    /// correspondence room), and that long after its `wake`.
    ReleaseIdle {
        /// A game that waits for its players, for days.
        waits: bool,
        /// When a node must hold the room again, whoever holds nothing
        /// of it then (ms since the epoch): a correspondence game's
        /// deadline ([`tabula_backplane::RoomStore::release_idle`]).
        wake: Option<u64>,
    },
    /// List (or, with `None`, unlist) a game of `player`'s waiting for
    /// him, for the lobby's "Continue" ([`UnfinishedGame`]).
    Unfinished {
        /// The player.
        player: PlayerId,
        /// The game as the lobby shows it; `None` once it is over.
        game: Option<Box<UnfinishedGame>>,
    },
    /// Set a timer (replacing its earlier setting) to fire at `at`.
    Set {
        /// Which.
        timer: Timer,
        /// When (ms since the epoch).
        at: u64,
    },
    /// Cancel a timer.
    Cancel(Timer),
    /// Think for a bot; then [`RoomHost::bot_answered`].
    Think(Box<Think>),
    /// Compute a hint; then [`RoomHost::hint_answered`].
    Hint(Box<HintJob>),
    /// The hint asked on this connection is not wanted any more: drop its
    /// job (never computed if it has not started).
    CancelHint(u64),
    /// Add a finished game's deltas to a player's statistics.
    RecordStats {
        /// The player.
        player: PlayerId,
        /// The deltas.
        delta: PlayerDelta,
    },
    /// Keep a finished game for the durable store ([`crate::archiver`]):
    /// queued where the backplane's queue outlives the node, stored at once
    /// where it does not. The effects after it wait until it is kept: the
    /// host pushes it before the batch that announces the game's end.
    Archive {
        /// `room#number`.
        key: String,
        /// The [`crate::archiver::QueuedGame`], as JSON.
        entry: String,
    },
    /// Queue a notice for the Telegram bot ([`crate::telegram`]), retried
    /// until the backplane has it (a queue of the same id is refused).
    Notify(Box<crate::telegram::notice::Queued>),
    /// Store a finished game's record (JSON).
    SaveRecord {
        /// The game's number.
        game_number: u32,
        /// The record.
        json: String,
    },
    /// Count a metric.
    Count(Count),
    /// Observe a command's latency from when it arrived.
    Latency(Instant),
    /// Stop the actor.
    Stop,
}

/// The host's settings.
#[derive(Debug, Clone, Copy)]
pub struct HostConfig {
    /// A room without sockets this long (and nothing running) is unloaded.
    pub unload_after: Duration,
    /// An open correspondence challenge (created `open`, its maker seated,
    /// the other seat free) stays loaded this long after its last socket
    /// left, so the lobby keeps listing it while its maker is away
    /// (`rooms.forget_after_ms`); then it unloads as any idle room.
    pub open_wait: Duration,
    /// After a takeover, seated players not back within this are marked
    /// disconnected (their grace timers start).
    pub takeover_grace: Duration,
    /// Rollouts a player's hints may use per minute (0: no limit).
    pub hint_rollouts_per_minute: u32,
    /// A durable store is configured: finished games are queued for it
    /// ([`Effect::Archive`]).
    pub archive: bool,
    /// The Telegram bot is on: players away from the room get notices
    /// ([`Effect::Notify`]).
    pub notify: bool,
}

#[derive(Debug)]
struct Conn<T> {
    player: PlayerId,
    tx: T,
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
    /// A `leave`: once its answer is out, the socket is out of the room.
    leaves: bool,
}

/// Committed events waiting for the write that covers them.
#[derive(Debug)]
struct Unsent {
    envs: Vec<Envelope>,
    origin: Option<Origin>,
    /// The room's input count once they were committed: a write of at
    /// least this many inputs covers them.
    upto: usize,
}

/// What the store holds of the room, and how the next write is made.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    /// Inputs the store holds (as of the last successful write).
    persisted: usize,
    /// Appends since the last whole write.
    appends: usize,
    /// The next write must be whole (the store refused an append, or may
    /// have lost the room).
    whole_next: bool,
}

/// A write under way.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    /// The room's input count when it was made.
    count: usize,
    whole: bool,
}

/// The pure host of one room (see the module docs).
#[derive(Debug)]
pub struct RoomHost<T> {
    id: String,
    entry: RoomEntry,
    room: Room,
    life: Lifecycle,
    config: HostConfig,
    taken_over: bool,
    conns: FastMap<u64, Conn<T>>,
    by_player: FastMap<PlayerId, u64>,
    last_seq: FastMap<PlayerId, u64>,
    unsent: Vec<Unsent>,
    cursor: Cursor,
    in_flight: Option<InFlight>,
    /// A write was due while another was under way.
    write_again: bool,
    retry_pending: bool,
    idle_armed: bool,
    /// When the room's last socket left (`None` while one is attached).
    idle_since: Option<u64>,
    /// What the players of a correspondence room last had listed
    /// ([`Effect::Unfinished`]), so it is written again only on a change.
    listed: Option<Listed>,
    bot_busy: bool,
    bot_failures: u32,
    hints: hint_budget::Hints,
}

/// What a correspondence room last listed for its players
/// ([`RoomHost::list_correspondence`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    players: [Option<PlayerId>; 2],
    /// Whose turn, since when, until when.
    turn: Option<(SeatId, Option<u64>, Option<u64>)>,
    game_number: u32,
    finished: bool,
}

impl<T> RoomHost<T> {
    /// The host of a room this node has claimed: `stored_seqs` are the
    /// last client seqs applied (from the snapshot), `taken_over` when it
    /// was restored from another node's snapshot. The store holds the
    /// snapshot the room was created or restored from; if not, the first
    /// append says so (`Gap`) and a whole write follows.
    pub fn new(
        entry: RoomEntry,
        room: Room,
        stored_seqs: BTreeMap<String, u64>,
        taken_over: bool,
        config: HostConfig,
    ) -> RoomHost<T> {
        RoomHost {
            id: entry.id.clone(),
            cursor: Cursor {
                persisted: room.input_count(),
                appends: 0,
                whole_next: false,
            },
            entry,
            room,
            life: Lifecycle::Serving,
            config,
            taken_over,
            conns: FastMap::default(),
            by_player: FastMap::default(),
            last_seq: stored_seqs
                .into_iter()
                .map(|(p, s)| (PlayerId::new(p), s))
                .collect(),
            unsent: Vec::new(),
            in_flight: None,
            write_again: false,
            retry_pending: false,
            idle_armed: false,
            idle_since: None,
            listed: None,
            bot_busy: false,
            bot_failures: 0,
            hints: hint_budget::Hints::default(),
        }
    }

    /// The room's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether `player` has a socket in the room.
    pub fn connected(&self, player: &PlayerId) -> bool {
        self.by_player.contains_key(player)
    }

    /// The room's directory entry.
    pub fn entry(&self) -> &RoomEntry {
        &self.entry
    }

    /// The room.
    pub fn room(&self) -> &Room {
        &self.room
    }

    /// Where the room stands.
    pub fn lifecycle(&self) -> Lifecycle {
        self.life
    }

    /// The sender of a connection the host holds.
    pub fn tx(&self, conn: u64) -> Option<&T> {
        self.conns.get(&conn).map(|c| &c.tx)
    }

    /// The full state (HTTP, spectators).
    pub fn view(&self) -> RoomView {
        self.room.view()
    }

    /// The actor started: the room's timer, a bot that must act, the idle
    /// watch (nobody is attached yet) and, after a takeover, the grace
    /// for players whose node died.
    pub fn start(&mut self, now: u64, fx: &mut Vec<Effect<T>>) {
        // A room this node restored (a takeover, a hand-off, a reload)
        // resumes its running clock from what the snapshot says was used
        // at its last input: the time in between is nobody's
        // ([`Room::resume_clock`]). Written and sent like any input.
        let envs = self.room.resume_clock(now);
        self.commit(envs, None, fx);
        // The latest finished game again: its owner may have died between
        // the game's end and its queuing. Queuing is idempotent (the
        // store keeps a game once); earlier games were queued a whole
        // game ago. Not once a seat is empty (its player left the
        // finished match): that entry could not be archived, and it would
        // replace the one queued at the game's end, which can.
        let seated = tabula_room::SeatId::BOTH
            .iter()
            .all(|&s| self.room.player_in(s).is_some() || self.room.bot_in(s).is_some());
        if self.config.archive
            && seated
            && let Some(rec) = self.room.records().last()
        {
            self.archive(&rec.clone(), fx);
        }
        self.reschedule(fx);
        self.maybe_bot(fx);
        self.watch_idle(now, fx);
        if self.taken_over {
            fx.push(Effect::Set {
                timer: Timer::Grace,
                at: now + ms(self.config.takeover_grace),
            });
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
            // The actor stamps its time as it sends (the host reads no
            // clock).
            server_time: None,
        }
    }

    fn send(&self, conn: u64, msg: ServerMsg, fx: &mut Vec<Effect<T>>) {
        if self.conns.contains_key(&conn) {
            fx.push(Effect::Send {
                conn,
                out: Outbound::Msg(Box::new(msg)),
            });
        }
    }

    fn ack(&self, seq: Option<u64>, duplicate: bool) -> ServerMsg {
        ServerMsg::Ack {
            seq,
            version: self.room.version(),
            duplicate,
        }
    }

    /// Stops acting as the owner at once (fenced, the lease lost, handed
    /// off, unloaded): nothing unsent goes out, every socket is told to
    /// re-route. The connections stay until the host is dropped, but
    /// nothing is sent to them any more.
    fn abandon(&mut self, fx: &mut Vec<Effect<T>>) {
        self.life = Lifecycle::Stopped;
        self.unsent.clear();
        for &conn in self.conns.keys() {
            fx.push(Effect::Send {
                conn,
                out: Outbound::Reroute,
            });
        }
        fx.push(Effect::Stop);
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
