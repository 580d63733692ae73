//! The tournament routes: create, list, show, and a player's join,
//! withdraw, pause and resume. A player's request is checked against the
//! stored state (a clear refusal now), then posted to the tournament's
//! inbox, and the owner's bell rung, which it answers at once (within
//! [`crate::tournaments::IDLE_POLL_MS`] if the ring is lost) (202): any
//! node answers, whoever owns the tournament.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_backplane::BackplaneError;
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, CreateTournament, MyTournament, MyTournaments, ProfileTournaments, TournamentGame,
    TournamentList, TournamentPlayer, TournamentQueued, TournamentResultLine, TournamentSummary,
    TournamentView,
};
use tabula_room::GameKind;
use tabula_tournament::{Format, Game, Input, PlayerId, Status, Tournament, TournamentConfig};

use super::ApiError;
use super::caller::{creating, creator};
use super::request::charge;
use super::results::{RECENT_RESULTS, stored_results};
use super::rooms::stored_rating;
use crate::AppState;
use crate::time::now_ms;
use crate::tournaments::{self, CreateError};

/// The most tournaments `GET /api/tournaments` reads (the newest).
const LISTED: usize = 200;

/// A no-show's grace when the request names none.
const DEFAULT_GRACE_MS: u64 = 120_000;
const DAY_MS: u64 = 86_400_000;
/// The longest `graceMs` (a correspondence game's player may need days).
const MAX_GRACE_MS: u64 = 7 * DAY_MS;
/// The longest arena, and the longest `rematchWaitMs`.
const MAX_ARENA_MS: u64 = 7 * DAY_MS;
const MAX_REMATCH_WAIT_MS: u64 = 3_600_000;
/// How far ahead a tournament may be announced.
const MAX_AHEAD_MS: u64 = 366 * DAY_MS;

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
}

fn unavailable(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        e.to_string(),
    )
}

fn refused(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, ErrorCode::TournamentRefused, message)
}

fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::TournamentNotFound,
        "no tournament has that id",
    )
}

/// `POST /api/tournaments`.
pub(super) async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<CreateTournament>,
) -> Result<HttpResponse, ApiError> {
    let player = creating(&state, &req, &q)?;
    let body = body.into_inner();
    let match_points = body.match_points.unwrap_or(1);
    if !(1..=64).contains(&match_points) {
        return Err(bad("matchPoints must be 1..=64"));
    }
    let clock = match &body.time_control {
        Some(spec) => match spec.resolve() {
            Ok(_) => serde_json::to_string(spec).ok(),
            Err(m) => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::BadTimeControl,
                    m,
                ));
            }
        },
        None => serde_json::to_string(&state.settings.rooms.default_time_control).ok(),
    };
    if let Format::Swiss { rounds, .. } = body.format
        && rounds > 64
    {
        return Err(bad("a Swiss tournament has at most 64 rounds"));
    }
    if body.max_players.is_some_and(|m| m > 4096) {
        return Err(bad("maxPlayers must be at most 4096"));
    }
    // Bounds that keep every deadline the tournament computes (a start,
    // an arena's end, a no-show's) a real time, far from overflowing.
    if body.grace_ms.is_some_and(|g| g > MAX_GRACE_MS) {
        return Err(bad("graceMs must be at most 604800000 (7 days)"));
    }
    if let Format::Arena {
        duration_ms,
        rematch_wait_ms,
    } = body.format
        && (duration_ms > MAX_ARENA_MS || rematch_wait_ms > MAX_REMATCH_WAIT_MS)
    {
        return Err(bad(
            "an arena lasts at most 604800000 ms (7 days), rematchWaitMs at most 3600000",
        ));
    }
    if body.start_at_ms > now_ms().saturating_add(MAX_AHEAD_MS) {
        return Err(bad("startAtMs must be within a year from now"));
    }
    let config = TournamentConfig {
        format: body.format,
        game: body.game,
        match_points,
        clock,
        rated: body.rated,
        start_at_ms: body.start_at_ms,
        grace_ms: body.grace_ms.unwrap_or(DEFAULT_GRACE_MS),
        max_players: body.max_players,
    };
    let id = body.id.unwrap_or_else(|| {
        let n: u64 = rand::random();
        format!("t{:010x}", n & 0xff_ffff_ffff)
    });
    let t = match Tournament::new(id, config) {
        Ok(t) => t,
        Err(e) => return Err(bad(e.to_string())),
    };
    charge(&state, &req, player.as_ref(), "tournament")?;
    let view = view(&t, None);
    match tournaments::create(state.into_inner(), t).await {
        Ok(()) => Ok(HttpResponse::Created().json(view)),
        Err(CreateError::Exists(id)) => Err(refused(format!("a tournament {id} already exists"))),
        Err(CreateError::Backplane(e)) => Err(unavailable(e)),
    }
}

