//! The Mini App's notification settings (issue 44): which kinds of the
//! bot's messages a Telegram player gets, the same switches as the bot's
//! `/settings`, on the same record ([`crate::telegram::users::BotUser`]
//! in the backplane).
//!
//! - `GET /api/me/notices`: `{"started", "blocked", "kinds": [{"kind",
//!   "on"}…]}`, the kinds in `/settings`' order. `started` is false while
//!   the player never started the bot: Telegram lets a bot write only to
//!   someone who did, so he gets nothing whatever the switches say.
//! - `PUT /api/me/notices` `{"<kind>": true|false, …}`: switches the
//!   named kinds (the others stay), then answers as `GET`; 409 before the
//!   player started the bot (no record to write: a record is what tells
//!   the sender it may write to him), 400 for a kind that is not one of
//!   `/settings`' or a value that is not a boolean.
//!
//! Both need a Telegram player's credentials (a session token or
//! `initData`; 401 without, 403 for a guest) and a node with a bot (503
//! without one).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{AuthQuery, NoticeSwitch, Notices};
use tabula_room::PlayerId;

use super::ApiError;
use crate::AppState;
use crate::telegram::notice::NoticeKind;
use crate::telegram::users::{self, BotUser};

/// The Telegram player the request is from, on a node with a bot.
fn telegram_player(
    state: &AppState,
    req: &HttpRequest,
    q: &AuthQuery,
) -> Result<PlayerId, ApiError> {
    super::telegram_login(
        state,
        req,
        q,
        "the bot's messages are for Telegram players: open Tabula in Telegram",
    )
    .map(|l| l.player)
}

fn unavailable(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        format!("the bot's records are not reached: {e}"),
    )
}

/// The answer of both routes.
fn settings(user: Option<&BotUser>) -> Notices {
    Notices {
        started: user.is_some(),
        blocked: user.is_some_and(|u| u.blocked),
        kinds: NoticeKind::ALL
            .iter()
            .map(|k| NoticeSwitch {
                kind: k.name().into(),
                on: user.is_none_or(|u| u.wants(*k)),
            })
            .collect(),
    }
}

/// `GET /api/me/notices`.
pub async fn get(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
) -> Result<HttpResponse, ApiError> {
    async {
        let player = telegram_player(&state, &req, &q)?;
        let user = users::load(&*state.backplane, &player.0)
            .await
            .map_err(unavailable)?;
        Ok(HttpResponse::Ok().json(settings(user.as_ref())))
    }
    .await
}

/// The switches a `PUT` body names, or why it does not read.
fn switches(body: &Value) -> Result<Vec<(NoticeKind, bool)>, String> {
    let Some(map) = body.as_object() else {
        return Err("send an object: {\"your_turn\": false, …}".into());
    };
    if map.is_empty() {
        return Err("name at least one kind".into());
    }
    map.iter()
        .map(|(name, on)| {
            let kind = NoticeKind::parse(name)
                .filter(|k| NoticeKind::ALL.contains(k))
                .ok_or_else(|| {
                    let all: Vec<&str> = NoticeKind::ALL.iter().map(|k| k.name()).collect();
                    format!("{name} is not a kind of notice: one of {}", all.join(", "))
                })?;
            let on = on
                .as_bool()
                .ok_or_else(|| format!("{name}: true or false"))?;
            Ok((kind, on))
        })
        .collect()
}

/// `PUT /api/me/notices`.
pub async fn put(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    async {
        let player = telegram_player(&state, &req, &q)?;
        let wanted = switches(&body)
            .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, m))?;
        super::request::charge(&state, &req, Some(&player), "me_notices")?;
        let bp = &*state.backplane;
        let Some(mut user) = users::load(bp, &player.0).await.map_err(unavailable)? else {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::BadRequest,
                "start the bot first: Telegram lets it write only to those who did",
            ));
        };
        for (kind, on) in wanted {
            if user.wants(kind) != on {
                user.toggle(kind);
            }
        }
        users::save(bp, &player.0, &user)
            .await
            .map_err(unavailable)?;
        Ok(HttpResponse::Ok().json(settings(Some(&user))))
    }
    .await
}
