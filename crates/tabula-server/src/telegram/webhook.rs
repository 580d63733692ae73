//! `POST /telegram/webhook`: where Telegram delivers updates.
//!
//! 404 when the bot is off (no token); 401 unless the
//! `X-Telegram-Bot-Api-Secret-Token` header is `telegram.webhook_secret`;
//! 413 over `telegram.max_update_bytes`; 400 for a body that is not an
//! update (JSON with a numeric `update_id`). Each refusal has the API's
//! `{"error"}` body and changes nothing. An accepted update is claimed by
//! its `update_id` across every node (a redelivery is answered 200 and
//! ignored), answered 200 at once, and acted on afterwards
//! ([`super::updates`]). An update of a kind the bot does not read is
//! answered 200 and ignored. A backplane that cannot be reached gets 503,
//! so Telegram delivers the update again later.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::StreamExt;
use tabula_protocol::ErrorCode;

use crate::AppState;
use crate::http::ApiError;

/// How long an `update_id` is remembered (Telegram stops redelivering an
/// update long before).
const UPDATE_KEEP: Duration = Duration::from_secs(86_400);

/// The secret token's header.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

/// The route.
pub async fn webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    mut body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let started = Instant::now();
    let Some(tg) = state.telegram.clone() else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::BadRequest,
            "the Telegram bot is not configured on this node",
        ));
    };
    let m = &tg.outbox.metrics;
    let refuse = |status: StatusCode, code: ErrorCode, outcome: &str, msg: &str| {
        m.updates.with_label_values(&[outcome]).inc();
        m.webhook_latency.observe(started.elapsed().as_secs_f64());
        Err(ApiError::new(status, code, msg.to_string()))
    };
    let header = req.headers().get(SECRET_HEADER).map(|v| v.as_bytes());
    if !tg.secret_matches(header) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "unauthorized",
            "the X-Telegram-Bot-Api-Secret-Token header is missing or wrong",
        );
    }
    let limit = tg.settings.max_update_bytes;
    let too_large = || {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::BadRequest,
            "too_large",
            &format!("an update is at most {limit} bytes"),
        )
    };
    if req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|n| n > limit)
    {
        return too_large();
    }
    let mut bytes = web::BytesMut::new();
    while let Some(chunk) = body.next().await {
        let Ok(chunk) = chunk else {
            return refuse(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                "bad_request",
                "the body could not be read",
            );
        };
        if bytes.len() + chunk.len() > limit {
            return too_large();
        }
        bytes.extend_from_slice(&chunk);
    }
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                "bad_request",
                &format!("not JSON: {e}"),
            );
        }
    };
    let Some(update_id) = value.get("update_id").and_then(serde_json::Value::as_u64) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            "bad_request",
            "an update is a JSON object with a numeric update_id",
        );
    };
    match state
        .backplane
        .claim_slot(&format!("update:{update_id}"), UPDATE_KEEP)
        .await
    {
        Ok(true) => {}
        Ok(false) => {
            m.updates.with_label_values(&["duplicate"]).inc();
            m.webhook_latency.observe(started.elapsed().as_secs_f64());
            return Ok(HttpResponse::Ok().json(serde_json::json!({"ok": true})));
        }
        Err(e) => {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                "unavailable",
                &e.to_string(),
            );
        }
    }
    match serde_json::from_value::<frankenstein::updates::Update>(value) {
        Ok(update) => {
            m.updates.with_label_values(&["handled"]).inc();
            let state = state.into_inner();
            actix_web::rt::spawn(super::updates::handle(state, tg.clone(), update));
        }
        // A kind of update the bot does not read (or a newer API's form):
        // acknowledged, so Telegram does not deliver it again.
        Err(e) => {
            tracing::debug!(update_id, error = %e, "update ignored");
            m.updates.with_label_values(&["ignored"]).inc();
        }
    }
    m.webhook_latency.observe(started.elapsed().as_secs_f64());
    Ok(HttpResponse::Ok().json(serde_json::json!({"ok": true})))
}
