//! Helpers every game's play choice shares.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Index of the best score, exact ties broken by `rng` (deterministic for a
/// seed). `None` for an empty slice.
pub(crate) fn argmax(scores: &[f64], rng: &mut ChaCha8Rng) -> Option<usize> {
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
    match ties.len() {
        0 => None,
        1 => Some(ties[0]),
        n => Some(ties[rng.random_range(0..n)]),
    }
}

/// The logistic function.
pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
