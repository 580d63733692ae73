//! The Redis backplane: [`RedisBackplane`] implements the six parts of
//! the [`Backplane`](crate::Backplane) on a single Redis instance or a
//! Redis Cluster.
//!
//! # Runtime
//!
//! [`RedisBackplane::connect`] must be called inside a tokio runtime (a
//! current-thread one is fine: actix's) that lives as long as the
//! backplane: it spawns the task that owns the inbox subscription, and the
//! pooled connections spawn their drivers on it.
//!
//! # Key layout
//!
//! Every key of one room carries the hash tag `{rid}`, so a room's keys
//! share one Cluster slot and its Lua scripts may touch them together.
//! `P` is [`RedisConfig::prefix`].
//!
//! | key | type | content |
//! |---|---|---|
//! | `P:room:{rid}` | hash | `entry` (RoomEntry JSON), `owner` (node or empty), `epoch`, `ver`, `snap` (StoredRoom JSON), `n` (inputs held: the snapshot's plus the log's), `seqs` (the latest seqs JSON, after appends) |
//! | `P:room:{rid}:log` | list | inputs appended since `snap` (Input JSON each); cleared by the next whole write |
//! | `P:room:{rid}:records` | hash | game number → record |
//! | `P:invite:{CODE}` | string | room id |
//! | `P:node:{id}` | string | liveness, expires after the lease |
//! | `P:nodes` | sorted set | node → last beat (ms); the orphan sweep's registry |
//! | `P:owned:{node}` | set | rooms the node claimed (an index, re-checked) |
//! | `P:needs-owner` | set | rooms released with `needs_owner` |
//! | `P:wakes` | sorted set | room → when it must be woken (ms): rooms released idle with a deadline of their own (a correspondence game's clock); cleared by a claim |
//! | `P:mm:{hex(key)}` | list | waiting tickets (JSON), oldest first |
//! | `P:ticket:{id}` | string | delivered match room, expires after 5 min |
//! | `P:stats:{player}` | string | PlayerStats JSON |
//! | `P:unfinished:{player}` | hash | room → `until_ms|game JSON`: the player's games waiting for him; the key expires with its latest entry, older entries are dropped when read or written past their `until_ms` |
//! | `P:profile:{player}` | hash | `tg` (what the player's latest Telegram login said, the node's JSON), `name` (the name he chose): each field written alone; the key expires its keep after the latest write or [`keep_profile`](crate::Archive::keep_profile) |
//! | `P:{archive}:entries` | hash | `room#number` → a finished game waiting for the durable store (the node's JSON); no expiry |
//! | `P:{archive}:order` | sorted set | `room#number` → when it was queued (ms): the queue's order |
//! | `P:{archive}:drainer` | string | the node that drains the queue (archives and rates), expires after its lease ([`claim_archive_drain`](crate::Archive::claim_archive_drain)) |
//! | `P:{notices}:entries` | hash | notice id → a bot notice waiting to be sent (the node's JSON); no expiry |
//! | `P:{notices}:due` | sorted set | notice id → when it is due (ms) |
//! | `P:{notices}:seen:ID` | string | the id was queued: expires after its keep; a queue of the same id meanwhile is refused |
//! | `P:slot:{hex(name)}` | string | a claimed slot (a chat's send, a game's quiet period, a webhook update), expires after its ttl |
//! | `P:sends:MS:{slot}` | string | sends claimed in that slot of MS ms (ms since the epoch / MS; [`send_slot`](crate::send_slot)), across nodes; expires after 2 s |
//! | `P:sends-paused` | string | ms until which no node sends (Telegram's 429), expires then |
//! | `P:note:{hex(name)}` | string | a note the bot keeps for a while (a challenge's inline message, by room), expires after its keep |
//! | `P:botuser:{player}` | string | what the bot knows of a player who started it (the node's JSON); no expiry |
//! | `P:{show}:SHELF:rank` | sorted set | room → score: the lobby's shelf (`live`, `open`), highest first |
//! | `P:{show}:SHELF:until` | sorted set | room → until when it is listed (ms); past it the entry is not read, and a `show` drops it |
//! | `P:{show}:SHELF:entries` | hash | room → what the lobby shows of it (the node's JSON) |
//! | `P:{show}:SHELF:node` | hash | room → the node that listed it last (an `unshow` by another node leaves it) |
//! | `P:{show}:online` | hash | node → `count:until_ms`: its open sockets; read past its until, dropped |
//! | `P:room:{tour~ID}` | hash | a tournament's ownership (`owner`, `epoch`, as a room's: claimed, released and swept by the room store's functions) and `tstate` (the tournament core's JSON, written fenced by `save_tournament`) |
//! | `P:room:{tour~ID}:inbox` | hash | key (`result:GAME`, `arrived:GAME:PLAYER`, `join:PLAYER:N`…) → an input for the tournament (JSON); `HSETNX` posts it, the owner deletes it (fenced) once applied |
//! | `P:tournaments` | sorted set | tournament id → created ms: the directory of tournaments |
//! | `P:inbox:{node}` | channel | node messages (PUBLISH, or SPUBLISH on a cluster) |
//!
//! A room released idle ([`RoomStore::release_idle`]) has its three keys
//! and its invite expire after the keep (`PEXPIRE`); a claim before then
//! removes the expiry (`PERSIST`).
//!
//! The indexes (`owned`, `needs-owner`, `nodes`, `wakes`) live in other slots than
//! the rooms, so they are updated by separate, non-atomic commands; the
//! sweep ([`RoomStore::orphans`]) re-checks each room's `owner` field, and
//! [`RoomStore::claim`] is a compare-and-set on the room hash, so a stale
//! index can only cost an extra look, never a double owner.
//!
//! # Files
//!
//! This file: the configuration, [`RedisBackplane`] and its
//! [`connect`](RedisBackplane::connect), and the functions of the key
//! table above (one per key). `conn.rs`: the shared multiplexed connection
//! and the bounded calls on it. `scripts.rs`: the Lua scripts, each with
//! its contract. One file per concern's trait: `store.rs` ([`RoomStore`]:
//! directory, ownership, snapshots), `bus.rs` ([`NodeBus`]: liveness and
//! the pub/sub inbox), `lobby.rs` ([`Lobby`]), `archive.rs` ([`Archive`]), `notices.rs`
//! ([`Notices`](crate::Notices)), `tournaments.rs` ([`TournamentStore`](crate::TournamentStore)).
//!
//! [`RoomStore`]: crate::RoomStore
//! [`RoomStore::release_idle`]: crate::RoomStore::release_idle
//! [`RoomStore::orphans`]: crate::RoomStore::orphans
//! [`RoomStore::claim`]: crate::RoomStore::claim
//! [`Lobby`]: crate::Lobby
//! [`Archive`]: crate::Archive

