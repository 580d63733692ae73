//! The Bot API transport: frankenstein's [`AsyncTelegramApi`] (every
//! method and type of the API, one to one) over our own reqwest client,
//! so the bot's TLS is rustls with ring, as the rest of the node's is.
//! A method is `POST <api_base_url>/bot<token>/<method>` with a JSON body;
//! Telegram answers `{"ok":true,"result":…}` or `{"ok":false,
//! "error_code", "description", "parameters":{"retry_after"}}`.

use std::path::PathBuf;
use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::response::ErrorResponse;

/// Why a Bot API call failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Telegram answered with an error.
    #[error("Bot API error {code}: {description}")]
    Api {
        /// `error_code` (HTTP status).
        code: u64,
        /// `description`.
        description: String,
        /// `parameters.retry_after`, seconds (a 429).
        retry_after: Option<u16>,
    },
    /// The request did not complete (connection, timeout).
    #[error("Bot API unreachable: {0}")]
    Http(String),
    /// The answer did not read.
    #[error("Bot API answer unreadable: {0}")]
    Decode(String),
    /// A file upload, which the bot never makes.
    #[error("file uploads are not supported")]
    Files,
}

/// What the sender does after a failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 429: nothing is sent by anyone for this many seconds, then retry.
    RetryAfter(u64),
    /// 403: the player blocked the bot (or deleted his account).
    Blocked,
    /// A fault of Telegram's or the network's (5xx, unreachable): retry.
    Transient,
    /// The request is wrong (400 and the rest): retrying cannot help.
    Permanent,
}

impl ApiError {
    /// How the sender treats it.
    pub fn refusal(&self) -> Refusal {
        match self {
            ApiError::Api {
                code: 429,
                retry_after,
                ..
            } => Refusal::RetryAfter(u64::from(retry_after.unwrap_or(1)).max(1)),
            ApiError::Api { code: 403, .. } => Refusal::Blocked,
            ApiError::Api { code, .. } if *code >= 500 => Refusal::Transient,
            ApiError::Http(_) => Refusal::Transient,
            _ => Refusal::Permanent,
        }
    }

    /// A label for metrics.
    pub fn reason(&self) -> &'static str {
        match self.refusal() {
            Refusal::RetryAfter(_) => "rate_limited",
            Refusal::Blocked => "blocked",
            Refusal::Transient => "unavailable",
            Refusal::Permanent => "bad_request",
        }
    }
}

/// A Bot API client for one bot.
#[derive(Clone)]
pub struct Api {
    client: reqwest::Client,
    /// `<api_base_url>/bot<token>`.
    base: String,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The base holds the token.
        f.write_str("Api(<token>)")
    }
}

/// Installs ring as rustls's provider for the process, once (reqwest is
/// built without one of its own).
fn tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Already installed by someone else: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl Api {
    /// A client of the bot `token` at `api_base_url`; each call gives up
    /// after `timeout`.
    pub fn new(api_base_url: &str, token: &str, timeout: Duration) -> Result<Api, ApiError> {
        tls_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .timeout(timeout)
            .pool_idle_timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| ApiError::Http(e.to_string()))?;
        Ok(Api {
            client,
            base: format!("{}/bot{token}", api_base_url.trim_end_matches('/')),
        })
    }
}

#[async_trait::async_trait]
impl AsyncTelegramApi for Api {
    type Error = ApiError;

    async fn request<Params, Output>(
        &self,
        method: &str,
        params: Option<Params>,
    ) -> Result<Output, ApiError>
    where
        Params: serde::ser::Serialize + std::fmt::Debug + std::marker::Send,
        Output: serde::de::DeserializeOwned,
    {
        let url = format!("{}/{method}", self.base);
        let req = self.client.post(url);
        let req = match &params {
            Some(p) => req.json(p),
            None => req,
        };
        let res = req.send().await.map_err(|e| {
            // reqwest's error names the URL, which holds the token.
            ApiError::Http(e.without_url().to_string())
        })?;
        let status = res.status();
        let body = res
            .bytes()
            .await
            .map_err(|e| ApiError::Http(e.without_url().to_string()))?;
        if status.is_success() {
            serde_json::from_slice(&body).map_err(|e| ApiError::Decode(e.to_string()))
        } else {
            match serde_json::from_slice::<ErrorResponse>(&body) {
                Ok(e) => Err(ApiError::Api {
                    code: e.error_code,
                    description: e.description,
                    retry_after: e.parameters.and_then(|p| p.retry_after),
                }),
                Err(_) => Err(ApiError::Api {
                    code: u64::from(status.as_u16()),
                    description: String::from_utf8_lossy(&body).chars().take(200).collect(),
                    retry_after: None,
                }),
            }
        }
    }

    async fn request_with_form_data<Params, Output>(
        &self,
        _method: &str,
        _params: Params,
        _files: Vec<(&str, PathBuf)>,
    ) -> Result<Output, ApiError>
    where
        Params: serde::ser::Serialize + std::fmt::Debug + std::marker::Send,
        Output: serde::de::DeserializeOwned,
    {
        Err(ApiError::Files)
    }
}
