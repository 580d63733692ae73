//! `tabula`: the command-line face of Tabula's rules engines.
//!
//! The subcommand forms below are a contract other tools drive (the load
//! harness, fixtures, people checking a position), so flags are only ever
//! added, never renamed. Each game lives in its own module with the same
//! three entry points; this file only parses arguments and reports errors as
//! one line with a non-zero exit, never a panic.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod analyse;
mod arena;
mod backgammon;
mod bearoff;
mod error_rate;
mod long;
mod record;
mod thud;

#[derive(Debug, Parser)]
#[command(
    name = "tabula",
    version,
    about = "Tabula rules engines: legal moves, self-play, perft"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the legal moves for a position (and dice, for the dice games).
    Moves(MovesArgs),
    /// Play complete random games and report throughput.
    Selfplay(SelfplayArgs),
    /// Count move-tree sizes from a position, for regression fixtures.
    Perft(PerftArgs),
    /// Play bots against each other (paired dice, seats swapped) and report strength.
    Arena(arena::ArenaArgs),
    /// Play one complete game between random players through the room core
    /// (provably fair dice) and write its game record.
    Play(record::PlayArgs),
    /// Check a game record: the seed commitment, every roll, every move.
    Verify(record::VerifyArgs),
    /// The play a bot picks in a position (backgammon: by GNU Backgammon
    /// Position ID), once or line by line from stdin, for other programs
    /// to drive (`scripts/gnubg-match`).
    Bot(BotArgs),
    /// Every legal play for a position and roll, ranked by the Hard
    /// evaluation, with an estimated win probability and equity (rollouts
    /// of the best candidates when `--rollouts` is given).
    Hint(HintArgs),
    /// Replay analysis of a finished long nardy or backgammon game record:
    /// each move marked with the equity it lost against the best play.
    Analyse(analyse::AnalyseArgs),
    /// Train the backgammon network on its own look-ahead (supervised):
    /// self-play positions labelled by its 1-ply judgement.
    FitBg(backgammon::FitArgs),
    /// Fit the backgammon network's backgammon head (its chances to win
    /// and to lose a backgammon) to rollouts from self-play positions,
    /// the rest of the network as it is; the last step of the shipped
    /// `bg.bin`.
    FitBgBackgammons(backgammon::FitBackgammonsArgs),
    /// Train the backgammon evaluation network by TD(λ) self-play and
    /// write its weights (`crates/tabula-bots/nets/bg.bin` starts so;
    /// `fit-bg` then refines it).
    TrainBg(TrainArgs),
    /// Train the long nardy evaluation network by TD(λ) self-play and
    /// write its weights (`crates/tabula-bots/nets/long.bin` is made so).
    TrainLong(TrainArgs),
    /// The exact one-sided bear-off database: write it in GNU Backgammon's
    /// format (`--out`), show a position (`--board`), or measure it in
    /// races (`--race`).
    Bearoff(bearoff::BearoffArgs),
    /// Long nardy: each level's average equity loss per move against
    /// rollouts, on a fixed set of decisions from play.
    ErrorRate(error_rate::ErrorRateArgs),
}

/// `tabula hint`.
#[derive(Debug, Args)]
pub struct HintArgs {
    /// Which game (long nardy or backgammon).
    #[arg(long, value_enum)]
    pub game: Game,
    /// The position as JSON (each game documents its own form; default:
    /// the initial position).
    #[arg(long)]
    pub position: Option<String>,
    /// Backgammon only: a GNU Backgammon Position ID.
    #[arg(long = "gnubg-id")]
    pub gnubg_id: Option<String>,
    /// The dice, e.g. `6,5`.
    #[arg(long)]
    pub dice: String,
    /// Games rolled out for each of the best candidates (0: estimates from
    /// the evaluation only).
    #[arg(long, default_value_t = 0)]
    pub rollouts: u32,
    /// Seed of the rollouts' dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Variant options as `key=value`, repeatable.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Print JSON instead of text: `{"game","dice","hints":[{"play",
    /// "score","win","equity","rollouts"}]}`, best first.
    #[arg(long)]
    pub json: bool,
}

