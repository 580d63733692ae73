//! Thud! subcommands.
//!
//! Position JSON (`--position`): `{"turn":"dwarfs","dwarfs":["f1",...],
//! "trolls":["g7",...],"plies_since_capture":0}` (the last field optional);
//! without it, the start position. Options: `capture_rule=zrf|classic`,
//! `max_plies_without_capture=N|none`.
//!
//! `moves --json` prints `{"turn":"dwarfs","count":N,"moves":[{"notation":
//! "Df1-f2","kind":"move","from":"f1","to":"f2","captures":[]},...]}`.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use tabula_thud::{EndReason, Game, Move, Position, Seat, Setup, Variant, outcome_of};

use crate::args::{MovesArgs, PerftArgs, SelfplayArgs, parse_options};

/// Plies-without-capture limit selfplay uses unless the option sets one.
const SELFPLAY_PLIES_LIMIT: u32 = 100;

fn variant(raw: &[String]) -> anyhow::Result<Variant> {
    let opts = parse_options(raw)?;
    Ok(Variant::from_options(&opts)?)
}

fn position(json: Option<&str>, v: &Variant) -> anyhow::Result<Position> {
    match json {
        None => Ok(Position::start_with(v.capture_rule)),
        Some(s) => {
            let setup: Setup = serde_json::from_str(s).context("bad thud position JSON")?;
            Ok(Position::from_setup(&setup, v.capture_rule).context("bad thud position")?)
        }
    }
}

fn no_dice(dice: Option<&String>, gnubg: Option<&String>) -> anyhow::Result<()> {
    if dice.is_some() {
        anyhow::bail!("thud has no dice: drop --dice");
    }
    if gnubg.is_some() {
        anyhow::bail!("--gnubg-id is for backgammon only");
    }
    Ok(())
}

fn move_json(m: &Move) -> serde_json::Value {
    json!({
        "notation": m.to_string(),
        "kind": m.kind().name(),
        "from": m.from().to_string(),
        "to": m.to().to_string(),
        "captures": m.captures().map(|c| c.to_string()).collect::<Vec<_>>(),
    })
}

pub fn moves(a: &MovesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    no_dice(a.dice.as_ref(), a.gnubg_id.as_ref())?;
    let v = variant(&a.options)?;
    let pos = position(a.position.as_deref(), &v)?;
    let moves = pos.legal_moves();
    if a.json {
        let j = json!({
            "turn": pos.turn().name(),
            "count": moves.len(),
            "moves": moves.iter().map(move_json).collect::<Vec<_>>(),
        });
        writeln!(out, "{j}")?;
    } else {
        writeln!(out, "{} to move, {} legal moves", pos.turn(), moves.len())?;
        for m in &moves {
            writeln!(out, "{m}\t{}", m.kind())?;
        }
    }
    Ok(())
}

pub fn selfplay(a: &SelfplayArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut v = variant(&a.options)?;
    if !a
        .options
        .iter()
        .any(|o| o.trim_start().starts_with("max_plies_without_capture"))
    {
        v.max_plies_without_capture = Some(SELFPLAY_PLIES_LIMIT);
    }
    if v.max_plies_without_capture.is_none() {
        anyhow::bail!("selfplay needs max_plies_without_capture so that random rounds end");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let mut buf = Vec::with_capacity(256);
    let started = Instant::now();
    let (mut plies, mut rounds) = (0u64, 0u64);
    let (mut dwarf_pts, mut troll_pts) = (0u64, 0u64);
    let mut wins = [0u64; 2];
    let mut draws = 0u64;
    let mut reasons: std::collections::BTreeMap<String, u64> = Default::default();
    for _ in 0..a.games {
        let mut game = Game::new(v);
        loop {
            let round = game.round_mut();
            while !round.is_over() {
                buf.clear();
                round.position().legal_moves_into(&mut buf);
                let mv = buf[rng.random_range(0..buf.len())];
                round.play_unchecked(&mv);
            }
            if game.next_round().is_err() {
                break;
            }
        }
        for r in game.results() {
            rounds += 1;
            plies += u64::from(r.plies);
            dwarf_pts += u64::from(r.score.dwarfs);
            troll_pts += u64::from(r.score.trolls);
            *reasons.entry(reason_name(r.reason).into()).or_default() += 1;
        }
        match outcome_of(&game.results()).winner {
            Some(s) => wins[s.index()] += 1,
            None => draws += 1,
        }
    }
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let per_round = |x: u64| {
        if rounds == 0 {
            0.0
        } else {
            x as f64 / rounds as f64
        }
    };
    let j = json!({
        "game": "thud",
        "games": a.games,
        "seed": a.seed,
        "capture_rule": v.capture_rule.name(),
        "max_plies_without_capture": v.max_plies_without_capture,
        "rounds": rounds,
        "plies": plies,
        "seconds": secs,
        "games_per_s": a.games as f64 / secs,
        "positions_per_s": plies as f64 / secs,
        "avg_plies_per_round": per_round(plies),
        "avg_dwarf_points": per_round(dwarf_pts),
        "avg_troll_points": per_round(troll_pts),
        "first_seat_wins": wins[Seat::First.index()],
        "second_seat_wins": wins[Seat::Second.index()],
        "draws": draws,
        "end_reasons": reasons,
    });
    if a.json {
        writeln!(out, "{j}")?;
    } else {
        writeln!(
            out,
            "thud selfplay: {} games ({rounds} rounds, {plies} plies) in {secs:.3} s",
            a.games
        )?;
        writeln!(
            out,
            "{:.1} games/s, {:.0} positions/s, {:.1} plies/round",
            a.games as f64 / secs,
            plies as f64 / secs,
            per_round(plies)
        )?;
        writeln!(
            out,
            "avg points per round: dwarfs {:.2}, trolls {:.2}; first seat wins {}, second {}, draws {draws}",
            per_round(dwarf_pts),
            per_round(troll_pts),
            wins[0],
            wins[1]
        )?;
        let r: Vec<String> = reasons.iter().map(|(k, n)| format!("{k} {n}")).collect();
        writeln!(out, "round ends: {}", r.join(", "))?;
    }
    Ok(())
}

fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::Agreement => "agreement",
        EndReason::NoLegalMove => "no_legal_move",
        EndReason::NoPieces => "no_pieces",
        EndReason::PliesWithoutCapture => "plies_without_capture",
        EndReason::Repetition => "repetition",
        EndReason::Timeout => "timeout",
        _ => "other",
    }
}

pub fn perft(a: &PerftArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    no_dice(a.dice.as_ref(), a.gnubg_id.as_ref())?;
    let v = variant(&a.options)?;
    let pos = position(a.position.as_deref(), &v)?;
    let started = Instant::now();
    let counts = pos.perft_counts(a.depth);
    let secs = started.elapsed().as_secs_f64();
    let nodes = counts.last().copied().unwrap_or(1);
    if a.json {
        let j = json!({
            "game": "thud",
            "depth": a.depth,
            "nodes": nodes,
            "per_depth": counts,
            "capture_rule": v.capture_rule.name(),
            "seconds": secs,
        });
        writeln!(out, "{j}")?;
    } else {
        for (d, n) in counts.iter().enumerate() {
            writeln!(out, "depth {} {n}", d + 1)?;
        }
        writeln!(out, "nodes {nodes} ({secs:.3} s)")?;
    }
    Ok(())
}