/// A tournament's state for a player's action: read now (its checks
/// must see what the player did a moment ago).
async fn load(state: &AppState, id: &str) -> Result<Tournament, ApiError> {
    match state.backplane.load_tournament(id).await {
        Ok(Some(json)) => serde_json::from_str(&json).map_err(|e| unreadable(id, e)),
        Ok(None) => Err(not_found()),
        Err(e) => Err(unavailable(e)),
    }
}

/// A tournament's state to show: as this node read it within
/// [`tournaments::READ_KEEP`] ([`tournaments::Tournaments::read`]), so
/// that its players' views cost one read of it a node, not one each.
async fn shown(state: &AppState, id: &str) -> Result<tournaments::Read, ApiError> {
    match state.tournaments.read(state.backplane.as_ref(), id).await {
        Ok(Some(r)) => Ok(r),
        Ok(None) => Err(not_found()),
        Err(BackplaneError::Corrupt(e)) => Err(unreadable(id, e)),
        Err(e) => Err(unavailable(e)),
    }
}

fn unreadable(id: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Internal,
        format!("tournament {id} unreadable: {e}"),
    )
}

fn game_view(g: &Game) -> TournamentGame {
    TournamentGame {
        room_id: g.id.0.clone(),
        round: g.round,
        white: g.white.0.clone(),
        black: g.black.0.clone(),
        outcome: g.outcome,
    }
}

/// What the routes show of a tournament; `me`'s game being played.
pub fn view(t: &Tournament, me: Option<&str>) -> TournamentView {
    let arena = matches!(t.config().format, Format::Arena { .. });
    let games = t
        .games()
        .filter(|g| {
            if arena {
                g.outcome.is_none()
            } else {
                g.round == t.round()
            }
        })
        .map(game_view)
        .collect();
    let my_game = me.and_then(|me| {
        t.running()
            .find(|g| g.white.0 == me || g.black.0 == me)
            .map(game_view)
    });
    let bracket = t.bracket().cloned();
    let champion = bracket
        .as_ref()
        .and_then(|b| b.champion().map(|p| p.0.clone()));
    TournamentView {
        id: t.id().to_string(),
        config: t.config().clone(),
        status: t.status(),
        round: t.round(),
        players: t
            .entrants()
            .iter()
            .map(|e| TournamentPlayer {
                player: e.player.0.clone(),
                rating: e.rating,
                withdrawn: e.withdrawn,
                paused: e.paused,
            })
            .collect(),
        standings: t.standings(),
        bracket,
        games,
        my_game,
        champion,
    }
}

/// `GET /api/tournaments`.
pub(super) async fn list(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let ids = match state.backplane.tournament_ids().await {
        Ok(ids) => ids,
        Err(e) => return Err(unavailable(e)),
    };
    let mut out = TournamentList::default();
    for id in ids.iter().rev().take(LISTED) {
        let Ok(read) = shown(&state, id).await else {
            continue;
        };
        let t = &read.0;
        let line = summary(t);
        match t.status() {
            Status::Registering => out.upcoming.push(line),
            Status::Running => out.running.push(line),
            Status::Finished | Status::Cancelled => out.finished.push(line),
        }
    }
    Ok(HttpResponse::Ok().json(out))
}

fn summary(t: &Tournament) -> TournamentSummary {
    TournamentSummary {
        id: t.id().to_string(),
        format: t.config().format,
        game: t.config().game,
        status: t.status(),
        start_at_ms: t.config().start_at_ms,
        players: t.entrants().iter().filter(|e| !e.withdrawn).count() as u32,
    }
}

