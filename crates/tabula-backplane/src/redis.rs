//! The Redis backplane: [`RedisBackplane`] implements the four parts of
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
//! | `P:mm:{hex(key)}` | list | waiting tickets (JSON), oldest first |
//! | `P:ticket:{id}` | string | delivered match room, expires after 5 min |
//! | `P:stats:{player}` | string | PlayerStats JSON |
//! | `P:inbox:{node}` | channel | node messages (PUBLISH, or SPUBLISH on a cluster) |
//!
//! A room released idle ([`RoomStore::release_idle`]) has its three keys
//! and its invite expire after the keep (`PEXPIRE`); a claim before then
//! removes the expiry (`PERSIST`).
//!
//! The indexes (`owned`, `needs-owner`, `nodes`) live in other slots than
//! the rooms, so they are updated by separate, non-atomic commands; the
//! sweep ([`RoomStore::orphans`]) re-checks each room's `owner` field, and
//! [`RoomStore::claim`] is a compare-and-set on the room hash, so a stale
//! index can only cost an extra look, never a double owner.

use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use deadpool_redis::redis::{
    self, AsyncConnectionConfig, Cmd, FromRedisValue, Pipeline, PushInfo, PushKind, RedisError,
    RedisFuture, Script, Value, aio::ConnectionLike,
};
use futures_util::future::BoxFuture;
use serde::Deserialize;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};
use tokio::sync::mpsc;

use crate::{
    Archive, BackplaneError, Inbound, Lease, Lobby, NodeBus, Result, RoomAppend, RoomEntry, RoomId,
    RoomStore, StoredRoom, Ticket,
};

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
    generation: u64,
}

/// The Lua scripts; each touches the keys of one hash slot only.
struct Scripts {
    claim: Script,
    release: Script,
    release_idle: Script,
    save: Script,
    append: Script,
    load: Script,
    register: Script,
    match_or_wait: Script,
    cancel: Script,
    cas: Script,
}

