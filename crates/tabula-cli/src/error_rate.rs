//! `tabula error-rate`: long nardy's error rate per level, each level's
//! average equity loss per move against rollouts on a fixed set of
//! decisions from play (`tabula_bots::error_rate` has the method).
//!
//! The decisions are the seeded set (`--decisions N --seed S`) or a file of
//! them (`--positions FILE`, one JSON object a line: `{"position": <the
//! long nardy JSON form>, "dice": [a, b]}`, as `--write-positions` writes
//! it). `--skip` / `--limit` judge a slice of the set, and `--out` writes
//! each judged decision as a JSON line, so a long run can be split and its
//! parts summed again with `--judged FILE` (repeatable; nothing is rolled
//! out then).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tabula_bots::error_rate::{self, Decision, Judged, Player, RolloutSettings, Summary};
use tabula_dice::Dice;
use tabula_long::{Position, Setup, Variant};

/// `tabula error-rate`.
#[derive(Debug, Args)]
pub struct ErrorRateArgs {
    /// How many decisions the seeded set has (ignored with `--positions`).
    #[arg(long, default_value_t = 500)]
    pub decisions: usize,
    /// Seed of the decision set, the players' picks and the rollouts' dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Read the decisions from this file instead (JSON lines).
    #[arg(long)]
    pub positions: Option<PathBuf>,
    /// Write the decisions to this file (JSON lines) and stop.
    #[arg(long)]
    pub write_positions: Option<PathBuf>,
    /// Judge from this decision of the set on.
    #[arg(long, default_value_t = 0)]
    pub skip: usize,
    /// Judge at most this many decisions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Rollout trials per candidate play (1296: every pair of the first two
    /// rolls once).
    #[arg(long, default_value_t = 1296)]
    pub trials: u32,
    /// Score a trial by the network after this many plies (0: play it to
    /// the end, or to a bear-off the database values exactly).
    #[arg(long, default_value_t = 0)]
    pub truncate: u32,
    /// Worker threads (the results are the same for any number).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Write every judged decision here, one JSON object a line.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Sum already judged decisions from these `--out` files instead of
    /// rolling out (repeatable).
    #[arg(long)]
    pub judged: Vec<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One line of a positions file.
#[derive(Debug, Serialize, Deserialize)]
struct DecisionLine {
    position: Setup,
    dice: [u8; 2],
}

/// One judged candidate of an `--out` line.
#[derive(Debug, Serialize, Deserialize)]
struct CandidateLine {
    play: String,
    equity: f64,
    std_err: f64,
    win: f64,
    picked_by: Vec<String>,
    hard_rank: Option<usize>,
}

/// One line of an `--out` file.
#[derive(Debug, Serialize, Deserialize)]
struct JudgedLine {
    index: usize,
    position: Setup,
    dice: [u8; 2],
    candidates: Vec<CandidateLine>,
    /// Each player's loss, by name.
    losses: BTreeMap<String, f64>,
}

fn read_positions(path: &PathBuf) -> anyhow::Result<Vec<Decision>> {
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let d: DecisionLine = serde_json::from_str(&line)
            .with_context(|| format!("{}:{}: not a decision", path.display(), n + 1))?;
        let position = Position::from_setup(&d.position, Variant::default())
            .with_context(|| format!("{}:{}: illegal position", path.display(), n + 1))?;
        let dice = Dice::try_from(d.dice)
            .map_err(|e| anyhow::anyhow!("{}:{}: bad dice: {e}", path.display(), n + 1))?;
        anyhow::ensure!(
            !position.is_game_over(),
            "{}:{}: the game is over",
            path.display(),
            n + 1
        );
        out.push(Decision { position, dice });
    }
    Ok(out)
}

fn judged_line(index: usize, j: &Judged) -> JudgedLine {
    let pos = &j.decision.position;
    let candidates = j
        .candidates
        .iter()
        .map(|(c, e)| CandidateLine {
            play: tabula_bots::long::sequence_to(pos, j.decision.dice, &c.after)
                .map(|s| tabula_bots::hint::long_notation(&s))
                .unwrap_or_default(),
            equity: e.equity,
            std_err: e.std_err,
            win: e.win,
            picked_by: c.picked_by.iter().map(|p| p.name().to_string()).collect(),
            hard_rank: c.hard_rank,
        })
        .collect();
    let losses = Player::ALL
        .into_iter()
        .filter_map(|p| j.loss(p).map(|l| (p.name().to_string(), l)))
        .collect();
    JudgedLine {
        index,
        position: pos.to_setup(),
        dice: j.decision.dice.into(),
        candidates,
        losses,
    }
}

fn read_judged(paths: &[PathBuf]) -> anyhow::Result<Vec<JudgedLine>> {
    let mut out = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            out.push(
                serde_json::from_str(line).with_context(|| {
                    format!("{}:{}: not a judged decision", path.display(), n + 1)
                })?,
            );
        }
    }
    out.sort_by_key(|l: &JudgedLine| l.index);
    out.dedup_by_key(|l| l.index);
    Ok(out)
}

