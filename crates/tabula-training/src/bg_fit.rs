//! Supervised training of the backgammon network on its own look-ahead,
//! as GNU Backgammon's and wildbg's networks are trained on deeper
//! evaluations than their own: the network's 0-ply judgement of a
//! position is moved toward its 1-ply judgement of it (the average over
//! the opponent's 21 rolls of the position after its best reply). Hard
//! searches one roll ahead on top of the network, so a network that has
//! learnt its own 1-ply sees, at Hard's leaves, about what the old one saw
//! two rolls ahead.
//!
//! Three steps, each deterministic for its inputs (whatever the thread
//! count): [`sample`](tabula_bots::bg::search::sample) plays self-play games by the network's greedy play
//! (a share of moves at random, to see positions it would not reach) and
//! keeps every position after a move; [`label`] judges each at 1-ply
//! ([`one_ply_probs`]) or, as Hard looks, at 2-ply ([`two_ply_probs`]); [`fit`] takes gradient steps toward the labels in
//! a seeded order, epoch by epoch, and reports the mean squared error on
//! a held-out part. `tabula fit-bg` runs them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::{Position, Scoring};
use tabula_bots::bg::net::{Buf, Near, Net, OUTPUTS, Probs};
use tabula_dice::Dice;

use crate::grad::{self, Scratch};

/// The probabilities for the side that moved in `after` looking one roll
/// ahead: over the opponent's 21 rolls, the network's judgement of the
/// position after its best reply (by equity), seen from the mover's side
/// and weighted by the roll's chance. A finished game answers its outcome.
pub fn one_ply_probs(net: &Net, after: &Position, buf: &mut Vec<Position>) -> Probs {
    if let Some(o) = Probs::of_outcome(after) {
        return o;
    }
    let opp = after.pass_turn();
    let mut near = Near::new(net, opp.board());
    let mut judge = |p: &Position| Probs::of_outcome(p).unwrap_or_else(|| near.probs(p.board()));
    over_rolls(|dice| {
        opp.legal_positions_into(dice, buf);
        if buf.is_empty() {
            // The opponent cannot move: the position as the mover left
            // it, judged from the opponent's side (as `one_ply` does).
            return judge(&opp);
        }
        let mut best = judge(&buf[0]);
        for p in &buf[1..] {
            let e = judge(p);
            if e.equity() > best.equity() {
                best = e;
            }
        }
        best
    })
}

/// The mover's probabilities over the opponent's 21 rolls, each weighted
/// by its chance: `reply(dice)` is the opponent's, after its reply to
/// that roll.
fn over_rolls(mut reply: impl FnMut(Dice) -> Probs) -> Probs {
    let mut sum = [0.0f32; 5];
    for dice in Dice::ALL_21 {
        let mine = reply(dice).flip();
        let w = dice.probability() as f32;
        sum[0] += w * mine.win;
        sum[1] += w * mine.win_gammon;
        sum[2] += w * mine.lose_gammon;
        sum[3] += w * mine.win_backgammon;
        sum[4] += w * mine.lose_backgammon;
    }
    Probs {
        win: sum[0],
        win_gammon: sum[1],
        lose_gammon: sum[2],
        win_backgammon: sum[3],
        lose_backgammon: sum[4],
    }
}

/// The probabilities for the side that moved in `after` looking two rolls
/// ahead, as Hard's [`tabula_bots::bg::search::two_ply`] judges: over the
/// opponent's 21 rolls, its best reply by the network alone, then
/// [`one_ply_probs`] of that reply (seen from the mover's side). About 21
/// times [`one_ply_probs`]' work.
pub fn two_ply_probs(
    net: &Net,
    after: &Position,
    buf: &mut Vec<Position>,
    deeper: &mut Vec<Position>,
) -> Probs {
    if let Some(o) = Probs::of_outcome(after) {
        return o;
    }
    let opp = after.pass_turn();
    let mut near = Near::new(net, opp.board());
    over_rolls(|dice| {
        opp.legal_positions_into(dice, buf);
        match tabula_bots::bg::search::best_near(&mut near, buf, Scoring::Gammons) {
            Some(i) => one_ply_probs(net, &buf[i], deeper),
            // The opponent cannot move: the board as the mover left it,
            // the mover to roll.
            None => one_ply_probs(net, &opp, deeper),
        }
    })
}

/// How deep [`label`] looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// [`one_ply_probs`].
    OnePly,
    /// [`two_ply_probs`].
    TwoPly,
}

