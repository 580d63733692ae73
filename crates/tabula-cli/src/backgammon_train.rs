//! Short nardy's training subcommands: `train-bg` (TD(λ) self-play),
//! `fit-bg` (supervised fitting to rollout or search labels) and
//! `fit-bg-backgammons` (the gammon and backgammon heads).

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, bail};
use serde_json::json;
use tabula_backgammon::{Position, Side};
use tabula_dice::SeededDice;

use crate::args::TrainArgs;

/// Win rate of the network's greedy play against Medium over `games`
/// games (dice seeded by `seed`, seats alternating).
fn net_vs_medium(net: &tabula_bots::bg::net::Net, games: u64, seed: u64) -> f64 {
    use rand::SeedableRng;
    let mut wins = 0u64;
    let mut buf = Vec::new();
    for g in 0..games {
        let mut dice = SeededDice::new(seed.wrapping_mul(1_000_003).wrapping_add(g / 2));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(g);
        let net_side = if g % 2 == 0 { Side::White } else { Side::Black };
        let mut pos = Position::initial();
        let mut first = true;
        let winner = loop {
            let d = loop {
                let d = tabula_dice::DiceSource::roll(&mut dice);
                if !(first && d.is_double()) {
                    break d;
                }
            };
            first = false;
            pos.legal_positions_into(d, &mut buf);
            let after = if buf.is_empty() {
                pos
            } else if pos.turn() == net_side {
                buf[tabula_bots::bg::search::best_static(
                    net,
                    &buf,
                    tabula_backgammon::Scoring::Gammons,
                )
                .unwrap_or(0)]
            } else {
                buf[tabula_bots::bg::pick(tabula_bots::Level::Medium, &mut rng, &buf)]
            };
            if let Some(o) = after.outcome(tabula_backgammon::Scoring::Gammons) {
                break o.winner;
            }
            pos = after.pass_turn();
        };
        wins += u64::from(winner == net_side);
    }
    wins as f64 / games as f64
}

