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
mod shared;
mod stats;
mod tour;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use clap::Parser;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::shared::{Config, Shared};
use crate::stats::{Latency, Stats};

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
    /// Both sockets of a match connect to the node its room was created
    /// on, as a load balancer with room affinity would send them (default:
    /// the two go to different nodes, so one of them is routed through the
    /// backplane).
    #[arg(long)]
    affinity: bool,
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
    /// Send each dice turn whole (`turn` with one of `possibleMoves`'
    /// sequences) instead of step by step (`move`), as a client with undo
    /// and "Done" does.
    #[arg(long)]
    turns: bool,
    /// Resign once a seat has made this many game actions (rolls, moves,
    /// cube answers; its `ready` not counted): short games whose cost is
    /// mostly the room's life (create, join, ready, end, archive, leave),
    /// for `measure.sh capacity`. Default: play every game to its end.
    #[arg(long)]
    resign_after: Option<u32>,
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
    /// Harness processes sharing the matches. A process holds one open
    /// file per socket, so past the open-file limit (`ulimit -n`) the run
    /// needs several; their figures are merged exactly (the histograms
    /// too) into one report.
    #[arg(long, default_value_t = 1)]
    procs: usize,
    /// Run arenas instead of matches (issue 49's load): this many, each
    /// of `--tournament-players`, registering during `--ramp-up` and
    /// played for `--duration` (`src/tour.rs`). `--matches` is ignored.
    #[arg(long, default_value_t = 0)]
    tournaments: usize,
    /// Players in each arena.
    #[arg(long, default_value_t = 100)]
    tournament_players: usize,
    /// Each arena's `rematchWaitMs`.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    rematch_wait: Duration,
    /// How often the harness reads each arena's view for new games.
    #[arg(long, default_value = "250ms", value_parser = parse_duration)]
    tournament_poll: Duration,
    /// Internal: run as worker process of a `--procs` parent, matches
    /// numbered from this slot; prints its raw part as JSON on stdout.
    #[arg(long, hide = true)]
    worker_from: Option<usize>,
    /// Internal: the parent's run tag (player names stay unique).
    #[arg(long, hide = true)]
    run_tag: Option<String>,
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

/// mimalloc, as the node uses: the harness shares the machine with the
/// nodes it measures, so its allocations are on the same budget.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    // A worker notes the chaos time without a command: its parent runs it.
    if cli.worker_from.is_none() && cli.chaos_cmd.is_some() != cli.chaos_at.is_some() {
        bail!("--chaos-cmd and --chaos-at go together");
    }
    if cli.procs == 0 {
        bail!("--procs must be at least 1");
    }
    if cli.procs > cli.matches {
        bail!(
            "--procs {} is more than --matches {}",
            cli.procs,
            cli.matches
        );
    }
    let checks = cli.assert.as_deref().map(parse_checks).transpose()?;
    if cli.tournaments > 0 && (cli.procs > 1 || cli.bot.is_some() || cli.chaos_cmd.is_some()) {
        bail!("--tournaments runs in one process, between people, without chaos");
    }
    let sockets_per_match = if cli.bot.is_some() { 1 } else { 2 };
    let matches_here = if cli.tournaments > 0 {
        (cli.tournaments * cli.tournament_players).div_ceil(2)
    } else if cli.procs > 1 {
        cli.matches.div_ceil(cli.procs)
    } else {
        cli.matches
    };
    if let Some(limit) = open_file_limit() {
        // Each socket is a file, plus a few of the process's own and the
        // room-creation requests in flight.
        let need = matches_here * sockets_per_match + 64;
        if need as u64 > limit {
            bail!(
                "{matches_here} matches in one process need about {need} open files, over this \
                 process's limit of {limit} (ulimit -n); raise it or spread the matches over \
                 more processes with --procs"
            );
        }
    }
    if cli.procs > 1 {
        let parts = run_workers(&cli)?;
        return finish(&cli, parts, checks);
    }
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
            affinity: cli.affinity,
            think: cli.think,
            action_timeout: cli.action_timeout,
            connect_timeout: cli.connect_timeout,
            bot_token: cli.bot_token.clone(),
            verify: cli.verify || cli.chaos_cmd.is_some(),
            turns: cli.turns,
            resign_after: cli.resign_after,
            run_tag: cli
                .run_tag
                .clone()
                .unwrap_or_else(|| format!("{:04x}", rand::random::<u16>())),
        },
        stats: Stats::default(),
        stop: AtomicBool::new(false),
        chaos: Mutex::new(None),
    });
    let part = rt.block_on(run(&cli, shared.clone()))?;
    if cli.worker_from.is_some() {
        // The parent reads this line.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", serde_json::to_string(&part)?);
        return Ok(true);
    }
    finish(&cli, vec![part], checks)
}