impl Scripts {
    fn new() -> Scripts {
        Scripts {
            // KEYS[1] room, KEYS[2] its log, KEYS[3] its records; ARGV:
            // owner read before, me. The owner must still be what the
            // caller checked (liveness is another slot, so it was checked
            // outside). → {epoch, entry JSON if the room was due for
            // deletion (its invite, another slot, is kept by the caller),
            // else ''}; {-1, ''} raced.
            claim: Script::new(
                r"
local cur = redis.call('HGET', KEYS[1], 'owner') or ''
if cur ~= ARGV[1] then return {-1, ''} end
local e = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
local entry = ''
if redis.call('PTTL', KEYS[1]) >= 0 then
  entry = redis.call('HGET', KEYS[1], 'entry') or ''
  for i = 1, 3 do redis.call('PERSIST', KEYS[i]) end
end
return {e, entry}",
            ),
            // KEYS[1] room, KEYS[2] its log, KEYS[3] its records; ARGV: me,
            // epoch, keep ms. → the entry JSON ('' fenced): its invite
            // (another slot) expires with it, set by the caller.
            release_idle: Script::new(
                r"
local owner = redis.call('HGET', KEYS[1], 'owner')
local ep = redis.call('HGET', KEYS[1], 'epoch')
if owner ~= ARGV[1] or ep ~= ARGV[2] then return '' end
redis.call('HSET', KEYS[1], 'owner', '')
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return redis.call('HGET', KEYS[1], 'entry') or ''",
            ),
            // KEYS[1] room; ARGV: me, epoch.
            release: Script::new(
                r"
local owner = redis.call('HGET', KEYS[1], 'owner')
local ep = redis.call('HGET', KEYS[1], 'epoch')
if owner ~= ARGV[1] or ep ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'owner', '')
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
return 1",
            ),
            // KEYS[1] room; ARGV: me, epoch, version, snap JSON, entry JSON.
            // -1 fenced, -2 stale version, 1 ownership re-established, 0 ok.
            save: Script::new(
                r"
local owner = redis.call('HGET', KEYS[1], 'owner')
local ep = redis.call('HGET', KEYS[1], 'epoch')
local restored = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- The store lost the room entirely (restarted without persistence).
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', ARGV[2], 'entry', ARGV[5])
  restored = 1
elseif owner ~= ARGV[1] or ep ~= ARGV[2] then
  return -1
end
local ver = tonumber(redis.call('HGET', KEYS[1], 'ver') or '')
if ver and ver > tonumber(ARGV[3]) then return -2 end
redis.call('HSET', KEYS[1], 'ver', ARGV[3], 'snap', ARGV[4], 'n', ARGV[6])
redis.call('HDEL', KEYS[1], 'seqs')
redis.call('DEL', KEYS[2])
return restored",
            ),
            // KEYS[1] room, KEYS[2] its log; ARGV: me, epoch, version,
            // base, seqs JSON, input JSON... → {code, stored}: 0 ok,
            // -1 fenced, -2 stale version, -3 gap (stored inputs; -1 when
            // the store holds no snapshot).
            append: Script::new(
                r"
if redis.call('HEXISTS', KEYS[1], 'snap') == 0 then return {-3, -1} end
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'ver', 'n')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then return {-1, 0} end
local ver = tonumber(h[3] or '')
if ver and ver > tonumber(ARGV[3]) then return {-2, 0} end
local n = tonumber(h[4] or '-1')
if n ~= tonumber(ARGV[4]) then return {-3, n} end
if #ARGV > 5 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 6)) end
redis.call('HSET', KEYS[1], 'ver', ARGV[3], 'n', n + #ARGV - 5, 'seqs', ARGV[5])
return {0, n + #ARGV - 5}",
            ),
            // KEYS[1] room, KEYS[2] its log → {} or {snap, ver, seqs,
            // input...}: one consistent read of both keys.
            load: Script::new(
                r"
local h = redis.call('HMGET', KEYS[1], 'snap', 'ver', 'seqs')
if not h[1] then return {} end
local out = {h[1], h[2] or '', h[3] or ''}
local log = redis.call('LRANGE', KEYS[2], 0, -1)
for i = 1, #log do out[#out + 1] = log[i] end
return out",
            ),
            // KEYS[1] room; ARGV: entry JSON.
            register: Script::new(
                r"
if redis.call('HEXISTS', KEYS[1], 'entry') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'entry', ARGV[1])
return 1",
            ),
            // KEYS[1] queue; ARGV: ticket JSON, player. Unreadable entries
            // are skipped, not fatal.
            match_or_wait: Script::new(
                r"
local items = redis.call('LRANGE', KEYS[1], 0, -1)
for _, raw in ipairs(items) do
  local ok, t = pcall(cjson.decode, raw)
  if ok and type(t) == 'table' and type(t.player) == 'string' and t.player ~= ARGV[2] then
    redis.call('LREM', KEYS[1], 1, raw)
    return raw
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
return false",
            ),
            // KEYS[1] queue; ARGV: the JSON prefix `{"id":N,` (ids are
            // compared as text: Lua numbers lose u64 precision).
            cancel: Script::new(
                r"
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local n = 0
for _, raw in ipairs(items) do
  if string.sub(raw, 1, #ARGV[1]) == ARGV[1] then
    n = n + redis.call('LREM', KEYS[1], 0, raw)
  end
end
return n",
            ),
            // KEYS[1]; ARGV: old value ('' = none), new value.
            cas: Script::new(
                r"
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1",
            ),
        }
    }
}

/// Where the inbox subscription connects.
#[derive(Clone)]
enum PubSubTarget {
    Single(redis::Client),
    Cluster(Vec<String>),
}

/// A live subscription: the connection (kept so it stays open) and its
/// pushes.
struct Subscription {
    conn: SubConn,
    pushes: mpsc::UnboundedReceiver<PushInfo>,
}

enum SubConn {
    Single(redis::aio::MultiplexedConnection),
    Cluster(redis::cluster_async::ClusterConnection),
}

