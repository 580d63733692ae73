//! `tabula-load`: simulates N concurrent matches against one or more Tabula
//! nodes over the public protocol (`docs/protocol.md`) and reports honest
//! latency figures (open-model pacing, HdrHistogram), errors by kind,
//! throughput, its own CPU per socket, and what a chaos command did to the
//! games in flight.
//!
//! ```sh
//! tabula-load --url 127.0.0.1:8080 --matches 1000 --ramp-up 20s --duration 60s \
//!     --think 500ms..3s --report report.json --assert 'p99<100ms,errors=0'
//! ```

mod play;
mod stats;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use clap::Parser;
use serde_json::json;

use crate::stats::{Stats, Summary};

/// Command line.
#[derive(Debug, Parser)]
#[command(
    name = "tabula-load",
    version,
    about = "Load-test harness for Tabula nodes"
)]
struct Cli {
    /// A node `host:port` (repeat for several nodes; sockets are spread
    /// over them round-robin, the two of a match on different nodes).
    #[arg(long = "url", required = true)]
    urls: Vec<String>,
    /// Concurrent matches kept running.
    #[arg(long, default_value_t = 100)]
    matches: usize,
    /// `long_nardy`, `backgammon` or `thud`.
    #[arg(long, default_value = "long_nardy")]
    game: String,
    /// One socket per match against a bot of this level (1..3) instead of
    /// two sockets.
    #[arg(long)]
    bot: Option<u8>,
    /// Time to start all matches (evenly spread).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    ramp_up: Duration,
    /// Steady time after the ramp-up.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    duration: Duration,
    /// Think time before each action: `500ms..3s` (uniform) or `0`.
    #[arg(long, default_value = "500ms..3s", value_parser = parse_think)]
    think: (Duration, Duration),
    /// An action unanswered this long counts as a timeout (the socket is
    /// then replaced and the action resent with its seq).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    action_timeout: Duration,
    /// Connect (and `welcome`) timeout.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    connect_timeout: Duration,
    /// Authenticate with Telegram `initData` signed with this (test) bot
    /// token, as the node must be configured; default: guest mode.
    #[arg(long)]
    bot_token: Option<String>,
    /// Run `sh -c CMD` at `--chaos-at` (e.g. `kill -9 1234`).
    #[arg(long)]
    chaos_cmd: Option<String>,
    /// When to run the chaos command, from the start.
    #[arg(long, value_parser = parse_duration)]
    chaos_at: Option<Duration>,
    /// Check each finished game's stored record against the moves its
    /// players saw acknowledged (on by default with chaos).
    #[arg(long)]
    verify: bool,
    /// Write the JSON report here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Thresholds, e.g. `p99<100ms,errors=0,games>=10`; exit 1 when missed.
    #[arg(long)]
    assert: Option<String>,
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, default_value_t = 5)]
    progress: u64,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    threads: Option<usize>,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|i| s.split_at(i))
        .unwrap_or((s, "s"));
    let n: f64 = num.parse().map_err(|_| format!("bad duration {s:?}"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" | "" => n,
        "m" => n * 60.0,
        _ => return Err(format!("bad duration unit in {s:?} (ms, s, m)")),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("bad duration {s:?}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_think(s: &str) -> Result<(Duration, Duration), String> {
    match s.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (parse_duration(a)?, parse_duration(b)?);
            if b < a {
                return Err(format!("think range {s:?} goes backwards"));
            }
            Ok((a, b))
        }
        None => {
            let d = parse_duration(s)?;
            Ok((d, d))
        }
    }
}

/// The run's settings, shared by every match task.
#[derive(Debug)]
pub struct Config {
    /// Nodes.
    pub hosts: Vec<String>,
    /// Game.
    pub game: String,
    /// Bot level in seat B.
    pub bot: Option<u8>,
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
    stop: AtomicBool,
    chaos: Mutex<Option<Instant>>,
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

/// CPU seconds this process has used (Linux `/proc/self/stat`).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    // USER_HZ is 100 on Linux.
    Some((utime + stime) / 100.0)
}

