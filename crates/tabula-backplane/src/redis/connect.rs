//! [`RedisBackplane::connect`]: the pool, the shared connections, the
//! inbox subscription and the first heartbeat.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use deadpool_redis::redis;
use tokio::sync::mpsc;

use super::bus::{PubSubTarget, inbox_task, subscribe};
use super::conn::bounded;
use super::scripts::Scripts;
use super::{Pool, RedisBackplane, RedisConfig, Shared, redis_err, unavailable};
use crate::{NodeBus, Result};

/// The most connections the writes that wait for replicas spread over.
const ACKED_LANES: usize = 8;

impl RedisBackplane {
    /// Connects, subscribes to this node's inbox and records this node's
    /// first heartbeat. Must run inside a tokio runtime that outlives the
    /// backplane (the inbox task is spawned on it).
    pub async fn connect(config: RedisConfig, node: impl Into<String>) -> Result<RedisBackplane> {
        let node = node.into();
        if config.prefix.contains(['{', '}']) {
            return Err(unavailable("the key prefix must not contain braces"));
        }
        let replicas = (config.min_replicas_acked > 0)
            .then_some((config.min_replicas_acked, config.replica_ack_timeout_ms));
        if replicas.is_some()
            && (config.replica_ack_timeout_ms == 0
                || config.replica_ack_timeout_ms >= config.timeout_ms)
        {
            // WAIT 0 would block for ever; past the call's bound the call
            // would time out first.
            return Err(unavailable(
                "replica_ack_timeout_ms must be positive and shorter than timeout_ms",
            ));
        }
        // A `WAIT` holds up its connection's later commands, so the
        // acked writes of different rooms wait side by side on several
        // connections (Redis answers every waiting one as the replicas'
        // acknowledgements come), one short of the pool's size, at most
        // ACKED_LANES.
        let acked_lanes = if replicas.is_some() {
            config.pool_size.saturating_sub(1).clamp(1, ACKED_LANES)
        } else {
            0
        };
        if replicas.is_some() && config.pool_size < 2 {
            // The acked writes hold a connection of their own.
            return Err(unavailable(
                "min_replicas_acked needs a pool_size of at least 2",
            ));
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
            acked: (0..acked_lanes).map(|_| Mutex::default()).collect(),
            replicas,
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
}