use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use deadpool_redis::redis::{
    self, Cmd, Pipeline, RedisError, RedisFuture, Value, aio::ConnectionLike,
};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::{BackplaneError, Inbound, Result};

use scripts::Scripts;

mod archive;
mod bus;
mod conn;
mod connect;
mod lobby;
mod notices;
mod scripts;
mod store;
mod tournaments;

/// How the Redis backplane connects (deserialised from the node's config).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RedisConfig {
    /// A single instance, e.g. `redis://127.0.0.1:6379`.
    pub url: String,
    /// Use a Redis Cluster (seeded by `urls`) instead of `url`.
    pub cluster: bool,
    /// Seed nodes of the Redis Cluster.
    pub urls: Vec<String>,
    /// The pool's size: the most command connections (the backplane shares
    /// one and takes another only after one fails; pub/sub has its own).
    pub pool_size: usize,
    /// Bound of every call, in ms; a call over it fails with
    /// [`BackplaneError::Unavailable`].
    pub timeout_ms: u64,
    /// The liveness lease, in ms.
    pub lease_ms: u64,
    /// Prefix of every key and channel, so several clusters can share one
    /// Redis. Must not contain `{` or `}` (they would break the hash tags).
    pub prefix: String,
    /// Replicas that must hold a room's write before it succeeds (and so
    /// before the move it carries is acknowledged): `WAIT n` after every
    /// claim, snapshot, append, registration and release. 0 (the default):
    /// a write succeeds once the primary has it, and a failover to a
    /// replica that had not copied it yet loses it.
    pub min_replicas_acked: u32,
    /// How long a write waits for those replicas, in ms (the `WAIT`'s
    /// timeout); fewer in time and the write fails
    /// [`BackplaneError::Unavailable`]. Must be positive and shorter than
    /// `timeout_ms` when `min_replicas_acked` is set.
    pub replica_ack_timeout_ms: u64,
}

