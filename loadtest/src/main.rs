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

mod cli;
mod play;
mod report;
mod shared;
mod stats;
mod tour;

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use clap::Parser;

use crate::cli::Cli;
use crate::report::{Part, finish, parse_checks};
use crate::shared::{Config, Shared};
use crate::stats::Stats;

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
