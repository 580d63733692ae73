//! The room API: create (`POST /api/rooms`), look up by id or invite,
//! state, records and summary from the store (any node answers), players'
//! statistics, and quick match.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_backplane::{BackplaneError, Rematch, RoomEntry, Ticket};
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, BotSpec, CreateRoom, QuickMatch, RoomCreated, RoomState, RoomSummary,
    TimeControlSpec,
};
use tabula_room::{
    BotLevel, GameKind, GameOptions, GameSetup, PlayerId, RoomConfig, Stake, StartPosition,
    TimeControl,
};

use super::caller::creating;
use super::request::charge;
use super::{ApiError, authenticate, credentials};
use crate::AppState;
use crate::matchmaking;
use crate::room_actor::GetView;

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
fn spec_level(spec: Option<&BotSpec>, field: &str) -> Result<Option<BotLevel>, ApiError> {
    let Some(b) = spec else {
        return Ok(None);
    };
    b.level().map(Some).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("{field}.level must be 1, 2, 3, easy, medium or hard"),
        )
    })
}

pub(crate) fn room_config(state: &AppState, c: &CreateRoom) -> Result<RoomConfig, ApiError> {
    let mut options = c.options.unwrap_or_default();
    options.game = c.game;
    let bot = spec_level(c.bot.as_ref(), "bot")?;
    let replace_leaver = spec_level(c.replace_leaver.as_ref(), "replaceLeaver")?;
    let match_length = c.match_length.unwrap_or(1);
    if !(1..=64).contains(&match_length) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            "matchLength must be 1..=64",
        ));
    }
    if let Some(Err(e)) = c.stake.as_ref().map(Stake::check) {
        return Err(ApiError::bad_request(e.to_string()));
    }
    let start_position = match &c.start_position {
        None => None,
        Some(v) => Some(start_position(state, options, v)?),
    };
    let time_control = match (&c.time_control, bot) {
        (Some(spec), _) => time_control(spec)?,
        // Against the computer: no clock unless asked (seed 001).
        (None, Some(_)) => None,
        (None, None) => state
            .settings
            .rooms
            .default_time_control
            .resolve()
            .unwrap_or_default(),
    };
    if bot.is_some() && time_control.is_some_and(|tc| tc.is_correspondence()) {
        // The computer answers at once; a game against it waits for its
        // player without a clock (seed 001).
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadTimeControl,
            "a correspondence game is played between people, not against the computer",
        ));
    }
    if c.rated && bot.is_some() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRated,
            "a game against the computer is not rated",
        ));
    }
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
        time_control,
        rated: c.rated,
        ..RoomConfig::default()
    })
}

/// A request's `timeControl`, or its refusal (400 `bad_time_control`).
fn time_control(spec: &TimeControlSpec) -> Result<Option<TimeControl>, ApiError> {
    spec.resolve()
        .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadTimeControl, m))
}

/// `startPosition` of a create request: refused (403) unless the node runs
/// with `testing.allow_start_position`; 400 when it is not a legal position
/// of the room's game.
fn start_position(
    state: &AppState,
    options: GameOptions,
    v: &serde_json::Value,
) -> Result<StartPosition, ApiError> {
    let bad =
        |status: StatusCode, message: String| ApiError::new(status, ErrorCode::BadRequest, message);
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

pub(super) async fn create_room(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<CreateRoom>,
) -> Result<HttpResponse, ApiError> {
    let player = creating(&state, &req, &q)?;
    let cfg = room_config(&state, &body)?;
    if body.open && cfg.bot.is_some() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            "an open challenge is for people: no bot",
        ));
    }
    charge(&state, &req, player.as_ref(), "create")?;
    let bot = cfg.bot;
    match state.rooms.create_as(cfg, body.open).await {
        Ok(e) => Ok(HttpResponse::Created().json(created(&e, bot))),
        Err(e) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )),
    }
}

/// The room a path names, by id or invite code.
async fn find_room(state: &AppState, id: &str) -> Result<RoomEntry, ApiError> {
    let bp = &state.backplane;
    let entry = match bp.lookup(id).await {
        Ok(Some(e)) => Some(e),
        Ok(None) => bp.resolve_invite(id).await.ok().flatten(),
        Err(e) => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                e.to_string(),
            ));
        }
    };
    entry.ok_or_else(room_not_found)
}

fn room_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::RoomNotFound,
        "no such room",
    )
}

/// A room as its last snapshot holds it: every acknowledged move is in
/// it, so any node can answer for a room owned elsewhere.
async fn stored_room(state: &AppState, id: &str) -> Result<tabula_room::Room, ApiError> {
    match state.backplane.load_snapshot(id).await {
        Ok(Some(stored)) => tabula_room::Room::restore(&stored.snapshot).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                e.to_string(),
            )
        }),
        Ok(None) => Err(room_not_found()),
        Err(e) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )),
    }
}

