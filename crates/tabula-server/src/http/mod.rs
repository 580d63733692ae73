//! HTTP routes: the socket, the room API, health and metrics; the cache
//! headers of the Mini App's static files (mounted after these routes by
//! [`crate::run_with`]).

use std::sync::atomic::Ordering;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, ClientConfig, Readiness, Session, UnfinishedGame, UnfinishedGames,
};

use crate::AppState;
use crate::credentials::Login;
use crate::session::run_session;

mod caller;
pub(crate) mod notices;
pub mod openapi;
pub(crate) mod players;
pub mod profiles;
mod request;
mod results;
pub(crate) mod rooms;
pub(crate) mod seats;
pub(crate) mod share;
pub mod tournaments;

pub use request::{ApiError, error, json_config, path_config, query_config};

use caller::{authenticate, telegram_login};
use request::{client_ip, credentials, login};

use rooms::{create_room, invite, quickmatch, room_records, room_state, room_summary, stats};

/// Mounts every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/ws", web::get().to(ws))
        .route("/healthz", web::get().to(healthz))
        .route("/readyz", web::get().to(readyz))
        .route("/metrics", web::get().to(metrics))
        .route("/api/openapi.json", web::get().to(openapi::serve))
        .route("/api/rooms", web::post().to(create_room))
        .route("/api/rooms/{id}", web::get().to(room_state))
        .route("/api/rooms/{id}/records", web::get().to(room_records))
        .route("/api/rooms/{id}/summary", web::get().to(room_summary))
        .route("/api/invites/{code}", web::get().to(invite))
        .route("/api/quickmatch", web::post().to(quickmatch))
        .route("/api/tournaments", web::post().to(tournaments::create))
        .route("/api/tournaments", web::get().to(tournaments::list))
        .route("/api/tournaments/{id}", web::get().to(tournaments::show))
        .route(
            "/api/tournaments/{id}/join",
            web::post().to(tournaments::join),
        )
        .route(
            "/api/tournaments/{id}/withdraw",
            web::post().to(tournaments::withdraw),
        )
        .route(
            "/api/tournaments/{id}/pause",
            web::post().to(tournaments::pause),
        )
        .route(
            "/api/tournaments/{id}/resume",
            web::post().to(tournaments::resume),
        )
        .route("/api/players/{id}/stats", web::get().to(stats))
        .route("/api/client-config", web::get().to(client_config))
        .route("/api/session", web::get().to(session))
        .route("/api/me/games", web::get().to(my_games))
        .route("/api/me/tournaments", web::get().to(tournaments::mine))
        .route("/api/me/name", web::post().to(profiles::set_name))
        .route("/api/me/profile", web::get().to(players::me))
        .route("/api/me", web::delete().to(players::delete_me))
        .route("/api/me/history", web::get().to(players::history))
        .route("/api/me/notices", web::get().to(notices::get))
        .route("/api/me/notices", web::put().to(notices::put))
        .route("/api/me/share", web::post().to(share::share))
        .route("/api/games/{room}/{number}", web::get().to(players::game))
        .route(
            "/api/games/{room}/{number}/analysis",
            web::get().to(players::analysis),
        )
        .route(
            "/api/leaderboards/{game}",
            web::get().to(players::leaderboard),
        )
        .route(
            "/api/players/{id}/profile",
            web::get().to(profiles::player_profile),
        )
        .route("/api/profiles", web::get().to(profiles::profiles))
        .route("/api/live", web::get().to(live))
        .route(
            "/telegram/webhook",
            web::post().to(crate::telegram::webhook::webhook),
        );
}

/// `GET /api/live`: the lobby's live games (highest-rated first), open
/// challenges and how many are online, the same from every node
/// ([`crate::showcase`]); 503 `unavailable` when the backplane is not
/// reached.
async fn live(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match state.showcase.get(state.backplane.as_ref()).await {
        Ok(v) => Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(v)),
        Err(e) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )),
    }
}

async fn ws(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, actix_web::Error> {
    if state.draining.load(Ordering::SeqCst) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the node is draining",
        )
        .into());
    }
    if state.store.is_cut_off() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "this node is cut off from its store; connect to another",
        )
        .into());
    }
    let Login {
        player,
        telegram,
        language,
    } = login(&state, &req, &q)?;
    // A place among the node's sockets and the player's, held for the
    // socket's life.
    let address = client_ip(&state, &req).map(crate::quotas::counted_address);
    let slot = match state
        .sockets
        .admit(&player, address, std::time::Instant::now())
    {
        Ok(slot) => slot,
        Err(refusal) => {
            state
                .metrics
                .socket_limits
                .with_label_values(&[refusal.label()])
                .inc();
            return Err(match refusal {
                crate::sockets::Refusal::NodeFull => ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::Unavailable,
                    "this node holds all the sockets it takes; connect to another or retry",
                ),
                crate::sockets::Refusal::AddressFull => ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    "too many sockets from this address; close one",
                ),
                crate::sockets::Refusal::CoolingDown => ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    "a socket from this address flooded the node; wait before reconnecting",
                ),
                crate::sockets::Refusal::PlayerFull => ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    format!(
                        "{} sockets open for this player already; close one",
                        state.settings.server.max_sockets_per_player
                    ),
                ),
            }
            .into());
        }
    };
    let max = state.settings.server.max_frame_bytes;
    // Oversized frames are refused at their header (crate::ws_frames).
    let mut guarded = crate::ws_frames::guard(body.into_inner(), max);
    let body = <web::Payload as actix_web::FromRequest>::from_request(&req, &mut guarded).await?;
    let (resp, session, stream) = actix_ws::handle(&req, body)?;
    let stream = stream
        .max_frame_size(max)
        .aggregate_continuations()
        .max_continuation_size(max);
    // Refreshed from signed initData (or kept) before `welcome` names it.
    let keep = profiles::keep(&state.settings.auth, &player);
    let profile = profiles::on_login(&*state.backplane, keep, &player, telegram.as_ref()).await;
    crate::archiver::refresh_profile(&state, &player, telegram.as_ref(), language);
    let st = state.into_inner();
    // Closed sockets let go of their connection (crate::ws_close).
    let (resp, verdict) = crate::ws_close::guard(resp);
    actix_rt::spawn(run_session(
        st, player, profile, session, stream, slot, verdict,
    ));
    Ok(resp)
}