/// What `GET /api/me/tournaments` answers for `me` from the tournaments
/// of the directory (`live`, newest first) and his stored results
/// (`stored`): the ones he is in (registered, not withdrawn) that are not
/// over, and his finished ones, the stored with those the store does not
/// have yet (finished a moment ago, or while it is down).
pub fn mine_of(
    me: &str,
    live: &[(Tournament, tournaments::Side)],
    stored: Option<ProfileTournaments>,
) -> MyTournaments {
    let mut out = MyTournaments::default();
    let who = PlayerId(me.to_string());
    let mut late = Vec::new();
    for (t, side) in live {
        let Some(e) = t.entrant(&who) else {
            continue;
        };
        match t.status() {
            Status::Registering | Status::Running if !e.withdrawn => {
                let running = t.status() == Status::Running;
                let row = running.then(|| t.standings().row(&who).cloned()).flatten();
                let line = MyTournament {
                    summary: summary(t),
                    round: t.round(),
                    paused: e.paused,
                    rank: row.as_ref().map(|r| r.rank),
                    points: row.as_ref().map(|r| r.points),
                    my_game: t
                        .running()
                        .find(|g| g.white == who || g.black == who)
                        .map(game_view),
                };
                if running {
                    out.running.push(line);
                } else {
                    out.upcoming.push(line);
                }
            }
            Status::Finished => {
                if let Some(r) = t.standings().row(&who) {
                    late.push(TournamentResultLine {
                        id: t.id().to_string(),
                        format: t.config().format,
                        game: t.config().game,
                        place: r.rank,
                        points: r.points,
                        games: r.games,
                        wins: r.wins,
                        players: t.standings().rows.len() as u32,
                        finished_at_ms: side.results_due,
                    });
                }
            }
            _ => {}
        }
    }
    out.upcoming
        .sort_by_key(|l| (l.summary.start_at_ms, l.summary.id.clone()));
    // His waiting game first, then as the directory has them (newest).
    out.running.sort_by_key(|l| l.my_game.is_none());
    match stored {
        Some(p) => {
            out.stored = true;
            out.played = p.played;
            out.won = p.won;
            out.finished = p.recent;
            // Finished and not stored yet: the newest of all, counted.
            let fresh: Vec<_> = late
                .into_iter()
                .filter(|l| !out.finished.iter().any(|f| f.id == l.id))
                .collect();
            out.played += fresh.len() as u64;
            out.won += fresh.iter().filter(|l| l.place == 1).count() as u64;
            out.finished.splice(0..0, fresh);
            out.finished.truncate(RECENT_RESULTS as usize);
        }
        None => {
            out.finished = late;
            out.finished.truncate(RECENT_RESULTS as usize);
        }
    }
    out
}

/// The player named by explicit credentials (a session token or
/// `initData`): 401 without them, since a node with guests would mint a
/// new one, who could never play.
fn explicit_player(
    req: &HttpRequest,
    state: &AppState,
    q: &AuthQuery,
) -> Result<tabula_room::PlayerId, ApiError> {
    let creds = super::credentials(req, q);
    if creds.init_data.is_none() && creds.token.is_none() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "send the player's session token or Telegram initData",
        ));
    }
    super::authenticate(state, req, q)
}

/// `GET /api/me/tournaments` (the player's `token` or `initData`:
/// required).
pub(super) async fn mine(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, ApiError> {
    let player = explicit_player(&req, &state, &q)?;
    let live = match state.tournaments.scan(state.backplane.as_ref()).await {
        Ok(l) => l,
        Err(e) => return Err(unavailable(e)),
    };
    let stored = stored_results(&state, &player.0).await;
    Ok(HttpResponse::Ok().json(mine_of(&player.0, &live, stored)))
}

/// `GET /api/tournaments/{id}` (credentials, if any, name the caller for
/// `myGame`).
pub(super) async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let read = shown(&state, &id).await?;
    let me = creator(&state, &req, &q).ok().flatten();
    Ok(HttpResponse::Ok().json(view(&read.0, me.as_ref().map(|p| p.0.as_str()))))
}