/// A threshold of `--assert`.
#[derive(Debug, Clone, PartialEq)]
enum Check {
    LatencyBelow(&'static str, f64),
    ErrorsAtMost(u64),
    GamesAtLeast(u64),
    MismatchesAtMost(u64),
}

fn parse_checks(s: &str) -> anyhow::Result<Vec<Check>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, op, val) = ["<=", ">=", "<", "="]
            .iter()
            .find_map(|op| part.split_once(op).map(|(k, v)| (k.trim(), *op, v.trim())))
            .ok_or_else(|| anyhow!("--assert: {part:?} is not <key><op><value>"))?;
        let pct = match key {
            "p50" => Some("p50"),
            "p90" => Some("p90"),
            "p99" => Some("p99"),
            "p999" | "p99.9" => Some("p999"),
            "max" => Some("max"),
            _ => None,
        };
        if let Some(p) = pct {
            if op != "<" && op != "<=" {
                bail!("--assert: latency thresholds use < ({part:?})");
            }
            let ms = parse_duration(val)
                .map_err(|e| anyhow!("--assert: {e}"))?
                .as_secs_f64()
                * 1000.0;
            out.push(Check::LatencyBelow(p, ms));
            continue;
        }
        let n: u64 = val
            .parse()
            .with_context(|| format!("--assert: {part:?}: not a count"))?;
        out.push(match (key, op) {
            ("errors", "=" | "<=") => Check::ErrorsAtMost(n),
            ("errors", "<") => Check::ErrorsAtMost(n.saturating_sub(1)),
            ("games", ">=") => Check::GamesAtLeast(n),
            ("lost", "=" | "<=") => Check::MismatchesAtMost(n),
            _ => bail!("--assert: unknown threshold {part:?} (p50|p90|p99|p999|max<T, errors=N, games>=N, lost=N)"),
        });
    }
    Ok(out)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match real_main(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "tabula-load: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main(cli: Cli) -> anyhow::Result<bool> {
    if cli.matches == 0 {
        bail!("--matches must be at least 1");
    }
    if !matches!(cli.game.as_str(), "long_nardy" | "backgammon" | "thud") {
        bail!("--game must be long_nardy, backgammon or thud");
    }
    if let Some(l) = cli.bot
        && !(1..=3).contains(&l)
    {
        bail!("--bot must be 1, 2 or 3");
    }
    if cli.chaos_cmd.is_some() != cli.chaos_at.is_some() {
        bail!("--chaos-cmd and --chaos-at go together");
    }
    let checks = cli.assert.as_deref().map(parse_checks).transpose()?;
    let threads = cli.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    let shared = Arc::new(Shared {
        cfg: Config {
            hosts: cli
                .urls
                .iter()
                .map(|u| {
                    u.trim_start_matches("http://")
                        .trim_start_matches("ws://")
                        .trim_end_matches('/')
                        .to_string()
                })
                .collect(),
            game: cli.game.clone(),
            bot: cli.bot,
            think: cli.think,
            action_timeout: cli.action_timeout,
            connect_timeout: cli.connect_timeout,
            bot_token: cli.bot_token.clone(),
            verify: cli.verify || cli.chaos_cmd.is_some(),
            run_tag: format!("{:04x}", rand::random::<u16>()),
        },
        stats: Stats::default(),
        stop: AtomicBool::new(false),
        chaos: Mutex::new(None),
    });
    let report = rt.block_on(run(&cli, shared.clone()))?;
    let text = serde_json::to_string_pretty(&report)?;
    if let Some(path) = &cli.report {
        std::fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", human(&report));
    let mut ok = true;
    for c in checks.unwrap_or_default() {
        let (pass, what) = match &c {
            Check::LatencyBelow(p, ms) => {
                let v = report["action"][format!("{p}_ms")]
                    .as_f64()
                    .unwrap_or(f64::MAX);
                (v < *ms, format!("{p} {v:.1} ms < {ms:.1} ms"))
            }
            Check::ErrorsAtMost(n) => {
                let v = report["errors_total"].as_u64().unwrap_or(u64::MAX);
                (v <= *n, format!("errors {v} <= {n}"))
            }
            Check::GamesAtLeast(n) => {
                let v = report["games"].as_u64().unwrap_or(0);
                (v >= *n, format!("games {v} >= {n}"))
            }
            Check::MismatchesAtMost(n) => {
                let v = report["lost_or_duplicated"].as_u64().unwrap_or(u64::MAX);
                (v <= *n, format!("lost/duplicated {v} <= {n}"))
            }
        };
        let _ = writeln!(out, "assert {}: {what}", if pass { "ok  " } else { "FAIL" });
        ok &= pass;
    }
    Ok(ok)
}

async fn run(cli: &Cli, shared: Arc<Shared>) -> anyhow::Result<serde_json::Value> {
    let start = Instant::now();
    let cpu0 = cpu_seconds();
    let end = start + cli.ramp_up + cli.duration;
    let mut tasks = Vec::new();
    for slot in 0..cli.matches {
        let shared = shared.clone();
        let delay = cli.ramp_up.mul_f64(slot as f64 / cli.matches as f64);
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let mut n = 0u64;
            while !shared.stopped() {
                n += 1;
                match play::run_match(shared.clone(), slot, n).await {
                    Ok(_) => {}
                    Err(e) => {
                        let kind = e.to_string();
                        let kind = kind.split(':').next().unwrap_or("match").to_string();
                        shared.stats.error(kind.replace(' ', "_"));
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
            }
        }));
    }
    let chaos = cli.chaos_cmd.clone().zip(cli.chaos_at);
    let mut chaos_done = chaos.is_none();
    let mut last_line = Instant::now();
    let mut sent_at_line = 0u64;
    while Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if !chaos_done
            && let Some((cmd, at)) = &chaos
            && start.elapsed() >= *at
        {
            chaos_done = true;
            *shared.chaos.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            let status = std::process::Command::new("sh").arg("-c").arg(cmd).status();
            let _ = writeln!(
                std::io::stderr(),
                "chaos at {:.1}s: `{cmd}` → {status:?}",
                start.elapsed().as_secs_f64()
            );
        }
        if cli.progress > 0 && last_line.elapsed() >= Duration::from_secs(cli.progress) {
            let st = &shared.stats;
            let sent = st.sent.load(Ordering::Relaxed);
            let a = st.action.summary();
            let _ = writeln!(
                std::io::stderr(),
                "[{:>5.1}s] matches {:>6} sockets {:>6} games {:>7} actions/s {:>7.0} p50 {:>6.1}ms p99 {:>7.1}ms errors {}",
                start.elapsed().as_secs_f64(),
                st.active.load(Ordering::Relaxed),
                st.sockets.load(Ordering::Relaxed),
                st.games.load(Ordering::Relaxed),
                (sent - sent_at_line) as f64 / last_line.elapsed().as_secs_f64(),
                a.p50_ms,
                a.p99_ms,
                st.error_total()
            );
            sent_at_line = sent;
            last_line = Instant::now();
        }
    }
    let steady = cli.duration.as_secs_f64().max(0.001);
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    shared.stop.store(true, Ordering::SeqCst);
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
    }
    let st = &shared.stats;
    let errors = st.errors.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let sockets = st.max_sockets.load(Ordering::Relaxed);
    let cpu_core_fraction = cpu.map(|c| c / elapsed);
    let pauses: Vec<f64> = {
        let mut p: Vec<f64> = st
            .chaos_pauses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|d| d.as_secs_f64() * 1000.0)
            .collect();
        p.sort_by(|a, b| a.total_cmp(b));
        p
    };
    let summary = |s: Summary| serde_json::to_value(s).unwrap_or_default();
    Ok(json!({
        "config": {
            "urls": cli.urls, "matches": cli.matches, "game": cli.game, "bot": cli.bot,
            "ramp_up_s": cli.ramp_up.as_secs_f64(), "duration_s": cli.duration.as_secs_f64(),
            "think_ms": [cli.think.0.as_millis() as u64, cli.think.1.as_millis() as u64],
            "auth": if cli.bot_token.is_some() { "telegram" } else { "guest" },
            "chaos": cli.chaos_cmd, "chaos_at_s": cli.chaos_at.map(|d| d.as_secs_f64()),
        },
        "elapsed_s": elapsed,
        "action": summary(st.action.summary()),
        "fanout": summary(st.fanout.summary()),
        "connect": summary(st.connect.summary()),
        "games": st.games.load(Ordering::Relaxed),
        "games_per_s": st.games.load(Ordering::Relaxed) as f64 / elapsed,
        "actions_scheduled": st.scheduled.load(Ordering::Relaxed),
        "actions_sent": st.sent.load(Ordering::Relaxed),
        "actions_answered": st.answered.load(Ordering::Relaxed),
        "actions_per_s": st.answered.load(Ordering::Relaxed) as f64 / elapsed,
        "actions_per_s_steady_estimate": st.answered.load(Ordering::Relaxed) as f64 / (steady + cli.ramp_up.as_secs_f64() / 2.0),
        "max_sockets": sockets,
        "reconnects": st.reconnects.load(Ordering::Relaxed),
        "errors_total": errors.values().sum::<u64>(),
        "errors": errors,
        "verified_games": st.verified.load(Ordering::Relaxed),
        "lost_or_duplicated": st.mismatches.load(Ordering::Relaxed),
        "chaos_pauses_ms": {
            "matches": pauses.len(),
            "median": pauses.get(pauses.len() / 2),
            "max": pauses.last(),
        },
        "harness": {
            "cpu_s": cpu,
            "cpu_cores_used": cpu_core_fraction,
            "sockets_per_core": cpu_core_fraction.filter(|c| *c > 0.0).map(|c| sockets as f64 / c),
            "threads": cli.threads,
        },
    }))
}

