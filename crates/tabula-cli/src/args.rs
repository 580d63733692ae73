//! The arguments several subcommands share: the games, the forms of
//! `moves`, `selfplay`, `perft`, `hint`, `bot` and the training commands,
//! and `key=value` options.

use clap::{Args, ValueEnum};

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