/// A player's request, by route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Register (or come back).
    Join,
    /// Leave.
    Withdraw,
    /// Stop being paired (arena, Swiss).
    Pause,
    /// Be paired again.
    Resume,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Join => "join",
            Action::Withdraw => "withdraw",
            Action::Pause => "pause",
            Action::Resume => "resume",
        }
    }
}

/// Why `action` by `player` cannot be taken now, judged on the stored
/// state (the owner's core judges again: a refusal it finds later, a race
/// with another request, changes nothing).
pub fn refusal(t: &Tournament, player: &str, action: Action) -> Option<String> {
    let status = t.status();
    if matches!(status, Status::Finished | Status::Cancelled) {
        return Some("the tournament is over".into());
    }
    let entrant = t.entrant(&PlayerId(player.to_string()));
    let pausable = !matches!(t.config().format, Format::Knockout);
    match action {
        Action::Join => {
            if entrant.is_some_and(|e| !e.withdrawn) {
                return Some("already registered".into());
            }
            if status == Status::Running {
                match t.config().format {
                    Format::Knockout => {
                        return Some("a knockout takes no players once it started".into());
                    }
                    Format::Swiss {
                        late_join_until_round,
                        ..
                    } if t.round() >= late_join_until_round => {
                        return Some("late joining of this Swiss is closed".into());
                    }
                    _ => {}
                }
            }
            let active = t.entrants().iter().filter(|e| !e.withdrawn).count() as u32;
            if t.config().max_players.is_some_and(|m| active >= m) {
                return Some("the tournament is full".into());
            }
            None
        }
        Action::Withdraw => match entrant {
            None => Some("not registered".into()),
            Some(e) if e.withdrawn => Some("already withdrawn".into()),
            Some(_) => None,
        },
        Action::Pause | Action::Resume if !pausable => {
            Some("a knockout's players cannot pause".into())
        }
        Action::Pause | Action::Resume if status != Status::Running => {
            Some("the tournament is not running".into())
        }
        Action::Pause => match entrant {
            Some(e) if !e.withdrawn && !e.paused => None,
            Some(e) if e.paused => Some("already paused".into()),
            _ => Some("not registered".into()),
        },
        Action::Resume => match entrant {
            Some(e) if !e.withdrawn && e.paused => None,
            Some(e) if !e.paused => Some("not paused".into()),
            _ => Some("not registered".into()),
        },
    }
}

/// `POST /api/tournaments/{id}/{join,withdraw,pause,resume}`.
pub(super) async fn act(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
    action: Action,
) -> Result<HttpResponse, ApiError> {
    let player = explicit_player(&req, &state, &q)?;
    let t = load(&state, &id).await?;
    if let Some(why) = refusal(&t, &player.0, action) {
        return Err(refused(why));
    }
    let who = PlayerId(player.0.clone());
    let input = match action {
        Action::Join => {
            let game = match t.config().game {
                tabula_tournament::GameKind::LongNardy => GameKind::LongNardy,
                tabula_tournament::GameKind::Backgammon => GameKind::Backgammon,
                tabula_tournament::GameKind::Thud => GameKind::Thud,
            };
            let rating = stored_rating(&state, &player.0, game)
                .await
                .unwrap_or(f64::from(tabula_backplane::NEW_PLAYER_RATING));
            Input::Join {
                player: who,
                rating: rating as i32,
            }
        }
        Action::Withdraw => Input::Withdraw { player: who },
        Action::Pause => Input::Pause { player: who },
        Action::Resume => Input::Resume { player: who },
    };
    let key = format!("{}:{}:{}", action.name(), player.0, now_ms());
    match tournaments::post_now(state.backplane.as_ref(), &id, &key, input).await {
        Ok(_) => Ok(HttpResponse::Accepted().json(TournamentQueued {
            id: id.into_inner(),
            action: action.name().into(),
        })),
        Err(e) => Err(unavailable(e)),
    }
}

pub(super) async fn join(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    act(req, state, q, id, Action::Join).await
}

pub(super) async fn withdraw(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    act(req, state, q, id, Action::Withdraw).await
}

pub(super) async fn pause(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    act(req, state, q, id, Action::Pause).await
}

pub(super) async fn resume(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    act(req, state, q, id, Action::Resume).await
}

#[cfg(test)]
mod tests;
