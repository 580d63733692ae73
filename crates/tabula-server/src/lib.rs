//! The Tabula node: an actix-web server with WebSocket sessions and one
//! actix actor per room.
//!
//! * WebSockets use [`actix_ws`], the crate the actix maintainers name as
//!   the successor of the deprecated `actix-web-actors`.
//! * Each room is a [`room_actor::RoomActor`] owning a
//!   [`tabula_room::Room`]; rooms are spread round-robin over
//!   `server.room_arbiters` arbiters, not pinned to the worker that
//!   accepted the socket. Every accepted input is written as a snapshot
//!   through the [`tabula_backplane::Backplane`] before its events are sent.
//! * Bots think in `spawn_blocking` behind [`bot::BotBrain`].
//! * Authentication goes through [`auth::Authenticator`]: guest mode,
//!   Telegram `initData` and session tokens (`tabula-auth`).
//! * [`run`] serves on a given listener until `shutdown` resolves, then
//!   drains: readiness fails, sockets are told to reconnect (close 1012),
//!   every room writes a final snapshot, in-flight HTTP finishes.
//!
//! HTTP: `GET /ws`, `POST /api/rooms`, `GET /api/rooms/{id}`,
//! `GET /api/invites/{code}`, `POST /api/quickmatch`,
//! `GET /api/players/{id}/stats`, `/healthz`, `/readyz`, `/metrics`.
//! See `docs/protocol.md`.

pub mod auth;
pub mod bot;
pub mod http;
pub mod metrics;
pub mod room_actor;
pub mod session;
pub mod settings;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix::{Actor, Addr, Arbiter, ArbiterHandle};
use actix_web::{App, HttpServer, web};
use rand::Rng;
use tabula_backplane::{Backplane, BackplaneError, InProcess, RoomEntry};
use tabula_room::{Room, RoomConfig};
use tokio::sync::watch;

use crate::auth::Authenticator;
use crate::bot::{BotFactory, TabulaBots};
use crate::metrics::Metrics;
use crate::room_actor::{RoomActor, RoomDeps, Shutdown, now_ms};
pub use crate::settings::Settings;

/// The rooms this node owns, and the arbiters they run on.
#[derive(Debug)]
pub struct Rooms {
    map: Mutex<HashMap<String, Addr<RoomActor>>>,
    arbiters: Vec<ArbiterHandle>,
    next: AtomicUsize,
    deps: RoomDeps,
}

impl Rooms {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Addr<RoomActor>>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Creates, registers, claims and starts a room.
    pub async fn create(&self, config: RoomConfig) -> Result<RoomEntry, BackplaneError> {
        let mut rng = rand::rng();
        let id = format!("{:012x}", rng.random::<u64>() & 0xffff_ffff_ffff);
        const ALPHA: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        let invite: String = (0..6)
            .map(|_| ALPHA[rng.random_range(0..ALPHA.len())] as char)
            .collect();
        let entry = RoomEntry {
            id: id.clone(),
            invite,
            options: config.options,
            created_ms: now_ms(),
        };
        let bp = &self.deps.backplane;
        bp.register(entry.clone()).await?;
        let lease = bp.claim(&id).await?;
        let room = Room::new(config);
        bp.save_snapshot(&id, lease.epoch, room.snapshot()).await?;
        let n = self.next.fetch_add(1, Ordering::Relaxed) % self.arbiters.len();
        let deps = self.deps.clone();
        let rid = id.clone();
        let addr = RoomActor::start_in_arbiter(&self.arbiters[n], move |_| {
            RoomActor::new(rid, room, lease.epoch, deps)
        });
        self.lock().insert(id, addr);
        tracing::info!(room = %entry.id, invite = %entry.invite, game = ?entry.options.game, "room created");
        Ok(entry)
    }

    /// A room by id or invite code.
    pub async fn find(&self, key: &str) -> Option<Addr<RoomActor>> {
        if let Some(a) = self.lock().get(key) {
            return Some(a.clone());
        }
        let bp = &self.deps.backplane;
        let entry = bp.resolve_invite(key).await.ok().flatten()?;
        self.lock().get(&entry.id).cloned()
    }

    /// Every room actor.
    pub fn all(&self) -> Vec<Addr<RoomActor>> {
        self.lock().values().cloned().collect()
    }
}

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
    /// Quick-match waiting lists.
    pub matchmaking: http::Matchmaking,
    /// Set once the node drains.
    pub draining: AtomicBool,
    /// Fires when the node drains (sessions close with 1012).
    pub shutdown_rx: watch::Receiver<bool>,
}

/// Services a node can be given instead of the defaults (tests, and the
/// later Redis backplane / `tabula-bots` / `tabula-auth` wiring).
#[derive(Debug, Default)]
pub struct Services {
    /// The backplane (default: in-process).
    pub backplane: Option<Arc<dyn Backplane>>,
    /// Bot brains (default: [`TabulaBots`]).
    pub bots: Option<Arc<dyn BotFactory>>,
    /// Authentication (default: [`auth::from_settings`]).
    pub auth: Option<Box<dyn Authenticator>>,
}

/// Why the node stopped abnormally.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The HTTP server failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves on `listener` until `shutdown` resolves, then drains. Must run
/// inside an actix system (`actix_rt::System::new().block_on(...)`).
pub async fn run(
    listener: std::net::TcpListener,
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    run_with(listener, settings, Services::default(), shutdown).await
}

/// [`run`] with services other than the defaults.
pub async fn run_with(
    listener: std::net::TcpListener,
    settings: Settings,
    services: Services,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let metrics = Metrics::new();
    let backplane: Arc<dyn Backplane> = services.backplane.unwrap_or_else(|| {
        Arc::new(InProcess::new(format!(
            "node-{:08x}",
            rand::rng().random::<u32>()
        )))
    });
    let deps = RoomDeps {
        backplane: backplane.clone(),
        metrics: metrics.clone(),
        bots: services
            .bots
            .unwrap_or_else(|| Arc::new(TabulaBots::default())),
        bot_delay: Duration::from_millis(settings.bots.delay_ms),
    };
    let arbiters: Vec<Arbiter> = (0..settings.server.room_arbiters)
        .map(|_| Arbiter::new())
        .collect();
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let auth = services
        .auth
        .unwrap_or_else(|| Box::new(auth::from_settings(&settings.auth)));
    let state = Arc::new(AppState {
        rooms: Rooms {
            map: Mutex::default(),
            arbiters: arbiters.iter().map(Arbiter::handle).collect(),
            next: AtomicUsize::new(0),
            deps,
        },
        settings: settings.clone(),
        backplane,
        metrics,
        auth,
        matchmaking: http::Matchmaking::default(),
        draining: AtomicBool::new(false),
        shutdown_rx,
    });
    let data = web::Data::from(state.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::JsonConfig::default().limit(64 * 1024))
            .configure(http::routes)
    })
    .workers(settings.server.workers)
    .disable_signals()
    .shutdown_timeout(settings.server.shutdown_timeout_secs)
    .listen(listener)?
    .run();
    let handle = server.handle();
    tracing::info!(node = %state.backplane.node_id(), "tabula node serving");
    let server_task = actix_rt::spawn(server);
    shutdown.await;
    tracing::info!("draining");
    state.draining.store(true, Ordering::SeqCst);
    let _ = shutdown_tx.send(true);
    for room in state.rooms.all() {
        if room.send(Shutdown).await.is_err() {
            tracing::warn!("a room stopped before its final snapshot");
        }
    }
    handle.stop(true).await;
    let _ = server_task.await;
    for a in arbiters {
        a.stop();
    }
    tracing::info!("stopped");
    Ok(())
}
