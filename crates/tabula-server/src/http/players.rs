//! What a player keeps (issue 24), from the durable store: his profile
//! with ratings and ranks, his history, an archived game with its replay
//! and analysis, the leaderboards, and the deletion of his data.
//!
//! - `GET /api/me/profile`, `DELETE /api/me`, `GET /api/me/history`:
//!   authenticated like the socket; a player reads and deletes his own.
//! - `GET /api/games/{room}/{number}` (the record, seats, frames to step
//!   through) and `…/analysis`: public, as `GET /api/rooms/{id}/records`
//!   is (a finished game's record is published to prove its dice).
//! - `GET /api/leaderboards/{game}?period=all|week`: public; with
//!   credentials the caller's own standing comes too.
//!
//! Without a store configured every route answers 503 `no_store`; while
//! it is configured but cannot be reached (not connected yet, or a call
//! that found the database down or not answering in time), 503
//! `store_unavailable` with `Retry-After` ([`STORE_RETRY_AFTER_S`]).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::Value;
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, DeletedAnswer, DeletedCounts, HistoryGame, HistoryPage, Leaderboard,
    LeaderboardLine, MyProfile, PlayerOutcome, RatingLine, RatingPoint, SeatInfo, StoredGameView,
    YourStanding,
};
use tabula_room::{GameKind, GameRecord, PlayerResult, PlayerStats};
use tabula_store::{
    DurableStore, GameKey, HistoryCursor, HistoryQuery, LeaderboardEntry, MAX_LEADERBOARD,
    MAX_PAGE, Opponent, Rating, Seat, StoreError,
};

use super::{ApiError, authenticate, profiles};
use crate::AppState;
use crate::archiver::{NoDurable, rate};

/// The `Retry-After` (seconds) of a 503 `store_unavailable`.
pub const STORE_RETRY_AFTER_S: u32 = 5;

/// 503 `store_unavailable`: the store cannot be reached now.
fn store_down(message: impl Into<String>) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StoreUnavailable,
        message,
    )
    .retry_after(u64::from(STORE_RETRY_AFTER_S))
}

/// The store, or the reason it cannot answer.
fn durable(state: &AppState) -> Result<Arc<dyn DurableStore>, ApiError> {
    state.durable.get().cloned().map_err(|why| match why {
        NoDurable::NotConfigured => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::NoStore,
            "this node keeps no history: no durable store is configured (store.url)",
        ),
        NoDurable::Connecting => store_down("the durable store is not reached yet; retry"),
    })
}

/// A store error as the API answers it.
fn failed(e: StoreError) -> ApiError {
    match e {
        StoreError::Invalid(m) => ApiError::bad_request(m),
        StoreError::UnknownGame(k) => ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::GameNotFound,
            format!("no archived game {k}"),
        ),
        StoreError::Unavailable(m) => {
            tracing::warn!(error = %m, "durable store unavailable");
            store_down("the durable store cannot be reached now; retry")
        }
        e => {
            tracing::error!(error = %e, "durable store");
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                "the durable store failed",
            )
        }
    }
}

fn now_ms() -> u64 {
    crate::time::now_ms()
}

/// A game kind from its wire name (`long_nardy`, `backgammon`, `thud`).
fn kind(name: &str) -> Result<GameKind, ApiError> {
    serde_json::from_value(Value::String(name.to_string())).map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("unknown game {name:?}: long_nardy, backgammon or thud"),
        )
    })
}

/// The seats' names as a message of the bot's shows them (the
/// computer's in `lang`).
pub(super) async fn seat_names(
    state: &AppState,
    seats: &[Seat; 2],
    lang: crate::telegram::texts::Lang,
) -> [String; 2] {
    let infos = seat_infos(state, &[&seats[0], &seats[1]]).await;
    let name = |i: usize| {
        let n = match infos.get(i) {
            Some(SeatInfo::Person { name, .. }) => Some(name.as_str()),
            _ => None,
        };
        super::seats::seat_name(&seats[i], n, lang)
    };
    [name(0), name(1)]
}

/// The seats with their players' names (one profile read per player).
async fn seat_infos(state: &AppState, seats: &[&Seat]) -> Vec<SeatInfo> {
    let ids: Vec<String> = seats
        .iter()
        .filter_map(|s| s.player().map(str::to_string))
        .collect();
    let stored = state
        .backplane
        .profiles(&ids)
        .await
        .unwrap_or_else(|_| vec![Default::default(); ids.len()]);
    let mut named = ids.iter().zip(stored);
    seats
        .iter()
        .map(|s| match s {
            Seat::Player(id) => {
                let p = named
                    .next()
                    .map(|(_, st)| profiles::public(id, &st))
                    .unwrap_or_else(|| profiles::public(id, &Default::default()));
                SeatInfo::Person {
                    player: id.clone(),
                    name: p.name,
                    photo_url: p.photo_url,
                }
            }
            Seat::Bot(level) => SeatInfo::Computer { level: *level },
            Seat::Deleted => SeatInfo::Deleted,
        })
        .collect()
}

