//! TD(λ) self-play training of the backgammon network, as Tesauro's
//! TD-Gammon: each side's after-move positions form a chain of
//! predictions; each prediction is moved toward the next one of the same
//! side (or the game's result), with eligibility traces per side.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::Position;
use tabula_bots::bg::features::{INPUTS, encode};
use tabula_bots::bg::net::{Buf, Net, OUTPUTS, Probs};
use tabula_bots::nn::Sparse;
use tabula_dice::Dice;

/// TD(λ) self-play training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Learning rate.
    pub alpha: f32,
    /// Trace decay.
    pub lambda: f32,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            alpha: 0.1,
            lambda: 0.7,
        }
    }
}

/// One side's eligibility traces and last evaluation.
#[derive(Debug)]
struct Chain {
    /// `e1[k][i * hidden + j]`, `eb1[k][j]`, `e2[k][j]`, `eb2[k]`.
    e1: Vec<Vec<f32>>,
    eb1: Vec<Vec<f32>>,
    e2: Vec<Vec<f32>>,
    eb2: [f32; OUTPUTS],
    last: Option<[f32; OUTPUTS]>,
}

impl Chain {
    fn new(net: &Net) -> Chain {
        let hn = net.hidden();
        Chain {
            e1: vec![vec![0.0; INPUTS * hn]; OUTPUTS],
            eb1: vec![vec![0.0; hn]; OUTPUTS],
            e2: vec![vec![0.0; hn]; OUTPUTS],
            eb2: [0.0; OUTPUTS],
            last: None,
        }
    }

    fn reset(&mut self) {
        for k in 0..OUTPUTS {
            self.e1[k].fill(0.0);
            self.eb1[k].fill(0.0);
            self.e2[k].fill(0.0);
        }
        self.eb2 = [0.0; OUTPUTS];
        self.last = None;
    }
}

/// A self-play trainer: each side's after-move positions form a chain of
/// predictions; each prediction is moved toward the next one of the same
/// side (or the game's result), with eligibility traces per side.
#[derive(Debug)]
pub struct Trainer {
    /// The network being trained.
    pub net: Net,
    config: TrainConfig,
    chains: [Chain; 2],
    h: Buf,
    /// The hidden activations of the last position learned from.
    hidden: Vec<f32>,
    rng: ChaCha8Rng,
    buf: Vec<Position>,
    /// Games played so far.
    pub games: u64,
}

impl Trainer {
    /// A trainer for `net`, its dice seeded by `seed`.
    /// Training moves the hidden layer, so a backgammon head is dropped.
    pub fn new(mut net: Net, config: TrainConfig, seed: u64) -> Trainer {
        net.drop_backgammons();
        let chains = [Chain::new(&net), Chain::new(&net)];
        let h = Buf::new(&net);
        let hidden = Vec::with_capacity(net.hidden());
        Trainer {
            net,
            config,
            chains,
            h,
            hidden,
            rng: ChaCha8Rng::seed_from_u64(seed),
            buf: Vec::with_capacity(64),
            games: 0,
        }
    }

    fn roll(&mut self) -> Dice {
        let a = self.rng.random_range(1..=6u8);
        let b = self.rng.random_range(1..=6u8);
        // Both in 1..=6, so this cannot fail.
        Dice::new(a, b).unwrap_or(Dice::ALL_21[0])
    }

    /// Plays one self-play game, learning from it; returns the winner's
    /// equity sign for the first mover (+1 won, -1 lost; ±2 gammons).
    pub fn play_game(&mut self) -> i32 {
        for c in &mut self.chains {
            c.reset();
        }
        let mut pos = Position::initial();
        // The opening roll is never a double.
        let mut dice = loop {
            let d = self.roll();
            if !d.is_double() {
                break d;
            }
        };
        let mut side = 0usize;
        loop {
            pos.legal_positions_into(dice, &mut self.buf);
            let after = if self.buf.is_empty() {
                pos
            } else {
                let mut best = 0;
                let mut best_eq = f32::NEG_INFINITY;
                for (i, p) in self.buf.iter().enumerate() {
                    let eq = match Probs::of_outcome(p) {
                        Some(o) => o.equity() + 10.0,
                        None => self.net.eval_board(p.board(), &mut self.h).equity(),
                    };
                    if eq > best_eq {
                        best_eq = eq;
                        best = i;
                    }
                }
                self.buf[best]
            };
            if let Some(result) = Probs::of_outcome(&after) {
                let r = result.to_array();
                self.learn(side, r, None);
                self.learn(1 - side, result.flip().to_array(), None);
                self.games += 1;
                let pts = if result.win_gammon > 0.0 || result.lose_gammon > 0.0 {
                    2
                } else {
                    1
                };
                let sign = if (side == 0) == (result.win > 0.5) {
                    1
                } else {
                    -1
                };
                return sign * pts;
            }
            let mut x = Sparse::with_capacity(INPUTS);
            encode(after.board(), &mut x);
            let mut y = [0.0; OUTPUTS];
            self.net.core().forward(&x, &mut self.hidden, &mut y);
            self.learn(side, y, Some(&x));
            pos = after.pass_turn();
            side = 1 - side;
            dice = self.roll();
        }
    }