pub fn train(a: &TrainArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    use tabula_bots::bg::net::Net;
    use tabula_training::bg_td::{TrainConfig, Trainer};
    if a.hidden == 0 || a.hidden > 1024 {
        bail!("--hidden must be 1..=1024");
    }
    let net = match &a.from {
        Some(p) => {
            Net::from_bytes(&std::fs::read(p).with_context(|| format!("reading {}", p.display()))?)
                .with_context(|| format!("{} is not a network", p.display()))?
        }
        None => Net::random(a.hidden, a.seed),
    };
    let config = TrainConfig {
        alpha: a.alpha,
        lambda: a.lambda,
    };
    let mut t = Trainer::new(net, config, a.seed);
    let start = Instant::now();
    let every = a.report_every.max(1);
    while t.games < a.games {
        t.play_game();
        if t.games.is_multiple_of(every) || t.games == a.games {
            std::fs::write(&a.out, t.net.to_bytes())
                .with_context(|| format!("writing {}", a.out.display()))?;
            let rate = net_vs_medium(&t.net, 200, 99);
            writeln!(
                out,
                "{}",
                json!({
                    "games": t.games,
                    "secs": (start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
                    "greedy_vs_medium": rate,
                })
            )?;
            out.flush()?;
        }
    }
    Ok(())
}

/// What `tabula fit-bg` and `tabula fit-bg-backgammons` share: the
/// network they start from, the self-play positions they sample, the
/// held-out share, the seed, the threads and where the weights go.
#[derive(Debug, clap::Args)]
pub struct FitCommon {
    /// The network to start from, to sample and to label with (default:
    /// the shipped one).
    #[arg(long)]
    pub from: Option<std::path::PathBuf>,
    /// Self-play positions to sample.
    #[arg(long, default_value_t = 200_000)]
    pub positions: usize,
    /// The share of moves played at random while sampling.
    #[arg(long, default_value_t = 0.05)]
    pub explore: f64,
    /// The share of positions (the last games') held out to measure the
    /// error on.
    #[arg(long, default_value_t = 0.05)]
    pub holdout: f64,
    /// Seed of the sampled games, of any rollouts' dice and of the
    /// training order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads for the labels (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where to write the weights (also after every epoch).
    #[arg(long)]
    pub out: std::path::PathBuf,
}

/// `tabula fit-bg-backgammons`: fits the backgammon network's backgammon
/// head (`tabula_bots::tabula_training::bg_head::fit_backgammons`) to rollouts from
/// self-play positions, the network's hidden layer kept; only positions
/// where a backgammon is in sight (its winner bearing off) are rolled out
/// and teach. The same arguments give the same weights, whatever
/// `--threads`.
#[derive(Debug, clap::Args)]
pub struct FitBackgammonsArgs {
    #[command(flatten)]
    pub common: FitCommon,
    /// Rollouts per position (each played out by the network's greedy
    /// play, a side in a backgammon's way running its back checkers
    /// first, until a backgammon can no longer happen).
    #[arg(long, default_value_t = 8)]
    pub rollouts: usize,
    /// Passes over the positions.
    #[arg(long, default_value_t = 20)]
    pub epochs: u32,
    /// The first epoch's learning rate (down to a tenth in the last).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f32,
}

pub fn fit_backgammons(a: &FitBackgammonsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    use tabula_training::bg_fit::FitConfig;
    if a.rollouts == 0 || a.rollouts > 10_000 {
        bail!("--rollouts must be 1..=10000");
    }
    let c = &a.common;
    let FitSetup { net, threads } = FitSetup::checked(c, a.alpha, a.epochs)?;
    let start = Instant::now();
    let positions = tabula_bots::bg::search::sample(&net, c.positions, c.explore, c.seed);
    writeln!(
        out,
        "{}",
        json!({"stage": "sampled", "positions": positions.len(), "secs": secs(&start)})
    )?;
    out.flush()?;
    let labels =
        tabula_training::bg_head::label_backgammons(&net, &positions, a.rollouts, c.seed, threads);
    let (wins, losses) = labels.iter().fold((0.0f64, 0.0f64), |(w, l), t| {
        (w + f64::from(t[0]), l + f64::from(t[1]))
    });
    writeln!(
        out,
        "{}",
        json!({"stage": "rolled out", "rollouts": a.rollouts, "threads": threads,
               "mean_win_backgammon": wins / labels.len() as f64,
               "mean_lose_backgammon": losses / labels.len() as f64, "secs": secs(&start)})
    )?;
    out.flush()?;
    let data: Vec<_> = positions.into_iter().zip(labels).collect();
    let mut trained = net;
    let config = FitConfig {
        epochs: a.epochs,
        alpha: a.alpha,
        holdout: c.holdout,
        seed: c.seed,
    };
    fit_reporting(&c.out, out, &start, |report| {
        tabula_training::bg_head::fit_backgammons(&mut trained, &data, config, report);
    })
}

/// `tabula fit-bg`: supervised training of the backgammon network on its
/// own 1-ply (or 2-ply) judgement (`tabula_training::bg_fit`). The same arguments give the
/// same weights, whatever `--threads`.
#[derive(Debug, clap::Args)]
pub struct FitArgs {
    #[command(flatten)]
    pub common: FitCommon,
    /// Passes over the positions.
    #[arg(long, default_value_t = 4)]
    pub epochs: u32,
    /// The first epoch's learning rate (down to a tenth in the last).
    #[arg(long, default_value_t = 0.02)]
    pub alpha: f32,
    /// How many rolls ahead the labels look: 1 (the opponent's best reply
    /// to each roll) or 2 (then the mover's best answer to each of its
    /// rolls, as Hard judges its closest plays; about 21 times the work).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub label_plies: u8,
    /// Label the positions `--rollout-where` picks by this many truncated
    /// rollouts instead (the network's greedy play for both sides, the
    /// first roll through all 36; a multiple of 36); 0: none.
    #[arg(long, default_value_t = 0)]
    pub rollout_games: usize,
    /// Which positions `--rollout-games` labels.
    #[arg(long, value_enum, default_value_t = RolloutWhere::Back)]
    pub rollout_where: RolloutWhere,
    /// How many moves each of those rollouts plays before the network
    /// judges where it stands.
    #[arg(long, default_value_t = 10)]
    pub rollout_plies: usize,
    /// A file of labelled positions: read from it when it exists (no
    /// sampling or labelling), else written there once labelled.
    #[arg(long)]
    pub data: Option<std::path::PathBuf>,
}

/// The positions `fit-bg --rollout-games` labels by rollouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RolloutWhere {
    /// A side has three or more checkers back (on the bar or in the other
    /// side's home board): `tabula_training::bg_fit::deep_back`.
    Back,
    /// Every position with contact (all but races).
    Contact,
}

impl RolloutWhere {
    fn picks(self, p: &tabula_backgammon::Position) -> bool {
        match self {
            RolloutWhere::Back => tabula_training::bg_fit::deep_back(p),
            RolloutWhere::Contact => !p.is_race(),
        }
    }

    /// Its name on the command line.
    fn name(self) -> &'static str {
        match self {
            RolloutWhere::Back => "back",
            RolloutWhere::Contact => "contact",
        }
    }
}

