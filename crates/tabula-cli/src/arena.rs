//! `tabula arena`: bots against bots, with paired dice and swapped seats.
//!
//! Games come in pairs: both games of a pair use the same dice stream (a
//! ChaCha8 seeded from `--seed` and the pair number), with `a` in the first
//! seat (white / the dwarfs in round 1) in the first game and `b` there in
//! the second, so luck cancels out within a pair. The win counts and
//! points are deterministic for a seed; only the decision times (measured
//! here, outside the pure bots crate) vary between runs. The 95% interval
//! of `a`'s win rate (draws count half) is a percentile bootstrap over the
//! pairs, 2,000 resamples.
//!
//! Long nardy uses the variant's own scoring (default oin 1 / mars 2 / koks
//! 3); backgammon scores 1 / 2 / 3 for single / gammon / backgammon unless
//! `-o scoring=single`; Thud plays two-round games scored on total
//! material, with `max_plies_without_capture=100` unless set, and a round
//! still going after 2,000 plies ends by agreement.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_bots::{Bot, Level};
use tabula_dice::{DiceSource, SeededDice};

use crate::args::{Game, parse_options};

/// Plies after which a Thud round is ended by agreement.
const THUD_ROUND_CAP: u32 = 2000;
/// Default Thud limit of plies without a capture.
const THUD_PLIES_WITHOUT_CAPTURE: u32 = 100;
/// Turns after which a dice game is abandoned (counted as a draw).
const DICE_GAME_CAP: u32 = 2000;

/// `tabula arena`.
#[derive(Debug, Args)]
pub struct ArenaArgs {
    /// Which game.
    #[arg(long, value_enum)]
    pub game: Game,
    /// Level of bot `a`: easy, medium, hard (or 1, 2, 3).
    #[arg(long)]
    pub a: Level,
    /// Level of bot `b`.
    #[arg(long)]
    pub b: Level,
    /// How many games (pairs of games with the same dice, seats swapped).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// Seed for the dice and the bots; the same seed replays the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Variant options as `key=value`, repeatable.
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Threads to play games on (each game's dice and bots depend only on
    /// the seed and the game's number, so the results are the same for
    /// any count; the decision times are not, with the cores shared).
    #[arg(long, default_value_t = 1)]
    pub threads: u64,
    /// Long nardy: bot `a` plays Hard by the hand-made evaluation, as Hard
    /// did before the trained network (to measure the network against).
    #[arg(long)]
    pub a_classic: bool,
    /// Long nardy: bot `b` plays Hard by the hand-made evaluation.
    #[arg(long)]
    pub b_classic: bool,
}

/// One game's result from `a`'s point of view.
#[derive(Debug, Clone, Copy, Default)]
struct GameResult {
    /// 1 a won, 0 b won, 0.5 draw.
    score: f64,
    a_points: u64,
    b_points: u64,
    /// Kind of win, e.g. "mars" (None for a draw).
    kind: Option<&'static str>,
    plies: u64,
}

#[derive(Debug, Default)]
struct Timer {
    ms: Vec<f64>,
}

impl Timer {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.ms.push(t.elapsed().as_secs_f64() * 1e3);
        out
    }

    fn summary(&mut self) -> TimeSummary {
        self.ms.sort_by(f64::total_cmp);
        let q = |p: f64| -> f64 {
            if self.ms.is_empty() {
                return 0.0;
            }
            let i = ((self.ms.len() as f64 - 1.0) * p).round() as usize;
            (self.ms[i] * 1000.0).round() / 1000.0
        };
        TimeSummary {
            decisions: self.ms.len() as u64,
            mean: if self.ms.is_empty() {
                0.0
            } else {
                (self.ms.iter().sum::<f64>() / self.ms.len() as f64 * 1000.0).round() / 1000.0
            },
            p50: q(0.5),
            p99: q(0.99),
            max: q(1.0),
        }
    }
}

