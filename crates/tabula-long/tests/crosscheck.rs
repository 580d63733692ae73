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

/// Random legal set-ups (not necessarily reachable in play: primes already
/// on the board, odd bear-off spreads), for the rules' corners.
fn synthetic(rng: &mut rand_chacha::ChaCha8Rng) -> tabula_long::Position {
    use rand::Rng;
    use tabula_long::{Color, Position, Setup, Variant};
    loop {
        let mut w = [0i64; 25];
        let mut b = [0i64; 25];
        let bear = rng.random_bool(0.3);
        let off_w = if bear { rng.random_range(0..15) } else { 0 };
        let off_b = if rng.random_bool(0.2) {
            rng.random_range(0..15)
        } else {
            0
        };
        let spots_w: Vec<u8> = (0..rng.random_range(1..8))
            .map(|_| {
                if bear {
                    rng.random_range(1..=6)
                } else {
                    rng.random_range(1..=24)
                }
            })
            .collect();
        let spots_b: Vec<u8> = (0..rng.random_range(1..8))
            .map(|_| rng.random_range(1..=24))
            .collect();
        for _ in 0..15 - off_w {
            w[spots_w[rng.random_range(0..spots_w.len())] as usize] += 1;
        }
        for _ in 0..15 - off_b {
            b[spots_b[rng.random_range(0..spots_b.len())] as usize] += 1;
        }
        if (1..=24).any(|p| w[p] > 0 && b[p] > 0) {
            continue;
        }
        let map = |a: &[i64; 25]| {
            (1..=24)
                .filter(|&p| a[p] > 0)
                .map(|p| (p.to_string(), a[p]))
                .collect()
        };
        let setup = Setup {
            turn: if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            },
            white: map(&w),
            black: map(&b),
            off: tabula_long::OffCounts {
                white: off_w,
                black: off_b,
            },
            first_turn: false,
        };
        let v = if rng.random_bool(0.5) {
            Variant::default()
        } else {
            "prime_rule=opponent_home".parse().unwrap()
        };
        if let Ok(p) = Position::from_setup(&setup, v) {
            return p;
        }
    }
}

#[test]
fn fast_full_and_reference_generators_agree_on_random_setups() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
    for _ in 0..150 {
        let p = synthetic(&mut rng);
        for d in Dice::ALL_21 {
            // Given an arbitrary legal set-up and a roll, Then all agree.
            let reference = reference_finals(&p, d);
            assert_eq!(
                engine_finals(&p, d),
                reference,
                "fast vs reference: {p} dice {d}"
            );
            assert_eq!(p.legal_moves(d).len(), reference.len(), "{p} {d}");
            let full: std::collections::BTreeSet<_> = p
                .moves(d)
                .finals
                .iter()
                .map(|f| plain(&f.position))
                .collect();
            assert_eq!(full, reference, "full listing vs reference: {p} dice {d}");
        }
    }
}
