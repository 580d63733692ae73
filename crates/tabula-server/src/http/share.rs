//! A finished game shared from the Mini App as a message of the bot's
//! (issue 44): `POST /api/me/share` prepares it with the Bot API's
//! `savePreparedInlineMessage`, and the Mini App hands the answer's `id`
//! to `Telegram.WebApp.shareMessage` (Bot API 8.0+), which lets the
//! player pick the chat. The message is the game's result with a button
//! that opens its replay in the Mini App; a link alone (the fallback of
//! older clients, web/share.js) shows neither.
//!
//! - Body: `{"room": "<room id>", "game": <game number>, "lang": "ru"|"en"}`
//!   (`lang` optional: else the language of the player's `initData`, else
//!   English).
//! - 200 `{"id", "expiresAt"}` (`expiresAt`: seconds since the epoch, as
//!   Telegram gives it).
//! - 401 without credentials, 403 for a guest, 400 for a body that does
//!   not read, 404 for a game neither the store nor the room's log holds
//!   ([`finished`]), 429 (with
//!   `Retry-After`) past [`crate::telegram::SHARES`], 503 without a bot, a
//!   store, or the Mini App's `t.me` link (`web.telegram_app_url`: a
//!   message in any chat opens the app only through it), or when Telegram
//!   refuses or cannot be reached.

use actix_web::http::StatusCode;

use actix_web::{HttpRequest, HttpResponse, web};
use frankenstein::AsyncTelegramApi;
use frankenstein::inline_mode::{
    InlineQueryResultArticle, InputMessageContent, InputTextMessageContent,
};
use frankenstein::methods::SavePreparedInlineMessageParams;
use frankenstein::types::InlineKeyboardMarkup;
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{AuthQuery, ShareGame, Shared};
use tabula_room::{GameKind, Phase, Room, SeatId};
use tabula_store::{GameKey, Seat};

use super::ApiError;
use crate::AppState;
use crate::telegram::AppPlace;
use crate::telegram::texts::Lang;

fn unavailable(message: impl Into<String>) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        message,
    )
}

/// `POST /api/me/share`.
pub async fn share(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<ShareGame>,
) -> Result<HttpResponse, ApiError> {
    async {
        let login = super::telegram_login(
            &state,
            &req,
            &q,
            "sharing through the bot is for Telegram players: open Tabula in Telegram",
        )?;
        let Some(tg) = state.telegram.clone() else {
            return Err(unavailable(
                "this node has no Telegram bot (auth.bot_token)",
            ));
        };
        let Some(user_id) = login
            .player
            .0
            .strip_prefix("tg:")
            .and_then(|id| id.parse::<u64>().ok())
        else {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::Unauthorized,
                format!("{} is not a Telegram user id", login.player.0),
            ));
        };
        let body = body.into_inner();
        if body.room.is_empty() || body.room.len() > 64 {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                "room: a room id of 1 to 64 characters",
            ));
        }
        let lang = match body.lang.as_deref() {
            None => Lang::of(login.language.as_deref()),
            Some("ru") => Lang::Ru,
            Some("en") => Lang::En,
            Some(other) => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::BadRequest,
                    format!("lang {other:?}: ru or en"),
                ));
            }
        };
        let place = AppPlace::Replay(body.room.clone(), body.game);
        let Some(button) = tg.link_button(lang.open_replay(), &place) else {
            return Err(unavailable(
                "this node does not know the Mini App's t.me link (web.telegram_app_url)",
            ));
        };
        // Charged before the store is read: a flood of requests for games
        // that do not exist costs the store as little as one that does.
        let now_ms = state.started.elapsed().as_millis() as u64;
        {
            let mut shares = tg
                .shares
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Err(wait_ms) = shares.check(&login.player.0, now_ms) {
                let secs = wait_ms.div_ceil(1000).max(1);
                return Err(ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    format!("too many games shared; try again in {secs} s"),
                )
                .retry_after(secs));
            }
            shares.take(&login.player.0, now_ms);
        }
        let Some(g) = finished(&state, &body.room, body.game).await else {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::GameNotFound,
                format!("no finished game {} of room {}", body.game, body.room),
            ));
        };
        let names = super::players::seat_names(&state, &g.seats, lang).await;
        let (winner, loser, drawn) = match g.winner {
            Some(SeatId::A) => (&names[0], &names[1], false),
            Some(SeatId::B) => (&names[1], &names[0], false),
            None => (&names[0], &names[1], true),
        };
        let text = lang.shared_game(winner, loser, g.kind, drawn);
        let result = InlineQueryResultArticle::builder()
            .id(format!("replay-{}-{}", body.room, body.game))
            .title(lang.shared_title(g.kind))
            .input_message_content(InputMessageContent::Text(
                InputTextMessageContent::builder()
                    .message_text(text)
                    .build(),
            ))
            .reply_markup(InlineKeyboardMarkup {
                inline_keyboard: vec![vec![button]],
            })
            .build();
        let params = SavePreparedInlineMessageParams::builder()
            .user_id(user_id)
            .result(result.into())
            .allow_user_chats(true)
            .allow_group_chats(true)
            .allow_channel_chats(true)
            .build();
        match tg.api.save_prepared_inline_message(&params).await {
            Ok(r) => Ok(HttpResponse::Ok().json(Shared {
                id: r.result.id,
                expires_at: r.result.expiration_date,
            })),
            Err(e) => {
                tracing::warn!(error = %e, "savePreparedInlineMessage failed");
                Err(unavailable(format!(
                    "Telegram did not prepare the message: {e}"
                )))
            }
        }
    }
    .await
}

/// What a shared message says of a finished game.
struct Finished {
    kind: GameKind,
    seats: [Seat; 2],
    winner: Option<SeatId>,
}

/// Game `n` of `room`: from the durable store, else, while it is not
/// archived yet (the archive follows a game's end by about
/// `store.archive_interval_ms`) or without a store, from the room's own
/// log when it is the room's last game and the match is over (a rematch
/// swaps the seats, so a later one is not read from there).
async fn finished(state: &AppState, room: &str, n: u32) -> Option<Finished> {
    if let Ok(store) = state.durable.get() {
        match store.game(&GameKey::new(room, n)).await {
            Ok(Some(s)) => {
                return Some(Finished {
                    kind: s.game.kind,
                    seats: s.game.seats.clone(),
                    winner: s.game.result.winner,
                });
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, "durable store: a shared game is read from its room")
            }
        }
    }
    let stored = state.backplane.load_snapshot(room).await.ok()??;
    let r = Room::restore(&stored.snapshot).ok()?;
    let record = r.records().last()?;
    if r.records().len() != n as usize || r.phase() != Phase::Finished {
        return None;
    }
    let seat = |s: SeatId| match (r.player_in(s), r.bot_in(s)) {
        (Some(p), _) => Seat::Player(p.0.clone()),
        (None, Some(level)) => Seat::Bot(level),
        (None, None) => Seat::Deleted,
    };
    Some(Finished {
        kind: record.game,
        seats: [seat(SeatId::A), seat(SeatId::B)],
        winner: record.result.winner,
    })
}