pub(super) async fn room_state(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let entry = find_room(&state, &id).await?;
    if let Some(addr) = state.rooms.local(&entry.id)
        && let Ok(v) = addr.send(GetView).await
    {
        return Ok(HttpResponse::Ok().json(RoomState {
            room_id: id.to_string(),
            state: Box::new(v),
        }));
    }
    let room = stored_room(&state, &entry.id).await?;
    Ok(HttpResponse::Ok().json(RoomState {
        room_id: id.to_string(),
        state: Box::new(room.view()),
    }))
}

/// `GET /api/rooms/{id}/records`: the finished games' records (the input of
/// `tabula verify`), from the store, so any node serves them.
pub(super) async fn room_records(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let saved = state.backplane.records(&id).await;
    // A game that has just ended is in the room's own log, which is stored
    // before its players are told, while its record is saved just after
    // (`Effect::SaveRecord`): a client that asks as soon as it hears
    // `game_over` gets the game from the log.
    if let Ok(recs) = &saved
        && let Ok(Some(stored)) = state.backplane.load_snapshot(&id).await
        && let Ok(room) = tabula_room::Room::restore(&stored.snapshot)
        && room.records().len() > recs.len()
    {
        return Ok(HttpResponse::Ok().json(room.records()));
    }
    match saved {
        // No records: a room that has not finished a game yet, or no room
        // (404, as for the room's other routes). Records outlive their
        // room, so they are served whether or not it is still listed.
        Ok(recs) if recs.is_empty() => match find_room(&state, &id).await {
            Ok(_) => Ok(HttpResponse::Ok().json(Vec::<serde_json::Value>::new())),
            // A room the backplane has forgotten: its games as the durable
            // store archived them, when it has them.
            Err(r) => match archived_records(&state, &id).await {
                Some(values) if !values.is_empty() => Ok(HttpResponse::Ok().json(values)),
                _ => Err(r),
            },
        },
        Ok(recs) => {
            let values: Vec<serde_json::Value> = recs
                .iter()
                .filter_map(|r| serde_json::from_str(r).ok())
                .collect();
            Ok(HttpResponse::Ok().json(values))
        }
        Err(e) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )),
    }
}

/// The most games of one room [`archived_records`] reads.
const MAX_ARCHIVED_GAMES: u32 = 1_000;

/// The records of room `id`'s games in the durable store, game 1 on until
/// the first missing one; `None` without a store or when it fails.
async fn archived_records(state: &AppState, id: &str) -> Option<Vec<serde_json::Value>> {
    let store = state.durable.get().ok()?;
    let mut values = Vec::new();
    for n in 1..=MAX_ARCHIVED_GAMES {
        match store.game(&tabula_store::GameKey::new(id, n)).await {
            Ok(Some(stored)) => match stored.game.record.parse() {
                Ok(v) => values.push(v),
                Err(e) => {
                    tracing::warn!(room = %id, error = %e, "an archived record does not read");
                    return None;
                }
            },
            Ok(None) => break,
            Err(e) => {
                tracing::warn!(room = %id, error = %e, "archived records not read");
                return None;
            }
        }
    }
    Some(values)
}

/// `GET /api/rooms/{id}/summary`: seed 001's results summary of the
/// current (or last) game — checkers borne off, moves, doubles and hits per
/// seat — from the room's stored snapshot, so any node answers.
pub(super) async fn room_summary(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let entry = find_room(&state, &id).await?;
    let room = stored_room(&state, &entry.id).await?;
    Ok(HttpResponse::Ok().json(RoomSummary {
        room_id: entry.id,
        game_number: room.game_number(),
        summary: room.game().map(|g| g.summary().clone()),
        result: room.game().and_then(|g| g.result()).cloned(),
    }))
}

pub(super) async fn invite(
    state: web::Data<AppState>,
    code: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match state.backplane.resolve_invite(&code).await {
        Ok(Some(e)) => Ok(HttpResponse::Ok().json(created(&e, None))),
        _ => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::RoomNotFound,
            "no such invite",
        )),
    }
}

pub(super) async fn stats(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    // The durable store's when it counts more (after a restart of the
    // single-node default, or a Redis that lost its data).
    match super::players::stats_of(&state, &id).await {
        Ok(s) => Ok(HttpResponse::Ok().json(s)),
        Err(e) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal,
            e,
        )),
    }
}

/// `player`'s rating in `game` for quick match: the durable store's;
/// `None` (a new player's) without one, without a store, or when the store
/// fails or is slower than [`matchmaking::RATING_WAIT_MS`] (a match is
/// never held up by it).
pub(crate) async fn stored_rating(state: &AppState, player: &str, game: GameKind) -> Option<f64> {
    let store = state.durable.get().ok()?;
    let wait = Duration::from_millis(matchmaking::RATING_WAIT_MS);
    match tokio::time::timeout(wait, store.rating(player, game)).await {
        Ok(Ok(r)) => r.map(|r| r.rating),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "quick match: rating not read; as a new player");
            None
        }
        Err(_) => {
            tracing::warn!("quick match: the rating was slow; as a new player");
            None
        }
    }
}

