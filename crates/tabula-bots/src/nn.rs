//! The one-hidden-layer network both nardy games' Hard bots use:
//! sparse inputs → `hidden` sigmoid units → a few sigmoid outputs, each a
//! probability. The game modules ([`crate::bg_net`], [`crate::long_net`])
//! own their encodings, outputs and file headers; this module owns the
//! arithmetic, the weights' byte form and the gradient step.
//!
//! Every operation runs in a fixed order on one thread in `f32`, so the
//! same inputs give the same bits on every machine (training replays for a
//! seed).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The non-zero inputs of one position: `(unit, value)` pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sparse {
    idx: Vec<u16>,
    val: Vec<f32>,
}

impl Sparse {
    /// An empty input set with room for `n` units.
    pub fn with_capacity(n: usize) -> Sparse {
        Sparse {
            idx: Vec::with_capacity(n),
            val: Vec::with_capacity(n),
        }
    }

    /// Forgets every unit (keeping the allocation).
    pub fn clear(&mut self) {
        self.idx.clear();
        self.val.clear();
    }

    /// Sets unit `i` to `v` (zero values are skipped).
    pub fn push(&mut self, i: usize, v: f32) {
        if v != 0.0 {
            self.idx.push(i as u16);
            self.val.push(v);
        }
    }

