//! Long nardy subcommands (positions as the JSON form of
//! `tabula_long::Setup`, seed-000 numbering).

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use serde_json::{Value, json};
use tabula_dice::{Dice, SeededDice};
use tabula_long::{
    Color, Moves, Position, Setup, Variant, WinKind, perft_divide, perft_roll, play_random_game,
};

use crate::args::{MovesArgs, PerftArgs, SelfplayArgs, TrainArgs, parse_options};

/// Longest game self-play will play before giving up on it (random games
/// end in a few hundred plies; this only guards against a stuck game).
const MAX_PLIES: u32 = 100_000;

fn variant(raw: &[String]) -> anyhow::Result<Variant> {
    let opts = parse_options(raw)?;
    Ok(Variant::from_options(opts)?)
}

fn position(raw: Option<&str>, v: Variant) -> anyhow::Result<Position> {
    match raw {
        None => Ok(Position::initial().with_variant(v)),
        Some(text) => {
            let setup: Setup =
                serde_json::from_str(text).context("malformed long nardy position JSON")?;
            Position::from_setup(&setup, v).context("illegal long nardy position")
        }
    }
}

fn dice(raw: Option<&str>) -> anyhow::Result<Option<Dice>> {
    raw.map(|s| {
        s.parse::<Dice>()
            .with_context(|| format!("bad --dice {s:?}"))
    })
    .transpose()
}

/// A final as JSON: the board after the play with the mover still named
/// as `turn` (as in the input) and `first_turn` false (his turn is used).
fn final_json(after: &Position, mover: Color) -> anyhow::Result<Value> {
    let mut setup = after.to_setup();
    setup.turn = mover;
    setup.first_turn = false;
    Ok(serde_json::to_value(setup)?)
}

fn moves_json(pos: &Position, m: &Moves) -> anyhow::Result<Value> {
    let finals = m
        .finals
        .iter()
        .map(|f| {
            Ok(json!({
                "sequence": f.sequence.to_string(),
                "position": final_json(&f.position, pos.turn())?,
            }))
        })
        .collect::<anyhow::Result<Vec<Value>>>()?;
    Ok(json!({
        "game": "long-nardy",
        "turn": pos.turn(),
        "dice": [m.dice.first(), m.dice.second()],
        "max_dice": m.max_dice,
        "sequences": m.sequences.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "first_steps": m.first_steps().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "finals": finals,
    }))
}

pub fn moves(a: &MovesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if a.gnubg_id.is_some() {
        anyhow::bail!("--gnubg-id is for backgammon only");
    }
    let v = variant(&a.options)?;
    let pos = position(a.position.as_deref(), v)?;
    let d = dice(a.dice.as_deref())?.context("long nardy moves needs --dice, e.g. --dice 6,5")?;
    if let Some(o) = pos.outcome() {
        anyhow::bail!("the game is over: {} won", o.winner);
    }
    let m = pos.moves(d);
    if a.json {
        serde_json::to_writer(&mut *out, &moves_json(&pos, &m)?)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "{pos}")?;
    writeln!(out, "dice {d}: max dice {}", m.max_dice)?;
    if m.sequences.is_empty() {
        writeln!(out, "no legal play: the turn passes")?;
        return Ok(());
    }
    let firsts: Vec<String> = m.first_steps().iter().map(|s| s.to_string()).collect();
    writeln!(out, "first steps: {}", firsts.join(" "))?;
    writeln!(out, "{} sequences:", m.sequences.len())?;
    for s in &m.sequences {
        writeln!(out, "  {s}")?;
    }
    writeln!(out, "{} distinct finals:", m.finals.len())?;
    for f in &m.finals {
        writeln!(out, "  {:<24} {}", f.sequence.to_string(), f.position)?;
    }
    Ok(())
}

