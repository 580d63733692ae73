//! Configuration: `config/default.toml` → `config/$TABULA_ENV.toml` →
//! environment `TABULA__SECTION__KEY`, validated into [`Settings`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use config::{Config, Environment, File, FileFormat};
use serde::Deserialize;

/// The defaults compiled in (the same file as `config/default.toml`).
pub const DEFAULT_TOML: &str = include_str!("../../../../config/default.toml");

/// Why the configuration is unusable. The message names the bad key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A source could not be read or a value has the wrong type.
    #[error("configuration: {0}")]
    Load(#[from] config::ConfigError),
    /// A value is out of range.
    #[error("configuration key `{key}`: {message}")]
    Invalid {
        /// The dotted key, e.g. `server.listen`.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// `[server]`.
#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    /// Listen address (as text in the sources).
    pub listen: String,
    /// actix-web workers.
    pub workers: usize,
    /// Arbiters for room actors.
    pub room_arbiters: usize,
    /// Largest text message read.
    pub max_message_bytes: usize,
    /// Largest frame accepted at all.
    pub max_frame_bytes: usize,
    /// Sustained messages per second per connection.
    pub rate_per_sec: u32,
    /// Burst per connection.
    pub rate_burst: u32,
    /// Rate-limited messages before the socket is closed.
    pub abuse_strikes: u32,
    /// A server ping to a socket silent this long, ms.
    #[serde(default = "default_ping_interval_ms")]
    pub ping_interval_ms: u64,
    /// Nothing heard from a socket (a frame or a pong) for this long, ms:
    /// it is closed as dead.
    #[serde(default = "default_idle_timeout_ms")]
    pub idle_timeout_ms: u64,
    /// A socket in no room for this long, ms, is closed (`idle`).
    #[serde(default = "default_join_timeout_ms")]
    pub join_timeout_ms: u64,
    /// Sockets the node holds at most; 0: the open-file limit less
    /// `fd_headroom`.
    #[serde(default)]
    pub max_sockets: usize,
    /// File descriptors kept free for health, metrics and the store when
    /// `max_sockets` comes from the open-file limit.
    #[serde(default = "default_fd_headroom")]
    pub fd_headroom: usize,
    /// Sockets one player may hold at once.
    #[serde(default = "default_max_sockets_per_player")]
    pub max_sockets_per_player: usize,
    /// Sockets one address may hold at once (the address as
    /// `quotas.trusted_proxy_hops` reads it).
    #[serde(default = "default_max_sockets_per_address")]
    pub max_sockets_per_address: usize,
    /// After a socket is closed for flooding, its address gets no new
    /// socket for this long, ms.
    #[serde(default = "default_abuse_cooldown_ms")]
    pub abuse_cooldown_ms: u64,
    /// Shutdown wait.
    pub shutdown_timeout_secs: u64,
}

/// A secret read from the environment; `Debug` never prints it.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl Secret {
    /// The secret itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The `[auth]` keys that hold secrets: accepted only from the environment
/// (`TABULA__AUTH__BOT_TOKEN`, `TABULA__AUTH__SESSION_SECRET`), refused in a
/// config file.
pub const SECRET_KEYS: [&str; 3] = [
    "auth.bot_token",
    "auth.session_secret",
    "telegram.webhook_secret",
];

/// `[auth]`.
#[derive(Debug, Clone, Deserialize)]
pub struct AuthSettings {
    /// Guest mode as configured; see [`AuthSettings::guest_enabled`] for the
    /// effective value.
    pub guest: bool,
    /// Keep guest mode on even when a bot token is configured.
    #[serde(default)]
    pub force_guest: bool,
    /// The Telegram bot token (environment only: `TABULA__AUTH__BOT_TOKEN`).
    /// When set, `initData` is validated with it.
    #[serde(default)]
    pub bot_token: Option<Secret>,
    /// The session-token HMAC secret, at least 32 bytes (environment only:
    /// `TABULA__AUTH__SESSION_SECRET`). When unset a random per-process
    /// secret is generated at start-up.
    #[serde(default)]
    pub session_secret: Option<Secret>,
    /// Third-party validation: the numeric id of the bot whose Mini App
    /// signs `initData`, for a node that does not hold its token. When set
    /// (and no `bot_token` is), `initData` is checked with Telegram's
    /// Ed25519 `signature` instead of the HMAC `hash`. 0: unset.
    #[serde(default)]
    pub telegram_bot_id: u64,
    /// Whose Ed25519 key signs it: `production` or `test` (Telegram's test
    /// environment).
    #[serde(default = "default_telegram_env")]
    pub telegram_env: String,
    /// An explicit Ed25519 public key (64 hex digits) instead of the one
    /// Telegram publishes for `telegram_env` (a key Telegram publishes
    /// later, or a test key). Empty: Telegram's.
    #[serde(default)]
    pub telegram_public_key: String,
    /// The oldest `auth_date` accepted in `initData`, seconds.
    pub init_data_max_age_secs: u64,
    /// How long an issued session token is valid, seconds.
    pub session_ttl_secs: u64,
    /// How long a guest's session token is valid, seconds (default 30
    /// days). The token is a guest's only credential: the Mini App keeps
    /// it, and each `welcome` brings a fresh one, so a guest who comes back
    /// within this long is still the same player.
    #[serde(default = "default_guest_session_ttl_secs")]
    pub guest_session_ttl_secs: u64,
}

fn default_ping_interval_ms() -> u64 {
    20_000
}

fn default_idle_timeout_ms() -> u64 {
    60_000
}

fn default_join_timeout_ms() -> u64 {
    10_000
}

fn default_fd_headroom() -> usize {
    128
}

fn default_max_sockets_per_player() -> usize {
    8
}

fn default_max_sockets_per_address() -> usize {
    256
}

fn default_abuse_cooldown_ms() -> u64 {
    30_000
}

impl ServerSettings {
    /// `max_sockets`, or the open-file limit less `fd_headroom` when 0.
    pub fn socket_cap(&self) -> usize {
        match self.max_sockets {
            0 => crate::sockets::from_file_limit(self.fd_headroom),
            n => n,
        }
    }
}

fn default_guest_session_ttl_secs() -> u64 {
    30 * 86_400
}

impl AuthSettings {
    /// Whether guests are admitted: `guest`, but off when a bot token is
    /// configured unless `force_guest`.
    pub fn guest_enabled(&self) -> bool {
        self.guest && (!self.telegram_configured() || self.force_guest)
    }

    /// Whether Telegram `initData` can be validated: a bot token, or a bot
    /// id for the third-party (Ed25519) check.
    pub fn telegram_configured(&self) -> bool {
        self.bot_token.is_some() || self.telegram_bot_id != 0
    }

    /// The Ed25519 public key third-party validation uses. `None` when
    /// `telegram_public_key` is not 64 hex digits or the env is unknown
    /// (`Settings::validate` refuses both).
    pub fn telegram_key(&self) -> Option<[u8; 32]> {
        if !self.telegram_public_key.is_empty() {
            let mut key = [0u8; 32];
            hex::decode_to_slice(&self.telegram_public_key, &mut key).ok()?;
            return Some(key);
        }
        match self.telegram_env.as_str() {
            "production" => Some(tabula_auth::TelegramEnv::Production.public_key()),
            "test" => Some(tabula_auth::TelegramEnv::Test.public_key()),
            _ => None,
        }
    }
}

fn default_telegram_env() -> String {
    "production".into()
}

/// `[rooms]`.
#[derive(Debug, Clone, Deserialize)]
pub struct RoomSettings {
    /// Disconnect grace, ms.
    pub grace_ms: u64,
    /// An idle room (no socket, nothing running) is unloaded after this,
    /// ms; the next join restores it from its snapshot.
    pub unload_after_ms: u64,
    /// An unloaded room nobody joins again within this is deleted from
    /// the store with its records, ms.
    pub forget_after_ms: u64,
    /// The same for a paused game against a bot (its player left; seed
    /// 001: he continues it later), ms.
    pub paused_forget_after_ms: u64,
    /// Longest chat line.
    pub chat_max_chars: usize,
    /// The clocks of a room between people created without
    /// `timeControl` (and of a quick match asked without one): `none`,
    /// `blitz`, `normal`, `long`, `1d`, `3d`, `7d` (correspondence) or
    /// `{delayMs, reserveMs}`. Games against
    /// the computer have none unless asked.
    pub default_time_control: tabula_protocol::http::TimeControlSpec,
}

/// `[quotas]`: what one player or one address may make the node hold
/// ([`crate::quotas`]).
#[derive(Debug, Clone, Deserialize)]
pub struct QuotaSettings {
    /// Room-making requests (`POST /api/rooms` and `POST /api/quickmatch`
    /// together) a player may make per minute, sustained.
    pub player_rooms_per_minute: u32,
    /// Room-making requests a player may make at once (the bucket's size).
    pub player_rooms_burst: u32,
    /// Room-making requests per minute from one client address (IPv6: one
    /// /64), sustained; requests without credentials count here only.
    pub address_rooms_per_minute: u32,
    /// Room-making requests one client address may make at once.
    pub address_rooms_burst: u32,
    /// Proxies in front of the node that append to `X-Forwarded-For`: 0
    /// (the default) counts the peer's address and never reads the header;
    /// n counts the n-th entry from the right, the one the outermost
    /// trusted proxy wrote.
    pub trusted_proxy_hops: u8,
    /// Rooms this node holds in memory at most: creation (and the orphan
    /// sweep) stop here; a player's join may restore a stored room up to a
    /// quarter more ([`crate::Rooms`]).
    pub max_rooms: usize,
}

/// `[matchmaking]`.
#[derive(Debug, Clone, Deserialize)]
pub struct MatchmakingSettings {
    /// Wait before a bot is offered, ms.
    pub bot_after_ms: u64,
    /// The bot's level.
    pub bot_level: u8,
}

/// `[bots]`.
#[derive(Debug, Clone, Deserialize)]
pub struct BotSettings {
    /// Delay before each bot action, ms.
    pub delay_ms: u64,
    /// Bot and hint searches running at once on the node (0: one per core).
    pub max_searches: usize,
    /// Rollouts a player's hints may use per minute in a room (0: no limit).
    pub hint_rollouts_per_minute: u32,
}

/// `[log]`.
#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    /// `pretty` or `json`.
    pub format: String,
    /// EnvFilter directive.
    pub filter: String,
}

