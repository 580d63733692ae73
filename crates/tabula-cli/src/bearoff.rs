//! `tabula bearoff`: the exact one-sided bear-off database
//! (`tabula_bots::bearoff`), as a file, one position at a time, and what
//! it is worth to Hard in races.
//!
//! * `--out FILE` builds the table through the game's own move generation
//!   (tabula-long's or tabula-backgammon's, on every home-board position
//!   and roll), checks it is the table the bots build at start-up, and
//!   writes it in GNU Backgammon's one-sided format (`gnubg-OS-06-15-1-1`:
//!   compressed, with the first-checker-off distributions; 16-bit fixed
//!   point, so `bearoffdump FILE -n 54263` reads it as it reads gnubg's own
//!   `gnubg_os0.bd`).
//! * `--board a,b,c,d,e,f` prints one position (checkers on the 1- to
//!   6-point).
//! * `--race N` plays N pairs of games from race positions, Hard with the
//!   database against Hard without it, the same dice in both games of a
//!   pair with the seats swapped: `--start race` from the first position
//!   without contact in a game between two Medium bots, `--start bearoff`
//!   from the first with both sides bearing off.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, ValueEnum};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use tabula_bots::bearoff::{self, Board, POSITIONS, Table};
use tabula_bots::{Bot, Level};
use tabula_dice::{Dice, DiceSource, SeededDice};

use crate::args::Game;

/// `tabula bearoff`.
#[derive(Debug, Args)]
pub struct BearoffArgs {
    /// Which game (long nardy or backgammon; their tables are one).
    #[arg(long, value_enum)]
    pub game: Game,
    /// Write the table (built through the game's own move generation) in
    /// GNU Backgammon's one-sided bear-off format.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Print one position: checkers on the 1- to 6-point, e.g. `0,0,0,0,0,15`.
    #[arg(long)]
    pub board: Option<String>,
    /// Play this many pairs of race games, Hard with the database against
    /// Hard without it.
    #[arg(long)]
    pub race: Option<u64>,
    /// Where the race games start.
    #[arg(long, value_enum, default_value = "race")]
    pub start: Start,
    /// Seed of the starting positions, the dice and the bots.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Where `--race` games start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Start {
    /// The first position without contact.
    Race,
    /// The first position with both sides bearing off.
    Bearoff,
}

/// Runs `tabula bearoff`.
pub fn run(args: &BearoffArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.game != Game::Thud,
        "bear-off databases are for the dice games (long nardy, backgammon)"
    );
    let mut did = false;
    if let Some(path) = &args.out {
        write_table(args, path, out)?;
        did = true;
    }
    if let Some(raw) = &args.board {
        show(args, raw, out)?;
        did = true;
    }
    if let Some(n) = args.race {
        race(args, n, out)?;
        did = true;
    }
    anyhow::ensure!(did, "nothing to do: give --out, --board or --race");
    Ok(())
}

