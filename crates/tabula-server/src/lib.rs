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
//! * Authentication goes through [`auth::Authenticator`]: guest mode,
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

pub mod auth;
pub mod bot;
pub mod cluster;
pub mod host;
pub mod http;
pub mod link;
pub mod metrics;
pub mod partition;
pub mod peers;
pub mod quotas;
pub mod room_actor;
pub mod route;
pub mod searches;
pub mod serve;
pub mod session;
pub mod settings;
pub mod sockets;
pub mod ws_frames;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix::{Actor, Addr, Arbiter, ArbiterHandle};
use actix_web::{App, HttpServer, web};
use rand::Rng;
use tabula_backplane::{Backplane, BackplaneError, InProcess, NodeId, RoomEntry, StoredRoom};
use tabula_room::{Room, RoomConfig};
use tokio::sync::watch;

use crate::auth::Authenticator;
use crate::bot::{BotFactory, TabulaBots};
use crate::metrics::Metrics;
use crate::room_actor::{RoomActor, RoomDeps, Shutdown, now_ms};
pub use crate::settings::Settings;

/// Where a room is served.
#[derive(Debug, Clone)]
pub enum Located {
    /// By an actor on this node.
    Local(Addr<RoomActor>),
    /// By another node.
    Remote(NodeId),
}

/// Registers the first of `make`'s entries whose id and invite code are
/// both free. Six-letter invite codes (~10⁹ of them) collide now and then
/// once a store holds thousands of rooms (the 9,900-match load run met one,
/// which failed that room's creation); a collision is not an error the
/// player should see, so another code is drawn.
async fn register_fresh(
    bp: &dyn Backplane,
    mut make: impl FnMut() -> RoomEntry,
) -> Result<RoomEntry, BackplaneError> {
    const ATTEMPTS: usize = 8;
    let mut last = None;
    for _ in 0..ATTEMPTS {
        let entry = make();
        match bp.register(entry.clone()).await {
            Ok(()) => return Ok(entry),
            Err(BackplaneError::Exists(taken)) => {
                tracing::debug!(%taken, "room id or invite code taken; drawing another");
                last = Some(taken);
            }
            Err(e) => return Err(e),
        }
    }
    Err(BackplaneError::Exists(last.unwrap_or_default()))
}

/// The room actors of a node by room id. Shared with the actors, so that
/// one that stops (unloaded, fenced, drained) takes itself out.
pub type RoomMap = Arc<Mutex<HashMap<String, Addr<RoomActor>>>>;

/// The rooms this node owns, and the arbiters they run on.
#[derive(Debug)]
pub struct Rooms {
    map: RoomMap,
    arbiters: Vec<ArbiterHandle>,
    next: AtomicUsize,
    deps: RoomDeps,
    /// Set when the node drains: it takes no rooms any more.
    draining: AtomicBool,
    /// One takeover at a time on this node, so two sessions that find the
    /// same orphan do not claim it twice (each claim bumps the epoch).
    takeover: tokio::sync::Mutex<()>,
    /// Rooms held in memory at most (`quotas.max_rooms`), see
    /// [`Rooms::admits`].
    max_rooms: usize,
    /// Creations under way (counted against `max_rooms` before their
    /// actor is registered).
    creating: AtomicUsize,
}

/// Counts a creation under way for as long as it lives.
struct Creating<'a>(&'a AtomicUsize);