    /// The `(unit, value)` pairs in the order they were pushed.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.idx
            .iter()
            .zip(&self.val)
            .map(|(&i, &v)| (usize::from(i), v))
    }

    /// How many units are set.
    pub fn len(&self) -> usize {
        self.idx.len()
    }

    /// Whether no unit is set.
    pub fn is_empty(&self) -> bool {
        self.idx.is_empty()
    }
}

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NetError {
    /// Not a file of the expected kind.
    #[error("not a Tabula {0} network (bad magic)")]
    BadMagic(&'static str),
    /// The sizes in the header disagree with the file's length or the
    /// encoding's.
    #[error("bad network shape: {0}")]
    BadShape(String),
}

/// Hidden units summed together in [`Net::forward`] (a multiple of the
/// vector width; 32 floats fit the registers of any x86-64).
const BLOCK: usize = 32;

/// The logistic function in `f32`.
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// A one-hidden-layer network: `inputs` → `hidden` (sigmoid) → `outputs`
/// (sigmoid).
#[derive(Debug, Clone, PartialEq)]
pub struct Net {
    pub(crate) inputs: usize,
    pub(crate) hidden: usize,
    pub(crate) outputs: usize,
    /// Hidden weights, input-major: `w1[i * hidden + j]`.
    pub(crate) w1: Vec<f32>,
    pub(crate) b1: Vec<f32>,
    /// Output weights: `w2[k * hidden + j]`.
    pub(crate) w2: Vec<f32>,
    pub(crate) b2: Vec<f32>,
}

impl Net {
    /// A network with small seeded random weights (uniform in ±0.1; the
    /// output biases start at zero).
    pub fn random(inputs: usize, hidden: usize, outputs: usize, seed: u64) -> Net {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut r = |s: f32| (rng.random::<f32>() * 2.0 - 1.0) * s;
        let w1 = (0..inputs * hidden).map(|_| r(0.1)).collect();
        let b1 = (0..hidden).map(|_| r(0.1)).collect();
        let w2 = (0..outputs * hidden).map(|_| r(0.1)).collect();
        Net {
            inputs,
            hidden,
            outputs,
            w1,
            b1,
            w2,
            b2: vec![0.0; outputs],
        }
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// How many weights (biases included).
    pub fn weight_count(&self) -> usize {
        self.w1.len() + self.b1.len() + self.w2.len() + self.b2.len()
    }

    /// Appends every weight as `f32` little-endian: `w1`, `b1`, `w2`, `b2`.
    pub fn write_weights(&self, out: &mut Vec<u8>) {
        for v in self
            .w1
            .iter()
            .chain(&self.b1)
            .chain(&self.w2)
            .chain(&self.b2)
        {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Reads [`Net::write_weights`]'s form for the given shape; `bytes`
    /// must be exactly the weights.
    pub fn read_weights(
        inputs: usize,
        hidden: usize,
        outputs: usize,
        bytes: &[u8],
    ) -> Result<Net, NetError> {
        if hidden == 0 || hidden > 4096 {
            return Err(NetError::BadShape(format!("{hidden} hidden units")));
        }
        let n = inputs * hidden + hidden + outputs * hidden + outputs;
        if bytes.len() != 4 * n {
            return Err(NetError::BadShape(format!(
                "{} bytes of weights for {n} weights",
                bytes.len()
            )));
        }
        let mut vals = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut take = |k: usize| -> Vec<f32> { vals.by_ref().take(k).collect() };
        let w1 = take(inputs * hidden);
        let b1 = take(hidden);
        let w2 = take(outputs * hidden);
        let b2 = take(outputs);
        Ok(Net {
            inputs,
            hidden,
            outputs,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// The outputs for `x` into `y` (`outputs` long), the hidden
    /// activations left in `h`.
    pub fn forward(&self, x: &Sparse, h: &mut Vec<f32>, y: &mut [f32]) {
        let hn = self.hidden;
        h.clear();
        h.extend_from_slice(&self.b1);
        // Each hidden unit sums its inputs in their order, as ever (the
        // same bits), but a block of units at a time, held in registers
        // over all the inputs instead of loaded and stored for each.
        for (start, block) in (0..hn).step_by(BLOCK).zip(h.chunks_mut(BLOCK)) {
            if let Ok(acc) = <&mut [f32; BLOCK]>::try_from(&mut *block) {
                let mut a = *acc;
                for (i, v) in x.iter() {
                    let at = i * hn + start;
                    if let Ok(row) = <&[f32; BLOCK]>::try_from(&self.w1[at..at + BLOCK]) {
                        for k in 0..BLOCK {
                            a[k] += v * row[k];
                        }
                    }
                }
                *acc = a;
            } else {
                let len = block.len();
                for (i, v) in x.iter() {
                    let at = i * hn + start;
                    for (a, w) in block.iter_mut().zip(&self.w1[at..at + len]) {
                        *a += v * w;
                    }
                }
            }
        }
        for a in h.iter_mut() {
            *a = sigmoid(*a);
        }
        if self.outputs == 3 && y.len() >= 3 {
            // The three sums side by side, each in the same order as the
            // loop below (the same bits), so they overlap in the CPU.
            let (r0, rest) = self.w2.split_at(hn);
            let (r1, r2) = rest.split_at(hn);
            let (mut z0, mut z1, mut z2) = (0.0f32, 0.0f32, 0.0f32);
            for (((a, w0), w1), w2) in h.iter().zip(r0).zip(r1).zip(r2) {
                z0 += w0 * a;
                z1 += w1 * a;
                z2 += w2 * a;
            }
            y[0] = sigmoid(z0 + self.b2[0]);
            y[1] = sigmoid(z1 + self.b2[1]);
            y[2] = sigmoid(z2 + self.b2[2]);
            return;
        }
        for (k, yk) in y.iter_mut().enumerate().take(self.outputs) {
            let row = &self.w2[k * hn..(k + 1) * hn];
            let z: f32 = row.iter().zip(h.iter()).map(|(w, a)| w * a).sum::<f32>() + self.b2[k];
            *yk = sigmoid(z);
        }
    }

    /// One gradient step moving the outputs at `x` toward `target`
    /// (`w += alpha · (target − y) · ∇y` for each output; the squared
    /// error's gradient through the sigmoids). Returns the outputs before
    /// the step into `y`. `h` and `back` are scratch.
    pub fn step_toward(
        &mut self,
        x: &Sparse,
        target: &[f32],
        alpha: f32,
        h: &mut Vec<f32>,
        back: &mut Vec<f32>,
        y: &mut [f32],
    ) {
        self.forward(x, h, y);
        let hn = self.hidden;
        back.clear();
        back.resize(hn, 0.0);
        for k in 0..self.outputs {
            let d = alpha * (target[k] - y[k]);
            if d == 0.0 {
                continue;
            }
            let g = d * y[k] * (1.0 - y[k]);
            let row = &mut self.w2[k * hn..(k + 1) * hn];
            for ((w, a), b) in row.iter_mut().zip(h.iter()).zip(back.iter_mut()) {
                *b += g * *w;
                *w += g * a;
            }
            self.b2[k] += g;
        }
        for ((b, a), b1) in back.iter_mut().zip(h.iter()).zip(self.b1.iter_mut()) {
            *b *= a * (1.0 - a);
            *b1 += *b;
        }
        for (i, v) in x.iter() {
            let row = &mut self.w1[i * hn..(i + 1) * hn];
            for (w, b) in row.iter_mut().zip(back.iter()) {
                *w += v * b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_round_trip_and_bad_lengths_are_refused() {
        let net = Net::random(5, 4, 2, 9);
        let mut bytes = Vec::new();
        net.write_weights(&mut bytes);
        assert_eq!(bytes.len(), 4 * net.weight_count());
        assert_eq!(Net::read_weights(5, 4, 2, &bytes).unwrap(), net);
        assert!(matches!(
            Net::read_weights(5, 4, 2, &bytes[4..]),
            Err(NetError::BadShape(_))
        ));
        assert!(matches!(
            Net::read_weights(5, 0, 2, &[]),
            Err(NetError::BadShape(_))
        ));
    }

    /// The plain sums, one input at a time over every hidden unit: what
    /// [`Net::forward`]'s blocks must equal bit for bit.
    fn forward_plain(net: &Net, x: &Sparse) -> (Vec<f32>, Vec<f32>) {
        let hn = net.hidden;
        let mut h = net.b1.clone();
        for (i, v) in x.iter() {
            for (a, w) in h.iter_mut().zip(&net.w1[i * hn..(i + 1) * hn]) {
                *a += v * w;
            }
        }
        let h: Vec<f32> = h.into_iter().map(sigmoid).collect();
        let y = (0..net.outputs)
            .map(|k| {
                let row = &net.w2[k * hn..(k + 1) * hn];
                let z: f32 = row.iter().zip(&h).map(|(w, a)| w * a).sum::<f32>() + net.b2[k];
                sigmoid(z)
            })
            .collect();
        (h, y)
    }

    #[test]
    fn the_blocked_sums_give_the_plain_sums_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for (hidden, outputs) in [(128, 3), (40, 3), (7, 2), (32, 1), (100, 5)] {
            let net = Net::random(209, hidden, outputs, hidden as u64);
            for _ in 0..200 {
                let mut x = Sparse::with_capacity(209);
                for i in 0..209 {
                    if rng.random::<f32>() < 0.3 {
                        x.push(i, rng.random::<f32>() * 3.0);
                    }
                }
                let (mut h, mut y) = (Vec::new(), vec![0.0f32; outputs]);
                net.forward(&x, &mut h, &mut y);
                let (h0, y0) = forward_plain(&net, &x);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&h), bits(&h0), "{hidden} hidden");
                assert_eq!(bits(&y), bits(&y0), "{hidden} hidden");
            }
        }
    }

    #[test]
    fn a_gradient_step_moves_each_output_toward_its_target() {
        let mut net = Net::random(6, 8, 2, 3);
        let mut x = Sparse::with_capacity(4);
        x.push(1, 1.0);
        x.push(4, 0.5);
        x.push(5, 0.0);
        assert_eq!(x.len(), 2);
        let (mut h, mut back, mut y) = (Vec::new(), Vec::new(), [0.0f32; 2]);
        net.forward(&x, &mut h, &mut y);
        let before = y;
        let target = [1.0, 0.0];
        for _ in 0..50 {
            net.step_toward(&x, &target, 0.5, &mut h, &mut back, &mut y);
        }
        net.forward(&x, &mut h, &mut y);
        assert!(y[0] > before[0] + 0.2, "{before:?} → {y:?}");
        assert!(y[1] < before[1] - 0.2, "{before:?} → {y:?}");
    }
}
