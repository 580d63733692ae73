//! The one-hidden-layer network both nardy games' Hard bots use:
//! sparse inputs → `hidden` sigmoid units → a few sigmoid outputs, each a
//! probability. The game modules ([`crate::bg::net`], [`crate::long::net`])
//! own their encodings, outputs and file headers; this module owns the
//! arithmetic and the weights' byte form (the gradient step is
//! `tabula-training`'s).
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

/// `Σ w[j] · a[j]` in a fixed order: eight running sums (product `j`
/// into sum `j % 8`, in order), then added pairwise, `((s0 + s1) + (s2 +
/// s3)) + ((s4 + s5) + (s6 + s7))`: the same bits on every machine, and
/// the eight sums run side by side in vector registers (one running sum
/// waited four cycles on each addition).
pub(crate) fn dot(w: &[f32], a: &[f32]) -> f32 {
    const LANES: usize = 8;
    let n = w.len().min(a.len());
    let (w, a) = (&w[..n], &a[..n]);
    let mut s = [0.0f32; LANES];
    let (wc, ac) = (w.chunks_exact(LANES), a.chunks_exact(LANES));
    let (wr, ar) = (wc.remainder(), ac.remainder());
    for (wc, ac) in wc.zip(ac) {
        for l in 0..LANES {
            s[l] += wc[l] * ac[l];
        }
    }
    for (l, (x, y)) in wr.iter().zip(ar).enumerate() {
        s[l] += x * y;
    }
    ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

/// The logistic function in `f32`: `1 / (1 + e^-x)`, `e^-x` by [`exp`].
#[inline]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// `e^x` in `f32`, within 2 units in the last place of the true value
/// (`x` is clamped to ±87, where the logistic function is 0 or 1 to
/// `f32`'s precision), by Cephes' `expf`: `x = n ln 2 + r` with `n` whole
/// and `|r| ≤ ln 2 / 2`, `e^r` by a polynomial, `2^n` written into the
/// exponent bits. Unlike the C library's `expf` it is plain arithmetic
/// with no branch or call, so a loop of it runs four to a vector (the
/// hidden layer's 128 sigmoids were a seventh of Hard's time), and its
/// bits are the same on every machine.
#[inline]
fn exp(x: f32) -> f32 {
    // 1.5 × 2^23: adding it rounds to a whole number, held in the low
    // mantissa bits.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 87.0);
    let t = x * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    // ln 2 in two parts, the first exact in a few bits, so `n ln 2` is
    // taken off without rounding error.
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let er = p * r * r + r + 1.0;
    // 2^n: `t`'s low bits hold n (two's complement), 127 the bias.
    er * f32::from_bits(t.to_bits().wrapping_add(127) << 23)
}

/// A one-hidden-layer network: `inputs` → `hidden` (sigmoid) → `outputs`
/// (sigmoid).
#[derive(Debug, Clone, PartialEq)]
pub struct Net {
    pub inputs: usize,
    pub hidden: usize,
    pub outputs: usize,
    /// Hidden weights, input-major: `w1[i * hidden + j]`.
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    /// Output weights: `w2[k * hidden + j]`.
    pub w2: Vec<f32>,
    pub b2: Vec<f32>,
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
        self.sums(x, h);
        self.finish(h, y);
    }

    /// [`Net::forward`] of a position whose hidden sums are `pre` (its
    /// [`Net::sums`]) plus the inputs `dx`: `dx` holds the differences
    /// between its inputs and those `pre` was summed for, so only the units
    /// that differ are summed (a move changes a few; the same answer as
    /// [`Net::forward`] to within rounding).
    pub fn forward_from(&self, pre: &[f32], dx: &Sparse, h: &mut Vec<f32>, y: &mut [f32]) {
        h.clear();
        h.extend_from_slice(pre);
        self.add_rows(dx, h);
        self.finish(h, y);
    }

    /// The hidden units' sums for `x` before their sigmoid (their biases
    /// plus each input times its weight), into `h`.
    pub fn sums(&self, x: &Sparse, h: &mut Vec<f32>) {
        h.clear();
        h.extend_from_slice(&self.b1);
        self.add_rows(x, h);
    }

    /// Adds each input of `x` times its weights to the hidden sums `h`.
    fn add_rows(&self, x: &Sparse, h: &mut [f32]) {
        let hn = self.hidden;
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
    }

    /// The sigmoids of the hidden sums in `h` (left in `h`), then the
    /// outputs into `y`.
    fn finish(&self, h: &mut [f32], y: &mut [f32]) {
        let hn = self.hidden;
        for a in h.iter_mut() {
            *a = sigmoid(*a);
        }
        for (k, yk) in y.iter_mut().enumerate().take(self.outputs) {
            let z = dot(&self.w2[k * hn..(k + 1) * hn], h) + self.b2[k];
            *yk = sigmoid(z);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_the_logistic_function_are_within_two_units_in_the_last_place() {
        // Every 1/1000 over the range the clamp keeps, and its ends.
        let mut worst = 0.0f64;
        for k in -87_000..=87_000 {
            let x = k as f32 / 1000.0;
            let want = f64::from(x).exp();
            let rel = (f64::from(exp(x)) - want).abs() / want;
            worst = worst.max(rel);
        }
        // f32's unit in the last place is 2^-23 of the value (at most).
        assert!(
            worst <= 2.0 * 2f64.powi(-23),
            "worst relative error {worst:e}"
        );
        for k in -20_000..=20_000 {
            let x = k as f32 / 1000.0;
            let want = 1.0 / (1.0 + (-f64::from(x)).exp());
            let got = f64::from(sigmoid(x));
            assert!(
                (got - want).abs() <= 2.0 * 2f64.powi(-24),
                "sigmoid({x}) = {got}, not {want}"
            );
        }
        // Far out it saturates without overflow or a NaN.
        assert_eq!(sigmoid(1e6), 1.0);
        assert!(sigmoid(-1e6) >= 0.0 && sigmoid(-1e6) < 1e-37);
        assert_eq!(sigmoid(0.0), 0.5);
    }

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
                let mut s = [0.0f32; 8];
                for (j, (w, a)) in row.iter().zip(&h).enumerate() {
                    s[j % 8] += w * a;
                }
                let z = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
                sigmoid(z + net.b2[k])
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
}