fn report(
    lines: &[JudgedLine],
    args: &ErrorRateArgs,
    seconds: Option<f64>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let summaries: Vec<(Player, Summary)> = Player::ALL
        .into_iter()
        .map(|p| {
            let losses: Vec<f64> = lines
                .iter()
                .filter_map(|l| l.losses.get(p.name()).copied())
                .collect();
            (p, Summary::of(&losses))
        })
        .collect();
    let candidates: usize = lines.iter().map(|l| l.candidates.len()).sum();
    if args.json {
        let players: serde_json::Map<String, serde_json::Value> = summaries
            .iter()
            .map(|(p, s)| {
                (
                    p.name().to_string(),
                    json!({
                        "decisions": s.decisions,
                        "mean_loss": s.mean_loss,
                        "error_rate_millipoints": 1000.0 * s.mean_loss,
                        "best": s.best,
                        "errors": s.errors,
                        "blunders": s.blunders,
                    }),
                )
            })
            .collect();
        writeln!(
            out,
            "{}",
            json!({
                "game": "long-nardy",
                "decisions": lines.len(),
                "candidates": candidates,
                "trials": args.trials,
                "truncate": args.truncate,
                "seed": args.seed,
                "seconds": seconds,
                "players": players,
            })
        )?;
    } else {
        writeln!(
            out,
            "{} decisions, {} candidate plays rolled out ({} trials{}){}",
            lines.len(),
            candidates,
            args.trials,
            if args.truncate > 0 {
                format!(", truncated at {} plies", args.truncate)
            } else {
                String::new()
            },
            seconds.map(|s| format!(", {s:.0} s")).unwrap_or_default()
        )?;
        for (p, s) in &summaries {
            writeln!(
                out,
                "{:<13} loss {:.4} points a move ({:.1} millipoints); best {}/{}; errors ≥0.08: {}; blunders ≥0.16: {}",
                p.name(),
                s.mean_loss,
                1000.0 * s.mean_loss,
                s.best,
                s.decisions,
                s.errors,
                s.blunders
            )?;
        }
    }
    Ok(())
}

pub fn run(args: &ErrorRateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if !args.judged.is_empty() {
        let lines = read_judged(&args.judged)?;
        return report(&lines, args, None, out);
    }
    anyhow::ensure!(args.trials > 0, "--trials must be at least 1");
    anyhow::ensure!(
        (1..=256).contains(&args.threads),
        "--threads must be 1..=256"
    );
    let decisions = match &args.positions {
        Some(path) => read_positions(path)?,
        None => {
            anyhow::ensure!(
                (1..=100_000).contains(&args.decisions),
                "--decisions must be 1..=100000"
            );
            error_rate::sample_decisions(args.decisions, args.seed)
        }
    };
    if let Some(path) = &args.write_positions {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?,
        );
        for d in &decisions {
            let line = DecisionLine {
                position: d.position.to_setup(),
                dice: d.dice.into(),
            };
            writeln!(f, "{}", serde_json::to_string(&line)?)?;
        }
        f.flush()?;
        writeln!(
            out,
            "{} decisions written to {}",
            decisions.len(),
            path.display()
        )?;
        return Ok(());
    }
    let end = args
        .limit
        .map_or(decisions.len(), |l| (args.skip + l).min(decisions.len()));
    let slice: Vec<(usize, Decision)> = decisions
        .iter()
        .copied()
        .enumerate()
        .take(end)
        .skip(args.skip)
        .collect();
    let settings = RolloutSettings {
        trials: args.trials,
        truncate: args.truncate,
        seed: args.seed,
    };
    let started = std::time::Instant::now();
    let n = args.threads;
    let parts: Vec<Vec<(usize, Judged)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let slice = &slice;
                scope.spawn(move || {
                    slice
                        .iter()
                        .skip(t)
                        .step_by(n)
                        .map(|&(i, d)| (i, error_rate::judge(&d, i as u64, &settings)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut judged: Vec<(usize, Judged)> = parts.into_iter().flatten().collect();
    anyhow::ensure!(
        judged.len() == slice.len(),
        "a worker thread failed ({} of {} decisions judged)",
        judged.len(),
        slice.len()
    );
    judged.sort_by_key(|(i, _)| *i);
    let seconds = started.elapsed().as_secs_f64();
    let lines: Vec<JudgedLine> = judged.iter().map(|(i, j)| judged_line(*i, j)).collect();
    if let Some(path) = &args.out {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?,
        );
        for l in &lines {
            writeln!(f, "{}", serde_json::to_string(l)?)?;
        }
        f.flush()?;
    }
    report(&lines, args, Some(seconds), out)
}
