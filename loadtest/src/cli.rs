//! The harness's command line.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

/// Command line.
#[derive(Debug, Parser)]
#[command(
    name = "tabula-load",
    version,
    about = "Load-test harness for Tabula nodes"
)]
pub(crate) struct Cli {
    /// A node `host:port` (repeat for several nodes; sockets are spread
    /// over them round-robin, the two of a match on different nodes).
    #[arg(long = "url", required = true)]
    pub(crate) urls: Vec<String>,
    /// Concurrent matches kept running.
    #[arg(long, default_value_t = 100)]
    pub(crate) matches: usize,
    /// `long_nardy`, `backgammon` or `thud`.
    #[arg(long, default_value = "long_nardy")]
    pub(crate) game: String,
    /// Both sockets of a match connect to the node its room was created
    /// on, as a load balancer with room affinity would send them (default:
    /// the two go to different nodes, so one of them is routed through the
    /// backplane).
    #[arg(long)]
    pub(crate) affinity: bool,
    /// One socket per match against a bot of this level (1..3) instead of
    /// two sockets.
    #[arg(long)]
    pub(crate) bot: Option<u8>,
    /// Time to start all matches (evenly spread).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub(crate) ramp_up: Duration,
    /// Steady time after the ramp-up.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub(crate) duration: Duration,
    /// Think time before each action: `500ms..3s` (uniform) or `0`.
    #[arg(long, default_value = "500ms..3s", value_parser = parse_think)]
    pub(crate) think: (Duration, Duration),
    /// An action unanswered this long counts as a timeout (the socket is
    /// then replaced and the action resent with its seq).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub(crate) action_timeout: Duration,
    /// Connect (and `welcome`) timeout.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub(crate) connect_timeout: Duration,
    /// Authenticate with Telegram `initData` signed with this (test) bot
    /// token, as the node must be configured; default: guest mode.
    #[arg(long)]
    pub(crate) bot_token: Option<String>,
    /// Run `sh -c CMD` at `--chaos-at` (e.g. `kill -9 1234`).
    #[arg(long)]
    pub(crate) chaos_cmd: Option<String>,
    /// When to run the chaos command, from the start.
    #[arg(long, value_parser = parse_duration)]
    pub(crate) chaos_at: Option<Duration>,
    /// Check each finished game's stored record against the moves its
    /// players saw acknowledged (on by default with chaos).
    #[arg(long)]
    pub(crate) verify: bool,
    /// Send each dice turn whole (`turn` with one of `possibleMoves`'
    /// sequences) instead of step by step (`move`), as a client with undo
    /// and "Done" does.
    #[arg(long)]
    pub(crate) turns: bool,
    /// Resign once a seat has made this many game actions (rolls, moves,
    /// cube answers; its `ready` not counted): short games whose cost is
    /// mostly the room's life (create, join, ready, end, archive, leave),
    /// for `measure.sh capacity`. Default: play every game to its end.
    #[arg(long)]
    pub(crate) resign_after: Option<u32>,
    /// Write the JSON report here.
    #[arg(long)]
    pub(crate) report: Option<PathBuf>,
    /// Thresholds, e.g. `p99<100ms,errors=0,games>=10`; exit 1 when missed.
    #[arg(long)]
    pub(crate) assert: Option<String>,
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, default_value_t = 5)]
    pub(crate) progress: u64,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Harness processes sharing the matches. A process holds one open
    /// file per socket, so past the open-file limit (`ulimit -n`) the run
    /// needs several; their figures are merged exactly (the histograms
    /// too) into one report.
    #[arg(long, default_value_t = 1)]
    pub(crate) procs: usize,
    /// Run arenas instead of matches (issue 49's load): this many, each
    /// of `--tournament-players`, registering during `--ramp-up` and
    /// played for `--duration` (`src/tour.rs`). `--matches` is ignored.
    #[arg(long, default_value_t = 0)]
    pub(crate) tournaments: usize,
    /// Players in each arena.
    #[arg(long, default_value_t = 100)]
    pub(crate) tournament_players: usize,
    /// Each arena's `rematchWaitMs`.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    pub(crate) rematch_wait: Duration,
    /// How often the harness reads each arena's view for new games.
    #[arg(long, default_value = "250ms", value_parser = parse_duration)]
    pub(crate) tournament_poll: Duration,
    /// Internal: run as worker process of a `--procs` parent, matches
    /// numbered from this slot; prints its raw part as JSON on stdout.
    #[arg(long, hide = true)]
    pub(crate) worker_from: Option<usize>,
    /// Internal: the parent's run tag (player names stay unique).
    #[arg(long, hide = true)]
    pub(crate) run_tag: Option<String>,
}

pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
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
}
