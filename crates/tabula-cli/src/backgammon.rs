//! Short nardy (standard backgammon) subcommands.
//!
//! Positions come from `--gnubg-id <GNU Backgammon Position ID>` (the
//! player on roll as in gnubg; that side is called White), from
//! `--position <JSON>` (see `tabula_backgammon::Setup`: each side's points
//! in its own numbering), or default to the initial position.
//!
//! `moves --json` prints
//! `{"game","position_id","turn","dice":[a,b],"scoring","max_dice","count",
//! "moves":[notation...],"finals":[Position ID...]}` where `moves[i]` leads
//! to `finals[i]`, one entry per distinct resulting position, the finals
//! with the mover still on roll (not swapped, as gnubg's `positionid` of the
//! board after the move). A roll with no legal play gives `max_dice` 0 and
//! empty lists (the turn passes).

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, bail};
use serde_json::json;
use tabula_backgammon::{Options, Position, Setup, Side, WinKind, random_game};
use tabula_dice::{Dice, SeededDice};

use crate::args::{BotArgs, HintArgs, MovesArgs, PerftArgs, SelfplayArgs};

fn options(raw: &[String]) -> anyhow::Result<Options> {
    let pairs = crate::args::parse_options(raw)?;
    Ok(Options::from_pairs(&pairs)?)
}

fn start_position(position: Option<&str>, gnubg_id: Option<&str>) -> anyhow::Result<Position> {
    match (position, gnubg_id) {
        (Some(_), Some(_)) => bail!("give either --position or --gnubg-id, not both"),
        (Some(json), None) => {
            let setup: Setup = serde_json::from_str(json).context("malformed --position JSON")?;
            Ok(setup.validate().context("illegal --position")?)
        }
        (None, Some(id)) => Ok(Position::from_gnubg_id(id).context("bad --gnubg-id")?),
        (None, None) => Ok(Position::initial()),
    }
}

fn parse_dice(raw: Option<&str>) -> anyhow::Result<Option<Dice>> {
    raw.map(|s| s.parse::<Dice>().context("bad --dice"))
        .transpose()
}

