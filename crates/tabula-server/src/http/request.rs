//! What a route reads of a request — its credentials, the player they
//! name, the client's address — its room-making quota, and the one error
//! body every refusal answers with (the extractors' refusals too).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{AuthQuery, ErrorBody};
use tabula_room::PlayerId;

use crate::AppState;
use crate::credentials::{Credentials, Login};
use crate::quotas::Refusal;

/// The JSON error body: `{"error": {"code", "message"}}`.
pub fn error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status).json(ErrorBody::new(code, message))
}

/// A route's refusal: the one error type of the HTTP routes (and of what
/// they call to check a request), answered as its status with the
/// `{"error"}` body ([`error`]) and, for a refusal to retry later, a
/// `Retry-After`. A handler returns `Result<HttpResponse, ApiError>` and
/// passes refusals up with `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    retry_after_s: Option<u64>,
}

impl ApiError {
    /// A refusal with `status`, `code` and `message`.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after_s: None,
        }
    }

    /// The same, asking the client to retry after `secs` (`Retry-After`).
    pub fn retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after_s = Some(secs);
        self
    }

    /// 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code.as_str(),
            self.message
        )
    }
}

impl actix_web::ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = error(self.status, self.code, self.message.clone());
        if let Some(secs) = self.retry_after_s {
            res.headers_mut().insert(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from(secs),
            );
        }
        res
    }
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

/// Path parameters that do not read (a game number of `-1`, `abc` or
/// 2^64; text that is not UTF-8): 400 with the `{"error"}` body, on every
/// route (actix's default is a plain-text 404).
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err, _req| {
        let res = error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("a path parameter does not read: {err}"),
        );
        actix_web::error::InternalError::from_response(err, res).into()
    })
}

pub(super) fn credentials(req: &HttpRequest, q: &AuthQuery) -> Credentials {
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

/// The player a request's credentials name, and what his signed
/// `initData` says about him; 401 when they name nobody.
pub(super) fn login(state: &AppState, req: &HttpRequest, q: &AuthQuery) -> Result<Login, ApiError> {
    state.auth.login(&credentials(req, q)).map_err(|e| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            e.to_string(),
        )
    })
}

/// The address the quotas count for `req`: its peer, or the
/// `X-Forwarded-For` entry of the outermost of `quotas.trusted_proxy_hops`
/// trusted proxies.
pub(super) fn client_ip(state: &AppState, req: &HttpRequest) -> Option<std::net::IpAddr> {
    let hops = state.settings.quotas.trusted_proxy_hops;
    let peer = req.peer_addr().map(|a| a.ip());
    if hops == 0 {
        return peer;
    }
    let forwarded: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .collect();
    crate::quotas::client_address(peer, &forwarded, hops)
}

/// Charges one room-making request by `player` (`None`: no credentials
/// presented) to its quotas; a refusal is 429 `rate_limited` with
/// `Retry-After`.
pub(super) fn charge(
    state: &AppState,
    req: &HttpRequest,
    player: Option<&PlayerId>,
    route: &str,
) -> Result<(), ApiError> {
    let now_ms = state.started.elapsed().as_millis() as u64;
    let address = client_ip(state, req);
    match state
        .quotas
        .admit(player.map(|p| p.0.as_str()), address, now_ms)
    {
        Ok(()) => Ok(()),
        Err(r) => {
            state
                .metrics
                .quota_refusals
                .with_label_values(&[route, r.label()])
                .inc();
            let whose = match r {
                Refusal::Player(_) => "this player (quotas.player_rooms_*)",
                Refusal::Address(_) => "this address (quotas.address_rooms_*)",
            };
            let secs = r.retry_after_secs();
            Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!("too many rooms made by {whose}; try again in {secs} s"),
            )
            .retry_after(secs))
        }
    }
}