/// The Redis backplane. See the [module docs](self) for the key layout.
pub struct RedisBackplane {
    node: String,
    lease: Duration,
    timeout: Duration,
    prefix: String,
    cluster: bool,
    pool: Pool,
    shared: Mutex<Shared>,
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

/// Reconnect backoff of the inbox task.
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(2);
/// How often the inbox task pings its connection (a half-open TCP
/// connection would otherwise never be noticed).
const PUBSUB_PING: Duration = Duration::from_secs(1);
/// How long a delivered match waits for its ticket's poll.
const TICKET_TTL_S: u64 = 300;
/// Retries of the optimistic loops (claim, stats).
const CAS_RETRIES: usize = 64;

impl RedisBackplane {
    /// Connects, subscribes to this node's inbox and records this node's
    /// first heartbeat. Must run inside a tokio runtime that outlives the
    /// backplane (the inbox task is spawned on it).
    pub async fn connect(config: RedisConfig, node: impl Into<String>) -> Result<RedisBackplane> {
        let node = node.into();
        if config.prefix.contains(['{', '}']) {
            return Err(unavailable("the key prefix must not contain braces"));
        }
        let timeout = Duration::from_millis(config.timeout_ms.max(1));
        let mut pool_config = deadpool_redis::PoolConfig::new(config.pool_size.max(1));
        pool_config.timeouts = deadpool_redis::Timeouts {
            wait: Some(timeout),
            create: Some(timeout),
            recycle: Some(timeout),
        };
        let runtime = Some(deadpool_redis::Runtime::Tokio1);
        let (pool, target) = if config.cluster {
            let mut c = deadpool_redis::cluster::Config::from_urls(config.urls.clone());
            c.pool = Some(pool_config);
            let pool = c.create_pool(runtime).map_err(unavailable)?;
            (
                Pool::Cluster(pool),
                PubSubTarget::Cluster(config.urls.clone()),
            )
        } else {
            let mut c = deadpool_redis::Config::from_url(config.url.clone());
            c.pool = Some(pool_config);
            let pool = c.create_pool(runtime).map_err(unavailable)?;
            let client = redis::Client::open(config.url.as_str()).map_err(redis_err)?;
            (Pool::Single(pool), PubSubTarget::Single(client))
        };
        let b = RedisBackplane {
            lease: Duration::from_millis(config.lease_ms.max(1)),
            timeout,
            prefix: config.prefix,
            cluster: config.cluster,
            pool,
            shared: Mutex::new(Shared::default()),
            scripts: Scripts::new(),
            inbox: Mutex::new(None),
            node,
        };
        b.heartbeat().await?;
        // Subscribe before returning, so messages sent to this node right
        // after `connect` are not lost.
        let channel = b.inbox_channel(&b.node);
        let sub = bounded(timeout, subscribe(&target, &channel)).await?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(inbox_task(target, channel, timeout, sub, tx));
        *b.inbox.lock().unwrap_or_else(PoisonError::into_inner) = Some(rx);
        Ok(b)
    }

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
    fn inbox_channel(&self, node: &str) -> String {
        format!("{}:inbox:{{{node}}}", self.prefix)
    }

    /// The shared connection (taken from the pool when there is none).
    async fn conn(&self) -> Result<(u64, Conn)> {
        if let Some(c) = lock(&self.shared).conn.clone() {
            return Ok(c);
        }
        // The pooled object goes back to the pool when dropped here; the
        // clone shares its socket.
        let conn = match &self.pool {
            Pool::Single(p) => Conn::Single((*p.get().await.map_err(unavailable)?).clone()),
            Pool::Cluster(p) => Conn::Cluster((*p.get().await.map_err(unavailable)?).clone()),
        };
        let mut shared = lock(&self.shared);
        if let Some(c) = shared.conn.clone() {
            // Another call got one first; share that.
            return Ok(c);
        }
        shared.generation += 1;
        let c = (shared.generation, conn);
        shared.conn = Some(c.clone());
        Ok(c)
    }

    /// Drops the shared connection `generation` after a call on it failed
    /// for a reason other than Redis's answer (the socket, a timeout), so
    /// the next call goes back to the pool.
    fn conn_failed(&self, generation: u64) {
        let mut shared = lock(&self.shared);
        if shared.conn.as_ref().is_some_and(|(g, _)| *g == generation) {
            shared.conn = None;
        }
    }

    /// Runs `call` on the shared connection within the timeout.
    async fn on_conn<T>(
        &self,
        call: impl AsyncFnOnce(&mut Conn) -> std::result::Result<T, RedisError>,
    ) -> Result<T> {
        // The connection's generation while the call on it is unanswered.
        let mut waiting = None;
        let r = bounded(self.timeout, async {
            let (g, mut c) = self.conn().await?;
            waiting = Some(g);
            let r = call(&mut c).await;
            waiting = None;
            r.map_err(|e| {
                // An error Redis answered (a script's, a wrong type) says
                // nothing about the connection.
                if e.code().is_none() || e.is_io_error() || e.is_connection_dropped() {
                    self.conn_failed(g);
                }
                redis_err(e)
            })
        })
        .await;
        if let Some(g) = waiting {
            // Timed out waiting for the answer: a half-open socket never
            // answers.
            self.conn_failed(g);
        }
        r
    }