impl Drop for Creating<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Rooms {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Addr<RoomActor>>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the node may hold one more room for `reason` (`create`,
    /// `sweep`, `join`, `rejoin`), counting `pending` rooms not yet
    /// registered. New rooms and the orphan sweep stop at `max_rooms`; a
    /// player's join (or a front's re-join) may restore a stored room up
    /// to a quarter more. Why: that room exists already and someone is
    /// waiting at it, so refusing it would break a game in progress, while
    /// creation, which an attacker controls, is what the cap must stop;
    /// the reserve is bounded too, because joins can be repeated over
    /// stored rooms (room hopping).
    pub fn admits(held: usize, pending: usize, max_rooms: usize, reason: &str) -> bool {
        let cap = match reason {
            "join" | "rejoin" => max_rooms.saturating_add(max_rooms / 4),
            _ => max_rooms,
        };
        held.saturating_add(pending) < cap
    }

    /// `Unavailable` (and a count in `tabula_quota_refusals_total`) when
    /// the node holds as many rooms as it may for `reason`.
    fn check_cap(&self, reason: &str) -> Result<(), BackplaneError> {
        let held = self.lock().len();
        let pending = self.creating.load(Ordering::SeqCst);
        if Rooms::admits(held, pending, self.max_rooms, reason) {
            return Ok(());
        }
        self.deps
            .metrics
            .quota_refusals
            .with_label_values(&[reason, "room_cap"])
            .inc();
        let max = self.max_rooms;
        tracing::debug!(held, max_rooms = max, reason, "room cap reached");
        Err(BackplaneError::Unavailable(format!(
            "this node holds its maximum of rooms ({held} in memory, quotas.max_rooms = {max}); try again later"
        )))
    }

    /// Rooms held in memory.
    pub fn held(&self) -> usize {
        self.lock().len()
    }

    /// Creates, registers, claims and starts a room.
    pub async fn create(&self, config: RoomConfig) -> Result<RoomEntry, BackplaneError> {
        if self.draining.load(Ordering::SeqCst) {
            return Err(BackplaneError::Unavailable("the node is draining".into()));
        }
        self.check_cap("create")?;
        self.creating.fetch_add(1, Ordering::SeqCst);
        let _creating = Creating(&self.creating);
        let bp = &self.deps.backplane;
        let options = config.options;
        let entry = register_fresh(bp.as_ref(), || {
            let mut rng = rand::rng();
            const ALPHA: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
            RoomEntry {
                id: format!("{:012x}", rng.random::<u64>() & 0xffff_ffff_ffff),
                invite: (0..6)
                    .map(|_| ALPHA[rng.random_range(0..ALPHA.len())] as char)
                    .collect(),
                options,
                created_ms: now_ms(),
            }
        })
        .await?;
        let id = entry.id.clone();
        let lease = bp.claim(&id).await?;
        self.deps
            .metrics
            .claims
            .with_label_values(&["create"])
            .inc();
        let room = Room::new(config);
        let stored = StoredRoom {
            entry: entry.clone(),
            snapshot: room.snapshot(),
            seqs: Default::default(),
        };
        bp.save_snapshot(&id, lease.epoch, stored).await?;
        self.start(entry.clone(), room, lease.epoch, Default::default(), false);
        tracing::info!(room = %entry.id, invite = %entry.invite, game = ?entry.options.game, "room created");
        Ok(entry)
    }

    fn start(
        &self,
        entry: RoomEntry,
        room: Room,
        epoch: u64,
        seqs: std::collections::BTreeMap<String, u64>,
        taken_over: bool,
    ) -> Addr<RoomActor> {
        let n = self.next.fetch_add(1, Ordering::Relaxed) % self.arbiters.len();
        let deps = self.deps.clone();
        let id = entry.id.clone();
        // Made here, not on the arbiter: it counts itself in `tabula_rooms`
        // before the caller answers (a `POST /api/rooms` then scraped at
        // once sees its room).
        let actor = RoomActor::new(entry, room, epoch, seqs, taken_over, deps);
        let addr = RoomActor::start_in_arbiter(&self.arbiters[n], move |_| actor);
        self.lock().insert(id, addr.clone());
        addr
    }

    /// The live actor of a room this node owns.
    pub fn local(&self, id: &str) -> Option<Addr<RoomActor>> {
        let mut m = self.lock();
        match m.get(id) {
            Some(a) if a.connected() => Some(a.clone()),
            Some(_) => {
                // Stopped (fenced, drained): forget it.
                m.remove(id);
                None
            }
            None => None,
        }
    }

    /// A room by id or invite code, and where it is served: here, on its
    /// live owner, or here after a takeover when its owner is gone.
    pub async fn locate(&self, key: &str) -> Result<Option<(RoomEntry, Located)>, BackplaneError> {
        let bp = &self.deps.backplane;
        let entry = match bp.lookup(key).await? {
            Some(e) => e,
            None => match bp.resolve_invite(key).await? {
                Some(e) => e,
                None => return Ok(None),
            },
        };
        if let Some(a) = self.local(&entry.id) {
            return Ok(Some((entry, Located::Local(a))));
        }
        if let Some(lease) = bp.owner(&entry.id).await?
            && lease.node != bp.node_id()
            && bp.node_alive(&lease.node).await?
        {
            return Ok(Some((entry, Located::Remote(lease.node))));
        }
        let at = self.take_over(&entry.id, "join").await?;
        Ok(Some((entry, at)))
    }

    /// Claims a room whose owner is gone and restores it from its last
    /// snapshot. A live owner found on the way is returned instead.
    pub async fn take_over(&self, id: &str, reason: &str) -> Result<Located, BackplaneError> {
        if self.draining.load(Ordering::SeqCst) {
            return Err(BackplaneError::Unavailable("the node is draining".into()));
        }
        let _one = self.takeover.lock().await;
        if let Some(a) = self.local(id) {
            return Ok(Located::Local(a));
        }
        self.check_cap(reason)?;
        let bp = &self.deps.backplane;
        let lease = match bp.claim(id).await {
            Ok(l) => l,
            Err(BackplaneError::Owned { owner, .. }) => return Ok(Located::Remote(owner)),
            Err(e) => return Err(e),
        };
        let m = &self.deps.metrics;
        m.claims.with_label_values(&[reason]).inc();
        let restored = match bp.load_snapshot(id).await {
            Ok(Some(stored)) => Room::restore(&stored.snapshot)
                .map(|room| (stored, room))
                .map_err(|e| BackplaneError::Corrupt(e.to_string())),
            Ok(None) => Err(BackplaneError::Corrupt(format!(
                "room {id} has no snapshot"
            ))),
            Err(e) => Err(e),
        };
        let (stored, room) = match restored {
            Ok(r) => r,
            Err(e) => {
                let _ = bp.release(id, lease.epoch, false).await;
                tracing::error!(room = %id, error = %e, "takeover failed");
                return Err(e);
            }
        };
        m.takeovers.with_label_values(&[reason]).inc();
        tracing::info!(room = %id, epoch = lease.epoch, version = room.version(), reason, "room taken over");
        let addr = self.start(stored.entry, room, lease.epoch, stored.seqs, true);
        Ok(Located::Local(addr))
    }

    /// Every room actor with its id.
    pub fn owned(&self) -> Vec<(String, Addr<RoomActor>)> {
        self.lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
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
    /// Cross-node routing tables.
    pub router: cluster::Router,
    /// Set once the node drains.
    pub draining: AtomicBool,
    /// Fires when the node drains (its background loops end).
    pub shutdown_rx: watch::Receiver<bool>,
    /// Tells every socket of this node to close with 1012 (a drain, or the
    /// node cut off from its store): sessions watch it, not `shutdown_rx`.
    pub close_sockets: watch::Sender<peers::CloseAll>,
    /// When the store was last reached; whether the node is cut off.
    pub store: peers::StoreHealth,
    /// The sockets held, against `server.max_sockets` and
    /// `server.max_sockets_per_player`.
    pub sockets: Arc<sockets::Sockets>,
    /// Room-making quotas per player and per address.
    pub quotas: quotas::Quotas,
    /// When the node started (the quotas' clock).
    pub started: std::time::Instant,
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

/// [`run`] with services other than the defaults.
pub async fn run_with(
    listener: std::net::TcpListener,
    settings: Settings,
    services: Services,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let metrics = Metrics::new();
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
        registry: RoomMap::default(),
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
            map: deps.registry.clone(),
            arbiters: arbiters.iter().map(Arbiter::handle).collect(),
            next: AtomicUsize::new(0),
            deps,
            draining: AtomicBool::new(false),
            takeover: tokio::sync::Mutex::new(()),
            max_rooms: settings.quotas.max_rooms,
            creating: AtomicUsize::new(0),
        },
        quotas: quotas::Quotas::new(&settings.quotas),
        started: std::time::Instant::now(),
        settings: settings.clone(),
        backplane,
        metrics,
        auth,
        router: cluster::Router::default(),
        draining: AtomicBool::new(false),
        shutdown_rx,
        close_sockets: watch::channel(peers::CloseAll::No).0,
        store: peers::StoreHealth::default(),
        sockets: sockets::Sockets::new(
            settings.server.socket_cap(),
            settings.server.max_sockets_per_player,
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
            .configure(http::routes);
        match &web_dir {
            Some(dir) => app.service(
                web::scope("")
                    .wrap(actix_web::middleware::from_fn(http::static_cache_headers))
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
    // long for the peer's FIN. A WebSocket client, as RFC 6455 asks,
    // waits for the server to close the TCP connection after the closing
    // handshake; actix's default of one second made every close (the
    // 1012 of a drain included) reach the client ~1 s late.
    .client_disconnect_timeout(Duration::from_millis(50))
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
    for a in arbiters {
        a.stop();
    }
    tracing::info!("stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_backplane::RoomStore;

    fn entry(id: &str, invite: &str) -> RoomEntry {
        RoomEntry {
            id: id.into(),
            invite: invite.into(),
            options: Default::default(),
            created_ms: 0,
        }
    }

    #[test]
    fn the_room_cap_stops_creation_and_keeps_a_reserve_for_joins() {
        // Under the cap everything is admitted
        for reason in ["create", "sweep", "join", "rejoin"] {
            assert!(Rooms::admits(99, 0, 100, reason), "{reason}");
        }
        // At it (rooms being created count), creation and the sweep stop
        for reason in ["create", "sweep"] {
            assert!(!Rooms::admits(100, 0, 100, reason), "{reason}");
            assert!(!Rooms::admits(98, 2, 100, reason), "{reason}");
        }
        // A player's join restores a stored room up to a quarter more
        for reason in ["join", "rejoin"] {
            assert!(Rooms::admits(100, 0, 100, reason), "{reason}");
            assert!(Rooms::admits(124, 0, 100, reason), "{reason}");
            assert!(!Rooms::admits(125, 0, 100, reason), "{reason}");
        }
        assert!(!Rooms::admits(usize::MAX, 1, usize::MAX, "join"));
    }

    #[actix_rt::test]
    async fn a_taken_invite_code_draws_another() {
        let bp = InProcess::new("n1");
        bp.register(entry("r1", "ABCDEF")).await.unwrap();
        let mut offers = vec![entry("r3", "GHJKLM"), entry("r2", "ABCDEF")];
        let got = register_fresh(&bp, || offers.pop().unwrap()).await.unwrap();
        assert_eq!(got.id, "r3");
        // The first room keeps its code; the second is found by its own.
        assert_eq!(bp.resolve_invite("ABCDEF").await.unwrap().unwrap().id, "r1");
        assert_eq!(bp.resolve_invite("GHJKLM").await.unwrap().unwrap().id, "r3");
        assert!(bp.lookup("r2").await.unwrap().is_none());
    }

    #[actix_rt::test]
    async fn gives_up_after_a_few_collisions() {
        let bp = InProcess::new("n1");
        bp.register(entry("r1", "ABCDEF")).await.unwrap();
        let mut n = 0;
        let e = register_fresh(&bp, || {
            n += 1;
            entry(&format!("x{n}"), "ABCDEF")
        })
        .await
        .unwrap_err();
        assert!(
            matches!(e, BackplaneError::Exists(ref c) if c == "ABCDEF"),
            "{e}"
        );
        assert_eq!(n, 8);
    }
}
