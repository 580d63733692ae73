//! The Tabula node: an actix-web server with WebSocket sessions and one
//! actix actor per room.
//!
//! * WebSockets use [`actix_ws`], the crate the actix maintainers name as
//!   the successor of the deprecated `actix-web-actors`.
//! * Each room is a [`room_actor::RoomActor`] executing the effects of a
//!   [`host::RoomHost`], which owns the [`tabula_room::Room`]; rooms are spread round-robin over
//!   `server.room_arbiters` arbiters, not pinned to the worker that
//!   accepted the socket. Every accepted input is written as a snapshot
//!   through the [`tabula_backplane::Backplane`] before its events are sent.
//! * Bots think in `spawn_blocking` behind [`bot::BotBrain`].
//! * Authentication goes through [`credentials::Authenticator`]: guest mode,
//!   Telegram `initData` and session tokens (`tabula-auth`).
//! * Clustering ([`cluster`]): a socket may sit on any node; commands for a
//!   room owned elsewhere are routed to its owner through the backplane's
//!   node inboxes. Rooms whose owner died are taken over from their last
//!   snapshot by the first node that needs them, or by the background sweep.
//! * [`run`] serves on a given listener until `shutdown` resolves, then
//!   drains: readiness fails, new rooms are refused, every room is frozen,
//!   snapshotted, released and its sockets told to re-route; then the
//!   node's own sockets are told to reconnect (close 1012) and in-flight
//!   HTTP finishes — all within `cluster.drain_grace_ms`.
//!
//! HTTP: `GET /ws`, `POST /api/rooms`, `GET /api/rooms/{id}`,
//! `GET /api/invites/{code}`, `POST /api/quickmatch`,
//! `GET /api/rooms/{id}/summary`, `GET /api/players/{id}/stats`,
//! `/healthz`, `/readyz`, `/metrics`; the Mini App (`web.dir`) at `/`.
//! See `docs/protocol.md`.

pub mod archiver;
pub mod bot;
pub mod cluster;
pub mod credentials;
pub mod host;
pub mod http;
pub mod keyed;
pub mod link;
pub mod matchmaking;
pub mod metrics;
pub mod partition;
pub mod peers;
pub mod quotas;
pub mod room_actor;
pub mod room_registry;
pub mod route;
pub mod searches;
pub mod serve;
pub mod session;
pub mod settings;
pub mod showcase;
pub mod sockets;
pub mod state;
pub mod telegram;
pub mod time;
pub mod tournaments;
pub mod ws_close;
pub mod ws_frames;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use actix::Arbiter;
use actix_web::{App, HttpServer, web};
use rand::Rng;
use tabula_backplane::{Backplane, BackplaneError, InProcess};
use tokio::sync::watch;

use crate::bot::{BotFactory, TabulaBots};
use crate::credentials::Authenticator;
use crate::metrics::Metrics;
pub use crate::room_actor::RoomMap;
use crate::room_actor::{RoomDeps, Shutdown};
pub use crate::room_registry::{Located, Rooms};
pub use crate::settings::Settings;
pub use crate::state::AppState;

/// Services a node can be given instead of the defaults (tests, and the
/// later Redis backplane / `tabula-bots` / `tabula-auth` wiring).
#[derive(Debug, Default)]
pub struct Services {
    /// The backplane (default: in-process).
    pub backplane: Option<Arc<dyn Backplane>>,
    /// Bot brains (default: [`TabulaBots`]).
    pub bots: Option<Arc<dyn BotFactory>>,
    /// Authentication (default: [`credentials::from_settings`]).
    pub auth: Option<Box<dyn Authenticator>>,
    /// The durable store (default: connected from `store.url` by the
    /// archiver).
    pub durable: Option<Arc<dyn tabula_store::DurableStore>>,
}

/// Why the node stopped abnormally.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The HTTP server failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
    /// The backplane (Redis) could not be reached at start-up.
    #[error("backplane: {0}")]
    Backplane(#[from] BackplaneError),
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

/// Builds the shared bear-off table on a thread of its own, once per
/// process; logs how long it took.
fn warm_bearoff() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("bearoff-warm".into())
            .spawn(|| {
                let t0 = std::time::Instant::now();
                tabula_bots::bearoff::Table::shared();
                tracing::info!(
                    ms = t0.elapsed().as_millis() as u64,
                    "bear-off database built"
                );
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "bear-off database not warmed; built at first use");
        }
    });
}

