//! `tabula analyse`: replay analysis of a finished long nardy or backgammon
//! game record. Every turn is replayed from its start; the hint function
//! (`tabula_bots::hint`) ranks every legal play for that roll, and the play
//! made is marked with the equity it lost against the best one.
//!
//! `--json` prints `{"game","turns":[{"turn","seat","dice","played",
//! "best","rank","plays","equity_lost"}],"per_seat":{"a":{"turns",
//! "equity_lost","mean_equity_lost","best_play_rate"},"b":{...}}}`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use serde_json::json;
use tabula_bots::hint::{self, Hint};
use tabula_room::{GameRecord, PlayedTurn, SeatId};

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

/// One analysed turn.
struct Marked {
    seat: SeatId,
    dice: [u8; 2],
    played: String,
    best: String,
    /// 1-based rank of the play made among the hints (0: not found).
    rank: usize,
    plays: usize,
    lost: f64,
}

/// Marks the play made (`played`) among `hints`, matched by final
/// position (`finish`; different step orders reach the same one): its
/// rank and the equity it lost against the first hint.
fn mark<P>(
    seat: SeatId,
    dice: tabula_dice::Dice,
    hints: &[Hint<P>],
    played: &P,
    finish: impl Fn(&P) -> Option<String>,
    name: impl Fn(&P) -> String,
) -> Marked {
    // The best play is the hints' first (Hard's ranking, re-ranked by
    // rollouts when there are any); a play the estimates like better than
    // it loses nothing.
    let best = hints.first().map_or(0.0, |h| h.equity);
    let found = finish(played).and_then(|end| {
        hints
            .iter()
            .position(|h| finish(&h.play).as_ref() == Some(&end))
    });
    let (rank, lost) = match found {
        Some(i) => (i + 1, (best - hints[i].equity).max(0.0)),
        None => (0, 0.0),
    };
    Marked {
        seat,
        dice: [dice.first(), dice.second()],
        played: name(played),
        best: hints.first().map(|h| name(&h.play)).unwrap_or_default(),
        rank,
        plays: hints.len(),
        lost,
    }
}

pub fn run(a: &AnalyseArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&a.record)
        .with_context(|| format!("cannot read {}", a.record.display()))?;
    let record: GameRecord = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a game record", a.record.display()))?;
    let turns = tabula_room::played_turns(&record).context("the record does not verify")?;
    if turns.is_empty() {
        anyhow::bail!("no dice turns to analyse (Thud! records have none)");
    }
    let mut marked = Vec::new();
    for turn in &turns {
        let m = match turn {
            PlayedTurn::LongNardy {
                seat,
                dice,
                start,
                steps,
            } => mark(
                *seat,
                *dice,
                &hint::long_nardy(start, *dice, a.rollouts, a.seed),
                steps,
                |play| {
                    let mut t = start.turn_with(*dice);
                    for s in play {
                        t.play_step(*s).ok()?;
                    }
                    t.finish().ok().map(|p| p.to_string())
                },
                |play| hint::long_notation(play),
            ),
            PlayedTurn::Backgammon {
                seat,
                dice,
                start,
                steps,
            } => mark(
                *seat,
                *dice,
                &hint::backgammon(start, *dice, a.rollouts, a.seed),
                steps,
                |play| {
                    let mut t = tabula_backgammon::Turn::new(start, *dice);
                    for &(f, to) in play {
                        t.step_to(f, to).ok()?;
                    }
                    t.finish().ok().map(|p| p.gnubg_id())
                },
                |play| hint::bg_notation(play),
            ),
            _ => anyhow::bail!("unknown kind of turn"),
        };
        marked.push(m);
    }
    let per_seat = |seat: SeatId| {
        let mine: Vec<&Marked> = marked.iter().filter(|m| m.seat == seat).collect();
        let n = mine.len().max(1) as f64;
        let lost: f64 = mine.iter().map(|m| m.lost).sum();
        let best = mine.iter().filter(|m| m.rank == 1).count() as f64;
        json!({
            "turns": mine.len(),
            "equity_lost": lost,
            "mean_equity_lost": lost / n,
            "best_play_rate": best / n,
        })
    };
    if a.json {
        let list: Vec<serde_json::Value> = marked
            .iter()
            .enumerate()
            .map(|(i, m)| {
                json!({
                    "turn": i + 1,
                    "seat": m.seat,
                    "dice": m.dice,
                    "played": m.played,
                    "best": m.best,
                    "rank": m.rank,
                    "plays": m.plays,
                    "equity_lost": m.lost,
                })
            })
            .collect();
        let v = json!({
            "game": record.game,
            "turns": list,
            "per_seat": {"a": per_seat(SeatId::A), "b": per_seat(SeatId::B)},
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    for (i, m) in marked.iter().enumerate() {
        let verdict = if m.rank == 1 {
            "best".to_string()
        } else {
            format!(
                "#{} of {}, best {}, lost {:.3}",
                m.rank, m.plays, m.best, m.lost
            )
        };
        writeln!(
            out,
            "{:>3}. {:?} {}-{}  {:<28} {verdict}",
            i + 1,
            m.seat,
            m.dice[0],
            m.dice[1],
            m.played
        )?;
    }
    for seat in SeatId::BOTH {
        let s = per_seat(seat);
        writeln!(
            out,
            "seat {seat:?}: {} turns, equity lost {:.3} ({:.4} per turn), best play {:.0}%",
            s["turns"],
            s["equity_lost"].as_f64().unwrap_or(0.0),
            s["mean_equity_lost"].as_f64().unwrap_or(0.0),
            100.0 * s["best_play_rate"].as_f64().unwrap_or(0.0)
        )?;
    }
    Ok(())
}
