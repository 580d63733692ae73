//! The node's handle on the durable store: empty until the archiver
//! ([`super::run`]) connects it, and the bell that wakes the archiver.

use std::sync::{Arc, OnceLock};

use tabula_store::DurableStore;
use tokio::sync::Notify;

/// The node's durable store, once connected, and the archiver's bell.
#[derive(Default)]
pub struct Durable {
    configured: bool,
    pub(super) store: OnceLock<Arc<dyn DurableStore>>,
    pub(super) wake: Notify,
}

impl std::fmt::Debug for Durable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Durable")
            .field("configured", &self.configured)
            .field("connected", &self.store.get().is_some())
            .finish()
    }
}

/// Why the durable store cannot answer now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoDurable {
    /// None is configured (`store.url` empty).
    NotConfigured,
    /// Configured, not connected yet (the database is down or starting).
    Connecting,
}

impl Durable {
    /// A handle for a node with (`configured`) or without a store.
    pub fn new(configured: bool) -> Durable {
        Durable {
            configured,
            ..Durable::default()
        }
    }

    /// A handle already holding `store` (tests).
    pub fn with(store: Arc<dyn DurableStore>) -> Durable {
        let d = Durable::new(true);
        let _ = d.store.set(store);
        d
    }

    /// Whether a store is configured: rooms queue their games only then.
    pub fn configured(&self) -> bool {
        self.configured
    }

    /// The store, if connected.
    pub fn get(&self) -> Result<&Arc<dyn DurableStore>, NoDurable> {
        match self.store.get() {
            Some(s) => Ok(s),
            None if self.configured => Err(NoDurable::Connecting),
            None => Err(NoDurable::NotConfigured),
        }
    }

    /// Tells the archiver a game was queued.
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}
