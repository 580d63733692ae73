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
//! count): [`sample`] plays self-play games by the network's greedy play
//! (a share of moves at random, to see positions it would not reach) and
//! keeps every position after a move; [`label`] judges each at 1-ply
//! ([`one_ply_probs`]) or, as Hard looks, at 2-ply ([`two_ply_probs`]); [`fit`] takes gradient steps toward the labels in
//! a seeded order, epoch by epoch, and reports the mean squared error on
//! a held-out part. `tabula fit-bg` runs them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::{Position, Scoring};
use tabula_dice::Dice;

use crate::bg_net::{
    Buf, Head, Near, Net, OUTPUTS, Probs, backgammon_in_sight, backgammon_possible,
};

/// Positions after a move (the side that moved still "on turn" in the
/// engine's sense, as [`Net::evaluate`] takes them) from self-play games
/// of the network's greedy play, `explore` of the moves picked at random
/// among the legal ones instead; finished games are left out. `n` of
/// them, the same for the same network, `n`, `explore` and `seed`.
pub fn sample(net: &Net, n: usize, explore: f64, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut buf = Vec::with_capacity(64);
    let roll = |rng: &mut ChaCha8Rng| {
        Dice::new(rng.random_range(1..=6u8), rng.random_range(1..=6u8)).unwrap_or(Dice::ALL_21[0])
    };
    while out.len() < n {
        let mut pos = Position::initial();
        let mut dice = loop {
            let d = roll(&mut rng);
            if !d.is_double() {
                break d;
            }
        };
        loop {
            pos.legal_positions_into(dice, &mut buf);
            let after = if buf.is_empty() {
                pos
            } else if rng.random_bool(explore) {
                buf[rng.random_range(0..buf.len())]
            } else {
                buf[crate::bg_net::best_static(net, &buf, Scoring::Gammons).unwrap_or(0)]
            };
            if after.is_over() || out.len() >= n {
                break;
            }
            out.push(after);
            pos = after.pass_turn();
            dice = roll(&mut rng);
        }
    }
    out
}

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
/// ahead, as Hard's [`crate::bg_net::two_ply`] judges: over the
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
        match crate::bg_net::best_near(&mut near, buf, Scoring::Gammons) {
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
        pos = match crate::bg_net::best_near(&mut near, buf, Scoring::Gammons) {
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
/// `data` (from [`sample`], the positions of the last games: positions of
/// one game are alike, so a random share would measure memory, not
/// judgement), then takes one gradient step per training position per
/// epoch in a seeded order. Calls `report(epoch, held-out error, the
/// network)` before the first epoch (epoch 0) and after each. The
/// steps move the hidden layer, so a backgammon head is dropped (fit a
/// new one after: [`fit_backgammons`]).
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
        let mut h = Buf::new(net);
        for (p, t) in train {
            net.step_toward(p, t, alpha, &mut h);
        }
        report(epoch, mse(net, held), net);
    });
}

