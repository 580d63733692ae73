//! The tournament routes: create, list, show, and a player's join,
//! withdraw, pause and resume. A player's request is checked against the
//! stored state (a clear refusal now), then posted to the tournament's
//! inbox, which its owner applies within [`crate::tournaments::POLL_MS`]
//! (202): any node answers, whoever owns the tournament.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, CreateTournament, TournamentGame, TournamentList, TournamentPlayer,
    TournamentQueued, TournamentSummary, TournamentView,
};
use tabula_room::GameKind;
use tabula_tournament::{Format, Game, Input, PlayerId, Status, Tournament, TournamentConfig};

use super::caller::{creating, creator};
use super::error;
use super::request::charge;
use super::rooms::stored_rating;
use crate::AppState;
use crate::time::now_ms;
use crate::tournaments::{self, CreateError};

/// The most tournaments `GET /api/tournaments` reads (the newest).
const LISTED: usize = 200;

/// A no-show's grace when the request names none.
const DEFAULT_GRACE_MS: u64 = 120_000;

fn bad(message: impl Into<String>) -> HttpResponse {
    error(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
}

fn unavailable(e: impl std::fmt::Display) -> HttpResponse {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        e.to_string(),
    )
}

fn refused(message: impl Into<String>) -> HttpResponse {
    error(StatusCode::CONFLICT, ErrorCode::TournamentRefused, message)
}

fn not_found() -> HttpResponse {
    error(
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
) -> HttpResponse {
    let player = match creating(&state, &req, &q) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let body = body.into_inner();
    let match_points = body.match_points.unwrap_or(1);
    if !(1..=64).contains(&match_points) {
        return bad("matchPoints must be 1..=64");
    }
    let clock = match &body.time_control {
        Some(spec) => match spec.resolve() {
            Ok(_) => serde_json::to_string(spec).ok(),
            Err(m) => return error(StatusCode::BAD_REQUEST, ErrorCode::BadTimeControl, m),
        },
        None => serde_json::to_string(&state.settings.rooms.default_time_control).ok(),
    };
    if let Format::Swiss { rounds, .. } = body.format
        && rounds > 64
    {
        return bad("a Swiss tournament has at most 64 rounds");
    }
    if body.max_players.is_some_and(|m| m > 4096) {
        return bad("maxPlayers must be at most 4096");
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
        Err(e) => return bad(e.to_string()),
    };
    if let Err(r) = charge(&state, &req, player.as_ref(), "tournament") {
        return *r;
    }
    let view = view(&t, None);
    match tournaments::create(state.into_inner(), t).await {
        Ok(()) => HttpResponse::Created().json(view),
        Err(CreateError::Exists(id)) => refused(format!("a tournament {id} already exists")),
        Err(CreateError::Backplane(e)) => unavailable(e),
    }
}

async fn load(state: &AppState, id: &str) -> Result<Tournament, HttpResponse> {
    match state.backplane.load_tournament(id).await {
        Ok(Some(json)) => serde_json::from_str(&json).map_err(|e| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                format!("tournament {id} unreadable: {e}"),
            )
        }),
        Ok(None) => Err(not_found()),
        Err(e) => Err(unavailable(e)),
    }
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
pub(super) async fn list(state: web::Data<AppState>) -> HttpResponse {
    let ids = match state.backplane.tournament_ids().await {
        Ok(ids) => ids,
        Err(e) => return unavailable(e),
    };
    let mut out = TournamentList::default();
    for id in ids.iter().rev().take(LISTED) {
        let Ok(t) = load(&state, id).await else {
            continue;
        };
        let line = TournamentSummary {
            id: t.id().to_string(),
            format: t.config().format,
            game: t.config().game,
            status: t.status(),
            start_at_ms: t.config().start_at_ms,
            players: t.entrants().iter().filter(|e| !e.withdrawn).count() as u32,
        };
        match t.status() {
            Status::Registering => out.upcoming.push(line),
            Status::Running => out.running.push(line),
            Status::Finished | Status::Cancelled => out.finished.push(line),
        }
    }
    HttpResponse::Ok().json(out)
}

