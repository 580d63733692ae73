//! HTTP routes: the socket, the room API, health and metrics; the cache
//! headers of the Mini App's static files (mounted after these routes by
//! [`crate::run_with`]).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_backplane::{BackplaneError, RoomEntry, Ticket};
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, BotSpec, ClientConfig, CreateRoom, ErrorBody, QuickMatch, Readiness, RoomCreated,
    RoomState, RoomSummary, Session,
};
use tabula_room::{
    BotLevel, GameKind, GameOptions, GameSetup, PlayerId, RoomConfig, Stake, StartPosition,
};

use crate::AppState;
use crate::auth::Credentials;
use crate::room_actor::GetView;
use crate::session::run_session;

/// Mounts every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/ws", web::get().to(ws))
        .route("/healthz", web::get().to(healthz))
        .route("/readyz", web::get().to(readyz))
        .route("/metrics", web::get().to(metrics))
        .route("/api/rooms", web::post().to(create_room))
        .route("/api/rooms/{id}", web::get().to(room_state))
        .route("/api/rooms/{id}/records", web::get().to(room_records))
        .route("/api/rooms/{id}/summary", web::get().to(room_summary))
        .route("/api/invites/{code}", web::get().to(invite))
        .route("/api/quickmatch", web::post().to(quickmatch))
        .route("/api/players/{id}/stats", web::get().to(stats))
        .route("/api/client-config", web::get().to(client_config))
        .route("/api/session", web::get().to(session));
}

/// The JSON error body: `{"error": {"code", "message"}}`.
pub fn error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status).json(ErrorBody::new(code, message))
}

/// Request bodies: JSON up to 64 KiB; a refused one gets the same
/// `{"error"}` body as every other refusal (413 over the limit, 415 for
/// another content type, 400 for JSON that does not read).
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(64 * 1024)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError as E;
            let status = match &err {
                E::OverflowKnownLength { .. } | E::Overflow { .. } => StatusCode::PAYLOAD_TOO_LARGE,
                E::ContentType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
                _ => StatusCode::BAD_REQUEST,
            };
            let message = match &err {
                E::ContentType => "send the body as application/json".to_string(),
                other => other.to_string(),
            };
            let res = error(status, ErrorCode::BadRequest, message);
            actix_web::error::InternalError::from_response(err, res).into()
        })
}

/// Query strings that do not read: 400 with the `{"error"}` body.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        let res = error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            err.to_string(),
        );
        actix_web::error::InternalError::from_response(err, res).into()
    })
}

