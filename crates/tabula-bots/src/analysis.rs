//! Replay analysis of a finished long nardy or backgammon game: every turn
//! replayed from its start, every legal play of its roll ranked by the
//! hint functions ([`crate::hint`]: Hard's ranking, re-ranked by rollouts
//! when there are any), and the play made marked with its rank and the
//! equity it lost against the best. The library behind `tabula analyse`
//! and the node's `GET /api/games/{room}/{number}/analysis`.
//!
//! Turns are numbered as the replay's frames
//! ([`tabula_room::replay()`]): turn N is `frames[N]`. A pass (no legal
//! play: nothing to choose) has a frame and no analysis entry, so the
//! numbers skip it; so does a turn cut short by a resignation or a timeout
//! (its play was never finished). Cube actions have no frames.
//!
//! The JSON (camelCase):
//!
//! ```json
//! {"turns":[{"turn":1,"seat":"a","dice":[6,3],"played":"24-18,24-21",
//!            "best":"24-18,24-21","rank":1,"plays":12,"equityLost":0.0}],
//!  "perSeat":{"a":{"turns":30,"equityLost":0.41,"meanEquityLost":0.0137,
//!                  "bestPlayRate":0.8},"b":{...}}}
//! ```
//!
//! `played` and `best` are written as the replay's frames write a turn
//! ([`tabula_room::turn_notation`]): long nardy `24-18,18-15`, backgammon
//! GNU Backgammon's standard notation (`24/18 13/11*`).

use serde::{Deserialize, Serialize};
use tabula_dice::Dice;
use tabula_room::{GameKind, GameRecord, PlayedTurn, SeatId, VerifyError};

use crate::hint::{self, Hint};

/// The analysis of one game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// Each analysed turn, in order.
    pub turns: Vec<TurnAnalysis>,
    /// Totals per seat.
    pub per_seat: PerSeat,
}

/// One analysed turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnAnalysis {
    /// Its frame in the replay (`frames[turn]`); 1 is the first turn.
    pub turn: usize,
    /// Who played it.
    pub seat: SeatId,
    /// The roll.
    pub dice: [u8; 2],
    /// The play made.
    pub played: String,
    /// The best play by the ranking.
    pub best: String,
    /// 1-based rank of the play made among every legal play (matched by
    /// final position; 0: not among them, which a verified record never
    /// gives).
    pub rank: usize,
    /// How many distinct legal plays the roll had.
    pub plays: usize,
    /// The equity (points per game) the play made lost against the best
    /// (0 for the best; never negative).
    pub equity_lost: f64,
}

/// Totals of both seats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerSeat {
    /// Seat A (white).
    pub a: SeatSummary,
    /// Seat B (black).
    pub b: SeatSummary,
}

/// One seat's totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatSummary {
    /// Turns analysed.
    pub turns: usize,
    /// Equity lost over them.
    pub equity_lost: f64,
    /// Equity lost per turn (0 without turns).
    pub mean_equity_lost: f64,
    /// The share of turns played with the best play (0 without turns).
    pub best_play_rate: f64,
}

/// Why a record cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// The record does not check out ([`tabula_room::verify`]).
    #[error("the record does not verify: {0}")]
    Verify(#[from] VerifyError),
    /// A game without dice turns (Thud!).
    #[error("{0:?} has no dice turns to analyse")]
    NotDiceGame(GameKind),
}

/// Analyses a finished long nardy or backgammon game: each turn its steps
/// finished, numbered by its replay frame, ranked by the hints with
/// `rollouts` games per candidate (0: Hard's estimates only) on dice from
/// `seed`. Deterministic for its inputs.
pub fn analyse(record: &GameRecord, rollouts: u32, seed: u64) -> Result<Analysis, AnalysisError> {
    if record.game == GameKind::Thud {
        return Err(AnalysisError::NotDiceGame(record.game));
    }
    let played = tabula_room::played_turn_frames(record)?;
    // Backgammon's hints count gammons only where the game did.
    let scoring = record.setup.options.backgammon.scoring;
    let mut turns = Vec::with_capacity(played.len());
    for (frame, turn) in &played {
        let m = match turn {
            PlayedTurn::LongNardy {
                seat,
                dice,
                start,
                steps,
            } => mark(
                (*frame, *seat, *dice),
                &hint::long_nardy(start, *dice, rollouts, seed),
                steps,
                |play| {
                    let mut t = start.turn_with(*dice);
                    for s in play {
                        t.play_step(*s).ok()?;
                    }
                    t.finish().ok().map(|p| p.to_string())
                },
                |play| {
                    tabula_room::turn_notation(&PlayedTurn::LongNardy {
                        seat: *seat,
                        dice: *dice,
                        start: *start,
                        steps: play.clone(),
                    })
                },
            ),
            PlayedTurn::Backgammon {
                seat,
                dice,
                start,
                steps,
            } => mark(
                (*frame, *seat, *dice),
                &hint::backgammon(start, *dice, scoring, rollouts, seed),
                steps,
                |play| {
                    let mut t = tabula_backgammon::Turn::new(start, *dice);
                    for &(f, to) in play {
                        t.step_to(f, to).ok()?;
                    }
                    t.finish().ok().map(|p| p.gnubg_id())
                },
                |play| {
                    tabula_room::turn_notation(&PlayedTurn::Backgammon {
                        seat: *seat,
                        dice: *dice,
                        start: *start,
                        steps: play.clone(),
                    })
                },
            ),
            // A kind of turn this analyser does not know: not analysed.
            _ => continue,
        };
        turns.push(m);
    }
    let per_seat = PerSeat {
        a: summary(&turns, SeatId::A),
        b: summary(&turns, SeatId::B),
    };
    Ok(Analysis { turns, per_seat })
}

/// Marks the play made (`played`) among `hints`, matched by final position
/// (`finish`; different step orders reach the same one): its rank and the
/// equity it lost against the first hint.
fn mark<P>(
    (turn, seat, dice): (usize, SeatId, Dice),
    hints: &[Hint<P>],
    played: &P,
    finish: impl Fn(&P) -> Option<String>,
    name: impl Fn(&P) -> String,
) -> TurnAnalysis {
    // The best play is the hints' first (Hard's ranking, re-ranked by
    // rollouts when there are any); a play the estimates like better than
    // it loses nothing.
    let best = hints.first().map_or(0.0, |h| h.equity);
    let found = finish(played).and_then(|end| {
        hints
            .iter()
            .position(|h| finish(&h.play).as_ref() == Some(&end))
    });
    let (rank, equity_lost) = match found.and_then(|i| Some((i, hints.get(i)?))) {
        Some((i, h)) => (i + 1, (best - h.equity).max(0.0)),
        None => (0, 0.0),
    };
    TurnAnalysis {
        turn,
        seat,
        dice: [dice.first(), dice.second()],
        played: name(played),
        best: hints.first().map(|h| name(&h.play)).unwrap_or_default(),
        rank,
        plays: hints.len(),
        equity_lost,
    }
}

fn summary(turns: &[TurnAnalysis], seat: SeatId) -> SeatSummary {
    let mine: Vec<&TurnAnalysis> = turns.iter().filter(|t| t.seat == seat).collect();
    let n = mine.len().max(1) as f64;
    let lost: f64 = mine.iter().map(|t| t.equity_lost).sum();
    let best = mine.iter().filter(|t| t.rank == 1).count() as f64;
    SeatSummary {
        turns: mine.len(),
        equity_lost: lost,
        mean_equity_lost: lost / n,
        best_play_rate: best / n,
    }
}