pub fn moves(a: &MovesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let opts = options(&a.options)?;
    let pos = start_position(a.position.as_deref(), a.gnubg_id.as_deref())?;
    let Some(dice) = parse_dice(a.dice.as_deref())? else {
        bail!("backgammon moves needs --dice, e.g. --dice 6,5");
    };
    if pos.is_over() {
        bail!("the game in this position is already over");
    }
    let max_dice = pos.max_dice(dice);
    let plays = pos.legal_plays(dice);
    let notation: Vec<String> = plays.iter().map(|(p, _)| p.to_string()).collect();
    let finals: Vec<String> = plays.iter().map(|(_, f)| f.gnubg_id()).collect();
    if a.json {
        let v = json!({
            "game": "backgammon",
            "position_id": pos.gnubg_id(),
            "turn": pos.turn(),
            "dice": [dice.first(), dice.second()],
            "scoring": opts.scoring,
            "max_dice": max_dice,
            "count": plays.len(),
            "moves": notation,
            "finals": finals,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{pos}")?;
        if plays.is_empty() {
            writeln!(out, "dice {dice}: no legal play, the turn passes")?;
        } else {
            writeln!(
                out,
                "dice {dice}: {} distinct plays using {max_dice} dice",
                plays.len()
            )?;
            let width = notation.iter().map(String::len).max().unwrap_or(0);
            for (m, f) in notation.iter().zip(&finals) {
                writeln!(out, "  {m:<width$}  {f}")?;
            }
        }
    }
    Ok(())
}

pub fn selfplay(a: &SelfplayArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let opts = options(&a.options)?;
    let mut dice = SeededDice::new(a.seed);
    let started = Instant::now();
    let mut positions = 0u64;
    let mut wins = [0u64; 2];
    let mut kinds = [0u64; 3];
    let mut points = [0u64; 2];
    for game in 0..a.games {
        let Some(summary) = random_game(&mut dice, &opts, 100_000, |_, _, _| {}) else {
            bail!("game {game} did not end within 100000 turns");
        };
        positions += u64::from(summary.turns);
        let w = usize::from(summary.outcome.winner == Side::Black);
        wins[w] += 1;
        points[w] += u64::from(summary.outcome.points);
        kinds[match summary.outcome.kind {
            WinKind::Single => 0,
            WinKind::Gammon => 1,
            WinKind::Backgammon => 2,
        }] += 1;
    }
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let gps = a.games as f64 / secs;
    let pps = positions as f64 / secs;
    if a.json {
        let v = json!({
            "game": "backgammon",
            "games": a.games,
            "seed": a.seed,
            "scoring": opts.scoring,
            "positions": positions,
            "wins": {"white": wins[0], "black": wins[1]},
            "wins_by_kind": {"single": kinds[0], "gammon": kinds[1], "backgammon": kinds[2]},
            "points": {"white": points[0], "black": points[1]},
            "seconds": secs,
            "games_per_s": gps,
            "positions_per_s": pps,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(
            out,
            "{} games (seed {}, scoring {}): white {} black {}; single {} gammon {} backgammon {}; points white {} black {}",
            a.games,
            a.seed,
            opts.scoring,
            wins[0],
            wins[1],
            kinds[0],
            kinds[1],
            kinds[2],
            points[0],
            points[1]
        )?;
        writeln!(
            out,
            "{positions} positions in {secs:.3} s: {gps:.0} games/s, {pps:.0} positions/s"
        )?;
    }
    Ok(())
}

/// Perft: depth 1 = over the 21 distinct rolls (or `first` only), the number
/// of distinct resulting positions (a roll with no legal play counts 1);
/// deeper plies recurse into each result with the opponent on roll. A
/// finished game counts 1 and is not expanded.
fn perft_count(pos: &Position, depth: u32, first: Option<Dice>, bufs: &mut [Vec<Position>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
    let mut total = 0;
    let rolls: &[Dice] = match &first {
        Some(d) => std::slice::from_ref(d),
        None => &Dice::ALL_21,
    };
    for &d in rolls {
        pos.legal_positions_into(d, buf);
        if depth == 1 {
            total += buf.len() as u64;
        } else {
            let finals = std::mem::take(buf);
            for f in &finals {
                total += if f.is_over() {
                    1
                } else {
                    perft_count(&f.pass_turn(), depth - 1, None, rest)
                };
            }
            *buf = finals;
        }
    }
    total
}

pub fn perft(a: &PerftArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let opts = options(&a.options)?;
    let pos = start_position(a.position.as_deref(), a.gnubg_id.as_deref())?;
    let first = parse_dice(a.dice.as_deref())?;
    if pos.is_over() {
        bail!("the game in this position is already over");
    }
    let started = Instant::now();
    let mut bufs: Vec<Vec<Position>> = (0..a.depth).map(|_| Vec::with_capacity(256)).collect();
    let nodes = perft_count(&pos, a.depth, first, &mut bufs);
    let secs = started.elapsed().as_secs_f64();
    if a.json {
        let v = json!({
            "game": "backgammon",
            "position_id": pos.gnubg_id(),
            "turn": pos.turn(),
            "depth": a.depth,
            "dice": first.map(|d| [d.first(), d.second()]),
            "scoring": opts.scoring,
            "nodes": nodes,
        });
        writeln!(out, "{v}")?;
    } else {
        let dice = first
            .map(|d| format!(", first roll {d}"))
            .unwrap_or_default();
        writeln!(
            out,
            "perft depth {} from {}{dice}: {nodes} nodes in {secs:.3} s",
            a.depth,
            pos.gnubg_id()
        )?;
    }
    Ok(())
}

/// One request: the play `bot` picks for `id` with `dice`.
fn bot_play(bot: &mut tabula_bots::Bot, id: &str, dice: &str) -> anyhow::Result<String> {
    let pos = Position::from_gnubg_id(id).context("bad Position ID")?;
    let dice: Dice = dice.parse().context("bad dice")?;
    if pos.is_over() {
        bail!("the game in this position is already over");
    }
    Ok(tabula_bots::hint::bg_notation(
        &bot.choose_play(tabula_bots::Position::Backgammon(&pos), Some(dice))
            .and_then(tabula_bots::Play::into_backgammon)
            .unwrap_or_default(),
    ))
}

/// `tabula bot --game backgammon`.
pub fn bot(a: &BotArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let scoring = options(&a.options)?.scoring;
    let mut bot = tabula_bots::Bot::new(a.level, a.seed).with_backgammon_scoring(scoring);
    if !a.stdin {
        let (Some(id), Some(dice)) = (a.gnubg_id.as_deref(), a.dice.as_deref()) else {
            bail!("give --gnubg-id and --dice, or --stdin");
        };
        writeln!(out, "{}", bot_play(&mut bot, id, dice)?)?;
        return Ok(());
    }
    for line in std::io::stdin().lines() {
        let line = line.context("reading stdin")?;
        let mut parts = line.split_whitespace();
        let answer = match (parts.next(), parts.next(), parts.next()) {
            (None, _, _) => continue,
            (Some(id), Some(dice), None) => {
                bot_play(&mut bot, id, dice).unwrap_or_else(|e| format!("error: {e:#}"))
            }
            _ => "error: expected `<Position ID> <dice>`".to_string(),
        };
        writeln!(out, "{answer}")?;
        // The driver waits for each answer before the next request.
        out.flush()?;
    }
    Ok(())
}

/// `tabula hint --game backgammon`.
pub fn hint(a: &HintArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let scoring = options(&a.options)?.scoring;
    let pos = start_position(a.position.as_deref(), a.gnubg_id.as_deref())?;
    let dice: Dice = a.dice.parse().context("bad --dice")?;
    if pos.is_over() {
        bail!("the game in this position is already over");
    }
    let hints = tabula_bots::hint::backgammon(&pos, dice, scoring, a.rollouts, a.seed);
    crate::hints::print_hints(
        "backgammon",
        dice,
        &hints,
        |p| tabula_bots::hint::bg_notation(p),
        a.json,
        out,
    )
}
