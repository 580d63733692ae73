//! Hints: every legal play of a position and roll, ranked by the Hard
//! evaluation, with an estimated win probability and equity for the mover.
//!
//! The ranking is Hard's: the trained network's equity for every play
//! (backgammon [`crate::bg::net`], long nardy [`crate::long::net`]), then
//! the look-ahead over the opponent's 21 rolls for the best candidates
//! (backgammon: the best [`crate::HARD_NARDY_CANDIDATES`]; long nardy:
//! those of them within [`crate::long::FILTER_EQUITY`] of the best, as Hard
//! plays). Then, when a rollout budget is given, the best
//! [`HINT_ROLLOUT_CANDIDATES`] plays are rolled out to the end of the game
//! (the network's greedy play on both sides), the same dice sequences for
//! every candidate (so the comparison is paired), and re-ranked by their
//! mean result in points. Plays that were not rolled out get the
//! network's win probability and equity (gammons, mars and
//! koks counted as the scoring counts them; the look-ahead's for the
//! candidates). Deterministic for a seed; budgets are counts.
//!
//! Once every play leaves both sides bearing off (all checkers of each in
//! his home board), the ranking is the bear-off database's
//! ([`crate::bearoff`]), as Hard's play is: each play's score and equity
//! the race equity (gammons, backgammons / mars counted where the scoring
//! counts them), its win the race's
//! win probability, and nothing is rolled out (`rollouts` 0): the
//! database is exact where a rollout would only estimate.
//!
//! The `_after` functions (the server's) take a cancel flag, looked at
//! before each rollout: once it is set they return nothing, so a hint
//! whose asker left stops costing CPU within one rollout (a few ms)
//! rather than running its whole budget.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::Scoring;
use tabula_dice::{Dice, DiceSource, SeededDice};

use crate::level::HARD_NARDY_CANDIDATES;

