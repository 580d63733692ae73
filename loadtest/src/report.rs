//! What a run measured: each process's raw [`Part`], the merged JSON
//! report, its summary for a person, and the `--assert` thresholds.

use std::collections::BTreeMap;
use std::io::Write as _;

use anyhow::{Context as _, anyhow, bail};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::cli::{Cli, parse_duration};
use crate::stats::Latency;

/// A threshold of `--assert`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Check {
    LatencyBelow(&'static str, f64),
    ErrorsAtMost(u64),
    GamesAtLeast(u64),
    MismatchesAtMost(u64),
}

pub(crate) fn parse_checks(s: &str) -> anyhow::Result<Vec<Check>> {
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

/// Merges the parts into the report, writes it, prints the summary and
/// checks the thresholds.
pub(crate) fn finish(
    cli: &Cli,
    parts: Vec<Part>,
    checks: Option<Vec<Check>>,
) -> anyhow::Result<bool> {
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
pub(crate) struct Part {
    pub(crate) elapsed_s: f64,
    pub(crate) cpu_s: Option<f64>,
    pub(crate) action: Vec<(u64, u64)>,
    pub(crate) fanout: Vec<(u64, u64)>,
    #[serde(default)]
    pub(crate) pairing_wait: Vec<(u64, u64)>,
    pub(crate) connect: Vec<(u64, u64)>,
    pub(crate) games: u64,
    pub(crate) scheduled: u64,
    pub(crate) sent: u64,
    pub(crate) answered: u64,
    pub(crate) max_sockets: i64,
    pub(crate) reconnects: u64,
    pub(crate) errors: BTreeMap<String, u64>,
    pub(crate) verified: u64,
    pub(crate) mismatches: u64,
    pub(crate) pauses_ms: Vec<f64>,
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