fn credentials(req: &HttpRequest, q: &AuthQuery) -> Credentials {
    let header = |n: &str| {
        req.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Credentials {
        init_data: q
            .init_data
            .clone()
            .or_else(|| header("x-telegram-init-data")),
        token: q.token.clone().or_else(|| {
            header("authorization").and_then(|a| a.strip_prefix("Bearer ").map(str::to_string))
        }),
        guest: q.guest.clone(),
    }
}

fn authenticate(
    state: &AppState,
    req: &HttpRequest,
    q: &AuthQuery,
) -> Result<PlayerId, Box<HttpResponse>> {
    state.auth.authenticate(&credentials(req, q)).map_err(|e| {
        Box::new(error(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            e.to_string(),
        ))
    })
}

async fn ws(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, actix_web::Error> {
    if state.draining.load(Ordering::SeqCst) {
        return Ok(error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the node is draining",
        ));
    }
    if state.store.is_cut_off() {
        return Ok(error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "this node is cut off from its store; connect to another",
        ));
    }
    let player = match authenticate(&state, &req, &q) {
        Ok(p) => p,
        Err(r) => return Ok(*r),
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
    let st = state.into_inner();
    actix_rt::spawn(run_session(st, player, session, stream));
    Ok(resp)
}

/// `GET /api/session`: whether a client's credentials still name a player
/// (the Mini App asks before it gives up a guest's token after failed
/// connects), with a fresh token.
async fn session(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> HttpResponse {
    match authenticate(&state, &req, &q) {
        Ok(player) => HttpResponse::Ok().json(Session {
            token: state.auth.issue_token(&player),
            player: player.0,
        }),
        Err(r) => *r,
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
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}

fn created(e: &RoomEntry, bot: Option<BotLevel>) -> RoomCreated {
    RoomCreated {
        room_id: e.id.clone(),
        invite: e.invite.clone(),
        game: e.options.game,
        bot,
        token: None,
    }
}

/// The level of an optional `{"level": ...}` field named `field`.
fn spec_level(spec: Option<&BotSpec>, field: &str) -> Result<Option<BotLevel>, Box<HttpResponse>> {
    let Some(b) = spec else {
        return Ok(None);
    };
    b.level().map(Some).ok_or_else(|| {
        Box::new(error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("{field}.level must be 1, 2, 3, easy, medium or hard"),
        ))
    })
}

fn room_config(state: &AppState, c: &CreateRoom) -> Result<RoomConfig, Box<HttpResponse>> {
    let mut options = c.options.unwrap_or_default();
    options.game = c.game;
    let bot = spec_level(c.bot.as_ref(), "bot")?;
    let replace_leaver = spec_level(c.replace_leaver.as_ref(), "replaceLeaver")?;
    let match_length = c.match_length.unwrap_or(1);
    if !(1..=64).contains(&match_length) {
        return Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            "matchLength must be 1..=64",
        )));
    }
    if let Some(Err(e)) = c.stake.as_ref().map(Stake::check) {
        let e = error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            e.to_string(),
        );
        return Err(Box::new(e));
    }
    let start_position = match &c.start_position {
        None => None,
        Some(v) => Some(start_position(state, options, v)?),
    };
    let mut seed = [0u8; 32];
    rand::Rng::fill(&mut rand::rng(), &mut seed);
    Ok(RoomConfig {
        options,
        stake: c.stake.clone(),
        match_length,
        grace_ms: state.settings.rooms.grace_ms,
        bot,
        replace_leaver,
        master_seed: seed.iter().map(|b| format!("{b:02x}")).collect(),
        chat_max_chars: state.settings.rooms.chat_max_chars,
        start_position,
        ..RoomConfig::default()
    })
}

/// `startPosition` of a create request: refused (403) unless the node runs
/// with `testing.allow_start_position`; 400 when it is not a legal position
/// of the room's game.
fn start_position(
    state: &AppState,
    options: GameOptions,
    v: &serde_json::Value,
) -> Result<StartPosition, Box<HttpResponse>> {
    let bad = |status: StatusCode, message: String| {
        Box::new(error(status, ErrorCode::BadRequest, message))
    };
    if !state.settings.testing.allow_start_position {
        return Err(bad(
            StatusCode::FORBIDDEN,
            "startPosition is a test-only option, off on this node \
             (testing.allow_start_position = false)"
                .into(),
        ));
    }
    let parsed = match options.game {
        GameKind::LongNardy => serde_json::from_value(v.clone()).map(StartPosition::LongNardy),
        GameKind::Backgammon => serde_json::from_value(v.clone()).map(StartPosition::Backgammon),
        _ => {
            return Err(bad(
                StatusCode::BAD_REQUEST,
                "startPosition is supported for long_nardy and backgammon only".into(),
            ));
        }
    };
    let start = parsed.map_err(|e| bad(StatusCode::BAD_REQUEST, format!("startPosition: {e}")))?;
    let setup = GameSetup {
        options,
        game_number: 1,
        cube_enabled: false,
        crawford: false,
        server_seed: String::new(),
        client_seeds: [String::new(), String::new()],
        start: Some(start),
        dice_script: None,
    };
    setup
        .check()
        .map_err(|e| bad(StatusCode::BAD_REQUEST, format!("startPosition: {e}")))?;
    Ok(setup.start.unwrap_or_else(|| unreachable!("set above")))
}

