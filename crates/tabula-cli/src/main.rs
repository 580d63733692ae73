//! `tabula`: the command-line face of Tabula's rules engines.
//!
//! The subcommand forms below are a contract other tools drive (the load
//! harness, fixtures, people checking a position), so flags are only ever
//! added, never renamed. Each game lives in its own module with the same
//! three entry points; this file only parses arguments (the shared ones are
//! `args.rs`'s) and reports errors as one line with a non-zero exit, never
//! a panic.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod analyse;
mod arena;
mod args;
mod backgammon;
mod backgammon_train;
mod bearoff;
mod error_rate;
mod hints;
mod long;
mod record;
mod thud;

use args::{BotArgs, Game, HintArgs, MovesArgs, PerftArgs, SelfplayArgs, TrainArgs};

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
    FitBg(backgammon_train::FitArgs),
    /// Fit the backgammon network's backgammon head (its chances to win
    /// and to lose a backgammon) to rollouts from self-play positions,
    /// the rest of the network as it is; the last step of the shipped
    /// `bg.bin`.
    FitBgBackgammons(backgammon_train::FitBackgammonsArgs),
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
        Command::TrainBg(a) => backgammon_train::train(&a, out),
        Command::FitBg(a) => backgammon_train::fit(&a, out),
        Command::FitBgBackgammons(a) => backgammon_train::fit_backgammons(&a, out),
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