    /// Runs one command on a pooled connection.
    /// Records this node in the registry the orphan sweep reads (a node
    /// that came back after being pruned re-registers here).
    async fn mark_seen(&self) -> Result<()> {
        self.q::<()>(
            redis::cmd("ZADD")
                .arg(self.nodes_key())
                .arg(now_ms())
                .arg(&self.node),
        )
        .await
    }

    async fn q<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T> {
        self.on_conn(async |c| cmd.query_async(c).await).await
    }

    /// Runs a script on a pooled connection.
    async fn eval<T: FromRedisValue>(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[&str],
    ) -> Result<T> {
        let mut inv = script.prepare_invoke();
        for k in keys {
            inv.key(*k);
        }
        for a in args {
            inv.arg(*a);
        }
        self.on_conn(async |c| inv.invoke_async(c).await).await
    }

    async fn lookup_inner(&self, id: &str) -> Result<Option<RoomEntry>> {
        let (entry, snap): (Option<String>, Option<String>) = self
            .q(redis::cmd("HMGET")
                .arg(self.room_key(id))
                .arg("entry")
                .arg("snap"))
            .await?;
        if let Some(e) = entry {
            return parse("room entry", &e).map(Some);
        }
        match snap {
            Some(s) => parse::<StoredRoom>("snapshot", &s).map(|r| Some(r.entry)),
            None => Ok(None),
        }
    }

    async fn claim_inner(&self, id: &str) -> Result<Lease> {
        let room = self.room_key(id);
        for _ in 0..CAS_RETRIES {
            let owner: Option<String> = self.q(redis::cmd("HGET").arg(&room).arg("owner")).await?;
            let owner = owner.unwrap_or_default();
            if !owner.is_empty() && owner != self.node && self.alive(&owner).await? {
                return Err(BackplaneError::Owned {
                    room: id.to_string(),
                    owner,
                });
            }
            let (epoch, kept): (i64, String) = self
                .eval(
                    &self.scripts.claim,
                    &[&room, &self.log_key(id), &self.records_key(id)],
                    &[&owner, &self.node],
                )
                .await?;
            if epoch < 0 {
                continue; // Someone claimed in between: look again.
            }
            if !kept.is_empty() {
                // It was released idle and due for deletion: keep its
                // invite too.
                let entry: RoomEntry = parse("entry", &kept)?;
                self.q::<()>(redis::cmd("PERSIST").arg(self.invite_key(&entry.invite)))
                    .await?;
            }
            let epoch = u64::try_from(epoch).map_err(|e| corrupt("epoch", e))?;
            // The indexes (other slots): best effort after the fact; the
            // sweep re-checks the owner field.
            self.q::<()>(redis::cmd("SADD").arg(self.owned_key(&self.node)).arg(id))
                .await?;
            self.q::<()>(redis::cmd("SREM").arg(self.needs_key()).arg(id))
                .await?;
            if !owner.is_empty() && owner != self.node {
                self.q::<()>(redis::cmd("SREM").arg(self.owned_key(&owner)).arg(id))
                    .await?;
            }
            self.mark_seen().await?;
            return Ok(Lease {
                node: self.node.clone(),
                epoch,
            });
        }
        Err(unavailable(format!("claim of room {id} kept being raced")))
    }

    async fn alive(&self, node: &str) -> Result<bool> {
        let n: i64 = self
            .q(redis::cmd("EXISTS").arg(self.node_key(node)))
            .await?;
        Ok(n > 0)
    }

    async fn orphans_inner(&self) -> Result<Vec<RoomId>> {
        let mut out: Vec<RoomId> = Vec::new();
        let nodes: Vec<String> = self
            .q(redis::cmd("ZRANGE").arg(self.nodes_key()).arg(0).arg(-1))
            .await?;
        for node in nodes {
            if self.alive(&node).await? {
                continue;
            }
            let owned_key = self.owned_key(&node);
            let rooms: Vec<String> = self.q(redis::cmd("SMEMBERS").arg(&owned_key)).await?;
            let mut kept = 0usize;
            for room in rooms {
                let owner: Option<String> = self
                    .q(redis::cmd("HGET").arg(self.room_key(&room)).arg("owner"))
                    .await?;
                if owner.as_deref() == Some(node.as_str()) {
                    out.push(room);
                    kept += 1;
                } else {
                    // Claimed by someone else or released: a stale index.
                    self.q::<()>(redis::cmd("SREM").arg(&owned_key).arg(&room))
                        .await?;
                }
            }
            if kept == 0 {
                // A dead node with nothing left: prune it. (If it comes
                // back, its next heartbeat or claim re-registers it.)
                self.q::<()>(redis::cmd("ZREM").arg(self.nodes_key()).arg(&node))
                    .await?;
            }
        }
        let needs: Vec<String> = self.q(redis::cmd("SMEMBERS").arg(self.needs_key())).await?;
        out.extend(needs);
        out.sort();
        out.dedup();
        Ok(out)
    }