/// `[cluster]`.
#[derive(Debug, Clone, Deserialize)]
pub struct ClusterSettings {
    /// This node's name (empty: `node`); the process appends a random
    /// suffix (`<name>-<8 hex>`), so every process is a distinct node.
    #[serde(default)]
    pub node_id: String,
    /// `memory` (one node, the default) or `redis`.
    pub backplane: String,
    /// A routed command unanswered this long is resent (same `seq`), or
    /// re-routed when its room's owner changed, ms.
    pub route_timeout_ms: u64,
    /// How often the node looks for rooms nobody owns, ms.
    pub sweep_interval_ms: u64,
    /// After a takeover, players not back within this are marked
    /// disconnected (their forfeit grace starts), ms.
    pub takeover_grace_ms: u64,
    /// The longest a draining node spends handing its rooms off, ms.
    pub drain_grace_ms: u64,
    /// The other nodes, as `host:port` names of their HTTP listeners, each
    /// resolved to all of its addresses (in Kubernetes one headless
    /// Service name gives every pod; this node's own entry is recognised
    /// by its answer and left out). A node cut off from the store asks
    /// them whether they reach it, to tell its own partition from an
    /// outage everyone shares ([`crate::partition`]). Empty: never close
    /// sockets for a store fault.
    #[serde(default)]
    pub peers: Vec<String>,
    /// How long a peer's answer (DNS, then `GET /healthz`) is awaited, ms.
    #[serde(default = "default_peer_timeout_ms")]
    pub peer_timeout_ms: u64,
}