/// Decision times in milliseconds.
#[derive(Debug, Serialize)]
struct TimeSummary {
    decisions: u64,
    mean: f64,
    p50: f64,
    p99: f64,
    max: f64,
}

#[derive(Debug, Serialize)]
struct Report {
    game: &'static str,
    a: Level,
    b: Level,
    /// Long nardy Hard by the hand-made evaluation (`--a-classic`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    a_classic: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    b_classic: bool,
    seed: u64,
    games: u64,
    a_wins: u64,
    b_wins: u64,
    draws: u64,
    a_points: u64,
    b_points: u64,
    a_win_rate: f64,
    a_win_rate_ci95: [f64; 2],
    /// a's points minus b's, per game, and its 95% interval by pair.
    a_margin_per_game: f64,
    a_margin_per_game_ci95: [f64; 2],
    a_kinds: BTreeMap<&'static str, u64>,
    b_kinds: BTreeMap<&'static str, u64>,
    mean_plies: f64,
    a_decision_ms: TimeSummary,
    b_decision_ms: TimeSummary,
}

/// A seed for pair `k`, stream `s`, mixed from the run's seed.
fn sub_seed(seed: u64, k: u64, s: u64) -> u64 {
    let mut x =
        seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ s.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

fn long_game(
    v: tabula_long::Variant,
    dice_seed: u64,
    first: (&mut Bot, &mut Timer),
    second: (&mut Bot, &mut Timer),
) -> anyhow::Result<(Option<tabula_long::Outcome>, u64)> {
    use tabula_long::{Color, Position, decide_opening};
    let mut dice = SeededDice::new(dice_seed);
    let decision = decide_opening(v.opening, &mut dice);
    let mut pos = Position::new_game(v, decision.starter);
    let mut pending = decision.first_roll;
    let (wb, wt) = first;
    let (bb, bt) = second;
    let mut plies = 0;
    while !pos.is_game_over() && plies < DICE_GAME_CAP {
        let roll = pending.take().unwrap_or_else(|| dice.roll());
        let (bot, timer) = if pos.turn() == Color::White {
            (&mut *wb, &mut *wt)
        } else {
            (&mut *bb, &mut *bt)
        };
        let steps = timer.time(|| {
            bot.choose_play(tabula_bots::Position::Long(&pos), Some(roll))
                .and_then(tabula_bots::Play::into_long)
                .unwrap_or_default()
        });
        let mut turn = pos.turn_with(roll);
        for s in &steps {
            turn.play_step(*s)
                .with_context(|| format!("{} played illegal {s} in {pos} ({roll})", bot.level()))?;
        }
        pos = turn.finish().with_context(|| {
            format!("{} left an incomplete turn in {pos} ({roll})", bot.level())
        })?;
        plies += 1;
    }
    Ok((pos.outcome(), u64::from(plies)))
}

fn bg_game(
    scoring: tabula_backgammon::Scoring,
    dice_seed: u64,
    first: (&mut Bot, &mut Timer),
    second: (&mut Bot, &mut Timer),
) -> anyhow::Result<(Option<tabula_backgammon::Outcome>, u64)> {
    use tabula_backgammon::{Position, Side, Turn};
    let mut dice = SeededDice::new(dice_seed);
    let mut roll = loop {
        let r = dice.roll();
        if !r.is_double() {
            break r;
        }
    };
    let mut pos = Position::initial();
    if roll.first() < roll.second() {
        pos = pos.pass_turn();
    }
    let (wb, wt) = first;
    let (bb, bt) = second;
    let mut plies = 0;
    while plies < DICE_GAME_CAP {
        let (bot, timer) = if pos.turn() == Side::White {
            (&mut *wb, &mut *wt)
        } else {
            (&mut *bb, &mut *bt)
        };
        let steps = timer.time(|| {
            bot.choose_play(tabula_bots::Position::Backgammon(&pos), Some(roll))
                .and_then(tabula_bots::Play::into_backgammon)
                .unwrap_or_default()
        });
        let mut turn = Turn::new(&pos, roll);
        for &(from, to) in &steps {
            turn.step_to(from, to).with_context(|| {
                format!(
                    "{} played illegal {from}/{to} in {pos} ({roll})",
                    bot.level()
                )
            })?;
        }
        let next = turn.finish().with_context(|| {
            format!("{} left an incomplete turn in {pos} ({roll})", bot.level())
        })?;
        plies += 1;
        if let Some(o) = next.outcome(scoring) {
            return Ok((Some(o), u64::from(plies)));
        }
        pos = next.pass_turn();
        roll = dice.roll();
    }
    Ok((None, u64::from(plies)))
}

fn thud_game(
    v: tabula_thud::Variant,
    first: (&mut Bot, &mut Timer),
    second: (&mut Bot, &mut Timer),
) -> anyhow::Result<(tabula_thud::GameOutcome, u64)> {
    use tabula_thud::{Game as ThudGame, Seat};
    let mut game = ThudGame::new(v);
    let (fb, ft) = first;
    let (sb, st) = second;
    let mut plies = 0u64;
    loop {
        let round = game.round_mut();
        let mut n = 0;
        while !round.is_over() {
            if n >= THUD_ROUND_CAP {
                round.propose_end(Seat::First)?;
                round.accept_end(Seat::Second)?;
                break;
            }
            let seat = round.to_move();
            let (bot, timer) = match seat {
                Seat::First => (&mut *fb, &mut *ft),
                Seat::Second => (&mut *sb, &mut *st),
            };
            let pos = round.position().clone();
            let mv = timer
                .time(|| {
                    bot.choose_play(tabula_bots::Position::Thud(&pos), None)
                        .and_then(tabula_bots::Play::into_thud)
                })
                .context("a bot found no move in a round that is not over")?;
            round
                .play(seat, &mv)
                .with_context(|| format!("{} played illegal {mv}", bot.level()))?;
            n += 1;
        }
        plies += u64::from(n);
        if game.next_round().is_err() {
            break;
        }
    }
    let outcome = game.outcome().context("a finished game has an outcome")?;
    Ok((outcome, plies))
}

/// Plays game `i` (pair `i / 2`); `a_first` seats `a` first.
fn play_one(
    args: &ArenaArgs,
    variants: &Variants,
    i: u64,
    timers: &mut [Timer; 2],
) -> anyhow::Result<GameResult> {
    let pair = i / 2;
    let a_first = i.is_multiple_of(2);
    let dice_seed = sub_seed(args.seed, pair, 0);
    let bot = |level, classic, s| {
        let b = Bot::new(level, sub_seed(args.seed, i, s));
        if classic { b.with_classic_long() } else { b }
    };
    let mut bot_a = bot(args.a, args.a_classic, 1);
    let mut bot_b = bot(args.b, args.b_classic, 2);
    let [ta, tb] = timers;
    let (first, second) = if a_first {
        ((&mut bot_a, ta), (&mut bot_b, tb))
    } else {
        ((&mut bot_b, tb), (&mut bot_a, ta))
    };
    let mut r = GameResult::default();
    match args.game {
        Game::LongNardy => {
            let (o, plies) = long_game(variants.long, dice_seed, first, second)?;
            r.plies = plies;
            match o {
                None => r.score = 0.5,
                Some(o) => {
                    let a_won = (o.winner == tabula_long::Color::White) == a_first;
                    r.kind = Some(match o.kind {
                        tabula_long::WinKind::Oin => "oin",
                        tabula_long::WinKind::Mars => "mars",
                        tabula_long::WinKind::Koks => "koks",
                    });
                    r.score = if a_won { 1.0 } else { 0.0 };
                    *(if a_won {
                        &mut r.a_points
                    } else {
                        &mut r.b_points
                    }) = u64::from(o.points);
                }
            }
        }
        Game::Backgammon => {
            let (o, plies) = bg_game(variants.scoring, dice_seed, first, second)?;
            r.plies = plies;
            match o {
                None => r.score = 0.5,
                Some(o) => {
                    let a_won = (o.winner == tabula_backgammon::Side::White) == a_first;
                    r.kind = Some(match o.kind {
                        tabula_backgammon::WinKind::Single => "single",
                        tabula_backgammon::WinKind::Gammon => "gammon",
                        tabula_backgammon::WinKind::Backgammon => "backgammon",
                    });
                    r.score = if a_won { 1.0 } else { 0.0 };
                    *(if a_won {
                        &mut r.a_points
                    } else {
                        &mut r.b_points
                    }) = u64::from(o.points);
                }
            }
        }
        Game::Thud => {
            let (o, plies) = thud_game(variants.thud, first, second)?;
            r.plies = plies;
            let (ia, ib) = if a_first { (0, 1) } else { (1, 0) };
            r.a_points = u64::from(o.totals[ia]);
            r.b_points = u64::from(o.totals[ib]);
            r.score = match r.a_points.cmp(&r.b_points) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            };
            if r.score != 0.5 {
                r.kind = Some("points");
            }
        }
    }
    Ok(r)
}