/// `tabula bot`.
#[derive(Debug, Args)]
pub struct BotArgs {
    /// Which game (backgammon only, for now).
    #[arg(long, value_enum)]
    pub game: Game,
    /// The bot's level: easy, medium, hard (or 1, 2, 3).
    #[arg(long, default_value = "hard")]
    pub level: tabula_bots::Level,
    /// Seed of the bot's own choices (ties, Easy's randomness).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The position: a GNU Backgammon Position ID, the player on roll as in
    /// gnubg.
    #[arg(long = "gnubg-id")]
    pub gnubg_id: Option<String>,
    /// The dice, e.g. `6,5`.
    #[arg(long)]
    pub dice: Option<String>,
    /// Answer requests from stdin instead, one per line: `<Position ID>
    /// <dice>` (e.g. `4HPwATDgc/ABMA 6,5`) → one line with the play in
    /// gnubg notation (`24/18 13/8`, `bar/22`, `6/off`), empty when no play
    /// is legal, or `error: <reason>`.
    #[arg(long)]
    pub stdin: bool,
    /// The game's options as `key=value`, repeatable: `scoring=gammons`
    /// has Hard play for gammons and backgammons (a money game, as gnubg
    /// plays); short nardy's default, `scoring=single`, every game one
    /// point, has it play to win.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
}

/// The games Tabula knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Game {
    /// Long nardy (seed 000 numbering).
    #[value(name = "long-nardy", alias = "long")]
    LongNardy,
    /// Short nardy, i.e. standard backgammon.
    #[value(name = "backgammon", alias = "short-nardy")]
    Backgammon,
    /// Thud! (seed 003).
    #[value(name = "thud")]
    Thud,
}

/// `tabula train-bg` and `tabula train-long`: TD(λ) self-play training
/// of a game's network.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Self-play games to train for.
    #[arg(long, default_value_t = 100_000)]
    pub games: u64,
    /// Seed of the initial weights and of the training dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Hidden units of a new network (both shipped networks have 128).
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Learning rate.
    #[arg(long, default_value_t = 0.1)]
    pub alpha: f32,
    /// Trace decay λ.
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    /// Continue from these weights instead of random ones.
    #[arg(long)]
    pub from: Option<std::path::PathBuf>,
    /// Where to write the weights (also written at every report).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Every this many games: write the weights and measure the network's
    /// greedy play (no look-ahead) against Medium (backgammon: its win
    /// rate over 200 games; long nardy: its share of the points over 100
    /// paired-dice pairs).
    #[arg(long, default_value_t = 10_000)]
    pub report_every: u64,
}