fn default_peer_timeout_ms() -> u64 {
    300
}

/// `[store]`: the durable store (`tabula-store`) and its archiver.
#[derive(Clone, Deserialize)]
pub struct StoreSettings {
    /// `sqlite://…`, `postgres://…`, or empty for none.
    pub url: String,
    /// Connections in the pool.
    pub max_connections: u32,
    /// How long a call waits for a connection, ms.
    pub acquire_timeout_ms: u64,
    /// How often the archiver looks at the queue unprompted, ms.
    pub archive_interval_ms: u64,
    /// Games taken from the queue per batch.
    pub archive_batch: usize,
}

impl std::fmt::Debug for StoreSettings {
    // The URL may hold a password: only its scheme is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSettings")
            .field("url", &self.scheme())
            .field("max_connections", &self.max_connections)
            .field("acquire_timeout_ms", &self.acquire_timeout_ms)
            .field("archive_interval_ms", &self.archive_interval_ms)
            .field("archive_batch", &self.archive_batch)
            .finish()
    }
}

impl StoreSettings {
    /// Whether a durable store is configured.
    pub fn enabled(&self) -> bool {
        !self.url.trim().is_empty()
    }

    /// The URL's scheme (`sqlite`, `postgres`; empty for none), for logs.
    pub fn scheme(&self) -> &str {
        self.url.split(':').next().unwrap_or_default()
    }
}