/// [`run`] with services other than the defaults.
pub async fn run_with(
    listener: std::net::TcpListener,
    settings: Settings,
    services: Services,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let metrics = Metrics::new();
    // The bots' bear-off database (about 50 ms to build, 4 MB) is built
    // now, off the runtime, rather than by the first Hard decision or hint
    // that reaches a bear-off.
    warm_bearoff();
    // Every process is a new node, even when it reuses a configured name
    // (a container restarted inside the same pod): its predecessor's lease
    // must run out so the sweep takes over the rooms nobody returns to.
    let suffix = rand::rng().random::<u32>();
    let node = if settings.cluster.node_id.is_empty() {
        format!("node-{suffix:08x}")
    } else {
        format!("{}-{suffix:08x}", settings.cluster.node_id)
    };
    let backplane: Arc<dyn Backplane> = match services.backplane {
        Some(b) => b,
        None if settings.cluster.backplane == "redis" => {
            let b = tabula_backplane::RedisBackplane::connect(settings.redis.clone(), node).await?;
            Arc::new(b)
        }
        None => Arc::new(InProcess::new(node)),
    };
    let durable = Arc::new(match services.durable {
        Some(store) => archiver::Durable::with(store),
        None => archiver::Durable::new(settings.store.enabled()),
    });
    if settings.store.enabled()
        && settings.cluster.backplane == "redis"
        && settings.store.scheme() == "sqlite"
    {
        tracing::warn!(
            "a Redis cluster with a SQLite store: each node archives the games it takes into its own file; give every node the same PostgreSQL (store.url)"
        );
    }
    let telegram = telegram::Telegram::from_settings(&settings, &metrics);
    let deps = RoomDeps {
        backplane: backplane.clone(),
        metrics: metrics.clone(),
        bots: services
            .bots
            .unwrap_or_else(|| Arc::new(TabulaBots::default())),
        bot_delay: Duration::from_millis(settings.bots.delay_ms),
        searches: searches::Searches::new(settings.bots.max_searches),
        hint_rollouts_per_minute: settings.bots.hint_rollouts_per_minute,
        takeover_grace: Duration::from_millis(settings.cluster.takeover_grace_ms),
        unload_after: Duration::from_millis(settings.rooms.unload_after_ms),
        forget_after: Duration::from_millis(settings.rooms.forget_after_ms),
        paused_forget_after: Duration::from_millis(settings.rooms.paused_forget_after_ms),
        registry: RoomMap::default(),
        durable: durable.clone(),
        notices: telegram.as_ref().map(|t| t.outbox.clone()),
    };
    let arbiters: Vec<Arbiter> = (0..settings.server.room_arbiters)
        .map(|_| Arbiter::new())
        .collect();
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let auth = services
        .auth
        .unwrap_or_else(|| Box::new(credentials::from_settings(&settings.auth)));
    let state = Arc::new(AppState {
        rooms: Rooms {
            map: deps.registry.clone(),
            arbiters: arbiters.iter().map(Arbiter::handle).collect(),
            next: AtomicUsize::new(0),
            deps,
            draining: AtomicBool::new(false),
            takeover: keyed::KeyedLocks::default(),
            max_rooms: settings.quotas.max_rooms,
            creating: AtomicUsize::new(0),
        },
        quotas: quotas::Quotas::new(&settings.quotas),
        started: std::time::Instant::now(),
        durable,
        telegram: telegram.clone(),
        showcase: showcase::Answer::default(),
        tournaments: tournaments::Tournaments::default(),
        settings: settings.clone(),
        backplane,
        metrics,
        auth,
        router: cluster::Router::default(),
        draining: AtomicBool::new(false),
        shutdown_rx,
        close_sockets: watch::channel(peers::CloseAll::No).0,
        store: peers::StoreHealth::default(),
        sockets: sockets::Sockets::with_address_cap(
            settings.server.socket_cap(),
            settings.server.max_sockets_per_player,
            settings.server.max_sockets_per_address,
        ),
    });
    let data = web::Data::from(state.clone());
    // The Mini App at `/`, mounted after the API so `/ws`, `/api/*`,
    // `/metrics`, `/healthz` and `/readyz` keep their handlers.
    let web_dir = settings.web.resolve();
    match &web_dir {
        Some(d) => tracing::info!(dir = %d.display(), "serving the Mini App at /"),
        None if settings.web.dir.is_empty() => tracing::info!("web.dir is empty: API only"),
        None => tracing::warn!(
            dir = %settings.web.dir,
            "web.dir not found: serving the API only"
        ),
    }
    let server = HttpServer::new(move || {
        let app = App::new()
            .app_data(data.clone())
            .app_data(http::json_config())
            .app_data(http::query_config())
            .app_data(http::path_config())
            .wrap(actix_web::middleware::from_fn(http::method_not_allowed))
            .configure(http::routes);
        match &web_dir {
            Some(dir) => app.service(
                web::scope("")
                    .wrap(actix_web::middleware::from_fn(http::static_cache_headers))
                    // The app's text (JS, CSS, HTML, SVG) in gzip, brotli or
                    // zstd, as the browser asks (~4x smaller); the API and
                    // the socket are not under this scope.
                    .wrap(actix_web::middleware::Compress::default())
                    .service(
                        actix_files::Files::new("/", dir)
                            .index_file("index.html")
                            .path_filter(|p, _| http::servable(p))
                            .use_etag(true)
                            .use_last_modified(true),
                    ),
            ),
            None => app,
        }
    })
    .workers(settings.server.workers)
    // Once a response is done and the connection is to close, wait this
    // long for the peer's FIN (ws_close::LINGER says why it is short).
    .client_disconnect_timeout(ws_close::LINGER)
    .disable_signals()
    .shutdown_timeout(settings.server.shutdown_timeout_secs)
    .listen(listener)?
    .run();
    let handle = server.handle();
    tracing::info!(node = %state.backplane.node_id(), "tabula node serving");
    let server_task = actix_rt::spawn(server);
    actix_rt::spawn(cluster::inbox_loop(state.clone()));
    actix_rt::spawn(cluster::heartbeat_loop(state.clone()));
    actix_rt::spawn(cluster::sweep_loop(state.clone()));
    actix_rt::spawn(cluster::beat_loop(state.clone()));
    actix_rt::spawn(cluster::watch_loop(state.clone()));
    actix_rt::spawn(peers::cut_off_loop(state.clone()));
    let archiver = actix_rt::spawn(archiver::run(state.clone()));
    actix_rt::spawn(showcase::show_loop(state.clone()));
    if let Some(tg) = telegram {
        actix_rt::spawn({
            let tg = tg.clone();
            async move { tg.start().await }
        });
        actix_rt::spawn(telegram::sender::run(state.clone(), tg));
    }
    shutdown.await;
    let started = std::time::Instant::now();
    tracing::info!(rooms = state.rooms.all().len(), "draining");
    state.draining.store(true, Ordering::SeqCst);
    state.rooms.draining.store(true, Ordering::SeqCst);
    // Hand every room off first (its sockets, here and elsewhere, are told
    // to re-route), then close this node's own sockets with 1012.
    let grace = Duration::from_millis(settings.cluster.drain_grace_ms);
    let handoff =
        futures_util::future::join_all(state.rooms.all().into_iter().map(|room| async move {
            if room.send(Shutdown).await.is_err() {
                tracing::warn!("a room stopped before its final snapshot");
            }
        }));
    if tokio::time::timeout(grace, handoff).await.is_err() {
        tracing::warn!(
            ?grace,
            "drain grace period ended before every room was handed off"
        );
    }
    tracing::info!(
        took_ms = started.elapsed().as_millis() as u64,
        "rooms handed off"
    );
    let _ = shutdown_tx.send(true);
    let _ = state.close_sockets.send(peers::CloseAll::Drain);
    if let Err(e) = state.backplane.leave().await {
        tracing::warn!(error = %e, "could not leave the cluster cleanly");
    }
    handle.stop(true).await;
    let _ = server_task.await;
    // The archiver stops between batches once told to (it was told after
    // the rooms' hand-off, and its batch has had the sockets' close and
    // HTTP's stop to finish).
    // One still running gets a second (within the chart's margin), then
    // is cancelled here, on the runtime: a store transaction dropped
    // later, outside it, panicked on SIGTERM. A batch cut short is rolled
    // back and its games stay queued.
    let mut archiver = archiver;
    if tokio::time::timeout(Duration::from_secs(1), &mut archiver)
        .await
        .is_err()
    {
        tracing::warn!("the archiver's batch was cut short by the stop; its games stay queued");
        archiver.abort();
        let _ = archiver.await;
    }
    for a in arbiters {
        a.stop();
    }
    tracing::info!("stopped");
    Ok(())
}
