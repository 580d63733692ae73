//! The Telegram bot (issue 44): the webhook and what the bot answers
//! (`webhook.rs`, `updates.rs`), the notices rooms cause and their
//! durable outbound queue (`notice.rs`; the host decides them,
//! [`crate::host`]), the sender that drains it within Telegram's limits
//! (`sender.rs`), the players who started the bot (`users.rs`), every
//! text in both languages (`texts.rs`), and the Bot API transport
//! (`api.rs`, frankenstein's types over reqwest).
//!
//! The bot is on when `auth.bot_token` is set: the same bot signs the
//! Mini App's `initData` and sends the messages. Without a token the
//! webhook answers 404 and no room queues a notice.

pub mod api;
pub mod challenge;
pub mod group_post;
pub mod group_send;
pub mod groups;
mod metrics;
pub mod notice;
pub mod reply;
pub mod retry;
pub mod sender;
pub mod texts;
pub mod updates;
pub mod users;
pub mod webhook;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::types::{AllowedUpdate, InlineKeyboardButton, WebAppInfo};
use tabula_backplane::Backplane;

pub use metrics::TelegramMetrics;

use crate::metrics::Metrics;
use crate::settings::Settings;
use api::Api;
use notice::Queued;

/// A Bot API call gives up after this long.
const API_TIMEOUT: Duration = Duration::from_secs(10);

/// The bot: its API client, its settings, its name once `getMe` said it.
#[derive(Debug)]
pub struct Telegram {
    /// The Bot API.
    pub api: Api,
    /// `[telegram]`.
    pub settings: crate::settings::TelegramSettings,
    /// The webhook's secret (`None`: every update is refused).
    secret: Option<String>,
    /// The Mini App's `t.me` link (`web.telegram_app_url`), if any.
    app_url: String,
    /// The bot's username, from `getMe`.
    pub username: OnceLock<String>,
    /// The notices' outbox.
    pub outbox: Arc<Outbox>,
    /// Messages prepared for the Mini App's `shareMessage`, per player
    /// ([`SHARES`]): each is a Bot API call on the player's behalf.
    pub shares: std::sync::Mutex<crate::quotas::Limiter<String>>,
}

/// How many messages one player may have prepared to share: a burst of
/// 5, then one every 10 s.
pub const SHARES: crate::quotas::Rate = crate::quotas::Rate {
    per_minute: 6,
    burst: 5,
};

/// Where a button leads in the Mini App.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppPlace {
    /// The lobby.
    Lobby,
    /// A room, by id or invite code.
    Room(String),
    /// A finished game's replay.
    Replay(String, u32),
    /// A tournament (`startapp=t_<id>`).
    Tournament(String),
}

impl Telegram {
    /// The bot of these settings; `None` when no bot token is set.
    pub fn from_settings(settings: &Settings, metrics: &Metrics) -> Option<Arc<Telegram>> {
        let token = settings.auth.bot_token.as_ref()?;
        let api = match Api::new(&settings.telegram.api_base_url, token.expose(), API_TIMEOUT) {
            Ok(api) => api,
            Err(e) => {
                tracing::error!(error = %e, "the Telegram bot's HTTP client could not be built; the bot is off");
                return None;
            }
        };
        let secret = settings
            .telegram
            .webhook_secret
            .as_ref()
            .map(|s| s.expose().to_string());
        if secret.is_none() {
            tracing::warn!(
                "telegram.webhook_secret is not set (TABULA__TELEGRAM__WEBHOOK_SECRET): the webhook refuses every update"
            );
        }
        Some(Arc::new(Telegram {
            api,
            settings: settings.telegram.clone(),
            secret,
            app_url: settings.web.telegram_app_url.clone(),
            username: OnceLock::new(),
            shares: std::sync::Mutex::new(crate::quotas::Limiter::new(
                SHARES,
                crate::quotas::MAX_KEYS,
            )),
            outbox: Arc::new(Outbox {
                keep: Duration::from_millis(settings.telegram.notice_ttl_ms),
                bell: tokio::sync::Notify::new(),
                metrics: metrics.telegram.clone(),
            }),
        }))
    }

    /// Whether `header` is the webhook's secret (in constant time).
    pub fn secret_matches(&self, header: Option<&[u8]>) -> bool {
        use subtle::ConstantTimeEq;
        match (&self.secret, header) {
            (Some(s), Some(h)) => s.as_bytes().ct_eq(h).into(),
            _ => false,
        }
    }