    async fn append_inner(&self, id: &str, epoch: u64, append: RoomAppend) -> Result<()> {
        let mut args = vec![
            self.node.clone(),
            epoch.to_string(),
            append.version.to_string(),
            append.base.to_string(),
            to_json(&append.seqs)?,
        ];
        for input in &append.inputs {
            args.push(to_json(input)?);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r: Vec<i64> = self
            .eval(
                &self.scripts.append,
                &[&self.room_key(id), &self.log_key(id)],
                &args,
            )
            .await?;
        match r.as_slice() {
            [0, _] => Ok(()),
            [-1, _] => Err(BackplaneError::Fenced {
                room: id.to_string(),
                epoch,
            }),
            [-2, _] => Err(BackplaneError::StaleVersion {
                version: append.version,
            }),
            [-3, stored] => Err(BackplaneError::Gap {
                stored: usize::try_from(*stored).unwrap_or(0),
                base: append.base,
            }),
            other => Err(corrupt("append reply", format!("{other:?}"))),
        }
    }

    async fn load_inner(&self, id: &str) -> Result<Option<StoredRoom>> {
        let r: Vec<String> = self
            .eval(
                &self.scripts.load,
                &[&self.room_key(id), &self.log_key(id)],
                &[],
            )
            .await?;
        let [snap, ver, seqs, log @ ..] = r.as_slice() else {
            return Ok(None);
        };
        let mut room: StoredRoom = parse("snapshot", snap)?;
        for input in log {
            room.snapshot.inputs.push(parse("appended input", input)?);
        }
        if !ver.is_empty() {
            room.snapshot.version = ver.parse().map_err(|e| corrupt("room version", e))?;
        }
        if !seqs.is_empty() {
            room.seqs = parse("seqs", seqs)?;
        }
        Ok(Some(room))
    }

    async fn save_inner(&self, id: &str, epoch: u64, room: StoredRoom) -> Result<()> {
        let snap = to_json(&room)?;
        let entry = to_json(&room.entry)?;
        let r: i64 = self
            .eval(
                &self.scripts.save,
                &[&self.room_key(id), &self.log_key(id)],
                &[
                    &self.node,
                    &epoch.to_string(),
                    &room.snapshot.version.to_string(),
                    &snap,
                    &entry,
                    &room.snapshot.inputs.len().to_string(),
                ],
            )
            .await?;
        match r {
            -1 => Err(BackplaneError::Fenced {
                room: id.to_string(),
                epoch,
            }),
            -2 => Err(BackplaneError::StaleVersion {
                version: room.snapshot.version,
            }),
            1 => {
                // The store had lost the room: re-establish the indexes
                // and the invite (other slots, so separate commands).
                self.q::<()>(
                    redis::cmd("SET")
                        .arg(self.invite_key(&room.entry.invite))
                        .arg(id)
                        .arg("NX"),
                )
                .await?;
                self.q::<()>(redis::cmd("SADD").arg(self.owned_key(&self.node)).arg(id))
                    .await?;
                self.mark_seen().await?;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    async fn stats_inner(&self, player: &str) -> Result<(String, PlayerStats)> {
        let raw: Option<String> = self
            .q(redis::cmd("GET").arg(self.stats_key(player)))
            .await?;
        match raw {
            Some(s) => {
                let st = parse("player stats", &s)?;
                Ok((s, st))
            }
            None => Ok((String::new(), PlayerStats::default())),
        }
    }

    async fn record_stats_inner(&self, player: PlayerId, delta: PlayerDelta) -> Result<()> {
        // Optimistic: read, add in Rust (PlayerStats::record is the one
        // definition of the accumulation), compare-and-set in Lua (one
        // key, so it works on a cluster where MULTI cannot be routed).
        let key = self.stats_key(&player.0);
        for _ in 0..CAS_RETRIES {
            let (old, mut st) = self.stats_inner(&player.0).await?;
            st.record(&delta);
            let new = to_json(&st)?;
            let ok: i64 = self.eval(&self.scripts.cas, &[&key], &[&old, &new]).await?;
            if ok == 1 {
                return Ok(());
            }
            tokio::task::yield_now().await;
        }
        Err(unavailable(format!(
            "stats of {} kept being raced",
            player.0
        )))
    }
}

/// Bounds a call by the configured timeout.
async fn bounded<T>(
    timeout: Duration,
    f: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    match tokio::time::timeout(timeout, f).await {
        Ok(r) => r,
        Err(_) => Err(unavailable(format!(
            "no answer within {} ms",
            timeout.as_millis()
        ))),
    }
}

/// Opens a dedicated RESP3 connection (never a pooled one: a subscribed
/// connection cannot serve other callers) and subscribes to `channel`.
async fn subscribe(target: &PubSubTarget, channel: &str) -> Result<Subscription> {
    let (tx, pushes) = mpsc::unbounded_channel::<PushInfo>();
    let conn = match target {
        PubSubTarget::Single(client) => {
            let mut info = client.get_connection_info().clone();
            let settings = info
                .redis_settings()
                .clone()
                .set_protocol(redis::ProtocolVersion::RESP3);
            info = info.set_redis_settings(settings);
            let client = redis::Client::open(info).map_err(redis_err)?;
            let config = AsyncConnectionConfig::new().set_push_sender(tx);
            let mut c = client
                .get_multiplexed_async_connection_with_config(&config)
                .await
                .map_err(redis_err)?;
            c.subscribe(channel).await.map_err(redis_err)?;
            SubConn::Single(c)
        }
        PubSubTarget::Cluster(urls) => {
            // The cluster client routes SSUBSCRIBE to the master owning the
            // channel's slot (following MOVED).
            let client = redis::cluster::ClusterClientBuilder::new(urls.clone())
                .use_protocol(redis::ProtocolVersion::RESP3)
                .push_sender(tx)
                .build()
                .map_err(redis_err)?;
            let mut c = client.get_async_connection().await.map_err(redis_err)?;
            c.ssubscribe(channel).await.map_err(redis_err)?;
            SubConn::Cluster(c)
        }
    };
    Ok(Subscription { conn, pushes })
}

/// Why a subscription stopped.
enum Stop {
    /// The inbox receiver was dropped: the task ends.
    Closed,
    /// The connection was lost: reconnect.
    Lost,
}

/// Forwards the subscription's messages until it is lost or the receiver
/// is dropped.
async fn pump(
    sub: &mut Subscription,
    timeout: Duration,
    tx: &mpsc::UnboundedSender<Inbound>,
) -> Stop {
    let mut ping = tokio::time::interval(PUBSUB_PING);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            push = sub.pushes.recv() => {
                let Some(push) = push else { return Stop::Lost };
                match push.kind {
                    PushKind::Message | PushKind::SMessage => {
                        let payload = push
                            .data
                            .get(1)
                            .and_then(|v| redis::from_redis_value_ref::<String>(v).ok());
                        if let Some(m) = payload
                            && tx.send(Inbound::Message(m)).is_err()
                        {
                            return Stop::Closed;
                        }
                    }
                    PushKind::Disconnection => return Stop::Lost,
                    // A cluster moving our shard channel unsubscribes us.
                    PushKind::SUnsubscribe | PushKind::Unsubscribe => return Stop::Lost,
                    _ => {}
                }
            }
            _ = ping.tick() => {
                let cmd = redis::cmd("PING");
                let r = match &mut sub.conn {
                    SubConn::Single(c) => {
                        tokio::time::timeout(timeout, cmd.query_async::<Value>(c)).await
                    }
                    SubConn::Cluster(c) => {
                        tokio::time::timeout(timeout, cmd.query_async::<Value>(c)).await
                    }
                };
                if !matches!(r, Ok(Ok(_))) {
                    return Stop::Lost;
                }
            }
            _ = tx.closed() => return Stop::Closed,
        }
    }
}

/// Owns the inbox subscription: forwards messages, and on a loss
/// reconnects with backoff (100 ms doubling to 2 s), re-subscribes and
/// says [`Inbound::Resubscribed`]. Ends when the receiver is dropped.
async fn inbox_task(
    target: PubSubTarget,
    channel: String,
    timeout: Duration,
    first: Subscription,
    tx: mpsc::UnboundedSender<Inbound>,
) {
    let mut sub = first;
    loop {
        if let Stop::Closed = pump(&mut sub, timeout, &tx).await {
            return;
        }
        drop(sub);
        let mut backoff = BACKOFF_MIN;
        sub = loop {
            if tx.is_closed() {
                return;
            }
            match bounded(timeout, subscribe(&target, &channel)).await {
                Ok(s) => break s,
                Err(_) => {
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = tx.closed() => return,
                    }
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        };
        if tx.send(Inbound::Resubscribed).is_err() {
            return;
        }
    }
}

impl RoomStore for RedisBackplane {
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let json = to_json(&entry)?;
            let room = self.room_key(&entry.id);
            let fresh: i64 = self
                .eval(&self.scripts.register, &[&room], &[&json])
                .await?;
            if fresh == 0 {
                return Err(BackplaneError::Exists(entry.id));
            }
            let set: Option<String> = self
                .q(redis::cmd("SET")
                    .arg(self.invite_key(&entry.invite))
                    .arg(&entry.id)
                    .arg("NX"))
                .await?;
            if set.is_none() {
                // Invite taken: undo the entry we just wrote.
                self.q::<()>(redis::cmd("HDEL").arg(&room).arg("entry"))
                    .await?;
                return Err(BackplaneError::Exists(entry.invite));
            }
            Ok(())
        })
    }

    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        let id = id.to_string();
        Box::pin(async move { self.lookup_inner(&id).await })
    }

    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        let code = code.to_string();
        Box::pin(async move {
            let id: Option<String> = self
                .q(redis::cmd("GET").arg(self.invite_key(&code)))
                .await?;
            match id {
                Some(id) => self.lookup_inner(&id).await,
                None => Ok(None),
            }
        })
    }

    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>> {
        let id = id.to_string();
        Box::pin(async move { self.claim_inner(&id).await })
    }

    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let ok: i64 = self
                .eval(
                    &self.scripts.release,
                    &[&self.room_key(&id)],
                    &[&self.node, &epoch.to_string()],
                )
                .await?;
            if ok != 1 {
                return Err(BackplaneError::Fenced { room: id, epoch });
            }
            self.q::<()>(redis::cmd("SREM").arg(self.owned_key(&self.node)).arg(&id))
                .await?;
            let op = if needs_owner { "SADD" } else { "SREM" };
            self.q::<()>(redis::cmd(op).arg(self.needs_key()).arg(&id))
                .await
        })
    }

    fn release_idle(&self, id: &str, epoch: u64, keep: Duration) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let keep_ms = keep.as_millis().max(1).to_string();
            let entry: String = self
                .eval(
                    &self.scripts.release_idle,
                    &[
                        &self.room_key(&id),
                        &self.log_key(&id),
                        &self.records_key(&id),
                    ],
                    &[&self.node, &epoch.to_string(), &keep_ms],
                )
                .await?;
            if entry.is_empty() {
                return Err(BackplaneError::Fenced { room: id, epoch });
            }
            let entry: RoomEntry = parse("entry", &entry)?;
            self.q::<()>(
                redis::cmd("PEXPIRE")
                    .arg(self.invite_key(&entry.invite))
                    .arg(&keep_ms),
            )
            .await?;
            self.q::<()>(redis::cmd("SREM").arg(self.owned_key(&self.node)).arg(&id))
                .await?;
            self.q::<()>(redis::cmd("SREM").arg(self.needs_key()).arg(&id))
                .await
        })
    }

    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>> {
        let id = id.to_string();
        Box::pin(async move {
            let (owner, epoch): (Option<String>, Option<String>) = self
                .q(redis::cmd("HMGET")
                    .arg(self.room_key(&id))
                    .arg("owner")
                    .arg("epoch"))
                .await?;
            match owner {
                Some(node) if !node.is_empty() => {
                    let epoch = epoch
                        .unwrap_or_default()
                        .parse::<u64>()
                        .map_err(|e| corrupt("epoch", e))?;
                    Ok(Some(Lease { node, epoch }))
                }
                _ => Ok(None),
            }
        })
    }

    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>> {
        Box::pin(self.orphans_inner())
    }

    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move { self.save_inner(&id, epoch, room).await })
    }

    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move { self.append_inner(&id, epoch, append).await })
    }

    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>> {
        let id = id.to_string();
        Box::pin(async move { self.load_inner(&id).await })
    }
}

