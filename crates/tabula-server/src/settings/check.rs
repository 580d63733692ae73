//! Whether a configuration is one the node can run with: every setting's
//! range and the rules between settings ([`Settings::validate`]).

use super::*;

impl Settings {
    /// Checks ranges; the error names the key.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let bad = |key: &'static str, message: &str| {
            Err(SettingsError::Invalid {
                key,
                message: message.to_string(),
            })
        };
        self.listen_addr()?;
        self.check_telegram()?;
        if self.server.workers == 0 {
            return bad("server.workers", "must be at least 1");
        }
        if self.server.room_arbiters == 0 {
            return bad("server.room_arbiters", "must be at least 1");
        }
        if self.server.max_message_bytes < 256 {
            return bad("server.max_message_bytes", "must be at least 256");
        }
        if self.server.max_frame_bytes < self.server.max_message_bytes {
            return bad(
                "server.max_frame_bytes",
                "must be at least server.max_message_bytes",
            );
        }
        if self.server.rate_per_sec == 0 || self.server.rate_burst == 0 {
            return bad("server.rate_per_sec", "rate and burst must be positive");
        }
        if self.server.ping_interval_ms < 100 {
            return bad("server.ping_interval_ms", "must be at least 100");
        }
        if self.server.idle_timeout_ms < 2 * self.server.ping_interval_ms {
            return bad(
                "server.idle_timeout_ms",
                "must be at least twice server.ping_interval_ms (a pong needs time)",
            );
        }
        if self.server.join_timeout_ms < 100 {
            return bad("server.join_timeout_ms", "must be at least 100");
        }
        if self.server.max_sockets_per_player == 0 {
            return bad("server.max_sockets_per_player", "must be at least 1");
        }
        if self.server.max_sockets_per_address == 0 {
            return bad("server.max_sockets_per_address", "must be at least 1");
        }
        if self.rooms.unload_after_ms < 1000 {
            return bad("rooms.unload_after_ms", "must be at least 1000");
        }
        if self.rooms.forget_after_ms < 1000 {
            return bad("rooms.forget_after_ms", "must be at least 1000");
        }
        if self.store.enabled()
            && !matches!(self.store.scheme(), "sqlite" | "postgres" | "postgresql")
        {
            return bad(
                "store.url",
                "must start with sqlite:, postgres: or be empty (none)",
            );
        }
        if self.store.max_connections == 0 || self.store.max_connections > 1000 {
            return bad("store.max_connections", "must be 1..=1000");
        }
        if self.store.acquire_timeout_ms < 10 {
            return bad("store.acquire_timeout_ms", "must be at least 10");
        }
        if self.store.archive_interval_ms < 10 {
            return bad("store.archive_interval_ms", "must be at least 10");
        }
        if !(1..=5000).contains(&self.store.archive_batch) {
            return bad("store.archive_batch", "must be 1..=5000");
        }
        if let Err(e) = self.rooms.default_time_control.resolve() {
            return bad("rooms.default_time_control", &e);
        }
        if self.rooms.paused_forget_after_ms < self.rooms.forget_after_ms {
            return bad(
                "rooms.paused_forget_after_ms",
                "must be at least rooms.forget_after_ms",
            );
        }
        let q = &self.quotas;
        if q.player_rooms_per_minute == 0 || q.player_rooms_burst == 0 {
            return bad(
                "quotas.player_rooms_per_minute",
                "rate and burst (quotas.player_rooms_burst) must be positive",
            );
        }
        if q.address_rooms_per_minute == 0 || q.address_rooms_burst == 0 {
            return bad(
                "quotas.address_rooms_per_minute",
                "rate and burst (quotas.address_rooms_burst) must be positive",
            );
        }
        if q.trusted_proxy_hops > 8 {
            return bad("quotas.trusted_proxy_hops", "must be 0..=8");
        }
        if q.max_rooms == 0 {
            return bad("quotas.max_rooms", "must be at least 1");
        }
        if !(1..=3).contains(&self.matchmaking.bot_level) {
            return bad("matchmaking.bot_level", "must be 1, 2 or 3");
        }
        let a = &self.auth;
        if a.init_data_max_age_secs == 0 {
            return bad("auth.init_data_max_age_secs", "must be at least 1");
        }
        if !(1..=30 * 86_400).contains(&a.session_ttl_secs) {
            return bad("auth.session_ttl_secs", "must be 1..=2592000 (30 days)");
        }
        if !(1..=365 * 86_400).contains(&a.guest_session_ttl_secs) {
            return bad(
                "auth.guest_session_ttl_secs",
                "must be 1..=31536000 (365 days)",
            );
        }
        if let Some(t) = &a.bot_token {
            let t = t.expose();
            let shaped = t.split_once(':').is_some_and(|(id, rest)| {
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) && !rest.is_empty()
            });
            if !shaped {
                return bad(
                    "auth.bot_token",
                    "must look like <bot id>:<secret> (as BotFather gives it); unset it to disable Telegram",
                );
            }
        }
        if a.telegram_key().is_none() {
            return bad(
                "auth.telegram_public_key",
                "must be empty or 64 hex digits, and auth.telegram_env \"production\" or \"test\"",
            );
        }
        if let Some(s) = &a.session_secret
            && s.expose().len() < tabula_auth::MIN_SECRET_LEN
        {
            return Err(SettingsError::Invalid {
                key: "auth.session_secret",
                message: format!(
                    "must be at least {} bytes (it is {})",
                    tabula_auth::MIN_SECRET_LEN,
                    s.expose().len()
                ),
            });
        }
        let c = &self.cluster;
        if !matches!(c.backplane.as_str(), "memory" | "redis") {
            return bad("cluster.backplane", "must be \"memory\" or \"redis\"");
        }
        if c.route_timeout_ms < 50 {
            return bad("cluster.route_timeout_ms", "must be at least 50");
        }
        if c.sweep_interval_ms < 50 {
            return bad("cluster.sweep_interval_ms", "must be at least 50");
        }
        if c.peer_timeout_ms == 0 || c.peer_timeout_ms >= self.redis.lease_ms {
            return bad(
                "cluster.peer_timeout_ms",
                "must be positive and shorter than redis.lease_ms",
            );
        }
        if let Some(p) = c.peers.iter().find(|p| !valid_peer(p)) {
            return bad(
                "cluster.peers",
                &format!("{p:?} is not host:port (a name or an address, and a port)"),
            );
        }
        if self.redis.lease_ms < 300 {
            return bad("redis.lease_ms", "must be at least 300");
        }
        if self.redis.timeout_ms == 0 || self.redis.timeout_ms >= self.redis.lease_ms {
            return bad(
                "redis.timeout_ms",
                "must be positive and shorter than redis.lease_ms",
            );
        }
        if self.redis.pool_size == 0 {
            return bad("redis.pool_size", "must be at least 1");
        }
        if self.redis.min_replicas_acked > 0
            && (self.redis.replica_ack_timeout_ms == 0
                || self.redis.replica_ack_timeout_ms >= self.redis.timeout_ms)
        {
            return bad(
                "redis.replica_ack_timeout_ms",
                "must be positive and shorter than redis.timeout_ms when redis.min_replicas_acked is set",
            );
        }
        if self.redis.min_replicas_acked > 0 && self.redis.pool_size < 2 {
            return bad(
                "redis.pool_size",
                "must be at least 2 when redis.min_replicas_acked is set (its writes hold a connection of their own)",
            );
        }
        if c.backplane == "redis" && self.redis.cluster && self.redis.urls.is_empty() {
            return bad("redis.urls", "a Redis Cluster needs at least one seed URL");
        }
        if !matches!(self.log.format.as_str(), "pretty" | "json") {
            return bad("log.format", "must be \"pretty\" or \"json\"");
        }
        let tg = &self.web.telegram_app_url;
        if !tg.is_empty() && (!tg.starts_with("https://t.me/") || tg.contains(['?', '#', ' '])) {
            return bad(
                "web.telegram_app_url",
                "must be empty or https://t.me/<bot>/<app> (no query)",
            );
        }
        if self.web.dir.contains('\0') {
            return bad("web.dir", "must be a path (it holds a NUL byte)");
        }
        let dir = Path::new(&self.web.dir);
        if !self.web.dir.is_empty() && dir.exists() && !dir.is_dir() {
            return Err(SettingsError::Invalid {
                key: "web.dir",
                message: format!(
                    "{:?} is a file, not a directory (empty: serve the API only)",
                    self.web.dir
                ),
            });
        }
        Ok(())
    }
}