/// `[web]`: the Mini App (`web/`) served at `/`.
#[derive(Debug, Clone, Deserialize)]
pub struct WebSettings {
    /// The directory served at `/` (empty: serve the API only). A relative
    /// path is taken from the working directory, then from the source
    /// checkout the binary was built from (so `cargo run` works from any
    /// directory of the repository).
    #[serde(default = "default_web_dir")]
    pub dir: String,
    /// The Mini App's Telegram link, `https://t.me/<bot>/<app>`: invites
    /// opened inside Telegram are `<this>?startapp=<code>`. Empty: invites
    /// are plain URLs of this node.
    #[serde(default)]
    pub telegram_app_url: String,
}

impl Default for WebSettings {
    fn default() -> WebSettings {
        WebSettings {
            dir: default_web_dir(),
            telegram_app_url: String::new(),
        }
    }
}

fn default_web_dir() -> String {
    "web".into()
}

impl WebSettings {
    /// The directory to serve, if it exists: `dir` as given (absolute, or
    /// relative to the working directory), else relative to the repository
    /// this binary was built from. `None`: serve the API only.
    pub fn resolve(&self) -> Option<PathBuf> {
        if self.dir.is_empty() {
            return None;
        }
        let given = PathBuf::from(&self.dir);
        if given.is_dir() {
            return Some(given);
        }
        if given.is_relative() {
            let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
            let there = repo.join(&given);
            if there.is_dir() {
                return Some(there);
            }
        }
        None
    }
}

/// `[telegram]`: the bot (issue 44; [`crate::telegram`]). On when
/// `auth.bot_token` is set.
#[derive(Debug, Clone, Deserialize)]
pub struct TelegramSettings {
    /// The webhook's secret token (environment only:
    /// `TABULA__TELEGRAM__WEBHOOK_SECRET`).
    #[serde(default)]
    pub webhook_secret: Option<Secret>,
    /// The node's public https origin (empty: no webhook registered).
    #[serde(default)]
    pub public_url: String,
    /// Where the Bot API is (`<this>/bot<token>/<method>`).
    #[serde(default = "default_api_base_url")]
    pub api_base_url: String,
    /// Register the webhook at start-up when `public_url` is set.
    #[serde(default = "default_true")]
    pub set_webhook: bool,
    /// Messages a second for the bot as a whole, across nodes.
    #[serde(default = "default_messages_per_sec")]
    pub messages_per_sec: u32,
    /// The least time between two messages to one chat, ms.
    #[serde(default = "default_chat_interval_ms")]
    pub chat_interval_ms: u64,
    /// The least time between two tournament posts to one group, ms
    /// (Telegram allows about 20 messages a minute in a group).
    #[serde(default = "default_group_interval_ms")]
    pub group_interval_ms: u64,
    /// An arena's live top in its group is edited at most once per this,
    /// ms.
    #[serde(default = "default_group_top_interval_ms")]
    pub group_top_interval_ms: u64,
    /// At most one "your turn" per game and player within this, ms.
    #[serde(default = "default_turn_quiet_ms")]
    pub turn_quiet_ms: u64,
    /// A notice not sent within this after its cause is dropped, ms.
    #[serde(default = "default_notice_ttl_ms")]
    pub notice_ttl_ms: u64,
    /// The largest webhook body read, bytes.
    #[serde(default = "default_max_update_bytes")]
    pub max_update_bytes: usize,
}

impl Default for TelegramSettings {
    fn default() -> TelegramSettings {
        TelegramSettings {
            webhook_secret: None,
            public_url: String::new(),
            api_base_url: default_api_base_url(),
            set_webhook: true,
            messages_per_sec: default_messages_per_sec(),
            chat_interval_ms: default_chat_interval_ms(),
            group_interval_ms: default_group_interval_ms(),
            group_top_interval_ms: default_group_top_interval_ms(),
            turn_quiet_ms: default_turn_quiet_ms(),
            notice_ttl_ms: default_notice_ttl_ms(),
            max_update_bytes: default_max_update_bytes(),
        }
    }
}

