//! The engine's generators against the plain reference generator in
//! `common`, over thousands of (position, roll) pairs from seeded self-play
//! under every prime rule.

mod common;

use common::{engine_finals, plain, reference_finals, sample_positions, variant};
use tabula_dice::Dice;

fn check(variant_text: &str, seed: u64, games: usize, every: u32) -> usize {
    let v = variant(variant_text);
    let positions = sample_positions(seed, games, every, v);
    let mut pairs = 0;
    for p in &positions {
        for d in Dice::ALL_21 {
            // Given a position from self-play and a roll,
            // When the fast generator, the full listing and the reference
            // each produce the distinct finals,
            // Then the three sets agree exactly.
            let fast = engine_finals(p, d);
            let fast_vec = p.legal_moves(d);
            assert_eq!(
                fast.len(),
                fast_vec.len(),
                "fast finals not distinct: {p} {d}"
            );
            let reference = reference_finals(p, d);
            assert_eq!(fast, reference, "fast vs reference: {p} dice {d}");
            let full: std::collections::BTreeSet<_> = p
                .moves(d)
                .finals
                .iter()
                .map(|f| plain(&f.position))
                .collect();
            assert_eq!(full, reference, "full listing vs reference: {p} dice {d}");
            pairs += 1;
        }
    }
    pairs
}

#[test]
fn fast_full_and_reference_generators_agree_under_opponent_ahead() {
    let n = check("", 11, 12, 7);
    assert!(n >= 1000, "only {n} pairs");
}

#[test]
fn fast_full_and_reference_generators_agree_under_opponent_home() {
    let n = check("prime_rule=opponent_home", 12, 12, 7);
    assert!(n >= 1000, "only {n} pairs");
}
