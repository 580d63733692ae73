//! What every match task of a run shares: the run's settings and its
//! measurements, whether it is over, when the chaos command ran.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::stats::Stats;

/// The run's settings, shared by every match task.
#[derive(Debug)]
pub struct Config {
    /// Nodes.
    pub hosts: Vec<String>,
    /// Game.
    pub game: String,
    /// Bot level in seat B.
    pub bot: Option<u8>,
    /// Both sockets of a match on its room's node.
    pub affinity: bool,
    /// Think range.
    pub think: (Duration, Duration),
    /// Action timeout.
    pub action_timeout: Duration,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Telegram test bot token.
    pub bot_token: Option<String>,
    /// Check records.
    pub verify: bool,
    /// Whole turns instead of steps.
    pub turns: bool,
    /// Resign after this many game actions of a seat.
    pub resign_after: Option<u32>,
    /// Distinguishes this run's player names.
    pub run_tag: String,
}

impl Config {
    /// The query string that authenticates `name`.
    pub fn credentials(&self, name: &str) -> String {
        match &self.bot_token {
            None => format!("guest={name}"),
            Some(token) => {
                // A stable numeric Telegram id per simulated player.
                let id = name.bytes().fold(1_469_598_103_934_665_603u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211)
                }) >> 12;
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
                    .to_string();
                let user = json!({"id": id, "first_name": "Load", "username": name}).to_string();
                let init =
                    tabula_auth::sign_init_data(&[("auth_date", &now), ("user", &user)], token);
                let enc: String = init
                    .bytes()
                    .map(|b| match b {
                        b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                            (b as char).to_string()
                        }
                        _ => format!("%{b:02X}"),
                    })
                    .collect();
                format!("initData={enc}")
            }
        }
    }
}

/// What every task shares.
#[derive(Debug)]
pub struct Shared {
    /// Settings.
    pub cfg: Config,
    /// Measurements.
    pub stats: Stats,
    pub(crate) stop: AtomicBool,
    pub(crate) chaos: Mutex<Option<Instant>>,
}

impl Shared {
    /// Whether the run is over.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// When the chaos command ran, if it has.
    pub fn chaos_time(&self) -> Option<Instant> {
        *self.chaos.lock().unwrap_or_else(|e| e.into_inner())
    }
}