fn default_api_base_url() -> String {
    "https://api.telegram.org".into()
}
fn default_true() -> bool {
    true
}
fn default_messages_per_sec() -> u32 {
    30
}
fn default_chat_interval_ms() -> u64 {
    1000
}
fn default_group_interval_ms() -> u64 {
    3000
}
fn default_group_top_interval_ms() -> u64 {
    60_000
}
fn default_turn_quiet_ms() -> u64 {
    600_000
}
fn default_notice_ttl_ms() -> u64 {
    86_400_000
}
fn default_max_update_bytes() -> usize {
    256 * 1024
}

/// `[testing]`: switches for end-to-end tests; all off in production.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TestingSettings {
    /// Accept `startPosition` in `POST /api/rooms` (start every game of the
    /// room from a given position). Off by default; refused with 403 then.
    #[serde(default)]
    pub allow_start_position: bool,
}

/// The node's settings.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    /// `[server]`.
    pub server: ServerSettings,
    /// `[auth]`.
    pub auth: AuthSettings,
    /// `[rooms]`.
    pub rooms: RoomSettings,
    /// `[quotas]`.
    pub quotas: QuotaSettings,
    /// `[matchmaking]`.
    pub matchmaking: MatchmakingSettings,
    /// `[bots]`.
    pub bots: BotSettings,
    /// `[log]`.
    pub log: LogSettings,
    /// `[cluster]`.
    pub cluster: ClusterSettings,
    /// `[redis]` (used when `cluster.backplane = "redis"`).
    pub redis: tabula_backplane::RedisConfig,
    /// `[store]`.
    pub store: StoreSettings,
    /// `[web]`.
    #[serde(default)]
    pub web: WebSettings,
    /// `[telegram]`.
    #[serde(default)]
    pub telegram: TelegramSettings,
    /// `[testing]`.
    #[serde(default)]
    pub testing: TestingSettings,
}

impl Settings {
    /// The compiled-in defaults only (tests).
    pub fn defaults() -> Settings {
        Settings::build(None, None, false).expect("the default configuration is valid")
    }

    /// Defaults, then `dir/default.toml` and `dir/$env.toml` when present,
    /// then the `TABULA__SECTION__KEY` environment.
    pub fn load(dir: &Path, env: Option<&str>) -> Result<Settings, SettingsError> {
        Settings::build(Some(dir), env, true)
    }

    fn build(
        dir: Option<&Path>,
        env: Option<&str>,
        use_env: bool,
    ) -> Result<Settings, SettingsError> {
        let mut b = Config::builder().add_source(File::from_str(DEFAULT_TOML, FileFormat::Toml));
        if let Some(dir) = dir {
            b = b.add_source(File::from(dir.join("default.toml")).required(false));
            if let Some(env) = env {
                b = b.add_source(File::from(dir.join(format!("{env}.toml"))).required(false));
            }
        }
        let files = b.clone().build()?;
        for key in SECRET_KEYS {
            if files.get::<config::Value>(key).is_ok() {
                return Err(SettingsError::Invalid {
                    key,
                    message: format!(
                        "a secret may not be set in a config file; set the environment variable TABULA__{}",
                        key.to_ascii_uppercase().replace('.', "__")
                    ),
                });
            }
        }
        if use_env {
            b = b.add_source(
                Environment::with_prefix("TABULA")
                    .prefix_separator("__")
                    .separator("__")
                    .try_parsing(true)
                    .list_separator(",")
                    .with_list_parse_key("redis.urls")
                    .with_list_parse_key("cluster.peers"),
            );
        }
        let s: Settings = b.build()?.try_deserialize()?;
        s.validate()?;
        Ok(s)
    }

    /// The listen address.
    pub fn listen_addr(&self) -> Result<SocketAddr, SettingsError> {
        self.server
            .listen
            .parse()
            .map_err(|e| SettingsError::Invalid {
                key: "server.listen",
                message: format!("{:?} is not host:port ({e})", self.server.listen),
            })
    }
}

mod check;
#[cfg(test)]
mod tests;