    /// Moves `side`'s last prediction toward `target`, then (when `x` is
    /// given) adds the gradient of the new prediction `target` at `x` to
    /// its traces. `self.hidden` holds `x`'s hidden activations.
    #[allow(clippy::needless_range_loop)] // k indexes targets, traces and weights alike
    fn learn(&mut self, side: usize, target: [f32; OUTPUTS], x: Option<&Sparse>) {
        let net = self.net.core_mut();
        let hn = net.hidden;
        let TrainConfig { alpha, lambda } = self.config;
        let chain = &mut self.chains[side];
        if let Some(last) = chain.last {
            for k in 0..OUTPUTS {
                let d = alpha * (target[k] - last[k]);
                if d == 0.0 {
                    continue;
                }
                for (w, e) in net.w1.iter_mut().zip(&chain.e1[k]) {
                    *w += d * e;
                }
                for (w, e) in net.b1.iter_mut().zip(&chain.eb1[k]) {
                    *w += d * e;
                }
                for (w, e) in net.w2[k * hn..(k + 1) * hn].iter_mut().zip(&chain.e2[k]) {
                    *w += d * e;
                }
                net.b2[k] += d * chain.eb2[k];
            }
        }
        let Some(x) = x else {
            chain.last = None;
            return;
        };
        // Traces: e ← λe + ∇y at x. The weights just moved a little, but
        // the gradient is taken at the forward pass already made (as
        // TD-Gammon does).
        let h = &self.hidden;
        for k in 0..OUTPUTS {
            let yk = target[k];
            let g = yk * (1.0 - yk);
            for e in chain.e1[k].iter_mut() {
                *e *= lambda;
            }
            for e in chain.eb1[k].iter_mut() {
                *e *= lambda;
            }
            for e in chain.e2[k].iter_mut() {
                *e *= lambda;
            }
            chain.eb2[k] = chain.eb2[k] * lambda + g;
            let w2 = &net.w2[k * hn..(k + 1) * hn];
            let e2 = &mut chain.e2[k];
            let eb1 = &mut chain.eb1[k];
            let mut back = vec![0.0f32; hn];
            for j in 0..hn {
                e2[j] += g * h[j];
                back[j] = g * w2[j] * h[j] * (1.0 - h[j]);
                eb1[j] += back[j];
            }
            let e1 = &mut chain.e1[k];
            for (i, v) in x.iter() {
                let row = &mut e1[i * hn..(i + 1) * hn];
                for (e, b) in row.iter_mut().zip(&back) {
                    *e += v * b;
                }
            }
        }
        chain.last = Some(target);
    }
}

#[cfg(test)]
mod tests {
    use tabula_bots::bg::net::Head;

    use super::*;

    #[test]
    fn training_drops_the_backgammon_head() {
        // TD training moves the hidden layer the head reads: the head goes.
        let mut net = Net::random(8, 5);
        *net.backgammons_mut() = Some(Head::constant(8, [0.01, 0.02]));
        assert!(net.has_backgammons());
        let trainer = Trainer::new(net, TrainConfig::default(), 1);
        assert!(!trainer.net.has_backgammons());
    }

    #[test]
    fn training_is_deterministic_and_moves_the_weights() {
        let run = || {
            let mut t = Trainer::new(Net::random(8, 1), TrainConfig::default(), 7);
            for _ in 0..3 {
                t.play_game();
            }
            t.net
        };
        let a = run();
        assert_eq!(a, run());
        assert_ne!(a, Net::random(8, 1));
    }
}