/// The open-file limit of this process (`/proc/self/limits`), if known.
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    // "Max open files            20000                20000                files"
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Runs the matches in `--procs` worker processes (this same binary) and
/// collects their parts; the chaos command runs here, once.
fn run_workers(cli: &Cli) -> anyhow::Result<Vec<Part>> {
    let exe = std::env::current_exe().context("finding this executable")?;
    let tag = format!("{:04x}", rand::random::<u16>());
    let ms = |d: Duration| format!("{}ms", d.as_secs_f64() * 1000.0);
    let mut children = Vec::new();
    let mut from = 0;
    for k in 0..cli.procs {
        let matches = cli.matches / cli.procs + usize::from(k < cli.matches % cli.procs);
        let mut args: Vec<String> = Vec::new();
        for u in &cli.urls {
            args.extend(["--url".into(), u.clone()]);
        }
        args.extend([
            "--matches".into(),
            matches.to_string(),
            "--game".into(),
            cli.game.clone(),
            "--ramp-up".into(),
            ms(cli.ramp_up),
            "--duration".into(),
            ms(cli.duration),
            "--think".into(),
            format!("{}..{}", ms(cli.think.0), ms(cli.think.1)),
            "--action-timeout".into(),
            ms(cli.action_timeout),
            "--connect-timeout".into(),
            ms(cli.connect_timeout),
            "--progress".into(),
            cli.progress.to_string(),
            "--worker-from".into(),
            from.to_string(),
            "--run-tag".into(),
            tag.clone(),
        ]);
        if let Some(b) = cli.bot {
            args.extend(["--bot".into(), b.to_string()]);
        }
        if let Some(t) = &cli.bot_token {
            args.extend(["--bot-token".into(), t.clone()]);
        }
        if let Some(at) = cli.chaos_at {
            // The workers only note the time; the command runs here.
            args.extend(["--chaos-at".into(), ms(at)]);
        }
        if cli.verify || cli.chaos_cmd.is_some() {
            args.push("--verify".into());
        }
        if cli.turns {
            args.push("--turns".into());
        }
        if cli.affinity {
            args.push("--affinity".into());
        }
        if let Some(t) = cli.threads {
            args.extend(["--threads".into(), t.to_string()]);
        }
        let child = std::process::Command::new(&exe)
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting worker {k}"))?;
        children.push(child);
        from += matches;
    }
    if let (Some(cmd), Some(at)) = (&cli.chaos_cmd, cli.chaos_at) {
        std::thread::sleep(at);
        let status = std::process::Command::new("sh").arg("-c").arg(cmd).status();
        let _ = writeln!(
            std::io::stderr(),
            "chaos at {:.1}s: `{cmd}` → {status:?}",
            at.as_secs_f64()
        );
    }
    let mut parts = Vec::new();
    for (k, child) in children.into_iter().enumerate() {
        let out = child
            .wait_with_output()
            .with_context(|| format!("waiting for worker {k}"))?;
        if !out.status.success() {
            bail!("worker {k} failed ({})", out.status);
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().last().unwrap_or_default();
        parts.push(
            serde_json::from_str(line).with_context(|| format!("reading worker {k}'s figures"))?,
        );
    }
    Ok(parts)
}

/// Merges the parts into the report, writes it, prints the summary and
/// checks the thresholds.
fn finish(cli: &Cli, parts: Vec<Part>, checks: Option<Vec<Check>>) -> anyhow::Result<bool> {
    let report = report(cli, &parts);
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

/// What one harness process measured, raw (mergeable).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Part {
    elapsed_s: f64,
    cpu_s: Option<f64>,
    action: Vec<(u64, u64)>,
    fanout: Vec<(u64, u64)>,
    #[serde(default)]
    pairing_wait: Vec<(u64, u64)>,
    connect: Vec<(u64, u64)>,
    games: u64,
    scheduled: u64,
    sent: u64,
    answered: u64,
    max_sockets: i64,
    reconnects: u64,
    errors: BTreeMap<String, u64>,
    verified: u64,
    mismatches: u64,
    pauses_ms: Vec<f64>,
}

async fn run(cli: &Cli, shared: Arc<Shared>) -> anyhow::Result<Part> {
    let start = Instant::now();
    let cpu0 = cpu_seconds();
    let end = start + cli.ramp_up + cli.duration;
    let mut tasks = Vec::new();
    let base = cli.worker_from.unwrap_or(0);
    for k in 0..cli.tournaments {
        let arena = tour::Arena {
            k,
            players: cli.tournament_players,
            start_in: cli.ramp_up,
            window: cli.duration,
            rematch_wait: cli.rematch_wait,
            poll: cli.tournament_poll,
        };
        let shared = shared.clone();
        tasks.push(tokio::spawn(async move {
            if let Err(e) = tour::run(shared.clone(), arena).await {
                let kind = e.to_string();
                let kind = kind.split(':').next().unwrap_or("tournament").to_string();
                shared.stats.error(kind.replace(' ', "_"));
            }
        }));
    }
    let matches = if cli.tournaments > 0 { 0 } else { cli.matches };
    for i in 0..matches {
        let shared = shared.clone();
        let slot = base + i;
        let delay = cli.ramp_up.mul_f64(i as f64 / matches as f64);
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
    let chaos = cli.chaos_at.map(|at| (cli.chaos_cmd.clone(), at));
    let mut chaos_done = chaos.is_none();
    let tag = match cli.worker_from {
        Some(from) => format!("matches from {from} "),
        None => String::new(),
    };
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
            if let Some(cmd) = cmd {
                let status = std::process::Command::new("sh").arg("-c").arg(cmd).status();
                let _ = writeln!(
                    std::io::stderr(),
                    "chaos at {:.1}s: `{cmd}` → {status:?}",
                    start.elapsed().as_secs_f64()
                );
            }
        }
        if cli.progress > 0 && last_line.elapsed() >= Duration::from_secs(cli.progress) {
            let st = &shared.stats;
            let sent = st.sent.load(Ordering::Relaxed);
            let a = st.action.summary();
            let _ = writeln!(
                std::io::stderr(),
                "{tag}[{:>5.1}s] matches {:>6} sockets {:>6} games {:>7} actions/s {:>7.0} p50 {:>6.1}ms p99 {:>7.1}ms errors {}",
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
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    shared.stop.store(true, Ordering::SeqCst);
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
    }
    let st = &shared.stats;
    Ok(Part {
        elapsed_s: elapsed,
        cpu_s: cpu,
        action: st.action.recorded(),
        fanout: st.fanout.recorded(),
        pairing_wait: st.pairing_wait.recorded(),
        connect: st.connect.recorded(),
        games: st.games.load(Ordering::Relaxed),
        scheduled: st.scheduled.load(Ordering::Relaxed),
        sent: st.sent.load(Ordering::Relaxed),
        answered: st.answered.load(Ordering::Relaxed),
        max_sockets: st.max_sockets.load(Ordering::Relaxed),
        reconnects: st.reconnects.load(Ordering::Relaxed),
        errors: st.errors.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        verified: st.verified.load(Ordering::Relaxed),
        mismatches: st.mismatches.load(Ordering::Relaxed),
        pauses_ms: st
            .chaos_pauses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|d| d.as_secs_f64() * 1000.0)
            .collect(),
    })
}

/// The JSON report of one or more parts.
fn report(cli: &Cli, parts: &[Part]) -> serde_json::Value {
    let merged = |f: fn(&Part) -> &[(u64, u64)]| {
        let l = Latency::default();
        for p in parts {
            l.merge(f(p));
        }
        serde_json::to_value(l.summary()).unwrap_or_default()
    };
    let sum = |f: fn(&Part) -> u64| parts.iter().map(f).sum::<u64>();
    let elapsed = parts.iter().map(|p| p.elapsed_s).fold(0.0, f64::max);
    let steady = cli.duration.as_secs_f64().max(0.001);
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    for p in parts {
        for (k, v) in &p.errors {
            *errors.entry(k.clone()).or_default() += v;
        }
    }
    // A worker's peak counts its sockets; at steady load all are open at
    // once, so the peaks add up.
    let sockets: i64 = parts.iter().map(|p| p.max_sockets).sum();
    let cpu: Option<f64> = parts.iter().map(|p| p.cpu_s).sum();
    let cpu_core_fraction = cpu.map(|c| c / elapsed.max(0.001));
    let mut pauses: Vec<f64> = parts.iter().flat_map(|p| p.pauses_ms.clone()).collect();
    pauses.sort_by(|a, b| a.total_cmp(b));
    let answered = sum(|p| p.answered);
    let games = sum(|p| p.games);
    json!({
        "config": {
            "urls": cli.urls, "matches": cli.matches, "game": cli.game, "bot": cli.bot,
            "affinity": cli.affinity,
            "ramp_up_s": cli.ramp_up.as_secs_f64(), "duration_s": cli.duration.as_secs_f64(),
            "think_ms": [cli.think.0.as_millis() as u64, cli.think.1.as_millis() as u64],
            "auth": if cli.bot_token.is_some() { "telegram" } else { "guest" },
            "chaos": cli.chaos_cmd, "chaos_at_s": cli.chaos_at.map(|d| d.as_secs_f64()),
            "procs": cli.procs,
            "tournaments": cli.tournaments,
            "tournament_players": cli.tournament_players,
            "rematch_wait_ms": cli.rematch_wait.as_millis() as u64,
            "tournament_poll_ms": cli.tournament_poll.as_millis() as u64,
        },
        "elapsed_s": elapsed,
        "action": merged(|p| &p.action),
        "fanout": merged(|p| &p.fanout),
        "pairing_wait": merged(|p| &p.pairing_wait),
        "connect": merged(|p| &p.connect),
        "games": games,
        "games_per_s": games as f64 / elapsed.max(0.001),
        "actions_scheduled": sum(|p| p.scheduled),
        "actions_sent": sum(|p| p.sent),
        "actions_answered": answered,
        "actions_per_s": answered as f64 / elapsed.max(0.001),
        "actions_per_s_steady_estimate": answered as f64 / (steady + cli.ramp_up.as_secs_f64() / 2.0),
        "max_sockets": sockets,
        "reconnects": sum(|p| p.reconnects),
        "errors_total": errors.values().sum::<u64>(),
        "errors": errors,
        "verified_games": sum(|p| p.verified),
        "lost_or_duplicated": sum(|p| p.mismatches),
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
            "procs": cli.procs,
        },
    })
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
    let what = match r["config"]["tournaments"].as_u64() {
        Some(t) if t > 0 => format!(
            "{t} arenas of {} players",
            r["config"]["tournament_players"]
        ),
        _ => format!("{} matches", r["config"]["matches"]),
    };
    s += &format!(
        "tabula-load: {what} of {} for {:.0} s\n",
        r["config"]["game"],
        r["elapsed_s"].as_f64().unwrap_or(0.0)
    );
    s += &format!("  action → answer   {}\n", lat("action"));
    s += &format!("  fan-out to peer   {}\n", lat("fanout"));
    s += &format!("  connect           {}\n", lat("connect"));
    if r["pairing_wait"]["count"].as_u64().unwrap_or(0) > 0 {
        s += &format!("  game end → next   {}\n", lat("pairing_wait"));
    }
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