/// `GET /api/session`: whether a client's credentials still name a player
/// (the Mini App asks before it gives up a guest's token after failed
/// connects), with a fresh token.
async fn session(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, ApiError> {
    let player = authenticate(&state, &req, &q)?;
    Ok(HttpResponse::Ok().json(Session {
        token: state.auth.issue_token(&player),
        player: player.0,
    }))
}

/// `GET /api/me/games`: the player's games waiting for him (games against
/// a bot he left; seed 001's "continue later"), newest first, for the
/// lobby's "Continue" cards. Authenticated as `/api/session`.
async fn my_games(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, ApiError> {
    let player = authenticate(&state, &req, &q)?;
    match state.backplane.unfinished(&player.0).await {
        Ok(list) => {
            let mut games: Vec<UnfinishedGame> = list
                .iter()
                .filter_map(|j| serde_json::from_str(j).ok())
                .collect();
            games.sort_by_key(|g| std::cmp::Reverse(g.paused_at));
            Ok(HttpResponse::Ok().json(UnfinishedGames { games }))
        }
        Err(e) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )),
    }
}

/// Always 200 while the process serves; the body tells a peer how long ago
/// this node last reached its store ([`crate::peers::Health`]).
async fn healthz(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(crate::peers::health(&state))
}

async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let (mut res, status) = if state.draining.load(Ordering::SeqCst) {
        (HttpResponse::ServiceUnavailable(), "draining")
    } else if state.store.is_cut_off() {
        (HttpResponse::ServiceUnavailable(), "cut_off")
    } else {
        (HttpResponse::Ok(), "ready")
    };
    res.json(Readiness {
        status: status.into(),
    })
}

async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    // The archive queue is shared by every node: its backlog is read at
    // each scrape (what a node's archiver last saw may be seconds old, and
    // a node whose store is not reached archives nothing). A backplane that
    // does not answer in time leaves the last figure.
    if state.durable.configured() {
        let _ = tokio::time::timeout(
            std::time::Duration::from_millis(500),
            crate::archiver::backlog(state.backplane.as_ref(), &state.metrics),
        )
        .await;
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}

/// Whether a path under `web.dir` is part of the app: not its tests, its
/// npm packages, its package manifests or a dotfile.
pub fn servable(path: &std::path::Path) -> bool {
    let mut parts = path.components().map(|c| c.as_os_str().to_string_lossy());
    let Some(first) = parts.next() else {
        return true;
    };
    !(first.starts_with('.')
        || matches!(
            first.as_ref(),
            "node_modules" | "tests" | "package.json" | "package-lock.json"
        )
        || parts.any(|p| p.starts_with('.')))
}

/// A route asked with a method it does not take. actix answers 405 in
/// plain text; the API answers every refusal with its JSON error body
/// (docs/protocol.md), and RFC 9110 wants the route's methods in `Allow`
/// (read from the OpenAPI document, which has every route). A 404 of a
/// route that exists, for a method it does not take, is this 405 too.
pub async fn method_not_allowed(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let res = next.call(req).await?;
    // A route whose guard refuses the method is passed over by actix, so
    // an API route asked with another method ends in the Mini App's files
    // (a 404 or 405 of theirs) or in actix's own 405.
    let status = res.status();
    if status != StatusCode::METHOD_NOT_ALLOWED && status != StatusCode::NOT_FOUND {
        return Ok(res.map_into_left_body());
    }
    let allow = openapi::methods(res.request().path());
    let method = res.request().method().as_str();
    if status == StatusCode::NOT_FOUND
        && (allow.is_empty() || allow.split(", ").any(|m| m == method))
    {
        return Ok(res.map_into_left_body());
    }
    let (req, _) = res.into_parts();
    let allow = if allow.is_empty() {
        "GET, HEAD".into()
    } else {
        allow
    };
    let mut refusal = error(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::BadRequest,
        format!("{} takes {allow}, not {}", req.path(), req.method()),
    );
    if let Ok(v) = HeaderValue::from_str(&allow) {
        refusal.headers_mut().insert(header::ALLOW, v);
    }
    Ok(ServiceResponse::new(req, refusal).map_into_right_body())
}

/// Cache headers for the Mini App's static files (ETag and Last-Modified
/// come from `actix-files`): HTML is revalidated on every load
/// (`no-cache`), so a deploy is picked up at once; scripts, styles and
/// images are fresh for five minutes, then revalidated.
pub async fn static_cache_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let path = req.path();
    let html = path.ends_with('/') || path.ends_with(".html");
    let mut res = next.call(req).await?;
    let status = res.status();
    if status.is_success() || status == StatusCode::NOT_MODIFIED {
        let value = if html {
            "no-cache"
        } else {
            "public, max-age=300"
        };
        let h = res.headers_mut();
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
    }
    Ok(res)
}

/// `GET /api/client-config`: what the Mini App needs to know about this
/// deployment (its Telegram link, for invites).
async fn client_config(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(ClientConfig {
        telegram_app_url: state.settings.web.telegram_app_url.clone(),
        guest: state.settings.auth.guest_enabled(),
    })
}
