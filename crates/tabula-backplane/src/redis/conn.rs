//! The shared connection: one multiplexed connection from the pool,
//! shared by every call and replaced only after one fails on it, and the
//! timeout every call runs under.

use std::sync::Mutex;
use std::time::Duration;

use deadpool_redis::redis::{
    self, Cmd, FromRedisValue, RedisError, Script, ServerErrorKind, Value,
};

use super::{Conn, Held, Pool, RedisBackplane, Shared, lock, redis_err, unavailable};
use crate::BackplaneError;
use crate::Result;

impl RedisBackplane {
    /// The shared connection of `lane` (taken from the pool when there is
    /// none).
    async fn conn(&self, lane: &Mutex<Shared>) -> Result<(u64, Conn)> {
        if let Some(c) = lock(lane).conn.clone() {
            return Ok(c);
        }
        // The lane keeps the pooled object checked out while it uses the
        // connection (the clone shares its socket), so the pool never
        // hands the same connection to the other lane: a `WAIT` on the
        // acked lane must not hold up the shared one. It goes back to the
        // pool (which checks it) when the lane drops it after a failure.
        let (conn, held) = match &self.pool {
            Pool::Single(p) => {
                let o = p.get().await.map_err(unavailable)?;
                let mut c = (*o).clone();
                // redis-rs answers "timed out" after its own 500 ms
                // otherwise: the configured timeout (`bounded`) is the one.
                c.set_response_timeout(self.timeout);
                (Conn::Single(c), Held::Single(o))
            }
            Pool::Cluster(p) => {
                let o = p.get().await.map_err(unavailable)?;
                (Conn::Cluster((*o).clone()), Held::Cluster(o))
            }
        };
        let mut shared = lock(lane);
        if let Some(c) = shared.conn.clone() {
            // Another call got one first; share that (ours goes back).
            return Ok(c);
        }
        shared.generation += 1;
        let c = (shared.generation, conn);
        shared.conn = Some(c.clone());
        shared.held = Some(held);
        Ok(c)
    }

    /// Drops the shared connection `generation` after a call on it failed
    /// for a reason other than Redis's answer (the socket, a timeout), so
    /// the next call goes back to the pool.
    fn conn_failed(lane: &Mutex<Shared>, generation: u64) {
        let mut shared = lock(lane);
        if shared.conn.as_ref().is_some_and(|(g, _)| *g == generation) {
            shared.conn = None;
            shared.held = None;
        }
    }

    /// Runs `call` on the shared connection within the timeout.
    async fn on_conn<T>(
        &self,
        call: impl AsyncFnOnce(&mut Conn) -> std::result::Result<T, RedisError>,
    ) -> Result<T> {
        self.on_lane(&self.shared, call).await
    }

    /// Runs `call` on `lane`'s connection within the timeout.
    async fn on_lane<T>(
        &self,
        lane: &Mutex<Shared>,
        call: impl AsyncFnOnce(&mut Conn) -> std::result::Result<T, RedisError>,
    ) -> Result<T> {
        // The connection's generation while the call on it is unanswered.
        let mut waiting = None;
        let r = bounded(self.timeout, async {
            let (g, mut c) = self.conn(lane).await?;
            waiting = Some(g);
            let r = call(&mut c).await;
            waiting = None;
            r.map_err(|e| {
                // An error Redis answered (a script's, a wrong type) says
                // nothing about the connection — except READONLY: the
                // server this connection reaches is a replica now (a
                // failover demoted it while its socket stayed up), so
                // the next call must connect again, to whatever the
                // address names now.
                if e.code().is_none()
                    || e.code() == Some("READONLY")
                    || e.is_io_error()
                    || e.is_connection_dropped()
                {
                    Self::conn_failed(lane, g);
                }
                redis_err(e)
            })
        })
        .await;
        if let Some(g) = waiting {
            // Timed out waiting for the answer: a half-open socket never
            // answers.
            Self::conn_failed(lane, g);
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

impl RedisBackplane {
    /// Runs a script that writes a room, and with
    /// [`min_replicas_acked`](super::RedisConfig::min_replicas_acked) set,
    /// answers only once that many replicas hold the write: `EVALSHA` and
    /// `WAIT n t` sent together, in one pipeline on one connection (so the
    /// `WAIT` follows this very write; on a Redis Cluster the pipeline goes
    /// to the room's slot's primary, the `WAIT` having no key of its own).
    /// Fewer replicas within the time: [`BackplaneError::Unavailable`],
    /// never a success — the write may be on the primary, which is why
    /// every room write is a compare-and-set its retry can repeat.
    ///
    /// These run on connections of their own (the acked lanes; a room
    /// always on the same one, chosen by its key): a `WAIT` blocks every
    /// later command of its connection until it returns, so heartbeats,
    /// routed messages and reads must not queue behind it, and the rooms
    /// spread over several so that their waits overlap.
    pub(super) async fn eval_acked<T: FromRedisValue>(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[&str],
    ) -> Result<T> {
        let Some((want, wait_ms)) = self.replicas else {
            return self.eval(script, keys, args).await;
        };
        // FNV-1a of the room's key: the same lane for the same room.
        let hash = keys.first().map_or(0, |k| {
            k.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        });
        let lanes = u64::try_from(self.acked.len()).unwrap_or(1).max(1);
        let Some(lane) = usize::try_from(hash % lanes)
            .ok()
            .and_then(|i| self.acked.get(i))
        else {
            return Err(unavailable("no connection for acknowledged writes"));
        };
        let mut pipe = redis::pipe();
        pipe.cmd("EVALSHA")
            .arg(script.get_hash())
            .arg(keys.len())
            .arg(keys)
            .arg(args);
        pipe.cmd("WAIT").arg(want).arg(wait_ms);
        pipe.ignore_errors();
        let (value, acked) = self
            .on_lane(lane, async |c| {
                let mut r: Vec<Value> = pipe.query_async(c).await?;
                if matches!(r.first(), Some(Value::ServerError(e)) if e.kind() == Some(ServerErrorKind::NoScript))
                {
                    // A server that has not seen the script (a replica
                    // just promoted: the script cache is not replicated).
                    // The EVALSHA did nothing; load it and send both again.
                    script.load_async(c).await?;
                    r = pipe.query_async(c).await?;
                }
                let mut r = r.into_iter();
                let (Some(value), Some(acked)) = (r.next(), r.next()) else {
                    return Err(RedisError::from((
                        redis::ErrorKind::UnexpectedReturnType,
                        "a pipeline of two answered fewer",
                    )));
                };
                if let Value::ServerError(e) = value {
                    return Err(e.into());
                }
                let acked: i64 = redis::from_redis_value(acked)?;
                Ok((value, acked))
            })
            .await?;
        if acked < i64::from(want) {
            return Err(BackplaneError::Unavailable(format!(
                "{acked} of {want} replicas acknowledged the write within {wait_ms} ms"
            )));
        }
        redis::from_redis_value(value).map_err(|e| redis_err(e.into()))
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