/// `host:port`: a DNS name or an address (IPv6 in brackets), and a port.
pub(super) fn valid_peer(p: &str) -> bool {
    let Some((host, port)) = p.rsplit_once(':') else {
        return false;
    };
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
        && port.parse::<u16>().is_ok_and(|p| p > 0)
}

impl Settings {
    fn check_telegram(&self) -> Result<(), SettingsError> {
        let bad = |key: &'static str, message: &str| {
            Err(SettingsError::Invalid {
                key,
                message: message.to_string(),
            })
        };
        let t = &self.telegram;
        if let Some(secret) = &t.webhook_secret {
            let s = secret.expose();
            if s.is_empty()
                || s.len() > 256
                || !s
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return bad(
                    "telegram.webhook_secret",
                    "must be 1 to 256 characters of A-Z a-z 0-9 _ - (Telegram's secret_token)",
                );
            }
        }
        let web = |u: &str| u.starts_with("https://") || u.starts_with("http://");
        if !t.public_url.is_empty() && !web(&t.public_url) {
            return bad(
                "telegram.public_url",
                "must be an http(s) origin (Telegram calls only https)",
            );
        }
        if !web(&t.api_base_url) {
            return bad("telegram.api_base_url", "must be an http(s) URL");
        }
        if t.messages_per_sec == 0 {
            return bad("telegram.messages_per_sec", "must be at least 1");
        }
        if t.chat_interval_ms == 0 {
            return bad("telegram.chat_interval_ms", "must be at least 1");
        }
        if t.group_interval_ms == 0 {
            return bad("telegram.group_interval_ms", "must be at least 1");
        }
        if t.notice_ttl_ms < 1000 {
            return bad("telegram.notice_ttl_ms", "must be at least 1000");
        }
        if t.max_update_bytes < 1024 {
            return bad("telegram.max_update_bytes", "must be at least 1024");
        }
        Ok(())
    }
}