/// A long nardy play as the wire and the CLI write it: `24-18,18-13`.
pub fn long_notation(steps: &[tabula_long::Step]) -> String {
    steps
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A backgammon play as GNU Backgammon reads it: `from/to` steps in the
/// mover's numbering, `bar` and `off` spelled out (`bar/22 6/off`).
pub fn bg_notation(steps: &[(u8, u8)]) -> String {
    let spot = |p: u8| match p {
        25 => "bar".to_string(),
        0 => "off".to_string(),
        n => n.to_string(),
    };
    steps
        .iter()
        .map(|&(f, t)| format!("{}/{}", spot(f), spot(t)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A flag nobody sets: the whole-turn functions cannot be cancelled.
static NEVER: AtomicBool = AtomicBool::new(false);

/// How many of the best plays are rolled out (the rest keep Hard's order
/// after them).
pub const HINT_ROLLOUT_CANDIDATES: usize = 4;

/// A rollout stops after this many plies and scores the position by its
/// evaluation instead (no real game lasts this long).
const MAX_PLIES: u32 = 1000;

/// One legal play and its estimate, for the side on roll.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hint<P> {
    /// The play.
    pub play: P,
    /// Hard's score of the play, its equity in points per game: the
    /// look-ahead's for the best candidates and the network's (or the
    /// bear-off database's) for the rest. Higher is better.
    pub score: f64,
    /// The estimated chance that the mover wins the game.
    pub win: f64,
    /// The estimated result in points per game for the mover (−3…3 in
    /// backgammon with gammons).
    pub equity: f64,
    /// Games rolled out for `win` and `equity` (0: from the evaluation).
    pub rollouts: u32,
}

/// The best `n` indices of `statics`, best first.
fn best_n(statics: &[f64], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..statics.len()).collect();
    order.sort_by(|&a, &b| statics[b].total_cmp(&statics[a]));
    order.truncate(n);
    order
}

/// Order of the plays by Hard's score, and the scores: the look-ahead for
/// the candidates `top` (so those come first), the static evaluation for
/// the rest.
fn hard_order(
    statics: &[f64],
    top: Vec<usize>,
    deep: impl Fn(usize) -> f64,
) -> (Vec<usize>, Vec<f64>) {
    let mut order: Vec<usize> = (0..statics.len()).collect();
    order.sort_by(|&a, &b| statics[b].total_cmp(&statics[a]));
    let mut scores = statics.to_vec();
    for &i in &top {
        scores[i] = deep(i);
    }
    // The deep-scored candidates first, by their deep score; then the
    // rest, by their static one.
    let mut ranked = top;
    ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let rest: Vec<usize> = order.into_iter().filter(|i| !ranked.contains(i)).collect();
    ranked.extend(rest);
    (ranked, scores)
}

/// A hint's rollouts: how many per candidate, the seed of their dice, and
/// the flag that stops them.
#[derive(Clone, Copy)]
struct Rollouts<'a> {
    count: u32,
    seed: u64,
    cancel: &'a AtomicBool,
}

/// Re-ranks `order` after rolling out its best candidates:
/// `rollout(i, dice, rng)` plays play `i` out and gives the mover's signed
/// points. Rollout `k` of every candidate gets the same dice stream (and
/// the same stream for Medium's ties), so candidates are compared on the
/// same luck.
fn rank<P: Clone>(
    plays: &[P],
    order: Vec<usize>,
    scores: &[f64],
    estimate: impl Fn(usize) -> (f64, f64),
    budget: Rollouts<'_>,
    mut rollout: impl FnMut(usize, &mut SeededDice, &mut ChaCha8Rng) -> i32,
) -> Vec<Hint<P>> {
    let Rollouts {
        count: rollouts,
        seed,
        cancel,
    } = budget;
    let mut rolled: Vec<Hint<P>> = Vec::new();
    let mut rest: Vec<Hint<P>> = Vec::new();
    for (rank, &i) in order.iter().enumerate() {
        if rollouts > 0 && rank < HINT_ROLLOUT_CANDIDATES {
            let mut results: Vec<i32> = Vec::with_capacity(rollouts as usize);
            for k in 0..rollouts {
                if cancel.load(Ordering::Relaxed) {
                    return Vec::new();
                }
                let k = u64::from(k);
                let mut dice = SeededDice::new(seed ^ (k << 20));
                let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(k));
                results.push(rollout(i, &mut dice, &mut rng));
            }
            let n = f64::from(rollouts);
            rolled.push(Hint {
                play: plays[i].clone(),
                score: scores[i],
                win: results.iter().filter(|&&r| r > 0).count() as f64 / n,
                equity: f64::from(results.iter().sum::<i32>()) / n,
                rollouts,
            });
        } else {
            let (win, equity) = estimate(i);
            rest.push(Hint {
                play: plays[i].clone(),
                score: scores[i],
                win,
                equity,
                rollouts: 0,
            });
        }
    }
    rolled.sort_by(|a, b| b.equity.total_cmp(&a.equity));
    rolled.extend(rest);
    rolled
}

/// Backgammon: every legal play for `dice` (steps `(from, to)` in the
/// mover's numbering, 25 = bar, 0 = off), best first, for a game scored
/// by `scoring` (scores, equities and rollouts count gammons and
/// backgammons only with [`Scoring::Gammons`], as Hard plays). Empty when
/// no play is legal.
pub fn backgammon(
    pos: &tabula_backgammon::Position,
    dice: Dice,
    scoring: Scoring,
    rollouts: u32,
    seed: u64,
) -> Vec<Hint<Vec<(u8, u8)>>> {
    backgammon_whole(pos, dice, scoring, rollouts, seed, &NEVER)
}

fn backgammon_whole(
    pos: &tabula_backgammon::Position,
    dice: Dice,
    scoring: Scoring,
    rollouts: u32,
    seed: u64,
    cancel: &AtomicBool,
) -> Vec<Hint<Vec<(u8, u8)>>> {
    if pos.is_over() {
        return Vec::new();
    }
    let legal = pos.legal_plays(dice);
    let plays: Vec<Vec<(u8, u8)>> = legal
        .iter()
        .map(|(p, _)| p.steps().iter().map(|s| (s.from(), s.to())).collect())
        .collect();
    let finals: Vec<tabula_backgammon::Position> = legal.iter().map(|(_, f)| *f).collect();
    rank_backgammon(pos, plays, finals, scoring, rollouts, seed, cancel)
}