struct Variants {
    long: tabula_long::Variant,
    scoring: tabula_backgammon::Scoring,
    thud: tabula_thud::Variant,
}

fn variants(args: &ArenaArgs) -> anyhow::Result<Variants> {
    let opts = parse_options(&args.options)?;
    let mut out = Variants {
        long: tabula_long::Variant::default(),
        scoring: tabula_backgammon::Scoring::Gammons,
        thud: tabula_thud::Variant::default(),
    };
    match args.game {
        Game::LongNardy => out.long = tabula_long::Variant::from_options(opts)?,
        Game::Backgammon => {
            let mut o = tabula_backgammon::Options::with_scoring(out.scoring);
            for (k, v) in &opts {
                o.set(k, v)?;
            }
            out.scoring = o.scoring;
        }
        Game::Thud => {
            out.thud = tabula_thud::Variant::from_options(&opts)?;
            if !opts.iter().any(|(k, _)| k == "max_plies_without_capture") {
                out.thud.max_plies_without_capture = Some(THUD_PLIES_WITHOUT_CAPTURE);
            }
        }
    }
    Ok(out)
}

/// The 95% percentile-bootstrap interval of the mean of `units` (pair
/// scores per game), deterministic for `seed`.
fn bootstrap_ci(units: &[f64], seed: u64) -> [f64; 2] {
    if units.is_empty() {
        return [0.0, 1.0];
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = units.len();
    let mut means: Vec<f64> = (0..2000)
        .map(|_| (0..n).map(|_| units[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let r = |x: f64| (x * 10_000.0).round() / 10_000.0;
    [r(means[49]), r(means[1949])]
}

/// One arena thread's games (numbered) and decision times.
type ThreadPart = (Vec<(u64, GameResult)>, [Timer; 2]);

/// Runs `tabula arena`.
pub fn run(args: &ArenaArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    let variants = variants(args)?;
    anyhow::ensure!(
        (1..=256).contains(&args.threads),
        "--threads must be 1..=256"
    );
    let n = args.threads;
    let parts: Vec<anyhow::Result<ThreadPart>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let variants = &variants;
                scope.spawn(move || {
                    let mut timers = [Timer::default(), Timer::default()];
                    let mut mine = Vec::new();
                    for i in (t..args.games).step_by(n as usize) {
                        mine.push((i, play_one(args, variants, i, &mut timers)?));
                    }
                    Ok((mine, timers))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an arena thread panicked")))
            })
            .collect()
    });
    let mut timers = [Timer::default(), Timer::default()];
    let mut numbered = Vec::with_capacity(args.games as usize);
    for part in parts {
        let (mine, [ta, tb]) = part?;
        numbered.extend(mine);
        timers[0].ms.extend(ta.ms);
        timers[1].ms.extend(tb.ms);
    }
    numbered.sort_by_key(|&(i, _)| i);
    let results: Vec<GameResult> = numbered.into_iter().map(|(_, r)| r).collect();
    let mut a_kinds = BTreeMap::new();
    let mut b_kinds = BTreeMap::new();
    let (mut a_wins, mut b_wins, mut draws) = (0, 0, 0);
    for r in &results {
        if r.score == 1.0 {
            a_wins += 1;
            if let Some(k) = r.kind {
                *a_kinds.entry(k).or_insert(0) += 1;
            }
        } else if r.score == 0.0 {
            b_wins += 1;
            if let Some(k) = r.kind {
                *b_kinds.entry(k).or_insert(0) += 1;
            }
        } else {
            draws += 1;
        }
    }
    let units: Vec<f64> = results
        .chunks(2)
        .map(|c| c.iter().map(|r| r.score).sum::<f64>() / c.len() as f64)
        .collect();
    let score: f64 = results.iter().map(|r| r.score).sum();
    // a's points minus b's per game, by pair.
    let margins: Vec<f64> = results
        .chunks(2)
        .map(|c| {
            c.iter()
                .map(|r| r.a_points as f64 - r.b_points as f64)
                .sum::<f64>()
                / c.len() as f64
        })
        .collect();
    let margin = margins.iter().sum::<f64>() / margins.len() as f64;
    let [ta, tb] = &mut timers;
    let report = Report {
        game: match args.game {
            Game::LongNardy => "long-nardy",
            Game::Backgammon => "backgammon",
            Game::Thud => "thud",
        },
        a: args.a,
        b: args.b,
        a_classic: args.a_classic,
        b_classic: args.b_classic,
        seed: args.seed,
        games: args.games,
        a_wins,
        b_wins,
        draws,
        a_points: results.iter().map(|r| r.a_points).sum(),
        b_points: results.iter().map(|r| r.b_points).sum(),
        a_win_rate: (score / args.games as f64 * 10_000.0).round() / 10_000.0,
        a_win_rate_ci95: bootstrap_ci(&units, sub_seed(args.seed, u64::MAX, 3)),
        a_margin_per_game: (margin * 10_000.0).round() / 10_000.0,
        a_margin_per_game_ci95: bootstrap_ci(&margins, sub_seed(args.seed, u64::MAX, 4)),
        a_kinds,
        b_kinds,
        mean_plies: (results.iter().map(|r| r.plies).sum::<u64>() as f64 / args.games as f64
            * 10.0)
            .round()
            / 10.0,
        a_decision_ms: ta.summary(),
        b_decision_ms: tb.summary(),
    };
    if args.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(());
    }
    let kinds = |k: &BTreeMap<&str, u64>| {
        k.iter()
            .map(|(n, c)| format!("{n} {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    writeln!(
        out,
        "{}: a={} vs b={}, {} games (paired dice, seats swapped), seed {}",
        report.game, report.a, report.b, report.games, report.seed
    )?;
    writeln!(
        out,
        "a wins {} ({:.1}%, 95% CI {:.1}%..{:.1}%), b wins {}, draws {}",
        report.a_wins,
        100.0 * report.a_win_rate,
        100.0 * report.a_win_rate_ci95[0],
        100.0 * report.a_win_rate_ci95[1],
        report.b_wins,
        report.draws
    )?;
    writeln!(out, "points: a {}, b {}", report.a_points, report.b_points)?;
    writeln!(out, "a's wins: {}", kinds(&report.a_kinds))?;
    writeln!(out, "b's wins: {}", kinds(&report.b_kinds))?;
    writeln!(out, "mean plies per game: {}", report.mean_plies)?;
    for (name, t) in [("a", &report.a_decision_ms), ("b", &report.b_decision_ms)] {
        writeln!(
            out,
            "{name} decision ms: mean {} p50 {} p99 {} max {} ({} decisions)",
            t.mean, t.p50, t.p99, t.max, t.decisions
        )?;
    }
    Ok(())
}