impl Default for RedisConfig {
    fn default() -> Self {
        RedisConfig {
            url: "redis://127.0.0.1:6379".into(),
            cluster: false,
            urls: Vec::new(),
            pool_size: 16,
            timeout_ms: 1000,
            lease_ms: 3000,
            prefix: "tabula".into(),
            min_replicas_acked: 0,
            replica_ack_timeout_ms: 200,
        }
    }
}

/// The two kinds of pools, behind one face.
enum Pool {
    Single(deadpool_redis::Pool),
    Cluster(deadpool_redis::cluster::Pool),
}

/// A connection of either kind: a clone of a pooled multiplexed connection.
///
/// Why not a pool checkout per command: deadpool-redis checks every
/// checkout with an `UNWATCH` + `PING` round trip, which doubled the
/// round trips of every routed command and snapshot append (the cluster
/// load test fell over at 5,000 matches with Redis mostly answering PINGs).
/// A multiplexed connection is made to be shared (it pipelines concurrent
/// requests over one socket), and nothing here uses per-connection state
/// (no `WATCH`/`MULTI`), so the backplane takes one connection from the pool,
/// shares clones of it, and goes back to the pool (which checks, and
/// replaces, a broken one) only after a call fails on the connection.
#[derive(Clone)]
enum Conn {
    Single(redis::aio::MultiplexedConnection),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// The shared connection and its generation (so that of two calls failing
/// on the same connection, only the first drops it).
#[derive(Default)]
struct Shared {
    conn: Option<(u64, Conn)>,
    /// The pooled object `conn` was cloned from, kept checked out.
    held: Option<Held>,
    generation: u64,
}

/// A connection checked out of the pool (back to it when dropped).
enum Held {
    Single(#[allow(dead_code)] deadpool_redis::Connection),
    Cluster(#[allow(dead_code)] deadpool_redis::cluster::Connection),
}

/// The Redis backplane. See the [module docs](self) for the key layout.
pub struct RedisBackplane {
    node: String,
    lease: Duration,
    timeout: Duration,
    prefix: String,
    cluster: bool,
    pool: Pool,
    /// The connection every call shares.
    shared: Mutex<Shared>,
    /// The connections of the room writes that wait for replicas (none
    /// unless `replicas` is set; a room always uses the same one): see
    /// `conn.rs`'s `eval_acked`.
    acked: Vec<Mutex<Shared>>,
    /// `min_replicas_acked` and `replica_ack_timeout_ms`, when the former
    /// is not 0.
    replicas: Option<(u32, u64)>,
    scripts: Scripts,
    inbox: Mutex<Option<mpsc::UnboundedReceiver<Inbound>>>,
}

impl fmt::Debug for RedisBackplane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBackplane")
            .field("node", &self.node)
            .field("lease", &self.lease)
            .field("prefix", &self.prefix)
            .field("cluster", &self.cluster)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn unavailable(e: impl fmt::Display) -> BackplaneError {
    BackplaneError::Unavailable(e.to_string())
}

fn redis_err(e: RedisError) -> BackplaneError {
    unavailable(e)
}

fn corrupt(what: &str, e: impl fmt::Display) -> BackplaneError {
    BackplaneError::Corrupt(format!("{what}: {e}"))
}

fn parse<T: serde::de::DeserializeOwned>(what: &str, s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| corrupt(what, e))
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    // Serialising our own plain data cannot fail in practice; still no panic.
    serde_json::to_string(v).map_err(|e| corrupt("serialise", e))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

/// Retries of the optimistic loops (claim, stats).
const CAS_RETRIES: usize = 64;

impl RedisBackplane {
    fn room_key(&self, id: &str) -> String {
        format!("{}:room:{{{id}}}", self.prefix)
    }
    fn log_key(&self, id: &str) -> String {
        format!("{}:room:{{{id}}}:log", self.prefix)
    }
    fn records_key(&self, id: &str) -> String {
        format!("{}:room:{{{id}}}:records", self.prefix)
    }
    fn invite_key(&self, code: &str) -> String {
        format!("{}:invite:{{{code}}}", self.prefix)
    }
    fn node_key(&self, node: &str) -> String {
        format!("{}:node:{{{node}}}", self.prefix)
    }
    fn nodes_key(&self) -> String {
        format!("{}:nodes", self.prefix)
    }
    fn owned_key(&self, node: &str) -> String {
        format!("{}:owned:{{{node}}}", self.prefix)
    }
    fn needs_key(&self) -> String {
        format!("{}:needs-owner", self.prefix)
    }
    fn wakes_key(&self) -> String {
        format!("{}:wakes", self.prefix)
    }
    fn queue_key(&self, key: &str) -> String {
        // Hex: the match key may hold braces, which would break the tag.
        format!("{}:mm:{{{}}}", self.prefix, hex(key))
    }
    fn ticket_key(&self, id: u64) -> String {
        format!("{}:ticket:{{{id}}}", self.prefix)
    }
    fn stats_key(&self, player: &str) -> String {
        format!("{}:stats:{{{player}}}", self.prefix)
    }
    fn unfinished_key(&self, player: &str) -> String {
        format!("{}:unfinished:{{{player}}}", self.prefix)
    }
    fn profile_key(&self, player: &str) -> String {
        format!("{}:profile:{{{player}}}", self.prefix)
    }
    fn archive_entries_key(&self) -> String {
        format!("{}:{{archive}}:entries", self.prefix)
    }
    fn archive_order_key(&self) -> String {
        format!("{}:{{archive}}:order", self.prefix)
    }
    fn archive_drainer_key(&self) -> String {
        format!("{}:{{archive}}:drainer", self.prefix)
    }
    fn notice_entries_key(&self) -> String {
        format!("{}:{{notices}}:entries", self.prefix)
    }
    fn notice_due_key(&self) -> String {
        format!("{}:{{notices}}:due", self.prefix)
    }
    fn notice_seen_key(&self, id: &str) -> String {
        format!("{}:{{notices}}:seen:{id}", self.prefix)
    }
    fn slot_key(&self, name: &str) -> String {
        format!("{}:slot:{{{}}}", self.prefix, hex(name))
    }
    fn send_slot_key(&self, slot_ms: u64, slot: u64) -> String {
        format!("{}:sends:{slot_ms}:{{{slot}}}", self.prefix)
    }
    fn send_pause_key(&self) -> String {
        format!("{}:sends-paused", self.prefix)
    }
    fn note_key(&self, name: &str) -> String {
        format!("{}:note:{{{}}}", self.prefix, hex(name))
    }
    fn bot_user_key(&self, player: &str) -> String {
        format!("{}:botuser:{{{player}}}", self.prefix)
    }
    /// The four keys of one shelf: rank, until, entries, node.
    fn shelf_keys(&self, shelf: crate::Shelf) -> [String; 4] {
        let base = format!("{}:{{show}}:{}", self.prefix, shelf.name());
        [
            format!("{base}:rank"),
            format!("{base}:until"),
            format!("{base}:entries"),
            format!("{base}:node"),
        ]
    }
    fn tournament_inbox_key(&self, id: &str) -> String {
        format!(
            "{}:room:{{{}}}:inbox",
            self.prefix,
            crate::tournament_key(id)
        )
    }
    fn tournaments_key(&self) -> String {
        format!("{}:tournaments", self.prefix)
    }
    fn online_key(&self) -> String {
        format!("{}:{{show}}:online", self.prefix)
    }
    fn inbox_channel(&self, node: &str) -> String {
        format!("{}:inbox:{{{node}}}", self.prefix)
    }
}
