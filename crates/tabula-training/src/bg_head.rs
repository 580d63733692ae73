//! The backgammon network's backgammon head (gnubg's fourth and fifth
//! outputs: it wins a backgammon, it loses one), fitted to rollouts with
//! the hidden layer as it stands (`tabula fit-bg-backgammons`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::{Position, Scoring};
use tabula_bots::bg::features::{backgammon_in_sight, backgammon_possible};
use tabula_bots::bg::net::{Buf, Head, Net};
use tabula_dice::Dice;

use crate::bg_fit::{FitConfig, back_checkers, run_epochs};

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
            tabula_bots::bg::search::best_static(net, buf, Scoring::Gammons)
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
    let i = tabula_bots::bg::search::best_static(net, &keep, Scoring::Gammons)?;
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
    let head = net.backgammons()?;
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
/// share as [`fit`](crate::bg_fit::fit) does; calls `report(epoch, held-out error, the
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
    *net.backgammons_mut() = Some(Head::constant(hn, start));
    report(0, backgammon_mse(net, held).unwrap_or(0.0), net);
    run_epochs(config, &mut rows, |epoch, alpha, rows| {
        if let Some(head) = net.backgammons_mut().as_mut() {
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
    use tabula_bots::bg::search::sample;

    use super::*;

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
}
