//! [`NodeBus`] in memory: heartbeats are instants, inboxes are channels.

use std::sync::PoisonError;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use super::{InProcess, ready};
use crate::{Inbound, NodeBus, Result};

impl NodeBus for InProcess {
    fn node_id(&self) -> &str {
        &self.node
    }

    fn lease(&self) -> Duration {
        self.lease
    }

    fn heartbeat(&self) -> BoxFuture<'_, Result<()>> {
        self.with(|s| s.beats.insert(self.node.clone(), Instant::now()));
        ready(Ok(()))
    }

    fn node_alive(&self, node: &str) -> BoxFuture<'_, Result<bool>> {
        ready(Ok(self.with(|s| s.alive(node, self.lease))))
    }

    fn leave(&self) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            s.beats.remove(&self.node);
            s.inboxes.remove(&self.node);
        });
        ready(Ok(()))
    }

    fn send(&self, node: &str, message: String) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            if let Some(tx) = s.inboxes.get(node) {
                let _ = tx.send(Inbound::Message(message));
            }
        });
        ready(Ok(()))
    }

    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>> {
        self.inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}