/// Every position's label at `depth`, on `threads` threads (the same
/// answer for any count).
pub fn label(net: &Net, positions: &[Position], depth: Depth, threads: usize) -> Vec<Probs> {
    let threads = threads.max(1);
    let chunk = positions.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = positions
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut buf = Vec::with_capacity(64);
                    let mut deeper = Vec::with_capacity(64);
                    part.iter()
                        .map(|p| match depth {
                            Depth::OnePly => one_ply_probs(net, p, &mut buf),
                            Depth::TwoPly => two_ply_probs(net, p, &mut buf, &mut deeper),
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Checkers each side has back on `b` (the mover's numbering): on the
/// bar or in the other side's home board. `[the mover's, the
/// opponent's]`.
pub fn back_checkers(b: &[i8; 26]) -> [i32; 2] {
    let mine: i32 = b[19..=25].iter().map(|&n| i32::from(n.max(0))).sum();
    let theirs: i32 = b[..=6].iter().map(|&n| i32::from((-n).max(0))).sum();
    [mine, theirs]
}

/// The positions [`label_rollouts`] labels by default: a side with at
/// least three checkers back (holding games, back games, checkers
/// trapped behind a prime), where the game turns on timing many rolls
/// away that a 1-ply look does not see, and where Hard lost most against
/// gnubg (RESULTS.md).
pub fn deep_back(p: &Position) -> bool {
    back_checkers(p.board()).iter().any(|&n| n >= 3)
}

/// One truncated rollout from `after` (the side that moved in it is
/// "us"; the other side rolls next): `first` is the other side's first
/// roll, later rolls come from `rng`; both sides play the network's
/// greedy play for `plies` moves at most, then the network judges the
/// position. The probabilities for us (a finished game: its outcome).
pub fn rollout_probs(
    net: &Net,
    after: &Position,
    first: Dice,
    plies: usize,
    rng: &mut ChaCha8Rng,
    buf: &mut Vec<Position>,
) -> Probs {
    let mut h = Buf::new(net);
    let mut pos = *after;
    let mut near = Near::new(net, pos.board());
    // Whether the side that moved in `pos` is us.
    let mut ours = true;
    let mut dice = first;
    for _ in 0..plies {
        if pos.is_over() {
            break;
        }
        let next = pos.pass_turn();
        next.legal_positions_into(dice, buf);
        near.reset(next.board());
        pos = match tabula_bots::bg::search::best_near(&mut near, buf, Scoring::Gammons) {
            Some(i) => buf[i],
            None => next,
        };
        ours = !ours;
        dice = Dice::new(rng.random_range(1..=6u8), rng.random_range(1..=6u8))
            .unwrap_or(Dice::ALL_21[0]);
    }
    let p = net.evaluate_in(&pos, &mut h);
    if ours { p } else { p.flip() }
}

/// Labels again by truncated rollouts the positions `which` picks:
/// each the mean of `games` [`rollout_probs`] of at most `plies` moves,
/// the other side's first roll going through all 36 in turn (so `games`
/// a multiple of 36 sees each equally), the later dice from `seed` and
/// the position's index, so any number of `threads` gives the same
/// labels. The other labels are kept. Returns how many were labelled.
pub fn label_rollouts(
    net: &Net,
    data: &mut [(Position, Probs)],
    which: impl Fn(&Position) -> bool + Sync,
    games: usize,
    plies: usize,
    seed: u64,
    threads: usize,
) -> usize {
    let threads = threads.max(1);
    let chunk = data.len().div_ceil(threads).max(1);
    let which = &which;
    std::thread::scope(|s| {
        let handles: Vec<_> = data
            .chunks_mut(chunk)
            .enumerate()
            .map(|(c, part)| {
                s.spawn(move || {
                    let mut buf = Vec::with_capacity(64);
                    let mut done = 0;
                    for (k, (p, label)) in part.iter_mut().enumerate() {
                        if !which(p) || games == 0 {
                            continue;
                        }
                        let index = (c * chunk + k) as u64;
                        let mut rng = ChaCha8Rng::seed_from_u64(
                            seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        );
                        let mut sum = [0.0f32; 5];
                        for g in 0..games {
                            let (a, b) = ((g % 36) / 6, g % 6);
                            let first =
                                Dice::new(a as u8 + 1, b as u8 + 1).unwrap_or(Dice::ALL_21[0]);
                            let r = rollout_probs(net, p, first, plies, &mut rng, &mut buf);
                            for (s, v) in sum.iter_mut().zip([
                                r.win,
                                r.win_gammon,
                                r.lose_gammon,
                                r.win_backgammon,
                                r.lose_backgammon,
                            ]) {
                                *s += v;
                            }
                        }
                        let n = games as f32;
                        *label = Probs {
                            win: sum[0] / n,
                            win_gammon: sum[1] / n,
                            lose_gammon: sum[2] / n,
                            win_backgammon: sum[3] / n,
                            lose_backgammon: sum[4] / n,
                        };
                        done += 1;
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    })
}

/// The file form of labelled positions ([`write_data`]): this magic, the
/// count (u64 LE), then per position its mover-relative board (26 `i8`)
/// and its label (win, win gammon, lose gammon: `f32` LE).
const DATA_MAGIC: &[u8; 8] = b"TBGFIT1\0";
const RECORD: usize = 26 + 4 * OUTPUTS;

/// Labelled positions in their file form, to fit again without labelling
/// again (`tabula fit-bg --data`).
pub fn write_data(data: &[(Position, Probs)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + RECORD * data.len());
    out.extend_from_slice(DATA_MAGIC);
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    for (p, t) in data {
        out.extend(p.board().iter().map(|&c| c as u8));
        for v in [t.win, t.win_gammon, t.lose_gammon] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Parses [`write_data`]'s form; `None` for anything else (a wrong magic
/// or length, a board that is not a position, a label that is not a
/// probability).
pub fn read_data(bytes: &[u8]) -> Option<Vec<(Position, Probs)>> {
    if bytes.len() < 16 || &bytes[..8] != DATA_MAGIC {
        return None;
    }
    let n = usize::try_from(u64::from_le_bytes(bytes[8..16].try_into().ok()?)).ok()?;
    let body = &bytes[16..];
    if body.len() != n.checked_mul(RECORD)? {
        return None;
    }
    body.chunks_exact(RECORD)
        .map(|r| {
            let mut board = [0i8; 26];
            for (b, &c) in board.iter_mut().zip(&r[..26]) {
                *b = c as i8;
            }
            let f = |i: usize| {
                let at = 26 + 4 * i;
                f32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
            };
            let pos = Position::from_board(board, tabula_backgammon::Side::White).ok()?;
            // Probabilities, up to the rounding of a sum of 21 in f32.
            if !(0..OUTPUTS).all(|i| (-1e-3..=1.0 + 1e-3).contains(&f(i))) {
                return None;
            }
            Some((
                pos,
                Probs {
                    win: f(0),
                    win_gammon: f(1),
                    lose_gammon: f(2),
                    // The labels are the network's three outputs only.
                    win_backgammon: 0.0,
                    lose_backgammon: 0.0,
                },
            ))
        })
        .collect()
}

/// How [`fit`] trains.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitConfig {
    /// Passes over the training part.
    pub epochs: u32,
    /// The first epoch's learning rate; each later epoch's is lower, down
    /// to a tenth of it in the last.
    pub alpha: f32,
    /// The share of the positions, the last ones, held out to measure
    /// the error on.
    pub holdout: f64,
    /// Seed of the order of the steps.
    pub seed: u64,
}

/// The mean squared error (over the three outputs) of the network on
/// `data`.
pub fn mse(net: &Net, data: &[(Position, Probs)]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let mut h = Buf::new(net);
    let total: f64 = data
        .iter()
        .map(|(p, t)| {
            let y = net.evaluate_in(p, &mut h);
            let d = [
                y.win - t.win,
                y.win_gammon - t.win_gammon,
                y.lose_gammon - t.lose_gammon,
            ];
            d.iter().map(|x| f64::from(x * x)).sum::<f64>() / OUTPUTS as f64
        })
        .sum();
    total / data.len() as f64
}

/// Trains `net` toward the labels: holds out the last `holdout` share of
/// `data` (from [`sample`](tabula_bots::bg::search::sample), the positions of the last games: positions of
/// one game are alike, so a random share would measure memory, not
/// judgement), then takes one gradient step per training position per
/// epoch in a seeded order. Calls `report(epoch, held-out error, the
/// network)` before the first epoch (epoch 0) and after each. The
/// steps move the hidden layer, so a backgammon head is dropped (fit a
/// new one after: [`fit_backgammons`](crate::bg_head::fit_backgammons)).
pub fn fit(
    net: &mut Net,
    data: &[(Position, Probs)],
    config: FitConfig,
    mut report: impl FnMut(u32, f64, &Net),
) {
    net.drop_backgammons();
    let held_n = (data.len() as f64 * config.holdout.clamp(0.0, 1.0)).round() as usize;
    let (train, held) = data.split_at(data.len() - held_n.min(data.len()));
    let mut train = train.to_vec();
    report(0, mse(net, held), net);
    run_epochs(config, &mut train, |epoch, alpha, train| {
        let mut s = Scratch::default();
        for (p, t) in train {
            grad::step_toward_bg(net, p, t, alpha, &mut s);
        }
        report(epoch, mse(net, held), net);
    });
}

/// The epochs of a fit: for each (numbered from 1), its learning rate,
/// linear from `config.alpha` down to a tenth of it in the last, and
/// `items` in a new order (Fisher–Yates, by a generator seeded with
/// `config.seed`), handed to `epoch`.
pub(crate) fn run_epochs<T>(
    config: FitConfig,
    items: &mut [T],
    mut epoch: impl FnMut(u32, f32, &[T]),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let epochs = config.epochs.max(1);
    for e in 0..epochs {
        let frac = if epochs == 1 {
            0.0
        } else {
            e as f32 / (epochs - 1) as f32
        };
        let alpha = config.alpha * (1.0 - 0.9 * frac);
        for i in (1..items.len()).rev() {
            let j = rng.random_range(0..=i);
            items.swap(i, j);
        }
        epoch(e + 1, alpha, items);
    }
}

#[cfg(test)]
mod tests;
