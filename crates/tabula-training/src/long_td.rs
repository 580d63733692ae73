//! TD(λ) self-play training of the long nardy network, by the forward
//! view: each side's after-move predictions of one self-play game are a
//! chain; when the game ends, each prediction is moved toward its λ-return
//! (`G_t = (1 − λ)·y_{t+1} + λ·G_{t+1}`, the last one's being the game's
//! result). This is TD(λ) with the weights updated at the end of each game
//! (Sutton and Barto's offline λ-return algorithm), and costs one gradient
//! step per position instead of decaying a trace of every weight at every
//! move.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_bots::long::features::encode;
use tabula_bots::long::net::{Net, OUTPUTS, Probs, Scratch};
use tabula_bots::nn::Sparse;
use tabula_dice::DiceSource;
use tabula_long::{Position, Variant, decide_opening};

use crate::grad;

/// TD(λ) self-play training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Learning rate.
    pub alpha: f32,
    /// Trace decay (the λ of the λ-returns).
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

/// Plies after which a self-play game is abandoned unlearned (long nardy
/// always ends far sooner; this only bounds a broken network's play).
const PLY_CAP: usize = 1000;

/// A self-play trainer (see the module docs).
#[derive(Debug)]
pub struct Trainer {
    /// The network being trained.
    pub net: Net,
    config: TrainConfig,
    scratch: Scratch,
    /// The gradient step's scratch.
    h: Vec<f32>,
    back: Vec<f32>,
    rng: ChaCha8Rng,
    buf: Vec<Position>,
    /// Each side's after-move inputs and predictions of the game so far.
    chains: [Vec<(Sparse, [f32; OUTPUTS])>; 2],
    spare: Vec<Sparse>,
    /// Games played so far.
    pub games: u64,
    /// Positions learned from so far.
    pub positions: u64,
}

struct Roller<'a>(&'a mut ChaCha8Rng);

impl DiceSource for Roller<'_> {
    fn roll_one(&mut self) -> u8 {
        self.0.random_range(1..=6u8)
    }
}

impl Trainer {
    /// A trainer for `net`, its dice seeded by `seed`.
    pub fn new(net: Net, config: TrainConfig, seed: u64) -> Trainer {
        let scratch = Scratch::new(&net);
        Trainer {
            net,
            config,
            scratch,
            h: Vec::new(),
            back: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            buf: Vec::with_capacity(64),
            chains: [Vec::new(), Vec::new()],
            spare: Vec::new(),
            games: 0,
            positions: 0,
        }
    }

    /// Plays one self-play game of the default variant (each side greedy
    /// by the network's equity), then learns from it. Returns the points
    /// the first mover won (negative: lost), 0 for an abandoned game.
    pub fn play_game(&mut self) -> i32 {
        for chain in &mut self.chains {
            self.spare.extend(chain.drain(..).map(|(x, _)| x));
        }
        let variant = Variant::default();
        let opening = decide_opening(variant.opening, &mut Roller(&mut self.rng));
        let mut pos = Position::new_game(variant, opening.starter);
        let first = opening.starter;
        let mut pending = opening.first_roll;
        let scoring = variant.scoring;
        for _ in 0..PLY_CAP {
            let dice = pending
                .take()
                .unwrap_or_else(|| Roller(&mut self.rng).roll());
            let me = pos.turn();
            self.buf.clear();
            pos.legal_moves_into(dice, &mut self.buf);
            let mut best = 0;
            let mut best_eq = f32::NEG_INFINITY;
            for (i, p) in self.buf.iter().enumerate() {
                let eq = match Probs::of_outcome(p, me) {
                    Some(o) => o.equity(scoring) + 10.0,
                    None => self.scratch.probs(&self.net, p, me).equity(scoring),
                };
                if eq > best_eq {
                    best_eq = eq;
                    best = i;
                }
            }
            let Some(&after) = self.buf.get(best) else {
                break;
            };
            let side = usize::from(me != first);
            if let Some(result) = Probs::of_outcome(&after, me) {
                self.learn(side, result);
                self.learn(1 - side, result.flip());
                self.games += 1;
                let pts = 1 + i32::from(result.win_mars > 0.0) + i32::from(result.win_koks > 0.0);
                return if side == 0 { pts } else { -pts };
            }
            let mut x = self.spare.pop().unwrap_or_default();
            encode(&after, me, &mut x);
            let mut y = [0.0; OUTPUTS];
            self.net.core().forward(&x, &mut self.h, &mut y);
            self.chains[side].push((x, y));
            pos = after;
        }
        0
    }

    /// Moves each of `side`'s predictions of this game toward its λ-return,
    /// the last one's being `result`.
    fn learn(&mut self, side: usize, result: Probs) {
        let TrainConfig { alpha, lambda } = self.config;
        let chain = &self.chains[side];
        let mut g = result.to_array();
        let mut targets = vec![[0.0f32; OUTPUTS]; chain.len()];
        for (t, (_, y)) in chain.iter().enumerate().rev() {
            targets[t] = g;
            for k in 0..OUTPUTS {
                g[k] = (1.0 - lambda) * y[k] + lambda * g[k];
            }
        }
        let mut y = [0.0; OUTPUTS];
        for ((x, _), target) in chain.iter().zip(&targets) {
            grad::step_toward(
                self.net.core_mut(),
                x,
                target,
                alpha,
                &mut self.h,
                &mut self.back,
                &mut y,
            );
        }
        self.positions += chain.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn training_is_deterministic_and_moves_the_weights() {
        let run = || {
            let mut t = Trainer::new(Net::random(8, 1), TrainConfig::default(), 7);
            for _ in 0..3 {
                t.play_game();
            }
            (t.net, t.games, t.positions)
        };
        let a = run();
        assert_eq!(a, run());
        assert_eq!(a.1, 3);
        assert!(a.2 > 3 * 40, "{} positions", a.2);
        assert_ne!(a.0, Net::random(8, 1));
    }
}