/// `tabula moves`.
#[derive(Debug, Args)]
pub struct MovesArgs {
    /// Which game.
    #[arg(long, value_enum)]
    pub game: Game,
    /// The position as JSON (each game documents its own form).
    #[arg(long)]
    pub position: Option<String>,
    /// Backgammon only: a GNU Backgammon Position ID (player on roll as in gnubg).
    #[arg(long = "gnubg-id")]
    pub gnubg_id: Option<String>,
    /// The dice, e.g. `6,5` (long nardy and backgammon).
    #[arg(long)]
    pub dice: Option<String>,
    /// Variant options as `key=value`, repeatable (e.g. `prime_rule=opponent_home`).
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `tabula selfplay`.
#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// Which game.
    #[arg(long, value_enum)]
    pub game: Game,
    /// How many complete games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Seed for dice and move choice; the same seed replays the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Variant options as `key=value`, repeatable.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `tabula perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Which game.
    #[arg(long, value_enum)]
    pub game: Game,
    /// Depth of the move tree (plies; for dice games one ply = one roll and play).
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Start position as JSON (default: the game's initial position).
    #[arg(long)]
    pub position: Option<String>,
    /// Backgammon only: start from a GNU Backgammon Position ID.
    #[arg(long = "gnubg-id")]
    pub gnubg_id: Option<String>,
    /// Dice games: count only this roll at the first ply.
    #[arg(long)]
    pub dice: Option<String>,
    /// Variant options as `key=value`, repeatable.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Splits `key=value` options, rejecting anything else with a clear message.
pub fn parse_options(raw: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    raw.iter()
        .map(|o| match o.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => anyhow::bail!("option {o:?} is not of the form key=value"),
        })
        .collect()
}

fn run(cli: Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    match cli.command {
        Command::Moves(a) => match a.game {
            Game::LongNardy => long::moves(&a, out),
            Game::Backgammon => backgammon::moves(&a, out),
            Game::Thud => thud::moves(&a, out),
        },
        Command::Selfplay(a) => match a.game {
            Game::LongNardy => long::selfplay(&a, out),
            Game::Backgammon => backgammon::selfplay(&a, out),
            Game::Thud => thud::selfplay(&a, out),
        },
        Command::Perft(a) => match a.game {
            Game::LongNardy => long::perft(&a, out),
            Game::Backgammon => backgammon::perft(&a, out),
            Game::Thud => thud::perft(&a, out),
        },
        Command::Arena(a) => arena::run(&a, out),
        Command::Play(a) => record::play(&a, out),
        Command::Verify(a) => record::verify(&a, out),
        Command::Analyse(a) => analyse::run(&a, out),
        Command::TrainBg(a) => backgammon::train(&a, out),
        Command::FitBg(a) => backgammon::fit(&a, out),
        Command::FitBgBackgammons(a) => backgammon::fit_backgammons(&a, out),
        Command::TrainLong(a) => long::train(&a, out),
        Command::Bearoff(a) => bearoff::run(&a, out),
        Command::ErrorRate(a) => error_rate::run(&a, out),
        Command::Hint(a) => match a.game {
            Game::Backgammon => backgammon::hint(&a, out),
            Game::LongNardy => long::hint(&a, out),
            Game::Thud => anyhow::bail!("hints are for the dice games (long nardy, backgammon)"),
        },
        Command::Bot(a) => match a.game {
            Game::Backgammon => backgammon::bot(&a, out),
            Game::LongNardy | Game::Thud => {
                anyhow::bail!("tabula bot plays backgammon only (by gnubg Position ID)")
            }
        },
    }
}

/// Prints one error line: tools that drive us parse stderr.
fn fail(msg: &str) -> ExitCode {
    let msg = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    #[allow(clippy::print_stderr)]
    {
        eprintln!("tabula: error: {msg}");
    }
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version are not errors: let clap print them.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            // clap's own message spans several lines (usage, hints); keep
            // the paragraph that names the problem, plus the valid values.
            let text = e.to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                .map(str::trim)
                .collect();
            let first = first.join(" ");
            let first = first.trim_start_matches("error: ");
            let values = text
                .lines()
                .find(|l| l.trim_start().starts_with("[possible values:"))
                .filter(|l| !first.contains(l.trim()))
                .map_or("", str::trim);
            return fail(&format!("{first} {values}"));
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(cli, &mut out).and_then(|()| Ok(out.flush()?)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("{e:#}")),
    }
}

/// Prints hints as text (one line each) or JSON.
pub fn print_hints<P>(
    game: &str,
    dice: tabula_dice::Dice,
    hints: &[tabula_bots::hint::Hint<P>],
    name: impl Fn(&P) -> String,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if json {
        let list: Vec<serde_json::Value> = hints
            .iter()
            .map(|h| {
                serde_json::json!({
                    "play": name(&h.play),
                    "score": h.score,
                    "win": h.win,
                    "equity": h.equity,
                    "rollouts": h.rollouts,
                })
            })
            .collect();
        let v = serde_json::json!({
            "game": game,
            "dice": [dice.first(), dice.second()],
            "hints": list,
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    if hints.is_empty() {
        writeln!(out, "no legal play: the turn passes")?;
    }
    for (i, h) in hints.iter().enumerate() {
        let play = name(&h.play);
        let how = if h.rollouts > 0 {
            format!("{} rollouts", h.rollouts)
        } else {
            "estimate".to_string()
        };
        writeln!(
            out,
            "{:>3}. {play:<28} win {:>5.1}%  equity {:>+6.3}  score {:>8.2}  ({how})",
            i + 1,
            100.0 * h.win,
            h.equity,
            h.score
        )?;
    }
    Ok(())
}