pub fn fit(a: &FitArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    use tabula_training::bg_fit::{self, FitConfig};
    let c = &a.common;
    let FitSetup { net, threads } = FitSetup::checked(c, a.alpha, a.epochs)?;
    if a.rollout_games > 36 * 100 || a.rollout_plies > 600 {
        bail!("--rollout-games must be at most 3600 and --rollout-plies at most 600");
    }
    let start = Instant::now();
    let data = match &a.data {
        Some(p) if p.exists() => {
            let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            let data = bg_fit::read_data(&bytes)
                .with_context(|| format!("{} is not a file of labelled positions", p.display()))?;
            writeln!(
                out,
                "{}",
                json!({"stage": "read", "positions": data.len(), "secs": secs(&start)})
            )?;
            data
        }
        _ => {
            let positions = tabula_bots::bg::search::sample(&net, c.positions, c.explore, c.seed);
            writeln!(
                out,
                "{}",
                json!({"stage": "sampled", "positions": positions.len(), "secs": secs(&start)})
            )?;
            out.flush()?;
            let depth = if a.label_plies == 2 {
                bg_fit::Depth::TwoPly
            } else {
                bg_fit::Depth::OnePly
            };
            let labels = bg_fit::label(&net, &positions, depth, threads);
            writeln!(
                out,
                "{}",
                json!({"stage": "labelled", "plies": a.label_plies, "threads": threads, "secs": secs(&start)})
            )?;
            out.flush()?;
            let mut data: Vec<_> = positions.into_iter().zip(labels).collect();
            if a.rollout_games > 0 {
                let n = bg_fit::label_rollouts(
                    &net,
                    &mut data,
                    |p| a.rollout_where.picks(p),
                    a.rollout_games,
                    a.rollout_plies,
                    c.seed,
                    threads,
                );
                writeln!(
                    out,
                    "{}",
                    json!({"stage": "rolled out", "positions": n, "games": a.rollout_games,
                           "where": a.rollout_where.name(),
                           "plies": a.rollout_plies, "secs": secs(&start)})
                )?;
                out.flush()?;
            }
            if let Some(p) = &a.data {
                std::fs::write(p, bg_fit::write_data(&data))
                    .with_context(|| format!("writing {}", p.display()))?;
            }
            data
        }
    };
    let mut trained = net;
    let config = FitConfig {
        epochs: a.epochs,
        alpha: a.alpha,
        holdout: c.holdout,
        seed: c.seed,
    };
    fit_reporting(&c.out, out, &start, |report| {
        bg_fit::fit(&mut trained, &data, config, report);
    })
}

/// Seconds since `start`, to a tenth (the fitting commands' progress lines).
fn secs(start: &Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 10.0).round() / 10.0
}

/// What `fit-bg` and `fit-bg-backgammons` start from, their shared
/// settings checked.
struct FitSetup {
    /// `--from`, else the shipped network.
    net: tabula_bots::bg::net::Net,
    /// `--threads`, else every core (1..=256).
    threads: usize,
}

impl FitSetup {
    /// Checks the shared settings and the command's `alpha` and `epochs`,
    /// then reads the network and settles the threads.
    fn checked(c: &FitCommon, alpha: f32, epochs: u32) -> anyhow::Result<FitSetup> {
        use tabula_bots::bg::net::Net;
        if c.positions == 0 || c.positions > 50_000_000 {
            bail!("--positions must be 1..=50000000");
        }
        if !(0.0..=1.0).contains(&c.explore) || !(0.0..1.0).contains(&c.holdout) {
            bail!("--explore must be in [0, 1] and --holdout in [0, 1)");
        }
        if !(alpha > 0.0 && alpha <= 1.0) {
            bail!("--alpha must be in (0, 1]");
        }
        if epochs == 0 {
            bail!("--epochs must be at least 1");
        }
        let net = match &c.from {
            Some(p) => Net::from_bytes(
                &std::fs::read(p).with_context(|| format!("reading {}", p.display()))?,
            )
            .with_context(|| format!("{} is not a network", p.display()))?,
            None => Net::shipped().clone(),
        };
        let threads = c
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, 256);
        Ok(FitSetup { net, threads })
    }
}

/// Runs one of `bg_fit`'s fitters (`run` hands it the report): before
/// the first epoch and after each, the weights as they stand are written
/// to `path` and a progress line to `out`. The first failure to write
/// stops the writing and is the answer.
fn fit_reporting(
    path: &std::path::Path,
    out: &mut dyn Write,
    start: &Instant,
    run: impl FnOnce(&mut dyn FnMut(u32, f64, &tabula_bots::bg::net::Net)),
) -> anyhow::Result<()> {
    let mut failed = None;
    run(&mut |epoch, err, net| {
        if failed.is_some() {
            return;
        }
        let r = std::fs::write(path, net.to_bytes())
            .with_context(|| format!("writing {}", path.display()))
            .and_then(|()| {
                let line = json!({"stage": "epoch", "epoch": epoch, "held_out_mse": err, "secs": secs(start)});
                writeln!(out, "{line}")?;
                out.flush()?;
                Ok(())
            });
        if let Err(e) = r {
            failed = Some(e);
        }
    });
    failed.map_or(Ok(()), Err)
}
