//! The store's reachability as this node sees it, and the watch that
//! closes this node's sockets when it alone is cut off from the store
//! ([`crate::partition`] decides; this module asks the peers and acts).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod watch;

pub use watch::{cut_off_loop, health};

/// When this node last reached its store, and whether it has decided it
/// is cut off from it.
#[derive(Debug)]
pub struct StoreHealth {
    started: Instant,
    /// Milliseconds after `started` of the last successful heartbeat.
    last_ok_ms: AtomicU64,
    /// Milliseconds after `started` of the first success since the last
    /// failure (`u64::MAX`: the last call failed).
    up_since_ms: AtomicU64,
    cut_off: AtomicBool,
}

impl Default for StoreHealth {
    fn default() -> StoreHealth {
        StoreHealth {
            started: Instant::now(),
            last_ok_ms: AtomicU64::new(0),
            up_since_ms: AtomicU64::new(0),
            cut_off: AtomicBool::new(false),
        }
    }
}

impl StoreHealth {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }

    /// A store call (the heartbeat) succeeded now.
    pub fn ok(&self) {
        let ms = self.now_ms();
        self.last_ok_ms.store(ms, Ordering::Release);
        let _ =
            self.up_since_ms
                .compare_exchange(u64::MAX, ms, Ordering::AcqRel, Ordering::Acquire);
    }

    /// A store call (the heartbeat) failed.
    pub fn failed(&self) {
        self.up_since_ms.store(u64::MAX, Ordering::Release);
    }

    /// Since the last successful store call.
    pub fn ago(&self) -> Duration {
        Duration::from_millis(
            self.now_ms() - self.last_ok_ms.load(Ordering::Acquire).min(self.now_ms()),
        )
    }

    /// How long the store calls had been succeeding at the last success.
    pub fn up_for(&self) -> Duration {
        let last = self.last_ok_ms.load(Ordering::Acquire);
        match self.up_since_ms.load(Ordering::Acquire) {
            u64::MAX => Duration::ZERO,
            since => Duration::from_millis(last.saturating_sub(since)),
        }
    }

    /// Whether this node has decided it alone is cut off from the store:
    /// it then refuses sockets and answers `/readyz` with 503.
    pub fn is_cut_off(&self) -> bool {
        self.cut_off.load(Ordering::Acquire)
    }
}

/// Why every socket of the node is told to close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseAll {
    /// Nothing yet (the channel's first value).
    No,
    /// The node drains (SIGTERM): its rooms were handed off.
    Drain,
    /// The node is cut off from its store while other nodes are not.
    CutOff,
}