/// How many rated games the profile's rating graph shows, per game.
const HISTORY_POINTS: u32 = 100;

/// A stored rating as the routes show it.
fn rating_line(kind: GameKind, r: &Rating, rank: Option<(u64, u64)>) -> RatingLine {
    RatingLine {
        game: kind,
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
        games: r.games,
        provisional: rate::provisional(r, now_ms()),
        rank: rank.map(|(rank, _)| rank),
        of: rank.map(|(_, of)| of),
        history: Vec::new(),
    }
}

/// A player's statistics: the durable store's, or the backplane's when
/// it counts more games (games not archived yet).
pub(crate) async fn stats_of(state: &AppState, player: &str) -> Result<PlayerStats, String> {
    let live = state.backplane.stats(player).await;
    let kept = match state.durable.get() {
        Ok(store) => store.stats(player).await.ok().flatten(),
        Err(_) => None,
    };
    match (live, kept) {
        (Ok(l), Some(k)) if k.games > l.games => Ok(k),
        (Ok(l), _) => Ok(l),
        (Err(_), Some(k)) => Ok(k),
        (Err(e), None) => Err(e.to_string()),
    }
}

/// `GET /api/me/profile`.
pub(super) async fn me(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, ApiError> {
    async {
        let player = authenticate(&state, &req, &q)?;
        let store = durable(&state)?;
        let stored = state.backplane.profile(&player.0).await.unwrap_or_default();
        let public = profiles::public(&player.0, &stored);
        let mut ratings = Vec::new();
        for (kind, r) in store.ratings(&player.0).await.map_err(failed)? {
            let rank = store
                .standing(&player.0, kind)
                .await
                .map_err(failed)?
                .map(|s| (s.rank, s.of));
            let mut one = rating_line(kind, &r, rank);
            // His rating after each of his latest rated games, for the profile's graph.
            let history = store
                .rating_history(&player.0, kind, HISTORY_POINTS)
                .await
                .map_err(failed)?;
            one.history = history
                .iter()
                .map(|&(at, rating)| RatingPoint { at, rating })
                .collect();
            ratings.push(one);
        }
        let stats = stats_of(&state, &player.0).await.unwrap_or_default();
        // What only he sees: his language as his latest login with
        // initData left it in the store, and since when it keeps him.
        let kept = store.profile(&player.0).await.map_err(failed)?;
        let tournaments = super::results::stored_results(&state, &player.0).await;
        Ok(HttpResponse::Ok().json(MyProfile {
            player: player.0,
            name: public.name,
            photo_url: public.photo_url,
            username: public.username,
            language: kept.as_ref().and_then(|p| p.language.clone()),
            since: kept.as_ref().map(|p| p.created_ms),
            ratings,
            stats,
            tournaments,
        }))
    }
    .await
}

/// `DELETE /api/me`: the player's profile, history and ratings in the
/// durable store, and his profile and statistics in the backplane.
pub(super) async fn delete_me(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, ApiError> {
    async {
        let player = authenticate(&state, &req, &q)?;
        let store = durable(&state)?;
        let deleted = store.delete_player(&player.0).await.map_err(failed)?;
        let bp = &state.backplane;
        let keep = std::time::Duration::from_millis(1);
        for part in [
            tabula_backplane::ProfilePart::Telegram,
            tabula_backplane::ProfilePart::Name,
        ] {
            if let Err(e) = bp.set_profile(&player.0, part, None, keep).await {
                tracing::warn!(player = %player, error = %e, "backplane profile not deleted");
            }
        }
        if let Err(e) = bp.forget_stats(&player.0).await {
            tracing::warn!(player = %player, error = %e, "backplane statistics not deleted");
        }
        tracing::info!(player = %player, "a player deleted his data");
        Ok(HttpResponse::Ok().json(DeletedAnswer {
            deleted: DeletedCounts {
                profile: deleted.profile,
                games: deleted.games,
                games_deleted: deleted.games_deleted,
                ratings: deleted.ratings,
                stats: deleted.stats,
                tournaments: deleted.tournaments,
            },
        }))
    }
    .await
}

/// `GET /api/me/history`'s query.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct HistoryParams {
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    after: Option<String>,
    #[serde(flatten)]
    auth: AuthQuery,
}

/// A history cursor as the API passes it: `finishedMs.gameNumber.room`.
fn cursor_text(c: &HistoryCursor) -> String {
    format!("{}.{}.{}", c.finished_ms, c.game, c.room)
}

fn parse_cursor(s: &str) -> Option<HistoryCursor> {
    let mut it = s.splitn(3, '.');
    let finished_ms = it.next()?.parse().ok()?;
    let game = it.next()?.parse().ok()?;
    let room = it.next()?.to_string();
    (!room.is_empty()).then_some(HistoryCursor {
        finished_ms,
        room,
        game,
    })
}

/// `GET /api/me/history`.
pub(super) async fn history(
    req: HttpRequest,
    state: web::Data<AppState>,
    p: web::Query<HistoryParams>,
) -> Result<HttpResponse, ApiError> {
    async {
        let player = authenticate(&state, &req, &p.auth)?;
        let store = durable(&state)?;
        let bad = |m: String| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, m);
        let limit = p.limit.unwrap_or(20);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(bad(format!("limit must be 1..={MAX_PAGE}")));
        }
        let opponent = match p.opponent.as_deref() {
            None | Some("") => None,
            Some("person") => Some(Opponent::Person),
            Some("computer") => Some(Opponent::Computer),
            Some(o) => return Err(bad(format!("opponent {o:?}: person or computer"))),
        };
        let after = match p.after.as_deref() {
            None | Some("") => None,
            Some(c) => Some(parse_cursor(c).ok_or_else(|| bad("a bad cursor".into()))?),
        };
        let query = HistoryQuery {
            player: player.0.clone(),
            kind: match p.game.as_deref() {
                None | Some("") => None,
                Some(g) => Some(kind(g)?),
            },
            opponent,
            limit,
            after,
        };
        let page = store.history(&query).await.map_err(failed)?;
        let others: Vec<&Seat> = page
            .entries
            .iter()
            .map(|e| &e.seats[e.seat.other().index()])
            .collect();
        let infos = seat_infos(&state, &others).await;
        let games = page
            .entries
            .iter()
            .zip(infos)
            .map(|(e, opponent)| HistoryGame {
                room: e.key.room.clone(),
                game_number: e.key.game,
                game: e.kind,
                finished_ms: e.finished_ms,
                seat: e.seat,
                opponent,
                outcome: match e.outcome() {
                    PlayerResult::Win => PlayerOutcome::Win,
                    PlayerResult::Lose => PlayerOutcome::Lose,
                    PlayerResult::Draw => PlayerOutcome::Draw,
                },
                result: e.result.clone(),
                match_length: e.match_length,
                rated: e.rated,
                // A tournament's game: its room id names it.
                tournament: crate::tournaments::of_game(&e.key.room).map(str::to_string),
            })
            .collect();
        Ok(HttpResponse::Ok().json(HistoryPage {
            games,
            next: page.next.as_ref().map(cursor_text),
        }))
    }
    .await
}