/// The epochs of a fit: for each (numbered from 1), its learning rate,
/// linear from `config.alpha` down to a tenth of it in the last, and
/// `items` in a new order (Fisher–Yates, by a generator seeded with
/// `config.seed`), handed to `epoch`.
fn run_epochs<T>(config: FitConfig, items: &mut [T], mut epoch: impl FnMut(u32, f32, &[T])) {
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

/// The most moves a rollout plays before it stops (none of this
/// network's self-play games is half as long).
const ROLLOUT_PLIES: usize = 600;

/// One game played out from `after` (the side that moved in it is "us";
/// the other side rolls next) by the network's greedy play for both
/// sides, except that a side in a backgammon's way (none off, checkers
/// back, the other side bearing off) runs them first (`escape_first`),
/// dice from `rng`: `[1, 0]` if we win it by a backgammon, `[0, 1]` if we
/// lose it by one, else zeros. It stops as soon as no backgammon can
/// happen any more ([`backgammon_possible`]), so most rollouts are short.
pub fn rollout_backgammons(
    net: &Net,
    after: &Position,
    rng: &mut ChaCha8Rng,
    buf: &mut Vec<Position>,
) -> [f32; 2] {
    let mut pos = *after;
    // Whether the side that moved in `pos` is us.
    let mut ours = true;
    for _ in 0..ROLLOUT_PLIES {
        if let Some(o) = pos.outcome(Scoring::Gammons) {
            if o.kind != tabula_backgammon::WinKind::Backgammon {
                return [0.0, 0.0];
            }
            return if (o.winner == pos.turn()) == ours {
                [1.0, 0.0]
            } else {
                [0.0, 1.0]
            };
        }
        if backgammon_possible(pos.board()) == [false, false] {
            return [0.0, 0.0];
        }
        let next = pos.pass_turn();
        let dice = Dice::new(rng.random_range(1..=6u8), rng.random_range(1..=6u8))
            .unwrap_or(Dice::ALL_21[0]);
        next.legal_positions_into(dice, buf);
        let pick = if running_from_a_backgammon(next.board()) {
            escape_first(net, buf)
        } else {
            crate::bg_net::best_static(net, buf, Scoring::Gammons)
        };
        pos = match pick {
            Some(i) => buf[i],
            None => next,
        };
        ours = !ours;
    }
    [0.0, 0.0]
}

/// Whether the side on roll on `b` (its own numbering) is in a
/// backgammon's way: none of its checkers off, some still in the other
/// side's home board (19..=24) or on the bar, and the other side bearing
/// off (every checker of it home or off).
fn running_from_a_backgammon(b: &[i8; 26]) -> bool {
    let mine: i32 = b.iter().map(|&n| i32::from(n.max(0))).sum();
    let back = back_checkers(b)[0];
    let theirs_home = b[..19].iter().all(|&n| n >= 0);
    mine == 15 && back > 0 && theirs_home
}

/// The rollouts' play there: the fewest checkers left back, then the
/// fewest pips for them to get out, then the network's best (the
/// network's own play is no guide: a network without a backgammon head
/// does not see the danger, and the head is what these rollouts teach).
fn escape_first(net: &Net, finals: &[Position]) -> Option<usize> {
    let back = |p: &Position| {
        let b = p.board();
        (19..=25usize).fold((0i32, 0i32), |(n, d), i| {
            let c = i32::from(b[i].max(0));
            (n + c, d + c * (i as i32 - 18))
        })
    };
    let least = finals.iter().map(back).min()?;
    let keep: Vec<Position> = finals
        .iter()
        .filter(|p| back(p) == least)
        .copied()
        .collect();
    let i = crate::bg_net::best_static(net, &keep, Scoring::Gammons)?;
    finals.iter().position(|p| *p == keep[i])
}

/// Every position's backgammon label: the mean of `rollouts`
/// [`rollout_backgammons`] (win, lose) from it, where the head judges
/// ([`backgammon_in_sight`]), else zeros without a rollout. Each
/// position's dice come from `seed` and its index, so the labels are the
/// same on any number of `threads`.
pub fn label_backgammons(
    net: &Net,
    positions: &[Position],
    rollouts: usize,
    seed: u64,
    threads: usize,
) -> Vec<[f32; 2]> {
    let threads = threads.max(1);
    let chunk = positions.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = positions
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                s.spawn(move || {
                    let mut buf = Vec::with_capacity(64);
                    part.iter()
                        .enumerate()
                        .map(|(k, p)| {
                            if backgammon_in_sight(p.board()) == [false, false] {
                                return [0.0, 0.0];
                            }
                            let index = (c * chunk + k) as u64;
                            let mut rng = ChaCha8Rng::seed_from_u64(
                                seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                            );
                            let mut sum = [0.0f32; 2];
                            for _ in 0..rollouts {
                                let [w, l] = rollout_backgammons(net, p, &mut rng, &mut buf);
                                sum[0] += w;
                                sum[1] += l;
                            }
                            let n = rollouts.max(1) as f32;
                            [sum[0] / n, sum[1] / n]
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

/// The mean squared error of a backgammon head's outputs on `data`, each
/// output only where the head judges it ([`backgammon_in_sight`]); `None`
/// for a network without a head.
pub fn backgammon_mse(net: &Net, data: &[(Position, [f32; 2])]) -> Option<f64> {
    let head = net.backgammons.as_ref()?;
    let mut buf = Buf::new(net);
    let (mut sum, mut n) = (0.0f64, 0usize);
    for (p, t) in data {
        let can = backgammon_in_sight(p.board());
        let y = head.eval(net.hidden_of(p, &mut buf));
        for k in 0..2 {
            if can[k] {
                sum += f64::from((y[k] - t[k]).powi(2));
                n += 1;
            }
        }
    }
    Some(if n == 0 { 0.0 } else { sum / n as f64 })
}

/// Fits `net`'s backgammon head (a new one, starting from the labels'
/// mean) to `data` ([`label_backgammons`]), the hidden layer left as it
/// is: logistic regression on the hidden activations, by the
/// cross-entropy's gradient, each output on the positions where the head
/// judges it ([`backgammon_in_sight`]). Holds out the last `holdout`
/// share as [`fit`] does; calls `report(epoch, held-out error, the
/// network)` before the first epoch and after each. Deterministic for
/// `config.seed`.
pub fn fit_backgammons(
    net: &mut Net,
    data: &[(Position, [f32; 2])],
    config: FitConfig,
    mut report: impl FnMut(u32, f64, &Net),
) {
    let held_n = (data.len() as f64 * config.holdout.clamp(0.0, 1.0)).round() as usize;
    let (train, held) = data.split_at(data.len() - held_n.min(data.len()));
    // Each training position's hidden activations, computed once, with
    // which outputs it teaches.
    let hn = net.hidden();
    let mut buf = Buf::new(net);
    let mut rows: Vec<(usize, [bool; 2], [f32; 2])> = Vec::new();
    let mut hs: Vec<f32> = Vec::new();
    let (mut mean, mut count) = ([0.0f64; 2], [0usize; 2]);
    for (p, t) in train {
        let can = backgammon_in_sight(p.board());
        if can == [false, false] {
            continue;
        }
        for k in 0..2 {
            if can[k] {
                mean[k] += f64::from(t[k]);
                count[k] += 1;
            }
        }
        rows.push((hs.len(), can, *t));
        hs.extend_from_slice(net.hidden_of(p, &mut buf));
    }
    let start = [0, 1].map(|k| (mean[k] / count[k].max(1) as f64) as f32);
    net.backgammons = Some(Head::constant(hn, start));
    report(0, backgammon_mse(net, held).unwrap_or(0.0), net);
    run_epochs(config, &mut rows, |epoch, alpha, rows| {
        if let Some(head) = net.backgammons.as_mut() {
            for &(at, can, t) in rows {
                let h = &hs[at..at + hn];
                let y = head.eval(h);
                for k in 0..2 {
                    if !can[k] {
                        continue;
                    }
                    let d = alpha * (t[k] - y[k]);
                    for (w, a) in head.w[k * hn..(k + 1) * hn].iter_mut().zip(h) {
                        *w += d * a;
                    }
                    head.b[k] += d;
                }
            }
        }
        report(epoch, backgammon_mse(net, held).unwrap_or(0.0), net);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_is_deterministic_and_keeps_only_unfinished_positions() {
        let net = Net::shipped();
        let a = sample(net, 300, 0.1, 7);
        assert_eq!(a.len(), 300);
        assert_eq!(a, sample(net, 300, 0.1, 7));
        assert_ne!(a, sample(net, 300, 0.1, 8));
        assert!(a.iter().all(|p| !p.is_over()));
    }

    #[test]
    fn one_ply_probs_agree_with_one_ply_equity_and_labels_ignore_threads() {
        let net = Net::shipped();
        let pos = sample(net, 40, 0.0, 3);
        let mut buf = Vec::new();
        for p in &pos {
            let probs = one_ply_probs(net, p, &mut buf);
            let eq = crate::bg_net::one_ply(net, p, &mut buf, Scoring::Gammons);
            assert!(
                (probs.equity() - eq).abs() < 1e-4,
                "{} vs {eq}",
                probs.equity()
            );
            assert!((0.0..=1.0).contains(&probs.win));
        }
        assert_eq!(
            label(net, &pos, Depth::OnePly, 1),
            label(net, &pos, Depth::OnePly, 3)
        );
    }

    #[test]
    fn two_ply_probs_agree_with_hards_two_ply_and_labels_ignore_threads() {
        let net = Net::shipped();
        let pos = sample(net, 6, 0.0, 4);
        let (mut buf, mut deeper) = (Vec::new(), Vec::new());
        let labels = label(net, &pos, Depth::TwoPly, 2);
        assert_eq!(labels, label(net, &pos, Depth::TwoPly, 1));
        for (p, probs) in pos.iter().zip(&labels) {
            let mut budget = usize::MAX;
            let eq = crate::bg_net::two_ply(
                net,
                p,
                &mut buf,
                &mut deeper,
                &mut budget,
                Scoring::Gammons,
            )
            .unwrap();
            assert!(
                (probs.equity() - eq).abs() < 1e-4,
                "{} vs {eq}",
                probs.equity()
            );
            assert!((0.0..=1.0).contains(&probs.win));
            assert!(probs.win_gammon <= probs.win + 1e-6);
        }
        // Deeper is different: not the one-roll label again.
        assert_ne!(labels, label(net, &pos, Depth::OnePly, 1));
    }

    #[test]
    fn fitting_lowers_the_held_out_error_and_replays_for_a_seed() {
        // A fresh network fitted to the shipped one's 1-ply labels.
        let teacher = Net::shipped();
        let pos = sample(teacher, 1500, 0.05, 11);
        let labels = label(teacher, &pos, Depth::OnePly, 2);
        let data: Vec<_> = pos.into_iter().zip(labels).collect();
        let config = FitConfig {
            epochs: 10,
            alpha: 0.1,
            holdout: 0.2,
            seed: 5,
        };
        let run = || {
            let mut net = Net::random(16, 1);
            let mut errors = Vec::new();
            fit(&mut net, &data, config, |_, e, _| errors.push(e));
            (net, errors)
        };
        let (a, errors) = run();
        assert_eq!(errors.len(), 11);
        assert!(
            errors[10] < errors[0] * 0.5,
            "held-out error {errors:?} did not halve"
        );
        assert_eq!(a, run().0, "the same seed gives the same weights");
    }

    #[test]
    fn backgammon_labels_are_exact_where_sure_and_the_same_on_any_threads() {
        let net = Net::shipped();
        // Fifteen on our 20 point (the other side's 5 point), none off;
        // the other side bears off its last checker, on its 1 point, with
        // any roll: a backgammon every time.
        let mut doomed = [0i8; 26];
        doomed[20] = 15;
        doomed[24] = -1;
        // A race with both sides home: none can happen, no rollout.
        let mut race = [0i8; 26];
        race[3] = 15;
        race[22] = -15;
        let side = tabula_backgammon::Side::White;
        let sure = [
            Position::from_board(doomed, side).unwrap(),
            Position::from_board(race, side).unwrap(),
        ];
        assert_eq!(
            label_backgammons(net, &sure, 5, 1, 1),
            vec![[0.0, 1.0], [0.0, 0.0]]
        );
        let pos = sample(net, 120, 0.1, 4);
        let one = label_backgammons(net, &pos, 3, 9, 1);
        assert_eq!(one, label_backgammons(net, &pos, 3, 9, 3));
        assert!(one.iter().flatten().all(|v| (0.0..=1.0).contains(v)));
        assert!(
            pos.iter()
                .zip(&one)
                .all(|(p, l)| backgammon_in_sight(p.board()) != [false, false] || *l == [0.0, 0.0])
        );
    }

    #[test]
    fn back_checkers_count_the_bar_and_the_other_home_board() {
        let start = Position::initial();
        assert_eq!(back_checkers(start.board()), [2, 2]);
        assert!(!deep_back(&start));
        let mut b = [0i8; 26];
        b[25] = 1; // on the bar
        b[22] = 2;
        b[6] = 12; // our 6 point: not back
        b[0] = -1; // theirs on the bar
        b[3] = -1; // in our home board
        b[7] = -13;
        assert_eq!(back_checkers(&b), [3, 2]);
        let p = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        assert!(deep_back(&p));
    }

    #[test]
    fn rollouts_play_out_what_is_sure_and_label_alike_on_any_threads() {
        let net = Net::shipped();
        // Our last checker on our 1 point; all fifteen of theirs on our
        // 12 point (outside our home board): whatever they roll, we bear
        // off next: a gammon, not a backgammon.
        let mut b = [0i8; 26];
        b[1] = 1;
        b[12] = -15;
        let sure = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        let gammon = Probs {
            win: 1.0,
            win_gammon: 1.0,
            lose_gammon: 0.0,
            win_backgammon: 0.0,
            lose_backgammon: 0.0,
        };
        let mut buf = Vec::new();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for first in Dice::ALL_21 {
            assert_eq!(
                rollout_probs(net, &sure, first, 2, &mut rng, &mut buf),
                gammon
            );
        }
        // No moves played: the network's own judgement.
        let judged = net.evaluate(&sure);
        assert_eq!(
            rollout_probs(net, &sure, Dice::ALL_21[0], 0, &mut rng, &mut buf),
            judged
        );

        let pos = sample(net, 150, 0.1, 5);
        let labels = label(net, &pos, Depth::OnePly, 1);
        let mut one: Vec<_> = pos.iter().copied().zip(labels.iter().copied()).collect();
        let mut three = one.clone();
        let n = label_rollouts(net, &mut one, deep_back, 36, 6, 9, 1);
        assert_eq!(n, label_rollouts(net, &mut three, deep_back, 36, 6, 9, 3));
        assert_eq!(one, three);
        assert_eq!(n, pos.iter().filter(|p| deep_back(p)).count());
        assert!(n > 0 && n < pos.len(), "{n} of {}", pos.len());
        for ((p, l), old) in one.iter().zip(&labels) {
            if deep_back(p) {
                assert_ne!(l, old);
                assert!((0.0..=1.0).contains(&l.win) && l.win_gammon <= l.win + 1e-6);
            } else {
                assert_eq!(l, old);
            }
        }
        let mut sure_data = vec![(sure, labels[0])];
        assert_eq!(
            label_rollouts(net, &mut sure_data, |_| true, 36, 2, 1, 1),
            1
        );
        assert_eq!(sure_data[0].1, gammon);
    }

    #[test]
    fn a_backgammon_head_fits_its_rollouts_and_replays_for_a_seed() {
        let net = Net::shipped();
        let pos = sample(net, 20_000, 0.05, 12);
        let labels = label_backgammons(net, &pos, 4, 3, 2);
        let data: Vec<_> = pos.into_iter().zip(labels).collect();
        let config = FitConfig {
            epochs: 8,
            alpha: 0.1,
            holdout: 0.2,
            seed: 5,
        };
        let run = || {
            let mut fitted = net.clone();
            let mut errors = Vec::new();
            fit_backgammons(&mut fitted, &data, config, |_, e, _| errors.push(e));
            (fitted, errors)
        };
        let (a, errors) = run();
        assert_eq!(errors.len(), 9);
        // From the labels' mean everywhere to a head that reads the board.
        assert!(
            errors[8] < errors[0] * 0.8,
            "held-out error {errors:?} did not fall"
        );
        assert!(a.has_backgammons());
        // The rest of the network is as it was.
        let p = Position::initial();
        assert_eq!(a.evaluate(&p).win, net.evaluate(&p).win);
        assert_eq!(a, run().0, "the same seed gives the same weights");
    }

    #[test]
    fn labelled_positions_round_trip_and_bad_files_are_refused() {
        let net = Net::shipped();
        let pos = sample(net, 50, 0.1, 2);
        let labels = label(net, &pos, Depth::OnePly, 1);
        let data: Vec<_> = pos.into_iter().zip(labels).collect();
        let bytes = write_data(&data);
        let back = read_data(&bytes).expect("reads back");
        assert_eq!(back.len(), data.len());
        for ((p, t), (q, u)) in data.iter().zip(&back) {
            assert_eq!(p.board(), q.board());
            // The file keeps the three outputs the network is fitted to
            // (the backgammon head is fitted apart).
            assert_eq!(
                (t.win, t.win_gammon, t.lose_gammon),
                (u.win, u.win_gammon, u.lose_gammon)
            );
            assert_eq!(net.evaluate(p), net.evaluate(q));
        }
        assert!(read_data(&bytes[..bytes.len() - 1]).is_none());
        assert!(read_data(b"TBGNET2\0\0\0\0\0\0\0\0\0").is_none());
        let mut bad = bytes.clone();
        bad[16] = 20; // the mover's checkers on the opponent's bar
        assert!(read_data(&bad).is_none());
        let mut bad = bytes.clone();
        bad[16 + 26..16 + 30].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(
            read_data(&bad).is_none(),
            "a label that is not a probability"
        );
    }
}