/// The home boards of white (to move) and black in a position of `game`
/// where black has fifteen on his 6-point: each engine's own finals of a
/// roll, read back as white's home board.
fn engine_finals(game: Game) -> impl FnMut(&Board, Dice) -> Vec<Board> {
    move |b: &Board, dice: Dice| -> Vec<Board> {
        let mut v: Vec<Board> = match game {
            Game::LongNardy => {
                let mut white = std::collections::BTreeMap::new();
                for (i, &n) in b.iter().enumerate() {
                    if n > 0 {
                        white.insert((i + 1).to_string(), i64::from(n));
                    }
                }
                let setup = tabula_long::Setup {
                    turn: tabula_long::Color::White,
                    white,
                    black: [("18".to_string(), 15)].into_iter().collect(),
                    off: tabula_long::OffCounts {
                        white: 15 - bearoff::checkers(b) as i64,
                        black: 0,
                    },
                    first_turn: false,
                };
                let pos =
                    tabula_long::Position::try_from(setup).expect("a home-board position is legal");
                pos.legal_moves(dice)
                    .iter()
                    .filter_map(|f| bearoff::long_board(f, tabula_long::Color::White))
                    .collect()
            }
            _ => {
                let mut board = [0i8; 26];
                for (i, &n) in b.iter().enumerate() {
                    board[i + 1] = n as i8;
                }
                board[19] = -15;
                let pos =
                    tabula_backgammon::Position::from_board(board, tabula_backgammon::Side::White)
                        .expect("a home-board position is legal");
                pos.legal_positions(dice)
                    .iter()
                    .filter_map(|f| bearoff::bg_board(f, tabula_backgammon::Side::White))
                    .collect()
            }
        };
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// One distribution as gnubg keeps it: 32 rolls, each probability rounded
/// to 1/65535, the rounding's total error taken from the likeliest roll.
fn fixed_point(d: bearoff::Dist<'_>) -> [u16; 32] {
    let mut out = [0u16; 32];
    let mut sum = 0i64;
    let mut mode = 0;
    for k in 0..32 {
        out[k] = (d.exactly(k) * 65535.0).round() as u16;
        sum += i64::from(out[k]);
        if out[k] > out[mode] {
            mode = k;
        }
    }
    out[mode] = (i64::from(out[mode]) - (sum - 65535)) as u16;
    out
}

/// The first and number of non-zero entries (gnubg's `CalcIndex`).
fn span(p: &[u16; 32]) -> (usize, usize) {
    let hi = p.iter().rposition(|&x| x > 0).unwrap_or(0);
    let lo = p.iter().position(|&x| x > 0).unwrap_or(0);
    (lo, hi + 1 - lo)
}

fn write_table(
    args: &BearoffArgs,
    path: &std::path::Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let t = Instant::now();
    let table = Table::build_with(&mut engine_finals(args.game));
    let engine_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let fast = Table::build();
    let fast_ms = t.elapsed().as_secs_f64() * 1e3;
    let same = (0..POSITIONS).all(|i| {
        table.mean(i) == fast.mean(i)
            && table.first_off_mean(i) == fast.first_off_mean(i)
            && (0..=bearoff::MAX_ROLLS).all(|k| {
                table.rolls(i).exactly(k) == fast.rolls(i).exactly(k)
                    && table.first_off(i).exactly(k) == fast.first_off(i).exactly(k)
            })
    });
    anyhow::ensure!(
        same,
        "the table built through the engine differs from the bots' table"
    );
    let mut index = Vec::with_capacity(8 * POSITIONS);
    let mut data = Vec::new();
    let mut at = 0u32;
    for i in 0..POSITIONS {
        let all = fixed_point(table.rolls(i));
        let first = fixed_point(table.first_off(i));
        let (lo, n) = span(&all);
        let (glo, gn) = span(&first);
        index.extend_from_slice(&at.to_le_bytes());
        index.extend_from_slice(&[n as u8, lo as u8, gn as u8, glo as u8]);
        for &x in all[lo..lo + n].iter().chain(&first[glo..glo + gn]) {
            data.extend_from_slice(&x.to_le_bytes());
        }
        at += (n + gn) as u32;
    }
    let mut file = format!("gnubg-OS-06-15-1-1-0{}\n", "x".repeat(19)).into_bytes();
    file.extend(index);
    file.extend(data);
    std::fs::write(path, &file).with_context(|| format!("writing {}", path.display()))?;
    let game = game_name(args.game);
    if args.json {
        writeln!(
            out,
            "{}",
            json!({"game": game, "out": path.display().to_string(), "bytes": file.len(),
                   "positions": POSITIONS, "engine_build_ms": round(engine_ms),
                   "fast_build_ms": round(fast_ms), "same_as_bots_table": same})
        )?;
    } else {
        writeln!(
            out,
            "{game}: {POSITIONS} positions through the engine in {engine_ms:.0} ms, \
             the same as the bots' table (built in {fast_ms:.0} ms); \
             wrote {} ({} bytes, gnubg's one-sided format)",
            path.display(),
            file.len()
        )?;
    }
    Ok(())
}

/// Three decimals (milliseconds).
fn round(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

/// Six decimals (rates and points: the database's effect is small).
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn game_name(g: Game) -> &'static str {
    match g {
        Game::LongNardy => "long-nardy",
        Game::Backgammon => "backgammon",
        Game::Thud => "thud",
    }
}

fn show(args: &BearoffArgs, raw: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    let counts: Vec<u8> = raw
        .split(',')
        .map(|s| s.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("bad --board {raw:?} (six counts, the 1- to 6-point)"))?;
    let b: Board = counts
        .try_into()
        .map_err(|_| anyhow::anyhow!("--board takes six counts, the 1- to 6-point"))?;
    let i = bearoff::index(&b).context("--board holds more than 15 checkers")?;
    let t = Table::shared();
    let dist =
        |d: bearoff::Dist<'_>| -> Vec<f64> { (0..=d.last()).map(|k| d.exactly(k)).collect() };
    if args.json {
        writeln!(
            out,
            "{}",
            json!({"game": game_name(args.game), "board": b, "index": i,
                   "mean": t.mean(i), "rolls": dist(t.rolls(i)),
                   "first_off_mean": t.first_off_mean(i), "first_off": dist(t.first_off(i))})
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{b:?} (gnubg #{i}): {:.6} rolls to bear off (EPC {:.3}), first checker off in {:.6}",
        t.mean(i),
        t.mean(i) * 49.0 / 6.0,
        t.first_off_mean(i)
    )?;
    for (k, p) in dist(t.rolls(i)).iter().enumerate() {
        if *p > 0.0 {
            writeln!(out, "{k:>3} rolls: {:>8.4}%", 100.0 * p)?;
        }
    }
    Ok(())
}

/// A race game's start, either game's.
#[derive(Clone, Copy)]
enum Pos {
    Long(tabula_long::Position),
    Bg(tabula_backgammon::Position),
}

/// The first position (side to move about to roll) of a game between two
/// Medium bots that meets `start`, or `None` if the game ended first.
fn start_position(game: Game, start: Start, seed: u64) -> Option<Pos> {
    let mut dice = SeededDice::new(seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5EED);
    match game {
        Game::LongNardy => {
            use tabula_long::{Position, Variant, decide_opening};
            let v = Variant::default();
            let d = decide_opening(v.opening, &mut dice);
            let mut pos = Position::new_game(v, d.starter);
            let mut pending = d.first_roll;
            for _ in 0..2000 {
                let ok = match start {
                    Start::Race => tabula_bots::long::features::no_contact(&pos),
                    Start::Bearoff => bearoff::long_race(&pos).is_some(),
                };
                if ok && pending.is_none() {
                    return Some(Pos::Long(pos));
                }
                let roll = pending.take().unwrap_or_else(|| dice.roll());
                let finals = pos.legal_moves(roll);
                if finals.is_empty() {
                    pos = pos.pass_turn();
                    continue;
                }
                pos = finals[tabula_bots::long::pick(Level::Medium, &mut rng, &pos, &finals)];
                if pos.is_game_over() {
                    return None;
                }
            }
            None
        }
        _ => {
            let mut pos = tabula_backgammon::Position::initial();
            if rng.random_bool(0.5) {
                pos = pos.pass_turn();
            }
            for _ in 0..2000 {
                let ok = match start {
                    Start::Race => pos.is_race(),
                    Start::Bearoff => bearoff::bg_race(&pos).is_some(),
                };
                if ok {
                    return Some(Pos::Bg(pos));
                }
                let finals = pos.legal_positions(dice.roll());
                let next = if finals.is_empty() {
                    pos
                } else {
                    finals[tabula_bots::bg::pick(Level::Medium, &mut rng, &finals)]
                };
                if next.is_over() {
                    return None;
                }
                pos = next.pass_turn();
            }
            None
        }
    }
}

/// What the database changed: the bear-off decisions of the bot that uses
/// it, how many of them the evaluation (Hard without it) would have played
/// otherwise, and the equity those cost by the database's reckoning.
#[derive(Debug, Default)]
struct Changed {
    decisions: u64,
    differ: u64,
    equity_lost: f64,
}

/// Plays a game from `start` to the end, `first` moving first; the points
/// the first mover won (negative: lost). Each bot's decision times (ms) go
/// to `ms`; the database side's bear-off decisions are compared with
/// `shadow`'s (Hard without the database) in `changed`.
fn play(
    start: Pos,
    dice_seed: u64,
    bots: [&mut Bot; 2],
    ms: &mut [Vec<f64>; 2],
    shadow: &mut Bot,
    changed: &mut Changed,
) -> i64 {
    let mut dice = SeededDice::new(dice_seed);
    let [first, second] = bots;
    match start {
        Pos::Long(mut pos) => {
            let mover = pos.turn();
            for ply in 0..2000 {
                if let Some(o) = pos.outcome() {
                    let p = i64::from(o.points);
                    return if o.winner == mover { p } else { -p };
                }
                let roll = dice.roll();
                let side = ply % 2;
                let bot = if side == 0 { &mut *first } else { &mut *second };
                let t = Instant::now();
                let steps = bot
                    .choose_play(tabula_bots::Position::Long(&pos), Some(roll))
                    .and_then(tabula_bots::Play::into_long)
                    .unwrap_or_default();
                ms[side].push(t.elapsed().as_secs_f64() * 1e3);
                let after = if steps.is_empty() {
                    pos.pass_turn()
                } else {
                    pos.play_unchecked(&steps)
                };
                if bot.uses_bearoff() && bearoff::long_race(&pos).is_some() {
                    let me = pos.turn();
                    let other = pos.play_unchecked(
                        &shadow
                            .choose_play(tabula_bots::Position::Long(&pos), Some(roll))
                            .and_then(tabula_bots::Play::into_long)
                            .unwrap_or_default(),
                    );
                    let eq = |p: &tabula_long::Position| bearoff::long_equity(p, me).unwrap_or(0.0);
                    changed.decisions += 1;
                    if other != after {
                        changed.differ += 1;
                        changed.equity_lost += eq(&after) - eq(&other);
                    }
                }
                pos = after;
            }
            0
        }
        Pos::Bg(mut pos) => {
            let mover = pos.turn();
            for ply in 0..2000 {
                let roll = dice.roll();
                let side = ply % 2;
                let bot = if side == 0 { &mut *first } else { &mut *second };
                let t = Instant::now();
                let steps = bot
                    .choose_play(tabula_bots::Position::Backgammon(&pos), Some(roll))
                    .and_then(tabula_bots::Play::into_backgammon)
                    .unwrap_or_default();
                ms[side].push(t.elapsed().as_secs_f64() * 1e3);
                let Some(next) = bg_after(&pos, roll, &steps) else {
                    return 0;
                };
                if bot.uses_bearoff() && bearoff::bg_race(&pos).is_some() {
                    let other = bg_after(
                        &pos,
                        roll,
                        &shadow
                            .choose_play(tabula_bots::Position::Backgammon(&pos), Some(roll))
                            .and_then(tabula_bots::Play::into_backgammon)
                            .unwrap_or_default(),
                    );
                    let eq = |p: &tabula_backgammon::Position| bearoff::bg_equity(p).unwrap_or(0.0);
                    changed.decisions += 1;
                    if let Some(other) = other
                        && other != next
                    {
                        changed.differ += 1;
                        changed.equity_lost += eq(&next) - eq(&other);
                    }
                }
                if let Some(o) = next.outcome(tabula_backgammon::Scoring::Gammons) {
                    let p = i64::from(o.points);
                    return if o.winner == mover { p } else { -p };
                }
                pos = next.pass_turn();
            }
            0
        }
    }
}

/// The position after `steps` of `roll` from `pos` (mover still on roll).
fn bg_after(
    pos: &tabula_backgammon::Position,
    roll: Dice,
    steps: &[(u8, u8)],
) -> Option<tabula_backgammon::Position> {
    let mut turn = tabula_backgammon::Turn::new(pos, roll);
    for &(f, to) in steps {
        turn.step_to(f, to).ok()?;
    }
    turn.finish().ok()
}

/// The same mixer as `tabula arena`'s.
fn sub_seed(seed: u64, k: u64, s: u64) -> u64 {
    let mut x =
        seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ s.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

/// The 95% percentile-bootstrap interval of the mean of `units`.
fn bootstrap(units: &[f64], seed: u64) -> [f64; 2] {
    if units.is_empty() {
        return [0.0, 0.0];
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = units.len();
    let mut means: Vec<f64> = (0..2000)
        .map(|_| (0..n).map(|_| units[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    [round6(means[49]), round6(means[1949])]
}

fn race(args: &BearoffArgs, pairs: u64, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(pairs > 0, "--race must be at least 1");
    let mut ms: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    // Per pair: the database side's score (wins, of 2) and points margin.
    let mut scores = Vec::new();
    let mut margins = Vec::new();
    let mut differ = 0u64;
    let mut changed = Changed::default();
    let mut k = 0u64;
    while (scores.len() as u64) < pairs {
        k += 1;
        anyhow::ensure!(k < 100 * pairs + 100, "no race positions found");
        let Some(start) = start_position(args.game, args.start, sub_seed(args.seed, k, 0)) else {
            continue;
        };
        let dice_seed = sub_seed(args.seed, k, 1);
        let bot = |s: u64| Bot::new(Level::Hard, sub_seed(args.seed, k, s));
        let mut shadow = bot(4).without_bearoff();
        // Game 1: the database side moves first; game 2: the other does.
        let mut t1 = [Vec::new(), Vec::new()];
        let g1 = play(
            start,
            dice_seed,
            [&mut bot(2), &mut bot(3).without_bearoff()],
            &mut t1,
            &mut shadow,
            &mut changed,
        );
        let mut t2 = [Vec::new(), Vec::new()];
        let g2 = play(
            start,
            dice_seed,
            [&mut bot(3).without_bearoff(), &mut bot(2)],
            &mut t2,
            &mut shadow,
            &mut changed,
        );
        let [a1, b1] = t1;
        let [b2, a2] = t2;
        ms[0].extend(a1.iter().chain(&a2));
        ms[1].extend(b1.iter().chain(&b2));
        let win = |p: i64| match p.signum() {
            1 => 1.0,
            -1 => 0.0,
            _ => 0.5,
        };
        scores.push((win(g1) + (1.0 - win(g2))) / 2.0);
        margins.push((g1 - g2) as f64 / 2.0);
        differ += u64::from(g1 != g2);
    }
    let n = scores.len() as f64;
    let rate = scores.iter().sum::<f64>() / n;
    let margin = margins.iter().sum::<f64>() / n;
    let time = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let q = |p: f64| {
            v.get(((v.len() as f64 - 1.0) * p).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        json!({"decisions": v.len(), "mean": round(v.iter().sum::<f64>() / v.len().max(1) as f64),
               "p99": round(q(0.99)), "max": round(q(1.0))})
    };
    let report = json!({
        "game": game_name(args.game),
        "start": match args.start { Start::Race => "race", Start::Bearoff => "bearoff" },
        "seed": args.seed,
        "pairs": pairs,
        "games": 2 * pairs,
        "pairs_decided_differently": differ,
        "database_win_rate": round6(rate),
        "database_win_rate_ci95": bootstrap(&scores, sub_seed(args.seed, u64::MAX, 3)),
        "database_points_per_game": round6(margin),
        "database_points_per_game_ci95": bootstrap(&margins, sub_seed(args.seed, u64::MAX, 4)),
        "database_bearoff_decisions": changed.decisions,
        "evaluation_would_differ": changed.differ,
        "evaluation_equity_lost_per_differing_decision":
            round6(changed.equity_lost / changed.differ.max(1) as f64),
        "database_decision_ms": time(&mut ms[0]),
        "evaluation_decision_ms": time(&mut ms[1]),
    });
    if args.json {
        writeln!(out, "{report}")?;
    } else {
        writeln!(
            out,
            "{}: Hard with the bear-off database vs without, {pairs} pairs from {} starts (seed {}): \
             win rate {:.2}% (95% CI {:.2}–{:.2}%), {:+.4} points per game (95% CI {:+.4}..{:+.4}), \
             {differ} pairs decided differently; of {} bear-off decisions, Hard without the \
             database plays {} otherwise, losing {:.4} equity each by the database",
            report["game"].as_str().unwrap_or(""),
            report["start"].as_str().unwrap_or(""),
            args.seed,
            100.0 * rate,
            100.0 * report["database_win_rate_ci95"][0].as_f64().unwrap_or(0.0),
            100.0 * report["database_win_rate_ci95"][1].as_f64().unwrap_or(0.0),
            margin,
            report["database_points_per_game_ci95"][0]
                .as_f64()
                .unwrap_or(0.0),
            report["database_points_per_game_ci95"][1]
                .as_f64()
                .unwrap_or(0.0),
            changed.decisions,
            changed.differ,
            changed.equity_lost / changed.differ.max(1) as f64,
        )?;
    }
    Ok(())
}