/// The archived game `room#number` and its record.
async fn archived(
    state: &AppState,
    room: &str,
    number: u32,
) -> Result<(tabula_store::StoredGame, GameRecord), ApiError> {
    let store = durable(state)?;
    let key = GameKey::new(room, number);
    let Some(stored) = store.game(&key).await.map_err(failed)? else {
        return Err(failed(StoreError::UnknownGame(key)));
    };
    let record: GameRecord = stored
        .game
        .record
        .parse()
        .map_err(|e| failed(StoreError::Corrupt(e.to_string())))?;
    Ok((stored, record))
}

/// `GET /api/games/{room}/{number}`.
pub(super) async fn game(
    state: web::Data<AppState>,
    path: web::Path<(String, u32)>,
) -> Result<HttpResponse, ApiError> {
    let (room, number) = path.into_inner();
    async {
        let (stored, record) = archived(&state, &room, number).await?;
        let g = &stored.game;
        let frames = tabula_room::replay::replay(&record).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::Internal,
                format!("the record does not replay: {e}"),
            )
        })?;
        let seats = seat_infos(&state, &[&g.seats[0], &g.seats[1]]).await;
        Ok(HttpResponse::Ok().json(StoredGameView {
            room: g.key.room.clone(),
            game_number: g.key.game,
            game: g.kind,
            finished_ms: g.finished_ms,
            rated: g.rated,
            match_length: g.match_length,
            seats,
            result: g.result.clone(),
            record: serde_json::value::RawValue::from_string(g.record.as_str().to_string())
                .map_err(|e| failed(StoreError::Corrupt(e.to_string())))?,
            frames,
        }))
    }
    .await
}