async fn create_room(state: web::Data<AppState>, body: web::Json<CreateRoom>) -> HttpResponse {
    if state.draining.load(Ordering::SeqCst) {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the node is draining",
        );
    }
    let cfg = match room_config(&state, &body) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let bot = cfg.bot;
    match state.rooms.create(cfg).await {
        Ok(e) => HttpResponse::Created().json(created(&e, bot)),
        Err(e) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        ),
    }
}

/// The room a path names, by id or invite code.
async fn find_room(state: &AppState, id: &str) -> Result<RoomEntry, HttpResponse> {
    let bp = &state.backplane;
    let entry = match bp.lookup(id).await {
        Ok(Some(e)) => Some(e),
        Ok(None) => bp.resolve_invite(id).await.ok().flatten(),
        Err(e) => {
            return Err(error(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                e.to_string(),
            ));
        }
    };
    entry.ok_or_else(room_not_found)
}

fn room_not_found() -> HttpResponse {
    error(
        StatusCode::NOT_FOUND,
        ErrorCode::RoomNotFound,
        "no such room",
    )
}

/// A room as its last snapshot holds it: every acknowledged move is in
/// it, so any node can answer for a room owned elsewhere.
async fn stored_room(state: &AppState, id: &str) -> Result<tabula_room::Room, HttpResponse> {
    match state.backplane.load_snapshot(id).await {
        Ok(Some(stored)) => tabula_room::Room::restore(&stored.snapshot).map_err(|e| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                e.to_string(),
            )
        }),
        Ok(None) => Err(room_not_found()),
        Err(e) => Err(error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )),
    }
}

async fn room_state(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    let entry = match find_room(&state, &id).await {
        Ok(e) => e,
        Err(r) => return r,
    };
    if let Some(addr) = state.rooms.local(&entry.id)
        && let Ok(v) = addr.send(GetView).await
    {
        return HttpResponse::Ok().json(RoomState {
            room_id: id.to_string(),
            state: Box::new(v),
        });
    }
    match stored_room(&state, &entry.id).await {
        Ok(room) => HttpResponse::Ok().json(RoomState {
            room_id: id.to_string(),
            state: Box::new(room.view()),
        }),
        Err(r) => r,
    }
}

/// `GET /api/rooms/{id}/records`: the finished games' records (the input of
/// `tabula verify`), from the store, so any node serves them.
async fn room_records(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    match state.backplane.records(&id).await {
        // No records: a room that has not finished a game yet, or no room
        // (404, as for the room's other routes). Records outlive their
        // room, so they are served whether or not it is still listed.
        Ok(recs) if recs.is_empty() => match find_room(&state, &id).await {
            Ok(_) => HttpResponse::Ok().json(Vec::<serde_json::Value>::new()),
            Err(r) => r,
        },
        Ok(recs) => {
            let values: Vec<serde_json::Value> = recs
                .iter()
                .filter_map(|r| serde_json::from_str(r).ok())
                .collect();
            HttpResponse::Ok().json(values)
        }
        Err(e) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        ),
    }
}

/// `GET /api/rooms/{id}/summary`: seed 001's results summary of the
/// current (or last) game — checkers borne off, moves, doubles and hits per
/// seat — from the room's stored snapshot, so any node answers.
async fn room_summary(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    let entry = match find_room(&state, &id).await {
        Ok(e) => e,
        Err(r) => return r,
    };
    match stored_room(&state, &entry.id).await {
        Ok(room) => HttpResponse::Ok().json(RoomSummary {
            room_id: entry.id,
            game_number: room.game_number(),
            summary: room.game().map(|g| g.summary().clone()),
            result: room.game().and_then(|g| g.result()).cloned(),
        }),
        Err(r) => r,
    }
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

async fn invite(state: web::Data<AppState>, code: web::Path<String>) -> HttpResponse {
    match state.backplane.resolve_invite(&code).await {
        Ok(Some(e)) => HttpResponse::Ok().json(created(&e, None)),
        _ => error(
            StatusCode::NOT_FOUND,
            ErrorCode::RoomNotFound,
            "no such invite",
        ),
    }
}

async fn stats(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    match state.backplane.stats(&id).await {
        Ok(s) => HttpResponse::Ok().json(s),
        Err(e) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal,
            e.to_string(),
        ),
    }
}