pub(super) async fn quickmatch(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<QuickMatch>,
) -> Result<HttpResponse, ApiError> {
    if state.draining.load(Ordering::SeqCst) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the node is draining",
        ));
    }
    let player = authenticate(&state, &req, &q)?;
    // A guest minted for this request (no credentials) is nobody yet:
    // only its address is charged.
    let creds = credentials(&req, &q);
    let presented = creds.init_data.is_some() || creds.token.is_some();
    charge(&state, &req, presented.then_some(&player), "quickmatch")?;
    let mut options = body.options.unwrap_or_default();
    options.game = body.game;
    // Players meet only on the same options and the same clocks.
    let spec = body
        .time_control
        .clone()
        .unwrap_or_else(|| state.settings.rooms.default_time_control.clone());
    let clocks = time_control(&spec)?;
    let key = match clocks {
        None => serde_json::to_string(&options).unwrap_or_default(),
        Some(tc) => serde_json::to_string(&(&options, tc)).unwrap_or_default(),
    };
    let mut create = CreateRoom {
        game: body.game,
        options: Some(options),
        stake: None,
        bot: None,
        match_length: None,
        replace_leaver: None,
        time_control: Some(spec),
        // Quick match between people is rated (lichess's pools).
        rated: true,
        open: false,
        start_position: None,
    };
    let unavailable = |e: BackplaneError| {
        Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        ))
    };
    let stored = stored_rating(&state, &player.0, body.game).await;
    // The waiting list lives in the backplane, so players on different
    // nodes meet; who meets whom is `matchmaking`'s window.
    let window = matchmaking::window(state.settings.matchmaking.bot_after_ms);
    let now_ms = crate::time::now_ms();
    let ticket = Ticket {
        id: rand::Rng::random::<u64>(&mut rand::rng()) >> 1,
        player: player.0.clone(),
        rating: matchmaking::ticket_rating(stored),
        since_ms: now_ms,
    };
    let bp = &state.backplane;
    let mut partner = match bp.match_or_wait(&key, ticket.clone(), window, now_ms).await {
        Ok(p) => p,
        Err(e) => return unavailable(e),
    };
    if partner.is_none() {
        let deadline =
            Instant::now() + Duration::from_millis(state.settings.matchmaking.bot_after_ms);
        let retry = Duration::from_millis(matchmaking::RETRY_MS);
        let mut next_try = Instant::now() + retry;
        // Taken off the queue by a partner: the room is on its way (a
        // failed cancel waits for it a little past the deadline).
        let mut taken = false;
        let mut cancelled = false;
        let mut hard_deadline = deadline;
        loop {
            match bp.poll_match(ticket.id).await {
                Ok(Some(json)) => match serde_json::from_str::<RoomCreated>(&json) {
                    Ok(c) => return Ok(HttpResponse::Ok().json(with_token(&state, &player, c))),
                    Err(_) => {
                        return Err(ApiError::new(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            ErrorCode::Internal,
                            "matchmaking",
                        ));
                    }
                },
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "quick match poll failed"),
            }
            let now = Instant::now();
            // The window has widened since the last try: another waiter
            // may fit now (both tickets are taken off together).
            if !taken && now >= next_try && now < deadline {
                next_try = now + retry;
                let at = crate::time::now_ms();
                match bp.rematch(&key, &ticket, window, at).await {
                    Ok(Rematch::Matched(p)) => {
                        partner = Some(p);
                        break;
                    }
                    Ok(Rematch::Taken) => taken = true,
                    Ok(Rematch::Waiting) => {}
                    Err(e) => tracing::warn!(error = %e, "quick match retry failed"),
                }
            }
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
                return Err(ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::Unavailable,
                    "the matched partner did not deliver a room; try again",
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    if let Some(partner) = partner {
        // This request took the partner's ticket: it makes the room and
        // delivers it to him.
        let cfg = room_config(&state, &create)?;
        return match state.rooms.create(cfg).await {
            Ok(e) => {
                let c = created(&e, None);
                let json = serde_json::to_string(&c).unwrap_or_default();
                if let Err(e) = bp.deliver_match(partner.id, json).await {
                    tracing::warn!(error = %e, "quick match not delivered to the partner");
                }
                Ok(HttpResponse::Ok().json(with_token(&state, &player, c)))
            }
            Err(e) => unavailable(e),
        };
    }
    if clocks.is_some_and(|tc| tc.is_correspondence()) {
        // A correspondence game is between people: never the computer.
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NoOpponent,
            "nobody is looking for this correspondence game now: try again later, or send an invite",
        ));
    }
    create.bot = Some(BotSpec {
        level: serde_json::json!(state.settings.matchmaking.bot_level),
    });
    // Nobody came: the computer, without a clock, unrated.
    create.time_control = None;
    create.rated = false;
    let cfg = room_config(&state, &create)?;
    let bot = cfg.bot;
    match state.rooms.create(cfg).await {
        Ok(e) => Ok(HttpResponse::Ok().json(with_token(&state, &player, created(&e, bot)))),
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
