//! What the handlers, the sessions and the node's background loops
//! share: [`AppState`], built once by [`crate::run_with`].

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tabula_backplane::Backplane;
use tokio::sync::watch;

use crate::archiver::Durable;
use crate::cluster::Router;
use crate::credentials::Authenticator;
use crate::metrics::Metrics;
use crate::peers::{CloseAll, StoreHealth};
use crate::quotas::Quotas;
use crate::room_registry::Rooms;
use crate::settings::Settings;
use crate::showcase::Answer;
use crate::sockets::Sockets;
use crate::telegram::Telegram;
use crate::tournaments::Tournaments;

/// Everything the handlers share.
#[derive(Debug)]
pub struct AppState {
    /// The settings.
    pub settings: Settings,
    /// The backplane.
    pub backplane: Arc<dyn Backplane>,
    /// Metrics.
    pub metrics: Metrics,
    /// Authentication.
    pub auth: Box<dyn Authenticator>,
    /// Rooms.
    pub rooms: Rooms,
    /// Cross-node routing tables.
    pub router: Router,
    /// Set once the node drains.
    pub draining: AtomicBool,
    /// Fires when the node drains (its background loops end).
    pub shutdown_rx: watch::Receiver<bool>,
    /// Tells every socket of this node to close with 1012 (a drain, or the
    /// node cut off from its store): sessions watch it, not `shutdown_rx`.
    pub close_sockets: watch::Sender<CloseAll>,
    /// When the store was last reached; whether the node is cut off.
    pub store: StoreHealth,
    /// The sockets held, against `server.max_sockets` and
    /// `server.max_sockets_per_player`.
    pub sockets: Arc<Sockets>,
    /// Room-making quotas per player and per address.
    pub quotas: Quotas,
    /// When the node started (the quotas' clock).
    pub started: std::time::Instant,
    /// The durable store (finished games, history, ratings), once
    /// connected ([`crate::archiver`]).
    pub durable: Arc<Durable>,
    /// The Telegram bot, when a bot token is set ([`crate::telegram`]).
    pub telegram: Option<Arc<Telegram>>,
    /// The node's latest answer to `GET /api/live` ([`crate::showcase`]).
    pub showcase: Answer,
    /// The tournaments this node runs.
    pub tournaments: Tournaments,
}