/// Backgammon in the middle of a turn: `played` steps (`(from, to)`) of
/// the roll already made from `pos` (the turn's start). Every distinct way
/// to finish the turn, as its remaining steps, ranked as [`backgammon`]
/// ranks whole plays (the same final positions get the same scores).
/// Empty when the steps are not a legal start of the turn, nothing is
/// left to play, or `cancel` was set.
pub fn backgammon_after(
    pos: &tabula_backgammon::Position,
    dice: Dice,
    played: &[(u8, u8)],
    scoring: Scoring,
    rollouts: u32,
    seed: u64,
    cancel: &AtomicBool,
) -> Vec<Hint<Vec<(u8, u8)>>> {
    if played.is_empty() {
        return backgammon_whole(pos, dice, scoring, rollouts, seed, cancel);
    }
    if pos.is_over() {
        return Vec::new();
    }
    let mut t = tabula_backgammon::Turn::new(pos, dice);
    for &(from, to) in played {
        if t.step_to(from, to).is_err() {
            return Vec::new();
        }
    }
    if t.is_complete() {
        return Vec::new();
    }
    let (plays, finals) = t
        .completions()
        .into_iter()
        .map(|(rest, f)| (rest.iter().map(|s| (s.from(), s.to())).collect(), f))
        .unzip();
    rank_backgammon(pos, plays, finals, scoring, rollouts, seed, cancel)
}

fn rank_backgammon(
    pos: &tabula_backgammon::Position,
    plays: Vec<Vec<(u8, u8)>>,
    finals: Vec<tabula_backgammon::Position>,
    scoring: Scoring,
    rollouts: u32,
    seed: u64,
    cancel: &AtomicBool,
) -> Vec<Hint<Vec<(u8, u8)>>> {
    if let Some(exact) = crate::bg::bearoff_scores(&finals, scoring) {
        let (order, scores) =
            hard_order(&exact, best_n(&exact, HARD_NARDY_CANDIDATES), |i| exact[i]);
        return rank(
            &plays,
            order,
            &scores,
            |i| {
                let r = crate::bearoff::bg_after(&finals[i]).unwrap_or_default();
                (r.win, scores[i])
            },
            Rollouts {
                count: 0,
                seed,
                cancel,
            },
            |_, _, _| 0,
        );
    }
    let statics: Vec<f64> = finals
        .iter()
        .map(|f| crate::bg::hard_static(f, scoring))
        .collect();
    let (mut order, mut scores) = hard_order(
        &statics,
        crate::bg::hard_candidates(&finals, &statics, scoring),
        |i| crate::bg::hard_score(&finals[i], scoring),
    );
    // Hard's second look, two rolls ahead: those plays first, by it.
    if let Some(mut two) = crate::bg::two_ply_scores(&finals, &scores, &order, scoring) {
        two.sort_by(|a, b| b.1.total_cmp(&a.1));
        for &(i, v) in &two {
            scores[i] = v;
        }
        let front: Vec<usize> = two.iter().map(|&(i, _)| i).collect();
        let rest = order.into_iter().filter(|i| !front.contains(i));
        order = front.iter().copied().chain(rest).collect();
    }
    let me = pos.turn();
    let net = crate::bg::net::Net::shipped();
    rank(
        &plays,
        order,
        &scores,
        // The network's value under the scoring; its look-ahead score
        // where it was computed.
        |i| match finals[i].outcome(scoring) {
            Some(o) if o.winner == me => (1.0, f64::from(o.points)),
            Some(o) => (0.0, -f64::from(o.points)),
            None => (
                1.0 - crate::bg::win_probability(&finals[i].pass_turn(), true),
                scores[i],
            ),
        },
        Rollouts {
            count: rollouts,
            seed,
            cancel,
        },
        |i, dice, _rng| {
            let mut p = finals[i];
            for _ in 0..MAX_PLIES {
                if let Some(o) = p.outcome(scoring) {
                    let pts = i32::from(o.points);
                    return if o.winner == me { pts } else { -pts };
                }
                p = p.pass_turn();
                let options = p.legal_positions(dice.roll());
                if let Some(best) = crate::bg::search::best_static(net, &options, scoring) {
                    p = options[best];
                }
            }
            0
        },
    )
}

/// Long nardy: every legal play for `dice` (a complete step sequence in
/// seed-000 numbering, playable in order), best first. Empty when no play
/// is legal.
pub fn long_nardy(
    pos: &tabula_long::Position,
    dice: Dice,
    rollouts: u32,
    seed: u64,
) -> Vec<Hint<Vec<tabula_long::Step>>> {
    long_nardy_whole(pos, dice, rollouts, seed, &NEVER)
}