    /// A button that opens `place` in the Mini App: the `t.me` link with
    /// `startapp` when `web.telegram_app_url` is set (it works in every
    /// chat), else a Web App button on `telegram.public_url` (private
    /// chats), else none.
    pub fn app_button(&self, text: &str, place: &AppPlace) -> Option<InlineKeyboardButton> {
        let base = InlineKeyboardButton::builder().text(text);
        if !self.app_url.is_empty() {
            let url = match place {
                AppPlace::Lobby => self.app_url.clone(),
                AppPlace::Room(key) => format!("{}?startapp={key}", self.app_url),
                AppPlace::Replay(room, n) => {
                    format!("{}?startapp=replay-{room}-{n}", self.app_url)
                }
                AppPlace::Tournament(id) => format!("{}?startapp=t_{id}", self.app_url),
            };
            return Some(base.url(url).build());
        }
        let public = self.settings.public_url.trim_end_matches('/');
        if public.is_empty() {
            return None;
        }
        let url = match place {
            AppPlace::Lobby => format!("{public}/"),
            AppPlace::Room(key) => format!("{public}/?join={key}"),
            AppPlace::Replay(room, n) => format!("{public}/?replay={room}.{n}"),
            AppPlace::Tournament(id) => format!("{public}/?tournament={id}"),
        };
        Some(base.web_app(WebAppInfo { url }).build())
    }

    /// A `t.me` link button to `place` (inline messages in any chat take
    /// only links); `None` without `web.telegram_app_url`.
    pub fn link_button(&self, text: &str, place: &AppPlace) -> Option<InlineKeyboardButton> {
        if self.app_url.is_empty() {
            return None;
        }
        self.app_button(text, place)
    }

    /// Start-up: `getMe` (the bot's name; a wrong token is logged, and the
    /// node serves anyway), then `setWebhook` when asked and possible.
    pub async fn start(&self) {
        self.get_me().await;
        if self.settings.set_webhook
            && !self.settings.public_url.is_empty()
            && let Err(e) = self.set_webhook().await
        {
            tracing::error!(error = %e, "setWebhook failed; updates will not arrive until it succeeds");
        }
    }

    /// `getMe`: keeps the bot's username. `false` when it failed.
    pub async fn get_me(&self) -> bool {
        match self.api.get_me().await {
            Ok(me) => {
                let name = me.result.username.unwrap_or_default();
                tracing::info!(bot = %name, id = me.result.id, "Telegram bot checked (getMe)");
                let _ = self.username.set(name);
                true
            }
            Err(e) => {
                tracing::error!(error = %e, "getMe failed: is the bot token right?");
                false
            }
        }
    }

    /// `setWebhook` at `<public_url>/telegram/webhook` with the secret and
    /// the updates the bot reads (messages, button taps, inline queries).
    pub async fn set_webhook(&self) -> Result<(), api::ApiError> {
        let url = format!(
            "{}/telegram/webhook",
            self.settings.public_url.trim_end_matches('/')
        );
        let Some(secret) = &self.secret else {
            return Err(api::ApiError::Api {
                code: 0,
                description: "no telegram.webhook_secret: the webhook would refuse every update"
                    .into(),
                retry_after: None,
            });
        };
        let params = frankenstein::methods::SetWebhookParams::builder()
            .url(url.clone())
            .secret_token(secret.clone())
            .allowed_updates(vec![
                AllowedUpdate::Message,
                AllowedUpdate::CallbackQuery,
                AllowedUpdate::InlineQuery,
                AllowedUpdate::ChosenInlineResult,
            ])
            .build();
        self.api.set_webhook(&params).await?;
        tracing::info!(%url, "webhook registered (setWebhook)");
        Ok(())
    }
}

/// The notices' outbox as a room sees it: queue (retried until the
/// backplane has it), then ring the sender.
#[derive(Debug)]
pub struct Outbox {
    /// How long a queued id is remembered (and a notice lives).
    pub keep: Duration,
    /// Rung when a notice is queued here: the sender looks at once.
    pub bell: tokio::sync::Notify,
    pub(crate) metrics: TelegramMetrics,
}

impl Outbox {
    /// Queues `q` in the backplane, retried until it is taken (a passing
    /// fault), for as long as this process lives; a refused id (queued
    /// before, by this node or an earlier owner) is not counted again.
    pub fn queue(self: &Arc<Self>, bp: Arc<dyn Backplane>, q: Queued) {
        let me = self.clone();
        actix::spawn(async move {
            let entry = match serde_json::to_string(&q.notice) {
                Ok(e) => e,
                Err(e) => {
                    tracing::error!(id = %q.id, error = %e, "notice not serialised");
                    return;
                }
            };
            let keep = q.notice.remembered_for(crate::time::now_ms(), me.keep);
            let mut wait = Duration::from_millis(100);
            loop {
                match bp
                    .queue_notice(&q.id, entry.clone(), q.notice.due_ms, keep)
                    .await
                {
                    Ok(queued) => {
                        if queued {
                            me.metrics
                                .queued
                                .with_label_values(&[q.notice.kind.name()])
                                .inc();
                            me.bell.notify_one();
                        }
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(id = %q.id, error = %e, "notice not queued yet; retrying");
                    }
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
        });
    }
}