pub fn selfplay(a: &SelfplayArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let v = variant(&a.options)?;
    let mut dice = SeededDice::new(a.seed);
    let mut plies: u64 = 0;
    let mut generated: u64 = 0;
    let mut unfinished: u64 = 0;
    let mut wins = [[0u64; 3]; 2];
    let mut points = [0u64; 2];
    let t = Instant::now();
    for _ in 0..a.games {
        let g = play_random_game(v, &mut dice, MAX_PLIES, |_| {});
        plies += u64::from(g.plies);
        generated += g.generated;
        match g.outcome {
            Some(o) => {
                let c = usize::from(o.winner == Color::Black);
                let k = match o.kind {
                    WinKind::Oin => 0,
                    WinKind::Mars => 1,
                    WinKind::Koks => 2,
                };
                wins[c][k] += 1;
                points[c] += u64::from(o.points);
            }
            None => unfinished += 1,
        }
    }
    let secs = t.elapsed().as_secs_f64().max(1e-9);
    let games = a.games as f64;
    let by_kind = |c: usize| json!({"oin": wins[c][0], "mars": wins[c][1], "koks": wins[c][2]});
    let report = json!({
        "game": "long-nardy",
        "variant": v.to_string(),
        "games": a.games,
        "seed": a.seed,
        "seconds": secs,
        "games_per_second": games / secs,
        "plies": plies,
        "positions_per_second": plies as f64 / secs,
        "finals_generated": generated,
        "finals_per_second": generated as f64 / secs,
        "average_plies": if a.games > 0 { plies as f64 / games } else { 0.0 },
        "wins": {"white": by_kind(0), "black": by_kind(1)},
        "points": {"white": points[0], "black": points[1]},
        "unfinished": unfinished,
    });
    if a.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "long-nardy selfplay: {} games (seed {}, {v}) in {secs:.3} s",
            a.games, a.seed
        )?;
        writeln!(
            out,
            "{:.1} games/s, {:.0} positions/s, {:.0} finals generated/s, {:.1} plies/game",
            games / secs,
            plies as f64 / secs,
            generated as f64 / secs,
            if a.games > 0 {
                plies as f64 / games
            } else {
                0.0
            }
        )?;
        for (c, name) in [(0, "white"), (1, "black")] {
            writeln!(
                out,
                "{name}: oin {} mars {} koks {} ({} points)",
                wins[c][0], wins[c][1], wins[c][2], points[c]
            )?;
        }
        if unfinished > 0 {
            writeln!(out, "unfinished after {MAX_PLIES} plies: {unfinished}")?;
        }
    }
    Ok(())
}

pub fn perft(a: &PerftArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if a.gnubg_id.is_some() {
        anyhow::bail!("--gnubg-id is for backgammon only");
    }
    let v = variant(&a.options)?;
    let pos = position(a.position.as_deref(), v)?;
    let d = dice(a.dice.as_deref())?;
    let t = Instant::now();
    let by_roll: Vec<(Dice, u64)> = match d {
        Some(d) => vec![(d, perft_roll(&pos, d, a.depth))],
        None if a.depth == 0 => Vec::new(),
        None => perft_divide(&pos, a.depth),
    };
    let nodes: u64 = if a.depth == 0 {
        1
    } else {
        by_roll.iter().map(|e| e.1).sum()
    };
    let secs = t.elapsed().as_secs_f64();
    if a.json {
        let rolls: Vec<Value> = by_roll
            .iter()
            .map(|(d, n)| json!({"dice": d.to_string(), "nodes": n}))
            .collect();
        serde_json::to_writer(
            &mut *out,
            &json!({
                "game": "long-nardy",
                "depth": a.depth,
                "dice": d.map(|d| d.to_string()),
                "nodes": nodes,
                "by_roll": rolls,
                "seconds": secs,
            }),
        )?;
        writeln!(out)?;
    } else {
        for (d, n) in &by_roll {
            writeln!(out, "{d}: {n}")?;
        }
        writeln!(out, "perft({}) = {nodes} ({secs:.3} s)", a.depth)?;
    }
    Ok(())
}

/// `tabula hint --game long-nardy`.
pub fn hint(a: &crate::args::HintArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if a.gnubg_id.is_some() {
        anyhow::bail!("--gnubg-id is for backgammon; give a long nardy --position");
    }
    let v = variant(&a.options)?;
    let pos = position(a.position.as_deref(), v)?;
    let Some(roll) = dice(Some(&a.dice))? else {
        anyhow::bail!("give --dice");
    };
    if pos.is_game_over() {
        anyhow::bail!("the game in this position is already over");
    }
    let hints = tabula_bots::hint::long_nardy(&pos, roll, a.rollouts, a.seed);
    let name = |play: &Vec<tabula_long::Step>| tabula_bots::hint::long_notation(play);
    crate::hints::print_hints("long-nardy", roll, &hints, name, a.json, out)
}

/// `tabula train-long`: TD(λ) self-play training of the long nardy network.
pub fn train(a: &TrainArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    use tabula_bots::long::net::Net;
    use tabula_training::long_td::{TrainConfig, Trainer};
    if a.hidden == 0 || a.hidden > 1024 {
        anyhow::bail!("--hidden must be 1..=1024");
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
    let mut played = 0u64;
    while played < a.games {
        t.play_game();
        played += 1;
        if played.is_multiple_of(every) || played == a.games {
            std::fs::write(&a.out, t.net.to_bytes())
                .with_context(|| format!("writing {}", a.out.display()))?;
            let share = tabula_bots::long::greedy_share_vs_medium(&t.net, 100, 99);
            writeln!(
                out,
                "{}",
                json!({
                    "games": played,
                    "positions": t.positions,
                    "secs": (start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
                    "greedy_points_share_vs_medium": (share * 1000.0).round() / 1000.0,
                })
            )?;
            out.flush()?;
        }
    }
    Ok(())
}