async fn quickmatch(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<QuickMatch>,
) -> HttpResponse {
    if state.draining.load(Ordering::SeqCst) {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the node is draining",
        );
    }
    let player = match authenticate(&state, &req, &q) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let mut options = body.options.unwrap_or_default();
    options.game = body.game;
    let key = serde_json::to_string(&options).unwrap_or_default();
    let mut create = CreateRoom {
        game: body.game,
        options: Some(options),
        stake: None,
        bot: None,
        match_length: None,
        replace_leaver: None,
        start_position: None,
    };
    let unavailable = |e: BackplaneError| {
        error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )
    };
    // The waiting list lives in the backplane, so players on different
    // nodes meet.
    let ticket = Ticket {
        id: rand::Rng::random::<u64>(&mut rand::rng()) >> 1,
        player: player.0.clone(),
    };
    let bp = &state.backplane;
    match bp.match_or_wait(&key, ticket.clone()).await {
        Err(e) => return unavailable(e),
        Ok(Some(partner)) => {
            let cfg = match room_config(&state, &create) {
                Ok(c) => c,
                Err(r) => return *r,
            };
            return match state.rooms.create(cfg).await {
                Ok(e) => {
                    let c = created(&e, None);
                    let json = serde_json::to_string(&c).unwrap_or_default();
                    if let Err(e) = bp.deliver_match(partner.id, json).await {
                        tracing::warn!(error = %e, "quick match not delivered to the partner");
                    }
                    HttpResponse::Ok().json(with_token(&state, &player, c))
                }
                Err(e) => unavailable(e),
            };
        }
        Ok(None) => {}
    }
    let deadline = Instant::now() + Duration::from_millis(state.settings.matchmaking.bot_after_ms);
    let mut cancelled = false;
    // After a failed cancel the partner is delivering: wait a little more.
    let mut hard_deadline = deadline;
    loop {
        match bp.poll_match(ticket.id).await {
            Ok(Some(json)) => match serde_json::from_str::<RoomCreated>(&json) {
                Ok(c) => return HttpResponse::Ok().json(with_token(&state, &player, c)),
                Err(_) => {
                    return error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        ErrorCode::Internal,
                        "matchmaking",
                    );
                }
            },
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "quick match poll failed"),
        }
        let now = Instant::now();
        if now >= deadline && !cancelled {
            match bp.cancel_ticket(&key, ticket.id).await {
                Ok(true) => break,
                Ok(false) => {
                    cancelled = true;
                    hard_deadline = now + Duration::from_secs(5);
                }
                Err(e) => return unavailable(e),
            }
        }
        if cancelled && now >= hard_deadline {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                "the matched partner did not deliver a room; try again",
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    create.bot = Some(BotSpec {
        level: serde_json::json!(state.settings.matchmaking.bot_level),
    });
    let cfg = match room_config(&state, &create) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let bot = cfg.bot;
    match state.rooms.create(cfg).await {
        Ok(e) => HttpResponse::Ok().json(with_token(&state, &player, created(&e, bot))),
        Err(e) => unavailable(e),
    }
}

/// The quick-match answer carries the player's session token (when the
/// node issues them), so the socket that follows can authenticate with it.
fn with_token(state: &AppState, player: &PlayerId, c: RoomCreated) -> RoomCreated {
    RoomCreated {
        token: state.auth.issue_token(player),
        ..c
    }
}
