//! The shared connection: one multiplexed connection from the pool,
//! shared by every call and replaced only after one fails on it, and the
//! timeout every call runs under.

use std::time::Duration;

use deadpool_redis::redis::{
    self, Cmd, FromRedisValue, Pipeline, RedisError, RedisFuture, Script, Value,
    aio::ConnectionLike,
};

use super::{RedisBackplane, lock, redis_err, unavailable};
use crate::Result;

/// The two kinds of pools, behind one face.
pub(super) enum Pool {
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
pub(super) struct Shared {
    conn: Option<(u64, Conn)>,
    generation: u64,
}

impl RedisBackplane {
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

    /// Runs one command on the shared connection.
    pub(super) async fn q<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T> {
        self.on_conn(async |c| cmd.query_async(c).await).await
    }

    /// Runs a script on the shared connection.
    pub(super) async fn eval<T: FromRedisValue>(
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
}

/// Bounds a call by the configured timeout.
pub(super) async fn bounded<T>(
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