impl NodeBus for RedisBackplane {
    fn node_id(&self) -> &str {
        &self.node
    }

    fn lease(&self) -> Duration {
        self.lease
    }

    fn heartbeat(&self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let ms = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
            self.q::<()>(
                redis::cmd("SET")
                    .arg(self.node_key(&self.node))
                    .arg(now_ms())
                    .arg("PX")
                    .arg(ms),
            )
            .await?;
            self.mark_seen().await
        })
    }

    fn node_alive(&self, node: &str) -> BoxFuture<'_, Result<bool>> {
        let node = node.to_string();
        Box::pin(async move { self.alive(&node).await })
    }

    fn leave(&self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.q::<()>(redis::cmd("DEL").arg(self.node_key(&self.node)))
                .await?;
            // Hand the rooms still owned to the sweep at once (the owned
            // index leaves with the registry entry).
            let owned_key = self.owned_key(&self.node);
            let rooms: Vec<String> = self.q(redis::cmd("SMEMBERS").arg(&owned_key)).await?;
            for room in rooms {
                let owner: Option<String> = self
                    .q(redis::cmd("HGET").arg(self.room_key(&room)).arg("owner"))
                    .await?;
                if owner.as_deref() == Some(self.node.as_str()) {
                    self.q::<()>(redis::cmd("SADD").arg(self.needs_key()).arg(&room))
                        .await?;
                }
            }
            self.q::<()>(redis::cmd("DEL").arg(&owned_key)).await?;
            self.q::<()>(redis::cmd("ZREM").arg(self.nodes_key()).arg(&self.node))
                .await
        })
    }

    fn send(&self, node: &str, message: String) -> BoxFuture<'_, Result<()>> {
        let channel = self.inbox_channel(node);
        Box::pin(async move {
            // Sharded pub/sub on a cluster: the message goes to the
            // channel's shard only, not broadcast over the cluster bus.
            let op = if self.cluster { "SPUBLISH" } else { "PUBLISH" };
            self.q::<()>(redis::cmd(op).arg(&channel).arg(message))
                .await
        })
    }

    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>> {
        self.inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Lobby for RedisBackplane {
    fn match_or_wait(&self, key: &str, ticket: Ticket) -> BoxFuture<'_, Result<Option<Ticket>>> {
        let queue = self.queue_key(key);
        Box::pin(async move {
            let json = to_json(&ticket)?;
            let got: Option<String> = self
                .eval(
                    &self.scripts.match_or_wait,
                    &[&queue],
                    &[&json, &ticket.player],
                )
                .await?;
            got.map(|s| parse("ticket", &s)).transpose()
        })
    }

    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>> {
        let queue = self.queue_key(key);
        Box::pin(async move {
            // serde writes `id` first (declaration order), so the prefix
            // identifies the ticket.
            let prefix = format!("{{\"id\":{ticket},");
            let n: i64 = self
                .eval(&self.scripts.cancel, &[&queue], &[&prefix])
                .await?;
            Ok(n > 0)
        })
    }

    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.q::<()>(
                redis::cmd("SET")
                    .arg(self.ticket_key(ticket))
                    .arg(room)
                    .arg("EX")
                    .arg(TICKET_TTL_S),
            )
            .await
        })
    }

    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>> {
        Box::pin(async move {
            self.q(redis::cmd("GETDEL").arg(self.ticket_key(ticket)))
                .await
        })
    }
}

impl Archive for RedisBackplane {
    fn save_record(&self, room: &str, game: u32, record: String) -> BoxFuture<'_, Result<()>> {
        let key = self.records_key(room);
        Box::pin(async move {
            self.q::<()>(redis::cmd("HSET").arg(&key).arg(game).arg(record))
                .await
        })
    }

    fn records(&self, room: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        let key = self.records_key(room);
        Box::pin(async move {
            let all: std::collections::BTreeMap<String, String> =
                self.q(redis::cmd("HGETALL").arg(&key)).await?;
            let mut v = all
                .into_iter()
                .map(|(g, r)| {
                    g.parse::<u32>()
                        .map(|g| (g, r))
                        .map_err(|e| corrupt("game number", e))
                })
                .collect::<Result<Vec<_>>>()?;
            v.sort_by_key(|(g, _)| *g);
            Ok(v.into_iter().map(|(_, r)| r).collect())
        })
    }

    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>> {
        Box::pin(self.record_stats_inner(player, delta))
    }

    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>> {
        let player = player.to_string();
        Box::pin(async move { self.stats_inner(&player).await.map(|(_, s)| s) })
    }
}