fn human(r: &serde_json::Value) -> String {
    let lat = |k: &str| {
        let v = &r[k];
        format!(
            "p50 {:.1} ms  p90 {:.1} ms  p99 {:.1} ms  p99.9 {:.1} ms  max {:.1} ms  (n={})",
            v["p50_ms"].as_f64().unwrap_or(0.0),
            v["p90_ms"].as_f64().unwrap_or(0.0),
            v["p99_ms"].as_f64().unwrap_or(0.0),
            v["p999_ms"].as_f64().unwrap_or(0.0),
            v["max_ms"].as_f64().unwrap_or(0.0),
            v["count"]
        )
    };
    let mut s = String::new();
    s += &format!(
        "tabula-load: {} matches of {} for {:.0} s\n",
        r["config"]["matches"],
        r["config"]["game"],
        r["elapsed_s"].as_f64().unwrap_or(0.0)
    );
    s += &format!("  action → answer   {}\n", lat("action"));
    s += &format!("  fan-out to peer   {}\n", lat("fanout"));
    s += &format!("  connect           {}\n", lat("connect"));
    s += &format!(
        "  games {} ({:.2}/s), actions answered {} ({:.0}/s), scheduled {}, sent {}\n",
        r["games"],
        r["games_per_s"].as_f64().unwrap_or(0.0),
        r["actions_answered"],
        r["actions_per_s"].as_f64().unwrap_or(0.0),
        r["actions_scheduled"],
        r["actions_sent"]
    );
    s += &format!(
        "  sockets (max open) {}, reconnects {}, errors {} {}\n",
        r["max_sockets"], r["reconnects"], r["errors_total"], r["errors"]
    );
    if r["verified_games"].as_u64().unwrap_or(0) > 0 {
        s += &format!(
            "  records verified {}, lost or duplicated {}\n",
            r["verified_games"], r["lost_or_duplicated"]
        );
    }
    if r["chaos_pauses_ms"]["matches"].as_u64().unwrap_or(0) > 0 {
        s += &format!(
            "  chaos: {} matches affected, pause median {:.0} ms, max {:.0} ms\n",
            r["chaos_pauses_ms"]["matches"],
            r["chaos_pauses_ms"]["median"].as_f64().unwrap_or(0.0),
            r["chaos_pauses_ms"]["max"].as_f64().unwrap_or(0.0)
        );
    }
    s += &format!(
        "  harness CPU {:.2} cores, {:.0} sockets per core",
        r["harness"]["cpu_cores_used"].as_f64().unwrap_or(0.0),
        r["harness"]["sockets_per_core"].as_f64().unwrap_or(0.0)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_think_ranges_parse() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("5 parsecs").is_err());
        assert_eq!(
            parse_think("500ms..3s").unwrap(),
            (Duration::from_millis(500), Duration::from_secs(3))
        );
        assert!(parse_think("3s..1s").is_err());
    }

    #[test]
    fn assert_thresholds_parse_and_refuse_nonsense() {
        assert_eq!(
            parse_checks("p99<100ms, errors=0,games>=3,lost=0").unwrap(),
            vec![
                Check::LatencyBelow("p99", 100.0),
                Check::ErrorsAtMost(0),
                Check::GamesAtLeast(3),
                Check::MismatchesAtMost(0)
            ]
        );
        assert!(parse_checks("p99>100ms").is_err());
        assert!(parse_checks("speed=fast").is_err());
        assert!(parse_checks("errors=many").is_err());
    }
}