/// `GET /api/games/{room}/{number}/analysis`: computed once (Hard's
/// evaluation, no rollouts) under the node's search limit, then cached in
/// the store.
pub(super) async fn analysis(
    state: web::Data<AppState>,
    path: web::Path<(String, u32)>,
) -> Result<HttpResponse, ApiError> {
    let (room, number) = path.into_inner();
    async {
        let store = durable(&state)?;
        let key = GameKey::new(&room, number);
        if let Some(json) = store.analysis(&key).await.map_err(failed)? {
            return Ok(HttpResponse::Ok()
                .content_type("application/json")
                .body(json));
        }
        let (_, record) = archived(&state, &room, number).await?;
        if record.game == GameKind::Thud {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::NoAnalysis,
                "Thud! games have no move analysis",
            ));
        }
        let computed = state
            .rooms
            .deps
            .searches
            .run(move || {
                tabula_bots::analysis::analyse(&record, 0, 1)
                    .map_err(|e| e.to_string())
                    .and_then(|a| serde_json::to_string(&a).map_err(|e| e.to_string()))
            })
            .await;
        let json = match computed {
            Some(Ok(json)) => json,
            Some(Err(e)) => {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    ErrorCode::NoAnalysis,
                    e,
                ));
            }
            None => {
                return Err(ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Internal,
                    "the analysis failed",
                ));
            }
        };
        if let Err(e) = store.save_analysis(&key, &json).await {
            tracing::warn!(game = %key, error = %e, "analysis not cached");
        }
        Ok(HttpResponse::Ok()
            .content_type("application/json")
            .body(json))
    }
    .await
}

/// `GET /api/leaderboards/{game}`'s query.
#[derive(Debug, Deserialize)]
pub(super) struct BoardParams {
    #[serde(default)]
    period: Option<String>,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(flatten)]
    auth: AuthQuery,
}

fn leaderboard_line(e: &LeaderboardEntry) -> LeaderboardLine {
    LeaderboardLine {
        rank: e.rank,
        player: e.player.clone(),
        name: e
            .name
            .clone()
            .unwrap_or_else(|| tabula_auth::generated_name(&e.player)),
        photo_url: e.photo_url.clone(),
        rating: e.rating.rating,
        deviation: e.rating.deviation,
        games: e.rating.games,
        provisional: rate::provisional(&e.rating, now_ms()),
    }
}

/// `GET /api/leaderboards/{game}?period=all|week&limit=100`.
pub(super) async fn leaderboard(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    p: web::Query<BoardParams>,
) -> Result<HttpResponse, ApiError> {
    async {
        let kind = kind(&path)?;
        let store = durable(&state)?;
        let limit = p.limit.unwrap_or(MAX_LEADERBOARD);
        if !(1..=MAX_LEADERBOARD).contains(&limit) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                format!("limit must be 1..={MAX_LEADERBOARD}"),
            ));
        }
        let since = match p.period.as_deref() {
            None | Some("") | Some("all") => None,
            Some("week") => Some(tabula_store::week_start_ms(now_ms())),
            Some(o) => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::BadRequest,
                    format!("period {o:?}: all or week"),
                ));
            }
        };
        let top = match since {
            None => store.top(kind, limit).await,
            Some(s) => store.top_since(kind, s, limit).await,
        }
        .map_err(failed)?;
        // With credentials, the caller's own place; without, none
        // (no guest is minted for a public page).
        let creds = super::credentials(&req, &p.auth);
        let you = if creds.token.is_some() || creds.init_data.is_some() {
            match authenticate(&state, &req, &p.auth) {
                Ok(me) => match since {
                    None => store.standing(&me.0, kind).await,
                    Some(s) => store.standing_since(&me.0, kind, s).await,
                }
                .map_err(failed)?
                .map(|s| YourStanding {
                    rank: s.rank,
                    of: s.of,
                    rating: s.rating.rating,
                    deviation: s.rating.deviation,
                    games: s.rating.games,
                    provisional: rate::provisional(&s.rating, now_ms()),
                }),
                Err(_) => None,
            }
        } else {
            None
        };
        Ok(HttpResponse::Ok().json(Leaderboard {
            game: kind,
            period: if since.is_some() { "week" } else { "all" }.into(),
            top: top.iter().map(leaderboard_line).collect(),
            you,
        }))
    }
    .await
}

#[cfg(test)]
mod tests;
