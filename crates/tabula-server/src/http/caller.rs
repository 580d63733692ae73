//! Who calls a route: the authenticated player (a signed login refreshes
//! his profile on the way), a Telegram player, or whoever creates a room
//! or a tournament.

use std::sync::atomic::Ordering;

use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use tabula_protocol::ErrorCode;
use tabula_protocol::http::AuthQuery;
use tabula_room::PlayerId;

use super::profiles;
use super::request::{ApiError, credentials, login};
use crate::AppState;
use crate::credentials::Login;

/// [`login`] for a route that needs only the player: a login with
/// `initData` refreshes his profile meanwhile (issue 24: at every login).
pub(super) fn authenticate(
    state: &AppState,
    req: &HttpRequest,
    q: &AuthQuery,
) -> Result<PlayerId, ApiError> {
    let l = login(state, req, q)?;
    refresh(state, &l);
    Ok(l.player)
}

/// A login with `initData` refreshes the player's profile from it.
fn refresh(state: &AppState, l: &Login) {
    if let Some(tg) = l.telegram.clone() {
        crate::archiver::refresh_profile(state, &l.player, Some(&tg), l.language.clone());
        let bp = state.backplane.clone();
        let keep = profiles::keep(&state.settings.auth, &l.player);
        let player = l.player.clone();
        actix_rt::spawn(async move {
            profiles::on_login(&*bp, keep, &player, Some(&tg)).await;
        });
    }
}

/// The Telegram player a request is from, on a node with a bot: 401
/// without credentials, 503 without a bot, 403 (`guest`, the reason) for
/// a guest.
pub(super) fn telegram_login(
    state: &AppState,
    req: &HttpRequest,
    q: &AuthQuery,
    guest: &str,
) -> Result<Login, ApiError> {
    let creds = credentials(req, q);
    if creds.token.is_none() && creds.init_data.is_none() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "sign in first: a session token (as welcome gives it) or initData",
        ));
    }
    if state.telegram.is_none() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            "this node has no Telegram bot (auth.bot_token)",
        ));
    }
    let l = login(state, req, q)?;
    refresh(state, &l);
    if !l.player.0.starts_with("tg:") {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            guest.to_string(),
        ));
    }
    Ok(l)
}

/// Who creates a room: on a node with guests, the player its credentials
/// name when it presents valid ones, else nobody (counted by its address
/// only); on a Telegram-only node, a Telegram identity is required (401).
pub(super) fn creator(
    state: &AppState,
    req: &HttpRequest,
    q: &AuthQuery,
) -> Result<Option<PlayerId>, ApiError> {
    let creds = credentials(req, q);
    if !state.settings.auth.guest_enabled() {
        return authenticate(state, req, q).map(Some);
    }
    if creds.init_data.is_none() && creds.token.is_none() {
        return Ok(None);
    }
    // Guests are free to make (a token per socket), so a guest node does
    // not turn away a creator whose token expired: it counts as anonymous.
    Ok(state.auth.authenticate(&creds).ok())
}

/// The [`creator`] of something new (a room, a tournament), refused with
/// 503 `shutting_down` on a draining node.
pub(super) fn creating(
    state: &AppState,
    req: &HttpRequest,
    q: &AuthQuery,
) -> Result<Option<PlayerId>, ApiError> {
    if state.draining.load(Ordering::SeqCst) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the node is draining",
        ));
    }
    creator(state, req, q)
}
