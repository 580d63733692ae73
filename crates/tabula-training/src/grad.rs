//! The gradient step of the bots' one-hidden-layer network
//! ([`tabula_bots::nn::Net`]): the squared error's gradient through the
//! sigmoids, one position at a time.

use tabula_backgammon::Position;
use tabula_bots::bg::features::encode;
use tabula_bots::bg::net::{self as bg_net, Probs};
use tabula_bots::nn::{Net, Sparse};

/// One gradient step moving the outputs at `x` toward `target`
/// (`w += alpha · (target − y) · ∇y` for each output; the squared
/// error's gradient through the sigmoids). Returns the outputs before
/// the step into `y`. `h` and `back` are scratch.
pub fn step_toward(
    net: &mut Net,
    x: &Sparse,
    target: &[f32],
    alpha: f32,
    h: &mut Vec<f32>,
    back: &mut Vec<f32>,
    y: &mut [f32],
) {
    net.forward(x, h, y);
    let hn = net.hidden;
    back.clear();
    back.resize(hn, 0.0);
    for k in 0..net.outputs {
        let d = alpha * (target[k] - y[k]);
        if d == 0.0 {
            continue;
        }
        let g = d * y[k] * (1.0 - y[k]);
        let row = &mut net.w2[k * hn..(k + 1) * hn];
        for ((w, a), b) in row.iter_mut().zip(h.iter()).zip(back.iter_mut()) {
            *b += g * *w;
            *w += g * a;
        }
        net.b2[k] += g;
    }
    for ((b, a), b1) in back.iter_mut().zip(h.iter()).zip(net.b1.iter_mut()) {
        *b *= a * (1.0 - a);
        *b1 += *b;
    }
    for (i, v) in x.iter() {
        let row = &mut net.w1[i * hn..(i + 1) * hn];
        for (w, b) in row.iter_mut().zip(back.iter()) {
            *w += v * b;
        }
    }
}

/// Scratch for [`step_toward_bg`] (no allocation per step).
#[derive(Debug, Default)]
pub struct Scratch {
    x: Sparse,
    h: Vec<f32>,
    back: Vec<f32>,
}

/// One gradient step moving the backgammon network's judgement of
/// `after` toward `target` at learning rate `alpha` (supervised training,
/// [`crate::bg_fit`]).
pub fn step_toward_bg(
    net: &mut bg_net::Net,
    after: &Position,
    target: &Probs,
    alpha: f32,
    s: &mut Scratch,
) {
    encode(after.board(), &mut s.x);
    let mut y = [0.0; bg_net::OUTPUTS];
    step_toward(
        net.core_mut(),
        &s.x,
        &target.to_array(),
        alpha,
        &mut s.h,
        &mut s.back,
        &mut y,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

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
            step_toward(&mut net, &x, &target, 0.5, &mut h, &mut back, &mut y);
        }
        net.forward(&x, &mut h, &mut y);
        assert!(y[0] > before[0] + 0.2, "{before:?} → {y:?}");
        assert!(y[1] < before[1] - 0.2, "{before:?} → {y:?}");
    }
}