/// `GET /api/tournaments/{id}` (credentials, if any, name the caller for
/// `myGame`).
pub(super) async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> HttpResponse {
    let t = match load(&state, &id).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    let me = creator(&state, &req, &q).ok().flatten();
    HttpResponse::Ok().json(view(&t, me.as_ref().map(|p| p.0.as_str())))
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
) -> HttpResponse {
    let creds = super::credentials(&req, &q);
    if creds.init_data.is_none() && creds.token.is_none() {
        // A node with guests would mint a new one, who could never play.
        return error(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "send the player's session token or Telegram initData",
        );
    }
    let player = match super::authenticate(&state, &req, &q) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let t = match load(&state, &id).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    if let Some(why) = refusal(&t, &player.0, action) {
        return refused(why);
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
        Ok(_) => HttpResponse::Accepted().json(TournamentQueued {
            id: id.into_inner(),
            action: action.name().into(),
        }),
        Err(e) => unavailable(e),
    }
}

pub(super) async fn join(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> HttpResponse {
    act(req, state, q, id, Action::Join).await
}

pub(super) async fn withdraw(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> HttpResponse {
    act(req, state, q, id, Action::Withdraw).await
}

pub(super) async fn pause(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> HttpResponse {
    act(req, state, q, id, Action::Pause).await
}

pub(super) async fn resume(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    id: web::Path<String>,
) -> HttpResponse {
    act(req, state, q, id, Action::Resume).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_tournament::GameKind as TGame;

    fn cup(format: Format) -> Tournament {
        Tournament::new(
            "cup",
            TournamentConfig {
                format,
                game: TGame::Backgammon,
                match_points: 1,
                clock: None,
                rated: false,
                start_at_ms: 1_000,
                grace_ms: 0,
                max_players: Some(3),
            },
        )
        .unwrap()
    }

    fn join(t: &mut Tournament, p: &str, now: u64) {
        t.apply(
            Input::Join {
                player: PlayerId::from(p),
                rating: 1500,
            },
            now,
        );
    }

    #[test]
    fn requests_are_refused_as_the_core_would_refuse_them() {
        let mut t = cup(Format::Knockout);
        assert_eq!(refusal(&t, "a", Action::Join), None);
        assert!(refusal(&t, "a", Action::Withdraw).is_some());
        join(&mut t, "a", 0);
        join(&mut t, "b", 0);
        assert!(refusal(&t, "a", Action::Join).is_some());
        assert!(refusal(&t, "a", Action::Pause).is_some());
        assert_eq!(refusal(&t, "a", Action::Withdraw), None);
        join(&mut t, "c", 0);
        assert_eq!(
            refusal(&t, "d", Action::Join).as_deref(),
            Some("the tournament is full")
        );
        t.apply(Input::Tick, 1_000);
        assert_eq!(t.status(), Status::Running);
        let mut t2 = t.clone();
        t2.apply(
            Input::Withdraw {
                player: PlayerId::from("c"),
            },
            1_001,
        );
        assert_eq!(
            refusal(&t2, "d", Action::Join).as_deref(),
            Some("a knockout takes no players once it started")
        );
        let mut s = cup(Format::Swiss {
            rounds: 3,
            late_join_until_round: 0,
        });
        join(&mut s, "a", 0);
        join(&mut s, "b", 0);
        s.apply(Input::Tick, 1_000);
        assert!(refusal(&s, "c", Action::Join).is_some());
        assert!(refusal(&s, "a", Action::Resume).is_some());
        assert_eq!(refusal(&s, "a", Action::Pause), None);
    }

    #[test]
    fn a_view_shows_the_round_and_the_callers_game() {
        let mut t = cup(Format::Knockout);
        join(&mut t, "a", 0);
        join(&mut t, "b", 0);
        t.apply(Input::Tick, 1_000);
        let v = view(&t, Some("a"));
        assert_eq!(v.round, 1);
        assert_eq!(v.games.len(), 1);
        assert_eq!(
            v.my_game.as_ref().map(|g| g.room_id.as_str()),
            Some("cup:1:1")
        );
        assert!(view(&t, Some("zed")).my_game.is_none());
        assert!(v.bracket.is_some());
    }
}
