//! `tabula analyse`: replay analysis of a finished long nardy or backgammon
//! game record, through [`tabula_bots::analysis::analyse`]: every turn is
//! replayed from its start; the hint function (`tabula_bots::hint`) ranks
//! every legal play for that roll, and the play made is marked with the
//! equity it lost against the best one. Turns are numbered as the replay's
//! frames (`tabula_room::replay`), so a pass has a number and no line.
//!
//! `--json` prints `{"game","turns":[{"turn","seat","dice","played",
//! "best","rank","plays","equity_lost"}],"per_seat":{"a":{"turns",
//! "equity_lost","mean_equity_lost","best_play_rate"},"b":{...}}}` (the
//! CLI's snake_case keys; the node's `…/analysis` answers the library's
//! camelCase form).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use serde_json::json;
use tabula_bots::analysis::{AnalysisError, SeatSummary};
use tabula_room::{GameRecord, SeatId};

/// `tabula analyse`.
#[derive(Debug, Args)]
pub struct AnalyseArgs {
    /// The game record (JSON), as a room publishes it
    /// (`GET /api/rooms/{id}/records` gives a list of them).
    pub record: PathBuf,
    /// Games rolled out for each of the best candidates of every turn (0:
    /// Hard's estimates only; rollouts are slower and better).
    #[arg(long, default_value_t = 0)]
    pub rollouts: u32,
    /// Seed of the rollouts' dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn seat_json(s: &SeatSummary) -> serde_json::Value {
    json!({
        "turns": s.turns,
        "equity_lost": s.equity_lost,
        "mean_equity_lost": s.mean_equity_lost,
        "best_play_rate": s.best_play_rate,
    })
}

pub fn run(a: &AnalyseArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&a.record)
        .with_context(|| format!("cannot read {}", a.record.display()))?;
    let record: GameRecord = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a game record", a.record.display()))?;
    let analysis = match tabula_bots::analysis::analyse(&record, a.rollouts, a.seed) {
        Ok(analysis) => analysis,
        Err(AnalysisError::NotDiceGame(_)) => {
            anyhow::bail!("no dice turns to analyse (Thud! records have none)")
        }
        Err(e) => return Err(e.into()),
    };
    if analysis.turns.is_empty() {
        anyhow::bail!("no turns to analyse: nobody finished a turn");
    }
    let per_seat = |seat: SeatId| match seat {
        SeatId::A => &analysis.per_seat.a,
        SeatId::B => &analysis.per_seat.b,
    };
    if a.json {
        let list: Vec<serde_json::Value> = analysis
            .turns
            .iter()
            .map(|m| {
                json!({
                    "turn": m.turn,
                    "seat": m.seat,
                    "dice": m.dice,
                    "played": m.played,
                    "best": m.best,
                    "rank": m.rank,
                    "plays": m.plays,
                    "equity_lost": m.equity_lost,
                })
            })
            .collect();
        let v = json!({
            "game": record.game,
            "turns": list,
            "per_seat": {"a": seat_json(per_seat(SeatId::A)), "b": seat_json(per_seat(SeatId::B))},
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    for m in &analysis.turns {
        let verdict = if m.rank == 1 {
            "best".to_string()
        } else {
            format!(
                "#{} of {}, best {}, lost {:.3}",
                m.rank, m.plays, m.best, m.equity_lost
            )
        };
        writeln!(
            out,
            "{:>3}. {:?} {}-{}  {:<28} {verdict}",
            m.turn, m.seat, m.dice[0], m.dice[1], m.played
        )?;
    }
    for seat in SeatId::BOTH {
        let s = per_seat(seat);
        writeln!(
            out,
            "seat {seat:?}: {} turns, equity lost {:.3} ({:.4} per turn), best play {:.0}%",
            s.turns,
            s.equity_lost,
            s.mean_equity_lost,
            100.0 * s.best_play_rate
        )?;
    }
    Ok(())
}