fn long_nardy_whole(
    pos: &tabula_long::Position,
    dice: Dice,
    rollouts: u32,
    seed: u64,
    cancel: &AtomicBool,
) -> Vec<Hint<Vec<tabula_long::Step>>> {
    if pos.is_game_over() {
        return Vec::new();
    }
    let finals = pos.legal_moves(dice);
    let plays: Vec<Vec<tabula_long::Step>> = finals
        .iter()
        .map(|f| crate::long::sequence_to(pos, dice, f).unwrap_or_default())
        .collect();
    rank_long(pos, plays, finals, rollouts, seed, cancel)
}

/// Long nardy in the middle of a turn: `played` steps of the roll already
/// made from `pos` (the turn's start). Every distinct way to finish the
/// turn, as its remaining steps, ranked as [`long_nardy`] ranks whole
/// plays. Empty when the steps are not a legal start of the turn,
/// nothing is left to play, or `cancel` was set.
pub fn long_nardy_after(
    pos: &tabula_long::Position,
    dice: Dice,
    played: &[tabula_long::Step],
    rollouts: u32,
    seed: u64,
    cancel: &AtomicBool,
) -> Vec<Hint<Vec<tabula_long::Step>>> {
    if played.is_empty() {
        return long_nardy_whole(pos, dice, rollouts, seed, cancel);
    }
    if pos.is_game_over() {
        return Vec::new();
    }
    let mut t = tabula_long::Turn::new(pos, dice);
    for &step in played {
        if t.play_step(step).is_err() {
            return Vec::new();
        }
    }
    let mut plays = Vec::new();
    let mut finals = Vec::new();
    for seq in t.continuations_by_result() {
        let mut u = t.clone();
        if seq.steps().iter().all(|&st| u.play_step(st).is_ok())
            && let Ok(f) = u.finish()
        {
            plays.push(seq.steps().to_vec());
            finals.push(f);
        }
    }
    rank_long(pos, plays, finals, rollouts, seed, cancel)
}

fn rank_long(
    pos: &tabula_long::Position,
    plays: Vec<Vec<tabula_long::Step>>,
    finals: Vec<tabula_long::Position>,
    rollouts: u32,
    seed: u64,
    cancel: &AtomicBool,
) -> Vec<Hint<Vec<tabula_long::Step>>> {
    let me = pos.turn();
    if let Some(exact) = crate::long::bearoff_scores(me, &finals) {
        let (order, scores) =
            hard_order(&exact, best_n(&exact, HARD_NARDY_CANDIDATES), |i| exact[i]);
        return rank(
            &plays,
            order,
            &scores,
            |i| match (finals[i].outcome(), crate::bearoff::long_race(&finals[i])) {
                (Some(o), _) => (if o.winner == me { 1.0 } else { 0.0 }, scores[i]),
                (None, Some(r)) => (1.0 - r.win, scores[i]),
                (None, None) => (0.5, scores[i]),
            },
            Rollouts {
                count: 0,
                seed,
                cancel,
            },
            |_, _, _| 0,
        );
    }
    let statics = crate::long::net_statics(me, &finals, true);
    let (order, scores) = hard_order(&statics, crate::long::candidates(&statics), |i| {
        crate::long::net_deep(&finals[i], me, true)
    });
    let net = crate::long::net::Net::shipped();
    rank(
        &plays,
        order,
        &scores,
        // The network's equity counts mars and koks as the scoring does;
        // its look-ahead score where it was computed.
        |i| match finals[i].outcome() {
            Some(o) if o.winner == me => (1.0, f64::from(o.points)),
            Some(o) => (0.0, -f64::from(o.points)),
            None => (f64::from(net.evaluate(&finals[i], me).win), scores[i]),
        },
        Rollouts {
            count: rollouts,
            seed,
            cancel,
        },
        // Both sides play the network's best play (no look-ahead).
        |i, dice, _rng| {
            let mut scratch = crate::long::net::Scratch::new(net);
            let mut p = finals[i];
            for _ in 0..MAX_PLIES {
                if let Some(o) = p.outcome() {
                    let pts = i32::from(o.points);
                    return if o.winner == me { pts } else { -pts };
                }
                let mover = p.turn();
                let options = p.legal_moves(dice.roll());
                let best = crate::long::search::greedy(net, &mut scratch, mover, &options, true)
                    .unwrap_or(0);
                p = options.get(best).copied().unwrap_or_else(|| p.pass_turn());
            }
            0
        },
    )
}
