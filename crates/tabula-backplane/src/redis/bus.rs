//! [`NodeBus`] on Redis: liveness is a key per node that expires after the
//! lease (and the `nodes` registry the orphan sweep reads); the inbox is a
//! pub/sub channel per node, held by a task that resubscribes after a
//! loss.

use std::sync::PoisonError;
use std::time::Duration;

use deadpool_redis::redis::{self, AsyncConnectionConfig, PushInfo, PushKind, Value};
use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use super::conn::bounded;
use super::{RedisBackplane, now_ms, redis_err};
use crate::{Inbound, NodeBus, Result};

/// Reconnect backoff of the inbox task.
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(2);
/// How often the inbox task pings its connection (a half-open TCP
/// connection would otherwise never be noticed).
const PUBSUB_PING: Duration = Duration::from_secs(1);

/// Where the inbox subscription connects.
#[derive(Clone)]
pub(super) enum PubSubTarget {
    Single(redis::Client),
    Cluster(Vec<String>),
}

/// A live subscription: the connection (kept so it stays open) and its
/// pushes.
pub(super) struct Subscription {
    conn: SubConn,
    pushes: mpsc::UnboundedReceiver<PushInfo>,
}

enum SubConn {
    Single(redis::aio::MultiplexedConnection),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl RedisBackplane {
    /// Records this node in the registry the orphan sweep reads (a node
    /// that came back after being pruned re-registers here).
    pub(super) async fn mark_seen(&self) -> Result<()> {
        self.q::<()>(
            redis::cmd("ZADD")
                .arg(self.nodes_key())
                .arg(now_ms())
                .arg(&self.node),
        )
        .await
    }

    /// Whether `node`'s liveness key is there.
    pub(super) async fn alive(&self, node: &str) -> Result<bool> {
        let n: i64 = self
            .q(redis::cmd("EXISTS").arg(self.node_key(node)))
            .await?;
        Ok(n > 0)
    }
}

/// Opens a dedicated RESP3 connection (never a pooled one: a subscribed
/// connection cannot serve other callers) and subscribes to `channel`.
pub(super) async fn subscribe(target: &PubSubTarget, channel: &str) -> Result<Subscription> {
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
pub(super) async fn inbox_task(
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
